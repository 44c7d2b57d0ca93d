#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))

__device__ int g = 0;
__constant__ int c[4] = {1, 2, 3, 4};
__device__ int *gp = &g;

__device__ __attribute__((noinline)) int add2(int a, int b) { return a + b + c[a & 3]; }

__global__ void mp_writer(volatile int *data, volatile int *flag) {
  data[0] = 42;
  __nvvm_membar_gl();
  flag[0] = 1;
}

__global__ void mp_reader(volatile int *data, volatile int *flag, int *out) {
  int f;
  while ((f = flag[0]) == 0) {}
  __nvvm_membar_gl();
  out[__nvvm_read_ptx_sreg_tid_x()] = data[0] + f;
}

__global__ void shared_k(int *out, int n) {
  __shared__ int s[64];
  extern __shared__ int dyn[];
  unsigned t = __nvvm_read_ptx_sreg_tid_x();
  s[t] = t;
  dyn[t] = n;
  __syncthreads();
  int acc = 0;
  for (int i = 0; i < n; i++) {
    acc = add2(acc, s[(t + i) & 63]);
  }
  out[t + __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x()] = acc + dyn[0];
}

__global__ void atomics(int *p, int *q) {
  int old = __nvvm_atom_add_gen_i(p, 1);
  int prev = __nvvm_atom_cas_gen_i(q, 0, old);
  int v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
  g = v + prev + *gp;
}

struct S { int a; long b; };
__device__ __attribute__((noinline)) long sfun(struct S s, int *arr) { int loc[4]; for (int i = 0; i < 4; i++) loc[i] = arr[i] + s.a; return loc[s.a & 3] + s.b; }

__global__ void byval(struct S s, int *arr, long *out) {
  float f = (float)s.a * 1.5f;
  double d = (double)s.b / 3.0;
  out[0] = sfun(s, arr) + (long)f + (long)d;
}
