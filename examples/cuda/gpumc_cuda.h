// gpumc_cuda.h: the few CUDA device-side names the kernels of this suite use,
// for clang's CUDA front-end without the CUDA toolkit
// (clang -x cuda --cuda-device-only -nocudainc -nocudalib, see compile.sh).
//
// Written for gpumc's race-checker tests; it is not a CUDA runtime header.
// Everything that becomes a memory or fence instruction (atomics, fences,
// the load/store helpers) is a MACRO, not a function: clang gives the
// instructions of a macro expansion the line of the expansion, so the
// `.loc` of every atomic, fence and helper load in the PTX names the line of
// the kernel's `.cu` file that uses it, at -O0 as at -O1.  (An inline
// function would be inlined, but its instructions would carry the
// header's lines, and at -O0 it would not even be inlined.)
#ifndef GPUMC_CUDA_H
#define GPUMC_CUDA_H

// ---- Function and variable qualifiers (clang's CUDA attributes) ----------
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

// ---- Built-in variables ---------------------------------------------------
// `threadIdx.x` reads %tid.x: each built-in variable is an empty object whose
// x/y/z members are properties (clang's __declspec(property), as clang's own
// CUDA headers do) read by an always-inline static getter.  No memory is
// read and no function is called, even at -O0: the getter is a single
// `mov.u32 %r, %tid.x`.
#define GPUMC_SREG(field, builtin)                                          \
  __declspec(property(get = gpumc_get_##field)) unsigned field;             \
  static __device__ __forceinline__ unsigned gpumc_get_##field() {         \
    return builtin();                                                       \
  }

struct gpumc_threadIdx_t {
  GPUMC_SREG(x, __nvvm_read_ptx_sreg_tid_x)
  GPUMC_SREG(y, __nvvm_read_ptx_sreg_tid_y)
  GPUMC_SREG(z, __nvvm_read_ptx_sreg_tid_z)
};
struct gpumc_blockIdx_t {
  GPUMC_SREG(x, __nvvm_read_ptx_sreg_ctaid_x)
  GPUMC_SREG(y, __nvvm_read_ptx_sreg_ctaid_y)
  GPUMC_SREG(z, __nvvm_read_ptx_sreg_ctaid_z)
};
struct gpumc_blockDim_t {
  GPUMC_SREG(x, __nvvm_read_ptx_sreg_ntid_x)
  GPUMC_SREG(y, __nvvm_read_ptx_sreg_ntid_y)
  GPUMC_SREG(z, __nvvm_read_ptx_sreg_ntid_z)
};
struct gpumc_gridDim_t {
  GPUMC_SREG(x, __nvvm_read_ptx_sreg_nctaid_x)
  GPUMC_SREG(y, __nvvm_read_ptx_sreg_nctaid_y)
  GPUMC_SREG(z, __nvvm_read_ptx_sreg_nctaid_z)
};
#undef GPUMC_SREG

#define threadIdx (gpumc_threadIdx_t{})
#define blockIdx (gpumc_blockIdx_t{})
#define blockDim (gpumc_blockDim_t{})
#define gridDim (gpumc_gridDim_t{})
#define warpSize 32

// ---- Barrier and fences ---------------------------------------------------
// __syncthreads() is a clang builtin already: `bar.sync 0`.
#define __threadfence() __nvvm_membar_gl()        // membar.gl  (= fence.sc.gpu)
#define __threadfence_block() __nvvm_membar_cta() // membar.cta (= fence.sc.cta)

// ---- Atomics on int and unsigned (generic addressing, `atom` with no
// ---- .sem/.scope: relaxed, .gpu scope) -------------------------------------
// The value returned has the type of *p.  The operations whose bits do not
// depend on signedness go through the int builtin; min and max pick the
// signed or unsigned builtin from the type of *p (a constant condition:
// clang emits only the arm it selects, even at -O0).
#define GPUMC_IS_UNSIGNED(p) ((__typeof__(*(p)))-1 > (__typeof__(*(p)))0)
#define GPUMC_ATOM_INT(op, p, v)                                            \
  ((__typeof__(*(p)))__nvvm_atom_##op##_gen_i((int *)(p), (int)(v)))

#define atomicAdd(p, v) GPUMC_ATOM_INT(add, p, v)
#define atomicSub(p, v) GPUMC_ATOM_INT(add, p, -(int)(v))
#define atomicExch(p, v) GPUMC_ATOM_INT(xchg, p, v)
#define atomicAnd(p, v) GPUMC_ATOM_INT(and, p, v)
#define atomicOr(p, v) GPUMC_ATOM_INT(or, p, v)
#define atomicXor(p, v) GPUMC_ATOM_INT(xor, p, v)
#define atomicCAS(p, cmp, v)                                                \
  ((__typeof__(*(p)))__nvvm_atom_cas_gen_i((int *)(p), (int)(cmp), (int)(v)))
#define atomicMin(p, v)                                                     \
  (GPUMC_IS_UNSIGNED(p)                                                     \
       ? (__typeof__(*(p)))__nvvm_atom_min_gen_ui((unsigned *)(p), (unsigned)(v)) \
       : (__typeof__(*(p)))__nvvm_atom_min_gen_i((int *)(p), (int)(v)))
#define atomicMax(p, v)                                                     \
  (GPUMC_IS_UNSIGNED(p)                                                     \
       ? (__typeof__(*(p)))__nvvm_atom_max_gen_ui((unsigned *)(p), (unsigned)(v)) \
       : (__typeof__(*(p)))__nvvm_atom_max_gen_i((int *)(p), (int)(v)))
// atomicInc(p, m): old = *p; *p = (old >= m) ? 0 : old + 1 (unsigned).
#define atomicInc(p, m)                                                     \
  ((__typeof__(*(p)))__nvvm_atom_inc_gen_ui((unsigned *)(p), (unsigned)(m)))

// ---- Loads and stores with an explicit PTX qualifier (inline asm) ---------
// The pointer must point to global memory (a kernel's pointer argument or a
// __device__ variable); it is converted to a global address first (clang
// emits `cvta.to.global.u64`).  32-bit values; the loads return unsigned.
#define GPUMC_GLOBAL(p) ((__attribute__((address_space(1))) const void *)(p))

// Weak loads with a cache operator: .ca caches in L1 and L2, .cg in L2 only.
// The cache operator is a performance hint: both are plain (weak) loads in
// the memory model.  `asm volatile` with a "memory" clobber keeps the
// compiler from hoisting them out of a spin loop or moving other accesses
// across them.
#define ld_ca(p)                                                            \
  ({                                                                        \
    unsigned gpumc_v_;                                                      \
    asm volatile("ld.global.ca.u32 %0, [%1];"                               \
                 : "=r"(gpumc_v_) : "l"(GPUMC_GLOBAL(p)) : "memory");       \
    gpumc_v_;                                                               \
  })
#define ld_cg(p)                                                            \
  ({                                                                        \
    unsigned gpumc_v_;                                                      \
    asm volatile("ld.global.cg.u32 %0, [%1];"                               \
                 : "=r"(gpumc_v_) : "l"(GPUMC_GLOBAL(p)) : "memory");       \
    gpumc_v_;                                                               \
  })

// Strong acquire load and release store at GPU scope (PTX ISA 6.0, sm_70).
#define ld_acquire_gpu(p)                                                   \
  ({                                                                        \
    unsigned gpumc_v_;                                                      \
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"                      \
                 : "=r"(gpumc_v_) : "l"(GPUMC_GLOBAL(p)) : "memory");       \
    gpumc_v_;                                                               \
  })
#define st_release_gpu(p, v)                                                \
  asm volatile("st.release.gpu.global.u32 [%0], %1;"                        \
               : : "l"(GPUMC_GLOBAL(p)), "r"((unsigned)(v)) : "memory")

#endif // GPUMC_CUDA_H
