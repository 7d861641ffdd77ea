/* builtins_map.c: tl.map_elementwise(scalar_fn, *args, pack=1) (Triton 3.5).
 *
 * Triton runs scalar_fn once per element (pack consecutive elements of the
 * last dimension per call) in a region of its own, so the function may branch
 * on the element. tile calls scalar_fn once, on whole tiles: the arguments are
 * broadcast to one shape (and, for pack > 1, split into pack tiles of every
 * pack-th element), and while the call runs (Sema.map_depth) an `if` on a tile
 * is if-converted by sema_stmt.c: both branches run and what they assign or
 * return is merged with tl.where. That is the same function for what such
 * functions do (arithmetic, math, inline asm, branches and early returns);
 * memory accesses under an element branch, and loops whose condition depends
 * on the element, are errors that say so. The results are put back together
 * (for pack > 1, element j of a call is element j of its group of pack). */
#include "sema/sema_int.h"

/* the tiles of every pack-th element of x's last dimension, from element j */
static ValId pack_part(Sema *s, ValId x, int pack, int j, SrcLoc loc)
{
	Type t = vtype(s, x);
	int32_t shape[TIR_MAX_RANK];
	int rank = t.rank, bits = 0;
	while ((1 << bits) < pack) bits++;
	for (int d = 0; d < rank - 1; d++) shape[d] = t.shape[d];
	shape[rank - 1] = t.shape[rank - 1] / pack;
	for (int b = 0; b < bits; b++) shape[rank + b] = 2;
	ValId y = shape_reshape(s, x, rank + bits, shape, loc);
	for (int b = bits - 1; b >= 0; b--) y = shape_pick_axis(s, y, rank, (j >> b) & 1, loc);
	return y;
}

/* inverse of pack_part: parts[j] holds element j of each group of pack */
static ValId pack_join(Sema *s, ValId *parts, int pack, SrcLoc loc)
{
	Type t = vtype(s, parts[0]);
	for (int n = pack; n > 1; n /= 2)
		for (int i = 0; i < n / 2; i++) {
			parts[i] = shape_join_axis(s, parts[2 * i], parts[2 * i + 1], t.rank, loc);
			if (!parts[i]) return 0;
		}
	int32_t shape[TIR_MAX_RANK];
	for (int d = 0; d < t.rank; d++) shape[d] = t.shape[d];
	shape[t.rank - 1] *= pack;
	return shape_reshape(s, parts[0], t.rank, shape, loc);
}

/* a result of scalar_fn as a tile of the mapped shape (constants materialized) */
static ValId map_result(Sema *s, Value v, Type like, SrcLoc loc)
{
	ValId id;
	if ((v.kind != V_TENSOR && v.kind != V_CONST) || !value_as_ir(s, v, loc, &id)) {
		diag_error(s->d, loc, "tl.map_elementwise: the function must return tensors or numbers, got %s",
			   v_describe(s, v));
		return 0;
	}
	return broadcast_to_shape(s, id, like.rank, like.shape, loc);
}

static Value b_map_elementwise(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value fn = c->a[0];
	if (fn.kind == V_BUILTIN && !fn.self && (builtin_get(fn.builtin)->flags & BF_PRELUDE))
		fn = prelude_function(s, fn.builtin, c->at[0]); /* standard.py's @jit functions (tl.sigmoid) */
	if (fn.kind == V_ERR) return fn;
	if (fn.kind != V_FUNC) {
		diag_error(s->d, c->at[0], "scalar_fn of 'tl.map_elementwise' must be a @jit function, got %s",
			   v_describe(s, fn));
		return v_err();
	}
	int64_t pack = 1;
	if (c->has[2] && !arg_const_int(s, c, 2, &pack)) return v_err();
	int n = c->nrest;
	if (pack < 1 || pack > 64 || (pack & (pack - 1))) {
		diag_error(s->d, c->at[2], "tl.map_elementwise: pack must be a power of two up to 64, got %lld",
			   (long long)pack);
		return v_err();
	}
	if (n < 1 || n * pack > BMAX_ARGS) {
		diag_error(s->d, c->loc, "tl.map_elementwise takes 1 to %d tensors (pack x tensors), got %d", BMAX_ARGS,
			   n);
		return v_err();
	}
	ValId ids[BMAX_ARGS], shape_of = 0;
	for (int i = 0; i < n; i++) {
		if (!value_as_ir(s, c->rest[i], c->rest_at[i], &ids[i])) return v_err();
		ValId h = shape_of ? shape_of : ids[i], x = ids[i];
		if (!broadcast_pair(s, &h, &x, c->loc)) return v_err();
		shape_of = h;
	}
	Type shape = vtype(s, shape_of);
	for (int i = 0; i < n; i++) {
		ids[i] = broadcast_to_shape(s, ids[i], shape.rank, shape.shape, c->rest_at[i]);
		if (!ids[i]) return v_err();
	}
	if (pack > 1 && (shape.rank == 0 || shape.shape[shape.rank - 1] % pack)) {
		diag_error(s->d, c->at[2], "tl.map_elementwise: pack=%lld needs a last dimension that is a multiple of it",
			   (long long)pack);
		return v_err();
	}
	Value args[BMAX_ARGS];
	for (int i = 0; i < n; i++)
		for (int j = 0; j < pack; j++)
			args[i * pack + j] = v_tensor(s, pack > 1 ? pack_part(s, ids[i], (int)pack, j, c->loc) : ids[i]);
	Type part = vtype(s, args[0].id);
	s->map_depth++;
	Value r = call_user(s, fn, args, n * (int)pack, NULL, NULL, 0, c->loc);
	s->map_depth--;
	if (r.kind == V_ERR) return r;
	bool single = r.kind != V_TUPLE;
	const Value *items = single ? &r : r.items;
	int nitems = single ? 1 : r.n;
	if (nitems % pack) {
		diag_error(s->d, c->loc, "tl.map_elementwise: with pack=%lld the function must return a multiple of %lld values, got %d",
			   (long long)pack, (long long)pack, nitems);
		return v_err();
	}
	int nres = nitems / (int)pack;
	Value *out = ARENA_NEWN(s->a, Value, nres + 1);
	for (int q = 0; q < nres; q++) {
		ValId parts[64];
		for (int j = 0; j < pack; j++) {
			parts[j] = map_result(s, items[q * pack + j], part, c->loc);
			if (!parts[j]) return v_err();
			if (j && vtype(s, parts[j]).dt != vtype(s, parts[0]).dt) {
				diag_error(s->d, c->loc, "tl.map_elementwise: the %d values of result %d have different dtypes",
					   (int)pack, q);
				return v_err();
			}
		}
		out[q] = v_tensor(s, pack > 1 ? pack_join(s, parts, (int)pack, c->loc) : parts[0]);
	}
	return single && pack == 1 ? out[0] : v_tuple(s, out, nres);
}

const Builtin builtins_map[] = {
    {"map_elementwise", "scalar_fn,*args,pack=1", b_map_elementwise, 0, BF_TL},
    {NULL, NULL, NULL, 0, 0},
};
