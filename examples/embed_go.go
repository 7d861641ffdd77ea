// embed_go.go: using tile from Go, through cgo and tile.h.
//
// Compiles Triton's fused softmax (one program per row; a row of 100 in a
// block of 128, so each row's tail is masked), launches it with
// tile_launch on data uploaded from Go slices, calls it again through a thunk
// (a C function pointer, so a small C helper in the preamble calls it), and
// checks both against a Go loop. A kernel with a type
// error shows the diagnostic the library returns. Prints nothing and exits 0
// on success.
//
//	CGO_CFLAGS="$(pkg-config --cflags tile)" CGO_LDFLAGS="$(pkg-config --libs tile)" \
//	    go build embed_go.go
package main

/*
#include <stdint.h>
#include <stdlib.h>
#include <tile.h>

// The thunk's C signature: the runtime parameters, then the grid and a stream.
typedef int (*softmax_fn)(void *out, void *in, int32_t in_stride, int32_t out_stride,
                          int32_t n_cols, uint32_t gx, uint32_t gy, uint32_t gz, void *stream);

// Asks for the thunk and calls it: Go cannot call a C function pointer.
static tile_status call_softmax_thunk(tile_kernel *k, void *out, void *in, int32_t in_stride,
                                      int32_t out_stride, int32_t n_cols, uint32_t rows)
{
	void (*fn)(void);
	tile_status st = tile_kernel_thunk(k, &fn);
	if (st != TILE_OK)
		return st;
	return (tile_status)((softmax_fn)fn)(out, in, in_stride, out_stride, n_cols, rows, 1, 1, NULL);
}
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	"strings"
	"unsafe"
)

const source = `import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float('inf'))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)
`

const broken = `import triton
import triton.language as tl


@triton.jit
def broken(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + x_ptr)
`

const rows, cols = 7, 100 // a row of 100 in a block of 128: the tail is masked

// tileError is a failed call's status and the context's message.
type tileError struct {
	status C.tile_status
	msg    string
}

func (e *tileError) Error() string {
	return C.GoString(C.tile_status_string(e.status)) + ": " + e.msg
}

func check(ctx *C.tile_context, st C.tile_status) error {
	if st == C.TILE_OK {
		return nil
	}
	return &tileError{st, C.GoString(C.tile_errmsg(ctx))}
}

func load(ctx *C.tile_context, name, src string) (*C.tile_module, error) {
	cname, csrc := C.CString(name), C.CString(src)
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(csrc))
	var m *C.tile_module
	return m, check(ctx, C.tile_module_load_source(ctx, cname, csrc, C.size_t(len(src)), &m))
}

func kernel(ctx *C.tile_context, m *C.tile_module, name, signature string) (*C.tile_kernel, error) {
	cname, csig := C.CString(name), C.CString(signature)
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(csig))
	var k *C.tile_kernel
	return k, check(ctx, C.tile_kernel_get(m, cname, csig, nil, &k))
}

func expect(got, x []float32, how string) error {
	for r := 0; r < rows; r++ {
		row := x[r*cols : (r+1)*cols]
		max := float32(math.Inf(-1))
		for _, v := range row {
			if v > max {
				max = v
			}
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(float64(v - max))
		}
		for c, v := range row {
			want := math.Exp(float64(v-max)) / sum
			if d := math.Abs(float64(got[r*cols+c]) - want); d > 1e-6+1e-5*want {
				return fmt.Errorf("%s: out[%d][%d] = %g, expected %g", how, r, c, got[r*cols+c], want)
			}
		}
	}
	return nil
}

func run(ctx *C.tile_context) error {
	m, err := load(ctx, "softmax.tile", source)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	defer C.tile_module_destroy(m)
	k, err := kernel(ctx, m, "softmax_kernel", "*fp32:16,*fp32:16,i32,i32,i32,128")
	if err != nil {
		return fmt.Errorf("specialize: %w", err)
	}
	defer C.tile_kernel_destroy(k)

	x := make([]float32, rows*cols)
	for i := range x {
		x[i] = float32((i*37)%101)*0.1 - 5
	}
	bytes := C.size_t(4 * len(x))
	var in, out *C.tile_buffer
	if err := check(ctx, C.tile_buffer_alloc(ctx, bytes, &in)); err != nil {
		return err
	}
	defer C.tile_buffer_free(in)
	if err := check(ctx, C.tile_buffer_alloc(ctx, bytes, &out)); err != nil {
		return err
	}
	defer C.tile_buffer_free(out)
	if err := check(ctx, C.tile_buffer_upload(in, 0, unsafe.Pointer(&x[0]), bytes)); err != nil {
		return err
	}
	got := make([]float32, len(x))

	// 1. tile_launch with the runtime arguments
	args := []C.tile_arg{
		C.tile_arg_ptr(C.tile_buffer_ptr(out), C.TILE_FP32),
		C.tile_arg_ptr(C.tile_buffer_ptr(in), C.TILE_FP32),
		C.tile_arg_i32(cols), C.tile_arg_i32(cols), C.tile_arg_i32(cols),
	}
	grid := [3]C.uint32_t{rows, 1, 1}
	if err := check(ctx, C.tile_launch(k, &grid[0], &args[0], C.size_t(len(args)), nil)); err != nil {
		return fmt.Errorf("tile_launch: %w", err)
	}
	if err := check(ctx, C.tile_synchronize(ctx)); err != nil {
		return err
	}
	if err := check(ctx, C.tile_buffer_download(out, 0, unsafe.Pointer(&got[0]), bytes)); err != nil {
		return err
	}
	if err := expect(got, x, "tile_launch"); err != nil {
		return err
	}

	// 2. the thunk, after clearing the output
	zeros := make([]float32, len(x))
	if err := check(ctx, C.tile_buffer_upload(out, 0, unsafe.Pointer(&zeros[0]), bytes)); err != nil {
		return err
	}
	st := C.call_softmax_thunk(k, C.tile_buffer_ptr(out), C.tile_buffer_ptr(in), cols, cols, cols, rows)
	if err := check(ctx, st); err != nil {
		return fmt.Errorf("thunk: %w", err)
	}
	if err := check(ctx, C.tile_synchronize(ctx)); err != nil {
		return err
	}
	if err := check(ctx, C.tile_buffer_download(out, 0, unsafe.Pointer(&got[0]), bytes)); err != nil {
		return err
	}
	if err := expect(got, x, "thunk"); err != nil {
		return err
	}

	// 3. a type error in a kernel comes back as an error naming the line
	bm, err := load(ctx, "broken.tile", broken)
	if err == nil {
		defer C.tile_module_destroy(bm)
		var bk *C.tile_kernel
		bk, err = kernel(ctx, bm, "broken", "*fp32:16,64")
		if err == nil {
			C.tile_kernel_destroy(bk)
			return fmt.Errorf("broken kernel compiled")
		}
	}
	if te, ok := err.(*tileError); !ok || te.status != C.TILE_ERROR_COMPILE || !strings.Contains(te.msg, "broken.tile:8:") {
		return fmt.Errorf("broken kernel: unexpected error %v", err)
	}
	return nil
}

func main() {
	var ctx *C.tile_context
	if st := C.tile_context_create(&ctx, nil); st != C.TILE_OK {
		fmt.Fprintln(os.Stderr, "embed_go: cannot create a context:", C.GoString(C.tile_status_string(st)))
		os.Exit(1)
	}
	err := run(ctx)
	C.tile_context_destroy(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "embed_go:", err)
		os.Exit(1)
	}
}
