source scripts/device/nvidia.sh
.device/fewfit sweep --device gpu --shapes .device/dflt/shapes.txt --space variants/space.json --sample 0 --no-shipped --variants-from .device/dflt/set.jsonl.gz --repeats 20 --quiet --budget-secs 240 --out $OUT/gpu-set-default-shapes.jsonl
python3 scripts/sweep_best.py $OUT/gpu-set-default-shapes.jsonl --top 12 > $OUT/top.txt
date -u
