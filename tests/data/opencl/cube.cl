// Three-dimensional launches with more work-items in all than a 32-bit
// count holds (64^3 work-items per work-group, 64^3 work-groups: 2^36).
// Each id stays below 2^31, so the two-work-item engine takes them.

// Each work-item of a group writes its own cell of the group's cube, and
// its own element of `out` (the global ids, linearised in 64 bits): PASS.
__kernel void cube(__global int *out) {
  __local int A[64][64][64];
  A[get_local_id(2)][get_local_id(1)][get_local_id(0)] = get_local_id(0);
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  out[x + get_global_size(0) * (y + get_global_size(1) * z)] = (int)get_work_dim();
}

// The y coordinate dropped: work-items (x, 0, z) and (x, 1, z) of one
// group write one cell (line 18): FAIL.
__kernel void flat(__global int *out) {
  __local int A[64][64][64];
  A[get_local_id(2)][0][get_local_id(0)] = get_local_id(0);
}

// Work dimensions are 3 (a failing assertion is undefined behaviour).
__kernel void dims(__global int *out) {
  __assert(get_work_dim() == 3);
  __assert(get_global_size(0) == 4096 && get_local_size(2) == 64);
  __assert(get_global_linear_id() < 68719476736UL);
}
