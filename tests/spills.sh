#!/bin/sh
# spills.sh: kernels where ptxas spilled on sm_90a because of the code tile
# gave it, not because the tile was too big. Each case checks the cause in
# the layouts or the thread program, the spills ptxas reports (skipped,
# visibly, without libnvrtc), and the results on cuda-emu (racecheck) and
# the CPU against numpy (skipped without it).
. "$(dirname "$0")/cli_lib.sh"

have_nvrtc=0
$TILE --version | grep -q "^nvrtc: [0-9]" && have_nvrtc=1
[ $have_nvrtc = 1 ] || echo "skip: no libnvrtc: ptxas checks not run"
have_numpy=0
for py in python3 /usr/bin/python3; do
	"$py" -c "import numpy" 2>/dev/null && { have_numpy=1; break; }
done
[ $have_numpy = 1 ] || echo "skip: no python3 with numpy: results not checked"

# spilled BYTES: `tile compile`'s report of the spills in $tmp/out
spilled() { sed -n 's/.*registers, \([0-9]*\) bytes spilled.*/\1/p' "$tmp/out"; }

# no_spills NAME ARGS...: compiles for sm_90a and expects no spills
no_spills() {
	name=$1
	shift
	[ $have_nvrtc = 1 ] || return 0
	expect 0 $TILE compile "$@" --target sm_90a
	s=$(spilled)
	[ "$s" = 0 ] || fail "$name: $s bytes spilled on sm_90a (expected none)"
}

# ---- 1. a big accumulator stored, then used again ------------------------------
# kernl's kernel_fma stores its fp32 accumulator (ACT_INPUTS), then applies
# the activation to it. Converting the 128x256 tile to the coalesced store
# layout held it twice (2 x 128 registers a thread over 8 warps); it is
# stored from the mma layout instead (assign.c, store_own_layout).
cat >"$tmp/act.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def mm_act(a_ptr, b_ptr, c_ptr, pre_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(pre_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=mask)
    y = acc * tl.sigmoid(acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], y.to(tl.float16), mask=mask)
K
act_sig='*fp16:16,*fp16:16,*fp16:16,*fp32:16,i32,i32,i32:16,i32:16,i32:16,i32:16,128,256,32'
expect 0 $TILE compile "$tmp/act.tile" mm_act --signature "$act_sig" --num-warps 8 --target sm_90a \
	--emit layout
grep -q "convert_layout .*<128x256xfp32>" "$tmp/out" &&
	fail "mm_act: the fp32 accumulator is converted for its store"
no_spills mm_act "$tmp/act.tile" mm_act --signature "$act_sig" --num-warps 8
no_spills "mm_act (unaligned rows)" "$tmp/act.tile" mm_act --num-warps 8 \
	--signature '*fp16:16,*fp16:16,*fp16:16,*fp32:16,i32,i32,i32:16,i32:16,i32:16,i32,128,256,32'
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "mm_act: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(1)
np.save(d + "/a.npy", (r.integers(-8, 9, (128, 64)) / 8).astype(np.float16))
np.save(d + "/b.npy", (r.integers(-8, 9, (64, 256)) / 8).astype(np.float16))
np.save(d + "/c.npy", np.zeros((128, 256), np.float16))
np.save(d + "/pre.npy", np.zeros((128, 256), np.float32))
P
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/act.tile" mm_act --grid 1 --target $target \
			--num-warps 8 --out-dir "$tmp/res" a_ptr=@"$tmp/a.npy" b_ptr=@"$tmp/b.npy" \
			c_ptr=@"$tmp/c.npy" pre_ptr=@"$tmp/pre.npy" M=100 N=200 K=64 stride_am=64 \
			stride_bk=256 stride_cm=256 BM=128 BN=256 BK=32
		"$py" - "$tmp" <<'P' || fail "mm_act: wrong results on $target"
import sys, numpy as np
d = sys.argv[1]
a, b = np.load(d + "/a.npy").astype(np.float64), np.load(d + "/b.npy").astype(np.float64)
z = a @ b  # exact in fp32: products of eighths
pre, c = np.load(d + "/res/pre_ptr.npy"), np.load(d + "/res/c_ptr.npy").astype(np.float64)
want_pre = np.zeros((128, 256)); want_pre[:100, :200] = z[:100, :200]
want_c = np.zeros((128, 256)); want_c[:100, :200] = (z / (1 + np.exp(-z)))[:100, :200]
ok = np.array_equal(pre, want_pre) and np.allclose(c, want_c, rtol=2e-3, atol=1e-3)
if not ok:
    print("pre max err", np.abs(pre - want_pre).max(), "c max err", np.abs(c - want_c).max())
sys.exit(0 if ok else 1)
P
	done
fi

# ---- 2. an index load's arange converted through shared memory ----------------
# A load redone in its consumer's layout (cheap_load) whose address chain
# passed the rematerialization depth limit had its arange and splat
# (`start + tl.arange(0, BN)`) converted through shared memory: sglang's
# grouped decode attention (MLA) did it twice per iteration for kv_indices,
# with two barriers each (assign.c, is_leaf). 448 -> 360 B of spills there.
cat >"$tmp/gather.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def gather_dot(q_ptr, k_ptr, idx_ptr, o_ptr, n, stride_k, D: tl.constexpr, BN: tl.constexpr):
    offs_h = tl.arange(0, 16)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_h[:, None] * D + offs_d[None, :])
    acc = tl.zeros((16, BN), dtype=tl.float32)
    for start in range(0, n, BN):
        offs_n = start + tl.arange(0, BN)
        loc = tl.load(idx_ptr + offs_n, mask=offs_n < n, other=0)
        k = tl.load(k_ptr + loc[None, :] * stride_k + offs_d[:, None],
                    mask=offs_n[None, :] < n, other=0.0)
        acc += tl.dot(q, k)
    tl.store(o_ptr + offs_h[:, None] * BN + tl.arange(0, BN)[None, :], acc)
K
g_sig='*fp16:16,*fp16:16,*i64:16,*fp32:16,i32,i32:16,64,32'
expect 0 $TILE compile "$tmp/gather.tile" gather_dot --signature "$g_sig" --num-stages 2 --target sm_90a \
	--emit layout
grep -q "convert_layout .*xi32>" "$tmp/out" && fail "gather_dot: an i32 tile is converted"
if [ $have_nvrtc = 1 ]; then
	# 9 barriers: the pipelined loop's and the dot's; the conversions made 20
	expect 0 $TILE compile "$tmp/gather.tile" gather_dot --signature "$g_sig" --num-stages 2 \
		--target sm_90a --emit ptx -o "$tmp/g.ptx"
	nbar=$(grep -c "bar\.sync\|barrier\.sync" "$tmp/g.ptx")
	[ "$nbar" -le 9 ] || fail "gather_dot: $nbar barriers in the PTX (expected at most 9)"
fi
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "gather_dot: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(2)
np.save(d + "/q.npy", (r.integers(-8, 9, (16, 64)) / 8).astype(np.float16))
np.save(d + "/kb.npy", (r.integers(-8, 9, (150, 64)) / 8).astype(np.float16))
np.save(d + "/idx.npy", r.permutation(150)[:100].astype(np.int64))
np.save(d + "/o.npy", np.zeros((16, 32), np.float32))
P
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/gather.tile" gather_dot --grid 1 --target $target \
			--num-stages 2 --out-dir "$tmp/res" q_ptr=@"$tmp/q.npy" k_ptr=@"$tmp/kb.npy" \
			idx_ptr=@"$tmp/idx.npy" o_ptr=@"$tmp/o.npy" n=100 stride_k=64 D=64 BN=32
		"$py" - "$tmp" <<'P' || fail "gather_dot: wrong results on $target"
import sys, numpy as np
d = sys.argv[1]
q, kb = np.load(d + "/q.npy").astype(np.float64), np.load(d + "/kb.npy").astype(np.float64)
idx = np.load(d + "/idx.npy")
want = np.zeros((16, 32))
for s in range(0, 100, 32):
    loc = idx[s:s + 32]
    want[:, :len(loc)] += q @ kb[loc].T
got = np.load(d + "/res/o_ptr.npy")
if not np.array_equal(got, want):
    print("max err", np.abs(got - want).max())
    sys.exit(1)
P
	done
fi

# ---- 3. an unrolled K loop with a row norm beside the dot ----------------------
# Liger's _mhc_mm_norm_fwd: x @ w over a static_range of K blocks, and the
# sum of x's squares for an RMS norm. The unrolled `acc += tl.dot` chain was
# folded in reverse (each block's operands live until the last dot,
# sema_cleanup.c), and the squares and their reduction sank to the sum's
# use after the last dot, keeping every x block live (tp_sched.c): 680 B of
# spills at K=2048, 5.7 KB at 4096.
cat >"$tmp/rms.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def mm_rms(x_ptr, w_ptr, out_ptr, N, K: tl.constexpr, M: tl.constexpr,
           BN: tl.constexpr, BK: tl.constexpr, BM: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.arange(0, BM)
    acc = tl.zeros((BN, BM), dtype=tl.float32)
    ss = tl.zeros((BN,), dtype=tl.float32)
    for k0 in tl.static_range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rn[:, None] * K + rk[None, :], mask=rn[:, None] < N, other=0.0)
        xf = x.to(tl.float32)
        ss += tl.sum(xf * xf, axis=1)
        w = tl.load(w_ptr + rk[:, None] * M + rm[None, :], mask=rm[None, :] < M, other=0.0)
        acc += tl.dot(x, w)
    out = acc * tl.rsqrt(ss / K + 1e-6)[:, None]
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], out, mask=(rn[:, None] < N) & (rm[None, :] < M))
K
rms_sig='*bf16:16,*bf16:16,*fp32:16,i32,2048,24,32,256,32'
# the dots in program order: each one's A operand defined after the previous one's
expect 0 $TILE compile "$tmp/rms.tile" mm_rms --signature "$rms_sig" --target sm_90a --emit tir
awk '/ = dot /{a = $4; sub(/%/, "", a); sub(/,/, "", a); if (a + 0 < prev) bad = 1; prev = a + 0}
     END {exit bad}' "$tmp/out" || fail "mm_rms: the dots are chained in reverse"
# the first block's squares are reduced before the first mma, not after the last
expect 0 $TILE compile "$tmp/rms.tile" mm_rms --signature "$rms_sig" --target sm_90a --emit thread
awk '/ = mma /{if (!mma) mma = NR} / = shfl_xor /{if (!shfl) shfl = NR} END {exit !(shfl && shfl < mma)}' \
	"$tmp/out" || fail "mm_rms: the row sum of squares is computed after the dots"
no_spills mm_rms "$tmp/rms.tile" mm_rms --signature "$rms_sig"
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "mm_rms: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(3)
x = (r.integers(-8, 9, (40, 1024)) / 8).astype(np.float32)
w = (r.integers(-8, 9, (1024, 24)) / 8).astype(np.float32)
bf16 = lambda a: (a.view(np.uint32) >> 16).astype(np.uint16)  # eighths: exact
np.save(d + "/x.npy", bf16(x)); np.save(d + "/w.npy", bf16(w))
np.save(d + "/o.npy", np.zeros((40, 24), np.float32))
P
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/rms.tile" mm_rms --grid 2 --target $target \
			--out-dir "$tmp/res" x_ptr=@"$tmp/x.npy:bf16" w_ptr=@"$tmp/w.npy:bf16" \
			out_ptr=@"$tmp/o.npy" N=40 K=1024 M=24 BN=32 BK=256 BM=32
		"$py" - "$tmp" <<'P' || fail "mm_rms: wrong results on $target"
import sys, numpy as np
d = sys.argv[1]
f32 = lambda a: (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
x, w = f32(np.load(d + "/x.npy")), f32(np.load(d + "/w.npy"))
want = (x @ w) / np.sqrt((x * x).sum(1) / 1024 + 1e-6)[:, None]
got = np.load(d + "/res/out_ptr.npy")
if not np.allclose(got, want, rtol=1e-5, atol=1e-5):
    print("max err", np.abs(got - want).max())
    sys.exit(1)
P
	done
fi

# ---- 4. a big loop-invariant dot operand held in registers --------------------
# sglang's grouped MLA decode: q (16 heads x 512) is loaded before the loop
# over KV blocks and is the A operand of every iteration's q @ k^T. It was
# converted to the mma operand layout in front of the loop and its registers
# carried through it, replicated on all 4 warps: 128 registers a thread
# (255 registers, 120 B of spills). It is written once to shared memory in
# front of the loop and read with ldmatrix at the dot (hold_smem.c), as
# Triton does: 192 registers, no spills.
cat >"$tmp/mla.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def mla_decode(q_ptr, kv_ptr, o_ptr, n, stride_kv, D: tl.constexpr, BN: tl.constexpr):
    rh = tl.arange(0, 16)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rh[:, None] * D + rd[None, :])
    m_i = tl.full((16,), float("-inf"), tl.float32)
    l_i = tl.zeros((16,), tl.float32)
    acc = tl.zeros((16, D), tl.float32)
    for start in range(0, n, BN):
        rn = start + tl.arange(0, BN)
        kt = tl.load(kv_ptr + rn[None, :] * stride_kv + rd[:, None], mask=rn[None, :] < n, other=0.0)
        s = tl.where(rn[None, :] < n, tl.dot(q, kt), float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(kv_ptr + rn[:, None] * stride_kv + rd[None, :], mask=rn[:, None] < n, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(o_ptr + rh[:, None] * D + rd[None, :], acc / l_i[:, None])
K
mla_sig='*bf16:16,*bf16:16,*fp32:16,i32,i32:16,512,32'
expect 0 $TILE compile "$tmp/mla.tile" mla_decode --signature "$mla_sig" --num-stages 2 --target sm_90a \
	--emit layout
grep -q "local_store .*{buf=" "$tmp/out" && grep -q "for .*holds_bufs" "$tmp/out" ||
	fail "mla_decode: q is carried through the loop in registers"
# TILE_HOLD_SMEM=0 (for measuring) keeps it in registers, as before
expect 0 env TILE_HOLD_SMEM=0 $TILE compile "$tmp/mla.tile" mla_decode --signature "$mla_sig" --num-stages 2 \
	--target sm_90a --emit layout
grep -q "local_store" "$tmp/out" && fail "TILE_HOLD_SMEM=0: q still held in shared memory"
no_spills mla_decode "$tmp/mla.tile" mla_decode --signature "$mla_sig" --num-stages 2
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "mla_decode: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(4)
bf16 = lambda a: (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # eighths: exact
np.save(d + "/q.npy", bf16(r.integers(-8, 9, (16, 512)) / 8))
np.save(d + "/kv.npy", bf16(r.integers(-8, 9, (40, 512)) / 8))
np.save(d + "/o.npy", np.zeros((16, 512), np.float32))
P
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/mla.tile" mla_decode --grid 1 --target $target \
			--num-stages 2 --out-dir "$tmp/res" q_ptr=@"$tmp/q.npy:bf16" kv_ptr=@"$tmp/kv.npy:bf16" \
			o_ptr=@"$tmp/o.npy" n=40 stride_kv=512 D=512 BN=32
		"$py" - "$tmp" <<'P' || fail "mla_decode: wrong results on $target"
import sys, numpy as np
d = sys.argv[1]
f32 = lambda a: (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
q, kv = f32(np.load(d + "/q.npy")), f32(np.load(d + "/kv.npy"))
s = q @ kv.T  # exact in fp32
p = np.exp(s - s.max(1, keepdims=True))
want = p @ kv / p.sum(1, keepdims=True)
got = np.load(d + "/res/o_ptr.npy")
if not np.allclose(got, want, rtol=2e-2, atol=2e-2):  # p is rounded to bf16
    print("max err", np.abs(got - want).max())
    sys.exit(1)
P
	done
fi

# ---- 5. pipelined K and V fragments read before a barrier of the prefetch ------
# kernels/paged_attention.tile: the K and V copies of a later iteration are
# addressed through indices converted through shared memory (a barrier).
# The pipelined loads were read at the top of the body, before it, so
# tp_sched.c could not sink their ldmatrix reads to the mmas: all of K's and
# V's fragments were live at the first mma (64x64 d128 over 4 warps: 24 B
# of spills; 128x64 d128: 992 B). They are read where the loads stood.
pa_sig='*fp16:16,*fp16:16,*fp16:16,*i32:16,*fp16:16,i32,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,128,64,64'
expect 0 $TILE compile kernels/paged_attention.tile paged_attention_kernel --signature "$pa_sig" \
	--num-stages 3 --target sm_90a --emit thread
# in the loop, the ldmatrix reads before its first mma: one k step's, not all of K's (32)
n=$(awk '/= for /{inl = 1} inl && / = mma /{exit} inl && / = ldmatrix /{n++} END {print n + 0}' "$tmp/out")
[ "$n" -le 4 ] || fail "paged_attention: $n ldmatrix reads before the loop's first mma (expected at most 4)"
no_spills paged_attention kernels/paged_attention.tile paged_attention_kernel --signature "$pa_sig" \
	--num-stages 3

# ---- 6. a held operand where ptxas spills more than with it in registers -------
# hold_smem.c holds paged attention's Q (128x32 blocks, d128, 4 warps, 4 stages)
# in shared memory: 40 B of spills at 255 registers and 96 KiB; in registers
# 32 B and 64 KiB. Where the cubin spills, the kernel is compiled again
# without the held operand (and without the prefetch) and the program that
# spills less is kept (compile.c, try_variants): never more than
# TILE_HOLD_SMEM=0 gives, the cached cubin the kept one, and --emit thread
# the program kept. The CPU targets have no ptxas and weigh nothing.
if [ $have_nvrtc = 1 ]; then
	pa_sig='*fp16:16,*fp16:16,*fp16:16,*i32:16,*fp16:16,i32,fp32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,128,128,32'
	# pa HOLD ARGS...: compiles it, TILE_HOLD_SMEM=HOLD
	pa() {
		h=$1
		shift
		env TILE_HOLD_SMEM=$h $TILE compile kernels/paged_attention.tile paged_attention_kernel \
			--signature "$pa_sig" --num-warps 4 --num-stages 4 --target sm_90a "$@"
	}
	# SMEM SPILLS of the kernel `tile compile` reported in $tmp/out
	usage() { sed -n 's/.* \([0-9]*\) bytes of shared memory, [0-9]* registers, \([0-9]*\) bytes spilled.*/\1 \2/p' "$tmp/out"; }
	expect 0 pa 0
	set -- $(usage)
	expect 0 pa 1
	set -- "$@" $(usage)
	[ $# = 4 ] || fail "paged_attention 128x32 d128: no usage reported"
	[ "$4" -lt "$2" ] || { [ "$4" = "$2" ] && [ "$3" -le "$1" ]; } ||
		fail "paged_attention 128x32 d128: $4 B of spills in $3 B of shared memory; $2 B in $1 with TILE_HOLD_SMEM=0"
	kept="$3 $4"
	expect 0 pa 1
	grep -q "(cached)" "$tmp/out" || fail "paged_attention 128x32 d128: not from the cache the second time"
	[ "$(usage)" = "$kept" ] || fail "paged_attention 128x32 d128: the cached kernel differs ($(usage) vs $kept)"
	expect 0 pa 1 --emit thread
	grep -q "^thread_program .* smem=$3 {" "$tmp/out" ||
		fail "paged_attention 128x32 d128: --emit thread shows another program than the one kept ($3 B of shared memory)"
fi

# ---- 7. per-element addresses of an unvectorized load, live across a loop ------
# K and V rows at a stride not known to be a multiple of 16 are loaded one
# element at a time; each element's address was built from its register
# coordinate, lane/warp part | constant, which ptxas cannot see as a base
# plus a constant: one 64-bit address per element, live across the loop
# (128x128 d128 over 8 warps: 312 B of spills). With + (the bits are
# disjoint: the same values) ptxas folds the constants into the loads; the
# + form is weighed as a variant where the | form spills (compile.c
# try_variants, lw_coord). TILE_COORD_ADD=1 uses it from the start, so
# both forms run on the CPU targets.
cat >"$tmp/fa.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def fa(Q, K, V, O, N, stride_k, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(Q + rm[:, None] * D + rd[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    k_ptrs = K + rn[:, None] * stride_k + rd[None, :]
    v_ptrs = V + rn[:, None] * stride_k + rd[None, :]
    for s in range(0, N, BN):
        qk = tl.dot(q, tl.trans(tl.load(k_ptrs + s * stride_k)))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp2(qk - m_ij[:, None])
        alpha = tl.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc += tl.dot(p.to(tl.float16), tl.load(v_ptrs + s * stride_k))
        m_i = m_ij
    tl.store(O + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(tl.float16))
K
no_spills "fa (rows at stride i32)" "$tmp/fa.tile" fa --signature '*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16,i32,128,128,128' \
	--num-warps 8 --num-stages 1
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "fa: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(7)
np.save(d + "/q.npy", (r.integers(-4, 5, (64, 32)) / 8).astype(np.float16))
np.save(d + "/k.npy", (r.integers(-4, 5, (128, 40)) / 8).astype(np.float16))  # rows at stride 40
np.save(d + "/v.npy", (r.integers(-4, 5, (128, 40)) / 8).astype(np.float16))
np.save(d + "/o.npy", np.zeros((64, 32), np.float16))
P
	for add in 0 1; do
		for target in cpu cuda-emu; do
			rm -rf "$tmp/res"
			expect 0 env TILE_COORD_ADD=$add TILE_RACECHECK=1 $TILE run "$tmp/fa.tile" fa --grid 2 \
				--target $target --out-dir "$tmp/res" Q=@"$tmp/q.npy" K=@"$tmp/k.npy" V=@"$tmp/v.npy" \
				O=@"$tmp/o.npy" N=128 stride_k=40 D=32 BM=32 BN=32
			"$py" - "$tmp" <<'P' || fail "fa: wrong results on $target (TILE_COORD_ADD=$add)"
import sys, numpy as np
d = sys.argv[1]
q = np.load(d + "/q.npy").astype(np.float64)
k = np.load(d + "/k.npy").astype(np.float64)[:, :32]
v = np.load(d + "/v.npy").astype(np.float64)[:, :32]
s = q @ k.T
p = np.exp2(s - s.max(1, keepdims=True))
want = p @ v / p.sum(1, keepdims=True)
got = np.load(d + "/res/O.npy").astype(np.float64)
if not np.allclose(got, want, rtol=1e-2, atol=1e-2):  # p is rounded to fp16
    print("max err", np.abs(got - want).max())
    sys.exit(1)
P
			cp "$tmp/res/O.npy" "$tmp/o_${add}_$target.npy"
		done
	done
	for target in cpu cuda-emu; do
		cmp -s "$tmp/o_0_$target.npy" "$tmp/o_1_$target.npy" ||
			fail "fa: TILE_COORD_ADD=1 changed the results on $target"
	done
fi

# ---- 8. a local array that is not a spill --------------------------------------
# cosf/sinf keep their slow-path argument reduction in a local array (a 28-byte
# stack frame each): the cubin's frame is 56 bytes with no spill at all (aiter's
# RoPE kernels). The report and the spill-driven variant search count ptxas's
# spill stores, not the frame (emit_c.c, cubin_usage).
cat >"$tmp/trig.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def rot(x_ptr, f_ptr, y_ptr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    f = tl.load(f_ptr + i)
    y = tl.load(x_ptr + i) * tl.cos(f) + tl.sin(f)
    tl.store(y_ptr + i, y)
K
no_spills trig "$tmp/trig.tile" rot --signature '*fp32:16,*fp32:16,*fp32:16,256' --num-warps 4
if [ $have_nvrtc = 1 ] && [ $have_numpy = 1 ]; then
	"$py" -c "
import numpy as np
np.save('$tmp/tx.npy', np.linspace(-2, 2, 512).astype(np.float32))
np.save('$tmp/tf.npy', np.linspace(-1e4, 1e4, 512).astype(np.float32))
np.save('$tmp/ty.npy', np.zeros(512, np.float32))"
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/trig.tile" rot --grid 2 --target $target \
			--out-dir "$tmp/res" x_ptr=@"$tmp/tx.npy" f_ptr=@"$tmp/tf.npy" y_ptr=@"$tmp/ty.npy" BLOCK=256
		"$py" - "$tmp" <<'P' || fail "trig: wrong results on $target"
import sys, numpy as np
d = sys.argv[1]
x = np.load(d + "/tx.npy").astype(np.float64)
f = np.load(d + "/tf.npy").astype(np.float64)
got = np.load(d + "/res/y_ptr.npy").astype(np.float64)
if not np.allclose(got, x * np.cos(f) + np.sin(f), rtol=1e-5, atol=1e-5):
    sys.exit(1)
P
	done
fi

# ---- 9. no launch-bounds retry for a program that has every register ------------
# A cubin that spills is compiled again with __launch_bounds__(threads, 1)
# (emit_c.c, spill_retry), but one that already has 255 registers a thread
# cannot get more that way; past 128 bytes of spills (SMALL_SPILL_BYTES) it is
# not retried: 128 elements a thread of an elementwise kernel (408 bytes) took
# 3 ptxas runs (first, retry, the coordinates variant), now 2.
cat >"$tmp/ew.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def ew(x, y, out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    a = tl.load(x + o, mask=m)
    b = tl.load(y + o, mask=m)
    tl.store(out + o, tl.exp(a) * b + a, mask=m)
K
if [ $have_nvrtc = 1 ]; then
	expect 0 env TILE_CACHE_DIR="$tmp/ewcache" CUDA_CACHE_DISABLE=1 TILE_NVRTC_LOG=1 $TILE compile \
		"$tmp/ew.tile" ew --signature '*fp32,*fp32,*fp32,i32,4096' --num-warps 1 --target sm_90a
	first=$(grep -m1 "Used [0-9]* registers" "$tmp/err" | sed 's/.*Used \([0-9]*\) registers.*/\1/')
	spill1=$(grep -m1 "spill stores" "$tmp/err" | sed 's/.* \([0-9]*\) bytes spill stores.*/\1/')
	runs=$(grep -c "^tile: nvrtc" "$tmp/err")
	if [ "$first" != 255 ] || [ "${spill1:-0}" -le 128 ]; then
		echo "skip: ew at 128 elements a thread: ptxas's first cubin ($first registers, ${spill1:-0} bytes) is not the case"
	elif [ "$runs" -gt 2 ]; then
		fail "ew: a first cubin at 255 registers was compiled $runs times (expected 2: it and the coordinates variant)"
	fi
fi


# ---- 10. a conversion's reads held across its trailing barrier ------------------
# A store through a layout conversion reads the tile back out of shared
# memory; the barrier lowering put right after those reads (so the scratch
# can be written again) kept every value read live until the global stores
# after it (a 128x128 fp32 transposed store on 4 warps: 504 bytes of spills).
# tp_barrier.c sinks such a barrier past the ops that use the reads, and the
# reads then sink to their stores (tp_sched.c).
cat >"$tmp/trs.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def tr_store(x, y, out, M, N, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    m = (r < M) & (c < N)
    a = tl.load(x + r * N + c, mask=m)
    b = tl.load(y + r * N + c, mask=m)
    tl.store(out + c * M + r, a + b, mask=m)
    tl.store(out + M * N + c * M + r, a * b, mask=m)
K
trs_sig='*fp32:16,*fp32:16,*fp32:16,i32:16,i32:16,128,128'
expect 0 $TILE compile "$tmp/trs.tile" tr_store --signature "$trs_sig" --num-warps 4 --target sm_90a \
	--emit thread
# a store whose value a shared load read before the last barrier
held=$(awk '
/= smem_load / { split($0, f, " = "); n = split(f[1], res, ", ")
	for (k = 1; k <= n; k++) { v = res[k]; gsub(/[ :u]/, "", v); at[v] = ep } }
/^ *barrier/ { ep++ }
/^ *store / { s = $0; sub(/^ *store [0-9]+ /, "", s); n = split(s, ops, ", ")
	for (k = 3; k <= n; k++) { v = ops[k]; sub(/ .*/, "", v)
		if ((v in at) && at[v] != ep) { print; exit } } }' "$tmp/out")
[ -z "$held" ] || fail "tr_store: a value read from shared memory is held across a barrier to its store:$held"
grep -q "smem_load" "$tmp/out" || fail "tr_store: no conversion through shared memory (the case is gone)"
no_spills tr_store "$tmp/trs.tile" tr_store --signature "$trs_sig" --num-warps 4
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "tr_store: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(10)
np.save(d + "/x.npy", r.standard_normal((100, 120)).astype(np.float32))
np.save(d + "/y.npy", r.standard_normal((100, 120)).astype(np.float32))
np.save(d + "/o.npy", np.full(2 * 100 * 120, 7, np.float32))
P
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/trs.tile" tr_store --grid 1 --target $target \
			--num-warps 4 --out-dir "$tmp/res" x=@"$tmp/x.npy" y=@"$tmp/y.npy" out=@"$tmp/o.npy" \
			M=100 N=120 BM=128 BN=128
		"$py" - "$tmp" <<'P' || fail "tr_store: wrong results on $target"
import sys, numpy as np
d = sys.argv[1]
x, y = np.load(d + "/x.npy"), np.load(d + "/y.npy")
o = np.load(d + "/res/out.npy")
want = np.concatenate([(x + y).T.ravel(), (x * y).T.ravel()])
sys.exit(0 if np.array_equal(o, want) else 1)
P
	done
fi


# ---- 11. a scan's prefixes sunk past its shuffles ----------------------------------
# A scan over lane bits merges each step's partner total into the block's
# prefix F and total T (lower_scan.c, merge). With F's merge emitted first,
# the partner's last use was T's merge, so tp_sched.c saw nothing extended
# by sinking F's merge and moved every one down to the stores: each step's
# partner total stayed live to the end (FlagGems' row cumsum, 8192 fp32 a
# tile: 200 bytes of spills on 8 warps, 592 on 4). T's merge comes first now.
cat >"$tmp/rs.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def row_scan(x_ptr, out_ptr, N, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    prefix = tl.zeros([], dtype=tl.float32)
    for start in range(0, N, TILE):
        offsets = start + tl.arange(0, TILE)
        mask = offsets < N
        x = tl.load(x_ptr + row * N + offsets, mask=mask).to(tl.float32)
        tl.store(out_ptr + row * N + offsets, prefix + tl.cumsum(x, 0), mask=mask)
        prefix += tl.sum(x, 0)
K
for w in 4 8; do
	no_spills "row_scan 8192 w$w" "$tmp/rs.tile" row_scan --signature '*fp32:16,*fp32:16,i32,8192' --num-warps $w
done
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "row_scan: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(11)
np.save(d + "/rx.npy", r.integers(-8, 9, (3, 5000)).astype(np.float32))
np.save(d + "/ro.npy", np.zeros((3, 5000), np.float32))
P
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/rs.tile" row_scan --grid 3 --target $target \
			--num-warps 4 --out-dir "$tmp/res" x_ptr=@"$tmp/rx.npy" out_ptr=@"$tmp/ro.npy" N=5000 TILE=2048
		"$py" - "$tmp" <<'P' || fail "row_scan: wrong results on $target"
import sys, numpy as np
d = sys.argv[1]
x = np.load(d + "/rx.npy")
sys.exit(0 if np.array_equal(np.load(d + "/res/out_ptr.npy"), np.cumsum(x, 1)) else 1)
P
	done
fi

# ---- 12. a reduction of a tile built from broadcasts ------------------------------
# `tl.sum(ids[:, None] == cols[None, :], axis=0)` counts ids per column. No
# load or dot of the 2-D shape anchors its layout: the broadcasts kept the
# loaded ids' layout (lanes along the reduced axis, the new axis in
# registers), so each thread held a whole row and the sum crossed lanes
# (kernel-hyperdrive's contiguous_count: 64 x 512 on 4 warps 840 bytes of
# spills, 1024 x 256 on 8 warps 2584 bytes and a 37 s compile). The
# reduction now asks for the default blocked layout, as Triton has it
# (assign.c, want_reduce_blocked): none, and the sum is in registers.
cat >"$tmp/cnt.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def count_ids(ids_ptr, out_ptr, n, C, BLOCK: tl.constexpr, COLS: tl.constexpr):
    cols = tl.arange(0, COLS)
    acc = tl.zeros((COLS,), dtype=tl.int32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        ids = tl.load(ids_ptr + offs, mask=offs < n, other=-1)
        acc += tl.sum((ids[:, None] == cols[None, :]).to(tl.int32), axis=0)
    tl.store(out_ptr + cols, acc, mask=cols < C)
K
no_spills "count_ids 64x512 w4" "$tmp/cnt.tile" count_ids --signature '*i64:16,*i32:16,i32,i32,64,512' --num-warps 4
no_spills "count_ids 1024x256 w8" "$tmp/cnt.tile" count_ids --signature '*i64:16,*i32:16,i32,i32,1024,256' --num-warps 8
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "count_ids: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(12)
np.save(d + "/ci.npy", r.integers(0, 200, 3000).astype(np.int64))
np.save(d + "/co.npy", np.zeros(200, np.int32))
P
	for target in cpu cuda-emu; do
		for w in 2 8; do
			rm -rf "$tmp/res"
			expect 0 env TILE_RACECHECK=1 $TILE run "$tmp/cnt.tile" count_ids --grid 1 --target $target \
				--num-warps $w --out-dir "$tmp/res" ids_ptr=@"$tmp/ci.npy" out_ptr=@"$tmp/co.npy" \
				n=3000 C=200 BLOCK=128 COLS=256
			"$py" - "$tmp" <<'P' || fail "count_ids: wrong counts on $target w$w"
import sys, numpy as np
d = sys.argv[1]
want = np.bincount(np.load(d + "/ci.npy"), minlength=200)
sys.exit(0 if np.array_equal(np.load(d + "/res/out_ptr.npy"), want) else 1)
P
		done
	done
fi

# ---- 13. invariant reductions hoisted out of a loop --------------------------------
# Reductions, scans and dots a loop does not change move in front of it, as
# Triton's LICM moves them (ir/tir_licm.c): in the loop each is a round of
# shuffles and shared memory with barriers every iteration. Hoisted, their
# results stay live across the loop: Megatron's unpermute-add picks each
# token's k-th expert row by `tl.sum(tl.where(sel, idx, 0), axis=1)` in its
# hidden-dimension loop, 16 row ids a thread for each of 8 experts, and the
# hoisted program spills about 450 bytes where the loop's spills 16. Where the
# cubin spills, driver/compile.c compiles the kernel again without hoisting
# and keeps the program that spills less.
cat >"$tmp/gsum.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def gather_sum(src_ptr, map_ptr, out_ptr, T, H, E, E_P2: tl.constexpr, TOPK: tl.constexpr,
               BT: tl.constexpr, BH: tl.constexpr):
    rows = tl.program_id(0) * BT + tl.arange(0, BT)
    rmask = rows < T
    cols = tl.arange(0, E_P2)
    m2 = rmask[:, None] & (cols[None, :] < E)
    idx = tl.load(map_ptr + rows[:, None] * E + cols[None, :], mask=m2, other=-1)
    act = idx >= 0
    rank = tl.cumsum(act.to(tl.int32), axis=1) - 1
    for h0 in range(0, H, BH):
        offs = h0 + tl.arange(0, BH)
        hm = offs < H
        acc = tl.zeros([BT, BH], dtype=tl.float32)
        for k in tl.static_range(TOPK):
            sel = act & (rank == k)
            r = tl.sum(tl.where(sel, idx, 0), axis=1)
            has = tl.sum(sel.to(tl.int32), axis=1) > 0
            v = tl.load(src_ptr + r[:, None].to(tl.int64) * H + offs[None, :],
                        mask=has[:, None] & hm[None, :], other=0.0)
            acc += v
        tl.store(out_ptr + rows[:, None].to(tl.int64) * H + offs[None, :], acc,
                 mask=rmask[:, None] & hm[None, :])
K
gsum_sig='*fp32:16,*i32:16,*fp32:16,i32,i32,i32,64,8,16,256'
# the sums (16 of them) are in front of the loop, and stay in it with TILE_HOIST=0
loop_line() { grep -n "^  for " "$tmp/out" | head -n 1 | cut -d: -f1; }
first_reduce() { grep -n "= reduce " "$tmp/out" | head -n 1 | cut -d: -f1; }
expect 0 $TILE compile "$tmp/gsum.tile" gather_sum --signature "$gsum_sig" --emit tir
[ "$(first_reduce)" -lt "$(loop_line)" ] || fail "gather_sum: the loop's sums were not hoisted"
expect 0 env TILE_HOIST=0 $TILE compile "$tmp/gsum.tile" gather_sum --signature "$gsum_sig" --emit tir
[ "$(first_reduce)" -gt "$(loop_line)" ] || fail "gather_sum: TILE_HOIST=0 hoisted the sums"
if [ $have_nvrtc = 1 ]; then
	expect 0 env TILE_CACHE_DIR="$tmp/gcache" TILE_NVRTC_LOG=1 $TILE compile "$tmp/gsum.tile" gather_sum \
		--signature "$gsum_sig" --num-warps 4 --target sm_90a
	spill1=$(grep -m1 "spill stores" "$tmp/err" | sed 's/.* \([0-9]*\) bytes spill stores.*/\1/')
	s=$(spilled)
	if [ "${spill1:-0}" -le 128 ]; then
		echo "skip: gather_sum: the hoisted program spills ${spill1:-0} bytes: not the case"
	elif [ "$s" -ge "$spill1" ]; then
		fail "gather_sum: $s bytes spilled, as many as the hoisted program's $spill1 (the variant without hoisting was not kept)"
	fi
fi
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "gather_sum: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(13)
T, E, k, H = 37, 50, 6, 300
mp = -np.ones((T, E), np.int32)
n = 0
for t in range(T - 3):
    for e in np.sort(r.choice(E, k, replace=False)):
        mp[t, e] = n
        n += 1
src = r.standard_normal((n, H)).astype(np.float32)
want = np.zeros((T, H), np.float32)
for t in range(T):
    for e in range(E):
        if mp[t, e] >= 0:
            want[t] += src[mp[t, e]]
np.save(d + "/gs_src.npy", src)
np.save(d + "/gs_map.npy", mp)
np.save(d + "/gs_out.npy", np.zeros((T, H), np.float32))
np.save(d + "/gs_want.npy", want)
P
	for target in cpu cuda-emu; do
		for hoist in 1 0; do
			rm -rf "$tmp/res"
			expect 0 env TILE_RACECHECK=1 TILE_HOIST=$hoist $TILE run "$tmp/gsum.tile" gather_sum --grid 3 \
				--target $target --num-warps 4 --out-dir "$tmp/res" src_ptr=@"$tmp/gs_src.npy" \
				map_ptr=@"$tmp/gs_map.npy" out_ptr=@"$tmp/gs_out.npy" T=37 H=300 E=50 E_P2=64 TOPK=8 \
				BT=16 BH=128
			"$py" - "$tmp" <<'P' || fail "gather_sum: wrong sums on $target (TILE_HOIST=$hoist)"
import sys, numpy as np
d = sys.argv[1]
got, want = np.load(d + "/res/out_ptr.npy"), np.load(d + "/gs_want.npy")
sys.exit(0 if np.allclose(got, want, rtol=1e-5, atol=1e-5) else 1)
P
		done
	done
fi

# ---- 14. pointer tiles carried by a loop, with strides not multiples of 16 ----------
# `a_ptrs += BK` carried one 64-bit pointer per element: with strides Triton's
# launcher does not mark :16 the loads are one element each (no cp.async), so
# a 64x128x64 fp16 GEMM over 4 warps carried 96 of them beside its 64-float
# accumulator (712 bytes of spills; dion's ns_line_2 1128, LightX2V's fp8
# GEMM with K = 200 1504). The wide_addr variant (layout/ptr_iters.c) carries
# the scalar base instead, rebuilds the tile as base + 32-bit offsets in the
# body, and prints pointer + offset as one mad.wide.s32 that NVVM cannot hoist
# as a 64-bit value per element; driver/compile.c keeps it where it spills less.
cat >"$tmp/mmt.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def mm_unaligned(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = (tl.program_id(0) * BM + tl.arange(0, BM)) % M
    rn = (tl.program_id(1) * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK
    cm = tl.program_id(0) * BM + tl.arange(0, BM)
    cn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (cm[:, None] < M) & (cn[None, :] < N)
    tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :], acc.to(tl.float16), mask=mask)
K
mmt_sig='*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32,i32,i32,64,128,64'
# the cause: the loop carries the scalar bases, not the tiles
expect 0 env TILE_WIDE_ADDR=1 $TILE compile "$tmp/mmt.tile" mm_unaligned --signature "$mmt_sig" \
	--num-warps 4 --num-stages 4 --emit layout
grep ' = for ' "$tmp/out" | grep -q ', \*fp16, \*fp16 {$' ||
	fail "mm_unaligned: the loop still carries pointer tiles with TILE_WIDE_ADDR=1"
if [ $have_nvrtc = 1 ]; then
	expect 0 env TILE_CACHE_DIR="$tmp/mmtcache" CUDA_CACHE_DISABLE=1 TILE_NVRTC_LOG=1 TILE_COMPILE_THREADS=2 \
		$TILE compile "$tmp/mmt.tile" mm_unaligned --signature "$mmt_sig" --num-warps 4 --num-stages 4 \
		--target sm_90a
	s=$(spilled)
	[ -n "$s" ] && [ "$s" -le 64 ] || fail "mm_unaligned 64x128x64 w4 s4: $s bytes spilled on sm_90a (712 before)"
	# The search weighs hoisting where turning it off changes no CUDA C (with
	# the prefetch off, and alone), and comes back to a set it weighed (the
	# prefetch off on top of kept wide addresses): 10 nvrtc runs, 3 of them
	# the same source again and one the same set. Each source is compiled
	# once (jit/nvrtc_memo.c) and each set weighed once (Compilation.tried).
	runs=$(grep -c '^tile: nvrtc ' "$tmp/err")
	reused=$(grep -c '^tile: nvrtc .*: reused)' "$tmp/err")
	[ "$reused" -ge 1 ] || fail "mm_unaligned: no nvrtc run reused from the memo ($runs runs)"
	[ "$runs" -le 10 ] || fail "mm_unaligned: $runs nvrtc runs (a set of choices weighed twice?)"
	# the first two one-choice variants (coordinates as +, no prefetch) are
	# compiled ahead on threads of their own while the search waits
	ahead=$(grep -c '^tile: nvrtc .*(compiled ahead on another thread)' "$tmp/err")
	[ "$ahead" -ge 2 ] || fail "mm_unaligned: $ahead variants compiled ahead (expected 2 with TILE_COMPILE_THREADS=2)"
	expect 0 env TILE_WIDE_ADDR=1 $TILE compile "$tmp/mmt.tile" mm_unaligned --signature "$mmt_sig" \
		--num-warps 4 --num-stages 4 --target sm_90a --emit cuda
	grep -q 'mad.wide.s32' "$tmp/out" || fail "mm_unaligned: no mad.wide.s32 address with TILE_WIDE_ADDR=1"
fi
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "mm_unaligned: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
r = np.random.default_rng(13)
np.save(d + "/ma.npy", r.integers(-3, 4, (70, 75)).astype(np.float16))
np.save(d + "/mb.npy", r.integers(-3, 4, (130, 75)).astype(np.float16))
np.save(d + "/mc.npy", np.zeros((70, 130), np.float16))
P
	for target in cpu cuda-emu; do
		for wide in 0 1; do
			rm -rf "$tmp/res"
			expect 0 env TILE_RACECHECK=1 TILE_WIDE_ADDR=$wide $TILE run "$tmp/mmt.tile" mm_unaligned --grid 2,2 \
				--target $target --num-warps 4 --num-stages 4 --out-dir "$tmp/res" a_ptr=@"$tmp/ma.npy" \
				b_ptr=@"$tmp/mb.npy" c_ptr=@"$tmp/mc.npy" M=70 N=130 K=75 stride_am=75 stride_bn=75 \
				stride_cm=130 BM=64 BN=128 BK=64
			"$py" - "$tmp" <<'P' || fail "mm_unaligned: wrong results on $target, TILE_WIDE_ADDR=$wide"
import sys, numpy as np
d = sys.argv[1]
want = np.load(d + "/ma.npy").astype(np.float64) @ np.load(d + "/mb.npy").astype(np.float64).T
sys.exit(0 if np.array_equal(np.load(d + "/res/c_ptr.npy").astype(np.float64), want) else 1)
P
		done
	done
fi

# nested loops (the inner one starts from the outer's rebuilt tile) and the
# loop's final pointer tile used after it
cat >"$tmp/nest.tile" <<'K'
import triton
import triton.language as tl


@triton.jit
def nest(x_ptr, y_ptr, n_outer, n_inner, stride, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.arange(0, BR)
    c = tl.arange(0, BC)
    p = x_ptr + r[:, None] * stride + c[None, :]
    acc = tl.zeros((BR, BC), dtype=tl.float32)
    for i in range(0, n_outer):
        pp = p
        for j in range(0, n_inner):
            acc += tl.load(pp)
            pp += BC
        p += stride * BR
    tl.store(y_ptr + r[:, None] * stride + c[None, :], acc + tl.load(p - stride * BR))
K
expect 0 env TILE_WIDE_ADDR=1 $TILE compile "$tmp/nest.tile" nest --signature '*fp32:16,*fp32:16,i32,i32,i32,8,16' \
	--emit layout
[ "$(grep ' = for ' "$tmp/out" | grep -c ', \*fp32 {$')" = 2 ] ||
	fail "nest: both loops should carry a scalar base with TILE_WIDE_ADDR=1"
if [ $have_numpy = 1 ]; then
	"$py" - "$tmp" <<'P' || fail "nest: could not write the inputs"
import sys, numpy as np
d = sys.argv[1]
np.save(d + "/nx.npy", np.arange(3 * 8 * 64 + 64, dtype=np.float32) % 97)
np.save(d + "/ny.npy", np.zeros((8, 64), np.float32))
P
	for target in cpu cuda-emu; do
		rm -rf "$tmp/res"
		expect 0 env TILE_RACECHECK=1 TILE_WIDE_ADDR=1 $TILE run "$tmp/nest.tile" nest --grid 1 --target $target \
			--out-dir "$tmp/res" x_ptr=@"$tmp/nx.npy" y_ptr=@"$tmp/ny.npy" n_outer=3 n_inner=4 stride=64 BR=8 BC=16
		"$py" - "$tmp" <<'P' || fail "nest: wrong results on $target with TILE_WIDE_ADDR=1"
import sys, numpy as np
d = sys.argv[1]
x = np.load(d + "/nx.npy").astype(np.float64)
rows, cols = np.arange(8)[:, None] * 64, np.arange(16)[None, :]
want = sum(x[i * 512 + rows + j * 16 + cols] for i in range(3) for j in range(4)) + x[2 * 512 + rows + cols]
sys.exit(0 if np.array_equal(np.load(d + "/res/y_ptr.npy")[:, :16], want) else 1)
P
	done
fi

finish
