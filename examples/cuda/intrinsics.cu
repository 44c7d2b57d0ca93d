// Warp primitives, floating-point and 64-bit atomics, scoped atomics and
// barriers that reduce a predicate: the device functions of gpumc_cuda.h
// beyond loads, stores and 32-bit atomics. Shuffles and votes exchange
// registers, not memory, so their results are arbitrary to gpumc; what is
// checked is the memory traffic around them.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 64 --param in=buf:512 --param out=zeros:4
// gpumc-expect: no race
// why: a warp sums its values with shuffles; lane 0 of each warp adds the
// why: sum to one word with atomicAdd: atomics do not race with each other.
extern "C" __global__ void warp_shuffle_sum(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffff, v, off);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
}

// gpumc-launch: --grid 1 --block 64 --param in=buf:256 --param out=zeros:4
// gpumc-expect: race 29 29
// why: as warp_shuffle_sum, but lane 0 of each of the two warps stores its
// why: sum with a plain store: the two stores to out[0] race.
extern "C" __global__ void warp_shuffle_store(const int *in, int *out) {
  float v = (float)in[threadIdx.x];
  v += __shfl_xor_sync(0xffffffff, v, 16);
  v += __shfl_xor_sync(0xffffffff, v, 8);
  if ((threadIdx.x & 31) == 0)
    out[0] = (int)v;
}

// gpumc-launch: --grid 1 --block 8 --param in=buf:32 --param out=buf:32
// gpumc-expect: no race
// why: the eight threads are one warp; __syncwarp() (bar.warp.sync) orders
// why: each thread's write of s[tid] before the read of it by thread tid^1.
extern "C" __global__ void syncwarp_exchange(const int *in, int *out) {
  __shared__ int s[8];
  unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncwarp();
  out[tid] = s[tid ^ 1] + __ballot_sync(__activemask(), s[tid] > 0);
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=zeros:4
// gpumc-expect: no race
// why: every thread adds a float to one word with atomicAdd (atom.add.f32).
extern "C" __global__ void float_atomic_sum(const float *in, float *out) {
  atomicAdd(out, in[blockIdx.x * blockDim.x + threadIdx.x]);
}

// gpumc-launch: --grid 1 --block 4 --param c=zeros:8 --param out=buf:32
// gpumc-expect: race 59 61
// why: the 64-bit atomicAdd of threads 1-3 (atom.add.u64, 8 bytes) and
// why: thread 0's plain 64-bit read of the counter (line 61) race; were
// why: the atomic 4 bytes wide, the two would overlap in part instead.
extern "C" __global__ void counter64_read(unsigned long long *c, unsigned long long *out) {
  unsigned tid = threadIdx.x;
  if (tid != 0)
    atomicAdd(c, 1ull << 32);
  else
    out[0] = *c;
}

// gpumc-launch: --grid 2 --block 2 --param n=zeros:4
// gpumc-expect: race 70 70
// why: atomicAdd_block is an atomic of CTA scope: two of them in different
// why: blocks are not in each other's scope, so they race (PTX ISA, memory
// why: consistency model: morally strong needs each in the other's scope).
extern "C" __global__ void block_scoped_counter(int *n) {
  atomicAdd_block(n, 1);
}

// gpumc-launch: --grid 1 --block 4 --param n=zeros:4
// gpumc-expect: no race
// why: block_scoped_counter with one block: every thread is in scope.
extern "C" __global__ void block_scoped_counter_one_block(int *n) {
  atomicAdd_block(n, 1);
}

// gpumc-launch: --grid 1 --block 4 --param in=buf:16 --param out=buf:16
// gpumc-expect: no race
// why: __syncthreads_count (bar.red.popc) is a barrier of the block: each
// why: write of s[tid] is ordered before the read of it by thread tid^1.
extern "C" __global__ void barrier_count(const int *in, int *out) {
  __shared__ int s[4];
  unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  int c = __syncthreads_count(s[tid] > 0);
  out[tid] = s[tid ^ 1] + c;
}

// gpumc-launch: --grid 2 --block 2 --param in=buf:64 --param out=buf:64
// gpumc-expect: no race
// why: each thread copies its own float4 (16 bytes) with vector accesses.
extern "C" __global__ void copy_float4(const float4 *in, float4 *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = in[i];
  out[i] = make_float4(v.x * 2, v.y, v.z, v.w);
}

// gpumc-launch: --grid 1 --block 4 --param in=buf:64 --param out=buf:64
// gpumc-expect: race 107 107
// why: thread i stores 16 bytes at out + 8 i: the upper half of thread
// why: i's store is the lower half of thread i + 1's.
extern "C" __global__ void copy_float4_overlapping(const float4 *in, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  *(float4 *)(out + 2 * i) = in[i];
}
