//! Renders the selected kernel variants and compiles the selector trees into Rust
//! (`fewfit_codegen::generate`: `variants.rs` and `selector.rs` in OUT_DIR).

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo::rerun-if-changed=build.rs");
    for file in fewfit_codegen::input_files() {
        println!("cargo::rerun-if-changed={}", file.display());
    }
    println!("cargo::rerun-if-env-changed=FEWFIT_CODEGEN_DUMP");
    if let Err(e) = fewfit_codegen::generate(&root, &out_dir) {
        eprintln!("error: fewfit codegen: {e}");
        std::process::exit(1);
    }
    if let Some(dump) = std::env::var_os("FEWFIT_CODEGEN_DUMP") {
        for name in ["variants.rs", "selector.rs"] {
            let dump = PathBuf::from(&dump);
            if let Err(e) =
                std::fs::create_dir_all(&dump).and_then(|_| std::fs::copy(out_dir.join(name), dump.join(name)))
            {
                eprintln!("error: FEWFIT_CODEGEN_DUMP: {e}");
                std::process::exit(1);
            }
        }
    }
}
