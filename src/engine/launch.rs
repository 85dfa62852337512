//! The launch of a built variant: the problem oriented for its kernel, operands copied transposed
//! first where that pays, the splits of K or stream-K chosen by the launch policy, C scaled first
//! where the device's atomic add needs it, in 16-bit storage the splits added into an f32
//! workspace and then into C, and the kernel enqueued with or without an event.

use std::ptr;
use std::sync::Mutex;

use opencl3::kernel::Kernel;
use opencl3::types::{cl_command_queue, cl_event, cl_mem};

use super::launch_policy::LaunchPolicy;
use super::program::CompiledVariant;
use super::scratch::Lease;
#[cfg(feature = "tuning")]
use crate::cl::mem_len;
use crate::cl::{launch, Event, KernelArgs};
use crate::codegen::{Family, Orientation};
use crate::error::{Error, Result};
use crate::spec::{Element, MatrixC, Operand, Problem};

impl CompiledVariant {
    /// Checks a GEMM's arguments and enqueues it on this variant (the tuner's way to time any
    /// variant of the space); the queue must belong to the engine's context and device. The event
    /// is the kernel's; see [`CompiledVariant::enqueue_gemm_timed`] for the whole launch.
    #[cfg(feature = "tuning")]
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue_gemm<T: Element>(
        &self,
        queue: &opencl3::command_queue::CommandQueue,
        spec: &crate::spec::GemmSpec,
        alpha: T::Scalar,
        a: &opencl3::memory::Buffer<T>,
        b: &opencl3::memory::Buffer<T>,
        beta: T::Scalar,
        c: &mut opencl3::memory::Buffer<T>,
        wait: &[cl_event],
    ) -> Result<opencl3::event::Event> {
        Ok(self.enqueue_gemm_timed(queue, spec, alpha, a, b, beta, c, wait)?.0)
    }

    /// As [`CompiledVariant::enqueue_gemm`], also returning the event of the launch's first kernel
    /// where it enqueues more than one (`None` otherwise): the copy of an operand transposed
    /// ([`LaunchPolicy::transposes_first`]), or the `scale_c` kernel that a launch splitting K enqueues
    /// first where the device's atomic add needs it (not on NVIDIA GPUs), or in 16-bit storage the
    /// kernel of a launch splitting K, whose event is then `combine_c`'s. The launch's device time
    /// runs from that event's start to the returned event's end.
    #[cfg(feature = "tuning")]
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue_gemm_timed<T: Element>(
        &self,
        queue: &opencl3::command_queue::CommandQueue,
        spec: &crate::spec::GemmSpec,
        alpha: T::Scalar,
        a: &opencl3::memory::Buffer<T>,
        b: &opencl3::memory::Buffer<T>,
        beta: T::Scalar,
        c: &mut opencl3::memory::Buffer<T>,
        wait: &[cl_event],
    ) -> Result<(opencl3::event::Event, Option<opencl3::event::Event>)> {
        use opencl3::memory::ClMem;
        let lengths = [mem_len::<T>(a.get())?, mem_len::<T>(b.get())?, mem_len::<T>(c.get())?];
        let problem = spec.validate(alpha == T::SCALAR_ZERO, lengths, [a.get(), b.get(), c.get()])?;
        if problem.m == 0 || problem.n == 0 || problem.batch == 0 || problem.k == 0 || alpha == T::SCALAR_ZERO {
            return Err(Error::InvalidArgument {
                name: "spec",
                value: format!("{spec:?}"),
                reason: "a variant runs only a non-empty product with alpha != 0".into(),
            });
        }
        let (kernel, first) = self.enqueue_with_first::<T>(queue.get(), &problem, alpha, beta, wait, true)?;
        let first = first.map(|e| {
            let raw = e.0;
            std::mem::forget(e); // the reference passes to opencl3's event
            opencl3::event::Event::new(raw)
        });
        Ok((opencl3::event::Event::new(kernel), first))
    }

    /// Launches the variant on a problem already checked by `gemm::validate`. A large launch may
    /// first copy an operand contiguous along K transposed into a scratch buffer
    /// ([`LaunchPolicy::transposes_first`]). A launch that splits K (or runs stream-K) with
    /// compare-and-swap adds first enqueues C = beta * C; with PTX reductions it is one kernel,
    /// whose split 0 (for stream-K, the part with the tile's first step of K) releases each tile's
    /// other parts. In 16-bit storage such a launch runs into an f32 workspace instead of C (as
    /// alpha * op(A) op(B) + 0 * W), and `combine_c` then sets C = W + beta * C. The kernel waits
    /// for what comes first, so the returned event completes after all (its profiling times are
    /// the last kernel's alone). Without `want_event` the kernels are enqueued without an event
    /// where nothing here needs one, and the returned event is null.
    pub(crate) fn enqueue<T: Element>(
        &self,
        queue: cl_command_queue,
        problem: &Problem,
        alpha: T::Scalar,
        beta: T::Scalar,
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<cl_event> {
        Ok(self.enqueue_with_first::<T>(queue, problem, alpha, beta, wait, want_event)?.0)
    }

    /// [`CompiledVariant::enqueue`], also returning the event of the launch's first kernel where it
    /// enqueues more than one (a transposed copy, else `scale_c`, else the kernel before
    /// `combine_c`).
    fn enqueue_with_first<T: Element>(
        &self,
        queue: cl_command_queue,
        problem: &Problem,
        alpha: T::Scalar,
        beta: T::Scalar,
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<(cl_event, Option<Event>)> {
        let mut p = match self.geometry.orientation {
            Orientation::SmallM if problem.m > problem.n => problem.transposed(),
            Orientation::AlongM if !problem.a.along_outer && problem.b.along_outer => problem.transposed(),
            _ => *problem,
        };
        // Their scratch buffers stay leased until the kernel that reads them records its event.
        let copies = self.copy_transposed::<T>(queue, &mut p, wait)?;
        let g = &self.geometry;
        // In 16-bit storage a launch that splits K adds into an f32 workspace of M x N x batch
        // elements; where that passes the device's largest buffer or the kernels' int range, the
        // launch does not split.
        let workspace_elements = p.m.checked_mul(p.n).and_then(|e| e.checked_mul(p.batch)).unwrap_or(usize::MAX);
        let workspace_bytes = workspace_elements.saturating_mul(std::mem::size_of::<f32>());
        let workspace_fits = workspace_elements <= i32::MAX as usize && workspace_bytes <= self.max_alloc_bytes;
        let split_program = self.split.as_ref().filter(|_| self.combine.is_none() || workspace_fits);
        let stream_k_groups = split_program.and_then(|_| g.stream_k_groups(p.m, p.n, p.k, p.batch, self.compute_units));
        let (splits, entries) = match split_program {
            Some(split) if stream_k_groups.is_some() => (1, split),
            Some(split) => match g.splits_for(p.m, p.n, p.k, p.batch, self.compute_units, self.atomic_add) {
                1 => (1, &self.main),
                splits => (splits, split),
            },
            None if g.k_splits > 1 => (g.k_splits, &self.main),
            // The panel program takes its splits as an argument; it has a `scale` only where it may split.
            None if self.family == Family::Panel && self.scale.is_some() => {
                (g.splits_for(p.m, p.n, p.k, p.batch, self.compute_units, self.atomic_add), &self.main)
            }
            None => (1, &self.main),
        };
        let entries = match &self.unpacked {
            Some(unpacked) if !g.packs_a(p.m, p.n, p.k) => unpacked,
            _ => entries,
        };
        let adds_into_c = splits > 1 || stream_k_groups.is_some();
        let released_by_first_part = adds_into_c && !self.atomic_add.scales_c_first();
        let mut leases: Vec<Lease> = Vec::new();
        // In 16-bit storage the kernel of a launch that adds into C writes `k`'s C, the f32 workspace
        // (compact in `p`'s orientation), with beta = 0 (split 0 stores it, or `scale_c` zeroes it);
        // `combine_c` then adds it into `p`'s C. Elsewhere `k` is `p`.
        let (k, k_beta, combine) = match &self.combine {
            Some(combine) if adds_into_c => {
                let lease = self.workspaces.lease(queue, workspace_bytes, self.max_alloc_bytes)?;
                let workspace = lease.mem();
                leases.push(lease);
                let c = MatrixC { mem: workspace, offset: 0, row_stride: 1, col_stride: p.m, batch_stride: p.m * p.n };
                (Problem { c, ..p }, T::SCALAR_ZERO, Some((combine, workspace)))
            }
            _ => (p, beta, None),
        };
        // Everything that can fail before the kernel's own enqueue (its arguments, the flags'
        // buffer) comes before anything that writes C: `scale_c`, enqueued last but one, or in
        // 16-bit storage `combine_c`, enqueued last.
        let entry =
            entries.kernels[p.a.along_outer as usize * 2 + p.b.along_outer as usize].lock().expect("kernel lock");
        let mut args = KernelArgs::new(&entry);
        args.int(p.m)?.int(p.n)?.int(p.k)?.value(alpha)?.value(k_beta)?;
        args.mem(p.a.mem)?.int(p.a.offset)?.int(p.a.ld)?;
        args.mem(p.b.mem)?.int(p.b.offset)?.int(p.b.ld)?;
        args.mem(k.c.mem)?.int(k.c.offset)?;
        match self.family {
            Family::Xgemm | Family::Mma => args.int(k.c.col_stride)?,
            Family::Direct | Family::Panel => args.int(k.c.row_stride)?.int(k.c.col_stride)?,
        };
        args.int(p.a.batch_stride)?.int(p.b.batch_stride)?.int(k.c.batch_stride)?;
        match self.family {
            // Stream-K takes the batch items here, its launch has one along dimension 2.
            Family::Xgemm => {
                args.int(if stream_k_groups.is_some() { p.batch } else { splits })?;
            }
            Family::Panel | Family::Direct | Family::Mma => {
                args.int(splits)?;
            }
        }
        let tiles = [p.m.div_ceil(g.tile[0]), p.n.div_ceil(g.tile[1])];
        let global = match stream_k_groups {
            Some(groups) => [groups * g.local[0], g.local[1], 1],
            None => [tiles[0] * g.local[0], tiles[1] * g.local[1], p.batch * splits],
        };
        let local = Some([g.local[0], g.local[1], 1]);
        if released_by_first_part {
            let bytes = tiles[0] * tiles[1] * p.batch * std::mem::size_of::<u32>();
            let flags = self.tile_flags.lease(queue, bytes, self.max_alloc_bytes)?;
            args.mem(flags.mem())?.value(flags.use_number())?;
            leases.push(flags);
        }
        let scaled = match &self.scale {
            // Only where C is scaled first: there is no `scale` where split 0 releases the tile.
            // From here, a failed enqueue of the kernel leaves C scaled by beta (the workspace
            // zeroed, in 16-bit storage).
            Some(scale) if adds_into_c => {
                let kernel = scale.lock().expect("kernel lock");
                Some(Event(enqueue_scale_c::<T>(queue, &kernel, &k, k_beta, self.scale_local, wait, true)?))
            }
            _ => None,
        };
        let before: Vec<cl_event> = copies.iter().map(|c| c.event.0).chain(scaled.iter().map(|e| e.0)).collect();
        let wait = if before.is_empty() { wait } else { &before[..] };
        // The copies' events stay alive until the kernel that waits for them is enqueued.
        let (copy_leases, copy_events): (Vec<Lease>, Vec<Event>) =
            copies.into_iter().map(|c| (c.lease, c.event)).unzip();
        leases.extend(copy_leases);
        if leases.is_empty() {
            return Ok((launch(queue, &entry, global, local, wait, want_event)?, scaled));
        }
        // The leased buffers keep this launch's event, to know when they may be reused; on an
        // in-order queue the queue's order suffices where the caller wants no event, but a launch
        // that copied takes one anyway (a large launch, where it costs nothing), so that
        // `Engine::release_scratch` can tell when its buffers are free.
        if !want_event && leases[0].in_order() && copy_events.is_empty() {
            let none = launch(queue, &entry, global, local, wait, false)?;
            if let Some((combine, workspace)) = combine {
                enqueue_combine::<T>(queue, combine, &p, workspace, beta, self.scale_local, &[], false)?;
            }
            leases.into_iter().for_each(Lease::launched_unobserved);
            return Ok((none, None));
        }
        let kernel_event = launch(queue, &entry, global, local, wait, true)?;
        // In 16-bit storage the launch ends with `combine_c`, after the kernel.
        let (event, kernel_first) = match combine {
            Some((combine, workspace)) => {
                let kernel_event = Event(kernel_event);
                let wait = [kernel_event.0];
                let event = enqueue_combine::<T>(queue, combine, &p, workspace, beta, self.scale_local, &wait, true)?;
                (event, Some(kernel_event))
            }
            None => (kernel_event, None),
        };
        for lease in leases {
            lease.launched(event)?;
        }
        if !want_event {
            drop(Event(event)); // the leases hold their own references
            return Ok((ptr::null_mut(), None));
        }
        Ok((event, copy_events.into_iter().next().or(scaled).or(kernel_first)))
    }

    /// Copies each operand of `p` that [`LaunchPolicy::transposes_first`] names into a scratch buffer
    /// contiguous along M (A) or N (B), after the events in `wait`, and puts the copy in its place.
    /// An operand whose copy the device cannot hold (beyond its largest buffer, refused by
    /// clCreateBuffer, or by the copy's enqueue where the driver allocates at first use) stays as
    /// it is, and a buffer the enqueue refused leaves the pool.
    fn copy_transposed<T: Element>(
        &self,
        queue: cl_command_queue,
        p: &mut Problem,
        wait: &[cl_event],
    ) -> Result<Vec<TransposedCopy<'_>>> {
        let Some(kernel) = &self.transpose else { return Ok(Vec::new()) };
        let (m, n, k, batch) = (p.m, p.n, p.k, p.batch);
        let mut copies = Vec::new();
        for (index, operand, rows) in [(0, &mut p.a, m), (1, &mut p.b, n)] {
            if operand.along_outer || !self.geometry.transposes_first(index, m, n, k) {
                continue;
            }
            // Columns of 32 elements keep the kernel's vector loads aligned and its rows coalesced.
            let ld = rows.next_multiple_of(32);
            let Some(elements) = ld.checked_mul(k).and_then(|e| e.checked_mul(batch)) else { continue };
            let bytes = elements.saturating_mul(std::mem::size_of::<T>());
            if elements > i32::MAX as usize || bytes > self.max_alloc_bytes {
                continue;
            }
            // A buffer the device refuses leaves the operand as it is.
            let Ok(lease) = self.transposed_copies[index].lease(queue, bytes, self.max_alloc_bytes) else { continue };
            let kernel = kernel.lock().expect("kernel lock");
            let mut args = KernelArgs::new(&kernel);
            args.int(rows)?
                .int(k)?
                .mem(operand.mem)?
                .int(operand.offset)?
                .int(operand.ld)?
                .int(operand.batch_stride)?;
            args.mem(lease.mem())?.int(ld)?.int(ld * k)?;
            let global = [k.div_ceil(32) * 32, rows.div_ceil(32) * 8, batch];
            let event = match launch(queue, &kernel, global, Some([32, 8, 1]), wait, true) {
                Ok(event) => Event(event),
                Err(Error::OpenCl { code, .. }) if is_allocation_failure(code) => {
                    lease.discard();
                    continue;
                }
                Err(e) => return Err(e),
            };
            *operand = Operand { mem: lease.mem(), offset: 0, ld, along_outer: true, batch_stride: ld * k };
            copies.push(TransposedCopy { lease, event });
        }
        Ok(copies)
    }
}

/// Whether an enqueue failed for want of memory, which a driver that allocates a buffer at its
/// first use reports there rather than at `clCreateBuffer`.
fn is_allocation_failure(code: i32) -> bool {
    use opencl3::error_codes::{CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_RESOURCES};
    [CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY].contains(&code)
}

/// An operand copied transposed for one launch: its leased scratch buffer and the copy's event.
struct TransposedCopy<'a> {
    lease: Lease<'a>,
    event: Event,
}

/// Enqueues a `scale_c` kernel: C = beta * C over a checked problem's C, in 16 x 16 work-groups
/// where `local_16x16` (else the runtime's choice).
pub(super) fn enqueue_scale_c<T: Element>(
    queue: cl_command_queue,
    kernel: &Kernel,
    problem: &Problem,
    beta: T::Scalar,
    local_16x16: bool,
    wait: &[cl_event],
    want_event: bool,
) -> Result<cl_event> {
    let mut args = KernelArgs::new(kernel);
    args.int(problem.m)?.int(problem.n)?.value(beta)?.mem(problem.c.mem)?;
    args.int(problem.c.offset)?.int(problem.c.row_stride)?.int(problem.c.col_stride)?.int(problem.c.batch_stride)?;
    let global = [problem.m.div_ceil(16) * 16, problem.n.div_ceil(16) * 16, problem.batch];
    launch(queue, kernel, global, Some([16, 16, 1]).filter(|_| local_16x16), wait, want_event)
}

/// Enqueues a `combine_c` kernel: C = W + beta * C over a checked problem's C, W the f32 workspace
/// that a 16-bit launch's kernel added its splits into (element (i, j) of batch item b at
/// i + j * M + b * M * N), in work-groups of 64 where `local_64` (else the runtime's choice).
#[allow(clippy::too_many_arguments)]
fn enqueue_combine<T: Element>(
    queue: cl_command_queue,
    kernel: &Mutex<Kernel>,
    problem: &Problem,
    workspace: cl_mem,
    beta: T::Scalar,
    local_64: bool,
    wait: &[cl_event],
    want_event: bool,
) -> Result<cl_event> {
    let kernel = kernel.lock().expect("kernel lock");
    let mut args = KernelArgs::new(&kernel);
    args.int(problem.m)?.int(problem.n)?.value(beta)?.mem(workspace)?.mem(problem.c.mem)?;
    args.int(problem.c.offset)?.int(problem.c.row_stride)?.int(problem.c.col_stride)?.int(problem.c.batch_stride)?;
    let global = [(problem.m * problem.n).div_ceil(64) * 64, problem.batch, 1];
    launch(queue, &kernel, global, Some([64, 1, 1]).filter(|_| local_64), wait, want_event)
}
