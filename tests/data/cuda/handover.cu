// One thread of a block waits for a flag, then the whole block passes
// __syncthreads(): written for gpumc's tests (tests/cuda_source.rs). The
// barrier waits for every thread of the block that has not exited, so
// the threads that arrive first wait for the one still spinning.
// gpumc-launch: --grid 2 --block 2 --param data=zeros:4 --param flag=zeros:4 --param out=zeros:8

// Block 0 publishes data[0] (a fence, then the flag); in block 1, thread 0
// waits for the flag and fences, then the block synchronises and every
// thread reads data[0]: race-free.
__global__ void wait_then_sync(int *data, volatile int *flag, int *out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      data[0] = 42;
      __threadfence();
      *flag = 1;
    }
  } else {
    if (threadIdx.x == 0) {
      while (*flag == 0) {
      }
      __threadfence();
    }
    __syncthreads();
    out[threadIdx.x] = data[0];
  }
}

// The same without the waiting thread's fence: nothing orders the read of
// the flag before the block's reads of data[0], which race with block 0's
// write (ptx-v7.5).
__global__ void wait_then_sync_no_fence(int *data, volatile int *flag, int *out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      data[0] = 42;
      __threadfence();
      *flag = 1;
    }
  } else {
    if (threadIdx.x == 0) {
      while (*flag == 0) {
      }
    }
    __syncthreads();
    out[threadIdx.x] = data[0];
  }
}

// gpumc-launch: --grid 1 --block 2 --param data=zeros:4 --param flag=zeros:4 --param out=zeros:8
// Thread 0 writes data[0] and then waits for a flag nobody raises; thread
// 1 reads data[0] and then waits at the barrier for ever: the race comes
// before the barrier that never opens.
__global__ void race_then_wait(int *data, volatile int *flag, int *out) {
  if (threadIdx.x == 0) {
    data[0] = 1;
    while (*flag == 0) {
    }
  } else {
    out[0] = data[0];
  }
  __syncthreads();
  out[1] = 2;
}
