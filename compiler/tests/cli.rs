//! The `stmtc` command line as a user runs it: exit codes, output streams,
//! `--help` of every subcommand, JSON diagnostics.

use std::path::Path;
use std::process::{Command, Output};

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
fn every_subcommand_has_help() {
    for sub in ["check"] {
        let out = stmtc(&[sub, "--help"]);
        assert!(out.status.success());
        assert!(text(&out.stdout).contains("Usage: stmtc"), "{sub}");
    }
}
