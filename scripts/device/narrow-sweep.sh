#!/usr/bin/env bash
# On the lent GPU machine, after narrow-probe.sh: the probe's 16-row tiles as set candidates. Takes
# the two variants with MWG = 16 that are the fastest such tile on the most probe shapes, with their
# splits chosen per launch (KSPLIT = 0), and times those candidates
#   probe:   beside the shipped set on the probe shapes, NN and row-major NT;
#   train:   alone on the lists whose H100 datasets train the trees (train-tree-skinny in NN and NT;
#            train.txt, train-trees, train-tree-dense in NT), to join those datasets;
#   unseen:  alone on the held-out lists of the H100 datasets (unseen-skinny NN and NT,
#            unseen-random NN, unseen NT), likewise.
# Usage: bash scripts/device/narrow-sweep.sh PROBE_DATA... ; datasets into $OUT as
# PREFIX-narrow-*.jsonl.gz (PREFIX h200 or h100 by the card). Binaries: build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/narrow-out}"; mkdir -p "$out" /tmp/narrow
source scripts/device/nvidia.sh
prefix=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo h200 || echo h100)
fewfit=.device/fewfit; [ -x "$fewfit" ] || fewfit=target/release/fewfit
python3 - "$@" > /tmp/narrow/candidates.jsonl <<'PY'
import json, sys
best = {}
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        if r['valid'] and r['variant']['kernel'] == 'xgemm' and r['variant']['params']['MWG'] == 16:
            shape = (r['m'], r['n'], r['k'])
            if shape not in best or r['times']['median_ms'] < best[shape]['times']['median_ms']:
                best[shape] = r
wins = {}
for r in best.values():
    r['variant']['params']['KSPLIT'] = 0
    key = json.dumps(r['variant']['params'], sort_keys=True)
    wins.setdefault(key, []).append(r)
for key in sorted(wins, key=lambda k: -len(wins[k]))[:2]:
    print(json.dumps(wins[key][0]))
    print(len(wins[key]), key, file=sys.stderr)
PY
sweep() { # NAME SHAPES [sweep arguments]
  local name="$1" shapes="$2"; shift 2
  "$fewfit" sweep --device gpu --shapes "$shapes" --space variants/space-gpu.json --sample 0 \
    --variants-from /tmp/narrow/candidates.jsonl --repeats 10 --quiet --budget-secs "${BUDGET:-120}" \
    --out "$out/$prefix-narrow-$name-f32.jsonl" "$@" 2>&1 | tail -1
  gzip -kf "$out/$prefix-narrow-$name-f32.jsonl"
}
sweep probe variants/shapes/narrow-probe.txt
sweep nt-probe variants/shapes/narrow-probe.txt --transpose-b
sweep tree-skinny variants/shapes/train-tree-skinny.txt --no-shipped
sweep nt-tree-skinny variants/shapes/train-tree-skinny.txt --no-shipped --transpose-b
sweep set-unseen-skinny variants/shapes/unseen-skinny.txt --no-shipped
sweep nt-set-unseen-skinny variants/shapes/unseen-skinny.txt --no-shipped --transpose-b
sweep set-unseen-random variants/shapes/unseen-random.txt --no-shipped
sweep nt-set variants/shapes/train.txt --no-shipped --transpose-b
sweep nt-trees variants/shapes/train-trees.txt --no-shipped --transpose-b
sweep nt-tree-dense variants/shapes/train-tree-dense.txt --no-shipped --transpose-b
sweep nt-set-unseen variants/shapes/unseen.txt --no-shipped --transpose-b
date -u
