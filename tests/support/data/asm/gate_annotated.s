; Hand-written in llc's layout: three LDS buffers filled by LDS DMA and read in a loop.
	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.globl	lds_pipeline                        ; -- Begin function lds_pipeline
	.p2align	8
	.type	lds_pipeline,@function
lds_pipeline:                               ; @lds_pipeline
; %bb.0:                                ; %entry
	s_load_dwordx4 s[4:7], s[2:3], 0x0
	s_load_dword s0, s[2:3], 0x10
	s_mov_b32 m0, 0
	s_waitcnt lgkmcnt(0)
.LBB0_1:                                ; %loop
	buffer_load_dword v3, s[8:11], 0 offen lds
	ds_read_b32 v4, v2
	s_mov_b32 m0, s12
	buffer_load_dword v3, s[8:11], 0 offen offset:1024 lds
	ds_read_b32 v5, v2 offset:4096
	s_mov_b32 m0, s13
	buffer_load_dword v3, s[8:11], 0 offen offset:2048 lds
	ds_read_b32 v6, v2 offset:8192
	s_waitcnt lgkmcnt(0)
	v_add_f32_e32 v1, v1, v4
	s_waitcnt vmcnt(0)
	s_barrier
	s_cbranch_scc1 .LBB0_1
; %bb.2:                                ; %exit
	global_store_dword v0, v1, s[6:7]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel lds_pipeline
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 16
	.end_amdhsa_kernel
	.text
.Lfunc_end_lds_pipeline:
	.size	lds_pipeline, .Lfunc_end_lds_pipeline-lds_pipeline
                                        ; -- End function
	.globl	copy                        ; -- Begin function copy
	.p2align	8
	.type	copy,@function
copy:                               ; @copy
; %bb.0:
	s_load_dwordx4 s[0:3], s[2:3], 0x0
	s_waitcnt lgkmcnt(0)
	global_load_dword v1, v0, s[0:1]
	s_waitcnt vmcnt(0)
	global_store_dword v0, v1, s[2:3]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel copy
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 16
	.end_amdhsa_kernel
	.text
.Lfunc_end_copy:
	.size	copy, .Lfunc_end_copy-copy
                                        ; -- End function
