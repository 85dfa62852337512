"""Shared fixtures: a pyopencl queue on the first device (PYOPENCL_CTX picks another), whether it
does float64, and a seeded random generator.

Without an OpenCL device the device tests skip, unless FEWFIT_TEST_DEVICE=require (as
scripts/test.sh sets), where they fail.
"""

import os

import numpy as np
import pytest

cl = pytest.importorskip("pyopencl")
import pyopencl.array  # noqa: E402,F401


@pytest.fixture(scope="session")
def queue():
    try:
        ctx = cl.create_some_context(interactive=False)
    except Exception as e:  # no platform, no device
        if os.environ.get("FEWFIT_TEST_DEVICE") == "require":
            pytest.fail(f"no OpenCL device: {e}")
        pytest.skip(f"no OpenCL device: {e}")
    return cl.CommandQueue(ctx)


@pytest.fixture(scope="session")
def fp64(queue):
    return queue.device.double_fp_config != 0


@pytest.fixture
def rng():
    return np.random.default_rng(42)
