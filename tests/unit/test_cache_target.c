/* test_cache_target.c: a disk cache entry that is whole (its checksum holds)
 * but holds another target's kernel is rebuilt, never loaded: here a
 * cuda-emu kernel written into the file of the same kernel for the cpu. And
 * a kernel blob with negative sizes is rejected when it is decoded. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/kernel_blob.h"
#include "jit/cache.h"
#include "tile.h"

static int failures;
static tile_context *ctx; /* for CHECK_ST's message */

#include "api_checks.h"

static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "\n"
                          "@triton.jit\n"
                          "def add(x, o, n, B: tl.constexpr):\n"
                          "    offs = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    m = offs < n\n"
                          "    tl.store(o + offs, tl.load(x + offs, mask=m) + 1.0, mask=m)\n";

enum { N = 1024, B = 128 };

/* Compiles add for target with the cache in dir, checks a launch; returns
 * the kernel's from_cache, -1 on failure. */
static int build(const char *dir, const char *target)
{
	tile_context_options o = {0};
	o.target = target;
	o.cache_dir = dir;
	o.num_threads = 1;
	int r = -1;
	tile_module *m = NULL;
	tile_kernel *k = NULL;
	if (tile_context_create(&ctx, &o) != TILE_OK)
		return -1;
	CHECK_ST(tile_module_load_source(ctx, "add.tile", src, (size_t)-1, &m), TILE_OK);
	CHECK_ST(tile_kernel_get(m, "add", "*fp32:16,*fp32:16,i32,128", NULL, &k), TILE_OK);
	float *x = aligned_alloc(64, N * sizeof(float)), *out = aligned_alloc(64, N * sizeof(float));
	for (int i = 0; i < N; i++)
		x[i] = (float)i, out[i] = 0.0f;
	tile_arg a[3] = {tile_arg_ptr(x, TILE_FP32), tile_arg_ptr(out, TILE_FP32), tile_arg_i32(N)};
	uint32_t grid[3] = {N / B, 1, 1};
	tile_kernel_info info;
	if (k && tile_launch(k, grid, a, 3, NULL) == TILE_OK && tile_kernel_get_info(k, &info) == TILE_OK) {
		r = info.from_cache;
		for (int i = 0; i < N; i++)
			if (out[i] != (float)i + 1.0f)
				r = -1;
	}
	free(x);
	free(out);
	tile_kernel_destroy(k);
	tile_module_destroy(m);
	tile_context_destroy(ctx);
	ctx = NULL;
	return r;
}

/* The one entry in dir whose name is not `skip`; false if there is none. */
static bool entry_key(const char *dir, const char *skip, char name[80], uint8_t key[32])
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;
	while (d && !found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n != 67 || strcmp(de->d_name + 64, ".tc") != 0 || (skip && strcmp(de->d_name, skip) == 0))
			continue;
		memcpy(name, de->d_name, 68); /* 67 characters and the NUL, checked above */
		for (int i = 0; i < 32; i++) {
			unsigned v;
			sscanf(de->d_name + 2 * i, "%2x", &v);
			key[i] = (uint8_t)v;
		}
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

/* A blob whose sizes went negative (a flipped sign bit) is rejected. */
static void test_blob_sizes(void)
{
	CompiledKernel k = {0};
	char name[300]; /* a Python name has no length limit: the blob keeps it whole */
	memset(name, 'k', sizeof name - 1);
	name[sizeof name - 1] = 0;
	k.name = name;
	snprintf(k.target.name, sizeof k.target.name, "cpu");
	k.num_warps = 4;
	k.threads = 32;
	k.registers = k.spill_bytes = -1;
	k.binary = "elf";
	k.binary_len = 3;
	for (int field = 0; field < 5; field++) {
		CompiledKernel bad = k, out;
		int *f[] = {&bad.num_warps, &bad.threads, &bad.smem_bytes, &bad.registers, &bad.spill_bytes};
		size_t len = 0;
		void *blob = kernel_blob_encode(&bad, &len);
		CHECK(kernel_blob_decode(blob, len, &out) == 0); /* as written */
		CHECK(out.name && !strcmp(out.name, name));
		compiled_kernel_free(&out);
		free(blob);
		*f[field] = -16777216;
		blob = kernel_blob_encode(&bad, &len);
		CHECK(kernel_blob_decode(blob, len, &out) == -1);
		free(blob);
	}
}

int main(void)
{
	test_blob_sizes();
	char dir[] = "/tmp/tile-test-cache-target-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char cpu_name[80], emu_name[80];
	uint8_t cpu_key[32], emu_key[32];
	CHECK(build(dir, "cpu") == 0);
	CHECK(entry_key(dir, NULL, cpu_name, cpu_key));
	CHECK(build(dir, "cuda-emu") == 0);
	CHECK(entry_key(dir, cpu_name, emu_name, emu_key));
	/* the emulator's kernel, with a valid checksum, in the cpu kernel's file */
	Cache c;
	cache_open(&c, dir, NULL);
	void *p = NULL;
	size_t n = 0;
	CHECK(cache_get(&c, emu_key, &p, &n));
	CHECK(p && cache_put(&c, cpu_key, p, n));
	free(p);
	cache_close(&c);
	CHECK(build(dir, "cpu") == 0); /* rebuilt, not loaded */
	CHECK(build(dir, "cpu") == 1); /* and the rebuilt entry is used */
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		failures++;
	if (failures)
		fprintf(stderr, "test_cache_target: %d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
