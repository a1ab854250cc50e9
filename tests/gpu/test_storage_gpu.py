"""A GPU tensor's storage: its base's device memory, shared by every view (``untyped_storage()``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg


@pytest.mark.gpu
def test_a_gpu_storage_is_its_base_s_device_memory() -> None:
    x = mg.arange(6.0).reshape(2, 3).to("gpu")
    s = x.untyped_storage()
    assert s.device == "cuda" and s.nbytes() == 24 and x[1].untyped_storage().data_ptr() == s.data_ptr()
    assert x.T.untyped_storage().data_ptr() == s.data_ptr()
    np.testing.assert_array_equal(np.array(x.storage().tolist()), np.arange(6.0))
