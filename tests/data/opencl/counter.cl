// Work-items of every work-group count with an OpenCL 1.x atomic_inc on
// one global counter (line 6): atomic for every work-item of the device,
// no race (llvm-spirv alone would give it work-group scope, a race
// between work-groups: our header fixes that). `count_plain` uses `++`
// (line 10): a race.
kernel void count(global int *n) { atomic_inc(n); }

kernel void count_plain(global int *n) {
  (*n)
      ++;
}
