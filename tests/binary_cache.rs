//! The on-disk binary cache on the test device, made as the runtime makes it: from
//! `FEWFIT_CACHE_DIR`, which turns it on on PoCL too. A planted foreign binary, a truncated entry and
//! a link under an entry's name are never run: the program is built from source, its GEMM is right,
//! and the entry is replaced. A directory that group or others may write, or that another user owns,
//! is not used, and a warning says why. Threads and processes storing one key never show a partial
//! entry. Each test has a cache directory of its own and builds one small variant (the program
//! binary PoCL gives is cheap for it).

#![cfg(unix)]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex, MutexGuard, PoisonError};

use common::*;
use fewfit::tuning::CompiledVariant;
use fewfit::{build_stats, release_engines, DefaultDevice, Engine, GemmSpec, Layout, Precision, Transpose};
use fewfit_codegen::Variant;

/// Set in a child process of this test binary to what it must do ([`child_process`]).
const CHILD: &str = "FEWFIT_BINARY_CACHE_CHILD";
/// Set in a child process to the path its role takes.
const CHILD_PATH: &str = "FEWFIT_BINARY_CACHE_CHILD_PATH";

/// The tests take turns: the build counters are the process's, and each test points
/// `FEWFIT_CACHE_DIR` at its own directory.
static TURN: Mutex<()> = Mutex::new(());

/// A test's turn, its cache directory (`<temporary>/cache`, which the runtime creates) and the device.
struct Setup {
    _turn: MutexGuard<'static, ()>,
    temp: tempfile::TempDir,
    device: &'static DefaultDevice,
}

impl Setup {
    /// The cache directory.
    fn cache(&self) -> PathBuf {
        self.temp.path().join("cache")
    }
}

/// Takes the test's turn and points the runtime at a new cache directory: the engines made before
/// are dropped, so the next one reads `FEWFIT_CACHE_DIR` again. None where the test is skipped.
fn setup() -> Option<Setup> {
    let turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    let temp = tempfile::tempdir().unwrap();
    // The tests take turns, so no other thread of this binary reads the environment meanwhile.
    std::env::set_var("FEWFIT_CACHE_DIR", temp.path().join("cache"));
    release_engines();
    let device = device()?;
    Some(Setup { _turn: turn, temp, device })
}

/// A small xgemm variant (32 x 32 tiles, 8 x 8 work-items): one program, four kernels. `kwi`
/// tells two variants apart.
fn variant(kwi: u32) -> Variant {
    xgemm(&[("KWI", kwi)]).with_neutral_defaults()
}

/// Builds `v` in f32 through the runtime's engine; returns it with the programs this build
/// compiled from source and loaded from the cache.
fn build(device: &DefaultDevice, v: &Variant) -> (CompiledVariant, u64, u64) {
    let engine = Engine::for_queue(device.queue.get()).unwrap();
    let before = build_stats();
    let built = CompiledVariant::build(&engine, v, Precision::F32).unwrap();
    let after = build_stats();
    (built, after.compiled - before.compiled, after.from_cache - before.from_cache)
}

/// Runs a GEMM with beta = 0.5 on the variant and checks it against the reference.
fn check_gemm(device: &DefaultDevice, built: &CompiledVariant) {
    let spec = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, 37, 29, 21);
    check_call::<f32>(device, &spec, (1.5, 0.5), 70, "cached variant", |a, b, c| {
        built.enqueue_gemm(&device.queue, &spec, 1.5, a, b, 0.5, c, &[])
    })
    .unwrap();
}

/// Builds `v` and checks that this build compiled it from source, and that its GEMM is right.
fn assert_built_from_source(device: &DefaultDevice, v: &Variant, case: &str) {
    let (built, compiled, from_cache) = build(device, v);
    assert_eq!((compiled, from_cache), (1, 0), "{case}: (compiled, from cache)");
    check_gemm(device, &built);
}

/// Builds `v` and checks that this build loaded it from the cache, and that its GEMM is right.
fn assert_loaded(device: &DefaultDevice, v: &Variant, case: &str) {
    let (built, compiled, from_cache) = build(device, v);
    assert_eq!((compiled, from_cache), (0, 1), "{case}: (compiled, from cache)");
    check_gemm(device, &built);
}

/// The entries in a cache directory.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    entries.sort();
    entries
}

/// The entry of the test's one variant (what its first build stored).
fn only_entry(dir: &Path) -> PathBuf {
    let entries = entries(dir);
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

/// A valid program binary for the device of another program, whose four kernels have the names and
/// arguments of the xgemm variant's and write 42 all over C.
fn foreign_binary(device: &DefaultDevice) -> Vec<u8> {
    let kernels: String = ["am_bk", "am_bn", "ak_bk", "ak_bn"]
        .iter()
        .map(|layouts| {
            format!(
                "__kernel void xgemm_{layouts}(const int M, const int N, const int K, const float alpha,
                    const float beta, const __global float* A, const int a_off, const int lda,
                    const __global float* B, const int b_off, const int ldb, __global float* C,
                    const int c_off, const int ldc, const int a_bs, const int b_bs, const int c_bs,
                    const int k_splits) {{
                    for (int i = 0; i < M * N; i++) C[c_off + i] = 42.0f;
                }}\n"
            )
        })
        .collect();
    let program = opencl3::program::Program::create_and_build_from_source(&device.context, &kernels, "").unwrap();
    program.get_binaries().unwrap().remove(0)
}

#[test]
fn entries_are_private_and_a_second_build_loads_them() {
    use std::os::unix::fs::PermissionsExt;
    let Some(s) = setup() else { return };
    let v = variant(2);
    assert_built_from_source(s.device, &v, "first build");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&s.cache()), 0o700, "the cache directory's mode");
    assert_eq!(mode(&only_entry(&s.cache())), 0o600, "the entry's mode");
    assert_loaded(s.device, &v, "second build");
}

#[test]
fn a_planted_foreign_binary_is_rebuilt_from_source() {
    let Some(s) = setup() else { return };
    let (v, other) = (variant(2), variant(4));
    assert_built_from_source(s.device, &other, "the other variant");
    let other_entry = only_entry(&s.cache());
    assert_built_from_source(s.device, &v, "the variant");
    let entry = entries(&s.cache()).into_iter().find(|e| *e != other_entry).unwrap();
    // A bare binary with the variant's kernels, as the cache before issue 70 stored entries.
    std::fs::write(&entry, foreign_binary(s.device)).unwrap();
    assert_built_from_source(s.device, &v, "a foreign binary planted");
    assert_loaded(s.device, &v, "after the foreign binary was replaced");
    // The whole, valid entry of another program.
    std::fs::copy(&other_entry, &entry).unwrap();
    assert_built_from_source(s.device, &v, "another program's entry planted");
    assert_loaded(s.device, &v, "after the other program's entry was replaced");
    assert_loaded(s.device, &other, "the other variant");
}

#[test]
fn a_truncated_entry_is_rebuilt_from_source() {
    let Some(s) = setup() else { return };
    let v = variant(2);
    assert_built_from_source(s.device, &v, "first build");
    let entry = only_entry(&s.cache());
    let whole = std::fs::read(&entry).unwrap();
    for len in [whole.len() - 1, whole.len() / 2, 40, 0] {
        std::fs::write(&entry, &whole[..len]).unwrap();
        assert_built_from_source(s.device, &v, &format!("entry truncated to {len} bytes"));
        assert_loaded(s.device, &v, &format!("after the entry truncated to {len} bytes was replaced"));
    }
}

#[test]
fn links_under_an_entry_name_are_not_followed() {
    let Some(s) = setup() else { return };
    let v = variant(2);
    assert_built_from_source(s.device, &v, "first build");
    let entry = only_entry(&s.cache());
    // A link to a valid copy of the entry outside the cache: not read, and not written through.
    let copy = s.temp.path().join("copy.bin");
    std::fs::rename(&entry, &copy).unwrap();
    let copied = std::fs::read(&copy).unwrap();
    std::os::unix::fs::symlink(&copy, &entry).unwrap();
    assert_built_from_source(s.device, &v, "a link to a valid entry");
    assert!(std::fs::symlink_metadata(&entry).unwrap().is_file(), "the link was not replaced");
    assert_eq!(std::fs::read(&copy).unwrap(), copied, "the store wrote through the link");
    // A link to where a store would create a file outside the cache.
    let outside = s.temp.path().join("created-through-a-link");
    std::fs::remove_file(&entry).unwrap();
    std::os::unix::fs::symlink(&outside, &entry).unwrap();
    assert_built_from_source(s.device, &v, "a dangling link");
    assert!(!outside.exists(), "the store created a file through the link");
    assert_loaded(s.device, &v, "after the links were replaced");
}

/// A directory that group or others may write, or another user owns, is not used: a child process
/// with it as `FEWFIT_CACHE_DIR` builds the variant twice from source, writes nothing there, and
/// warns why. The other owner is tried only where the test runs as root (the unit tests of
/// `binary_cache` check the owner test itself).
#[test]
fn a_shared_or_foreign_directory_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let Some(s) = setup() else { return };
    let mut cases = vec![(0o777, None, "writable by group or others"), (0o770, None, "writable by group or others")];
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cases.push((0o700, Some(65534), "owned by uid 65534"));
    } else {
        eprintln!("Skipping the directory of another owner: the test does not run as root");
    }
    for (mode, owner, why) in cases {
        let dir = s.temp.path().join(format!("shared-{mode:o}-{owner:?}"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
        if let Some(uid) = owner {
            std::os::unix::fs::chown(&dir, Some(uid), None).unwrap();
        }
        let out = child("refused", &dir).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_child_passed(&out, &format!("{mode:o}, owner {owner:?}"));
        let warning = format!("fewfit: warning: binary cache {} not used: {why}", dir.display());
        assert!(stderr.contains(&warning), "no warning `{warning}` in:\n{stderr}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the refused directory was written");
    }
}

/// Two threads build the variant at once, [`ROUNDS`] times, after deleting its entry, so that both
/// store it at about the same time over and over, while a third reads the entry over and over: every read finds no
/// entry or a whole, valid one.
#[test]
fn threads_storing_one_key_never_show_a_partial_entry() {
    let Some(s) = setup() else { return };
    let v = variant(2);
    let entry = entry_path(&s, &v);
    let (stop, together) = (AtomicBool::new(false), Barrier::new(2));
    let before = build_stats();
    let reads = std::thread::scope(|scope| {
        let reader = scope.spawn(|| read_until(&entry, &stop));
        let stopper = StopOnDrop(&stop);
        let builders: Vec<_> = (0..2).map(|_| scope.spawn(|| store_rounds(s.device, &v, &entry, &together))).collect();
        for builder in builders {
            builder.join().unwrap();
        }
        drop(stopper);
        reader.join().unwrap()
    });
    let after = build_stats();
    assert_eq!(after.compiled + after.from_cache - before.compiled - before.from_cache, 2 * ROUNDS, "programs built");
    assert_reads_valid(&s, &v, &entry, reads);
}

/// Two processes build the variant at once, each [`ROUNDS`] times, after deleting its entry, so that
/// both store it over and over, while this one reads the entry over and over: every read finds no
/// entry or a whole, valid one.
#[test]
fn processes_storing_one_key_never_show_a_partial_entry() {
    let Some(s) = setup() else { return };
    let v = variant(2);
    let entry = entry_path(&s, &v);
    let stop = AtomicBool::new(false);
    let reads = std::thread::scope(|scope| {
        let reader = scope.spawn(|| read_until(&entry, &stop));
        let stopper = StopOnDrop(&stop);
        let children: Vec<_> = (0..2).map(|_| child("store", &entry).spawn().unwrap()).collect();
        for (i, c) in children.into_iter().enumerate() {
            assert_child_passed(&c.wait_with_output().unwrap(), &format!("child {i}"));
        }
        drop(stopper);
        reader.join().unwrap()
    });
    assert_reads_valid(&s, &v, &entry, reads);
}

/// The rounds of builds of each thread or process storing one key.
const ROUNDS: u64 = 10;

/// Deletes `v`'s entry and builds it, [`ROUNDS`] times, checking its GEMM each time; each round
/// starts when all the threads waiting on `together` have ended the one before.
fn store_rounds(device: &DefaultDevice, v: &Variant, entry: &Path, together: &Barrier) {
    for _ in 0..ROUNDS {
        together.wait();
        let _ = std::fs::remove_file(entry);
        together.wait();
        check_gemm(device, &build(device, v).0);
    }
}

/// The path of `v`'s entry in the test's cache, found by building it once; the entry is removed,
/// so that the next builds store it again.
fn entry_path(s: &Setup, v: &Variant) -> PathBuf {
    assert_built_from_source(s.device, v, "first build");
    let entry = only_entry(&s.cache());
    std::fs::remove_file(&entry).unwrap();
    entry
}

/// Sets its flag when dropped, so that a reader stops even where a builder panics.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Reads `entry` until `stop`, at least once after it; returns the distinct contents read.
fn read_until(entry: &Path, stop: &AtomicBool) -> BTreeSet<Vec<u8>> {
    let mut reads = BTreeSet::new();
    loop {
        let last = stop.load(Ordering::Relaxed);
        match std::fs::read(entry) {
            Ok(bytes) => {
                reads.insert(bytes);
            }
            Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::NotFound),
        }
        if last {
            return reads;
        }
    }
}

/// Checks each content read from `entry` by putting it back and building `v`: it must load.
fn assert_reads_valid(s: &Setup, v: &Variant, entry: &Path, reads: BTreeSet<Vec<u8>>) {
    assert!(!reads.is_empty(), "no read found the entry");
    for (i, bytes) in reads.iter().enumerate() {
        std::fs::write(entry, bytes).unwrap();
        assert_loaded(s.device, v, &format!("content {i} of {} read while storing", reads.len()));
    }
}

/// This test binary run again as a child process that does `role` on `path`: `refused` with it as
/// its cache directory, `store` with it as the entry (in its cache directory).
fn child(role: &str, path: &Path) -> Command {
    let dir = if role == "store" { path.parent().unwrap() } else { path };
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", "child_process", "--nocapture", "--test-threads", "1"]);
    command.env(CHILD, role).env(CHILD_PATH, path).env("FEWFIT_CACHE_DIR", dir);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// Checks that a child process passed, showing its output where it did not.
fn assert_child_passed(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: the child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What a child process does ([`child`]); nothing in a run of the tests. `store`: the rounds of
/// [`store_rounds`]; `refused`: builds the variant twice, both times from source.
#[test]
fn child_process() {
    let (Ok(role), Some(path)) = (std::env::var(CHILD), std::env::var_os(CHILD_PATH)) else { return };
    let device = device().expect("a child process needs the device");
    let v = variant(2);
    match role.as_str() {
        "store" => store_rounds(device, &v, Path::new(&path), &Barrier::new(1)),
        "refused" => {
            assert_built_from_source(device, &v, "first build");
            assert_built_from_source(device, &v, "second build");
        }
        _ => panic!("unknown role {role}"),
    }
}
