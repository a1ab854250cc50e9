"""The lazy layers (``mg.nn.LazyLinear``, ``LazyConv2d``, ``LazyBatchNorm2d`` ...): PyTorch's layers that learn
their input size from their first call, and ``LazyModuleMixin``, what they share.

NOTE [ A lazy layer becomes its eager class at its first call ]
    ``nn.LazyLinear(10)`` is a ``Linear`` whose ``in_features`` is not known yet: its weight and bias are
    ``UninitializedParameter`` objects (NOTE [ An uninitialized parameter has a dtype and a device but no
    shape ] in ``nn/parameter.py``) and it prints ``in_features=0``. Two hooks wait for the first call: a
    forward pre-hook that reads the input's size, materializes the parameters, draws them with the eager
    layer's ``reset_parameters`` - from the default generator, at that moment, as PyTorch's - then removes
    itself and turns the module into a ``Linear`` (its class changes; the object, its parameters and an
    optimizer holding them stay); and a load pre-hook, so that ``load_state_dict`` of a checkpoint gives the
    parameters their shapes without a call. A model built of lazy layers (the way "Dive into Deep Learning"
    builds its models) is therefore initialized by a dummy batch, and its graph afterwards is the eager one's.

Example:
    >>> import minigrad as mg
    >>> net = mg.nn.Sequential(mg.nn.LazyLinear(4), mg.nn.ReLU(), mg.nn.LazyLinear(2))
    >>> net[0]
    LazyLinear(in_features=0, out_features=4, bias=True)
    >>> net(mg.ones(5, 3)).shape
    minigrad.Size([5, 2])
    >>> net[0], tuple(net[0].weight.shape)
    (Linear(in_features=3, out_features=4, bias=True), (4, 3))
"""

from __future__ import annotations

import itertools
from typing import Any

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from . import init
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, _ConvNd
from .layers import BatchNorm1d, BatchNorm2d, BatchNorm3d, Linear
from .module import Module
from .normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .parameter import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyConv3d", "LazyConvTranspose3d"]


class LazyModuleMixin:
    """A layer whose parameters wait for its first call (NOTE [ A lazy layer becomes its eager class at its
    first call ]). A subclass sets ``cls_to_become``, makes its parameters uninitialized, calls
    ``_wait_for_input()`` and writes ``initialize_parameters(input)``."""

    cls_to_become: type | None = None

    def _wait_for_input(self) -> None:
        """Register the two hooks that end the layer's laziness."""
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _lazy_load_hook(self, state_dict: Any, prefix: str, local_metadata: dict, strict: bool, missing_keys: list,
                        unexpected_keys: list, error_msgs: list) -> None:
        """Materialize each uninitialized tensor that the state dict has a value for, in that value's shape."""
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and t is not None and is_lazy(t) and not is_lazy(state_dict[key]):
                with no_grad():
                    t.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module is still uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module: Module, args: tuple, kwargs: dict | None = None) -> None:
        """The forward pre-hook: initialize from the call's input, then become the eager class."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is the last dim of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.bias = UninitializedParameter(device=device, dtype=dtype) if bias else None
        self._wait_for_input()

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    """The lazy convolutions: ``in_channels`` from the first input's channel dim."""

    def _lazy_conv(self, out_channels: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any, groups: int,
                   bias: bool, padding_mode: str, output_padding: Any, device: Any, dtype: Any) -> None:
        """The eager class's attributes for ``in_channels = 0`` (zero-sized, nothing drawn), then uninitialized
        parameters."""
        if self.transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        _ConvNd.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         output_padding, dtype=dtype, device=device)
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.bias = UninitializedParameter(device=device, dtype=dtype) if bias else None
        self._wait_for_input()

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if self.has_uninitialized_params():
            self.in_channels = input.shape[0 if input.dim() == self.n + 1 else 1]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups) + self.kernel_size
                else:
                    shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _conv(eager: type, transposed: bool) -> type:
    """The lazy class of a convolution, with PyTorch's signature (a transposed one's has ``output_padding``)."""
    if transposed:
        def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                     padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
            self._lazy_conv(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                            output_padding, device, dtype)
    else:
        def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                     dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                     device: Any = None, dtype: Any = None) -> None:
            self._lazy_conv(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, 0,
                            device, dtype)
    name = f"Lazy{eager.__name__}"
    doc = f"A ``{eager.__name__}`` whose ``in_channels`` is its first input's channel count."
    return type(name, (_LazyConvXdMixin, eager), {"cls_to_become": eager, "__init__": __init__, "__doc__": doc,
                                                  "__module__": __name__, "__qualname__": name})


LazyConv1d = _conv(Conv1d, False)
LazyConv2d = _conv(Conv2d, False)
LazyConvTranspose1d = _conv(ConvTranspose1d, True)
LazyConvTranspose2d = _conv(ConvTranspose2d, True)
LazyConv3d = _conv(Conv3d, False)
LazyConvTranspose3d = _conv(ConvTranspose3d, True)


class _LazyNormBase(LazyModuleMixin):
    """The lazy batch and instance norms: ``num_features`` from the first input's channel dim."""

    _no_batch_dim: int | None = None  # an instance norm's unbatched input has one dim fewer

    def __init__(self, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True, track_running_stats: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        self.cls_to_become.__init__(self, 0, eps, momentum, affine, track_running_stats, device=device, dtype=dtype)
        if affine:  # the eager layer's zero-sized ones: nothing drawn
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.register_buffer("running_mean", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("running_var", UninitializedBuffer(device=device, dtype=dtype))
        self._wait_for_input()

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[0 if input.dim() == self._no_batch_dim else 1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    self.bias.materialize((self.num_features,))
                    init.ones_(self.weight)
                    init.zeros_(self.bias)
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                    self.running_mean.zero_()
                    self.running_var.fill_(1)
                    self.num_batches_tracked.zero_()


def _norm(eager: type, no_batch_dim: int | None) -> type:
    """The lazy class of a norm, with PyTorch's defaults: affine, with running statistics - an instance norm's
    lazy form too, where the eager one has neither."""
    def __init__(self: Any, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None) -> None:
        _LazyNormBase.__init__(self, eps, momentum, affine, track_running_stats, device, dtype)
    name = f"Lazy{eager.__name__}"
    doc = f"A ``{eager.__name__}`` whose ``num_features`` is its first input's channel count."
    return type(name, (_LazyNormBase, eager), {"cls_to_become": eager, "__init__": __init__, "__doc__": doc,
                                               "_no_batch_dim": no_batch_dim, "__module__": __name__,
                                               "__qualname__": name})


LazyBatchNorm1d = _norm(BatchNorm1d, None)
LazyBatchNorm2d = _norm(BatchNorm2d, None)
LazyBatchNorm3d = _norm(BatchNorm3d, None)
LazyInstanceNorm1d = _norm(InstanceNorm1d, 2)
LazyInstanceNorm2d = _norm(InstanceNorm2d, 3)
LazyInstanceNorm3d = _norm(InstanceNorm3d, 4)
