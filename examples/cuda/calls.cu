// Calls: through a table of __device__ function pointers indexed by the
// thread id, through a pointer a kernel argument chooses, and to a function
// with no body in the file (the GPUVerify suite's `nondet()` idiom: a free
// value). `__noinline__` keeps the calls as calls at -O1 (`call` through a
// register with a `.callprototype`, and `call nondet`).
#include "gpumc_cuda.h"

typedef void (*writer_t)(int *, unsigned);

__device__ __noinline__ void write_own(int *p, unsigned i) {
  p[i] = 1;
}

__device__ __noinline__ void write_own_too(int *p, unsigned i) {
  p[i] = 2;
}

__device__ __noinline__ void write_first(int *p, unsigned i) {
  p[0] = 3;
}

__device__ writer_t disjoint_table[2] = {write_own, write_own_too};
__device__ writer_t racy_table[2] = {write_own, write_first};

// No body here: each call returns an arbitrary value (gpumc reports the
// assumption that it touches no memory the threads share).
extern "C" __device__ int nondet();

// gpumc-launch: --grid 2 --block 4 --param p=buf:32
// gpumc-expect: no race
// why: even threads call write_own (line 11), odd ones write_own_too (line
// why: 15); both write p[gid] of the caller's own global id gid = 0..7 only.
// why: The table is never written, so each thread's target is known while
// why: translating and inlined.
extern "C" __global__ void table_disjoint(int *p) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  disjoint_table[threadIdx.x % 2](p, gid);
}

// gpumc-launch: --grid 2 --block 4 --param p=buf:32
// gpumc-expect: race 19 19
// gpumc-expect: race 11 19
// why: odd threads (gid 1, 3, 5, 7) call write_first, which writes p[0] (line
// why: 19): it races with itself. Thread gid 0 calls write_own and writes its
// why: own p[0] (line 11), which races with the odd threads' p[0] too.
extern "C" __global__ void table_racy(int *p) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  racy_table[threadIdx.x % 2](p, gid);
}

// gpumc-launch: --grid 2 --block 2 --param p=buf:16
// gpumc-expect: race 19 19
// why: `which` is free (the same arbitrary value in every thread): the target
// why: is known only at run time and every thread calls the same function.
// why: With which != 0 each writes its own p[gid] (line 11), no race; with
// why: which == 0 every thread calls write_first, whose p[0] (line 19) races
// why: with itself.
extern "C" __global__ void pointer_arg_free(int *p, int which) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  writer_t f = which ? write_own : write_first;
  f(p, gid);
}

// gpumc-launch: --grid 2 --block 2 --param p=buf:16 --param which=1
// gpumc-expect: no race
// why: the same kernel with which = 1: every thread calls write_own and writes
// why: its own p[gid] (line 11).
extern "C" __global__ void pointer_arg_given(int *p, int which) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  writer_t f = which ? write_own : write_first;
  f(p, gid);
}

// gpumc-launch: --grid 2 --block 4 --param p=buf:32
// gpumc-expect: no race
// why: nondet() decides, in each thread separately, whether the thread writes
// why: its own p[gid] (line 82): whatever it returns, no two threads write the
// why: same word.
extern "C" __global__ void nondet_own_slot(int *p) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (nondet())
    p[gid] = 1;
}

// gpumc-launch: --grid 2 --block 4 --param p=buf:4
// gpumc-expect: race 93 93
// why: nondet() may return a non-zero value in two threads: both write p[0]
// why: (line 93), unordered. The verdict does not depend on which values it
// why: returns, only on some execution where two threads take the branch.
extern "C" __global__ void nondet_shared_slot(int *p) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (nondet() != 0)
    p[0] = gid;
}
