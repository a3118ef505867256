// The README's CUDA example: out[i] += a[j*n+i] * s[j] over j.
// Builds with Debian's clang-19 alone, no CUDA install:
//   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 \
//     -Wno-unknown-cuda-version -O3 -S -emit-llvm accum.cu -o accum.ll
// (-nocudainc leaves out cuda_runtime.h: the two macros below are all it needs from it).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

static __device__ unsigned global_id() {
  return __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
         __nvvm_read_ptx_sreg_tid_x();
}

extern "C" __global__ void accum(float *out, const float *a, const float *s, int n, int k) {
  unsigned i = global_id();
  if (i >= (unsigned)n)
    return;
  for (int j = 0; j < k; ++j)
    out[i] += a[(long)j * n + i] * s[j];  // without noalias: out[i] stored every j
}
