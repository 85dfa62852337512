"""Side by side with pyclblast, where it installs (it builds from source against CLBlast: Debian's
libclblast-dev): the same calls, with the same arguments, on the same arrays give the same C, the
same event type and the same exception base class; float16 too, which fewfit runs where pyclblast
cannot (a device without cl_khr_fp16)."""

import inspect

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import fewfit
from reference import reference, tolerance

pyclblast = pytest.importorskip(
    "pyclblast", reason="pyclblast is not installed (pip install pyclblast needs CLBlast: libclblast-dev)"
)

SHAPES = [(1, 1, 1), (7, 1, 5), (1, 33, 17), (31, 29, 37), (64, 64, 64), (100, 20, 130)]
TRANSPOSES = [(False, False), (True, False), (False, True), (True, True)]


def both(queue, call, c):
    """C after `call(module, c_copy)` for pyclblast and for fewfit, on copies of the same C."""
    out = []
    for module in (pyclblast, fewfit):
        c_copy = c.copy()
        event = call(module, c_copy)
        assert isinstance(event, cl.Event)
        event.wait()
        out.append(c_copy.get())
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ta,tb", TRANSPOSES, ids=["nn", "tn", "nt", "tt"])
@pytest.mark.parametrize("m,n,k", SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in SHAPES])
def test_gemm_as_pyclblast(queue, fp64, rng, dtype, ta, tb, m, n, k):
    if dtype == np.float64 and not fp64:
        pytest.skip("the device has no fp64")
    a = cla.to_device(queue, rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(dtype))
    b = cla.to_device(queue, rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(dtype))
    c = cla.to_device(queue, rng.uniform(-1, 1, (m, n)).astype(dtype))
    lda, ldb = a.shape[1], b.shape[1]
    theirs, ours = both(queue, lambda p, cc: p.gemm(queue, m, n, k, a, b, cc, lda, ldb, n, alpha=1.5, beta=0.5,
                                                    a_transp=ta, b_transp=tb), c)
    np.testing.assert_allclose(ours, theirs, **tolerance(dtype, k))


def test_gemm_with_offsets_as_pyclblast(queue, rng):
    m, n, k = 9, 11, 13
    a = cla.to_device(queue, rng.uniform(-1, 1, (1, 7 + m * 15)).astype(np.float32))
    b = cla.to_device(queue, rng.uniform(-1, 1, (1, 3 + k * 12)).astype(np.float32))
    c = cla.to_device(queue, rng.uniform(-1, 1, (1, 5 + m * 14)).astype(np.float32))
    theirs, ours = both(queue, lambda p, cc: p.gemm(queue, m, n, k, a, b, cc, 15, 12, 14, alpha=-1.0, beta=2.0,
                                                    a_offset=7, b_offset=3, c_offset=5), c)
    np.testing.assert_allclose(ours, theirs, **tolerance(np.float32, k))


def test_strided_batch_as_pyclblast(queue, rng):
    m, n, k, count = 12, 10, 9, 5
    a = cla.to_device(queue, rng.uniform(-1, 1, (count, m * k)).astype(np.float32))
    b = cla.to_device(queue, rng.uniform(-1, 1, (count, k * n)).astype(np.float32))
    c = cla.to_device(queue, rng.uniform(-1, 1, (count, m * n)).astype(np.float32))
    theirs, ours = both(queue, lambda p, cc: p.gemmStridedBatched(queue, m, n, k, count, a, b, cc, k, n, n, m * k,
                                                                  k * n, m * n, alpha=0.5, beta=1.0), c)
    np.testing.assert_allclose(ours, theirs, **tolerance(np.float32, k))


@pytest.mark.parametrize("alphas,betas", [([1.0] * 3, [0.0] * 3), ([1.0, -0.5, 2.0], [0.5, 0.0, 1.0])],
                         ids=["uniform", "per-item"])
def test_batched_as_pyclblast(queue, rng, alphas, betas):
    m, n, k = 8, 6, 10
    a = cla.to_device(queue, rng.uniform(-1, 1, (3, m * k)).astype(np.float32))
    b = cla.to_device(queue, rng.uniform(-1, 1, (3, k * n)).astype(np.float32))
    c = cla.to_device(queue, rng.uniform(-1, 1, (3, m * n)).astype(np.float32))
    offsets = ([0, m * k, 2 * m * k], [2 * k * n, 0, k * n], [m * n, 2 * m * n, 0])
    theirs, ours = both(queue, lambda p, cc: p.gemmBatched(queue, m, n, k, a, b, cc, alphas, betas, k, n, n,
                                                           *offsets), c)
    np.testing.assert_allclose(ours, theirs, **tolerance(np.float32, k))


@pytest.mark.parametrize("name", ["gemm", "gemmBatched", "gemmStridedBatched"])
def test_signatures_match_the_installed_pyclblast(name):
    try:
        theirs = inspect.signature(getattr(pyclblast, name))
    except (TypeError, ValueError):
        pytest.skip("this pyclblast build carries no signatures")
    ours = inspect.signature(getattr(fewfit, name))
    params = [p for p in ours.parameters.values() if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert [(p.name, p.default) for p in params] == [(p.name, p.default) for p in theirs.parameters.values()]


def test_pyclblasts_errors_are_caught_the_same_way(queue):
    """pyclblast raises RuntimeError for a bad leading dimension; so does fewfit (a subclass)."""
    x = cla.zeros(queue, (4, 4), np.float32)
    for module in (pyclblast, fewfit):
        with pytest.raises(RuntimeError):
            module.gemm(queue, 4, 4, 4, x, x, x, 2, 4, 4)


@pytest.mark.parametrize("ta,tb", TRANSPOSES, ids=["nn", "tn", "nt", "tt"])
def test_float16_as_pyclblast(queue, rng, ta, tb):
    """pyclblast's float16 (CLBlast's Hgemm, half arithmetic) needs cl_khr_fp16 and raises a
    RuntimeError without it; fewfit's runs on any device (float32 arithmetic, C rounded once) and
    matches NumPy, and pyclblast where it runs."""
    m, n, k = 31, 29, 37
    a = cla.to_device(queue, rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(np.float16))
    b = cla.to_device(queue, rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(np.float16))
    c = cla.to_device(queue, rng.uniform(-1, 1, (m, n)).astype(np.float16))
    lda, ldb = a.shape[1], b.shape[1]

    def call(module, cc):
        return module.gemm(queue, m, n, k, a, b, cc, lda, ldb, n, alpha=1.5, beta=0.5, a_transp=ta, b_transp=tb)

    ours = c.copy()
    call(fewfit, ours).wait()
    expected = reference(True, ta, tb, m, n, k, 1.5, a.get().ravel(), 0, lda, b.get().ravel(), 0, ldb, 0.5,
                         c.get().ravel(), 0, n)
    np.testing.assert_allclose(ours.get().ravel(), expected, **tolerance(np.float16, k))
    theirs = c.copy()
    if "cl_khr_fp16" not in queue.device.extensions:
        with pytest.raises(RuntimeError):
            call(pyclblast, theirs)
        return
    call(pyclblast, theirs).wait()
    # CLBlast computes in half: about sqrt(K) roundings of 2^-11 each.
    np.testing.assert_allclose(ours.get(), theirs.get(), rtol=2e-2, atol=2e-2)
