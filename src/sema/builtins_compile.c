/* builtins_compile.c: compile-time helpers: constexpr, static_assert, tl.assume,
 * target queries, triton.jit/Config as values, cdiv and next_power_of_2,
 * torch.finfo/iinfo, Python's math module, find_spec and version checks. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "sema/sema_int.h"

/* ---- compile-time helpers ---------------------------------------------------------------- */

static Value b_constexpr(Sema *s, Call *c, int extra)
{
	(void)s;
	(void)extra;
	return enum_wrap(c->a[0]); /* tl.constexpr(Act.RELU).value is the member */
}

static Value b_static_assert(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (v.kind == V_TENSOR) {
		diag_error(s->d, c->at[0], "tl.static_assert needs a constexpr condition");
		return v_err();
	}
	bool ok = value_truthy(v);
	if (!ok) {
		const char *msg = c->has[1] ? arg_str(s, c, 1) : "";
		if (msg && *msg) diag_error(s->d, c->at[0], "static assertion failed: %s", msg);
		else diag_error(s->d, c->at[0], "static assertion failed");
		return v_err();
	}
	return v_none();
}

/* tl.assume(cond): a promise to the optimizer; tile checks that it is a
 * condition and uses nothing from it (dropping a hint is always correct) */
static Value b_assume(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_ERR) return v;
	if (v.kind == V_CONST && (v.c.kind == CV_BOOL || v.c.kind == CV_INT)) return v_none();
	if (v.kind != V_TENSOR || v.ty.dt != DT_I1) {
		diag_error(s->d, c->at[0], "tl.assume needs a boolean condition, got %s", v_describe(s, v));
		return v_err();
	}
	return v_none();
}

static Value b_noop(Sema *s, Call *c, int extra)
{
	(void)s;
	(void)c;
	(void)extra;
	return v_none();
}

/* tl.target_info (constexpr functions of the compile target). tile compiles
 * Triton's NVIDIA dialect on every target (inline PTX is translated), so
 * is_cuda() holds everywhere and the is_hip*() queries are False; the CPU
 * targets have the sm_80 feature level they emulate (mma.sync, cp.async). */
static Value b_target_is(Sema *s, Call *c, int cuda)
{
	(void)s;
	(void)c;
	return v_bool(cuda);
}

static Value b_target_cc_geq(Sema *s, Call *c, int extra)
{
	(void)extra;
	int64_t major, minor = 0;
	if (!arg_const_int(s, c, 0, &major) || (c->has[1] && !arg_const_int(s, c, 1, &minor))) return v_err();
	const TargetDesc *t = s->c->target;
	int arch = t && t->kind == TARGET_CUDA && !t->emulate ? t->arch : 80;
	return v_bool(arch >= major * 10 + minor);
}

/* triton.constexpr_function(f), the call form of the decorator (TE wraps
 * core.get_int_dtype with it on Triton 3.5+): f itself, since tile evaluates a call on
 * constexprs at compile time anyway */
static Value b_constexpr_function(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value f = c->a[0];
	if (f.kind == V_ERR || f.kind == V_FUNC || f.kind == V_BUILTIN || f.kind == V_LAMBDA) return f;
	diag_error(s->d, c->at[0], "constexpr_function takes a function, got %s", v_describe(s, f));
	return v_err();
}

/* triton.aggregate / tl.core._aggregate: a class decorator (class_aggregate
 * in sema.c looks for it); called on a class, it gives the class back */
static Value b_aggregate(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v = c->a[0];
	if (v.kind == V_ERR || (v.kind == V_MODULE && v.mod->cls)) return v;
	diag_error(s->d, c->at[0], "aggregate takes a class, got %s", v_describe(s, v));
	return v_err();
}

/* tl.extra.cuda.num_warps() / num_threads(): the kernel's launch option, a constexpr
 * (a heuristic that sets num_warps has run before the body) */
static Value b_cuda_num_warps(Sema *s, Call *c, int extra)
{
	(void)c;
	return v_int((int64_t)s->f->num_warps * (extra ? 32 : 1));
}

/* tl.extra.cuda.globaltimer() (uint64 nanoseconds) / smid() (int32): read
 * anew at each call, the same value in every thread of the program */
static Value b_cuda_sreg(Sema *s, Call *c, int extra)
{
	TirOp *op = emit_op(s, TOP_SREG, c->loc, NULL, 0, type_scalar(extra == SREG_SMID ? DT_I32 : DT_U64));
	op->attr.i = extra;
	return v_tensor(s, op->results[0]);
}

/* range(...) / tl.static_range(...) outside a for statement: with constexpr
 * bounds, the tuple of its values (comprehensions, tuple(range(4)), len, in). */
static Value b_loop_only(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value v[3] = {v_int(0), v_int(0), v_int(1)};
	bool all_const = c->nrest >= 1 && c->nrest <= 3;
	for (int i = 0; all_const && i < c->nrest; i++) {
		if (c->rest[i].kind == V_ERR) return v_err();
		if (!v_is_intlike(c->rest[i])) all_const = false;
		else {
			v[i] = c->rest[i];
			v[i].c.kind = CV_INT; /* range(True) is range(1) */
		}
	}
	if (all_const) {
		if (c->nrest == 1) {
			v[1] = v[0];
			v[0] = v_int(0);
		}
		if (c->nrest == 3 && v[2].c.i == 0) {
			s->py_errors++;
			diag_error(s->d, c->loc, "'%s' step must not be zero", c->name);
			return v_err();
		}
		uint64_t n = const_range_len(v[0].c, v[1].c, v[2].c);
		if (n > 65536) {
			s->py_errors++;
			diag_error(s->d, c->loc, "'%s' with %llu values is too long to evaluate at compile time", c->name,
				   (unsigned long long)n);
			return v_err();
		}
		/* each item is a tuple item built: charged, so a range re-evaluated in a
		 * nested comprehension cannot fill memory faster than the work limit allows */
		if (!sema_work(s, (int64_t)n, c->loc)) return v_err();
		Value r = v_tuple(s, NULL, 0);
		r.n = (int)n;
		r.items = n ? ARENA_NEWN(s->a, Value, n) : NULL;
		for (uint64_t i = 0; i < n; i++) r.items[i] = i ? const_range_next(r.items[i - 1], v[2]) : v[0];
		return r;
	}
	diag_error(s->d, c->loc, "'%s' can only be used as the iterable of a for loop", c->name);
	return v_err();
}

static Value b_jit(Sema *s, Call *c, int extra)
{
	(void)extra;
	if (c->has[0] && c->a[0].kind == V_FUNC) {
		s->jit_applied++;
		return c->a[0];
	}
	if (c->has[0] && c->a[0].kind != V_ERR) {
		diag_error(s->d, c->at[0], "'%s' expects a function", c->name);
		return v_err();
	}
	return v_builtin(builtin_find("jit", BF_TRITON), NULL);
}

/* triton.Config(kwargs, num_warps=None, num_stages=None, ...): V_CONFIG (checked by
 * @triton.autotune, which knows where each Config is) */
static Value b_config(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value kw = c->a[0];
	if (kw.kind == V_ERR) return kw;
	if (kw.kind != V_DICT) {
		diag_error(s->d, c->at[0], "argument 'kwargs' of 'triton.Config' must be a dict, got %s", v_describe(s, kw));
		return v_err();
	}
	for (int i = 0; i < kw.n; i++) {
		if (!v_is_const(kw.keys[i], CV_STR)) {
			diag_error(s->d, c->at[0], "the keys of a triton.Config must be parameter names (strings)");
			return v_err();
		}
		Value v = kw.items[i];
		if (v.kind != V_CONST && !v_dtype_is_const(v) && !v_is_enum_member(v)) {
			diag_error(s->d, c->at[0], "triton.Config value for '%s' must be a constexpr, got %s", kw.keys[i].c.s,
				   v_describe(s, v));
			return v_err();
		}
	}
	Value items[3] = {kw, v_none(), v_none()}; /* None: the Config does not say */
	for (int k = 1; k <= 2; k++) {
		int64_t n = 0;
		if (!c->has[k] || v_is_none(c->a[k])) continue;
		if (!arg_const_int(s, c, k, &n)) return v_err();
		items[k] = v_int(n);
	}
	Value r = v_tuple(s, items, 3);
	r.kind = V_CONFIG;
	return r;
}

static Value b_cdiv(Sema *s, Call *c, int extra)
{
	(void)extra;
	Value x = c->a[0], d = c->a[1];
	if (x.kind == V_CONST && d.kind == V_CONST) {
		Value t = const_binop(s, OP_ADD, x, d, c->loc);
		t = const_binop(s, OP_SUB, t, v_int(1), c->loc);
		return const_binop(s, OP_FLOORDIV, t, d, c->loc);
	}
	Value t = binop(s, OP_ADD, x, d, c->loc);
	t = binop(s, OP_SUB, t, v_int(1), c->loc);
	return binop(s, OP_FLOORDIV, t, d, c->loc);
}

/* triton.next_power_of_2(n), as Triton computes it (n - 1 with every lower bit
 * set, plus 1): 0 for n <= 0, 2**63 a uint64, past it 2**64 out of range */
static Value b_next_pow2(Sema *s, Call *c, int extra)
{
	(void)extra;
	ConstVal v = c->a[0].c;
	if (c->a[0].kind == V_ERR) return c->a[0];
	if (!v_is_intlike(c->a[0])) {
		diag_error(s->d, c->at[0], "%s needs a constexpr int, got %s", c->name, v_describe(s, c->a[0]));
		return v_err();
	}
	if (!v.u64 && v.i <= 0) return v_int(0);
	uint64_t u = (uint64_t)v.i;
	if (u > (UINT64_C(1) << 63)) {
		diag_error(s->d, c->at[0], "%s(%llu) is 2**64, outside [-2**63, 2**64)", c->name, (unsigned long long)u);
		return v_err();
	}
	uint64_t p = 1;
	while (p < u) p <<= 1;
	return v_uint64(p);
}

/* tl.core.get_int_dtype(bitwidth, signed): the integer dtype of that width
 * (int1 for 1 bit), as Triton's; kernels use it to bitcast to unsigned */
static Value b_get_int_dtype(Sema *s, Call *c, int extra)
{
	(void)extra;
	int64_t bits;
	bool sign;
	if (!arg_const_int(s, c, 0, &bits) || !arg_bool(s, c, 1, &sign)) return v_err();
	DType dt = DT_VOID;
	switch (bits) {
	case 1: dt = DT_I1; break;
	case 8: dt = sign ? DT_I8 : DT_U8; break;
	case 16: dt = sign ? DT_I16 : DT_U16; break;
	case 32: dt = sign ? DT_I32 : DT_U32; break;
	case 64: dt = sign ? DT_I64 : DT_U64; break;
	default:
		diag_error(s->d, c->at[0], "unsupported bitwidth %lld for an integer dtype", (long long)bits);
		return v_err();
	}
	return v_dtype(type_scalar(dt));
}

/* tl.standard._log2(n): log2 of a constexpr power of two (kernels doing their
 * own bitonic sorts use it, as Triton's sort does) */
static Value b_log2_const(Sema *s, Call *c, int extra)
{
	(void)extra;
	int64_t n;
	if (!arg_const_int(s, c, 0, &n)) return v_err();
	if (n <= 0 || (n & (n - 1))) {
		diag_error(s->d, c->at[0], "'%s' needs a positive power of two, got %lld", c->name, (long long)n);
		return v_err();
	}
	int k = 0;
	while ((1LL << k) < n) k++;
	return v_int(k);
}

/* torch.finfo(dtype) / torch.iinfo(dtype): module-level constants in real
 * projects (`FP8_MIN = torch.finfo(torch.float8_e4m3fn).min`). An object
 * whose attributes are min, max, bits (and eps, tiny, smallest_normal,
 * resolution for floats), all exact. */
static Value b_torch_info(Sema *s, Call *c, int is_float)
{
	Type t;
	if (!arg_dtype(s, c, 0, &t)) return v_err();
	DType d = (DType)t.dt;
	static const struct {
		DType dt;
		double max, eps, tiny, res;
	} fl[] = {
	    {DT_F16, 65504.0, 0x1p-10, 0x1p-14, 1e-3},
	    {DT_BF16, 0x1.fep127, 0x1p-7, 0x1p-126, 1e-2},
	    {DT_F32, 0x1.fffffep127, 0x1p-23, 0x1p-126, 1e-6},
	    {DT_F64, 0x1.fffffffffffffp1023, 0x1p-52, 0x1p-1022, 1e-15},
	    {DT_F8E4M3, 448.0, 0x1p-3, 0x1p-6, 1e-1},
	    {DT_F8E5M2, 57344.0, 0x1p-2, 0x1p-14, 1e-1},
	};
	Value keys[10], vals[10];
	int n = 0;
	if (is_float) {
		size_t i = 0;
		while (i < COUNTOF(fl) && fl[i].dt != d) i++;
		if (i == COUNTOF(fl)) {
			diag_error(s->d, c->at[0], "torch.finfo needs a floating-point dtype, got %s", dtype_name(d));
			return v_err();
		}
		const char *names[] = {"min", "max", "eps", "tiny", "smallest_normal", "resolution"};
		double v[] = {-fl[i].max, fl[i].max, fl[i].eps, fl[i].tiny, fl[i].tiny, fl[i].res};
		for (int k = 0; k < 6; k++) keys[n] = v_str(names[k]), vals[n++] = v_float(v[k]);
	} else {
		if (!dtype_is_int(d) || d == DT_I1) {
			diag_error(s->d, c->at[0], "torch.iinfo needs an integer dtype, got %s", dtype_name(d));
			return v_err();
		}
		int bits = dtype_bits(d);
		bool sgn = dtype_is_signed(d);
		int64_t lo = sgn ? (int64_t)(-(1ULL << (bits - 1))) : 0;
		uint64_t hi = sgn ? (1ULL << (bits - 1)) - 1 : bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
		keys[n] = v_str("min"), vals[n++] = v_int(lo);
		keys[n] = v_str("max"), vals[n++] = v_int((int64_t)hi);
	}
	keys[n] = v_str("bits"), vals[n++] = v_int(dtype_bits(d));
	keys[n] = v_str("dtype"), vals[n++] = v_str(dtype_name(d));
	Value r = v_dict(s, keys, vals, n);
	r.msg = is_float ? "torch.finfo" : "torch.iinfo"; /* an object: attributes are its keys */
	return r;
}


/* Python's math module on constexpr numbers: module constants such as
 * `_kAlpha = math.sqrt(2.0 / math.pi)` or `RCP_LN2 = 1 / math.log(2)`.
 * floor/ceil/trunc give ints, the rest floats, as in Python. */
enum { PM_SQRT, PM_EXP, PM_EXP2, PM_LOG, PM_LOG2, PM_LOG10, PM_LOG1P, PM_POW, PM_FLOOR, PM_CEIL, PM_TRUNC,
       PM_FABS, PM_SIN, PM_COS, PM_TAN, PM_ASIN, PM_ACOS, PM_ATAN, PM_ATAN2, PM_TANH, PM_ERF, PM_ISNAN,
       PM_ISINF, PM_ISFINITE, PM_COPYSIGN };

static bool pymath_arg(Sema *s, Call *c, int i, double *out)
{
	Value v = c->a[i];
	if (v.kind == V_ERR) return false;
	if (v.kind == V_CONST && (v.c.kind == CV_INT || v.c.kind == CV_BOOL)) {
		*out = const_as_double(v.c);
		return true;
	}
	if (v.kind == V_CONST && v.c.kind == CV_FLOAT) {
		*out = v.c.f;
		return true;
	}
	diag_error(s->d, c->at[i], "%s works on constexpr numbers, got %s (use tl.math for tensors)", c->name,
		   v_describe(s, v));
	return false;
}

/* A constexpr number's own Python methods: Triton reads an attribute of a
 * tl.constexpr off the value it wraps, so `ITERS: tl.constexpr = N.bit_length()`
 * is Python's int.bit_length. extra: 0 bit_length, 1 bit_count, 2 is_integer. */
static Value b_pynum(Sema *s, Call *c, int extra)
{
	(void)s;
	ConstVal v = c->a[0].c;
	if (extra == 2) return v_bool(v.kind != CV_FLOAT || (isfinite(v.f) && floor(v.f) == v.f));
	uint64_t m = v.u64 || v.i >= 0 ? (uint64_t)v.i : 0 - (uint64_t)v.i;
	int n = 0;
	for (; m; m >>= 1)
		n += extra == 0 ? 1 : (int)(m & 1);
	return v_int(n);
}

static Value b_pymath(Sema *s, Call *c, int op)
{
	double x, y = 0;
	if (!pymath_arg(s, c, 0, &x)) return v_err();
	bool two = op == PM_POW || op == PM_ATAN2 || op == PM_COPYSIGN || (op == PM_LOG && c->has[1] && !v_is_const(c->a[1], CV_NONE));
	if (two && !pymath_arg(s, c, 1, &y)) return v_err();
	bool domain = false;
	double r = 0;
	switch (op) {
	case PM_SQRT: domain = x < 0, r = sqrt(x); break;
	case PM_EXP: r = exp(x); break;
	case PM_EXP2: r = exp2(x); break;
	case PM_LOG: domain = x <= 0 || (two && (y <= 0 || y == 1)), r = two ? log(x) / log(y) : log(x); break;
	case PM_LOG2: domain = x <= 0, r = log2(x); break;
	case PM_LOG10: domain = x <= 0, r = log10(x); break;
	case PM_LOG1P: domain = x <= -1, r = log1p(x); break;
	case PM_POW: domain = (x == 0 && y < 0) || (x < 0 && isfinite(y) && y != floor(y)), r = pow(x, y); break;
	case PM_FLOOR: case PM_CEIL: case PM_TRUNC: {
		double f = op == PM_FLOOR ? floor(x) : op == PM_CEIL ? ceil(x) : trunc(x);
		Value iv; /* floor(-2.0**63) and up to 2**64 fit (9.2e18 was the bound) */
		if (!v_int_of_double(f, &iv)) {
			diag_error(s->d, c->loc, "%s(%g) is outside [-2**63, 2**64)", c->name, x);
			return v_err();
		}
		return iv;
	}
	case PM_FABS: r = fabs(x); break;
	case PM_SIN: domain = isinf(x), r = sin(x); break;
	case PM_COS: domain = isinf(x), r = cos(x); break;
	case PM_TAN: domain = isinf(x), r = tan(x); break;
	case PM_ASIN: domain = x < -1 || x > 1, r = asin(x); break;
	case PM_ACOS: domain = x < -1 || x > 1, r = acos(x); break;
	case PM_ATAN: r = atan(x); break;
	case PM_ATAN2: r = atan2(x, y); break;
	case PM_TANH: r = tanh(x); break;
	case PM_ERF: r = erf(x); break;
	case PM_ISNAN: return v_bool(isnan(x));
	case PM_ISINF: return v_bool(isinf(x));
	case PM_ISFINITE: return v_bool(isfinite(x));
	case PM_COPYSIGN: r = copysign(x, y); break;
	}
	/* Python raises ValueError out of the domain, OverflowError where finite
	 * arguments give an infinite exp, exp2 or pow */
	if (domain) {
		s->py_errors++;
		diag_error(s->d, c->loc, "%s: math domain error", c->name);
		return v_err();
	}
	if ((op == PM_EXP || op == PM_EXP2 || op == PM_POW) && isinf(r) && isfinite(x) && isfinite(y)) {
		s->py_errors++;
		diag_error(s->d, c->loc, "%s: math range error (the result overflows)", c->name);
		return v_err();
	}
	return v_float(r);
}

/* importlib.util.find_spec(name): tile provides triton, so find_spec("triton") (or a
 * submodule of it) is a module spec, not None; whether anything else is installed
 * on the host is unknown at compile time. */
/* torch.cuda.is_available(): True (see NS_TORCH_CUDA) */
static Value b_cuda_available(Sema *s, Call *c, int extra)
{
	(void)s, (void)c, (void)extra;
	return v_bool(true);
}

static Value b_find_spec(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *name = arg_str(s, c, 0);
	if (!name) return v_err();
	if (strcmp(name, "triton") && strncmp(name, "triton.", 7)) {
		diag_error(s->d, c->at[0],
			   "importlib.util.find_spec('%s') is not known at compile time (tile knows only that triton is "
			   "importable)",
			   name);
		return v_err();
	}
	Value key = v_str("name"), val = v_str(name);
	Value r = v_dict(s, &key, &val, 1);
	r.msg = "ModuleSpec"; /* an object: attributes are its keys */
	return r;
}

/* packaging.version.parse(s) / Version(s): the PEP 440 versions projects
 * compare with triton.__version__: [v]N(.N)*[{a|b|rc}N][.postN][.devN]. An
 * object with major, minor, micro, release, is_prerelease, is_devrelease,
 * base_version; the hidden _pre, _post and _dev hold packaging's sort key. */
const char VERSION_OBJ[] = "packaging.version.Version";

static bool version_num(const char **p, int64_t *out)
{
	if (!isdigit((unsigned char)**p)) return false;
	int64_t v = 0;
	while (isdigit((unsigned char)**p) && v < INT64_MAX / 10) v = v * 10 + (*(*p)++ - '0');
	*out = v;
	return !isdigit((unsigned char)**p);
}

static Value b_version_parse(Sema *s, Call *c, int extra)
{
	(void)extra;
	const char *str = arg_str(s, c, 0);
	if (!str) return v_err();
	const char *p = str;
	if (*p == 'v' || *p == 'V') p++;
	Value rel[16];
	int n = 0;
	int64_t x, pre = INT64_MAX, post = -1, dev = INT64_MAX;
	bool ok = version_num(&p, &x);
	if (ok) rel[n++] = v_int(x);
	while (ok && *p == '.' && isdigit((unsigned char)p[1]) && n < 16) {
		p++;
		ok = version_num(&p, &x);
		rel[n++] = v_int(x);
	}
	static const char *const pre_kinds[] = {"a", "b", "rc"};
	for (int k = 2; ok && k >= 0; k--) {
		size_t len = strlen(pre_kinds[k]);
		if (strncmp(p, pre_kinds[k], len) || !isdigit((unsigned char)p[len])) continue;
		p += len;
		ok = version_num(&p, &x);
		pre = ((int64_t)k << 40) + x;
		break;
	}
	if (ok && !strncmp(p, ".post", 5)) p += 5, ok = version_num(&p, &post);
	if (ok && !strncmp(p, ".dev", 4)) p += 4, ok = version_num(&p, &dev);
	if (!ok || *p || n == 16) {
		diag_error(s->d, c->at[0],
			   "version '%s' is not one tile compares (N(.N)* with an optional aN/bN/rcN, .postN, .devN)", str);
		return v_err();
	}
	if (pre == INT64_MAX && post < 0 && dev != INT64_MAX) pre = -1; /* 1.0.dev0 sorts before 1.0a0 */
	StrBuf base = {0};
	for (int i = 0; i < n; i++) sb_printf(&base, "%s%lld", i ? "." : "", (long long)rel[i].c.i);
	static const char *const names[] = {"major", "minor", "micro", "release", "is_prerelease", "is_devrelease",
					    "base_version", "_pre", "_post", "_dev"};
	Value keys[10], vals[10];
	for (int i = 0; i < 10; i++) keys[i] = v_str(names[i]);
	for (int i = 0; i < 3; i++) vals[i] = i < n ? rel[i] : v_int(0);
	vals[3] = v_tuple(s, rel, n);
	vals[4] = v_bool((pre != INT64_MAX && pre != -1) || dev != INT64_MAX);
	vals[5] = v_bool(dev != INT64_MAX);
	vals[6] = v_str(arena_strndup(s->a, base.s, base.len));
	sb_free(&base);
	vals[7] = v_int(pre), vals[8] = v_int(post), vals[9] = v_int(dev);
	Value r = v_dict(s, keys, vals, 10);
	r.msg = VERSION_OBJ;
	return r;
}

static Value version_field(Value v, const char *name)
{
	for (int i = 0; i < v.n; i++)
		if (!strcmp(v.keys[i].c.s, name)) return v.items[i];
	return v_int(0);
}

int versions_compare(Value a, Value b)
{
	Value ra = version_field(a, "release"), rb = version_field(b, "release");
	int n = ra.n > rb.n ? ra.n : rb.n;
	for (int i = 0; i < n; i++) { /* trailing zeros do not count: 3.0 == 3.0.0 */
		int64_t x = i < ra.n ? ra.items[i].c.i : 0, y = i < rb.n ? rb.items[i].c.i : 0;
		if (x != y) return x < y ? -1 : 1;
	}
	static const char *const key[] = {"_pre", "_post", "_dev"};
	for (int i = 0; i < 3; i++) {
		int64_t x = version_field(a, key[i]).c.i, y = version_field(b, key[i]).c.i;
		if (x != y) return x < y ? -1 : 1;
	}
	return 0;
}

const Builtin builtins_compile[] = {
    {"constexpr", "value", b_constexpr, 0, BF_TL},
    {"static_assert", "cond,msg=''", b_static_assert, 0, BF_TL},
    {"assume", "cond", b_assume, 0, BF_TL},
    {"_gdc_noop", "", b_noop, 0, BF_TL},
    {"_target_is_cuda", "", b_target_is, 1, BF_TL},
    {"_target_is_hip", "", b_target_is, 0, BF_TL},
    {"_target_is_hip_cdna3", "", b_target_is, 0, BF_TL},
    {"_target_is_hip_cdna4", "", b_target_is, 0, BF_TL},
    {"_target_is_hip_gfx12", "", b_target_is, 0, BF_TL},
    {"_target_is_hip_gfx1250", "", b_target_is, 0, BF_TL},
    {"_target_cuda_capability_geq", "major,minor=0", b_target_cc_geq, 0, BF_TL},
    {"constexpr_function", "fn", b_constexpr_function, 0, BF_TL | BF_TRITON},
    {"_aggregate", "cls", b_aggregate, 0, BF_TL},
    {"aggregate", "cls", b_aggregate, 0, BF_TRITON},
    {"_cuda_num_warps", "", b_cuda_num_warps, 0, BF_TL},
    {"_cuda_num_threads", "", b_cuda_num_warps, 1, BF_TL},
    {"_cuda_globaltimer", "", b_cuda_sreg, SREG_GLOBALTIMER, BF_TL},
    {"_cuda_smid", "", b_cuda_sreg, SREG_SMID, BF_TL},
    {"static_range", "*args", b_loop_only, 0, BF_TL},
    {"range", "*args", b_loop_only, 0, BF_TL | BF_PY},
    {"cdiv", "x,div", b_cdiv, 0, BF_TL | BF_TRITON | BF_MATH | BF_METHOD},
    {"next_power_of_2", "n", b_next_pow2, 0, BF_TRITON},
    {"bit_length", "self", b_pynum, 0, BF_PYNUM},
    {"bit_count", "self", b_pynum, 1, BF_PYNUM},
    {"is_integer", "self", b_pynum, 2, BF_PYNUM},
    {"_log2", "i", b_log2_const, 0, BF_TL},
    {"get_int_dtype", "bitwidth,signed", b_get_int_dtype, 0, BF_TL},
    {"finfo", "type", b_torch_info, 1, BF_TORCH},
    {"iinfo", "type", b_torch_info, 0, BF_TORCH},
    {"sqrt", "x", b_pymath, PM_SQRT, BF_PYMATH},
    {"exp", "x", b_pymath, PM_EXP, BF_PYMATH},
    {"exp2", "x", b_pymath, PM_EXP2, BF_PYMATH},
    {"log", "x,base=None", b_pymath, PM_LOG, BF_PYMATH},
    {"log2", "x", b_pymath, PM_LOG2, BF_PYMATH},
    {"log10", "x", b_pymath, PM_LOG10, BF_PYMATH},
    {"log1p", "x", b_pymath, PM_LOG1P, BF_PYMATH},
    {"pow", "x,y", b_pymath, PM_POW, BF_PYMATH},
    {"floor", "x", b_pymath, PM_FLOOR, BF_PYMATH},
    {"ceil", "x", b_pymath, PM_CEIL, BF_PYMATH},
    {"trunc", "x", b_pymath, PM_TRUNC, BF_PYMATH},
    {"fabs", "x", b_pymath, PM_FABS, BF_PYMATH},
    {"sin", "x", b_pymath, PM_SIN, BF_PYMATH},
    {"cos", "x", b_pymath, PM_COS, BF_PYMATH},
    {"tan", "x", b_pymath, PM_TAN, BF_PYMATH},
    {"asin", "x", b_pymath, PM_ASIN, BF_PYMATH},
    {"acos", "x", b_pymath, PM_ACOS, BF_PYMATH},
    {"atan", "x", b_pymath, PM_ATAN, BF_PYMATH},
    {"atan2", "y,x", b_pymath, PM_ATAN2, BF_PYMATH},
    {"tanh", "x", b_pymath, PM_TANH, BF_PYMATH},
    {"erf", "x", b_pymath, PM_ERF, BF_PYMATH},
    {"isnan", "x", b_pymath, PM_ISNAN, BF_PYMATH},
    {"isinf", "x", b_pymath, PM_ISINF, BF_PYMATH},
    {"isfinite", "x", b_pymath, PM_ISFINITE, BF_PYMATH},
    {"copysign", "x,y", b_pymath, PM_COPYSIGN, BF_PYMATH},
    {"find_spec", "name", b_find_spec, 0, BF_IMPORTLIB},
    {"is_available", "", b_cuda_available, 0, BF_TORCH_CUDA},
    {"parse", "version", b_version_parse, 0, BF_PACKAGING},
    {"Version", "version", b_version_parse, 0, BF_PACKAGING},
    {"jit",
     "fn=None,do_not_specialize=None,do_not_specialize_on_alignment=None,debug=None,noinline=None,repr=None,"
     "launch_metadata=None",
     b_jit, 0,
     BF_TRITON | BF_TL},
    {"autotune", "configs=None,key=None,prune_configs_by=None,reset_to_zero=None,restore_value=None,warmup=None,rep=None",
     b_noop, 0, BF_TRITON},
    {"heuristics", "values", b_noop, 0, BF_TRITON},
    {"Config",
     "kwargs,num_warps=None,num_stages=None,num_ctas=None,maxnreg=None,pre_hook=None,num_buffers_warp_spec=None,"
     "num_consumer_groups=None,reg_dec_producer=None,reg_inc_consumer=None,ir_override=None",
     b_config, 0, BF_TRITON},
    {NULL, NULL, NULL, 0, 0},
};
