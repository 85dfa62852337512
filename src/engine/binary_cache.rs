//! The on-disk cache of program binaries, keyed by device, driver, source and build options, so a
//! second process start does not recompile.
//!
//! What it trusts: only a directory that is the user's own and that no one else may write (created
//! 0700 where missing), and in it only an entry that is a regular file (read without following a
//! link) whose header names the very key asked for and whose binary matches the checksum the header
//! carries. Anything else is deleted and the program is built from source, as is a program whose
//! binary loads but lacks the kernels its caller expects (`Program::build`). Entries are written
//! through a temporary file of a unique name, created new (never through a link), and renamed into
//! place, so a reader sees either no entry or a whole one. PoCL keeps a cache of its own, and there
//! fewfit keeps none unless `FEWFIT_CACHE_DIR` names one (see [`BinaryCache::for_device`]).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use once_cell::sync::OnceCell;
use sha2::{Digest, Sha256};

use crate::codegen::render::sha256_hex;
use crate::device::DeviceInfo;

/// The first bytes of every entry.
const MAGIC: &[u8; 8] = b"FEWFITPB";
/// The entry format's version: an entry of another version is rebuilt.
const FORMAT_VERSION: u32 = 1;
/// The length of a key: a hex SHA-256.
const KEY_LEN: usize = 64;
/// An entry's header: magic, format version, key, the binary's length and its SHA-256.
const HEADER_LEN: usize = MAGIC.len() + 4 + KEY_LEN + 8 + 32;

/// Where binaries are kept: `FEWFIT_CACHE_DIR`, else the user's cache directory + `fewfit`.
/// `FEWFIT_CACHE_DIR=off` disables it.
#[derive(Debug)]
pub struct BinaryCache {
    /// The directory configured, if any.
    configured: Option<PathBuf>,
    /// The directory as used, once checked at first use: None where it was refused (with a
    /// warning) or none is configured.
    checked: OnceCell<Option<PathBuf>>,
}

impl BinaryCache {
    /// The cache for a device: the one configured by the environment. Where the driver is PoCL
    /// there is none unless `FEWFIT_CACHE_DIR` names a directory: PoCL caches on disk what it
    /// compiles (its kernel cache, on by default), and asking it for a program's binary compiles a
    /// generic work-group function for every kernel of the program first: about 3 minutes for the
    /// shipped set on a 2-core VM, against seconds to build the programs and compile the kernels
    /// that actually launch.
    pub fn for_device(device: &DeviceInfo) -> BinaryCache {
        let configured = match std::env::var_os("FEWFIT_CACHE_DIR") {
            Some(d) if d == "off" => None,
            Some(d) => Some(PathBuf::from(d)),
            None if device.platform_version.contains("PoCL") => None,
            None => dirs::cache_dir().map(|d| d.join("fewfit")),
        };
        BinaryCache::in_dir(configured)
    }

    /// A cache in `dir` (none for None), checked at first use.
    fn in_dir(configured: Option<PathBuf>) -> BinaryCache {
        BinaryCache { configured, checked: OnceCell::new() }
    }

    /// The key of a program: everything that changes the binary.
    pub fn key(device: &DeviceInfo, source: &str, options: &str) -> String {
        sha256_hex(&format!(
            "{}\n{}\n{}\n{}\n{}\n{}",
            device.name,
            device.vendor,
            device.driver,
            device.platform_version,
            options,
            sha256_hex(source)
        ))
    }

    /// Whether binaries are kept (else there is no point in asking the driver for one).
    pub fn is_enabled(&self) -> bool {
        self.dir().is_some()
    }

    /// The directory, checked at first use ([`trusted_dir`]); None where there is none or it was
    /// refused, which a warning on stderr says once, with why.
    fn dir(&self) -> Option<&Path> {
        self.checked
            .get_or_init(|| {
                let dir = self.configured.as_ref()?;
                trusted_dir(dir)
                    .map_err(|why| {
                        eprintln!(
                            "fewfit: warning: binary cache {} not used: {why}; programs are built from source",
                            dir.display()
                        );
                    })
                    .ok()
            })
            .as_deref()
    }

    /// The binary stored under `key`, if a valid entry holds it. An entry that is not a regular
    /// file, or fails its header or checksum, is deleted.
    pub fn load(&self, key: &str) -> Option<Vec<u8>> {
        let path = self.dir()?.join(entry_name(key));
        match read_entry(&path, key) {
            Ok(binary) => Some(binary),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(_) => {
                // A link is removed itself, never what it points to.
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Deletes the entry under `key` (a binary that loaded but did not build, or lacks a kernel).
    pub fn remove(&self, key: &str) {
        if let Some(dir) = self.dir() {
            let _ = std::fs::remove_file(dir.join(entry_name(key)));
        }
    }

    /// Stores a binary under `key`: written to a new temporary file of a unique name, then renamed
    /// over the entry (replacing a link there, never writing through it), so readers never see a
    /// partial entry. Failures only cost a rebuild next time, so they are ignored.
    pub fn store(&self, key: &str, binary: &[u8]) {
        let Some(dir) = self.dir() else { return };
        let Ok(mut file) = tempfile::Builder::new().prefix(".").suffix(".tmp").tempfile_in(dir) else { return };
        if file.write_all(&encode(key, binary)).is_ok() {
            // On failure the temporary file is removed when dropped.
            let _ = file.persist(dir.join(entry_name(key)));
        }
    }
}

/// The file name of the entry under `key`.
fn entry_name(key: &str) -> String {
    format!("{key}.bin")
}

/// Creates `dir` (mode 0700, with any missing parent) where missing, and returns its canonical
/// path where it is a directory that the effective user owns and that neither group nor others may
/// write; otherwise why not.
fn trusted_dir(dir: &Path) -> Result<PathBuf, String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| format!("cannot create it ({e})"))?;
    let dir = dir.canonicalize().map_err(|e| format!("cannot resolve it ({e})"))?;
    let meta = std::fs::metadata(&dir).map_err(|e| format!("cannot read its metadata ({e})"))?;
    if !meta.is_dir() {
        return Err("not a directory".into());
    }
    #[cfg(unix)]
    // SAFETY: geteuid has no preconditions and cannot fail.
    check_owner_and_mode(&meta, unsafe { libc::geteuid() })?;
    remove_stale_temporaries(&dir);
    Ok(dir)
}

/// How old a temporary file must be to count as left by a store that died (a crash between its
/// creation and its rename): a store takes well under a second.
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes the temporary files (`.*.tmp`, regular files) that stores which died left behind, once
/// older than [`STALE_TEMPORARY`]; a store under way keeps its own.
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(meta) = entry.metadata() else { continue }; // the entry itself, never a link's target
        let age = meta.modified().ok().and_then(|m| m.elapsed().ok());
        if name.starts_with('.') && name.ends_with(".tmp") && meta.is_file() && age > Some(STALE_TEMPORARY) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Refuses a directory that `euid` does not own, or that group or others may write (where another
/// user could plant a binary, or a link, under an entry's name).
#[cfg(unix)]
fn check_owner_and_mode(meta: &std::fs::Metadata, euid: u32) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    if meta.uid() != euid {
        return Err(format!("owned by uid {}, not by this process's uid {euid}", meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!("writable by group or others (mode {:o})", meta.mode() & 0o7777));
    }
    Ok(())
}

/// An entry: the header ([`HEADER_LEN`] bytes), then the binary.
fn encode(key: &str, binary: &[u8]) -> Vec<u8> {
    let mut entry = Vec::with_capacity(HEADER_LEN + binary.len());
    entry.extend_from_slice(MAGIC);
    entry.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    entry.extend_from_slice(key.as_bytes());
    entry.extend_from_slice(&(binary.len() as u64).to_le_bytes());
    entry.extend_from_slice(&Sha256::digest(binary));
    entry.extend_from_slice(binary);
    entry
}

/// The binary of an entry, where its header is of this format, names `key`, and gives the
/// binary's length and checksum; None otherwise.
fn decode<'e>(key: &str, entry: &'e [u8]) -> Option<&'e [u8]> {
    let (header, binary) = entry.split_at_checked(HEADER_LEN)?;
    let (magic, rest) = header.split_at(MAGIC.len());
    let (version, rest) = rest.split_at(4);
    let (entry_key, rest) = rest.split_at(KEY_LEN);
    let (len, checksum) = rest.split_at(8);
    let valid = magic == MAGIC
        && version == FORMAT_VERSION.to_le_bytes()
        && key.len() == KEY_LEN
        && entry_key == key.as_bytes()
        && len == (binary.len() as u64).to_le_bytes()
        && !binary.is_empty()
        && checksum == Sha256::digest(binary).as_slice();
    valid.then_some(binary)
}

/// Reads the entry at `path` without following a link: the error is `NotFound` where there is
/// none, `InvalidData` where it is not a regular file or not a valid entry for `key`, and any other
/// I/O error as it comes (a link: `ELOOP`).
fn read_entry(path: &Path, key: &str) -> std::io::Result<Vec<u8>> {
    let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidData);
    let mut file = open_no_follow(path)?;
    if !file.metadata()?.is_file() {
        return Err(invalid());
    }
    let mut entry = Vec::new();
    file.read_to_end(&mut entry)?;
    decode(key, &entry).map(<[u8]>::to_vec).ok_or_else(invalid)
}

/// Opens `path` for reading, failing on a link (`O_NOFOLLOW`) and not blocking on a FIFO.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn temporaries_left_by_a_store_that_died_are_removed_once_stale() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = dir.path().join("cache");
        std::fs::create_dir(&cache_dir).unwrap();
        let stale = cache_dir.join(".abc123.tmp");
        let fresh = cache_dir.join(".def456.tmp");
        let entry = cache_dir.join(entry_name(KEY));
        for path in [&stale, &fresh, &entry] {
            std::fs::write(path, b"x").unwrap();
        }
        let two_hours_ago = std::time::SystemTime::now() - 2 * STALE_TEMPORARY;
        std::fs::File::options().write(true).open(&stale).unwrap().set_modified(two_hours_ago).unwrap();
        std::fs::File::options().write(true).open(&entry).unwrap().set_modified(two_hours_ago).unwrap();
        let cache = BinaryCache::in_dir(Some(cache_dir));
        assert!(cache.is_enabled());
        assert!(!stale.exists(), "a temporary file of a store that died long ago is removed");
        assert!(fresh.exists(), "a store under way keeps its temporary file");
        assert!(entry.exists(), "entries are not temporaries, however old");
    }

    /// A cache in a new temporary directory (removed with the returned guard).
    fn cache() -> (tempfile::TempDir, BinaryCache) {
        let dir = tempfile::tempdir().unwrap();
        let cache = BinaryCache::in_dir(Some(dir.path().join("cache")));
        (dir, cache)
    }

    #[test]
    fn entries_round_trip_and_name_their_key() {
        let binary = b"a program binary".to_vec();
        let entry = encode(KEY, &binary);
        assert_eq!(entry.len(), HEADER_LEN + binary.len());
        assert_eq!(decode(KEY, &entry), Some(&binary[..]));
        let other = KEY.replace('0', "f");
        assert_eq!(decode(&other, &entry), None, "an entry of another key");
        let (_guard, cache) = cache();
        cache.store(KEY, &binary);
        assert_eq!(cache.load(KEY), Some(binary));
        assert_eq!(cache.load(&other), None);
    }

    #[test]
    fn damaged_entries_are_rejected_and_deleted() {
        let binary = vec![7u8; 1000];
        let entry = encode(KEY, &binary);
        let mut flipped = entry.clone();
        flipped[HEADER_LEN + 500] ^= 1;
        let mut bad_version = entry.clone();
        bad_version[MAGIC.len()] += 1;
        let damaged = [
            entry[..entry.len() - 1].to_vec(),
            entry[..HEADER_LEN].to_vec(),
            entry[..10].to_vec(),
            Vec::new(),
            flipped,
            bad_version,
            binary.clone(),
            [entry.clone(), vec![0]].concat(),
        ];
        let (_guard, cache) = cache();
        assert!(cache.is_enabled());
        let path = cache.dir().unwrap().join(entry_name(KEY));
        for (i, bytes) in damaged.iter().enumerate() {
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(cache.load(KEY), None, "damaged entry {i}");
            assert!(!path.exists(), "damaged entry {i} was not deleted");
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_are_neither_read_nor_written_through() {
        let (guard, cache) = cache();
        assert!(cache.is_enabled());
        let path = cache.dir().unwrap().join(entry_name(KEY));
        // A valid entry outside the cache, linked under the key's name: not loaded, the link deleted.
        let outside = guard.path().join("outside");
        std::fs::write(&outside, encode(KEY, b"planted")).unwrap();
        std::os::unix::fs::symlink(&outside, &path).unwrap();
        assert_eq!(cache.load(KEY), None);
        assert!(std::fs::symlink_metadata(&path).is_err(), "the link was not deleted");
        // A store replaces a link rather than writing through it.
        std::os::unix::fs::symlink(&outside, &path).unwrap();
        cache.store(KEY, b"binary");
        assert_eq!(std::fs::read(&outside).unwrap(), encode(KEY, b"planted"));
        assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
        assert_eq!(cache.load(KEY), Some(b"binary".to_vec()));
    }

    #[cfg(unix)]
    #[test]
    fn the_directory_is_created_private_and_checked() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let (guard, cache) = cache();
        assert!(cache.is_enabled());
        let dir = cache.dir().unwrap();
        let meta = std::fs::metadata(dir).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700);
        assert_eq!(check_owner_and_mode(&meta, meta.uid()), Ok(()));
        assert!(check_owner_and_mode(&meta, meta.uid() + 1).unwrap_err().contains("owned by uid"));
        for mode in [0o777, 0o770, 0o702] {
            let shared = guard.path().join(format!("shared{mode:o}"));
            std::fs::create_dir(&shared).unwrap();
            std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(mode)).unwrap();
            assert!(trusted_dir(&shared).unwrap_err().contains("writable by group or others"), "{mode:o}");
            let refused = BinaryCache::in_dir(Some(shared.clone()));
            assert!(!refused.is_enabled());
            refused.store(KEY, b"binary");
            assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0, "{mode:o}");
        }
        // Group-readable is fine (an older fewfit made the directory 0755).
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(trusted_dir(dir).is_ok());
        let file = guard.path().join("file");
        std::fs::write(&file, b"").unwrap();
        assert!(trusted_dir(&file).is_err());
    }

    /// A valid entry whose binary lacks a kernel the caller needs (the binary of another program,
    /// stored under this program's key) is deleted, and the program is built from source, on the
    /// default device (skipped without one where FEWFIT_TEST_DEVICE=skip).
    #[test]
    fn a_hit_without_the_expected_kernels_is_rebuilt_from_source() {
        use crate::cl::Program;
        use crate::engine::program::Target;
        let device = match crate::device::DefaultDevice::get() {
            Ok(device) => device,
            Err(_) if std::env::var("FEWFIT_TEST_DEVICE").as_deref() == Ok("skip") => return,
            Err(e) => panic!("no OpenCL device ({e}); set FEWFIT_TEST_DEVICE=skip to skip device tests"),
        };
        let engine = crate::engine::Engine::for_queue(device.queue.get()).unwrap();
        let (_guard, cache) = cache();
        let target = Target { cache: &cache, ..engine.target() };
        const NEEDED: &str = "__kernel void needed(__global float* c) { c[0] = 0.5f; }";
        const OTHER: &str = "__kernel void other(__global float* c) { c[0] = 42.0f; }";
        let key = BinaryCache::key(&engine.info, NEEDED, "");
        Program::build(&target, "other", OTHER, "", &["other"]).unwrap();
        let other = cache.load(&BinaryCache::key(&engine.info, OTHER, "")).unwrap();
        cache.store(&key, &other);
        let program = Program::build(&target, "needed", NEEDED, "", &["needed"]).unwrap();
        assert!(program.kernel("needed").is_ok());
        let stored = cache.load(&key).expect("the program built from source was stored");
        assert_ne!(stored, other, "the entry lacking the kernel was kept");
    }

    /// Threads storing one key while another loads it: every load finds no entry or the whole
    /// binary one thread stored (a partial one would be deleted), and no temporary file is left.
    #[test]
    fn concurrent_stores_never_show_a_partial_entry() {
        let (_guard, cache) = cache();
        assert!(cache.is_enabled());
        let binaries: Vec<Vec<u8>> = (0..4u8).map(|i| vec![i; 4 << 20]).collect();
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            let reader = s.spawn(|| {
                let mut found = false;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    match cache.load(KEY) {
                        Some(b) => {
                            assert!(binaries.contains(&b), "a load returned a binary no thread stored");
                            found = true;
                        }
                        // Nothing deletes a valid entry, so this load found a partial one.
                        None => assert!(!found, "an entry vanished after a load had found one"),
                    }
                }
            });
            let writers: Vec<_> = binaries
                .iter()
                .map(|b| {
                    let cache = &cache;
                    s.spawn(move || (0..10).for_each(|_| cache.store(KEY, b)))
                })
                .collect();
            writers.into_iter().for_each(|w| w.join().unwrap());
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            reader.join().unwrap();
        });
        assert!(binaries.contains(&cache.load(KEY).unwrap()));
        let names: Vec<_> = std::fs::read_dir(cache.dir().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [std::ffi::OsString::from(entry_name(KEY))]);
    }
}
