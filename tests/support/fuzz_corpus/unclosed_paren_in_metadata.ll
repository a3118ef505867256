; Fuzz find: a metadata line with a '(' that is never closed swallowed every line after
; it (the parser joined lines until the brackets balanced), the metadata llnoalias
; appended included, so a second run appended its domain and scopes again.
; Now: "unbalanced brackets" error (exit 2).
target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @k(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %in) {
  %v = load float, ptr addrspace(3) @lds_a, align 4, !dbg !5
  store float %v, ptr addrspace(3) @lds_b, align 4
  %w = load float, ptr addrspace(1) %in, align 4
  store float %w, ptr addrspace(1) %out, align 4
  ret void
}

!1 = distinct !DIGlobalVariable(name: "As", isLocal: true, isDefinition: true(
!2 = !DIFile(filename: "k.hip", directory: ".")
!5 = !DILocation(line: 3, column: 1, scope: !2)
