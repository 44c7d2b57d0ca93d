#version 450
// A histogram in a GLSL compute shader, written for gpumc's tests
// (tests/glsl_source.rs): two invocations whose keys fall into one bin
// both increment it, a race between the load and the store of line 10.
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Bins { uint bins[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  bins[keys[i] & 15u] += 1u;
}
