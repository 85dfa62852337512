//! The launch policy: how a launch runs a built variant on a problem. Whether it first copies an
//! operand contiguous along K transposed, whether the panel family packs A, how far it splits K
//! (split-K) or streams it (stream-K), and how the device adds the splits into C; with the
//! constants fitted to measurements (docs/PERFORMANCE.md). A variant's [`Geometry`] (from
//! fewfit-codegen) says what its kernel can do; these rules, which only the runtime applies, say
//! what a launch does.

use crate::codegen::params::SplitRule;
use crate::codegen::{Geometry, PackA};
use crate::device::{DeviceClass, DeviceInfo};

/// The multiply-adds per batch item (M·N·K) from which a PA = 2 launch packs A: 2²⁹. Below it the
/// copy cost more than it saved on the training shapes of two Intel AVX-512 CPUs: the set's
/// packing block (64 × 64, KC 256) with PA = 1 ran 0.98× and 0.95× the speed of its PA = 0 twin
/// below 2·10⁹ flops and 1.11× and 1.12× above, and 2²⁹ lies among the best thresholds on both
/// (docs/PERFORMANCE.md, "A packed where the launch is large").
pub const PACK_A_MIN_MADDS: usize = 1 << 29;

/// The least other dimension of C (N for A, M for B) from which a launch copies an operand
/// contiguous along K transposed first ([`LaunchPolicy::transposes_first`]).
pub const TRANSPOSE_MIN_OTHER: usize = 1024;

/// The least other dimension of C (N) from which a launch copies an A of at least
/// [`TRANSPOSE_LONG_ROWS`] rows (M) transposed first. On the H200 such copies paid from 512 (the
/// kernel's A is the weight of a language model's head in row-major NT at 512-1,000 tokens:
/// 1.04-1.12× by wall time); copies of an A of 4,096 or 11,008 rows, and of a B of 16,384-32,768
/// rows, did not (docs/PERFORMANCE.md, "The copy where C's other dimension is 512-1,023").
pub const TRANSPOSE_MIN_OTHER_LONG: usize = 512;

/// The fewest rows of an A that [`TRANSPOSE_MIN_OTHER_LONG`] applies to.
pub const TRANSPOSE_LONG_ROWS: usize = 16384;

/// The fewest multiply-adds per batch item (M·N·K) from which a launch copies an operand
/// contiguous along K transposed first ([`LaunchPolicy::transposes_first`]).
pub const TRANSPOSE_MIN_MADDS: usize = 1 << 33;

/// How a device adds each split's product into C, which sets how far KSPLIT = 0 splits K.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicAdd {
    /// One fire-and-forget reduction per element: PTX `red.global.add` on NVIDIA GPUs. There,
    /// split 0 of each tile stores C (alpha times its part plus beta times C) and then lets the
    /// other splits add, so a split launch is one kernel.
    Reduction,
    /// A compare-and-swap loop per element (OpenCL 1.2 has no floating-point atomic add); every
    /// split adds, after a `scale_c` kernel has set C = beta * C.
    CompareAndSwap,
}

impl AtomicAdd {
    /// The OpenCL build option that selects it in kernels/xgemm.cl (none for the portable loop).
    pub fn build_option(self) -> &'static str {
        match self {
            AtomicAdd::Reduction => "-DNVIDIA_PTX_RED",
            AtomicAdd::CompareAndSwap => "",
        }
    }

    /// Whether a launch that splits K first scales C by beta in a kernel of its own.
    pub fn scales_c_first(self) -> bool {
        self == AtomicAdd::CompareAndSwap
    }

    /// Per compute unit: the work-groups and the elements of C (padded to tiles) times splits up
    /// to which KSPLIT = 0 keeps splitting K; the least depth of K per split, also per work-group;
    /// and the most splits. With reductions, fitted to the H200 sweeps of the DB = 3 kernels with
    /// every split of 1-16 measured (v17, 1,251 (variant, shape) pairs; docs/PERFORMANCE.md,
    /// 2026-11-26): within 1.051x of the best fixed split per pair (under
    /// [`SplitRule::AtomicAddCost`] they apply past [`SPLITS_ON_A_FULL_DEVICE`] splits only), and up
    /// to 64 splits while few work-groups run (a tiny C with a huge K: 3x faster at 64x64x16384 in
    /// the split-compare of 2026-11-24). With compare-and-swap, whose collisions make each split
    /// dearer, within 1.046x of the best fixed split on the fully measured pairs of the v6 sweep.
    fn split_limits(self) -> SplitLimits {
        match self {
            AtomicAdd::Reduction => SplitLimits {
                groups_per_unit: 64,
                work_items_per_unit: usize::MAX / 2,
                c_per_unit: 131_072,
                min_depth: 64,
                depth_per_group: 2,
                max_splits: 64,
                few_groups_per_unit: 4,
                min_macs: 0,
            },
            AtomicAdd::CompareAndSwap => SplitLimits {
                groups_per_unit: 12,
                work_items_per_unit: usize::MAX / 2,
                c_per_unit: 16_384,
                min_depth: 384,
                depth_per_group: 0,
                max_splits: SPLITS_ON_A_FULL_DEVICE,
                few_groups_per_unit: 0,
                min_macs: 0,
            },
        }
    }
}

/// How split-K adds into C on a device: PTX reductions on NVIDIA GPUs, else compare-and-swap.
pub(crate) fn atomic_add(info: &DeviceInfo) -> AtomicAdd {
    match info.class {
        DeviceClass::NvidiaGpu => AtomicAdd::Reduction,
        DeviceClass::Cpu | DeviceClass::Gpu | DeviceClass::Default => AtomicAdd::CompareAndSwap,
    }
}

/// How far KSPLIT = 0 splits K ([`LaunchPolicy::splits_for`]).
struct SplitLimits {
    /// Work-groups per compute unit.
    groups_per_unit: usize,
    /// Work-items per compute unit.
    work_items_per_unit: usize,
    /// Elements of C (padded to tiles) times splits per compute unit.
    c_per_unit: usize,
    /// The least depth of K per split.
    min_depth: usize,
    /// The least depth of K per split for each work-group of the unsplit launch (more tiles, fewer
    /// splits: their adds into C grow with the tiles).
    depth_per_group: usize,
    /// The most splits.
    max_splits: usize,
    /// Past [`SPLITS_ON_A_FULL_DEVICE`] splits, work-groups per compute unit (so only a tiny C
    /// with a huge K splits more).
    few_groups_per_unit: usize,
    /// The fewest multiply-adds (M x N x K) per split.
    min_macs: usize,
}

/// The limits of [`SplitRule::FillCores`]: at most one work-group per core, at least 512 of K (and
/// KC) and 2²⁰ multiply-adds per split (about 20 µs of a core, against the launch of `scale_c`),
/// at most [`SPLITS_ON_A_FULL_DEVICE`] splits; C is not limited. Measured on PoCL with 2 cores
/// (docs/PERFORMANCE.md, "Split-K on CPUs").
const FILL_CORES_LIMITS: SplitLimits = SplitLimits {
    groups_per_unit: 1,
    work_items_per_unit: usize::MAX / 2,
    c_per_unit: usize::MAX / 2,
    min_depth: 512,
    depth_per_group: 0,
    max_splits: SPLITS_ON_A_FULL_DEVICE,
    few_groups_per_unit: 0,
    min_macs: 1 << 20,
};

/// The limits of [`SplitRule::FillDevice`]: at most 512 work-items per compute unit, at least 2,048
/// of K per split, at most [`SPLITS_ON_A_FULL_DEVICE`] splits; C is not limited (a few rows).
/// Fitted on the H200 to the set's four direct variants with 1-16 splits each on the 161 shapes
/// with M <= 16 of `train.txt`, `unseen.txt` and `train-trees.txt`, NN and row-major NT (2026-11-29,
/// docs/PERFORMANCE.md "Split-K in the direct kernel"): 1.032x faster than not splitting over the
/// 1,288 pairs, each variant 1.007-1.074x in each layout; 2 or 4 work-groups per compute unit
/// gain more on some variants but lose up to 35 % on others.
const FILL_DEVICE_LIMITS: SplitLimits = SplitLimits {
    groups_per_unit: usize::MAX / 2,
    work_items_per_unit: 512,
    c_per_unit: usize::MAX / 2,
    min_depth: 2048,
    depth_per_group: 0,
    max_splits: SPLITS_ON_A_FULL_DEVICE,
    few_groups_per_unit: 0,
    min_macs: 0,
};

/// How KSPLIT = 0 chooses from 1 to [`SPLITS_ON_A_FULL_DEVICE`] splits under
/// [`SplitRule::AtomicAddCost`] where the device adds by reductions: the splits of least modelled
/// time. A launch's time is that of its most loaded compute unit, which holds ⌈work-groups ×
/// splits / compute units⌉ work-groups; each runs K / splits deep plus a fixed cost, and each
/// work-group beyond the first on a unit adds a share of that time (they overlap but contend); a
/// split launch adds a cost per work-group for its adds into C. Fitted on the H200 sweeps of the
/// DB = 0, 1 and 3 tiles with every split of 1-16 measured (v17, 1,680 (variant, shape) pairs;
/// docs/decisions/009-ksplit0-split-rule.md, fitted by scripts/fit_split_cost.py at 04d1d03): 1.024x of the best split per pair
/// (1.028x on held-out shapes), where the limits of 2026-11-26 gave 1.052x (1.050x).
const REDUCTION_SPLIT_COST: SplitCost =
    SplitCost { share_per_extra_group: 0.7, fixed_depth: 64.0, add_cost: 16.0, min_depth: 32 };

/// The cost model of [`REDUCTION_SPLIT_COST`]; a cost is a depth of K run by one work-group.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SplitCost {
    /// The share of a work-group's time that each further work-group on its compute unit adds.
    share_per_extra_group: f64,
    /// A work-group's fixed cost, as a depth of K.
    fixed_depth: f64,
    /// The cost of a split launch's adds into C, per work-group of the most loaded compute unit.
    add_cost: f64,
    /// The least depth of K per split (and at least one step of the kernel's K loop).
    min_depth: usize,
}

impl SplitCost {
    /// The modelled time of `groups` work-groups (tiles times batch) each split `splits` ways
    /// along a depth `k` on `compute_units`.
    fn time(&self, groups: usize, splits: usize, k: usize, compute_units: usize) -> f64 {
        let resident = groups.saturating_mul(splits).div_ceil(compute_units.max(1)) as f64;
        let adds = if splits > 1 { self.add_cost * resident } else { 0.0 };
        (k as f64 / splits as f64 + self.fixed_depth) * (1.0 + (resident - 1.0) * self.share_per_extra_group) + adds
    }

    /// The splits of 1, 2, 4, ... [`SPLITS_ON_A_FULL_DEVICE`] of least [`SplitCost::time`], each
    /// at least `min_depth` and `k_step` deep; the fewer on a tie.
    fn cheapest_splits(&self, groups: usize, k: usize, compute_units: usize, k_step: usize) -> usize {
        let min_depth = self.min_depth.max(k_step);
        let candidates = std::iter::successors(Some(1usize), |s| Some(s * 2))
            .take_while(|&s| s <= SPLITS_ON_A_FULL_DEVICE && (s == 1 || k / s >= min_depth));
        let mut best = (f64::INFINITY, 1);
        for s in candidates {
            let t = self.time(groups, s, k, compute_units);
            if t < best.0 * (1.0 - 1e-9) {
                best = (t, s);
            }
        }
        best.1
    }
}

/// The most splits KSPLIT = 0 takes whatever the work-groups (up to the other limits).
const SPLITS_ON_A_FULL_DEVICE: usize = 16;

/// Past [`SPLITS_ON_A_FULL_DEVICE`] splits, the least depth of K per split (the depth the
/// split-compare of 2026-11-24 measured there; 64 made 49x512x4608 1.2x slower on the H200 on
/// 2026-11-26).
const FEW_GROUPS_MIN_DEPTH: usize = 128;

/// The fewest steps of K (of KWG) per work-group of a stream-K launch: fewer steps would not
/// outweigh the adds into C of a work-group's share.
const STREAM_K_MIN_STEPS: usize = 8;

/// The share, in percent, of a grid's waves of work-groups that its tiles must fill, at some
/// occupancy from 1 to SK work-groups per compute unit, for a variant with SK > 0 to launch the
/// grid rather than stream-K. On an H100 (2026-11-26, the set's 128 x 128 tile, one work-group per
/// compute unit, with SK = 2 always streaming against SK = 0 on 24 shapes; docs/PERFORMANCE.md)
/// stream-K ran at 1.10-3.15x where the grid filled 27-81 % of its waves at one work-group per
/// unit, at 1.02x at 87 %, and at 0.89-0.94x at 93-97 %.
const STREAM_K_BELOW_FILL_PERCENT: usize = 85;

/// The launch rules of a variant's [`Geometry`]: what a launch of a problem does with it.
pub trait LaunchPolicy {
    /// Whether a launch of `m` × `n` × `k` (one batch item) first copies its operand A (`operand`
    /// 0, M x K) or B (1, K x N), contiguous along K, into a scratch buffer contiguous along M or N:
    /// where the groups would store that operand transposed into local memory, the other dimension
    /// of C is at least [`TRANSPOSE_MIN_OTHER`] (each element of the copy is read by that many
    /// multiply-adds; [`TRANSPOSE_MIN_OTHER_LONG`] for an A of [`TRANSPOSE_LONG_ROWS`] rows or
    /// more) and the launch holds at least [`TRANSPOSE_MIN_MADDS`] multiply-adds.
    fn transposes_first(&self, operand: usize, m: usize, n: usize, k: usize) -> bool;

    /// Whether a launch of `m` × `n` × `k` (one batch item) runs the program that packs A.
    fn packs_a(&self, m: usize, n: usize, k: usize) -> bool;

    /// Splits of K for an M x N x K problem of `batch` products on a device of `compute_units` that
    /// adds into C by `atomic_add`: KSPLIT itself when fixed; for KSPLIT = 0, the most of 1, 2, 4, 8,
    /// ... within the limits of the [`SplitRule`] on work-groups, on C times splits, on depth of K per
    /// split (at least, and per work-group) and on splits. Splitting pays while too few tiles fill
    /// the device, and its adds into C (and the scaling of C, where there is one) cost in
    /// proportion to C times the splits. In 16-bit storage the same rules apply (and to
    /// [`LaunchPolicy::stream_k_groups`]): the splits add into an f32 workspace, and a further
    /// kernel adds that into C, one more pass over C, which is small where a launch splits (M x N
    /// small against K).
    fn splits_for(
        &self,
        m: usize,
        n: usize,
        k: usize,
        batch: usize,
        compute_units: usize,
        atomic_add: AtomicAdd,
    ) -> usize;

    /// The work-groups of a stream-K launch of `batch` M x N x K products on a device of
    /// `compute_units`, or `None` to launch one work-group per tile. With SK > 0 it streams where a
    /// grid would fill less than `STREAM_K_BELOW_FILL_PERCENT` of its waves (its last wave mostly
    /// idle) whether 1, 2, ... or SK work-groups run per compute unit (the occupancy is not known to
    /// the host): SK work-groups per compute unit, or fewer where the tiles' steps of K would give
    /// each fewer than `STREAM_K_MIN_STEPS`; a grid where those fewer are no more than the tiles.
    fn stream_k_groups(&self, m: usize, n: usize, k: usize, batch: usize, compute_units: usize) -> Option<usize>;
}

impl LaunchPolicy for Geometry {
    fn transposes_first(&self, operand: usize, m: usize, n: usize, k: usize) -> bool {
        let other = if operand == 0 { n } else { m };
        let long_a = operand == 0 && m >= TRANSPOSE_LONG_ROWS;
        let min_other = if long_a { TRANSPOSE_MIN_OTHER_LONG } else { TRANSPOSE_MIN_OTHER };
        self.transposing_stores[operand]
            && other >= min_other
            && m.saturating_mul(n).saturating_mul(k) >= TRANSPOSE_MIN_MADDS
    }

    fn packs_a(&self, m: usize, n: usize, k: usize) -> bool {
        match self.pack_a {
            PackA::Never => false,
            PackA::Always => true,
            PackA::WhereLarge => m.saturating_mul(n).saturating_mul(k) >= PACK_A_MIN_MADDS,
        }
    }

    fn splits_for(
        &self,
        m: usize,
        n: usize,
        k: usize,
        batch: usize,
        compute_units: usize,
        atomic_add: AtomicAdd,
    ) -> usize {
        if self.k_splits != 0 {
            return self.k_splits;
        }
        let limits = match self.split_rule {
            SplitRule::AtomicAddLimits | SplitRule::AtomicAddCost => atomic_add.split_limits(),
            SplitRule::FillDevice => FILL_DEVICE_LIMITS,
            // A CPU's splits take whole steps of K (its ranges are multiples of KC).
            SplitRule::FillCores => {
                SplitLimits { min_depth: FILL_CORES_LIMITS.min_depth.max(self.k_step), ..FILL_CORES_LIMITS }
            }
        };
        let groups = m.div_ceil(self.tile[0]) * n.div_ceil(self.tile[1]) * batch;
        let work_items = groups * self.local[0] * self.local[1];
        let padded_c = groups * self.tile[0] * self.tile[1];
        let mut splits = 1;
        if (self.split_rule, atomic_add) == (SplitRule::AtomicAddCost, AtomicAdd::Reduction) {
            splits = REDUCTION_SPLIT_COST.cheapest_splits(groups, k, compute_units, self.k_step);
            if splits < SPLITS_ON_A_FULL_DEVICE {
                return splits;
            }
        }
        while splits < limits.max_splits
            && groups * splits * 2 <= limits.groups_per_unit.saturating_mul(compute_units)
            && work_items.saturating_mul(splits * 2) <= limits.work_items_per_unit.saturating_mul(compute_units)
            && padded_c.saturating_mul(splits * 2) <= limits.c_per_unit.saturating_mul(compute_units)
            && k / (splits * 2) >= limits.min_depth.max(limits.depth_per_group * groups)
            && m.saturating_mul(n).saturating_mul(k).saturating_mul(batch) / (splits * 2) >= limits.min_macs
            && (splits < SPLITS_ON_A_FULL_DEVICE
                || (groups * splits * 2 <= limits.few_groups_per_unit * compute_units
                    && k / (splits * 2) >= FEW_GROUPS_MIN_DEPTH))
        {
            splits *= 2;
        }
        splits
    }

    fn stream_k_groups(&self, m: usize, n: usize, k: usize, batch: usize, compute_units: usize) -> Option<usize> {
        let most = self.stream_k * compute_units;
        if most == 0 {
            return None;
        }
        let tiles = m.div_ceil(self.tile[0]) * n.div_ceil(self.tile[1]) * batch;
        let fills_waves_of = |wave: usize| tiles * 100 >= tiles.div_ceil(wave) * wave * STREAM_K_BELOW_FILL_PERCENT;
        let occupancies = std::iter::successors(Some(1), |j| Some(j * 2)).take_while(|&j| j <= self.stream_k);
        let fills_its_waves = occupancies.map(|j| j * compute_units).any(fills_waves_of);
        let groups = most.min(tiles.saturating_mul(k.div_ceil(self.k_step)) / STREAM_K_MIN_STEPS);
        (!fills_its_waves && (groups == most || groups > tiles)).then_some(groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::{Family, Variant};

    fn xgemm() -> Variant {
        Variant::new(
            Family::Xgemm,
            &[
                ("MWG", 64),
                ("NWG", 64),
                ("KWG", 16),
                ("MDIMC", 16),
                ("NDIMC", 16),
                ("MDIMA", 16),
                ("NDIMB", 16),
                ("KWI", 2),
                ("VWM", 2),
                ("VWN", 2),
                ("STRM", 0),
                ("STRN", 0),
                ("SA", 1),
                ("SB", 1),
                ("VWK", 1),
                ("DB", 0),
                ("KSPLIT", 1),
                ("SWZ", 0),
                ("SK", 0),
                ("RP", 0),
            ],
        )
    }

    #[test]
    fn chosen_splits_fill_the_device_without_splitting_k_too_thin() {
        let mut v = xgemm();
        v.params.insert("KSPLIT".into(), 0);
        assert_eq!(v.validate(), Ok(()));
        let g = v.geometry();
        // 64 x 64 tiles on 132 compute units with compare-and-swap: at most 1584 work-groups and
        // 2162688 elements of C times splits, each split at least 384 deep.
        let cas = |m, n, k, batch, units| g.splits_for(m, n, k, batch, units, AtomicAdd::CompareAndSwap);
        assert_eq!(cas(4096, 4096, 4096, 1, 132), 1, "4096 tiles already fill the device");
        assert_eq!(cas(512, 512, 8192, 1, 132), 8, "64 tiles: C times 16 splits is too much");
        assert_eq!(cas(256, 512, 8192, 1, 132), 16, "32 tiles, deep K");
        assert_eq!(cas(256, 512, 4096, 1, 132), 8, "each split at least 384 deep");
        assert_eq!(cas(512, 512, 1024, 1, 132), 2, "each split at least 384 deep");
        assert_eq!(cas(512, 512, 8192, 8, 132), 1, "the batch counts as tiles");
        assert_eq!(cas(1024, 1024, 8192, 1, 132), 2);
        assert_eq!(cas(16, 16, 100, 1, 132), 1, "K too short to split");
        assert_eq!(cas(2048, 1536, 4096, 1, 132), 1, "3.1 M elements of C: no split");
        assert_eq!(cas(512, 512, 8192, 1, 2), 1, "two compute units: 24 work-groups");
        // DB = 0 with reductions: the splits of least modelled time up to 16
        // (the fit of docs/decisions/009-ksplit0-split-rule.md gives the same), past 16 the limits.
        let red = |m, n, k, batch, units| g.splits_for(m, n, k, batch, units, AtomicAdd::Reduction);
        assert_eq!(red(4096, 4096, 4096, 1, 132), 1, "4096 tiles: 32 a unit already");
        assert_eq!(red(2048, 2048, 4096, 1, 132), 1, "1024 tiles: 8 a unit already");
        assert_eq!(red(8192, 8192, 8192, 1, 132), 1);
        assert_eq!(red(1024, 1024, 1024, 1, 132), 1, "256 tiles: 2 a unit");
        assert_eq!(red(6272, 128, 1152, 1, 132), 2, "196 tiles: 2 a unit either way");
        assert_eq!(red(96, 6000, 640, 1, 132), 2, "188 tiles: 2 a unit either way");
        assert_eq!(red(25088, 64, 576, 1, 132), 1, "392 tiles, K too short for more than 3 a unit");
        assert_eq!(red(200, 768, 3072, 1, 132), 8, "48 tiles");
        assert_eq!(red(512, 512, 8192, 1, 132), 8, "64 tiles: 16 splits would put 8 on a unit");
        assert_eq!(red(64, 64, 16384, 1, 132), 64, "one tile, deep K: up to 64 splits");
        assert_eq!(red(512, 49, 4608, 1, 132), 32, "8 tiles: past 16 splits each at least 128 deep");
        assert_eq!(red(256, 256, 16384, 1, 132), 32, "16 tiles: 512 groups at 32 splits");
        assert_eq!(red(16, 16, 60, 1, 132), 1, "K too short to split");
        assert_eq!(red(16, 16, 100, 1, 132), 2, "one tile: each split at least 32 deep");
        assert_eq!(red(16, 16, 200, 1, 132), 4);
        assert_eq!(red(512, 512, 8192, 8, 132), 4, "the batch counts as tiles: 512 of them");
        assert_eq!(red(512, 512, 8192, 1, 2), 1, "two compute units: 32 tiles a unit");
        // DB = 5 keeps the limits: K / split at least max(64, 2 x tiles), C x splits within 131072
        // per compute unit.
        v.params.insert("DB".into(), 5);
        let g5 = v.geometry();
        assert_eq!(g5.split_rule, SplitRule::AtomicAddLimits);
        let red5 = |m, n, k| g5.splits_for(m, n, k, 1, 132, AtomicAdd::Reduction);
        assert_eq!(red5(200, 768, 3072), 16, "48 tiles: 16 splits of 192");
        assert_eq!(red5(96, 6000, 640), 1, "188 tiles: K too short for 376 per split");
        assert_eq!(red5(2048, 2048, 4096), 2, "1024 tiles: each split at least 2048 deep");
    }

    #[test]
    fn stream_k_runs_where_a_grid_fills_its_waves_poorly() {
        let mut v = xgemm();
        assert_eq!(v.geometry().stream_k_groups(768, 768, 3072, 1, 132), None, "SK = 0: always a grid");
        v.params.insert("SK".into(), 2);
        assert_eq!(v.validate(), Ok(()));
        let g = v.geometry();
        // 64 x 64 tiles, KWG 16, 2 x 132 = 264 work-groups.
        let sk = |m, n, k, batch| g.stream_k_groups(m, n, k, batch, 132);
        assert_eq!(sk(768, 768, 3072, 1), Some(264), "144 tiles: one wave of 264, 55 % full, two of 132, 55 %");
        assert_eq!(sk(2048, 2048, 2048, 1), None, "1024 tiles: 4 waves, 97 % full");
        assert_eq!(sk(2048, 2240, 2048, 1), None, "1120 tiles: 5 waves of 264, 85 % full");
        assert_eq!(sk(1280, 1280, 2048, 1), Some(264), "400 tiles: 2 waves of 264 or 4 of 132, 76 % full");
        assert_eq!(sk(2048, 1600, 2048, 1), None, "800 tiles: 4 waves of 264, 76 % full, but 7 of 132, 87 %");
        assert_eq!(sk(1536, 1024, 2048, 1), None, "384 tiles: 2 waves of 264, 73 % full, but 3 of 132, 97 %");
        assert_eq!(sk(4096, 4096, 64, 1), None, "4096 tiles: 16 waves, 97 % full");
        assert_eq!(sk(64, 64, 16384, 1), Some(128), "one tile of 1024 steps: 8 steps each");
        assert_eq!(sk(64, 64, 65536, 1), Some(264), "one tile of 4096 steps");
        assert_eq!(sk(64, 384, 3072, 1), Some(144), "6 tiles of 192 steps: 8 steps each, not 6 work-groups");
        assert_eq!(sk(64, 64, 128, 1), None, "one tile of 8 steps: one work-group, a grid");
        assert_eq!(sk(128, 128, 128, 1), None, "4 tiles of 8 steps: no more work-groups than tiles");
        assert_eq!(sk(128, 128, 240, 1), Some(7), "4 tiles of 15 steps: 7 work-groups");
        assert_eq!(sk(256, 256, 2048, 5), Some(264), "the batch counts as tiles: 80 of them");
        assert_eq!(sk(256, 256, 2048, 33), None, "528 tiles: 2 waves, full");
        assert_eq!(g.stream_k_groups(100, 100, 100, 1, 2), None, "two compute units: 4 tiles fill 4 work-groups");
        assert_eq!(g.stream_k_groups(60, 60, 1000, 1, 2), Some(4), "two compute units: one tile of 63 steps");
    }

    #[test]
    fn a_fixed_ksplit_is_used_as_is() {
        let mut v = xgemm();
        v.params.insert("KSPLIT".into(), 8);
        v.params.insert("VWK".into(), 4);
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.geometry().splits_for(64, 64, 64, 1, 132, AtomicAdd::Reduction), 8);
    }

    #[test]
    fn direct_splits_fill_the_device() {
        // KSPLIT = 0: work-groups of 256 work-items on 132 compute units split K while they stay within
        // 512 work-items per unit and 2,048 of K per split.
        let d = Variant::new(
            Family::Direct,
            &[
                ("WPTM", 4),
                ("WPTN", 1),
                ("NDIMD", 8),
                ("KDIMD", 32),
                ("VWD", 4),
                ("UKD", 4),
                ("RBR", 0),
                ("UKK", 0),
                ("KSPLIT", 0),
            ],
        );
        assert_eq!(d.validate(), Ok(()));
        let g = d.geometry();
        assert_eq!((g.tile, g.local), ([4, 32], [1, 256]));
        let split = |m, n, k| g.splits_for(m, n, k, 1, 132, AtomicAdd::Reduction);
        assert_eq!(split(16, 256, 65536), 8, "32 work-groups: 8 x 32 x 256 work-items <= 512 x 132 < 16 x 32 x 256");
        assert_eq!(split(16, 256, 8192), 4, "depth: 8,192 / 8 < 2,048");
        assert_eq!(split(4, 4096, 14336), 2, "128 work-groups: 2 x 128 x 256 <= 512 x 132");
        assert_eq!(split(4, 8192, 14336), 1, "256 work-groups already fill 512 work-items per unit");
        assert_eq!(split(1, 1, 1 << 30), 16, "at most 16 splits");
    }

    #[test]
    fn panel_packs_large_launches_and_splits_to_fill_cores() {
        let v = Variant::new(
            Family::Panel,
            &[("VW", 16), ("MV", 2), ("NR", 8), ("LM", 1), ("LN", 4), ("KC", 256), ("PA", 0)],
        );
        assert_eq!(v.validate(), Ok(()));
        let g = v.geometry();
        let mut packed = v.clone();
        packed.params.insert("PA".into(), 1);
        assert!(packed.geometry().packs_a(1, 1, 1) && !g.packs_a(1 << 20, 1 << 20, 1 << 20));
        // PA = 2 packs from 2^29 multiply-adds per batch item on.
        let mut where_large = v.clone();
        where_large.params.insert("PA".into(), 2);
        assert_eq!(where_large.validate(), Ok(()));
        let large = where_large.geometry();
        assert!(!large.packs_a(1021, 1031, 510) && large.packs_a(1021, 1031, 511));
        assert!(large.packs_a(usize::MAX, 2, 2), "no overflow");
        // Splits of K only while the work-groups leave cores idle, each at least 512 and KC deep
        // and 2^20 multiply-adds; the same whatever the device's atomic add.
        for add in [AtomicAdd::CompareAndSwap, AtomicAdd::Reduction] {
            assert_eq!(g.splits_for(32, 32, 2048, 1, 2, add), 2);
            assert_eq!(g.splits_for(32, 32, 2047, 1, 2, add), 1);
            assert_eq!(g.splits_for(1, 1, (1 << 21) - 1, 1, 2, add), 1);
            assert_eq!(g.splits_for(1, 32, 1 << 16, 1, 2, add), 2);
            assert_eq!(g.splits_for(64, 32, 100_000, 1, 2, add), 1);
            assert_eq!(g.splits_for(32, 32, 100_000, 1, 8, add), 8);
            assert_eq!(g.splits_for(64, 64, 100_000, 1, 64, add), 16);
            assert_eq!(g.splits_for(32, 32, 100_000, 2, 8, add), 4);
        }
        let mut deep_slices = v.clone();
        deep_slices.params.insert("KC".into(), 4096);
        assert_eq!(deep_slices.geometry().splits_for(32, 32, 8191, 1, 2, AtomicAdd::CompareAndSwap), 1);
        assert_eq!(deep_slices.geometry().splits_for(32, 32, 8192, 1, 2, AtomicAdd::CompareAndSwap), 2);
    }

    #[test]
    fn mma_launches_as_an_unsplit_tile() {
        // Whatever the shape: no split of K, no stream-K, no operand copied transposed first.
        let v = Variant::new(Family::Mma, &[("MWG", 64), ("NWG", 64), ("KWG", 32), ("WM", 2), ("WN", 2)]);
        assert_eq!(v.validate(), Ok(()));
        let g = v.geometry();
        assert_eq!((g.local, g.tile, g.k_step), ([64, 2], [64, 64], 32));
        for (m, n, k) in [(64, 64, 1 << 20), (8192, 8192, 8192), (16, 16, 16)] {
            for add in [AtomicAdd::CompareAndSwap, AtomicAdd::Reduction] {
                assert_eq!(g.splits_for(m, n, k, 1, 132, add), 1);
            }
            assert_eq!(g.stream_k_groups(m, n, k, 1, 132), None);
            assert!(!g.transposes_first(0, m, n, k) && !g.transposes_first(1, m, n, k) && !g.packs_a(m, n, k));
        }
    }
}
