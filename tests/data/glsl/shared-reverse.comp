#version 450
// Reverses each workgroup's slice through shared memory: the barrier of
// line 11 orders every write of line 10 before the reads of line 12 in
// other invocations, so there is no race. Written for gpumc's tests.
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint data[]; } out_;
shared uint tile[4];
void main() {
  uint l = gl_LocalInvocationID.x;
  tile[l] = l;
  barrier();
  out_.data[gl_GlobalInvocationID.x] = tile[3u - l];
}
