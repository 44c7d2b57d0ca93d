// A tree reduction in local memory, as OpenCL samples write it. Each
// step's reads (line 14) and writes (line 15) are separated from the
// other work-items' by the barrier at line 16, whose
// CLK_LOCAL_MEM_FENCE covers the local memory: race-free.
// gpumc check reduce.cl --local_size=256 --num_groups=1024 --property races: PASS
kernel void reduce(global const int *in, global int *out, local int *tile) {
  size_t l = get_local_id(0);
  tile[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) {
      int a = tile[l];
      int b = tile[l + s];
      int sum = a + b;
      tile[l] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    out[get_group_id(0)] = tile[0];
}
