target triple = "amdgcn-amd-amdhsa"
@lds_a = external addrspace(3) global [0 x i8], align 16
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.global.load.async.to.lds.b128(ptr addrspace(1), ptr addrspace(3), i32, i32)
declare void @llvm.amdgcn.global.load.async.to.lds.b32(ptr addrspace(1), ptr addrspace(3), i32, i32)
declare void @llvm.amdgcn.s.wait.asynccnt(i16)
define amdgpu_kernel void @async_copy(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pi = getelementptr <4 x float>, ptr addrspace(1) %in, i32 %tid
  %pa = getelementptr <4 x float>, ptr addrspace(3) @lds_a, i32 %tid
  call void @llvm.amdgcn.global.load.async.to.lds.b128(ptr addrspace(1) %pi, ptr addrspace(3) %pa, i32 0, i32 0)
  call void @llvm.amdgcn.global.load.async.to.lds.b32(ptr addrspace(1) %pi, ptr addrspace(3) %pa, i32 16, i32 0)
  call void @llvm.amdgcn.s.wait.asynccnt(i16 0)
  %v = load <4 x float>, ptr addrspace(3) %pa
  %po = getelementptr <4 x float>, ptr addrspace(1) %out, i32 %tid
  store <4 x float> %v, ptr addrspace(1) %po
  ret void
}
