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
//!   operator chains run at 1,000 and 10,000 terms, and the bytes the
//!   compiler allocates must grow linearly between them;
//! - every crasher kept in `compiler/tests/fuzz_regressions/`.
//!
//! No case is timed: a test must pass on a loaded machine, so time is only a
//! hang guard ([`HANG_GUARD`], minutes), and cost is measured as work — the
//! bytes allocated, counted by this binary's global allocator.
//!
//! The long fuzz run lives in `compiler/fuzz/` (see docs/robustness.md).
//! `STMTC_ROBUSTNESS_CASES=N` changes the number of random cases.

use crate::generator;
use crate::oracle;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use generator::{Rng, Shape};

/// A child that runs this long is hung (or so slow that it is a bug anyway);
/// no test asserts anything shorter about time.
const HANG_GUARD: Duration = Duration::from_secs(600);

/// Counts the bytes this process allocates: the work measure of a case.
struct CountingAllocator;

static ALLOCATED: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded to `System` unchanged; the counter is a
// side effect only.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(
            new_size.saturating_sub(layout.size()) as u64,
            Ordering::Relaxed,
        );
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

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
    /// The oracle's outcome (`Accepted` / `Rejected`), the bytes the case
    /// allocated and the time it took (reported, never asserted).
    Fine(String, u64, Duration),
    /// The oracle found a broken rule.
    Finding(String),
    /// The child died: stack overflow, abort.
    Died(String),
    /// The child ran past [`HANG_GUARD`].
    Hung(Duration),
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
            let before = ALLOCATED.load(Ordering::Relaxed);
            let r = if light {
                oracle::run_case_light(&text)
            } else {
                oracle::run_case(&text)
            };
            (r, ALLOCATED.load(Ordering::Relaxed) - before, t0.elapsed())
        })
        .expect("spawn")
        .join()
        .expect("join");
    match result {
        (Ok(outcome), bytes, took) => {
            println!("VERDICT fine {outcome:?} {bytes} {}", took.as_micros())
        }
        (Err(f), ..) => println!("VERDICT finding {}", f.to_string().replace('\n', "\\n")),
    }
}

/// Runs the oracle on `text` in a child process whose checking thread has
/// `stack_mb` MB of stack, killing it after [`HANG_GUARD`].
fn run_isolated(name: &str, text: &str, stack_mb: usize) -> Verdict {
    run_isolated_with(name, text, stack_mb, false)
}

fn run_isolated_with(name: &str, text: &str, stack_mb: usize, light: bool) -> Verdict {
    let dir = std::env::temp_dir().join(format!("stmtc-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.sql"));
    std::fs::write(&path, text).expect("write case");
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "robustness::child_entry_point",
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
        if t0.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&path);
            return Verdict::Hung(t0.elapsed());
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
                let mut fields = rest.split(' ');
                let outcome = fields.next().unwrap_or_default().to_string();
                let mut number = || fields.next().and_then(|f| f.trim().parse().ok());
                let bytes = number().expect("the child reports its allocated bytes");
                Verdict::Fine(outcome, bytes, Duration::from_micros(number().unwrap_or(0)))
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
/// thread with an 8 MB stack; fails with every broken rule and its input, or
/// names the case that ran past [`HANG_GUARD`].
fn hold_the_rules(what: &str, cases: impl Iterator<Item = (String, String)>) {
    let cases: Vec<(String, String)> = cases.collect();
    let total = cases.len();
    let (started, progress) = std::sync::mpsc::channel::<String>();
    let handle = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let mut failures = Vec::new();
            let mut accepted = 0;
            let mut slowest = (Duration::ZERO, String::new());
            for (name, text) in cases {
                let _ = started.send(name.clone());
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
    // The hang guard: each case must start within HANG_GUARD of the last.
    let mut current = String::from("(none yet)");
    loop {
        match progress.recv_timeout(HANG_GUARD) {
            Ok(name) => current = name,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                panic!("{what}: {current} still runs after {HANG_GUARD:?}")
            }
        }
    }
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

/// Runs one resource shape in a child process, and returns the bytes it
/// allocated, or the failures. Nesting shapes run with 2 MB of stack (a test
/// or worker thread), size shapes with 8 MB (the CLI's main thread) and one
/// `explain`. stmtc moves its work onto a thread of its own with a 1 GiB
/// stack, so a case that passes on 2 MB passes on every larger stack: one
/// run each is enough.
fn resource_run(shape: Shape, n: usize) -> Result<u64, Vec<String>> {
    use Shape::*;
    let text = generator::resource(shape, n);
    let size_only = matches!(
        shape,
        LongIdentifier | LongString | LongNumber | Comments | BigFile
    );
    let stacks: &[usize] = if size_only { &[8] } else { &[2] };
    let mut failures = Vec::new();
    let mut allocated = 0;
    for &stack_mb in stacks {
        let name = format!("{shape:?}-{n}-{stack_mb}mb");
        match run_isolated_with(&name, &text, stack_mb, size_only) {
            Verdict::Fine(outcome, bytes, took) => {
                eprintln!(
                    "{shape:?} x{n} ({} bytes, {stack_mb} MB stack): {outcome}, {} MB allocated, in {took:?}",
                    text.len(),
                    bytes >> 20
                );
                allocated = allocated.max(bytes);
            }
            v => failures.push(format!("{shape:?} x{n} ({stack_mb} MB stack): {v:?}")),
        }
    }
    if failures.is_empty() {
        Ok(allocated)
    } else {
        Err(failures)
    }
}

/// Every shape and size the robustness tests promise (see docs/robustness.md).
fn resource_cases() -> Vec<(Shape, usize)> {
    use Shape::*;
    vec![
        // 10k-level nesting
        (Parens, 10_000),
        (UnclosedParens, 10_000),
        (UnaryMinus, 10_000),
        (NotChain, 10_000),
        (NestedCase, 10_000),
        (NestedCalls, 10_000),
        (NestedCasts, 10_000),
        (MixedNesting, 10_000),
        (NestedSubqueries, 10_000),
        (UnionChain, 10_000),
        // thousands of columns, inserts, items
        (WideTable, 5_000),
        (ManyInserts, 2_000),
        (ManySelectItems, 5_000),
        (ManyOptions, 5_000),
        (ViewChain, 1_000),
        (JoinChain, 500),
        (WideCase, 10_000),
        (LongInList, 10_000),
        (ManyArgs, 10_000),
        (ManyValuesRows, 10_000),
        // long names and literals
        (LongIdentifier, 1_000_000),
        (LongNumber, 100_000),
        // 10 MB files: comments, one string literal, 120k INSERTs
        (Comments, 750_000),
        (LongString, 10_000_000),
        (BigFile, 10 << 20),
    ]
}

/// Operator chains, run at 1,000 and at 10,000 terms (see [`linear_growth`]).
const CHAINS: [Shape; 3] = [Shape::PlusChain, Shape::AndChain, Shape::ConcatChain];

/// Ten times the terms may cost at most this many times the bytes: linear
/// work gives under 10 (a fixed part is shared), a quadratic step ~100.
const MAX_GROWTH_FOR_10X: u64 = 20;

/// Whether ten times the terms allocated at most [`MAX_GROWTH_FOR_10X`]
/// times the bytes; the message says by how much otherwise.
fn linear_growth(shape: Shape, small: u64, large: u64) -> Result<(), String> {
    if large <= small.max(1) * MAX_GROWTH_FOR_10X {
        Ok(())
    } else {
        Err(format!(
            "{shape:?}: 10x the terms allocated {}x the bytes ({small} -> {large}): superlinear",
            large / small.max(1)
        ))
    }
}

/// Runs `jobs` on two threads, each job one child process at a time: the
/// cases are independent, and this is the suite's longest test. Results
/// come back in the order of `jobs`.
fn in_parallel<T: Send>(jobs: Vec<Box<dyn FnOnce() -> T + Send + '_>>) -> Vec<T> {
    let queue = std::sync::Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let next = queue.lock().expect("queue").pop();
                let Some((i, job)) = next else { break };
                let result = job();
                results.lock().expect("results").push((i, result));
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn resource_limits_are_handled() {
    type Job<'a> = Box<dyn FnOnce() -> Vec<String> + Send + 'a>;
    let mut jobs: Vec<Job> = Vec::new();
    for (shape, n) in resource_cases() {
        jobs.push(Box::new(move || {
            resource_run(shape, n).err().unwrap_or_default()
        }));
    }
    for shape in CHAINS {
        jobs.push(Box::new(move || {
            match (resource_run(shape, 1_000), resource_run(shape, 10_000)) {
                (Ok(small), Ok(large)) => linear_growth(shape, small, large)
                    .err()
                    .into_iter()
                    .collect(),
                (small, large) => {
                    let mut failures = small.err().unwrap_or_default();
                    failures.extend(large.err().unwrap_or_default());
                    failures
                }
            }
        }));
    }
    let failures: Vec<String> = in_parallel(jobs).into_iter().flatten().collect();
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
    let verdict = run_isolated("symlink-loop", &job, 8);
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
    type Job = Box<dyn FnOnce() -> Option<String> + Send>;
    let mut jobs: Vec<Job> = Vec::new();
    let files = regression_files();
    for path in &files {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = String::from_utf8_lossy(&std::fs::read(path).expect("read")).into_owned();
        // 2 MB: the smallest stack a caller may have (see `resource_run`).
        jobs.push(Box::new(move || match run_isolated(&name, &text, 2) {
            Verdict::Fine(..) => None,
            v => Some(format!("{name} (2 MB stack): {v:?}")),
        }));
    }
    let failures: Vec<String> = in_parallel(jobs).into_iter().flatten().collect();
    eprintln!("{} regression files", files.len());
    assert!(
        failures.is_empty(),
        "{} regression runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
