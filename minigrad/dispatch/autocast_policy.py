"""PyTorch's autocast lists, per device type: what ``torch.autocast("cpu")`` and ``torch.autocast("cuda")`` do
to each operator's floating inputs.

PyTorch registers an autocast kernel for some operators under one dispatch key per device type
(``AutocastCPU``, ``AutocastCUDA``); an operator without one runs on its inputs as they are. Each kernel has
one policy:

- ``lower``: every eligible input is cast to the context's dtype (bfloat16 or float16) - matmuls and
  convolutions, which tensor cores run fast and safely;
- ``fp32``: every eligible input is cast to float32 - functions whose range or accuracy float16 loses
  (``exp``, ``log``, the losses, and on the CPU the linear algebra);
- ``fp32_set_opt_dtype``: reductions and softmaxes given ``dtype=float32`` when the caller gave none, so
  they accumulate and return float32 (CUDA only);
- ``promote``: every eligible input is cast to the widest dtype among them (``cat``, ``addcmul``...);
- ``banned``: refused (``binary_cross_entropy`` on CUDA, which float16 makes unsafe).

A tensor is eligible when it is floating point, not float64, and on the context's device type: a CPU
context casts no GPU tensor, and the reverse. The lists differ by device type: on the CPU ``softmax``,
``sum`` and ``exp`` are not autocast at all (a bfloat16 input gives a bfloat16 result), where CUDA runs
them in float32.

The tables are PyTorch 2.13's, by ATen name (``tests/test_autocast_lists.py`` checks them against the
kernels PyTorch's dispatcher has registered, and the CUDA policies against its header). ``aten_name_of``
says which ATen operator a minigrad op's call is; a minigrad function that PyTorch runs as one operator
but minigrad as several ops says it with ``dispatch.amp.autocast_as``.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["LOWER", "FP32", "FP32_SET_OPT_DTYPE", "PROMOTE", "BANNED", "POLICIES", "aten_name_of", "policy_of"]

LOWER, FP32, FP32_SET_OPT_DTYPE, PROMOTE, BANNED = "lower", "fp32", "fp32_set_opt_dtype", "promote", "banned"


def _table(**lists: str) -> dict[str, str]:
    return {name: policy for policy, names in lists.items() for name in names.split()}


_CUDA = _table(
    lower="_convolution conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d "
          "convolution prelu addmm addmv addr matmul einsum mm mv linalg_vecdot linear addbmm baddbmm bmm "
          "chain_matmul linalg_multi_dot _thnn_fused_lstm_cell _thnn_fused_gru_cell lstm_cell gru_cell "
          "rnn_tanh_cell rnn_relu_cell _scaled_dot_product_flash_attention scaled_dot_product_attention "
          "cudnn_convolution cudnn_convolution_transpose",
    fp32="acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow softplus layer_norm "
         "native_layer_norm rms_norm group_norm frobenius_norm nuclear_norm cosine_similarity poisson_nll_loss "
         "cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss kl_div l1_loss smooth_l1_loss huber_loss "
         "mse_loss margin_ranking_loss multilabel_margin_loss soft_margin_loss triplet_margin_loss "
         "multi_margin_loss binary_cross_entropy_with_logits dist pdist cdist renorm logsumexp upsample_nearest1d "
         "_upsample_nearest_exact1d upsample_nearest2d _upsample_nearest_exact2d upsample_nearest3d "
         "_upsample_nearest_exact3d upsample_linear1d upsample_bilinear2d _upsample_bilinear2d_aa "
         "upsample_trilinear3d upsample_bicubic2d _upsample_bicubic2d_aa "
         "norm",  # PyTorch's fp32_append_dtype: norm(x, p) becomes norm(x, p, dtype=float32)
    fp32_set_opt_dtype="prod softmax log_softmax cumprod cumsum linalg_vector_norm linalg_matrix_norm sum",
    promote="addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler index_put tensordot scatter_add",
    banned="binary_cross_entropy",
)

_CPU = _table(
    lower="conv1d conv2d conv3d bmm mm linalg_vecdot baddbmm addmm addbmm linear _convolution matmul conv_tbc "
          "mkldnn_rnn_layer conv_transpose1d conv_transpose2d conv_transpose3d prelu scaled_dot_product_attention "
          "_native_multi_head_attention _addmm_activation",
    fp32="avg_pool3d binary_cross_entropy grid_sampler polar prod quantile nanquantile stft cdist trace "
         "view_as_complex cholesky cholesky_inverse cholesky_solve inverse lu_solve orgqr ormqr pinverse max_pool3d "
         "max_unpool2d max_unpool3d adaptive_avg_pool3d reflection_pad1d reflection_pad2d replication_pad1d "
         "replication_pad2d replication_pad3d mse_loss cosine_embedding_loss nll_loss nll_loss2d "
         "hinge_embedding_loss poisson_nll_loss smooth_l1_loss cross_entropy_loss l1_loss huber_loss "
         "margin_ranking_loss soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss kl_div "
         "multilabel_margin_loss multilabel_margin_loss_forward binary_cross_entropy_with_logits fft_fft fft_ifft "
         "fft_fft2 fft_ifft2 fft_fftn fft_ifftn fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn fft_irfftn "
         "fft_hfft fft_ihfft linalg_cond linalg_matrix_rank linalg_solve linalg_cholesky linalg_svdvals "
         "linalg_eigvals linalg_eigvalsh linalg_inv linalg_householder_product linalg_tensorinv "
         "linalg_tensorsolve fake_quantize_per_tensor_affine geqrf _lu_with_info qr svd triangular_solve "
         "fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d linalg_qr linalg_cholesky_ex "
         "linalg_svd linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex grid_sampler_2d grid_sampler_3d "
         "_grid_sampler_2d_cpu_fallback",
    promote="stack cat index_copy",
)

#: device type (minigrad's: ``"cpu"``, ``"gpu"``) -> ATen name -> policy
POLICIES: dict[str, dict[str, str]] = {"cpu": _CPU, "gpu": _CUDA}


def _pad(kind: str) -> Callable[[dict[str, Any]], str]:
    return lambda attrs: f"{kind}_pad{len(attrs['pad']) // 2}d"


#: minigrad op -> its ATen name where the two differ (a function of the call's attributes where the op
#: stands for several of PyTorch's operators)
_ATEN: dict[str, str | Callable[[dict[str, Any]], str]] = {
    "prelu_kernel": "prelu", "cross_entropy": "cross_entropy_loss", "concat": "cat",
    "vector_norm": "linalg_vector_norm", "inv": "linalg_inv_ex", "solve": "linalg_solve",
    "grid_sampler_2d": "grid_sampler", "grid_sampler_3d": "grid_sampler",
    "upsample_nearest_exact1d": "_upsample_nearest_exact1d", "upsample_nearest_exact2d": "_upsample_nearest_exact2d",
    "upsample_nearest_exact3d": "_upsample_nearest_exact3d", "upsample_bilinear2d_aa": "_upsample_bilinear2d_aa",
    "upsample_bicubic2d_aa": "_upsample_bicubic2d_aa",
    "reflection_pad": _pad("reflection"), "replication_pad": _pad("replication"),
}

#: On CUDA, PyTorch's ``cross_entropy`` is no autocast operator: it runs ``log_softmax`` given float32 and
#: ``nll_loss`` in float32, which is what casting its input to float32 does.
_CUDA_EXTRA = {"cross_entropy_loss": FP32}


def aten_name_of(op_name: str, attrs: dict[str, Any]) -> str:
    """The ATen operator a call of minigrad's op ``op_name`` is, for autocast's lists."""
    name = _ATEN.get(op_name, op_name)
    return name if isinstance(name, str) else name(attrs)


def policy_of(aten: str, device: str) -> str | None:
    """The autocast policy of ATen operator ``aten`` on ``device`` (``"cpu"``/``"gpu"``); None: not autocast."""
    policy = POLICIES[device].get(aten)
    if policy is None and device == "gpu":
        return _CUDA_EXTRA.get(aten)
    return policy
