#!/usr/bin/env bash
# On the lent GPU machine, after narrow-probe.sh: the probe's 16-row tiles as set candidates. Takes
# the two variants with MWG = 16 that are the fastest such tile on the most probe shapes, with their
# splits chosen per launch (KSPLIT = 0), and times them (10 repeats, BUDGET seconds per list):
#   probe: beside the shipped set on the probe shapes, NN and row-major NT
#          (PREFIX-narrow-probe, PREFIX-narrow-nt-probe);
#   set:   beside the set on the skinny training and held-out lists in NN (PREFIX-tree-skinny,
#          PREFIX-set-unseen-skinny) and on the held-out lists in NT (PREFIX-nt-set-unseen-skinny,
#          PREFIX-nt-set-unseen);
#   cand:  alone, NN, on every list the selection and the trees read (PREFIX-narrow-cand-train, -ml,
#          -set (unseen.txt), -trees, -tree-dense), to join the committed datasets of that card.
# On 2026-11-28 (an H200) these ran as separate calls with these sweep arguments; a first call also
# timed the candidates alone on the NT lists, which no H200 dataset of the set matches (not kept).
# Usage: bash scripts/device/narrow-sweep.sh WHAT PROBE_DATA..., WHAT one or more of probe, set,
# cand (quoted); datasets into $OUT as NAME-f32.jsonl(.gz), PREFIX h200 or h100 by the card
# (resumable: carry a .jsonl back in .device/ and run again).
# Binaries: build.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/narrow-out}"; mkdir -p "$out" /tmp/narrow
source scripts/device/nvidia.sh
fewfit=.device/fewfit; [ -x "$fewfit" ] || fewfit=target/release/fewfit
what="$1"; shift
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
  [ -f ".device/$prefix-$name-f32.jsonl" ] && cp ".device/$prefix-$name-f32.jsonl" "$out/"
  "$fewfit" sweep --device gpu --shapes "$shapes" --space variants/space-gpu.json --sample 0 \
    --variants-from /tmp/narrow/candidates.jsonl --repeats 10 --quiet --budget-secs "${BUDGET:-120}" \
    --out "$out/$prefix-$name-f32.jsonl" "$@" 2>&1 | tail -1
  gzip -kf "$out/$prefix-$name-f32.jsonl"
}
s=variants/shapes
for w in $what; do
  case "$w" in
    probe) sweep narrow-probe $s/narrow-probe.txt
           sweep narrow-nt-probe $s/narrow-probe.txt --transpose-b ;;
    set) sweep tree-skinny $s/train-tree-skinny.txt
         sweep set-unseen-skinny $s/unseen-skinny.txt
         sweep nt-set-unseen $s/unseen.txt --transpose-b
         sweep nt-set-unseen-skinny $s/unseen-skinny.txt --transpose-b ;;
    cand) for list in set:unseen ml:train-ml train:train trees:train-trees tree-dense:train-tree-dense; do
            sweep "narrow-cand-${list%%:*}" "$s/${list#*:}.txt" --no-shipped
          done ;;
    *) echo "unknown: $w" >&2; exit 2 ;;
  esac
done
date -u
