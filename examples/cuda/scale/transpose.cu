// Tiled matrix transpose, in the style of the CUDA samples'
// transposeCoalesced: a block reads a square tile of a width x height
// matrix with coalesced loads into shared memory (tile[32][33]: a padding
// column against bank conflicts) and, after a barrier, writes it
// transposed, reading the tile column-wise. The samples' TILE_DIM 32 and
// BLOCK_ROWS 8 (a 32 x 8 block, each thread copying TILE_DIM / BLOCK_ROWS
// rows) are here blockDim.x and blockDim.y, so the same PTX runs at the
// real shape (--block 32,8) and at a small one (--block 4,2: 4 x 4 tiles).
// width and height are multiples of blockDim.x; accesses are still
// bounds-checked as in the samples' generic kernels.
#include "../gpumc_cuda.h"

#define TILE_DIM 32

// gpumc-launch: --grid 2,2 --block 4,2 --param odata=buf:256 --param idata=buf:256 --param width=8 --param height=8
// gpumc-scale: --grid 32,32 --block 32,8 --param odata=buf:4*32*GX*32*GY --param idata=buf:4*32*GX*32*GY --param width=32*GX --param height=32*GY
// gpumc-expect: no race
// why: thread (x, y) writes tile[y + j][x] for j = 0, BLOCK_ROWS, ...
// why: and after the barrier reads tile[x][y + j], written before the
// why: barrier by thread (y + j - j', x) for the j' with that row:
// why: ordered. Every odata element is written by one thread; idata is
// why: only read.
extern "C" __global__ void transpose_coalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int tile_dim = blockDim.x, block_rows = blockDim.y;
  int x = blockIdx.x * tile_dim + threadIdx.x;
  int y = blockIdx.y * tile_dim + threadIdx.y;
  for (int j = 0; j < tile_dim; j += block_rows)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * tile_dim + threadIdx.x;
  y = blockIdx.x * tile_dim + threadIdx.y;
  for (int j = 0; j < tile_dim; j += block_rows)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// gpumc-launch: --grid 2,2 --block 4,2 --param odata=buf:256 --param idata=buf:256 --param width=8 --param height=8
// gpumc-scale: --grid 32,32 --block 32,8 --param odata=buf:4*32*GX*32*GY --param idata=buf:4*32*GX*32*GY --param width=32*GX --param height=32*GY
// gpumc-expect: race 53 58
// why: transpose_coalesced without the barrier: a thread reads the tile
// why: column-wise (line 58) while the threads of its block that own
// why: those rows write them (line 53), unordered. (Each tile cell is
// why: written once.)
extern "C" __global__ void transpose_coalesced_no_barrier(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int tile_dim = blockDim.x, block_rows = blockDim.y;
  int x = blockIdx.x * tile_dim + threadIdx.x;
  int y = blockIdx.y * tile_dim + threadIdx.y;
  for (int j = 0; j < tile_dim; j += block_rows)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  x = blockIdx.y * tile_dim + threadIdx.x;
  y = blockIdx.x * tile_dim + threadIdx.y;
  for (int j = 0; j < tile_dim; j += block_rows)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// gpumc-launch: --grid 2,2 --block 4,2 --param odata=buf:256 --param idata=buf:256 --param width=8 --param height=8
// gpumc-scale: --grid 32,32 --block 32,8 --param odata=buf:4*32*GX*32*GY --param idata=buf:4*32*GX*32*GY --param width=32*GX --param height=32*GY
// gpumc-expect: no race
// why: the samples' transposeNaive: no shared memory; every odata element
// why: is written by one thread, idata is only read.
extern "C" __global__ void transpose_naive(float *odata, const float *idata, int width, int height) {
  int tile_dim = blockDim.x, block_rows = blockDim.y;
  int x = blockIdx.x * tile_dim + threadIdx.x;
  int y = blockIdx.y * tile_dim + threadIdx.y;
  for (int j = 0; j < tile_dim; j += block_rows)
    if (x < width && y + j < height)
      odata[x * height + (y + j)] = idata[(y + j) * width + x];
}
