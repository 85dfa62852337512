#!/usr/bin/env bash
# Runs every shipped variant on small edge shapes (tests/small_shapes.rs) on Oclgrind, a simulated
# OpenCL device that checks each memory access: a read or write outside a buffer, a data race in
# local or global memory (between work-items of a group, or between groups), a barrier some
# work-items of a group miss, or a bad API call is an error even where the result comes out right,
# as it may on PoCL and NVIDIA's OpenCL and not on another device. Once with the `gpu` class (the
# kernels and build options of a GPU without a class of its own) and once with the `cpu` class, on
# 2 simulated compute units so that the launches that split K or stream K run, and 48 KiB of local
# memory (NVIDIA's; Oclgrind's own 32 KiB would leave out the set's 64 x 64 tile, which needs 33,536
# bytes, and run another variant in its place). The `nvidia-gpu`
# class needs NVIDIA's PTX, which Oclgrind does not compile. Fails if a test fails or Oclgrind
# reports anything. Installs Debian's oclgrind where it is missing. About 10 minutes on 2 cores.
# Usage: bash scripts/memcheck.sh [CLASS...]   (default: gpu cpu)
set -euo pipefail
cd "$(dirname "$0")/.."
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if [ ! -e /usr/lib/oclgrind/liboclgrind-rt-icd.so ]; then
  echo "memcheck: installing oclgrind"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq oclgrind >/dev/null
fi
test_bin=$(cargo test --features tune,ndarray --test small_shapes --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "small_shapes" and m.get("executable"):
        print(m["executable"])')
[ -n "$test_bin" ] || { echo "memcheck: the small_shapes test did not build"; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# Oclgrind alone as the ICD loader's platform, so that the tests' default device is Oclgrind's.
mkdir "$work/vendors"
echo /usr/lib/oclgrind/liboclgrind-rt-icd.so >"$work/vendors/oclgrind.icd"
classes=("$@"); [ ${#classes[@]} -gt 0 ] || classes=(gpu cpu)
status=0
for c in "${classes[@]}"; do
  log="$work/$c.log"
  echo "memcheck: class $c on Oclgrind $(oclgrind --version 2>&1 | grep -o '[0-9][0-9.]*' | head -1)"
  OCL_ICD_VENDORS="$work/vendors" OCLGRIND_DATA_RACES=1 OCLGRIND_CHECK_API=1 OCLGRIND_COMPUTE_UNITS=2 OCLGRIND_LOCAL_MEM_SIZE=49152 \
    OCLGRIND_LOG="$log" FEWFIT_DEVICE_CLASS="$c" FEWFIT_CACHE_DIR=off FEWFIT_TEST_DEVICE=require \
    "$test_bin" --test-threads 1 || status=1
  if [ -s "$log" ]; then
    echo "memcheck: Oclgrind reported errors with class $c (count, message, kernel):"
    awk '/^[A-Za-z]/ && !/^\t/ { what = $0; sub(/ at .*/, "", what) } /^\tKernel:/ { print what " |" $2 }' "$log" |
      sort | uniq -c | sort -rn
    echo "memcheck: the first report:"
    awk 'NF { print; n++ } !NF && n { exit }' "$log"
    status=1
  else
    echo "memcheck: Oclgrind reported nothing with class $c"
  fi
done
exit $status
