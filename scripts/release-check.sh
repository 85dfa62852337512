#!/usr/bin/env bash
# Release check: `fewfit regenerate --recipe variants/recipe.toml` into a temporary root must write variants/selected.json and selector/*.json byte for byte as committed (about 25 minutes on a 2-core VM).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d); trap 'rm -rf "$root"' EXIT
cargo run --release -q -p fewfit-tuner --bin fewfit -- regenerate --recipe variants/recipe.toml --root "$root"
diff -r selector "$root/selector"
diff variants/selected.json "$root/variants/selected.json"
echo "release check: variants/recipe.toml reproduces variants/selected.json and selector/*.json"
