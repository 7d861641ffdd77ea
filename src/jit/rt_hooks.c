/* rt_hooks.c: the functions JIT'd CPU kernels call for device_print,
 * device_assert and the special registers. `rt` is the launcher's
 * TileRuntimeHooks (or NULL); nothing here touches globals. */
#include "jit/orc.h"

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#include "ir/tir.h"

int64_t tile_rt_sreg(int32_t which)
{
	if (which == SREG_SMID) {
		int cpu = sched_getcpu();
		return cpu >= 0 ? cpu : 0;
	}
	struct timespec ts; /* %globaltimer counts nanoseconds of wall time too */
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int32_t tile_rt_spin(void *rt)
{
	TileRuntimeHooks *h = rt;
	return h && h->spin ? h->spin(h->user) : 0;
}

/* One line per value, whole however long the prefix or the value (a 512-byte
 * buffer cut a long prefix at 200 characters, and a wide %f value before its
 * newline), as the GPU's printf prints it. */
void tile_rt_print(void *rt, int32_t px, int32_t py, int32_t pz, int32_t tid, const int32_t *idx, int32_t nidx,
                   const char *prefix, int32_t operand, int32_t kind, int64_t ival, double fval)
{
	TileRuntimeHooks *h = rt;
	(void)tid;
	if (!h)
		return;
	StrBuf line = {0};
	sb_printf(&line, "pid (%d, %d, %d)", px, py, pz);
	if (nidx >= 0) {
		sb_puts(&line, " idx (");
		for (int32_t d = 0; d < nidx; d++)
			sb_printf(&line, "%s%*d", d ? ", " : "", (int)idx[nidx + d], idx[d]);
		sb_puts(&line, ")");
	}
	sb_puts(&line, prefix ? prefix : "");
	if (operand >= 0)
		sb_printf(&line, "(operand %d) ", operand);
	int digits = kind >> 8; /* RT_PRINT_HEX: the type's hex digits */
	switch ((RtPrintKind)(kind & 0xff)) {
	case RT_PRINT_INT: sb_printf(&line, "%" PRId64 "\n", ival); break;
	case RT_PRINT_UINT: sb_printf(&line, "%" PRIu64 "\n", (uint64_t)ival); break;
	case RT_PRINT_FLOAT: sb_printf(&line, "%f\n", fval); break;
	case RT_PRINT_HEX: {
		uint64_t bits = (uint64_t)ival;
		if (digits > 0 && digits < 16)
			bits &= ((uint64_t)1 << (4 * digits)) - 1;
		sb_printf(&line, "0x%0*" PRIx64 "\n", digits, bits);
		break;
	}
	case RT_PRINT_PTR: sb_printf(&line, "0x%" PRIx64 "\n", (uint64_t)ival); break;
	case RT_PRINT_NONE: sb_puts(&line, "\n"); break;
	default: sb_puts(&line, "?\n"); break;
	}
	if (h->print)
		h->print(h->user, line.s);
	else
		fputs(line.s, stdout);
	sb_free(&line);
}

void tile_rt_misaligned(void *rt, const int32_t *pid, const uint64_t *addr, const uint8_t *bad,
                        int32_t nthreads, int32_t lanes, int32_t align, int32_t shared,
                        const char *where)
{
	TileRuntimeHooks *h = rt;
	if (!h)
		return;
	int32_t t = 0;
	while (t < nthreads && !bad[t])
		t++;
	if (t == nthreads)
		return;
	__atomic_fetch_add(&h->fault_count, 1, __ATOMIC_SEQ_CST);
	if (!h->fault)
		return;
	if (lanes <= 0)
		lanes = 32;
	char msg[512];
	snprintf(msg, sizeof msg,
	         "misaligned address: thread %d (warp %d, lane %d) accesses %d bytes at %s %s%" PRIx64
	         ", which a GPU needs %d-byte aligned, at %s (program (%d, %d, %d))",
	         t, t / lanes, t % lanes, align, shared ? "shared-memory" : "global", shared ? "offset 0x" : "address 0x",
	         addr[t], align, where ? where : "?", pid[0], pid[1], pid[2]);
	h->fault(h->user, msg);
}

void tile_rt_assert(void *rt, const char *msg, int32_t px, int32_t py, int32_t pz, int32_t tid)
{
	TileRuntimeHooks *h = rt;
	if (!h)
		return;
	__atomic_fetch_add(&h->assert_count, 1, __ATOMIC_SEQ_CST);
	if (h->assert_fail) {
		int32_t pid[3] = {px, py, pz};
		h->assert_fail(h->user, msg ? msg : "", pid, tid);
	}
}
