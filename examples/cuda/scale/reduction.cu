// Block reduction at real launch sizes, in the style of the CUDA samples'
// "reduction" (reduce3/reduce6): every thread sums the inputs of a
// grid-stride loop over n into a register, the block reduces the 256 (at
// most) partial sums in a __shared__ tile with a tree of halving strides,
// a __syncthreads() after every step, and thread 0 writes the block's sum.
// Size-generic: the loops run over blockDim.x and gridDim.x, so the same
// PTX is checked at a small launch (gpumc-launch, every thread explored)
// and measured at the real one (gpumc-scale, bench/kernels_at_scale.sh).
#include "../gpumc_cuda.h"

#define MAX_BLOCK 256

// gpumc-launch: --grid 2 --block 8 --param in=buf:128 --param out=buf:8 --param n=32
// gpumc-scale: --grid 1024 --block 256 --param in=buf:2048*GX --param out=buf:4*GX --param n=512*GX
// gpumc-expect: no race
// why: the grid-stride loads only read `in`; thread tid writes only
// why: sdata[tid] before the loop. At step s the threads tid < s read
// why: sdata[tid + s] and sdata[tid] and write sdata[tid]: the words read
// why: were last written at an earlier step (or before the loop) and the
// why: barrier ending every step (and the one before the loop) orders
// why: those writes before the reads; a word written at step s is read by
// why: another thread only at a later step, after a barrier. Thread 0
// why: reads sdata[0], its own word, after the last barrier, and each
// why: block writes its own out[blockIdx.x].
extern "C" __global__ void reduce_block(const int *in, int *out, unsigned n) {
  __shared__ int sdata[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// gpumc-launch: --grid 2 --block 8 --param in=buf:128 --param out=buf:8 --param n=32
// gpumc-scale: --grid 1024 --block 256 --param in=buf:2048*GX --param out=buf:4*GX --param n=512*GX
// gpumc-expect: race 61 61
// why: reduce_block without the barrier that ends a step of the tree: at
// why: step s = 2 thread 0 reads sdata[2], which thread 2 wrote at step
// why: s = 4 on the same line (61), and nothing orders the two: the loop
// why: line races with itself. The barrier before the loop still orders
// why: the first stores; sdata[0], read at the end, is written only by
// why: thread 0.
extern "C" __global__ void reduce_block_missing_barrier(const int *in, int *out, unsigned n) {
  __shared__ int sdata[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// gpumc-launch: --grid 2 --block 8 --param in=buf:128 --param total=zeros:4 --param n=32
// gpumc-scale: --grid 1024 --block 256 --param in=buf:2048*GX --param total=zeros:4 --param n=512*GX
// gpumc-expect: no race
// why: reduce_block with one result for the whole grid: thread 0 of every
// why: block adds the block's sum to *total with atomicAdd (line 88).
// why: The atomics of different blocks are morally strong to each other
// why: (relaxed, .gpu scope): no race; the tree is reduce_block's.
extern "C" __global__ void reduce_block_atomic(const int *in, int *total, unsigned n) {
  __shared__ int sdata[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(total, sdata[0]);
}

// gpumc-launch: --grid 2 --block 64 --param in=buf:1024 --param out=buf:8 --param n=256
// gpumc-scale: --grid 1024 --block 256 --param in=buf:2048*GX --param out=buf:4*GX --param n=512*GX
// gpumc-expect: no race
// why: reduce_block down to 64 partial sums, then the last six steps in
// why: warp 0 with __syncwarp() (the samples' reduce with cooperative
// why: warps): lane t reads sdata[t + k] into its register, a warp
// why: barrier, then writes sdata[t], and a warp barrier ends the step.
// why: Every word read was written at an earlier step, ordered by the
// why: warp barrier between (one warp: the k-th __syncwarp() of each lane
// why: is one barrier), or before the block barrier ending the tree.
// why: Needs blocks of at least 64 threads.
extern "C" __global__ void reduce_warp_sync(const int *in, int *out, unsigned n) {
  __shared__ int sdata[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    int v = sdata[tid] + sdata[tid + 32];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
    for (unsigned k = 16; k > 0; k >>= 1) {
      if (tid < k)
        v += sdata[tid + k];
      __syncwarp();
      if (tid < k)
        sdata[tid] = v;
      __syncwarp();
    }
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// gpumc-launch: --grid 2 --block 64 --param in=buf:1024 --param out=buf:8 --param n=256
// gpumc-scale: --grid 1024 --block 256 --param in=buf:2048*GX --param out=buf:4*GX --param n=512*GX
// gpumc-expect: race 159 162
// why: reduce_warp_sync without the warp barrier that ends a step: lane
// why: t reads sdata[t + k] (line 159) while lane t + k may still
// why: write it at the step before (line 162).
extern "C" __global__ void reduce_warp_sync_missing(const int *in, int *out, unsigned n) {
  __shared__ int sdata[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    int v = sdata[tid] + sdata[tid + 32];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
    for (unsigned k = 16; k > 0; k >>= 1) {
      if (tid < k)
        v += sdata[tid + k];
      __syncwarp();
      if (tid < k)
        sdata[tid] = v;
    }
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
