/* context.c: tile_context, target resolution and the error state.
 *
 * The context owns everything long-lived: the default target and options, the
 * disk cache, the diagnostics sink every compile reports into, the CPU worker
 * pool and the JIT engines (backend.c). No globals: two contexts share nothing.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"

/* ---- errors ----------------------------------------------------------------- */

static void set_error(tile_context *ctx, char *msg, int offset)
{
	pthread_mutex_lock(&ctx->err_mu);
	free(ctx->errmsg);
	ctx->errmsg = msg;
	ctx->err_offset = offset;
	pthread_mutex_unlock(&ctx->err_mu);
}

tile_status api_fail(tile_context *ctx, tile_status st, const char *fmt, ...)
{
	if (!ctx)
		return st;
	StrBuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	set_error(ctx, sb_take(&b), -1);
	return st;
}

bool api_enter(tile_context *ctx, const char *call)
{
	if (!atomic_exchange(&ctx->busy, 1))
		return true;
	api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
	         "%s: the context is compiling already (on another thread, or in a callback of that "
	         "call); a context compiles one thing at a time: use one context per thread",
	         call);
	return false;
}

void api_leave(tile_context *ctx) { atomic_store(&ctx->busy, 0); }

tile_status api_fail_diags(tile_context *ctx, tile_status st)
{
	int offset = -1;
	for (size_t i = 0; i < ctx->diags.diags.len; i++) {
		const Diag *d = &ctx->diags.diags.data[i];
		if (d->level == DIAG_ERROR) {
			if (d->loc.file)
				offset = (int)d->loc.offset;
			if (strstr(d->msg, "internal compiler error"))
				st = TILE_ERROR_INTERNAL;
			else if (st == TILE_ERROR_COMPILE && !d->loc.file &&
			         strstr(d->msg, "allows"))
				st = TILE_ERROR_RESOURCES; /* shared memory / threads over the
				                              target's limit */
			break;
		}
	}
	/* with a diagnostic callback the notes and warnings have been seen, in
	 * order, as they came: the message repeats only the errors (a CLI printed
	 * each static_print note twice) */
	char *msg;
	if (ctx->on_diag) {
		StrBuf b = {0};
		for (size_t i = 0; i < ctx->diags.diags.len; i++)
			if (ctx->diags.diags.data[i].level == DIAG_ERROR)
				sb_puts(&b, ctx->diags.diags.data[i].rendered);
		msg = sb_take(&b);
	} else {
		msg = diag_render_all(&ctx->diags);
	}
	if (!*msg) {
		free(msg);
		msg = xstrdup("compilation failed without a diagnostic (internal error)");
	}
	set_error(ctx, msg, offset);
	return st;
}

void api_clear_error(tile_context *ctx)
{
	if (ctx->errmsg)
		set_error(ctx, NULL, -1);
}

const char *tile_errmsg(const tile_context *ctx)
{
	if (!ctx)
		return "no context (tile_context_create failed or was not called)";
	return ctx->errmsg ? ctx->errmsg : "";
}

int tile_error_offset(const tile_context *ctx) { return ctx ? ctx->err_offset : -1; }

/* ---- diagnostics bridge ---------------------------------------------------------- */

static void diag_bridge(void *user, const Diag *d)
{
	tile_context *ctx = user;
	if (!ctx->on_diag)
		return;
	tile_diagnostic td = {0};
	td.level = d->level == DIAG_ERROR     ? TILE_DIAG_ERROR
	           : d->level == DIAG_WARNING ? TILE_DIAG_WARNING
	                                      : TILE_DIAG_NOTE;
	td.file = d->loc.file ? d->loc.file->name : NULL;
	td.line = d->loc.file ? d->loc.line : 0;
	td.col = d->loc.file ? d->loc.col : 0;
	td.offset = d->loc.file ? (int)d->loc.offset : -1;
	td.message = d->msg;
	char *r = d->rendered ? NULL : diag_render(d);
	td.rendered = d->rendered ? d->rendered : r;
	ctx->on_diag(ctx->diag_user, &td);
	free(r);
}

/* An environment switch as Triton's getBoolEnv reads one (TRITON_DISABLE_LINE_INFO=true
 * is on there): 1, true or on, in any case. */
static bool env_is(const char *name, const char *const *words, size_t n)
{
	const char *v = getenv(name);
	for (size_t i = 0; v && i < n; i++)
		if (strcasecmp(v, words[i]) == 0)
			return true;
	return false;
}

/* TILE_COMPILE_THREADS=N as CompileOptions.variant_threads: unset (or not a
 * count) 0, as many as there are processors; 0 none (-1); else N, at most 64. */
static int env_variant_threads(void)
{
	const char *v = getenv("TILE_COMPILE_THREADS");
	char *end;
	long n = v && *v ? strtol(v, &end, 10) : -1;
	if (!v || !*v || *end || n < 0)
		return 0;
	return n == 0 ? -1 : n > 64 ? 64 : (int)n;
}

static bool env_on(const char *name)
{
	static const char *const on[] = {"1", "true", "on"};
	return env_is(name, on, sizeof on / sizeof on[0]);
}

/* A switch that is on unless turned off: 0, false, off or no, in any case. */
static bool env_off(const char *name)
{
	static const char *const off[] = {"0", "false", "off", "no"};
	return env_is(name, off, sizeof off / sizeof off[0]);
}

static void default_print(void *user, const char *text, size_t len)
{
	(void)user;
	fwrite(text, 1, len, stdout);
	fflush(stdout);
}

/* ---- targets ----------------------------------------------------------------- */

tile_status api_resolve_target(tile_context *ctx, const char *name, TargetDesc *t)
{
	char buf[32];
	const char *from = ""; /* where a name the caller did not give came from */
	if (!name || !*name || strcmp(name, "auto") == 0) {
		const char *env = getenv("TILE_TARGET");
		if (env && *env && strcmp(env, "auto") != 0) {
			name = env;
			from = " (set by TILE_TARGET)";
		} else {
			name = backend_cuda_present(ctx->be, buf, sizeof buf) ? "cuda" : "cpu";
		}
	}
	if (strcmp(name, "cuda") == 0) {
		if (!backend_cuda_present(ctx->be, buf, sizeof buf))
			return api_fail(ctx, TILE_ERROR_TARGET,
			                "target 'cuda'%s: no usable CUDA driver and device (%s)", from,
			                backend_cuda_reason(ctx->be));
		name = buf;
	}
	if (!target_from_name(name, t))
		return api_fail(ctx, TILE_ERROR_TARGET,
		                "unknown target '%s'%s (expected auto, cpu, cuda, cuda-emu or sm_XX with XX >= 80, "
		                "optionally ending in 'a': tile supports Ampere and newer)",
		                name, from);
	return TILE_OK;
}

const char *tile_context_target(const tile_context *ctx) { return ctx ? ctx->target.name : ""; }

/* ---- create / destroy ---------------------------------------------------------- */

static tile_status ctx_init(tile_context *ctx, const tile_context_options *o)
{
	ctx->err_offset = -1;
	pthread_mutex_init(&ctx->err_mu, NULL);
	diag_init(&ctx->diags);
	ctx->diags.callback = diag_bridge;
	ctx->diags.user = ctx;
	ctx->on_diag = o->on_diagnostic;
	ctx->diag_user = o->diagnostic_user;
	ctx->on_print = o->on_print ? o->on_print : default_print;
	ctx->print_user = o->on_print ? o->print_user : NULL;
	ctx->num_warps = o->num_warps ? o->num_warps : 4;
	ctx->num_stages = o->num_stages ? o->num_stages : 3; /* Triton's default */
	ctx->no_mma_prefetch = env_off("TILE_MMA_PREFETCH");
	ctx->no_value_load_pipelining = env_off("TILE_PIPELINE_VALUE_LOADS");
	ctx->no_hold_smem = env_off("TILE_HOLD_SMEM");
	ctx->no_hoist = env_off("TILE_HOIST");
	ctx->add_coords = env_on("TILE_COORD_ADD");
	ctx->wide_addr = env_on("TILE_WIDE_ADDR");
	ctx->scratch_apart = env_on("TILE_SCRATCH_APART");
	ctx->no_line_info = env_on("TILE_DISABLE_LINE_INFO");
	ctx->racecheck = env_on("TILE_RACECHECK");
	ctx->debug = env_on("TRITON_DEBUG") || env_on("TILE_DEBUG"); /* Triton's knob, for its users */
	ctx->variant_threads = env_variant_threads();
	char why[96];
	if (options_problem(ctx->num_warps, ctx->num_stages, why, sizeof why))
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT, "%s", why);
	if (o->num_threads < 0)
		return api_fail(ctx, TILE_ERROR_INVALID_ARGUMENT,
		                "num_threads must not be negative, got %d",
		                o->num_threads);
	ctx->be = backend_create(ctx);
	ctx->pool = cpu_pool_create(o->num_threads);
	if (!ctx->be || !ctx->pool)
		return TILE_ERROR_NOMEM;
	tile_status st = api_resolve_target(ctx, o->target, &ctx->target);
	if (st != TILE_OK)
		return st;
	const char *mp = o->module_path ? o->module_path : getenv("TILE_PATH");
	if (mp && *mp && !(ctx->module_path = strdup(mp)))
		return TILE_ERROR_NOMEM;
	ctx->cache_enabled = !o->disable_cache;
	if (ctx->cache_enabled)
		cache_open(&ctx->cache, o->cache_dir, &ctx->diags);
	return TILE_OK;
}

static void ctx_free(tile_context *ctx)
{
	cpu_pool_destroy(ctx->pool);
	backend_destroy(ctx->be);
	if (ctx->cache_enabled)
		cache_close(&ctx->cache);
	diag_free(&ctx->diags);
	free(ctx->errmsg);
	free(ctx->module_path);
	pthread_mutex_destroy(&ctx->err_mu);
	free(ctx);
}

void api_ctx_retain(tile_context *ctx) { atomic_fetch_add(&ctx->refs, 1); }

void api_ctx_release(tile_context *ctx)
{
	if (atomic_fetch_sub(&ctx->refs, 1) == 1)
		ctx_free(ctx);
}

tile_status tile_context_create(tile_context **out, const tile_context_options *opt)
{
	if (!out)
		return TILE_ERROR_INVALID_ARGUMENT;
	*out = NULL;
	tile_context_options defaults = {0};
	tile_context *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return TILE_ERROR_NOMEM;
	atomic_init(&ctx->refs, 1);
	tile_status st = ctx_init(ctx, opt ? opt : &defaults);
	if (st != TILE_OK) {
		if (opt && opt->errbuf && opt->errbuf_size)
			snprintf(opt->errbuf, opt->errbuf_size, "%s",
			         ctx->errmsg ? ctx->errmsg : tile_status_string(st));
		tile_context_destroy(ctx);
		return st;
	}
	*out = ctx;
	return TILE_OK;
}

void tile_context_destroy(tile_context *ctx)
{
	if (ctx)
		api_ctx_release(ctx);
}
