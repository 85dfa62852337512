//! Builds variants for the default device (FEWFIT_DEVICE) with the build options the engine passes
//! there (so DB = 3 / 4 build their cp.async path on NVIDIA) plus extra ones, and prints
//! the compiler's log: on NVIDIA, `-cl-nv-verbose` makes it report registers per thread, spills and
//! shared memory, the facts that bound occupancy. Builds the shipped set, or with `--from DATASET`
//! (repeatable) every distinct fewfit variant of those datasets.
//!
//! `cargo run --release --features tune --example build_log -- [--from DATASET]... -cl-nv-verbose`

use std::collections::BTreeMap;
use std::path::PathBuf;

use fewfit::codegen::render::render;
use fewfit::codegen::Variant;
use fewfit::tuner::dataset::Dataset;
use fewfit::{variant_build_options, DefaultDevice, Precision, VariantId};
use opencl3::program::Program;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut datasets = Vec::new();
    let mut extra = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--from" {
            datasets.push(PathBuf::from(args.next().ok_or("--from needs a dataset")?));
        } else {
            extra.push(arg);
        }
    }
    let variants: Vec<Variant> = if datasets.is_empty() {
        VariantId::ALL.iter().map(|id| id.variant()).collect()
    } else {
        let (data, _) = Dataset::load(&datasets)?;
        let by_id: BTreeMap<String, Variant> =
            data.records.iter().filter_map(|r| r.variant.variant()).map(|v| (v.id(), v)).collect();
        by_id.into_values().collect()
    };
    let device = DefaultDevice::get()?;
    println!("device: {} ({})", device.info.name, device.info.platform_version);
    let options = format!("{} {}", variant_build_options(&device.info, Precision::F32), extra.join(" "));
    for variant in variants {
        let source = render(&variant)?;
        let mut program = Program::create_from_source(&device.context, &source)?;
        let built = program.build(device.context.devices(), &options);
        let log = program.get_build_log(device.context.devices()[0])?;
        println!("== {} ({})", variant.id(), if built.is_ok() { "built" } else { "FAILED" });
        println!("{}", log.trim());
    }
    Ok(())
}
