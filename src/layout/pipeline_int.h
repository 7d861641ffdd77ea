/* pipeline_int.h: what software pipelining's two halves share: the loop
 * being pipelined and the loads chosen (pipeline_select.c), which
 * pipeline.c turns into buffers, copies and slot reads. */
#ifndef TILE_LAYOUT_PIPELINE_INT_H
#define TILE_LAYOUT_PIPELINE_INT_H

#include "layout/assign.h"
#include "layout/linear.h"

enum { MAX_PIPE_LOADS = 8 };

typedef struct PLoad {
	TirOp *op;
	ValId ptr, mask;
	ValId other; /* a value load's `other` if not all-zero bits: selected in after the read */
	const LinearLayout *cons; /* the first consumer's layout */
	bool value;               /* a value load (see above), not an operand load */
	int buf;
	int64_t slot_bytes;
	LinearLayout smem;
	PaddedShared pad;
} PLoad;

typedef struct Pipe {
	LayoutCtx *lc;
	TirFunc *f;
	TirOp *loop;
	TirBlock *body;
	TirOp *yield;
	int niters;
	bool *adv;      /* iter arg k can be recomputed for any iteration */
	uint8_t *memo;  /* per ValId: 0 unknown, 1 in the slice, 2 not */
	size_t nmemo;
	bool *used;     /* iter args the pipelined addresses need */
	uint8_t *feeds; /* per ValId: reaches a dot operand through the body */
	bool loads_ok;  /* address slices may hold loads (not iter args' updates) */
	/* a loop without a dot whose num_stages the source names: every load
	 * that reads nothing the body writes is a value load (Triton's
	 * pipelineWithoutDot) */
	bool no_dot;
	uint8_t *store_roots; /* per ValId: a kernel parameter the body writes through */
	bool store_unknown;   /* the body writes through a pointer of unknown origin */
	int nstores;          /* stores and atomics in the body (pipe_find_stores) */
	PLoad ld[MAX_PIPE_LOADS];
	int nld;
	/* index loads: the loads in the pipelined loads' address slices (a
	 * page table, kv_indices), carried one iteration ahead of the copies */
	TirOp *idx[MAX_PIPE_LOADS];
	int nidx;
} Pipe;

/* Bytes of an element of t (at least 1). */
static inline int pipe_elem_bytes(Type t)
{
	int b = dtype_bytes((DType)t.dt);
	return b > 0 ? b : 1;
}

/* ---- pipeline_select.c ---- */
/* Drops from P->ld the loads another chosen load's address is computed from
 * (a dot-less loop's kv_indices): they are carried as index loads, and a
 * buffered one would leave the address slices reading its slot. */
void pipe_drop_address_loads(Pipe *P);
int pipe_iter_index(const Pipe *P, ValId v);
bool pipe_index_load(const TirFunc *f, const TirOp *op);
void pipe_find_advanceable(Pipe *P);
void pipe_mark_iters(Pipe *P, ValId v, int depth);
void pipe_find_index_loads(Pipe *P, ValId v, int depth);
void pipe_find_stores(Pipe *P, const TirBlock *b, uint8_t *seen);
const LinearLayout *pipe_untrans(const Pipe *P, const TirOp *tr, const LinearLayout *l);
void pipe_find_feeds(Pipe *P);
bool pipe_candidate(Pipe *P, TirOp *op, PLoad *pl);

#endif
