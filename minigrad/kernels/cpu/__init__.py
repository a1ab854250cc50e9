"""CPU kernels (NumPy): pure functions over arrays, registered by op name."""

from . import conv_nhwc, elementwise, linalg, nn, reduce, shape  # noqa: F401  (registration side effects)
