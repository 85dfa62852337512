//! The generated `select_*` functions agree with a plain interpreter of the same JSON trees on a
//! grid of shapes that straddles every threshold, and `explain` reports the same path.

use fewfit::codegen::tree::Node;
use fewfit::codegen::ShapeFeatures;
use fewfit::{explain, selection, DeviceClass, VariantId};

/// Values of m, n and k: small, powers of two and their neighbours, and each threshold of the
/// trees' m, n, k, min_mn and max_mn splits with its neighbours.
fn grid_values() -> Vec<u64> {
    let mut values: Vec<u64> = vec![0, 1, 2, 3, 5, 7, 16, 17, 100, 1000, 4097, 100_000];
    for p in 0..16 {
        values.extend([(1 << p) - 1, 1 << p, (1 << p) + 1]);
    }
    fn thresholds(node: &Node, out: &mut Vec<u64>) {
        if let Node::Split { feature, threshold, le, gt, .. } = node {
            if ["m", "n", "k", "min_mn", "max_mn"].contains(&feature.as_str()) {
                out.extend([threshold.saturating_sub(1), *threshold, threshold + 1]);
            }
            thresholds(le, out);
            thresholds(gt, out);
        }
    }
    for class in DeviceClass::ALL {
        thresholds(&selection::tree(class).root, &mut values);
    }
    values.sort_unstable();
    values.dedup();
    values
}

#[test]
fn generated_selectors_match_the_interpreter() {
    let values = grid_values();
    let mut checked = 0;
    for class in DeviceClass::ALL {
        let select = class.selector();
        let tree = selection::tree(class);
        for &m in &values {
            for &n in &values {
                for &k in values.iter().step_by(3) {
                    let f = ShapeFeatures::new(m, n, k);
                    let generated = select(&f);
                    let interpreted = tree.decide(&f);
                    assert_eq!(generated.info().id, interpreted.variant(), "class {class}, {f:?}");
                    let e = explain(class, f);
                    assert_eq!(e.variant, generated);
                    assert_eq!(e.path, interpreted.path);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} shapes checked");
}

#[test]
fn every_leaf_names_a_shipped_variant_and_every_class_uses_the_set() {
    for class in DeviceClass::ALL {
        for leaf in selection::tree(class).leaf_variants() {
            assert!(VariantId::from_id(leaf).is_some(), "{class}: {leaf}");
        }
    }
}

#[test]
fn explanation_prints_the_path() {
    let e = explain(DeviceClass::NvidiaGpu, ShapeFeatures::new(4096, 1, 4096));
    let text = e.to_string();
    assert!(!e.path.is_empty(), "{text}");
    for step in &e.path {
        // Each split names the feature, the shape's value of it (its true value) and the way taken.
        assert_eq!(Some(step.value), e.features.get(&step.feature), "{text}");
        assert_eq!(step.went_le, step.value <= step.threshold, "{text}");
        assert!(text.contains(&format!("{} = {}", step.feature, step.value)), "{text}");
    }
    assert!(text.contains(e.variant.info().id));
}
