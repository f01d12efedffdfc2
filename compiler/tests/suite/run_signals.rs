//! `stmtc run` owns its children: SIGINT, SIGTERM or SIGKILL to `stmtc run`,
//! while the job binary runs or while cargo builds it, leaves no process of
//! the job or of the build behind, and stmtc's exit status names the signal.
//! A job interrupted mid-run changes no sink, and the next run works.
//!
//! Processes are found in /proc (Linux): every process below the stmtc
//! process, and every member of the process groups they lead (rustc
//! processes that cargo starts later).
//! Zombies do not count: they run nothing, and a container's init may never
//! reap them.

use std::collections::BTreeMap;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Only against hangs: a loaded 2-core machine may be slow, never this slow.
const HANG_GUARD: Duration = Duration::from_secs(60);
/// Waiting for a build: the first one compiles the runtime in release mode.
const BUILD_GUARD: Duration = Duration::from_secs(900);
const POLL: Duration = Duration::from_millis(20);

/// Long enough to be killed mid-run with `--set gen.number-of-rows=...`;
/// a short run writes a little to both sinks.
const JOB: &str = "
SET 'execution.runtime-mode' = 'batch';
CREATE TABLE gen (id BIGINT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '3000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000000000');
CREATE TABLE sample (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out/sample', 'format' = 'csv');
CREATE TABLE totals (n BIGINT, m BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out/totals', 'format' = 'csv');
INSERT OVERWRITE sample SELECT id FROM gen WHERE MOD(id, 1000) = 0;
INSERT OVERWRITE totals SELECT COUNT(*), MAX(id) FROM gen;
";
const ENDLESS: &str = "gen.number-of-rows=1000000000000";

/// One process as /proc shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Process {
    pid: i32,
    ppid: i32,
    group: i32,
    /// Clock ticks after boot: with `pid`, names one process for good.
    start: u64,
    exe: Option<PathBuf>,
    cmdline: String,
}

/// Every live (not zombie) process.
fn processes() -> Vec<Process> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("read /proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue; // gone meanwhile
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() < 20 || matches!(fields[0], "Z" | "X") {
            continue;
        }
        let number = |i: usize| fields[i].parse::<i64>().expect("a number in /proc/*/stat");
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        out.push(Process {
            pid,
            ppid: number(1) as i32,
            group: number(2) as i32,
            start: number(19) as u64,
            exe: std::fs::read_link(entry.path().join("exe")).ok(),
            cmdline: String::from_utf8_lossy(&cmdline).replace('\0', " "),
        });
    }
    out
}

/// The processes below `stmtc` (children, grandchildren, ...) and the
/// process groups they lead: what must be gone once `stmtc` is.
#[derive(Debug)]
struct Descendants {
    processes: Vec<Process>,
    groups: Vec<i32>,
}

impl Descendants {
    fn of(stmtc: u32) -> Descendants {
        let all = processes();
        let mut below: Vec<Process> = Vec::new();
        let mut parents = vec![stmtc as i32];
        while let Some(parent) = parents.pop() {
            for p in all.iter().filter(|p| p.ppid == parent) {
                parents.push(p.pid);
                below.push(p.clone());
            }
        }
        // Only groups they lead: a process still in stmtc's group (just
        // forked) does not name its group, which holds stmtc and this test.
        let groups = below
            .iter()
            .filter(|p| p.group == p.pid)
            .map(|p| p.group)
            .collect();
        Descendants {
            processes: below,
            groups,
        }
    }

    fn alive(&self) -> Vec<Process> {
        processes()
            .into_iter()
            .filter(|p| {
                self.groups.contains(&p.group)
                    || self
                        .processes
                        .iter()
                        .any(|c| c.pid == p.pid && c.start == p.start)
            })
            .collect()
    }

    /// Kills what is left (a failed test must not leave a job running).
    fn kill(&self) {
        for p in self.alive() {
            // SAFETY: kill has no memory effects; `p` is one of ours, alive just now.
            unsafe { libc::kill(p.pid, libc::SIGKILL) };
        }
    }
}

/// A started `stmtc run` that is killed, with everything it started, if the
/// test fails before it ends.
struct Running {
    stmtc: Child,
    stderr: PathBuf,
    seen: Option<Descendants>,
}

impl Running {
    fn start(work: &Path, cache: &Path, sets: &[&str]) -> Running {
        let stderr = work.join("stderr.txt");
        let mut command = Command::new(env!("CARGO_BIN_EXE_stmtc"));
        command
            .args(["run", "job.sql", "--quiet", "--cache-dir"])
            .arg(cache)
            .current_dir(work)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).expect("create stderr file"));
        for s in sets {
            command.args(["--set", s]);
        }
        // As from a terminal: the signals at their defaults. stmtc keeps a
        // signal that was ignored when it started ignored (nohup), and a
        // test run started in the background by a shell without job control
        // has SIGINT ignored; the SIGINT test would then wait for nothing.
        // SAFETY: `signal` is async-signal-safe and touches no memory of ours.
        unsafe {
            command.pre_exec(|| {
                for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let stmtc = command.spawn().expect("start stmtc");
        Running {
            stmtc,
            stderr,
            seen: None,
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits (up to `guard`) until a process of stmtc's matches `wanted`;
    /// returns it and records stmtc's children and their groups.
    fn wait_for(&mut self, guard: Duration, wanted: impl Fn(&Process) -> bool) -> Process {
        let started = Instant::now();
        loop {
            let descendants = Descendants::of(self.stmtc.id());
            if let Some(p) = descendants.alive().into_iter().find(|p| wanted(p)) {
                self.seen = Some(descendants);
                return p;
            }
            if let Some(status) = self.stmtc.try_wait().expect("try_wait") {
                panic!("stmtc ended ({status}) too early:\n{}", self.stderr());
            }
            assert!(
                started.elapsed() < guard,
                "hang guard: the process never appeared:\n{}",
                self.stderr()
            );
            std::thread::sleep(POLL);
        }
    }

    /// Sends `signal` to stmtc; returns its exit status once it and every
    /// process it started are gone.
    fn interrupt(&mut self, signal: libc::c_int) -> ExitStatus {
        // SAFETY: kill has no memory effects; stmtc is our unreaped child.
        assert_eq!(unsafe { libc::kill(self.stmtc.id() as i32, signal) }, 0);
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.stmtc.try_wait().expect("try_wait") {
                break status;
            }
            assert!(
                started.elapsed() < HANG_GUARD,
                "hang guard: stmtc did not end after signal {signal}:\n{}",
                self.stderr()
            );
            std::thread::sleep(POLL);
        };
        let seen = self.seen.as_ref().expect("wait_for ran first");
        loop {
            let alive = seen.alive();
            if alive.is_empty() {
                break;
            }
            assert!(
                started.elapsed() < HANG_GUARD,
                "hang guard: still running after stmtc ended ({status}): {alive:#?}\n{}",
                self.stderr()
            );
            std::thread::sleep(POLL);
        }
        status
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(seen) = &self.seen {
            seen.kill();
        }
        let _ = self.stmtc.kill();
        let _ = self.stmtc.wait();
    }
}

fn assert_reports(status: ExitStatus, signal: libc::c_int, stderr: &str) {
    if signal == libc::SIGKILL {
        assert_eq!(status.signal(), Some(signal), "{status}\n{stderr}");
    } else {
        assert_eq!(status.code(), Some(128 + signal), "{status}\n{stderr}");
    }
}

/// The visible files of every sink: name -> content.
fn sinks(work: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for sink in ["sample", "totals"] {
        let dir = work.join("out").join(sink);
        for entry in std::fs::read_dir(&dir).expect("sink dir").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') {
                let text = std::fs::read_to_string(entry.path()).expect("read part");
                out.insert(format!("{sink}/{name}"), text);
            }
        }
    }
    out
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("run-signals")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("job.sql"), JOB).expect("write job.sql");
    dir
}

/// The cache of `cli.rs`'s `run` test: one runtime build serves both.
fn shared_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-run/cache")
}

/// Runs the job to its end once (its sinks are then the "old" content), then
/// again endlessly, and sends `signal` to stmtc once the job binary writes.
fn interrupt_job(name: &str, signal: libc::c_int) {
    let work = fresh_dir(name);
    let cache = shared_cache();
    let mut first = Running::start(&work, &cache, &[]);
    let status = first.stmtc.wait().expect("wait");
    assert!(status.success(), "{status}\n{}", first.stderr());
    let before = sinks(&work);
    assert!(before.values().any(|t| t == "3000,3000\n"), "{before:?}");

    let mut run = Running::start(&work, &cache, &[ENDLESS]);
    // The job binary is target/release/<package>, the package named after job.sql.
    let release = cache.join("target/release");
    let job = run.wait_for(BUILD_GUARD, |p| {
        p.exe.as_ref().is_some_and(|e| {
            e.parent() == Some(release.as_path())
                && e.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("job_"))
        })
    });
    assert_eq!(job.ppid, run.stmtc.id() as i32, "{job:?}");
    // The job has begun writing once its staging directory names it.
    let owner = work.join("out/sample/.stmtc-staging/_OWNER");
    let started = Instant::now();
    while std::fs::read_to_string(&owner).ok() != Some(job.pid.to_string()) {
        assert!(
            started.elapsed() < HANG_GUARD,
            "hang guard: the job never wrote"
        );
        std::thread::sleep(POLL);
    }
    let status = run.interrupt(signal);
    assert_reports(status, signal, &run.stderr());
    assert_eq!(job.group, job.pid, "the job leads its own process group");
    assert_eq!(sinks(&work), before, "an interrupted job changed a sink");

    // Nothing of the killed job holds the sinks: the next run commits.
    let mut again = Running::start(&work, &cache, &["gen.number-of-rows=2000"]);
    let status = again.stmtc.wait().expect("wait");
    assert!(status.success(), "{status}\n{}", again.stderr());
    assert!(
        sinks(&work).values().any(|t| t == "2000,2000\n"),
        "{:?}",
        sinks(&work)
    );
}

/// Sends `signal` to stmtc while cargo runs rustc, in a fresh cache (so the
/// build is long: it is stopped at its first rustc, which costs little).
fn interrupt_build(name: &str, signal: libc::c_int) {
    let work = fresh_dir(name);
    let mut run = Running::start(&work, &work.join("cache"), &[]);
    let rustc = run.wait_for(BUILD_GUARD, |p| p.cmdline.contains("--crate-name"));
    let stmtc = run.stmtc.id() as i32;
    let cargo: Vec<Process> = (run.seen.as_ref().expect("seen").processes.iter())
        .filter(|p| p.ppid == stmtc)
        .cloned()
        .collect();
    let status = run.interrupt(signal);
    assert_reports(status, signal, &run.stderr());
    assert!(
        cargo
            .iter()
            .any(|c| c.group == c.pid && c.group == rustc.group),
        "rustc {rustc:?} is not in the group of a child of stmtc: {cargo:?}"
    );
}

#[test]
fn sigterm_stops_the_job_and_exits_143() {
    interrupt_job("job-sigterm", libc::SIGTERM);
}

#[test]
fn sigint_stops_the_job_and_exits_130() {
    interrupt_job("job-sigint", libc::SIGINT);
}

#[test]
fn sigkill_of_stmtc_takes_the_job_down() {
    interrupt_job("job-sigkill", libc::SIGKILL);
}

#[test]
fn sigterm_stops_the_build_with_its_rustc_processes() {
    interrupt_build("build-sigterm", libc::SIGTERM);
}

#[test]
fn sigkill_of_stmtc_takes_the_build_down_with_its_rustc_processes() {
    interrupt_build("build-sigkill", libc::SIGKILL);
}

#[test]
fn the_job_exit_code_is_stmtc_exit_code() {
    // A malformed --set (no TABLE.): the job binary itself exits 2.
    let work = fresh_dir("job-exit-code");
    let mut run = Running::start(&work, &shared_cache(), &["gen=1"]);
    let status = run.stmtc.wait().expect("wait");
    assert_eq!(status.code(), Some(2), "{status}\n{}", run.stderr());
}
