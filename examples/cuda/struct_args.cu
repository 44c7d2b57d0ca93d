// Kernel arguments passed as a struct by value, as kernels with many
// parameters are written: the struct is one `.param .b8` array, and its
// pointer-sized fields are pointers (each to its own buffer, as separate
// pointer arguments are) until the kernel uses one as an integer.
#include "gpumc_cuda.h"

struct Args {
  int *out;
  const int *in;
  long n;
};

// gpumc-launch: --grid 2 --block 4
// gpumc-expect: no race
// why: each thread writes its own element of args.out.
extern "C" __global__ void struct_copy(Args args) {
  long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < args.n)
    args.out[i] = 2 * args.in[i];
}

// gpumc-launch: --grid 2 --block 4
// gpumc-expect: race 29 29
// why: threads 2k and 2k+1 both write args.out[k]; the 8-byte field n is
// why: compared as an integer, not taken for a pointer.
extern "C" __global__ void struct_copy_halved(Args args) {
  long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < args.n)
    args.out[i / 2] = args.in[i];
}
