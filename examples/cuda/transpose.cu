// Matrix transpose through a shared-memory tile, after the CUDA samples'
// transposeCoalesced: a block reads a TILE x TILE tile of the input with
// coalesced loads into shared memory, and after a barrier writes it
// transposed, reading the tile column-wise. 2-D grid and 2-D blocks: a
// 4 x 4 matrix in 2 x 2 tiles, --grid 2,2 --block 2,2 (16 threads; the
// same code works for bigger tiles, e.g. TILE 4 with --grid 2,2 --block 4,4,
// but each thread is explored, so the launch is kept small).
#include "gpumc_cuda.h"

#define TILE 2

// gpumc-launch: --grid 2,2 --block 2,2 --param odata=buf:64 --param idata=buf:64
// gpumc-expect: no race
// why: thread (x, y) writes tile[y][x] and, after the barrier, reads
// why: tile[x][y], written by thread (y, x) before the barrier: ordered.
// why: Every thread writes a distinct element of odata; idata is only read.
extern "C" __global__ void transpose_tiled(int *odata, const int *idata) {
  __shared__ int tile[TILE][TILE + 1];
  int width = gridDim.x * TILE;
  int height = gridDim.y * TILE;
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = idata[y * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  odata[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

// gpumc-launch: --grid 2,2 --block 2,2 --param odata=buf:64 --param idata=buf:64
// gpumc-expect: race 41 44
// why: transpose_tiled without the barrier: thread (x, y) with x != y reads
// why: tile[x][y] (line 44) while thread (y, x) writes it (line 41),
// why: unordered. (Threads on the diagonal read their own element.)
extern "C" __global__ void transpose_tiled_no_barrier(int *odata, const int *idata) {
  __shared__ int tile[TILE][TILE + 1];
  int width = gridDim.x * TILE;
  int height = gridDim.y * TILE;
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = idata[y * width + x];
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  odata[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

// gpumc-launch: --grid 2,2 --block 2,2 --param odata=buf:64 --param idata=buf:64
// gpumc-expect: race 67 67
// why: a transpose whose output index uses blockIdx.x for both coordinates
// why: (y = blockIdx.x * TILE + threadIdx.x, x = blockIdx.x * TILE +
// why: threadIdx.y; blockIdx.y is lost), and which reads the tile in the
// why: layout it was written (every thread reads its own element: no shared
// why: race). The blocks (bx, 0) and (bx, 1) write the same elements of
// why: odata (line 67): a write-write race in global memory between blocks.
// why: (-O1 even removes the tile, whose only reader is its writer; the
// why: global race is unchanged.)
extern "C" __global__ void transpose_wrong_index(int *odata, const int *idata) {
  __shared__ int tile[TILE][TILE + 1];
  int width = gridDim.x * TILE;
  int height = gridDim.y * TILE;
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = idata[y * width + x];
  __syncthreads();
  x = blockIdx.x * TILE + threadIdx.y;
  y = blockIdx.x * TILE + threadIdx.x;
  odata[y * height + x] = tile[threadIdx.y][threadIdx.x];
}
