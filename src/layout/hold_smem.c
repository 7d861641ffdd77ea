/* hold_smem.c: big loop-invariant dot operands held in shared memory.
 *
 * Requires: layouts assigned, conversions of loop invariants hoisted in front
 * of their loops (assign.c, hoist_converts), scratch sized (smem.c); run
 * before software pipelining (pipeline.c places a loop's buffers after the
 * ones held across it). Guarantees: a verified IR in which each chosen
 * operand is written once into a one-slot buffer (TirSmemBuf.loop = the
 * loop) right in front of its loop, followed by a BARRIER, and read with
 * LOCAL_LOAD in the dot's layout at each dot that uses it (read_pos); a
 * BARRIER follows the loop (scratch after it starts at 0, over the buffer);
 * the loop gets TIR_HOLDS_BUFS (its scratch starts after smem_reserved).
 *
 * Why: a dot operand loaded before a loop (attention's Q tile, K and V in a
 * dK/dV backward kernel, MLA decode's q) was converted to its mma operand
 * layout once, in front of the loop, and its registers carried through every
 * iteration, replicated on every warp that shares its rows or columns: a
 * 16x512 bf16 q over 4 warps is 128 registers a thread, beside the
 * accumulator. Triton keeps such an operand in shared memory and reads it
 * with ldmatrix per k step, where a k step's fragments are live only for
 * its mmas (tp_sched.c sinks the reads to them).
 *
 * Which: a CONVERT_LAYOUT through shared memory in the block of a FOR or
 * WHILE, in front of it, whose every use is the A or B operand of an mma
 * dot in the loop, and whose result takes at least HOLD_SMEM_WORDS
 * registers a thread; and only where the buffer fits beside the scratch
 * used inside the loop (the pipeliner then fits its stages after both).
 */
#include "layout/assign.h"

#include "layout/linear.h"

#include <string.h>

/* Registers a thread (32-bit words) from which a loop-invariant operand is
 * held in shared memory: a quarter of the 128 words that make a heavy loop
 * (emit_c.c, HEAVY_LOOP_WORDS). The accumulators it feeds and the tiles
 * computed from them each iteration need the rest; a smaller operand (a
 * 64x64 fp16 Q over 4 warps, 16 words) costs less held than read again. */
enum { HOLD_SMEM_WORDS = 32 };

static int64_t thread_words(const TirFunc *f, ValId v)
{
	const LinearLayout *l = f->vals.data[v].layout;
	int rs = l ? ll_find_slot(l, LL_REG) : -1;
	int64_t regs = rs >= 0 ? (int64_t)1 << l->in_bits[rs] : 1;
	int eb = MAXOF(1, dtype_bytes((DType)f->vals.data[v].ty.dt));
	return (regs * eb + 3) / 4;
}

/* Counts the uses of v in b (nested regions too) and whether each is the A or
 * B operand of an mma dot. */
static bool dot_uses(const LayoutCtx *lc, const TirFunc *f, const TirBlock *b, ValId v,
		     uint32_t *n)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		for (int k = 0; k < op->nin; k++) {
			if (op->operands[k] != v)
				continue;
			if (op->kind != TOP_DOT || k > 1 || !layout_dot_mma_bits(lc->target, f, op))
				return false;
			(*n)++;
		}
		for (int r = 0; r < op->nregions; r++)
			if (!dot_uses(lc, f, &op->regions[r], v, n))
				return false;
	}
	return true;
}

/* Byte where a new buffer held across loop starts: after those held across
 * it or a loop around it. */
static int64_t held_end(const TirFunc *f, const TirOp *loop)
{
	int64_t end = 0;
	for (int i = 0; i < f->nbufs; i++) {
		const TirSmemBuf *b = &f->bufs[i];
		for (const TirOp *at = loop; b->loop && at; at = at->block ? at->block->parent : NULL)
			if (at == b->loop)
				end = MAXOF(end, b->base + b->slot_bytes * b->nslots);
	}
	return end;
}

int64_t layout_buf_base(const LayoutCtx *lc, const TirFunc *f, const TirOp *loop)
{
	if (lc->opts && lc->opts->scratch_apart)
		return ((int64_t)f->smem_reserved + 127) & ~(int64_t)127;
	return held_end(f, loop);
}

static int add_buf(TirFunc *f, const TirSmemBuf *nb)
{
	TirSmemBuf *bufs = ARENA_NEWN(f->arena, TirSmemBuf, f->nbufs + 1);
	if (f->nbufs)
		memcpy(bufs, f->bufs, sizeof(TirSmemBuf) * (size_t)f->nbufs);
	bufs[f->nbufs] = *nb;
	f->bufs = bufs;
	f->smem_reserved = (int)MAXOF(f->smem_reserved, nb->base + nb->slot_bytes);
	return f->nbufs++;
}

static ValId slot0(TirFunc *f, TirBlock *b, int pos, SrcLoc loc)
{
	Type t = type_scalar(DT_I32);
	TirOp *c = tir_op_at(f, b, pos, TOP_CONST, loc, NULL, 0, &t, 1);
	c->attr.i = 0;
	return c->results[0];
}

/* Where in b the read of operand k of the dot b->ops[i] goes: right before
 * the dot, where tp_sched.c sinks each k step's ldmatrix to its mmas; an A
 * operand before the conversions (and transpositions) of b that make the B
 * operand. Measured with ptxas on sm_90a, not derived: an A operand read
 * after B's conversion phase (a loop that is not pipelined) made ptxas spill
 * more than the registers held before (flash_attn_triton's forward, 128x128
 * d128 over 8 warps: 216 -> 1096 B; read before it: 72), and a B operand
 * read before A's conversion did (its backward, d40: 2568 -> 3000 B). */
static int read_pos(const TirFunc *f, const TirBlock *b, int i, int k)
{
	int pos = i;
	if (k != 0)
		return pos;
	ValId x = b->ops[i]->operands[1];
	for (;;) {
		const TirOp *d = f->vals.data[x].def;
		if (!d || d->block != b || (d->kind != TOP_CONVERT_LAYOUT && d->kind != TOP_TRANS))
			return pos;
		int j = pos - 1;
		while (j >= 0 && b->ops[j] != d)
			j--;
		if (j < 0)
			return pos;
		pos = j;
		x = d->operands[0];
	}
}

/* Each dot in b using v reads it from buffer `buf` (read_pos). */
static void read_at_dots(TirFunc *f, TirBlock *b, ValId v, int buf)
{
	for (int i = 0; i < b->nops; i++) {
		TirOp *op = b->ops[i];
		for (int r = 0; r < op->nregions; r++)
			read_at_dots(f, &op->regions[r], v, buf);
		for (int k = 0; k < 2 && op->kind == TOP_DOT; k++) {
			if (op->operands[k] != v)
				continue;
			int at = op->operands[1 - k] == v ? i : read_pos(f, b, i, k);
			ValId s = slot0(f, b, at, op->loc);
			Type t = f->vals.data[v].ty;
			TirOp *ld = tir_op_at(f, b, at + 1, TOP_LOCAL_LOAD, op->loc, &s, 1, &t, 1);
			i += 2;
			ld->attr.i = buf;
			f->vals.data[ld->results[0]].layout = f->vals.data[v].layout;
			f->vals.data[ld->results[0]].name = f->vals.data[v].name;
			op->operands[k] = ld->results[0];
		}
	}
}

/* The scratch bytes used inside loop once it holds buffers. */
static int64_t loop_scratch(LayoutCtx *lc, TirFunc *f, TirOp *loop)
{
	int64_t top = 0, in, out;
	layout_scratch(lc, f, f->entry, false, &in, &out);
	top = in;
	for (int r = 0; r < loop->nregions; r++) {
		layout_scratch(lc, f, &loop->regions[r], true, &in, &out);
		top = MAXOF(top, in);
	}
	return top;
}

/* Holds the result of conversion b->ops[ci], in front of loop b->ops[*li],
 * in shared memory where it qualifies; *li follows the loop. */
static void hold(LayoutCtx *lc, TirFunc *f, TirBlock *b, int ci, int *li, bool *barrier)
{
	TirOp *cv = b->ops[ci], *loop = b->ops[*li];
	ValId src = cv->operands[0], v = cv->results[0];
	const LinearLayout *sl = f->vals.data[src].layout, *dl = f->vals.data[v].layout;
	if (!sl || !dl || thread_words(f, v) < HOLD_SMEM_WORDS ||
	    layout_conversion_kind(lc->target, sl, dl) != CVT_SHARED)
		return;
	uint32_t *uses = ARENA_NEWN(f->arena, uint32_t, f->vals.len + 1);
	tir_count_uses(f->entry, uses);
	uint32_t n = 0;
	for (int r = 0; r < loop->nregions; r++)
		if (!dot_uses(lc, f, &loop->regions[r], v, &n))
			return;
	if (!n || n != uses[v])
		return;
	TirSmemBuf nb;
	memset(&nb, 0, sizeof nb);
	int eb = MAXOF(1, dtype_bytes((DType)f->vals.data[v].ty.dt));
	LinearLayout smem;
	PaddedShared pad;
	layout_choose_conversion_smem(lc->target, f, sl, dl, eb, &smem, &pad);
	nb.tile = f->vals.data[v].ty;
	nb.smem = arena_dup(f->arena, &smem, sizeof smem);
	nb.pad = pad.n ? arena_dup(f->arena, &pad, sizeof pad) : NULL;
	nb.base = layout_buf_base(lc, f, loop);
	nb.slot_bytes = (ll_padded_size(&pad, (int64_t)1 << ll_total_in_bits(&smem)) * eb + 127) &
			~(int64_t)127;
	nb.nslots = 1;
	nb.loop = loop;
	int64_t reserved = MAXOF(f->smem_reserved, nb.base + nb.slot_bytes);
	if (reserved + loop_scratch(lc, f, loop) > lc->target->max_shared_bytes)
		return;
	int buf = add_buf(f, &nb);
	for (int r = 0; r < loop->nregions; r++)
		read_at_dots(f, &loop->regions[r], v, buf);
	/* the conversion goes; the write stands right in front of the loop, after
	 * any scratch phase (at offset 0, over the buffer) */
	memmove(&b->ops[ci], &b->ops[ci + 1], sizeof(TirOp *) * (size_t)(b->nops - ci - 1));
	b->nops--;
	(*li)--;
	ValId in[2] = {src, slot0(f, b, (*li)++, cv->loc)};
	tir_op_at(f, b, (*li)++, TOP_LOCAL_STORE, cv->loc, in, 2, NULL, 0)->attr.i = buf;
	loop->attr.flags |= TIR_HOLDS_BUFS;
	*barrier = true;
}

static void hold_block(LayoutCtx *lc, TirFunc *f, TirBlock *b)
{
	for (int li = 0; li < b->nops; li++) {
		TirOp *loop = b->ops[li];
		for (int r = 0; r < loop->nregions; r++)
			hold_block(lc, f, &loop->regions[r]);
		if (loop->kind != TOP_FOR && loop->kind != TOP_WHILE)
			continue;
		bool barrier = false;
		for (int ci = li - 1; ci >= 0; ci--)
			if (b->ops[ci]->kind == TOP_CONVERT_LAYOUT && b->ops[ci]->nin == 1 &&
			    b->ops[ci]->nout == 1)
				hold(lc, f, b, ci, &li, &barrier);
		if (!barrier)
			continue;
		/* the writes are seen by every warp; every warp's last read is done
		 * before anything after the loop reuses the bytes */
		tir_op_at(f, b, li++, TOP_BARRIER, loop->loc, NULL, 0, NULL, 0);
		tir_op_at(f, b, li + 1, TOP_BARRIER, loop->loc, NULL, 0, NULL, 0);
		li++;
	}
}

bool layout_hold_smem(LayoutCtx *lc, TirFunc *f)
{
	if (!f->entry || !lc->target->has_mma_sync || (lc->opts && lc->opts->no_hold_smem))
		return true;
	hold_block(lc, f, f->entry);
	return layout_smem(lc, f);
}
