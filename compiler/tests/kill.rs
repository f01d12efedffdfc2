//! Atomic commit under faults: a job binary writing two sinks with INSERT
//! OVERWRITE is killed with SIGKILL at random moments, many times. After each
//! kill every sink directory must hold its complete previous content or its
//! complete new content — or the commit point was passed, and the next run
//! rolls the commit forward. A later complete run must leave exactly its own
//! output and no staging leftovers. A run that fails on bad data must leave
//! every sink untouched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use stmtc::diagnostics::SourceFile;

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

fn build(work: &Path) -> PathBuf {
    let (_, runtime_files) = stmtc::runtime_crate();
    let runtime = work.join("runtime");
    for (path, text) in &runtime_files {
        let target = runtime.join(path);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        if std::fs::read_to_string(&target).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&target, text).expect("write");
        }
    }
    let compiled = stmtc::compile(
        SourceFile::new("kill.sql", JOB),
        &stmtc::RuntimeLocation::Path(runtime.display().to_string()),
        Some("kill_job"),
    )
    .unwrap_or_else(|c| panic!("{}", c.render_diagnostics(false)));
    let crate_dir = work.join("jobs/kill_job");
    for (path, text) in &compiled.files {
        let target = crate_dir.join(path);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::write(&target, text).expect("write");
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", work.join("target"))
        .status()
        .expect("cargo");
    assert!(status.success());
    work.join("target/debug/kill_job")
}

fn run(binary: &Path, dir: &Path, rows: u32) -> std::process::Output {
    Command::new(binary)
        .args(["--quiet", "--set", &format!("gen.number-of-rows={rows}")])
        .current_dir(dir)
        .output()
        .expect("run job")
}

#[test]
fn a_killed_job_leaves_every_sink_old_or_new() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e");
    let binary = build(&work);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kill-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
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
