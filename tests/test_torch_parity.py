"""One model source runs under PyTorch and under minigrad, changing only its import.

``tests/parity/tiny_gpt.py`` is a small character-level transformer
written for PyTorch (Embedding, LayerNorm, causal self-attention with
``tril``/``masked_fill``/``softmax``/``einsum``, a GELU MLP, ``ModuleList``,
``cross_entropy`` with label smoothing, AdamW and a cosine schedule). The test
executes it twice: as written, and with its first line replaced by
``import minigrad as torch``. Both models get the same float64 weights
(PyTorch's initial ``state_dict`` loaded into minigrad's, whose keys must
match), train for several steps on the same batch, and must agree on every
loss and on the final ``argmax`` predictions.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

SOURCE = Path(__file__).parent / "parity" / "tiny_gpt.py"
TORCH_IMPORT = "import torch  # the evidence test swaps only this line for \"import minigrad as torch\""


def load_source(import_line: str) -> ModuleType:
    text = SOURCE.read_text()
    first, rest = text.split("\n", 1)
    assert first == TORCH_IMPORT
    module = ModuleType(f"tiny_gpt_{import_line.split()[1]}")
    exec(compile(import_line + "\n" + rest, str(SOURCE), "exec"), module.__dict__)
    return module


def test_only_the_import_line_differs() -> None:
    import minigrad

    mg_src = load_source("import minigrad as torch")
    assert mg_src.torch is minigrad
    assert mg_src.TinyGPT.__mro__[1] is minigrad.nn.Module


@pytest.mark.torch
def test_same_source_trains_identically_under_pytorch_and_minigrad() -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    t_src = load_source("import torch")
    m_src = load_source("import minigrad as torch")

    text = "to be, or not to be, that is the question"
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text])
    rng = np.random.default_rng(0)
    starts = rng.integers(0, len(ids) - 9, size=4)
    X = np.stack([ids[s:s + 8] for s in starts])
    Y = np.stack([ids[s + 1:s + 9] for s in starts])

    t_model = t_src.TinyGPT(len(chars)).double()
    m_model = m_src.TinyGPT(len(chars)).double()
    t_state = t_model.state_dict()
    assert list(m_model.state_dict()) == list(t_state)
    m_model.load_state_dict({k: v.detach().numpy() for k, v in t_state.items()})

    t_losses, t_preds = t_src.train(t_model, torch.tensor(X), torch.tensor(Y), steps=6)
    m_losses, m_preds = m_src.train(m_model, m_src.torch.tensor(X), m_src.torch.tensor(Y), steps=6)

    np.testing.assert_allclose(m_losses, t_losses, rtol=1e-9, atol=1e-12)
    assert m_losses[-1] < m_losses[0]  # it does learn
    assert m_preds == t_preds
    for k, v in t_model.state_dict().items():
        np.testing.assert_allclose(m_model.state_dict()[k].numpy(), v.detach().numpy(), rtol=1e-8, atol=1e-10, err_msg=k)
