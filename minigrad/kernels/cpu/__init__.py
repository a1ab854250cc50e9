"""CPU kernels (NumPy): pure functions over arrays, registered by op name.

Floating-point warnings from these kernels are silenced by the kernel layer:
see NOTE [ Floating-point warnings stay inside the kernels ] in ``kernels/api.py``.
"""

from . import conv_nhwc, elementwise, linalg, nn, reduce, shape  # noqa: F401  (registration side effects)
