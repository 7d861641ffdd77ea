/* run.c: `tile run`, and the argument binding the REPL shares.
 *
 *   tile run FILE.tile KERNEL --grid X[,Y[,Z]] [--out-dir DIR] NAME=VALUE...
 *
 * Every kernel parameter is bound by name. Pointers are .npy files
 * (NAME=@file.npy; the pointee dtype is the array's; NAME=@file.npy:desc[64,64]
 * a host tensor descriptor over it with that block shape) or arrays written
 * inline (NAME=zeros(1024), NAME=[1, 2, 3]:fp16: inline_array.c), everything else a Python
 * literal: 123 (i32 if it fits, else i64), 0.5 (fp32; a constexpr keeps the
 * double, `x: tl.float64` gets it in full), True/False, None,
 * 'str' or "str", tl.float16; a tuple parameter takes (48, 1) (each element a literal). The kernel is specialized from the values the
 * way Triton's launcher does it (tile_kernel_get_typed), launched, and with
 * --out-dir every pointer argument is written back as DIR/NAME.npy.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run_guard.h"
#include "util/npy.h"
#include "util/py_number.h"
#include "util/unicode_ident.h"

typedef struct Binding {
	const char *name; /* points into argv */
	const char *value;
	bool used;
} Binding;

typedef struct BoundArg {
	tile_arg arg;
	bool is_array;
	NpyArray npy;
	tile_dtype dtype;  /* the elements as the kernel sees them (a :bf16 view's) */
	tile_buffer *buf;  /* GPU targets */
	void *host;        /* host targets: the array in a guarded mapping */
	/* NAME=@file.npy:desc[B0,B1]: the array as a host tensor descriptor */
	tile_tensordesc desc;
	DLTensor dl;
	int64_t dl_shape[TILE_MAX_DESC_RANK];
	/* NAME=(1, 2, 3): a tuple parameter's elements (strings heap) */
	tile_tuple tuple;
	tile_arg *elems;
} BoundArg;

typedef struct RunCfg {
	uint32_t grid[3];
	const char *out_dir;
	bool print; /* --print: every array after the run, on stdout */
	tile_kernel_options kopt;
	Binding *binds;
	int nbinds;
} RunCfg;

/* ---- values ----------------------------------------------------------------------- */

static const struct {
	const char *descr;
	tile_dtype d;
} npy_types[] = {
        {"<f2", TILE_FP16}, {"<f4", TILE_FP32}, {"<f8", TILE_FP64}, {"|i1", TILE_I8},
        {"<i2", TILE_I16},  {"<i4", TILE_I32},  {"<i8", TILE_I64},  {"|u1", TILE_U8},
        {"<u2", TILE_U16},  {"<u4", TILE_U32},  {"<u8", TILE_U64},  {"|b1", TILE_BOOL},
};

/* A dtype name, after a `tl.` or `triton.language.` prefix (required when
 * `need_prefix`): `bf16`, `tl.float16`. */
static bool dtype_spelling(const char *s, bool need_prefix, DType *out)
{
	if (strncmp(s, "tl.", 3) == 0)
		s += 3;
	else if (strncmp(s, "triton.language.", 16) == 0)
		s += 16;
	else if (need_prefix)
		return false;
	return dtype_from_name(s, out) && api_dt_to_dtype(*out) != TILE_DTYPE_UNSPECIFIED;
}

static bool parse_dtype_literal(const char *s, tile_dtype *out)
{
	DType dt;
	if (!dtype_spelling(s, true, &dt))
		return false;
	*out = api_dt_to_dtype(dt);
	return true;
}

/* A Python literal. Returns false if s is not one. */
static bool parse_literal(const char *s, tile_arg *a)
{
	size_t n = strlen(s);
	if (strcmp(s, "True") == 0 || strcmp(s, "False") == 0) {
		*a = tile_arg_bool(s[0] == 'T');
		return true;
	}
	if (strcmp(s, "None") == 0) {
		*a = tile_arg_none();
		return true;
	}
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		*a = tile_arg_str(s); /* the caller strips the quotes into its own copy */
		return true;
	}
	tile_dtype d;
	if (parse_dtype_literal(s, &d)) {
		*a = tile_arg_dtype(d);
		return true;
	}
	int64_t iv;
	uint64_t uv;
	double fv;
	switch (py_number(s, &iv, &uv, &fv)) {
	case PYNUM_INT:
		*a = iv >= INT32_MIN && iv <= INT32_MAX ? tile_arg_i32((int32_t)iv) : tile_arg_i64(iv);
		return true;
	case PYNUM_U64: *a = tile_arg_u64(uv); return true; /* as Triton's launcher passes them */
	case PYNUM_FLOAT: *a = tile_arg_f64(fv); return true; /* fp32 for a runtime parameter: see as_python_float */
	default: return false;
	}
}

static bool host_target(tile_context *ctx)
{
	const char *t = tile_context_target(ctx);
	return t && (strcmp(t, "cpu") == 0 || strcmp(t, "cuda-emu") == 0);
}

/* `@file.npy:bf16`: a dtype after the last ':' that names one (Triton's
 * spelling, or tl.NAME) reinterprets the array's bits as that dtype, for the
 * element types NumPy has none of (bf16, fp8) stored as same-width integers.
 * Returns TILE_DTYPE_UNSPECIFIED (and leaves *path_len whole) when there is none. */
static tile_dtype view_suffix(const char *path, size_t *path_len, int *bytes)
{
	*path_len = strlen(path);
	const char *colon = strrchr(path, ':');
	DType dt;
	if (!colon || !dtype_spelling(colon + 1, false, &dt))
		return TILE_DTYPE_UNSPECIFIED;
	*path_len = (size_t)(colon - path);
	*bytes = dtype_bytes(dt);
	return api_dt_to_dtype(dt);
}

/* `@file.npy:desc[64,64]` (after any dtype view): the block shape of a host
 * tensor descriptor over the array. Returns 0 without one (*len whole), 1
 * with one (*len cut before it), -1 on a malformed one. */
static int desc_suffix(const char *v, size_t *len, tile_tensordesc *d)
{
	*len = strlen(v);
	const char *at = strstr(v, ":desc[");
	if (!at)
		return 0;
	const char *p = at + 6;
	d->block_rank = 0;
	while (*p && *p != ']') {
		char *end;
		long n = strtol(p, &end, 10);
		if (end == p || n < 1 || n > (1 << 20) || d->block_rank == TILE_MAX_DESC_RANK)
			return -1;
		d->block_shape[d->block_rank++] = (int32_t)n;
		p = end;
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
	}
	if (*p != ']' || p[1] || !d->block_rank)
		return -1;
	*len = (size_t)(at - v);
	return 1;
}

/* The DLPack type of an array as NumPy stores it (the view, if any, is the
 * descriptor's dtype). */
static DLDataType npy_dlpack_type(const NpyArray *a)
{
	char kind = a->dtype[1];
	DLDataType t = {kind == 'f' ? kDLFloat : kind == 'i' ? kDLInt : kDLUInt,
	                (uint8_t)(8 * a->elem_size), 1};
	if (kind == 'b')
		t.code = kDLBool;
	return t;
}

/* out->arg as a descriptor over the loaded array at `data`. */
static int make_desc(const Binding *b, BoundArg *out, void *data, bool on_gpu, tile_dtype view)
{
	if (out->npy.ndim != out->desc.block_rank) {
		fprintf(stderr,
		        "tile: error: argument '%s': the descriptor's block has %d dimension%s but the array "
		        "has %d (give one block size per array dimension)\n",
		        b->name, out->desc.block_rank, out->desc.block_rank == 1 ? "" : "s", out->npy.ndim);
		return EXIT_USER;
	}
	for (int i = 0; i < out->npy.ndim; i++)
		out->dl_shape[i] = out->npy.shape[i];
	out->dl.data = data;
	out->dl.device.device_type = on_gpu ? kDLCUDA : kDLCPU;
	out->dl.ndim = out->npy.ndim;
	out->dl.dtype = npy_dlpack_type(&out->npy);
	out->dl.shape = out->dl_shape;
	out->dl.strides = NULL; /* C order */
	out->desc.tensor = &out->dl;
	out->desc.dtype = view;
	out->arg = tile_arg_tensordesc(&out->desc);
	return 0;
}

static int bind_array(tile_context *ctx, const Binding *b, BoundArg *out, tile_dtype view,
                      int want, int has_desc);

/* desc_suffix of b's value (from v on), reporting a malformed one */
static int desc_suffix_of(const Binding *b, const char *v, size_t *len, tile_tensordesc *d)
{
	int has = desc_suffix(v, len, d);
	if (has < 0)
		fprintf(stderr,
		        "tile: error: argument '%s': bad descriptor block shape in '%s' (expected "
		        ":desc[B0,B1,...], 1 to %d powers of two)\n",
		        b->name, b->value, TILE_MAX_DESC_RANK);
	return has;
}

static int load_array(tile_context *ctx, const Binding *b, BoundArg *out)
{
	char err[256];
	size_t plen;
	int want = 0;
	int has_desc = desc_suffix_of(b, b->value + 1, &plen, &out->desc);
	if (has_desc < 0)
		return EXIT_USER;
	char *spec = xstrdup(b->value + 1);
	spec[plen] = 0; /* the path and its dtype view */
	tile_dtype view = view_suffix(spec, &plen, &want);
	free(spec);
	char *path = xstrdup(b->value + 1);
	path[plen] = 0;
	int rc = npy_read(path, &out->npy, err, sizeof err);
	/* `@a.npy:fp8e4b15`: no such file, but a.npy is one; the suffix names no dtype */
	const char *colon = strrchr(path, ':');
	struct stat st;
	bool bad_view = false;
	if (rc != 0 && view == TILE_DTYPE_UNSPECIFIED && colon && stat(path, &st) != 0) {
		char *file = xstrdup(path);
		file[colon - path] = 0;
		bad_view = stat(file, &st) == 0;
		free(file);
	}
	if (bad_view)
		fprintf(stderr,
		        "tile: error: argument '%s': '%s' after ':' is not a dtype to view the array as "
		        "(bf16, fp16, fp8e4nv, fp8e5, i32, ... or tl.NAME)\n",
		        b->name, colon + 1);
	free(path);
	if (rc != 0) {
		if (!bad_view)
			fprintf(stderr, "tile: error: argument '%s': %s\n", b->name, err);
		return EXIT_USER;
	}
	return bind_array(ctx, b, out, view, want, has_desc);
}

/* The array in out->npy as the argument: its dtype (or the view's, of `want`
 * bytes per element), in guarded host memory or a device buffer, as a
 * pointer or (has_desc) a host tensor descriptor. */
static int bind_array(tile_context *ctx, const Binding *b, BoundArg *out, tile_dtype view,
                      int want, int has_desc)
{
	out->is_array = true;
	tile_dtype d = TILE_DTYPE_UNSPECIFIED;
	for (size_t i = 0; i < COUNTOF(npy_types); i++)
		if (strcmp(npy_types[i].descr, out->npy.dtype) == 0)
			d = npy_types[i].d;
	if (view != TILE_DTYPE_UNSPECIFIED) {
		if (out->npy.elem_size != want) {
			fprintf(stderr,
			        "tile: error: argument '%s': '%s' holds %d-byte elements ('%s'); viewing them as %s "
			        "needs %d-byte ones (save the bits as %s)\n",
			        b->name, b->value + 1, out->npy.elem_size, out->npy.dtype, tile_dtype_name(view), want,
			        want == 1 ? "uint8" : want == 2 ? "uint16" : want == 4 ? "uint32" : "uint64");
			return EXIT_USER;
		}
		d = view;
	} else if (d == TILE_DTYPE_UNSPECIFIED) {
		fprintf(stderr,
		        "tile: error: argument '%s': dtype '%s' of '%s' is not supported (for bf16 or fp8 data, "
		        "save the bits as unsigned integers and bind NAME=@FILE.npy:bf16)\n",
		        b->name, out->npy.dtype, b->value + 1);
		return EXIT_USER;
	}
	out->dtype = d;
	if (host_target(ctx)) {
		if (run_guard_full()) {
			fprintf(stderr, "tile: error: argument '%s': more than %d array arguments\n", b->name,
			        RUN_MAX_GUARDS);
			return EXIT_USER;
		}
		out->host = run_guard_alloc(b->name, out->npy.nbytes);
		if (!out->host) {
			fprintf(stderr, "tile: error: argument '%s': cannot map %zu bytes\n", b->name,
			        out->npy.nbytes);
			return EXIT_USER;
		}
		if (out->npy.nbytes)
			memcpy(out->host, out->npy.data, out->npy.nbytes);
		if (has_desc)
			return make_desc(b, out, out->host, false, view);
		out->arg = tile_arg_ptr(out->host, d);
		return 0;
	}
	if (tile_buffer_alloc(ctx, out->npy.nbytes, &out->buf) != TILE_OK ||
	    tile_buffer_upload(out->buf, 0, out->npy.data, out->npy.nbytes) != TILE_OK) {
		cli_report(ctx);
		return EXIT_USER;
	}
	if (has_desc)
		return make_desc(b, out, tile_buffer_ptr(out->buf), true, view);
	out->arg = tile_arg_ptr(tile_buffer_ptr(out->buf), d);
	return 0;
}

/* A quoted literal's text without the quotes, on the heap. */
static char *unquote(const char *s)
{
	size_t n = strlen(s);
	char *u = xmalloc(n - 1);
	memcpy(u, s + 1, n - 2);
	u[n - 2] = 0;
	return u;
}

/* The elements of a tuple argument and of the tuples nested in it: strings
 * and nested tile_tuples are on the heap. */
static void free_tuple_elems(tile_arg *elems, size_t n)
{
	for (size_t j = 0; elems && j < n; j++) {
		if (elems[j].kind == TILE_ARG_STR)
			free((char *)elems[j].str);
		if (elems[j].kind == TILE_ARG_TUPLE && elems[j].tuple) {
			free_tuple_elems((tile_arg *)elems[j].tuple->elems, elems[j].tuple->len);
			free((tile_tuple *)elems[j].tuple);
		}
	}
	free(elems);
}

/* The text between '(' and its ')' in s (s[0] == '('): the ')' or NULL. */
static char *closing_paren(char *s)
{
	int depth = 0;
	char quote = 0;
	for (char *p = s; *p; p++) {
		if (quote)
			quote = *p == quote ? 0 : quote;
		else if (*p == '\'' || *p == '"')
			quote = *p;
		else if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return p;
	}
	return NULL;
}

/* `16, 1` or `'a', (2.5, 3),` or ``: the elements of a tuple, each a literal or
 * a tuple of them (Triton's launcher takes nested tuples), into *elems / *n. */
static int parse_tuple_elems(const char *name, char *p, int depth, tile_arg **elems, size_t *n)
{
	enum { MAX_ELEMS = 64, MAX_DEPTH = 8 };
	*elems = xcalloc(MAX_ELEMS, sizeof **elems);
	*n = 0;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return 0; /* () or a trailing comma */
		char *start = p, quote = 0;
		if (*p == '(') {
			char *close = closing_paren(p);
			p = close ? close + 1 : p + strlen(p);
		}
		for (; *p && (quote || *p != ','); p++)
			quote = quote ? (*p == quote ? 0 : quote) : (*p == '\'' || *p == '"' ? *p : 0);
		char *next = *p ? p + 1 : p;
		while (p > start && isspace((unsigned char)p[-1]))
			p--;
		*p = 0;
		tile_arg a;
		size_t len = strlen(start);
		if (*n == MAX_ELEMS) {
			fprintf(stderr, "tile: error: argument '%s': a tuple of more than %d elements\n", name,
			        MAX_ELEMS);
			return EXIT_USER;
		}
		if (start[0] == '(' && start[len - 1] == ')' && depth + 1 < MAX_DEPTH) {
			start[len - 1] = 0;
			tile_tuple *t = xcalloc(1, sizeof *t);
			tile_arg *inner = NULL;
			int rc = parse_tuple_elems(name, start + 1, depth + 1, &inner, &t->len);
			t->elems = inner;
			(*elems)[(*n)++] = tile_arg_tuple(t); /* freed with the rest, also on an error */
			if (rc)
				return rc;
		} else if (start[0] == '@' || start[0] == '(' || !parse_literal(start, &a)) {
			fprintf(stderr,
			        "tile: error: argument '%s': tuple element %zu ('%s') is not a number, "
			        "True/False, None, a quoted string, tl.DTYPE or a tuple of them%s\n",
			        name, *n + 1, start, start[0] == '(' ? " (nested at most 8 deep, closed)" : "");
			return EXIT_USER;
		} else {
			if (a.kind == TILE_ARG_STR)
				a.str = unquote(start);
			if (a.kind == TILE_ARG_F64) /* a Python float: fp32 at run time */
				a = tile_arg_f32((float)a.f64);
			(*elems)[(*n)++] = a;
		}
		p = next;
	}
}

/* NAME=(16, 1) or ('a', 2.5,) or () or ((1, 2), 3): a tuple parameter's argument
 * (Triton's launcher takes x.stride() as one), each element a literal or a tuple. */
static int bind_tuple(const Binding *b, BoundArg *out)
{
	size_t n = strlen(b->value);
	char *close = closing_paren((char *)b->value);
	if (n < 2 || close != b->value + n - 1) {
		fprintf(stderr, "tile: error: argument '%s': '%s' has no closing ')'\n", b->name,
		        b->value);
		return EXIT_USER;
	}
	char *inner = xmalloc(n - 1);
	memcpy(inner, b->value + 1, n - 2);
	inner[n - 2] = 0;
	int rc = parse_tuple_elems(b->name, inner, 0, &out->elems, &out->tuple.len);
	free(inner);
	out->tuple.elems = out->elems;
	out->arg = tile_arg_tuple(&out->tuple);
	return rc;
}

/* `relu` or `Dtype.FP32`: Python identifiers joined by dots. */
static bool is_dotted_name(const char *s) { return py_dotted_name(s, 0); }

/* NAME=zeros(8, fp16), NAME=[1, 2, 3], ... (inline_array.c), with an optional
 * :desc[...] block shape after it. */
static int make_array(tile_context *ctx, const Binding *b, BoundArg *out)
{
	size_t len;
	int has_desc = desc_suffix_of(b, b->value, &len, &out->desc);
	if (has_desc < 0)
		return EXIT_USER;
	char *text = xstrdup(b->value);
	text[len] = 0;
	char err[256];
	tile_dtype view;
	int rc = cli_inline_array(b->name, text, &out->npy, &view, err, sizeof err);
	free(text);
	if (rc != 0) {
		fprintf(stderr, "tile: error: argument '%s': %s\n", b->name, err);
		return EXIT_USER;
	}
	return bind_array(ctx, b, out, view, out->npy.elem_size, has_desc);
}

static int bind_value(tile_context *ctx, const Binding *b, bool is_constexpr, BoundArg *out)
{
	if (b->value[0] == '@')
		return load_array(ctx, b, out);
	if (cli_is_inline_array(b->value))
		return make_array(ctx, b, out);
	if (b->value[0] == '(')
		return bind_tuple(b, out);
	if (!parse_literal(b->value, &out->arg)) {
		if (is_constexpr && is_dotted_name(b->value)) {
			/* an object of the kernel's module (a @jit function, an Enum member),
			 * as --const binds it; the kernel's module resolves it */
			out->arg = tile_arg_name(b->value);
			return 0;
		}
		int64_t iv;
		uint64_t uv;
		double fv;
		if (py_number(b->value, &iv, &uv, &fv) == PYNUM_BIG) {
			fprintf(stderr, "tile: error: argument '%s': integer %s does not fit in 64 bits\n",
			        b->name, b->value);
			return EXIT_USER;
		}
		fprintf(stderr,
		        "tile: error: argument '%s': cannot parse '%s' (expected @file.npy, an "
		        "array such as zeros(8, fp16) or [1, 2], a number, True/False, None, a "
		        "quoted string, tl.DTYPE or, for a constexpr parameter, a name of the "
		        "kernel's module)\n",
		        b->name, b->value);
		return EXIT_USER;
	}
	if (out->arg.kind == TILE_ARG_STR) /* strip the quotes */
		out->arg.str = unquote(b->value);
	return 0;
}

static tile_arg arg_from_default(const ConstVal *v)
{
	switch (v->kind) {
	case CV_INT:
		return v->i >= INT32_MIN && v->i <= INT32_MAX ? tile_arg_i32((int32_t)v->i)
		                                              : tile_arg_i64(v->i);
	case CV_FLOAT: return tile_arg_f64(v->f);
	case CV_BOOL: return tile_arg_bool((int)v->i);
	case CV_STR: return tile_arg_str(v->s);
	case CV_DTYPE: return tile_arg_dtype(api_dt_to_dtype(v->dtype));
	case CV_NAME: return tile_arg_name(v->s); /* a default that names a @jit function */
	case CV_NONE: break;
	}
	return tile_arg_none();
}

/* ---- options ------------------------------------------------------------------------ */

static bool parse_grid(const char *s, uint32_t grid[3])
{
	grid[0] = grid[1] = grid[2] = 1;
	for (int d = 0; d < 3; d++) {
		char *end;
		errno = 0;
		if (*s < '0' || *s > '9')
			return false;
		unsigned long v = strtoul(s, &end, 10);
		if (errno || v == 0 || v > 0x7fffffffUL)
			return false;
		grid[d] = (uint32_t)v;
		if (*end == 0)
			return true;
		if (*end != ',' && *end != 'x')
			return false;
		s = end + 1;
	}
	return false;
}

static int parse_run_opts(int argc, char **argv, RunCfg *c)
{
	c->grid[0] = c->grid[1] = c->grid[2] = 1;
	c->binds = xcalloc((size_t)argc + 1, sizeof *c->binds);
	const char *grid = NULL;
	int seen_warps = 0, seen_stages = 0, seen_fusion = 0, seen_debug = 0;
	for (int i = 0; i < argc; i++) {
		const char *v;
		int r;
		CommonOpts co = {0};
		if ((r = cli_opt_value(argc, argv, &i, "--grid", &v)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
			if (grid) { /* not "the last wins": a grid left over from an edit runs part of the work */
				cli_usage_error("--grid is given twice ('%s' and '%s')", grid, v);
				return EXIT_USAGE;
			}
			grid = v;
			if (!parse_grid(v, c->grid)) {
				cli_usage_error(
				        "--grid takes X[,Y[,Z]] with positive integers, got '%s'",
				        v);
				return EXIT_USAGE;
			}
		} else if ((r = cli_opt_value(argc, argv, &i, "--out-dir", &v)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
			if (c->out_dir) {
				cli_usage_error("--out-dir is given twice ('%s' and '%s')", c->out_dir, v);
				return EXIT_USAGE;
			}
			c->out_dir = v;
		} else if (strcmp(argv[i], "--print") == 0) {
			c->print = true;
		} else if ((r = cli_common_opt(argc, argv, &i, &co)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
			if (co.target || co.emulate_cuda) {
				cli_usage_error("--target/--emulate must come before the kernel's "
				                "arguments");
				return EXIT_USAGE;
			}
			/* these override the session's (the REPL's) options, once each */
			if ((co.num_warps && seen_warps++) || (co.num_stages && seen_stages++) ||
			    (co.no_fp_fusion && seen_fusion++) || (co.debug && seen_debug++)) {
				cli_usage_error("%s is given twice", co.num_warps      ? "--num-warps"
				                                     : co.num_stages   ? "--num-stages"
				                                     : co.no_fp_fusion ? "--no-fp-fusion"
				                                                       : "--debug");
				return EXIT_USAGE;
			}
			if (co.debug)
				c->kopt.debug = 1;
			if (co.num_warps)
				c->kopt.num_warps = co.num_warps;
			if (co.num_stages)
				c->kopt.num_stages = co.num_stages;
			if (co.no_fp_fusion)
				c->kopt.disable_fp_fusion = 1;
		} else if (argv[i][0] != '-' && strchr(argv[i], '=') && argv[i][0] != '=') {
			char *eq = strchr(argv[i], '=');
			*eq = 0;
			c->binds[c->nbinds++] = (Binding){argv[i], eq + 1, false};
		} else {
			cli_usage_error("unexpected argument '%s' (arguments are NAME=VALUE)",
			                argv[i]);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* ---- binding -------------------------------------------------------------------------- */

static void list_params(StrBuf *b, const tile_param_info *p, int n)
{
	for (int i = 0; i < n; i++)
		sb_printf(b, "%s%s", i ? ", " : "", p[i].name);
}

static int check_names(const RunCfg *c, const char *kernel, const tile_param_info *p, int np)
{
	int rc = 0;
	for (int b = 0; b < c->nbinds; b++) {
		int found = -1;
		for (int i = 0; i < np; i++)
			if (strcmp(p[i].name, c->binds[b].name) == 0)
				found = i;
		for (int e = 0; e < b; e++)
			if (strcmp(c->binds[e].name, c->binds[b].name) == 0) {
				fprintf(stderr, "tile: error: argument '%s' is given twice\n",
				        c->binds[b].name);
				rc = EXIT_USER;
			}
		/* Triton's launch keywords (k[grid](..., num_warps=8)) are options here */
		static const char *const launch_kw[][2] = {{"num_warps", "--num-warps N"},
		                                           {"num_stages", "--num-stages N"},
		                                           {"enable_fp_fusion", "--no-fp-fusion for False"},
		                                           {"debug", "--debug for True"}};
		bool option = false;
		for (size_t k = 0; found < 0 && k < sizeof launch_kw / sizeof launch_kw[0]; k++)
			if (!strcmp(c->binds[b].name, launch_kw[k][0])) {
				fprintf(stderr,
				        "tile: error: '%s' is a launch option of Triton's kernel call, not a "
				        "parameter of kernel '%s': pass %s\n",
				        launch_kw[k][0], kernel, launch_kw[k][1]);
				option = true;
				rc = EXIT_USER;
			}
		if (found < 0 && !option) {
			StrBuf s = {0};
			list_params(&s, p, np);
			fprintf(stderr,
			        "tile: error: kernel '%s' has no parameter '%s' (parameters: %s)\n",
			        kernel, c->binds[b].name, s.len ? s.s : "none");
			sb_free(&s);
			rc = EXIT_USER;
		}
	}
	return rc;
}

static const Binding *find_binding(const RunCfg *c, const char *name)
{
	for (int b = 0; b < c->nbinds; b++)
		if (strcmp(c->binds[b].name, name) == 0)
			return &c->binds[b];
	return NULL;
}

/* A Python float is a double: a constexpr keeps all of it (Triton specializes on
 * the value), a runtime parameter gets it as fp32, as Triton's launcher passes it,
 * unless a float annotation types it (`x: tl.float64` keeps every bit; the
 * library converts the double to the annotated dtype). */
static void as_python_float(tile_arg *a, bool is_constexpr, DType ann)
{
	if (a->kind == TILE_ARG_F64 && !is_constexpr && !dtype_is_float(ann))
		*a = tile_arg_f32((float)a->f64);
}

/* --num-warps / --num-stages are the launch keywords of Triton's `k[grid](...,
 * num_warps=8)`, which bind a parameter of that name too: its value for an
 * unbound constexpr parameter so named, else 0 (the library checks a bound one
 * against the option). */
static int option_arg(const RunCfg *c, const tile_param_info *p)
{
	if (!p->is_constexpr || find_binding(c, p->name))
		return 0;
	return !strcmp(p->name, "num_warps") ? c->kopt.num_warps
	       : !strcmp(p->name, "num_stages") ? c->kopt.num_stages
	                                         : 0;
}

/* Fills args[0..*nargs) from the bindings; defaults fill gaps before the last bound one. */
static int bind_all(tile_context *ctx, tile_module *mod, const char *kernel, const RunCfg *c,
                    BoundArg *args, int *nargs)
{
	const tile_param_info *p;
	int np;
	if (tile_module_kernel_params(mod, kernel, &p, &np) != TILE_OK) {
		cli_report(ctx);
		return EXIT_USER;
	}
	const KernelInfo *ki = api_find_kernel(mod, kernel);
	if (ki->deco_error) { /* the decorators decide what the arguments mean: their error first */
		fputs(ki->deco_error, stderr);
		return EXIT_USER;
	}
	int rc = check_names(c, kernel, p, np);
	if (rc)
		return rc;
	int last = 0;
	for (int i = 0; i < np; i++) {
		if (find_binding(c, p[i].name) || option_arg(c, &p[i]))
			last = i + 1;
		else if (!p[i].has_default) {
			/* deco_note: why a decorator that would set it could not be read */
			fprintf(stderr, "tile: error: missing argument '%s' for kernel '%s'%s%s\n",
			        p[i].name, kernel, ki->deco_note ? "; " : "", ki->deco_note ? ki->deco_note : "");
			rc = EXIT_USER;
		}
	}
	/* a host descriptor or a tuple is launched with every parameter: defaults
	 * to the end */
	for (int i = 0; i < np; i++) {
		const Binding *b = find_binding(c, p[i].name);
		if (b && (((b->value[0] == '@' || cli_is_inline_array(b->value)) &&
		           strstr(b->value, ":desc[")) ||
		          b->value[0] == '('))
			last = np;
	}
	for (int i = 0; i < last && !rc; i++) {
		const Binding *b = find_binding(c, p[i].name);
		if (b)
			rc = bind_value(ctx, b, p[i].is_constexpr, &args[i]);
		else if (option_arg(c, &p[i]))
			args[i].arg = tile_arg_i32(option_arg(c, &p[i]));
		else if (ki->params[i].default_object && ki->params[i].default_val.kind != CV_NAME) {
			fprintf(stderr,
			        "tile: error: parameter '%s' of kernel '%s' is left to its default, which no "
			        "argument can stand for (not a name of the module), while a parameter "
			        "after it is bound\n",
			        p[i].name, kernel);
			rc = EXIT_USER;
		} else
			args[i].arg = arg_from_default(&ki->params[i].default_val);
		as_python_float(&args[i].arg, p[i].is_constexpr, (DType)ki->params[i].ann_dt);
	}
	*nargs = last;
	return rc;
}

/* ---- running ------------------------------------------------------------------------------ */

/* --out-dir is made and checked before the kernel runs: found unusable
 * after it, the run's results were lost. */
static int make_out_dir(const char *dir)
{
	struct stat st;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "tile: error: --out-dir: cannot create '%s': %s\n", dir, strerror(errno));
		return EXIT_USER;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "tile: error: --out-dir: '%s' is not a directory this user can write into\n", dir);
		return EXIT_USER;
	}
	return 0;
}

/* Each array's file name in --out-dir fits the directory's name limit, and
 * is no source of the kernel (a kernel file named X.npy, or a link to one),
 * checked before the run: a parameter name past NAME_MAX failed after it. */
static int check_out_names(const char *dir, const tile_module *mod, const tile_param_info *p,
                           const BoundArg *args, int n)
{
	long max = pathconf(dir, _PC_NAME_MAX);
	if (max <= 0)
		max = NAME_MAX;
	for (int i = 0; i < n; i++) {
		if (!args[i].is_array)
			continue;
		if (strlen(p[i].name) + 4 > (size_t)max) {
			fprintf(stderr,
			        "tile: error: --out-dir: the file for array '%.40s...' (%zu characters and .npy) "
			        "would have a name longer than the %ld bytes a file name in '%s' may have\n",
			        p[i].name, strlen(p[i].name), max, dir);
			return EXIT_USER;
		}
		StrBuf path = {0};
		sb_printf(&path, "%s/%s.npy", dir, p[i].name);
		const char *src = cli_source_at(mod, path.s);
		if (src)
			fprintf(stderr,
			        "tile: error: --out-dir: '%s', the file for array '%s', is the kernel's source "
			        "'%s'; name another directory\n",
			        path.s, p[i].name, src);
		sb_free(&path);
		if (src)
			return EXIT_USER;
	}
	return 0;
}

/* The arrays after the run, back in their NpyArray */
static int fetch_outputs(BoundArg *args, int n, tile_context *ctx)
{
	for (int i = 0; i < n; i++) {
		if (!args[i].is_array)
			continue;
		if (args[i].host) {
			if (args[i].npy.nbytes)
				memcpy(args[i].npy.data, args[i].host, args[i].npy.nbytes);
		} else if (tile_buffer_download(args[i].buf, 0, args[i].npy.data, args[i].npy.nbytes) !=
		           TILE_OK) {
			cli_report(ctx);
			return EXIT_USER;
		}
	}
	return 0;
}

static int write_outputs(const char *dir, const tile_param_info *p, BoundArg *args, int n)
{
	int rc0 = make_out_dir(dir);
	if (rc0)
		return rc0;
	for (int i = 0; i < n; i++) {
		if (!args[i].is_array)
			continue;
		StrBuf path = {0};
		sb_printf(&path, "%s/%s.npy", dir, p[i].name);
		/* room for the whole path and the reason: a parameter name past
		 * NAME_MAX cut "File name too long" off the message */
		size_t errlen = path.len + 256;
		char *err = xmalloc(errlen);
		int rc = npy_write(path.s, &args[i].npy, err, errlen);
		sb_free(&path);
		if (rc != 0)
			fprintf(stderr, "tile: error: %s\n", err);
		free(err);
		if (rc != 0)
			return EXIT_USER;
	}
	return 0;
}

/* DLPack's type for the elements a kernel sees (a :bf16 view's, not the file's) */
static DLDataType dlpack_of(tile_dtype d)
{
	static const struct {
		tile_dtype d;
		DLDataType t;
	} map[] = {
	        {TILE_BOOL, {kDLBool, 8, 1}},         {TILE_I8, {kDLInt, 8, 1}},
	        {TILE_I16, {kDLInt, 16, 1}},          {TILE_I32, {kDLInt, 32, 1}},
	        {TILE_I64, {kDLInt, 64, 1}},          {TILE_U8, {kDLUInt, 8, 1}},
	        {TILE_U16, {kDLUInt, 16, 1}},         {TILE_U32, {kDLUInt, 32, 1}},
	        {TILE_U64, {kDLUInt, 64, 1}},         {TILE_FP8E4M3, {kDLFloat8_e4m3fn, 8, 1}},
	        {TILE_FP8E5M2, {kDLFloat8_e5m2, 8, 1}}, {TILE_FP16, {kDLFloat, 16, 1}},
	        {TILE_BF16, {kDLBfloat, 16, 1}},      {TILE_FP32, {kDLFloat, 32, 1}},
	        {TILE_FP64, {kDLFloat, 64, 1}},
	};
	for (size_t i = 0; i < COUNTOF(map); i++)
		if (map[i].d == d)
			return map[i].t;
	return (DLDataType){0, 0, 0};
}

static int launch(tile_context *ctx, tile_module *mod, const char *kernel, const RunCfg *c,
                  BoundArg *args, int nargs)
{
	tile_arg *typed = xcalloc((size_t)nargs + 1, sizeof *typed);
	/* an array is specialized as a DLTensor, so that heuristics and
	 * early_config_prune see its shape and strides as Triton's see the tensor;
	 * it is launched as the pointer */
	DLTensor *dls = xcalloc((size_t)nargs + 1, sizeof *dls);
	for (int i = 0; i < nargs; i++) {
		typed[i] = args[i].arg;
		if (args[i].is_array && args[i].arg.kind == TILE_ARG_PTR) {
			DLTensor *t = &dls[i];
			t->data = args[i].arg.ptr;
			t->device.device_type = args[i].host ? kDLCPU : kDLCUDA;
			t->ndim = args[i].npy.ndim;
			t->dtype = dlpack_of(args[i].dtype);
			t->shape = args[i].npy.shape;
			t->strides = NULL; /* C order */
			typed[i] = tile_arg_dltensor(t);
		}
	}
	tile_kernel *k = NULL;
	int rc = 0;
	if (tile_kernel_get_typed(mod, kernel, typed, (size_t)nargs, &c->kopt, &k) != TILE_OK) {
		cli_report(ctx);
		rc = EXIT_USER;
	} else {
		/* runtime arguments only; a host descriptor or a tuple is given with
		 * all the parameters (the launch then takes its DLTensor, or the
		 * tuple's runtime elements) */
		bool desc = false;
		for (int i = 0; i < nargs; i++)
			desc = desc || args[i].arg.kind == TILE_ARG_TENSORDESC ||
			       args[i].arg.kind == TILE_ARG_TUPLE;
		int nrt = 0;
		for (int i = 0; i < nargs; i++)
			if (desc || tile_kernel_param_is_runtime(k, i))
				typed[nrt++] = args[i].arg;
		run_guard_launch(true); /* host arrays: the kernel runs in this process */
		if (tile_launch(k, c->grid, typed, (size_t)nrt, NULL) != TILE_OK ||
		    tile_synchronize(ctx) != TILE_OK) {
			cli_report(ctx);
			rc = EXIT_USER;
		}
		run_guard_launch(false);
		if (!rc && !run_guard_check())
			rc = EXIT_USER;
	}
	tile_kernel_destroy(k);
	free(typed);
	free(dls);
	return rc;
}

int cli_run_kernel(tile_context *ctx, tile_module *mod, const char *kernel, int argc, char **argv,
                   const CommonOpts *base, bool print)
{
	RunCfg c = {.print = print};
	if (base) {
		c.kopt.num_warps = base->num_warps;
		c.kopt.num_stages = base->num_stages;
		c.kopt.disable_fp_fusion = base->no_fp_fusion;
		c.kopt.debug = base->debug;
	}
	int rc = parse_run_opts(argc, argv, &c);
	const tile_param_info *p = NULL;
	int np = 0;
	if (!rc && tile_module_kernel_params(mod, kernel, &p, &np) != TILE_OK) {
		cli_report(ctx);
		rc = EXIT_USER;
	}
	BoundArg *args = xcalloc((size_t)np + 1, sizeof *args);
	int nargs = 0;
	if (!rc && c.out_dir)
		rc = make_out_dir(c.out_dir);
	if (!rc)
		rc = bind_all(ctx, mod, kernel, &c, args, &nargs);
	if (!rc && c.out_dir)
		rc = check_out_names(c.out_dir, mod, p, args, nargs);
	if (!rc)
		rc = launch(ctx, mod, kernel, &c, args, nargs);
	if (!rc && (c.out_dir || c.print))
		rc = fetch_outputs(args, nargs, ctx);
	for (int i = 0; !rc && c.print && i < nargs; i++)
		if (args[i].is_array)
			cli_print_array(stdout, p[i].name, &args[i].npy, args[i].dtype);
	if (!rc && c.out_dir)
		rc = write_outputs(c.out_dir, p, args, nargs);
	for (int i = 0; i < np; i++) {
		if (args[i].arg.kind == TILE_ARG_STR && find_binding(&c, p[i].name))
			free((char *)args[i].arg.str);
		free_tuple_elems(args[i].elems, args[i].tuple.len);
		tile_buffer_free(args[i].buf);
		if (args[i].host)
			run_guard_free(args[i].host);
		npy_free(&args[i].npy);
	}
	free(args);
	free(c.binds);
	return rc;
}
