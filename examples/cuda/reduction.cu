// Parallel reduction in shared memory, after the CUDA samples' "reduction"
// (reduce2: sequential addressing, a tree of halving strides with a
// __syncthreads() after every step). Two blocks of 4 threads; each block
// sums its 4 inputs and thread 0 writes the block's sum.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:8
// gpumc-expect: no race
// why: step s (s = 2, then 1) has threads tid < s read sdata[tid + s] and
// why: sdata[tid] and write sdata[tid]; the words read at step s were
// why: last written at the previous step (or by the initial store) by
// why: other threads, and the barrier at the end of every step (and the one
// why: before the loop) orders those writes before the reads; the words a
// why: step writes are read by other threads only at later steps, after a
// why: barrier. Thread 0's final read of sdata[0] (after the last barrier)
// why: reads its own word. Shared memory is per block.
extern "C" __global__ void reduce_tree(const int *in, int *out) {
  __shared__ int sdata[4];
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

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:8
// gpumc-expect: race 47 47
// why: reduce_tree without the barrier in the loop: at step s = 1 thread 0
// why: reads sdata[1], which thread 1 wrote at step s = 2 on the same line
// why: (47), unordered: the loop line races with itself. The initial
// why: stores are still ordered by the barrier before the loop; sdata[0],
// why: read at the end, is written only by thread 0.
extern "C" __global__ void reduce_tree_no_loop_barrier(const int *in, int *out) {
  __shared__ int sdata[4];
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

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:8
// gpumc-expect: race 70 73
// why: the barrier moved between the read and the write of a step (and
// why: none after the write): the reads of a step are ordered before its
// why: writes, but the writes of step s = 2 (line 73: thread 1 writes
// why: sdata[1]) are not ordered before the reads of step s = 1 (line 70:
// why: thread 0 reads sdata[1]): a write-read race between the two lines.
// why: Each word is written by one thread only: no write-write race.
extern "C" __global__ void reduce_tree_barrier_moved(const int *in, int *out) {
  __shared__ int sdata[4];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    int sum = 0;
    if (tid < s)
      sum = sdata[tid] + sdata[tid + s];
    __syncthreads();
    if (tid < s)
      sdata[tid] = sum;
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param total=zeros:4
// gpumc-expect: no race
// why: the CUDA samples' first kernel (reduce0: interleaved addressing,
// why: tid % (2*s) == 0 adds sdata[tid + s]), with the block sums added
// why: into one global total by atomicAdd (atomics do not race with each
// why: other). Barriers after every step as in reduce_tree.
extern "C" __global__ void reduce_interleaved_atomic(const int *in, int *total) {
  __shared__ int sdata[4];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(total, sdata[0]);
}
