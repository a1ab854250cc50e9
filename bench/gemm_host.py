"""Host time of a GPU matrix product: ``cupy.matmul`` against minigrad's ``gemm.matmul`` (cuBLAS called
directly, NOTE [ GEMM without cupy.matmul's host time ] in ``minigrad/kernels/gpu/gemm.py``) and PyTorch CUDA's,
for the layouts a small model's step makes (float32; calls queued without a sync between them, small enough
that the host, not the device, sets the pace).

Usage::

    python bench/gemm_host.py               # on a machine with CuPy and a CUDA device
    python bench/gemm_host.py --stand-in    # anywhere: the stand-in CuPy (its times say nothing of a device)
    python bench/gemm_host.py --stand-in --quick
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from host_profile import per_call_us, torch_cuda  # noqa: E402  (bench/host_profile.py: the same timing)


#: (name, shape of a, shape of b, how b is laid out)
CASES = [
    ("x @ W (a linear layer's rows)", (512, 64), (64, 192), "row-major"),
    ("x @ W.T (F.linear)", (512, 64), (192, 64), "transposed"),
    ("(B, T, C) @ W", (16, 32, 64), (64, 192), "row-major"),
    ("q @ k (batched)", (16, 4, 32, 16), (16, 4, 16, 32), "row-major"),
    ("q @ k.transpose(-2, -1)", (16, 4, 32, 16), (16, 4, 32, 16), "transposed"),
]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python bench/gemm_host.py", description=__doc__.strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--stand-in", action="store_true", help="the stand-in CuPy (no GPU needed; its times mean nothing)")
    p.add_argument("--calls", type=int, default=400)
    p.add_argument("--quick", action="store_true", help="5 calls a product: proves the script works in seconds")
    a = p.parse_args(argv)
    if a.quick:
        a.calls = 5
    if a.stand_in:
        sys.path.insert(0, str(HERE.parent / "tests" / "gpu"))
        import fake_cupy

        fake_cupy.install()
    import cupy
    import numpy as np

    from minigrad.kernels.gpu import gemm

    torch = None if a.stand_in else torch_cuda()
    sync = cupy.cuda.Device().synchronize
    rng = np.random.default_rng(0)
    print("| product | cupy.matmul us | gemm.matmul us | torch us |")
    print("| --- | ---: | ---: | ---: |")
    for name, sa, sb, layout in CASES:
        x = cupy.asarray(rng.standard_normal(sa).astype(np.float32))
        y = cupy.asarray(rng.standard_normal(sb).astype(np.float32))
        y = y.swapaxes(-1, -2) if layout == "transposed" else y
        np.testing.assert_allclose(cupy.asnumpy(gemm.matmul(x, y)), cupy.asnumpy(cupy.matmul(x, y)), rtol=1e-4,
                                   atol=1e-4)
        row = [per_call_us(sync, lambda: cupy.matmul(x, y), a.calls), per_call_us(sync, lambda: gemm.matmul(x, y), a.calls)]
        if torch is not None:
            tx, ty = torch.as_tensor(x, device="cuda"), torch.as_tensor(y, device="cuda")
            row.append(per_call_us(torch.cuda.synchronize, lambda: tx @ ty, a.calls))
        print(f"| {name} | " + " | ".join(f"{v:.1f}" for v in row) + (" |" if torch is not None else " | - |"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
