"""CPU kernels (NumPy): pure functions over arrays, registered by op name.

NOTE [ Floating-point warnings stay inside the kernels ]
    ``log(0)``, ``1 / 0`` and ``0 / 0`` give ``-inf``, ``inf`` and ``nan``, as in
    PyTorch, which says nothing. NumPy would print a ``RuntimeWarning`` from
    the kernel's line for each. The filter below ignores ``RuntimeWarning``
    raised by code in ``minigrad.kernels`` only (a user's own NumPy code keeps
    its warnings), at no cost per call, unlike ``np.errstate`` around every
    kernel (~2.5 us). Kernels that would warn from inside NumPy's own Python
    code (``np.mean`` of an empty slice) are written so they don't.
"""

import warnings

from . import conv_nhwc, elementwise, linalg, nn, reduce, shape  # noqa: F401  (registration side effects)

warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"minigrad\.kernels(\.|$)")
