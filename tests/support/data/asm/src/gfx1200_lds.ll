target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()

define amdgpu_kernel void @copy_through_lds(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pi = getelementptr float, ptr addrspace(1) %in, i32 %tid
  %x = load float, ptr addrspace(1) %pi
  %pa = getelementptr float, ptr addrspace(3) @lds_a, i32 %tid
  store float %x, ptr addrspace(3) %pa
  call void @llvm.amdgcn.s.barrier()
  %t2 = xor i32 %tid, 1
  %pb = getelementptr float, ptr addrspace(3) @lds_a, i32 %t2
  %v = load float, ptr addrspace(3) %pb
  %po = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %v, ptr addrspace(1) %po
  %x2 = load float, ptr addrspace(1) %po
  %s = fadd float %x2, %v
  %pc = getelementptr float, ptr addrspace(3) @lds_b, i32 %tid
  store float %s, ptr addrspace(3) %pc
  ret void
}

define amdgpu_kernel void @reduce(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pi = getelementptr float, ptr addrspace(1) %in, i32 %tid
  %x = load float, ptr addrspace(1) %pi
  %pa = getelementptr float, ptr addrspace(3) @lds_a, i32 %tid
  %y = load float, ptr addrspace(3) %pa
  %s = fadd float %x, %y
  store float %s, ptr addrspace(1) %pi
  ret void
}
