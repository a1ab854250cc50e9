"""CUDA C sources of minigrad's hand-written GPU kernels (pure strings: no CuPy import).

Every kernel is generated here, per dtype, as a self-contained ``extern "C"``
translation unit - no ``#include`` - so the same text is compiled by CuPy
(NVRTC, at first use) and by ``nvcc --ptx`` in the test suite on machines
without a GPU (``tests/gpu/test_cuda_sources.py``).

Types. ``T`` is the storage type, ``ACC`` the type arithmetic is done in:

============  ===================  =======
minigrad      T                    ACC
============  ===================  =======
float16       ``unsigned short``   float
float32       ``float``            float
float64       ``double``           double
============  ===================  =======

float16 values are stored as raw 16-bit patterns and converted with the
PTX ``cvt`` instructions, which needs no ``cuda_fp16.h``.

Families:

- **elementwise** (``ew_source``): one thread per output element in a
  grid-stride loop; a *contiguous* variant (all operands have the output's
  shape and are C-contiguous - the fast path) and a *strided* variant that
  computes each operand's offset from the output index, with stride 0 on
  broadcast dimensions (no broadcast copies).
- **reduce** (``reduce_source``): a row of ``cols`` values per block (or a
  chunk of a long row, then a second pass over the partials), read with
  16-byte vector loads (``_segment_loop``), each thread a strided partial,
  then a warp-shuffle tree and one shared-memory step.
- **logsumexp** (``lse_source``): the same geometry, one pass with an online
  (max, scaled sum) state per thread, merged pairwise.
- **softmax / log_softmax / cross_entropy** (``softmax_source``): one block
  per row: a max pass, a sum-of-exp pass, a write pass.
- **matmul** (``matmul_source``): the classic tiled kernel - 16x16 output
  tiles, A and B tiles staged through shared memory, batched over grid z.
"""

from __future__ import annotations

from typing import Iterator

__all__ = [
    "DTYPES", "UNARY", "BINARY", "COMPARE", "TEST", "PARAM", "TERNARY", "PARAMS", "ARITY", "REDUCE", "set_elementwise_expression", "ew_source", "reduce_source", "lse_source", "softmax_source",
    "matmul_source", "all_sources", "kernel_name",
]

#: minigrad dtype name -> (T, ACC, C suffix)
DTYPES: dict[str, tuple[str, str, str]] = {
    "float16": ("unsigned short", "float", "f16"),
    "float32": ("float", "float", "f32"),
    "float64": ("double", "double", "f64"),
}

_PRELUDE = r"""
// cvt.f32.f16 gives a -NaN half the positive NaN (signbit of a float16 -nan was False on an H200): the half's
// sign bit is put back after it, and the float's after the narrowing cvt (a no-op for every other value, whose
// sign cvt keeps), so a NaN keeps its sign through both, as NumPy's and PyTorch's CPU conversions keep it.
__device__ __forceinline__ float mg_h2f(unsigned short h) {
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return __uint_as_float(__float_as_uint(f) | ((unsigned int)(h & 0x8000u) << 16));
}
__device__ __forceinline__ unsigned short mg_f2h(float f) {
    unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return (unsigned short)(h | ((__float_as_uint(f) >> 16) & 0x8000u));
}
__device__ __forceinline__ float mg_load(const unsigned short* p, long long i) { return mg_h2f(p[i]); }
__device__ __forceinline__ float mg_load(const float* p, long long i) { return p[i]; }
__device__ __forceinline__ double mg_load(const double* p, long long i) { return p[i]; }
__device__ __forceinline__ void mg_store(unsigned short* p, long long i, float v) { p[i] = mg_f2h(v); }
__device__ __forceinline__ void mg_store(float* p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void mg_store(double* p, long long i, double v) { p[i] = v; }
__device__ __forceinline__ float mg_inf(float) { return __int_as_float(0x7f800000); }
__device__ __forceinline__ double mg_inf(double) { return __longlong_as_double(0x7ff0000000000000LL); }
"""

# Math in ACC: the float and double spellings of each function.
_F = {
    "float": {"exp": "expf", "log": "logf", "sqrt": "sqrtf", "fabs": "fabsf", "sin": "sinf", "cos": "cosf",
              "tanh": "tanhf", "erf": "erff", "pow": "powf", "rsqrt": "rsqrtf", "log1p": "log1pf", "expm1": "expm1f",
              "floor": "floorf", "ceil": "ceilf", "trunc": "truncf", "rint": "rintf"},
    "double": {"exp": "exp", "log": "log", "sqrt": "sqrt", "fabs": "fabs", "sin": "sin", "cos": "cos",
               "tanh": "tanh", "erf": "erf", "pow": "pow", "rsqrt": "rsqrt", "log1p": "log1p", "expm1": "expm1",
               "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint"},
}
for _name in ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10", "exp2", "atan2",
              "copysign", "fmod", "hypot", "erfinv", "erfc", "lgamma"):
    _F["float"][_name], _F["double"][_name] = _name + "f", _name

# Device functions the elementwise expressions may call, in ACC (PyTorch's CUDA formulas, with their edge cases).
_HELPERS = r"""
__device__ __forceinline__ ACC mg_remainder(ACC a, ACC b) {{
    const ACC r = {fmod}(a, b);  // the sign of b, as Python's %
    return (r != (ACC)0 && ((r < (ACC)0) != (b < (ACC)0))) ? r + b : r;
}}
__device__ __forceinline__ ACC mg_floor_divide(ACC a, ACC b) {{
    if (b == (ACC)0) return a / b;
    const ACC mod = {fmod}(a, b);
    ACC div = (a - mod) / b;
    if (mod != (ACC)0 && ((b < (ACC)0) != (mod < (ACC)0))) div -= (ACC)1;
    if (div == (ACC)0) return {copysign}((ACC)0, a / b);
    ACC f = {floor}(div);
    if (div - f > (ACC)0.5) f += (ACC)1;
    return f;
}}
__device__ __forceinline__ bool mg_isinf(ACC a) {{ return a == a && (a - a) != (a - a); }}
__device__ __forceinline__ ACC mg_logaddexp(ACC a, ACC b) {{
    if (a == b && mg_isinf(a)) return a;  // exp(inf - inf) would be NaN
    const ACC m = a > b ? a : b;
    return m + {log1p}({exp}(-{fabs}(a - b)));
}}
__device__ __forceinline__ ACC mg_xlogy(ACC a, ACC b) {{
    if (b != b) return b;
    return a == (ACC)0 ? (ACC)0 : a * {log}(b);
}}
__device__ __forceinline__ ACC mg_logit(ACC a, double eps) {{
    if (eps >= 0) {{  // PyTorch passes eps.value_or(-1): a negative eps, or none (NaN), clamps nothing
        const ACC lo = (ACC)eps, hi = (ACC)1 - (ACC)eps;
        a = a < lo ? lo : (a > hi ? hi : a);
    }}
    return {log}(a / ((ACC)1 - a));
}}
__device__ __forceinline__ ACC mg_round_decimals(ACC a, double decimals) {{
    // PyTorch's round.decimals: rint(a * 10^d) / 10^d, or rint(a / 10^-d) * 10^-d for a negative d;
    // without decimals (NaN) or with 0, round's rint
    if (decimals != decimals || decimals == 0) return {rint}(a);
    const ACC ten_pow = (ACC)pow(10.0, decimals < 0 ? -decimals : decimals);
    return decimals < 0 ? {rint}(a / ten_pow) * ten_pow : {rint}(a * ten_pow) / ten_pow;
}}
__device__ __forceinline__ ACC mg_sinc(ACC a) {{
    if (a == (ACC)0) return (ACC)1;
    const ACC product = (ACC)3.14159265358979323846 * a;
    return {sin}(product) / product;
}}
__device__ __forceinline__ ACC mg_binary_cross_entropy(ACC x, ACC t) {{
    ACC log_x = {log}(x), log_1mx = {log1p}(-x);
    log_x = log_x > (ACC)-100 ? log_x : (ACC)-100;  // each log clamped at -100, as PyTorch
    log_1mx = log_1mx > (ACC)-100 ? log_1mx : (ACC)-100;
    return (t - (ACC)1) * log_1mx - t * log_x;
}}
// The gamma family (ops/gamma.py), in double whatever ACC is: digamma pushed up to 10, then its asymptotic
// series (reflected below 0); trigamma the same way from 1/2; higher orders (-1)^(n+1) n! zeta(n + 1, x), the
// Hurwitz zeta by Euler-Maclaurin summation (terms (2k)! / B_2k).
__device__ double mg_digamma_d(double x) {{
    const double pi = 3.14159265358979323846;
    if (x == 0) return copysign(__longlong_as_double(0x7ff0000000000000LL), -x);  // -inf at +0, inf at -0
    double result = 0;
    if (x < 0) {{
        if (x == trunc(x)) return __longlong_as_double(0x7ff8000000000000LL);  // NaN at the poles
        result = -pi / tan(pi * (x - trunc(x)));
        x = 1 - x;
    }}
    while (x < 10) {{ result -= 1 / x; x += 1; }}
    if (x == 10) return result + 2.25175258906672110764;  // psi(10)
    const double z = 1 / (x * x);
    const double y = x < 1.0e17 ? z * ((((((1.0 / 12 * z - 691.0 / 32760) * z + 1.0 / 132) * z - 1.0 / 240) * z
                                        + 1.0 / 252) * z - 1.0 / 120) * z + 1.0 / 12) : 0.0;
    return result + log(x) - 0.5 / x - y;
}}
__device__ double mg_trigamma_d(double x) {{
    const double pi = 3.14159265358979323846;
    double sign = 1, result = 0;
    if (x < 0.5) {{
        const double s = sin(pi * x);
        sign = -1;
        result = -pi * pi / (s * s);
        x = 1 - x;
    }}
    for (int i = 0; i < 6; ++i) {{ result += 1 / (x * x); x += 1; }}
    const double ixx = 1 / (x * x);
    result += (1 + 1 / (2 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x;
    return sign * result;
}}
__device__ double mg_zeta_d(double s, double q) {{
    const double eps = 1.11022302462515654042e-16;
    const double terms[12] = {{12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1892437580.3183792, 74724249600.0,
                               -2950130727918.164, 116467828143500.67, -4597978722407473.0, 1.8152105401943546e+17,
                               -7.166165256175667e+18}};
    if (q <= 0 && q == trunc(q)) return __longlong_as_double(0x7ff0000000000000LL);
    double total = pow(q, -s), a = q, b = 0;
    int i = 0;
    while (i < 9 || a <= 9) {{
        i += 1; a += 1; b = pow(a, -s); total += b;
        if (-eps * total < b && b < eps * total) return total;
    }}
    const double w = a;
    total += b * w / (s - 1) - 0.5 * b;
    double f = 1, k = 0;
    for (int j = 0; j < 12; ++j) {{
        f *= s + k; b /= w;
        const double t = f * b / terms[j];
        total += t;
        if (fabs(t / total) < eps) return total;
        k += 1; f *= s + k; b /= w; k += 1;
    }}
    return total;
}}
__device__ __forceinline__ ACC mg_digamma(ACC a) {{ return (ACC)mg_digamma_d((double)a); }}
__device__ ACC mg_polygamma(double n, ACC a) {{
    if (n == 0) return (ACC)mg_digamma_d((double)a);
    if (n == 1) return (ACC)mg_trigamma_d((double)a);
    const double sign = fmod(n, 2.0) == 1 ? 1.0 : -1.0;
    return (ACC)(sign * exp(lgamma(n + 1)) * mg_zeta_d(n + 1, (double)a));
}}
__device__ ACC mg_mvlgamma(ACC a, double p) {{
    double out = p * (p - 1) / 4 * log(3.14159265358979323846);
    for (int j = 0; j < (int)p; ++j) out += lgamma((double)a - j / 2.0);
    return (ACC)out;
}}
__device__ __forceinline__ bool mg_signbit(float a) {{ return __float_as_int(a) < 0; }}
__device__ __forceinline__ bool mg_signbit(double a) {{ return __double_as_longlong(a) < 0; }}
"""

# The elementwise templates' tables are filled from the op definitions: an op's file
# gives its expression (``defop(..., gpu=("unary", "{exp}(a)"))``, the OpDef field
# ``gpu_elementwise``) and ``defop`` files it here with ``set_elementwise_expression``.

#: unary ops: expression of ``a`` (ACC) with ``{fn}`` placeholders for math functions
UNARY: dict[str, str] = {}

#: binary ops on ``a`` and ``b`` (NaN-propagating maximum/minimum, as NumPy)
BINARY: dict[str, str] = {}

#: comparisons: bool output
COMPARE: dict[str, str] = {}

#: tests of one value: bool output (``isnan``: ``a != a``)
TEST: dict[str, str] = {}

#: ops with number attributes (``leaky_relu``'s ``negative_slope``, ``lerp``'s ``weight``) of one or two
#: inputs (``a``, ``b``): the expression reads the numbers as ``p0``, ``p1``, ``p2`` (doubles passed by value,
#: in the order of ``PARAMS[op]``, the op's attribute names; 0 where the op has fewer)
PARAM: dict[str, str] = {}

#: ops of three inputs ``a``, ``b``, ``c`` (``addcmul``), reading their number attributes as ``param`` ops do
TERNARY: dict[str, str] = {}

#: the attribute names a ``param`` or ``ternary`` expression reads as ``p0``, ``p1``, ``p2``
PARAMS: dict[str, tuple[str, ...]] = {}

#: how many inputs a ``param`` or ``ternary`` op's kernel reads
ARITY: dict[str, int] = {}

_EW_TABLES = {"unary": UNARY, "binary": BINARY, "compare": COMPARE, "test": TEST, "param": PARAM, "ternary": TERNARY}
#: kinds whose kernels take the op's numbers (p0, p1, p2) and read ``ARITY[op]`` inputs
_NUMBER_KINDS = ("param", "ternary")


def set_elementwise_expression(op: str, kind: str, expression: str, params: tuple[str, ...] = (),
                               arity: int = 1) -> None:
    """File ``op``'s GPU expression under ``kind`` (``unary``, ``binary``, ``compare``, ``test``, ``param``,
    ``ternary``) for the templates; ``params``: the attribute names a ``param`` or ``ternary`` expression reads
    as ``p0``, ``p1``, ``p2``; ``arity``: the op's number of tensor inputs."""
    if kind not in _EW_TABLES:
        raise ValueError(f"GPU elementwise kind must be one of {', '.join(_EW_TABLES)}, got {kind!r}")
    if kind == "param" and not (1 <= len(params) <= 3 and arity in (1, 2)):
        raise ValueError(f"a 'param' GPU expression reads one to three attributes of one or two inputs, got "
                         f"{params!r} and {arity} inputs")
    if kind == "ternary" and not (len(params) <= 3 and arity == 3):
        raise ValueError(f"a 'ternary' GPU expression reads three inputs and at most three attributes, got "
                         f"{params!r} and {arity} inputs")
    for table in _EW_TABLES.values():
        table.pop(op, None)
    _EW_TABLES[kind][op] = expression
    if kind in _NUMBER_KINDS:
        PARAMS[op] = tuple(params)
        ARITY[op] = arity


#: reductions: (identity, combine(p, q), map(v) where ``aux`` is a per-row value, post(acc));
#: logsumexp has its own one-pass kernels (``lse_source``)
REDUCE: dict[str, tuple[str, str, str, str]] = {
    "sum": ("(ACC)0", "p + q", "v", "acc"),
    "mean": ("(ACC)0", "p + q", "v", "acc * (ACC)scale"),
    "max": ("-mg_inf((ACC)0)", "(p != p || p > q) ? p : q", "v", "acc"),
    "min": ("mg_inf((ACC)0)", "(p != p || p < q) ? p : q", "v", "acc"),
    # the sum of squared deviations from the row's mean (``aux``), times ``scale``: batch norm's biased variance
    "sq_dev": ("(ACC)0", "p + q", "(v - aux[row]) * (v - aux[row])", "acc * (ACC)scale"),
    # the mean of the row shifted by its first element: a row of equal values has exactly 0 (var's ``aux``); the
    # first element is read with mg_load, as every value: a float16 is a raw ``unsigned short``, which a cast
    # ``(ACC)x[i]`` would convert as an integer (1.0, 0x3c00, as 15360)
    "mean_shifted": ("(ACC)0", "p + q", "v - mg_load(x, row * cols)", "acc * (ACC)scale"),
    # var/std: the squared deviations of the shifted row from its mean (``aux``, in ACC), times 1 / (N - correction):
    # exactly 0 for a row of equal values, as PyTorch's Welford gives
    "var": ("(ACC)0", "p + q", "(v - mg_load(x, row * cols) - aux[row]) * (v - mg_load(x, row * cols) - aux[row])",
            "acc * (ACC)scale"),
    "std": ("(ACC)0", "p + q", "(v - mg_load(x, row * cols) - aux[row]) * (v - mg_load(x, row * cols) - aux[row])",
            "{sqrt}(acc * (ACC)scale)"),
}


def kernel_name(family: str, op: str, dtype: str, variant: str = "") -> str:
    """The C name of a generated kernel, e.g. ``mg_ew_add_f32_contig``."""
    suffix = DTYPES[dtype][2]
    return f"mg_{family}_{op}_{suffix}" + (f"_{variant}" if variant else "")


def _math(expr: str, acc: str) -> str:
    return expr.format(**_F[acc])


# -- elementwise ------------------------------------------------------------------


def ew_source(op: str, dtype: str, kind: str) -> str:
    """Source of the elementwise kernels of ``op`` (``kind``: unary, binary, compare, test, param, ternary,
    where, clip).

    Defines ``<name>_contig`` and ``<name>_strided`` (and, for unary, binary,
    param, ternary and clip, ``<name>_vec``: the contiguous kernel with 16-byte vector
    loads, for 16-byte-aligned operands; for binary and compare,
    ``<name>_scalar0``/``_scalar1``: one operand a number passed by value,
    see ``_scalar_variants``). Arguments: the inputs,
    the output, ``n`` (elements); the strided variant then ``ndim`` and
    ``meta`` = output shape followed by each input's strides (in elements).
    """
    T, ACC, _ = DTYPES[dtype]
    name = kernel_name("ew", op, dtype)
    if kind == "unary":
        ins, out_t, body = [("x", T)], T, f"ACC a = mg_load(x, ix0); mg_store(out, i, (ACC)({_math(UNARY[op], ACC)}));"
    elif kind == "binary":
        ins, out_t = [("x", T), ("y", T)], T
        body = f"ACC a = mg_load(x, ix0); ACC b = mg_load(y, ix1); mg_store(out, i, (ACC)({_math(BINARY[op], ACC)}));"
    elif kind == "compare":
        ins, out_t = [("x", T), ("y", T)], "bool"
        body = f"ACC a = mg_load(x, ix0); ACC b = mg_load(y, ix1); out[i] = ({COMPARE[op]});"
    elif kind == "test":
        ins, out_t, body = [("x", T)], "bool", f"ACC a = mg_load(x, ix0); out[i] = ({_math(TEST[op], ACC)});"
    elif kind in _NUMBER_KINDS:
        ins, out_t = [("x", T), ("y", T), ("z", T)][:ARITY[op]], T
        loads = "".join(f"ACC {v} = mg_load({n}, ix{k}); " for k, (v, (n, _)) in enumerate(zip("abc", ins)))
        body = f"{loads}mg_store(out, i, (ACC)({_math(_EW_TABLES[kind][op], ACC)}));"
    elif kind == "where":
        ins, out_t = [("c", "bool"), ("x", T), ("y", T)], T
        body = "out[i] = c[ix0] ? x[ix1] : y[ix2];"
    elif kind == "clip":
        ins, out_t = [("x", T)], T
        body = "ACC a = mg_load(x, ix0); a = a < (ACC)lo ? (ACC)lo : a; a = a > (ACC)hi ? (ACC)hi : a; mg_store(out, i, a);"
    else:  # pragma: no cover
        raise ValueError(kind)
    numbers = ", const double p0, const double p1, const double p2"
    extra = {"clip": ", const double lo, const double hi", "param": numbers, "ternary": numbers}.get(kind, "")
    params = ", ".join(f"const {t}* __restrict__ {n}" for n, t in ins) + f", {out_t}* __restrict__ out, const long long n"
    contig_idx = "".join(f"const long long ix{k} = i; " for k in range(len(ins)))
    nin = len(ins)
    strided_idx = (
        "long long rem = i; "
        + "".join(f"long long ix{k} = 0; " for k in range(nin))
        + "for (int d = ndim - 1; d >= 0; --d) { const long long s = meta[d]; const long long c = rem % s; rem /= s; "
        + "".join(f"ix{k} += c * meta[{k + 1} * ndim + d]; " for k in range(nin))
        + "}"
    )
    vec = ""
    if kind in ("unary", "binary", "clip", "param", "ternary"):
        # The vector variant: 16-byte loads and stores (4 floats, 2 doubles, 8 halves per access), the widest
        # a thread can issue. A memory-bound kernel reaches the bandwidth it can only with enough bytes in
        # flight; one scalar per thread leaves most of the memory system idle. Needs 16-byte-aligned pointers.
        vec_ptrs = "".join(f"const mg_vec* {n}v = reinterpret_cast<const mg_vec*>({n}); " for n, _ in ins)
        vec_loads = "".join(f"const mg_vec {n}r = {n}v[k]; " for n, _ in ins)
        vec_names = "".join(f"const TS* {n} = {n}r.v; " for n, _ in ins)
        vec = f"""
extern "C" __global__ void {name}_vec({params}{extra}) {{
    {vec_ptrs}mg_vec* outv = reinterpret_cast<mg_vec*>(out);
    const long long nv = n / VEC, step = (long long)blockDim.x * gridDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < nv; k += step) {{
        {vec_loads}mg_vec o;
        {{
            {vec_names}TS* out = o.v;
            #pragma unroll
            for (int e = 0; e < VEC; ++e) {{ const long long i = e; {"".join(f"const long long ix{k} = e; " for k in range(len(ins)))}{body} }}
        }}
        outv[k] = o;
    }}
    for (long long i = nv * VEC + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {{
        {contig_idx}{body}
    }}
}}
"""
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{_math(_HELPERS, ACC)}
{_VEC_TYPES.format(T=T)}
{vec}
extern "C" __global__ void {name}_contig({params}{extra}) {{
    if (n <= 0x7fffffffLL) {{
        // 32-bit indices when they suffice: cheaper address arithmetic in the hot loop
        const unsigned int n32 = (unsigned int)n, step = blockDim.x * gridDim.x;
        for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n32; i += step) {{
            {contig_idx}{body}
        }}
        return;
    }}
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
        {contig_idx}{body}
    }}
}}
extern "C" __global__ void {name}_strided({params}, const int ndim, const long long* __restrict__ meta{extra}) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
        {strided_idx}
        {body}
    }}
}}
{_scalar_variants(name, kind, ins, out_t, body)}"""


# NOTE [ Dividing by a number on the GPU ]
# PyTorch CUDA divides a tensor by a number (a CPU scalar) as a multiplication by its reciprocal, computed
# once in the op math type (aten/src/ATen/native/cuda/BinaryDivTrueKernel.cu: "compute a * reciprocal(b)...
# may lose one bit of precision"), where its CPU kernel divides. The two differ in the last bit of some
# elements, so minigrad's GPU does as PyTorch CUDA does: ``div``'s ``_scalar1`` variant and the optimizers'
# multi-tensor ``div`` by a number (``optim_src.mt_source``) multiply by ``(ACC)1 / b``.


def _scalar_variants(name: str, kind: str, ins: list[tuple[str, str]], out_t: str, body: str) -> str:
    """``<name>_scalar0`` / ``_scalar1`` of a binary or compare op: that operand is a number passed by
    value (``const double``, holding the value already rounded to the operand's dtype, so ``(ACC)`` of it is
    what loading the 0-d array would give), the other a contiguous array of the output's size. ``x * 0.5``
    then reads one array, and the number reaches the kernel as an argument (no device memory, no copy)."""
    if kind not in ("binary", "compare"):
        return ""
    out = []
    for k, (arg, t) in enumerate(ins):
        params = ", ".join(f"const double {n}s" if j == k else f"const {tt}* __restrict__ {n}"
                           for j, (n, tt) in enumerate(ins)) + f", {out_t}* __restrict__ out, const long long n"
        kbody = body.replace(f"mg_load({arg}, ix{k})", f"(ACC){arg}s")
        if name.startswith("mg_ew_div_") and k == 1:  # NOTE [ Dividing by a number on the GPU ]
            kbody = kbody.replace("(ACC)(a / b)", "(ACC)(a * ((ACC)1 / b))")
            assert "((ACC)1 / b)" in kbody, kbody
        idx = "".join(f"const long long ix{j} = i; " for j in range(len(ins)) if j != k)
        out.append(f"""
extern "C" __global__ void {name}_scalar{k}({params}) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
        {idx}{kbody}
    }}
}}
""")
    return "".join(out)


# -- a row segment read with 16-byte loads (reductions) ---------------------------------------


def _segment_loop(ptr: str, start: str, stop: str, stmt: str, vec_stmt: str | None = None) -> str:
    """CUDA code that runs ``stmt`` (which reads ``ACC v``) for each element of ``ptr[start:stop]``, block-wide.

    The segment is read as a scalar head up to the first 16-byte boundary,
    then 16-byte vectors (``mg_vec``: VEC elements each), then a scalar
    tail - so every thread has 16 bytes in flight per load, whatever the
    segment's alignment. Needs ``TS``, ``VEC`` and ``mg_vec`` (``_VEC_TYPES``).
    ``vec_stmt``, if given, handles a whole vector ``r`` at once instead of
    ``stmt`` per element (logsumexp rescales once per vector).
    """
    per_vec = {k: ((vec_stmt if k == "r" else f"{{ const mg_vec& r = {k}; {vec_stmt} }}") if vec_stmt else
                   f"#pragma unroll\n            for (int e = 0; e < VEC; ++e) {{{{ ACC v = mg_load({k}.v, e); {stmt} }}}}")
               for k in ("r0", "r1", "r")}
    return f"""{{
        const TS* seg = {ptr};
        const long long seg_start = {start}, seg_stop = {stop};
        long long head = (long long)(((16 - ((unsigned long long)(seg + seg_start) & 15)) & 15) / sizeof(TS));
        if (head > seg_stop - seg_start) head = seg_stop - seg_start;
        for (long long j = seg_start + threadIdx.x; j < seg_start + head; j += blockDim.x) {{ ACC v = mg_load(seg, j); {stmt} }}
        const long long vbeg = seg_start + head, nvec = (seg_stop - vbeg) / VEC;
        const mg_vec* segv = reinterpret_cast<const mg_vec*>(seg + vbeg);
        long long k = threadIdx.x;
        for (; k + blockDim.x < nvec; k += 2 * (long long)blockDim.x) {{   // two 16-byte loads in flight
            const mg_vec r0 = segv[k], r1 = segv[k + blockDim.x];
            {per_vec["r0"]}
            {per_vec["r1"]}
        }}
        for (; k < nvec; k += blockDim.x) {{
            const mg_vec r = segv[k];
            {per_vec["r"]}
        }}
        for (long long j = vbeg + nvec * VEC + threadIdx.x; j < seg_stop; j += blockDim.x) {{ ACC v = mg_load(seg, j); {stmt} }}
    }}"""


#: the storage type ``TS`` and its 16-byte vector ``mg_vec`` (VEC elements)
_VEC_TYPES = """
typedef {T} TS;
constexpr int VEC = 16 / sizeof(TS);
struct __align__(16) mg_vec {{ TS v[VEC]; }};
"""


# -- reductions ----------------------------------------------------------------------

_BLOCK_REDUCE = r"""
// Reduce v over the block (blockDim.x a power of two >= 32); the result is valid in thread 0.
__device__ __forceinline__ ACC mg_block_{tag}(ACC v, ACC* shared) {{
    for (int o = 16; o > 0; o >>= 1) {{ ACC q = __shfl_down_sync(0xffffffffu, v, o); ACC p = v; v = ({combine}); }}
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    const int nwarps = blockDim.x >> 5;
    v = (threadIdx.x < nwarps) ? shared[threadIdx.x] : ({identity});
    if (warp == 0) {{
        for (int o = 16; o > 0; o >>= 1) {{ ACC q = __shfl_down_sync(0xffffffffu, v, o); ACC p = v; v = ({combine}); }}
    }}
    __syncthreads();
    return v;
}}
"""


#: ``mg_block_sum``: the block reduction every kernel that sums a row or a block's share uses
BLOCK_SUM = _BLOCK_REDUCE.format(tag="sum", combine="p + q", identity="(ACC)0")


#: the (row, chunk) a block reduces, and the segment [start, stop) of the row's elements it covers
_ROW_CHUNK = """    __shared__ ACC shared[32];
    const long long idx = blockIdx.x;            // = row * chunks + chunk
    const long long row = idx / chunks, chunk = idx % chunks;
    const long long start = chunk * chunk_len;
    long long stop = start + chunk_len; if (stop > cols) stop = cols;
    const long long base = row * cols;"""


def reduce_source(op: str, dtype: str) -> str:
    """Source of the row reductions of ``op`` (sum, mean, max, min, lse).

    Four kernels, each reducing ``x`` viewed as ``rows x cols`` (a block per
    (row, chunk), ``chunks`` chunks of ``chunk_len`` per row):

    - ``<name>_single``: T in, T out, chunked rows in one launch (the last
      block of a row combines the row's partials);
    - ``<name>_final``: T in, T out, post-op applied (one chunk per row);
    - ``<name>_partial``: T in, ACC partials out (``rows x chunks``);
    - ``<name>_combine``: ACC partials in, T out, post-op applied.
    """
    T, ACC, _ = DTYPES[dtype]
    identity, combine, mapping, post = (_math(s, ACC) for s in REDUCE[op])
    # the combine of partials: lse's partials are sums
    name = kernel_name("reduce", op, dtype)
    block = _BLOCK_REDUCE.format(tag="reduce", combine=combine, identity=identity)

    def kernel(suffix: str, in_t: str, out_t: str, mapped: str, apply_post: bool) -> str:
        result = post if apply_post else "acc"
        store = "mg_store(out, idx, (ACC)(r));" if out_t == T else "out[idx] = r;"
        stmt = f"ACC q = ({mapped}); p = ({combine});"
        if in_t == T:  # read the input with 16-byte vector loads
            loop = _segment_loop("x + base", "start", "stop", stmt)
        else:  # the partials (ACC): few, scalar
            loop = f"for (long long j = start + threadIdx.x; j < stop; j += blockDim.x) {{ ACC v = x[base + j]; {stmt} }}"
        return f"""
extern "C" __global__ void {name}_{suffix}(const {in_t}* __restrict__ x, {out_t}* __restrict__ out,
        const {ACC}* __restrict__ aux, const long long rows, const long long cols, const long long chunks,
        const long long chunk_len, const double scale) {{
{_ROW_CHUNK}
    ACC p = ({identity});
    {loop}
    ACC acc = mg_block_reduce(p, shared);
    if (threadIdx.x == 0) {{ ACC r = ({result}); {store} }}
}}
"""

    single_loop = _segment_loop("x + base", "start", "stop", f"ACC q = ({mapping}); p = ({combine});")
    single = f"""
// One launch for a chunked row: every block writes its partial; the last block of the row to finish (counted
// with an atomic ticket) combines the row's partials in index order - deterministic - and resets the ticket.
extern "C" __global__ void {name}_single(const {T}* __restrict__ x, {T}* __restrict__ out, ACC* partial,
        unsigned int* ticket, const {ACC}* __restrict__ aux, const long long rows, const long long cols,
        const long long chunks, const long long chunk_len, const double scale) {{
    __shared__ bool last;
{_ROW_CHUNK}
    ACC p = ({identity});
    {single_loop}
    ACC acc = mg_block_reduce(p, shared);
    if (threadIdx.x == 0) {{
        partial[idx] = acc;
        __threadfence();                         // the partial is visible before the ticket is taken
        last = atomicAdd(&ticket[row], 1u) == (unsigned int)(chunks - 1);
    }}
    __syncthreads();
    if (!last) return;
    const volatile ACC* pv = partial + row * chunks;
    p = ({identity});
    for (long long j = threadIdx.x; j < chunks; j += blockDim.x) {{ ACC q = pv[j]; p = ({combine}); }}
    acc = mg_block_reduce(p, shared);
    if (threadIdx.x == 0) {{ ACC r = ({post}); mg_store(out, row, (ACC)(r)); ticket[row] = 0u; }}
}}
"""
    return (
        f"{_PRELUDE}\ntypedef {ACC} ACC;\n{_VEC_TYPES.format(T=T)}{block}"
        + single
        + kernel("final", T, T, mapping, True)
        + kernel("partial", T, ACC, mapping, False)
        + kernel("combine", ACC, T, "v", True)
    )


# -- logsumexp in one pass -------------------------------------------------------------------

_LSE_HELPERS = r"""
// Online log-sum-exp: the state (m, s) stands for s * exp(m). Adding v keeps m the running max.
__device__ __forceinline__ void mg_lse_add(ACC& m, ACC& s, ACC v) {{
    if (v == -mg_inf((ACC)0)) return;            // exp(-inf) = 0 adds nothing
    if (v > m) {{ s = (m == -mg_inf((ACC)0) ? (ACC)0 : s * {exp}(m - v)) + (ACC)1; m = v; }}
    else if (v == m) s += (ACC)1;                 // also +inf == +inf and -inf == -inf (no inf - inf)
    else s += {exp}(v - m);                       // NaN v: s becomes NaN, as it should
}}
// A whole vector at once: one rescale to the vector's max, then VEC independent exps (no dependent chain
// through m per element; in float, the hardware's fast exp: its arguments are <= 0, the terms <= 1). NaN, +inf or an all -inf vector take the per-element path above.
__device__ __forceinline__ void mg_lse_add_vec(ACC& m, ACC& s, const mg_vec& r) {{
    ACC vm = -mg_inf((ACC)0); bool plain = true;
    #pragma unroll
    for (int e = 0; e < VEC; ++e) {{ const ACC v = mg_load(r.v, e); plain = plain && v == v && v != mg_inf((ACC)0); vm = v > vm ? v : vm; }}
    if (!plain || vm == -mg_inf((ACC)0)) {{
        #pragma unroll
        for (int e = 0; e < VEC; ++e) mg_lse_add(m, s, mg_load(r.v, e));
        return;
    }}
    if (vm > m) {{ s = (m == -mg_inf((ACC)0)) ? (ACC)0 : s * {exp}(m - vm); m = vm; }}
    ACC t = (ACC)0;
    #pragma unroll
    for (int e = 0; e < VEC; ++e) t += {fast_exp}(mg_load(r.v, e) - m);
    s += t;
}}
__device__ __forceinline__ void mg_lse_merge(ACC& m, ACC& s, ACC m2, ACC s2) {{
    if (m != m || s != s || m2 != m2 || s2 != s2) {{ s = mg_inf((ACC)0) - mg_inf((ACC)0); return; }}  // NaN wins
    if (m2 > m) {{ ACC t = m; m = m2; m2 = t; t = s; s = s2; s2 = t; }}
    if (m2 == -mg_inf((ACC)0)) return;           // the smaller side is empty
    s += (m2 == m) ? s2 : s2 * {exp}(m2 - m);
}}
__device__ __forceinline__ void mg_lse_block(ACC& m, ACC& s, ACC* sm, ACC* ss) {{
    for (int o = 16; o > 0; o >>= 1) {{
        ACC m2 = __shfl_down_sync(0xffffffffu, m, o), s2 = __shfl_down_sync(0xffffffffu, s, o);
        mg_lse_merge(m, s, m2, s2);
    }}
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {{ sm[warp] = m; ss[warp] = s; }}
    __syncthreads();
    const int nwarps = blockDim.x >> 5;
    m = (threadIdx.x < nwarps) ? sm[threadIdx.x] : -mg_inf((ACC)0);
    s = (threadIdx.x < nwarps) ? ss[threadIdx.x] : (ACC)0;
    if (warp == 0) {{
        for (int o = 16; o > 0; o >>= 1) {{
            ACC m2 = __shfl_down_sync(0xffffffffu, m, o), s2 = __shfl_down_sync(0xffffffffu, s, o);
            mg_lse_merge(m, s, m2, s2);
        }}
    }}
    __syncthreads();
}}
"""


def lse_source(dtype: str) -> str:
    """One-pass logsumexp over rows (Milakov & Gimelshein's online softmax normaliser).

    Same launch geometry as ``reduce_source``: ``<name>_single`` (chunked
    rows in one launch, the last block merging the states), ``<name>_final`` (T -> T),
    ``<name>_partial`` (T -> per-chunk states ``pm``, ``ps``) and
    ``<name>_combine`` (states -> T). Reads x once, where max-then-sum reads it twice.
    """
    T, ACC, sfx = DTYPES[dtype]
    name = f"mg_lse_{sfx}"
    head = """
    __shared__ ACC sm[32];
    __shared__ ACC ss[32];
    const long long idx = blockIdx.x;
    const long long row = idx / chunks, chunk = idx % chunks;
    const long long start = chunk * chunk_len;
    long long stop = start + chunk_len; if (stop > cols) stop = cols;
    const long long base = row * cols;
    ACC m = -mg_inf((ACC)0), s = (ACC)0;
"""
    args = "const long long rows, const long long cols, const long long chunks, const long long chunk_len"
    log = _F[ACC]["log"]
    seg = _segment_loop("x + base", "start", "stop", "mg_lse_add(m, s, v);", "mg_lse_add_vec(m, s, r);")
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{_VEC_TYPES.format(T=T)}
{_LSE_HELPERS.format(exp=_F[ACC]["exp"], fast_exp="__expf" if ACC == "float" else "exp")}
extern "C" __global__ void {name}_final(const {T}* __restrict__ x, {T}* __restrict__ out, {args}) {{
{head}
    {seg}
    mg_lse_block(m, s, sm, ss);
    if (threadIdx.x == 0) mg_store(out, idx, {log}(s) + m);
}}
extern "C" __global__ void {name}_partial(const {T}* __restrict__ x, ACC* __restrict__ pm, ACC* __restrict__ ps, {args}) {{
{head}
    {seg}
    mg_lse_block(m, s, sm, ss);
    if (threadIdx.x == 0) {{ pm[idx] = m; ps[idx] = s; }}
}}
extern "C" __global__ void {name}_single(const {T}* __restrict__ x, {T}* __restrict__ out, ACC* pm, ACC* ps,
        unsigned int* ticket, {args}) {{
{head}
    __shared__ bool last;
    {seg}
    mg_lse_block(m, s, sm, ss);
    if (threadIdx.x == 0) {{
        pm[idx] = m; ps[idx] = s;
        __threadfence();
        last = atomicAdd(&ticket[row], 1u) == (unsigned int)(chunks - 1);
    }}
    __syncthreads();
    if (!last) return;
    const volatile ACC* vm = pm + row * chunks;
    const volatile ACC* vs = ps + row * chunks;
    m = -mg_inf((ACC)0); s = (ACC)0;
    for (long long j = threadIdx.x; j < chunks; j += blockDim.x) mg_lse_merge(m, s, vm[j], vs[j]);
    mg_lse_block(m, s, sm, ss);
    if (threadIdx.x == 0) {{ mg_store(out, row, {log}(s) + m); ticket[row] = 0u; }}
}}
extern "C" __global__ void {name}_combine(const ACC* __restrict__ pm, const ACC* __restrict__ ps, {T}* __restrict__ out, {args}) {{
{head}
    for (long long j = start + threadIdx.x; j < stop; j += blockDim.x) mg_lse_merge(m, s, pm[base + j], ps[base + j]);
    mg_lse_block(m, s, sm, ss);
    if (threadIdx.x == 0) mg_store(out, idx, {log}(s) + m);
}}
"""


# -- softmax family ---------------------------------------------------------------------


def _backward_rows(kind: str, T: str, sfx: str, term: str, value: str) -> str:
    """``mg_<kind>_bwd``: ``s``, the block's sum of ``term`` over the row, then ``value`` written at each
    ``j`` (``gr``, ``yr``: the row of the gradient and of the forward's output)."""
    return f"""extern "C" __global__ void mg_{kind}_bwd_{sfx}(const {T}* __restrict__ g, const {T}* __restrict__ y,
        {T}* __restrict__ out, const long long cols) {{
    __shared__ ACC shared[32];
    const long long row = blockIdx.x;
    const {T}* gr = g + row * cols;
    const {T}* yr = y + row * cols;
    ACC s = (ACC)0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) s += {term};
    s = mg_block_sum(s, shared);
    if (threadIdx.x == 0) shared[0] = s;
    __syncthreads();
    s = shared[0];
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) mg_store(out + row * cols, j, {value});
}}"""


def softmax_source(dtype: str) -> str:
    """``<softmax|log_softmax>`` over rows and their backwards, and ``cross_entropy`` row losses and their
    gradient (one block per row)."""
    T, ACC, _ = DTYPES[dtype]
    exp, log = _F[ACC]["exp"], _F[ACC]["log"]
    sfx = DTYPES[dtype][2]
    maxblock = _BLOCK_REDUCE.format(tag="max", combine="(p != p || p > q) ? p : q", identity="-mg_inf((ACC)0)")
    row_stats = f"""
    __shared__ ACC shared[32];
    const long long row = blockIdx.x;
    const {T}* xr = x + row * cols;
    ACC m = -mg_inf((ACC)0);
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {{ ACC q = mg_load(xr, j); ACC p = m; m = (p != p || p > q) ? p : q; }}
    m = mg_block_max(m, shared);
    if (threadIdx.x == 0) shared[0] = m;
    __syncthreads();
    m = shared[0];
    __syncthreads();
    if (m == -mg_inf((ACC)0)) m = (ACC)0;      // an all -inf row: avoid inf - inf
    ACC s = (ACC)0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) s += {exp}(mg_load(xr, j) - m);
    s = mg_block_sum(s, shared);
    if (threadIdx.x == 0) shared[0] = s;
    __syncthreads();
    s = shared[0];
"""
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{maxblock}
{BLOCK_SUM}
extern "C" __global__ void mg_softmax_{sfx}(const {T}* __restrict__ x, {T}* __restrict__ out, const long long cols) {{
{row_stats}
    // PyTorch's epilogue: exp(x - max) / sum
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) mg_store(out + row * cols, j, {exp}(mg_load(xr, j) - m) / s);
}}
extern "C" __global__ void mg_log_softmax_{sfx}(const {T}* __restrict__ x, {T}* __restrict__ out, const long long cols) {{
{row_stats}
    // PyTorch's epilogue, (x - max) - log(sum): x - (max + log(sum)) would round log(sum) to max's precision,
    // and a value near 0 (the largest of a row whose others are far below) would lose most of its digits
    const ACC logs = {log}(s);
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) mg_store(out + row * cols, j, (mg_load(xr, j) - m) - logs);
}}
// cross_entropy's per-row loss, -log_softmax(x)[target]; a target outside [0, cols) sets flags[slot] (the
// range check, reported at the next sync: NOTE [ Checks on the GPU are reported at the next sync ]) and gives NaN.
extern "C" __global__ void mg_cross_entropy_{sfx}(const {T}* __restrict__ x, const long long* __restrict__ target,
        {T}* __restrict__ out, const long long cols, unsigned int* __restrict__ flags, const long long slot) {{
{row_stats}
    if (threadIdx.x == 0) {{
        const long long t = target[row];
        if (t < 0 || t >= cols) {{
            flags[slot] = 1u;
            mg_store(out, row, (ACC)__longlong_as_double(0x7ff8000000000000LL));
        }} else {{
            mg_store(out, row, -((mg_load(xr, t) - m) - {log}(s)));
        }}
    }}
}}
// softmax's and log_softmax's backwards (PyTorch's _softmax_backward_data, _log_softmax_backward_data) from the
// forward's output y, one block a row: one sum over the row, then the row written.
{_backward_rows("softmax", T, sfx, "mg_load(gr, j) * mg_load(yr, j)", "mg_load(yr, j) * (mg_load(gr, j) - s)")}
{_backward_rows("log_softmax", T, sfx, "mg_load(gr, j)", f"mg_load(gr, j) - {exp}(mg_load(yr, j)) * s")}
// cross_entropy's gradient w.r.t. the logits in one launch: (softmax(x) - onehot(target)) * g, where g is the
// row's gradient (per_row: reduction "none") or the loss's, times scale (1/n for "mean"); read on the device.
extern "C" __global__ void mg_cross_entropy_bwd_{sfx}(const {T}* __restrict__ x, const long long* __restrict__ target,
        const {T}* __restrict__ grad, {T}* __restrict__ out, const long long cols, const int per_row,
        const double scale) {{
{row_stats}
    const ACC inv = (ACC)1 / s;
    const long long t = target[row];
    const ACC g = per_row ? mg_load(grad, row) : mg_load(grad, 0) * (ACC)scale;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {{
        ACC p = {exp}(mg_load(xr, j) - m) * inv;
        if (j == t) p = p - (ACC)1;
        mg_store(out + row * cols, j, p * g);
    }}
}}
"""


# -- nll_loss -------------------------------------------------------------------------------------

def nll_source(dtype: str) -> str:
    """``mg_nll_{rows,total,count,bwd}_<sfx>``: ``nll_loss`` of log-probabilities ``(n, cols)`` and class
    targets (``ignore`` skipped), forward and backward, each one launch where CuPy's indexing took five to
    eleven (an ``arange``, comparisons, a gather or scatter, ``where``, the sums). ``total`` is one block
    summing the picked values and counting the kept targets (the same order at every run); ``bwd`` writes
    the whole gradient, zero but at the targets, so nothing is filled first."""
    T, ACC, sfx = DTYPES[dtype]
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{BLOCK_SUM}
extern "C" __global__ void mg_nll_rows_{sfx}(const {T}* __restrict__ x, const long long* __restrict__ target,
        {T}* __restrict__ out, const long long n, const long long cols, const long long ignore) {{
    const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    const long long t = target[r];
    mg_store(out, r, (t != ignore && t >= 0 && t < cols) ? -mg_load(x, r * cols + t) : (ACC)0);
}}
extern "C" __global__ void mg_nll_total_{sfx}(const {T}* __restrict__ x, const long long* __restrict__ target,
        {T}* __restrict__ out, const long long n, const long long cols, const long long ignore, const int mean) {{
    __shared__ ACC shared[32];
    ACC s = (ACC)0, kept = (ACC)0;
    for (long long r = threadIdx.x; r < n; r += blockDim.x) {{
        const long long t = target[r];
        if (t == ignore) continue;
        kept += (ACC)1;
        if (t >= 0 && t < cols) s += -mg_load(x, r * cols + t);
    }}
    s = mg_block_sum(s, shared);
    if (threadIdx.x == 0) shared[0] = s;
    __syncthreads();
    s = shared[0];
    __syncthreads();
    kept = mg_block_sum(kept, shared);
    if (threadIdx.x == 0) mg_store(out, 0, mean ? s / kept : s);   // every target ignored: 0 / 0 = nan
}}
extern "C" __global__ void mg_nll_count_{sfx}(const long long* __restrict__ target, ACC* __restrict__ count,
        const long long n, const long long ignore) {{
    __shared__ ACC shared[32];
    ACC kept = (ACC)0;
    for (long long r = threadIdx.x; r < n; r += blockDim.x) if (target[r] != ignore) kept += (ACC)1;
    kept = mg_block_sum(kept, shared);
    if (threadIdx.x == 0) count[0] = kept;
}}
// mode 0: reduction "none" (a gradient per row); 1: "sum"; 2: "mean" (the loss's gradient over the count)
extern "C" __global__ void mg_nll_bwd_{sfx}(const {T}* __restrict__ grad, const long long* __restrict__ target,
        const ACC* __restrict__ count, {T}* __restrict__ out, const long long n, const long long cols,
        const long long ignore, const int mode) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n * cols; i += (long long)blockDim.x * gridDim.x) {{
        const long long r = i / cols, t = target[r];
        ACC v = (ACC)0;
        if (t != ignore && i - r * cols == t) {{
            ACC g = mg_load(grad, mode == 0 ? r : 0);
            if (mode == 2) g = g / count[0];
            v = -g;
        }}
        mg_store(out, i, v);
    }}
}}
"""


# -- layer norm ------------------------------------------------------------------------------

# NOTE [ Layer norm in one launch a row ]
#     The layer-norm kernels of ``kernels/normalization.py`` are a dozen array steps (two row means as
#     matrix-vector products, a centring, a square root, a division...), each its own launch on the GPU:
#     about 14 launches forward and 40 backward per call, five calls per step of a two-layer GPT. Here
#     one block normalises one row: the mean (a block sum), the variance of the centred row (a second
#     sum, as the CPU computes it: two passes, no E[x^2] - E[x]^2 cancellation), then the row written
#     in the CPU kernel's order of steps ``(x - mean) / sqrt(var + eps) * weight + bias``. The input's
#     gradient is one launch too (the statistics computed again, then the two sums of the formula);
#     the weight's is three: the rows' statistics, per-chunk column sums, and the chunks summed in order
#     (the same bits at every run: no atomics). float16 computes in float, as the CPU kernel does.
def _block_moments(count: str, load: str) -> str:
    """The lines a block runs for the two-pass moments of ``count`` elements, element ``i`` read by
    ``load``: ``mean``, and ``sq`` (the sum of the squared deviations from it), the same in every thread;
    the block's ``shared`` scratch is reused. Layer norm's rows and batch norm's channels take them."""
    return f"""
    ACC s = (ACC)0;
    for (long long i = threadIdx.x; i < {count}; i += blockDim.x) s += {load};
    s = mg_block_sum(s, shared);
    if (threadIdx.x == 0) shared[0] = s;
    __syncthreads();
    const ACC mean = shared[0] / (ACC){count};
    __syncthreads();
    ACC q = (ACC)0;
    for (long long i = threadIdx.x; i < {count}; i += blockDim.x) {{ const ACC d = {load} - mean; q += d * d; }}
    q = mg_block_sum(q, shared);
    if (threadIdx.x == 0) shared[0] = q;
    __syncthreads();
    const ACC sq = shared[0];
    __syncthreads();
"""


def _ln_stats(T: str, sqrt: str) -> str:
    """A layer norm's row statistics: one block a row, ``mean`` and ``stdv = sqrt(var + eps)``."""
    return f"""
    __shared__ ACC shared[32];
    const long long row = blockIdx.x;
    const {T}* xr = x + row * cols;{_block_moments("cols", "mg_load(xr, i)")}    const ACC stdv = {sqrt}(sq / (ACC)cols + (ACC)eps);
"""


def layer_norm_source(dtype: str) -> str:
    """``mg_ln_{fwd,bwd,stats,wgrad_partial,wgrad_final}_<sfx>``: layer norm over rows of ``cols`` elements
    (NOTE [ Layer norm in one launch a row ]). Row kernels take one block per row."""
    T, ACC, sfx = DTYPES[dtype]
    stats = _ln_stats(T, _F[ACC]["sqrt"])
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{BLOCK_SUM}
extern "C" __global__ void mg_ln_fwd_{sfx}(const {T}* __restrict__ x, const {T}* __restrict__ w,
        const {T}* __restrict__ b, {T}* __restrict__ out, const long long cols, const double eps) {{
{stats}
    {T}* orow = out + row * cols;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {{
        ACC v = (mg_load(xr, j) - mean) / stdv;
        v = v * mg_load(w, j);
        v = v + mg_load(b, j);
        mg_store(orow, j, v);
    }}
}}
extern "C" __global__ void mg_ln_bwd_{sfx}(const {T}* __restrict__ g, const {T}* __restrict__ x,
        const {T}* __restrict__ w, {T}* __restrict__ dx, const long long cols, const double eps) {{
{stats}
    const ACC rstd = (ACC)1 / stdv;
    const {T}* gr = g + row * cols;
    ACC s1 = (ACC)0, s2 = (ACC)0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {{
        const ACC d = mg_load(gr, j) * mg_load(w, j);
        s1 += d;
        s2 += d * ((mg_load(xr, j) - mean) * rstd);
    }}
    s1 = mg_block_sum(s1, shared);
    if (threadIdx.x == 0) shared[0] = s1;
    __syncthreads();
    const ACC m1 = shared[0] / (ACC)cols;
    __syncthreads();
    s2 = mg_block_sum(s2, shared);
    if (threadIdx.x == 0) shared[0] = s2;
    __syncthreads();
    const ACC m2 = shared[0] / (ACC)cols;
    {T}* drow = dx + row * cols;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {{
        const ACC d = mg_load(gr, j) * mg_load(w, j);
        const ACC xh = (mg_load(xr, j) - mean) * rstd;
        ACC v = d - m1;
        v = v - xh * m2;
        mg_store(drow, j, v * rstd);
    }}
}}
extern "C" __global__ void mg_ln_stats_{sfx}(const {T}* __restrict__ x, ACC* __restrict__ means,
        ACC* __restrict__ rstds, const long long cols, const double eps) {{
{stats}
    if (threadIdx.x == 0) {{ means[row] = mean; rstds[row] = (ACC)1 / stdv; }}
}}
extern "C" __global__ void mg_ln_wgrad_partial_{sfx}(const {T}* __restrict__ g, const {T}* __restrict__ x,
        const ACC* __restrict__ means, const ACC* __restrict__ rstds, ACC* __restrict__ partial,
        const long long rows, const long long cols, const long long per_chunk) {{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    const long long r0 = (long long)blockIdx.y * per_chunk;
    long long r1 = r0 + per_chunk; if (r1 > rows) r1 = rows;
    ACC acc = (ACC)0;
    for (long long r = r0; r < r1; ++r) acc += mg_load(g, r * cols + j) * ((mg_load(x, r * cols + j) - means[r]) * rstds[r]);
    partial[(long long)blockIdx.y * cols + j] = acc;
}}
extern "C" __global__ void mg_ln_wgrad_final_{sfx}(const ACC* __restrict__ partial, {T}* __restrict__ out,
        const long long chunks, const long long cols) {{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    ACC acc = (ACC)0;
    for (long long c = 0; c < chunks; ++c) acc += partial[c * cols + j];
    mg_store(out, j, acc);
}}
"""


# NOTE [ Batch norm: one block a channel ]
#     A batch norm's statistics are per channel, over the batch and the spatial dims: channel ``c`` of a
#     contiguous (n, C, hw) input is ``n`` runs of ``hw`` elements, ``C * hw`` apart. One block reduces a
#     channel (as PyTorch's CUDA batch norm does for this layout): it walks the channel's elements in
#     place (element ``i`` of the channel is at ``(i / hw * C + c) * hw + i % hw``), so no transposed
#     copy is made, and its mean and ``invstd = 1 / sqrt(var + eps)`` (biased variance, two passes) stay
#     in the block. The forward is then one elementwise launch; the input's gradient one reduction of
#     ``sum(g)`` and ``sum(g * xhat)`` (the statistics computed again in the same block) and one
#     elementwise launch; the weight's gradient is that reduction alone. The composite the ops gave
#     (means, variances and a dozen elementwise steps, each a launch and each a node's worth of host
#     time) took 10 launches forward and about 22 backward per batch norm. The running statistics' update
#     takes the batch's mean and unbiased variance from one more such block a channel (``moments``).
#: a channel's ``m`` elements and their ``mean`` and ``sq`` (``_block_moments``), in the block of channel ``c``
_BN_STATS = "\n    const long long m = n * hw;" + _block_moments("m", "mg_load(x, mg_bn_at(i, c, C, hw))")


def batch_norm_source(dtype: str) -> str:
    """``mg_bn_{stats,moments,invstd,fwd,reduce,bwd}_<sfx>``: batch norm of a contiguous (n, C, hw) input
    (NOTE [ Batch norm: one block a channel ]). ``stats`` (mean and ``invstd``), ``moments`` (mean and unbiased
    variance, in ``T``: the running statistics' update) and ``reduce`` take one block a channel;
    ``invstd`` (of the running variance), ``fwd`` and ``bwd`` are grid-stride elementwise launches. The
    statistics, weight and bias are in the compute type ``ACC``."""
    T, ACC, sfx = DTYPES[dtype]
    stats = _BN_STATS
    invstd = f"const ACC invstd = (ACC)1 / {_F[ACC]['sqrt']}(sq / (ACC)m + (ACC)eps);"
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{BLOCK_SUM}
__device__ __forceinline__ long long mg_bn_at(long long i, long long c, long long C, long long hw) {{
    return (i / hw * C + c) * hw + i % hw;
}}
extern "C" __global__ void mg_bn_stats_{sfx}(const {T}* __restrict__ x, ACC* __restrict__ means,
        ACC* __restrict__ invstds, const long long n, const long long C, const long long hw, const double eps) {{
    __shared__ ACC shared[32];
    const long long c = blockIdx.x;
{stats}
    {invstd}
    if (threadIdx.x == 0) {{ means[c] = mean; invstds[c] = invstd; }}
}}
extern "C" __global__ void mg_bn_moments_{sfx}(const {T}* __restrict__ x, {T}* __restrict__ means,
        {T}* __restrict__ vars, const long long n, const long long C, const long long hw) {{
    __shared__ ACC shared[32];
    const long long c = blockIdx.x;
{stats}
    if (threadIdx.x == 0) {{ mg_store(means, c, mean); mg_store(vars, c, sq / (ACC)(m - 1)); }}
}}
extern "C" __global__ void mg_bn_invstd_{sfx}(const ACC* __restrict__ var, ACC* __restrict__ invstds,
        const long long C, const double eps) {{
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < C; c += (long long)blockDim.x * gridDim.x)
        invstds[c] = (ACC)1 / {_F[ACC]["sqrt"]}(var[c] + (ACC)eps);
}}
extern "C" __global__ void mg_bn_fwd_{sfx}(const {T}* __restrict__ x, const ACC* __restrict__ means,
        const ACC* __restrict__ invstds, const ACC* __restrict__ w, const ACC* __restrict__ b, {T}* __restrict__ out,
        const long long C, const long long hw, const long long total) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)blockDim.x * gridDim.x) {{
        const long long c = i / hw % C;
        ACC v = (mg_load(x, i) - means[c]) * invstds[c];
        v = v * w[c];
        v = v + b[c];
        mg_store(out, i, v);
    }}
}}
extern "C" __global__ void mg_bn_reduce_{sfx}(const {T}* __restrict__ g, const {T}* __restrict__ x,
        ACC* __restrict__ means, ACC* __restrict__ invstds, ACC* __restrict__ sum_g, ACC* __restrict__ sum_gxhat,
        const long long n, const long long C, const long long hw, const double eps, const int stats) {{
    __shared__ ACC shared[32];
    const long long c = blockIdx.x;
    ACC mu, rs;
    if (stats) {{
{stats}
        {invstd}
        mu = mean; rs = invstd;
        if (threadIdx.x == 0) {{ means[c] = mean; invstds[c] = invstd; }}
    }} else {{
        mu = means[c]; rs = invstds[c];
    }}
    ACC s1 = (ACC)0, s2 = (ACC)0;
    for (long long i = threadIdx.x; i < n * hw; i += blockDim.x) {{
        const long long k = mg_bn_at(i, c, C, hw);
        const ACC gv = mg_load(g, k);
        s1 += gv;
        s2 += gv * ((mg_load(x, k) - mu) * rs);
    }}
    s1 = mg_block_sum(s1, shared);
    if (threadIdx.x == 0) sum_g[c] = s1;
    __syncthreads();
    s2 = mg_block_sum(s2, shared);
    if (threadIdx.x == 0) sum_gxhat[c] = s2;
}}
extern "C" __global__ void mg_bn_bwd_{sfx}(const {T}* __restrict__ g, const {T}* __restrict__ x,
        const ACC* __restrict__ means, const ACC* __restrict__ invstds, const ACC* __restrict__ w,
        const ACC* __restrict__ sum_g, const ACC* __restrict__ sum_gxhat, {T}* __restrict__ dx, const long long C,
        const long long hw, const long long total, const double inv_count, const int training) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)blockDim.x * gridDim.x) {{
        const long long c = i / hw % C;
        const ACC scale = w[c] * invstds[c];
        ACC v = mg_load(g, i);
        if (training) {{
            const ACC xh = (mg_load(x, i) - means[c]) * invstds[c];
            v = v - sum_g[c] * (ACC)inv_count;
            v = v - xh * (sum_gxhat[c] * (ACC)inv_count);
        }}
        mg_store(dx, i, v * scale);
    }}
}}
"""


# -- matmul ----------------------------------------------------------------------------------

TILE = 16


def matmul_source(dtype: str) -> str:
    """Tiled shared-memory matmul ``C[b] = A[b] @ B[b]``, A: (M, K), B: (K, N), row-major.

    Each block computes a TILE x TILE tile of C; at each step along K it
    stages a TILE x TILE tile of A and of B in shared memory (coalesced
    loads), synchronises, and every thread accumulates TILE products from
    shared memory - TILE times fewer global reads than the naive kernel.
    Batch strides may be 0 (a broadcast operand is not copied).
    """
    T, ACC, sfx = DTYPES[dtype]
    return f"""{_PRELUDE}
typedef {ACC} ACC;
#define TILE {TILE}
extern "C" __global__ void mg_matmul_{sfx}(const {T}* __restrict__ A, const {T}* __restrict__ B, {T}* __restrict__ C,
        const int M, const int N, const int K, const long long sA, const long long sB, const long long sC) {{
    __shared__ ACC As[TILE][TILE];
    __shared__ ACC Bs[TILE][TILE + 1];   // +1: no bank conflicts on the column reads
    const long long b = blockIdx.z;
    const {T}* a = A + b * sA;
    const {T}* bb = B + b * sB;
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    ACC acc = (ACC)0;
    for (int k0 = 0; k0 < K; k0 += TILE) {{
        const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? mg_load(a, (long long)row * K + ka) : (ACC)0;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? mg_load(bb, (long long)kb * N + col) : (ACC)0;
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }}
    if (row < M && col < N) mg_store(C + b * sC, (long long)row * N + col, acc);
}}
"""


def check_range_source() -> str:
    """``mg_check_range_i64``: ``flags[slot] = 1`` when some ``x[i]`` is outside ``[low, high)`` (and is not
    ``ignore`` when ``has_ignore``). One launch per check of indices; the flag stays on the device until the
    next sync reads every waiting check's flag at once (NOTE [ Checks on the GPU are reported at the next
    sync ] in ``_runtime.py``). Threads that find a bad value all store the same 1: no atomics needed."""
    return r"""
extern "C" __global__ void mg_check_range_i64(const long long* __restrict__ x, const long long n, const long long low,
                                              const long long high, const long long ignore, const int has_ignore,
                                              unsigned int* __restrict__ flags, const long long slot) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
        const long long v = x[i];
        if ((v < low || v >= high) && !(has_ignore && v == ignore)) flags[slot] = 1u;
    }
}
"""


# NOTE [ Draws made on the GPU: Philox4x32-10 ]
#     A random op on a GPU tensor (``randn(..., device="cuda")``, dropout's mask) draws its numbers on
#     the device, as PyTorch's CUDA generator does: drawn on the host, the numbers would be a copy to the
#     device - and a sync - at every call, five times a step for a GPT with dropout. The generator is
#     counter-based: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11;
#     the generator behind cuRAND's and PyTorch's CUDA draws) maps a 128-bit counter and a 64-bit key to
#     four 32-bit words with ten rounds of multiplications and xors, so every element computes its own
#     words with no state shared between threads: element ``i`` of a call uses the counter
#     ``(i, offset)`` and the key ``seed``, and each call takes the next ``offset`` (``random.py``,
#     ``DeviceGenerator``). The numbers are minigrad's own, not PyTorch's CUDA stream (whose offsets
#     depend on the launch's grid): the same seed gives the same draws on every device and in the stand-in.
#     Arithmetic that must match the stand-in bit for bit uses ``__dmul_rn``/``__dadd_rn`` (no fused
#     multiply-add); the normal's ``log`` and ``cos`` round as the device's libm rounds them.
_PHILOX = r"""
__device__ __forceinline__ void mg_philox(unsigned long long i, unsigned long long offset, unsigned long long seed,
                                          unsigned int w[4]) {
    unsigned int c0 = (unsigned int)i, c1 = (unsigned int)(i >> 32);
    unsigned int c2 = (unsigned int)offset, c3 = (unsigned int)(offset >> 32);
    unsigned int k0 = (unsigned int)seed, k1 = (unsigned int)(seed >> 32);
    for (int r = 0; r < 10; ++r) {
        const unsigned int hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
        const unsigned int hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
        c0 = hi1 ^ c1 ^ k0; c1 = lo1; c2 = hi0 ^ c3 ^ k1; c3 = lo0;
        k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
    }
    w[0] = c0; w[1] = c1; w[2] = c2; w[3] = c3;
}
/* 53 random bits of two words as a double in [0, 1) */
__device__ __forceinline__ double mg_u53(unsigned int hi, unsigned int lo) {
    return (double)((((unsigned long long)hi << 32) | lo) >> 11) * 1.1102230246251565e-16;
}
"""


def philox_source() -> str:
    """The draws of the GPU generator (NOTE [ Draws made on the GPU: Philox4x32-10 ]), one element per
    thread in a grid-stride loop, each writing ``n`` values:

    - ``mg_philox_uniform_<float32|float64>(out, n, seed, offset, low, high)``: ``low + (high - low) * u``,
      ``u`` in [0, 1) from 24 bits (float32) or 53 bits (float64) of the element's words;
    - ``mg_philox_normal_<float32|float64>(out, n, seed, offset, mean, std)``: ``mean + std * z``, ``z`` by
      Box-Muller from two 53-bit uniforms (``u1`` in (0, 1], so ``log`` is finite);
    - ``mg_philox_bernoulli_<float32|float64>(out, n, seed, offset, p, value)``: ``value`` where a 53-bit
      uniform is below ``p``, else 0 (dropout's scaled mask in one launch: ``value = 1 / (1 - p)``);
    - ``mg_philox_randint(out, n, seed, offset, low, range)``: ``low + w % range``, ``w`` the 64 bits of
      two words (int64);
    - ``mg_philox_exponential_*(..., lambd, _)``: ``-log1p(-u) / lambd``; ``mg_philox_cauchy_*(..., median,
      sigma)``: ``median + sigma * tan(pi * (u - 1/2))``; ``mg_philox_log_normal_*(..., mean, std)``: ``exp`` of
      the normal's ``mean + std * z``; ``mg_philox_geometric_*(..., p, _)``: ``floor(log(u1) / log1p(-p)) + 1``
      (``u1`` in (0, 1]): the trials to the first success.
    """
    parts = [_PHILOX]
    loop = "for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)"
    head = "const long long n, const unsigned long long seed, const unsigned long long offset"
    for dtype, t in (("float32", "float"), ("float64", "double")):
        u = ("(double)(w[0] >> 8) * 5.9604644775390625e-08" if dtype == "float32" else "mg_u53(w[0], w[1])")
        parts.append(f"""
extern "C" __global__ void mg_philox_uniform_{dtype}({t}* __restrict__ out, {head}, const double low, const double high) {{
    {loop} {{
        unsigned int w[4]; mg_philox((unsigned long long)i, offset, seed, w);
        out[i] = ({t})__dadd_rn(low, __dmul_rn(__dadd_rn(high, -low), {u}));
    }}
}}
extern "C" __global__ void mg_philox_normal_{dtype}({t}* __restrict__ out, {head}, const double mean, const double std) {{
    {loop} {{
        unsigned int w[4]; mg_philox((unsigned long long)i, offset, seed, w);
        const double u1 = __dadd_rn(mg_u53(w[0], w[1]), 1.1102230246251565e-16), u2 = mg_u53(w[2], w[3]);
        const double z = __dmul_rn(sqrt(__dmul_rn(-2.0, log(u1))), cos(__dmul_rn(6.283185307179586, u2)));
        out[i] = ({t})__dadd_rn(mean, __dmul_rn(std, z));
    }}
}}
extern "C" __global__ void mg_philox_bernoulli_{dtype}({t}* __restrict__ out, {head}, const double p, const double value) {{
    {loop} {{
        unsigned int w[4]; mg_philox((unsigned long long)i, offset, seed, w);
        out[i] = mg_u53(w[0], w[1]) < p ? ({t})value : ({t})0;
    }}
}}
extern "C" __global__ void mg_philox_exponential_{dtype}({t}* __restrict__ out, {head}, const double lambd, const double unused) {{
    {loop} {{
        unsigned int w[4]; mg_philox((unsigned long long)i, offset, seed, w);
        out[i] = ({t})__ddiv_rn(-log1p(-mg_u53(w[0], w[1])), lambd);
    }}
}}
extern "C" __global__ void mg_philox_cauchy_{dtype}({t}* __restrict__ out, {head}, const double median, const double sigma) {{
    {loop} {{
        unsigned int w[4]; mg_philox((unsigned long long)i, offset, seed, w);
        const double angle = __dmul_rn(3.141592653589793, __dadd_rn(mg_u53(w[0], w[1]), -0.5));
        out[i] = ({t})__dadd_rn(median, __dmul_rn(sigma, tan(angle)));
    }}
}}
extern "C" __global__ void mg_philox_log_normal_{dtype}({t}* __restrict__ out, {head}, const double mean, const double std) {{
    {loop} {{
        unsigned int w[4]; mg_philox((unsigned long long)i, offset, seed, w);
        const double u1 = __dadd_rn(mg_u53(w[0], w[1]), 1.1102230246251565e-16), u2 = mg_u53(w[2], w[3]);
        const double z = __dmul_rn(sqrt(__dmul_rn(-2.0, log(u1))), cos(__dmul_rn(6.283185307179586, u2)));
        out[i] = ({t})exp(__dadd_rn(mean, __dmul_rn(std, z)));
    }}
}}
extern "C" __global__ void mg_philox_geometric_{dtype}({t}* __restrict__ out, {head}, const double p, const double unused) {{
    {loop} {{
        unsigned int w[4]; mg_philox((unsigned long long)i, offset, seed, w);
        const double u1 = __dadd_rn(mg_u53(w[0], w[1]), 1.1102230246251565e-16);
        out[i] = ({t})__dadd_rn(floor(__ddiv_rn(log(u1), log1p(-p))), 1.0);
    }}
}}
""")
    parts.append(f"""
extern "C" __global__ void mg_philox_randint(long long* __restrict__ out, {head}, const long long low,
                                             const unsigned long long range) {{
    {loop} {{
        unsigned int w[4]; mg_philox((unsigned long long)i, offset, seed, w);
        out[i] = low + (long long)(((((unsigned long long)w[0]) << 32) | w[1]) % range);
    }}
}}
""")
    return "".join(parts)


def all_sources() -> Iterator[tuple[str, str]]:
    """Every generated translation unit, as ``(label, source)`` (for nvcc checks)."""
    for dtype in DTYPES:
        for op in UNARY:
            yield f"ew_{op}_{dtype}", ew_source(op, dtype, "unary")
        for op in BINARY:
            yield f"ew_{op}_{dtype}", ew_source(op, dtype, "binary")
        for op in COMPARE:
            yield f"ew_{op}_{dtype}", ew_source(op, dtype, "compare")
        for op in TEST:
            yield f"ew_{op}_{dtype}", ew_source(op, dtype, "test")
        for op in PARAM:
            yield f"ew_{op}_{dtype}", ew_source(op, dtype, "param")
        for op in TERNARY:
            yield f"ew_{op}_{dtype}", ew_source(op, dtype, "ternary")
        yield f"ew_where_{dtype}", ew_source("where", dtype, "where")
        yield f"ew_clip_{dtype}", ew_source("clip", dtype, "clip")
        for op in REDUCE:
            yield f"reduce_{op}_{dtype}", reduce_source(op, dtype)
        yield f"lse_{dtype}", lse_source(dtype)
        yield f"softmax_{dtype}", softmax_source(dtype)
        yield f"ln_{dtype}", layer_norm_source(dtype)
        yield f"bn_{dtype}", batch_norm_source(dtype)
        yield f"nll_{dtype}", nll_source(dtype)
        yield f"matmul_{dtype}", matmul_source(dtype)
    yield "check_range", check_range_source()
    yield "philox", philox_source()
