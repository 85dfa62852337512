//! Convenience calls on host memory: copy in, run on the default device, copy C back.

use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

use crate::device::{fits_in_buffer, DefaultDevice};
use crate::error::{cl, Error, Result};
use crate::gemm::gemm;
use crate::spec::{Element, GemmSpec};

/// C = alpha * op(A) * op(B) + beta * C on host slices, through the default device
/// (`FEWFIT_DEVICE`). Checks every argument against the slice lengths before any device work.
pub fn gemm_host<T: Element>(
    spec: &GemmSpec,
    alpha: T::Scalar,
    a: &[T],
    b: &[T],
    beta: T::Scalar,
    c: &mut [T],
) -> Result<()> {
    spec.validate(alpha == T::SCALAR_ZERO, [a.len(), b.len(), c.len()], [std::ptr::null_mut(); 3])?;
    if spec.m == 0 || spec.n == 0 {
        return Ok(());
    }
    let device = DefaultDevice::get()?;
    for (name, len) in [("a buffer", a.len()), ("b buffer", b.len()), ("c buffer", c.len())] {
        fits_one_buffer::<T>(name, len, device.info.max_alloc_bytes)?;
    }
    let upload = |data: &[T], flags| -> Result<Buffer<T>> {
        // SAFETY: a fresh buffer of data.len() (at least 1) elements.
        let mut buf = unsafe { Buffer::<T>::create(&device.context, flags, data.len().max(1), std::ptr::null_mut()) }
            .map_err(|e| cl("clCreateBuffer")(e.0))?;
        if !data.is_empty() {
            // SAFETY: blocking write of exactly the buffer's length.
            unsafe { device.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, data, &[]) }
                .map_err(|e| cl("clEnqueueWriteBuffer")(e.0))?;
        }
        Ok(buf)
    };
    let a_buf = upload(a, CL_MEM_READ_ONLY)?;
    let b_buf = upload(b, CL_MEM_READ_ONLY)?;
    let mut c_buf = upload(c, CL_MEM_READ_WRITE)?;
    let event = gemm(&device.queue, spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[])?;
    // SAFETY: blocking read into a slice of the buffer's length, after the GEMM's event.
    unsafe { device.queue.enqueue_read_buffer(&c_buf, CL_BLOCKING, 0, c, &[event.get()]) }
        .map_err(|e| cl("clEnqueueReadBuffer")(e.0))?;
    Ok(())
}

/// Whether a host slice of `len` elements fits in one device buffer of at most `max_alloc_bytes`
/// (PoCL allows a quarter of the memory, 4 GiB on a 16 GiB machine: less than the kernels' 2³¹
/// elements of f32).
fn fits_one_buffer<T: Element>(name: &'static str, len: usize, max_alloc_bytes: u64) -> Result<()> {
    let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
    if !fits_in_buffer(len as u64, std::mem::size_of::<T>() as u64, max_alloc_bytes) {
        return Err(Error::Unavailable {
            what: format!("a {name} of {bytes} bytes"),
            reason: format!("the device's largest buffer is {} MiB", max_alloc_bytes >> 20),
        });
    }
    Ok(())
}

/// C = alpha * A * B + beta * C on ndarray matrices, through the default device. A and B of any
/// memory order are accepted (non-contiguous views are copied); C must be contiguous, in either order.
#[cfg(feature = "ndarray")]
pub fn gemm_ndarray<T: Element>(
    alpha: T::Scalar,
    a: ndarray::ArrayView2<'_, T>,
    b: ndarray::ArrayView2<'_, T>,
    beta: T::Scalar,
    c: &mut ndarray::Array2<T>,
) -> Result<()> {
    use crate::error::Error;
    use crate::spec::{Layout, Transpose};
    let (m, k) = a.dim();
    let (k2, n) = b.dim();
    if k2 != k {
        return Err(Error::InvalidArgument {
            name: "b",
            value: format!("{k2}x{n}"),
            reason: format!("has {k2} rows, A has {k} columns"),
        });
    }
    if c.dim() != (m, n) {
        return Err(Error::InvalidArgument {
            name: "c",
            value: format!("{:?}", c.dim()),
            reason: format!("must be {m}x{n}"),
        });
    }
    let layout = if c.is_standard_layout() {
        Layout::RowMajor
    } else if c.t().is_standard_layout() {
        Layout::ColumnMajor
    } else {
        return Err(Error::InvalidArgument {
            name: "c",
            value: "strided view".into(),
            reason: "must be contiguous".into(),
        });
    };
    // An operand stored in the other order than C is passed transposed; a strided view is copied.
    let operand = |x: ndarray::ArrayView2<'_, T>| -> (Vec<T>, Transpose) {
        let (same, other) = match layout {
            Layout::RowMajor => (x.is_standard_layout(), x.t().is_standard_layout()),
            Layout::ColumnMajor => (x.t().is_standard_layout(), x.is_standard_layout()),
        };
        match x.as_slice_memory_order() {
            Some(data) if same || other => (data.to_vec(), if same { Transpose::No } else { Transpose::Yes }),
            _ => match layout {
                Layout::RowMajor => (x.iter().copied().collect(), Transpose::No),
                Layout::ColumnMajor => (x.t().iter().copied().collect(), Transpose::No),
            },
        }
    };
    let (a_data, ta) = operand(a);
    let (b_data, tb) = operand(b);
    let spec = GemmSpec::new(layout, ta, tb, m, n, k);
    let c_data = c.as_slice_memory_order_mut().expect("C was checked to be contiguous");
    gemm_host(&spec, alpha, &a_data, &b_data, beta, c_data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_beyond_the_largest_buffer_is_unavailable() {
        assert!(fits_one_buffer::<f32>("a buffer", 256, 1024).is_ok());
        let err = fits_one_buffer::<f32>("b buffer", 257, 1024).unwrap_err();
        assert!(matches!(&err, Error::Unavailable { what, .. } if what == "a b buffer of 1028 bytes"), "{err}");
        assert!(fits_one_buffer::<f64>("c buffer", 129, 1024).is_err());
    }
}
