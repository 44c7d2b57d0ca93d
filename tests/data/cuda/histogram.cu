// Histograms written as a user would, without an #include (gpumc's CUDA
// header comes first) and without extern "C" (the kernels are chosen by
// their CUDA names). Written for gpumc's tests (tests/cuda_source.rs).
// gpumc-launch: --grid 4 --block 64

// Two threads whose keys fall into one bin both increment it: a race
// between the load and the store of line 10 in two threads.
__global__ void histogram(const int *keys, int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bins[keys[i] & 15]++;
}

// The same with an atomic increment: race-free for every launch.
__global__ void histogram_atomic(const int *keys, int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&bins[keys[i] & 15], 1);
}
