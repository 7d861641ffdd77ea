/* encodings.c: the layouts the compiler uses, built as LinearLayouts, and the
 * structural edits that view ops (slice, expand_dims, broadcast, permute,
 * reshape) apply to them.
 *
 * Constructors follow Triton's LinearLayoutConversions.cpp: a layout is a
 * product of 1-D identities (register bits first, then lanes, then warps,
 * each walking the dims fastest first), then fitted to the tensor shape
 * (ll_fit_to_shape): a tile smaller than the tensor is repeated with more
 * register bits, a tile bigger than the tensor wraps (its extra bits become
 * zero bases: copies).
 */
#include "layout/linear.h"

#include <string.h>

static int ilog2(int64_t x)
{
	int n = 0;
	while (((int64_t)1 << n) < x)
		n++;
	return n;
}

/* l = l * identity1D(size, in, dim) */
static void mul_identity(LinearLayout *l, int size, LLInDim in, int dim)
{
	LinearLayout id;
	ll_identity_1d(&id, size, in, dim, l->n_out);
	ll_product(l, &id, l);
}

/* l = l * zeros1D(size, in) */
static void mul_zeros(LinearLayout *l, int size, LLInDim in)
{
	LinearLayout z;
	ll_zeros_1d(&z, size, in, l->n_out);
	ll_product(l, &z, l);
}

void ll_fit_to_shape(LinearLayout *l, int rank, const int32_t shape[], const int32_t order[])
{
	for (int d = l->n_out; d < rank; d++)
		l->out_bits[d] = 0;
	if (rank > l->n_out)
		l->n_out = (uint8_t)rank;
	LLInDim rep = l->n_in == 1 && l->in_dim[0] == LL_OFFSET ? LL_OFFSET : LL_REG;
	for (int k = 0; k < rank; k++) {
		int d = order[k];
		int have = 1 << l->out_bits[d];
		if (shape[d] > have)
			mul_identity(l, shape[d] / have, rep, d);
	}
	for (int d = 0; d < rank; d++) {
		int bits = ilog2(shape[d]);
		if (l->out_bits[d] <= bits)
			continue;
		for (int i = 0; i < l->n_in; i++)
			for (int b = 0; b < l->in_bits[i]; b++)
				l->basis[i][b][d] &= (1 << bits) - 1;
		l->out_bits[d] = (uint8_t)bits;
	}
}

/* Lanes and warps that l replicates (zero bases) take the new bits of the
 * dims that grow, fastest dim first, before ll_fit_to_shape adds registers:
 * a broadcast of a replicated value (a reduction's result, `x[:, None]`)
 * stays spread over the threads instead of every thread holding the whole
 * tile. */
void ll_fit_broadcast(LinearLayout *l, int rank, const int32_t shape[], const int32_t order[])
{
	for (int d = l->n_out; d < rank; d++)
		l->out_bits[d] = 0;
	if (rank > l->n_out)
		l->n_out = (uint8_t)rank;
	static const LLInDim hw[] = {LL_LANE, LL_WARP};
	for (int k = 0; k < rank; k++) {
		int d = order[k];
		for (int h = 0; h < 2; h++)
			for (int i = 0; i < l->n_in; i++) {
				if (l->in_dim[i] != hw[h])
					continue;
				for (int b = 0; b < l->in_bits[i] && (1 << l->out_bits[d]) < shape[d]; b++) {
					bool zero = true;
					for (int o = 0; o < l->n_out; o++)
						zero &= l->basis[i][b][o] == 0;
					if (!zero)
						continue;
					l->basis[i][b][d] = 1 << l->out_bits[d];
					l->out_bits[d]++;
				}
			}
	}
	ll_fit_to_shape(l, rank, shape, order);
}

/* ---- blocked ------------------------------------------------------------- */

void ll_blocked(LinearLayout *l, int rank, const int32_t shape[], const int32_t size_per_thread[],
		const int32_t threads_per_warp[], const int32_t warps_per_cta[],
		const int32_t order[])
{
	ll_init_hw(l, rank);
	for (int k = 0; k < rank; k++)
		mul_identity(l, size_per_thread[order[k]], LL_REG, order[k]);
	for (int k = 0; k < rank; k++)
		mul_identity(l, threads_per_warp[order[k]], LL_LANE, order[k]);
	for (int k = 0; k < rank; k++)
		mul_identity(l, warps_per_cta[order[k]], LL_WARP, order[k]);
	ll_fit_to_shape(l, rank, shape, order);
}

static int32_t clampi(int64_t v, int64_t lo, int64_t hi)
{
	return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

void ll_blocked_params_ordered(int rank, const int32_t shape[], const int32_t order[],
			       int num_warps, int lanes_per_warp, int vec, int32_t spt[],
			       int32_t tpw[], int32_t wpc[])
{
	for (int k = 0; k < rank; k++)
		spt[k] = 1;
	int fast = order[0];
	spt[fast] = vec < shape[fast] ? vec : shape[fast];
	if (spt[fast] < 1)
		spt[fast] = 1;
	int64_t rem_lanes = lanes_per_warp, rem_threads = (int64_t)num_warps * lanes_per_warp;
	int64_t rem_warps = num_warps, prev_lanes = 1, prev_warps = 1;
	for (int k = 0; k < rank - 1; k++) {
		int i = order[k];
		int32_t per_cta = clampi(rem_threads, 1, shape[i] / spt[i]);
		tpw[i] = clampi(per_cta, 1, rem_lanes);
		wpc[i] = clampi(per_cta / tpw[i], 1, rem_warps);
		rem_warps /= wpc[i];
		rem_lanes /= tpw[i];
		rem_threads /= per_cta;
		prev_lanes *= tpw[i];
		prev_warps *= wpc[i];
	}
	tpw[order[rank - 1]] = (int32_t)(lanes_per_warp / prev_lanes);
	wpc[order[rank - 1]] = (int32_t)(num_warps / prev_warps);
}

void ll_default_blocked_params(int rank, const int32_t shape[], int num_warps,
			       int lanes_per_warp, int vec, int32_t spt[], int32_t tpw[],
			       int32_t wpc[], int32_t order[])
{
	for (int k = 0; k < rank; k++)
		order[k] = rank - 1 - k;
	ll_blocked_params_ordered(rank, shape, order, num_warps, lanes_per_warp, vec, spt, tpw,
				  wpc);
}

void ll_coalesced(LinearLayout *l, int rank, const int32_t shape[], const int32_t order[],
		  int num_warps, int lanes_per_warp, int vec)
{
	int32_t spt[LL_MAX_OUT], tpw[LL_MAX_OUT], wpc[LL_MAX_OUT];
	ll_blocked_params_ordered(rank, shape, order, num_warps, lanes_per_warp, vec, spt, tpw,
				  wpc);
	ll_blocked(l, rank, shape, spt, tpw, wpc, order);
}

void ll_default_blocked(LinearLayout *l, int rank, const int32_t shape[], int num_warps,
			int lanes_per_warp, int vec)
{
	int32_t spt[LL_MAX_OUT], tpw[LL_MAX_OUT], wpc[LL_MAX_OUT], order[LL_MAX_OUT];
	ll_default_blocked_params(rank, shape, num_warps, lanes_per_warp, vec, spt, tpw, wpc,
				  order);
	ll_blocked(l, rank, shape, spt, tpw, wpc, order);
}

/* ---- MMA (mma.sync, 32 lanes) ----------------------------------------- */

/* Rank 3 ([B, M, N], a batched dot): the same 2-D tile on the last two dims;
 * warps walk N, then M, then the batch (warp id = wn + wN * (wm + wM * wb)),
 * and the tile is repeated over N, M, then the batch with register bits. */
void ll_mma_acc(LinearLayout *l, int rank, const int32_t shape[], const int32_t warps_per_cta[])
{
	static const int32_t order2[2] = {1, 0}, order3[3] = {2, 1, 0};
	int dm = rank - 2, dn = rank - 1;
	ll_init_hw(l, rank);
	mul_identity(l, 2, LL_REG, dn);  /* col + 1 */
	mul_identity(l, 4, LL_LANE, dn); /* col + 2, + 4 */
	mul_identity(l, 8, LL_LANE, dm); /* rows 0..7 */
	mul_identity(l, 2, LL_REG, dm);  /* row + 8 */
	for (int d = rank - 1; d >= 0; d--)
		mul_identity(l, warps_per_cta[d], LL_WARP, d);
	ll_fit_to_shape(l, rank, shape, rank == 3 ? order3 : order2);
}

void ll_mma_operand(LinearLayout *l, int op_idx, int rank, const int32_t shape[],
		    const int32_t warps_per_cta[], int elem_bits)
{
	int kw = elem_bits >= 32 ? 1 : 32 / elem_bits;
	int dm = rank - 2, dn = rank - 1;
	int kdim = op_idx == 0 ? dn : dm, other = op_idx == 0 ? dm : dn;
	int other_size = op_idx == 0 ? 16 : 8; /* rows of A / cols of B per warp */
	static const int32_t order_a2[2] = {1, 0}, order_b2[2] = {0, 1};
	static const int32_t order_a3[3] = {2, 1, 0}, order_b3[3] = {1, 2, 0};
	ll_init_hw(l, rank);
	mul_identity(l, kw, LL_REG, kdim);   /* consecutive k in one 32-bit register */
	mul_identity(l, 4, LL_LANE, kdim);   /* threadID_in_group */
	mul_identity(l, 8, LL_LANE, other);  /* groupID */
	mul_identity(l, other_size / 8, LL_REG, other); /* A: row + 8 */
	mul_identity(l, 2, LL_REG, kdim);    /* k + 4*kw */
	/* warp id = wn + wN * (wm + wM * wb) (as the accumulator); broadcast
	 * along the dimension the operand does not have. */
	if (op_idx == 0) {
		mul_zeros(l, warps_per_cta[dn], LL_WARP);
		mul_identity(l, warps_per_cta[dm], LL_WARP, dm);
	} else {
		mul_identity(l, warps_per_cta[dn], LL_WARP, dn);
		mul_zeros(l, warps_per_cta[dm], LL_WARP);
	}
	if (rank == 3)
		mul_identity(l, warps_per_cta[0], LL_WARP, 0);
	const int32_t *order = rank == 3 ? (op_idx == 0 ? order_a3 : order_b3)
	                                 : (op_idx == 0 ? order_a2 : order_b2);
	ll_fit_to_shape(l, rank, shape, order);
}

/* ---- shared memory ----------------------------------------------------- */

void ll_swizzled_shared(LinearLayout *l, int rank, const int32_t shape[], int vec, int per_phase,
			int max_phase, const int32_t order[])
{
	ll_empty(l, rank);
	ll_slot(l, LL_OFFSET);
	if (rank == 1) {
		mul_identity(l, shape[0], LL_OFFSET, 0);
		return;
	}
	int cd = order[0], rd = order[1];
	int cols = shape[cd], rows = shape[rd];
	int32_t c[LL_MAX_OUT] = {0};
	for (int col = 1; col < cols; col <<= 1) {
		c[cd] = col;
		ll_push_basis(l, LL_OFFSET, c);
	}
	for (int row = 1; row < rows; row <<= 1) {
		c[rd] = row;
		c[cd] = (vec * ((row / per_phase) % max_phase)) % cols;
		ll_push_basis(l, LL_OFFSET, c);
	}
	l->out_bits[cd] = (uint8_t)ilog2(cols);
	l->out_bits[rd] = (uint8_t)ilog2(rows);
	for (int k = 2; k < rank; k++)
		mul_identity(l, shape[order[k]], LL_OFFSET, order[k]);
}

int64_t ll_padded_offset(const PaddedShared *p, int64_t off)
{
	int64_t r = off;
	for (int k = 0; p && k < p->n; k++)
		r += (off >> ilog2(p->interval[k])) << ilog2(p->pad[k]);
	return r;
}

int64_t ll_padded_size(const PaddedShared *p, int64_t n_elems)
{
	if (n_elems <= 0)
		return 0;
	return ll_padded_offset(p, n_elems - 1) + 1;
}

/* ---- structural edits ----------------------------------------------------- */

static bool is_zero(const int32_t c[], int n)
{
	for (int d = 0; d < n; d++)
		if (c[d])
			return false;
	return true;
}

/* Remove register bases that are zero in l but were not in orig. */
static void drop_new_zero_regs(LinearLayout *l, const LinearLayout *orig)
{
	int s = ll_find_slot(l, LL_REG);
	if (s < 0)
		return;
	int n = 0;
	for (int b = 0; b < l->in_bits[s]; b++) {
		if (is_zero(l->basis[s][b], l->n_out) && !is_zero(orig->basis[s][b], orig->n_out))
			continue;
		memmove(l->basis[s][n], l->basis[s][b], sizeof l->basis[s][b]);
		n++;
	}
	for (int b = n; b < l->in_bits[s]; b++)
		memset(l->basis[s][b], 0, sizeof l->basis[s][b]);
	l->in_bits[s] = (uint8_t)n;
}

void ll_slice(LinearLayout *out, const LinearLayout *parent, int axis)
{
	LinearLayout r = *parent;
	for (int i = 0; i < r.n_in; i++)
		for (int b = 0; b < r.in_bits[i]; b++) {
			for (int d = axis; d + 1 < r.n_out; d++)
				r.basis[i][b][d] = r.basis[i][b][d + 1];
			r.basis[i][b][r.n_out - 1] = 0;
		}
	for (int d = axis; d + 1 < r.n_out; d++)
		r.out_bits[d] = r.out_bits[d + 1];
	r.out_bits[r.n_out - 1] = 0;
	r.n_out--;
	drop_new_zero_regs(&r, parent);
	*out = r;
}

void ll_expand_dims(LinearLayout *out, const LinearLayout *in, int axis)
{
	LinearLayout r = *in;
	for (int i = 0; i < r.n_in; i++)
		for (int b = 0; b < r.in_bits[i]; b++) {
			for (int d = r.n_out; d > axis; d--)
				r.basis[i][b][d] = r.basis[i][b][d - 1];
			r.basis[i][b][axis] = 0;
		}
	for (int d = r.n_out; d > axis; d--)
		r.out_bits[d] = r.out_bits[d - 1];
	r.out_bits[axis] = 0;
	r.n_out++;
	*out = r;
}

void ll_join_axis(LinearLayout *out, const LinearLayout *in, int axis)
{
	LinearLayout r;
	ll_expand_dims(&r, in, axis);
	int s = ll_slot(&r, LL_REG);
	if (s < 0 || r.in_bits[s] >= LL_MAX_BITS) {
		*out = r;
		return;
	}
	for (int b = r.in_bits[s]; b > 0; b--)
		memcpy(r.basis[s][b], r.basis[s][b - 1], sizeof r.basis[s][b]);
	memset(r.basis[s][0], 0, sizeof r.basis[s][0]);
	r.basis[s][0][axis] = 1;
	r.in_bits[s]++;
	r.out_bits[axis] = 1;
	*out = r;
}

bool ll_broadcast_source(LinearLayout *out, const LinearLayout *dst, int rank,
			 const int32_t src_shape[])
{
	if (rank != dst->n_out)
		return false;
	LinearLayout r = *dst;
	for (int d = 0; d < rank; d++) {
		if (src_shape[d] == (1 << dst->out_bits[d]))
			continue;
		if (src_shape[d] != 1)
			return false;
		for (int i = 0; i < r.n_in; i++)
			for (int b = 0; b < r.in_bits[i]; b++)
				r.basis[i][b][d] = 0;
		r.out_bits[d] = 0;
	}
	drop_new_zero_regs(&r, dst);
	*out = r;
	return true;
}

void ll_permute_outs(LinearLayout *out, const LinearLayout *in, const int perm[])
{
	LinearLayout r = *in;
	for (int i = 0; i < r.n_in; i++)
		for (int b = 0; b < r.in_bits[i]; b++)
			for (int d = 0; d < r.n_out; d++)
				r.basis[i][b][d] = in->basis[i][b][perm[d]];
	for (int d = 0; d < r.n_out; d++)
		r.out_bits[d] = in->out_bits[perm[d]];
	*out = r;
}

bool ll_reshape_outs(LinearLayout *out, const LinearLayout *in, int rank, const int32_t shape[])
{
	if (rank < 1 || rank > LL_MAX_OUT)
		return false;
	int total = 0;
	uint8_t bits[LL_MAX_OUT];
	for (int d = 0; d < rank; d++) {
		bits[d] = (uint8_t)ilog2(shape[d]);
		total += bits[d];
	}
	if (total != ll_total_out_bits(in) || total > 63)
		return false;
	LinearLayout r = *in;
	r.n_out = (uint8_t)rank;
	for (int i = 0; i < r.n_in; i++)
		for (int b = 0; b < r.in_bits[i]; b++) {
			uint64_t flat = 0;
			for (int d = 0; d < in->n_out; d++)
				flat = (flat << in->out_bits[d]) | (uint32_t)in->basis[i][b][d];
			for (int d = LL_MAX_OUT - 1; d >= 0; d--) {
				if (d >= rank) {
					r.basis[i][b][d] = 0;
					continue;
				}
				r.basis[i][b][d] = (int32_t)(flat & ((1ull << bits[d]) - 1));
				flat >>= bits[d];
			}
		}
	for (int d = 0; d < LL_MAX_OUT; d++)
		r.out_bits[d] = d < rank ? bits[d] : 0;
	*out = r;
	return true;
}
