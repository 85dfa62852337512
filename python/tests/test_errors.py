"""Bad arguments raise fewfit's exceptions with the message of its typed error, before anything is
enqueued: C stays as it was."""

import numpy as np
import pyopencl.array as cla
import pytest

import fewfit


@pytest.fixture
def buffers(queue, rng):
    a = cla.to_device(queue, rng.uniform(-1, 1, 12 * 8).astype(np.float32))
    b = cla.to_device(queue, rng.uniform(-1, 1, 8 * 10).astype(np.float32))
    c = cla.to_device(queue, rng.uniform(-1, 1, 12 * 10).astype(np.float32))
    return a, b, c


def raises_untouched(queue, c, error, match, call):
    """`call` raises `error` matching `match`, and C is unchanged."""
    before = c.get()
    with pytest.raises(error, match=match) as info:
        call()
    queue.finish()
    np.testing.assert_array_equal(c.get(), before)
    return info.value


def test_leading_dimension_too_small(queue, buffers):
    a, b, c = buffers
    e = raises_untouched(queue, c, fewfit.InvalidArgumentError, r"invalid argument `lda` = 7: must be at least",
                         lambda: fewfit.gemm(queue, 12, 10, 8, a, b, c, 7, 10, 10))
    assert (e.name, e.value) == ("lda", "7")
    # A bad argument is a ValueError, and a RuntimeError as pyclblast raises.
    assert isinstance(e, ValueError) and isinstance(e, RuntimeError) and isinstance(e, fewfit.FewfitError)


def test_buffer_too_small(queue, buffers):
    a, b, c = buffers
    e = raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`c buffer` = 120: holds 120 elements",
                         lambda: fewfit.gemm(queue, 12, 10, 8, a, b, c, 8, 10, 10, c_offset=1))
    assert e.name == "c buffer"
    raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`b buffer`",
                     lambda: fewfit.gemm(queue, 12, 11, 8, a, b, c, 8, 11, 11))


def test_strided_batch_beyond_the_buffer(queue, buffers):
    a, b, c = buffers
    raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`a buffer`",
                     lambda: fewfit.gemmStridedBatched(queue, 2, 2, 2, 3, a, b, c, 2, 2, 2, 50, 4, 4))


def test_strided_batch_with_overlapping_c(queue, buffers):
    a, b, c = buffers
    raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`c_batch_stride` = 2: batch items of C would share",
                     lambda: fewfit.gemmStridedBatched(queue, 2, 2, 2, 3, a, b, c, 2, 2, 2, 4, 4, 2))


def test_batched_checks_every_item_before_the_first_launch(queue, buffers):
    a, b, c = buffers
    raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`c buffer` = 120: holds 120 elements",
                     lambda: fewfit.gemmBatched(queue, 2, 2, 2, a, b, c, [1.0, 2.0], [0.0, 0.0], 2, 2, 2,
                                                [0, 4], [0, 4], [0, 119]))


def test_batched_lists_of_different_lengths(queue, buffers):
    a, b, c = buffers
    raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`c_offsets` = 1 items: must have as many items",
                     lambda: fewfit.gemmBatched(queue, 2, 2, 2, a, b, c, [1.0, 1.0], [0.0, 0.0], 2, 2, 2,
                                                [0, 4], [0, 4], [0]))


@pytest.mark.parametrize("name,args", [
    ("m", (-1, 2, 2)), ("n", (2, -3, 2)), ("k", (2, 2, -1)),
])
def test_negative_sizes(queue, buffers, name, args):
    a, b, c = buffers
    raises_untouched(queue, c, fewfit.InvalidArgumentError, rf"`{name}` = -\d: must not be negative",
                     lambda: fewfit.gemm(queue, *args, a, b, c, 2, 2, 2))


def test_negative_offset(queue, buffers):
    a, b, c = buffers
    raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`b_offset` = -4: must not be negative",
                     lambda: fewfit.gemm(queue, 2, 2, 2, a, b, c, 2, 2, 2, b_offset=-4))


def test_mixed_dtypes(queue, buffers):
    a, b, c = buffers
    b64 = b.astype(np.float64)
    raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`b` = float64: must have the dtype of a",
                     lambda: fewfit.gemm(queue, 2, 2, 2, a, b64, c, 2, 2, 2))


@pytest.mark.parametrize("dtype", [np.complex64, np.int32, np.int16])
def test_dtypes_fewfit_does_not_compute_in(queue, dtype):
    x = cla.zeros(queue, 16, dtype)
    with pytest.raises(fewfit.UnavailableError, match=rf"unavailable: a {np.dtype(dtype).name} GEMM"):
        fewfit.gemm(queue, 2, 2, 2, x, x, x, 2, 2, 2)


def test_not_pyopencl_arrays(queue, buffers):
    a, b, c = buffers
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`b` = ndarray: must be a pyopencl Array"):
        fewfit.gemm(queue, 2, 2, 2, a, np.zeros(4, np.float32), c, 2, 2, 2)
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`queue` = str: must be a pyopencl.CommandQueue"):
        fewfit.gemm("queue", 2, 2, 2, a, b, c, 2, 2, 2)


def test_unknown_layout(queue, buffers):
    a, b, c = buffers
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`layout` = 'diagonal'"):
        fewfit.gemm(queue, 2, 2, 2, a, b, c, 2, 2, 2, layout="diagonal")


def test_buffer_of_another_context(queue, buffers):
    import pyopencl as cl

    a, b, c = buffers
    other = cl.CommandQueue(cl.Context([queue.device]))
    b_elsewhere = cla.to_device(other, b.get())
    raises_untouched(queue, c, fewfit.InvalidArgumentError, r"`b buffer` = a buffer of another context",
                     lambda: fewfit.gemm(queue, 12, 10, 8, a, b_elsewhere, c, 8, 10, 10))


def test_svm_arrays(queue):
    import pyopencl.tools as clt

    try:
        s = cla.zeros(queue, 16, np.float32, allocator=clt.SVMAllocator(queue.context, queue=queue))
    except Exception as e:  # a device without SVM
        pytest.skip(f"no SVM: {e}")
    with pytest.raises(fewfit.InvalidArgumentError, match=r"`a` = SVMAllocation: must be backed by an OpenCL buffer"):
        fewfit.gemm(queue, 2, 2, 2, s, s, s, 2, 2, 2)
