"""``mg.nn.utils.spectral_norm`` and ``remove_spectral_norm``: PyTorch's older spectral normalization, a forward
pre-hook (``parametrizations.spectral_norm`` is the newer form, NOTE [ Spectral normalization divides by a
power iteration's estimate ]).

NOTE [ The older spectral norm is a forward pre-hook ]
    ``spectral_norm(layer)`` moves the Parameter to ``layer.weight_orig``, keeps two unit vectors as the
    buffers ``weight_u`` and ``weight_v`` (drawn from a normal distribution, no iterations yet), and makes
    ``layer.weight`` a plain tensor that a forward pre-hook - the ``SpectralNorm`` object - computes before
    every call: in training mode ``n_power_iterations`` steps refine ``v`` then ``u`` in place with recording
    off, then ``weight_orig / dot(u, W v)`` with recording on (``DivBackward0`` over ``DotBackward0``; the
    newer form's sigma is a ``vdot``). Two state-dict hooks are PyTorch's too: saving writes the form's
    version into the module's ``_metadata``, and loading a state dict saved before versions existed (one
    that has ``weight`` but no ``weight_v``) solves for ``v``. ``remove_spectral_norm`` computes the weight
    once more, without iterating, and makes it a Parameter again.

Example:
    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)
    >>> layer = mg.nn.utils.spectral_norm(mg.nn.Linear(4, 3))
    >>> sorted(layer.state_dict())
    ['bias', 'weight_orig', 'weight_u', 'weight_v']
"""

from __future__ import annotations

from typing import Any

from ...autograd.grad_mode import no_grad
from ...ops import dot, mv
from ...tensor import Tensor
from .. import functional as F
from ..conv import _ConvTransposeNd
from ..module import Module, Parameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that computes ``module.<name>`` from ``<name>_orig``, ``<name>_u`` and
    ``<name>_v`` (NOTE [ The older spectral norm is a forward pre-hook ])."""

    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix: ``dim`` first, the other dims flattened."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():  # the buffers refined in place; minigrad has no complex dtypes, so W^H is W^T
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mv(weight_mat, v), dim=0, eps=self.eps))
            u = u.clone(memory_format="contiguous_format")
            v = v.clone(memory_format="contiguous_format")
        return weight / dot(u, mv(weight_mat, v))

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat: Tensor, u: Tensor, target_sigma: Tensor) -> Tensor:
        """The ``v`` for which ``dot(u, W v)`` is ``target_sigma`` (a state dict saved without ``v``)."""
        v = ((weight_mat.t() @ weight_mat).pinverse() @ weight_mat.t() @ u.unsqueeze(1)).squeeze(1)
        return v.mul_(target_sigma / dot(u, mv(weight_mat, v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads a state dict saved before the form had a version (``weight`` saved, ``weight_v`` not): ``v`` is
    solved for from ``weight_orig``, ``weight`` and ``u``."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict: Any, prefix: str, local_metadata: dict, strict: bool, missing_keys: list,
                 unexpected_keys: list, error_msgs: list) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if version is None and all(key + s in state_dict for s in ("_orig", "_u", "_v")) and key not in state_dict:
            return  # saved by this version without metadata: nothing to convert
        missing = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            sigma = (weight_orig / state_dict.pop(key)).mean()
            state_dict[key + "_v"] = fn._solve_v_and_rescale(fn.reshape_weight_to_matrix(weight_orig),
                                                             state_dict[key + "_u"], sigma)


class SpectralNormStateDictHook:
    """Writes the form's version into the module's state-dict metadata, as PyTorch's."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: Any, prefix: str, local_metadata: dict) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by a power iteration's estimate of its spectral norm before every forward
    (NOTE [ The older spectral norm is a forward pre-hook ]); ``dim`` defaults to 1 for a transposed
    convolution, 0 otherwise. Returns ``module``."""
    if dim is None:
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``spectral_norm``: ``module.<name>`` a Parameter again, its hooks gone."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for hooks, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        for k, hook in hooks.items():
            if isinstance(hook, kind) and hook.fn.name == name:
                del hooks[k]
                break
    return module
