/* asm_int.h: what the three files of tl.inline_asm_elementwise's PTX
 * translator share: builtins_asm.c (the builtin: operands packed into
 * registers and back), asm_insn.c (one instruction at a time) and
 * asm_regs.c (PTX types, registers, operands and small IR helpers). The
 * model is described at the top of builtins_asm.c. */
#ifndef TILE_SEMA_ASM_INT_H
#define TILE_SEMA_ASM_INT_H

#include "sema/sema_int.h"

enum { ASM_MAX_REGS = 96, ASM_MAX_OPNDS = 8, ASM_NAME = 32 };

typedef struct {
	char name[ASM_NAME]; /* "$0", "tmp", "%r3" */
	int bits;            /* 1 for .pred */
	ValId v;             /* the register's bits; 0 until written */
	int depth;           /* the { } scope that declared it (0: the operands') */
} AsmReg;

typedef struct {
	Sema *s;
	SrcLoc loc;
	int rank;                     /* the packed shape of every register value */
	int32_t shape[TIR_MAX_RANK];
	AsmReg regs[ASM_MAX_REGS]; /* in declaration order: an inner scope's last */
	int nregs;
	int depth;                    /* { } scopes open */
	char insn[96];                /* the instruction being translated, for messages */
} Asm;

typedef struct {
	const char *name;
	DType dt;  /* one lane's dtype */
	int lanes; /* 2 for the packed x2 types */
} PtxType;

/* asm_regs.c */
const PtxType *asm_ptx_type(const char *name);
bool asm_is_fp4(const PtxType *t);
int asm_type_bits(const PtxType *t);
DType asm_uint_of(int bits);
Type asm_tile_of(Asm *a, DType dt);
bool asm_error(Asm *a, const char *fmt, const char *arg);
ValId asm_k_int(Asm *a, DType dt, int64_t v);
ValId asm_k_flt(Asm *a, DType dt, double v);
ValId asm_op2(Asm *a, TirOpKind k, ValId x, ValId y);
ValId asm_op1(Asm *a, TirOpKind k, ValId x);
ValId asm_math1(Asm *a, MathFn m, ValId x);
ValId asm_cmp(Asm *a, TirPred p, ValId x, ValId y);
ValId asm_sel(Asm *a, ValId c, ValId x, ValId y);
ValId asm_conv(Asm *a, ValId x, DType dt, int flags);
ValId asm_bitc(Asm *a, ValId x, DType dt);
ValId asm_resize(Asm *a, ValId x, int bits);
ValId asm_lane_of(Asm *a, ValId x, int lanes, int i, DType dt);
ValId asm_join_lanes(Asm *a, const ValId *v, int n);
AsmReg *asm_reg_find(Asm *a, const char *name);
bool asm_reg_declare(Asm *a, const char *name, int bits);
bool asm_int_literal(const char *t, int64_t *out);
ValId asm_read_bits(Asm *a, const char *t, const PtxType *ty);
ValId asm_read_lane(Asm *a, const char *t, const PtxType *ty, int i);
bool asm_write_bits(Asm *a, const char *t, ValId v);

/* asm_insn.c: the asm text's instructions, in order; false after a diagnostic */
bool asm_translate_all(Asm *a, const char *text);

#endif
