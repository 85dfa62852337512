//! The on-disk cache of program binaries, keyed by device, driver, source and build options, so a
//! second process start does not recompile. A missing, corrupt or stale entry is rebuilt. PoCL
//! keeps a cache of its own, and there fewfit keeps none (see [`BinaryCache::for_device`]).

use std::path::PathBuf;

use crate::codegen::render::sha256_hex;
use crate::device::DeviceInfo;

/// Where binaries are kept: `FEWFIT_CACHE_DIR`, else the user's cache directory + `fewfit`.
/// `FEWFIT_CACHE_DIR=off` disables it.
#[derive(Clone, Debug)]
pub struct BinaryCache {
    dir: Option<PathBuf>,
}

impl BinaryCache {
    /// The cache for a device: the one configured by the environment, or none where the driver is
    /// PoCL. PoCL caches on disk what it compiles (its kernel cache, on by default), and asking it
    /// for a program's binary compiles a generic work-group function for every kernel of the
    /// program first: about 3 minutes for the shipped set on a 2-core VM, against seconds to build
    /// the programs and compile the kernels that actually launch.
    pub fn for_device(device: &DeviceInfo) -> BinaryCache {
        if device.platform_version.contains("PoCL") {
            return BinaryCache { dir: None };
        }
        BinaryCache::from_env()
    }

    /// The cache configured by the environment.
    fn from_env() -> BinaryCache {
        let dir = match std::env::var_os("FEWFIT_CACHE_DIR") {
            Some(d) if d == "off" => None,
            Some(d) => Some(PathBuf::from(d)),
            None => dirs::cache_dir().map(|d| d.join("fewfit")),
        };
        BinaryCache { dir }
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
        self.dir.is_some()
    }

    /// The binary stored under `key`, if any.
    pub fn load(&self, key: &str) -> Option<Vec<u8>> {
        let path = self.dir.as_ref()?.join(format!("{key}.bin"));
        std::fs::read(path).ok().filter(|b| !b.is_empty())
    }

    /// Stores a binary under `key` (write to a temporary file, then rename, so readers never see a
    /// partial file). Failures only cost a rebuild next time, so they are ignored.
    pub fn store(&self, key: &str, binary: &[u8]) {
        let Some(dir) = &self.dir else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
        if std::fs::write(&tmp, binary).is_ok() && std::fs::rename(&tmp, dir.join(format!("{key}.bin"))).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}
