#!/usr/bin/env bash
# What a `cpu` tree that knew the core count could gain, bounded offline: `fewfit train --class cpu`
# on the 16-core Xeon's records of the set's four CPU blocks alone (403 training and tree-only
# network shapes), into scratch copies of the trees, from each of five runs: that of 02:38 UTC
# (docs/data/cpu-tree-retrain-2026-12-02/xeon-{train,trees}, the A-packing block's PA = 1 records
# renamed to the set's PA = 2 block) and four of 21:05-21:12 UTC with the PA = 2 block itself
# (device.sh: xeon16-{train,trees}[-r2|-r3|-r4], since 2026-12-03 variants/data/pocl5-xeon16-set-
# {train,trees}-r{1,2,3,4}-f32.jsonl.gz), then from those four together. Then `fewfit evaluate` of each tree and of the
# shipped one on the held-out network shapes against the 22-block pool's fastest, on the Xeon and
# on this session's 2-core Emerald Rapids VM (docs/data/pa-where-large-2026-12-02, two runs each).
# Nothing is measured here; no tree is shipped.
# Usage: bash docs/data/cpu-cores-tree-2026-12-02/run.sh   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
fewfit=${FEWFIT:-target/release/fewfit}
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
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
data=variants/data
held=docs/data/pa-where-large-2026-12-02
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
  judge "a cpu tree trained on the Xeon's records alone, $1 ($fit)" "$root"
}
retrain "run of 02:38 UTC" "$scratch"/xeon-{train,trees}.jsonl.gz
retrain "run r1 of 21:05 UTC" $data/pocl5-xeon16-set-{train,trees}-r1-f32.jsonl.gz
for run in r2 r3 r4; do
  retrain "run $run" $data/pocl5-xeon16-set-{train,trees}-$run-f32.jsonl.gz
done
retrain "runs r1-r4" $data/pocl5-xeon16-set-tr*.jsonl.gz
