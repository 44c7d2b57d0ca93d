#version 450
// The histogram of histogram.comp with an atomic increment: race-free for
// every launch. Written for gpumc's tests (tests/glsl_source.rs).
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Bins { uint bins[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  atomicAdd(bins[keys[i] & 15u], 1u);
}
