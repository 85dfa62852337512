#!/usr/bin/env bash
# Makes sure an OpenCL runtime is present: where no ICD is registered, installs Debian's PoCL
# (a CPU OpenCL device) and the ICD loader. Also installs gcc where it is missing (C API tests) and
# Debian's CLBlast (libclblast-dev: the LD_PRELOAD switch test and the C API overhead bench), and
# what the CLBlast drop-in tests need where missing: CLBlast's own testers (clblast-tests, with the
# CPU BLAS of libblas3; scripts/clblast-suite.sh), g++, cmake and pkg-config (tests/capi.rs builds
# C++ clients and a CMake project against scripts/install.sh's prefix).
set -euo pipefail
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need=()
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then need+=(pocl-opencl-icd); fi
if ! ldconfig -p | grep -q 'libOpenCL\.so\.1'; then need+=(ocl-icd-libopencl1); fi
if ! command -v cc >/dev/null 2>&1; then need+=(gcc); fi
# The C tests compile against CL/cl.h and link -lOpenCL.
if [ ! -e /usr/include/CL/cl.h ] || ! ldconfig -p | grep -q "libOpenCL\.so "; then need+=(ocl-icd-opencl-dev); fi
if [ ! -e /usr/include/clblast_c.h ]; then need+=(libclblast-dev); fi
if [ ! -x /usr/bin/clblast_test_xgemm ]; then need+=(clblast-tests); fi
if ! ldconfig -p | grep -q 'libblas\.so\.3 '; then need+=(libblas3); fi
if ! command -v g++ >/dev/null 2>&1; then need+=(g++); fi
if ! command -v cmake >/dev/null 2>&1; then need+=(cmake); fi
if ! command -v pkg-config >/dev/null 2>&1; then need+=(pkg-config); fi
if [ ${#need[@]} -gt 0 ]; then
  echo "ensure-opencl: installing ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
fi
