/* test_layout.c: LinearLayout algebra and constructors, checked against
 * brute-force enumeration and the formulas they encode. */
#include "layout/linear.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                          \
	do {                                                                       \
		checks++;                                                          \
		if (!(cond)) {                                                     \
			failures++;                                                \
			if (failures < 40) {                                       \
				fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
					__LINE__, #cond);                          \
				fprintf(stderr, __VA_ARGS__);                      \
				fputc('\n', stderr);                               \
			}                                                          \
		}                                                                  \
	} while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (uint32_t)(rng_state % n) : 0;
}

static void show(const char *what, const LinearLayout *l)
{
	char buf[2048];
	ll_print_shape(l, buf, sizeof buf);
	fprintf(stderr, "  %s: %s\n", what, buf);
}

/* ---- reference evaluation (independent of ll_apply) ------------------------ */

/* Split a flat input index into per-slot values (slot 0 lowest). */
static void split_in(const LinearLayout *l, uint64_t flat, uint32_t in[LL_MAX_IN])
{
	for (int i = 0; i < LL_MAX_IN; i++)
		in[i] = 0;
	for (int i = 0; i < l->n_in; i++) {
		in[i] = (uint32_t)(flat & ((1ull << l->in_bits[i]) - 1));
		flat >>= l->in_bits[i];
	}
}

static void ref_apply(const LinearLayout *l, uint64_t flat, int32_t out[LL_MAX_OUT])
{
	memset(out, 0, sizeof(int32_t) * LL_MAX_OUT);
	int bit = 0;
	for (int i = 0; i < l->n_in; i++)
		for (int b = 0; b < l->in_bits[i]; b++, bit++)
			if ((flat >> bit) & 1)
				for (int d = 0; d < l->n_out; d++)
					out[d] ^= l->basis[i][b][d];
}

static bool same_out(const int32_t a[], const int32_t b[], int n)
{
	for (int d = 0; d < n; d++)
		if (a[d] != b[d])
			return false;
	return true;
}

static uint64_t flat_out(const LinearLayout *l, const int32_t c[])
{
	uint64_t v = 0;
	for (int d = 0; d < l->n_out; d++)
		v = (v << l->out_bits[d]) | (uint32_t)c[d];
	return v;
}

static void random_layout(LinearLayout *l, int max_total_in, int n_out, bool hw)
{
	if (hw) {
		ll_init_hw(l, n_out);
	} else {
		ll_empty(l, n_out);
		int n = 1 + (int)rnd(3);
		for (int i = 0; i < n; i++)
			ll_slot(l, (LLInDim)i);
	}
	for (int d = 0; d < n_out; d++)
		l->out_bits[d] = (uint8_t)rnd(4);
	int budget = max_total_in;
	for (int i = 0; i < l->n_in; i++) {
		int b = (int)rnd((uint32_t)(budget < 5 ? budget + 1 : 5));
		budget -= b;
		l->in_bits[i] = (uint8_t)b;
		for (int k = 0; k < b; k++)
			for (int d = 0; d < n_out; d++) {
				int32_t v = (int32_t)rnd(1u << l->out_bits[d]);
				if (rnd(4) == 0)
					v = 0;
				l->basis[i][k][d] = v;
			}
	}
}

/* ---- algebra ------------------------------------------------------------------ */

static void test_apply_random(void)
{
	for (int t = 0; t < 200; t++) {
		LinearLayout l;
		random_layout(&l, 12, 1 + (int)rnd(4), t & 1);
		uint64_t n = 1ull << ll_total_in_bits(&l);
		for (uint64_t x = 0; x < n; x++) {
			uint32_t in[LL_MAX_IN];
			int32_t a[LL_MAX_OUT], b[LL_MAX_OUT];
			split_in(&l, x, in);
			ll_apply(&l, in, a);
			ref_apply(&l, x, b);
			CHECK(same_out(a, b, l.n_out), "apply mismatch at %llu", (unsigned long long)x);
			if (l.n_in == 3 && l.in_dim[0] == LL_REG) {
				int32_t c[LL_MAX_OUT];
				ll_apply_hw(&l, in[0], in[1], in[2], c);
				CHECK(same_out(a, c, l.n_out), "apply_hw mismatch");
			}
		}
		CHECK(ll_is_valid(&l), "random layout valid");
	}
}

static void test_builders(void)
{
	LinearLayout a, b, p, id8;
	ll_identity_1d(&a, 4, LL_REG, 0, 1);
	ll_identity_1d(&b, 2, LL_REG, 0, 1);
	ll_product(&a, &b, &p);
	ll_identity_1d(&id8, 8, LL_REG, 0, 1);
	CHECK(ll_equal(&p, &id8), "identity(4)*identity(2) == identity(8)");
	ll_empty(&a, 1);
	ll_product(&a, &id8, &p);
	CHECK(ll_equal(&p, &id8), "empty is the identity of product (left)");
	ll_product(&id8, &a, &p);
	CHECK(ll_equal(&p, &id8), "empty is the identity of product (right)");
	/* product with disjoint out dims: (x, y) independent */
	ll_identity_1d(&a, 4, LL_REG, 1, 2);
	ll_identity_1d(&b, 8, LL_LANE, 0, 2);
	ll_product(&a, &b, &p);
	for (uint32_t r = 0; r < 4; r++)
		for (uint32_t l = 0; l < 8; l++) {
			uint32_t in[LL_MAX_IN] = {r, l, 0, 0};
			int32_t o[LL_MAX_OUT];
			ll_apply(&p, in, o);
			CHECK(o[0] == (int32_t)l && o[1] == (int32_t)r, "product 2d");
		}
	ll_strided_1d(&a, 4, 2, LL_LANE, 0, 1);
	CHECK(a.out_bits[0] == 3 && a.basis[0][1][0] == 4, "strided");
	ll_zeros_1d(&a, 8, LL_WARP, 2);
	CHECK(a.in_bits[0] == 3 && a.basis[0][2][1] == 0 && ll_total_out_bits(&a) == 0, "zeros");
	/* associativity on random layouts */
	for (int t = 0; t < 50; t++) {
		LinearLayout x, y, z, xy, yz, l1, l2;
		random_layout(&x, 5, 2, true);
		random_layout(&y, 5, 2, true);
		random_layout(&z, 5, 2, true);
		ll_product(&x, &y, &xy);
		ll_product(&xy, &z, &l1);
		ll_product(&y, &z, &yz);
		ll_product(&x, &yz, &l2);
		CHECK(ll_equal(&l1, &l2), "product associative");
	}
}

static void test_compose(void)
{
	for (int t = 0; t < 100; t++) {
		LinearLayout inner, outer, c;
		random_layout(&outer, 12, 1 + (int)rnd(3), false);
		/* inner: outputs = outer's inputs */
		ll_empty(&inner, outer.n_in);
		ll_slot(&inner, LL_REG);
		ll_slot(&inner, LL_LANE);
		for (int d = 0; d < outer.n_in; d++)
			inner.out_bits[d] = outer.in_bits[d];
		for (int i = 0; i < 2; i++) {
			inner.in_bits[i] = (uint8_t)rnd(5);
			for (int b = 0; b < inner.in_bits[i]; b++)
				for (int d = 0; d < inner.n_out; d++)
					inner.basis[i][b][d] = (int32_t)rnd(1u << inner.out_bits[d]);
		}
		CHECK(ll_compose(&inner, &outer, &c), "compose ok");
		uint64_t n = 1ull << ll_total_in_bits(&inner);
		for (uint64_t x = 0; x < n; x++) {
			int32_t mid[LL_MAX_OUT], o1[LL_MAX_OUT], o2[LL_MAX_OUT];
			uint32_t in[LL_MAX_IN];
			ref_apply(&inner, x, mid);
			uint32_t m[LL_MAX_IN] = {0};
			for (int d = 0; d < inner.n_out; d++)
				m[d] = (uint32_t)mid[d];
			ll_apply(&outer, m, o1);
			split_in(&c, x, in);
			ll_apply(&c, in, o2);
			CHECK(same_out(o1, o2, outer.n_out), "compose mismatch");
		}
	}
}

/* Brute-force rank / free bits. */
static void brute_free(const LinearLayout *l, uint32_t mask[LL_MAX_IN], int *rank)
{
	/* span of the bases seen so far, as a set of flat outputs */
	int tb = ll_total_out_bits(l);
	char *span = calloc((size_t)1 << tb, 1);
	span[0] = 1;
	*rank = 0;
	for (int i = 0; i < LL_MAX_IN; i++)
		mask[i] = 0;
	for (int i = 0; i < l->n_in; i++)
		for (int b = 0; b < l->in_bits[i]; b++) {
			uint64_t v = flat_out(l, l->basis[i][b]);
			if (span[v]) {
				mask[i] |= 1u << b;
				continue;
			}
			(*rank)++;
			for (uint64_t s = 0; s < (1ull << tb); s++)
				if (span[s] == 1)
					span[s ^ v] = 2;
			for (uint64_t s = 0; s < (1ull << tb); s++)
				if (span[s])
					span[s] = 1;
		}
	free(span);
}

static void test_free_masks(void)
{
	for (int t = 0; t < 300; t++) {
		LinearLayout l;
		random_layout(&l, 14, 1 + (int)rnd(3), t & 1);
		uint32_t m1[LL_MAX_IN], m2[LL_MAX_IN];
		int rank;
		ll_free_masks(&l, m1);
		brute_free(&l, m2, &rank);
		for (int i = 0; i < l.n_in; i++)
			CHECK(m1[i] == m2[i], "free mask slot %d: %x vs %x", i, m1[i], m2[i]);
		/* zero bases: flipping the bit never changes the output */
		for (int i = 0; i < l.n_in; i++)
			for (int b = 0; b < l.in_bits[i]; b++) {
				bool zero = true;
				for (int d = 0; d < l.n_out; d++)
					zero &= l.basis[i][b][d] == 0;
				if (zero)
					CHECK((m1[i] >> b) & 1, "zero basis is free");
			}
		/* surjective / injective vs counting distinct outputs */
		int tb = ll_total_out_bits(&l);
		char *seen = calloc((size_t)1 << tb, 1);
		uint64_t n = 1ull << ll_total_in_bits(&l), distinct = 0;
		for (uint64_t x = 0; x < n; x++) {
			int32_t o[LL_MAX_OUT];
			ref_apply(&l, x, o);
			uint64_t f = flat_out(&l, o);
			if (!seen[f]) {
				seen[f] = 1;
				distinct++;
			}
		}
		free(seen);
		CHECK(ll_is_surjective(&l) == (distinct == (1ull << tb)), "surjective");
		CHECK(ll_is_injective(&l) == (distinct == n), "injective");
		CHECK(distinct == (1ull << rank), "rank");
	}
}

/* A random surjective layout: a random invertible part plus random extras. */
static void random_surjective(LinearLayout *b, int n_out)
{
	for (;;) {
		random_layout(b, 14, n_out, true);
		if (ll_is_surjective(b))
			return;
		/* append identity bases for every out bit into random slots */
		for (int d = 0; d < n_out; d++)
			for (int k = 0; k < b->out_bits[d]; k++) {
				int s = (int)rnd(3);
				if (b->in_bits[s] >= 8)
					continue;
				int32_t c[LL_MAX_OUT] = {0};
				c[d] = 1 << k;
				int nb = b->in_bits[s]++;
				memcpy(b->basis[s][nb], c, sizeof c);
			}
		if (ll_is_surjective(b) && ll_total_in_bits(b) <= 16)
			return;
	}
}

static void test_invert_and_compose(void)
{
	for (int t = 0; t < 300; t++) {
		LinearLayout a, b, c;
		int n_out = 1 + (int)rnd(3);
		random_surjective(&b, n_out);
		random_layout(&a, 10, n_out, true);
		for (int d = 0; d < n_out; d++)
			a.out_bits[d] = b.out_bits[d];
		for (int i = 0; i < a.n_in; i++)
			for (int k = 0; k < a.in_bits[i]; k++)
				for (int d = 0; d < n_out; d++)
					a.basis[i][k][d] = (int32_t)rnd(1u << a.out_bits[d]) * (rnd(5) != 0);
		bool ok = ll_invert_and_compose(&a, &b, &c);
		CHECK(ok, "invert_and_compose on surjective b");
		if (!ok)
			continue;
		CHECK(c.n_out == b.n_in, "C outs = b ins");
		for (int d = 0; d < b.n_in; d++)
			CHECK(c.out_bits[d] == b.in_bits[d], "C out bits");
		uint64_t n = 1ull << ll_total_in_bits(&a);
		for (uint64_t x = 0; x < n; x++) {
			int32_t oa[LL_MAX_OUT], mid[LL_MAX_OUT], ob[LL_MAX_OUT];
			uint32_t in[LL_MAX_IN];
			ref_apply(&a, x, oa);
			split_in(&c, x, in);
			ll_apply(&c, in, mid);
			uint32_t m[LL_MAX_IN] = {0};
			for (int d = 0; d < b.n_in; d++)
				m[d] = (uint32_t)mid[d];
			ll_apply(&b, m, ob);
			CHECK(same_out(oa, ob, n_out), "a(x) != b(C(x)) at %llu", (unsigned long long)x);
		}
		/* smallest preimage for every non-zero basis of a */
		uint64_t nb = 1ull << ll_total_in_bits(&b);
		for (int i = 0; i < a.n_in; i++)
			for (int k = 0; k < a.in_bits[i]; k++) {
				bool zero = true;
				for (int d = 0; d < n_out; d++)
					zero &= a.basis[i][k][d] == 0;
				if (zero)
					continue;
				uint64_t best = ~0ull;
				for (uint64_t y = 0; y < nb && best == ~0ull; y++) {
					int32_t o[LL_MAX_OUT];
					ref_apply(&b, y, o);
					if (same_out(o, a.basis[i][k], n_out))
						best = y;
				}
				uint64_t got = 0;
				int sh = 0;
				for (int d = 0; d < b.n_in; d++) {
					got |= (uint64_t)(uint32_t)c.basis[i][k][d] << sh;
					sh += b.in_bits[d];
				}
				CHECK(got == best, "smallest preimage: %llu vs %llu",
				      (unsigned long long)got, (unsigned long long)best);
			}
	}
	/* not in the image */
	LinearLayout a, b, c;
	ll_identity_1d(&a, 8, LL_REG, 0, 1);
	ll_strided_1d(&b, 4, 2, LL_REG, 0, 1);
	CHECK(!ll_invert_and_compose(&a, &b, &c), "odd coordinates are outside b's image");
}

static void test_contig(void)
{
	int32_t shape[2] = {16, 64}, spt[2] = {1, 4}, tpw[2] = {4, 8}, wpc[2] = {4, 1};
	int32_t order[2] = {1, 0};
	LinearLayout l;
	ll_blocked(&l, 2, shape, spt, tpw, wpc, order);
	CHECK(ll_num_contig_regs(&l, 1) == 4, "blocked spt 4: %d", ll_num_contig_regs(&l, 1));
	CHECK(ll_num_contig_regs(&l, 0) == 1, "blocked along dim0");
	/* brute force: v registers map to consecutive elements */
	for (int t = 0; t < 200; t++) {
		LinearLayout r;
		random_layout(&r, 8, 2, true);
		for (int d = 0; d < 2; d++) {
			int v = ll_num_contig_regs(&r, d), best = 1;
			for (int cand = 2; cand <= (1 << r.in_bits[0]); cand <<= 1) {
				bool ok = true;
				for (int x = 0; x < cand; x++) {
					int32_t o[LL_MAX_OUT];
					ll_apply_hw(&r, (uint32_t)x, 0, 0, o);
					ok &= o[d] == x && o[1 - d] == 0;
				}
				if (ok)
					best = cand;
				else
					break;
			}
			CHECK(v == best, "contig regs %d vs %d", v, best);
		}
	}
}

/* ---- constructors ------------------------------------------------------------- */

static bool basis_is(const LinearLayout *l, int slot, int b, int32_t d0, int32_t d1)
{
	return l->basis[slot][b][0] == d0 && l->basis[slot][b][1] == d1;
}

static void test_blocked_example(void)
{
	int32_t shape[2] = {16, 16}, spt[2] = {2, 2}, tpw[2] = {8, 4}, wpc[2] = {1, 2};
	int32_t order[2] = {1, 0};
	LinearLayout l;
	ll_blocked(&l, 2, shape, spt, tpw, wpc, order);
	CHECK(l.in_bits[0] == 2 && l.in_bits[1] == 5 && l.in_bits[2] == 1, "bits");
	CHECK(basis_is(&l, 0, 0, 0, 1) && basis_is(&l, 0, 1, 1, 0), "register bases");
	CHECK(basis_is(&l, 1, 0, 0, 2) && basis_is(&l, 1, 1, 0, 4) && basis_is(&l, 1, 2, 2, 0) &&
		      basis_is(&l, 1, 3, 4, 0) && basis_is(&l, 1, 4, 8, 0),
	      "lane bases");
	CHECK(basis_is(&l, 2, 0, 0, 8), "warp basis");
	char buf[512];
	ll_print(&l, buf, sizeof buf);
	CHECK(!strcmp(buf, "#ttg.linear<{register=[[0, 1], [1, 0]], lane=[[0, 2], [0, 4], [2, 0], "
			   "[4, 0], [8, 0]], warp=[[0, 8]]}>"),
	      "print: %s", buf);
	int n = ll_print(&l, buf, 10);
	CHECK(n > 10 && strlen(buf) == 9, "print truncates safely");
	/* who holds each element: thread = lane + 32 * warp */
	int owner[16][16];
	memset(owner, -1, sizeof owner);
	for (uint32_t w = 0; w < 2; w++)
		for (uint32_t ln = 0; ln < 32; ln++)
			for (uint32_t r = 0; r < 4; r++) {
				int32_t o[LL_MAX_OUT];
				ll_apply_hw(&l, r, ln, w, o);
				CHECK(owner[o[0]][o[1]] == -1, "injective");
				owner[o[0]][o[1]] = (int)(ln + 32 * w);
			}
	static const int row0[16] = {0, 0, 1, 1, 2, 2, 3, 3, 32, 32, 33, 33, 34, 34, 35, 35};
	static const int row2[9] = {4, 4, 5, 5, 6, 6, 7, 7, 36};
	for (int c = 0; c < 16; c++)
		CHECK(owner[0][c] == row0[c] && owner[1][c] == row0[c], "row 0/1 col %d: %d", c,
		      owner[0][c]);
	for (int c = 0; c < 9; c++)
		CHECK(owner[2][c] == row2[c], "row 2 col %d: %d", c, owner[2][c]);

	/* the same layout on 8x16: lane basis (8,0) becomes (0,0) */
	int32_t small[2] = {8, 16};
	ll_blocked(&l, 2, small, spt, tpw, wpc, order);
	CHECK(basis_is(&l, 1, 4, 0, 0) && l.out_bits[0] == 3, "broadcast lane basis");
	uint32_t m[LL_MAX_IN];
	ll_free_masks(&l, m);
	CHECK(m[0] == 0 && m[1] == 0x10 && m[2] == 0, "free masks %x %x %x", m[0], m[1], m[2]);
	CHECK(ll_is_surjective(&l) && !ll_is_injective(&l), "8x16 surjective, not injective");

	/* bigger than the tile: extra registers repeat it, in order (dim 1 first) */
	int32_t big[2] = {32, 32};
	ll_blocked(&l, 2, big, spt, tpw, wpc, order);
	CHECK(l.in_bits[0] == 4 && basis_is(&l, 0, 2, 0, 16) && basis_is(&l, 0, 3, 16, 0),
	      "repeat bases");
	CHECK(ll_is_surjective(&l) && ll_is_injective(&l), "32x32 bijective");
}

static void test_default_blocked(void)
{
	int32_t spt[4], tpw[4], wpc[4], order[4];
	int32_t s1[2] = {64, 64};
	ll_default_blocked_params(2, s1, 4, 32, 4, spt, tpw, wpc, order);
	CHECK(spt[0] == 1 && spt[1] == 4 && tpw[0] == 2 && tpw[1] == 16 && wpc[0] == 4 &&
		      wpc[1] == 1 && order[0] == 1 && order[1] == 0,
	      "64x64 vec4: spt %d,%d tpw %d,%d wpc %d,%d", spt[0], spt[1], tpw[0], tpw[1], wpc[0],
	      wpc[1]);
	int32_t s2[1] = {1024};
	ll_default_blocked_params(1, s2, 4, 32, 4, spt, tpw, wpc, order);
	CHECK(spt[0] == 4 && tpw[0] == 32 && wpc[0] == 4, "1d");
	int32_t s3[2] = {128, 16};
	ll_default_blocked_params(2, s3, 8, 32, 8, spt, tpw, wpc, order);
	CHECK(spt[1] == 8 && tpw[1] == 2 && tpw[0] == 16 && wpc[0] == 8 && wpc[1] == 1,
	      "128x16 vec8");
	/* every default layout covers its tensor */
	int32_t shapes[][3] = {{1, 16, 0}, {2, 8, 0}, {64, 1, 0}, {1, 1, 0}, {16, 256, 0},
			       {4, 4, 4}, {2, 64, 32}, {256, 128, 0}};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		int rank = shapes[i][2] ? 3 : 2;
		for (int warps = 1; warps <= 8; warps <<= 1)
			for (int vec = 1; vec <= 8; vec <<= 1) {
				LinearLayout l;
				ll_default_blocked(&l, rank, shapes[i], warps, 32, vec);
				CHECK(ll_is_surjective(&l) && ll_is_valid(&l), "default covers shape %zu",
				      i);
				for (int d = 0; d < rank; d++)
					CHECK((1 << l.out_bits[d]) == shapes[i][d], "out dims");
				CHECK(l.in_bits[1] == 5 && (1 << l.in_bits[2]) == warps, "hw sizes");
			}
	}
	/* CPU-style: 8 lanes, 1 warp */
	LinearLayout l;
	int32_t s4[2] = {16, 16};
	ll_default_blocked(&l, 2, s4, 1, 8, 1);
	CHECK(l.in_bits[1] == 3 && l.in_bits[2] == 0 && ll_is_injective(&l) && ll_is_surjective(&l),
	      "cpu lanes");
	CHECK(l.basis[1][0][1] == 1 && l.basis[1][2][1] == 4, "cpu lanes along the fast dim");
}

static void test_mma_acc(void)
{
	int32_t shapes[][2] = {{16, 8}, {64, 64}, {128, 32}, {16, 16}, {32, 8}};
	int32_t warps[][2] = {{1, 1}, {2, 2}, {4, 1}, {1, 4}, {2, 1}};
	for (size_t si = 0; si < 5; si++)
		for (size_t wi = 0; wi < 5; wi++) {
			LinearLayout l;
			const int32_t *sh = shapes[si], *wp = warps[wi];
			ll_mma_acc(&l, 2, sh, wp);
			/* tile per warp 16x8, warps tile the block, block repeated */
			int tm = 16 * wp[0], tn = 8 * wp[1];
			int rep_m = sh[0] > tm ? sh[0] / tm : 1, rep_n = sh[1] > tn ? sh[1] / tn : 1;
			int nregs = 4 * rep_m * rep_n;
			CHECK((1 << l.in_bits[0]) == nregs, "acc regs %d vs %d", 1 << l.in_bits[0], nregs);
			for (int w = 0; w < wp[0] * wp[1]; w++)
				for (int ln = 0; ln < 32; ln++)
					for (int r = 0; r < nregs; r++) {
						int i = r & 3, rest = r >> 2;
						int rn = rest % rep_n, rm = rest / rep_n;
						int wn = w % wp[1], wm = w / wp[1];
						int row = rm * tm + wm * 16 + ln / 4 + 8 * (i >> 1);
						int col = rn * tn + wn * 8 + 2 * (ln % 4) + (i & 1);
						row %= sh[0];
						col %= sh[1];
						int32_t o[LL_MAX_OUT];
						ll_apply_hw(&l, (uint32_t)r, (uint32_t)ln, (uint32_t)w, o);
						CHECK(o[0] == row && o[1] == col,
						      "acc %zu/%zu r%d l%d w%d: (%d,%d) vs (%d,%d)", si, wi,
						      r, ln, w, o[0], o[1], row, col);
					}
		}
}

/* The PTX fragment formulas for one warp tile (i = fragment element index). */
static void ptx_a(int elem_bits, int lane, int i, int *row, int *col)
{
	int g = lane >> 2, t = lane & 3;
	if (elem_bits == 16) { /* m16n8k16 a0..a7 */
		*row = g + ((i & 2) ? 8 : 0);
		*col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
	} else if (elem_bits == 32) { /* m16n8k8 tf32 a0..a3 */
		*row = g + ((i & 1) ? 8 : 0);
		*col = t + ((i & 2) ? 4 : 0);
	} else { /* m16n8k32 s8 a0..a15 */
		*row = g + (((i >> 2) & 1) ? 8 : 0);
		*col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
	}
}

static void ptx_b(int elem_bits, int lane, int i, int *row, int *col)
{
	int g = lane >> 2, t = lane & 3;
	*col = g;
	if (elem_bits == 16) /* b0..b3 */
		*row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);
	else if (elem_bits == 32) /* b0..b1 */
		*row = t + (i ? 4 : 0);
	else /* b0..b7 */
		*row = t * 4 + (i & 3) + (i >= 4 ? 16 : 0);
}

static void test_mma_operands(void)
{
	static const int bits[3] = {16, 32, 8};
	int32_t warps[][2] = {{1, 1}, {2, 2}, {4, 1}, {1, 4}};
	for (int bi = 0; bi < 3; bi++) {
		int eb = bits[bi], kw = 32 / eb, ktile = 8 * kw;
		int nfrag_a = 4 * kw / 1, nfrag_b = 2 * kw;
		if (eb == 32)
			nfrag_a = 4, nfrag_b = 2;
		for (size_t wi = 0; wi < 4; wi++) {
			const int32_t *wp = warps[wi];
			/* A: [M, K] */
			int32_t sa[2] = {16 * wp[0] * 2, ktile * 2};
			LinearLayout l;
			ll_mma_operand(&l, 0, 2, sa, wp, eb);
			int rep_k = 2, rep_m = 2, nregs = nfrag_a * rep_k * rep_m;
			CHECK((1 << l.in_bits[0]) == nregs, "A regs %d vs %d", 1 << l.in_bits[0], nregs);
			for (int w = 0; w < wp[0] * wp[1]; w++)
				for (int ln = 0; ln < 32; ln++)
					for (int r = 0; r < nregs; r++) {
						int i = r % nfrag_a, rest = r / nfrag_a;
						int rk = rest % rep_k, rm = rest / rep_k;
						int wm = w / wp[1];
						int row, col;
						ptx_a(eb, ln, i, &row, &col);
						row += wm * 16 + rm * 16 * wp[0];
						col += rk * ktile;
						int32_t o[LL_MAX_OUT];
						ll_apply_hw(&l, (uint32_t)r, (uint32_t)ln, (uint32_t)w, o);
						CHECK(o[0] == row && o[1] == col,
						      "A%d r%d l%d w%d: (%d,%d) vs (%d,%d)", eb, r, ln, w, o[0],
						      o[1], row, col);
					}
			/* B: [K, N] */
			int32_t sb[2] = {ktile * 2, 8 * wp[1] * 2};
			ll_mma_operand(&l, 1, 2, sb, wp, eb);
			int rep_n = 2;
			nregs = nfrag_b * rep_k * rep_n;
			CHECK((1 << l.in_bits[0]) == nregs, "B regs %d vs %d", 1 << l.in_bits[0], nregs);
			for (int w = 0; w < wp[0] * wp[1]; w++)
				for (int ln = 0; ln < 32; ln++)
					for (int r = 0; r < nregs; r++) {
						int i = r % nfrag_b, rest = r / nfrag_b;
						int rk = rest % rep_k, rn = rest / rep_k;
						int wn = w % wp[1];
						int row, col;
						ptx_b(eb, ln, i, &row, &col);
						row += rk * ktile;
						col += wn * 8 + rn * 8 * wp[1];
						int32_t o[LL_MAX_OUT];
						ll_apply_hw(&l, (uint32_t)r, (uint32_t)ln, (uint32_t)w, o);
						CHECK(o[0] == row && o[1] == col,
						      "B%d r%d l%d w%d: (%d,%d) vs (%d,%d)", eb, r, ln, w, o[0],
						      o[1], row, col);
					}
		}
	}
}

static void test_swizzle(void)
{
	int32_t order[2] = {1, 0};
	int params[][3] = {{1, 1, 1}, {8, 1, 8}, {4, 2, 4}, {2, 1, 8}, {1, 1, 32}, {8, 4, 2}};
	int32_t shapes[][2] = {{32, 64}, {64, 32}, {16, 128}};
	for (size_t si = 0; si < 3; si++)
		for (size_t pi = 0; pi < 6; pi++) {
			const int32_t *sh = shapes[si];
			int vec = params[pi][0], pp = params[pi][1], mp = params[pi][2];
			LinearLayout l;
			ll_swizzled_shared(&l, 2, sh, vec, pp, mp, order);
			CHECK(ll_is_injective(&l) && ll_is_surjective(&l), "swizzle bijective");
			int cols = sh[1];
			for (int off = 0; off < sh[0] * sh[1]; off++) {
				uint32_t in[LL_MAX_IN] = {(uint32_t)off, 0, 0, 0};
				int32_t o[LL_MAX_OUT];
				ll_apply(&l, in, o);
				int r = o[0], c = o[1];
				int phase = (r / pp) % mp;
				int stored = ((((c / vec) ^ phase) * vec) % cols) + c % vec;
				CHECK(off == r * cols + stored, "swizzle offset %d: (%d,%d)", off, r, c);
			}
		}
	/* column-major order and rank 3 */
	int32_t o2[3] = {0, 1, 2}, s3[3] = {2, 8, 4};
	LinearLayout l;
	ll_swizzled_shared(&l, 3, s3, 1, 1, 1, o2);
	for (int off = 0; off < 64; off++) {
		uint32_t in[LL_MAX_IN] = {(uint32_t)off, 0, 0, 0};
		int32_t o[LL_MAX_OUT];
		ll_apply(&l, in, o);
		CHECK(off == o[0] + 2 * o[1] + 16 * o[2], "column-major offset");
	}
}

static void test_padded(void)
{
	PaddedShared p = {1, {64}, {8}};
	for (int r = 0; r < 128; r++)
		for (int c = 0; c < 64; c++)
			CHECK(ll_padded_offset(&p, 64 * r + c) == 72 * r + c, "padded (%d,%d)", r, c);
	CHECK(ll_padded_size(&p, 128 * 64) == 127 * 72 + 64, "padded size");
	PaddedShared q = {2, {128, 256}, {8, 4}};
	CHECK(ll_padded_offset(&q, 300) == 300 + 2 * 8 + 1 * 4, "two paddings");
	CHECK(ll_padded_offset(NULL, 77) == 77, "no padding");
}

/* ---- structural edits ---------------------------------------------------- */

/* Elements held by (lane, warp): bitmap over the tensor. */
static void held(const LinearLayout *l, uint32_t lane, uint32_t warp, char *bm)
{
	memset(bm, 0, (size_t)1 << ll_total_out_bits(l));
	for (uint32_t r = 0; r < (1u << l->in_bits[0]); r++) {
		int32_t o[LL_MAX_OUT];
		ll_apply_hw(l, r, lane, warp, o);
		bm[flat_out(l, o)] = 1;
	}
}

static void test_slice_expand_broadcast(void)
{
	int32_t shape[2] = {32, 64};
	for (int vec = 1; vec <= 4; vec <<= 1) {
		LinearLayout p;
		ll_default_blocked(&p, 2, shape, 4, 32, vec);
		for (int axis = 0; axis < 2; axis++) {
			LinearLayout s, e, b;
			ll_slice(&s, &p, axis);
			CHECK(s.n_out == 1 && s.out_bits[0] == p.out_bits[1 - axis], "slice dims");
			/* each (lane, warp) holds exactly the projection of its parent elements */
			char bm1[64], bm2[64];
			for (uint32_t w = 0; w < 4; w++)
				for (uint32_t ln = 0; ln < 32; ln++) {
					held(&s, ln, w, bm1);
					memset(bm2, 0, sizeof bm2);
					for (uint32_t r = 0; r < (1u << p.in_bits[0]); r++) {
						int32_t o[LL_MAX_OUT];
						ll_apply_hw(&p, r, ln, w, o);
						bm2[o[1 - axis]] = 1;
					}
					CHECK(!memcmp(bm1, bm2, (size_t)1 << s.out_bits[0]),
					      "slice holds projection");
				}
			/* no duplicate registers inside a thread that the parent did not have */
			uint32_t m[LL_MAX_IN];
			ll_free_masks(&s, m);
			CHECK(m[0] == 0, "slice: registers not duplicated (mask %x)", m[0]);
			ll_expand_dims(&e, &s, axis);
			int32_t src_shape[2] = {shape[0], shape[1]};
			src_shape[axis] = 1;
			CHECK(ll_broadcast_source(&b, &p, 2, src_shape), "broadcast source");
			CHECK(ll_equal(&e, &b), "expand_dims(slice(P)) == broadcast_source(P)");
			if (!ll_equal(&e, &b)) {
				show("expand", &e);
				show("bsrc", &b);
			}
			/* broadcast is register-local: each dst (reg, lane, warp) element's
			 * source element is held by the same (lane, warp) */
			for (uint32_t w = 0; w < 4; w++)
				for (uint32_t ln = 0; ln < 32; ln++) {
					held(&b, ln, w, bm1);
					for (uint32_t r = 0; r < (1u << p.in_bits[0]); r++) {
						int32_t o[LL_MAX_OUT];
						ll_apply_hw(&p, r, ln, w, o);
						o[axis] = 0;
						CHECK(bm1[flat_out(&b, o)], "broadcast local");
					}
				}
		}
	}
	int32_t bad[2] = {2, 64};
	LinearLayout p, b;
	ll_default_blocked(&p, 2, shape, 4, 32, 4);
	CHECK(!ll_broadcast_source(&b, &p, 2, bad), "broadcast from a non-1 dim fails");
}

static void test_permute_reshape(void)
{
	int32_t shape[3] = {4, 8, 16};
	LinearLayout l, t, r;
	ll_default_blocked(&l, 3, shape, 2, 32, 4);
	int perm[3] = {2, 0, 1};
	ll_permute_outs(&t, &l, perm);
	int32_t nshape[2] = {32, 16};
	CHECK(ll_reshape_outs(&r, &l, 2, nshape), "reshape ok");
	int32_t bad[2] = {32, 32};
	LinearLayout dummy;
	CHECK(!ll_reshape_outs(&dummy, &l, 2, bad), "reshape size mismatch fails");
	for (uint32_t w = 0; w < 2; w++)
		for (uint32_t ln = 0; ln < 32; ln++)
			for (uint32_t g = 0; g < (1u << l.in_bits[0]); g++) {
				int32_t a[LL_MAX_OUT], b[LL_MAX_OUT], c[LL_MAX_OUT];
				ll_apply_hw(&l, g, ln, w, a);
				ll_apply_hw(&t, g, ln, w, b);
				ll_apply_hw(&r, g, ln, w, c);
				CHECK(b[0] == a[2] && b[1] == a[0] && b[2] == a[1], "permute");
				int flat = (a[0] * 8 + a[1]) * 16 + a[2];
				CHECK(c[0] * 16 + c[1] == flat, "reshape");
			}
	CHECK(t.out_bits[0] == 4 && t.out_bits[1] == 2 && t.out_bits[2] == 3, "permute sizes");
}

/* ---- conversions and shared memory -------------------------------------- */

static void test_conversion_kind(void)
{
	int32_t shape[2] = {32, 32}, order[2] = {1, 0}, order_t[2] = {0, 1};
	int32_t spt[2] = {1, 4}, tpw[2] = {4, 8}, wpc[2] = {4, 1};
	LinearLayout a, b;
	ll_blocked(&a, 2, shape, spt, tpw, wpc, order);
	CHECK(ll_conversion_kind(&a, &a) == CVT_NONE, "same");
	/* swap two register bases: a register permutation */
	b = a;
	memcpy(b.basis[0][0], a.basis[0][1], sizeof b.basis[0][0]);
	memcpy(b.basis[0][1], a.basis[0][0], sizeof b.basis[0][0]);
	CHECK(ll_conversion_kind(&a, &b) == CVT_REGISTERS, "register permutation");
	/* swap a register basis with a lane basis: a shuffle */
	b = a;
	memcpy(b.basis[0][0], a.basis[1][0], sizeof b.basis[0][0]);
	memcpy(b.basis[1][0], a.basis[0][0], sizeof b.basis[0][0]);
	CHECK(ll_conversion_kind(&a, &b) == CVT_SHUFFLE, "shuffle");
	CHECK(ll_shuffle_sources(&a, &b) == 2, "one lane bit picks between two registers: %d",
	      ll_shuffle_sources(&a, &b));
	/* swap two lane bases: a lane permutation, one source register each */
	b = a;
	memcpy(b.basis[1][0], a.basis[1][1], sizeof b.basis[0][0]);
	memcpy(b.basis[1][1], a.basis[1][0], sizeof b.basis[0][0]);
	CHECK(ll_conversion_kind(&a, &b) == CVT_SHUFFLE && ll_shuffle_sources(&a, &b) == 1,
	      "lane permutation: %d sources", ll_shuffle_sources(&a, &b));
	/* swap a lane basis with a warp basis: shared memory */
	b = a;
	memcpy(b.basis[2][0], a.basis[1][0], sizeof b.basis[0][0]);
	memcpy(b.basis[1][0], a.basis[2][0], sizeof b.basis[0][0]);
	CHECK(ll_conversion_kind(&a, &b) == CVT_SHARED, "lane <-> warp");
	/* transpose-like: shared */
	int32_t spt_t[2] = {4, 1}, tpw_t[2] = {8, 4}, wpc_t[2] = {1, 4};
	ll_blocked(&b, 2, shape, spt_t, tpw_t, wpc_t, order_t);
	CHECK(ll_conversion_kind(&a, &b) == CVT_SHARED, "transpose");
	/* both broadcast over warps: still only a shuffle */
	int32_t small[2] = {4, 32}, tpw2[2] = {4, 8}, spt2[2] = {1, 4};
	LinearLayout c, d;
	ll_blocked(&c, 2, small, spt2, tpw2, wpc, order);
	d = c;
	memcpy(d.basis[0][0], c.basis[1][0], sizeof d.basis[0][0]);
	memcpy(d.basis[1][0], c.basis[0][0], sizeof d.basis[0][0]);
	CHECK(c.basis[2][0][0] == 0 && c.basis[2][0][1] == 0, "warps broadcast");
	CHECK(ll_conversion_kind(&c, &d) == CVT_SHUFFLE, "broadcast warps stay trivial");
	/* mma acc -> blocked: shared */
	int32_t s64[2] = {64, 64}, w22[2] = {2, 2};
	ll_mma_acc(&c, 2, s64, w22);
	ll_default_blocked(&d, 2, s64, 4, 32, 4);
	CHECK(ll_conversion_kind(&c, &d) == CVT_SHARED, "mma -> blocked");
}

static void test_bank_conflicts(void)
{
	int32_t shape[2] = {32, 32}, order[2] = {1, 0}, order_t[2] = {0, 1};
	int32_t spt[2] = {1, 1}, tpw_r[2] = {1, 32}, tpw_c[2] = {32, 1}, wpc[2] = {4, 1};
	int32_t wpc_c[2] = {1, 4};
	LinearLayout rows, cols, plain, chosen;
	PaddedShared pad;
	ll_blocked(&rows, 2, shape, spt, tpw_r, wpc, order);
	ll_blocked(&cols, 2, shape, spt, tpw_c, wpc_c, order_t);
	ll_swizzled_shared(&plain, 2, shape, 1, 1, 1, order);
	CHECK(ll_bank_conflicts(&rows, &plain, NULL, 4) == 1, "row write conflict-free");
	CHECK(ll_bank_conflicts(&cols, &plain, NULL, 4) == 32, "column read: 32-way (%d)",
	      ll_bank_conflicts(&cols, &plain, NULL, 4));
	ll_choose_conversion_smem(&rows, &cols, 4, &chosen, &pad);
	CHECK(ll_bank_conflicts(&rows, &chosen, &pad, 4) == 1, "chosen: write conflict-free");
	CHECK(ll_bank_conflicts(&cols, &chosen, &pad, 4) == 1, "chosen: read conflict-free");
	CHECK(pad.n == 0, "swizzle preferred over padding");

	/* padding by one word fixes the column read too */
	PaddedShared p1 = {1, {32}, {1}};
	CHECK(ll_bank_conflicts(&cols, &plain, &p1, 4) == 1, "padded column read");
	CHECK(ll_bank_conflicts(&rows, &plain, &p1, 4) == 1, "padded row write");

	/* fp16 vectorized transpose: 64x64, 8 elements per thread along rows
	 * (written as 16-byte vectors), read down columns with 8 per thread */
	int32_t s64[2] = {64, 64}, spt_r[2] = {1, 8}, spt_c[2] = {8, 1};
	int32_t tr[2] = {4, 8}, tc[2] = {8, 4}, w4[2] = {4, 1}, w4c[2] = {1, 4};
	LinearLayout a, b;
	ll_blocked(&a, 2, s64, spt_r, tr, w4, order);
	ll_blocked(&b, 2, s64, spt_c, tc, w4c, order_t);
	ll_swizzled_shared(&plain, 2, s64, 1, 1, 1, order);
	CHECK(ll_smem_vec(&a, &plain, NULL, 2) == 8, "16-byte vectors on write");
	int before = ll_bank_conflicts(&b, &plain, NULL, 2);
	CHECK(before > 1, "fp16 column read conflicts (%d)", before);
	ll_choose_conversion_smem(&a, &b, 2, &chosen, &pad);
	int wc = ll_bank_conflicts(&a, &chosen, &pad, 2), rc = ll_bank_conflicts(&b, &chosen, &pad, 2);
	CHECK(wc == 1 && rc <= 2, "fp16 chosen: write %d read %d", wc, rc);
	CHECK(ll_smem_access_cost(&a, &chosen, &pad, 2) <= ll_smem_access_cost(&a, &plain, NULL, 2),
	      "chosen write keeps its vectors");
	int64_t c_plain = ll_smem_access_cost(&a, &plain, NULL, 2) +
			  ll_smem_access_cost(&b, &plain, NULL, 2);
	int64_t c_best = ll_smem_access_cost(&a, &chosen, &pad, 2) +
			 ll_smem_access_cost(&b, &chosen, &pad, 2);
	CHECK(c_best < c_plain, "chosen cheaper: %lld vs %lld", (long long)c_best,
	      (long long)c_plain);

	/* mma accumulator -> coalesced blocked through shared memory */
	int32_t w22[2] = {2, 2};
	LinearLayout acc, blk;
	ll_mma_acc(&acc, 2, s64, w22);
	ll_default_blocked(&blk, 2, s64, 4, 32, 4);
	ll_choose_conversion_smem(&acc, &blk, 4, &chosen, &pad);
	CHECK(ll_bank_conflicts(&acc, &chosen, &pad, 4) <= 2 &&
		      ll_bank_conflicts(&blk, &chosen, &pad, 4) == 1,
	      "mma -> blocked: %d %d", ll_bank_conflicts(&acc, &chosen, &pad, 4),
	      ll_bank_conflicts(&blk, &chosen, &pad, 4));
	CHECK(ll_bank_conflicts(&acc, &plain, NULL, 8) >= 1, "smoke (8-byte elements)");

	/* broadcast lanes read the same word: no conflict */
	int32_t s8[2] = {8, 16}, sp2[2] = {2, 2}, tp[2] = {8, 4}, wp[2] = {1, 2};
	LinearLayout bc, sm;
	ll_blocked(&bc, 2, s8, sp2, tp, wp, order);
	ll_swizzled_shared(&sm, 2, s8, 1, 1, 1, order);
	CHECK(ll_bank_conflicts(&bc, &sm, NULL, 4) >= 1, "broadcast layout accesses");
}

/* Simulate the ldmatrix instructions ll_ldmatrix_plan describes, from the
 * PTX definition (row r of matrix m = 16 bytes at the address lane 8m + r
 * gives; lane l gets the 32-bit word l%4 of row l/4: elements (l/4,
 * epr*(l%4)+j) of eb bytes, epr = 4/eb; .trans (16-bit): (2(l%4)+j, l/4)),
 * and count the registers that do not receive the element reg assigns them. */
static int ldmatrix_wrong_eb(const LinearLayout *reg, const LinearLayout *smem, int eb)
{
	LinearLayout c;
	LdmatrixPlan p;
	if (!ll_invert_and_compose(reg, smem, &c) || !ll_ldmatrix_plan(&c, NULL, eb, &p))
		return -1;
	int rs = ll_find_slot(&c, LL_REG), ws = ll_find_slot(&c, LL_WARP);
	int nreg = 1 << c.in_bits[rs], nwarp = ws >= 0 ? 1 << c.in_bits[ws] : 1;
	int epr = 4 / eb, row = 16 / eb, wrong = 0;
	if (p.elems_per_reg != epr)
		return -1;
	for (int w = 0; w < nwarp; w++)
		for (int g = 0; g < nreg; g += epr * p.nmat)
			for (int m = 0; m < p.nmat; m++) {
				int32_t mat[8][16][LL_MAX_OUT];
				for (int r = 0; r < 8; r++) {
					uint32_t in[LL_MAX_IN] = {0};
					int32_t o[LL_MAX_OUT];
					in[rs] = (uint32_t)g;
					if (ws >= 0)
						in[ws] = (uint32_t)w;
					ll_apply(&c, in, o);
					int lane = 8 * m + r;
					for (int b = 0; b < 5; b++)
						if (lane >> b & 1)
							o[0] ^= p.lane_img[b];
					for (int e = 0; e < row; e++) {
						uint32_t off[LL_MAX_IN] = {(uint32_t)(o[0] + e)};
						ll_apply(smem, off, mat[r][e]);
					}
				}
				for (int l = 0; l < 32; l++)
					for (int j = 0; j < epr; j++) {
						int a = l / 4, b = epr * (l % 4) + j;
						const int32_t *got = p.trans ? mat[b][a] : mat[a][b];
						int32_t want[LL_MAX_OUT];
						ll_apply_hw(reg, (uint32_t)(g + epr * m + j), (uint32_t)l,
							    (uint32_t)w, want);
						wrong += memcmp(got, want, sizeof(int32_t) * reg->n_out) != 0;
					}
			}
	return wrong;
}

static int ldmatrix_wrong(const LinearLayout *reg, const LinearLayout *smem)
{
	return ldmatrix_wrong_eb(reg, smem, 2);
}

static void test_ldmatrix(void)
{
	int32_t row[2] = {1, 0}, col[2] = {0, 1}, w1[2] = {1, 1}, w22[2] = {2, 2};
	LinearLayout a, b, sm;
	/* A 16x16, one warp, row-major 32-byte rows: rows 0..7 land on bank
	 * groups 0,2,4,6,0,2,4,6: 2-way */
	int32_t s16[2] = {16, 16};
	ll_mma_operand(&a, 0, 2, s16, w1, 16);
	ll_swizzled_shared(&sm, 2, s16, 1, 1, 1, row);
	CHECK(ll_ldmatrix_conflicts(&a, &sm, NULL, 2) == 2, "A 16x16 row-major: %d",
	      ll_ldmatrix_conflicts(&a, &sm, NULL, 2));
	CHECK(ldmatrix_wrong(&a, &sm) == 0, "A 16x16 row-major: elements");
	/* A 64x64, 4 warps: 128-byte rows all in one bank group: 8-way; the
	 * mma swizzle (vec 8, phase = row % 8) frees it */
	int32_t s64[2] = {64, 64};
	ll_mma_operand(&a, 0, 2, s64, w22, 16);
	ll_swizzled_shared(&sm, 2, s64, 1, 1, 1, row);
	CHECK(ll_ldmatrix_conflicts(&a, &sm, NULL, 2) == 8, "A 64x64 row-major: %d",
	      ll_ldmatrix_conflicts(&a, &sm, NULL, 2));
	ll_swizzled_shared(&sm, 2, s64, 8, 1, 8, row);
	CHECK(ll_ldmatrix_conflicts(&a, &sm, NULL, 2) == 1, "A 64x64 swizzled: %d",
	      ll_ldmatrix_conflicts(&a, &sm, NULL, 2));
	CHECK(ldmatrix_wrong(&a, &sm) == 0, "A 64x64 swizzled: elements");
	/* a swizzle finer than a row breaks the rows: no ldmatrix */
	ll_swizzled_shared(&sm, 2, s64, 4, 1, 8, row);
	CHECK(ll_ldmatrix_conflicts(&a, &sm, NULL, 2) == -1, "vec 4 swizzle");
	/* padding of 8 elements per 64: 144-byte rows, conflict-free; 4 would
	 * misalign the rows, an interval of 4 would split them */
	ll_swizzled_shared(&sm, 2, s64, 1, 1, 1, row);
	PaddedShared p8 = {1, {64}, {8}}, p4 = {1, {64}, {4}}, i4 = {1, {4}, {8}};
	CHECK(ll_ldmatrix_conflicts(&a, &sm, &p8, 2) == 1, "A padded: %d",
	      ll_ldmatrix_conflicts(&a, &sm, &p8, 2));
	CHECK(ll_ldmatrix_conflicts(&a, &sm, &p4, 2) == -1, "8-byte pad");
	CHECK(ll_ldmatrix_conflicts(&a, &sm, &i4, 2) == -1, "4-element interval");
	/* A stored M-contiguous: .trans */
	ll_swizzled_shared(&sm, 2, s64, 8, 1, 8, col);
	LinearLayout c;
	LdmatrixPlan p;
	CHECK(ll_invert_and_compose(&a, &sm, &c) && ll_ldmatrix_plan(&c, NULL, 2, &p) && p.trans &&
		      p.nmat == 4,
	      "A column-major: .trans x4");
	CHECK(ldmatrix_wrong(&a, &sm) == 0, "A column-major: elements");
	CHECK(ll_ldmatrix_conflicts(&a, &sm, NULL, 2) == 1, "A column-major swizzled: %d",
	      ll_ldmatrix_conflicts(&a, &sm, NULL, 2));
	/* B [K, N] N-contiguous: .trans; K-contiguous: plain */
	int32_t sb[2] = {32, 64};
	ll_mma_operand(&b, 1, 2, sb, w22, 16);
	ll_swizzled_shared(&sm, 2, sb, 1, 1, 1, row);
	CHECK(ll_invert_and_compose(&b, &sm, &c) && ll_ldmatrix_plan(&c, NULL, 2, &p) && p.trans,
	      "B row-major: .trans");
	CHECK(ldmatrix_wrong(&b, &sm) == 0, "B row-major: elements");
	CHECK(ll_ldmatrix_conflicts(&b, &sm, NULL, 2) == 8, "B row-major: %d",
	      ll_ldmatrix_conflicts(&b, &sm, NULL, 2));
	ll_swizzled_shared(&sm, 2, sb, 8, 2, 4, col);
	CHECK(ll_invert_and_compose(&b, &sm, &c) && ll_ldmatrix_plan(&c, NULL, 2, &p) && !p.trans,
	      "B column-major: plain");
	CHECK(ldmatrix_wrong(&b, &sm) == 0, "B column-major: elements");
	CHECK(ll_ldmatrix_conflicts(&b, &sm, NULL, 2) == 1, "B column-major swizzled: %d",
	      ll_ldmatrix_conflicts(&b, &sm, NULL, 2));
	/* one register pair per thread: .x1 */
	int32_t s8[2] = {8, 8};
	LinearLayout one;
	ll_init_hw(&one, 2);
	int32_t r0[2] = {0, 1}, l0[2] = {0, 2}, l1[2] = {0, 4}, l2[2] = {1, 0}, l3[2] = {2, 0},
		l4[2] = {4, 0};
	ll_push_basis(&one, LL_REG, r0);
	const int32_t *lanes[5] = {l0, l1, l2, l3, l4};
	for (int i = 0; i < 5; i++)
		ll_push_basis(&one, LL_LANE, lanes[i]);
	ll_swizzled_shared(&sm, 2, s8, 1, 1, 1, row);
	CHECK(ll_invert_and_compose(&one, &sm, &c) && ll_ldmatrix_plan(&c, NULL, 2, &p) &&
		      p.nmat == 1 && !p.trans,
	      "8x8: x1");
	CHECK(ldmatrix_wrong(&one, &sm) == 0, "8x8: elements");
	CHECK(ll_ldmatrix_conflicts(&one, &sm, NULL, 2) == 1, "8x8: conflict-free");
	CHECK(ll_ldmatrix_conflicts(&one, &sm, NULL, 4) == -1, "32-bit elements, 16-bit form");
	/* 8 bytes, or no matrix structure */
	CHECK(ll_ldmatrix_conflicts(&one, &sm, NULL, 8) == -1, "64-bit elements");
	LinearLayout blk;
	int32_t spt[2] = {1, 1}, tpw[2] = {32, 1}, wpc[2] = {1, 2};
	ll_blocked(&blk, 2, s64, spt, tpw, wpc, row);
	ll_swizzled_shared(&sm, 2, s64, 1, 1, 1, row);
	CHECK(ll_ldmatrix_conflicts(&blk, &sm, NULL, 2) == -1, "lanes down the rows");
	/* the chooser, told about ldmatrix, frees both sides of a blocked
	 * (16-byte vectors, 8 lanes per 128-byte row) -> A conversion */
	int32_t sv[2] = {1, 8}, tv[2] = {4, 8}, wv[2] = {4, 1};
	ll_blocked(&blk, 2, s64, sv, tv, wv, row);
	PaddedShared pad;
	ll_choose_conversion_smem_ldm(&blk, &a, 2, true, &sm, &pad);
	CHECK(ll_bank_conflicts(&blk, &sm, &pad, 2) == 1 && ll_ldmatrix_conflicts(&a, &sm, &pad, 2) == 1,
	      "chosen for ldmatrix: write %d read %d", ll_bank_conflicts(&blk, &sm, &pad, 2),
	      ll_ldmatrix_conflicts(&a, &sm, &pad, 2));
	/* 8-bit operands (m16n8k32): A [M, K] K-contiguous and B [K, N]
	 * K-contiguous read plain, 4 values per word; N-contiguous B has no
	 * byte transpose */
	int32_t s8a[2] = {64, 64}, s8b[2] = {64, 64};
	ll_mma_operand(&a, 0, 2, s8a, w22, 8);
	ll_swizzled_shared(&sm, 2, s8a, 16, 2, 4, row);
	CHECK(ll_invert_and_compose(&a, &sm, &c) && ll_ldmatrix_plan(&c, NULL, 1, &p) &&
		      !p.trans && p.nmat == 4 && p.elems_per_reg == 4,
	      "8-bit A row-major: plain x4, 4 per word");
	CHECK(ldmatrix_wrong_eb(&a, &sm, 1) == 0, "8-bit A: elements");
	CHECK(ll_ldmatrix_conflicts(&a, &sm, NULL, 1) == 1, "8-bit A swizzled: %d",
	      ll_ldmatrix_conflicts(&a, &sm, NULL, 1));
	ll_mma_operand(&b, 1, 2, s8b, w22, 8);
	ll_swizzled_shared(&sm, 2, s8b, 16, 1, 4, col);
	CHECK(ll_invert_and_compose(&b, &sm, &c) && ll_ldmatrix_plan(&c, NULL, 1, &p) && !p.trans,
	      "8-bit B K-contiguous: plain");
	CHECK(ldmatrix_wrong_eb(&b, &sm, 1) == 0, "8-bit B K-contiguous: elements");
	ll_swizzled_shared(&sm, 2, s8b, 1, 1, 1, row);
	CHECK(ll_ldmatrix_conflicts(&b, &sm, NULL, 1) == -1, "8-bit B N-contiguous: no ldmatrix");
	/* 32-bit (tf32, m16n8k8): A K-contiguous, one value per word */
	int32_t s32[2] = {32, 32};
	ll_mma_operand(&a, 0, 2, s32, w22, 32);
	ll_swizzled_shared(&sm, 2, s32, 4, 1, 8, row);
	CHECK(ll_invert_and_compose(&a, &sm, &c) && ll_ldmatrix_plan(&c, NULL, 4, &p) &&
		      !p.trans && p.elems_per_reg == 1,
	      "tf32 A: plain, 1 per word");
	CHECK(ldmatrix_wrong_eb(&a, &sm, 4) == 0, "tf32 A: elements");
}

int main(void)
{
	test_apply_random();
	test_builders();
	test_compose();
	test_free_masks();
	test_invert_and_compose();
	test_contig();
	test_blocked_example();
	test_default_blocked();
	test_mma_acc();
	test_mma_operands();
	test_swizzle();
	test_padded();
	test_slice_expand_broadcast();
	test_permute_reshape();
	test_conversion_kind();
	test_bank_conflicts();
	test_ldmatrix();
	printf("test_layout: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
