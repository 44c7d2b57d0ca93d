// A barrier only the first half of a work-group reaches (line 7):
// barrier divergence, undefined behaviour (OpenCL 2.0 C spec 6.13.8: all
// work-items of a work-group must execute the barrier). `uniform` calls
// it in every work-item: no divergence.
kernel void divergent(global int *p) {
  if (get_local_id(0) < get_local_size(0) / 2)
    barrier(CLK_GLOBAL_MEM_FENCE);
  p[get_global_id(0)] = 1;
}

kernel void uniform(global int *p) {
  if (get_local_id(0) < get_local_size(0) / 2)
    p[get_global_id(0)] = 0;
  barrier(CLK_GLOBAL_MEM_FENCE);
  p[get_global_id(0)] = 1;
}
