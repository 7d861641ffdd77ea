/* axis.c: axis analysis (see axis.h for what the facts mean).
 *
 * Requires: a verified Tile IR. Guarantees: an AxisInfo for every ValId
 * existing at the time of the call; nothing in the IR changes.
 *
 * All facts are powers of two, so Triton's gcd() is min() here. One forward
 * walk in program order computes every value from its operands; loops are
 * re-walked until their carried values stop changing (a few rounds, then the
 * carried values drop to the trivial info). Each round of a loop re-walks the
 * loops nested in it, so the walks multiply with the depth (2^n for n nested
 * loops whose carried values change once); past AXIS_MAX_VISITS op visits a
 * loop's carried values start trivial, which holds for any iteration, and its
 * body is walked once.
 */
#include "layout/axis.h"

#include <string.h>

typedef struct Axis {
	const TirFunc *f;
	AxisInfo *info;
	size_t n;
	bool changed;
	int64_t visits;    /* ops walked so far */
	bool no_contig_hints; /* tl.max_contiguous ignored: contiguity proven */
} Axis;

enum { AXIS_MAX_VISITS = 1 << 20 };

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Largest power of two dividing v (AXIS_MAX_DIV for 0). */
static int64_t pow2_div(int64_t v)
{
	if (v == 0)
		return AXIS_MAX_DIV;
	uint64_t u = (uint64_t)v, p = u & (~u + 1); /* unsigned: -INT64_MIN overflows */
	return p > AXIS_MAX_DIV ? AXIS_MAX_DIV : (int64_t)p;
}

/* Largest power of two <= v (v >= 1). */
static int64_t floor_pow2(int64_t v)
{
	int64_t p = 1;
	while (p * 2 <= v)
		p *= 2;
	return p;
}

static Type vtype(const Axis *x, ValId v) { return x->f->vals.data[v].ty; }

static bool tracked(Type t)
{
	return t.dt == DT_PTR || dtype_is_int((DType)t.dt);
}

static void trivial(AxisInfo *a, Type t)
{
	memset(a, 0, sizeof *a);
	a->rank = t.rank;
	for (int d = 0; d < TIR_MAX_RANK; d++)
		a->contig[d] = a->div[d] = a->cnst[d] = 1;
}

static AxisInfo get(const Axis *x, ValId v)
{
	AxisInfo a;
	if (v && v < x->n)
		return x->info[v];
	trivial(&a, v ? vtype(x, v) : type_scalar(DT_I32));
	return a;
}

/* Clamp to the dim sizes and store. */
static void put(Axis *x, ValId v, AxisInfo a)
{
	if (!v || v >= x->n)
		return;
	Type t = vtype(x, v);
	a.rank = t.rank;
	for (int d = 0; d < TIR_MAX_RANK; d++) {
		int64_t size = d < t.rank ? t.shape[d] : 1;
		a.contig[d] = min64(max64(a.contig[d], 1), size);
		a.cnst[d] = min64(max64(a.cnst[d], 1), size);
		a.div[d] = min64(max64(a.div[d], 1), AXIS_MAX_DIV);
	}
	if (!tracked(t)) { /* floats: only constancy means something */
		for (int d = 0; d < TIR_MAX_RANK; d++)
			a.contig[d] = a.div[d] = 1;
		a.known = false;
	}
	x->info[v] = a;
}

/* The divisibility every element has (not just group starts). */
static int64_t elem_div(const AxisInfo *a)
{
	int64_t m = AXIS_MAX_DIV;
	for (int d = 0; d < (a->rank ? a->rank : 1); d++)
		m = min64(m, a->contig[d] > 1 ? 1 : a->div[d]);
	return m;
}

static bool known_is(const AxisInfo *a, int64_t v) { return a->known && a->value == v; }

/* Bytes per element step of v's div (pointers count bytes), else 1. */
static int64_t div_unit(const Axis *x, ValId v)
{
	Type t = vtype(x, v);
	int eb = t.dt == DT_PTR ? dtype_bytes((DType)t.elem) : 1;
	return eb > 0 ? eb : 1;
}

static AxisInfo meet(const AxisInfo *a, const AxisInfo *b, int64_t unit)
{
	AxisInfo r = *a;
	for (int d = 0; d < TIR_MAX_RANK; d++) {
		r.contig[d] = min64(a->contig[d], b->contig[d]);
		r.div[d] = min64(a->div[d], b->div[d]);
		/* the longer runs split into groups of the shorter: their inner
		 * group starts are only as aligned as the group size */
		if (a->contig[d] != b->contig[d])
			r.div[d] = min64(r.div[d], r.contig[d] * unit);
		r.cnst[d] = min64(a->cnst[d], b->cnst[d]);
	}
	r.known = a->known && b->known && a->value == b->value;
	return r;
}

static bool same_info(const AxisInfo *a, const AxisInfo *b)
{
	for (int d = 0; d < TIR_MAX_RANK; d++)
		if (a->contig[d] != b->contig[d] || a->div[d] != b->div[d] || a->cnst[d] != b->cnst[d])
			return false;
	return a->known == b->known && (!a->known || a->value == b->value);
}

static void apply_hints(Axis *x, ValId v)
{
	if (!v || v >= x->n)
		return;
	AxisInfo a = x->info[v];
	bool any = false;
	for (int i = 0; i < x->f->nhints; i++) {
		const TirHint *h = &x->f->hints[i];
		if (h->val != v)
			continue;
		any = true;
		for (int d = 0; d < h->rank && d < TIR_MAX_RANK; d++) {
			int64_t hv = floor_pow2(h->v[d] > 0 ? h->v[d] : 1);
			if (h->kind == HINT_MULTIPLE_OF)
				a.div[d] = hv;
			else if (h->kind == HINT_MAX_CONTIGUOUS) {
				if (!x->no_contig_hints)
					a.contig[d] = hv;
			}
			else
				a.cnst[d] = hv;
		}
	}
	if (any)
		put(x, v, a);
}

/* ---- per-op rules --------------------------------------------------------- */

/* a known integer as a value of type dt holds it: two's complement, wrapped */
static int64_t wrap_int(int64_t v, DType dt)
{
	int bits = dtype_bits(dt);
	if (bits <= 0 || bits >= 64) return v;
	uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
	if (dtype_is_signed(dt) && (u >> (bits - 1))) u |= ~m;
	return (int64_t)u;
}

/* unit: bytes per element step for pointers (div is in bytes), else 1. */
static AxisInfo rule_add(const AxisInfo *l, const AxisInfo *r, bool sub, int64_t unit)
{
	AxisInfo o;
	memset(&o, 0, sizeof o);
	for (int d = 0; d < TIR_MAX_RANK; d++) {
		o.contig[d] = min64(l->contig[d], r->cnst[d]);
		if (!sub)
			o.contig[d] = max64(o.contig[d], min64(l->cnst[d], r->contig[d]));
		o.div[d] = min64(l->div[d], r->div[d]);
		/* an operand's runs split into shorter groups: those groups
		 * start only group-size aligned */
		if (l->contig[d] > o.contig[d] || r->contig[d] > o.contig[d])
			o.div[d] = min64(o.div[d], o.contig[d] * unit);
		o.cnst[d] = min64(l->cnst[d], r->cnst[d]);
	}
	if (l->known && r->known) {
		o.known = true;
		/* wrapped as the machine does (op_rule truncates to the result type) */
		o.value = (int64_t)(sub ? (uint64_t)l->value - (uint64_t)r->value : (uint64_t)l->value + (uint64_t)r->value);
	}
	return o;
}

/* -l: group starts stay as divisible (-(D*k) = D*(-k)); a run negated runs
 * down, so it is no run and only its first element keeps the alignment. Sema
 * lowers `ptr - n` to ptr + (-n): without this, verl's `hidden_ptrs -=
 * hidden_size * stride` made the pointers 2-byte aligned and its loads scalar. */
static AxisInfo rule_neg(const AxisInfo *l)
{
	AxisInfo o;
	memset(&o, 0, sizeof o);
	for (int d = 0; d < TIR_MAX_RANK; d++) {
		o.contig[d] = 1;
		o.div[d] = l->contig[d] > 1 ? 1 : l->div[d];
		o.cnst[d] = l->cnst[d];
	}
	if (l->known) {
		o.known = true;
		o.value = (int64_t)(0 - (uint64_t)l->value);
	}
	return o;
}

/* min/max picks an operand per element: aligned groups of the shorter run are
 * runs of both, offset by the same index, so the result is the meet (Triton's
 * MaxMinOp rule); `offs < min(end, V)` kept its mask constancy through this. */
static AxisInfo rule_minmax(const AxisInfo *l, const AxisInfo *r, bool is_max, DType dt, int64_t unit)
{
	AxisInfo o = meet(l, r, unit);
	o.known = l->known && r->known;
	if (o.known) {
		bool lt = dtype_is_signed(dt) ? l->value < r->value : (uint64_t)l->value < (uint64_t)r->value;
		o.value = lt != is_max ? l->value : r->value;
	}
	return o;
}

static AxisInfo rule_mul(const AxisInfo *l, const AxisInfo *r)
{
	AxisInfo o;
	memset(&o, 0, sizeof o);
	for (int d = 0; d < TIR_MAX_RANK; d++) {
		int64_t ld = l->contig[d] > 1 && !known_is(r, 1) ? 1 : l->div[d];
		int64_t rd = r->contig[d] > 1 && !known_is(l, 1) ? 1 : r->div[d];
		o.div[d] = min64(ld * rd, AXIS_MAX_DIV);
		o.contig[d] = known_is(r, 1) ? l->contig[d] : known_is(l, 1) ? r->contig[d] : 1;
		o.cnst[d] = min64(l->cnst[d], r->cnst[d]);
	}
	if (l->known && r->known) {
		o.known = true;
		o.value = (int64_t)((uint64_t)l->value * (uint64_t)r->value);
	}
	return o;
}

/* l / v or l >> log2(v) for a known power of two v. */
static AxisInfo rule_div_pow2(const AxisInfo *l, const AxisInfo *r, int64_t v)
{
	AxisInfo o;
	memset(&o, 0, sizeof o);
	for (int d = 0; d < TIR_MAX_RANK; d++) {
		o.contig[d] = v == 1 ? l->contig[d] : 1;
		o.cnst[d] = min64(l->cnst[d], r->cnst[d]);
		if (v > 1 && l->contig[d] > 1) {
			int64_t run = min64(l->contig[d], v);
			if (l->div[d] >= run)
				o.cnst[d] = max64(o.cnst[d], run);
		}
		o.div[d] = l->contig[d] > 1 && v > 1 ? 1 : max64(l->div[d] / v, 1);
	}
	return o;
}

static AxisInfo rule_cmp(const AxisInfo *l, const AxisInfo *r, int pred)
{
	AxisInfo o;
	memset(&o, 0, sizeof o);
	/* lhs = D*k + [0, C), rhs constant n divisible by D': a group of
	 * g = min(C, D, D') values starting at a multiple of g lies wholly
	 * below n or wholly at or above it, so lhs < n and lhs >= n are
	 * constant over it; lhs > n and lhs <= n are not (n itself is the
	 * first value of a group). Mirrored for a contiguous rhs. */
	bool lhs_run = pred == PRED_LT || pred == PRED_GE;
	bool rhs_run = pred == PRED_GT || pred == PRED_LE;
	for (int d = 0; d < TIR_MAX_RANK; d++) {
		o.contig[d] = o.div[d] = 1;
		o.cnst[d] = min64(l->cnst[d], r->cnst[d]);
		if (lhs_run && l->contig[d] > 1)
			o.cnst[d] = max64(o.cnst[d], min64(min64(l->contig[d], l->div[d]),
							   min64(r->div[d], r->cnst[d])));
		if (rhs_run && r->contig[d] > 1)
			o.cnst[d] = max64(o.cnst[d], min64(min64(r->contig[d], r->div[d]),
							   min64(l->div[d], l->cnst[d])));
	}
	return o;
}

static void op_rule(Axis *x, const TirOp *op);

static void walk_block(Axis *x, const TirBlock *b)
{
	x->visits += b->nops;
	for (int i = 0; i < b->nops; i++)
		op_rule(x, b->ops[i]);
}

static AxisInfo opinfo(const Axis *x, const TirOp *op, int i)
{
	return get(x, i < op->nin ? op->operands[i] : 0);
}

static const TirOp *terminator(const TirBlock *b)
{
	return b->nops ? b->ops[b->nops - 1] : NULL;
}

/* One walk of a loop's regions. A while's after-region takes the condition's
 * operands (the before-region's terminator) as its args, set in between. */
static void walk_loop(Axis *x, const TirOp *op)
{
	if (op->kind == TOP_WHILE && op->nregions == 2) {
		walk_block(x, &op->regions[0]);
		const TirOp *c = terminator(&op->regions[0]);
		const TirBlock *after = &op->regions[1];
		for (int i = 0; c && i + 1 < c->nin && i < after->nargs; i++)
			put(x, after->args[i], get(x, c->operands[i + 1]));
		walk_block(x, after);
		return;
	}
	for (int k = 0; k < op->nregions; k++)
		walk_block(x, &op->regions[k]);
}

/* Region args = meet(inits, yielded) until stable. first_init: index of
 * the first init operand; arg0: first carried block arg. */
static void solve_loop(Axis *x, const TirOp *op, const TirBlock *body, int first_init, int arg0,
		       const TirBlock *yield_block, int nrounds)
{
	int n = op->nin - first_init;
	for (int i = 0; i < n && arg0 + i < body->nargs; i++)
		put(x, body->args[arg0 + i], opinfo(x, op, first_init + i));
	if (x->visits > AXIS_MAX_VISITS) {
		for (int i = 0; i < n && arg0 + i < body->nargs; i++) {
			AxisInfo t;
			trivial(&t, vtype(x, body->args[arg0 + i]));
			put(x, body->args[arg0 + i], t);
		}
		walk_loop(x, op);
		return;
	}
	for (int round = 0; round <= nrounds; round++) {
		walk_loop(x, op);
		const TirOp *y = terminator(yield_block);
		bool changed = false;
		for (int i = 0; y && i < n && i < y->nin && arg0 + i < body->nargs; i++) {
			ValId a = body->args[arg0 + i];
			AxisInfo cur = get(x, a), yv = get(x, y->operands[i]);
			AxisInfo m = meet(&cur, &yv, div_unit(x, a));
			if (round == nrounds)
				trivial(&m, vtype(x, a));
			if (!same_info(&m, &cur)) {
				put(x, a, m);
				changed = true;
			}
		}
		if (!changed)
			return;
	}
	walk_loop(x, op);
}

static void control_rule(Axis *x, const TirOp *op)
{
	if (op->kind == TOP_FOR && op->nregions == 1) {
		const TirBlock *body = &op->regions[0];
		AxisInfo lb = opinfo(x, op, 0), step = opinfo(x, op, 2), iv;
		trivial(&iv, type_scalar(DT_I32));
		iv.div[0] = min64(lb.div[0], step.div[0]);
		if (body->nargs > 0)
			put(x, body->args[0], iv);
		solve_loop(x, op, body, 3, 1, body, 3);
		for (int i = 0; i < op->nout; i++)
			put(x, op->results[i], body->nargs > i + 1 ? get(x, body->args[i + 1]) : get(x, 0));
	} else if (op->kind == TOP_IF && op->nregions >= 1) {
		for (int k = 0; k < op->nregions; k++)
			walk_block(x, &op->regions[k]);
		const TirOp *t = terminator(&op->regions[0]);
		const TirOp *e = op->nregions > 1 ? terminator(&op->regions[1]) : NULL;
		for (int i = 0; i < op->nout; i++) {
			AxisInfo a = t && i < t->nin ? get(x, t->operands[i]) : get(x, 0);
			if (e && i < e->nin) {
				AxisInfo b = get(x, e->operands[i]);
				a = meet(&a, &b, div_unit(x, op->results[i]));
			}
			put(x, op->results[i], a);
		}
	} else if (op->kind == TOP_WHILE && op->nregions == 2) {
		/* the last walk saw the final carried values: the results are
		 * the condition's operands then */
		solve_loop(x, op, &op->regions[0], 0, 0, &op->regions[1], 3);
		const TirOp *c = terminator(&op->regions[0]);
		for (int i = 0; c && i + 1 < c->nin && i < op->nout; i++)
			put(x, op->results[i], get(x, c->operands[i + 1]));
	} else {
		for (int k = 0; k < op->nregions; k++) {
			const TirBlock *b = &op->regions[k];
			for (int i = 0; i < b->nargs; i++)
				put(x, b->args[i], get(x, 0));
			walk_block(x, b);
		}
		for (int i = 0; i < op->nout; i++)
			put(x, op->results[i], get(x, 0));
	}
}

static void op_rule(Axis *x, const TirOp *op)
{
	ValId res = op->nout > 0 ? op->results[0] : 0;
	Type rt = res ? vtype(x, res) : type_scalar(DT_VOID);
	AxisInfo a = opinfo(x, op, 0), b = opinfo(x, op, 1), o;
	trivial(&o, rt);
	switch ((TirOpKind)op->kind) {
	case TOP_CONST:
		if (dtype_is_int(rt.dt)) {
			o.known = true;
			o.value = op->attr.i;
			for (int d = 0; d < TIR_MAX_RANK; d++) {
				o.div[d] = pow2_div(op->attr.i);
				o.cnst[d] = d < rt.rank ? rt.shape[d] : 1;
			}
		}
		break;
	case TOP_ARANGE:
		o.contig[0] = op->attr.i2 - op->attr.i;
		o.div[0] = pow2_div(op->attr.i);
		break;
	case TOP_SPLAT:
		for (int d = 0; d < TIR_MAX_RANK; d++) {
			o.div[d] = a.div[0];
			o.cnst[d] = d < rt.rank ? rt.shape[d] : 1;
		}
		o.known = a.known;
		o.value = a.value;
		break;
	case TOP_BROADCAST: {
		Type st = op->nin ? vtype(x, op->operands[0]) : rt;
		o = a;
		for (int d = 0; d < rt.rank; d++)
			if (st.rank == rt.rank && st.shape[d] == 1 && rt.shape[d] > 1) {
				o.contig[d] = 1;
				o.cnst[d] = rt.shape[d];
				o.div[d] = elem_div(&a);
			}
		break;
	}
	case TOP_EXPAND_DIMS: {
		int ax = op->attr.axis;
		o = a;
		for (int d = TIR_MAX_RANK - 1; d > ax; d--) {
			o.contig[d] = a.contig[d - 1];
			o.div[d] = a.div[d - 1];
			o.cnst[d] = a.cnst[d - 1];
		}
		o.contig[ax] = o.cnst[ax] = 1;
		o.div[ax] = elem_div(&a);
		break;
	}
	case TOP_TRANS:
		o = a;
		for (int d = 0; d < rt.rank; d++) {
			int p = op->attr.perm[d];
			o.contig[d] = a.contig[p];
			o.div[d] = a.div[p];
			o.cnst[d] = a.cnst[p];
		}
		break;
	case TOP_RESHAPE: {
		Type st = vtype(x, op->operands[0]);
		int64_t ed = elem_div(&a);
		o.known = a.known;
		o.value = a.value;
		for (int d = 0; d < rt.rank; d++)
			o.div[d] = ed;
		if (st.rank && rt.rank && st.shape[st.rank - 1] == rt.shape[rt.rank - 1]) {
			o.contig[rt.rank - 1] = a.contig[st.rank - 1];
			o.div[rt.rank - 1] = a.div[st.rank - 1];
			o.cnst[rt.rank - 1] = a.cnst[st.rank - 1];
		}
		break;
	}
	case TOP_CONVERT_LAYOUT:
	case TOP_PTR_TO_INT:
	case TOP_INT_TO_PTR:
		o = a;
		break;
	case TOP_CAST:
		if (dtype_is_int(rt.dt) && op->nin && dtype_is_int(vtype(x, op->operands[0]).dt))
			o = a;
		break;
	case TOP_ADD:
	case TOP_SUB:
		o = rule_add(&a, &b, op->kind == TOP_SUB, 1);
		break;
	case TOP_PTR_ADD: {
		int eb = dtype_bytes((DType)rt.elem);
		AxisInfo bb = b;
		for (int d = 0; d < TIR_MAX_RANK; d++)
			bb.div[d] = min64(b.div[d] * (eb > 0 ? eb : 1), AXIS_MAX_DIV);
		bb.known = false;
		o = rule_add(&a, &bb, false, eb > 0 ? eb : 1);
		o.known = false;
		break;
	}
	case TOP_MUL:
		o = rule_mul(&a, &b);
		break;
	case TOP_DIV:
	case TOP_SHR: {
		int64_t v = 0;
		if (dtype_is_int(rt.dt) && b.known && b.value >= 0)
			v = op->kind == TOP_SHR ? (b.value < 31 ? (int64_t)1 << b.value : 0) : b.value;
		if (v > 0 && (v & (v - 1)) == 0) {
			o = rule_div_pow2(&a, &b, v);
			break;
		}
		/* x // n with n constant along a run of x: as for x % n, an aligned
		 * group of min(contig, div(x), div(n)) never straddles a multiple
		 * of n (Inductor's `xindex // ks0`, `xindex // 768`). */
		bool runs = op->kind == TOP_DIV && dtype_is_int(rt.dt) && !(b.known && b.value == 0);
		for (int d = 0; d < TIR_MAX_RANK; d++) {
			o.cnst[d] = min64(a.cnst[d], b.cnst[d]);
			if (runs && a.contig[d] > 1 && b.contig[d] == 1) {
				int64_t nd = b.known ? pow2_div(b.value) : min64(b.div[d], b.cnst[d]);
				o.cnst[d] = max64(o.cnst[d], min64(min64(a.contig[d], a.div[d]), nd));
			}
		}
		break;
	}
	case TOP_REM:
		/* A run of c values starting at a multiple of c never strictly
		 * contains a multiple of the divisor when c divides it, so x % n
		 * keeps the run: contig = min(contig(x), div(x), div(n)), with n
		 * constant along the run (the tutorial's `(off + arange) % N`
		 * with N divisible by 16). Also x % n = x - q*n keeps gcd(div). */
		for (int d = 0; d < TIR_MAX_RANK; d++) {
			int64_t nd = b.known ? (b.value ? pow2_div(b.value) : 1) : b.div[d];
			o.cnst[d] = min64(a.cnst[d], b.cnst[d]);
			if (a.contig[d] > 1 && (b.known || b.contig[d] == 1)) {
				int64_t c = min64(min64(a.contig[d], a.div[d]), nd);
				o.contig[d] = b.known ? c : min64(c, b.cnst[d]);
			}
			o.div[d] = b.contig[d] == 1 ? min64(a.div[d], nd) : 1;
			if (a.contig[d] > o.contig[d]) /* groups split a's runs */
				o.div[d] = min64(o.div[d], o.contig[d]);
		}
		break;
	case TOP_SHL:
		for (int d = 0; d < TIR_MAX_RANK; d++) {
			o.cnst[d] = min64(a.cnst[d], b.cnst[d]);
			if (b.known && b.value >= 0 && b.value < 30) {
				int64_t base = a.contig[d] > 1 && b.value ? 1 : a.div[d];
				o.div[d] = min64(base << b.value, AXIS_MAX_DIV);
				o.contig[d] = b.value == 0 ? a.contig[d] : 1;
			}
		}
		break;
	case TOP_CMP:
		o = rule_cmp(&a, &b, op->attr.pred);
		break;
	case TOP_SELECT: {
		AxisInfo c = opinfo(x, op, 2);
		for (int d = 0; d < TIR_MAX_RANK; d++) {
			o.cnst[d] = min64(a.cnst[d], min64(b.cnst[d], c.cnst[d]));
			o.contig[d] = min64(a.cnst[d], min64(b.contig[d], c.contig[d]));
			o.div[d] = min64(b.div[d], c.div[d]);
			if (b.contig[d] > o.contig[d] || c.contig[d] > o.contig[d])
				o.div[d] = min64(o.div[d], o.contig[d] * div_unit(x, res));
		}
		break;
	}
	case TOP_NEG:
		o = rule_neg(&a);
		break;
	case TOP_MIN:
	case TOP_MAX:
		o = rule_minmax(&a, &b, op->kind == TOP_MAX, rt.dt, div_unit(x, res));
		break;
	case TOP_AND:
	case TOP_OR:
	case TOP_XOR:
	case TOP_NOT:
	case TOP_MATH:
	case TOP_UMULHI:
	case TOP_FMA:
	case TOP_BITCAST:
		for (int d = 0; d < TIR_MAX_RANK; d++)
			for (int i = 0; i < op->nin; i++) {
				AxisInfo v = opinfo(x, op, i);
				o.cnst[d] = i ? min64(o.cnst[d], v.cnst[d]) : v.cnst[d];
			}
		break;
	case TOP_LOAD:
		for (int d = 0; d < TIR_MAX_RANK; d++) {
			o.cnst[d] = a.cnst[d];
			if (op->attr.flags & TIR_HAS_MASK)
				o.cnst[d] = min64(o.cnst[d], b.cnst[d]);
		}
		break;
	case TOP_FOR:
	case TOP_IF:
	case TOP_WHILE:
	case TOP_REDUCE:
	case TOP_SCAN:
		control_rule(x, op);
		for (int i = 0; i < op->nout; i++)
			apply_hints(x, op->results[i]);
		return;
	default:
		break;
	}
	if (o.known && dtype_is_int(rt.dt)) o.value = wrap_int(o.value, rt.dt); /* i32 65536 * 65536 is 0 */
	for (int i = 0; i < op->nout; i++) {
		put(x, op->results[i], o);
		apply_hints(x, op->results[i]);
	}
}

static void init_params(Axis *x)
{
	const TirFunc *f = x->f;
	for (int i = 0; i < f->nparams; i++) {
		const TirParam *p = &f->params[i];
		AxisInfo a;
		trivial(&a, p->ty);
		if (p->ty.dt == DT_PTR) {
			int eb = dtype_bytes((DType)p->ty.elem);
			a.div[0] = p->spec & SPEC_DIV16 ? 16 : (eb > 0 ? eb : 1);
		} else if (p->spec & SPEC_DIV16) {
			a.div[0] = 16;
		} else if (p->spec & SPEC_EQ1) {
			a.known = true;
			a.value = 1;
		}
		put(x, p->val, a);
		apply_hints(x, p->val);
	}
}

static AxisInfo *analyze(Arena *arena, const TirFunc *f, bool no_contig_hints)
{
	Axis x = {f, NULL, f->vals.len, false, 0, no_contig_hints};
	x.info = ARENA_NEWN(arena, AxisInfo, x.n ? x.n : 1);
	for (size_t v = 0; v < x.n; v++)
		trivial(&x.info[v], f->vals.data[v].ty);
	init_params(&x);
	if (f->entry)
		walk_block(&x, f->entry);
	return x.info;
}

AxisInfo *axis_analyze(Arena *arena, const TirFunc *f) { return analyze(arena, f, false); }

AxisInfo *axis_analyze_proven(Arena *arena, const TirFunc *f) { return analyze(arena, f, true); }

int axis_vector_width(const AxisInfo *ptr, const AxisInfo *mask, int dim, int elem_bytes)
{
	if (elem_bytes <= 0 || elem_bytes > 16)
		return 1;
	int64_t v = 16 / elem_bytes;
	v = min64(v, ptr->contig[dim]);
	/* the group start must be aligned to the whole vector */
	int64_t align_elems = ptr->div[dim] / elem_bytes;
	v = min64(v, align_elems > 0 ? align_elems : 1);
	if (mask)
		v = min64(v, mask->cnst[dim]);
	return (int)floor_pow2(v > 0 ? v : 1);
}
