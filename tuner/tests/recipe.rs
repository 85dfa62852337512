//! `fewfit regenerate --recipe` on a small recipe: synthetic datasets written here (no device
//! needed), a twin substitution, a layout graft and a compute-units graft, an f16 section whose
//! records train the GPU classes' f16 trees (the CPU's f16 tree is its f32 one), a bf16 section
//! that takes f16's trees and a tf32 one that takes f32's. Two runs write byte-identical files that
//! the build accepts; a dataset changed after the recipe was written stops the run with nothing
//! written; the recipe's f32 regeneration is the flag form's.
//!
//! Run: `cargo test -p fewfit-tuner --test recipe`.

mod common;
use common::snapshot;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fewfit_codegen::tree::{Node, Tree};
use fewfit_codegen::{Family, SelectedSet, Variant};
use fewfit_tuner::recipe::sha256_file;
use serde_json::{json, Value};

/// Four direct variants: A best on short M, B on middling M, C on long M, D nowhere.
fn variants() -> [Variant; 4] {
    let direct = |kdimd: u32, ndimd: u32, ukd: u32, wptm: u32| {
        let v = Variant::new(
            Family::Direct,
            &[("KDIMD", kdimd), ("NDIMD", ndimd), ("UKD", ukd), ("VWD", 4), ("WPTM", wptm), ("WPTN", 1)],
        )
        .with_neutral_defaults();
        v.validate().unwrap();
        v
    };
    [direct(32, 8, 8, 2), direct(32, 16, 4, 4), direct(64, 8, 8, 2), direct(16, 16, 4, 2)]
}

/// A's twin with UKK = 1, which only the graft's data measured.
fn twin() -> Variant {
    let mut v = variants()[0].clone();
    v.params.insert("UKK".into(), 1);
    v.validate().unwrap();
    v
}

fn device(class: &str, name: &str, units: u32, layout: Option<&str>) -> Value {
    let mut d = json!({"name": name, "vendor": "test", "driver": "1", "class": class, "compute_units": units});
    if let Some(layout) = layout {
        d["layout"] = json!(layout);
    }
    d
}

/// One f32 record per variant and shape; `slowdown(variant, m)` scales the variant's time.
fn records(
    device: &Value,
    shapes: &[(u64, u64, u64)],
    variants: &[Variant],
    slowdown: impl Fn(usize, u64) -> f64,
) -> String {
    records_in("f32", device, shapes, variants, slowdown)
}

/// [`records`] of a precision.
fn records_in(
    precision: &str,
    device: &Value,
    shapes: &[(u64, u64, u64)],
    variants: &[Variant],
    slowdown: impl Fn(usize, u64) -> f64,
) -> String {
    let mut text = String::new();
    for &(m, n, k) in shapes {
        for (i, v) in variants.iter().enumerate() {
            let ms = (2.0 * (m * n * k) as f64 / 1e9 + 0.01) * slowdown(i, m);
            let record = json!({
                "device": device, "m": m, "n": n, "k": k, "precision": precision,
                "variant": {"kernel": v.family.name(), "params": v.params},
                "times": {"min_ms": ms, "median_ms": ms, "repeats": 5}, "valid": true,
            });
            text.push_str(&record.to_string());
            text.push('\n');
        }
    }
    text
}

fn shapes(ms: &[u64], ns: &[u64]) -> Vec<(u64, u64, u64)> {
    ms.iter().flat_map(|&m| ns.iter().map(move |&n| (m, n, 256))).collect()
}

/// Variant `i` is fast where `best(i, m)`, three times slower elsewhere; D (3) always four times.
fn banded(best: impl Fn(usize, u64) -> bool) -> impl Fn(usize, u64) -> f64 {
    move |i, m| match i {
        3 => 4.0,
        _ if best(i, m) => 1.0 + i as f64 * 0.01,
        _ => 3.0,
    }
}

/// The datasets and the recipe, in `dir`; returns the recipe's path.
fn write_recipe(dir: &Path) -> PathBuf {
    let ms = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];
    let train = shapes(&ms, &[64, 512]);
    let held_out = shapes(&[3, 48, 700], &[100]);
    let vs = variants();
    let nn = banded(|i, m| [m <= 8, (9..=128).contains(&m), m > 128][i]);
    let nt = banded(|i, m| [(9..=128).contains(&m), m <= 8, m > 128][i]);
    let gpu = device("nvidia-gpu", "Test GPU", 132, None);
    let gpu_nt = device("nvidia-gpu", "Test GPU", 132, Some("NT"));
    let cpu = device("cpu", "Test CPU", 2, None);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let write = |name: &str, text: String| std::fs::write(data.join(name), text).unwrap();
    write("nn.jsonl", records(&gpu, &train, &vs, &nn) + &records(&cpu, &train, &vs, &nn));
    write("nt.jsonl", records(&gpu_nt, &train, &vs, &nt));
    write("held-out.jsonl", records(&gpu, &held_out, &vs, &nn));
    // The graft's records: the set with the twin in A's place, in NT on more shapes (the twin
    // fastest on the shortest), and the set on a 16-core CPU (C fastest on most shapes).
    let with_twin = [twin(), vs[1].clone(), vs[2].clone()];
    let nt_dense = shapes(&[1, 3, 6, 8, 12, 24, 48, 96, 128, 200, 400, 800, 1600], &[64, 200, 512]);
    write(
        "nt-set.jsonl",
        records(&gpu_nt, &nt_dense, &with_twin, banded(|i, m| [m <= 4, (5..=128).contains(&m), m > 128][i])),
    );
    let big_cpu = device("cpu", "Test CPU", 16, None);
    write("cpu16.jsonl", records(&big_cpu, &train, &vs, banded(|i, m| [m <= 2, false, m > 2][i])));
    // The GPU's f16 records: D, never a winner in f32, fastest everywhere; and a CPU's f32 records
    // in the same file, which the f16 section leaves out.
    write(
        "gpu-f16.jsonl",
        records_in("f16", &gpu, &train, &vs, |i, _| if i == 3 { 1.0 } else { 2.5 + i as f64 * 0.1 })
            + &records(&cpu, &train, &vs, |i, _| if i == 3 { 1.0 } else { 3.0 }),
    );
    std::fs::write(dir.join("weights.txt"), "# M N K WEIGHT\n1 64 256 3\n").unwrap();
    let files = [
        "data/gpu-f16.jsonl",
        "data/nn.jsonl",
        "data/nt.jsonl",
        "data/held-out.jsonl",
        "data/nt-set.jsonl",
        "data/cpu16.jsonl",
        "weights.txt",
    ];
    let sha256: String =
        files.iter().map(|f| format!("\"{f}\" = \"{}\"\n", sha256_file(&dir.join(f)).unwrap())).collect();
    let recipe = format!(
        r#"# A small release: three variants of four, A's twin, an NT subtree and a larger CPU's.
[regenerate]
data = ["data/nn.jsonl", "data/nt.jsonl"]
holdout = ["data/held-out.jsonl"]
k = 3
per_class = 3
class_limits = {{ cpu = 3 }}
shape_weights = "weights.txt"
max_depth = 3
min_leaf = [2, 1]

# f16 records of the GPU alone: its classes' trees; the CPU's is its f32 tree.
[precision.f16]
data = ["data/gpu-f16.jsonl"]
classes = ["nvidia-gpu", "gpu", "default"]
same_as = "f32"

[precision.bf16]
same_as = "f16"

[precision.tf32]
same_as = "f32"

[[step]]
do = "twin"
variant = "{a}"
set = "UKK=1"

[[step]]
do = "graft-layout"
layout = "NT"
class = "nvidia-gpu"
data = ["data/nt-set.jsonl"]
into = ["nvidia-gpu", "gpu"]

[[step]]
do = "graft-compute-units"
above = 2
class = "cpu"
data = ["data/cpu16.jsonl"]
into = ["cpu"]

[sha256]
{sha256}"#,
        a = vs[0].id()
    );
    let path = dir.join("recipe.toml");
    std::fs::write(&path, recipe).unwrap();
    path
}

fn fewfit(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fewfit"));
    cmd.current_dir(dir);
    cmd
}

fn both(out: &Output) -> String {
    format!("--- stdout\n{}--- stderr\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn regenerate(dir: &Path, recipe: &Path, root: &Path) -> Output {
    fewfit(dir).args(["regenerate", "--recipe"]).arg(recipe).arg("--root").arg(root).output().unwrap()
}

fn sides(node: &Node) -> (&str, u64, &Node, &Node) {
    match node {
        Node::Split { feature, threshold, le, gt, .. } => (feature, *threshold, le, gt),
        Node::Leaf { variant, .. } => panic!("a leaf ({variant}) where a split was expected"),
    }
}

#[test]
fn a_small_recipe_regenerates_byte_identical_files_with_its_steps() {
    let dir = tempfile::tempdir().unwrap();
    let recipe = write_recipe(dir.path());
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let ran = regenerate(dir.path(), &recipe, &first);
    assert!(ran.status.success(), "{}", both(&ran));
    let ran_again = regenerate(dir.path(), &recipe, &second);
    assert!(ran_again.status.success(), "{}", both(&ran_again));
    let files = snapshot(&first);
    // A file per class and precision, but f64, which runs the f32 trees without one.
    let mut expected: Vec<PathBuf> = ["f32", "f16", "bf16", "tf32"]
        .iter()
        .flat_map(|p| fewfit_codegen::CLASSES.map(|c| fewfit_codegen::tree_path(c, p)))
        .chain([PathBuf::from("variants/selected.json")])
        .collect();
    expected.sort();
    assert_eq!(files.keys().cloned().collect::<Vec<_>>(), expected);
    assert!(files == snapshot(&second), "two runs of one recipe wrote different files");

    // What the build reads: the set and the trees parse, each leaf names a member.
    let inputs = fewfit_codegen::read_inputs(&first).unwrap();
    let set: &SelectedSet = &inputs.selected;
    let [a, b, c, d] = variants().map(|v| v.id());
    let ids = set.ids();
    assert!(ids.contains(&twin().id()) && !ids.contains(&a), "A's twin in its place: {ids:?}");
    // f32 chose A, B and C; D is there for f16 alone (below).
    let f32_ids: Vec<&str> =
        set.variants.iter().filter(|v| v.precisions.contains(&"f32".to_string())).map(|v| v.id.as_str()).collect();
    assert!(
        f32_ids.contains(&b.as_str()) && f32_ids.contains(&c.as_str()) && !f32_ids.contains(&d.as_str()),
        "{ids:?}"
    );
    let note = format!("Then {} in place of its twin with UKK = 0 (recipe.toml, step 1).", twin().name());
    assert!(set.comment.contains(&note), "{}", set.comment);
    let tree = |class: &str| -> &Tree { &inputs.trees.iter().find(|(t, _)| t.class == class).unwrap().0 };
    for (t, _) in &inputs.trees {
        assert!(t.leaf_variants().iter().all(|l| *l != a), "{}: a leaf still names A", t.class);
    }

    // The NT subtree of both GPU trees is the graft's, trained on the records with the twin; NN's
    // is regenerate's.
    let (feature, _, gpu_nn, gpu_nt) = sides(&tree("nvidia-gpu").root);
    assert_eq!(feature, "operands_along_k");
    let (_, _, other_nn, other_nt) = sides(&tree("gpu").root);
    assert_eq!((gpu_nn, gpu_nt), (other_nn, other_nt));
    let nt_leaves = Tree::new("x", "f32", gpu_nt.clone());
    assert!(nt_leaves.leaf_variants().contains(&twin().id().as_str()), "{:?}", nt_leaves.leaf_variants());
    assert!(tree("nvidia-gpu").comment.contains("Then its NT subtree replaced by one trained on nt-set.jsonl ("));
    assert!(tree("nvidia-gpu").comment.ends_with("; recipe.toml, step 2)."), "{}", tree("nvidia-gpu").comment);
    assert!(!tree("default").comment.contains("step 2"), "{}", tree("default").comment);

    // The cpu tree: the 2-core CPU's below a split at 2 compute units, the 16-core one's above.
    let (feature, threshold, _, larger) = sides(&tree("cpu").root);
    assert_eq!((feature, threshold), ("compute_units", 2));
    let larger = Tree::new("cpu", "f32", larger.clone());
    assert!(larger.leaf_variants().contains(&c.as_str()), "{:?}", larger.leaf_variants());
    assert!(tree("cpu")
        .comment
        .contains("Then the devices of more than 2 compute units sent to one trained on cpu16.jsonl"));

    // f16: D, fastest on the GPU in f16 alone, joins the set for f16 and the GPU classes' f16
    // trees pick it; the CPU's f16 tree is its f32 tree, and so are bf16's (f16's, which has
    // none of its own) and tf32's.
    let of = |class: &str, precision: &str| inputs.tree(class, precision).unwrap();
    let member = |id: &str| set.variants.iter().find(|v| v.id == id);
    assert_eq!(member(&d).map(|v| v.precisions.clone()), Some(vec!["f16".to_string()]), "{ids:?}");
    assert_eq!(member(&b).unwrap().precisions[0], "f32");
    for precision in ["f32", "f16"] {
        let chosen = set.variants.iter().filter(|v| v.precisions.iter().any(|p| p == precision)).count();
        assert!((1..=3).contains(&chosen), "{chosen} variants for {precision}: k = 3 holds per precision");
    }
    for class in ["nvidia-gpu", "gpu", "default"] {
        let tree = of(class, "f16");
        assert_eq!(tree.precision, "f16");
        assert!(tree.leaf_variants().contains(&d.as_str()), "{class}: {:?}", tree.leaf_variants());
        assert!(tree.comment.contains("gpu-f16.jsonl"), "{}", tree.comment);
        assert_eq!(of(class, "bf16").root, tree.root);
    }
    for class in fewfit_codegen::CLASSES {
        assert_eq!(of(class, "tf32").root, of(class, "f32").root, "{class}");
        assert_eq!(of(class, "f64").root, of(class, "f32").root, "{class}");
    }
    assert_eq!(of("cpu", "f16").root, of("cpu", "f32").root);
    assert_eq!(of("cpu", "bf16").root, of("cpu", "f32").root);
    let text = |rel: &str| String::from_utf8(files[Path::new(rel)].clone()).unwrap();
    assert_eq!(
        text("selector/cpu.f16.json"),
        "{\n  \"class\": \"cpu\",\n  \"precision\": \"f16\",\n  \"same_as\": \"cpu\"\n}\n"
    );
    assert!(text("selector/nvidia-gpu.f16.json").contains("\"precision\": \"f16\",\n  \"comment\""));
    assert!(text("selector/nvidia-gpu.bf16.json").contains("\"same_as\": \"nvidia-gpu.f16\""));

    let stdout = String::from_utf8_lossy(&ran.stdout);
    for line in [
        "f16: ",
        "step 1: ",
        "step 2: NT subtree trained on nt-set.jsonl",
        "step 3: subtree for larger devices",
        "shipped set and trees on held-out.jsonl",
    ] {
        assert!(stdout.contains(line), "`{line}` missing\n{}", both(&ran));
    }
}

#[test]
fn the_recipes_regeneration_is_the_flag_forms() {
    let dir = tempfile::tempdir().unwrap();
    let recipe = write_recipe(dir.path());
    let (by_recipe, by_flags) = (dir.path().join("recipe"), dir.path().join("flags"));
    // The flag form writes into an existing crate root.
    std::fs::create_dir_all(by_flags.join("variants")).unwrap();
    std::fs::create_dir_all(by_flags.join("selector")).unwrap();
    let ran = regenerate(dir.path(), &recipe, &by_recipe);
    assert!(ran.status.success(), "{}", both(&ran));
    let ran = fewfit(dir.path())
        .args(["regenerate", "--data", "data/nn.jsonl", "data/nt.jsonl", "--holdout", "data/held-out.jsonl"])
        .args(["-k", "3", "--per-class", "3", "--class-limit", "cpu=3", "--shape-weights", "weights.txt"])
        .args(["--max-depth", "3", "--min-leaf", "2,1", "--root"])
        .arg(&by_flags)
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", both(&ran));
    let recipe_out = fewfit_codegen::read_inputs(&by_recipe).unwrap();
    let flags_out = fewfit_codegen::read_inputs(&by_flags).unwrap();
    // The `default` tree has no graft: it differs only by the twin's name and the comment.
    let [a, ..] = variants().map(|v| v.id());
    let mut expected = flags_out.trees[3].0.clone();
    expected.rename_leaves(&a, &twin().id());
    assert_eq!(recipe_out.trees[3].0.root, expected.root);
    // And the 2-core CPU's side of the `cpu` tree is the flag form's tree.
    let mut cpu = flags_out.trees[0].0.clone();
    cpu.rename_leaves(&a, &twin().id());
    assert_eq!(sides(&recipe_out.trees[0].0.root).2, &cpu.root);
    let position = |set: &SelectedSet, id: &str| set.ids().iter().position(|x| x == id);
    assert_eq!(position(&recipe_out.selected, &twin().id()), position(&flags_out.selected, &a));

    // With a recipe, the flags that it replaces are refused.
    let ran = fewfit(dir.path())
        .args(["regenerate", "--recipe"])
        .arg(&recipe)
        .args(["--data", "data/nn.jsonl"])
        .output()
        .unwrap();
    assert!(
        !ran.status.success() && String::from_utf8_lossy(&ran.stderr).contains("cannot be used with"),
        "{}",
        both(&ran)
    );
}

#[test]
fn a_changed_dataset_stops_the_recipe_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let recipe = write_recipe(dir.path());
    // A root holding a release already: it must come through untouched.
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("selector")).unwrap();
    std::fs::write(root.join("selector/cpu.json"), "shipped").unwrap();
    let before = snapshot(&root);
    // The last step's dataset, changed by one record.
    let cpu16 = dir.path().join("data/cpu16.jsonl");
    let text = std::fs::read_to_string(&cpu16).unwrap();
    let (_, rest) = text.split_once('\n').unwrap();
    std::fs::write(&cpu16, rest).unwrap();
    let ran = regenerate(dir.path(), &recipe, &root);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(!ran.status.success(), "{}", both(&ran));
    assert!(stderr.contains("1 of the recipe's 7 files differ"), "{}", both(&ran));
    assert!(stderr.contains(&format!("{}: sha256 ", Path::new("data/cpu16.jsonl").display())), "{}", both(&ran));
    assert!(!stderr.contains("data: "), "a dataset was loaded before the checksums were checked\n{}", both(&ran));
    assert!(snapshot(&root) == before, "a refused recipe changed files under --root");
    // A missing one is named too.
    std::fs::remove_file(&cpu16).unwrap();
    let ran = regenerate(dir.path(), &recipe, &root);
    assert!(!ran.status.success() && String::from_utf8_lossy(&ran.stderr).contains("cpu16.jsonl"), "{}", both(&ran));
    assert!(snapshot(&root) == before);
}
