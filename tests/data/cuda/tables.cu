// Kernels that read tables initialised in the module and written by
// nobody: a __device__ table of function pointers and a __constant__
// permutation. Their contents decide which function runs and where each
// thread writes, so the check needs them by value at every launch.
// Written for gpumc's tests (tests/cuda_source.rs).
__device__ int twice(int x) { return 2 * x; }
__device__ int thrice(int x) { return 3 * x; }
typedef int (*op_t)(int);
__device__ op_t table[2] = {twice, thrice};

// Every thread calls one of the table's functions and writes its own
// cell.
__global__ void apply(const int *in, int *out, int which) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = table[which & 1](in[t]);
}

// Index 2 and 3 are past the table: undefined behaviour.
__global__ void apply_past_the_table(const int *in, int *out, int which) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = table[which & 3](in[t]);
}

__constant__ int perm[4] = {2, 0, 3, 1};
__constant__ int not_perm[4] = {2, 0, 2, 1};

// Each group of four threads writes its four cells in permuted order.
__global__ void permute(const int *in, int *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  out[(t & ~3u) + perm[t & 3]] = in[t];
}

// Threads 0 and 2 of each group of four write the same cell.
__global__ void permute_bad(const int *in, int *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  out[(t & ~3u) + not_perm[t & 3]] = in[t];
}
