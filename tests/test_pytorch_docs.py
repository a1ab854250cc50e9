"""``docs/pytorch.md`` is generated from the code: every op, function, layer and optimizer is listed."""

from __future__ import annotations

import inspect
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
