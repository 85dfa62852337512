#!/usr/bin/env bash
# What the feature `compute_units` gives the `cpu` tree, offline: `fewfit train --class cpu` into
# scratch copies of the trees on the shipped tree's own training records (two 2-core VMs:
# pocl-spr2, pocl-zen4, pocl-spr2-trees, with the A-packing block's PA = 0 records named as the
# set's PA = 2 block, as scripts/ship.sh's substitution names it) beside the 16-core Xeon's records
# of the set (docs/data/cpu-cores-tree-2026-12-02, four runs), then also beside the Xeon's records
# on 4 and 8 cores (device.sh). Each tree, and the shipped one, judged by `fewfit evaluate` on the
# held-out network shapes against the 22-block pool's fastest, on the Xeon (16 compute units) and on
# a 2-core Emerald Rapids VM (docs/data/pa-where-large-2026-12-02, two runs each).
# Nothing is measured here. With SHIP=1 the last tree is written to selector/cpu.json.
# Usage: [SHIP=1] bash docs/data/compute-units-2026-12-03/run.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
fewfit=${FEWFIT:-target/release/fewfit}
held=docs/data/pa-where-large-2026-12-02
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
python3 - "$scratch" <<'PY'
import gzip, json, sys
block = {'KC': 256, 'LM': 1, 'LN': 16, 'MV': 4, 'NR': 4, 'VW': 16}
for name in ['pocl-spr2-f32', 'pocl-zen4-f32', 'pocl-spr2-trees-f32']:
    with gzip.open(f'{sys.argv[1]}/{name}.jsonl.gz', 'wt') as out:
        for line in gzip.open(f'variants/data/{name}.jsonl.gz', 'rt'):
            r = json.loads(line)
            p = r['variant']['params']
            if r['variant']['kernel'] == 'panel' and p.get('PA', 0) == 0 and all(p.get(k) == v for k, v in block.items()):
                p['PA'] = 2
            out.write(json.dumps(r) + '\n')
PY
old=("$scratch"/pocl-*.jsonl.gz)
judge() {  # LABEL ROOT
  echo "== $1"
  for data in gpu-host-xeon-r1 gpu-host-xeon-r2 emr-r1 emr-r2; do
    "$fewfit" evaluate --root "$2" --data $held/$data.jsonl.gz 2>/dev/null | tail -1
  done
}
judge "the shipped cpu tree" .
# retrain LABEL RECORDS...: a scratch copy of the trees whose `cpu` tree is trained on RECORDS, judged.
retrain() {
  local root=$scratch/$1; mkdir -p "$root/variants" && cp -r selector "$root/" && cp variants/selected.json "$root/variants/"
  local fit; fit=$("$fewfit" train --class cpu --out "$root/selector/cpu.json" --shape-weights variants/shapes/weights.txt \
    --data "${@:2}" 2>&1 | tail -1 | sed 's/^ *//')
  judge "a cpu tree trained on $1 ($fit)" "$root"
  last=$root
}
retrain "the shipped tree's records and the Xeon's on 16 cores" "${old[@]}" variants/data/pocl5-xeon16-set-tr*.jsonl.gz
retrain "those and the Xeon's on 4 and 8 cores" "${old[@]}" variants/data/pocl5-xeon16-set-tr*.jsonl.gz variants/data/pocl5-xeon16-cu*-set-*.jsonl.gz
if [ -n "${SHIP:-}" ]; then cp "$last/selector/cpu.json" selector/cpu.json; fi
