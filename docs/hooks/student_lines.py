"""The lines students write, each run under PyTorch and minigrad (``tests/test_student_lines.py``), and
the float32 elementwise results that differ from PyTorch's in the last bit.

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
    "broadcast": ("x + y with shapes that do not broadcast", "torch.ones(2, 3) + torch.ones(4, 1, 5)"),
    "expand": ("x.expand(4, 4) of a (2, 3) tensor", "torch.ones(2, 3).expand(4, 4)"),
    "linear-dtype": ("a float64 batch into a float32 nn.Linear", "torch.nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.float64))"),
    "item-of-many": ("loss.item() on a tensor of 2 elements", "torch.ones(2).item()"),
    "matmul-shapes": ("torch.randn(2, 3) @ torch.randn(4, 5)", "torch.ones(2, 3) @ torch.ones(4, 5)"),
    "linear-width": ("nn.Linear(3, 4)(torch.ones(2, 5))", "torch.nn.Linear(3, 4)(torch.ones(2, 5))"),
    "view-size": ("x.view(4, 5) of a (2, 3) tensor", "torch.ones(2, 3).view(4, 5)"),
    "index-range": ("torch.arange(3)[5]", "torch.arange(3)[5]"),
    "index-by-floats": ("x[idx] with idx a float tensor", "torch.ones(3)[torch.tensor([0.0, 1.0])]"),
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
    "legacy-constructors": ("torch.LongTensor(...), torch.FloatTensor(...), x.type('torch.LongTensor')",
                            "print(torch.LongTensor([1.7, 2]), torch.FloatTensor([[1, 2]]), torch.BoolTensor([1, 0]))\n"
                            "print(torch.zeros(2).type('torch.LongTensor'), isinstance(torch.zeros(2), torch.FloatTensor))"),
    "mask-and": ("(x > 2) & (x < 7) on bool masks",
                 "x = torch.arange(10)\nm = (x > 2) & (x < 7) | (x == 9)\nprint(x[m], x[~m], x & 6, x << 1)"),
    "invert-float": ("~x on a float tensor", "~torch.ones(2)"),
    "index-fill": ("true_dist.index_fill_(0, mask, 0.0) (label smoothing)",
                   "d = torch.full((3, 5), 0.1)\nd.index_fill_(0, torch.tensor([1]), 0.0)\nprint(d)"),
    "as-tensor-from-numpy": ("torch.as_tensor(a), torch.from_numpy(a) (shares memory)",
                             "import numpy as np\na = np.arange(3.0)\nt = torch.from_numpy(a)\nu = torch.as_tensor(a)\n"
                             "a[0] = 9\nprint(t, u)"),
    "backends-flags": ("torch.backends.cudnn.deterministic = True",
                       "torch.backends.cudnn.deterministic = True\ntorch.backends.cudnn.benchmark = False\n"
                       "print(torch.backends.cudnn.deterministic, torch.backends.mps.is_available())"),
    "compile": ("model = torch.compile(model)",
                "import warnings\nwarnings.simplefilter('ignore')\nm = torch.nn.Linear(2, 3)\nprint(torch.compile(m)(torch.ones(1, 2)).shape)"),
    "parameter-list": ("nn.ParameterList([...])",
                       "ps = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2)) for _ in range(3)])\n"
                       "print(len(ps), [n for n, _ in ps.named_parameters()])"),
    "lbfgs": ("optim.LBFGS(params, lr=0.8, line_search_fn='strong_wolfe')",
              "w = torch.tensor([1.5, -0.5], dtype=torch.float64, requires_grad=True)\n"
              "opt = torch.optim.LBFGS([w], lr=0.8, line_search_fn='strong_wolfe')\n"
              "def closure():\n    opt.zero_grad()\n    loss = ((w - 3) ** 4).sum()\n    loss.backward()\n    return loss\n"
              "for i in range(3):\n    print(f'{opt.step(closure).item():.6f}')"),
    "pow-cube": ("x ** 3 in float32 (PyTorch multiplies)",
                 "x = torch.tensor([-2.0, -1.3, -0.7, 0.1, 0.9, 1.7])\nprint((x ** 3).tolist(), (x ** -2).tolist(), (x ** 2).tolist())"),
    "bfloat16": ("torch.tensor([1.5], dtype=torch.bfloat16)",
                 "x = torch.tensor([1.7, 3.14159, -0.7, 2.5], dtype=torch.bfloat16)\n"
                 "print(x * 3, x.float(), x.exp(), x.sum(), torch.softmax(x, 0), x.type())\n"
                 "print(x + torch.tensor([1.0]), x + torch.tensor([2]), torch.ones(2, 2).bfloat16() @ x[:2])"),
    "uint8-wraps": ("torch.tensor([250], dtype=torch.uint8) + 10", "print(torch.tensor([250], dtype=torch.uint8) + 10)"),
    "small-ints": ("int8/int16/int32 arithmetic wraps around",
                   "b = torch.tensor([100, -100], dtype=torch.int8)\nprint(b + 100, b * 3, b.sum(), b.type())\n"
                   "print(torch.tensor([2 ** 31 - 1], dtype=torch.int32) + 1, torch.tensor([30000], dtype=torch.short) * 2)"),
    "image-bytes": ("img.float() / 255 for uint8 pixels",
                    "img = torch.tensor([[0, 128, 255]], dtype=torch.uint8)\nprint(img.float() / 255, img.max(), img.type())"),
    "matmul-precision": ("torch.set_float32_matmul_precision('high')",
                         "torch.set_float32_matmul_precision('high')\nprint(torch.get_float32_matmul_precision())\n"
                         "torch.set_float32_matmul_precision('highest')"),
    "tensor-of-tensor": ("torch.tensor(x) of a tensor (PyTorch warns: a copy, detached)",
                         "import warnings\nx = torch.ones(2, requires_grad=True)\n"
                         "with warnings.catch_warnings(record=True) as caught:\n    warnings.simplefilter('always')\n"
                         "    t = torch.tensor(x)\n    u = x.new_tensor(x)\n"
                         "print(t, t.requires_grad, u, [str(w.message) for w in caught])"),
    "real-tensor-conj": ("x.conj(), x.real, torch.is_complex(x) on a real tensor",
                         "x = torch.tensor([1.0, -2.0])\nprint(x.conj(), x.real, torch.is_complex(x), x.is_conj(), "
                         "torch.isreal(x), torch.typename(x))"),
}

#: Lines minigrad does not run as PyTorch does yet (the test marks them as expected failures).
NOT_YET: dict[str, str] = {}


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


#: float32 elementwise results that differ from PyTorch's in the last bit on the grid of
#: ``tests/test_student_lines.py`` (op -> why). Every other op in that test gives PyTorch's bits.
SLEEF = ("PyTorch's CPU kernel is a vectorised SLEEF approximation (within 1 ulp); minigrad's is NumPy's "
         "(correctly rounded or nearly)")
FLOAT32_DIFFERENCES: dict[str, str] = {
    **{n: SLEEF for n in ("exp", "log", "sqrt", "sin", "cos", "tanh", "log1p", "expm1", "tan", "atan", "asin",
                          "acos", "sinh", "cosh", "log2", "log10", "exp2", "erf", "erfc")},
    "pow 0.5": "PyTorch computes x ** 0.5 as its (SLEEF) sqrt",
    **{f"pow {e}": "PyTorch's general path is SLEEF's powf (1 ulp); minigrad rounds the float64 power once"
       for e in (4, 1.5, 0.3)},
    **{n: "built on exp/log/tanh/erf, which differ (above)" for n in (
        "sigmoid", "logit", "sinc", "F.gelu", "F.silu", "F.softplus", "F.elu", "F.mish", "F.logsigmoid", "F.selu",
        "F.celu", "F.tanhshrink")},
}
