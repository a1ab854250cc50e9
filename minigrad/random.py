"""Random numbers: PyTorch's CPU generator, stream for stream.

A ``Generator`` is a Mersenne Twister (mt19937) seeded the standard way
(``init_genrand``), as PyTorch's ``CPUGeneratorImpl`` is, and every sampler
below turns its 32-bit words into numbers with the same transform PyTorch
uses (``ATen/core/TransformationHelper.h``, ``ATen/core/DistributionsHelper.h``,
``ATen/native/cpu/DistributionTemplates.h``). So ``mg.manual_seed(s)`` followed
by ``rand``, ``randn``, ``randint``, ``randperm``, ``multinomial``, ``normal_``,
``uniform_``, ``bernoulli_``, ``exponential_`` or a dropout mask gives the very
numbers ``torch.manual_seed(s)`` gives: a lecture notebook prints the lecture's
numbers.

NOTE [ The transforms ] (``u32`` is one 32-bit word, ``u64 = u32_a << 32 | u32_b``):

- uniform float32: ``(u32 & (2**24 - 1)) * 2**-24``; float64: ``(u64 & (2**53 - 1)) * 2**-53``;
  then ``x * (to - from) + from``.
- integers in ``[low, high)``: ``u32 % (high - low) + low`` (``u64`` when the range is 2**32 or more).
- normal, fewer than 16 elements (or not contiguous): Box-Muller on two float64 uniforms,
  ``r = sqrt(-2 log1p(-u2))``, ``theta = 2 pi u1``; returns ``r cos(theta)`` and caches ``r sin(theta)``
  in the generator for the next call (``manual_seed`` clears the cache).
- normal, 16 elements or more: all uniforms first, then Box-Muller over blocks of 16 (the first 8
  against the last 8), the tail redone on 16 fresh uniforms. float32 uses PyTorch's AVX2 polynomials
  (``avx_mathfun.h``, the Cephes ``logf``/``sincosf``, with fused multiply-adds): reproduced here in
  float32 NumPy; float64 uses the C library's ``log``/``cos``/``sin``.
- bernoulli(p): ``uniform64 < p``; exponential(l): ``-log1p(-uniform64) / l``.
- randperm(n): Fisher-Yates from the front, ``swap(i, i + u32 % (n - i))``.
- multinomial: with replacement (and more than one sample) a binary search of each float64 uniform
  in the normalised cumulative sums; otherwise the exponential trick ``argmax/topk(p / Exp(1))``.

Example:
    >>> import minigrad as mg
    >>> g = mg.Generator().manual_seed(2147483647)
    >>> mg.rand(3, generator=g)
    tensor([0.7081, 0.3542, 0.1054])
"""

from __future__ import annotations

import math
import os
import struct
from typing import Any, Callable

import numpy as np

from . import dtypes as _dt
from .devices import backend_of_device, device as _device, is_gpu_available
from .fma import fused_multiply_add
from .dtypes import DType
from .tensor import Tensor

__all__ = [
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
]

#: PyTorch's seed for a generator nobody seeded (``c10::default_rng_seed_val``).
DEFAULT_SEED = 67280421310721
_STATE_BYTES = 5056  # sizeof(CPUGeneratorImplState), the layout torch.get_rng_state() returns


def _mt19937_key(seed: int) -> np.ndarray:
    """The 624-word state of ``init_genrand(seed)`` (the standard mt19937 seeding; low 32 bits of ``seed``)."""
    key = np.empty(624, np.uint32)
    x = seed & 0xFFFFFFFF
    key[0] = x
    for j in range(1, 624):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        key[j] = x
    return key


def _seed_arg(fn: str, seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{fn}(): argument 'seed' must be int, but got {type(seed).__name__}")
    seed = int(seed)
    if not -(2 ** 63) <= seed < 2 ** 64:
        raise RuntimeError(f"Overflow when unpacking long: {fn}() seed must be within [-2**63, 2**64)")
    return seed % 2 ** 64  # negative seeds wrap, as PyTorch's uint64 cast does


#: Called before every draw of every generator, innermost last: ``mg.func.vmap`` puts one here while
#: it runs a function, and with ``randomness="error"`` it refuses the draw (PyTorch's vmap refuses a
#: random op there: each sample would otherwise get its own numbers, or all the same, silently).
DRAW_GUARDS: list[Callable[[], None]] = []


def check_draw() -> None:
    """Run the draw guards (a guard raises to refuse the draw)."""
    for guard in DRAW_GUARDS:
        guard()


class Generator:
    """A random number generator whose streams equal PyTorch's CPU generator's.

    Args:
        device: ``"cpu"``, or ``"cuda"`` for a generator of draws made on the GPU (``CUDAGenerator``:
            minigrad's Philox stream, not PyTorch's CUDA numbers).

    Example:
        >>> import minigrad as mg
        >>> g = mg.Generator().manual_seed(42)
        >>> g.initial_seed()
        42
    """

    def __new__(cls, device: Any = "cpu") -> "Generator":
        if cls is Generator and str(device) in ("cuda", "cuda:0", "gpu"):
            return object.__new__(CUDAGenerator)
        return object.__new__(cls)

    def __init__(self, device: Any = "cpu") -> None:
        if str(device) not in ("cpu",):
            raise RuntimeError(f"Generator(): the device must be 'cpu' or 'cuda', but got {device!r}")
        self._device = "cpu"
        self._bits = np.random.MT19937()  # the twist itself runs in NumPy's C code
        self._set_seed(DEFAULT_SEED)

    # -- seeding and state -------------------------------------------------------------------

    def _set_seed(self, seed: int) -> None:
        self._initial_seed = seed
        self._fresh = True  # seeded, nothing drawn yet (PyTorch's state then reads next = 0)
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": _mt19937_key(seed), "pos": 624}}
        self._next_double_normal: float | None = None  # Box-Muller's second value (the scalar path)
        self._next_float_normal: float | None = None

    def manual_seed(self, seed: int) -> "Generator":
        """Seed the generator (``-2**63 <= seed < 2**64``); returns the generator."""
        self._set_seed(_seed_arg("manual_seed", seed))
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the new seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self._set_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed last set (PyTorch's default ``67280421310721`` for a fresh generator)."""
        return self._initial_seed

    @property
    def device(self) -> Any:
        return self._device

    def get_state(self) -> Tensor:
        """The full state as 5056 bytes (``uint8``), laid out as PyTorch's ``get_state()``."""
        st = self._bits.state["state"]
        key, pos = st["key"], int(st["pos"])
        # THGeneratorState: the_initial_seed, left, seeded, next, state[624] (uint64 each),
        # normal_x, normal_y, normal_rho, normal_is_valid; then the cached float normal and its flag.
        head = struct.pack("<QiiQ", self._initial_seed, 625 - pos, 1, 0 if self._fresh else pos)
        words = key.astype("<u8").tobytes()
        dn, fn = self._next_double_normal, self._next_float_normal
        tail = struct.pack("<dddi4x", 0.0, dn if dn is not None else 0.0, 0.0, dn is not None)
        tail += struct.pack("<f?3x", fn if fn is not None else 0.0, fn is not None)
        data = np.frombuffer(head + words + tail, np.uint8).copy()
        return Tensor._make(data, _dt.uint8)

    def set_state(self, new_state: Any) -> "Generator":
        """Restore a state from ``get_state()`` (minigrad's or PyTorch's bytes); returns the generator."""
        arr = np.asarray(new_state.numpy() if isinstance(new_state, Tensor) else new_state)
        if arr.size != _STATE_BYTES:
            raise RuntimeError(f"set_state(): expected a state of {_STATE_BYTES} bytes, but got {arr.size}")
        raw = arr.astype(np.uint8).tobytes()
        seed, _left, _seeded, pos = struct.unpack_from("<QiiQ", raw, 0)
        key = np.frombuffer(raw, "<u8", 624, 24).astype(np.uint32)
        _x, dn, _rho, dn_valid = struct.unpack_from("<dddi", raw, 24 + 624 * 8)
        fn, fn_valid = struct.unpack_from("<f?", raw, 24 + 624 * 8 + 32)
        self._initial_seed = seed
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 625 - _left}}
        self._fresh = pos == 0
        self._next_double_normal = dn if dn_valid else None
        self._next_float_normal = fn if fn_valid else None
        return self

    def __repr__(self) -> str:
        return f"<minigrad.Generator object, device='cpu', initial_seed={self._initial_seed}>"

    # -- raw words ---------------------------------------------------------------------------

    def random32(self, n: int) -> np.ndarray:
        """``n`` 32-bit words (as uint64), PyTorch's ``generator->random()``; no words (an empty tensor's fill)
        leave the state as it was."""
        if DRAW_GUARDS:
            check_draw()
        if n:
            self._fresh = False
        return self._bits.random_raw(n).astype(np.uint64)

    def random64(self, n: int) -> np.ndarray:
        """``n`` 64-bit words, each two 32-bit words high one first (``random64()``)."""
        w = self.random32(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    # -- uniform -----------------------------------------------------------------------------

    def uniform(self, n: int, dtype: DType, low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """``n`` uniforms in ``[low, high)`` (``uniform_real_distribution<dtype>``)."""
        if dtype.np == np.float64:
            x = (self.random64(n) & np.uint64(2 ** 53 - 1)).astype(np.float64) * 2.0 ** -53
            return fma64(x, float(high) - float(low), float(low)) if (low, high) != (0.0, 1.0) else x
        # float32 keeps 24 bits of a word (float16 too: drawn in float32, then rounded)
        x = (self.random32(n) & np.uint64(2 ** 24 - 1)).astype(np.float32) * np.float32(2.0 ** -24)
        if (low, high) != (0.0, 1.0):
            lo, hi = np.float32(low), np.float32(high)
            x = _fma32(x, np.float32(hi - lo), lo)
        return x.astype(dtype.np, copy=False)

    def uniform_double(self, n: int) -> np.ndarray:
        """``n`` float64 uniforms in [0, 1) (the draws of bernoulli, exponential, multinomial)."""
        return (self.random64(n) & np.uint64(2 ** 53 - 1)).astype(np.float64) * 2.0 ** -53

    # -- normal ------------------------------------------------------------------------------

    def normal(self, n: int, dtype: DType, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        """``n`` normal samples, by PyTorch's two paths (see NOTE [ The transforms ])."""
        if n >= 16:
            return _normal_fill(self, n, dtype, mean, std)
        out = np.empty(n, np.float64)
        for i in range(n):
            out[i] = self.normal_double()
        # a double becomes a Half through float (c10::Half is built from a float): round twice, as there
        out = fma64(out, std, mean)
        return (out.astype(np.float32) if dtype.np == np.float16 else out).astype(dtype.np)

    def normal_double(self) -> float:
        """One standard normal (``normal_distribution<double>``), using the cached twin first."""
        if DRAW_GUARDS:
            check_draw()
        if self._next_double_normal is not None:
            v, self._next_double_normal = self._next_double_normal, None
            return v
        u1, u2 = self.uniform_double(2)
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_double_normal = r * math.sin(theta)
        return r * math.cos(theta)


# -- the vectorised normal path ------------------------------------------------------------------

def _fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 ``a * b + c`` rounded once, as an FMA instruction does."""
    return fused_multiply_add(a, b, c, np.float32)


def fma64(a: Any, b: float, c: float) -> np.ndarray:
    """float64 ``a * b + c`` rounded once (an FMA)."""
    if b == 1.0 and c == 0.0:
        return np.array(a, np.float64)
    return fused_multiply_add(a, b, c, np.float64)


_F = np.float32
_LOG_P = [_F(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
                          -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]


def _log_avx(x: np.ndarray) -> np.ndarray:
    """Cephes' ``logf`` as PyTorch's ``log256_ps`` computes it (x in (0, 1]): exponent and mantissa in
    [sqrt(1/2), sqrt(2)), a degree-9 polynomial, every multiply-add fused."""
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 0x7F).astype(_F) + _F(1)
    m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F)  # mantissa in [0.5, 1)
    small = m < _F(0.707106781186547524)
    m = (m - _F(1)) + np.where(small, m, _F(0))
    e = e - np.where(small, _F(1), _F(0))
    z = m * m
    y = np.full_like(m, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma32(y, m, p)
    y = y * m
    y = _fma32(y, z, e * _F(-2.12194440e-4))
    y = _fma32(-z, _F(0.5), y)
    return _fma32(e, _F(0.693359375), m + y)


_DP = (_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8))


def _sincos_avx(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cephes' ``sincosf`` as PyTorch's ``sincos256_ps`` computes it (x >= 0): reduce by pi/4 in three
    parts, then the sine and cosine polynomials, picked and signed by the octant."""
    j = (x * _F(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F)
    for dp in _DP:
        x = _fma32(y, dp, x)
    sin_neg = (j & 4) != 0
    cos_neg = ((~(j - 2)) & 4) != 0
    use_cos_poly = (j & 2) == 0
    z = x * x
    yc = _fma32(_fma32(np.full_like(z, _F(2.443315711809948E-005)), z, _F(-1.388731625493765E-003)), z,
                _F(4.166664568298827E-002))
    yc = _fma32(yc * z, z, -(z * _F(0.5))) + _F(1)
    ys = _fma32(_fma32(np.full_like(z, _F(-1.9515295891E-4)), z, _F(8.3321608736E-3)), z, _F(-1.6666654611E-1))
    ys = _fma32(ys * z, x, x)
    s = np.where(use_cos_poly, ys, yc)
    c = np.where(use_cos_poly, yc, ys)
    return np.where(sin_neg, -s, s), np.where(cos_neg, -c, c)


def _box_muller_16(blocks: np.ndarray, dtype: np.dtype, mean: float, std: float) -> np.ndarray:
    """Blocks of 16 uniforms -> 16 normals each: ``u1`` from the first 8, ``u2`` from the last 8."""
    if dtype == np.float32:
        u1 = _F(1) - blocks[:, :8]
        radius = np.sqrt(_F(-2) * _log_avx(u1))
        s, c = _sincos_avx(_F(2.0 * math.pi) * blocks[:, 8:])
        m, sd = _F(mean), _F(std)
        return np.concatenate([_fma32(radius * c, sd, m), _fma32(radius * s, sd, m)], axis=1)
    u1 = 1.0 - blocks[:, :8]
    radius = np.sqrt(-2.0 * libm(math.log, u1))
    theta = 2.0 * math.pi * blocks[:, 8:]
    return np.concatenate([fma64(radius * libm(math.cos, theta), std, mean),
                           fma64(radius * libm(math.sin, theta), std, mean)], axis=1)


def libm(fn: Any, x: np.ndarray) -> np.ndarray:
    # The C library's function, element by element: NumPy's own SIMD log/sin/cos can differ from it in
    # the last bit, and PyTorch calls the C library here.
    return np.frompyfunc(fn, 1, 1)(x).astype(np.float64)


def _normal_fill(gen: Generator, n: int, dtype: DType, mean: float, std: float) -> np.ndarray:
    """PyTorch's ``normal_fill``: n uniforms, Box-Muller per block of 16, the tail redone on 16 fresh ones."""
    work = np.float32 if dtype.np != np.float64 else np.float64
    wdt = _dt.float32 if work == np.float32 else _dt.float64
    full = n // 16 * 16
    # float16 draws only the whole blocks before the tail's 16; float32/64 draw all n first
    data = gen.uniform(n, wdt) if dtype.np != np.float16 else np.concatenate([gen.uniform(full, wdt), np.zeros(n - full, work)])
    data[:full] = _box_muller_16(data[:full].reshape(-1, 16), np.dtype(work), mean, std).reshape(-1)
    if n % 16:
        tail = gen.uniform(16, wdt).reshape(1, 16)
        data[n - 16:] = _box_muller_16(tail, np.dtype(work), mean, std).reshape(-1)
    return data.astype(dtype.np, copy=False)


# -- integers, permutations, categories -------------------------------------------------------------

def randint_array(gen: Generator, n: int, low: int, high: int) -> np.ndarray:
    """``n`` integers in ``[low, high)`` as int64 (``uniform_int_from_to_distribution``)."""
    span = high - low
    words = gen.random64(n) if span >= 2 ** 32 else gen.random32(n)
    return (words % np.uint64(span)).astype(np.int64) + np.int64(low)


def randperm_array(gen: Generator, n: int) -> np.ndarray:
    """A permutation of ``0..n-1``: Fisher-Yates from the front, one 32-bit word per step."""
    perm = np.arange(n, dtype=np.int64)
    if n < 2:
        return perm
    words = gen.random32(n - 1) if n < 2 ** 32 else gen.random64(n - 1)
    steps = (words % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
    for i, z in enumerate(steps.tolist()):  # each swap depends on the last: no vectorised form
        j = i + z
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def multinomial_array(gen: Generator, probs: np.ndarray, num_samples: int, replacement: bool) -> np.ndarray:
    """Category indices for each row of ``probs`` (2-D, float32 or float64), as PyTorch's CPU kernel."""
    if not replacement or num_samples == 1:
        # Gumbel-max in its exponential form: argmax/topk of p / q with q ~ Exp(1).
        q = exponential_array(gen, probs.size, probs.dtype, 1.0).reshape(probs.shape)
        keys = probs / q
        if num_samples == 1:
            return np.argmax(keys, axis=1).reshape(-1, 1).astype(np.int64)
        return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples].astype(np.int64)
    rows, k = probs.shape
    out = np.empty((rows, num_samples), np.int64)
    for r in range(rows):
        cum = np.cumsum(probs[r])  # sequential sums in the input's dtype, as the kernel adds
        cum = cum / cum[-1]
        cum[-1] = 1
        u = gen.uniform_double(num_samples)
        # the first slot whose cumulative probability is >= u (cum compared in float64)
        out[r] = np.searchsorted(cum.astype(np.float64), u, side="left")
    return out


def exponential_array(gen: Generator, n: int, dtype: Any, lambd: float) -> np.ndarray:
    """``n`` samples of Exp(lambd): ``-1/lambd * log1p(-u)``, u a float64 uniform."""
    u = gen.uniform_double(n)
    return (-1.0 / lambd * libm(math.log1p, -u)).astype(dtype)


def bernoulli_array(gen: Generator, p: Any, n: int) -> np.ndarray:
    """``n`` draws of ``u < p`` (u a float64 uniform; ``p`` a number or an array of n probabilities)."""
    return gen.uniform_double(n) < p


# -- the default generator ------------------------------------------------------------------------

#: The generator every random function uses when no ``generator=`` is given.
default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (``randn``, ``rand``, ``Dropout``, ``nn.init`` ...) and the device
    generator (the same draws made on a GPU), as ``torch.manual_seed`` seeds every device; returns the
    default generator."""
    gen = default_generator.manual_seed(seed)
    device_generator.manual_seed(gen.initial_seed())
    return gen


# -- draws made on a device ----------------------------------------------------------------------


class DeviceGenerator:
    """The generator of draws made on a device other than the CPU (``mg.cuda.manual_seed``).

    Counter-based (Philox4x32-10, NOTE [ Draws made on the GPU: Philox4x32-10 ] in
    ``kernels/gpu/cuda_src.py``): its whole state is a seed and an offset, and each call's kernel takes
    the next offset, so no state lives on the device and nothing is read back. Its numbers are not the
    CPU generator's (PyTorch's CUDA generator's are not either): ``mg.manual_seed(s)`` makes a program's
    GPU draws repeat, not equal its CPU draws.
    """

    __slots__ = ("_seed", "_offset")

    def __init__(self) -> None:
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> "DeviceGenerator":
        self._seed = _seed_arg("manual_seed", seed) & (2 ** 64 - 1)
        self._offset = 0
        return self

    def initial_seed(self) -> int:
        return self._seed

    def take(self) -> tuple[int, int]:
        """``(seed, offset)`` for one call's kernel; the next call gets the next offset."""
        if DRAW_GUARDS:
            check_draw()
        offset = self._offset
        self._offset = (offset + 1) & (2 ** 64 - 1)
        return self._seed, offset

    def get_state(self) -> Tensor:
        """The seed and the offset as 16 bytes (``uint8``), the layout of PyTorch's CUDA ``get_rng_state()``."""
        return Tensor._make(np.frombuffer(struct.pack("<QQ", self._seed, self._offset), np.uint8).copy(), _dt.uint8)

    def set_state(self, new_state: Any) -> "DeviceGenerator":
        arr = np.asarray(new_state.numpy() if isinstance(new_state, Tensor) else new_state)
        if arr.size != 16:
            raise RuntimeError(f"set_rng_state(): expected a state of 16 bytes, but got {arr.size}")
        self._seed, self._offset = struct.unpack("<QQ", arr.astype(np.uint8).tobytes())
        return self


#: The generator of every draw made on a GPU (``generator=None``).
device_generator = DeviceGenerator()


class CUDAGenerator(Generator):
    """``mg.Generator(device="cuda")``: its own seed and offset for draws made on the GPU (a
    ``DeviceGenerator``), given as ``generator=`` to a random function of a GPU tensor. A draw minigrad
    makes on the host (``randperm``, ``multinomial``...) or for a CPU tensor refuses it, as PyTorch refuses a
    generator of another device."""

    def __init__(self, device: Any = "cuda") -> None:
        if not is_gpu_available():
            raise RuntimeError("Cannot get CUDA generator: minigrad's GPU needs CuPy and a CUDA device "
                               "(pip install -e \".[gpu]\" on a machine with an NVIDIA GPU)")
        self._device = "gpu"
        self._philox = DeviceGenerator()

    def manual_seed(self, seed: int) -> "CUDAGenerator":
        self._philox.manual_seed(seed)
        return self

    def seed(self) -> int:
        s = int.from_bytes(os.urandom(8), "little")
        self._philox.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._philox.initial_seed()

    @property
    def device(self) -> Any:
        return _device("cuda", 0)

    def get_state(self) -> Tensor:
        return self._philox.get_state()

    def set_state(self, new_state: Any) -> "CUDAGenerator":
        self._philox.set_state(new_state)
        return self

    def __repr__(self) -> str:
        return f"<minigrad.Generator object, device='cuda', initial_seed={self.initial_seed()}>"

    def _on_the_host(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Expected a 'cpu' device type for generator but found 'cuda'")

    # every draw made on the host goes through one of these
    random32 = random64 = uniform = uniform_double = normal = normal_double = _on_the_host


def device_draws(kind: str, shape: tuple[int, ...], np_dtype: Any, device: str, *numbers: Any,
                 generator: Any = None) -> Any:
    """Draws of ``kind`` (``"uniform"``, ``"normal"``, ``"bernoulli"``, ``"randint"``, ``"exponential"``,
    ``"cauchy"``, ``"log_normal"``, ``"geometric"``, with the
    distribution's ``numbers``) made on ``device`` from ``device_generator`` (or from ``generator``, a
    ``CUDAGenerator``), as an array of ``shape``; ``None`` on the CPU, for a CPU ``generator`` (its draws
    are made on the host), for a dtype the device's kernels do not write, or on a backend without such
    kernels (the caller then draws on the host and the draws are copied)."""
    source = device_generator if generator is None else getattr(generator, "_philox", None)
    if device == "cpu" or source is None or np.dtype(np_dtype).name == "bfloat16":
        return None
    make = backend_of_device(device).made.get(kind)
    if make is None:
        return None
    n = 1
    for d in shape:
        n *= int(d)
    return make(n, np_dtype, *source.take(), *numbers).reshape(shape)


def seed() -> int:
    """Seed the default generator (and the device generator) from the operating system's entropy;
    returns the seed."""
    s = default_generator.seed()
    device_generator.manual_seed(s)
    return s


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (5056 ``uint8`` bytes, PyTorch's layout)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


def generator_arg(fn: str, generator: Any) -> Generator:
    """``generator=`` of a random function: a ``Generator`` or None (the default generator)."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}")
    return generator
