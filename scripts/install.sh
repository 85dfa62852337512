#!/usr/bin/env bash
# Installs fewfit's C library under a prefix, as a system library is laid out:
#   PREFIX/include/fewfit.h
#   PREFIX/lib/libfewfit.so.X.Y.Z, libfewfit.so.0 (its SONAME), libfewfit.so  (links)
#   PREFIX/lib/libfewfit.a
#   PREFIX/lib/pkgconfig/fewfit.pc                        (pkg-config fewfit; --static for libfewfit.a)
#   PREFIX/lib/cmake/fewfit/fewfitConfig.cmake, ...Version.cmake   (find_package(fewfit): fewfit::fewfit, fewfit::fewfit_static)
#   PREFIX/lib/fewfit/clblast-shim/libclblast.so.1        (the shim: CLBlast callers that dlopen it, docs/CLBLAST.md)
#   PREFIX/lib/fewfit/clblast-shim/libclblast-real.so.1   (a link to the real CLBlast, which the shim loads behind fewfit)
# The library is built with the `clblast-compat` feature (CLBlast's GEMM and cache names, C and
# C++, beside fewfit's own) unless FEWFIT_FEATURES says otherwise (empty: fewfit's names only, no shim).
# Usage: bash scripts/install.sh PREFIX
# Environment: FEWFIT_PROFILE (cargo profile, default release; the tests use dev), FEWFIT_FEATURES
# (default clblast-compat), CLBLAST_LIB (the real libclblast.so.1 for the shim; default: the one
# ldconfig knows; `none`: no shim), CARGO_TARGET_DIR (default target/install: the shared library
# built here carries a SONAME, so it stays out of target/release, which the README links against).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
profile=${FEWFIT_PROFILE:-release}
features=${FEWFIT_FEATURES-clblast-compat}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
repository=$(sed -n 's/^repository = "\(.*\)"/\1/p' Cargo.toml | head -1)
major=${version%%.*}
minor=${version#*.}; minor=${minor%%.*}
soname="libfewfit.so.$major"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/install}

# One compile gives both libraries; the SONAME goes to the shared one only.
log=$(mktemp); trap 'rm -f "$log"' EXIT
"${CARGO:-cargo}" rustc --lib --crate-type cdylib,staticlib --profile "$profile" ${features:+--features "$features"} \
  -- -C "link-arg=-Wl,-soname,$soname" --print native-static-libs 2>"$log" || { cat "$log" >&2; exit 1; }
static_libs=$(sed -n 's/^note: native-static-libs: //p' "$log" | tail -1)
[ -n "$static_libs" ] || { cat "$log" >&2; echo "install: rustc printed no native-static-libs" >&2; exit 1; }
target=$("${CARGO:-cargo}" metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
out="$target/$([ "$profile" = dev ] && echo debug || echo "$profile")"

mkdir -p "$prefix/include" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/fewfit"
install -m 644 include/fewfit.h "$prefix/include/"
install -m 755 "$out/libfewfit.so" "$prefix/lib/libfewfit.so.$version"
ln -sf "libfewfit.so.$version" "$prefix/lib/$soname"
ln -sf "$soname" "$prefix/lib/libfewfit.so"
install -m 644 "$out/libfewfit.a" "$prefix/lib/"

compat=OFF; shim_dir=""
if [[ ",$features," == *",clblast-compat,"* ]]; then
  compat=ON
  real=${CLBLAST_LIB:-$({ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | sed -n 's/.*libclblast\.so\.1 (libc6,x86-64) => //p' | head -1 || true)}
  if [ -n "$real" ] && [ "$real" != none ]; then
    # Linked against a stub named libclblast-real.so.1 (a link to the real file bears CLBlast's
    # SONAME, which the loader would take for the shim itself); at run time the link in the shim's
    # folder leads to the real one.
    shim_dir=lib/fewfit/clblast-shim
    mkdir -p "$prefix/$shim_dir"
    stub=$(mktemp -d)
    cc -shared -o "$stub/libclblast-real.so.1" -Wl,-soname,libclblast-real.so.1 -x c /dev/null
    cc -shared -o "$prefix/$shim_dir/libclblast.so.1" -Wl,-soname,libclblast.so.1 packaging/clblast-shim.c \
      -Wl,--no-as-needed -L"$prefix/lib" -lfewfit "$stub/libclblast-real.so.1" -Wl,-rpath,'$ORIGIN:$ORIGIN/../..'
    rm -rf "$stub"
    ln -sf "$(readlink -f "$real")" "$prefix/$shim_dir/libclblast-real.so.1"
  fi
fi

cmake_libs=$(for l in $static_libs; do printf '%s;' "${l#-l}"; done); cmake_libs=${cmake_libs%;}
fill() {
  sed -e "s|@VERSION@|$version|g" -e "s|@SOVERSION@|$major|g" -e "s|@MAJOR@|$major|g" \
    -e "s|@MAJOR_MINOR@|$major.$minor|g" -e "s|@STATIC_LIBS@|$static_libs|g" \
    -e "s|@STATIC_LIBS_CMAKE@|$cmake_libs|g" -e "s|@CLBLAST_COMPAT@|$compat|g" -e "s|@SHIM_DIR@|$shim_dir|g" \
    -e "s|@REPOSITORY@|$repository|g" "$1" > "$2"
}
fill packaging/fewfit.pc.in "$prefix/lib/pkgconfig/fewfit.pc"
fill packaging/fewfitConfig.cmake.in "$prefix/lib/cmake/fewfit/fewfitConfig.cmake"
fill packaging/fewfitConfigVersion.cmake.in "$prefix/lib/cmake/fewfit/fewfitConfigVersion.cmake"
echo "install: fewfit $version ($profile${features:+, $features}) in $prefix${shim_dir:+; CLBlast shim in $prefix/$shim_dir}"
