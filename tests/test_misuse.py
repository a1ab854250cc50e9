"""Engine and API misuse: each case fails with minigrad's own clear error and leaves no trace behind (docs/architecture.md, bad input).

Covers what a careless or curious user tries: hooks that change a
gradient's dtype, grad mode / autocast / recording across threads, failed
in-place ops, huge allocations, unknown devices, NumPy floating-point
warnings, reassigning a registered parameter, and invalid optimizer
settings.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.tracing import bus

# ---------------------------------------------------------------------------
# Hooks
# ---------------------------------------------------------------------------


def test_a_hook_may_not_turn_a_float_grad_into_int():
    x = mg.tensor([1.0, 2.0], requires_grad=True)

    def to_int(g):
        return mg.tensor([1, 2])

    x.register_hook(to_int)
    with pytest.raises(RuntimeError, match=r"hook 'to_int' has changed the type of value \(was torch.FloatTensor got "
                                           r"torch.LongTensor\)") as info:
        (x * 2).sum().backward()
    assert "AccumulateGrad#" in str(info.value)  # the engine names the node it ran
    assert x.grad is None


def test_a_hook_on_a_non_leaf_may_not_change_the_dtype_either():
    y = mg.tensor([1.0, 2.0], requires_grad=True)
    z = y * 3
    z.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match=r"MulBackward0#\d+ .*hook '<lambda>' has changed the type of value \(was "
                                           r"torch.FloatTensor got torch.DoubleTensor\)"):
        z.sum().backward()


def test_a_hook_returning_the_same_dtype_still_replaces_the_gradient():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0] and x.grad.dtype == mg.float32


# ---------------------------------------------------------------------------
# Threads: grad mode, autocast and the recorder are per thread
# ---------------------------------------------------------------------------


def _in_thread(fn):
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread
            box["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(timeout=60)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]


def test_no_grad_in_one_thread_leaves_another_recording():
    entered, release = threading.Event(), threading.Event()

    def eval_loop() -> None:
        with mg.no_grad():
            entered.set()
            release.wait(timeout=30)

    t = threading.Thread(target=eval_loop)
    t.start()
    try:
        assert entered.wait(timeout=30)
        w = mg.ones(2, requires_grad=True)
        y = w * 2
        assert mg.is_grad_enabled() and y.grad_fn is not None
        assert _in_thread(mg.is_grad_enabled) is True  # a new thread starts with grad on
    finally:
        release.set()
        t.join()


def test_a_no_grad_decorator_used_by_two_threads_at_once_restores_each():
    barrier = threading.Barrier(2)

    @mg.no_grad()
    def inside() -> bool:
        barrier.wait(timeout=30)
        return mg.is_grad_enabled()

    results: list[bool] = []
    threads = [threading.Thread(target=lambda: results.append(inside())) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [False, False] and mg.is_grad_enabled()


def test_autocast_is_per_thread():
    from minigrad.dispatch.amp_state import AMP

    with mg.autocast(level="O1"):
        assert AMP.level == 1
        assert _in_thread(lambda: AMP.level) == 0


def test_recording_is_per_thread():
    with mg.trace() as tr:
        _in_thread(lambda: (mg.ones(2, requires_grad=True) * 3).sum().backward())
        assert _in_thread(lambda: bus.recorder) is None
    assert tr.events == []

    def record_own() -> list[str]:
        with mg.trace() as own:
            mg.ones(1) + 1
        return own.kinds()

    assert "api.call" in _in_thread(record_own)
    assert bus.recorder is None and type(bus).__name__ == "module"  # idle again: a plain module, a plain read


def test_four_threads_run_backward_at_once_on_separate_graphs():
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []
    grads: dict[int, list[float]] = {}

    def train(k: int) -> None:
        try:
            x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
            barrier.wait(timeout=30)
            for _ in range(50):
                x.grad = None
                with mg.no_grad():
                    _ = x * 0  # toggles this thread's grad mode while the others record
                loss = ((x * (k + 1)) ** 2).sum()
                loss.backward()
            grads[k] = x.grad.tolist()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=train, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(4):
        assert grads[k] == pytest.approx([2 * (k + 1) ** 2 * v for v in (1.0, 2.0, 3.0)])


# ---------------------------------------------------------------------------
# A failed op leaves nothing behind
# ---------------------------------------------------------------------------


def test_failed_inplace_op_emits_nothing_and_changes_nothing():
    h = mg.randn(3, 2, requires_grad=True) * 1
    other = mg.ones(2, 3, 2)
    before, node, version = h.tolist(), h.grad_fn, h._version_value() if hasattr(h, "_version_value") else None
    with mg.trace() as tr:
        with pytest.raises(RuntimeError, match=r"^output with shape \[3, 2\] doesn't match the broadcast "
                                               r"shape \[2, 3, 2\]"):
            h.add_(other)
    assert [(e.kind, e.op) for e in tr.events] == [("error", "add_")]  # the refusal, and nothing else
    assert h.tolist() == before and h.grad_fn is node
    if version is not None:
        assert h._version_value() == version


def test_inplace_op_on_incompatible_shapes_is_refused_before_any_node():
    h = mg.randn(3, 2, requires_grad=True) * 1
    with mg.trace() as tr:
        with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                           r"non-singleton dimension 1$"):
            h.add_(mg.ones(3, 2, 2))
    assert "node.create" not in tr.kinds() and "kernel.launch" not in tr.kinds()


@pytest.mark.parametrize("op, other, result", [("add_", 2.5, "Float"), ("div_", 2, "Float"), ("mul_", None, "Double")])
def test_inplace_op_that_would_need_a_float_result_in_an_int_tensor(op, other, result):
    t = mg.tensor([1, 2])
    if other is None:
        other = mg.ones(2, dtype=mg.float64)
    with mg.trace() as tr:
        with pytest.raises(RuntimeError, match=rf"^result type {result} can't be cast to the desired output type Long$"):
            getattr(t, op)(other)
    assert "node.create" not in tr.kinds() and t.tolist() == [1, 2]


# ---------------------------------------------------------------------------
# Allocation failures, devices
# ---------------------------------------------------------------------------


def test_huge_creation_names_the_call_and_the_shape():
    with pytest.raises(MemoryError, match=r"^zeros\(\): out of memory: .*shape \(1000000, 1000000\)"):
        mg.zeros(10**6, 10**6)


def test_huge_op_output_names_the_op_the_kernel_and_the_shape():
    a, b = mg.ones(10**6, 1), mg.ones(1, 10**6)
    with mg.trace() as tr:
        with pytest.raises(MemoryError, match=r"^matmul\(\): out of memory in kernel \S+ computing an output of shape "
                                              r"\(1000000, 1000000\)"):
            a @ b
    assert "node.create" not in tr.kinds()


@pytest.mark.parametrize("call, name", [(lambda: mg.ones(2).to("tpu"), "to()"), (lambda: mg.zeros(2, device="tpu"), "zeros()"),
                                        (lambda: mg.tensor([1.0], device="tpu"), "tensor()")])
def test_unknown_device_names_the_call(call, name):
    with pytest.raises(ValueError, match=rf"^{name[:-2]}\(\): argument 'device': unknown device 'tpu'; expected one of"):
        call()


# ---------------------------------------------------------------------------
# NumPy floating-point warnings stay inside the kernels
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "compute, expected",
    [
        (lambda: mg.log(mg.tensor(0.0)), [-np.inf]),
        (lambda: mg.tensor(1) / mg.tensor(0), [np.inf]),
        (lambda: mg.tensor(0.0) / 0, [np.nan]),
        (lambda: mg.tensor([]).mean(), [np.nan]),
        (lambda: mg.ones(0, 3).mean(0), [np.nan] * 3),
        (lambda: mg.tensor([1e30]).exp(), [np.inf]),
        (lambda: mg.nn.functional.mse_loss(mg.ones(0), mg.ones(0)), [np.nan]),
    ],
)
def test_no_runtime_warning_reaches_the_user(compute, expected):
    with warnings.catch_warnings():
        # Appended: any RuntimeWarning that minigrad's own kernel filter lets through becomes an error.
        warnings.filterwarnings("error", category=RuntimeWarning, append=True)
        out = compute()
    np.testing.assert_array_equal(np.asarray(out.numpy(), dtype=np.float64).reshape(-1), expected)


def test_nan_gradient_is_silent_and_user_numpy_still_warns_in_a_real_process():
    import subprocess
    import sys

    code = (
        "import numpy as np, minigrad as mg\n"
        "x = mg.tensor([0.0, 1.0], requires_grad=True)\n"
        "(x.log() * x).sum().backward()\n"
        "print(x.grad.tolist())\n"
        "try:\n"
        "    np.log(np.zeros(1))\n"
        "except RuntimeWarning as exc:\n"
        "    print('user warning:', exc)\n"
    )
    proc = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[nan, 1.0]", "user warning: divide by zero encountered in log"]
    assert proc.stderr == ""


# ---------------------------------------------------------------------------
# nn and optim
# ---------------------------------------------------------------------------


def test_assigning_a_plain_tensor_to_a_parameter_raises_type_error():
    m = mg.nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'Tensor' as parameter 'weight' \(minigrad.nn.Parameter or None "
                                        r"expected\)"):
        m.weight = mg.ones(2, 2)
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    m.weight = None
    assert [n for n, _ in m.named_parameters()] == ["bias"] and m.weight is None
    m.weight = mg.nn.Parameter(mg.ones(2, 2))
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]


def test_assigning_a_non_module_to_a_child_module_raises_type_error():
    class Net(mg.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = mg.nn.Linear(2, 2)

    net = Net()
    with pytest.raises(TypeError, match=r"cannot assign 'int' as child module 'fc'"):
        net.fc = 3
    net.fc = None
    assert list(net.parameters()) == []


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: mg.optim.Adam(p, betas=(1.5, 0.9)), r"Adam\(\): Invalid beta parameter at index 0: 1.5"),
        (lambda p: mg.optim.Adam(p, betas=(0.9, -0.1)), r"Adam\(\): Invalid beta parameter at index 1: -0.1"),
        (lambda p: mg.optim.Adam(p, betas=0.9), r"Adam\(\): argument 'betas' must be a pair"),
        (lambda p: mg.optim.Adam(p, eps=-1), r"Adam\(\): Invalid epsilon value: -1"),
        (lambda p: mg.optim.Adam(p, lr=float("nan")), r"Adam\(\): Invalid learning rate: nan"),
        (lambda p: mg.optim.Adam(p, weight_decay=-0.1), r"Adam\(\): Invalid weight_decay value: -0.1"),
        (lambda p: mg.optim.SGD(p, lr=-1), r"SGD\(\): Invalid learning rate: -1"),
        (lambda p: mg.optim.SGD(p, lr=0.1, momentum=-0.5), r"SGD\(\): Invalid momentum value: -0.5"),
        (lambda p: mg.optim.SGD(p, lr=0.1, nesterov=True), r"SGD\(\): Nesterov momentum requires a momentum"),
    ],
)
def test_optimizer_arguments_are_validated_like_pytorch(make, message):
    params = list(mg.nn.Linear(2, 2).parameters())
    with pytest.raises(ValueError, match=message):
        make(params)
