// A struct passed by value is the work-item's own copy: C lets a function
// write its parameters, and no other work-item sees the writes.
struct pair {
    int a;
    int b;
};

// Each work-item writes its own copy, then its own element: no race, and
// the copy keeps what this work-item wrote (the assertion holds).
kernel void own_copy(global int *out, struct pair q) {
    uint i = get_global_id(0);
    q.a = (int)i;
    barrier(CLK_GLOBAL_MEM_FENCE);
    __assert(q.a == (int)i);
    out[i] = q.a + q.b;
}

// Every work-item writes the element the argument names: a race on
// line 22.
kernel void shared_index(global int *out, struct pair q) {
    q.b = (int)get_global_id(0);
    out[q.a] = q.b;
}
