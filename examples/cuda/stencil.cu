// 1-D stencil with radius 1 (out[i] = in[i-1] + in[i] + in[i+1]), after
// "CUDA by Example" / NVIDIA's CUDA C introduction: each block stages its
// BLOCK inputs plus RADIUS halo cells on each side in shared memory, then
// every thread sums 2*RADIUS+1 neighbours from shared memory. The input has
// RADIUS extra cells at each end: in = 2*4 + 2 = 10 ints, out = 8 ints.
#include "gpumc_cuda.h"

#define RADIUS 1
#define BLOCK 4

// gpumc-launch: --grid 2 --block 4 --param in=buf:40 --param out=buf:32
// gpumc-expect: no race
// why: every cell of temp is written once before the barrier (thread t
// why: writes temp[t+1]; thread 0 the left halo temp[0]; thread 3 the right
// why: halo temp[5]) and only read after it.
extern "C" __global__ void stencil_1d(const int *in, int *out) {
  __shared__ int temp[BLOCK + 2 * RADIUS];
  int gindex = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = in[gindex];
  if (threadIdx.x < RADIUS)
    temp[lindex - RADIUS] = in[gindex - RADIUS];
  if (threadIdx.x >= blockDim.x - RADIUS)
    temp[lindex + RADIUS] = in[gindex + RADIUS];
  __syncthreads();
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++)
    result += temp[lindex + offset];
  out[gindex - RADIUS] = result;
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:40 --param out=buf:32
// gpumc-expect: race 44 51
// why: stencil_1d without the barrier: thread t reads temp[t] and
// why: temp[t+2] (line 51), written by threads t-1 and t+1 on line 44,
// why: unordered. The halo cells are read only by the thread that wrote
// why: them (temp[0] by thread 0, temp[5] by thread 3): no race with the
// why: halo lines. At both levels the loop (not unrolled at -O1) loads the
// why: three cells with one instruction of line 51: the same pairs.
extern "C" __global__ void stencil_1d_no_barrier(const int *in, int *out) {
  __shared__ int temp[BLOCK + 2 * RADIUS];
  int gindex = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = in[gindex];
  if (threadIdx.x < RADIUS)
    temp[lindex - RADIUS] = in[gindex - RADIUS];
  if (threadIdx.x >= blockDim.x - RADIUS)
    temp[lindex + RADIUS] = in[gindex + RADIUS];
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++)
    result += temp[lindex + offset];
  out[gindex - RADIUS] = result;
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:40 --param out=buf:32
// gpumc-expect: race 71 71
// why: the right halo cell temp[BLOCK + RADIUS] (= temp[5]) is loaded by
// why: the last 2*RADIUS threads instead of the last RADIUS (a wrong
// why: condition): threads 2 and 3 both store it (line 71), a write-write
// why: race, although they store the same value in[blockIdx.x * 4 + 5]: a
// why: race does not depend on the values. The barrier orders all writes
// why: before the reads.
extern "C" __global__ void stencil_1d_halo_two_writers(const int *in, int *out) {
  __shared__ int temp[BLOCK + 2 * RADIUS];
  int gindex = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = in[gindex];
  if (threadIdx.x < RADIUS)
    temp[lindex - RADIUS] = in[gindex - RADIUS];
  if (threadIdx.x + 2 * RADIUS >= blockDim.x)
    temp[BLOCK + RADIUS] = in[blockIdx.x * blockDim.x + BLOCK + RADIUS];
  __syncthreads();
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++)
    result += temp[lindex + offset];
  out[gindex - RADIUS] = result;
}
