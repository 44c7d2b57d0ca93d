// Block-level inclusive prefix sum (Hillis-Steele), the first phase of the
// CUDA samples' and GPU Gems 3 (ch. 39) scans: each block scans its
// blockDim.x (at most 512) elements of in[0..n) in shared memory, at step
// `offset` (1, 2, 4, ...) thread tid adding the value of thread
// tid - offset, writes the scanned elements to out and the block's total
// to sums[blockIdx.x] (for a second pass that is not shown). Reading the
// neighbour's slot and writing one's own in one step needs two buffers or
// a barrier between the read and the write. Size-generic: loops over
// blockDim.x, bounds checked against n (missing elements count as 0).
#include "../gpumc_cuda.h"

#define MAX_BLOCK 512

// gpumc-launch: --grid 2 --block 8 --param in=buf:64 --param out=buf:64 --param sums=buf:8 --param n=16
// gpumc-scale: --grid 1024 --block 256 --param in=buf:1024*GX --param out=buf:1024*GX --param sums=buf:4*GX --param n=256*GX
// gpumc-scale: --grid 512 --block 512 --param in=buf:2048*GX --param out=buf:2048*GX --param sums=buf:4*GX --param n=512*GX
// gpumc-expect: no race
// why: a step reads only buffer `pin` and writes only the other one; the
// why: barrier ending each step orders its writes before the next step's
// why: reads, and a buffer written at step k was last read at step k - 1,
// why: before the barrier ending it. After the loop each thread reads its
// why: own slot; out and sums are written once per element and block.
extern "C" __global__ void scan_block_double_buffer(const int *in, int *out, int *sums, unsigned n) {
  __shared__ int temp[2][MAX_BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  int pin = 0;
  temp[pin][tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    int v = temp[pin][tid];
    if (tid >= offset)
      v += temp[pin][tid - offset];
    temp[1 - pin][tid] = v;
    pin = 1 - pin;
    __syncthreads();
  }
  if (i < n)
    out[i] = temp[pin][tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = temp[pin][tid];
}

// gpumc-launch: --grid 2 --block 8 --param in=buf:64 --param out=buf:64 --param sums=buf:8 --param n=16
// gpumc-scale: --grid 1024 --block 256 --param in=buf:1024*GX --param out=buf:1024*GX --param sums=buf:4*GX --param n=256*GX
// gpumc-scale: --grid 512 --block 512 --param in=buf:2048*GX --param out=buf:2048*GX --param sums=buf:4*GX --param n=512*GX
// gpumc-expect: no race
// why: one buffer, two barriers per step: the first orders every
// why: thread's read of temp[tid - offset] before the writes of the step,
// why: the second orders the writes before the next step's reads.
extern "C" __global__ void scan_block_two_barriers(const int *in, int *out, int *sums, unsigned n) {
  __shared__ int temp[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  temp[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    int v = temp[tid];
    if (tid >= offset)
      v += temp[tid - offset];
    __syncthreads();
    temp[tid] = v;
    __syncthreads();
  }
  if (i < n)
    out[i] = temp[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = temp[tid];
}

// gpumc-launch: --grid 2 --block 8 --param in=buf:64 --param out=buf:64 --param sums=buf:8 --param n=16
// gpumc-scale: --grid 1024 --block 256 --param in=buf:1024*GX --param out=buf:1024*GX --param sums=buf:4*GX --param n=256*GX
// gpumc-scale: --grid 512 --block 512 --param in=buf:2048*GX --param out=buf:2048*GX --param sums=buf:4*GX --param n=512*GX
// gpumc-expect: race 89 90
// why: one buffer without the barrier between the read and the write of
// why: a step: thread tid + offset reads temp[tid] (line 89) while thread
// why: tid writes it in the same step (line 90), unordered. The writes of
// why: a step are still ordered before the next step's reads (and each
// why: slot has one writer).
extern "C" __global__ void scan_block_single_buffer(const int *in, int *out, int *sums, unsigned n) {
  __shared__ int temp[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  temp[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    int v = temp[tid];
    if (tid >= offset)
      v += temp[tid - offset];
    temp[tid] = v;
    __syncthreads();
  }
  if (i < n)
    out[i] = temp[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = temp[tid];
}
