//! Kernel families, their parameters with meanings, and the named constraints a variant must satisfy.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A family of kernels that share one template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Tiled GEMM: work-group tiles in local memory, register tiles per work-item (CLBlast's Xgemm).
    Xgemm,
    /// Direct GEMM for small and skinny shapes: a few rows of C per work-group, K split across work-items.
    Direct,
    /// Register-blocked GEMM for CPUs: a block of C per work-item in vector registers, no local memory.
    Panel,
    /// Tensor-core GEMM for f16, bf16 and tf32 (NVIDIA `mma.sync` by inline PTX; elsewhere an
    /// emulation, for testing only): warps of 16 x 8 tiles, K slices staged in local memory as stored.
    Mma,
}

impl Family {
    /// Every family, in a stable order.
    pub const ALL: [Family; 4] = [Family::Xgemm, Family::Direct, Family::Panel, Family::Mma];

    /// The family's name as written in JSON and in variant ids.
    pub fn name(self) -> &'static str {
        match self {
            Family::Xgemm => "xgemm",
            Family::Direct => "direct",
            Family::Panel => "panel",
            Family::Mma => "mma",
        }
    }

    /// The template file (under `kernels/`) that renders this family.
    pub fn template(self) -> &'static str {
        match self {
            Family::Xgemm => "xgemm.cl",
            Family::Direct => "direct.cl",
            Family::Panel => "panel.cl",
            Family::Mma => "mma.cl",
        }
    }

    /// The family's parameters, in the order they appear in the rendered header.
    pub fn params(self) -> &'static [ParamSpec] {
        match self {
            Family::Xgemm => XGEMM_PARAMS,
            Family::Direct => DIRECT_PARAMS,
            Family::Panel => PANEL_PARAMS,
            Family::Mma => MMA_PARAMS,
        }
    }

    /// Parameters added after the first datasets were measured, with the value that leaves the
    /// kernel as it was before them: a record or space file that omits one means this value.
    pub fn neutral_defaults(self) -> &'static [(&'static str, u32)] {
        match self {
            Family::Xgemm => &[("VWK", 1), ("DB", 0), ("KSPLIT", 1), ("SWZ", 0), ("SK", 0), ("RP", 0)],
            Family::Direct => &[("VWD", 1), ("UKD", 1), ("RBR", 0), ("UKK", 0), ("KSPLIT", 1)],
            Family::Panel => &[("PA", 0)],
            Family::Mma => &[],
        }
    }

    /// The named constraints every variant of the family must satisfy.
    pub fn constraints(self) -> &'static [Constraint] {
        match self {
            Family::Xgemm => XGEMM_CONSTRAINTS,
            Family::Direct => DIRECT_CONSTRAINTS,
            Family::Panel => PANEL_CONSTRAINTS,
            Family::Mma => MMA_CONSTRAINTS,
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One tunable parameter: its name (CLBlast's, uppercase), meaning and allowed values.
#[derive(Debug)]
pub struct ParamSpec {
    /// Name as used in JSON and as a `#define` in the kernel.
    pub name: &'static str,
    /// One-line meaning, written into the rendered kernel's header.
    pub meaning: &'static str,
    /// The values the template supports.
    pub allowed: &'static [u32],
}

impl ParamSpec {
    /// The names of the parameter's coded values (see [`named_values`]); empty for a count, size
    /// or 0/1 switch, whose number says what it is.
    pub fn named_values(&self) -> &'static [(u32, &'static str)] {
        named_values(self.name)
    }

    /// The value as `variants/selected.json` and the docs write it: its name where it has one,
    /// else the number.
    pub fn value_text(&self, value: u32) -> String {
        value_name(self.name, value).map_or_else(|| value.to_string(), str::to_string)
    }

    /// The value a name or a number stands for (`"dbreg"` or `"1"` for DB 1); `None` where neither.
    pub fn parse_value(&self, text: &str) -> Option<u32> {
        self.named_values().iter().find(|(_, name)| *name == text).map(|&(v, _)| v).or_else(|| text.parse().ok())
    }
}

/// The names of the mechanism parameters' coded values, by parameter (the same in every family
/// that has it): how `variants/selected.json` writes them (datasets and kernel templates keep the
/// numbers, and readers take either). A code's name comes from its meaning in the parameter table:
///
/// - `DB`, how the K slices are staged: 0 `single` (one buffer: stage, barrier, multiply,
///   barrier); 1 `dbreg` (double buffer through registers: slice k + 1 loaded into registers while
///   slice k is multiplied); 2 `dbhalf` (as `dbreg`, A's slice stored in the first half of the
///   multiply and B's in the second); 3 `async2` / 4 `async3` (two / three buffers filled by
///   copies straight from global memory, `cp.async` on NVIDIA, one / two slices ahead); 5 `dbmix`
///   (as `dbreg`, but an operand contiguous along M / N is copied as by `async2`).
/// - `RP`, register prefetch, by entry point (`xgemm_a{m,k}_b{k,n}`): 0 `off`; 1 `all`; 2 `akbk`
///   (only where both operands are contiguous along K: row-major NT); 3 `notambk` (everywhere but
///   where only B is: row-major NN).
/// - `KSPLIT` 0 `auto` (the splits chosen per launch; other values are the number of splits,
///   1 none); `SK` 0 `off` (other values: work-groups per compute unit); `UKK` 0 `ukd` (UKD's
///   value; other values: runs of k's).
/// - `PA`, where the panel family packs A's slices into local memory: 0 `never`, 1 `always`,
///   2 `large` (launches of at least `PACK_A_MIN_MADDS` multiply-adds per batch item, in fewfit's
///   launch policy).
///
/// 0/1 switches (`SA`, `SB`, `STRM`, `STRN`, `SWZ`, `RBR`) stay numbers.
pub fn named_values(param: &str) -> &'static [(u32, &'static str)] {
    match param {
        "DB" => &[(0, "single"), (1, "dbreg"), (2, "dbhalf"), (3, "async2"), (4, "async3"), (5, "dbmix")],
        "RP" => &[(0, "off"), (1, "all"), (2, "akbk"), (3, "notambk")],
        "KSPLIT" => &[(0, "auto")],
        "SK" => &[(0, "off")],
        "UKK" => &[(0, "ukd")],
        "PA" => &[(0, "never"), (1, "always"), (2, "large")],
        _ => &[],
    }
}

/// The name of a parameter's coded value, if it has one ([`named_values`]).
pub fn value_name(param: &str, value: u32) -> Option<&'static str> {
    named_values(param).iter().find(|&&(v, _)| v == value).map(|&(_, name)| name)
}

/// A variant's parameter values by name, as constraints read them.
pub type ParamLookup<'a> = &'a dyn Fn(&str) -> u32;

/// A rule over a variant's parameters, with the text that names it in error messages.
#[derive(Debug)]
pub struct Constraint {
    /// The rule as a formula over parameter names, e.g. `MWG % (MDIMC*VWM) == 0`.
    pub name: &'static str,
    /// Whether the rule holds.
    pub holds: fn(ParamLookup<'_>) -> bool,
}

impl Constraint {
    /// The words of the formula, parameter names and numbers: every parameter `holds` reads is
    /// among them (the test `constraints_read_only_the_parameters_they_name` checks).
    pub fn words(&self) -> impl Iterator<Item = &'static str> {
        self.name.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
    }
}

const POW2_1_8: &[u32] = &[1, 2, 4, 8];
/// Local memory per work-group, in bytes, that every variant must fit in f32: the 48 KiB of NVIDIA
/// GPUs (f64 variants that need more are refused at build time on devices with less).
const LOCAL_MEM_TARGET: u32 = 48 * 1024;
const BOOL: &[u32] = &[0, 1];
const DIM: &[u32] = &[1, 2, 4, 8, 16, 32, 64, 128, 256];
const TILE: &[u32] = &[1, 2, 4, 8, 16, 32, 64, 128, 256];

const XGEMM_PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "MWG", meaning: "rows of C per work-group tile (M)", allowed: TILE },
    ParamSpec { name: "NWG", meaning: "columns of C per work-group tile (N)", allowed: TILE },
    ParamSpec { name: "KWG", meaning: "depth of the K slice staged per loop iteration", allowed: TILE },
    ParamSpec { name: "MDIMC", meaning: "work-items along M in a work-group (compute shape)", allowed: DIM },
    ParamSpec { name: "NDIMC", meaning: "work-items along N in a work-group (compute shape)", allowed: DIM },
    ParamSpec { name: "MDIMA", meaning: "work-items along M when loading the A tile (loading shape)", allowed: DIM },
    ParamSpec { name: "NDIMB", meaning: "work-items along N when loading the B tile (loading shape)", allowed: DIM },
    ParamSpec { name: "KWI", meaning: "unroll factor of the inner K loop", allowed: &[1, 2, 4, 8] },
    ParamSpec { name: "VWM", meaning: "vector width along M for loads and the register tile", allowed: POW2_1_8 },
    ParamSpec { name: "VWN", meaning: "vector width along N for loads and the register tile", allowed: POW2_1_8 },
    ParamSpec {
        name: "STRM",
        meaning: "1: a work-item's rows are strided across the tile; 0: contiguous",
        allowed: BOOL,
    },
    ParamSpec {
        name: "STRN",
        meaning: "1: a work-item's columns are strided across the tile; 0: contiguous",
        allowed: BOOL,
    },
    ParamSpec {
        name: "SA",
        meaning: "1: stage the A tile in local memory; 0: read A from global memory",
        allowed: BOOL,
    },
    ParamSpec {
        name: "SB",
        meaning: "1: stage the B tile in local memory; 0: read B from global memory",
        allowed: BOOL,
    },
    ParamSpec {
        name: "VWK",
        meaning: "vector width along K for global loads of an operand contiguous along K",
        allowed: POW2_1_8,
    },
    ParamSpec {
        name: "DB",
        meaning: "how the local slices are staged: 0: one buffer; 1: two, slice k+1 loaded into registers while slice k is multiplied; 2: likewise, A's slice staged in the first half of the multiply and B's in the second; 3 / 4: two / three buffers filled by copies straight from global memory (asynchronous cp.async on NVIDIA GPUs of compute capability 8.0 or later), slice k+1 / k+2 in flight while slice k is multiplied; 5: as 1, but an operand contiguous along M / N is copied as by 3, into 1's layout, and only one contiguous along K goes through registers",
        allowed: &[0, 1, 2, 3, 4, 5],
    },
    ParamSpec {
        name: "KSPLIT",
        meaning: "splits of K, each in its own work-groups, added into C atomically (1: off; 0: chosen per launch from the shape and the device's compute units)",
        allowed: &[0, 1, 2, 4, 8, 16, 32, 64],
    },
    ParamSpec {
        name: "SWZ",
        meaning: "1: swizzle the columns of local slices of operands contiguous along K (no bank conflicts in their transposing store)",
        allowed: BOOL,
    },
    ParamSpec {
        name: "SK",
        meaning: "stream-K: 0: off (one work-group per tile); n: where one work-group per tile would leave the last of its waves of n per compute unit mostly idle, n work-groups per compute unit share the tiles' KWG-deep steps of K evenly, a tile split between work-groups added into C as split-K does",
        allowed: &[0, 1, 2, 4],
    },
    ParamSpec {
        name: "RP",
        meaning: "register prefetch (both operands staged, DB 0, 1, 2 or 5): each step of K's register fragments are read from the local slices one step ahead, before the products of the step before; 0: never (the compiler schedules those reads), 1: always, 2: only where both operands are contiguous along K (row-major NT, whose two slices are transposed on the store), 3: everywhere but where only B is (row-major NN)",
        allowed: &[0, 1, 2, 3],
    },
];

const XGEMM_CONSTRAINTS: &[Constraint] = &[
    Constraint { name: "MWG % (MDIMC*VWM) == 0", holds: |p| p("MWG") % (p("MDIMC") * p("VWM")) == 0 },
    Constraint { name: "NWG % (NDIMC*VWN) == 0", holds: |p| p("NWG") % (p("NDIMC") * p("VWN")) == 0 },
    Constraint { name: "KWG % KWI == 0", holds: |p| p("KWG") % p("KWI") == 0 },
    Constraint { name: "(MDIMC*NDIMC) % MDIMA == 0", holds: |p| (p("MDIMC") * p("NDIMC")) % p("MDIMA") == 0 },
    Constraint { name: "(MDIMC*NDIMC) % NDIMB == 0", holds: |p| (p("MDIMC") * p("NDIMC")) % p("NDIMB") == 0 },
    Constraint { name: "MWG % (MDIMA*VWM) == 0", holds: |p| p("MWG") % (p("MDIMA") * p("VWM")) == 0 },
    Constraint { name: "NWG % (NDIMB*VWN) == 0", holds: |p| p("NWG") % (p("NDIMB") * p("VWN")) == 0 },
    Constraint {
        name: "KWG % ((MDIMC*NDIMC)/MDIMA) == 0",
        holds: |p| p("KWG") % (p("MDIMC") * p("NDIMC") / p("MDIMA")).max(1) == 0,
    },
    Constraint {
        name: "KWG % ((MDIMC*NDIMC)/NDIMB) == 0",
        holds: |p| p("KWG") % (p("MDIMC") * p("NDIMC") / p("NDIMB")).max(1) == 0,
    },
    Constraint { name: "MDIMC*NDIMC <= 1024", holds: |p| p("MDIMC") * p("NDIMC") <= 1024 },
    Constraint {
        name: "(MWG/MDIMC)*(NWG/NDIMC) <= 256",
        holds: |p| (p("MWG") / p("MDIMC")) * (p("NWG") / p("NDIMC")) <= 256,
    },
    Constraint { name: "KWG % VWK == 0", holds: |p| p("KWG") % p("VWK") == 0 },
    Constraint {
        name: "(MWG*KWG) % (MDIMC*NDIMC*VWK) == 0",
        holds: |p| (p("MWG") * p("KWG")) % (p("MDIMC") * p("NDIMC") * p("VWK")) == 0,
    },
    Constraint {
        name: "(NWG*KWG) % (MDIMC*NDIMC*VWK) == 0",
        holds: |p| (p("NWG") * p("KWG")) % (p("MDIMC") * p("NDIMC") * p("VWK")) == 0,
    },
    Constraint { name: "SK == 0 || KSPLIT == 1", holds: |p| p("SK") == 0 || p("KSPLIT") == 1 },
    Constraint { name: "DB == 0 || SA + SB > 0", holds: |p| p("DB") == 0 || p("SA") + p("SB") > 0 },
    Constraint { name: "DB < 2 || SA + SB == 2", holds: |p| p("DB") < 2 || p("SA") + p("SB") == 2 },
    Constraint { name: "DB != 2 || (KWG/2) % KWI == 0", holds: |p| p("DB") != 2 || (p("KWG") / 2) % p("KWI") == 0 },
    Constraint {
        name: "buffers(DB)*(SA*slice(MWG)+SB*slice(NWG))*4 <= 49152 (slice: KWG rows, padded with DB = 3 / 4)",
        holds: |p| xgemm_local_elems(p, 4) * 4 <= LOCAL_MEM_TARGET,
    },
    Constraint {
        name: "RP == 0 || (SA + SB == 2 && DB != 3 && DB != 4)",
        holds: |p| p("RP") == 0 || (p("SA") + p("SB") == 2 && p("DB") != 3 && p("DB") != 4),
    },
];

const DIRECT_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "WPTM",
        meaning: "rows of C per work-group, held in registers by every work-item",
        allowed: &[1, 2, 4, 8, 16],
    },
    ParamSpec { name: "WPTN", meaning: "columns of C per work-item", allowed: &[1, 2, 4, 8] },
    ParamSpec { name: "NDIMD", meaning: "work-items along N in a work-group", allowed: DIM },
    ParamSpec {
        name: "KDIMD",
        meaning: "work-items along K in a work-group (their partial sums are reduced)",
        allowed: DIM,
    },
    ParamSpec {
        name: "VWD",
        meaning: "vector width of B's loads along its contiguous dimension; columns per work-item = WPTN*VWD",
        allowed: POW2_1_8,
    },
    ParamSpec {
        name: "UKD",
        meaning: "adjacent k's per work-item step when B is contiguous along N (loads of B in flight)",
        allowed: POW2_1_8,
    },
    ParamSpec {
        name: "RBR",
        meaning: "1: reduce the partial sums one row of C at a time (local memory for one row, not WPTM)",
        allowed: BOOL,
    },
    ParamSpec {
        name: "UKK",
        meaning: "runs of VWD k's per column loaded at once when B is contiguous along K (fewer where they would take over 64 registers); 0: UKD's value",
        allowed: &[0, 1, 2, 4, 8],
    },
    ParamSpec {
        name: "KSPLIT",
        meaning: "splits of K, each in its own work-groups, added into C atomically (1: off; 0: chosen per launch where the work-groups are too few to fill the device)",
        allowed: &[0, 1, 2, 4, 8, 16],
    },
];

const DIRECT_CONSTRAINTS: &[Constraint] = &[
    Constraint { name: "NDIMD*KDIMD <= 1024", holds: |p| p("NDIMD") * p("KDIMD") <= 1024 },
    Constraint { name: "WPTM*WPTN*VWD <= 64", holds: |p| p("WPTM") * p("WPTN") * p("VWD") <= 64 },
    Constraint { name: "UKD*WPTN*VWD <= 32", holds: |p| p("UKD") * p("WPTN") * p("VWD") <= 32 },
    Constraint { name: "RBR == 0 || WPTM > 1", holds: |p| p("RBR") == 0 || p("WPTM") > 1 },
    Constraint {
        name: "(RBR ? 1 : WPTM)*WPTN*VWD*NDIMD*KDIMD*4 <= 49152",
        holds: |p| direct_reduced_rows(p) * p("WPTN") * p("VWD") * p("NDIMD") * p("KDIMD") * 4 <= LOCAL_MEM_TARGET,
    },
];

/// The local buffers per staged operand of an xgemm variant: one for DB 0, two for DB 1-3 and 5,
/// three for DB 4 (`DB_BUFFERS` in kernels/xgemm.cl).
fn local_buffers(db: u32) -> u32 {
    match db {
        0 => 1,
        4 => 3,
        _ => 2,
    }
}

/// Elements of local memory an xgemm variant declares for elements of `elem_bytes` bytes: each
/// staged operand's buffers of one KWG-deep slice (`SLICE_a`, `SLICE_b` in kernels/xgemm.cl: with
/// DB = 3 / 4 padded by KPAD after every run of rows one work-item reads, and rounded up to 64 bytes).
fn xgemm_local_elems(p: ParamLookup<'_>, elem_bytes: u32) -> u32 {
    let slice = |tile: u32, items: u32, strided: u32, vector: u32| {
        let rows = p("KWG") * tile;
        if !matches!(p("DB"), 3 | 4) {
            return rows;
        }
        let step = if strided == 0 { tile / items } else { vector };
        let kpad = if p("KWI") * elem_bytes > 16 { p("KWI") } else { 16 / elem_bytes };
        (rows + tile / step * kpad).div_ceil(64 / elem_bytes) * (64 / elem_bytes)
    };
    let a = p("SA") * slice(p("MWG"), p("MDIMC"), p("STRM"), p("VWM"));
    let b = p("SB") * slice(p("NWG"), p("NDIMC"), p("STRN"), p("VWN"));
    local_buffers(p("DB")) * (a + b)
}

/// Rows of C the direct kernel reduces per round in local memory: WPTM, or 1 with RBR = 1.
fn direct_reduced_rows(p: ParamLookup<'_>) -> u32 {
    if p("RBR") == 1 {
        1
    } else {
        p("WPTM")
    }
}

/// The panel family's vector widths.
const PANEL_VW: &[u32] = &[4, 8, 16];

const PANEL_PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "VW", meaning: "vector width: rows per vector register (lanes along M or K)", allowed: PANEL_VW },
    ParamSpec { name: "MV", meaning: "vectors of VW rows of C per work-item", allowed: &[1, 2, 3, 4] },
    ParamSpec { name: "NR", meaning: "columns of C per work-item", allowed: &[1, 2, 4, 6, 8, 12, 16] },
    ParamSpec { name: "LM", meaning: "work-items along M in a work-group (run in turn on one core)", allowed: DIM },
    ParamSpec { name: "LN", meaning: "work-items along N in a work-group (run in turn on one core)", allowed: DIM },
    ParamSpec {
        name: "KC",
        meaning: "depth of the K slice the work-items of a group take in turn (A contiguous along M)",
        allowed: &[32, 64, 128, 256, 512, 1024, 4096],
    },
    ParamSpec {
        name: "PA",
        meaning: "1: the group copies each K slice of A into local memory first (A contiguous along M); 2: so where the launch has at least PACK_A_MIN_MADDS multiply-adds per batch item, else as 0 (a second program)",
        allowed: &[0, 1, 2],
    },
];

/// The panel family's VW cap on a CPU whose vector registers hold `lanes` elements of the
/// precision (its native vector width): the widest allowed VW within `lanes`, at least the narrowest.
pub fn vw_cap(lanes: u32) -> u32 {
    PANEL_VW.iter().copied().filter(|&w| w <= lanes).max().unwrap_or(PANEL_VW[0])
}

const PANEL_CONSTRAINTS: &[Constraint] = &[
    Constraint { name: "MV*NR <= 28", holds: |p| p("MV") * p("NR") <= 28 },
    Constraint { name: "LM*LN <= 256", holds: |p| p("LM") * p("LN") <= 256 },
];

const MMA_PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "MWG", meaning: "rows of C per work-group tile (M)", allowed: &[16, 32, 64, 128, 256] },
    ParamSpec { name: "NWG", meaning: "columns of C per work-group tile (N)", allowed: &[16, 32, 64, 128, 256] },
    ParamSpec {
        name: "KWG",
        meaning: "depth of the K slice staged per loop iteration (a multiple of the mma's 16 or 8)",
        allowed: &[16, 32, 64],
    },
    ParamSpec { name: "WM", meaning: "warps along M in a work-group; each computes MWG/WM rows", allowed: POW2_1_8 },
    ParamSpec { name: "WN", meaning: "warps along N in a work-group; each computes NWG/WN columns", allowed: POW2_1_8 },
];

const MMA_CONSTRAINTS: &[Constraint] = &[
    Constraint { name: "MWG % (16*WM) == 0", holds: |p| p("MWG") % (16 * p("WM")) == 0 },
    Constraint { name: "NWG % (8*WN) == 0", holds: |p| p("NWG") % (8 * p("WN")) == 0 },
    Constraint { name: "WM*WN <= 16", holds: |p| p("WM") * p("WN") <= 16 },
    Constraint { name: "(MWG/WM)*(NWG/WN) <= 4096", holds: |p| (p("MWG") / p("WM")) * (p("NWG") / p("WN")) <= 4096 },
    Constraint {
        name: "(MWG*KWG) % (512*WM*WN) == 0",
        holds: |p| (p("MWG") * p("KWG")) % (512 * p("WM") * p("WN")) == 0,
    },
    Constraint {
        name: "(NWG*KWG) % (512*WM*WN) == 0",
        holds: |p| (p("NWG") * p("KWG")) % (512 * p("WM") * p("WN")) == 0,
    },
    Constraint {
        name: "(MWG+NWG)*KWG <= 2048*WM*WN",
        holds: |p| (p("MWG") + p("NWG")) * p("KWG") <= 2048 * p("WM") * p("WN"),
    },
    // In 16-bit storage, as xgemm counts f32: a tile beyond the device's local memory in tf32's 4-byte
    // elements is refused there by the host (as xgemm's in f64), and that precision's fallback runs.
    Constraint { name: "2*(MWG+NWG)*(KWG*2+16) <= 49152", holds: |p| mma_local_bytes(p, 2) <= LOCAL_MEM_TARGET },
];

/// Bytes of local memory an mma variant declares for elements of `elem_bytes` bytes as stored (2 for
/// f16 and bf16, 4 for tf32): two buffers of a slice, MWG rows of op(A) and NWG columns of op(B),
/// each KWG elements and 16 bytes of padding (`SLICE` in kernels/mma.cl).
fn mma_local_bytes(p: ParamLookup<'_>, elem_bytes: u32) -> u32 {
    2 * (p("MWG") + p("NWG")) * (p("KWG") * elem_bytes + 16)
}

/// A kernel variant: a family and a value for each of its parameters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Variant {
    /// The kernel family.
    pub family: Family,
    /// Parameter values by name (sorted, so serialisation and ids are stable).
    pub params: BTreeMap<String, u32>,
}

/// Where a variant breaks its family's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    /// The parameter name, or the constraint formula.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

impl Variant {
    /// A variant from a family and `(name, value)` pairs.
    pub fn new(family: Family, params: &[(&str, u32)]) -> Variant {
        Variant { family, params: params.iter().map(|&(k, v)| (k.to_string(), v)).collect() }
    }

    /// The variant with every omitted parameter that has a neutral value set to it
    /// (see [`Family::neutral_defaults`]).
    pub fn with_neutral_defaults(mut self) -> Variant {
        for &(name, value) in self.family.neutral_defaults() {
            self.params.entry(name.to_string()).or_insert(value);
        }
        self
    }

    /// The stable id, derived from the family and the parameters sorted by name,
    /// e.g. `xgemm_kwg16_kwi2_mdima16_...`; an unchanged variant keeps its id across regenerations.
    pub fn id(&self) -> String {
        let mut id = self.family.name().to_string();
        for (name, value) in &self.params {
            id.push('_');
            id.push_str(&name.to_lowercase());
            id.push_str(&value.to_string());
        }
        id
    }

    /// The short name: family, the tile of C (and of K) one work-group covers, then the mechanisms
    /// that differ from their plain value, by name (the same parameters always give the same name;
    /// variants that differ only in other parameters share it, so a set holds one of them):
    ///
    /// - xgemm: `xgemm_{MWG}x{NWG}x{KWG}_{DB}`, then `aglobal` / `bglobal` (SA / SB = 0),
    ///   `ksplit{KSPLIT}` (KSPLIT not 1; `ksplitauto` for 0), `sk{SK}` (SK not 0), `rp{RP}` (RP not
    ///   0), `swz` (SWZ = 1); e.g. `xgemm_128x128x16_dbreg_sk2_rpnotambk`.
    /// - direct: `direct_{WPTM}x{NDIMD*WPTN*VWD}_k{KDIMD}` (rows x columns of C, work-items
    ///   along K), then `rbr` (RBR = 1), `ksplit{KSPLIT}`; e.g. `direct_2x32_k32_ksplitauto`.
    /// - panel: `panel_{LM*MV*VW}x{LN*NR}x{KC}`, then `pack{PA}` (PA not 0); e.g.
    ///   `panel_64x64x256_packlarge`.
    /// - mma: `mma_{MWG}x{NWG}x{KWG}_w{WM}x{WN}` (the warps along M and N); e.g.
    ///   `mma_128x128x32_w2x2`.
    ///
    /// Coded values are written by their names ([`named_values`]).
    pub fn name(&self) -> String {
        let p = |n: &str| self.get(n);
        let named = |n: &str| value_name(n, p(n)).map_or_else(|| p(n).to_string(), str::to_string);
        let mut words = Vec::new();
        match self.family {
            Family::Xgemm => {
                words.push(format!("{}x{}x{}", p("MWG"), p("NWG"), p("KWG")));
                words.push(named("DB"));
                for (param, word) in [("SA", "aglobal"), ("SB", "bglobal")] {
                    if p(param) == 0 {
                        words.push(word.into());
                    }
                }
                if p("KSPLIT") != 1 {
                    words.push(format!("ksplit{}", named("KSPLIT")));
                }
                if p("SK") != 0 {
                    words.push(format!("sk{}", p("SK")));
                }
                if p("RP") != 0 {
                    words.push(format!("rp{}", named("RP")));
                }
                if p("SWZ") == 1 {
                    words.push("swz".into());
                }
            }
            Family::Direct => {
                words.push(format!("{}x{}", p("WPTM"), p("NDIMD") * p("WPTN") * p("VWD")));
                words.push(format!("k{}", p("KDIMD")));
                if p("RBR") == 1 {
                    words.push("rbr".into());
                }
                if p("KSPLIT") != 1 {
                    words.push(format!("ksplit{}", named("KSPLIT")));
                }
            }
            Family::Panel => {
                words.push(format!("{}x{}x{}", p("LM") * p("MV") * p("VW"), p("LN") * p("NR"), p("KC")));
                if p("PA") != 0 {
                    words.push(format!("pack{}", named("PA")));
                }
            }
            Family::Mma => {
                words.push(format!("{}x{}x{}", p("MWG"), p("NWG"), p("KWG")));
                words.push(format!("w{}x{}", p("WM"), p("WN")));
            }
        }
        let mut name = self.family.name().to_string();
        for word in words {
            name.push('_');
            name.push_str(&word);
        }
        name
    }

    /// The variant an [`id`](Variant::id) names, e.g. `xgemm_kwg16_kwi2_...`, or `None` where the
    /// text is not a family's name followed by `_name` + value pairs (check it with `validate`).
    pub fn from_id(id: &str) -> Option<Variant> {
        let mut words = id.split('_');
        let family_name = words.next()?;
        let family = Family::ALL.into_iter().find(|f| f.name() == family_name)?;
        let mut params = BTreeMap::new();
        for word in words {
            let digits = word.find(|c: char| c.is_ascii_digit())?;
            let (name, value) = word.split_at(digits);
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase()) {
                return None;
            }
            params.insert(name.to_uppercase(), value.parse().ok()?);
        }
        Some(Variant { family, params })
    }

    /// The value of a parameter (0 if absent; `validate` rejects absent parameters).
    pub fn get(&self, name: &str) -> u32 {
        self.params.get(name).copied().unwrap_or(0)
    }

    /// The variant as it runs where the panel family's VW is capped at `vw_cap` (a CPU's
    /// [`vw_cap`]; the kernel narrows itself by `-DVW_CAP`): a panel variant with a wider VW runs
    /// vectors of `vw_cap` and VW / `vw_cap` times LM, so its work-group covers the same tile of C
    /// with more work-items, and without packing A (PA = 0, measured slower so narrowed); other
    /// variants are unchanged.
    pub fn with_vw_cap(&self, vw_cap: u32) -> Variant {
        let mut narrowed = self.clone();
        let vw = self.get("VW");
        if self.family == Family::Panel && vw > vw_cap {
            narrowed.params.insert("VW".into(), vw_cap);
            narrowed.params.insert("LM".into(), self.get("LM") * (vw / vw_cap));
            narrowed.params.insert("PA".into(), 0);
        }
        narrowed
    }

    /// Checks that every parameter is known, present, allowed, and that every constraint holds.
    pub fn validate(&self) -> Result<(), ParamError> {
        let specs = self.family.params();
        for name in self.params.keys() {
            if !specs.iter().any(|s| s.name == name) {
                return Err(ParamError {
                    field: name.clone(),
                    reason: format!("unknown parameter for family `{}`", self.family),
                });
            }
        }
        for spec in specs {
            match self.params.get(spec.name) {
                None => {
                    return Err(ParamError { field: spec.name.into(), reason: "missing".into() });
                }
                Some(v) if !spec.allowed.contains(v) => {
                    return Err(ParamError {
                        field: spec.name.into(),
                        reason: format!("{v} is not one of {:?}", spec.allowed),
                    });
                }
                Some(_) => {}
            }
        }
        let lookup = |name: &str| self.get(name);
        for c in self.family.constraints() {
            if !(c.holds)(&lookup) {
                return Err(ParamError { field: c.name.into(), reason: "constraint violated".into() });
            }
        }
        Ok(())
    }

    /// Work-items per work-group.
    pub fn work_group_size(&self) -> usize {
        self.geometry().local.iter().product()
    }

    /// Local memory one work-group needs, in bytes, for elements of `elem_bytes` bytes: those of the
    /// arithmetic (4 for f32, f16 and bf16, 8 for f64), but for the mma family, which stages
    /// operands as stored, those of the storage (2 for f16 and bf16, 4 for tf32).
    pub fn local_mem_bytes(&self, elem_bytes: usize) -> usize {
        let p = |n: &str| self.get(n) as usize;
        let elems = match self.family {
            Family::Mma => return mma_local_bytes(&|n| self.get(n), elem_bytes as u32) as usize,
            Family::Xgemm => xgemm_local_elems(&|n| self.get(n), elem_bytes as u32) as usize,
            Family::Direct => {
                p("NDIMD") * p("KDIMD") * direct_reduced_rows(&|n| self.get(n)) as usize * p("WPTN") * p("VWD")
            }
            Family::Panel => (p("PA") > 0) as usize * p("KC") * p("LM") * p("MV") * p("VW"),
        };
        elems * elem_bytes
    }

    /// How the variant is launched: work-group shape and the C tile one work-group covers.
    pub fn geometry(&self) -> Geometry {
        let p = |n: &str| self.get(n) as usize;
        match self.family {
            Family::Xgemm => Geometry {
                local: [p("MDIMC"), p("NDIMC")],
                tile: [p("MWG"), p("NWG")],
                orientation: Orientation::ColumnMajorC,
                k_splits: p("KSPLIT"),
                split_rule: if p("DB") <= 3 { SplitRule::AtomicAddCost } else { SplitRule::AtomicAddLimits },
                stream_k: p("SK"),
                k_step: p("KWG"),
                pack_a: PackA::Never,
                // Slices staged through registers (DB other than 3 and 4) are stored transposed
                // where the operand is contiguous along K.
                transposing_stores: [p("SA") == 1, p("SB") == 1].map(|staged| staged && !matches!(p("DB"), 3 | 4)),
            },
            Family::Direct => Geometry {
                local: [1, p("NDIMD") * p("KDIMD")],
                tile: [p("WPTM"), p("NDIMD") * p("WPTN") * p("VWD")],
                orientation: Orientation::SmallM,
                k_splits: p("KSPLIT"),
                split_rule: SplitRule::FillDevice,
                stream_k: 0,
                k_step: 1,
                pack_a: PackA::Never,
                transposing_stores: [false; 2],
            },
            Family::Panel => Geometry {
                local: [p("LM"), p("LN")],
                tile: [p("LM") * p("MV") * p("VW"), p("LN") * p("NR")],
                orientation: Orientation::AlongM,
                k_splits: 0,
                split_rule: SplitRule::FillCores,
                stream_k: 0,
                k_step: p("KC"),
                pack_a: match p("PA") {
                    0 => PackA::Never,
                    1 => PackA::Always,
                    _ => PackA::WhereLarge,
                },
                transposing_stores: [false; 2],
            },
            Family::Mma => Geometry {
                local: [32 * p("WM"), p("WN")],
                tile: [p("MWG"), p("NWG")],
                orientation: Orientation::ColumnMajorC,
                k_splits: 1,
                split_rule: SplitRule::AtomicAddLimits,
                stream_k: 0,
                k_step: p("KWG"),
                pack_a: PackA::Never,
                // The slices run along K: an operand contiguous along K is copied in as it is, so a
                // copy transposed first would only add a transpose.
                transposing_stores: [false; 2],
            },
        }
    }
}

/// Launch geometry: `global[i] = ceil(dim_i / tile[i]) * local[i]` with dim = (M, N), and
/// `global[2] = batch * k_splits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Work-group shape.
    pub local: [usize; 2],
    /// Rows and columns of C covered by one work-group.
    pub tile: [usize; 2],
    /// How the host orients the problem before launching.
    pub orientation: Orientation,
    /// Work-groups along K per tile of C (KSPLIT): above 1, the host scales C by beta first and the
    /// kernel adds alpha times each split's product into C atomically; 0: chosen per launch
    /// (`LaunchPolicy::splits_for` in fewfit's launch policy).
    pub k_splits: usize,
    /// How KSPLIT = 0 chooses its splits.
    pub split_rule: SplitRule,
    /// Stream-K (SK): 0 off; else the work-groups per compute unit that share the tiles' steps of K
    /// where a launch of one work-group per tile would fill its waves poorly
    /// (`LaunchPolicy::stream_k_groups` in fewfit's launch policy).
    pub stream_k: usize,
    /// The depth of K one step of the kernel's K loop covers (KWG, the panel family's KC; 1 where the
    /// family has none).
    pub k_step: usize,
    /// Where the panel family's groups copy A's slices into local memory (PA).
    pub pack_a: PackA,
    /// For A and B: whether the groups store the operand's slices into local memory transposed
    /// where it is contiguous along K (an xgemm variant staging it through registers, SA / SB = 1
    /// and DB not 3 or 4), so that a large launch copies it transposed first
    /// (`LaunchPolicy::transposes_first` in fewfit's launch policy).
    pub transposing_stores: [bool; 2],
}

/// Where a variant's groups copy A's K slices into local memory first (the panel family's PA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackA {
    /// Never (PA = 0; every family but the panel one).
    Never,
    /// In every launch (PA = 1).
    Always,
    /// In launches of at least fewfit's `PACK_A_MIN_MADDS` multiply-adds per batch item (PA = 2;
    /// its launch policy); smaller ones run the variant's PA = 0 program.
    WhereLarge,
}

/// How KSPLIT = 0 chooses the splits of K of a launch (`LaunchPolicy::splits_for` in fewfit's
/// launch policy, `src/engine/launch_policy.rs`, which applies it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitRule {
    /// GPUs, many work-groups per compute unit: within the limits of the device's atomic add.
    AtomicAddLimits,
    /// GPU tiles of DB ≤ 3, the kinds the cost model was fitted on (DB = 0, 1 and 3): where the
    /// device adds by reductions, the splits of least modelled time (fewfit's
    /// `REDUCTION_SPLIT_COST`) up to 16, past them and with compare-and-swap as
    /// [`SplitRule::AtomicAddLimits`]. (The set's DB = 5 tile ran 0.95x with the model where it
    /// split less, on the H200 on 2026-12-02, so DB ≥ 4 keeps the limits.)
    AtomicAddCost,
    /// CPUs, which run each work-group on one core: split only while the work-groups leave cores
    /// idle, with at least 512 of K (and KC) and 2²⁰ multiply-adds per split.
    FillCores,
    /// The direct family on GPUs: split only while the work-items are too few to keep each
    /// compute unit's loads of B in flight, with a deep enough K per split (`FILL_DEVICE_LIMITS`
    /// in fewfit's launch policy).
    FillDevice,
}

/// How the host orients a problem (C = op(A) op(B) or its transpose) before launching a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    /// The kernel writes C column-major (contiguous along M); row-major C is solved as Cᵀ = op(B)ᵀ op(A)ᵀ.
    ColumnMajorC,
    /// The kernel wants M ≤ N (its rows live in registers); C is accessed through both strides.
    SmallM,
    /// The kernel wants A contiguous along M (its vectors run along M): the host transposes when only
    /// B is contiguous along its outer dimension; C is accessed through both strides.
    AlongM,
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn omitted_new_parameters_take_their_neutral_value() {
        let mut old = xgemm();
        for (name, _) in Family::Xgemm.neutral_defaults() {
            old.params.remove(*name);
        }
        assert!(old.validate().is_err());
        let filled = old.with_neutral_defaults();
        assert_eq!(filled.get("KSPLIT"), 1);
        assert_eq!(filled.get("VWK"), 1);
        assert_eq!(filled.get("DB"), 0);
        assert!(filled.validate().is_ok());
    }

    #[test]
    fn id_is_sorted_by_parameter_name() {
        let v = Variant::new(Family::Direct, &[("WPTN", 1), ("KDIMD", 8), ("WPTM", 4), ("NDIMD", 32), ("VWD", 4)]);
        assert_eq!(v.id(), "direct_kdimd8_ndimd32_vwd4_wptm4_wptn1");
    }

    #[test]
    fn from_id_reads_back_what_id_writes() {
        let v = xgemm();
        assert_eq!(Variant::from_id(&v.id()), Some(v));
        for bad in ["", "gemm_kwg16", "xgemm_kwg", "xgemm_16", "xgemm_Kwg16", "xgemm_kwg16x", "xgemm_kwg99999999999"] {
            assert_eq!(Variant::from_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn valid_variant_passes_and_geometry_follows() {
        let v = xgemm();
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.work_group_size(), 256);
        assert_eq!(v.local_mem_bytes(4), (16 * 64 * 2) * 4);
        assert_eq!(v.geometry().k_splits, 1);
    }

    #[test]
    fn double_buffering_doubles_local_memory_and_is_bounded() {
        let mut v = xgemm();
        v.params.insert("DB".into(), 1);
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.local_mem_bytes(4), 2 * (16 * 64 * 2) * 4);
        v.params.insert("KWG".into(), 128);
        assert_eq!(
            v.validate().unwrap_err().field,
            "buffers(DB)*(SA*slice(MWG)+SB*slice(NWG))*4 <= 49152 (slice: KWG rows, padded with DB = 3 / 4)"
        );
        let mut v = xgemm();
        v.params.extend([("DB".to_string(), 1), ("SA".to_string(), 0), ("SB".to_string(), 0)]);
        assert_eq!(v.validate().unwrap_err().field, "DB == 0 || SA + SB > 0");
        // DB = 2 stages both operands in turn, halfway through a slice: both in local memory, and
        // KWG / 2 a whole number of KWI steps. It takes the same two buffers as DB = 1.
        let mut v = xgemm();
        v.params.insert("DB".into(), 2);
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.local_mem_bytes(4), 2 * (16 * 64 * 2) * 4);
        v.params.insert("SB".into(), 0);
        assert_eq!(v.validate().unwrap_err().field, "DB < 2 || SA + SB == 2");
        let halfway = XGEMM_CONSTRAINTS.iter().find(|c| c.name == "DB != 2 || (KWG/2) % KWI == 0").unwrap();
        let params = |db: u32, kwg: u32, kwi: u32| {
            move |n: &str| match n {
                "DB" => db,
                "KWG" => kwg,
                _ => kwi,
            }
        };
        assert!((halfway.holds)(&params(2, 16, 8)));
        assert!(!(halfway.holds)(&params(2, 8, 8)));
        assert!((halfway.holds)(&params(1, 8, 8)));
        // DB = 3 / 4 copy both operands straight into two / three buffers, whose K-contiguous rows
        // are padded after every MWI = 4 rows: by 16 bytes (4 floats, 2 doubles) or KWI elements.
        let mut v = xgemm();
        v.params.insert("DB".into(), 3);
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.local_mem_bytes(4), 2 * 2 * (16 * 64 + 16 * 4) * 4);
        assert_eq!(v.local_mem_bytes(8), 2 * 2 * (16 * 64 + 16 * 2) * 8);
        v.params.insert("KWI".into(), 8);
        assert_eq!(v.local_mem_bytes(4), 2 * 2 * (16 * 64 + 16 * 8) * 4);
        v.params.insert("KWI".into(), 2);
        // With STRM = 1 a run of A's rows is VWM = 2 rows: 32 runs.
        v.params.insert("STRM".into(), 1);
        assert_eq!(v.local_mem_bytes(4), 2 * (16 * 64 + 32 * 4 + 16 * 64 + 16 * 4) * 4);
        v.params.insert("STRM".into(), 0);
        v.params.insert("DB".into(), 4);
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.local_mem_bytes(4), 3 * 2 * (16 * 64 + 16 * 4) * 4);
        // A 128 x 64 tile of KWG 32 fills 48 KiB with two unpadded buffers, so padded ones do not fit.
        v.params.extend([("MWG", 128), ("KWG", 32), ("DB", 1)].map(|(k, x)| (k.to_string(), x)));
        assert_eq!((v.validate(), v.local_mem_bytes(4)), (Ok(()), 48 * 1024));
        v.params.insert("DB".into(), 3);
        assert!(v.validate().unwrap_err().field.starts_with("buffers(DB)"));
        // DB = 5 copies into DB = 1's two unpadded buffers: it fits where DB = 1 does.
        v.params.insert("DB".into(), 5);
        assert_eq!((v.validate(), v.local_mem_bytes(4)), (Ok(()), 48 * 1024));
        let mut v = xgemm();
        v.params.insert("DB".into(), 4);
        v.params.insert("SA".into(), 0);
        assert_eq!(v.validate().unwrap_err().field, "DB < 2 || SA + SB == 2");
    }

    #[test]
    fn constraints_read_only_the_parameters_they_name() {
        // The space's enumeration checks a constraint once the parameters of its formula are set
        // (and the constraints before it hold): the others must not change its verdict.
        use rand::{rngs::StdRng, seq::SliceRandom, SeedableRng};
        let mut rng = StdRng::seed_from_u64(3);
        for family in Family::ALL {
            let specs = family.params();
            let constraints = family.constraints();
            for (i, c) in constraints.iter().enumerate() {
                let named: Vec<&str> = c.words().collect();
                assert!(named.iter().any(|w| specs.iter().any(|s| s.name == *w)), "{}", c.name);
                let earlier_hold =
                    |values: &BTreeMap<&str, u32>| constraints[..i].iter().all(|e| (e.holds)(&|n: &str| values[n]));
                let mut compared = 0;
                for _ in 0..100000 {
                    let mut values: BTreeMap<&str, u32> =
                        specs.iter().map(|s| (s.name, *s.allowed.choose(&mut rng).unwrap())).collect();
                    if !earlier_hold(&values) {
                        continue;
                    }
                    let verdict = (c.holds)(&|n: &str| values[n]);
                    for _ in 0..50 {
                        for s in specs.iter().filter(|s| !named.contains(&s.name)) {
                            values.insert(s.name, *s.allowed.choose(&mut rng).unwrap());
                        }
                        if earlier_hold(&values) {
                            compared += 1;
                            let again = (c.holds)(&|n: &str| values[n]);
                            assert_eq!(again, verdict, "{} reads a parameter it does not name", c.name);
                            break;
                        }
                    }
                }
                assert!(compared >= 5, "{}: {compared} comparisons", c.name);
            }
        }
    }

    #[test]
    fn stream_k_excludes_split_k() {
        let mut v = xgemm();
        v.params.insert("SK".into(), 2);
        assert_eq!(v.validate(), Ok(()));
        v.params.insert("KSPLIT".into(), 0);
        assert_eq!(v.validate().unwrap_err().field, "SK == 0 || KSPLIT == 1");
    }

    #[test]
    fn split_k_and_vector_widths_shape_the_launch() {
        let mut v = xgemm();
        v.params.insert("KSPLIT".into(), 8);
        v.params.insert("VWK".into(), 4);
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.geometry().k_splits, 8);
        v.params.insert("VWK".into(), 8);
        assert_eq!(v.validate().unwrap_err().field, "(MWG*KWG) % (MDIMC*NDIMC*VWK) == 0");
        let mut d = Variant::new(
            Family::Direct,
            &[
                ("WPTM", 1),
                ("WPTN", 2),
                ("NDIMD", 4),
                ("KDIMD", 64),
                ("VWD", 4),
                ("UKD", 4),
                ("RBR", 0),
                ("UKK", 0),
                ("KSPLIT", 1),
            ],
        );
        assert_eq!(d.validate(), Ok(()));
        assert_eq!(d.geometry().tile, [1, 32]);
        assert_eq!(d.local_mem_bytes(4), 2 * 4 * 256 * 4);
        d.params.insert("RBR".into(), 1);
        assert_eq!(d.validate().unwrap_err().field, "RBR == 0 || WPTM > 1", "one row has one round anyway");
        // 8 rows reduced at once need 8 * 8 * 1024 * 4 bytes, over the limit; one at a time, an eighth.
        d.params.extend([("WPTM".to_string(), 8), ("KDIMD".to_string(), 256), ("RBR".to_string(), 0)]);
        assert_eq!(d.validate().unwrap_err().field, "(RBR ? 1 : WPTM)*WPTN*VWD*NDIMD*KDIMD*4 <= 49152");
        d.params.insert("RBR".into(), 1);
        assert_eq!(d.validate(), Ok(()));
        assert_eq!(d.local_mem_bytes(4), 8 * 1024 * 4);
        d.params.insert("UKD".into(), 8);
        assert_eq!(d.validate().unwrap_err().field, "UKD*WPTN*VWD <= 32");
        // KSPLIT = 0: work-groups of 256 work-items (their splits: fewfit's launch policy).
        d.params.extend(
            [("WPTM", 4), ("WPTN", 1), ("NDIMD", 8), ("KDIMD", 32), ("UKD", 4), ("RBR", 0), ("KSPLIT", 0)]
                .map(|(n, v)| (n.to_string(), v)),
        );
        assert_eq!(d.validate(), Ok(()));
        let g = d.geometry();
        assert_eq!((g.tile, g.local), ([4, 32], [1, 256]));
    }

    #[test]
    fn a_cpu_caps_the_panel_vector_width_at_its_registers() {
        // AVX-512 holds 16 floats or 8 doubles, AVX2 8 or 4, SSE 4 or 2 (the narrowest VW is 4).
        assert_eq!([vw_cap(16), vw_cap(8), vw_cap(4), vw_cap(2), vw_cap(1), vw_cap(32)], [16, 8, 4, 4, 4, 16]);
        let v = Variant::new(Family::Panel, &[("VW", 16), ("MV", 4), ("NR", 4), ("LM", 2), ("LN", 8), ("KC", 128)]);
        let narrowed = v.with_vw_cap(8);
        assert_eq!((narrowed.get("VW"), narrowed.get("LM")), (8, 4));
        assert_eq!((narrowed.geometry().local, narrowed.geometry().tile), ([4, 8], [128, 32]), "the same tile");
        assert_eq!(v.with_vw_cap(4).geometry().local, [8, 8]);
        assert_eq!(v.with_vw_cap(16), v, "a cap at or above VW changes nothing");
        let mut packed = v.clone();
        packed.params.insert("PA".into(), 1);
        assert_eq!(packed.with_vw_cap(8).get("PA"), 0, "a narrowed block does not pack A");
        assert_eq!(packed.with_vw_cap(8).local_mem_bytes(4), 0);
        assert_eq!(packed.with_vw_cap(16), packed);
        let x = Variant::new(Family::Direct, &[("VWD", 4), ("WPTM", 2)]);
        assert_eq!(x.with_vw_cap(4), x, "only the panel family narrows");
    }

    #[test]
    fn panel_geometry_covers_its_work_items_blocks() {
        let v = Variant::new(
            Family::Panel,
            &[("VW", 16), ("MV", 2), ("NR", 8), ("LM", 1), ("LN", 4), ("KC", 256), ("PA", 0)],
        );
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.id(), "panel_kc256_lm1_ln4_mv2_nr8_pa0_vw16");
        let g = v.geometry();
        assert_eq!((g.local, g.tile, g.orientation), ([1, 4], [32, 32], Orientation::AlongM));
        assert_eq!(v.local_mem_bytes(8), 0);
        let mut packed = v.clone();
        packed.params.insert("PA".into(), 1);
        assert_eq!(packed.local_mem_bytes(4), 256 * 32 * 4, "a K slice of the group's 32 rows of A");
        assert_eq!((packed.geometry().pack_a, g.pack_a), (PackA::Always, PackA::Never));
        // PA = 2 packs large launches (fewfit's launch policy), in the same local memory.
        let mut where_large = v.clone();
        where_large.params.insert("PA".into(), 2);
        assert_eq!(where_large.validate(), Ok(()));
        assert_eq!(where_large.local_mem_bytes(4), packed.local_mem_bytes(4));
        let large = where_large.geometry();
        assert_eq!(large.pack_a, PackA::WhereLarge);
        assert_eq!(where_large.with_vw_cap(8).geometry().pack_a, PackA::Never, "a narrowed block does not pack");
        let mut wide = v.clone();
        wide.params.insert("MV".into(), 4);
        assert_eq!(wide.validate().unwrap_err().field, "MV*NR <= 28");
    }

    #[test]
    fn mma_variants_shape_warps_of_mma_tiles_in_48_kib() {
        let mma = |mwg, nwg, kwg, wm, wn| {
            Variant::new(Family::Mma, &[("MWG", mwg), ("NWG", nwg), ("KWG", kwg), ("WM", wm), ("WN", wn)])
        };
        let v = mma(128, 128, 16, 2, 2);
        assert_eq!(v.validate(), Ok(()));
        assert_eq!(v.name(), "mma_128x128x16_w2x2");
        assert_eq!(v.id(), "mma_kwg16_mwg128_nwg128_wm2_wn2");
        assert_eq!(Variant::from_id(&v.id()), Some(v.clone()));
        let g = v.geometry();
        assert_eq!((g.local, g.tile, g.k_splits, g.stream_k), ([64, 2], [128, 128], 1, 0));
        assert_eq!((g.orientation, g.transposing_stores), (Orientation::ColumnMajorC, [false; 2]));
        assert_eq!(v.work_group_size(), 128);
        // Two buffers of 256 rows (of op(A) and columns of op(B)), each KWG elements and 16 bytes.
        assert_eq!(v.local_mem_bytes(2), 2 * 256 * (16 * 2 + 16));
        assert_eq!(v.local_mem_bytes(4), 2 * 256 * (16 * 4 + 16));
        assert_eq!(mma(64, 32, 32, 2, 1).validate(), Ok(()));
        assert_eq!(mma(32, 64, 32, 1, 2).geometry().local, [32, 2]);
        assert_eq!(mma(16, 16, 32, 1, 1).validate(), Ok(()));
        let broken = |v: Variant| v.validate().unwrap_err().field;
        assert_eq!(broken(mma(32, 32, 16, 4, 1)), "MWG % (16*WM) == 0", "warps of 8 rows");
        assert_eq!(broken(mma(64, 16, 64, 1, 4)), "NWG % (8*WN) == 0", "warps of 4 columns");
        assert_eq!(broken(mma(256, 256, 64, 8, 4)), "WM*WN <= 16");
        assert_eq!(broken(mma(256, 256, 64, 2, 2)), "(MWG/WM)*(NWG/WN) <= 4096", "256 accumulators a lane");
        assert_eq!(broken(mma(64, 64, 16, 2, 2)), "(MWG*KWG) % (512*WM*WN) == 0", "an 8 x 2 block a work-item");
        assert_eq!(broken(mma(128, 32, 32, 4, 2)), "(NWG*KWG) % (512*WM*WN) == 0");
        // One warp staging a 64 x 64 x 32 tile holds 128 words of the next slice (in tf32), spilling.
        assert_eq!(broken(mma(64, 64, 32, 1, 1)), "(MWG+NWG)*KWG <= 2048*WM*WN");
        // 128 x 128 x 32 fits 48 KiB in 16-bit elements (40 KiB), not in tf32's 32-bit ones (72 KiB),
        // where the host refuses it; 256 x 256 x 32 fits in neither.
        assert_eq!(mma(128, 128, 32, 2, 2).validate(), Ok(()));
        assert_eq!(mma(128, 128, 32, 2, 2).local_mem_bytes(2), 40 * 1024);
        assert_eq!(mma(128, 128, 32, 2, 2).local_mem_bytes(4), 72 * 1024);
        assert_eq!(broken(mma(256, 256, 32, 4, 4)), "2*(MWG+NWG)*(KWG*2+16) <= 49152");
    }

    #[test]
    fn broken_constraint_is_named() {
        let mut v = xgemm();
        v.params.insert("MWG".into(), 32);
        v.params.insert("VWM".into(), 4);
        let err = v.validate().unwrap_err();
        assert_eq!(err.field, "MWG % (MDIMC*VWM) == 0");
    }

    #[test]
    fn unknown_missing_and_disallowed_parameters_are_rejected() {
        let mut v = xgemm();
        v.params.insert("FOO".into(), 1);
        assert_eq!(v.validate().unwrap_err().field, "FOO");
        let mut v = xgemm();
        v.params.remove("KWI");
        assert_eq!(v.validate().unwrap_err().field, "KWI");
        let mut v = xgemm();
        v.params.insert("VWM".into(), 3);
        assert_eq!(v.validate().unwrap_err().field, "VWM");
    }
}
