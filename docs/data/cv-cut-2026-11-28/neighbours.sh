#!/usr/bin/env bash
# The four held-out H200 shapes where the NN tree loses most ("Issue 4's held-out measure"): the set's
# variants at each in the one-run held-out timing (h200-heldout-oracle-f32), then at its neighbours in
# the H200 training data (scripts/neighbours.py, M, N and K each within 1.6x).
# Usage, from the crate root: bash docs/data/cv-cut-2026-11-28/neighbours.sh > docs/data/cv-cut-2026-11-28/neighbours.txt
set -euo pipefail
crate=$(pwd); cd scripts
train=$(ls "$crate"/variants/data/h200-*.jsonl.gz | grep -v -e unseen -e heldout)
for shape in "200 768 3072" "200 2304 768" "400 1200 700" "6000 96 640"; do
  echo "=== $shape: held out, in one run"
  python3 neighbours.py $shape "$crate/variants/data/h200-heldout-oracle-f32.jsonl.gz" --window 1 --selected "$crate/variants/selected.json"
  echo "=== $shape: training neighbours"
  python3 neighbours.py $shape $train --selected "$crate/variants/selected.json"
done
