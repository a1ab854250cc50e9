"""Conformance with PyTorch's own OpInfo sample inputs (skipped without torch).

PyTorch describes each of its ops with an ``OpInfo`` (``torch.testing._internal.common_methods_invocations
.op_db``) whose ``reference_inputs`` generator yields the inputs its own test suite runs: odd shapes, 0-d
and empty tensors, NaN and infinities, broadcasting, negative dims, keyword forms. This test feeds those
samples, in float64, to every minigrad op that has a PyTorch twin and compares, sample by sample:

* the result's shape, dtype and values (NaN where PyTorch has NaN),
* the gradients of ``sum(w * out)`` (fixed random weights ``w``) w.r.t. every input that requires grad.

Argument forms minigrad does not support yet are listed in ``UNSUPPORTED`` below, each with why; for
them minigrad must raise its own clear error (``TypeError``/``ValueError``/``RuntimeError`` naming the
op), never a crash from NumPy or Python internals. Every other sample must agree. At most
``MAX_SAMPLES`` samples per op keep the run short; ``python tests/test_conformance.py`` prints the counts.

Device mode: ``MINIGRAD_CONFORMANCE_DEVICE=gpu`` puts minigrad's side of every sample on the GPU (its inputs,
the weights of the gradients' sum): every output must be on the GPU, and values and gradients are PyTorch's
CPU ones, as on the CPU. With the stand-in CuPy (``MINIGRAD_FAKE_CUPY=1``) it runs on any machine
(``tests/gpu/test_emulated_gpu.py`` runs it so); on a device, ``scripts/gpu_device_check.sh``.
"""

from __future__ import annotations

import itertools
import os
import re
from collections import Counter
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")
try:
    from torch.testing._internal.common_methods_invocations import op_db
except ImportError as exc:  # the OpInfo database needs `expecttest` (the Makefile installs it with torch)
    pytest.skip(f"PyTorch's OpInfo database is not importable: {exc}", allow_module_level=True)

pytestmark = pytest.mark.torch

#: where minigrad's side runs (the module docstring's device mode)
DEVICE = os.environ.get("MINIGRAD_CONFORMANCE_DEVICE", "cpu")
if DEVICE == "gpu" and not mg.is_gpu_available():
    pytest.skip("MINIGRAD_CONFORMANCE_DEVICE=gpu without a GPU: set MINIGRAD_FAKE_CUPY=1 for the stand-in",
                allow_module_level=True)
DEVICE_TYPE = mg.device(DEVICE).type  # "cuda" for minigrad's "gpu", as PyTorch names it

MAX_SAMPLES = 100  # per op (OpInfo name + variant), in generator order: every reference input of today's ops

# OpInfo (name, variant) -> the minigrad callable with the same signature.
OPS: dict[tuple[str, str], Callable[..., Any]] = {
    **{(n, ""): getattr(mg, n) for n in (
        "abs", "add", "amax", "amin", "cat", "ceil", "clamp", "clamp_max", "clamp_min", "cos", "eq", "erf",
        "exp", "expm1", "flatten", "floor", "ge", "gt", "le", "log", "log1p", "log_softmax", "logsumexp", "lt",
        "masked_fill", "matmul", "maximum", "mean", "minimum", "mul", "ne", "neg", "permute", "pow", "reshape",
        "round", "sigmoid", "sign", "sin", "softmax", "sqrt", "squeeze", "stack", "std", "sub", "sum", "t",
        "tanh", "transpose", "tril", "triu", "trunc", "unsqueeze", "var", "argmax", "argmin",
    )},
    ("div", "no_rounding_mode"): mg.div,
    ("div", "floor_rounding"): mg.div,
    ("div", "trunc_rounding"): mg.div,
    ("round", "decimals_0"): mg.round,
    ("round", "decimals_3"): mg.round,
    ("round", "decimals_neg_3"): mg.round,
    ("softmax", "with_dtype"): F.softmax,
    # OpInfo's output is any tensor, not a softmax's: the formula holds for every value
    ("_softmax_backward_data", ""): lambda grad_output, output, dim, input_dtype: mg.softmax_backward_data(
        grad_output, output, dim),
    ("log_softmax", "with_dtype"): F.log_softmax,
    ("nn.functional.embedding", ""): lambda weight, idx, **kw: F.embedding(idx, weight, **kw),
    ("nn.functional.embedding_bag", ""): lambda weight, idx, **kw: F.embedding_bag(idx, weight, **kw),
    ("nn.functional.batch_norm", ""): F.batch_norm,
    ("split", ""): mg.split,
    ("split", "list_args"): mg.split,
    ("chunk", ""): mg.chunk,
    ("unsafe_split", ""): mg.unsafe_split,
    ("nn.functional.bilinear", ""): F.bilinear,
    ("unsafe_chunk", ""): mg.unsafe_chunk,
    ("split_with_sizes", ""): mg.split_with_sizes,
    ("tensor_split", ""): mg.tensor_split,
    ("hsplit", ""): mg.hsplit,
    ("vsplit", ""): mg.vsplit,
    ("dsplit", ""): mg.dsplit,
    ("expand", ""): mg.expand,
    ("clone", ""): mg.clone,
    ("bmm", ""): mg.bmm,
    ("index_put", ""): mg.index_put,
    ("index_select", ""): mg.index_select,
    ("masked_select", ""): mg.masked_select,
    ("where", ""): lambda x, condition, y: mg.where(condition, x, y),  # OpInfo's where takes (x, condition, y)
    ("max", "reduction_no_dim"): mg.max,
    ("max", "reduction_with_dim"): mg.max,
    ("max", "binary"): mg.max,
    ("min", "reduction_no_dim"): mg.min,
    ("min", "reduction_with_dim"): mg.min,
    ("min", "binary"): mg.min,
    ("squeeze", "multiple"): mg.squeeze,
    ("std", "unbiased"): mg.std,
    ("var", "unbiased"): mg.var,
    **{(f"nn.functional.{n}", ""): getattr(F, n) for n in (
        "relu", "gelu", "mse_loss", "nll_loss", "cross_entropy", "linear", "layer_norm", "conv2d",
        "max_pool2d", "batch_norm",
    )},
    # the torch.* tensor ops
    **{(n, ""): getattr(mg, n) for n in (
        "gather", "scatter_add", "scatter", "take_along_dim", "sort", "argsort", "topk", "msort",
        "cumsum", "cumprod", "flip", "fliplr", "flipud", "roll", "repeat_interleave", "unbind",
        "log2", "log10", "isnan", "isinf", "isfinite", "nonzero", "argwhere", "count_nonzero",
    )},
    ("norm", ""): mg.norm,
    ("norm", "fro"): mg.norm,
    ("norm", "inf"): mg.norm,
    ("norm", "nuc"): mg.norm,
    ("linalg.norm", ""): mg.linalg.norm,
    ("linalg.norm", "subgradients_at_zero"): mg.linalg.norm,
    ("linalg.vector_norm", ""): mg.linalg.vector_norm,
    ("linalg.matrix_norm", ""): mg.linalg.matrix_norm,
    **{(n, ""): getattr(mg, n) for n in (
        "dot", "vdot", "mv", "mm", "addcmul", "addcdiv", "diff", "diag", "diagonal", "logical_not", "logical_and",
        "logical_or", "logical_xor", "masked_select", "var_mean", "std_mean", "narrow", "select", "reciprocal", "rsqrt",
        "square", "lerp", "ravel", "atleast_1d", "atleast_2d", "atleast_3d", "unflatten", "column_stack",
        "index_select", "take", "hstack", "vstack", "dstack", "movedim", "tile", "all", "any", "prod", "index_add",
        "remainder", "fmod", "floor_divide", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
        "atanh", "atan2", "exp2", "kthvalue", "median", "quantile", "nan_to_num", "rot90", "tensordot", "kron",
        "cummax", "cummin", "searchsorted", "bucketize", "unique", "histc",  # (bincount's OpInfo is integer-only)
        "logaddexp", "logaddexp2", "hypot", "xlogy", "logit", "sgn", "frac", "fmax", "fmin", "cartesian_prod",
        "block_diag", "cross", "cdist", "copysign", "deg2rad", "heaviside", "aminmax", "float_power", "rad2deg", "sinc",
        "signbit", "erfc", "nanmean", "nansum", "logcumsumexp", "erfinv", "index_copy", "index_fill", "dist",
        "diag_embed", "diagflat",
    )},
    # the gamma family (ops/gamma.py)
    ("lgamma", ""): mg.lgamma,
    ("digamma", ""): mg.digamma,
    # (OpInfo's samples give the input first and the order n as an argument: torch.polygamma(n, input) swapped)
    **{("polygamma", f"polygamma_n_{n}"): lambda x, n: mg.polygamma(n, x) for n in range(5)},
    ("special.polygamma", "special_polygamma_n_0"): lambda x, n: mg.special.polygamma(n, x),
    **{("mvlgamma", f"mvlgamma_p_{p}"): mg.mvlgamma for p in (1, 3, 5)},
    ("var_mean", "unbiased"): mg.var_mean,
    ("std_mean", "unbiased"): mg.std_mean,
    ("linalg.inv", ""): mg.linalg.inv,
    ("linalg.cross", ""): mg.linalg.cross,
    ("linalg.matrix_power", ""): mg.linalg.matrix_power,
    ("unfold", ""): lambda x, *a, **k: x.unfold(*a, **k),
    ("as_strided", ""): mg.as_strided,
    ("as_strided", "partial_views"): mg.as_strided,  # (its samples as_strided a view: the base's storage)
    ("repeat", ""): lambda x, *a, **k: x.repeat(*a, **k),  # a method only, as in PyTorch
    ("trace", ""): lambda x: x.trace(),  # minigrad.trace is the recorder: the matrix trace is a method
    ("linalg.det", ""): mg.linalg.det,
    ("linalg.solve", ""): mg.linalg.solve,
    **{(n, ""): getattr(mg, n) for n in ("outer", "addmm", "addmv", "addbmm", "baddbmm", "addr")},
    ("addmm", "decomposed"): mg.addmm,
    ("meshgrid", "variadic_tensors"): mg.meshgrid,
    ("meshgrid", "list_of_tensors"): mg.meshgrid,
    ("einsum", ""): lambda tensors, equation: mg.einsum(equation, tensors),  # OpInfo's einsum takes (tensors, equation)
    ("view_as", ""): lambda x, other: x.view_as(other),
    ("expand_as", ""): lambda x, other: x.expand_as(other),
    ("broadcast_to", ""): mg.broadcast_to,
    ("broadcast_tensors", ""): mg.broadcast_tensors,
}


# torch.nn.functional's activations, losses, padding, resampling, convolutions, pooling, norms.
OPS.update({
    **{(f"nn.functional.{n}", ""): getattr(F, n) for n in (
        "silu", "leaky_relu", "elu", "hardtanh", "relu6", "hardswish", "hardsigmoid", "selu", "celu", "mish",
        "softsign", "logsigmoid", "tanhshrink", "softmin", "glu", "prelu", "softplus",
        "binary_cross_entropy", "binary_cross_entropy_with_logits", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
        "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "upsample_nearest", "upsample_bilinear",
        "conv1d", "conv_transpose1d", "conv_transpose2d", "unfold",
        "group_norm", "instance_norm", "normalize", "cosine_similarity", "pairwise_distance",
        "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
        "poisson_nll_loss", "gaussian_nll_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "rms_norm",
        "pixel_shuffle", "pixel_unshuffle",
        "hardshrink", "softshrink", "threshold",
        "max_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "local_response_norm", "rrelu",
    )},
    **{(f"nn.functional.max_unpool{k}d", v): getattr(F, f"max_unpool{k}d") for k in (1, 2, 3) for v in ("", "grad")},
    ("nn.functional.softmin", "with_dtype"): F.softmin,
    **{("nn.functional.pad", v): F.pad for v in ("constant", "reflect", "replicate", "replicate_negative", "circular")},
    **{("nn.functional.interpolate", v): F.interpolate for v in (
        "nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")},
})

# spatial transformers (ops/grid_sample.py): one op each
OPS.update({("nn.functional.grid_sample", ""): F.grid_sample, ("nn.functional.affine_grid", ""): F.affine_grid})

# the 3-D convolutions and pools (ops/convolution3d.py, ops/pooling3d.py)
OPS.update({(f"nn.functional.{n}", ""): getattr(F, n)
            for n in ("conv3d", "conv_transpose3d", "max_pool3d", "adaptive_avg_pool3d")})

# CTC, fractional max pooling (PyTorch's draws: the OpInfo seeds torch with 42, the wrapper minigrad too) and the
# triplet loss with a distance function (ops/ctc_loss.py, ops/fractional_pooling.py, nn/functional.py)
def _seeded(k: int) -> Callable[..., Any]:
    fn = getattr(F, f"fractional_max_pool{k}d")

    def call(input: Any, *args: Any, **kwargs: Any) -> Any:
        mg.manual_seed(42)  # PyTorch's wrapper_set_seed
        # (the device draws its own stream: in the device mode, PyTorch's CPU draws, moved there)
        if DEVICE != "cpu" and input.ndim > k and kwargs.get("_random_samples") is None:
            batch = 1 if input.ndim == k + 1 else input.shape[0]
            kwargs["_random_samples"] = mg.rand(batch, input.shape[-k - 1], k, dtype=input.dtype).to(input.device)
        return fn(input, *args, **kwargs)
    return call


OPS.update({("nn.functional.ctc_loss", ""): F.ctc_loss,
            # (its samples pass PyTorch's PairwiseDistance module: minigrad's twin stands in for it)
            ("nn.functional.triplet_margin_with_distance_loss", ""): lambda *a, distance_function=None, **k:
                F.triplet_margin_with_distance_loss(*a, distance_function=distance_function and mg.nn.PairwiseDistance(),
                                                    **k),
            **{(f"nn.functional.fractional_max_pool{k}d", ""): _seeded(k) for k in (2, 3)}})

# multi_head_attention_forward's sample drops attention weights: the OpInfo seeds torch with 42, so minigrad too (on
# the CPU only: a device draws its own stream)
if DEVICE == "cpu":
    OPS.update({("nn.functional.multi_head_attention_forward", ""): lambda *a, **k: (
        mg.manual_seed(42), F.multi_head_attention_forward(*a, **k))[1]})

# attention (a composite of matmul, softmax, masked_fill/add and dropout).
OPS.update({("nn.functional.scaled_dot_product_attention", ""): F.scaled_dot_product_attention})

# The indexed fills and copies students write (the bitwise ops' OpInfos are integer-only, like bincount's:
# tests/test_student_names.py compares them with PyTorch).
OPS.update({(n, ""): getattr(mg, n) for n in ("index_fill", "index_copy", "inner", "corrcoef")})
# (cov: tests/test_edge_conformance.py. Its OpInfo samples give float32 aweights to a float64 input; their
# gradient, the sum of float64 products over three paths, differs from PyTorch's in the last float32 digit: the
# two round to float32 at other points)

# scatter_reduce: one OpInfo per reduction
OPS.update({("scatter_reduce", r): mg.scatter_reduce for r in ("sum", "prod", "mean", "amax", "amin")})
# mode: the position among ties is the one PyTorch's CPU std::sort leaves last (kernels/std_sort.py)
OPS.update({("mode", ""): mg.mode})
# writing a source into a copy, lower medians and quantiles of the numbers, renorm (tests/test_ops_batch_b.py)
OPS.update({(n, ""): getattr(mg, n) for n in ("masked_scatter", "slice_scatter", "select_scatter", "diagonal_scatter",
                                              "put", "nanmedian", "nanquantile", "renorm")})
OPS.update({("nn.functional.pdist", ""): F.pdist, ("nn.functional.channel_shuffle", ""): F.channel_shuffle})
# the trapezoidal rule: PyTorch's composites op for op (ops/integration.py)
OPS.update({(n, ""): getattr(mg, n) for n in ("trapezoid", "trapz", "cumulative_trapezoid")})
# sets, a float's parts, histograms, Bessel functions, combinations (tests/test_ops_batch_a.py has the integer forms)
OPS.update({(n, ""): getattr(mg, n) for n in ("isin", "unique_consecutive", "nextafter", "frexp", "ldexp", "histogram",
                                             "i0", "combinations")})
OPS.update({("special.i1", ""): mg.special.i1})
# torch.special's entropy, normal-distribution, scaled erfc and Bessel functions (ops/special_functions.py), and
# torch.linalg's composites (ops/linalg_functions.py)
OPS.update({(f"special.{n}", ""): getattr(mg.special, n) for n in ("entr", "ndtr", "ndtri", "log_ndtr", "erfcx",
                                                                   "xlog1py", "i0e", "i1e")})
OPS.update({(f"linalg.{n}", ""): getattr(mg.linalg, n) for n in ("multi_dot", "vecdot", "cond", "inv_ex", "solve_ex",
                                                                 "tensorinv", "tensorsolve", "diagonal", "vander")})
OPS.update({("inner", ""): mg.inner})
# the orthogonal polynomials (ops/orthogonal_polynomials.py), without derivatives as PyTorch's (laguerre_polynomial_l
# is left to tests/test_special_linalg_more.py: its OpInfo samples' degrees run its recurrence for a minute, in
# PyTorch's loop as in minigrad's)
OPS.update({(f"special.{n}", ""): getattr(mg.special, n) for n in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "legendre_polynomial_p")})
OPS.update({(f"special.{n}", ""): getattr(mg.special, n) for n in ("modified_bessel_i0", "modified_bessel_i1",
                                                                   "spherical_bessel_j0")})
# the modified Bessel functions K (ops/special_bessel.py), zeta and the incomplete gamma functions
# (ops/incomplete_gamma.py). (bessel_j0/j1/y0/y1 and airy_ai are left to tests/test_special_more2.py: their OpInfo
# samples fall where PyTorch 2.13's kernels are off the true values by 1e-8 to 1e-4, which that file shows.)
OPS.update({(f"special.{n}", ""): getattr(mg.special, n) for n in (
    "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "zeta")})
OPS.update({("igamma", ""): mg.igamma, ("igammac", ""): mg.igammac})
# index_reduce: one OpInfo per reduction
OPS.update({("index_reduce", r): lambda x, *a, **k: x.index_reduce(*a, **k) for r in ("prod", "mean", "amax", "amin")})
# the matrix factorizations (ops/factorization.py); their OpInfo samples make positive-definite,
# symmetric or full-rank matrices where the factorization needs them
OPS.update({("linalg.cholesky", ""): mg.linalg.cholesky, ("linalg.cholesky_ex", ""): mg.linalg.cholesky_ex,
            ("cholesky", ""): mg.cholesky, ("cholesky_inverse", ""): mg.cholesky_inverse, ("linalg.slogdet", ""): mg.linalg.slogdet, ("logdet", ""): mg.logdet,
            ("linalg.qr", ""): mg.linalg.qr, ("qr", ""): mg.qr, ("linalg.eigvalsh", ""): mg.linalg.eigvalsh,
            ("linalg.svdvals", ""): mg.linalg.svdvals, ("linalg.pinv", ""): mg.linalg.pinv,
            ("linalg.pinv", "hermitian"): mg.linalg.pinv, ("pinverse", ""): mg.pinverse,
            ("linalg.lstsq", ""): mg.linalg.lstsq, ("linalg.matrix_exp", ""): mg.linalg.matrix_exp,
            ("matrix_exp", ""): mg.matrix_exp, ("linalg.solve_triangular", ""): mg.linalg.solve_triangular,
            ("linalg.lstsq", "grad_oriented"): lambda a, b, driver: mg.linalg.lstsq(a, b, driver=driver)[:2]})
# Householder reflectors and the solves from a factor (ops/householder.py, ops/inverse.py, ops/lu.py)
OPS.update({("linalg.householder_product", ""): mg.linalg.householder_product, ("geqrf", ""): mg.geqrf,
            ("ormqr", ""): mg.ormqr, ("triangular_solve", ""): mg.triangular_solve,
            ("cholesky_solve", ""): mg.cholesky_solve, ("linalg.lu_solve", ""): mg.linalg.lu_solve,
            ("lu_solve", ""): mg.lu_solve, ("lu_unpack", ""): mg.lu_unpack, ("lu", ""): mg.lu,
            ("linalg.lu_factor", ""): mg.linalg.lu_factor, ("linalg.lu_factor_ex", ""): mg.linalg.lu_factor_ex})
# (linalg.eigh, linalg.svd and svd: the sign of each eigenvector and singular vector is the LAPACK's choice, and
# PyTorch's (MKL) and NumPy's (OpenBLAS) choose differently for about half the matrices, so their raw outputs
# cannot be compared sample by sample. Their eigenvalues and singular values are (eigvalsh, svdvals, the
# nuclear and spectral norms above); the functions of the vectors that do not depend on the signs are
# compared with PyTorch in tests/test_factorization.py.)

# Samples whose result is random (a dropout mask from each framework's own generator): not compared.
RANDOM_SAMPLES: list[tuple[str, Callable[[Any], bool], str]] = [
    # (tests/test_nn_rrelu.py compares its draws with PyTorch's, both generators seeded alike)
    ("nn.functional.rrelu", lambda s: s.kwargs.get("training", False), "training draws random slopes"),
    ("nn.functional.scaled_dot_product_attention", lambda s: s.kwargs.get("dropout_p", 0.0) > 0,
     "dropout_p > 0 draws a random mask"),
]

# -- Argument forms minigrad does not support yet ------------------------------------------------
# Each entry: (op name pattern, predicate on the torch sample, why). A matching sample must make
# minigrad raise TypeError/ValueError/RuntimeError whose message names the op.
def _kw(*names: str) -> Callable[[Any], bool]:
    return lambda s: any(n in s.kwargs for n in names)


UNSUPPORTED: list[tuple[str, Callable[[Any], bool], str]] = [
    # add(2.5, 3.0): two Python numbers. PyTorch wraps the first in a 0-d tensor; minigrad's ops ask for at
    # least one Tensor (TypeError naming the op).
    ("add|sub|mul|div", lambda s: not isinstance(s.input, torch.Tensor) and not any(
        isinstance(a, torch.Tensor) for a in s.args), "two Python numbers, no Tensor"),
    # Complex inputs (addcmul's and addcdiv's reference inputs have some): minigrad has no complex dtype; the
    # op refuses the NumPy array it is handed (TypeError naming it).
    (".*", lambda s: any(isinstance(t, torch.Tensor) and (t.is_complex() or t.dtype == torch.bfloat16)
                         for t in [s.input, *s.args, *s.kwargs.values()]),
     "complex numbers or bfloat16"),
    # Two Python numbers and no tensor (floor_divide's "_transformed" scalar samples): minigrad's ops need a tensor
    # (TypeError naming the op).
    ("floor_divide", lambda s: not isinstance(s.input, torch.Tensor) and not any(isinstance(a, torch.Tensor) for a in s.args),
     "two Python numbers, no tensor"),
]

# The device mode (module docstring): the argument forms PyTorch CUDA refuses, as minigrad's GPU does.
if DEVICE != "cpu":
    UNSUPPORTED.append(("linalg.lstsq", lambda s: s.kwargs.get("driver") not in (None, "gels"),
                        "PyTorch CUDA's lstsq has only the gels driver"))

#: Arguments (by position among input and args) that PyTorch's OpInfo samples make on the CPU whatever the
#: device: they stay there in the device mode (``tensor_split`` refuses indices on a GPU, as PyTorch).
HOST_ARGUMENTS: dict[str, tuple[int, ...]] = {"tensor_split": (1,)}

# PyTorch's vectorised and scalar CPU kernels disagree on the gradient at a NaN input for these ops
# (hardtanh: 0 in the vectorised body, the gradient in the scalar tail of the same tensor; elu: NaN
# against the gradient): that gradient entry is not compared. minigrad gives the vectorised answer.
NAN_INPUT_GRADIENT_VARIES = {"nn.functional.hardtanh", "nn.functional.relu6", "nn.functional.elu", "nn.functional.celu",
                             "nn.functional.selu", "nn.functional.hardshrink", "nn.functional.softshrink"}

_CLEAR_ERRORS = (TypeError, ValueError, RuntimeError, NotImplementedError)


#: Ops whose result depends on the input's storage, not only its values (``as_strided`` reads it by its own
#: strides): a sample whose input is a view (``as_strided``'s ``partial_views``) gets a view of a fresh copy
#: of its base, on both sides, where the others get a fresh copy of its values.
READS_STORAGE = {"as_strided"}


def _fresh_view(t: Any) -> Any:
    base = t._base.detach().clone()
    return base.as_strided(t.size(), t.stride(), t.storage_offset()).requires_grad_(t.requires_grad)


def _mg_view(t: Any) -> Any:
    base = mg.tensor(t._base.detach().numpy().copy(), device=DEVICE)
    return base.as_strided(tuple(t.size()), t.stride(), t.storage_offset()).requires_grad_(t.requires_grad)


def _fresh(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone().requires_grad_(obj.requires_grad)
    if isinstance(obj, (list, tuple)) and not isinstance(obj, torch.Size):
        return [_fresh(o) for o in obj] if isinstance(obj, list) else tuple(_fresh(o) for o in obj)
    return obj


def _to_mg(obj: Any, device: str = DEVICE) -> Any:
    if isinstance(obj, torch.Tensor) and (obj.is_complex() or obj.dtype == torch.bfloat16):
        # minigrad has no complex or bfloat16 dtype: the op gets a NumPy array and must refuse it
        return obj.detach().numpy().copy() if obj.is_complex() else obj.detach().float().numpy()
    if isinstance(obj, torch.Tensor):
        return mg.tensor(obj.detach().numpy().copy(), device=device, requires_grad=obj.requires_grad)
    if isinstance(obj, torch.Size):
        return tuple(obj)
    if isinstance(obj, torch.memory_format):
        return getattr(mg, str(obj).replace("torch.", ""))
    if isinstance(obj, torch.dtype):  # torch.float64 -> mg.float64 (a dtype minigrad lacks stays torch's, and must be refused)
        return getattr(mg, str(obj).replace("torch.", ""), obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_mg(o, device) for o in obj) if not hasattr(obj, "_fields") else tuple(_to_mg(o, device) for o in obj)
    return obj


def _flat(out: Any) -> list[Any]:
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _leaves(obj: Any) -> list[Any]:
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _leaves(o)]
    return [obj] if isinstance(obj, (torch.Tensor, mg.Tensor)) else []


def _host(t: Any) -> np.ndarray:
    """A minigrad tensor's values on the host, wherever it lives."""
    return t.detach().cpu().numpy()


def _dtype_name(t: Any) -> str:
    return str(t.dtype).replace("torch.", "").replace("minigrad.", "")


def _unsupported(name: str, sample: Any) -> str | None:
    for pattern, pred, why in UNSUPPORTED:
        if re.fullmatch(pattern, name) and pred(sample):
            return why
    return None


def run_sample(name: str, fn: Callable[..., Any], sample: Any, rng: np.random.Generator) -> tuple[str, str]:
    """One sample: ('agree' | 'unsupported' | 'random' | 'mismatch' | 'crash', detail)."""
    for pattern, pred, why in RANDOM_SAMPLES:
        if re.fullmatch(pattern, name) and pred(sample):
            return "random", why
    # Fresh leaves on both sides (the generators hand out views and reuse tensors between samples).
    t_args = [_fresh(a) for a in (sample.input, *sample.args)]
    t_kwargs = {k: _fresh(v) for k, v in sample.kwargs.items()}
    host = HOST_ARGUMENTS.get(name, ())
    m_args = [_to_mg(a, "cpu" if k in host else DEVICE) for k, a in enumerate(t_args)]
    if name in READS_STORAGE and sample.input._base is not None:  # the input a view of a fresh base on both sides
        t_args[0], m_args[0] = _fresh_view(sample.input), _mg_view(sample.input)
    m_kwargs = {k: _to_mg(v) for k, v in t_kwargs.items()}
    why = _unsupported(name, sample)
    try:
        m_out = fn(*m_args, **m_kwargs)
    except _CLEAR_ERRORS as exc:
        short = name.split(".")[-1]
        if why is not None and short in str(exc):
            return "unsupported", why
        return "crash", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - anything else is a crash by definition
        return "crash", f"{type(exc).__name__}: {exc}"
    if why is not None:
        return "mismatch", f"listed as unsupported ({why}) but minigrad accepted it"
    t_out = _CURRENT[name](*t_args, **t_kwargs)
    t_flat, m_flat = _flat(t_out), _flat(m_out)
    if len(t_flat) != len(m_flat):
        return "mismatch", f"{len(m_flat)} outputs vs PyTorch's {len(t_flat)}"
    m_leaves = _leaves(m_args) + _leaves(list(m_kwargs.values()))
    for t, m in zip(t_flat, m_flat):
        if not isinstance(m, mg.Tensor):
            return "mismatch", f"output is {type(m).__name__}, not a Tensor"
        if tuple(t.shape) != tuple(m.shape) or _dtype_name(t) != _dtype_name(m):
            return "mismatch", f"shape/dtype {tuple(m.shape)} {_dtype_name(m)} vs {tuple(t.shape)} {_dtype_name(t)}"
        if m.device.type != DEVICE_TYPE and m_leaves:
            return "mismatch", f"output on {m.device}, not on the inputs' {DEVICE}"
        if not np.allclose(_host(m), t.detach().numpy(), rtol=1e-7, atol=1e-10, equal_nan=True):
            return "mismatch", f"values differ: {_host(m).ravel()[:4]} vs {t.detach().numpy().ravel()[:4]}"
    # Gradients of sum(w * out) over the floating outputs.
    t_in = [t for t in _leaves(t_args) + _leaves(list(t_kwargs.values())) if t.requires_grad]
    m_in = [t for t in m_leaves if t.requires_grad]
    pairs = [(t, m) for t, m in zip(t_flat, m_flat) if t.dtype.is_floating_point and t.requires_grad]
    if not t_in or not pairs:
        return "agree", ""
    ws = [rng.normal(size=tuple(t.shape)) for t, _ in pairs]
    t_loss = sum((t * torch.tensor(w)).sum() for (t, _), w in zip(pairs, ws))
    try:
        t_grads = torch.autograd.grad(t_loss, t_in, allow_unused=True)
    except RuntimeError:  # PyTorch's own backward refuses a few broadcast forms (clamp with a larger bound): values only
        return "agree (values; PyTorch's backward raised)", ""
    try:
        m_loss = None
        for (_, m), w in zip(pairs, ws):
            term = (m * mg.tensor(w, device=m.device)).sum()
            m_loss = term if m_loss is None else m_loss + term
        m_loss.backward()
    except Exception as exc:  # noqa: BLE001
        return "crash", f"backward: {type(exc).__name__}: {exc}"
    for i, (tg, m) in enumerate(zip(t_grads, m_in)):
        want = np.zeros(tuple(m.shape)) if tg is None else tg.numpy(force=True)  # force: a ZeroTensor (sgn's)
        if m.grad is not None and m.grad.device != m.device:
            return "mismatch", f"the gradient of input {i} is on {m.grad.device}, its input on {m.device}"
        got = np.zeros(tuple(m.shape)) if m.grad is None else _host(m.grad)
        if name in NAN_INPUT_GRADIENT_VARIES and want.shape == got.shape:
            at_nan = np.isnan(_host(m))
            want, got = np.where(at_nan, 0.0, want), np.where(at_nan, 0.0, got)
        if want.shape != got.shape or not np.allclose(got, want, rtol=1e-7, atol=1e-10, equal_nan=True):
            return "mismatch", f"gradient of input {i} differs: {got.ravel()[:4]} vs {want.ravel()[:4]}"
    return "agree", ""


_OPINFOS = {(o.name, o.variant_test_name): o for o in op_db}


_CURRENT: dict[str, Any] = {}


def _samples(key: tuple[str, str]) -> list[Any]:
    info = _OPINFOS[key]
    torch.manual_seed(0)  # the generators draw random values: the same samples on every run
    for source in (info.reference_inputs, info.sample_inputs):
        try:
            gen = source(device="cpu", dtype=torch.float64, requires_grad=info.supports_autograd)
            return list(itertools.islice(gen, MAX_SAMPLES))
        except ValueError:  # a few generators build integer tensors with requires_grad (clamp's): use the plain samples
            continue
    return []


def run_op(key: tuple[str, str]) -> Counter:
    info = _OPINFOS[key]
    _CURRENT[key[0]] = info.op
    rng = np.random.default_rng(0)
    results: Counter = Counter()
    failures = []
    for i, sample in enumerate(_samples(key)):
        verdict, detail = run_sample(key[0], OPS[key], sample, rng)
        results[verdict] += 1
        if verdict in ("mismatch", "crash"):
            failures.append(f"  sample {i}: {verdict}: {detail}\n    {sample.summary() if hasattr(sample, 'summary') else sample}")
    results["_failures"] = failures  # type: ignore[assignment]
    return results


KEYS = sorted(k for k in OPS if k in _OPINFOS)


@pytest.mark.parametrize("key", KEYS, ids=[f"{n}-{v}" if v else n for n, v in KEYS])
def test_opinfo_reference_inputs(key):
    results = run_op(key)
    failures = results.pop("_failures")
    assert not failures, f"{key[0]} {key[1]}: {len(failures)} of {sum(results.values())} samples\n" + "\n".join(failures[:8])


if __name__ == "__main__":
    total: Counter = Counter()
    for key in KEYS:
        r = run_op(key)
        fails = r.pop("_failures")
        total.update(r)
        print(key, dict(r))
        for f in fails[:6]:
            print(f[:400])
    print("TOTAL", dict(total), "samples", sum(total.values()))
