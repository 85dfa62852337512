//! Dispatch: the shipped variant set and the selector trees, generated at build time from
//! `variants/selected.json` and `selector/*.json` (`include!`d from `OUT_DIR`), each device
//! class's selector, and [`explain`], which shows a shape's path through its tree.
//!
//! Everything that reads the names build.rs generates (the `VariantId` enum, the table's ids, the
//! `select_<class>` functions, the trees' text and leaves) is in the section "Generated names"
//! below; the rest of the crate sees only [`VariantId`], [`VariantInfo`] and the functions here.

use std::fmt;

use once_cell::sync::Lazy;

use crate::codegen::tree::{Step, Tree};
use crate::codegen::{Family, Orientation, ShapeFeatures};
use crate::device::DeviceClass;

/// One variant of the shipped set, as rendered at build time.
#[derive(Debug)]
pub struct VariantInfo {
    /// The stable id derived from the parameters.
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

/// Which variant a shape goes to on a class of device, and the path through the tree that led there.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The device class.
    pub class: DeviceClass,
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
    /// The generated selector of this class (nested `if`s compiled from its tree).
    pub fn selector(self) -> fn(&ShapeFeatures) -> VariantId {
        match self {
            DeviceClass::Cpu => generated::select_cpu,
            DeviceClass::NvidiaGpu => generated::select_nvidia_gpu,
            DeviceClass::Gpu => generated::select_gpu,
            DeviceClass::Default => generated::select_default,
        }
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

    /// The variant as a `codegen::Variant` (for re-rendering or comparison).
    pub fn variant(self) -> crate::codegen::Variant {
        let info = self.info();
        crate::codegen::Variant::new(info.family, info.params)
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info().id)
    }
}

/// The trees, parsed once for `explain` (they were validated at build time).
static TREES: Lazy<Vec<(DeviceClass, Tree)>> = Lazy::new(|| {
    let ids: Vec<String> = VARIANTS.iter().map(|v| v.id.to_string()).collect();
    generated::TREES
        .iter()
        .filter_map(|(class, text)| {
            let path = format!("selector/{class}.json");
            let tree = Tree::parse(std::path::Path::new(&path), text, &ids).expect("validated by build.rs");
            DeviceClass::from_name(class).map(|c| (c, tree))
        })
        .collect()
});

/// The tree of a class, as shipped.
pub fn tree(class: DeviceClass) -> &'static Tree {
    &TREES.iter().find(|(c, _)| *c == class).expect("every class ships a tree").1
}

/// The variants a class's tree can pick (its leaves, each once, in set order): all that automatic
/// selection ever launches on a device of that class.
pub fn reachable(class: DeviceClass) -> Vec<VariantId> {
    let leaves = tree(class).leaf_variants();
    VariantId::ALL.into_iter().filter(|v| leaves.contains(&v.info().id)).collect()
}

/// Explains the choice for an M×N×K problem given in the kernel's view (column-major C); for a
/// row-major call, pass (n, m) or use [`crate::spec::GemmSpec::kernel_features`].
pub fn explain(class: DeviceClass, features: ShapeFeatures) -> Explanation {
    let decision = tree(class).decide(&features);
    let variant = VariantId::from_id(decision.variant()).expect("leaves name shipped variants");
    Explanation { class, features, variant, leaf: decision.leaf, path: decision.path }
}

// ---------------------------------------------------------------------------------------------
// End of "Generated names".
// ---------------------------------------------------------------------------------------------

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.features;
        writeln!(f, "class {}: M={} N={} K={} (kernel view) -> {}", self.class, s.m, s.n, s.k, self.variant)?;
        for step in &self.path {
            let (op, side) = if step.went_le { ("<=", "le") } else { (">", "gt") };
            writeln!(f, "  {} = {} {} {} -> {}", step.feature, step.value, op, step.threshold, side)?;
        }
        write!(f, "  leaf {}", self.leaf)
    }
}
