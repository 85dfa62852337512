//! Dispatch: the shipped variant set and the selector trees, generated at build time from
//! `variants/selected.json` and `selector/*.json` (`include!`d from `OUT_DIR`), the selector of
//! each (device class, precision) pair, and [`explain`], which shows a shape's path through its
//! tree.
//!
//! Everything that reads the names build.rs generates (the `VariantId` enum, the table's names and
//! ids, the pairs' selections: their `select_*` functions, the trees' static tables and reachable
//! lists) is in the section "Generated names" below; the rest of the crate sees only [`VariantId`], [`VariantInfo`]
//! and the functions here. Nothing is parsed at run time: build.rs compiled the trees into code and
//! static data.

use std::fmt;

#[cfg(feature = "tuning")]
use once_cell::sync::Lazy;

use crate::codegen::tree::Step;
#[cfg(feature = "tuning")]
use crate::codegen::tree::Tree;
use crate::codegen::{Family, Orientation, ShapeFeatures};
use crate::device::DeviceClass;
use crate::spec::Precision;

/// One variant of the shipped set, as rendered at build time.
#[derive(Debug)]
pub struct VariantInfo {
    /// The short name derived from the parameters (`codegen::Variant::name`), as the enum, the trees,
    /// `explain` and the logs give it.
    pub name: &'static str,
    /// The stable id derived from the parameters: every parameter (the datasets' and the tuner's key).
    pub id: &'static str,
    /// The kernel family.
    pub family: Family,
    /// Parameters by name, sorted.
    pub params: &'static [(&'static str, u32)],
    /// Work-group shape.
    pub local: [usize; 2],
    /// Rows and columns of C per work-group.
    pub tile: [usize; 2],
    /// How the host orients the problem for this kernel.
    pub orientation: Orientation,
    /// SHA-256 of `source`.
    pub source_sha256: &'static str,
    /// The OpenCL C source.
    pub source: &'static str,
    /// For KSPLIT = 0 or SK > 0, the split-K or stream-K program launched when the host splits K
    /// (`render_sources`).
    pub split_source: Option<&'static str>,
    /// For PA = 2, the panel program without packing that launches too small to pack A run
    /// (`render_sources`).
    pub unpacked_source: Option<&'static str>,
}

/// Which variant a shape goes to on a class of device in a precision, and the path through the
/// tree that led there.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The device class.
    pub class: DeviceClass,
    /// The precision whose tree decided (that of the set the call runs in: see
    /// [`crate::Engine::runs_as`]).
    pub precision: Precision,
    /// The features of the kernel's view of the problem.
    pub features: ShapeFeatures,
    /// The chosen variant.
    pub variant: VariantId,
    /// The leaf's number in the tree.
    pub leaf: usize,
    /// The splits on the way.
    pub path: Vec<Step>,
}

// ---------------------------------------------------------------------------------------------
// Generated names: how the runtime consumes what build.rs emits (the enum, the table, the
// selectors, the trees). Nothing outside this section names a generated item or a variant id.
// ---------------------------------------------------------------------------------------------

mod generated {
    use super::{Family, Orientation, ShapeFeatures, VariantInfo};
    include!(concat!(env!("OUT_DIR"), "/variants.rs"));
    include!(concat!(env!("OUT_DIR"), "/selector.rs"));
}

pub(crate) use generated::HELPERS_SOURCE;
pub use generated::{VariantId, VARIANTS};

impl DeviceClass {
    /// The generated selector of this class in `precision` (nested `if`s compiled from its tree).
    pub fn selector(self, precision: Precision) -> fn(&ShapeFeatures) -> VariantId {
        selection(self, precision).select
    }
}

impl VariantId {
    /// The dense index of the variant in the shipped table (`VARIANTS`).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The variant's table entry.
    pub fn info(self) -> &'static VariantInfo {
        &VARIANTS[self.index()]
    }

    /// The variant with this id, if it is in the shipped set.
    pub fn from_id(id: &str) -> Option<VariantId> {
        VariantId::ALL.into_iter().find(|v| v.info().id == id)
    }

    /// The variant with this short name, if it is in the shipped set.
    pub fn from_name(name: &str) -> Option<VariantId> {
        VariantId::ALL.into_iter().find(|v| v.info().name == name)
    }

    /// The short name, e.g. `xgemm_128x128x16_dbreg_sk2_rpnotambk`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The variant as a `codegen::Variant` (for re-rendering or comparison).
    pub fn variant(self) -> crate::codegen::Variant {
        let info = self.info();
        crate::codegen::Variant::new(info.family, info.params)
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info().name)
    }
}

/// The generated selection of a (class, precision) pair: its selector, its tree as static data and
/// the variants it can reach. The table is indexed as `DeviceClass::ALL` and `Precision::ALL` are
/// ordered (`codegen::CLASSES`, `codegen::PRECISIONS`), which debug builds check at each look-up.
fn selection(class: DeviceClass, precision: Precision) -> &'static generated::ClassSelection {
    let selection = &generated::CLASS_SELECTIONS[class as usize][precision as usize];
    debug_assert_eq!((selection.class, selection.precision), (class.name(), precision.name()));
    selection
}

/// The trees rebuilt from the static tables (leaves by id, no training statistics), for the tests
/// and the bench that compare the generated selectors with the interpreter.
#[cfg(feature = "tuning")]
static TREES: Lazy<Vec<(DeviceClass, Precision, Tree)>> = Lazy::new(|| {
    use crate::codegen::tree::Node;
    fn node(table: &[generated::TreeNode], i: usize) -> Node {
        match table[i] {
            generated::TreeNode::Leaf { variant, .. } => Node::Leaf {
                variant: variant.info().id.to_string(),
                shapes: None,
                geomean_slowdown: None,
                worst_slowdown: None,
            },
            generated::TreeNode::Split { feature, threshold, le, gt } => Node::Split {
                feature: feature.to_string(),
                threshold,
                shapes: None,
                le: Box::new(node(table, le)),
                gt: Box::new(node(table, gt)),
            },
        }
    }
    DeviceClass::ALL
        .into_iter()
        .flat_map(|c| Precision::ALL.map(|p| (c, p)))
        .map(|(c, p)| (c, p, Tree::new(c.name(), p.name(), node(selection(c, p).tree, 0))))
        .collect()
});

/// The tree of a class in a precision, as shipped (rebuilt from its static table: leaves by id).
#[cfg(feature = "tuning")]
pub fn tree(class: DeviceClass, precision: Precision) -> &'static Tree {
    &TREES.iter().find(|(c, p, _)| (*c, *p) == (class, precision)).expect("every pair ships a tree").2
}

/// The variants the tree of a class in a precision can pick (its leaves, each once, in set order):
/// all that automatic selection ever launches in that precision on a device of that class (listed
/// by build.rs).
pub fn reachable(class: DeviceClass, precision: Precision) -> Vec<VariantId> {
    selection(class, precision).reachable.to_vec()
}

/// Explains the choice for an M×N×K problem given in the kernel's view (column-major C) in the
/// tree of `class` in `precision`; for a row-major call, pass (n, m) or use
/// [`crate::spec::GemmSpec::kernel_features`].
pub fn explain(class: DeviceClass, precision: Precision, features: ShapeFeatures) -> Explanation {
    let table = selection(class, precision).tree;
    let mut path = Vec::new();
    let mut i = 0;
    loop {
        match table[i] {
            generated::TreeNode::Leaf { variant, leaf } => {
                return Explanation { class, precision, features, variant, leaf, path }
            }
            generated::TreeNode::Split { feature, threshold, le, gt } => {
                let value = features.get(feature).expect("build.rs checks the trees' features");
                let went_le = value <= threshold;
                path.push(Step { feature: feature.to_string(), value, threshold, went_le });
                i = if went_le { le } else { gt };
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// End of "Generated names".
// ---------------------------------------------------------------------------------------------

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.features;
        writeln!(
            f,
            "class {}, {}: M={} N={} K={} (kernel view) -> {}",
            self.class, self.precision, s.m, s.n, s.k, self.variant
        )?;
        for step in &self.path {
            let (op, side) = if step.went_le { ("<=", "le") } else { (">", "gt") };
            writeln!(f, "  {} = {} {} {} -> {}", step.feature, step.value, op, step.threshold, side)?;
        }
        write!(f, "  leaf {}", self.leaf)
    }
}
