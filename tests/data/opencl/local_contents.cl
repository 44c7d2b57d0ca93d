// Local memory nobody writes starts arbitrary, a copy per work-group:
// two reads of one element in one work-group agree, two elements need not.

// The element read twice: the assertion holds.
kernel void reread(local int *A, global int *out) {
    uint l = get_local_id(0);
    int a = A[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    __assert(A[l] == a);
    out[get_global_id(0)] = a;
}

// Another work-item's element may differ: the assertion on line 16 fails.
kernel void neighbour(local int *A, global int *out) {
    uint l = get_local_id(0);
    __assert(A[l] == A[0]);
    out[get_global_id(0)] = A[l];
}
