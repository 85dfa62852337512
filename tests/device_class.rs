//! `FEWFIT_DEVICE_CLASS` puts the device in a named class: that class's tree picks the variants and
//! its build options build them, and the results still match the f64 reference. A binary of its
//! own, since the variable is read when a device's engine is made.

mod common;

use common::*;
use fewfit::{chosen_variant, DefaultDevice, DeviceClass, Error, GemmSpec, Precision, Selection};
use fewfit_codegen::Family;
use rand::{rngs::StdRng, SeedableRng};

#[test]
fn a_named_class_replaces_the_detected_one() {
    let spec = std::env::var("FEWFIT_DEVICE").ok();
    // A name that is not a class is a typed error naming the variable.
    std::env::set_var("FEWFIT_DEVICE_CLASS", "tpu");
    match DefaultDevice::open(spec.as_deref()) {
        Err(Error::InvalidArgument { name, value, .. }) => {
            assert_eq!((name, value.as_str()), ("FEWFIT_DEVICE_CLASS", "tpu"))
        }
        Err(e @ Error::NoDevice(_)) if std::env::var("FEWFIT_TEST_DEVICE").as_deref() == Ok("skip") => {
            eprintln!("Skipping: {e}");
            return;
        }
        other => panic!("expected InvalidArgument(FEWFIT_DEVICE_CLASS), got {:?}", other.map(|d| d.info)),
    }
    // `gpu` on whatever device runs the tests (PoCL in CI): GPU kernels, built without NVIDIA's PTX.
    std::env::set_var("FEWFIT_DEVICE_CLASS", "gpu");
    let device = DefaultDevice::open(spec.as_deref()).expect("the device opens with a valid class");
    assert_eq!(device.info.class, DeviceClass::Gpu);
    assert!(!device.info.async_copies);
    // The CPU blocks' VW cap is a build option of the cpu class: none in this one, on a CPU too.
    assert_eq!(device.info.vw_cap(Precision::F32), None);
    for (m, n, k, seed) in [(1, 70, 64, 1), (8, 64, 33, 2), (33, 65, 17, 3), (96, 96, 96, 4), (130, 40, 200, 5)] {
        let spec = GemmSpec::row_major(m, n, k);
        let picked = chosen_variant::<f32>(&device.queue, &spec).unwrap();
        assert_ne!(picked.info().family, Family::Panel, "the gpu tree named a CPU kernel for {m}x{n}x{k}");
        run_case(&device, Selection::Auto, spec, 0.5f32, 2.0, seed).unwrap_or_else(|e| panic!("{picked}: {e}"));
    }
    // The gpu tree and the launches it makes (splits of K, stream-K, the direct kernel) on problems
    // no list in this repo names.
    let mut rng = StdRng::seed_from_u64(20261129);
    let failures: Vec<String> = (0..24)
        .filter_map(|case| {
            let (spec, alpha, beta) = random_problem(&mut rng, 200.0, 1000.0);
            run_case::<f32>(&device, Selection::Auto, spec, alpha, beta, case).err()
        })
        .collect();
    assert!(failures.is_empty(), "{} of 24 random problems failed:\n{}", failures.len(), failures.join("\n"));
    // A class whose kernels this device cannot build (NVIDIA's PTX on another vendor's device): the
    // failure is kept, so that a later call fails at once and builds nothing.
    if !device.info.vendor.contains("NVIDIA") {
        std::env::set_var("FEWFIT_DEVICE_CLASS", "nvidia-gpu");
        let device = DefaultDevice::open(spec.as_deref()).expect("the device opens with a valid class");
        let problem = GemmSpec::row_major(64, 64, 64);
        let first = run_case::<f32>(&device, Selection::Auto, problem, 1.0, 0.0, 6).expect_err("PTX built here");
        let builds = fewfit::build_stats();
        let again = run_case::<f32>(&device, Selection::Auto, problem, 1.0, 0.0, 6).expect_err("the set built later");
        assert_eq!(first, again);
        assert_eq!(fewfit::build_stats(), builds, "a call after the failed set built programs");
    }
}
