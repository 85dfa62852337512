//! The generated `select_*` functions of every (device class, precision) pair agree with a plain
//! interpreter of the same JSON trees on shapes drawn from a grid that straddles every threshold
//! and on the listed shapes, each in the three layouts the kernels see (`operands_along_k`), which
//! reach every leaf, and `explain` reports the same path; `tuning::reachable`, which the first
//! call builds, holds exactly the variants they pick; and each pair's generated tree is the one its
//! selector files give it (`fewfit_codegen::read_inputs`).

use fewfit::tuning;
use fewfit::{explain, DeviceClass, Precision, VariantId};
use fewfit_codegen::tree::Node;
use fewfit_codegen::ShapeFeatures;
use rand::{rngs::StdRng, RngExt, SeedableRng};

/// Values of m, n and k: small, powers of two and their neighbours, and each threshold of the
/// trees' m, n, k, min_mn and max_mn splits with its neighbours.
fn grid_values() -> Vec<u64> {
    let mut values: Vec<u64> = vec![0, 1, 2, 3, 5, 7, 16, 17, 100, 1000, 4097, 100_000];
    for p in 0..16 {
        values.extend([(1 << p) - 1, 1 << p, (1 << p) + 1]);
    }
    for t in split_thresholds(&["m", "n", "k", "min_mn", "max_mn"]) {
        values.extend([t.saturating_sub(1), t, t + 1]);
    }
    values.sort_unstable();
    values.dedup();
    values
}

/// The thresholds of every tree's splits on any of `features`.
fn split_thresholds(features: &[&str]) -> Vec<u64> {
    fn walk(node: &Node, features: &[&str], out: &mut Vec<u64>) {
        if let Node::Split { feature, threshold, le, gt, .. } = node {
            if features.contains(&feature.as_str()) {
                out.push(*threshold);
            }
            walk(le, features, out);
            walk(gt, features, out);
        }
    }
    let mut out = Vec::new();
    for (class, precision) in pairs() {
        walk(&tuning::tree(class, precision).root, features, &mut out);
    }
    out
}

/// The shapes of every list in variants/shapes/ and its folders (those the trees were trained on
/// among them), each as given and with M and N swapped (the kernel's view of a row-major call): the
/// trees' leaves are regions of these shapes, which a grid of single thresholds need not reach.
fn listed_shapes() -> Vec<(u64, u64, u64)> {
    let mut lists = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/variants/shapes"))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("variants/shapes") {
            let path = entry.expect("a shape list").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                lists.push(path);
            }
        }
    }
    let mut shapes = Vec::new();
    for list in lists {
        let text = std::fs::read_to_string(list).expect("a readable shape list");
        for line in text.lines() {
            let fields: Vec<u64> = line
                .split('#')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .take(3)
                .filter_map(|f| f.parse().ok())
                .collect();
            if let [m, n, k] = fields[..] {
                shapes.extend([(m, n, k), (n, m, k)]);
            }
        }
    }
    shapes
}

/// The shapes to check: every grid value in each of M, N and K, each beside random partners from
/// the grid, then random triples of grid values (the whole cube grows as the cube of the trees'
/// thresholds: half a billion shapes for the 2026-11-26 trees), then the listed shapes, also
/// narrowed to each small M the trees split on.
fn grid_shapes(values: &[u64]) -> Vec<(u64, u64, u64)> {
    let mut rng = StdRng::seed_from_u64(7);
    let mut any = || values[rng.random_range(0..values.len())];
    let mut shapes = Vec::new();
    for &v in values {
        for _ in 0..16 {
            shapes.extend([(v, any(), any()), (any(), v, any()), (any(), any(), v)]);
        }
    }
    for _ in 0..100_000 {
        shapes.push((any(), any(), any()));
    }
    let listed = listed_shapes();
    // The listed shapes narrowed: each (n, k) with m = 1 and each side of the trees' splits on m
    // below 64, where the CPU trees' guards send shapes narrower than any they trained on
    // (decision 051).
    let partners: std::collections::BTreeSet<(u64, u64)> = listed.iter().map(|&(_, n, k)| (n, k)).collect();
    let narrow = narrow_m_values();
    for (n, k) in partners {
        shapes.extend(narrow.iter().map(|&m| (m, n, k)));
    }
    shapes.extend(listed);
    shapes
}

/// 1, and each threshold below 64 of the trees' splits on m with the value above it.
fn narrow_m_values() -> Vec<u64> {
    let mut values = vec![1];
    for t in split_thresholds(&["m"]).into_iter().filter(|&t| t < 64) {
        values.extend([t, t + 1]);
    }
    values.sort_unstable();
    values.dedup();
    values
}

/// Every (class, precision) pair.
fn pairs() -> impl Iterator<Item = (DeviceClass, Precision)> {
    DeviceClass::ALL.into_iter().flat_map(|c| Precision::ALL.map(|p| (c, p)))
}

#[test]
fn generated_selectors_match_the_interpreter() {
    let shapes = grid_shapes(&grid_values());
    // A tree that an earlier pair's shares is checked again on a sample of the shapes only (its
    // selector is the same function, or else a copy that the sample tells apart).
    let mut checked: Vec<&fewfit_codegen::Tree> = Vec::new();
    for (class, precision) in pairs() {
        let select = class.selector(precision);
        let tree = tuning::tree(class, precision);
        let reachable = tuning::reachable(class, precision);
        let first = !checked.iter().any(|t| t.root == tree.root);
        checked.push(tree);
        let mut leaves_reached = std::collections::BTreeSet::new();
        let mut picked = std::collections::BTreeSet::new();
        // Each shape in every layout the kernels see, on devices of every size trained and some
        // between and beyond: the trees grow a subtree per layout and device size.
        let sizes = [0, 2, 3, 6, 12, 132, 1024];
        for f in shapes
            .iter()
            .flat_map(|&(m, n, k)| {
                (0..=2).flat_map(move |a| {
                    sizes.map(|units| ShapeFeatures::new(m, n, k).with_operands_along_k(a).with_compute_units(units))
                })
            })
            .step_by(if first { 1 } else { 97 })
        {
            let generated = select(&f);
            picked.insert(generated.index());
            // The first call builds `reachable` alone, so a pick outside it would compile mid-run.
            assert!(reachable.contains(&generated), "{class} {precision}: {generated} is not in `reachable`");
            let interpreted = tree.decide(&f);
            assert_eq!(generated.info().id, interpreted.variant(), "{class} {precision}, {f:?}");
            assert_eq!(tree.variant(&f), interpreted.variant(), "{class} {precision}, {f:?}");
            let e = explain(class, precision, f);
            assert_eq!((e.variant, e.precision), (generated, precision));
            assert_eq!(e.path, interpreted.path);
            leaves_reached.insert(interpreted.leaf);
        }
        if !first {
            continue;
        }
        // The comparison covers every leaf of the tree, so no branch of the generated code goes untested.
        let leaves = tree.leaf_variants().len();
        assert_eq!(
            leaves_reached.len(),
            leaves,
            "{class} {precision}: the grid reaches {} of {leaves} leaves",
            leaves_reached.len()
        );
        assert_eq!(
            picked.len(),
            reachable.len(),
            "{class} {precision}: every variant of `reachable` is picked somewhere"
        );
    }
}

#[test]
fn each_pair_runs_the_tree_its_selector_files_give_it() {
    let inputs = fewfit_codegen::read_inputs(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    for (class, precision) in pairs() {
        let shipped = inputs.tree(class.name(), precision.name()).unwrap();
        // The generated table holds the tree without its training statistics.
        assert_eq!(tuning::tree(class, precision).flatten(), shipped.flatten(), "{class} {precision}");
        assert_eq!(
            (tuning::tree(class, precision).class.as_str(), tuning::tree(class, precision).precision.as_str()),
            (class.name(), precision.name())
        );
    }
    assert_eq!(
        Precision::ALL.map(Precision::name),
        fewfit_codegen::PRECISIONS,
        "the generated table is indexed by `Precision as usize`"
    );
    assert_eq!(DeviceClass::ALL.map(DeviceClass::name), fewfit_codegen::CLASSES);
}

#[test]
fn every_leaf_names_a_shipped_variant_and_every_class_uses_the_set() {
    for (class, precision) in pairs() {
        for leaf in tuning::tree(class, precision).leaf_variants() {
            assert!(VariantId::from_id(leaf).is_some(), "{class} {precision}: {leaf}");
        }
    }
}

#[test]
fn explanation_prints_the_path() {
    let e = explain(DeviceClass::NvidiaGpu, Precision::F16, ShapeFeatures::new(4096, 1, 4096));
    let text = e.to_string();
    assert!(text.starts_with("class nvidia-gpu, f16: M=4096 N=1 K=4096"), "{text}");
    assert!(!e.path.is_empty(), "{text}");
    for step in &e.path {
        // Each split names the feature, the shape's value of it (its true value) and the way taken.
        assert_eq!(Some(step.value), e.features.get(&step.feature), "{text}");
        assert_eq!(step.went_le, step.value <= step.threshold, "{text}");
        assert!(text.contains(&format!("{} = {}", step.feature, step.value)), "{text}");
    }
    assert!(text.contains(e.variant.info().name));
}
