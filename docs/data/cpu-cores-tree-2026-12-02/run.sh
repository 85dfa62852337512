#!/usr/bin/env bash
# What a `cpu` tree that knew the core count could gain, bounded offline: `fewfit train --class cpu`
# on the 16-core Xeon's records of the set's four CPU blocks alone (403 training and tree-only
# network shapes), into scratch copies of the trees, from three record sets: the run of 02:38 UTC
# (docs/data/cpu-tree-retrain-2026-12-02/xeon-{train,trees}, the A-packing block's PA = 1 records
# renamed to the set's PA = 2 block), this folder's run of 21:05 UTC with the PA = 2 block itself
# (device.sh: xeon16-{train,trees}), and both. Then `fewfit evaluate` of each tree and of the
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
dir=docs/data/cpu-cores-tree-2026-12-02
held=docs/data/pa-where-large-2026-12-02
judge() {  # LABEL ROOT
  echo "== $1"
  for data in gpu-host-xeon-r1 gpu-host-xeon-r2 emr-r1 emr-r2; do
    "$fewfit" evaluate --root "$2" --data $held/$data.jsonl.gz 2>/dev/null | tail -1
  done
}
judge "the shipped cpu tree" .
for records in 02:38 21:05 both; do
  case $records in
    02:38) data=("$scratch/xeon-train.jsonl.gz" "$scratch/xeon-trees.jsonl.gz") ;;
    21:05) data=($dir/xeon16-train.jsonl.gz $dir/xeon16-trees.jsonl.gz) ;;
    both) data=("$scratch/xeon-train.jsonl.gz" "$scratch/xeon-trees.jsonl.gz" $dir/xeon16-train.jsonl.gz $dir/xeon16-trees.jsonl.gz) ;;
  esac
  root=$scratch/$records && mkdir -p "$root/variants" && cp -r selector "$root/" && cp variants/selected.json "$root/variants/"
  label="a cpu tree trained on the Xeon's records alone, $records"
  [ $records = both ] && label="$label runs" || label="$label UTC run"
  echo "-- training: $("$fewfit" train --class cpu --out "$root/selector/cpu.json" --shape-weights variants/shapes/weights.txt \
    --data "${data[@]}" 2>&1 | tail -1 | sed 's/^ *//')"
  judge "$label" "$root"
done
