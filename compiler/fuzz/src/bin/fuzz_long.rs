//! Long-running robustness fuzzer for `stmtc check` / `stmtc explain`, on
//! stable Rust (no libFuzzer needed).
//!
//! ```text
//! cargo run --release --no-default-features --bin fuzz_long -- --seconds 3600 [--seed N] [--out DIR]
//! cargo run --release --no-default-features --bin fuzz_long -- --replay case.sql
//! cargo run --release --no-default-features --bin fuzz_long -- --minimize case.sql
//! ```
//!
//! The parent process supervises a worker process that runs generated cases
//! (see `stmtc_fuzz::any_case`) one after the other, announcing each case's
//! number before running it. Rule violations the oracle can see
//! (`stmtc_fuzz::run_case`) are saved by the worker; a case that kills the
//! worker (stack overflow, abort) or stalls it past `--timeout` is
//! regenerated from its number and saved by the parent, which then restarts
//! the worker after it. Findings go to `--out` (default
//! `target/fuzz-findings`): `<kind>-<n>.sql` with a `.txt` describing it.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use stmtc_fuzz::generator::Rng;
use stmtc_fuzz::{any_case, fixture_jobs, run_case, Outcome};

struct Args {
    seconds: u64,
    seed: u64,
    out: PathBuf,
    timeout: u64,
    stack_mb: usize,
    worker_start: Option<u64>,
    replay: Option<PathBuf>,
    minimize: Option<PathBuf>,
    shape: Option<(String, usize)>,
}

fn parse_args() -> Args {
    let mut a = Args {
        seconds: 60,
        seed: 1,
        out: PathBuf::from("target/fuzz-findings"),
        timeout: 10,
        stack_mb: 8,
        worker_start: None,
        replay: None,
        minimize: None,
        shape: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--seconds" => a.seconds = value().parse().expect("--seconds N"),
            "--seed" => a.seed = value().parse().expect("--seed N"),
            "--out" => a.out = PathBuf::from(value()),
            "--timeout" => a.timeout = value().parse().expect("--timeout SECONDS"),
            "--stack-mb" => a.stack_mb = value().parse().expect("--stack-mb N"),
            "--worker" => a.worker_start = Some(value().parse().expect("--worker START")),
            "--replay" => a.replay = Some(PathBuf::from(value())),
            "--minimize" => a.minimize = Some(PathBuf::from(value())),
            "--shape" => {
                let name = value();
                let n = value().parse().expect("--shape NAME N");
                a.shape = Some((name, n));
            }
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// Case `i` of the run with seed `seed`: the same every time.
fn case(seed: u64, i: u64, fixtures: &[&str]) -> String {
    let mut rng = Rng::seeded(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ i);
    any_case(&mut rng, fixtures, 300)
}

fn main() {
    let args = parse_args();
    if let Some(path) = &args.replay {
        std::process::exit(replay(path, args.stack_mb));
    }
    if let Some((name, n)) = &args.shape {
        // Time one resource shape: `--shape JoinChain 300`.
        let shape = stmtc_fuzz::generator::SHAPES
            .iter()
            .find(|s| format!("{s:?}").eq_ignore_ascii_case(name))
            .unwrap_or_else(|| panic!("unknown shape {name}"));
        let text = stmtc_fuzz::generator::resource(*shape, *n);
        let path = std::env::temp_dir().join(format!("stmtc-shape-{}.sql", std::process::id()));
        std::fs::write(&path, &text).expect("write");
        let code = replay(&path, args.stack_mb);
        let _ = std::fs::remove_file(&path);
        std::process::exit(code);
    }
    if let Some(path) = &args.minimize {
        minimize(path, &args);
        return;
    }
    if let Some(start) = args.worker_start {
        let stack = args.stack_mb << 20;
        let handle = std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || worker(args.seed, start, &args.out))
            .expect("spawn worker thread");
        let _ = handle.join();
        return;
    }
    supervise(&args);
}

/// Runs one file on a thread with the given stack; exit code 0 = fine,
/// 1 = a rule broken (printed). A stack overflow aborts the process.
fn replay(path: &Path, stack_mb: usize) -> i32 {
    let text = String::from_utf8_lossy(&std::fs::read(path).expect("read case")).into_owned();
    let handle = std::thread::Builder::new()
        .stack_size(stack_mb << 20)
        .spawn(move || {
            let start = Instant::now();
            let r = run_case(&text);
            (r, start.elapsed())
        })
        .expect("spawn");
    let (result, took) = handle.join().expect("join");
    match result {
        Ok(o) => {
            println!("ok: {o:?} in {took:?}");
            0
        }
        Err(f) => {
            println!("FINDING {}\n{}", f.kind, f.detail);
            1
        }
    }
}

fn worker(seed: u64, start: u64, out: &Path) {
    let fixtures = fixture_jobs(&stmtc_fuzz::fixtures_dir());
    let fixtures: Vec<&str> = fixtures.iter().map(|(_, t)| t.as_str()).collect();
    let mut saved: HashMap<String, usize> = HashMap::new();
    let stdout = std::io::stdout();
    let mut i = start;
    loop {
        let text = case(seed, i, &fixtures);
        {
            let mut o = stdout.lock();
            // The supervisor is gone: stop.
            if writeln!(o, "C {i}").and_then(|()| o.flush()).is_err() {
                return;
            }
        }
        let t0 = Instant::now();
        let result = run_case(&text);
        let took = t0.elapsed();
        let tag = match &result {
            Ok(Outcome::Accepted) => "A",
            Ok(Outcome::Rejected) => "R",
            Err(_) => "F",
        };
        let mut finding = result.err();
        if finding.is_none() && took > Duration::from_secs(2) {
            finding = Some(stmtc_fuzz::Finding {
                kind: "slow case (over 2 s)".into(),
                detail: format!("{took:?} for {} bytes", text.len()),
            });
        }
        if let Some(f) = finding {
            let n = saved.entry(f.kind.clone()).or_insert(0);
            *n += 1;
            if *n <= 3 {
                save(
                    out,
                    &f.kind,
                    &text,
                    &format!("case {i} of seed {seed}\n{}\n", f.detail),
                );
            }
            let mut o = stdout.lock();
            let _ = writeln!(o, "F {}", f.kind.replace('\n', " "));
        }
        let mut o = stdout.lock();
        let _ = writeln!(o, "D {tag} {i} {}", took.as_micros());
        let _ = o.flush();
        i += 1;
    }
}

fn slug(kind: &str) -> String {
    let s: String = kind
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in kind.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    format!("{}-{:08x}", s.trim_matches('-'), h as u32)
}

fn save(out: &Path, kind: &str, text: &str, detail: &str) {
    let _ = std::fs::create_dir_all(out);
    let base = slug(kind);
    for n in 1.. {
        let sql = out.join(format!("{base}-{n}.sql"));
        if !sql.exists() {
            let _ = std::fs::write(&sql, text);
            let _ = std::fs::write(
                out.join(format!("{base}-{n}.txt")),
                format!("{kind}\n{detail}"),
            );
            return;
        }
    }
}

fn spawn_worker(args: &Args, start: u64) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(std::env::current_exe().expect("current exe"))
        .args(["--worker", &start.to_string()])
        .args(["--seed", &args.seed.to_string()])
        .args(["--stack-mb", &args.stack_mb.to_string()])
        .arg("--out")
        .arg(&args.out)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn worker");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

#[derive(Default)]
struct Stats {
    executed: u64,
    accepted: u64,
    rejected: u64,
    findings: HashMap<String, u64>,
    restarts: u64,
    slowest_us: u64,
    slowest_case: u64,
}

fn supervise(args: &Args) {
    let fixtures = fixture_jobs(&stmtc_fuzz::fixtures_dir());
    let fixtures: Vec<&str> = fixtures.iter().map(|(_, t)| t.as_str()).collect();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);
    let mut stats = Stats::default();
    let mut next = 0u64;
    let mut last_report = Instant::now();
    eprintln!(
        "fuzz_long: seed {}, {} s, findings in {}",
        args.seed,
        args.seconds,
        args.out.display()
    );
    'outer: while Instant::now() < deadline {
        let (mut child, rx) = spawn_worker(args, next);
        let mut current: Option<u64> = None;
        let mut since = Instant::now();
        loop {
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                break 'outer;
            }
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(line) => {
                    let (tag, rest) = line.split_once(' ').unwrap_or((&line, ""));
                    match tag {
                        "C" => {
                            current = rest.parse().ok();
                            since = Instant::now();
                        }
                        "F" => *stats.findings.entry(rest.to_string()).or_insert(0) += 1,
                        "D" => {
                            let mut parts = rest.split(' ');
                            let outcome = parts.next().unwrap_or("");
                            let i: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
                            let us: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
                            stats.executed += 1;
                            match outcome {
                                "A" => stats.accepted += 1,
                                "R" => stats.rejected += 1,
                                _ => {}
                            }
                            if us > stats.slowest_us {
                                stats.slowest_us = us;
                                stats.slowest_case = i;
                            }
                            next = i + 1;
                            current = None;
                        }
                        _ => {}
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(i) = current {
                        if since.elapsed() > Duration::from_secs(args.timeout) {
                            let _ = child.kill();
                            let _ = child.wait();
                            let text = case(args.seed, i, &fixtures);
                            let kind = format!("hang (over {} s)", args.timeout);
                            save(
                                &args.out,
                                &kind,
                                &text,
                                &format!("case {i} of seed {}\n", args.seed),
                            );
                            *stats.findings.entry(kind).or_insert(0) += 1;
                            stats.executed += 1;
                            stats.restarts += 1;
                            next = i + 1;
                            continue 'outer;
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait().expect("wait worker");
                    if let Some(i) = current {
                        let text = case(args.seed, i, &fixtures);
                        let kind = format!("worker died ({status})");
                        save(
                            &args.out,
                            &kind,
                            &text,
                            &format!("case {i} of seed {}\n", args.seed),
                        );
                        *stats.findings.entry(kind).or_insert(0) += 1;
                        stats.executed += 1;
                        next = i + 1;
                    }
                    stats.restarts += 1;
                    continue 'outer;
                }
            }
            if last_report.elapsed() > Duration::from_secs(60) {
                last_report = Instant::now();
                report(&stats, started, false);
            }
        }
    }
    report(&stats, started, true);
    let _ = std::fs::create_dir_all(&args.out);
    let mut summary = format!(
        "seed {}\nseconds {}\nexecutions {}\naccepted {}\nrejected {}\nworker restarts {}\nslowest case {} ({} us)\n",
        args.seed,
        started.elapsed().as_secs(),
        stats.executed,
        stats.accepted,
        stats.rejected,
        stats.restarts,
        stats.slowest_case,
        stats.slowest_us
    );
    let mut kinds: Vec<_> = stats.findings.iter().collect();
    kinds.sort();
    for (k, n) in kinds {
        summary += &format!("finding x{n}: {k}\n");
    }
    let _ = std::fs::write(
        args.out.join(format!("stats-seed{}.txt", args.seed)),
        &summary,
    );
    print!("{summary}");
}

fn report(stats: &Stats, started: Instant, last: bool) {
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{}{:.0} s: {} cases ({:.0}/s), {} accepted, {} rejected, {} findings ({} kinds), {} restarts",
        if last { "done after " } else { "" },
        secs,
        stats.executed,
        stats.executed as f64 / secs.max(1e-9),
        stats.accepted,
        stats.rejected,
        stats.findings.values().sum::<u64>(),
        stats.findings.len(),
        stats.restarts
    );
}

/// What a replay of `text` does, as a string to compare: the finding kind,
/// the process's abnormal status, or "ok".
fn behaviour(text: &str, args: &Args) -> String {
    let tmp = std::env::temp_dir().join(format!("stmtc-minimize-{}.sql", std::process::id()));
    std::fs::write(&tmp, text).expect("write temp case");
    let mut child = Command::new(std::env::current_exe().expect("exe"))
        .arg("--replay")
        .arg(&tmp)
        .args(["--stack-mb", &args.stack_mb.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn replay");
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            let mut out = String::new();
            let _ =
                std::io::Read::read_to_string(&mut child.stdout.take().expect("stdout"), &mut out);
            return match status.code() {
                Some(0) => "ok".into(),
                Some(1) => out.lines().next().unwrap_or("").to_string(),
                _ => format!("died: {status}"),
            };
        }
        if t0.elapsed() > Duration::from_secs(args.timeout) {
            let _ = child.kill();
            let _ = child.wait();
            return "hang".into();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Greedy delta-debugging: drop lines, then chunks of characters, while the
/// behaviour stays the same. Writes `<file>.min.sql`.
fn minimize(path: &Path, args: &Args) {
    let text = String::from_utf8_lossy(&std::fs::read(path).expect("read")).into_owned();
    let target = behaviour(&text, args);
    eprintln!("minimizing for: {target}");
    if target == "ok" {
        eprintln!("nothing to minimize: the case passes");
        return;
    }
    let mut best: Vec<char> = text.chars().collect();
    // Whole lines first, then ever smaller chunks.
    let mut chunk = (best.len() / 2).max(1);
    loop {
        let mut changed = false;
        let mut i = 0;
        while i < best.len() {
            let end = (i + chunk).min(best.len());
            let candidate: String = best[..i].iter().chain(&best[end..]).collect();
            if behaviour(&candidate, args) == target {
                best = candidate.chars().collect();
                changed = true;
            } else {
                i += chunk;
            }
        }
        if !changed {
            if chunk == 1 {
                break;
            }
            chunk = (chunk / 2).max(1);
        }
    }
    let min: String = best.into_iter().collect();
    let out = path.with_extension("min.sql");
    std::fs::write(&out, &min).expect("write minimized");
    println!("{} ({} bytes): {target}\n{min}", out.display(), min.len());
}
