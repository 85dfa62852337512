//! The C ABI from C. `tests/c/capi_test.c` is compiled with the system C compiler (`$CC`, else
//! `cc`) against `include/fewfit.h` and the libfewfit.so / libfewfit.a that cargo builds next to
//! this test (every crate type of the library is built for the tests), and run: results against an
//! f64 reference (the whole C buffer: elements outside C must keep their poison), batches, an
//! out-of-order queue without events, and status codes. `tests/c/invalid_args_test.c` runs
//! CLBlast's "invalid" cross products through the shared library. Then a CLBlast client
//! (`tests/c/clblast_switch.c`, linked with `-lclblast`) runs plainly and with `LD_PRELOAD` of a
//! libfewfit.so built with the `clblast-compat` feature; that part is skipped, saying so, where
//! CLBlast is not installed.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// Compiles the C sources (with include/ and tests/c/ on the include path) and extra arguments
/// into `out`; panics with the compiler's output on failure.
fn compile(sources: &[&str], args: &[&str], out: &Path) {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let output = Command::new(&cc)
        .args(["-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", "-Iinclude", "-Itests/c"])
        .args(sources)
        .args(args)
        .arg("-o")
        .arg(out)
        .current_dir(MANIFEST)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}` ({e}); scripts/ensure-opencl.sh installs gcc"));
    assert!(output.status.success(), "{cc} failed:\n{}", String::from_utf8_lossy(&output.stderr));
}

/// Runs a program, prints its output, and returns it.
fn run(program: &Path, preload: Option<&Path>) -> Output {
    let mut command = Command::new(program);
    if let Some(lib) = preload {
        command.env("LD_PRELOAD", lib);
    }
    let output = command.output().unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    println!("$ {}{}", preload.map(|p| format!("LD_PRELOAD={} ", p.display())).unwrap_or_default(), program.display());
    print!("{}", String::from_utf8_lossy(&output.stdout));
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    output
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
    compile(&["tests/c/capi_test.c"], &[&lib_path, "-lfewfit", &rpath, "-lOpenCL", "-lm"], &shared);
    let static_exe = Path::new(TMP).join("capi_test_static");
    let archive = dir.join("libfewfit.a");
    let mut args = vec![archive.to_str().expect("UTF-8 path")];
    args.extend_from_slice(STATIC_DEPS);
    compile(&["tests/c/capi_test.c"], &args, &static_exe);
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
    compile(&["tests/c/invalid_args_test.c"], &[&lib_path, "-lfewfit", &rpath, "-lOpenCL", "-lm"], &exe);
    let output = run(&exe, None);
    assert!(output.status.success(), "{} failed", exe.display());
}

/// Builds libfewfit.so with `clblast-compat` into its own target folder under the test's tmp dir
/// (the outer cargo holds the lock on the main one); later runs only rebuild what changed.
fn build_compat_library() -> PathBuf {
    let target = Path::new(TMP).join("clblast-compat");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["rustc", "--lib", "--crate-type", "cdylib", "--features", "clblast-compat", "--target-dir"])
        .arg(&target)
        .current_dir(MANIFEST)
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .expect("cannot run cargo");
    assert!(status.success(), "building libfewfit.so with clblast-compat failed");
    target.join("debug").join("libfewfit.so")
}

#[test]
fn clblast_program_switches_to_fewfit_with_ld_preload() {
    if common::device().is_none() {
        return;
    }
    if !Path::new("/usr/include/clblast_c.h").exists() {
        eprintln!(
            "Skipping the LD_PRELOAD test: CLBlast is not installed (no /usr/include/clblast_c.h); \
             scripts/ensure-opencl.sh installs libclblast-dev"
        );
        return;
    }
    let client = Path::new(TMP).join("clblast_switch");
    compile(&["tests/c/clblast_switch.c"], &["-lclblast", "-lOpenCL", "-ldl", "-lm"], &client);
    let compat = build_compat_library();
    let symbols = |stdout: &str| -> Vec<String> {
        stdout.lines().filter(|l| l.starts_with("symbol ")).map(|l| l.to_string()).collect()
    };

    let plain = run(&client, None);
    let stdout = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success() && stdout.contains("results: ok"), "CLBlast run failed");
    assert!(stdout.contains("backend: clblast"));
    assert!(symbols(&stdout).iter().all(|l| l.contains("libclblast")), "plain run: symbols not from libclblast");

    let preloaded = run(&client, Some(&compat));
    let stdout = String::from_utf8_lossy(&preloaded.stdout);
    assert!(preloaded.status.success() && stdout.contains("results: ok"), "preloaded run failed");
    assert!(stdout.contains("backend: fewfit") && !stdout.contains("(0 program builds)"), "fewfit did not run");
    let syms = symbols(&stdout);
    assert_eq!(syms.len(), 7);
    let compat_str = compat.to_str().expect("UTF-8 path");
    assert!(
        syms.iter().all(|l| l.ends_with(compat_str)),
        "preloaded run: not every CLBlast GEMM and cache symbol is fewfit's"
    );
}
