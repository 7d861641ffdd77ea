/* linear.c: the GF(2) algebra of LinearLayout (see linear.h for the essay).
 *
 * Row reduction works on packed vectors: a tensor coordinate tuple is packed
 * into one uint64_t (dim n_out-1 in the low bits, dim 0 highest), and a
 * combination of input bits is a uint64_t over the concatenated input bits
 * (slot 0 bit 0 lowest). Both need at most 64 bits, which every layout the
 * compiler builds satisfies (elements per tile and threads per program are far
 * below 2^32); functions that could exceed it check and fail.
 */
#include "layout/linear.h"

#include <string.h>

static int bitlen32(uint32_t x)
{
	int n = 0;
	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

static int ilog2(int64_t x)
{
	int n = 0;
	while (((int64_t)1 << n) < x)
		n++;
	return n;
}

/* ---- builders -------------------------------------------------------------- */

void ll_empty(LinearLayout *l, int n_out)
{
	memset(l, 0, sizeof *l);
	l->n_out = (uint8_t)n_out;
}

void ll_init_hw(LinearLayout *l, int n_out)
{
	ll_empty(l, n_out);
	l->n_in = 3;
	l->in_dim[0] = LL_REG;
	l->in_dim[1] = LL_LANE;
	l->in_dim[2] = LL_WARP;
}

int ll_find_slot(const LinearLayout *l, LLInDim in)
{
	for (int i = 0; i < l->n_in; i++)
		if (l->in_dim[i] == in)
			return i;
	return -1;
}

int ll_slot(LinearLayout *l, LLInDim in)
{
	int s = ll_find_slot(l, in);
	if (s >= 0 || l->n_in >= LL_MAX_IN)
		return s;
	s = l->n_in++;
	l->in_dim[s] = (uint8_t)in;
	l->in_bits[s] = 0;
	return s;
}

void ll_push_basis(LinearLayout *l, LLInDim in, const int32_t coords[])
{
	int s = ll_slot(l, in);
	if (s < 0 || l->in_bits[s] >= LL_MAX_BITS)
		return;
	int b = l->in_bits[s]++;
	for (int d = 0; d < l->n_out; d++) {
		l->basis[s][b][d] = coords[d];
		int need = bitlen32((uint32_t)coords[d]);
		if (need > l->out_bits[d])
			l->out_bits[d] = (uint8_t)need;
	}
}

void ll_strided_1d(LinearLayout *l, int size, int stride, LLInDim in, int out_dim, int n_out)
{
	ll_empty(l, n_out);
	ll_slot(l, in);
	int32_t c[LL_MAX_OUT] = {0};
	for (int v = 1; v < size; v <<= 1) {
		c[out_dim] = v * stride;
		ll_push_basis(l, in, c);
	}
	int need = ilog2((int64_t)size * stride);
	if (l->out_bits[out_dim] < need)
		l->out_bits[out_dim] = (uint8_t)need;
}

void ll_identity_1d(LinearLayout *l, int size, LLInDim in, int out_dim, int n_out)
{
	ll_strided_1d(l, size, 1, in, out_dim, n_out);
}

void ll_zeros_1d(LinearLayout *l, int size, LLInDim in, int n_out)
{
	ll_empty(l, n_out);
	int s = ll_slot(l, in);
	l->in_bits[s] = (uint8_t)ilog2(size);
}

void ll_product(const LinearLayout *a, const LinearLayout *b, LinearLayout *out)
{
	LinearLayout r = *a;
	int n_out = a->n_out > b->n_out ? a->n_out : b->n_out;
	for (int d = r.n_out; d < n_out; d++)
		r.out_bits[d] = 0;
	for (int i = 0; i < r.n_in; i++)
		for (int bit = 0; bit < r.in_bits[i]; bit++)
			for (int k = r.n_out; k < n_out; k++)
				r.basis[i][bit][k] = 0;
	r.n_out = (uint8_t)n_out;
	for (int i = 0; i < b->n_in; i++) {
		int s = ll_slot(&r, (LLInDim)b->in_dim[i]);
		if (s < 0)
			continue;
		for (int bit = 0; bit < b->in_bits[i] && r.in_bits[s] < LL_MAX_BITS; bit++) {
			int nb = r.in_bits[s]++;
			for (int d = 0; d < n_out; d++) {
				int32_t c = d < b->n_out ? b->basis[i][bit][d] : 0;
				int sh = d < a->n_out ? a->out_bits[d] : 0;
				r.basis[s][nb][d] = (int32_t)((uint32_t)c << sh);
			}
		}
	}
	for (int d = 0; d < n_out; d++) {
		int ab = d < a->n_out ? a->out_bits[d] : 0;
		int bb = d < b->n_out ? b->out_bits[d] : 0;
		r.out_bits[d] = (uint8_t)(ab + bb);
	}
	*out = r;
}

/* ---- evaluation and queries ---------------------------------------------- */

void ll_apply(const LinearLayout *l, const uint32_t in[LL_MAX_IN], int32_t out[LL_MAX_OUT])
{
	for (int d = 0; d < LL_MAX_OUT; d++)
		out[d] = 0;
	for (int i = 0; i < l->n_in; i++) {
		uint32_t x = in[i];
		for (int b = 0; b < l->in_bits[i] && x; b++, x >>= 1)
			if (x & 1)
				for (int d = 0; d < l->n_out; d++)
					out[d] ^= l->basis[i][b][d];
	}
}

void ll_apply_hw(const LinearLayout *l, uint32_t reg, uint32_t lane, uint32_t warp,
		 int32_t out[LL_MAX_OUT])
{
	uint32_t in[LL_MAX_IN] = {reg, lane, warp, 0};
	ll_apply(l, in, out);
}

bool ll_equal(const LinearLayout *a, const LinearLayout *b)
{
	if (a->n_in != b->n_in || a->n_out != b->n_out)
		return false;
	for (int d = 0; d < a->n_out; d++)
		if (a->out_bits[d] != b->out_bits[d])
			return false;
	for (int i = 0; i < a->n_in; i++) {
		if (a->in_dim[i] != b->in_dim[i] || a->in_bits[i] != b->in_bits[i])
			return false;
		for (int bit = 0; bit < a->in_bits[i]; bit++)
			for (int d = 0; d < a->n_out; d++)
				if (a->basis[i][bit][d] != b->basis[i][bit][d])
					return false;
	}
	return true;
}

bool ll_is_valid(const LinearLayout *l)
{
	if (l->n_in > LL_MAX_IN || l->n_out > LL_MAX_OUT)
		return false;
	for (int i = 0; i < l->n_in; i++) {
		if (l->in_bits[i] > LL_MAX_BITS)
			return false;
		for (int b = 0; b < l->in_bits[i]; b++)
			for (int d = 0; d < l->n_out; d++) {
				int32_t c = l->basis[i][b][d];
				if (c < 0 || (c >> l->out_bits[d]) != 0)
					return false;
			}
	}
	return true;
}

int ll_total_in_bits(const LinearLayout *l)
{
	int n = 0;
	for (int i = 0; i < l->n_in; i++)
		n += l->in_bits[i];
	return n;
}

int ll_total_out_bits(const LinearLayout *l)
{
	int n = 0;
	for (int d = 0; d < l->n_out; d++)
		n += l->out_bits[d];
	return n;
}

int ll_in_size(const LinearLayout *l, LLInDim in)
{
	int s = ll_find_slot(l, in);
	return s < 0 ? 1 : 1 << l->in_bits[s];
}

/* Pack coordinates (out dims of l) into one word: last dim in the low bits. */
static uint64_t pack_out(const LinearLayout *l, const int32_t c[])
{
	uint64_t v = 0;
	int sh = 0;
	for (int d = l->n_out - 1; d >= 0; d--) {
		v |= (uint64_t)(uint32_t)c[d] << sh;
		sh += l->out_bits[d];
	}
	return v;
}

/* Row-echelon form over GF(2), built column by column. piv[h] holds a vector
 * whose highest set bit is h and the input-bit combination producing it. */
typedef struct Echelon {
	uint64_t vec[64], combo[64];
	bool has[64];
} Echelon;

/* Reduce v (with combination *combo) by the pivots; returns the residue. */
static uint64_t ech_reduce(const Echelon *e, uint64_t v, uint64_t *combo)
{
	uint64_t residue = 0; /* set bits without a pivot: no lower pivot reaches them */
	while (v) {
		int h = 63 - __builtin_clzll(v);
		if (e->has[h]) {
			v ^= e->vec[h];
			*combo ^= e->combo[h];
		} else {
			residue |= (uint64_t)1 << h;
			v &= ~((uint64_t)1 << h);
		}
	}
	return residue;
}

/* Adds column `bit` with vector v; returns true if it was independent (a pivot). */
static bool ech_add(Echelon *e, uint64_t v, int bit)
{
	uint64_t combo = (uint64_t)1 << bit;
	v = ech_reduce(e, v, &combo);
	if (!v)
		return false;
	int h = 63;
	while (!((v >> h) & 1))
		h--;
	e->has[h] = true;
	e->vec[h] = v;
	e->combo[h] = combo;
	return true;
}

static bool fits_64(const LinearLayout *l)
{
	return ll_total_in_bits(l) <= 64 && ll_total_out_bits(l) <= 64;
}

/* Builds the echelon form of l's bases; fills per-slot free masks and the rank. */
static int ll_echelon(const LinearLayout *l, Echelon *e, uint32_t mask[LL_MAX_IN])
{
	memset(e, 0, sizeof *e);
	int rank = 0, col = 0;
	for (int i = 0; i < LL_MAX_IN; i++)
		mask[i] = 0;
	for (int i = 0; i < l->n_in; i++)
		for (int b = 0; b < l->in_bits[i]; b++, col++) {
			if (ech_add(e, pack_out(l, l->basis[i][b]), col))
				rank++;
			else
				mask[i] |= 1u << b;
		}
	return rank;
}

void ll_free_masks(const LinearLayout *l, uint32_t mask[LL_MAX_IN])
{
	Echelon e;
	if (!fits_64(l)) {
		for (int i = 0; i < LL_MAX_IN; i++)
			mask[i] = 0;
		return;
	}
	ll_echelon(l, &e, mask);
}

bool ll_is_surjective(const LinearLayout *l)
{
	Echelon e;
	uint32_t mask[LL_MAX_IN];
	if (!fits_64(l))
		return false;
	return ll_echelon(l, &e, mask) == ll_total_out_bits(l);
}

bool ll_is_injective(const LinearLayout *l)
{
	Echelon e;
	uint32_t mask[LL_MAX_IN];
	if (!fits_64(l))
		return false;
	return ll_echelon(l, &e, mask) == ll_total_in_bits(l);
}

int ll_num_contig_regs(const LinearLayout *l, int dim)
{
	int s = ll_find_slot(l, LL_REG);
	if (s < 0 || dim < 0 || dim >= l->n_out)
		return 1;
	int k = 0;
	for (; k < l->in_bits[s]; k++) {
		bool ok = true;
		for (int d = 0; d < l->n_out; d++)
			if (l->basis[s][k][d] != (d == dim ? 1 << k : 0))
				ok = false;
		if (!ok)
			break;
	}
	return 1 << k;
}

/* ---- composition ------------------------------------------------------------ */

bool ll_compose(const LinearLayout *inner, const LinearLayout *outer, LinearLayout *out)
{
	if (inner->n_out != outer->n_in)
		return false;
	for (int d = 0; d < inner->n_out; d++)
		if (inner->out_bits[d] > outer->in_bits[d])
			return false;
	LinearLayout r;
	ll_empty(&r, outer->n_out);
	r.n_in = inner->n_in;
	for (int i = 0; i < inner->n_in; i++) {
		r.in_dim[i] = inner->in_dim[i];
		r.in_bits[i] = inner->in_bits[i];
		for (int b = 0; b < inner->in_bits[i]; b++) {
			uint32_t x[LL_MAX_IN] = {0};
			for (int d = 0; d < inner->n_out; d++)
				x[d] = (uint32_t)inner->basis[i][b][d];
			ll_apply(outer, x, r.basis[i][b]);
		}
	}
	for (int d = 0; d < outer->n_out; d++)
		r.out_bits[d] = outer->out_bits[d];
	*out = r;
	return true;
}

/* Write the b-input combination `combo` as coordinates per b slot. */
static void unpack_combo(const LinearLayout *b, uint64_t combo, int32_t out[LL_MAX_OUT])
{
	int sh = 0;
	for (int d = 0; d < LL_MAX_OUT; d++)
		out[d] = 0;
	for (int i = 0; i < b->n_in; i++) {
		out[i] = (int32_t)((combo >> sh) & ((1ull << b->in_bits[i]) - 1));
		sh += b->in_bits[i];
	}
}

bool ll_invert_and_compose(const LinearLayout *a, const LinearLayout *b, LinearLayout *out)
{
	if (!fits_64(b) || a->n_out > b->n_out)
		return false;
	Echelon e;
	uint32_t bfree[LL_MAX_IN];
	ll_echelon(b, &e, bfree);
	LinearLayout r;
	ll_empty(&r, b->n_in);
	r.n_in = a->n_in;
	for (int d = 0; d < b->n_in; d++)
		r.out_bits[d] = b->in_bits[d];
	for (int i = 0; i < a->n_in; i++) {
		r.in_dim[i] = a->in_dim[i];
		r.in_bits[i] = a->in_bits[i];
		int bs = ll_find_slot(b, (LLInDim)a->in_dim[i]);
		for (int k = 0; k < a->in_bits[i]; k++) {
			int32_t c[LL_MAX_OUT] = {0};
			bool zero = true;
			for (int d = 0; d < a->n_out; d++) {
				c[d] = a->basis[i][k][d];
				if (c[d] < 0 || (d < b->n_out && (c[d] >> b->out_bits[d])))
					return false;
				zero &= c[d] == 0;
			}
			if (zero) {
				bool bzero = bs >= 0 && k < b->in_bits[bs];
				for (int d = 0; bzero && d < b->n_out; d++)
					bzero = b->basis[bs][k][d] == 0;
				if (bzero)
					r.basis[i][k][bs] = 1 << k;
				continue;
			}
			uint64_t combo = 0;
			if (ech_reduce(&e, pack_out(b, c), &combo))
				return false;
			unpack_combo(b, combo, r.basis[i][k]);
		}
	}
	*out = r;
	return true;
}

/* ---- printing ---------------------------------------------------------------- */

static const char *in_name(int k)
{
	switch (k) {
	case LL_REG: return "register";
	case LL_LANE: return "lane";
	case LL_WARP: return "warp";
	case LL_BLOCK: return "block";
	case LL_OFFSET: return "offset";
	}
	return "?";
}

typedef struct Out {
	char *buf;
	size_t n, len;
} Out;

static void out_s(Out *o, const char *s)
{
	for (; *s; s++, o->len++)
		if (o->len + 1 < o->n)
			o->buf[o->len] = *s;
	if (o->n)
		o->buf[o->len < o->n ? o->len : o->n - 1] = 0;
}

static void out_d(Out *o, long v)
{
	char t[24];
	snprintf(t, sizeof t, "%ld", v);
	out_s(o, t);
}

static void print_bases(Out *o, const LinearLayout *l)
{
	for (int i = 0; i < l->n_in; i++) {
		if (i)
			out_s(o, ", ");
		out_s(o, in_name(l->in_dim[i]));
		out_s(o, "=[");
		for (int b = 0; b < l->in_bits[i]; b++) {
			out_s(o, b ? ", [" : "[");
			for (int d = 0; d < l->n_out; d++) {
				if (d)
					out_s(o, ", ");
				out_d(o, l->basis[i][b][d]);
			}
			out_s(o, "]");
		}
		out_s(o, "]");
	}
}

int ll_print(const LinearLayout *l, char *buf, size_t n)
{
	Out o = {buf, n, 0};
	if (n)
		buf[0] = 0;
	out_s(&o, "#ttg.linear<{");
	print_bases(&o, l);
	out_s(&o, "}>");
	return (int)o.len;
}

int ll_print_shape(const LinearLayout *l, char *buf, size_t n)
{
	Out o = {buf, n, 0};
	if (n)
		buf[0] = 0;
	out_s(&o, "[");
	for (int d = 0; d < l->n_out; d++) {
		if (d)
			out_s(&o, "x");
		out_d(&o, 1L << l->out_bits[d]);
	}
	out_s(&o, "] ");
	print_bases(&o, l);
	return (int)o.len;
}

void ll_fprint(const LinearLayout *l, FILE *f)
{
	char buf[4096];
	ll_print(l, buf, sizeof buf);
	fputs(buf, f);
}
