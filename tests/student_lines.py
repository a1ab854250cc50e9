"""The lines students write, each run under PyTorch and minigrad (``tests/test_student_lines.py``).

Each entry is a small program written for PyTorch (``torch`` is the only name it uses). It runs
twice, as written and with ``torch`` bound to ``minigrad``; the two runs must print the same text
(``minigrad`` in a printed name read as ``torch``) or raise the same class. The coverage page's
"student lines" section lists them (``docs/hooks/pytorch_coverage.py``).
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

#: name -> (what a student writes, the program that shows it)
STUDENT_LINES: dict[str, tuple[str, str]] = {
    "format-0d": ("f\"step {it}: train loss {losses['train']:.4f}\"",
                  "losses = {'train': torch.tensor(2.718281)}\nit = 3\n"
                  "print(f\"step {it}: train loss {losses['train']:.4f}\")\n"
                  "print('{:+.2f}'.format(torch.tensor(-1.5)), f'{torch.tensor(7):d}', f'{torch.tensor(True)}')"),
    "format-nd": ("f'{t}' / f'{t:.2f}' with a 1-D tensor",
                  "t = torch.tensor([1.5, 2.0])\nprint(f'{t}')\nprint(f'{t:.2f}')"),
    "format-parameter": ("f'{p:.3f}' with a 0-d Parameter",
                         "p = torch.nn.Parameter(torch.tensor(1.0))\nprint(f'{p:.3f}')"),
    "slice-by-0d": ("data[i:i+block_size] with i from randint",
                    "torch.manual_seed(1337)\ndata = torch.arange(100)\nix = torch.randint(len(data) - 8, (4,))\n"
                    "x = torch.stack([data[i:i+8] for i in ix])\nprint(x)"),
    "list-index-by-0d": ("itos[ix] with a 0-d tensor", "itos = ['a', 'b', 'c']\nprint(itos[torch.tensor(2)])"),
    "shape-repr": ("print(X.shape)", "X = torch.zeros(4163, 8)\nprint(X.shape)\nprint(X.size(), X.size(1))"),
    "size-numel": ("x.size().numel(), x.shape[1:]",
                   "s = torch.zeros(2, 3, 4).shape\nprint(s.numel(), s[1:], s[0], s + (5,), (1,) + s, s == (2, 3, 4))"),
    "matmul-shapes": ("torch.randn(2, 3) @ torch.randn(4, 5)", "torch.ones(2, 3) @ torch.ones(4, 5)"),
    "linear-width": ("nn.Linear(3, 4)(torch.ones(2, 5))", "torch.nn.Linear(3, 4)(torch.ones(2, 5))"),
    "view-size": ("x.view(4, 5) of a (2, 3) tensor", "torch.ones(2, 3).view(4, 5)"),
    "index-range": ("torch.arange(3)[5]", "torch.arange(3)[5]"),
    "cross-entropy-target": ("F.cross_entropy with a target out of range",
                             "torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 5]))"),
    "except-runtime-error": ("except RuntimeError around a shape mistake",
                             "try:\n    torch.ones(2, 3) @ torch.ones(4, 5)\nexcept RuntimeError as e:\n    print(e)"),
    "cat-onto-empty": ("torch.cat([acc, x]) with acc = torch.zeros(0)",
                       "acc = torch.zeros(0)\nfor i in range(3):\n    acc = torch.cat([acc, torch.full((2, 2), float(i))])\n"
                       "print(acc)\nprint(torch.cat([torch.ones(2, 2), torch.zeros(0)], dim=1))"),
    "cat-ranks": ("torch.cat of a 2-D and a 1-D tensor", "torch.cat([torch.ones(2, 3), torch.ones(3)])"),
    "cat-promotes": ("torch.cat of int64 and float32 tensors",
                     "print(torch.cat([torch.tensor([1, 2]), torch.tensor([0.5])]))"),
    "numpy-requires-grad": ("w.numpy() on a tensor that requires grad",
                            "w = torch.ones(2, requires_grad=True)\nw.numpy()"),
    "numpy-detached": ("w.detach().numpy()", "w = torch.ones(2, requires_grad=True)\nprint(w.detach().numpy())"),
    "mean-of-int": ("torch.arange(4).mean()", "torch.arange(4).mean()"),
}


def run(program: str, module: Any) -> tuple[str, BaseException | None]:
    """``program`` run with ``torch`` bound to ``module``: what it printed, and what it raised (or None)."""
    out = io.StringIO()
    raised = None
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(program, "<student line>", "exec"), {"torch": module, "__name__": "__student__"})
        except Exception as exc:  # the outcome compared
            raised = exc
    return out.getvalue().replace("minigrad", "torch"), raised
