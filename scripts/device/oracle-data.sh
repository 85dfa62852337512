# Sourced by the device scripts: ORACLE_DATA, the H200 sweep datasets the shipped set was selected
# from, which the peer bench's oracle reads (BENCH_DATA overrides it).
ORACLE_DATA="${BENCH_DATA:-$(ls variants/data/h200-v2-f32.jsonl.gz variants/data/h200-v2-ml-f32.jsonl.gz \
  variants/data/h200-v3-skinny-f32.jsonl.gz variants/data/h200-v4-mid-f32.jsonl.gz \
  variants/data/h200-v4-xgemm-f32.jsonl.gz variants/data/h200-v5-rbr-decode-f32.jsonl.gz \
  variants/data/h200-v5-rbr-f32.jsonl.gz variants/data/h200-v11-ksplit-f32.jsonl.gz \
  variants/data/h200-v11-ksplit-set-f32.jsonl.gz variants/data/h200-v18-autosplit-f32.jsonl.gz \
  variants/data/h200-v16-db3-large-f32.jsonl.gz variants/data/h200-v17-db3-f32.jsonl.gz \
  variants/data/h200-v17-db3-skinny-f32.jsonl.gz variants/data/h200-v18-db3-f32.jsonl.gz \
  variants/data/h200-v18-db3-skinny-f32.jsonl.gz variants/data/h200-v18-db3-large-f32.jsonl.gz \
  variants/data/h200-v19-sk-v2-f32.jsonl.gz variants/data/h200-v19-sk-v2-ml-f32.jsonl.gz | tr '\n' ' ')}"
