; Three kernels: @reads reads an integer from memory and uses it as an LDS offset, @writes
; stores an LDS address to global memory, so memory may hold addresses and the analysis of
; @reads depends on @writes (ModuleAnalysis.settle runs it twice; a worker that saw only @reads
; must say it relied on a loaded integer being a plain value). tests/transform/test_workers.py and
; tests/transform/test_stages.py read it.
target triple = "amdgcn-amd-amdhsa"

@lds_a = external addrspace(3) global [0 x i8], align 16
@lds_b = external addrspace(3) global [0 x i8], align 16

define amdgpu_kernel void @plain(ptr addrspace(1) %buf) {
  store i8 1, ptr addrspace(3) @lds_a, align 1
  store i8 2, ptr addrspace(3) @lds_b, align 1
  ret void
}

define amdgpu_kernel void @reads(ptr addrspace(1) %buf) {
  %x = load i32, ptr addrspace(1) %buf, align 4
  %p = getelementptr i8, ptr addrspace(3) @lds_b, i32 %x
  store i8 3, ptr addrspace(3) %p, align 1
  store i8 4, ptr addrspace(3) @lds_a, align 1
  ret void
}

define amdgpu_kernel void @writes(ptr addrspace(1) %out) {
  %ia = ptrtoint ptr addrspace(3) @lds_a to i32
  store i32 %ia, ptr addrspace(1) %out, align 4
  store i8 5, ptr addrspace(3) @lds_b, align 1
  ret void
}
