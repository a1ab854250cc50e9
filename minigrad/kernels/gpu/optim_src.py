"""CUDA C of the optimizers' foreach and fused forms: many tensors per launch (pure strings: no CuPy import).

PyTorch updates every parameter of a device and dtype in a few launches
(aten/src/ATen/native/cuda/MultiTensorApply.cuh: the tensors' addresses and
sizes travel *in the kernel's arguments*, a ``TensorListMetadata`` struct passed
by value). minigrad does the same with ``SLOTS`` tensor slots per launch, each
slot its pointers and its element count as plain kernel parameters: one launch
covers up to ``SLOTS`` tensors, ``blockIdx.y`` picks the slot, a grid-stride loop
in x walks its elements. Nothing is uploaded: no pointer table, no scalar array.

Two families (NOTE [ One rule, three forms ] in ``minigrad/optim/update.py``):

- **multi-tensor elementwise** (``mt_source``): one step of a rule over every
  slot - ``out = op(a)``, ``out = op(a, b)`` or ``out = op(a, s)`` with a scalar
  ``s`` passed by value - with the per-op kernels' expressions
  (``cuda_src.UNARY``/``BINARY``), so each value is the op's. The ``op`` form
  runs an op with number attributes (``add_alpha``, ``lerp``, ``addcmul``,
  ``addcdiv``: ``cuda_src.PARAM``/``TERNARY``) compiled as the op's own kernel
  is (``OP_OPTIONS``), so its fused multiply-add is the op's. The foreach form.
- **fused** (``fused_source``): SGD's and Adam's whole rule per element
  (``sgd_rule``/``adam_rule`` in ``minigrad/optim/``), step for step in the same
  order, each step rounded to the storage type as the separate ops round
  (``mg_round``), scalars rounded to it as an op rounds a Python number
  (``mg_scalar``). Compiled with ``--fmad=false``, each multiply-add that an op
  rounds once written as ``fma`` (NOTE [ An optimizer's step is PyTorch's, bit
  for bit ] in ``minigrad/optim/update.py``): a contracted ``a * b + c``
  elsewhere would round once where the ops round twice.
"""

from __future__ import annotations

from typing import Iterator

from .cuda_src import _PRELUDE, ARITY, BINARY, BLOCK_SUM, DTYPES, PARAM, TERNARY, UNARY, _math, kernel_name

__all__ = ["SLOTS", "OPTIONS", "OP_OPTIONS", "MT_UNARY", "MT_BINARY", "MT_OPS", "FUSED", "mt_source", "sumsq_source",
           "unscale_source", "update_scale_source", "UPDATE_SCALE", "FUSED", "COUNTED", "fused_source", "all_sources"]

#: tensors per launch (PyTorch's depth-4 lists hold 36; 32 slots of Adam's five pointers and a size
#: are 1.5 KB of parameters, well inside CUDA's 4 KB)
SLOTS = 32

#: NVRTC options of these kernels: no contracted multiply-add, so each step rounds as the op's kernel does
OPTIONS = ("--fmad=false",)
#: NVRTC options of the ``op`` form: the op kernels' own (``cuda_src``'s, the default), so an expression's
#: contraction into a fused multiply-add is the op's
OP_OPTIONS: tuple[str, ...] = ()

#: the steps of the rules: unary ops, and binary ops (tensor-tensor ``tt`` or tensor-scalar ``ts``)
MT_UNARY = ("neg", "sqrt", "abs", "copy", "reciprocal")
MT_BINARY = ("add", "sub", "mul", "div", "maximum")
#: ops with number attributes run over every slot (the ``op`` form; ``FOREACH_OPS`` in ``minigrad/optim/update.py``)
MT_OPS = ("add_alpha", "lerp", "addcmul", "addcdiv")

#: the fused rules: name -> the state buffers of a slot after ``p`` and ``g``
FUSED = {"sgd": ("buf",), "adam": ("m", "v", "vm")}
#: the rules whose slots end with the parameter's step count (a float32 on the device, PyTorch's fused ``step``)
COUNTED = ("adam",)

# mg_scalar: a double rounded to the storage type (as NumPy rounds a Python number), in ACC.
# mg_round: a value rounded to the storage type, in ACC (what storing and reloading gives).
_ROUNDING = {
    "float16": """
__device__ __forceinline__ float mg_scalar(double s) {
    unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(s)); return mg_h2f(h);
}
__device__ __forceinline__ float mg_round(float v) { return mg_h2f(mg_f2h(v)); }
""",
    "float32": """
__device__ __forceinline__ float mg_scalar(double s) { return (float)s; }
__device__ __forceinline__ float mg_round(float v) { return v; }
""",
    "float64": """
__device__ __forceinline__ double mg_scalar(double s) { return s; }
__device__ __forceinline__ double mg_round(double v) { return v; }
""",
}


def _slots(fields: list[tuple[str, str]]) -> tuple[str, str]:
    """The slot parameters (``fields``: (C type, name) of one slot's pointers) and the code that picks
    this block's slot: ``name`` becomes the slot's pointer, ``n`` its size.

    A ``switch`` on ``blockIdx.y`` reads the slot's parameters where they are (the kernel's parameter
    space); an array of them indexed at run time would first copy every slot to each thread's stack.
    """
    params = []
    for k in range(SLOTS):
        params += [f"{t}* {nm}{k}" for t, nm in fields] + [f"const long long n{k}"]
    decls = " ".join(f"{t}* {nm} = {nm}0;" for t, nm in fields) + " long long n = 0;"
    cases = "\n        ".join(
        f"case {k}: " + " ".join(f"{nm} = {nm}{k};" for _, nm in fields) + f" n = n{k}; break;"
        for k in range(SLOTS))
    return ", ".join(params), f"""{decls}
    switch (blockIdx.y) {{
        {cases}
    }}"""


_LOOP = "for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)"


def mt_source(op: str, form: str, dtype: str) -> str:
    """Source of ``mg_mt_<op>_<sfx>_<form>``: ``form`` is ``t`` (unary), ``tt``, ``ts`` or ``tp`` (binary), or
    ``op`` (``mt_op_source``).

    Arguments: per slot ``out``, ``a`` (and ``b`` for ``tt``), ``n``; then the scalar ``s`` (``ts``: a
    number by value; ``tp``: a 0-d device tensor of the slots' dtype, read by every thread, so that a
    value computed on the device, ``clip_grad_norm_``'s coefficient, is used without reading it on
    the host). ``out`` may be ``a`` (an in-place step), so no pointer is ``__restrict__``.
    """
    if form == "op":
        return mt_op_source(op, dtype)
    T, ACC, _ = DTYPES[dtype]
    fields = [(T, "o"), (f"const {T}", "x")] + ([(f"const {T}", "y")] if form == "tt" else [])
    params, pick = _slots(fields)
    if form == "t":
        expr = "a" if op == "copy" else _math(UNARY[op], ACC)
    elif op == "div" and form == "ts":  # by a number: its reciprocal, as the op (NOTE [ Dividing by a number on the GPU ])
        expr = "a * ((ACC)1 / b)"
    else:
        expr = _math(BINARY[op], ACC)
    scalar = {"ts": ", const double s", "tp": f", const {T}* sp"}.get(form, "")
    b = {"t": "", "tt": "const ACC b = mg_load(y, i); ", "ts": "const ACC b = bs; ", "tp": "const ACC b = bs; "}[form]
    head = {"ts": "const ACC bs = mg_scalar(s);", "tp": "const ACC bs = mg_load(sp, 0);"}.get(form, "")
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{_ROUNDING[dtype]}
extern "C" __global__ void {kernel_name("mt", op, dtype, form)}({params}{scalar}) {{
    {pick}
    {head}
    {_LOOP} {{
        const ACC a = mg_load(x, i); {b}mg_store(o, i, (ACC)({expr}));
    }}
}}
"""


def mt_op_source(op: str, dtype: str) -> str:
    """Source of ``mg_mt_<op>_<sfx>_op``: the op's own expression (``cuda_src.PARAM`` or ``TERNARY``: inputs
    ``a``, ``b``, ``c``, numbers ``p0``..``p2``) over every slot. Arguments: per slot ``out`` and the op's
    ``ARITY[op]`` inputs, ``n``; then the three numbers by value (0 past the op's). ``out`` may be ``a``."""
    T, ACC, _ = DTYPES[dtype]
    arity = ARITY[op]
    names = ("x", "y", "z")[:arity]
    params, pick = _slots([(T, "o")] + [(f"const {T}", nm) for nm in names])
    expr = _math(PARAM[op] if op in PARAM else TERNARY[op], ACC)
    loads = " ".join(f"const ACC {v} = mg_load({nm}, i);" for v, nm in zip("abc", names))
    return f"""{_PRELUDE}
typedef {ACC} ACC;
extern "C" __global__ void {kernel_name("mt", op, dtype, "op")}({params}, const double p0, const double p1, const double p2) {{
    {pick}
    {_LOOP} {{
        {loads} mg_store(o, i, (ACC)({expr}));
    }}
}}
"""


def sumsq_source(dtype: str) -> str:
    """Source of ``mg_mt_sumsq_<sfx>_r``: each block's sum of squares of its slot's elements (a grid-stride
    loop, then a block sum), written to ``partial[slot * gridDim.x + block]`` in the accumulation type;
    ``_foreach_norm`` adds each slot's partials up. Every block writes, so a short slot's extra blocks
    write 0."""
    T, ACC, _ = DTYPES[dtype]
    params, pick = _slots([(f"const {T}", "x")])
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{BLOCK_SUM}
extern "C" __global__ void {kernel_name("mt", "sumsq", dtype, "r")}({params}, ACC* __restrict__ partial) {{
    __shared__ ACC shared[32];
    {pick}
    ACC s = (ACC)0;
    {_LOOP} {{
        const ACC a = mg_load(x, i); s += a * a;
    }}
    s = mg_block_sum(s, shared);
    if (threadIdx.x == 0) partial[(long long)blockIdx.y * gridDim.x + blockIdx.x] = s;
}}
"""


def unscale_source(dtype: str) -> str:
    """Source of ``mg_mt_unscale_<sfx>_a``: ``GradScaler.unscale_``'s one pass over the gradients (PyTorch's
    ``_amp_foreach_non_finite_check_and_unscale_``). Each element is multiplied by ``inv_scale[0]`` (a float32
    on the device, read by every thread: the scale is never read on the host), and a NaN or an infinity
    among them sets ``found_inf[0]`` to 1. Arguments: per slot ``g``, ``n``; then ``found_inf``, ``inv_scale``."""
    T, ACC, _ = DTYPES[dtype]
    params, pick = _slots([(T, "g")])
    return f"""{_PRELUDE}
typedef {ACC} ACC;
extern "C" __global__ void {kernel_name("mt", "unscale", dtype, "a")}({params}, float* found_inf,
                                                                     const float* inv_scale) {{
    {pick}
    const ACC s = (ACC)inv_scale[0];
    {_LOOP} {{
        const ACC v = mg_load(g, i);
        if ((v - v) != (v - v)) found_inf[0] = 1.0f;  // NaN or infinite: v - v is NaN
        mg_store(g, i, s == (ACC)1 ? v : v * s);
    }}
}}
"""


#: the C name of ``GradScaler.update``'s kernel
UPDATE_SCALE = "mg_ampscale_update_f32"


def update_scale_source() -> str:
    """Source of ``mg_ampscale_update_f32``: ``GradScaler.update``'s new scale and growth count, on the device
    (PyTorch's ``_amp_update_scale_``; one thread). After an inf or a NaN the scale is multiplied by
    ``backoff`` and the count restarts; after ``interval`` clean steps in a row it is multiplied by ``growth``
    (kept only if finite). Each product is taken in double and rounded to float32, as PyTorch's."""
    return f"""
extern "C" __global__ void {UPDATE_SCALE}(float* scale, int* tracker, const float* found_inf, const double growth,
                                          const double backoff, const int interval) {{
    if (found_inf[0] != 0.0f) {{
        scale[0] = (float)((double)scale[0] * backoff);
        tracker[0] = 0;
    }} else {{
        const int successful = tracker[0] + 1;
        if (successful == interval) {{
            const float grown = (float)((double)scale[0] * growth);
            if ((grown - grown) == (grown - grown)) scale[0] = grown;  // finite
            tracker[0] = 0;
        }} else {{
            tracker[0] = successful;
        }}
    }}
}}
"""


_SGD_BODY = """
        ACC g = mg_load(gp, i);
        if (has_scale) { g = mg_round(g / c_gs); mg_store(gp, i, g); }
        ACC p = mg_load(pp, i);
        if (maximize) g = -g;
        if (weight_decay != 0.0) g = mg_round(FMA(a_wd, p, g));
        if (momentum != 0.0) {
            ACC b;
            if (first) {
                b = g;
            } else {
                b = mg_round(mg_load(bufp, i) * c_mom);
                b = mg_round(dampening != 0.0 ? FMA(a_1md, g, b) : b + g);
            }
            mg_store(bufp, i, b);
            g = nesterov ? mg_round(FMA(a_mom, b, g)) : b;
        }
        mg_store(pp, i, mg_round(FMA(a_nlr, g, p)));"""

# c_*: a number an op multiplies by (rounded to the storage type, ``mg_scalar``); a_*: an op's number attribute
# (``alpha``, ``weight``, ``value``: the accumulation type, as the op's kernel reads its ``p0``)
_SGD_HEAD = """const ACC c_mom = mg_scalar(momentum);
    const ACC a_wd = (ACC)weight_decay, a_1md = (ACC)(1.0 - dampening), a_mom = (ACC)momentum, a_nlr = (ACC)(-lr);"""

_SGD_SCALARS = ("const double lr, const double momentum, const double dampening, const double weight_decay, "
                "const int nesterov, const int maximize")

# PyTorch's for-loop: exp_avg.lerp_(g, 1 - b1); exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2);
# denom = (v.sqrt() / bc2_sqrt).add_(eps); param.addcdiv_(exp_avg, denom, value=-step_size) - each op as PyTorch
# CUDA's kernel computes it (addcmul: a + value * (b * c); addcdiv: a + value * (b / c), fused multiply-adds;
# a division by a number: a multiplication by its reciprocal)
_ADAM_BODY = """
        ACC g = mg_load(gp, i);
        if (has_scale) { g = mg_round(g / c_gs); mg_store(gp, i, g); }
        ACC p = mg_load(pp, i);
        if (maximize) g = -g;
        if (weight_decay != 0.0 && decoupled) p = mg_round(p * c_decay);
        else if (weight_decay != 0.0) g = mg_round(FMA(a_wd, p, g));
        ACC m = mg_load(mp, i);
        m = mg_round(FABS(a_w1) < (ACC)0.5 ? FMA(a_w1, g - m, m) : FMA(m - g, (ACC)1 - a_w1, g));
        ACC v = mg_round(mg_load(vp, i) * c_b2);
        v = mg_round(FMA(a_1mb2, g * g, v));
        mg_store(mp, i, m);
        mg_store(vp, i, v);
        ACC second = v;
        if (amsgrad) {
            const ACC prev = mg_load(vmp, i);
            second = (prev != prev) ? prev : ((v != v) ? v : (prev > v ? prev : v));
            mg_store(vmp, i, second);
        }
        ACC denom = mg_round(SQRT(second));
        denom = mg_round(denom * c_inv_bc2s);
        denom = mg_round(denom + c_eps);
        mg_store(pp, i, mg_round(FMA(a_nstep, m / denom, p)));"""

# The step count ``t`` (after this step) gives the bias corrections: from the host's table of them (``bias``: ``1 -
# beta1**t``, ``(1 - beta2**t) ** 0.5`` for t = 1..n_bias, computed by Python's ``pow`` as PyTorch's for-loop computes
# them, so the same bits), else (a count set by hand) by the device's ``pow``.
_ADAM_HEAD = """const double t = (double)sp[0];
    const long long k = (long long)t;
    const bool tabled = (double)k == t && k >= 1 && k <= n_bias;
    const double bias_correction1 = tabled ? bias[2 * (k - 1)] : 1.0 - pow(beta1, t);
    const double bias_correction2_sqrt = tabled ? bias[2 * k - 1] : pow(1.0 - pow(beta2, t), 0.5);
    const double decay = 1.0 - lr * weight_decay, step_size = lr / bias_correction1;
    const ACC c_b2 = mg_scalar(beta2), c_eps = mg_scalar(eps), c_decay = mg_scalar(decay);
    const ACC c_inv_bc2s = (ACC)1 / mg_scalar(bias_correction2_sqrt);  // NOTE [ Dividing by a number on the GPU ]
    const ACC a_w1 = (ACC)(1.0 - beta1), a_1mb2 = (ACC)(1.0 - beta2), a_wd = (ACC)weight_decay;
    const ACC a_nstep = (ACC)(-step_size);"""

#: the numbers after the scaler's: SGD's ``first`` and ``SGDScalars``; Adam's table of bias corrections and its length,
#: then ``FusedAdamNumbers`` (minigrad/optim/)
_ADAM_SCALARS = ("const double* __restrict__ bias, const long long n_bias, const double lr, const double beta1, const double beta2, const double eps, const double weight_decay, "
                 "const int amsgrad, const int maximize, const int decoupled")

#: a GradScaler's scale and inf/NaN flag (float32 on the device) and whether each is given, before the numbers
_AMP_ARGS = "const float* grad_scale, const float* found_inf, const int has_scale, const int has_inf, "

# A flag of exactly 1 leaves everything as it was (PyTorch's ``*found_inf_ptr == 1``); a scale divides each gradient,
# which is written back unscaled (NOTE [ A fused step reads the scaler's flag on the device ] in minigrad/optim/update.py).
_AMP_HEAD = """if (has_inf && found_inf[0] == 1.0f) return;
    const ACC c_gs = has_scale ? (ACC)grad_scale[0] : (ACC)1;"""


def fused_source(rule: str, dtype: str) -> str:
    """Source of ``mg_fused_<rule>_<sfx>``: arguments per slot ``p``, ``g``, the state buffers
    (``FUSED[rule]``), Adam's step count (``COUNTED``), ``n``; then the scaler's (``_AMP_ARGS``) and the
    rule's numbers (SGD's after ``first``, the step that makes the momentum buffers; Adam's moments start
    at zeros, as PyTorch's). ``g`` is written when a scale is given."""
    T, ACC, _ = DTYPES[dtype]
    fields = [(T, "pp"), (T, "gp")] + [(T, f"{b}p") for b in FUSED[rule]]
    if rule in COUNTED:
        fields.append(("const float", "sp"))
    params, pick = _slots(fields)
    head, body, scalars = (_SGD_HEAD, _SGD_BODY, "const int first, " + _SGD_SCALARS) if rule == "sgd" else \
        (_ADAM_HEAD, _ADAM_BODY, _ADAM_SCALARS)
    f = "f" if ACC == "float" else ""
    body = body.replace("SQRT", f"sqrt{f}").replace("FMA", f"fma{f}").replace("FABS", f"fabs{f}")
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{_ROUNDING[dtype]}
extern "C" __global__ void {kernel_name("fused", rule, dtype)}({params}, {_AMP_ARGS}{scalars}) {{
    {pick}
    {_AMP_HEAD}
    {head}
    {_LOOP} {{{body}
    }}
}}
"""


def all_sources() -> Iterator[tuple[str, str]]:
    """Every translation unit, as ``(label, source)`` (for nvcc checks)."""
    for dtype in DTYPES:
        for op in MT_UNARY:
            yield f"mt_{op}_t_{dtype}", mt_source(op, "t", dtype)
        for op in MT_BINARY:
            for form in ("tt", "ts", "tp"):
                yield f"mt_{op}_{form}_{dtype}", mt_source(op, form, dtype)
        for op in MT_OPS:
            yield f"mt_{op}_op_{dtype}", mt_op_source(op, dtype)
        yield f"mt_sumsq_r_{dtype}", sumsq_source(dtype)
        yield f"mt_unscale_a_{dtype}", unscale_source(dtype)
        for rule in FUSED:
            yield f"fused_{rule}_{dtype}", fused_source(rule, dtype)
    yield "ampscale_update", update_scale_source()
