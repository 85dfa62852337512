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
if [ ! -x "$venv/bin/python" ]; then
  # Debian's python3 makes environments only with python3-venv (ensurepip) installed.
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
    echo "test-python: installing python3-venv"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq python3-venv python3-pip >/dev/null
  fi
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check --upgrade "maturin>=1.5,<2" numpy pyopencl pytest
if [ "${FEWFIT_PY_PYCLBLAST:-1}" != 0 ] && ! "$py" -c 'import pyclblast' 2>/dev/null; then
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
if not any(n.startswith("fewfit/_native") and n.endswith(".so") for n in names):
    sys.exit("test-python: the wheel holds no fewfit/_native extension")
EOF
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"

# From the tests' folder, so that python/fewfit (without the extension) does not shadow the wheel.
export FEWFIT_TEST_DEVICE="${FEWFIT_TEST_DEVICE:-require}"
cd python/tests
"../../$venv/bin/pytest" -q -p no:cacheprovider "$@" .
