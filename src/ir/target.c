/* target.c: the named targets (target.h). */
#include "ir/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_name(TargetDesc *t, const char *name)
{
	snprintf(t->name, sizeof t->name, "%s", name);
}

const char *options_problem(int num_warps, int num_stages, char *buf, size_t n)
{
	if (num_warps < 1 || num_warps > 32 || (num_warps & (num_warps - 1)))
		snprintf(buf, n, "num_warps must be a power of two between 1 and 32, got %d", num_warps);
	else if (num_stages < 1 || num_stages > 8)
		snprintf(buf, n, "num_stages must be between 1 and 8, got %d", num_stages);
	else
		return NULL;
	return buf;
}

bool target_from_name(const char *name, TargetDesc *t)
{
	if (!name || !t) return false;
	memset(t, 0, sizeof *t);
	if (!strcmp(name, "cpu")) {
		t->kind = TARGET_CPU;
		set_name(t, "cpu");
		t->lanes_per_warp = 8; /* 8 x fp32 SIMD */
		t->max_threads = 1024;
		t->max_shared_bytes = 1 << 20;
		return true;
	}
	if (!strcmp(name, "cuda-emu")) {
		t->kind = TARGET_CPU;
		set_name(t, "cuda-emu");
		t->lanes_per_warp = 32;
		t->max_threads = 1024;
		t->max_shared_bytes = 227 * 1024;
		t->emulate = true;
		t->has_mma_sync = t->has_ldmatrix = t->has_cp_async = true;
		t->has_mma_fp8 = true; /* runs the thread program of sm_90a */
		return true;
	}
	if (!strncmp(name, "sm_", 3)) {
		const char *p = name + 3;
		char *end;
		long arch = strtol(p, &end, 10);
		if (end == p || arch < 80 || arch > 999 || (*end && strcmp(end, "a") != 0)) return false;
		if (strlen(name) >= sizeof t->name) return false;
		t->kind = TARGET_CUDA;
		set_name(t, name);
		t->arch = (int)arch;
		t->lanes_per_warp = 32;
		t->max_threads = 1024;
		if (arch >= 90) t->max_shared_bytes = 227 * 1024;
		else if (arch == 80 || arch == 87) t->max_shared_bytes = 163 * 1024;
		else t->max_shared_bytes = 99 * 1024;
		t->has_mma_sync = t->has_ldmatrix = t->has_cp_async = true;
		t->has_mma_fp8 = arch >= 89;
		return true;
	}
	return false;
}
