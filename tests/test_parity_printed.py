"""Programs in ``tests/parity/`` that run WHOLE, as scripts, and print: their output under minigrad equals
their output under PyTorch line by line (``minigrad`` in a printed name read as ``torch``, a grad_fn's
address left out), with the same seed.

Each is written for PyTorch; the minigrad run changes only its import lines (``test_parity_programs.py``'s
``minigrad_source``).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import pytest

from test_parity_programs import minigrad_source

PARITY = Path(__file__).parent / "parity"
PRINTED = ("bigram_printed", "polynomial_printed", "time_sequence_printed", "wavenet_printed",
           "annotated_transformer_printed", "gpt_lecture_printed", "print_net_printed", "default_device_out_printed",
           "grad_fn_walk_printed", "autograd_tutorial_printed", "tensors_tutorial_printed",
           "build_model_printed", "blitz_printed", "data_train_save_printed", "autograd_mechanics_printed",
           # the NLP series: tensors and autograd, bag-of-words, embeddings, an LSTM tagger, a BiLSTM-CRF
           "nlp_intro_printed", "bow_classifier_printed", "ngram_embeddings_printed", "lstm_tagger_printed",
           "bilstm_crf_printed",
           # torch.distributions: draws, scores, errors, KL, a REINFORCE step; the graphs they build
           "distributions_printed", "distributions_graphs_printed", "distributions_more_printed",
           "gaussian_mixture_printed", "transformed_distributions_printed", "heavy_tails_printed",
           "gumbel_softmax_printed",
           # pytorch/examples' actor-critic (Categorical policy, smooth_l1 critic) on a pole simulated in the program
           "actor_critic_printed",
           # the "Introduction to PyTorch" video series
           "tensors_deeper_printed", "autograd_yt_printed", "models_yt_printed",
           # the channels-last memory format tutorial's steps, then a small CNN trained channels last
           "memory_format_printed",
           # "What is torch.nn really?": logistic regression from scratch, refactored step by step to a CNN
           "nn_really_printed",
           # classifying names with a character-level RNN (two linear layers over cat, NLLLoss, SGD on p.data)
           "char_rnn_names_printed",
           # the DCGAN tutorial's networks and training loop, under use_deterministic_algorithms
           "dcgan_printed",
           # adversarial examples by the fast gradient sign method (an input's gradient, sign, clamp)
           "fgsm_printed",
           # translation with a GRU encoder and a Bahdanau-attention decoder (teacher forcing, bmm, topk)
           "seq2seq_attention_printed",
           # the pruning tutorial: masks, forward pre-hooks, PruningContainer, remove, global and custom pruning
           "pruning_printed",
           # the parametrizations tutorial: symmetric, skew, cached, chained, right_inverse, remove
           "parametrizations_printed",
           # double backward with custom Functions: saved inputs, outputs, intermediates, once_differentiable
           "double_backward_printed",
           # the DQN tutorial on a simulated cart-pole (replay memory, Huber loss, AdamW amsgrad, soft update)
           "dqn_printed",
           # neural style transfer (content/style losses as modules, add_module, L-BFGS on the image, in float64)
           "style_transfer_printed",
           # weight norm (hook and parametrization), the older spectral norm, conv-bn fusion, state-dict hooks
           "reparam_printed",
           # a textbook's builder's guide: blocks, parameter management, init, lazy layers, I/O, a lazy LeNet
           "builders_guide_printed",
           # backward hooks as PyTorch's autograd notes explain them: tensor, node, AccumulateGrad, multi-grad, module
           "backward_hooks_printed",
           # a tensor's storage (views share it), detach_, output_nr; an optimizer's state, state dict, step hooks,
           # a closure, named parameters, Rprop and ASGD
           "internals_printed")

pytestmark = pytest.mark.torch


def run_script(name: str, framework: str) -> list[str]:
    """``tests/parity/<name>.py`` run as ``__main__`` under ``framework``: the lines it printed."""
    text = (PARITY / f"{name}.py").read_text()
    if framework == "minigrad":
        text = minigrad_source(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(text, str(PARITY / f"{name}.py"), "exec"), {"__name__": "__main__"})
    # A grad_fn prints as ``<MulBackward0 object at 0x7f...>``: the address is each run's own.
    return re.sub(r" object at 0x[0-9a-f]+>", " object at 0x...>", out.getvalue().replace("minigrad", "torch")).splitlines()


@pytest.fixture(autouse=True)
def _float32_defaults():
    torch = pytest.importorskip("torch")
    import minigrad as mg

    torch.set_default_dtype(torch.float32)
    mg.set_default_dtype(mg.float32)
    yield
    torch.use_deterministic_algorithms(False)  # (a program may switch it on: dcgan_printed)
    torch.set_default_dtype(torch.float32)  # (or change the default dtype and stop before it restores it)
    mg.set_default_dtype(mg.float32)


@pytest.mark.parametrize("name", PRINTED)
def test_script_prints_what_pytorch_prints(name: str) -> None:
    t_lines = run_script(name, "torch")
    m_lines = run_script(name, "minigrad")
    assert len(t_lines) > 5
    for i, (m, t) in enumerate(zip(m_lines, t_lines)):
        assert m == t, f"line {i + 1} differs:\n minigrad: {m}\n PyTorch:  {t}"
    assert len(m_lines) == len(t_lines)


@pytest.mark.parametrize("name", PRINTED)
def test_only_import_lines_differ(name: str) -> None:
    text = (PARITY / f"{name}.py").read_text()
    for a, b in zip(text.split("\n"), minigrad_source(text).split("\n")):
        if a != b:
            assert a.startswith(("import torch", "from torch")) and b.startswith(("import minigrad", "from minigrad"))
