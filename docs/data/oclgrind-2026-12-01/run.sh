#!/usr/bin/env bash
# The memory checks' control: rows-past-m.patch drops the row bound from one load of A in the direct
# kernel, so that work-items past M read A's rows past its end. The results stay right (those rows
# are never stored), so the tests pass on PoCL and on Oclgrind; `scripts/memcheck.sh` must fail,
# naming the load. Runs in a scratch worktree of HEAD with a target folder of its own (target/control:
# sharing target/ would leave the patched kernels in the checkout's builds, since build.rs renders them
# again only when their files are newer); writes rows-past-m.txt here.
# Usage: bash docs/data/oclgrind-2026-12-01/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/data/oclgrind-2026-12-01 root=$PWD
scratch=$(mktemp -d); trap 'git worktree remove --force "$scratch"' EXIT
git worktree add -q --detach "$scratch" HEAD
git -C "$scratch" apply "$root/$here/rows-past-m.patch"
if (cd "$scratch" && CARGO_TARGET_DIR="$root/target/control" bash scripts/memcheck.sh gpu) 2>&1 |
  grep -v 'warnings generated' >"$here/rows-past-m.txt"; then
  echo "control: memcheck passed a kernel that reads past A (it must not)"; exit 1
fi
echo "control: memcheck failed, as it must:"; grep -A2 'reported errors' "$here/rows-past-m.txt"
