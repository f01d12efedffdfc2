//! Embeds the runtime crate's sources, the templates and the workspace lock
//! file into stmtc, so that `stmtc compile` can write a self-contained job
//! crate (runtime vendored, versions pinned) from anywhere.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(base).expect("inside base").to_path_buf());
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let runtime = manifest.join("../runtime");
    let mut files = Vec::new();
    collect(&runtime.join("src"), &runtime, &mut files);
    let mut code = String::from("/// The runtime crate's sources: (path inside the crate, text).\npub static RUNTIME_FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        let abs = runtime.join(f);
        let _ = writeln!(
            code,
            "    ({:?}, include_str!({:?})),",
            f.display().to_string(),
            abs.display().to_string()
        );
    }
    code.push_str("];\n");
    for (name, path) in [
        ("RUNTIME_MANIFEST", runtime.join("Cargo.toml")),
        ("WORKSPACE_LOCK", manifest.join("../Cargo.lock")),
        (
            "CARGO_TOML_TEMPLATE",
            manifest.join("../templates/Cargo.toml.template"),
        ),
        (
            "README_TEMPLATE",
            manifest.join("../templates/README.md.template"),
        ),
    ] {
        let _ = writeln!(
            code,
            "pub static {name}: &str = include_str!({:?});",
            path.display().to_string()
        );
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rerun-if-changed={}", runtime.join("src").display());
    for f in &files {
        println!("cargo:rerun-if-changed={}", runtime.join(f).display());
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("embedded.rs");
    std::fs::write(out, code).expect("write embedded.rs");
}
