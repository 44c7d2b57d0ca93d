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
 *    are proof hints for GPUVerify and are not checked (gpumc explores
 *    every execution instead; the report says so); `__assert(c)` is checked (a failing assertion
 *    fails the check, like undefined behaviour); `__assume` and a
 *    kernel's `__requires` are assumed, a called function's `__requires`
 *    checked at the call; what GPUVerify computes from its own
 *    instrumentation (`__read`, `__write`, `__same_group`, ...) is refused
 *    by name.
 * 3. Asynchronous copies (`async_work_group_copy`,
 *    `async_work_group_strided_copy`, `wait_group_events`), written out as
 *    the plain accesses of the work-group that performs them (below).
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
    volatile __local unsigned long *: (volatile atomic_ulong *)(p), \
    __global float *: (volatile atomic_float *)(p), \
    volatile __global float *: (volatile atomic_float *)(p), \
    __local float *: (volatile atomic_float *)(p), \
    volatile __local float *: (volatile atomic_float *)(p))

#define __GPUMC_SCOPE(p) _Generic((p), \
    __local int *: memory_scope_work_group, \
    volatile __local int *: memory_scope_work_group, \
    __local unsigned int *: memory_scope_work_group, \
    volatile __local unsigned int *: memory_scope_work_group, \
    __local long *: memory_scope_work_group, \
    volatile __local long *: memory_scope_work_group, \
    __local unsigned long *: memory_scope_work_group, \
    volatile __local unsigned long *: memory_scope_work_group, \
    __local float *: memory_scope_work_group, \
    volatile __local float *: memory_scope_work_group, \
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

/* Proof hints: loop invariants, barrier invariants and postconditions
 * are not checked (gpumc explores the executions instead of proving
 * them); the report says so (a call of this bodiless function marks
 * them). Houdini's candidates are guesses, dropped silently. */
void __gpumc_unchecked(void);
#define __invariant(x) __gpumc_unchecked()
#define __global_invariant(x) __gpumc_unchecked()
#define __candidate_invariant(x) ((void)0)
#define __candidate_global_invariant(x) ((void)0)
#define __function_wide_invariant(x) __gpumc_unchecked()
#define __function_wide_candidate_invariant(x) ((void)0)
#define __ensures(x) __gpumc_unchecked()
#define __global_ensures(x) __gpumc_unchecked()
#define __barrier_invariant_1(...) __gpumc_unchecked()
#define __barrier_invariant_2(...) __gpumc_unchecked()
#define __barrier_invariant_3(...) __gpumc_unchecked()
#define __barrier_invariant_4(...) __gpumc_unchecked()
#define __barrier_invariant_5(...) __gpumc_unchecked()
#define __barrier_invariant_6(...) __gpumc_unchecked()
#define __barrier_invariant_7(...) __gpumc_unchecked()
#define __barrier_invariant_8(...) __gpumc_unchecked()
#define __barrier_invariant_9(...) __gpumc_unchecked()
#define __barrier_invariant_10(...) __gpumc_unchecked()
#define __barrier_invariant_11(...) __gpumc_unchecked()
#define __barrier_invariant_12(...) __gpumc_unchecked()
#define __barrier_invariant_13(...) __gpumc_unchecked()
#define __barrier_invariant_14(...) __gpumc_unchecked()
#define __barrier_invariant_15(...) __gpumc_unchecked()
#define __barrier_invariant_16(...) __gpumc_unchecked()
#define __barrier_invariant_17(...) __gpumc_unchecked()
#define __barrier_invariant_18(...) __gpumc_unchecked()
#define __barrier_invariant_19(...) __gpumc_unchecked()
#define __barrier_invariant_20(...) __gpumc_unchecked()
#define __barrier_invariant_21(...) __gpumc_unchecked()
#define __barrier_invariant_22(...) __gpumc_unchecked()
#define __barrier_invariant_23(...) __gpumc_unchecked()
#define __barrier_invariant_24(...) __gpumc_unchecked()
#define __barrier_invariant_25(...) __gpumc_unchecked()
#define __barrier_invariant_26(...) __gpumc_unchecked()
#define __barrier_invariant_27(...) __gpumc_unchecked()
#define __barrier_invariant_28(...) __gpumc_unchecked()
#define __barrier_invariant_29(...) __gpumc_unchecked()
#define __barrier_invariant_30(...) __gpumc_unchecked()
#define __barrier_invariant_31(...) __gpumc_unchecked()
#define __barrier_invariant_32(...) __gpumc_unchecked()
#define __barrier_invariant_binary_1(...) __gpumc_unchecked()
#define __barrier_invariant_binary_2(...) __gpumc_unchecked()
#define __barrier_invariant_binary_3(...) __gpumc_unchecked()
#define __barrier_invariant_binary_4(...) __gpumc_unchecked()
#define __barrier_invariant_binary_5(...) __gpumc_unchecked()
#define __barrier_invariant_binary_6(...) __gpumc_unchecked()
#define __barrier_invariant_binary_7(...) __gpumc_unchecked()
#define __barrier_invariant_binary_8(...) __gpumc_unchecked()
#define __barrier_invariant_binary_9(...) __gpumc_unchecked()
#define __barrier_invariant_binary_10(...) __gpumc_unchecked()
#define __barrier_invariant_binary_11(...) __gpumc_unchecked()
#define __barrier_invariant_binary_12(...) __gpumc_unchecked()
#define __barrier_invariant_binary_13(...) __gpumc_unchecked()
#define __barrier_invariant_binary_14(...) __gpumc_unchecked()
#define __barrier_invariant_binary_15(...) __gpumc_unchecked()
#define __barrier_invariant_binary_16(...) __gpumc_unchecked()
#define __barrier_invariant_binary_17(...) __gpumc_unchecked()
#define __barrier_invariant_binary_18(...) __gpumc_unchecked()
#define __barrier_invariant_binary_19(...) __gpumc_unchecked()
#define __barrier_invariant_binary_20(...) __gpumc_unchecked()
#define __barrier_invariant_binary_21(...) __gpumc_unchecked()
#define __barrier_invariant_binary_22(...) __gpumc_unchecked()
#define __barrier_invariant_binary_23(...) __gpumc_unchecked()
#define __barrier_invariant_binary_24(...) __gpumc_unchecked()
#define __barrier_invariant_binary_25(...) __gpumc_unchecked()
#define __barrier_invariant_binary_26(...) __gpumc_unchecked()
#define __barrier_invariant_binary_27(...) __gpumc_unchecked()
#define __barrier_invariant_binary_28(...) __gpumc_unchecked()
#define __barrier_invariant_binary_29(...) __gpumc_unchecked()
#define __barrier_invariant_binary_30(...) __gpumc_unchecked()
#define __barrier_invariant_binary_31(...) __gpumc_unchecked()
#define __barrier_invariant_binary_32(...) __gpumc_unchecked()

/* Assertions: checked. A call of this bodiless function is an assertion
 * failure for gpumc's SPIR-V front-end. */
void __gpumc_assertion_fails(void);
#define __assert(x) ((x) ? (void)0 : __gpumc_assertion_fails())
#define __global_assert(x) __assert(x)
#define __implies(a, b) (!(a) || (b))

/* Assumptions and preconditions. `__assume(c)`: an execution in which c
 * is 0 there is not an execution of the program. `__requires(c)`: the
 * kernel's own preconditions are assumed (nobody calls the kernel but the
 * launch); a called function's are checked at each call (undefined
 * behaviour when they fail), as GPUVerify checks a procedure's
 * preconditions at its call sites. The SPIR-V front-end tells them apart. */
void __gpumc_assume(int);
void __gpumc_requires(int);
void __gpumc_global_requires(int);
#define __assume(x) __gpumc_assume((x) ? 1 : 0)
#define __requires(x) __gpumc_requires((x) ? 1 : 0)
/* On the kernel, as `__requires`; in a called function GPUVerify makes it
 * hold for threads that do not call the function too, which gpumc refuses. */
#define __global_requires(x) __gpumc_global_requires((x) ? 1 : 0)
/* A thread that runs the code is enabled: gpumc runs real control flow,
 * not GPUVerify's predicated form. */
#define __enabled() 1

/* Additions assumed not to overflow (GPUVerify's `__add_noovfl_*`): the
 * sum, in executions where it does not overflow. `__add_noovfl(a, b, ...)`
 * of unsigned ints: whether their sum does not overflow. */
#define __add_noovfl_unsigned_int(a, b) ({ \
    unsigned int __gpumc_a = (a), __gpumc_b = (b); \
    __assume(__gpumc_a + __gpumc_b >= __gpumc_a); \
    __gpumc_a + __gpumc_b; })
#define __add_noovfl_int(a, b) ({ \
    int __gpumc_a = (a), __gpumc_b = (b); \
    __assume(__gpumc_b >= 0 ? __gpumc_a <= INT_MAX - __gpumc_b \
                            : __gpumc_a >= INT_MIN - __gpumc_b); \
    __gpumc_a + __gpumc_b; })
#define __GPUMC_SUM2(a, b) ((ulong)(uint)(a) + (ulong)(uint)(b))
#define __GPUMC_SUM3(a, b, c) (__GPUMC_SUM2(a, b) + (ulong)(uint)(c))
#define __GPUMC_SUM4(a, b, c, d) (__GPUMC_SUM3(a, b, c) + (ulong)(uint)(d))
#define __GPUMC_SUM_N(_1, _2, _3, _4, NAME, ...) NAME
#define __add_noovfl(...) \
    (__GPUMC_SUM_N(__VA_ARGS__, __GPUMC_SUM4, __GPUMC_SUM3, __GPUMC_SUM2, )(__VA_ARGS__) <= UINT_MAX)

/* A fresh array (aliasing no other): every pointer argument is one
 * already (gpumc gives each its own buffer). */
#define __requires_fresh_array(p) ((void)0)

/* GPUVerify's access predicates: has this work-item recorded a read
 * (write) of the array p since the last barrier, and at which byte offset;
 * GPUVerify records each access or not, nondeterministically, and an
 * assertion must hold for every choice (docs/OPENCL.md). And the byte
 * offset of a pointer into its array. */
int __gpumc_access_log(int what, const volatile void *p);
#define __read(p) __gpumc_access_log(0, (p))
#define __write(p) __gpumc_access_log(1, (p))
#define __no_read(p) (!__read(p))
#define __no_write(p) (!__write(p))
#define __read_offset_bytes(p) __gpumc_access_log(2, (p))
#define __write_offset_bytes(p) __gpumc_access_log(3, (p))
#define __read_implies(p, e) (!__read(p) || (e))
#define __write_implies(p, e) (!__write(p) || (e))
#define __ptr_offset_bytes(p) __gpumc_access_log(4, (p))

/* What GPUVerify computes from its own instrumentation (which accesses a
 * thread made, pointer bases and offsets, the other thread of its
 * two-thread abstraction) or supplies by axioms (uninterpreted functions):
 * refused by name, at the kernel's line. */
#define __GPUMC_REFUSED(what) __attribute__((unavailable( \
    "GPUVerify's " what " is not supported by gpumc")))
#define __GPUMC_REFUSED_GPUMC(what) __attribute__((unavailable( \
    what " is not supported by gpumc")))
int __gpumc_ptr_base(void) __GPUMC_REFUSED("pointer base `__ptr_base`");
int __gpumc_read_permission(void) __GPUMC_REFUSED("`__read_permission`");
int __gpumc_write_permission(void) __GPUMC_REFUSED("`__write_permission`");
int __gpumc_writes_to(void) __GPUMC_REFUSED("`__writes_to`");
int __gpumc_reads_from(void) __GPUMC_REFUSED("`__reads_from`");
int __gpumc_array_snapshot(void) __GPUMC_REFUSED("`__array_snapshot`");
int __gpumc_same_group(void) __GPUMC_REFUSED("two-thread predicate `__same_group`");
int __gpumc_other(void) __GPUMC_REFUSED("two-thread function `__other_*`");
int __gpumc_uniform(void) __GPUMC_REFUSED("two-thread predicate `__uniform_*`");
int __gpumc_distinct(void) __GPUMC_REFUSED("two-thread predicate `__distinct_*`");
int __gpumc_all(void) __GPUMC_REFUSED("two-thread predicate `__all`");
int __gpumc_exclusive(void) __GPUMC_REFUSED("two-thread predicate `__exclusive`");
int __gpumc_at_most_one(void) __GPUMC_REFUSED("two-thread predicate `__at_most_one`");
#define __ptr_base(p) __gpumc_ptr_base()
#define __read_permission(...) __gpumc_read_permission()
#define __write_permission(...) __gpumc_write_permission()
#define __writes_to(p) __gpumc_writes_to()
#define __reads_from(p) __gpumc_reads_from()
#define __array_snapshot(a, b) __gpumc_array_snapshot()
#define __same_group __gpumc_same_group()
#define __other_int(x) __gpumc_other()
#define __other_bool(x) __gpumc_other()
#define __uniform_int(x) __gpumc_uniform()
#define __uniform_bool(x) __gpumc_uniform()
#define __distinct_int(x) __gpumc_distinct()
#define __all(x) __gpumc_all()
#define __exclusive(x) __gpumc_exclusive()
#define __at_most_one(x) __gpumc_at_most_one()
#define DECLARE_UF_UNARY(name, t1, tr) tr name(t1) __GPUMC_REFUSED( \
    "uninterpreted function (`DECLARE_UF_UNARY`, defined by axioms)")
#define DECLARE_UF_BINARY(name, t1, t2, tr) tr name(t1, t2) __GPUMC_REFUSED( \
    "uninterpreted function (`DECLARE_UF_BINARY`, defined by axioms)")

/* ---- 3. Asynchronous work-group copies ---------------------------- */

/* OpenCL C 2.0 (6.13.10): the work-items of a work-group copy together,
 * asynchronously; every work-item must reach the call (and the wait) with
 * the same arguments, and which work-item moves which element is not
 * said. Here the copy happens at the call, each element moved by a
 * work-item other than the one of its own index (element k by local id
 * (k + d) mod L, d in 1..L-1 taken from the call's line, so two calls on
 * different lines pair elements with different work-items): a kernel
 * that reads an element before a barrier orders the copy — with or
 * without `wait_group_events`, which completes the copy but orders
 * nothing between work-items — races, as GPUVerify reports it. The call
 * and the wait are reached by the whole work-group: each starts with a
 * barrier without memory flags (it orders no memory), so reaching one
 * non-uniformly is barrier divergence. What the copy does not model: its
 * accesses happen at the call, not anywhere up to the wait, so a copy
 * that a barrier orders before its wait is taken as done. The event is
 * the null event; the report says how the copy is modelled (a call of the
 * bodiless `__gpumc_async_copy` marks it). */
void __gpumc_async_copy(void);
#define __GPUMC_COPY(dst, src, num) ({ \
    barrier(0); \
    __gpumc_async_copy(); \
    __typeof__(&(dst)[0]) __gpumc_d = &(dst)[0]; \
    __typeof__(&(src)[0]) __gpumc_s = &(src)[0]; \
    size_t __gpumc_n = (num); \
    size_t __gpumc_L = get_local_size(0) * get_local_size(1) * get_local_size(2); \
    size_t __gpumc_off = __gpumc_L > 1 ? 1 + (size_t)__LINE__ % (__gpumc_L - 1) : 0; \
    for (size_t __gpumc_k = (get_local_linear_id() + __gpumc_L - __gpumc_off) % __gpumc_L; \
         __gpumc_k < __gpumc_n; __gpumc_k += __gpumc_L) \
        __gpumc_d[__gpumc_k] = __gpumc_s[__gpumc_k]; \
    (event_t)0; })
#define async_work_group_copy(dst, src, num, event) \
    ((void)(event), __GPUMC_COPY(dst, src, num))
/* Strided copies (the stride applies to the global side, whichever it
 * is) are refused by name. */
int __gpumc_strided_copy(void) __GPUMC_REFUSED_GPUMC("`async_work_group_strided_copy`");
#define async_work_group_strided_copy(dst, src, num, stride, event) __gpumc_strided_copy()
#define wait_group_events(num, list) \
    ((void)(num), (void)(list), barrier(0))

#endif
