"""``mg.nn.utils.parametrizations``: parametrizations written with ``nn.utils.parametrize`` - here
``spectral_norm``, PyTorch's.

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

from ...autograd.grad_mode import no_grad
from ...ops import mv, vdot
from ...tensor import Tensor
from .. import functional as F
from ..conv import _ConvTransposeNd
from ..module import Module
from . import parametrize

__all__ = ["spectral_norm"]

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

