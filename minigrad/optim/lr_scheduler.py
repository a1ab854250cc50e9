"""Learning-rate schedulers (``mg.optim.lr_scheduler``): ``StepLR``, ``MultiStepLR``, ``ExponentialLR``,
``LinearLR``, ``CosineAnnealingLR``, ``CosineAnnealingWarmRestarts``, ``LambdaLR``, ``OneCycleLR``,
``SequentialLR``, ``ChainedScheduler``, ``ReduceLROnPlateau``, ``ConstantLR``, ``PolynomialLR``, ``MultiplicativeLR``
and ``CyclicLR``.

A scheduler sets each parameter group's ``lr`` at every ``scheduler.step()``; call it once per epoch,
after ``optimizer.step()``, as in PyTorch.

NOTE [ Schedulers chain ]
    PyTorch's schedulers are "chainable": ``StepLR``, ``MultiStepLR``, ``ConstantLR``, ``LinearLR``,
    ``ExponentialLR``, ``PolynomialLR``, ``CosineAnnealingLR`` and ``MultiplicativeLR`` compute the next
    ``lr`` from the group's *current* one (``lr * gamma`` at a step boundary; for the cosine, the ratio of
    two cosines), so two schedulers stepped back to back on one optimizer compose - each applies its factor
    to what the other left - and the printed learning rates carry the rounding of that product, step after
    step (``0.1 * 0.9 * 0.9 * 0.9`` is ``0.07290000000000002``, where the closed form ``0.1 * 0.9 ** 3``
    gives ``0.0729``). minigrad computes them so, with PyTorch's formulas; the closed forms
    (``_get_closed_form_lr``) serve ``step(epoch)``, as in PyTorch. The step a scheduler makes when it is
    built (``_is_initial``) leaves the lr as it is, but for ``ConstantLR`` and ``LinearLR``, which apply their
    first factor. ``LambdaLR``, ``OneCycleLR``, ``CyclicLR`` and ``CosineAnnealingWarmRestarts`` are closed
    forms in PyTorch too.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.zeros(1))
    >>> opt = mg.optim.SGD([w], lr=1.0)
    >>> sched = mg.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for _ in range(5):
    ...     lrs.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> lrs
    [1.0, 1.0, 0.5, 0.5, 0.25]
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import Any, Callable, Sequence

__all__ = [
    "LRScheduler", "StepLR", "CosineAnnealingLR", "LambdaLR", "MultiStepLR", "ExponentialLR", "LinearLR",
    "CosineAnnealingWarmRestarts", "OneCycleLR", "SequentialLR", "ReduceLROnPlateau", "ConstantLR", "PolynomialLR",
    "MultiplicativeLR", "CyclicLR", "ChainedScheduler",
]


class LRScheduler:
    """Base class: remembers each group's ``initial_lr`` and applies ``get_lr()`` on every ``step()``."""

    def __init__(self, optimizer: Any, last_epoch: int = -1) -> None:
        if not hasattr(optimizer, "param_groups"):
            raise TypeError(f"{type(self).__name__}(): expected an Optimizer, but got {type(optimizer).__name__}")
        self.optimizer = optimizer
        for g in optimizer.param_groups:
            g.setdefault("initial_lr", g["lr"])
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._is_initial = False  # True during the step it makes when it is built (NOTE [ Schedulers chain ])
        self._initial_step()

    def _initial_step(self) -> None:
        """The step a scheduler makes when it is built (or when ``SequentialLR`` hands over to it first)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        raise NotImplementedError(f"{type(self).__name__} must define get_lr() (the learning rates for last_epoch)")

    def get_last_lr(self) -> list[float]:
        """The learning rates set by the last ``step()``."""
        return list(self._last_lr)

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and set every group's ``lr`` from its current one (``get_lr``), or jump to ``epoch``
        and set it from the closed form, where the scheduler has one (NOTE [ Schedulers chain ])."""
        self._step_count += 1
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        """``step``'s change of the lrs, without counting a step (``SequentialLR`` restarts a scheduler so)."""
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for g, lr in zip(self.optimizer.param_groups, values):
            g["lr"] = lr
        self._last_lr = self._current()

    def _current(self) -> list[float]:
        """Each group's lr as it is now (what a chainable ``get_lr`` starts from)."""
        return [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """``lr = initial_lr * gamma ** (epoch // step_size)``."""

    def __init__(self, optimizer: Any, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        if not isinstance(step_size, int) or step_size <= 0:
            raise ValueError(f"StepLR(): step_size must be a positive int, but got {step_size!r}")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """``lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``."""

    def __init__(self, optimizer: Any, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if not isinstance(T_max, int) or T_max <= 0:
            raise ValueError(f"CosineAnnealingLR(): T_max must be a positive int, but got {T_max!r}")
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """PyTorch's recursive form: the ratio of two cosines applied to the current lr (the first step after
        a resume at ``last_epoch > 0`` and the step at a cycle's bottom take the closed form's terms)."""
        t, T = self.last_epoch, self.T_max
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:
            return [self.eta_min + (base - self.eta_min) * (1 + math.cos(t * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [lr + (base - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
                    for base, lr in zip(self.base_lrs, self._current())]
        return [(1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T)) * (lr - self.eta_min)
                + self.eta_min for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        cos = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (base - self.eta_min) * cos for base in self.base_lrs]


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``; one function, or one per parameter group."""

    def __init__(self, optimizer: Any, lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        fns = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        if len(fns) != n or not all(callable(f) for f in fns):
            raise ValueError(f"LambdaLR(): expected one callable or {n} callables (one per parameter group)")
        self.lr_lambdas = fns
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [base * fn(self.last_epoch) for base, fn in zip(self.base_lrs, self.lr_lambdas)]


class MultiStepLR(LRScheduler):
    """``lr = initial_lr * gamma ** (number of milestones <= epoch)``."""

    def __init__(self, optimizer: Any, milestones: Sequence[int], gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        times = self.milestones.count(self.last_epoch)  # (a milestone given twice decays twice, as PyTorch's)
        if not times:
            return self._current()
        return [lr * self.gamma ** times for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** bisect_right(self.milestones, self.last_epoch) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``lr = initial_lr * gamma ** epoch``."""

    def __init__(self, optimizer: Any, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor goes linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs, then stays.

    ``lr = initial_lr * (start + (end - start) * min(epoch, total_iters) / total_iters)``.
    """

    def __init__(self, optimizer: Any, start_factor: float = 1.0 / 3, end_factor: float = 1.0, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if not 0 < start_factor <= 1:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if not 0 <= end_factor <= 1:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        step = self.end_factor - self.start_factor
        factor = 1.0 + step / (self.total_iters * self.start_factor + (self.last_epoch - 1) * step)
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        frac = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * frac
        return [base * factor for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing that restarts (SGDR): ``T_cur`` counts epochs since the last restart, the
    period ``T_i`` starts at ``T_0`` and is multiplied by ``T_mult`` at each restart.

    ``lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``.
    """

    def __init__(self, optimizer: Any, T_0: int, T_mult: int = 1, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        cos = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * cos for base in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch (``T_cur += 1``, restarting at ``T_i``), or jump to a (fractional) ``epoch``."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0 and self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        elif epoch >= self.T_0:
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult**n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        for g, lr in zip(self.optimizer.param_groups, self.get_lr()):
            g["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]


def _per_group(name: str, value: Any, n: int) -> list[float]:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"expected {n} values for {name}, got {len(value)}")
        return list(value)
    return [value] * n


def _momentum_cycle(optimizer: Any, base_momentum: Any, max_momentum: Any,
                    last_epoch: int) -> tuple[bool, list[float], list[float]]:
    """``(use_beta1, lows, highs)`` for a scheduler that cycles momentum (or Adam's beta1) against the lr.

    On a fresh start each group begins at its high momentum and records both bounds, as PyTorch does.
    """
    defaults = getattr(optimizer, "defaults", {})
    if "momentum" not in defaults and "betas" not in defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    use_beta1 = "betas" in defaults
    groups = optimizer.param_groups
    lows = _per_group("base_momentum", base_momentum, len(groups))
    highs = _per_group("max_momentum", max_momentum, len(groups))
    if last_epoch == -1:
        for g, low, high in zip(groups, lows, highs):
            _set_momentum(g, high, use_beta1)
            g["max_momentum"], g["base_momentum"] = high, low
    return use_beta1, lows, highs


def _set_momentum(group: dict[str, Any], value: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith): warm up from ``max_lr / div_factor`` to ``max_lr`` over
    ``pct_start`` of the steps, then anneal to ``initial_lr / final_div_factor``; momentum (or
    Adam's beta1) moves the opposite way. Call ``step()`` after every batch.

    Phases end at step ``pct_start * total_steps - 1`` and ``total_steps - 1`` (with
    ``three_phase``: a symmetric descent back to the initial lr, then the annealing).
    """

    def __init__(self, optimizer: Any, max_lr: float | list[float], total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1) -> None:
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal = self._cos if anneal_strategy == "cos" else self._linear
        n = self.total_steps
        if three_phase:
            self._phases = [
                (float(pct_start * n) - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (float(2 * pct_start * n) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (n - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._phases = [
                (float(pct_start * n) - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (n - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        groups = optimizer.param_groups
        if last_epoch == -1:
            for g, top in zip(groups, _per_group("max_lr", max_lr, len(groups))):
                g["initial_lr"] = top / div_factor
                g["max_lr"] = top
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_cycle(optimizer, base_momentum, max_momentum, last_epoch)[0]
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _cos(start: float, end: float, pct: float) -> float:
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear(start: float, end: float, pct: float) -> float:
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for g in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self._phases):
                if step <= end or i == len(self._phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(g[lr0], g[lr1], pct))
                    if self.cycle_momentum:
                        _set_momentum(g, self._anneal(g[m0], g[m1], pct), self.use_beta1)
                    break
                start = end
        return lrs

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_anneal")}


class _SchedulerGroup(LRScheduler):
    """What ``SequentialLR`` and ``ChainedScheduler`` share: a state dict holding each driven scheduler's."""

    _schedulers: list[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        out["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        for sched, sd in zip(self._schedulers, state.pop("_schedulers")):
            sched.load_state_dict(sd)
        self.__dict__.update(state)


class SequentialLR(_SchedulerGroup):
    """Hand over from one scheduler to the next at each milestone epoch (warm-up, then decay).

    Each scheduler must drive the same optimizer; at milestone ``k`` the next
    scheduler restarts from its epoch 0.
    """

    def __init__(self, optimizer: Any, schedulers: Sequence[LRScheduler], milestones: Sequence[int],
                 last_epoch: int = -1) -> None:
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        for i, sched in enumerate(schedulers):
            _check_member("SequentialLR", i, sched)
            if sched.optimizer is not optimizer:
                raise ValueError("SequentialLR expects all schedulers to belong to the same optimizer, but got "
                                 f"scheduler {type(sched).__name__} at index {i} with another optimizer.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                f"milestone points, but got number of schedulers {len(schedulers)} and the number of milestones "
                f"to be equal to {len(milestones)}"
            )
        self._schedulers, self._milestones = list(schedulers), list(milestones)
        self.optimizer = optimizer
        self.last_epoch = last_epoch + 1
        for g in optimizer.param_groups:
            g["lr"] = g["initial_lr"]
        for sched in self._schedulers:  # undo the step each made when it was built
            sched.last_epoch -= 1
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self, epoch: int | None = None) -> None:
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            sched._update_lr(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


def _check_member(name: str, i: int, sched: Any) -> None:
    """What ``SequentialLR`` and ``ChainedScheduler`` ask of each scheduler they drive, in PyTorch's words."""
    if not hasattr(sched, "optimizer"):
        raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
    if isinstance(sched, ReduceLROnPlateau):
        raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs "
                         f"to be specified when calling `step`, but got one at index {i} in the given schedulers "
                         "sequence.")


class ChainedScheduler(_SchedulerGroup):
    """Step several schedulers of one optimizer together, each applying its factor to the lr the one before it
    left (NOTE [ Schedulers chain ]); ``get_last_lr()`` is the optimizer's after the last."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Any = None) -> None:
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        for i, sched in enumerate(schedulers):
            _check_member("ChainedScheduler", i, sched)
            if sched.optimizer is not optimizer:
                raise ValueError(f"ChainedScheduler expects all schedulers to belong to the same optimizer, but got "
                                 f"scheduler {type(sched).__name__} at index {i} has {sched.optimizer}, which is "
                                 f"different from {type(optimizer).__name__}.")
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = self._schedulers[-1]._current()

    def step(self) -> None:  # type: ignore[override]
        for sched in self._schedulers:
            sched.step()
        self._last_lr = self._schedulers[-1]._current()


class ReduceLROnPlateau:
    """Divide the lr by ``1/factor`` when a metric stops improving for ``patience`` epochs.

    Call ``scheduler.step(metric)`` once per epoch with the validation loss
    (``mode="min"``) or accuracy (``mode="max"``). An epoch improves when the
    metric beats the best so far by ``threshold`` (relative or absolute);
    after a reduction, ``cooldown`` epochs pass before bad epochs count again;
    the lr never goes below ``min_lr``, and changes smaller than ``eps`` are skipped.
    """

    def __init__(self, optimizer: Any, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | list[float] = 0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not hasattr(optimizer, "param_groups"):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.optimizer = optimizer
        self.min_lrs = _per_group("min_lr", min_lr, len(optimizer.param_groups))
        self.factor, self.patience, self.threshold, self.threshold_mode = factor, patience, threshold, threshold_mode
        self.mode, self.cooldown, self.eps = mode, cooldown, eps
        self.best = math.inf if mode == "min" else -math.inf
        self.cooldown_counter = 0
        self.num_bad_epochs = 0
        self.last_epoch = 0
        self._last_lr = [g["lr"] for g in optimizer.param_groups]

    def is_better(self, a: float, best: float) -> bool:
        """Whether metric ``a`` improves on ``best`` by more than the threshold."""
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold)

    def step(self, metrics: Any) -> None:
        """Record one epoch's metric; reduce the lr after more than ``patience`` bad epochs."""
        current = float(metrics)
        self.last_epoch += 1
        if self.is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for g, low in zip(self.optimizer.param_groups, self.min_lrs):
                old = float(g["lr"])
                new = max(old * self.factor, low)
                if old - new > self.eps:
                    g["lr"] = new
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)


class ConstantLR(LRScheduler):
    """``lr = initial_lr * factor`` for the first ``total_iters`` epochs, then ``initial_lr``."""

    def __init__(self, optimizer: Any, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr * (1.0 / self.factor) for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        factor = self.factor if self.last_epoch < self.total_iters else 1.0
        return [base * factor for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``lr = initial_lr * (1 - min(epoch, total_iters) / total_iters) ** power`` (0 from ``total_iters`` on)."""

    def __init__(self, optimizer: Any, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        decay = ((1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)) \
            ** self.power
        return [lr * decay for lr in self._current()]

    def _get_closed_form_lr(self) -> list[float]:
        factor = (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
        return [base * factor for base in self.base_lrs]


class MultiplicativeLR(LRScheduler):
    """Multiply each group's current lr by ``lr_lambda(epoch)`` at every step after the first
    (one function, or one per group): the one scheduler here with no closed form."""

    def __init__(self, optimizer: Any, lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        fns = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        if len(fns) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(fns)}")
        self.lr_lambdas = fns
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        groups = self.optimizer.param_groups
        if not self._is_initial:
            return [g["lr"] * fn(self.last_epoch) for g, fn in zip(groups, self.lr_lambdas)]
        return [g["lr"] for g in groups]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith): the lr climbs from ``base_lr`` to ``max_lr`` over
    ``step_size_up`` steps and back over ``step_size_down``, the amplitude scaled per cycle
    (``triangular``: 1, ``triangular2``: halved each cycle) or per step (``exp_range``:
    ``gamma ** step``); momentum (or Adam's beta1) moves the opposite way. Call ``step()`` after
    every batch.
    """

    def __init__(self, optimizer: Any, base_lr: float | list[float], max_lr: float | list[float],
                 step_size_up: int = 2000, step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float | list[float] = 0.8,
                 max_momentum: float | list[float] = 0.9, last_epoch: int = -1) -> None:
        groups = optimizer.param_groups
        bases = _per_group("base_lr", base_lr, len(groups))
        if last_epoch == -1:
            for lr, g in zip(bases, groups):
                g["lr"] = lr
                g["initial_lr"] = lr
        self.max_lrs = _per_group("max_lr", max_lr, len(groups))
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        if scale_fn is None:
            self._scale_fn = {"triangular": lambda x: 1.0, "triangular2": lambda x: 1 / (2.0 ** (x - 1)),
                              "exp_range": lambda x: gamma**x}[mode]
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        else:
            self._scale_fn, self.scale_mode = scale_fn, scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, self.base_momentums, self.max_momentums = _momentum_cycle(
                optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)  # base_lrs: the groups' initial_lr, set to base_lr above

    def get_lr(self) -> list[float]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        arg = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (top - base) * scale_factor * self._scale_fn(arg)
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for g, low, high in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(g, high - (high - low) * scale_factor * self._scale_fn(arg), self.use_beta1)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_scale_fn")}
