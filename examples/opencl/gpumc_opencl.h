/* gpumc's header for OpenCL C kernels, included before the kernel by
 * `gpumc check kernel.cl` (crates/frontend/src/opencl.rs). Everything here
 * is a macro, so every memory access keeps the kernel's own line.
 *
 * 1. OpenCL 1.x atomic functions (`atomic_add`, `atom_add`, ...): OpenCL
 *    makes them relaxed atomics of the whole device on global memory, but
 *    llvm-spirv 14 translates them with work-group scope
 *    (SPIRV-LLVM-Translator issue #934), which would make two work-groups'
 *    `atomic_add` on one global word a race. Here each is the OpenCL 2.0
 *    explicit function with `memory_order_relaxed` and
 *    `memory_scope_device` (global) or `memory_scope_work_group` (local).
 * 2. GPUVerify's annotations (Betts et al., OOPSLA'12), so that kernels
 *    written for GPUVerify compile: loop invariants and postconditions
 *    are proof hints for GPUVerify and are dropped (gpumc explores every
 *    execution instead); `__assert(c)` is checked (a failing assertion
 *    fails the check, like undefined behaviour); preconditions
 *    (`__requires`, `__assume`) cannot be assumed and are refused by name.
 */
#ifndef GPUMC_OPENCL_H
#define GPUMC_OPENCL_H

/* ---- 1. OpenCL 1.x atomics as relaxed device-scope atomics ---------- */

/* The pointer as a generic pointer to the atomic type of its elements. */
#define __GPUMC_AP(p) _Generic((p), \
    __global int *: (volatile atomic_int *)(p), \
    volatile __global int *: (volatile atomic_int *)(p), \
    __global unsigned int *: (volatile atomic_uint *)(p), \
    volatile __global unsigned int *: (volatile atomic_uint *)(p), \
    __global long *: (volatile atomic_long *)(p), \
    volatile __global long *: (volatile atomic_long *)(p), \
    __global unsigned long *: (volatile atomic_ulong *)(p), \
    volatile __global unsigned long *: (volatile atomic_ulong *)(p), \
    __local int *: (volatile atomic_int *)(p), \
    volatile __local int *: (volatile atomic_int *)(p), \
    __local unsigned int *: (volatile atomic_uint *)(p), \
    volatile __local unsigned int *: (volatile atomic_uint *)(p), \
    __local long *: (volatile atomic_long *)(p), \
    volatile __local long *: (volatile atomic_long *)(p), \
    __local unsigned long *: (volatile atomic_ulong *)(p), \
    volatile __local unsigned long *: (volatile atomic_ulong *)(p))

#define __GPUMC_SCOPE(p) _Generic((p), \
    __local int *: memory_scope_work_group, \
    volatile __local int *: memory_scope_work_group, \
    __local unsigned int *: memory_scope_work_group, \
    volatile __local unsigned int *: memory_scope_work_group, \
    __local long *: memory_scope_work_group, \
    volatile __local long *: memory_scope_work_group, \
    __local unsigned long *: memory_scope_work_group, \
    volatile __local unsigned long *: memory_scope_work_group, \
    default: memory_scope_device)

/* The operand as the element type (an `int` 1 is ambiguous for longs). */
#define __GPUMC_V(p, v) ((__typeof__(*(p) + 0))(v))
#define __GPUMC_RMW(f, p, v) \
    atomic_fetch_##f##_explicit(__GPUMC_AP(p), __GPUMC_V(p, v), memory_order_relaxed, __GPUMC_SCOPE(p))
#define __GPUMC_XCHG(p, v) \
    atomic_exchange_explicit(__GPUMC_AP(p), __GPUMC_V(p, v), memory_order_relaxed, __GPUMC_SCOPE(p))
/* The old value, whether or not the exchange happened. */
#define __GPUMC_CMPXCHG(p, c, v) ({ \
    __typeof__(*(p) + 0) __gpumc_expected = (c); \
    atomic_compare_exchange_strong_explicit(__GPUMC_AP(p), &__gpumc_expected, __GPUMC_V(p, v), \
        memory_order_relaxed, memory_order_relaxed, __GPUMC_SCOPE(p)); \
    __gpumc_expected; })

#define atomic_add(p, v) __GPUMC_RMW(add, p, v)
#define atomic_sub(p, v) __GPUMC_RMW(sub, p, v)
#define atomic_min(p, v) __GPUMC_RMW(min, p, v)
#define atomic_max(p, v) __GPUMC_RMW(max, p, v)
#define atomic_and(p, v) __GPUMC_RMW(and, p, v)
#define atomic_or(p, v) __GPUMC_RMW(or, p, v)
#define atomic_xor(p, v) __GPUMC_RMW(xor, p, v)
#define atomic_inc(p) __GPUMC_RMW(add, p, 1)
#define atomic_dec(p) __GPUMC_RMW(sub, p, 1)
#define atomic_xchg(p, v) __GPUMC_XCHG(p, v)
#define atomic_cmpxchg(p, c, v) __GPUMC_CMPXCHG(p, c, v)
#define atom_add(p, v) __GPUMC_RMW(add, p, v)
#define atom_sub(p, v) __GPUMC_RMW(sub, p, v)
#define atom_min(p, v) __GPUMC_RMW(min, p, v)
#define atom_max(p, v) __GPUMC_RMW(max, p, v)
#define atom_and(p, v) __GPUMC_RMW(and, p, v)
#define atom_or(p, v) __GPUMC_RMW(or, p, v)
#define atom_xor(p, v) __GPUMC_RMW(xor, p, v)
#define atom_inc(p) __GPUMC_RMW(add, p, 1)
#define atom_dec(p) __GPUMC_RMW(sub, p, 1)
#define atom_xchg(p, v) __GPUMC_XCHG(p, v)
#define atom_cmpxchg(p, c, v) __GPUMC_CMPXCHG(p, c, v)

/* ---- 2. GPUVerify's annotations ------------------------------------ */

/* Proof hints: dropped. */
#define __invariant(x) ((void)0)
#define __global_invariant(x) ((void)0)
#define __candidate_invariant(x) ((void)0)
#define __candidate_global_invariant(x) ((void)0)
#define __function_wide_invariant(x) ((void)0)
#define __function_wide_candidate_invariant(x) ((void)0)
#define __ensures(x) ((void)0)
#define __global_ensures(x) ((void)0)
#define __barrier_invariant_1(...) ((void)0)
#define __barrier_invariant_2(...) ((void)0)
#define __barrier_invariant_3(...) ((void)0)
#define __barrier_invariant_4(...) ((void)0)
#define __barrier_invariant_binary_1(...) ((void)0)
#define __barrier_invariant_binary_2(...) ((void)0)
#define __barrier_invariant_binary_3(...) ((void)0)
#define __barrier_invariant_binary_4(...) ((void)0)

/* Assertions: checked. A call of this bodiless function is an assertion
 * failure for gpumc's SPIR-V front-end. */
void __gpumc_assertion_fails(void);
#define __assert(x) ((x) ? (void)0 : __gpumc_assertion_fails())
#define __global_assert(x) __assert(x)
#define __implies(a, b) (!(a) || (b))

/* Preconditions: refused. */
void __gpumc_precondition(void) __attribute__((unavailable(
    "GPUVerify's preconditions (__requires, __assume) are not supported: gpumc checks every input")));
#define __requires(x) __gpumc_precondition()
#define __global_requires(x) __gpumc_precondition()
#define __assume(x) __gpumc_precondition()

#endif
