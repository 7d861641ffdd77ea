/* test_cubin_info.c: registers and stack frame read from a cubin agree with
 * what ptxas says of it (`-v`), for a kernel that spills and one that does
 * not; damaged cubins give false, never a bad read. Skipped (exit 77) when
 * libnvrtc cannot be loaded. */
#include "jit/cubin_info.h"
#include "jit/nvrtc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* `spills` indexes a local array with a runtime value, so ptxas gives it a
 * stack frame; `copy` needs none. Two kernels in one cubin: each must get
 * its own numbers. */
static const char src[] =
	"extern \"C\" __global__ void spills(float *out, const float *in, int k)\n"
	"{\n"
	"    float a[256];\n"
	"    for (int i = 0; i < 256; i++) a[i] = in[i * k + threadIdx.x];\n"
	"    out[threadIdx.x] = a[k & 255] + a[(k * 7) & 255];\n"
	"}\n"
	"extern \"C\" __global__ void copy(float *out, const float *in)\n"
	"{\n"
	"    out[threadIdx.x] = in[threadIdx.x] * 2.0f;\n"
	"}\n";

/* The number before `what` in ptxas's paragraph for `kernel`, or -1. */
static long log_number(const char *log, const char *kernel, const char *what)
{
	char head[128];
	snprintf(head, sizeof head, "Function properties for %s", kernel);
	const char *p = strstr(log, head);
	if (!p)
		return -1;
	const char *end = strstr(p + strlen(head), "Compiling entry function");
	const char *w = strstr(p, what);
	if (!w || (end && w > end))
		return -1;
	if (strcmp(what, "Used ") == 0)
		return strtol(w + 5, NULL, 10);
	const char *q = w;
	while (q > p && q[-1] == ' ')
		q--;
	while (q > p && q[-1] >= '0' && q[-1] <= '9')
		q--;
	return strtol(q, NULL, 10);
}

static void test_against_ptxas(const char *cubin, size_t len, const char *log)
{
	static const char *const kernels[] = {"spills", "copy"};
	for (int i = 0; i < 2; i++) {
		int regs, frame;
		CHECK(cubin_resources(cubin, len, kernels[i], &regs, &frame));
		long want_regs = log_number(log, kernels[i], "Used ");
		long want_frame = log_number(log, kernels[i], "bytes stack frame");
		if (want_regs < 0) /* nvrtc served the cubin from its cache: no log */
			continue;
		CHECK(regs == want_regs);
		CHECK(frame == want_frame);
		if (i == 0)
			CHECK(frame >= 1024); /* the array lives in local memory */
		else
			CHECK(frame == 0);
	}
	int regs, frame;
	CHECK(!cubin_resources(cubin, len, "absent", &regs, &frame) && regs == -1 && frame == -1);
}

/* Every truncation, and a byte flipped at every header and section-header
 * offset: false or numbers, never a read past the end (run under ASan in the
 * fuzz build). */
static void test_damaged(const char *cubin, size_t len)
{
	int regs, frame;
	CHECK(!cubin_resources(NULL, 0, "copy", &regs, &frame));
	CHECK(!cubin_resources("\177ELF", 4, "copy", &regs, &frame));
	for (size_t n = 0; n < len; n += n < 4096 ? 1 : 97) {
		char *cut = malloc(n ? n : 1);
		memcpy(cut, cubin, n);
		cubin_resources(cut, n, "spills", &regs, &frame);
		free(cut);
	}
	char *bad = malloc(len);
	for (size_t at = 0; at < len && at < 4096; at++) {
		memcpy(bad, cubin, len);
		bad[at] ^= (char)0xa5;
		cubin_resources(bad, len, "spills", &regs, &frame);
		CHECK(regs >= -1 && frame >= -1);
	}
	free(bad);
}

int main(void)
{
	Nvrtc nv;
	char err[256];
	if (!nvrtc_open(&nv, err, sizeof err)) {
		printf("skipped: no libnvrtc (%s)\n", err);
		return 77;
	}
	const char *verbose[1] = {"--ptxas-options=-v"};
	NvrtcOutput o;
	if (!nvrtc_compile(&nv, src, "k.cu", 80, "", false, verbose, 1, &o, err, sizeof err)) {
		fprintf(stderr, "nvrtc: %s\n%s\n", err, o.log ? o.log : "");
		return 1;
	}
	test_against_ptxas(o.code, o.code_len, o.log ? o.log : "");
	test_damaged(o.code, o.code_len);
	nvrtc_output_free(&o);
	nvrtc_close(&nv);
	if (failures) {
		printf("%d checks failed\n", failures);
		return 1;
	}
	return 0;
}
