// Each work-item writes p[i], then, after a barrier, its neighbour's
// p[i + 1] (work-items of different work-groups never meet at a barrier,
// so the last of each group leaves it out). The barrier's flags say which
// memory it orders (OpenCL 2.0 C spec 6.13.8): CLK_GLOBAL_MEM_FENCE
// orders the global writes; CLK_LOCAL_MEM_FENCE alone does not, and the
// writes at lines 16 and 19 race.
kernel void global_flag(global int *p) {
  p[get_global_id(0)] = 1;
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) < get_local_size(0) - 1)
    p[get_global_id(0) + 1] = 2;
}

kernel void local_flag(global int *p) {
  p[get_global_id(0)] =
      1;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) < get_local_size(0) - 1)
    p[get_global_id(0) + 1] = 2;
}
