/* signature.c: Triton-style signature strings, one entry per kernel parameter.
 *
 *   "*fp32:16,*fp32:16,i32,1024"
 *
 * A runtime entry is a type: `*DTYPE` for a pointer, `DTYPE` for a scalar,
 * optionally followed by `:16` (pointer 16-byte aligned / integer divisible by
 * 16) or `:1` (integer equal to 1). Any other entry is a constant: an integer,
 * a float, True/False, None, a quoted string or a dtype (`tl.float16`). A
 * constexpr parameter must be given a constant; a runtime parameter given a
 * constant is specialized to it (as Triton does for None and for 1). A tuple
 * parameter (Triton passes `x.stride()` as one argument) is a parenthesized list
 * of such entries, `(i64:16,i64:16,i64:1)`. Missing trailing entries fall back to
 * the parameters' defaults (sema fills them).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "util/unicode_ident.h"
#include "util/py_number.h"

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Splits at top-level commas (commas inside quotes stay). Brackets are
 * matched by kind: a '<' opens only right after `tensordesc`, a closer ends
 * its innermost opener (and what it left open), and a comma ends an unclosed
 * '<' (a descriptor's commas are all in its [ ]), so a stray or unclosed
 * bracket in one entry does not swallow the entries after it. */
static int split_entries(char *s, char **out, int max)
{
	enum { MAX_NEST = 64 };
	char open[MAX_NEST];
	int n = 0, depth = 0;
	char quote = 0;
	out[n++] = s;
	for (char *p = s; *p; p++) {
		char c = *p;
		if (quote) {
			if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if ((c == '[' || c == '(' || (c == '<' && p - s >= 10 && !strncmp(p - 10, "tensordesc", 10))) &&
		           depth < MAX_NEST) {
			open[depth++] = c;
		} else if (c == '>' || c == ']' || c == ')') {
			char o = c == '>' ? '<' : c == ']' ? '[' : '(';
			int i = depth;
			while (i > 0 && open[i - 1] != o)
				i--;
			if (i > 0)
				depth = i - 1;
		} else if (c == ',') {
			while (depth > 0 && open[depth - 1] == '<')
				depth--;
			if (depth > 0)
				continue;
			if (n == max)
				return -1;
			*p = 0;
			out[n++] = p + 1;
		}
	}
	return n;
}

static bool parse_dtype_word(const char *w, DType *dt)
{
	if (strncmp(w, "tl.", 3) == 0)
		w += 3;
	else if (strncmp(w, "triton.language.", 16) == 0)
		w += 16;
	return dtype_from_name(w, dt) && *dt != DT_PTR && *dt != DT_VOID;
}

/* `Name`, `Name.attr` or `Name.attr.attr`: Python identifiers joined by at least
 * min_dots dots */
static bool is_dotted_name(const char *e, int min_dots) { return py_dotted_name(e, min_dots); }

/* A Python-literal constant, or the name of a module-level object (CV_NAME, looked
 * up in the kernel's module when the parameter is bound). Returns false if the
 * entry is neither. */
bool parse_const_literal(const char *e, Arena *a, ConstVal *cv)
{
	memset(cv, 0, sizeof *cv);
	size_t n = strlen(e);
	if (strcmp(e, "None") == 0) {
		cv->kind = CV_NONE;
		return true;
	}
	if (strcmp(e, "True") == 0 || strcmp(e, "False") == 0) {
		cv->kind = CV_BOOL;
		cv->i = e[0] == 'T';
		return true;
	}
	if (n >= 2 && (e[0] == '"' || e[0] == '\'') && e[n - 1] == e[0]) {
		cv->kind = CV_STR;
		cv->s = arena_strndup(a, e + 1, n - 2);
		return true;
	}
	if (strncmp(e, "tl.", 3) == 0 || strncmp(e, "triton.language.", 16) == 0) {
		cv->kind = CV_DTYPE;
		return parse_dtype_word(e, &cv->dtype);
	}
	/* as Python reads the literal (and tile run): strtoll took 010 as 8 */
	int64_t iv;
	uint64_t uv;
	double fv;
	switch (py_number(e, &iv, &uv, &fv)) {
	case PYNUM_INT: *cv = (ConstVal){.kind = CV_INT, .i = iv}; return true;
	case PYNUM_U64: *cv = (ConstVal){.kind = CV_INT, .i = (int64_t)uv, .u64 = true}; return true;
	case PYNUM_FLOAT: *cv = (ConstVal){.kind = CV_FLOAT, .f = fv}; return true;
	case PYNUM_BIG: return false;
	case PYNUM_NONE: break;
	}
	/* a bare word is more likely a mistyped type than a module's object */
	if (is_dotted_name(e, 1)) {
		cv->kind = CV_NAME;
		cv->s = arena_strdup(a, e);
		return true;
	}
	return false;
}

bool desc_block_dim_ok(int64_t v) { return v >= 1 && v <= (1 << 20) && !(v & (v - 1)); }

/* `tensordesc<fp16[64, 64]>`: a host tensor descriptor with that block shape;
 * `tensordesc<fp16[64, 64]>:16`: one whose last dimension is a multiple of 16.
 * Returns NULL, or what is wrong with the entry. */
static const char *parse_desc_entry(char *e, SpecArg *out)
{
	static const char form[] = "is not a tensor descriptor type (like tensordesc<fp16[64, 64]>, or "
	                           "tensordesc<fp16[64, 64]>:16)";
	e = trim(e);
	size_t n = strlen(e);
	bool last16 = false;
	char *colon = strrchr(e, ':'), *gt = strrchr(e, '>');
	if (colon && gt && colon > gt) {
		if (strcmp(trim(colon + 1), "16") != 0)
			return "is not a tensor descriptor type: a descriptor takes only the "
			       "specialization :16 (its last dimension a multiple of 16)";
		last16 = true;
		*colon = 0;
		e = trim(e);
		n = strlen(e);
	}
	if (strncmp(e, "tensordesc<", 11) != 0 || n < 13 || e[n - 1] != '>')
		return form;
	e[n - 1] = 0;
	char *lb = strchr(e + 11, '['), *rb = lb ? strchr(lb, ']') : NULL;
	if (!lb || !rb || *trim(rb + 1))
		return form;
	*lb = 0;
	*rb = 0;
	DType dt;
	if (!parse_dtype_word(trim(e + 11), &dt) || dt == DT_I1)
		return "is not a tensor descriptor type: its element type is not a dtype a "
		       "descriptor holds (like fp16 or i32)";
	memset(out, 0, sizeof *out);
	out->ty = type_ptr(dt);
	out->spec = SPEC_DIV16; /* the descriptor contract: a 16-byte aligned base */
	out->desc_last16 = last16;
	for (char *p = lb + 1; *trim(p);) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || !desc_block_dim_ok(v))
			return "is not a tensor descriptor type: each block dimension is a power "
			       "of two from 1 to 2^20";
		if (out->desc_rank == TIR_MAX_RANK)
			return "is not a tensor descriptor type: it has more block dimensions than "
			       "a tensor may";
		out->desc_block[out->desc_rank++] = (int32_t)v;
		p = trim(end);
		if (*p == ',')
			p++;
		else if (*p)
			return form;
	}
	return out->desc_rank > 0 ? NULL : form;
}

/* `*fp32:16`, `i32`, `i64:1` ... Returns false if the entry is not a type. */
static bool parse_type_entry(char *e, SpecArg *out)
{
	if (strncmp(trim(e), "tensordesc", 10) == 0)
		return !parse_desc_entry(e, out);
	char *colon = strchr(e, ':');
	int spec = SPEC_NONE;
	if (colon) {
		*colon = 0;
		const char *sp = trim(colon + 1);
		if (strcmp(sp, "16") == 0)
			spec = SPEC_DIV16;
		else if (strcmp(sp, "1") == 0)
			spec = SPEC_EQ1;
		else
			return false;
	}
	e = trim(e);
	bool is_ptr = e[0] == '*';
	DType dt;
	if (!parse_dtype_word(is_ptr ? trim(e + 1) : e, &dt))
		return false;
	memset(out, 0, sizeof *out);
	out->ty = is_ptr ? type_ptr(dt) : type_scalar(dt);
	out->spec = spec;
	if (is_ptr && spec == SPEC_EQ1)
		return false;
	if (!is_ptr && spec && !dtype_is_int(dt))
		return false;
	return true;
}

/* `(i32:16, i32:1, *fp16:16, 64)`: a tuple parameter, each element a runtime scalar or
 * pointer type, a constant or a tuple of them (`((i32, 1), ())`, as Triton's launcher
 * takes nested tuples). Returns false with a message in err. */
static bool parse_tuple_entry(char *e, Arena *a, const char *pname, SpecArg *out, char *err,
			      size_t errlen, int depth)
{
	enum { MAX_ELEMS = 64, MAX_DEPTH = 8 };
	if (depth >= MAX_DEPTH) {
		snprintf(err, errlen, "the tuple for parameter '%s' nests deeper than %d", pname, MAX_DEPTH);
		return false;
	}
	size_t n = strlen(e);
	char *inner = arena_strndup(a, e + 1, n - 2);
	char *elems[MAX_ELEMS];
	int ne = *trim(inner) ? split_entries(inner, elems, MAX_ELEMS) : 0;
	if (ne > 0 && !*trim(elems[ne - 1]))
		ne--; /* `(i32,)` */
	if (ne <= 0) {
		snprintf(err, errlen, "signature entry '%s' for parameter '%s' is %s", e, pname,
			 ne < 0 ? "a tuple of too many elements" : "an empty tuple");
		return false;
	}
	SpecArg *items = ARENA_NEWN(a, SpecArg, ne);
	for (int j = 0; j < ne; j++) {
		char *el = trim(elems[j]);
		size_t len = strlen(el);
		if (el[0] == '(' && len >= 2 && el[len - 1] == ')') {
			if (!*trim(arena_strndup(a, el + 1, len - 2))) { /* `()`: a constant */
				items[j].is_const = true;
				items[j].empty_tuple = true;
			} else if (!parse_tuple_entry(el, a, pname, &items[j], err, errlen, depth + 1)) {
				return false;
			}
			continue;
		}
		char *typebuf = arena_strdup(a, el); /* parse_type_entry writes into it */
		if (*el != '(' && strncmp(el, "tensordesc", 10) != 0 && parse_type_entry(typebuf, &items[j]))
			continue;
		if (*el == '(' || !parse_const_literal(el, a, &items[j].cval)) {
			snprintf(err, errlen,
				 "element %d ('%s') of the tuple for parameter '%s' is neither a type "
				 "(like i32:16 or *fp32:16) nor a constant",
				 j + 1, el, pname);
			return false;
		}
		items[j].is_const = true;
	}
	memset(out, 0, sizeof *out);
	out->tuple_len = ne;
	out->tuple = items;
	return true;
}

/* whether a tuple's item is, or holds, a runtime element */
static bool tuple_item_runtime(const SpecArg *e)
{
	if (!e->tuple_len)
		return !e->is_const;
	for (int j = 0; j < e->tuple_len; j++)
		if (tuple_item_runtime(&e->tuple[j]))
			return true;
	return false;
}

static bool names_in(const KernelInfo *k, const char *name)
{
	for (int i = 0; i < k->nscope_names; i++)
		if (!strcmp(k->scope_names[i], name)) return true;
	return false;
}

/* *at: the parameter an error concerns, -1 for the signature as a whole */
static int parse_sig(const char *sig, const KernelInfo *k, Arena *a, SpecArg **out, int *nout, char *err,
		     size_t errlen, int *at)
{
	*at = -1;
	if (k->deco_error) {
		snprintf(err, errlen, "%s", k->deco_error);
		return -1;
	}
	/* one entry per parameter at most: room for one more to tell "too many" */
	int max = k->nparams + 1;
	char **entries = ARENA_NEWN(a, char *, max);
	char *copy = arena_strdup(a, sig ? sig : "");
	int n = 0;
	if (*trim(copy))
		n = split_entries(copy, entries, max);
	if (n < 0 || n > k->nparams) {
		snprintf(err, errlen, "signature has %s%d entries but kernel '%s' has %d parameters",
			 n < 0 ? "more than " : "", n < 0 ? max : n, k->name, k->nparams);
		return -1;
	}
	SpecArg *args = ARENA_NEWN(a, SpecArg, k->nparams > 0 ? k->nparams : 1);
	for (int i = 0; i < n; i++) {
		const KernelParamInfo *p = &k->params[i];
		char *e = trim(entries[i]);
		*at = i;
		if (!*e) {
			snprintf(err, errlen, "signature entry %d (parameter '%s') is empty", i + 1,
				 p->name);
			return -1;
		}
		size_t len = strlen(e);
		if (e[0] == '(' && e[len - 1] == ')' && !*trim(arena_strndup(a, e + 1, len - 2))) {
			/* `()`: an empty tuple has no runtime element, so it is a constant */
			memset(&args[i], 0, sizeof args[i]);
			args[i].is_const = true;
			args[i].empty_tuple = true;
			continue;
		}
		if (e[0] == '(' && e[len - 1] == ')') {
			if (!parse_tuple_entry(e, a, p->name, &args[i], err, errlen, 0))
				return -1;
			/* a constexpr takes a tuple of constants (`shape: tl.constexpr` given x.shape) */
			for (int j = 0; p->is_constexpr && j < args[i].tuple_len; j++)
				if (tuple_item_runtime(&args[i].tuple[j])) {
					snprintf(err, errlen,
						 "signature entry '%s' for constexpr parameter '%s' is not a constant "
						 "(element %d is a type)",
						 e, p->name, j + 1);
					return -1;
				}
			continue;
		}
		if (e[0] == '(' && e[len - 1] != ')') {
			snprintf(err, errlen, "signature entry '%s' for parameter '%s' opens a tuple that is never closed", e,
				 p->name);
			return -1;
		}
		char *typebuf = arena_strdup(a, e); /* parse_type_entry writes into it */
		if (!p->is_constexpr && parse_type_entry(typebuf, &args[i]))
			continue;
		if (!p->is_constexpr && !strncmp(e, "tensordesc", 10)) {
			const char *why = parse_desc_entry(arena_strdup(a, e), &args[i]);
			snprintf(err, errlen, "signature entry '%s' for parameter '%s' %s", e, p->name,
				 why ? why : "is not a tensor descriptor type");
			return -1;
		}
		bool lit = false;
		if (p->is_constexpr && !strchr(e, '.') && is_dotted_name(e, 0) && names_in(k, e) &&
		    !parse_const_literal(e, a, &args[i].cval)) {
			/* a bare word for a constexpr that the kernel's module binds is that
			 * object (a @jit function the kernel calls, a module constant) */
			args[i].cval.kind = CV_NAME;
			args[i].cval.s = arena_strdup(a, e);
			lit = true;
		} else {
			lit = parse_const_literal(e, a, &args[i].cval);
		}
		if (!lit && !strncmp(e, "tl.", 3)) {
			/* tl.float8e4b15 & co: Triton dtypes tile does not have */
			snprintf(err, errlen, "signature entry '%s' for parameter '%s' is not a dtype tile supports", e,
				 p->name);
			return -1;
		}
		DType word;
		if (!lit && p->is_constexpr && parse_dtype_word(e, &word)) {
			/* `--const out_dtype=fp16`: a type word where a dtype value is meant */
			snprintf(err, errlen,
				 "signature entry '%s' for constexpr parameter '%s' is a type, not a constant (a value like 128, "
				 "or a dtype, written tl.%s)",
				 e, p->name, dtype_name(word));
			return -1;
		}
		int64_t iv;
		uint64_t uv;
		double fv;
		if (!lit && py_number(e, &iv, &uv, &fv) == PYNUM_BIG) {
			snprintf(err, errlen, "signature entry '%s' for parameter '%s': the integer does not fit in 64 bits", e,
				 p->name);
			return -1;
		}
		const char *digits = e + (*e == '-' || *e == '+');
		if (!lit && digits[0] == '0' && isdigit((unsigned char)digits[1]) && strspn(digits, "0123456789_") == strlen(digits)) {
			snprintf(err, errlen, "signature entry '%s' for parameter '%s' is no Python literal (a decimal "
				 "int has no leading zero; 0o for octal)", e, p->name);
			return -1;
		}
		if (!lit) {
			snprintf(err, errlen,
				 p->is_constexpr
					 ? "signature entry '%s' for constexpr parameter '%s' is not a constant"
					 : "signature entry '%s' for parameter '%s' is neither a type (like *fp32:16 or i32) nor a constant",
				 e, p->name);
			return -1;
		}
		args[i].is_const = true;
	}
	for (int i = n; i < k->nparams; i++) {
		*at = i;
		if (!k->params[i].has_default) {
			snprintf(err, errlen, "signature gives no entry for parameter '%s' of '%s'%s%s",
				 k->params[i].name, k->name, k->deco_note ? "; " : "", k->deco_note ? k->deco_note : "");
			return -1;
		}
	}
	*out = args;
	*nout = n;
	return 0;
}

int parse_signature(const char *sig, const KernelInfo *k, Arena *a, SpecArg **out, int *nout,
		    char *err, size_t errlen)
{
	int at;
	return parse_sig(sig, k, a, out, nout, err, errlen, &at);
}

int parse_signature_diag(const char *sig, const KernelInfo *k, Arena *a, SpecArg **out, int *nout,
			 DiagSink *d)
{
	char err[1024];
	int at;
	if (parse_sig(sig, k, a, out, nout, err, sizeof err, &at) == 0)
		return 0;
	if (k->deco_error) { /* already rendered, with its location */
		SrcLoc none = {0};
		diag_error(d, none, "%s", err);
		return -1;
	}
	diag_error(d, at >= 0 && k->params[at].loc.file ? k->params[at].loc : k->loc, "%s", err);
	return -1;
}
