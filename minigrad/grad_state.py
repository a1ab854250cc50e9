"""The calling thread's grad mode (``GRAD_MODE``), below the tensor layer: ``minigrad.autograd.grad_mode``'s
``no_grad``/``enable_grad``/``inference_mode`` set it, the dygraph layer reads ``enabled``, and a tensor made
inside ``inference_mode()`` reads ``inference`` (``Tensor.is_inference``)."""

from __future__ import annotations

import threading

__all__ = ["GRAD_MODE"]


class _GradMode(threading.local):
    """Per-thread grad mode (PyTorch's ``GradMode`` is thread-local too).

    ``threading.local`` runs ``__init__`` again in every new thread, so a
    thread starts with grad enabled whatever another thread's ``no_grad``
    is doing: a ``no_grad`` evaluation loop in one thread cannot switch off
    recording in a training thread beside it.
    """

    def __init__(self) -> None:
        self.enabled = True
        #: Inside ``inference_mode()`` (``is_inference_mode_enabled``): a mode of its own, as PyTorch's.
        self.inference = False


#: The calling thread's grad mode; the dygraph layer reads ``GRAD_MODE.enabled``.
GRAD_MODE = _GradMode()
