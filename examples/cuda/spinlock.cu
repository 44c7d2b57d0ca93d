// Spin-locks: atomicCAS(lock, 0, 1) takes the lock, atomicExch(lock, 0)
// releases it, and the critical section increments a counter with a plain
// load and a plain store. The lock atomics are relaxed (atom with no .sem),
// so they order nothing by themselves: the critical sections of two threads
// are ordered only if a release fence (__threadfence() = membar.gl) comes
// between the critical section and the releasing atomicExch, AND an acquire
// fence between the acquiring atomicCAS and the next critical section. Then
// the releasing thread's fence synchronises with the acquiring thread's
// fence when the CAS reads the exchange. Mutual exclusion alone (the
// atomics) does not make the counter accesses race-free.
//
// Launches use 2 blocks of 1 thread (the lock is contended across blocks)
// unless said otherwise. The racing lock variants all race on the same
// pairs: the counter load (R) with the other thread's counter store (W),
// and the two stores (W, W); two loads never race.
#include "gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 1 --param lock=zeros:4 --param counter=buf:4
// gpumc-expect: no race
// why: fence after the acquiring CAS and before the releasing exchange: the
// why: second thread's CAS reads the first thread's exchange (the lock
// why: word's accesses are all atomic: morally strong), the first thread's
// why: release fence synchronises with the second thread's acquire fence,
// why: so the first critical section happens before the second.
extern "C" __global__ void spinlock_fenced(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  int c = *counter;
  *counter = c + 1;
  __threadfence();
  atomicExch(lock, 0);
}

// gpumc-launch: --grid 2 --block 1 --param lock=zeros:4 --param counter=buf:4
// gpumc-expect: race 45 46
// gpumc-expect: race 46 46
// why: no fences: the CAS reading the exchange orders the exchange before
// why: the second critical section, but nothing orders the first critical
// why: section (before the exchange) with it: load (line 45) / store (line
// why: 46) and store/store races on the counter.
extern "C" __global__ void spinlock_unfenced(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  int c = *counter;
  *counter = c + 1;
  atomicExch(lock, 0);
}

// gpumc-launch: --grid 2 --block 1 --param lock=zeros:4 --param counter=buf:4
// gpumc-expect: race 63 64
// gpumc-expect: race 64 64
// why: only the acquire fence (after the CAS). That fence is also before
// why: the thread's releasing exchange, so the two threads' fences do
// why: synchronise (and are ordered in the Fence-SC order anyway), but what
// why: they order is what comes before the first thread's fence (its CAS)
// why: with what comes after the second thread's fence; the first thread's
// why: critical section comes after its fence: races on the counter.
extern "C" __global__ void spinlock_acquire_fence_only(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  int c = *counter;
  *counter = c + 1;
  atomicExch(lock, 0);
}

// gpumc-launch: --grid 2 --block 1 --param lock=zeros:4 --param counter=buf:4
// gpumc-expect: race 80 81
// gpumc-expect: race 81 81
// why: only the release fence (before the exchange): the first thread's
// why: critical section happens before its fence, but the second thread's
// why: critical section comes before the second thread's only fence, so no
// why: pattern orders the two critical sections (the Fence-SC order must
// why: put the first thread's fence first, else the second CAS would
// why: precede the exchange it reads): races on the counter.
extern "C" __global__ void spinlock_release_fence_only(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  int c = *counter;
  *counter = c + 1;
  __threadfence();
  atomicExch(lock, 0);
}

// gpumc-launch: --grid 2 --block 1 --param lock=zeros:4 --param counter=buf:4
// gpumc-expect: race 96 97
// gpumc-expect: race 97 97
// why: spinlock_fenced with __threadfence_block() (membar.cta): the lock is
// why: contended by threads of two blocks, and a .cta fence synchronises
// why: only within its block: races on the counter as without fences.
extern "C" __global__ void spinlock_block_fences_interblock(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence_block();
  int c = *counter;
  *counter = c + 1;
  __threadfence_block();
  atomicExch(lock, 0);
}

// gpumc-launch: --grid 1 --block 2 --param lock=zeros:4 --param counter=buf:4
// gpumc-expect: no race
// why: spinlock_block_fences_interblock with both threads in ONE block: the
// why: membar.cta fences are in each other's scope and synchronise as in
// why: spinlock_fenced. (No lockstep: the two threads of the warp take
// why: the lock one after the other; the race check needs no progress.)
extern "C" __global__ void spinlock_block_fences_intrablock(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence_block();
  int c = *counter;
  *counter = c + 1;
  __threadfence_block();
  atomicExch(lock, 0);
}

// gpumc-launch: --grid 2 --block 2 --param lock=zeros:4 --param counter=buf:4 --param out=buf:16
// gpumc-expect: race 134 139
// why: thread 0 of each block takes the (fenced) lock and increments the
// why: counter; after __syncthreads() every thread reads the counter
// why: WITHOUT the lock. The barrier orders the read after the increment of
// why: the reader's own block, but not after (or before) the other block's
// why: increment: the other block's store (line 134) races with the read
// why: (line 139). The counter load in the critical section (line 133) is
// why: ordered with the other block's store by the lock, and two reads do
// why: not race.
extern "C" __global__ void spinlock_leader_unlocked_read(int *lock, int *counter, int *out) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    int c = *counter;
    *counter = c + 1;
    __threadfence();
    atomicExch(lock, 0);
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = *counter;
}
