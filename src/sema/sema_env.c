/* sema_env.c: environments, a function's name bindings (Fn.env), in binding
 * order; a name bound twice (a closure's capture, then the caller's late
 * bindings) means its last binding.
 *
 * Small environments are searched from the end. Past ENV_INDEX_MIN bindings a
 * hash index (name pointer -> position, open addressing) is kept beside the
 * bindings, so that a kernel with thousands of parameters and heuristics
 * (each heuristic's `args` dict looks every parameter up) is not quadratic
 * in lookups. The index covers data[0, ix_len): bindings appended since
 * (vec_push by the callers that copy captures in) are added at the next
 * lookup; env_copy and env_free drop it. Names are interned, so equality is
 * pointer equality and the hash is of the pointer. */
#include <stdint.h>
#include <stdlib.h>

#include "sema/sema_int.h"

enum { ENV_INDEX_MIN = 24 };

static size_t name_hash(const char *name)
{
	uint64_t h = (uint64_t)(uintptr_t)name;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9u; /* splitmix64's finalizer: pointers share low bits */
	h ^= h >> 32;
	return (size_t)h;
}

/* the slot of `name` in the index: its binding's position + 1, or an empty slot (0) */
static uint32_t *index_slot(const Env *e, const char *name)
{
	size_t mask = e->ix_cap - 1;
	for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
		uint32_t *s = &e->ix[i];
		if (*s == 0 || e->data[*s - 1].name == name) return s;
	}
}

static void index_add(Env *e, size_t pos)
{
	/* at most half full, so that probes stay short and one slot is always empty */
	if (2 * (pos + 1) > e->ix_cap) {
		size_t cap = e->ix_cap ? e->ix_cap : 64;
		while (2 * (pos + 1) > cap) cap *= 2;
		free(e->ix);
		e->ix = xcalloc(cap, sizeof *e->ix);
		e->ix_cap = cap;
		for (size_t i = 0; i < pos; i++) *index_slot(e, e->data[i].name) = (uint32_t)(i + 1);
	}
	*index_slot(e, e->data[pos].name) = (uint32_t)(pos + 1); /* a later binding wins */
}

Value *env_find(Env *e, const char *name)
{
	if (e->len < ENV_INDEX_MIN) {
		for (size_t i = e->len; i-- > 0;)
			if (e->data[i].name == name) return &e->data[i].v;
		return NULL;
	}
	if (e->ix_len > e->len) env_drop_index(e); /* cut back: positions past len are stale */
	for (; e->ix_len < e->len; e->ix_len++) index_add(e, e->ix_len);
	uint32_t s = *index_slot(e, name);
	return s ? &e->data[s - 1].v : NULL;
}

void env_set(Env *e, const char *name, Value v)
{
	Value *p = env_find(e, name);
	if (p) *p = v;
	else vec_push(e, ((Binding){name, v}));
}

void env_copy(Env *dst, const Env *src)
{
	env_drop_index(dst);
	dst->len = 0;
	for (size_t i = 0; i < src->len; i++) vec_push(dst, src->data[i]);
}

void env_drop_index(Env *e)
{
	free(e->ix);
	e->ix = NULL;
	e->ix_cap = e->ix_len = 0;
}

void env_free(Env *e)
{
	env_drop_index(e);
	vec_free(e);
}
