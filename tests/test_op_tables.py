"""Everything that lists ops is derived from the op definitions (docs/architecture.md, Layout, "An op lives in one file").

The tensor methods and operators, the AMP lists and the GPU elementwise
template tables must say exactly what each ``defop(...)`` says - no table
kept by hand elsewhere - and an op defined later (a user's own) joins them.
"""

from __future__ import annotations

import subprocess
import sys

import minigrad as mg
from minigrad.dispatch import amp
from minigrad.kernels.gpu import cuda_src


def test_amp_lists_are_the_ops_amp_categories() -> None:
    for category, members in (("allow", amp.ALLOW_LIST), ("deny", amp.DENY_LIST), ("never", amp._NEVER)):
        assert members == {name for name, op in mg.OPS.items() if op.amp == category}, category
    assert {"matmul", "conv2d"} <= amp.ALLOW_LIST and {"exp", "softmax", "sum"} <= amp.DENY_LIST
    assert amp._NEVER == {"cast"}


def test_gpu_template_tables_are_the_ops_gpu_expressions() -> None:
    tables = {"unary": cuda_src.UNARY, "binary": cuda_src.BINARY, "compare": cuda_src.COMPARE}
    for kind, table in tables.items():
        assert table == {n: op.gpu_elementwise[1] for n, op in mg.OPS.items()
                         if op.gpu_elementwise and op.gpu_elementwise[0] == kind}, kind
    assert cuda_src.BINARY["add"] == "a + b" and "relu" in cuda_src.UNARY and "eq" in cuda_src.COMPARE


def test_tensor_methods_and_operators_call_their_op() -> None:
    x = mg.tensor([[1.0, -2.0]])
    for name, op in mg.OPS.items():
        for method in op.methods:
            assert getattr(mg.Tensor, method).__doc__ == f"Same as ``minigrad.{name}(self, ...)``.", method
        for dunder in op.operators:
            assert f"minigrad.{name}" in getattr(mg.Tensor, dunder).__doc__, dunder
    assert (2 - x).tolist() == [[1.0, 4.0]] and (x @ x.T).item() == 5.0 and (-x).tolist() == [[-1.0, 2.0]]


def test_a_new_op_joins_every_table() -> None:
    """Defined after import (as docs/add-an-op.md does), in a fresh interpreter so mg.OPS stays as it is here."""
    code = """
import numpy as np, minigrad as mg
from minigrad.dispatch import amp
from minigrad.kernels import infer_meta as im
from minigrad.kernels.gpu import cuda_src
from minigrad.kernels.registry import register_kernel
from minigrad.ops.registry import defop
register_kernel("twice")(lambda x: x * 2)
twice = defop("twice", inputs=("x",), infer_meta=im.same, methods=("twice",), operators=("__invert__",),
              amp="deny", gpu=("unary", "a + a"))
x = mg.tensor([1.5])
assert x.twice().tolist() == [3.0] and (~x).tolist() == [3.0]
assert "twice" in amp.DENY_LIST and cuda_src.UNARY["twice"] == "a + a" and mg.OPS["twice"] is twice
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
