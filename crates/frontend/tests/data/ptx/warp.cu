#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

typedef float float4v __attribute__((ext_vector_type(4)));
typedef int int2v __attribute__((ext_vector_type(2)));

__device__ unsigned counter;

__device__ inline int warp_sum(int v) {
  for (int d = 16; d > 0; d >>= 1)
    v += __nvvm_shfl_sync_down_i32(0xffffffff, v, d, 31);
  return v;
}

__global__ void vec(const float4v *in, float4v *out, int2v *pairs, long long *wide) {
  unsigned t = __nvvm_read_ptx_sreg_tid_x();
  float4v x = in[t];
  out[t] = x * 2.0f;
  int2v p = pairs[t];
  pairs[t] = p.yx;
  wide[t] = ((long long)p.x << 32) | (unsigned)p.y;
  int s = warp_sum(p.x);
  unsigned b = __nvvm_vote_ballot_sync(0xffffffff, s > 0);
  if (__nvvm_read_ptx_sreg_laneid() == 0)
    __nvvm_atom_add_gen_i((int *)&counter, (int)b);
}

__global__ void fences(unsigned *flag, unsigned *data) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("st.release.sys.global.u32 [%0], %1;" :: "l"(data), "r"(v) : "memory");
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; @p red.global.add.u32 [%1], 1; }" :: "r"(v), "l"(data));
  __nvvm_membar_cta();
  __nvvm_membar_sys();
  if (v == 7) __builtin_trap();
  data[1] = __nvvm_read_ptx_sreg_ctaid_y() + __nvvm_read_ptx_sreg_nctaid_z() + (unsigned)__nvvm_read_ptx_sreg_clock64();
}
