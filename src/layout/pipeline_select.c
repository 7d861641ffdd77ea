/* pipeline_select.c: which loads of a loop software pipelining takes
 * (pipeline.c has the whole picture): the address slices that can be
 * recomputed for any iteration, the index loads in them, the loads whose
 * values reach a dot (or every load of a dot-less loop that names its
 * num_stages) and what the body writes.
 */
#include <string.h>

#include "layout/pipeline_int.h"

/* ---- where values live -------------------------------------------------------------- */


int pipe_iter_index(const Pipe *P, ValId v)
{
	const TirVal *t = &P->f->vals.data[v];
	if (t->def || t->block != P->body || t->index == 0)
		return -1;
	return t->index - 1;
}

/* ---- the address slice ----------------------------------------------------------------- */

/* A load an address may be computed from (an index load): redone for a
 * later iteration, it reads what the original would have read then, as
 * nothing of the body is assumed to write what a pipelined load reads
 * (Triton's pipeliner assumes the same). */
bool pipe_index_load(const TirFunc *f, const TirOp *op)
{
	if (op->kind != TOP_LOAD || op->nout != 1 || (op->attr.flags & TIR_VOLATILE))
		return false;
	/* its clone masks every operand the same way (clone_load) */
	const LinearLayout *l = f->vals.data[op->operands[0]].layout;
	for (int i = 1; i < op->nin; i++)
		if (f->vals.data[op->operands[i]].ty.rank && f->vals.data[op->operands[i]].layout != l)
			return false;
	return f->vals.data[op->results[0]].layout == l;
}

static bool slice_ok(Pipe *P, ValId v, int depth)
{
	TirFunc *f = P->f;
	if (!tir_block_within(P->loop, tir_def_block(f, v)))
		return true;
	if (v == P->body->args[0])
		return true;
	int k = pipe_iter_index(P, v);
	if (k >= 0)
		return P->adv[k];
	if (v < P->nmemo && P->memo[v])
		return P->memo[v] == 1;
	const TirOp *op = f->vals.data[v].def;
	bool ok = op && op->block == P->body && depth < 200 && op->nout == 1 && !op->nregions &&
		  (((tir_op_flags((TirOpKind)op->kind) & TF_PURE) && op->kind != TOP_DOT) ||
		   (P->loads_ok && pipe_index_load(f, op)));
	/* a divisor that changes with the iteration could be 0 in a prefetch
	 * the original never runs */
	if (ok && (op->kind == TOP_DIV || op->kind == TOP_REM)) {
		const TirOp *d = f->vals.data[op->operands[1]].def;
		ok = !tir_block_within(P->loop, tir_def_block(f, op->operands[1])) ||
		     (d && d->kind == TOP_CONST && !dtype_is_float((DType)f->vals.data[op->operands[1]].ty.dt) &&
		      d->attr.i != 0); /* `start_n // PAGE`: a constant the body holds */
	}
	for (int i = 0; ok && i < op->nin; i++)
		ok = slice_ok(P, op->operands[i], depth + 1);
	if (v < P->nmemo)
		P->memo[v] = ok ? 1 : 2;
	return ok;
}

/* Greatest set of iter args whose next value is a slice over the set. */
void pipe_find_advanceable(Pipe *P)
{
	for (int k = 0; k < P->niters; k++)
		P->adv[k] = true;
	for (bool changed = true; changed;) {
		changed = false;
		for (int k = 0; k < P->niters; k++) {
			if (!P->adv[k])
				continue;
			memset(P->memo, 0, P->nmemo);
			if (!slice_ok(P, P->yield->operands[k], 0)) {
				P->adv[k] = false;
				changed = true;
			}
		}
	}
	memset(P->memo, 0, P->nmemo);
}

/* Marks the iter args the slice of v reads (and those their updates read). */
void pipe_mark_iters(Pipe *P, ValId v, int depth)
{
	TirFunc *f = P->f;
	if (!tir_block_within(P->loop, tir_def_block(f, v)) || v == P->body->args[0] || depth > 200)
		return;
	int k = pipe_iter_index(P, v);
	if (k >= 0) {
		if (!P->used[k]) {
			P->used[k] = true;
			pipe_mark_iters(P, P->yield->operands[k], depth + 1);
		}
		return;
	}
	const TirOp *op = f->vals.data[v].def;
	for (int i = 0; op && i < op->nin; i++)
		pipe_mark_iters(P, op->operands[i], depth + 1);
}

/* Collects the index loads of the slice of v into P->idx. */
void pipe_find_index_loads(Pipe *P, ValId v, int depth)
{
	TirFunc *f = P->f;
	const TirOp *op = f->vals.data[v].def;
	if (!op || op->block != P->body || depth > 200)
		return;
	if (op->kind == TOP_LOAD) {
		for (int i = 0; i < P->nidx; i++)
			if (P->idx[i] == op)
				return;
		if (P->nidx < MAX_PIPE_LOADS)
			P->idx[P->nidx++] = (TirOp *)op;
		return; /* a load in its slice is redone where it is carried */
	}
	for (int i = 0; i < op->nin; i++)
		pipe_find_index_loads(P, op->operands[i], depth + 1);
}

/* Marks in in[] (per ValId) the values of the body the slice of v is made of,
 * through loads too. */
static void mark_slice(const Pipe *P, ValId v, uint8_t *in, int depth)
{
	const TirOp *op = P->f->vals.data[v].def;
	if (!op || op->block != P->body || in[v] || depth > 200)
		return;
	in[v] = 1;
	for (int i = 0; i < op->nin; i++)
		mark_slice(P, op->operands[i], in, depth + 1);
}

void pipe_drop_address_loads(Pipe *P)
{
	uint8_t *in = ARENA_NEWN(P->f->arena, uint8_t, P->f->vals.len + 1);
	for (int i = 0; i < P->nld; i++) {
		mark_slice(P, P->ld[i].ptr, in, 0);
		if (P->ld[i].mask)
			mark_slice(P, P->ld[i].mask, in, 0);
	}
	int n = 0;
	for (int i = 0; i < P->nld; i++)
		if (!in[P->ld[i].op->results[0]])
			P->ld[n++] = P->ld[i];
	P->nld = n;
}

/* ---- what the body writes ------------------------------------------------------------ */

/* Marks in roots[] the kernel parameters pointer value v is computed from,
 * through pointer operands and loop-carried values; *unknown when it is built
 * from anything else (an int_to_ptr, a pointer loaded from memory). */
static void ptr_roots(const TirFunc *f, ValId v, uint8_t *seen, uint8_t *roots, bool *unknown,
		      int depth)
{
	if (seen[v])
		return;
	seen[v] = 1;
	const TirVal *t = &f->vals.data[v];
	if (depth > 400) {
		*unknown = true;
		return;
	}
	const TirOp *loop = t->def ? (t->def->kind == TOP_FOR ? t->def : NULL) : t->block ? t->block->parent : NULL;
	if (!t->def && !loop) {
		roots[v] = 1; /* an entry block argument: a kernel parameter */
		return;
	}
	if (loop) { /* an iter arg or a loop result: its initial and next values */
		int k = t->def ? t->index : t->index - 1;
		const TirBlock *b = &loop->regions[0];
		const TirOp *y = b->nops ? b->ops[b->nops - 1] : NULL;
		if (loop->kind != TOP_FOR || k < 0 || !y || y->kind != TOP_YIELD || k >= y->nin) {
			*unknown = true;
			return;
		}
		ptr_roots(f, loop->operands[3 + k], seen, roots, unknown, depth + 1);
		ptr_roots(f, y->operands[k], seen, roots, unknown, depth + 1);
		return;
	}
	const TirOp *op = t->def;
	bool any = false;
	if (tir_op_flags((TirOpKind)op->kind) & TF_PURE)
		for (int i = 0; i < op->nin; i++)
			if (f->vals.data[op->operands[i]].ty.dt == DT_PTR) {
				any = true;
				ptr_roots(f, op->operands[i], seen, roots, unknown, depth + 1);
			}
	if (!any)
		*unknown = true;
}

void pipe_find_stores(Pipe *P, const TirBlock *b, uint8_t *seen)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		if (op->kind == TOP_STORE || op->kind == TOP_ATOMIC || op->kind == TOP_ATOMIC_CAS) {
			P->nstores++;
			memset(seen, 0, P->f->vals.len + 1);
			ptr_roots(P->f, op->operands[0], seen, P->store_roots, &P->store_unknown, 0);
		}
		for (int r = 0; r < op->nregions; r++)
			pipe_find_stores(P, &op->regions[r], seen);
	}
}

/* Load op reads through a parameter the body writes through (or through
 * pointers of unknown origin where the body writes at all). */
static bool reads_written(const Pipe *P, const TirOp *op)
{
	if (!P->nstores)
		return false;
	TirFunc *f = P->f;
	uint8_t *seen = ARENA_NEWN(f->arena, uint8_t, f->vals.len + 1);
	uint8_t *roots = ARENA_NEWN(f->arena, uint8_t, f->vals.len + 1);
	bool unknown = false;
	ptr_roots(f, op->operands[0], seen, roots, &unknown, 0);
	if (P->store_unknown || unknown)
		return true;
	for (size_t v = 1; v < f->vals.len; v++)
		if (roots[v] && P->store_roots[v])
			return true;
	return false;
}

/* ---- candidate loads ------------------------------------------------------------------- */

static bool zero_const(const TirFunc *f, ValId v)
{
	const TirOp *d = f->vals.data[v].def;
	if (!d || d->kind != TOP_CONST)
		return false;
	if (dtype_is_float((DType)f->vals.data[v].ty.dt)) {
		double z = d->attr.f;
		uint64_t bits;
		memcpy(&bits, &z, sizeof bits);
		return bits == 0;
	}
	return d->attr.i == 0;
}

/* The layout, in the coordinates of trans's operand, that gives layout l
 * after the transposition (trans only permutes a layout's outputs). */
const LinearLayout *pipe_untrans(const Pipe *P, const TirOp *tr, const LinearLayout *l)
{
	int inv[TIR_MAX_RANK];
	for (int d = 0; d < l->n_out; d++)
		inv[tr->attr.perm[d]] = d;
	LinearLayout *r = ARENA_NEW(P->f->arena, LinearLayout);
	ll_permute_outs(r, l, inv);
	return r;
}

/* Users of v at any depth of b: all must be top-level DOT operands,
 * CONVERT_LAYOUTs, (not below another) TRANS whose users are such, or with
 * `any` other top-level ops; sets *dot when some path reaches a dot operand,
 * and *first to the layout the first consumer reads, in v's coordinates. */
static bool users_ok(const Pipe *P, const TirBlock *b, ValId v, bool any, bool *dot,
		     const LinearLayout **first, const TirOp *tr)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		for (int j = 0; j < op->nin; j++) {
			if (op->operands[j] != v)
				continue;
			if (b != P->body)
				return false;
			const LinearLayout *seen = NULL;
			if (op->kind == TOP_DOT && j < 2) {
				*dot = true;
				seen = P->f->vals.data[v].layout;
			} else if (op->kind == TOP_CONVERT_LAYOUT) {
				ValId r = op->results[0];
				/* the convert's users may be anything; note a dot */
				for (int k = 0; k < b->nops; k++)
					for (int m = 0; m < b->ops[k]->nin && m < 2; m++)
						if (b->ops[k]->operands[m] == r && b->ops[k]->kind == TOP_DOT)
							*dot = true;
				seen = P->f->vals.data[r].layout;
			} else if (op->kind == TOP_TRANS && !tr) {
				if (!users_ok(P, P->body, op->results[0], any, dot, first, op))
					return false;
			} else if (any && op->kind != TOP_YIELD) {
				seen = P->f->vals.data[v].layout;
			} else {
				return false;
			}
			if (seen && !*first)
				*first = tr ? pipe_untrans(P, tr, seen) : seen;
		}
		for (int r = 0; r < op->nregions; r++)
			if (!users_ok(P, &op->regions[r], v, any, dot, first, tr))
				return false;
	}
	return true;
}

/* P->feeds: the values of the body's top level whose value reaches a dot's
 * a or b operand there (not through an address: loads in addresses are
 * carried as index loads instead), or every load of a dot-less loop. Walked
 * from the end, as every use follows its definition. */
void pipe_find_feeds(Pipe *P)
{
	const TirBlock *b = P->body;
	if (P->no_dot) {
		for (int i = 0; i < b->nops; i++)
			if (b->ops[i]->kind == TOP_LOAD && b->ops[i]->nout == 1)
				P->feeds[b->ops[i]->results[0]] = 1;
		return;
	}
	for (int i = b->nops - 1; i >= 0; i--) {
		const TirOp *op = b->ops[i];
		if (op->kind == TOP_DOT) {
			for (int j = 0; j < 2 && j < op->nin; j++)
				P->feeds[op->operands[j]] = 1;
			continue;
		}
		bool fed = false;
		for (int k = 0; k < op->nout; k++)
			fed |= P->feeds[op->results[k]];
		if (!fed || op->nregions || !(tir_op_flags((TirOpKind)op->kind) & TF_PURE))
			continue;
		for (int j = 0; j < op->nin; j++)
			P->feeds[op->operands[j]] = 1;
	}
}

static bool has_trans_user(const TirBlock *b, ValId v)
{
	for (int i = 0; i < b->nops; i++)
		for (int j = 0; j < b->ops[i]->nin; j++)
			if (b->ops[i]->operands[j] == v && b->ops[i]->kind == TOP_TRANS)
				return true;
	return false;
}

bool pipe_candidate(Pipe *P, TirOp *op, PLoad *pl)
{
	TirFunc *f = P->f;
	if (op->kind != TOP_LOAD || op->nout != 1 || (op->attr.flags & TIR_VOLATILE))
		return false;
	ValId res = op->results[0];
	Type t = f->vals.data[res].ty;
	if (t.rank == 0 || !f->vals.data[res].layout)
		return false;
	int k = 1;
	ValId mask = (op->attr.flags & TIR_HAS_MASK) ? op->operands[k++] : 0;
	ValId other = (op->attr.flags & TIR_HAS_OTHER) ? op->operands[k++] : 0;
	if (other && zero_const(f, other))
		other = 0; /* what cp.async fills masked-off elements with */
	const LinearLayout *lp = f->vals.data[op->operands[0]].layout;
	if (lp != f->vals.data[res].layout || (mask && f->vals.data[mask].layout != lp))
		return false;
	/* another `other` is selected in after the read, which needs the mask
	 * and `other` where the value is read: in the load's own layout */
	if (other && (!mask || f->vals.data[other].layout != lp || has_trans_user(P->body, res)))
		return false;
	bool dot = false, value = false;
	const LinearLayout *first = NULL;
	if (other || !users_ok(P, P->body, res, false, &dot, &first, NULL) || !dot || !first) {
		if (P->lc->opts && P->lc->opts->no_value_load_pipelining)
			return false;
		/* a value load: cp.async moves 4, 8 or 16 bytes */
		dot = false;
		first = NULL;
		value = P->feeds[res] && op->attr.i2 * pipe_elem_bytes(t) >= 4 &&
			users_ok(P, P->body, res, true, &dot, &first, NULL) && first;
		if (!value)
			return false;
		first = f->vals.data[res].layout;
	}
	if (!slice_ok(P, op->operands[0], 0) || (mask && !slice_ok(P, mask, 0)))
		return false;
	if (P->no_dot && reads_written(P, op))
		return false;
	memset(pl, 0, sizeof *pl);
	pl->value = value;
	pl->op = op;
	pl->ptr = op->operands[0];
	pl->mask = mask;
	pl->other = other;
	pl->cons = first;
	return true;
}
