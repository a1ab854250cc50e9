"""``torch.optim.swa_utils``: weight averaging (SWA) and exponential moving averages (EMA) of a model.

``AveragedModel(model)`` keeps a copy of the model whose parameters are the running average of the model's
(``update_parameters(model)`` after each optimizer step or epoch); ``get_ema_multi_avg_fn(decay)`` makes it an
exponential moving average instead, as diffusion and GPT training loops keep one. ``SWALR`` anneals the
learning rate to a constant for the averaging phase, and ``update_bn`` recomputes batch-norm statistics for
the averaged weights with one pass over the data.

Every average is PyTorch's arithmetic, step for step: a floating parameter moves by ``lerp_`` towards the
model's (weight ``1 - decay`` for EMA; for SWA ``1 / (n + 1)``, computed as PyTorch computes it, a float32
division of tensors), so an averaged model's values equal PyTorch's bit for bit.

Example:
    >>> import minigrad as mg
    >>> from minigrad.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
    >>> model = mg.nn.Linear(2, 1)
    >>> ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    >>> ema.update_parameters(model)  # the first call copies the model
    >>> int(ema.n_averaged)
    1
"""

from __future__ import annotations

import copy
import itertools
import math
from typing import Any, Callable, Iterable

from ..autograd.grad_mode import no_grad
from ..creation import tensor
from ..dtypes import int64
from ..nn.layers import _BatchNorm
from ..nn.module import Module
from ..tensor import Tensor
from .lr_scheduler import LRScheduler

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[list[Tensor], list[Tensor], Any], None]:
    """The EMA update of lists of parameters in place: ``ema.lerp_(model, 1 - decay)`` (an integer tensor:
    ``ema * decay + model * (1 - decay)``, written back)."""
    _check_decay(decay)

    def ema_update(ema_params: list[Tensor], current_params: list[Tensor], _: Any) -> None:
        with no_grad():
            if ema_params[0].dtype.is_floating:
                for e, c in zip(ema_params, current_params):
                    e.lerp_(c, 1 - decay)
            else:
                for e, c in zip(ema_params, current_params):
                    e.copy_(e * decay + c * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[list[Tensor], list[Tensor], Any], None]:
    """The SWA update of lists of parameters in place: the running mean, ``avg.lerp_(model, 1 / (n + 1))`` (an
    integer tensor: ``avg + (model - avg) / (n + 1)`` in integer arithmetic)."""
    def swa_update(averaged: list[Tensor], current: list[Tensor], num_averaged: Any) -> None:
        with no_grad():
            if averaged[0].dtype.is_floating:
                weight = 1 / (num_averaged + 1)  # (a tensor divided: float32, as PyTorch's, then its value)
                w = weight.item() if isinstance(weight, Tensor) else weight
                for a, c in zip(averaged, current):
                    a.lerp_(c, w)
            elif isinstance(num_averaged, Tensor):  # PyTorch's ``_foreach_addcdiv_`` of integers refuses
                raise RuntimeError(_INTEGER_ADDCDIV)
            else:
                for a, c in zip(averaged, current):
                    a.add_(c - a, alpha=1.0 / (num_averaged + 1))

    return swa_update


_INTEGER_ADDCDIV = ("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                    "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented "
                    "as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                    "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                    "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The EMA of one parameter, as a new tensor: ``decay * ema + (1 - decay) * model``."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The running mean of one parameter, as a new tensor: ``avg + (model - avg) / (n + 1)``."""
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` (on ``device``, if given) whose parameters are the average of ``model``'s over the calls
    of ``update_parameters``: equal weights by default (SWA), or by ``avg_fn`` (one parameter at a time, returning
    the new value) or ``multi_avg_fn`` (lists of parameters, in place). With ``use_buffers`` the buffers are
    averaged too; otherwise they are copied from the model at each update. ``n_averaged`` counts the updates.

    Calling it runs the copy (``forward``).
    """

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable[..., Tensor] | None = None,
                 multi_avg_fn: Callable[..., None] | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Average ``model``'s parameters (and buffers, with ``use_buffers``) into this copy's: the first call
        copies them, each later one applies the averaging function; then ``n_averaged`` counts one more."""
        mine = (itertools.chain(self.module.parameters(), self.module.buffers()) if self.use_buffers
                else self.parameters())
        theirs = (itertools.chain(model.parameters(), model.buffers()) if self.use_buffers else model.parameters())
        first = int(self.n_averaged) == 0  # (read on the host, as PyTorch's ``bool(self.n_averaged == 0)``)
        pairs = []
        with no_grad():
            for p_avg, p_model in zip(mine, theirs):
                other = p_model.detach().to(p_avg.device)
                pairs.append((p_avg.detach(), other))
                if first:
                    p_avg.detach().copy_(other)
            if not first:
                if self.multi_avg_fn is not None or self.avg_fn is None:
                    groups: dict[tuple[Any, Any], tuple[list[Tensor], list[Tensor]]] = {}
                    for a, m in pairs:  # by device and dtype, as PyTorch's multi-tensor grouping
                        groups.setdefault((a.device, a.dtype), ([], []))
                        groups[(a.device, a.dtype)][0].append(a)
                        groups[(a.device, a.dtype)][1].append(m)
                    for (device, _), (avgs, models) in groups.items():
                        n = self.n_averaged.to(device)
                        if self.multi_avg_fn is not None:
                            self.multi_avg_fn(avgs, models, n)
                        elif device.type != "cpu":  # PyTorch's default: the multi-tensor SWA where foreach runs
                            get_swa_multi_avg_fn()(avgs, models, n)
                        else:  # (and on the CPU, which has no foreach kernels, one tensor at a time)
                            for a, m in zip(avgs, models):
                                a.copy_(get_swa_avg_fn()(a, m, n))
                else:
                    for a, m in pairs:
                        a.copy_(self.avg_fn(a, m, self.n_averaged.to(a.device)))
            if not self.use_buffers:
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute every batch norm's running statistics in ``model`` with one pass over ``loader``: each layer's
    statistics reset, then a cumulative average over the batches (``momentum=None``), in training mode; the
    momenta and the mode put back after. A batch that is a list or tuple gives its first element."""
    momenta = {}
    for m in model.modules():
        if isinstance(m, _BatchNorm):
            m.reset_running_stats()
            momenta[m] = m.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for m in momenta:
        m.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for m, momentum in momenta.items():
        m.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` (one value, or one per group) over ``anneal_epochs``
    steps, by a cosine (``"cos"``) or a straight line (``"linear"``), then keep it there: PyTorch's formulas."""

    def __init__(self, optimizer: Any, swa_lr: Any, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        groups = optimizer.param_groups
        if isinstance(swa_lr, (list, tuple)):
            if len(swa_lr) != len(groups):
                raise ValueError(f"swa_lr must have the same length as optimizer.param_groups. swa_lr has "
                                 f"{len(swa_lr)} values, param_groups has {len(groups)}.")
            lrs = list(swa_lr)
        else:
            lrs = [swa_lr] * len(groups)
        for lr, group in zip(lrs, groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2 if self._anneal_strategy == "cos" else t

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

