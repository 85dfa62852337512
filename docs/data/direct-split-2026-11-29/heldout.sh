#!/usr/bin/env bash
# Issue 4's H200 held-out NN measure with the set as it stands: the held-out oracle of 2026-11-28
# (h200-heldout-oracle-f32, the set and 195 near-best variants on the 44 shapes of unseen.txt), plus
# the records of the set's later twins on those shapes that it lacks (the xgemm twins of 06:40, the
# UKK = 1 direct twins of 09:01, and the KSPLIT = 0 direct twins of this folder, 11:00 UTC).
# Run from the repository root with the crate's variants/selected.json and selector/ in ROOT (default .).
set -euo pipefail
here=docs/data/direct-split-2026-11-29
extra=$(mktemp --suffix .jsonl.gz); trap 'rm -f "$extra"' EXIT
python3 - "$extra" variants/data/h200-heldout-oracle-f32.jsonl.gz variants/data/h200-v23-twins-nn-unseen-f32.jsonl.gz \
    variants/data/h200-v24-ukk-nn-f32.jsonl.gz "$here/h200-direct-split-twins-nn-f32.jsonl.gz" <<'PY'
import gzip, json, sys
sys.path.insert(0, 'scripts')
from set_records import key
out, base, extras = sys.argv[1], sys.argv[2], sys.argv[3:]
shapes = {tuple(map(int, l.split()[:3])) for l in open('variants/shapes/unseen.txt') if l[0] != '#' and l.strip()}
seen = {(key(r['variant']['kernel'], r['variant']['params']), r['m'], r['n'], r['k'])
        for r in map(json.loads, gzip.open(base, 'rt'))}
with gzip.open(out, 'wt') as f:
    for path in extras:
        for line in gzip.open(path, 'rt'):
            r = json.loads(line)
            k = (key(r['variant']['kernel'], r['variant']['params']), r['m'], r['n'], r['k'])
            if (r['m'], r['n'], r['k']) in shapes and k not in seen:
                seen.add(k)
                f.write(line)
PY
root=$(realpath "${ROOT:-.}")
cd "$root" && "$OLDPWD/target/release/fewfit" evaluate --per-shape \
    --data "$OLDPWD/variants/data/h200-heldout-oracle-f32.jsonl.gz" "$extra"
