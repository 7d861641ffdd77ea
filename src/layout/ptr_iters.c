/* ptr_iters.c: a loop-carried tile of pointers advanced by one scalar step
 * is carried as its scalar base instead (CompileOptions.wide_addr).
 *
 * `a_ptrs = A + offs` before a loop and `a_ptrs += BLOCK_K * stride` in it
 * carries one 64-bit pointer per element: with strides that are not multiples
 * of 16 each thread loads elements one by one, and a 128x128x128 fp8 GEMM
 * over 8 warps carried 128 of them (256 registers) beside its accumulator.
 * Every element moves by the same step, so the loop carries the scalar
 * `b = A` (b += step) and rebuilds the tile at the top of the body as
 * `splat(b) + offs`, the offsets loop-invariant 32-bit values (Triton's AMD
 * backend canonicalizes pointers the same way). The result of the loop is
 * rebuilt after it the same way. Pointer arithmetic wraps in 64 bits and each
 * offset is sign-extended on its own, so the sums are the same: A + o + s1 +
 * s2 == (A + s1 + s2) + o element by element.
 *
 * Only half the gain is here: NVVM hoists the loop-invariant `sext(o) * size`
 * of `b + o` out of the loop as a 64-bit value per element, which is where
 * the registers went. So with wide_addr the CUDA emitter also prints each
 * pointer + 32-bit offset as one mad.wide.s32 (emit_c_arith.c), which LLVM
 * cannot split. The pair is a variant of driver/compile.c's try_variants (a
 * kernel whose cubin spills is compiled with it and the one that spills less
 * kept): the mad.wide form takes constant offsets away from NVVM's address
 * folding, and made LightX2V's fp8 GEMM spill more on its own (1504 -> 1880
 * bytes), less with the scalar base (784).
 *
 * Runs on the Tile IR before layouts (layout_assign), so the new ops get
 * layouts like any other.
 */
#include "layout/assign.h"

#include <stdlib.h>

enum { MAX_CHAIN = 16 };

/* init = ptr_add(...broadcast(ptr_add(splat(p), off[0]))..., off[n-1]): p,
 * the splat, and the steps from it (chain[i]: the value step i made; off[i]:
 * its offset, 0 for a broadcast), or false. */
static bool split_init(TirFunc *f, ValId init, ValId *p, ValId *root_splat, ValId *off,
                       ValId *chain, int *n)
{
	ValId rev_off[MAX_CHAIN], rev_chain[MAX_CHAIN];
	int k = 0;
	ValId v = init;
	for (;;) {
		TirOp *d = tir_val(f, v)->def;
		if (!d)
			return false;
		if (d->kind == TOP_SPLAT) {
			Type st = tir_type(f, d->operands[0]);
			if (st.dt != DT_PTR || st.rank != 0)
				return false;
			*p = d->operands[0];
			*root_splat = v;
			break;
		}
		if ((d->kind != TOP_PTR_ADD && d->kind != TOP_BROADCAST) || k == MAX_CHAIN)
			return false;
		if (d->kind == TOP_PTR_ADD) {
			Type ot = tir_type(f, d->operands[1]);
			if (ot.rank != tir_type(f, v).rank || (ot.dt != DT_I32 && ot.dt != DT_I64))
				return false;
		}
		rev_off[k] = d->kind == TOP_PTR_ADD ? d->operands[1] : 0;
		rev_chain[k] = v;
		k++;
		v = d->operands[0];
	}
	for (int i = 0; i < k; i++) {
		off[i] = rev_off[k - 1 - i];
		chain[i] = rev_chain[k - 1 - i];
	}
	*n = k;
	return true;
}

/* The scalar step s of `yield ptr_add(arg, S)` with S a splat of s or an
 * integer constant tile (a new scalar constant inserted at *pos of body). */
static ValId scalar_step(TirFunc *f, TirBlock *body, TirOp *add, int *pos, bool apply)
{
	ValId sv = add->operands[1];
	TirOp *d = tir_val(f, sv)->def;
	if (!d)
		return 0;
	if (d->kind == TOP_SPLAT)
		return d->operands[0];
	if (d->kind == TOP_CONST) {
		Type t = tir_type(f, sv);
		if (t.dt != DT_I32 && t.dt != DT_I64)
			return 0;
		t.rank = 0;
		if (!apply)
			return sv; /* any value: the caller only counts */
		TirOp *c = tir_op_at(f, body, (*pos)++, TOP_CONST, d->loc, NULL, 0, &t, 1);
		c->attr = d->attr;
		return c->results[0];
	}
	return 0;
}

/* splat(b) + off[0] + ... (or broadcasts) at position pos of blk, typed as the original chain;
 * returns the last value and the number of ops inserted in *nins. */
static ValId rebuild(TirFunc *f, TirBlock *blk, int pos, SrcLoc loc, ValId b, ValId root_splat,
                     const ValId *off, const ValId *chain, int n, int *nins)
{
	Type rt = tir_type(f, root_splat);
	TirOp *s = tir_op_at(f, blk, pos++, TOP_SPLAT, loc, &b, 1, &rt, 1);
	ValId v = s->results[0];
	for (int i = 0; i < n; i++) {
		ValId in[2] = {v, off[i]};
		Type t = tir_type(f, chain[i]);
		v = tir_op_at(f, blk, pos++, off[i] ? TOP_PTR_ADD : TOP_BROADCAST, loc, in, off[i] ? 2 : 1,
		              &t, 1)->results[0];
	}
	*nins = n + 1;
	return v;
}

/* The pointer tiles fo carries that can be scalarized; scalarizes them where apply. */
static int scalarize_for(TirFunc *f, TirOp *fo, bool apply)
{
	int count = 0;
	TirBlock *body = &fo->regions[0];
	if (!body->nops)
		return 0;
	TirOp *y = body->ops[body->nops - 1];
	if (y->kind != TOP_YIELD)
		return 0;
	for (int j = 0; j < fo->nout && j < y->nin; j++) {
		ValId init = fo->operands[3 + j], arg = body->args[1 + j], res = fo->results[j];
		Type tt = tir_type(f, init);
		if (tt.dt != DT_PTR || tt.rank == 0 || tt.addrspace)
			continue;
		TirOp *add = tir_val(f, y->operands[j])->def;
		if (!add || add->kind != TOP_PTR_ADD || add->operands[0] != arg)
			continue;
		bool yielded = false; /* the tile itself yielded somewhere: left alone */
		for (int k = 0; k < y->nin; k++)
			yielded |= y->operands[k] == arg;
		if (yielded)
			continue;
		ValId p, root, off[MAX_CHAIN], chain[MAX_CHAIN];
		int n;
		if (!split_init(f, init, &p, &root, off, chain, &n))
			continue;
		/* the step, a scalar computed in the body before the yield */
		int ypos = body->nops - 1;
		ValId s = scalar_step(f, body, add, &ypos, apply);
		if (!s)
			continue;
		count++;
		if (!apply)
			continue;
		Type st = tir_type(f, p);
		/* the body's argument and the loop's result become the scalar base */
		tir_val(f, arg)->ty = st;
		tir_val(f, res)->ty = st;
		ValId nb = tir_op_at(f, body, ypos, TOP_PTR_ADD, add->loc, (ValId[]){arg, s}, 2, &st, 1)->results[0];
		y = body->ops[body->nops - 1];
		int nins;
		ValId tile = rebuild(f, body, 0, add->loc, arg, root, off, chain, n, &nins);
		TirOp *splat = body->ops[0];
		tir_replace_uses(f, arg, tile);
		splat->operands[0] = arg;
		tir_val(f, nb)->def->operands[0] = arg;
		y->operands[j] = nb;
		fo->operands[3 + j] = p;
		/* after the loop */
		TirBlock *ob = fo->block;
		int at = 0;
		while (ob->ops[at] != fo)
			at++;
		ValId after = rebuild(f, ob, at + 1, fo->loc, res, root, off, chain, n, &nins);
		TirOp *splat2 = ob->ops[at + 1];
		tir_replace_uses(f, res, after);
		splat2->operands[0] = res;
	}
	return count;
}

static int walk(TirFunc *f, TirBlock *blk, bool apply)
{
	int n = 0;
	for (int i = 0; i < blk->nops; i++) {
		TirOp *op = blk->ops[i];
		/* an outer loop first: an inner loop starting from the outer's
		 * tile then starts from its rebuilt splat(base) + offsets */
		if (op->kind == TOP_FOR)
			n += scalarize_for(f, op, apply);
		for (int r = 0; r < op->nregions; r++)
			n += walk(f, &op->regions[r], apply);
	}
	return n;
}

int layout_scalar_ptr_iters(TirFunc *f, bool apply) { return walk(f, f->entry, apply); }
