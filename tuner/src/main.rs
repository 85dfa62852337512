//! `fewfit`: the offline tuner. Sweeps variants over shapes on OpenCL devices, merges and imports
//! datasets, selects a small set of variants, trains selector trees and evaluates them, and
//! regenerates what the crate ships (`variants/selected.json`, `selector/*.json`) in one command.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use fewfit::{list_devices, Compute, DefaultDevice, DeviceInfo, Precision};
use fewfit_codegen::{CLASSES, PRECISIONS};
use fewfit_tuner::dataset::Dataset;
use fewfit_tuner::families::{self, Families};
use fewfit_tuner::recipe::{parse_assignment, Recipe};
use fewfit_tuner::regenerate::{load_matrix, objective, source};
use fewfit_tuner::space::{sample, Limits, Space};
use fewfit_tuner::sweep::{read_shapes, sweep, Plan, Shard};
use fewfit_tuner::{evaluate, import, regenerate, select, train, Error, Result};

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
        /// Label the records that have no machine label with this one (data of a machine whose
        /// device reports the same name as another's, swept before `sweep --machine`).
        #[arg(long)]
        machine: Option<String>,
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
    /// Compares set-selection methods on a train/test split of the shapes of a dataset.
    Select {
        /// Datasets.
        #[arg(long, required = true, num_args = 1..)]
        data: Vec<PathBuf>,
        /// The precision whose records select (the others' are left out).
        #[arg(long, default_value = "f32", value_parser = PRECISIONS)]
        precision: String,
        /// At most this many variants in the set.
        #[arg(short = 'k', default_value_t = 12)]
        k: usize,
        /// At most this many variants used per device class.
        #[arg(long, default_value_t = 8)]
        per_class: usize,
        /// A lower limit for one device class (`CLASS=N`, repeatable), e.g. `cpu=4`.
        #[arg(long, value_parser = parse_assignment)]
        class_limit: Vec<(String, u32)>,
        /// Methods to run: greedy, kmeans, tree, exhaustive.
        #[arg(long, num_args = 1.., default_values_t = vec!["greedy".to_string(), "kmeans".to_string(), "tree".to_string()])]
        method: Vec<String>,
        /// Fraction of shapes held out for testing.
        #[arg(long, default_value_t = 0.2)]
        test_fraction: f64,
        /// Seed of the split and the methods.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Weigh shapes in the selection's geometric mean: a file of `M N K WEIGHT` lines (shapes
        /// it leaves out weigh 1).
        #[arg(long)]
        shape_weights: Option<PathBuf>,
        /// Maximise the fleet rate instead of minimising the geometric mean: a file of
        /// `COUNT DEVICE NAME` lines, the devices of each name the fleet holds (others count 1);
        /// `--shape-weights` then says how often a task runs each shape.
        #[arg(long)]
        fleet: Option<PathBuf>,
        /// Write the first method's set (chosen on the training split) here, e.g.
        /// `variants/selected.json`; `train` then fits trees over it. Only fewfit's own variants
        /// can ship, so with this option imported configurations are left out of the comparison.
        #[arg(long)]
        write: Option<PathBuf>,
    },
    /// Trains the selector tree of a device class in a precision over a selected set and writes it
    /// (as selector/CLASS.json or, for a precision other than f32, selector/CLASS.PRECISION.json).
    Train {
        /// Datasets.
        #[arg(long, required = true, num_args = 1..)]
        data: Vec<PathBuf>,
        /// The precision whose records train the tree, and which the tree serves.
        #[arg(long, default_value = "f32", value_parser = PRECISIONS)]
        precision: String,
        /// The selected set.
        #[arg(long, default_value = "variants/selected.json")]
        selected: PathBuf,
        /// The class: its devices' rows are the training data (`gpu`: every GPU's, `default`:
        /// every device's).
        #[arg(long)]
        class: String,
        /// Where to write the tree.
        #[arg(long)]
        out: PathBuf,
        /// Weigh shapes in the fit and the cross-validation: a file of `M N K WEIGHT` lines (as
        /// `regenerate --shape-weights`).
        #[arg(long)]
        shape_weights: Option<PathBuf>,
        #[command(flatten)]
        grid: TreeGrid,
    },
    /// Sweeps (optionally), selects, trains every class's tree and writes `variants/selected.json`
    /// and `selector/*.json` in one command, then evaluates them on held-out shapes; from f32
    /// records, with every other precision's trees the f32 ones. With `--recipe`, makes a whole
    /// release as the recipe says (datasets checked by sha256, each precision's selection and
    /// trees, then the twins and grafts that follow training).
    Regenerate(RegenerateArgs),
    /// Slowdown against the oracle of the shipped set and trees on a dataset, with a CDF plot; with
    /// `--families`, of a set and trees made without each architecture family, on its problems.
    Evaluate {
        /// Datasets (shapes never used in training, too).
        #[arg(long, required = true, num_args = 1..)]
        data: Vec<PathBuf>,
        /// The precision whose records are judged, by the trees of that precision.
        #[arg(long, default_value = "f32", value_parser = PRECISIONS)]
        precision: String,
        /// Where to write the SVG plot of the slowdown distribution.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Also print one line per shape: the tree's pick, its slowdown and the best in set's.
        #[arg(long)]
        per_shape: bool,
        /// The folder whose `variants/selected.json` and `selector/*.json` are judged: the crate's
        /// own by default, or a copy holding trees that are not shipped.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Hold whole architecture families out instead of judging the shipped set: a folder of
        /// `FAMILY-LAYOUT.txt` shape lists (`variants/shapes/arch`, by `scripts/arch_shapes.py`).
        /// For each family in turn (or `--leave-out-family`'s alone), the set is selected and the
        /// trees trained as `regenerate` does (12 variants, greedy, at most 8 per class) on every
        /// problem of `--data` but the family's, then judged on the family's: one line per family
        /// and device. A problem is the family's where its shape, in its records' layout, is in the
        /// family's list of that layout and in no other family's: a shape that another family
        /// shares stays in training, as a new network that shares a layer with a known one
        /// benefits from it; problems of no family always train.
        #[arg(long, conflicts_with = "root")]
        families: Option<PathBuf>,
        /// With `--families`: leave this family out alone, and report it in full (the tree's
        /// geometric mean and worst slowdown and the best in set's, in total and per device).
        #[arg(long, requires = "families")]
        leave_out_family: Option<String>,
        /// With `--families`: weigh shapes in selection and training, a file of `M N K WEIGHT`
        /// lines (as `regenerate --shape-weights`).
        #[arg(long, requires = "families")]
        shape_weights: Option<PathBuf>,
        /// With `--families`: a lower limit for one device class (`CLASS=N`, repeatable, as
        /// `regenerate --class-limit`).
        #[arg(long, value_parser = parse_assignment, requires = "families")]
        class_limit: Vec<(String, u32)>,
        /// Judge the shipped set and trees per architecture family as well: a folder of
        /// `FAMILY-LAYOUT.txt` shape lists, as `--families` takes; each family's problems are
        /// those leaving it out would hold out. Nothing is trained.
        #[arg(long, conflicts_with = "families")]
        by_family: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct RegenerateArgs {
    /// A release recipe (`variants/recipe.toml`): its datasets with their sha256, the settings
    /// below, and the steps after training (twin substitutions, subtree grafts). With it, only
    /// `--root` may be given besides.
    #[arg(long, conflicts_with_all = [
        "data", "train_only", "select_only", "sweep_out", "k", "per_class", "class_limit", "method",
        "holdout", "test_fraction", "shape_weights", "fleet", "seed", "max_depth", "min_leaf",
    ])]
    recipe: Option<PathBuf>,
    /// Datasets of every device class to ship for (`cpu`, `nvidia-gpu`); `gpu` uses every GPU's,
    /// `default` them all.
    #[arg(long, required_unless_present = "recipe", num_args = 1..)]
    data: Vec<PathBuf>,
    /// Datasets that train the trees only, not the selection: shapes measured on the shipped set
    /// alone (`scripts/device/tree-sweep.sh`), whose other variants would count as failed there.
    #[arg(long, num_args = 1..)]
    train_only: Vec<PathBuf>,
    /// Datasets that select the set but train no tree: a device whose records should shape the
    /// set only (a larger CPU whose subtree is trained apart, which the size-blind `default` tree
    /// would otherwise learn for every device).
    #[arg(long, num_args = 1..)]
    select_only: Vec<PathBuf>,
    /// First sweep the local device with these arguments' shapes into this dataset, then use it too.
    #[arg(long)]
    sweep_out: Option<PathBuf>,
    /// The shapes of that sweep.
    #[arg(long, default_value = "variants/shapes/train.txt")]
    sweep_shapes: PathBuf,
    /// The device of that sweep (as `sweep --device`).
    #[arg(long, default_value = "")]
    sweep_device: String,
    /// The machine label of that sweep's records (as `sweep --machine`).
    #[arg(long)]
    sweep_machine: Option<String>,
    /// The space of that sweep.
    #[arg(long, default_value = "variants/space.json")]
    sweep_space: PathBuf,
    /// Variants sampled from the space by that sweep.
    #[arg(long, default_value_t = 200)]
    sweep_sample: usize,
    /// At most this many variants in the set.
    #[arg(short = 'k', default_value_t = fewfit_codegen::MAX_SELECTED)]
    k: usize,
    /// At most this many variants used per device class.
    #[arg(long, default_value_t = 8)]
    per_class: usize,
    /// A lower limit for one device class (`CLASS=N`, repeatable), e.g. `cpu=4`: that class keeps to
    /// N variants, leaving the rest of the set to the others.
    #[arg(long, value_parser = parse_assignment)]
    class_limit: Vec<(String, u32)>,
    /// The selection method: greedy, kmeans, tree, exhaustive.
    #[arg(long, default_value = "greedy")]
    method: String,
    /// Datasets of shapes never used in training to evaluate the result on (then every shape of
    /// `--data` trains); without them a split of `--data` holds shapes out.
    #[arg(long, num_args = 1..)]
    holdout: Vec<PathBuf>,
    /// Without `--holdout`: the fraction of shapes held out from selection and training.
    #[arg(long, default_value_t = 0.2)]
    test_fraction: f64,
    /// Weigh shapes in the selection's geometric mean and in the trees' fit and cross-validation:
    /// a file of `M N K WEIGHT` lines (shapes it leaves out weigh 1).
    #[arg(long)]
    shape_weights: Option<PathBuf>,
    /// Select by fleet rate: a file of `COUNT DEVICE NAME` lines (as `select --fleet`).
    #[arg(long)]
    fleet: Option<PathBuf>,
    /// Seed of the split and the methods.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// The crate root to write into.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    #[command(flatten)]
    grid: TreeGrid,
}

/// The trees' cross-validation grid, where it differs from the default.
#[derive(clap::Args)]
struct TreeGrid {
    /// Try tree depths from 1 to this (default 12).
    #[arg(long)]
    max_depth: Option<usize>,
    /// Minimum leaf weights to try, in mean shapes (default 8,4,2,1).
    #[arg(long, value_delimiter = ',')]
    min_leaf: Option<Vec<usize>>,
}

impl TreeGrid {
    /// The options with this grid.
    fn apply(self, options: train::TrainOptions) -> train::TrainOptions {
        train::TrainOptions {
            depths: self.max_depth.map_or(options.depths, |max| (1..=max).collect()),
            min_leaf: self.min_leaf.unwrap_or(options.min_leaf),
            ..options
        }
    }
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
    /// `f32`, `f64`, `f16`, `bf16`, or `tf32` (f32 storage, products on TF32 tensor cores:
    /// `Compute::FastTf32`); the records say which.
    #[arg(long, default_value = "f32", value_parser = PRECISIONS)]
    precision: String,
    /// Sweep a deterministic sample of this many variants of the space (the shipped set is always
    /// added; 0: only the shipped set and `--variants-from`, without enumerating the space).
    #[arg(long)]
    sample: Option<usize>,
    /// The sample's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Leave out the shipped set (added by default, so `evaluate` can judge it on this data).
    #[arg(long)]
    no_shipped: bool,
    /// Also sweep every fewfit variant measured in these datasets (the same variants on new shapes);
    /// each dataset is read on its own, so runs that disagree (other kernel code) can be named together.
    #[arg(long, num_args = 1..)]
    variants_from: Vec<PathBuf>,
    /// With `--variants-from`: only the variants within this factor of the fastest on some shape
    /// of one of those datasets (e.g. 1.05), to measure the likely winners on many more shapes.
    #[arg(long)]
    near_best: Option<f64>,
    /// With `--variants-from`: also sweep a copy of each of those variants with this parameter set
    /// to this value (`NAME=VALUE`, repeatable), e.g. `SWZ=1` to try a new parameter on the
    /// measured leaders; copies that break their family's rules are left out.
    #[arg(long, value_parser = parse_assignment)]
    also_with: Vec<(String, u32)>,
    /// Leave out the pairs these datasets already hold (to fill the gaps of a matrix without
    /// conflicting records).
    #[arg(long, num_args = 1..)]
    skip_measured: Vec<PathBuf>,
    /// Measure shard I of N (`I/N`): a deterministic 1/N of the pairs, split by variant.
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// A label written into every record, telling this machine's device apart from devices of
    /// other machines that report the same name, vendor and driver (two VMs of one CPU model).
    #[arg(long)]
    machine: Option<String>,
    /// Time row-major NT calls (B stored N x K, as PyTorch's `Linear` holds its weights) instead of
    /// NN; the records say `"layout": "NT"` and are kept apart from NN's like another device's.
    #[arg(long)]
    transpose_b: bool,
    /// Time row-major TN calls (A stored K x M, as a weight gradient Xᵀ·dY reads X), or TT with
    /// `--transpose-b`; the records say `"layout": "TN"` (`"TT"`).
    #[arg(long)]
    transpose_a: bool,
    /// Skip shapes of more than this many floating-point operations (2·M·N·K), for slow devices.
    #[arg(long)]
    max_flops: Option<f64>,
    /// Stop cleanly after this many seconds (run again to resume).
    #[arg(long)]
    budget_secs: Option<u64>,
    /// Timed runs per pair, at most.
    #[arg(long, default_value_t = 20)]
    repeats: u32,
    /// Time each shape's variants in rounds, one run of each per round, instead of each pair's
    /// runs back to back, so that a slow phase of a shared machine slows them alike (every variant
    /// is built first: for a set, not a large space).
    #[arg(long)]
    interleave: bool,
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
        Command::Merge { inputs, out, machine } => {
            let (mut set, report) = Dataset::load(&inputs)?;
            if let Some(machine) = &machine {
                set.label_machine(machine)?;
            }
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
        Command::Select {
            data,
            precision,
            k,
            per_class,
            class_limit,
            method,
            test_fraction,
            seed,
            shape_weights,
            fleet,
            write,
        } => {
            let mut matrix = load_matrix(&data, &precision)?;
            if write.is_some() {
                let own: Vec<usize> =
                    (0..matrix.configs.len()).filter(|&c| matrix.configs[c].variant().is_some()).collect();
                matrix = matrix.columns(&own);
            }
            let methods = method.iter().map(|m| m.parse::<select::Method>()).collect::<Result<Vec<_>>>()?;
            let split = select::split_shapes(&matrix, test_fraction, seed)?;
            let options = select::SelectOptions {
                max_configs: k,
                max_per_class: Some(per_class),
                class_limits: class_limits(&class_limit),
                objective: objective(shape_weights.as_deref(), fleet.as_deref())?,
                seed,
                ..Default::default()
            };
            let comparison = select::compare(&matrix, &split, &methods, &options)?;
            print!("{}", comparison.describe(&matrix));
            if let (Some(path), Some(first)) = (write, comparison.methods.first()) {
                let set = regenerate::shipped_set(&matrix, &first.selected, &split.train, &options, &source(&data))?;
                write_set(&path, &set)?;
                println!("wrote {} ({} variants, {})", path.display(), set.variants.len(), first.method.name());
            }
            Ok(())
        }
        Command::Regenerate(args) => run_regenerate(args),
        Command::Train { data, precision, selected, class, out, shape_weights, grid } => {
            let matrix = load_matrix(&data, &precision)?;
            let text =
                std::fs::read_to_string(&selected).map_err(|source| Error::Io { path: selected.clone(), source })?;
            let set = fewfit_codegen::SelectedSet::parse(&selected, &text)?;
            let options = grid.apply(train::TrainOptions {
                shape_weights: shape_weights
                    .as_deref()
                    .map(fewfit_tuner::sweep::read_shape_weights)
                    .transpose()?
                    .unwrap_or_default(),
                progress: true,
                ..Default::default()
            });
            let trained = regenerate::train_over_set(&matrix, &set, &class, &options)?;
            // Leaves by the set's short names, as the shipped trees.
            let text = trained.tree.to_json_text(&set)?;
            std::fs::write(&out, text).map_err(|source| Error::Io { path: out.clone(), source })?;
            println!("wrote {}, cross-validated per layout:", out.display());
            for fit in &trained.fits {
                println!("  {fit}");
            }
            Ok(())
        }
        Command::Evaluate {
            data,
            precision,
            plot,
            per_shape,
            families: Some(dir),
            leave_out_family,
            shape_weights,
            class_limit,
            ..
        } => {
            let matrix = load_matrix(&data, &precision)?;
            let families = Families::load(&dir)?;
            let settings =
                regenerate::Settings { shape_weights, class_limits: class_limits(&class_limit), ..Default::default() };
            let options = regenerate::RegenerateOptions { source: source(&data), ..settings.options()? };
            let (holdouts, report) = match leave_out_family {
                Some(family) => {
                    let holdout = families::leave_family_out(&matrix, &families, &family, &options)?;
                    let report = holdout.describe();
                    (vec![holdout], report)
                }
                None => {
                    let all = families::leave_each_family_out(&matrix, &families, &options)?;
                    let report = all.table();
                    (all.holdouts, report)
                }
            };
            if per_shape {
                for h in &holdouts {
                    print!("family {}:\n{}", h.family, h.regenerated.test.per_shape(&h.held_out));
                }
            }
            print!("{report}");
            if let Some(path) = plot {
                let series: Vec<(String, Vec<f64>)> = holdouts
                    .iter()
                    .map(|h| (format!("{} held out", h.family), h.regenerated.test.slowdowns()))
                    .collect();
                evaluate::plot_cdf(&path, &series)?;
                println!("plot: {}", path.display());
            }
            Ok(())
        }
        Command::Evaluate { data, precision, plot, per_shape, root, by_family, families: None, .. } => {
            let families = by_family.map(|dir| Families::load(&dir)).transpose()?;
            let matrix = load_matrix(&data, &precision)?;
            let inputs = fewfit_codegen::read_inputs(&root)?;
            let trees: std::result::Result<Vec<_>, _> =
                CLASSES.iter().map(|c| inputs.tree(c, &precision).cloned()).collect();
            let shipped = evaluate::Shipped { configs: inputs.selected.ids(), trees: trees? };
            let evaluation = evaluate::evaluate(&matrix, None, &shipped)?;
            if per_shape {
                print!("{}", evaluation.per_shape(&matrix));
            }
            print!("{}", evaluation.describe(&matrix));
            if let Some(families) = families {
                for family in families.shapes.keys() {
                    let rows = families.held_out_rows(&matrix, family)?;
                    let judged = evaluate::evaluate(&matrix, Some(&rows), &shipped)?;
                    print!("family {family}:\n{}", judged.describe(&matrix));
                }
            }
            if let Some(path) = plot {
                evaluate::plot_cdf(&path, &[("shipped set + tree".to_string(), evaluation.slowdowns())])?;
                println!("plot: {}", path.display());
            }
            Ok(())
        }
    }
}

fn run_regenerate(mut args: RegenerateArgs) -> Result<()> {
    if let Some(path) = &args.recipe {
        let release = Recipe::load(path)?.run()?;
        for path in release.write(&args.root)? {
            println!("wrote {}", path.display());
        }
        return Ok(());
    }
    if let Some(out) = &args.sweep_out {
        run_sweep(&SweepArgs {
            device: args.sweep_device.clone(),
            shapes: args.sweep_shapes.clone(),
            space: args.sweep_space.clone(),
            out: out.clone(),
            precision: "f32".into(),
            sample: Some(args.sweep_sample),
            seed: args.seed,
            variants_from: Vec::new(),
            no_shipped: false,
            near_best: None,
            also_with: Vec::new(),
            skip_measured: args.data.clone(),
            shard: "0/1".into(),
            machine: args.sweep_machine.clone(),
            transpose_b: false,
            transpose_a: false,
            max_flops: None,
            budget_secs: None,
            repeats: 20,
            interleave: false,
            quiet: false,
        })?;
        args.data.push(out.clone());
    }
    let files = regenerate::DataFiles {
        data: args.data.clone(),
        train_only: args.train_only.clone(),
        select_only: args.select_only.clone(),
        holdout: args.holdout.clone(),
    };
    let settings = regenerate::Settings {
        k: args.k,
        per_class: args.per_class,
        class_limits: class_limits(&args.class_limit),
        method: args.method.clone(),
        seed: args.seed,
        test_fraction: args.test_fraction,
        shape_weights: args.shape_weights.clone(),
        fleet: args.fleet.clone(),
        max_depth: args.grid.max_depth,
        min_leaf: args.grid.min_leaf.clone(),
    };
    let out = regenerate::regenerate_files(&files, "f32", settings.options()?)?;
    let set = &out.regenerated.set;
    // Leaves by short name; a tree equal to an earlier one is written as a reference to it (every
    // other precision's, which are the f32 trees).
    let trees = regenerate::with_f32_trees_for_every_precision(&out.regenerated.trees);
    for (rel, text) in fewfit_codegen::shipped_files(set, &trees)? {
        let path = args.root.join(rel);
        std::fs::write(&path, text).map_err(|source| Error::Io { path: path.clone(), source })?;
        if path.ends_with("variants/selected.json") {
            println!("wrote {} ({} variants)", path.display(), set.variants.len());
        } else {
            println!("wrote {}", path.display());
        }
    }
    print!("{}", out.report(&files));
    Ok(())
}

/// Writes a set as the shipped `variants/selected.json` is written (codegen's one serialiser).
fn write_set(path: &std::path::Path, set: &fewfit_codegen::SelectedSet) -> Result<()> {
    std::fs::write(path, set.to_json_text()).map_err(|source| Error::Io { path: path.to_path_buf(), source })
}

/// The per-class limits of `--class-limit CLASS=N` arguments (the last one of a class wins).
fn class_limits(args: &[(String, u32)]) -> std::collections::BTreeMap<String, usize> {
    args.iter().map(|(class, limit)| (class.clone(), *limit as usize)).collect()
}

fn devices() -> Result<()> {
    println!(
        "{:<6} {:<12} {:>5} {:>8} {:>10} {:>10} {:>5} {:>8}  name (vendor; driver)",
        "index", "class", "CUs", "max wg", "local KiB", "alloc MiB", "fp64", "VW cap"
    );
    for (p, d, id) in list_devices()? {
        let info = DeviceInfo::query(id)?;
        let vw_cap = match (info.vw_cap(Precision::F32), info.vw_cap(Precision::F64)) {
            (Some(f32_cap), Some(f64_cap)) => format!("{f32_cap}/{f64_cap}"),
            _ => "-".into(),
        };
        println!(
            "{:<6} {:<12} {:>5} {:>8} {:>10} {:>10} {:>5} {:>8}  {} ({}; {})",
            format!("{p}:{d}"),
            info.class.name(),
            info.compute_units,
            info.max_work_group_size,
            info.local_mem_bytes / 1024,
            info.max_alloc_bytes >> 20,
            if info.fp64 { "yes" } else { "no" },
            vw_cap,
            info.name,
            info.vendor,
            info.driver
        );
    }
    Ok(())
}

fn run_sweep(args: &SweepArgs) -> Result<()> {
    let shard = Shard::parse(&args.shard)?;
    let mut shapes = read_shapes(&args.shapes)?;
    if let Some(max) = args.max_flops {
        shapes.retain(|s| s.flops() <= max);
    }
    let space = Space::load(&args.space)?;
    let device = DefaultDevice::open(Some(&args.device).filter(|d| !d.is_empty()).map(String::as_str))?;
    let precision = Precision::from_name(&args.precision).expect("clap checks the name");
    let limits = Limits {
        max_work_group_size: device.info.max_work_group_size,
        local_mem_bytes: device.info.local_mem_bytes,
        precision,
    };
    // Enumerating a general space takes about a minute, so `--sample 0` (only the named variants)
    // skips it; `space_size` is then unknown.
    let (mut variants, space_size) = if args.sample == Some(0) {
        (Vec::new(), None)
    } else {
        let all = space.variants(&limits);
        let chosen = match args.sample {
            Some(n) => sample(&all, n, args.seed),
            None => all.iter().collect(),
        };
        (chosen, Some(all.len()))
    };
    let shipped = fewfit::VariantId::ALL.into_iter().filter(|_| !args.no_shipped).map(fewfit::VariantId::variant);
    // Each dataset is judged on its own: runs of different kernel code disagree (`merge` refuses
    // them), yet their likely winners can feed one sweep.
    let mut from_data: Vec<fewfit_codegen::Variant> = Vec::new();
    for path in &args.variants_from {
        let (measured, _) = Dataset::load(std::slice::from_ref(path))?;
        match args.near_best {
            None => from_data.extend(measured.records.iter().filter_map(|r| r.variant.variant())),
            Some(factor) => {
                let matrix = measured.matrix(&args.precision);
                let mut near = std::collections::BTreeSet::new();
                for (row, best) in matrix.time.iter().zip(matrix.oracle()) {
                    near.extend((0..row.len()).filter(|&c| row[c] <= best * factor));
                }
                from_data.extend(near.into_iter().filter_map(|c| matrix.configs[c].variant()));
            }
        }
    }
    // Each variant followed by its `--also-with` copies, so a sweep stopped by its budget has
    // measured both of a pair or neither.
    let with_copies = from_data.into_iter().flat_map(|v| {
        let copies: Vec<fewfit_codegen::Variant> = args
            .also_with
            .iter()
            .filter(|(name, _)| v.family.params().iter().any(|p| p.name == name))
            .map(|(name, value)| {
                let mut copy = v.clone();
                copy.params.insert(name.clone(), *value);
                copy
            })
            .filter(|c| c.validate().is_ok())
            .collect();
        std::iter::once(v).chain(copies)
    });
    // The set and the named variants first, so that a sweep stopped by its budget has timed the
    // variants every shape needs before the sample's.
    let sampled = variants.len();
    let mut named: Vec<fewfit_codegen::Variant> = Vec::new();
    for v in shipped.chain(with_copies) {
        if fewfit_tuner::space::fits(&v, &limits) && !variants.contains(&v) && !named.contains(&v) {
            named.push(v);
        }
    }
    variants.splice(0..0, named);
    let of_space = match space_size {
        Some(n) => format!("{sampled} of the space's {n} valid ones"),
        None => "none sampled from the space".to_string(),
    };
    eprintln!(
        "sweep: {} on {} ({}): {} variants ({of_space}, {} from the set and --variants-from) x {} shapes, shard {}/{}",
        args.precision,
        device.info.name,
        device.info.class.name(),
        variants.len(),
        variants.len() - sampled,
        shapes.len(),
        shard.index,
        shard.count
    );
    // Only their keys count, so each file loads alone: files that disagree with each other (runs of
    // one pair on different days) may all be skipped.
    let mut measured_elsewhere = std::collections::HashSet::new();
    for path in &args.skip_measured {
        measured_elsewhere.extend(Dataset::load(std::slice::from_ref(path))?.0.records.iter().map(|r| r.key()));
    }
    let plan = Plan {
        repeats: args.repeats.max(1),
        budget: args.budget_secs.map(Duration::from_secs),
        progress: !args.quiet,
        measured_elsewhere,
        machine: args.machine.clone(),
        transpose_a: args.transpose_a,
        transpose_b: args.transpose_b,
        interleave: args.interleave,
        compute: if precision == Precision::Tf32 { Compute::FastTf32 } else { Compute::Default },
        ..Plan::default()
    };
    let summary = match precision {
        Precision::F64 => sweep::<f64>(&device, &variants, &shapes, &args.out, shard, &plan)?,
        Precision::F16 => sweep::<fewfit::half::f16>(&device, &variants, &shapes, &args.out, shard, &plan)?,
        Precision::Bf16 => sweep::<fewfit::half::bf16>(&device, &variants, &shapes, &args.out, shard, &plan)?,
        Precision::F32 | Precision::Tf32 => sweep::<f32>(&device, &variants, &shapes, &args.out, shard, &plan)?,
    };
    println!(
        "sweep: {} pairs measured ({} invalid), {} already in {} or --skip-measured, {} left for a later run",
        summary.measured,
        summary.invalid,
        summary.resumed,
        args.out.display(),
        summary.left
    );
    if summary.too_large > 0 {
        println!(
            "sweep: {} shapes skipped: an operand is larger than the device's largest buffer ({} MiB)",
            summary.too_large,
            device.info.max_alloc_bytes >> 20
        );
    }
    Ok(())
}
