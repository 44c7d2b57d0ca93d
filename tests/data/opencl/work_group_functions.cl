// OpenCL C 2.0 work-group functions: every work-item gets the group's
// reduction, scan and broadcast, as the specification defines them, so a
// result that decides who writes decides it the same way everywhere.
// They order no memory (unlike barrier()). Written for gpumc's tests
// (tests/opencl_source.rs); compiled with -cl-std=CL2.0.

// One writer per group: the work-item whose prefix reaches the total.
// The exclusive scan and the reduction agree, so exactly one work-item
// of a group with a positive total writes its group's cell.
kernel void last_positive(global const int *in, global int *out) {
  int v = in[get_global_id(0)] > 0 ? 1 : 0;
  int before = work_group_scan_exclusive_add(v);
  int total = work_group_reduce_add(v);
  if (v == 1 && before == total - 1)
    out[get_group_id(0)] = total;
}

// Every work-item with a positive input writes the group's cell: a race
// as soon as two inputs are positive.
kernel void all_positive_write(global const int *in, global int *out) {
  int v = in[get_global_id(0)] > 0 ? 1 : 0;
  int total = work_group_reduce_add(v);
  if (v == 1)
    out[get_group_id(0)] = total;
}

// The group's maximum, broadcast from work-item 0: each work-item
// writes its own cell with values every work-item agrees on.
kernel void broadcast_max(global const int *in, global int *out) {
  int m = work_group_reduce_max(in[get_global_id(0)]);
  int first = work_group_broadcast(in[get_global_id(0)], 0);
  out[get_global_id(0)] = m - first;
}

// Inclusive scan as an index: distinct per work-item where every input
// is 1 (assumed), so the writes never meet.
kernel void scan_index(global const int *in, global int *out) {
  int one = 1;
  int at = work_group_scan_inclusive_add(one);
  out[get_group_id(0) * get_local_size(0) + at - 1] = in[get_global_id(0)];
}

// A work-group function is no barrier: the write of the neighbour's
// local cell is not ordered before the read.
kernel void no_barrier(global int *out, local int *tile) {
  size_t l = get_local_id(0);
  tile[l] = (int)l;
  int any = work_group_any(l == 0);
  out[get_global_id(0)] = tile[(l + 1) % get_local_size(0)] + any;
}

// Only the work-items below 2 reach the reduction: undefined behaviour
// (every work-item of the group must reach it).
kernel void divergent(global int *out) {
  size_t l = get_local_id(0);
  if (l < 2)
    out[get_global_id(0)] = work_group_reduce_min((int)l);
}

// The values themselves: every state must show the definitions
// (tests/opencl_source.rs checks each listed state).
kernel void values(global const int *in, global int *out) {
  size_t g = get_global_id(0);
  int x = in[g];
  out[7 * g + 0] = work_group_reduce_add(x);
  out[7 * g + 1] = work_group_scan_inclusive_min(x);
  out[7 * g + 2] = work_group_scan_exclusive_add(x);
  out[7 * g + 3] = work_group_reduce_max(x);
  out[7 * g + 4] = work_group_broadcast(x, 1);
  out[7 * g + 5] = work_group_all(x > 0) + 2 * work_group_any(x > 0);
  out[7 * g + 6] = (int)work_group_scan_exclusive_max((uint)x);
}

// A broadcast from a local id read from memory: one outside the group is
// undefined behaviour, and `in[0]` may hold one.
kernel void broadcast_outside(global const int *in, global int *out) {
  out[get_global_id(0)] = work_group_broadcast(in[get_global_id(0)], (size_t)in[0]);
}
