/* source.c: loading a .tile file and the sibling modules it imports.
 *
 * Imports are resolved eagerly when the file is loaded, so the hash of the
 * whole source closure (this file and everything it imports, transitively) is
 * known before any compile and goes into the cache key. `import other` finds
 * other.tile, then other.py, in the importing file's directory; names that do
 * not resolve to a file (triton, triton.language, ...) are left to sema.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "util/sha256.h"

enum { MAX_IMPORT_DEPTH = 16 };

static SourceModule *load_any(SourceModule *root, const char *path, const char *display,
			      const char *text, size_t len, DiagSink *diags, int depth);

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	size_t n = (size_t)(slash - path);
	char *d = xmalloc(n + 1);
	memcpy(d, path, n);
	d[n] = 0;
	return d;
}

static bool file_exists(const char *p)
{
	FILE *f = fopen(p, "rb");
	if (!f)
		return false;
	fclose(f);
	return true;
}

/* Finds NAME.tile / NAME.py beside the importer. A dotted name maps to a path
 * (a.b -> a/b.tile). Returns a heap path or NULL. */
static char *resolve_import(const SourceModule *m, const char *name)
{
	static const char *const exts[] = {".tile", ".py"};
	size_t n = strlen(name);
	for (size_t e = 0; e < COUNTOF(exts); e++) {
		StrBuf b = {0};
		sb_printf(&b, "%s/", m->dir);
		for (size_t i = 0; i < n; i++)
			sb_putc(&b, name[i] == '.' ? '/' : name[i]);
		sb_puts(&b, exts[e]);
		if (file_exists(b.s))
			return sb_take(&b);
		sb_free(&b);
	}
	return NULL;
}

static bool already_imported(const SourceModule *m, const char *name)
{
	for (size_t i = 0; i < m->imports.len; i++)
		if (strcmp(m->imports.data[i]->file.name, name) == 0)
			return true;
	return false;
}

static bool load_one_import(SourceModule *root, SourceModule *m, const char *modname, SrcLoc loc,
			    DiagSink *diags, int depth)
{
	char *path = resolve_import(m, modname);
	if (!path)
		return true; /* not a sibling file: triton, triton.language, ... */
	if (already_imported(m, path)) {
		free(path);
		return true;
	}
	if (depth >= MAX_IMPORT_DEPTH) {
		diag_error(diags, loc, "imports nested more than %d deep (an import cycle?)",
			   MAX_IMPORT_DEPTH);
		free(path);
		return false;
	}
	size_t len;
	char *text = read_file(path, &len);
	if (!text) {
		diag_error(diags, loc, "cannot read '%s': %s", path, strerror(errno));
		free(path);
		return false;
	}
	SourceModule *sub = load_any(root, path, path, text, len, diags, depth + 1);
	free(text);
	free(path);
	if (!sub)
		return false;
	vec_push(&m->imports, sub);
	/* the imported module's own imports are visible to its sema, and part of our closure */
	return true;
}

/* Every top-level `import x` / `from x import y` that names a sibling file. */
static bool load_imports(SourceModule *root, SourceModule *m, DiagSink *diags, int depth)
{
	bool ok = true;
	for (int i = 0; i < m->ast->body.n; i++) {
		const Stmt *s = m->ast->body.items[i];
		if (s->kind == ST_IMPORT) {
			for (int j = 0; j < s->nnames; j++)
				ok &= load_one_import(root, m, s->names[j].name, s->names[j].loc, diags, depth);
		} else if (s->kind == ST_IMPORTFROM && s->module && s->level <= 1) {
			ok &= load_one_import(root, m, s->module, s->loc, diags, depth);
		} else if (s->kind == ST_IMPORTFROM && !s->module) {
			/* from . import other */
			for (int j = 0; j < s->nnames; j++)
				ok &= load_one_import(root, m, s->names[j].name, s->names[j].loc, diags, depth);
		}
	}
	return ok;
}

static void hash_closure(SourceModule *m)
{
	Sha256 h;
	sha256_init(&h);
	uint64_t len = m->file.len;
	sha256_update(&h, &len, sizeof len);
	sha256_update(&h, m->file.text, m->file.len);
	for (size_t i = 0; i < m->imports.len; i++)
		sha256_update(&h, m->imports.data[i]->closure_hash, 32);
	sha256_final(&h, m->closure_hash);
}

/* Imported modules allocate in the root's arena and intern names in the
 * root's interner, so names compare by pointer across the whole closure. */
static SourceModule *load_any(SourceModule *root, const char *path, const char *display,
			      const char *text, size_t len, DiagSink *diags, int depth)
{
	SourceModule *m = xcalloc(1, sizeof *m);
	arena_init(&m->arena);
	interner_init(&m->names, &m->arena);
	if (!root)
		root = m;
	m->file.name = arena_strdup(&root->arena, display);
	m->file.text = arena_strndup(&root->arena, text, len);
	m->file.len = len;
	m->dir = dir_of(path ? path : display);
	m->ast = parse_module(&root->arena, &root->names, diags, &m->file);
	if (!m->ast || !load_imports(root, m, diags, depth)) {
		source_free(m);
		return NULL;
	}
	hash_closure(m);
	return m;
}

SourceModule *source_load_file(const char *path, DiagSink *diags)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text) {
		SrcLoc none = {0};
		diag_error(diags, none, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	SourceModule *m = load_any(NULL, path, path, text, len, diags, 0);
	free(text);
	return m;
}

SourceModule *source_load_text(const char *name, const char *text, size_t len, DiagSink *diags)
{
	return load_any(NULL, NULL, name ? name : "<source>", text, len, diags, 0);
}

void source_free(SourceModule *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->imports.len; i++)
		source_free(m->imports.data[i]);
	vec_free(&m->imports);
	interner_free(&m->names);
	arena_free(&m->arena);
	free(m->dir);
	free(m);
}

/* The ModuleLoader sema calls for `import NAME`: modules were loaded above. */
Module *source_find_import(void *user, const Module *importer, const char *name, SrcLoc loc)
{
	(void)loc;
	SourceModule *root = user;
	/* search the module that owns `importer`, breadth first over the closure */
	VEC(SourceModule *) work = {0};
	vec_push(&work, root);
	Module *found = NULL;
	for (size_t w = 0; w < work.len && !found; w++) {
		SourceModule *m = work.data[w];
		if (m->ast == importer) {
			char *path = resolve_import(m, name);
			for (size_t i = 0; path && i < m->imports.len; i++)
				if (strcmp(m->imports.data[i]->file.name, path) == 0)
					found = m->imports.data[i]->ast;
			free(path);
			break;
		}
		for (size_t i = 0; i < m->imports.len; i++)
			vec_push(&work, m->imports.data[i]);
	}
	vec_free(&work);
	return found;
}
