#!/usr/bin/env bash
# The README's `regenerate` command, with the arguments given here added (a tree grid, such as
# `--max-depth 16 --min-leaf 16,8,4,2,1`), run in a scratch root (a copy of variants/, selector/ and
# scripts/) so that the crate's files stay as they are; then the PA = 1 twin substitution the README
# names. Prints the scratch root last; evaluate it with
# `bash docs/data/tree-h200-skinny-2026-11-28/evaluate.sh ROOT`.
# Usage, from the crate root with target/release/fewfit built (`cargo build --release --features tune`):
#   bash docs/data/cv-cut-2026-11-28/regenerate.sh [ARGS...]
set -euo pipefail
crate=$(pwd)
root=$(mktemp -d); cp -r variants selector scripts "$root/"
# The README's command: from its first line to the first that does not end in a backslash.
readme_command=$(sed -n '/^target\/release\/fewfit regenerate \\$/,/[^\\]$/p' README.md)
readme_command=${readme_command//variants\/data\//$crate/variants/data/}
cd "$root"
eval "$crate/${readme_command//$'\\\n'/} $*"
python3 scripts/substitute_twin.py panel_kc256_lm1_ln16_mv4_nr4_pa0_vw16 PA=1
echo "root: $root"
