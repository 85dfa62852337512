//! Builds each shipped variant for the default device (FEWFIT_DEVICE) with extra OpenCL build
//! options and prints the compiler's log: on NVIDIA, `-cl-nv-verbose` makes it report registers per
//! thread, spills and shared memory, the facts that bound occupancy.
//!
//! `cargo run --release --example build_log -- -cl-nv-verbose`

use fewfit::codegen::render::render;
use fewfit::{DefaultDevice, Precision, VariantId};
use opencl3::program::Program;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let extra: Vec<String> = std::env::args().skip(1).collect();
    let device = DefaultDevice::get()?;
    println!("device: {} ({})", device.info.name, device.info.platform_version);
    let options = format!("{} {}", Precision::F32.build_options(), extra.join(" "));
    for id in VariantId::ALL {
        let variant = id.variant();
        let source = render(&variant)?;
        let mut program = Program::create_from_source(&device.context, &source)?;
        let built = program.build(device.context.devices(), &options);
        let log = program.get_build_log(device.context.devices()[0])?;
        println!("== {} ({})", variant.id(), if built.is_ok() { "built" } else { "FAILED" });
        println!("{}", log.trim());
    }
    Ok(())
}
