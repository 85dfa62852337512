# Sourced by the device scripts: ORACLE_DATA, the H200 sweep datasets the shipped set was selected
# from (the `data` list of variants/recipe.toml's [regenerate]), which the peer bench's oracle reads
# (BENCH_DATA overrides it).
ORACLE_DATA="${BENCH_DATA:-$(awk '/^\[/ { section = $0 } section == "[regenerate]" && /^data = \[/ { on = 1; next } on && /^\]/ { on = 0 } on' variants/recipe.toml | grep -o 'data/h200-[^"]*' | sed 's|^|variants/|' | tr '\n' ' ')}"
