# __all__ limits what `import *` binds.
import triton

__all__ = ["listed"]


@triton.jit
def listed(x):
    return x * 2


@triton.jit
def not_listed(x):
    return x * 5
