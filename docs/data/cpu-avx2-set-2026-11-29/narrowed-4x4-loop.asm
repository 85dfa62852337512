# The K loop of panel_kc256_lm1_ln16_mv4_nr4_pa1_vw16 as PoCL 3.1 (LLVM 15) compiled it for this AVX2 Zen 3 VM (pthread-haswell),
# narrowed by -DVW_CAP=8 to MV 4 x NR 4 vectors of 8 floats: objdump -d of the work-group function in PoCL's kernel cache
# (panel_am_bk, local size 2 x 16), 2026-11-29 12:35 UTC. Six of the 16 accumulators live on the stack (the vmovaps to and from N(%rsp)).
    1c29:	vmovups -0x78(%rbx),%ymm4
    1c2e:	vmovups -0x58(%rbx),%ymm3
    1c33:	vmovups -0x38(%rbx),%ymm2
    1c38:	vmovups -0x18(%rbx),%ymm0
    1c3d:	vbroadcastss (%rax,%rsi,4),%ymm5
    1c43:	vmovaps 0x120(%rsp),%ymm6
    1c4c:	vfmadd231ps %ymm5,%ymm4,%ymm6
    1c51:	vmovaps %ymm6,0x120(%rsp)
    1c5a:	vmovaps 0x60(%rsp),%ymm6
    1c60:	vfmadd231ps %ymm5,%ymm3,%ymm6
    1c65:	vmovaps %ymm6,0x60(%rsp)
    1c6b:	vfmadd231ps %ymm5,%ymm2,%ymm13
    1c70:	vmovaps 0xc0(%rsp),%ymm6
    1c79:	vfmadd231ps %ymm5,%ymm0,%ymm6
    1c7e:	vmovaps %ymm6,0xc0(%rsp)
    1c87:	vbroadcastss (%rcx,%rsi,4),%ymm5
    1c8d:	vfmadd231ps %ymm5,%ymm4,%ymm15
    1c92:	vfmadd231ps %ymm5,%ymm3,%ymm9
    1c97:	vfmadd231ps %ymm5,%ymm2,%ymm12
    1c9c:	vfmadd231ps %ymm5,%ymm0,%ymm8
    1ca1:	vbroadcastss (%rdx,%rsi,4),%ymm5
    1ca7:	vfmadd231ps %ymm5,%ymm4,%ymm1
    1cac:	vmovaps 0x80(%rsp),%ymm6
    1cb5:	vfmadd231ps %ymm5,%ymm3,%ymm6
    1cba:	vmovaps %ymm6,0x80(%rsp)
    1cc3:	vfmadd231ps %ymm5,%ymm2,%ymm11
    1cc8:	vmovaps 0xa0(%rsp),%ymm6
    1cd1:	vfmadd231ps %ymm5,%ymm0,%ymm6
    1cd6:	vmovaps %ymm6,0xa0(%rsp)
    1cdf:	vbroadcastss (%rdi,%rsi,4),%ymm5
    1ce5:	vfmadd231ps %ymm4,%ymm5,%ymm14
    1cea:	vfmadd231ps %ymm3,%ymm5,%ymm7
    1cef:	vfmadd231ps %ymm2,%ymm5,%ymm10
    1cf4:	vmovaps 0x100(%rsp),%ymm2
    1cfd:	vfmadd231ps %ymm5,%ymm0,%ymm2
    1d02:	inc    %rsi
    1d05:	add    %r13,%rbx
    1d08:	cmp    %r11,%rsi
    1d0b:	jl     1c20 <_pocl_kernel_panel_am_bk+0xc20>
    1d11:	jmp    18e4 <_pocl_kernel_panel_am_bk+0x8e4>
    1d16:	cs nopw 0x0(%rax,%rax,1)
    1d20:	lea    (%rsp,%r10,2),%rax
    1d24:	add    $0x300,%rax
