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
}

impl ShapeFeatures {
    /// The names of the features, in a stable order: the names trees may split on.
    pub const NAMES: [&'static str; 8] = ["m", "n", "k", "mn", "mnk", "min_mn", "max_mn", "k_per_mn_1024"];

    /// The features of an M×N×K problem.
    pub fn new(m: u64, n: u64, k: u64) -> ShapeFeatures {
        let mn = m.saturating_mul(n);
        ShapeFeatures {
            m,
            n,
            k,
            mn,
            mnk: mn.saturating_mul(k),
            min_mn: m.min(n),
            max_mn: m.max(n),
            k_per_mn_1024: k.saturating_mul(1024) / mn.max(1),
        }
    }

    /// The features in the order of [`ShapeFeatures::NAMES`].
    pub fn values(&self) -> [u64; 8] {
        [self.m, self.n, self.k, self.mn, self.mnk, self.min_mn, self.max_mn, self.k_per_mn_1024]
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
    fn zero_sized_shapes_do_not_divide_by_zero() {
        let f = ShapeFeatures::new(0, 5, 7);
        assert_eq!(f.k_per_mn_1024, 7 * 1024);
    }
}
