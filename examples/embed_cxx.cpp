// embed_cxx.cpp: using tile from C++.
//
// tile.h is plain C with extern "C" guards; this wraps its handles in
// std::unique_ptr so they are released on every path, turns a failed call
// into an exception carrying tile_errmsg, and runs a row-wise softmax (one
// program per row, the row's cumulative sum as a second output) on
// std::vector data, checked against a C++ loop. A kernel with a mistake in
// it shows the diagnostic the library returns. Prints nothing and exits 0
// on success.
//
//     c++ -std=c++17 embed_cxx.cpp $(pkg-config --cflags --libs tile)
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <tile.h>

namespace {

static const char source[] = R"(import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, y_ptr, c_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float('inf'))
    e = tl.exp(x - tl.max(x, axis=0))
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * n_cols + cols, y, mask=mask)
    tl.store(c_ptr + row * n_cols + cols, tl.cumsum(y, axis=0), mask=mask)
)";

struct Deleter {
	void operator()(tile_context *c) const { tile_context_destroy(c); }
	void operator()(tile_module *m) const { tile_module_destroy(m); }
	void operator()(tile_kernel *k) const { tile_kernel_destroy(k); }
};
using Context = std::unique_ptr<tile_context, Deleter>;
using Module = std::unique_ptr<tile_module, Deleter>;
using Kernel = std::unique_ptr<tile_kernel, Deleter>;

struct Error : std::runtime_error {
	tile_status status;
	Error(tile_status s, const std::string &msg) : std::runtime_error(msg), status(s) {}
};

void check(tile_status s, tile_context *ctx, const char *what)
{
	if (s != TILE_OK)
		throw Error(s, std::string(what) + ": " + tile_status_string(s) + "\n" +
		                       (ctx ? tile_errmsg(ctx) : ""));
}

Context make_context()
{
	tile_context_options o{};
	o.target = "cpu";
	tile_context *c = nullptr;
	check(tile_context_create(&c, &o), nullptr, "tile_context_create");
	return Context(c);
}

Module load(tile_context *ctx, const std::string &src)
{
	tile_module *m = nullptr;
	check(tile_module_load_source(ctx, "softmax_rows.tile", src.c_str(), src.size(), &m), ctx,
	      "tile_module_load_source");
	return Module(m);
}

Kernel get(tile_context *ctx, tile_module *mod, const char *name, const char *sig)
{
	tile_kernel *k = nullptr;
	check(tile_kernel_get(mod, name, sig, nullptr, &k), ctx, "tile_kernel_get");
	return Kernel(k);
}

int run()
{
	Context ctx = make_context();
	Module mod = load(ctx.get(), source);
	Kernel k = get(ctx.get(), mod.get(), "softmax_rows", "*fp32:16,*fp32:16,*fp32:16,i32,256");

	const int rows = 37, cols = 200; // cols < BLOCK: masked tail
	std::vector<float> x(rows * cols), y(rows * cols), c(rows * cols);
	for (int i = 0; i < rows * cols; i++)
		x[i] = std::sin(0.37f * (float)i) * 4.0f;
	tile_arg args[] = {tile_arg_ptr(x.data(), TILE_FP32), tile_arg_ptr(y.data(), TILE_FP32),
	                   tile_arg_ptr(c.data(), TILE_FP32), tile_arg_i32(cols)};
	uint32_t grid[3] = {(uint32_t)rows, 1, 1};
	check(tile_launch(k.get(), grid, args, 4, nullptr), ctx.get(), "tile_launch");

	for (int r = 0; r < rows; r++) {
		const float *xr = &x[r * cols];
		double mx = -INFINITY, sum = 0, run = 0;
		for (int j = 0; j < cols; j++)
			mx = std::fmax(mx, xr[j]);
		for (int j = 0; j < cols; j++)
			sum += std::exp(xr[j] - mx);
		for (int j = 0; j < cols; j++) {
			double want = std::exp(xr[j] - mx) / sum;
			run += want;
			if (std::fabs(y[r * cols + j] - want) > 1e-6 + 1e-5 * want ||
			    std::fabs(c[r * cols + j] - run) > 1e-5) {
				std::fprintf(stderr, "embed_cxx: row %d col %d: got %g / %g, want %g / %g\n", r,
				             j, y[r * cols + j], c[r * cols + j], want, run);
				return 1;
			}
		}
	}

	// A mistake in the kernel: the exception carries file:line:col and a caret.
	std::string bad = source;
	bad.replace(bad.find("tl.sum(e, axis=0)"), 17, "tl.sum(e, axis=2)");
	try {
		Module m2 = load(ctx.get(), bad);
		get(ctx.get(), m2.get(), "softmax_rows", "*fp32:16,*fp32:16,*fp32:16,i32,256");
		std::fprintf(stderr, "embed_cxx: the bad kernel compiled\n");
		return 1;
	} catch (const Error &e) {
		if (e.status != TILE_ERROR_COMPILE ||
		    std::string(e.what()).find("softmax_rows.tile:12:") == std::string::npos) {
			std::fprintf(stderr, "embed_cxx: unexpected error for the bad kernel:\n%s\n",
			             e.what());
			return 1;
		}
	}
	return 0;
}

} // namespace

int main()
{
	try {
		return run();
	} catch (const Error &e) {
		std::fprintf(stderr, "embed_cxx: %s\n", e.what());
		return 1;
	}
}
