target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

@smem = internal addrspace(3) global [256 x float] undef, align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.cp.async.ca.shared.global.4(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.cg.shared.global.16(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.commit.group()
declare void @llvm.nvvm.cp.async.wait.group(i32)
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @axpy(ptr addrspace(1) noalias readonly %x, ptr addrspace(1) %y, ptr addrspace(1) %out, float %a) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %px = getelementptr float, ptr addrspace(1) %x, i32 %tid
  %py = getelementptr float, ptr addrspace(1) %y, i32 %tid
  %vx = load float, ptr addrspace(1) %px, !invariant.load !0
  %vy = load float, ptr addrspace(1) %py
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  %po = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %s, ptr addrspace(1) %po
  ret void
}

define ptx_kernel void @stage(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pi = getelementptr float, ptr addrspace(1) %in, i32 %tid
  %ps = getelementptr float, ptr addrspace(3) @smem, i32 %tid
  call void @llvm.nvvm.cp.async.ca.shared.global.4(ptr addrspace(3) %ps, ptr addrspace(1) %pi)
  %pi4 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 %tid
  %ps4 = getelementptr <4 x float>, ptr addrspace(3) @smem, i32 16
  call void @llvm.nvvm.cp.async.cg.shared.global.16(ptr addrspace(3) %ps4, ptr addrspace(1) %pi4)
  call void @llvm.nvvm.cp.async.commit.group()
  call void @llvm.nvvm.cp.async.wait.group(i32 0)
  call void @llvm.nvvm.barrier0()
  %t2 = xor i32 %tid, 1
  %pr = getelementptr float, ptr addrspace(3) @smem, i32 %t2
  %v = load float, ptr addrspace(3) %pr
  %v4 = load <4 x float>, ptr addrspace(1) %pi4, !invariant.load !0
  %e = extractelement <4 x float> %v4, i32 1
  %w = fadd float %v, %e
  %po = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %w, ptr addrspace(1) %po
  ret void
}

define float @helper(ptr addrspace(1) %p) {
  %v = load float, ptr addrspace(1) %p
  ret float %v
}

!0 = !{}
