#!/usr/bin/env bash
# What a `cpu` tree that knew the core count could gain, bounded offline: `fewfit train --class cpu`
# on the 16-core Xeon's records of the set's four CPU blocks alone (docs/data/cpu-tree-retrain-
# 2026-12-02/xeon-{train,trees}, 403 training shapes, the A-packing block's PA = 1 records renamed to
# the set's PA = 2 block), into a scratch copy of the trees; then `fewfit evaluate` of that tree and
# of the shipped one on the held-out network shapes against the 22-block pool's fastest, on the
# Xeon and on this session's 2-core Emerald Rapids VM (docs/data/pa-where-large-2026-12-02, two
# runs each). Nothing is measured here; the tree is not shipped.
# Usage: bash docs/data/cpu-cores-tree-2026-12-02/run.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
fewfit=${FEWFIT:-target/release/fewfit}
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/root/variants" && cp -r selector "$scratch/root/" && cp variants/selected.json "$scratch/root/variants/"
python3 - "$scratch" <<'PY'
import gzip, json, sys
for name in ['xeon-train', 'xeon-trees']:
    with gzip.open(f'{sys.argv[1]}/{name}.jsonl.gz', 'wt') as out:
        for line in gzip.open(f'docs/data/cpu-tree-retrain-2026-12-02/{name}.jsonl.gz', 'rt'):
            r = json.loads(line)
            if r['variant']['params'].get('PA') == 1:
                r['variant']['params']['PA'] = 2
            out.write(json.dumps(r) + '\n')
PY
"$fewfit" train --class cpu --out "$scratch/root/selector/cpu.json" --shape-weights variants/shapes/weights.txt \
  --data "$scratch/xeon-train.jsonl.gz" "$scratch/xeon-trees.jsonl.gz" 2>&1 | tail -1
held=docs/data/pa-where-large-2026-12-02
for label in "the shipped cpu tree:." "a cpu tree trained on the Xeon alone:$scratch/root"; do
  echo "== ${label%%:*}"
  for data in gpu-host-xeon-r1 gpu-host-xeon-r2 emr-r1 emr-r2; do
    "$fewfit" evaluate --root "${label#*:}" --data $held/$data.jsonl.gz 2>/dev/null | tail -1
  done
done
