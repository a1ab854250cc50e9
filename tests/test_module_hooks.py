"""``nn.Module`` hooks against PyTorch: forward pre-hooks, forward hooks, full backward (pre-)hooks.

What a hook receives, what its result replaces, the order hooks run in,
``.remove()``, and that a module's backward hook is an ordinary engine hook
(a ``hook.run`` event).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:Full backward hook is firing")


def _plain(x: Any) -> Any:
    if isinstance(x, (mg.Tensor, torch.Tensor)):
        return np.round(x.detach().numpy(), 10).tolist()
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    return x


def _linears(n_in: int = 3, n_out: int = 2) -> tuple[Any, Any]:
    t = torch.nn.Linear(n_in, n_out).double()
    m = mg.nn.Linear(n_in, n_out, dtype=mg.float64)
    m.load_state_dict({k: v.detach().numpy() for k, v in t.state_dict().items()})
    return m, t


def _pairs(*shapes: tuple[int, int]) -> dict[Any, list[Any]]:
    """The same Linear layers in both frameworks: ``{mg: [...], torch: [...]}``."""
    made = [_linears(*s) for s in shapes]
    return {mg: [m for m, _ in made], torch: [t for _, t in made]}


def _x(lib: Any, requires_grad: bool = True) -> Any:
    return lib.tensor(np.arange(12.0).reshape(4, 3) / 7, requires_grad=requires_grad)


class Two(object):
    """A module with two inputs and two outputs, written for both frameworks."""

    @staticmethod
    def make(lib: Any) -> Any:
        class TwoMod(lib.nn.Module):
            def forward(self, a, scale, b):
                return a * b * scale, (a - b).tanh()
        return TwoMod()


def test_forward_pre_hook_and_forward_hook_replace_args_and_output() -> None:
    results = []
    layers = _pairs((3, 2))
    for lib in (mg, torch):
        (m,) = layers[lib]
        calls = []
        m.register_forward_pre_hook(lambda mod, args: calls.append("pre") or (args[0] * 2,))
        m.register_forward_pre_hook(lambda mod, args: calls.append("pre-first") or None, prepend=True)
        m.register_forward_hook(lambda mod, args, out: calls.append(("post", _plain(args))) or out + 1)
        out = m(_x(lib))
        results.append((calls, _plain(out)))
    assert results[0] == results[1]


def test_hooks_with_kwargs_and_single_value_results_match_torch() -> None:
    results = []
    layers = _pairs((3, 2))
    for lib in (mg, torch):
        (m,) = layers[lib]
        m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True)
        m.register_forward_pre_hook(lambda mod, args: args[0] * 3)  # a bare value becomes (value,)
        m.register_forward_hook(lambda mod, args, kwargs, out: out * 0.5, with_kwargs=True)
        results.append(_plain(m(_x(lib))))
    assert results[0] == results[1]
    for lib in (mg, torch):
        m = _linears()[0 if lib is mg else 1]
        m.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
        with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of"):
            m(_x(lib))


def test_remove_and_context_manager() -> None:
    m, _ = _linears()
    calls = []
    h = m.register_forward_hook(lambda *a: calls.append(1))
    m(_x(mg))
    h.remove()
    h.remove()  # twice is fine
    m(_x(mg))
    with m.register_forward_pre_hook(lambda *a: calls.append(2)):
        m(_x(mg))
    m(_x(mg))
    assert calls == [1, 2]


def test_always_call_forward_hook_runs_when_forward_raises() -> None:
    for lib in (mg, torch):
        m = _linears()[0 if lib is mg else 1]
        calls = []
        m.register_forward_hook(lambda mod, args, out: calls.append(out), always_call=True)
        with pytest.raises(Exception):
            m(lib.ones(2, 5, dtype=lib.float64))
        assert calls == [None]


@pytest.mark.parametrize("input_grad", [True, False])
def test_full_backward_hooks_see_torch_s_gradients(input_grad: bool) -> None:
    seen = {}
    grads = {}
    layers = _pairs((3, 2))
    for lib in (mg, torch):
        (m,) = layers[lib]
        log = []
        m.register_full_backward_pre_hook(lambda mod, go, log=log: log.append(("pre", _plain(go))))
        m.register_full_backward_hook(lambda mod, gi, go, log=log: log.append(("post", _plain(gi), _plain(go))))
        x = _x(lib, input_grad)
        (m(x) ** 2).sum().backward()
        seen[lib.__name__] = log
        grads[lib.__name__] = (_plain(m.weight.grad), _plain(x.grad) if input_grad else None)
    assert seen["minigrad"] == seen["torch"]
    assert grads["minigrad"] == grads["torch"]


def test_backward_hooks_replace_gradients_as_in_torch() -> None:
    out = {}
    layers = _pairs((3, 2), (2, 2))
    for lib in (mg, torch):
        first, second = layers[lib]
        second.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
        second.register_full_backward_hook(lambda mod, gi, go: (gi[0] - 1,))
        x = _x(lib)
        second(first(x)).sum().backward()
        out[lib.__name__] = [_plain(second.weight.grad), _plain(first.weight.grad), _plain(x.grad)]
    assert out["minigrad"] == out["torch"]


def test_multi_input_multi_output_module_matches_torch() -> None:
    logs = {}
    for lib in (mg, torch):
        mod = Two.make(lib)
        log = []
        mod.register_full_backward_pre_hook(lambda m, go, log=log: log.append(("pre", _plain(go))))
        mod.register_full_backward_hook(lambda m, gi, go, log=log: log.append(("post", _plain(gi), _plain(go))) or
                                        (gi[0] * 2, None, gi[2]))
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        p, q = mod(a, 3.0, b)
        (p.sum() + (q * q).sum()).backward()
        logs[lib.__name__] = (log, _plain(a.grad), _plain(b.grad))
    assert logs["minigrad"] == logs["torch"]


def test_backward_hook_errors_match_torch() -> None:
    for lib in (mg, torch):
        m = _linears()[0 if lib is mg else 1]
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of grad_input, got 2, "
                                               "but expected 1"):
            m(_x(lib)).sum().backward()
        m = _linears()[0 if lib is mg else 1]
        m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
        with pytest.raises(RuntimeError, match="Backward pre hook returned an invalid number of grad_output"):
            m(_x(lib)).sum().backward()
        m = _linears()[0 if lib is mg else 1]
        m.register_full_backward_hook(lambda mod, gi, go: (lib.ones(4, 3, dtype=lib.float64),))
        with pytest.raises(RuntimeError, match="Backward hook for Modules where no input requires gradient"):
            m(_x(lib, False)).sum().backward()


def test_module_backward_hooks_are_engine_hooks() -> None:
    m, _ = _linears()
    m.register_full_backward_pre_hook(lambda mod, go: None)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    x = _x(mg)
    y = m(x).sum()
    with mg.trace() as tr:
        y.backward()
    kinds = [e.hook_kind for e in tr.events if type(e).__name__ == "HookRun"]
    assert kinds == ["module_backward_pre", "module_backward"]
    # The identity nodes are ordinary grad nodes named after their Function.
    names = {m(x).grad_fn.name()}
    assert names == {"BackwardHookFunctionBackward"}


def test_no_hooks_no_extra_nodes() -> None:
    m, _ = _linears()
    h = m.register_full_backward_hook(lambda *a: None)
    h.remove()
    assert m(_x(mg)).grad_fn.name() == "AddmmBackward0"  # nn.Linear on rows, as PyTorch's


def test_hooks_in_no_grad_only_run_forward_hooks() -> None:
    m, _ = _linears()
    calls = []
    m.register_full_backward_hook(lambda *a: calls.append("bw"))
    m.register_forward_hook(lambda *a: calls.append("fw"))
    with mg.no_grad():
        y = m(_x(mg))
    assert calls == ["fw"] and not y.requires_grad


def test_tensor_hooks_on_a_modules_output_and_input_run_before_its_backward_hooks() -> None:
    """PyTorch registers a module's backward hooks on its boundary node as node hooks, which its engine runs after
    the tensor hooks of that node's gradients: a hook on the output runs before the module's pre-hook, and
    what it returns is what the pre-hook sees."""
    results = []
    layers = _pairs((3, 2))
    for lib in (mg, torch):
        (m,) = layers[lib]
        order = []
        m.register_full_backward_pre_hook(lambda mod, go: order.append(("pre", _plain(go))))
        m.register_full_backward_hook(lambda mod, gi, go: order.append(("post", _plain(gi))))
        x = _x(lib)
        out = m(x)
        out.register_hook(lambda g: order.append("output hook") or g * 2)
        out.retain_grad()
        out.sum().backward()
        order.append(("retained", _plain(out.grad)))
        results.append(order)
    assert results[0] == results[1]
    assert results[0][0] == "output hook" and results[0][1][0] == "pre"
