// Many threads on one word: the launches a user tries first, at real
// sizes. Checking every thread concretely grows with the square of the
// threads that touch the word (every pair, every coherence order); the
// parametric engine (docs/PTX-KERNELS.md, "Any launch size") decides
// them from two arbitrary threads, at any launch.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 16 --block 256
// gpumc-expect: race 13 13
// why: all 4,096 threads store their id to one global word with a plain
// why: store: any two of them race.
extern "C" __global__ void all_store_one_word(unsigned *word) {
  *word = blockIdx.x * blockDim.x + threadIdx.x;
}

// gpumc-launch: --grid 4 --block 256
// gpumc-expect: no race
// why: 1,024 threads add to one global word with atomicAdd (.gpu scope):
// why: atomics of one device never race with each other.
extern "C" __global__ void all_add_one_word(unsigned *word) {
  atomicAdd(word, threadIdx.x + 1);
}

// gpumc-launch: --grid 4 --block 256
// gpumc-expect: race 29 30
// why: as all_add_one_word, but thread 0 of each block also reads the word
// why: with a plain load: it races with the other threads' atomics.
extern "C" __global__ void all_add_one_word_plain_read(unsigned *word, unsigned *out) {
  atomicAdd(word, 1u);
  if (threadIdx.x == 0) out[blockIdx.x] = *word;
}
