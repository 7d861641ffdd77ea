/* builtins_print.c: tl.device_print, print, tl.static_print, tl.device_assert
 * and tl.debug_barrier. */
#include <stdio.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- prints and asserts --------------------------------------------------------------------- */

static Value emit_print(Sema *s, Call *c, const char *prefix, const Value *vals, const SrcLoc *at, int n, bool hex)
{
	ValId *ids = ARENA_NEWN(s->a, ValId, n + 1);
	int k = 0;
	StrBuf pre = {0};
	sb_puts(&pre, prefix ? prefix : "");
	for (int i = 0; i < n; i++) {
		Value v = vals[i];
		if (v.kind == V_ERR) {
			sb_free(&pre);
			return v;
		}
		if (v.kind == V_CONST && v.c.kind == CV_STR && k == 0) {
			sb_printf(&pre, "%s%s", pre.len ? " " : "", v.c.s);
			continue;
		}
		if (v.kind == V_CONST && v.c.kind != CV_STR && v.c.kind != CV_NONE && v.c.kind != CV_DTYPE) {
			ids[k++] = to_ir_natural(s, v, at[i]);
			continue;
		}
		if (v.kind != V_TENSOR) {
			diag_error(s->d, at[i], "cannot print %s", v_describe(s, v));
			sb_free(&pre);
			return v_err();
		}
		ids[k++] = v.id;
	}
	/* Triton's semantic.device_print: with values the prefix ends in ": ", and
	 * one longer than 2 starts with a space ("x" -> " x: ", "" -> ": ") */
	if (k && (!pre.len || pre.s[pre.len - 1] != ' '))
		sb_putc(&pre, ' ');
	if (k && (pre.len < 2 || pre.s[pre.len - 2] != ':')) {
		pre.s[pre.len - 1] = ':';
		sb_putc(&pre, ' ');
	}
	const char *p = pre.s ? pre.s : "";
	if (strlen(p) > 2 && p[0] != ' ')
		p = arena_printf(s->a, " %s", p);
	TirOp *op = emit_op(s, TOP_PRINT, c->loc, ids, k, type_scalar(DT_VOID));
	op->attr.str = arena_strdup(s->a, p);
	if (hex) op->attr.flags |= TIR_HEX;
	sb_free(&pre);
	return v_none();
}

static Value b_device_print(Sema *s, Call *c, int extra)
{
	(void)extra;
	/* Triton asserts the prefix is a str of printable ASCII characters */
	if (v_is_none(c->a[0])) {
		diag_error(s->d, c->at[0], "the prefix of tl.device_print must be a string, not None (use '')");
		return v_err();
	}
	const char *prefix = arg_str(s, c, 0);
	if (!prefix) return v_err();
	for (const unsigned char *p = (const unsigned char *)prefix; *p; p++)
		if (*p > 126 || (*p < 32 && !strchr(" \t\n\r\v\f", *p))) {
			diag_error(s->d, c->at[0], "the prefix of tl.device_print must be printable ASCII");
			return v_err();
		}
	bool hex = false; /* slot 2: slot 1 is *args */
	if (c->has[2] && !arg_bool(s, c, 2, &hex)) return v_err();
	return emit_print(s, c, prefix, c->rest, c->rest_at, c->nrest, hex);
}

static Value b_print(Sema *s, Call *c, int extra)
{
	(void)extra;
	return emit_print(s, c, "", c->rest, c->rest_at, c->nrest, false);
}

/* tl.static_print(*values, sep=" "): a note at compile time (Triton prints to
 * stdout when it compiles; the library never prints, so the note goes to the
 * diagnostic callback, which the CLI prints). Constexprs print as str() does,
 * tensors as their type. */

/* One static_print value; a tuple (a tensor's .shape, most often) as Python
 * prints it, its items with strings quoted, where it printed as "tuple".
 * A list prints as one ([1, 2]; Value.list). A tuple that shares
 * its items (t = (t, t) repeated) is exponential when printed: the text stops
 * past `limit` characters (a note at 4096, with "..."; str() at STR_MAX_LEN,
 * where it is an error). Every item printed adds a character or more, so the
 * walk is as long as the text. */
static void print_static(Sema *s, StrBuf *b, Value v, int depth, size_t limit)
{
	char buf[256];
	if (b->len > limit) return;
	const char *obj;
	if (v_is_enum_member(v)) sb_puts(b, enum_member_str(s, v, depth > 0)); /* str(): SIGNEDNESS.SIGNED */
	else if ((obj = pytype_str(s, v, (SrcLoc){0}))) sb_puts(b, obj); /* constexpr_type[4] */
	else if (v.kind == V_CONST && v.c.kind == CV_STR) sb_puts(b, depth ? py_repr_str(s, v.c.s ? v.c.s : "").c.s : v.c.s);
	else if (v.kind == V_CONST) const_str(v.c, buf, sizeof buf), sb_puts(b, buf);
	else if (v.kind == V_DTYPE) sb_puts(b, dtype_value_name(s, v));
	else if (v.kind == V_TUPLE) { /* a list as Python prints it: [1, 2], [1] */
		if (v.set && !v.n) {
			sb_puts(b, "set()");
			return;
		}
		sb_putc(b, v.set ? '{' : v.list ? '[' : '(');
		for (int i = 0; i < v.n; i++) {
			if (i) sb_puts(b, ", ");
			if (b->len > limit) {
				sb_puts(b, "...");
				break;
			}
			print_static(s, b, v.items[i], depth + 1, limit);
		}
		sb_puts(b, v.set ? "}" : v.list ? "]" : v.n == 1 ? ",)" : ")");
	} else if (v.kind == V_DICT && !v.msg) { /* {'a': 1}: a repeated key where it first was, its last value */
		sb_putc(b, '{');
		bool first = true;
		for (int i = 0; i < v.n && b->len <= 4096; i++) {
			bool seen = false;
			for (int j = 0; j < i && !seen; j++) seen = dict_index(v, v.keys[j]) == dict_index(v, v.keys[i]);
			if (seen) continue;
			if (!first) sb_puts(b, ", ");
			first = false;
			print_static(s, b, v.keys[i], depth + 1, limit);
			sb_puts(b, ": ");
			print_static(s, b, v.items[dict_index(v, v.keys[i])], depth + 1, limit);
		}
		sb_puts(b, b->len > limit ? "...}" : "}");
	} else sb_puts(b, v_describe(s, v));
}

enum { PRINT_NOTE_MAX = 4096 };

const char *py_repr_text(Sema *s, Value v)
{
	StrBuf b = {0};
	print_static(s, &b, v, 1, PRINT_NOTE_MAX);
	const char *r = arena_strdup(s->a, b.s ? b.s : "");
	sb_free(&b);
	return r;
}

/* repr() of a tuple, list or dict of constexprs, whole: it was the note's text,
 * cut at 4096 characters with "...", so str(tuple(range(2000))) ended in
 * "841, ...)". More than STR_MAX_LEN characters is an error; a step per 16. */
Value py_repr_whole(Sema *s, Value v, const char *what, SrcLoc loc)
{
	StrBuf b = {0};
	print_static(s, &b, v, 1, STR_MAX_LEN);
	if (b.len > STR_MAX_LEN) {
		sb_free(&b);
		diag_error(s->d, loc, "'%s' gives more than %d characters", what, STR_MAX_LEN);
		return v_err();
	}
	Value r = sema_work(s, (int64_t)(b.len / 16), loc) ? v_str(arena_strdup(s->a, b.s ? b.s : "")) : v_err();
	sb_free(&b);
	return r;
}

static Value b_static_print(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *sep = c->has[1] && !v_is_none(c->a[1]) ? arg_str(s, c, 1) : " ";
	if (!sep) return v_err();
	StrBuf b = {0};
	for (int i = 0; i < c->nrest; i++) {
		Value v = c->rest[i];
		if (v.kind == V_ERR) {
			sb_free(&b);
			return v;
		}
		if (i) sb_puts(&b, sep);
		print_static(s, &b, v, 0, PRINT_NOTE_MAX);
	}
	/* end= as Python's print writes it; the note is a line, so a final newline is its end */
	const char *end = c->has[2] && !v_is_none(c->a[2]) ? arg_str(s, c, 2) : "\n";
	if (!end) {
		sb_free(&b);
		return v_err();
	}
	sb_puts(&b, end);
	if (b.len && b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
	/* its text is kept with the diagnostics: a step per 16 characters */
	if (sema_work(s, (int64_t)(b.len / 16), c->loc)) diag_emit(s->d, DIAG_NOTE, c->loc, "static_print: %s", b.s ? b.s : "");
	sb_free(&b);
	return v_none();
}

static Value b_device_assert(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *msg = c->has[1] ? arg_str(s, c, 1) : "";
	if (!msg) return v_err();
	Value v = c->a[0];
	ValId cond;
	if (v.kind == V_CONST && v.c.kind != CV_STR) cond = emit_const(s, type_scalar(DT_I1), const_truthy(v.c), 0, c->at[0]);
	else if (!arg_tensor(s, c, 0, &cond)) return v_err();
	cond = to_bool(s, cond, c->at[0]);
	if (c->has[2] && !v_is_none(c->a[2])) {
		/* assert (cond or not mask) */
		ValId m;
		if (!arg_tensor(s, c, 2, &m)) return v_err();
		m = to_bool(s, m, c->at[2]);
		ValId nm = emit(s, TOP_NOT, c->at[2], &m, 1, vtype(s, m));
		if (!broadcast_pair(s, &cond, &nm, c->loc)) return v_err();
		ValId in[2] = {cond, nm};
		cond = emit(s, TOP_OR, c->loc, in, 2, vtype(s, cond));
	}
	if (!s->debug) return v_none(); /* checked, then dropped, as Triton's semantic does without debug */
	TirOp *op = emit_op(s, TOP_ASSERT, c->loc, &cond, 1, type_scalar(DT_VOID));
	op->attr.str = *msg ? msg : "device assertion failed";
	return v_none();
}

static Value b_barrier(Sema *s, Call *c, int extra)
{
	(void)extra;
	emit_op(s, TOP_BARRIER, c->loc, NULL, 0, type_scalar(DT_VOID))->attr.flags = TIR_USER_BARRIER;
	return v_none();
}

const Builtin builtins_print[] = {
    {"static_print", "*values,sep=None,end=None,file=None,flush=False", b_static_print, 0, BF_TL},
    {"device_print", "prefix,*args,hex=False", b_device_print, 0, BF_TL},
    {"device_assert", "cond,msg='',mask=None", b_device_assert, 0, BF_TL},
    {"debug_barrier", "", b_barrier, 0, BF_TL},
    {"print", "*args", b_print, 0, BF_PY},
    {NULL, NULL, NULL, 0, 0},
};
