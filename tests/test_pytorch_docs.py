"""``docs/pytorch.md`` is generated from the code: every op, function, layer and optimizer is listed."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import minigrad as mg

HOOKS = Path(__file__).resolve().parent.parent / "docs" / "hooks"


def _page() -> str:
    sys.path.insert(0, str(HOOKS))
    try:
        import pytorch_api
    finally:
        sys.path.pop(0)
    return pytorch_api.pytorch_reference()


def test_every_op_layer_and_optimizer_is_listed() -> None:
    page = _page()
    for name in mg.OPS:
        assert f"| `{name}` |" in page, name
    for name in ("cat", "einsum", "var", "masked_fill", "from_numpy", "save", "load", "Function"):
        assert f"| `{name}` |" in page, name
    for name in mg.nn.__all__:
        if inspect.isclass(getattr(mg.nn, name)) and name != "init":
            assert f"| `{name}` |" in page, name
    for name in ("one_hot", "layer_norm", "cross_entropy", "SGD", "Adam", "AdamW", "StepLR", "CosineAnnealingLR",
                 "LambdaLR"):
        assert f"| `{name}` |" in page, name


def test_a_new_op_appears_without_editing_the_page() -> None:
    from minigrad.ops.registry import OPS, defop

    try:
        defop("zz_probe_op", inputs=("x",), doc="a probe")
        assert "| `zz_probe_op` | no gradient; a probe |" in _page()
    finally:
        OPS.pop("zz_probe_op", None)


def test_committed_coverage_page_is_up_to_date() -> None:
    """``docs/pytorch-coverage.md`` is what ``docs/hooks/pytorch_coverage.py`` writes for this code.
    Regenerate with ``python docs/hooks/pytorch_coverage.py``."""
    import pytest

    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(HOOKS))
    try:
        import pytorch_coverage
    finally:
        sys.path.pop(0)
    committed = pytorch_coverage.PAGE.read_text()
    if pytorch_coverage.page_version(committed) != torch.__version__.split("+")[0]:
        pytest.skip(f"the page was measured against another PyTorch than {torch.__version__}")
    # Measured in a fresh interpreter: the student lines' statuses depend on process state (PyTorch's own
    # test utilities, imported by the OpInfo tests, freeze torch.backends' flags in the process they run in).
    code = (f"import sys; sys.path.insert(0, {str(HOOKS)!r}); import pytorch_coverage, torch, minigrad; "
            "sys.stdout.write(pytorch_coverage.coverage_page(torch, minigrad))")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert committed == fresh, "docs/pytorch-coverage.md is stale: run python docs/hooks/pytorch_coverage.py"


def test_coverage_inventory_counts_a_new_name() -> None:
    """The inventory reads minigrad's namespaces, so a name added there counts as present."""
    import pytest

    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(HOOKS))
    try:
        import pytorch_coverage
    finally:
        sys.path.pop(0)
    before = {ns.title: ns for ns in pytorch_coverage.inventory(torch, mg)}
    assert "zeros" in before["torch"].present and "matmul" in before["Tensor methods"].present
    probe = before["torch"].missing[0]  # any name minigrad lacks
    setattr(mg, probe, lambda x: x)
    try:
        after = {ns.title: ns for ns in pytorch_coverage.inventory(torch, mg)}
    finally:
        delattr(mg, probe)
    assert probe in after["torch"].present and probe not in before["torch"].present
    assert len(after["torch"].missing) == len(before["torch"].missing) - 1
