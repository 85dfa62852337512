#!/usr/bin/env bash
# CLBlast's own correctness suite through fewfit: Debian's clblast-tests binaries
# clblast_test_xgemm, clblast_test_xgemmbatched and clblast_test_xgemmstridedbatched (CLBlast 1.5.3,
# reference: the CPU BLAS of libblas3) run with fewfit's library preloaded (built with
# clblast-compat: the testers call clblast::Gemm<T> and friends, CLBlast's C++ API) and
# FEWFIT_STATS=1, on the default OpenCL device. Single, double and half precision go to fewfit
# (the testers run half only where the device lists cl_khr_fp16, which PoCL does not: there they
# skip it whole); complex stays CLBlast's. Passes when, for the precisions fewfit serves, no case
# fails, fewfit's statistics line shows the calls it served, and (scripts/clblast_suite.py):
#   - without -full_test, the counts of passed / skipped cases and of fewfit's calls are those
#     recorded for the testers' default cases (CLBlast itself gives the same on PoCL);
#   - with --compare, CLBlast's own run of the same binary and options gives every case the same
#     outcome (pass, or the same status code) and every routine the same counts.
# Other arguments go to the testers (-full_test, -platform N, -device N). Without -full_test the
# testers run with -verbose, so that each case's status code is compared; with it, not (the
# testers' -full_test -verbose output runs to gigabytes): the sections' outcome marks and the
# failing cases are. With -full_test, clblast_test_xgemmstridedbatched fails every case with
# offb != offc whose C changes, CLBlast itself included: its reference swaps B's and C's offsets
# (docs/CLBLAST.md); those failures are reported apart, and any other fails the run.
# About 2.5 minutes on a 2-core machine with PoCL's kernel cache empty (half of it CLBlast compiling
# its complex kernels), 20 s with it filled; --compare adds CLBlast's own run (about 5 minutes cold).
# The outputs stay in target/clblast-suite/ (CLBLAST_SUITE_OUT). CLBLAST_SUITE_TESTERS chooses
# testers (default: "xgemm xgemmbatched xgemmstridedbatched").
# Usage: bash scripts/clblast-suite.sh [--compare] [TESTER_OPTION...]
# Environment: FEWFIT_LIB (the library to preload; default: scripts/install.sh's into
# target/tmp/clblast-suite-prefix, built in target/tmp/clblast-compat as tests/capi.rs builds it),
# CLBLAST_TESTS (the folder of the clblast_test_* binaries, default /usr/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
compare=0
options=()
for arg in "$@"; do
  if [ "$arg" = --compare ]; then compare=1; else options+=("$arg"); fi
done
bins=${CLBLAST_TESTS:-/usr/bin}
if [ "$bins" = /usr/bin ]; then bash scripts/ensure-opencl.sh; fi
if [ -z "${FEWFIT_LIB:-}" ]; then
  CARGO_TARGET_DIR=$PWD/target/tmp/clblast-compat FEWFIT_PROFILE=dev \
    bash scripts/install.sh target/tmp/clblast-suite-prefix >/dev/null
  FEWFIT_LIB=$PWD/target/tmp/clblast-suite-prefix/lib/libfewfit.so.0
fi
verbose=(-verbose)
for arg in ${options[@]+"${options[@]}"}; do [ "$arg" != -full_test ] || verbose=(); done
out=${CLBLAST_SUITE_OUT:-target/clblast-suite}
mkdir -p "$out"
failed=0
for name in ${CLBLAST_SUITE_TESTERS:-xgemm xgemmbatched xgemmstridedbatched}; do
  start=$SECONDS
  # The testers exit 1 where a case failed; the check below reports it with the counts.
  FEWFIT_STATS=1 LD_PRELOAD="$FEWFIT_LIB" "$bins/clblast_test_$name" ${verbose[@]+"${verbose[@]}"} ${options[@]+"${options[@]}"} \
    >"$out/$name.fewfit.txt" 2>&1 || true
  reference=()
  if [ $compare = 1 ]; then
    "$bins/clblast_test_$name" ${verbose[@]+"${verbose[@]}"} ${options[@]+"${options[@]}"} >"$out/$name.clblast.txt" 2>&1 || true
    reference=("$out/$name.clblast.txt")
  fi
  python3 scripts/clblast_suite.py check "$name" "$out/$name.fewfit.txt" ${reference[@]+"${reference[@]}"} || failed=1
  echo "clblast-suite: $name took $((SECONDS - start)) s"
done
if [ $failed = 1 ]; then
  echo "clblast-suite: FAILED (outputs in $out/)"
  exit 1
fi
echo "clblast-suite: ok: CLBlast's GEMM testers pass through fewfit in the precisions they ran (single, double; half where the device has cl_khr_fp16)"
