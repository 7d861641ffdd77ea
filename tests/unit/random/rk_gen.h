/* rk_gen.h: what the files of rk_gen (the random kernel of rk.h) share: the
 * generator's state, the tree's nodes, the random stream and the ops each
 * file makes. A node is asked for a shape and a dtype (gen_node picks an op
 * from the table in rk_gen.c); each op asks its operands for theirs, writes
 * its line of the kernel and computes its reference (rk_eval.c), or returns
 * NULL where the reference cannot pin the result down. */
#ifndef RK_GEN_H
#define RK_GEN_H

#include "rk.h"

typedef struct {
	char *p;
	size_t len, cap;
} sbuf;

typedef struct node {
	rk_val v;
	char name[32]; /* a variable, a parameter or a literal */
	uint64_t feat; /* RK_F_* of the ops it is made of */
	/* a float tl.dot(a, b) with no accumulator: its operands and input rounding */
	const struct node *dot_a, *dot_b;
	double dot_rel;
	struct node *next;
} node;

typedef struct {
	uint64_t rng;
	rk_kernel *k;
	sbuf body;
	int nvar, nptr, nint, nflt;
	int budget;
	bool out_made; /* the output's parameter may take the last slot */
	bool root;     /* the next node is the root: not a leaf */
	node *nodes; /* every node made, for reuse and freeing */
	bool v3;       /* version 3's forms (RK_GEN_V3): off, the stream is version 2's */
	bool v4;       /* version 4's forms (RK_GEN_V4): off, the stream is version 3's */
	bool v5;       /* version 5's forms (RK_GEN_V5): off, the stream is version 4's */
	bool v6;       /* version 6's forms (RK_GEN_V6): off, the stream is version 5's */
	bool v7;       /* version 7's forms (RK_GEN_V7): off, the stream is version 6's */
	sbuf pre;      /* @triton.jit helpers before the kernel (combine_fns) */
	unsigned helpers; /* which of them are written (rk_gen_scan.c) */
} gen;

/* the random stream: a kernel is a function of its seed */
static inline uint64_t rnd(gen *g)
{
	uint64_t z = (g->rng += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline int below(gen *g, int n)
{
	return (int)(rnd(g) % (uint64_t)n);
}

static inline bool chance(gen *g, int pct)
{
	return below(g, 100) < pct;
}

/* ---- rk_gen.c: text, names, parameters and the op table ---------------------------- */

void rg_sb_printf(sbuf *b, const char *fmt, ...);
node *rg_new_node(gen *g, const rk_val *v, const char *name);
const char *rg_var(gen *g, char *buf); /* a fresh variable name into buf[32] */
/* NULL when out of parameter slots */
rk_param *rg_add_param(gen *g, rk_param_kind kind, rk_dtype t);
void rg_shape_text(const rk_shape *s, char *buf, size_t size);
const char *rg_place(int r, int k);
int rg_log2i(int x);
rk_shape rg_random_shape(gen *g, int rank);
rk_dtype rg_random_dtype(gen *g);
uint64_t rg_feat_of_text(gen *g, const char *text);
node *rg_emit(gen *g, rk_val *v, const char *expr);
const char *rg_minmax_to(gen *g, rk_dtype t);
node *gen_node(gen *g, const rk_shape *s, rk_dtype t, int depth);

/* ---- rk_gen_leaf.c ------------------------------------------------------------------ */

node *rg_literal(gen *g, rk_dtype t, bool nonzero);
node *rg_scalar(gen *g, rk_dtype t, bool nonzero);
double rg_random_value(gen *g, rk_dtype t, bool exact);
node *rg_leaf_load(gen *g, const rk_shape *s, rk_dtype t);
node *rg_leaf(gen *g, const rk_shape *s, rk_dtype t);
rk_shape rg_broadcastable(gen *g, const rk_shape *s);
node *rg_operand(gen *g, const rk_shape *s, rk_dtype t, int depth, bool nonzero);
node *index_tile(gen *g, const rk_shape *s, int range);
node *index_retype(gen *g, node *idx); /* version 5 */

/* ---- the ops, by file ------------------------------------------------------------------ */

/* rk_gen_expr.c */
bool dot_add(const node *d, const rk_val *x, rk_val *out, bool *folded);
node *rg_condition(gen *g, const rk_shape *s, int depth, char *text, size_t size);
node *op_binary(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_unary(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_where(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_cast(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_fp8(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_wide(gen *g, const rk_shape *s, rk_dtype t, int depth); /* version 3 */
/* rk_gen_reduce.c */
bool rg_widen_axis(gen *g, const rk_shape *s, int cap, rk_shape *cs, int *axis, bool *keep);
node *full_reduce(gen *g, rk_dtype t);
bool cat_of(gen *g, const rk_shape *s, rk_dtype t, int depth, rk_val *v, char *text, size_t size, uint64_t *feat);
node *op_reduce(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_cumsum(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_histogram(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_rowwise(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_order(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_sort_cat(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_topk(gen *g, const rk_shape *s, rk_dtype t, int depth);   /* version 5 */
node *op_maxidx(gen *g, const rk_shape *s, rk_dtype t, int depth); /* version 5 */
/* rk_gen_view.c */
node *op_permute(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_reshape(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_expand(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_broadcast(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_join(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_split(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_gather(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_interleave(gen *g, const rk_shape *s, rk_dtype t, int depth);
/* rk_gen_scan.c (version 3) */
node *op_combine(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_scan(gen *g, const rk_shape *s, rk_dtype t, int depth);
/* rk_gen_math.c (version 3) */
node *op_math(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_intbits(gen *g, const rk_shape *s, rk_dtype t, int depth);
/* rk_gen_nan.c (version 5) */
node *op_nan(gen *g, const rk_shape *s, rk_dtype t, int depth);
/* rk_gen_tuple.c (version 6) */
node *op_tuple(gen *g, const rk_shape *s, rk_dtype t, int depth);
/* rk_gen_block.c (version 6) */
node *rg_leaf_block(gen *g, const rk_shape *s, rk_dtype t);
bool rg_block_store(gen *g, const node *root, rk_param *out);
void rg_kloop_via(gen *g, bool desc, bool advance, const int *dims, bool edge, const char *const *names, char *aload,
		  char *bload);
/* rk_gen_dot.c */
enum { MAX_ITERS = 4 };
/* An operand of a loop body: a tile made before the loop (the same in every
 * iteration) or, owned, a load of the iteration's chunk of a buffer (its
 * line goes in the body); vals[i] is its value in iteration i. */
typedef struct {
	char name[32];
	bool owned;
	const node *made; /* not owned: the tile */
	rk_val vals[MAX_ITERS];
	uint64_t feat; /* RK_F_MASK2 */
} loop_operand;
bool loop_operand_make(gen *g, const rk_shape *s, rk_dtype t, int depth, int iters, const char *ivar, sbuf *body,
		       loop_operand *o);
void loop_operand_free(loop_operand *o);
bool dot_shape(const rk_shape *s);
node *op_dot(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_kloop(gen *g, const rk_shape *s, int stages);
node *op_loop(gen *g, const rk_shape *s, rk_dtype t, int depth);
/* rk_gen_attn.c (version 7) */
node *op_attn(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_loops2(gen *g, const rk_shape *s, rk_dtype t, int depth);
node *op_dotred(gen *g, const rk_shape *s, rk_dtype t, int depth);

#endif
