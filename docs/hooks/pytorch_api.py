"""Build ``pytorch.md``: what of PyTorch's API minigrad supports, and how it differs.

The lists come from the code, so they cannot drift: every registered op
(``minigrad.OPS``), every public function of ``minigrad`` and
``minigrad.nn.functional``, every ``nn`` layer and every optimizer and
scheduler. ``DIFFERENCES`` adds the one thing the code cannot say: where a
name's behaviour differs from PyTorch's. The mkdocs hook (``generate.py``)
calls ``pytorch_reference()`` on every build; ``python docs/hooks/pytorch_api.py``
prints the page.
"""

from __future__ import annotations

import inspect
from typing import Any

#: Where minigrad differs from PyTorch, by name (ops, functions, classes). Names not listed behave as in PyTorch
#: for the arguments minigrad accepts (an unknown argument is a TypeError naming it).
DIFFERENCES: dict[str, str] = {
    "concat": "PyTorch's `cat`; `mg.cat` is the same op.",
    "clip": "numbers as bounds; `mg.clamp` also takes tensors.",
    "getitem": "`x[index]`: basic slicing is a view; integer/bool arrays copy; the backward scatter-adds (`getitem_grad`).",
    "getitem_grad": "minigrad-internal: the adjoint of `getitem`.",
    "matmul": "extra `transpose_x`/`transpose_y` flags (Paddle's).",
    "max": "the reduction op; `mg.max(x, dim)` returns `(values, indices)` as PyTorch, `mg.max(x, (0, 1))` values only.",
    "min": "as `max`.",
    "sum": "`axis=` accepted for `dim=`, as everywhere.",
    "cross_entropy": "the fused op: logits `(N, C)` and class indices; `F.cross_entropy` adds every other form.",
    "conv2d": "the op: a batched 2-D or 1-D input with `stride`, `padding`, `dilation`, `groups` (PyTorch's `convolution`, one `ConvolutionBackward0`); `mg.conv2d` adds unbatched input (`unsqueeze`/`squeeze`) and `'valid'`/`'same'` (an odd `'same'` pads with `constant_pad_nd` first), as PyTorch.",
    "max_pool2d": "the op is PyTorch's `max_pool2d_with_indices` (one `MaxPool2DWithIndicesBackward0`, batched or not, dilated, `ceil_mode`); its indices are a second op, `max_pool2d_indices`, run only for `return_indices=True`.",
    "max_pool2d_indices": "minigrad-internal: `max_pool2d`'s indices (PyTorch's second output of `max_pool2d_with_indices`).",
    "conv2d_input_grad": "minigrad-internal: the backward of `conv2d` (differentiable for double backward).",
    "conv2d_weight_grad": "minigrad-internal: the backward of `conv2d`.",
    "attention_weights": "minigrad-internal: what the fused attention's backward recomputes (differentiable for double backward, which PyTorch's fused kernels refuse).",
    "safe_softmax": "PyTorch's `_safe_softmax` (`SafeSoftmaxBackward0`), the softmax of `F.scaled_dot_product_attention`'s math path.",
    "scaled_dot_product_attention": "the fused op behind `F.scaled_dot_product_attention` for 4-D inputs, named for PyTorch's kernel (`ScaledDotProductFlashAttentionForCpuBackward0` on a CPU, `...EfficientAttention...`/`...FlashAttention...` on a GPU); other inputs take PyTorch's math path. The GPU's fused kernels' dropout is drawn on the device, so it is not PyTorch CUDA's stream.",
    "max_pool2d_grad": "minigrad-internal: the backward of `max_pool2d`.",
    "max_pool2d_select": "minigrad-internal: the double backward of `max_pool2d`.",
    "gelu": "the op is exact; `F.gelu(x, approximate='tanh')` gives the tanh form.",
    "add": "`mg.add`/`x.add` take `alpha=`; the op itself is `x + y`.",
    "sub": "`mg.sub`/`x.sub` take `alpha=`.",
    "add_alpha": "`mg.add(x, y, alpha=a)` (and `x.add_`) with `a != 1` and a tensor `y`: one kernel and one "
                 "`AddBackward0`, as PyTorch's; a number `y` is scaled first (`add`).",
    "sub_alpha": "`mg.sub(x, y, alpha=a)` with `a != 1` and a tensor `y` (`SubBackward0`).",
    "div": "`mg.div`/`x.div` take `rounding_mode='trunc'/'floor'` (exact for integers; derivative 0).",
    "fill": "the op behind `fill_`/`zero_`; a number or a bool value.",
    "cast": "PyTorch's `x.to(dtype)`; also `x.double()`, `x.float()`, `x.long()` ...",
    "sum_to": "minigrad-internal: sums a gradient down to a broadcast input's shape.",
    "softplus": "as `F.softplus` (the op of lesson 1).",
    "einsum": "one or two operands; no `...` and no repeated letters in one operand.",
    "var": "`correction` (default 1) and the older `unbiased`.",
    "view": "shares storage; refuses (RuntimeError) where PyTorch's view would, suggesting `reshape`.",
    "from_numpy": "shares memory with the array.",
    "multinomial": "rows of weights; drawn from the generator seeded by `manual_seed` (not PyTorch's stream).",
    "randint": "`randint(low, high, size)` or `randint(high, size)`.",
    "save": "a NumPy `.npz` file with a JSON structure entry; never a pickle (`load` uses `allow_pickle=False`).",
    "load": "reads only files written by `mg.save`; never unpickles.",
    "Embedding": "no `max_norm`, `sparse`.",
    "BatchNorm1d": "running statistics updated in place, unbiased running variance, as PyTorch.",
    "Module": "`state_dict`, `load_state_dict(strict=)`, buffers, `named_modules`, `children`, `apply`, `to`, `double`; no hooks on modules.",
    "SGD": "momentum, dampening, Nesterov, weight decay, maximize; `foreach` and `fused` forms.",
    "Adam": "amsgrad, maximize; `foreach` (default on the GPU) and `fused` forms, equal to the for-loop.",
    "AdamW": "decoupled weight decay (default 0.01), as PyTorch; `foreach` and `fused` forms.",
    "RMSprop": "`foreach` form (default on the GPU), equal to the for-loop; no `fused`, as PyTorch.",
    "Adagrad": "`foreach` form (default on the GPU), equal to the for-loop; no `fused` (PyTorch's is CPU-only).",
    "Adadelta": "`foreach` form (default on the GPU), equal to the for-loop.",
    "Adamax": "`foreach` form (default on the GPU), equal to the for-loop.",
    "NAdam": "`foreach` form (default on the GPU), equal to the for-loop.",
    "RAdam": "`foreach` form (default on the GPU), equal to the for-loop.",
    "LRScheduler": "closed-form schedules; `get_last_lr()`; no chaining.",
    "Function": "`ctx.save_for_backward`, `saved_tensors`, `needs_input_grad`, `mark_non_differentiable`; no `mark_dirty`, `set_materialize_grads`, `once_differentiable`.",
    "no_grad": "a context manager and a decorator, with or without parentheses.",
}


# torch.nn.functional's activations, losses, padding, resampling, convolutions, pooling, norms.
DIFFERENCES.update({
    "silu": "`inplace=True` writes into the input (its version moves; a leaf that requires grad is refused); so for every activation with `inplace`, with PyTorch's in-place nodes (`LeakyReluBackward1`, `EluBackward1`, `CeluBackward1`, `ThresholdBackward1`).",
    "leaky_relu": "`inplace=True`: `LeakyReluBackward1`, which saves the result (a negative slope is refused in backward, as PyTorch's).",
    "relu": "`F.relu(x, inplace=True)` and `nn.ReLU(inplace=True)` are `relu_`.",
    "elu": "`inplace=True`: `EluBackward1`; at a NaN input the gradient is NaN (PyTorch's vectorised kernel; its scalar tail differs).",
    "hardtanh": "at a NaN input the gradient is 0 (PyTorch's vectorised kernel; its scalar tail differs).",
    "constant_pad_nd": "the op behind `F.pad(mode='constant')`; its backward is itself with the amounts negated. `reflect`, `replicate` and `circular` are composites of `getitem`.",
    "binary_cross_entropy": "the elementwise loss as an op (finite input gradient at probabilities 0 and 1, as PyTorch); `F.binary_cross_entropy` adds `weight` and the reduction.",
    "avg_pool2d": "an op (two window matrices per plane); `F.avg_pool2d` adds unbatched input and PyTorch's argument forms.",
    "avg_pool2d_backward": "minigrad-internal: the backward of `avg_pool2d` (its adjoint; differentiable).",
    "adaptive_avg_pool2d": "an op; `F.adaptive_avg_pool2d` adds unbatched input and `None` in `output_size`.",
    "adaptive_avg_pool2d_backward": "minigrad-internal: the backward of `adaptive_avg_pool2d`.",
    "interpolate": "composite; every mode but `antialias=True`; `area` of a 5-D input is two 2-D pools.",
    "conv_transpose2d": "the op (PyTorch's `convolution` with `transposed=True`, one `ConvolutionBackward0`): `conv2d`'s input gradient run to its full size, the padding cropped; `F.conv_transpose2d` adds unbatched input.",
    "group_norm": "an op, PyTorch's `native_group_norm` (one `NativeGroupNormBackward0`); its backward computes the "
                  "groups' statistics again from the input, where PyTorch's saves them.",
    "instance_norm": "PyTorch's decomposition: `batch_norm` of the input viewed as one sample of N * C channels.",
    "local_response_norm": "PyTorch's decomposition (`avg_pool2d` of a 3-D input, `avg_pool3d` of the others).",
    "avg_pool3d": "an op (three window matrices), a batched or an unbatched input itself, as PyTorch's.",
    "avg_pool3d_backward": "minigrad-internal: the backward of `avg_pool3d` (its adjoint; differentiable).",
    "gaussian_nll_loss": "composite; `var` clamped at `eps` for the value, the gradient passing as in PyTorch.",
    "Conv1d": "`padding_mode` 'zeros', 'reflect', 'replicate', 'circular', as PyTorch.",
    "ConvTranspose2d": "`output_size=` in `forward` picks the output padding, as PyTorch.",
    "adaptive_max_pool2d": "an op (`AdaptiveMaxPool2DBackward0`), its indices found by `adaptive_max_pool2d_indices` (the first maximum, or the last NaN, as PyTorch's).",
    "hardshrink": "at a NaN input the gradient is 0 (PyTorch's vectorised kernel; its scalar tail differs).",
    "softshrink": "at a NaN input the gradient is 0 (PyTorch's vectorised kernel; its scalar tail differs).",
})

# the in-place forms of the inverse hyperbolic functions: ops of their own, as PyTorch's overloads (ops/trigonometric.py)
DIFFERENCES.update({
    name: f"minigrad-internal: the values of `x.{name}()` (`{name[:-1].capitalize()}Backward1`), whose backward raises "
          "NotImplementedError, as PyTorch's."
    for name in ("acosh_", "asinh_", "atanh_")
})
DIFFERENCES["polygamma_"] = ("minigrad-internal: the values of `x.polygamma_(n)` (`PolygammaBackward1`, PyTorch's in-place "
                              "overload); `mg.polygamma(n, x)` takes the order first, as PyTorch's.")
# the in-place comparisons (ops/compare_inplace.py)
DIFFERENCES.update({
    f"{name}_": f"minigrad-internal: the values of `x.{name}_(y)` in x's dtype (`{name.capitalize()}Backward0` for a "
                f"number, `{name.capitalize()}Backward1` for a tensor, with zero gradients, as PyTorch's)."
    for name in ("eq", "ne", "lt", "le", "gt", "ge")
})

def _first_line(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    line = doc.strip().split("\n\n")[0].replace("\n", " ")
    return line.replace("|", "\\|")


def _row(name: str, what: str, kind: str = "") -> str:
    note = DIFFERENCES.get(name, "")
    return f"| `{name}` | {kind}{what} | {note.replace('|', '&#124;')} |"


def pytorch_reference() -> str:
    """The Markdown of the page."""
    import minigrad as mg

    lines = [
        "# PyTorch API coverage",
        "",
        "Generated from minigrad's op registry and its `nn`/`optim` modules every time this site is built",
        "(`docs/hooks/pytorch_api.py`), so it lists exactly what the code has. A model written for PyTorch runs",
        "on minigrad when it uses only these names: `tests/test_torch_parity.py` runs one transformer source",
        "under both, changing only `import torch` to `import minigrad as torch`, and compares float64 losses",
        "and predictions. The last column says where minigrad differs; an empty cell means it behaves as",
        "PyTorch for the arguments it accepts, and an argument it does not accept is a `TypeError` naming it.",
        "[PyTorch coverage by namespace](pytorch-coverage.md) counts which of PyTorch's public names minigrad has.",
        "",
        "## Registered ops",
        "",
        "Each has an InferMeta rule, kernels, and (when differentiable) a backward formula checked against",
        "finite differences and PyTorch. Each is also a `Tensor` method where PyTorch has one.",
        "",
        "| op | what | differences from PyTorch |",
        "| --- | --- | --- |",
    ]
    for name in sorted(mg.OPS):
        op = mg.OPS[name]
        grad = "differentiable; " if op.backward is not None else "no gradient; "
        lines.append(_row(name, op.doc or "", grad))

    lines += [
        "",
        "## Functions made of ops",
        "",
        "Compositions of registered ops (their gradient is that of the ops), creation functions and helpers.",
        "",
        "| function | what | differences from PyTorch |",
        "| --- | --- | --- |",
    ]
    names = sorted(n for n in mg.__all__ if n not in mg.OPS and callable(getattr(mg, n, None))
                   and not inspect.isclass(getattr(mg, n)) and not inspect.ismodule(getattr(mg, n)))
    for name in names:
        lines.append(_row(name, _first_line(getattr(mg, name))))
    lines.append(_row("no_grad", _first_line(mg.no_grad)))
    lines.append(_row("Function", "`mg.autograd.Function`: " + _first_line(mg.autograd.Function)))

    F = mg.nn.functional
    lines += ["", "## `nn.functional`", "", "| function | what | differences from PyTorch |", "| --- | --- | --- |"]
    for name in sorted(F.__all__):
        lines.append(_row(name, _first_line(getattr(F, name))))

    lines += ["", "## `nn` layers", "", "| class | what | differences from PyTorch |", "| --- | --- | --- |"]
    for name in sorted(n for n in mg.nn.__all__ if inspect.isclass(getattr(mg.nn, n)) and n != "init"):
        lines.append(_row(name, _first_line(getattr(mg.nn, name))))

    lines += ["", "## `optim`", "", "| class | what | differences from PyTorch |", "| --- | --- | --- |"]
    for name in sorted(n for n in mg.optim.__all__ if inspect.isclass(getattr(mg.optim, n, None))):
        lines.append(_row(name, _first_line(getattr(mg.optim, name))))
    sched = mg.optim.lr_scheduler
    for name in sched.__all__:
        lines.append(_row(name, "`lr_scheduler." + name + "`: " + _first_line(getattr(sched, name))))

    lines += [
        "",
        "## Not supported yet",
        "",
        "What PyTorch has and minigrad has not is listed name by name, from the installed PyTorch, on the",
        "[coverage page](pytorch-coverage.md) (with each difference in behaviour minigrad knows of); among it",
        "3-D convolutions and max pooling, forward-mode AD, `vmap`, `Function.mark_dirty`. Complex dtypes, sparse",
        "tensors, quantization, a compiler (`torch.compile` runs eagerly) and distributed training are out of scope.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(pytorch_reference())
