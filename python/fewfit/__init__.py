"""fewfit: prebuilt, multi-versioned OpenCL GEMM kernels, chosen per shape by a decision tree.

Two ways in:

* pyclblast's calling convention on pyopencl Arrays: :func:`gemm`, :func:`gemmBatched` and
  :func:`gemmStridedBatched` take the same arguments, in the same order, with the same defaults,
  and return a ``pyopencl.Event``, so ``import fewfit as pyclblast`` switches a program over.
  Row-major, as pyclblast.
* :func:`matmul` on NumPy arrays, through the default device (``FEWFIT_DEVICE``), without pyopencl.

float32, float64 and float16 (IEEE binary16, as pyclblast's; stored in 16 bits, computed and
accumulated in float32 with float32 alpha and beta, C rounded once, on any device: no
``cl_khr_fp16`` needed). ``compute="tf32"`` lets a float32 call run on TF32 tensor cores (NVIDIA,
compute capability 8.0 and later; plain float32 elsewhere), as cuBLAS's
``CUBLAS_COMPUTE_32F_FAST_TF32``.

And to look at fewfit's choices: :func:`explain` (the variant a shape gets and its path through
the device's tree), :func:`device`, :func:`warm_up`, :func:`clear_cache` and :func:`build_stats`.

Every error is a :class:`FewfitError` (a ``RuntimeError``, as pyclblast raises); a bad argument
is an :class:`InvalidArgumentError`, also a ``ValueError``, raised before anything is enqueued.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

from . import _native
from ._errors import (
    BuildError,
    FewfitError,
    InvalidArgumentError,
    NoDeviceError,
    OpenCLError,
    UnavailableError,
)

__version__ = _native.__fewfit_version__

__all__ = [
    "gemm",
    "gemmBatched",
    "gemmStridedBatched",
    "gemm_batched",
    "gemm_strided_batched",
    "matmul",
    "explain",
    "Explanation",
    "device",
    "Device",
    "warm_up",
    "clear_cache",
    "build_stats",
    "FewfitError",
    "InvalidArgumentError",
    "UnavailableError",
    "NoDeviceError",
    "OpenCLError",
    "BuildError",
]


def _invalid(name: str, value, reason: str) -> InvalidArgumentError:
    """An argument error in the words of fewfit's typed error."""
    error = InvalidArgumentError(f"invalid argument `{name}` = {value}: {reason}")
    error.name, error.value, error.reason = name, str(value), reason
    return error


def _pyopencl():
    """pyopencl, needed by the pyclblast-style calls only."""
    try:
        import pyopencl
        import pyopencl.array  # noqa: F401
    except ImportError as e:  # pragma: no cover - the tests install pyopencl
        error = UnavailableError(
            "unavailable: calls on pyopencl Arrays: pyopencl is not installed (pip install pyopencl)"
        )
        error.what, error.reason = "calls on pyopencl Arrays", "pyopencl is not installed"
        raise error from e
    return pyopencl


def _index(name: str, value) -> int:
    """A non-negative integer argument."""
    try:
        value = operator.index(value)
    except TypeError:
        raise _invalid(name, repr(value), "must be an integer") from None
    if value < 0:
        raise _invalid(name, value, "must not be negative")
    return value


def _row_major(layout) -> bool:
    """fewfit's keyword beyond pyclblast's arguments: ``layout="row"`` (pyclblast's, the default)
    or ``"col"`` (column-major, as BLAS)."""
    if layout in ("row", "row_major", "C"):
        return True
    if layout in ("col", "column", "col_major", "column_major", "F"):
        return False
    raise _invalid("layout", repr(layout), 'must be "row" or "col"')


def _fast_tf32(compute) -> bool:
    """fewfit's keyword beyond pyclblast's arguments: ``compute="default"`` (in the arrays' dtype) or
    ``"tf32"`` (float32 may run on TF32 tensor cores where the device has them; other dtypes
    compute as by default)."""
    if compute == "default":
        return False
    if compute == "tf32":
        return True
    raise _invalid("compute", repr(compute), 'must be "default" or "tf32"')


def _queue(queue) -> int:
    cl = _pyopencl()
    if not isinstance(queue, cl.CommandQueue):
        raise _invalid("queue", type(queue).__name__, "must be a pyopencl.CommandQueue")
    return queue.int_ptr


def _dtype(arrays: Sequence, names: Sequence[str]) -> str:
    """The dtype the arrays share (its name: fewfit reports the ones it cannot compute in)."""
    cl = _pyopencl()
    for x, name in zip(arrays, names):
        if not isinstance(x, cl.array.Array):
            raise _invalid(name, type(x).__name__, "must be a pyopencl Array")
    dtype = arrays[0].dtype
    for x, name in zip(arrays[1:], names[1:]):
        if x.dtype != dtype:
            raise _invalid(name, x.dtype, f"must have the dtype of a ({dtype})")
    return dtype.name


def _buffer(x, name: str) -> Tuple[int, int]:
    """The OpenCL buffer under a pyopencl Array and the array's offset in it, in elements.

    pyclblast passes ``base_data`` and leaves out the array's own offset; fewfit adds it, so a
    view such as ``a[2:]`` is read where it lies (an array without an offset, the usual case,
    behaves the same in both).
    """
    cl = _pyopencl()
    base = x.base_data
    if base is None:  # an empty array has no buffer
        return 0, 0
    if not isinstance(base, cl.MemoryObjectHolder):
        raise _invalid(name, type(base).__name__, "must be backed by an OpenCL buffer (SVM arrays are not supported)")
    itemsize = x.dtype.itemsize
    if x.offset % itemsize:
        raise _invalid(name, f"offset {x.offset} bytes", f"the array's offset must be a multiple of its item size ({itemsize})")
    return base.int_ptr, x.offset // itemsize


def _operand(x, name: str, offset, offset_name: str, ld) -> Tuple[int, int, int]:
    mem, start = _buffer(x, name)
    return mem, start + _index(offset_name, offset), ld


def _event(pointer: int):
    """The returned event, owned by the pyopencl object (fewfit hands over its reference)."""
    return _pyopencl().Event.from_int_ptr(pointer, retain=False)


def gemm(queue, m, n, k, a, b, c, a_ld, b_ld, c_ld, alpha=1.0, beta=0.0, a_transp=False, b_transp=False,
         a_offset=0, b_offset=0, c_offset=0, *, layout="row", compute="default"):
    """xGEMM, as pyclblast: C = alpha * op(A) * op(B) + beta * C on pyopencl Arrays of float32,
    float64 or float16.

    Row-major as pyclblast: ``a_ld``, ``b_ld`` and ``c_ld`` are the row strides and the offsets are
    in elements, counted from the start of each array. fewfit's keyword-only additions:
    ``layout="col"`` for column-major, ``compute="tf32"`` to let float32 run on TF32 tensor cores.
    Returns the ``pyopencl.Event`` of the GEMM.
    """
    dtype = _dtype((a, b, c), ("a", "b", "c"))
    q = _queue(queue)
    pointer = _native.gemm(
        dtype, _row_major(layout), bool(a_transp), bool(b_transp), m, n, k, alpha,
        _operand(a, "a", a_offset, "a_offset", a_ld), _operand(b, "b", b_offset, "b_offset", b_ld), beta,
        _operand(c, "c", c_offset, "c_offset", c_ld), 1, 0, 0, 0, q, _fast_tf32(compute),
    )
    return _event(pointer)


def gemmStridedBatched(queue, m, n, k, batch_count, a, b, c, a_ld, b_ld, c_ld, a_stride, b_stride, c_stride,
                       alpha=1.0, beta=0.0, a_transp=False, b_transp=False, a_offset=0, b_offset=0, c_offset=0,
                       *, layout="row", compute="default"):
    """xGEMMSTRIDEDBATCHED, as pyclblast: ``batch_count`` GEMMs in one launch, item i using A, B and
    C moved by i times ``a_stride``, ``b_stride`` and ``c_stride`` elements (``layout`` and
    ``compute`` as in :func:`gemm`). Returns its event."""
    dtype = _dtype((a, b, c), ("a", "b", "c"))
    q = _queue(queue)
    pointer = _native.gemm(
        dtype, _row_major(layout), bool(a_transp), bool(b_transp), m, n, k, alpha,
        _operand(a, "a", a_offset, "a_offset", a_ld), _operand(b, "b", b_offset, "b_offset", b_ld), beta,
        _operand(c, "c", c_offset, "c_offset", c_ld), batch_count, a_stride, b_stride, c_stride, q,
        _fast_tf32(compute),
    )
    return _event(pointer)


def gemmBatched(queue, m, n, k, a, b, c, alphas, betas, a_ld, b_ld, c_ld, a_offsets, b_offsets, c_offsets,
                a_transp=False, b_transp=False, *, layout="row", compute="default"):
    """xGEMMBATCHED, as pyclblast: a batch with an alpha, a beta and offsets per item (the batch
    count is their length; ``layout`` and ``compute`` as in :func:`gemm`). Equal alphas and betas
    with offsets of a constant step run as one strided launch; otherwise one launch per item, in
    order. Returns the event of the last launch."""
    dtype = _dtype((a, b, c), ("a", "b", "c"))
    q = _queue(queue)
    fast_tf32 = _fast_tf32(compute)
    (a_mem, a_start), (b_mem, b_start), (c_mem, c_start) = _buffer(a, "a"), _buffer(b, "b"), _buffer(c, "c")

    def shifted(offsets, start, name):
        return [start + _index(name, o) for o in offsets]

    pointer = _native.gemm_batched(
        dtype, _row_major(layout), bool(a_transp), bool(b_transp), m, n, k, [float(x) for x in alphas],
        a_mem, shifted(a_offsets, a_start, "a_offsets"), a_ld,
        b_mem, shifted(b_offsets, b_start, "b_offsets"), b_ld,
        [float(x) for x in betas], c_mem, shifted(c_offsets, c_start, "c_offsets"), c_ld, q, fast_tf32,
    )
    return _event(pointer)


gemm_batched = gemmBatched
gemm_strided_batched = gemmStridedBatched


def _host_operand(x: np.ndarray, dtype) -> Tuple[np.ndarray, bool]:
    """A host operand as fewfit reads it: C-ordered as given, or its transpose C-ordered (a
    Fortran-ordered array, passed transposed without a copy); others are copied."""
    if x.flags.f_contiguous and not x.flags.c_contiguous:
        return np.require(x.T, dtype, ["C", "A"]), True
    return np.require(x, dtype, ["C", "A"]), False


def matmul(a, b, *, compute="default") -> np.ndarray:
    """``a @ b`` for 2-D NumPy arrays, on the default device (``FEWFIT_DEVICE``).

    In the dtype NumPy's ``a @ b`` gives, but at least float32: float16 where NumPy's is float16
    (computed in float32, rounded once), float64 where either is; ``compute="tf32"`` as in
    :func:`gemm`. The result is a new C-ordered array. C- and Fortran-ordered inputs are read in
    place (copied to the device).
    """
    a, b = np.asarray(a), np.asarray(b)
    fast_tf32 = _fast_tf32(compute)
    for x, name in ((a, "a"), (b, "b")):
        if x.ndim != 2:
            raise _invalid(name, f"an array of {x.ndim} dimensions", "must be a matrix (2 dimensions)")
    (m, k), (k2, n) = a.shape, b.shape
    if k2 != k:
        raise _invalid("b", f"{k2}x{n}", f"has {k2} rows, a has {k} columns")
    dtype = np.result_type(a.dtype, b.dtype)
    if dtype != np.float16:
        dtype = np.result_type(dtype, np.float32)
    if dtype.kind != "f":
        raise _invalid("a", dtype, "must hold real numbers")
    ad, a_t = _host_operand(a, dtype)
    bd, b_t = _host_operand(b, dtype)
    c = np.zeros((m, n), dtype)
    _native.gemm_host(
        dtype.name, True, a_t, b_t, m, n, k, 1.0,
        ad.ctypes.data, ad.size, max(1, ad.shape[1]),
        bd.ctypes.data, bd.size, max(1, bd.shape[1]),
        0.0, c.ctypes.data, c.size, max(1, n), fast_tf32,
    )
    return c


@dataclass(frozen=True)
class Step:
    """One split on a shape's way through a tree."""

    feature: str
    value: int
    threshold: int
    went_le: bool


@dataclass(frozen=True)
class Explanation:
    """The variant a device's tree picks for a shape, and why."""

    device_class: str
    variant: str
    variant_id: str
    leaf: int
    path: List[Step]
    features: Dict[str, int]
    text: str

    def __str__(self) -> str:
        return self.text


def explain(m, n, k, a_transp=False, b_transp=False, queue=None, layout="row", dtype=np.float32,
            compute="default") -> Explanation:
    """The variant fewfit picks for an M x N x K GEMM of ``dtype`` on a queue's device (the default
    device without one), with its path through the tree of that device class and of the precision
    the call runs in (``compute`` as in :func:`gemm`). Row-major as :func:`gemm` (``layout="col"``
    for column-major); nothing is built or run."""
    q = None if queue is None else _queue(queue)
    cls, name, vid, leaf, path, features, text = _native.explain(
        m, n, k, _row_major(layout), bool(a_transp), bool(b_transp), q, np.dtype(dtype).name, _fast_tf32(compute)
    )
    return Explanation(cls, name, vid, leaf, [Step(*s) for s in path], dict(features), text)


@dataclass(frozen=True)
class Device:
    """An OpenCL device as fewfit sees it."""

    name: str
    vendor: str
    driver: str
    platform_version: str
    device_class: str
    compute_units: int
    max_work_group_size: int
    local_mem_bytes: int
    max_alloc_bytes: int
    fp64: bool
    tensor_cores: bool

    def __str__(self) -> str:
        return f"{self.name} ({self.platform_version}; class {self.device_class}; driver {self.driver})"


def device(queue=None) -> Device:
    """The device of a pyopencl queue, or the default device that :func:`matmul` uses."""
    q = None if queue is None else _queue(queue)
    return Device(**_native.device(q))


def warm_up(queue=None, dtype=np.float32, *, compute="default") -> None:
    """Builds now the variants the device's tree can pick in ``dtype`` (float32, float64 or
    float16; with ``compute="tf32"``, those a float32 call with it runs), so that no later call
    compiles (the first call of a process otherwise does)."""
    q = None if queue is None else _queue(queue)
    _native.warm_up(np.dtype(dtype).name, q, _fast_tf32(compute))


def clear_cache() -> int:
    """Drops fewfit's programs, kernels and scratch buffers on every context, and its references
    to the contexts (call it before releasing a context fewfit ran on). Returns the number of
    engines dropped; a later call builds again, from the on-disk binary cache where it can."""
    return _native.clear_cache()


def build_stats() -> Tuple[int, int]:
    """Programs built so far in this process: (compiled, loaded from fewfit's binary cache)."""
    return _native.build_stats()
