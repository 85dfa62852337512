//! Edits of a shipped set and its trees after selection and training, as a release recipe makes
//! them (`fewfit regenerate --recipe`): a member replaced by its twin (the same variant with one
//! parameter changed) in the set and in every tree's leaves, and a subtree trained apart put in
//! place of one layout's subtree, or behind a split that sends the larger devices to it.
//!
//! A recipe names variants by their parameter id ([`Variant::id`](crate::Variant::id)), the key of
//! the datasets' records; a tree in memory names them by [`leaf_names`] (the selector files by
//! their short names, which reading maps to ids and [`crate::tree_files`] writes back).

use std::path::PathBuf;

use super::error::{Error, Result};
use super::tree::{Node, Tree};
use super::{SelectedSet, PRECISIONS};

/// What the leaves of a tree in memory call the set's variants, in the set's order: their ids
/// (a tree parsed against the set holds ids, whichever way its file names them).
pub fn leaf_names(set: &SelectedSet) -> Vec<String> {
    set.ids()
}

/// A member of a set replaced by its twin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Twin {
    /// The twin's position in the set: the member's, or where the twin already was (another
    /// precision chose it), the member then merged into it.
    pub index: usize,
    /// The member's parameter id.
    pub old_id: String,
    /// The twin's parameter id.
    pub new_id: String,
    /// What the trees' leaves called the member ([`leaf_names`]).
    pub old_name: String,
    /// What they call the twin.
    pub new_name: String,
}

const SET_PATH: &str = "variants/selected.json";

fn tree_path(tree: &Tree) -> PathBuf {
    tree.path()
}

impl SelectedSet {
    /// Puts the twin of the member whose parameter id is `id` (the same variant with parameter
    /// `param` set to `value`) in its place: same position, same count of shapes won. Where the
    /// twin is a member already, the member is removed and its precisions and shapes won are added
    /// to the twin's. The twin must be a valid variant. It may share another member's short name
    /// for a while (a later twin of that member may merge them): the set's file is checked, names
    /// unique, when it is written. The trees' leaves are not touched: rename them from
    /// [`Twin::old_name`] to [`Twin::new_name`] ([`Tree::rename_leaves`]).
    pub fn substitute_twin(&mut self, id: &str, param: &str, value: u32) -> Result<Twin> {
        let invalid = |field: String, reason: String| Error::Invalid { path: SET_PATH.into(), field, reason };
        let index = self
            .variants
            .iter()
            .position(|v| v.variant.id() == id)
            .ok_or_else(|| invalid("variants".into(), format!("no member has the id `{id}`")))?;
        let field = format!("variants[{index}].params.{param}");
        let member = &self.variants[index].variant;
        if !member.params.contains_key(param) {
            return Err(invalid(field, format!("`{id}` has no parameter `{param}`")));
        }
        let mut twin = member.clone();
        twin.params.insert(param.to_string(), value);
        if let Err(e) = twin.validate() {
            return Err(invalid(field, format!("the twin with {param} = {value} breaks `{}`: {}", e.field, e.reason)));
        }
        let new_id = twin.id();
        if let Some(other) = self.variants.iter().position(|v| v.variant.id() == new_id) {
            // Another precision's selection chose the twin itself: the member merges into it.
            let names = leaf_names(self);
            let (old_name, new_name) = (names[index].clone(), names[other].clone());
            let member = self.variants.remove(index);
            let index = if other > index { other - 1 } else { other };
            let entry = &mut self.variants[index];
            for p in member.precisions {
                if !entry.precisions.contains(&p) {
                    entry.precisions.push(p);
                }
            }
            entry.precisions.sort_by_key(|p| PRECISIONS.iter().position(|q| q == p));
            entry.shapes_won = match (entry.shapes_won, member.shapes_won) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
            return Ok(Twin { index, old_id: id.to_string(), new_id, old_name, new_name });
        }
        let old_name = leaf_names(self).swap_remove(index);
        let entry = &mut self.variants[index];
        entry.variant = twin;
        entry.id = new_id.clone();
        let new_name = leaf_names(self).swap_remove(index);
        Ok(Twin { index, old_id: id.to_string(), new_id, old_name, new_name })
    }
}

impl Tree {
    /// Renames the leaves that name `from` to `to`; returns how many it renamed.
    pub fn rename_leaves(&mut self, from: &str, to: &str) -> usize {
        rename(&mut self.root, from, to)
    }

    /// Puts `subtree` in place of the subtree that the layout of `operands_along_k` reaches: the
    /// chain of `operands_along_k` splits at the root is followed, and the first other node on
    /// the way is replaced; the other layouts keep theirs. The splits on the way count their
    /// training shapes again (the sum of their sides'). The tree must split on the layout at its
    /// root, and `subtree` nowhere on the way down (train it on one layout's rows).
    pub fn graft_layout(&mut self, operands_along_k: u64, subtree: Node) -> Result<()> {
        let invalid =
            |field: &str, reason: String| Error::Invalid { path: tree_path(self), field: field.into(), reason };
        if !splits_on(&self.root, "operands_along_k") {
            return Err(invalid(
                "root",
                "the tree has no subtree per layout (no `operands_along_k` split at its root)".into(),
            ));
        }
        if splits_on(&subtree, "operands_along_k") {
            return Err(invalid(
                "root",
                "the subtree to graft splits on the layout at its root: train it on one layout's rows".into(),
            ));
        }
        let root = std::mem::replace(&mut self.root, placeholder());
        self.root = graft_layout(root, operands_along_k, subtree);
        Ok(())
    }

    /// Sends the shapes (or devices) whose `feature` is above `threshold` to `subtree` and the
    /// others to the tree as it was, by a split at the root that counts both sides' training
    /// shapes; e.g. `compute_units` above 2 for a subtree trained on larger devices.
    pub fn graft_above(&mut self, feature: &str, threshold: u64, subtree: Node) {
        let old = std::mem::replace(&mut self.root, placeholder());
        self.root = split(feature, threshold, old, subtree);
    }
}

/// A split of `le` and `gt` that counts their training shapes.
fn split(feature: &str, threshold: u64, le: Node, gt: Node) -> Node {
    let shapes = Some(shapes(&le).unwrap_or(0) + shapes(&gt).unwrap_or(0));
    Node::Split { feature: feature.into(), threshold, shapes, le: Box::new(le), gt: Box::new(gt) }
}

fn shapes(node: &Node) -> Option<u64> {
    match node {
        Node::Split { shapes, .. } | Node::Leaf { shapes, .. } => *shapes,
    }
}

fn splits_on(node: &Node, name: &str) -> bool {
    matches!(node, Node::Split { feature, .. } if feature == name)
}

/// A node to hold a tree's place while its root is moved out and back.
fn placeholder() -> Node {
    Node::Leaf { variant: String::new(), shapes: None, geomean_slowdown: None, worst_slowdown: None }
}

fn graft_layout(node: Node, operands_along_k: u64, subtree: Node) -> Node {
    match node {
        Node::Split { feature, threshold, le, gt, .. } if feature == "operands_along_k" => {
            let (le, gt) = if operands_along_k <= threshold {
                (graft_layout(*le, operands_along_k, subtree), *gt)
            } else {
                (*le, graft_layout(*gt, operands_along_k, subtree))
            };
            split(&feature, threshold, le, gt)
        }
        _ => subtree,
    }
}

fn rename(node: &mut Node, from: &str, to: &str) -> usize {
    match node {
        Node::Leaf { variant, .. } if variant == from => {
            *variant = to.to_string();
            1
        }
        Node::Leaf { .. } => 0,
        Node::Split { le, gt, .. } => rename(le, from, to) + rename(gt, from, to),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::{SelectedVariant, Variant};

    /// A direct variant of KDIMD `kdimd` and UKK `ukk`.
    fn direct(kdimd: u32, ukk: u32) -> SelectedVariant {
        let variant = Variant::new(
            crate::Family::Direct,
            &[("WPTM", 2), ("WPTN", 1), ("NDIMD", 8), ("KDIMD", kdimd), ("VWD", 4), ("UKD", 8), ("UKK", ukk)],
        )
        .with_neutral_defaults();
        variant.validate().unwrap();
        SelectedVariant::new(variant, Some(u64::from(kdimd + ukk)))
    }

    /// Two direct variants: the second is the first with KDIMD = 64.
    fn set() -> SelectedSet {
        SelectedSet { comment: "toy".into(), variants: vec![direct(32, 0), direct(64, 0)] }
    }

    fn leaf(variant: &str, shapes: u64) -> Node {
        Node::Leaf { variant: variant.into(), shapes: Some(shapes), geomean_slowdown: None, worst_slowdown: None }
    }

    fn node(feature: &str, threshold: u64, le: Node, gt: Node) -> Node {
        let shapes = shapes(&le).unwrap_or(0) + shapes(&gt).unwrap_or(0);
        Node::Split { feature: feature.into(), threshold, shapes: Some(shapes), le: Box::new(le), gt: Box::new(gt) }
    }

    /// A tree with a subtree per layout: TN and NN (operands_along_k <= 1) then NT.
    fn layouts(a: &str, b: &str) -> Tree {
        let nn = node("m", 16, leaf(a, 2), leaf(b, 3));
        let nt = node("k", 64, leaf(b, 4), leaf(a, 1));
        Tree::new("gpu", "f32", node("operands_along_k", 1, nn, nt))
    }

    /// The tree written as its selector file and read back, as the build reads it.
    fn parsed(tree: &Tree, set: &SelectedSet) {
        let text = tree.to_json_text(set).unwrap();
        assert_eq!(&Tree::parse_in_set(Path::new("selector/gpu.json"), &text, set).unwrap(), tree);
    }

    #[test]
    fn a_twin_takes_its_members_place_and_its_leaves() {
        let mut set = set();
        let names = leaf_names(&set);
        let mut tree = layouts(&names[0], &names[1]);
        let old = set.variants[0].clone();
        let twin = set.substitute_twin(&old.variant.id(), "UKK", 1).unwrap();
        assert_eq!((twin.index, twin.old_id.as_str()), (0, old.id.as_str()));
        assert_eq!(set.variants[0].variant.get("UKK"), 1);
        assert_eq!(set.variants[0].id, set.variants[0].variant.id());
        assert_eq!(twin.new_id, set.variants[0].variant.id());
        assert_eq!(set.variants[0].shapes_won, old.shapes_won);
        assert_eq!(set.variants[1], self::set().variants[1], "the other member is untouched");
        assert_eq!(tree.rename_leaves(&twin.old_name, &twin.new_name), 2);
        assert_eq!(tree.rename_leaves(&twin.old_name, &twin.new_name), 0);
        assert_eq!(tree.leaf_variants(), vec![twin.new_name.as_str(), &names[1], &names[1], &twin.new_name]);
        // What build.rs reads: the set parses, every leaf names a member.
        assert_eq!(SelectedSet::parse(Path::new(SET_PATH), &set.to_json_text()).unwrap(), set);
        parsed(&tree, &set);
    }

    #[test]
    fn a_twin_must_be_new_valid_and_of_a_member() {
        let mut set = set();
        let id = set.variants[0].variant.id();
        let field = |e: Error| match e {
            Error::Invalid { field, reason, .. } => format!("{field}: {reason}"),
            e => panic!("{e}"),
        };
        let e = field(set.substitute_twin("direct_nothing", "UKK", 1).unwrap_err());
        assert!(e.starts_with("variants: no member"), "{e}");
        let e = field(set.substitute_twin(&id, "MWG", 1).unwrap_err());
        assert!(e.starts_with("variants[0].params.MWG") && e.contains("no parameter"), "{e}");
        let e = field(set.substitute_twin(&id, "UKK", 3).unwrap_err());
        assert!(e.contains("breaks"), "{e}");
        assert_eq!(set, self::set(), "a refused twin changes nothing");
        // A twin of another id but the same short name as a member (UKK 1 and 4 share one): taken,
        // but a set left so does not read back.
        let mut set = SelectedSet { comment: String::new(), variants: vec![direct(32, 1), direct(64, 4)] };
        set.substitute_twin(&set.variants[1].id.clone(), "KDIMD", 32).unwrap();
        assert!(SelectedSet::parse(Path::new(SET_PATH), &set.to_json_text()).is_err());
    }

    #[test]
    fn a_twin_already_in_the_set_takes_the_members_precisions_and_leaves() {
        let mut set = set();
        set.variants[0].precisions = vec!["f32".into()];
        set.variants[1].precisions = vec!["f16".into()];
        let (won0, won1) = (set.variants[0].shapes_won, set.variants[1].shapes_won);
        let names = leaf_names(&set);
        let mut tree = layouts(&names[0], &names[1]);
        // Member 1 is member 0 with KDIMD = 64.
        let twin = set.substitute_twin(&set.variants[0].id.clone(), "KDIMD", 64).unwrap();
        assert_eq!((twin.index, twin.new_name.as_str()), (0, names[1].as_str()));
        assert_eq!(set.variants.len(), 1);
        assert_eq!(set.variants[0].precisions, vec!["f32", "f16"]);
        assert_eq!(set.variants[0].shapes_won, won0.zip(won1).map(|(a, b)| a + b));
        assert_eq!(tree.rename_leaves(&twin.old_name, &twin.new_name), 2);
        assert_eq!(SelectedSet::parse(Path::new(SET_PATH), &set.to_json_text()).unwrap(), set);
        parsed(&tree, &set);
    }

    #[test]
    fn a_layout_graft_replaces_that_layouts_subtree_only() {
        let set = set();
        let names = leaf_names(&set);
        let (a, b) = (&names[0], &names[1]);
        let mut tree = layouts(a, b);
        let new_nt = node("n", 8, leaf(a, 10), leaf(a, 20));
        tree.graft_layout(2, new_nt.clone()).unwrap();
        let Node::Split { feature, threshold, shapes, le, gt } = &tree.root else { panic!() };
        assert_eq!((feature.as_str(), *threshold, *shapes), ("operands_along_k", 1, Some(5 + 30)));
        let Node::Split { le: nn_before, .. } = layouts(a, b).root else { panic!() };
        assert_eq!(le, &nn_before, "NN's subtree is kept");
        assert_eq!(**gt, new_nt);
        // NN (and TN, which shares its side) then.
        let new_nn = leaf(b, 7);
        tree.graft_layout(1, new_nn.clone()).unwrap();
        assert_eq!(tree.leaf_variants(), vec![b.as_str(), a, a]);
        assert_eq!(super::shapes(&tree.root), Some(7 + 30));
        parsed(&tree, &set);
    }

    #[test]
    fn a_layout_graft_follows_a_chain_of_layout_splits() {
        // TN (0) | NN (1) | NT (2), as a tree trained on three layouts joins them.
        let chain =
            node("operands_along_k", 0, leaf("tn", 1), node("operands_along_k", 1, leaf("nn", 2), leaf("nt", 3)));
        let mut tree = Tree::new("cpu", "f32", chain);
        tree.graft_layout(1, leaf("nn2", 5)).unwrap();
        assert_eq!(tree.leaf_variants(), vec!["tn", "nn2", "nt"]);
        assert_eq!(shapes(&tree.root), Some(1 + 5 + 3));
        tree.graft_layout(0, leaf("tn2", 4)).unwrap();
        assert_eq!(tree.leaf_variants(), vec!["tn2", "nn2", "nt"]);
    }

    #[test]
    fn a_layout_graft_needs_layouts_in_the_tree_and_none_in_the_subtree() {
        let mut flat = Tree::new("cpu", "f32", node("m", 4, leaf("a", 1), leaf("b", 1)));
        let before = flat.clone();
        let e = flat.graft_layout(1, leaf("a", 1)).unwrap_err().to_string();
        assert!(e.starts_with("selector/cpu.json: field `root`") && e.contains("no subtree per layout"), "{e}");
        assert_eq!(flat, before);
        let mut tree = layouts("a", "b");
        let e = tree.graft_layout(2, layouts("a", "b").root).unwrap_err().to_string();
        assert!(e.contains("one layout's rows"), "{e}");
        assert_eq!(tree, layouts("a", "b"));
    }

    #[test]
    fn a_graft_above_a_threshold_keeps_the_tree_below_it() {
        let mut tree = layouts("a", "b");
        let old = tree.root.clone();
        let larger = node("compute_units", 8, leaf("b", 40), leaf("a", 50));
        tree.graft_above("compute_units", 2, larger.clone());
        let Node::Split { feature, threshold, shapes, le, gt } = &tree.root else { panic!() };
        assert_eq!((feature.as_str(), *threshold, *shapes), ("compute_units", 2, Some(10 + 90)));
        assert_eq!((**le == old, **gt == larger), (true, true));
    }
}
