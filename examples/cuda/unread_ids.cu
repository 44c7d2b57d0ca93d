// Threads that differ only in ids the kernel never reads. Every thread of
// the launch is a thread, whether or not its code looks at %tid.y or
// %ctaid.x: two threads that compute the same address from the ids they
// do read still race there.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 2 --param n=zeros:4
// gpumc-expect: race 11 11
// why: every thread stores to n[0]; the kernel reads no id at all.
extern "C" __global__ void same_word_no_ids(int *n) {
  *n = 1;
}

// gpumc-launch: --grid 1 --block 2,2 --param out=buf:8
// gpumc-expect: race 19 19
// why: threads (x, 0) and (x, 1) of the 2 x 2 block store to out[x]: the
// why: kernel reads threadIdx.x only.
extern "C" __global__ void by_x_in_2d_block(int *out) {
  out[threadIdx.x] = 1;
}

// gpumc-launch: --grid 2 --block 2 --param out=buf:8
// gpumc-expect: race 26 26
// why: thread x of block 0 and thread x of block 1 store to out[x].
extern "C" __global__ void by_x_in_two_blocks(int *out) {
  out[threadIdx.x] = 1;
}

// gpumc-launch: --grid 1 --block 4 --param out=buf:16
// gpumc-expect: no race
// why: one block of four threads in one dimension: out[x] is each
// why: thread's own word.
extern "C" __global__ void by_x_in_one_row(int *out) {
  out[threadIdx.x] = 1;
}
