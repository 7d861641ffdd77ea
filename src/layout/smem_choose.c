/* smem_choose.c: bank conflicts of register <-> shared accesses, the choice
 * of a shared layout for a layout conversion, and the conversion classifier.
 *
 * Bank model (NVIDIA, also fine for AMD LDS): 32 banks of 4 bytes. A warp
 * access is served in phases: the whole warp for accesses of up to 4 bytes
 * per thread, half warps for 8 bytes, quarter warps for 16 bytes. Within a
 * phase, threads hitting the same 4-byte word share it (broadcast), and the
 * phase takes as many wavefronts as the most distinct words in one bank.
 *
 * For a register layout R and a shared layout S (offset -> element),
 * C = S^-1 o R maps (register, lane, warp) to the element offset, and a
 * thread's registers that C sends to consecutive aligned offsets are moved
 * as one vector (up to 16 bytes).
 *
 * Without padding C is linear, so all register groups and warps see the
 * same conflict pattern up to an XOR of the offset, which permutes banks and
 * words: the chooser evaluates one group and scales. With padding every group
 * is enumerated.
 *
 * A reader that lowering serves with ldmatrix (ll_ldmatrix_plan) is costed as
 * ldmatrix phases instead: one per 8x8 matrix, its 8 lanes each reading one
 * 16-byte row, conflict-free iff the rows fall in distinct 16-byte bank
 * groups modulo 128 bytes.
 */
#include "layout/linear.h"

#include <stdlib.h>
#include <string.h>

enum { NBANKS = 32, WORD = 4, MAX_VEC_BYTES = 16 };

static int ilog2(int64_t x)
{
	int n = 0;
	while (((int64_t)1 << n) < x)
		n++;
	return n;
}

static int ctz32(uint32_t x)
{
	int n = 0;
	if (!x)
		return 32;
	while (!(x & 1)) {
		x >>= 1;
		n++;
	}
	return n;
}

/* How one layout accesses one shared buffer. */
typedef struct Access {
	LinearLayout c; /* (reg, lane, warp) -> offset, out dim 0 */
	const PaddedShared *pad;
	int eb;   /* element bytes */
	int vbits; /* log2 of the vector width in elements */
	int rs, ls, ws; /* slots of reg, lane, warp in c (or -1) */
} Access;

static int slot_bits(const LinearLayout *l, int s)
{
	return s < 0 ? 0 : l->in_bits[s];
}

static int vector_bits(const Access *a)
{
	const LinearLayout *c = &a->c;
	int k = 0;
	int rb = slot_bits(c, a->rs);
	while (k < rb && c->basis[a->rs][k][0] == (1 << k) && ((2 << k) * a->eb) <= MAX_VEC_BYTES)
		k++;
	/* every other basis must keep the vector start aligned */
	for (int i = 0; i < c->n_in; i++)
		for (int b = (i == a->rs ? k : 0); b < c->in_bits[i]; b++) {
			int tz = ctz32((uint32_t)c->basis[i][b][0]);
			if (tz < k)
				k = tz;
		}
	for (int j = 0; a->pad && j < a->pad->n; j++) {
		int lim = ilog2(a->pad->interval[j]);
		if (ilog2(a->pad->pad[j]) < lim)
			lim = ilog2(a->pad->pad[j]);
		if (lim < k)
			k = lim;
	}
	return k;
}

static bool access_init(Access *a, const LinearLayout *reg, const LinearLayout *smem,
			const PaddedShared *pad, int elem_bytes)
{
	if (!ll_invert_and_compose(reg, smem, &a->c))
		return false;
	a->pad = pad && pad->n ? pad : NULL;
	a->eb = elem_bytes;
	a->rs = ll_find_slot(&a->c, LL_REG);
	a->ls = ll_find_slot(&a->c, LL_LANE);
	a->ws = ll_find_slot(&a->c, LL_WARP);
	a->vbits = vector_bits(a);
	return true;
}

/* Wavefronts to serve these 4-byte words (sorted in place): the most
 * distinct words in one bank. An insertion sort: there are at most 136, and
 * the chooser calls this thousands of times per kernel. */
static int words_wavefronts(uint32_t *words, int n)
{
	for (int i = 1; i < n; i++) {
		uint32_t w = words[i];
		int j = i;
		for (; j > 0 && words[j - 1] > w; j--)
			words[j] = words[j - 1];
		words[j] = w;
	}
	int per_bank[NBANKS] = {0}, worst = 0;
	for (int i = 0; i < n; i++) {
		if (i && words[i] == words[i - 1])
			continue;
		int b = (int)(words[i] % NBANKS);
		if (++per_bank[b] > worst)
			worst = per_bank[b];
	}
	return worst;
}

/* Wavefronts of one phase: lanes [l0, l1) accessing register group `reg`. */
static int phase_wavefronts(const Access *a, uint32_t reg, uint32_t warp, int l0, int l1)
{
	uint32_t words[32 * (MAX_VEC_BYTES / WORD) + 8];
	int n = 0;
	int bytes = a->eb << a->vbits;
	for (int lane = l0; lane < l1; lane++) {
		uint32_t in[LL_MAX_IN] = {0};
		int32_t out[LL_MAX_OUT];
		if (a->rs >= 0)
			in[a->rs] = reg;
		if (a->ls >= 0)
			in[a->ls] = (uint32_t)lane;
		if (a->ws >= 0)
			in[a->ws] = warp;
		ll_apply(&a->c, in, out);
		int64_t byte = ll_padded_offset(a->pad, out[0]) * a->eb;
		for (int64_t w = byte / WORD; w <= (byte + bytes - 1) / WORD; w++)
			if (n < (int)(sizeof words / sizeof words[0]))
				words[n++] = (uint32_t)w;
	}
	return words_wavefronts(words, n);
}

/* Wavefronts of one warp-wide access; *worst = the worst phase. */
static int group_wavefronts(const Access *a, uint32_t reg, uint32_t warp, int *worst)
{
	int lanes = 1 << slot_bits(&a->c, a->ls);
	int bytes = a->eb << a->vbits;
	int per_phase = bytes <= 4 ? 32 : bytes <= 8 ? 16 : 8;
	int total = 0;
	for (int l0 = 0; l0 < lanes; l0 += per_phase) {
		int l1 = l0 + per_phase < lanes ? l0 + per_phase : lanes;
		int w = phase_wavefronts(a, reg, warp, l0, l1);
		total += w;
		if (w > *worst)
			*worst = w;
	}
	return total;
}

/* Total wavefronts over all groups and warps (fast: one group, scaled, when
 * there is no padding); *worst = worst phase. */
static int64_t access_cost(const Access *a, bool brute, int *worst)
{
	int rb = slot_bits(&a->c, a->rs), wb = slot_bits(&a->c, a->ws);
	int64_t groups = (int64_t)1 << (rb - a->vbits), warps = (int64_t)1 << wb;
	*worst = 0;
	if (!brute && !a->pad)
		return group_wavefronts(a, 0, 0, worst) * groups * warps;
	int64_t total = 0;
	for (int64_t w = 0; w < warps; w++)
		for (int64_t g = 0; g < groups; g++)
			total += group_wavefronts(a, (uint32_t)(g << a->vbits), (uint32_t)w, worst);
	return total;
}

int ll_bank_conflicts(const LinearLayout *reg, const LinearLayout *smem,
		      const PaddedShared *pad_or_null, int elem_bytes)
{
	Access a;
	int worst;
	if (!access_init(&a, reg, smem, pad_or_null, elem_bytes))
		return -1;
	access_cost(&a, true, &worst);
	return worst;
}

int64_t ll_smem_access_cost(const LinearLayout *reg, const LinearLayout *smem,
			    const PaddedShared *pad_or_null, int elem_bytes)
{
	Access a;
	int worst;
	if (!access_init(&a, reg, smem, pad_or_null, elem_bytes))
		return -1;
	return access_cost(&a, true, &worst);
}

int ll_smem_vec(const LinearLayout *reg, const LinearLayout *smem,
		const PaddedShared *pad_or_null, int elem_bytes)
{
	Access a;
	if (!access_init(&a, reg, smem, pad_or_null, elem_bytes))
		return 1;
	return 1 << a.vbits;
}

/* ---- ldmatrix reads ---------------------------------------------------------- */

enum { LDM_ROW_BYTES = 16 }; /* one matrix row: 8 x 16 bits */

static int32_t basis0(const LinearLayout *c, int slot, int b)
{
	return slot >= 0 && b < c->in_bits[slot] ? c->basis[slot][b][0] : 0;
}

/* Does the layout hold the n in-row bits (slot, bit) = 1, 2, 4, ..., every
 * other basis keeping rows (row elements apart) aligned? */
static bool ldm_form(const LinearLayout *c, const int *slots, const int *bits, int n, int row)
{
	for (int k = 0; k < n; k++)
		if (basis0(c, slots[k], bits[k]) != 1 << k)
			return false;
	for (int i = 0; i < c->n_in; i++)
		for (int b = 0; b < c->in_bits[i]; b++) {
			bool in_row = false;
			for (int k = 0; k < n; k++)
				in_row = in_row || (i == slots[k] && b == bits[k]);
			if (!in_row && (c->basis[i][b][0] % row))
				return false;
		}
	return true;
}

bool ll_ldmatrix_plan(const LinearLayout *c, const PaddedShared *pad, int elem_bytes,
		      LdmatrixPlan *plan)
{
	int rs = ll_find_slot(c, LL_REG), ls = ll_find_slot(c, LL_LANE);
	memset(plan, 0, sizeof *plan);
	if ((elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4) || slot_bits(c, ls) > 5)
		return false;
	/* a 32-bit result register holds epr elements: its low register bits,
	 * then lane bits 0 and 1, walk one 16-byte row */
	int epr = WORD / elem_bytes, wbits = ilog2(epr), row = LDM_ROW_BYTES / elem_bytes;
	if (slot_bits(c, rs) < wbits)
		return false;
	for (int j = 0; pad && j < pad->n; j++)
		if (pad->interval[j] < row || (pad->pad[j] * elem_bytes) % MAX_VEC_BYTES)
			return false;
	/* plain: the row is (reg 0.., lane 0, lane 1), the row index lanes 2..4;
	 * .trans (16-bit only): the row is lanes 2..4, reg 0 and lanes 0, 1 the
	 * row index */
	int plain_s[4], plain_b[4], nrow = wbits + 2;
	for (int k = 0; k < wbits; k++)
		plain_s[k] = rs, plain_b[k] = k;
	plain_s[wbits] = plain_s[wbits + 1] = ls;
	plain_b[wbits] = 0, plain_b[wbits + 1] = 1;
	const int trans_s[3] = {ls, ls, ls}, trans_b[3] = {2, 3, 4};
	if (ldm_form(c, plain_s, plain_b, nrow, row))
		plan->trans = false;
	else if (elem_bytes == 2 && ldm_form(c, trans_s, trans_b, 3, row))
		plan->trans = true;
	else
		return false;
	int mb = c->in_bits[rs] - wbits; /* register bits left to select matrices */
	plan->nmat = mb >= 2 ? 4 : mb == 1 ? 2 : 1;
	plan->elems_per_reg = epr;
	for (int k = 0; k < 3; k++)
		plan->lane_img[k] = plan->trans ? basis0(c, plain_s[k], plain_b[k])
						: basis0(c, trans_s[k], trans_b[k]);
	plan->lane_img[3] = plan->nmat >= 2 ? basis0(c, rs, wbits) : 0;
	plan->lane_img[4] = plan->nmat >= 4 ? basis0(c, rs, wbits + 1) : 0;
	return true;
}

/* Byte offset of the row lane `lane` addresses in instruction `g` (its
 * first register) of warp `warp`. */
static int64_t ldm_row_byte(const Access *a, const LdmatrixPlan *p, uint32_t g, uint32_t warp,
			    int lane)
{
	uint32_t in[LL_MAX_IN] = {0};
	int32_t out[LL_MAX_OUT];
	if (a->rs >= 0)
		in[a->rs] = g;
	if (a->ws >= 0)
		in[a->ws] = warp;
	ll_apply(&a->c, in, out);
	int32_t off = out[0];
	for (int b = 0; b < 5; b++)
		if (lane >> b & 1)
			off ^= p->lane_img[b];
	return ll_padded_offset(a->pad, off) * a->eb;
}

/* Total wavefronts of the ldmatrix phases (one per matrix) one warp issues;
 * without padding every phase is an XOR-translate of the first, so one
 * instruction is evaluated and scaled unless brute. *worst = worst phase. */
static int64_t ldm_cost(const Access *a, const LdmatrixPlan *p, bool brute, int *worst)
{
	int gbits = ilog2(p->elems_per_reg * p->nmat);
	int rb = slot_bits(&a->c, a->rs), wb = slot_bits(&a->c, a->ws);
	int64_t groups = (int64_t)1 << (rb - gbits), warps = (int64_t)1 << wb;
	bool all = brute || a->pad;
	int64_t total = 0;
	*worst = 0;
	for (int64_t w = 0; w < (all ? warps : 1); w++)
		for (int64_t g = 0; g < (all ? groups : 1); g++)
			for (int m = 0; m < p->nmat; m++) {
				uint32_t words[8 * (LDM_ROW_BYTES / WORD)];
				int n = 0;
				for (int r = 0; r < 8; r++) {
					int64_t byte = ldm_row_byte(a, p, (uint32_t)(g << gbits),
								    (uint32_t)w, m * 8 + r);
					for (int k = 0; k < MAX_VEC_BYTES / WORD; k++)
						words[n++] = (uint32_t)(byte / WORD + k);
				}
				int wf = words_wavefronts(words, n);
				total += wf;
				if (wf > *worst)
					*worst = wf;
			}
	return all ? total : total * groups * warps;
}

int ll_ldmatrix_conflicts(const LinearLayout *reg, const LinearLayout *smem,
			  const PaddedShared *pad_or_null, int elem_bytes)
{
	Access a;
	LdmatrixPlan p;
	int worst;
	if (!access_init(&a, reg, smem, pad_or_null, elem_bytes) ||
	    !ll_ldmatrix_plan(&a.c, a.pad, elem_bytes, &p))
		return -1;
	ldm_cost(&a, &p, true, &worst);
	return worst;
}

/* ---- choosing a shared layout for a conversion --------------------------- */

typedef struct Cand {
	LinearLayout smem;
	PaddedShared pad;
	int64_t cost, size;
	int complexity;
	int worst_w, worst_r; /* worst write / read phase */
	bool ok, ldm;         /* ldm: dst reads it with ldmatrix */
} Cand;

static void evaluate(Cand *c, const LinearLayout *src, const LinearLayout *dst, int eb, bool ldm)
{
	Access a, b;
	LdmatrixPlan lp;
	c->ok = false;
	const PaddedShared *p = c->pad.n ? &c->pad : NULL;
	if (!access_init(&a, src, &c->smem, p, eb) || !access_init(&b, dst, &c->smem, p, eb))
		return;
	c->ldm = ldm && ll_ldmatrix_plan(&b.c, b.pad, eb, &lp);
	c->cost = access_cost(&a, false, &c->worst_w) +
		  (c->ldm ? ldm_cost(&b, &lp, false, &c->worst_r) : access_cost(&b, false, &c->worst_r));
	c->size = ll_padded_size(p, (int64_t)1 << ll_total_out_bits(&c->smem));
	c->ok = true;
}

static bool better(const Cand *x, const Cand *best)
{
	if (!x->ok)
		return false;
	if (!best->ok)
		return true;
	if (x->cost != best->cost)
		return x->cost < best->cost;
	if (x->ldm != best->ldm)
		return x->ldm; /* fewer instructions for the same wavefronts */
	if ((x->pad.n != 0) != (best->pad.n != 0))
		return x->pad.n == 0;
	if (x->size != best->size)
		return x->size < best->size;
	return x->complexity < best->complexity;
}

static void consider(Cand *best, Cand *c, const LinearLayout *src, const LinearLayout *dst,
		     int eb, bool ldm)
{
	evaluate(c, src, dst, eb, ldm);
	if (better(c, best))
		*best = *c;
}

void ll_choose_conversion_smem(const LinearLayout *src, const LinearLayout *dst, int elem_bytes,
			       LinearLayout *smem_out, PaddedShared *pad_out)
{
	ll_choose_conversion_smem_ldm(src, dst, elem_bytes, false, smem_out, pad_out);
}

void ll_choose_conversion_smem_ldm(const LinearLayout *src, const LinearLayout *dst,
				   int elem_bytes, bool ldmatrix, LinearLayout *smem_out,
				   PaddedShared *pad_out)
{
	int rank = src->n_out;
	int32_t shape[LL_MAX_OUT], orders[2][LL_MAX_OUT];
	for (int d = 0; d < rank; d++) {
		shape[d] = 1 << src->out_bits[d];
		orders[0][d] = rank - 1 - d;
		orders[1][d] = rank - 1 - d;
	}
	int norders = 1;
	if (rank >= 2) {
		orders[1][0] = rank - 2;
		orders[1][1] = rank - 1;
		norders = 2;
	}
	Cand best, c;
	memset(&best, 0, sizeof best);
	memset(&c, 0, sizeof c);
	for (int o = 0; o < norders; o++) {
		const int32_t *ord = orders[o];
		int cols = shape[ord[0]], rows = rank >= 2 ? shape[ord[1]] : 1;
		for (int vec = 1; vec <= cols; vec <<= 1)
			for (int pp = 1; pp <= rows; pp <<= 1)
				for (int mp = 1; mp <= rows && mp * vec <= cols; mp <<= 1) {
					if (mp == 1 && (vec > 1 || pp > 1))
						continue; /* same as no swizzle */
					if (rank < 2 && mp > 1)
						continue;
					/* phases past the last row: the layout of
					 * max_phase rows / per_phase, which is simpler */
					if (pp * mp > rows)
						continue;
					memset(&c.pad, 0, sizeof c.pad);
					ll_swizzled_shared(&c.smem, rank, shape, vec, pp, mp, ord);
					c.complexity = o + 2 * (ilog2(mp) * 64 + ilog2(pp) * 8 +
								(mp > 1 ? 7 - ilog2(vec) : 0));
					consider(&best, &c, src, dst, elem_bytes, ldmatrix);
				}
	}
	/* Row padding, tried only when no swizzle is free of conflicts. */
	if (!best.ok || best.worst_w > 1 || best.worst_r > 1) {
		for (int o = 0; o < norders; o++) {
			int cols = shape[orders[o][0]];
			int64_t total = (int64_t)1 << ll_total_out_bits(src);
			int32_t intervals[2] = {cols, 128 / elem_bytes};
			for (int ii = 0; ii < 2; ii++) {
				if (intervals[ii] < 1 || intervals[ii] >= total || (ii && intervals[1] == cols))
					continue;
				for (int p = 1; p * elem_bytes <= MAX_VEC_BYTES; p <<= 1) {
					ll_swizzled_shared(&c.smem, rank, shape, 1, 1, 1, orders[o]);
					c.pad.n = 1;
					c.pad.interval[0] = intervals[ii];
					c.pad.pad[0] = p;
					c.complexity = o + 2 * ilog2(p);
					consider(&best, &c, src, dst, elem_bytes, ldmatrix);
				}
			}
		}
	}
	if (!best.ok) {
		ll_swizzled_shared(&best.smem, rank, shape, 1, 1, 1, orders[0]);
		memset(&best.pad, 0, sizeof best.pad);
	}
	*smem_out = best.smem;
	*pad_out = best.pad;
}

/* ---- conversion classifier ------------------------------------------------ */

bool ll_is_trivial_over(const LinearLayout *c, unsigned kinds_mask)
{
	for (int i = 0; i < c->n_in; i++) {
		bool in_set = (kinds_mask >> c->in_dim[i]) & 1;
		for (int b = 0; b < c->in_bits[i]; b++)
			for (int d = 0; d < c->n_out && d < c->n_in; d++) {
				bool out_set = (kinds_mask >> c->in_dim[d]) & 1;
				int32_t want = (in_set && d == i) ? 1 << b : 0;
				if ((in_set || out_set) && c->basis[i][b][d] != want)
					return false;
			}
		if (in_set && i < c->n_out && c->in_bits[i] != c->out_bits[i])
			return false;
	}
	return true;
}

CvtKind ll_conversion_kind(const LinearLayout *src, const LinearLayout *dst)
{
	LinearLayout c;
	if (ll_equal(src, dst))
		return CVT_NONE;
	if (!ll_invert_and_compose(src, dst, &c))
		return CVT_SHARED;
	if (ll_is_trivial_over(&c, 1u << LL_WARP | 1u << LL_LANE))
		return CVT_REGISTERS;
	if (ll_is_trivial_over(&c, 1u << LL_WARP))
		return CVT_SHUFFLE;
	return CVT_SHARED;
}

int ll_shuffle_sources(const LinearLayout *src, const LinearLayout *dst)
{
	LinearLayout c; /* result hw -> source hw, as cvt_shuffle reads it */
	if (!ll_invert_and_compose(dst, src, &c))
		return 0;
	int cl = ll_find_slot(&c, LL_LANE), sr = ll_find_slot(src, LL_REG);
	if (cl < 0 || sr < 0)
		return 1;
	/* rank over GF(2) of the source-register parts of the lane bits */
	int32_t basis[32];
	int rank = 0;
	for (int b = 0; b < c.in_bits[cl]; b++) {
		int32_t v = c.basis[cl][b][sr];
		for (int i = 0; i < rank; i++)
			if ((v ^ basis[i]) < v)
				v ^= basis[i];
		if (v) {
			basis[rank++] = v;
			/* keep the basis sorted by leading bit, largest first */
			for (int i = rank - 1; i > 0 && basis[i] > basis[i - 1]; i--) {
				int32_t tmp = basis[i];
				basis[i] = basis[i - 1];
				basis[i - 1] = tmp;
			}
		}
	}
	return 1 << rank;
}
