//! The variant space a sweep draws from (`variants/space.json`): per kernel family, the values each
//! parameter may take. The space is the product of those lists, filtered by the family's
//! constraints and by a device's limits.

use std::collections::BTreeMap;
use std::path::Path;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::Deserialize;

use super::error::{Error, Result};
use fewfit::Precision;
use fewfit_codegen::params::Constraint;
use fewfit_codegen::{Family, Variant};

/// `variants/space.json`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Space {
    /// What the space is for.
    #[serde(default)]
    pub comment: String,
    /// Per family name, per parameter, the values to try.
    pub families: BTreeMap<String, BTreeMap<String, Vec<u32>>>,
}

/// A device's limits that rule variants out before any compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest work-group size.
    pub max_work_group_size: usize,
    /// Local memory per work-group, in bytes.
    pub local_mem_bytes: usize,
    /// The precision swept, whose element sizes the variants' local memory counts in.
    pub precision: Precision,
}

impl Space {
    /// Reads and checks a space file: every family known, every parameter of each family listed
    /// with values its template supports (a parameter with a neutral value may be omitted: it takes
    /// only that value).
    pub fn load(path: &Path) -> Result<Space> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.into(), source })?;
        let mut space: Space =
            serde_json::from_str(&text).map_err(|e| Error::Parse { path: path.into(), reason: e.to_string() })?;
        for (name, params) in &mut space.families {
            let family = family_named(name).ok_or_else(|| Error::Parse {
                path: path.into(),
                reason: format!("families.{name}: unknown family"),
            })?;
            for &(param, neutral) in family.neutral_defaults() {
                params.entry(param.to_string()).or_insert_with(|| vec![neutral]);
            }
            for spec in family.params() {
                let values = params.get(spec.name).ok_or_else(|| Error::Parse {
                    path: path.into(),
                    reason: format!("families.{name}.{}: missing", spec.name),
                })?;
                if values.is_empty() {
                    return Err(Error::Parse {
                        path: path.into(),
                        reason: format!("families.{name}.{}: no values", spec.name),
                    });
                }
                if let Some(v) = values.iter().enumerate().find_map(|(i, v)| values[..i].contains(v).then_some(v)) {
                    return Err(Error::Parse {
                        path: path.into(),
                        reason: format!("families.{name}.{}: {v} appears twice", spec.name),
                    });
                }
                if let Some(v) = values.iter().find(|v| !spec.allowed.contains(v)) {
                    return Err(Error::Parse {
                        path: path.into(),
                        reason: format!("families.{name}.{}: {v} is not one of {:?}", spec.name, spec.allowed),
                    });
                }
            }
            if let Some(extra) = params.keys().find(|k| !family.params().iter().any(|s| s.name == k.as_str())) {
                return Err(Error::Parse {
                    path: path.into(),
                    reason: format!("families.{name}.{extra}: unknown parameter"),
                });
            }
        }
        Ok(space)
    }

    /// Every variant of the space that satisfies its family's constraints and fits the limits,
    /// in a stable order (families by name, then parameter values in order, the last parameter
    /// fastest). Stored compactly: a general space holds millions of valid variants.
    pub fn variants(&self, limits: &Limits) -> Candidates {
        let mut blocks = Vec::new();
        for (name, params) in &self.families {
            let Some(family) = family_named(name) else { continue };
            let names: Vec<&'static str> = family.params().iter().map(|s| s.name).collect();
            let lists: Vec<Vec<u32>> = names.iter().map(|n| params[*n].clone()).collect();
            // Each constraint is checked as soon as the last parameter its formula names is set,
            // so a part of the product that breaks it is skipped whole (the product of a general
            // space has over 10^8 members); never before an earlier constraint, whose holding a
            // formula may rely on (a divisor that is not zero).
            let mut checks: Vec<Vec<&Constraint>> = vec![Vec::new(); names.len()];
            let mut at = 0;
            for c in family.constraints() {
                let last = c.words().filter_map(|w| names.iter().position(|n| *n == w)).max().unwrap_or(0);
                at = at.max(last);
                checks[at].push(c);
            }
            let variant = Variant::new(family, &names.iter().zip(&lists).map(|(n, l)| (*n, l[0])).collect::<Vec<_>>());
            let mut walk =
                Walk { names: &names, lists: &lists, checks: &checks, limits, variant, index: vec![], indices: vec![] };
            walk.from(0);
            let indices = walk.indices;
            blocks.push(Block { family, names, lists, indices });
        }
        Candidates { blocks }
    }
}

/// The depth-first walk of one family's product for [`Space::variants`].
struct Walk<'a> {
    names: &'a [&'static str],
    lists: &'a [Vec<u32>],
    /// The constraints checked once the parameter of each position is set.
    checks: &'a [Vec<&'static Constraint>],
    limits: &'a Limits,
    /// The variant being built, changed in place (no allocation per candidate).
    variant: Variant,
    /// The indices of the values set so far.
    index: Vec<u8>,
    /// The indices of every valid variant found, variant after variant.
    indices: Vec<u8>,
}

impl Walk<'_> {
    /// Sets the parameter at position `d` to each of its values in turn, and goes on below every
    /// value that passes the constraints checked there.
    fn from(&mut self, d: usize) {
        if d == self.names.len() {
            if fits(&self.variant, self.limits) {
                self.indices.extend_from_slice(&self.index);
            }
            return;
        }
        for (i, &value) in self.lists[d].iter().enumerate() {
            *self.variant.params.get_mut(self.names[d]).expect("every parameter is set") = value;
            let variant = &self.variant;
            if self.checks[d].iter().all(|c| (c.holds)(&|n: &str| variant.get(n))) {
                self.index.push(i as u8);
                self.from(d + 1);
                self.index.pop();
            }
        }
    }
}

/// The valid variants of a space on a device ([`Space::variants`]): per family, each variant as
/// the indices of its parameter values in the space's lists (one byte each).
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    blocks: Vec<Block>,
}

#[derive(Clone, Debug)]
struct Block {
    family: Family,
    names: Vec<&'static str>,
    lists: Vec<Vec<u32>>,
    /// `names.len()` indices per variant, variant after variant.
    indices: Vec<u8>,
}

impl Block {
    fn len(&self) -> usize {
        self.indices.len() / self.names.len().max(1)
    }
}

impl Candidates {
    /// The number of variants.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(Block::len).sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The block holding variant `i`, and `i` within it.
    fn locate(&self, mut i: usize) -> (&Block, usize) {
        for block in &self.blocks {
            if i < block.len() {
                return (block, i);
            }
            i -= block.len();
        }
        panic!("candidate index out of range")
    }

    /// The family of variant `i` (below [`Candidates::len`]).
    pub fn family(&self, i: usize) -> Family {
        self.locate(i).0.family
    }

    /// Variant `i` (below [`Candidates::len`]).
    pub fn get(&self, i: usize) -> Variant {
        let (block, j) = self.locate(i);
        let width = block.names.len();
        let index = &block.indices[j * width..(j + 1) * width];
        let params = block.names.iter().zip(&block.lists).zip(index).map(|((n, l), &k)| (*n, l[usize::from(k)]));
        Variant::new(block.family, &params.collect::<Vec<_>>())
    }

    /// Every variant, in order.
    pub fn iter(&self) -> impl Iterator<Item = Variant> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Whether a variant fits a device's work-group and local-memory limits in the limits' precision,
/// counting local memory as the runtime does when it builds ([`Precision::local_element_bytes`]),
/// and computes in that precision ([`Precision::computed_by`]: the tensor-core family fits no f32
/// or f64 sweep).
pub fn fits(variant: &Variant, limits: &Limits) -> bool {
    limits.precision.computed_by(variant.family)
        && variant.work_group_size() <= limits.max_work_group_size
        && variant.local_mem_bytes(limits.precision.local_element_bytes(variant.family)) <= limits.local_mem_bytes
}

fn family_named(name: &str) -> Option<Family> {
    Family::ALL.into_iter().find(|f| f.name() == name)
}

/// A deterministic sample of at most `count` variants (all of them if fewer), keeping each family's
/// share of the space, in the input order. The same seed and space give the same sample.
pub fn sample(variants: &Candidates, count: usize, seed: u64) -> Vec<Variant> {
    if count >= variants.len() {
        return variants.iter().collect();
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut chosen: Vec<usize> = Vec::new();
    for family in Family::ALL {
        let members: Vec<usize> = (0..variants.len()).filter(|&i| variants.family(i) == family).collect();
        let share = (members.len() * count).div_ceil(variants.len()).min(members.len());
        chosen.extend(members.choose_multiple(&mut rng, share));
    }
    chosen.sort_unstable();
    chosen.truncate(count);
    chosen.into_iter().map(|i| variants.get(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space_file() -> std::path::PathBuf {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("variants/space.json")
    }

    const GPU: Limits = Limits { max_work_group_size: 1024, local_mem_bytes: 49152, precision: Precision::F32 };
    const GPU_F16: Limits = Limits { precision: Precision::F16, ..GPU };
    const TINY: Limits = Limits { max_work_group_size: 64, local_mem_bytes: 4096, precision: Precision::F32 };

    #[test]
    fn shipped_space_loads_and_enumerates_valid_variants() {
        let space = Space::load(&space_file()).unwrap();
        let all = space.variants(&GPU);
        assert!(all.len() > 100, "{}", all.len());
        // Every 997th: building all of them would take long.
        assert!((0..all.len()).step_by(997).map(|i| all.get(i)).all(|v| v.validate().is_ok() && fits(&v, &GPU)));
        let small = space.variants(&TINY);
        assert!(small.len() < all.len());
        assert!(small.iter().all(|v| v.work_group_size() <= 64 && v.local_mem_bytes(4) <= 4096));
    }

    #[test]
    fn the_tensor_core_family_fits_only_the_precisions_it_computes_in() {
        let mma = Variant::new(Family::Mma, &[("MWG", 64), ("NWG", 64), ("KWG", 32), ("WM", 2), ("WN", 2)]);
        assert!(mma.validate().is_ok());
        assert!(fits(&mma, &GPU_F16));
        assert!(fits(&mma, &Limits { precision: Precision::Tf32, ..GPU }));
        assert!(!fits(&mma, &GPU));
        assert!(!fits(&mma, &Limits { precision: Precision::F64, ..GPU }));
    }

    #[test]
    fn every_space_file_of_the_repo_loads_and_enumerates_valid_variants() {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("variants");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name().unwrap().to_string_lossy().starts_with("space") && p.extension().unwrap() == "json"
            })
            .collect();
        files.sort();
        assert!(files.len() > 5, "{files:?}");
        for path in files {
            let space = Space::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let (mut limits, mut all) = (GPU, space.variants(&GPU));
            if all.is_empty() {
                // The tensor-core family's space, in a precision it computes in.
                limits = GPU_F16;
                all = space.variants(&limits);
            }
            assert!(!all.is_empty(), "{}", path.display());
            let step = (all.len() / 50).max(1);
            for v in (0..all.len()).step_by(step).map(|i| all.get(i)) {
                assert!(v.validate().is_ok() && fits(&v, &limits), "{}: {}", path.display(), v.id());
            }
        }
    }

    /// The naive product, last parameter fastest, families by name, filtered variant by variant.
    fn naive(space: &Space, limits: &Limits) -> Vec<Variant> {
        let mut naive = Vec::new();
        for (name, params) in &space.families {
            let family = family_named(name).unwrap();
            let mut combos: Vec<Vec<(&str, u32)>> = vec![vec![]];
            for spec in family.params() {
                combos = combos
                    .into_iter()
                    .flat_map(|c| params[spec.name].iter().map(move |&v| [c.clone(), vec![(spec.name, v)]].concat()))
                    .collect();
            }
            naive.extend(
                combos.iter().map(|c| Variant::new(family, c)).filter(|v| v.validate().is_ok() && fits(v, limits)),
            );
        }
        naive
    }

    #[test]
    fn compact_enumeration_is_the_filtered_product_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("space.json");
        let xgemm = r#""MWG": [16, 32, 64], "NWG": [32], "KWG": [16], "MDIMC": [8, 16], "NDIMC": [8], "MDIMA": [8],
            "NDIMB": [8], "KWI": [2], "VWM": [1, 2, 8], "VWN": [1], "STRM": [0, 1], "STRN": [0], "SA": [1], "SB": [1],
            "DB": [0, 1]"#;
        let text = format!(
            r#"{{"families": {{"xgemm": {{{xgemm}}}, "direct": {{"WPTM": [1, 4], "WPTN": [1], "NDIMD": [8, 64], "KDIMD": [8, 256]}}}}}}"#
        );
        std::fs::write(&path, text).unwrap();
        let space = Space::load(&path).unwrap();
        let naive = naive(&space, &GPU);
        let compact = space.variants(&GPU);
        assert!(naive.len() > 8 && naive.len() < 80, "some, not all, of the 80 combinations: {}", naive.len());
        assert_eq!(compact.iter().collect::<Vec<_>>(), naive);
        assert_eq!(compact.family(0), Family::Direct);
    }

    #[test]
    fn the_walk_skips_only_what_the_filter_would() {
        // A shipped space of 147,456 combinations: the walk that checks each constraint early
        // keeps exactly the variants that checking each combination whole keeps, in order.
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("variants/space-gpu-xl.json");
        let space = Space::load(&path).unwrap();
        let naive = naive(&space, &GPU);
        assert!(!naive.is_empty());
        assert_eq!(space.variants(&GPU).iter().collect::<Vec<_>>(), naive);
    }

    #[test]
    fn sample_is_deterministic_and_keeps_families() {
        let space = Space::load(&space_file()).unwrap();
        let all = space.variants(&GPU);
        let a = sample(&all, 50, 7);
        assert_eq!(a, sample(&all, 50, 7));
        assert_ne!(a, sample(&all, 50, 8));
        assert!(a.len() <= 50);
        assert!(space.families.len() >= 3, "{:?}", space.families.keys());
        for f in space.families.keys() {
            assert!(a.iter().any(|v| v.family.name() == f), "{f}");
        }
    }

    #[test]
    fn bad_space_files_name_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("space.json");
        std::fs::write(&path, r#"{"families": {"direct": {"WPTM": [1], "WPTN": [1], "NDIMD": [32]}}}"#).unwrap();
        let err = Space::load(&path).unwrap_err().to_string();
        assert!(err.contains("families.direct.KDIMD: missing"), "{err}");
        std::fs::write(&path, r#"{"families": {"nope": {}}}"#).unwrap();
        assert!(Space::load(&path).unwrap_err().to_string().contains("unknown family"));
        std::fs::write(
            &path,
            r#"{"families": {"direct": {"WPTM": [1, 2, 1], "WPTN": [1], "NDIMD": [32], "KDIMD": [8]}}}"#,
        )
        .unwrap();
        let err = Space::load(&path).unwrap_err().to_string();
        assert!(err.contains("families.direct.WPTM: 1 appears twice"), "{err}");
    }
}
