#!/usr/bin/env bash
# On the dev machine: builds the release example and the test binaries into .device/ (ignored by
# git) for the device tool to carry to the GPU machine, and packs them all into .device.tar.xz
# (about 5.5 MB against 51, by xz -9e): carry that one file and run `tar -xJf .device.tar.xz`
# there first, so that a call carries every binary within the tool's 64 MiB beside the tracked
# tree (which the tool counts too); LEAVE_OUT="kernel_timing build_log tests/mechanisms ..."
# (paths under .device/) keeps what a call does not run out of the archive; the last line prints
# what a call would carry.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .device && mkdir -p .device/tests
cargo build --release --example ml_shapes --example launch_cost
cp target/release/examples/ml_shapes target/release/examples/launch_cost .device/
# The peer bench (scripts/device/bench.sh) and CLBlast for it, unpacked there into /tmp.
cargo build --release -p fewfit-bench --example peers --example first_call
cp target/release/examples/peers target/release/examples/first_call .device/
# The tuner (scripts/device/sweep.sh) and the kernel-mechanism timings.
cargo build --release -p fewfit-tuner --bin fewfit && cargo build --release -p fewfit-bench --example kernel_timing --example build_log
cp target/release/fewfit target/release/examples/kernel_timing target/release/examples/build_log .device/
(cd .device && apt-get download libclblast1)
# The C API test (tests/c/capi_test.c), linked with the static library: FEWFIT_DEVICE=gpu runs it on the GPU.
cargo build --release --lib
cc -std=gnu11 -O1 -Wall -Wextra -Werror -Iinclude -Itests/c tests/c/capi_test.c target/release/libfewfit.a \
  -lOpenCL -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o .device/tests/capi_test
cc -std=gnu11 -O1 -Wall -Wextra -Werror -Iinclude -Itests/c tests/c/invalid_args_test.c target/release/libfewfit.a \
  -lOpenCL -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o .device/tests/invalid_args_test
for t in variants small_shapes device_class errors threads first_use mechanisms transposed_copy release_engines \
  invalid_arguments out_of_order faults binary_cache \
  half half_split mma; do
  bin=$(cargo test -p fewfit --no-run --test "$t" --message-format=json 2>/dev/null | python3 -c "import sys,json
for l in sys.stdin:
    m=json.loads(l)
    if m.get('reason')=='compiler-artifact' and m.get('executable') and m['target']['name']=='$t': print(m['executable'])")
  cp "$bin" .device/tests/$t
done
strip .device/ml_shapes .device/launch_cost .device/peers .device/first_call .device/fewfit .device/kernel_timing .device/build_log .device/tests/*
exclude=(); for f in ${LEAVE_OUT:-}; do exclude+=(--exclude=".device/$f"); done
tar -cf - "${exclude[@]}" .device | xz -9e -T0 > .device.tar.xz
ls -la .device .device/tests .device.tar.xz
tracked=$(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
echo "a call carries $(( (tracked + $(stat -c %s .device.tar.xz)) / 1000000 )) MB: the tracked tree and .device.tar.xz"
