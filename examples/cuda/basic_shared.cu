// Races and race-free accesses on shared memory: a missing or present
// __syncthreads() between a write and a read (read-after-write and
// write-after-read), a broadcast from thread 0, a read and a write on one
// line, and dynamic shared memory. Each block has its own shared memory:
// threads of different blocks never share a __shared__ location.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:32
// gpumc-expect: race 17 18
// why: thread tid writes s[tid] (line 17) and reads its neighbour's slot
// why: s[(tid+1) % 4] (line 18) with no barrier in between: thread tid+1's
// why: write and thread tid's read are unordered (read-after-write race).
extern "C" __global__ void shared_no_barrier(const int *in, int *out) {
  __shared__ int s[4];
  unsigned tid = threadIdx.x;
  unsigned gid = blockIdx.x * blockDim.x + tid;
  s[tid] = in[gid];
  out[gid] = s[(tid + 1) % blockDim.x];
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:32
// gpumc-expect: no race
// why: shared_no_barrier with __syncthreads() between the write and the read:
// why: every write of s happens before every read of s in the block.
extern "C" __global__ void shared_barrier(const int *in, int *out) {
  __shared__ int s[4];
  unsigned tid = threadIdx.x;
  unsigned gid = blockIdx.x * blockDim.x + tid;
  s[tid] = in[gid];
  __syncthreads();
  out[gid] = s[(tid + 1) % blockDim.x];
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:32
// gpumc-expect: race 47 48
// why: a rotation in place: the first barrier orders the initial writes
// why: before the reads, but thread tid overwrites s[tid] (line 48) while
// why: thread tid-1 may not yet have read s[tid] (line 47): a
// why: write-after-read race, the barrier between read and write is missing.
// why: The last read (after the second barrier) is ordered.
extern "C" __global__ void shared_war(const int *in, int *out) {
  __shared__ int s[4];
  unsigned tid = threadIdx.x;
  unsigned gid = blockIdx.x * blockDim.x + tid;
  s[tid] = in[gid];
  __syncthreads();
  int v = s[(tid + 1) % blockDim.x];
  s[tid] = v;
  __syncthreads();
  out[gid] = s[(tid + 2) % blockDim.x];
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:32
// gpumc-expect: no race
// why: shared_war with the missing barrier between the read of the
// why: neighbour's slot and the write of the own slot: every access of s is
// why: separated from every conflicting access of another thread by one of
// why: the three barriers.
extern "C" __global__ void shared_war_fixed(const int *in, int *out) {
  __shared__ int s[4];
  unsigned tid = threadIdx.x;
  unsigned gid = blockIdx.x * blockDim.x + tid;
  s[tid] = in[gid];
  __syncthreads();
  int v = s[(tid + 1) % blockDim.x];
  __syncthreads();
  s[tid] = v;
  __syncthreads();
  out[gid] = s[(tid + 2) % blockDim.x];
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:8 --param out=buf:32
// gpumc-expect: no race
// why: thread 0 of each block writes the block's shared word (inside the
// why: branch); the barrier orders that write before every thread's read.
extern "C" __global__ void shared_broadcast(const int *in, int *out) {
  __shared__ int value;
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    value = in[blockIdx.x];
  __syncthreads();
  out[gid] = value;
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:8 --param out=buf:32
// gpumc-expect: race 94 95
// why: shared_broadcast without the barrier: thread 0's write of `value` (line
// why: 94) and the reads of threads 1..3 of its block (line 95) are
// why: unordered. Thread 0's own read follows its write in program order.
extern "C" __global__ void shared_broadcast_no_barrier(const int *in, int *out) {
  __shared__ int value;
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    value = in[blockIdx.x];
  out[gid] = value;
}

// gpumc-launch: --grid 2 --block 4 --param in=buf:32 --param out=buf:32
// gpumc-expect: race 112 112
// why: `s[tid] += s[tid + 1]` reads s[tid+1] and writes s[tid] on one line
// why: (112): thread tid's read of s[tid+1] races with thread tid+1's write of
// why: the same word on the same line. The initial writes (s[0..3] and s[4])
// why: are ordered by the first barrier, the last reads by the second.
extern "C" __global__ void shared_same_line(const int *in, int *out) {
  __shared__ int s[5];
  unsigned tid = threadIdx.x;
  unsigned gid = blockIdx.x * blockDim.x + tid;
  s[tid] = in[gid];
  if (tid == 0)
    s[blockDim.x] = 0;
  __syncthreads();
  s[tid] += s[tid + 1];
  __syncthreads();
  out[gid] = s[tid];
}

// gpumc-launch: --grid 2 --block 4 --shared-bytes 16 --param out=buf:32
// gpumc-expect: no race
// why: dynamic shared memory (`extern __shared__`, 16 bytes = 4 ints): each
// why: thread writes dyn[tid], and reads the mirrored slot after the barrier.
extern "C" __global__ void shared_dynamic(int *out) {
  extern __shared__ int dyn[];
  unsigned tid = threadIdx.x;
  dyn[tid] = tid * 3;
  __syncthreads();
  out[blockIdx.x * blockDim.x + tid] = dyn[blockDim.x - 1 - tid];
}

// gpumc-launch: --grid 2 --block 4 --shared-bytes 16 --param out=buf:32
// gpumc-expect: race 136 137
// why: shared_dynamic without the barrier: thread tid's write of dyn[tid]
// why: (line 136) and thread 3-tid's read of it (line 137) are unordered.
extern "C" __global__ void shared_dynamic_no_barrier(int *out) {
  extern __shared__ int dyn[];
  unsigned tid = threadIdx.x;
  dyn[tid] = tid * 3;
  out[blockIdx.x * blockDim.x + tid] = dyn[blockDim.x - 1 - tid];
}
