import triton
import cyc_a


@triton.jit
def plus_one(x):
    return x + cyc_a.ONE
