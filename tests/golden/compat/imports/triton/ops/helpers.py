from .. import jit


@jit
def twice(x):
    return x * 2
