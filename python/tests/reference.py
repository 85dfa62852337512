"""The NumPy reference of a BLAS GEMM on flat buffers (both layouts, transposes, offsets and
leading dimensions), and the tests' tolerances."""

import numpy as np


def dtypes_for(fp64):
    return [np.float32, np.float64, np.float16] if fp64 else [np.float32, np.float16]


# The unit roundoff of IEEE binary16.
F16_UNIT_ROUNDOFF = 2.0**-11


def tolerance(dtype, k):
    """Relative plus absolute, per precision, growing with K (inputs in [-1, 1]). float16 computes
    in float32 and rounds C once: float32's tolerance plus one rounding to binary16."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return dict(rtol=1e-4, atol=2e-6 * max(k, 1))
    if dtype == np.float16:
        return dict(rtol=1e-4 + F16_UNIT_ROUNDOFF, atol=2e-6 * max(k, 1))
    return dict(rtol=1e-10, atol=1e-13 * max(k, 1))


def tf32_tolerance(k):
    """float32 data with products on TF32 tensor cores (inputs rounded to 10-bit mantissas,
    float32 accumulation), inputs in [-1, 1]."""
    return dict(rtol=2.0**-10, atol=2.0**-10 * max(k, 1))


def indices(offset, rows, cols, ld, row_major):
    """The buffer index of each element of a rows x cols matrix stored with leading dimension ld."""
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return offset + (i * ld + j if row_major else i + j * ld)


def stored(rows, cols, trans, row_major):
    """(lines, line length) of op(X) = rows x cols as stored."""
    r, c = (cols, rows) if trans else (rows, cols)
    return (r, c) if row_major else (c, r)


def extent(offset, rows, cols, trans, row_major, ld):
    """Elements a buffer needs for that matrix (0 for an empty one)."""
    lines, length = stored(rows, cols, trans, row_major)
    return 0 if lines == 0 or length == 0 else offset + (lines - 1) * ld + length


def matrix(buf, offset, rows, cols, trans, row_major, ld):
    """op(X), rows x cols, read from a flat buffer (float64 copy)."""
    r, c = (cols, rows) if trans else (rows, cols)
    x = buf[indices(offset, r, c, ld, row_major)].astype(np.float64)
    return x.T if trans else x


def reference(row_major, ta, tb, m, n, k, alpha, a, a_off, lda, b, b_off, ldb, beta, c, c_off, ldc):
    """The expected C buffer: C = alpha op(A) op(B) + beta C on the elements of C only."""
    out = c.astype(np.float64)
    if m == 0 or n == 0:
        return out
    ab = matrix(a, a_off, m, k, ta, row_major, lda) @ matrix(b, b_off, k, n, tb, row_major, ldb)
    idx = indices(c_off, m, n, ldc, row_major)
    old = out[idx] if beta != 0 else 0.0
    out[idx] = alpha * ab + beta * old
    return out


def random_buffer(rng, n, dtype, margin=5):
    """n elements plus a margin, uniform in [-1, 1]."""
    return rng.uniform(-1, 1, max(n, 0) + margin).astype(dtype)
