/* tp_cse.c: loop-invariant code motion and common subexpressions of the
 * thread program, run right after lowering drops dead code, for the native
 * CPU target (cuda-emu runs exactly the GPU's thread program).
 *
 * Lowering writes each register's address, index and mask computation out
 * on its own (`shl warp, 3` once per register of a 512-register row) and
 * leaves what does not change in a loop inside it (softmax's column offsets
 * and mask under its row loop). LLVM's LICM and EarlyCSE would clean that
 * up, but LLVM 14's LICM asks ScalarEvolution to forget every value it
 * hoists, a walk over all its transitive users: quadratic in a big loop
 * body (softmax at BLOCK 65536 over 4 warps: 2 of its 3.5 CPU seconds).
 * (For a GPU, NVVM does this itself, and doing it here first made ptxas
 * spill more: see lower_func.)
 *
 * Guarantees: the program computes the same values. Pure ops (TF_PURE, no
 * regions) with equal kind, attributes, operands and result type are merged
 * into the first one that dominates them (an earlier op of the same block
 * or an enclosing one). A pure op directly in a FOR or WHILE body whose
 * operands are all defined outside the loop moves in front of it (innermost
 * loops first, so an op leaves a nest as far as its operands allow), as
 * Triton's LICM hoists them from scf.for. Control flow is uniform and pure
 * ops cannot fault, except integer division, which stays where it is (a
 * loop that runs no iteration must not divide by zero); mma and anything
 * reading memory stay too. */
#include "codegen/tp.h"

#include <stdlib.h>
#include <string.h>

typedef struct Entry {
	TpOp *op;
	int next; /* the previous head of its bucket (-1: none) */
	size_t bucket;
} Entry;

typedef struct Cse {
	TpFunc *f;
	TpVal *repl; /* a merged result -> the value that replaces it (0: itself) */
	int *head;   /* bucket -> index in ents of its latest entry, -1 */
	size_t nbuckets;
	VEC(Entry) ents; /* a stack: leaving a region pops what it added */
	uint32_t *inside; /* value -> the serial of the loop it is defined in (hoisting) */
	uint32_t serial;
} Cse;

static bool movable(const TpFunc *f, const TpOp *op)
{
	TpOpKind k = (TpOpKind)op->kind;
	if (!(tp_op_flags(k) & TF_PURE) || op->nregions || op->nout != 1 || k == TP_MMA)
		return false;
	/* integer division faults on a zero divisor (CPU): not speculated */
	return !((k == TP_DIV || k == TP_REM) && !dtype_is_float((DType)tp_type(f, op->results[0]).dt));
}

static bool same_attr(const TirAttr *a, const TirAttr *b)
{
	return a->i == b->i && a->i2 == b->i2 && !memcmp(&a->f, &b->f, sizeof a->f) && a->axis == b->axis &&
	       a->pred == b->pred && a->math == b->math && a->atomic == b->atomic && a->flags == b->flags &&
	       !memcmp(a->perm, b->perm, sizeof a->perm) && a->str == b->str;
}

static bool same_op(const TpFunc *f, const TpOp *a, const TpOp *b)
{
	if (a->kind != b->kind || a->nin != b->nin || !same_attr(&a->attr, &b->attr))
		return false;
	if (a->nin && memcmp(a->operands, b->operands, sizeof(TpVal) * (size_t)a->nin))
		return false;
	Type ta = tp_type(f, a->results[0]), tb = tp_type(f, b->results[0]);
	return ta.dt == tb.dt && ta.elem == tb.elem && ta.addrspace == tb.addrspace;
}

static size_t op_hash(const TpFunc *f, const TpOp *op)
{
	uint64_t h = op->kind * 0x9e3779b97f4a7c15u;
	for (int i = 0; i < op->nin; i++)
		h = (h ^ op->operands[i]) * 0x100000001b3u;
	uint64_t bits;
	memcpy(&bits, &op->attr.f, sizeof bits);
	h = (h ^ (uint64_t)op->attr.i ^ bits ^ (uint64_t)op->attr.pred << 40 ^ (uint64_t)op->attr.math << 48) *
	    0xbf58476d1ce4e5b9u;
	h ^= tp_type(f, op->results[0]).dt;
	return (size_t)(h ^ h >> 31);
}

/* ---- loop-invariant code motion ---------------------------------------------------- */

static void mark_inside(Cse *c, const TpBlock *b)
{
	for (int i = 0; i < b->nargs; i++)
		c->inside[b->args[i]] = c->serial;
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		for (int k = 0; k < op->nout; k++)
			c->inside[op->results[k]] = c->serial;
		for (int k = 0; k < op->nregions; k++)
			mark_inside(c, &op->regions[k]);
	}
}

/* Moves the invariant ops of loop `op`'s bodies to *out (in order). */
static void hoist_from(Cse *c, TpOp *op, TpOp ***out, int *nout, int *cap)
{
	c->serial++;
	for (int r = 0; r < op->nregions; r++)
		mark_inside(c, &op->regions[r]);
	for (int r = 0; r < op->nregions; r++) {
		TpBlock *b = &op->regions[r];
		int j = 0;
		for (int i = 0; i < b->nops; i++) {
			TpOp *o = b->ops[i];
			bool inv = movable(c->f, o);
			for (int k = 0; inv && k < o->nin; k++)
				inv = c->inside[o->operands[k]] != c->serial;
			if (!inv) {
				b->ops[j++] = o;
				continue;
			}
			c->inside[o->results[0]] = 0;
			if (*nout == *cap) {
				*cap = *cap ? 2 * *cap : 64;
				*out = xrealloc(*out, sizeof(TpOp *) * (size_t)*cap);
			}
			(*out)[(*nout)++] = o;
		}
		b->nops = j;
	}
}

static void hoist_block(Cse *c, TpBlock *b)
{
	TpOp **moved = NULL;
	int cap = 0;
	for (int i = 0; i < b->nops; i++) {
		TpOp *op = b->ops[i];
		for (int r = 0; r < op->nregions; r++)
			hoist_block(c, &op->regions[r]); /* inner loops first */
		if (op->kind != TP_FOR && op->kind != TP_WHILE)
			continue;
		int n = 0;
		hoist_from(c, op, &moved, &n, &cap);
		if (!n)
			continue;
		TpOp **ops = arena_alloc(c->f->arena, sizeof(TpOp *) * (size_t)(b->nops + n));
		memcpy(ops, b->ops, sizeof(TpOp *) * (size_t)i);
		memcpy(ops + i, moved, sizeof(TpOp *) * (size_t)n);
		memcpy(ops + i + n, b->ops + i, sizeof(TpOp *) * (size_t)(b->nops - i));
		b->ops = ops;
		b->nops += n;
		b->cap = b->nops;
		i += n;
	}
	free(moved);
}

/* ---- common subexpressions ----------------------------------------------------------- */

static TpOp *lookup(Cse *c, const TpOp *op, size_t *bucket)
{
	*bucket = op_hash(c->f, op) & (c->nbuckets - 1);
	for (int e = c->head[*bucket]; e >= 0; e = c->ents.data[e].next)
		if (same_op(c->f, c->ents.data[e].op, op))
			return c->ents.data[e].op;
	return NULL;
}

static void cse_block(Cse *c, TpBlock *b)
{
	size_t mark = c->ents.len;
	int j = 0;
	for (int i = 0; i < b->nops; i++) {
		TpOp *op = b->ops[i];
		for (int k = 0; k < op->nin; k++)
			if (c->repl[op->operands[k]])
				op->operands[k] = c->repl[op->operands[k]];
		for (int r = 0; r < op->nregions; r++)
			cse_block(c, &op->regions[r]);
		b->ops[j++] = op;
		if (!movable(c->f, op) && !(op->kind == TP_DIV || op->kind == TP_REM))
			continue;
		if (op->nout != 1 || op->nregions)
			continue;
		size_t bucket;
		TpOp *same = lookup(c, op, &bucket);
		if (same) {
			c->repl[op->results[0]] = same->results[0];
			j--; /* dropped: its uses now read the first one */
			continue;
		}
		vec_push(&c->ents, ((Entry){op, c->head[bucket], bucket}));
		c->head[bucket] = (int)c->ents.len - 1;
	}
	b->nops = j;
	while (c->ents.len > mark) { /* what this block defined does not dominate what follows it */
		Entry e = vec_pop(&c->ents);
		c->head[e.bucket] = e.next;
	}
}

void tp_cse_hoist(TpFunc *f)
{
	Cse c = {.f = f};
	size_t nv = f->vals.len + 1;
	c.inside = xcalloc(nv, sizeof *c.inside);
	hoist_block(&c, f->body);
	c.repl = xcalloc(nv, sizeof *c.repl);
	c.nbuckets = 1024;
	while (c.nbuckets < nv)
		c.nbuckets *= 2;
	c.head = xmalloc(sizeof *c.head * c.nbuckets);
	memset(c.head, 0xff, sizeof *c.head * c.nbuckets);
	cse_block(&c, f->body);
	vec_free(&c.ents);
	free(c.head);
	free(c.repl);
	free(c.inside);
}
