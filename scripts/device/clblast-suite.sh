#!/usr/bin/env bash
# On the lent GPU machine: CLBlast's own GEMM testers (clblast_test_xgemm, _xgemmbatched,
# _xgemmstridedbatched, Debian's CLBlast 1.5.3) with -full_test through fewfit on NVIDIA's OpenCL
# (scripts/clblast-suite.sh: fewfit preloaded, FEWFIT_STATS=1): single, double and half precision
# served by fewfit (the testers skip half where the device lists no cl_khr_fp16, as NVIDIA's OpenCL
# does), complex by CLBlast. Needs .device/clblast-suite.tar.xz, built on the dev
# machine by scripts/device/build-clblast-suite.sh:
#   run(command="bash scripts/device/clblast-suite.sh", carry=[".device/clblast-suite.tar.xz"])
# Arguments go to scripts/clblast-suite.sh: `--compare` also runs CLBlast itself and compares the
# outcomes section by section (twice the time). CLBLAST_SUITE_TESTERS="xgemm" (say) runs fewer
# testers, to split the run over calls of at most 10 minutes. -full_test makes each tester run about
# 480,000 cases (every one checked on the host against the CPU BLAS): time a first call with one
# tester. The outputs come back in $OUT/clblast-suite/.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device/nvidia.sh
work=/tmp/clblast-suite
rm -rf "$work" && mkdir -p "$work/root"
tar -xJf .device/clblast-suite.tar.xz -C "$work"
for deb in "$work"/clblast-suite/*.deb; do dpkg -x "$deb" "$work/root"; done
libs=$(find "$work/root" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:)
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ldd "$work/root/usr/bin/clblast_test_xgemm" | grep -E "not found|clblast|blas|OpenCL"
# The NVIDIA platform's index, as the testers count platforms (-platform N).
platform=""
for p in 0 1 2 3; do
  # The tester dies of SIGPIPE once the line is read, so its status is not looked at (pipefail).
  device=$(timeout 60 stdbuf -oL "$work/root/usr/bin/clblast_test_xgemmstridedbatched" -platform $p 2>/dev/null \
    | grep -m1 "Running on OpenCL device" || true)
  if grep -qiE "nvidia|h100|h200" <<< "$device"; then platform=$p; break; fi
done
[ -n "$platform" ] || { echo "clblast-suite: no NVIDIA platform among the testers' first four"; exit 1; }
echo "clblast-suite: NVIDIA is platform $platform"
export FEWFIT_CACHE_DIR=/tmp/fewfit-cache
time CLBLAST_TESTS="$work/root/usr/bin" FEWFIT_LIB="$work/clblast-suite/prefix/lib/libfewfit.so.0" \
  CLBLAST_SUITE_OUT="${OUT:-/tmp}/clblast-suite" bash scripts/clblast-suite.sh "$@" -full_test -platform "$platform"
