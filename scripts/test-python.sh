#!/usr/bin/env bash
# The Python package's tests (python/): builds the fewfit wheel with maturin in a virtual
# environment, checks that it bundles no OpenCL loader, installs it and runs pytest against NumPy
# on the default OpenCL device (PoCL in CI), and side by side with pyclblast where that installs
# (it builds from source against Debian's libclblast-dev, which scripts/ensure-opencl.sh installs).
#
# The wheel is a dev-profile build (about 1.5 min against 3.5 for release on two cores; the
# kernels run on the device either way). FEWFIT_PY_RELEASE=1 builds the release wheel instead,
# FEWFIT_PY_PYCLBLAST=0 leaves pyclblast out (saves about a minute of its build), and
# FEWFIT_PY_VENV names the environment (default target/python-venv, kept between runs).
# Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-opencl.sh
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

venv="${FEWFIT_PY_VENV:-target/python-venv}"
apt_install() {
  echo "test-python: installing $*"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}
if [ ! -x "$venv/bin/python" ]; then
  # Debian's python3 makes environments only with python3-venv (ensurepip) installed.
  if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    apt_install python3 python3-venv
  fi
  python3 -m venv "$venv"
fi
venv=$(cd "$venv" && pwd)
py="$venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check --upgrade "maturin>=1.5,<2" numpy pyopencl pytest
if [ "${FEWFIT_PY_PYCLBLAST:-1}" != 0 ] && ! "$py" -c 'import pyclblast' 2>/dev/null; then
  # pyclblast has no wheel for current CPythons: pip builds it (Cython, C++) against CLBlast.
  need=()
  if ! command -v g++ >/dev/null 2>&1; then need+=(g++); fi
  if ! "$py" -c 'import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
    2>/dev/null; then need+=(python3-dev); fi
  if [ ${#need[@]} -gt 0 ]; then apt_install "${need[@]}" || true; fi
  "$py" -m pip install -q --disable-pip-version-check pyclblast \
    || echo "test-python: pyclblast did not install; its side-by-side tests will skip"
fi

out=target/python-wheels
rm -rf "$out"
profile=(--profile dev)
if [ "${FEWFIT_PY_RELEASE:-0}" = 1 ]; then profile=(--release); fi
"$venv/bin/maturin" build "${profile[@]}" -m python/Cargo.toml -i "$py" --out "$out" --quiet
wheel=$(ls "$out"/fewfit-*.whl)
echo "test-python: built $wheel ($(du -k "$wheel" | cut -f1) KiB)"
# The wheel must load the system's OpenCL loader (the ICD lookup), never carry its own.
"$py" - "$wheel" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
bad = [n for n in names if "opencl" in n.lower() or ".libs/" in n]
if bad:
    sys.exit(f"test-python: the wheel bundles libraries: {bad}")
native = [n for n in names if n.startswith("fewfit/_native") and n.endswith(".so")]
if not native:
    sys.exit("test-python: the wheel holds no fewfit/_native extension")
# Nor link one: opencl3 dlopens libOpenCL.so.1 at the first OpenCL call.
import shutil, subprocess, tempfile
if shutil.which("readelf"):
    with tempfile.TemporaryDirectory() as tmp:
        so = zipfile.ZipFile(sys.argv[1]).extract(native[0], tmp)
        dynamic = subprocess.run(["readelf", "-d", so], capture_output=True, text=True).stdout
        needed = [line for line in dynamic.splitlines() if "NEEDED" in line]
        if any("OpenCL" in line for line in needed):
            sys.exit(f"test-python: the extension links the OpenCL loader: {needed}")
EOF
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"

# From the tests' folder, so that python/fewfit (without the extension) does not shadow the wheel.
export FEWFIT_TEST_DEVICE="${FEWFIT_TEST_DEVICE:-require}"
cd python/tests
"$venv/bin/pytest" -q -p no:cacheprovider "$@" .
