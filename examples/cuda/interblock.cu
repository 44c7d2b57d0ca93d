// Message passing between blocks through a flag in global memory: block 0
// (the producer) writes data[0] and then sets the flag; block 1 (the
// consumer) spins until it sees the flag and then reads data[0]. Every
// kernel but mp_fence_block_intrablock runs --grid 2 --block 1: one thread
// per block, so __syncthreads() could not help. Variants differ in the fences and in how
// the flag is written and read.
//
// The rules (PTX memory model, Lustig et al., ASPLOS'19): data[0] is written
// and read with plain (weak) accesses, so the two accesses race unless they
// are ordered by causality. Causality between the two threads needs a
// release (a fence.sc = membar.gl = __threadfence(), or st.release) before
// the flag write, a morally strong flag read that reads the flag write, and
// an acquire (a fence, or ld.acquire) after it. In addition, two fence.sc
// of gpu scope are always ordered one way or the other (the Fence-SC order),
// and the earlier synchronises with the later one: with __threadfence() on
// both sides and any flag read that reads the flag write, the producer's
// fence must come first (else the flag read would precede the flag write in
// causality order), so data[0] is ordered even when the flag accesses race
// (mp_spin_ca, mp_spin_cg, mp_spin_plain at -O0). The flag accesses themselves race
// unless both are strong (volatile, atomic, acquire/release).
#include "gpumc_cuda.h"

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: no race
// why: release pattern in block 0 (membar.gl then the volatile flag store,
// why: i.e. st.volatile = relaxed.sys, strong), acquire pattern in block 1
// why: (the volatile flag load that reads 1, then membar.gl): the two fences
// why: synchronise, so the write of data[0] happens before its read. The
// why: flag accesses are both strong with system scope: morally strong, no
// why: race. Flag loads that read 0 only repeat the loop.
extern "C" __global__ void mp_fenced_volatile(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *(volatile int *)flag = 1;
  } else {
    while (*(volatile int *)flag == 0) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: race 53 58
// why: no fences: the volatile flag accesses are morally strong (no race on
// why: the flag), and the flag store is observed by the loop's last load,
// why: but volatile accesses are relaxed: without a release before the flag
// why: store and an acquire after the flag load nothing orders the write of
// why: data[0] (line 53) with its read (line 58).
extern "C" __global__ void mp_unfenced(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    *(volatile int *)flag = 1;
  } else {
    while (*(volatile int *)flag == 0) {
    }
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: race 69 75
// why: a release fence in the producer but no acquire in the consumer: no
// why: synchronisation (one fence.sc alone has no Fence-SC partner), so the
// why: write of data[0] (line 69) and its read (line 75) race.
extern "C" __global__ void mp_fence_producer_only(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *(volatile int *)flag = 1;
  } else {
    while (*(volatile int *)flag == 0) {
    }
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: race 88 94
// why: an acquire fence in the consumer but no release in the producer: the
// why: flag store is observed by the flag load and so precedes the read of
// why: data[0] in causality order, but the write of data[0] (line 88) is
// why: not ordered before the flag store by any release: data race with the
// why: read (line 94).
extern "C" __global__ void mp_fence_consumer_only(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    *(volatile int *)flag = 1;
  } else {
    while (*(volatile int *)flag == 0) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: race 107 114
// why: __threadfence_block() (membar.cta = fence.sc.cta) on both sides, but
// why: producer and consumer are in different blocks: a .cta fence only
// why: synchronises with threads of its own block (the two fences are not
// why: in each other's scope: not morally strong, no Fence-SC order, no
// why: release/acquire pattern between them). data[0] races (lines 107, 114).
extern "C" __global__ void mp_fence_block_interblock(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence_block();
    *(volatile int *)flag = 1;
  } else {
    while (*(volatile int *)flag == 0) {
    }
    __threadfence_block();
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 1 --block 2 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: no race
// why: mp_fence_block_interblock with producer and consumer in ONE block
// why: (threads 0 and 1): the two membar.cta are in each other's scope and
// why: synchronise as in mp_fenced_volatile. (No lockstep is assumed
// why: for the two threads of the warp; they synchronise through memory.)
extern "C" __global__ void mp_fence_block_intrablock(int *data, int *flag, int *out) {
  if (threadIdx.x == 0) {
    data[0] = 42;
    __threadfence_block();
    *(volatile int *)flag = 1;
  } else {
    while (*(volatile int *)flag == 0) {
    }
    __threadfence_block();
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: race 153 155
// why: the consumer spins with a weak load, ld.global.ca (inline asm): a
// why: weak access is never morally strong, so the volatile flag store (line
// why: 153) races with the spinning load (line 155). The cache operator
// why: (.ca: cache in L1) is a performance hint and makes no difference in
// why: the memory model (see mp_spin_cg). data[0] does NOT race: the loop
// why: exits only when its load reads the flag store, which forces the
// why: producer's fence.sc before the consumer's in the Fence-SC order (the
// why: other order would put the flag load before the flag store in
// why: causality order), and that order makes the data write happen before
// why: the data read.
extern "C" __global__ void mp_spin_ca(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *(volatile int *)flag = 1;
  } else {
    while (ld_ca(flag) == 0) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: race 171 173
// why: mp_spin_ca with ld.global.cg (cache in L2 only, not in L1): still a
// why: weak load in the memory model, the same verdict: the flag store (line 171) races with
// why: the spinning load (line 173); data[0] is ordered by the two fences.
extern "C" __global__ void mp_spin_cg(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *(volatile int *)flag = 1;
  } else {
    while (ld_cg(flag) == 0) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: race 190 192
// gpumc-expect: race 189 194
// why: a weak (.ca) spin load and no fences: the flag store (line 190) races
// why: with the spinning load (line 192), and as nothing synchronises (a
// why: weak load observes nothing, and there are no fences), the data write
// why: (line 189) races with the data read (line 194).
extern "C" __global__ void mp_spin_ca_unfenced(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    *(volatile int *)flag = 1;
  } else {
    while (ld_ca(flag) == 0) {
    }
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect-O0: race 218 220
// gpumc-expect-O1: race 216 223
// why: the consumer spins on a plain load, `while (*flag == 0) {}`.
// why: -O0: the loop loads the flag in every iteration (weak ld); as in
// why: mp_spin_ca the volatile flag store (line 218) races with that load
// why: (line 220), and data[0] is ordered by the two fences.
// why: -O1: the loop is gone. Its load may be assumed not to change (no
// why: volatile, no atomic, no other memory access in the loop), and a C++
// why: loop without side effects may be assumed to terminate (clang marks
// why: the function mustprogress), so clang deletes the loop and then the
// why: now unused load: the consumer runs membar.gl and reads data[0] at
// why: once. With no flag load, nothing forces the producer's fence before
// why: the consumer's in the Fence-SC order: in the executions where the
// why: consumer's fence comes first, the write of data[0] (line 216) and
// why: its read (line 223) are unordered: a data race, and no flag race.
extern "C" __global__ void mp_spin_plain(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *(volatile int *)flag = 1;
  } else {
    while (*flag == 0) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: no race
// why: st.release.gpu of the flag in block 0, ld.acquire.gpu in block 1
// why: (inline asm): both strong with gpu scope, morally strong (no race on
// why: the flag); the release store is itself a release pattern, the
// why: acquire load an acquire pattern, and when the load reads the store
// why: they synchronise: the write of data[0] happens before its read.
extern "C" __global__ void mp_acquire_release(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    st_release_gpu(flag, 1);
  } else {
    while (ld_acquire_gpu(flag) == 0) {
    }
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: no race
// why: the flag is set with atomicExch and consumed with atomicCAS(flag, 1,
// why: 0) in a loop (atom.exch / atom.cas: relaxed, gpu scope, strong and
// why: morally strong to each other), with __threadfence() before the
// why: exchange and after the loop: the release and acquire patterns
// why: synchronise when the CAS reads the exchange, so data[0] is ordered.
extern "C" __global__ void mp_atomic_flag(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    atomicExch(flag, 1);
  } else {
    while (atomicCAS(flag, 1, 0) != 1) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

// gpumc-launch: --grid 2 --block 1 --param data=buf:4 --param flag=zeros:4 --param out=buf:4
// gpumc-expect: race 273 278
// why: mp_atomic_flag without the fences: the atomics are relaxed (no
// why: .release/.acquire), so reading the flag orders only the exchange
// why: itself before the consumer's later accesses, not the earlier write of
// why: data[0] (line 273): it races with the read (line 278).
extern "C" __global__ void mp_atomic_flag_unfenced(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    data[0] = 42;
    atomicExch(flag, 1);
  } else {
    while (atomicCAS(flag, 1, 0) != 1) {
    }
    out[0] = data[0];
  }
}

__device__ int g_data;
__device__ int g_flag = 0;

// gpumc-launch: --grid 2 --block 1 --param out=buf:4
// gpumc-expect: no race
// why: mp_fenced_volatile on module-scope __device__ variables instead of
// why: buffers: g_flag starts at its initialiser 0 (g_data at 0 too),
// why: release and acquire fences as there: no race.
extern "C" __global__ void mp_module_globals(int *out) {
  if (blockIdx.x == 0) {
    g_data = 42;
    __threadfence();
    *(volatile int *)&g_flag = 1;
  } else {
    while (*(volatile int *)&g_flag == 0) {
    }
    __threadfence();
    out[0] = g_data;
  }
}

// gpumc-launch: --grid 2 --block 1 --param flag=zeros:4
// gpumc-expect: no race
// why: block 0 hands a flag over with atomicExch; block 1 spins on
// why: atomicMax(flag, 0), which stores back what it reads. No other memory
// why: access: atomics never race with each other. Every bound cuts the
// why: spinning execution (the RMW writes), but the loop repeats iterations
// why: that start alike, store nothing new and cannot race, so the verdict
// why: holds for every bound (docs/SEMANTICS.md).
extern "C" __global__ void flag_handover_atomics_only(unsigned *flag) {
  if (blockIdx.x == 0) {
    atomicExch(flag, 1u);
  } else {
    while (atomicMax(flag, 0u) != 1u) {
    }
  }
}

// gpumc-launch: --grid 2 --block 1 --param flag=zeros:4 --param data=zeros:8
// gpumc-expect: race 327 332
// why: flag_handover_atomics_only with plain data on both sides and no
// why: fence: the atomics are relaxed, so block 1's plain read of data[0]
// why: (line 332) is not ordered after block 0's plain write (line 327).
extern "C" __global__ void flag_handover_plain_data(unsigned *flag, unsigned *data) {
  if (blockIdx.x == 0) {
    data[0] = 5;
    atomicExch(flag, 1u);
  } else {
    while (atomicMax(flag, 0u) != 1u) {
    }
    data[1] = data[0];
  }
}
