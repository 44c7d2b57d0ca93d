#version 450
// shared-reverse.comp without its barrier: the write of line 10 and the
// read of line 11 by another invocation of the workgroup race. Written
// for gpumc's tests.
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint data[]; } out_;
shared uint tile[4];
void main() {
  uint l = gl_LocalInvocationID.x;
  tile[l] = l;
  out_.data[gl_GlobalInvocationID.x] = tile[3u - l];
}
