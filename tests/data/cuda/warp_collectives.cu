// Warp collectives and __syncthreads_or/_count whose results decide who
// writes: race-free only because every lane of a warp gets the same
// ballot, the shuffled value of its source lane, and every thread of a
// block the same reduction. Written for gpumc's tests
// (tests/cuda_source.rs).
#define FULL 0xffffffffu

// One writer per warp: the lowest lane whose predicate holds.
__global__ void ballot_leader(const int *in, int *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned b = __ballot_sync(FULL, in[t] > 0);
  if (b != 0 && (threadIdx.x & 31) == __ffs(b) - 1)
    out[t / 32] = __popc(b);
}

// Every lane whose predicate holds writes the warp's cell: a race as
// soon as two lanes' predicates hold.
__global__ void ballot_all_write(const int *in, int *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned b = __ballot_sync(FULL, in[t] > 0);
  if (in[t] > 0)
    out[t / 32] = __popc(b);
}

// Warp-aggregated append: one atomicAdd per warp, each lane at its rank
// among the lanes that append.
__global__ void aggregated_append(const int *in, int *out, int *count) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  unsigned lane = threadIdx.x & 31;
  unsigned b = __ballot_sync(FULL, v > 0);
  int leader = __ffs(b) - 1;
  int base = 0;
  if (lane == (unsigned)leader)
    base = atomicAdd(count, __popc(b));
  base = __shfl_sync(FULL, base, leader);
  if (v > 0)
    out[base + __popc(b & ((1u << lane) - 1))] = v;
}

// A warp sum by shuffles; lane 0 writes it.
__global__ void shfl_sum(const int *in, int *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  for (int d = 16; d > 0; d /= 2)
    v += __shfl_down_sync(FULL, v, d);
  if ((threadIdx.x & 31) == 0)
    out[t / 32] = v;
}

// Lane 0's index, broadcast: the lane that finds its own index writes.
__global__ void shfl_broadcast(int *out) {
  int src = __shfl_sync(FULL, (int)threadIdx.x, 0);
  if ((int)threadIdx.x == src)
    out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = src;
}

// The same, broadcasting lane 1's index to a lane that then compares
// with lane 0's: no lane finds its own index ... except lane 1; and
// lane 0 writes the same cell unconditionally: a race.
__global__ void shfl_broadcast_bad(int *out) {
  int src = __shfl_sync(FULL, (int)threadIdx.x, 1);
  if ((int)threadIdx.x == src || (threadIdx.x & 31) == 0)
    out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = src;
}

// How many threads of the block have t < 4: exactly 4 in a block of 8
// or more, so only thread 0 writes.
__global__ void syncthreads_count(int *out) {
  int n = __syncthreads_count(threadIdx.x < 4);
  if (n == 4) {
    if (threadIdx.x == 0)
      out[blockIdx.x] = n;
  } else {
    out[blockIdx.x] = threadIdx.x;
  }
}

// A loop every thread of the block leaves together: its condition is
// __syncthreads_or of each thread's own progress.
__global__ void syncthreads_or_loop(int *out) {
  __shared__ int s[64];
  int k = 0;
  while (__syncthreads_or(k < (int)(threadIdx.x & 1) + 1)) {
    s[threadIdx.x] = k;
    k++;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

// Thread 0 stops at an out-of-bounds store before the ballot the others
// wait in: the undefined behaviour is reported (the others' ballot does
// not rule the execution out by waiting for thread 0 for ever).
__global__ void ballot_after_oob(int *out) {
  if (threadIdx.x == 0)
    out[100] = 1;
  unsigned b = __ballot_sync(FULL, threadIdx.x > 0);
  out[threadIdx.x] = b;
}
