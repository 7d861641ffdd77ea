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
bool api_module_enter(tile_module *m, const char *call)
{
	if (!api_enter(m->ctx, call))
		return false;
	atomic_fetch_or(&m->state, MOD_BUSY);
	return true;
}

tile_status api_module_leave(tile_module *m, tile_status st)
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

tile_status api_kernel_not_found(tile_module *m, const char *name)
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
		return api_kernel_not_found(m, kernel);
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
	if (a->desc_last16)
		sb_puts(b, ">16");
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
	sb_printf(&b, "%s|%s%s|w%d s%d d%d p%d v%d h%d i%d a%d W%d x%d l%d f%d r%d|", ki->name, t->name,
	          t->emulate ? "-emu" : "", o->num_warps, o->num_stages, (int)o->debug,
	          (int)o->no_mma_prefetch, (int)o->no_value_load_pipelining, (int)o->no_hold_smem, (int)o->no_hoist,
	          (int)o->add_coords, (int)o->wide_addr, (int)o->scratch_apart, (int)o->no_line_info, (int)o->no_fp_fusion,
	          (int)o->racecheck);
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
		k->has_desc = k->has_desc || p->desc_rank > 0;
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
	o->debug = (opt && opt->debug) || ctx->debug;
	o->no_fp_fusion = opt && opt->disable_fp_fusion;
	o->no_mma_prefetch = ctx->no_mma_prefetch;
	o->no_value_load_pipelining = ctx->no_value_load_pipelining;
	o->no_hold_smem = ctx->no_hold_smem;
	o->no_hoist = ctx->no_hoist;
	o->add_coords = ctx->add_coords;
	o->wide_addr = ctx->wide_addr;
	o->scratch_apart = ctx->scratch_apart;
	o->no_line_info = ctx->no_line_info;
	o->racecheck = ctx->racecheck;
	o->variant_threads = ctx->variant_threads;
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
