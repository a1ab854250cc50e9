"""The examples run and do what their docstrings claim."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
from surface import needs  # noqa: F401  (for MISSING, when an example waits for surface)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_digits_mlp_reaches_95_percent_test_accuracy():
    pytest.importorskip("sklearn")
    digits = _load("train_digits")
    acc = digits.train(epochs=20, verbose=False)
    assert acc >= 0.95, f"test accuracy {acc:.3f} < 0.95"


# One example per family of the programs courses teach. Each names minigrad only in its import
# lines; ``needs`` (tests/surface.py) marks one strict xfail while the surface it names is missing.

FAMILIES = {
    # example: (a tiny run as keyword arguments of its training function, that function's name, TUI arguments)
    "gpt": (dict(steps=30, batch_size=8, block_size=16, n_layer=1, lr=1e-2), "train",
            ["--steps", "1", "--n-layer", "1", "--block-size", "8", "--batch-size", "2"]),
    "makemore": (dict(model_type="mlp", steps=40, batch_size=16), "train", ["--steps", "1", "--batch-size", "4"]),
    "cnn": (dict(epochs=1, steps=40, batch_size=16), "run", ["--epochs", "1", "--steps", "1", "--batch-size", "4"]),
    "vae": (dict(epochs=2, steps=10, batch_size=32), "train", ["--epochs", "1", "--steps", "1", "--batch-size", "4"]),
    "lstm_lm": (dict(epochs=4, steps=None), "train", ["--epochs", "1", "--steps", "1"]),
}
# A few steps only on PyTorch: the point is that the same file runs there (learning is checked on minigrad).
SWAPPED = {
    "gpt": dict(steps=3, batch_size=4, block_size=8, n_layer=1),
    "makemore": dict(model_type="gru", steps=3, batch_size=8),
    "cnn": dict(epochs=1, steps=3, batch_size=8),
    "vae": dict(epochs=1, steps=3, batch_size=16),
    "lstm_lm": dict(epochs=1, steps=3),
}
MISSING: dict[str, pytest.MarkDecorator] = {}  # e.g. "gpt": needs("torch.topk", by="...", probe=("topk",))


def _load_family(name: str):
    """Like ``_load``, registered in ``sys.modules`` first (a dataclass looks its module up there)."""
    import sys

    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(spec.name, None)
        raise
    return mod


def _with_marks(names):
    return [pytest.param(n, marks=MISSING[n]) if n in MISSING else n for n in names]


def _pytorch_text(text: str) -> str:
    """The example with its minigrad import lines pointed at PyTorch (nothing else changes)."""
    out = []
    for line in text.split("\n"):
        if line == "import minigrad as torch":
            line = "import torch"
        elif line.startswith(("import minigrad", "from minigrad")):
            line = line.replace("minigrad", "torch", 1)
        out.append(line)
    return "\n".join(out)


def _assert_falls(name: str, losses: list[float]) -> None:
    k = max(1, len(losses) // 5)
    first, last = sum(losses[:k]) / k, sum(losses[-k:]) / k
    assert last < first, f"{name}: loss did not fall: {first:.3f} -> {last:.3f}"


def test_examples_name_minigrad_only_in_import_lines() -> None:
    for name in FAMILIES:
        text = (EXAMPLES / f"{name}.py").read_text()
        assert "import minigrad as torch" in text, name
        body = [ln for ln in text.split("\n") if not ln.startswith(("import minigrad", "from minigrad"))]
        assert not any("minigrad" in ln and "minigrad-tui" not in ln and "name minigrad" not in ln
                       for ln in body if not ln.lstrip().startswith("#")), name


@pytest.mark.parametrize("name", _with_marks(FAMILIES))
def test_family_example_learns_at_tiny_size(name: str) -> None:
    if name in ("cnn", "vae"):
        pytest.importorskip("sklearn")
    kwargs, fn, _ = FAMILIES[name]
    result = getattr(_load_family(name), fn)(verbose=False, **kwargs)
    _assert_falls(name, result[0] if isinstance(result, tuple) else result)


@pytest.mark.torch
@pytest.mark.parametrize("name", FAMILIES)
def test_family_example_runs_on_pytorch_with_the_imports_swapped(name: str) -> None:
    """The same file, imports pointed at PyTorch, runs too: the examples are PyTorch programs."""
    pytest.importorskip("torch")
    if name in ("cnn", "vae"):
        pytest.importorskip("sklearn")
    _, fn, _ = FAMILIES[name]
    result = _run_on_torch(name, fn, SWAPPED[name])
    losses = result[0] if isinstance(result, tuple) else result
    assert losses and all(math.isfinite(v) for v in losses), (name, losses)


def _run_on_torch(name: str, fn: str, kwargs: dict) -> object:
    """``examples/<name>.py`` with its imports pointed at PyTorch: ``fn(verbose=False, **kwargs)``."""
    from types import ModuleType
    import sys

    path = EXAMPLES / f"{name}.py"
    module = ModuleType(f"example_{name}_on_torch")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    try:
        exec(compile(_pytorch_text(path.read_text()), str(path), "exec"), module.__dict__)
        return getattr(module, fn)(verbose=False, **kwargs)
    finally:
        sys.modules.pop(module.__name__, None)


@pytest.mark.torch
def test_gpt_with_dropout_gives_pytorchs_losses_and_sample() -> None:
    """On the CPU every draw - initial weights, batches, dropout masks, the top-k sample - is PyTorch's, so
    the same file prints the same losses (to float32 rounding) and the same text under both frameworks."""
    pytest.importorskip("torch")
    kwargs = dict(steps=6, batch_size=4, block_size=8, n_layer=1, dropout=0.1)
    ours, theirs = _load_family("gpt").train(verbose=False, **kwargs), _run_on_torch("gpt", "train", kwargs)
    assert ours[0] == pytest.approx(theirs[0], rel=1e-5, abs=1e-5)
    assert ours[1] == theirs[1]


@pytest.mark.torch
def test_cnn_gives_pytorchs_losses_and_accuracy() -> None:
    """PyTorch's MNIST example's shape (shuffled DataLoader, dropout, Adadelta, StepLR): on the CPU every draw is
    PyTorch's, so the file prints PyTorch's lines - each training loss and the test accuracy."""
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    kwargs = dict(epochs=2, steps=25, batch_size=16)
    ours, theirs = _load_family("cnn").run(verbose=False, **kwargs), _run_on_torch("cnn", "run", kwargs)
    assert ours[0] == pytest.approx(theirs[0], rel=1e-5, abs=1e-6)
    assert ours[1] == theirs[1]


@pytest.mark.parametrize("name", _with_marks(FAMILIES))
def test_family_example_opens_in_the_tui(name: str) -> None:
    """``minigrad-tui examples/<name>.py --steps 1``: one training step recorded, with its backward pass."""
    pytest.importorskip("textual")
    if name in ("cnn", "vae"):
        pytest.importorskip("sklearn")
    from minigrad.tui.app import open_source

    session, error = open_source(str(EXAMPLES / f"{name}.py"), FAMILIES[name][2])
    assert error is None, error
    assert [e.kind for e in session.events].count("backward.begin") >= 1


def test_makemore_help_names_only_the_models_it_offers():
    """The description (``--help``'s first line) names no model that ``--type`` does not offer."""
    import runpy

    mm = runpy.run_path(str(Path(__file__).resolve().parent.parent / "examples" / "makemore.py"))
    first = mm["__doc__"].splitlines()[0]
    assert "Transformer" not in first and set(mm["MODELS"]) == {"bigram", "mlp", "rnn", "gru", "bow"}
