// A tiled transpose on a two-dimensional launch (work-groups of
// TILE × TILE work-items): each work-item copies one element into the
// work-group's tile, the barrier at line 13 orders the copies before the
// reads, and each work-item writes one element of the output. Race-free.
#define TILE 16
kernel void transpose(global const int *in, global int *out, int n) {
  local int tile[TILE][TILE];
  size_t lx = get_local_id(0), ly = get_local_id(1);
  size_t gx = get_group_id(0), gy = get_group_id(1);
  size_t w = get_global_size(0);
  __requires(n == w && w == get_global_size(1));
  tile[ly][lx] = in[(gy * TILE + ly) * w + gx * TILE + lx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[(gx * TILE + ly) * w + gy * TILE + lx] = tile[lx][ly];
}

// Without the barrier: the read at line 25 races with another work-item's
// write at line 24.
kernel void transpose_no_barrier(global const int *in, global int *out) {
  local int tile[TILE][TILE];
  size_t lx = get_local_id(0), ly = get_local_id(1);
  size_t gx = get_group_id(0), gy = get_group_id(1);
  size_t w = get_global_size(0);
  tile[ly][lx] = in[(gy * TILE + ly) * w + gx * TILE + lx];
  out[(gx * TILE + ly) * w + gy * TILE + lx] = tile[lx][ly];
}

// Every id of a 2 × 2 work-group in a grid of 1 × 2 work-groups, written
// where the global ids say: the final state shows the numbering.
kernel void ids(global int *a) {
  size_t x = get_global_id(0), y = get_global_id(1);
  a[y * get_global_size(0) + x] =
      get_local_id(1) * 100 + get_group_id(1) * 10 + get_work_dim();
}
