; Fuzz find: a raw control byte (0x01) inside a quoted kernel name. The argument domain
; is written as !"llnoalias.args.\01k" (escaped), and a second run looked it up by the
; unescaped name, missed it, and appended a second domain: not idempotent.
target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @"ké"(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %in) {
  %v = load float, ptr addrspace(3) @lds_a, align 4
  store float %v, ptr addrspace(3) @lds_b, align 4
  %w = load float, ptr addrspace(1) %in, align 4
  store float %w, ptr addrspace(1) %out, align 4
  ret void
}
