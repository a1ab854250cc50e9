"""The dispatch layer: what runs between an op's API check and its kernel (Paddle's generated ``<op>_dygraph_function``).

- ``generated/``: each op's dygraph function, written by ``codegen.py``
  (``minigrad codegen --write``): the steps below in a straight line per op;
- ``dygraph.py``: ``run_layers`` (AMP, the kernel layer, ``require_any_grad``,
  ``create_grad_node``, each step's events), ``run_inplace`` (in-place
  history), ``run_to_device``;
- ``array_mode.py``: ``ctx.ops`` of the backward formulas on arrays;
- ``amp.py`` / ``amp_state.py``: autocast and the allow/deny lists, filled
  from each op's ``amp=`` category;
- ``op_table.py``: every op definition by name.

It sits above the kernel layer and below ``ops/``, which calls it.
"""
