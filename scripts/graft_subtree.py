#!/usr/bin/env python3
"""Puts a tree trained on one layout's rows (`fewfit train` on records of that layout alone) in
place of that layout's subtree in shipped trees, leaving the other layouts' subtrees as they are;
or, with --short-side T, in front of a tree (or of one layout's subtree) for the shapes whose
short side min(M, N) is at most T, the rest keeping the tree they had; or, with
--compute-units-above U, for the devices of more than U compute units (a tree trained on records
of larger devices alone), the smaller ones keeping the tree they had.

For a layout, or a band of shapes, measured again without selecting or training the rest again:
the shipped trees join one subtree per layout at the root by splits on `operands_along_k`, and
`fewfit train` on one layout's rows writes that layout's subtree alone. Every leaf of the grafted
tree must name a variant of the shipped set. The trees' comments say what was grafted. Usage:

    python3 scripts/graft_subtree.py NT_TREE.json --layout NT selector/nvidia-gpu.json selector/gpu.json
    python3 scripts/graft_subtree.py SKINNY_TREE.json --short-side 64 selector/cpu.json
    python3 scripts/graft_subtree.py LARGE_CPUS_TREE.json --compute-units-above 2 selector/cpu.json
"""
import argparse
import json
import pathlib
import sys

# src/tuner/dataset.rs, DeviceRecord::operands_along_k: the operands stored contiguous along K in
# each layout of a row-major call.
OPERANDS_ALONG_K = {"TN": 0, "NN": 1, "NT": 2}


def leaves(node):
    """The variant ids of a tree's leaves."""
    if "variant" in node:
        return {node["variant"]}
    return leaves(node["le"]) | leaves(node["gt"])


def place(old, subtree, short_side=None, units_above=None):
    """`subtree` in place of `old`; with `short_side`, a split sending the shapes whose short side
    is at most that to `subtree` and the others to `old`; with `units_above`, one sending the
    devices of more compute units than that to `subtree` and the others to `old`."""
    if short_side is not None:
        split = {"feature": "min_mn", "threshold": short_side, "le": subtree, "gt": old}
    elif units_above is not None:
        split = {"feature": "compute_units", "threshold": units_above, "le": old, "gt": subtree}
    else:
        return subtree
    split["shapes"] = subtree.get("shapes", 0) + old.get("shapes", 0)
    return split


def graft(node, along_k, subtree, short_side=None, units_above=None):
    """`node` with the subtree that rows of `operands_along_k = along_k` reach given `subtree`
    (see `place`); `along_k = None` gives it the whole tree. The chain of layout splits at the root
    is followed; any other node is that layout's subtree. The splits on the way count the training
    shapes below them again."""
    if along_k is None or node.get("feature") != "operands_along_k":
        return place(node, subtree, short_side, units_above)
    side = "le" if along_k <= node["threshold"] else "gt"
    node = dict(node, **{side: graft(node[side], along_k, subtree, short_side, units_above)})
    node["shapes"] = node["le"].get("shapes", 0) + node["gt"].get("shapes", 0)
    return node


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("subtree", help="a tree file written by `fewfit train` on one layout's rows")
    ap.add_argument("trees", nargs="+", help="the shipped tree files to graft it into")
    ap.add_argument("--layout", choices=["NN", "NT", "TN"], help="the layout it was trained on")
    ap.add_argument("--short-side", type=int, metavar="T",
                    help="graft it for the shapes with min(M, N) <= T only, in front of what they reached")
    ap.add_argument("--compute-units-above", type=int, metavar="U",
                    help="graft it for the devices of more than U compute units only, in front of what they reached")
    ap.add_argument("--selected", default="variants/selected.json", help="the shipped set")
    args = ap.parse_args()
    if args.layout is None and args.short_side is None and args.compute_units_above is None:
        ap.error("name --layout, --short-side, --compute-units-above, or --layout with one of the other two")
    if args.short_side is not None and args.compute_units_above is not None:
        ap.error("--short-side and --compute-units-above graft in front of different splits: name one")
    new = json.loads(pathlib.Path(args.subtree).read_text())
    if new["root"].get("feature") == "operands_along_k":
        sys.exit(f"{args.subtree} splits on the layout: train it on one layout's rows")
    shipped = {v["id"] for v in json.loads(pathlib.Path(args.selected).read_text())["variants"]}
    unknown = sorted(leaves(new["root"]) - shipped)
    if unknown:
        sys.exit(f"{args.subtree} picks variants outside {args.selected}: {', '.join(unknown)}")
    along_k = OPERANDS_ALONG_K.get(args.layout)
    what = f"its {args.layout} subtree" if args.layout else "the tree"
    for path in map(pathlib.Path, args.trees):
        tree = json.loads(path.read_text())
        if args.layout and tree["root"].get("feature") != "operands_along_k":
            sys.exit(f"{path} has no subtree per layout")
        tree["root"] = graft(tree["root"], along_k, new["root"], args.short_side, args.compute_units_above)
        trained = f"{new['comment'][0].lower()}{new['comment'][1:]}"
        if args.compute_units_above is not None:
            tree["comment"] += (f" Then the devices of more than {args.compute_units_above} compute units sent from {what} "
                                f"to one {trained} (scripts/graft_subtree.py).")
        elif args.short_side is None:
            tree["comment"] += f" Then {what} replaced by one {trained} (scripts/graft_subtree.py)."
        else:
            tree["comment"] += (f" Then the shapes of min(M, N) <= {args.short_side} sent from {what} to one "
                                f"{trained} (scripts/graft_subtree.py).")
        path.write_text(json.dumps(tree, indent=2, ensure_ascii=False) + "\n")
        print(f"{path}: grafted ({len(leaves(new['root']))} variants at its leaves)")


if __name__ == "__main__":
    main()
