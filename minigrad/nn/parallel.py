"""``nn.DataParallel`` and ``nn.SyncBatchNorm``: the multi-device wrappers as they behave on one machine.

Course code written for several GPUs wraps its model (``model = nn.DataParallel(model)``) and converts its batch
norms (``nn.SyncBatchNorm.convert_sync_batchnorm(model)``). minigrad drives one device, which is what PyTorch does
with these on a machine of one: ``DataParallel`` with no GPU calls the module as it is, and with one moves the
module and the inputs to it and calls it there - no replicas, no scatter across devices - while its
``state_dict`` keys carry the ``module.`` prefix as PyTorch's do. ``SyncBatchNorm`` outside distributed training
is batch norm over the local batch, PyTorch's too.

Example:
    >>> import minigrad as mg
    >>> model = mg.nn.DataParallel(mg.nn.Linear(2, 3))
    >>> list(model.state_dict())
    ['module.weight', 'module.bias']
"""

from __future__ import annotations

from typing import Any

from ..kernels.backends import is_gpu_available
from ..tensor import Tensor
from .layers import _BatchNorm
from .module import Module

__all__ = ["DataParallel", "SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch norm over any input of two or more dims whose statistics, in distributed training, are those of the
    whole batch across processes; minigrad runs one process, so they are the local batch's (PyTorch's outside a
    process group)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: Any = None, device: Any = None, dtype: Any = None,
                 *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every batch norm in it replaced by a ``SyncBatchNorm`` holding the same parameters and
        running buffers (the objects themselves, as PyTorch's), its training mode kept."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            if module.track_running_stats:
                out.running_mean = module.running_mean
                out.running_var = module.running_var
                out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


def _to_device(value: Any, device: str) -> Any:
    """``value``'s tensors moved to ``device`` (tuples, lists and dicts walked), PyTorch's ``scatter`` to one device."""
    if isinstance(value, Tensor):
        return value.to(device)
    if isinstance(value, (tuple, list)):
        return type(value)(_to_device(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


class DataParallel(Module):
    """``module`` run on the machine's devices: with no GPU, as it is (``device_ids`` is ``[]``); with minigrad's
    one GPU, moved there and called with its inputs moved there (``device_ids`` ``[0]``)."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.dim = dim
        if not is_gpu_available():
            self.device_ids: list[Any] = []
            return
        self.device_ids = [0] if device_ids is None else [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device if output_device is not None else self.device_ids[0])
        self.src_device = "cuda"
        if len(self.device_ids) == 1:
            module.to(self.src_device)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in [*self.module.parameters(), *self.module.buffers()]:
            if t.device != self.src_device:
                raise RuntimeError(f"module must have its parameters and buffers on device cuda:0 (device_ids[0]) "
                                   f"but found one of them on device: {t.device}")
        return self.module(*_to_device(inputs, self.src_device), **_to_device(kwargs, self.src_device))


def _device_index(device: Any) -> int:
    index = device if isinstance(device, int) else getattr(device, "index", None)
    if index not in (0, None):
        raise RuntimeError(f"Invalid device id {index}: minigrad drives one GPU (device 0)")
    return 0
