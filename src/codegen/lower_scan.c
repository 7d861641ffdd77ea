/* lower_scan.c: scan along one axis (tl.cumsum, tl.associative_scan).
 *
 * Every axis coordinate bit belongs to one register, lane or warp bit
 * (bases along the axis are single powers of two). The lowest run of
 * register-owned bits makes blocks of elements in one thread; each block is
 * reduced to its total first. A block-doubling scan then runs over the
 * remaining bits from the lowest: for the coordinate bit j, every block keeps
 * F (the inclusive prefix of its first element within its aligned 2^j
 * superblock) and T (the superblock's total); merging two halves gives the
 * upper half F = T_lower (+) F and both T = T_lower (+) T_upper. The partner
 * is found by SHFL_XOR (a lane bit) or through shared memory (a warp bit;
 * WARP_XOR where the warps are one SIMD vector, on the native CPU); a run
 * of warp bits is one shared-memory round, each block folding the totals
 * of the superblocks before its own; a run of register bits is one
 * sequential carry over the superblocks it selects. Last, each block's elements are scanned from its F. Operand order
 * is always left-to-right, so non-commutative combines are exact;
 * TIR_REVERSE swaps which half comes first.
 */
#include "codegen/lower_red.h"

#include <string.h>

typedef struct Owner {
	int kind; /* 0 reg, 1 lane, 2 warp */
	int bit;
} Owner;

static void scan_owners(Red *R, Owner *own, int nbits)
{
	for (int j = 0; j < nbits; j++)
		own[j].kind = -1;
	for (int k = 0; k < 3; k++) {
		LLInDim kind = k == 0 ? LL_REG : k == 1 ? LL_LANE : LL_WARP;
		uint32_t fm = k == 0 ? R->rf : k == 1 ? R->lf : R->wf;
		for (int b = 0; b < lw_bits(R->l, kind); b++) {
			int32_t c = lw_basis(R->l, kind, b)[R->axis];
			if (((fm >> b) & 1) || !c)
				continue;
			if (c & (c - 1))
				lw_ice("scan: a layout basis along the axis is not a power of two");
			int j = 0;
			while ((1 << j) != c)
				j++;
			if (j >= nbits || own[j].kind >= 0)
				lw_ice("scan: axis coordinate bit %d owned twice", j);
			own[j].kind = k;
			own[j].bit = b;
		}
	}
	for (int j = 0; j < nbits; j++)
		if (own[j].kind < 0)
			lw_ice("scan: axis coordinate bit %d is not held by any thread", j);
}

/* The cross-thread steps work on blocks: the aligned 2^j0 runs of the axis
 * that the lowest register bits hold (single elements when the lowest axis
 * bit is a lane's or a warp's). A block keeps T, the total of its aligned
 * 2^j superblock, and F, the inclusive prefix of its first element (in scan
 * order) within the superblock; the rest of the block's elements are scanned
 * from F at the end. So the shuffles and merges run once per block, not once
 * per element (a 1-D cumsum of 8192 on 4 warps holds 16 blocks of 4 per
 * thread), and no identity of the combine is needed. */
typedef struct ScanSt {
	TpVal *P[8], *T[8]; /* per operand, per register: F and T at block
	                       representatives, the final prefixes at the end */
	uint32_t lowmask;   /* register bits of the low run */
} ScanSt;

/* Merge step for one block over a lane or warp bit: `second` (i1) says
 * whether this block is in the later half; pT = the partner half's total. */
static void merge(Red *R, ScanSt *S, int r, const TpVal *pT, TpVal second)
{
	TpVal mineT[8], mineP[8], withP[8], nT[8];
	for (int i = 0; i < R->n; i++) {
		mineT[i] = S->T[i][r];
		mineP[i] = S->P[i][r];
	}
	/* T's combine first: pT's last use is then F's combine, which
	 * tp_sched.c keeps beside the shuffle instead of sinking it to the
	 * stores with every step's pT live (tests/spills.sh case 11) */
	red_combine_ordered(R, mineT, pT, second, nT);
	red_combine(R, pT, mineP, withP);
	for (int i = 0; i < R->n; i++) {
		S->P[i][r] = lw_select(R->L, second, withP[i], mineP[i]);
		S->T[i][r] = nT[i];
	}
}

/* The registers of the block whose representative (low-run bits clear) is
 * r, in scan order. */
static void block_members(const Owner *own, int j0, int r, bool rev, int *mem)
{
	int blk = 1 << j0;
	for (int t = 0; t < blk; t++) {
		int q = r;
		for (int j = 0; j < j0; j++)
			if ((t >> j) & 1)
				q |= 1 << own[j].bit;
		mem[rev ? blk - 1 - t : t] = q;
	}
}

static bool is_block_rep(const Red *R, const ScanSt *S, int r)
{
	return !(r & (int)R->rf) && !(r & (int)S->lowmask);
}

/* The in-thread pass over each block's elements, in scan order. Before the
 * merges (finish false): each block's total T and first element F. After
 * them: the final prefixes, the block's elements scanned from its F. */
static void scan_block_pass(Red *R, ScanSt *S, LVal *in, const Owner *own, int j0, bool rev,
                            bool finish)
{
	int nr = 1 << lw_bits(R->l, LL_REG), blk = 1 << j0;
	int *mem = ARENA_NEWN(R->L->arena, int, blk);
	for (int r = 0; r < nr; r++) {
		if (!is_block_rep(R, S, r))
			continue;
		block_members(own, j0, r, rev, mem);
		TpVal acc[8];
		for (int i = 0; i < R->n; i++)
			acc[i] = S->P[i][finish ? mem[0] : r] = finish ? S->P[i][r] : in[i].r[mem[0]];
		for (int s = 1; s < blk; s++) {
			TpVal x[8];
			for (int i = 0; i < R->n; i++)
				x[i] = in[i].r[mem[s]];
			red_combine(R, acc, x, acc);
			for (int i = 0; finish && i < R->n; i++)
				S->P[i][mem[s]] = acc[i];
		}
		for (int i = 0; !finish && i < R->n; i++)
			S->T[i][r] = acc[i];
	}
}

/* Row-major index of coordinates c with the axis coordinate's low j bits
 * dropped: the slot of an aligned 2^j block along the axis. XOR-linear in
 * c, so it maps a layout basis as it maps a coordinate. */
static int32_t block_slot(const LinearLayout *l, int axis, int j, const int32_t *c)
{
	int32_t idx = 0;
	int off = 0;
	for (int d = l->n_out - 1; d >= 0; d--) {
		int bits = d == axis ? l->out_bits[d] - j : l->out_bits[d];
		idx |= (d == axis ? c[d] >> j : c[d]) << off;
		off += bits;
	}
	return idx;
}

/* Byte address of slot (hw ^ rs): hw the thread's dynamic part, whose bits
 * lie in hwmask, at_hw its address (hw * eb + base), rs a constant. */
static TpVal slot_addr(Lower *L, TpVal hw, uint32_t hwmask, TpVal at_hw, int32_t rs, int eb,
                       int base)
{
	if (!rs)
		return at_hw;
	if (!((uint32_t)rs & hwmask))
		return lw_bin(L, TP_ADD, at_hw, lw_i32(L, rs * eb));
	return red_byte_off(L, lw_bin(L, TP_XOR, hw, lw_i32(L, rs)), eb, base);
}

/* The merges over axis coordinate bits j..j2-1, held by warp bits. Every
 * element of an aligned 2^j block has the same T by now, so T goes to
 * shared memory once per block (by the thread and register holding its
 * first element), not once per register of every thread: a 64 x 1024
 * cumsum along its rows stored 256 KB, over what sm_90a has (now 8 KB).
 * One bit merges with the partner block's T. A run of k > 1 bits is one
 * round, as Triton's scan across warps: each block reads the totals of the
 * 2^k superblocks of its aligned 2^j2 group and folds those before its own,
 * so the run costs two barriers, not two per bit, and only F stays live
 * through it (T too where bits above the run need it). */
static void scan_warp_run(Red *R, ScanSt *S, const Owner *own, int j, int j2, int nbits,
                          bool rev)
{
	Lower *L = R->L;
	const LinearLayout *l = R->l;
	int nr = 1 << lw_bits(l, LL_REG), k = j2 - j;
	int64_t nslots = (int64_t)1 << (ll_total_out_bits(l) - j);
	int base[8], eb[8], total = 0;
	for (int i = 0; i < R->n; i++) {
		eb[i] = MAXOF(1, dtype_bytes((DType)R->et[i].dt));
		total = (total + eb[i] - 1) / eb[i] * eb[i];
		base[i] = total;
		total += (int)(nslots * eb[i]);
	}
	int b0 = lw_scratch(L, R->op, total);
	int32_t li[LL_MAX_BITS], wi[LL_MAX_BITS], c[LL_MAX_OUT];
	int nl = lw_bits(l, LL_LANE), nw = lw_bits(l, LL_WARP);
	uint32_t hwmask = 0; /* the slot bits lanes and warps can set */
	for (int b = 0; b < nl; b++)
		hwmask |= (uint32_t)(li[b] = block_slot(l, R->axis, j, lw_basis(l, LL_LANE, b)));
	for (int b = 0; b < nw; b++)
		hwmask |= (uint32_t)(wi[b] = block_slot(l, R->axis, j, lw_basis(l, LL_WARP, b)));
	TpVal hw = lw_linear_lane_warp(L, li, nl, wi, nw);
	/* the slot bit of axis coordinate bit j; the run's bits follow it */
	int fb = 0;
	for (int d = l->n_out - 1; d > R->axis; d--)
		fb += l->out_bits[d];
	uint32_t group = ((1u << k) - 1) << fb;
	/* one writer per slot: the block's first element (its axis bits below j
	 * clear), in the canonical copy (free lane and warp bits clear) */
	uint32_t reg_low = 0, lane_low = R->lf, warp_low = R->wf;
	for (int b = 0; b < lw_bits(l, LL_REG); b++)
		if (lw_basis(l, LL_REG, b)[R->axis] && lw_basis(l, LL_REG, b)[R->axis] < (1 << j))
			reg_low |= 1u << b;
	for (int b = 0; b < nl; b++)
		if (lw_basis(l, LL_LANE, b)[R->axis] && lw_basis(l, LL_LANE, b)[R->axis] < (1 << j))
			lane_low |= 1u << b;
	for (int b = 0; b < nw; b++)
		if (lw_basis(l, LL_WARP, b)[R->axis] && lw_basis(l, LL_WARP, b)[R->axis] < (1 << j))
			warp_low |= 1u << b;
	TpVal writer = lw_owner_pred(L, lane_low, warp_low);
	if (!writer)
		writer = lw_true(L);
	/* slot addresses of this thread's lanes and warps, per operand: a
	 * register's slot bits are usually disjoint from them, and then its
	 * address is one of these plus a constant (an immediate offset) */
	TpVal mine_at[8];
	for (int i = 0; i < R->n; i++)
		mine_at[i] = red_byte_off(L, hw, eb[i], b0 + base[i]);
	int32_t *rslot = ARENA_NEWN(L->arena, int32_t, nr);
	for (int r = 0; r < nr; r++) {
		if (!is_block_rep(R, S, r))
			continue;
		ll_apply_hw(l, (uint32_t)r, 0, 0, c);
		rslot[r] = block_slot(l, R->axis, j, c);
		if (r & (int)reg_low)
			continue;
		for (int i = 0; i < R->n; i++) {
			TpVal in[3] = {slot_addr(L, hw, hwmask, mine_at[i], rslot[r], eb[i], b0 + base[i]),
			               writer, S->T[i][r]};
			lw_op(L, TP_SMEM_STORE, R->op->loc, in, 3, NULL, 0)->attr.i = 1;
		}
	}
	lw_barrier(L);
	if (k == 1) {
		/* the partner block: axis coordinate bit j flipped */
		TpVal hw_theirs = lw_bin(L, TP_XOR, hw, lw_i32(L, 1 << fb)), theirs_at[8];
		for (int i = 0; i < R->n; i++)
			theirs_at[i] = red_byte_off(L, hw_theirs, eb[i], b0 + base[i]);
		TpVal bit = red_bit_set(L, L->warp, own[j].bit);
		TpVal second = rev ? lw_bin(L, TP_XOR, bit, lw_true(L)) : bit;
		for (int r = 0; r < nr; r++) {
			if (!is_block_rep(R, S, r))
				continue;
			TpVal pT[8];
			for (int i = 0; i < R->n; i++) {
				TpVal in[2] = {slot_addr(L, hw_theirs, hwmask, theirs_at[i], rslot[r], eb[i],
				                         b0 + base[i]),
				               lw_true(L)};
				TpOp *t = lw_op(L, TP_SMEM_LOAD, R->op->loc, in, 2, &R->et[i], 1);
				t->attr.i = 1;
				pT[i] = t->results[0];
			}
			merge(R, S, r, pT, second);
		}
		lw_barrier(L);
		return;
	}
	/* the group's first slot (the run's bits clear), and this thread's
	 * superblock in scan order */
	TpVal hw0 = lw_bin(L, TP_AND, hw, lw_i32(L, (int32_t)~group)), at0[8];
	for (int i = 0; i < R->n; i++)
		at0[i] = red_byte_off(L, hw0, eb[i], b0 + base[i]);
	TpVal pos = lw_i32(L, 0);
	for (int m = 0; m < k; m++) {
		TpVal b = lw_bin(L, TP_AND, lw_bin(L, TP_SHR, L->warp, lw_i32(L, own[j + m].bit)),
		                 lw_i32(L, 1));
		pos = lw_bin(L, TP_OR, pos, m ? lw_bin(L, TP_SHL, b, lw_i32(L, m)) : b);
	}
	int nsb = 1 << k;
	if (rev)
		pos = lw_bin(L, TP_XOR, pos, lw_i32(L, nsb - 1));
	TpVal later = lw_cmp(L, PRED_GT, pos, lw_i32(L, 0));
	TpVal *after = ARENA_NEWN(L->arena, TpVal, nsb); /* pos > s */
	for (int s = 1; s < nsb - 1; s++)
		after[s] = lw_cmp(L, PRED_GT, pos, lw_i32(L, s));
	bool need_total = j2 < nbits;
	for (int r = 0; r < nr; r++) {
		if (!is_block_rep(R, S, r))
			continue;
		/* acc: the totals of superblocks 0..s in scan order; pre: those
		 * before this thread's, once s passes it */
		TpVal acc[8], pre[8];
		int last = need_total ? nsb - 1 : nsb - 2;
		for (int s = 0; s <= last; s++) {
			int32_t t = (int32_t)(rev ? nsb - 1 - s : s) << fb;
			TpVal x[8];
			for (int i = 0; i < R->n; i++) {
				TpVal in[2] = {slot_addr(L, hw0, hwmask & ~group, at0[i], rslot[r] | t, eb[i],
				                         b0 + base[i]),
				               lw_true(L)};
				TpOp *ld = lw_op(L, TP_SMEM_LOAD, R->op->loc, in, 2, &R->et[i], 1);
				ld->attr.i = 1;
				x[i] = ld->results[0];
			}
			if (s == 0) {
				memcpy(acc, x, sizeof(TpVal) * (size_t)R->n);
				memcpy(pre, x, sizeof(TpVal) * (size_t)R->n);
				continue;
			}
			red_combine(R, acc, x, acc);
			if (s < nsb - 1)
				for (int i = 0; i < R->n; i++)
					pre[i] = lw_select(L, after[s], acc[i], pre[i]);
		}
		TpVal mineP[8], withP[8];
		for (int i = 0; i < R->n; i++)
			mineP[i] = S->P[i][r];
		red_combine(R, pre, mineP, withP);
		for (int i = 0; i < R->n; i++) {
			S->P[i][r] = lw_select(L, later, withP[i], mineP[i]);
			if (need_total)
				S->T[i][r] = acc[i];
		}
	}
	lw_barrier(L);
}

/* Axis bits j1..j2-1 held by registers (above a lane or warp bit): the
 * 2^(j2-j1) superblocks they select in each thread are merged by one
 * sequential carry, one combine per block and one per superblock, where a
 * merge per bit costs (j2-j1) per block. */
static void scan_register_run(Red *R, ScanSt *S, const Owner *own, int j1, int j2, bool rev)
{
	int nr = 1 << lw_bits(R->l, LL_REG), k = j2 - j1, nsb = 1 << k;
	uint32_t runmask = 0;
	for (int j = j1; j < j2; j++)
		runmask |= 1u << own[j].bit;
	int *q = ARENA_NEWN(R->L->arena, int, nsb);
	for (int r = 0; r < nr; r++) {
		if (!is_block_rep(R, S, r) || (r & (int)runmask))
			continue;
		for (int t = 0; t < nsb; t++) {
			int x = r;
			for (int m = 0; m < k; m++)
				if ((t >> m) & 1)
					x |= 1 << own[j1 + m].bit;
			q[rev ? nsb - 1 - t : t] = x;
		}
		TpVal carry[8];
		for (int i = 0; i < R->n; i++)
			carry[i] = S->T[i][q[0]];
		for (int t = 1; t < nsb; t++) {
			TpVal p[8], tt[8];
			for (int i = 0; i < R->n; i++) {
				p[i] = S->P[i][q[t]];
				tt[i] = S->T[i][q[t]];
			}
			red_combine(R, carry, p, p);
			red_combine(R, carry, tt, carry);
			for (int i = 0; i < R->n; i++)
				S->P[i][q[t]] = p[i];
		}
		for (int t = 0; t < nsb; t++)
			for (int i = 0; i < R->n; i++)
				S->T[i][q[t]] = carry[i];
	}
}

void lw_scan_op(Lower *L, const TirOp *op)
{
	Red R;
	red_init(&R, L, op, "scan");
	bool rev = (op->attr.flags & TIR_REVERSE) != 0;
	const LinearLayout *l = R.l;
	int nbits = l->out_bits[R.axis];
	Owner own[32];
	scan_owners(&R, own, nbits);
	LVal in[8];
	ScanSt S;
	int nr = 1 << lw_bits(l, LL_REG);
	for (int i = 0; i < R.n; i++) {
		in[i] = lw_get(L, op->operands[i]);
		S.P[i] = ARENA_NEWN(L->arena, TpVal, nr);
		S.T[i] = ARENA_NEWN(L->arena, TpVal, nr);
	}
	int j0 = 0;
	while (j0 < nbits && own[j0].kind == 0)
		j0++;
	S.lowmask = 0;
	for (int j = 0; j < j0; j++)
		S.lowmask |= 1u << own[j].bit;
	scan_block_pass(&R, &S, in, own, j0, rev, false);
	for (int j = j0; j < nbits; j++) {
		if (own[j].kind == 0) {
			int j2 = j;
			while (j2 < nbits && own[j2].kind == 0)
				j2++;
			scan_register_run(&R, &S, own, j, j2, rev);
			j = j2 - 1;
		} else if (own[j].kind == 1 || lw_simd_program(L)) {
			bool lane = own[j].kind == 1;
			int xb = own[j].bit;
			TpVal bit = red_bit_set(L, lane ? L->lane : L->warp, xb);
			TpVal second = rev ? lw_bin(L, TP_XOR, bit, lw_true(L)) : bit;
			for (int r = 0; r < nr; r++) {
				if (!is_block_rep(&R, &S, r))
					continue;
				TpVal pT[8];
				for (int i = 0; i < R.n; i++) {
					TpOp *t = lw_op(L, lane ? TP_SHFL_XOR : TP_WARP_XOR, op->loc,
					                &S.T[i][r], 1, &R.et[i], 1);
					t->attr.i = 1 << xb;
					pT[i] = t->results[0];
				}
				merge(&R, &S, r, pT, second);
			}
		} else {
			int j2 = j;
			while (j2 < nbits && own[j2].kind == 2)
				j2++;
			scan_warp_run(&R, &S, own, j, j2, nbits, rev);
			j = j2 - 1;
		}
	}
	scan_block_pass(&R, &S, in, own, j0, rev, true);
	for (int i = 0; i < R.n; i++) {
		const LinearLayout *rl = lw_layout(L, op->results[i]);
		if (rl != l && !ll_equal(rl, l))
			lw_ice("scan: result layout differs from the operand layout");
		LVal x = lw_alloc(L, nr);
		for (int r = 0; r < nr; r++) {
			int q = r;
			if (r & (int)R.rf) {
				int32_t c[LL_MAX_OUT];
				ll_apply_hw(l, (uint32_t)r, 0, 0, c);
				q = lw_find_reg(l, c, R.rf);
			}
			x.r[r] = S.P[i][q];
		}
		lw_set(L, op->results[i], x);
	}
}
