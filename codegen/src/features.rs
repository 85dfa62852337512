//! The features of a GEMM shape that selector trees split on. Training and run time both call
//! [`ShapeFeatures::new`], so a tree always sees the features it was trained on.

use serde::{Deserialize, Serialize};

/// The features of a problem as the kernel sees it: M rows and N columns of column-major C, depth K.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShapeFeatures {
    /// Rows of C.
    pub m: u64,
    /// Columns of C.
    pub n: u64,
    /// Depth of the product.
    pub k: u64,
    /// Elements of C: M·N.
    pub mn: u64,
    /// Multiply-adds: M·N·K.
    pub mnk: u64,
    /// The smaller of M and N (1 for GEMV-like shapes).
    pub min_mn: u64,
    /// The larger of M and N.
    pub max_mn: u64,
    /// K per element of C in 1/1024ths, rounded down: 1024·K / max(M·N, 1). Large for split-K
    /// and GEMV shapes; it tells apart shapes of equal M·N·K that M·N and K alone split poorly.
    pub k_per_mn_1024: u64,
    /// Output tiles of 128×128 covering C: ⌈M/128⌉·⌈N/128⌉, the work-groups of a large-tile
    /// kernel. Few such tiles leave a GPU's compute units idle (split-K or smaller tiles win);
    /// many make large tiles efficient. Unlike M·N it counts the padding of partial tiles.
    pub tiles_128: u64,
    /// Output tiles of 32×32 covering C: ⌈M/32⌉·⌈N/32⌉, the work-groups of a small-tile kernel.
    pub tiles_32: u64,
    /// M per N in 1/1024ths, rounded down: 1024·M / max(N, 1). The aspect of C (1024 when
    /// square), which favours work-group tiles of a matching aspect, such as 128×32 for tall C.
    pub m_per_n_1024: u64,
    /// Output tiles of 64×64 covering C: ⌈M/64⌉·⌈N/64⌉, the work-groups of a mid-tile kernel.
    pub tiles_64: u64,
    /// The area of C's 128×128 tiles per area of its 64×64 tiles, in 1/1024ths: 4096·tiles_128 /
    /// tiles_64. 1024 when 128-wide tiles pad C no more than 64-wide ones (M and N multiples of 128,
    /// or large); more where they waste a part of a tile row the smaller ones do not (1228 for
    /// 4096×300, whose 128-wide tiles cover 384 columns and 64-wide ones 320).
    pub area_128_per_64_1024: u64,
    /// The area of C's 64×64 tiles per area of its 32×32 tiles, in 1/1024ths: 4096·tiles_64 / tiles_32.
    pub area_64_per_32_1024: u64,
    /// How many of the operands are stored contiguous along K in the kernel's view (0-2): 1 for
    /// NN in either storage order, 2 for row-major NT (PyTorch's `Linear`), 0 for row-major TN.
    /// Kernels that copy slices as stored, and the direct kernel, run at other speeds when an
    /// operand is contiguous along K.
    pub operands_along_k: u64,
    /// The device's compute units (`CL_DEVICE_MAX_COMPUTE_UNITS`: a CPU's cores or threads, a GPU's
    /// SMs or CUs), 0 where unknown. A CPU of 16 cores wants other blocks than one of 2 for the
    /// same shape (fewer, larger launches fill it); trees trained on one kind of device never split
    /// on it, and the `default` tree is trained with it unknown.
    pub compute_units: u64,
}

/// Tiles of `t`×`t` covering an `m`×`n` C: ⌈m/t⌉·⌈n/t⌉.
fn tiles(m: u64, n: u64, t: u64) -> u64 {
    m.div_ceil(t).saturating_mul(n.div_ceil(t))
}

impl ShapeFeatures {
    /// The number of features.
    pub const COUNT: usize = 16;

    /// The names of the features, in a stable order: the names trees may split on.
    pub const NAMES: [&'static str; Self::COUNT] = [
        "m",
        "n",
        "k",
        "mn",
        "mnk",
        "min_mn",
        "max_mn",
        "k_per_mn_1024",
        "tiles_128",
        "tiles_32",
        "m_per_n_1024",
        "tiles_64",
        "area_128_per_64_1024",
        "area_64_per_32_1024",
        "operands_along_k",
        "compute_units",
    ];

    /// The features of an M×N×K problem stored as NN (one operand contiguous along K), on a device
    /// of unknown size; see [`ShapeFeatures::with_operands_along_k`] for other layouts and
    /// [`ShapeFeatures::with_compute_units`] for the device.
    pub fn new(m: u64, n: u64, k: u64) -> ShapeFeatures {
        let mn = m.saturating_mul(n);
        let (tiles_128, tiles_64, tiles_32) = (tiles(m, n, 128), tiles(m, n, 64), tiles(m, n, 32));
        ShapeFeatures {
            m,
            n,
            k,
            mn,
            mnk: mn.saturating_mul(k),
            min_mn: m.min(n),
            max_mn: m.max(n),
            k_per_mn_1024: k.saturating_mul(1024) / mn.max(1),
            tiles_128,
            tiles_32,
            m_per_n_1024: m.saturating_mul(1024) / n.max(1),
            tiles_64,
            area_128_per_64_1024: tiles_128.saturating_mul(4096) / tiles_64.max(1),
            area_64_per_32_1024: tiles_64.saturating_mul(4096) / tiles_32.max(1),
            operands_along_k: 1,
            compute_units: 0,
        }
    }

    /// The same problem with `count` operands (0-2) stored contiguous along K.
    pub fn with_operands_along_k(self, count: u64) -> ShapeFeatures {
        ShapeFeatures { operands_along_k: count, ..self }
    }

    /// The same problem on a device of `count` compute units (0: unknown).
    pub fn with_compute_units(self, count: u64) -> ShapeFeatures {
        ShapeFeatures { compute_units: count, ..self }
    }

    /// The features in the order of [`ShapeFeatures::NAMES`].
    pub fn values(&self) -> [u64; Self::COUNT] {
        [
            self.m,
            self.n,
            self.k,
            self.mn,
            self.mnk,
            self.min_mn,
            self.max_mn,
            self.k_per_mn_1024,
            self.tiles_128,
            self.tiles_32,
            self.m_per_n_1024,
            self.tiles_64,
            self.area_128_per_64_1024,
            self.area_64_per_32_1024,
            self.operands_along_k,
            self.compute_units,
        ]
    }

    /// One feature by name, or `None` for an unknown name.
    pub fn get(&self, name: &str) -> Option<u64> {
        Self::NAMES.iter().position(|&n| n == name).map(|i| self.values()[i])
    }
}

/// The kernel's view (rows, columns) of C for a BLAS call: row-major C is computed as its
/// column-major transpose, so M and N swap.
pub fn kernel_dims(row_major: bool, m: u64, n: u64) -> (u64, u64) {
    if row_major {
        (n, m)
    } else {
        (m, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_features() {
        let f = ShapeFeatures::new(8, 4096, 4096);
        assert_eq!(f.mn, 8 * 4096);
        assert_eq!(f.min_mn, 8);
        assert_eq!(f.max_mn, 4096);
        assert_eq!(f.k_per_mn_1024, 128);
        assert_eq!(ShapeFeatures::new(4096, 4096, 4096).k_per_mn_1024, 0);
        assert_eq!(ShapeFeatures::new(256, 256, 4096).k_per_mn_1024, 64);
        assert_eq!(ShapeFeatures::new(2, 2, 100_000).k_per_mn_1024, 25_600_000);
        assert_eq!(f.get("mnk"), Some(8 * 4096 * 4096));
        assert_eq!(f.get("nope"), None);
    }

    #[test]
    fn tile_and_aspect_features() {
        let f = ShapeFeatures::new(8, 4096, 4096);
        assert_eq!((f.tiles_128, f.tiles_32), (32, 128));
        assert_eq!(f.m_per_n_1024, 2);
        // Partial tiles count whole: 129 rows need two 128-row tiles.
        let g = ShapeFeatures::new(129, 300, 64);
        assert_eq!(g.tiles_128, 2 * 3);
        assert_eq!(g.tiles_32, 5 * 10);
        assert_eq!(g.tiles_64, 3 * 5);
        assert_eq!(g.m_per_n_1024, 129 * 1024 / 300);
        let square = ShapeFeatures::new(4096, 4096, 1);
        assert_eq!((square.tiles_128, square.tiles_32, square.m_per_n_1024), (1024, 16384, 1024));
        assert_eq!(ShapeFeatures::new(1, 1, 1).tiles_128, 1);
        assert_eq!(g.get("tiles_128"), Some(6));
        assert_eq!(g.get("m_per_n_1024"), Some(g.m_per_n_1024));
    }

    #[test]
    fn tile_area_features() {
        // 4096 x 300: 32 x 3 tiles of 128 (384 columns), 64 x 5 of 64 (320), 128 x 10 of 32 (320).
        let f = ShapeFeatures::new(4096, 300, 1);
        assert_eq!(f.area_128_per_64_1024, 4096 * 96 / 320);
        assert_eq!(f.area_64_per_32_1024, 1024);
        assert_eq!(ShapeFeatures::new(4096, 256, 1).area_128_per_64_1024, 1024);
        // C inside one tile of each size: the larger tile's area over the smaller one's.
        let one = ShapeFeatures::new(20, 20, 1);
        assert_eq!((one.area_128_per_64_1024, one.area_64_per_32_1024), (4096, 4096));
        assert_eq!(ShapeFeatures::new(0, 7, 1).area_128_per_64_1024, 0);
    }

    #[test]
    fn operands_along_k_default_to_nn() {
        let f = ShapeFeatures::new(8, 4096, 4096);
        assert_eq!(f.operands_along_k, 1);
        let nt = f.with_operands_along_k(2);
        assert_eq!(nt.get("operands_along_k"), Some(2));
        assert_eq!(ShapeFeatures { operands_along_k: 1, ..nt }, f);
    }

    #[test]
    fn compute_units_default_to_unknown() {
        let f = ShapeFeatures::new(8, 4096, 4096);
        assert_eq!(f.compute_units, 0);
        let xeon = f.with_compute_units(16);
        assert_eq!(xeon.get("compute_units"), Some(16));
        assert_eq!(xeon.with_compute_units(0), f);
    }

    #[test]
    fn names_values_and_get_agree() {
        let f = ShapeFeatures::new(123, 45, 678);
        assert_eq!(ShapeFeatures::NAMES.len(), ShapeFeatures::COUNT);
        for (name, value) in ShapeFeatures::NAMES.iter().zip(f.values()) {
            assert_eq!(f.get(name), Some(value), "{name}");
        }
        let mut names = ShapeFeatures::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ShapeFeatures::COUNT);
    }

    #[test]
    fn zero_sized_shapes_do_not_divide_by_zero() {
        let f = ShapeFeatures::new(0, 5, 7);
        assert_eq!(f.k_per_mn_1024, 7 * 1024);
        assert_eq!((f.tiles_128, f.tiles_32, f.m_per_n_1024), (0, 0, 0));
        assert_eq!(ShapeFeatures::new(5, 0, 7).m_per_n_1024, 5 * 1024);
    }

    #[test]
    fn huge_shapes_saturate() {
        let f = ShapeFeatures::new(u64::MAX, u64::MAX, 1);
        assert_eq!(f.tiles_32, u64::MAX);
        assert_eq!(f.m_per_n_1024, 1); // 1024·M saturates
    }
}
