# Helpers a kernel takes with `from star_helpers import *`.
import triton
import triton.language as tl
from star_more import *

FACTOR = 3
OFFSET = 100


@triton.jit
def scale(x):
    return x * FACTOR


@triton.jit
def _private_helper(x):
    return x - 1
