//! Robustness of `stmtc check` / `stmtc explain` / `stmtc compile` on hostile
//! input: never a panic, a hang or a stack overflow, every rejection located,
//! and every generated `main.rs` valid Rust.
//!
//! - random jobs from a seeded generator (grammar-shaped Flink SQL with
//!   hostile names, literals and types) and mutations of the fixture jobs,
//!   each held to the oracle in `compiler/fuzz/src/oracle.rs`;
//! - resource limits: thousands of columns or INSERTs, 10k-level nesting,
//!   10 MB files, very long names and literals — each case runs in a child
//!   process (this test binary, re-run) so that a stack overflow or a hang is
//!   reported as a failure of that case instead of killing the whole run;
//! - every crasher kept in `compiler/tests/fuzz_regressions/`.
//!
//! The long fuzz run lives in `compiler/fuzz/` (see docs/robustness.md).
//! `STMTC_ROBUSTNESS_CASES=N` changes the number of random cases.

#[path = "../fuzz/src/generator.rs"]
mod generator;
#[path = "../fuzz/src/oracle.rs"]
mod oracle;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use generator::{Rng, Shape};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions")
}

// ---------------------------------------------------------------------------
// Running one case in a child process
// ---------------------------------------------------------------------------

/// The verdict on one case run in a child process (read through `Debug`).
#[derive(Debug)]
#[allow(dead_code)]
enum Verdict {
    /// The oracle's outcome (`Accepted` / `Rejected`) and the time taken.
    Fine(String, Duration),
    /// The oracle found a broken rule.
    Finding(String),
    /// The child died: stack overflow, abort.
    Died(String),
    /// The child did not finish in time.
    TimedOut(Duration),
}

/// Environment of the child: the case file and the stack size of the thread
/// that runs it.
const CHILD_CASE: &str = "STMTC_ROBUSTNESS_CHILD_CASE";
const CHILD_STACK: &str = "STMTC_ROBUSTNESS_CHILD_STACK_MB";
/// Set: one `explain` instead of one per format (for big inputs).
const CHILD_LIGHT: &str = "STMTC_ROBUSTNESS_CHILD_LIGHT";

/// Not a test of its own: the entry point of the child process that runs one
/// case (see [`run_isolated`]). Without the environment it does nothing.
#[test]
fn child_entry_point() {
    let Ok(path) = std::env::var(CHILD_CASE) else {
        return;
    };
    let light = std::env::var(CHILD_LIGHT).is_ok();
    let stack_mb: usize = std::env::var(CHILD_STACK)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let text = String::from_utf8_lossy(&std::fs::read(&path).expect("read case")).into_owned();
    let result = std::thread::Builder::new()
        .stack_size(stack_mb << 20)
        .spawn(move || {
            let t0 = Instant::now();
            let r = if light {
                oracle::run_case_light(&text)
            } else {
                oracle::run_case(&text)
            };
            (r, t0.elapsed())
        })
        .expect("spawn")
        .join()
        .expect("join");
    match result {
        (Ok(outcome), took) => println!("VERDICT fine {outcome:?} {}", took.as_micros()),
        (Err(f), _) => println!("VERDICT finding {}", f.to_string().replace('\n', "\\n")),
    }
}

/// Runs the oracle on `text` in a child process whose checking thread has
/// `stack_mb` MB of stack, killing it after `limit`.
fn run_isolated(name: &str, text: &str, stack_mb: usize, limit: Duration) -> Verdict {
    run_isolated_with(name, text, stack_mb, limit, false)
}

fn run_isolated_with(
    name: &str,
    text: &str,
    stack_mb: usize,
    limit: Duration,
    light: bool,
) -> Verdict {
    let dir = std::env::temp_dir().join(format!("stmtc-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.sql"));
    std::fs::write(&path, text).expect("write case");
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "child_entry_point",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_CASE, &path)
        .env(CHILD_STACK, stack_mb.to_string())
        .env(
            if light {
                CHILD_LIGHT
            } else {
                "STMTC_ROBUSTNESS_UNUSED"
            },
            "1",
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn child");
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait child") {
            break status;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&path);
            return Verdict::TimedOut(t0.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = std::fs::remove_file(&path);
    let output = child.wait_with_output().expect("child output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The harness prints `test child_entry_point ... ` before the verdict.
    let verdict = stdout
        .lines()
        .find_map(|l| l.find("VERDICT ").map(|i| &l[i + "VERDICT ".len()..]));
    match (status.success(), verdict) {
        (true, Some(v)) => {
            if let Some(rest) = v.strip_prefix("fine ") {
                let (outcome, micros) = rest.split_once(' ').unwrap_or((rest, "0"));
                Verdict::Fine(
                    outcome.to_string(),
                    Duration::from_micros(micros.parse().unwrap_or(0)),
                )
            } else {
                Verdict::Finding(v.trim_start_matches("finding ").replace("\\n", "\n"))
            }
        }
        _ => {
            let last: Vec<&str> = stderr.lines().rev().take(3).collect();
            Verdict::Died(format!(
                "{status}: {}",
                last.into_iter().rev().collect::<Vec<_>>().join(" | ")
            ))
        }
    }
}

/// A debug build is several times slower than the release CLI: limits are
/// scaled so that "a few seconds" in release is what is asserted.
fn time_limit(release_seconds: u64) -> Duration {
    let factor = if cfg!(debug_assertions) { 6 } else { 1 };
    Duration::from_secs(release_seconds * factor)
}

// ---------------------------------------------------------------------------
// Random cases
// ---------------------------------------------------------------------------

fn random_case_count() -> u64 {
    std::env::var("STMTC_ROBUSTNESS_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 300 } else { 3000 })
}

/// Runs `cases` in-process (they are small), each under the oracle, on a
/// thread with an 8 MB stack; fails with every broken rule and its input.
fn hold_the_rules(what: &str, cases: impl Iterator<Item = (String, String)>) {
    let cases: Vec<(String, String)> = cases.collect();
    let total = cases.len();
    let handle = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let mut failures = Vec::new();
            let mut accepted = 0;
            let mut slowest = (Duration::ZERO, String::new());
            for (name, text) in cases {
                let t0 = Instant::now();
                match oracle::run_case(&text) {
                    Ok(oracle::Outcome::Accepted) => accepted += 1,
                    Ok(oracle::Outcome::Rejected) => {}
                    Err(f) => failures.push(format!("{name}: {f}\n--- input ---\n{text}\n---")),
                }
                let took = t0.elapsed();
                if took > slowest.0 {
                    slowest = (took, name);
                }
            }
            (failures, accepted, slowest)
        })
        .expect("spawn");
    let (failures, accepted, slowest) = handle.join().expect("a case overflowed or panicked");
    eprintln!(
        "{what}: {total} cases, {accepted} accepted, explained and compiled, slowest {} ({:?})",
        slowest.1, slowest.0
    );
    assert!(
        failures.is_empty(),
        "{} of {total} {what} broke a rule:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        slowest.0 < time_limit(2),
        "{what}: {} took {:?}",
        slowest.1,
        slowest.0
    );
}

fn fixtures() -> Vec<(String, String)> {
    oracle::fixture_jobs(&workspace().join("fixtures"))
}

#[test]
fn fixtures_hold_the_rules() {
    hold_the_rules("fixtures", fixtures().into_iter());
}

#[test]
fn generated_jobs_hold_the_rules() {
    let n = random_case_count();
    hold_the_rules(
        "generated jobs",
        (0..n).map(|seed| {
            let mut rng = Rng::seeded(seed);
            // a third clean, the rest increasingly hostile
            let chaos = [0, 0, 5, 15, 40][seed as usize % 5];
            (
                format!("job seed {seed} chaos {chaos}"),
                generator::job(&mut rng, chaos),
            )
        }),
    );
}

#[test]
fn mutated_fixtures_hold_the_rules() {
    let fixtures = fixtures();
    let donors: Vec<&str> = fixtures.iter().map(|(_, t)| t.as_str()).collect();
    let per_fixture = (random_case_count() / fixtures.len().max(1) as u64).max(2);
    let mut cases = Vec::new();
    for (i, (name, text)) in fixtures.iter().enumerate() {
        for k in 0..per_fixture {
            let seed = (i as u64) << 32 | k;
            let mut rng = Rng::seeded(seed);
            cases.push((
                format!("{name} mutation {k} (seed {seed})"),
                generator::mutate(&mut rng, text, &donors),
            ));
        }
    }
    hold_the_rules("mutated fixtures", cases.into_iter());
}

#[test]
fn the_case_mix_of_the_long_fuzz_holds_the_rules() {
    let fixtures = fixtures();
    let donors: Vec<&str> = fixtures.iter().map(|(_, t)| t.as_str()).collect();
    let n = random_case_count() / 2;
    let cases: Vec<(String, String)> = (0..n)
        .map(|i| {
            let mut rng = Rng::seeded(0xF022 ^ i);
            (
                format!("mix case {i}"),
                oracle::any_case(&mut rng, &donors, 40),
            )
        })
        .collect();
    hold_the_rules("mixed cases", cases.into_iter());
}

#[test]
fn empty_and_trivial_files_hold_the_rules() {
    let cases = [
        "", " ", "\n", ";", ";;;", "--", "/*", "*/", "`", "'", "\"", "\0", "\u{FEFF}", "é",
        "BEGIN", "END;", "EXECUTE", "EXECUTE STATEMENT SET BEGIN END;", "BEGIN STATEMENT SET; END;",
        "SET", "SET 'a'", "SET 'a' =", "CREATE", "CREATE TABLE", "CREATE TABLE t", "CREATE TABLE t (",
        "CREATE TABLE t ()", "CREATE TABLE t (a INT)", "CREATE TABLE t (a INT) WITH ()",
        "CREATE VIEW v AS", "CREATE VIEW v AS SELECT", "INSERT", "INSERT INTO", "INSERT INTO s",
        "INSERT INTO s SELECT", "INSERT INTO s SELECT 1", "INSERT INTO s VALUES", "SELECT 1",
        "CREATE TABLE `` (`` INT) WITH ('connector' = 'blackhole'); INSERT INTO `` SELECT 1;",
        "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole'); INSERT INTO t SELECT 1; INSERT INTO t SELECT 2;",
    ];
    hold_the_rules(
        "trivial files",
        cases.iter().map(|c| (format!("{c:?}"), c.to_string())),
    );
}

// ---------------------------------------------------------------------------
// Resource limits
// ---------------------------------------------------------------------------

/// Runs one resource shape in a child process with a time limit, and returns
/// the failures. Nesting shapes run with 2 MB of stack (a test or worker
/// thread) and 8 MB (the CLI's main thread); size shapes with 8 MB and one
/// `explain`.
fn resource_failures(shape: Shape, n: usize, seconds: u64) -> Vec<String> {
    use Shape::*;
    let text = generator::resource(shape, n);
    let size_only = matches!(
        shape,
        LongIdentifier | LongString | LongNumber | Comments | BigFile
    );
    let stacks: &[usize] = if size_only { &[8] } else { &[2, 8] };
    let mut failures = Vec::new();
    for &stack_mb in stacks {
        let name = format!("{shape:?}-{n}-{stack_mb}mb");
        match run_isolated_with(&name, &text, stack_mb, time_limit(seconds), size_only) {
            Verdict::Fine(outcome, took) => {
                eprintln!(
                    "{shape:?} x{n} ({} bytes, {stack_mb} MB stack): {outcome} in {took:?}",
                    text.len()
                );
            }
            v => failures.push(format!("{shape:?} x{n} ({stack_mb} MB stack): {v:?}")),
        }
    }
    failures
}

/// Every shape and size the robustness tests promise (see docs/robustness.md).
fn resource_cases() -> Vec<(Shape, usize, u64)> {
    use Shape::*;
    vec![
        // 10k-level nesting
        (Parens, 10_000, 5),
        (UnclosedParens, 10_000, 5),
        (UnaryMinus, 10_000, 5),
        (NotChain, 10_000, 5),
        (NestedCase, 10_000, 5),
        (NestedCalls, 10_000, 5),
        (NestedCasts, 10_000, 5),
        (MixedNesting, 10_000, 5),
        (NestedSubqueries, 10_000, 5),
        (PlusChain, 10_000, 5),
        (AndChain, 10_000, 5),
        (ConcatChain, 10_000, 5),
        (UnionChain, 10_000, 5),
        (PlusChain, 1_000, 5),
        (ConcatChain, 1_000, 5),
        // thousands of columns, inserts, items
        (WideTable, 5_000, 5),
        (ManyInserts, 2_000, 5),
        (ManySelectItems, 5_000, 5),
        (ManyOptions, 5_000, 5),
        (ViewChain, 1_000, 5),
        (JoinChain, 500, 5),
        (WideCase, 10_000, 5),
        (LongInList, 10_000, 5),
        (ManyArgs, 10_000, 5),
        (ManyValuesRows, 10_000, 5),
        // long names and literals
        (LongIdentifier, 1_000_000, 5),
        (LongNumber, 100_000, 5),
        // 10 MB files: comments, one string literal, 120k INSERTs
        (Comments, 750_000, 5),
        (LongString, 10_000_000, 5),
        (BigFile, 10 << 20, 10),
    ]
}

#[test]
fn resource_limits_are_handled() {
    let mut failures = Vec::new();
    for (shape, n, seconds) in resource_cases() {
        failures.extend(resource_failures(shape, n, seconds));
    }
    assert!(
        failures.is_empty(),
        "{} resource cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `explain --detail cost` sizes filesystem sources by walking their path;
/// a directory with symlinks to itself must not make that walk endless.
#[test]
fn cost_estimates_survive_symlink_loops() {
    let dir = std::env::temp_dir().join(format!("stmtc-robustness-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("part-0.csv"), "1\n").expect("data");
    for link in ["a", "b"] {
        let _ = std::os::unix::fs::symlink(".", dir.join(link));
    }
    let job = format!(
        "CREATE TABLE src (a INT) WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv');\n\
         CREATE TABLE s (a INT) WITH ('connector' = 'blackhole');\n\
         INSERT INTO s SELECT a FROM src;\n",
        dir.display()
    );
    let verdict = run_isolated("symlink-loop", &job, 8, time_limit(5));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(matches!(verdict, Verdict::Fine(..)), "{verdict:?}");
}

// ---------------------------------------------------------------------------
// Regressions
// ---------------------------------------------------------------------------

fn regression_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(regressions_dir())
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "sql"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn fuzz_regressions_hold_the_rules() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in regression_files() {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        ran += 1;
        let text = String::from_utf8_lossy(&std::fs::read(&path).expect("read")).into_owned();
        for stack_mb in [2, 8] {
            match run_isolated(&name, &text, stack_mb, time_limit(5)) {
                Verdict::Fine(..) => {}
                v => failures.push(format!("{name} ({stack_mb} MB stack): {v:?}")),
            }
        }
    }
    eprintln!("{ran} regression files");
    assert!(
        failures.is_empty(),
        "{} regression runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
