// GPUVerify's assumptions and preconditions, through our header.

// Each work-item writes a[gid * stride]: with stride 0 every work-item
// writes a[0] (a race); the precondition rules that out, and distinct
// work-items write distinct words.
kernel void strided(global int *a, int stride) {
  __requires(stride >= 1);
  a[get_global_id(0) * stride] = 1;
}

// The same without the precondition: stride 0 races at line 16.
kernel void strided_any(global int *a, int stride) {
  a[get_global_id(0) * stride] = 1;
}

// `x == 0` contradicts the assumption, so no work-item writes a[0].
kernel void assumed(global int *a, int x) {
  __assume(x > 3);
  if (x == 0)
    a[0] = get_global_id(0);
}

// A called function's precondition is checked at each call: work-items
// with a global id of 8 or more break it (line 26).
void store(global int *a, int i) {
  __requires(i < 8);
  a[i] = 1;
}
kernel void calls(global int *a) {
  store(a, get_global_id(0));
}

// No `n` meets the precondition: the kernel has no execution.
kernel void vacuous(global int *a, int n) {
  __requires(n > 4 && n < 2);
  a[0] = get_global_id(0);
}

// The sum of two unsigned ints assumed not to overflow is at least both.
kernel void no_overflow(global uint *out, uint x, uint y) {
  uint z = __add_noovfl_unsigned_int(x, y);
  __assert(z >= x && z >= y);
  out[get_global_id(0)] = z;
}
