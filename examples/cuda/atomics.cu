// Atomics: atom/red instructions are strong (relaxed, gpu scope when no
// scope is written) and morally strong to each other, so concurrent atomics
// on one word never race; an atomic and a plain (weak) access to the same
// word do race, whichever is the write. A volatile access is strong too
// (relaxed, system scope) and does not race with atomics.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 4 --param counter=zeros:4
// gpumc-expect: no race
// why: all 8 threads of both blocks atomicAdd one counter: every pair is
// why: morally strong (both atom, gpu scope covers both blocks).
extern "C" __global__ void atomic_counter(int *counter) {
  atomicAdd(counter, 1);
}

// gpumc-launch: --grid 2 --block 2 --param p=zeros:4 --param u=zeros:4
// gpumc-expect: no race
// why: every atomic of gpumc_cuda.h on one int word and one unsigned word,
// why: from 4 threads in 2 blocks: all accesses are atom (add, add of the
// why: negated value for atomicSub, exch, cas, min, max, and, or, xor, inc):
// why: morally strong, no race.
extern "C" __global__ void atomic_all_ops(int *p, unsigned *u) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(p, t);
  atomicSub(p, 1);
  atomicExch(p, t);
  atomicCAS(p, t, t + 1);
  atomicMin(p, t);
  atomicMax(p, t);
  atomicAnd(p, 7);
  atomicOr(p, 8);
  atomicXor(p, t);
  atomicMin(u, 3u);
  atomicMax(u, 5u);
  atomicInc(u, 9u);
}

// gpumc-launch: --grid 2 --block 2 --param counter=zeros:4 --param out=buf:4
// gpumc-expect: race 46 48
// why: thread 0 reads the counter with a plain load (line 48) while the
// why: other threads' atomicAdd (line 46) may still run: a weak access and
// why: an atomic write race. Thread 0's own atomic precedes its read in
// why: program order.
extern "C" __global__ void atomic_vs_plain_read(int *counter, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(counter, 1);
  if (t == 0)
    out[0] = *counter;
}

// gpumc-launch: --grid 2 --block 2 --param counter=zeros:4 --param out=buf:4
// gpumc-expect: no race
// why: atomic_vs_plain_read with a volatile read (ld.volatile = relaxed,
// why: system scope): strong, and system scope contains every thread, so it
// why: is morally strong to the atomics: no race (its value is whatever the
// why: counter holds at that moment).
extern "C" __global__ void atomic_vs_volatile_read(int *counter, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(counter, 1);
  if (t == 0)
    out[0] = *(volatile int *)counter;
}

// gpumc-launch: --grid 2 --block 2 --param counter=buf:4
// gpumc-expect: race 71 73
// why: thread 0 resets the counter with a plain store (line 71) while the
// why: other threads atomicAdd it (line 73): a weak write and an atomic.
extern "C" __global__ void atomic_vs_plain_store(int *counter) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0)
    *counter = 0;
  else
    atomicAdd(counter, 1);
}

// gpumc-launch: --grid 2 --block 2 --param p=buf:4
// gpumc-expect: race 84 88
// why: atomic add emulated with a CAS loop (as CUDA's programming guide does
// why: for atomicAdd on double): the first read of *p is a plain load (line
// why: 84) and races with the other threads' atomicCAS (line 88). The
// why: retry reads come from the CAS itself, and CAS-CAS pairs are morally
// why: strong.
extern "C" __global__ void atomic_cas_loop(int *p) {
  int old = *p;
  int assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, assumed + 3);
  } while (assumed != old);
}

// gpumc-launch: --grid 3 --block 1 --param p=buf:4
// gpumc-options: --bound 3
// gpumc-expect: no race
// why: atomic_cas_loop with a volatile first read: strong, morally strong
// why: to the CAS: no race (a stale value only costs one more iteration).
// why: Each failed CAS changes `old`, so it is a new iteration, not a spin:
// why: with three threads a CAS fails at most twice, and --bound 3 covers
// why: every execution (at the default bound 1 the answer is UNKNOWN: the
// why: bound cut an execution).
extern "C" __global__ void atomic_cas_loop_volatile(int *p) {
  int old = *(volatile int *)p;
  int assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, assumed + 3);
  } while (assumed != old);
}

// gpumc-launch: --grid 2 --block 4 --param out=buf:8
// gpumc-expect: no race
// why: a counter in shared memory: thread 0 initialises it (plain store),
// why: a barrier, atomicAdd by every thread of the block (atom on shared
// why: memory), a barrier, and thread 0 reads the total (plain load). Both
// why: plain accesses are separated from every atomic by a barrier; the
// why: atomics are morally strong to each other. Blocks have their own
// why: counter.
extern "C" __global__ void atomic_shared_counter(int *out) {
  __shared__ int count;
  if (threadIdx.x == 0)
    count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = count;
}

// gpumc-launch: --grid 2 --block 4 --param out=buf:8
// gpumc-expect: race 139 141
// why: atomic_shared_counter without the second barrier: thread 0's plain
// why: read of the total (line 141) races with the atomicAdd of threads
// why: 1..3 of its block (line 139).
extern "C" __global__ void atomic_shared_no_final_barrier(int *out) {
  __shared__ int count;
  if (threadIdx.x == 0)
    count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  if (threadIdx.x == 0)
    out[blockIdx.x] = count;
}

// gpumc-launch: --grid 2 --block 4 --param out=buf:8
// gpumc-expect: race 152 153
// why: atomic_shared_counter without the first barrier: thread 0's plain
// why: initialising store (line 152) races with the atomicAdd of threads
// why: 1..3 (line 153).
extern "C" __global__ void atomic_shared_no_init_barrier(int *out) {
  __shared__ int count;
  if (threadIdx.x == 0)
    count = 0;
  atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = count;
}

// The atomicAdd-on-double idiom: a compare-and-swap loop on the bits.
static __device__ double atomic_add_double(double *address, double val) {
  unsigned long long *a = (unsigned long long *)address;
  unsigned long long old = *a, assumed;
  do {
    assumed = old;
    old = atomicCAS(a, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}

// gpumc-launch: --grid 2 --block 2 --param sum=zeros:8 --param x=zeros:32
// gpumc-expect: race 162 165
// why: the idiom's first read of the sum (line 162) is a plain load, which
// why: races with another thread's compare-and-swap (line 165).
extern "C" __global__ void double_sum_cas(double *sum, const double *x) {
  atomic_add_double(sum, x[blockIdx.x * blockDim.x + threadIdx.x]);
}
