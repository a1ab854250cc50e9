"""Losses, convolutions and max_pool2d refuse bad input in PyTorch's class, words and order (``ops/loss.py``,
``ops/convolution.py``, ``ops/convolution3d.py``, ``ops/pooling.py``): for each case minigrad's exception is an
instance of PyTorch's class and its message contains PyTorch's. A refused call leaves no node."""

from __future__ import annotations


import pytest

import minigrad as mg
from _refusals import assert_refused_alike

torch = pytest.importorskip("torch")

# fmt: off
def _first(L):
    F = L.nn.functional
    o = L.ones; z = L.zeros
    d = dict(dtype=L.float64); i64 = dict(dtype=L.int64)
    t = L.tensor
    return {
     # cross_entropy
     "ce_batch": lambda: F.cross_entropy(o(2,3), o(3)),
     "ce_batch_int": lambda: F.cross_entropy(o(2,3), z(3, **i64)),
     "ce_target_float_shape": lambda: F.cross_entropy(o(2,3), o(2,4)),
     "ce_oob": lambda: F.cross_entropy(o(2,3), t([0,5])),
     "ce_neg": lambda: F.cross_entropy(o(2,3), t([0,-2])),
     "ce_0d": lambda: F.cross_entropy(t(1.), t(0)),
     "ce_weight_size": lambda: F.cross_entropy(o(2,3), t([0,1]), weight=o(4)),
     "ce_reduction": lambda: F.cross_entropy(o(2,3), t([0,1]), reduction="avg"),
     "ce_ls": lambda: F.cross_entropy(o(2,3), t([0,1]), label_smoothing=1.5),
     "ce_target_int_input": lambda: F.cross_entropy(o(2,3,**i64), t([0,1])),
     "ce_prob_ignore": lambda: F.cross_entropy(o(2,3), o(2,3), ignore_index=1),
     "ce_3d_target": lambda: F.cross_entropy(o(2,3,4), z(2,5, **i64)),
     "ce_1d_input_target": lambda: F.cross_entropy(o(3), z(2, **i64)),
     "ce_dtype_mismatch_prob": lambda: F.cross_entropy(o(2,3), o(2,3,**d)),
     "ce_weight_dtype": lambda: F.cross_entropy(o(2,3), t([0,1]), weight=o(3,**d)),
     # nll
     "nll_float_target": lambda: F.nll_loss(o(2,3), o(2)),
     "nll_multi": lambda: F.nll_loss(o(2,3), z(2,2, **i64)),
     "nll_batch": lambda: F.nll_loss(o(2,3), z(3, **i64)),
     "nll_oob": lambda: F.nll_loss(o(2,3), t([0,3])),
     "nll_weight": lambda: F.nll_loss(o(2,3), t([0,1]), weight=o(2)),
     "nll_0d": lambda: F.nll_loss(t(1.), t(0)),
     "nll_4d_target": lambda: F.nll_loss(o(2,3,4,4), z(2,4, **i64)),
     "nll_2d_target_bad": lambda: F.nll_loss(o(2,3,4,4), z(2,4,5, **i64)),
     "nll_3d_bad": lambda: F.nll_loss(o(2,3,4), z(2,5, **i64)),
     "nll_int_input": lambda: F.nll_loss(o(2,3,**i64), t([0,1])),
     "nll_weight_dtype": lambda: F.nll_loss(o(2,3), t([0,1]), weight=o(3,**d)),
     "nll_reduction": lambda: F.nll_loss(o(2,3), t([0,1]), reduction="bad"),
     "nll_int32_target": lambda: F.nll_loss(o(2,3), t([0,1], dtype=L.int32)),
     # mse etc
     "mse_shape": lambda: F.mse_loss(o(2,3), o(3,2)),
     "mse_reduction": lambda: F.mse_loss(o(2), o(2), reduction="x"),
     "mse_int": lambda: F.mse_loss(o(2,**i64), o(2,**i64)),
     "mse_dtype": lambda: F.mse_loss(o(2), o(2,**d)),
     "l1_shape": lambda: F.l1_loss(o(2,3), o(4)),
     "l1_dtype": lambda: F.l1_loss(o(2), o(2,**d)),
     "sl1_shape": lambda: F.smooth_l1_loss(o(2,3), o(4)),
     "sl1_beta": lambda: F.smooth_l1_loss(o(2), o(2), beta=-1.),
     "huber_shape": lambda: F.huber_loss(o(2,3), o(4)),
     "huber_delta": lambda: F.huber_loss(o(2), o(2), delta=0.),
     "huber_dtype": lambda: F.huber_loss(o(2), o(2,**d)),
     # bce
     "bce_size": lambda: F.binary_cross_entropy(o(2)*0.5, o(3)),
     "bce_range": lambda: F.binary_cross_entropy(o(2)*2, o(2)),
     "bce_dtype": lambda: F.binary_cross_entropy(o(2)*0.5, o(2,**d)),
     "bce_weight": lambda: F.binary_cross_entropy(o(2)*0.5, o(2), weight=o(3)),
     "bce_int": lambda: F.binary_cross_entropy(o(2,**i64), o(2,**i64)),
     "bcel_size": lambda: F.binary_cross_entropy_with_logits(o(2), o(3)),
     "bcel_weight": lambda: F.binary_cross_entropy_with_logits(o(2), o(2), weight=o(3)),
     "bcel_pos": lambda: F.binary_cross_entropy_with_logits(o(2,2), o(2,2), pos_weight=o(3)),
     "bcel_dtype": lambda: F.binary_cross_entropy_with_logits(o(2), o(2,**d)),
     # kl
     "kl_shape": lambda: F.kl_div(o(2,3), o(3,2)),
     "kl_int": lambda: F.kl_div(o(2,**i64), o(2,**i64)),
     "kl_red": lambda: F.kl_div(o(2), o(2), reduction="x"),
     # margin ranking etc
     "mrl_shape": lambda: F.margin_ranking_loss(o(2), o(3), o(2)),
     "mrl_tshape": lambda: F.margin_ranking_loss(o(2), o(2), o(3)),
     "mrl_0d": lambda: F.margin_ranking_loss(t(1.), o(2), o(2)),
     "hinge_shape": lambda: F.hinge_embedding_loss(o(2), o(3)),
     "cos_shape": lambda: F.cosine_embedding_loss(o(2,3), o(2,4), o(2)),
     "cos_target": lambda: F.cosine_embedding_loss(o(2,3), o(2,3), o(3)),
     "cos_3d": lambda: F.cosine_embedding_loss(o(2,3,4), o(2,3,4), o(2)),
     "cos_t2d": lambda: F.cosine_embedding_loss(o(2,3), o(2,3), o(2,1)),
     "triplet_dims": lambda: F.triplet_margin_loss(o(2,3), o(2,3), o(3)),
     "triplet_shape": lambda: F.triplet_margin_loss(o(2,3), o(2,3), o(2,4)),
     "mm_p": lambda: F.multi_margin_loss(o(2,3), t([0,1]), p=3),
     "mm_target": lambda: F.multi_margin_loss(o(2,3), t([0,1,1])),
     "mm_weight": lambda: F.multi_margin_loss(o(2,3), t([0,1]), weight=o(4)),
     "mm_3d": lambda: F.multi_margin_loss(o(2,3,4), t([0,1])),
     "mm_oob": lambda: F.multi_margin_loss(o(2,3), t([0,3])),
     "mm_weight2d": lambda: F.multi_margin_loss(o(2,3), t([0,1]), weight=o(1,3)),
     "mlm_shape": lambda: F.multilabel_margin_loss(o(2,3), z(2,4, **i64)),
     "mlm_float": lambda: F.multilabel_margin_loss(o(2,3), z(2,3)),
     "mlm_3d": lambda: F.multilabel_margin_loss(o(2,3,4), z(2,3,4, **i64)),
     "soft_shape": lambda: F.soft_margin_loss(o(2), o(3)),
     "mlsm_shape": lambda: F.multilabel_soft_margin_loss(o(2,3), o(2,4)),
     "pnll_shape": lambda: F.poisson_nll_loss(o(2), o(3)),
     "gnll_var_neg": lambda: F.gaussian_nll_loss(o(2,3), o(2,3), -o(2,3)),
     "gnll_var_size": lambda: F.gaussian_nll_loss(o(2,3), o(2,3), o(2,2)),
     "gnll_red": lambda: F.gaussian_nll_loss(o(2,3), o(2,3), o(2,3), reduction="x"),
     "gnll_tshape": lambda: F.gaussian_nll_loss(o(2,3), o(2,4), o(2,3)),
     # ctc
     "ctc_int": lambda: F.ctc_loss(o(5,2,4).log_softmax(2), z(2,3, **i64), t([5,5]), t([3,3]), blank=5),
     "ctc_len": lambda: F.ctc_loss(o(5,2,4).log_softmax(2), o(2,3, **i64), t([6,5]), t([3,3])),
     "ctc_tlen": lambda: F.ctc_loss(o(5,2,4).log_softmax(2), o(2,3, **i64), t([5,5]), t([4,3])),
     "ctc_batch": lambda: F.ctc_loss(o(5,2,4).log_softmax(2), o(2,3, **i64), t([5,5,5]), t([3,3])),
     "ctc_2d": lambda: F.ctc_loss(o(5,4).log_softmax(1), o(3, **i64), t([5]), t([3])),
     # conv
     "conv2d_kernel": lambda: F.conv2d(o(1,3,2,2), o(4,3,3,3)),
     "conv2d_dtype": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3, **d)),
     "conv2d_chan": lambda: F.conv2d(o(1,2,5,5), o(4,3,3,3)),
     "conv2d_wdim": lambda: F.conv2d(o(1,3,5,5), o(4,3,3)),
     "conv2d_idim": lambda: F.conv2d(o(3,5), o(4,3,3,3)),
     "conv2d_bias": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3), bias=o(3)),
     "conv2d_stride0": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3), stride=0),
     "conv2d_padneg": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3), padding=-1),
     "conv2d_dil0": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3), dilation=0),
     "conv2d_groups": lambda: F.conv2d(o(1,4,5,5), o(4,2,3,3), groups=3),
     "conv2d_groups_out": lambda: F.conv2d(o(1,4,5,5), o(3,2,3,3), groups=2),
     "conv2d_stride_len": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3), stride=(1,1,1)),
     "conv2d_padstr": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3), padding="bad"),
     "conv2d_same_stride": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3), padding="same", stride=2),
     "conv2d_int": lambda: F.conv2d(o(1,3,5,5, **i64), o(4,3,3,3, **i64)),
     "conv2d_bias_dtype": lambda: F.conv2d(o(1,3,5,5), o(4,3,3,3), bias=o(4,**d)),
     "conv1d_kernel": lambda: F.conv1d(o(1,3,2), o(4,3,3)),
     "conv1d_chan": lambda: F.conv1d(o(1,2,5), o(4,3,3)),
     "conv1d_wdim": lambda: F.conv1d(o(1,3,5), o(4,3)),
     "conv3d_kernel": lambda: F.conv3d(o(1,1,2,2,2), o(1,1,3,3,3)),
     "conv3d_chan": lambda: F.conv3d(o(1,2,4,4,4), o(1,1,3,3,3)),
     "conv3d_dtype": lambda: F.conv3d(o(1,1,4,4,4), o(1,1,3,3,3, **d)),
     "convt2d_chan": lambda: F.conv_transpose2d(o(1,2,3,3), o(3,4,2,2)),
     "convt2d_outpad": lambda: F.conv_transpose2d(o(1,3,3,3), o(3,4,2,2), output_padding=2),
     "convt2d_dtype": lambda: F.conv_transpose2d(o(1,3,3,3), o(3,4,2,2, **d)),
     "convt1d_chan": lambda: F.conv_transpose1d(o(1,2,3), o(3,4,2)),
     "convt3d_chan": lambda: F.conv_transpose3d(o(1,2,3,3,3), o(3,4,2,2,2)),
     "convt2d_wdim": lambda: F.conv_transpose2d(o(1,3,3,3), o(3,4,2)),
     # pooling
     "mp2d_pad": lambda: F.max_pool2d(o(1,1,4,4), 2, padding=2),
     "mp2d_small": lambda: F.max_pool2d(o(1,1,1,1), 3),
     "mp2d_dim": lambda: F.max_pool2d(o(4), 2),
     "mp2d_stride0": lambda: F.max_pool2d(o(1,1,4,4), 2, stride=0),
     "mp2d_k0": lambda: F.max_pool2d(o(1,1,4,4), 0),
     "mp2d_dil0": lambda: F.max_pool2d(o(1,1,4,4), 2, dilation=0),
     "mp2d_klen": lambda: F.max_pool2d(o(1,1,4,4), (2,2,2)),
     "mp1d_pad": lambda: F.max_pool1d(o(1,1,4), 2, padding=2),
     "mp1d_small": lambda: F.max_pool1d(o(1,1,1), 3),
     "mp1d_dim": lambda: F.max_pool1d(o(1,1,1,4), 2),
     "mp3d_pad": lambda: F.max_pool3d(o(1,1,4,4,4), 2, padding=2),
     "mp3d_small": lambda: F.max_pool3d(o(1,1,1,1,1), 3),
     "mp3d_dim": lambda: F.max_pool3d(o(4,4), 2),
     "ap2d_pad": lambda: F.avg_pool2d(o(1,1,4,4), 2, padding=2),
     "ap2d_small": lambda: F.avg_pool2d(o(1,1,1,1), 3),
     "ap2d_dim": lambda: F.avg_pool2d(o(4), 2),
     "ap2d_stride0": lambda: F.avg_pool2d(o(1,1,4,4), 2, stride=0),
     "ap2d_div0": lambda: F.avg_pool2d(o(1,1,4,4), 2, divisor_override=0),
     "ap1d_pad": lambda: F.avg_pool1d(o(1,1,4), 2, padding=2),
     "ap1d_small": lambda: F.avg_pool1d(o(1,1,1), 3),
     "ap3d_pad": lambda: F.avg_pool3d(o(1,1,4,4,4), 2, padding=2),
     "ap3d_small": lambda: F.avg_pool3d(o(1,1,1,1,1), 3),
     "ap2d_int": lambda: F.avg_pool2d(o(1,1,4,4,**i64), 2),
     "mp2d_int_ok": lambda: F.max_pool2d(o(1,1,4,4,**i64), 2),
     "aap2d_dim": lambda: F.adaptive_avg_pool2d(o(4), 2),
     "aap2d_neg": lambda: F.adaptive_avg_pool2d(o(1,1,4,4), -1),
     "aap2d_len": lambda: F.adaptive_avg_pool2d(o(1,1,4,4), (2,2,2)),
     "aap2d_empty": lambda: F.adaptive_avg_pool2d(o(1,0,4,4), 2),
     "amp2d_dim": lambda: F.adaptive_max_pool2d(o(4), 2),
     "amp2d_empty": lambda: F.adaptive_max_pool2d(o(1,1,0,4), 2),
     "aap1d_dim": lambda: F.adaptive_avg_pool1d(o(1,1,1,4), 2),
     "amp1d_dim": lambda: F.adaptive_max_pool1d(o(4), 2),
     "aap3d_dim": lambda: F.adaptive_avg_pool3d(o(4,4), 2),
     "amp3d_dim": lambda: F.adaptive_max_pool3d(o(4,4), 2),
     "lp2d_dim": lambda: F.lp_pool2d(o(4), 2, 2),
     "lp1d_dim": lambda: F.lp_pool1d(o(4), 2, 2),
     "lp2d_small": lambda: F.lp_pool2d(o(1,1,1,1), 2, 3),
     "fmp2d_ratio": lambda: F.fractional_max_pool2d(o(1,1,8,8), 2, output_ratio=1.5),
     "fmp2d_both": lambda: F.fractional_max_pool2d(o(1,1,8,8), 2),
     "fmp2d_big": lambda: F.fractional_max_pool2d(o(1,1,8,8), 2, output_size=8),
     "fmp2d_dim": lambda: F.fractional_max_pool2d(o(8,8), 2, output_size=4),
     "fmp3d_big": lambda: F.fractional_max_pool3d(o(1,1,8,8,8), 2, output_size=8),
     "fmp3d_dim": lambda: F.fractional_max_pool3d(o(8,8), 2, output_size=4),
     "unpool2d_size": lambda: F.max_unpool2d(o(1,1,2,2), z(1,1,2,2,**i64), 2, output_size=(9,9)),
     "unpool2d_idx": lambda: F.max_unpool2d(o(1,1,2,2), z(1,1,2,2,**i64)+100, 2),
     "unpool2d_float_idx": lambda: F.max_unpool2d(o(1,1,2,2), z(1,1,2,2), 2),
     "unpool2d_shape": lambda: F.max_unpool2d(o(1,1,2,2), z(1,1,2,3,**i64), 2),
     "unpool1d_idx": lambda: F.max_unpool1d(o(1,1,2), z(1,1,2,**i64)+100, 2),
     "unpool3d_idx": lambda: F.max_unpool3d(o(1,1,2,2,2), z(1,1,2,2,2,**i64)+100, 2),
     # pad
     "pad_odd": lambda: F.pad(o(2,3), (1,)),
     "pad_long": lambda: F.pad(o(2,3), (1,1,1,1,1,1)),
     "pad_mode": lambda: F.pad(o(2,3), (1,1), mode="bogus"),
     "pad_reflect_big": lambda: F.pad(o(1,2,3), (3,3), mode="reflect"),
     "pad_reflect_dim": lambda: F.pad(o(3), (1,1), mode="reflect"),
     "pad_reflect_len": lambda: F.pad(o(1,2,3), (1,1,1,1,1,1), mode="reflect"),
     "pad_replicate_dim": lambda: F.pad(o(3), (1,1), mode="replicate"),
     "pad_circular_big": lambda: F.pad(o(1,2,3), (4,4), mode="circular"),
     "pad_circular_dim": lambda: F.pad(o(3), (1,1), mode="circular"),
     "pad_neg": lambda: F.pad(o(2,3), (-2,-2)),
     "pad_value_reflect": lambda: F.pad(o(1,2,3), (1,1), mode="reflect", value=1.),
     "pad_float": lambda: F.pad(o(2,3), (1.5,1)),
     "pad_replicate_empty": lambda: F.pad(o(1,0,3), (1,1,1,1), mode="replicate"),
    }



def _second(L):
    F = L.nn.functional
    o = L.ones; z = L.zeros; t = L.tensor
    d = L.float64; Lg = L.int64
    h = o(2)*.5
    c = {}
    for nm, G in (("nll", F.nll_loss), ("ce", F.cross_entropy)):
        c.update({
        f"{nm}2_0d_0d": lambda G=G: G(t(1.), t(0)),
        f"{nm}2_0d_0df": lambda G=G: G(t(1.), t(0.)),
        f"{nm}2_0d_1d": lambda G=G: G(t(1.), t([0])),
        f"{nm}2_1d_2": lambda G=G: G(o(3), t([0,1])),
        f"{nm}2_1d_11": lambda G=G: G(o(3), z(1,1,dtype=Lg)),
        f"{nm}2_1d_f0d": lambda G=G: G(o(3), t(0.)),
        f"{nm}2_1d_2f": lambda G=G: G(o(3), o(2)),
        f"{nm}2_2d_0d": lambda G=G: G(o(2,3), t(0)),
        f"{nm}2_int32": lambda G=G: G(o(2,3), t([0,1],dtype=L.int32)),
        f"{nm}2_bool": lambda G=G: G(o(2,3), t([True,False])),
        f"{nm}2_2d2df": lambda G=G: G(o(2,3), z(2,2)),
        f"{nm}2_wsize_f": lambda G=G: G(o(2,3), o(2), weight=o(4)),
        f"{nm}2_w2d": lambda G=G: G(o(2,3), t([0,1]), weight=o(1,3)),
        f"{nm}2_w0d": lambda G=G: G(o(2,3), t([0,1]), weight=t(1.)),
        f"{nm}2_wdt_oob": lambda G=G: G(o(2,3), t([0,5]), weight=o(3,dtype=d)),
        f"{nm}2_wbad_oob": lambda G=G: G(o(2,3), t([0,5]), weight=o(4)),
        f"{nm}2_wbad_wdt": lambda G=G: G(o(2,3), t([0,1]), weight=o(4,dtype=d)),
        f"{nm}2_neg": lambda G=G: G(o(2,3), t([0,-1])),
        f"{nm}2_int_in_ftgt": lambda G=G: G(o(2,3,dtype=Lg), o(2)),
        f"{nm}2_int_in_batch": lambda G=G: G(o(2,3,dtype=Lg), t([0,1,1])),
        f"{nm}2_int_in_w": lambda G=G: G(o(2,3,dtype=Lg), t([0,1]), weight=o(3)),
        f"{nm}2_bool_in": lambda G=G: G(o(2,3,dtype=L.bool), t([0,1])),
        f"{nm}2_3d_fbad": lambda G=G: G(o(2,3,4), z(2,5)),
        f"{nm}2_3d_fok": lambda G=G: G(o(2,3,4), z(2,4)),
        f"{nm}2_3d_1d": lambda G=G: G(o(2,3,4), z(2,dtype=Lg)),
        f"{nm}2_3d_w": lambda G=G: G(o(2,3,4), z(2,4,dtype=Lg), weight=o(4)),
        f"{nm}2_3d_oob": lambda G=G: G(o(2,3,4), z(2,4,dtype=Lg)+3),
        f"{nm}2_3d_int": lambda G=G: G(o(2,3,4,dtype=Lg), z(2,4,dtype=Lg)),
        f"{nm}2_3d_0d": lambda G=G: G(o(2,3,4), t(0)),
        f"{nm}2_4d_f": lambda G=G: G(o(2,3,4,4), z(2,4,4)),
        f"{nm}2_4d_w": lambda G=G: G(o(2,3,4,4), z(2,4,4,dtype=Lg), weight=o(4)),
        f"{nm}2_4d_oob": lambda G=G: G(o(2,3,4,4), z(2,4,4,dtype=Lg)+3),
        f"{nm}2_4d_fsize": lambda G=G: G(o(2,3,4,4), z(2,4,5)),
        f"{nm}2_4d_2df": lambda G=G: G(o(2,3,4,4), z(2,4)),
        f"{nm}2_4d_wdt_oob": lambda G=G: G(o(2,3,4,4), z(2,4,4,dtype=Lg)+5, weight=o(3,dtype=d)),
        f"{nm}2_4d_wbad_size": lambda G=G: G(o(2,3,4,4), z(2,4,5,dtype=Lg), weight=o(4)),
        f"{nm}2_4d_int": lambda G=G: G(o(2,3,4,4,dtype=Lg), z(2,4,4,dtype=Lg)),
        f"{nm}2_5d_bad": lambda G=G: G(o(2,3,4,4,4), z(2,4,4,5,dtype=Lg)),
        f"{nm}2_5d_f": lambda G=G: G(o(2,3,4,4,4), z(2,4,4,4)),
        f"{nm}2_c0": lambda G=G: G(o(2,0), z(2,dtype=Lg)),
        f"{nm}2_3d_c0": lambda G=G: G(o(2,0,3), z(2,3,dtype=Lg)),
        f"{nm}2_ignore_ok": lambda G=G: G(o(2,3), t([0,-100])),
        f"{nm}2_1d_w_dt": lambda G=G: G(o(3), t(0), weight=o(3,dtype=d)),
        f"{nm}2_1d_oob": lambda G=G: G(o(3), t(5)),
        })
    c.update({
        "ce2_ls_prob": lambda: F.cross_entropy(o(2,3), o(2,3), label_smoothing=1.5),
        "ce2_ls_batch": lambda: F.cross_entropy(o(2,3), t([0,1,1]), label_smoothing=1.5),
        "ce2_ls_neg": lambda: F.cross_entropy(o(2,3), t([0,1]), label_smoothing=-.5),
        "ce2_ls_neg_prob": lambda: F.cross_entropy(o(2,3), o(2,3), label_smoothing=-1.),
        "ce2_prob_ign_neg": lambda: F.cross_entropy(o(2,3), o(2,3), ignore_index=-5),
        "ce2_prob_int": lambda: F.cross_entropy(o(2,3), z(2,3,dtype=Lg)),
        "ce2_prob_w": lambda: F.cross_entropy(o(2,3), o(2,3), weight=o(4)),
        "ce2_prob_int_in": lambda: F.cross_entropy(o(2,3,dtype=Lg), o(2,3)),
        "ce2_prob_int_in_ls": lambda: F.cross_entropy(o(2,3,dtype=Lg), o(2,3), label_smoothing=2.),
        "ce2_red_ls": lambda: F.cross_entropy(o(2,3), t([0,1]), reduction="x", label_smoothing=2.),
        "bce2_w3": lambda: F.binary_cross_entropy(h, o(2), weight=o(3)),
        "bce2_w22": lambda: F.binary_cross_entropy(h, o(2), weight=o(2,2)),
        "bce2_w32": lambda: F.binary_cross_entropy(o(2,3)*.5, o(2,3), weight=o(3,2)),
        "bce2_w1": lambda: F.binary_cross_entropy(h, o(2), weight=o(1)),
        "bce2_wdtype": lambda: F.binary_cross_entropy(h, o(2), weight=o(2,dtype=d)),
        "bce2_dtype_range": lambda: F.binary_cross_entropy(h*4, o(2,dtype=d)),
        "bce2_int_tgt": lambda: F.binary_cross_entropy(h, o(2,dtype=Lg)),
        "bce2_int_in": lambda: F.binary_cross_entropy(o(2,dtype=Lg), o(2)),
        "bce2_red": lambda: F.binary_cross_entropy(h*4, o(3), reduction='x'),
        "bce2_size_w": lambda: F.binary_cross_entropy(h, o(3), weight=o(5)),
        "bce2_0d": lambda: F.binary_cross_entropy(t(.5), o(1)),
        "bcel2_w22": lambda: F.binary_cross_entropy_with_logits(o(2), o(2), weight=o(2,2)),
        "bcel2_pw22": lambda: F.binary_cross_entropy_with_logits(o(2), o(2), pos_weight=o(2,2)),
        "bcel2_pw3_w3": lambda: F.binary_cross_entropy_with_logits(o(2), o(2), weight=o(3), pos_weight=o(3)),
        "bcel2_int": lambda: F.binary_cross_entropy_with_logits(o(2,dtype=Lg), o(2,dtype=Lg)),
        "bcel2_int_tgt": lambda: F.binary_cross_entropy_with_logits(o(2), o(2,dtype=Lg)),
        "bcel2_size": lambda: F.binary_cross_entropy_with_logits(o(2), o(2,1)),
        "bcel2_red": lambda: F.binary_cross_entropy_with_logits(o(2), o(3), reduction='y'),
        "bcel2_wdtype": lambda: F.binary_cross_entropy_with_logits(o(2), o(2), weight=o(2,dtype=d)),
    })
    return c


def _third(L):
    F = L.nn.functional
    o = L.ones; z = L.zeros; t = L.tensor
    d = L.float64; Lg = L.int64
    return {
    "trip3_3d": lambda: F.triplet_margin_loss(o(2,3,4), o(2,3,4), o(2,3,4)),
    "trip3_0d": lambda: F.triplet_margin_loss(t(1.), t(1.), t(1.)),
    "trip3_shape": lambda: F.triplet_margin_loss(o(2,3), o(2,4), o(2,3)),
    "trip3_shape_n": lambda: F.triplet_margin_loss(o(2,3), o(2,3), o(2,4)),
    "mm3_target2d": lambda: F.multi_margin_loss(o(2,3), z(2,1,dtype=Lg)),
    "mm3_1d_t2": lambda: F.multi_margin_loss(o(3), t([0,1])),
    "mm3_float_tgt": lambda: F.multi_margin_loss(o(2,3), o(2)),
    "mm3_empty": lambda: F.multi_margin_loss(o(2,0), t([0,1])),
    "mm3_int": lambda: F.multi_margin_loss(o(2,3,dtype=Lg), t([0,1])),
    "cos3_0d_t_2d": lambda: F.cosine_embedding_loss(o(2,3), o(2,3), t(1.)),
    "cos3_bcast": lambda: F.cosine_embedding_loss(o(1,3), o(2,3), o(2)),
    "gnll3_int": lambda: F.gaussian_nll_loss(o(2,3,dtype=Lg), o(2,3,dtype=Lg), o(2,3,dtype=Lg)),
    "sl13_int": lambda: F.smooth_l1_loss(o(2,dtype=Lg), o(2,dtype=Lg)),
    "l13_int": lambda: F.l1_loss(o(2,dtype=Lg), o(2,dtype=Lg)),
    "huber3_int": lambda: F.huber_loss(o(2,dtype=Lg), o(2,dtype=Lg)),
    "soft3_int": lambda: F.soft_margin_loss(o(2,dtype=Lg), o(2,dtype=Lg)),
    "mse3_int_float": lambda: F.mse_loss(o(2,dtype=Lg), o(2)),
    "l13_dtype": lambda: F.l1_loss(o(2), o(2,dtype=d)),
    "sl13_dtype": lambda: F.smooth_l1_loss(o(2), o(2,dtype=d)),
    "kl3_shape_int": lambda: F.kl_div(o(2,dtype=Lg), o(3), reduction='sum'),
    "hinge3_int": lambda: F.hinge_embedding_loss(o(2,dtype=Lg), o(2)),
    "mrl3_int": lambda: F.margin_ranking_loss(o(2,dtype=Lg), o(2,dtype=Lg), o(2,dtype=Lg)),
    "mrl3_12": lambda: F.margin_ranking_loss(o(2), o(3), o(2)),
    "soft3_shape": lambda: F.soft_margin_loss(o(2), o(3)),
    }

def _windows(L):
    F, o = L.nn.functional, L.ones
    pool = [dict(kernel_size=0), dict(kernel_size=-1), dict(kernel_size=(2, 0)), dict(kernel_size=5),
            dict(kernel_size=2, stride=0), dict(kernel_size=2, stride=-1), dict(kernel_size=2, stride=(1, 0)),
            dict(kernel_size=2, padding=-1), dict(kernel_size=2, padding=2), dict(kernel_size=2, dilation=0),
            dict(kernel_size=2, dilation=-1), dict(kernel_size=2, dilation=3), dict(kernel_size=3, padding=(1, 2))]
    conv = [(dict(stride=0), (1, 1, 2, 2)), (dict(stride=(1, -1)), (1, 1, 2, 2)), (dict(padding=-1), (1, 1, 2, 2)),
            (dict(dilation=0), (1, 1, 2, 2)), (dict(dilation=-1), (1, 1, 2, 2)), (dict(groups=0), (1, 1, 2, 2)),
            (dict(groups=-1), (1, 1, 2, 2)), (dict(), (1, 1, 4, 4)), (dict(dilation=3), (1, 1, 2, 2)),
            (dict(), (1, 1, 0, 2)), (dict(padding=2, dilation=4), (1, 1, 3, 3))]
    out = {f"mp2d_window_{i}": (lambda kw=kw: F.max_pool2d(o(1, 1, 3, 3), **kw)) for i, kw in enumerate(pool)}
    out.update({f"conv2d_window_{i}": (lambda kw=kw, w=w: F.conv2d(o(1, 1, 3, 3), o(*w), **kw))
                for i, (kw, w) in enumerate(conv)})
    return out


def _cases(L):
    out = {}
    for part in (_first, _second, _third, _windows):
        out.update(part(L))
    return out


#: Cases where minigrad still differs from PyTorch, left out here:
LEFT_OUT = {
    # PyTorch accepts these; minigrad has no integer kernel or mixed-dtype form for them (a feature, not a check)
    "conv2d_int", "ap2d_int", "mp2d_int_ok", "mse_dtype", "mse3_int_float", "mrl3_int",
    # F.nll_loss checks reduction in nn/functional.py (not this family's file): minigrad's own words
    "nll_reduction",
}

CASES = sorted(set(_cases(torch)) - LEFT_OUT)


@pytest.mark.parametrize("case", CASES)
def test_refusal_is_pytorchs(case):
    assert_refused_alike(case, _cases(torch)[case], _cases(mg)[case])


@pytest.mark.parametrize("call", [
    lambda F, leaf: F.cross_entropy(leaf((2, 3)), mg.ones(3)),
    lambda F, leaf: F.nll_loss(leaf((2, 3)), mg.zeros(2, 2, dtype=mg.int64)),
    lambda F, leaf: F.binary_cross_entropy(leaf((2,)), mg.ones(3)),
    lambda F, leaf: F.conv2d(leaf((1, 2, 3, 1)), mg.ones(4, 2, 3, 3)),
    lambda F, leaf: F.conv2d(leaf((2, 3, 3)), mg.ones(4, 2, 3, 3, dtype=mg.float64)),
    lambda F, leaf: F.conv1d(leaf((1, 2, 3)), mg.ones(4, 2, 3, dtype=mg.float64)),
    lambda F, leaf: F.max_pool2d(leaf((1, 1, 2, 3)), 2, padding=2),
])
def test_a_refused_call_leaves_no_node(call):
    leaves = {}

    def leaf(shape):  # made before the trace starts: only the refused call runs inside it
        return leaves[shape]

    for shape in ((2, 3), (2,), (1, 2, 3, 1), (2, 3, 3), (1, 2, 3), (1, 1, 2, 3)):
        leaves[shape] = mg.full(shape, 0.5, requires_grad=True)
    with mg.trace(values=False) as tr, pytest.raises(RuntimeError):
        call(mg.nn.functional, leaf)
    assert not [e for e in tr.events if e.kind == "node.create"]
