//! fewfit loads the OpenCL library at run time (opencl3's `dynamic` feature), so a program built
//! with it starts on a machine without an OpenCL loader and gets fewfit's typed error:
//! - no binary built with fewfit (this test, the C library) names libOpenCL among the libraries
//!   the dynamic linker loads before `main` (its ELF `DT_NEEDED` entries);
//! - with the OpenCL loader hidden (a private mount namespace in which `libOpenCL.so.1` is
//!   `/dev/null`: needs root and `unshare`, else skipped with a note), this test's binary still
//!   starts, and `DefaultDevice::get` returns [`Error::NoOpenClLibrary`].

use std::path::{Path, PathBuf};
use std::process::Command;

use fewfit::{DefaultDevice, Error};

/// The `DT_NEEDED` entries of an ELF64 little-endian file (the libraries it asks the dynamic
/// linker for), read from its `SHT_DYNAMIC` section and the string table that section links to.
fn needed_libraries(path: &Path) -> Vec<String> {
    let elf = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(elf.starts_with(b"\x7fELF\x02\x01"), "{} is not a 64-bit little-endian ELF file", path.display());
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    let (sections, entry_size, count) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3c));
    // (type, offset, size, link) of section `i`.
    let section = |i: usize| {
        let h = sections + i * entry_size;
        (u32_at(h + 4), u64_at(h + 0x18), u64_at(h + 0x20), u32_at(h + 0x28))
    };
    let mut needed = Vec::new();
    for (kind, offset, size, link) in (0..count).map(section) {
        const SHT_DYNAMIC: usize = 6;
        const DT_NEEDED: usize = 1;
        if kind != SHT_DYNAMIC {
            continue;
        }
        let (_, strings, _, _) = section(link);
        for entry in (offset..offset + size).step_by(16) {
            if u64_at(entry) == DT_NEEDED {
                let start = strings + u64_at(entry + 8);
                let end = start + elf[start..].iter().position(|&b| b == 0).unwrap();
                needed.push(String::from_utf8_lossy(&elf[start..end]).into_owned());
            }
        }
    }
    needed
}

#[test]
fn no_binary_needs_libopencl_at_load_time() {
    let exe = std::env::current_exe().unwrap();
    let needed = needed_libraries(&exe);
    assert!(needed.iter().any(|l| l.starts_with("libc.")), "read the dynamic section of {}: {needed:?}", exe.display());
    assert!(!needed.iter().any(|l| l.contains("OpenCL")), "{} needs {needed:?}", exe.display());
    // target/<profile>/deps/<test> -> target/<profile>/libfewfit.so, the C library (cargo builds it
    // with the tests, as the C API's tests link it).
    let cdylib = exe.parent().and_then(Path::parent).map(|d| d.join("libfewfit.so"));
    match cdylib.filter(|p| p.exists()) {
        Some(lib) => {
            let needed = needed_libraries(&lib);
            assert!(!needed.iter().any(|l| l.contains("OpenCL")), "{} needs {needed:?}", lib.display());
        }
        None => eprintln!("note: no libfewfit.so beside {}; only the test binary was checked", exe.display()),
    }
}

/// The file that `libOpenCL.so.1` resolves to, as the dynamic linker finds it (`ldconfig -p`).
fn opencl_library_file() -> Option<PathBuf> {
    let listing = Command::new("ldconfig").arg("-p").output().ok()?;
    let listing = String::from_utf8_lossy(&listing.stdout);
    let line = listing.lines().find(|l| l.trim_start().starts_with("libOpenCL.so.1 "))?;
    let path = line.rsplit("=> ").next()?.trim();
    std::fs::canonicalize(path).ok()
}

/// The child's half of [`starts_and_reports_a_missing_opencl_library`], run by it with the library
/// hidden; ignored in a plain test run, where the library is there.
#[test]
#[ignore = "run by starts_and_reports_a_missing_opencl_library with the OpenCL library hidden"]
fn child_without_opencl_library() {
    match DefaultDevice::get() {
        Err(Error::NoOpenClLibrary(why)) => println!("fewfit: {}", Error::NoOpenClLibrary(why)),
        Err(e) => panic!("expected Error::NoOpenClLibrary, got {e:?}"),
        Ok(device) => panic!("the OpenCL library was not hidden: got {}", device.info.name),
    }
}

#[test]
fn starts_and_reports_a_missing_opencl_library() {
    let exe = std::env::current_exe().unwrap();
    let hide = match opencl_library_file() {
        Some(lib) => format!("mount --bind /dev/null '{}' && ", lib.display()),
        None => String::new(), // no loader here: nothing to hide
    };
    let script = format!("{hide}exec '{}' --exact child_without_opencl_library --ignored --nocapture", exe.display());
    let output = match Command::new("unshare").args(["--mount", "sh", "-c", &script]).output() {
        Ok(output) => output,
        Err(e) => return eprintln!("note: skipped, no unshare ({e})"),
    };
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if !hide.is_empty() && (text.contains("unshare failed") || text.contains("mount: ")) {
        return eprintln!("note: skipped, the OpenCL library cannot be hidden here (needs root):\n{text}");
    }
    assert!(output.status.success(), "the child failed:\n{text}");
    assert!(text.contains("fewfit: no OpenCL library: "), "{text}");
    assert!(text.contains("1 passed"), "the child test did not run:\n{text}");
}
