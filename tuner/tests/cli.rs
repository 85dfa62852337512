//! End-to-end tests of the `fewfit` binary: every subcommand run as a process on a tiny sweep of
//! the OpenCL CPU device (PoCL): `devices`, `sweep` (resume, a killed sweep, shards, a time budget),
//! `merge`, `import`, `select`, `train`, `evaluate` and `regenerate`.
//!
//! The tiny space has three variants (two xgemm, one direct) that compile in seconds on PoCL; the
//! sweep of them over three small shapes is shared by the tests that only read it. Every command
//! runs in a temporary directory with its own binary cache (`FEWFIT_CACHE_DIR`), so the tests
//! neither read nor write the user's cache.
//!
//! Run: `cargo test -p fewfit-tuner --test cli`.

mod common;
use common::snapshot;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Two xgemm variants (KWG 16 and 32: their short names differ, as a set's must) and one direct
/// variant; the omitted parameters (VWK, DB, KSPLIT, VWD) take their neutral value. The shards
/// split them by a hash of the variant id.
const SPACE: &str = r#"{
  "comment": "tests/cli.rs: three variants that compile fast on PoCL",
  "families": {
    "xgemm": {"MWG": [16], "NWG": [16], "KWG": [16, 32], "MDIMC": [8], "NDIMC": [8], "MDIMA": [8], "NDIMB": [8],
              "KWI": [2], "VWM": [1], "VWN": [1], "STRM": [0], "STRN": [0], "SA": [1], "SB": [1]},
    "direct": {"WPTM": [1], "WPTN": [1], "NDIMD": [8], "KDIMD": [8]}
  }
}"#;
const VARIANTS: usize = 3;
const SHAPES: &str = "# tests/cli.rs\n16 16 16\n33 17 9\n64 32 48\n";
const SHAPE_LIST: [(u64, u64, u64); 3] = [(16, 16, 16), (33, 17, 9), (64, 32, 48)];
const PAIRS: usize = VARIANTS * SHAPE_LIST.len();

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

/// A directory kept for the whole test run (under cargo's target/tmp): the shared sweep and the
/// binary cache of every command. Statics are never dropped, so each run leaves one behind; those
/// of runs over an hour old are removed here.
fn shared_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        for entry in std::fs::read_dir(tmp).into_iter().flatten().flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > Duration::from_secs(3600)));
            if old && entry.file_name().to_string_lossy().starts_with("fewfit-cli-") {
                std::fs::remove_dir_all(entry.path()).ok();
            }
        }
        tempfile::Builder::new().prefix("fewfit-cli-").tempdir_in(tmp).expect("temporary directory").keep()
    })
}

/// The `fewfit` binary, run in `dir`, with a binary cache private to this test run.
fn fewfit(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fewfit"));
    cmd.current_dir(dir).env("FEWFIT_CACHE_DIR", shared_dir().join("binary-cache")).env_remove("FEWFIT_DEVICE");
    cmd
}

/// What a command printed.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn both(&self) -> String {
        format!("--- stdout\n{}--- stderr\n{}", self.stdout, self.stderr)
    }
}

fn run(cmd: &mut Command) -> Ran {
    let out = cmd.stdin(Stdio::null()).output().expect("fewfit runs");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs a command that must succeed.
fn ok(cmd: &mut Command) -> Ran {
    let ran = run(cmd);
    assert_eq!(ran.code, Some(0), "{cmd:?} failed:\n{}", ran.both());
    ran
}

/// Runs a command that must fail with exit status 1 and `fewfit: error:` on stderr.
fn fails(cmd: &mut Command) -> Ran {
    let ran = run(cmd);
    assert_eq!(ran.code, Some(1), "{cmd:?} should fail with status 1:\n{}", ran.both());
    assert!(ran.stderr.contains("fewfit: error: "), "{cmd:?}: no error message:\n{}", ran.both());
    ran
}

/// Writes the tiny space and shapes into `dir`.
fn write_inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let (space, shapes) = (dir.join("space.json"), dir.join("shapes.txt"));
    std::fs::write(&space, SPACE).unwrap();
    std::fs::write(&shapes, SHAPES).unwrap();
    (space, shapes)
}

/// `fewfit sweep` of the tiny space on the CPU device, without the shipped set, 2 repeats.
fn sweep(dir: &Path, space: &Path, shapes: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = fewfit(dir);
    cmd.arg("sweep").args(["--device", "cpu", "--no-shipped", "--repeats", "2", "--quiet"]);
    cmd.arg("--space").arg(space).arg("--shapes").arg(shapes).arg("--out").arg(out).args(extra);
    cmd
}

/// The numbers of a sweep's last line: `sweep: M pairs measured (I invalid), R already in PATH, L
/// left for a later run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Summary {
    measured: usize,
    invalid: usize,
    resumed: usize,
    left: usize,
}

fn summary(ran: &Ran) -> Summary {
    let line = ran
        .stdout
        .lines()
        .find(|l| l.starts_with("sweep: ") && l.contains("pairs measured"))
        .unwrap_or_else(|| panic!("no sweep summary:\n{}", ran.both()));
    let words: Vec<&str> = line.split_whitespace().collect();
    let before = |w: &str| -> usize {
        let i = words.iter().position(|x| *x == w).unwrap_or_else(|| panic!("`{w}` not in `{line}`"));
        words[i - 1].parse().unwrap_or_else(|_| panic!("no number before `{w}` in `{line}`"))
    };
    let invalid = words
        .iter()
        .position(|x| *x == "invalid),")
        .and_then(|i| words[i - 1].trim_start_matches('(').parse().ok())
        .unwrap_or_else(|| panic!("no invalid count in `{line}`"));
    Summary { measured: before("pairs"), invalid, resumed: before("already"), left: before("left") }
}

// ---------------------------------------------------------------------------------------------
// Datasets
// ---------------------------------------------------------------------------------------------

/// The text of a dataset, decompressed where the name ends in `.gz`; damage fails the test.
fn dataset_text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_string(&mut text)
    } else {
        bytes.as_slice().read_to_string(&mut text)
    }
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
}

/// Every line of a dataset as JSON; a line that does not parse fails the test.
fn records(path: &Path) -> Vec<Value> {
    let text = dataset_text(path);
    assert!(text.is_empty() || text.ends_with('\n'), "{}: last line is not terminated", path.display());
    text.lines()
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}: {l}", path.display(), i + 1)))
        .collect()
}

/// What a measurement measures (device, its layout label, shape, precision, kernel and parameters),
/// as text; a machine label does not change it.
fn key(r: &Value) -> String {
    let params: BTreeMap<String, i64> = r["variant"]["params"]
        .as_object()
        .unwrap_or_else(|| panic!("no parameters: {r}"))
        .iter()
        .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
        .collect();
    let d = &r["device"];
    format!(
        "{}|{}|{}|{}|{}|{}x{}x{}|{}|{}|{:?}",
        d["name"],
        d["vendor"],
        d["driver"],
        d["class"],
        d["layout"],
        r["m"],
        r["n"],
        r["k"],
        r["precision"],
        r["variant"]["kernel"],
        params
    )
}

fn keys(records: &[Value]) -> BTreeSet<String> {
    records.iter().map(key).collect()
}

/// fewfit's id of a record's variant: the family, then `_name value` by parameter name.
fn variant_id(r: &Value) -> String {
    let mut id = r["variant"]["kernel"].as_str().unwrap().to_string();
    let params: BTreeMap<&String, &Value> = r["variant"]["params"].as_object().unwrap().iter().collect();
    for (k, v) in params {
        id.push_str(&format!("_{}{v}", k.to_lowercase()));
    }
    id
}

fn shape(r: &Value) -> (u64, u64, u64) {
    (r["m"].as_u64().unwrap(), r["n"].as_u64().unwrap(), r["k"].as_u64().unwrap())
}

/// A valid record of the sweep: the CPU device, f32, times with 1 or 2 repeats, no error.
fn assert_measured(r: &Value) {
    assert_measured_in(r, "f32");
}

/// [`assert_measured`] in a precision.
fn assert_measured_in(r: &Value, precision: &str) {
    assert_eq!(r["device"]["class"], "cpu", "{r}");
    assert_eq!(r["precision"], precision, "{r}");
    assert_eq!(r["valid"], true, "{r}");
    assert!(r.get("error").is_none(), "{r}");
    let t = &r["times"];
    let (min, median) = (t["min_ms"].as_f64().unwrap(), t["median_ms"].as_f64().unwrap());
    assert!(min.is_finite() && min > 0.0 && median >= min, "{r}");
    assert!(matches!(t["repeats"].as_u64(), Some(1..=2)), "{r}");
}

/// Every line of a file, with its terminator, as written.
fn lines_with_ends(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').filter(|l| l.ends_with('\n')).collect()
}

fn write_records(path: &Path, records: &[Value]) {
    let mut text = String::new();
    for r in records {
        text.push_str(&serde_json::to_string(r).unwrap());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

// ---------------------------------------------------------------------------------------------
// The shared sweep
// ---------------------------------------------------------------------------------------------

/// The sweep of the tiny space over the three shapes, measured once for the tests that read it.
struct Tiny {
    space: PathBuf,
    shapes: PathBuf,
    data: PathBuf,
    /// The first run's output.
    first: Ran,
}

fn tiny() -> &'static Tiny {
    static TINY: OnceLock<Tiny> = OnceLock::new();
    TINY.get_or_init(|| {
        let dir = shared_dir().join("tiny");
        std::fs::create_dir_all(&dir).unwrap();
        let (space, shapes) = write_inputs(&dir);
        let data = dir.join("tiny.jsonl");
        let first = ok(&mut sweep(&dir, &space, &shapes, &data, &[]));
        Tiny { space, shapes, data, first }
    })
}

/// A fresh directory holding a copy of the shared sweep as `tiny.jsonl`.
fn with_tiny_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("tiny.jsonl");
    std::fs::copy(&tiny().data, &data).unwrap();
    (dir, data)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::write(&target, std::fs::read(entry.path()).unwrap()).unwrap();
        }
    }
}

/// A crate root in `dir` holding copies of the crate's `variants/` and `selector/`.
fn crate_copy(dir: &Path) -> PathBuf {
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let root = dir.join("root");
    copy_tree(&manifest.join("variants"), &root.join("variants"));
    copy_tree(&manifest.join("selector"), &root.join("selector"));
    root
}

/// The records of the shared sweep moved to a made-up NVIDIA GPU, with the direct variant 3x
/// slower there, so that the two classes prefer different variants.
fn fake_gpu(records: &[Value]) -> Vec<Value> {
    records
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["device"] = json!({"name": "Fake NVIDIA GPU", "vendor": "NVIDIA Corporation", "driver": "0", "class": "nvidia-gpu"});
            if r["variant"]["kernel"] == "direct" {
                for t in ["min_ms", "median_ms"] {
                    r["times"][t] = json!(r["times"][t].as_f64().unwrap() * 3.0);
                }
            }
            r
        })
        .collect()
}

/// The variants a selector file's leaves name (by short name).
fn leaves(node: &Value, out: &mut BTreeSet<String>) {
    if let Some(v) = node.get("variant") {
        out.insert(v.as_str().unwrap().to_string());
    } else {
        assert!(node.get("feature").is_some() && node.get("threshold").is_some(), "not a tree node: {node}");
        leaves(&node["le"], out);
        leaves(&node["gt"], out);
    }
}

/// `regenerate -k 2 --per-class 1` on `data` and `gpu`, with `extra` passed after its flag (none:
/// left out), into `root`: the variants the written `nvidia-gpu` tree names, and the run.
fn regenerate_gpu_leaves(
    dir: &Path,
    root: &Path,
    data: &Path,
    gpu: &Path,
    extra: Option<(&str, &Path)>,
) -> (BTreeSet<String>, Ran) {
    let mut cmd = fewfit(dir);
    cmd.args(["regenerate", "-k", "2", "--per-class", "1", "--data"]).arg(data).arg(gpu);
    if let Some((flag, path)) = extra {
        cmd.arg(flag).arg(path);
    }
    let ran = ok(cmd.arg("--root").arg(root));
    // The tree as the build reads it: leaves by variant id.
    let inputs = fewfit_codegen::read_inputs(root).unwrap_or_else(|e| panic!("{e}\n{}", ran.both()));
    let named = inputs.trees[1].0.leaf_variants().into_iter().map(String::from).collect();
    (named, ran)
}

/// The number after `label` in `text` (e.g. `geomean 1.028`).
fn number_after(text: &str, label: &str) -> f64 {
    let at = text.find(label).unwrap_or_else(|| panic!("`{label}` not in:\n{text}")) + label.len();
    let word: String = text[at..].trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    word.parse().unwrap_or_else(|_| panic!("no number after `{label}` in:\n{text}"))
}

// ---------------------------------------------------------------------------------------------
// devices
// ---------------------------------------------------------------------------------------------

#[test]
fn devices_lists_a_cpu_device() {
    let dir = tempfile::tempdir().unwrap();
    let ran = ok(fewfit(dir.path()).arg("devices"));
    let mut lines = ran.stdout.lines();
    let header = lines.next().unwrap_or_default();
    assert!(header.starts_with("index") && header.contains("class") && header.contains("local KiB"), "{}", ran.both());
    let cpu: Vec<&str> = lines.filter(|l| l.split_whitespace().nth(1) == Some("cpu")).collect();
    assert!(!cpu.is_empty(), "no `cpu` class line:\n{}", ran.both());
    for line in cpu {
        let index = line.split_whitespace().next().unwrap();
        let (p, d) = index.split_once(':').unwrap_or_else(|| panic!("index `{index}` is not P:D"));
        assert!(p.parse::<u32>().is_ok() && d.parse::<u32>().is_ok(), "{line}");
        assert!(line.split_whitespace().nth(2).unwrap().parse::<usize>().unwrap() > 0, "max work-group size: {line}");
    }
}

// ---------------------------------------------------------------------------------------------
// sweep
// ---------------------------------------------------------------------------------------------

#[test]
fn sweep_records_every_pair_then_resumes_without_measuring_again() {
    let t = tiny();
    assert_eq!(summary(&t.first), Summary { measured: PAIRS, invalid: 0, resumed: 0, left: 0 }, "{}", t.first.both());
    assert!(
        t.first.stderr.contains(&format!(
            "{VARIANTS} variants ({VARIANTS} of the space's {VARIANTS} valid ones, 0 from the set and --variants-from) x {} shapes",
            SHAPE_LIST.len()
        )),
        "{}",
        t.first.both()
    );
    let recs = records(&t.data);
    assert_eq!(recs.len(), PAIRS);
    assert_eq!(keys(&recs).len(), PAIRS, "a pair was recorded twice");
    recs.iter().for_each(assert_measured);
    // Every (variant, shape) of the product, each variant with its neutral parameters written out.
    let ids: BTreeSet<String> = recs.iter().map(variant_id).collect();
    assert_eq!(ids.len(), VARIANTS, "{ids:?}");
    let shapes: BTreeSet<(u64, u64, u64)> = recs.iter().map(shape).collect();
    assert_eq!(shapes, SHAPE_LIST.into_iter().collect());
    let pairs: BTreeSet<(String, (u64, u64, u64))> = recs.iter().map(|r| (variant_id(r), shape(r))).collect();
    assert_eq!(pairs.len(), PAIRS);
    for r in &recs {
        let p = &r["variant"]["params"];
        match r["variant"]["kernel"].as_str().unwrap() {
            "xgemm" => assert_eq!((&p["VWK"], &p["DB"], &p["KSPLIT"]), (&json!(1), &json!(0), &json!(1)), "{r}"),
            "direct" => assert_eq!(p["VWD"], 1, "{r}"),
            other => panic!("unexpected kernel {other}"),
        }
    }

    // The same sweep again: nothing measured, the file byte-identical.
    let (dir, data) = with_tiny_copy();
    let before = std::fs::read(&data).unwrap();
    let again = ok(&mut sweep(dir.path(), &t.space, &t.shapes, &data, &[]));
    assert_eq!(summary(&again), Summary { measured: 0, invalid: 0, resumed: PAIRS, left: 0 }, "{}", again.both());
    assert_eq!(std::fs::read(&data).unwrap(), before, "a resumed sweep with nothing to do changed the file");

    // A space grown by one variant: only that variant's pairs are measured, appended after the others.
    let grown = dir.path().join("grown.json");
    std::fs::write(&grown, SPACE.replace(r#""KDIMD": [8]"#, r#""KDIMD": [8, 16]"#)).unwrap();
    let more = ok(&mut sweep(dir.path(), &grown, &t.shapes, &data, &[]));
    let n = SHAPE_LIST.len();
    assert_eq!(summary(&more), Summary { measured: n, invalid: 0, resumed: PAIRS, left: 0 }, "{}", more.both());
    let after = std::fs::read(&data).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "the records already there were rewritten");
    let recs = records(&data);
    assert_eq!((recs.len(), keys(&recs).len()), (PAIRS + n, PAIRS + n));
    recs.iter().for_each(assert_measured);
    assert!(recs[PAIRS..].iter().all(|r| r["variant"]["params"]["KDIMD"] == 16), "{:?}", &recs[PAIRS..]);
}

#[test]
fn transposed_sweeps_keep_their_records_apart_from_nn() {
    let t = tiny();
    let (dir, data) = with_tiny_copy();
    let layouts: [(&[&str], &str); 3] =
        [(&["--transpose-b"], "NT"), (&["--transpose-a"], "TN"), (&["--transpose-a", "--transpose-b"], "TT")];
    for (i, (flags, layout)) in layouts.iter().enumerate() {
        let before = std::fs::read(&data).unwrap();
        // The same pairs with operands stored transposed: all measured (and checked against the
        // reference) again, appended, each record labelled with the layout; the records before untouched.
        let run = ok(&mut sweep(dir.path(), &t.space, &t.shapes, &data, flags));
        assert_eq!(summary(&run), Summary { measured: PAIRS, invalid: 0, resumed: 0, left: 0 }, "{}", run.both());
        assert_eq!(&std::fs::read(&data).unwrap()[..before.len()], &before[..]);
        let recs = records(&data);
        let n = (i + 2) * PAIRS;
        assert_eq!((recs.len(), keys(&recs).len()), (n, n), "a {layout} record took another layout's key");
        recs.iter().for_each(assert_measured);
        assert!(recs[..PAIRS].iter().all(|r| r["device"].get("layout").is_none()), "NN records carry no layout");
        assert!(recs[n - PAIRS..].iter().all(|r| r["device"]["layout"] == *layout), "{:?}", &recs[n - PAIRS..]);
        // Resumed in the same layout: nothing left to measure.
        let again = ok(&mut sweep(dir.path(), &t.space, &t.shapes, &data, flags));
        assert_eq!(summary(&again).resumed, PAIRS, "{}", again.both());
    }
    // The merge holds every layout without a conflict.
    let merged = dir.path().join("merged.jsonl");
    ok(fewfit(dir.path()).arg("merge").arg(&data).arg("--out").arg(&merged));
    assert_eq!(records(&merged).len(), 4 * PAIRS);
}

#[test]
fn sweeps_of_each_precision_keep_their_records_apart_and_select_train_and_evaluate_read_theirs() {
    let t = tiny();
    let (dir, data) = with_tiny_copy();
    let dir = dir.path();
    // The same pairs in f16, bf16 and tf32 (an f32 sweep with TF32 products, plain f32 where the
    // device has no tensor cores): each measured and checked against the reference again,
    // appended, each record naming its precision.
    for (i, precision) in ["f16", "bf16", "tf32"].into_iter().enumerate() {
        let run = ok(&mut sweep(dir, &t.space, &t.shapes, &data, &["--precision", precision]));
        assert_eq!(summary(&run), Summary { measured: PAIRS, invalid: 0, resumed: 0, left: 0 }, "{}", run.both());
        let recs = records(&data);
        let n = (i + 2) * PAIRS;
        assert_eq!((recs.len(), keys(&recs).len()), (n, n), "a {precision} record took another precision's key");
        recs[n - PAIRS..].iter().for_each(|r| assert_measured_in(r, precision));
        let again = ok(&mut sweep(dir, &t.space, &t.shapes, &data, &["--precision", precision]));
        assert_eq!(summary(&again).resumed, PAIRS, "{}", again.both());
    }
    let ran = run(&mut sweep(dir, &t.space, &t.shapes, &data, &["--precision", "f8"]));
    assert_eq!(ran.code, Some(2), "clap's usage error:\n{}", ran.both());
    assert!(ran.stderr.contains("possible values: f32, f64, f16, bf16, tf32"), "{}", ran.both());

    // select, train and evaluate read the records of their --precision alone.
    let selected = dir.join("selected.json");
    let ran = ok(fewfit(dir)
        .args(["select", "--precision", "bf16", "-k", "2", "--per-class", "2", "--method", "greedy", "--data"])
        .arg(&data)
        .arg("--write")
        .arg(&selected));
    assert!(ran.stderr.contains(&format!("data: {} records, {} problems in bf16", 4 * PAIRS, SHAPE_LIST.len())));
    let set = fewfit_codegen::SelectedSet::parse(&selected, &std::fs::read_to_string(&selected).unwrap()).unwrap();
    assert!(set.variants.iter().all(|v| v.precisions == ["bf16"]), "{}", set.to_json_text());
    let tree_path = dir.join("cpu.bf16.json");
    let ran = ok(fewfit(dir)
        .args(["train", "--precision", "bf16", "--class", "cpu", "--data"])
        .arg(&data)
        .arg("--selected")
        .arg(&selected)
        .arg("--out")
        .arg(&tree_path));
    assert!(ran.stderr.contains("problems in bf16"), "{}", ran.both());
    let text = std::fs::read_to_string(&tree_path).unwrap();
    let tree = fewfit_codegen::Tree::parse_in_set(&tree_path, &text, &set).unwrap();
    assert_eq!((tree.class.as_str(), tree.precision.as_str()), ("cpu", "bf16"));
    // A crate root whose f16 trees are single leaves of the set's first variant, the others the
    // shipped trees: evaluating f16 judges those leaves (every pick is that variant), f32 the
    // shipped trees.
    let root = crate_copy(dir);
    let first = &set.variants[0];
    let shipped_path = root.join("variants/selected.json");
    let mut shipped =
        fewfit_codegen::SelectedSet::parse(&shipped_path, &std::fs::read_to_string(&shipped_path).unwrap()).unwrap();
    if shipped.find(&first.id).is_none() {
        shipped.variants.push(first.clone());
        std::fs::write(&shipped_path, shipped.to_json_text()).unwrap();
    }
    for class in ["cpu", "nvidia-gpu", "gpu", "default"] {
        let leaf = json!({"class": class, "precision": "f16", "root": {"variant": first.name()}});
        std::fs::write(root.join(format!("selector/{class}.f16.json")), leaf.to_string()).unwrap();
    }
    let ran = ok(fewfit(dir)
        .args(["evaluate", "--per-shape", "--precision", "f16", "--root"])
        .arg(&root)
        .arg("--data")
        .arg(&data));
    assert!(ran.stderr.contains(&format!("{} problems in f16", SHAPE_LIST.len())), "{}", ran.both());
    assert!(!ran.stdout.contains("failed"), "{}", ran.both());
    let picks = ran.stdout.lines().filter(|l| l.contains(&format!("\t{}\t", first.id))).count();
    assert_eq!(picks, SHAPE_LIST.len(), "every f16 shape picks {}:\n{}", first.id, ran.both());
    let ran = ok(fewfit(dir).args(["evaluate", "--precision", "f32", "--root"]).arg(&root).arg("--data").arg(&data));
    assert!(ran.stderr.contains(&format!("{} problems in f32", SHAPE_LIST.len())), "{}", ran.both());
}

/// The complete lines a sweep has written to `path` so far: for a `.gz` file, those of the gzip
/// members that decode whole (one per record while the sweep runs).
fn written_lines(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap_or_default();
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let (mut text, mut rest) = (String::new(), &bytes[..]);
        while !rest.is_empty() {
            let mut member = flate2::bufread::GzDecoder::new(rest);
            let mut line = String::new();
            if member.read_to_string(&mut line).is_err() {
                break;
            }
            text.push_str(&line);
            rest = member.into_inner();
        }
        text
    } else {
        String::from_utf8(bytes).unwrap()
    };
    lines_with_ends(&text).into_iter().map(str::to_string).collect()
}

/// A sweep into `name`, killed (SIGKILL) once it has written a few records, with half a record
/// then added at the end as a crash in the middle of a write leaves it, and run again: the records
/// written before the kill are kept, the rest measured, none twice.
fn killed_sweep_resumes(name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (space, _) = write_inputs(dir.path());
    // Shapes large enough that timing them all takes a few seconds after the first record.
    let shapes = dir.path().join("big.txt");
    let list: Vec<(u64, u64, u64)> = (0..24u64).map(|i| (96 + 16 * i, 64 + 8 * i, 80 + 24 * i)).collect();
    std::fs::write(&shapes, list.iter().map(|(m, n, k)| format!("{m} {n} {k}\n")).collect::<String>()).unwrap();
    let total = VARIANTS * list.len();
    let data = dir.path().join(name);
    let gzip = name.ends_with(".gz");

    let mut child = sweep(dir.path(), &space, &shapes, &data, &[])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fewfit starts");
    let start = Instant::now();
    loop {
        let written = written_lines(&data).len();
        if written >= 3 {
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the sweep ended ({status}) with {written} records before it could be killed");
        }
        if start.elapsed() > Duration::from_secs(300) {
            child.kill().ok();
            panic!("no records after {:?}", start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().expect("SIGKILL"); // Child::kill sends SIGKILL on Unix.
    child.wait().unwrap();
    let killed = std::fs::read(&data).unwrap();
    let kept = written_lines(&data);
    assert!(
        kept.len() >= 3 && kept.len() < total,
        "the kill did not interrupt the sweep ({} of {total} records written); lengthen the shape list",
        kept.len()
    );
    // A crash in the middle of writing a record: half a line, no newline, or half a gzip member.
    let whole = if gzip {
        let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        member.write_all(kept[0].as_bytes()).unwrap();
        member.finish().unwrap()
    } else {
        kept[0].as_bytes().to_vec()
    };
    std::fs::OpenOptions::new().append(true).open(&data).unwrap().write_all(&whole[..whole.len() / 2]).unwrap();

    let rerun = ok(&mut sweep(dir.path(), &space, &shapes, &data, &[]));
    let s = summary(&rerun);
    assert_eq!(
        s,
        Summary { measured: total - kept.len(), invalid: 0, resumed: kept.len(), left: 0 },
        "{}",
        rerun.both()
    );
    let text = dataset_text(&data);
    let lines = lines_with_ends(&text);
    assert_eq!(lines.len(), total, "records after the rerun");
    assert_eq!(&lines[..kept.len()], &kept[..], "the records written before the kill changed");
    if gzip {
        // Compressed again as one member at the end: fewer bytes a record than a member per record.
        let after = std::fs::read(&data).unwrap();
        let mut one = flate2::bufread::GzDecoder::new(&after[..]);
        std::io::copy(&mut one, &mut std::io::sink()).unwrap();
        assert!(one.into_inner().is_empty(), "the finished sweep left more than one gzip member");
        assert!(
            after.len() / total < killed.len() / kept.len(),
            "{} bytes for {total} records, {} for {}",
            after.len(),
            killed.len(),
            kept.len()
        );
    } else {
        assert_eq!(&text.as_bytes()[..killed.len()], &killed[..], "the file before the kill was rewritten");
    }
    let recs = records(&data); // also: every line parses, so the half line was cut
    assert_eq!(keys(&recs).len(), total, "a pair was measured twice");
    recs.iter().for_each(assert_measured);
    let pairs: BTreeSet<(String, (u64, u64, u64))> = recs.iter().map(|r| (variant_id(r), shape(r))).collect();
    let ids: BTreeSet<String> = recs.iter().map(variant_id).collect();
    assert_eq!((pairs.len(), ids.len()), (total, VARIANTS));
    assert_eq!(recs.iter().map(shape).collect::<BTreeSet<_>>(), list.into_iter().collect());
}

#[test]
fn killed_sweep_loses_nothing_and_measures_nothing_twice() {
    killed_sweep_resumes("big.jsonl");
}

#[test]
fn killed_gzip_sweep_loses_nothing_and_measures_nothing_twice() {
    killed_sweep_resumes("big.jsonl.gz");
}

#[test]
fn gzip_sweep_resumes_a_saved_dataset_and_keeps_what_decodes_of_a_truncated_one() {
    let t = tiny();
    let (dir, data) = with_tiny_copy();
    let dir = dir.path();
    let gz = dir.join("tiny.jsonl.gz");
    ok(fewfit(dir).arg("merge").arg(&data).arg("--out").arg(&gz));
    let saved = std::fs::read(&gz).unwrap();
    // A grown space on the merged (one-member) dataset: only the new variant's pairs measured, after
    // the others.
    let grown = dir.join("grown.json");
    std::fs::write(&grown, SPACE.replace(r#""KDIMD": [8]"#, r#""KDIMD": [8, 16]"#)).unwrap();
    let n = SHAPE_LIST.len();
    let more = ok(&mut sweep(dir, &grown, &t.shapes, &gz, &[]));
    assert_eq!(summary(&more), Summary { measured: n, invalid: 0, resumed: PAIRS, left: 0 }, "{}", more.both());
    let recs = records(&gz);
    assert_eq!(&recs[..PAIRS], &records(&data)[..]);
    assert_eq!(keys(&recs).len(), PAIRS + n);
    // Nothing left: the file is left as it is.
    let done = std::fs::read(&gz).unwrap();
    let again = ok(&mut sweep(dir, &grown, &t.shapes, &gz, &[]));
    assert_eq!(summary(&again).measured, 0, "{}", again.both());
    assert_eq!(std::fs::read(&gz).unwrap(), done);

    // The merged dataset cut short (a crash while an older fewfit saved it): loading it fails at
    // once, naming the file and line; a sweep keeps the records that decode and measures the rest.
    let cut = dir.join("cut.jsonl.gz");
    std::fs::write(&cut, &saved[..saved.len() * 2 / 3]).unwrap();
    let refused = fails(fewfit(dir).arg("merge").arg(&cut).arg("--out").arg(dir.join("m.jsonl")));
    assert!(
        refused.stderr.contains(&format!("{}:", cut.display())) && refused.stderr.contains("cannot read"),
        "{}",
        refused.both()
    );
    let resumed = ok(&mut sweep(dir, &t.space, &t.shapes, &cut, &[]));
    let s = summary(&resumed);
    assert!(s.resumed > 0 && s.resumed < PAIRS, "{}", resumed.both());
    assert_eq!(s.measured, PAIRS - s.resumed, "{}", resumed.both());
    let recs = records(&cut);
    assert_eq!(&recs[..s.resumed], &records(&data)[..s.resumed], "the records that decoded changed");
    assert_eq!(keys(&recs), keys(&records(&data)));

    // Plain lines appended to a gzip dataset (what an older fewfit did on resume): refused, unchanged.
    let mut mixed = saved.clone();
    mixed.extend_from_slice(&std::fs::read(&data).unwrap());
    std::fs::write(&gz, &mixed).unwrap();
    let ran = fails(&mut sweep(dir, &t.space, &t.shapes, &gz, &[]));
    assert!(ran.stderr.contains("damaged gzip data at byte"), "{}", ran.both());
    assert_eq!(std::fs::read(&gz).unwrap(), mixed);
}

#[test]
fn interleaved_sweep_records_each_shape_whole_and_resumes() {
    let t = tiny();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("interleaved.jsonl");
    // A 0-second budget stops before the first shape: nothing recorded, every pair left.
    let stopped = ok(&mut sweep(dir.path(), &t.space, &t.shapes, &data, &["--interleave", "--budget-secs", "0"]));
    assert_eq!(summary(&stopped), Summary { measured: 0, invalid: 0, resumed: 0, left: PAIRS }, "{}", stopped.both());
    assert!(records(&data).is_empty());
    // The same pairs as a sweep pair by pair, written shape by shape: each shape's records together.
    let ran = ok(&mut sweep(dir.path(), &t.space, &t.shapes, &data, &["--interleave"]));
    assert_eq!(summary(&ran), Summary { measured: PAIRS, invalid: 0, resumed: 0, left: 0 }, "{}", ran.both());
    let recs = records(&data);
    recs.iter().for_each(assert_measured);
    assert_eq!(keys(&recs), keys(&records(&t.data)));
    for group in recs.chunks(VARIANTS) {
        assert!(group.iter().all(|r| shape(r) == shape(&group[0])), "a shape's records are apart: {group:?}");
    }
    // Resumed: nothing measured again, the file unchanged.
    let before = std::fs::read(&data).unwrap();
    let again = ok(&mut sweep(dir.path(), &t.space, &t.shapes, &data, &["--interleave"]));
    assert_eq!(summary(&again), Summary { measured: 0, invalid: 0, resumed: PAIRS, left: 0 }, "{}", again.both());
    assert_eq!(std::fs::read(&data).unwrap(), before);
}

#[test]
fn budget_and_shards_merge_into_the_full_sweep() {
    let full = records(&tiny().data);
    let dir = tempfile::tempdir().unwrap();
    let (space, shapes) = write_inputs(dir.path());
    let (a, b) = (dir.path().join("shard0.jsonl"), dir.path().join("shard1.jsonl"));

    // A budget of 0 s stops before the first pair, leaving a shard's pairs for later.
    let stopped = ok(&mut sweep(dir.path(), &space, &shapes, &a, &["--shard", "0/2", "--budget-secs", "0"]));
    let s0 = summary(&stopped);
    assert_eq!((s0.measured, s0.resumed), (0, 0), "{}", stopped.both());
    assert!(records(&a).is_empty(), "a 0-second budget measured something");
    let stopped = ok(&mut sweep(dir.path(), &space, &shapes, &b, &["--shard", "1/2", "--budget-secs", "0"]));
    let s1 = summary(&stopped);
    assert_eq!((s1.measured, s1.resumed), (0, 0), "{}", stopped.both());
    assert_eq!(s0.left + s1.left, PAIRS, "the shards' pairs do not add up to the sweep's");
    assert!(s0.left > 0 && s1.left > 0, "one shard owns everything: {s0:?} {s1:?}");
    assert_eq!((s0.left + s1.left) % SHAPE_LIST.len(), 0);

    // Each shard resumed without a budget: exactly its pairs; the second as if on another machine
    // whose device reports the same name.
    let ran = ok(&mut sweep(dir.path(), &space, &shapes, &a, &["--shard", "0/2"]));
    assert_eq!(summary(&ran), Summary { measured: s0.left, invalid: 0, resumed: 0, left: 0 }, "{}", ran.both());
    let ran = ok(&mut sweep(dir.path(), &space, &shapes, &b, &["--shard", "1/2", "--machine", "vm2"]));
    assert_eq!(summary(&ran), Summary { measured: s1.left, invalid: 0, resumed: 0, left: 0 }, "{}", ran.both());
    let (ra, rb) = (records(&a), records(&b));
    assert_eq!((ra.len(), rb.len()), (s0.left, s1.left));
    ra.iter().chain(&rb).for_each(assert_measured);
    let (ida, idb): (BTreeSet<String>, BTreeSet<String>) =
        (ra.iter().map(variant_id).collect(), rb.iter().map(variant_id).collect());
    assert!(ida.is_disjoint(&idb), "a variant is in both shards: {ida:?} {idb:?}");
    assert!(ra.iter().all(|r| r["device"].get("machine").is_none()), "an unlabelled sweep wrote a machine");
    assert!(rb.iter().all(|r| r["device"]["machine"] == json!("vm2")), "the machine label is missing");

    let merged = dir.path().join("merged.jsonl");
    let ran = ok(fewfit(dir.path()).arg("merge").arg(&a).arg(&b).arg("--out").arg(&merged));
    assert!(
        ran.stdout.contains(&format!("merged {PAIRS} records into")) && ran.stdout.contains("0 duplicates skipped"),
        "{}",
        ran.both()
    );
    let m = records(&merged);
    assert_eq!(m.len(), PAIRS);
    assert_eq!(keys(&m), keys(&full), "the shards do not cover the full sweep's pairs");
    // Labelling the unlabelled shard joins the other machine's records and leaves theirs.
    let labelled = dir.path().join("labelled.jsonl");
    ok(fewfit(dir.path()).arg("merge").arg(&merged).arg("--machine").arg("vm1").arg("--out").arg(&labelled));
    let machines: BTreeSet<String> = records(&labelled).iter().map(|r| r["device"]["machine"].to_string()).collect();
    assert_eq!(machines, BTreeSet::from(["\"vm1\"".to_string(), "\"vm2\"".to_string()]));

    // A malformed shard is refused before any device work.
    let ran = fails(&mut sweep(dir.path(), &space, &shapes, &dir.path().join("x.jsonl"), &["--shard", "2/2"]));
    assert!(ran.stderr.contains("shard `2/2`"), "{}", ran.both());
    assert!(!dir.path().join("x.jsonl").exists());
}

#[test]
fn near_best_judges_each_dataset_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (space, shapes) = write_inputs(dir);
    let recs = records(&tiny().data);
    let ids: Vec<String> = recs.iter().map(variant_id).collect::<BTreeSet<_>>().into_iter().collect();
    assert_eq!(ids.len(), VARIANTS);
    // Two runs that disagree: in `a` the first variant is the fastest on every shape, in `b` (the
    // same pairs, other times) the last one is.
    let timed = |fastest: &str| -> Vec<Value> {
        recs.iter()
            .map(|r| {
                let mut r = r.clone();
                let t = if variant_id(&r) == fastest { 0.5 } else { 2.0 };
                r["times"] = json!({"min_ms": t, "median_ms": t, "repeats": 2});
                r
            })
            .collect()
    };
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    write_records(&a, &timed(&ids[0]));
    write_records(&b, &timed(&ids[VARIANTS - 1]));
    let named = |from: &[&Path]| -> String {
        let out = dir.join("out.jsonl");
        let mut cmd = sweep(dir, &space, &shapes, &out, &["--sample", "0", "--near-best", "1.0", "--budget-secs", "0"]);
        cmd.arg("--variants-from").args(from);
        let ran = ok(&mut cmd);
        assert!(records(&out).is_empty(), "a 0-second budget measured something");
        ran.stderr
            .lines()
            .find(|l| l.contains("none sampled from the space"))
            .unwrap_or_else(|| panic!("{}", ran.both()))
            .to_string()
    };
    assert!(named(&[&a]).contains(": 1 variants (none sampled from the space, 1 from the set"), "{}", named(&[&a]));
    // Together: each file's winner, although `merge` refuses to join the two.
    fails(fewfit(dir).arg("merge").arg(&a).arg(&b).arg("--out").arg(dir.join("m.jsonl")));
    assert!(
        named(&[&a, &b]).contains(": 2 variants (none sampled from the space, 2 from the set"),
        "{}",
        named(&[&a, &b])
    );
}

#[test]
fn gap_filling_skips_pairs_measured_elsewhere_and_adds_parameter_copies() {
    let (dir, data) = with_tiny_copy();
    let dir = dir.path();
    let (space, shapes) = write_inputs(dir);
    // Another dataset holds every pair of the first shape.
    let first = dir.join("first-shape.jsonl");
    let held: Vec<Value> = records(&data).into_iter().filter(|r| shape(r) == SHAPE_LIST[0]).collect();
    assert_eq!(held.len(), VARIANTS);
    write_records(&first, &held);
    // A re-measurement of the same pairs that disagrees with it: only keys count, so both are skipped.
    let again = dir.join("first-shape-again.jsonl");
    let mut remeasured = held.clone();
    for r in &mut remeasured {
        let t = r["times"]["median_ms"].as_f64().unwrap();
        r["times"]["median_ms"] = json!(t * 1.5);
        r["times"]["min_ms"] = json!(t * 1.5);
    }
    write_records(&again, &remeasured);
    let out = dir.join("gaps.jsonl");
    let mut cmd = sweep(dir, &space, &shapes, &out, &["--sample", "0", "--also-with", "SWZ=1"]);
    cmd.arg("--variants-from").arg(&data).arg("--skip-measured").arg(&first).arg(&again);
    let ran = ok(&mut cmd);
    // The three variants and an SWZ = 1 copy of each xgemm one (the direct family has no SWZ).
    let copies = 2;
    let s = summary(&ran);
    assert_eq!(
        s,
        Summary { measured: (VARIANTS + copies) * SHAPE_LIST.len() - VARIANTS, invalid: 0, resumed: VARIANTS, left: 0 },
        "{}",
        ran.both()
    );
    let gaps = records(&out);
    gaps.iter().for_each(assert_measured);
    assert!(gaps.iter().all(|r| !keys(&held).contains(&key(r))), "a pair of the other dataset was measured again");
    let swizzled = gaps.iter().filter(|r| r["variant"]["params"]["SWZ"] == json!(1)).count();
    assert_eq!(swizzled, copies * SHAPE_LIST.len());
    // Nothing conflicts: the other dataset and the gaps merge.
    ok(fewfit(dir).arg("merge").arg(&first).arg(&out).arg("--out").arg(dir.join("merged.jsonl")));
    // A malformed assignment is refused before any work.
    let mut bad = sweep(dir, &space, &shapes, &dir.join("none.jsonl"), &["--also-with", "SWZ"]);
    assert_ne!(run(&mut bad).code, Some(0));
    assert!(!dir.join("none.jsonl").exists());
}

// ---------------------------------------------------------------------------------------------
// merge
// ---------------------------------------------------------------------------------------------

#[test]
fn merge_skips_duplicates_and_corrupt_lines_and_refuses_conflicts() {
    let (dir, data) = with_tiny_copy();
    let dir = dir.path();
    let recs = records(&data);

    // Exact duplicates: counted and skipped.
    let copy = dir.join("copy.jsonl");
    std::fs::copy(&data, &copy).unwrap();
    let out = dir.join("dups.jsonl");
    let ran = ok(fewfit(dir).arg("merge").arg(&data).arg(&copy).arg("--out").arg(&out));
    assert!(
        ran.stdout.contains(&format!("merged {PAIRS} records"))
            && ran.stdout.contains(&format!("{} lines, 0 corrupt skipped, {PAIRS} duplicates skipped", 2 * PAIRS)),
        "{}",
        ran.both()
    );
    assert_eq!(records(&out), recs, "merging a dataset with itself changed it");

    // Records written before the neutral parameters existed (VWK, DB, KSPLIT, VWD omitted) describe
    // the same variants: exact duplicates, not new configurations.
    let old: Vec<Value> = recs
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let params = r["variant"]["params"].as_object_mut().unwrap();
            for p in ["VWK", "DB", "KSPLIT", "VWD"] {
                params.remove(p);
            }
            r
        })
        .collect();
    let old_path = dir.join("old.jsonl");
    write_records(&old_path, &old);
    let ran = ok(fewfit(dir).arg("merge").arg(&data).arg(&old_path).arg("--out").arg(&out));
    assert!(
        ran.stdout.contains(&format!("merged {PAIRS} records"))
            && ran.stdout.contains(&format!("{PAIRS} duplicates skipped")),
        "{}",
        ran.both()
    );

    // A gzip-compressed output reads back the same.
    let gz = dir.join("merged.jsonl.gz");
    ok(fewfit(dir).arg("merge").arg(&data).arg("--out").arg(&gz));
    assert_eq!(&std::fs::read(&gz).unwrap()[..2], &[0x1f, 0x8b], "not gzip");
    ok(fewfit(dir).arg("merge").arg(&gz).arg("--out").arg(&out));
    assert_eq!(records(&out), recs);

    // Corrupt lines: counted and skipped, the rest merged.
    let corrupt = dir.join("corrupt.jsonl");
    let mut zero_m = recs[0].clone();
    zero_m["m"] = json!(0);
    let mut untimed = recs[1].clone();
    untimed.as_object_mut().unwrap().remove("times");
    let mut text = std::fs::read_to_string(&data).unwrap();
    text.push_str("{\"device\": garbage\n\n");
    text.push_str(&format!("{zero_m}\n{untimed}\n"));
    std::fs::write(&corrupt, text).unwrap();
    let out2 = dir.join("clean.jsonl");
    let ran = ok(fewfit(dir).arg("merge").arg(&corrupt).arg("--out").arg(&out2));
    assert!(
        ran.stdout.contains(&format!("merged {PAIRS} records"))
            && ran.stdout.contains(&format!("{} lines, 3 corrupt skipped, 0 duplicates skipped", PAIRS + 3)),
        "{}",
        ran.both()
    );
    assert_eq!(records(&out2), recs);

    // A conflict: the same measurement with another time. Refused, naming both places; no output.
    let mut changed = recs.clone();
    let t = changed[1]["times"]["median_ms"].as_f64().unwrap();
    changed[1]["times"]["median_ms"] = json!(t * 2.0);
    let conflict = dir.join("conflict.jsonl");
    write_records(&conflict, &changed);
    let refused = dir.join("refused.jsonl");
    let ran = fails(fewfit(dir).arg("merge").arg(&data).arg(&conflict).arg("--out").arg(&refused));
    let (first, second) = (format!("{}:2", data.display()), format!("{}:2", conflict.display()));
    assert!(ran.stderr.contains("conflicting records"), "{}", ran.both());
    assert!(ran.stderr.contains(&first) && ran.stderr.contains(&second), "places not named:\n{}", ran.both());
    assert!(ran.stderr.contains(&format!("{}x{}x{}", recs[1]["m"], recs[1]["n"], recs[1]["k"])), "{}", ran.both());
    assert!(!refused.exists(), "a refused merge wrote its output");

    // A missing input: a clear error naming it, non-zero exit, no output.
    let missing = dir.join("missing.jsonl");
    let ran = fails(fewfit(dir).arg("merge").arg(&data).arg(&missing).arg("--out").arg(&refused));
    assert!(ran.stderr.contains(&missing.display().to_string()), "{}", ran.both());
    assert!(!refused.exists());
    // No input at all: clap's usage error.
    let ran = run(fewfit(dir).arg("merge").arg("--out").arg(&refused));
    assert_eq!(ran.code, Some(2), "{}", ran.both());
}

// ---------------------------------------------------------------------------------------------
// import
// ---------------------------------------------------------------------------------------------

/// Checks the records imported from one CLBlast tuner file against that file.
fn check_import(source: &Path, imported: &[Value], class: &str) {
    let tuning: Value = serde_json::from_str(&std::fs::read_to_string(source).unwrap()).unwrap();
    let results = tuning["results"].as_array().unwrap();
    assert_eq!(imported.len(), results.len(), "{}", source.display());
    let dims: Vec<u64> =
        ["arg_m", "arg_n", "arg_k"].iter().map(|a| tuning[a].as_str().unwrap().parse().unwrap()).collect();
    let kernel = format!("clblast-{}-{}", tuning["kernel_family"].as_str().unwrap(), "xgemm");
    for (r, src) in imported.iter().zip(results) {
        assert_eq!(vec![r["m"].as_u64().unwrap(), r["n"].as_u64().unwrap(), r["k"].as_u64().unwrap()], dims);
        assert_eq!(r["device"]["class"], class, "{r}");
        assert_eq!(r["device"]["name"], tuning["device"].as_str().unwrap().trim(), "{r}");
        assert_eq!(r["precision"], "f32");
        assert_eq!(r["variant"]["kernel"], kernel.as_str());
        let mut params = src["parameters"].as_object().unwrap().clone();
        params.remove("PRECISION");
        assert_eq!(r["variant"]["params"].as_object().unwrap(), &params);
        let time = src["time"].as_f64().unwrap();
        assert_eq!(r["valid"], true, "{r}");
        assert_eq!((r["times"]["min_ms"].as_f64(), r["times"]["median_ms"].as_f64()), (Some(time), Some(time)));
        assert_eq!(r["times"]["repeats"], 1);
    }
    assert_eq!(keys(imported).len(), imported.len(), "{}: two results of one configuration", source.display());
}

#[test]
fn import_reads_clblast_tuner_files() {
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let h200 = manifest.join("variants/data/clblast-tuner/h200_clblast_xgemm_1_32.json");
    let pocl = manifest.join("variants/data/clblast-tuner/pocl_clblast_xgemm_1_32.json");
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();

    let out = dir.join("pocl.jsonl");
    let ran = ok(fewfit(dir).args(["import", "--from", "clblast-tuner"]).arg(&pocl).arg("--out").arg(&out));
    let pocl_records = records(&out);
    assert!(ran.stdout.contains(&format!("imported {} records from 1 files", pocl_records.len())), "{}", ran.both());
    check_import(&pocl, &pocl_records, "cpu");
    // CLBlast's own summary of that run names the best time among the results.
    let tuning: Value = serde_json::from_str(&std::fs::read_to_string(&pocl).unwrap()).unwrap();
    let best: f64 = tuning["best_time"].as_str().unwrap().parse().unwrap();
    let fastest = pocl_records.iter().map(|r| r["times"]["median_ms"].as_f64().unwrap()).fold(f64::INFINITY, f64::min);
    assert!((fastest - best).abs() <= 0.005 + 1e-12, "best {best}, fastest imported {fastest}");

    let both = dir.join("both.jsonl.gz");
    let ran = ok(fewfit(dir).args(["import", "--from", "clblast-tuner"]).arg(&h200).arg(&pocl).arg("--out").arg(&both));
    let merged = dir.join("both.jsonl");
    ok(fewfit(dir).arg("merge").arg(&both).arg("--out").arg(&merged));
    let all = records(&merged);
    assert!(ran.stdout.contains(&format!("imported {} records from 2 files", all.len())), "{}", ran.both());
    let (gpu, cpu): (Vec<Value>, Vec<Value>) = all.into_iter().partition(|r| r["device"]["class"] == "nvidia-gpu");
    check_import(&h200, &gpu, "nvidia-gpu");
    assert_eq!(cpu, pocl_records);

    // Imported data merges with a fewfit sweep of the same device (different kernels, no conflict).
    let mixed = dir.join("mixed.jsonl");
    let ran = ok(fewfit(dir).arg("merge").arg(&tiny().data).arg(&out).arg("--out").arg(&mixed));
    assert!(ran.stdout.contains(&format!("merged {} records", PAIRS + pocl_records.len())), "{}", ran.both());

    // Not a tuner file: a parse error naming the file, nothing written.
    let bad = dir.join("bad.jsonl");
    let ran = fails(fewfit(dir).args(["import", "--from", "clblast-tuner"]).arg(&tiny().data).arg("--out").arg(&bad));
    assert!(ran.stderr.contains(&tiny().data.display().to_string()), "{}", ran.both());
    assert!(!bad.exists());
    // Another tuner: refused by the argument parser.
    let ran = run(fewfit(dir).args(["import", "--from", "atf"]).arg(&pocl).arg("--out").arg(&bad));
    assert_eq!(ran.code, Some(2), "{}", ran.both());
    assert!(ran.stderr.contains("clblast-tuner") && !bad.exists(), "{}", ran.both());
}

// ---------------------------------------------------------------------------------------------
// select, train, evaluate
// ---------------------------------------------------------------------------------------------

#[test]
fn select_train_and_evaluate_on_the_sweep() {
    let (dir, data) = with_tiny_copy();
    let dir = dir.path();
    let sweep_ids: BTreeSet<String> = records(&data).iter().map(variant_id).collect();

    // select: two methods compared, the first one's set written.
    let selected = dir.join("selected.json");
    let ran = ok(fewfit(dir)
        .args(["select", "--data"])
        .arg(&data)
        .args(["-k", "2", "--per-class", "2", "--method", "greedy", "--method", "exhaustive", "--write"])
        .arg(&selected));
    for method in ["greedy", "exhaustive", "single"] {
        assert!(
            ran.stdout.lines().any(|l| l.starts_with(method) && l.contains("train: geomean")),
            "{method}:\n{}",
            ran.both()
        );
    }
    assert!(ran.stdout.contains("greedy)"), "the written set is not the first method's:\n{}", ran.both());
    let text = std::fs::read_to_string(&selected).unwrap();
    let set = fewfit_codegen::SelectedSet::parse(&selected, &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ids = set.ids();
    assert!((1..=2).contains(&ids.len()), "{ids:?}");
    assert!(ids.iter().all(|id| sweep_ids.contains(id)), "{ids:?} not among {sweep_ids:?}");
    let won: u64 = set.variants.iter().map(|v| v.shapes_won.expect("shapes_won")).sum();
    assert!(won >= 1 && won <= SHAPE_LIST.len() as u64, "shapes won {won}");
    assert!(ran.stdout.contains(&format!("({} variants, greedy)", ids.len())), "{}", ran.both());

    // Bad arguments are refused before anything is written.
    let ran =
        fails(fewfit(dir).args(["select", "--data"]).arg(&data).args(["--method", "bogus", "--write", "never.json"]));
    assert!(ran.stderr.contains("unknown selection method `bogus`"), "{}", ran.both());
    let ran = fails(fewfit(dir).args(["select", "--data"]).arg(&data).args([
        "--test-fraction",
        "1",
        "--write",
        "never.json",
    ]));
    assert!(ran.stderr.contains("test fraction"), "{}", ran.both());
    assert!(!dir.join("never.json").exists());

    // train: the cpu tree over that set.
    let tree_path = dir.join("cpu.json");
    let ran = ok(fewfit(dir)
        .args(["train", "--class", "cpu", "--data"])
        .arg(&data)
        .arg("--selected")
        .arg(&selected)
        .arg("--out")
        .arg(&tree_path));
    assert!(ran.stdout.contains("wrote") && ran.stdout.contains("cross-validated"), "{}", ran.both());
    let tree_text = std::fs::read_to_string(&tree_path).unwrap();
    let tree =
        fewfit_codegen::Tree::parse_in_set(&tree_path, &tree_text, &set).unwrap_or_else(|e| panic!("{e}\n{tree_text}"));
    assert_eq!(tree.class, "cpu");
    let json: Value = serde_json::from_str(&tree_text).unwrap();
    let mut named = BTreeSet::new();
    leaves(&json["root"], &mut named);
    let names = set.names();
    assert!(!named.is_empty() && named.iter().all(|n| names.contains(n)), "{named:?} not in {names:?}");
    // The grid's depths and leaf limits can be set; an empty grid is refused and writes nothing.
    let grid = |depth: &str| {
        let mut command = fewfit(dir);
        command.args(["train", "--class", "cpu", "--max-depth", depth, "--min-leaf", "3,1", "--data"]);
        command.arg(&data).arg("--selected").arg(&selected).arg("--out").arg(dir.join("grid.json"));
        command
    };
    let ran = ok(&mut grid("1"));
    let chose = |min_leaf: &str| ran.stdout.contains(&format!(": depth 1, min leaf {min_leaf},"));
    assert!(chose("3") || chose("1"), "{}", ran.both());
    std::fs::remove_file(dir.join("grid.json")).unwrap();
    let ran = fails(&mut grid("0"));
    assert!(ran.stderr.contains("non-empty grid"), "{}", ran.both());
    assert!(!dir.join("grid.json").exists(), "{}", ran.both());
    // A class the data does not have: nothing to train on.
    let ran = fails(
        fewfit(dir)
            .args(["train", "--class", "nvidia-gpu", "--data"])
            .arg(&data)
            .arg("--selected")
            .arg(&selected)
            .arg("--out")
            .arg(dir.join("gpu.json")),
    );
    assert!(ran.stderr.contains("no data for device class `nvidia-gpu`"), "{}", ran.both());
    assert!(!dir.join("gpu.json").exists(), "{}", ran.both());

    // evaluate that set and tree, in a crate root holding them (single-leaf trees for the other
    // classes) named by --root: every pick ran, so nothing failed, and the tree is no better than
    // the set's best.
    let root = dir.join("own");
    std::fs::create_dir_all(root.join("variants")).unwrap();
    std::fs::create_dir_all(root.join("selector")).unwrap();
    std::fs::copy(&selected, root.join("variants/selected.json")).unwrap();
    std::fs::copy(&tree_path, root.join("selector/cpu.json")).unwrap();
    for class in ["nvidia-gpu", "gpu", "default"] {
        let leaf = json!({"class": class, "root": {"variant": ids[0]}});
        std::fs::write(root.join(format!("selector/{class}.json")), leaf.to_string()).unwrap();
    }
    for class in ["cpu", "nvidia-gpu", "gpu", "default"] {
        for precision in ["f16", "bf16", "tf32"] {
            let same = json!({"class": class, "precision": precision, "same_as": class});
            std::fs::write(root.join(format!("selector/{class}.{precision}.json")), same.to_string()).unwrap();
        }
    }
    let plot = dir.join("plots/own.svg");
    let ran = ok(fewfit(dir).args(["evaluate", "--root"]).arg(&root).arg("--data").arg(&data).arg("--plot").arg(&plot));
    assert!(!ran.stdout.contains("failed"), "{}", ran.both());
    assert!(ran.stdout.contains(&format!("[cpu]: {} problems", SHAPE_LIST.len())), "{}", ran.both());
    let (tree_geo, best_geo) =
        (number_after(&ran.stdout, "tree: geomean"), number_after(&ran.stdout, "best in set: geomean"));
    assert!(best_geo >= 1.0 && tree_geo >= best_geo, "tree {tree_geo}, best in set {best_geo}\n{}", ran.both());
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"));

    // --by-family judges the same set and tree on each family's problems as well.
    let families = dir.join("families");
    std::fs::create_dir_all(&families).unwrap();
    std::fs::write(families.join("small-NN.txt"), "16 16 16\n33 17 9\n").unwrap();
    std::fs::write(families.join("large-NN.txt"), "64 32 48\n").unwrap();
    let ran = ok(fewfit(dir)
        .args(["evaluate", "--root"])
        .arg(&root)
        .arg("--data")
        .arg(&data)
        .arg("--by-family")
        .arg(&families));
    // Families in name order, each section up to the next.
    let (large, small) =
        ran.stdout.split_once("family large:").unwrap_or_default().1.split_once("family small:").unwrap_or_default();
    assert!(large.contains("[cpu]: 1 problems"), "{}", ran.both());
    assert!(small.contains("[cpu]: 2 problems"), "{}", ran.both());
    assert!(number_after(&ran.stdout, "tree: geomean") == tree_geo, "{}", ran.both());

    // evaluate the crate's shipped set and trees (read from the crate root) on the tiny data.
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let shipped_text = std::fs::read_to_string(manifest.join("variants/selected.json")).unwrap();
    let shipped = fewfit_codegen::SelectedSet::parse(Path::new("variants/selected.json"), &shipped_text).unwrap();
    let plot = dir.join("shipped.svg");
    let ran = ok(fewfit(manifest).args(["evaluate", "--data"]).arg(&data).arg("--plot").arg(&plot));
    assert!(ran.stderr.contains(&format!("data: {PAIRS} records")), "{}", ran.both());
    assert!(ran.stdout.contains(&format!("[cpu]: {} problems", SHAPE_LIST.len())), "{}", ran.both());
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"));
    if shipped.ids().iter().all(|id| !sweep_ids.contains(id)) {
        // None of the shipped variants was measured: no pick was, and nothing of the set ran.
        let n = SHAPE_LIST.len();
        assert!(
            ran.stdout.contains(&format!("tree: geomean 1.000, worst -, {n} picks not measured")),
            "{}",
            ran.both()
        );
        assert!(
            ran.stdout.contains(&format!(
                "best in set: geomean 1.000, worst -, {n} problems with no variant of the set measured"
            )),
            "{}",
            ran.both()
        );
    }

    // evaluate without a crate root: a clear error about the missing set.
    let ran = fails(fewfit(dir).args(["evaluate", "--data"]).arg(&data));
    assert!(ran.stderr.contains("selected.json"), "{}", ran.both());
}

// ---------------------------------------------------------------------------------------------
// regenerate
// ---------------------------------------------------------------------------------------------

#[test]
fn regenerate_without_gpu_data_fails_and_writes_nothing() {
    let (dir, data) = with_tiny_copy();
    let root = crate_copy(dir.path());
    let before = snapshot(&root);
    assert!(
        before.contains_key(Path::new("variants/selected.json")) && before.contains_key(Path::new("selector/cpu.json"))
    );
    let ran = fails(fewfit(dir.path()).args(["regenerate", "--data"]).arg(&data).arg("--root").arg(&root));
    assert!(
        ran.stderr.contains("no f32 training data for device class `nvidia-gpu`"),
        "not the missing-class error:\n{}",
        ran.both()
    );
    assert!(!ran.stdout.contains("wrote"), "{}", ran.both());
    assert!(snapshot(&root) == before, "regenerate changed files under --root although it failed");
}

#[test]
fn regenerate_writes_a_set_and_trees_that_evaluate_reads() {
    let (dir, data) = with_tiny_copy();
    let gpu = dir.path().join("gpu.jsonl");
    write_records(&gpu, &fake_gpu(&records(&data)));
    let root = crate_copy(dir.path());
    let ran = ok(fewfit(dir.path())
        .args(["regenerate", "-k", "3", "--per-class", "2", "--data"])
        .arg(&data)
        .arg(&gpu)
        .arg("--root")
        .arg(&root));
    for file in [
        "variants/selected.json",
        "selector/cpu.json",
        "selector/nvidia-gpu.json",
        "selector/gpu.json",
        "selector/default.json",
        "selector/cpu.f16.json",
        "selector/gpu.bf16.json",
        "selector/default.tf32.json",
    ] {
        assert!(ran.stdout.contains(&root.join(file).display().to_string()), "{file} not written:\n{}", ran.both());
    }
    // The other precisions take the f32 trees: f16, bf16 and tf32 by a file naming them, f64 by itself.
    assert!(!ran.stdout.contains("f64.json"), "{}", ran.both());
    let cpu_f16 = std::fs::read_to_string(root.join("selector/cpu.f16.json")).unwrap();
    assert_eq!(cpu_f16, "{\n  \"class\": \"cpu\",\n  \"precision\": \"f16\",\n  \"same_as\": \"cpu\"\n}\n");
    // What build.rs reads: a valid set and one tree per class over it.
    let inputs = fewfit_codegen::read_inputs(&root).unwrap_or_else(|e| panic!("{e}\n{}", ran.both()));
    let ids = inputs.selected.ids();
    let sweep_ids: BTreeSet<String> = records(&data).iter().map(variant_id).collect();
    assert!(!ids.is_empty() && ids.iter().all(|id| sweep_ids.contains(id)), "{ids:?}");
    assert_eq!(
        inputs.trees[..4].iter().map(|(t, _)| (t.class.as_str(), t.precision.as_str())).collect::<Vec<_>>(),
        [("cpu", "f32"), ("nvidia-gpu", "f32"), ("gpu", "f32"), ("default", "f32")]
    );
    assert!(inputs.selected.variants.iter().all(|v| v.precisions == ["f32"]));
    // The crate's own files are untouched (only --root is written).
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let shipped = std::fs::read(manifest.join("variants/selected.json")).unwrap();
    assert_ne!(std::fs::read(root.join("variants/selected.json")).unwrap(), shipped);

    let ran = ok(fewfit(&root).args(["evaluate", "--data"]).arg(&data).arg(&gpu));
    assert!(!ran.stdout.contains("failed"), "a shipped pick did not run:\n{}", ran.both());
    for class in ["[cpu]", "[nvidia-gpu]"] {
        assert!(ran.stdout.contains(&format!("{class}: {} problems", SHAPE_LIST.len())), "{}", ran.both());
    }
}

#[test]
fn train_only_data_trains_the_trees_but_not_the_selection() {
    let (dir, data) = with_tiny_copy();
    let dir = dir.path();
    let gpu_records = fake_gpu(&records(&data));
    let gpu = dir.join("gpu.jsonl");
    write_records(&gpu, &gpu_records);
    // One more GPU shape, where the direct variant is far faster than anything else.
    let direct = variant_id(gpu_records.iter().find(|r| r["variant"]["kernel"] == "direct").unwrap());
    let extra: Vec<Value> = gpu_records
        .iter()
        .filter(|r| shape(r) == SHAPE_LIST[1])
        .map(|r| {
            let mut r = r.clone();
            (r["m"], r["n"], r["k"]) = (json!(40), json!(20), json!(10));
            if variant_id(&r) == direct {
                r["times"] = json!({"min_ms": 1e-6, "median_ms": 1e-6, "repeats": 2});
            }
            r
        })
        .collect();
    let extra_path = dir.join("extra.jsonl");
    write_records(&extra_path, &extra);
    let root = crate_copy(dir);
    // The variants the GPU's tree names, with the extra shape as selection data or as tree data.
    let gpu_tree_leaves = |flag: &str| regenerate_gpu_leaves(dir, &root, &data, &gpu, Some((flag, &extra_path)));
    // As selection data the extra shape pulls the direct variant into the GPU's one-variant subset
    // (geomean 3^(3/4) against 100^(1/4) and more); as tree-only data it cannot.
    let (as_selection, _) = gpu_tree_leaves("--data");
    assert_eq!(as_selection, BTreeSet::from([direct.clone()]));
    let (as_trees, ran) = gpu_tree_leaves("--train-only");
    assert_eq!(as_trees.len(), 1, "{}", ran.both());
    assert!(!as_trees.contains(&direct), "{}", ran.both());
    assert!(ran.stdout.contains("(1 of them for the trees only)"), "{}", ran.both());
}

#[test]
fn select_only_data_selects_the_set_but_trains_no_tree() {
    let (dir, data) = with_tiny_copy();
    let dir = dir.path();
    let gpu_records = fake_gpu(&records(&data));
    let gpu = dir.join("gpu.jsonl");
    write_records(&gpu, &gpu_records);
    // A second GPU, alike but for a shape where the direct variant is far faster than anything else.
    let direct = variant_id(gpu_records.iter().find(|r| r["variant"]["kernel"] == "direct").unwrap());
    let other: Vec<Value> = gpu_records
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["device"]["machine"] = json!("another GPU");
            if shape(&r) == SHAPE_LIST[1] && variant_id(&r) == direct {
                r["times"] = json!({"min_ms": 1e-6, "median_ms": 1e-6, "repeats": 2});
            }
            r
        })
        .collect();
    let other_path = dir.join("other.jsonl");
    write_records(&other_path, &other);
    let root = crate_copy(dir);
    // The GPU's tree's variants with the second GPU's records passed with `flag` (none: left out).
    let regenerate =
        |flag: Option<&str>| regenerate_gpu_leaves(dir, &root, &data, &gpu, flag.map(|f| (f, other_path.as_path())));
    let trained_on = |ran: &Ran| -> usize {
        let line = ran.stdout.lines().find(|l| l.contains("training problems")).expect("the training line");
        line.split_whitespace().next().unwrap().parse().unwrap()
    };
    // Both ways the second GPU's shape pulls the direct variant into the GPU's one-variant subset;
    // as select-only data its problems train no tree: the trees see the problems of a run without it.
    let (as_data, with_trees) = regenerate(Some("--data"));
    let (as_selection, without) = regenerate(Some("--select-only"));
    let (_, left_out) = regenerate(None);
    assert_eq!(as_data, BTreeSet::from([direct.clone()]), "{}", with_trees.both());
    assert_eq!(as_selection, BTreeSet::from([direct]), "{}", without.both());
    assert_eq!(trained_on(&without), trained_on(&left_out), "{}", without.both());
    assert!(trained_on(&with_trees) > trained_on(&without), "{}", with_trees.both());
}

// ---------------------------------------------------------------------------------------------
// Regressions of problems found by these tests.
// ---------------------------------------------------------------------------------------------

/// `--method` takes several values after one flag, like `--data`.
#[test]
fn select_takes_several_methods_after_one_flag() {
    let (dir, data) = with_tiny_copy();
    let ran = run(fewfit(dir.path()).args(["select", "--data"]).arg(&data).args([
        "-k",
        "2",
        "--method",
        "greedy",
        "exhaustive",
    ]));
    assert_eq!(ran.code, Some(0), "{}", ran.both());
    assert!(ran.stdout.lines().any(|l| l.starts_with("exhaustive")), "{}", ran.both());
}

/// `select --fleet` selects by fleet rate over the devices the file counts, and refuses a file that
/// names a device the data does not hold.
#[test]
fn select_by_fleet_rate_checks_the_fleet_file() {
    let (dir, data) = with_tiny_copy();
    let device = records(&data)[0]["device"]["name"].as_str().unwrap().to_string();
    let fleet = dir.path().join("fleet.txt");
    std::fs::write(&fleet, format!("# the lab\n40 {device}\n")).unwrap();
    let ran = ok(fewfit(dir.path()).args(["select", "--data"]).arg(&data).args(["-k", "2", "--fleet"]).arg(&fleet));
    assert!(ran.stdout.lines().any(|l| l.starts_with("greedy")), "{}", ran.both());
    std::fs::write(&fleet, "40 No Such Device\n").unwrap();
    let ran = fails(fewfit(dir.path()).args(["select", "--data"]).arg(&data).args(["--fleet"]).arg(&fleet));
    assert!(ran.stderr.contains("`No Such Device`"), "{}", ran.both());
    std::fs::write(&fleet, format!("many {device}\n")).unwrap();
    let ran = fails(fewfit(dir.path()).args(["select", "--data"]).arg(&data).args(["--fleet"]).arg(&fleet));
    assert!(ran.stderr.contains("line 1"), "{}", ran.both());
}

/// `select --write` on data that holds imported CLBlast configurations writes a set of fewfit's
/// own variants (with seed 1 on the tiny sweep plus the PoCL import, a CLBlast configuration would
/// otherwise be picked).
#[test]
fn select_writes_a_shippable_set_from_data_with_imports() {
    let (dir, data) = with_tiny_copy();
    let dir = dir.path();
    let pocl = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("variants/data/clblast-tuner/pocl_clblast_xgemm_1_32.json");
    let imported = dir.join("imported.jsonl");
    ok(fewfit(dir).args(["import", "--from", "clblast-tuner"]).arg(&pocl).arg("--out").arg(&imported));
    let selected = dir.join("selected.json");
    let ran = run(fewfit(dir)
        .args(["select", "--data"])
        .arg(&data)
        .arg(&imported)
        .args(["-k", "2", "--per-class", "2", "--method", "greedy", "--seed", "1", "--write"])
        .arg(&selected));
    assert_eq!(ran.code, Some(0), "{}", ran.both());
    let text = std::fs::read_to_string(&selected).unwrap();
    fewfit_codegen::SelectedSet::parse(&selected, &text).unwrap();
}
