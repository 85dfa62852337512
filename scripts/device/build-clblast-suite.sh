#!/usr/bin/env bash
# On the dev machine: packs what scripts/device/clblast-suite.sh needs on the GPU machine into
# .device/clblast-suite.tar.xz (ignored by git; about 7 MB): fewfit's library built with
# clblast-compat in release (scripts/install.sh, into target/install) and Debian's clblast-tests,
# libclblast1 and libblas3 packages (apt-get download), which that script unpacks into /tmp. Run it
# after scripts/device/build.sh (which empties .device/), then carry the archive:
#   run(command="bash scripts/device/clblast-suite.sh", carry=[".device/clblast-suite.tar.xz"])
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .device/clblast-suite && mkdir -p .device/clblast-suite
bash scripts/install.sh .device/clblast-suite/prefix
strip .device/clblast-suite/prefix/lib/libfewfit.so.*.*.*
rm -rf .device/clblast-suite/prefix/lib/libfewfit.a .device/clblast-suite/prefix/lib/fewfit
(cd .device/clblast-suite && apt-get download clblast-tests libclblast1 libblas3 2>&1 | grep -v unsandboxed || true)
tar -C .device -cf - clblast-suite | xz -9e -T0 > .device/clblast-suite.tar.xz
ls -la .device/clblast-suite .device/clblast-suite.tar.xz
