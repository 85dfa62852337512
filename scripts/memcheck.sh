#!/usr/bin/env bash
# Runs every shipped variant on small edge shapes (tests/small_shapes.rs) on Oclgrind, a simulated
# OpenCL device that checks each memory access: a read or write outside a buffer, a data race in
# local or global memory (between work-items of a group, or between groups), a barrier some
# work-items of a group miss, or a bad API call is an error even where the result comes out right,
# as it may on PoCL and NVIDIA's OpenCL and not on another device. Fails if a test fails or
# Oclgrind reports anything. Installs Debian's oclgrind where it is missing. About 4 minutes on 2
# cores. The runs, each on 2 simulated compute units (so that the launches that split K or stream K
# run):
#   gpu    the kernels and build options of a GPU without a class of its own, with 128 KiB of
#          local memory, so that every variant of the set builds in f32 and f64 (but the tensor-core
#          family's, which only f16, bf16 and tf32 build, not checked here; the CPU block that
#          packs A needs 64 KiB in f32, 128 KiB in f64; with Oclgrind's own 32 KiB the set's 64 x 64
#          tile, 33,536 bytes, would not build either, and each would run another variant in its
#          place); the CPU blocks run as written;
#   cpu    the same with the `cpu` class's: its tree, and the CPU blocks narrowed to the 4 lanes
#          (Oclgrind reports a vector width of 1) of a CPU with 128-bit vectors, without packing A;
#   small  the `gpu` class on a device with 16 KiB of local memory and work-groups of at most 64
#          (OpenCL's embedded profile allows less), where no GPU variant of the set builds: each
#          is reported, and each call runs the variant the engine falls back to.
# The `nvidia-gpu` class needs NVIDIA's PTX, which Oclgrind does not compile.
# Usage: bash scripts/memcheck.sh [RUN...]   (default: gpu cpu small)
set -euo pipefail
cd "$(dirname "$0")/.."
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if [ ! -e /usr/lib/oclgrind/liboclgrind-rt-icd.so ]; then
  echo "memcheck: installing oclgrind"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq oclgrind >/dev/null
fi
test_bin=$(cargo test --features ndarray --test small_shapes --no-run --message-format=json 2>/dev/null |
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
status=0
# check NAME CLASS LOCAL_BYTES MAX_WORK_GROUP FALLBACKS: the test on Oclgrind as a device of 2
# compute units; FALLBACKS: whether variants may fail to build there (else each must build, so that
# what is checked is the variant itself).
check() {
  local name=$1 class=$2 local_bytes=$3 max_wg=$4 fallbacks=$5 log="$work/$1.log" out="$work/$1.out"
  echo "memcheck: $name (class $class, $local_bytes bytes of local memory, work-groups of at most $max_wg)"
  OCL_ICD_VENDORS="$work/vendors" OCLGRIND_DATA_RACES=1 OCLGRIND_CHECK_API=1 OCLGRIND_COMPUTE_UNITS=2 \
    OCLGRIND_LOCAL_MEM_SIZE="$local_bytes" OCLGRIND_MAX_WGSIZE="$max_wg" OCLGRIND_LOG="$log" \
    FEWFIT_DEVICE_CLASS="$class" FEWFIT_CACHE_DIR=off FEWFIT_TEST_DEVICE=require \
    "$test_bin" --test-threads 1 --nocapture 2>&1 | tee "$out" || status=1
  # --nocapture: the engine's warning that a variant did not build reaches $out (a passing test's
  # output is otherwise dropped).
  # The tensor-core family builds in f16, bf16 and tf32 only: its refusal in f32 and f64 is no
  # fallback (tests/mma.rs checks its indexing on PoCL).
  local fell_back
  fell_back=$(grep 'fewfit: warning' "$out" | grep -v 'the tensor-core family does not compute in' || true)
  if [ "$fallbacks" = no ] && [ -n "$fell_back" ]; then
    echo "memcheck: a variant did not build in $name, so its fallback ran in its place"
    status=1
  fi
  if [ -s "$log" ]; then
    echo "memcheck: Oclgrind reported errors in $name (count, message, kernel):"
    awk '/^[A-Za-z]/ && !/^\t/ { what = $0; sub(/ at .*/, "", what) } /^\tKernel:/ { print what " |" $2 }' "$log" |
      sort | uniq -c | sort -rn
    echo "memcheck: the first report:"
    awk 'NF { print; n++ } !NF && n { exit }' "$log"
    status=1
  else
    echo "memcheck: Oclgrind reported nothing in $name"
  fi
}
runs=("$@"); [ ${#runs[@]} -gt 0 ] || runs=(gpu cpu small)
for run in "${runs[@]}"; do
  case $run in
    gpu | cpu) check "$run" "$run" 131072 1024 no ;;
    small) check small gpu 16384 64 yes ;;
    *) echo "memcheck: unknown run $run (gpu, cpu or small)"; exit 2 ;;
  esac
done
exit $status
