// Races and race-free accesses on global memory: disjoint slots, one slot
// written by every thread, a neighbour's slot, writes inside branches, and
// guards that depend on a scalar parameter.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:32
// gpumc-expect: no race
// why: the 8 threads have distinct global ids gid = 0..7; each reads in[gid],
// why: which nobody writes, and writes its own out[gid]: no two threads touch
// why: the same word of out.
extern "C" __global__ void global_disjoint(const int *in, int *out) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  out[gid] = in[gid] + 1;
}

// gpumc-launch: --grid 2 --block 2 --param out=buf:4
// gpumc-expect: race 21 21
// why: all 4 threads (in both blocks) store to out[0] with no ordering
// why: between them: the store races with itself (write-write, one line).
extern "C" __global__ void global_same_slot(int *out) {
  out[0] = blockIdx.x * blockDim.x + threadIdx.x;
}

// gpumc-launch: --grid 2 --block 4 --param out=buf:32 --param res=buf:32
// gpumc-expect: race 34 35
// why: thread gid writes out[gid] (line 34) and then reads out[(gid+1) % 8]
// why: (line 35), which thread gid+1 (or thread 0, for gid = 7; across the
// why: two blocks for gid = 3) writes on line 34. Nothing orders the two
// why: threads; a barrier would not help across blocks anyway. Each thread
// why: writes only its own out[gid] and res[gid]: no write-write race.
extern "C" __global__ void global_neighbor_read(int *out, int *res) {
  unsigned n = blockDim.x * gridDim.x;
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  out[gid] = gid;
  res[gid] = out[(gid + 1) % n];
}

// gpumc-launch: --grid 2 --block 2 --param data=buf:4 --param res=buf:16
// gpumc-expect: race 47 48
// why: thread 0 of block 0 writes data[0] inside the branch (line 47); every
// why: thread reads data[0] (line 48). Thread 0's own read follows its write
// why: in program order, but the three other threads' reads are unordered
// why: with the write: a write-read race.
extern "C" __global__ void branch_writer_readers(int *data, int *res) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid == 0)
    data[0] = 42;
  res[gid] = data[0];
}

// gpumc-launch: --grid 2 --block 2 --param data=buf:8 --param res=buf:16
// gpumc-expect: no race
// why: only thread 0 (gid == 0) touches data[0] and data[1]; the others skip
// why: the branch, and every thread writes its own res[gid]. Accesses of one
// why: thread are ordered by program order and never race with each other.
extern "C" __global__ void branch_single_thread(int *data, int *res) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid == 0) {
    data[0] = 7;
    data[1] = data[0] * 2;
  }
  res[gid] = gid;
}

// gpumc-launch: --grid 1 --block 4 --param data=buf:4
// gpumc-expect-O0: race 78 80
// gpumc-expect-O1: race 0 0
// why: threads 0 and 1 store to data[0] in two different branches (lines
// why: 78 and 80): a write-write race between the two lines. Each store
// why: is made by one thread only, so at -O0 neither line races with itself.
// why: At -O1 clang merges the two stores into one `st.global.u32` after the
// why: branches (the value is 1 or 2 by a phi); the merged store has no single
// why: source line and carries `.loc 1 0 0`, line 0. Threads 0 and 1 both
// why: execute it: the racing pair is that instruction with itself, 0 0.
extern "C" __global__ void branch_two_writers(int *data) {
  unsigned tid = threadIdx.x;
  if (tid == 0)
    data[0] = 1;
  if (tid == 1)
    data[0] = 2;
}

// gpumc-launch: --grid 1 --block 4 --param out=buf:8 --param n=2
// gpumc-expect: no race
// why: threads tid and tid + 2 share the slot out[tid % 2], but with n = 2
// why: only threads 0 and 1 pass the guard, and they write different slots.
// why: The store of threads 2 and 3 never happens in this launch, so it
// why: cannot race. (guard_n_large is the same kernel with n = 4.)
extern "C" __global__ void guard_n_small(int *out, int n) {
  int tid = threadIdx.x;
  if (tid < n)
    out[tid % 2] = tid;
}

// gpumc-launch: --grid 1 --block 4 --param out=buf:8 --param n=4
// gpumc-expect: race 103 103
// why: the body of guard_n_small with n = 4: all four threads pass the guard,
// why: threads 0 and 2 both store to out[0], threads 1 and 3 to out[1]: a
// why: write-write race of line 103 with itself.
extern "C" __global__ void guard_n_large(int *out, int n) {
  int tid = threadIdx.x;
  if (tid < n)
    out[tid % 2] = tid;
}

// gpumc-launch: --grid 1 --block 4 --param out=buf:8
// gpumc-expect: race 114 114
// why: n is not given, so it is free (any int, the same in every thread). For
// why: n >= 3, threads 0 and 2 both store to out[0] (line 114): a write-write
// why: race. For n <= 2 there is none, but one value of n is enough.
extern "C" __global__ void guard_n_free(int *out, int n) {
  int tid = threadIdx.x;
  if (tid < n)
    out[tid % 2] = tid;
}
