//! End to end: every valid fixture with Flink-produced outputs is compiled,
//! its crate built in release, as `stmtc run` builds it (in the target
//! directory and against the runtime every test shares, `support/shared_build.rs`,
//! so the runtime compiles once per suite; all crates in one cargo run, once
//! for every test here, see [`built`]), run on the fixture's data, and every sink's output is
//! compared with what Flink 2.3 wrote (`fixtures/<case>/expected/`, see each
//! fixture's FLINK.md). Rows are compared as sorted lines unless the case has
//! `expected/ORDERED` (its SQL defines the order).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use stmtc::diagnostics::SourceFile;

use crate::shared_build;
use crate::sink_compare;

use sink_compare::{compare, sink_lines};

/// Fixtures whose code generation or results are known to fall short, with
/// the reason. The test fails if one of them starts to pass (update the list),
/// so the list can only shrink honestly.
const KNOWN_GAPS: &[(&str, &str)] = &[];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The fixtures with Flink's outputs (`expected/`), TPC-H's suite included.
fn fixture_cases() -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(workspace().join("fixtures"))
        .expect("fixtures/")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("expected").is_dir())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    cases.sort();
    cases
}

/// Compiles one fixture into its crate folder.
fn compile_case(case: &str, runtime: &Path) -> Result<(), String> {
    let fixture = workspace().join("fixtures").join(case);
    let text = std::fs::read_to_string(fixture.join("job.sql")).map_err(|e| e.to_string())?;
    let file = SourceFile::new(format!("fixtures/{case}/job.sql"), text);
    let location = stmtc::RuntimeLocation::Path(runtime.display().to_string());
    let compiled =
        stmtc::compile(file, &location, Some(case), Some(&fixture)).map_err(|checked| {
            format!(
                "{case}: does not compile:\n{}",
                checked.render_diagnostics(false)
            )
        })?;
    shared_build::write_files(&shared_build::crate_dir(case), &compiled.files);
    Ok(())
}

/// Every fixture of [`fixture_cases`] compiled and built, once per run of
/// this binary: the first test to ask builds them all in one cargo run
/// (side by side on every core), the others wait for it.
fn built() -> &'static BTreeMap<String, Result<PathBuf, String>> {
    static BUILT: OnceLock<BTreeMap<String, Result<PathBuf, String>>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let runtime = shared_build::runtime_dir(stmtc::runtime_crate());
        let mut results = BTreeMap::new();
        let mut packages = Vec::new();
        for case in fixture_cases() {
            match compile_case(&case, &runtime) {
                Ok(()) => packages.push(case),
                Err(e) => {
                    results.insert(case, Err(e));
                }
            }
        }
        for (case, result) in shared_build::build_many("e2e", &packages) {
            let result =
                result.map_err(|e| format!("{case}: the generated crate does not build:\n{e}"));
            results.insert(case, result);
        }
        results
    })
}

/// Runs one built fixture; `Err` describes what went wrong.
fn run_case(case: &str, work: &Path, threads: usize) -> Result<(), String> {
    run_case_with(case, work, threads, None)
}

/// `run_case`, with `--memory-budget budget` when given: then the job must
/// report that it spilled, and leave no spill folder behind.
fn run_case_with(
    case: &str,
    work: &Path,
    threads: usize,
    budget: Option<&str>,
) -> Result<(), String> {
    let fixture = workspace().join("fixtures").join(case);
    let binary = built()
        .get(case)
        .cloned()
        .unwrap_or_else(|| Err(format!("{case}: not a fixture with expected outputs")))?;
    // Run where the job's relative paths point: a copy of the fixture's data.
    let run_dir = work.join("run").join(case);
    let _ = std::fs::remove_dir_all(&run_dir);
    if fixture.join("data").exists() {
        copy_dir(&fixture.join("data"), &run_dir.join("data"));
    }
    std::fs::create_dir_all(&run_dir).map_err(|e| e.to_string())?;
    let mut command = Command::new(&binary);
    command.current_dir(&run_dir);
    let spill_dir = run_dir.join("spill");
    match budget {
        None => {
            command.arg("--quiet");
        }
        Some(b) => {
            std::fs::create_dir_all(&spill_dir).map_err(|e| e.to_string())?;
            command
                .args(["--memory-budget", b])
                .env("STMTC_SPILL_DIR", &spill_dir);
        }
    }
    if threads > 1 {
        // Many small byte ranges over several threads: the parallel path,
        // with per-thread partial state merged, must give the same rows.
        // Every group table defers its updates from the first row (as
        // tables larger than the cache do), so the queues' drains at the
        // end of each pipeline and before merges are checked too.
        command
            .env("STMTC_THREADS", threads.to_string())
            .env("STMTC_MIN_SPLIT_BYTES", "256")
            .env("STMTC_DEFER_BYTES", "0");
    } else {
        command.env("STMTC_THREADS", "1");
    }
    let output = command
        .output()
        .map_err(|e| format!("{case}: cannot run {}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{case}: the job failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    if budget.is_some() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !stderr.contains("spilled") {
            return Err(format!(
                "{case}: expected the job to spill, it said:\n{stderr}"
            ));
        }
        let left = std::fs::read_dir(&spill_dir).map_or(0, |d| d.count());
        if left != 0 {
            return Err(format!(
                "{case}: {left} spill folders left in {}",
                spill_dir.display()
            ));
        }
    }
    let expected_dir = fixture.join("expected");
    let ordered = expected_dir.join("ORDERED").exists();
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(&expected_dir).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let result = match name.as_str() {
            "ORDERED" => continue,
            "stdout.txt" => {
                let stdout = String::from_utf8_lossy(&output.stdout);
                compare(
                    case,
                    "stdout",
                    stdout.lines().map(str::to_string).collect(),
                    &path,
                    ordered,
                    threads > 1,
                )
            }
            _ => {
                let sink = path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_string();
                let dir = run_dir.join("out").join(&sink);
                part_names(case, &sink, &dir, &fixture.join("job.sql")).and_then(|()| {
                    compare(
                        case,
                        &format!("sink {sink}"),
                        sink_lines(&dir),
                        &path,
                        ordered,
                        threads > 1,
                    )
                })
            }
        };
        if let Err(e) = result {
            problems.push(e);
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[test]
fn fixtures_produce_flinks_results() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e");
    let cases: Vec<String> = fixture_cases()
        .into_iter()
        // A folder with `queries/` is a suite of jobs with a test of its own (tpch.rs).
        .filter(|case| {
            !workspace()
                .join("fixtures")
                .join(case)
                .join("queries")
                .is_dir()
        })
        .collect();
    assert!(
        cases.len() >= 10,
        "expected the seed fixtures, found {cases:?}"
    );
    let mut failures = Vec::new();
    let mut passed = Vec::new();
    for case in &cases {
        let gap = KNOWN_GAPS.iter().find(|(c, _)| c == case);
        let result = run_case(case, &work, 1).and_then(|()| {
            run_case(case, &work, 3).map_err(|e| format!("with 3 threads and small splits: {e}"))
        });
        match (result, gap) {
            (Ok(()), None) => passed.push(case.clone()),
            (Ok(()), Some((_, why))) => failures.push(format!(
                "{case} now matches Flink but is listed in KNOWN_GAPS ({why}): remove it from the list"
            )),
            (Err(e), None) => failures.push(e),
            (Err(_), Some(_)) => {}
        }
    }
    eprintln!(
        "end-to-end: {} fixtures match Flink: {}",
        passed.len(),
        passed.join(", ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Jobs whose probe rows wait for a build fed by the same scan (a
/// self-join, a join with its own aggregate, crosswise builds) keep those
/// rows in spools; with a tiny memory budget the spools spill to files,
/// and the results are still Flink's, with nothing left on disk.
#[test]
fn spools_joins_aggregates_and_sorts_spill_beyond_a_tiny_budget_and_clean_up() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-spill");
    let mut failures = Vec::new();
    // Spools spill, every join build beyond 1 KiB partitions to disk (grace
    // hash join: inner, outer on either side, semi and anti joins, NULL
    // keys, multi-way joins), and so do the rows of aggregate groups beyond
    // it (COUNT DISTINCT, AVG, MIN/MAX of strings: shared_view_aggregates
    // has no join; LISTAGG strings that grow per row: listagg_aggregate);
    // ORDER BY (with and without LIMIT/OFFSET) and OVER buffers become
    // sorted runs merged at the end; TPC-H's 22 queries in one set.
    for case in [
        "order_limit",
        "order_by_grouped",
        "over_windows",
        "over_windows_more",
        "over_windows_order_by",
        "users_orders_join",
        "shared_view_aggregates",
        "listagg_aggregate",
        "self_join",
        "join_own_aggregate",
        "crosswise_builds",
        "joins_all_kinds",
        "join_null_keys",
        "outer_join_where",
        "comma_join_snowflake",
        "subqueries",
        "semi_anti_inequality",
        "tpch",
    ] {
        if let Err(e) = run_case_with(case, &work, 3, Some("1kb")) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A scalar subquery that returns more than one row for an outer row fails
/// the job at run time, with Flink's message (`SingleValueAggFunction
/// received more than one element.`) after the subquery's location, and no
/// sink is written. Flink 2.3 fails the same job with that message.
/// Compiles a job written in a test (its sources sized from `base`) and
/// builds it in the shared target directory; the binary's path.
fn build_job(package: &str, text: &str, base: &Path) -> PathBuf {
    let runtime = shared_build::runtime_dir(stmtc::runtime_crate());
    let file = SourceFile::new("job.sql".to_string(), text.to_string());
    let location = stmtc::RuntimeLocation::Path(runtime.display().to_string());
    let compiled = stmtc::compile(file, &location, Some(package), Some(base))
        .unwrap_or_else(|c| panic!("does not compile:\n{}", c.render_diagnostics(false)));
    shared_build::write_files(&shared_build::crate_dir(package), &compiled.files);
    shared_build::build(package).expect("the generated crate builds")
}

#[test]
fn a_scalar_subquery_of_two_rows_fails_the_job() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-single-value");
    let fixture = workspace().join("fixtures").join("subqueries");
    let text = "SET 'execution.runtime-mode' = 'batch';
CREATE TABLE emp (id INT, dept STRING, salary INT, boss INT) WITH ('connector' = 'filesystem', 'path' = 'data/emp.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE bonus (emp_id INT, dept STRING, amount INT) WITH ('connector' = 'filesystem', 'path' = 'data/bonus.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE o (id INT, amount INT) WITH ('connector' = 'filesystem', 'path' = 'out/o', 'format' = 'csv');
INSERT INTO o SELECT id, (SELECT amount FROM bonus WHERE emp_id = id) FROM emp;
";
    let binary = build_job("single_value_error", text, &fixture);
    let run_dir = work.join("run");
    let _ = std::fs::remove_dir_all(&run_dir);
    copy_dir(&fixture.join("data"), &run_dir.join("data"));
    let output = Command::new(&binary)
        .arg("--quiet")
        .env("STMTC_THREADS", "2")
        .current_dir(&run_dir)
        .output()
        .expect("the job runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the job succeeded:\n{stderr}");
    // Employee 2 has two bonus rows; the subquery's SELECT is at line 5, column 27.
    assert!(
        stderr.contains("job.sql:5:27: SingleValueAggFunction received more than one element."),
        "{stderr}"
    );
    let written = std::fs::read_dir(run_dir.join("out/o")).map_or(0, |d| d.count());
    assert_eq!(written, 0, "the failed job left files in its sink");
}

/// `--profile` prints every pipeline that ran once, slowest first, with its
/// share of the time and what it runs, then which operators held the memory
/// budget at its peak; the job's outputs are the same.
#[test]
fn profile_lists_every_pipeline_once() {
    let case = "semi_anti_inequality";
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-profile");
    let binary = built()
        .get(case)
        .cloned()
        .expect("a fixture")
        .unwrap_or_else(|e| panic!("{e}"));
    let run_dir = work.join("run");
    let _ = std::fs::remove_dir_all(&run_dir);
    copy_dir(
        &workspace().join("fixtures").join(case).join("data"),
        &run_dir.join("data"),
    );
    let output = Command::new(&binary)
        .args(["--quiet", "--profile"])
        .current_dir(&run_dir)
        .output()
        .expect("the job runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let mut lines = stderr.lines();
    assert!(
        lines
            .next()
            .is_some_and(|l| l.starts_with("pipelines by wall time (")),
        "{stderr}"
    );
    assert!(
        lines
            .next()
            .is_some_and(|l| l.split_whitespace().eq(["wall", "share", "CPU", "cores"])),
        "{stderr}"
    );
    let mut seen = Vec::new();
    let mut secs = Vec::new();
    let mut memory = None;
    for line in lines.by_ref() {
        if line.starts_with("memory: ") {
            memory = Some(line);
            break;
        }
        let (time, rest) = line.trim_start().split_once(" s ").expect("a time");
        secs.push(time.parse::<f64>().expect("seconds"));
        // Share, CPU seconds and cores used are numbers too.
        let fields: Vec<&str> = rest.split_whitespace().take(4).collect();
        assert!(fields[0].ends_with('%') && fields[2] == "s", "{line}");
        for n in [&fields[0][..fields[0].len() - 1], fields[1], fields[3]] {
            assert!(n.parse::<f64>().is_ok_and(|n| n >= 0.0), "{line}");
        }
        let (_, pipeline) = rest.split_once("pipeline ").expect("a pipeline");
        let (index, what) = pipeline.split_once(": ").expect("a description");
        seen.push(index.parse::<usize>().expect("an index"));
        assert!(
            what.starts_with("read: Scan") || what.contains(": Join #"),
            "{line}"
        );
    }
    assert!(
        secs.windows(2).all(|w| w[0] >= w[1]),
        "slowest first:\n{stderr}"
    );
    seen.sort_unstable();
    assert_eq!(seen, (0..seen.len()).collect::<Vec<_>>(), "{stderr}");
    assert!(seen.len() >= 2, "{stderr}");
    // Then the memory budget's peak, and the operators that held it then,
    // the largest first: this job's join builds hold rows.
    let memory = memory.unwrap_or_else(|| panic!("no memory section:\n{stderr}"));
    assert!(memory.contains(" MB reserved at the peak of "), "{memory}");
    let mut held = Vec::new();
    for line in lines {
        let (mb, label) = line.trim_start().split_once(" MB  ").expect("bytes held");
        held.push(mb.parse::<f64>().expect("megabytes"));
        assert!(
            [
                "join build: Join #",
                "groups: Aggregate #",
                "sort rows: Sort #"
            ]
            .iter()
            .any(|p| label.starts_with(p))
                || label.starts_with("probe rows waiting for the build: Join #"),
            "{line}"
        );
    }
    assert!(held.iter().any(|&mb| mb > 0.0), "nothing held:\n{stderr}");
    assert!(
        held.windows(2).all(|w| w[0] >= w[1]),
        "largest first:\n{stderr}"
    );
}

/// Two threads read a csv file in two ranges, the second started at the
/// first line break after the file's middle without reading up to it; here
/// that line break is inside a quoted field. The first range's reader finds
/// its last record running past the cut, and the job runs again with the
/// cut where the quote state is known: its output is the one-thread run's.
#[test]
fn a_range_started_inside_a_quoted_field_is_read_again_exactly() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-guessed-range");
    let text = "SET 'execution.runtime-mode' = 'batch';
CREATE TABLE notes (id INT, body STRING) WITH ('connector' = 'filesystem', 'path' = 'data/notes.csv', 'format' = 'csv');
CREATE TABLE copied (id INT, body STRING) WITH ('connector' = 'filesystem', 'path' = 'out/copied', 'format' = 'csv');
INSERT INTO copied SELECT id, UPPER(body) FROM notes;
";
    let package = "guessed_range";
    let _ = std::fs::remove_dir_all(&work);
    let data = work.join("data");
    std::fs::create_dir_all(&data).expect("mkdir");
    // Three records; the second's quoted field holds forty line breaks
    // around the file's middle.
    let lines = |n: usize, word: &str| vec![word; n].join("\n");
    let csv = format!(
        "1,\"{}\"\n2,\"{}\"\n3,\"{}\"\n",
        lines(10, "first"),
        lines(40, "second"),
        lines(10, "third")
    );
    std::fs::write(data.join("notes.csv"), &csv).expect("write data");
    let binary = build_job(package, text, &work);
    let run = |threads: &str| {
        let _ = std::fs::remove_dir_all(work.join("out"));
        let output = Command::new(&binary)
            .env("STMTC_THREADS", threads)
            .env("STMTC_MIN_SPLIT_BYTES", "64")
            .current_dir(&work)
            .output()
            .expect("the job runs");
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        assert!(output.status.success(), "{stderr}");
        let mut rows = Vec::new();
        for part in std::fs::read_dir(work.join("out/copied")).expect("the sink's folder") {
            let text = std::fs::read_to_string(part.expect("a part").path()).expect("a part file");
            rows.extend(text.lines().map(str::to_string));
        }
        rows.sort();
        (rows, stderr)
    };
    let (exact, quiet) = run("1");
    assert!(!quiet.contains("note:"), "{quiet}");
    assert!(
        exact.iter().filter(|l| *l == "SECOND").count() >= 38,
        "{exact:?}"
    );
    let (again, stderr) = run("2");
    assert!(
        stderr.contains("notes.csv: a parallel read started at byte ")
            && stderr.contains(", inside a quoted field; running the job again with ranges cut"),
        "{stderr}"
    );
    assert_eq!(again, exact);
}

/// Part files are named as Flink names them: `part-<uuid>-task-<n>-file-<m>`
/// in batch mode, `part-<uuid>-<n>-<m>` in streaming mode (Flink's default).
fn part_names(case: &str, sink: &str, dir: &Path, job: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(job).map_err(|e| e.to_string())?;
    let batch = text
        .lines()
        .rev()
        .find(|l| l.contains("'execution.runtime-mode'"))
        .is_some_and(|l| l.to_ascii_lowercase().contains("'batch'"));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(()); // no file sink (print), or nothing written
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        let rest = name.strip_prefix("part-").unwrap_or("");
        let (uuid, tail) = rest.split_at(rest.len().min(36));
        let numbers: Vec<&str> = tail.trim_start_matches('-').split('-').collect();
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let ok = uuid.len() == 36
            && uuid.bytes().filter(|&b| b == b'-').count() == 4
            && match numbers.as_slice() {
                ["task", n, "file", m] => batch && digits(n) && digits(m),
                [n, m] => !batch && digits(n) && digits(m),
                _ => false,
            };
        if !ok {
            return Err(format!(
                "{case}: sink {sink}: part file `{name}` is not named as Flink names it in {} mode",
                if batch { "batch" } else { "streaming" }
            ));
        }
    }
    Ok(())
}
