//! `fewfit`: the offline tuner. Sweeps variants over shapes on OpenCL devices, merges and imports
//! datasets, selects a small set of variants, trains selector trees and evaluates them, and
//! regenerates what the crate ships (`variants/selected.json`, `selector/*.json`) in one command.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use fewfit::tuner::dataset::Dataset;
use fewfit::tuner::space::{sample, Limits, Space};
use fewfit::tuner::sweep::{read_shapes, sweep, Plan, Shard};
use fewfit::tuner::{import, Result};
use fewfit::{list_devices, DefaultDevice, DeviceInfo};

#[derive(Parser)]
#[command(name = "fewfit", version, about = "Offline tuner of fewfit's GEMM variant set and selector trees")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lists the OpenCL devices, their class, and the limits that constrain variants.
    Devices,
    /// Times every (variant, shape) pair of a space on a device, appending to a dataset (resumable).
    Sweep(SweepArgs),
    /// Joins datasets from several machines and devices into one, refusing conflicting duplicates.
    Merge {
        /// Datasets to join (JSON Lines, `.gz` allowed).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The merged dataset.
        #[arg(long)]
        out: PathBuf,
    },
    /// Converts another tuner's output into the dataset format.
    Import {
        /// The tuner: `clblast-tuner` (the JSON of CLBlast's clblast_tuner_xgemm).
        #[arg(long = "from", value_parser = ["clblast-tuner"])]
        from: String,
        /// The tuner's files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The dataset to write.
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(clap::Args)]
struct SweepArgs {
    /// The device: `gpu`, `cpu`, `PLATFORM:DEVICE`, or part of its name (as FEWFIT_DEVICE).
    #[arg(long, default_value = "")]
    device: String,
    /// The shapes, one `M N K` per line.
    #[arg(long)]
    shapes: PathBuf,
    /// The variant space.
    #[arg(long, default_value = "variants/space.json")]
    space: PathBuf,
    /// The dataset to append to (created if absent; a sweep resumes from what it holds).
    #[arg(long)]
    out: PathBuf,
    /// `f32` or `f64`.
    #[arg(long, default_value = "f32", value_parser = ["f32", "f64"])]
    precision: String,
    /// Sweep a deterministic sample of this many variants of the space (the shipped set is always added).
    #[arg(long)]
    sample: Option<usize>,
    /// The sample's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Measure shard I of N (`I/N`): a deterministic 1/N of the pairs, split by variant.
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// Stop cleanly after this many seconds (run again to resume).
    #[arg(long)]
    budget_secs: Option<u64>,
    /// Timed runs per pair, at most.
    #[arg(long, default_value_t = 20)]
    repeats: u32,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fewfit: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Devices => devices(),
        Command::Sweep(args) => run_sweep(&args),
        Command::Merge { inputs, out } => {
            let (set, report) = Dataset::load(&inputs)?;
            set.save(&out)?;
            println!("merged {} records into {} ({report})", set.records.len(), out.display());
            Ok(())
        }
        Command::Import { from: _, files, out } => {
            let mut set = Dataset::default();
            for f in &files {
                set.records.extend(import::clblast_tuner(f)?);
            }
            set.save(&out)?;
            println!("imported {} records from {} files into {}", set.records.len(), files.len(), out.display());
            Ok(())
        }
    }
}

fn devices() -> Result<()> {
    println!("{:<6} {:<12} {:>8} {:>10} {:>5}  name (vendor; driver)", "index", "class", "max wg", "local KiB", "fp64");
    for (p, d, id) in list_devices()? {
        let info = DeviceInfo::query(id)?;
        println!(
            "{:<6} {:<12} {:>8} {:>10} {:>5}  {} ({}; {})",
            format!("{p}:{d}"),
            info.class.name(),
            info.max_work_group_size,
            info.local_mem_bytes / 1024,
            if info.fp64 { "yes" } else { "no" },
            info.name,
            info.vendor,
            info.driver
        );
    }
    Ok(())
}

fn run_sweep(args: &SweepArgs) -> Result<()> {
    let shard = Shard::parse(&args.shard)?;
    let shapes = read_shapes(&args.shapes)?;
    let space = Space::load(&args.space)?;
    let device = DefaultDevice::open(Some(&args.device).filter(|d| !d.is_empty()).map(String::as_str))?;
    let elem_bytes = if args.precision == "f64" { 8 } else { 4 };
    let limits = Limits {
        max_work_group_size: device.info.max_work_group_size,
        local_mem_bytes: device.info.local_mem_bytes,
        elem_bytes,
    };
    let all = space.variants(&limits);
    let mut variants = match args.sample {
        Some(n) => sample(&all, n, args.seed),
        None => all.clone(),
    };
    for id in fewfit::VariantId::ALL {
        let shipped = id.variant();
        if fewfit::tuner::space::fits(&shipped, &limits) && !variants.contains(&shipped) {
            variants.push(shipped);
        }
    }
    eprintln!(
        "sweep: {} on {} ({}): {} of {} valid variants x {} shapes, shard {}/{}",
        args.precision,
        device.info.name,
        device.info.class.name(),
        variants.len(),
        all.len(),
        shapes.len(),
        shard.index,
        shard.count
    );
    let plan = Plan {
        repeats: args.repeats.max(1),
        budget: args.budget_secs.map(Duration::from_secs),
        progress: !args.quiet,
        ..Plan::default()
    };
    let summary = if args.precision == "f64" {
        sweep::<f64>(&device, &variants, &shapes, &args.out, shard, &plan)?
    } else {
        sweep::<f32>(&device, &variants, &shapes, &args.out, shard, &plan)?
    };
    println!(
        "sweep: {} pairs measured ({} invalid), {} already in {}, {} left for a later run",
        summary.measured,
        summary.invalid,
        summary.resumed,
        args.out.display(),
        summary.left
    );
    Ok(())
}
