// Barriers in conditional code, written for gpumc's tests
// (tests/cuda_source.rs). CUDA allows __syncthreads() in conditional code
// "only if the conditional evaluates identically across the entire thread
// block"; otherwise the behaviour is undefined (barrier divergence).
// gpumc-launch: --grid 2 --block 4

// Half of each block takes the branch: divergence at line 12.
__global__ void half_block(int *out) {
  __shared__ int s[4];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 2) {
    __syncthreads();
  }
  out[blockIdx.x * 4 + threadIdx.x] = s[(threadIdx.x + 1) % 4];
}

// The condition depends on the block only: every thread of a block
// decides alike, so no divergence (blocks never share a barrier).
__global__ void per_block(int *out) {
  __shared__ int s[4];
  s[threadIdx.x] = threadIdx.x;
  if (blockIdx.x == 0) {
    __syncthreads();
  }
  out[blockIdx.x * 4 + threadIdx.x] = s[threadIdx.x];
}

// A loop whose trip count depends on the thread: thread t passes the
// barrier of line 34 t times.
__global__ void ragged_loop(int *out) {
  __shared__ int s[4];
  s[threadIdx.x] = 0;
  for (int i = 0; i < (int)threadIdx.x; i++) {
    __syncthreads();
    s[threadIdx.x] += 1;
  }
  out[blockIdx.x * 4 + threadIdx.x] = s[threadIdx.x];
}

// The same loop with a trip count every thread shares.
__global__ void even_loop(int *out) {
  __shared__ int s[4];
  s[threadIdx.x] = 0;
  for (int i = 0; i < 2; i++) {
    __syncthreads();
    s[threadIdx.x] += 1;
  }
  out[blockIdx.x * 4 + threadIdx.x] = s[threadIdx.x];
}

// gpumc-launch: --grid 1 --block 64
// Only the first warp exchanges through shared memory, ordered by
// __syncwarp(): the second warp never calls it, which is no divergence
// (__syncwarp involves the threads of its own warp only).
__global__ void first_warp_only(int *out) {
  __shared__ int s[32];
  if (threadIdx.x < 32) {
    s[threadIdx.x] = threadIdx.x;
    __syncwarp();
    out[threadIdx.x] = s[threadIdx.x ^ 1];
  }
}

// gpumc-launch: --grid 1 --block 64
// The same in a loop kept rolled, where each arrival's barrier id is
// counted as the kernel runs.
__global__ void first_warp_loop(int *out) {
  __shared__ int s[32];
  if (threadIdx.x < 32) {
#pragma unroll 1
    for (int i = 0; i < 2; i++) {
      s[threadIdx.x] = i;
      __syncwarp();
      out[threadIdx.x] = s[threadIdx.x ^ 1];
      __syncwarp();
    }
  }
}
