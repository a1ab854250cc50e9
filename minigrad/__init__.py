"""minigrad: an instrumented teaching framework for deep-learning internals.

A small but complete eager engine - four-layer forward path, grad nodes,
a deque-driven backward engine, GeneralGrad - that emits an event for every
step. docs/pytorch-coverage.md lists the public API.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
"""

import os as _os

from . import _host_memory

_host_memory.configure_from_environment()  # NOTE [ Fresh pages for every large array ]

from . import dtypes, flags  # noqa: E402
from . import random
from .random import Generator, default_generator, get_rng_state, initial_seed, seed, set_rng_state
from .devices import channels_last_3d, contiguous_format, device, get_default_device, memory_format, preserve_format, set_default_device
from .dtypes import get_default_dtype, set_default_dtype
from .tensor import is_complex, is_floating_point, is_inference, is_nonzero, is_same_size, is_signed, is_tensor, numel
from .dtypes import can_cast, finfo, iinfo, promote_types, result_type
from .dtypes import DType as dtype  # torch.dtype: the class of mg.float32 ... (isinstance, annotations)
from .printing import set_printoptions
from math import e, inf, nan, pi  # torch.pi, torch.inf, ...: Python floats
from .dtypes import bool_, float16, float32, float64, int32, int64
from .tensor import Tensor
from .size import Size
from .creation import (
    arange,
    channels_last,
    full,
    full_like,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from .kernels import gpu as _gpu_backend  # noqa: F401  (registers the GPU backend; CuPy loads on first use)
from .ops import *  # noqa: F401,F403
from .ops import __all__ as _ops_all
from . import _tensor_methods  # noqa: F401  (operators and methods)
from .serialization import load, save
from .storage import TypedStorage, UntypedStorage  # also Tensor.untyped_storage() and Tensor.storage()
from . import _tensor_methods_more  # noqa: E402,F401  (resize_, share_memory_, dim_order ... the rest of Tensor)
from .tensor_types import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor,
                           LongTensor, ShortTensor)
# PyTorch's forms of four ops, exported here explicitly: ``mg.add``/``mg.sub`` take alpha= (ops/math.py),
# ``mg.div`` rounding_mode= (ops/division.py), ``mg.clip`` tensor bounds (ops/clamp.py); ``mg.ops.add`` ...
# stay the registered ops, which the operators and the backward formulas call.
from .ops.clamp import clip
from .ops.division import div
from .ops.math import add_form as add, rsub, sub_form as sub
from .ops.loss import aten_kl_div as kl_div  # torch.kl_div: its reduction an int (F.kl_div takes a string)
from .creation import as_tensor, eye, from_numpy, linspace, logspace, multinomial, randint, randperm, scalar_tensor
from .creation import bernoulli, empty, empty_like, empty_strided, normal, rand_like, randint_like, randn_like
from .ops.registry import factory_with_out as _factory_with_out
rand, randn = _factory_with_out(rand), _factory_with_out(randn)  # with PyTorch's out= (written as an op's out= is)
from . import autograd
from .autograd import enable_grad, grad, no_grad, set_grad_enabled, is_grad_enabled
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from .autograd.function import Function as _Function, FunctionCtx as _FunctionCtx

# ``mg.autograd.Function``: its module sits above the dygraph layer, which ``minigrad.autograd``'s
# own __init__ cannot import (``minigrad.tensor`` imports that package first), so it is attached here.
autograd.Function = _Function
autograd.FunctionCtx = _FunctionCtx
# ``mg.autograd.grad`` returns a tuple, as ``torch.autograd.grad``; ``mg.grad`` a list, as ``paddle.grad``.
autograd.grad = autograd.grad_tuple
autograd.grad.__name__ = autograd.grad.__qualname__ = "grad"
# ``mg.autograd.functional`` (jacobian, hessian, ...) and ``gradcheck``/``gradgradcheck``: API-level helpers
# under PyTorch's names (they use ops, which ``minigrad.autograd`` itself sits below).
from .autograd import functional as _autograd_functional  # noqa: E402,F401  (sets mg.autograd.functional)
from .autograd.gradcheck import GradcheckError as _GradcheckError, gradcheck as _gradcheck, gradgradcheck as _gradgradcheck

autograd.gradcheck = _gradcheck  # as in PyTorch, the function shadows its module's name
autograd.gradgradcheck = _gradgradcheck
autograd.GradcheckError = _GradcheckError
from . import func  # noqa: E402  (mg.func: grad, vmap, jacrev ... as torch.func)
from .func import vmap  # torch.vmap
from .kernels.backends import is_gpu_available, register_backend, unregister_backend
from .kernels.cascade_sum import get_num_threads, set_num_threads
from .ops import _return_types as return_types  # torch.return_types: the named tuples max(dim), sort ... return
import sys as _sys  # noqa: E402
_sys.modules[__name__ + ".return_types"] = return_types  # importable, and pickled by that name, as torch.return_types
from .dispatch.amp import autocast
from .tracing import trace
trace.matrix_trace = OPS["trace"]  # torch.trace(A): mg.trace is also the recorder
from . import nn, optim
from .optim import swa_utils as _swa_utils  # noqa: E402,F401  (mg.optim.swa_utils, which imports nn)
from . import cuda
from . import cpu  # torch.cpu: the CPU as a device module
from . import accelerator  # torch.accelerator: the tutorials' first line
from .autograd import inference_mode, is_inference_mode_enabled
from . import linalg  # torch.linalg's names
from . import special  # noqa: E402  (torch.special's names)
from . import backends, compiler  # noqa: E402  (torch.backends' switches; torch.compile runs eagerly)
from . import profiler  # noqa: E402  (torch.profiler: where a step's time goes)
from .autograd import profiler as _autograd_profiler  # noqa: E402,F401  (sets mg.autograd.profiler)
from .backends import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: E402
from .compiler import compile  # noqa: A001,E402
from . import utils  # noqa: E402  (mg.utils.data: datasets and the DataLoader)
from .determinism import (are_deterministic_algorithms_enabled, get_deterministic_debug_mode,  # noqa: E402
                          is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                          use_deterministic_algorithms)

bool = bool_  # noqa: A001  (mg.bool, as torch.bool)
# PyTorch's other names of the dtypes (torch.long, torch.float, ...), and its small integer dtypes.
from .dtypes import bfloat16, int8, int16, uint8  # noqa: E402
long = int64
float = float32  # noqa: A001
double = float64
half = float16
int = int32  # noqa: A001
short = int16


__all__ = [
    "Tensor", "tensor", "zeros", "ones", "full", "arange", "randn", "rand", "zeros_like", "ones_like",
    "full_like", "manual_seed", "channels_last", "float16", "float32", "float64", "int32", "int64", "bool", "bool_", "dtypes",
    "flags", "autograd", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "trace", "nn",
    "optim", "save", "load", "eye", "from_numpy", "linspace", "logspace", "multinomial", "randint", "randperm", "is_gpu_available", "register_backend", "unregister_backend", "autocast", *_ops_all,
]
__all__ += ["uint8", "int8", "int16", "short", "bfloat16", "long", "float", "double", "half", "int", "Size"]
# Older course code: the legacy typed constructors (minigrad/tensor_types.py) and as_tensor.
__all__ += ["backends", "compiler", "compile", "UntypedStorage", "TypedStorage"]
__all__ += ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
            "BoolTensor", "ByteTensor", "as_tensor"]
# PyTorch's names for devices, defaults and predicates.
__all__ += ["dtype", "is_floating_point", "is_complex", "is_inference", "is_nonzero", "is_same_size", "is_signed", "can_cast", "finfo", "iinfo",
            "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled",
            "promote_types", "result_type", "set_printoptions", "e", "inf", "nan", "pi", "rsub", "scalar_tensor", "accelerator",
            "kl_div"]
__all__ += ["get_num_threads", "set_num_threads", "device", "cuda", "cpu", "is_tensor", "numel", "get_default_dtype", "set_default_dtype", "get_default_device",
            "set_default_device", "inference_mode", "is_inference_mode_enabled",
            "memory_format", "contiguous_format", "preserve_format", "channels_last_3d"]
# Random numbers with PyTorch's streams (minigrad/random.py) and the creation functions that draw them.
__all__ += [
    "random", "Generator", "default_generator", "seed", "initial_seed", "get_rng_state", "set_rng_state",
    "bernoulli", "normal", "rand_like", "randn_like", "randint_like", "empty", "empty_like", "empty_strided",
]

# Reproducibility (minigrad/determinism.py).
__all__ += ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
            "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode", "get_deterministic_debug_mode"]

# torch._weight_norm: private in PyTorch, and called by nn.utils' weight normalization (ops/weight_norm.py)
from .ops.weight_norm import _weight_norm  # noqa: E402,F401
# torch._standard_gamma, _sample_dirichlet and their gradients: private in PyTorch, and drawn by
# torch.distributions' Gamma and Dirichlet (ops/distributions.py)
from .ops.distributions import _dirichlet_grad, _sample_dirichlet, _standard_gamma, _standard_gamma_grad  # noqa: E402,F401

# PyTorch's in-place functions (``mg.exp_(x)``, ``mg.zero_(x)``): the Tensor methods of the same name.
from ._inplace_methods import NAMESPACE_FORMS as _NAMESPACE_FORMS, namespace_form as _namespace_form  # noqa: E402

globals().update({_name: _namespace_form(_name) for _name in _NAMESPACE_FORMS})
__all__ += list(_NAMESPACE_FORMS)
# A real tensor's complex surface as functions (mg.conj, mg.real, mg.isreal ...), and torch.typename.
from ._tensor_methods import REAL_FORMS as _REAL_FORMS, typename  # noqa: E402
from .storage import is_storage  # noqa: E402

globals().update(_REAL_FORMS)
__all__ += [*_REAL_FORMS, "typename", "is_storage"]

# PyTorch's mixed-precision names: mg.amp.GradScaler, and autocast in PyTorch's spelling as well as
# minigrad's (mg.autocast("cuda", dtype=mg.float16) or mg.autocast("O1")); mg.cuda.amp, the older one.
from . import amp  # noqa: E402
from . import testing  # noqa: E402  (torch.testing: assert_close, make_tensor)
from . import distributions  # noqa: E402  (torch.distributions: written with the names above)
from .amp import GradScaler, autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402,F811

cuda.amp = amp.cuda_amp
__all__ += ["amp", "GradScaler", "is_autocast_enabled", "get_autocast_dtype"]
from .torch_functions import *  # noqa: E402,F401,F403,A001  (PyTorch's other top-level functions: torch_functions.py)
from . import torch_functions as _torch_functions  # noqa: E402
from ._tensor_methods_more import LEGACY_STORAGES as _LEGACY_STORAGES  # noqa: E402  (FloatStorage ...)

globals().update({_cls.__name__: _cls for _cls in _LEGACY_STORAGES.values()})
__all__ += [*_torch_functions.__all__, *(_cls.__name__ for _cls in _LEGACY_STORAGES.values())]
# PyTorch's autocast state functions (mg.set_autocast_enabled("cpu", True) ...), and torch.cond.
from .amp import STATE_FUNCTIONS as _AMP_STATE_FUNCTIONS  # noqa: E402
from .control_flow import cond  # noqa: E402

globals().update({_name: getattr(amp, _name) for _name in _AMP_STATE_FUNCTIONS})
__all__ += [*_AMP_STATE_FUNCTIONS, "cond"]


def __getattr__(name: str) -> object:
    # ``mg.viz`` works after a plain ``import minigrad``, importing the renderer (and
    # graphviz) only on first use: the engine itself never imports the viewers.
    if name in ("viz", "tui"):
        import importlib

        return importlib.import_module(f"minigrad.{name}")
    if name == "__version__":
        # One version number: pyproject.toml's, read back from the installed package's metadata
        # (on first use: importlib.metadata costs more to import than it is worth at start-up).
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("minigrad")
        except PackageNotFoundError:  # a checkout put on the path by hand, never installed
            return "0+unknown"
    raise AttributeError(f"module 'minigrad' has no attribute {name!r}")


def __dir__() -> list[str]:
    # NOTE [ The namespace is the API ] ``dir(mg)`` and tab completion list ``__all__``, the
    # subpackages (and here the lazily imported viewers), and the dunders - never the helpers a
    # module imports for itself (``Any``, ``OrderedDict``, the ``annotations`` of
    # ``from __future__ import annotations``). The public modules (mg, mg.nn, mg.nn.functional,
    # mg.optim, mg.autograd) each define ``__dir__`` so (PEP 562, as NumPy and SciPy do);
    # tests/test_namespace.py checks them.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, "viz", "tui", "__version__", *(n for n in globals() if n.startswith("__"))})


if _os.environ.get("MINIGRAD_TRACE"):
    from .tracing.recorder import start_env_recording as _start_env_recording

    _start_env_recording(_os.environ["MINIGRAD_TRACE"])
