// GPUVerify's `__assert` (our header checks it): the counter read by
// atomic_inc (line 6) is 0 only in the first work-item to arrive, so the
// assertion at line 7 fails in the others.
kernel void first(global int *next) {
  if (get_local_id(0) == 0) {
    int k = atomic_inc(next);
    __assert(k == 0);
  }
}
