/* test_nvrtc_memo.c: the memo of nvrtc runs (jit/nvrtc_memo.c) that the
 * variants of one kernel's compile share. Keys tell apart source, name,
 * options and output kind; a hit is an independent copy that took no time;
 * failures are kept with their message. With libnvrtc, nvrtc_compile answers
 * a repeat from the memo with the same cubin, and compiles again when an
 * option changes; a compilation started ahead on another thread is found by
 * the request it answers (waiting for it), and freeing the memo joins one
 * nobody asked for. Without nvrtc that part says "skipped" and the rest runs. */
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

static void key_of(const char *src, const char *name, const char *o1, const char *o2,
                   NvrtcWant want, uint8_t key[32])
{
	const char *opts[2] = {o1, o2};
	nvrtc_memo_key(src, name, opts, o2 ? 2 : o1 ? 1 : 0, want, key);
}

static void test_keys(void)
{
	uint8_t a[32], b[32];
	key_of("x", "k.cu", "-w", NULL, NVRTC_CUBIN, a);
	key_of("x", "k.cu", "-w", NULL, NVRTC_CUBIN, b);
	CHECK(!memcmp(a, b, 32));
	key_of("y", "k.cu", "-w", NULL, NVRTC_CUBIN, b);
	CHECK(memcmp(a, b, 32));
	key_of("x", "j.cu", "-w", NULL, NVRTC_CUBIN, b);
	CHECK(memcmp(a, b, 32));
	key_of("x", "k.cu", "-w", NULL, NVRTC_PTX, b);
	CHECK(memcmp(a, b, 32));
	key_of("x", "k.cu", NULL, NULL, NVRTC_CUBIN, b);
	CHECK(memcmp(a, b, 32));
	/* where one string ends and the next begins is part of the key */
	key_of("x", "k.cu", "ab", "c", NVRTC_CUBIN, a);
	key_of("x", "k.cu", "a", "bc", NVRTC_CUBIN, b);
	CHECK(memcmp(a, b, 32));
}

static void test_store(void)
{
	NvrtcMemo *m = nvrtc_memo_new();
	uint8_t k1[32], k2[32], k3[32];
	key_of("one", "k.cu", NULL, NULL, NVRTC_CUBIN_PTX, k1);
	key_of("two", "k.cu", NULL, NULL, NVRTC_CUBIN_PTX, k2);
	key_of("three", "k.cu", NULL, NULL, NVRTC_CUBIN_PTX, k3);
	NvrtcOutput o = {0}, got;
	bool ok = false;
	char err[64];
	CHECK(!nvrtc_memo_find(m, k1, &got, &ok, NULL, err, sizeof err));

	char bin[4] = {1, 0, 2, 3}; /* a cubin may hold NUL bytes */
	o.code = bin;
	o.code_len = sizeof bin;
	o.ptx = "ptx text";
	o.log = "log text";
	o.seconds = 2.5;
	nvrtc_memo_add(m, k1, &o, true, NULL);
	NvrtcOutput fail = {.log = "k.cu(3): error"};
	nvrtc_memo_add(m, k2, &fail, false, "nvrtc: NVRTC_ERROR_COMPILATION");
	bin[0] = 9; /* the memo keeps its own copy */

	memset(&got, 0, sizeof got);
	CHECK(nvrtc_memo_find(m, k1, &got, &ok, NULL, err, sizeof err));
	CHECK(ok && got.code_len == 4 && got.code && got.code != bin);
	CHECK(got.code && got.code[0] == 1 && got.code[3] == 3);
	CHECK(got.ptx && !strcmp(got.ptx, "ptx text"));
	CHECK(got.log && !strcmp(got.log, "log text"));
	CHECK(got.seconds == 0); /* nothing compiled */
	nvrtc_output_free(&got);
	/* a second hit is another copy: freeing the first changed nothing */
	CHECK(nvrtc_memo_find(m, k1, &got, &ok, NULL, err, sizeof err));
	CHECK(got.code && got.code[0] == 1);
	nvrtc_output_free(&got);

	CHECK(nvrtc_memo_find(m, k2, &got, &ok, NULL, err, sizeof err));
	CHECK(!ok && !strcmp(err, "nvrtc: NVRTC_ERROR_COMPILATION"));
	CHECK(!got.code && got.log && !strcmp(got.log, "k.cu(3): error"));
	nvrtc_output_free(&got);
	CHECK(!nvrtc_memo_find(m, k3, &got, &ok, NULL, err, sizeof err));

	/* past the first allocation */
	for (int i = 0; i < 40; i++) {
		char src[16];
		uint8_t k[32];
		snprintf(src, sizeof src, "s%d", i);
		key_of(src, "k.cu", NULL, NULL, NVRTC_CUBIN, k);
		o.seconds = i;
		nvrtc_memo_add(m, k, &o, true, NULL);
	}
	CHECK(nvrtc_memo_find(m, k1, &got, &ok, NULL, err, sizeof err) && ok);
	nvrtc_output_free(&got);
	nvrtc_memo_free(m);
	nvrtc_memo_free(NULL);
}

static const char kernel_src[] = "extern \"C\" __global__ void copy(float *out, const float *in)\n"
                                 "{\n"
                                 "    out[threadIdx.x] = in[threadIdx.x] * 2.0f;\n"
                                 "}\n";

static bool compile(const Nvrtc *nv, const char *src, const char *opt, NvrtcWant want,
                    NvrtcOutput *o, char *err, size_t errlen)
{
	const char *opts[1] = {opt};
	return nvrtc_compile(nv, src, "k.cu", 80, "", want, opts, opt ? 1 : 0, o, err, errlen);
}

static void test_with_nvrtc(void)
{
	Nvrtc nv;
	char err[256];
	if (!nvrtc_open(&nv, err, sizeof err)) {
		printf("skipped: no libnvrtc (%s): nvrtc_compile with a memo\n", err);
		return;
	}
	nv.memo = nvrtc_memo_new();
	NvrtcOutput first, again, with_ptx, other;
	CHECK(compile(&nv, kernel_src, NULL, NVRTC_CUBIN, &first, err, sizeof err));
	CHECK(first.code && first.seconds > 0 && !first.ptx);
	CHECK(compile(&nv, kernel_src, NULL, NVRTC_CUBIN, &again, err, sizeof err));
	CHECK(again.seconds == 0 && !again.ptx);
	CHECK(again.code && first.code && again.code_len == first.code_len &&
	      !memcmp(again.code, first.code, first.code_len));
	/* the cubin's compilation kept its PTX: --emit ptx of the kept program */
	CHECK(compile(&nv, kernel_src, NULL, NVRTC_CUBIN_PTX, &with_ptx, err, sizeof err));
	CHECK(with_ptx.seconds == 0 && with_ptx.ptx && strstr(with_ptx.ptx, ".entry copy"));
	CHECK(compile(&nv, kernel_src, "-lineinfo", NVRTC_CUBIN, &other, err, sizeof err));
	CHECK(other.seconds > 0); /* another option: compiled */
	nvrtc_output_free(&first);
	nvrtc_output_free(&again);
	nvrtc_output_free(&with_ptx);
	nvrtc_output_free(&other);

	/* a failure is answered from the memo with the same message */
	NvrtcOutput bad1, bad2;
	char err2[256];
	CHECK(!compile(&nv, "this is not C++", NULL, NVRTC_CUBIN, &bad1, err, sizeof err));
	CHECK(!compile(&nv, "this is not C++", NULL, NVRTC_CUBIN, &bad2, err2, sizeof err2));
	CHECK(!strcmp(err, err2) && bad2.seconds == 0);
	CHECK(bad1.log && bad2.log && !strcmp(bad1.log, bad2.log));
	nvrtc_output_free(&bad1);
	nvrtc_output_free(&bad2);
	nvrtc_memo_free(nv.memo);
	nvrtc_close(&nv);
}

static void test_ahead(void)
{
	Nvrtc nv;
	char err[256];
	if (!nvrtc_open(&nv, err, sizeof err)) {
		printf("skipped: no libnvrtc (%s): compilations started ahead\n", err);
		return;
	}
	/* the reference: compiled here, without a memo */
	NvrtcOutput ref;
	const char *opts[1] = {"--ptxas-options=-v"};
	CHECK(nvrtc_compile(&nv, kernel_src, "k.cu", 80, "", NVRTC_CUBIN, opts, 1, &ref, err, sizeof err));

	nv.memo = nvrtc_memo_new();
	CHECK(nvrtc_memo_start(nv.memo, kernel_src, "k.cu", 80, "", NVRTC_CUBIN, opts, 1));
	CHECK(!nvrtc_memo_start(nv.memo, kernel_src, "k.cu", 80, "", NVRTC_CUBIN, opts, 1)); /* known */
	/* one nobody asks for: nvrtc_memo_free waits for it */
	CHECK(nvrtc_memo_start(nv.memo, kernel_src, "other.cu", 80, "", NVRTC_CUBIN, opts, 1));
	/* the request the first one answers: found, not compiled again */
	NvrtcOutput got;
	uint8_t key[32];
	bool ok = false, ahead = false;
	nvrtc_request_key(kernel_src, "k.cu", 80, "", NVRTC_CUBIN, opts, 1, key);
	CHECK(nvrtc_memo_find(nv.memo, key, &got, &ok, &ahead, err, sizeof err));
	CHECK(ok && ahead && got.seconds == 0);
	CHECK(got.code && ref.code && got.code_len == ref.code_len &&
	      !memcmp(got.code, ref.code, ref.code_len));
	CHECK(got.log && strstr(got.log, "Used ")); /* ptxas's -v report came with it */
	nvrtc_output_free(&got);
	/* and through nvrtc_compile, as the variant search asks */
	CHECK(nvrtc_compile(&nv, kernel_src, "k.cu", 80, "", NVRTC_CUBIN, opts, 1, &got, err, sizeof err));
	CHECK(got.seconds == 0 && !got.ptx && got.code_len == ref.code_len);
	nvrtc_output_free(&got);
	/* a failure compiled ahead is a failure when asked */
	CHECK(nvrtc_memo_start(nv.memo, "not C++ either", "k.cu", 80, "", NVRTC_CUBIN, opts, 1));
	CHECK(!nvrtc_compile(&nv, "not C++ either", "k.cu", 80, "", NVRTC_CUBIN, opts, 1, &got, err,
	                     sizeof err));
	CHECK(strstr(err, "nvrtc") != NULL);
	nvrtc_output_free(&got);
	nvrtc_memo_free(nv.memo);
	nvrtc_output_free(&ref);
	nvrtc_close(&nv);
}

int main(void)
{
	test_keys();
	test_store();
	test_with_nvrtc();
	test_ahead();
	if (failures) {
		printf("%d checks failed\n", failures);
		return 1;
	}
	return 0;
}
