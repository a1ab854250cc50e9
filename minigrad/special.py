"""``minigrad.special``: PyTorch's ``torch.special`` names for the special functions minigrad has (``erf``,
``erfc``, ``erfinv``, ``expit``, ``logit``, ``xlogy``, ``sinc``, ``digamma``/``psi``, ``gammaln``, ``polygamma``,
``multigammaln``, the Bessel functions ``i0`` and ``i1`` ...).

The ops live with their families under ``minigrad/ops/`` (``ops/math.py``, ``ops/pointwise.py``,
``ops/logarithm.py``, ``ops/activation.py``, ``ops/gamma.py``, ``ops/bessel.py``); this module gives them the names ``torch.special`` uses,
so ``mg.special.erfinv(x)`` makes the same node as ``x.erfinv()`` (``ErfinvBackward0``).

Example:
    >>> import minigrad as mg
    >>> round(mg.special.erfinv(mg.tensor(0.5)).item(), 6)
    0.476936
"""

from __future__ import annotations

from .ops import erf, erfc, erfinv, exp2, expm1, log1p, log_softmax, logit, logsumexp, sinc, softmax, xlogy
from .ops import sigmoid as expit
from .ops import digamma, polygamma
from .ops import digamma as psi, lgamma as gammaln, mvlgamma as multigammaln  # (ops/gamma.py)
from .ops import i0
from .ops.bessel import special_i1 as i1  # (ops/bessel.py)

__all__ = ["erf", "erfc", "erfinv", "expit", "exp2", "expm1", "log1p", "logit", "xlogy", "sinc", "softmax", "log_softmax",
           "logsumexp", "digamma", "psi", "gammaln", "polygamma", "multigammaln", "i0", "i1"]
