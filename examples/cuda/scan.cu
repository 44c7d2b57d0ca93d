// Inclusive prefix sum (Hillis-Steele scan) of 8 values in one block of 8
// threads, after GPU Gems 3, ch. 39 (Harris, Sengupta, Owens), "naive"
// scan: at step `offset` (1, 2, 4) thread tid adds the value of thread
// tid - offset. Reading the neighbour's slot and writing one's own slot in
// the same step needs either two buffers or a barrier between the read and
// the write.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 1 --block 8 --param in=buf:32 --param out=buf:32
// gpumc-expect: no race
// why: double buffering: a step reads only buffer `pin` and writes only
// why: buffer `pout`, and the barrier at the end of each step orders its
// why: writes before the next step's reads (which read that buffer). A
// why: buffer written at step k was last read at step k-1, before the
// why: barrier ending step k-1. The final read is the thread's own slot.
extern "C" __global__ void scan_double_buffer(const int *in, int *out) {
  __shared__ int temp[2 * 8];
  int n = blockDim.x;
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[pout * n + tid] = in[tid];
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      temp[pout * n + tid] = temp[pin * n + tid] + temp[pin * n + tid - offset];
    else
      temp[pout * n + tid] = temp[pin * n + tid];
    __syncthreads();
  }
  out[tid] = temp[pout * n + tid];
}

// gpumc-launch: --grid 1 --block 8 --param in=buf:32 --param out=buf:32
// gpumc-expect: no race
// why: one buffer, two barriers per step: the first orders every thread's
// why: read of temp[tid - offset] before the writes of the step, the
// why: second orders the writes before the next step's reads.
extern "C" __global__ void scan_two_barriers(const int *in, int *out) {
  __shared__ int temp[8];
  int n = blockDim.x;
  int tid = threadIdx.x;
  temp[tid] = in[tid];
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    int v = 0;
    if (tid >= offset)
      v = temp[tid - offset];
    __syncthreads();
    temp[tid] += v;
    __syncthreads();
  }
  out[tid] = temp[tid];
}

// gpumc-launch: --grid 1 --block 8 --param in=buf:32 --param out=buf:32
// gpumc-expect: race 74 76
// why: scan_two_barriers without the second barrier (after the write): the
// why: write of temp[t] at one step (line 76, thread t) is not ordered with
// why: the read of temp[t] by thread t + offset at the next step (line 74):
// why: after the step's barrier both threads run on to the next barrier
// why: with nothing in between. (The load of temp[tid] on line 76 reads
// why: the thread's own slot, which no other thread writes.)
extern "C" __global__ void scan_missing_second_barrier(const int *in, int *out) {
  __shared__ int temp[8];
  int n = blockDim.x;
  int tid = threadIdx.x;
  temp[tid] = in[tid];
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    int v = 0;
    if (tid >= offset)
      v = temp[tid - offset];
    __syncthreads();
    temp[tid] += v;
  }
  __syncthreads();
  out[tid] = temp[tid];
}

// gpumc-launch: --grid 1 --block 8 --param in=buf:32 --param out=buf:32
// gpumc-expect: race 95 95
// why: one buffer and only the barrier at the end of a step: within a step
// why: thread tid reads temp[tid - offset] while thread tid - offset writes
// why: it, on the same line (95): write-read race of the line with itself.
extern "C" __global__ void scan_single_buffer(const int *in, int *out) {
  __shared__ int temp[8];
  int n = blockDim.x;
  int tid = threadIdx.x;
  temp[tid] = in[tid];
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    if (tid >= offset)
      temp[tid] += temp[tid - offset];
    __syncthreads();
  }
  out[tid] = temp[tid];
}
