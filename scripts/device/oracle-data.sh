# Sourced by the device scripts: ORACLE_DATA, the H200 sweep datasets the shipped set was selected
# from (variants/selection-data.txt), which the peer bench's oracle reads (BENCH_DATA overrides it).
ORACLE_DATA="${BENCH_DATA:-$(grep '^variants/data/h200-' variants/selection-data.txt | tr '\n' ' ')}"
