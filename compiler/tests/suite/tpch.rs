//! TPC-H at scale factor 0.01, the 22 queries as Apache Flink's own
//! end-to-end test runs them (`fixtures/tpch/`, its README says where they
//! come from): every query alone, and the queries stmtc supports as ONE
//! statement set, each compiled, built (shared runtime and target,
//! `support/shared_build.rs`), run on the committed data and compared with
//! the rows Flink 2.3 wrote. DOUBLE values may differ from Flink's in the
//! last digits (summation order), as the e2e suite allows.
//!
//! The queries that need subqueries are listed in `NEEDS_SUBQUERIES`: each
//! must be refused by `check`, located; the test fails when one starts to
//! pass, so the list only shrinks honestly.

use std::path::{Path, PathBuf};
use std::process::Command;

use stmtc::diagnostics::SourceFile;

use crate::shared_build;
use crate::sink_compare;

/// Queries refused until subqueries are planned (scalar, IN, EXISTS).
const NEEDS_SUBQUERIES: &[&str] = &[];

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/tpch")
}

/// Compiles `text` as package `package` into its crate folder.
fn compile_job(package: &str, name: &str, text: String) -> Result<(), String> {
    let file = SourceFile::new(name.to_string(), text);
    let runtime = shared_build::runtime_dir(stmtc::runtime_crate());
    let location = stmtc::RuntimeLocation::Path(runtime.display().to_string());
    let compiled = stmtc::compile(file, &location, Some(package), Some(&suite()))
        .map_err(|c| format!("{name}: does not compile:\n{}", c.render_diagnostics(false)))?;
    shared_build::write_files(&shared_build::crate_dir(package), &compiled.files);
    Ok(())
}

/// Runs the built `binary` in a fresh folder whose `data` is the suite's,
/// and compares the sinks `sinks`.
fn run_job(package: &str, name: &str, binary: &Path, sinks: &[String]) -> Result<(), String> {
    let run_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("tpch")
        .join(package);
    let _ = std::fs::remove_dir_all(&run_dir);
    std::fs::create_dir_all(&run_dir).map_err(|e| e.to_string())?;
    std::os::unix::fs::symlink(suite().join("data"), run_dir.join("data"))
        .map_err(|e| e.to_string())?;
    let output = Command::new(binary)
        .arg("--quiet")
        .env("STMTC_THREADS", "2")
        // Group tables defer updates from the first row, as large ones do.
        .env("STMTC_DEFER_BYTES", "0")
        .current_dir(&run_dir)
        .output()
        .map_err(|e| format!("{name}: cannot run {}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{name}: the job failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut problems = Vec::new();
    for sink in sinks {
        let actual = sink_compare::sink_lines(&run_dir.join("out").join(sink));
        let expected = suite().join("expected").join(format!("{sink}.csv"));
        if let Err(e) = sink_compare::compare(name, sink, actual, &expected, false, true) {
            problems.push(e);
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The statement set of `job.sql` with only the INSERTs into `keep`.
fn statement_set_of(keep: &[String]) -> String {
    let text = std::fs::read_to_string(suite().join("job.sql")).expect("tpch job.sql");
    let begin = "EXECUTE STATEMENT SET\nBEGIN\n";
    let at = text.find(begin).expect("job.sql has a statement set");
    let (ddl, body) = text.split_at(at + begin.len());
    let body = body
        .trim_end()
        .strip_suffix("END;")
        .expect("the set ends with END;");
    let mut inserts: Vec<String> = Vec::new();
    for line in body.lines() {
        if line.trim_start().starts_with("INSERT INTO ") {
            inserts.push(String::new());
        }
        if let Some(current) = inserts.last_mut() {
            current.push_str(line);
            current.push('\n');
        }
    }
    let kept: Vec<String> = inserts
        .into_iter()
        .filter(|insert| {
            let target = insert.split_whitespace().nth(2).unwrap_or_default();
            keep.iter().any(|k| k == target)
        })
        .collect();
    assert_eq!(kept.len(), keep.len(), "every kept query is in job.sql");
    format!("{ddl}{}END;\n", kept.concat())
}

#[test]
fn tpch_queries_match_flink_alone_and_as_one_statement_set() {
    let mut queries: Vec<String> = std::fs::read_dir(suite().join("queries"))
        .expect("fixtures/tpch/queries")
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".sql"))
                .map(str::to_string)
        })
        .collect();
    queries.sort();
    assert_eq!(queries.len(), 22, "the 22 TPC-H queries: {queries:?}");
    let mut failures = Vec::new();
    let mut supported = Vec::new();
    // (package, file name, job text, sinks to compare)
    let mut jobs: Vec<(String, String, String, Vec<String>)> = Vec::new();
    for q in &queries {
        let name = format!("fixtures/tpch/queries/{q}.sql");
        let text = std::fs::read_to_string(suite().join("queries").join(format!("{q}.sql")))
            .expect("query file");
        if NEEDS_SUBQUERIES.contains(&q.as_str()) {
            let checked = stmtc::check(SourceFile::new(name.clone(), text));
            let rendered = checked.render_diagnostics(false);
            if !checked.has_errors() {
                failures.push(format!("{q} is accepted now: take it off NEEDS_SUBQUERIES"));
            } else if !rendered.contains("subquer") || !rendered.contains(&format!("{name}:")) {
                failures.push(format!(
                    "{q}: refused without a located subquery error:\n{rendered}"
                ));
            }
            continue;
        }
        supported.push(q.clone());
        jobs.push((format!("tpch_{q}"), name, text, vec![q.clone()]));
    }
    jobs.push((
        "tpch_set".to_string(),
        "fixtures/tpch/job.sql (supported queries)".to_string(),
        statement_set_of(&supported),
        supported.clone(),
    ));
    // Compile every job, build them in one cargo run, then run each.
    let mut packages = Vec::new();
    for (package, name, text, _) in &jobs {
        match compile_job(package, name, text.clone()) {
            Ok(()) => packages.push(package.clone()),
            Err(e) => failures.push(e),
        }
    }
    let built = shared_build::build_many("tpch", &packages);
    for (package, name, _, sinks) in &jobs {
        let Some(binary) = built.get(package) else {
            continue; // did not compile: reported above
        };
        let result = binary
            .as_ref()
            .map_err(|e| format!("{name}: the generated crate does not build:\n{e}"))
            .and_then(|binary| run_job(package, name, binary, sinks));
        if let Err(e) = result {
            failures.push(if package == "tpch_set" {
                format!("as one statement set: {e}")
            } else {
                e
            });
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_statement_set_reads_each_table_once() {
    let supported: Vec<String> = (1..=22)
        .map(|i| format!("q{i:02}"))
        .filter(|q| !NEEDS_SUBQUERIES.contains(&q.as_str()))
        .collect();
    let file = SourceFile::new("tpch.sql", statement_set_of(&supported));
    let options = stmtc::ExplainOptions {
        format: stmtc::ExplainFormat::Json,
        changelog: false,
        cost: false,
        base_dir: suite(),
    };
    let plan = stmtc::explain(file, &options, None)
        .unwrap_or_else(|c| panic!("{}", c.render_diagnostics(false)));
    let plan: serde_json::Value = serde_json::from_str(&plan).expect("plan JSON");
    let mut scanned: Vec<String> = plan["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| n["type"] == "scan_1")
        .map(|n| n["table"].as_str().unwrap_or_default().to_string())
        .collect();
    scanned.sort();
    let mut unique = scanned.clone();
    unique.dedup();
    assert_eq!(scanned, unique, "a table is scanned more than once");
    assert_eq!(unique.len(), 8, "all 8 TPC-H tables are read: {unique:?}");
}
