#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
extern "C" __device__ int vprintf(const char *, void *);
struct P { int a, b; };
__device__ P mk(int x) { return P{x, x + 1}; }
__device__ int rec(int n) { return n <= 1 ? 1 : n * rec(n - 1); }
typedef int (*fp)(int);
__device__ int twice(int x) { return 2 * x; }
__device__ fp fptr = twice;
__global__ void misc(int *out, long long *ll, float *f, double *d, int sel) {
  int t = __nvvm_read_ptx_sreg_tid_x();
  switch (sel) { case 0: out[t] = 1; break; case 1: out[t] = 7; break; case 2: out[t] = 9; break; case 3: out[t] = 11; break; case 5: out[t] = 13; break; default: out[t] = 0; }
  P p = mk(t);
  out[t + 1] = p.a + p.b + rec(sel);
  __nvvm_atom_add_gen_ll(ll, 5LL);
  __nvvm_atom_add_gen_f(f, 1.0f);
  __nvvm_atom_cta_add_gen_i(out, 1);
  __nvvm_atom_sys_xchg_gen_i(out + 2, 3);
  __nvvm_atom_max_gen_i(out + 3, t);
  d[t] = d[t] * 0.5 + 1e-3;
  unsigned m = 0x80000000u;
  out[t + 4] = __builtin_popcount(m);
  struct { int x; } args = { t };
  vprintf("t=%d\n", &args);
  int local[8];
  for (int i = 0; i < 8; i++) local[i] = out[i] ^ t;
  out[t + 5] = local[sel & 7];
}
