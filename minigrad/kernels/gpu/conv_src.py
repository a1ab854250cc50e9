"""CUDA C sources of the convolution, pooling and MSE kernels (pure strings: no CuPy import).

Like ``cuda_src``, each source is a self-contained ``extern "C"`` unit per
dtype, compiled by CuPy's NVRTC at first use and by ``nvcc --ptx`` in the
tests on machines without a GPU. Shapes are passed as ``int`` scalars in one
order everywhere (the *geometry*)::

    N, C, H, W, O, KH, KW, OH, OW, SH, SW, PH, PW, DH, DW, G

(input batch, channels, height, width; output channels; kernel size; output
size; stride; padding; dilation; groups). Input position of output
``(oh, ow)`` and kernel tap ``(i, j)``: ``h = oh*SH - PH + i*DH``,
``w = ow*SW - PW + j*DW``.

Two implementations of convolution, so kernel selection has a choice:

- **im2col + GEMM** (registered as ``GPUDNN``): ``mg_im2col`` unfolds the
  input into a ``(C*KH*KW, N*OH*OW)`` matrix and cuBLAS multiplies it by the
  ``(O, C*KH*KW)`` weight; the input gradient is a GEMM then ``mg_col2im``.
  This is how Caffe and early cuDNN did it: more memory, all the work in a
  library GEMM.
- **direct** (registered as ``GPU``): one thread per output element loops
  over its window (``mg_conv_fwd``), one thread per input element gathers
  every output that read it (``mg_conv_dx``), one block per weight element
  reduces over the batch and positions (``mg_conv_dw``). No extra memory;
  slower on large channel counts, because nothing is reused across threads.

Gradients are *gathered*, never scattered with atomics: each thread owns one
output value and finds its contributors, so results are deterministic and
float16 needs no atomic add.
"""

from __future__ import annotations

from .cuda_src import _PRELUDE, BLOCK_SUM, DTYPES

__all__ = ["GEOMETRY", "conv_source", "pool_source", "mse_source", "ordered_add_source", "ordered_set_source",
           "all_sources"]

#: the int geometry arguments of every conv/pool kernel, in order
GEOMETRY = ("N", "C", "H", "W", "O", "KH", "KW", "OH", "OW", "SH", "SW", "PH", "PW", "DH", "DW", "G")

_GEO_PARAMS = ", ".join(f"const int {g}" for g in GEOMETRY)


def _head(dtype: str) -> tuple[str, str, str]:
    T, ACC, sfx = DTYPES[dtype]
    return T, sfx, f"{_PRELUDE}\ntypedef {ACC} ACC;\n"


def _window(body: str) -> str:
    """Loops over the taps ``(i, j)`` of output ``(oh, ow)``'s window that fall inside the input, at ``(h, w)``."""
    return f"""for (int i = 0; i < KH; ++i) {{
            const int h = oh * SH - PH + i * DH;
            if (h < 0 || h >= H) continue;
            for (int j = 0; j < KW; ++j) {{
                const int w = ow * SW - PW + j * DW;
                if (w < 0 || w >= W) continue;
                {body}
            }}
        }}"""


def _gather(body: str) -> str:
    """The adjoint of ``_window``: loops over the taps ``(i, j)`` and outputs ``(oh, ow)`` that read input ``(h, w)``.

    ``h = oh*SH - PH + i*DH`` is solved for ``oh``: the tap contributes when
    ``h + PH - i*DH`` is a non-negative multiple of the stride below ``OH*SH``.
    """
    return f"""for (int i = 0; i < KH; ++i) {{
            const int hh = h + PH - i * DH;
            if (hh < 0 || hh % SH) continue;
            const int oh = hh / SH;
            if (oh >= OH) continue;
            for (int j = 0; j < KW; ++j) {{
                const int ww = w + PW - j * DW;
                if (ww < 0 || ww % SW) continue;
                const int ow = ww / SW;
                if (ow >= OW) continue;
                {body}
            }}
        }}"""


def conv_source(dtype: str) -> str:
    """im2col / col2im for the GEMM convolution, and the three direct kernels."""
    T, sfx, head = _head(dtype)
    dx_gather = _gather(
        "for (int og = 0; og < OG; ++og) { const int o = g * OG + og; "
        "acc += mg_load(gy, (((long long)n * O + o) * OH + oh) * OW + ow) "
        "* mg_load(wt, (((long long)o * CG + cg) * KH + i) * KW + j); }"
    )
    return f"""{head}{BLOCK_SUM}
// cols[(c*KH + i)*KW + j][(n - n0)*OH*OW + oh*OW + ow] = x[n][c][h][w] (0 outside), for nb images from n0.
extern "C" __global__ void mg_im2col_{sfx}(const {T}* __restrict__ x, {T}* __restrict__ cols, {_GEO_PARAMS},
        const int n0, const int nb) {{
    const long long P = (long long)OH * OW, ncols = (long long)nb * P, total = (long long)C * KH * KW * ncols;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long long)blockDim.x * gridDim.x) {{
        const long long col = t % ncols, row = t / ncols;
        const int j = row % KW, i = (row / KW) % KH, c = row / ((long long)KW * KH);
        const int n = n0 + col / P, oh = (col % P) / OW, ow = col % OW;
        const int h = oh * SH - PH + i * DH, w = ow * SW - PW + j * DW;
        cols[t] = (h >= 0 && h < H && w >= 0 && w < W) ? x[(((long long)n * C + c) * H + h) * W + w] : ({T})0;
    }}
}}

// dx[n][c][h][w] = sum of cols entries that im2col copied from x[n][c][h][w] (the adjoint of im2col).
extern "C" __global__ void mg_col2im_{sfx}(const {T}* __restrict__ cols, {T}* __restrict__ dx, {_GEO_PARAMS},
        const int n0, const int nb) {{
    const long long P = (long long)OH * OW, ncols = (long long)nb * P, total = (long long)nb * C * H * W;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long long)blockDim.x * gridDim.x) {{
        const int w = t % W, h = (t / W) % H, c = (t / ((long long)W * H)) % C;
        const int n = t / ((long long)W * H * C);
        ACC acc = (ACC)0;
        {_gather("acc += mg_load(cols, ((long long)(c * KH + i) * KW + j) * ncols + (long long)n * P + (long long)oh * OW + ow);")}
        mg_store(dx, (((long long)(n0 + n) * C + c) * H + h) * W + w, acc);
    }}
}}

// Direct convolution: one thread per output element y[n][o][oh][ow].
extern "C" __global__ void mg_conv_fwd_{sfx}(const {T}* __restrict__ x, const {T}* __restrict__ wt,
        const {T}* __restrict__ bias, {T}* __restrict__ y, {_GEO_PARAMS}, const int has_bias) {{
    const int CG = C / G, OG = O / G;
    const long long total = (long long)N * O * OH * OW;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long long)blockDim.x * gridDim.x) {{
        const int ow = t % OW, oh = (t / OW) % OH, o = (t / ((long long)OW * OH)) % O;
        const int n = t / ((long long)OW * OH * O);
        const int c0 = (o / OG) * CG;
        ACC acc = has_bias ? mg_load(bias, o) : (ACC)0;
        for (int cg = 0; cg < CG; ++cg) {{
            const {T}* xc = x + (((long long)n * C + c0 + cg) * H) * W;
            const {T}* wc = wt + (((long long)o * CG + cg) * KH) * KW;
            {_window("acc += mg_load(xc, (long long)h * W + w) * mg_load(wc, i * KW + j);")}
        }}
        mg_store(y, t, acc);
    }}
}}

// Input gradient, direct: one thread per dx[n][c][h][w], gathering every (o, oh, ow) whose window read it.
extern "C" __global__ void mg_conv_dx_{sfx}(const {T}* __restrict__ gy, const {T}* __restrict__ wt,
        {T}* __restrict__ dx, {_GEO_PARAMS}) {{
    const int CG = C / G, OG = O / G;
    const long long total = (long long)N * C * H * W;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long long)blockDim.x * gridDim.x) {{
        const int w = t % W, h = (t / W) % H, c = (t / ((long long)W * H)) % C;
        const int n = t / ((long long)W * H * C);
        const int g = c / CG, cg = c % CG;
        ACC acc = (ACC)0;
        {dx_gather}
        mg_store(dx, t, acc);
    }}
}}

// Weight gradient, direct: one block per dw[o][cg][i][j], its threads striding over (n, oh, ow).
extern "C" __global__ void mg_conv_dw_{sfx}(const {T}* __restrict__ x, const {T}* __restrict__ gy,
        {T}* __restrict__ dw, {_GEO_PARAMS}) {{
    __shared__ ACC shared[32];
    const int CG = C / G, OG = O / G;
    const long long widx = blockIdx.x;
    const int j = widx % KW, i = (widx / KW) % KH, cg = (widx / ((long long)KW * KH)) % CG;
    const int o = widx / ((long long)KW * KH * CG);
    const int c = (o / OG) * CG + cg;
    const long long P = (long long)OH * OW, total = (long long)N * P;
    ACC acc = (ACC)0;
    for (long long t = threadIdx.x; t < total; t += blockDim.x) {{
        const int n = t / P, oh = (t % P) / OW, ow = t % OW;
        const int h = oh * SH - PH + i * DH, w = ow * SW - PW + j * DW;
        if (h >= 0 && h < H && w >= 0 && w < W)
            acc += mg_load(x, (((long long)n * C + c) * H + h) * W + w) * mg_load(gy, ((long long)n * O + o) * P + t % P);
    }}
    acc = mg_block_sum(acc, shared);
    if (threadIdx.x == 0) mg_store(dw, widx, acc);
}}
"""


def pool_source(dtype: str) -> str:
    """Max pooling: forward with argmax, and the gradient gathered through the argmax.

    ``C`` is the number of planes (batch x channels) and ``O`` is unused (the
    geometry is shared with convolution). The argmax is a flat ``h*W + w``
    index into the unpadded plane; the first maximum wins, and every NaN takes
    over (PyTorch's ``val > max || isnan(val)``: the window's last NaN).
    """
    T, sfx, head = _head(dtype)
    return f"""{head}
extern "C" __global__ void mg_maxpool_fwd_{sfx}(const {T}* __restrict__ x, {T}* __restrict__ y,
        long long* __restrict__ arg, {_GEO_PARAMS}) {{
    const long long total = (long long)C * OH * OW;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long long)blockDim.x * gridDim.x) {{
        const int ow = t % OW, oh = (t / OW) % OH;
        const long long plane = t / ((long long)OW * OH);
        const {T}* xp = x + plane * H * W;
        ACC best = (ACC)0; long long bi = -1;
        {_window("const ACC v = mg_load(xp, (long long)h * W + w); "
                 "if (bi < 0 || v > best || v != v) { best = v; bi = (long long)h * W + w; }")}
        mg_store(y, t, bi < 0 ? -mg_inf((ACC)0) : best);
        arg[t] = bi;
    }}
}}

// dx[plane][h][w] = sum of gy over the windows whose argmax is (h, w): gathered, no atomics.
extern "C" __global__ void mg_maxpool_dx_{sfx}(const {T}* __restrict__ gy, const long long* __restrict__ arg,
        {T}* __restrict__ dx, {_GEO_PARAMS}) {{
    const long long total = (long long)C * H * W;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long long)blockDim.x * gridDim.x) {{
        const int w = t % W, h = (t / W) % H;
        const long long plane = t / ((long long)W * H), me = (long long)h * W + w, base = plane * OH * OW;
        ACC acc = (ACC)0;
        {_gather("const long long o = base + (long long)oh * OW + ow; if (arg[o] == me) acc += mg_load(gy, o);")}
        mg_store(dx, t, acc);
    }}
}}

// out[plane][oh][ow] = g[plane][argmax]: the gradient of max_pool2d_grad w.r.t. its grad input.
extern "C" __global__ void mg_maxpool_select_{sfx}(const {T}* __restrict__ g, const long long* __restrict__ arg,
        {T}* __restrict__ y, {_GEO_PARAMS}) {{
    const long long total = (long long)C * OH * OW;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long long)blockDim.x * gridDim.x) {{
        const long long plane = t / ((long long)OW * OH), a = arg[t];
        y[t] = a < 0 ? ({T})0 : g[plane * H * W + a];
    }}
}}
"""


def mse_source(dtype: str) -> str:
    """Squared differences (``reduction='none'``) and per-chunk partial sums of them (mean, sum).

    The partials are combined by the reduction family's ``_combine`` kernel
    (``cuda_src.reduce_source``), which applies the mean's scale.
    """
    T, sfx, head = _head(dtype)
    return f"""{head}{BLOCK_SUM}
extern "C" __global__ void mg_mse_none_{sfx}(const {T}* __restrict__ a, const {T}* __restrict__ b,
        {T}* __restrict__ out, const long long n) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
        const ACC d = mg_load(a, i) - mg_load(b, i);
        mg_store(out, i, d * d);
    }}
}}
extern "C" __global__ void mg_mse_partial_{sfx}(const {T}* __restrict__ a, const {T}* __restrict__ b,
        ACC* __restrict__ partial, const long long n, const long long chunk_len) {{
    __shared__ ACC shared[32];
    const long long start = (long long)blockIdx.x * chunk_len;
    long long stop = start + chunk_len; if (stop > n) stop = n;
    ACC acc = (ACC)0;
    for (long long i = start + threadIdx.x; i < stop; i += blockDim.x) {{
        const ACC d = mg_load(a, i) - mg_load(b, i);
        acc += d * d;
    }}
    acc = mg_block_sum(acc, shared);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}}
"""


def ordered_add_source(dtype: str) -> str:
    """``mg_oadd``: the writes of a scatter-add, sorted by position (stably: a position's writes keep their
    order), applied one position per thread, in order, each sum rounded to the dtype - NumPy's ``np.add.at``
    on the CPU (NOTE [ A scatter in the order of its writes ] in ``ordered.py``)."""
    T, sfx, head = _head(dtype)
    return f"""{head}
extern "C" __global__ void mg_oadd_{sfx}({T}* __restrict__ out, const long long* __restrict__ pos,
        const {T}* __restrict__ v, const long long n) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
        const long long p = pos[i];
        if (i > 0 && pos[i - 1] == p) continue;  // the first write of its position does them all
        {T} acc[1];
        acc[0] = out[p];
        for (long long j = i; j < n && pos[j] == p; ++j) mg_store(acc, 0, mg_load(acc, 0) + mg_load(v, j));
        out[p] = acc[0];
    }}
}}
"""


def ordered_set_source() -> str:
    """``mg_oset``: the writes of a scatter, sorted by position (stably), the last of each position's kept -
    NumPy's assignment on the CPU. Elements travel as ``nbytes`` bytes: one kernel for every dtype."""
    return f"""{_PRELUDE}
extern "C" __global__ void mg_oset(unsigned char* __restrict__ out, const long long* __restrict__ pos,
        const unsigned char* __restrict__ v, const long long n, const int nbytes) {{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
        if (i + 1 < n && pos[i + 1] == pos[i]) continue;  // the last write of its position stays
        for (int b = 0; b < nbytes; ++b) out[pos[i] * nbytes + b] = v[i * nbytes + b];
    }}
}}
"""


def all_sources():
    """Every translation unit of this module, as ``(label, source)`` (for nvcc checks)."""
    for dtype in DTYPES:
        yield f"conv_{dtype}", conv_source(dtype)
        yield f"pool_{dtype}", pool_source(dtype)
        yield f"mse_{dtype}", mse_source(dtype)
        yield f"oadd_{dtype}", ordered_add_source(dtype)
    yield "oset", ordered_set_source()
