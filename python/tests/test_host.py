"""fewfit.matmul on NumPy arrays against NumPy, and what the package shows of fewfit's choices:
explain, device, warm_up, clear_cache, build_stats."""

import numpy as np
import pytest

import fewfit
from reference import tolerance

SHAPES = [(1, 1, 1), (3, 1, 7), (1, 9, 4), (37, 29, 41), (64, 128, 32), (100, 3, 250), (0, 4, 3), (4, 0, 3),
          (4, 3, 0)]


@pytest.fixture(scope="module", autouse=True)
def default_device(queue):
    """matmul runs on fewfit's default device: skip where there is none, as for the queue."""
    return fewfit.device()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("order_a,order_b", [("C", "C"), ("F", "C"), ("C", "F"), ("F", "F")])
@pytest.mark.parametrize("m,n,k", SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in SHAPES])
def test_matmul_matches_numpy(rng, dtype, order_a, order_b, m, n, k):
    if dtype == np.float64 and not fewfit.device().fp64:
        pytest.skip("the default device has no fp64")
    a = np.asarray(rng.uniform(-1, 1, (m, k)), dtype=dtype, order=order_a)
    b = np.asarray(rng.uniform(-1, 1, (k, n)), dtype=dtype, order=order_b)
    c = fewfit.matmul(a, b)
    assert c.dtype == dtype and c.shape == (m, n) and c.flags.c_contiguous
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), **tolerance(dtype, k))


def test_matmul_dtypes_follow_numpy_but_at_least_float32(rng):
    """float16 with float16 stays float16, as NumPy's; with float32 it is float32."""
    a = rng.uniform(-1, 1, (5, 7)).astype(np.float16)
    b = rng.uniform(-1, 1, (7, 3)).astype(np.float16)
    assert fewfit.matmul(a, b).dtype == np.float16
    mixed = fewfit.matmul(a, b.astype(np.float32))
    assert mixed.dtype == np.float32
    np.testing.assert_allclose(mixed, a.astype(np.float64) @ b.astype(np.float64), **tolerance(np.float32, 7))


def test_matmul_tf32_compute(rng):
    a = rng.uniform(-1, 1, (40, 300)).astype(np.float32)
    b = rng.uniform(-1, 1, (300, 20)).astype(np.float32)
    c = fewfit.matmul(a, b, compute="tf32")
    tol = dict(rtol=2.0**-10, atol=2.0**-10 * 300) if fewfit.device().tensor_cores else tolerance(np.float32, 300)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, **tol)
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`compute`"):
        fewfit.matmul(a, b, compute="bf16")


def test_matmul_of_views_and_mixed_types(rng):
    a = rng.uniform(-1, 1, (40, 60))[::2, 1::3]  # a strided view: copied
    b = rng.uniform(-1, 1, (20, 9)).astype(np.float32)
    c = fewfit.matmul(a, b)
    assert c.dtype == np.float64  # float64 with float32 computes in float64
    np.testing.assert_allclose(c, a @ b.astype(np.float64), rtol=1e-10, atol=1e-12)
    ints = fewfit.matmul(np.arange(6, dtype=np.int16).reshape(2, 3), np.ones((3, 2), np.float32))
    assert ints.dtype == np.float32
    np.testing.assert_array_equal(ints, [[3, 3], [12, 12]])


def test_matmul_errors():
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`b` = 4x2: has 4 rows, a has 3 columns"):
        fewfit.matmul(np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`a` = an array of 1 dimensions: must be a matrix"):
        fewfit.matmul(np.ones(3), np.ones((3, 2)))
    with pytest.raises(fewfit.InvalidArgumentError, match=r"must hold real numbers"):
        fewfit.matmul(np.ones((2, 2), np.complex64), np.ones((2, 2)))


def test_device_of_a_queue_and_the_default(queue):
    mine = fewfit.device(queue)
    assert mine.name == queue.device.name
    assert mine.compute_units == queue.device.max_compute_units
    assert mine.device_class in ("cpu", "nvidia-gpu", "gpu", "default")
    assert str(fewfit.device()).startswith(fewfit.device().name)


def test_explain_of_each_dtype(queue):
    """The tree of the precision the call runs in: f16 for float16, tf32 for float32 with
    compute="tf32" where the device has tensor cores (else f32)."""
    tf32 = "tf32" if fewfit.device(queue).tensor_cores else "f32"
    for dtype, compute, precision in [(np.float16, "default", "f16"), (np.float32, "tf32", tf32),
                                      (np.float32, "default", "f32")]:
        e = fewfit.explain(64, 64, 64, queue=queue, dtype=dtype, compute=compute)
        assert f"class {e.device_class}, {precision}:" in str(e) and e.variant in str(e)
        for step in e.path:
            assert step.went_le == (step.value <= step.threshold)
    with pytest.raises(fewfit.UnavailableError, match="int8"):
        fewfit.explain(2, 2, 2, queue=queue, dtype=np.int8)


def test_explain_walks_the_tree(queue):
    e = fewfit.explain(1, 4096, 4096, queue=queue)
    assert e.device_class == fewfit.device(queue).device_class
    assert e.variant in str(e) and e.variant_id and e.leaf >= 0
    # Row-major: the kernel's view swaps M and N.
    assert (e.features["m"], e.features["n"], e.features["k"]) == (4096, 1, 4096)
    assert e.features["compute_units"] == queue.device.max_compute_units
    for step in e.path:
        assert step.went_le == (step.value <= step.threshold)
        assert e.features[step.feature] == step.value
    col = fewfit.explain(1, 4096, 4096, queue=queue, layout="col")
    assert (col.features["m"], col.features["n"]) == (1, 4096)
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`k` = -2"):
        fewfit.explain(3, 3, -2)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_warm_up_then_calls_build_nothing(queue, rng, dtype):
    import pyopencl.array as cla

    fewfit.warm_up(queue, dtype)
    before = sum(fewfit.build_stats())
    a = cla.to_device(queue, rng.uniform(-1, 1, 300 * 300).astype(dtype))
    c = cla.zeros(queue, 300 * 300, dtype)
    for m, n, k in [(1, 300, 300), (300, 300, 300), (17, 5, 290)]:
        fewfit.gemm(queue, m, n, k, a, a, c, k, n, n).wait()
    assert sum(fewfit.build_stats()) == before


def test_warm_up_of_tf32_and_of_what_fewfit_does_not_compute_in(queue):
    fewfit.warm_up(queue, np.float32, compute="tf32")
    with pytest.raises(fewfit.UnavailableError, match="complex64"):
        fewfit.warm_up(queue, np.complex64)


def test_clear_cache_then_calls_work_again(queue, rng):
    import pyopencl.array as cla

    a = cla.to_device(queue, rng.uniform(-1, 1, 64).astype(np.float32))
    c = cla.zeros(queue, 64, np.float32)
    fewfit.gemm(queue, 8, 8, 8, a, a, c, 8, 8, 8).wait()
    assert fewfit.clear_cache() >= 1
    fewfit.gemm(queue, 8, 8, 8, a, a, c, 8, 8, 8).wait()
    x = a.get().reshape(8, 8).astype(np.float64)
    np.testing.assert_allclose(c.get().reshape(8, 8), x @ x, rtol=1e-5, atol=1e-6)
