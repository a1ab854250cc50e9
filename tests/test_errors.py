"""Bad input gives a clear, specific error and leaves no trace (docs/architecture.md, bad input; PyTorch's error classes).

- wrong argument types -> ``TypeError`` naming the op, the argument and its
  position (``matmul(): argument 'y' (position 1) must be Tensor, but got str``),
  checked for every tensor input of every op in ``mg.OPS``;
- shape/dtype mismatches found by InferMeta -> ``ValueError`` starting with ``op()``;
- engine misuse (missing kernel, in-place misuse, freed graph) -> ``RuntimeError``;
- a failed op builds no grad node (no AccumulationNode for its leaf inputs, no
  node alive afterwards) and changes no tensor (values, version, grad_fn).
"""

from __future__ import annotations

import gc
import re
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd.grad_node import GradNode, next_node_id
from minigrad.ops.registry import OPS

o = mg.ones


# --- TypeError: op, argument, position ---------------------------------------------------


def _type_error_params() -> list[Any]:
    params = []
    for name, op in OPS.items():
        for pos, spec in enumerate(op.inputs):
            params.append(pytest.param(name, pos, id=f"{name}-{spec.name}"))
    return params


@pytest.mark.parametrize("name,pos", _type_error_params())
def test_wrong_input_type_names_op_argument_and_position(name: str, pos: int) -> None:
    op = OPS[name]
    spec = op.inputs[pos]
    earlier = [[o(2)] if s.is_list else o(2) for s in op.inputs[:pos]]
    with pytest.raises(TypeError) as info:
        op(*earlier, "oops")
    expected = "Tensor or a Python number" if spec.scalar_ok else "Tensor"
    if spec.is_list:
        assert str(info.value) == (
            f"{name}(): argument '{spec.name}' (position {pos}) must be a list or tuple of Tensors, but got str"
        )
    else:
        assert str(info.value) == f"{name}(): argument '{spec.name}' (position {pos}) must be {expected}, but got str"


def test_the_design_example_message() -> None:
    with pytest.raises(TypeError, match=re.escape("matmul(): argument 'y' (position 1) must be Tensor, but got str")):
        mg.matmul(o(2, 2), "abc")


ATTRIBUTE_TYPE_ERRORS = [
    (lambda: mg.sum(o(2), dim="a"), r"^sum\(\): argument 'dim' \(position 1\) must be None, int or a tuple of ints, but got str"),
    (lambda: mg.sum(o(2), dim=(0, "a")), r"^sum\(\): argument 'dim' \(position 1\) .* element 1 of type str"),
    (lambda: mg.sum(o(2), keepdim=1), r"^sum\(\): argument 'keepdim' \(position 2\) must be bool, but got int"),
    (lambda: mg.matmul(o(2, 2), o(2, 2), transpose_x="yes"), r"^matmul\(\): argument 'transpose_x' \(position 2\)"),
    (lambda: o(2, 3).reshape("a"), r"^reshape\(\): argument 'shape' \(position 1\) .* element 0 of type str"),
    (lambda: mg.transpose(o(2, 3), 0, 1.0), r"^transpose\(\): argument 'dim1' \(position 2\) must be int, but got float"),
    (lambda: mg.softmax(o(2), dim=None), r"^softmax\(\): argument 'dim' \(position 1\) must be int, but got NoneType"),
    (lambda: mg.clip(o(2), "a"), r"^clip\(\): argument 'min' \(position 1\) must be a number or None, but got str"),
    (lambda: mg.cast(o(2), "float8"), r"^cast\(\): argument 'dtype' \(position 1\)"),
    (lambda: mg.conv2d(o(1, 1, 3, 3), o(1, 1, 2, 2), stride="a"), r"^conv2d\(\): argument 'stride' \(position 3\)"),
    (lambda: mg.max_pool2d(o(1, 1, 4, 4), 2, stride=[1, 2, 3]),
     r"^max_pool2d: stride must either be omitted, a single int, or a tuple of two ints$"),  # (PyTorch's words)
    (lambda: mg.max_pool2d(o(1, 1, 4, 4), (True, 2)), r"^max_pool2d\(\): argument 'kernel_size' .* but got \(True, 2\)"),
    (lambda: mg.concat([o(2), "a"]), r"^concat\(\): argument 'xs' \(position 0\) must be a list of Tensors, but element 1 is str"),
    (lambda: mg.concat(o(2)), r"^concat\(\): argument 'xs' \(position 0\) must be a list or tuple of Tensors, but got Tensor"),
    (lambda: mg.hstack(o(2)), r"^hstack\(\): argument 'tensors' \(position 0\) must be tuple of Tensors, not Tensor"),
    (lambda: mg.broadcast_to(o(2), 3), r"^broadcast_to\(\): argument 'size' \(position 1\) must be tuple of ints, not int"),
    (lambda: mg.add(1, 2), r"^add\(\): at least one of the arguments \(x, y\) must be a Tensor"),
    (lambda: o(2) + None, r"^add\(\): argument 'y' \(position 1\) must be Tensor or a Python number, but got NoneType"),
    (lambda: mg.sum(o(2), 0, True, 5), r"^sum\(\) takes 3 arguments \(x, dim, keepdim\) but 4 were given"),
    (lambda: mg.sum(o(2), axes=0), r"^sum\(\) got an unexpected keyword argument 'axes'"),
    (lambda: mg.sum(o(2), 0, dim=0), r"^sum\(\) got multiple values for argument 'dim'"),
    (lambda: mg.transpose(o(2, 2)), r"^transpose\(\) missing required argument 'dim0' \(position 1\)"),
    (lambda: o(2)[1.5], r"^getitem\(\): only integers, slices"),
    # PyTorch's words and class (IndexError), still a TypeError (minigrad/errors.py)
    (lambda: o(2)[o(1)], r"^tensors used as indices must be long, int, byte or bool tensors \(getitem\(\): "),
    (lambda: mg.flatten("a"), r"^flatten\(\): argument 'x' \(position 0\) must be Tensor, but got str"),
    (lambda: o(2).fill_("a"), r"^fill_\(\): argument 'value' \(position 0\) must be a number"),
]


@pytest.mark.parametrize(
    "call,pattern",
    ATTRIBUTE_TYPE_ERRORS,
    ids=[re.sub(r"\W+", "-", p.lstrip("^").split("(")[0].replace("\\", "")) for _, p in ATTRIBUTE_TYPE_ERRORS],
)
def test_wrong_attribute_types_raise_type_error(call: Callable[[], Any], pattern: str) -> None:
    with pytest.raises(TypeError, match=pattern):
        call()


# An empty list of tensors: PyTorch's class and words (stack, the joining forms, meshgrid: RuntimeError;
# cat: ValueError).
EMPTY_LISTS = {
    "stack": (RuntimeError, "stack expects a non-empty TensorList"),
    "hstack": (RuntimeError, "hstack expects a non-empty TensorList"),
    "vstack": (RuntimeError, "vstack expects a non-empty TensorList"),
    "dstack": (RuntimeError, "dstack expects a non-empty TensorList"),
    "column_stack": (RuntimeError, "column_stack expects a non-empty TensorList"),
    "cat": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    "concat": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    "concatenate": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
}


@pytest.mark.parametrize("name", sorted(EMPTY_LISTS))
def test_an_empty_list_of_tensors_raises_pytorch_s_class(name: str) -> None:
    cls, message = EMPTY_LISTS[name]
    with pytest.raises(cls) as info:
        getattr(mg, name)([])
    assert type(info.value) is cls and str(info.value) == message
    torch = pytest.importorskip("torch")
    with pytest.raises(cls):
        getattr(torch, name)([])


def test_block_diag_of_nothing_is_one_empty_row_as_in_pytorch() -> None:
    out = mg.block_diag()
    assert tuple(out.shape) == (1, 0) and out.dtype == mg.float32
    torch = pytest.importorskip("torch")
    assert tuple(torch.block_diag().shape) == (1, 0)


def test_flatten_bad_input_was_an_attribute_error() -> None:
    """Regression: ``mg.flatten("a")`` raised AttributeError ('str' object has no attribute 'ndim')."""
    with pytest.raises(TypeError):
        mg.flatten([1, 2])
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2"):
        mg.flatten(o(2, 3), 2)
    assert mg.flatten(o(2, 3, 4), 1).shape == (2, 12)
    assert mg.flatten(mg.tensor(3.0)).shape == (1,)


# --- ValueError from InferMeta ------------------------------------------------------------------

INFER_META_ERRORS = {
    "matmul-inner": (lambda: mg.matmul(o(2, 3), o(4, 5)), None, r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)$"),
    "matmul-dtype": (lambda: mg.matmul(o(2, 2), o(2, 2, dtype=mg.float64)), None,
                     "^expected m1 and m2 to have the same dtype, but got: float != double$"),
    "matmul-transpose-1d": (lambda: mg.matmul(o(2), o(2, 2), transpose_x=True), "matmul", "transpose_x"),
    "reshape": (lambda: o(2, 3).reshape(4, 2), None, r"^shape '\[4, 2\]' is invalid for input of size 6$"),
    "matmul-0d": (lambda: mg.matmul(mg.tensor(1.0), o(2)), None,
                  r"^both arguments to matmul need to be at least 1D, but they are 0D and 1D$"),
    "permute-len": (lambda: o(2, 3).permute(0), None, r"^permute\(sparse_coo\): number of dimensions in the tensor"),
    "permute-repeat": (lambda: o(2, 3).permute(0, 0), "permute", "duplicate dims are not allowed"),
    "max-empty": (lambda: mg.max(o(0, 3)), "max", "Expected reduction dim to be specified for input.numel"),
    "reshape-two-unknown": (lambda: o(2, 3).reshape(-1, -1), None, "^only one dimension can be inferred$"),
    "expand": (lambda: o(2, 3).expand(4, 3), None, r"^The expanded size of the tensor \(4\) must match the existing "
               r"size \(2\) at non-singleton dimension 0.  Target sizes: \[4, 3\].  Tensor sizes: \[2, 3\]$"),
    # A dim out of range, in PyTorch's words (which name no op)
    "squeeze-dim": (lambda: mg.squeeze(o(2, 1), 5), None, r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)$"),
    "unsqueeze-dim": (lambda: mg.unsqueeze(o(2), 3), None, r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)$"),
    "transpose-dim": (lambda: mg.transpose(o(2, 3), 0, 2), None, r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"),
    "concat-shapes": (lambda: mg.concat([o(2, 3), o(3, 2)], dim=0), None, "^Sizes of tensors must match except in dimension 0"),
    "concat-0d": (lambda: mg.concat([mg.tensor(1.0), mg.tensor(2.0)]), None, "^zero-dimensional tensor"),
    "stack-shapes": (lambda: mg.stack([o(2, 3), o(3, 2)]), None, r"^stack expects each tensor to be equal size, but got \[2, 3\]"),
    "sum-dim": (lambda: mg.sum(o(2, 3), dim=2), None, r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"),
    "sum-repeated-dim": (lambda: mg.sum(o(2, 3), dim=(0, -2)), "sum", "multiple times"),
    "softmax-dim": (lambda: mg.softmax(o(2, 3), dim=2), None, r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"),
    "cross_entropy-input": (lambda: mg.cross_entropy(o(3), mg.tensor([0, 1, 2])), "cross_entropy", "2-D"),
    "cross_entropy-target-shape": (lambda: mg.cross_entropy(o(3, 2), mg.tensor([0, 1])), "cross_entropy", r"\(3,\).*\(2,\)"),
    "cross_entropy-target-dtype": (lambda: mg.cross_entropy(o(3, 2), o(3)), "cross_entropy", "integer"),
    "cross_entropy-target-range": (lambda: mg.cross_entropy(o(3, 2), mg.tensor([0, 1, 2])), "cross_entropy", r"\[0, 1\]"),
    "cross_entropy-reduction": (lambda: mg.cross_entropy(o(3, 2), mg.tensor([0, 1, 1]), reduction="avg"),
                                None, "^avg is not a valid value for reduction$"),
    "mse_loss-shapes": (lambda: mg.mse_loss(o(2, 3), o(3, 2)), "mse_loss", r"\(2, 3\).*\(3, 2\)"),
    "mse_loss-dtypes": (lambda: mg.mse_loss(o(2), o(2, dtype=mg.float64)), "mse_loss", "float64"),
    "conv2d-ndim": (lambda: mg.conv2d(o(4, 4), o(2, 3, 3, 3)), None,  # (C, H, W) is unbatched input
                    r"^Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[4, 4\]$"),
    "conv2d-channels": (lambda: mg.conv2d(o(1, 3, 4, 4), o(2, 2, 3, 3)), None,  # PyTorch's words exactly
                        r"^Given groups=1, weight of size \[2, 2, 3, 3\], expected input\[1, 3, 4, 4\] to have 2 channels"),
    "conv2d-bias": (lambda: mg.conv2d(o(1, 3, 4, 4), o(2, 3, 3, 3), o(3)), None, "expected bias to be 1-dimensional"),
    "max_pool2d-ndim": (lambda: mg.max_pool2d(o(3, 4), 2), "max_pool2d", "3D or 4D"),
    "where-condition-dtype": (lambda: mg.where(o(2), o(2), o(2)), "where", "bool"),
    "where-shapes": (lambda: mg.where(mg.tensor([True, False]), o(3), o(3)), None,
                     r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton dimension 0$"),
    "getitem-out-of-range": (lambda: o(2, 3)[2], None, r"^index 2 is out of bounds for dimension 0 with size 2$"),
    "getitem-too-many": (lambda: o(2)[0, 0], None, "^too many indices for tensor of dimension 1$"),
    "getitem-mask-shape": (lambda: o(2)[mg.tensor([True, False, True])], None,
                           r"^The shape of the mask \[3\] at index 0 does not match the shape of the indexed tensor "
                           r"\[2\] at index 0$"),
    "getitem-mask-shape-dim": (lambda: o(2, 3)[:, [True, False]], None,
                               r"^The shape of the mask \[2\] at index 0 does not match the shape of the indexed "
                               r"tensor \[2, 3\] at index 1$"),
    "setitem-mask-shape": (lambda: o(2, 3).__setitem__(mg.ones(3, 3, dtype=mg.bool), 1.0), None,
                           r"^The shape of the mask \[3, 3\] at index 0 does not match the shape of the indexed "
                           r"tensor \[2, 3\] at index 0$"),
    "add-shapes": (lambda: o(2, 3) + o(4), None, r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                   r"non-singleton dimension 1$"),
    "pow-int-negative": (lambda: mg.tensor([2]) ** -1, "pow", "negative"),
    "setitem-shape": (lambda: o(2, 2).__setitem__(0, o(3)), None, r"^The expanded size of the tensor \(2\) must match "
                      r"the existing size \(3\) at non-singleton dimension 0\.  Target sizes: \[2\]\.  Tensor sizes: \[3\]$"),
    "setitem-index": (lambda: o(2, 2).__setitem__(5, 1.0), "setitem", "out of bounds"),
}


def _raises_naming_op(error: type[Exception], call: Callable[[], Any], op: str | None, pattern: str) -> None:
    """``call()`` raises ``error`` with a message that starts with ``op()`` (None: in PyTorch's own words, which
    name no op) and matches ``pattern``."""
    with pytest.raises(error) as info:
        call()
    msg = str(info.value)
    if op is not None:
        assert msg.startswith(f"{op}()"), msg
    assert re.search(pattern, msg), msg


@pytest.mark.parametrize("call,op,pattern", INFER_META_ERRORS.values(), ids=INFER_META_ERRORS.keys())
def test_shape_and_dtype_mismatches_raise_pytorch_s_class_and_value_error(call: Callable[[], Any], op: str,
                                                                           pattern: str) -> None:
    """PyTorch's class (RuntimeError, IndexError for an index or dim out of range), still a ValueError
    for programs written against earlier minigrad (minigrad/errors.py)."""
    _raises_naming_op(ValueError, call, op, pattern)
    with pytest.raises((RuntimeError, IndexError)):
        call()


# --- RuntimeError: window arguments of conv/pool (PyTorch's class; NOTE [ Window arguments are checked
# first ] in minigrad/ops/_window.py) --------------------------------------------------------------

WINDOW_ARGUMENT_ERRORS: dict[str, tuple[Callable[[], Any], str, str]] = {
    "conv2d-kernel-too-big": (lambda: mg.conv2d(o(1, 3, 2, 2), o(2, 3, 3, 3)), None,
                              "Kernel size can't be greater than actual input size"),
    "conv2d-stride-0": (lambda: mg.conv2d(o(1, 3, 4, 4), o(2, 3, 3, 3), stride=0), "conv2d", "'stride'.*non-positive"),
    "conv_transpose2d-channels": (lambda: mg.nn.functional.conv_transpose2d(o(2, 3, 6, 6), o(2, 2, 3, 3)), None,
                                  r"^Given transposed=1, weight of size \[2, 2, 3, 3\], expected input\[2, 3, 6, 6\] "
                                  "to have 2 channels, but got 3 channels instead$"),
    "max_pool2d-too-big": (lambda: mg.max_pool2d(o(1, 1, 2, 2), 3), "max_pool2d", "Output size is too small"),
    "max_pool2d-padding": (lambda: mg.max_pool2d(o(1, 1, 4, 4), 2, padding=2), "max_pool2d",
                           "pad should be at most half of effective kernel size"),
}


@pytest.mark.parametrize("call,op,pattern", WINDOW_ARGUMENT_ERRORS.values(), ids=WINDOW_ARGUMENT_ERRORS.keys())
def test_window_argument_values_raise_runtime_error(call: Callable[[], Any], op: str, pattern: str) -> None:
    _raises_naming_op(RuntimeError, call, op, pattern)


# --- RuntimeError: engine misuse ---------------------------------------------------------------


@pytest.mark.parametrize(
    "call,pattern",
    [
        (lambda: mg.tensor([True]) - mg.tensor([False]),  # PyTorch's sub_check, before any kernel
         r"^Subtraction, the `-` operator, with two bool tensors is not supported\. Use the `\^`"),
        (lambda: mg.mean(mg.tensor([1, 2])), r"^mean\(\): could not infer output dtype. .* Got: Long$"),
        (lambda: mg.softmax(mg.tensor([1, 2])), r"^\"softmax_lastdim_kernel_impl\" not implemented for 'Long'$"),
        (lambda: mg.tensor([1, 2]).__itruediv__(2), r"^result type Float can't be cast to the desired output type Long$"),
        (lambda: o(2, requires_grad=True).add_(1), r"^a leaf Variable that requires grad is being used in an in-place operation\.$"),
        (lambda: o(2, requires_grad=True).__setitem__(0, 1.0), r"^setitem\(\): a view of a leaf Variable that requires grad"),
        (lambda: mg.tensor([1, 2], requires_grad=True), "floating point"),
        (lambda: o(2).backward(), "^element 0 of tensors does not require grad and does not have a grad_fn$"),
        (lambda: (o(2, requires_grad=True) * 2).backward(), "^grad can be implicitly created only for scalar outputs$"),
        (lambda: (o(2, requires_grad=True) * 2).backward(o(3)),
         r"^Mismatch in shape: grad_output\[0\] has a shape of minigrad.Size\(\[3\]\) and output\[0\] has a shape of "
         r"minigrad.Size\(\[2\]\)\.$"),
    ],
)
def test_engine_misuse_raises_runtime_error(call: Callable[[], Any], pattern: str) -> None:
    with pytest.raises(RuntimeError, match=pattern):
        call()


def test_error_inside_backward_names_the_grad_node_and_op() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = mg.exp(y)

    def bad_hook(g: mg.Tensor) -> None:
        raise ValueError("boom")

    y.register_hook(bad_hook)
    with pytest.raises(ValueError, match=r"in MulBackward0#\d+ \(backward of 'mul'\): boom"):
        z.sum().backward()


def test_second_backward_through_freed_graph_says_retain_graph() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


# --- a failed op leaves no trace ---------------------------------------------------------------


@pytest.fixture
def new_nodes() -> Callable[[], list[GradNode]]:
    """Track every grad node created from now on; calling the fixture returns those still alive.

    Node ids only grow, so the nodes made after this point are the live GradNode
    objects with a larger id (however they were constructed).
    """
    first = next_node_id()

    def alive() -> list[GradNode]:
        gc.collect()
        return [o for o in gc.get_objects() if isinstance(o, GradNode) and o.id > first]

    return alive


def test_node_tracker_sees_nodes_that_stay_alive(new_nodes: Callable[[], list[GradNode]]) -> None:
    """The tracker itself must be able to fail: a kept result keeps its node alive."""
    x = mg.tensor([1.0], requires_grad=True)
    y = x * 2
    assert y.grad_fn in new_nodes()
    del y
    assert all(n.is_accumulation for n in new_nodes())


FAILING_CALLS = {
    "add-shapes": lambda x, y: x + o(5),
    "matmul-inner": lambda x, y: mg.matmul(x.reshape(2, 2), o(3, 3)),
    "reshape": lambda x, y: y.reshape(3, 3),
    "concat-mixed": lambda x, y: mg.concat([x, y, o(2, 2)]),
    "cross_entropy-target": lambda x, y: mg.cross_entropy(y.reshape(2, 2), mg.tensor([0, 7])),
    "wrong-type": lambda x, y: mg.mul(x, "a"),
    "getitem": lambda x, y: y[9],
    "kernel-error": lambda x, y: mg.pow(mg.tensor([2]), mg.tensor([-1])) + x,
}


@pytest.mark.parametrize("call", FAILING_CALLS.values(), ids=FAILING_CALLS.keys())
def test_failed_op_builds_no_node_and_changes_no_tensor(
    call: Callable[..., Any], new_nodes: Callable[[], list[GradNode]]
) -> None:
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)  # a leaf: no AccumulationNode yet
    y = mg.exp(x)  # a non-leaf
    y_node, y_vals, y_version = y.grad_fn, y.detach().numpy().copy(), y.version
    before = set(map(id, new_nodes()))
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        call(x, y)
    assert set(map(id, new_nodes())) <= before, "a failed op left a grad node alive"
    assert x._meta.acc_node() is y_node.next_edges[0][0].node  # only exp's use of x made one
    assert x.grad_fn is None and x.grad is None and x.version == 0
    assert y.grad_fn is y_node and y.version == y_version
    np.testing.assert_array_equal(y.detach().numpy(), y_vals)
    # The graph still works: the failure did not corrupt it.
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0, 4.0]), rtol=1e-6)


def test_first_use_of_a_leaf_in_a_failed_op_creates_no_accumulation_node() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError):
        x + o(3)
    assert x._meta.acc_node is None


INPLACE_FAILURES = {
    "add_-shapes": lambda y: y.add_(o(5)),
    "add_-grows": lambda y: y.add_(o(2, 4)),
    "mul_-type": lambda y: y.mul_("a"),
    "sub_-shapes": lambda y: y.sub_(o(3)),
    "iadd-shapes": lambda y: y.__iadd__(o(3)),
    "fill_-type": lambda y: y.fill_([1]),
    "setitem-shape": lambda y: y.__setitem__(slice(0, 2), o(3)),
    "setitem-type": lambda y: y.__setitem__(0, "a"),
}


@pytest.mark.parametrize("call", INPLACE_FAILURES.values(), ids=INPLACE_FAILURES.keys())
def test_failed_inplace_op_leaves_values_version_and_grad_fn(
    call: Callable[..., Any], new_nodes: Callable[[], list[GradNode]]
) -> None:
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 2
    node, vals, version = y.grad_fn, y.detach().numpy().copy(), y.version
    before = set(map(id, new_nodes()))
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        call(y)
    np.testing.assert_array_equal(y.detach().numpy(), vals)
    assert y.version == version and y.grad_fn is node
    assert set(map(id, new_nodes())) <= before, "a failed in-place op left a grad node alive"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0, 2.0])


def test_failed_inplace_on_integer_tensor_keeps_values() -> None:
    i = mg.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i /= 2
    assert i.tolist() == [1, 2, 3] and i.version == 0 and i.dtype is mg.int64


#: Subtracting or negating bools, written every way a program can: PyTorch refuses each before any kernel
#: runs (``sub_check``, neg's meta), so ``b - 1`` is not promoted to an int64 subtraction.
BOOL_ARITHMETIC = ["b - 1", "1 - b", "b - 1.5", "x - True", "True - x", "b - True", "b - b", "x - b",
                   "-b", "b.neg()", "lib.neg(b)", "lib.sub(b, 1)", "b.sub(x)", "lib.rsub(b, 1)"]


@pytest.mark.parametrize("expr", BOOL_ARITHMETIC)
def test_bool_subtraction_and_negation_are_refused_in_pytorch_s_words(expr: str) -> None:
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (mg, torch):
        names = {"lib": lib, "b": lib.tensor([True, False]), "x": lib.tensor([1.0, 2.0], requires_grad=True)}
        with pytest.raises(Exception) as info:
            eval(expr, names)
        outcomes.append((type(info.value).__name__, str(info.value)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == "RuntimeError"


#: An in-place op (or out=) whose result type can't be cast to the tensor's dtype, and the in-place comparisons'
#: and logical ops' shape refusals: PyTorch's exact words (ScalarType names: Float, Long, Bool ...; clamp_ by
#: numbers names the tensor's type in C++, ``long int``; no op name in front)
INPLACE_WORDS = [
    "L.add_(F)", "L.mul_(0.5)", "L.div_(2)", "I.add_(F.double())", "B.add_(L)", "B.add_(1)", "B.mul_(L)",
    "L.sub_(F.half())", "L.sub_(F.bfloat16())", "L.exp_()", "L.sqrt_()", "L.sigmoid_()", "L.addcmul_(F, F)",
    "L.pow_(0.5)", "L.true_divide_(2)", "L.xlogy_(2)", "L.add_(lib.tensor(1.5))", "lib.add(F, F, out=L)",
    "lib.mul(F, 2, out=lib.zeros(2, dtype=lib.int8))", "lib.add(L, L, out=B)",
    "L.clamp_(0.5)", "I.clamp_(0.5)", "L.clamp_(max=0.5)", "L.clamp_(0, 2.5)", "L.clip_(0.5, 1.5)",
    "L.clamp_min_(0.5)", "L.clamp_max_(0.5)", "B.clamp_(1)", "lib.zeros(2, dtype=lib.uint8).clamp_(0.5)",
    "L.clamp_(F)",
    *[f"L.{op}(lib.zeros(3))" for op in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "less_", "greater_equal_",
                                          "not_equal_", "logical_and_", "logical_or_", "logical_xor_")],
    *[f"L.{op}(lib.zeros(3, 2))" for op in ("eq_", "gt_", "logical_and_")],
    "L.eq_(lib.zeros(4, 3))",
]


@pytest.mark.parametrize("expr", INPLACE_WORDS)
def test_inplace_result_type_and_shape_refusals_are_pytorchs_words(expr: str) -> None:
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (mg, torch):
        names = {"lib": lib, "L": lib.zeros(2, dtype=lib.long), "I": lib.zeros(2, dtype=lib.int32),
                 "B": lib.zeros(2, dtype=lib.bool), "F": lib.zeros(2)}
        with pytest.raises(RuntimeError) as info:
            eval(expr, names)
        outcomes.append(str(info.value))
    assert outcomes[0] == outcomes[1]
