/* test_sema.c: sema from source text to verified Tile IR. Exact dumps of
 * small kernels, the exact diagnostic (line:col: message) of mistakes, and
 * properties of the IR for control flow (early return, loop-carried values,
 * helper returns in branches), promotion rules, imports and builtins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "parser/ast.h"
#include "sema/sema.h"
#include "sema/sema_int.h"

static int failures;
#define CHECK(c) \
	do { \
		if (!(c)) { \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
			failures++; \
		} \
	} while (0)

typedef struct Job {
	SemaCtx *c;
	const Module *m;
	const char *kernel;
	SpecArg *args;
	int nargs;
	TirFunc *f;
} Job;

static void run_sema(void *p)
{
	Job *j = p;
	j->f = sema_kernel(j->c, j->m, j->kernel, j->args, j->nargs);
}

static const char *sibling_src;

static Module *load_sibling(void *user, const Module *importer, const char *name, SrcLoc loc)
{
	(void)importer;
	(void)loc;
	SemaCtx *c = user;
	if (strcmp(name, "other") || !sibling_src) return NULL;
	SrcFile *f = ARENA_NEW(c->arena, SrcFile);
	f->name = "other.tile";
	f->text = sibling_src;
	f->len = strlen(sibling_src);
	return parse_module(c->arena, c->names, c->diags, f);
}

/* Compiles `kernel` of src with a Triton signature; returns the TIR dump or
 * "error: L:C: msg" (first diagnostic). Heap string. */
static char *compile(const char *src, const char *kernel, const char *sig)
{
	SrcFile f = {"t.tile", src, strlen(src)};
	Arena a;
	Interner in;
	DiagSink d;
	arena_init(&a);
	interner_init(&in, &a);
	diag_init(&d);
	TargetDesc t;
	target_from_name("cpu", &t);
	CompileOptions o = {.num_warps = 4, .num_stages = 1};
	SemaCtx c = {&a, &in, &d, &t, &o, load_sibling, NULL, NULL};
	c.loader_user = &c;
	StrBuf b = {0};
	Module *m = parse_module(&a, &in, &d, &f);
	if (!m) {
		sb_printf(&b, "parse error: %s", d.diags.len ? d.diags.data[0].msg : "?");
		goto out;
	}
	KernelInfo *ks;
	int nk = sema_list_kernels(&c, m, &ks);
	const KernelInfo *k = NULL;
	for (int i = 0; i < nk; i++)
		if (!strcmp(ks[i].name, kernel)) k = &ks[i];
	if (!k) {
		sb_printf(&b, "no kernel %s", kernel);
		goto out;
	}
	SpecArg *args;
	int nargs;
	char err[256];
	if (parse_signature(sig, k, &a, &args, &nargs, err, sizeof err) != 0) {
		sb_printf(&b, "bad signature: %s", err);
		goto out;
	}
	Job j = {&c, m, kernel, args, nargs, NULL};
	char *msg = NULL;
	if (ice_protect(run_sema, &j, &msg) != 0) {
		sb_printf(&b, "ICE: %s", msg);
		free(msg);
	} else if (!j.f) {
		if (d.diags.len)
			sb_printf(&b, "error: %d:%d: %s", d.diags.data[0].loc.line, d.diags.data[0].loc.col, d.diags.data[0].msg);
		else sb_puts(&b, "error without diagnostic");
	} else {
		tir_print(j.f, &b, false);
	}
out:
	diag_free(&d);
	interner_free(&in);
	arena_free(&a);
	return sb_take(&b);
}

static void expect_eq(int line, const char *src, const char *kernel, const char *sig, const char *want)
{
	char *got = compile(src, kernel, sig);
	if (strcmp(got, want)) {
		fprintf(stderr, "test_sema.c:%d: got\n%s\nwanted\n%s\n", line, got, want);
		failures++;
	}
	free(got);
}

/* every `needles` entry (separated by '|') must occur in the dump */
static void expect_has(int line, const char *src, const char *kernel, const char *sig, const char *needles)
{
	char *got = compile(src, kernel, sig);
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", needles);
	bool bad = !strncmp(got, "error", 5) || !strncmp(got, "ICE", 3) || !strncmp(got, "parse", 5) ||
		   !strncmp(got, "bad", 3) || !strncmp(got, "no kernel", 9);
	for (char *save, *tok = strtok_r(buf, "|", &save); tok && !bad; tok = strtok_r(NULL, "|", &save))
		if (!strstr(got, tok)) {
			fprintf(stderr, "test_sema.c:%d: '%s' missing\n", line, tok);
			bad = true;
		}
	if (bad) {
		fprintf(stderr, "test_sema.c:%d: dump:\n%s\n", line, got);
		failures++;
	}
	free(got);
}

#define EQ(src, k, sig, want) expect_eq(__LINE__, src, k, sig, want)
#define HAS(src, k, sig, needles) expect_has(__LINE__, src, k, sig, needles)
#define ERR(src, k, sig, want) expect_eq(__LINE__, src, k, sig, "error: " want)

#define HDR "import triton\nimport triton.language as tl\n@triton.jit\n"

static void test_vector_add(void)
{
	EQ(HDR "def add(x, y, o, n, B: tl.constexpr):\n"
	       "    offs = tl.program_id(0) * B + tl.arange(0, B)\n"
	       "    m = offs < n\n"
	       "    tl.store(o + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)\n",
	   "add", "*fp32:16,*fp32:16,*fp32:16,i32,128",
	   "func @add(%0: *fp32 \"x\" {div16}, %1: *fp32 \"y\" {div16}, %2: *fp32 \"o\" {div16}, %3: i32 \"n\") {\n"
	   "  %4 = program_id {axis=0} : i32\n"
	   "  %5 = const 128 : i32\n"
	   "  %6 = mul %4, %5 : i32\n"
	   "  %7 = arange {start=0, end=128} : <128xi32>\n"
	   "  %8 = splat %6 : <128xi32>\n"
	   "  %9 = add %8, %7 : <128xi32>\n"
	   "  %10 = splat %3 : <128xi32>\n"
	   "  %11 = cmp lt %9, %10 : <128xi1>\n"
	   "  %12 = splat %2 : <128x*fp32>\n"
	   "  %13 = ptr_add %12, %9 : <128x*fp32>\n"
	   "  %14 = splat %0 : <128x*fp32>\n"
	   "  %15 = ptr_add %14, %9 : <128x*fp32>\n"
	   "  %16 = load %15, %11 : <128xfp32>\n"
	   "  %17 = splat %1 : <128x*fp32>\n"
	   "  %18 = ptr_add %17, %9 : <128x*fp32>\n"
	   "  %19 = load %18, %11 : <128xfp32>\n"
	   "  %20 = add %16, %19 : <128xfp32>\n"
	   "  store %13, %20, %11\n"
	   "  return\n"
	   "}\n");
}

static void test_softmax(void)
{
	HAS(HDR "def softmax(o, x, n, B: tl.constexpr):\n"
		"    row = tl.program_id(0)\n"
		"    cols = tl.arange(0, B)\n"
		"    v = tl.load(x + row * n + cols, mask=cols < n, other=-float('inf'))\n"
		"    v = v - tl.max(v, axis=0)\n"
		"    e = tl.exp(v)\n"
		"    tl.store(o + row * n + cols, e / tl.sum(e, axis=0), mask=cols < n)\n",
	    "softmax", "*fp32,*fp32,i32,256",
	    "const -inf : <256xfp32>|reduce|max %|math exp|div %|: fp32 {");
}

static void test_control_flow(void)
{
	/* early return in a kernel: the rest goes into the else branch */
	HAS(HDR "def k(x, n):\n"
		"    pid = tl.program_id(0)\n"
		"    if pid >= n:\n"
		"        return\n"
		"    tl.store(x + pid, 1.0)\n",
	    "k", "*fp32,i32", "if %|} else {|store|yield");
	/* loop-carried tile and scalar */
	HAS(HDR "def k(x, n, B: tl.constexpr):\n"
		"    acc = tl.zeros((B,), dtype=tl.float32)\n"
		"    i = 0\n"
		"    for k in range(0, n, 4):\n"
		"        acc += tl.load(x + k + tl.arange(0, B))\n"
		"        i += 1\n"
		"    tl.store(x + tl.arange(0, B), acc + i)\n",
	    "k", "*fp32,i32,16", "= for %|: <16xfp32>, i32|yield");
	/* runtime if yielding a changed variable */
	HAS(HDR "def k(x, n):\n"
		"    v = 1.0\n"
		"    if n > 3:\n"
		"        v = 2.0\n"
		"    else:\n"
		"        v = v * 3\n"
		"    tl.store(x, v)\n",
	    "k", "*fp32,i32", "= if %|: fp32 {|yield");
	/* helper returning from both branches */
	HAS(HDR "def k(x, n):\n"
		"    tl.store(x, pick(n))\n"
		"@triton.jit\n"
		"def pick(n):\n"
		"    if n > 0:\n"
		"        return n * 2\n"
		"    return n + 1\n",
	    "k", "*i32,i32", "= if %|: i32 {|yield");
	/* static_range unrolls; constexpr if folds */
	HAS(HDR "def k(x, C: tl.constexpr):\n"
		"    s = 0\n"
		"    for i in tl.static_range(4):\n"
		"        if i != 2:\n"
		"            s += i\n"
		"    if C:\n"
		"        s = s * 10\n"
		"    tl.store(x, s)\n",
	    "k", "*i32,True", "const 40 : i32");
	/* while loop */
	HAS(HDR "def k(x, n):\n"
		"    i = 0\n"
		"    while i < n:\n"
		"        i += 2\n"
		"    tl.store(x, i)\n",
	    "k", "*i32,i32", "= while %|condition|} do {");
	/* None pointer folds `if p is not None` */
	HAS(HDR "def k(x, b):\n"
		"    v = tl.load(x)\n"
		"    if b is not None:\n"
		"        v += tl.load(b)\n"
		"    tl.store(x, v)\n",
	    "k", "*fp32,None", "load|store");
	/* equal-to-1 specialization folds the stride */
	HAS(HDR "def k(x, s):\n"
		"    tl.store(x + tl.arange(0, 16) * s, 1.0)\n",
	    "k", "*fp32,1", "ptr_add");
}

static void test_types(void)
{
	/* fp16 tile * python float stays fp16; int / int is fp32; fp16 + bf16 is fp32 */
	HAS(HDR "def k(a, b, o):\n"
		"    x = tl.load(a + tl.arange(0, 16))\n"
		"    y = tl.load(b + tl.arange(0, 16))\n"
		"    tl.store(o + tl.arange(0, 16), (x * 0.5 + y).to(tl.float32))\n",
	    "k", "*fp16,*bf16,*fp32", "mul %|: <16xfp16>|cast %|: <16xfp32>");
	HAS(HDR "def k(o, n):\n"
		"    tl.store(o, n / 3)\n",
	    "k", "*fp32,i32", "div %|: fp32");
	HAS(HDR "def k(o, n):\n"
		"    i = tl.arange(0, 16).to(tl.int64)\n"
		"    tl.store(o + tl.arange(0, 16), i + n)\n",
	    "k", "*i64,i32", "cast %|: <16xi64>|add %");
	HAS(HDR "def k(o, n):\n"
		"    u = tl.arange(0, 16).to(tl.uint32)\n"
		"    tl.store(o + tl.arange(0, 16), u * 0xCD9E8D57)\n",
	    "k", "*u32,i32", "const 3449720151 : <16xu32>|mul %");
}

static void test_builtins(void)
{
	HAS(HDR "def k(o, seed):\n"
		"    offs = tl.arange(0, 16)\n"
		"    tl.store(o + offs, tl.rand(seed, offs) + tl.randn(seed, offs))\n",
	    "k", "*fp32,i32", "umulhi|math log|math cos");
	HAS(HDR "def k(x, o, B: tl.constexpr):\n"
		"    r = tl.arange(0, B)\n"
		"    v = tl.load(x + r[:, None] * B + r[None, :])\n"
		"    tl.store(o + r, tl.argmax(v, axis=1))\n",
	    "k", "*fp32,*i32,16", "reduce %|: <16xfp32>, <16xi32>|select");
	HAS(HDR "def k(a, b, c, M, N, K, B: tl.constexpr):\n"
		"    pa = tl.make_block_ptr(a, (M, K), (K, 1), (0, 0), (B, B), (1, 0))\n"
		"    pb = tl.make_block_ptr(b, (K, N), (N, 1), (0, 0), (B, B), (1, 0))\n"
		"    acc = tl.zeros((B, B), dtype=tl.float32)\n"
		"    for k in range(0, K, B):\n"
		"        acc += tl.dot(tl.load(pa, boundary_check=(0, 1)), tl.load(pb, boundary_check=(0, 1), padding_option='zero'))\n"
		"        pa = tl.advance(pa, (0, B))\n"
		"        pb = tl.advance(pb, (B, 0))\n"
		"    pc = tl.make_block_ptr(c, (M, N), (N, 1), (0, 0), (B, B), (1, 0))\n"
		"    tl.store(pc, acc.to(tl.float16), boundary_check=(0, 1))\n",
	    "k", "*fp16,*fp16,*fp16,i32,i32,i32,32", "dot %|= for %|load %|store %");
	HAS(HDR "def k(x, o):\n"
		"    v = tl.load(x + tl.arange(0, 16))\n"
		"    tl.store(o + tl.arange(0, 16), tl.cumsum(v, 0) + tl.sigmoid(v) + tl.reduce(v, 0, add))\n"
		"@triton.jit\n"
		"def add(a, b):\n"
		"    return a + b\n",
	    "k", "*fp32,*fp32", "scan %|reduce %|math exp");
	HAS(HDR "def k(x):\n"
		"    tl.atomic_add(x + tl.arange(0, 16), 1.0, sem='relaxed')\n"
		"    tl.atomic_cas(x, 0.0, 1.0)\n"
		"    tl.debug_barrier()\n"
		"    tl.device_print('v', tl.program_id(0))\n",
	    "k", "*fp32", "atomic add|sem=relaxed|atomic_cas|barrier|print");
	HAS("import triton\nimport triton.language as tl\n"
	    "from triton.language.extra import libdevice\n"
	    "from triton.language import math as m\n"
	    "@triton.jit\n"
	    "def k(x):\n"
	    "    v = tl.load(x)\n"
	    "    tl.store(x, libdevice.tanh(v) + m.rsqrt(v) + libdevice.pow(v, 2.0) + tl.extra.cuda.libdevice.fast_expf(v))\n",
	    "k", "*fp32", "math tanh|math rsqrt|math pow|math exp");
	HAS(HDR "def k(x):\n"
		"    v = tl.load(x + tl.arange(0, 16))\n"
		"    v = tl.multiple_of(v, 16)\n"
		"    tl.store(x + tl.arange(0, 16), v)\n",
	    "k", "*i32", "// hint multiple_of(");
}

static void test_modules(void)
{
	sibling_src = "import triton\nimport triton.language as tl\nSCALE: tl.constexpr = 3\n"
		      "@triton.jit\ndef helper(x):\n    return x * SCALE\n";
	HAS("import triton\nimport triton.language as tl\nimport other as o\nfrom other import helper\n"
	    "G = tl.constexpr(2)\n"
	    "@triton.jit\n"
	    "def k(x):\n"
	    "    tl.store(x, o.helper(tl.load(x)) + helper(1) + G)\n",
	    "k", "*i32", "const 3 : i32|mul %");
	sibling_src = NULL;
}

static void test_errors(void)
{
	ERR(HDR "def k(x):\n    y = tl.arange(0)\n", "k", "*fp32", "5:9: 'tl.arange' expects 2 arguments, got 1: 'end' is missing");
	ERR(HDR "def k(x):\n    y = tl.sum(tl.arange(0, 4), axs=0)\n", "k", "*fp32",
	    "5:33: unexpected keyword argument 'axs' for 'tl.sum'");
	ERR(HDR "def k(x):\n    y = zz + 1\n", "k", "*fp32", "5:9: unknown name 'zz'");
	ERR(HDR "def k(x):\n    y = tl.foo(1)\n", "k", "*fp32", "5:9: 'tl.foo' is not a supported builtin");
	ERR(HDR "def k(x, n):\n    y = tl.arange(0, n)\n", "k", "*fp32,i32", "5:22: 'n' must be a constexpr here");
	ERR(HDR "def k(x):\n    y = tl.arange(0, 3)\n", "k", "*fp32",
	    "5:9: tl.arange length 3 (end - start) is not a power of two");
	ERR(HDR "def k(x):\n    y = x + x\n", "k", "*fp32", "5:11: cannot add pointer and pointer");
	ERR(HDR "def k(x):\n    a = tl.zeros((16, 8), tl.float32)\n    b = a + tl.zeros((8, 16), tl.float32)\n", "k",
	    "*fp32", "6:11: shape mismatch: [16,8] vs [8,16]");
	/* with: tl.async_task only, no `as`, no return inside (Triton rejects that) */
	ERR(HDR "def k(x):\n    with tl.static_range(2):\n        pass\n", "k", "*fp32",
	    "5:10: a with statement in a kernel takes tl.async_task(...) only");
	ERR(HDR "def k(x):\n    with x:\n        pass\n", "k", "*fp32",
	    "5:10: a with statement in a kernel takes tl.async_task(...) only");
	ERR(HDR "def k(x):\n    with tl.async_task([0]) as t:\n        pass\n", "k", "*fp32",
	    "5:32: 'with tl.async_task(...) as' binds nothing in Triton");
	ERR(HDR "def k(x):\n    with tl.async_task([0]):\n        return\n", "k", "*fp32",
	    "5:5: a return inside a with statement is not supported (Triton rejects it too)");
	ERR(HDR "def k(x):\n    with tl.async_task([0], nwarps=2):\n        pass\n", "k", "*fp32",
	    "5:29: unexpected keyword argument 'nwarps' for 'tl.async_task'");
	ERR(HDR "def k(x):\n    a = tl.zeros((16,), tl.float32)\n    if a > 0:\n        pass\n", "k", "*fp32",
	    "6:10: a tile cannot be used as a branch condition; use tl.where");
	ERR(HDR "def k(x):\n    a = tl.zeros((16,), tl.float32)\n    b = a[1]\n", "k", "*fp32",
	    "6:11: only None and ':' are supported in tensor indices");
	ERR(HDR "def k(x):\n    a = tl.zeros((2048, 1024), tl.float32)\n", "k", "*fp32",
	    "5:18: tile of 2097152 elements exceeds the limit of 1048576");
	ERR(HDR "def k(x):\n    f(1)\n@triton.jit\ndef f(n):\n    f(n)\n", "k", "*fp32",
	    "8:5: recursive call to 'f' nested more than 64 deep: recursion must end on a constexpr condition (inline "
	    "depth limit)");
	ERR(HDR "def k(x):\n    tl.static_assert(1 == 2, 'one is not two')\n", "k", "*fp32",
	    "5:24: static assertion failed: one is not two");
	ERR(HDR "def k(x, n):\n    acc = 0\n    for i in range(n):\n        acc += tl.load(x + tl.arange(0, 4))\n", "k",
	    "*fp32,i32", "6:5: loop-carried variable 'acc' changes from i32 to <4xfp32> inside the loop");
	ERR(HDR "def k(x, n):\n    for i in range(n):\n        break\n", "k", "*fp32,i32",
	    "6:9: break is not supported in this loop");
	ERR(HDR "def k(x):\n    try:\n        pass\n    except:\n        pass\n", "k", "*fp32",
	    "5:5: try statement is not supported in kernels");
	/* a list grown by appends or + in host code: linear, up to 65536 items (20000
	 * appends passed the work limit, the copies being quadratic); past them an
	 * error at once (a `while True` append loop took 1.3 GB to reach the work limit) */
	HAS("import triton\nimport triton.language as tl\ndef n(a):\n    xs = []\n    for i in range(20000):\n"
	    "        xs.append(i)\n        xs = xs + [i]\n    return len(xs) // 1000\n"
	    "@triton.heuristics({'N': n})\n@triton.jit\ndef k(x, N: tl.constexpr):\n    tl.store(x, N)\n",
	    "k", "*i32", "const 40 :");
	ERR("import triton\nimport triton.language as tl\ndef n(a):\n    xs = []\n    while True:\n"
	    "        xs.append(1)\n    return 1\n"
	    "@triton.heuristics({'N': n})\n@triton.jit\ndef k(x, N: tl.constexpr):\n    tl.store(x, N)\n",
	    "k", "*i32", "6:9: a list built at compile time grows past 65536 items");
	/* a dict grown in host code (a keyword dict f(**d, k=v) returns): each
	 * copy is a step per item, so a `while True` loop stops at the work limit
	 * (it ran for minutes, its memory growing); a keyword given twice is
	 * Python's TypeError */
	ERR("import triton\nimport triton.language as tl\ndef mk(**kw):\n    return kw\ndef n(a):\n    d = {}\n"
	    "    i = 0\n    while True:\n        d = mk(**d, **{'k' + str(i): i})\n        i += 1\n    return 1\n"
	    "@triton.heuristics({'N': n})\n@triton.jit\ndef k(x, N: tl.constexpr):\n    tl.store(x, N)\n",
	    "k", "*i32",
	    "9:16: compile-time evaluation takes more than 2097152 steps (statements, unrolled tl.static_range "
	    "iterations, inlined calls, comprehension items, tuple items and strings built; nested loops multiply)");
	ERR("import triton\nimport triton.language as tl\ndef mk(**kw):\n    return kw\ndef n(a):\n    d = {'a': 1}\n"
	    "    while True:\n        d = mk(**d, **d)\n    return 1\n"
	    "@triton.heuristics({'N': n})\n@triton.jit\ndef k(x, N: tl.constexpr):\n    tl.store(x, N)\n",
	    "k", "*i32", "8:13: got multiple values for keyword argument 'a' (Triton: TypeError)");
	HAS("import triton\nimport triton.language as tl\ndef mk(**kw):\n    return kw\ndef n(a):\n    d = {}\n"
	    "    for i in range(1000):\n        d = mk(**d, **{'k' + str(i): i})\n    return len(d)\n"
	    "@triton.heuristics({'N': n})\n@triton.jit\ndef k(x, N: tl.constexpr):\n    tl.store(x, N)\n",
	    "k", "*i32", "const 1000 :");
	/* in host Python tile runs, the error names the function, not kernels */
	ERR("import triton\nimport triton.language as tl\n@triton.constexpr_function\ndef c(n):\n    global G\n"
	    "    return n\n@triton.jit\ndef k(x):\n    tl.store(x, c(1))\n", "k", "*fp32",
	    "5:5: 'global' and 'nonlocal' are not supported in 'c' (host Python that tile runs at compile time)");
	ERR(HDR "def k(x):\n    a = tl.dot(tl.zeros((16, 8), tl.float16), tl.zeros((8, 16), tl.float16))\n", "k",
	    "*fp32", "5:9: 'tl.dot' needs K >= 16 for 16-bit inputs, got M=16, N=16, K=8");
	ERR(HDR "def k(x):\n    a = tl.dot(tl.zeros((4, 16), tl.int8), tl.zeros((16, 2), tl.int8))\n", "k",
	    "*fp32", "5:9: 'tl.dot' needs K >= 32 for 8-bit inputs, got M=4, N=2, K=16");
	ERR(HDR "def k(x):\n    assert 1 == 2, 'bad'\n", "k", "*fp32", "5:14: assertion failed: bad");
	ERR(HDR "def k(x):\n    assert ()\n", "k", "*fp32", "5:12: assertion failed"); /* Python's truth value */
	/* in a runtime branch a constant assert is a device assert, kept with
	 * debug only (Triton's visit_Assert); a tuple is true */
	HAS("import triton\nimport triton.language as tl\n@triton.jit(debug=True)\ndef k(x, n):\n    if n > 0:\n"
	    "        assert (1, 2), 'tuple'\n        assert False, 'never'\n",
	    "k", "*fp32,i32", "assert %|msg=\"tuple\"|msg=\"never\"");
	/* a def in a kernel stays an error, as in Triton (a host function may hold one) */
	ERR(HDR "def k(x):\n    def g():\n        return 1\n    tl.store(x, g())\n", "k", "*fp32",
	    "5:5: nested function definitions are not supported");
}

/* @triton.autotune configs and @triton.heuristics parameters in KernelInfo. */
static void test_autotune_info(void)
{
	const char *src = "import triton\nimport triton.language as tl\n"
	                  "@triton.autotune(configs=[triton.Config({'BM': 128, 'DT': tl.float16}, num_warps=8, num_stages=3),\n"
	                  "                          triton.Config({'BM': 64, 'ir_override': 'k.ttir', 'num_stages': 2}, num_warps=4)],\n"
	                  "                 key=['n'])\n"
	                  "@triton.heuristics(values={'EVEN': lambda args: args['BM'] % 32 == 0})\n"
	                  "@triton.jit\n"
	                  "def k(X, n, BM: tl.constexpr, DT: tl.constexpr, EVEN: tl.constexpr):\n"
	                  "    pass\n";
	SrcFile f = {"t.tile", src, strlen(src)};
	Arena a;
	Interner in;
	DiagSink d;
	arena_init(&a);
	interner_init(&in, &a);
	diag_init(&d);
	TargetDesc t;
	target_from_name("cpu", &t);
	CompileOptions o = {.num_warps = 4, .num_stages = 1};
	SemaCtx c = {&a, &in, &d, &t, &o, NULL, NULL, NULL};
	Module *m = parse_module(&a, &in, &d, &f);
	CHECK(m != NULL);
	KernelInfo *ks = NULL;
	int nk = m ? sema_list_kernels(&c, m, &ks) : 0;
	CHECK(nk == 1 && d.nerrors == 0);
	if (nk == 1) {
		const KernelInfo *k = &ks[0];
		CHECK(k->nconfigs == 2);
		CHECK(k->configs[0].nkwargs == 2 && k->configs[0].num_warps == 8 && k->configs[0].num_stages == 3);
		CHECK(!strcmp(k->configs[0].kwargs[0].name, "BM") && k->configs[0].kwargs[0].val.kind == CV_INT &&
		      k->configs[0].kwargs[0].val.i == 128);
		CHECK(k->configs[0].kwargs[1].val.kind == CV_DTYPE && k->configs[0].kwargs[1].val.dtype == DT_F16);
		/* backend options in a Config's kwargs are options, not parameters (Triton
		 * passes them to the launch: test_autotuner.py's test_override_ttir) */
		CHECK(k->configs[1].nkwargs == 1 && k->configs[1].num_warps == 4 && k->configs[1].num_stages == 2);
		CHECK(k->params[2].autotuned && k->params[2].has_default && k->params[2].default_val.i == 128);
		CHECK(k->params[3].autotuned && k->params[3].has_default);
		CHECK(k->params[4].heuristic && k->params[4].has_default && k->params[4].default_val.kind == CV_NONE);
		CHECK(!k->params[1].autotuned && !k->params[1].heuristic && !k->params[1].has_default);
	}
	diag_free(&d);
	interner_free(&in);
	arena_free(&a);

	/* the first config binds BM; the heuristic sees it; a bound EVEN overrides the heuristic */
	const char *src2 = "import triton\nimport triton.language as tl\n"
	                   "@triton.autotune(configs=[triton.Config({'BM': 64}), triton.Config({'BM': 32})], key=[])\n"
	                   "@triton.heuristics({'EVEN': lambda args: args['BM'] % 64 == 0})\n"
	                   "@triton.jit\n"
	                   "def k(X, BM: tl.constexpr, EVEN: tl.constexpr):\n"
	                   "    tl.static_assert(BM == 64)\n"
	                   "    tl.store(X + tl.arange(0, BM), EVEN)\n";
	char *r = compile(src2, "k", "*fp32:16");
	CHECK(strstr(r, "arange {start=0, end=64}") != NULL);
	free(r);
	r = compile(src2, "k", "*fp32:16,32,False");
	CHECK(!strncmp(r, "error: 7:", 9)); /* BM bound to 32 by the host: the static_assert fails */
	free(r);
	r = compile(src2, "k", "*fp32:16,64,None");
	CHECK(strstr(r, "end=64") != NULL);
	free(r);
}

/* Environments past ENV_INDEX_MIN bindings keep a hash index: lookups must
 * agree with a search from the end (the last binding of a name wins) through
 * rebinding, bindings pushed past the index, copies and cut-backs. */
static Value *env_find_slow(Env *e, const char *name)
{
	for (size_t i = e->len; i-- > 0;)
		if (e->data[i].name == name) return &e->data[i].v;
	return NULL;
}

static void test_env_index(void)
{
	enum { N = 700 };
	static char names[N][8]; /* distinct pointers, as interned names are */
	for (int i = 0; i < N; i++) snprintf(names[i], sizeof names[i], "n%d", i);
	Env e = {0}, c = {0};
	for (int i = 0; i < N / 2; i++) env_set(&e, names[i], v_int(i));
	for (int i = 0; i < N / 2; i += 3) env_set(&e, names[i], v_int(-i)); /* rebinding in place */
	CHECK(e.len == N / 2);
	for (int i = N / 2; i < N; i++) vec_push(&e, ((Binding){names[i % 400], v_int(1000 + i)})); /* duplicates */
	bool same = true;
	for (int i = 0; i < N; i++) same &= env_find(&e, names[i]) == env_find_slow(&e, names[i]);
	CHECK(same);
	CHECK(env_find(&e, names[10])->c.i == 1000 + 410);
	CHECK(env_find(&e, names[303])->c.i == -303 && env_find(&e, names[3])->c.i == 1403);
	e.len = 100; /* cut back below what the index covers */
	CHECK(env_find(&e, names[50]) == &e.data[50].v);
	CHECK(env_find(&e, names[200]) == NULL);
	env_copy(&c, &e);
	vec_push(&c, ((Binding){names[650], v_int(7)}));
	for (int i = 0; i < N; i++) same &= env_find(&c, names[i]) == env_find_slow(&c, names[i]);
	CHECK(same);
	CHECK(env_find(&c, names[650])->c.i == 7);
	env_copy(&e, &c);
	env_set(&e, names[650], v_int(8));
	CHECK(e.len == 101 && env_find(&e, names[650])->c.i == 8);
	env_free(&e);
	env_free(&c);
}

int main(void)
{
	test_vector_add();
	test_softmax();
	test_control_flow();
	test_types();
	test_builtins();
	test_modules();
	test_errors();
	test_autotune_info();
	test_env_index();
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
