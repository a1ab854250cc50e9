"""Lesson 10: what backward keeps alive, and trading it for compute.

Every grad node keeps the tensors its backward formula reads (its
TensorWrappers) until the engine has run it. ``mg.trace.memory(events)``
counts them from a recording; here you predict them, then make them smaller
two ways: recomputing a block inside backward (``mg.utils.checkpoint``) and
keeping smaller copies (``mg.autograd.graph.saved_tensors_hooks``).
"""

from __future__ import annotations

import minigrad as mg

__all__ = ["mlp", "predict_saved_bytes", "checkpoint_middle", "float16_saved_tensors"]


def mlp(widths: list[int]) -> mg.nn.Sequential:
    """``Linear(w0, w1), Tanh(), Linear(w1, w2), Tanh(), ..., Linear(w[-2], w[-1])`` (given)."""
    layers: list[mg.nn.Module] = []
    for i in range(len(widths) - 1):
        layers.append(mg.nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(mg.nn.Tanh())
    return mg.nn.Sequential(*layers)


def predict_saved_bytes(widths: list[int], batch: int, itemsize: int = 4) -> int:
    """The bytes the graph of ``cross_entropy(mlp(widths)(x), y)`` holds for backward when backward begins.

    ``x`` is a ``(batch, widths[0])`` float tensor (``itemsize`` bytes per element) that
    needs no gradient, ``y`` a ``(batch,)`` int64 tensor of class indices. Count every
    distinct tensor a node saved once, and leave the parameters out (they are alive anyway):
    what the answer must equal is ``mg.trace.memory(events).at(i).saved`` at the
    ``backward.begin`` event ``i``.
    """
    # BEGIN LESSON 10 TASK 10.1: predict the bytes an MLP saves for backward
    total = batch * widths[0] * itemsize  # x: the first addmm keeps it for the weight's gradient
    for width in widths[1:-1]:
        total += batch * width * itemsize  # each tanh's output: kept by tanh (1 - out^2) and the next addmm, once
    total += batch * widths[-1] * itemsize  # log_softmax keeps its output (the log-probabilities) for its backward
    total += batch * 8  # and the int64 targets
    return total
    # END LESSON 10 TASK 10.1


def checkpoint_middle(model: mg.nn.Sequential, x: mg.Tensor) -> mg.Tensor:
    """``model(x)`` for a three-block ``model``, with ``model[1]`` checkpointed.

    Use ``mg.utils.checkpoint.checkpoint`` without the reentrant variant (pass
    ``use_reentrant`` explicitly: leaving it out warns) and keep the random state
    replayed, so a dropout inside the block draws the same mask when it runs again.
    """
    # BEGIN LESSON 10 TASK 10.2: checkpoint the middle block
    h = model[0](x)
    h = mg.utils.checkpoint.checkpoint(model[1], h, use_reentrant=False, preserve_rng_state=True)
    return model[2](h)
    # END LESSON 10 TASK 10.2


def float16_saved_tensors() -> mg.autograd.graph.saved_tensors_hooks:
    """A ``saved_tensors_hooks`` context under which every saved floating tensor is kept as a
    float16 copy and handed back to backward in its own dtype (other tensors are kept as they are).

    The pack hook receives the tensor an op saves and returns what the node keeps; the
    unpack hook receives that and returns a tensor of the original dtype and shape.
    """
    # BEGIN LESSON 10 TASK 10.3: saved-tensor hooks that keep float16 copies
    def pack(t: mg.Tensor):
        if t.dtype in (mg.float32, mg.float64):
            return (t.dtype, t.detach().to(mg.float16))
        return (None, t.detach())

    def unpack(packed) -> mg.Tensor:
        dtype, kept = packed
        return kept if dtype is None else kept.to(dtype)

    return mg.autograd.graph.saved_tensors_hooks(pack, unpack)
    # END LESSON 10 TASK 10.3
