// Bit intrinsics of values read from memory (computed at run time):
// their results, listed as states, are compared with their definitions
// by tests/cuda_source.rs.
__global__ void bits(const unsigned *in, int *out) {
  unsigned v = in[0];
  long long s = (int)in[1];
  out[0] = v; out[1] = __popc(v); out[2] = __clz(v); out[3] = __brev(v); out[4] = __ffs(v);
  out[5] = (int)s; out[6] = __clzll(s); out[7] = __popcll(s); out[8] = __ffsll(s);
  out[9] = 31 - __clz(v);
}
