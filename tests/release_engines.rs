//! `fewfit::release_engines` (`FewfitClearCache` in the C API): after it, fewfit holds no reference
//! to a context it ran on, and a later call on that context builds its engine again and is right;
//! called again and again while other threads run GEMMs, every GEMM is still right.
//! Alone in its test binary: it drops the engines of every context in the process (and its tests
//! take turns, through [`ENGINES`]).

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::{check_call, check_strided_batch, device};
use fewfit::{
    build_stats, chosen_variant, gemm, gemm_host, gemm_no_event, release_engines, DefaultDevice, GemmSpec, Layout,
    Transpose,
};

/// Held by each test: each releases every engine of the process, and the first counts references.
static ENGINES: Mutex<()> = Mutex::new(());

fn take_turn() -> MutexGuard<'static, ()> {
    ENGINES.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn released_engines_give_back_their_context_and_are_made_again() {
    if device().is_none() {
        return;
    }
    let _turn = take_turn();
    // A context of its own, so that the reference counts are this test's alone.
    let own = DefaultDevice::open(std::env::var("FEWFIT_DEVICE").ok().as_deref()).unwrap();
    let references = || own.context.reference_count().unwrap();
    let spec = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, 70, 45, 33).with_ld(36, 36, 47);
    let run = |seed| {
        check_call(&own, &spec, (1.5f32, -0.5f32), seed, "gemm", |a, b, c| {
            gemm(&own.queue, &spec, 1.5, a, b, -0.5, c, &[])
        })
    };

    let before = references();
    run(1).unwrap();
    assert!(references() > before, "the engine holds the context while it lives");
    assert!(release_engines() >= 1);
    assert_eq!(references(), before, "every reference fewfit held is given back");
    assert_eq!(release_engines(), 0, "nothing is left to release");

    let builds = build_stats();
    run(2).unwrap();
    let rebuilt = build_stats();
    assert!(
        rebuilt.compiled + rebuilt.from_cache > builds.compiled + builds.from_cache,
        "the next call built its engine's variants again"
    );
    release_engines();
    assert_eq!(references(), before);
}

/// Three threads run four checked GEMMs each (with an event, without one, a strided batch, host
/// slices; one shape splits K on a CPU) on a context of their own and the default device's, while a
/// fourth calls `release_engines` again and again: calls in flight keep their engine, the next ones
/// make it again, and every result is right. Afterwards fewfit holds no reference to the
/// context.
#[test]
fn engines_released_while_threads_call_gemm() {
    if device().is_none() {
        return;
    }
    let _turn = take_turn();
    let own = DefaultDevice::open(std::env::var("FEWFIT_DEVICE").ok().as_deref()).unwrap();
    let references = || own.context.reference_count().unwrap();
    let before = references();
    let started = Instant::now();
    let (done, released, calls) = (AtomicBool::new(false), AtomicUsize::new(0), AtomicUsize::new(0));
    let shapes = [(17, 9, 13), (70, 45, 33), (64, 64, 4096), (1, 40, 3), (33, 1, 200), (5, 300, 64)];
    std::thread::scope(|s| {
        // Each release makes the next calls build their engine again (a few hundred ms on PoCL on
        // 2 cores), so it comes at most once every third GEMM that completes, while the other
        // threads' calls are in flight.
        s.spawn(|| {
            let mut last = 0;
            while !done.load(Ordering::Acquire) {
                let now = calls.load(Ordering::Relaxed);
                if now == 0 || now >= last + 3 {
                    released.fetch_add(release_engines(), Ordering::Relaxed);
                    last = now.max(1);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let workers: Vec<_> = (0..3u64)
            .map(|t| {
                let (own, calls) = (&own, &calls);
                s.spawn(move || {
                    for round in 0..4u64 {
                        let (m, n, k) = shapes[((t * 2 + round) % shapes.len() as u64) as usize];
                        let trans = if round % 2 == 0 { Transpose::Yes } else { Transpose::No };
                        let spec = GemmSpec::new(Layout::RowMajor, Transpose::No, trans, m, n, k);
                        let (alpha, beta) = (1.5f32, if round % 3 == 0 { 0.0 } else { -0.5 });
                        let seed = 100 * t + round;
                        let label = format!("thread {t} round {round}");
                        match round % 4 {
                            0 => check_call(own, &spec, (alpha, beta), seed, &label, |a, b, c| {
                                gemm(&own.queue, &spec, alpha, a, b, beta, c, &[])
                            }),
                            1 => check_call(own, &spec, (alpha, beta), seed, &label, |a, b, c| {
                                gemm_no_event(&own.queue, &spec, alpha, a, b, beta, c, &[])?;
                                // SAFETY: an empty wait list on a valid queue.
                                Ok(unsafe { own.queue.enqueue_marker_with_wait_list(&[]) }.unwrap())
                            }),
                            2 => {
                                let id = chosen_variant::<f32>(&own.queue, &spec).unwrap();
                                let strides = (m * k + 3, n * k + 1, m * n + 2);
                                check_strided_batch(own, id, spec, 3, strides, (alpha, beta))
                            }
                            _ => host_call(&spec, (alpha, beta), seed),
                        }
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                        calls.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        done.store(true, Ordering::Release);
    });
    let released = released.into_inner() + release_engines();
    assert!(released >= 2, "the engines were released {released} times while calls ran");
    assert_eq!(references(), before, "every reference fewfit held on the context is given back");
    println!(
        "{} GEMMs on 3 threads, {released} engines released meanwhile, in {:.2?}",
        calls.into_inner(),
        started.elapsed()
    );
}

/// `gemm_host` on the default device against the reference.
fn host_call(spec: &GemmSpec, (alpha, beta): (f32, f32), seed: u64) -> Result<(), String> {
    let a = common::random::<f32>(spec.m * spec.k, seed);
    let b = common::random::<f32>(spec.k * spec.n, seed + 1);
    let c0 = common::random::<f32>(spec.m * spec.n, seed + 2);
    let expected = common::reference(spec, alpha, &a, &b, beta, &c0);
    let mut c = c0.clone();
    gemm_host(spec, alpha, &a, &b, beta, &mut c).map_err(|e| e.to_string())?;
    common::check(spec, &c, &c0, &expected)
}
