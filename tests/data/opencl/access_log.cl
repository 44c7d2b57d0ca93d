// GPUVerify's access predicates: what a work-item has read or written
// since its last barrier. Each access may or may not be recorded, and an
// assertion must hold whatever is recorded.

// A read of q happened: `!__read(q)` fails (line 9).
kernel void read_then_none(global int *p, global int *q) {
    uint i = get_global_id(0);
    p[i] = q[i];
    __assert(!__read(q));
}

// p is written, never read; every write is at this work-item's offset;
// a pointer two elements in is 8 bytes past its array's start.
kernel void own_offsets(global int *p, global int *q) {
    uint i = get_global_id(0);
    p[i] = q[i];
    __assert(!__read(p));
    __assert(__write_implies(p, __write_offset_bytes(p) == i * sizeof(int)));
    __assert(__read_implies(q, __read_offset_bytes(q) == i * sizeof(int)));
    __assert(__ptr_offset_bytes(p + 2) == 8);
}

// A barrier clears the records: nothing is written after it.
kernel void barrier_clears(global int *p) {
    uint i = get_global_id(0);
    p[i] = 1;
    barrier(CLK_GLOBAL_MEM_FENCE);
    __assert(!__write(p));
}

// Two writes: either may be the recorded one, so claiming the first's
// offset fails (line 37).
kernel void either_write(global int *p) {
    uint i = get_global_id(0);
    p[2 * i] = 1;
    p[2 * i + 1] = 2;
    __assert(__write_implies(p, __write_offset_bytes(p) == 8 * i));
}

// Writes in a loop, all within this work-item's four elements.
kernel void loop_writes(global int *p) {
    uint i = get_global_id(0);
    for (int k = 0; k < 4; k++)
        p[4 * i + k] = k;
    __assert(__write_implies(p, __write_offset_bytes(p) < 16 * (i + 1)));
    __assert(__write_implies(p, __write_offset_bytes(p) >= 16 * i));
}
