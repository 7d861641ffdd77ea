/* builtins_asm.c: tl.inline_asm_elementwise, by translating the PTX.
 *
 * Kernels use inline PTX for single instructions C has no spelling for
 * (tanh.approx.f32, cvt.rn.f16x2.f32, prmt.b32, lop3.b32, div.rn.f32, ...).
 * tile runs a kernel on the CPU and on NVIDIA GPUs from one Tile IR, so
 * instead of pasting the text into the CUDA C it translates each instruction
 * into Tile IR ops here, once: the kernel then runs (and is checked) the same
 * on every target. An instruction outside the translated set is an error that
 * names it; nothing is passed through unchecked.
 *
 * The model: every PTX register ($N operands and .reg temporaries) is an IR
 * value of the packed shape holding the register's bits as an unsigned
 * integer (a predicate is an i1). An instruction reads its operands as the
 * type its suffix names (bitcast), computes with ordinary ops and writes the
 * bits back. .f16x2-style types run the op on each half. With pack = P, the
 * operands' last axis is cut into groups of P consecutive elements, and each
 * group is one register (element 0 in the low bits), as Triton packs a
 * thread's consecutive registers.
 *
 * Approximate instructions (.approx, .ftz) are computed exactly: the results
 * are at least as accurate as the hardware's. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sema/asm_int.h"

/* ---- packing operands into registers ----------------------------------------------------- */

/* x's last axis cut in groups of p: the p tiles of element k of each group */
static void ungroup(Sema *s, ValId x, int p, ValId *out, SrcLoc loc)
{
	if (p == 1) {
		out[0] = x;
		return;
	}
	Type t = vtype(s, x);
	int32_t shape[TIR_MAX_RANK];
	memcpy(shape, t.shape, sizeof shape);
	shape[t.rank - 1] /= 2;
	shape[t.rank] = 2;
	ValId v = shape_reshape(s, x, t.rank + 1, shape, loc);
	ValId half[2];
	for (int b = 0; b < 2; b++) half[b] = shape_pick_axis(s, v, t.rank, b, loc);
	ValId sub[2][8];
	for (int b = 0; b < 2; b++) ungroup(s, half[b], p / 2, sub[b], loc);
	for (int k = 0; k < p; k++) out[k] = sub[k & 1][k >> 1];
}

/* the inverse of ungroup */
static ValId regroup(Sema *s, const ValId *parts, int p, SrcLoc loc)
{
	if (p == 1) return parts[0];
	ValId sub[2][8], half[2];
	for (int k = 0; k < p; k++) sub[k & 1][k >> 1] = parts[k];
	for (int b = 0; b < 2; b++) half[b] = regroup(s, sub[b], p / 2, loc);
	Type t = vtype(s, half[0]);
	ValId j = shape_join_axis(s, half[0], half[1], t.rank, loc);
	int32_t shape[TIR_MAX_RANK];
	memcpy(shape, t.shape, sizeof shape);
	shape[t.rank - 1] *= 2;
	return shape_reshape(s, j, t.rank, shape, loc);
}

static int constraint_bits(char c)
{
	switch (c) {
	case 'h': return 16;
	case 'r': case 'f': return 32;
	case 'l': case 'd': return 64;
	case 'b': return 1;
	case 'c': return 8;
	default: return 0;
	}
}

static Value b_inline_asm(Sema *s, Call *c, int extra)
{
	(void)extra;
	for (int i = 0; i < 6; i++)
		if (c->a[i].kind == V_ERR) return v_err();
	if (!v_is_const(c->a[0], CV_STR) || !v_is_const(c->a[1], CV_STR)) {
		diag_error(s->d, c->loc, "%s: asm and constraints must be constexpr strings", c->name);
		return v_err();
	}
	/* result dtypes */
	Type rt[ASM_MAX_OPNDS];
	int nout = 0;
	Value dv = c->a[3];
	const Value *ditems = &dv;
	int nd = 1;
	if (dv.kind == V_TUPLE) ditems = dv.items, nd = dv.n;
	for (int i = 0; i < nd; i++) {
		Call one = *c;
		one.a[3] = ditems[i];
		if (nout == ASM_MAX_OPNDS || !arg_dtype(s, &one, 3, &rt[nout])) {
			if (nout == ASM_MAX_OPNDS) diag_error(s->d, c->at[3], "%s: too many results", c->name);
			return v_err();
		}
		nout++;
	}
	/* is_pure is a bool to Triton's builder (a str or a tensor was taken) */
	Value pv = c->a[4];
	if (pv.kind != V_CONST || (pv.c.kind != CV_BOOL && pv.c.kind != CV_INT)) {
		diag_error(s->d, c->at[4], "argument 'is_pure' of '%s' must be a constexpr bool, got %s", c->name,
			   v_describe(s, pv));
		return v_err();
	}
	int64_t pack;
	if (!arg_const_int(s, c, 5, &pack)) return v_err();
	if (pack != 1 && pack != 2 && pack != 4 && pack != 8) {
		diag_error(s->d, c->at[5], "%s: pack must be 1, 2, 4 or 8, got %lld", c->name, (long long)pack);
		return v_err();
	}
	/* arguments, broadcast to one shape */
	Value av = c->a[2];
	if (av.kind != V_TUPLE) { /* Triton iterates it: one tensor was taken as [it] */
		diag_error(s->d, c->at[2], "argument 'args' of '%s' must be a list or tuple of tensors, got %s", c->name,
			   v_describe(s, av));
		return v_err();
	}
	const Value *aitems = av.items;
	int na = av.n;
	if (na > ASM_MAX_OPNDS) {
		diag_error(s->d, c->at[2], "%s: at most %d arguments", c->name, ASM_MAX_OPNDS);
		return v_err();
	}
	ValId args[ASM_MAX_OPNDS];
	for (int i = 0; i < na; i++) {
		Call one = *c;
		one.a[2] = aitems[i];
		if (!arg_tensor(s, &one, 2, &args[i])) return v_err();
	}
	for (int i = 1; i < na; i++)
		if (!broadcast_pair(s, &args[0], &args[i], c->loc)) return v_err();
	for (int i = 1; i < na; i++)
		if (!broadcast_pair(s, &args[i], &args[0], c->loc)) return v_err();
	Type shape = na ? vtype(s, args[0]) : type_scalar(DT_I32);
	if (pack > 1 && (shape.rank == 0 || shape.shape[shape.rank - 1] % pack)) {
		diag_error(s->d, c->at[5], "%s: pack=%lld needs the arguments' last dimension to be a multiple of it",
			   c->name, (long long)pack);
		return v_err();
	}
	if (pack > 1 && shape.rank == TIR_MAX_RANK) {
		diag_error(s->d, c->at[5], "%s: pack > 1 on a rank-%d tensor is not supported", c->name, TIR_MAX_RANK);
		return v_err();
	}
	/* constraints: outputs "=r", then one per argument */
	char cons[64][8];
	int ncons = 0;
	{
		/* every comma separates two constraints: strtok skipped an empty
		 * one, so "=r,,r" and ",=r,r" were taken (LLVM refuses them) */
		char *buf = xstrdup(c->a[1].c.s);
		for (char *p = buf, *next; p; p = next) {
			next = strchr(p, ',');
			if (next) *next++ = 0;
			while (isspace((unsigned char)*p)) p++;
			char *e = p + strlen(p);
			while (e > p && isspace((unsigned char)e[-1])) *--e = 0;
			if (!*p && (next || ncons > 0 || *c->a[1].c.s)) {
				diag_error(s->d, c->at[1], "%s: constraint %d of \"%s\" is empty", c->name, ncons + 1,
					   c->a[1].c.s);
				free(buf);
				return v_err();
			}
			if (!*p) break; /* "": no constraints */
			if (ncons == (int)COUNTOF(cons) || strlen(p) >= sizeof cons[0]) {
				free(buf);
				diag_error(s->d, c->at[1], "%s: bad constraint string \"%s\"", c->name, c->a[1].c.s);
				return v_err();
			}
			snprintf(cons[ncons++], sizeof cons[0], "%s", p);
		}
		free(buf);
	}
	/* Each result and argument takes pack / per registers of per elements,
	 * per = min(max(32 / bits, 1), pack): elements under 32 bits share a
	 * 32-bit register, as Triton packs them. */
	int per[ASM_MAX_OPNDS * 2], nregs = 0;
	Type et[ASM_MAX_OPNDS * 2];
	for (int i = 0; i < nout + na; i++) {
		et[i] = i < nout ? rt[i] : type_elem(vtype(s, args[i - nout]));
		int bits = et[i].dt == DT_I1 ? 32 : dtype_bits((DType)et[i].dt);
		per[i] = bits >= 32 ? 1 : (int)(32 / bits < pack ? 32 / bits : pack);
		nregs += (int)pack / per[i];
	}
	if (ncons != nregs) {
		diag_error(s->d, c->at[1], "%s: %d constraints, but the %d result%s and %d argument%s with pack=%lld take %d registers",
			   c->name, ncons, nout, nout == 1 ? "" : "s", na, na == 1 ? "" : "s", (long long)pack, nregs);
		return v_err();
	}
	Asm *a = xcalloc(1, sizeof *a);
	a->s = s;
	a->loc = c->loc;
	a->rank = shape.rank;
	memcpy(a->shape, shape.shape, sizeof a->shape);
	if (a->rank) a->shape[a->rank - 1] /= (int32_t)pack;
	Value result = v_err();
	snprintf(a->insn, sizeof a->insn, "%s", c->a[1].c.s);
	int first_reg[ASM_MAX_OPNDS * 2];
	bool is_imm[64] = {false};
	uint64_t imm_val[64];
	for (int i = 0, ci = 0; i < nout + na; i++) {
		bool out = i < nout;
		DType d = (DType)et[i].dt;
		int ebits = d == DT_I1 ? 1 : dtype_bits(d), width = d == DT_I1 ? 1 : ebits * per[i];
		ValId parts[8] = {0};
		if (!out) {
			ungroup(s, args[i - nout], (int)pack, parts, c->loc);
			for (int k = 0; k < pack; k++)
				if (d != DT_I1) parts[k] = asm_bitc(a, parts[k], asm_uint_of(ebits));
		}
		first_reg[i] = a->nregs;
		for (int j = 0; j < pack / per[i]; j++, ci++) {
			const char *k = cons[ci] + (cons[ci][0] == '=');
			/* "n": an immediate, from a constexpr integer argument */
			bool imm = !out && !strcmp(k, "n");
			int bits = imm ? (width > 32 ? 64 : 32) : strlen(k) == 1 ? constraint_bits(k[0]) : 0;
			if (out != (cons[ci][0] == '=') || !bits) {
				diag_error(s->d, c->at[1],
					   "%s: constraint \"%s\" is not one of =r =h =l =f =d =b (results, first) or r h l f d b n",
					   c->name, cons[ci]);
				goto done;
			}
			if (imm && (aitems[i - nout].kind != V_CONST || !v_is_intlike(aitems[i - nout]))) {
				diag_error(s->d, c->at[2], "%s: argument %d has constraint \"n\" (an immediate), so it must be a constexpr integer",
					   c->name, i - nout);
				goto done;
			}
			if (bits < width || (bits == 1) != (width == 1)) {
				diag_error(s->d, c->at[1], "%s: constraint \"%s\" is a %d-bit register, but it must hold %d %s (%d bits)",
					   c->name, cons[ci], bits, per[i], dt_name(s, et[i]), width);
				goto done;
			}
			if (imm) { /* substituted into the text as a literal, below */
				is_imm[ci] = true;
				imm_val[ci] = (uint64_t)aitems[i - nout].c.i & (bits == 64 ? ~0ull : 0xffffffffull);
				continue;
			}
			char name[16];
			snprintf(name, sizeof name, "$%d", ci);
			asm_reg_declare(a, name, bits);
			if (!out) {
				ValId v = d == DT_I1 ? parts[j] : asm_join_lanes(a, parts + j * per[i], per[i]);
				a->regs[a->nregs - 1].v = d == DT_I1 ? v : asm_resize(a, v, bits);
			}
		}
	}
	StrBuf text = {0};
	for (const char *q = c->a[0].c.s; *q;) {
		char *e;
		long n = *q == '$' && isdigit((unsigned char)q[1]) ? strtol(q + 1, &e, 10) : -1;
		if (n >= 0 && n < ncons && is_imm[n]) {
			sb_printf(&text, "0x%llx", (unsigned long long)imm_val[n]);
			q = e;
		} else {
			sb_putc(&text, *q++);
		}
	}
	bool translated = asm_translate_all(a, text.s ? text.s : "");
	sb_free(&text);
	if (!translated) goto done;
	Value outs[ASM_MAX_OPNDS];
	for (int i = 0; i < nout; i++) {
		DType d = (DType)rt[i].dt;
		ValId parts[8];
		for (int j = 0; j < pack / per[i]; j++) {
			AsmReg *r = &a->regs[first_reg[i] + j];
			if (!r->v) {
				diag_error(s->d, c->loc, "%s: result register %s is never written by the asm", c->name, r->name);
				goto done;
			}
			for (int l = 0; l < per[i]; l++)
				parts[j * per[i] + l] = d == DT_I1 ? r->v
				                        : asm_lane_of(a, asm_resize(a, r->v, dtype_bits(d) * per[i]), per[i], l, d);
		}
		outs[i] = v_tensor(s, regroup(s, parts, (int)pack, c->loc));
	}
	result = nd == 1 && dv.kind != V_TUPLE ? outs[0] : v_tuple(s, outs, nout);
done:
	free(a);
	return result;
}

const Builtin builtins_asm[] = {
    {"inline_asm_elementwise", "asm,constraints,args,dtype,is_pure,pack", b_inline_asm, 0, BF_TL},
    {NULL, NULL, NULL, 0, 0},
};
