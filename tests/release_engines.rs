//! `fewfit::release_engines` (`FewfitClearCache` in the C API): after it, fewfit holds no reference
//! to a context it ran on, and a later call on that context builds its engine again and is right.
//! Alone in its test binary: it drops the engines of every context in the process.

mod common;

use common::{check_call, device};
use fewfit::{build_stats, gemm, release_engines, DefaultDevice, GemmSpec, Layout, Transpose};

#[test]
fn released_engines_give_back_their_context_and_are_made_again() {
    if device().is_none() {
        return;
    }
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
