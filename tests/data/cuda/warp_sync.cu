// Kernels ordered (or not) by __syncwarp(): the warp barrier orders the
// threads of one warp, not two warps, and not a thread that has exited.
// Written for gpumc's tests (tests/cuda_source.rs).

// The CUDA samples' reduction with its last steps in warp 0: tree steps
// with __syncthreads() down to 64 values, then __syncwarp() between the
// reads and the writes of each step.
__global__ void reduce_warp(const int *in, int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t] + s[t + 32];
    __syncwarp();
    s[t] = v;
    __syncwarp();
    for (int k = 16; k > 0; k >>= 1) {
      if (t < k)
        v += s[t + k];
      __syncwarp();
      if (t < k)
        s[t] = v;
      __syncwarp();
    }
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// The same without the __syncwarp() after each step's writes: lane t
// reads s[t + k] in the next step while lane t + k may still write it.
__global__ void reduce_warp_missing(const int *in, int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t] + s[t + 32];
    __syncwarp();
    s[t] = v;
    __syncwarp();
    for (int k = 16; k > 0; k >>= 1) {
      if (t < k)
        v += s[t + k];
      __syncwarp();
      if (t < k)
        s[t] = v;
    }
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// Lanes read their mirror lane across warps 0 and 1: __syncwarp() does
// not order two warps.
__global__ void across_warps(int *out) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  if (t < 64) {
    s[t] = t;
    __syncwarp();
    out[blockIdx.x * 64 + t] = s[63 - t];
  }
}

// Within one warp, the same exchange is ordered.
__global__ void within_warp(int *out) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  if (t < 64) {
    s[t] = t;
    __syncwarp();
    out[blockIdx.x * 64 + t] = s[t ^ 31];
  }
}

// Lane 1 writes and exits: the others' __syncwarp() does not wait for
// it, so lane 0's read of its word is not ordered after the write.
__global__ void exited_lane(int *out) {
  __shared__ int s[32];
  unsigned t = threadIdx.x;
  if (t < 32) {
    s[t] = t;
    if (t == 1)
      return;
    __syncwarp();
    out[blockIdx.x * 32 + t] = s[t ^ 1];
  }
}
