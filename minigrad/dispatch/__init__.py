"""The dispatch layer: what runs between an op's API check and its kernel (seed 004's "dygraph function").

- ``dygraph.py``: ``run_op`` (AMP, the kernel layer, ``require_any_grad``,
  grad-node creation), ``run_inplace`` (in-place history), ``run_to_device``;
- ``amp.py`` / ``amp_state.py``: autocast and the allow/deny lists, filled
  from each op's ``amp=`` category;
- ``op_table.py``: every op definition by name.

It sits above the kernel layer and below ``ops/``, which calls it.
"""
