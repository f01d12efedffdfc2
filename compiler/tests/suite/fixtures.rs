//! Data-driven tests over `fixtures/`: every `fixtures/<case>/job.sql` is
//! checked; `error_*` cases must report errors (their rendered diagnostics are
//! the `@errors` snapshot), every other case must check cleanly (its bound
//! statement set is the `@bound` snapshot) and explain (the `@plan` text and
//! `@plan_json` snapshots) and generate code (the `@rust` snapshot of
//! main.rs). Snapshots live in `snapshots/`.

use std::path::{Path, PathBuf};

use stmtc::diagnostics::SourceFile;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Checks one fixture, named by its path relative to the workspace so the
/// rendered diagnostics are the same on every machine.
fn check_fixture(path: &Path) -> (String, stmtc::Checked) {
    let case = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .expect("fixture folder name")
        .to_string();
    let text = std::fs::read_to_string(path).expect("read job.sql");
    let file = SourceFile::new(format!("fixtures/{case}/job.sql"), text);
    (case, stmtc::check(file))
}

/// Explains a fixture with every detail, sizes taken from its own folder.
fn explain(path: &Path, format: stmtc::ExplainFormat) -> String {
    let (_, checked) = check_fixture(path);
    let options = stmtc::ExplainOptions {
        format,
        changelog: true,
        cost: true,
        base_dir: path.parent().expect("fixture folder").to_path_buf(),
    };
    match stmtc::explain(checked.file, &options, None) {
        Ok(plan) => plan,
        Err(checked) => panic!("{}", checked.render_diagnostics(false)),
    }
}

/// The generated `src/main.rs` of a fixture (or the located reason it cannot be generated).
fn generated_main(path: &Path) -> String {
    let (_, checked) = check_fixture(path);
    let runtime = stmtc::RuntimeLocation::Path("runtime".to_string());
    // Sizes from the fixture's own folder, as `explain` takes them.
    match stmtc::compile(checked.file, &runtime, None, path.parent()) {
        Ok(job) => job
            .files
            .into_iter()
            .find(|(p, _)| p == Path::new("src/main.rs"))
            .map(|(_, text)| text)
            .expect("main.rs"),
        Err(checked) => format!(
            "does not compile yet:\n{}",
            checked.render_diagnostics(false)
        ),
    }
}

/// A folder with `queries/` is a suite of jobs with a test of its own
/// (`tpch.rs`): its `job.sql` holds queries stmtc does not support yet.
fn is_suite(dir: &Path) -> bool {
    dir.join("queries").is_dir()
}

fn valid_fixtures() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(workspace().join("fixtures"))
        .expect("fixtures/")
        .map(|e| e.expect("entry").path())
        .filter(|d| {
            d.join("job.sql").exists()
                && !is_suite(d)
                && !d
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .starts_with("error_")
        })
        .map(|d| d.join("job.sql"))
        .collect();
    cases.sort();
    cases
}

/// The product's promise: each source table is scanned exactly once per job,
/// whatever different INSERTs do with it.
#[test]
fn every_source_is_scanned_once() {
    for path in valid_fixtures() {
        let json: serde_json::Value =
            serde_json::from_str(&explain(&path, stmtc::ExplainFormat::Json)).expect("plan JSON");
        let mut scans: Vec<&str> = json["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .filter(|n| n["type"] == "scan_1")
            .map(|n| n["table"].as_str().expect("table"))
            .collect();
        let total = scans.len();
        scans.sort();
        scans.dedup();
        assert_eq!(
            total,
            scans.len(),
            "{}: a table is scanned twice: {scans:?}",
            path.display()
        );
    }
}

/// The same job explains to the same bytes every time, in every format.
#[test]
fn explain_is_deterministic() {
    for path in valid_fixtures() {
        for format in [
            stmtc::ExplainFormat::Text,
            stmtc::ExplainFormat::Json,
            stmtc::ExplainFormat::Dot,
            stmtc::ExplainFormat::Mermaid,
        ] {
            assert_eq!(
                explain(&path, format),
                explain(&path, format),
                "{}",
                path.display()
            );
        }
    }
}

#[test]
fn check_fixtures() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../../../snapshots/check");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(workspace().join("fixtures"))
        .expect("fixtures/")
        .map(|e| e.expect("entry").path())
        .filter(|d| !is_suite(d))
        .map(|d| d.join("job.sql"))
        .filter(|p| p.exists())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 30,
        "expected the fixture set, found {} cases",
        cases.len()
    );
    // Run every case, then report all failures together.
    let mut failures = Vec::new();
    for path in &cases {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| {
                let (case, checked) = check_fixture(path);
                if case.starts_with("error_") {
                    assert!(
                        checked.has_errors(),
                        "{case}: expected errors, the job checked cleanly"
                    );
                    insta::assert_snapshot!(
                        format!("{case}@errors"),
                        checked.render_diagnostics(false)
                    );
                } else {
                    assert!(
                        !checked.has_errors(),
                        "{case}: expected no errors, got:\n{}",
                        checked.render_diagnostics(false)
                    );
                    insta::assert_snapshot!(format!("{case}@bound"), checked.bound_text());
                    let text = explain(path, stmtc::ExplainFormat::Text);
                    insta::assert_snapshot!(format!("{case}@plan"), text);
                    insta::assert_snapshot!(
                        format!("{case}@plan_json"),
                        explain(path, stmtc::ExplainFormat::Json)
                    );
                    insta::assert_snapshot!(format!("{case}@rust"), generated_main(path));
                }
            })
        }));
        if result.is_err() {
            failures.push(path.display().to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "failing fixtures:\n{}",
        failures.join("\n")
    );
}

/// Each error fixture says what is wrong in its first line (`-- error: ...`),
/// so a fixture cannot silently turn into a test of something else.
#[test]
fn error_fixtures_document_their_mistake() {
    for entry in std::fs::read_dir(workspace().join("fixtures")).expect("fixtures/") {
        let dir = entry.expect("entry").path();
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !name.starts_with("error_") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join("job.sql")).expect("job.sql");
        assert!(
            text.starts_with("-- error: "),
            "{name}/job.sql must start with `-- error: <what is wrong>`"
        );
    }
}

/// Every snapshot belongs to a fixture that still exists (insta's
/// `--unreferenced=reject`, without needing cargo-insta in CI).
#[test]
fn no_unreferenced_snapshots() {
    let fixtures = workspace().join("fixtures");
    for entry in std::fs::read_dir(workspace().join("snapshots/check")).expect("snapshots/check") {
        let file = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .to_string();
        if !file.ends_with(".snap") {
            continue;
        }
        let case = file.split('@').next().unwrap_or_default();
        assert!(
            fixtures.join(case).join("job.sql").exists(),
            "snapshots/check/{file} belongs to no fixture: delete it"
        );
    }
}

/// The same input always gives byte-identical output.
#[test]
fn checking_is_deterministic() {
    let path = workspace().join("fixtures/shared_view_aggregates/job.sql");
    let (_, first) = check_fixture(&path);
    let (_, second) = check_fixture(&path);
    assert_eq!(first.bound_text(), second.bound_text());
}
