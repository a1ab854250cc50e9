"""L-BFGS (``torch.optim.LBFGS``): a quasi-Newton method that calls a closure several times per step.

Each ``step(closure)`` runs up to ``max_iter`` iterations. An iteration turns the flat gradient
into a search direction with the two-loop recursion over the last ``history_size`` pairs
``(s, y)`` of steps and gradient changes (Nocedal and Wright, *Numerical Optimization*,
algorithm 7.4), then moves along it: by ``lr`` (by ``min(1, 1/|g|_1) * lr`` on the very first
iteration), or by the step the strong-Wolfe line search finds (``line_search_fn="strong_wolfe"``:
bracketing, then zooming with cubic interpolation, Nocedal and Wright algorithms 3.5 and 3.6).
It stops early on a small gradient (``tolerance_grad``), a small change of the step or the loss
(``tolerance_change``), or ``max_eval`` closure calls. The order of operations and every rule
follow PyTorch's ``torch/optim/lbfgs.py``, so a program gets PyTorch's iterates.

The arithmetic is on the parameters' arrays (one flat vector), as a line search has nothing to
record: the closure's forward and backward are ordinary recorded ops.

Example:
    >>> import minigrad as mg
    >>> w = mg.tensor([1.5, -0.5], dtype=mg.float64, requires_grad=True)
    >>> opt = mg.optim.LBFGS([w], lr=1, line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - mg.tensor([3.0, 1.0], dtype=mg.float64)) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> [round(v, 6) for v in w.tolist()]
    [3.0, 1.0]
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from ..autograd.grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                  bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through ``(x1, f1)``, ``(x2, f2)`` with slopes ``g1``, ``g2``, kept
    within ``bounds`` (default: between the two points); their midpoint when the cubic has none."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = float(np.sqrt(d2_square))
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


class _Point:
    """One trial step ``t`` of the line search: the loss there, its gradient, the slope along ``d``."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t: float, f: float, g: np.ndarray, gtd: float) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def strong_wolfe(evaluate: Callable[[float], tuple[float, np.ndarray]], d: np.ndarray, t: float, f: float,
                 g: np.ndarray, gtd: float, c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_ls: int = 25) -> tuple[float, np.ndarray, float, int]:
    """A step ``t`` along ``d`` meeting the strong Wolfe conditions: ``(loss, grad, t, evaluations)``.

    ``evaluate(t)`` gives the loss and flat gradient at ``x + t * d``; ``f``, ``g``, ``gtd`` are those
    at ``t = 0`` (``gtd`` the slope ``g . d``, negative along a descent direction).
    """
    d_norm = float(np.abs(d).max())
    start = _Point(0.0, f, g.copy(), gtd)
    prev = start
    f_new, g_new = evaluate(t)
    trial = _Point(t, f_new, g_new, float(g_new.dot(d)))
    evals, ls_iter = 1, 0
    bracket: list[_Point] | None = None
    # 1. Bracketing: grow the step until an interval surely holds a point meeting both conditions.
    while ls_iter < max_ls:
        if trial.f > f + c1 * trial.t * gtd or (ls_iter > 1 and trial.f >= prev.f):
            bracket = [prev, _Point(trial.t, trial.f, trial.g.copy(), trial.gtd)]  # too far: the loss rose
            break
        if abs(trial.gtd) <= -c2 * gtd:
            return trial.f, trial.g, trial.t, evals  # both conditions hold
        if trial.gtd >= 0:
            bracket = [prev, _Point(trial.t, trial.f, trial.g.copy(), trial.gtd)]  # past a minimum
            break
        t = cubic_minimum(prev.t, prev.f, prev.gtd, trial.t, trial.f, trial.gtd,
                          bounds=(trial.t + 0.01 * (trial.t - prev.t), trial.t * 10))
        prev = _Point(trial.t, trial.f, trial.g.copy(), trial.gtd)
        f_new, g_new = evaluate(t)
        trial = _Point(t, f_new, g_new, float(g_new.dot(d)))
        evals += 1
        ls_iter += 1
    if bracket is None:  # out of evaluations while still growing: the last interval, zoom skipped
        bracket = [start, trial]
    # 2. Zoom: shrink the interval by cubic interpolation, keeping its low end the better point.
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    insufficient = False
    while ls_iter < max_ls:
        a, b = bracket[0].t, bracket[1].t
        if abs(b - a) * d_norm < tolerance_change:
            break
        t = cubic_minimum(a, bracket[0].f, bracket[0].gtd, b, bracket[1].f, bracket[1].gtd)
        t, insufficient = _away_from_the_ends(t, min(a, b), max(a, b), insufficient)
        f_new, g_new = evaluate(t)
        trial = _Point(t, f_new, g_new, float(g_new.dot(d)))
        evals += 1
        ls_iter += 1
        if trial.f > f + c1 * t * gtd or trial.f >= bracket[low].f:
            bracket[high] = _Point(t, trial.f, trial.g.copy(), trial.gtd)
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
            continue
        done = abs(trial.gtd) <= -c2 * gtd
        if not done and trial.gtd * (bracket[high].t - bracket[low].t) >= 0:
            bracket[high] = bracket[low]
        bracket[low] = _Point(t, trial.f, trial.g.copy(), trial.gtd)
        if done:
            break
    best = bracket[low]
    return best.f, best.g, best.t, evals


def _away_from_the_ends(t: float, lo: float, hi: float, insufficient: bool) -> tuple[float, bool]:
    """PyTorch's safeguard: a step within 10% of the interval's ends is moved to 10% inside it the
    second time in a row (or at once when it falls outside)."""
    eps = 0.1 * (hi - lo)
    if min(hi - t, t - lo) >= eps:
        return t, False
    if insufficient or t >= hi or t <= lo:
        return (hi - eps if abs(t - hi) < abs(t - lo) else lo + eps), False
    return t, True


class LBFGS(Optimizer):
    """L-BFGS over all parameters as one vector (one parameter group), as ``torch.optim.LBFGS``.

    Args:
        params: the parameters.
        lr: the step length (1 by default; the line search starts from it).
        max_iter: iterations per ``step``.
        max_eval: closure calls per ``step`` (``max_iter * 5 // 4`` by default).
        tolerance_grad: stop when every gradient entry is at most this in size.
        tolerance_change: stop when the step or the loss changes by less.
        history_size: how many ``(s, y)`` pairs the direction uses.
        line_search_fn: None (fixed steps) or ``"strong_wolfe"``.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS(): only 'strong_wolfe' is supported as line_search_fn, but got {line_search_fn!r}")
        super().__init__(params, {"lr": lr, "max_iter": max_iter,
                                  "max_eval": max_eval if max_eval is not None else max_iter * 5 // 4,
                                  "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                                  "history_size": history_size, "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        for p in self.params:
            if type(p._data) is not np.ndarray:
                raise NotImplementedError("LBFGS(): minigrad's L-BFGS runs on CPU parameters only")

    # -- the parameters as one flat vector -------------------------------------------------

    def _flat_grad(self) -> np.ndarray:
        return np.concatenate([np.zeros(p._data.size, p._data.dtype) if p.grad is None
                               else np.asarray(p.grad._data).reshape(-1) for p in self.params])

    def _move(self, t: float, d: np.ndarray) -> None:
        """Every parameter += t * its part of ``d``: an in-place ``add_`` under ``no_grad`` (PyTorch's
        ``p.add_(d, alpha=t)``), so versions count the change as for any optimizer step."""
        offset = 0
        with no_grad():
            for p in self.params:
                n = p._data.size
                step = (d[offset:offset + n] * t).reshape(p._data.shape).astype(p._data.dtype, copy=False)
                p.add_(Tensor._make(step, p.dtype))
                offset += n

    def _values(self) -> list[np.ndarray]:
        return [p._data.copy() for p in self.params]

    def _restore(self, values: list[np.ndarray]) -> None:
        with no_grad():
            for p, v in zip(self.params, values):
                p.zero_().add_(Tensor._make(v, p.dtype))

    # -- one step ------------------------------------------------------------------------------

    def step(self, closure: Callable[[], Any] | None = None) -> Any:  # type: ignore[override]
        """Run up to ``max_iter`` iterations; ``closure`` clears the gradients, computes the loss,
        calls ``backward()`` and returns the loss. Returns the loss of the first closure call."""
        if closure is None:
            raise RuntimeError("LBFGS.step() needs a closure that re-evaluates the model and returns the loss")
        group = self.param_groups[0]
        state = self.state[self.params[0]]  # PyTorch keeps L-BFGS's state under the first parameter
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= group["tolerance_grad"]:
            return orig_loss
        n_iter = 0
        while n_iter < group["max_iter"]:
            n_iter += 1
            state["n_iter"] += 1
            d = self._direction(state, flat_grad, group["history_size"])
            state["prev_flat_grad"], state["prev_loss"] = flat_grad.copy(), loss
            t = (min(1.0, 1.0 / np.abs(flat_grad).sum()) * group["lr"] if state["n_iter"] == 1 else group["lr"])
            gtd = float(flat_grad.dot(d))
            if gtd > -group["tolerance_change"]:
                break
            loss, flat_grad, t, ls_evals = self._advance(closure, group, d, t, loss, flat_grad, gtd,
                                                         last=n_iter == group["max_iter"])
            state["d"], state["t"] = d, t
            evals += ls_evals
            state["func_evals"] += ls_evals
            if self._converged(group, n_iter, evals, flat_grad, d, t, loss, state["prev_loss"]):
                break
        return orig_loss

    def _evaluate(self, closure: Callable[[], Any]) -> Any:
        with enable_grad():
            return closure()

    def _direction(self, state: dict[str, Any], g: np.ndarray, history_size: int) -> np.ndarray:
        """The search direction: ``-g`` first, then ``-H g`` by the two-loop recursion."""
        if state["n_iter"] == 1:
            state["old_dirs"], state["old_stps"], state["ro"], state["H_diag"] = [], [], [], 1.0
            return -g
        y = g - state["prev_flat_grad"]
        s = state["d"] * state["t"]
        ys = float(y.dot(s))
        if ys > 1e-10:  # keep the pair only where the curvature condition holds
            if len(state["old_dirs"]) == history_size:
                for key in ("old_dirs", "old_stps", "ro"):
                    state[key].pop(0)
            state["old_dirs"].append(y)
            state["old_stps"].append(s)
            state["ro"].append(1.0 / ys)
            state["H_diag"] = ys / float(y.dot(y))
        dirs, stps, ro = state["old_dirs"], state["old_stps"], state["ro"]
        alpha = [0.0] * len(dirs)
        q = -g
        for i in range(len(dirs) - 1, -1, -1):
            alpha[i] = float(stps[i].dot(q)) * ro[i]
            q = q + dirs[i] * -alpha[i]
        r = q * state["H_diag"]
        for i in range(len(dirs)):
            beta = float(dirs[i].dot(r)) * ro[i]
            r = r + stps[i] * (alpha[i] - beta)
        return r

    def _advance(self, closure: Callable[[], Any], group: dict[str, Any], d: np.ndarray, t: float, loss: float,
                 flat_grad: np.ndarray, gtd: float, last: bool) -> tuple[float, np.ndarray, float, int]:
        """Move along ``d``: by the line search's step, or by ``t`` (then re-evaluate unless ``last``)."""
        if group["line_search_fn"] == "strong_wolfe":
            start = self._values()

            def evaluate(step: float) -> tuple[float, np.ndarray]:
                self._move(step, d)
                f = float(self._evaluate(closure))
                g = self._flat_grad()
                self._restore(start)
                return f, g

            loss, flat_grad, t, evals = strong_wolfe(evaluate, d, t, loss, flat_grad, gtd)
            self._move(t, d)
            return loss, flat_grad, t, evals
        self._move(t, d)
        if last:
            return loss, flat_grad, t, 0
        loss = float(self._evaluate(closure))
        return loss, self._flat_grad(), t, 1

    @staticmethod
    def _converged(group: dict[str, Any], n_iter: int, evals: int, g: np.ndarray, d: np.ndarray, t: float,
                   loss: float, prev_loss: float) -> bool:
        """PyTorch's stopping rules, in its order."""
        return (n_iter == group["max_iter"] or evals >= group["max_eval"]
                or np.abs(g).max() <= group["tolerance_grad"]
                or np.abs(d * t).max() <= group["tolerance_change"]
                or abs(loss - prev_loss) < group["tolerance_change"])
