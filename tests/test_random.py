"""Random numbers: minigrad's streams equal PyTorch's CPU generator's, bit for bit (minigrad/random.py).

Every sampler is compared with PyTorch for many seeds, the sizes around the
normal sampler's switch from its scalar path (below 16 elements) to its
vectorised one, odd shapes and both float dtypes; ``get_state`` bytes are
compared too, so a test also proves the two generators end in the same state.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

SEEDS = [0, 1, 7, 42, 2147483647, 12345678901234, 2 ** 64 - 1]
SIZES = [(1,), (15,), (16,), (17,), (1000,), (3, 5), (4, 4), (3, 7, 5), (27, 27)]
DTYPES = [(mg.float32, torch.float32), (mg.float64, torch.float64)]


def _pair(seed: int) -> tuple[mg.Generator, "torch.Generator"]:
    return mg.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)


def _same(a: mg.Tensor, b: "torch.Tensor") -> None:
    assert a.shape == tuple(b.shape)
    np.testing.assert_array_equal(a.numpy(), b.detach().numpy())


def _same_state(g: mg.Generator, tg: "torch.Generator") -> None:
    np.testing.assert_array_equal(g.get_state().numpy(), tg.get_state().numpy())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("dt", DTYPES + [(mg.float16, torch.float16)], ids=["float32", "float64", "float16"])
def test_rand_randn_normal_uniform_match_pytorch_bit_for_bit(seed, size, dt) -> None:
    g, tg = _pair(seed)
    _same(mg.randn(size, generator=g, dtype=dt[0]), torch.randn(size, generator=tg, dtype=dt[1]))
    # the scalar path's cached second value carries over to the next call, in both
    _same(mg.randn(3, generator=g, dtype=dt[0]), torch.randn(3, generator=tg, dtype=dt[1]))
    _same(mg.rand(size, generator=g, dtype=dt[0]), torch.rand(size, generator=tg, dtype=dt[1]))
    _same(mg.empty(size, dtype=dt[0]).normal_(0.3, 2.5, generator=g),
          torch.empty(size, dtype=dt[1]).normal_(0.3, 2.5, generator=tg))
    _same(mg.empty(size, dtype=dt[0]).uniform_(-0.3, 1.7, generator=g),
          torch.empty(size, dtype=dt[1]).uniform_(-0.3, 1.7, generator=tg))
    _same(mg.normal(1.5, 0.5, size, generator=g, dtype=dt[0]),
          torch.normal(1.5, 0.5, size, generator=tg, dtype=dt[1]))
    _same_state(g, tg)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 1000])
def test_integers_and_permutations_match_pytorch(seed, n) -> None:
    g, tg = _pair(seed)
    for low, high in ((0, 10), (-5, 3), (0, 2 ** 33)):
        _same(mg.randint(low, high, (n,), generator=g), torch.randint(low, high, (n,), generator=tg))
    _same(mg.randint(27, (n, 2), generator=g), torch.randint(27, (n, 2), generator=tg))
    _same(mg.randperm(n, generator=g), torch.randperm(n, generator=tg))
    _same(mg.empty(n).random_(3, 9, generator=g), torch.empty(n).random_(3, 9, generator=tg))
    _same_state(g, tg)


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("dt", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("k", [3, 27, 100])
def test_multinomial_matches_pytorch(seed, dt, k) -> None:
    g, tg = _pair(seed)
    p = np.random.default_rng(seed).random((4, k)).astype(dt[0].np)
    p[0, 1] = 0
    for num, repl in ((1, True), (1, False), (5, True), (3, False), (50, True), (k, False)):
        _same(mg.multinomial(mg.tensor(p), num, repl, generator=g),
              torch.multinomial(torch.from_numpy(p), num, repl, generator=tg))
        _same(mg.multinomial(mg.tensor(p[1]), num, repl, generator=g),
              torch.multinomial(torch.from_numpy(p[1]), num, repl, generator=tg))
    _same_state(g, tg)


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("dt", DTYPES, ids=["float32", "float64"])
def test_bernoulli_exponential_and_dropout_match_pytorch(seed, dt) -> None:
    g, tg = _pair(seed)
    for n in (1, 17, 300):
        _same(mg.empty(n, dtype=dt[0]).bernoulli_(0.3, generator=g),
              torch.empty(n, dtype=dt[1]).bernoulli_(0.3, generator=tg))
        _same(mg.empty(n, dtype=dt[0]).exponential_(1.5, generator=g),
              torch.empty(n, dtype=dt[1]).exponential_(1.5, generator=tg))
        probs = np.linspace(0, 1, n).astype(dt[0].np)
        _same(mg.bernoulli(mg.tensor(probs), generator=g), torch.bernoulli(torch.from_numpy(probs), generator=tg))
    _same_state(g, tg)
    mg.manual_seed(seed)
    torch.manual_seed(seed)
    x = np.random.default_rng(seed).standard_normal((8, 33)).astype(dt[0].np)
    _same(mg.nn.functional.dropout(mg.tensor(x), 0.3), torch.nn.functional.dropout(torch.from_numpy(x), 0.3))
    _same(mg.nn.Dropout(0.5)(mg.tensor(x)), torch.nn.Dropout(0.5)(torch.from_numpy(x)))


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("dt", DTYPES, ids=["float32", "float64"])
def test_cauchy_log_normal_and_geometric_match_pytorch(seed, dt) -> None:
    """``cauchy_``, ``log_normal_`` (double normals, the cached twin shared with ``normal``) and ``geometric_``:
    PyTorch's numbers, and the generator left where PyTorch's is."""
    g, tg = _pair(seed)
    for n in (1, 5, 40):
        _same(mg.empty(n, dtype=dt[0]).cauchy_(0.5, 2.0, generator=g), torch.empty(n, dtype=dt[1]).cauchy_(0.5, 2.0, generator=tg))
        _same(mg.empty(n, dtype=dt[0]).log_normal_(generator=g), torch.empty(n, dtype=dt[1]).log_normal_(generator=tg))
        _same(mg.empty(n, dtype=dt[0]).geometric_(0.3, generator=g), torch.empty(n, dtype=dt[1]).geometric_(0.3, generator=tg))
        _same(mg.randn(3, generator=g, dtype=dt[0]), torch.randn(3, generator=tg, dtype=dt[1]))
    _same(mg.empty(4, dtype=mg.int64).geometric_(0.5, generator=g), torch.empty(4, dtype=torch.int64).geometric_(0.5, generator=tg))
    _same_state(g, tg)


@pytest.mark.parametrize("call", ["cauchy_(0, -1)", "log_normal_(1, 0)", "geometric_(1.5)", "geometric_(0)"])
def test_refused_sampling_arguments_are_pytorch_s(call: str) -> None:
    with pytest.raises(RuntimeError) as expected:
        eval(f"torch.empty(3).{call}")
    with pytest.raises(RuntimeError, match=re.escape(str(expected.value))):
        eval(f"mg.empty(3).{call}")


def test_the_lecture_idiom_gives_the_lectures_numbers() -> None:
    g = mg.Generator().manual_seed(2147483647)
    tg = torch.Generator().manual_seed(2147483647)
    C, tC = mg.randn((27, 27), generator=g), torch.randn((27, 27), generator=tg)
    _same(C, tC)
    p = mg.tensor(np.abs(C.numpy()[0]))
    tp = torch.from_numpy(np.abs(tC.numpy()[0]))
    for _ in range(20):
        _same(mg.multinomial(p / p.sum(), num_samples=1, replacement=True, generator=g),
              torch.multinomial(tp / tp.sum(), num_samples=1, replacement=True, generator=tg))
    _same(mg.randint(0, 27, (32,), generator=g), torch.randint(0, 27, (32,), generator=tg))


def test_like_forms_follow_the_input() -> None:
    x = mg.zeros(4, 17, dtype=mg.float64)
    tx = torch.zeros(4, 17, dtype=torch.float64)
    g, tg = _pair(3)
    _same(mg.randn_like(x, generator=g), torch.randn_like(tx, generator=tg))
    _same(mg.rand_like(x, generator=g), torch.rand_like(tx, generator=tg))
    _same(mg.randint_like(x, 5, generator=g), torch.randint_like(tx, 5, generator=tg))
    _same(mg.randint_like(x, 2, 9, generator=g), torch.randint_like(tx, 2, 9, generator=tg))
    assert mg.randn_like(x).dtype == mg.float64 and mg.empty_like(x).shape == (4, 17)


def test_normal_with_tensor_mean_and_std() -> None:
    m = np.linspace(-1, 1, 20).astype(np.float32)
    s = np.linspace(0.1, 2, 20).astype(np.float32)
    g, tg = _pair(5)
    _same(mg.normal(mg.tensor(m), mg.tensor(s), generator=g), torch.normal(torch.from_numpy(m), torch.from_numpy(s), generator=tg))
    _same(mg.normal(mg.tensor(m), 2.0, generator=g), torch.normal(torch.from_numpy(m), 2.0, generator=tg))
    _same(mg.normal(0.5, mg.tensor(s), generator=g), torch.normal(0.5, torch.from_numpy(s), generator=tg))


def test_default_generator_and_seed_functions() -> None:
    assert mg.manual_seed(5) is mg.default_generator
    torch.manual_seed(5)
    assert mg.initial_seed() == torch.initial_seed() == 5
    _same(mg.randn(20), torch.randn(20))
    state, tstate = mg.get_rng_state(), torch.get_rng_state()
    assert state.dtype == mg.uint8 and state.shape == (5056,)
    np.testing.assert_array_equal(state.numpy(), tstate.numpy())
    a = mg.rand(5)
    mg.set_rng_state(state)
    np.testing.assert_array_equal(mg.rand(5).numpy(), a.numpy())
    # a state saved by PyTorch restores minigrad's generator to the same stream
    mg.set_rng_state(tstate.numpy())
    _same(mg.rand(7), torch.rand(7))
    s = mg.seed()
    assert mg.initial_seed() == s and 0 <= s < 2 ** 64
    fresh, tfresh = mg.Generator(), torch.Generator()
    assert fresh.initial_seed() == tfresh.initial_seed() == 67280421310721
    _same(mg.rand(3, generator=fresh), torch.rand(3, generator=tfresh))
    assert fresh.device == "cpu"


def test_seed_and_generator_errors_as_pytorch() -> None:
    with pytest.raises(TypeError):
        mg.manual_seed("1")
    with pytest.raises(TypeError, match="generator"):
        mg.randn(3, generator=np.random.default_rng(0))
    g, tg = _pair(-1)  # negative seeds wrap to uint64, as PyTorch does
    assert g.initial_seed() == tg.initial_seed()
    _same(mg.rand(4, generator=g), torch.rand(4, generator=tg))
    with pytest.raises(RuntimeError):
        mg.Generator().set_state(mg.zeros(10))
    with pytest.raises(RuntimeError):
        mg.multinomial(mg.tensor([0.5, 0.5]), 3, replacement=False)
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.tensor([0.5, 0.5]), 3, replacement=False)
    with pytest.raises(RuntimeError):
        mg.multinomial(mg.tensor([-0.5, 0.5]), 1)
    with pytest.raises(RuntimeError):
        mg.randint(5, 5, (2,))
    with pytest.raises(RuntimeError):
        torch.randint(5, 5, (2,))
    with pytest.raises(RuntimeError):
        mg.empty(3).normal_(0, -1)


def test_in_place_sampling_respects_autograd_rules() -> None:
    w = mg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.normal_()
    with mg.no_grad():
        w.uniform_(-1, 1)
    assert w.version == 1 and w.requires_grad and w.is_leaf


@pytest.mark.parametrize("dt", [(mg.float32, torch.float32), (mg.float64, torch.float64), (mg.int64, torch.int64),
                                (mg.int32, torch.int32), (mg.bool, torch.bool), (mg.float16, torch.float16)], ids=str)
def test_random_without_bounds_matches_pytorch(dt) -> None:
    g, tg = _pair(3)
    _same(mg.empty(50, dtype=dt[0]).random_(generator=g), torch.empty(50, dtype=dt[1]).random_(generator=tg))
    _same(mg.empty(5, dtype=dt[0]).random_(2, generator=g), torch.empty(5, dtype=dt[1]).random_(2, generator=tg))


def test_normal_fills_a_non_contiguous_view_in_memory_order() -> None:
    g, tg = _pair(3)
    a, b = mg.zeros(6, 8).t(), torch.zeros(6, 8).t()
    with mg.no_grad():
        a.normal_(generator=g)
    b.normal_(generator=tg)
    _same(a, b)
    _same_state(g, tg)


def test_data_loading_orders_follow_pytorchs_stream() -> None:
    from minigrad.utils import data as D
    import torch.utils.data as TD

    mg.manual_seed(3)
    torch.manual_seed(3)
    ours = [b.tolist() for b in D.DataLoader(list(range(20)), batch_size=5, shuffle=True)]
    theirs = [b.tolist() for b in TD.DataLoader(list(range(20)), batch_size=5, shuffle=True)]
    assert ours == theirs
    s, ts = D.RandomSampler(range(20), replacement=True, num_samples=70), TD.RandomSampler(range(20), replacement=True, num_samples=70)
    assert list(s) == list(ts)
    assert list(D.SubsetRandomSampler([5, 6, 7, 8])) == list(TD.SubsetRandomSampler([5, 6, 7, 8]))
    _same(mg.rand(3), torch.rand(3))


def test_size_keyword_and_unknown_keywords() -> None:
    g, tg = _pair(9)
    _same(mg.randn(size=(2, 3), generator=g), torch.randn(size=(2, 3), generator=tg))
    _same(mg.rand(size=(4,), generator=g), torch.rand(size=(4,), generator=tg))
    with pytest.raises(TypeError):
        mg.randn(2, foo=1)
    with pytest.raises(TypeError):
        torch.randn(2, foo=1)


def test_dropout_mask_of_a_transposed_tensor_is_drawn_in_memory_order() -> None:
    """PyTorch lays the mask out like its input (empty_like) and fills it in memory order."""
    for shape, dims in (((3, 4, 5), (0, 1)), ((2, 3, 4, 5), (1, 2)), ((6, 7), (0, 1))):
        masks = []
        for lib in (mg, torch):
            lib.manual_seed(3)
            x = lib.ones(*shape).transpose(*dims)
            masks.append(lib.nn.functional.dropout(x, 0.4).numpy() == 0)
        np.testing.assert_array_equal(masks[0], masks[1])


def test_an_empty_fill_draws_nothing_as_pytorch_s() -> None:
    """A fill of no elements (an empty tensor's ``uniform_``, ``rand(0)``, a lazy layer's zero-sized
    parameters) leaves the generator's state as PyTorch's does, even right after a seed."""
    states = []
    for L in (torch, mg):
        got = []
        for before in (lambda: None, lambda: L.rand(3)):
            L.manual_seed(0)
            before()
            start = L.get_rng_state()
            L.nn.init.uniform_(L.empty(0, 3))
            L.rand(0), L.randn(0), L.randint(0, 5, (0,))
            got.append(bool(L.equal(start, L.get_rng_state())))
        L.manual_seed(0)
        L.nn.init.uniform_(L.empty(0))
        states.append((got, L.rand(2).tolist()))
    assert states[1] == states[0] and states[0][0] == [True, True]
