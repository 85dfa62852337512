#!/usr/bin/env bash
# The `cpu` tree retrained on records of the set's four CPU blocks as the kernels stand now (the
# shipped tree was trained on records of 2026-11-26 and earlier, before A's prefetch, the panel
# block across M and the packing rule, with the A-packing block's PA = 0 twin in its place).
#   sweep: this machine's CPU through PoCL: the four blocks (docs/data/cpu-interleave-2026-11-29/
#          set-cpu.jsonl.gz) on the training shapes (variants/shapes/train.txt) and the tree-only
#          network shapes (train-trees.txt) of at most 5 GFLOP, each shape's blocks in rounds, 5
#          repeats: zen4-{train,trees}.jsonl.gz. device.sh does the same on the GPU machine's Xeon.
#   judge: `fewfit train --class cpu` on those records of both CPUs (new), and on them beside the
#          shipped tree's own training data (old+new), into scratch copies of the trees; each tree judged on the held-out network shapes of each CPU against the
#          fastest of a 21-block pool (docs/data/cpu-oracle-2026-12-02 here, xeon-unseen there),
#          by the median (`fewfit evaluate`) and by the minimum (scripts/noise_floor.py --picks).
# Usage: bash docs/data/cpu-tree-retrain-2026-12-02/run.sh sweep|judge   (after cargo build --release --features tune)
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=docs/data/cpu-tree-retrain-2026-12-02
export POCL_AFFINITY=1
case "$1" in
  sweep)
    for list in train:train trees:train-trees; do
      name=zen4-${list%%:*}
      [ -f $dir/$name.jsonl.gz ] && continue
      target/release/fewfit sweep --device cpu --shapes variants/shapes/${list#*:}.txt --max-flops 5e9 --sample 0 \
        --no-shipped --repeats 5 --machine "$(hostname)-$name" --interleave --quiet \
        --variants-from docs/data/cpu-interleave-2026-11-29/set-cpu.jsonl.gz --out $dir/$name.jsonl
      gzip -f $dir/$name.jsonl
    done ;;
  judge)
    scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
    # The training data of the shipped tree, with the A-packing block's PA = 0 twin renamed to the
    # set's PA = 1 block (as scripts/substitute_twin.py renamed the tree's leaves).
    python3 - "$scratch/old.jsonl.gz" <<'PY'
import gzip, json, sys
with gzip.open(sys.argv[1], 'wt') as out:
    for name in ['pocl-spr2-f32', 'pocl-zen4-f32', 'pocl-spr2-trees-f32']:
        for line in gzip.open(f'variants/data/{name}.jsonl.gz', 'rt'):
            r = json.loads(line)
            p = r['variant']['params']
            if r['variant']['kernel'] == 'panel' and [p.get(k, 0) for k in ('KC', 'LM', 'LN', 'MV', 'NR', 'PA', 'VW')] == [256, 1, 16, 4, 4, 0, 16]:
                p['PA'] = 1
            out.write(json.dumps(r) + '\n')
PY
    new=($dir/zen4-train.jsonl.gz $dir/zen4-trees.jsonl.gz $dir/xeon-train.jsonl.gz $dir/xeon-trees.jsonl.gz)
    judge() {  # LABEL ROOT
      echo "== $1"
      for held in docs/data/cpu-oracle-2026-12-02/run1 docs/data/cpu-oracle-2026-12-02/run2 $dir/xeon-unseen; do
        target/release/fewfit evaluate --root "$2" --data $held.jsonl.gz --per-shape > "$scratch/picks.tsv" 2>/dev/null
        echo "$held: $(grep -E '\[cpu\]' "$scratch/picks.tsv" | sed 's/.*\[cpu\]: //')"
        echo "  by the minimum: $(python3 scripts/noise_floor.py --statistic min_ms --picks "$scratch/picks.tsv" $held.jsonl.gz | sed 's/.*: //')"
      done
    }
    {
      judge "the shipped cpu tree" .
      for data in new old+new; do
        mkdir -p "$scratch/$data/variants" && cp -r selector "$scratch/$data/" && cp variants/selected.json "$scratch/$data/variants/"
        extra=(); [ $data = old+new ] && extra=("$scratch/old.jsonl.gz")
        target/release/fewfit train --class cpu --out "$scratch/$data/selector/cpu.json" --shape-weights variants/shapes/weights.txt \
          --data "${extra[@]}" "${new[@]}" 2>&1 | tail -1
        judge "the cpu tree trained on the set's records of both CPUs today ($data)" "$scratch/$data"
      done
    } 2>&1 | tee $dir/results.txt ;;
esac
