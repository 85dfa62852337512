"""The exceptions fewfit raises: one class per kind of fewfit's typed error (``fewfit::Error``).

Every class derives from :class:`FewfitError`, a :class:`RuntimeError` (what pyclblast raises, so
``except RuntimeError`` keeps working after ``import fewfit as pyclblast``); a bad argument is also a
:class:`ValueError`. The message is the Rust error's, and its fields are attributes.
"""


class FewfitError(RuntimeError):
    """A fewfit call failed; nothing was enqueued for it."""


class InvalidArgumentError(FewfitError, ValueError):
    """An argument is wrong (found before any device work, so C is untouched).

    Attributes: ``name`` (the argument, as in BLAS: ``a_ld``, ``c buffer``, ``m``), ``value`` and
    ``reason``.
    """

    name = None
    value = None
    reason = None


class UnavailableError(FewfitError):
    """The device or fewfit cannot do what was asked (float64 without fp64, float16, complex).

    Attributes: ``what`` and ``reason``.
    """

    what = None
    reason = None


class NoDeviceError(FewfitError):
    """No OpenCL library or device could be found or chosen (``FEWFIT_DEVICE``)."""


class OpenCLError(FewfitError):
    """An OpenCL call failed. Attributes: ``call`` (the function) and ``code`` (its status)."""

    call = None
    code = None


class BuildError(FewfitError):
    """A kernel variant failed to build on the device. Attributes: ``variant`` and ``log``."""

    variant = None
    log = None
