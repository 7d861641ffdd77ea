/* rk_gen.c: a random, well-typed Triton kernel for test_random_kernels.c.
 *
 * The kernel is an expression tree built top-down: a node is asked for a
 * shape and a dtype and picks an op that gives them (elementwise arithmetic
 * with broadcasting, where/compare, casts, reductions, scans, trans/permute,
 * reshape, expand_dims, broadcast_to, join/split, dot), asking its operands
 * for the shapes and dtypes that op needs; leaves are masked loads, tl.full and
 * tl.arange. Each node's reference (rk_eval.c) is computed as the node is
 * made, so an op whose result the reference cannot pin down (a comparison of
 * values within rounding of each other, an out-of-range cast) is dropped for
 * another. The root is a masked store. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"

typedef struct {
	char *p;
	size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 1024) + (size_t)n;
		char *p = realloc(b->p, cap);
		if (!p)
			abort();
		b->p = p;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

typedef struct node {
	rk_val v;
	char name[32]; /* a variable, a parameter or a literal */
	unsigned feat; /* RK_F_* of the ops it is made of */
	/* a float tl.dot(a, b) with no accumulator: its operands and input rounding */
	const struct node *dot_a, *dot_b;
	double dot_rel;
	struct node *next;
} node;

const char *const rk_feature_names[RK_F_COUNT] = {
	"batched dot", "tf32-family dot", "int8 dot", "cat", "interleave", "gather", "histogram",
	"fp8 round trip", "atomics on a grid", "atomic_xchg/cas", "while loop", "tl.range num_stages",
	"kloop (pipelinable K loop)"};

typedef struct {
	uint64_t rng;
	rk_kernel *k;
	sbuf body;
	int nvar, nptr, nint, nflt;
	int budget;
	bool out_made; /* the output's parameter may take the last slot */
	bool root;     /* the next node is the root: not a leaf */
	node *nodes; /* every node made, for reuse and freeing */
} gen;

static uint64_t rnd(gen *g)
{
	uint64_t z = (g->rng += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int below(gen *g, int n)
{
	return (int)(rnd(g) % (uint64_t)n);
}

static bool chance(gen *g, int pct)
{
	return below(g, 100) < pct;
}

static node *new_node(gen *g, const rk_val *v, const char *name)
{
	node *n = calloc(1, sizeof *n);
	if (!n)
		abort();
	n->v = *v;
	snprintf(n->name, sizeof n->name, "%s", name);
	n->next = g->nodes;
	g->nodes = n;
	return n;
}

/* a fresh variable name */
static const char *var(gen *g, char *buf)
{
	snprintf(buf, 32, "v%d", g->nvar++);
	return buf;
}

static rk_param *add_param(gen *g, rk_param_kind kind, rk_dtype t)
{
	rk_kernel *k = g->k;
	/* the last slot is the output's */
	if (k->nparams >= RK_MAX_PARAMS - (kind == RK_P_PTR && g->out_made ? 0 : 1))
		return NULL;
	rk_param *p = &k->params[k->nparams++];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->t = t;
	if (kind == RK_P_PTR)
		snprintf(p->name, sizeof p->name, "x%d", g->nptr++);
	else if (kind == RK_P_I32)
		snprintf(p->name, sizeof p->name, "n%d", g->nint++);
	else
		snprintf(p->name, sizeof p->name, "f%d", g->nflt++);
	return p;
}

static void shape_text(const rk_shape *s, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "(");
	for (int k = 0; k < s->rank; k++)
		n += (size_t)snprintf(buf + n, size - n, "%s%d", k ? ", " : "", s->d[k]);
	snprintf(buf + n, size - n, s->rank == 1 ? ",)" : ")");
}

/* x[:, None]-style index that puts a 1-D tile on dim k of a rank-r tile */
static const char *place(int r, int k)
{
	static const char *const t[4][3] = {{""},
					    {""},
					    {"[:, None]", "[None, :]"},
					    {"[:, None, None]", "[None, :, None]", "[None, None, :]"}};
	return t[r][k];
}

static int log2i(int x)
{
	int l = 0;
	while ((1 << l) < x)
		l++;
	return l;
}

static rk_shape random_shape(gen *g, int rank)
{
	rk_shape s = {rank, {0}};
	for (int k = 0; k < rank; k++)
		s.d[k] = chance(g, 20) ? 1 << below(g, 2) : 1 << below(g, rank == 1 ? 13 : 9);
	while (rk_numel(&s) > RK_MAX_NUMEL) {
		int big = 0;
		for (int k = 1; k < rank; k++)
			big = s.d[k] > s.d[big] ? k : big;
		s.d[big] /= 2;
	}
	return s;
}

static rk_dtype random_dtype(gen *g)
{
	static const rk_dtype pick[] = {RK_F32, RK_F32, RK_F32, RK_F16, RK_F16, RK_BF16,
					RK_I32, RK_I32, RK_I32, RK_I8,  RK_U8};
	return pick[below(g, (int)(sizeof pick / sizeof *pick))];
}

/* ---- leaves ------------------------------------------------------------------ */

/* a literal of t (a Python number, weakly typed: it takes the tile's dtype) */
static node *literal(gen *g, rk_dtype t, bool nonzero)
{
	static const double fl[] = {0.5, 1.0, 1.5, 2.0, 3.0, -1.0, -0.5, 0.25, -2.5, 4.0, 0.0};
	static const int si[] = {1, 2, 3, 5, 7, -1, -3, -4, 0};
	double x;
	char name[32];
	if (rk_is_float(t)) {
		x = fl[below(g, nonzero ? 10 : 11)];
		snprintf(name, sizeof name, x < 0 ? "(%.2f)" : "%.2f", x);
	} else {
		x = t == RK_U8 ? below(g, nonzero ? 7 : 8) + (nonzero ? 1 : 0) : si[below(g, nonzero ? 8 : 9)];
		snprintf(name, sizeof name, x < 0 ? "(%.0f)" : "%.0f", x);
	}
	rk_val v;
	rk_shape s = {0, {0}};
	rk_alloc(&v, &s, t);
	v.v[0] = rk_round(t, x);
	return new_node(g, &v, name);
}

static node *gen_node(gen *g, const rk_shape *s, rk_dtype t, int depth);
static node *emit(gen *g, rk_val *v, const char *expr);
static bool cat_of(gen *g, const rk_shape *s, rk_dtype t, int depth, rk_val *v, char *text, size_t size,
		   unsigned *feat);

/* a whole tile reduced to a scalar (tl.sum(x) and the like, axis=None) */
static node *full_reduce(gen *g, rk_dtype t)
{
	static const char *const fn[] = {"sum", "max", "min"};
	rk_shape s = random_shape(g, 1 + below(g, 2));
	int which = below(g, 3);
	char text[96];
	rk_val cat;
	unsigned cat_feat = 0;
	bool is_cat = chance(g, 25) && cat_of(g, &s, t, 2, &cat, text, sizeof text, &cat_feat);
	node *a = is_cat ? NULL : gen_node(g, &s, t, 2);
	if (a)
		snprintf(text, sizeof text, "%s", a->name);
	rk_shape flat = {1, {(int)rk_numel(&s)}};
	rk_val f, v;
	bool ok = rk_reshape(&f, is_cat ? &cat : &a->v, &flat);
	if (is_cat)
		rk_free(&cat);
	if (!ok)
		return NULL;
	ok = rk_reduce(&v, "sMm"[which], &f, 0, false);
	rk_free(&f);
	if (!ok)
		return NULL;
	char expr[160];
	snprintf(expr, sizeof expr, chance(g, 50) ? "tl.%s(%s)" : "tl.%s(%s, axis=None)", fn[which], text);
	node *n = emit(g, &v, expr);
	n->feat |= cat_feat;
	return n;
}

/* a scalar kernel argument of t (fp32 or int32), a reduced tile, or a literal */
static node *scalar(gen *g, rk_dtype t, bool nonzero)
{
	if ((t == RK_F32 || t == RK_I32) && chance(g, 20)) {
		node *n = full_reduce(g, t);
		if (n)
			return n;
	}
	if ((t != RK_F32 && t != RK_I32) || chance(g, 50))
		return literal(g, t, nonzero);
	rk_param *p = add_param(g, t == RK_F32 ? RK_P_F32 : RK_P_I32, t);
	if (!p)
		return literal(g, t, nonzero);
	rk_val v;
	rk_shape s = {0, {0}};
	rk_alloc(&v, &s, t);
	if (t == RK_F32) {
		p->f = chance(g, 50) ? (float)(below(g, 16) - 8) * 0.25f : (float)((double)below(g, 1 << 20) / (1 << 18) - 2.0);
		if (nonzero && p->f == 0)
			p->f = 1.5f;
		v.v[0] = p->f;
	} else {
		p->i = below(g, 41) - 20;
		if (nonzero && p->i == 0)
			p->i = 3;
		v.v[0] = p->i;
	}
	return new_node(g, &v, p->name);
}

static double random_value(gen *g, rk_dtype t, bool exact)
{
	switch (t) {
	case RK_I32:
		return chance(g, 10) ? (double)(int32_t)(uint32_t)rnd(g) : below(g, 2001) - 1000;
	case RK_I8:
		return below(g, 256) - 128;
	case RK_U8:
		return below(g, 256);
	default:
		if (exact)
			return (below(g, 17) - 8) * 0.5;
		return rk_round(t, ((double)below(g, 1 << 24) / (1 << 24) - 0.5) * 6.0);
	}
}

static node *leaf_load(gen *g, const rk_shape *s, rk_dtype t)
{
	rk_param *p = add_param(g, RK_P_PTR, t);
	if (!p)
		return NULL;
	char name[32], o[RK_MAX_RANK][48], off[256] = "", mask[256] = "";
	var(g, name);
	int r = s->rank;
	/* memory: a padded box, its dims in a random order (inner stride not always 1) */
	int order[RK_MAX_RANK] = {0, 1, 2}, box[RK_MAX_RANK], bound[RK_MAX_RANK];
	long stride[RK_MAX_RANK];
	if (r > 1 && chance(g, 30))
		for (int k = r - 1; k > 0; k--) {
			int j = below(g, k + 1), tmp = order[k];
			order[k] = order[j], order[j] = tmp;
		}
	long st = 1;
	for (int k = r - 1; k >= 0; k--) {
		int dim = order[k];
		box[dim] = s->d[dim] + (chance(g, 30) ? below(g, 4) : 0);
		stride[dim] = st;
		st *= box[dim];
	}
	bool masked = false;
	for (int k = 0; k < r; k++) {
		snprintf(o[k], sizeof o[k], "%s_%d", name, k);
		sb_printf(&g->body, "    %s = tl.arange(0, %d)\n", o[k], s->d[k]);
		bound[k] = s->d[k];
		if (chance(g, 45)) {
			rk_param *n = add_param(g, RK_P_I32, RK_I32);
			if (n) {
				n->i = bound[k] = 1 + below(g, s->d[k]);
				if (chance(g, 25))
					n->i = bound[k] = s->d[k];
				size_t ml = strlen(mask);
				snprintf(mask + ml, sizeof mask - ml, "%s(%s%s < %s)", masked ? " & " : "", o[k], place(r, k),
					 n->name);
				masked = true;
			}
		}
		size_t ol = strlen(off);
		if (stride[k] == 1) {
			snprintf(off + ol, sizeof off - ol, "%s%s%s", k ? " + " : "", o[k], place(r, k));
		} else if (chance(g, 50)) {
			rk_param *n = add_param(g, RK_P_I32, RK_I32);
			if (!n)
				return NULL;
			n->i = (int32_t)stride[k];
			snprintf(off + ol, sizeof off - ol, "%s%s%s * %s", k ? " + " : "", o[k], place(r, k), n->name);
		} else {
			snprintf(off + ol, sizeof off - ol, "%s%s%s * %ld", k ? " + " : "", o[k], place(r, k), stride[k]);
		}
	}
	node *other = masked ? literal(g, t, false) : NULL;
	bool exact = chance(g, 60);
	rk_val v;
	rk_alloc(&v, s, t);
	size_t n = rk_numel(s), count = 1;
	for (size_t i = 0; i < n; i++) {
		int idx[RK_MAX_RANK];
		size_t f = i;
		for (int k = r - 1; k >= 0; k--)
			idx[k] = (int)(f % (size_t)s->d[k]), f /= (size_t)s->d[k];
		bool in = true;
		size_t at = 0;
		for (int k = 0; k < r; k++)
			in &= idx[k] < bound[k], at += (size_t)idx[k] * (size_t)stride[k];
		if (in && at + 1 > count)
			count = at + 1;
	}
	/* exactly the elements the mask lets through: a load past them is a bug */
	p->count = count;
	p->data = calloc(count, rk_size(t));
	for (size_t i = 0; i < count; i++)
		rk_put(t, p->data, i, random_value(g, t, exact));
	for (size_t i = 0; i < n; i++) {
		int idx[RK_MAX_RANK];
		size_t f = i;
		for (int k = r - 1; k >= 0; k--)
			idx[k] = (int)(f % (size_t)s->d[k]), f /= (size_t)s->d[k];
		bool in = true;
		size_t at = 0;
		for (int k = 0; k < r; k++)
			in &= idx[k] < bound[k], at += (size_t)idx[k] * (size_t)stride[k];
		v.v[i] = in ? rk_get(t, p->data, at) : other->v.v[0];
	}
	if (masked)
		sb_printf(&g->body, "    %s = tl.load(%s + (%s), mask=%s, other=%s)\n", name, p->name, off, mask,
			  other->name);
	else
		sb_printf(&g->body, "    %s = tl.load(%s + (%s))\n", name, p->name, off);
	return new_node(g, &v, name);
}

static node *leaf(gen *g, const rk_shape *s, rk_dtype t)
{
	char name[32], sh[64];
	int c = below(g, 100);
	if (c < 10) {
		node *lit = literal(g, t, false);
		shape_text(s, sh, sizeof sh);
		var(g, name);
		sb_printf(&g->body, "    %s = tl.full(%s, %s, %s)\n", name, sh, lit->name, rk_tl_name(t));
		rk_val v;
		rk_alloc(&v, s, t);
		for (size_t i = 0; i < rk_numel(s); i++)
			v.v[i] = lit->v.v[0];
		return new_node(g, &v, name);
	}
	if (c < 22 && t == RK_I32 && s->rank == 1) {
		var(g, name);
		sb_printf(&g->body, "    %s = tl.arange(0, %d)\n", name, s->d[0]);
		rk_val v;
		rk_alloc(&v, s, t);
		for (int i = 0; i < s->d[0]; i++)
			v.v[i] = i;
		return new_node(g, &v, name);
	}
	node *n = leaf_load(g, s, t);
	if (n)
		return n;
	/* out of parameters: zeros */
	shape_text(s, sh, sizeof sh);
	var(g, name);
	sb_printf(&g->body, "    %s = tl.zeros(%s, %s)\n", name, sh, rk_tl_name(t));
	rk_val v;
	rk_alloc(&v, s, t);
	return new_node(g, &v, name);
}

/* ---- interior nodes ------------------------------------------------------------ */

/* the features of the nodes whose variables `text` names */
static unsigned feat_of_text(gen *g, const char *text)
{
	unsigned f = 0;
	for (const char *p = text; *p;) {
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
			p++;
			continue;
		}
		size_t len = 1;
		while (p[len] == '_' || (p[len] >= 'a' && p[len] <= 'z') || (p[len] >= 'A' && p[len] <= 'Z') ||
		       (p[len] >= '0' && p[len] <= '9'))
			len++;
		for (node *n = g->nodes; n; n = n->next)
			if (strlen(n->name) == len && memcmp(n->name, p, len) == 0)
				f |= n->feat;
		p += len;
	}
	return f;
}

/* commits an op's result under a new variable defined by `expr` */
static node *emit(gen *g, rk_val *v, const char *expr)
{
	char name[32];
	var(g, name);
	sb_printf(&g->body, "    %s = %s\n", name, expr);
	unsigned f = feat_of_text(g, expr);
	node *n = new_node(g, v, name);
	n->feat = f;
	return n;
}

/* s with some dims set to 1 and maybe leading dims dropped: broadcasts to s */
static rk_shape broadcastable(gen *g, const rk_shape *s)
{
	rk_shape b = *s;
	for (int k = 0; k < b.rank; k++)
		if (chance(g, 40))
			b.d[k] = 1;
	int drop = b.rank > 1 && chance(g, 30) ? 1 + below(g, b.rank - 1) : 0;
	if (drop) {
		for (int k = 0; k + drop < b.rank; k++)
			b.d[k] = b.d[k + drop];
		b.rank -= drop;
	}
	return b;
}

/* an operand of shape s or one broadcasting to it, or a scalar */
static node *operand(gen *g, const rk_shape *s, rk_dtype t, int depth, bool nonzero)
{
	int c = below(g, 100);
	if (c < 18)
		return scalar(g, t, nonzero);
	if (c < 40) {
		rk_shape b = broadcastable(g, s);
		return gen_node(g, &b, t, depth);
	}
	return gen_node(g, s, t, depth);
}

static const char *op_text(int op)
{
	switch (op) {
	case 'f':
		return "//";
	case '+':
		return "+";
	case '-':
		return "-";
	case '*':
		return "*";
	case '/':
		return "/";
	case '%':
		return "%";
	case '&':
		return "&";
	case '|':
		return "|";
	case '<':
		return "<<";
	case '>':
		return ">>";
	default:
		return "^";
	}
}

/* x + d where d is a float dot with no accumulator, both of d's shape: tile
 * (as Triton's combine) may make it tl.dot(a, b, acc=x), x then summed with
 * the products in the dot's order; rk_dot with x as the accumulator bounds
 * both ways. False where the add is not such an add (*folded then false). */
static bool dot_add(const node *d, const rk_val *x, rk_val *out, bool *folded)
{
	*folded = false;
	if (!d->dot_a || x->s.rank != d->v.s.rank || !rk_is_float(x->t) ||
	    memcmp(x->s.d, d->v.s.d, sizeof(int) * (size_t)x->s.rank) != 0)
		return true;
	rk_val acc = *x;
	acc.t = RK_F32; /* fp16/bf16 widen exactly */
	*folded = true;
	return rk_dot(out, &d->dot_a->v, &d->dot_b->v, &acc, d->dot_rel);
}

static node *op_binary(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	const char *ops = rk_is_float(t) ? "++--**//Mm" : "++--**ff%%&|^Mm<>";
	int op = ops[below(g, (int)strlen(ops))];
	rk_dtype ta = t, tb = t;
	if (op == '/') {
		/* Triton divides floats in fp32 (fp16 / fp16 is fp32, as is fp16 / 2.0) */
		static const rk_dtype fl[] = {RK_F32, RK_F32, RK_F16, RK_BF16};
		if (t != RK_F32)
			return NULL;
		ta = fl[below(g, 4)];
		tb = chance(g, 50) ? ta : fl[below(g, 4)];
	} else if (t == RK_F32 && chance(g, 25)) {
		/* fp16/bf16 with fp32 computes in fp32 */
		rk_dtype narrow = chance(g, 50) ? RK_F16 : RK_BF16;
		*(chance(g, 50) ? &ta : &tb) = narrow;
	}
	bool div = op == '/' || op == 'f' || op == '%', shift = op == '<' || op == '>';
	node *a = gen_node(g, s, ta, depth - 1);
	node *b;
	if (shift && chance(g, 70)) {
		/* a shift amount within the width */
		char lit[16];
		int amount = below(g, t == RK_I32 ? 32 : 8);
		snprintf(lit, sizeof lit, "%d", amount);
		rk_val v;
		rk_shape s0 = {0, {0}};
		rk_alloc(&v, &s0, t);
		v.v[0] = amount;
		b = new_node(g, &v, lit);
	} else {
		b = ta == tb ? operand(g, s, tb, depth - 1, div) : gen_node(g, s, tb, depth - 1);
	}
	if (!div && !shift && chance(g, 30)) {
		node *tmp = a;
		a = b, b = tmp;
	}
	rk_val v;
	bool folded = false;
	if (op == '+' && t == RK_F32 && !dot_add(a->dot_a ? a : b, a->dot_a ? &b->v : &a->v, &v, &folded))
		return NULL;
	if (!folded && !rk_binary(&v, op, &a->v, &b->v))
		return NULL;
	char expr[128];
	if (op == 'M' || op == 'm')
		snprintf(expr, sizeof expr, "tl.%s(%s, %s)", op == 'M' ? "maximum" : "minimum", a->name, b->name);
	else
		snprintf(expr, sizeof expr, "%s %s %s", a->name, op_text(op), b->name);
	return emit(g, &v, expr);
}

static node *op_unary(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	const char *ops = rk_is_float(t) ? "-aees" : "-a";
	int op = ops[below(g, (int)strlen(ops))];
	node *a = gen_node(g, s, t, depth - 1);
	rk_val v;
	char expr[96];
	if (op == 's') {
		/* sqrt of a non-negative operand */
		if (!rk_unary(&v, 'a', &a->v))
			return NULL;
		snprintf(expr, sizeof expr, "tl.abs(%s)", a->name);
		a = emit(g, &v, expr);
	}
	if (!rk_unary(&v, op, &a->v))
		return NULL;
	if (op == '-')
		snprintf(expr, sizeof expr, "-%s", a->name);
	else
		snprintf(expr, sizeof expr, "tl.%s(%s)", op == 'a' ? "abs" : op == 'e' ? "exp" : "sqrt", a->name);
	return emit(g, &v, expr);
}

static const char *cmp_text(int op)
{
	switch (op) {
	case '<':
		return "<";
	case 'l':
		return "<=";
	case '>':
		return ">";
	case 'g':
		return ">=";
	case '=':
		return "==";
	default:
		return "!=";
	}
}

/* a comparison of two random operands broadcasting to s; NULL where uncertain */
static node *condition(gen *g, const rk_shape *s, int depth, char *text, size_t size)
{
	static const char ops[] = "<l>g=!";
	rk_dtype ct = random_dtype(g);
	int op = ops[below(g, 6)];
	node *x = gen_node(g, s, ct, depth - 1), *y = operand(g, s, ct, depth - 1, false);
	rk_val v;
	if (!rk_compare(&v, op, &x->v, &y->v))
		return NULL;
	snprintf(text, size, "%s %s %s", x->name, cmp_text(op), y->name);
	return emit(g, &v, text);
}

static node *op_where(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	char ctext[96], expr[200];
	rk_shape cs = chance(g, 30) ? broadcastable(g, s) : *s;
	node *c = condition(g, &cs, depth, ctext, sizeof ctext);
	if (!c)
		return NULL;
	rk_val v;
	if (chance(g, 25)) {
		char c2text[96], both[200];
		node *c2 = condition(g, &cs, depth, c2text, sizeof c2text);
		int op = chance(g, 50) ? '&' : '|';
		if (c2 && rk_binary(&v, op, &c->v, &c2->v)) {
			snprintf(both, sizeof both, "%s %c %s", c->name, op, c2->name);
			c = emit(g, &v, both);
		}
	}
	if (chance(g, 20) && !rk_is_unsigned(t)) {
		/* a bool tile cast to t */
		if (!rk_cast(&v, &c->v, t))
			return NULL;
		snprintf(expr, sizeof expr, "%s.to(%s)", c->name, rk_tl_name(t));
		node *n = emit(g, &v, expr);
		if (rk_numel(&cs) == rk_numel(s) && cs.rank == s->rank)
			return n;
		if (cs.rank != s->rank) /* broadcast_to keeps the rank, as Triton's */
			return NULL;
		/* the condition broadcast: bring it to s */
		char sh[64];
		shape_text(s, sh, sizeof sh);
		snprintf(expr, sizeof expr, "tl.broadcast_to(%s, %s)", n->name, sh);
		rk_val w;
		if (!rk_broadcast_to(&w, &n->v, s))
			return NULL;
		return emit(g, &w, expr);
	}
	node *a = gen_node(g, s, t, depth - 1), *b = operand(g, s, t, depth - 1, false);
	if (chance(g, 30)) {
		node *tmp = a;
		a = b, b = tmp;
	}
	if (!rk_where(&v, &c->v, &a->v, &b->v))
		return NULL;
	if (v.s.rank != s->rank || rk_numel(&v.s) != rk_numel(s)) {
		rk_free(&v);
		return NULL;
	}
	snprintf(expr, sizeof expr, "tl.where(%s, %s, %s)", c->name, a->name, b->name);
	return emit(g, &v, expr);
}

static node *op_cast(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	rk_dtype from = random_dtype(g);
	if (from == t)
		return NULL;
	node *a = gen_node(g, s, from, depth - 1);
	rk_val v;
	if (!rk_cast(&v, &a->v, t))
		return NULL;
	char expr[96];
	snprintf(expr, sizeof expr, "%s.to(%s)", a->name, rk_tl_name(t));
	return emit(g, &v, expr);
}

static node *op_reduce(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	static const char *const fn[] = {"sum", "max", "min", "argmax", "argmin"};
	int kind, which;
	rk_dtype from;
	if (rk_is_float(t)) {
		/* sum keeps the dtype; max/min of fp16/bf16 are fp32 */
		static const rk_dtype fl[] = {RK_F32, RK_F32, RK_F16, RK_BF16};
		which = t == RK_F32 ? below(g, 3) : 0;
		from = which ? fl[below(g, 4)] : t;
	} else if (t == RK_I32) {
		which = below(g, 5);
		if (which >= 3)
			from = random_dtype(g);
		else
			from = chance(g, 60) ? RK_I32 : which ? RK_U8 : RK_I8;
	} else {
		return NULL;
	}
	kind = "sMmAa"[which];
	/* keep_dims on a dim of size 1 of s, else a new dim */
	int ones[RK_MAX_RANK], nones = 0;
	for (int k = 0; k < s->rank; k++)
		if (s->d[k] == 1)
			ones[nones++] = k;
	bool keep = nones && (s->rank == RK_MAX_RANK || chance(g, 40));
	if (!keep && s->rank == RK_MAX_RANK)
		return NULL;
	int axis = keep ? ones[below(g, nones)] : below(g, s->rank + 1);
	rk_shape cs = *s;
	if (!keep) {
		for (int k = cs.rank; k > axis; k--)
			cs.d[k] = cs.d[k - 1];
		cs.rank++;
	}
	int room = log2i((int)(RK_MAX_NUMEL / rk_numel(s)));
	cs.d[axis] = 1 << below(g, (room < 8 ? room : 8) + 1);
	node *a = gen_node(g, &cs, from, depth - 1);
	rk_val v;
	if (!rk_reduce(&v, kind, &a->v, axis, keep))
		return NULL;
	char expr[128];
	if (chance(g, 20) && !keep)
		snprintf(expr, sizeof expr, "%s.%s(axis=%d)", a->name, fn[which], axis);
	else if (keep)
		snprintf(expr, sizeof expr, "tl.%s(%s, %d, keep_dims=True)", fn[which], a->name, axis);
	else
		snprintf(expr, sizeof expr, "tl.%s(%s, axis=%d)", fn[which], a->name, axis);
	return emit(g, &v, expr);
}

static node *op_cumsum(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	rk_dtype from;
	if (t == RK_F32)
		from = chance(g, 70) ? RK_F32 : RK_BF16; /* cumsum of bf16 is fp32 */
	else if (t == RK_F16)
		from = RK_F16;
	else if (t == RK_I32)
		from = chance(g, 70) ? RK_I32 : RK_I8;
	else
		return NULL;
	int axis = below(g, s->rank);
	bool rev = chance(g, 25);
	node *a = gen_node(g, s, from, depth - 1);
	rk_val v;
	if (!rk_cumsum(&v, &a->v, axis, rev))
		return NULL;
	char expr[128];
	snprintf(expr, sizeof expr, "tl.cumsum(%s, axis=%d%s)", a->name, axis, rev ? ", reverse=True" : "");
	return emit(g, &v, expr);
}

static node *op_permute(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 2)
		return NULL;
	int p[RK_MAX_RANK] = {0, 1, 2};
	if (s->rank == 2) {
		p[0] = 1, p[1] = 0;
	} else {
		do {
			for (int k = 2; k > 0; k--) {
				int j = below(g, k + 1), tmp = p[k];
				p[k] = p[j], p[j] = tmp;
			}
		} while (p[0] == 0 && p[1] == 1);
	}
	rk_shape cs = *s;
	for (int k = 0; k < s->rank; k++)
		cs.d[p[k]] = s->d[k];
	node *a = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_permute(&v, &a->v, p))
		return NULL;
	char expr[128];
	int c = below(g, 3);
	if (s->rank == 2)
		snprintf(expr, sizeof expr, c == 0 ? "tl.trans(%s)" : c == 1 ? "%s.T" : "tl.permute(%s, (1, 0))",
			 a->name);
	else
		snprintf(expr, sizeof expr, "tl.%s(%s, (%d, %d, %d))", c ? "permute" : "trans", a->name, p[0], p[1],
			 p[2]);
	return emit(g, &v, expr);
}

static node *op_reshape(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	int total = log2i((int)rk_numel(s));
	rk_shape cs = {1 + below(g, 3), {0}};
	int left = total;
	for (int k = 0; k < cs.rank; k++) {
		int e = k == cs.rank - 1 ? left : below(g, (left < 8 ? left : 8) + 1);
		if (e > 8)
			return NULL;
		cs.d[k] = 1 << e;
		left -= e;
	}
	if (cs.rank == s->rank && memcmp(cs.d, s->d, sizeof(int) * (size_t)cs.rank) == 0)
		return NULL;
	node *a = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_reshape(&v, &a->v, s))
		return NULL;
	char expr[128], sh[64];
	shape_text(s, sh, sizeof sh);
	snprintf(expr, sizeof expr, "tl.reshape(%s, %s)", a->name, sh);
	return emit(g, &v, expr);
}

static node *op_expand(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	int ones[RK_MAX_RANK], nones = 0;
	for (int k = 0; k < s->rank; k++)
		if (s->d[k] == 1)
			ones[nones++] = k;
	if (!nones || s->rank < 2)
		return NULL;
	int axis = ones[below(g, nones)];
	rk_shape cs = {s->rank - 1, {0}};
	for (int k = 0, j = 0; k < s->rank; k++)
		if (k != axis)
			cs.d[j++] = s->d[k];
	node *a = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_expand_dims(&v, &a->v, axis))
		return NULL;
	char expr[128];
	if (chance(g, 50)) {
		snprintf(expr, sizeof expr, "tl.expand_dims(%s, %d)", a->name, axis);
	} else {
		size_t n = (size_t)snprintf(expr, sizeof expr, "%s[", a->name);
		for (int k = 0; k < s->rank; k++)
			n += (size_t)snprintf(expr + n, sizeof expr - n, "%s%s", k ? ", " : "", k == axis ? "None" : ":");
		snprintf(expr + n, sizeof expr - n, "]");
	}
	return emit(g, &v, expr);
}

static node *op_broadcast(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	rk_shape cs = *s;
	bool any = false;
	for (int k = 0; k < s->rank; k++)
		if (s->d[k] > 1 && chance(g, 50))
			cs.d[k] = 1, any = true;
	if (!any)
		return NULL;
	node *a = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_broadcast_to(&v, &a->v, s))
		return NULL;
	char expr[128], sh[64];
	shape_text(s, sh, sizeof sh);
	snprintf(expr, sizeof expr, "tl.broadcast_to(%s, %s)", a->name, sh);
	return emit(g, &v, expr);
}

static node *op_join(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 2 || s->d[s->rank - 1] != 2)
		return NULL;
	rk_shape cs = *s;
	cs.rank--;
	node *a = gen_node(g, &cs, t, depth - 1), *b = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_join(&v, &a->v, &b->v))
		return NULL;
	char expr[128];
	snprintf(expr, sizeof expr, "tl.join(%s, %s)", a->name, b->name);
	return emit(g, &v, expr);
}

static node *op_split(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank >= RK_MAX_RANK)
		return NULL;
	rk_shape cs = *s;
	cs.d[cs.rank++] = 2;
	if (rk_numel(&cs) > RK_MAX_NUMEL)
		return NULL;
	node *a = gen_node(g, &cs, t, depth - 1);
	int which = below(g, 2);
	rk_val v;
	if (!rk_split(&v, &a->v, which))
		return NULL;
	char n0[32], n1[32];
	var(g, n0);
	var(g, n1);
	sb_printf(&g->body, "    %s, %s = tl.split(%s)\n", n0, n1, a->name);
	node *r = new_node(g, &v, which ? n1 : n0);
	r->feat = a->feat;
	return r;
}

/* a shape a dot gives: [M, N] or [B, M, N], M and N at least 16 */
static bool dot_shape(const rk_shape *s)
{
	return (s->rank == 2 || s->rank == 3) && s->d[s->rank - 2] >= 16 && s->d[s->rank - 1] >= 16;
}

/* fp32 dots' input_precision (NULL: the default, tf32 on cuda-emu) and how far
 * (relative) each rounds an input: tf32 keeps 10 bits, tf32x3 and bf16x6 about
 * fp32's, bf16x3 about 16; the CPU target is IEEE whatever the precision */
static const char *const dot_prec[] = {NULL, "ieee", "tf32", "tf32x3", "bf16x3", "bf16x6"};
static const double dot_prec_rel[] = {0x1p-10, 0, 0x1p-10, 0x1p-19, 0x1p-14, 0x1p-19};

static node *op_dot(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if ((t != RK_F32 && t != RK_I32) || !dot_shape(s))
		return NULL;
	/* int8 x int8 -> int32 needs K >= 32 */
	int r = s->rank, B = r == 3 ? s->d[0] : 1, M = s->d[r - 2], N = s->d[r - 1];
	int kmin = t == RK_I32 ? 32 : 16, K = chance(g, 30) ? kmin : kmin << below(g, t == RK_I32 ? 2 : 3);
	while (K > kmin && (B * M * K > RK_MAX_NUMEL || B * K * N > RK_MAX_NUMEL))
		K /= 2;
	if (B * M * K > RK_MAX_NUMEL || B * K * N > RK_MAX_NUMEL)
		return NULL;
	static const rk_dtype in[] = {RK_F16, RK_F16, RK_BF16, RK_F32, RK_F32};
	rk_dtype it = t == RK_I32 ? RK_I8 : in[below(g, 5)];
	rk_shape as = {r, {B, M, K}}, bs = {r, {B, K, N}};
	if (r == 2)
		as = (rk_shape){2, {M, K}}, bs = (rk_shape){2, {K, N}};
	node *a = gen_node(g, &as, it, depth - 1), *b = gen_node(g, &bs, it, depth - 1);
	node *acc = chance(g, 30) ? gen_node(g, s, t, depth - 1) : NULL;
	int prec = it == RK_F32 ? below(g, 6) : 1;
	rk_val v;
	if (!rk_dot(&v, &a->v, &b->v, acc ? &acc->v : NULL, dot_prec_rel[prec]))
		return NULL;
	char expr[192];
	size_t n = (size_t)snprintf(expr, sizeof expr, "tl.dot(%s, %s", a->name, b->name);
	if (acc)
		n += (size_t)snprintf(expr + n, sizeof expr - n, chance(g, 50) ? ", acc=%s" : ", %s", acc->name);
	if (it == RK_F32 && dot_prec[prec])
		n += (size_t)snprintf(expr + n, sizeof expr - n, ", input_precision=\"%s\"", dot_prec[prec]);
	if (it == RK_I8 && chance(g, 30))
		n += (size_t)snprintf(expr + n, sizeof expr - n, ", out_dtype=tl.int32");
	snprintf(expr + n, sizeof expr - n, ")");
	node *d = emit(g, &v, expr);
	if (!acc && it != RK_I8)
		d->dot_a = a, d->dot_b = b, d->dot_rel = dot_prec_rel[prec];
	d->feat |= (r == 3 ? RK_F_DOT3D : 0) | (it == RK_I8 ? RK_F_DOT_I8 : 0) | (prec != 1 ? RK_F_DOT_TF32 : 0);
	return d;
}


/* an int32 index tile of shape s, its values in [0, range): a load (masked
 * on dim 0, other=0) or, 1-D, (arange * P + Q) % range */
static node *index_tile(gen *g, const rk_shape *s, int range)
{
	rk_val v;
	char name[32];
	int r = s->rank;
	if (r == 1 && chance(g, 30)) {
		int P = 1 + 2 * below(g, 4), Q = below(g, range);
		rk_alloc(&v, s, RK_I32);
		for (int i = 0; i < s->d[0]; i++)
			v.v[i] = (double)((i * P + Q) % range);
		char expr[96];
		snprintf(expr, sizeof expr, "(tl.arange(0, %d) * %d + %d) %% %d", s->d[0], P, Q, range);
		return emit(g, &v, expr);
	}
	rk_param *p = add_param(g, RK_P_PTR, RK_I32);
	if (!p)
		return NULL;
	size_t n = rk_numel(s);
	p->count = n;
	p->data = calloc(n, sizeof(int32_t));
	for (size_t i = 0; i < n; i++)
		((int32_t *)p->data)[i] = below(g, range);
	var(g, name);
	char off[160] = "";
	long stride = 1;
	for (int k = r - 1; k >= 0; k--) {
		sb_printf(&g->body, "    %s_%d = tl.arange(0, %d)\n", name, k, s->d[k]);
		size_t ol = strlen(off);
		snprintf(off + ol, sizeof off - ol, "%s%s_%d%s * %ld", ol ? " + " : "", name, k, place(r, k), stride);
		stride *= s->d[k];
	}
	rk_param *np = chance(g, 40) ? add_param(g, RK_P_I32, RK_I32) : NULL;
	int bound = s->d[0];
	if (np)
		np->i = bound = 1 + below(g, s->d[0]);
	rk_alloc(&v, s, RK_I32);
	size_t row = n / (size_t)s->d[0];
	for (size_t i = 0; i < n; i++)
		v.v[i] = (int)(i / row) < bound ? ((int32_t *)p->data)[i] : 0;
	if (np)
		sb_printf(&g->body, "    %s = tl.load(%s + (%s), mask=%s_0%s < %s, other=0)\n", name, p->name, off, name,
			  place(r, 0), np->name);
	else
		sb_printf(&g->body, "    %s = tl.load(%s + (%s))\n", name, p->name, off);
	return new_node(g, &v, name);
}

/* tl.gather(src, index, axis): 1-D and 2-D */
static node *op_gather(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 1 || s->rank > 2)
		return NULL;
	int axis = below(g, s->rank);
	rk_shape ss = *s;
	int room = log2i((int)(65536 / rk_numel(s)));
	ss.d[axis] = 1 << below(g, (room < 7 ? room : 7) + 1);
	if (rk_numel(&ss) > RK_MAX_NUMEL)
		return NULL;
	node *src = gen_node(g, &ss, t, depth - 1), *idx = index_tile(g, s, ss.d[axis]);
	rk_val v;
	if (!idx || !rk_gather(&v, &src->v, &idx->v, axis))
		return NULL;
	char expr[128];
	snprintf(expr, sizeof expr, chance(g, 50) ? "tl.gather(%s, %s, %d)" : "tl.gather(%s, %s, axis=%d)", src->name,
		 idx->name, axis);
	node *n = emit(g, &v, expr);
	n->feat |= RK_F_GATHER;
	return n;
}

/* tl.histogram(x, bins[, mask=]) of in-range values */
static node *op_histogram(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	(void)depth;
	if (t != RK_I32 || s->rank != 1)
		return NULL;
	int bins = s->d[0], room = log2i(65536 / bins);
	rk_shape xs = {1, {1 << below(g, (room < 11 ? room : 11) + 1)}};
	node *x = index_tile(g, &xs, bins);
	if (!x)
		return NULL;
	rk_val v, m;
	char expr[160];
	bool masked = false;
	if (chance(g, 40)) {
		rk_param *np = add_param(g, RK_P_I32, RK_I32);
		if (np) {
			np->i = below(g, xs.d[0] + 1);
			rk_alloc(&m, &xs, RK_BOOL);
			for (int i = 0; i < xs.d[0]; i++)
				m.v[i] = i < np->i;
			snprintf(expr, sizeof expr, "tl.histogram(%s, %d, mask=tl.arange(0, %d) < %s)", x->name, bins,
				 xs.d[0], np->name);
			masked = true;
		}
	}
	if (!masked)
		snprintf(expr, sizeof expr, "tl.histogram(%s, %d)", x->name, bins);
	bool ok = rk_histogram(&v, &x->v, masked ? &m : NULL, bins);
	if (masked)
		rk_free(&m);
	if (!ok)
		return NULL;
	node *n = emit(g, &v, expr);
	n->feat |= RK_F_HISTOGRAM;
	return n;
}

static node *op_interleave(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 1 || s->d[s->rank - 1] < 2)
		return NULL;
	rk_shape cs = *s;
	cs.d[cs.rank - 1] /= 2;
	node *a = gen_node(g, &cs, t, depth - 1), *b = gen_node(g, &cs, t, depth - 1);
	rk_val v;
	if (!rk_interleave(&v, &a->v, &b->v))
		return NULL;
	char expr[128];
	snprintf(expr, sizeof expr, "tl.interleave(%s, %s)", a->name, b->name);
	node *n = emit(g, &v, expr);
	n->feat |= RK_F_INTERLEAVE;
	return n;
}

/* tl.cat(a, b, can_reorder=True) of two tiles whose dim 0 adds to s's: the
 * text of the expression and its value (in order; Triton may reorder, so it
 * only goes where the order does not matter: a sort, a whole reduction) */
static bool cat_of(gen *g, const rk_shape *s, rk_dtype t, int depth, rk_val *v, char *text, size_t size,
		   unsigned *feat)
{
	if (s->rank < 1 || s->d[0] < 2)
		return false;
	rk_shape cs = *s;
	cs.d[0] /= 2;
	node *a = gen_node(g, &cs, t, depth - 1), *b = gen_node(g, &cs, t, depth - 1);
	if (!rk_cat(v, &a->v, &b->v))
		return false;
	snprintf(text, size, "tl.cat(%s, %s, can_reorder=True)", a->name, b->name);
	*feat = a->feat | b->feat | RK_F_CAT;
	return true;
}

/* (a * scale).to(float8).to(t): scaled to reach float8's saturation and subnormals */
static node *op_fp8(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	static const rk_dtype fl[] = {RK_F32, RK_F32, RK_F16, RK_BF16};
	static const char *const scale_text[] = {"", "", "64.0", "256.0", "0.015625", "0.000244140625", "65536.0"};
	static const double scale[] = {1, 1, 64, 256, 0x1p-6, 0x1p-12, 65536};
	if (!rk_is_float(t))
		return NULL;
	rk_dtype from = fl[below(g, 4)];
	int fmt = chance(g, 50) ? 4 : 5, si = below(g, 7);
	node *a = gen_node(g, s, from, depth - 1);
	rk_val v;
	char expr[160];
	if (scale_text[si][0]) {
		rk_val sc;
		rk_shape s0 = {0, {0}};
		rk_alloc(&sc, &s0, from);
		/* a Python float meeting an fp16 tile is fp16: 65536.0 is inf there */
		sc.v[0] = rk_round(from, scale[si]);
		bool ok = rk_binary(&v, '*', &a->v, &sc);
		rk_free(&sc);
		if (!ok)
			return NULL;
		snprintf(expr, sizeof expr, "%s * %s", a->name, scale_text[si]);
		a = emit(g, &v, expr);
	}
	if (!rk_fp8(&v, &a->v, fmt, t))
		return NULL;
	const char *f8 = fmt == 4 ? (chance(g, 80) ? "tl.float8e4nv" : "tl.float8e4m3fn")
				  : (chance(g, 80) ? "tl.float8e5" : "tl.float8e5m2");
	if (chance(g, 25))
		snprintf(expr, sizeof expr, "tl.cast(tl.cast(%s, %s), %s)", a->name, f8, rk_tl_name(t));
	else
		snprintf(expr, sizeof expr, "%s.to(%s).to(%s)", a->name, f8, rk_tl_name(t));
	node *n = emit(g, &v, expr);
	n->feat |= RK_F_FP8;
	return n;
}

/* x - reduce(x) broadcast back along the reduced axis (softmax's shape: a
 * tile meets its own reduction in the reduction's layout) */
static node *op_rowwise(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	static const char *const fn[] = {"sum", "max", "min"};
	if ((t != RK_F32 && t != RK_I32) || s->rank < 1)
		return NULL;
	int which = below(g, 3), axis = below(g, s->rank);
	rk_dtype from = t;
	if (t == RK_F32 && which && chance(g, 40))
		from = chance(g, 50) ? RK_F16 : RK_BF16; /* max/min of narrow floats are fp32 */
	node *a = gen_node(g, s, from, depth - 1);
	rk_val r, v;
	if (!rk_reduce(&r, "sMm"[which], &a->v, axis, true))
		return NULL;
	char rexpr[96], expr[160];
	if (s->rank == 2 && chance(g, 50))
		snprintf(rexpr, sizeof rexpr, "tl.%s(%s, axis=%d)%s", fn[which], a->name, axis,
			 axis ? "[:, None]" : "[None, :]");
	else
		snprintf(rexpr, sizeof rexpr, "tl.%s(%s, axis=%d, keep_dims=True)", fn[which], a->name, axis);
	int op = chance(g, 70) ? '-' : '+';
	bool ok = rk_binary(&v, op, &a->v, &r);
	rk_free(&r);
	if (!ok)
		return NULL;
	snprintf(expr, sizeof expr, "%s %c %s", a->name, op, rexpr);
	return emit(g, &v, expr);
}

/* tl.flip or tl.sort along the last dim */
static node *op_order(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank < 1 || s->d[s->rank - 1] < 2)
		return NULL;
	node *a = gen_node(g, s, t, depth - 1);
	rk_val v;
	char expr[128];
	if (chance(g, 50)) {
		if (!rk_flip(&v, &a->v))
			return NULL;
		snprintf(expr, sizeof expr, chance(g, 50) ? "tl.flip(%s)" : "tl.flip(%s, %d)", a->name, s->rank - 1);
	} else {
		bool desc = chance(g, 50);
		if (!rk_sort(&v, &a->v, desc))
			return NULL;
		snprintf(expr, sizeof expr, "tl.sort(%s, descending=%s)", a->name, desc ? "True" : "False");
	}
	return emit(g, &v, expr);
}

/* tl.sort of a 1-D tl.cat (whose order Triton leaves open) */
static node *op_sort_cat(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	if (s->rank != 1 || s->d[0] < 4)
		return NULL;
	rk_val c, v;
	char text[96], expr[160];
	unsigned feat;
	if (!cat_of(g, s, t, depth, &c, text, sizeof text, &feat))
		return NULL;
	bool desc = chance(g, 50), ok = rk_sort(&v, &c, desc);
	rk_free(&c);
	if (!ok)
		return NULL;
	snprintf(expr, sizeof expr, "tl.sort(%s, descending=%s)", text, desc ? "True" : "False");
	node *n = emit(g, &v, expr);
	n->feat |= feat;
	return n;
}

enum { MAX_ITERS = 4 };

/* An operand of a loop body: a tile made before the loop (the same in every
 * iteration) or, owned, a load of the iteration's chunk of a buffer (its
 * line goes in the body); vals[i] is its value in iteration i. */
typedef struct {
	char name[32];
	bool owned;
	const node *made; /* not owned: the tile */
	rk_val vals[MAX_ITERS];
} loop_operand;

static bool loop_operand_make(gen *g, const rk_shape *s, rk_dtype t, int depth, int iters, const char *ivar,
			      sbuf *body, loop_operand *o)
{
	memset(o, 0, sizeof *o);
	if (chance(g, 50)) {
		node *n = gen_node(g, s, t, depth - 1);
		o->made = n;
		snprintf(o->name, sizeof o->name, "%s", n->name);
		for (int i = 0; i < iters; i++)
			o->vals[i] = n->v;
		return true;
	}
	rk_param *p = add_param(g, RK_P_PTR, t);
	if (!p)
		return false;
	char off[256] = "", base[32];
	var(g, base);
	int r = s->rank;
	long stride = 1;
	for (int k = r - 1; k >= 0; k--) {
		sb_printf(&g->body, "    %s_%d = tl.arange(0, %d)\n", base, k, s->d[k]);
		char term[128];
		if (stride == 1)
			snprintf(term, sizeof term, "%s_%d%s", base, k, place(r, k));
		else
			snprintf(term, sizeof term, "%s_%d%s * %ld", base, k, place(r, k), stride);
		size_t ol = strlen(off);
		snprintf(off + ol, sizeof off - ol, "%s%s", ol ? " + " : "", term);
		stride *= s->d[k];
	}
	int bound = s->d[0];
	rk_param *np = chance(g, 40) ? add_param(g, RK_P_I32, RK_I32) : NULL;
	node *other = np ? literal(g, t, false) : NULL;
	if (np)
		np->i = bound = 1 + below(g, s->d[0]);
	size_t n = rk_numel(s);
	p->count = n * (size_t)(iters ? iters : 1);
	p->data = calloc(p->count, rk_size(t));
	bool exact = chance(g, 60);
	for (size_t i = 0; i < p->count; i++)
		rk_put(t, p->data, i, random_value(g, t, exact));
	size_t row = n / (size_t)s->d[0];
	for (int it = 0; it < iters; it++) {
		rk_alloc(&o->vals[it], s, t);
		for (size_t j = 0; j < n; j++)
			o->vals[it].v[j] = (int)(j / row) < bound ? rk_get(t, p->data, (size_t)it * n + j) : other->v.v[0];
	}
	o->owned = true;
	var(g, o->name);
	if (np)
		sb_printf(body, "        %s = tl.load(%s + %s * %zu + (%s), mask=%s_0%s < %s, other=%s)\n", o->name, p->name,
			  ivar, n, off, base, place(r, 0), np->name, other->name);
	else
		sb_printf(body, "        %s = tl.load(%s + %s * %zu + (%s))\n", o->name, p->name, ivar, n, off);
	return true;
}

static void loop_operand_free(loop_operand *o)
{
	if (o->owned)
		for (int i = 0; i < MAX_ITERS; i++)
			rk_free(&o->vals[i]);
}


/* One operand of a K loop: its [R, C] tile per iteration (loaded from a
 * row-major buffer of rows x cols, the K edge masked with other=0), maybe
 * through an elementwise chain before the dot ("value loads"). */
typedef struct {
	rk_val vals[8];
} kl_tiles;

/* a canonical K loop: acc = zeros; for k in tl.range(0, K, BK, num_stages=S):
 * load A [M, BK] and B [BK, N] through pointer tiles advanced each iteration
 * or addressed with k (masked on a ragged K edge), maybe one of them through
 * a cast / scale / add chain, acc = tl.dot(a, b, acc) or acc += tl.dot(a, b);
 * what software pipelining (src/layout/pipeline.c) transforms */
static node *op_kloop(gen *g, const rk_shape *s, int stages)
{
	int M = s->d[0], N = s->d[1];
	if (g->k->nparams + 8 > RK_MAX_PARAMS - 1)
		return NULL;
	int BK = 16 << below(g, 2);
	while (BK > 16 && (M * BK > RK_MAX_NUMEL || BK * N > RK_MAX_NUMEL))
		BK /= 2;
	if (M * BK > RK_MAX_NUMEL || BK * N > RK_MAX_NUMEL)
		return NULL;
	int nk = 1 + below(g, 3);
	bool ragged = chance(g, 40);
	int K = nk * BK - (ragged ? 1 + below(g, BK - 1) : 0);
	bool masked = ragged || chance(g, 30);
	static const rk_dtype dts[] = {RK_F16, RK_F16, RK_BF16, RK_F32};
	rk_dtype dt = dts[below(g, 4)];
	/* which operand goes through a chain (0 none, 1 A, 2 B) and what it loads */
	int chain = below(g, 3);
	static const rk_dtype lds[] = {RK_I8, RK_F16, RK_BF16, RK_F32};
	rk_dtype ldt = chain ? lds[below(g, 4)] : dt;
	bool advance = chance(g, 60), plus = chance(g, 40);
	char acc[32], kv[32], pa[32], pb[32], rm[32], rn[32], rkk[32], ap[32], bp[32], sc[32] = "";
	var(g, acc), var(g, kv), var(g, rm), var(g, rn), var(g, rkk), var(g, ap), var(g, bp);
	rk_param *xa = add_param(g, RK_P_PTR, chain == 1 ? ldt : dt);
	rk_param *xb = add_param(g, RK_P_PTR, chain == 2 ? ldt : dt);
	rk_param *kp = chance(g, 70) ? add_param(g, RK_P_I32, RK_I32) : NULL;
	rk_param *sap = chance(g, 50) ? add_param(g, RK_P_I32, RK_I32) : NULL;
	rk_param *sbp = chance(g, 50) ? add_param(g, RK_P_I32, RK_I32) : NULL;
	snprintf(pa, sizeof pa, "%s", xa->name);
	snprintf(pb, sizeof pb, "%s", xb->name);
	char ktext[16], satext[16], sbtext[16];
	if (kp)
		kp->i = K, snprintf(ktext, sizeof ktext, "%s", kp->name);
	else
		snprintf(ktext, sizeof ktext, "%d", K);
	if (sap)
		sap->i = K, snprintf(satext, sizeof satext, "%s", sap->name);
	else
		snprintf(satext, sizeof satext, "%d", K);
	if (sbp)
		sbp->i = N, snprintf(sbtext, sizeof sbtext, "%s", sbp->name);
	else
		snprintf(sbtext, sizeof sbtext, "%d", N);
	/* the buffers: A [M, K], B [K, N], row-major */
	xa->count = (size_t)M * (size_t)K;
	xb->count = (size_t)K * (size_t)N;
	bool exa = chance(g, 60), exb = chance(g, 60);
	xa->data = calloc(xa->count, rk_size(xa->t));
	xb->data = calloc(xb->count, rk_size(xb->t));
	for (size_t i = 0; i < xa->count; i++)
		rk_put(xa->t, xa->data, i, random_value(g, xa->t, exa));
	for (size_t i = 0; i < xb->count; i++)
		rk_put(xb->t, xb->data, i, random_value(g, xb->t, exb));
	/* the chain: up to 3 steps after a cast to fp32 (forced from int8) */
	int steps[3], nsteps = 1 + below(g, 3);
	bool tofp32 = ldt == RK_I8 || chance(g, 50);
	node *lit[3] = {0};
	rk_param *scp = NULL;
	rk_val scale = {0};
	int R = chain == 1 ? M : N; /* the scale vector runs along the non-K dim */
	for (int i = 0; i < nsteps; i++) {
		steps[i] = "s+*"[below(g, 3)];
		if (steps[i] == 's' && !scp) {
			scp = add_param(g, RK_P_PTR, RK_F32);
			scp->count = (size_t)R;
			scp->data = calloc((size_t)R, sizeof(float));
			rk_shape vs = {2, {chain == 1 ? R : 1, chain == 1 ? 1 : R}};
			rk_alloc(&scale, &vs, RK_F32);
			for (int j = 0; j < R; j++) {
				double x = random_value(g, RK_F32, true);
				rk_put(RK_F32, scp->data, (size_t)j, x);
				scale.v[j] = x;
			}
			var(g, sc);
		} else if (steps[i] == 's') {
			steps[i] = '*';
		}
		if (steps[i] != 's')
			lit[i] = literal(g, tofp32 ? RK_F32 : ldt, false);
	}
	if (!chain)
		nsteps = 0;
	/* the text before the loop */
	sb_printf(&g->body, "    %s = tl.arange(0, %d)\n    %s = tl.arange(0, %d)\n    %s = tl.arange(0, %d)\n", rm, M,
		  rn, N, rkk, BK);
	if (scp)
		sb_printf(&g->body, "    %s = tl.load(%s + %s)%s\n", sc, scp->name, chain == 1 ? rm : rn,
			  chain == 1 ? "[:, None]" : "[None, :]");
	sb_printf(&g->body, "    %s = tl.zeros((%d, %d), tl.float32)\n", acc, M, N);
	char aaddr[256], baddr[256];
	if (advance) {
		sb_printf(&g->body, "    %s = %s + %s[:, None] * %s + %s[None, :]\n", ap, pa, rm, satext, rkk);
		sb_printf(&g->body, "    %s = %s + %s[:, None] * %s + %s[None, :]\n", bp, pb, rkk, sbtext, rn);
		snprintf(aaddr, sizeof aaddr, "%s", ap);
		snprintf(baddr, sizeof baddr, "%s", bp);
	} else {
		snprintf(aaddr, sizeof aaddr, "%s + %s[:, None] * %s + (%s + %s[None, :])", pa, rm, satext, kv, rkk);
		snprintf(baddr, sizeof baddr, "%s + (%s + %s[:, None]) * %s + %s[None, :]", pb, kv, rkk, sbtext, rn);
	}
	sb_printf(&g->body, "    for %s in tl.range(0, %s, %d, num_stages=%d):\n", kv, ktext, BK, stages);
	char an[32], bn[32];
	var(g, an), var(g, bn);
	if (masked) {
		sb_printf(&g->body, "        %s = tl.load(%s, mask=%s + %s[None, :] < %s, other=0)\n", an, aaddr, kv, rkk,
			  ktext);
		sb_printf(&g->body, "        %s = tl.load(%s, mask=%s + %s[:, None] < %s, other=0)\n", bn, baddr, kv, rkk,
			  ktext);
	} else {
		sb_printf(&g->body, "        %s = tl.load(%s)\n", an, aaddr);
		sb_printf(&g->body, "        %s = tl.load(%s)\n", bn, baddr);
	}
	if (chain) {
		char *cn = chain == 1 ? an : bn;
		sbuf e = {0};
		sb_printf(&e, "%s", cn);
		if (tofp32)
			sb_printf(&e, ".to(tl.float32)");
		for (int i = 0; i < nsteps; i++) {
			char *old = e.p;
			e.p = NULL, e.len = e.cap = 0;
			if (steps[i] == 's')
				sb_printf(&e, "(%s) * %s", old, sc);
			else
				sb_printf(&e, "(%s) %c %s", old, steps[i], lit[i]->name);
			free(old);
		}
		sb_printf(&g->body, "        %s = (%s).to(%s)\n", cn, e.p, rk_tl_name(dt));
		free(e.p);
	}
	const char *prec = dt == RK_F32 ? ", input_precision=\"ieee\"" : "";
	if (plus)
		sb_printf(&g->body, "        %s += tl.dot(%s, %s%s)\n", acc, an, bn, prec);
	else
		sb_printf(&g->body, "        %s = tl.dot(%s, %s, %s%s)\n", acc, an, bn, acc, prec);
	if (advance) {
		sb_printf(&g->body, "        %s += %d\n", ap, BK);
		if (sbp)
			sb_printf(&g->body, "        %s += %d * %s\n", bp, BK, sbtext);
		else
			sb_printf(&g->body, "        %s += %d\n", bp, BK * N);
	}
	/* the reference, iteration by iteration */
	rk_val cur;
	rk_alloc(&cur, s, RK_F32);
	bool ok = true;
	rk_shape ash = {2, {M, BK}}, bsh = {2, {BK, N}};
	for (int it = 0; ok && it * BK < K; it++) {
		rk_val a, b;
		rk_alloc(&a, &ash, xa->t);
		rk_alloc(&b, &bsh, xb->t);
		for (int m = 0; m < M; m++)
			for (int j = 0; j < BK; j++) {
				int kk = it * BK + j;
				a.v[m * BK + j] = kk < K ? rk_get(xa->t, xa->data, (size_t)m * (size_t)K + (size_t)kk) : 0;
			}
		for (int j = 0; j < BK; j++)
			for (int n = 0; n < N; n++) {
				int kk = it * BK + j;
				b.v[j * N + n] = kk < K ? rk_get(xb->t, xb->data, (size_t)kk * (size_t)N + (size_t)n) : 0;
			}
		if (chain) {
			rk_val *x = chain == 1 ? &a : &b, y;
			if (tofp32) {
				ok = ok && rk_cast(&y, x, RK_F32);
				if (ok)
					rk_free(x), *x = y;
			}
			for (int i = 0; ok && i < nsteps; i++) {
				ok = rk_binary(&y, steps[i] == 's' ? '*' : steps[i], x, steps[i] == 's' ? &scale : &lit[i]->v);
				if (ok)
					rk_free(x), *x = y;
			}
			ok = ok && rk_cast(&y, x, dt);
			if (ok)
				rk_free(x), *x = y;
		}
		rk_val next;
		ok = ok && rk_dot(&next, &a, &b, &cur, 0);
		if (ok)
			rk_free(&cur), cur = next;
		rk_free(&a);
		rk_free(&b);
	}
	if (scp)
		rk_free(&scale);
	if (!ok) {
		rk_free(&cur);
		return NULL;
	}
	node *res = new_node(g, &cur, acc);
	res->feat = RK_F_STAGES | RK_F_KLOOP;
	return res;
}

/* acc carried through a loop: acc = acc + x, maximum(acc, x), acc + x + i, or
 * tl.dot(a, b, acc), with x loaded per iteration or made before the loop */
static node *op_loop(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	int iters = below(g, MAX_ITERS + 1);
	char acc[32], ivar[32], range[64];
	var(g, acc);
	var(g, ivar);
	rk_param *np = chance(g, 60) ? add_param(g, RK_P_I32, RK_I32) : NULL;
	char limit[16];
	if (np)
		np->i = iters;
	if (np)
		snprintf(limit, sizeof limit, "%s", np->name);
	else
		snprintf(limit, sizeof limit, "%d", iters);
	/* a for over range / tl.range (num_stages: pipelined on cuda-emu) or a while */
	int form = below(g, 10), stages = 1 + below(g, 4);
	unsigned loop_feat = form >= 7 ? RK_F_WHILE : form >= 4 ? RK_F_STAGES : 0;
	if (form >= 4 && form < 7 && t == RK_F32 && s->rank == 2 && s->d[0] >= 16 && s->d[1] >= 16 &&
	    chance(g, 50)) {
		node *kl = op_kloop(g, s, 2 + below(g, 3));
		if (kl)
			return kl;
	}
	if (form < 2)
		snprintf(range, sizeof range, np ? "range(0, %s)" : "range(%s)", limit);
	else if (form < 4)
		snprintf(range, sizeof range, "tl.range(0, %s)", limit);
	else if (form < 7)
		snprintf(range, sizeof range, chance(g, 50) ? "tl.range(0, %s, num_stages=%d)" : "tl.range(0, %s, 1, num_stages=%d)",
			 limit, stages);
	bool dot = t == RK_F32 && s->rank == 2 && s->d[0] >= 16 && s->d[1] >= 16 && chance(g, 40);
	int kind = dot ? 'd' : "+M+i"[below(g, 4)];
	if (kind == 'i' && t != RK_I32 && t != RK_F32)
		kind = '+';
	node *init = chance(g, 40) ? NULL : gen_node(g, s, t, depth - 1);
	sbuf body = {0};
	loop_operand a, b;
	memset(&b, 0, sizeof b);
	int K = 16 << below(g, 2);
	rk_dtype it = chance(g, 70) ? RK_F16 : RK_F32;
	rk_shape as = {2, {s->d[0], K}}, bs = {2, {K, s->d[1]}};
	bool ok = dot ? loop_operand_make(g, &as, it, depth, iters, ivar, &body, &a) &&
				loop_operand_make(g, &bs, it, depth, iters, ivar, &body, &b)
		      : loop_operand_make(g, s, t, depth, iters, ivar, &body, &a);
	rk_val cur;
	rk_alloc(&cur, s, t);
	if (init) {
		memcpy(cur.v, init->v.v, rk_numel(s) * sizeof(double));
		memcpy(cur.e, init->v.e, rk_numel(s) * sizeof(double));
	}
	for (int i = 0; ok && i < iters; i++) {
		rk_val next;
		if (kind == 'd') {
			ok = rk_dot(&next, &a.vals[i], &b.vals[i], &cur, 0);
		} else if (kind == 'i') {
			rk_val x, iv;
			rk_shape s0 = {0, {0}};
			rk_alloc(&iv, &s0, t);
			iv.v[0] = i;
			bool folded = false;
			ok = t != RK_F32 || !a.made || dot_add(a.made, &cur, &x, &folded);
			ok = ok && (folded || rk_binary(&x, '+', &cur, &a.vals[i]));
			if (ok) {
				ok = rk_binary(&next, '+', &x, &iv);
				rk_free(&x);
			}
			rk_free(&iv);
		} else {
			/* acc + x, x a dot made before the loop: a dot into acc */
			bool folded = false;
			ok = kind != '+' || t != RK_F32 || !a.made || dot_add(a.made, &cur, &next, &folded);
			ok = ok && (folded || rk_binary(&next, kind, &cur, &a.vals[i]));
		}
		if (ok) {
			rk_free(&cur);
			cur = next;
		}
	}
	if (ok) {
		char sh[64];
		shape_text(s, sh, sizeof sh);
		if (init)
			sb_printf(&g->body, "    %s = %s\n", acc, init->name);
		else
			sb_printf(&g->body, "    %s = tl.zeros(%s, %s)\n", acc, sh, rk_tl_name(t));
		if (form >= 7)
			sb_printf(&g->body, "    %s = 0\n    while %s < %s:\n%s", ivar, ivar, limit, body.p ? body.p : "");
		else
			sb_printf(&g->body, "    for %s in %s:\n%s", ivar, range, body.p ? body.p : "");
		if (kind == 'd')
			sb_printf(&g->body, "        %s = tl.dot(%s, %s, %s%s)\n", acc, a.name, b.name, acc,
				  it == RK_F32 ? ", input_precision=\"ieee\"" : "");
		else if (kind == 'M')
			sb_printf(&g->body, "        %s = tl.maximum(%s, %s)\n", acc, acc, a.name);
		else
			sb_printf(&g->body, "        %s = %s + %s%s%s\n", acc, acc, a.name, kind == 'i' ? " + " : "",
				  kind == 'i' ? ivar : "");
		if (form >= 7)
			sb_printf(&g->body, "        %s += 1\n", ivar);
		loop_feat |= feat_of_text(g, body.p ? body.p : "") | (init ? init->feat : 0) |
			     feat_of_text(g, a.name) | feat_of_text(g, b.name);
	}
	free(body.p);
	loop_operand_free(&a);
	loop_operand_free(&b);
	if (!ok) {
		rk_free(&cur);
		return NULL;
	}
	node *res = new_node(g, &cur, acc);
	res->feat = loop_feat;
	return res;
}

typedef node *(*op_fn)(gen *, const rk_shape *, rk_dtype, int);

static node *gen_node(gen *g, const rk_shape *s, rk_dtype t, int depth)
{
	static const struct {
		op_fn fn;
		int weight;
	} ops[] = {{op_binary, 30}, {op_unary, 6},  {op_where, 10}, {op_cast, 8},
		   {op_reduce, 12}, {op_cumsum, 4}, {op_permute, 6}, {op_reshape, 5},
		   {op_expand, 6},  {op_broadcast, 4}, {op_join, 4}, {op_split, 4}, {op_dot, 8},
		   {op_rowwise, 6}, {op_loop, 8}, {op_order, 4}, {op_gather, 4}, {op_histogram, 3},
		   {op_interleave, 3}, {op_sort_cat, 2}, {op_fp8, 4}};
	enum { NOPS = sizeof ops / sizeof *ops };
	/* sometimes a tile made before, used twice */
	if (chance(g, 8))
		for (node *n = g->nodes; n; n = n->next)
			if (n->v.t == t && n->v.s.rank == s->rank && n->name[0] == 'v' &&
			    memcmp(n->v.s.d, s->d, sizeof(int) * (size_t)s->rank) == 0)
				return n;
	bool root = g->root;
	g->root = false;
	if (depth <= 0 || g->budget <= 0 || (!root && chance(g, 8)))
		return leaf(g, s, t);
	g->budget--;
	/* a dot fits few shapes: try it first where it does */
	if ((t == RK_F32 || t == RK_I32) && dot_shape(s) && chance(g, 30)) {
		/* or a K loop of dots, pipelined on cuda-emu */
		node *n = t == RK_F32 && s->rank == 2 && chance(g, 40) ? op_kloop(g, s, 2 + below(g, 3)) : NULL;
		if (!n)
			n = op_dot(g, s, t, depth);
		if (n) {
			g->k->nodes++;
			return n;
		}
	}
	int total = 0;
	for (int i = 0; i < NOPS; i++)
		total += ops[i].weight;
	for (int attempt = 0; attempt < 6; attempt++) {
		int w = below(g, total), i = 0;
		while (w >= ops[i].weight)
			w -= ops[i++].weight;
		node *n = ops[i].fn(g, s, t, depth);
		if (n) {
			g->k->nodes++;
			return n;
		}
	}
	return leaf(g, s, t);
}

/* ---- the root given to atomics from a grid of programs ------------------------- */

/* the final memory is the same in any order of the programs: add/max/min/
 * and/or/xor of root + pid into every element the mask lets through; xchg of
 * root + pid by the one program that owns an element (its offset % grid);
 * cas(cmp, root) by all, which sets exactly the elements that held cmp */
static bool atomic_root(gen *g, const node *root, rk_param *out, const char *off, const char *mask)
{
	rk_kernel *k = g->k;
	rk_dtype t = root->v.t;
	const rk_shape *s = &root->v.s;
	const char *ops = t == RK_F32 ? "+Mmxc" : "+Mm&|^xc";
	int op = ops[below(g, (int)strlen(ops))], G = 2 + below(g, 3);
	size_t n = rk_numel(s);
	node *cmp = op == 'c' ? leaf_load(g, s, t) : NULL;
	if (op == 'c' && !cmp)
		return false;
	rk_val vals[4], init, fold;
	memset(vals, 0, sizeof vals);
	bool ok = true;
	for (int p = 0; p < G && ok; p++) {
		rk_val pv;
		rk_shape s0 = {0, {0}};
		rk_alloc(&pv, &s0, RK_I32);
		pv.v[0] = op == 'c' ? 0 : p;
		ok = rk_binary(&vals[p], '+', &root->v, &pv);
		rk_free(&pv);
	}
	rk_alloc(&init, s, t);
	bool exact = chance(g, 70);
	for (size_t i = 0; i < n; i++) {
		double x = random_value(g, t, exact);
		if (cmp && chance(g, 50))
			x = cmp->v.v[i];
		rk_put(t, out->data, k->out_at[i], x);
		init.v[i] = rk_get(t, out->data, k->out_at[i]);
	}
	bool bitwise = op == '+' || op == 'M' || op == 'm' || op == '&' || op == '|' || op == '^';
	ok = ok && (!bitwise || rk_atomic_fold(&fold, op, &init, vals, G));
	if (ok) {
		rk_free(&k->want);
		rk_alloc(&k->want, s, t);
		for (size_t i = 0; i < n; i++) {
			int owner = (int)(k->out_at[i] % (size_t)G);
			bool in = op == 'c' || (k->stored[i] && (op != 'x' || owner >= 0));
			const rk_val *w = !in ? &init : bitwise ? &fold : op == 'x' ? &vals[owner]
					: init.v[i] == cmp->v.v[i] ? &vals[0] : &init;
			k->want.v[i] = w->v[i];
			k->want.e[i] = w->e[i];
			k->stored[i] = true;
		}
		if (bitwise)
			rk_free(&fold);
		static const char *const names[] = {"add", "max", "min", "and", "or", "xor", "xchg", "cas"};
		const char *name = names[strchr("+Mm&|^xc", op) - "+Mm&|^xc"];
		char full_mask[400];
		if (op == 'x')
			snprintf(full_mask, sizeof full_mask, "%s%s((%s) %% %d == pid)", mask, mask[0] ? " & " : "", off, G);
		else
			snprintf(full_mask, sizeof full_mask, "%s", mask);
		sb_printf(&g->body, chance(g, 50) ? "    pid = tl.program_id(0)\n" : "    pid = tl.program_id(axis=0)\n");
		if (op != 'c')
			sb_printf(&g->body, "    val = %s + pid\n", root->name);
		const char *sem = chance(g, 30) ? ", sem=\"relaxed\"" : chance(g, 20) ? ", scope=\"gpu\"" : "";
		bool method = chance(g, 25);
		if (op == 'c')
			sb_printf(&g->body, method ? "    (out + (%s)).atomic_cas(%s, %s%s)\n" : "    tl.atomic_cas(out + (%s), %s, %s%s)\n",
				  off, cmp->name, root->name, sem);
		else if (method)
			sb_printf(&g->body, "    (out + (%s)).atomic_%s(val%s%s%s)\n", off, name, full_mask[0] ? ", mask=" : "",
				  full_mask, sem);
		else
			sb_printf(&g->body, "    tl.atomic_%s(out + (%s), val%s%s%s)\n", name, off, full_mask[0] ? ", mask=" : "",
				  full_mask, sem);
		k->grid = G;
		k->out_init = true;
		k->features |= RK_F_ATOMIC | (op == 'x' || op == 'c' ? RK_F_XCHG_CAS : 0) | (cmp ? cmp->feat : 0);
	}
	for (int p = 0; p < G; p++)
		rk_free(&vals[p]);
	rk_free(&init);
	return ok;
}

/* ---- the kernel ------------------------------------------------------------------- */

void rk_generate(rk_kernel *k, uint64_t seed)
{
	memset(k, 0, sizeof *k);
	gen g = {0};
	g.rng = seed * UINT64_C(0x2545f4914f6cdd1d) + 1;
	g.k = k;
	g.budget = 5 + below(&g, 14);
	int r = below(&g, 100);
	rk_shape s = random_shape(&g, r < 30 ? 1 : r < 85 ? 2 : 3);
	rk_dtype t = random_dtype(&g);
	if (chance(&g, 15)) {
		/* a matmul-shaped root, where dots go (batched: [B, M, N]) */
		s = (rk_shape){2, {16 << below(&g, 3), 16 << below(&g, 3)}};
		if (chance(&g, 25))
			s = (rk_shape){3, {1 << below(&g, 3), 16 << below(&g, 2), 16 << below(&g, 2)}};
		t = chance(&g, 80) ? RK_F32 : RK_I32;
	}
	/* sometimes given to atomics from a grid of programs instead of stored */
	bool atomic = chance(&g, 12);
	if (atomic && t != RK_F32 && t != RK_I32)
		t = chance(&g, 50) ? RK_F32 : RK_I32;
	g.root = true;
	node *root = gen_node(&g, &s, t, 4 + below(&g, 4));

	g.out_made = true;
	rk_param *out = add_param(&g, RK_P_PTR, t);
	snprintf(out->name, sizeof out->name, "out");
	k->out_param = (int)(out - k->params);
	size_t n = rk_numel(&s);
	out->count = n;
	out->data = malloc(n * rk_size(t));
	char off[256] = "", mask[256] = "";
	int bound[RK_MAX_RANK];
	/* dense, its dims sometimes in another order (a transposed store) */
	int order[RK_MAX_RANK] = {0, 1, 2};
	if (s.rank > 1 && chance(&g, 25))
		for (int d = s.rank - 1; d > 0; d--) {
			int j = below(&g, d + 1), tmp = order[d];
			order[d] = order[j], order[j] = tmp;
		}
	long stride[RK_MAX_RANK], st = 1;
	for (int d = s.rank - 1; d >= 0; d--) {
		stride[order[d]] = st;
		st *= s.d[order[d]];
	}
	for (int d = 0; d < s.rank; d++) {
		sb_printf(&g.body, "    so%d = tl.arange(0, %d)\n", d, s.d[d]);
		bound[d] = s.d[d];
		size_t ol = strlen(off);
		if (stride[d] == 1)
			snprintf(off + ol, sizeof off - ol, "%sso%d%s", d ? " + " : "", d, place(s.rank, d));
		else
			snprintf(off + ol, sizeof off - ol, "%sso%d%s * %ld", d ? " + " : "", d, place(s.rank, d), stride[d]);
		if (chance(&g, 50)) {
			rk_param *np = add_param(&g, RK_P_I32, RK_I32);
			if (np) {
				np->i = bound[d] = 1 + below(&g, s.d[d]);
				size_t ml = strlen(mask);
				snprintf(mask + ml, sizeof mask - ml, "%s(so%d%s < %s)", ml ? " & " : "", d, place(s.rank, d),
					 np->name);
			}
		}
	}
	k->stored = calloc(n, sizeof(bool));
	k->out_at = calloc(n, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		size_t f = i, at = 0;
		bool in = true;
		for (int d = s.rank - 1; d >= 0; d--) {
			int idx = (int)(f % (size_t)s.d[d]);
			in &= idx < bound[d];
			at += (size_t)idx * (size_t)stride[d];
			f /= (size_t)s.d[d];
		}
		k->stored[i] = in;
		k->out_at[i] = at;
	}
	rk_alloc(&k->want, &s, t);
	memcpy(k->want.v, root->v.v, n * sizeof(double));
	memcpy(k->want.e, root->v.e, n * sizeof(double));
	k->features = root->feat;
	if (!(atomic && atomic_root(&g, root, out, off, mask))) {
		if (mask[0])
			sb_printf(&g.body, "    tl.store(out + (%s), %s, mask=%s)\n", off, root->name, mask);
		else
			sb_printf(&g.body, "    tl.store(out + (%s), %s)\n", off, root->name);
	}

	sbuf src = {0};
	sb_printf(&src, "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef kern(");
	size_t sl = 0;
	for (int i = 0; i < k->nparams; i++) {
		rk_param *p = &k->params[i];
		sb_printf(&src, "%s%s", i ? ", " : "", p->name);
		sl += (size_t)snprintf(k->sig + sl, sizeof k->sig - sl, "%s%s%s", i ? "," : "",
				       p->kind == RK_P_PTR ? "*" : "",
				       p->kind == RK_P_PTR ? rk_sig_name(p->t) : p->kind == RK_P_I32 ? "i32" : "fp32");
	}
	sb_printf(&src, "):\n%s", g.body.p);
	k->src = src.p;
	free(g.body.p);
	for (node *nd = g.nodes, *next; nd; nd = next) {
		next = nd->next;
		rk_free(&nd->v);
		free(nd);
	}
}

void rk_kernel_free(rk_kernel *k)
{
	for (int i = 0; i < k->nparams; i++)
		free(k->params[i].data);
	free(k->src);
	free(k->stored);
	free(k->out_at);
	rk_free(&k->want);
}
