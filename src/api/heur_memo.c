/* heur_memo.c: what a kernel's @triton.heuristics, early_config_prune and
 * perf_model computed, remembered per module for the inputs they saw. A host
 * calling tile_kernel_get (or _typed) before each launch would otherwise run
 * a sema pass over the kernel's decorators on every call; Triton's Autotuner
 * too prunes once per key, not per launch. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

/* Entries per module: enough for the shapes a program cycles through, small
 * enough that a host feeding a fresh value each call does not grow it. */
enum { HEUR_MEMO_MAX = 256 };

/* The pass's whole input: the kernel, the mode, and each argument's
 * specialization with the value, shape and strides the pass may read (which
 * of them it reads is not tracked, so all of them are the key). */
static char *memo_key(const KernelInfo *ki, const SpecArg *args, int nargs, bool prune_only)
{
	StrBuf b = {0};
	sb_printf(&b, "%s|%d|", ki->name, (int)prune_only);
	for (int i = 0; i < nargs; i++) {
		api_key_spec(&b, &args[i]);
		if (args[i].has_value) {
			sb_putc(&b, '=');
			api_key_const(&b, &args[i].value);
		}
		if (args[i].has_shape) {
			sb_printf(&b, "[%d", args[i].ndim);
			for (int d = 0; d < args[i].ndim; d++)
				sb_printf(&b, " %" PRId64 "/%" PRId64, args[i].shape[d], args[i].strides[d]);
			sb_putc(&b, ']');
		}
		sb_putc(&b, ',');
	}
	return sb_take(&b);
}

static uint64_t memo_hash(const char *s)
{
	uint64_t h = 14695981039346656037u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

void api_heur_memo_free(tile_module *m)
{
	for (size_t i = 0; i < m->memo.len; i++) {
		free(m->memo.data[i].key);
		free(m->memo.data[i].vals);
		free(m->memo.data[i].set);
	}
	vec_free(&m->memo);
}

bool api_heuristic_values(tile_module *m, const KernelInfo *ki, const SpecArg *args, int nargs,
                          ConstVal *out, bool *set, HeurLaunch *launch)
{
	int np = ki->nparams;
	char *key = memo_key(ki, args, nargs, launch->prune_only);
	uint64_t h = memo_hash(key);
	for (size_t i = 0; i < m->memo.len; i++) {
		const HeurMemo *e = &m->memo.data[i];
		if (e->hash == h && strcmp(e->key, key) == 0) {
			free(key);
			memcpy(out, e->vals, (size_t)np * sizeof *out);
			memcpy(set, e->set, (size_t)np * sizeof *set);
			*launch = e->launch;
			return e->ok;
		}
	}
	memset(set, 0, (size_t)np * sizeof *set);
	m->heur_passes++;
	bool ok = source_heuristic_values(m->src, &m->ctx->diags, ki->name, args, nargs, out, set, np, launch);
	if (m->ctx->diags.nerrors > 0) { /* reported by the caller, and again if asked again */
		free(key);
		return ok;
	}
	/* strings in out live in the module's arena (source_heuristic_values) */
	HeurMemo e = {key, h, ok, xcalloc((size_t)np + 1, sizeof *out), xcalloc((size_t)np + 1, sizeof *set), *launch};
	memcpy(e.vals, out, (size_t)np * sizeof *out);
	memcpy(e.set, set, (size_t)np * sizeof *set);
	if (m->memo.len < HEUR_MEMO_MAX) {
		vec_push(&m->memo, e);
		return ok;
	}
	HeurMemo *old = &m->memo.data[m->memo_next]; /* full: the oldest goes */
	free(old->key);
	free(old->vals);
	free(old->set);
	*old = e;
	m->memo_next = (m->memo_next + 1) % HEUR_MEMO_MAX;
	return ok;
}
