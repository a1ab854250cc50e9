"""``mg.nn.utils.parametrizations``: parametrizations written with ``nn.utils.parametrize`` - here
``spectral_norm``, ``weight_norm`` and ``orthogonal``, PyTorch's.

NOTE [ Spectral normalization divides by a power iteration's estimate ]
    ``spectral_norm(layer)`` registers ``_SpectralNorm`` on ``layer.weight``: each read is the weight divided
    by ``sigma``, an estimate of its largest singular value, so the layer's Lipschitz constant stays near 1
    (SN-GAN's discriminators). The weight is seen as a matrix (``dim`` first - 1 for a transposed
    convolution - the rest flattened); two buffers ``_u`` and ``_v`` (unit vectors, drawn from a normal
    distribution when the parametrization is made, then 15 power iterations) are refined by
    ``n_power_iterations`` more at every read in training mode, with recording off:
    ``u = normalize(W v)``, ``v = normalize(W^T u)``. Then ``sigma = u . (W v)`` with recording on, so the
    gradient of ``W / sigma`` reaches ``W`` through both the division and ``sigma`` (``DivBackward0`` over
    ``VdotBackward0``, as PyTorch's graph). In eval mode the vectors stay as they are. A 1-D weight is only
    normalized.

Example:
    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)
    >>> layer = mg.nn.utils.parametrizations.spectral_norm(mg.nn.Linear(4, 3))
    >>> round(float(mg.linalg.matrix_norm(layer.weight, ord=2)), 3)
    1.0
"""

from __future__ import annotations

from typing import Any

from ... import creation
from ...autograd.grad_mode import no_grad
from ...dtypes import finfo
from ...linalg import householder_product, solve
from ...ops import cat, geqrf, matrix_exp, mv, vdot
from ...ops.weight_norm import _weight_norm, norm_except_dim
from ...tensor import Tensor
from .. import functional as F
from ..conv import _ConvTransposeNd
from ..module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm", "orthogonal"]

class _SpectralNorm(Module):
    """``weight / sigma``, sigma a power iteration's estimate of the weight's largest singular value (NOTE)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._as_matrix(weight)
            h, w = matrix.shape
            self.register_buffer("_u", F.normalize(matrix.new_empty(h).normal_(0, 1), dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(matrix.new_empty(w).normal_(0, 1), dim=0, eps=self.eps))
            self._power_method(matrix, 15)

    def _as_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix: ``dim`` first, the other dims flattened."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix: Tensor, iterations: int) -> None:
        """Refine ``_u`` and ``_v`` in place, with recording off (minigrad has no complex dtypes: ``W^H`` is
        ``W^T``)."""
        with no_grad():
            for _ in range(iterations):
                self._u.copy_(F.normalize(mv(matrix, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(matrix.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        matrix = self._as_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u = self._u.clone(memory_format="contiguous_format")
        v = self._v.clone(memory_format="contiguous_format")
        return weight / vdot(u, mv(matrix, v))

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration at every read in training
    mode (NOTE [ Spectral normalization divides by a power iteration's estimate ]); ``dim`` defaults to 1 for
    a transposed convolution, 0 otherwise. Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module



class _WeightNorm(Module):
    """``g * v / ||v||`` from the two originals, ``original0`` the magnitude ``g`` and ``original1`` the
    direction ``v`` (NOTE [ Weight normalization keeps a magnitude and a direction ] in ``weight_norm.py``)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Split ``module.<name>`` into a magnitude (``parametrizations.<name>.original0``) and a direction
    (``original1``), recombined at every read; ``dim=None`` normalizes the whole tensor. A state dict saved
    by the older ``nn.utils.weight_norm`` (``<name>_g``, ``<name>_v``) loads into it. Returns ``module``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict: Any, prefix: str, local_metadata: dict, strict: bool,
                                 missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# NOTE [ An orthogonal weight is a map of unconstrained parameters ]
#     ``orthogonal(layer)`` keeps ``layer.weight`` orthogonal (``W^T W = I`` for a tall one, ``W W^T = I`` for a
#     wide one) while an optimizer moves the original freely: each read maps the original ``X`` to an
#     orthogonal matrix. ``matrix_exp`` (a square weight's default) and ``cayley`` take the lower triangle of
#     ``X`` as a skew-symmetric ``A = X - X^T`` and return ``exp(A)`` or ``(I - A/2)^-1 (I + A/2)``;
#     ``householder`` (a rectangular weight's default) reads the columns below the diagonal as reflectors
#     and multiplies them out (``linalg.householder_product``). With ``use_trivialization`` (the default)
#     the map's result is multiplied by a buffer ``base``, the orthogonal matrix the weight had when the
#     parametrization was made (or was last assigned), and the original starts at the map's preimage of
#     the identity: the first read gives the weight its starting value, and training moves around ``base``
#     rather than around the identity. minigrad's tensors are real, so ``X^H`` is ``X^T``.


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.shape[-2], Q.shape[-1]
    eye = creation.eye(k, dtype=Q.dtype, device=Q.device)
    return bool((Q.mT @ Q).allclose(eye, atol=10.0 * n * finfo(Q.dtype).eps))


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of ``A = QR`` (``A`` tall) with ``diag(R)`` non-negative."""
    X, tau = geqrf(A)
    Q = householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


_MAPS = ("matrix_exp", "cayley", "householder")


class _Orthogonal(Module):
    """The map from an unconstrained original to an orthogonal weight (NOTE [ An orthogonal weight is a map of
    unconstrained parameters ])."""

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = matrix_exp(A)
            else:
                eye = creation.eye(n, dtype=A.dtype, device=A.device)
                Q = solve(eye.add(A, alpha=-0.5), eye.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)  # the signs kept on X's diagonal
        if "base" in self._buffers:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            return self._preimage(Q)

    def _preimage(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if "base" not in self._buffers:
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when use_trivialization=False.")
            A, tau = geqrf(Q)  # the reflectors of Q itself; the signs of R's diagonal kept on A's
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # completed to a square matrix with random columns
            N = creation.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_eye = creation.zeros_like(Q_init)
        neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_eye


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Keep ``module.<name>`` (a matrix or a batch of them) orthogonal, as a map of an unconstrained original
    (NOTE [ An orthogonal weight is a map of unconstrained parameters ]): ``orthogonal_map`` one of
    ``"matrix_exp"`` (a square weight's default), ``"cayley"``, ``"householder"`` (a rectangular one's).
    Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
