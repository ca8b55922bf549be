//go:build amd64 && !purego

#include "textflag.h"

// The assignment kernels' pieces. TERM adds the squared difference of the
// feature plane at F and the centre's value in C to the distances in X0/Y0
// (four or eight lanes, _V; lane 0 alone, _S). TAKE compares the distances
// in X0/Y0 with the best ones in X1/Y1 and, where lower, stores them at DI
// and the centre's label (X12/Y12) at SI, with the move instruction MOV
// (whole register or lane 0; AVX: _V and _S).
#define SSE_TERM_V(F, C) MOVUPS (F)(AX*4), X3; SUBPS C, X3; MULPS X3, X3; ADDPS X3, X0
#define SSE_TERM_S(F, C) MOVSS (F)(AX*4), X3; SUBSS C, X3; MULSS X3, X3; ADDSS X3, X0
#define SSE_TAKE(MOV) \
	MOVO X1, X2; PCMPGTL X0, X2; \
	MOVO X2, X4; PAND X0, X4; MOVO X2, X5; PANDN X1, X5; POR X5, X4; MOV X4, (DI)(AX*4); \
	MOV (SI)(AX*4), X6; MOVO X2, X4; PAND X12, X4; PANDN X6, X2; POR X2, X4; MOV X4, (SI)(AX*4)
#define AVX_TERM_V(F, C) VMOVUPS (F)(AX*4), Y3; VSUBPS C, Y3, Y3; VMULPS Y3, Y3, Y3; VADDPS Y3, Y0, Y0
#define AVX_TERM_S(F, C) VMOVSS (F)(AX*4), X3; VSUBSS C, X3, X3; VMULSS X3, X3, X3; VADDSS X3, X0, X0
#define AVX_TAKE_V \
	VPCMPGTD Y0, Y1, Y2; VBLENDVPS Y2, Y0, Y1, Y4; VMOVUPS Y4, (DI)(AX*4); \
	VMOVUPS (SI)(AX*4), Y6; VBLENDVPS Y2, Y12, Y6, Y4; VMOVUPS Y4, (SI)(AX*4)
#define AVX_TAKE_S \
	VPCMPGTD X0, X1, X2; VBLENDVPS X2, X0, X1, X4; VMOVSS X4, (DI)(AX*4); \
	VMOVSS (SI)(AX*4), X6; VBLENDVPS X2, X12, X6, X4; VMOVSS X4, (SI)(AX*4)

// func convRowsSSE(dst, k []float32, rows [][]float32) int
TEXT ·convRowsSSE(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), DX
	ANDQ $~3, DX
	MOVQ k_base+24(FP), SI
	MOVQ k_len+32(FP), CX
	MOVQ rows_base+48(FP), R8
	XORQ AX, AX

loop16:
	LEAQ 16(AX), R9
	CMPQ R9, DX
	JGT  loop4
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	MOVQ R8, R10
	XORQ BX, BX

tap16:
	MOVSS  (SI)(BX*4), X4
	SHUFPS $0, X4, X4
	MOVQ   (R10), R11
	LEAQ   (R11)(AX*4), R11
	MOVUPS (R11), X5
	MULPS  X4, X5
	ADDPS  X5, X0
	MOVUPS 16(R11), X6
	MULPS  X4, X6
	ADDPS  X6, X1
	MOVUPS 32(R11), X7
	MULPS  X4, X7
	ADDPS  X7, X2
	MOVUPS 48(R11), X8
	MULPS  X4, X8
	ADDPS  X8, X3
	ADDQ   $24, R10
	INCQ   BX
	CMPQ   BX, CX
	JLT    tap16
	LEAQ   (DI)(AX*4), R11
	MOVUPS X0, (R11)
	MOVUPS X1, 16(R11)
	MOVUPS X2, 32(R11)
	MOVUPS X3, 48(R11)
	MOVQ   R9, AX
	JMP    loop16

loop4:
	LEAQ 4(AX), R9
	CMPQ R9, DX
	JGT  done
	XORPS X0, X0
	MOVQ R8, R10
	XORQ BX, BX

tap4:
	MOVSS  (SI)(BX*4), X4
	SHUFPS $0, X4, X4
	MOVQ   (R10), R11
	MOVUPS (R11)(AX*4), X5
	MULPS  X4, X5
	ADDPS  X5, X0
	ADDQ   $24, R10
	INCQ   BX
	CMPQ   BX, CX
	JLT    tap4
	MOVUPS X0, (DI)(AX*4)
	MOVQ   R9, AX
	JMP    loop4

done:
	MOVQ AX, ret+72(FP)
	RET

// func assignWin3SSE(dist []uint32, labels []int32, f0, f1, f2 []float32, stride int, tx, ty []float32, c0, c1, c2 float32, lab int32)
TEXT ·assignWin3SSE(SB), NOSPLIT, $0-192
	MOVQ   dist_base+0(FP), DI
	MOVQ   labels_base+24(FP), SI
	MOVQ   f0_base+48(FP), R9
	MOVQ   f1_base+72(FP), R10
	MOVQ   f2_base+96(FP), R11
	MOVQ   stride+120(FP), DX
	SHLQ   $2, DX
	MOVQ   tx_base+128(FP), R8
	MOVQ   tx_len+136(FP), CX
	MOVQ   ty_base+152(FP), R12
	MOVQ   ty_len+160(FP), R13
	MOVSS  c0+176(FP), X9
	SHUFPS $0, X9, X9
	MOVSS  c1+180(FP), X10
	SHUFPS $0, X10, X10
	MOVSS  c2+184(FP), X11
	SHUFPS $0, X11, X11
	MOVSS  lab+188(FP), X12
	SHUFPS $0, X12, X12

row3SSE:
	TESTQ  R13, R13
	JZ     done3SSE
	MOVSS  (R12), X8
	SHUFPS $0, X8, X8
	XORQ   AX, AX

vec3SSE:
	LEAQ   4(AX), BX
	CMPQ   BX, CX
	JGT    tail3SSE
	MOVUPS  (R8)(AX*4), X0
	ADDPS   X8, X0         // s = tx + dyz
	MOVOU   (DI)(AX*4), X1 // best distance so far
	MOVO    X1, X2
	PCMPGTL X0, X2         // lanes whose spatial term alone is below it
	MOVMSKPS X2, BX
	TESTL   BX, BX
	JZ      nextv3SSE
	SSE_TERM_V(R9, X9)
	SSE_TERM_V(R10, X10)
	SSE_TERM_V(R11, X11)
	SSE_TAKE(MOVOU)

nextv3SSE:
	ADDQ   $4, AX
	JMP    vec3SSE

tail3SSE:
	CMPQ   AX, CX
	JGE    rowend3SSE
	MOVSS   (R8)(AX*4), X0
	ADDSS   X8, X0         // s = tx + dyz
	MOVSS   (DI)(AX*4), X1 // best distance so far
	MOVO    X1, X2
	PCMPGTL X0, X2         // lanes whose spatial term alone is below it
	MOVMSKPS X2, BX
	TESTL   $1, BX
	JZ      nexts3SSE
	MOVSS (R9)(AX*4), X3
	SUBSS   X9, X3
	MULSS   X3, X3
	ADDSS   X3, X0
	MOVSS (R10)(AX*4), X3
	SUBSS   X10, X3
	MULSS   X3, X3
	ADDSS   X3, X0
	MOVSS (R11)(AX*4), X3
	SUBSS   X11, X3
	MULSS   X3, X3
	ADDSS   X3, X0
	SSE_TAKE(MOVSS)

nexts3SSE:
	INCQ   AX
	JMP    tail3SSE

rowend3SSE:
	ADDQ   DX, DI
	ADDQ   DX, SI
	ADDQ   DX, R9
	ADDQ   DX, R10
	ADDQ   DX, R11
	ADDQ   $4, R12
	DECQ   R13
	JMP    row3SSE

done3SSE:
	RET

// func assignWin1SSE(dist []uint32, labels []int32, f0 []float32, stride int, tx, ty []float32, c0 float32, lab int32)
TEXT ·assignWin1SSE(SB), NOSPLIT, $0-136
	MOVQ   dist_base+0(FP), DI
	MOVQ   labels_base+24(FP), SI
	MOVQ   f0_base+48(FP), R9
	MOVQ   stride+72(FP), DX
	SHLQ   $2, DX
	MOVQ   tx_base+80(FP), R8
	MOVQ   tx_len+88(FP), CX
	MOVQ   ty_base+104(FP), R12
	MOVQ   ty_len+112(FP), R13
	MOVSS  c0+128(FP), X9
	SHUFPS $0, X9, X9
	MOVSS  lab+132(FP), X12
	SHUFPS $0, X12, X12

row1SSE:
	TESTQ  R13, R13
	JZ     done1SSE
	MOVSS  (R12), X8
	SHUFPS $0, X8, X8
	XORQ   AX, AX

vec1SSE:
	LEAQ   4(AX), BX
	CMPQ   BX, CX
	JGT    tail1SSE
	MOVUPS  (R8)(AX*4), X0
	ADDPS   X8, X0         // s = tx + dyz
	MOVOU   (DI)(AX*4), X1 // best distance so far
	MOVO    X1, X2
	PCMPGTL X0, X2         // lanes whose spatial term alone is below it
	MOVMSKPS X2, BX
	TESTL   BX, BX
	JZ      nextv1SSE
	SSE_TERM_V(R9, X9)
	SSE_TAKE(MOVOU)

nextv1SSE:
	ADDQ   $4, AX
	JMP    vec1SSE

tail1SSE:
	CMPQ   AX, CX
	JGE    rowend1SSE
	MOVSS   (R8)(AX*4), X0
	ADDSS   X8, X0         // s = tx + dyz
	MOVSS   (DI)(AX*4), X1 // best distance so far
	MOVO    X1, X2
	PCMPGTL X0, X2         // lanes whose spatial term alone is below it
	MOVMSKPS X2, BX
	TESTL   $1, BX
	JZ      nexts1SSE
	MOVSS (R9)(AX*4), X3
	SUBSS   X9, X3
	MULSS   X3, X3
	ADDSS   X3, X0
	SSE_TAKE(MOVSS)

nexts1SSE:
	INCQ   AX
	JMP    tail1SSE

rowend1SSE:
	ADDQ   DX, DI
	ADDQ   DX, SI
	ADDQ   DX, R9
	ADDQ   $4, R12
	DECQ   R13
	JMP    row1SSE

done1SSE:
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() (a uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, a+0(FP)
	RET

// func assignWin3AVX(dist []uint32, labels []int32, f0, f1, f2 []float32, stride int, tx, ty []float32, c0, c1, c2 float32, lab int32)
TEXT ·assignWin3AVX(SB), NOSPLIT, $0-192
	MOVQ   dist_base+0(FP), DI
	MOVQ   labels_base+24(FP), SI
	MOVQ   f0_base+48(FP), R9
	MOVQ   f1_base+72(FP), R10
	MOVQ   f2_base+96(FP), R11
	MOVQ   stride+120(FP), DX
	SHLQ   $2, DX
	MOVQ   tx_base+128(FP), R8
	MOVQ   tx_len+136(FP), CX
	MOVQ   ty_base+152(FP), R12
	MOVQ   ty_len+160(FP), R13
	VBROADCASTSS c0+176(FP), Y9
	VBROADCASTSS c1+180(FP), Y10
	VBROADCASTSS c2+184(FP), Y11
	VBROADCASTSS lab+188(FP), Y12

row3AVX:
	TESTQ  R13, R13
	JZ     done3AVX
	VBROADCASTSS (R12), Y8
	XORQ   AX, AX

vec3AVX:
	LEAQ   8(AX), BX
	CMPQ   BX, CX
	JGT    tail3AVX
	VMOVUPS     (R8)(AX*4), Y0
	VADDPS      Y8, Y0, Y0      // s = tx + dyz
	VMOVUPS     (DI)(AX*4), Y1      // best distance so far
	VPCMPGTD    Y0, Y1, Y2      // lanes whose spatial term alone is below it
	VMOVMSKPS   Y2, BX
	TESTL       BX, BX
	JZ          nextv3AVX
	AVX_TERM_V(R9, Y9)
	AVX_TERM_V(R10, Y10)
	AVX_TERM_V(R11, Y11)
	AVX_TAKE_V

nextv3AVX:
	ADDQ   $8, AX
	JMP    vec3AVX

tail3AVX:
	CMPQ   AX, CX
	JGE    rowend3AVX
	VMOVSS      (R8)(AX*4), X0
	VADDSS      X8, X0, X0      // s = tx + dyz
	VMOVSS      (DI)(AX*4), X1      // best distance so far
	VPCMPGTD    X0, X1, X2      // lanes whose spatial term alone is below it
	VMOVMSKPS   X2, BX
	TESTL       $1, BX
	JZ          nexts3AVX
	AVX_TERM_S(R9, X9)
	AVX_TERM_S(R10, X10)
	AVX_TERM_S(R11, X11)
	AVX_TAKE_S

nexts3AVX:
	INCQ   AX
	JMP    tail3AVX

rowend3AVX:
	ADDQ   DX, DI
	ADDQ   DX, SI
	ADDQ   DX, R9
	ADDQ   DX, R10
	ADDQ   DX, R11
	ADDQ   $4, R12
	DECQ   R13
	JMP    row3AVX

done3AVX:
	VZEROUPPER
	RET

// func assignWin1AVX(dist []uint32, labels []int32, f0 []float32, stride int, tx, ty []float32, c0 float32, lab int32)
TEXT ·assignWin1AVX(SB), NOSPLIT, $0-136
	MOVQ   dist_base+0(FP), DI
	MOVQ   labels_base+24(FP), SI
	MOVQ   f0_base+48(FP), R9
	MOVQ   stride+72(FP), DX
	SHLQ   $2, DX
	MOVQ   tx_base+80(FP), R8
	MOVQ   tx_len+88(FP), CX
	MOVQ   ty_base+104(FP), R12
	MOVQ   ty_len+112(FP), R13
	VBROADCASTSS c0+128(FP), Y9
	VBROADCASTSS lab+132(FP), Y12

row1AVX:
	TESTQ  R13, R13
	JZ     done1AVX
	VBROADCASTSS (R12), Y8
	XORQ   AX, AX

vec1AVX:
	LEAQ   8(AX), BX
	CMPQ   BX, CX
	JGT    tail1AVX
	VMOVUPS     (R8)(AX*4), Y0
	VADDPS      Y8, Y0, Y0      // s = tx + dyz
	VMOVUPS     (DI)(AX*4), Y1      // best distance so far
	VPCMPGTD    Y0, Y1, Y2      // lanes whose spatial term alone is below it
	VMOVMSKPS   Y2, BX
	TESTL       BX, BX
	JZ          nextv1AVX
	AVX_TERM_V(R9, Y9)
	AVX_TAKE_V

nextv1AVX:
	ADDQ   $8, AX
	JMP    vec1AVX

tail1AVX:
	CMPQ   AX, CX
	JGE    rowend1AVX
	VMOVSS      (R8)(AX*4), X0
	VADDSS      X8, X0, X0      // s = tx + dyz
	VMOVSS      (DI)(AX*4), X1      // best distance so far
	VPCMPGTD    X0, X1, X2      // lanes whose spatial term alone is below it
	VMOVMSKPS   X2, BX
	TESTL       $1, BX
	JZ          nexts1AVX
	AVX_TERM_S(R9, X9)
	AVX_TAKE_S

nexts1AVX:
	INCQ   AX
	JMP    tail1AVX

rowend1AVX:
	ADDQ   DX, DI
	ADDQ   DX, SI
	ADDQ   DX, R9
	ADDQ   $4, R12
	DECQ   R13
	JMP    row1AVX

done1AVX:
	VZEROUPPER
	RET

// func convRowsAVX(dst, k []float32, rows [][]float32) int
TEXT ·convRowsAVX(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), DX
	ANDQ $~7, DX
	MOVQ k_base+24(FP), SI
	MOVQ k_len+32(FP), CX
	MOVQ rows_base+48(FP), R8
	XORQ AX, AX

loop32:
	LEAQ 32(AX), R9
	CMPQ R9, DX
	JGT  loop8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ R8, R10
	XORQ BX, BX

tap32:
	VBROADCASTSS (SI)(BX*4), Y4
	MOVQ   (R10), R11
	LEAQ   (R11)(AX*4), R11
	VMULPS (R11), Y4, Y5
	VADDPS Y5, Y0, Y0
	VMULPS 32(R11), Y4, Y6
	VADDPS Y6, Y1, Y1
	VMULPS 64(R11), Y4, Y7
	VADDPS Y7, Y2, Y2
	VMULPS 96(R11), Y4, Y8
	VADDPS Y8, Y3, Y3
	ADDQ   $24, R10
	INCQ   BX
	CMPQ   BX, CX
	JLT    tap32
	LEAQ   (DI)(AX*4), R11
	VMOVUPS Y0, (R11)
	VMOVUPS Y1, 32(R11)
	VMOVUPS Y2, 64(R11)
	VMOVUPS Y3, 96(R11)
	MOVQ   R9, AX
	JMP    loop32

loop8:
	LEAQ 8(AX), R9
	CMPQ R9, DX
	JGT  done8
	VXORPS Y0, Y0, Y0
	MOVQ R8, R10
	XORQ BX, BX

tap8:
	VBROADCASTSS (SI)(BX*4), Y4
	MOVQ   (R10), R11
	VMULPS (R11)(AX*4), Y4, Y5
	VADDPS Y5, Y0, Y0
	ADDQ   $24, R10
	INCQ   BX
	CMPQ   BX, CX
	JLT    tap8
	VMOVUPS Y0, (DI)(AX*4)
	MOVQ   R9, AX
	JMP    loop8

done8:
	VZEROUPPER
	MOVQ AX, ret+72(FP)
	RET

DATA expMask<>+0(SB)/4, $0x7f800000
GLOBL expMask<>(SB), RODATA|NOPTR, $4
DATA twoTo23<>+0(SB)/4, $0x4b000000
GLOBL twoTo23<>(SB), RODATA|NOPTR, $4

// func scanAVX(x []float32, lanes *[4][8]uint32)
TEXT ·scanAVX(SB), NOSPLIT, $0-32
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ lanes+24(FP), DI
	VMOVDQU (DI), Y0   // minimum
	VMOVDQU 32(DI), Y1 // maximum
	VPXOR   Y2, Y2, Y2 // non-finite lanes
	VPXOR   Y3, Y3, Y3 // bits rounding changed
	VBROADCASTSS expMask<>(SB), Y4
	VBROADCASTSS twoTo23<>(SB), Y5
	XORQ AX, AX

scan:
	CMPQ    AX, CX
	JGE     scanned
	VMOVUPS (SI)(AX*4), Y6
	VMINPS  Y0, Y6, Y0       // x < lo ? x : lo
	VMAXPS  Y1, Y6, Y1       // x > hi ? x : hi
	VPAND   Y4, Y6, Y7
	VPCMPEQD Y4, Y7, Y7      // exponent all ones
	VPOR    Y7, Y2, Y2
	VADDPS  Y5, Y6, Y8
	VSUBPS  Y5, Y8, Y8       // (x + 2^23) - 2^23
	VPXOR   Y6, Y8, Y8
	VPOR    Y8, Y3, Y3
	ADDQ    $8, AX
	JMP     scan

scanned:
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VZEROUPPER
	RET

// Offsets of labAVX's constants (labConsts: four copies of each).
#define LAB_X0 0
#define LAB_X1 32
#define LAB_X2 64
#define LAB_XD 96
#define LAB_Y0 128
#define LAB_Y1 160
#define LAB_Y2 192
#define LAB_Z0 224
#define LAB_Z1 256
#define LAB_Z2 288
#define LAB_ZD 320
#define LAB_T0 352
#define LAB_T1 384
#define LAB_K 416
#define LAB_C116 448
#define LAB_C16 480
#define LAB_C500 512
#define LAB_C200 544

// LABF(v) replaces the four x, y or z values in v by labTables.f of them
// from the table: lanes outside it (v <= labT0, v > labT1, or an index
// past the last interval) set their bits in BX. Uses Y7-Y12, X10, X11;
// R12 is the table, R15 the constants, X13 lutSize-1 and X14 zero in four
// lanes.
#define LABF(v) \
	VCMPPD $2, LAB_T0(R15), v, Y7 \
	VCMPPD $0x0e, LAB_T1(R15), v, Y8 \
	VORPD Y8, Y7, Y7 \
	VMOVMSKPD Y7, DX \
	ORL DX, BX \
	VSUBPD LAB_T0(R15), v, Y9 \
	VMULPD LAB_K(R15), Y9, Y9 \
	VCVTTPD2DQY Y9, X10 \
	VPCMPGTD X13, X10, X11 \
	VMOVMSKPS X11, DX \
	ORL DX, BX \
	VPMAXSD X14, X10, X10 \
	VPMINSD X13, X10, X10 \
	VCVTDQ2PD X10, Y11 \
	VSUBPD Y11, Y9, Y9 \
	VPCMPEQD Y12, Y12, Y12 \
	VGATHERDPD Y12, (R12)(X10*8), Y7 \
	VPCMPEQD Y12, Y12, Y12 \
	VGATHERDPD Y12, 8(R12)(X10*8), Y8 \
	VSUBPD Y7, Y8, Y8 \
	VMULPD Y8, Y9, Y8 \
	VADDPD Y8, Y7, v

// func labAVX(r, g, b []float64, l, a, bb []float32, tab []float64, flags []uint8, consts *[18][4]float64, lut int32) int
TEXT ·labAVX(SB), NOSPLIT, $0-216
	MOVQ r_base+0(FP), SI
	MOVQ r_len+8(FP), CX
	ANDQ $~3, CX
	MOVQ g_base+24(FP), DI
	MOVQ b_base+48(FP), R8
	MOVQ l_base+72(FP), R9
	MOVQ a_base+96(FP), R10
	MOVQ bb_base+120(FP), R11
	MOVQ tab_base+144(FP), R12
	MOVQ flags_base+168(FP), R13
	MOVQ consts+192(FP), R15
	MOVL lut+200(FP), DX
	DECL DX
	VMOVD DX, X13
	VPBROADCASTD X13, X13                        // lutSize-1 in 4 lanes
	VPXOR X14, X14, X14                          // 0 in 4 lanes
	XORQ AX, AX

lab:
	CMPQ AX, CX
	JGE  labdone
	XORL BX, BX
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD (DI)(AX*8), Y1
	VMOVUPD (R8)(AX*8), Y2
	VMULPD   LAB_X0(R15), Y0, Y3
	VMULPD   LAB_X1(R15), Y1, Y7
	VADDPD   Y7, Y3, Y3
	VMULPD   LAB_X2(R15), Y2, Y7
	VADDPD   Y7, Y3, Y3
	VDIVPD   LAB_XD(R15), Y3, Y3
	VMULPD   LAB_Y0(R15), Y0, Y4
	VMULPD   LAB_Y1(R15), Y1, Y7
	VADDPD   Y7, Y4, Y4
	VMULPD   LAB_Y2(R15), Y2, Y7
	VADDPD   Y7, Y4, Y4
	VMULPD   LAB_Z0(R15), Y0, Y5
	VMULPD   LAB_Z1(R15), Y1, Y7
	VADDPD   Y7, Y5, Y5
	VMULPD   LAB_Z2(R15), Y2, Y7
	VADDPD   Y7, Y5, Y5
	VDIVPD   LAB_ZD(R15), Y5, Y5
	LABF(Y3)
	LABF(Y4)
	LABF(Y5)
	VMULPD   LAB_C116(R15), Y4, Y6
	VSUBPD   LAB_C16(R15), Y6, Y6
	VCVTPD2PSY Y6, X6
	VMOVUPS  X6, (R9)(AX*4)
	VSUBPD   Y4, Y3, Y6
	VMULPD   LAB_C500(R15), Y6, Y6
	VCVTPD2PSY Y6, X6
	VMOVUPS  X6, (R10)(AX*4)
	VSUBPD   Y5, Y4, Y6
	VMULPD   LAB_C200(R15), Y6, Y6
	VCVTPD2PSY Y6, X6
	VMOVUPS  X6, (R11)(AX*4)
	MOVQ     AX, DX
	SHRQ     $2, DX
	MOVB     BX, (R13)(DX*1)
	ADDQ     $4, AX
	JMP      lab

labdone:
	VZEROUPPER
	MOVQ AX, ret+208(FP)
	RET
