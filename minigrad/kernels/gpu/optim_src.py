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
  (``cuda_src.UNARY``/``BINARY``), so each value is the op's. The foreach form.
- **fused** (``fused_source``): SGD's and Adam's whole rule per element
  (``sgd_rule``/``adam_rule`` in ``minigrad/optim/``), step for step in the same
  order, each step rounded to the storage type as the separate ops round
  (``mg_round``), scalars rounded to it as an op rounds a Python number
  (``mg_scalar``). Compiled with ``--fmad=false``: a contracted ``a * b + c``
  rounds once where the ops round twice.
"""

from __future__ import annotations

from typing import Iterator

from .cuda_src import _PRELUDE, BINARY, BLOCK_SUM, DTYPES, UNARY, _math, kernel_name

__all__ = ["SLOTS", "OPTIONS", "MT_UNARY", "MT_BINARY", "FUSED", "mt_source", "sumsq_source", "fused_source", "all_sources"]

#: tensors per launch (PyTorch's depth-4 lists hold 36; 32 slots of Adam's five pointers and a size
#: are 1.5 KB of parameters, well inside CUDA's 4 KB)
SLOTS = 32

#: NVRTC options of these kernels: no fused multiply-add, so each step rounds as the op's kernel does
OPTIONS = ("--fmad=false",)

#: the steps of the rules: unary ops, and binary ops (tensor-tensor ``tt`` or tensor-scalar ``ts``)
MT_UNARY = ("neg", "sqrt", "abs", "copy")
MT_BINARY = ("add", "sub", "mul", "div", "maximum")

#: the fused rules: name -> the state buffers of a slot after ``p`` and ``g``
FUSED = {"sgd": ("buf",), "adam": ("m", "v", "vm")}

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
    """Source of ``mg_mt_<op>_<sfx>_<form>``: ``form`` is ``t`` (unary), ``tt``, ``ts`` or ``tp`` (binary).

    Arguments: per slot ``out``, ``a`` (and ``b`` for ``tt``), ``n``; then the scalar ``s`` (``ts``: a
    number by value; ``tp``: a 0-d device tensor of the slots' dtype, read by every thread, so that a
    value computed on the device, ``clip_grad_norm_``'s coefficient, is used without reading it on
    the host). ``out`` may be ``a`` (an in-place step), so no pointer is ``__restrict__``.
    """
    T, ACC, _ = DTYPES[dtype]
    fields = [(T, "o"), (f"const {T}", "x")] + ([(f"const {T}", "y")] if form == "tt" else [])
    params, pick = _slots(fields)
    if form == "t":
        expr = "a" if op == "copy" else _math(UNARY[op], ACC)
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


_SGD_BODY = """
        ACC g = mg_load(gp, i);
        ACC p = mg_load(pp, i);
        if (maximize) g = -g;
        if (weight_decay != 0.0) g = mg_round(g + mg_round(p * c_wd));
        if (momentum != 0.0) {
            ACC b;
            if (first) {
                b = g;
            } else {
                b = mg_round(mg_load(bufp, i) * c_mom);
                b = mg_round(b + (dampening != 0.0 ? mg_round(g * c_damp) : g));
            }
            mg_store(bufp, i, b);
            g = nesterov ? mg_round(g + mg_round(b * c_mom)) : b;
        }
        mg_store(pp, i, mg_round(p - mg_round(g * c_lr)));"""

_SGD_HEAD = """const ACC c_lr = mg_scalar(lr), c_mom = mg_scalar(momentum), c_damp = mg_scalar(1.0 - dampening);
    const ACC c_wd = mg_scalar(weight_decay);"""

_SGD_SCALARS = ("const double lr, const double momentum, const double dampening, const double weight_decay, "
                "const int nesterov, const int maximize")

_ADAM_BODY = """
        ACC g = mg_load(gp, i);
        ACC p = mg_load(pp, i);
        if (maximize) g = -g;
        if (weight_decay != 0.0 && decoupled) p = mg_round(p * c_decay);
        else if (weight_decay != 0.0) g = mg_round(g + mg_round(p * c_wd));
        const ACC gg = mg_round(g * g);
        ACC m, v;
        if (first) {
            m = mg_round(g * c_1mb1);
            v = mg_round(gg * c_1mb2);
        } else {
            m = mg_round(mg_round(mg_load(mp, i) * c_b1) + mg_round(g * c_1mb1));
            v = mg_round(mg_round(mg_load(vp, i) * c_b2) + mg_round(gg * c_1mb2));
        }
        mg_store(mp, i, m);
        mg_store(vp, i, v);
        ACC second = v;
        if (amsgrad) {
            if (!first) { const ACC prev = mg_load(vmp, i); second = (prev != prev || prev > v) ? prev : v; }
            mg_store(vmp, i, second);
        }
        const ACC denom = mg_round(mg_round(SQRT(mg_round(second / c_bc2))) + c_eps);
        mg_store(pp, i, mg_round(p - mg_round(mg_round(m / denom) * c_step)));"""

_ADAM_HEAD = """const ACC c_b1 = mg_scalar(beta1), c_b2 = mg_scalar(beta2), c_1mb1 = mg_scalar(1.0 - beta1);
    const ACC c_1mb2 = mg_scalar(1.0 - beta2), c_eps = mg_scalar(eps), c_wd = mg_scalar(weight_decay);
    const ACC c_decay = mg_scalar(decay), c_step = mg_scalar(step_size), c_bc2 = mg_scalar(bias_correction2);"""

#: the scalars after ``first``, in the order of ``SGDScalars``/``AdamScalars`` (minigrad/optim/)
_ADAM_SCALARS = ("const double beta1, const double beta2, const double eps, const double weight_decay, "
                 "const double decay, const double step_size, const double bias_correction2, const int amsgrad, "
                 "const int maximize, const int decoupled")


def fused_source(rule: str, dtype: str) -> str:
    """Source of ``mg_fused_<rule>_<sfx>``: arguments per slot ``p``, ``g``, the state buffers
    (``FUSED[rule]``), ``n``; then ``first`` (the step that makes the buffers) and the rule's scalars."""
    T, ACC, _ = DTYPES[dtype]
    fields = [(T, "pp"), (f"const {T}", "gp")] + [(T, f"{b}p") for b in FUSED[rule]]
    params, pick = _slots(fields)
    head, body, scalars = (_SGD_HEAD, _SGD_BODY, _SGD_SCALARS) if rule == "sgd" else \
        (_ADAM_HEAD, _ADAM_BODY.replace("SQRT", "sqrtf" if ACC == "float" else "sqrt"), _ADAM_SCALARS)
    return f"""{_PRELUDE}
typedef {ACC} ACC;
{_ROUNDING[dtype]}
extern "C" __global__ void {kernel_name("fused", rule, dtype)}({params}, const int first, {scalars}) {{
    {pick}
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
        yield f"mt_sumsq_r_{dtype}", sumsq_source(dtype)
        for rule in FUSED:
            yield f"fused_{rule}_{dtype}", fused_source(rule, dtype)
