"""Build ``docs/pytorch-coverage.md``: PyTorch's public names, namespace by namespace, and which minigrad has.

The inventory is measured, not guessed: for each namespace the public names
come from the installed PyTorch (its ``__all__`` where it keeps one, else the
public functions and classes its ``dir()`` shows), and a name counts as
present when minigrad's namespace of the same path has an attribute of that
name. ``NOTES`` is the hand-kept part: where a present name behaves
differently from PyTorch's; ``measured_notes`` adds differences found by
running both frameworks. The page is committed (the inventory needs
PyTorch, which the docs build may not have); regenerate it after adding
surface with::

    python docs/hooks/pytorch_coverage.py          # rewrites docs/pytorch-coverage.md
    python docs/hooks/pytorch_coverage.py --check  # exit 1 when the committed page is stale

``tests/test_pytorch_docs.py`` fails while the committed page differs from
what this script writes (with the PyTorch version the page names).
"""

from __future__ import annotations

import inspect
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from student_lines import FLOAT32_DIFFERENCES, STUDENT_LINES, run  # noqa: E402

sys.path.pop(0)

PAGE = Path(__file__).resolve().parent.parent / "pytorch-coverage.md"

#: The namespaces compared: title, dotted path under ``torch`` (and the same path under ``minigrad``).
#: ``Tensor`` compares the attributes of the tensor class.
NAMESPACES: tuple[tuple[str, str], ...] = (
    ("torch", ""),
    ("Tensor methods", "Tensor"),
    ("nn", "nn"),
    ("nn.functional", "nn.functional"),
    ("nn.init", "nn.init"),
    ("nn.attention", "nn.attention"),
    ("nn.utils", "nn.utils"),
    ("nn.utils.rnn", "nn.utils.rnn"),
    ("optim", "optim"),
    ("optim.lr_scheduler", "optim.lr_scheduler"),
    ("utils.data", "utils.data"),
    ("utils.checkpoint", "utils.checkpoint"),
    ("autograd", "autograd"),
    ("autograd.functional", "autograd.functional"),
    ("autograd.graph", "autograd.graph"),
    ("func", "func"),
    ("linalg", "linalg"),
    ("special", "special"),
    ("amp", "amp"),
    ("cuda", "cuda"),
    ("cpu", "cpu"),
    ("distributions", "distributions"),
    ("testing", "testing"),
    ("profiler", "profiler"),
    ("autograd.profiler", "autograd.profiler"),
)

#: Where a name minigrad has behaves differently from PyTorch's, by its path under ``torch`` (hand-kept).
#: A name not listed behaves as PyTorch's for the arguments minigrad accepts; an argument it does not
#: accept is a ``TypeError`` naming it.
NOTES: dict[str, str] = {
    "profiler.profile": "times the host's ranges (ops under PyTorch's names, grad nodes, optimizer steps, "
    "`record_function`); with `ProfilerActivity.CUDA` it counts the GPU's launches, copies and waits, but the "
    "tables have no CUDA time columns. `profile_memory` counts what each op allocates, not what is freed; "
    "`with_flops` is refused. A fused optimizer step is one range with no ops inside.",
    "torch.utils.checkpoint.set_checkpoint_debug_enabled": "the debug logs list the kernel calls (under PyTorch's "
    "names) with the program's line of each, where PyTorch prints Python and C++ stack traces.",
    "torch.utils.checkpoint.create_selective_checkpoint_contexts": "the policy is asked about minigrad's kernel "
    "calls, named as PyTorch's dispatcher names the same calls (`mg.ops.aten.mm.default` for a product of two "
    "matrices); a call minigrad makes where PyTorch makes another keeps minigrad's name (`aten.getitem.default`); "
    "view ops are never kept.",
    "torch.autograd.graph.allow_mutation_on_saved_tensors": "a write through a view at an offset (`b[1:].mul_(10)`) "
    "clones the saved tensors of its storage too; PyTorch 2.13 compares data pointers, misses it, and its backward "
    "reads the changed values.",
    "torch.autograd.graph.GradientEdge": "`ownership_token` stays None: minigrad's edge holds its node itself.",
    "torch.cuda.max_memory_allocated": "the peak is tracked from the first memory-statistics call "
    "(`reset_peak_memory_stats`, `max_memory_allocated`, `memory_stats`...), not from the program's start: a hook on "
    "every allocation from the start would cost host time on every op; allocations of other threads are not seen.",
    "torch.cuda.max_memory_reserved": "tracked from the first memory-statistics call, as `max_memory_allocated`.",
    "torch.cuda.memory_stats": "the keys minigrad measures (allocated, active and reserved bytes, current and peak; "
    "allocation counts since the first statistics call; `num_alloc_retries`, `num_ooms`), not all of PyTorch's.",
    "torch.cuda.memory_summary": "minigrad's own short table of the same counts, not PyTorch's layout.",
    "torch.cuda.stream": "minigrad queues all its work on the default stream: a context of another stream is "
    "refused (events can still be recorded on it and waited for).",
    "torch.cuda.StreamContext": "as `torch.cuda.stream`: the default stream only.",
    "torch.cuda.OutOfMemoryError": "the class exists; CuPy's own out-of-memory error is not turned into it.",
    "torch.cond": "eager only: runs the branch taken (PyTorch also traces the other and refuses branches whose "
    "outputs differ); a tensor predicate gives one `CondAutogradOpBackward` node, as PyTorch's.",
    "nn.utils.rnn.pad_packed_sequence": "PyTorch's composite: a filled tensor, each run of steps copied into its "
    "slice; each `CopySlices` lists the copy's own node (`CopyBackwards`), as every in-place change through a view "
    "in minigrad does (lesson 9), where PyTorch's lists the copied value's.",
    "torch.native_norm": "PyTorch runs it on sparse tensors only; minigrad has none, so it always refuses.",
    "torch.as_strided_scatter": "`input`'s gradient is outside the written slice, where PyTorch 2.13's is inside it "
    "(which fails `gradcheck`); the graph is `CopySlices` over `clone`, not `AsStridedScatterBackward0`.",
    "torch.set_flush_denormal": "sets the flush-to-zero bits on x86-64 Linux through libm; elsewhere returns False.",
    "torch.get_device_module": "`\"cpu\"` gives a small module of its own (`is_available`, `device_count`, "
    "`synchronize`...); minigrad has no `mg.cpu`.",
    "torch.utils.data.DistributedSampler": "`num_replicas` and `rank` must be given: minigrad runs in one process "
    "without `torch.distributed`.",
    "torch.autograd.graph.save_on_cpu": "`pin_memory` is accepted; host arrays are never pinned.",
    "torch.utils.checkpoint.checkpoint": "the CPU generator's state is the one replayed (minigrad has one generator "
                                         "for every device).",
    "torch.cat": "also spelled `mg.concat` (the op's name, Paddle's).",
    "linalg.svd": "LAPACK through NumPy (OpenBLAS): a singular vector's sign may differ from PyTorch's (MKL); "
                  "functions of the factors that do not depend on the signs agree.",
    "linalg.eigh": "as `svd`: an eigenvector's sign may differ from PyTorch's.",
    "linalg.pinv": "`atol`/`rtol` are numbers or tensors of one element (read: a sync on a GPU).",
    "linalg.lstsq": "the solution is computed through the pseudo-inverse (the minimum-norm one LAPACK's drivers "
                    "give); the rank, residuals and singular values follow the `driver` as PyTorch's.",
    "linalg.matrix_exp": "Taylor's polynomial of degree 18 with scaling and squaring (PyTorch's selects a "
                         "lower degree for a small norm): the same values to about 1e-14 of the largest "
                         "element in float64; a half is computed in float32.",
    "torch.clip": "numbers as bounds; `clamp` also takes tensors.",
    "torch.matmul": "extra `transpose_x`/`transpose_y` flags (Paddle's).",
    "torch.max": "`max(x, dim)` returns `(values, indices)` as PyTorch; `max(x, (0, 1))` (a tuple of dims) "
                 "returns values only.",
    "torch.min": "as `max`.",
    "torch.Generator": "PyTorch's CPU generator's numbers, bit for bit ([Random numbers](concepts/random.md)); `device=\"cuda\"` gives a generator of minigrad's own GPU (Philox) stream.",
    "torch.randn": "`device=\"cuda\"` draws on the GPU with minigrad's own Philox stream (seeded by `manual_seed`), not PyTorch's CUDA numbers ([Random numbers](concepts/random.md)).",
    "torch.linspace": "PyTorch's values bit for bit (its CPU kernel's formula, fused multiply-adds included; "
                      "`minigrad/ranges.py`), not NumPy's.",
    "torch.arange": "as `linspace`: PyTorch's values and refusals; the float values of its x86 build (AVX2-wide "
                    "blocks).",
    "torch.sum": "floats add in PyTorch's CPU order, bit for bit: its cascade of partial sums over AVX2 vectors, "
                 "the layouts its TensorIterator picks, a large sum split among `get_num_threads()` threads "
                 "(`minigrad/kernels/cascade_sum.py`); NumPy adds pairwise. A GPU sum is CUDA's order.",
    "torch.mean": "the CPU sum above divided by the count (a half summed in float32), as PyTorch's: bit for bit.",
    "torch.set_num_threads": "minigrad computes in one thread; the count decides how a CPU sum of 32,768 elements "
                             "or more is split, as PyTorch's, so its bits match PyTorch run with the same count "
                             "(default: `OMP_NUM_THREADS`, else the physical cores, as PyTorch's).",
    "nn.init.orthogonal_": "PyTorch's normal draws; the QR is NumPy's LAPACK, equal to rounding, not bit for bit.",
    "torch.device": "a `str` subclass equal to its string; minigrad's one GPU is `\"gpu\"` = `\"cuda\"` = `\"cuda:0\"` (it prints as PyTorch's, `cuda:0`).",
    "torch.bfloat16": "NumPy's through `ml_dtypes`: PyTorch's rounding, each CPU op computed in float32 and rounded "
                      "once; the kernel layer promotes float16 with bfloat16 to bfloat16 (PyTorch: float32). No GPU "
                      "kernels.",
    "torch.uint8": "wraps around as PyTorch; the kernel layer promotes uint8 with int8 to int8 (PyTorch: int16).",
    "torch.compile": "returns the module or function unchanged and says once that minigrad runs eagerly.",
    "torch.pow": "`x ** e` takes PyTorch's paths for e in 0, 1, 0.5 (sqrt), -0.5, -1, 2, 3, -2 in every float dtype, "
                 "so those give its bits (0.5 as minigrad's sqrt: see Student lines); other exponents differ from its "
                 "SLEEF pow in the last bit for a few per cent of inputs.",
    "optim.LBFGS": "PyTorch's algorithm and rules (strong Wolfe line search too) on CPU parameters; iterates equal "
                   "to rounding (NumPy's dot products and sums).",
    "torch.save": "a NumPy `.npz` file with a JSON structure entry; never a pickle.",
    "torch.load": "reads only files written by `mg.save`; never unpickles.",
    "torch.conv2d": "NCHW; `padding_mode` other than zeros is refused.",
    "Tensor.to": "PyTorch's forms (dtype, device, both, another tensor, `copy=`); `\"gpu\"` is `\"cuda\"` (CuPy).",
    "Tensor.view": "refuses (RuntimeError) where PyTorch's view would, suggesting `reshape`.",
    "Tensor.backward": "`grad_tensor=` (Paddle's) as well as `gradient=`; with `inputs=` the pruned copy of the graph is not released.",
    "nn.Embedding": "no `max_norm`, `sparse`.",
    "nn.Module": "`state_dict`, `load_state_dict(strict=)`, buffers, `named_*`, `apply`, `to`, `double`; the state-dict "
                 "hooks as PyTorch's, but a load's post-hooks run before the values are copied (a refused load "
                 "changes nothing).",
    "nn.utils.remove_spectral_norm": "also removes the load pre-hook (PyTorch's stays, and the layer then refuses "
                                     "its own state dict).",
    "nn.LazyInstanceNorm2d": "an unbatched input's channels are read at dim 0, as the eager layer's (PyTorch 2.13's "
                             "lazy instance norms refuse an unbatched input).",
    "autograd.graph.register_multi_grad_hook": "`mode=\"any\"` fires with the first gradient the engine computes: "
                                               "minigrad's queue (Paddle's deque) may reach another tensor first.",
    "optim.SGD": "momentum, dampening, Nesterov, weight decay, `maximize`; PyTorch's values bit for bit (its "
                 "for-loop's ops: `add_(grad, alpha=-lr)` rounds once); `foreach` (the default on the GPU) "
                 "and `fused` forms, equal to the for-loop bit for bit ([Backward](concepts/backward.md)); "
                 "`differentiable=True` steps are refused, as PyTorch refuses them on leaf parameters.",
    "optim.Adam": "`amsgrad`, `maximize`, `decoupled_weight_decay`; PyTorch's for-loop op for op (`lerp_`, "
                  "`addcmul_`, `addcdiv_`), so its values bit for bit but for PyTorch's CPU `sqrt` (MKL's, within an "
                  "ulp); `foreach` (the default on the GPU) and `fused`, "
                  "equal to the for-loop bit for bit; the fused form keeps each step count on the parameter's "
                  "device and takes a `GradScaler`'s scale and inf flag there, as PyTorch's (no sync); `capturable` "
                  "changes nothing on the GPU (steps are host numbers, never synced) and is refused on the CPU as "
                  "in PyTorch.",
    "optim.lr_scheduler.LRScheduler": "PyTorch's chainable forms (each lr from the current one, so schedulers "
                                      "stepped back to back compose and print PyTorch's digits); the closed forms "
                                      "for `step(epoch)`, without its deprecation warning.",
    "autograd.Function": "`ctx.save_for_backward`, `saved_tensors`, `needs_input_grad`, `mark_non_differentiable`, "
                         "`mark_dirty`, `once_differentiable`, `set_materialize_grads`; a view changed through "
                         "`mark_dirty` gets its node by replaying its view functions (`SliceBackward0`) where "
                         "PyTorch's is `AsStridedBackward0`.",
    "Tensor.detach_": "a leaf's `.grad` goes with its autograd state (PyTorch keeps it): minigrad's tensors that do "
                      "not require grad hold no gradient.",
    "optim.Optimizer": "the step counts stay on the CPU in every form (PyTorch's fused and capturable forms keep "
                       "them on the device): the rules read them as numbers, never from the device.",
    "special.bessel_j0": "PyTorch 2.13's J0/J1/Y0/Y1 are off by 1e-8 to 1e-4 relative for 2 < |x| < 20 (against "
                         "mpmath); minigrad's are within 3e-16; `airy_ai` likewise below -2.09.",
    "special.zeta": "on a GPU, `zeta`, `igamma`/`igammac` and `airy_ai` read loop counts or region masks back "
                    "(syncs, visible as events).",
    "autograd.grad": "Paddle's extra `no_grad_vars=`; runs on a copy of the graph (GeneralGrad); `mg.grad`, Paddle's name, returns a list.",
    # composites, training infrastructure, autograd extras
    "nn.LSTM": "built from ops (one node group per time step), no fused kernel.",
    "nn.MultiheadAttention": "built from ops (the attention weights are ordinary nodes).",
    "nn.TransformerEncoder": "no nested-tensor fast path (`enable_nested_tensor` is accepted and ignored).",
    "optim.lr_scheduler.OneCycleLR": "cycles `momentum` or Adam's beta1 as PyTorch; closed form.",
    "utils.data.DataLoader": "loads in the calling process (`num_workers`, `pin_memory`, `prefetch_factor` accepted "
                             "and ignored); a shuffled order comes from `mg.randperm` with the given `generator`.",
    "autograd.functional.jacobian": "`strategy='forward-mode'` computes each column with the double-backward "
                                    "trick (minigrad has no forward-mode AD); `vectorize` changes no result.",
    "func.vmap": "runs the function once per sample and stacks the outputs (PyTorch's fallback for an op "
                 "without a batching rule): the same values and gradients, one pass per sample in the trace; "
                 "`.item()` and data-dependent control flow run per sample where PyTorch refuses them; "
                 "`randomness='different'` draws each sample in turn (PyTorch draws the batch at once); "
                 "`chunk_size` changes nothing.",
    **{f"torch.{name}": "a new tensor as PyTorch's, two nodes (`CloneBackward0` over the view's node) where PyTorch's "
                        "is one (`ViewBackward0_copy` ...)." for name in (
        "view_copy", "t_copy", "permute_copy", "expand_copy", "select_copy", "slice_copy", "split_copy",
        "split_with_sizes_copy", "squeeze_copy", "unsqueeze_copy", "transpose_copy", "unbind_copy", "unfold_copy",
        "alias_copy", "as_strided_copy", "narrow_copy")},
    "torch.native_dropout": "the output and mask as PyTorch's; the output's node is `MulBackward0` (PyTorch's "
                            "`NativeDropoutBackward0`).",
    "Tensor.share_memory_": "minigrad runs in one process: the storage is marked shared (`is_shared()` True), not moved.",
    "Tensor.narrow_copy": "`CloneBackward0` over the narrow's node (PyTorch's `NarrowCopyBackward0`).",
    "func.jacfwd": "computed by reverse mode (minigrad has no forward-mode AD): the same Jacobian.",
    "func.jvp": "the double-backward trick (minigrad has no forward-mode AD): the same values.",
    "func.linearize": "each call of `jvp_fn` runs `jvp` again (PyTorch traces the function once).",
    "autograd.gradcheck": "reverse mode only: forward-AD and batched checks raise; `fast_mode` runs the full check.",
    "torch.autocast": "PyTorch's per-device lists (checked against its dispatcher), its cast cache and its graphs; "
                      "no bfloat16 on the GPU. Also takes minigrad's own `autocast(\"O1\")` (Paddle's lists, "
                      "every tensor). A PyTorch kernel that itself calls an autocast op (the CPU's `_trilinear` "
                      "under `bilinear`) is one kernel here, not cast inside.",
    "amp.autocast": "as `torch.autocast`.",
    "amp.GradScaler": "PyTorch's scale sequence and skipped steps; misuse raises `RuntimeError` where PyTorch "
                      "fails an `assert`.",
    "nn.functional.dropout2d": "PyTorch's masks for the same seed (also `dropout1d`, `dropout3d`, `alpha_dropout`, "
                               "`feature_alpha_dropout`).",
}


def _works(fn: Callable[[], object]) -> bool:
    try:
        fn()
    except Exception:
        return False
    return True


def _draws(lib: Any) -> np.ndarray:
    """Five and twenty normal draws after seeding 0 (both of PyTorch's normal paths), without touching the
    default generator where the library has ``Generator`` objects."""
    if hasattr(lib, "Generator"):
        g = lib.Generator().manual_seed(0)
        values = [lib.randn(n, dtype=lib.float64, generator=g) for n in (5, 20)]
    else:
        lib.manual_seed(0)
        values = [lib.randn(n, dtype=lib.float64) for n in (5, 20)]
    return np.concatenate([v.numpy() for v in values])


def measured_notes(torch: Any, mg: Any) -> dict[str, str]:
    """Differences found by running both frameworks (so they disappear from the page once fixed)."""
    notes = {}
    if not _works(lambda: np.testing.assert_allclose(_draws(mg), _draws(torch))):
        for name in ("rand", "randn", "randint", "randperm", "multinomial"):
            notes[f"torch.{name}"] = "reproducible with `manual_seed`, but not PyTorch's stream of numbers."
    if not _works(lambda: mg.ones(2, 2).sum(1, keepdims=True)):
        notes["Tensor.sum"] = "no `keepdims=` (NumPy's spelling PyTorch also accepts)."
    if not _works(lambda: mg.zeros(1).add_(mg.ones(1), alpha=2.0)):
        notes["Tensor.add_"] = "no `alpha=`."
    if not _works(lambda: mg.zeros(3)[range(2)]):
        notes["Tensor.__getitem__"] = "a `range` is not accepted as an index."
    return notes


@dataclass
class Namespace:
    """One namespace compared: PyTorch's public names, and those of them minigrad has."""

    title: str
    path: str
    torch_names: list[str]
    present: list[str]
    extra: list[str]

    @property
    def missing(self) -> list[str]:
        return [n for n in self.torch_names if n not in set(self.present)]


def _resolve(root: Any, path: str) -> Any:
    obj = root
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _public_names(ns: Any, root: str, *, use_all: bool = True) -> list[str]:
    """The public names of a namespace: ``__all__`` when it has one, else its own functions, classes and
    constants (names imported from outside the package, like ``typing.Callable``, and submodules left out)."""
    if ns is None:
        return []
    if use_all and isinstance(getattr(ns, "__all__", None), (list, tuple)):
        names = list(ns.__all__)
    else:
        names = [n for n in dir(ns) if not n.startswith("_")]
    keep = []
    for name in names:
        obj = getattr(ns, name, None)
        if name.startswith("_") or obj is None or isinstance(obj, types.ModuleType):
            continue
        home = getattr(obj, "__module__", None) or type(obj).__module__ or ""
        if not (use_all and hasattr(ns, "__all__")) and not home.startswith(root) and home != "builtins":
            continue
        keep.append(name)
    return sorted(set(keep))


def _tensor_names(cls: Any) -> list[str]:
    return sorted(n for n in dir(cls) if not n.startswith("_")) if cls is not None else []


def inventory(torch: Any, mg: Any) -> list[Namespace]:
    """Compare every namespace of ``NAMESPACES``."""
    result = []
    for title, path in NAMESPACES:
        t_ns, m_ns = _resolve(torch, path), _resolve(mg, path)
        if path == "Tensor":
            t_names, m_names = _tensor_names(t_ns), _tensor_names(m_ns)
        else:
            # torch.nn and torch.linalg keep no __all__; nn.functional's is partial: read dir() for these.
            t_names = _public_names(t_ns, "torch", use_all=path not in ("nn.functional",))
            m_names = _public_names(m_ns, "minigrad", use_all=False) if m_ns is not None else []
        present = [n for n in t_names if m_ns is not None and hasattr(m_ns, n)]
        extra = [n for n in m_names if not hasattr(t_ns, n)] if t_ns is not None else m_names
        result.append(Namespace(title, path, t_names, present, extra))
    return result


def _qualified(ns: Namespace, name: str) -> str:
    return f"torch.{name}" if ns.path == "" else f"{ns.path}.{name}"


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) if names else "(none)"


def student_line_status(torch: Any, mg: Any, program: str) -> str:
    """``as PyTorch`` when the program prints the same text and raises the same class under both, else what differs."""
    t_out, t_exc = run(program, torch)
    m_out, m_exc = run(program, mg)
    if m_out != t_out:
        return "prints differently"
    if t_exc is None and m_exc is not None:
        return f"raises {type(m_exc).__name__}"
    if t_exc is not None and not isinstance(m_exc, type(t_exc)):
        return f"raises {type(m_exc).__name__ if m_exc else 'nothing'}, PyTorch {type(t_exc).__name__}"
    return "as PyTorch" if t_exc is None else f"as PyTorch (`{type(t_exc).__name__}`)"


def student_lines_section(torch: Any, mg: Any) -> list[str]:
    """The "Student lines" section: each line of ``docs/hooks/student_lines.py`` run under both, and the
    float32 elementwise results that differ from PyTorch's in the last bit."""
    lines = ["", "## Student lines", "",
             "Lines every training script and lecture writes, each run under PyTorch and minigrad (with `torch`",
             "bound to either) by `tests/test_student_lines.py`; the status is measured when this page is built.",
             "", "| line | what a student writes | status |", "| --- | --- | --- |"]
    for name, (written, program) in STUDENT_LINES.items():
        status = student_line_status(torch, mg, program)
        lines.append(f"| `{name}` | `{written.replace('|', '&#124;')}` | {status} |")
    lines += ["", "### float32 results that differ in the last bit", "",
              "Every elementwise op's float32 results on a grid of 8006 inputs (zeros, infinities, NaN, -10..10,",
              "1e-6..80 of both signs) are compared bit for bit with PyTorch's by `tests/test_student_lines.py`.",
              "All others agree bit for bit, `pow` with the exponents PyTorch computes by products and",
              "reciprocals (2, 3, -1, -2, -0.5) too. PyTorch's own last bits depend on the CPU under it: on an",
              "AVX-512 machine its MKL `sqrt` (and so `x ** 0.5` in float64) can be 1 ulp off the rounded root and",
              "its oneDNN float32 GELU is a polynomial about 1e-4 off near -3 (`nn.GELU` prints -0.0041 where the",
              "value is -0.0040) and NaN at +inf. minigrad gives the portable answers; PyTorch gives them too with",
              "`MKL_CBWR=COMPATIBLE ONEDNN_MAX_CPU_ISA=AVX2` in its environment, which the test suite sets.",
              "", "| op | why |", "| --- | --- |"]
    for name, why in FLOAT32_DIFFERENCES.items():
        lines.append(f"| `{name}` | {why} |")
    return lines


def coverage_page(torch: Any, mg: Any) -> str:
    """The Markdown of ``docs/pytorch-coverage.md``."""
    spaces = inventory(torch, mg)
    version = torch.__version__.split("+")[0]
    lines = [
        "# PyTorch coverage by namespace",
        "",
        f"Measured against PyTorch {version}: for each namespace, PyTorch's public names (its `__all__` where it",
        "keeps one, else the functions and classes `dir()` shows; `Tensor`: every public attribute of the class)",
        "and which of them minigrad has under the same path (`torch.nn.init.normal_` -> `minigrad.nn.init.normal_`).",
        "Generated by `docs/hooks/pytorch_coverage.py`; `tests/test_pytorch_docs.py` fails when this page is",
        "stale. The [API reference](pytorch.md) describes each name minigrad has; the table of differences below",
        "is kept by hand. PyTorch's namespaces hold much that a teaching framework leaves out (quantization,",
        "sparse and complex tensors, distributed training, graph compilers), so the percentages measure the",
        "whole surface, not what course programs use: `tests/parity/` holds programs in the style of the",
        "ones courses teach, each run under both frameworks with only the imports changed.",
        "",
        "## Summary",
        "",
        "| namespace | PyTorch names | in minigrad | missing | minigrad only |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    total_t = total_p = 0
    for ns in spaces:
        t, p = len(ns.torch_names), len(ns.present)
        total_t, total_p = total_t + t, total_p + p
        pct = f"{100 * p / t:.0f}%" if t else "-"
        lines.append(f"| [`{ns.title}`](#{_anchor(ns.title)}) | {t} | {p} ({pct}) | {t - p} | {len(ns.extra)} |")
    pct_all = f"{100 * total_p / max(total_t, 1):.0f}%"
    lines.append(f"| **all** | {total_t} | {total_p} ({pct_all}) | {total_t - total_p} | |")

    lines += ["", "## Differences", "",
              "Names minigrad has whose behaviour differs from PyTorch's: kept by hand in the generator (`NOTES`),",
              "plus what `measured_notes` finds by running both (random streams, `keepdims=`, `alpha=`, `range`",
              "indices), which leaves the page once minigrad matches.", "",
              "| name | how minigrad differs |", "| --- | --- |"]
    have = {_qualified(ns, n) for ns in spaces for n in ns.present} | {"Tensor.__getitem__"}
    notes = {**NOTES, **measured_notes(torch, mg)}
    for key in sorted(notes, key=lambda k: k.removeprefix("torch.") if k.removeprefix("torch.") in have else k):
        # (a key may spell a namespace's name in full: ``torch.cuda.memory_stats`` is ``cuda.memory_stats``)
        name = key if key in have else key.removeprefix("torch.")
        if name in have:
            lines.append(f"| `{name}` | {notes[key].replace('|', '&#124;')} |")

    lines += student_lines_section(torch, mg)
    for ns in spaces:
        lines += ["", f"## {ns.title}", "",
                  f"**In minigrad ({len(ns.present)} of {len(ns.torch_names)}):** {_names(ns.present)}", "",
                  f"**Missing ({len(ns.missing)}):** {_names(ns.missing)}", ""]
        if ns.extra:
            lines += [f"**minigrad only ({len(ns.extra)}):** {_names(ns.extra)}", ""]
    return "\n".join(lines).rstrip() + "\n"


def _anchor(title: str) -> str:
    return title.lower().replace(" ", "-").replace(".", "")


def page_version(text: str) -> str | None:
    """The PyTorch version a committed page was measured against."""
    marker = "Measured against PyTorch "
    start = text.find(marker)
    return text[start + len(marker):].split(":")[0] if start >= 0 else None


def main(argv: list[str]) -> int:
    import torch

    import minigrad

    text = coverage_page(torch, minigrad)
    if "--check" in argv:
        stale = not PAGE.exists() or PAGE.read_text() != text
        print(f"{PAGE} is {'stale: run python docs/hooks/pytorch_coverage.py' if stale else 'up to date'}")
        return int(stale)
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
