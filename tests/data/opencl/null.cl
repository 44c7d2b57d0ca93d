// Null and undefined pointers. An access through the null pointer, at any
// offset, is undefined behaviour; a pointer converts to an integer that
// is 0 exactly for the null pointer.

// The null pointer is chosen only when `use_null` is set: then the store
// on line 12 goes through it (undefined behaviour reported at line 12).
kernel void maybe_null(global int *out, int use_null) {
    global int *p = out;
    if (use_null)
        p = 0;
    uint i = get_global_id(0);
    p[i] = 1;
}

// Comparing with NULL decides which branch runs: `out` is never null, so
// each work-item writes its own element and nothing races.
kernel void compare_with_null(global int *out) {
    global int *p = out;
    uint i = get_global_id(0);
    if (p == 0)
        out[0] = (int)i;
    else
        out[i] = (int)i;
}

// The same comparison with the null pointer chosen: every work-item then
// writes out[0] (line 35), a race.
kernel void null_chosen(global int *out, int k) {
    global int *p = out;
    if (k == 0)
        p = 0;
    uint i = get_global_id(0);
    if (p != 0)
        out[i] = 1;
    else
        out[0] = (int)i;
}

// Pointer arithmetic on the null pointer stays off every object: the
// load on line 45 is undefined behaviour wherever it reads.
kernel void null_plus_offset(global int *out) {
    global int *p = 0;
    uint i = get_global_id(0);
    p += i + 3;
    out[i] = *p;
}

// An uninitialised pointer may hold any address: the assertion on line 52
// may fail.
kernel void undefined_pointer(global int *out) {
    global int *p;
    __assert(p == 0);
    out[get_global_id(0)] = 1;
}
