; Hand-written: every spelling of a wait the counter has to get right.
	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1030"
	.globl	edge_gfx10
	.p2align	8
	.type	edge_gfx10,@function
	.type	"edge.quoted",@function
	.type	edge_gfx12, @function
edge_gfx10:                             ; @edge_gfx10
; s_waitcnt vmcnt(0) in a comment does not count
// s_waitcnt lgkmcnt(0) neither
/* s_waitcnt expcnt(0) nor this */
	s_waitcnt vmcnt(0) lgkmcnt(0)           ; one line, two counters
	s_waitcnt vmcnt(3) & lgkmcnt(1)
	s_waitcnt expcnt(0)
	s_waitcnt vmcnt(0) vmcnt(0)
	s_waitcnt 0
	s_waitcnt 0xc07f
	s_waitcnt_vscnt null, 0x0
	s_waitcnt_vscnt null, 0x1
	s_waitcnt vs_cnt(0)
	s_waitcnt_lgkmcnt null, 0x0
	s_waitcnt_depctr 0xffe3                 ; not a memory counter
	buffer_load_dword v1, off, s[4:7], 0 lds
	buffer_load_dword v2, off, s[4:7], 0    ; a plain load
	buffer_load_dword v2, off, s[4:7], 0 offset:16 glc
	global_load_dword v0, v[0:1], off
	ds_read_b32 v0, v1
	ds_write_b32 v1, v0
	s_cbranch_scc1 .LBB0_2
.LBB0_2:                                ; a local label stays in edge_gfx10
	s_waitcnt vmcnt(1)
	s_endpgm
.Lfunc_end0:
	.size	edge_gfx10, .Lfunc_end0-edge_gfx10

"edge.quoted":
	scratch_load_lds_dword v0, off
	global_load_lds_dwordx4 v0, s[0:1] offset:64
	s_waitcnt vmcnt(0)
	s_endpgm

edge_gfx12:
	s_wait_kmcnt 0x0
	s_wait_loadcnt 0x1
	s_wait_loadcnt 0x0
	s_wait_storecnt 0x0
	s_wait_samplecnt 0x2
	s_wait_bvhcnt 0x0
	s_wait_expcnt 0x0
	s_wait_dscnt 0x3
	s_wait_loadcnt_dscnt 0x100              ; loadcnt 1, dscnt 0
	s_wait_storecnt_dscnt 0x0
	s_wait_alu 0xfffe                       ; not a memory counter
	s_wait_idle
	global_load_async_to_lds_b128 v0, v4, s[0:1]
	cluster_load_async_to_lds_b32 v0, v4, s[0:1]
	s_wait_asynccnt 0x0
	s_endpgm

	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; s_waitcnt vmcnt(0)
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:           edge_gfx10
    .symbol:         edge_gfx10.kd
    .value_kind:     hidden_dynamic_lds_size
# a metadata block never holds code; this line proves it is skipped:
    s_waitcnt vmcnt(0)
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
