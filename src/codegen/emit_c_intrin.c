/* emit_c_intrin.c: warp shuffles, mma.sync, ldmatrix, barriers, device print
 * and assert as CUDA C.
 *
 * mma.sync and ldmatrix are inline PTX; their 16- and 8-bit operands are
 * packed into 32-bit registers lowest element first (PTX fragment order).
 * device_assert calls __assertfail, as CUDA's assert() does: it prints
 * "file:line: kernel: block: [..], thread: [..] Assertion `msg` failed." and
 * the launch fails with CUDA_ERROR_ASSERT ("device-side assert triggered").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/emit_c_internal.h"

static DType dt_of(const Ec *e, TpVal v) { return (DType)ec_ty(e, v).dt; }

static void emit_shfl(Ec *e, const TpOp *op)
{
	TpVal x = op->operands[0], r = op->results[0];
	Type t = ec_ty(e, x);
	DType d = (DType)t.dt;
	char lane[32];
	if (op->kind == TP_SHFL_XOR)
		snprintf(lane, sizeof lane, "%d", (int)op->attr.i);
	else
		snprintf(lane, sizeof lane, "v%u", op->operands[1]);
	const char *fn = op->kind == TP_SHFL_XOR ? "__shfl_xor_sync" : "__shfl_sync";
	switch (d) {
	case DT_I32:
	case DT_U32:
	case DT_I64:
	case DT_U64:
	case DT_F32:
	case DT_F64: ec_decl(e, r, "%s(0xffffffffu, v%u, %s)", fn, x, lane); break;
	case DT_PTR: {
		char ty[48];
		ec_type_str(t, ty, sizeof ty);
		ec_decl(e, r, "(%s)%s(0xffffffffu, (uint64_t)v%u, %s)", ty, fn, x, lane);
		break;
	}
	case DT_I1: ec_decl(e, r, "%s(0xffffffffu, (int)v%u, %s) != 0", fn, x, lane); break;
	default: /* 8- and 16-bit values travel in a 32-bit register */
		ec_decl(e, r, "(%s)%s(0xffffffffu, (int)v%u, %s)", ec_ctype(d), fn, x, lane);
		break;
	}
}

/* ---- mma.sync ------------------------------------------------------------------------- */

typedef struct MmaShape {
	const char *ptx;
	int na, nb;    /* unpacked operand counts */
	int per_reg;   /* a/b elements per 32-bit register */
	bool int_acc;  /* s32 accumulators */
	DType da, db;  /* the fragments' element types (DT_I8: whatever lowering gave) */
} MmaShape;

#define MMA_K32(ta, tb) "mma.sync.aligned.m16n8k32.row.col.f32." ta "." tb ".f32"
static const MmaShape mma_shapes[] = {
        [MMA_M16N8K16_F16_F32] = {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 8, 4, 2,
                                  false, DT_F16, DT_F16},
        [MMA_M16N8K16_BF16_F32] = {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 8, 4, 2,
                                   false, DT_BF16, DT_BF16},
        [MMA_M16N8K8_TF32_F32] = {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, 1,
                                  false, DT_F32, DT_F32},
        [MMA_M16N8K32_S8_S32] = {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 16, 8, 4, true,
                                 DT_I8, DT_I8},
        /* PTX ISA 8.4, sm_89+ */
        [MMA_M16N8K32_E4M3_E4M3_F32] = {MMA_K32("e4m3", "e4m3"), 16, 8, 4, false, DT_F8E4M3,
                                        DT_F8E4M3},
        [MMA_M16N8K32_E4M3_E5M2_F32] = {MMA_K32("e4m3", "e5m2"), 16, 8, 4, false, DT_F8E4M3,
                                        DT_F8E5M2},
        [MMA_M16N8K32_E5M2_E4M3_F32] = {MMA_K32("e5m2", "e4m3"), 16, 8, 4, false, DT_F8E5M2,
                                        DT_F8E4M3},
        [MMA_M16N8K32_E5M2_E5M2_F32] = {MMA_K32("e5m2", "e5m2"), 16, 8, 4, false, DT_F8E5M2,
                                        DT_F8E5M2},
};

/* Bits of one a/b operand (element type `want`) of an mma of `kind`, as a
 * uint32_t expression: converted to `want` when lowering handed another
 * type, and rounded to tf32 (nearest even, as the CPU emulation does) for
 * tf32. */
static void mma_elem(Ec *e, StrBuf *b, TpVal v, int kind, DType want)
{
	DType d = dt_of(e, v);
	if (want == DT_I8)
		want = d;
	char x[16];
	snprintf(x, sizeof x, "v%u", v);
	char *s = ec_convert(e, x, d, want, false);
	if (kind == MMA_M16N8K8_TF32_F32) {
		ec_need(e, H_TF32);
		sb_printf(b, "f32_to_tf32(%s)", s);
	} else if (d == want) {
		ec_bits(e, b, v, false);
	} else {
		sb_printf(b, "(uint32_t)%s", s);
	}
	free(s);
}

/* The 32-bit register holding elements vals[0..per) (lowest bits first). */
static void pack_reg(Ec *e, StrBuf *b, const TpVal *vals, int per, int kind, DType want)
{
	DType d = dt_of(e, vals[0]);
	if (per == 2 && want == DT_F16 && (d == DT_F8E4M3 || d == DT_F8E5M2) &&
	    dt_of(e, vals[1]) == d) { /* fp8 upcast for an f16 mma: a pair at a time */
		bool e4 = d == DT_F8E4M3;
		ec_need(e, e4 ? H_F8E4M3_F16 : H_F8E5M2_F16);
		sb_printf(b, "%s((uint32_t)v%u, (uint32_t)v%u)",
		          e4 ? "f8e4m3x2_to_f16x2" : "f8e5m2x2_to_f16x2", vals[0], vals[1]);
		return;
	}
	int bits = 32 / per;
	for (int j = 0; j < per; j++) {
		if (j)
			sb_puts(b, " | ");
		if (j)
			sb_putc(b, '(');
		mma_elem(e, b, vals[j], kind, want);
		if (j)
			sb_printf(b, " << %d)", bits * j);
	}
}

static void emit_mma(Ec *e, const TpOp *op)
{
	if (op->attr.i < 0 || op->attr.i >= (int64_t)COUNTOF(mma_shapes))
		ice("emit_cuda", "unknown mma kind %d", (int)op->attr.i);
	const MmaShape *s = &mma_shapes[op->attr.i];
	int ra = s->na / s->per_reg, rb = s->nb / s->per_reg, tmp = ec_tmp(e);
	StrBuf b = {0};
	for (int i = 0; i < ra + rb; i++) {
		sb_puts(&b, i ? ", " : "");
		const TpVal *src = i < ra ? op->operands + i * s->per_reg
		                          : op->operands + s->na + (i - ra) * s->per_reg;
		pack_reg(e, &b, src, s->per_reg, (int)op->attr.i, i < ra ? s->da : s->db);
	}
	ec_line(e, "uint32_t t%d[%d] = {%s};", tmp, ra + rb, b.s);
	sb_free(&b);
	const char *rt = s->int_acc ? "int32_t" : "float", *rc = s->int_acc ? "r" : "f";
	TpVal *d = op->results;
	ec_line(e, "%s v%u, v%u, v%u, v%u;", rt, d[0], d[1], d[2], d[3]);
	StrBuf regs = {0};
	sb_printf(&regs, "{%%0, %%1, %%2, %%3}, {");
	for (int i = 0; i < ra; i++)
		sb_printf(&regs, "%s%%%d", i ? ", " : "", 4 + i);
	sb_puts(&regs, "}, {");
	for (int i = 0; i < rb; i++)
		sb_printf(&regs, "%s%%%d", i ? ", " : "", 4 + ra + i);
	int c0 = 4 + ra + rb;
	sb_printf(&regs, "}, {%%%d, %%%d, %%%d, %%%d};", c0, c0 + 1, c0 + 2, c0 + 3);
	ec_line(e, "asm(\"%s %s\"", s->ptx, regs.s);
	ec_line(e, "    : \"=%s\"(v%u), \"=%s\"(v%u), \"=%s\"(v%u), \"=%s\"(v%u)", rc, d[0], rc,
	        d[1], rc, d[2], rc, d[3]);
	StrBuf in = {0};
	for (int i = 0; i < ra + rb; i++)
		sb_printf(&in, "%s\"r\"(t%d[%d])", i ? ", " : "", tmp, i);
	const TpVal *c = op->operands + s->na + s->nb;
	ec_line(e, "    : %s,", in.s);
	ec_line(e, "      \"%s\"(v%u), \"%s\"(v%u), \"%s\"(v%u), \"%s\"(v%u));", rc, c[0], rc, c[1],
	        rc, c[2], rc, c[3]);
	sb_free(&regs);
	sb_free(&in);
}

/* ---- ldmatrix ---------------------------------------------------------------------------- */

static void emit_ldmatrix(Ec *e, const TpOp *op)
{
	int n = (int)op->attr.i;
	if (n != 1 && n != 2 && n != 4)
		ice("emit_cuda", "ldmatrix of %d matrices", n);
	if (e->f->smem_bytes <= 0)
		ice("emit_cuda", "'ldmatrix' in a kernel with no shared memory");
	bool trans = op->attr.flags & TP_TRANS;
	int tmp = ec_tmp(e);
	ec_line(e, "uint32_t t%d[%d];", tmp, n);
	StrBuf regs = {0}, outs = {0};
	for (int i = 0; i < n; i++) {
		sb_printf(&regs, "%s%%%d", i ? ", " : "", i);
		sb_printf(&outs, "%s\"=r\"(t%d[%d])", i ? ", " : "", tmp, i);
	}
	ec_line(e, "asm volatile(\"ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {%s}, [%%%d];\"", n,
	        trans ? ".trans" : "", regs.s, n);
	ec_line(e, "\t     : %s", outs.s);
	ec_line(e, "\t     : \"r\"(smem_s + (uint32_t)v%u) : \"memory\");",
	        op->operands[0]);
	/* each word holds epr values, lowest first */
	int eb = dtype_bytes(dt_of(e, op->results[0])), epr = 4 / eb;
	for (int j = 0; j < op->nout && j < epr * n; j++) {
		char bits[48];
		int sh = 8 * eb * (j % epr);
		if (dt_of(e, op->results[j]) == DT_I1) /* a boolean tests its own byte alone */
			snprintf(bits, sizeof bits, "(t%d[%d] >> %d) & 0xffu", tmp, j / epr, sh);
		else if (sh)
			snprintf(bits, sizeof bits, "t%d[%d] >> %d", tmp, j / epr, sh);
		else
			snprintf(bits, sizeof bits, "t%d[%d]", tmp, j / epr);
		StrBuf x = {0};
		ec_from_bits(e, &x, dt_of(e, op->results[j]), bits);
		ec_decl(e, op->results[j], "%s", x.s);
		sb_free(&x);
	}
	sb_free(&regs);
	sb_free(&outs);
}

/* ---- print and assert -------------------------------------------------------------------- */

/* s as the inside of a C string literal; `fmt`: also doubles '%'. */
static void c_escape(StrBuf *b, const char *s, bool fmt)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(b, "\\%c", *p);
		else if (*p == '%' && fmt)
			sb_puts(b, "%%");
		else if (*p == '\n')
			sb_puts(b, "\\n");
		else if (*p < 32 || *p >= 127)
			sb_printf(b, "\\%03o", *p);
		else
			sb_putc(b, (char)*p);
	}
}

/* printf conversion and argument for one value, formatted as the CPU
 * runtime's tile_rt_print does (src/jit/rt_hooks.c). */
static void print_arg(Ec *e, TpVal v, bool hex, StrBuf *fmt, StrBuf *args)
{
	DType d = dt_of(e, v);
	char x[16];
	snprintf(x, sizeof x, "v%u", v);
	if (d == DT_PTR) {
		sb_puts(fmt, "0x%llx");
		sb_printf(args, "(unsigned long long)%s", x);
	} else if (hex) { /* Triton's "0x%0Nx": the bits, N hex digits for the type's width */
		sb_printf(fmt, "0x%%0%dllx", (dtype_bits(d) + 3) / 4);
		sb_puts(args, "(unsigned long long)");
		ec_bits(e, args, v, true);
	} else if (dtype_is_float(d)) {
		sb_puts(fmt, "%f");
		char *s = ec_convert(e, x, d, DT_F64, false);
		sb_puts(args, s);
		free(s);
	} else if (dtype_is_signed(d)) {
		sb_printf(fmt, "%%lld");
		sb_printf(args, "(long long)%s", x);
	} else {
		sb_printf(fmt, "%%llu");
		sb_printf(args, "(unsigned long long)%s", x);
	}
}

/* One line per value as Triton prints it: "pid (x, y, z) idx (i, j)PREFIX
 * value" (sema made the prefix " x: "), the element's coordinates in its tile
 * when the first attr.i operands hold them (padded to attr.perm[d] digits),
 * "idx ()" for a scalar; a print without values is "pid (x, y, z)PREFIX". */
static void emit_print(Ec *e, const TpOp *op)
{
	StrBuf pre = {0}, ifmt = {0}, iargs = {0};
	if (op->attr.str && *op->attr.str)
		c_escape(&pre, op->attr.str, true);
	if (op->nin == 0) {
		ec_line(e, "printf(\"pid (%%d, %%d, %%d)%s\\n\", blockIdx.x, blockIdx.y, blockIdx.z);", pre.s ? pre.s : "");
		sb_free(&pre);
		return;
	}
	int nc = op->attr.i > 0 && op->attr.i < op->nin ? (int)op->attr.i : 0;
	for (int d = 0; d < nc; d++) {
		int w = d < TIR_MAX_RANK ? op->attr.perm[d] : 0;
		if (w > 0)
			sb_printf(&ifmt, "%s%%%dd", d ? ", " : "", w);
		else
			sb_printf(&ifmt, "%s%%d", d ? ", " : "");
		sb_printf(&iargs, "(int)v%u, ", op->operands[d]);
	}
	char label[32] = ""; /* a print of several values names each, as Triton's does */
	if (op->attr.i2 > 0)
		snprintf(label, sizeof label, "(operand %d) ", (int)op->attr.i2 - 1);
	for (int i = nc; i < op->nin; i++) {
		StrBuf fmt = {0}, args = {0};
		print_arg(e, op->operands[i], op->attr.flags & TIR_HEX, &fmt, &args);
		ec_line(e, "printf(\"pid (%%d, %%d, %%d) idx (%s)%s%s%s\\n\", blockIdx.x, blockIdx.y, blockIdx.z, %s%s);",
		        ifmt.s ? ifmt.s : "", pre.s ? pre.s : "", label, fmt.s, iargs.s ? iargs.s : "", args.s);
		sb_free(&fmt);
		sb_free(&args);
	}
	sb_free(&pre);
	sb_free(&ifmt);
	sb_free(&iargs);
}

/* attr.str = "file:line: message" (lower_assert), file and line those of
 * op->loc: taken from there, as a file name may hold ":12:" itself */
static void emit_assert(Ec *e, const TpOp *op)
{
	const char *s = op->attr.str ? op->attr.str : "";
	const char *fname = op->loc.file && op->loc.file->name ? op->loc.file->name : "<kernel>";
	long line = op->loc.line;
	StrBuf pre = {0};
	sb_printf(&pre, "%s:%ld: ", fname, line);
	const char *msg = strncmp(s, pre.s, pre.len) ? s : s + pre.len;
	sb_free(&pre);
	StrBuf file = {0}, m = {0}, fn = {0};
	c_escape(&file, fname, false);
	c_escape(&m, msg, false);
	c_escape(&fn, e->f->display ? e->f->display : e->f->name, false); /* as the user names it */
	ec_line(e, "if (!v%u)", op->operands[0]);
	ec_line(e, "\t__assertfail(\"%s\", \"%s\", %ld, \"%s\", 1);", m.s ? m.s : "", file.s, line,
	        fn.s);
	sb_free(&file);
	sb_free(&m);
	sb_free(&fn);
}

/* %globaltimer (u64 ns) / %smid: volatile, so each call is a fresh reading */
static void emit_sreg(Ec *e, const TpOp *op)
{
	TpVal r = op->results[0];
	if (op->attr.i == SREG_SMID) {
		ec_line(e, "int32_t v%u;", r);
		ec_line(e, "asm volatile(\"mov.u32 %%0, %%%%smid;\" : \"=r\"(v%u));", r);
	} else {
		ec_line(e, "uint64_t v%u;", r);
		ec_line(e, "asm volatile(\"mov.u64 %%0, %%%%globaltimer;\" : \"=l\"(v%u));", r);
	}
}

bool ec_intrin(Ec *e, const TpOp *op)
{
	switch ((TpOpKind)op->kind) {
	case TP_SHFL_XOR:
	case TP_SHFL_IDX: emit_shfl(e, op); return true;
	case TP_MMA: emit_mma(e, op); return true;
	case TP_LDMATRIX: emit_ldmatrix(e, op); return true;
	case TP_BARRIER: ec_line(e, "__syncthreads();"); return true;
	case TP_SREG: emit_sreg(e, op); return true;
	case TP_PRINT: emit_print(e, op); return true;
	case TP_ASSERT: emit_assert(e, op); return true;
	default: return false;
	}
}
