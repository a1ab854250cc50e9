"""The BLAS family refuses bad operands in PyTorch's words and order (``ops/blas.py``): rank, sizes,
broadcast of ``input``, dtypes - for each of ``dot``, ``vdot``, ``mv``, ``mm``, ``outer``, ``addmm``, ``addmv``,
``addr``, ``bmm``, ``baddbmm`` and ``addbmm``. A refused call leaves no node."""

from __future__ import annotations

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _cases(L):
    o = L.ones
    d = dict(dtype=L.float64)
    return {
        "dot_ndim": lambda: L.dot(o(2,2), o(2)),
        "dot_dtype": lambda: L.dot(o(3, **d), o(3)),
        "dot_size": lambda: L.dot(o(3), o(4)),
        "vdot_ndim": lambda: L.vdot(o(2), o(2,2)),
        "vdot_dtype": lambda: L.vdot(o(3), o(3, **d)),
        "mv_ndim": lambda: L.mv(o(2,2,2), o(2)),
        "mv_size": lambda: L.mv(o(2,3), o(2)),
        "mv_dtype": lambda: L.mv(o(2,3,**d), o(3)),
        "mm_ndim1": lambda: L.mm(o(3), o(3,3)),
        "mm_ndim2": lambda: L.mm(o(3,3), o(3)),
        "mm_shape": lambda: L.mm(o(2,3), o(2,3)),
        "mm_dtype": lambda: L.mm(o(2,3), o(3,2,**d)),
        "outer_ndim1": lambda: L.outer(o(2,2), o(2)),
        "outer_ndim2": lambda: L.outer(o(2), o(2,2)),
        "addmm_ndim1": lambda: L.addmm(o(2,2), o(2), o(2,2)),
        "addmm_ndim2": lambda: L.addmm(o(2,2), o(2,2), o(2)),
        "addmm_shape": lambda: L.addmm(o(2,2), o(2,3), o(2,2)),
        "addmm_bcast": lambda: L.addmm(o(3,3), o(2,2), o(2,2)),
        "addmm_dtype": lambda: L.addmm(o(2,2), o(2, 2, **d), o(2,2)),
        "addmm_dtype_in": lambda: L.addmm(o(2, 2, **d), o(2,2), o(2,2)),
        "addmv_ndim1": lambda: L.addmv(o(2), o(2), o(2)),
        "addmv_ndim2": lambda: L.addmv(o(2), o(2,2), o(2,2)),
        "addmv_size": lambda: L.addmv(o(2), o(2,3), o(2)),
        "addmv_bcast": lambda: L.addmv(o(3), o(2,2), o(2)),
        "addmv_dtype": lambda: L.addmv(o(2), o(2, 2, **d), o(2)),
        "addr_ndim1": lambda: L.addr(o(2,2), o(2,2), o(2)),
        "addr_ndim2": lambda: L.addr(o(2,2), o(2), o(2,2)),
        "addr_bcast": lambda: L.addr(o(3,3), o(2), o(2)),
        "addr_dtype": lambda: L.addr(o(2,2), o(2,**d), o(2)),
        "bmm_ndim1": lambda: L.bmm(o(2,2), o(2,2,2)),
        "bmm_ndim2": lambda: L.bmm(o(2,2,2), o(2,2)),
        "bmm_batch": lambda: L.bmm(o(2,2,2), o(3,2,2)),
        "bmm_shape": lambda: L.bmm(o(2,2,3), o(2,2,2)),
        "bmm_dtype": lambda: L.bmm(o(2,2,2), o(2,2,2,**d)),
        "baddbmm_ndim1": lambda: L.baddbmm(o(2,2,2), o(2,2), o(2,2,2)),
        "baddbmm_ndim2": lambda: L.baddbmm(o(2,2,2), o(2,2,2), o(2,2)),
        "baddbmm_batch": lambda: L.baddbmm(o(2,2,2), o(2,2,2), o(3,2,2)),
        "baddbmm_shape": lambda: L.baddbmm(o(2,2,2), o(2,2,3), o(2,2,2)),
        "baddbmm_bcast": lambda: L.baddbmm(o(3,2,2), o(2,2,2), o(2,2,2)),
        "baddbmm_dtype": lambda: L.baddbmm(o(2,2,2), o(2,2,2,**d), o(2,2,2)),
        "addbmm_ndim1": lambda: L.addbmm(o(2,2), o(2,2), o(2,2,2)),
        "addbmm_batch": lambda: L.addbmm(o(2,2), o(2,2,2), o(3,2,2)),
        "addbmm_shape": lambda: L.addbmm(o(2,2), o(2,2,3), o(2,2,2)),
        "addbmm_bcast": lambda: L.addbmm(o(3,3), o(2,2,2), o(2,2,2)),
        "addbmm_dtype": lambda: L.addbmm(o(2,2), o(2,2,2,**d), o(2,2,2)),
        "addbmm_in": lambda: L.addbmm(o(2, 2, **d), o(2,2,2), o(2,2,2)),
        "addbmm_b2": lambda: L.addbmm(o(2,2), o(2,2,2), o(2,2,2,**d)),
        "addbmm_ndim2": lambda: L.addbmm(o(2,2), o(2,2,2), o(2,2)),
        "addmm_m2": lambda: L.addmm(o(2,2), o(2,2), o(2, 2, **d)),
        "baddbmm_in": lambda: L.baddbmm(o(2,2,2,**d), o(2,2,2), o(2,2,2)),
        "addmv_in": lambda: L.addmv(o(2,**d), o(2,2), o(2)),
        "addmv_vec": lambda: L.addmv(o(2), o(2,2), o(2,**d)),
        "addmv_0d": lambda: L.addmv(L.tensor(1.), o(2,2), o(2)),
        "addmv_size1": lambda: L.addmv(o(1), o(2,3), o(3)),
        "addmv_2d": lambda: L.addmv(o(2,2), o(2,3), o(3)),
        "addmm_3d": lambda: L.addmm(o(2,2,2), o(2,2), o(2,2)),
        "baddbmm_4d": lambda: L.baddbmm(o(1,2,2,2), o(2,2,2), o(2,2,2)),
        "bmm_dtype_rev": lambda: L.bmm(o(2,2,2,**d), o(2,2,2)),
        "dot_int_float": lambda: L.dot(o(2,dtype=L.int64), o(2)),
        "mv_vec_f64": lambda: L.mv(o(2,2), o(2,**d)),
        "mm_int_float": lambda: L.mm(o(2,2,dtype=L.int64), o(2,2)),
        "bmm_int": lambda: L.bmm(o(2,2,2,dtype=L.int64), o(2,2,2,dtype=L.int64)),
        "addmm_int": lambda: L.addmm(o(2,2,dtype=L.int64), o(2,2,dtype=L.int64), o(2,2,dtype=L.int64)),
    }


CASES = sorted(_cases(torch))


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the class and words are what is compared)
        kind = RuntimeError if isinstance(e, RuntimeError) else type(e)
        return kind, str(e)
    return "ok"


@pytest.mark.parametrize("case", CASES)
def test_blas_refusals_are_pytorchs(case):
    assert _outcome(_cases(mg)[case]) == _outcome(_cases(torch)[case])


def test_a_refused_product_leaves_no_node():
    a = mg.ones(2, 3, requires_grad=True)
    with mg.trace(values=False) as tr, pytest.raises(RuntimeError):
        mg.addmm(mg.ones(2, 2), a, mg.ones(2, 2, dtype=mg.float64))
    assert not [e for e in tr.events if e.kind == "node.create"]
