// Tiled matrix product C = A * B of n x n matrices, in the style of the
// CUDA samples' matrixMul: each block computes one square tile of C,
// walking the tiles of A's rows and B's columns; each step loads one
// tile of each into shared memory, waits, accumulates the tile's
// products, and waits again before the next step overwrites the tiles.
// The samples' BLOCK_SIZE is blockDim.x here (blockDim.y equal), so the
// same PTX runs at the real shape (--block 16,16: n / 16 steps) and at a
// small one (--block 4,4). n is a multiple of the tile.
#include "../gpumc_cuda.h"

#define MAX_TILE 32

// gpumc-launch: --grid 2,2 --block 4,4 --param c=buf:256 --param a=buf:256 --param b=buf:256 --param n=8
// gpumc-scale: --grid 64,64 --block 16,16 --param c=buf:4*256*GX*GY --param a=buf:4*256*GX*GY --param b=buf:4*256*GX*GY --param n=16*GX
// gpumc-expect: no race
// why: each step writes as[ty][tx] and bs[ty][tx] (one cell per thread)
// why: and, after the first barrier, reads row ty of as and column tx of
// why: bs; the second barrier orders those reads before the next step's
// why: writes. Every c element is written by one thread; a and b are
// why: only read.
extern "C" __global__ void matmul_tiled(float *c, const float *a, const float *b, int n) {
  __shared__ float as[MAX_TILE][MAX_TILE];
  __shared__ float bs[MAX_TILE][MAX_TILE];
  int tile = blockDim.x, tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * tile + ty, col = blockIdx.x * tile + tx;
  float sum = 0;
  for (int k = 0; k < n; k += tile) {
    as[ty][tx] = a[row * n + k + tx];
    bs[ty][tx] = b[(k + ty) * n + col];
    __syncthreads();
    for (int i = 0; i < tile; i++)
      sum += as[ty][i] * bs[i][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// gpumc-launch: --grid 2,2 --block 4,4 --param c=buf:256 --param a=buf:256 --param b=buf:256 --param n=8
// gpumc-scale: --grid 64,64 --block 16,16 --param c=buf:4*256*GX*GY --param a=buf:4*256*GX*GY --param b=buf:4*256*GX*GY --param n=16*GX
// gpumc-expect: race 52 56
// gpumc-expect: race 53 56
// why: without the second barrier a thread may store the next step's
// why: tile while a slower thread of its block still reads this step's:
// why: as[ty][tx] (line 52) against as[ty][i] (line 56), bs likewise.
extern "C" __global__ void matmul_tiled_one_barrier(float *c, const float *a, const float *b, int n) {
  __shared__ float as[MAX_TILE][MAX_TILE];
  __shared__ float bs[MAX_TILE][MAX_TILE];
  int tile = blockDim.x, tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * tile + ty, col = blockIdx.x * tile + tx;
  float sum = 0;
  for (int k = 0; k < n; k += tile) {
    as[ty][tx] = a[row * n + k + tx];
    bs[ty][tx] = b[(k + ty) * n + col];
    __syncthreads();
    for (int i = 0; i < tile; i++)
      sum += as[ty][i] * bs[i][tx];
  }
  c[row * n + col] = sum;
}
