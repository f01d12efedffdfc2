//! One place where every test that builds a job crate builds it: a folder
//! laid out like `stmtc run`'s cache (`runtime-<version>-<digest>/`, `jobs/`,
//! `target/`) under the test target directory, `<target>/tmp/stmtc-jobs/`.
//! Every crate is built with `cargo build --release` against the same runtime
//! folder, with the job template's release profile and without the caller's
//! RUSTFLAGS, so the runtime is compiled once per suite (once per feature
//! set: jobs that use regular expressions enable `regex`) and every job runs
//! with the semantics a user gets (no overflow checks, no debug assertions);
//! only the job crate's own code is left unoptimized (see [`build`]).
//!
//! [`build_many`] builds a suite's crates in one cargo run, so that cargo
//! compiles them side by side on every core.
//!
//! Included with `#[path]` by the integration tests and by the expression
//! codegen unit test, so it uses nothing but std and `serde_json` (a
//! dependency of stmtc, hence of its tests).

#![allow(dead_code)] // each includer uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The shared folder (created, canonical: generated manifests and `stmtc
/// run` must name the runtime by the same path for cargo to reuse it).
pub fn root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = target_dir().join("tmp").join("stmtc-jobs");
        std::fs::create_dir_all(&dir).expect("create the shared job folder");
        dir.canonicalize().unwrap_or(dir)
    })
    .clone()
}

/// The target directory this test binary was built into: the nearest
/// ancestor of the binary (`<target>/debug/deps/<test>`) that cargo tagged
/// with `CACHEDIR.TAG`.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .skip(1)
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// Writes the runtime crate (`stmtc::runtime_crate()`: digest and files)
/// where `stmtc run --cache-dir <root>` would, once per process; returns
/// its folder. Files are replaced only when their content differs, through a
/// rename, so a build running in another test never sees half a file and
/// cargo never sees a fresh mtime on an unchanged source.
pub fn runtime_dir(runtime: (String, Vec<(PathBuf, String)>)) -> PathBuf {
    static RUNTIME: OnceLock<PathBuf> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let (digest, files) = runtime;
            let dir = root().join(format!("runtime-{}-{digest}", env!("CARGO_PKG_VERSION")));
            write_files(&dir, &files);
            dir
        })
        .clone()
}

/// Writes `files` under `dir`, leaving files with the same content alone.
pub fn write_files(dir: &Path, files: &[(PathBuf, String)]) {
    for (path, text) in files {
        let target = dir.join(path);
        if std::fs::read_to_string(&target).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        let temp = target.with_extension(format!("tmp-{}", std::process::id()));
        std::fs::write(&temp, text).expect("write");
        std::fs::rename(&temp, &target).expect("rename");
    }
}

/// The folder of the job crate `package`.
pub fn crate_dir(package: &str) -> PathBuf {
    root().join("jobs").join(package)
}

/// The shared target directory.
pub fn target() -> PathBuf {
    root().join("target")
}

/// The release binary of `package`.
pub fn binary(package: &str) -> PathBuf {
    target().join("release").join(package)
}

/// `cmd` without what would make its cargo build the runtime differently
/// from the other tests' (flags of the caller's environment).
pub fn sanitized(cmd: &mut Command) -> &mut Command {
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Builds the crate in `crate_dir(package)` (release, shared target); `Err`
/// holds cargo's messages, also when the build has warnings.
///
/// The job crate itself (not the runtime) is compiled without optimization:
/// at `opt-level = 3` with one codegen unit, optimizing the generated code is
/// most of the suite's time (22 s for `fixtures/expressions` against 4 s),
/// and the release profile's semantics stay (no overflow checks, no debug
/// assertions). `stmtc run` in `cli.rs` builds a job with the full profile.
pub fn build(package: &str) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = sanitized(&mut Command::new(cargo))
        .args(["build", "--release", "--quiet", "--config"])
        .arg(format!("profile.release.package.\"{package}\".opt-level=0"))
        .arg("--manifest-path")
        .arg(crate_dir(package).join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let messages = String::from_utf8_lossy(&output.stderr).into_owned();
    if !output.status.success() {
        return Err(messages);
    }
    // Generated code is held to what a person would write: no warnings
    // (it has no `allow` list to hide them behind).
    if messages.contains("warning") {
        return Err(format!(
            "the build of `{package}` has warnings:\n{messages}"
        ));
    }
    Ok(binary(package))
}

/// Builds the job crates `packages` (each written to `crate_dir(package)`
/// by the caller) as [`build`] would, but in one cargo run: the crates
/// become the binaries of one package per runtime dependency line (the same
/// runtime features), `jobs/_batch_<group>-<n>`, whose targets are the jobs'
/// own `src/main.rs` files, so cargo compiles them in parallel and checks the
/// runtime once. Returns each package's binary, or cargo's messages about it
/// (its errors, or its warnings: generated code has none).
pub fn build_many(
    batch: &str,
    packages: &[String],
) -> std::collections::BTreeMap<String, Result<PathBuf, String>> {
    use std::collections::BTreeMap;
    let mut results = BTreeMap::new();
    // Group by the crate's runtime dependency line: its path and features.
    let mut groups: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for package in packages {
        let manifest = crate_dir(package).join("Cargo.toml");
        match std::fs::read_to_string(&manifest) {
            Ok(text) => {
                let line = text
                    .lines()
                    .find(|l| l.starts_with("stmtc-runtime"))
                    .unwrap_or_default()
                    .to_string();
                groups.entry(line).or_default().push(package);
            }
            Err(e) => {
                results.insert(
                    package.clone(),
                    Err(format!("cannot read {}: {e}", manifest.display())),
                );
            }
        }
    }
    for (n, (dependency, members)) in groups.into_iter().enumerate() {
        let name = format!("_batch_{batch}-{n}");
        let mut manifest = format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n"
        );
        for package in &members {
            manifest.push_str(&format!(
                "[[bin]]\nname = \"{package}\"\npath = \"../{package}/src/main.rs\"\n\n"
            ));
        }
        // The job template's release profile (see templates/Cargo.toml.template).
        manifest.push_str(&format!(
            "[dependencies]\n{dependency}\n\n[workspace]\n\n[profile.release]\n\
             opt-level = 3\ncodegen-units = 1\ndebug = false\nincremental = false\n"
        ));
        let dir = root().join("jobs").join(&name);
        let lock = std::fs::read_to_string(crate_dir(members[0]).join("Cargo.lock"))
            .unwrap_or_default()
            .replace(
                &format!("name = \"{}\"", members[0]),
                &format!("name = \"{name}\""),
            );
        write_files(
            &dir,
            &[
                (PathBuf::from("Cargo.toml"), manifest),
                (PathBuf::from("Cargo.lock"), lock),
            ],
        );
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let output = sanitized(&mut Command::new(cargo))
            .args([
                "build",
                "--release",
                "--keep-going",
                "--message-format=json",
                "--config",
            ])
            .arg(format!("profile.release.package.\"{name}\".opt-level=0"))
            .arg("--manifest-path")
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", target())
            .output();
        let output = match output {
            Ok(o) => o,
            Err(e) => {
                for package in members {
                    results.insert(package.clone(), Err(format!("cannot run cargo: {e}")));
                }
                continue;
            }
        };
        // Per binary: the executable cargo reports, and its diagnostics.
        let mut built: BTreeMap<String, PathBuf> = BTreeMap::new();
        let mut messages: BTreeMap<String, String> = BTreeMap::new();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let target = message["target"]["name"].as_str().unwrap_or_default();
            match message["reason"].as_str() {
                Some("compiler-artifact") => {
                    if let Some(exe) = message["executable"].as_str() {
                        built.insert(target.to_string(), PathBuf::from(exe));
                    }
                }
                Some("compiler-message") => {
                    let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
                    messages
                        .entry(target.to_string())
                        .or_default()
                        .push_str(rendered);
                }
                _ => {}
            }
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        for package in members {
            let result = match (
                built.remove(package.as_str()),
                messages.remove(package.as_str()),
            ) {
                (Some(_), Some(m)) => Err(format!("the build of `{package}` has warnings:\n{m}")),
                (Some(_), None) => Ok(binary(package)),
                (None, m) => Err(format!(
                    "{}{}",
                    m.unwrap_or_default(),
                    if output.status.success() { "" } else { &stderr }
                )),
            };
            results.insert(package.clone(), result);
        }
    }
    results
}
