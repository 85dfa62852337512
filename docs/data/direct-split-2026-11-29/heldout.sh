#!/usr/bin/env bash
# Issue 4's H200 held-out NN measure with the set as it stands in ROOT (default .): the held-out
# oracle of 2026-11-28 (h200-heldout-oracle-f32: the set of that day and 195 near-best variants on
# the 44 shapes of unseen.txt, one run), the xgemm twins' records of 06:40 UTC on those shapes
# (h200-v23-twins-nn-unseen-f32), and records derived for the direct twins from the oracle run's own
# records of the variants they replace, so that no direct record comes from another day's run:
#   - UKK = 1 (09:01 UTC) changes only the code where B is contiguous along K, not NN's: its NN time
#     is that of the UKK = 0 variant in the oracle run;
#   - KSPLIT = 0 (this folder) runs the KSPLIT = 1 program wherever its rule does not split: there its
#     time is the same; where the rule splits, the oracle run's time times the ratio of the two in
#     one sweep (h200-nb-direct-ksplit0-nn-f32, 11:00 UTC).
# TWINS="DATA..." names the files of the set's xgemm tiles on those shapes, in place of
# h200-v23-twins-nn-unseen-f32; a pair two files hold takes the first file's time. For the set with
# the 128 x 32 tile's DB = 5 twin: "h200-v23-twins-nn-unseen-f32 h200-v28-twins-nn-unseen-f32" (the
# twin from the second, 2026-11-29 18:27 UTC, where the three tiles both files hold ran at 0.995 of
# their v23 times).
# Usage: [ROOT=dir] [TWINS=DATA] bash docs/data/direct-split-2026-11-29/heldout.sh  (from the repository root)
set -euo pipefail
here=docs/data/direct-split-2026-11-29
extra=$(mktemp --suffix .jsonl.gz); trap 'rm -f "$extra"' EXIT
python3 - "$extra" ${TWINS:-variants/data/h200-v23-twins-nn-unseen-f32.jsonl.gz} <<'PY'
import gzip, json, sys
sys.path.insert(0, 'scripts')
from set_records import key
from direct_split_fit import rule_splits
oracle = 'variants/data/h200-heldout-oracle-f32.jsonl.gz'
shapes = {tuple(map(int, l.split()[:3])) for l in open('variants/shapes/unseen.txt') if l[0] != '#' and l.strip()}
base = [json.loads(l) for l in gzip.open(oracle, 'rt')]
seen = {(key(r['variant']['kernel'], r['variant']['params']), r['m'], r['n'], r['k']) for r in base}
twins = {}  # (params without KSPLIT, shape) -> {KSPLIT: median ms}, one sweep
for r in map(json.loads, gzip.open('docs/data/direct-split-2026-11-29/h200-nb-direct-ksplit0-nn-f32.jsonl.gz', 'rt')):
    p = dict(r['variant']['params']); s = p.pop('KSPLIT', 1); p.pop('UKK', None)
    twins.setdefault((json.dumps(p, sort_keys=True), r['m'], r['n'], r['k']), {})[s] = r['times']['median_ms']
out = []
for r in (json.loads(l) for path in sys.argv[2:] for l in gzip.open(path, 'rt')):
    k = (key(r['variant']['kernel'], r['variant']['params']), r['m'], r['n'], r['k'])
    if (r['m'], r['n'], r['k']) in shapes and k not in seen:
        seen.add(k); out.append(r)
for r in base:
    if r['variant']['kernel'] != 'direct' or not r['valid'] or r['variant']['params'].get('UKK', 0) != 0:
        continue
    p = {n: v for n, v in r['variant']['params'].items() if n not in ('UKK', 'KSPLIT')}
    ms = r['times']['median_ms']
    pair = twins.get((json.dumps(p, sort_keys=True), r['m'], r['n'], r['k']))
    for ksplit in (1, 0):
        if ksplit == 0:
            if pair is None or 0 not in pair or 1 not in pair:
                continue
            if rule_splits(p, r['m'], r['n'], r['k'], 132, 512, 2048) > 1:
                ms = r['times']['median_ms'] * pair[0] / pair[1]
        twin = dict(r, variant={'kernel': 'direct', 'params': dict(p, UKK=1, KSPLIT=ksplit)},
                    times={'min_ms': ms, 'median_ms': ms, 'repeats': r['times']['repeats']})
        k = (key('direct', twin['variant']['params']), r['m'], r['n'], r['k'])
        if k not in seen:
            seen.add(k); out.append(twin)
with gzip.open(sys.argv[1], 'wt') as f:
    f.writelines(json.dumps(r, separators=(',', ':')) + '\n' for r in out)
PY
root=$(realpath "${ROOT:-.}")
cd "$root" && "$OLDPWD/target/release/fewfit" evaluate --per-shape \
    --data "$OLDPWD/variants/data/h200-heldout-oracle-f32.jsonl.gz" "$extra"
