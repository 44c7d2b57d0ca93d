// reduce.cl without the barrier inside the loop: work-item l reads
// tile[l + s] (line 13) while work-item l + s may still write it
// (line 15) in the step before. A read-write race on local memory.
kernel void reduce(global const int *in, global int *out, local int *tile) {
  size_t l = get_local_id(0);
  tile[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) {
      int a = tile[l];
      int b =
          tile[l + s];
      int sum = a + b;
      tile[l] = sum;
    }
  }
  if (l == 0)
    out[get_group_id(0)] = tile[0];
}
