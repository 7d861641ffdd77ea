/* pipeline.c: software pipelining of loops whose loads' values feed tl.dot
 * (cp.async multi-buffering, Triton's num_stages).
 *
 * Requires: layouts assigned (assign.c) and scratch sized (smem.c); a target
 * with cp.async. Guarantees: a verified IR in which each pipelined loop
 * prefetches S-1 iterations ahead into S shared-memory slots per load
 * (TirFunc.bufs), reads the current slot with LOCAL_LOAD, and waits for the
 * copies with one ASYNC_WAIT + BARRIER per iteration; TirFunc.smem_reserved
 * and smem_bytes cover the buffers and the scratch after them.
 *
 * Which loops: innermost FOR ops with S = attr.i (or the num_stages option)
 * >= 2 and a positive constant step. Which loads: at the top level of the
 * body, `other` absent or all-zero bits (cp.async zero-fills; a value load's
 * other `other` is selected in after the read), not volatile,
 * with an address (ptr, mask) computed by pure ops from loop invariants, the
 * induction variable and iter args advanced the same way (e.g. `a_ptrs +=
 * BLOCK_K * stride`), so it can be recomputed for any iteration; and either
 * - an operand load: it feeds a dot operand directly or through
 *   CONVERT_LAYOUT/TRANS and has no other users, or
 * - a value load: its value reaches a dot operand through other ops of the
 *   body (a dequantized weight, a scale, an attention bias: what Triton's
 *   pipeliner finds walking back from the dot), all its users are top-level
 *   ops of the body, and it moves at least 4 bytes per access (cp.async's
 *   least). It is read in its own layout where it stood; conversions after
 *   it stay. Value loads are taken only where the operand loads keep their
 *   stage count beside them: they hide latency, operand loads also replace
 *   a conversion through shared memory.
 * In a loop with no dot whose num_stages the source names (tl.range), every
 * such load is a value load unless it reads through a parameter the body
 * writes through. An address (ptr, mask) may also be computed from loads of
 * the body (index loads), which are carried one iteration ahead.
 * Everything else stays as it was.
 *
 * The shape (S = 3, prefetch distance S-1 = 2):
 *
 *     copy(it 0) -> slot 0; commit; copy(it 1) -> slot 1; commit
 *     for i (r = read slot, ahead = iter args of iteration i+S-1):
 *         wait(S-2); barrier          // own copies of it i landed; all threads
 *                                     //   are past their reads of it i-1
 *         copy(it i+S-1) -> slot (r+S-1)%S; commit   // the slot it i-1 read
 *         ...the body, x = local_load(slot r) where x's load stood...
 *     wait(0); barrier
 *
 * The write into slot (r+S-1)%S = (r-1)%S happens after iteration i's barrier,
 * which every thread reaches only after its reads of iteration i-1. The
 * original address ops die with the loads; an original address iter arg that
 * only fed them is yielded unchanged (its update dies too).
 */
#include <stdlib.h>
#include <string.h>

#include "layout/pipeline_int.h"

/* A place to clone address slices for one iteration (iv, iters). */
typedef struct Inst {
	TirBlock *b;
	int pos;
	ValId iv;
	ValId *iters; /* per iter arg; 0 = not available */
	ValId *map;   /* original ValId -> clone */
	size_t nmap;
} Inst;

/* ---- shared buffers ------------------------------------------------------------------- */

static bool zero_basis(const int32_t *b, int n)
{
	for (int k = 0; k < n; k++)
		if (b[k])
			return false;
	return true;
}

/* A value load's buffer is read in the layout it is written in, so it is laid
 * out in the load's own order: each thread's vector (leading register bits
 * 1, 2, 4, ... along one dim, at most 16 bytes), then lanes, warps and the
 * other registers, replicated bases dropped. A warp's copies and reads are
 * then whole vectors at consecutive addresses: no bank conflicts, no padding
 * (a conversion's choice for a layout to itself may cut the vectors to 4
 * bytes). false where that order is not a bijection onto the tile. */
static bool own_order_smem(const LinearLayout *l, int eb, LinearLayout *smem)
{
	int rs = ll_find_slot(l, LL_REG), nv = 0, dim = -1;
	for (; rs >= 0 && nv < l->in_bits[rs] && (eb << (nv + 1)) <= 16; nv++) {
		const int32_t *b = l->basis[rs][nv];
		int nz = -1, n = 0;
		for (int k = 0; k < l->n_out; k++)
			if (b[k])
				nz = k, n++;
		if (n != 1 || (dim >= 0 && nz != dim) || b[nz] != (1 << nv))
			break;
		dim = nz;
	}
	LinearLayout m;
	ll_empty(&m, l->n_out);
	ll_slot(&m, LL_OFFSET);
	const struct {
		LLInDim in;
		int from, to;
	} order[4] = {{LL_REG, 0, nv}, {LL_LANE, 0, LL_MAX_BITS}, {LL_WARP, 0, LL_MAX_BITS},
		      {LL_REG, nv, LL_MAX_BITS}};
	for (int k = 0; k < 4; k++) {
		int s = ll_find_slot(l, order[k].in);
		for (int b = order[k].from; s >= 0 && b < l->in_bits[s] && b < order[k].to; b++)
			if (!zero_basis(l->basis[s][b], l->n_out))
				ll_push_basis(&m, LL_OFFSET, l->basis[s][b]);
	}
	for (int d = 0; d < l->n_out; d++)
		m.out_bits[d] = l->out_bits[d];
	if (ll_total_in_bits(&m) != ll_total_out_bits(&m) || !ll_is_injective(&m) ||
	    !ll_is_surjective(&m))
		return false;
	*smem = m;
	return true;
}

/* The one place the buffer's shared layout is chosen: for an operand load,
 * what a conversion from the load's layout to its consumer's would use
 * (ldmatrix-aware, as smem.c and lowering choose it, so LOCAL_LOAD reads it as
 * that conversion would); for a value load, its own order where it has one. */
static void buf_layout(const Pipe *P, PLoad *pl)
{
	const TirFunc *f = P->f;
	ValId res = pl->op->results[0];
	int eb = pipe_elem_bytes(f->vals.data[res].ty);
	memset(&pl->pad, 0, sizeof pl->pad);
	if (!pl->value || !own_order_smem(f->vals.data[res].layout, eb, &pl->smem))
		layout_choose_conversion_smem(P->lc->target, f, f->vals.data[res].layout, pl->cons,
					      eb, &pl->smem, &pl->pad);
	int64_t n = ll_padded_size(&pl->pad, (int64_t)1 << ll_total_in_bits(&pl->smem));
	pl->slot_bytes = (n * eb + 127) & ~(int64_t)127;
}

/* The scratch the body of b will need once pipelined: the conversions of the
 * pipelined loads to their consumers' layouts go (LOCAL_LOAD reads the
 * buffer in that layout). */
static int64_t body_scratch(const Pipe *P, const TirBlock *b)
{
	int64_t top = 0;
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		bool replaced = false;
		for (int k = 0; k < P->nld && op->kind == TOP_CONVERT_LAYOUT; k++)
			replaced |= op->operands[0] == P->ld[k].op->results[0] && !P->ld[k].value;
		if (!replaced)
			top = MAXOF(top, layout_op_scratch(P->lc, P->f, op));
		for (int r = 0; r < op->nregions; r++)
			top = MAXOF(top, body_scratch(P, &op->regions[r]));
	}
	return top;
}

/* Largest S' in [2, S] whose buffers fit next to the scratch used while they
 * are live (scratch inside pipelined loops starts after the largest loop's
 * buffers) and after the operands held across the loop (hold_smem.c); 0 if
 * none. Scratch outside pipelined loops and the buffers of
 * the other pipelined loops overlap this loop's buffers (TirSmemBuf). */
static int fit_stages(const Pipe *P, int S)
{
	TirFunc *f = P->f;
	int64_t per = 0;
	for (int i = 0; i < P->nld; i++)
		per += P->ld[i].slot_bytes;
	int64_t in, out;
	layout_scratch(P->lc, f, f->entry, false, &in, &out);
	in = MAXOF(in, body_scratch(P, P->body));
	int64_t base = layout_buf_base(P->lc, f, P->loop);
	for (; S >= 2; S--)
		if (MAXOF(f->smem_reserved, base + per * S) + in <= P->lc->target->max_shared_bytes)
			return S;
	return 0;
}

/* This loop's buffers start at byte 0, over those of any loop pipelined
 * before: only innermost loops are pipelined, so two of them are never live
 * together (each issues its first copies just before it and ends with
 * wait(0) + barrier). lightllm's prefill attention runs an unmasked and a
 * causal K/V loop one after the other: 2 x 96 KiB stacked was 192 KiB on
 * sm_90a, and on sm_80 left the second loop 2 stages; now 96 KiB, 3 stages
 * on both. TILE_SCRATCH_APART stacks them (layout_buf_base), to check that. */
static void add_bufs(Pipe *P, int S)
{
	TirFunc *f = P->f;
	int64_t base = layout_buf_base(P->lc, f, P->loop); /* after operands held across it */
	TirSmemBuf *nb = ARENA_NEWN(f->arena, TirSmemBuf, f->nbufs + P->nld);
	if (f->nbufs)
		memcpy(nb, f->bufs, sizeof(TirSmemBuf) * (size_t)f->nbufs);
	for (int i = 0; i < P->nld; i++) {
		PLoad *pl = &P->ld[i];
		TirSmemBuf *b = &nb[f->nbufs];
		b->tile = f->vals.data[pl->op->results[0]].ty;
		b->smem = arena_dup(f->arena, &pl->smem, sizeof pl->smem);
		b->pad = pl->pad.n ? arena_dup(f->arena, &pl->pad, sizeof pl->pad) : NULL;
		b->base = base;
		b->slot_bytes = pl->slot_bytes;
		b->nslots = S;
		pl->buf = f->nbufs++;
		base += pl->slot_bytes * S;
	}
	f->smem_reserved = (int)MAXOF(f->smem_reserved, base);
	f->bufs = nb;
}

/* ---- building ------------------------------------------------------------------------ */

static ValId emit(Pipe *P, Inst *I, TirOpKind k, const ValId *in, int nin, Type t,
		  const LinearLayout *l)
{
	TirOp *op = tir_op_at(P->f, I->b, I->pos++, k, P->loop->loc, in, nin, &t, t.dt ? 1 : 0);
	if (!op->nout)
		return 0;
	P->f->vals.data[op->results[0]].layout = t.rank ? l : NULL;
	return op->results[0];
}

static TirOp *emit_op(Pipe *P, Inst *I, TirOpKind k, const ValId *in, int nin)
{
	return tir_op_at(P->f, I->b, I->pos++, k, P->loop->loc, in, nin, NULL, 0);
}

static ValId konst(Pipe *P, Inst *I, Type t, int64_t v)
{
	ValId r = emit(P, I, TOP_CONST, NULL, 0, t, NULL);
	P->f->vals.data[r].def->attr.i = v;
	return r;
}

static ValId binop(Pipe *P, Inst *I, TirOpKind k, ValId a, ValId b)
{
	ValId in[2] = {a, b};
	return emit(P, I, k, in, 2, P->f->vals.data[a].ty, P->f->vals.data[a].layout);
}

static ValId cmp(Pipe *P, Inst *I, TirPred p, ValId a, ValId b)
{
	ValId in[2] = {a, b};
	ValId r = emit(P, I, TOP_CMP, in, 2, type_scalar(DT_I1), NULL);
	P->f->vals.data[r].def->attr.pred = p;
	return r;
}

static ValId select_(Pipe *P, Inst *I, ValId c, ValId a, ValId b)
{
	ValId in[3] = {c, a, b};
	return emit(P, I, TOP_SELECT, in, 3, P->f->vals.data[a].ty, NULL);
}

static void inst_init(Pipe *P, Inst *I, TirBlock *b, int pos, ValId iv, ValId *iters)
{
	I->b = b;
	I->pos = pos;
	I->iv = iv;
	I->iters = iters;
	I->nmap = P->f->vals.len;
	I->map = ARENA_NEWN(P->f->arena, ValId, I->nmap);
}

static ValId clone(Pipe *P, Inst *I, ValId v);

/* A copy at I of op (result v) on operands in[]: v's type, layout and name,
 * recorded as v's clone. */
static ValId put_clone(Pipe *P, Inst *I, ValId v, const TirOp *op, const ValId *in, int nin)
{
	TirFunc *f = P->f;
	TirVal orig = f->vals.data[v];
	TirOp *n = tir_op_at(f, I->b, I->pos++, (TirOpKind)op->kind, op->loc, in, nin, &orig.ty, 1);
	n->attr = op->attr;
	ValId r = n->results[0];
	f->vals.data[r].layout = orig.layout;
	f->vals.data[r].name = orig.name;
	if (v < I->nmap)
		I->map[v] = r;
	return r;
}

/* Index load op (result v) for the iteration of I: masked off past the
 * loop's end, where the original never runs and its addresses may be out
 * of bounds (the copies it addresses are masked off too). */
static ValId clone_load(Pipe *P, Inst *I, ValId v, const TirOp *op)
{
	TirFunc *f = P->f;
	int k = 1;
	ValId ptr = clone(P, I, op->operands[0]);
	ValId mask = (op->attr.flags & TIR_HAS_MASK) ? clone(P, I, op->operands[k++]) : 0;
	ValId other = (op->attr.flags & TIR_HAS_OTHER) ? clone(P, I, op->operands[k++]) : 0;
	ValId m = cmp(P, I, PRED_LT, I->iv, P->loop->operands[1]);
	Type mt = f->vals.data[ptr].ty;
	if (mt.rank) {
		mt.dt = DT_I1;
		mt.elem = 0;
		m = emit(P, I, TOP_SPLAT, &m, 1, mt, f->vals.data[ptr].layout);
	}
	if (mask)
		m = binop(P, I, TOP_AND, mask, m);
	ValId in[3] = {ptr, m, other};
	ValId r = put_clone(P, I, v, op, in, other ? 3 : 2);
	f->vals.data[r].def->attr.flags |= TIR_HAS_MASK;
	return r;
}

/* v for the iteration of I: the slice of v cloned at I. */
static ValId clone(Pipe *P, Inst *I, ValId v)
{
	TirFunc *f = P->f;
	if (!tir_block_within(P->loop, tir_def_block(f, v)))
		return v;
	if (v == P->body->args[0])
		return I->iv;
	int k = pipe_iter_index(P, v);
	if (k >= 0) {
		if (!I->iters[k])
			ice("pipeline", "iter arg %d of a pipelined address is not available", k);
		return I->iters[k];
	}
	if (v < I->nmap && I->map[v])
		return I->map[v];
	const TirOp *op = f->vals.data[v].def;
	if (op->kind == TOP_LOAD)
		return clone_load(P, I, v, op);
	ValId ins[16];
	if (op->nin > 16)
		ice("pipeline", "op with %d operands in an address slice", op->nin);
	for (int i = 0; i < op->nin; i++)
		ins[i] = clone(P, I, op->operands[i]);
	return put_clone(P, I, v, op, ins, op->nin);
}

/* ASYNC_COPY of load pl for the iteration of I into `slot`. */
static void emit_copy(Pipe *P, Inst *I, const PLoad *pl, ValId slot)
{
	TirFunc *f = P->f;
	ValId ub = P->loop->operands[1];
	ValId ptr = clone(P, I, pl->ptr);
	Type pt = f->vals.data[ptr].ty;
	const LinearLayout *l = f->vals.data[ptr].layout;
	ValId inb = cmp(P, I, PRED_LT, I->iv, ub);
	Type mt = pt;
	mt.dt = DT_I1;
	mt.elem = 0;
	ValId m = emit(P, I, TOP_SPLAT, &inb, 1, mt, l);
	if (pl->mask)
		m = binop(P, I, TOP_AND, clone(P, I, pl->mask), m);
	ValId in[3] = {ptr, m, slot};
	TirOp *c = emit_op(P, I, TOP_ASYNC_COPY, in, 3);
	c->attr.i = pl->buf;
	c->attr.i2 = pl->op->attr.i2;
}

/* The next values of the used iter args for the iteration of I. */
static void advance(Pipe *P, Inst *I, ValId *next)
{
	for (int k = 0; k < P->niters; k++)
		next[k] = P->used[k] ? clone(P, I, P->yield->operands[k]) : 0;
}

static int op_pos(const TirBlock *b, const TirOp *op)
{
	for (int i = 0; i < b->nops; i++)
		if (b->ops[i] == op)
			return i;
	ice("pipeline", "op not found in its block");
}

static void remove_ops(TirBlock *b, TirOp **dead, int ndead)
{
	int n = 0;
	for (int i = 0; i < b->nops; i++) {
		bool d = false;
		for (int j = 0; j < ndead; j++)
			d |= b->ops[i] == dead[j];
		if (!d)
			b->ops[n++] = b->ops[i];
	}
	b->nops = n;
}

/* Appends iter args (inits[], types of inits) to the loop: operands, body
 * args (with the inits' layouts) and results. Returns the first new arg's
 * index among the body args. */
static int add_iters(Pipe *P, const ValId *inits, int n)
{
	TirFunc *f = P->f;
	TirOp *op = P->loop;
	ValId *ops = ARENA_NEWN(f->arena, ValId, op->nin + n);
	memcpy(ops, op->operands, sizeof(ValId) * (size_t)op->nin);
	memcpy(ops + op->nin, inits, sizeof(ValId) * (size_t)n);
	op->operands = ops;
	op->nin += n;
	ValId *res = ARENA_NEWN(f->arena, ValId, op->nout + n);
	if (op->nout)
		memcpy(res, op->results, sizeof(ValId) * (size_t)op->nout);
	int first = P->body->nargs;
	for (int i = 0; i < n; i++) {
		Type t = f->vals.data[inits[i]].ty;
		const LinearLayout *l = f->vals.data[inits[i]].layout;
		ValId a = tir_block_add_arg(f, P->body, t);
		f->vals.data[a].layout = l;
		ValId r = tir_new_val(f, t);
		f->vals.data[r].def = op;
		f->vals.data[r].index = op->nout + i;
		f->vals.data[r].layout = l;
		res[op->nout + i] = r;
	}
	op->results = res;
	op->nout += n;
	return first;
}

static void yield_append(Pipe *P, const ValId *vals, int n)
{
	TirOp *y = P->yield;
	ValId *ops = ARENA_NEWN(P->f->arena, ValId, y->nin + n);
	if (y->nin)
		memcpy(ops, y->operands, sizeof(ValId) * (size_t)y->nin);
	memcpy(ops + y->nin, vals, sizeof(ValId) * (size_t)n);
	y->operands = ops;
	y->nin += n;
}

/* LOCAL_LOADs of slot r replacing load pl (its converts, then the rest). */
/* The function's pointer for layout l (layouts are interned: equal layouts
 * are one pointer), or a new one. */
static const LinearLayout *lay_intern_f(const Pipe *P, const LinearLayout *l)
{
	const TirFunc *f = P->f;
	for (size_t v = 1; v < f->vals.len; v++)
		if (f->vals.data[v].layout && ll_equal(f->vals.data[v].layout, l))
			return f->vals.data[v].layout;
	return arena_dup(f->arena, l, sizeof *l);
}

/* LOCAL_LOAD of the slot in layout l (in the load's coordinates), then the
 * transposition tr when the load was used through one. */
static ValId read_slot(Pipe *P, Inst *I, const PLoad *pl, ValId r, const LinearLayout *l, const TirOp *tr)
{
	TirFunc *f = P->f;
	ValId res = pl->op->results[0];
	ValId ll = emit(P, I, TOP_LOCAL_LOAD, &r, 1, f->vals.data[res].ty, lay_intern_f(P, l));
	f->vals.data[ll].def->attr.i = pl->buf;
	f->vals.data[ll].name = f->vals.data[res].name;
	if (pl->other) { /* the copy zero-filled the masked-off elements */
		ValId in[3] = {pl->mask, ll, pl->other};
		ll = emit(P, I, TOP_SELECT, in, 3, f->vals.data[res].ty, f->vals.data[ll].layout);
		f->vals.data[ll].name = f->vals.data[res].name;
	}
	if (!tr)
		return ll;
	ValId t = tr->results[0];
	LinearLayout *tl = ARENA_NEW(f->arena, LinearLayout);
	ll_permute_outs(tl, l, tr->attr.perm);
	TirOp *n = emit_op(P, I, TOP_TRANS, &ll, 1);
	tir_op_set_results(f, n, &f->vals.data[t].ty, 1);
	n->attr = tr->attr;
	f->vals.data[n->results[0]].layout = lay_intern_f(P, tl);
	f->vals.data[n->results[0]].name = f->vals.data[t].name;
	return n->results[0];
}

/* Replaces the uses of v (the load's result, or with tr its transposition):
 * each convert of it becomes a read of the slot in the convert's layout,
 * other users get one read in v's own layout. */
static void replace_uses_of(Pipe *P, Inst *I, const PLoad *pl, ValId r, ValId v, const TirOp *tr,
			    TirOp **dead, int *ndead)
{
	TirFunc *f = P->f;
	TirBlock *b = P->body;
	int first = *ndead;
	bool other_users = false;
	const TirOp *trans_users[8];
	int ntrans = 0;
	for (int i = 0; i < b->nops; i++)
		for (int j = 0; j < b->ops[i]->nin; j++)
			if (b->ops[i]->operands[j] == v) {
				if (b->ops[i]->kind == TOP_CONVERT_LAYOUT && !pl->value)
					dead[(*ndead)++] = b->ops[i];
				else if (b->ops[i]->kind == TOP_TRANS && !tr && ntrans < 8)
					trans_users[ntrans++] = b->ops[i];
				else
					other_users = true;
			}
	for (int i = first; i < *ndead; i++) {
		ValId cr = dead[i]->results[0];
		const LinearLayout *l = f->vals.data[cr].layout;
		tir_replace_uses(f, cr, read_slot(P, I, pl, r, tr ? pipe_untrans(P, tr, l) : l, tr));
	}
	if (other_users) {
		const LinearLayout *l = f->vals.data[v].layout;
		tir_replace_uses(f, v, read_slot(P, I, pl, r, tr ? pipe_untrans(P, tr, l) : l, tr));
	}
	for (int i = 0; i < ntrans; i++) {
		replace_uses_of(P, I, pl, r, trans_users[i]->results[0], trans_users[i], dead, ndead);
		dead[(*ndead)++] = (TirOp *)trans_users[i];
	}
}

/* A load is read where it stood (after I: the slot stays valid to the next
 * iteration's barrier), so its value is not live across the prefetch. An
 * operand load read at the top of the body was sunk to its mmas by tp_sched.c,
 * but not past a barrier of the prefetch (a conversion of the index a paged
 * attention's K and V copies are addressed with): its fragments were all read
 * before it, 128 registers for 64x128 K and V tiles. */
static void replace_load(Pipe *P, Inst *I, const PLoad *pl, ValId r, TirOp **dead, int *ndead)
{
	Inst at = *I;
	at.pos = op_pos(P->body, pl->op);
	replace_uses_of(P, &at, pl, r, pl->op->results[0], NULL, dead, ndead);
	dead[(*ndead)++] = pl->op;
}

/* Pure ops and loads of the body left without users (the old address
 * slices, index loads included). */
static void body_dce(Pipe *P)
{
	TirBlock *b = P->body;
	uint32_t *uses = ARENA_NEWN(P->f->arena, uint32_t, P->f->vals.len + 1);
	tir_count_uses(b, uses);
	for (int i = b->nops - 1; i >= 0; i--) {
		TirOp *op = b->ops[i];
		bool dead = ((tir_op_flags((TirOpKind)op->kind) & TF_PURE) || pipe_index_load(P->f, op)) &&
			    !op->nregions && op->nout;
		for (int k = 0; dead && k < op->nout; k++)
			dead = !uses[op->results[k]];
		if (!dead)
			continue;
		for (int k = 0; k < op->nin; k++)
			uses[op->operands[k]]--;
		memmove(&b->ops[i], &b->ops[i + 1], sizeof(TirOp *) * (size_t)(b->nops - 1 - i));
		b->nops--;
	}
}

/* The original address iter args: when nothing but their own update reads
 * them (the loads that did are gone) and the loop's result is unused, yield
 * them unchanged so the update dies (no second set of pointer registers). */
static void mark_chain(Pipe *P, ValId v, uint8_t *in)
{
	const TirOp *d = P->f->vals.data[v].def;
	if (!d || d->block != P->body || in[v])
		return;
	in[v] = 1;
	for (int i = 0; i < d->nin; i++)
		mark_chain(P, d->operands[i], in);
}

/* Some op other than a chain op or yield operand k reads a chain value. */
static bool outside_use(const Pipe *P, const TirBlock *b, const uint8_t *in, int k)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		bool chain = op->nout == 1 && in[op->results[0]];
		for (int j = 0; j < op->nin && !chain; j++)
			if (in[op->operands[j]] && !(op == P->yield && j == k))
				return true;
		for (int r = 0; r < op->nregions; r++)
			if (outside_use(P, &op->regions[r], in, k))
				return true;
	}
	return false;
}

static void drop_stale_iters(Pipe *P, int norig)
{
	TirFunc *f = P->f;
	uint32_t *uses = ARENA_NEWN(f->arena, uint32_t, f->vals.len + 1);
	uint8_t *in = ARENA_NEWN(f->arena, uint8_t, f->vals.len + 1);
	tir_count_uses(f->entry, uses);
	for (int k = 0; k < norig; k++) {
		ValId arg = P->body->args[k + 1], y = P->yield->operands[k];
		if (!P->used[k] || uses[P->loop->results[k]] || y == arg)
			continue;
		memset(in, 0, f->vals.len + 1);
		in[arg] = 1;
		mark_chain(P, y, in);
		if (!outside_use(P, P->body, in, k))
			P->yield->operands[k] = arg;
	}
	body_dce(P);
}

static void transform(Pipe *P, int S, int64_t step)
{
	TirFunc *f = P->f;
	TirOp *loop = P->loop;
	TirBlock *pb = loop->block;
	ValId lb = loop->operands[0];
	Type ivt = f->vals.data[lb].ty, i32 = type_scalar(DT_I32);
	int n = P->niters;

	/* prologue: iterations 0..S-2 into slots 0..S-2 */
	ValId *cur = ARENA_NEWN(f->arena, ValId, n + 1), *nxt = ARENA_NEWN(f->arena, ValId, n + 1);
	for (int k = 0; k < n; k++)
		cur[k] = P->used[k] ? loop->operands[3 + k] : 0;
	Inst I;
	int pos = op_pos(pb, loop);
	for (int j = 0; j < S - 1; j++) {
		inst_init(P, &I, pb, pos, lb, cur);
		if (j)
			I.iv = binop(P, &I, TOP_ADD, lb, konst(P, &I, ivt, j * step));
		ValId slot = konst(P, &I, i32, j);
		for (int i = 0; i < P->nld; i++)
			emit_copy(P, &I, &P->ld[i], slot);
		emit_op(P, &I, TOP_ASYNC_COMMIT, NULL, 0);
		advance(P, &I, nxt);
		pos = I.pos;
		ValId *t = cur;
		cur = nxt;
		nxt = t;
	}
	/* new iter args: the used ones S-1 iterations ahead, the read slot and
	 * the index loads of iteration S-1 (then i+S-1) */
	ValId *inits = ARENA_NEWN(f->arena, ValId, n + 2 + P->nidx);
	int na = 0;
	for (int k = 0; k < n; k++)
		if (P->used[k])
			inits[na++] = cur[k];
	inst_init(P, &I, pb, pos, 0, NULL);
	inits[na] = konst(P, &I, i32, 0);
	if (P->nidx) {
		Inst J;
		inst_init(P, &J, pb, I.pos, lb, cur);
		J.iv = binop(P, &J, TOP_ADD, lb, konst(P, &J, ivt, (int64_t)(S - 1) * step));
		for (int x = 0; x < P->nidx; x++)
			inits[na + 1 + x] = clone(P, &J, P->idx[x]->results[0]);
	}
	int first = add_iters(P, inits, na + 1 + P->nidx);
	ValId *ahead = ARENA_NEWN(f->arena, ValId, n + 1);
	for (int k = 0, a = 0; k < n; k++)
		ahead[k] = P->used[k] ? P->body->args[first + a++] : 0;
	ValId r = P->body->args[first + na];

	/* body prefix: wait, barrier, prefetch of i+S-1 (its
	 * index loads were issued an iteration earlier, their latency hidden by
	 * that iteration), the index loads of i+S */
	TirBlock *body = P->body;
	inst_init(P, &I, body, 0, body->args[0], ahead);
	for (int x = 0; x < P->nidx; x++)
		I.map[P->idx[x]->results[0]] = body->args[first + na + 1 + x];
	TirOp *w = emit_op(P, &I, TOP_ASYNC_WAIT, NULL, 0);
	w->attr.i = S - 2;
	emit_op(P, &I, TOP_BARRIER, NULL, 0);
	TirOp **dead = ARENA_NEWN(f->arena, TirOp *, 2 * body->nops + 1);
	int ndead = 0;
	for (int i = 0; i < P->nld; i++)
		replace_load(P, &I, &P->ld[i], r, dead, &ndead);
	I.iv = binop(P, &I, TOP_ADD, body->args[0], konst(P, &I, ivt, (S - 1) * step));
	ValId one = konst(P, &I, i32, 1), sv = konst(P, &I, i32, S);
	ValId wr = binop(P, &I, TOP_ADD, r, konst(P, &I, i32, S - 1));
	/* one emitting call per statement: C leaves the order of arguments open, and
	 * clang numbers the values differently from gcc */
	ValId wrap = binop(P, &I, TOP_SUB, wr, sv);
	ValId past = cmp(P, &I, PRED_GE, wr, sv);
	wr = select_(P, &I, past, wrap, wr);
	for (int i = 0; i < P->nld; i++)
		emit_copy(P, &I, &P->ld[i], wr);
	emit_op(P, &I, TOP_ASYNC_COMMIT, NULL, 0);
	advance(P, &I, nxt);
	ValId *idx_next = ARENA_NEWN(f->arena, ValId, P->nidx + 1);
	if (P->nidx) {
		Inst J;
		inst_init(P, &J, body, I.pos, 0, nxt);
		J.iv = binop(P, &J, TOP_ADD, body->args[0], konst(P, &J, ivt, (int64_t)S * step));
		for (int x = 0; x < P->nidx; x++)
			idx_next[x] = clone(P, &J, P->idx[x]->results[0]);
		I.pos = J.pos;
	}
	ValId r1 = binop(P, &I, TOP_ADD, r, one);
	ValId zero = konst(P, &I, i32, 0);
	ValId at_end = cmp(P, &I, PRED_EQ, r1, sv);
	ValId rn = select_(P, &I, at_end, zero, r1);
	int a = 0;
	for (int k = 0; k < n; k++)
		if (P->used[k])
			inits[a++] = nxt[k];
	inits[a++] = rn;
	for (int x = 0; x < P->nidx; x++)
		inits[a++] = idx_next[x];
	yield_append(P, inits, a);
	remove_ops(body, dead, ndead);
	body_dce(P);
	drop_stale_iters(P, n);

	/* epilogue: nothing in flight after the loop */
	inst_init(P, &I, pb, op_pos(pb, loop) + 1, 0, NULL);
	emit_op(P, &I, TOP_ASYNC_WAIT, NULL, 0)->attr.i = 0;
	emit_op(P, &I, TOP_BARRIER, NULL, 0);
}

/* ---- driver ------------------------------------------------------------------------ */

static bool has_loop(const TirBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		if (op->kind == TOP_FOR || op->kind == TOP_WHILE)
			return true;
		for (int r = 0; r < op->nregions; r++)
			if (has_loop(&op->regions[r]))
				return true;
	}
	return false;
}

typedef VEC(TirOp *) OpVec;

static void collect_loops(TirBlock *b, OpVec *out)
{
	for (int i = 0; i < b->nops; i++) {
		TirOp *op = b->ops[i];
		if (op->kind == TOP_FOR && op->nregions == 1 && !has_loop(&op->regions[0]))
			vec_push(out, op);
		for (int r = 0; r < op->nregions; r++)
			collect_loops(&op->regions[r], out);
	}
}

static void pipeline_loop(LayoutCtx *lc, TirFunc *f, TirOp *loop)
{
	int S = (int)(loop->attr.i ? loop->attr.i : f->num_stages ? f->num_stages : lc->opts ? lc->opts->num_stages : 1);
	const TirOp *st = f->vals.data[loop->operands[2]].def;
	TirBlock *body = &loop->regions[0];
	if (S < 2 || !st || st->kind != TOP_CONST || st->attr.i <= 0 || !body->nops ||
	    body->ops[body->nops - 1]->kind != TOP_YIELD)
		return;
	Pipe P;
	memset(&P, 0, sizeof P);
	P.lc = lc;
	P.f = f;
	P.loop = loop;
	P.body = body;
	P.yield = body->ops[body->nops - 1];
	P.niters = loop->nin - 3;
	P.adv = ARENA_NEWN(f->arena, bool, P.niters + 1);
	P.used = ARENA_NEWN(f->arena, bool, P.niters + 1);
	P.nmemo = f->vals.len;
	P.memo = ARENA_NEWN(f->arena, uint8_t, P.nmemo);
	P.feeds = ARENA_NEWN(f->arena, uint8_t, f->vals.len + 1);
	pipe_find_advanceable(&P);
	P.loads_ok = true;
	bool dot = false;
	for (int i = 0; i < body->nops; i++)
		dot |= body->ops[i]->kind == TOP_DOT;
	if (!dot) {
		if (!loop->attr.i || (lc->opts && lc->opts->no_value_load_pipelining))
			return;
		P.no_dot = true;
		P.store_roots = ARENA_NEWN(f->arena, uint8_t, f->vals.len + 1);
		uint8_t *seen = ARENA_NEWN(f->arena, uint8_t, f->vals.len + 1);
		pipe_find_stores(&P, body, seen);
	}
	pipe_find_feeds(&P);
	for (int i = 0; i < body->nops && P.nld < MAX_PIPE_LOADS; i++)
		if (pipe_candidate(&P, body->ops[i], &P.ld[P.nld]))
			buf_layout(&P, &P.ld[P.nld++]);
	if (!P.nld)
		return;
	int S_all = fit_stages(&P, S);
	int nop = 0;
	for (int i = 0; i < P.nld; i++)
		nop += !P.ld[i].value;
	if (nop && nop < P.nld) {
		/* value loads only where the operand loads keep their stages */
		int nall = P.nld;
		PLoad all[MAX_PIPE_LOADS];
		memcpy(all, P.ld, sizeof all);
		P.nld = 0;
		for (int i = 0; i < nall; i++)
			if (!all[i].value)
				P.ld[P.nld++] = all[i];
		if (fit_stages(&P, S) <= S_all) {
			memcpy(P.ld, all, sizeof all);
			P.nld = nall;
		} else {
			S_all = fit_stages(&P, S);
		}
	}
	S = S_all;
	if (!S)
		return;
	pipe_drop_address_loads(&P);
	for (int i = 0; i < P.nld; i++) {
		pipe_mark_iters(&P, P.ld[i].ptr, 0);
		pipe_find_index_loads(&P, P.ld[i].ptr, 0);
		if (P.ld[i].mask) {
			pipe_mark_iters(&P, P.ld[i].mask, 0);
			pipe_find_index_loads(&P, P.ld[i].mask, 0);
		}
	}
	add_bufs(&P, S);
	transform(&P, S, st->attr.i);
	loop->attr.flags |= TIR_PIPELINED;
}

bool layout_pipeline(LayoutCtx *lc, TirFunc *f)
{
	if (!lc->target->has_cp_async || !f->entry)
		return true;
	OpVec loops = {0};
	collect_loops(f->entry, &loops);
	for (size_t i = 0; i < loops.len; i++)
		pipeline_loop(lc, f, loops.data[i]);
	vec_free(&loops);
	if (!f->nbufs)
		return true;
	/* the conversions after the replaced loads are gone: size scratch again
	 * (never more than the estimate the budget above was checked with) */
	return layout_smem(lc, f);
}
