/* emit_llvm_mem.c: memory ops of the CPU emitter.
 *
 * LOAD/STORE of vec consecutive elements per thread:
 *   - every operand uniform: scalar accesses (under a branch when masked);
 *   - TP_COALESCED (thread t's address = thread 0's + t*vec elements): one
 *     vector access of T*vec elements at thread 0's address (llvm.masked.* when
 *     a mask is present), shuffles to (de)interleave the per-thread vectors;
 *   - otherwise llvm.masked.gather/scatter per element, `other` as passthru,
 *     or, past LANE_LOOP_MIN_T threads, a loop over the lanes (see below).
 * Shared memory is the caller's `smem` buffer addressed by i32 byte offsets,
 * the same way (TP_COALESCED there too: lowering sets it where it proves the
 * offsets consecutive, as for the FMA dot's operand reads). Atomics are
 * emit_llvm_atomic.c.
 * cp.async goes through a per-instance queue in libtile: data lands when a
 * wait retires its group (see the cp.async section).
 */
#include "codegen/emit_llvm_internal.h"
#include "jit/rt_async.h"
#include "jit/rt_race.h"

#include <stdlib.h>
#include <string.h>

static const char PASS[] = "emit_llvm";

typedef struct MemAcc {
	DType dt;       /* element dtype */
	LLVMTypeRef st; /* storage type */
	unsigned align;
	int vec;
	bool smem; /* a shared-memory access */
	bool vol;  /* a volatile load (tl.load(..., volatile=True)): see emit_load */
} MemAcc;

enum { MAX_VEC = 32 };

static MemAcc mem_acc(Em *e, DType d, int vec)
{
	if (vec < 1 || vec > MAX_VEC)
		ice(PASS, "bad vector width %d", vec);
	/* pointers move as i64: the value's type (elem*) differs from i8* storage */
	LLVMTypeRef st = d == DT_PTR ? e->t_i64 : em_storage_type(e, d);
	MemAcc a = {d, st, (unsigned)dtype_bytes(d), vec > 0 ? vec : 1, false, false};
	if (a.align == 0)
		a.align = 1;
	return a;
}

static LLVMValueRef ci32(Em *e, int64_t v)
{
	return LLVMConstInt(e->t_i32, (unsigned long long)v, 0);
}

/* value <-> memory representation (i1 is a byte in memory) */
/* A value as its memory type (mem_acc's st): i1 -> i8, pointers -> i64. */
static LLVMValueRef to_mem(Em *e, LLVMValueRef v, DType d)
{
	if (d == DT_PTR) {
		LLVMTypeRef t = em_is_vec(v) ? em_vec(e, e->t_i64) : e->t_i64;
		return LLVMBuildPtrToInt(e->B, v, t, "");
	}
	if (d != DT_I1)
		return v;
	LLVMTypeRef t = em_is_vec(v) ? em_vec(e, e->t_i8) : e->t_i8;
	return LLVMBuildZExt(e->B, v, t, "");
}

/* The inverse of to_mem for a value of type t (pointers get their elem*). */
static LLVMValueRef from_mem(Em *e, LLVMValueRef v, Type t)
{
	if (t.dt == DT_PTR) {
		LLVMTypeRef pt = em_scalar_type(e, t);
		return LLVMBuildIntToPtr(e->B, v, em_is_vec(v) ? em_vec(e, pt) : pt, "");
	}
	if (t.dt != DT_I1)
		return v;
	return LLVMBuildICmp(e->B, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

bool em_is_true_const(LLVMValueRef m)
{
	return m && LLVMIsAConstantInt(m) && LLVMConstIntGetZExtValue(m) == 1;
}

/* mask operand as a <T x i1> vector, or NULL when there is none / it is true */
LLVMValueRef em_mask_vec(Em *e, TpVal m)
{
	if (!m)
		return NULL;
	LLVMValueRef x = em_get(e, m);
	if (em_is_true_const(x))
		return NULL;
	return em_splat(e, x);
}

static LLVMValueRef all_true(Em *e, unsigned n)
{
	return LLVMConstAllOnes(LLVMVectorType(e->t_i1, n));
}

static LLVMValueRef shuffle(Em *e, LLVMValueRef a, LLVMValueRef b, const int *idx, int n)
{
	LLVMValueRef *el = malloc(sizeof(LLVMValueRef) * (size_t)n);
	for (int i = 0; i < n; i++)
		el[i] = idx[i] < 0 ? LLVMGetUndef(e->t_i32) : ci32(e, idx[i]);
	LLVMValueRef m = LLVMConstVector(el, (unsigned)n);
	free(el);
	if (!b)
		b = LLVMGetUndef(LLVMTypeOf(a));
	return LLVMBuildShuffleVector(e->B, a, b, m, "");
}

/* concatenates n vectors of equal length len into one (padding with undef) */
static LLVMValueRef concat(Em *e, LLVMValueRef *v, int n, int len)
{
	while (n > 1) {
		int m = (n + 1) / 2;
		int *idx = malloc(sizeof(int) * (size_t)(2 * len));
		for (int i = 0; i < 2 * len; i++)
			idx[i] = i;
		for (int i = 0; i < m; i++) {
			LLVMValueRef b =
			        2 * i + 1 < n ? v[2 * i + 1] : LLVMGetUndef(LLVMTypeOf(v[2 * i]));
			v[i] = shuffle(e, v[2 * i], b, idx, 2 * len);
		}
		free(idx);
		n = m;
		len *= 2;
	}
	return v[0];
}

/* i1: every lane of the <T x i1> mask m is set */
static LLVMValueRef all_set(Em *e, LLVMValueRef m)
{
	LLVMTypeRef it = LLVMIntTypeInContext(e->C, (unsigned)e->T);
	LLVMValueRef bits = LLVMBuildBitCast(e->B, m, it, "");
	return LLVMBuildICmp(e->B, LLVMIntEQ, bits, LLVMConstAllOnes(it), "");
}

/* <T*vec x i1>: element j enabled by thread j / vec */
static LLVMValueRef expand_mask(Em *e, LLVMValueRef m, int vec)
{
	if (vec == 1)
		return m;
	int n = e->T * vec, *idx = malloc(sizeof(int) * (size_t)n);
	for (int j = 0; j < n; j++)
		idx[j] = j / vec;
	LLVMValueRef r = shuffle(e, m, NULL, idx, n);
	free(idx);
	return r;
}

/* interleave vec vectors <T x st> into <T*vec x st>: [t*vec+k] = v[k][t] */
static LLVMValueRef interleave(Em *e, LLVMValueRef *v, int vec)
{
	if (vec == 1)
		return v[0];
	LLVMValueRef tmp[MAX_VEC];
	memcpy(tmp, v, sizeof(LLVMValueRef) * (size_t)vec);
	LLVMValueRef cat = concat(e, tmp, vec, e->T);
	int n = e->T * vec, *idx = malloc(sizeof(int) * (size_t)n);
	for (int t = 0; t < e->T; t++)
		for (int k = 0; k < vec; k++)
			idx[t * vec + k] = k * e->T + t;
	LLVMValueRef r = shuffle(e, cat, NULL, idx, n);
	free(idx);
	return r;
}

static LLVMValueRef deinterleave(Em *e, LLVMValueRef wide, int vec, int k)
{
	if (vec == 1)
		return wide;
	int *idx = malloc(sizeof(int) * (size_t)e->T);
	for (int t = 0; t < e->T; t++)
		idx[t] = t * vec + k;
	LLVMValueRef r = shuffle(e, wide, NULL, idx, e->T);
	free(idx);
	return r;
}

static LLVMValueRef lane0(Em *e, LLVMValueRef p)
{
	return em_is_vec(p) ? LLVMBuildExtractElement(e->B, p, ci32(e, 0), "") : p;
}

/* vector of pointers to element k: p + k (p: scalar or vector of st*) */
static LLVMValueRef elem_ptrs(Em *e, MemAcc *a, LLVMValueRef p, int k)
{
	p = em_splat(e, p);
	if (k == 0)
		return p;
	LLVMValueRef o = em_const_int(e, e->t_i32, k, true);
	return LLVMBuildGEP2(e->B, a->st, p, &o, 1, "");
}

static LLVMValueRef scalar_ptr(Em *e, MemAcc *a, LLVMValueRef p, int k)
{
	if (k == 0)
		return p;
	LLVMValueRef o = ci32(e, k);
	return LLVMBuildGEP2(e->B, a->st, p, &o, 1, "");
}

static LLVMValueRef aligned_load(Em *e, LLVMTypeRef t, LLVMValueRef p, unsigned align)
{
	LLVMValueRef l = LLVMBuildLoad2(e->B, t, p, "");
	LLVMSetAlignment(l, align);
	return l;
}

static void aligned_store(Em *e, LLVMValueRef v, LLVMValueRef p, unsigned align)
{
	LLVMValueRef s = LLVMBuildStore(e->B, v, p);
	LLVMSetAlignment(s, align);
}

/* ---- lane loops --------------------------------------------------------------------------
 * A gather/scatter over <T x ...> with T in the hundreds becomes huge unrolled
 * machine code on which LLVM's backend (register allocation above all) takes
 * minutes. Past LANE_LOOP_MIN_T lanes, as ISPC does for gathers it cannot map
 * to hardware, such an access is a loop over the lanes instead: the
 * addresses (as i64), the mask (as i8) and the values are spilled to stack
 * arrays (in the entry block, shared by every such access: one per storage
 * type and element index k) and a loop runs over them. The loop is inline,
 * unless the kernel has more than LANE_CALLS_OVER accesses that may need one
 * (Em.lane_calls; shared-memory ones counted apart, Em.smem_lane_calls):
 * then libtile's tile_rt_lanes_load/store (jit/rt_lanes.c) run it. Thousands of inline loops were most of a big kernel's compile time
 * (their blocks, and GVN's queries through them for reloads of the arrays);
 * in a small kernel the inline loop runs faster (a 1024^3 fp16 matmul on the
 * FMA path took 1.7x as long with calls, which keep LLVM from seeing what
 * memory they touch). */
enum { LANE_LOOP_MIN_T = 16 };

static bool use_lane_loop(Em *e)
{
	return e->T > LANE_LOOP_MIN_T;
}

enum { LANE_CALLS_OVER = 1024 };

/* Accesses with a varying address, global ones or (smem) shared-memory
 * ones: each is a lane loop past LANE_LOOP_MIN_T threads. The two kinds are
 * counted apart, so that the shared-memory traffic of a big sort (5000
 * conversion loads at BLOCK 512) does not turn a matmul's global accesses
 * into calls. */
static int count_varying_accesses(const TpFunc *f, const TpBlock *b, bool smem)
{
	int n = 0;
	TpOpKind ld = smem ? TP_SMEM_LOAD : TP_LOAD, st = smem ? TP_SMEM_STORE : TP_STORE;
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == ld && !tp_uniform(f, op->results[0]))
			n += op->nout;
		else if (op->kind == st && !tp_uniform(f, op->operands[0]))
			n += op->nin - 2;
		for (int r = 0; r < op->nregions; r++)
			n += count_varying_accesses(f, &op->regions[r], smem);
	}
	return n;
}

bool em_wants_lane_calls(const TpFunc *f, bool smem)
{
	return count_varying_accesses(f, f->body, smem) > LANE_CALLS_OVER;
}

static LLVMValueRef ll_arr(Em *e, LLVMTypeRef t, int k)
{
	for (int i = 0; i < e->n_ll_val; i++)
		if (e->ll_val[i].t == t && e->ll_val[i].k == k)
			return e->ll_val[i].a;
	LLVMValueRef a = em_entry_alloca(e, LLVMArrayType(t, (unsigned)e->T), 16);
	if (e->n_ll_val < (int)(sizeof e->ll_val / sizeof e->ll_val[0])) {
		e->ll_val[e->n_ll_val].t = t;
		e->ll_val[e->n_ll_val].k = k;
		e->ll_val[e->n_ll_val].a = a;
		e->n_ll_val++;
	}
	return a;
}

/* the array [T x t] as a <T x t>* */
static LLVMValueRef arr_vptr(Em *e, LLVMValueRef arr, LLVMTypeRef t)
{
	return LLVMBuildBitCast(e->B, arr, LLVMPointerType(em_vec(e, t), 0), "");
}

static void vstore_arr(Em *e, LLVMValueRef v, LLVMValueRef arr, LLVMTypeRef t)
{
	LLVMValueRef s = LLVMBuildStore(e->B, v, arr_vptr(e, arr, t));
	LLVMSetAlignment(s, 16);
}

static LLVMValueRef vload_arr(Em *e, LLVMValueRef arr, LLVMTypeRef t)
{
	LLVMValueRef l = LLVMBuildLoad2(e->B, em_vec(e, t), arr_vptr(e, arr, t), "");
	LLVMSetAlignment(l, 16);
	return l;
}

/* spills the addresses p (scalar or vector of st*) and the mask m (NULL: all) */
static void ll_spill(Em *e, LLVMValueRef p, LLVMValueRef m)
{
	if (p) {
		if (!e->ll_addr)
			e->ll_addr = em_entry_alloca(e, LLVMArrayType(e->t_i64, (unsigned)e->T), 16);
		LLVMValueRef pi = LLVMBuildPtrToInt(e->B, em_splat(e, p), em_vec(e, e->t_i64), "");
		vstore_arr(e, pi, e->ll_addr, e->t_i64);
	}
	if (m) {
		if (!e->ll_mask)
			e->ll_mask =
			        em_entry_alloca(e, LLVMArrayType(e->t_i8, (unsigned)e->T), 16);
		vstore_arr(e, LLVMBuildZExt(e->B, m, em_vec(e, e->t_i8), ""), e->ll_mask,
		           e->t_i8);
	}
}

/* &arr[i] */
static LLVMValueRef arr_elt(Em *e, LLVMValueRef arr, LLVMTypeRef t, LLVMValueRef i)
{
	LLVMValueRef idx[2] = {ci32(e, 0), i};
	return LLVMBuildInBoundsGEP2(e->B, LLVMArrayType(t, (unsigned)e->T), arr, idx, 2, "");
}

typedef struct LaneLoop {
	LLVMBasicBlockRef pre, head, latch;
	LLVMValueRef i;   /* lane index (i32) */
	LLVMValueRef ptr; /* lane i's address as st* (in the body) */
} LaneLoop;

/* opens the loop over the lanes spilled by ll_spill; the builder is left in
 * the body, run for the enabled lanes only */
static void ll_begin(Em *e, MemAcc *a, bool masked, LLVMValueRef base, LaneLoop *L)
{
	LLVMBuilderRef B = e->B;
	L->pre = LLVMGetInsertBlock(B);
	L->head = LLVMAppendBasicBlockInContext(e->C, e->fn, "lanes.head");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(e->C, e->fn, "lanes.body");
	L->latch = LLVMAppendBasicBlockInContext(e->C, e->fn, "lanes.next");
	LLVMBuildBr(B, L->head);
	LLVMPositionBuilderAtEnd(B, L->head);
	L->i = LLVMBuildPhi(B, e->t_i32, "lane");
	if (masked) {
		LLVMValueRef mb = LLVMBuildLoad2(B, e->t_i8, arr_elt(e, e->ll_mask, e->t_i8, L->i), "");
		LLVMValueRef c = LLVMBuildICmp(B, LLVMIntNE, mb, LLVMConstNull(e->t_i8), "");
		LLVMBuildCondBr(B, c, body, L->latch);
	} else {
		LLVMBuildBr(B, body);
	}
	LLVMPositionBuilderAtEnd(B, body);
	if (base) { /* coalesced: lane i at base + i * vec */
		LLVMValueRef o = LLVMBuildMul(B, L->i, ci32(e, a->vec), "");
		L->ptr = LLVMBuildGEP2(B, a->st, base, &o, 1, "");
		return;
	}
	LLVMValueRef ad = LLVMBuildLoad2(B, e->t_i64, arr_elt(e, e->ll_addr, e->t_i64, L->i), "");
	L->ptr = LLVMBuildIntToPtr(B, ad, LLVMPointerType(a->st, 0), "");
}

/* closes the loop; the builder continues after it */
static void ll_end(Em *e, LaneLoop *L)
{
	LLVMBuilderRef B = e->B;
	LLVMBuildBr(B, L->latch);
	LLVMPositionBuilderAtEnd(B, L->latch);
	LLVMValueRef n = LLVMBuildNUWAdd(B, L->i, ci32(e, 1), "");
	LLVMValueRef c = LLVMBuildICmp(B, LLVMIntULT, n, ci32(e, e->T), "");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(e->C, e->fn, "lanes.end");
	LLVMBuildCondBr(B, c, L->head, exit);
	LLVMValueRef in[2] = {ci32(e, 0), n};
	LLVMBasicBlockRef bb[2] = {L->pre, L->latch};
	LLVMAddIncoming(L->i, in, bb, 2);
	LLVMPositionBuilderAtEnd(B, exit);
}

/* tile_rt_lanes_load/store(vals, addr, base, stride, off, mask, T, size) for
 * element k: lane t at addr[t] + k*size, or (coalesced, base given) at
 * base + (t*vec + k)*size */
static void ll_call(Em *e, bool store, MemAcc *a, LLVMValueRef base, bool masked, int k)
{
	LLVMTypeRef i8p = e->t_i8p, i64p = LLVMPointerType(e->t_i64, 0);
	LLVMTypeRef ps[8] = {i8p, i64p, i8p, e->t_i64, e->t_i64, i8p, e->t_i32, e->t_i32};
	int64_t size = a->dt == DT_PTR ? 8 : dtype_bytes(a->dt); /* bytes of a->st */
	LLVMValueRef args[8] = {
	        LLVMBuildBitCast(e->B, ll_arr(e, a->st, k), i8p, ""),
	        base ? LLVMConstNull(i64p) : LLVMBuildBitCast(e->B, e->ll_addr, i64p, ""),
	        base ? LLVMBuildBitCast(e->B, base, i8p, "") : LLVMConstNull(i8p),
	        LLVMConstInt(e->t_i64, (unsigned long long)(base ? size * a->vec : 0), 0),
	        LLVMConstInt(e->t_i64, (unsigned long long)(size * k), 0),
	        masked ? LLVMBuildBitCast(e->B, e->ll_mask, i8p, "") : LLVMConstNull(i8p),
	        ci32(e, e->T), ci32(e, size)};
	em_call(e, store ? "tile_rt_lanes_store" : "tile_rt_lanes_load", e->t_void, ps, 8, args);
}

/* gather as a lane loop: out[k][t] = mask[t] ? p[t][k] : other[k][t]; with
 * base (a coalesced access), p[t] = base + t * vec and p is unused */
static void ll_gather(Em *e, MemAcc *a, LLVMValueRef p, LLVMValueRef base, LLVMValueRef m,
                      const LLVMValueRef *other, LLVMValueRef *out)
{
	for (int k = 0; k < a->vec; k++)
		vstore_arr(e, em_splat(e, other[k]), ll_arr(e, a->st, k), a->st);
	ll_spill(e, base ? NULL : p, m);
	if (a->smem ? e->smem_lane_calls : e->lane_calls) {
		for (int k = 0; k < a->vec; k++)
			ll_call(e, false, a, base, m != NULL, k);
	} else {
		LaneLoop L;
		ll_begin(e, a, m != NULL, base, &L);
		for (int k = 0; k < a->vec; k++) {
			LLVMValueRef v = aligned_load(e, a->st, scalar_ptr(e, a, L.ptr, k), a->align);
			LLVMSetVolatile(v, a->vol);
			LLVMBuildStore(e->B, v, arr_elt(e, ll_arr(e, a->st, k), a->st, L.i));
		}
		ll_end(e, &L);
	}
	for (int k = 0; k < a->vec; k++)
		out[k] = vload_arr(e, ll_arr(e, a->st, k), a->st);
}

/* scatter as lane loops: element k of every enabled lane, in lane order, then
 * element k+1 (the order of a scatter per element) */
static void ll_scatter(Em *e, MemAcc *a, LLVMValueRef p, LLVMValueRef base, LLVMValueRef m,
                       const LLVMValueRef *v)
{
	for (int k = 0; k < a->vec; k++)
		vstore_arr(e, v[k], ll_arr(e, a->st, k), a->st);
	ll_spill(e, base ? NULL : p, m);
	for (int k = 0; k < a->vec; k++) {
		if (a->smem ? e->smem_lane_calls : e->lane_calls) {
			ll_call(e, true, a, base, m != NULL, k);
			continue;
		}
		LaneLoop L;
		ll_begin(e, a, m != NULL, base, &L);
		LLVMValueRef x = LLVMBuildLoad2(e->B, a->st,
		                                arr_elt(e, ll_arr(e, a->st, k), a->st, L.i), "");
		aligned_store(e, x, scalar_ptr(e, a, L.ptr, k), a->align);
		ll_end(e, &L);
	}
}

/* ---- generic load/store given pointer (scalar or vector of st*) ---------------------- */

/* 8- and 16-bit elements have no masked vector load/store on AVX2: LLVM
 * expands llvm.masked.* into one branch per element before instruction
 * selection (64 blocks per access at 64 lanes: mamba's fp16 chunk kernels
 * spent 35 s there). Their masked path is a lane loop instead, up to 64
 * lanes: measured, the loop's spills of the whole vector cost more than the
 * expansion at 256 lanes (Liger's bf16 softmax at BLOCK 65536: 31 s vs 14 s). */
static bool narrow_elems(const MemAcc *a)
{
	return LLVMGetTypeKind(a->st) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(a->st) < 32;
}

static bool masked_by_lanes(Em *e, const MemAcc *a)
{
	return use_lane_loop(e) && e->T <= 64 && narrow_elems(a);
}

/* A gather/scatter under a mask not known at compile time that the host
 * has no instruction for (x86: 8/16-bit elements; scatters before AVX-512):
 * LLVM expands it into a branch per lane. kernl's fp16 linear kernel (16
 * lanes, 520 such accesses) spent 16 s of its compile there. A lane loop is
 * 3 blocks. */
static bool expanded_per_lane(Em *e, const MemAcc *a, LLVMValueRef m, bool store)
{
	return m && !LLVMIsConstant(m) && (narrow_elems(a) || (store && !e->native_scatter));
}


/* out[k] = loaded element k (memory representation). */
static void load_elems(Em *e, MemAcc *a, LLVMValueRef p, TpVal mask, const LLVMValueRef *other,
                       bool uniform, bool coalesced, LLVMValueRef *out)
{
	LLVMBuilderRef B = e->B;
	if (uniform) {
		LLVMValueRef m = mask ? em_get(e, mask) : NULL;
		if (!m || em_is_true_const(m)) {
			for (int k = 0; k < a->vec; k++) {
				out[k] = aligned_load(e, a->st, scalar_ptr(e, a, p, k), a->align);
				LLVMSetVolatile(out[k], a->vol);
			}
			return;
		}
		LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
		LLVMBasicBlockRef bl = LLVMAppendBasicBlockInContext(e->C, e->fn, "ld.then");
		LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(e->C, e->fn, "ld.end");
		LLVMBuildCondBr(B, m, bl, bj);
		LLVMPositionBuilderAtEnd(B, bl);
		LLVMValueRef v[MAX_VEC];
		for (int k = 0; k < a->vec; k++) {
			v[k] = aligned_load(e, a->st, scalar_ptr(e, a, p, k), a->align);
			LLVMSetVolatile(v[k], a->vol);
		}
		LLVMBuildBr(B, bj);
		LLVMPositionBuilderAtEnd(B, bj);
		for (int k = 0; k < a->vec; k++) {
			out[k] = LLVMBuildPhi(B, a->st, "");
			LLVMValueRef in[2] = {v[k], other[k]};
			LLVMBasicBlockRef bb[2] = {bl, pre};
			LLVMAddIncoming(out[k], in, bb, 2);
		}
		return;
	}
	LLVMValueRef m = em_mask_vec(e, mask);
	if (coalesced) {
		unsigned n = (unsigned)(e->T * a->vec);
		LLVMTypeRef wt = LLVMVectorType(a->st, n);
		LLVMValueRef base = LLVMBuildBitCast(B, lane0(e, p), LLVMPointerType(wt, 0), "");
		LLVMValueRef wide;
		if (!m) {
			wide = aligned_load(e, wt, base, a->align);
		} else {
			/* all enabled (every block but the last, usually): a plain
			 * load; masked loads are much slower on some CPUs (and
			 * keep LLVM from folding them) */
			LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(e->C, e->fn, "ld.all");
			LLVMBasicBlockRef bm = LLVMAppendBasicBlockInContext(e->C, e->fn, "ld.some");
			LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(e->C, e->fn, "ld.join");
			LLVMBuildCondBr(B, all_set(e, m), bf, bm);
			LLVMPositionBuilderAtEnd(B, bf);
			LLVMValueRef full = aligned_load(e, wt, base, a->align);
			LLVMBuildBr(B, bj);
			LLVMPositionBuilderAtEnd(B, bm);
			LLVMValueRef part;
			if (masked_by_lanes(e, a)) {
				LLVMValueRef pk[MAX_VEC];
				ll_gather(e, a, NULL, lane0(e, p), m, other, pk);
				part = interleave(e, pk, a->vec);
			} else {
				LLVMValueRef pass[MAX_VEC];
				for (int k = 0; k < a->vec; k++)
					pass[k] = em_splat(e, other[k]);
				LLVMValueRef args[4] = {base, ci32(e, a->align), expand_mask(e, m, a->vec),
				                        interleave(e, pass, a->vec)};
				LLVMTypeRef ovl[2] = {wt, LLVMPointerType(wt, 0)};
				part = em_intrinsic(e, "llvm.masked.load", ovl, 2, args, 4);
			}
			LLVMBasicBlockRef bm_end = LLVMGetInsertBlock(B);
			LLVMBuildBr(B, bj);
			LLVMPositionBuilderAtEnd(B, bj);
			wide = LLVMBuildPhi(B, wt, "");
			LLVMValueRef in[2] = {full, part};
			LLVMBasicBlockRef bb[2] = {bf, bm_end};
			LLVMAddIncoming(wide, in, bb, 2);
		}
		for (int k = 0; k < a->vec; k++)
			out[k] = deinterleave(e, wide, a->vec, k);
		return;
	}
	if (a->vol || use_lane_loop(e) || expanded_per_lane(e, a, m, false)) {
		ll_gather(e, a, p, NULL, m, other, out);
		return;
	}
	LLVMValueRef mm = m ? m : all_true(e, (unsigned)e->T);
	for (int k = 0; k < a->vec; k++) {
		LLVMValueRef ptrs = elem_ptrs(e, a, p, k);
		LLVMValueRef args[4] = {ptrs, ci32(e, a->align), mm, em_splat(e, other[k])};
		LLVMTypeRef ovl[2] = {em_vec(e, a->st), LLVMTypeOf(ptrs)};
		out[k] = em_intrinsic(e, "llvm.masked.gather", ovl, 2, args, 4);
	}
}

static void store_elems(Em *e, MemAcc *a, LLVMValueRef p, TpVal mask, LLVMValueRef *vals,
                        bool uniform, bool coalesced)
{
	LLVMBuilderRef B = e->B;
	if (uniform) {
		LLVMValueRef m = mask ? em_get(e, mask) : NULL;
		LLVMBasicBlockRef bj = NULL;
		if (m && !em_is_true_const(m)) {
			LLVMBasicBlockRef bs =
			        LLVMAppendBasicBlockInContext(e->C, e->fn, "st.then");
			bj = LLVMAppendBasicBlockInContext(e->C, e->fn, "st.end");
			LLVMBuildCondBr(B, m, bs, bj);
			LLVMPositionBuilderAtEnd(B, bs);
		}
		for (int k = 0; k < a->vec; k++)
			aligned_store(e, vals[k], scalar_ptr(e, a, p, k), a->align);
		if (bj) {
			LLVMBuildBr(B, bj);
			LLVMPositionBuilderAtEnd(B, bj);
		}
		return;
	}
	LLVMValueRef m = em_mask_vec(e, mask);
	LLVMValueRef v[MAX_VEC];
	for (int k = 0; k < a->vec; k++)
		v[k] = em_splat(e, vals[k]);
	if (coalesced) {
		unsigned n = (unsigned)(e->T * a->vec);
		LLVMTypeRef wt = LLVMVectorType(a->st, n);
		LLVMValueRef base = LLVMBuildBitCast(B, lane0(e, p), LLVMPointerType(wt, 0), "");
		LLVMValueRef wide = interleave(e, v, a->vec);
		if (!m) {
			aligned_store(e, wide, base, a->align);
		} else {
			/* as for loads: a plain store when every lane is enabled */
			LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(e->C, e->fn, "st.all");
			LLVMBasicBlockRef bm = LLVMAppendBasicBlockInContext(e->C, e->fn, "st.some");
			LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(e->C, e->fn, "st.join");
			LLVMBuildCondBr(B, all_set(e, m), bf, bm);
			LLVMPositionBuilderAtEnd(B, bf);
			aligned_store(e, wide, base, a->align);
			LLVMBuildBr(B, bj);
			LLVMPositionBuilderAtEnd(B, bm);
			if (masked_by_lanes(e, a)) {
				ll_scatter(e, a, NULL, lane0(e, p), m, v);
			} else {
				LLVMValueRef args[4] = {wide, base, ci32(e, a->align),
				                        expand_mask(e, m, a->vec)};
				LLVMTypeRef ovl[2] = {wt, LLVMPointerType(wt, 0)};
				em_intrinsic(e, "llvm.masked.store", ovl, 2, args, 4);
			}
			LLVMBuildBr(B, bj);
			LLVMPositionBuilderAtEnd(B, bj);
		}
		return;
	}
	if (use_lane_loop(e) || expanded_per_lane(e, a, m, true)) {
		ll_scatter(e, a, p, NULL, m, v);
		return;
	}
	LLVMValueRef mm = m ? m : all_true(e, (unsigned)e->T);
	for (int k = 0; k < a->vec; k++) {
		LLVMValueRef ptrs = elem_ptrs(e, a, p, k);
		LLVMValueRef args[4] = {v[k], ptrs, ci32(e, a->align), mm};
		LLVMTypeRef ovl[2] = {em_vec(e, a->st), LLVMTypeOf(ptrs)};
		em_intrinsic(e, "llvm.masked.scatter", ovl, 2, args, 4);
	}
}

/* ---- coalesced runs -------------------------------------------------------------------- */

/* TP_COALESCED with attr.axis = R: consecutive only within aligned runs of R
 * threads (x % N): a vector of R elements per run from its first thread's
 * pointer, instead of a gather. One element per thread; 8- and 16-bit
 * elements under a mask go the general way (see narrow_elems). */
static bool runs_ok(Em *e, const MemAcc *a, int run, bool masked)
{
	return run > 1 && run < e->T && e->T % run == 0 && a->vec == 1 &&
	       !(masked && narrow_elems(a));
}

static LLVMValueRef run_slice(Em *e, LLVMValueRef v, int j, int run)
{
	int *idx = malloc(sizeof(int) * (size_t)run);
	for (int i = 0; i < run; i++)
		idx[i] = j * run + i;
	LLVMValueRef r = shuffle(e, v, NULL, idx, run);
	free(idx);
	return r;
}

static LLVMValueRef run_base(Em *e, const MemAcc *a, LLVMValueRef p, int j, int run)
{
	LLVMValueRef b = LLVMBuildExtractElement(e->B, p, ci32(e, j * run), "");
	return LLVMBuildBitCast(e->B, b, LLVMPointerType(LLVMVectorType(a->st, (unsigned)run), 0), "");
}

static LLVMValueRef load_runs(Em *e, MemAcc *a, LLVMValueRef p, LLVMValueRef m, LLVMValueRef other,
                              int run)
{
	int n = e->T / run;
	LLVMTypeRef rt = LLVMVectorType(a->st, (unsigned)run);
	LLVMValueRef *part = malloc(sizeof(LLVMValueRef) * (size_t)n);
	for (int j = 0; j < n; j++) {
		LLVMValueRef base = run_base(e, a, p, j, run);
		if (!m) {
			part[j] = aligned_load(e, rt, base, a->align);
			continue;
		}
		LLVMValueRef args[4] = {base, ci32(e, a->align), run_slice(e, m, j, run),
		                        run_slice(e, em_splat(e, other), j, run)};
		LLVMTypeRef ovl[2] = {rt, LLVMPointerType(rt, 0)};
		part[j] = em_intrinsic(e, "llvm.masked.load", ovl, 2, args, 4);
	}
	LLVMValueRef r = concat(e, part, n, run);
	free(part);
	return r;
}

static void store_runs(Em *e, MemAcc *a, LLVMValueRef p, LLVMValueRef m, LLVMValueRef v, int run)
{
	int n = e->T / run;
	LLVMTypeRef rt = LLVMVectorType(a->st, (unsigned)run);
	v = em_splat(e, v);
	for (int j = 0; j < n; j++) {
		LLVMValueRef base = run_base(e, a, p, j, run), x = run_slice(e, v, j, run);
		if (!m) {
			aligned_store(e, x, base, a->align);
			continue;
		}
		LLVMValueRef args[4] = {x, base, ci32(e, a->align), run_slice(e, m, j, run)};
		LLVMTypeRef ovl[2] = {rt, LLVMPointerType(rt, 0)};
		em_intrinsic(e, "llvm.masked.store", ovl, 2, args, 4);
	}
}

/* ---- LOAD / STORE --------------------------------------------------------------------- */

bool em_all_uniform(Em *e, const TpVal *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] && !tp_uniform(e->f, v[i]))
			return false;
	return true;
}

/* A volatile load (a spin on a flag another program sets) is a volatile LLVM
 * load, once per execution as the GPU's ld.volatile: LLVM may not hoist it
 * out of its loop or merge it with another. llvm.masked.load/gather cannot
 * be volatile, so a volatile load that is not uniform is a lane loop of such
 * loads (ll_gather), never the coalesced or gather forms. */
static void emit_load(Em *e, const TpOp *op)
{
	int vec = op->nout;
	DType d = (DType)tp_type(e->f, op->results[0]).dt;
	MemAcc a = mem_acc(e, d, vec);
	a.vol = (op->attr.flags & TIR_VOLATILE) != 0;
	TpVal mask = op->nin > 1 ? op->operands[1] : 0;
	bool uni = em_all_uniform(e, op->operands, op->nin) && tp_uniform(e->f, op->results[0]);
	LLVMValueRef other[MAX_VEC] = {0};
	for (int k = 0; k < vec; k++) {
		TpVal o = op->nin > 2 + k ? op->operands[2 + k] : 0;
		other[k] = o ? to_mem(e, em_get(e, o), d) : LLVMConstNull(a.st);
		if (!uni)
			other[k] = em_splat(e, other[k]);
	}
	LLVMValueRef p = em_get(e, op->operands[0]);
	em_align_check(e, op, p, mask ? em_get(e, mask) : NULL, em_global_align(vec, em_mem_bytes(d)),
	               false);
	LLVMValueRef out[MAX_VEC];
	bool coal = (op->attr.flags & TP_COALESCED) && em_is_vec(p) && !a.vol;
	int run = coal ? (int)op->attr.axis : 0;
	if (run) {
		if (!uni && runs_ok(e, &a, run, em_mask_vec(e, mask) != NULL)) {
			out[0] = load_runs(e, &a, p, em_mask_vec(e, mask), other[0], run);
			em_set(e, op->results[0], from_mem(e, out[0], tp_type(e->f, op->results[0])));
			return;
		}
		coal = false;
	}
	if (coal && em_lane0(e, op->operands[0]))
		p = em_lane0(e, op->operands[0]); /* thread 0's address, scalar */
	load_elems(e, &a, p, mask, other, uni, coal, out);
	for (int k = 0; k < vec; k++)
		em_set(e, op->results[k], from_mem(e, out[k], tp_type(e->f, op->results[k])));
}

static void emit_store(Em *e, const TpOp *op)
{
	int vec = op->nin - 2;
	if (vec < 1)
		ice(PASS, "store without values");
	DType d = (DType)tp_type(e->f, op->operands[2]).dt;
	MemAcc a = mem_acc(e, d, vec);
	bool uni = em_all_uniform(e, op->operands, op->nin);
	LLVMValueRef v[MAX_VEC];
	for (int k = 0; k < vec; k++)
		v[k] = to_mem(e, em_get(e, op->operands[2 + k]), d);
	LLVMValueRef p = em_get(e, op->operands[0]);
	em_align_check(e, op, p, op->operands[1] ? em_get(e, op->operands[1]) : NULL,
	               em_global_align(vec, em_mem_bytes(d)), false);
	bool coal = (op->attr.flags & TP_COALESCED) && em_is_vec(p);
	int run = coal ? (int)op->attr.axis : 0;
	if (run) {
		LLVMValueRef m = em_mask_vec(e, op->operands[1]);
		if (!uni && runs_ok(e, &a, run, m != NULL)) {
			store_runs(e, &a, p, m, v[0], run);
			return;
		}
		coal = false;
	}
	if (coal && em_lane0(e, op->operands[0]))
		p = em_lane0(e, op->operands[0]); /* thread 0's address, scalar */
	store_elems(e, &a, p, op->operands[1], v, uni, coal);
}

/* ---- shared memory ------------------------------------------------------------------- */

static LLVMValueRef smem_ptr(Em *e, MemAcc *a, LLVMValueRef off)
{
	bool vec = em_is_vec(off);
	LLVMValueRef o = LLVMBuildZExt(e->B, off, vec ? em_vec(e, e->t_i64) : e->t_i64, "");
	LLVMValueRef p = LLVMBuildGEP2(e->B, e->t_i8, e->a_smem, &o, 1, "");
	LLVMTypeRef pt = LLVMPointerType(a->st, 0);
	return LLVMBuildBitCast(e->B, p, vec ? em_vec(e, pt) : pt, "");
}

/* The byte offset of a shared-memory access; for a TP_COALESCED one (thread
 * t's offset = thread 0's + t * vec elements) thread 0's, as scalar ops. */
static LLVMValueRef smem_off(Em *e, const TpOp *op, bool *coal)
{
	LLVMValueRef off = em_get(e, op->operands[0]);
	*coal = (op->attr.flags & TP_COALESCED) && em_is_vec(off);
	if (*coal && em_lane0(e, op->operands[0]))
		off = em_lane0(e, op->operands[0]);
	return off;
}

static void emit_smem_load(Em *e, const TpOp *op)
{
	int vec = op->nout;
	DType d = (DType)tp_type(e->f, op->results[0]).dt;
	MemAcc a = mem_acc(e, d, vec);
	a.smem = true;
	bool uni = em_all_uniform(e, op->operands, op->nin) && tp_uniform(e->f, op->results[0]);
	LLVMValueRef other[MAX_VEC] = {0}, out[MAX_VEC];
	for (int k = 0; k < vec; k++)
		other[k] = uni ? LLVMConstNull(a.st) : em_splat(e, LLVMConstNull(a.st));
	TpVal mask = op->nin > 1 ? op->operands[1] : 0;
	em_race_access(e, op, mask ? em_get(e, mask) : NULL, vec * em_mem_bytes(d), 0,
	               TILE_RACE_READ, NULL, 0);
	em_align_check(e, op, em_get(e, op->operands[0]), mask ? em_get(e, mask) : NULL,
	               em_shared_align(vec, em_mem_bytes(d)), true);
	bool coal = false;
	LLVMValueRef p = smem_ptr(e, &a, smem_off(e, op, &coal));
	load_elems(e, &a, p, mask, other, uni, coal, out);
	for (int k = 0; k < vec; k++)
		em_set(e, op->results[k], from_mem(e, out[k], tp_type(e->f, op->results[k])));
}

static void emit_smem_store(Em *e, const TpOp *op)
{
	int vec = op->nin - 2;
	if (vec < 1)
		ice(PASS, "smem_store without values");
	DType d = (DType)tp_type(e->f, op->operands[2]).dt;
	MemAcc a = mem_acc(e, d, vec);
	a.smem = true;
	bool uni = em_all_uniform(e, op->operands, op->nin);
	LLVMValueRef v[MAX_VEC];
	for (int k = 0; k < vec; k++)
		v[k] = to_mem(e, em_get(e, op->operands[2 + k]), d);
	TpVal mask = op->operands[1];
	em_race_access(e, op, mask ? em_get(e, mask) : NULL, vec * em_mem_bytes(d), em_mem_bytes(d),
	               TILE_RACE_WRITE, v, vec);
	em_align_check(e, op, em_get(e, op->operands[0]), mask ? em_get(e, mask) : NULL,
	               em_shared_align(vec, em_mem_bytes(d)), true);
	bool coal = false;
	LLVMValueRef p = smem_ptr(e, &a, smem_off(e, op, &coal));
	store_elems(e, &a, p, op->operands[1], v, uni, coal);
}

/* ---- cp.async ---------------------------------------------------------------------------- */

/* Emulated strictly by a queue in libtile (jit/rt_async.h): the global data
 * is read at issue, shared memory is written when a wait retires the group
 * (or at return), so a pipelined kernel that reads a stage before waiting
 * for it fails here too. The queue header is a stack slot of this program
 * instance, set up only in functions that contain a CP_ASYNC. */

static bool has_cp_async(const TpBlock *b)
{
	for (int i = 0; i < b->nops; i++) {
		const TpOp *op = b->ops[i];
		if (op->kind == TP_CP_ASYNC)
			return true;
		for (int r = 0; r < op->nregions; r++)
			if (has_cp_async(&op->regions[r]))
				return true;
	}
	return false;
}

void em_cp_async_setup(Em *e)
{
	if (!has_cp_async(e->f->body))
		return;
	LLVMTypeRef qt = LLVMArrayType(e->t_i64, TILE_CP_ASYNC_QUEUE_BYTES / 8);
	LLVMValueRef q = em_entry_alloca(e, qt, TILE_CP_ASYNC_QUEUE_ALIGN);
	LLVMBuildStore(e->B, LLVMConstNull(qt), q);
	e->cpa_q = LLVMBuildBitCast(e->B, q, e->t_i8p, "cpq");
}

void em_cp_async_sync(Em *e, const TpOp *op)
{
	if (!e->cpa_q)
		return; /* nothing was issued: nothing to commit or wait for */
	LLVMTypeRef ps[2] = {e->t_i8p, e->t_i32};
	LLVMValueRef args[2] = {e->cpa_q, ci32(e, op->attr.i)};
	if (op->kind == TP_CP_ASYNC_COMMIT)
		em_call(e, "tile_rt_cp_async_commit", e->t_void, ps, 1, args);
	else
		em_call(e, "tile_rt_cp_async_wait", e->t_void, ps, 2, args);
}

void em_cp_async_fini(Em *e)
{
	if (e->cpa_q)
		em_call(e, "tile_rt_cp_async_fini", e->t_void, &e->t_i8p, 1, &e->cpa_q);
}

/* Stores the <T x t> vector v into the [T x t] stack array *slot (created on
 * first use, reused by every cp.async); returns the array as i8*. */
static LLVMValueRef cpa_spill(Em *e, LLVMValueRef *slot, LLVMValueRef v, unsigned align)
{
	LLVMTypeRef vt = LLVMTypeOf(v);
	if (!*slot)
		*slot = em_entry_alloca(e, LLVMArrayType(LLVMGetElementType(vt), (unsigned)e->T),
		                        align);
	LLVMValueRef p = LLVMBuildBitCast(e->B, *slot, LLVMPointerType(vt, 0), "");
	LLVMSetAlignment(LLVMBuildStore(e->B, v, p), align);
	return LLVMBuildBitCast(e->B, *slot, e->t_i8p, "");
}

/* operands (global ptr, byte_off i32, mask i1, [pred i1]); per thread:
 * flags = pred ? TILE_CP_ISSUE : 0 | mask ? TILE_CP_READ : 0 */
static void emit_cp_async(Em *e, const TpOp *op)
{
	LLVMBuilderRef B = e->B;
	int bytes = (int)op->attr.i;
	if (bytes != 4 && bytes != 8 && bytes != 16)
		ice(PASS, "cp.async of %d bytes", bytes);
	if (!e->cpa_q)
		ice(PASS, "cp.async without its queue");
	LLVMTypeRef v8 = em_vec(e, e->t_i8);
	LLVMValueRef src = LLVMBuildPointerCast(B, em_getv(e, op->operands[0]),
	                                        em_vec(e, e->t_i8p), "");
	LLVMValueRef off = LLVMBuildIntCast2(B, em_getv(e, op->operands[1]), em_vec(e, e->t_i32),
	                                     1, "");
	LLVMValueRef fl = em_const_int(e, e->t_i8, TILE_CP_ISSUE | TILE_CP_READ, true);
	if (op->nin > 2) {
		LLVMValueRef m = LLVMBuildZExt(B, em_getv(e, op->operands[2]), v8, "");
		m = LLVMBuildShl(B, m, em_const_int(e, e->t_i8, 1, true), "");
		fl = LLVMBuildOr(B, m, em_const_int(e, e->t_i8, TILE_CP_ISSUE, true), "");
	}
	if (op->nin > 3) {
		LLVMValueRef p = LLVMBuildSExt(B, em_getv(e, op->operands[3]), v8, "");
		fl = LLVMBuildAnd(B, fl, p, ""); /* pred false: no flags, nothing issued */
	}
	/* before the issue: the checker marks the bytes in flight, a wait lands them */
	LLVMValueRef issue = LLVMBuildAnd(B, fl, em_const_int(e, e->t_i8, TILE_CP_ISSUE, true), "");
	em_race_access(e, op, issue, bytes, 0, TILE_RACE_ASYNC, NULL, 0);
	em_align_check(e, op, src, LLVMBuildAnd(B, fl, em_const_int(e, e->t_i8, TILE_CP_READ, true), ""),
	               bytes, false); /* a zero fill reads nothing */
	em_align_check(e, op, off, issue, bytes, true);
	LLVMTypeRef ps[7] = {e->t_i8p, e->t_i8p, e->t_i8p, e->t_i8p, e->t_i8p, e->t_i32, e->t_i32};
	LLVMValueRef args[7] = {e->cpa_q,
	                        e->a_smem,
	                        cpa_spill(e, &e->cpa_off, off, 4),
	                        cpa_spill(e, &e->cpa_src, src, 8),
	                        cpa_spill(e, &e->cpa_flags, fl, 1),
	                        ci32(e, e->T),
	                        ci32(e, bytes)};
	em_call(e, "tile_rt_cp_async_issue", e->t_void, ps, 7, args);
}

bool em_mem(Em *e, const TpOp *op)
{
	switch (op->kind) {
	case TP_LOAD: emit_load(e, op); return true;
	case TP_STORE: emit_store(e, op); return true;
	case TP_SMEM_LOAD: emit_smem_load(e, op); return true;
	case TP_SMEM_STORE: emit_smem_store(e, op); return true;
	case TP_CP_ASYNC: emit_cp_async(e, op); return true;
	case TP_ATOMIC:
	case TP_ATOMIC_CAS: em_atomic(e, op); return true;
	default: return false;
	}
}
