"""``minigrad.special``: PyTorch's ``torch.special`` names for the special functions minigrad has (``erf``,
``erfc``, ``erfinv``, ``expit``, ``logit``, ``xlogy``, ``sinc``, ``digamma``/``psi``, ``gammaln``, ``polygamma``,
``multigammaln``, the Bessel functions ``i0`` and ``i1`` ...).

The ops live with their families under ``minigrad/ops/`` (``ops/math.py``, ``ops/pointwise.py``,
``ops/logarithm.py``, ``ops/activation.py``, ``ops/gamma.py``, ``ops/bessel.py``); this module gives them the names ``torch.special`` uses,
so ``mg.special.erfinv(x)`` makes the same node as ``x.erfinv()`` (``ErfinvBackward0``).

Example:
    >>> import minigrad as mg
    >>> f"{mg.special.erfinv(mg.tensor(0.5)).item():.6f}"  # (this module's round is torch.special.round)
    '0.476936'
"""

from __future__ import annotations

from .ops import erf, erfc, erfinv, exp2, expm1, log1p, log_softmax, logit, logsumexp, sinc, softmax, xlogy
from .ops import sigmoid as expit
from .ops import digamma, polygamma
from .ops import digamma as psi, lgamma as gammaln, mvlgamma as multigammaln  # (ops/gamma.py)
from .ops import i0
from .ops.bessel import special_i1 as i1  # (ops/bessel.py)
from .ops.special_functions import special_entr as entr, special_erfcx as erfcx, special_i0e as i0e  # (ops/special_functions.py)
from .ops.special_functions import special_i1e as i1e, special_log_ndtr as log_ndtr, special_ndtr as ndtr
from .ops.special_functions import special_ndtri as ndtri, special_round as round, special_xlog1py as xlog1py
from .ops.special_functions import special_modified_bessel_i0 as modified_bessel_i0
from .ops.special_functions import special_modified_bessel_i1 as modified_bessel_i1
from .ops.special_functions import special_spherical_bessel_j0 as spherical_bessel_j0
from .ops.special_bessel import special_bessel_j0 as bessel_j0, special_bessel_j1 as bessel_j1  # (ops/special_bessel.py)
from .ops.special_bessel import special_bessel_y0 as bessel_y0, special_bessel_y1 as bessel_y1, special_airy_ai as airy_ai
from .ops.special_bessel import special_modified_bessel_k0 as modified_bessel_k0
from .ops.special_bessel import special_modified_bessel_k1 as modified_bessel_k1
from .ops.special_bessel import special_scaled_modified_bessel_k0 as scaled_modified_bessel_k0
from .ops.special_bessel import special_scaled_modified_bessel_k1 as scaled_modified_bessel_k1
from .ops.incomplete_gamma import special_zeta as zeta, special_gammainc as gammainc  # (ops/incomplete_gamma.py)
from .ops.incomplete_gamma import special_gammaincc as gammaincc
from .ops.orthogonal_polynomials import special_chebyshev_polynomial_t as chebyshev_polynomial_t  # (ops/orthogonal_polynomials.py)
from .ops.orthogonal_polynomials import special_chebyshev_polynomial_u as chebyshev_polynomial_u
from .ops.orthogonal_polynomials import special_chebyshev_polynomial_v as chebyshev_polynomial_v
from .ops.orthogonal_polynomials import special_chebyshev_polynomial_w as chebyshev_polynomial_w
from .ops.orthogonal_polynomials import special_shifted_chebyshev_polynomial_t as shifted_chebyshev_polynomial_t
from .ops.orthogonal_polynomials import special_shifted_chebyshev_polynomial_u as shifted_chebyshev_polynomial_u
from .ops.orthogonal_polynomials import special_shifted_chebyshev_polynomial_v as shifted_chebyshev_polynomial_v
from .ops.orthogonal_polynomials import special_shifted_chebyshev_polynomial_w as shifted_chebyshev_polynomial_w
from .ops.orthogonal_polynomials import special_hermite_polynomial_h as hermite_polynomial_h
from .ops.orthogonal_polynomials import special_hermite_polynomial_he as hermite_polynomial_he
from .ops.orthogonal_polynomials import special_laguerre_polynomial_l as laguerre_polynomial_l
from .ops.orthogonal_polynomials import special_legendre_polynomial_p as legendre_polynomial_p

__all__ = ["erf", "erfc", "erfinv", "expit", "exp2", "expm1", "log1p", "logit", "xlogy", "sinc", "softmax", "log_softmax",
           "logsumexp", "digamma", "psi", "gammaln", "polygamma", "multigammaln", "i0", "i1"]
__all__ += ["entr", "erfcx", "i0e", "i1e", "log_ndtr", "ndtr", "ndtri", "round", "xlog1py"]
__all__ += ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
            "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
            "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
            "legendre_polynomial_p"]
__all__ += ["modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0"]
__all__ += ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
            "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai", "zeta", "gammainc", "gammaincc"]
