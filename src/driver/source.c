/* source.c: loading a .tile file and the sibling modules it imports.
 *
 * Imports are resolved eagerly when the file is loaded, so the hash of the
 * whole source closure (this file and everything it imports, transitively) is
 * known before any compile and goes into the cache key. `import other` finds
 * other.tile, then other.py, then other/__init__.py in the importing file's
 * directory or an ancestor, then on the module path (see resolve_import);
 * names that do not resolve to a file (triton, triton.language, ...) are left
 * to sema. Each file is loaded once per closure, as sys.modules does, so
 * modules may import each other.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/driver.h"
#include "parser/lex.h"
#include "util/sha256.h"

enum { MAX_IMPORT_DEPTH = 64 };
/* Kernel sources are kilobytes; a bigger file is a mistake (or /dev/zero) */
#define SOURCE_MAX_BYTES ((size_t)64 << 20)

static SourceModule *load_any(SourceModule *root, const char *path, const char *display,
			      const char *text, size_t len, const char *search, DiagSink *diags, int depth);

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

/* A module is a regular file, as Python's importer has it (os.path.isfile):
 * a directory or a FIFO named x.py is none (opening a FIFO waited forever
 * for a writer). */
static bool file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* NAME.tile, NAME.py or NAME/__init__.py for the dotted `rel` under dir, or
 * NULL. `alt` (or NULL) is dir spelled relative to the working directory: a
 * path past PATH_MAX (an absolute one under a deep working directory) cannot
 * be opened, so that spelling is tried then. */
static char *module_file_in(const char *dir, const char *alt, const char *rel)
{
	static const char *const exts[] = {".tile", ".py", "/__init__.py"};
	for (size_t e = 0; e < COUNTOF(exts) && *rel; e++) {
		StrBuf b = {0};
		sb_printf(&b, "%s/", dir);
		if (alt && strlen(dir) + strlen(rel) + 16 >= PATH_MAX) {
			b.len = 0;
			sb_printf(&b, "%s/", alt);
		}
		for (const char *c = rel; *c; c++)
			sb_putc(&b, *c == '.' ? '/' : *c);
		sb_puts(&b, exts[e]);
		if (file_exists(b.s))
			return sb_take(&b);
		sb_free(&b);
	}
	return NULL;
}

/* The file of module `name` imported from m, as Python finds it on a path of
 * the importer's directory and its ancestors (a kernel inside a package
 * imports `pkg.utils.x` from the package root), then the module path (the
 * context's, or $TILE_PATH: ':'-separated directories, as sys.path):
 * NAME.tile, NAME.py or NAME/__init__.py, dots as directories. A relative
 * name (leading dots) starts in the importer's directory, one level up per
 * further dot, and never looks at the module path. Names under triton and
 * tile are sema's. Returns a heap path or NULL. */
enum { MAX_ANCESTORS = 8 };

static char *resolve_import(const SourceModule *m, const char *name)
{
	int level = 0;
	while (name[level] == '.')
		level++;
	const char *rel = name + level;
	size_t rlen = strcspn(rel, ".");
	if (!level && ((rlen == 6 && !strncmp(rel, "triton", 6)) || (rlen == 4 && !strncmp(rel, "tile", 4))))
		return NULL;
	/* absolute, so that ancestors exist; NULL past PATH_MAX with some libcs */
	char *dir = realpath(m->dir, NULL);
	StrBuf alt = {0}; /* the same directories spelled from the working directory: m->dir, m->dir/.., ... */
	sb_puts(&alt, m->dir);
	char *found = NULL;
	for (int up = 0; up <= (level ? level - 1 : MAX_ANCESTORS) && !found; up++) {
		if (!level || up == level - 1)
			found = module_file_in(dir ? dir : alt.s, dir ? alt.s : NULL, rel);
		sb_puts(&alt, "/..");
		if (dir) {
			char *parent = dir_of(dir);
			bool top = !strcmp(parent, dir);
			free(dir);
			dir = parent;
			if (top)
				break;
		}
	}
	free(dir);
	sb_free(&alt);
	for (const char *p = m->search; !found && !level && p && *p;) {
		size_t n = strcspn(p, ":");
		if (n) {
			char *d = xmalloc(n + 1);
			memcpy(d, p, n);
			d[n] = 0;
			found = module_file_in(d, NULL, rel);
			free(d);
		}
		p += n + (p[n] == ':');
	}
	return found;
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
	/* a file already loaded for the closure (also one still loading its own
	 * imports: a cycle) is that module again, as sys.modules makes it */
	for (size_t i = 0; i < root->loaded.len; i++)
		if (strcmp(root->loaded.data[i]->file.name, path) == 0) {
			vec_push(&m->imports, root->loaded.data[i]);
			free(path);
			return true;
		}
	if (depth >= MAX_IMPORT_DEPTH) {
		diag_error(diags, loc, "imports nested more than %d deep", MAX_IMPORT_DEPTH);
		free(path);
		return false;
	}
	size_t len;
	char *text = read_file_max(path, SOURCE_MAX_BYTES, &len);
	if (!text) {
		diag_error(diags, loc, "cannot read '%s': %s", path, strerror(errno));
		free(path);
		return false;
	}
	SourceModule *sub = load_any(root, path, path, text, len, root->search, diags, depth + 1);
	free(text);
	free(path);
	if (!sub)
		return false; /* root->loaded owns it */
	vec_push(&m->imports, sub);
	/* the imported module's own imports are visible to its sema, and part of our closure */
	return true;
}

/* `name` with `level` leading dots (Python's spelling of a relative import) */
static char *relative_name(int level, const char *name)
{
	StrBuf b = {0};
	for (int i = 0; i < level; i++)
		sb_putc(&b, '.');
	sb_puts(&b, name ? name : "");
	return sb_take(&b);
}

/* Every module-level `import x` / `from x import y` (also inside module-level
 * if/try and class bodies, as sema looks there too) that names a file: x, and x.y where y is
 * a submodule. */
static bool load_imports_in(SourceModule *root, SourceModule *m, StmtList body, DiagSink *diags, int depth)
{
	bool ok = true;
	for (int i = 0; i < body.n; i++) {
		const Stmt *s = body.items[i];
		if (s->kind == ST_IMPORT) {
			for (int j = 0; j < s->nnames; j++)
				ok &= load_one_import(root, m, s->names[j].name, s->names[j].loc, diags, depth);
		} else if (s->kind == ST_IMPORTFROM) {
			char *from = relative_name(s->level, s->module);
			if (s->module)
				ok &= load_one_import(root, m, from, s->loc, diags, depth);
			for (int j = 0; j < s->nnames; j++) {
				StrBuf b = {0};
				sb_printf(&b, "%s%s%s", from, s->module ? "." : "", s->names[j].name);
				ok &= load_one_import(root, m, b.s, s->names[j].loc, diags, depth);
				sb_free(&b);
			}
			free(from);
		} else if (s->kind == ST_IF) {
			ok &= load_imports_in(root, m, s->body, diags, depth);
			ok &= load_imports_in(root, m, s->orelse, diags, depth);
		} else if (s->kind == ST_CLASS) {
			ok &= load_imports_in(root, m, s->cls->body, diags, depth);
		} else if (s->kind == ST_TRY) {
			ok &= load_imports_in(root, m, s->try_body, diags, depth);
			for (int h = 0; h < s->nhandlers; h++)
				ok &= load_imports_in(root, m, s->handlers[h], diags, depth);
			ok &= load_imports_in(root, m, s->try_else, diags, depth);
			ok &= load_imports_in(root, m, s->try_final, diags, depth);
		}
	}
	return ok;
}

static bool load_imports(SourceModule *root, SourceModule *m, DiagSink *diags, int depth)
{
	return load_imports_in(root, m, m->ast->body, diags, depth);
}

/* A file's name and text: the name is in what is compiled (device_assert's
 * file:line, the line info's .file), so a copy of a file under another name
 * must not get the first one's kernels from the cache */
static void hash_text(Sha256 *h, const SourceModule *m)
{
	const char *name = m->file.name ? m->file.name : "";
	uint64_t len = strlen(name);
	sha256_update(h, &len, sizeof len);
	sha256_update(h, name, len);
	len = m->file.len;
	sha256_update(h, &len, sizeof len);
	sha256_update(h, m->file.text, m->file.len);
}

/* The root's name and text and every imported file's, in load order (which
 * the texts determine); imports may form cycles, so no module hashes its own
 * imports. */
static void hash_closure(SourceModule *root)
{
	Sha256 h;
	sha256_init(&h);
	hash_text(&h, root);
	for (size_t i = 0; i < root->loaded.len; i++)
		hash_text(&h, root->loaded.data[i]);
	sha256_final(&h, root->closure_hash);
}

/* Imported modules allocate in the root's arena and intern names in the
 * root's interner, so names compare by pointer across the whole closure.
 * Each file is loaded once per closure and owned by the root (`loaded`);
 * importers only point at it. */
static SourceModule *load_any(SourceModule *root, const char *path, const char *display,
			      const char *text, size_t len, const char *search, DiagSink *diags, int depth)
{
	SourceModule *m = xcalloc(1, sizeof *m);
	m->search = search && *search ? xstrdup(search) : NULL;
	arena_init(&m->arena);
	interner_init(&m->names, &m->arena);
	if (!root)
		root = m;
	else
		vec_push(&root->loaded, m); /* before its imports: a cycle finds it */
	m->file.name = arena_strdup(&root->arena, display);
	char coding[32];
	if (lex_coding(text, len, coding) == LEX_CODING_LATIN1 && (len < 3 || memcmp(text, "\xef\xbb\xbf", 3))) {
		/* read as Python reads it: its bytes past ASCII are U+0080..U+00FF
		 * (they were taken as UTF-8, so 'caf\xe9' was another string) */
		size_t n;
		char *u = lex_latin1_to_utf8(text, len, &n);
		m->file.text = arena_strndup(&root->arena, u, n);
		m->file.len = n;
		free(u);
	} else {
		m->file.text = arena_strndup(&root->arena, text, len);
		m->file.len = len;
	}
	m->dir = dir_of(path ? path : display);
	m->ast = parse_module(&root->arena, &root->names, diags, &m->file);
	if (!m->ast || !load_imports(root, m, diags, depth)) {
		if (m == root)
			source_free(m);
		return NULL;
	}
	if (m == root)
		hash_closure(m);
	return m;
}

SourceModule *source_load_file(const char *path, const char *search, DiagSink *diags)
{
	size_t len;
	char *text = read_file_max(path, SOURCE_MAX_BYTES, &len);
	if (!text) {
		SrcLoc none = {0};
		diag_error(diags, none, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	SourceModule *m = load_any(NULL, path, path, text, len, search, diags, 0);
	free(text);
	return m;
}

SourceModule *source_load_text(const char *name, const char *text, size_t len, const char *search, DiagSink *diags)
{
	return load_any(NULL, NULL, name ? name : "<source>", text, len, search, diags, 0);
}

void source_free(SourceModule *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->loaded.len; i++)
		source_free(m->loaded.data[i]);
	vec_free(&m->loaded);
	vec_free(&m->imports);
	interner_free(&m->names);
	arena_free(&m->arena);
	free(m->dir);
	free(m->search);
	free(m);
}

/* The loaded module whose AST is `ast`. */
static SourceModule *owner_of(SourceModule *root, const Module *ast)
{
	if (root->ast == ast)
		return root;
	for (size_t i = 0; i < root->loaded.len; i++)
		if (root->loaded.data[i]->ast == ast)
			return root->loaded.data[i];
	return NULL;
}

/* The ModuleLoader sema calls for `import NAME`: modules were loaded above. */
Module *source_find_import(void *user, const Module *importer, const char *name, SrcLoc loc)
{
	(void)loc;
	SourceModule *m = owner_of(user, importer);
	if (!m)
		return NULL;
	Module *found = NULL;
	char *path = resolve_import(m, name);
	for (size_t i = 0; path && i < m->imports.len; i++)
		if (strcmp(m->imports.data[i]->file.name, path) == 0)
			found = m->imports.data[i]->ast;
	free(path);
	return found;
}

/* Python names a package by the directories from the top of the package tree;
 * the top is known here only when it is triton itself: the modules of
 * triton's own package (triton/ops/matmul.py and the like) import
 * `from .. import language as tl`, which is triton.language. Walks up from
 * the package directory `level` dots above the importer to the nearest
 * directory named triton. */
char *source_package_name(void *user, const Module *importer, int level)
{
	SourceModule *m = owner_of(user, importer);
	if (!m || level < 1)
		return NULL;
	char *dir = realpath(m->dir, NULL);
	if (!dir)
		dir = xstrdup(m->dir);
	for (int up = 1; up < level; up++) {
		char *parent = dir_of(dir);
		free(dir);
		dir = parent;
	}
	/* the directory names from dir up to (and including) triton, innermost first */
	const char *parts[MAX_ANCESTORS + 1];
	int nparts = 0;
	char *name = NULL;
	for (char *d = dir; nparts <= MAX_ANCESTORS;) {
		const char *base = strrchr(d, '/');
		base = base ? base + 1 : d;
		if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
			break;
		parts[nparts++] = base;
		if (!strcmp(base, "triton")) {
			StrBuf b = {0};
			for (int i = nparts; i-- > 0;)
				sb_printf(&b, "%s%s", i == nparts - 1 ? "" : ".", parts[i]);
			name = sb_take(&b);
			break;
		}
		char *slash = strrchr(d, '/');
		if (!slash || slash == d)
			break;
		*slash = 0; /* the parent, in place: the parts above stay valid */
	}
	free(dir);
	return name;
}
