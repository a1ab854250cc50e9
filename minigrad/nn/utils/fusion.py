"""``mg.nn.utils.fuse_conv_bn_eval`` and friends: fold an eval-mode batch norm into the convolution or linear
layer before it, PyTorch's.

NOTE [ A batch norm in eval mode is an affine map that folds into the layer before it ]
    In eval mode ``bn(y) = (y - mean) / sqrt(var + eps) * gamma + beta`` with fixed running statistics: per
    channel, a scale ``s = gamma / sqrt(var + eps)`` and a shift. For ``y = conv(x, W) + b`` that is
    ``conv(x, W * s) + (b - mean) * s + beta``: one convolution with a new weight (each output channel's
    filter scaled - along dim 1 of a transposed convolution's weight, which holds the output channels
    there) and a new bias. Inference then runs one layer where it ran two; the outputs agree up to rounding.
    The fused layer is a deep copy; the originals are unchanged.

Example:
    >>> import minigrad as mg
    >>> conv, bn = mg.nn.Conv2d(2, 3, 3).eval(), mg.nn.BatchNorm2d(3).eval()
    >>> x = mg.randn(1, 2, 5, 5)
    >>> fused = mg.nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> bool(mg.allclose(fused(x), bn(conv(x)), atol=1e-6))
    True
"""

from __future__ import annotations

import copy

from ... import creation
from ...ops import rsqrt
from ...tensor import Tensor
from ..module import Module, Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv: Module, bn: Module, transpose: bool = False) -> Module:
    """A copy of ``conv`` whose weight and bias include ``bn`` (both in eval mode; NOTE [ A batch norm in eval
    mode is an affine map that folds into the layer before it ])."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                         bn_w: Tensor | None, bn_b: Tensor | None, transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The fused weight and bias as Parameters, in the convolution's dtypes: each output channel's filter times
    ``bn_w / sqrt(bn_rv + eps)``, the bias ``(conv_b - bn_rm) * that + bn_b``."""
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    conv_b = creation.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = creation.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = creation.zeros_like(bn_rm) if bn_b is None else bn_b
    bn_var_rsqrt = rsqrt(bn_rv + bn_eps)
    shape = [1, -1] + [1] * (conv_w.ndim - 2) if transpose else [-1, 1] + [1] * (conv_w.ndim - 2)
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: Module, bn: Module) -> Module:
    """A copy of ``linear`` whose weight and bias include ``bn`` (both in eval mode; ``bn`` over the linear
    layer's output features, or over one feature)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
                             f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                           bn_w: Tensor, bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """The fused weight and bias as Parameters: each output row times ``bn_w / sqrt(bn_rv + eps)``."""
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    linear_b = creation.zeros_like(bn_rm) if linear_b is None else linear_b
    bn_scale = bn_w * rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
