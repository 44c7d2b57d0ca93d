// Message passing between two work-items (litmus-style tests of the
// `opencl` model): work-item 0 of the launch writes `data` (a plain
// store), then sets `flag`; the last work-item reads `flag` and, if set,
// `data`. Launched with one work-item per work-group (--block 1 --grid 2)
// the two are in different work-groups; with --block 2 --grid 1, in one.
//
// mp_device: release/acquire at device scope synchronise: no race (the
//   plain accesses at lines 14 and 19 are ordered by happens-before).
// mp_relaxed: relaxed atomics do not: the plain accesses race.
// mp_work_group: release/acquire at work-group scope synchronise only
//   within a work-group: a race across work-groups, none within one.
#define MP(name, store_order, load_order, scope)                          \
  kernel void name(global int *data, global atomic_int *flag) {          \
    if (get_global_id(0) == 0) {                                         \
      *data = 1;                                                         \
      atomic_store_explicit(flag, 1, store_order, scope);                \
    } else if (get_global_id(0) == get_global_size(0) - 1) {             \
      if (atomic_load_explicit(flag, load_order, scope) == 1) {          \
        int r = *data;                                                   \
        (void)r;                                                         \
      }                                                                  \
    }                                                                    \
  }
MP(mp_device, memory_order_release, memory_order_acquire, memory_scope_device)
MP(mp_relaxed, memory_order_relaxed, memory_order_relaxed, memory_scope_device)
MP(mp_work_group, memory_order_release, memory_order_acquire, memory_scope_work_group)
