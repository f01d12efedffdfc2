//! The `stmtc` command line as a user runs it: exit codes, output streams,
//! `--help` of every subcommand, JSON diagnostics.

use std::path::Path;
use std::process::{Command, Output};

use crate::shared_build;

fn stmtc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stmtc"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("run stmtc")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_accepts_a_valid_job_with_a_summary() {
    let out = stmtc(&["check", "fixtures/region_split/job.sql"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "fixtures/region_split/job.sql: ok (4 tables, 0 views, 3 inserts)\n"
    );
}

#[test]
fn check_reports_every_error_and_fails() {
    let out = stmtc(&[
        "check",
        "--color",
        "never",
        "fixtures/error_multiple_unknown_names/job.sql",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    let headlines: Vec<&str> = err.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(headlines.len(), 3, "{err}");
    assert!(headlines[0].starts_with("fixtures/error_multiple_unknown_names/job.sql:40:18: error:"));
    assert!(err.ends_with("3 errors\n"), "{err}");
}

#[test]
fn check_prints_json_diagnostics() {
    let out = stmtc(&[
        "check",
        "--format",
        "json",
        "fixtures/error_unknown_column/job.sql",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let first = &json[0];
    assert_eq!(first["severity"], "error");
    assert_eq!(first["start"]["line"], 40);
    assert_eq!(first["start"]["column"], 18);
    assert_eq!(first["help"], "did you mean `quantity`?");
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let out = stmtc(&["check", "no/such/job.sql"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: cannot read no/such/job.sql:"));
}

#[test]
fn invalid_utf8_is_located_at_its_line_and_column() {
    let dir = std::env::temp_dir().join(format!("stmtc-cli-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let job = dir.join("job.sql");
    std::fs::write(
        &job,
        b"SET 'a' = 'b';\nINSERT INTO s SELECT '\xE9t\xE9' FROM t;\n",
    )
    .expect("write");
    let out = stmtc(&["check", job.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    let expected = format!(
        "{}:2:23: error: not valid UTF-8 text: byte 0xE9",
        job.display()
    );
    assert!(err.starts_with(&expected), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_subcommand_has_help() {
    for sub in ["check", "explain", "compile", "run"] {
        let out = stmtc(&[sub, "--help"]);
        assert!(out.status.success());
        assert!(text(&out.stdout).contains("Usage: stmtc"), "{sub}");
    }
}

#[test]
fn explain_check_passes_on_a_fresh_plan_and_fails_with_a_diff_on_a_stale_one() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-explain-check");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let plan = stmtc(&["explain", "fixtures/region_split/job.sql"]);
    assert!(plan.status.success());
    let fresh = dir.join("plan.txt");
    std::fs::write(&fresh, &plan.stdout).expect("write");
    let out = stmtc(&[
        "explain",
        "fixtures/region_split/job.sql",
        "--check",
        fresh.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stale = dir.join("stale.txt");
    std::fs::write(&stale, text(&plan.stdout).replace("'US'", "'UK'")).expect("write");
    let out = stmtc(&[
        "explain",
        "fixtures/region_split/job.sql",
        "--check",
        stale.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("-+- Calc #1 where=[(region = 'UK')]"), "{err}");
    assert!(err.contains("++- Calc #1 where=[(region = 'US')]"), "{err}");
    assert!(err.contains("is stale"), "{err}");
}

#[test]
fn explain_prints_every_format() {
    for (format, marker) in [
        ("json", "\"planVersion\": 1"),
        ("dot", "digraph plan"),
        ("mermaid", "flowchart BT"),
    ] {
        let out = stmtc(&[
            "explain",
            "--format",
            format,
            "fixtures/region_split/job.sql",
        ]);
        assert!(out.status.success(), "{format}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains(marker), "{format}");
    }
    let out = stmtc(&["explain", "--trace-passes", "fixtures/region_split/job.sql"]);
    assert!(text(&out.stderr).contains("== after lowering =="));
}

#[test]
fn compile_writes_a_self_contained_crate() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-compile");
    let _ = std::fs::remove_dir_all(&dir);
    let out = stmtc(&[
        "compile",
        "fixtures/region_split/job.sql",
        "-o",
        dir.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "plan.txt",
        "plan.json",
        "src/main.rs",
        "runtime/Cargo.toml",
        "runtime/src/lib.rs",
    ] {
        assert!(dir.join(file).is_file(), "missing {file}");
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("manifest");
    assert!(
        manifest.contains("stmtc-runtime = { path = \"runtime\" }"),
        "{manifest}"
    );
    let main = std::fs::read_to_string(dir.join("src/main.rs")).expect("main.rs");
    assert!(main.starts_with("// @generated by stmtc"), "{main}");
}

/// Relative source paths resolve in the working directory (as in Flink):
/// compiled from elsewhere, the planner cannot size the sources and says so.
#[test]
fn compile_warns_when_it_cannot_size_a_source() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-compile-sizes");
    let compile_in = |cwd: &Path| {
        let _ = std::fs::remove_dir_all(&dir);
        let job = root.join("fixtures/region_split/job.sql");
        let out = Command::new(env!("CARGO_BIN_EXE_stmtc"))
            .args(["compile", job.to_str().expect("utf-8"), "-o"])
            .arg(&dir)
            .current_dir(cwd)
            .output()
            .expect("run stmtc");
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    let elsewhere = compile_in(&root);
    assert!(
        elsewhere.contains("warning: no data found from")
            && elsewhere.contains("orders ('data/orders.csv')")
            && elsewhere.contains("compile in the directory the job will run in"),
        "{elsewhere}"
    );
    let beside_the_data = compile_in(&root.join("fixtures/region_split"));
    assert!(!beside_the_data.contains("warning"), "{beside_the_data}");
}

#[test]
fn run_builds_once_and_runs_the_job() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-run");
    let _ = std::fs::remove_dir_all(work.join("job"));
    let job = work.join("job");
    std::fs::create_dir_all(job.join("data")).expect("mkdir");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/region_split");
    std::fs::copy(fixture.join("job.sql"), job.join("job.sql")).expect("copy");
    std::fs::copy(fixture.join("data/orders.csv"), job.join("data/orders.csv")).expect("copy");
    // The cache is the folder where the other tests build their jobs: the
    // runtime they build is the one `stmtc run` builds.
    let cache = shared_build::root();
    let run = || {
        shared_build::sanitized(&mut Command::new(env!("CARGO_BIN_EXE_stmtc")))
            .args(["run", "job.sql", "--cache-dir"])
            .arg(&cache)
            .current_dir(&job)
            .output()
            .expect("run stmtc")
    };
    let first = run();
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(
        text(&first.stderr).contains("rows to   region_us"),
        "{}",
        text(&first.stderr)
    );
    let us = std::fs::read_dir(job.join("out/region_us"))
        .expect("sink dir")
        .count();
    assert!(us >= 1);
    // Unchanged job: nothing is compiled again.
    let second = run();
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(
        !text(&second.stderr).contains("Compiling"),
        "{}",
        text(&second.stderr)
    );
}
