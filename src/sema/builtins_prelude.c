/* builtins_prelude.c: builtins written in the kernel language itself, as
 * triton/language/random.py and standard.py are: Philox 4x32-10 (4x64-10
 * for 64-bit offsets) random
 * numbers with Triton's constants and output (randint, randint4x, rand,
 * rand4x, randn, randn4x), sigmoid, softmax, swizzle2d, sort, topk,
 * histogram, gather, standard.py's private helpers that kernels import
 * (_indicator, _take_slice, the reduction combine functions), and the
 * libdevice functions that are compositions
 * (erfinv, cyl_bessel_i0, brev, mulhi, byte_perm, ...). The prelude is parsed
 * once per sema run, on first use. */
#include <string.h>

#include "sema/sema_int.h"

static const char prelude_text[] =
    "import triton.language as tl\n"
    "\n"
    "def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = 10):\n"
    "    if c0.dtype == tl.uint32:\n"
    "        KEY_A = 0x9E3779B9\n"
    "        KEY_B = 0xBB67AE85\n"
    "        ROUND_A = 0xD2511F53\n"
    "        ROUND_B = 0xCD9E8D57\n"
    "    else:\n"
    "        tl.static_assert(c0.dtype == tl.uint64, \"dtype not supported in philox_impl\")\n"
    "        KEY_A = 0x9E3779B97F4A7C15\n"
    "        KEY_B = 0xBB67AE8584CAA73B\n"
    "        ROUND_A = 0xD2E7470EE14C6C93\n"
    "        ROUND_B = 0xCA5A826395121157\n"
    "    for _ in tl.static_range(n_rounds):\n"
    "        _c0, _c2 = c0, c2\n"
    "        c0 = tl.umulhi(ROUND_B, _c2) ^ c1 ^ k0\n"
    "        c2 = tl.umulhi(ROUND_A, _c0) ^ c3 ^ k1\n"
    "        c1 = ROUND_B * _c2\n"
    "        c3 = ROUND_A * _c0\n"
    "        k0 = k0 + KEY_A\n"
    "        k1 = k1 + KEY_B\n"
    "    return c0, c1, c2, c3\n"
    "\n"
    "def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = 10):\n"
    "    seed = tl.to_tensor(seed)\n"
    "    c0 = tl.to_tensor(c0)\n"
    "    c1 = tl.to_tensor(c1)\n"
    "    c2 = tl.to_tensor(c2)\n"
    "    c3 = tl.to_tensor(c3)\n"
    "    seed = seed.to(tl.uint64)\n"
    "    if c0.dtype.primitive_bitwidth == 32:\n"
    "        int_dtype = tl.uint32\n"
    "        seed_hi = ((seed >> 32) & 0xffffffff).to(tl.uint32)\n"
    "        seed_lo = (seed & 0xffffffff).to(tl.uint32)\n"
    "    else:\n"
    "        tl.static_assert(c0.dtype.primitive_bitwidth == 64, \"random offsets must be 32- or 64-bit integers\")\n"
    "        int_dtype = tl.uint64\n"
    "        seed_hi = tl.full((1,), 0, dtype=tl.uint64)\n"
    "        seed_lo = seed\n"
    "    c0 = c0.to(int_dtype, bitcast=True)\n"
    "    c1 = c1.to(int_dtype, bitcast=True)\n"
    "    c2 = c2.to(int_dtype, bitcast=True)\n"
    "    c3 = c3.to(int_dtype, bitcast=True)\n"
    "    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)\n"
    "\n"
    "def randint4x(seed, offset, n_rounds: tl.constexpr = 10):\n"
    "    _0 = offset * 0\n"
    "    return philox(seed, offset, _0, _0, _0, n_rounds)\n"
    "\n"
    "def randint(seed, offset, n_rounds: tl.constexpr = 10):\n"
    "    ret, _, _, _ = randint4x(seed, offset, n_rounds)\n"
    "    return ret\n"
    "\n"
    "def uint_to_uniform_float(x):\n"
    "    if x.dtype == tl.uint32 or x.dtype == tl.int32:\n"
    "        x = x.to(tl.int32, bitcast=True)\n"
    "        scale = 4.6566127342e-10\n"
    "    else:\n"
    "        tl.static_assert(x.dtype == tl.uint64 or x.dtype == tl.int64, \"uint_to_uniform_float takes 32- or 64-bit integers\")\n"
    "        x = x.to(tl.int64, bitcast=True)\n"
    "        scale = 1.0842020432385337e-19\n"
    "    x = tl.where(x < 0, -x - 1, x)\n"
    "    return x * scale\n"
    "\n"
    "def rand(seed, offset, n_rounds: tl.constexpr = 10):\n"
    "    return uint_to_uniform_float(randint(seed, offset, n_rounds))\n"
    "\n"
    "def rand4x(seed, offset, n_rounds: tl.constexpr = 10):\n"
    "    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)\n"
    "    return uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3), "
    "uint_to_uniform_float(i4)\n"
    "\n"
    "def pair_uniform_to_normal(u1, u2):\n"
    "    u1 = tl.maximum(1.0e-7, u1)\n"
    "    th = 6.283185307179586 * u2\n"
    "    r = tl.sqrt(-2.0 * tl.log(u1))\n"
    "    return r * tl.cos(th), r * tl.sin(th)\n"
    "\n"
    "def randn(seed, offset, n_rounds: tl.constexpr = 10):\n"
    "    i1, i2, _, _ = randint4x(seed, offset, n_rounds)\n"
    "    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))\n"
    "    return n1\n"
    "\n"
    "def randn4x(seed, offset, n_rounds: tl.constexpr = 10):\n"
    "    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)\n"
    "    n1, n2 = pair_uniform_to_normal(u1, u2)\n"
    "    n3, n4 = pair_uniform_to_normal(u3, u4)\n"
    "    return n1, n2, n3, n4\n"
    "\n"
    "# tl.math.*_f32x2: Blackwell's packed fp32 pair arithmetic, elementwise fp32 (round to nearest)\n"
    "def _f32x2_check(*xs):\n"
    "    for x in tl.static_range(len(xs)):\n"
    "        tl.static_assert(xs[x].dtype == tl.float32, \"the tl.math *_f32x2 functions take float32 tensors\")\n"
    "\n"
    "def mul_f32x2(a, b):\n"
    "    _f32x2_check(a, b)\n"
    "    return a * b\n"
    "\n"
    "def add_f32x2(a, b):\n"
    "    _f32x2_check(a, b)\n"
    "    return a + b\n"
    "\n"
    "def sub_f32x2(a, b):\n"
    "    _f32x2_check(a, b)\n"
    "    return a - b\n"
    "\n"
    "def fma_f32x2(a, b, c):\n"
    "    _f32x2_check(a, b, c)\n"
    "    return tl.fma(a, b, c)\n"
    "\n"
    "def sigmoid(x):\n"
    "    return 1 / (1 + tl.exp(-x))\n"
    "\n"
    "def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):\n"
    "    if dim is None:\n"
    "        _dim: tl.constexpr = 0\n"
    "    else:\n"
    "        _dim: tl.constexpr = dim\n"
    "    z = x - tl.max(x, _dim, keep_dims=keep_dims)\n"
    "    num = tl.exp(z)\n"
    "    den = tl.sum(num, _dim, keep_dims=keep_dims)\n"
    "    return tl.fdiv(num, den, ieee_rounding)\n"
    "\n"
    /* tl.extra.cuda's min/max.NaN.xorsign.abs.f32: the min/max of |a| and |b|, NaN if
     * either is, with the xor of the signs of a and b */
    "def _cuda_xorsign_abs(a, b, is_max: tl.constexpr):\n"
    "    tl.static_assert(a.dtype == tl.float32 and b.dtype == tl.float32, \"xorsign_abs_f32 takes float32\")\n"
    "    if is_max:\n"
    "        m = tl.maximum(tl.abs(a), tl.abs(b), propagate_nan=tl.PropagateNan.ALL)\n"
    "    else:\n"
    "        m = tl.minimum(tl.abs(a), tl.abs(b), propagate_nan=tl.PropagateNan.ALL)\n"
    "    sign = (a.to(tl.uint32, bitcast=True) ^ b.to(tl.uint32, bitcast=True)) & 0x80000000\n"
    "    return (m.to(tl.uint32, bitcast=True) | sign).to(tl.float32, bitcast=True)\n"
    "\n"
    "def _cuda_min_nan_xorsign_abs_f32(a, b):\n"
    "    return _cuda_xorsign_abs(a, b, False)\n"
    "\n"
    "def _cuda_max_nan_xorsign_abs_f32(a, b):\n"
    "    return _cuda_xorsign_abs(a, b, True)\n"
    "\n"
    "def swizzle2d(i, j, size_i, size_j, size_g):\n"
    "    ij = i * size_j + j\n"
    "    size_gj = size_g * size_j\n"
    "    group_id = ij // size_gj\n"
    "    off_i = group_id * size_g\n"
    "    size_g = tl.minimum(size_i - off_i, size_g)\n"
    "    ij = ij % size_gj\n"
    "    new_i = off_i + ij % size_g\n"
    "    new_j = ij // size_g\n"
    "    return new_i, new_j\n"
    "\n"
    /* tl.sort: a bitonic sorting network along the last dimension (a power of
     * two). Each compare-and-swap step views x as [outer, 2, inner], where the
     * middle axis pairs the elements whose index differs in one bit. Each
     * position gets its partner as x ^ (the xor over the pair), on the integer
     * bits so values, NaNs and -0.0 pass unchanged (one xor, or one shuffle
     * when lanes split the pair, where two masked sums took twice the code:
     * a 4096-element sort is 50k operations per thread), and takes it where
     * the pair is out of order for the step's direction. Both positions
     * compare (left > right), so a NaN pair stays as it is, never duplicated.
     * int1 tensors are sorted as int8 (their bits cannot be viewed as an
     * integer: "cannot bitcast int1 to int64" came from inside here). */
    "def _sort_bits(x):\n"
    "    bits: tl.constexpr = x.dtype.primitive_bitwidth\n"
    "    if bits == 8:\n"
    "        return x.to(tl.int8, bitcast=True)\n"
    "    elif bits == 16:\n"
    "        return x.to(tl.int16, bitcast=True)\n"
    "    elif bits == 32:\n"
    "        return x.to(tl.int32, bitcast=True)\n"
    "    else:\n"
    "        return x.to(tl.int64, bitcast=True)\n"
    "\n"
    "def _sort_step(x, flip, i: tl.constexpr, n_dims: tl.constexpr):\n"
    "    pairs: tl.constexpr = (x.numel >> n_dims) * (1 << i)\n"
    "    inner: tl.constexpr = 1 << (n_dims - i - 1)\n"
    "    ix = tl.reshape(_sort_bits(x), (pairs, 2, inner))\n"
    "    y = tl.reshape(ix ^ tl.xor_sum(ix, 1, keep_dims=True), x.shape).to(x.dtype, bitcast=True)\n"
    "    right = tl.reshape(tl.broadcast_to(tl.arange(0, 2)[None, :, None] == 1, (pairs, 2, inner)), x.shape)\n"
    "    swap = tl.where(right, y > x, x > y) != flip\n"
    "    return tl.where(swap, y, x)\n"
    "\n"
    "def _sort_merge(x, stage: tl.constexpr, order: tl.constexpr, n_dims: tl.constexpr):\n"
    "    if order == 2:\n"
    "        blocks: tl.constexpr = (x.numel >> n_dims) * (1 << (n_dims - 1 - stage))\n"
    "        up = tl.arange(0, 2)[None, :, None] == 1\n"
    "        flip = tl.reshape(tl.broadcast_to(up, (blocks, 2, 1 << stage)), x.shape)\n"
    "    else:\n"
    "        flip = order == 1\n"
    "    for i in tl.static_range(stage):\n"
    "        x = _sort_step(x, flip, i + (n_dims - stage), n_dims)\n"
    "    return x\n"
    "\n"
    /* tl.histogram: counts per bin as a one-hot sum (bins of width 1 from 0;
     * values outside [0, num_bins) count nowhere). N x num_bins work, where
     * Triton uses shared-memory atomics. The one-hot tile is at most 8192
     * elements: larger histograms (256 values into 1024 bins) run a loop over
     * chunks of bins, one row of a [num_bins / chunk, chunk] tile each, since one
     * N x num_bins tile unrolls into code that nvrtc took minutes and GBs on.
     * The mask is broadcast to the input's shape as Triton does: a [N, 1] one
     * made the counts [N, num_bins], stored silently through [N] pointers. */
    "def histogram(input, num_bins: tl.constexpr, mask=None):\n"
    "    tl.static_assert(len(input.shape) == 1, \"tl.histogram takes a 1-D tensor\")\n"
    "    tl.static_assert(input.dtype.is_int(), \"tl.histogram takes an integer tensor\")\n"
    "    tl.static_assert(num_bins > 0 and (num_bins & (num_bins - 1)) == 0,\n"
    "                     \"tl.histogram: num_bins must be a power of two (the result is a [num_bins] tensor)\")\n"
    "    if mask is not None:\n"
    "        mask = tl.broadcast_to(mask, input.shape)\n"
    "        tl.static_assert(mask.dtype == tl.int1, \"tl.histogram: the mask must be a boolean tensor\")\n"
    "    n: tl.constexpr = input.shape[0]\n"
    "    ch: tl.constexpr = num_bins if n * num_bins <= 8192 else (8192 // n if n < 8192 else 1)\n"
    "    if ch == num_bins:\n"
    "        hit = input[:, None] == tl.arange(0, num_bins)[None, :]\n"
    "        if mask is not None:\n"
    "            hit = hit & mask[:, None]\n"
    "        return tl.sum(hit.to(tl.int32), 0)\n"
    "    rows: tl.constexpr = num_bins // ch\n"
    "    acc = tl.zeros([rows, ch], tl.int32)\n"
    "    r = tl.arange(0, rows)[:, None]\n"
    "    for c in range(rows):\n"
    "        hit = input[:, None] == (c * ch + tl.arange(0, ch))[None, :]\n"
    "        if mask is not None:\n"
    "            hit = hit & mask[:, None]\n"
    "        acc = tl.where(r == c, tl.sum(hit.to(tl.int32), 0)[None, :], acc)\n"
    "    return tl.reshape(acc, [num_bins])\n"
    "\n"
    /* tl.gather(src, index, axis): out[..i..] = src with the axis coordinate
     * taken from index, as a one-hot sum over the source axis on the integer
     * bits (exact for every value). 1-D and 2-D; K x the output's work.
     * Lowering turns each one-hot sum into a shared-memory gather, but the
     * one-hot tile is still a tile: past Triton's 2^20 elements (1024
     * indices into 2048 entries), a loop takes the source a chunk of ch
     * entries at a time (a masked sum over the source seen as chunks) and
     * adds the gather from it; an index outside a chunk picks 0 there, so
     * each index picks once. The axis and the other dimension are checked as
     * Triton checks them (they failed inside here: "tuple index 2 out of
     * range", "shape mismatch: [4,4,16] vs [1,4,8]"). A bool tile is gathered
 * as int8, as Triton takes any element type (a bitonic network written with
 * tl.gather swaps its valid flags with their peers'). */
    "def _gather_one_hot(bits, index, ax: tl.constexpr):\n"
    "    k = tl.arange(0, bits.shape[ax])\n"
    "    if len(bits.shape) == 1:\n"
    "        return tl.sum(tl.where(index[:, None] == k[None, :], bits[None, :], 0), 1, dtype=bits.dtype)\n"
    "    elif ax == 0:\n"
    "        return tl.sum(tl.where(index[:, None, :] == k[None, :, None], bits[None, :, :], 0), 1, dtype=bits.dtype)\n"
    "    else:\n"
    "        return tl.sum(tl.where(index[:, :, None] == k[None, None, :], bits[:, None, :], 0), 2, dtype=bits.dtype)\n"
    "\n"
    "def gather(src, index, axis: tl.constexpr):\n"
    "    rank: tl.constexpr = len(src.shape)\n"
    "    tl.static_assert(rank == len(index.shape), \"tl.gather: src and index must have the same rank\")\n"
    "    tl.static_assert(rank <= 2, \"tl.gather supports 1-D and 2-D tensors\")\n"
    "    tl.static_assert(index.dtype.is_int(), \"tl.gather: the index must be an integer tensor\")\n"
    "    if src.dtype.primitive_bitwidth == 1:\n"
    "        return gather(src.to(tl.int8), index, axis) != 0\n"
    "    tl.static_assert(-rank <= axis and axis < rank, \"tl.gather: axis is out of range for the rank of src\")\n"
    "    ax: tl.constexpr = axis + rank if axis < 0 else axis\n"
    "    if rank == 2:\n"
    "        tl.static_assert(index.shape[1 - ax] == src.shape[1 - ax],\n"
    "                         \"tl.gather: index and src must have the same size in the dimension other than axis\")\n"
    "    bits = _sort_bits(src)\n"
    "    n: tl.constexpr = src.shape[ax]\n"
    "    if index.numel * n <= 1048576:\n"
    "        v = _gather_one_hot(bits, index, ax)\n"
    "    else:\n"
    "        big: tl.constexpr = index.numel if index.numel > src.numel else src.numel\n"
    "        ch: tl.constexpr = 1048576 // big\n"
    "        if rank == 1:\n"
    "            rows = tl.reshape(bits, (n // ch, ch))\n"
    "            at = tl.arange(0, n // ch)[:, None]\n"
    "        elif ax == 0:\n"
    "            rows = tl.reshape(bits, (n // ch, ch, src.shape[1]))\n"
    "            at = tl.arange(0, n // ch)[:, None, None]\n"
    "        else:\n"
    "            rows = tl.reshape(bits, (src.shape[0], n // ch, ch))\n"
    "            at = tl.arange(0, n // ch)[None, :, None]\n"
    "        v = tl.zeros(index.shape, bits.dtype)\n"
    "        for c in range(n // ch):\n"
    "            part = tl.sum(tl.where(at == c, rows, 0), 1 if rank == 2 and ax == 1 else 0, dtype=bits.dtype)\n"
    "            v += _gather_one_hot(part, index - c * ch, ax)\n"
    "    return v.to(bits.dtype).to(src.dtype, bitcast=True)\n"
    "\n"
    /* tl.topk: Triton's bitonic top-k. The first log2(k) stages of the sort
     * leave runs of k sorted in alternating directions; then each round takes
     * the larger of every element and the one k past it in its run of 2k
     * (those k are a bitonic sequence holding the run's k largest), halving
     * the tile, and merges the runs again. A 1024-element top-8 was a whole
     * sort (55 compare steps over 1024 elements, 5.9k operations per thread);
     * this is about 4 passes' work. The larger is taken on a compare
     * (a < b) as the sort's steps do, so values keep their bits. */
    "def _topk_max(a, b):\n"
    "    return tl.where(a < b, b, a)\n"
    "\n"
    "def topk(x, k: tl.constexpr, dim: tl.constexpr = None):\n"
    "    rank: tl.constexpr = len(x.shape)\n"
    "    n: tl.constexpr = x.shape[rank - 1]\n"
    "    out_shape: tl.constexpr = x.shape[:-1] + [k]\n"
    "    d: tl.constexpr = rank - 1 if dim is None else (dim + rank if dim < 0 else dim)\n"
    "    tl.static_assert(d == rank - 1, \"tl.topk works along the last dimension only\")\n"
    "    tl.static_assert(0 < k and k <= n and (k & (k - 1)) == 0, \"tl.topk: k must be a power of two <= the size\")\n"
    "    if x.dtype.primitive_bitwidth == 1:\n"
    "        return topk(x.to(tl.int8), k, dim) != 0\n"
    "    log_n: tl.constexpr = tl._log2(n)\n"
    "    log_k: tl.constexpr = tl._log2(k)\n"
    "    rows: tl.constexpr = x.numel // n\n"
    "    for i in tl.static_range(1, log_k + 1):\n"
    "        x = _sort_merge(x, i, 2 if i < log_n else 1, log_n)\n"
    "    for i in tl.static_range(log_k + 1, log_n + 1):\n"
    "        m: tl.constexpr = n >> (i - log_k)\n"
    "        x = tl.reshape(tl.reduce(tl.reshape(x, (rows, m // k, 2, k)), 2, _topk_max), (rows, m))\n"
    "        x = _sort_merge(x, log_k, 2 if i < log_n else 1, tl._log2(m))\n"
    "    return tl.reshape(x, out_shape)\n"
    "\n"
    "def sort(x, dim: tl.constexpr = None, descending: tl.constexpr = 0):\n"
    "    tl.static_assert(not x.dtype.is_ptr(), \"tl.sort sorts numbers, not pointers\")\n"
    "    last: tl.constexpr = len(x.shape) - 1\n"
    "    d: tl.constexpr = last if dim is None else (dim + len(x.shape) if dim < 0 else dim)\n"
    "    tl.static_assert(d == last, \"tl.sort sorts along the last dimension only\")\n"
    "    if x.dtype.primitive_bitwidth == 1:\n"
    "        return sort(x.to(tl.int8), dim, descending) != 0\n"
    "    n_dims: tl.constexpr = tl._log2(x.shape[last])\n"
    "    for i in tl.static_range(1, n_dims + 1):\n"
    "        x = _sort_merge(x, i, 2 if i < n_dims else descending, n_dims)\n"
    "    return x\n"
    "\n"
    /* tl.bitonic_merge: the last stage of the sort, a bitonic sequence (rising
     * then falling, or the reverse) merged into ascending or descending order */
    "def bitonic_merge(x, dim: tl.constexpr = None, descending: tl.constexpr = 0):\n"
    "    tl.static_assert(not x.dtype.is_ptr(), \"tl.bitonic_merge merges numbers, not pointers\")\n"
    "    last: tl.constexpr = len(x.shape) - 1\n"
    "    d: tl.constexpr = last if dim is None else (dim + len(x.shape) if dim < 0 else dim)\n"
    "    tl.static_assert(d == last, \"tl.bitonic_merge merges along the last dimension only\")\n"
    "    if x.dtype.primitive_bitwidth == 1:\n"
    "        return bitonic_merge(x.to(tl.int8), dim, descending) != 0\n"
    "    n_dims: tl.constexpr = tl._log2(x.shape[last])\n"
    "    return _sort_merge(x, n_dims, 1 if descending else 0, n_dims)\n"
    "\n"
    /* triton.language.standard's private helpers, which kernels import to
     * write their own sorts: both forms of _indicator (Triton <= 3.1:
     * (n_dims, idx, pos); later: (n_dims, j), pos 1), _take_slice (<= 3.1),
     * the constexpr queries and the combine functions of the reductions. */
    "def _indicator(n_dims: tl.constexpr, idx: tl.constexpr, pos: tl.constexpr = 1):\n"
    "    tl.static_assert(idx < n_dims, \"_indicator: idx must be below n_dims\")\n"
    "    tl.static_assert(pos == 0 or pos == 1, \"_indicator: pos must be 0 or 1\")\n"
    "    y = tl.arange(0, 2)\n"
    "    if pos == 0:\n"
    "        y = 1 - y\n"
    "    return tl.reshape(y, [1] * (n_dims - idx - 1) + [2] + [1] * idx)\n"
    "\n"
    "def _take_slice(x, n_dims: tl.constexpr, idx: tl.constexpr, pos: tl.constexpr, keep_dim: tl.constexpr = True):\n"
    "    y = tl.sum(x * _indicator(n_dims, idx, pos), n_dims - 1 - idx)\n"
    "    if keep_dim:\n"
    "        y = tl.expand_dims(y, n_dims - 1 - idx)\n"
    "    return y\n"
    "\n"
    "def _get_sort_dim(dim: tl.constexpr, shape: tl.constexpr):\n"
    "    last: tl.constexpr = len(shape) - 1\n"
    "    d: tl.constexpr = last if dim is None else (dim + len(shape) if dim < 0 else dim)\n"
    "    tl.static_assert(d == last, \"only sorting along the last dimension is supported\")\n"
    "    return d\n"
    "\n"
    "def _is_power_of_two(i: tl.constexpr):\n"
    "    return i != 0 and (i & (i - 1)) == 0\n"
    "\n"
    "def _unwrap_if_constexpr(o):\n"
    "    return o\n"
    "\n"
    /* core.py's promotions that reductions and scans apply first, and
     * kernels call to write their own (FlagGems' cummin): the hardware has no
     * bf16 max, min or compare, so bf16 becomes fp32 and every other dtype
     * passes through. _promote_reduction_input is Triton 2.2-2.3's name,
     * _promote_bfloat16_to_float32 Triton 3's. */
    "def _promote_bfloat16_to_float32(t):\n"
    "    if t.dtype == tl.bfloat16:\n"
    "        return t.to(tl.float32)\n"
    "    return t\n"
    "\n"
    "def _promote_reduction_input(t):\n"
    "    return _promote_bfloat16_to_float32(t)\n"
    "\n"
    "def _sum_combine(a, b):\n"
    "    return a + b\n"
    "\n"
    "def _prod_combine(a, b):\n"
    "    return a * b\n"
    "\n"
    "def _elementwise_max(a, b):\n"
    "    return tl.maximum(a, b)\n"
    "\n"
    "def _elementwise_min(a, b):\n"
    "    return tl.minimum(a, b)\n"
    "\n"
    "def _xor_combine(a, b):\n"
    "    return a ^ b\n"
    "\n"
    "def _or_combine(x, y):\n"
    "    return x | y\n"
    "\n"
    "def _argmax_combine(value1, index1, value2, index2, tie_break_left: tl.constexpr):\n"
    "    if tie_break_left:\n"
    "        tie = value1 == value2 and index1 < index2\n"
    "    else:\n"
    "        tie = False\n"
    "    gt = value1 > value2 or tie\n"
    "    return tl.where(gt, value1, value2), tl.where(gt, index1, index2)\n"
    "\n"
    "def _argmax_combine_tie_break_left(value1, index1, value2, index2):\n"
    "    return _argmax_combine(value1, index1, value2, index2, True)\n"
    "\n"
    "def _argmax_combine_tie_break_fast(value1, index1, value2, index2):\n"
    "    return _argmax_combine(value1, index1, value2, index2, False)\n"
    "\n"
    "def _argmin_combine(value1, index1, value2, index2, tie_break_left: tl.constexpr):\n"
    "    if tie_break_left:\n"
    "        tie = value1 == value2 and index1 < index2\n"
    "    else:\n"
    "        tie = False\n"
    "    lt = value1 < value2 or tie\n"
    "    return tl.where(lt, value1, value2), tl.where(lt, index1, index2)\n"
    "\n"
    "def _argmin_combine_tie_break_left(value1, index1, value2, index2):\n"
    "    return _argmin_combine(value1, index1, value2, index2, True)\n"
    "\n"
    "def _argmin_combine_tie_break_fast(value1, index1, value2, index2):\n"
    "    return _argmin_combine(value1, index1, value2, index2, False)\n"
    "\n"
    "# ---- libdevice functions without a single op (tl.extra.cuda.libdevice.*) ----\n"
    "\n"
    "def _add_rn(x, y):\n"
    "    return x + y\n"
    "\n"
    "def _sub_rn(x, y):\n"
    "    return x - y\n"
    "\n"
    "def _mul_rn(x, y):\n"
    "    return x * y\n"
    "\n"
    "def saturatef(x):\n"
    "    return tl.where(x > 0.0, tl.where(x < 1.0, x, 1.0), 0.0)\n"
    "\n"
    "def rcp64h(x):\n"
    "    return 1.0 / x\n"
    "\n"
    "def rcbrt(x):\n"
    "    return 1.0 / tl.math.cbrt(x)\n"
    "\n"
    "def rhypot(x, y):\n"
    "    return 1.0 / tl.math.hypot(x, y)\n"
    "\n"
    "# norm3d/norm4d were sqrt(a*a + b*b + ...): inf from 1.9e19 and 0 below 1e-23 in fp32 (the\n"
    "# squares overflow / underflow), where CUDA's scale. In fp64, each divided by the largest\n"
    "# magnitude; an infinite one gives inf even beside a NaN (as hypot)\n"
    "def _norm(a, b, c, d):\n"
    "    wa = tl.abs(tl.cast(a, tl.float64))\n"
    "    wb = tl.abs(tl.cast(b, tl.float64))\n"
    "    wc = tl.abs(tl.cast(c, tl.float64))\n"
    "    wd = tl.abs(tl.cast(d, tl.float64))\n"
    "    m = tl.maximum(tl.maximum(wa, wb), tl.maximum(wc, wd))\n"
    "    t = tl.where((m > 0.0) & (m < float(\"inf\")), m, 1.0)\n"
    "    qa = wa / t\n"
    "    qb = wb / t\n"
    "    qc = wc / t\n"
    "    qd = wd / t\n"
    "    r = t * tl.sqrt(qa * qa + qb * qb + qc * qc + qd * qd)\n"
    "    big = (wa == float(\"inf\")) | (wb == float(\"inf\")) | (wc == float(\"inf\")) | (wd == float(\"inf\"))\n"
    "    return tl.where(big, float(\"inf\"), r)\n"
    "\n"
    "def norm3d(a, b, c):\n"
    "    return _norm(a, b, c, 0.0).to((a + b + c).dtype)\n"
    "\n"
    "def rnorm3d(a, b, c):\n"
    "    return (1.0 / _norm(a, b, c, 0.0)).to((a + b + c).dtype)\n"
    "\n"
    "def norm4d(a, b, c, d):\n"
    "    return _norm(a, b, c, d).to((a + b + c + d).dtype)\n"
    "\n"
    "def rnorm4d(a, b, c, d):\n"
    "    return (1.0 / _norm(a, b, c, d)).to((a + b + c + d).dtype)\n"
    "\n"
    "# sinpi/cospi: x = (t + 4k) / 2 + r with t in 0..3 and r in [-1/4, 1/4], all exact (in fp64, which\n"
    "# holds every fp32 value and its doubles); sin/cos of pi * r picked and negated by the quadrant t,\n"
    "# so sinpi(n) is exactly +-0 and cospi(n + 1/2) exactly +0 (sin(pi * x) gave -8.7e-8 at x = 1).\n"
    "# From 2^52 up every double is an integer, reduced mod 4 (exactly) so 2x cannot overflow.\n"
    "def _pi_quadrant(x):\n"
    "    w = x.to(tl.float64)\n"
    "    w = tl.where(tl.abs(w) < 4503599627370496.0, w, tl.math.fmod(w, 4.0))\n"
    "    t = tl.math.rint(w + w)\n"
    "    r = w - t * 0.5\n"
    "    q = t - 4.0 * tl.math.floor(t * 0.25)\n"
    "    p = r * 3.141592653589793\n"
    "    return q, r, tl.sin(p), tl.cos(p)\n"
    "\n"
    "def sinpi(x):\n"
    "    q, r, s, c = _pi_quadrant(x)\n"
    "    v = tl.where(q == 0.0, s, tl.where(q == 1.0, c, tl.where(q == 2.0, -s, -c)))\n"
    "    v = tl.where((r == 0.0) & ((q == 0.0) | (q == 2.0)), x.to(tl.float64) * 0.0, v)\n"
    "    return v.to(x.dtype)\n"
    "\n"
    "def cospi(x):\n"
    "    q, r, s, c = _pi_quadrant(x)\n"
    "    v = tl.where(q == 0.0, c, tl.where(q == 1.0, -s, tl.where(q == 2.0, -c, s)))\n"
    "    return (v + 0.0).to(x.dtype)\n"
    "\n"
    "# exp10(x) = 2^(x log2(10)): the product's rounding error (|x| * 3.3 * 2^-24 in fp32, 28 ulp at\n"
    "# x = -23) recovered with an fma and a low part of log2(10), and applied as exp2(y) * (1 + e ln 2)\n"
    "def exp10(x):\n"
    "    if x.dtype == tl.float64:\n"
    "        w = x\n"
    "        hi = 3.321928094887362\n"
    "        lo = 1.661617516973592e-16\n"
    "    else:\n"
    "        w = x.to(tl.float32)\n"
    "        hi = 3.321928024291992\n"
    "        lo = 7.059536955011936e-08\n"
    "    y = w * hi\n"
    "    e = tl.fma(w, hi, -y) + w * lo\n"
    "    r = tl.exp2(y)\n"
    "    ok = (e - e == 0.0) & (tl.math.isinf(r) == 0)\n"
    "    return tl.where(ok, tl.fma(r, e * 0.6931471805599453, r), r).to(x.dtype)\n"
    "\n"
    "def _erfinv_core(x, w):\n"
    "    # M. Giles, \"Approximating the erfinv function\" (2010), single precision, given\n"
    "    # w = -log((1 - x)(1 + x))\n"
    "    a = w - 2.5\n"
    "    p = 2.81022636e-08\n"
    "    p = 3.43273939e-07 + p * a\n"
    "    p = -3.5233877e-06 + p * a\n"
    "    p = -4.39150654e-06 + p * a\n"
    "    p = 0.00021858087 + p * a\n"
    "    p = -0.00125372503 + p * a\n"
    "    p = -0.00417768164 + p * a\n"
    "    p = 0.246640727 + p * a\n"
    "    p = 1.50140941 + p * a\n"
    "    b = tl.sqrt(w) - 3.0\n"
    "    q = -0.000200214257\n"
    "    q = 0.000100950558 + q * b\n"
    "    q = 0.00134934322 + q * b\n"
    "    q = -0.00367342844 + q * b\n"
    "    q = 0.00573950773 + q * b\n"
    "    q = -0.0076224613 + q * b\n"
    "    q = 0.00943887047 + q * b\n"
    "    q = 1.00167406 + q * b\n"
    "    q = 2.83297682 + q * b\n"
    "    return tl.where(w < 5.0, p, q) * x\n"
    "\n"
    "def erfinv(x):\n"
    "    r = _erfinv_core(x, -tl.log((1.0 - x) * (1.0 + x)))\n"
    "    return tl.where(tl.abs(x) == 1.0, x * float(\"inf\"), r)\n"
    "\n"
    "# erfcinv(y) was erfinv(1 - y): 1 - y is 1 for y < 6e-8 in fp32 (inf, where erfcinv(5e-11) = 4.64)\n"
    "# and loses y's digits in fp64 (erfcinv(6e-17) = 5.18, not 5.83). Now in fp64, by symmetry on\n"
    "# u = min(y, 2 - y), with w from u itself (u(2 - u) = (1 - x)(1 + x)); below u = 1e-8, past Giles'\n"
    "# range, from erfc(r) ~ e^(-r^2) / (r sqrt(pi)); in the tail (u < 1/2) three Newton steps on\n"
    "# log erfc(r) = log u, log erfc(r) = log erfcx(r) - r^2 (no underflow), elsewhere on erf(r) = 1 - u.\n"
    "def erfcinv(y):\n"
    "    v = y.to(tl.float64)\n"
    "    u = tl.where(v > 1.0, 2.0 - v, v)\n"
    "    r = _erfinv_core(1.0 - u, -tl.log(u * (2.0 - u)))\n"
    "    L = -tl.log(u)\n"
    "    a = tl.sqrt(L)\n"
    "    a = tl.sqrt(tl.maximum(L - tl.log(1.7724538509055159 * a), 0.0))\n"
    "    a = tl.sqrt(tl.maximum(L - tl.log(1.7724538509055159 * a), 0.0))\n"
    "    r = tl.where(u < 1e-8, a, r)\n"
    "    for _ in tl.static_range(3):\n"
    "        c = erfcx(r)\n"
    "        tail = r + (tl.log(c) - r * r + L) * 0.886226925452758 * c\n"
    "        mid = r + ((1.0 - u) - tl.math.erf(r)) * 0.886226925452758 * tl.exp(r * r)\n"
    "        r = tl.where(u < 0.5, tail, mid)\n"
    "    r = tl.where(u == 0.0, float(\"inf\"), r)\n"
    "    return tl.where(v > 1.0, -r, r).to(y.dtype)\n"
    "\n"
    "# 0.5 erfc(-x / sqrt 2): the quotient's rounding (relative 2^-24) grows to 2z^2 of it in erfc\n"
    "# (55 ulp at x = -9 in fp32): fp64 for narrower inputs, the rounding error carried in fp64\n"
    "def normcdf(x):\n"
    "    w = x.to(tl.float64)\n"
    "    z = w * -0.7071067811865476\n"
    "    e = tl.fma(w, -0.7071067811865476, -z) + w * 4.833646656726457e-17\n"
    "    e = tl.where(tl.abs(w) < 1e300, e, 0.0)\n"
    "    r = tl.math.erfc(z) - e * 1.1283791670955126 * tl.exp(-z * z)\n"
    "    return (0.5 * r).to(x.dtype)\n"
    "\n"
    "def normcdfinv(p):\n"
    "    return -1.4142135623730951 * erfcinv(2.0 * p)\n"
    "\n"
    "def _bessel_i(x, NU: tl.constexpr):\n"
    "    # I_0 / I_1, in fp64 whatever x is: the power series of positive terms\n"
    "    # below 30 (64 terms reach fp64's precision there), Hankel's asymptotic\n"
    "    # expansion above (20 terms do); e^a in two halves, so I(a) past e^709 is\n"
    "    # still finite where it is\n"
    "    a = tl.abs(x).to(tl.float64)\n"
    "    q = a * a * 0.25\n"
    "    t = a * 0.5 if NU == 1 else tl.zeros_like(a) + 1.0\n"
    "    s = t\n"
    "    for k in tl.static_range(1, 64):\n"
    "        t = t * q * (1.0 / (k * (k + NU)))\n"
    "        s += t\n"
    "    r = 0.125 / tl.maximum(a, 30.0)\n"
    "    u = tl.zeros_like(a) + 1.0\n"
    "    h = u\n"
    "    for k in tl.static_range(1, 21):\n"
    "        u = u * r * ((2 * k - 1) * (2 * k - 1) - 4 * NU * NU) * (1.0 / k)\n"
    "        h += u\n"
    "    e = tl.exp(a * 0.5)\n"
    "    big = e * (e / tl.sqrt(6.283185307179586 * a) * h)\n"
    "    big = tl.where(a == float(\"inf\"), a, big)\n"
    "    res = tl.where(a < 30.0, s, big)\n"
    "    if NU == 1:\n"
    "        res = tl.where(x < 0, -res, res)\n"
    "    return res.to(x.dtype)\n"
    "\n"
    "def cyl_bessel_i0(x):\n"
    "    return _bessel_i(x, 0)\n"
    "\n"
    "def cyl_bessel_i1(x):\n"
    "    return _bessel_i(x, 1)\n"
    "\n"
    "# erfcx(x) = e^(x^2) erfc(x) was computed as written: inf * 0 = NaN from x = 10 (fp32). In fp64,\n"
    "# x^2's rounding error carried (1 + lo), and from x = 25 the asymptotic series\n"
    "# (1 - t + 3t^2 - 15t^3 ...) / (x sqrt(pi)), t = 1 / (2x^2)\n"
    "def erfcx(x):\n"
    "    w = x.to(tl.float64)\n"
    "    h = w * w\n"
    "    small = tl.exp(tl.minimum(h, 709.0)) * tl.math.erfc(w) * (1.0 + tl.fma(w, w, -h))\n"
    "    small = tl.where(h > 709.0, float(\"inf\"), small)\n"
    "    t = 0.5 / tl.maximum(h, 625.0)\n"
    "    s = 1.0 - 15.0 * t\n"
    "    s = 1.0 - 13.0 * t * s\n"
    "    s = 1.0 - 11.0 * t * s\n"
    "    s = 1.0 - 9.0 * t * s\n"
    "    s = 1.0 - 7.0 * t * s\n"
    "    s = 1.0 - 5.0 * t * s\n"
    "    s = 1.0 - 3.0 * t * s\n"
    "    s = 1.0 - t * s\n"
    "    big = s / (w * 1.7724538509055159)\n"
    "    return tl.where(w < 25.0, small, big).to(x.dtype)\n"
    "\n"
    "def llrint(x):\n"
    "    return tl.math.rint(x).to(tl.int64)\n"
    "\n"
    "def llround(x):\n"
    "    return tl.math.round(x).to(tl.int64)\n"
    "\n"
    "def ilogb(x):\n"
    "    r = tl.math.logb(x)\n"
    "    r = tl.where(r != r, -2147483648.0, r)\n"
    "    return tl.math.float2int_rz(r.to(tl.float32))\n"
    "\n"
    "def ldexp(x, n):\n"
    "    # in three steps, each a representable power of two, so x * 2^n is right\n"
    "    # where 2^n alone would over- or underflow; fp16/bf16 scale in fp32\n"
    "    if x.dtype == tl.float64:\n"
    "        lim = 3066\n"
    "        y = x\n"
    "    else:\n"
    "        lim = 378\n"
    "        y = x.to(tl.float32)\n"
    "    n = tl.minimum(tl.maximum(n, -lim), lim)\n"
    "    a = n // 3\n"
    "    b = (n - a) // 2\n"
    "    c = n - a - b\n"
    "    y = y * tl.math.exp2(a.to(y.dtype)) * tl.math.exp2(b.to(y.dtype)) * tl.math.exp2(c.to(y.dtype))\n"
    "    return y.to(x.dtype)\n"
    "\n"
    "def scalbn(x, n):\n"
    "    return ldexp(x, n)\n"
    "\n"
    "def pown(x, n):\n"
    "    return tl.math.pow(x, n.to(x.dtype))\n"
    "\n"
    "def powi(x, n):\n"
    "    return tl.math.pow(x, n.to(x.dtype))\n"
    "\n"
    "def hadd(x, y):\n"
    "    return (x & y) + ((x ^ y) >> 1)\n"
    "\n"
    "def rhadd(x, y):\n"
    "    return (x | y) - ((x ^ y) >> 1)\n"
    "\n"
    "def uhadd(x, y):\n"
    "    return (x & y) + ((x ^ y) >> 1)\n"
    "\n"
    "def urhadd(x, y):\n"
    "    return (x | y) - ((x ^ y) >> 1)\n"
    "\n"
    "def sad(x, y, z):\n"
    "    return (tl.where(x > y, x - y, y - x) + z).to(x.dtype)\n"
    "\n"
    "def mul24(x, y):\n"
    "    return ((x << 8) >> 8) * ((y << 8) >> 8)\n"
    "\n"
    "def mulhi(x, y):\n"
    "    if x.dtype == tl.int32:\n"
    "        return ((x.to(tl.int64) * y.to(tl.int64)) >> 32).to(tl.int32)\n"
    "    elif x.dtype == tl.int64:\n"
    "        # the unsigned high half, corrected for the operands' signs\n"
    "        h = tl.umulhi(x.to(tl.uint64, bitcast=True), y.to(tl.uint64, bitcast=True)).to(tl.int64, bitcast=True)\n"
    "        return h - tl.where(x < 0, y, 0) - tl.where(y < 0, x, 0)\n"
    "    else:\n"
    "        return tl.umulhi(x, y)\n"
    "\n"
    "def _brev32(u):\n"
    "    u = ((u >> 1) & 0x55555555) | ((u & 0x55555555) << 1)\n"
    "    u = ((u >> 2) & 0x33333333) | ((u & 0x33333333) << 2)\n"
    "    u = ((u >> 4) & 0x0F0F0F0F) | ((u & 0x0F0F0F0F) << 4)\n"
    "    u = ((u >> 8) & 0x00FF00FF) | ((u & 0x00FF00FF) << 8)\n"
    "    return (u >> 16) | (u << 16)\n"
    "\n"
    "def brev(x):\n"
    "    if x.dtype.primitive_bitwidth == 64:\n"
    "        u = x.to(tl.uint64, bitcast=True)\n"
    "        lo = _brev32((u & 0xFFFFFFFF).to(tl.uint32))\n"
    "        hi = _brev32((u >> 32).to(tl.uint32))\n"
    "        return ((lo.to(tl.uint64) << 32) | hi.to(tl.uint64)).to(x.dtype, bitcast=True)\n"
    "    return _brev32(x.to(tl.uint32, bitcast=True)).to(x.dtype, bitcast=True)\n"
    "\n"
    "def ffs(x):\n"
    "    low = x & -x\n"
    "    return tl.where(x == 0, 0, x.dtype.primitive_bitwidth - tl.math.clz(low)).to(tl.int32)\n"
    "\n"
    "def double2hiint(x):\n"
    "    return (x.to(tl.float64).to(tl.int64, bitcast=True) >> 32).to(tl.int32)\n"
    "\n"
    "def double2loint(x):\n"
    "    return x.to(tl.float64).to(tl.int64, bitcast=True).to(tl.int32)\n"
    "\n"
    "def hiloint2double(hi, lo):\n"
    "    v = (hi.to(tl.int64) << 32) | lo.to(tl.uint32, bitcast=True).to(tl.int64)\n"
    "    return v.to(tl.float64, bitcast=True)\n"
    "\n"
    "# 1/sqrt(x) of an f32 in f64, rounded once more: correctly rounded (an f32's\n"
    "# rsqrt is a power of two or irrational, and no such case is that close to a tie)\n"
    "def rsqrt_rn(x):\n"
    "    if x.dtype == tl.float64:\n"
    "        return 1.0 / tl.sqrt_rn(x)\n"
    "    return (1.0 / tl.sqrt_rn(x.to(tl.float64))).to(x.dtype)\n"
    "\n"
    "def byte_perm(x, y, s):\n"
    "    v = (y.to(tl.uint32, bitcast=True).to(tl.uint64) << 32) | x.to(tl.uint32, bitcast=True).to(tl.uint64)\n"
    "    s = tl.to_tensor(s).to(tl.uint32, bitcast=True)\n"
    "    r = (v >> ((s & 7) * 8).to(tl.uint64)) & 0xFF\n"
    "    r = r | (((v >> (((s >> 4) & 7) * 8).to(tl.uint64)) & 0xFF) << 8)\n"
    "    r = r | (((v >> (((s >> 8) & 7) * 8).to(tl.uint64)) & 0xFF) << 16)\n"
    "    r = r | (((v >> (((s >> 12) & 7) * 8).to(tl.uint64)) & 0xFF) << 24)\n"
    "    return r.to(tl.uint32).to(x.dtype, bitcast=True)\n"
    "\n"
    "# ---- tl.dot_scaled: microscaled (MX) operands upcast to bf16 or fp16, then tl.dot ----\n"
    "\n"
    "def _fp4_to_f32(v):\n"
    "    # e2m1: sign, 2 exponent bits (bias 1), 1 mantissa bit\n"
    "    e = (v >> 1) & 3\n"
    "    m = (v & 1).to(tl.float32)\n"
    "    mag = tl.where(e == 0, m * 0.5, (1.0 + m * 0.5) * tl.exp2(e.to(tl.float32) - 1.0))\n"
    "    return tl.where((v & 8) != 0, -mag, mag)\n"
    "\n"
    "def _mx_upcast(x, scale, fmt: tl.constexpr, k_pack: tl.constexpr, is_lhs: tl.constexpr, ct: tl.constexpr,\n"
    "               fast_math: tl.constexpr):\n"
    "    # the logical [M, K] (lhs) or [K, N] (rhs) block in the compute type ct (float16 when either\n"
    "    # format is fp16, else bfloat16), scaled in ct as Triton's decomposition does\n"
    "    tl.static_assert(len(x.shape) == 2, \"tl.dot_scaled takes 2-D operands\")\n"
    "    if fmt == \"e2m1\" or fmt == \"e4m3\" or fmt == \"e5m2\":\n"
    "        tl.static_assert(x.dtype.primitive_bitwidth == 8, \"tl.dot_scaled: \" + fmt + \" operands are 8-bit tensors (uint8 or fp8)\")\n"
    "    if fmt == \"e2m1\":\n"
    "        tl.static_assert(k_pack, \"tl.dot_scaled: fp4 operands packed along M or N (k_pack=False) are not supported\")\n"
    "        b = x.to(tl.uint8, bitcast=True)\n"
    "        pair = tl.join(_fp4_to_f32(b & 15), _fp4_to_f32(b >> 4))\n"
    "        if is_lhs:\n"
    "            v = tl.reshape(pair, (x.shape[0], x.shape[1] * 2))\n"
    "        else:\n"
    "            v = tl.reshape(tl.permute(pair, (0, 2, 1)), (x.shape[0] * 2, x.shape[1]))\n"
    "    elif fmt == \"e4m3\":\n"
    "        v = x.to(tl.float8e4nv, bitcast=True).to(tl.float32)\n"
    "    elif fmt == \"e5m2\":\n"
    "        v = x.to(tl.float8e5, bitcast=True).to(tl.float32)\n"
    "    else:\n"
    "        tl.static_assert(fmt == \"bf16\" or fmt == \"fp16\", \"tl.dot_scaled formats are e2m1, e4m3, e5m2, bf16 and fp16\")\n"
    "        v = x.to(tl.float32)\n"
    "    v = v.to(ct)\n"
    "    if scale is not None:\n"
    "        tl.static_assert(len(scale.shape) == 2, \"tl.dot_scaled: scales are 2-D tensors\")\n"
    "        kk: tl.constexpr = v.shape[1] if is_lhs else v.shape[0]\n"
    "        mn: tl.constexpr = v.shape[0] if is_lhs else v.shape[1]\n"
    "        tl.static_assert(scale.shape[0] == mn and scale.shape[1] > 0 and kk % scale.shape[1] == 0,\n"
    "                         \"tl.dot_scaled: a scale tensor is [M or N, K // group]\")\n"
    "        group: tl.constexpr = kk // scale.shape[1]\n"
    "        if scale.dtype.is_floating():\n"
    "            # an fp8 (e4m3, nvfp4) scale is a value; NaN scales give NaN\n"
    "            s = scale.to(ct)\n"
    "            bad = s != s\n"
    "        else:\n"
    "            # e8m0 (uint8 bits): 2^(s - 127); 255 is NaN\n"
    "            tl.static_assert(scale.dtype.primitive_bitwidth == 8, \"tl.dot_scaled: e8m0 scales are 8-bit integers\")\n"
    "            u = scale.to(tl.uint8, bitcast=True)\n"
    "            s = (u.to(tl.uint32) << 23).to(tl.float32, bitcast=True).to(ct)\n"
    "            bad = u == 255\n"
    "        s = tl.reshape(tl.broadcast_to(tl.expand_dims(s, 2), (s.shape[0], s.shape[1], group)),\n"
    "                       (s.shape[0], s.shape[1] * group))\n"
    "        bad = tl.reshape(tl.broadcast_to(tl.expand_dims(bad, 2), (bad.shape[0], bad.shape[1], group)),\n"
    "                         (bad.shape[0], bad.shape[1] * group))\n"
    "        if not is_lhs:\n"
    "            s = tl.trans(s)\n"
    "            bad = tl.trans(bad)\n"
    "        if fast_math:\n"
    "            v = (v * s).to(ct)\n"
    "        else:\n"
    "            # a NaN scale gives NaN (fast_math skips the check)\n"
    "            v = tl.where(bad, float(\"nan\"), v * s).to(ct)\n"
    "    return v\n"
    "\n"
    "def dot_scaled(lhs, lhs_scale, lhs_format: tl.constexpr, rhs, rhs_scale, rhs_format: tl.constexpr, acc=None,\n"
    "               fast_math: tl.constexpr = False, lhs_k_pack: tl.constexpr = True, rhs_k_pack: tl.constexpr = True,\n"
    "               out_dtype: tl.constexpr = tl.float32):\n"
    "    ct: tl.constexpr = tl.float16 if lhs_format == \"fp16\" or rhs_format == \"fp16\" else tl.bfloat16\n"
    "    a = _mx_upcast(lhs, lhs_scale, lhs_format, lhs_k_pack, True, ct, fast_math)\n"
    "    b = _mx_upcast(rhs, rhs_scale, rhs_format, rhs_k_pack, False, ct, fast_math)\n"
"    return tl.dot(a, b, acc, out_dtype=out_dtype)\n";

static const SrcFile prelude_file = {"<tile prelude>", prelude_text, sizeof prelude_text - 1};

const SrcFile *prelude_file_of(const Sema *s)
{
	(void)s;
	return &prelude_file;
}

ModScope *prelude_scope(Sema *s)
{
	if (s->prelude) return s->prelude;
	DiagSink tmp;
	diag_init(&tmp);
	Module *m = parse_module(s->a, s->c->names, &tmp, &prelude_file);
	if (!m) {
		char *all = diag_render_all(&tmp);
		diag_free(&tmp);
		ice("sema", "the builtin prelude does not parse: %s", all);
	}
	diag_free(&tmp);
	ModScope *ms = modscope_new(s, m, "<prelude>");
	ms->is_prelude = true;
	s->prelude = ms;
	return ms;
}

/* Checkers run before the prelude function, so mistakes point at the call. */
static Value check_random(Sema *s, Call *c, int n)
{
	if (n < 2) {
		diag_error(s->d, c->loc, "'%s' expects a seed and an offset", c->name);
		return v_err();
	}
	Value seed = c->a[0], off = c->a[1];
	bool seed_ok = v_is_intlike(seed) || (seed.kind == V_TENSOR && seed.ty.rank == 0 && dtype_is_int((DType)seed.ty.dt));
	if (seed.kind != V_ERR && !seed_ok) {
		diag_error(s->d, c->loc, "the seed of '%s' must be an integer scalar, got %s", c->name, v_describe(s, seed));
		return v_err();
	}
	bool off_ok = v_is_intlike(off) || (off.kind == V_TENSOR && dtype_is_int((DType)off.ty.dt));
	if (off.kind != V_ERR && !off_ok) {
		diag_error(s->d, c->loc, "the offset of '%s' must be an integer tensor, got %s", c->name, v_describe(s, off));
		return v_err();
	}
	if (off.kind == V_TENSOR && dtype_bits((DType)off.ty.dt) != 32 && dtype_bits((DType)off.ty.dt) != 64) {
		diag_error(s->d, c->loc, "the offset of '%s' must be a 32- or 64-bit integer tensor, got %s", c->name,
			   dtype_name((DType)off.ty.dt));
		return v_err();
	}
	return v_none();
}

static Value check_float_tile(Sema *s, Call *c, int n)
{
	if (n < 1) return v_none();
	Value x = c->a[0];
	if (x.kind == V_TENSOR && !dtype_is_float((DType)x.ty.dt)) {
		diag_error(s->d, c->loc, "'%s' expects a floating-point tensor, got %s", c->name, dtype_name((DType)x.ty.dt));
		return v_err();
	}
	return v_none();
}

/* every argument a tile or number of the kind the function takes (libdevice
 * dispatches on dtype and rejects the others) */
static Value check_kind(Sema *s, Call *c, int n, bool want_float)
{
	for (int i = 0; i < n; i++) {
		Value x = c->a[i];
		bool fl = (x.kind == V_TENSOR && dtype_is_float((DType)x.ty.dt)) ||
			  (x.kind == V_CONST && x.c.kind == CV_FLOAT);
		bool in = (x.kind == V_TENSOR && dtype_is_int((DType)x.ty.dt) && x.ty.dt != DT_I1) ||
			  (x.kind == V_CONST && x.c.kind == CV_INT);
		if (x.kind != V_ERR && !(want_float ? fl : in)) {
			diag_error(s->d, c->loc, "'%s' expects %s arguments, got %s", c->name,
				   want_float ? "floating-point" : "integer", v_describe(s, x));
			return v_err();
		}
	}
	return v_none();
}

static Value check_floats(Sema *s, Call *c, int n) { return check_kind(s, c, n, true); }
static Value check_ints(Sema *s, Call *c, int n) { return check_kind(s, c, n, false); }

/* ldexp(x, n) and pown(x, n): a float and an integer */
static Value check_float_int(Sema *s, Call *c, int n)
{
	Value v = check_kind(s, c, n < 1 ? n : 1, true);
	if (v.kind == V_ERR || n < 2) return v;
	c->a[0] = c->a[1];
	return check_kind(s, c, 1, false);
}

const Builtin builtins_prelude[] = {
    {"randint", "seed,offset,n_rounds=10", check_random, 0, BF_TL | BF_PRELUDE},
    {"randint4x", "seed,offset,n_rounds=10", check_random, 0, BF_TL | BF_PRELUDE},
    {"rand", "seed,offset,n_rounds=10", check_random, 0, BF_TL | BF_PRELUDE},
    {"rand4x", "seed,offset,n_rounds=10", check_random, 0, BF_TL | BF_PRELUDE},
    {"randn", "seed,offset,n_rounds=10", check_random, 0, BF_TL | BF_PRELUDE},
    {"randn4x", "seed,offset,n_rounds=10", check_random, 0, BF_TL | BF_PRELUDE},
    {"philox", "seed,c0,c1,c2,c3,n_rounds=10", NULL, 0, BF_TL | BF_PRELUDE},
    {"philox_impl", "c0,c1,c2,c3,k0,k1,n_rounds=10", NULL, 0, BF_TL | BF_PRELUDE},
    {"pair_uniform_to_normal", "u1,u2", NULL, 0, BF_TL | BF_PRELUDE},
    {"uint_to_uniform_float", "x", NULL, 0, BF_TL | BF_PRELUDE},
    {"mul_f32x2", "a,b", NULL, 0, BF_MATH | BF_PRELUDE},
    {"add_f32x2", "a,b", NULL, 0, BF_MATH | BF_PRELUDE},
    {"sub_f32x2", "a,b", NULL, 0, BF_MATH | BF_PRELUDE},
    {"fma_f32x2", "a,b,c", NULL, 0, BF_MATH | BF_PRELUDE},
    {"sigmoid", "x", check_float_tile, 0, BF_TL | BF_MATH | BF_METHOD | BF_PRELUDE},
    {"softmax", "x,dim=None,keep_dims=False,ieee_rounding=False", check_float_tile, 0,
     BF_TL | BF_MATH | BF_METHOD | BF_PRELUDE},
    {"swizzle2d", "i,j,size_i,size_j,size_g", NULL, 0, BF_TL | BF_PRELUDE},
    {"_cuda_min_nan_xorsign_abs_f32", "a,b", NULL, 0, BF_TL | BF_PRELUDE},
    {"_cuda_max_nan_xorsign_abs_f32", "a,b", NULL, 0, BF_TL | BF_PRELUDE},
    {"sort", "x,dim=None,descending=0", NULL, 0, BF_TL | BF_METHOD | BF_PRELUDE},
    {"bitonic_merge", "x,dim=None,descending=0", NULL, 0, BF_TL | BF_METHOD | BF_PRELUDE},
    {"histogram", "input,num_bins,mask=None", NULL, 0, BF_TL | BF_METHOD | BF_PRELUDE},
    {"gather", "src,index,axis", NULL, 0, BF_TL | BF_METHOD | BF_PRELUDE},
    {"topk", "x,k,dim=None", NULL, 0, BF_TL | BF_METHOD | BF_PRELUDE},
    {"_indicator", "n_dims,idx,pos=1", NULL, 0, BF_TL | BF_PRELUDE},
    {"_take_slice", "x,n_dims,idx,pos,keep_dim=True", NULL, 0, BF_TL | BF_PRELUDE},
    {"_get_sort_dim", "dim,shape", NULL, 0, BF_TL | BF_PRELUDE},
    {"_is_power_of_two", "i", NULL, 0, BF_TL | BF_PRELUDE},
    {"_unwrap_if_constexpr", "o", NULL, 0, BF_TL | BF_PRELUDE},
    {"_promote_bfloat16_to_float32", "t", NULL, 0, BF_TL | BF_PRELUDE},
    {"_promote_reduction_input", "t", NULL, 0, BF_TL | BF_PRELUDE},
    {"_sum_combine", "a,b", NULL, 0, BF_TL | BF_PRELUDE},
    {"_prod_combine", "a,b", NULL, 0, BF_TL | BF_PRELUDE},
    {"_elementwise_max", "a,b", NULL, 0, BF_TL | BF_PRELUDE},
    {"_elementwise_min", "a,b", NULL, 0, BF_TL | BF_PRELUDE},
    {"_xor_combine", "a,b", NULL, 0, BF_TL | BF_PRELUDE},
    {"_or_combine", "x,y", NULL, 0, BF_TL | BF_PRELUDE},
    {"_argmax_combine_tie_break_left", "value1,index1,value2,index2", NULL, 0, BF_TL | BF_PRELUDE},
    {"_argmax_combine_tie_break_fast", "value1,index1,value2,index2", NULL, 0, BF_TL | BF_PRELUDE},
    {"_argmin_combine_tie_break_left", "value1,index1,value2,index2", NULL, 0, BF_TL | BF_PRELUDE},
    {"_argmin_combine_tie_break_fast", "value1,index1,value2,index2", NULL, 0, BF_TL | BF_PRELUDE},
    {"dot_scaled",
     "lhs,lhs_scale,lhs_format,rhs,rhs_scale,rhs_format,acc=None,fast_math=False,lhs_k_pack=True,rhs_k_pack=True,"
     "out_dtype=tl.float32",
     NULL, 0, BF_TL | BF_PRELUDE},
    /* libdevice functions composed of other ops */
    {"saturatef", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"rcp64h", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"rcbrt", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"rhypot", "x,y", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"norm3d", "a,b,c", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"rnorm3d", "a,b,c", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"norm4d", "a,b,c,d", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"rnorm4d", "a,b,c,d", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"sinpi", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"cospi", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"exp10", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"erfinv", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"erfcinv", "y", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"normcdf", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"normcdfinv", "p", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"erfcx", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"cyl_bessel_i0", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"cyl_bessel_i1", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"llrint", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"llround", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"ilogb", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"ldexp", "x,n", check_float_int, 0, BF_MATH | BF_PRELUDE},
    {"scalbn", "x,n", check_float_int, 0, BF_MATH | BF_PRELUDE},
    {"pown", "x,n", check_float_int, 0, BF_MATH | BF_PRELUDE},
    {"powi", "x,n", check_float_int, 0, BF_MATH | BF_PRELUDE},
    {"hadd", "x,y", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"rhadd", "x,y", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"uhadd", "x,y", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"urhadd", "x,y", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"sad", "x,y,z", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"mul24", "x,y", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"mulhi", "x,y", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"brev", "x", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"ffs", "x", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"byte_perm", "x,y,s", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"double2hiint", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"double2loint", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"hiloint2double", "hi,lo", check_ints, 0, BF_MATH | BF_PRELUDE},
    {"rsqrt_rn", "x", check_floats, 0, BF_MATH | BF_PRELUDE},
    {"_add_rn", "x,y", NULL, 0, BF_MATH | BF_PRELUDE},
    {"_sub_rn", "x,y", NULL, 0, BF_MATH | BF_PRELUDE},
    {"_mul_rn", "x,y", NULL, 0, BF_MATH | BF_PRELUDE},
    {NULL, NULL, NULL, 0, 0},
};
