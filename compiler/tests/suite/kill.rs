//! Atomic commit under faults: a job binary writing two sinks with INSERT
//! OVERWRITE is killed with SIGKILL at random moments, many times. After each
//! kill every sink directory must hold its complete previous content or its
//! complete new content — or the commit point was passed, and the next run
//! rolls the commit forward. A later complete run must leave exactly its own
//! output and no staging leftovers. A run that fails on bad data must leave
//! every sink untouched.
//!
//! The same for INSERT INTO (append): after a kill, each sink holds its
//! previous part files, unchanged, plus either nothing or the complete part
//! files of the killed run — the same choice for every sink; a commit the
//! killed run passed is rolled forward by the next run, which then appends
//! its own output once more.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use stmtc::diagnostics::SourceFile;

use crate::shared_build;

const JOB: &str = "
SET 'execution.runtime-mode' = 'batch';
CREATE TABLE gen (id BIGINT, v INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '200000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10000000',
  'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '10000000');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'bad.csv', 'format' = 'csv');
CREATE TABLE evens (id BIGINT, v INT) WITH ('connector' = 'filesystem', 'path' = 'out/evens', 'format' = 'csv');
CREATE TABLE totals (n BIGINT, s BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out/totals', 'format' = 'csv');
CREATE TABLE checked (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out/checked', 'format' = 'csv');
INSERT OVERWRITE evens SELECT id, v FROM gen WHERE MOD(id, 2) = 0;
INSERT OVERWRITE totals SELECT COUNT(*), SUM(CAST(v AS BIGINT)) FROM gen;
INSERT OVERWRITE checked SELECT id FROM bad;
";

/// The visible rows of each sink directory, sorted (part file names carry a
/// fresh uuid per run, and threads share rows out among files differently).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for sink in ["evens", "totals", "checked"] {
        let mut lines = Vec::new();
        if let Ok(entries) = std::fs::read_dir(dir.join("out").join(sink)) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if !name.starts_with('.') && e.path().is_file() {
                    let text = std::fs::read_to_string(e.path()).expect("read part");
                    lines.extend(text.lines().map(str::to_string));
                }
            }
        }
        lines.sort();
        out.insert(sink.to_string(), lines);
    }
    out
}

/// A short description of a snapshot for failure messages.
fn describe(s: &BTreeMap<String, Vec<String>>) -> String {
    s.iter()
        .map(|(k, v)| format!("{k}: {} rows", v.len()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn commit_pending(dir: &Path) -> bool {
    ["evens", "totals", "checked"].iter().any(|s| {
        dir.join("out")
            .join(s)
            .join(".stmtc-staging/_COMMITTING")
            .exists()
    })
}

fn staging_left(dir: &Path) -> bool {
    ["evens", "totals", "checked"]
        .iter()
        .any(|s| dir.join("out").join(s).join(".stmtc-staging").exists())
}

/// Compiles `job` into the crate `package` and builds it (release, in the
/// target directory every test shares); returns the binary.
fn build(package: &str, job: &str) -> PathBuf {
    let runtime = shared_build::runtime_dir(stmtc::runtime_crate());
    let compiled = stmtc::compile(
        SourceFile::new(format!("{package}.sql"), job),
        &stmtc::RuntimeLocation::Path(runtime.display().to_string()),
        Some(package),
        None,
    )
    .unwrap_or_else(|c| panic!("{}", c.render_diagnostics(false)));
    shared_build::write_files(&shared_build::crate_dir(package), &compiled.files);
    shared_build::build(package).unwrap_or_else(|e| panic!("{package} does not build:\n{e}"))
}

fn run(binary: &Path, dir: &Path, rows: u32) -> std::process::Output {
    Command::new(binary)
        .args(["--quiet", "--set", &format!("gen.number-of-rows={rows}")])
        .current_dir(dir)
        .output()
        .expect("run job")
}

/// The built job binary `name` of `job`, and an empty run directory.
fn job_and_empty_dir(name: &str, job: &str, run_dir: &str) -> (PathBuf, PathBuf) {
    let binary = build(name, job);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(run_dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    (binary, dir)
}

#[test]
fn a_killed_job_leaves_every_sink_old_or_new() {
    let (binary, dir) = job_and_empty_dir("kill_job", JOB, "kill-run");
    std::fs::write(dir.join("bad.csv"), "1\n2\n").expect("write");

    // Two distinct complete outputs: A (200k rows) and B (150k rows).
    assert!(run(&binary, &dir, 200_000).status.success());
    let a = snapshot(&dir);
    let started = Instant::now();
    assert!(run(&binary, &dir, 150_000).status.success());
    let duration = started.elapsed();
    let b = snapshot(&dir);
    assert_ne!(a, b);
    assert!(!staging_left(&dir));

    // Pseudo-random kill moments over the whole run, reproducible.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let kills = 25;
    for i in 0..kills {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let at = duration.mul_f64((seed % 1000) as f64 / 800.0);
        let (before, rows) = if i % 2 == 0 {
            (b.clone(), 200_000)
        } else {
            (a.clone(), 150_000)
        };
        let (old, new) = if i % 2 == 0 { (&b, &a) } else { (&a, &b) };
        // Reset to the old content first.
        assert!(
            run(&binary, &dir, if i % 2 == 0 { 150_000 } else { 200_000 })
                .status
                .success()
        );
        let reset = snapshot(&dir);
        assert!(
            reset == before,
            "reset run: {} instead of {}",
            describe(&reset),
            describe(&before)
        );
        let mut child = Command::new(&binary)
            .args(["--quiet", "--set", &format!("gen.number-of-rows={rows}")])
            .current_dir(&dir)
            .spawn()
            .expect("spawn");
        std::thread::sleep(at.min(Duration::from_secs(5)));
        let _ = child.kill();
        let _ = child.wait();
        let now = snapshot(&dir);
        if !commit_pending(&dir) {
            for (sink, files) in &now {
                assert!(
                    *files == old[sink] || *files == new[sink],
                    "kill {i} after {at:?}: sink {sink} holds {} rows, neither its old ({}) nor its new ({}) content",
                    files.len(),
                    old[sink].len(),
                    new[sink].len()
                );
            }
        }
    }
    // A complete run recovers whatever was left and writes exactly its output.
    assert!(run(&binary, &dir, 150_000).status.success());
    let end = snapshot(&dir);
    assert!(
        end == b,
        "after recovery: {} instead of {}",
        describe(&end),
        describe(&b)
    );
    assert!(
        !staging_left(&dir),
        "staging files left after a complete run"
    );

    // A bad row in one source fails the job and leaves every sink untouched.
    std::fs::write(dir.join("bad.csv"), "1\nnot a number\n").expect("write");
    let out = run(&binary, &dir, 200_000);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv:2: column 'id': cannot parse 'not a number' as BIGINT"),
        "{err}"
    );
    let after = snapshot(&dir);
    assert!(
        after == end,
        "a failed job changed the sinks: {}",
        describe(&after)
    );
    assert!(!staging_left(&dir));
}

// ---------------------------------------------------------------------------
// INSERT INTO: appends
// ---------------------------------------------------------------------------

const APPEND_JOB: &str = "
SET 'execution.runtime-mode' = 'batch';
CREATE TABLE gen (id BIGINT, v INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '150000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10000000',
  'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '10000000');
CREATE TABLE log (id BIGINT, v INT) WITH ('connector' = 'filesystem', 'path' = 'out/log', 'format' = 'csv');
CREATE TABLE odds (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out/odds', 'format' = 'csv');
INSERT INTO log SELECT id, v FROM gen;
INSERT INTO odds SELECT id FROM gen WHERE MOD(id, 2) = 1;
";

const APPEND_SINKS: [&str; 2] = ["log", "odds"];

/// The visible part files of a sink: name -> content.
fn part_files(dir: &Path, sink: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(dir.join("out").join(sink)) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if !name.starts_with('.') && e.path().is_file() {
                out.insert(name, std::fs::read_to_string(e.path()).expect("read part"));
            }
        }
    }
    out
}

/// How many whole copies of `one_run` (the rows of one complete run) the
/// files hold, or a description of why they are not whole copies.
fn whole_runs(
    files: &BTreeMap<String, String>,
    one_run: &HashMap<String, usize>,
) -> Result<usize, String> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for text in files.values() {
        if !text.is_empty() && !text.ends_with('\n') {
            return Err("a part file ends in the middle of a row".to_string());
        }
        for line in text.lines() {
            *counts.entry(line).or_default() += 1;
        }
    }
    let total: usize = counts.values().sum();
    let per_run: usize = one_run.values().sum();
    if !total.is_multiple_of(per_run) {
        return Err(format!("{total} rows, not a multiple of {per_run}"));
    }
    let runs = total / per_run;
    for (row, &n) in &counts {
        if one_run.get(*row).map(|k| k * runs) != Some(n) {
            return Err(format!(
                "row {row:?} appears {n} times in {runs} runs' worth of rows"
            ));
        }
    }
    Ok(runs)
}

fn append_staging_left(dir: &Path) -> bool {
    APPEND_SINKS
        .iter()
        .any(|s| dir.join("out").join(s).join(".stmtc-staging").exists())
}

fn append_commit_pending(dir: &Path) -> bool {
    APPEND_SINKS.iter().any(|s| {
        dir.join("out")
            .join(s)
            .join(".stmtc-staging/_COMMITTING")
            .exists()
    })
}

#[test]
fn a_killed_append_job_adds_whole_runs_or_nothing() {
    let (binary, dir) = job_and_empty_dir("kill_append_job", APPEND_JOB, "kill-append-run");
    let run = |dir: &Path| {
        let out = Command::new(&binary)
            .arg("--quiet")
            .current_dir(dir)
            .output()
            .expect("run job");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };

    // One complete run into empty sinks: the rows each run appends.
    let started = Instant::now();
    run(&dir);
    let duration = started.elapsed();
    let one_run: Vec<HashMap<String, usize>> = APPEND_SINKS
        .iter()
        .map(|sink| {
            let mut rows = HashMap::new();
            for text in part_files(&dir, sink).values() {
                for line in text.lines() {
                    *rows.entry(line.to_string()).or_default() += 1;
                }
            }
            rows
        })
        .collect();
    assert!(one_run.iter().all(|r| !r.is_empty()));
    let runs_in = |dir: &Path, k: usize| whole_runs(&part_files(dir, APPEND_SINKS[k]), &one_run[k]);
    let mut runs = 1;

    // Kills that left (nothing new, the new run, a pending commit).
    let mut outcomes = [0; 3];
    let mut seed: u64 = 0xD1B5_4A32_D192_ED03;
    for i in 0..12 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let at = duration.mul_f64((seed % 1000) as f64 / 800.0);
        // Keep the sinks small: start over now and then (from one whole run).
        if runs >= 4 {
            std::fs::remove_dir_all(dir.join("out")).expect("reset");
            run(&dir);
            runs = 1;
        }
        let before: Vec<BTreeMap<String, String>> =
            APPEND_SINKS.iter().map(|s| part_files(&dir, s)).collect();
        let mut child = Command::new(&binary)
            .arg("--quiet")
            .current_dir(&dir)
            .spawn()
            .expect("spawn");
        std::thread::sleep(at.min(Duration::from_secs(5)));
        let _ = child.kill();
        let _ = child.wait();
        let after_kill = if append_commit_pending(&dir) {
            // Past the commit point: the next run rolls it forward.
            outcomes[2] += 1;
            runs + 1
        } else {
            let mut seen = Vec::new();
            for (k, sink) in APPEND_SINKS.iter().enumerate() {
                let now = part_files(&dir, sink);
                for (name, text) in &before[k] {
                    assert!(
                        now.get(name) == Some(text),
                        "kill {i} after {at:?}: sink {sink} lost or changed its part file {name}"
                    );
                }
                let n = runs_in(&dir, k)
                    .unwrap_or_else(|e| panic!("kill {i} after {at:?}: sink {sink}: {e}"));
                assert!(
                    n == runs || n == runs + 1,
                    "kill {i} after {at:?}: sink {sink} holds {n} runs, not {runs} or {}",
                    runs + 1
                );
                seen.push(n);
            }
            assert!(
                seen.iter().all(|&n| n == seen[0]),
                "kill {i} after {at:?}: the sinks disagree on whether the run committed: {seen:?}"
            );
            outcomes[seen[0] - runs] += 1;
            seen[0]
        };
        // The next complete run recovers and appends exactly once.
        run(&dir);
        runs = after_kill + 1;
        for (k, sink) in APPEND_SINKS.iter().enumerate() {
            assert_eq!(
                runs_in(&dir, k),
                Ok(runs),
                "after kill {i} and a complete run: sink {sink}"
            );
        }
        assert!(
            !append_staging_left(&dir),
            "staging files left after a complete run"
        );
    }
    eprintln!(
        "append kills: {} before the commit, {} after it, {} during it (a run takes {duration:?})",
        outcomes[0], outcomes[1], outcomes[2]
    );
}

/// A job that sorts more rows than its budget holds, spilling runs as it reads.
const SPILLING_JOB: &str = "
SET 'execution.runtime-mode' = 'batch';
SET 'stmtc.memory-budget' = '2mb';
CREATE TABLE gen (id BIGINT, v INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '1000000000000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000000',
  'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '1000000000');
CREATE TABLE sorted (id BIGINT, v INT) WITH ('connector' = 'filesystem', 'path' = 'out/sorted', 'format' = 'csv');
INSERT OVERWRITE sorted SELECT id, v FROM gen ORDER BY v DESC, id;
";

/// Only against a job that never spills (a hang): a loaded 2-core machine
/// may be slow, never this slow. Not a measure of speed.
const SPILL_HANG_GUARD: Duration = Duration::from_secs(600);

/// Files below `dir`, recursively.
fn files_below(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            if e.path().is_dir() {
                files_below(&e.path())
            } else {
                1
            }
        })
        .sum()
}

/// SIGTERM or SIGINT to a job that has spilled: the job removes its spill
/// folder before it dies of the signal (a killed job's folder waited for
/// the next run, and could hold gigabytes), and its sink is untouched.
#[test]
fn a_stopped_job_removes_its_spill_folder() {
    use std::os::unix::process::ExitStatusExt;
    let (binary, dir) = job_and_empty_dir("spilling_job", SPILLING_JOB, "stop-run");
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let spill = dir.join(format!("spill-{signal}"));
        std::fs::create_dir_all(&spill).expect("mkdir");
        let mut child = Command::new(&binary)
            .arg("--quiet")
            .env("STMTC_SPILL_DIR", &spill)
            .current_dir(&dir)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start the job");
        let started = Instant::now();
        while files_below(&spill) < 3 {
            if started.elapsed() > SPILL_HANG_GUARD {
                let _ = child.kill();
                panic!("hang guard: the job spilled nothing in {SPILL_HANG_GUARD:?}");
            }
            assert!(child.try_wait().expect("poll").is_none(), "the job ended");
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: a plain kill(2) of our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let out = child.wait_with_output().expect("wait");
        assert_eq!(
            out.status.signal(),
            Some(signal),
            "{:?}, stderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let left: Vec<_> = std::fs::read_dir(&spill).expect("read").flatten().collect();
        assert!(left.is_empty(), "left in the spill folder: {left:?}");
        let visible = std::fs::read_dir(dir.join("out/sorted"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .count();
        assert_eq!(visible, 0, "the sink changed");
    }
}
