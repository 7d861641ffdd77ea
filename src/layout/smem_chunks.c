/* smem_chunks.c: layout conversions through shared memory in pieces.
 *
 * A conversion src -> dst through shared memory stages the tile: every thread
 * writes its registers, a barrier, every thread reads. Staging the whole tile
 * needs its full size: a 256x256 fp32 mma accumulator is 256 KB, more than
 * any GPU has. But some coordinate bits are held by one register bit alone
 * in both layouts (a tile repeated over registers, as an mma accumulator and
 * the blocked store layout both repeat over rows): fixing such a bit splits
 * the tile into two halves that no lane or warp mixes, and each half can be
 * converted on its own through a buffer of half the size. This is Triton's
 * "repetitions" of a conversion (its scratch covers one of them).
 *
 * Bit (d, k) — coordinate bit k along dim d — qualifies in layout l when the
 * only basis of l that moves it is one register basis, and that basis is the
 * unit (d, 1 << k). The chunk's layouts are src and dst without those register
 * bases and without that coordinate bit (the bits above it move down).
 *
 * Which bits: the fewest that bring the chunk under the cap, taken from the
 * register bits that are highest in both layouts, because the low register
 * bits are the vectors of the shared-memory accesses (and of ldmatrix).
 */
#include "layout/linear.h"

#include <string.h>

/* The register bit of l that alone moves coordinate bit k of dim d, or -1. */
static int sole_register_bit(const LinearLayout *l, int d, int k)
{
	int found = -1;
	for (int i = 0; i < l->n_in; i++)
		for (int b = 0; b < l->in_bits[i]; b++) {
			if (!((l->basis[i][b][d] >> k) & 1))
				continue;
			if (found >= 0 || l->in_dim[i] != LL_REG)
				return -1;
			for (int e = 0; e < l->n_out; e++)
				if (l->basis[i][b][e] != (e == d ? 1 << k : 0))
					return -1;
			found = b;
		}
	return found;
}

/* x without the bits in `drop`, the bits above each dropped one moved down. */
static int32_t squeeze(int32_t x, uint32_t drop)
{
	int32_t out = 0;
	for (int b = 0, o = 0; b < 31; b++) {
		if ((drop >> b) & 1)
			continue;
		out |= ((x >> b) & 1) << o;
		o++;
	}
	return out;
}

/* l without register bits `regs` (a mask) and coordinate bits drop[d]. */
static void quotient(LinearLayout *out, const LinearLayout *l, uint32_t regs,
		     const uint32_t drop[LL_MAX_OUT])
{
	*out = *l;
	for (int i = 0; i < l->n_in; i++) {
		int n = 0;
		for (int b = 0; b < l->in_bits[i]; b++) {
			if (l->in_dim[i] == LL_REG && ((regs >> b) & 1))
				continue;
			for (int d = 0; d < l->n_out; d++)
				out->basis[i][n][d] = squeeze(l->basis[i][b][d], drop[d]);
			n++;
		}
		out->in_bits[i] = (uint8_t)n;
	}
	for (int d = 0; d < l->n_out; d++)
		out->out_bits[d] = (uint8_t)(l->out_bits[d] - __builtin_popcount(drop[d]));
}

void ll_plan_conversion_chunks(const LinearLayout *src, const LinearLayout *dst, int elem_bytes,
			       int64_t cap_bytes, CvtSmemPlan *p)
{
	memset(p, 0, sizeof *p);
	typedef struct { int d, k, s, t; } Bit;
	Bit cand[LL_MAX_BITS];
	int ncand = 0;
	for (int d = 0; d < src->n_out && d < dst->n_out; d++)
		for (int k = 0; k < src->out_bits[d] && ncand < LL_MAX_BITS; k++) {
			int s = sole_register_bit(src, d, k), t = sole_register_bit(dst, d, k);
			if (s >= 0 && t >= 0)
				cand[ncand++] = (Bit){d, k, s, t};
		}
	uint32_t drop[LL_MAX_OUT] = {0}, src_regs = 0, dst_regs = 0;
	int64_t elems = (int64_t)1 << ll_total_out_bits(src);
	while (elems * elem_bytes > cap_bytes && ncand > 0) {
		/* the candidate whose lower register bit (of the two) is highest */
		int best = 0;
		for (int i = 1; i < ncand; i++) {
			int lo = cand[i].s < cand[i].t ? cand[i].s : cand[i].t;
			int blo = cand[best].s < cand[best].t ? cand[best].s : cand[best].t;
			if (lo > blo || (lo == blo && cand[i].s + cand[i].t > cand[best].s + cand[best].t))
				best = i;
		}
		Bit c = cand[best];
		cand[best] = cand[--ncand];
		p->src_reg[p->nbits] = c.s;
		p->dst_reg[p->nbits] = c.t;
		p->nbits++;
		drop[c.d] |= 1u << c.k;
		src_regs |= 1u << c.s;
		dst_regs |= 1u << c.t;
		elems >>= 1;
	}
	quotient(&p->src, src, src_regs, drop);
	quotient(&p->dst, dst, dst_regs, drop);
}

void ll_plan_conversion_smem(const LinearLayout *src, const LinearLayout *dst, int elem_bytes,
			     bool ldmatrix, int64_t cap_bytes, CvtSmemPlan *p)
{
	ll_plan_conversion_chunks(src, dst, elem_bytes, cap_bytes, p);
	ll_choose_conversion_smem_ldm(&p->src, &p->dst, elem_bytes, ldmatrix, &p->smem, &p->pad);
}

int64_t ll_plan_smem_bytes(const CvtSmemPlan *p, int elem_bytes)
{
	return ll_padded_size(&p->pad, (int64_t)1 << ll_total_out_bits(&p->smem)) * elem_bytes;
}

uint32_t ll_plan_register(const int *chunk_reg, int nbits, uint32_t chunk, uint32_t r)
{
	/* insert chunk bit i at register bit chunk_reg[i], lowest position first */
	int order[LL_MAX_BITS];
	for (int i = 0; i < nbits; i++)
		order[i] = i;
	for (int i = 1; i < nbits; i++)
		for (int j = i; j > 0 && chunk_reg[order[j]] < chunk_reg[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int n = 0; n < nbits; n++) {
		int i = order[n], pos = chunk_reg[i];
		uint32_t low = r & ((1u << pos) - 1);
		r = ((r >> pos) << (pos + 1)) | low | (((chunk >> i) & 1u) << pos);
	}
	return r;
}
