// 2-D 5-point stencil through a shared-memory tile with a one-cell halo,
// in the style of the CUDA samples' stencil and convolution kernels: each
// block loads its blockDim.y x blockDim.x tile of a width x height grid
// into shared memory, the threads on the tile's edges also load the halo
// cell beyond their edge (zero outside the grid), and after a barrier
// every thread computes its output from the tile. Size-generic: the tile
// is indexed by blockDim (at most MAX_W x MAX_H, e.g. 16 x 16 or 32 x 8
// blocks) and every access is bounds-checked against width and height.
#include "../gpumc_cuda.h"

#define MAX_W 32
#define MAX_H 16

// gpumc-launch: --grid 2,2 --block 4,2 --param in=buf:128 --param out=buf:128 --param width=8 --param height=4
// gpumc-scale: --grid 32,32 --block 16,16 --param in=buf:4*16*GX*16*GY --param out=buf:4*16*GX*16*GY --param width=16*GX --param height=16*GY
// gpumc-scale: --grid 32,32 --block 32,8 --param in=buf:4*32*GX*8*GY --param out=buf:4*32*GX*8*GY --param width=32*GX --param height=8*GY
// gpumc-expect: no race
// why: thread (tx, ty) writes tile cell (ty+1, tx+1) and, on an edge of
// why: the block or of the grid, the halo cell beyond that edge, which no
// why: other thread writes; after the barrier it reads its own cell and
// why: its four neighbours, written before the barrier by the
// why: neighbouring threads or by itself (halo): ordered. Each thread
// why: writes its own out element; in is only read.
extern "C" __global__ void stencil2d(const float *in, float *out, int width, int height) {
  __shared__ float tile[MAX_H + 2][MAX_W + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * blockDim.x + tx;
  int y = blockIdx.y * blockDim.y + ty;
  int lx = tx + 1, ly = ty + 1;
  bool inside = x < width && y < height;
  if (inside) {
    tile[ly][lx] = in[y * width + x];
    if (tx == 0)
      tile[ly][0] = x > 0 ? in[y * width + x - 1] : 0.0f;
    if (tx == blockDim.x - 1 || x == width - 1)
      tile[ly][lx + 1] = x + 1 < width ? in[y * width + x + 1] : 0.0f;
    if (ty == 0)
      tile[0][lx] = y > 0 ? in[(y - 1) * width + x] : 0.0f;
    if (ty == blockDim.y - 1 || y == height - 1)
      tile[ly + 1][lx] = y + 1 < height ? in[(y + 1) * width + x] : 0.0f;
  }
  __syncthreads();
  if (inside)
    out[y * width + x] = 0.5f * tile[ly][lx] + 0.125f * (tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly - 1][lx] + tile[ly + 1][lx]);
}

// gpumc-launch: --grid 2,2 --block 4,2 --param in=buf:128 --param out=buf:128 --param width=8 --param height=4
// gpumc-scale: --grid 32,32 --block 16,16 --param in=buf:4*16*GX*16*GY --param out=buf:4*16*GX*16*GY --param width=16*GX --param height=16*GY
// gpumc-scale: --grid 32,32 --block 32,8 --param in=buf:4*32*GX*8*GY --param out=buf:4*32*GX*8*GY --param width=32*GX --param height=8*GY
// gpumc-expect: race 64 75
// why: stencil2d without the barrier between loading the tile and
// why: computing: thread (tx, ty) reads the cells of its neighbours
// why: (tx +- 1, ty +- 1) on line 75 while they write them on line 64,
// why: unordered. The halo cells are read only by the thread that wrote
// why: them, so their stores do not race.
extern "C" __global__ void stencil2d_no_barrier(const float *in, float *out, int width, int height) {
  __shared__ float tile[MAX_H + 2][MAX_W + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * blockDim.x + tx;
  int y = blockIdx.y * blockDim.y + ty;
  int lx = tx + 1, ly = ty + 1;
  bool inside = x < width && y < height;
  if (inside) {
    tile[ly][lx] = in[y * width + x];
    if (tx == 0)
      tile[ly][0] = x > 0 ? in[y * width + x - 1] : 0.0f;
    if (tx == blockDim.x - 1 || x == width - 1)
      tile[ly][lx + 1] = x + 1 < width ? in[y * width + x + 1] : 0.0f;
    if (ty == 0)
      tile[0][lx] = y > 0 ? in[(y - 1) * width + x] : 0.0f;
    if (ty == blockDim.y - 1 || y == height - 1)
      tile[ly + 1][lx] = y + 1 < height ? in[(y + 1) * width + x] : 0.0f;
  }
  if (inside)
    out[y * width + x] = 0.5f * tile[ly][lx] + 0.125f * (tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly - 1][lx] + tile[ly + 1][lx]);
}
