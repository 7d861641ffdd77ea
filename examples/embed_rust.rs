// embed_rust.rs: using tile from Rust, through the C API and nothing else.
//
// The few tile.h declarations this program needs are written out below as
// `extern "C"` items (no bindgen, no crate), and wrapped in types whose Drop
// releases the handle and whose methods turn a failed call into an Err
// carrying tile_errmsg. It compiles a kernel that scales the rows of a
// matrix and adds a bias (masked at the ragged last column block), launches
// it with arguments the library specializes on (as Triton's launcher does)
// and again through a thunk (the kernel as an extern "C" fn), and checks both
// against a Rust loop. A kernel with a mistake in it shows the diagnostic.
// Prints nothing and exits 0 on success.
//
//     rustc embed_rust.rs -l tile $(pkg-config --libs-only-L tile | sed 's/-L/-L /')
#![allow(non_camel_case_types)]

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::process::exit;
use std::ptr;

// ---- tile.h, the part used here ---------------------------------------------------

#[repr(C)]
struct tile_context {
    _opaque: [u8; 0],
}
#[repr(C)]
struct tile_module {
    _opaque: [u8; 0],
}
#[repr(C)]
struct tile_kernel {
    _opaque: [u8; 0],
}
#[repr(C)]
struct tile_buffer {
    _opaque: [u8; 0],
}

// C enums are ints; the values are tile.h's.
type tile_status = c_int;
const TILE_OK: tile_status = 0;
const TILE_ERROR_COMPILE: tile_status = 2;
type tile_dtype = c_int;
const TILE_FP32: tile_dtype = 14;

// tile_arg: {kind, dtype, union of the value}. Built only with tile.h's
// constructors, so the union's variants need not be spelled out here; one of
// pointer size and alignment gives it the C layout.
#[repr(C)]
#[derive(Clone, Copy)]
struct tile_arg {
    kind: c_int,
    dtype: c_int,
    value: *mut c_void,
}

extern "C" {
    fn tile_status_string(s: tile_status) -> *const c_char;
    fn tile_context_create(out: *mut *mut tile_context, opt: *const c_void) -> tile_status;
    fn tile_context_destroy(ctx: *mut tile_context);
    fn tile_errmsg(ctx: *const tile_context) -> *const c_char;
    fn tile_module_load_source(
        ctx: *mut tile_context,
        name: *const c_char,
        src: *const c_char,
        len: usize,
        out: *mut *mut tile_module,
    ) -> tile_status;
    fn tile_module_destroy(m: *mut tile_module);
    fn tile_kernel_get_typed(
        m: *mut tile_module,
        name: *const c_char,
        args: *const tile_arg,
        nargs: usize,
        opt: *const c_void,
        out: *mut *mut tile_kernel,
    ) -> tile_status;
    fn tile_kernel_destroy(k: *mut tile_kernel);
    fn tile_kernel_thunk(k: *mut tile_kernel, f: *mut Option<unsafe extern "C" fn()>) -> tile_status;
    fn tile_launch(
        k: *mut tile_kernel,
        grid: *const u32,
        args: *const tile_arg,
        nargs: usize,
        stream: *mut c_void,
    ) -> tile_status;
    fn tile_synchronize(ctx: *mut tile_context) -> tile_status;
    fn tile_buffer_alloc(ctx: *mut tile_context, bytes: usize, out: *mut *mut tile_buffer) -> tile_status;
    fn tile_buffer_free(b: *mut tile_buffer);
    fn tile_buffer_ptr(b: *const tile_buffer) -> *mut c_void;
    fn tile_buffer_upload(b: *mut tile_buffer, off: usize, src: *const c_void, n: usize) -> tile_status;
    fn tile_buffer_download(b: *const tile_buffer, off: usize, dst: *mut c_void, n: usize) -> tile_status;
    fn tile_arg_ptr(p: *mut c_void, pointee: tile_dtype) -> tile_arg;
    fn tile_arg_i32(v: i32) -> tile_arg;
    fn tile_arg_f32(v: f32) -> tile_arg;
}

// The thunk's signature: the runtime parameters, then the grid and a stream.
type ScaleRowsFn =
    unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void, f32, i32, i32, u32, u32, u32, *mut c_void) -> c_int;

// ---- a small safe wrapper ----------------------------------------------------------

#[derive(Debug)]
struct TileError {
    status: tile_status,
    message: String,
}

struct Context(*mut tile_context);
struct Module<'c>(*mut tile_module, &'c Context);
struct Kernel<'c>(*mut tile_kernel, &'c Context);
struct Buffer<'c>(*mut tile_buffer, &'c Context);

impl Drop for Context {
    fn drop(&mut self) {
        unsafe { tile_context_destroy(self.0) }
    }
}
impl Drop for Module<'_> {
    fn drop(&mut self) {
        unsafe { tile_module_destroy(self.0) }
    }
}
impl Drop for Kernel<'_> {
    fn drop(&mut self) {
        unsafe { tile_kernel_destroy(self.0) }
    }
}
impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        unsafe { tile_buffer_free(self.0) }
    }
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

impl Context {
    fn new() -> Result<Context, TileError> {
        let mut ctx = ptr::null_mut();
        let st = unsafe { tile_context_create(&mut ctx, ptr::null()) };
        if st != TILE_OK {
            return Err(TileError { status: st, message: text(unsafe { tile_status_string(st) }) });
        }
        Ok(Context(ctx))
    }
    fn check(&self, st: tile_status) -> Result<(), TileError> {
        if st == TILE_OK {
            return Ok(());
        }
        Err(TileError { status: st, message: text(unsafe { tile_errmsg(self.0) }) })
    }
    fn load(&self, name: &str, source: &str) -> Result<Module<'_>, TileError> {
        let cname = CString::new(name).unwrap();
        let mut m = ptr::null_mut();
        let st = unsafe {
            tile_module_load_source(self.0, cname.as_ptr(), source.as_ptr() as *const c_char, source.len(), &mut m)
        };
        self.check(st)?;
        Ok(Module(m, self))
    }
    fn upload(&self, data: &[f32]) -> Result<Buffer<'_>, TileError> {
        let bytes = std::mem::size_of_val(data);
        let mut b = ptr::null_mut();
        self.check(unsafe { tile_buffer_alloc(self.0, bytes, &mut b) })?;
        let buf = Buffer(b, self);
        self.check(unsafe { tile_buffer_upload(b, 0, data.as_ptr() as *const c_void, bytes) })?;
        Ok(buf)
    }
}

impl Module<'_> {
    fn kernel(&self, name: &str, args: &[tile_arg]) -> Result<Kernel<'_>, TileError> {
        let cname = CString::new(name).unwrap();
        let mut k = ptr::null_mut();
        let st =
            unsafe { tile_kernel_get_typed(self.0, cname.as_ptr(), args.as_ptr(), args.len(), ptr::null(), &mut k) };
        self.1.check(st)?;
        Ok(Kernel(k, self.1))
    }
}

impl Kernel<'_> {
    fn launch(&self, grid: [u32; 3], args: &[tile_arg]) -> Result<(), TileError> {
        let ctx = self.1;
        ctx.check(unsafe { tile_launch(self.0, grid.as_ptr(), args.as_ptr(), args.len(), ptr::null_mut()) })?;
        ctx.check(unsafe { tile_synchronize(ctx.0) })
    }
    fn thunk(&self) -> Result<unsafe extern "C" fn(), TileError> {
        let mut f = None;
        self.1.check(unsafe { tile_kernel_thunk(self.0, &mut f) })?;
        Ok(f.expect("tile_kernel_thunk returned TILE_OK and no function"))
    }
}

impl Buffer<'_> {
    fn ptr(&self) -> *mut c_void {
        unsafe { tile_buffer_ptr(self.0) }
    }
    fn download(&self, out: &mut [f32]) -> Result<(), TileError> {
        let bytes = std::mem::size_of_val(out);
        self.1.check(unsafe { tile_buffer_download(self.0, 0, out.as_mut_ptr() as *mut c_void, bytes) })
    }
}

// ---- the program ----------------------------------------------------------------

const SOURCE: &str = r#"import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, scale_ptr, out_ptr, bias, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    s = tl.load(scale_ptr + row)
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x * s + bias, mask=mask)
"#;

const BROKEN: &str = r#"import triton
import triton.language as tl


@triton.jit
def broken(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + undefined_name)
"#;

const ROWS: usize = 5;
const COLS: usize = 300; // not a multiple of BLOCK: the last block is masked
const BLOCK: u32 = 128;

fn expect(out: &[f32], x: &[f32], scale: &[f32], bias: f32, how: &str) -> Result<(), String> {
    for r in 0..ROWS {
        for c in 0..COLS {
            let want = x[r * COLS + c] * scale[r] + bias;
            let got = out[r * COLS + c];
            if (got - want).abs() > 1e-5 * (1.0 + want.abs()) {
                return Err(format!("{}: out[{}][{}] = {}, expected {}", how, r, c, got, want));
            }
        }
    }
    Ok(())
}

fn run() -> Result<(), String> {
    let err = |what: &str, e: TileError| format!("{}: {}", what, e.message);
    let ctx = Context::new().map_err(|e| err("context", e))?;
    let module = ctx.load("scale_rows.tile", SOURCE).map_err(|e| err("load", e))?;

    let x: Vec<f32> = (0..ROWS * COLS).map(|i| (i % 97) as f32 * 0.25 - 7.0).collect();
    let scale: Vec<f32> = (0..ROWS).map(|r| 1.0 + r as f32).collect();
    let bias = -0.5f32;
    let bx = ctx.upload(&x).map_err(|e| err("upload", e))?;
    let bscale = ctx.upload(&scale).map_err(|e| err("upload", e))?;
    let bout = ctx.upload(&vec![0.0f32; ROWS * COLS]).map_err(|e| err("upload", e))?;

    // Every parameter in order, BLOCK included: the library specializes on
    // them (16-byte aligned pointers, n_cols = 300 not divisible by 16).
    let args = unsafe {
        [
            tile_arg_ptr(bx.ptr(), TILE_FP32),
            tile_arg_ptr(bscale.ptr(), TILE_FP32),
            tile_arg_ptr(bout.ptr(), TILE_FP32),
            tile_arg_f32(bias),
            tile_arg_i32(ROWS as i32),
            tile_arg_i32(COLS as i32),
            tile_arg_i32(BLOCK as i32),
        ]
    };
    let kernel = module.kernel("scale_rows", &args).map_err(|e| err("specialize", e))?;
    let grid = [ROWS as u32, (COLS as u32 + BLOCK - 1) / BLOCK, 1];

    // 1. tile_launch with the same arguments
    kernel.launch(grid, &args).map_err(|e| err("launch", e))?;
    let mut out = vec![0.0f32; ROWS * COLS];
    bout.download(&mut out).map_err(|e| err("download", e))?;
    expect(&out, &x, &scale, bias, "tile_launch")?;

    // 2. the kernel as a Rust function (the thunk), after clearing the output
    let zeros = vec![0.0f32; ROWS * COLS];
    ctx.check(unsafe { tile_buffer_upload(bout.0, 0, zeros.as_ptr() as *const c_void, 4 * zeros.len()) })
        .map_err(|e| err("upload", e))?;
    let f = kernel.thunk().map_err(|e| err("thunk", e))?;
    let scale_rows: ScaleRowsFn = unsafe { std::mem::transmute(f) };
    let st = unsafe {
        scale_rows(bx.ptr(), bscale.ptr(), bout.ptr(), bias, ROWS as i32, COLS as i32, grid[0], grid[1], grid[2], ptr::null_mut())
    };
    ctx.check(st).map_err(|e| err("thunk call", e))?;
    ctx.check(unsafe { tile_synchronize(ctx.0) }).map_err(|e| err("synchronize", e))?;
    bout.download(&mut out).map_err(|e| err("download", e))?;
    expect(&out, &x, &scale, bias, "thunk")?;

    // 3. a mistake in a kernel comes back as an error with the diagnostic
    match ctx.load("broken.tile", BROKEN) {
        Ok(m) => {
            let args = unsafe { [tile_arg_ptr(bx.ptr(), TILE_FP32), tile_arg_i32(64)] };
            match m.kernel("broken", &args) {
                Ok(_) => return Err("broken kernel compiled".to_string()),
                Err(e) if e.status == TILE_ERROR_COMPILE && e.message.contains("undefined_name") => {}
                Err(e) => return Err(format!("broken kernel: unexpected error {:?}", e)),
            }
        }
        Err(e) if e.status == TILE_ERROR_COMPILE && e.message.contains("undefined_name") => {}
        Err(e) => return Err(format!("broken kernel: unexpected error {:?}", e)),
    }
    Ok(())
}

fn main() {
    if let Err(msg) = run() {
        eprintln!("embed_rust: {}", msg);
        exit(1);
    }
}
