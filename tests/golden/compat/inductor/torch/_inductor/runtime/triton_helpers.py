# A stand-in for PyTorch's torch/_inductor/runtime/triton_helpers.py, written
# for this test: the same layout (a module of @triton.jit helpers beside host
# functions), a few helpers of the same names.
import triton
import triton.language as tl

libdevice = tl.extra.libdevice
math = tl.math


def set_driver_to_gpu():
    driver = triton.runtime.driver
    return driver


@triton.jit
def maximum(a, b):
    return tl.where(a > b, a, b)


@triton.jit
def max2(a, dim):
    return tl.reduce(a, dim, maximum)
