// Marks the descents of each block's slice of the input: a thread whose
// right-hand neighbour (in shared memory, after the barrier) holds a
// smaller value sets its mark, then every thread copies its value out.
// The mark is a branch on a value another thread wrote; the copy after it
// happens on every path, so a race there needs no particular value.
#include "../gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param marks=buf:32 --param out=buf:32
// gpumc-scale: --grid 1024 --block 256 --param in=buf:1024*GX --param marks=buf:1024*GX --param out=buf:1024*GX
// gpumc-expect: no race
// why: shared memory is written before the barrier and only read after
// why: it; each thread writes its own mark and its own output element.
extern "C" __global__ void mark_descents(const int *in, int *marks, int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  s[t] = in[g];
  __syncthreads();
  if (s[(t + 1) % blockDim.x] < s[t])
    marks[g] = 1;
  out[g] = s[t];
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param marks=buf:32 --param out=buf:32
// gpumc-scale: --grid 1024 --block 256 --param in=buf:1024*GX --param marks=buf:1024*GX --param out=buf:1024*GX
// gpumc-expect: race 37 37
// why: the copy indexes the output by the thread alone (out[t], line 37):
// why: thread t of every block writes the same element. The write follows
// why: the data-dependent mark on every path, so the race is confirmed at
// why: any launch, with a witness.
extern "C" __global__ void mark_descents_bad_index(const int *in, int *marks, int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  s[t] = in[g];
  __syncthreads();
  if (s[(t + 1) % blockDim.x] < s[t])
    marks[g] = 1;
  out[t] = s[t];
}
