cd /work/main
/tmp/fewfit-regen regenerate \
    --data variants/data/h200-v2-f32.jsonl.gz variants/data/h200-v2-ml-f32.jsonl.gz \
           variants/data/h200-v3-skinny-f32.jsonl.gz variants/data/h200-v4-mid-f32.jsonl.gz \
           variants/data/h200-v4-xgemm-f32.jsonl.gz variants/data/h200-v5-rbr-decode-f32.jsonl.gz \
           variants/data/h200-v5-rbr-f32.jsonl.gz variants/data/h200-v11-ksplit-f32.jsonl.gz \
           variants/data/h200-v11-ksplit-set-f32.jsonl.gz variants/data/h200-v13-autosplit-f32.jsonl.gz \
           variants/data/h200-v16-db3-large-f32.jsonl.gz variants/data/h200-v17-db3-f32.jsonl.gz \
           variants/data/h200-v17-db3-skinny-f32.jsonl.gz variants/data/pocl-spr2-f32.jsonl.gz \
           variants/data/pocl-zen4-f32.jsonl.gz \
    --holdout variants/data/h200-v2-unseen-f32.jsonl.gz variants/data/h200-v3-skinny-unseen-f32.jsonl.gz \
              variants/data/h200-v4-mid-unseen-f32.jsonl.gz variants/data/h200-v4-xgemm-unseen-f32.jsonl.gz \
              variants/data/h200-v5-rbr-unseen-f32.jsonl.gz variants/data/h200-v11-ksplit-unseen-f32.jsonl.gz \
              variants/data/h200-v11-ksplit-set-unseen-f32.jsonl.gz variants/data/h200-v13-autosplit-unseen-f32.jsonl.gz \
              variants/data/h200-v17-db3-unseen-f32.jsonl.gz variants/data/h200-v17-db3-skinny-unseen-f32.jsonl.gz \
              variants/data/pocl-zen4-unseen-f32.jsonl.gz variants/data/pocl-spr2-unseen-f32.jsonl.gz \
    --train-only variants/data/h200-v13-tree-dense-f32.jsonl.gz variants/data/h200-v13-trees-f32.jsonl.gz \
                 variants/data/h200-v17-db3-tree-dense-f32.jsonl.gz variants/data/h200-v17-db3-trees-f32.jsonl.gz \
                 variants/data/pocl-spr2-trees-f32.jsonl.gz \
    --shape-weights variants/shapes/weights.txt --root "$1"
