//! The job crate around `main.rs`: `Cargo.toml` and `README.md` (from the
//! templates in `templates/`, see [`render`]), a `Cargo.lock` pinned to the
//! versions the runtime is tested with, `plan.txt` / `plan.json`, and the
//! runtime itself — vendored into `runtime/` for `stmtc compile`, so the
//! crate builds anywhere with cargo alone, or shared by path for `stmtc
//! run`'s cache.

use std::path::PathBuf;

use super::GenError;
use crate::diagnostics::SourceFile;
use crate::ir::ConnectorKind;
use crate::plan::{NodeKind, Plan};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// Where the job crate finds the runtime.
#[derive(Clone, Debug)]
pub(crate) enum RuntimeSource {
    /// Copied into the crate's `runtime/` folder (self-contained).
    Vendored,
    /// An existing runtime folder, as written in `Cargo.toml`.
    Path(String),
}

/// The files of a job crate, relative to its root.
pub(crate) struct CrateFiles {
    pub package: String,
    pub files: Vec<(PathBuf, String)>,
}

/// Files of a standalone runtime crate (for vendoring or a shared cache).
pub(crate) fn runtime_files() -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, String)> = embedded::RUNTIME_FILES
        .iter()
        .map(|(path, text)| (PathBuf::from(path), text.to_string()))
        .collect();
    files.push((PathBuf::from("Cargo.toml"), runtime_manifest()));
    files
}

/// A digest of the runtime sources, to name a shared runtime folder.
pub(crate) fn runtime_digest() -> String {
    let mut h = Fnv::default();
    for (path, text) in embedded::RUNTIME_FILES {
        h.write(path.as_bytes());
        h.write(text.as_bytes());
    }
    h.write(embedded::RUNTIME_MANIFEST.as_bytes());
    format!("{:016x}", h.0)
}

/// FNV-1a: a small stable hash for cache keys (not for security).
pub(crate) struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The runtime's manifest without workspace inheritance.
fn runtime_manifest() -> String {
    // Every section after [package] ([features], [dependencies]) as written.
    let rest = embedded::RUNTIME_MANIFEST
        .split_once("[package]")
        .and_then(|(_, after)| after.find("\n[").map(|i| &after[i + 1..]))
        .unwrap_or("");
    format!(
        "[package]\nname = \"stmtc-runtime\"\nversion = \"{}\"\nedition = \"2021\"\npublish = false\ndescription = \"The operator library of stmtc job binaries\"\n\n{}",
        env!("CARGO_PKG_VERSION"),
        rest.trim_end().to_string() + "\n"
    )
}

/// A package name from the job file name: `orders-daily.sql` -> `orders_daily`.
pub(crate) fn package_name(file: &SourceFile) -> String {
    let stem = std::path::Path::new(&file.name)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name = format!("job_{name}");
    }
    name
}

/// Generated lines above which a job crate is compiled in parallel codegen
/// units and incrementally: one unit of ~18,000 lines (the 22 TPC-H queries)
/// takes 80 s to rebuild on two cores; split and incremental, ~1 s, for ~6%
/// more CPU when the job runs (bench/RESULTS.md, issue 13).
pub(crate) const LARGE_JOB_LINES: usize = 8_000;

/// The release profile's `codegen-units` and `incremental` for `main_rs`.
pub(crate) fn release_profile(main_rs: &str) -> (&'static str, &'static str) {
    if main_rs.lines().count() > LARGE_JOB_LINES {
        ("16", "true")
    } else {
        ("1", "false")
    }
}

/// Everything of the crate: manifest, lock file, sources (`main`: the
/// program's, from `generate_main`), plans, README.
pub(crate) fn generate_crate(
    plan: &Plan,
    file: &SourceFile,
    package: &str,
    runtime: &RuntimeSource,
    main: Result<(String, Vec<&'static str>), GenError>,
    plan_text: &str,
    plan_json: &str,
) -> Result<CrateFiles, GenError> {
    let (main_rs, features) = main?;
    let runtime_path = match runtime {
        RuntimeSource::Vendored => "runtime".to_string(),
        RuntimeSource::Path(p) => p.clone(),
    };
    let features = feature_list(&features);
    let tables = table_lines(plan);
    let (codegen_units, incremental) = release_profile(&main_rs);
    let large_lines = LARGE_JOB_LINES.to_string();
    let values = [
        ("package", package),
        ("source", file.name.as_str()),
        ("stmtc_version", env!("CARGO_PKG_VERSION")),
        ("runtime_path", runtime_path.as_str()),
        ("features", features.as_str()),
        ("tables", tables.as_str()),
        ("codegen_units", codegen_units),
        ("incremental", incremental),
        ("large_lines", large_lines.as_str()),
    ];
    let render = |name: &str, template: &str| {
        render(template, &values).map_err(|e| GenError {
            node: crate::plan::NodeId(0),
            message: format!("internal: template {name}: {e}"),
        })
    };
    let mut files = vec![
        (
            PathBuf::from("Cargo.toml"),
            render("Cargo.toml", embedded::CARGO_TOML_TEMPLATE)?,
        ),
        (PathBuf::from("Cargo.lock"), lock_file(package)),
        (
            PathBuf::from("README.md"),
            render("README.md", embedded::README_TEMPLATE)?,
        ),
        (PathBuf::from("src/main.rs"), main_rs),
        (PathBuf::from("plan.txt"), plan_text.to_string()),
        (PathBuf::from("plan.json"), plan_json.to_string()),
    ];
    if let RuntimeSource::Vendored = runtime {
        files.extend(
            runtime_files()
                .into_iter()
                .map(|(p, t)| (PathBuf::from("runtime").join(p), t)),
        );
    }
    Ok(CrateFiles {
        package: package.to_string(),
        files,
    })
}

/// The README's list of tables, one line each: `- `orders`: filesystem
/// (csv) at `data/orders.csv`, read`.
fn table_lines(plan: &Plan) -> String {
    let mut lines = Vec::new();
    for t in &plan.job.tables {
        let mut line = format!("- `{}`: ", t.name);
        match &t.connector.kind {
            ConnectorKind::Filesystem { format, path, .. } => {
                line += &format!("filesystem ({})", format!("{format:?}").to_lowercase());
                if !path.is_empty() {
                    line += &format!(" at `{path}`");
                }
            }
            other => line += other.name(),
        }
        let reads = plan
            .nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::Scan { table, .. } if table == t.id));
        let writes = plan
            .nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::Sink { table, .. } if table == t.id));
        if reads {
            line += ", read";
        }
        if writes {
            line += ", written";
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// The runtime's features in the manifest's dependency line:
/// `, features = ["regex"]`, or nothing.
fn feature_list<S: AsRef<str>>(features: &[S]) -> String {
    if features.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = features
        .iter()
        .map(|f| format!("\"{}\"", f.as_ref()))
        .collect();
    format!(", features = [{}]", quoted.join(", "))
}

/// Fills a scaffolding template: each `{{ name }}` becomes its value from
/// `values`, verbatim. The templates are plain text with no logic (lists and
/// conditions are rendered in Rust above), so this is all a template engine
/// has to do here; an unknown or unclosed placeholder is an error.
pub(crate) fn render(template: &str, values: &[(&str, &str)]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let close = after.find("}}").ok_or_else(|| {
            format!(
                "unclosed `{{{{` at byte {}",
                template.len() - rest.len() + open
            )
        })?;
        let name = after[..close].trim();
        let value = values
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| *value)
            .ok_or_else(|| format!("no value for `{{{{ {name} }}}}`"))?;
        out.push_str(value);
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A `Cargo.lock` with the exact versions of the runtime's dependencies
/// taken from the lock file stmtc was built and tested with.
fn lock_file(package: &str) -> String {
    // Blocks of the workspace lock file, by package name.
    let blocks: Vec<&str> = embedded::WORKSPACE_LOCK
        .split("[[package]]")
        .skip(1)
        .collect();
    let field = |block: &str, key: &str| -> Option<String> {
        block.lines().find_map(|l| {
            l.strip_prefix(&format!("{key} = \""))
                .map(|v| v.trim_end_matches('"').to_string())
        })
    };
    let deps_of = |block: &str| -> Vec<String> {
        let Some((_, rest)) = block.split_once("dependencies = [") else {
            return Vec::new();
        };
        let list = rest.split(']').next().unwrap_or("");
        list.split(',')
            .map(|d| {
                d.trim()
                    .trim_matches('"')
                    .split(' ')
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .filter(|d| !d.is_empty())
            .collect()
    };
    let find = |name: &str| {
        blocks
            .iter()
            .find(|b| field(b, "name").as_deref() == Some(name))
            .copied()
    };
    let runtime_deps = find("stmtc-runtime").map(deps_of).unwrap_or_default();
    // The dependency closure of the runtime.
    let mut closure: Vec<String> = Vec::new();
    let mut stack = runtime_deps.clone();
    while let Some(d) = stack.pop() {
        if closure.contains(&d) {
            continue;
        }
        if let Some(b) = find(&d) {
            stack.extend(deps_of(b));
        }
        closure.push(d);
    }
    let mut entries: Vec<(String, String)> = closure
        .iter()
        .filter_map(|d| {
            find(d).map(|b| {
                (
                    d.clone(),
                    format!("[[package]]{}", b.trim_end_matches('\n').to_string() + "\n"),
                )
            })
        })
        .collect();
    let list = |deps: &[String]| -> String {
        if deps.is_empty() {
            return String::new();
        }
        let mut sorted = deps.to_vec();
        sorted.sort();
        let items: String = sorted.iter().map(|d| format!(" \"{d}\",\n")).collect();
        format!("dependencies = [\n{items}]\n")
    };
    entries.push((
        package.to_string(),
        format!(
            "[[package]]\nname = \"{package}\"\nversion = \"0.1.0\"\n{}",
            list(&["stmtc-runtime".to_string()])
        ),
    ));
    entries.push((
        "stmtc-runtime".to_string(),
        format!(
            "[[package]]\nname = \"stmtc-runtime\"\nversion = \"{}\"\n{}",
            env!("CARGO_PKG_VERSION"),
            list(&runtime_deps)
        ),
    ));
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::from("# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 4\n");
    for (_, block) in entries {
        out.push('\n');
        out.push_str(block.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn large_jobs_build_in_parallel_units_incrementally() {
        let lines = |n: usize| "fn f() {}\n".repeat(n);
        assert_eq!(super::release_profile(&lines(1_600)), ("1", "false"));
        assert_eq!(
            super::release_profile(&lines(super::LARGE_JOB_LINES + 1)),
            ("16", "true")
        );
    }

    use super::{feature_list, render};

    fn check(template: &str, expected: Result<&str, &str>) {
        let values = [("package", "orders_daily"), ("features", "")];
        assert_eq!(
            render(template, &values).as_deref(),
            expected.map_err(str::to_string).as_deref()
        );
    }

    #[test]
    fn placeholders_are_filled_verbatim() {
        check(
            "name = \"{{ package }}\"{{features}}\n# {{package}}",
            Ok("name = \"orders_daily\"\n# orders_daily"),
        );
        check("no placeholders { } }}", Ok("no placeholders { } }}"));
        check("{{ missing }}", Err("no value for `{{ missing }}`"));
        check("a {{ package", Err("unclosed `{{` at byte 2"));
    }

    #[test]
    fn features_are_a_toml_list_or_nothing() {
        assert_eq!(feature_list::<&str>(&[]), "");
        assert_eq!(feature_list(&["regex"]), ", features = [\"regex\"]");
        assert_eq!(feature_list(&["a", "b"]), ", features = [\"a\", \"b\"]");
    }
}
