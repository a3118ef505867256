// The README's HIP example: four rows scaled by weights staged in a __shared__ tile.
// Builds with Debian's clang-19 alone, no ROCm install:
//   clang-19 -x hip --cuda-device-only -nogpulib -nogpuinc --offload-arch=gfx942 \
//     -O3 -S -emit-llvm scale.hip -o scale.ll
// (-nogpuinc leaves out hip_runtime.h: the macros below are all it needs from it).
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define threadIdx_x __builtin_amdgcn_workitem_id_x()
#define blockIdx_x __builtin_amdgcn_workgroup_id_x()
#define __syncthreads()                                   \
  (__builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"), \
   __builtin_amdgcn_s_barrier(),                          \
   __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"))

extern "C" __global__ void scale4(float *out, const float *in, const float *w, int n) {
  __shared__ float tile[256];  // a static tile: --lds all would give it a scope
  unsigned t = threadIdx_x;
  unsigned i = blockIdx_x * 256 + t;
  tile[t] = w[t];
  __syncthreads();
  for (int r = 0; r < 4; ++r)  // without noalias each load waits for the store before it
    out[i + r * n] = in[i + r * n] * tile[(t + r) & 255];
}
