"""The shapes a convolution kernel is handed in, shared by the CPU and GPU kernels (arrays of either).

- A 1-D convolution's ``(N, C, L)`` input and ``(O, C / groups, K)`` weight run through the 2-D kernels
  over a height of 1 (``as_2d``); its ops' stride, padding and dilation are pairs whose first entry is the
  height's (1, 0, 1).
- A transposed convolution is the gradient of a convolution with respect to its input
  (``transposed_output``): the input-gradient kernel run unpadded, to the full size every window reaches,
  ``(H - 1) * stride + dilation * (k - 1) + 1``; the padding is then cropped off and ``output_padding``
  appends rows no window reaches (zeros). The full size is what the input-gradient kernel needs: a larger
  target (``output_padding >= stride``, allowed with dilation) would give it one window more than the
  input has.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["as_2d", "transposed_output"]


def as_2d(*arrays: Any) -> tuple[Any, ...]:
    """``(N, C, L)`` arrays as ``(N, C, 1, L)`` views (``None`` stays ``None``)."""
    return tuple(None if a is None else a.reshape(tuple(a.shape[:2]) + (1,) + tuple(a.shape[2:])) for a in arrays)


def transposed_output(input_grad: Callable[..., Any], zeros: Callable[..., Any], x: Any, weight: Any, bias: Any,
                      stride: tuple[int, int], padding: tuple[int, int], output_padding: tuple[int, int],
                      dilation: tuple[int, int], groups: int) -> Any:
    """The transposed convolution of a batched ``(N, C_in, H, W)`` ``x`` with ``weight``
    ``(C_in, C_out / groups, kH, kW)``, made by ``input_grad`` (a backend's conv2d input-gradient kernel)."""
    n, _, h, w = x.shape
    _, cout_g, kh, kw = weight.shape
    full = tuple((size - 1) * s + d * (k - 1) + 1 for size, s, d, k in zip((h, w), stride, dilation, (kh, kw)))
    y = input_grad(x, weight, (n, cout_g * groups) + full, stride, (0, 0), dilation, groups)
    if any(padding) or any(output_padding):
        oh, ow = (f - 2 * p + o for f, p, o in zip(full, padding, output_padding))
        out = zeros((n, cout_g * groups, oh, ow), dtype=y.dtype)
        kept = y[:, :, padding[0]:padding[0] + oh, padding[1]:padding[1] + ow]
        out[:, :, :kept.shape[2], :kept.shape[3]] = kept
        y = out
    if bias is not None:
        y = y + bias.reshape(1, -1, 1, 1)
    return y
