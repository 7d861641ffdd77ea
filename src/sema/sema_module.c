/* sema_module.c: imports (user modules, packages, the modules sema provides
 * itself), classes as scopes, and the attributes of namespaces (tl, triton,
 * math, libdevice ...). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema/sema_int.h"
#include "sema/sema_kernel.h"

/* ---- modules and namespaces ------------------------------------------------------- */

/* Says where an absolute import was looked for (source.c resolve_import). */
static void unknown_module(Sema *s, SrcLoc loc, const char *name)
{
	if (name[0] == '.') {
		diag_error(s->d, loc, "unknown module '%s'", name);
		return;
	}
	char *path = arena_strdup(s->a, name);
	for (char *q = path; *q; q++)
		if (*q == '.') *q = '/';
	diag_error(s->d, loc,
		   "unknown module '%s': no %s.py (or .tile, or %s/__init__.py) beside the importing "
		   "file, in a directory above it or on the module path (TILE_PATH)",
		   name, path, path);
}

/* One ModScope per file. */
ModScope *find_user_module(Sema *s, ModScope *from, const char *name, SrcLoc loc, bool quiet)
{
	if (!s->c->load_module) {
		if (!quiet) diag_error(s->d, loc, "unknown module '%s'", name);
		return NULL;
	}
	Module *ast = s->c->load_module(s->c->loader_user, from ? from->ast : NULL, name, loc);
	if (!ast) {
		if (!quiet && s->d->nerrors == 0) unknown_module(s, loc, name);
		return NULL;
	}
	for (ModScope *m = s->mods; m; m = m->next)
		if (m->ast == ast && !m->is_prelude) return m;
	ModScope *m = modscope_new(s, ast, istr(s, name));
	m->importer = from;
	return m;
}

/* A package with no file of its own (`import a.b` binds `a`, and a/ has no
 * __init__.py): attributes are its submodules. */
ModScope *package_scope(Sema *s, ModScope *from, const char *name)
{
	for (ModScope *m = s->mods; m; m = m->next)
		if (!m->ast && m->importer == from && !strcmp(m->name, name)) return m;
	ModScope *m = modscope_new(s, NULL, istr(s, name));
	m->importer = from;
	return m;
}

/* A relative import that names no file, in a module whose package the driver
 * knows (triton/ops/matmul.py: `from .. import language as tl`), is the
 * absolute import of the same name: *out is what that resolves to. */
static bool relative_in_package(Sema *s, ModScope *from, const char *rel, int level, SrcLoc loc, Value *out)
{
	if (!s->c->package_name || !from || !from->ast) return false;
	char *pkg = s->c->package_name(s->c->loader_user, from->ast, level);
	if (!pkg) return false;
	const char *abs = istr(s, *rel ? arena_printf(s->a, "%s.%s", pkg, rel) : pkg);
	free(pkg);
	*out = resolve_module_path(s, from, abs, 0, loc);
	return true;
}

/* Modules sema provides itself. whole: only the module, not its submodules
 * (`import torch`, not `torch.cuda`); user_may_shadow: a project file of
 * that name wins. */
typedef struct HostModule {
	const char *name;
	Namespace ns;
	bool whole, user_may_shadow;
} HostModule;

static const HostModule host_modules[] = {
        {"triton", NS_TRITON, false, false},
        {"tile", NS_TILE, false, false},
        /* projects test whether triton is installed: find_spec("triton") */
        {"importlib", NS_IMPORTLIB, false, true},
        /* no torch here, but module constants use its dtypes and finfo/iinfo */
        {"torch", NS_TORCH, true, true},
        /* autotune config builders: itertools.product(BLOCKS, WARPS) */
        {"itertools", NS_ITERTOOLS, true, true},
        /* version checks: version.parse(triton.__version__) >= version.parse("3.0") */
        {"packaging", NS_PACKAGING, false, true},
        /* functools.reduce, operator.mul: config arithmetic in host code */
        {"functools", NS_FUNCTOOLS, true, true},
        {"operator", NS_OPERATOR, true, true},
        /* Python's math: module constants such as math.sqrt(2.0 / math.pi) */
        {"math", NS_PYMATH, true, true},
        /* class T(NamedTuple): value classes of kernels (Triton's test_tuple) */
        {"typing", NS_TYPING, true, true},
        /* class Act(Enum): a module's Enum classes (sema_enum.c) */
        {"enum", NS_ENUM, true, true},
};

Value resolve_module_path(Sema *s, ModScope *from, const char *dotted, int level, SrcLoc loc)
{
	StrBuf full = {0};
	for (int i = 0; i < level; i++) sb_putc(&full, '.');
	sb_puts(&full, dotted);
	const char *name = istr(s, full.s ? full.s : "");
	sb_free(&full);
	const char *rel = name + level;
	size_t rootlen = strcspn(rel, ".");
	Value cur;
	const char *rest;
	const HostModule *hm = NULL;
	for (size_t i = 0; !level && i < COUNTOF(host_modules) && !hm; i++) {
		const HostModule *h = &host_modules[i];
		if (strlen(h->name) == rootlen && !strncmp(rel, h->name, rootlen) && (!h->whole || !rel[rootlen]) &&
		    (!h->user_may_shadow || !find_user_module(s, from, istr(s, h->name), loc, true)))
			hm = h;
	}
	if (hm) {
		cur = (Value){.kind = V_NS, .ns = hm->ns};
		rest = rel + rootlen;
	} else {
		/* the longest prefix that is a module; the rest are attributes */
		size_t n = strlen(name);
		ModScope *m = NULL;
		for (size_t k = n; k > (size_t)level && !m; k--) {
			if (k < n && name[k] != '.') continue;
			m = find_user_module(s, from, istr(s, arena_strndup(s->a, name, k)), loc, true);
			rest = name + k;
		}
		if (!m) {
			/* a package directory without __init__: a.b resolves through it */
			if (!level && rel[rootlen]) {
				/* a.b.c with no file for any prefix is simply unknown (the
				 * attribute chain would blame the wrong component) */
				bool any = false;
				for (size_t k = rootlen + 1; k <= n && !any; k++)
					if (k == n || name[k] == '.')
						any = find_user_module(s, from, istr(s, arena_strndup(s->a, name, k)), loc, true) != NULL;
				if (!any) {
					unknown_module(s, loc, name);
					return v_err();
				}
				m = package_scope(s, from, istr(s, arena_strndup(s->a, rel, rootlen)));
				rest = rel + rootlen;
			} else if (level && relative_in_package(s, from, rel, level, loc, &cur)) {
				return cur;
			} else {
				find_user_module(s, from, name, loc, false); /* reports it */
				return v_err();
			}
		}
		cur = (Value){.kind = V_MODULE, .mod = m};
	}
	while (*rest == '.') {
		rest++;
		size_t len = strcspn(rest, ".");
		cur = get_attr(s, cur, istr(s, arena_strndup(s->a, rest, len)), loc);
		if (cur.kind == V_ERR) return cur;
		rest += len;
	}
	return cur;
}

/* The base classes of class scope c that are classes tile knows (a base
 * from host code, torch.autograd.Function, is left out): *out, at most max. */
int class_bases(Sema *s, ModScope *c, ModScope **out, int max)
{
	int n = 0;
	for (int i = 0; i < c->cls->nbases && n < max; i++) {
		Quiet q;
		quiet_begin(s, &q);
		Value b = eval_module_expr(s, c->parent, c->cls->bases[i]);
		bool failed = quiet_end(s, &q, NULL);
		if (!failed && b.kind == V_MODULE && b.mod->cls && b.mod != c) out[n++] = b.mod;
	}
	return n;
}

/* `name` of class scope c: bound in its body, else in its bases, depth
 * first from the left (Python's MRO for single inheritance and for base
 * classes that share no ancestor) */
static Value class_get(Sema *s, ModScope *c, const char *name, SrcLoc loc, bool *found)
{
	Value v = scope_get(s, c, name, loc, found);
	if (*found || c->mro_busy) return v;
	ModScope *bases[16];
	int n = class_bases(s, c, bases, 16);
	c->mro_busy = true;
	for (int i = 0; i < n && !*found; i++) v = class_get(s, bases[i], name, loc, found);
	c->mro_busy = false;
	return v;
}

bool class_derives(Sema *s, ModScope *c, ModScope *base)
{
	if (c == base) return true;
	if (c->mro_busy) return false;
	ModScope *bases[16];
	int n = class_bases(s, c, bases, 16);
	bool r = false;
	c->mro_busy = true;
	for (int i = 0; i < n && !r; i++) r = class_derives(s, bases[i], base);
	c->mro_busy = false;
	return r;
}

Value class_member(Sema *s, ModScope *c, const char *name, SrcLoc loc, bool *found)
{
	*found = false;
	return class_get(s, c, istr(s, name), loc, found);
}

/* whether decorator d of class c is triton.aggregate / tl.core._aggregate */
static bool is_aggregate_decorator(Sema *s, ModScope *c, const Expr *d)
{
	Quiet q;
	quiet_begin(s, &q);
	Value v = eval_module_expr(s, c->parent, d);
	bool failed = quiet_end(s, &q, NULL);
	if (failed || v.kind != V_BUILTIN) return false;
	return builtin_get(v.builtin)->fn == builtin_get(builtin_find("_aggregate", BF_TL))->fn;
}

/* whether class c derives from typing.NamedTuple (a direct base, as Python
 * allows no other way to make one) */
static bool is_namedtuple_class(Sema *s, ModScope *c)
{
	for (int i = 0; i < c->cls->nbases; i++) {
		Quiet q;
		quiet_begin(s, &q);
		Value b = eval_module_expr(s, c->parent, c->cls->bases[i]);
		bool failed = quiet_end(s, &q, NULL);
		if (!failed && b.kind == V_NS && b.ns == NS_TYPING_NAMEDTUPLE) return true;
	}
	return false;
}

/* Adds the annotated names of class c (after those of its aggregate bases). */
typedef VEC(AggField) AggFieldVec;

static void agg_collect(Sema *s, ModScope *c, AggFieldVec *out, int depth)
{
	ModScope *bases[16];
	int nb = depth < 16 ? class_bases(s, c, bases, 16) : 0;
	for (int i = 0; i < nb; i++)
		if (class_aggregate(s, bases[i])) agg_collect(s, bases[i], out, depth + 1);
	for (int i = 0; i < c->cls->body.n; i++) {
		const Stmt *st = c->cls->body.items[i];
		if (st->kind != ST_ANNASSIGN || st->ann_target->kind != EX_NAME) continue;
		const char *an = agg_ann_name(st->annotation);
		AggField f = {.name = st->ann_target->name, .ann = st->annotation, .has_default = st->ann_value != NULL,
			      .is_const = an && !strcmp(an, "constexpr"), .owner = c};
		size_t k = 0;
		while (k < out->len && out->data[k].name != f.name) k++;
		if (k < out->len) out->data[k] = f; /* redeclared: keeps its place, as a dataclass's field */
		else vec_push(out, f);
	}
}

/* Classifies class c once (agg_state) and collects its fields. */
static void classify_class(Sema *s, ModScope *c)
{
	if (c->agg_state == 0) {
		c->agg_state = 1;
		for (int i = 0; i < c->cls->ndecorators; i++)
			if (is_aggregate_decorator(s, c, c->cls->decorators[i])) c->agg_state = 2;
		if (c->agg_state == 1 && is_namedtuple_class(s, c)) c->agg_state = 3;
		if (c->agg_state >= 2) {
			AggFieldVec fs = {0};
			agg_collect(s, c, &fs, 0);
			c->agg.n = (int)fs.len;
			c->agg.fields = fs.len ? vec_to_arena(s->a, &fs) : NULL;
			vec_free(&fs);
		}
	}
}

const AggInfo *class_aggregate(Sema *s, ModScope *c)
{
	if (!c->cls) return NULL;
	classify_class(s, c);
	return c->agg_state == 2 ? &c->agg : NULL;
}

const AggInfo *class_namedtuple(Sema *s, ModScope *c)
{
	if (!c || !c->cls) return NULL;
	classify_class(s, c);
	return c->agg_state == 3 ? &c->agg : NULL;
}

Value module_attr(Sema *s, ModScope *m, const char *name, SrcLoc loc)
{
	bool found = false;
	if (m->cls) {
		Value v;
		if (enum_lookup(s, m, name, loc, &v)) return v; /* Act.RELU: an Enum member */
		v = class_get(s, m, name, loc, &found);
		if (found) return v;
		const AggInfo *nt = class_namedtuple(s, m);
		if (nt && !strcmp(name, "_fields")) return nt_fields(s, nt);
		diag_error(s->d, loc, "class '%s' has no attribute '%s'", m->name, name);
		return v_err();
	}
	Value v = m->ast ? global_get(s, m, name, loc, &found) : v_err();
	if (found) return v;
	/* a submodule: pkg.sub imported by the module that imported pkg */
	ModScope *sub = find_user_module(s, m->importer, arena_printf(s->a, "%s.%s", m->name, name), loc, true);
	if (sub) return (Value){.kind = V_MODULE, .mod = sub};
	diag_error(s->d, loc, "module '%s' has no attribute '%s'", m->name ? m->name : "?", name);
	return v_err();
}

static const char *ns_prefix(int ns)
{
	switch (ns) {
	case NS_TRITON: return "triton";
	case NS_MATH: return "tl.math";
	case NS_EXTRA: return "tl.extra";
	case NS_EXTRA_CUDA: return "tl.extra.cuda";
	case NS_LIBDEVICE: return "libdevice";
	case NS_TILE: return "tile";
	case NS_TORCH: return "torch";
	case NS_TORCH_VERSION: return "torch.version";
	case NS_TORCH_CUDA: return "torch.cuda";
	case NS_TORCH_VERSION_CUDA: return "torch.version.cuda";
	case NS_PYMATH: return "math";
	case NS_IMPORTLIB: return "importlib";
	case NS_IMPORTLIB_UTIL: return "importlib.util";
	case NS_ITERTOOLS: return "itertools";
	case NS_FUNCTOOLS: return "functools";
	case NS_OPERATOR: return "operator";
	case NS_TARGET_INFO: return "tl.target_info";
	case NS_PACKAGING: return "packaging";
	case NS_PACKAGING_VERSION: return "packaging.version";
	case NS_TYPING: return "typing";
	case NS_TYPING_NAMEDTUPLE: return "typing.NamedTuple";
	case NS_ENUM: return "enum";
	case NS_ENUM_ENUM: return "enum.Enum";
	case NS_ENUM_INTENUM: return "enum.IntEnum";
	case NS_ENUM_FLAG: return "enum.Flag";
	case NS_ENUM_INTFLAG: return "enum.IntFlag";
	case NS_ENUM_STRENUM: return "enum.StrEnum";
	case NS_ENUM_AUTO: return "enum.auto";
	case NS_ENUM_UNIQUE: return "enum.unique";
	default: return "tl";
	}
}

/* libdevice spellings that are not our builtin names */
static const char *libdevice_alias(const char *n)
{
	static const char *tab[][2] = {
	    {"fast_expf", "exp"},     {"fast_exp2f", "exp2"}, {"fast_logf", "log"},   {"fast_log2f", "log2"},
	    {"fast_sinf", "sin"},     {"fast_cosf", "cos"},   {"fast_tanf", "tan"},   {"fast_powf", "pow"},
	    {"fast_dividef", "fdiv"}, {"fabs", "abs"},        {"fmax", "maximum"},    {"fmin", "minimum"},
	    {"nearbyint", "rint"},    {"isnan", "isnan"},     {"isinf", "isinf"},
	    {"fast_log10f", "log10"}, {"fast_exp10f", "exp10"}, {"frsqrt_rn", "rsqrt"}, {"add_rn", "_add_rn"},
	    {"sub_rn", "_sub_rn"},    {"mul_rn", "_mul_rn"},  {"fma_rn", "fma"},      {"fsub_rn", "_sub_rn"},
	    {"fadd_rn", "_add_rn"},   {"fmul_rn", "_mul_rn"},  {"dadd_rn", "_add_rn"}, {"dmul_rn", "_mul_rn"},
	    {"isfinited", "isfinite"}, {"finitef", "isfinite"}, {"max", "maximum"},   {"min", "minimum"},
	    {"sqrt_rn", "sqrt_rn"},   {"div_rn", "div_rn"},   {"exp10", "exp10"},     {"rcp_rn", "rcp"},
	};
	for (size_t i = 0; i < COUNTOF(tab); i++)
		if (!strcmp(n, tab[i][0])) return tab[i][1];
	return n;
}

/* Names of Triton 3.6's top-level __all__ that only host code can use */
static bool triton_host_name(const char *n)
{
	static const char *const host[] = {"AsyncCompileMode", "CompilationError", "compile", "FutureKernel",
					   "InterpreterError", "JITFunction", "KernelInterface", "MockTensor",
					   "OutOfResources", "reinterpret", "runtime", "set_allocator", "TensorWrapper",
					   "TritonError", "testing", "tools", "knobs"};
	for (size_t i = 0; i < COUNTOF(host); i++)
		if (!strcmp(n, host[i])) return true;
	return false;
}

Value ns_attr(Sema *s, int ns, const char *name, SrcLoc loc)
{
	int id;
	DType dt;
	switch (ns) {
	case NS_TRITON:
	case NS_TILE:
		if (!strcmp(name, "language")) return (Value){.kind = V_NS, .ns = NS_TL};
		if ((id = builtin_find(name, BF_TRITON)) >= 0) return v_builtin(id, NULL);
		if (ns == NS_TILE) return ns_attr(s, NS_TL, name, loc);
		/* the Triton whose language tile implements, for version checks */
		if (!strcmp(name, "__version__")) return v_str(TILE_TRITON_VERSION);
		if (triton_host_name(name))
			diag_error(s->d, loc, "'triton.%s' is host Python (Triton's runtime, compiler or errors), which a kernel "
					      "cannot use",
				   name);
		else diag_error(s->d, loc, "'triton.%s' is not supported", name);
		return v_err();
	case NS_TL:
	case NS_TL_CORE:
		if (!strcmp(name, "math")) return (Value){.kind = V_NS, .ns = NS_MATH};
		if (!strcmp(name, "extra")) return (Value){.kind = V_NS, .ns = NS_EXTRA};
		if (!strcmp(name, "core") || !strcmp(name, "standard") || !strcmp(name, "language") || !strcmp(name, "random"))
			return (Value){.kind = V_NS, .ns = NS_TL};
		if (!strcmp(name, "libdevice")) return (Value){.kind = V_NS, .ns = NS_LIBDEVICE};
		if (!strcmp(name, "PropagateNan")) return (Value){.kind = V_NS, .ns = NS_PROPNAN};
		if (!strcmp(name, "target_info")) return (Value){.kind = V_NS, .ns = NS_TARGET_INFO};
		/* the largest tile Triton allows; host code sizes blocks by it */
		if (!strcmp(name, "TRITON_MAX_TENSOR_NUMEL")) return v_int(TILE_MAX_NUMEL);
		if (!strcmp(name, "pi32_t")) return v_dtype(type_ptr(DT_I32));
		if (!strcmp(name, "float8e4b15") || !strcmp(name, "float8e4b8") || !strcmp(name, "float8e5b16"))
			return v_foreign_dtype(name); /* pre-Hopper and AMD fnuz fp8 */
		if (!strcmp(name, "void")) return v_foreign_dtype("void"); /* Triton's dtype('void') */
		if (strcmp(name, "pointer") && dtype_from_name(name, &dt) && strcmp(name, "int") && strcmp(name, "float") &&
		    strcmp(name, "double") && strcmp(name, "half"))
			return v_dtype(type_scalar(dt));
		if ((id = builtin_find(name, BF_TL)) >= 0) return v_builtin(id, NULL);
		if (!strncmp(name, "_experimental_descriptor_", 25))
			diag_error(s->d, loc,
				   "'tl.%s' (Triton 3.2's access through TMA descriptor bytes the host fills, removed in "
				   "Triton 3.4) is not supported: pass a tensordesc parameter or use tl.make_tensor_descriptor",
				   name);
		else if (!strcmp(name, "const")) /* a class in Triton, used only to annotate */
			diag_error(s->d, loc, "'tl.const' is only a parameter annotation (a pointer to constant data, "
					      "'p: tl.const'), not a value");
		else
			diag_error(s->d, loc, "'tl.%s' is not a supported builtin", name);
		return v_err();
	case NS_TORCH: {
		static const char *const alias[][2] = {{"half", "float16"}, {"float", "float32"}, {"double", "float64"},
						       {"short", "int16"}, {"int", "int32"}, {"long", "int64"},
						       {"float8_e4m3fn", "float8e4nv"}, {"float8_e5m2", "float8e5"}};
		const char *n = name;
		for (size_t i = 0; i < COUNTOF(alias); i++)
			if (!strcmp(name, alias[i][0])) n = alias[i][1];
		if (dtype_from_name(n, &dt) && strcmp(n, "pointer")) return v_dtype(type_scalar(dt));
		if ((id = builtin_find(name, BF_TORCH)) >= 0) return v_builtin(id, NULL);
		if (!strcmp(name, "version")) return (Value){.kind = V_NS, .ns = NS_TORCH_VERSION};
		if (!strcmp(name, "cuda")) return (Value){.kind = V_NS, .ns = NS_TORCH_CUDA};
		diag_error(s->d, loc, "'torch.%s' is not available: kernels see torch's dtypes, finfo/iinfo and Tensor (for isinstance) only", name);
		return v_err();
	}
	case NS_TORCH_VERSION:
		/* `torch.version.hip is not None` picks AMD code paths; what tile
		 * compiles is never for ROCm. The CUDA version is the host's. */
		if (!strcmp(name, "hip")) return (Value){.kind = V_CONST, .c = {.kind = CV_NONE}};
		/* `torch.version.cuda is not None` (tritonbench's is_cuda()) picks the
		 * CUDA paths, which tile takes on every target; the string itself is
		 * the host's, so nothing else may read it */
		if (!strcmp(name, "cuda")) return (Value){.kind = V_NS, .ns = NS_TORCH_VERSION_CUDA};
		diag_error(s->d, loc,
			   "'torch.version.%s' is not available: kernels see torch.version.hip (None) and .cuda (not None) only",
			   name);
		return v_err();
	case NS_TORCH_VERSION_CUDA:
		diag_error(s->d, loc, "torch.version.cuda is the host's CUDA version: a kernel may only test it against None");
		return v_err();
	case NS_TORCH_CUDA:
		/* host code picks its Triton path with `if torch.cuda.is_available():`
		 * (Fast-LLM's tl_arange = tl.arange): the kernels tile compiles are
		 * Triton's, which run where CUDA does */
		if ((id = builtin_find(name, BF_TORCH_CUDA)) >= 0) return v_builtin(id, NULL);
		diag_error(s->d, loc, "'torch.cuda.%s' is not available: kernels see torch.cuda.is_available() (True) only",
			   name);
		return v_err();
	case NS_PYMATH: {
		static const struct {
			const char *name;
			double v;
		} k[] = {{"pi", 3.141592653589793}, {"e", 2.718281828459045}, {"tau", 6.283185307179586},
			 {"inf", INFINITY}, {"nan", NAN}};
		for (size_t i = 0; i < COUNTOF(k); i++)
			if (!strcmp(name, k[i].name)) return v_float(k[i].v);
		if ((id = builtin_find(name, BF_PYMATH)) >= 0) return v_builtin(id, NULL);
		diag_error(s->d, loc, "'math.%s' is not supported (math functions work on constexpr numbers)", name);
		return v_err();
	}
	case NS_IMPORTLIB:
		if (!strcmp(name, "util")) return (Value){.kind = V_NS, .ns = NS_IMPORTLIB_UTIL};
		break;
	case NS_IMPORTLIB_UTIL:
		if ((id = builtin_find(name, BF_IMPORTLIB)) >= 0) return v_builtin(id, NULL);
		break;
	case NS_FUNCTOOLS:
	case NS_OPERATOR:
		if ((id = builtin_find(name, ns == NS_FUNCTOOLS ? BF_FUNCTOOLS : BF_OPERATOR)) >= 0 && name[0] != '_')
			return v_builtin(id, NULL);
		diag_error(s->d, loc, "'%s.%s' is not supported", ns == NS_FUNCTOOLS ? "functools" : "operator", name);
		return v_err();
	case NS_ITERTOOLS:
		if ((id = builtin_find(name, BF_ITERTOOLS)) >= 0) return v_builtin(id, NULL);
		diag_error(s->d, loc, "'itertools.%s' is not supported (product and chain are)", name);
		return v_err();
	case NS_TARGET_INFO:
		if ((id = builtin_find(arena_printf(s->a, "_target_%s", name), BF_TL)) >= 0) return v_builtin(id, NULL);
		break;
	case NS_TYPING:
		if (!strcmp(name, "NamedTuple")) return (Value){.kind = V_NS, .ns = NS_TYPING_NAMEDTUPLE};
		/* False when the code runs (True only for a type checker): `if
		 * TYPE_CHECKING:` blocks are not run, their `else:` is */
		if (!strcmp(name, "TYPE_CHECKING")) return v_bool(false);
		diag_error(s->d, loc, "'typing.%s' is not supported in kernels (typing.NamedTuple and TYPE_CHECKING are)", name);
		return v_err();
	case NS_ENUM: {
		static const char *const names[] = {"Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "auto", "unique"};
		for (size_t i = 0; i < COUNTOF(names); i++)
			if (!strcmp(name, names[i])) return (Value){.kind = V_NS, .ns = NS_ENUM_ENUM + (int)i};
		diag_error(s->d, loc, "'enum.%s' is not supported (Enum, IntEnum, Flag, IntFlag, StrEnum, auto and unique are)",
			   name);
		return v_err();
	}
	case NS_PACKAGING:
		if (!strcmp(name, "version")) return (Value){.kind = V_NS, .ns = NS_PACKAGING_VERSION};
		diag_error(s->d, loc, "'packaging.%s' is not supported (packaging.version is)", name);
		return v_err();
	case NS_PACKAGING_VERSION:
		if ((id = builtin_find(name, BF_PACKAGING)) >= 0) return v_builtin(id, NULL);
		diag_error(s->d, loc, "'packaging.version.%s' is not supported (parse and Version are)", name);
		return v_err();
	case NS_PROPNAN:
		if (!strcmp(name, "ALL")) return v_int(0xffff);
		if (!strcmp(name, "NONE")) return v_int(0);
		break;
	case NS_EXTRA:
		if (!strcmp(name, "cuda") || !strcmp(name, "intel") || !strcmp(name, "hip"))
			return (Value){.kind = V_NS, .ns = NS_EXTRA_CUDA};
		if (!strcmp(name, "libdevice")) return (Value){.kind = V_NS, .ns = NS_LIBDEVICE};
		break;
	case NS_EXTRA_CUDA:
		if (!strcmp(name, "libdevice")) return (Value){.kind = V_NS, .ns = NS_LIBDEVICE};
		/* programmatic dependent launch: tile does not launch with it, so waiting
		 * for the previous grid and releasing the next are no-ops */
		if (!strcmp(name, "gdc_wait") || !strcmp(name, "gdc_launch_dependents"))
			return v_builtin(builtin_find("_gdc_noop", BF_TL), NULL);
		/* num_warps, num_threads, min/max_nan_xorsign_abs_f32 */
		if ((id = builtin_find(arena_printf(s->a, "_cuda_%s", name), BF_TL)) >= 0) return v_builtin(id, NULL);
		/* the backend's fp8e4b15 <-> fp16/fp32 casts, which need the format */
		if (!strcmp(name, "convert_custom_float8_sm80") || !strcmp(name, "convert_custom_float8_sm90")) {
			diag_error(s->d, loc,
				   "'tl.extra.cuda.%s' converts to and from tl.float8e4b15, a Triton dtype tile does "
				   "not support",
				   name);
			return v_err();
		}
		break;
	case NS_MATH:
	case NS_LIBDEVICE: {
		/* Triton 2.1/2.2's tl.math.max/min(x, y[, propagate_nan]) are the
		 * elementwise maximum/minimum (Inductor of that time emits them) */
		const char *n = name;
		if (ns == NS_LIBDEVICE || !strcmp(name, "max") || !strcmp(name, "min"))
			n = libdevice_alias(name);
		if ((id = builtin_find(n, BF_MATH)) >= 0) return v_builtin(id, NULL);
		/* Triton 2.1's tl.math was libdevice (trident writes tl.math.fast_expf):
		 * a name tl.math lacks is looked up as libdevice's */
		if (ns == NS_MATH && (id = builtin_find(n = libdevice_alias(name), BF_MATH)) >= 0) return v_builtin(id, NULL);
		/* libdevice's float variants: expf, sqrtf, ... */
		size_t len = strlen(n);
		if (len > 1 && n[len - 1] == 'f') {
			char buf[64];
			snprintf(buf, sizeof buf, "%.*s", (int)(len - 1), n);
			if ((id = builtin_find(libdevice_alias(buf), BF_MATH)) >= 0) return v_builtin(id, NULL);
		}
		if (len > 3 && (!strcmp(n + len - 3, "_rz") || !strcmp(n + len - 3, "_rd") || !strcmp(n + len - 3, "_ru")))
			diag_error(s->d, loc, "'%s.%s' is not supported: tile has no arithmetic with directed rounding "
				   "(the _rn variant is)", ns_prefix(ns), name);
		else
			diag_error(s->d, loc, "'%s.%s' is not a supported builtin", ns_prefix(ns), name);
		return v_err();
	}
	}
	diag_error(s->d, loc, "unknown attribute '%s' of '%s'", name, ns_prefix(ns));
	return v_err();
}
