//! Latency of selection alone, per call, over a stream of varied shapes (so branch prediction does
//! not flatter it): the generated nested `if`s, a plain interpreter of the same JSON tree, and a
//! hash map from exact shape to variant; each device class's f32 tree.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fewfit::tuning;
use fewfit::{DeviceClass, Precision, VariantId};
use fewfit_codegen::ShapeFeatures;
use rand::{rngs::StdRng, RngExt, SeedableRng};

/// 4096 shapes drawn log-uniformly from 1 to 16384 per dimension, with a fixed seed.
fn shapes() -> Vec<(u64, u64, u64)> {
    let mut rng = StdRng::seed_from_u64(42);
    let mut dim = || 2f64.powf(rng.random_range(0.0..14.0)).round() as u64;
    (0..4096).map(|_| (dim(), dim(), dim())).collect()
}

fn bench(c: &mut Criterion) {
    let shapes = shapes();
    let mut group = c.benchmark_group("select");
    group.throughput(Throughput::Elements(shapes.len() as u64));
    for class in DeviceClass::ALL {
        let select = class.selector(Precision::F32);
        let tree = tuning::tree(class, Precision::F32);
        let table: HashMap<(u64, u64, u64), VariantId> =
            shapes.iter().map(|&(m, n, k)| ((m, n, k), select(&ShapeFeatures::new(m, n, k)))).collect();
        group.bench_function(format!("generated/{class}"), |b| {
            b.iter(|| {
                for &(m, n, k) in &shapes {
                    black_box(select(&ShapeFeatures::new(black_box(m), n, k)));
                }
            })
        });
        group.bench_function(format!("interpreter/{class}"), |b| {
            b.iter(|| {
                for &(m, n, k) in &shapes {
                    black_box(tree.variant(&ShapeFeatures::new(black_box(m), n, k)));
                }
            })
        });
        group.bench_function(format!("hashmap/{class}"), |b| {
            b.iter(|| {
                for &(m, n, k) in &shapes {
                    black_box(table.get(&(black_box(m), n, k)));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
