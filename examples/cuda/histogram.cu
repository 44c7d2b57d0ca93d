// Histogram with per-block bins in shared memory, after the CUDA samples'
// histogram64/256: each block clears its shared bins, counts its inputs into
// them, and merges them into the global histogram with atomicAdd. 2 blocks
// of 4 threads, 8 inputs (one per thread, the loop strides over the grid),
// 4 bins; the inputs are arbitrary, so any two threads may hit one bin.
#include "gpumc_cuda.h"

#define NBINS 4

// gpumc-launch: --grid 2 --block 4 --param n=8 --param data=buf:32 --param hist=zeros:16
// gpumc-expect: no race
// why: clearing the bins (plain stores, one bin per thread) is ordered by
// why: the first barrier before the counting; the counting uses atomicAdd
// why: on the shared bins (morally strong to each other); the second
// why: barrier orders it before the merge's plain reads of the bins; the
// why: merge adds into global memory with atomicAdd (both blocks: atomics,
// why: no race). data is only read.
extern "C" __global__ void histogram_shared_atomic(const unsigned *data, unsigned *hist, int n) {
  __shared__ unsigned bins[NBINS];
  int tid = threadIdx.x;
  if (tid < NBINS)
    bins[tid] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i] % NBINS], 1u);
  __syncthreads();
  if (tid < NBINS)
    atomicAdd(&hist[tid], bins[tid]);
}

// gpumc-launch: --grid 2 --block 4 --param n=8 --param data=buf:32 --param hist=zeros:16
// gpumc-expect: race 45 45
// why: histogram_shared_atomic with `bins[...]++` (plain load and store)
// why: instead of atomicAdd: two threads of a block whose inputs fall in one
// why: bin read and write that bin concurrently: load/store and store/store
// why: races, all on line 45. The inputs are arbitrary, so such a pair
// why: exists. (Besides the race, increments get lost.)
extern "C" __global__ void histogram_shared_plain(const unsigned *data, unsigned *hist, int n) {
  __shared__ unsigned bins[NBINS];
  int tid = threadIdx.x;
  if (tid < NBINS)
    bins[tid] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    bins[data[i] % NBINS]++;
  __syncthreads();
  if (tid < NBINS)
    atomicAdd(&hist[tid], bins[tid]);
}

// gpumc-launch: --grid 2 --block 4 --param n=8 --param data=buf:32 --param hist=zeros:16
// gpumc-expect: race 64 66
// why: histogram_shared_atomic without the barrier before the merge: thread
// why: tid's plain read of bins[tid] (line 66) can run while another thread
// why: of the block still adds into that bin with atomicAdd (line 64): a
// why: weak read and an atomic write race.
extern "C" __global__ void histogram_no_merge_barrier(const unsigned *data, unsigned *hist, int n) {
  __shared__ unsigned bins[NBINS];
  int tid = threadIdx.x;
  if (tid < NBINS)
    bins[tid] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i] % NBINS], 1u);
  if (tid < NBINS)
    atomicAdd(&hist[tid], bins[tid]);
}

// gpumc-launch: --grid 2 --block 4 --param n=8 --param data=buf:32 --param hist=zeros:16
// gpumc-expect: race 76 76
// why: no shared bins: every thread increments the global histogram with a
// why: plain `hist[...]++`. Threads of both blocks may hit one bin: the
// why: line races with itself (a barrier could not help across blocks).
extern "C" __global__ void histogram_global_plain(const unsigned *data, unsigned *hist, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    hist[data[i] % NBINS]++;
}
