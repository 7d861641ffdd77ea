/* module.c: tile_module (a parsed source file) and specialization.
 *
 * A module keeps the parsed source and its kernel list, so every kernel of a
 * file compiles without re-reading it, and a table of the specializations
 * already built, keyed by a canonical string of (kernel, target, options,
 * bound arguments): a second tile_kernel_get of the same specialization is a
 * lookup. Kernels are reference counted: the table holds one reference, each
 * tile_kernel_get hands out another.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/api.h"
#include "util/unicode_ident.h"

/* ---- loading ------------------------------------------------------------------ */

typedef struct LoadJob {
	tile_context *ctx;
	const char *path, *name, *text;
	size_t len;
	SourceModule *src;
	KernelInfo *kernels;
	int nkernels;
} LoadJob;

static void load_protected(void *arg)
{
	LoadJob *j = arg;
	if (j->path)
		j->src = source_load_file(j->path, j->ctx->module_path, &j->ctx->diags);
	else
		j->src = source_load_text(j->name, j->text, j->len, j->ctx->module_path, &j->ctx->diags);
	if (j->src && j->ctx->diags.nerrors == 0)
		j->nkernels = source_list_kernels(j->src, &j->ctx->diags, &j->kernels);
}

static tile_status load_module(tile_context *ctx, LoadJob *j, tile_module **out)
{
	diag_clear(&ctx->diags);
	char *ice_msg = NULL;
	if (ice_protect(load_protected, j, &ice_msg) != 0) {
		if (j->src)
			source_free(j->src);
		tile_status st = api_fail(ctx, TILE_ERROR_INTERNAL, "%s", ice_msg);
		free(ice_msg);
		return st;
	}
	if (!j->src || ctx->diags.nerrors > 0 || j->nkernels < 0) {
		if (j->src)
			source_free(j->src);
		return api_fail_diags(ctx, TILE_ERROR_COMPILE);
	}
	tile_module *m = calloc(1, sizeof *m);
	if (!m) {
		source_free(j->src);
		return api_fail(ctx, TILE_ERROR_NOMEM, "out of memory");
	}
	m->ctx = ctx;
	api_ctx_retain(ctx);
	m->src = j->src;
	m->kernels = j->kernels;
	m->nkernels = j->nkernels;
	m->pinfo = calloc((size_t)(m->nkernels > 0 ? m->nkernels : 1), sizeof *m->pinfo);
	api_clear_error(ctx);
	*out = m;
	return TILE_OK;
}

tile_status tile_module_load_file(tile_context *ctx, const char *path, tile_module **out)
{
	if (out)
		*out = NULL;
	if (!ctx || !path || !out)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_module_load_file: ctx, path and out must not be NULL");
	FILE *f = fopen(path, "rb");
	if (!f)
		return api_fail(ctx, TILE_ERROR_IO, "cannot open '%s': %s", path, strerror(errno));
	struct stat sb;
	bool is_dir = fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode);
	fclose(f);
	if (is_dir)
		return api_fail(ctx, TILE_ERROR_IO, "cannot open '%s': %s", path, strerror(EISDIR));
	LoadJob j = {.ctx = ctx, .path = path};
	if (!api_enter(ctx, "tile_module_load_file"))
		return TILE_ERROR_INVALID_ARGUMENT;
	tile_status st = load_module(ctx, &j, out);
	api_leave(ctx);
	return st;
}

tile_status tile_module_load_source(tile_context *ctx, const char *name, const char *src,
                                    size_t len, tile_module **out)
{
	if (out)
		*out = NULL;
	if (!ctx || !src || !out)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_module_load_source: ctx, src and out must not be NULL");
	LoadJob j = {.ctx = ctx,
	             .name = name ? name : "<inline>",
	             .text = src,
	             .len = len == (size_t)-1 ? strlen(src) : len};
	if (!api_enter(ctx, "tile_module_load_source"))
		return TILE_ERROR_INVALID_ARGUMENT;
	tile_status st = load_module(ctx, &j, out);
	api_leave(ctx);
	return st;
}

static void module_free(tile_module *m)
{
	for (size_t i = 0; i < m->specs.len; i++) {
		free(m->specs.data[i].key);
		tile_kernel_destroy(m->specs.data[i].k);
	}
	vec_free(&m->specs);
	api_heur_memo_free(m);
	for (int i = 0; i < m->nkernels; i++)
		free(m->pinfo[i]);
	free(m->pinfo);
	source_free(m->src);
	api_ctx_release(m->ctx);
	free(m);
}

void tile_module_destroy(tile_module *m)
{
	if (m && !(atomic_fetch_or(&m->state, MOD_DOOMED) & MOD_BUSY))
		module_free(m);
}

/* A kernel get's entry and exit: the context's compile lock, and the module
 * kept while it runs (a destroy meanwhile frees it at the exit). */
static bool get_enter(tile_module *m, const char *call)
{
	if (!api_enter(m->ctx, call))
		return false;
	atomic_fetch_or(&m->state, MOD_BUSY);
	return true;
}

static tile_status get_leave(tile_module *m, tile_status st)
{
	tile_context *ctx = m->ctx;
	api_ctx_retain(ctx); /* module_free may release the context's last reference */
	if (atomic_fetch_and(&m->state, ~MOD_BUSY) & MOD_DOOMED)
		module_free(m);
	api_leave(ctx);
	api_ctx_release(ctx);
	return st;
}

/* ---- kernel list ------------------------------------------------------------------ */

int tile_module_num_kernels(const tile_module *m) { return m ? m->nkernels : 0; }

const char *tile_module_kernel_name(const tile_module *m, int i)
{
	return m && i >= 0 && i < m->nkernels ? m->kernels[i].name : NULL;
}

const KernelInfo *api_find_kernel(const tile_module *m, const char *name)
{
	for (int i = 0; i < m->nkernels; i++)
		if (strcmp(m->kernels[i].name, name) == 0)
			return &m->kernels[i];
	return NULL;
}

/* A def of that name that is no kernel: its decorators did not resolve to
 * triton.jit (say, imported from a package that is not there). */
static const Stmt *plain_def(const tile_module *m, const char *name)
{
	const Module *ast = m->src->ast;
	for (int i = 0; ast && i < ast->body.n; i++) {
		const Stmt *st = ast->body.items[i];
		if (st->kind == ST_FUNCDEF && strcmp(st->func->name, name) == 0)
			return st;
	}
	return NULL;
}

static tile_status not_found(tile_module *m, const char *name)
{
	const Stmt *def = plain_def(m, name);
	if (def) { /* a diagnostic at the def, rendered like any other */
		diag_clear(&m->ctx->diags);
		diag_error(&m->ctx->diags, def->loc, "'%s' is not a kernel: %s", name,
		           def->func->ndecorators
		                   ? "its decorators do not resolve to triton.jit, triton.autotune or "
		                     "triton.heuristics (is a decorator imported from a module tile cannot find?)"
		                   : "it has no @triton.jit decorator");
		return api_fail_diags(m->ctx, TILE_ERROR_NOT_FOUND);
	}
	StrBuf b = {0};
	for (int i = 0; i < m->nkernels; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", m->kernels[i].name);
	tile_status st =
	        api_fail(m->ctx, TILE_ERROR_NOT_FOUND, "no kernel named '%s' in '%s'%s%s%s", name,
	                 m->src->file.name, b.len ? " (it has: " : " (it has no @jit functions",
	                 b.len ? b.s : "", ")");
	sb_free(&b);
	return st;
}

tile_status tile_module_kernel_params(tile_module *m, const char *kernel,
                                      const tile_param_info **params, int *nparams)
{
	if (!m || !kernel || !params || !nparams)
		return api_fail(m ? m->ctx : NULL, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_module_kernel_params: arguments must not be NULL");
	const KernelInfo *ki = api_find_kernel(m, kernel);
	if (!ki)
		return not_found(m, kernel);
	int idx = (int)(ki - m->kernels);
	if (!m->pinfo[idx]) {
		tile_param_info *p = calloc((size_t)(ki->nparams > 0 ? ki->nparams : 1), sizeof *p);
		if (!p)
			return api_fail(m->ctx, TILE_ERROR_NOMEM, "out of memory");
		for (int i = 0; i < ki->nparams; i++) {
			p[i].name = ki->params[i].name;
			p[i].is_constexpr = ki->params[i].is_constexpr;
			p[i].has_default = ki->params[i].has_default;
		}
		m->pinfo[idx] = p;
	}
	*params = m->pinfo[idx];
	*nparams = ki->nparams;
	return TILE_OK;
}

/* ---- specialization key -------------------------------------------------------------- */

void api_key_const(StrBuf *b, const ConstVal *v)
{
	switch (v->kind) {
	case CV_INT: /* a uint64 in [2**63, 2**64) is not the negative int64 of its bits */
		if (v->u64) sb_printf(b, "u%" PRIu64, (uint64_t)v->i);
		else sb_printf(b, "i%" PRId64, v->i);
		break;
	case CV_BOOL: sb_printf(b, "b%d", (int)v->i); break;
	case CV_FLOAT: sb_printf(b, "f%a", v->f); break;
	case CV_STR: sb_printf(b, "s%zu:%s", strlen(v->s), v->s); break;
	case CV_NONE: sb_puts(b, "N"); break;
	case CV_DTYPE: sb_printf(b, "d%d", (int)v->dtype); break;
	case CV_NAME: sb_printf(b, "n%zu:%s", strlen(v->s), v->s); break;
	}
}

void api_key_spec(StrBuf *b, const SpecArg *a)
{
	if (a->use_default)
		sb_putc(b, 'D'); /* its default, whatever default_val says */
	if (a->empty_tuple)
		sb_puts(b, "()");
	else if (a->is_const)
		api_key_const(b, &a->cval);
	else
		sb_printf(b, "t%d.%d:%d", a->ty.dt, a->ty.elem, a->spec);
	for (int d = 0; d < a->desc_rank; d++) /* a host descriptor: its block shape */
		sb_printf(b, "%cb%d", d ? 'x' : '<', a->desc_block[d]);
	if (a->tuple_len) {
		sb_putc(b, '(');
		for (int j = 0; j < a->tuple_len; j++) {
			api_key_spec(b, &a->tuple[j]);
			sb_putc(b, ',');
		}
		sb_putc(b, ')');
	}
}

static char *spec_key(const KernelInfo *ki, const TargetDesc *t, const CompileOptions *o,
                      const SpecArg *args, int nargs)
{
	StrBuf b = {0};
	sb_printf(&b, "%s|%s%s|w%d s%d d%d p%d v%d h%d a%d x%d l%d f%d r%d|", ki->name, t->name,
	          t->emulate ? "-emu" : "", o->num_warps, o->num_stages, (int)o->debug,
	          (int)o->no_mma_prefetch, (int)o->no_value_load_pipelining, (int)o->no_hold_smem,
	          (int)o->add_coords, (int)o->scratch_apart, (int)o->no_line_info, (int)o->no_fp_fusion, (int)o->racecheck);
	for (int i = 0; i < nargs; i++) {
		api_key_spec(&b, &args[i]);
		sb_putc(&b, ',');
	}
	return sb_take(&b);
}

/* ---- building a kernel -------------------------------------------------------------- */

static ConstVal copy_const(const ConstVal *v)
{
	ConstVal c = *v;
	if (c.kind == CV_STR || c.kind == CV_NAME) /* the kernel outlives the parse's arena */
		c.s = xstrdup(v->s ? v->s : "");
	return c;
}

/* The launch-ABI slots of a runtime argument: 2 x rank for a host descriptor, one per
 * runtime element for a tuple, else 1. */
static int spec_nslots(const SpecArg *a)
{
	if (a->desc_rank)
		return 2 * a->desc_rank;
	if (!a->tuple_len)
		return !a->is_const;
	int n = 0;
	for (int j = 0; j < a->tuple_len; j++)
		n += spec_nslots(&a->tuple[j]);
	return n;
}

/* A tuple argument's shape as ApiParam.tnodes lists it, with its constants'
 * values in consts; returns the nodes written (out may be NULL to count them). */
static int tuple_nodes(const SpecArg *a, int *out, ConstVal *consts)
{
	if (!a->tuple_len) {
		if (out)
			*out = !a->is_const ? -1 : a->empty_tuple ? -3 : -2;
		if (out && a->is_const && !a->empty_tuple)
			*consts = copy_const(&a->cval);
		return 1;
	}
	if (out)
		*out = a->tuple_len;
	int n = 1;
	for (int j = 0; j < a->tuple_len; j++)
		n += tuple_nodes(&a->tuple[j], out ? out + n : NULL, consts ? consts + n : NULL);
	return n;
}

static tile_status fill_params(tile_kernel *k, const KernelInfo *ki, const SpecArg *args, int nargs)
{
	k->nparams = ki->nparams;
	k->params = xcalloc((size_t)(ki->nparams > 0 ? ki->nparams : 1), sizeof *k->params);
	int slot = 0;
	for (int i = 0; i < ki->nparams; i++) {
		ApiParam *p = &k->params[i];
		p->name = xstrdup(ki->params[i].name);
		p->heuristic = ki->params[i].heuristic;
		p->runtime = i < nargs && !args[i].is_const;
		p->desc_rank = p->runtime ? args[i].desc_rank : 0;
		for (int d = 0; d < p->desc_rank; d++)
			p->desc_block[d] = args[i].desc_block[d];
		p->tuple = p->runtime && args[i].tuple_len > 0;
		p->tuple_len = p->tuple ? args[i].tuple_len : 0;
		if (p->tuple) {
			p->ntnodes = tuple_nodes(&args[i], NULL, NULL);
			p->tnodes = xcalloc((size_t)p->ntnodes, sizeof *p->tnodes);
			p->tconsts = xcalloc((size_t)p->ntnodes, sizeof *p->tconsts);
			tuple_nodes(&args[i], p->tnodes, p->tconsts);
		}
		if (p->runtime) {
			p->slot = slot;
			p->nslots = spec_nslots(&args[i]);
			slot += p->nslots;
		}
		else if (i < nargs && args[i].empty_tuple)
			p->empty_tuple = true;
		else if (i < nargs)
			p->cval = copy_const(&args[i].cval);
		else if (ki->params[i].default_object && ki->params[i].default_val.kind != CV_NAME) {
			/* a lambda or tuple default: no argument stands for it, so an
			 * all-parameters launch is refused rather than given None */
			ConstVal unnamed = {.kind = CV_NAME, .s = "(its default)"};
			p->cval = copy_const(&unnamed);
		} else if (ki->params[i].has_default)
			p->cval = copy_const(&ki->params[i].default_val);
		else
			p->cval.kind = CV_NONE;
	}
	if (slot != k->ck.nargs)
		return api_fail(
		        k->ctx, TILE_ERROR_INTERNAL,
		        "internal error: kernel '%s' has %d runtime parameters but the compiled "
		        "code takes %d",
		        ki->name, slot, k->ck.nargs);
	if (k->ck.nargs > API_MAX_PARAMS)
		return api_fail(k->ctx, TILE_ERROR_RESOURCES,
		                "kernel '%s' has %d runtime parameters; at most %d are supported",
		                ki->name, k->ck.nargs, API_MAX_PARAMS);
	k->nslots = k->ck.nargs;
	k->slots = xcalloc((size_t)(k->nslots > 0 ? k->nslots : 1), sizeof *k->slots);
	for (int i = 0, s = 0; i < k->nparams; i++) {
		if (!k->params[i].runtime)
			continue;
		for (int j = 0; j < k->params[i].nslots; j++, s++) {
			const KernelArgDesc *d = &k->ck.args[s];
			k->slots[s] = (ApiSlot){.dt = d->dt, .elem = d->elem, .spec = d->spec, .param = i};
		}
	}
	return TILE_OK;
}

static tile_status resolve_options(tile_context *ctx, const tile_kernel_options *opt, TargetDesc *t,
                                   CompileOptions *o)
{
	memset(o, 0, sizeof *o);
	o->num_warps = opt && opt->num_warps ? opt->num_warps : ctx->num_warps;
	o->num_stages = opt && opt->num_stages ? opt->num_stages : ctx->num_stages;
	o->debug = opt && opt->debug;
	o->no_fp_fusion = opt && opt->disable_fp_fusion;
	o->no_mma_prefetch = ctx->no_mma_prefetch;
	o->no_value_load_pipelining = ctx->no_value_load_pipelining;
	o->no_hold_smem = ctx->no_hold_smem;
	o->add_coords = ctx->add_coords;
	o->scratch_apart = ctx->scratch_apart;
	o->no_line_info = ctx->no_line_info;
	o->racecheck = ctx->racecheck;
	char why[96];
	if (options_problem(o->num_warps, o->num_stages, why, sizeof why))
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "%s", why);
	if (opt && opt->target)
		return api_resolve_target(ctx, opt->target, t);
	*t = ctx->target;
	return TILE_OK;
}

/* A kernel whose caller binds none of the first @triton.autotune config's
 * parameters is compiled as that config (sema binds its values): its
 * num_warps / num_stages apply too, as Triton launches a config with its own,
 * unless the caller's kernel options say otherwise. Options the target
 * cannot run (num_warps=128) are left out: Triton's autotuner skips such a
 * config, and tile cannot benchmark the others. */
static void first_config_options(const KernelInfo *ki, const SpecArg *args, int nargs,
                                 const tile_kernel_options *opt, const TargetDesc *t,
                                 CompileOptions *o)
{
	if (!ki || ki->nconfigs == 0)
		return; /* a config without kwargs (Config({}, num_warps=1)) still applies */
	const KernelConfig *c = &ki->configs[0];
	for (int k = 0; k < c->nkwargs; k++)
		for (int i = 0; i < ki->nparams && i < nargs; i++)
			if (!strcmp(ki->params[i].name, c->kwargs[k].name) && !args[i].use_default)
				return; /* the caller picks its own values */
	o->no_fp_fusion |= c->no_fp_fusion; /* Config({..., 'enable_fp_fusion': False}) */
	int nw = c->num_warps && !(opt && opt->num_warps) ? c->num_warps : o->num_warps;
	int ns = c->num_stages && !(opt && opt->num_stages) ? c->num_stages : o->num_stages;
	char why[96];
	if (options_problem(nw, ns, why, sizeof why) ||
	    (t->kind != TARGET_CPU && nw * t->lanes_per_warp > t->max_threads))
		return;
	o->num_warps = nw;
	o->num_stages = ns;
}

/* A constexpr parameter named num_warps or num_stages takes the launch option's
 * keyword in Triton (`k[grid](x, num_warps=8)` binds both the parameter and the
 * option; its launcher has one value for the two), so the value bound to such a
 * parameter is the option too. Bound to one value while the caller's options say
 * another is ambiguous: refused, rather than compiling the kernel for a number
 * of warps its code does not see. */
static tile_status option_params(tile_context *ctx, const KernelInfo *ki, const SpecArg *args,
                                 int nargs, const tile_kernel_options *opt, CompileOptions *o)
{
	if (!ki)
		return TILE_OK;
	for (int i = 0; i < ki->nparams && i < nargs; i++) {
		const KernelParamInfo *p = &ki->params[i];
		bool warps = !strcmp(p->name, "num_warps");
		if (!p->is_constexpr || (!warps && strcmp(p->name, "num_stages")) || args[i].use_default ||
		    !args[i].is_const)
			continue;
		if (args[i].cval.kind == CV_FLOAT) { /* Triton's option check fails on it (a TypeError) */
			double f = args[i].cval.f;
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                f > -1e15 && f < 1e15 && f == (double)(int64_t)f
			                    ? "parameter '%s' of kernel '%s' is %.1f, which is also the launch option %s: "
			                      "it must be an int"
			                    : "parameter '%s' of kernel '%s' is %g, which is also the launch option %s: "
			                      "it must be an int",
			                p->name, ki->name, f, p->name);
		}
		if (args[i].cval.kind != CV_INT)
			continue;
		int asked = opt ? (warps ? opt->num_warps : opt->num_stages) : 0;
		int64_t v = args[i].cval.i;
		if (asked && asked != v)
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "parameter '%s' of kernel '%s' is %" PRId64 " while the %s option is %d: "
			                "Triton passes one value as both (bind the parameter alone)",
			                p->name, ki->name, v, p->name, asked);
		int nw = warps ? (int)v : o->num_warps, ns = warps ? o->num_stages : (int)v;
		char why[96];
		if (v < 1 || v > 1024 || options_problem(nw, ns, why, sizeof why))
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "parameter '%s' of kernel '%s' is %" PRId64 ", which is also the launch "
			                "option %s: %s", p->name, ki->name, v, p->name,
			                v < 1 || v > 1024 ? "out of range" : why);
		o->num_warps = nw;
		o->num_stages = ns;
	}
	return TILE_OK;
}

tile_status api_make_request(tile_module *m, const char *kernel, const SpecArg *args, int nargs,
                             const tile_kernel_options *opt, CompileRequest *req)
{
	memset(req, 0, sizeof *req);
	tile_status st = resolve_options(m->ctx, opt, &req->target, &req->opts);
	if (st != TILE_OK)
		return st;
	const KernelInfo *ki = api_find_kernel(m, kernel);
	first_config_options(ki, args, nargs, opt, &req->target, &req->opts);
	st = option_params(m->ctx, ki, args, nargs, opt, &req->opts);
	if (st != TILE_OK)
		return st;
	req->src = m->src;
	req->kernel = kernel;
	req->args = args;
	req->nargs = nargs;
	req->dump = DUMP_NONE;
	req->cache = m->ctx->cache_enabled ? &m->ctx->cache : NULL;
	return TILE_OK;
}

static tile_status build_kernel(tile_module *m, const KernelInfo *ki, const CompileRequest *req,
                                tile_kernel **out)
{
	tile_context *ctx = m->ctx;
	tile_kernel *k = xcalloc(1, sizeof *k);
	k->refs = 1;
	k->registers = -1;
	diag_clear(&ctx->diags);
	if (compile_kernel(req, &ctx->diags, &k->ck, NULL) != 0) {
		free(k);
		return api_fail_diags(ctx, TILE_ERROR_COMPILE);
	}
	k->ctx = ctx;
	snprintf(k->name, sizeof k->name, "%s", ki->name);
	api_ctx_retain(ctx);
	tile_status st = fill_params(k, ki, req->args, req->nargs);
	if (st == TILE_OK)
		st = backend_load(ctx, k);
	if (st != TILE_OK) {
		api_kernel_free(k);
		return st;
	}
	*out = k;
	return TILE_OK;
}

void api_apply_launch(CompileRequest *req, const tile_kernel_options *opt, const HeurLaunch *launch)
{
	if (!launch)
		return;
	/* the config early_config_prune kept launches with its own options, unless
	 * the caller's say otherwise or the target cannot run them (as the first
	 * config's: first_config_options) */
	if (launch->cfg_no_fp_fusion)
		req->opts.no_fp_fusion = true;
	if (launch->cfg_num_warps || launch->cfg_num_stages) {
		int nw = launch->cfg_num_warps && !(opt && opt->num_warps) ? launch->cfg_num_warps
		                                                           : req->opts.num_warps;
		int ns = launch->cfg_num_stages && !(opt && opt->num_stages) ? launch->cfg_num_stages
		                                                             : req->opts.num_stages;
		char why[96];
		if (!options_problem(nw, ns, why, sizeof why) &&
		    (req->target.kind == TARGET_CPU ||
		     nw * req->target.lanes_per_warp <= req->target.max_threads)) {
			req->opts.num_warps = nw;
			req->opts.num_stages = ns;
		}
	}
	/* a heuristic's num_warps / num_stages (from the runtime values) win over
	 * the caller's, as in Triton; sema checked them, and the key holds them */
	if (launch->num_warps)
		req->opts.num_warps = launch->num_warps;
	if (launch->num_stages)
		req->opts.num_stages = launch->num_stages;
}

tile_status api_get_spec(tile_module *m, const KernelInfo *ki, const SpecArg *args, int nargs,
                         const tile_kernel_options *opt, const HeurLaunch *launch, tile_kernel **out)
{
	CompileRequest req;
	tile_status st = api_make_request(m, ki->name, args, nargs, opt, &req);
	if (st != TILE_OK)
		return st;
	api_apply_launch(&req, opt, launch);
	char *key = spec_key(ki, &req.target, &req.opts, args, nargs);
	for (size_t i = 0; i < m->specs.len; i++) {
		if (strcmp(m->specs.data[i].key, key) == 0) {
			free(key);
			tile_kernel *k = m->specs.data[i].k;
			k->refs++;
			*out = k;
			api_clear_error(m->ctx);
			return TILE_OK;
		}
	}
	tile_kernel *k = NULL;
	st = build_kernel(m, ki, &req, &k);
	if (st != TILE_OK) {
		free(key);
		return st;
	}
	k->key = key;
	k->refs++; /* the table's reference */
	vec_push(&m->specs, ((SpecEntry){xstrdup(key), k}));
	api_clear_error(m->ctx);
	*out = k;
	return TILE_OK;
}

/* ---- tile_kernel_get / tile_kernel_get_typed ------------------------------------------ */

/* The kernel's decorators failed: their diagnostic, already rendered, is the
 * error (before any argument, whose meaning the decorators decide). */
static tile_status deco_failed(tile_module *m, const KernelInfo *ki)
{
	return api_fail(m->ctx, TILE_ERROR_COMPILE, "%s", ki->deco_error);
}

tile_status tile_kernel_get(tile_module *m, const char *name, const char *signature,
                            const tile_kernel_options *opt, tile_kernel **out)
{
	if (out)
		*out = NULL;
	if (!m || !name || !out)
		return api_fail(m ? m->ctx : NULL, TILE_ERROR_INVALID_ARGUMENT,
		                "tile_kernel_get: module, name and out must not be NULL");
	const KernelInfo *ki = api_find_kernel(m, name);
	if (!ki)
		return not_found(m, name);
	if (ki->deco_error)
		return deco_failed(m, ki);
	if (!get_enter(m, "tile_kernel_get"))
		return TILE_ERROR_INVALID_ARGUMENT;
	Arena a;
	arena_init(&a);
	SpecArg *args = NULL;
	int nargs = 0;
	tile_status st;
	diag_clear(&m->ctx->diags);
	HeurLaunch launch;
	if (parse_signature_diag(signature ? signature : "", ki, &a, &args, &nargs, &m->ctx->diags) != 0)
		st = api_fail_diags(m->ctx, TILE_ERROR_INVALID_ARGUMENT);
	else if ((st = api_signature_prune(m, ki, &args, &nargs, &a, &launch)) == TILE_OK)
		st = api_get_spec(m, ki, args, nargs, opt, &launch, out);
	arena_free(&a);
	return get_leave(m, st);
}

static bool int_arg(const tile_arg *a, int64_t *v, DType *dt)
{
	switch (a->kind) {
	case TILE_ARG_I32:
		*v = a->i32;
		*dt = DT_I32;
		return true;
	case TILE_ARG_I64:
		*v = a->i64;
		*dt = DT_I64;
		return true;
	case TILE_ARG_U32:
		*v = a->u32;
		*dt = DT_U32;
		return true;
	case TILE_ARG_U64:
		*v = (int64_t)a->u64;
		*dt = DT_U64;
		return true;
	default: return false;
	}
}

/* `name` or `a.b.c`: Python identifiers joined by dots. */
static bool is_dotted_identifier(const char *s) { return s && py_dotted_name(s, 0); }

static tile_status const_from_arg(tile_context *ctx, const KernelParamInfo *p, const tile_arg *a,
                                  Arena *arena, ConstVal *cv)
{
	int64_t iv;
	DType dt;
	memset(cv, 0, sizeof *cv);
	if (int_arg(a, &iv, &dt)) {
		cv->kind = CV_INT;
		cv->i = iv;
		cv->u64 = a->kind == TILE_ARG_U64 && a->u64 > INT64_MAX; /* a Python int Triton types uint64 */
		return TILE_OK;
	}
	switch (a->kind) {
	case TILE_ARG_F32:
		cv->kind = CV_FLOAT;
		cv->f = a->f32;
		return TILE_OK;
	case TILE_ARG_F64:
		cv->kind = CV_FLOAT;
		cv->f = a->f64;
		return TILE_OK;
	case TILE_ARG_BOOL:
		cv->kind = CV_BOOL;
		cv->i = a->b != 0;
		return TILE_OK;
	case TILE_ARG_NONE: cv->kind = CV_NONE; return TILE_OK;
	case TILE_ARG_STR:
		cv->kind = CV_STR;
		cv->s = arena_strdup(arena, a->str);
		return TILE_OK;
	case TILE_ARG_NAME:
		if (!is_dotted_identifier(a->str))
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "constexpr parameter '%s': '%s' is not a (dotted) name", p->name, a->str);
		cv->kind = CV_NAME; /* sema resolves it in the kernel's module */
		cv->s = arena_strdup(arena, a->str);
		return TILE_OK;
	case TILE_ARG_DTYPE:
		cv->kind = CV_DTYPE;
		if (!api_dtype_to_dt(a->dtype, &cv->dtype))
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "constexpr parameter '%s': unknown dtype %d", p->name,
			                (int)a->dtype);
		return TILE_OK;
	default:
		return api_fail(
		        ctx, TILE_ERROR_INVALID_ARGUMENT,
		        "constexpr parameter '%s' needs a constant (int, float, bool, None, str "
		        "or dtype), not a %s",
		        p->name,
		        a->kind == TILE_ARG_DLTENSOR     ? "DLTensor"
		        : a->kind == TILE_ARG_TENSORDESC ? "tensor descriptor"
		                                         : "pointer");
	}
}

static tile_status ptr_spec(tile_context *ctx, const KernelParamInfo *p, const void *ptr,
                            tile_dtype d, SpecArg *out)
{
	DType dt;
	if (d != TILE_DTYPE_UNSPECIFIED && !api_dtype_to_dt(d, &dt))
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "pointer argument '%s': its pointee dtype %d is no tile_dtype", p->name, (int)d);
	if (d == TILE_DTYPE_UNSPECIFIED)
		return api_fail(
		        ctx, TILE_ERROR_INVALID_ARGUMENT,
		        "pointer argument '%s' needs a pointee dtype to specialize the kernel",
		        p->name);
	out->ty = type_ptr(dt);
	if (!p->do_not_specialize && !p->no_align_spec && (uintptr_t)ptr % 16 == 0)
		out->spec = SPEC_DIV16;
	return TILE_OK;
}

/* A host tensor descriptor argument: the signature entry
 * tensordesc<dtype[block_shape]> (checked here; the tensor itself at launch). */
static tile_status desc_spec(tile_context *ctx, const KernelParamInfo *p, const tile_tensordesc *d,
                             SpecArg *out)
{
	if (!d || !d->tensor)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': a tensor descriptor needs a tensor", p->name);
	if (d->block_rank < 1 || d->block_rank > TILE_MAX_DESC_RANK ||
	    d->block_rank != d->tensor->ndim)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': the descriptor's block has %d dimensions, its tensor %d "
		                "(they must agree, 1 to %d)",
		                p->name, d->block_rank, d->tensor->ndim, TILE_MAX_DESC_RANK);
	for (int i = 0; i < d->block_rank; i++) {
		int32_t b = d->block_shape[i];
		if (!desc_block_dim_ok(b))
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "argument '%s': block dimension %d is %d; it must be a power "
			                "of two from 1 to 2^20",
			                p->name, i, (int)b);
	}
	tile_dtype td = d->dtype != TILE_DTYPE_UNSPECIFIED ? d->dtype
	                                                  : api_dtype_from_dlpack(d->tensor->dtype);
	DType dt;
	if (td == TILE_DTYPE_UNSPECIFIED || !api_dtype_to_dt(td, &dt) || dt == DT_I1)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': the descriptor's element type is not one tile supports",
		                p->name);
	char why[160];
	if (api_desc_elem_problem(d, why, sizeof why))
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "argument '%s': %s", p->name, why);
	out->ty = type_ptr(dt);
	out->spec = SPEC_DIV16; /* the descriptor contract: a 16-byte aligned base */
	out->desc_rank = d->block_rank;
	for (int i = 0; i < d->block_rank; i++)
		out->desc_block[i] = d->block_shape[i];
	return TILE_OK;
}

/* A tuple argument: each element specialized as a runtime parameter of its own
 * (`(i32:16, i32:1)` in a signature), None, strings and dtypes as constants;
 * for a constexpr parameter (Triton's `shape: tl.constexpr` given x.shape)
 * every element is a constant. */
static tile_status tuple_spec(tile_context *ctx, const KernelParamInfo *p, const tile_tuple *t,
                              Arena *arena, SpecArg *out, int depth)
{
	enum { MAX_ELEMS = 64, MAX_DEPTH = 8 }; /* as the signature parser */
	memset(out, 0, sizeof *out);
	if (depth >= MAX_DEPTH)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': the tuple nests deeper than %d", p->name, MAX_DEPTH);
	if (!t || (t->len && !t->elems))
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': a tuple argument needs its tile_tuple and elements",
		                p->name);
	if (t->len == 0) { /* `()`: no runtime element, a constant */
		out->is_const = true;
		out->empty_tuple = true;
		return TILE_OK;
	}
	if (t->len > MAX_ELEMS)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s': a tuple of %zu elements (at most %d)", p->name,
		                t->len, MAX_ELEMS);
	SpecArg *items = ARENA_NEWN(arena, SpecArg, t->len);
	KernelParamInfo elem = *p;
	/* Triton specializes a tuple's elements whatever do_not_specialize says */
	elem.do_not_specialize = elem.no_align_spec = false;
	for (size_t j = 0; j < t->len; j++) {
		const tile_arg *e = &t->elems[j];
		if (e->kind == TILE_ARG_TENSORDESC)
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "argument '%s': element %zu of the tuple is a tensor descriptor; "
			                "elements are scalars, pointers, None, strings, dtypes or tuples",
			                p->name, j + 1);
		bool constant = p->is_constexpr || e->kind == TILE_ARG_STR || e->kind == TILE_ARG_DTYPE;
		/* a bad tensor is named by its element, as the launch names it */
		const char *why = e->kind == TILE_ARG_DLTENSOR && !constant ? api_dltensor_problem(e->dl, -1) : NULL;
		if (why)
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "argument '%s': element %zu of the tuple: %s",
			                p->name, j + 1, why);
		elem.is_constexpr = constant;
		tile_status st = e->kind == TILE_ARG_TUPLE /* nested, as Triton's launcher takes them */
		                         ? tuple_spec(ctx, &elem, e->tuple, arena, &items[j], depth + 1)
		                         : api_spec_from_arg(ctx, &elem, e, arena, &items[j]);
		if (st != TILE_OK)
			return st;
	}
	out->tuple_len = (int)t->len;
	out->tuple = items;
	return TILE_OK;
}

tile_status api_spec_from_arg(tile_context *ctx, const KernelParamInfo *p, const tile_arg *a,
                              Arena *arena, SpecArg *out)
{
	memset(out, 0, sizeof *out);
	/* a tile_arg not made by a constructor: a kind past the enum was called a
	 * dtype or a pointer, a NULL string bound as '' */
	if ((unsigned)a->kind > TILE_ARG_NAME)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "argument '%s' has kind %d, which is no tile_arg_kind (make it with a tile_arg_* function)",
		                p->name, (int)a->kind);
	if ((a->kind == TILE_ARG_STR || a->kind == TILE_ARG_NAME) && !a->str)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "argument '%s': the %s is NULL%s", p->name,
		                a->kind == TILE_ARG_STR ? "string" : "name",
		                a->kind == TILE_ARG_STR ? " (tile_arg_none() passes None)" : "");
	if (a->kind == TILE_ARG_TUPLE)
		return tuple_spec(ctx, p, a->tuple, arena, out, 0);
	if (p->is_constexpr || a->kind == TILE_ARG_NONE) {
		out->is_const = true;
		return const_from_arg(ctx, p, a, arena, &out->cval);
	}
	int64_t iv;
	DType dt;
	DType ann = (DType)p->ann_dt;
	if (int_arg(a, &iv, &dt)) {
		/* `s: tl.int64` is i64 whatever the value, as Triton's binder types it
		 * (the launch checks that the value fits); a bool annotation (u1) is
		 * not specialized there */
		if (dtype_is_int(ann))
			dt = ann;
		out->ty = type_scalar(dt);
		if (!p->do_not_specialize && dt != DT_I1)
			out->spec = iv == 1 ? SPEC_EQ1 : (iv % 16 == 0 && !p->no_align_spec ? SPEC_DIV16 : SPEC_NONE);
		return TILE_OK;
	}
	switch (a->kind) {
	case TILE_ARG_PTR: return ptr_spec(ctx, p, a->ptr, a->dtype, out);
	case TILE_ARG_DLTENSOR: {
		const char *why = api_dltensor_problem(a->dl, -1); /* the device: at launch */
		if (why)
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "argument '%s': %s", p->name, why);
		return ptr_spec(ctx, p, api_dltensor_data(a->dl),
		                api_dtype_from_dlpack(a->dl->dtype), out);
	}
	case TILE_ARG_TENSORDESC: return desc_spec(ctx, p, a->desc, out);
	case TILE_ARG_F32:
	case TILE_ARG_F64: /* `eps: tl.float64` is fp64 whatever the caller's width */
		if (dtype_is_int(ann)) /* Triton's launcher cannot pack it (a TypeError): it was taken as fp32 */
			return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "argument '%s' is a float, but the parameter is annotated tl.%s: pass %s",
			                p->name, dtype_name(ann), ann == DT_I1 ? "True or False" : "an integer");
		out->ty = type_scalar(dtype_is_float(ann) ? ann : a->kind == TILE_ARG_F32 ? DT_F32 : DT_F64);
		return TILE_OK;
	case TILE_ARG_BOOL: out->ty = type_scalar(DT_I1); return TILE_OK;
	default:
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "parameter '%s' is not tl.constexpr: it cannot take a %s", p->name,
		                a->kind == TILE_ARG_STR ? "string" : a->kind == TILE_ARG_NAME ? "name" : "dtype");
	}
}

/* The Python value of a runtime scalar argument, as Triton's heuristics see it. */
static bool scalar_value(const tile_arg *a, ConstVal *v)
{
	int64_t iv;
	DType dt;
	if (a->kind == TILE_ARG_U64 && a->u64 > INT64_MAX)
		return false;
	if (int_arg(a, &iv, &dt)) {
		*v = (ConstVal){.kind = CV_INT, .i = iv};
		return true;
	}
	switch (a->kind) {
	case TILE_ARG_F32: *v = (ConstVal){.kind = CV_FLOAT, .f = a->f32}; return true;
	case TILE_ARG_F64: *v = (ConstVal){.kind = CV_FLOAT, .f = a->f64}; return true;
	case TILE_ARG_BOOL: *v = (ConstVal){.kind = CV_BOOL, .i = a->b != 0}; return true;
	default: return false;
	}
}

/* Binds, as constants, the parameters sema_heuristic_values set (set[i]) in the
 * specialization *specp of *nargs arguments (extended, past `last` too, with
 * the defaults of those left out). */
static void bind_results(const KernelInfo *ki, const ConstVal *vals, const bool *set, int last,
                         SpecArg **specp, int *nargs, Arena *a)
{
	int n = *nargs;
	for (int i = 0; i < ki->nparams; i++) /* a config early_config_prune kept binds its parameters */
		if (set[i] && i > last)
			last = i;
	int nn = last + 1 > n ? last + 1 : n;
	SpecArg *out = ARENA_NEWN(a, SpecArg, nn + 1);
	for (int i = 0; i < nn; i++) {
		if (set[i])
			out[i] = (SpecArg){.is_const = true, .cval = vals[i]};
		else if (i < n)
			out[i] = (*specp)[i];
		else
			out[i] = (SpecArg){.is_const = true, .use_default = true, .cval = ki->params[i].default_val};
	}
	*nargs = nn;
	*specp = out;
}

/* The shape and strides (in elements; a NULL strides is row-major) of a DLTensor
 * argument, which heuristics read as Triton's see the tensor (args['x'].shape).
 * Row-major strides count a dimension of size 0 as 1, as torch's and NumPy's
 * (torch.empty(3, 0, 4).stride() is (4, 4, 1)); false when one of them does
 * not fit in 64 bits (possible only with a 0 dimension: the element count fits). */
static bool tensor_shape(const DLTensor *t, Arena *a, SpecArg *out)
{
	int64_t *strides = ARENA_NEWN(a, int64_t, t->ndim + 1), st = 1;
	bool over = false;
	for (int d = t->ndim - 1; d >= 0; d--) {
		if (!t->strides && over)
			return false;
		strides[d] = t->strides ? t->strides[d] : st;
		over = over || __builtin_mul_overflow(st, t->shape[d] > 1 ? t->shape[d] : 1, &st);
	}
	out->has_shape = true;
	out->ndim = t->ndim;
	out->shape = t->shape;
	out->strides = strides;
	return true;
}

/* Triton's launcher runs a kernel's @triton.heuristics on the actual arguments
 * (EVEN_K from K's value): the ones the caller leaves unbound are computed here
 * from the values and bound as constants, so the specialization and its key
 * hold their results. One this cannot compute is left to sema, which reports it. */
static tile_status with_heuristics(tile_module *m, const KernelInfo *ki, const tile_arg *args,
                                   SpecArg **specp, int *nargs, Arena *a, HeurLaunch *launch)
{
	SpecArg *spec = *specp;
	int n = *nargs, np = ki->nparams, last = -1;
	for (int i = 0; i < np; i++)
		if (ki->params[i].heuristic &&
		    (i >= n || (spec[i].is_const && spec[i].cval.kind == CV_NONE)))
			last = i;
	if (last < 0 && !ki->launch_heuristic && !ki->prunes)
		return TILE_OK;
	bool any_value = false;
	SpecArg *probe = ARENA_NEWN(a, SpecArg, n ? n : 1);
	for (int i = 0; i < n; i++) {
		probe[i] = spec[i];
		if (!spec[i].is_const && !spec[i].tuple_len && !spec[i].desc_rank &&
		    scalar_value(&args[i], &probe[i].value))
			any_value = probe[i].has_value = true;
		if (!spec[i].is_const && args[i].kind == TILE_ARG_DLTENSOR) {
			if (!tensor_shape(args[i].dl, a, &probe[i]))
				return api_fail(m->ctx, TILE_ERROR_INVALID_ARGUMENT,
				                "argument '%s': a row-major stride of the DLTensor (strides "
				                "NULL) does not fit in 64 bits",
				                ki->params[i].name);
			any_value = true;
		}
	}
	if (!any_value && !ki->prunes)
		return TILE_OK; /* nothing the specialization does not already say */
	ConstVal *vals = ARENA_NEWN(a, ConstVal, np);
	bool *set = ARENA_NEWN(a, bool, np);
	/* an error here is reported as it is: the compile without the values
	 * would only say "needs the value of runtime argument 'n'" where the
	 * heuristic divided by n == 0 or shifted by a huge n */
	diag_clear(&m->ctx->diags);
	bool ok = api_heuristic_values(m, ki, probe, n, vals, set, launch);
	if (m->ctx->diags.nerrors > 0)
		return api_fail_diags(m->ctx, TILE_ERROR_COMPILE);
	if (!ok)
		return TILE_OK;
	bind_results(ki, vals, set, last, specp, nargs, a);
	return TILE_OK;
}

/* Compiling from a signature, Triton's Autotuner would still prune the configs
 * before it benchmarks: early_config_prune and perf_model are run on what the
 * signature says (constants by value, pointers' dtypes), and the first config
 * they keep is bound; one that reads what it does not say (a runtime argument's
 * value) leaves the first config, as without them. */
tile_status api_signature_prune(tile_module *m, const KernelInfo *ki, SpecArg **specp, int *nargs, Arena *a,
                                HeurLaunch *launch)
{
	*launch = (HeurLaunch){.prune_only = true};
	if (!ki->prunes)
		return TILE_OK;
	int np = ki->nparams;
	for (int i = 0; i < *nargs; i++)
		if ((*specp)[i].tuple_len)
			return TILE_OK; /* the sema pass takes no tuple elements (as with_heuristics) */
	ConstVal *vals = ARENA_NEWN(a, ConstVal, np + 1);
	bool *set = ARENA_NEWN(a, bool, np + 1);
	diag_clear(&m->ctx->diags);
	bool ok = api_heuristic_values(m, ki, *specp, *nargs, vals, set, launch);
	if (m->ctx->diags.nerrors > 0)
		return api_fail_diags(m->ctx, TILE_ERROR_COMPILE);
	if (ok)
		bind_results(ki, vals, set, -1, specp, nargs, a);
	return TILE_OK;
}

tile_status tile_kernel_get_typed(tile_module *m, const char *name, const tile_arg *args,
                                  size_t nargs, const tile_kernel_options *opt, tile_kernel **out)
{
	if (out)
		*out = NULL;
	if (!m || !name || !out || (nargs && !args))
		return api_fail(
		        m ? m->ctx : NULL, TILE_ERROR_INVALID_ARGUMENT,
		        "tile_kernel_get_typed: module, name, args and out must not be NULL");
	const KernelInfo *ki = api_find_kernel(m, name);
	if (!ki)
		return not_found(m, name);
	if (ki->deco_error)
		return deco_failed(m, ki);
	if (nargs > (size_t)ki->nparams)
		return api_fail(m->ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "kernel '%s' takes %d parameters, got %zu arguments", name,
		                ki->nparams, nargs);
	for (size_t i = nargs; i < (size_t)ki->nparams; i++)
		if (!ki->params[i].has_default)
			return api_fail(m->ctx, TILE_ERROR_INVALID_ARGUMENT,
			                "kernel '%s': no argument for parameter '%s'", name,
			                ki->params[i].name);
	if (!get_enter(m, "tile_kernel_get_typed"))
		return TILE_ERROR_INVALID_ARGUMENT;
	Arena a;
	arena_init(&a);
	SpecArg *spec = ARENA_NEWN(&a, SpecArg, nargs ? nargs : 1);
	tile_status st = TILE_OK;
	for (size_t i = 0; i < nargs && st == TILE_OK; i++)
		st = api_spec_from_arg(m->ctx, &ki->params[i], &args[i], &a, &spec[i]);
	int n = (int)nargs;
	HeurLaunch launch = {0};
	if (st == TILE_OK)
		st = with_heuristics(m, ki, args, &spec, &n, &a, &launch);
	if (st == TILE_OK)
		st = api_get_spec(m, ki, spec, n, opt, &launch, out);
	arena_free(&a);
	return get_leave(m, st);
}
