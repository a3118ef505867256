target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16

declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3) nocapture, i32, i32, i32, i32, i32)
declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1) nocapture, ptr addrspace(3) nocapture, i32, i32, i32)
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()

define amdgpu_kernel void @dma_loop(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  %rsrc = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 0, i64 4294967295, i32 159744)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %toff = shl i32 %tid, 2
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%inext, %loop]
  %acc = phi float [0.0, %entry], [%accn, %loop]
  %voff = add i32 %toff, %i
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc, ptr addrspace(3) @lds_a, i32 16, i32 %voff, i32 0, i32 0, i32 0)
  %pb = getelementptr i8, ptr addrspace(3) @lds_b, i32 %toff
  %v = load float, ptr addrspace(3) %pb
  %accn = fadd float %acc, %v
  call void @llvm.amdgcn.s.barrier()
  %inext = add i32 %i, 256
  %c = icmp slt i32 %inext, %n
  br i1 %c, label %loop, label %exit
exit:
  %po = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %accn, ptr addrspace(1) %po
  ret void
}

define amdgpu_kernel void @global_lds(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pi = getelementptr float, ptr addrspace(1) %in, i32 %tid
  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %pi, ptr addrspace(3) @lds_a, i32 16, i32 0, i32 0)
  %x = load float, ptr addrspace(1) %pi
  %pb = getelementptr float, ptr addrspace(3) @lds_b, i32 %tid
  store float %x, ptr addrspace(3) %pb
  call void @llvm.amdgcn.s.barrier()
  %pa = getelementptr float, ptr addrspace(3) @lds_a, i32 %tid
  %v = load float, ptr addrspace(3) %pa
  %w = load float, ptr addrspace(3) %pb
  %s = fadd float %v, %w
  %po = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %s, ptr addrspace(1) %po
  ret void
}
