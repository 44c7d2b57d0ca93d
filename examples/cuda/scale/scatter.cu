// Stream compaction: the positive elements of in[0..n) are scattered to
// the front of out, in any order, and *count ends as their number. Two
// ways of choosing the positions, as CUDA code does it: every kept
// element claims its slot with an atomicAdd on a global counter, or each
// block computes the slots of its elements by an exclusive scan of their
// flags in shared memory and one thread claims the block's range of out
// with one atomicAdd. The input is free data (any element may be kept or
// not). Size-generic: loops over blockDim.x and gridDim.x, bounds checked
// against n. *count starts at zero (zeros:4), so every slot is below n.
// The small launches of the atomic claims have 4 elements, one a thread:
// with 8 possible claims the checker, which explores every thread and
// every order of the atomics, takes seconds (8 threads: over a minute).
#include "../gpumc_cuda.h"

#define MAX_BLOCK 256

// gpumc-launch: --grid 2 --block 2 --param in=buf:16 --param out=buf:16 --param count=zeros:4 --param n=4
// gpumc-scale: --grid 1024 --block 256 --param in=buf:2048*GX --param out=buf:2048*GX --param count=zeros:4 --param n=512*GX
// gpumc-expect: no race
// why: the counter is only touched by atomicAdd (morally strong); each
// why: atomicAdd returns a different old value, so the kept elements are
// why: stored to distinct slots of out; in is only read.
extern "C" __global__ void compact_atomic(const int *in, int *out, unsigned *count, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int x = in[i];
    if (x > 0) {
      unsigned pos = atomicAdd(count, 1);
      out[pos] = x;
    }
  }
}

// gpumc-launch: --grid 2 --block 2 --param in=buf:16 --param out=buf:16 --param count=zeros:4 --param n=4
// gpumc-scale: --grid 1024 --block 256 --param in=buf:2048*GX --param out=buf:2048*GX --param count=zeros:4 --param n=512*GX
// gpumc-expect: race 45 45
// gpumc-expect: race 46 46
// why: the slot claimed with a plain (*count)++ (line 45): two threads
// why: read and write the counter unordered, and both may read the same
// why: value and then store their elements to the same slot of out (line
// why: 46).
extern "C" __global__ void compact_plain_claim(const int *in, int *out, unsigned *count, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int x = in[i];
    if (x > 0) {
      unsigned pos = (*count)++;
      out[pos] = x;
    }
  }
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:32 --param count=zeros:4 --param n=8
// gpumc-scale: --grid 1024 --block 256 --param in=buf:1024*GX --param out=buf:1024*GX --param count=zeros:4 --param n=256*GX
// gpumc-expect: no race
// why: a Hillis-Steele inclusive scan of the flags over a double buffer:
// why: a step reads only buffer `pin` and writes only the other one, and
// why: the barrier ending each step orders its writes before the next
// why: step's reads. The last thread claims the block's range with
// why: atomicAdd and publishes its start in `base` before a barrier;
// why: every thread reads it after the barrier and stores its kept element
// why: to base + (exclusive prefix), distinct within the block, and the
// why: ranges of two blocks are disjoint (two different atomicAdd
// why: results).
extern "C" __global__ void compact_scan(const int *in, int *out, unsigned *count, unsigned n) {
  __shared__ unsigned scan[2][MAX_BLOCK];
  __shared__ unsigned base;
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  int x = i < n ? in[i] : 0;
  unsigned flag = x > 0;
  int pin = 0;
  scan[pin][tid] = flag;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    unsigned v = scan[pin][tid];
    if (tid >= offset)
      v += scan[pin][tid - offset];
    scan[1 - pin][tid] = v;
    pin = 1 - pin;
    __syncthreads();
  }
  unsigned inclusive = scan[pin][tid];
  if (tid == blockDim.x - 1)
    base = atomicAdd(count, inclusive);
  __syncthreads();
  if (flag)
    out[base + inclusive - flag] = x;
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:32 --param count=zeros:4 --param n=8
// gpumc-scale: --grid 1024 --block 256 --param in=buf:1024*GX --param out=buf:1024*GX --param count=zeros:4 --param n=256*GX
// gpumc-expect: race 119 120
// gpumc-expect: race 120 120
// gpumc-expect: race 124 124
// why: compact_scan with the block's range claimed by a plain read and
// why: write of the counter (lines 119, 120): the last threads of two
// why: blocks race on it (read-write and write-write), may read the same
// why: start, and then store elements of both blocks to the same slots
// why: (line 124).
extern "C" __global__ void compact_scan_plain_claim(const int *in, int *out, unsigned *count, unsigned n) {
  __shared__ unsigned scan[2][MAX_BLOCK];
  __shared__ unsigned base;
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  int x = i < n ? in[i] : 0;
  unsigned flag = x > 0;
  int pin = 0;
  scan[pin][tid] = flag;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    unsigned v = scan[pin][tid];
    if (tid >= offset)
      v += scan[pin][tid - offset];
    scan[1 - pin][tid] = v;
    pin = 1 - pin;
    __syncthreads();
  }
  unsigned inclusive = scan[pin][tid];
  if (tid == blockDim.x - 1) {
    base = *count;
    *count = base + inclusive;
  }
  __syncthreads();
  if (flag)
    out[base + inclusive - flag] = x;
}
