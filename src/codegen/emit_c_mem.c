/* emit_c_mem.c: memory ops as CUDA C.
 *
 * Global loads and stores are inline PTX behind small helpers, one per width
 * and cache qualifier: `@p ld.global.v4.b32` with the predicate from the mask,
 * the `other` values preloaded into the destination registers (what a masked
 * off thread keeps). A vector access of vec elements moves vec * size bytes
 * in chunks of at most 16 (v4.b32, v2.b32, b32, b16, u8); lowering guarantees
 * the alignment. Shared memory is plain C on the smem byte array (uint4/uint2
 * when 16/8 bytes move at once). Atomics are `atom.SEM.SCOPE.global.OP.TYPE`
 * where PTX has the operation, else a compare-and-swap loop. cp.async is PTX
 * with src-size 0 for masked-off threads (zero fill).
 *
 * Attributes read (tir.h's encodings): LOAD/STORE attr.i2 = TIR_CACHE_* |
 * TIR_EVICT_* << 8 (.ca .cg .cv .cs / .wb .cg .cs .wt, else .L1::evict_*),
 * attr.flags & TIR_VOLATILE = ld.volatile; ATOMIC/ATOMIC_CAS attr.i =
 * TIR_SEM_* | TIR_SCOPE_* << 8 (Triton's defaults: acq_rel, gpu).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/emit_c_internal.h"

static DType dt_of(const Ec *e, TpVal v) { return (DType)ec_ty(e, v).dt; }

static TpVal opnd(const TpOp *op, int i) { return i < op->nin ? op->operands[i] : 0; }

/* ---- vector chunks ----------------------------------------------------------------- */

/* One access of `bytes` (16, 8, 4, 2 or 1): its PTX vector shape and the
 * C type of one "word" register. */
typedef struct Chunk {
	int bytes, nwords, wbytes; /* words of wbytes (4, 2 or 1) */
	const char *vec;           /* ".v4", ".v2", "" */
	const char *ptype;         /* ".b32", ".b16", ".u8" */
	const char *ctype;         /* "uint32_t" / "uint16_t" */
	const char *cons;          /* "r" / "h" */
	const char *suffix;        /* helper-name suffix: "b32x4" ... */
} Chunk;

static Chunk chunk_of(int bytes)
{
	switch (bytes) {
	case 16: return (Chunk){16, 4, 4, ".v4", ".b32", "uint32_t", "r", "b32x4"};
	case 8: return (Chunk){8, 2, 4, ".v2", ".b32", "uint32_t", "r", "b32x2"};
	case 4: return (Chunk){4, 1, 4, "", ".b32", "uint32_t", "r", "b32"};
	case 2: return (Chunk){2, 1, 2, "", ".b16", "uint16_t", "h", "b16"};
	default: return (Chunk){1, 1, 1, "", ".u8", "uint16_t", "h", "u8"};
	}
}

/* PTX qualifiers of a global access from attr.i2 = TIR_CACHE_* | TIR_EVICT_* << 8
 * (a cache operator wins over an eviction priority: PTX allows only one),
 * and their spelling in helper names. Returns "volatile" for volatile loads. */
static const char *access_qual(const TpOp *op, bool store, char *name_part)
{
	static const char *const cop[] = {"", ".ca", ".cg", ".cv", ".wb", ".cs", ".wt"};
	static const bool ok_ld[] = {1, 1, 1, 1, 0, 1, 0}, ok_st[] = {1, 0, 1, 0, 1, 1, 1};
	static const char *const ev[] = {"", ".L1::evict_first", ".L1::evict_last"};
	static const char *const ev_name[] = {"", "_evict_first", "_evict_last"};
	if (!store && (op->attr.flags & TIR_VOLATILE)) {
		strcpy(name_part, "_volatile");
		return "volatile";
	}
	int c = (int)(op->attr.i2 & 0xff), v = (int)((op->attr.i2 >> 8) & 0xff);
	if (c < 0 || c >= (int)COUNTOF(cop) || !(store ? ok_st : ok_ld)[c])
		c = 0;
	if (v < 0 || v >= (int)COUNTOF(ev))
		v = 0;
	if (c) {
		snprintf(name_part, 16, "_%s", cop[c] + 1);
		return cop[c];
	}
	strcpy(name_part, ev_name[v]);
	return ev[v];
}

/* "{%0, %1, %2, %3}" for n operands from `first`. */
static void reg_list(StrBuf *b, int first, int n)
{
	if (n > 1)
		sb_putc(b, '{');
	for (int i = 0; i < n; i++)
		sb_printf(b, "%s%%%d", i ? ", " : "", first + i);
	if (n > 1)
		sb_putc(b, '}');
}

/* DEVFN void ld_global[_q]_b32x4(uint32_t *r, const void *p, bool m) */
static void want_load_helper(Ec *e, Chunk c, const char *qual, const char *qname, char *name)
{
	sprintf(name, "ld_global%s_%s", qname, c.suffix);
	if (!ec_want_helper(e, name))
		return;
	StrBuf *b = &e->helpers;
	const char *volq = !strcmp(qual, "volatile") ? ".volatile" : "";
	const char *cq = volq[0] ? "" : qual;
	sb_printf(b, "DEVFN void %s(%s *r, const void *p, bool m)\n{\n", name, c.ctype);
	sb_printf(b,
	          "\tasm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %%%d, 0;\\n\\t"
	          "@p ld%s.global%s%s%s ",
	          c.nwords + 1, volq, cq, c.vec, c.ptype);
	reg_list(b, 0, c.nwords);
	sb_printf(b, ", [%%%d];\\n\\t}\"\n\t\t     : ", c.nwords);
	for (int i = 0; i < c.nwords; i++)
		sb_printf(b, "%s\"+%s\"(r[%d])", i ? ", " : "", c.cons, i);
	sb_puts(b, "\n\t\t     : \"l\"(p), \"r\"((int)m));\n}\n");
}

/* DEVFN void st_global[_q]_b32x4(void *p, bool m, uint32_t a0, ...) */
static void want_store_helper(Ec *e, Chunk c, const char *qual, const char *qname, char *name)
{
	sprintf(name, "st_global%s_%s", qname, c.suffix);
	if (!ec_want_helper(e, name))
		return;
	StrBuf *b = &e->helpers;
	sb_printf(b, "DEVFN void %s(void *p, bool m", name);
	for (int i = 0; i < c.nwords; i++)
		sb_printf(b, ", %s a%d", c.ctype, i);
	sb_printf(b,
	          ")\n{\n\tasm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %%1, 0;\\n\\t"
	          "@p st.global%s%s%s [%%0], ",
	          qual, c.vec, c.ptype);
	reg_list(b, 2, c.nwords);
	sb_puts(b, ";\\n\\t}\"\n\t\t     :: \"l\"(p), \"r\"((int)m)");
	for (int i = 0; i < c.nwords; i++)
		sb_printf(b, ", \"%s\"(a%d)", c.cons, i);
	sb_puts(b, " : \"memory\");\n}\n");
}

/* Expression of word w of a chunk holding values vals[0..n) of eb bytes each
 * (0 entries are zeros). */
static void pack_word(Ec *e, StrBuf *b, Chunk c, int eb, const TpVal *vals, int n, int w)
{
	if (eb == 8) {
		TpVal v = vals[w / 2];
		if (!v) {
			sb_puts(b, "0u");
			return;
		}
		StrBuf t = {0};
		ec_bits(e, &t, v, true);
		sb_printf(b, w % 2 ? "(uint32_t)(%s >> 32)" : "(uint32_t)%s", t.s);
		sb_free(&t);
		return;
	}
	StrBuf t = {0};
	int per = c.wbytes / eb;
	for (int j = 0; j < per; j++) {
		int k = w * per + j;
		if (k >= n || !vals[k])
			continue;
		if (t.len)
			sb_puts(&t, " | ");
		if (j)
			sb_putc(&t, '(');
		ec_bits(e, &t, vals[k], false);
		if (j)
			sb_printf(&t, " << %d)", 8 * eb * j);
	}
	if (!t.len)
		sb_puts(b, "0u");
	else if (c.wbytes < 4) /* the word is a 16-bit register */
		sb_printf(b, "(uint16_t)(%s)", t.s);
	else
		sb_puts(b, t.s);
	sb_free(&t);
}

/* Value r from its bits: ec_from_bits, but a pointer gets its own type
 * (ec_from_bits knows only the dtype, and C++ wants the cast). */
static void from_bits_of(Ec *e, StrBuf *b, TpVal r, const char *bits)
{
	Type t = ec_ty(e, r);
	if (t.dt != DT_PTR) {
		ec_from_bits(e, b, (DType)t.dt, bits);
		return;
	}
	char ty[48];
	ec_type_str(t, ty, sizeof ty);
	sb_printf(b, "(%s)(%s)", ty, bits);
}

/* Declares result r (element j of a chunk of words tN[]). */
static void unpack_elem(Ec *e, TpVal r, Chunk c, int eb, int tmp, int j)
{
	DType d = dt_of(e, r);
	StrBuf bits = {0}, x = {0};
	if (eb == 8)
		sb_printf(&bits, "(uint64_t)t%d[%d] << 32 | t%d[%d]", tmp, 2 * j + 1, tmp, 2 * j);
	else if (eb == c.wbytes)
		sb_printf(&bits, "t%d[%d]", tmp, j);
	else {
		int per = c.wbytes / eb, sh = 8 * eb * (j % per);
		if (sh)
			sb_printf(&bits, "t%d[%d] >> %d", tmp, j / per, sh);
		else
			sb_printf(&bits, "t%d[%d]", tmp, j / per);
		if (d == DT_I1)
			sb_printf(&bits, " & 0x%x", eb == 1 ? 0xff : 0xffff);
	}
	from_bits_of(e, &x, r, bits.s);
	ec_decl(e, r, "%s", x.s);
	sb_free(&bits);
	sb_free(&x);
}

static int elem_bytes(const Ec *e, TpVal ptr) { return dtype_bytes((DType)ec_ty(e, ptr).elem); }

static void mask_str(const Ec *e, TpVal m, char *buf)
{
	if (ec_const_true(e, m))
		strcpy(buf, "true");
	else
		sprintf(buf, "v%u", m);
}

static void emit_load(Ec *e, const TpOp *op)
{
	TpVal ptr = op->operands[0], mask = opnd(op, 1);
	int vec = op->nout, eb = elem_bytes(e, ptr), total = vec * eb;
	int cb = total > 16 ? 16 : total, per_chunk = cb / eb;
	if (cb % eb || total % cb || (cb & (cb - 1)))
		ice("emit_cuda", "load of %d x %d bytes is not a power-of-two vector", vec, eb);
	Chunk c = chunk_of(cb);
	char qname[24], name[64], m[16];
	const char *qual = access_qual(op, false, qname);
	want_load_helper(e, c, qual, qname, name);
	mask_str(e, mask, m);
	for (int k = 0; k < vec / per_chunk; k++) {
		int tmp = ec_tmp(e);
		StrBuf b = {0};
		TpVal other[16] = {0};
		for (int j = 0; j < per_chunk; j++)
			other[j] = opnd(op, 2 + k * per_chunk + j);
		for (int w = 0; w < c.nwords; w++) {
			sb_puts(&b, w ? ", " : "");
			pack_word(e, &b, c, eb, other, per_chunk, w);
		}
		ec_line(e, "%s t%d[%d] = {%s};", c.ctype, tmp, c.nwords, b.s);
		if (k)
			ec_line(e, "%s(t%d, v%u + %d, %s);", name, tmp, ptr, k * per_chunk, m);
		else
			ec_line(e, "%s(t%d, v%u, %s);", name, tmp, ptr, m);
		for (int j = 0; j < per_chunk; j++)
			unpack_elem(e, op->results[k * per_chunk + j], c, eb, tmp, j);
		sb_free(&b);
	}
}

static void emit_store(Ec *e, const TpOp *op)
{
	TpVal ptr = op->operands[0], mask = opnd(op, 1);
	int vec = op->nin - 2, eb = elem_bytes(e, ptr), total = vec * eb;
	int cb = total > 16 ? 16 : total, per_chunk = cb / eb;
	if (vec < 1 || cb % eb || total % cb || (cb & (cb - 1)))
		ice("emit_cuda", "store of %d x %d bytes is not a power-of-two vector", vec, eb);
	Chunk c = chunk_of(cb);
	char qname[24], name[64], m[16];
	const char *qual = access_qual(op, true, qname);
	want_store_helper(e, c, qual, qname, name);
	mask_str(e, mask, m);
	for (int k = 0; k < vec / per_chunk; k++) {
		StrBuf b = {0};
		for (int w = 0; w < c.nwords; w++) {
			sb_puts(&b, ", ");
			pack_word(e, &b, c, eb, op->operands + 2 + k * per_chunk, per_chunk, w);
		}
		if (k)
			ec_line(e, "%s(v%u + %d, %s%s);", name, ptr, k * per_chunk, m, b.s);
		else
			ec_line(e, "%s(v%u, %s%s);", name, ptr, m, b.s);
		sb_free(&b);
	}
}

/* ---- shared memory ------------------------------------------------------------------ */

static void emit_smem_load(Ec *e, const TpOp *op)
{
	TpVal off = op->operands[0], mask = opnd(op, 1);
	int vec = op->nout;
	DType d = dt_of(e, op->results[0]);
	int eb = dtype_bytes(d), total = vec * eb;
	bool masked = !ec_const_true(e, mask);
	if (vec > 1 && (total == 16 || total == 8) && eb <= 8) {
		Chunk c = chunk_of(total);
		int tmp = ec_tmp(e);
		bool v4 = total == 16;
		const char *vt = v4 ? "uint4" : "uint2";
		if (masked)
			ec_line(e, "%s s%d = v%u ? *(const %s *)(smem + v%u) : make_%s(0, 0%s);",
			        vt, tmp, mask, vt, off, vt, v4 ? ", 0, 0" : "");
		else
			ec_line(e, "%s s%d = *(const %s *)(smem + v%u);", vt, tmp, vt, off);
		if (v4)
			ec_line(e, "uint32_t t%d[4] = {s%d.x, s%d.y, s%d.z, s%d.w};", tmp, tmp, tmp,
			        tmp, tmp);
		else
			ec_line(e, "uint32_t t%d[2] = {s%d.x, s%d.y};", tmp, tmp, tmp);
		for (int j = 0; j < vec; j++)
			unpack_elem(e, op->results[j], c, eb, tmp, j);
		return;
	}
	if (vec > 1 && (total == 4 || total == 2)) {
		/* one 32- or 16-bit word (4 fp8 of an mma operand register) */
		Chunk c = chunk_of(total);
		int tmp = ec_tmp(e);
		if (masked)
			ec_line(e, "%s t%d[1] = {v%u ? *(const %s *)(smem + v%u) : (%s)0};", c.ctype, tmp,
			        mask, c.ctype, off, c.ctype);
		else
			ec_line(e, "%s t%d[1] = {*(const %s *)(smem + v%u)};", c.ctype, tmp, c.ctype, off);
		for (int j = 0; j < vec; j++)
			unpack_elem(e, op->results[j], c, eb, tmp, j);
		return;
	}
	/* bool is a byte and a pointer a uint64_t in shared memory */
	const char *st = ec_storage(d);
	for (int j = 0; j < vec; j++) {
		TpVal r = op->results[j];
		StrBuf w = {0}, x = {0};
		if (j)
			sb_printf(&w, "*(const %s *)(smem + v%u + %d)", st, off, j * eb);
		else
			sb_printf(&w, "*(const %s *)(smem + v%u)", st, off);
		if (d == DT_I1 || d == DT_PTR)
			from_bits_of(e, &x, r, w.s);
		else
			sb_puts(&x, w.s);
		if (masked) {
			char ty[48];
			ec_type_str(ec_ty(e, r), ty, sizeof ty);
			ec_decl(e, r, "v%u ? %s : (%s)0", mask, x.s, ty);
		} else {
			ec_decl(e, r, "%s", x.s);
		}
		sb_free(&w);
		sb_free(&x);
	}
}

static void emit_smem_store(Ec *e, const TpOp *op)
{
	TpVal off = op->operands[0], mask = opnd(op, 1);
	int vec = op->nin - 2;
	DType d = dt_of(e, op->operands[2]);
	int eb = dtype_bytes(d), total = vec * eb;
	bool masked = !ec_const_true(e, mask);
	const char *g = masked ? "\t" : "";
	if (masked)
		ec_line(e, "if (v%u) {", mask);
	if (vec > 1 && (total == 16 || total == 8) && eb <= 8) {
		Chunk c = chunk_of(total);
		StrBuf b = {0};
		for (int w = 0; w < c.nwords; w++) {
			sb_puts(&b, w ? ", " : "");
			pack_word(e, &b, c, eb, op->operands + 2, vec, w);
		}
		ec_line(e, "%s*(%s *)(smem + v%u) = make_%s(%s);", g,
		        total == 16 ? "uint4" : "uint2", off, total == 16 ? "uint4" : "uint2", b.s);
		sb_free(&b);
	} else if (vec > 1 && (total == 4 || total == 2)) {
		Chunk c = chunk_of(total);
		StrBuf b = {0};
		pack_word(e, &b, c, eb, op->operands + 2, vec, 0);
		ec_line(e, "%s*(%s *)(smem + v%u) = (%s)(%s);", g, c.ctype, off, c.ctype, b.s);
		sb_free(&b);
	} else {
		const char *st = ec_storage(d), *cast = d == DT_PTR ? "(uint64_t)" : "";
		for (int j = 0; j < vec; j++) {
			if (j)
				ec_line(e, "%s*(%s *)(smem + v%u + %d) = %sv%u;", g, st, off,
				        j * eb, cast, op->operands[2 + j]);
			else
				ec_line(e, "%s*(%s *)(smem + v%u) = %sv%u;", g, st, off, cast,
				        op->operands[2]);
		}
	}
	if (masked)
		ec_line(e, "}");
}

/* ---- atomics ----------------------------------------------------------------------------- */

/* Memory semantics and scope from attr.i = TIR_SEM_* | TIR_SCOPE_* << 8
 * (Triton's defaults acq_rel and gpu are 0): "acq_rel.gpu" for PTX and
 * "acq_rel_gpu" for helper names. */
typedef struct Sem {
	char ptx[24], name[24];
} Sem;

static Sem sem_of(const TpOp *op)
{
	static const char *const sem[] = {"acq_rel", "relaxed", "acquire", "release"};
	static const char *const scope[] = {"gpu", "cta", "sys"};
	int s = (int)(op->attr.i & 0xff), c = (int)((op->attr.i >> 8) & 0xff);
	if (s < 0 || s > 3)
		s = 0;
	if (c < 0 || c > 2)
		c = 0;
	Sem r;
	snprintf(r.ptx, sizeof r.ptx, "%s.%s", sem[s], scope[c]);
	snprintf(r.name, sizeof r.name, "%s_%s", sem[s], scope[c]);
	return r;
}

static const char *atomic_name(int a)
{
	static const char *const n[] = {"add", "max", "min", "exch", "and", "or", "xor"};
	return a >= 0 && a < 7 ? n[a] : "add";
}

static const char *cons_of(DType d)
{
	switch (dtype_bits(d)) {
	case 64: return d == DT_F64 ? "d" : "l";
	case 32: return d == DT_F32 ? "f" : "r";
	default: return "h";
	}
}

/* The PTX type of a native atom, or NULL when a CAS loop is needed. */
static const char *native_atom_type(const Ec *e, AtomicOp a, DType d)
{
	int bits = dtype_bits(d);
	bool sgn = dtype_is_signed(d);
	switch (a) {
	case ATOM_ADD:
		if (d == DT_F32)
			return ".f32";
		if (d == DT_F64)
			return ".f64";
		if (d == DT_F16)
			return ".noftz.f16";
		if (d == DT_BF16)
			return e->arch >= 90 ? ".noftz.bf16" : NULL;
		if (dtype_is_int(d) && bits >= 32)
			return bits == 32 ? ".u32" : ".u64";
		return NULL;
	case ATOM_MAX:
	case ATOM_MIN:
		if (dtype_is_int(d) && bits >= 32)
			return bits == 32 ? (sgn ? ".s32" : ".u32") : (sgn ? ".s64" : ".u64");
		return NULL;
	default: /* xchg, and, or, xor */
		if (bits >= 32 && (a == ATOM_XCHG || dtype_is_int(d)))
			return bits == 32 ? ".b32" : ".b64";
		return NULL;
	}
}

/* DEVFN uint32_t atom_cas_b32_acq_rel(void *p, uint32_t cmp, uint32_t val) */
static void want_cas_helper(Ec *e, int bits, const Sem *sem, char *name)
{
	sprintf(name, "atom_cas_b%d_%s", bits, sem->name);
	if (!ec_want_helper(e, name))
		return;
	const char *t = bits == 64 ? "uint64_t" : bits == 32 ? "uint32_t" : "uint16_t";
	const char *c = bits == 64 ? "l" : bits == 32 ? "r" : "h";
	sb_printf(&e->helpers,
	          "DEVFN %s %s(void *p, %s cmp, %s val)\n{\n\t%s r;\n"
	          "\tasm volatile(\"atom.%s.global.cas.b%d %%0, [%%1], %%2, %%3;\"\n"
	          "\t\t     : \"=%s\"(r) : \"l\"(p), \"%s\"(cmp), \"%s\"(val) : \"memory\");\n"
	          "\treturn r;\n}\n",
	          t, name, t, t, t, sem->ptx, bits, c, c, c);
}

static void want_native_atomic(Ec *e, AtomicOp a, DType d, const Sem *sem, const char *ptype,
                               char *name)
{
	sprintf(name, "atomic_%s_%s_%s", atomic_name(a), dtype_short(d), sem->name);
	if (!ec_want_helper(e, name))
		return;
	const char *t = ec_ctype(d), *c = cons_of(d);
	sb_printf(&e->helpers,
	          "DEVFN %s %s(%s *p, %s v, bool m)\n{\n\t%s r = 0;\n"
	          "\tasm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %%3, 0;\\n\\t"
	          "@p atom.%s.global.%s%s %%0, [%%1], %%2;\\n\\t}\"\n"
	          "\t\t     : \"+%s\"(r) : \"l\"(p), \"%s\"(v), \"r\"((int)m) : \"memory\");\n"
	          "\treturn r;\n}\n",
	          t, name, t, t, t, sem->ptx, atomic_name(a), ptype, c, c);
}

/* Triton's float atomic max/min (semantic.py: atomic max of the signed bits
 * for a value with the sign bit clear, atomic umin of the unsigned bits for
 * one with it set; min the other way round): the values ordered by their bits,
 * -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN, as a signed key with a
 * negative value's magnitude bits flipped. The CPU's CAS loop
 * (emit_llvm_atomic.c) does the same. */
static const char *want_minmax_helper(Ec *e, bool mx, bool f64)
{
	const char *name = mx ? (f64 ? "atom_fmax_f64" : "atom_fmax_f32")
	                      : (f64 ? "atom_fmin_f64" : "atom_fmin_f32");
	if (!ec_want_helper(e, name))
		return name;
	if (f64)
		sb_printf(&e->helpers,
		          "DEVFN double %s(double a, double v)\n{\n"
		          "\tlong long ka = __double_as_longlong(a), kv = __double_as_longlong(v);\n"
		          "\tka ^= (ka >> 63) & 0x7fffffffffffffffll;\n"
		          "\tkv ^= (kv >> 63) & 0x7fffffffffffffffll;\n"
		          "\treturn kv %s ka ? v : a;\n}\n",
		          name, mx ? ">" : "<");
	else
		sb_printf(&e->helpers,
		          "DEVFN float %s(float a, float v)\n{\n"
		          "\tint ka = __float_as_int(a), kv = __float_as_int(v);\n"
		          "\tka ^= (ka >> 31) & 0x7fffffff;\n"
		          "\tkv ^= (kv >> 31) & 0x7fffffff;\n"
		          "\treturn kv %s ka ? v : a;\n}\n",
		          name, mx ? ">" : "<");
	return name;
}

/* The new value of a read-modify-write, in C, over typed `a` (old) and `v`. */
static char *rmw_expr(Ec *e, AtomicOp a, DType d)
{
	StrBuf b = {0};
	bool fl = dtype_is_float(d);
	if (a == ATOM_XCHG) {
		sb_puts(&b, "v");
	} else if (fl) {
		char *x = ec_convert(e, "a", d, DT_F32, false),
		     *y = ec_convert(e, "v", d, DT_F32, false);
		if (d == DT_F64) {
			free(x), free(y);
			x = xstrdup("a"), y = xstrdup("v");
		}
		StrBuf r = {0};
		if (a == ATOM_ADD)
			sb_printf(&r, "%s + %s", x, y);
		else
			sb_printf(&r, "%s(%s, %s)",
			          want_minmax_helper(e, a == ATOM_MAX, d == DT_F64), x, y);
		char *back = d == DT_F64 || d == DT_F32 ? xstrdup(r.s)
		                                        : ec_convert(e, r.s, DT_F32, d, false);
		sb_puts(&b, back);
		free(back), free(x), free(y);
		sb_free(&r);
	} else {
		static const char *const sym[] = {"+", ">", "<", "", "&", "|", "^"};
		if (a == ATOM_MAX || a == ATOM_MIN)
			sb_printf(&b, "a %s v ? a : v", sym[a]);
		else
			sb_printf(&b, "(%s)(a %s v)", ec_ctype(d), sym[a]);
	}
	return sb_take(&b);
}

/* A compare-and-swap loop on the 16/32/64-bit word, or on the aligned 32-bit
 * word around an 8-bit value. */
static void want_cas_atomic(Ec *e, AtomicOp a, DType d, const Sem *sem, char *name)
{
	sprintf(name, "atomic_%s_%s_%s", atomic_name(a), dtype_short(d), sem->name);
	if (!ec_want_helper(e, name))
		return;
	int bits = dtype_bits(d) < 16 ? 32 : dtype_bits(d);
	char cas[64];
	want_cas_helper(e, bits, sem, cas);
	char *nv = rmw_expr(e, a, d);
	const char *t = ec_storage(d), *w = bits == 64   ? "uint64_t"
	                                    : bits == 32 ? "uint32_t"
	                                                 : "uint16_t";
	bool byte = dtype_bits(d) <= 8;
	StrBuf *b = &e->helpers;
	sb_printf(b, "DEVFN %s %s(%s *p, %s v, bool m)\n{\n\tif (!m)\n\t\treturn 0;\n", t, name, t,
	          t);
	if (byte)
		sb_puts(b, "\tvoid *q = (void *)((uint64_t)p & ~3ull);\n"
		           "\tint sh = (int)((uint64_t)p & 3) * 8;\n");
	else
		sb_puts(b, "\tvoid *q = p;\n");
	sb_printf(b, "\t%s old = *(volatile %s *)q, assumed;\n\tdo {\n\t\tassumed = old;\n", w, w);
	StrBuf cur = {0}, nb = {0};
	ec_from_bits(e, &cur, d, byte ? "assumed >> sh" : "assumed");
	if (a != ATOM_XCHG)
		sb_printf(b, "\t\t%s a = %s;\n", t, cur.s);
	sb_printf(b, "\t\t%s n = %s;\n", t, nv);
	if (d == DT_F32)
		sb_puts(&nb, "__float_as_uint(n)");
	else if (d == DT_F64)
		sb_puts(&nb, "(uint64_t)__double_as_longlong(n)");
	else
		sb_printf(&nb, "(%s)n", byte ? "uint8_t" : w);
	if (byte)
		sb_printf(b, "\t\t%s nw = (assumed & ~(0xffu << sh)) | ((uint32_t)%s << sh);\n", w,
		          nb.s);
	else
		sb_printf(b, "\t\t%s nw = %s;\n", w, nb.s);
	sb_printf(b, "\t\told = %s(q, assumed, nw);\n\t} while (old != assumed);\n", cas);
	StrBuf ret = {0};
	ec_from_bits(e, &ret, d, byte ? "old >> sh" : "old");
	sb_printf(b, "\treturn %s;\n}\n", ret.s);
	sb_free(&cur);
	sb_free(&nb);
	sb_free(&ret);
	free(nv);
}

/* vec > 1 consecutive float adds in one instruction, as 32-bit words: one
 * f16x2/bf16x2 pair, or (Hopper) a .v2/.v4 vector of f32 or of pairs.
 * Lowering groups only what the target has (assign.c's atomic_vec). */
static void emit_atomic_vec(Ec *e, const TpOp *op)
{
	TpVal ptr = op->operands[0], mask = op->operands[op->nin - 1];
	int vec = op->nout;
	DType d = (DType)ec_ty(e, ptr).elem;
	int eb = dtype_bytes(d), total = vec * eb;
	bool half = d == DT_F16 || d == DT_BF16;
	if ((AtomicOp)op->attr.atomic != ATOM_ADD || (!half && d != DT_F32) || total < 8 - 4 * half ||
	    total > 16 || (total & (total - 1)) || (e->arch < 90 && (total > 4 || d != DT_F16)))
		ice("emit_cuda", "atomic of %d x %s on sm_%d", vec, dtype_name(d), e->arch);
	Chunk c = chunk_of(total);
	int w = c.nwords;
	Sem sem = sem_of(op);
	char name[96], m[16];
	sprintf(name, "atomic_add_%sx%d_%s", dtype_short(d), vec, sem.name);
	if (ec_want_helper(e, name)) {
		StrBuf outs = {0}, ins = {0}, params = {0}, dl = {0}, al = {0};
		for (int i = 0; i < w; i++) {
			sb_printf(&params, ", uint32_t a%d", i);
			sb_printf(&outs, "%s\"+r\"(r[%d])", i ? ", " : "", i);
			sb_printf(&ins, ", \"r\"(a%d)", i);
			sb_printf(&dl, "%s%%%d", i ? ", " : "", i);
			sb_printf(&al, "%s%%%d", i ? ", " : "", w + 1 + i);
		}
		char vq[16] = "";
		if (w > 1)
			sprintf(vq, ".v%d", w);
		char tys[32];
		snprintf(tys, sizeof tys, "%s%s%s", half ? ".noftz" : "", vq,
		         d == DT_F32 ? ".f32" : d == DT_F16 ? ".f16x2" : ".bf16x2");
		sb_printf(&e->helpers,
		          "DEVFN void %s(uint32_t *r, void *p%s, bool m)\n{\n"
		          "\tasm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %%%d, 0;\\n\\t"
		          "@p atom.%s.global.add%s %s%s%s, [%%%d], %s%s%s;\\n\\t}\"\n"
		          "\t\t     : %s : \"l\"(p)%s, \"r\"((int)m) : \"memory\");\n}\n",
		          name, params.s, 2 * w + 1, sem.ptx, tys, w > 1 ? "{" : "", dl.s, w > 1 ? "}" : "", w,
		          w > 1 ? "{" : "", al.s, w > 1 ? "}" : "", outs.s, ins.s);
		sb_free(&outs), sb_free(&ins), sb_free(&params), sb_free(&dl), sb_free(&al);
	}
	mask_str(e, mask, m);
	int tmp = ec_tmp(e);
	StrBuf b = {0}, z = {0};
	for (int i = 0; i < w; i++) {
		sb_puts(&b, ", ");
		pack_word(e, &b, c, eb, op->operands + 1, vec, i);
		sb_printf(&z, "%s0", i ? ", " : "");
	}
	ec_line(e, "uint32_t t%d[%d] = {%s};", tmp, w, z.s);
	ec_line(e, "%s(t%d, v%u%s, %s);", name, tmp, ptr, b.s, m);
	for (int j = 0; j < vec; j++)
		unpack_elem(e, op->results[j], c, eb, tmp, j);
	sb_free(&b);
	sb_free(&z);
}

static void emit_atomic(Ec *e, const TpOp *op)
{
	if (op->nout > 1) {
		emit_atomic_vec(e, op);
		return;
	}
	TpVal ptr = op->operands[0], val = op->operands[1], mask = opnd(op, 2);
	DType d = (DType)ec_ty(e, ptr).elem;
	AtomicOp a = (AtomicOp)op->attr.atomic;
	if (d == DT_I1 || d == DT_PTR)
		ice("emit_cuda", "atomic on %s is not supported", dtype_name(d));
	char name[96], m[16];
	const char *ptype = native_atom_type(e, a, d);
	Sem sem = sem_of(op);
	if (ptype)
		want_native_atomic(e, a, d, &sem, ptype, name);
	else
		want_cas_atomic(e, a, d, &sem, name);
	mask_str(e, mask, m);
	ec_decl(e, op->results[0], "%s(v%u, v%u, %s)", name, ptr, val, m);
}

static void emit_atomic_cas(Ec *e, const TpOp *op)
{
	TpVal ptr = op->operands[0], cmp = op->operands[1], val = op->operands[2];
	TpVal mask = opnd(op, 3), r = op->results[0];
	DType d = (DType)ec_ty(e, ptr).elem;
	int bits = dtype_bits(d);
	if (bits < 16 || d == DT_PTR)
		ice("emit_cuda", "atomic_cas on %s is not supported", dtype_name(d));
	char name[64], m[16];
	Sem sem = sem_of(op);
	want_cas_helper(e, bits, &sem, name);
	mask_str(e, mask, m);
	StrBuf c = {0}, v = {0}, call = {0}, x = {0};
	ec_bits(e, &c, cmp, bits == 64);
	ec_bits(e, &v, val, bits == 64);
	sb_printf(&call, "%s(v%u, %s%s, %s%s)", name, ptr, bits == 16 ? "(uint16_t)" : "", c.s,
	          bits == 16 ? "(uint16_t)" : "", v.s);
	ec_from_bits(e, &x, d, call.s);
	if (!strcmp(m, "true"))
		ec_decl(e, r, "%s", x.s);
	else
		ec_decl(e, r, "%s ? %s : (%s)0", m, x.s, ec_ctype(d));
	sb_free(&c);
	sb_free(&v);
	sb_free(&call);
	sb_free(&x);
}

/* ---- cp.async ------------------------------------------------------------------------------ */

static void emit_cp_async(Ec *e, const TpOp *op)
{
	int bytes = (int)op->attr.i;
	if (bytes != 4 && bytes != 8 && bytes != 16)
		ice("emit_cuda", "cp.async of %d bytes", bytes);
	char name[32], m[16];
	const char *q = bytes == 16 ? "cg" : "ca";
	sprintf(name, "cp_async_%s%d", q, bytes);
	if (ec_want_helper(e, name))
		sb_printf(&e->helpers,
		          "DEVFN void %s(uint32_t dst, const void *src, bool m)\n{\n"
		          "\tasm volatile(\"cp.async.%s.shared.global [%%0], [%%1], %d, %%2;\"\n"
		          "\t\t     :: \"r\"(dst), \"l\"(src), \"r\"(m ? %d : 0) : \"memory\");\n}\n",
		          name, q, bytes, bytes);
	mask_str(e, opnd(op, 2), m);
	/* pred (4th operand) false: the thread issues nothing, its smem stays as is */
	TpVal pred = opnd(op, 3);
	char guard[24] = "";
	if (!ec_const_true(e, pred))
		sprintf(guard, "if (v%u) ", pred);
	ec_line(e, "%s%s(smem_s + (uint32_t)v%u, v%u, %s);", guard, name, op->operands[1], op->operands[0],
	        m);
}

bool ec_mem(Ec *e, const TpOp *op)
{
	if (e->f->smem_bytes <= 0 &&
	    (op->kind == TP_SMEM_LOAD || op->kind == TP_SMEM_STORE || op->kind == TP_CP_ASYNC))
		ice("emit_cuda", "'%s' in a kernel with no shared memory",
		    tp_op_name((TpOpKind)op->kind));
	switch ((TpOpKind)op->kind) {
	case TP_LOAD: emit_load(e, op); return true;
	case TP_STORE: emit_store(e, op); return true;
	case TP_SMEM_LOAD: emit_smem_load(e, op); return true;
	case TP_SMEM_STORE: emit_smem_store(e, op); return true;
	case TP_ATOMIC: emit_atomic(e, op); return true;
	case TP_ATOMIC_CAS: emit_atomic_cas(e, op); return true;
	case TP_CP_ASYNC: emit_cp_async(e, op); return true;
	case TP_CP_ASYNC_COMMIT:
		ec_line(e, "asm volatile(\"cp.async.commit_group;\" ::: \"memory\");");
		return true;
	case TP_CP_ASYNC_WAIT:
		ec_line(e, "asm volatile(\"cp.async.wait_group %d;\" ::: \"memory\");",
		        (int)op->attr.i);
		return true;
	default: return false;
	}
}
