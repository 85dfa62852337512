//! The C ABI from C and C++. `tests/c/capi_test.c` is compiled with the system C compiler (`$CC`,
//! else `cc`) against `include/fewfit.h` and the libfewfit.so / libfewfit.a that cargo builds next
//! to this test (every crate type of the library is built for the tests), and run: results against
//! an f64 reference (the whole C buffer: elements outside C must keep their poison) in single,
//! double, half and bfloat16, batches, warm-up, the TF32 compute mode, an out-of-order queue without
//! events, and status codes. `tests/c/invalid_args_test.c` runs CLBlast's "invalid" cross products
//! through the shared library in the four precisions.
//!
//! Then the CLBlast drop-in (docs/CLBLAST.md), against the prefix that `scripts/install.sh` lays out
//! (built with `clblast-compat`): its exported CLBlast names against Debian's libclblast.so.1; a
//! CLBlast C client (`tests/c/clblast_switch.c`, linked with `-lclblast`) and a C++ API client
//! (`tests/c/clblast_cpp.cpp`) run plainly, with `LD_PRELOAD`, and (the C one) with the
//! `libclblast.so.1` shim first on the library path; a program that dlopens libclblast.so.1
//! (`tests/c/clblast_dlopen.c`) through the shim; and a CMake project and a pkg-config build
//! against the prefix (`tests/c/cmake_consumer`). These are skipped, saying so, where CLBlast is not
//! installed (scripts/ensure-opencl.sh installs it); CLBlast's own testers run through fewfit in
//! `scripts/clblast-suite.sh`.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");
const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// Libraries the static libfewfit.a needs (`cargo rustc -- --print native-static-libs`).
const STATIC_DEPS: &[&str] = &["-lOpenCL", "-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"];

/// The folder holding the libfewfit.so and libfewfit.a built for this test run.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps folder");
    let found = [deps, deps.parent().unwrap_or(deps)]
        .into_iter()
        .find(|d| d.join("libfewfit.so").exists() && d.join("libfewfit.a").exists())
        .map(Path::to_path_buf);
    found.unwrap_or_else(|| panic!("no libfewfit.so and libfewfit.a next to {}", exe.display()))
}

/// A compiler of the tests' sources: the variable that names another, its default, the language
/// standard, and what installs it.
struct Compiler {
    variable: &'static str,
    default: &'static str,
    standard: &'static str,
    package: &'static str,
}

/// The C compiler: `$CC`, else `cc`.
const C: Compiler = Compiler { variable: "CC", default: "cc", standard: "-std=gnu11", package: "gcc" };
/// The C++ compiler: `$CXX`, else `g++`.
const CXX: Compiler = Compiler { variable: "CXX", default: "g++", standard: "-std=c++17", package: "g++" };

/// Compiles the sources (with include/ and tests/c/ on the include path) and extra arguments into
/// `out`; panics with the compiler's output on failure.
fn compile(compiler: &Compiler, sources: &[&str], args: &[&str], out: &Path) {
    let command = std::env::var(compiler.variable).unwrap_or_else(|_| compiler.default.into());
    let output = Command::new(&command)
        .args([compiler.standard, "-O1", "-Wall", "-Wextra", "-Werror", "-Iinclude", "-Itests/c"])
        .args(sources)
        .args(args)
        .arg("-o")
        .arg(out)
        .current_dir(MANIFEST)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run the compiler `{command}` ({e}); scripts/ensure-opencl.sh installs {}", compiler.package)
        });
    assert!(output.status.success(), "{command} failed:\n{}", String::from_utf8_lossy(&output.stderr));
}

/// Runs a program with extra arguments and environment, prints its output, and returns it.
fn run_with(program: &Path, args: &[&str], env: &[(&str, &OsStr)]) -> Output {
    let output = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let env_text: String = env.iter().map(|(k, v)| format!("{k}={} ", v.to_string_lossy())).collect();
    println!("$ {env_text}{} {}", program.display(), args.join(" "));
    print!("{}", String::from_utf8_lossy(&output.stdout));
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    output
}

/// Runs a program, prints its output, and returns it.
fn run(program: &Path, preload: Option<&Path>) -> Output {
    match preload {
        Some(lib) => run_with(program, &[], &[("LD_PRELOAD", lib.as_os_str())]),
        None => run_with(program, &[], &[]),
    }
}

#[test]
fn c_program_through_shared_and_static_library() {
    if common::device().is_none() {
        return;
    }
    let dir = lib_dir();
    let shared = Path::new(TMP).join("capi_test_shared");
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    let lib_path = format!("-L{}", dir.display());
    compile(&C, &["tests/c/capi_test.c"], &[&lib_path, "-lfewfit", &rpath, "-lOpenCL", "-lm"], &shared);
    let static_exe = Path::new(TMP).join("capi_test_static");
    let archive = dir.join("libfewfit.a");
    let mut args = vec![archive.to_str().expect("UTF-8 path")];
    args.extend_from_slice(STATIC_DEPS);
    compile(&C, &["tests/c/capi_test.c"], &args, &static_exe);
    for exe in [shared, static_exe] {
        let output = run(&exe, None);
        assert!(output.status.success(), "{} failed", exe.display());
    }
}

/// CLBlast's "invalid" runs through the C ABI (`tests/c/invalid_args_test.c`): generated cross
/// products of layouts, transposes, shapes, buffer sizes, leading dimensions, offsets, strides and
/// NULL buffers in the plain, strided and array forms, each with the status code it must return
/// and C left bit for bit as it was; the exact sizes succeed and are checked against the reference.
#[test]
fn c_invalid_arguments_cross_product() {
    if common::device().is_none() {
        return;
    }
    let dir = lib_dir();
    let exe = Path::new(TMP).join("invalid_args_test");
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    let lib_path = format!("-L{}", dir.display());
    compile(&C, &["tests/c/invalid_args_test.c"], &[&lib_path, "-lfewfit", &rpath, "-lOpenCL", "-lm"], &exe);
    let output = run(&exe, None);
    assert!(output.status.success(), "{} failed", exe.display());
}

/// Whether Debian's CLBlast is installed; if not, says that the test is skipped.
fn clblast_installed(what: &str) -> bool {
    let found = Path::new("/usr/include/clblast_c.h").exists();
    if !found {
        eprintln!(
            "Skipping {what}: CLBlast is not installed (no /usr/include/clblast_c.h); scripts/ensure-opencl.sh \
             installs libclblast-dev"
        );
    }
    found
}

/// The prefix `scripts/install.sh` lays out for these tests, once per run of this binary: built with
/// `clblast-compat` (its default) in the dev profile, in a target folder of its own under the test's
/// tmp dir (the outer cargo holds the lock on the main one; later runs rebuild only what changed).
/// `scripts/clblast-suite.sh` builds in the same folder.
fn installed() -> &'static Path {
    static PREFIX: OnceLock<PathBuf> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let prefix = Path::new(TMP).join("fewfit-prefix");
        let _ = std::fs::remove_dir_all(&prefix);
        let status = Command::new("bash")
            .arg("scripts/install.sh")
            .arg(&prefix)
            .current_dir(MANIFEST)
            .env("CARGO_TARGET_DIR", Path::new(TMP).join("clblast-compat"))
            .env("FEWFIT_PROFILE", "dev")
            .env_remove("FEWFIT_FEATURES")
            .status()
            .expect("cannot run bash");
        assert!(status.success(), "scripts/install.sh failed");
        prefix
    })
}

/// The installed shared library under its SONAME, as LD_PRELOAD names it.
fn installed_library() -> PathBuf {
    installed().join("lib/libfewfit.so.0")
}

/// The folder of the installed `libclblast.so.1` shim.
fn shim_dir() -> PathBuf {
    installed().join("lib/fewfit/clblast-shim")
}

/// The `symbol NAME LIBRARY` lines a client prints.
fn symbols(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("symbol ")).collect()
}

/// The dynamic symbols a shared library defines (`nm -D --defined-only`).
fn defined_symbols(library: &Path) -> Vec<String> {
    let output = Command::new("nm").args(["-D", "--defined-only"]).arg(library).output().expect("cannot run nm");
    assert!(output.status.success(), "nm {} failed", library.display());
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(String::from)
        .collect()
}

/// The installed library has a SONAME, exports CLBlast's C++ GEMM and cache entry points for float,
/// double and half (`t`: `cl_half`, an unsigned short) under exactly the names Debian's
/// libclblast.so.1 (CLBlast 1.5.3) defines, and CLBlast's C names for them, and no complex precision.
#[test]
fn installed_library_exports_clblast_names() {
    if !clblast_installed("the CLBlast symbol check") {
        return;
    }
    let library = installed_library();
    let readelf = Command::new("readelf").arg("-d").arg(&library).output().expect("cannot run readelf");
    assert!(String::from_utf8_lossy(&readelf.stdout).contains("Library soname: [libfewfit.so.0]"), "no SONAME");
    let ours = defined_symbols(&library);
    let theirs = defined_symbols(Path::new("/usr/lib/x86_64-linux-gnu/libclblast.so.1"));
    let served = |name: &&String| {
        ["_ZN7clblast4GemmI", "_ZN7clblast11GemmBatchedI", "_ZN7clblast18GemmStridedBatchedI"]
            .iter()
            .any(|p| name.starts_with(p) && ["f", "d", "t"].iter().any(|t| name[p.len()..].starts_with(t)))
            || ["_ZN7clblast10ClearCacheEv", "_ZN7clblast9FillCacheEP13_cl_device_id"].contains(&name.as_str())
    };
    let mut want: Vec<&String> = theirs.iter().filter(served).collect();
    let mut got: Vec<&String> = ours.iter().filter(|n| n.starts_with("_ZN7clblast")).collect();
    want.sort();
    got.sort();
    assert_eq!(want.len(), 11, "Debian's libclblast.so.1: {want:?}");
    assert_eq!(got, want, "fewfit's C++ names differ from CLBlast's");
    for precision in ["S", "D", "H"] {
        for form in ["gemm", "gemmBatched", "gemmStridedBatched", "gemmWithTempBuffer"] {
            let name = format!("CLBlast{precision}{form}");
            assert!(theirs.contains(&name) && ours.contains(&name), "{name}");
        }
    }
    for name in ["CLBlastClearCache", "CLBlastFillCache"] {
        assert!(theirs.contains(&name.to_string()) && ours.contains(&name.to_string()), "{name}");
    }
    let complex = |n: &&String| ["CLBlastC", "CLBlastZ"].iter().any(|p| n.starts_with(p) && n.contains("gemm"));
    assert_eq!(ours.iter().filter(complex).count(), 0, "complex precision exported");
}

#[test]
fn clblast_program_switches_to_fewfit_with_ld_preload_and_the_shim() {
    if common::device().is_none() || !clblast_installed("the LD_PRELOAD test") {
        return;
    }
    let client = Path::new(TMP).join("clblast_switch");
    compile(&C, &["tests/c/clblast_switch.c"], &["-lclblast", "-lOpenCL", "-ldl", "-lm"], &client);
    let library = installed_library();

    let plain = run(&client, None);
    let stdout = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success() && stdout.contains("results: ok"), "CLBlast run failed");
    assert!(stdout.contains("backend: clblast"));
    assert!(symbols(&stdout).iter().all(|l| l.contains("libclblast")), "plain run: symbols not from libclblast");

    let preloaded = run(&client, Some(&library));
    let stdout = String::from_utf8_lossy(&preloaded.stdout);
    assert!(preloaded.status.success() && stdout.contains("results: ok"), "preloaded run failed");
    assert!(stdout.contains("backend: fewfit") && !stdout.contains("(0 program builds)"), "fewfit did not run");
    let syms = symbols(&stdout);
    assert_eq!(syms.len(), 10);
    let library_str = library.to_str().expect("UTF-8 path");
    assert!(
        syms.iter().all(|l| l.ends_with(library_str)),
        "preloaded run: not every CLBlast GEMM and cache symbol is fewfit's"
    );

    // No LD_PRELOAD: the shim, first on the library path, stands in for libclblast.so.1.
    let shimmed = run_with(&client, &[], &[("LD_LIBRARY_PATH", shim_dir().as_os_str())]);
    let stdout = String::from_utf8_lossy(&shimmed.stdout);
    assert!(shimmed.status.success() && stdout.contains("results: ok"), "run through the shim failed");
    assert!(stdout.contains("backend: fewfit"), "the shim did not load fewfit");
    assert!(symbols(&stdout).iter().all(|l| l.ends_with("/libfewfit.so.0")), "shim run: not every symbol is fewfit's");
}

/// A client of CLBlast's C++ API (`clblast::Gemm<T>`, ...) switches to fewfit under LD_PRELOAD, and
/// FEWFIT_STATS shows what fewfit served.
#[test]
fn clblast_cpp_program_switches_to_fewfit_with_ld_preload() {
    if common::device().is_none() || !clblast_installed("the C++ API test") {
        return;
    }
    let client = Path::new(TMP).join("clblast_cpp");
    compile(&CXX, &["tests/c/clblast_cpp.cpp"], &["-lclblast", "-lOpenCL", "-ldl"], &client);
    let library = installed_library();

    let plain = run(&client, None);
    let stdout = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success() && stdout.contains("results: ok"), "CLBlast run failed");
    assert!(stdout.contains("backend: clblast"));
    assert!(symbols(&stdout).iter().all(|l| l.contains("libclblast")), "plain run: symbols not from libclblast");

    let preloaded = run_with(&client, &[], &[("LD_PRELOAD", library.as_os_str()), ("FEWFIT_STATS", OsStr::new("1"))]);
    let stdout = String::from_utf8_lossy(&preloaded.stdout);
    assert!(preloaded.status.success() && stdout.contains("results: ok"), "preloaded run failed");
    assert!(stdout.contains("backend: fewfit"), "fewfit did not run");
    let syms = symbols(&stdout);
    assert_eq!(syms.len(), 11);
    let library_str = library.to_str().expect("UTF-8 path");
    assert!(syms.iter().all(|l| l.ends_with(library_str)), "preloaded run: not every C++ symbol is fewfit's");
    // Four single (one with lda too small), two double and three half GEMM calls.
    let stderr = String::from_utf8_lossy(&preloaded.stderr);
    assert!(
        stderr.contains(
            "fewfit stats: 9 GEMM calls served (single 4, double 2, half 3, bf16 0; 1 returned an error status)"
        ),
        "no or wrong FEWFIT_STATS line"
    );
}

/// A program that dlopens "libclblast.so.1" and looks CLBlast's routines up with dlsym, which
/// LD_PRELOAD cannot reach, gets fewfit's GEMMs and the real CLBlast's other routines through the
/// shim.
#[test]
fn dlopen_program_reaches_fewfit_through_the_shim() {
    if common::device().is_none() || !clblast_installed("the dlopen test") {
        return;
    }
    let client = Path::new(TMP).join("clblast_dlopen");
    compile(&C, &["tests/c/clblast_dlopen.c"], &["-lOpenCL", "-ldl", "-lm"], &client);

    let plain = run(&client, None);
    let stdout = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success() && stdout.contains("results: ok") && stdout.contains("backend: clblast"));

    let shimmed = run_with(&client, &[], &[("LD_LIBRARY_PATH", shim_dir().as_os_str())]);
    let stdout = String::from_utf8_lossy(&shimmed.stdout);
    assert!(shimmed.status.success() && stdout.contains("results: ok"), "run through the shim failed");
    assert!(stdout.contains("backend: fewfit") && !stdout.contains("(0 program builds)"), "fewfit did not run");
    let syms = symbols(&stdout);
    assert_eq!(syms.len(), 5);
    for line in &syms {
        let from_fewfit = line.ends_with("/libfewfit.so.0");
        assert_eq!(from_fewfit, !line.starts_with("symbol CLBlastSaxpy "), "{line}");
    }
    assert!(syms.iter().any(|l| l.starts_with("symbol CLBlastSaxpy ") && l.ends_with("/libclblast-real.so.1")));
}

/// A C++ project finds the installed prefix with CMake (`find_package(fewfit)`: the shared and the
/// static library, and a CLBlast C++ client linked against fewfit in place of CLBlast, whose
/// FillCache and ClearCache are fewfit's alone) and with pkg-config, and its programs run.
#[test]
fn installed_prefix_builds_with_cmake_and_pkg_config() {
    if common::device().is_none() {
        return;
    }
    let prefix = installed();
    let build = Path::new(TMP).join("cmake-consumer");
    let _ = std::fs::remove_dir_all(&build);
    let cmake = |args: &[&OsStr]| {
        let output = Command::new("cmake")
            .args(args)
            .current_dir(MANIFEST)
            .output()
            .unwrap_or_else(|e| panic!("cannot run cmake ({e}); scripts/ensure-opencl.sh installs it"));
        print!("{}", String::from_utf8_lossy(&output.stdout));
        assert!(output.status.success(), "cmake failed:\n{}", String::from_utf8_lossy(&output.stderr));
    };
    let prefix_arg = format!("-DCMAKE_PREFIX_PATH={}", prefix.display());
    cmake(&[
        OsStr::new("-S"),
        OsStr::new("tests/c/cmake_consumer"),
        OsStr::new("-B"),
        build.as_os_str(),
        OsStr::new(&prefix_arg),
    ]);
    cmake(&[OsStr::new("--build"), build.as_os_str()]);
    for exe in ["consumer", "consumer_static"] {
        let output = run_with(&build.join(exe), &[], &[("FEWFIT_STATS", OsStr::new("1"))]);
        assert!(output.status.success() && String::from_utf8_lossy(&output.stdout).contains("consumer: ok"), "{exe}");
        // The statistics line comes from the library's `.fini_array`, static library included.
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("fewfit stats: 2 GEMM calls served (single 1, double 1, half 0, bf16 0;"),
            "{exe}: no FEWFIT_STATS line"
        );
    }
    if clblast_installed("the CLBlast C++ client linked against fewfit") {
        let exe = build.join("clblast_cpp_on_fewfit");
        let output = run_with(&exe, &["--fill-cache"], &[]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success() && stdout.contains("results: ok") && stdout.contains("backend: fewfit"));
    }

    // pkg-config, as a Makefile would use it.
    let pc = Command::new("pkg-config")
        .args(["--cflags", "--libs", "fewfit"])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run pkg-config ({e}); scripts/ensure-opencl.sh installs it"));
    assert!(pc.status.success(), "pkg-config fewfit failed");
    let flags = String::from_utf8_lossy(&pc.stdout).to_string();
    let exe = Path::new(TMP).join("pkg_config_consumer");
    let rpath = format!("-Wl,-rpath,{}", prefix.join("lib").display());
    let mut args: Vec<&str> = flags.split_whitespace().collect();
    args.extend([rpath.as_str(), "-lOpenCL"]);
    compile(&CXX, &["tests/c/cmake_consumer/consumer.cpp"], &args, &exe);
    let output = run(&exe, None);
    assert!(output.status.success() && String::from_utf8_lossy(&output.stdout).contains("consumer: ok"));
}
