/* tir.c: construction and printing of the Tile IR (tir.h). The verifier is
 * in tir_verify.c.
 *
 * Values live in TirFunc.vals (arena-backed, grown by doubling); ops and
 * blocks are arena-allocated. The printer renumbers values in program order
 * (%0, %1, ...), so dumps do not depend on the order values were created in.
 */
#include "ir/tir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/linear.h"

static const struct {
	const char *name;
	int flags;
} op_info[TOP_COUNT] = {
#define X(n, s, f) [TOP_##n] = {s, f},
    TIR_OPS(X)
#undef X
};

static const struct {
	const char *name;
	int arity;
} math_info[MATH_COUNT] = {
#define X(n, s, a) [MATH_##n] = {s, a},
    MATH_FNS(X)
#undef X
};

const char *tir_op_name(TirOpKind k) { return (unsigned)k < TOP_COUNT ? op_info[k].name : "?"; }
int tir_op_flags(TirOpKind k) { return (unsigned)k < TOP_COUNT ? op_info[k].flags : 0; }
const char *math_fn_name(MathFn m) { return (unsigned)m < MATH_COUNT ? math_info[m].name : "?"; }
int math_fn_arity(MathFn m) { return (unsigned)m < MATH_COUNT ? math_info[m].arity : 0; }

/* ---- construction ---------------------------------------------------------- */

/* vals is declared as a VEC but kept in the arena: grown by copying. */
static void vals_reserve(TirFunc *f, size_t need)
{
	if (need <= f->vals.cap) return;
	size_t cap = f->vals.cap ? f->vals.cap * 2 : 64;
	while (cap < need) cap *= 2;
	TirVal *d = ARENA_NEWN(f->arena, TirVal, cap);
	if (f->vals.len) memcpy(d, f->vals.data, f->vals.len * sizeof *d);
	f->vals.data = d;
	f->vals.cap = cap;
}

TirFunc *tir_func_new(Arena *a, const char *name)
{
	TirFunc *f = ARENA_NEW(a, TirFunc);
	f->arena = a;
	f->name = name;
	vals_reserve(f, 64);
	f->vals.len = 1; /* value 0 = "no value" */
	f->entry = tir_block_new(f);
	f->num_warps = 4;
	return f;
}

ValId tir_new_val(TirFunc *f, Type t)
{
	vals_reserve(f, f->vals.len + 1);
	ValId v = (ValId)f->vals.len++;
	memset(&f->vals.data[v], 0, sizeof(TirVal));
	f->vals.data[v].ty = t;
	return v;
}

TirBlock *tir_block_new(TirFunc *f) { return ARENA_NEW(f->arena, TirBlock); }

ValId tir_block_add_arg(TirFunc *f, TirBlock *b, Type t)
{
	ValId v = tir_new_val(f, t);
	ValId *na = ARENA_NEWN(f->arena, ValId, b->nargs + 1);
	if (b->nargs) memcpy(na, b->args, sizeof(ValId) * (size_t)b->nargs);
	na[b->nargs] = v;
	f->vals.data[v].index = b->nargs;
	f->vals.data[v].block = b;
	b->args = na;
	b->nargs++;
	return v;
}

static void block_insert(TirFunc *f, TirBlock *b, int pos, TirOp *op)
{
	if (b->nops == b->cap) {
		int cap = b->cap ? b->cap * 2 : 8;
		TirOp **n = ARENA_NEWN(f->arena, TirOp *, cap);
		if (b->nops) memcpy(n, b->ops, sizeof(TirOp *) * (size_t)b->nops);
		b->ops = n;
		b->cap = cap;
	}
	if (pos < 0 || pos > b->nops) pos = b->nops;
	memmove(b->ops + pos + 1, b->ops + pos, sizeof(TirOp *) * (size_t)(b->nops - pos));
	b->ops[pos] = op;
	b->nops++;
	op->block = b;
}

void tir_op_move(TirFunc *f, TirOp *op, TirBlock *to, int pos)
{
	TirBlock *from = op->block;
	int i = 0;
	while (i < from->nops && from->ops[i] != op) i++;
	if (i == from->nops) return;
	memmove(from->ops + i, from->ops + i + 1, sizeof(TirOp *) * (size_t)(from->nops - i - 1));
	from->nops--;
	block_insert(f, to, pos, op);
}

void tir_ops_move(TirFunc *f, TirBlock *from, TirOp **ops, int n, TirBlock *to, int pos)
{
	if (n <= 0) return;
	int kept = 0, next = 0;
	for (int i = 0; i < from->nops; i++) {
		if (next < n && from->ops[i] == ops[next]) {
			next++;
			continue;
		}
		from->ops[kept++] = from->ops[i];
	}
	from->nops = kept;
	if (to->nops + n > to->cap) {
		int cap = to->cap ? to->cap : 8;
		while (cap < to->nops + n) cap *= 2;
		TirOp **a = ARENA_NEWN(f->arena, TirOp *, cap);
		if (to->nops) memcpy(a, to->ops, sizeof(TirOp *) * (size_t)to->nops);
		to->ops = a;
		to->cap = cap;
	}
	if (pos < 0 || pos > to->nops) pos = to->nops;
	memmove(to->ops + pos + n, to->ops + pos, sizeof(TirOp *) * (size_t)(to->nops - pos));
	for (int i = 0; i < n; i++) {
		to->ops[pos + i] = ops[i];
		ops[i]->block = to;
	}
	to->nops += n;
}

TirBlock *tir_def_block(const TirFunc *f, ValId v)
{
	const TirVal *t = &f->vals.data[v];
	return t->def ? t->def->block : t->block;
}

bool tir_block_within(const TirOp *op, const TirBlock *b)
{
	for (; b; b = b->parent ? b->parent->block : NULL)
		if (b->parent == op) return true;
	return false;
}

void tir_op_set_results(TirFunc *f, TirOp *op, const Type *out_types, int nout)
{
	op->results = nout ? ARENA_NEWN(f->arena, ValId, nout) : NULL;
	op->nout = nout;
	for (int i = 0; i < nout; i++) {
		ValId v = tir_new_val(f, out_types[i]);
		f->vals.data[v].def = op;
		f->vals.data[v].index = i;
		op->results[i] = v;
	}
}

TirOp *tir_op_at(TirFunc *f, TirBlock *b, int pos, TirOpKind k, SrcLoc loc, const ValId *in,
		 int nin, const Type *out_types, int nout)
{
	TirOp *op = ARENA_NEW(f->arena, TirOp);
	op->kind = (uint16_t)k;
	op->loc = loc;
	op->nin = nin;
	if (nin) op->operands = arena_dup(f->arena, in, sizeof(ValId) * (size_t)nin);
	tir_op_set_results(f, op, out_types, nout);
	block_insert(f, b, pos, op);
	return op;
}

TirOp *tir_op(TirFunc *f, TirBlock *b, TirOpKind k, SrcLoc loc, const ValId *in, int nin,
	      const Type *out_types, int nout)
{
	return tir_op_at(f, b, -1, k, loc, in, nin, out_types, nout);
}

void tir_op_add_regions(TirFunc *f, TirOp *op, int n)
{
	int total = op->nregions + n;
	TirBlock *r = ARENA_NEWN(f->arena, TirBlock, total);
	if (op->nregions) memcpy(r, op->regions, sizeof(TirBlock) * (size_t)op->nregions);
	/* moving blocks: re-point their args and ops at the new storage */
	for (int i = 0; i < op->nregions; i++) {
		for (int j = 0; j < r[i].nargs; j++) f->vals.data[r[i].args[j]].block = &r[i];
		for (int j = 0; j < r[i].nops; j++) r[i].ops[j]->block = &r[i];
	}
	for (int i = 0; i < total; i++) r[i].parent = op;
	op->regions = r;
	op->nregions = total;
}

void tir_add_hint(TirFunc *f, ValId v, TirHintKind kind, int rank, const int32_t *vals)
{
	if (f->nhints == f->cap_hints) {
		int cap = f->cap_hints ? f->cap_hints * 2 : 8;
		TirHint *n = ARENA_NEWN(f->arena, TirHint, cap);
		if (f->nhints) memcpy(n, f->hints, sizeof(TirHint) * (size_t)f->nhints);
		f->hints = n;
		f->cap_hints = cap;
	}
	TirHint *h = &f->hints[f->nhints++];
	memset(h, 0, sizeof *h);
	h->val = v;
	h->kind = kind;
	h->rank = rank;
	for (int i = 0; i < rank && i < TIR_MAX_RANK; i++) h->v[i] = vals[i];
}

static void replace_in_block(TirBlock *b, ValId from, ValId to)
{
	for (int i = 0; i < b->nops; i++) {
		TirOp *op = b->ops[i];
		for (int j = 0; j < op->nin; j++)
			if (op->operands[j] == from) op->operands[j] = to;
		for (int r = 0; r < op->nregions; r++) replace_in_block(&op->regions[r], from, to);
	}
}

void tir_replace_uses(TirFunc *f, ValId from, ValId to)
{
	replace_in_block(f->entry, from, to);
	for (int i = 0; i < f->nhints; i++)
		if (f->hints[i].val == from) f->hints[i].val = to;
}

/* ---- printing ---------------------------------------------------------------- */

typedef struct Printer {
	const TirFunc *f;
	StrBuf *out;
	bool layouts;
	uint32_t *num; /* ValId -> print number + 1 (0 = not yet numbered) */
	uint32_t next;
} Printer;

static void number(Printer *p, ValId v)
{
	if (v < p->f->vals.len && !p->num[v]) p->num[v] = ++p->next;
}

static void put_val(Printer *p, ValId v)
{
	if (v < p->f->vals.len && p->num[v]) sb_printf(p->out, "%%%u", p->num[v] - 1);
	else sb_printf(p->out, "%%?%u", v);
}

static void put_type(Printer *p, ValId v)
{
	char buf[96];
	type_str(p->f->vals.data[v].ty, buf, sizeof buf);
	sb_puts(p->out, buf);
	const struct LinearLayout *l = p->f->vals.data[v].layout;
	if (p->layouts && l) {
		char small[512];
		int n = ll_print(l, small, sizeof small);
		if (n >= 0 && (size_t)n < sizeof small) {
			sb_putc(p->out, ' ');
			sb_puts(p->out, small);
		} else if (n > 0) {
			char *big = xmalloc((size_t)n + 1);
			ll_print(l, big, (size_t)n + 1);
			sb_putc(p->out, ' ');
			sb_puts(p->out, big);
			free(big);
		}
	}
}

static void put_str(StrBuf *b, const char *s)
{
	sb_putc(b, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') sb_printf(b, "\\%c", c);
		else if (c == '\n') sb_puts(b, "\\n");
		else if (c < 32 || c >= 127) sb_printf(b, "\\x%02x", c);
		else sb_putc(b, (char)c);
	}
	sb_putc(b, '"');
}

static void put_double(StrBuf *b, double d, DType dt)
{
	if (isnan(d)) sb_puts(b, "nan");
	else if (isinf(d)) sb_puts(b, d < 0 ? "-inf" : "inf");
	else {
		char buf[64];
		snprintf(buf, sizeof buf, dt == DT_F64 ? "%.17g" : "%.9g", d);
		sb_puts(b, buf);
		if (!strpbrk(buf, ".e")) sb_puts(b, ".0");
	}
}

static void indent(Printer *p, int depth)
{
	for (int i = 0; i < depth; i++) sb_puts(p->out, "  ");
}

static const char *pred_names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *atomic_names[] = {"add", "max", "min", "xchg", "and", "or", "xor"};
static const char *prec_names[] = {"ieee", "tf32", "tf32x3", "bf16x3", "bf16x6"};
static const char *cache_names[] = {"", ".ca", ".cg", ".cv", ".wb", ".cs", ".wt"};
static const char *evict_names[] = {"", "evict_first", "evict_last"};
static const char *sem_names[] = {"acq_rel", "relaxed", "acquire", "release"};
static const char *scope_names[] = {"gpu", "cta", "sys"};

#define NAME_AT(tab, i) ((unsigned)(i) < COUNTOF(tab) ? (tab)[i] : "?")

/* The part of an op between its name and its operands ("lt", "exp", "add"). */
static void put_op_word(Printer *p, const TirOp *op)
{
	switch (op->kind) {
	case TOP_CMP: sb_printf(p->out, " %s", NAME_AT(pred_names, op->attr.pred)); break;
	case TOP_MATH: sb_printf(p->out, " %s", math_fn_name((MathFn)op->attr.math)); break;
	case TOP_ATOMIC: sb_printf(p->out, " %s", NAME_AT(atomic_names, op->attr.atomic)); break;
	case TOP_SREG: sb_puts(p->out, op->attr.i == SREG_SMID ? " smid" : " globaltimer"); break;
	default: break;
	}
}

/* Attributes, printed as " {k=v, ...}" after the operands. */
static void put_attrs(Printer *p, const TirOp *op)
{
	StrBuf a = {0};
	const TirAttr *t = &op->attr;
	switch (op->kind) {
	case TOP_PROGRAM_ID:
	case TOP_NUM_PROGRAMS:
	case TOP_EXPAND_DIMS:
	case TOP_REDUCE: sb_printf(&a, "axis=%d", t->axis); break;
	case TOP_SCAN:
		sb_printf(&a, "axis=%d", t->axis);
		if (t->flags & TIR_REVERSE) sb_puts(&a, ", reverse");
		break;
	case TOP_ARANGE: sb_printf(&a, "start=%lld, end=%lld", (long long)t->i, (long long)t->i2); break;
	case TOP_TRANS: {
		int r = op->nout ? p->f->vals.data[op->results[0]].ty.rank : 0;
		sb_puts(&a, "perm=[");
		for (int i = 0; i < r; i++) sb_printf(&a, "%s%d", i ? "," : "", t->perm[i]);
		sb_puts(&a, "]");
		break;
	}
	case TOP_DIV:
		if (t->flags & TIR_DIV_RN) sb_puts(&a, "rn");
		break;
	case TOP_MIN:
	case TOP_MAX:
		if (t->flags & TIR_PROPAGATE_NAN) sb_puts(&a, "propagate_nan");
		break;
	case TOP_CAST:
		if (t->flags & TIR_RTZ) sb_puts(&a, "rtz");
		break;
	case TOP_LOAD:
	case TOP_STORE: {
		const char *sep = "";
		if (t->flags & TIR_VOLATILE) { sb_puts(&a, "volatile"); sep = ", "; }
		int cache = (int)(t->i & 0xff), ev = (int)((t->i >> 8) & 0xff);
		if (cache) { sb_printf(&a, "%scache=%s", sep, NAME_AT(cache_names, cache)); sep = ", "; }
		if (ev) { sb_printf(&a, "%sevict=%s", sep, NAME_AT(evict_names, ev)); sep = ", "; }
		if (t->i2) sb_printf(&a, "%svec=%lld", sep, (long long)t->i2);
		break;
	}
	case TOP_ATOMIC:
	case TOP_ATOMIC_CAS:
		sb_printf(&a, "sem=%s, scope=%s", NAME_AT(sem_names, t->i & 0xff),
			  NAME_AT(scope_names, (t->i >> 8) & 0xff));
		if (t->i2) sb_printf(&a, ", vec=%lld", (long long)t->i2);
		break;
	case TOP_DOT: sb_printf(&a, "precision=%s", NAME_AT(prec_names, t->i)); break;
	case TOP_PRINT:
		sb_puts(&a, "prefix=");
		put_str(&a, t->str);
		if (t->flags & TIR_HEX) sb_puts(&a, ", hex");
		break;
	case TOP_ASSERT:
		sb_puts(&a, "msg=");
		put_str(&a, t->str);
		break;
	case TOP_FOR:
	case TOP_WHILE:
		if (t->i) sb_printf(&a, "stages=%lld", (long long)t->i);
		if (t->flags & TIR_HOLDS_BUFS) sb_printf(&a, "%sholds_bufs", a.len ? ", " : "");
		if (t->flags & TIR_NO_LICM) sb_printf(&a, "%sno_licm", a.len ? ", " : "");
		break;
	case TOP_ASYNC_COPY: sb_printf(&a, "buf=%lld, vec=%lld", (long long)t->i, (long long)t->i2); break;
	case TOP_ASYNC_WAIT: sb_printf(&a, "pending=%lld", (long long)t->i); break;
	case TOP_LOCAL_LOAD:
	case TOP_LOCAL_STORE: sb_printf(&a, "buf=%lld", (long long)t->i); break;
	default: break;
	}
	if (a.len) sb_printf(p->out, " {%s}", a.s);
	sb_free(&a);
}

static void print_block(Printer *p, const TirBlock *b, int depth, bool show_args);

static void print_op(Printer *p, const TirOp *op, int depth)
{
	indent(p, depth);
	for (int i = 0; i < op->nout; i++) number(p, op->results[i]);
	for (int i = 0; i < op->nout; i++) {
		if (i) sb_puts(p->out, ", ");
		put_val(p, op->results[i]);
	}
	if (op->nout) sb_puts(p->out, " = ");
	sb_puts(p->out, tir_op_name((TirOpKind)op->kind));
	put_op_word(p, op);
	if (op->kind == TOP_CONST && op->nout) {
		Type t = p->f->vals.data[op->results[0]].ty;
		sb_putc(p->out, ' ');
		if (dtype_is_float((DType)t.dt)) put_double(p->out, op->attr.f, (DType)t.dt);
		else if (t.dt == DT_U64) sb_printf(p->out, "%llu", (unsigned long long)op->attr.i);
		else sb_printf(p->out, "%lld", (long long)op->attr.i);
	}
	for (int i = 0; i < op->nin; i++) {
		sb_puts(p->out, i ? ", " : " ");
		put_val(p, op->operands[i]);
	}
	put_attrs(p, op);
	if (op->nout) {
		sb_puts(p->out, " : ");
		for (int i = 0; i < op->nout; i++) {
			if (i) sb_puts(p->out, ", ");
			put_type(p, op->results[i]);
		}
	}
	for (int r = 0; r < op->nregions; r++) {
		if (op->kind == TOP_IF && r == 1) sb_puts(p->out, " else");
		else if (op->kind == TOP_WHILE && r == 1) sb_puts(p->out, " do");
		sb_puts(p->out, " {\n");
		print_block(p, &op->regions[r], depth + 1, op->kind != TOP_IF);
		indent(p, depth);
		sb_putc(p->out, '}');
	}
	sb_putc(p->out, '\n');
}

static void print_block(Printer *p, const TirBlock *b, int depth, bool show_args)
{
	for (int i = 0; i < b->nargs; i++) number(p, b->args[i]);
	if (show_args && b->nargs) {
		indent(p, depth - 1);
		sb_puts(p->out, "^(");
		for (int i = 0; i < b->nargs; i++) {
			if (i) sb_puts(p->out, ", ");
			put_val(p, b->args[i]);
			sb_puts(p->out, ": ");
			put_type(p, b->args[i]);
		}
		sb_puts(p->out, "):\n");
	}
	for (int i = 0; i < b->nops; i++) print_op(p, b->ops[i], depth);
}

/* Shared buffers of software pipelining, as comments after the header. */
static void print_bufs(const TirFunc *f, StrBuf *out, bool with_layouts)
{
	for (int i = 0; i < f->nbufs; i++) {
		const TirSmemBuf *b = &f->bufs[i];
		char ts[64];
		type_str(b->tile, ts, sizeof ts);
		sb_printf(out, "  // buf%d: %s x %d slots of %lld bytes at %lld", i, ts, b->nslots,
			  (long long)b->slot_bytes, (long long)b->base);
		if (with_layouts && b->smem) {
			int n = ll_print(b->smem, NULL, 0);
			char *ls = xmalloc((size_t)(n > 0 ? n : 0) + 1);
			ll_print(b->smem, ls, (size_t)(n > 0 ? n : 0) + 1);
			sb_printf(out, ", %s", ls);
			free(ls);
		}
		if (b->pad)
			for (int k = 0; k < b->pad->n; k++)
				sb_printf(out, ", pad %d every %d", b->pad->pad[k], b->pad->interval[k]);
		if (b->loop)
			sb_puts(out, ", held across a loop");
		sb_putc(out, '\n');
	}
	if (f->nbufs) sb_printf(out, "  // smem_reserved=%d\n", f->smem_reserved);
}

void tir_print(const TirFunc *f, StrBuf *out, bool with_layouts)
{
	Printer p = {f, out, with_layouts, xcalloc(f->vals.len + 1, sizeof(uint32_t)), 0};
	sb_printf(out, "func @%s(", f->name ? tir_func_label(f) : "?");
	const TirBlock *e = f->entry;
	for (int i = 0; i < e->nargs; i++) {
		ValId v = e->args[i];
		number(&p, v);
		if (i) sb_puts(out, ", ");
		put_val(&p, v);
		sb_puts(out, ": ");
		put_type(&p, v);
		for (int j = 0; j < f->nparams; j++) {
			if (f->params[j].val != v) continue;
			if (f->params[j].name) sb_printf(out, " \"%s\"", f->params[j].name);
			if (f->params[j].spec & SPEC_DIV16) sb_puts(out, " {div16}");
			if (f->params[j].spec & SPEC_EQ1) sb_puts(out, " {eq1}");
		}
	}
	sb_puts(out, ")");
	if (with_layouts) sb_printf(out, " {num_warps=%d, smem=%d}", f->num_warps, f->smem_bytes);
	sb_puts(out, " {\n");
	print_bufs(f, out, with_layouts);
	print_block(&p, e, 1, false);
	for (int i = 0; i < f->nhints; i++) {
		static const char *hn[] = {"multiple_of", "max_contiguous", "max_constancy"};
		const TirHint *h = &f->hints[i];
		sb_printf(out, "  // hint %s(", NAME_AT(hn, h->kind));
		put_val(&p, h->val);
		sb_puts(out, ", [");
		for (int d = 0; d < h->rank; d++) sb_printf(out, "%s%d", d ? "," : "", h->v[d]);
		sb_puts(out, "])\n");
	}
	sb_puts(out, "}\n");
	free(p.num);
}

void tir_count_uses(const TirBlock *b, uint32_t *uses)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		for (int k = 0; k < op->nin; k++)
			uses[op->operands[k]]++;
		for (int k = 0; k < op->nregions; k++)
			tir_count_uses(&op->regions[k], uses);
	}
}
