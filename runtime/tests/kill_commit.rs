//! Staging and commit under a killed process: the test binary re-runs itself
//! as a child job (selected by `STMTC_CHILD_MODE`), which is killed mid-write
//! or crashes right after the commit point; every sink must then hold either
//! its old content or — after the next run's recovery — its complete new one.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use stmtc_runtime::sink::commit::{Job, SinkTarget, WriteMode, STAGING_DIR};
use stmtc_runtime::sink::format::{CsvFormat, RowFormat};

fn targets(root: &Path) -> Vec<SinkTarget> {
    vec![
        SinkTarget {
            path: root.join("eu"),
            mode: WriteMode::Overwrite,
        },
        SinkTarget {
            path: root.join("us"),
            mode: WriteMode::Append,
        },
    ]
}

/// Writes `rows` rows with value `tag` into every sink; `forever` keeps writing.
fn write_job(root: &Path, tag: i64, rows: u64, forever: bool) {
    let job = Job::begin(&targets(root)).unwrap();
    let mut writers: Vec<_> = (0..2)
        .map(|s| job.part_writer(s, 0, 0, CsvFormat::default()))
        .collect();
    let started = Instant::now();
    let mut i = 0u64;
    while i < rows || (forever && started.elapsed() < Duration::from_secs(30)) {
        for w in writers.iter_mut() {
            w.write_row(|f, out| {
                f.field(out, &tag);
                f.field(out, &"padding padding padding padding");
            })
            .unwrap();
        }
        i += 1;
        if i == 200_000 {
            fs::write(root.join("child-ready"), "").unwrap();
        }
    }
    for w in writers {
        w.finish().unwrap();
    }
    job.commit().unwrap();
}

/// Visible content of a sink: sorted lines of all visible files.
fn content(dir: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        lines.extend(fs::read_to_string(&p).unwrap().lines().map(String::from));
    }
    lines.sort();
    lines
}

fn spawn_child(root: &Path, mode: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_job", "--nocapture", "--test-threads=1"])
        .env("STMTC_CHILD_MODE", mode)
        .env("STMTC_CHILD_ROOT", root)
        .env_remove("STMTC_TEST_CRASH_AFTER_COMMIT_POINT")
        .spawn()
        .unwrap()
}

/// The child side: does nothing unless started by the tests below.
#[test]
fn child_job() {
    let (Ok(mode), Some(root)) = (
        std::env::var("STMTC_CHILD_MODE"),
        std::env::var_os("STMTC_CHILD_ROOT"),
    ) else {
        return;
    };
    let root = PathBuf::from(root);
    match mode.as_str() {
        "forever" => write_job(&root, 2, 0, true),
        "crash-after-commit-point" => {
            std::env::set_var("STMTC_TEST_CRASH_AFTER_COMMIT_POINT", "1");
            write_job(&root, 3, 1000, false)
        }
        _ => {}
    }
}

#[test]
fn killed_job_leaves_previous_content_and_committed_job_rolls_forward() {
    let root = std::env::temp_dir().join(format!("stmtc-kill-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).unwrap();
    write_job(&root, 1, 10, false);
    let before: Vec<_> = targets(&root).iter().map(|t| content(&t.path)).collect();
    assert_eq!(before[0].len(), 10);

    // 1. Killed mid-write: visible content unchanged, staging cleaned next run.
    let mut child = spawn_child(&root, "forever");
    let t0 = Instant::now();
    while !root.join("child-ready").exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "child never got going"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    for (t, old) in targets(&root).iter().zip(&before) {
        assert_eq!(&content(&t.path), old);
        assert!(
            t.path.join(STAGING_DIR).exists(),
            "the killed job left its staging dir"
        );
    }
    Job::begin(&targets(&root)).unwrap().abort();
    for (t, old) in targets(&root).iter().zip(&before) {
        assert_eq!(&content(&t.path), old);
        assert!(!t.path.join(STAGING_DIR).exists());
    }

    // 2. Crash right after the commit point: the next run completes the commit.
    let status = spawn_child(&root, "crash-after-commit-point")
        .wait()
        .unwrap();
    assert!(!status.success());
    assert!(root
        .join("eu")
        .join(STAGING_DIR)
        .join("_COMMITTING")
        .exists());
    Job::begin(&targets(&root)).unwrap().abort();
    let eu = content(&root.join("eu"));
    assert_eq!(eu.len(), 1000, "overwrite replaced the old rows");
    assert!(eu.iter().all(|l| l.starts_with("3,")));
    let us = content(&root.join("us"));
    assert_eq!(us.len(), 1010, "append kept the old rows");
    fs::remove_dir_all(&root).unwrap();
}
