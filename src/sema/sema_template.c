/* sema_template.c: a value as a template of IR leaves: tuples, aggregates and block
 * pointers flattened into SSA ids where control flow yields or carries them
 * (ifs, loops, returns), rebuilt from ids, and compared for the same shape. */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"
#include "sema/sema_stmt_int.h"

static bool is_num(Value v) { return v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL || v.c.kind == CV_FLOAT); }

/* Whether item i of tuple or aggregate v is materialized with it: an
 * aggregate's constexpr field stays a constant (part of its type). */
static bool item_materialize(Value v, int i, bool materialize)
{
	return materialize && !(v.kind == V_AGG && agg_item_const(v, i));
}

bool flatten_value(Sema *s, Value v, IdVec *out, bool materialize, SrcLoc loc)
{
	/* each leaf is a value of the IR op (loop, if, call) it goes to; a tuple
	 * that shares its items (t = (t, t)) has exponentially many */
	if (!sema_values_fit(s, out->len, loc)) return false;
	switch (v.kind) {
	case V_ERR:
	case V_POISON: return false;
	case V_TENSOR: vec_push(out, v.id); return true;
	case V_CONST:
		if (materialize && is_num(v)) {
			ValId id = to_ir_natural(s, v, loc);
			if (!id) return false;
			vec_push(out, id);
		}
		return true;
	case V_TUPLE:
	case V_AGG:
		for (int i = 0; i < v.n; i++)
			if (!flatten_value(s, v.items[i], out, item_materialize(v, i, materialize), loc)) return false;
		return true;
	case V_BLOCKPTR: {
		const BlockPtr *bp = v.bp;
		vec_push(out, bp->base.id);
		for (int i = 0; i < bp->rank; i++) {
			if (bp->shape[i].kind == V_TENSOR) vec_push(out, bp->shape[i].id);
			if (bp->strides[i].kind == V_TENSOR) vec_push(out, bp->strides[i].id);
			if (bp->offsets[i].kind == V_TENSOR) vec_push(out, bp->offsets[i].id);
			else if (materialize) vec_push(out, to_ir(s, bp->offsets[i], DT_I32, loc));
		}
		return true;
	}
	default: return true;
	}
}

static Value unflatten_m(Sema *s, Value t, const ValId *ids, int *pos, bool materialize)
{
	switch (t.kind) {
	case V_TENSOR: return v_tensor(s, ids[(*pos)++]);
	case V_CONST:
		if (materialize && is_num(t)) return v_tensor(s, ids[(*pos)++]);
		return t;
	case V_TUPLE:
	case V_AGG: {
		Value *items = ARENA_NEWN(s->a, Value, t.n + 1);
		for (int i = 0; i < t.n; i++)
			items[i] = unflatten_m(s, t.items[i], ids, pos, item_materialize(t, i, materialize));
		if (t.kind == V_AGG) return v_agg(s, t.mod, items, t.n, t.ns);
		Value r = v_tuple(s, items, t.n);
		r.mod = t.mod; /* a NamedTuple's class */
		return r;
	}
	case V_BLOCKPTR: {
		BlockPtr *bp = ARENA_NEW(s->a, BlockPtr);
		*bp = *t.bp;
		bp->base = v_tensor(s, ids[(*pos)++]);
		for (int i = 0; i < bp->rank; i++) {
			if (bp->shape[i].kind == V_TENSOR) bp->shape[i] = v_tensor(s, ids[(*pos)++]);
			if (bp->strides[i].kind == V_TENSOR) bp->strides[i] = v_tensor(s, ids[(*pos)++]);
			if (bp->offsets[i].kind == V_TENSOR || materialize) bp->offsets[i] = v_tensor(s, ids[(*pos)++]);
		}
		Value r = t;
		r.bp = bp;
		return r;
	}
	default: return t;
	}
}

Value unflatten_value(Sema *s, Value tmpl, const ValId *ids, int *pos) { return unflatten_m(s, tmpl, ids, pos, true); }

static bool same_template_m(Sema *s, Value a, Value b, bool materialize)
{
	bool la = a.kind == V_TENSOR || (materialize && is_num(a));
	bool lb = b.kind == V_TENSOR || (materialize && is_num(b));
	if (la || lb) return la && lb;
	if (a.kind != b.kind) return false;
	switch (a.kind) {
	case V_AGG:
		if (a.mod != b.mod || a.ns != b.ns) return false;
		/* fallthrough */
	case V_TUPLE:
		if (a.n != b.n) return false;
		for (int i = 0; i < a.n; i++)
			if (!same_template_m(s, a.items[i], b.items[i], item_materialize(a, i, materialize))) return false;
		return true;
	case V_BLOCKPTR:
		if (a.bp->rank != b.bp->rank || a.bp->desc != b.bp->desc || a.bp->pad_nan != b.bp->pad_nan) return false;
		for (int i = 0; i < a.bp->rank; i++) {
			if (a.bp->block[i] != b.bp->block[i] || a.bp->order[i] != b.bp->order[i]) return false;
			if ((a.bp->shape[i].kind == V_TENSOR) != (b.bp->shape[i].kind == V_TENSOR)) return false;
			if ((a.bp->strides[i].kind == V_TENSOR) != (b.bp->strides[i].kind == V_TENSOR)) return false;
			if (a.bp->shape[i].kind != V_TENSOR && !values_identical(a.bp->shape[i], b.bp->shape[i])) return false;
			if (a.bp->strides[i].kind != V_TENSOR && !values_identical(a.bp->strides[i], b.bp->strides[i])) return false;
			if (!materialize && (a.bp->offsets[i].kind == V_TENSOR) != (b.bp->offsets[i].kind == V_TENSOR)) return false;
			if (!materialize && a.bp->offsets[i].kind != V_TENSOR && !values_identical(a.bp->offsets[i], b.bp->offsets[i]))
				return false;
		}
		return true;
	default: return values_identical(a, b);
	}
}

bool same_template(Sema *s, Value a, Value b) { return same_template_m(s, a, b, true); }

/* What a merge or a loop sees of a value, for its mismatch messages: types,
 * the items of tuples, the block and order of block pointers. */
const char *value_kind_str(Sema *s, Value v)
{
	char buf[96];
	if (v.kind == V_TENSOR) {
		type_str(v.ty, buf, sizeof buf);
		return arena_strdup(s->a, buf);
	}
	if (is_num(v)) {
		type_str(const_natural_type(v.c), buf, sizeof buf);
		return arena_strdup(s->a, buf);
	}
	if (v.kind == V_TUPLE || v.kind == V_AGG) {
		StrBuf b = {0};
		sb_putc(&b, '(');
		for (int i = 0; i < v.n && b.len < 200; i++) {
			char cs[64] = "constexpr ";
			bool fixed = !item_materialize(v, i, true) && v.items[i].kind == V_CONST; /* its value is its type */
			if (fixed) const_str(v.items[i].c, cs + 10, sizeof cs - 10);
			sb_printf(&b, "%s%s", i ? ", " : "", fixed ? cs : value_kind_str(s, v.items[i]));
		}
		sb_puts(&b, v.n == 1 && v.kind == V_TUPLE ? ",)" : ")");
		const char *r = v.kind == V_AGG ? arena_printf(s->a, "%s %s", v.mod->name, b.s)
						: arena_printf(s->a, "tuple %s", b.s);
		sb_free(&b);
		return r;
	}
	if (v.kind == V_BLOCKPTR) {
		StrBuf b = {0};
		for (int i = 0; i < v.bp->rank; i++) sb_printf(&b, "%s%d", i ? "x" : "", (int)v.bp->block[i]);
		sb_puts(&b, ", order (");
		for (int i = 0; i < v.bp->rank; i++) sb_printf(&b, "%s%d", i ? ", " : "", v.bp->order[i]);
		const char *r = arena_printf(s->a, "%s <%s)>", v_describe(s, v), b.s);
		sb_free(&b);
		return r;
	}
	return v_describe(s, v);
}

/* "X in one ... and Y in the other": when X and Y read the same, the
 * difference is in what the descriptions leave out */
const char *other_kind_str(Sema *s, const char *a, Value b)
{
	const char *r = value_kind_str(s, b);
	if (strcmp(a, r)) return r;
	return arena_printf(s->a, "%s with other constant shapes, strides or offsets", r);
}

/* Flattens `v` (in the current block) and checks it against types `want`. */
bool flatten_matching(Sema *s, Value tmpl, Value v, const Type *want, int nwant, IdVec *out, SrcLoc loc)
{
	size_t start = out->len;
	if (!same_template(s, tmpl, v) || !flatten_value(s, v, out, true, loc)) {
		out->len = start;
		return false;
	}
	if ((int)(out->len - start) != nwant) {
		out->len = start;
		return false;
	}
	for (int i = 0; i < nwant; i++)
		if (!type_eq(vtype(s, out->data[start + (size_t)i]), want[i])) {
			out->len = start;
			return false;
		}
	return true;
}
