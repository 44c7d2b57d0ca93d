// Histogram of byte keys into nbins bins (256 at the real launches, as
// the CUDA samples' histogram256; at most MAX_BINS), in their style: every
// thread walks a grid-stride loop over the n keys of the input (free data:
// any byte, so any two threads may hit the same bin) and counts each key
// (its bin: key % nbins), either with atomicAdd on the global bins or in
// per-block bins in shared memory that are zeroed, counted with
// shared-memory atomics and merged into the global bins after barriers.
// Size-generic: loops over blockDim.x, gridDim.x and nbins, bounds checked
// against n. The small launches take 4 bins: with 256 the checker, which
// explores every thread, would follow each key into any of 256 bins.
#include "../gpumc_cuda.h"

#define MAX_BINS 256

// gpumc-launch: --grid 2 --block 4 --param keys=buf:16 --param hist=buf:16 --param n=16 --param nbins=4
// gpumc-scale: --grid 1024 --block 256 --param keys=buf:512*GX --param hist=buf:1024 --param n=512*GX --param nbins=256
// gpumc-expect: no race
// why: the bins are only touched by atomicAdd (atom.add, relaxed, .gpu
// why: scope), morally strong to each other; the keys are only read.
extern "C" __global__ void histogram_global_atomic(const unsigned char *keys, unsigned *hist, unsigned n, unsigned nbins) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&hist[keys[i] % nbins], 1);
}

// gpumc-launch: --grid 2 --block 4 --param keys=buf:16 --param hist=buf:16 --param n=16 --param nbins=4
// gpumc-scale: --grid 1024 --block 256 --param keys=buf:512*GX --param hist=buf:1024 --param n=512*GX --param nbins=256
// gpumc-expect: race 33 33
// why: hist[bin]++ is a plain load and a plain store (line 33): two
// why: threads whose keys fall in the same bin read and write it
// why: unordered (in one block or in two), the lost-update bug.
extern "C" __global__ void histogram_global_plain(const unsigned char *keys, unsigned *hist, unsigned n, unsigned nbins) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    hist[keys[i] % nbins]++;
}

// gpumc-launch: --grid 2 --block 4 --param keys=buf:16 --param hist=buf:16 --param n=16 --param nbins=4
// gpumc-scale: --grid 1024 --block 256 --param keys=buf:512*GX --param hist=buf:1024 --param n=512*GX --param nbins=256
// gpumc-expect: no race
// why: each block zeroes its bins (thread t the bins t, t + blockDim.x,
// why: ...), a barrier orders the zeroing before the shared atomics
// why: (morally strong to each other: same block), a second barrier
// why: orders them before the merge, where thread t reads its own bins
// why: and adds them to the global bins with atomicAdd.
extern "C" __global__ void histogram_shared_bins(const unsigned char *keys, unsigned *hist, unsigned n, unsigned nbins) {
  __shared__ unsigned bins[MAX_BINS];
  for (unsigned b = threadIdx.x; b < nbins; b += blockDim.x)
    bins[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[keys[i] % nbins], 1);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nbins; b += blockDim.x)
    atomicAdd(&hist[b], bins[b]);
}

// gpumc-launch: --grid 2 --block 4 --param keys=buf:16 --param hist=buf:16 --param n=16 --param nbins=4
// gpumc-scale: --grid 1024 --block 256 --param keys=buf:512*GX --param hist=buf:1024 --param n=512*GX --param nbins=256
// gpumc-expect: race 69 69
// why: histogram_shared_bins counting with a plain bins[bin]++ (line
// why: 69): two threads of a block whose keys fall in the same bin race
// why: on it. The zeroing and the merge are still ordered by the
// why: barriers.
extern "C" __global__ void histogram_shared_plain(const unsigned char *keys, unsigned *hist, unsigned n, unsigned nbins) {
  __shared__ unsigned bins[MAX_BINS];
  for (unsigned b = threadIdx.x; b < nbins; b += blockDim.x)
    bins[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    bins[keys[i] % nbins]++;
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nbins; b += blockDim.x)
    atomicAdd(&hist[b], bins[b]);
}
