/* tp.c: the thread program: construction, printer (--emit=thread), verifier.
 *
 * Everything lives in the compilation arena (value table and op arrays grow
 * by copying inside the arena; the waste is bounded by the final size).
 */
#include "codegen/tp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	int flags;
} tp_ops[] = {
#define X(n, s, f) {s, f},
        TP_OPS(X)
#undef X
};

const char *tp_op_name(TpOpKind k) { return (unsigned)k < TP_COUNT ? tp_ops[k].name : "?"; }

int tp_op_flags(TpOpKind k) { return (unsigned)k < TP_COUNT ? tp_ops[k].flags : 0; }

int tp_loop_carried_words(const TpFunc *f, const TpBlock *b, bool pointers)
{
	int most = 0;
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_FOR || op->kind == TP_WHILE) {
			int w = 0;
			for (int k = 0; k < op->nout; k++) {
				Type t = tp_type(f, op->results[k]);
				if (pointers)
					w += t.dt == DT_PTR && !t.addrspace ? 2 : 0;
				else if (t.dt != DT_PTR)
					w += dtype_bytes((DType)t.dt) > 4 ? 2 : 1;
			}
			most = MAXOF(most, w);
		}
		for (int r = 0; r < op->nregions; r++) {
			int inner = tp_loop_carried_words(f, &op->regions[r], pointers); /* once: not in MAXOF */
			most = MAXOF(most, inner);
		}
	}
	return most;
}

/* Grow an arena array of elem-sized items to hold `need`. */
static void *agrow(Arena *a, void *data, size_t len, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return data;
	size_t nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	void *nd = arena_alloc(a, nc * elem);
	if (len)
		memcpy(nd, data, len * elem);
	*cap = nc;
	return nd;
}

TpFunc *tp_func_new(Arena *a, const char *name, const TargetDesc *t, int num_warps)
{
	TpFunc *f = ARENA_NEW(a, TpFunc);
	f->arena = a;
	f->name = arena_strdup(a, name ? name : "kernel");
	f->target = *t;
	f->num_warps = num_warps > 0 ? num_warps : 1;
	f->lanes_per_warp = t->lanes_per_warp > 0 ? t->lanes_per_warp : 1;
	tp_new_val(f, type_scalar(DT_VOID), true); /* 0 = none */
	f->body = tp_block_new(f);
	return f;
}

TpVal tp_new_val(TpFunc *f, Type t, bool uniform)
{
	f->vals.data = agrow(f->arena, f->vals.data, f->vals.len, &f->vals.cap, f->vals.len + 1,
	                     sizeof *f->vals.data);
	TpValInfo vi = {t, uniform};
	f->vals.data[f->vals.len] = vi;
	return (TpVal)f->vals.len++;
}

TpBlock *tp_block_new(TpFunc *f) { return ARENA_NEW(f->arena, TpBlock); }

TpVal tp_block_add_arg(TpFunc *f, TpBlock *b, Type t, bool uniform)
{
	TpVal v = tp_new_val(f, t, uniform);
	TpVal *na = ARENA_NEWN(f->arena, TpVal, b->nargs + 1);
	if (b->nargs)
		memcpy(na, b->args, sizeof(TpVal) * (size_t)b->nargs);
	na[b->nargs++] = v;
	b->args = na;
	return v;
}

static bool kind_varies(TpOpKind k)
{
	switch (k) {
	case TP_LANE_ID:
	case TP_WARP_ID:
	case TP_SHFL_XOR:
	case TP_SHFL_IDX:
	case TP_WARP_XOR:
	case TP_MMA:
	case TP_LDMATRIX: return true;
	default: return false;
	}
}

TpOp *tp_op(TpFunc *f, TpBlock *b, TpOpKind k, SrcLoc loc, const TpVal *in, int nin,
            const Type *out_types, int nout)
{
	TpOp *op = ARENA_NEW(f->arena, TpOp);
	op->kind = (uint16_t)k;
	op->loc = loc;
	op->nin = nin;
	op->operands = nin ? arena_dup(f->arena, in, sizeof(TpVal) * (size_t)nin) : NULL;
	bool uni = !kind_varies(k) &&
	           ((tp_op_flags(k) & TF_PURE) || k == TP_LOAD || k == TP_SMEM_LOAD);
	for (int i = 0; i < nin && uni && k != TP_UNIFORM; i++)
		if (in[i] && !f->vals.data[in[i]].uniform)
			uni = false;
	op->nout = nout;
	op->results = nout ? ARENA_NEWN(f->arena, TpVal, nout) : NULL;
	for (int i = 0; i < nout; i++) {
		Type t = out_types[i];
		t.rank = 0;
		op->results[i] = tp_new_val(f, t, uni);
	}
	size_t cap = (size_t)b->cap;
	b->ops =
	        agrow(f->arena, b->ops, (size_t)b->nops, &cap, (size_t)b->nops + 1, sizeof(TpOp *));
	b->cap = (int)cap;
	b->ops[b->nops++] = op;
	return op;
}

void tp_op_add_regions(TpFunc *f, TpOp *op, int n)
{
	TpBlock *r = ARENA_NEWN(f->arena, TpBlock, n);
	for (int i = 0; i < n; i++)
		r[i].parent = op;
	op->regions = r;
	op->nregions = n;
}

/* ---- printer ------------------------------------------------------------------ */

typedef struct Printer {
	const TpFunc *f;
	StrBuf *out;
	uint32_t *num; /* TpVal -> printed number (0 = not yet defined) */
	uint32_t next;
} Printer;

static void type_s(Type t, char *buf, int n)
{
	t.rank = 0;
	if (t.dt == DT_PTR) {
		snprintf(buf, (size_t)n, "%s*%s", t.addrspace == 3 ? "shared " : "",
		         dtype_short((DType)t.elem));
		return;
	}
	snprintf(buf, (size_t)n, "%s", dtype_short((DType)t.dt));
}

static void pr_def(Printer *p, TpVal v)
{
	p->num[v] = ++p->next;
	sb_printf(p->out, "%%%u%s", p->num[v], p->f->vals.data[v].uniform ? ":u" : "");
}

static void pr_use(Printer *p, TpVal v)
{
	if (!v)
		sb_puts(p->out, "_");
	else if (!p->num[v])
		sb_printf(p->out, "%%?%u", v); /* undefined: the verifier reports it */
	else
		sb_printf(p->out, "%%%u", p->num[v]);
}

static const char *pred_name(int p)
{
	static const char *n[] = {"eq", "ne", "lt", "le", "gt", "ge"};
	return (unsigned)p < 6 ? n[p] : "?";
}

static const char *atomic_name(int a)
{
	static const char *n[] = {"add", "max", "min", "xchg", "and", "or", "xor"};
	return (unsigned)a < 7 ? n[a] : "?";
}

static void pr_attrs(Printer *p, const TpOp *op)
{
	StrBuf *o = p->out;
	const TirAttr *a = &op->attr;
	switch ((TpOpKind)op->kind) {
	case TP_CONST: {
		Type t = op->nout ? tp_type(p->f, op->results[0]) : type_scalar(DT_I32);
		if (dtype_is_float((DType)t.dt))
			sb_printf(o, " %.17g", a->f);
		else
			sb_printf(o, " %" PRId64, a->i);
		break;
	}
	case TP_PARAM: sb_printf(o, " %" PRId64, a->i); break;
	case TP_PROGRAM_ID:
	case TP_NUM_PROGRAMS: sb_printf(o, " %d", a->axis); break;
	case TP_CMP: sb_printf(o, " %s", pred_name(a->pred)); break;
	case TP_MATH: sb_printf(o, " %s", math_fn_name((MathFn)a->math)); break;
	case TP_ATOMIC: sb_printf(o, " %s", atomic_name(a->atomic)); break;
	case TP_LOAD:
	case TP_STORE:
	case TP_SMEM_LOAD:
	case TP_SMEM_STORE:
	case TP_LDMATRIX:
	case TP_CP_ASYNC:
	case TP_CP_ASYNC_WAIT:
	case TP_MMA: sb_printf(o, " %" PRId64, a->i); break;
	case TP_SREG: sb_puts(o, a->i == SREG_SMID ? " smid" : " globaltimer"); break;
	case TP_SHFL_XOR:
	case TP_WARP_XOR: sb_printf(o, " %" PRId64, a->i); break;
	default: break;
	}
	if ((op->kind == TP_LOAD || op->kind == TP_STORE || op->kind == TP_SMEM_LOAD ||
	     op->kind == TP_SMEM_STORE) &&
	    (a->flags & TP_COALESCED)) {
		sb_puts(o, " coalesced");
		if ((op->kind == TP_LOAD || op->kind == TP_STORE) && a->axis > 0)
			sb_printf(o, " run=%d", a->axis);
	}
	if (op->kind == TP_LOAD && (a->flags & TIR_VOLATILE))
		sb_puts(o, " volatile");
	if (op->kind == TP_LOAD || op->kind == TP_STORE) {
		/* attr.i2 = TIR_CACHE_* | TIR_EVICT_* << 8, spelled as --emit tir spells them */
		static const char *const cache[] = {"", ".ca", ".cg", ".cv", ".wb", ".cs", ".wt"};
		static const char *const evict[] = {"", "evict_first", "evict_last"};
		unsigned c = (unsigned)(a->i2 & 0xff), ev = (unsigned)((a->i2 >> 8) & 0xff);
		if (c)
			sb_printf(o, " cache=%s", c < COUNTOF(cache) ? cache[c] : "?");
		if (ev)
			sb_printf(o, " evict=%s", ev < COUNTOF(evict) ? evict[ev] : "?");
	}
	if (op->kind == TP_LDMATRIX && (a->flags & TP_TRANS))
		sb_puts(o, " trans");
	if ((op->kind == TP_PRINT || op->kind == TP_ASSERT) && a->str) {
		sb_puts(o, " \"");
		for (const char *s = a->str; *s; s++) {
			if (*s == '"' || *s == '\\')
				sb_printf(o, "\\%c", *s);
			else if ((unsigned char)*s < 32)
				sb_printf(o, "\\x%02x", (unsigned char)*s);
			else
				sb_putc(o, *s);
		}
		sb_putc(o, '"');
	}
}

static void pr_block(Printer *p, const TpBlock *b, int depth);

static void indent(StrBuf *o, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_puts(o, "  ");
}

static void pr_op(Printer *p, const TpOp *op, int depth)
{
	StrBuf *o = p->out;
	char tb[48];
	indent(o, depth);
	for (int i = 0; i < op->nout; i++) {
		if (i)
			sb_puts(o, ", ");
		pr_def(p, op->results[i]);
	}
	if (op->nout)
		sb_puts(o, " = ");
	sb_puts(o, tp_op_name((TpOpKind)op->kind));
	pr_attrs(p, op);
	for (int i = 0; i < op->nin; i++) {
		sb_puts(o, i ? ", " : " ");
		pr_use(p, op->operands[i]);
	}
	if (op->nout) {
		type_s(tp_type(p->f, op->results[0]), tb, sizeof tb);
		sb_printf(o, " : %s", tb);
	}
	if (!op->nregions) {
		sb_putc(o, '\n');
		return;
	}
	sb_puts(o, " {\n");
	for (int r = 0; r < op->nregions; r++) {
		if (r) {
			indent(o, depth);
			sb_puts(o, "} {\n");
		}
		pr_block(p, &op->regions[r], depth + 1);
	}
	indent(o, depth);
	sb_puts(o, "}\n");
}

static void pr_block(Printer *p, const TpBlock *b, int depth)
{
	if (b->nargs) {
		char tb[48];
		indent(p->out, depth);
		sb_puts(p->out, "^(");
		for (int i = 0; i < b->nargs; i++) {
			if (i)
				sb_puts(p->out, ", ");
			pr_def(p, b->args[i]);
			type_s(tp_type(p->f, b->args[i]), tb, sizeof tb);
			sb_printf(p->out, ": %s", tb);
		}
		sb_puts(p->out, "):\n");
	}
	for (int i = 0; i < b->nops; i++)
		pr_op(p, b->ops[i], depth);
}

void tp_print(const TpFunc *f, StrBuf *out)
{
	Printer p = {f, out, xcalloc(f->vals.len + 1, sizeof(uint32_t)), 0};
	char tb[48];
	sb_printf(out, "thread_program @%s(", f->display ? f->display : f->name);
	for (int i = 0; i < f->nparams; i++) {
		type_s(f->params[i].ty, tb, sizeof tb);
		sb_printf(out, "%s%s: %s", i ? ", " : "",
		          f->params[i].name ? f->params[i].name : "_", tb);
	}
	sb_printf(out, ") target=%s warps=%d lanes=%d smem=%d {\n", f->target.name, f->num_warps,
	          f->lanes_per_warp, f->smem_bytes);
	pr_block(&p, f->body, 1);
	sb_puts(out, "}\n");
	free(p.num);
}

/* ---- verifier ------------------------------------------------------------------ */

typedef struct Verifier {
	const TpFunc *f;
	uint8_t *state; /* 0 = not defined, 1 = defined and in scope, 2 = out of scope */
	int nvals;
} Verifier;

NORETURN static void vfail(const TpOp *op, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void vfail(const TpOp *op, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	ice("thread program verifier", "%s: %s", op ? tp_op_name((TpOpKind)op->kind) : "function",
	    buf);
}

static Type vty(const Verifier *v, TpVal x) { return v->f->vals.data[x].ty; }

static void vdef(Verifier *v, const TpOp *op, TpVal x)
{
	if (!x || (int)x >= v->nvals)
		vfail(op, "result %u out of range", x);
	if (v->state[x])
		vfail(op, "value %u defined twice", x);
	v->state[x] = 1;
}

static void vuse(Verifier *v, const TpOp *op, TpVal x, bool allow_none)
{
	if (!x) {
		if (!allow_none)
			vfail(op, "missing operand");
		return;
	}
	if ((int)x >= v->nvals || v->state[x] != 1)
		vfail(op, "operand %u used where it is not defined", x);
}

static bool is_i1(Type t) { return t.dt == DT_I1; }

static void need_n(const TpOp *op, int nin, int nout)
{
	if (nin >= 0 && op->nin != nin)
		vfail(op, "%d operands, expected %d", op->nin, nin);
	if (nout >= 0 && op->nout != nout)
		vfail(op, "%d results, expected %d", op->nout, nout);
}

static void check_types(Verifier *v, const TpOp *op)
{
	const TpFunc *f = v->f;
	TpOpKind k = (TpOpKind)op->kind;
	switch (k) {
	case TP_CONST:
	case TP_PARAM:
	case TP_LANE_ID:
	case TP_WARP_ID:
	case TP_PROGRAM_ID:
	case TP_NUM_PROGRAMS:
	case TP_SREG:
		need_n(op, 0, 1);
		if (k == TP_PARAM && (op->attr.i < 0 || op->attr.i >= f->nparams))
			vfail(op, "parameter index %" PRId64 " out of range", op->attr.i);
		break;
	case TP_ADD:
	case TP_SUB:
	case TP_MUL:
	case TP_DIV:
	case TP_REM:
	case TP_AND:
	case TP_OR:
	case TP_XOR:
	case TP_SHL:
	case TP_SHR:
	case TP_MIN:
	case TP_MAX:
	case TP_UMULHI:
		need_n(op, 2, 1);
		if (!type_eq(vty(v, op->operands[0]), vty(v, op->results[0])) ||
		    !type_eq(vty(v, op->operands[1]), vty(v, op->results[0])))
			vfail(op, "operand and result types differ");
		break;
	case TP_NEG:
	case TP_NOT:
		need_n(op, 1, 1);
		if (!type_eq(vty(v, op->operands[0]), vty(v, op->results[0])))
			vfail(op, "operand and result types differ");
		break;
	case TP_CMP:
		need_n(op, 2, 1);
		if (!is_i1(vty(v, op->results[0])) ||
		    !type_eq(vty(v, op->operands[0]), vty(v, op->operands[1])))
			vfail(op, "bad types");
		break;
	case TP_FMA: need_n(op, 3, 1); break;
	case TP_SELECT:
		need_n(op, 3, 1);
		if (!is_i1(vty(v, op->operands[0])) ||
		    !type_eq(vty(v, op->operands[1]), vty(v, op->results[0])) ||
		    !type_eq(vty(v, op->operands[2]), vty(v, op->results[0])))
			vfail(op, "bad types");
		break;
	case TP_MATH:
		need_n(op, -1, 1);
		if (op->nin < 1 || op->nin > 2)
			vfail(op, "bad operand count");
		break;
	case TP_CAST:
	case TP_BITCAST:
	case TP_PTR_TO_INT:
	case TP_INT_TO_PTR: need_n(op, 1, 1); break;
	case TP_PTR_ADD:
		need_n(op, 2, 1);
		if (vty(v, op->operands[0]).dt != DT_PTR || vty(v, op->results[0]).dt != DT_PTR)
			vfail(op, "not a pointer");
		break;
	case TP_LOAD:
		if (op->attr.i < 1 || op->nout != op->attr.i || op->nin != 2 + op->attr.i)
			vfail(op, "vector width %" PRId64 " does not match operands", op->attr.i);
		if (vty(v, op->operands[0]).dt != DT_PTR || !is_i1(vty(v, op->operands[1])))
			vfail(op, "bad pointer or mask");
		break;
	case TP_STORE:
		if (op->attr.i < 1 || op->nout != 0 || op->nin != 2 + op->attr.i)
			vfail(op, "vector width %" PRId64 " does not match operands", op->attr.i);
		if (vty(v, op->operands[0]).dt != DT_PTR || !is_i1(vty(v, op->operands[1])))
			vfail(op, "bad pointer or mask");
		break;
	case TP_ATOMIC: /* (ptr, val0..valN-1, mask) -> N old values */
		if (op->nout < 1 || op->nout > 16 || op->nin != op->nout + 2)
			vfail(op, "%d values for %d results", op->nin - 2, op->nout);
		if (vty(v, op->operands[0]).dt != DT_PTR || !is_i1(vty(v, op->operands[op->nin - 1])))
			vfail(op, "bad pointer or mask");
		break;
	case TP_ATOMIC_CAS:
		need_n(op, 4, 1);
		if (vty(v, op->operands[0]).dt != DT_PTR || !is_i1(vty(v, op->operands[3])))
			vfail(op, "bad pointer or mask");
		break;
	case TP_SHFL_XOR:
	case TP_WARP_XOR: need_n(op, 1, 1); break;
	case TP_SHFL_IDX: need_n(op, 2, 1); break;
	case TP_UNIFORM:
		need_n(op, 1, 1);
		if (!type_eq(vty(v, op->operands[0]), vty(v, op->results[0])))
			vfail(op, "type changes");
		break;
	case TP_SMEM_LOAD:
		if (op->attr.i < 1 || op->nout != op->attr.i || op->nin != 2)
			vfail(op, "vector width does not match");
		break;
	case TP_SMEM_STORE:
		if (op->attr.i < 1 || op->nout != 0 || op->nin != 2 + op->attr.i)
			vfail(op, "vector width does not match");
		break;
	case TP_CP_ASYNC: {
		/* (global ptr, byte_off, mask i1, [pred i1]) */
		if (op->nout != 0 || op->nin < 3 || op->nin > 4)
			vfail(op, "%d operands, %d results: expected 3 or 4, 0", op->nin, op->nout);
		Type o = vty(v, op->operands[1]);
		if (vty(v, op->operands[0]).dt != DT_PTR || !dtype_is_int((DType)o.dt) || is_i1(o))
			vfail(op, "bad pointer or offset");
		for (int i = 2; i < op->nin; i++)
			if (!is_i1(vty(v, op->operands[i])))
				vfail(op, "%s is not i1", i == 2 ? "mask" : "pred");
		if (op->attr.i != 4 && op->attr.i != 8 && op->attr.i != 16)
			vfail(op, "copies %" PRId64 " bytes, expected 4, 8 or 16", op->attr.i);
		break;
	}
	case TP_LDMATRIX: {
		if (op->attr.i != 1 && op->attr.i != 2 && op->attr.i != 4)
			vfail(op, "ldmatrix of %" PRId64 " matrices", op->attr.i);
		if (op->nout < 1)
			vfail(op, "ldmatrix without results");
		/* one 32-bit word per matrix: 2 16-bit, 4 8-bit or 1 32-bit values */
		int eb = dtype_bytes((DType)vty(v, op->results[0]).dt);
		if (eb != 1 && eb != 2 && eb != 4)
			vfail(op, "ldmatrix of %d-byte elements", eb);
		if ((op->attr.flags & TP_TRANS) && eb != 2)
			vfail(op, "ldmatrix.trans of %d-byte elements", eb);
		need_n(op, 1, (4 / eb) * (int)op->attr.i);
		if (vty(v, op->operands[0]).dt != DT_I32)
			vfail(op, "ldmatrix offset is not i32");
		for (int i = 0; i < op->nout; i++) /* as bits */
			if (dtype_bytes((DType)vty(v, op->results[i]).dt) != eb)
				vfail(op, "ldmatrix result %d is not a %d-byte scalar", i, eb);
		break;
	}
	case TP_BARRIER:
	case TP_CP_ASYNC_COMMIT: need_n(op, 0, 0); break;
	case TP_CP_ASYNC_WAIT:
		need_n(op, 0, 0);
		if (op->attr.i < 0)
			vfail(op, "negative group count %" PRId64, op->attr.i);
		break;
	case TP_MMA: {
		if (op->attr.i < 0 || op->attr.i >= MMA_KIND_COUNT)
			vfail(op, "bad mma kind");
		int ka = mma_kind_na((int)op->attr.i);
		need_n(op, ka + ka / 2 + 4, 4);
		break;
	}
	default: break;
	}
	if ((tp_op_flags(k) & TF_PURE) && k != TP_MMA && k != TP_UNIFORM && !kind_varies(k) && op->nout == 1 &&
	    f->vals.data[op->results[0]].uniform)
		for (int i = 0; i < op->nin; i++)
			if (op->operands[i] && !f->vals.data[op->operands[i]].uniform)
				vfail(op, "uniform result with a varying operand");
	if (kind_varies(k))
		for (int i = 0; i < op->nout; i++)
			if (f->vals.data[op->results[i]].uniform)
				vfail(op, "result marked uniform");
}

static void v_block(Verifier *v, const TpBlock *b, const TpOp *owner);

static void check_term(const TpBlock *b, const TpOp *owner, int region)
{
	TpOpKind want = TP_YIELD;
	if (owner && owner->kind == TP_WHILE && region == 0)
		want = TP_CONDITION;
	if (!owner) {
		if (b->nops && b->ops[b->nops - 1]->kind != TP_RETURN)
			vfail(b->ops[b->nops - 1], "body does not end in return");
		return;
	}
	if (!b->nops || b->ops[b->nops - 1]->kind != want)
		vfail(owner, "region %d does not end in %s", region, tp_op_name(want));
}

static int n_yield(const TpBlock *b) { return b->nops ? b->ops[b->nops - 1]->nin : 0; }

static void check_region_op(Verifier *v, const TpOp *op)
{
	const TpFunc *f = v->f;
	switch ((TpOpKind)op->kind) {
	case TP_FOR: {
		if (op->nregions != 1 || op->nin < 3)
			vfail(op, "bad shape");
		int n = op->nin - 3;
		const TpBlock *b = &op->regions[0];
		if (b->nargs != n + 1 || op->nout != n || n_yield(b) != n)
			vfail(op, "iter count mismatch");
		for (int i = 0; i < 3; i++)
			if (!f->vals.data[op->operands[i]].uniform)
				vfail(op, "loop bounds must be uniform");
		break;
	}
	case TP_IF:
		if (op->nregions != 2 || op->nin != 1)
			vfail(op, "bad shape");
		if (!f->vals.data[op->operands[0]].uniform)
			vfail(op, "condition must be uniform");
		if (n_yield(&op->regions[0]) != op->nout || n_yield(&op->regions[1]) != op->nout)
			vfail(op, "yield count mismatch");
		break;
	case TP_WHILE: {
		if (op->nregions != 2)
			vfail(op, "bad shape");
		const TpBlock *bf = &op->regions[0], *af = &op->regions[1];
		if (bf->nargs != op->nin || n_yield(af) != op->nin)
			vfail(op, "iter count mismatch");
		if (n_yield(bf) != af->nargs + 1 || op->nout != af->nargs)
			vfail(op, "condition values mismatch");
		break;
	}
	default: vfail(op, "unexpected regions");
	}
	for (int r = 0; r < op->nregions; r++) {
		check_term(&op->regions[r], op, r);
		v_block(v, &op->regions[r], op);
	}
	if (op->kind == TP_WHILE) {
		const TpOp *c = op->regions[0].ops[op->regions[0].nops - 1];
		if (!f->vals.data[c->operands[0]].uniform)
			vfail(c, "condition must be uniform");
	}
}

static void v_block(Verifier *v, const TpBlock *b, const TpOp *owner)
{
	for (int i = 0; i < b->nargs; i++)
		vdef(v, owner, b->args[i]);
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind >= TP_COUNT)
			vfail(op, "bad op kind %d", op->kind);
		if ((tp_op_flags((TpOpKind)op->kind) & TF_TERM) && i != b->nops - 1)
			vfail(op, "terminator in the middle of a block");
		bool none_ok = op->kind == TP_PRINT;
		for (int j = 0; j < op->nin; j++)
			vuse(v, op, op->operands[j], none_ok);
		if (op->nregions)
			check_region_op(v, op);
		for (int j = 0; j < op->nout; j++)
			vdef(v, op, op->results[j]);
		check_types(v, op);
	}
	/* leaving the block: its definitions go out of scope */
	for (int i = 0; i < b->nargs; i++)
		v->state[b->args[i]] = 2;
	if (owner)
		for (int i = 0; i < b->nops; i++)
			for (int j = 0; j < b->ops[i]->nout; j++)
				v->state[b->ops[i]->results[j]] = 2;
}

void tp_verify(const TpFunc *f)
{
	/* in the arena: a failure unwinds (ice) without leaking */
	Verifier v = {f, arena_alloc(f->arena, f->vals.len + 1), (int)f->vals.len};
	check_term(f->body, NULL, 0);
	v_block(&v, f->body, NULL);
	if (f->smem_bytes < 0)
		vfail(NULL, "negative shared memory size");
}
