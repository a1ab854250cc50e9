"""Function transforms (``mg.func``, PyTorch's ``torch.func``): ``grad``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, ``vmap``, and ``functional_call`` to make a module a function of its parameters.

``grad(f)`` is a new function that returns the gradient of ``f`` (a function returning one scalar)
with respect to some of its arguments - a tensor, or a dict or tuple of tensors (a model's
parameters). It is built on ``mg.grad(create_graph=True)``, so transforms nest: ``grad(grad(f))`` is
the second derivative, ``jacfwd(jacrev(f))`` the Hessian.

``vmap(f)`` maps ``f`` over a dimension of its inputs: ``vmap(grad(loss))`` gives one gradient per
sample. PyTorch batches each op (a batching rule turns ``sin`` of one sample into ``sin`` of the
batch); minigrad runs ``f`` once per sample and stacks the results, which is what PyTorch itself
does for an op without a batching rule. The values and gradients are the same; the trace shows one
pass of ``f`` per sample. (NOTE [ vmap runs the function once per sample ].)

PyTorch implements ``torch.func`` with functorch's levels; minigrad differentiates the ordinary graph,
with the same numbers. It has no forward-mode AD: ``jvp`` and ``jacfwd`` use the double-backward trick.

Example:
    >>> import minigrad as mg
    >>> from minigrad.func import grad, vmap
    >>> x = mg.tensor(2.0, dtype=mg.float64)
    >>> grad(lambda t: t ** 3)(x).item(), grad(grad(lambda t: t ** 3))(x).item()
    (12.0, 12.0)
    >>> vmap(grad(lambda t: t ** 3))(mg.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

from . import ops
from . import random as _random
from ._pytree import TreeSpec, broadcast_prefix, tree_flatten, tree_unflatten
from .autograd import grad as _autograd_grad
from .autograd.grad_mode import enable_grad
from .creation import eye, zeros, zeros_like
from .nn.module import Module
from .ops.registry import OpDef
from .nn.utils.stateless import _functional_call
from .tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "replace_all_batch_norm_modules_", "debug_unwrap"]


# -- the arguments a transform differentiates ----------------------------------------------------

def _argnums(argnums: Any, n_args: int) -> tuple[int, ...]:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -n_args <= a < n_args:
            raise RuntimeError(f"Got argnum={a}, but only {n_args} positional inputs")
    nums = tuple(a % n_args for a in nums)
    if len(set(nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return nums


def _diff_leaf(t: Any) -> Tensor:
    """A tensor to differentiate with respect to: a differentiable identity of ``t`` when ``t`` already
    requires grad (so an outer transform, or the caller's own backward, sees through), else a fresh leaf."""
    if not isinstance(t, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    if not t.dtype.is_floating:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return ops.reshape(t, tuple(t.shape)) if t.requires_grad else t.detach().requires_grad_(True)


class _Diff:
    """The call's arguments with those at ``nums`` (tensors or containers of them) made differentiable."""

    def __init__(self, args: Iterable[Any], nums: Iterable[int]) -> None:
        self.args = list(args)
        self.specs: list[TreeSpec] = []
        self.groups: list[list[Tensor]] = []
        self.outer = False  # an input requires grad outside: results keep their graph
        for i in nums:
            flat, spec = tree_flatten(self.args[i])
            self.outer = self.outer or any(isinstance(t, Tensor) and t.requires_grad for t in flat)
            leaves = [_diff_leaf(t) for t in flat]
            self.args[i] = tree_unflatten(leaves, spec)
            self.specs.append(spec)
            self.groups.append(leaves)

    @property
    def leaves(self) -> list[Tensor]:
        return [t for g in self.groups for t in g]

    def keep(self, t: Tensor) -> Tensor:
        return t if self.outer else t.detach()

    def regroup(self, flat: list[Any], as_tuple: bool) -> Any:
        """``flat`` (one value per leaf) in the arguments' containers: one per argument, a tuple of them
        when the transform was given a tuple of positions."""
        trees, k = [], 0
        for spec, g in zip(self.specs, self.groups):
            trees.append(tree_unflatten(flat[k:k + len(g)], spec))
            k += len(g)
        return tuple(trees) if as_tuple else trees[0]


def _zeros(shape: tuple[int, ...], like: Tensor) -> Tensor:
    return zeros(shape, dtype=like.dtype, device=like.device)


def _detach_all(value: Any) -> Any:
    """``aux`` as the caller gets it: tensors detached, containers rebuilt."""
    flat, spec = tree_flatten(value)
    return tree_unflatten([t.detach() if isinstance(t, Tensor) else t for t in flat], spec)


def _split_aux(result: Any, api: str) -> tuple[Any, Any]:
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return result


def _tensor_outputs(out: Any, api: str = "vjp(f, *primals)") -> tuple[list[Tensor], TreeSpec]:
    """The function's outputs as leaves, refused in PyTorch's words unless all are floating tensors."""
    flat, spec = tree_flatten(out)
    if not flat or (len(flat) == 1 and flat[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {flat})")
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")
    for o in flat:
        if not o.dtype.is_floating:
            raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                               f"Tensor with dtype {o.dtype}")
    return flat, spec


# -- grad ----------------------------------------------------------------------------------------

def grad_and_value(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """Like ``grad``, returning ``(gradient, value)`` (``((gradient, value), aux)`` becomes
    ``(gradient, (value, aux))`` with ``has_aux``)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        d = _Diff(args, _argnums(argnums, len(args)))
        with enable_grad():
            result = func(*d.args, **kwargs)
            aux = None
            if has_aux:
                result, aux = _split_aux(result, "grad_and_value(f)(*args)")
            if not isinstance(result, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(result)}")
            if result.ndim != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {result.ndim} dims. Maybe you wanted to use the vjp or jacrev "
                                   f"APIs instead?")
            leaves = d.leaves
            grads = (_autograd_grad(result, leaves, create_graph=True, allow_unused=True) if result.requires_grad
                     else [None] * len(leaves))
        # Zeros for an unused argument; the graph is kept only where an outer transform will look.
        flat = [d.keep(ops.fill(x.detach(), 0.0) if g is None else g) for g, x in zip(grads, leaves)]
        g_out = d.regroup(flat, isinstance(argnums, tuple))
        value = d.keep(result)
        if has_aux and not d.outer:
            aux = _detach_all(aux)
        return (g_out, (value, aux)) if has_aux else (g_out, value)

    return wrapper


def grad(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The gradient of ``func`` (which returns a 0-d tensor) with respect to argument ``argnums``
    (a tuple of positions gives a tuple of gradients; an argument that is a dict of tensors gets a
    dict of gradients); with ``has_aux``, ``func`` returns ``(output, aux)`` and the new function
    ``(gradient, aux)``."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


# -- vjp, jvp, linearize -------------------------------------------------------------------------

def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` (shaped as the output) returns a tuple
    with the vector-Jacobian product for each primal - one backward pass of the recorded graph per call."""
    d = _Diff(primals, range(len(primals)))
    with enable_grad():
        out = func(*d.args)
        aux = None
        if has_aux:
            out, aux = _split_aux(out, "vjp(f, *primals)")
        flat_out, out_spec = _tensor_outputs(out)
    leaves = d.leaves

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None) -> tuple[Any, ...]:
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {ct_spec.pprint()}, primal output: "
                               f"{out_spec.pprint()}")
        pairs = [(o, c) for o, c in zip(flat_out, flat_ct) if o.requires_grad]
        with enable_grad():
            grads = (_autograd_grad([o for o, _ in pairs], leaves, [c for _, c in pairs], retain_graph=True,
                                    create_graph=True, allow_unused=True) if pairs else [None] * len(leaves))
        keep = d.outer or any(isinstance(c, Tensor) and c.requires_grad for c in flat_ct)
        flat = [g if g is not None else _zeros(tuple(x.shape), x) for g, x in zip(grads, leaves)]
        return d.regroup([g if keep else g.detach() for g in flat], True)

    result = tree_unflatten([d.keep(o) for o in flat_out], out_spec)
    if has_aux:
        return result, vjp_fn, (aux if d.outer else _detach_all(aux))
    return result, vjp_fn


def _jvp(func: Callable[..., Any], primals: Any, tangents: Any, strict: bool, has_aux: bool,
         api: str = "jvp(f, primals, tangents)") -> tuple[Any, ...]:
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, "
                           f"if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
        for t in flat:
            if not isinstance(t, Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(t)}")
    for p, t in zip(flat_p, flat_t):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                               f"the given forward gradient is of size {list(t.shape)}.")
    d = _Diff(primals, range(len(primals)))
    leaves = d.leaves
    with enable_grad():
        out = func(*d.args)
        aux = None
        if has_aux:
            out, aux = _split_aux(out, api)
        flat_out, out_spec = tree_flatten(out)
        for o in flat_out:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"{api}: expected f(*args) to return only tensors, got unsupported type {type(o)}")
        # The double-backward trick: u^T J is linear in a dummy u; its gradient with respect to u,
        # seeded with the tangents, is J v (one reverse pass each way, as autograd.functional.jvp).
        diff_out = [o for o in flat_out if o.requires_grad]
        dummies = [_zeros(tuple(o.shape), o).requires_grad_(True) for o in diff_out]
        back = (_autograd_grad(diff_out, leaves, dummies, create_graph=True, allow_unused=True) if diff_out
                else [None] * len(leaves))
        pairs = [(g, t) for g, t in zip(back, flat_t) if g is not None and g.requires_grad]
        fwd = (_autograd_grad([g for g, _ in pairs], dummies, [t for _, t in pairs], create_graph=True,
                              allow_unused=True) if pairs and dummies else [None] * len(dummies))
    by_output = dict(zip(map(id, diff_out), fwd))
    tangents_out = []
    for o in flat_out:
        jv = by_output.get(id(o))
        if jv is None:
            if strict:
                raise RuntimeError(f"{api}, strict=True): The output of f is independent of the inputs. This is "
                                   f"not allowed with strict=True.".replace("tangents), strict", "tangents, strict"))
            jv = _zeros(tuple(o.shape), o)
        keep = d.outer or any(t.requires_grad for t in flat_t)
        tangents_out.append(jv if keep else jv.detach())
    result = (tree_unflatten([d.keep(o) for o in flat_out], out_spec), tree_unflatten(tangents_out, out_spec))
    if has_aux:
        return (*result, aux if d.outer else _detach_all(aux))
    return result


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product, by the double-backward trick
    (minigrad has no forward-mode AD; the values are the same)."""
    return _jvp(func, primals, tangents, strict, has_aux)


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product at ``primals``."""
    out, _ = _jvp(func, primals, tuple(zeros_like(p) if isinstance(p, Tensor) else p for p in primals),
                  False, False)

    def jvp_fn(*tangents: Any) -> Any:
        return _jvp(func, primals, tangents, False, False)[1]

    return out, jvp_fn


# -- Jacobians and Hessians ----------------------------------------------------------------------

def _jacobian(func: Callable[..., Any], argnums: Any, has_aux: bool, args: tuple[Any, ...],
              kwargs: dict[str, Any]) -> Any:
    """Each output's Jacobian with respect to each differentiated input, ``output.shape + input.shape``,
    one backward pass per output element (a row), seeded with that element's one-hot vector."""
    d = _Diff(args, _argnums(argnums, len(args)))
    leaves = d.leaves
    with enable_grad():
        out = func(*d.args, **kwargs)
        aux = None
        if has_aux:
            out, aux = _split_aux(out, "vjp(f, *primals)")
        flat_out, out_spec = _tensor_outputs(out)
        per_output = []
        for o in flat_out:
            n, shape = o.numel(), tuple(o.shape)
            rows: list[list[Any]] = [[] for _ in leaves]
            if o.requires_grad and n:
                basis = eye(n, dtype=o.dtype, device=o.device)
                for k in range(n):
                    gs = _autograd_grad(o, leaves, ops.reshape(basis[k], shape), retain_graph=True,
                                        create_graph=True, allow_unused=True)
                    for r, g in zip(rows, gs):
                        r.append(g)
            jac = []
            for x, r in zip(leaves, rows):
                xs = tuple(x.shape)
                if any(g is not None for g in r):
                    full = [g if g is not None else _zeros(xs, x) for g in r]
                    jac.append(d.keep(ops.reshape(ops.stack(full, 0), shape + xs)))
                else:
                    jac.append(d.keep(_zeros(shape + xs, x)))
            per_output.append(d.regroup(jac, isinstance(argnums, tuple)))
    result = tree_unflatten(per_output, out_spec)
    return (result, aux if d.outer else _detach_all(aux)) if has_aux else result


def jacrev(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to argument ``argnums`` by reverse mode: shaped
    ``output.shape + input.shape`` (containers of outputs and inputs give containers of Jacobians)."""
    if chunk_size is not None and not chunk_size > 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _jacobian(func, argnums, has_aux, args, kwargs)

    return wrapper


def jacfwd(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """The Jacobian of ``func`` as PyTorch's forward-mode ``jacfwd`` lays it out (minigrad computes it
    by reverse mode: the same values). ``randomness`` as ``vmap``'s: a draw inside is refused by default."""
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _RandomnessGuard(randomness):
            return _jacobian(func, argnums, has_aux, args, kwargs)

    return wrapper


def hessian(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Hessian of ``func`` (which returns a scalar): ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)


# -- vmap ----------------------------------------------------------------------------------------

# NOTE [ vmap runs the function once per sample ]
#
# PyTorch's vmap wraps each input in a BatchedTensor and calls the function once; every op
# meets the batch through its batching rule (an op without one falls back to a loop over the
# samples). minigrad's vmap is that fallback for every op: it selects sample i of each mapped
# input (a view, so gradients reach the input), calls the function, and stacks the outputs
# along out_dims. The values and gradients are PyTorch's; what differs is what the student
# sees - one pass of the function per sample in the trace, a StackBackward0 where the outputs
# meet - and that code PyTorch refuses under vmap because a batch has no single value (.item(),
# `if x.sum() > 0`) runs here once per sample. Random draws are refused (randomness="error"),
# repeated (="same": the generator is put back before each sample) or drawn in turn (="different":
# each sample its own numbers, from the same stream as PyTorch's but not its batched draw).

_RANDOMNESS = ("error", "different", "same")


def _check_randomness(randomness: str) -> None:
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def _refuse_draw() -> None:
    raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the 'same' "
                       "or 'different' randomness flags on vmap or perform the randomness operation out of vmap")


class _RandomnessGuard:
    """While a mapped function runs: a draw refused (``"error"``), or the generators' states to restore
    before each sample (``"same"``)."""

    def __init__(self, randomness: str) -> None:
        self.randomness = randomness
        self.states: tuple[Any, ...] | None = None

    def __enter__(self) -> "_RandomnessGuard":
        if self.randomness == "error":
            _random.DRAW_GUARDS.append(_refuse_draw)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.randomness == "error":
            _random.DRAW_GUARDS.remove(_refuse_draw)

    def next_sample(self) -> None:
        if self.randomness != "same":
            return
        cpu, dev = _random.default_generator, _random.device_generator
        if self.states is None:
            self.states = (cpu.get_state(), dev._seed, dev._offset)
        else:
            cpu.set_state(self.states[0])
            dev._seed, dev._offset = self.states[1], self.states[2]


def _name(func: Any) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, OpDef):  # mg.sin is its op's definition; torch.sin a builtin named "sin"
        return func.name
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _mapped_inputs(func: Any, in_dims: Any, args: tuple[Any, ...]) -> tuple[list[Any], list[Any], TreeSpec, int]:
    """The flat arguments, each one's mapped dim (None: passed whole to every sample), and the batch size,
    checked as PyTorch's vmap checks them."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         f"trying to vmap over a function with no inputs. The latter is unsupported.")
    flat, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    for i, (arg, dim) in enumerate(zip(flat, dims)):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input but "
                             f"in_dim must be either an integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input but "
                             f"the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please "
                             f"use None as the respective in_dim")
        if not -arg.ndim <= dim < arg.ndim:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for some input, but "
                             f"that input is a Tensor of dimensionality {arg.ndim} so expected in_dim to satisfy "
                             f"-{arg.ndim} <= in_dim < {arg.ndim}.")
        dims[i] = dim % arg.ndim
    sizes = [arg.shape[dim] for arg, dim in zip(flat, dims) if dim is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return flat, dims, spec, sizes[0]


def _flat_out_dims(func: Any, out_dims: Any, first: Any, spec: TreeSpec) -> list[Any]:
    name = _name(func)
    for od in tree_flatten(out_dims)[0]:
        if od is not None and not isinstance(od, int):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                             f"collection of ints representing where in the outputs the vmapped dimension should "
                             f"appear.")
    if isinstance(first, Tensor):
        if out_dims is None or isinstance(out_dims, int):
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        dims = None
    else:
        dims = broadcast_prefix(out_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs "
                         f"has structure {spec}.")
    return dims


def _unmapped(name: str, values: list[Any]) -> Any:
    """An output returned with ``out_dims=None``: the same for every sample, or refused."""
    first = values[0]
    if not isinstance(first, Tensor) or all(v is first for v in values):
        return first
    same = all(isinstance(v, Tensor) and v.shape == first.shape and v.dtype == first.dtype
               and bool(ops.equal(v, first)) for v in values[1:])
    if not same:
        raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
    return first


def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable[..., Any]:
    """``func`` mapped over dim ``in_dims`` of its inputs (``None``: an input every sample sees whole; a
    tuple: one entry per argument, nested as the arguments are), its outputs stacked along ``out_dims``.

    Runs ``func`` once per sample (NOTE [ vmap runs the function once per sample ]); ``chunk_size`` is
    accepted and changes nothing."""
    _check_randomness(randomness)
    if chunk_size is not None and not chunk_size > 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        flat, dims, spec, size = _mapped_inputs(func, in_dims, args)
        guard = _RandomnessGuard(randomness)
        samples = []
        with guard:
            for i in range(max(size, 1)):
                guard.next_sample()
                if size:
                    picked = [a if dim is None else a.select(dim, i) for a, dim in zip(flat, dims)]
                else:  # an empty batch: run one stand-in sample of zeros for the outputs' shapes
                    picked = [a if dim is None else _zeros(tuple(a.shape[:dim] + a.shape[dim + 1:]), a)
                              for a, dim in zip(flat, dims)]
                samples.append(func(*tree_unflatten(picked, spec), **kwargs))
        out_flat = [tree_flatten(s) for s in samples]
        out_spec = out_flat[0][1]
        if any(s != out_spec for _, s in out_flat):
            raise RuntimeError(f"vmap({_name(func)}, ...): `{_name(func)}` returned outputs of different structures "
                               f"for different samples")
        name = _name(func)
        result = []
        for j, od in enumerate(_flat_out_dims(func, out_dims, samples[0], out_spec)):
            values = [leaves[j] for leaves, _ in out_flat]
            if od is None:
                result.append(_unmapped(name, values))
                continue
            if not all(isinstance(v, Tensor) for v in values):
                bad = next(v for v in values if not isinstance(v, Tensor))
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(bad)}. "
                                 f"Did you mean to set out_dims= to None for output?")
            stacked = ops.stack(values, od)
            result.append(stacked if size else ops.narrow(stacked, od % stacked.ndim, 0, 0))
        return tree_unflatten(result, out_spec)

    return wrapped


# -- modules as functions ------------------------------------------------------------------------

def functional_call(module: Module, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict from the
    names of ``named_parameters()``/``named_buffers()``, or a tuple of such dicts) in place of its own."""
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        repeated = list(dict.fromkeys(k for k in keys if keys.count(k) > 1))
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, tensors, args, kwargs, tie_weights=tie_weights, strict=strict)


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    wants = [t.requires_grad for t in tensors]
    if any(wants) and not all(wants):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = ops.stack(tensors, 0)
    return out.detach().requires_grad_() if all(wants) else out


def stack_module_state(models: Any) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and buffers of several models of one class, each stacked along a new first dim
    (new leaves): for ``vmap`` over ``functional_call``, an ensemble run as one model."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def debug_unwrap(tensor: Tensor, *, recurse: bool = True) -> Tensor:
    """The plain tensor under a transform's wrapper: ``tensor`` itself, as minigrad's transforms wrap
    nothing (a mapped function sees ordinary per-sample tensors, a differentiated one ordinary leaves)."""
    return tensor


def replace_all_batch_norm_modules_(root: Module) -> Module:
    """Make every batch norm in ``root`` use the batch's statistics only (no running buffers to update),
    as a function mapped by ``vmap`` must; returns ``root``."""
    for m in root.modules():
        if hasattr(m, "track_running_stats") and hasattr(m, "running_mean") and "BatchNorm" in type(m).__name__:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
