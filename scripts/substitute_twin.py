#!/usr/bin/env python3
"""Puts a variant's twin (the same variant with one parameter changed) in its place in the shipped
set and in every tree's leaves, without selecting or training again.

For a twin measured faster on the devices that have it, where the datasets the set was selected on
never timed it: selection counts an unmeasured variant as failed on those devices, so `regenerate`
cannot choose it, and the trees' picks stay right wherever the twin is at least as fast. The trees'
comments say what was substituted. Usage:

    python3 scripts/substitute_twin.py panel_kc256_lm1_ln16_mv4_nr4_pa0_vw16 PA=1 [--root .]
"""
import argparse
import json
import pathlib
import sys

from ab_compare import label
from set_records import key


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variant", help="the id of a variant of variants/selected.json")
    ap.add_argument("change", help="NAME=VALUE: the parameter that makes the twin")
    ap.add_argument("--root", default=".", help="the crate root")
    args = ap.parse_args()
    name, _, value = args.change.partition("=")
    if not value.lstrip("-").isdigit():
        sys.exit(f"expected NAME=VALUE with an integer value, got {args.change!r}")
    root = pathlib.Path(args.root)
    set_path = root / "variants" / "selected.json"
    selected = json.loads(set_path.read_text())
    entry = next((v for v in selected["variants"] if v["id"] == args.variant), None)
    if entry is None:
        sys.exit(f"{args.variant} is not in {set_path}")
    if name not in entry["params"]:
        sys.exit(f"{args.variant} has no parameter {name}")
    entry["params"][name] = int(value)
    twin = label(key(entry["family"], entry["params"]))
    if twin == args.variant or any(v["id"] == twin for v in selected["variants"]):
        sys.exit(f"{twin} is {args.variant} itself or already in the set")
    entry["id"] = twin
    set_path.write_text(json.dumps(selected, indent=2, ensure_ascii=False) + "\n")
    print(f"{set_path}: {args.variant} -> {twin}")
    for tree_path in sorted((root / "selector").glob("*.json")):
        text = tree_path.read_text()
        leaves = text.count(f'"{args.variant}"')
        if leaves == 0:
            continue
        tree = json.loads(text.replace(f'"{args.variant}"', f'"{twin}"'))
        tree["comment"] += f" Then {args.variant} replaced by its twin {twin} (scripts/substitute_twin.py)."
        tree_path.write_text(json.dumps(tree, indent=2, ensure_ascii=False) + "\n")
        print(f"{tree_path}: {leaves} leaves")


if __name__ == "__main__":
    main()
