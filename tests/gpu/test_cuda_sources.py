"""Every hand-written CUDA source compiles with nvcc (runs without a GPU; skipped without nvcc).

The sources are the exact strings CuPy compiles with NVRTC at first use
(``minigrad/kernels/gpu/cuda_src.py``); compiling them to PTX for sm_80
catches syntax and type errors on machines with the CUDA toolkit but no GPU.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import shutil
import subprocess

import pytest

from minigrad.kernels.gpu import conv_src, cuda_src, optim_src

NVCC = shutil.which("nvcc")


def _bundle(items):
    """One translation unit from many sources: each in its own namespace (the
    ``extern "C"`` kernel names are unique; the helpers repeat per source)."""
    return "\n".join(f"namespace mg_src_{i} {{\n{source}\n}}" for i, (_, source) in enumerate(items))


def _compile(args):
    label, source, tmp_path = args
    path = tmp_path / f"{label}.cu"
    path.write_text(source)
    out = tmp_path / f"{label}.ptx"
    # warnings are errors: a warning in generated CUDA (an unused or self-initialised variable) is a bug
    r = subprocess.run([NVCC, "-arch=sm_80", "--ptx", "-Werror", "all-warnings", "-o", str(out), str(path)],
                       capture_output=True, text=True)
    return label, r.returncode, r.stderr, out


@pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) not found")
def test_every_cuda_source_compiles_to_ptx(tmp_path):
    items = list(cuda_src.all_sources()) + list(conv_src.all_sources()) + list(optim_src.all_sources())
    # A few large translation units, one nvcc run per core (nvcc start-up dominates small files).
    n = max(1, min(4, os.cpu_count() or 1))
    jobs = [(f"bundle{k}", _bundle(items[k::n]), tmp_path) for k in range(n)]
    with cf.ThreadPoolExecutor(n) as ex:
        results = list(ex.map(_compile, jobs))
    failed = [(label, err) for label, rc, err, _ in results if rc != 0]
    assert not failed, "\n\n".join(f"{label}:\n{err}" for label, err in failed)
    ptx = "\n".join(p.read_text() for *_, p in results)
    # every kernel the launchers ask for is defined
    for label, _ in items:
        fam = label.split("_")[0]
        if fam in ("ew", "reduce"):
            op, dt = label[len(fam) + 1:].rsplit("_", 1)
            name = cuda_src.kernel_name(fam, op, dt)
            variants = ("contig", "strided") if fam == "ew" else ("single", "final", "partial", "combine")
            if fam == "ew" and op not in cuda_src.COMPARE and op not in cuda_src.TEST and op != "where":
                variants += ("vec",)
            if fam == "ew" and (op in cuda_src.BINARY or op in cuda_src.COMPARE):
                variants += ("scalar0", "scalar1")  # a number operand passed by value
            for v in variants:
                assert f".entry {name}_{v}(" in ptx, f"{name}_{v}"
    for sfx in ("f16", "f32", "f64"):
        for name in ("mg_softmax", "mg_log_softmax", "mg_softmax_bwd", "mg_log_softmax_bwd", "mg_cross_entropy",
                     "mg_cross_entropy_bwd", "mg_matmul"):
            assert f".entry {name}_{sfx}(" in ptx
        for v in ("single", "final", "partial", "combine"):
            assert f".entry mg_lse_{sfx}_{v}(" in ptx
        for name in ("mg_im2col", "mg_col2im", "mg_conv_fwd", "mg_conv_dx", "mg_conv_dw", "mg_maxpool_fwd",
                     "mg_maxpool_dx", "mg_maxpool_select", "mg_mse_none", "mg_mse_partial", "mg_ln_fwd", "mg_ln_bwd",
                     "mg_ln_stats", "mg_ln_wgrad_partial", "mg_ln_wgrad_final", "mg_nll_rows", "mg_nll_total",
                     "mg_nll_count", "mg_nll_bwd", "mg_oadd"):
            assert f".entry {name}_{sfx}(" in ptx, f"{name}_{sfx}"
    assert ".entry mg_oset(" in ptx  # the deterministic mode's ordered writes (kernels/gpu/ordered.py)
    assert f".entry {optim_src.UPDATE_SCALE}(" in ptx  # GradScaler.update's kernel
    for label, _ in optim_src.all_sources():  # mt_<op>_<form>_<dtype> (op names may hold "_"), fused_<rule>_<dtype>
        if label == "ampscale_update":
            continue
        fam, *mid, dt = label.split("_")
        name = cuda_src.kernel_name(fam, "_".join(mid[:-1]) if fam == "mt" else mid[0], dt, mid[-1] if fam == "mt" else "")
        assert f".entry {name}(" in ptx, name
    for dist in ("uniform", "normal", "bernoulli"):  # the draws made on the device (Philox)
        for dt in ("float32", "float64"):
            assert f".entry mg_philox_{dist}_{dt}(" in ptx, f"mg_philox_{dist}_{dt}"
    assert ".entry mg_philox_randint(" in ptx
    # the vector kernels really issue 16-byte loads
    assert "ld.global.nc.v4.f32" in ptx or "ld.global.v4.f32" in ptx
    # the tiled matmul really stages its tiles in shared memory
    assert ".shared" in ptx


def test_sources_are_self_contained():
    # NVRTC (CuPy) has no include path for the toolkit headers: no #include anywhere.
    for label, source in [*cuda_src.all_sources(), *conv_src.all_sources(), *optim_src.all_sources()]:
        assert "#include" not in source, label
        assert 'extern "C" __global__' in source, label


def test_importing_the_sources_does_not_import_cupy():
    import sys

    assert "minigrad.kernels.gpu.cuda_src" in sys.modules
    if "cupy" in sys.modules:  # pragma: no cover - only where CuPy is installed and used
        pytest.skip("CuPy already imported by another test")
    assert "cupy" not in sys.modules


@pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) not found")
def test_optimizer_kernels_round_every_step(tmp_path):
    """The fused kernels' only fused multiply-adds are the ones the rule writes (``fma``: the ops that round
    once, ``add_`` with ``alpha``, ``lerp_``, ``addcmul_``); with the options CuPy gets (``optim_src.OPTIONS``)
    nvcc contracts nothing else. Shown by writing each ``fma`` as a plain ``a * b + c``: then the PTX has
    no ``fma`` at all, and without the options nvcc contracts them (the check can fail)."""
    import re

    items = [item for item in optim_src.all_sources() if item[0].startswith("fused")]
    assert all(re.search(r"\bfmaf?\(", src) for _, src in items)
    unfused = []
    for label, src in items:
        src = re.sub(r"\bfmaf?\(", "mg_unfused(", src)
        unfused.append((label, src.replace("typedef float ACC;", "typedef float ACC;\n" + _UNFUSED, 1)
                        .replace("typedef double ACC;", "typedef double ACC;\n" + _UNFUSED, 1)))
    path = tmp_path / "optim.cu"
    path.write_text(_bundle(unfused))
    for options, want_fma in ((list(optim_src.OPTIONS), False), ([], True)):
        out = tmp_path / "optim.ptx"
        r = subprocess.run([NVCC, "-arch=sm_80", "--ptx", *options, "-o", str(out), str(path)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert ("fma.rn" in _entries(out.read_text())) == want_fma, options


def _entries(ptx: str) -> str:
    """The kernels' own code in ``ptx``: its ``.entry`` functions, without the CUDA library's ``.func``s (the
    device's ``pow``, which a fused Adam calls only for a step count set by hand, has its own fused multiply-adds)."""
    import re

    parts = re.split(r"^(?=\.(?:(?:visible|weak)\s+\.)?(?:entry|func)\b)", ptx, flags=re.M)
    return "".join(part for part in parts if re.match(r"\.(?:(?:visible|weak)\s+\.)?entry\b", part))


_UNFUSED = "__device__ __forceinline__ ACC mg_unfused(ACC a, ACC b, ACC c) { return a * b + c; }"


@pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) not found")
def test_optimizer_kernels_read_their_slots_in_place(tmp_path):
    """Picking a slot costs no per-thread copy of the slots: ptxas reports no stack frame for any of them."""
    path = tmp_path / "optim.cu"
    path.write_text(_bundle(list(optim_src.all_sources())))
    r = subprocess.run([NVCC, "-arch=sm_80", "-cubin", *optim_src.OPTIONS, "-Xptxas", "-v", "-o",
                        str(tmp_path / "optim.cubin"), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    # "Function properties for <name>" then its stack frame; the kernels' entries only (not the library's pow)
    frames = {line.split()[-1]: lines[i + 1] for i, line in enumerate(lines) if "Function properties for" in line}
    kernels = {name: frame for name, frame in frames.items() if name.startswith("mg_")}
    assert len(kernels) == len(list(optim_src.all_sources())), r.stderr
    assert all(frame.strip().startswith("0 bytes stack frame") for frame in kernels.values()), r.stderr
