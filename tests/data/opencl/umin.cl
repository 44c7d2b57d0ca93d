// Unsigned atomic minimum and maximum on local memory (OpAtomicUMin and
// OpAtomicUMax). Work-item 0 offers 0x80000000, the others their id; as
// unsigned numbers the least offer is 1 and the greatest 0x80000000 (as
// signed ones they would be 0x80000000 and the largest id).
kernel void unsigned_order(global uint *out) {
    local uint lo, hi;
    uint l = get_local_id(0);
    if (l == 0) {
        lo = 0xFFFFFFFFu;
        hi = 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint offer = l == 0 ? 0x80000000u : l;
    atomic_min(&lo, offer);
    atomic_max(&hi, offer);
    barrier(CLK_LOCAL_MEM_FENCE);
    // Holds with two work-items or more: no undefined behaviour.
    __assert(lo == 1u && hi == 0x80000000u);
}

// The signed answer asserted instead: fails.
kernel void signed_order(global uint *out) {
    local uint lo;
    uint l = get_local_id(0);
    if (l == 0)
        lo = 0xFFFFFFFFu;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_min(&lo, l == 0 ? 0x80000000u : l);
    barrier(CLK_LOCAL_MEM_FENCE);
    __assert(lo == 0x80000000u);
}
