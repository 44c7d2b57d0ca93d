// Benchmark input for bench/ptx_kernels.sh: a shared-memory tree reduction
// (the CUDA samples' reduce2 shape) over dynamic shared memory, so that one
// kernel runs at any block size: launch with --block N --shared-bytes 4N.
// reduce_dynamic is race-free; reduce_dynamic_racy lacks the barrier in
// the loop (a read-after-write race on the loop line).
#include "../../examples/cuda/gpumc_cuda.h"

extern "C" __global__ void reduce_dynamic(const int *in, int *out) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

extern "C" __global__ void reduce_dynamic_racy(const int *in, int *out) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
