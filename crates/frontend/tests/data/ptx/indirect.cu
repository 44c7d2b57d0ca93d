#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

typedef int (*fp)(int);
__device__ __attribute__((noinline)) int twice(int x) { return 2 * x; }
__device__ fp fptr = twice;

// An indirect call: clang declares its type with `.callprototype`.
__global__ void indirect(int *out) { out[0] = fptr(out[1]); }
