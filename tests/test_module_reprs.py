"""Every module class ``minigrad.nn`` exposes prints PyTorch's repr (its ``extra_repr``), built with arguments
that differ from the defaults, and a net of every layer type prints as PyTorch's does.

``torch`` is the oracle: each case builds the module in both frameworks from the same call.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import pytest

import minigrad as mg

pytestmark = pytest.mark.torch

def _ones(nn: Any, *shape: int) -> Any:
    """``ones(*shape)`` of the framework ``nn`` belongs to."""
    return (mg if nn is mg.nn else pytest.importorskip("torch")).ones(*shape)


#: Module classes built with their non-default arguments: name -> nn -> module. ``nn`` is ``torch.nn`` or
#: ``minigrad.nn``, so one call builds both.
CASES: dict[str, Callable[[Any], Any]] = {
    "Module": lambda nn: nn.Module(),
    "Linear": lambda nn: nn.Linear(3, 5, bias=False),
    "ReLU": lambda nn: nn.ReLU(inplace=True),
    "GELU": lambda nn: nn.GELU(approximate="tanh"),
    "Sigmoid": lambda nn: nn.Sigmoid(),
    "Tanh": lambda nn: nn.Tanh(),
    "Sequential": lambda nn: nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Dropout(0.2))),
    "Dropout": lambda nn: nn.Dropout(0.1, inplace=True),
    "Flatten": lambda nn: nn.Flatten(0, 2),
    "Conv2d": lambda nn: nn.Conv2d(2, 4, (3, 2), stride=2, padding=1, dilation=2, groups=2, bias=False),
    "MaxPool2d": lambda nn: nn.MaxPool2d(3, stride=2, padding=1, dilation=2, return_indices=True, ceil_mode=True),
    "CrossEntropyLoss": lambda nn: nn.CrossEntropyLoss(ignore_index=3, reduction="sum", label_smoothing=0.1),
    "MSELoss": lambda nn: nn.MSELoss(reduction="sum"),
    "BatchNorm1d": lambda nn: nn.BatchNorm1d(4, eps=1e-3, momentum=0.2, affine=False, track_running_stats=False),
    "BatchNorm2d": lambda nn: nn.BatchNorm2d(4, eps=1e-3, momentum=None),
    "Bilinear": lambda nn: nn.Bilinear(3, 4, 5, bias=False),
    "EmbeddingBag": lambda nn: nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, mode="sum",
                                               include_last_offset=True, padding_idx=-2),
    "Embedding": lambda nn: nn.Embedding(10, 3, padding_idx=-1, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True),
    "Identity": lambda nn: nn.Identity(3, unused=True),
    "LayerNorm": lambda nn: nn.LayerNorm([2, 3], eps=1e-6, elementwise_affine=True, bias=False),
    "LogSoftmax": lambda nn: nn.LogSoftmax(dim=1),
    "ModuleDict": lambda nn: nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.ModuleList([nn.ReLU(), nn.Tanh()])}),
    "ModuleList": lambda nn: nn.ModuleList([nn.Linear(2, 2), nn.ModuleDict({"act": nn.GELU()})]),
    "ParameterDict": lambda nn: nn.ParameterDict({"w": nn.Parameter(_ones(nn, 2, 3)), "b": nn.Parameter(_ones(nn, 4))}),
    "ParameterList": lambda nn: nn.ParameterList([nn.Parameter(_ones(nn, 2, 3)), nn.Parameter(_ones(nn, 5))]),
    "Softmax": lambda nn: nn.Softmax(dim=0),
    "RNN": lambda nn: nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bias=False, batch_first=True,
                             dropout=0.1, bidirectional=True),
    "LSTM": lambda nn: nn.LSTM(3, 4, num_layers=2, batch_first=True, proj_size=2),
    "GRU": lambda nn: nn.GRU(3, 4, bidirectional=True, bias=False),
    "RNNCell": lambda nn: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
    "LSTMCell": lambda nn: nn.LSTMCell(3, 4, bias=False),
    "GRUCell": lambda nn: nn.GRUCell(3, 4),
    "MultiheadAttention": lambda nn: nn.MultiheadAttention(8, 2, dropout=0.1, bias=False, kdim=4, vdim=6,
                                                           batch_first=True),
    "TransformerEncoderLayer": lambda nn: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.2,
                                                                     activation="gelu", layer_norm_eps=1e-6,
                                                                     batch_first=True, norm_first=True),
    "TransformerEncoder": lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 2, norm=nn.LayerNorm(8), enable_nested_tensor=False),
    "TransformerDecoderLayer": lambda nn: nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, bias=False),
    "TransformerDecoder": lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16), 2),
    "Transformer": lambda nn: nn.Transformer(8, 2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16),
    "SiLU": lambda nn: nn.SiLU(inplace=True),
    "LeakyReLU": lambda nn: nn.LeakyReLU(0.2, inplace=True),
    "ELU": lambda nn: nn.ELU(alpha=0.5, inplace=True),
    "SELU": lambda nn: nn.SELU(inplace=True),
    "CELU": lambda nn: nn.CELU(alpha=2.0, inplace=True),
    "ReLU6": lambda nn: nn.ReLU6(inplace=True),
    "Hardtanh": lambda nn: nn.Hardtanh(-2.0, 3.0, inplace=True),
    "Hardswish": lambda nn: nn.Hardswish(inplace=True),
    "Hardsigmoid": lambda nn: nn.Hardsigmoid(inplace=True),
    "Mish": lambda nn: nn.Mish(inplace=True),
    "Softsign": lambda nn: nn.Softsign(),
    "Softmin": lambda nn: nn.Softmin(dim=1),
    "Softplus": lambda nn: nn.Softplus(beta=2.0, threshold=10.0),
    "LogSigmoid": lambda nn: nn.LogSigmoid(),
    "Tanhshrink": lambda nn: nn.Tanhshrink(),
    "GLU": lambda nn: nn.GLU(dim=0),
    "PReLU": lambda nn: nn.PReLU(3, init=0.1),
    "Threshold": lambda nn: nn.Threshold(0.1, 20.0, inplace=True),
    "Hardshrink": lambda nn: nn.Hardshrink(0.3),
    "Softshrink": lambda nn: nn.Softshrink(0.3),
    "Softmax2d": lambda nn: nn.Softmax2d(),
    "L1Loss": lambda nn: nn.L1Loss(reduction="none"),
    "SmoothL1Loss": lambda nn: nn.SmoothL1Loss(reduction="sum", beta=0.5),
    "HuberLoss": lambda nn: nn.HuberLoss(reduction="sum", delta=0.5),
    "KLDivLoss": lambda nn: nn.KLDivLoss(reduction="batchmean", log_target=True),
    "BCELoss": lambda nn: nn.BCELoss(reduction="sum"),
    "BCEWithLogitsLoss": lambda nn: nn.BCEWithLogitsLoss(reduction="sum"),
    "NLLLoss": lambda nn: nn.NLLLoss(ignore_index=2, reduction="sum"),
    "MarginRankingLoss": lambda nn: nn.MarginRankingLoss(margin=0.5, reduction="sum"),
    "HingeEmbeddingLoss": lambda nn: nn.HingeEmbeddingLoss(margin=2.0),
    "SoftMarginLoss": lambda nn: nn.SoftMarginLoss(reduction="sum"),
    "MultiLabelSoftMarginLoss": lambda nn: nn.MultiLabelSoftMarginLoss(reduction="sum"),
    "MultiMarginLoss": lambda nn: nn.MultiMarginLoss(p=2, margin=0.5),
    "RMSNorm": lambda nn: nn.RMSNorm([2, 3], eps=1e-5),
    "CosineEmbeddingLoss": lambda nn: nn.CosineEmbeddingLoss(margin=0.5),
    "TripletMarginLoss": lambda nn: nn.TripletMarginLoss(margin=0.5, p=1.0, eps=1e-5, swap=True),
    "PoissonNLLLoss": lambda nn: nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-6),
    "GaussianNLLLoss": lambda nn: nn.GaussianNLLLoss(full=True, eps=1e-5, reduction="sum"),
    "AvgPool1d": lambda nn: nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    "AvgPool2d": lambda nn: nn.AvgPool2d((3, 2), stride=1, padding=1, ceil_mode=True, divisor_override=2),
    "AvgPool3d": lambda nn: nn.AvgPool3d((1, 3, 2), stride=1, padding=(0, 1, 1), ceil_mode=True, divisor_override=2),
    "AdaptiveAvgPool1d": lambda nn: nn.AdaptiveAvgPool1d(4),
    "AdaptiveAvgPool2d": lambda nn: nn.AdaptiveAvgPool2d((4, None)),
    "MaxPool1d": lambda nn: nn.MaxPool1d(3, stride=2, padding=1, dilation=2, return_indices=True, ceil_mode=True),
    "AdaptiveMaxPool1d": lambda nn: nn.AdaptiveMaxPool1d(4, return_indices=True),
    "AdaptiveMaxPool2d": lambda nn: nn.AdaptiveMaxPool2d((3, 4)),
    "AdaptiveMaxPool3d": lambda nn: nn.AdaptiveMaxPool3d((1, 3, 4), return_indices=True),
    "MaxUnpool1d": lambda nn: nn.MaxUnpool1d(3, stride=2, padding=1),
    "MaxUnpool2d": lambda nn: nn.MaxUnpool2d((2, 3)),
    "MaxUnpool3d": lambda nn: nn.MaxUnpool3d(2, 1),
    "LPPool1d": lambda nn: nn.LPPool1d(2, 3, stride=2),
    "LPPool2d": lambda nn: nn.LPPool2d(1.5, (2, 3), ceil_mode=True),
    "LPPool3d": lambda nn: nn.LPPool3d(3, 2),
    "MultiLabelMarginLoss": lambda nn: nn.MultiLabelMarginLoss(reduction="sum"),
    "RReLU": lambda nn: nn.RReLU(0.1, 0.3, inplace=True),
    "Upsample": lambda nn: nn.Upsample(scale_factor=2.0, mode="bilinear", align_corners=True),
    "UpsamplingNearest2d": lambda nn: nn.UpsamplingNearest2d(size=(4, 6)),
    "UpsamplingBilinear2d": lambda nn: nn.UpsamplingBilinear2d(scale_factor=3),
    "PixelShuffle": lambda nn: nn.PixelShuffle(2),
    "PixelUnshuffle": lambda nn: nn.PixelUnshuffle(3),
    "Unflatten": lambda nn: nn.Unflatten(1, (2, 5)),
    "Conv1d": lambda nn: nn.Conv1d(2, 4, 3, stride=2, padding="valid", dilation=2, groups=2, padding_mode="reflect"),
    "ConvTranspose1d": lambda nn: nn.ConvTranspose1d(2, 4, 3, stride=2, padding=1, output_padding=1, bias=False),
    "ConvTranspose2d": lambda nn: nn.ConvTranspose2d(2, 4, (3, 2), stride=(2, 1), padding=1, output_padding=(1, 0),
                                                     groups=2, dilation=1),
    "GroupNorm": lambda nn: nn.GroupNorm(2, 4, eps=1e-3, affine=False),
    "InstanceNorm1d": lambda nn: nn.InstanceNorm1d(4, eps=1e-3, momentum=0.2, affine=True, track_running_stats=True),
    "InstanceNorm2d": lambda nn: nn.InstanceNorm2d(4, affine=True),
    "InstanceNorm3d": lambda nn: nn.InstanceNorm3d(4, eps=1e-4),
    "LocalResponseNorm": lambda nn: nn.LocalResponseNorm(3, alpha=1e-3, beta=0.5, k=2.0),
    "CosineSimilarity": lambda nn: nn.CosineSimilarity(dim=0, eps=1e-6),
    "PairwiseDistance": lambda nn: nn.PairwiseDistance(p=1.0, eps=1e-5, keepdim=True),
    "ZeroPad1d": lambda nn: nn.ZeroPad1d((1, 2)),
    "ZeroPad2d": lambda nn: nn.ZeroPad2d(2),
    "ConstantPad1d": lambda nn: nn.ConstantPad1d(2, 3.5),
    "ConstantPad2d": lambda nn: nn.ConstantPad2d((1, 2, 3, 4), -1.0),
    "ReflectionPad1d": lambda nn: nn.ReflectionPad1d(2),
    "ReflectionPad2d": lambda nn: nn.ReflectionPad2d((1, 0, 2, 1)),
    "ReplicationPad1d": lambda nn: nn.ReplicationPad1d((3, 1)),
    "ReplicationPad2d": lambda nn: nn.ReplicationPad2d(1),
    "CircularPad1d": lambda nn: nn.CircularPad1d(1),
    "CircularPad2d": lambda nn: nn.CircularPad2d((1, 1, 2, 0)),
    "Unfold": lambda nn: nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2)),
    "Fold": lambda nn: nn.Fold((4, 5), 2, dilation=1, padding=(1, 0), stride=2),
    "Dropout1d": lambda nn: nn.Dropout1d(0.2, inplace=True),
    "Dropout2d": lambda nn: nn.Dropout2d(0.3),
    "Dropout3d": lambda nn: nn.Dropout3d(0.4, inplace=True),
    "AlphaDropout": lambda nn: nn.AlphaDropout(0.2),
    "FeatureAlphaDropout": lambda nn: nn.FeatureAlphaDropout(0.3, inplace=True),
    "BatchNorm3d": lambda nn: nn.BatchNorm3d(4),
    "ChannelShuffle": lambda nn: nn.ChannelShuffle(2),
    # the lazy layers before their first call (tests/test_nn_lazy.py: after it)
    "LazyLinear": lambda nn: nn.LazyLinear(4),
    "LazyConv1d": lambda nn: nn.LazyConv1d(4, 3, stride=2),
    "LazyConv2d": lambda nn: nn.LazyConv2d(4, 3, padding=1, bias=False),
    "LazyConvTranspose1d": lambda nn: nn.LazyConvTranspose1d(4, 3),
    "LazyConvTranspose2d": lambda nn: nn.LazyConvTranspose2d(4, 3, output_padding=1, stride=2),
    "LazyBatchNorm1d": lambda nn: nn.LazyBatchNorm1d(),
    "LazyBatchNorm2d": lambda nn: nn.LazyBatchNorm2d(eps=1e-3),
    "LazyBatchNorm3d": lambda nn: nn.LazyBatchNorm3d(affine=False),
    "LazyInstanceNorm1d": lambda nn: nn.LazyInstanceNorm1d(),
    "LazyInstanceNorm2d": lambda nn: nn.LazyInstanceNorm2d(track_running_stats=False),
    "LazyInstanceNorm3d": lambda nn: nn.LazyInstanceNorm3d(affine=False),
    # the 3-D convolutions, pools and paddings
    "Conv3d": lambda nn: nn.Conv3d(4, 6, (3, 1, 2), stride=2, padding=1, groups=2, bias=False, padding_mode="reflect"),
    "ConvTranspose3d": lambda nn: nn.ConvTranspose3d(4, 6, (1, 2, 3), stride=2, output_padding=1, dilation=2),
    "LazyConv3d": lambda nn: nn.LazyConv3d(4, 3, padding="same", dilation=2),
    "LazyConvTranspose3d": lambda nn: nn.LazyConvTranspose3d(4, 2, stride=2, groups=2),
    "MaxPool3d": lambda nn: nn.MaxPool3d((2, 3, 2), stride=1, padding=1, dilation=2, return_indices=True, ceil_mode=True),
    "AdaptiveAvgPool3d": lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)),
    "ConstantPad3d": lambda nn: nn.ConstantPad3d((1, 2, 3, 4, 5, 6), 1.5),
    "ZeroPad3d": lambda nn: nn.ZeroPad3d(2),
    "ReflectionPad3d": lambda nn: nn.ReflectionPad3d((1, 0, 2, 1, 0, 1)),
    "ReplicationPad3d": lambda nn: nn.ReplicationPad3d(1),
    "CircularPad3d": lambda nn: nn.CircularPad3d((0, 1, 1, 0, 2, 2)),
    # CTC, fractional pooling, the distance triplet loss, adaptive softmax and the legacy modules
    "CTCLoss": lambda nn: nn.CTCLoss(blank=2, reduction="sum", zero_infinity=True),
    "FractionalMaxPool2d": lambda nn: nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True),
    "FractionalMaxPool3d": lambda nn: nn.FractionalMaxPool3d(2, output_size=3),
    "TripletMarginWithDistanceLoss": lambda nn: nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True),
    "AdaptiveLogSoftmaxWithLoss": lambda nn: nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 12], head_bias=True),
    "CrossMapLRN2d": lambda nn: nn.CrossMapLRN2d(3, alpha=0.5, beta=0.5, k=2.0),
    "NLLLoss2d": lambda nn: nn.NLLLoss2d(ignore_index=1),
    "Container": lambda nn: nn.Container(a=nn.Linear(2, 3)),
    # the multi-device wrappers on one machine
    "SyncBatchNorm": lambda nn: nn.SyncBatchNorm(4, momentum=0.2, bias=False),
    "DataParallel": lambda nn: nn.DataParallel(nn.Sequential(nn.Linear(2, 3), nn.ReLU())),
    "LinearCrossEntropyLoss": lambda nn: nn.LinearCrossEntropyLoss(
        4, 10, out_features=(2, 3), bias=True, reduction="sum", ignore_index=3, label_smoothing=0.1,
        options=nn.LinearCrossEntropyOptions(batch_chunk_size=4, acc_policy="accurate", chunking_method=None)),
}

#: The same classes with only their required arguments (the defaults print too); a class not listed here is
#: built with no arguments.
REQUIRED: dict[str, Callable[[Any], Any]] = {
    "Linear": lambda nn: nn.Linear(3, 5),
    "Conv2d": lambda nn: nn.Conv2d(1, 6, 5),
    "Conv1d": lambda nn: nn.Conv1d(1, 6, 5),
    "ConvTranspose1d": lambda nn: nn.ConvTranspose1d(1, 6, 5),
    "ConvTranspose2d": lambda nn: nn.ConvTranspose2d(1, 6, 5),
    "MaxPool2d": lambda nn: nn.MaxPool2d(2),
    "MaxPool1d": lambda nn: nn.MaxPool1d(2),
    "AvgPool1d": lambda nn: nn.AvgPool1d(2),
    "AvgPool2d": lambda nn: nn.AvgPool2d(2),
    "AvgPool3d": lambda nn: nn.AvgPool3d(2),
    "AdaptiveAvgPool1d": lambda nn: nn.AdaptiveAvgPool1d(2),
    "AdaptiveAvgPool2d": lambda nn: nn.AdaptiveAvgPool2d(2),
    "AdaptiveMaxPool1d": lambda nn: nn.AdaptiveMaxPool1d(2),
    "AdaptiveMaxPool2d": lambda nn: nn.AdaptiveMaxPool2d(2),
    "AdaptiveMaxPool3d": lambda nn: nn.AdaptiveMaxPool3d(2),
    "MaxUnpool1d": lambda nn: nn.MaxUnpool1d(2),
    "MaxUnpool2d": lambda nn: nn.MaxUnpool2d(2),
    "MaxUnpool3d": lambda nn: nn.MaxUnpool3d(2),
    "LPPool1d": lambda nn: nn.LPPool1d(2, 3),
    "LPPool2d": lambda nn: nn.LPPool2d(2, 3),
    "LPPool3d": lambda nn: nn.LPPool3d(2, 3),
    "BatchNorm1d": lambda nn: nn.BatchNorm1d(4),
    "BatchNorm2d": lambda nn: nn.BatchNorm2d(4),
    "InstanceNorm1d": lambda nn: nn.InstanceNorm1d(4),
    "InstanceNorm2d": lambda nn: nn.InstanceNorm2d(4),
    "InstanceNorm3d": lambda nn: nn.InstanceNorm3d(4),
    "GroupNorm": lambda nn: nn.GroupNorm(2, 4),
    "LocalResponseNorm": lambda nn: nn.LocalResponseNorm(2),
    "LayerNorm": lambda nn: nn.LayerNorm(4),
    "RMSNorm": lambda nn: nn.RMSNorm(4),
    "Embedding": lambda nn: nn.Embedding(10, 3),
    "Bilinear": lambda nn: nn.Bilinear(3, 4, 5),
    "EmbeddingBag": lambda nn: nn.EmbeddingBag(10, 3),
    "RNN": lambda nn: nn.RNN(3, 4),
    "LSTM": lambda nn: nn.LSTM(3, 4),
    "GRU": lambda nn: nn.GRU(3, 4),
    "RNNCell": lambda nn: nn.RNNCell(3, 4),
    "LSTMCell": lambda nn: nn.LSTMCell(3, 4),
    "GRUCell": lambda nn: nn.GRUCell(3, 4),
    "MultiheadAttention": lambda nn: nn.MultiheadAttention(8, 2),
    "TransformerEncoderLayer": lambda nn: nn.TransformerEncoderLayer(8, 2),
    "TransformerDecoderLayer": lambda nn: nn.TransformerDecoderLayer(8, 2),
    "TransformerEncoder": lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2), 3,
                                                           enable_nested_tensor=False),
    "TransformerDecoder": lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2), 3),
    "Transformer": lambda nn: nn.Transformer(8, 2, num_encoder_layers=2, num_decoder_layers=2),
    "Threshold": lambda nn: nn.Threshold(0.1, 20.0),
    "Upsample": lambda nn: nn.Upsample(size=4),
    "UpsamplingNearest2d": lambda nn: nn.UpsamplingNearest2d(scale_factor=2),
    "UpsamplingBilinear2d": lambda nn: nn.UpsamplingBilinear2d(size=(2, 3)),
    "PixelShuffle": lambda nn: nn.PixelShuffle(2),
    "PixelUnshuffle": lambda nn: nn.PixelUnshuffle(2),
    "Unflatten": lambda nn: nn.Unflatten(1, (2, 5)),
    "ZeroPad1d": lambda nn: nn.ZeroPad1d(1),
    "ZeroPad2d": lambda nn: nn.ZeroPad2d(1),
    "ConstantPad1d": lambda nn: nn.ConstantPad1d(1, 0.0),
    "ConstantPad2d": lambda nn: nn.ConstantPad2d(1, 0.0),
    "ReflectionPad1d": lambda nn: nn.ReflectionPad1d(1),
    "ReflectionPad2d": lambda nn: nn.ReflectionPad2d(1),
    "ReplicationPad1d": lambda nn: nn.ReplicationPad1d(1),
    "ReplicationPad2d": lambda nn: nn.ReplicationPad2d(1),
    "CircularPad1d": lambda nn: nn.CircularPad1d(1),
    "CircularPad2d": lambda nn: nn.CircularPad2d(1),
    "Unfold": lambda nn: nn.Unfold(2),
    "Fold": lambda nn: nn.Fold(4, 2),
    "BatchNorm3d": lambda nn: nn.BatchNorm3d(4),
    "LazyLinear": lambda nn: nn.LazyLinear(4),
    "LazyConv1d": lambda nn: nn.LazyConv1d(4, 3),
    "LazyConv2d": lambda nn: nn.LazyConv2d(4, 3),
    "LazyConvTranspose1d": lambda nn: nn.LazyConvTranspose1d(4, 3),
    "LazyConvTranspose2d": lambda nn: nn.LazyConvTranspose2d(4, 3),
    "ChannelShuffle": lambda nn: nn.ChannelShuffle(2),
    "Conv3d": lambda nn: nn.Conv3d(1, 6, 5),
    "ConvTranspose3d": lambda nn: nn.ConvTranspose3d(1, 6, 5),
    "LazyConv3d": lambda nn: nn.LazyConv3d(4, 3),
    "LazyConvTranspose3d": lambda nn: nn.LazyConvTranspose3d(4, 3),
    "MaxPool3d": lambda nn: nn.MaxPool3d(2),
    "AdaptiveAvgPool3d": lambda nn: nn.AdaptiveAvgPool3d(2),
    "ConstantPad3d": lambda nn: nn.ConstantPad3d(1, 0.5),
    "ZeroPad3d": lambda nn: nn.ZeroPad3d(1),
    "ReflectionPad3d": lambda nn: nn.ReflectionPad3d(1),
    "ReplicationPad3d": lambda nn: nn.ReplicationPad3d(1),
    "CircularPad3d": lambda nn: nn.CircularPad3d(1),
    "FractionalMaxPool2d": lambda nn: nn.FractionalMaxPool2d(2, output_size=3),
    "FractionalMaxPool3d": lambda nn: nn.FractionalMaxPool3d(2, output_ratio=0.5),
    "AdaptiveLogSoftmaxWithLoss": lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4]),
    "CrossMapLRN2d": lambda nn: nn.CrossMapLRN2d(3),
    "SyncBatchNorm": lambda nn: nn.SyncBatchNorm(3),
    "DataParallel": lambda nn: nn.DataParallel(nn.Identity()),
    "LinearCrossEntropyLoss": lambda nn: nn.LinearCrossEntropyLoss(4, 10),
}

#: Classes minigrad.nn exposes that are not built here, each with its reason.
NOT_BUILT = {
    "RNNBase": "an abstract base (PyTorch's own is built only through RNN/LSTM/GRU); their cases cover its repr",
    "RNNCellBase": "an abstract base; RNNCell/LSTMCell/GRUCell cover its repr",
}


def _module_classes() -> list[str]:
    return sorted(n for n in mg.nn.__all__
                  if inspect.isclass(getattr(mg.nn, n)) and issubclass(getattr(mg.nn, n), mg.nn.Module))


def test_every_module_class_has_a_case() -> None:
    missing = [n for n in _module_classes() if n not in CASES and n not in NOT_BUILT]
    assert not missing, f"add a repr case (or a NOT_BUILT reason) for: {missing}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_repr_equals_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch")
    assert _read_as_torch(repr(CASES[name](mg.nn))) == repr(CASES[name](torch.nn))


def _read_as_torch(text: str) -> str:
    """minigrad's printed names read as PyTorch's (``minigrad.float32`` -> ``torch.float32``)."""
    return text.replace("minigrad", "torch")


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_repr_equals_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch")
    build = REQUIRED.get(name, lambda nn: getattr(nn, name)())
    assert _read_as_torch(repr(build(mg.nn))) == repr(build(torch.nn))
