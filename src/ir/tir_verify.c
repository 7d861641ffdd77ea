/* tir_verify.c: the Tile IR verifier (tir.h).
 *
 * Checks, for every op: operand ids valid and defined before use in an
 * enclosing scope (dominance for structured control flow), operand/result
 * counts and types per op kind, region structure (each region ends in the
 * right terminator, with values matching the op's results or iter args), and
 * with `layouts`, that every tile value has a layout whose output dims match
 * its shape. A failure is an internal compiler error naming the pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/tir.h"
#include "layout/linear.h"

typedef struct Verifier {
	const TirFunc *f;
	const char *pass;
	bool layouts;
	uint8_t *defined;
	VEC(ValId) stack; /* values defined in open scopes, popped at region exit */
} Verifier;

NORETURN static void fail(Verifier *v, const TirOp *op, const char *fmt, ...) PRINTF_LIKE(3, 4);

static void fail(Verifier *v, const TirOp *op, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *pass = v->pass ? v->pass : "?";
	vec_free(&v->stack);
	free(v->defined);
	if (op)
		ice("verify", "after %s: %s (op '%s' at line %d)", pass, msg, tir_op_name((TirOpKind)op->kind),
		    op->loc.line);
	ice("verify", "after %s: %s", pass, msg);
}

static Type ty(Verifier *v, ValId id) { return v->f->vals.data[id].ty; }

static bool same_shape(Type a, Type b)
{
	if (a.rank != b.rank) return false;
	for (int i = 0; i < a.rank; i++)
		if (a.shape[i] != b.shape[i]) return false;
	return true;
}

static void check_layout(Verifier *v, const TirOp *op, ValId id)
{
	Type t = ty(v, id);
	const LinearLayout *l = v->f->vals.data[id].layout;
	if (t.rank == 0) return;
	if (!l) fail(v, op, "tile value %u has no layout", id);
	if (l->n_out != t.rank) fail(v, op, "layout of value %u has %d dims, its type %d", id, l->n_out, t.rank);
	for (int d = 0; d < t.rank; d++)
		if ((1 << l->out_bits[d]) != t.shape[d])
			fail(v, op, "layout of value %u has size %d in dim %d, its type %d", id, 1 << l->out_bits[d], d,
			     (int)t.shape[d]);
}

static void define(Verifier *v, const TirOp *op, ValId id)
{
	if (id == 0 || id >= v->f->vals.len) fail(v, op, "invalid result id %u", id);
	if (v->defined[id]) fail(v, op, "value %u defined twice", id);
	v->defined[id] = 1;
	vec_push(&v->stack, id);
	Type t = ty(v, id);
	if (t.rank > TIR_MAX_RANK) fail(v, op, "value %u has rank %d", id, t.rank);
	for (int d = 0; d < t.rank; d++)
		if (!is_pow2_i64(t.shape[d])) fail(v, op, "value %u has a non-power-of-two dim %d", id, (int)t.shape[d]);
	if (v->layouts) check_layout(v, op, id);
}

static void expect(Verifier *v, const TirOp *op, bool ok, const char *what)
{
	if (!ok) fail(v, op, "%s", what);
}

static void check_counts(Verifier *v, const TirOp *op, int nin_min, int nin_max, int nout)
{
	if (op->nin < nin_min || (nin_max >= 0 && op->nin > nin_max))
		fail(v, op, "has %d operands", op->nin);
	if (nout >= 0 && op->nout != nout) fail(v, op, "has %d results, expected %d", op->nout, nout);
}

static void check_elementwise(Verifier *v, const TirOp *op, int n)
{
	check_counts(v, op, n, n, 1);
	Type r = ty(v, op->results[0]);
	for (int i = 0; i < n; i++) expect(v, op, type_eq(ty(v, op->operands[i]), r), "operand type differs from the result type");
}

static void check_region_end(Verifier *v, const TirOp *op, const TirBlock *b, TirOpKind term, const ValId *want,
			     int nwant)
{
	if (b->nops == 0 || b->ops[b->nops - 1]->kind != term)
		fail(v, op, "region does not end in '%s'", tir_op_name(term));
	const TirOp *t = b->ops[b->nops - 1];
	if (!want) return;
	if (t->nin != nwant) fail(v, op, "'%s' has %d values, expected %d", tir_op_name(term), t->nin, nwant);
	for (int i = 0; i < nwant; i++)
		if (!type_eq(ty(v, t->operands[i]), ty(v, want[i])))
			fail(v, op, "'%s' value %d has the wrong type", tir_op_name(term), i);
}

/* The buffer attr.i names: in range, slots inside the reserved bytes. */
static const TirSmemBuf *check_buf(Verifier *v, const TirOp *op)
{
	const TirFunc *f = v->f;
	if (op->attr.i < 0 || op->attr.i >= f->nbufs) fail(v, op, "buffer %lld out of range (%d buffers)", (long long)op->attr.i, f->nbufs);
	const TirSmemBuf *b = &f->bufs[op->attr.i];
	if (b->nslots < 1 || b->base < 0 || b->base + b->slot_bytes * b->nslots > f->smem_reserved)
		fail(v, op, "buffer %lld lies outside the reserved shared memory", (long long)op->attr.i);
	if (b->tile.rank == 0 || !b->smem) fail(v, op, "buffer %lld has no tile or shared layout", (long long)op->attr.i);
	return b;
}

static void check_op_types(Verifier *v, const TirOp *op)
{
	const ValId *in = op->operands;
	switch ((TirOpKind)op->kind) {
	case TOP_CONST:
	case TOP_PROGRAM_ID:
	case TOP_NUM_PROGRAMS: check_counts(v, op, 0, 0, 1); break;
	case TOP_SREG:
		check_counts(v, op, 0, 0, 1);
		expect(v, op, ty(v, op->results[0]).rank == 0, "sreg gives a scalar");
		break;
	case TOP_ARANGE: {
		check_counts(v, op, 0, 0, 1);
		Type r = ty(v, op->results[0]);
		expect(v, op, r.rank == 1 && r.shape[0] == op->attr.i2 - op->attr.i, "arange size differs from end - start");
		break;
	}
	case TOP_SPLAT:
		check_counts(v, op, 1, 1, 1);
		expect(v, op, ty(v, in[0]).rank == 0, "splat of a non-scalar");
		expect(v, op, type_eq(type_elem(ty(v, op->results[0])), ty(v, in[0])), "splat changes the dtype");
		break;
	case TOP_BROADCAST: {
		check_counts(v, op, 1, 1, 1);
		Type a = ty(v, in[0]), r = ty(v, op->results[0]);
		expect(v, op, a.rank == r.rank && type_eq(type_elem(a), type_elem(r)), "broadcast changes rank or dtype");
		for (int d = 0; d < r.rank; d++)
			expect(v, op, a.shape[d] == r.shape[d] || a.shape[d] == 1, "broadcast of a dim that is not 1");
		break;
	}
	case TOP_EXPAND_DIMS: {
		check_counts(v, op, 1, 1, 1);
		Type a = ty(v, in[0]), r = ty(v, op->results[0]);
		int ax = op->attr.axis;
		expect(v, op, r.rank == a.rank + 1 && ax >= 0 && ax < r.rank && r.shape[ax] == 1, "bad expand_dims");
		for (int d = 0, s = 0; d < r.rank; d++) {
			if (d == ax) continue;
			expect(v, op, r.shape[d] == a.shape[s++], "expand_dims changes a dim");
		}
		break;
	}
	case TOP_RESHAPE:
		check_counts(v, op, 1, 1, 1);
		expect(v, op, type_numel(ty(v, in[0])) == type_numel(ty(v, op->results[0])), "reshape changes the size");
		break;
	case TOP_TRANS: {
		check_counts(v, op, 1, 1, 1);
		Type a = ty(v, in[0]), r = ty(v, op->results[0]);
		expect(v, op, a.rank == r.rank, "trans changes the rank");
		unsigned seen = 0;
		for (int d = 0; d < r.rank; d++) {
			int p = op->attr.perm[d];
			expect(v, op, p >= 0 && p < r.rank && !(seen & (1u << p)), "trans perm is not a permutation");
			seen |= 1u << p;
			expect(v, op, r.shape[d] == a.shape[p], "trans result shape does not match perm");
		}
		break;
	}
	case TOP_CONVERT_LAYOUT: check_elementwise(v, op, 1); break;
	case TOP_ADD: case TOP_SUB: case TOP_MUL: case TOP_DIV: case TOP_REM:
	case TOP_MIN: case TOP_MAX:
		check_elementwise(v, op, 2);
		expect(v, op, ty(v, in[0]).dt != DT_PTR, "arithmetic on pointers (use ptr_add)");
		break;
	case TOP_AND: case TOP_OR: case TOP_XOR: case TOP_SHL: case TOP_SHR: case TOP_UMULHI:
		check_elementwise(v, op, 2);
		expect(v, op, dtype_is_int((DType)ty(v, in[0]).dt), "bitwise op on a non-integer");
		break;
	case TOP_CMP: {
		check_counts(v, op, 2, 2, 1);
		Type a = ty(v, in[0]), r = ty(v, op->results[0]);
		expect(v, op, type_eq(a, ty(v, in[1])), "cmp operands differ in type");
		expect(v, op, r.dt == DT_I1 && same_shape(a, r), "cmp result is not i1 of the operand shape");
		expect(v, op, op->attr.pred >= PRED_EQ && op->attr.pred <= PRED_GE, "bad predicate");
		break;
	}
	case TOP_NEG: case TOP_NOT: check_elementwise(v, op, 1); break;
	case TOP_MATH: {
		int ar = math_fn_arity((MathFn)op->attr.math);
		expect(v, op, ar > 0, "bad math function");
		check_counts(v, op, ar, ar, 1);
		Type r = ty(v, op->results[0]);
		for (int i = 0; i < ar; i++) expect(v, op, same_shape(ty(v, in[i]), r), "math operand shape differs");
		break;
	}
	case TOP_FMA: check_elementwise(v, op, 3); break;
	case TOP_SELECT: {
		check_counts(v, op, 3, 3, 1);
		Type c = ty(v, in[0]), r = ty(v, op->results[0]);
		expect(v, op, c.dt == DT_I1 && (same_shape(c, r) || c.rank == 0), "select condition is not i1 of the result shape");
		expect(v, op, type_eq(ty(v, in[1]), r) && type_eq(ty(v, in[2]), r), "select operands differ from the result");
		break;
	}
	case TOP_CAST:
		check_counts(v, op, 1, 1, 1);
		expect(v, op, same_shape(ty(v, in[0]), ty(v, op->results[0])), "cast changes the shape");
		break;
	case TOP_BITCAST:
		check_counts(v, op, 1, 1, 1);
		expect(v, op, same_shape(ty(v, in[0]), ty(v, op->results[0])), "bitcast changes the shape");
		expect(v, op, dtype_bits((DType)ty(v, in[0]).dt) == dtype_bits((DType)ty(v, op->results[0]).dt),
		       "bitcast changes the bit width");
		break;
	case TOP_PTR_ADD: {
		check_counts(v, op, 2, 2, 1);
		Type p = ty(v, in[0]), o = ty(v, in[1]), r = ty(v, op->results[0]);
		expect(v, op, p.dt == DT_PTR && type_eq(p, r), "ptr_add result differs from its pointer operand");
		expect(v, op, dtype_is_int((DType)o.dt) && same_shape(o, p), "ptr_add offset is not an int of the same shape");
		break;
	}
	case TOP_PTR_TO_INT:
		check_counts(v, op, 1, 1, 1);
		expect(v, op, ty(v, in[0]).dt == DT_PTR && dtype_is_int((DType)ty(v, op->results[0]).dt), "bad ptr_to_int");
		break;
	case TOP_INT_TO_PTR:
		check_counts(v, op, 1, 1, 1);
		expect(v, op, ty(v, op->results[0]).dt == DT_PTR && dtype_is_int((DType)ty(v, in[0]).dt), "bad int_to_ptr");
		break;
	case TOP_LOAD: {
		int n = 1 + !!(op->attr.flags & TIR_HAS_MASK) + !!(op->attr.flags & TIR_HAS_OTHER);
		check_counts(v, op, n, n, 1);
		Type p = ty(v, in[0]), r = ty(v, op->results[0]);
		expect(v, op, p.dt == DT_PTR && p.elem == r.dt && same_shape(p, r), "load result does not match its pointer");
		int k = 1;
		if (op->attr.flags & TIR_HAS_MASK) {
			Type m = ty(v, in[k++]);
			expect(v, op, m.dt == DT_I1 && same_shape(m, p), "load mask is not i1 of the pointer shape");
		}
		if (op->attr.flags & TIR_HAS_OTHER) expect(v, op, type_eq(ty(v, in[k]), r), "load other differs from the result");
		break;
	}
	case TOP_STORE: {
		int n = 2 + !!(op->attr.flags & TIR_HAS_MASK);
		check_counts(v, op, n, n, 0);
		Type p = ty(v, in[0]), x = ty(v, in[1]);
		expect(v, op, p.dt == DT_PTR && p.elem == x.dt && same_shape(p, x), "store value does not match its pointer");
		if (n == 3) expect(v, op, ty(v, in[2]).dt == DT_I1 && same_shape(ty(v, in[2]), p), "store mask is not i1 of the pointer shape");
		break;
	}
	case TOP_ATOMIC: {
		check_counts(v, op, 2, 3, 1);
		Type p = ty(v, in[0]), x = ty(v, in[1]);
		expect(v, op, p.dt == DT_PTR && p.elem == x.dt && same_shape(p, x), "atomic value does not match its pointer");
		expect(v, op, type_eq(x, ty(v, op->results[0])), "atomic result differs from its value");
		if (op->nin == 3) expect(v, op, ty(v, in[2]).dt == DT_I1 && same_shape(ty(v, in[2]), p), "atomic mask is not i1");
		break;
	}
	case TOP_ATOMIC_CAS: {
		check_counts(v, op, 3, 3, 1);
		Type p = ty(v, in[0]), r = ty(v, op->results[0]);
		expect(v, op, p.dt == DT_PTR && p.elem == r.dt && same_shape(p, r), "atomic_cas result does not match its pointer");
		expect(v, op, type_eq(ty(v, in[1]), r) && type_eq(ty(v, in[2]), r), "atomic_cas operands differ");
		break;
	}
	case TOP_DOT: {
		check_counts(v, op, 3, 3, 1);
		Type a = ty(v, in[0]), b = ty(v, in[1]), c = ty(v, in[2]), r = ty(v, op->results[0]);
		int n = r.rank;
		expect(v, op, (n == 2 || n == 3) && a.rank == n && b.rank == n && type_eq(c, r),
		       "dot operands are not 2-d or 3-d (batched) / acc differs from result");
		if (n != 2 && n != 3)
			break;
		expect(v, op, a.shape[n - 1] == b.shape[n - 2] && r.shape[n - 2] == a.shape[n - 2] &&
		       r.shape[n - 1] == b.shape[n - 1] && (n == 2 || (a.shape[0] == r.shape[0] && b.shape[0] == r.shape[0])),
		       "dot shapes do not agree");
		break;
	}
	case TOP_PRINT: check_counts(v, op, 0, -1, 0); break;
	case TOP_ASSERT:
		check_counts(v, op, 1, 1, 0);
		expect(v, op, ty(v, in[0]).dt == DT_I1, "assert condition is not i1");
		break;
	case TOP_BARRIER:
	case TOP_ASYNC_COMMIT: check_counts(v, op, 0, 0, 0); break;
	case TOP_ASYNC_WAIT:
		check_counts(v, op, 0, 0, 0);
		expect(v, op, op->attr.i >= 0, "async_wait allows a negative number of groups");
		break;
	case TOP_ASYNC_COPY: {
		check_counts(v, op, 3, 3, 0);
		const TirSmemBuf *b = check_buf(v, op);
		Type p = ty(v, in[0]), m = ty(v, in[1]), s = ty(v, in[2]);
		expect(v, op, p.dt == DT_PTR && p.elem == b->tile.dt && same_shape(p, b->tile),
		       "async_copy pointer does not match its buffer's tile");
		expect(v, op, m.dt == DT_I1 && same_shape(m, p), "async_copy mask is not i1 of the pointer shape");
		expect(v, op, s.rank == 0 && s.dt == DT_I32, "async_copy slot is not an i32 scalar");
		expect(v, op, op->attr.i2 >= 1, "async_copy vector width < 1");
		break;
	}
	case TOP_LOCAL_LOAD: {
		check_counts(v, op, 1, 1, 1);
		const TirSmemBuf *b = check_buf(v, op);
		Type s = ty(v, in[0]);
		expect(v, op, s.rank == 0 && s.dt == DT_I32, "local_load slot is not an i32 scalar");
		expect(v, op, type_eq(ty(v, op->results[0]), b->tile), "local_load result differs from its buffer's tile");
		break;
	}
	case TOP_LOCAL_STORE: {
		check_counts(v, op, 2, 2, 0);
		const TirSmemBuf *b = check_buf(v, op);
		Type s = ty(v, in[1]);
		expect(v, op, type_eq(ty(v, in[0]), b->tile), "local_store value differs from its buffer's tile");
		expect(v, op, s.rank == 0 && s.dt == DT_I32, "local_store slot is not an i32 scalar");
		break;
	}
	case TOP_YIELD:
	case TOP_CONDITION:
	case TOP_RETURN:
	case TOP_REDUCE:
	case TOP_SCAN:
	case TOP_FOR:
	case TOP_IF:
	case TOP_WHILE:
	case TOP_COUNT: break;
	}
}

static void verify_block(Verifier *v, const TirBlock *b);

static void verify_region(Verifier *v, const TirOp *op, const TirBlock *b)
{
	size_t mark = v->stack.len;
	if (b->parent != op) fail(v, op, "region's parent is not its op");
	for (int i = 0; i < b->nargs; i++) define(v, op, b->args[i]);
	verify_block(v, b);
	while (v->stack.len > mark) v->defined[vec_pop(&v->stack)] = 0;
}

static void check_combine_region(Verifier *v, const TirOp *op)
{
	int n = op->nin;
	expect(v, op, op->nregions == 1 && n >= 1 && op->nout == n, "reduce/scan needs one region and n results");
	const TirBlock *r = &op->regions[0];
	expect(v, op, r->nargs == 2 * n, "combine region needs 2n arguments");
	Type t0 = ty(v, op->operands[0]);
	for (int i = 0; i < n; i++) {
		Type t = ty(v, op->operands[i]);
		expect(v, op, t.rank >= 1 && same_shape(t, t0), "reduce/scan operands differ in shape");
		expect(v, op, type_eq(ty(v, r->args[i]), type_elem(t)) && type_eq(ty(v, r->args[n + i]), type_elem(t)),
		       "combine region argument types differ from the operand dtypes");
		Type res = ty(v, op->results[i]);
		if (op->kind == TOP_SCAN) expect(v, op, type_eq(res, t), "scan result type differs from its operand");
		else {
			int ax = op->attr.axis;
			expect(v, op, ax >= 0 && ax < t.rank && res.rank == t.rank - 1 && res.dt == t.dt, "bad reduce result");
			for (int d = 0, s = 0; d < t.rank; d++)
				if (d != ax) expect(v, op, res.shape[s++] == t.shape[d], "reduce result shape");
		}
	}
	verify_region(v, op, r);
	check_region_end(v, op, r, TOP_YIELD, r->args, n);
}

static void check_region_op(Verifier *v, const TirOp *op)
{
	switch ((TirOpKind)op->kind) {
	case TOP_REDUCE:
	case TOP_SCAN: check_combine_region(v, op); break;
	case TOP_FOR: {
		expect(v, op, op->nin >= 3 && op->nregions == 1, "for needs (lb, ub, step, inits...) and one region");
		int n = op->nin - 3;
		expect(v, op, op->nout == n, "for results differ from its iter args");
		Type iv = ty(v, op->operands[0]);
		expect(v, op, iv.rank == 0 && dtype_is_int((DType)iv.dt), "for bounds are not integer scalars");
		expect(v, op, type_eq(ty(v, op->operands[1]), iv) && type_eq(ty(v, op->operands[2]), iv), "for bounds differ in type");
		const TirBlock *r = &op->regions[0];
		expect(v, op, r->nargs == n + 1 && type_eq(ty(v, r->args[0]), iv), "for region arguments");
		for (int i = 0; i < n; i++) {
			expect(v, op, type_eq(ty(v, r->args[i + 1]), ty(v, op->operands[3 + i])), "for iter arg type differs from its init");
			expect(v, op, type_eq(ty(v, op->results[i]), ty(v, op->operands[3 + i])), "for result type differs from its init");
		}
		verify_region(v, op, r);
		check_region_end(v, op, r, TOP_YIELD, op->results, n);
		break;
	}
	case TOP_IF: {
		expect(v, op, op->nin == 1 && op->nregions == 2, "if needs (cond) and two regions");
		Type c = ty(v, op->operands[0]);
		expect(v, op, c.rank == 0 && c.dt == DT_I1, "if condition is not an i1 scalar");
		for (int r = 0; r < 2; r++) {
			expect(v, op, op->regions[r].nargs == 0, "if regions take no arguments");
			verify_region(v, op, &op->regions[r]);
			check_region_end(v, op, &op->regions[r], TOP_YIELD, op->results, op->nout);
		}
		break;
	}
	case TOP_WHILE: {
		expect(v, op, op->nregions == 2, "while needs two regions");
		const TirBlock *before = &op->regions[0], *after = &op->regions[1];
		expect(v, op, before->nargs == op->nin, "while 'before' arguments differ from its inits");
		for (int i = 0; i < op->nin; i++)
			expect(v, op, type_eq(ty(v, before->args[i]), ty(v, op->operands[i])), "while arg type differs from its init");
		verify_region(v, op, before);
		if (before->nops == 0 || before->ops[before->nops - 1]->kind != TOP_CONDITION)
			fail(v, op, "while 'before' region does not end in 'condition'");
		const TirOp *cond = before->ops[before->nops - 1];
		expect(v, op, cond->nin == op->nout + 1, "condition passes a different number of values than the while results");
		Type ct = ty(v, cond->operands[0]);
		expect(v, op, ct.rank == 0 && ct.dt == DT_I1, "while condition is not an i1 scalar");
		expect(v, op, after->nargs == op->nout, "while 'after' arguments differ from its results");
		for (int i = 0; i < op->nout; i++) {
			expect(v, op, type_eq(ty(v, cond->operands[i + 1]), ty(v, op->results[i])), "condition value type");
			expect(v, op, type_eq(ty(v, after->args[i]), ty(v, op->results[i])), "while 'after' arg type");
		}
		verify_region(v, op, after);
		check_region_end(v, op, after, TOP_YIELD, op->operands, op->nin);
		break;
	}
	default: expect(v, op, op->nregions == 0, "op has regions"); break;
	}
}

static void verify_block(Verifier *v, const TirBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TirOp *op = b->ops[i];
		if (!op) fail(v, NULL, "null op in a block");
		if (op->kind >= TOP_COUNT) fail(v, op, "bad op kind %d", op->kind);
		if (op->block != b) fail(v, op, "op's block pointer is stale");
		for (int j = 0; j < op->nin; j++) {
			ValId id = op->operands[j];
			if (id == 0 || id >= v->f->vals.len) fail(v, op, "operand %d is invalid (%u)", j, id);
			if (!v->defined[id]) fail(v, op, "operand %d (value %u) is used before its definition or out of scope", j, id);
		}
		bool term = tir_op_flags((TirOpKind)op->kind) & TF_TERM;
		if (term && i != b->nops - 1) fail(v, op, "terminator in the middle of a block");
		if (op->kind == TOP_RETURN && b != v->f->entry) fail(v, op, "return outside the entry block");
		if ((op->kind == TOP_YIELD || op->kind == TOP_CONDITION) && !b->parent) fail(v, op, "yield in the entry block");
		check_op_types(v, op);
		if (tir_op_flags((TirOpKind)op->kind) & TF_REGION) check_region_op(v, op);
		else if (op->nregions) fail(v, op, "op has regions");
		for (int j = 0; j < op->nout; j++) {
			if (v->f->vals.data[op->results[j]].def != op) fail(v, op, "result %d does not point back at its op", j);
			define(v, op, op->results[j]);
		}
	}
}

void tir_verify(const TirFunc *f, const char *after_pass, bool layouts)
{
	Verifier v = {f, after_pass, layouts, xcalloc(f->vals.len + 1, 1), {0}};
	const TirBlock *e = f->entry;
	for (int i = 0; i < e->nargs; i++) {
		ValId id = e->args[i];
		if (id == 0 || id >= f->vals.len) fail(&v, NULL, "invalid entry argument");
		v.defined[id] = 1;
		vec_push(&v.stack, id);
	}
	for (int i = 0; i < f->nparams; i++) {
		if (i >= e->nargs || f->params[i].val != e->args[i])
			fail(&v, NULL, "param %d is not entry argument %d", i, i);
		Type t = f->vals.data[f->params[i].val].ty;
		if (t.rank != 0) fail(&v, NULL, "param %d is not a scalar", i);
	}
	if (f->nparams != e->nargs) fail(&v, NULL, "%d params but %d entry arguments", f->nparams, e->nargs);
	verify_block(&v, e);
	if (e->nops == 0 || e->ops[e->nops - 1]->kind != TOP_RETURN) fail(&v, NULL, "the entry block does not end in 'return'");
	for (int i = 0; i < f->nhints; i++)
		if (f->hints[i].val == 0 || f->hints[i].val >= f->vals.len) fail(&v, NULL, "hint names an invalid value");
	vec_free(&v.stack);
	free(v.defined);
}
