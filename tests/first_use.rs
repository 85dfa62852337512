//! What a process's first GEMM builds: the helpers and its own variant before it returns, and the
//! rest of the variants the device's tree can pick in the background, each once; nothing else. A
//! variant outside the tree is built on the first call that names it, and only then. One test in
//! its own process, since the build counters count per process.

mod common;

use common::*;
use fewfit::tuning;
use fewfit::{build_stats, gemm, gemm_with, GemmSpec, Precision, Selection, VariantId};
use fewfit_codegen::PackA;

/// Programs built so far in this process (compiled, or loaded from fewfit's binary cache).
fn programs_built() -> u64 {
    let stats = build_stats();
    stats.compiled + stats.from_cache
}

/// The programs of some variants in f32 on a device: each its main program, plus its split program
/// if it has one, plus its PA = 0 program if it packs A only in large launches there (a device that
/// narrows the block does not pack).
fn programs_of(device: &fewfit::DefaultDevice, ids: &[VariantId]) -> u64 {
    let packs_where_large =
        |id: &VariantId| device.info.runs(&id.variant(), Precision::F32).geometry().pack_a == PackA::WhereLarge;
    ids.iter().map(|id| 1 + id.info().split_source.is_some() as u64 + packs_where_large(id) as u64).sum()
}

/// Runs one 37x29x41 GEMM with a selection and checks it against the f64 reference.
fn checked_gemm(device: &fewfit::DefaultDevice, selection: Selection) {
    let spec = GemmSpec::row_major(37, 29, 41);
    let (a, b, c) = (random::<f32>(37 * 41, 1), random::<f32>(41 * 29, 2), random::<f32>(37 * 29, 3));
    let expected = reference(&spec, 1.25f32, &a, &b, -0.5, &c);
    let (a_buf, b_buf, mut c_buf) = (upload(device, &a), upload(device, &b), upload(device, &c));
    let event = match selection {
        Selection::Auto => gemm(&device.queue, &spec, 1.25, &a_buf, &b_buf, -0.5, &mut c_buf, &[]),
        forced => gemm_with(&device.queue, &spec, 1.25, &a_buf, &b_buf, -0.5, &mut c_buf, &[], forced),
    };
    event.unwrap().wait().unwrap();
    check(&spec, &download(device, &c_buf, c.len()), &c, &expected).unwrap();
}

#[test]
fn the_first_call_builds_its_variant_then_the_trees_in_the_background_and_a_named_one_on_its_first_call() {
    let Some(device) = device() else { return };
    let reachable = tuning::reachable(device.info.class, Precision::F32);
    assert!(!reachable.is_empty(), "every class's tree has leaves");
    let engine = fewfit::Engine::for_queue(device.queue.get()).unwrap();
    let chosen = engine.select(Precision::F32, GemmSpec::row_major(37, 29, 41).kernel_features());
    let before = programs_built();
    checked_gemm(device, Selection::Auto);
    // The helpers and the call's variant at least; the background builds may have begun since.
    let at_least = before + 1 + programs_of(device, &[chosen]);
    assert!(programs_built() >= at_least, "helpers + the call's variant before it returns");
    // Warm-up waits for the background builds: each of the tree's programs is built once.
    engine.warm_up(Precision::F32).unwrap();
    let after_first = before + 1 + programs_of(device, &reachable);
    assert_eq!(programs_built(), after_first, "helpers + the tree's {} variants, each once", reachable.len());
    checked_gemm(device, Selection::Auto);
    assert_eq!(programs_built(), after_first, "a second call builds nothing");

    let outside: Vec<VariantId> = VariantId::ALL.into_iter().filter(|id| !reachable.contains(id)).collect();
    let Some(&named) = outside.first() else { return };
    checked_gemm(device, Selection::Forced(named));
    let after_named = after_first + programs_of(device, &[named]);
    assert_eq!(programs_built(), after_named, "{named} is built on the first call that names it");
    checked_gemm(device, Selection::Forced(named));
    assert_eq!(programs_built(), after_named, "and not again");
}
