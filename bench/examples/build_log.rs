//! Builds variants for the default device (FEWFIT_DEVICE) with the build options the engine passes
//! there (so DB = 3 / 4 build their cp.async path on NVIDIA) plus extra ones, and prints
//! the compiler's log: on NVIDIA, `-cl-nv-verbose` makes it report registers per thread, spills and
//! shared memory, the facts that bound occupancy. Builds the shipped set, or with `--from DATASET`
//! (repeatable) every distinct fewfit variant of those datasets, or with `--variant ID` (repeatable)
//! the variants those ids name, or with `--source FILE` (repeatable) those OpenCL sources as they
//! are; `--dump DIR` also writes each rendered variant to DIR/ID.cl, and `--binaries DIR` each built
//! program's binary to DIR/NAME.bin (on NVIDIA the PTX, which `ptxas -v` and `cuobjdump -sass` read).
//! Each build's outcome is printed before the next starts, so a compiler that aborts the process
//! (PoCL 5.0 on some barrier shapes) is caught at the variant that follows the last line.
//!
//! `cargo run --release -p fewfit-bench --example build_log -- [--from DATASET]... [--variant ID]...
//! [--source FILE]... [--dump DIR] [--binaries DIR] -cl-nv-verbose`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fewfit::tuning::variant_build_options;
use fewfit::{DefaultDevice, Precision, VariantId};
use fewfit_codegen::Renderer;
use fewfit_codegen::Variant;
use fewfit_tuner::dataset::Dataset;
use opencl3::program::Program;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut datasets = Vec::new();
    let mut sources = Vec::new();
    let mut ids = Vec::new();
    let mut dump = None;
    let mut binaries = None;
    let mut extra = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--from" => datasets.push(PathBuf::from(args.next().ok_or("--from needs a dataset")?)),
            "--source" => sources.push(PathBuf::from(args.next().ok_or("--source needs a file")?)),
            "--variant" => ids.push(args.next().ok_or("--variant needs an id")?),
            "--dump" => dump = Some(PathBuf::from(args.next().ok_or("--dump needs a folder")?)),
            "--binaries" => binaries = Some(PathBuf::from(args.next().ok_or("--binaries needs a folder")?)),
            _ => extra.push(arg),
        }
    }
    let variants: Vec<Variant> = if !ids.is_empty() {
        let parse = |id: &String| {
            let variant = Variant::from_id(id).ok_or_else(|| format!("`{id}` is not a variant id"))?;
            variant.validate().map_err(|e| format!("{id}: {} {}", e.field, e.reason))?;
            Ok::<_, String>(variant)
        };
        ids.iter().map(parse).collect::<Result<_, _>>()?
    } else if !sources.is_empty() {
        Vec::new()
    } else if datasets.is_empty() {
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
    let mut named_sources = Vec::new();
    for path in sources {
        named_sources.push((path.display().to_string(), std::fs::read_to_string(&path)?));
    }
    let renderer = Renderer::new(&fewfit::tuning::KERNEL_TEMPLATES)?;
    for variant in variants {
        let source = renderer.render(&variant)?;
        if let Some(dir) = &dump {
            std::fs::create_dir_all(dir)?;
            std::fs::write(dir.join(format!("{}.cl", variant.id())), &source)?;
        }
        named_sources.push((variant.id(), source));
    }
    for (name, source) in named_sources {
        println!("== {name}: building");
        let mut program = Program::create_from_source(&device.context, &source)?;
        let built = program.build(device.context.devices(), &options);
        let log = program.get_build_log(device.context.devices()[0])?;
        println!("== {name} ({})", if built.is_ok() { "built" } else { "FAILED" });
        println!("{}", log.trim());
        if let (Some(dir), true) = (&binaries, built.is_ok()) {
            std::fs::create_dir_all(dir)?;
            let file_name = Path::new(&name).file_name().map_or(name.clone(), |f| f.to_string_lossy().into_owned());
            for binary in program.get_binaries()? {
                std::fs::write(dir.join(format!("{file_name}.bin")), binary)?;
            }
        }
    }
    Ok(())
}
