"""The pyclblast-style calls on pyopencl Arrays against NumPy, in float32, float64 and float16: edge
shapes, both layouts, all transposes, offsets and padded leading dimensions, strided and per-item
batches, the margins around C left untouched, and the TF32 compute mode."""

import inspect

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import fewfit
from reference import extent, random_buffer, reference, stored, tf32_tolerance, tolerance

# (m, n, k): ones, odd sizes around the tiles, thin and wide, and empty products.
SHAPES = [
    (1, 1, 1), (1, 7, 3), (7, 1, 5), (3, 5, 1), (2, 3, 4), (17, 33, 9), (31, 1, 64), (1, 130, 65),
    (64, 64, 64), (65, 63, 129), (128, 96, 40), (0, 5, 3), (5, 0, 3), (5, 3, 0),
]
TRANSPOSES = [(False, False), (True, False), (False, True), (True, True)]
DTYPES = [np.float32, np.float64, np.float16]


@pytest.fixture
def dtype(request, fp64):
    if request.param == np.float64 and not fp64:
        pytest.skip("the device has no fp64")
    return request.param


def run_gemm(queue, rng, dtype, row_major, ta, tb, m, n, k, alpha, beta, offsets=(0, 0, 0), pads=(0, 0, 0),
             compute="default"):
    """One fewfit.gemm on random buffers; returns (result buffer of C, expected)."""
    lines = (stored(m, k, ta, row_major), stored(k, n, tb, row_major), stored(m, n, False, row_major))
    lda, ldb, ldc = (max(1, length) + pad for (_, length), pad in zip(lines, pads))
    a = random_buffer(rng, extent(offsets[0], m, k, ta, row_major, lda), dtype)
    b = random_buffer(rng, extent(offsets[1], k, n, tb, row_major, ldb), dtype)
    c = random_buffer(rng, extent(offsets[2], m, n, False, row_major, ldc), dtype)
    a_d, b_d, c_d = (cla.to_device(queue, x) for x in (a, b, c))
    event = fewfit.gemm(
        queue, m, n, k, a_d, b_d, c_d, lda, ldb, ldc, alpha=alpha, beta=beta, a_transp=ta, b_transp=tb,
        a_offset=offsets[0], b_offset=offsets[1], c_offset=offsets[2], layout="row" if row_major else "col",
        compute=compute,
    )
    assert isinstance(event, cl.Event)
    event.wait()
    expected = reference(row_major, ta, tb, m, n, k, alpha, a, offsets[0], lda, b, offsets[1], ldb, beta, c,
                         offsets[2], ldc)
    return c_d.get(), expected


@pytest.mark.parametrize("dtype", DTYPES, indirect=True)
@pytest.mark.parametrize("row_major", [True, False], ids=["row", "col"])
@pytest.mark.parametrize("ta,tb", TRANSPOSES, ids=["nn", "tn", "nt", "tt"])
@pytest.mark.parametrize("m,n,k", SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in SHAPES])
def test_gemm_matches_numpy(queue, rng, dtype, row_major, ta, tb, m, n, k):
    got, expected = run_gemm(queue, rng, dtype, row_major, ta, tb, m, n, k, alpha=1.0, beta=0.0)
    np.testing.assert_allclose(got, expected, **tolerance(dtype, k))


@pytest.mark.parametrize("dtype", DTYPES, indirect=True)
@pytest.mark.parametrize("alpha,beta", [(0.5, 0.0), (-1.5, 1.0), (2.0, -0.25), (0.0, 3.0), (0.0, 0.0)])
def test_alpha_and_beta(queue, rng, dtype, alpha, beta):
    got, expected = run_gemm(queue, rng, dtype, True, False, True, 33, 17, 21, alpha, beta)
    np.testing.assert_allclose(got, expected, **tolerance(dtype, 21))


@pytest.mark.parametrize("dtype", DTYPES, indirect=True)
@pytest.mark.parametrize("row_major", [True, False], ids=["row", "col"])
@pytest.mark.parametrize("ta,tb", TRANSPOSES, ids=["nn", "tn", "nt", "tt"])
def test_offsets_and_padded_leading_dimensions(queue, rng, dtype, row_major, ta, tb):
    got, expected = run_gemm(queue, rng, dtype, row_major, ta, tb, 19, 23, 11, 1.25, 0.5,
                             offsets=(7, 3, 13), pads=(2, 5, 3))
    np.testing.assert_allclose(got, expected, **tolerance(dtype, 11))


def test_offset_of_an_array_view_is_added(queue, rng):
    """a[6:] is read where it lies: its own offset adds to a_offset (pyclblast leaves it out)."""
    m, n, k = 4, 5, 3
    a = random_buffer(rng, 6 + 2 + m * k, np.float32, margin=0)
    b = random_buffer(rng, k * n, np.float32, margin=0)
    a_d, b_d = cla.to_device(queue, a), cla.to_device(queue, b)
    c_d = cla.zeros(queue, m * n, np.float32)
    fewfit.gemm(queue, m, n, k, a_d[6:], b_d, c_d, k, n, n, a_offset=2).wait()
    expected = a[8:8 + m * k].reshape(m, k).astype(np.float64) @ b.reshape(k, n)
    np.testing.assert_allclose(c_d.get().reshape(m, n), expected, rtol=1e-5, atol=1e-6)


def test_two_dimensional_arrays_as_pyclblast_takes_them(queue, rng):
    a = rng.uniform(-1, 1, (40, 30)).astype(np.float32)
    b = rng.uniform(-1, 1, (30, 20)).astype(np.float32)
    a_d, b_d = cla.to_device(queue, a), cla.to_device(queue, b)
    c_d = cla.zeros(queue, (40, 20), np.float32)
    fewfit.gemm(queue, 40, 20, 30, a_d, b_d, c_d, 30, 20, 20).wait()
    np.testing.assert_allclose(c_d.get(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-5)


def test_event_orders_later_work(queue, rng):
    """The returned event is a pyopencl.Event that later pyopencl work can wait for."""
    a_d = cla.to_device(queue, rng.uniform(-1, 1, 64 * 64).astype(np.float32))
    c_d = cla.zeros(queue, 64 * 64, np.float32)
    event = fewfit.gemm(queue, 64, 64, 64, a_d, a_d, c_d, 64, 64, 64)
    out = np.empty(64 * 64, np.float32)
    cl.enqueue_copy(queue, out, c_d.data, wait_for=[event]).wait()
    assert event.command_execution_status == cl.command_execution_status.COMPLETE
    a = a_d.get().reshape(64, 64).astype(np.float64)
    np.testing.assert_allclose(out.reshape(64, 64), a @ a, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES, indirect=True)
@pytest.mark.parametrize("ta,tb", TRANSPOSES, ids=["nn", "tn", "nt", "tt"])
def test_strided_batch(queue, rng, dtype, ta, tb):
    m, n, k, count = 9, 14, 6, 4
    lda, ldb, ldc = (m if ta else k), (k if tb else n), n
    sa, sb, sc = m * k + 3, k * n + 1, m * n + 2
    a = random_buffer(rng, 5 + sa * count, dtype)
    b = random_buffer(rng, 2 + sb * count, dtype)
    c = random_buffer(rng, 1 + sc * count, dtype)
    a_d, b_d, c_d = (cla.to_device(queue, x) for x in (a, b, c))
    fewfit.gemmStridedBatched(queue, m, n, k, count, a_d, b_d, c_d, lda, ldb, ldc, sa, sb, sc, alpha=0.75,
                              beta=0.5, a_transp=ta, b_transp=tb, a_offset=5, b_offset=2, c_offset=1).wait()
    expected = c.astype(np.float64)
    for i in range(count):
        expected = reference(True, ta, tb, m, n, k, 0.75, a, 5 + i * sa, lda, b, 2 + i * sb, ldb, 0.5, expected,
                             1 + i * sc, ldc)
    np.testing.assert_allclose(c_d.get(), expected, **tolerance(dtype, k))


def test_strided_batch_of_interleaved_heads(queue, rng):
    """C items may interleave (attention heads side by side in one row) but not overlap."""
    m, n, k, heads = 8, 4, 5, 3
    a = random_buffer(rng, heads * m * k, np.float32, 0)
    b = random_buffer(rng, heads * k * n, np.float32, 0)
    a_d, b_d = cla.to_device(queue, a), cla.to_device(queue, b)
    c_d = cla.zeros(queue, m * n * heads, np.float32)
    fewfit.gemmStridedBatched(queue, m, n, k, heads, a_d, b_d, c_d, k, n, n * heads, m * k, k * n, n).wait()
    got = c_d.get().reshape(m, heads, n)
    for h in range(heads):
        ref = a[h * m * k:(h + 1) * m * k].reshape(m, k).astype(np.float64) @ b[h * k * n:(h + 1) * k * n].reshape(k, n)
        np.testing.assert_allclose(got[:, h, :], ref, rtol=1e-5, atol=1e-5)


def batched_case(queue, rng, dtype, alphas, betas, offsets, ta=False, tb=False):
    m, n, k = 6, 5, 7
    lda, ldb, ldc = (m if ta else k), (k if tb else n), n
    count = len(alphas)
    a_off, b_off, c_off = offsets
    a = random_buffer(rng, max(a_off) + m * k, dtype)
    b = random_buffer(rng, max(b_off) + k * n, dtype)
    c = random_buffer(rng, max(c_off) + m * n, dtype)
    a_d, b_d, c_d = (cla.to_device(queue, x) for x in (a, b, c))
    event = fewfit.gemmBatched(queue, m, n, k, a_d, b_d, c_d, alphas, betas, lda, ldb, ldc, a_off, b_off, c_off,
                               a_transp=ta, b_transp=tb)
    assert isinstance(event, cl.Event)
    event.wait()
    expected = c.astype(np.float64)
    for i in range(count):
        expected = reference(True, ta, tb, m, n, k, alphas[i], a, a_off[i], lda, b, b_off[i], ldb, betas[i],
                             expected, c_off[i], ldc)
    np.testing.assert_allclose(c_d.get(), expected, **tolerance(dtype, k))


@pytest.mark.parametrize("dtype", DTYPES, indirect=True)
@pytest.mark.parametrize("ta,tb", TRANSPOSES, ids=["nn", "tn", "nt", "tt"])
def test_batched_uniform_runs_as_one_strided_launch(queue, rng, dtype, ta, tb):
    batched_case(queue, rng, dtype, [1.5] * 3, [0.5] * 3, ([0, 50, 100], [3, 43, 83], [1, 41, 81]), ta, tb)


@pytest.mark.parametrize("dtype", DTYPES, indirect=True)
def test_batched_per_item_alphas_betas_and_offsets(queue, rng, dtype):
    batched_case(queue, rng, dtype, [1.0, -2.0, 0.5, 0.0], [0.0, 1.0, -0.5, 2.0],
                 ([0, 90, 45, 10], [60, 0, 30, 5], [0, 70, 35, 100]))


def test_batched_items_on_one_c_accumulate_in_order(queue, rng):
    """Overlapping C items (every item on the same C, beta 1) run one after the other."""
    batched_case(queue, rng, np.float32, [1.0] * 4, [1.0] * 4, ([0, 42, 84, 126], [0, 35, 70, 105], [0] * 4))


def test_empty_batch_returns_an_event(queue):
    a = cla.zeros(queue, 16, np.float32)
    fewfit.gemmBatched(queue, 2, 2, 2, a, a, a, [], [], 2, 2, 2, [], [], []).wait()
    fewfit.gemmStridedBatched(queue, 2, 2, 2, 0, a, a, a, 2, 2, 2, 4, 4, 4).wait()


# pyclblast 1.4.0's signatures (src/pyclblast/src/pyclblast.pyx), which fewfit's must start with.
PYCLBLAST_SIGNATURES = {
    "gemm": "queue, m, n, k, a, b, c, a_ld, b_ld, c_ld, alpha=1.0, beta=0.0, a_transp=False, b_transp=False, "
            "a_offset=0, b_offset=0, c_offset=0",
    "gemmBatched": "queue, m, n, k, a, b, c, alphas, betas, a_ld, b_ld, c_ld, a_offsets, b_offsets, c_offsets, "
                   "a_transp=False, b_transp=False",
    "gemmStridedBatched": "queue, m, n, k, batch_count, a, b, c, a_ld, b_ld, c_ld, a_stride, b_stride, c_stride, "
                          "alpha=1.0, beta=0.0, a_transp=False, b_transp=False, a_offset=0, b_offset=0, c_offset=0",
}


def positional(signature):
    return ", ".join(
        str(p) for p in signature.parameters.values() if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD
    )


@pytest.mark.parametrize("name", sorted(PYCLBLAST_SIGNATURES))
def test_signatures_are_pyclblasts(name):
    """Same names, order and defaults; fewfit adds only the keyword-only `layout` and `compute`."""
    signature = inspect.signature(getattr(fewfit, name))
    assert positional(signature) == PYCLBLAST_SIGNATURES[name]
    extra = [p.name for p in signature.parameters.values() if p.kind != inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert extra == ["layout", "compute"]


@pytest.mark.parametrize("ta,tb", TRANSPOSES, ids=["nn", "tn", "nt", "tt"])
def test_tf32_compute(queue, rng, ta, tb):
    """compute="tf32": float32 within TF32's tolerance (on a device without tensor cores, float32's)."""
    k = 70
    got, expected = run_gemm(queue, rng, np.float32, True, ta, tb, 33, 20, k, 1.5, -0.5, compute="tf32")
    np.testing.assert_allclose(got, expected, **(tf32_tolerance(k) if fewfit.device(queue).tensor_cores
                                                 else tolerance(np.float32, k)))


def test_tf32_compute_of_the_batches(queue, rng):
    m, n, k, count = 9, 14, 40, 3
    a = random_buffer(rng, m * k * count, np.float32, 0)
    b = random_buffer(rng, k * n * count, np.float32, 0)
    c = random_buffer(rng, m * n * count, np.float32, 0)
    tol = tf32_tolerance(k) if fewfit.device(queue).tensor_cores else tolerance(np.float32, k)
    a_d, b_d = cla.to_device(queue, a), cla.to_device(queue, b)
    expected = c.astype(np.float64)
    for i in range(count):
        expected = reference(True, False, False, m, n, k, 0.5, a, i * m * k, k, b, i * k * n, n, 1.0, expected,
                             i * m * n, n)
    c_d = cla.to_device(queue, c)
    fewfit.gemmStridedBatched(queue, m, n, k, count, a_d, b_d, c_d, k, n, n, m * k, k * n, m * n, alpha=0.5,
                              beta=1.0, compute="tf32").wait()
    np.testing.assert_allclose(c_d.get(), expected, **tol)
    c_d = cla.to_device(queue, c)
    offsets = ([i * m * k for i in range(count)], [i * k * n for i in range(count)], [i * m * n for i in range(count)])
    fewfit.gemmBatched(queue, m, n, k, a_d, b_d, c_d, [0.5] * count, [1.0] * count, k, n, n, *offsets,
                       compute="tf32").wait()
    np.testing.assert_allclose(c_d.get(), expected, **tol)


def test_unknown_compute(queue):
    x = cla.zeros(queue, 16, np.float32)
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`compute` = 'fp8': must be \"default\" or \"tf32\""):
        fewfit.gemm(queue, 2, 2, 2, x, x, x, 2, 2, 2, compute="fp8")


def test_arrays_from_a_memory_pool(queue, rng):
    """pyopencl's pooled buffers are OpenCL buffers like any other."""
    import pyopencl.tools as clt

    pool = clt.MemoryPool(clt.ImmediateAllocator(queue))
    a_h, b_h = rng.uniform(-1, 1, (6, 5)).astype(np.float32), rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    a, b = cla.to_device(queue, a_h, allocator=pool), cla.to_device(queue, b_h, allocator=pool)
    c = cla.zeros(queue, (6, 4), np.float32, allocator=pool)
    fewfit.gemm(queue, 6, 4, 5, a, b, c, 5, 4, 4).wait()
    np.testing.assert_allclose(c.get(), a_h.astype(np.float64) @ b_h, rtol=1e-5, atol=1e-6)
