// A lavaMD-like kernel (after Rodinia's lavaMD: particles in boxes; each
// block handles one home box: it stages the home box's particles and then,
// one by one, the home box and each neighbour box into shared memory, and
// every thread computes the interactions of its home particles with all
// particles of the staged box, accumulating the forces in global memory).
// Integer arithmetic stands in for lavaMD's floating point (exp(-u2)
// becomes u2 * u2 + 1): the memory accesses are what matters here.
//
// 2 boxes of 8 particles, one block of 4 threads per box (--grid 2
// --block 4); thread tx handles home particles tx and tx + 4, and stages
// particles tx and tx + 4 of every box. The boxes form a periodic ring of
// two, so each box has one neighbour (the other box), read from the
// neighbour list d_box_nei (a __device__ array with an initialiser). The
// loops have constant trip counts and are fully unrolled (#pragma unroll,
// which clang honours at -O1 too): the -O1 PTX of each kernel has 265
// memory instructions (ld/st, parameter loads not counted), all executed by
// every thread (no branches after unrolling). A struct copy is written as one
// line of four component copies (COPY4), so that every copy is one line.
#include "gpumc_cuda.h"

#define NUMBER_PAR_PER_BOX 8
#define NUMBER_THREADS 4
#define NUMBER_NEIGHBORS 1

typedef struct {
  unsigned v, x, y, z;
} four_vector;

#define COPY4(d, s) ((d).v = (s).v, (d).x = (s).x, (d).y = (s).y, (d).z = (s).z)

// Neighbour list: the box numbers of each box's neighbours.
__device__ int d_box_nei[2][NUMBER_NEIGHBORS] = {{1}, {0}};

// gpumc-launch: --grid 2 --block 4 --param a2=3 --param rv=buf:256 --param qv=buf:64 --param fv=buf:256
// gpumc-expect: no race
// why: shared memory: rA_shared is written once per thread slot (tx and
// why: tx + 4) before the first barrier and only read after it. For each
// why: box k, rB_shared and qB_shared are written (each slot by one thread)
// why: after the barrier that ends box k-1's computation (or after the
// why: first barrier), and read by all threads only after the barrier
// why: that follows the staging: every write/read and write/write pair of
// why: different threads is separated by a barrier. Global memory: rv, qv
// why: and d_box_nei are only read; fv: thread tx of block bx updates only
// why: fv[8*bx + tx] and fv[8*bx + tx + 4], which no other thread touches.
extern "C" __global__ void lavamd_like(unsigned a2, const four_vector *rv, const unsigned *qv, four_vector *fv) {
  __shared__ four_vector rA_shared[NUMBER_PAR_PER_BOX];
  __shared__ four_vector rB_shared[NUMBER_PAR_PER_BOX];
  __shared__ unsigned qB_shared[NUMBER_PAR_PER_BOX];
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int first_i = bx * NUMBER_PAR_PER_BOX;
  const four_vector *rA = &rv[first_i];
  four_vector *fA = &fv[first_i];

  COPY4(rA_shared[tx], rA[tx]);
  COPY4(rA_shared[tx + NUMBER_THREADS], rA[tx + NUMBER_THREADS]);
  __syncthreads();

#pragma unroll
  for (int k = 0; k < 1 + NUMBER_NEIGHBORS; k++) {
    int pointer = k == 0 ? bx : d_box_nei[bx][k - 1];
    int first_j = pointer * NUMBER_PAR_PER_BOX;
    const four_vector *rB = &rv[first_j];
    const unsigned *qB = &qv[first_j];

    COPY4(rB_shared[tx], rB[tx]);
    COPY4(rB_shared[tx + NUMBER_THREADS], rB[tx + NUMBER_THREADS]);
    qB_shared[tx] = qB[tx];
    qB_shared[tx + NUMBER_THREADS] = qB[tx + NUMBER_THREADS];
    __syncthreads();

#pragma unroll
    for (int w = 0; w < NUMBER_PAR_PER_BOX / NUMBER_THREADS; w++) {
      int i = tx + w * NUMBER_THREADS;
#pragma unroll
      for (int j = 0; j < NUMBER_PAR_PER_BOX; j++) {
        unsigned r2 = rA_shared[i].v + rB_shared[j].v - (rA_shared[i].x * rB_shared[j].x + rA_shared[i].y * rB_shared[j].y + rA_shared[i].z * rB_shared[j].z);
        unsigned u2 = a2 * r2;
        unsigned vij = u2 * u2 + 1;
        unsigned fs = 2 * vij;
        unsigned dx = rA_shared[i].x - rB_shared[j].x, dy = rA_shared[i].y - rB_shared[j].y, dz = rA_shared[i].z - rB_shared[j].z;
        unsigned qj = qB_shared[j];
        fA[i].v += qj * vij;
        fA[i].x += qj * fs * dx;
        fA[i].y += qj * fs * dy;
        fA[i].z += qj * fs * dz;
      }
    }
    __syncthreads();
  }
}

// gpumc-launch: --grid 2 --block 4 --param a2=3 --param rv=buf:256 --param qv=buf:64 --param fv=buf:256
// gpumc-options: --max-races 200
// gpumc-expect-O0: race 140 151
// gpumc-expect-O0: race 140 155
// gpumc-expect-O0: race 141 151
// gpumc-expect-O0: race 141 155
// gpumc-expect-O0: race 142 156
// gpumc-expect-O0: race 143 156
// gpumc-expect-O1: race 140 151
// gpumc-expect-O1: race 141 151
// gpumc-expect-O1: race 142 156
// gpumc-expect-O1: race 143 156
// why: lavamd_like without the barrier at the end of a box's computation:
// why: a thread that has finished the home box (k = 0) stages the
// why: neighbour box (k = 1) into rB_shared and qB_shared (lines 140, 141,
// why: 142, 143) while the other threads of its block may still read the
// why: home box from there (write-after-read races). rB_shared is read on
// why: lines 151 (all four components) and 155 (x, y, z), qB_shared on
// why: line 156. -O0: the six pairs of staging and reading lines. -O1: the
// why: loads of line 155 are the same as loads of line 151 (same
// why: addresses, no store in between) and are merged into them: the
// why: pairs with 155 disappear. The staging barrier still orders each
// why: box's staging before its computation, and rA_shared and fv are as
// why: in lavamd_like (the -O1 loads of rA_shared and fv placed right
// why: after a barrier carry that barrier's line, as they have no `.loc`
// why: of their own; they do not race).
extern "C" __global__ void lavamd_like_no_end_barrier(unsigned a2, const four_vector *rv, const unsigned *qv, four_vector *fv) {
  __shared__ four_vector rA_shared[NUMBER_PAR_PER_BOX];
  __shared__ four_vector rB_shared[NUMBER_PAR_PER_BOX];
  __shared__ unsigned qB_shared[NUMBER_PAR_PER_BOX];
  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int first_i = bx * NUMBER_PAR_PER_BOX;
  const four_vector *rA = &rv[first_i];
  four_vector *fA = &fv[first_i];

  COPY4(rA_shared[tx], rA[tx]);
  COPY4(rA_shared[tx + NUMBER_THREADS], rA[tx + NUMBER_THREADS]);
  __syncthreads();

#pragma unroll
  for (int k = 0; k < 1 + NUMBER_NEIGHBORS; k++) {
    int pointer = k == 0 ? bx : d_box_nei[bx][k - 1];
    int first_j = pointer * NUMBER_PAR_PER_BOX;
    const four_vector *rB = &rv[first_j];
    const unsigned *qB = &qv[first_j];

    COPY4(rB_shared[tx], rB[tx]);
    COPY4(rB_shared[tx + NUMBER_THREADS], rB[tx + NUMBER_THREADS]);
    qB_shared[tx] = qB[tx];
    qB_shared[tx + NUMBER_THREADS] = qB[tx + NUMBER_THREADS];
    __syncthreads();

#pragma unroll
    for (int w = 0; w < NUMBER_PAR_PER_BOX / NUMBER_THREADS; w++) {
      int i = tx + w * NUMBER_THREADS;
#pragma unroll
      for (int j = 0; j < NUMBER_PAR_PER_BOX; j++) {
        unsigned r2 = rA_shared[i].v + rB_shared[j].v - (rA_shared[i].x * rB_shared[j].x + rA_shared[i].y * rB_shared[j].y + rA_shared[i].z * rB_shared[j].z);
        unsigned u2 = a2 * r2;
        unsigned vij = u2 * u2 + 1;
        unsigned fs = 2 * vij;
        unsigned dx = rA_shared[i].x - rB_shared[j].x, dy = rA_shared[i].y - rB_shared[j].y, dz = rA_shared[i].z - rB_shared[j].z;
        unsigned qj = qB_shared[j];
        fA[i].v += qj * vij;
        fA[i].x += qj * fs * dx;
        fA[i].y += qj * fs * dy;
        fA[i].z += qj * fs * dz;
      }
    }
  }
}
