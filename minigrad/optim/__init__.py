"""Optimizers (``mg.optim``): SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, LBFGS, Rprop,
ASGD, Adafactor, Muon.

One module per family: ``optimizer.py`` (the ``Optimizer`` base: parameter groups,
state, ``zero_grad``, ``state_dict``), ``sgd.py``, ``adam.py`` (the Adam family) and
``adaptive.py`` (RMSprop, Adagrad, Adadelta), ``lbfgs.py`` (L-BFGS, with a closure), ``rprop.py``, ``asgd.py``, ``adafactor.py`` and ``muon.py``;
``lr_scheduler.py`` changes the groups' learning rates. Every ``step`` takes PyTorch's optional ``closure``
and runs the step hooks (``register_step_pre_hook``; ``optimizer.register_optimizer_step_pre_hook`` for all).

Updates run under ``no_grad`` with in-place ops, so parameters stay leaves and
their version counters record every step. SGD's and Adam's rules are written once
and run in PyTorch's three forms: a for-loop over the parameters (as ops, or, with no
recorder, on a CPU parameter's arrays: the same arithmetic in the same order, so the
same bits), ``foreach`` (each step of the rule one multi-tensor call; the default on
the GPU) and ``fused`` (one kernel for the whole rule): ``update.py`` holds the paths.
With a recorder every update runs as ops and emits its events.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([1.0, -1.0]))
    >>> opt = mg.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.8000, -0.8000], requires_grad=True)
"""

from __future__ import annotations

from . import lr_scheduler  # schedulers adjust the groups' lr
from .adafactor import Adafactor
from .adam import Adam, Adamax, AdamW, NAdam, RAdam
from .adaptive import Adadelta, Adagrad, RMSprop
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .optimizer import Optimizer
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "LBFGS", "Rprop", "ASGD", "Adafactor", "Muon", "lr_scheduler"]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
