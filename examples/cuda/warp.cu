// Intra-warp races. Threads of one warp are NOT assumed to run in lockstep
// (since Volta they are scheduled independently, and the memory model knows
// no warps): two threads of one warp that access the same word, one of them
// writing, race unless a barrier (or a synchronising pattern) orders them, or
// both accesses are morally strong. Every launch here is a single block of at
// most 8 threads, so all threads are in one warp.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 1 --block 4 --param in=buf:16 --param out=buf:16
// gpumc-expect: race 18 19
// why: threads tid and tid^1 (one warp) exchange values through shared
// why: memory with no barrier: the write of s[tid] (line 18) and the read of
// why: it by thread tid^1 (line 19) are unordered. Being in one warp does not
// why: help: no lockstep execution is assumed.
extern "C" __global__ void warp_xor_exchange(const int *in, int *out) {
  __shared__ int s[4];
  unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  out[tid] = s[tid ^ 1];
}

// gpumc-launch: --grid 1 --block 4 --param in=buf:16 --param out=buf:16
// gpumc-expect: no race
// why: warp_xor_exchange with __syncthreads() between the write and the read.
extern "C" __global__ void warp_xor_exchange_barrier(const int *in, int *out) {
  __shared__ int s[4];
  unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  out[tid] = s[tid ^ 1];
}

// gpumc-launch: --grid 1 --block 4 --param in=buf:16 --param out=buf:16
// gpumc-expect: race 42 44
// why: the two halves of the warp take different branches: threads 0 and 1
// why: write s[0] and s[1] (line 42) while threads 2 and 3 read them (line
// why: 44). Divergent paths of one warp are not ordered with each other.
extern "C" __global__ void warp_divergent_exchange(const int *in, int *out) {
  __shared__ int s[2];
  unsigned tid = threadIdx.x;
  if (tid < 2)
    s[tid] = in[tid];
  else
    out[tid] = s[tid - 2];
}

// gpumc-launch: --grid 1 --block 8 --param in=buf:32 --param out=buf:4
// gpumc-expect: race 71 72
// gpumc-expect: race 72 72
// gpumc-expect: race 72 73
// gpumc-expect: race 71 73
// gpumc-expect: race 73 73
// why: the "warp-synchronous" tail of a reduction (old CUDA samples) without
// why: volatile: threads 0..3 of one warp run s[tid] += s[tid+4] (line 71),
// why: s[tid] += s[tid+2] (line 72) and s[tid] += s[tid+1] (line 73) with
// why: no barrier. Thread tid writes only s[tid]. On line 72 thread t reads
// why: s[t+2], which thread t+2 (t = 0, 1) writes on lines 71, 72 and 73;
// why: on line 73 thread t reads s[t+1], which thread t+1 (t = 0..2) writes
// why: on lines 71, 72 and 73. Line 71 reads only s[4..7], written only
// why: by the initial store, before the barrier. Hence the five pairs.
// why: -O1 forwards each store of s[tid] to the next line's load of s[tid]
// why: (those loads disappear) but keeps all three stores and the loads of
// why: s[tid+4], s[tid+2], s[tid+1]: the same pairs. (The loads of s[tid]
// why: never race anyway: no other thread writes s[tid].)
extern "C" __global__ void warp_reduce_plain(const int *in, int *out) {
  __shared__ int s[8];
  unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  if (tid < 4) {
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
  }
  if (tid == 0)
    out[0] = s[0];
}

// gpumc-launch: --grid 1 --block 8 --param in=buf:32 --param out=buf:4
// gpumc-expect: no race
// why: warp_reduce_plain through a volatile pointer, as the old CUDA samples
// why: did: every access of the three lines is ld.volatile/st.volatile, i.e.
// why: relaxed at system scope, strong; all pairs are morally strong (both
// why: strong, each in the other's scope, same address and size), so they do
// why: not race in the PTX model, although without __syncwarp() the sums
// why: are not guaranteed (the reads may see old values). The plain initial
// why: write is ordered by the barrier; the last read, thread 0's read of
// why: s[0], touches a word only thread 0 writes.
extern "C" __global__ void warp_reduce_volatile(const int *in, int *out) {
  __shared__ int s[8];
  unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  volatile int *vs = s;
  if (tid < 4) {
    vs[tid] += vs[tid + 4];
    vs[tid] += vs[tid + 2];
    vs[tid] += vs[tid + 1];
  }
  if (tid == 0)
    out[0] = vs[0];
}
