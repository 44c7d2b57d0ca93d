// Functions declared without a body (GPUVerify's `nondet()` idiom): each
// call returns an arbitrary value and is assumed to access no memory.
int nondet(void);
uint pick(uint a, uint b);

// The index is arbitrary: two work-items may write one element (line 10).
kernel void arbitrary_index(global int *out) {
    uint i = get_global_id(0);
    uint k = (uint)nondet();
    out[k % 64] = (int)i;
}

// Nothing says the result is one of the arguments: the assertion on
// line 19 may fail.
kernel void unknown_result(global int *out, uint a, uint b) {
    uint i = get_global_id(0);
    uint z = pick(a, b);
    out[i] = (int)z;
    __assert(z == a || z == b);
}

// A pointer the function returns names no object gpumc knows: refused.
global int *locate(global int *base);
kernel void returned_pointer(global int *out) {
    global int *p = locate(out);
    p[get_global_id(0)] = 1;
}
