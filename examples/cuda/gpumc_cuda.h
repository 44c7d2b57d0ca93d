// gpumc_cuda.h: the CUDA device-side names kernels commonly use (qualifiers,
// built-in variables, barriers and fences, atomics, warp primitives, bit
// tricks), for clang's CUDA front-end without the CUDA toolkit
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
#define __restrict__ __restrict
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

#define __align__(n) __attribute__((aligned(n)))

// CUDA's vector types (members x, y, z, w; aligned to their size, so a
// whole one is loaded or stored by one vector instruction) and their
// make_ functions.
#define GPUMC_VEC2(T, name, al)                                             \
  struct __align__(al) name { T x, y; };                                    \
  static __device__ __forceinline__ name make_##name(T x, T y) {            \
    name v = {x, y};                                                        \
    return v;                                                               \
  }
#define GPUMC_VEC4(T, name, al)                                             \
  struct __align__(al) name { T x, y, z, w; };                              \
  static __device__ __forceinline__ name make_##name(T x, T y, T z, T w) {  \
    name v = {x, y, z, w};                                                  \
    return v;                                                               \
  }
GPUMC_VEC2(int, int2, 8)
GPUMC_VEC2(unsigned, uint2, 8)
GPUMC_VEC2(float, float2, 8)
GPUMC_VEC2(double, double2, 16)
GPUMC_VEC4(int, int4, 16)
GPUMC_VEC4(unsigned, uint4, 16)
GPUMC_VEC4(float, float4, 16)
#undef GPUMC_VEC2
#undef GPUMC_VEC4

// (The compiler's own types, so that a system header's typedefs of the
// same names agree.)
typedef __SIZE_TYPE__ size_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT32_TYPE__ int32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INT64_TYPE__ int64_t;

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
#define __threadfence_system() __nvvm_membar_sys() // membar.sys (= fence.sc.sys)
// A barrier that also reduces a predicate over the block: `bar.red`.
#define __syncthreads_count(p) __nvvm_bar0_popc((p) != 0)
#define __syncthreads_and(p) __nvvm_bar0_and((p) != 0)
#define __syncthreads_or(p) __nvvm_bar0_or((p) != 0)

// ---- Warp-level primitives (PTX ISA 6.0, sm_70) ---------------------------
// __syncwarp is `bar.warp.sync`: a barrier of the warp's threads in `mask`.
// Shuffles and votes (`shfl.sync`, `vote.sync`, `activemask`) exchange
// registers, not memory: gpumc gives their results arbitrary values (they
// order nothing, docs/PTX-KERNELS.md), so they are plain inline functions.
static __device__ __forceinline__ unsigned gpumc_mask_(int) { return 0xffffffffu; }
static __device__ __forceinline__ unsigned gpumc_mask_(int, unsigned m) { return m; }
#define __syncwarp(...) __nvvm_bar_warp_sync(gpumc_mask_(0, ##__VA_ARGS__))
// The `c` operand of shfl.sync packs the segment width (its upper bits)
// and the lane clamp (its lower bits), as the PTX ISA describes.
#define GPUMC_SHFL(name, kind, clamp)                                        \
  static __device__ __forceinline__ int name(unsigned m, int v, int l,      \
                                             int w = 32) {                  \
    return __nvvm_shfl_sync_##kind##_i32(m, v, l, ((32 - w) << 8) | (clamp)); \
  }                                                                         \
  static __device__ __forceinline__ unsigned name(unsigned m, unsigned v,   \
                                                  int l, int w = 32) {      \
    return (unsigned)__nvvm_shfl_sync_##kind##_i32(m, (int)v, l,            \
                                                   ((32 - w) << 8) | (clamp)); \
  }                                                                         \
  static __device__ __forceinline__ float name(unsigned m, float v, int l,  \
                                               int w = 32) {                \
    return __nvvm_shfl_sync_##kind##_f32(m, v, l, ((32 - w) << 8) | (clamp)); \
  }
GPUMC_SHFL(__shfl_sync, idx, 0x1f)
GPUMC_SHFL(__shfl_up_sync, up, 0)
GPUMC_SHFL(__shfl_down_sync, down, 0x1f)
GPUMC_SHFL(__shfl_xor_sync, bfly, 0x1f)
#undef GPUMC_SHFL
#define __ballot_sync(m, p) __nvvm_vote_ballot_sync((m), (p) != 0)
#define __any_sync(m, p) __nvvm_vote_any_sync((m), (p) != 0)
#define __all_sync(m, p) __nvvm_vote_all_sync((m), (p) != 0)
#define __activemask()                                                      \
  ({                                                                        \
    unsigned gpumc_m_;                                                      \
    asm volatile("activemask.b32 %0;" : "=r"(gpumc_m_));                    \
    gpumc_m_;                                                               \
  })

// ---- Bits, conversions and arithmetic ------------------------------------
#define __float_as_int(f) __builtin_bit_cast(int, (float)(f))
#define __float_as_uint(f) __builtin_bit_cast(unsigned, (float)(f))
#define __int_as_float(i) __builtin_bit_cast(float, (int)(i))
#define __uint_as_float(i) __builtin_bit_cast(float, (unsigned)(i))
// (the atomicAdd-on-double idiom: a compare-and-swap loop on the bits)
#define __double_as_longlong(d) __builtin_bit_cast(long long, (double)(d))
#define __longlong_as_double(i) __builtin_bit_cast(double, (long long)(i))
#define __popc(x) __builtin_popcount((unsigned)(x))
#define __popcll(x) __builtin_popcountll((unsigned long long)(x))
#define __clz(x) ((x) == 0 ? 32 : __builtin_clz((unsigned)(x)))
#define __ffs(x) __builtin_ffs((int)(x))
#define __clzll(x) ((x) == 0 ? 64 : __builtin_clzll((unsigned long long)(x)))
#define __ffsll(x) __builtin_ffsll((long long)(x))
#define __brev(x) __builtin_bitreverse32((unsigned)(x))
#define __brevll(x) __builtin_bitreverse64((unsigned long long)(x))
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static __device__ __forceinline__ float min(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static __device__ __forceinline__ float max(float a, float b) { return __builtin_fmaxf(a, b); }
// Device overloads (clang tells them apart from <math.h>'s host
// functions by their target, as its own CUDA headers do).
static __device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
static __device__ __forceinline__ float fabsf(float a) { return __builtin_fabsf(a); }
static __device__ __forceinline__ float sqrtf(float a) { return __builtin_sqrtf(a); }
// A read through the read-only data cache (`ld.global.nc`) is a plain load
// in the memory model.
#define __ldg(p) (*(p))

// ---- Atomics (generic addressing, `atom` with no .sem/.scope: relaxed,
// ---- .gpu scope; the _block and _system forms: .cta and .sys scope) -------
// The value returned has the type of *p.  Each macro picks the builtin
// from the type of *p with a constant condition (clang emits only the arm
// it selects, even at -O0): 64-bit integers use the `ll` builtins, float
// and double the floating-point ones (atomicAdd) or the bits of the value
// (atomicExch), every other type the 32-bit integer ones.  The operations
// whose bits do not depend on signedness go through the signed builtin;
// min and max pick the signed or unsigned one.
#define GPUMC_IS_UNSIGNED(p) ((__typeof__(*(p)))-1 > (__typeof__(*(p)))0)
#define GPUMC_IS(p, T) __is_same(__typeof__(*(p)), T)
#define GPUMC_ATOM_INT_S(scope, op, p, v)                                   \
  (sizeof(*(p)) == 8                                                        \
       ? (__typeof__(*(p)))__nvvm_atom##scope##_##op##_gen_ll(              \
             (long long *)(p), (long long)(v))                              \
       : (__typeof__(*(p)))__nvvm_atom##scope##_##op##_gen_i((int *)(p),    \
                                                           (int)(v)))
#define GPUMC_ATOM_INT(op, p, v) GPUMC_ATOM_INT_S(, op, p, v)
#define GPUMC_ATOM_ADD(scope, p, v)                                         \
  (GPUMC_IS(p, float)                                                       \
       ? (__typeof__(*(p)))__nvvm_atom##scope##_add_gen_f((float *)(p),     \
                                                          (float)(v))       \
   : GPUMC_IS(p, double)                                                    \
       ? (__typeof__(*(p)))__nvvm_atom##scope##_add_gen_d((double *)(p),    \
                                                          (double)(v))      \
       : GPUMC_ATOM_INT_S(scope, add, p, v))
#define GPUMC_ATOM_EXCH(scope, p, v)                                        \
  (GPUMC_IS(p, float)                                                       \
       ? (__typeof__(*(p)))__builtin_bit_cast(                              \
             float, __nvvm_atom##scope##_xchg_gen_i(                        \
                        (int *)(p), __builtin_bit_cast(int, (float)(v))))   \
       : GPUMC_ATOM_INT_S(scope, xchg, p, v))
#define GPUMC_ATOM_CAS(scope, p, cmp, v)                                    \
  (sizeof(*(p)) == 8                                                        \
       ? (__typeof__(*(p)))__nvvm_atom##scope##_cas_gen_ll(                 \
             (long long *)(p), (long long)(cmp), (long long)(v))            \
       : (__typeof__(*(p)))__nvvm_atom##scope##_cas_gen_i(                  \
             (int *)(p), (int)(cmp), (int)(v)))

#define atomicAdd(p, v) GPUMC_ATOM_ADD(, p, v)
#define atomicAdd_block(p, v) GPUMC_ATOM_ADD(_cta, p, v)
#define atomicAdd_system(p, v) GPUMC_ATOM_ADD(_sys, p, v)
#define atomicSub(p, v) GPUMC_ATOM_INT(add, p, -(int)(v))
#define atomicExch(p, v) GPUMC_ATOM_EXCH(, p, v)
#define atomicExch_block(p, v) GPUMC_ATOM_EXCH(_cta, p, v)
#define atomicExch_system(p, v) GPUMC_ATOM_EXCH(_sys, p, v)
#define atomicAnd(p, v) GPUMC_ATOM_INT(and, p, v)
#define atomicOr(p, v) GPUMC_ATOM_INT(or, p, v)
#define atomicXor(p, v) GPUMC_ATOM_INT(xor, p, v)
#define atomicCAS(p, cmp, v) GPUMC_ATOM_CAS(, p, cmp, v)
#define atomicCAS_block(p, cmp, v) GPUMC_ATOM_CAS(_cta, p, cmp, v)
#define atomicCAS_system(p, cmp, v) GPUMC_ATOM_CAS(_sys, p, cmp, v)
#define GPUMC_ATOM_MINMAX(op, p, v)                                         \
  (sizeof(*(p)) == 8                                                        \
       ? (GPUMC_IS_UNSIGNED(p)                                              \
              ? (__typeof__(*(p)))__nvvm_atom_##op##_gen_ull(               \
                    (unsigned long long *)(p), (unsigned long long)(v))     \
              : (__typeof__(*(p)))__nvvm_atom_##op##_gen_ll(                \
                    (long long *)(p), (long long)(v)))                      \
   : GPUMC_IS_UNSIGNED(p)                                                   \
       ? (__typeof__(*(p)))__nvvm_atom_##op##_gen_ui((unsigned *)(p),       \
                                                     (unsigned)(v))         \
       : (__typeof__(*(p)))__nvvm_atom_##op##_gen_i((int *)(p), (int)(v)))
#define atomicMin(p, v) GPUMC_ATOM_MINMAX(min, p, v)
#define atomicMax(p, v) GPUMC_ATOM_MINMAX(max, p, v)
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
