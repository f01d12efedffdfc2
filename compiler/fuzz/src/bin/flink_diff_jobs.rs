//! Writes generated jobs with stmtc's verdict, for `docs/flink-observed/flink_diff.py`
//! to run through Flink and diff accept/reject ("nothing is accepted that Flink refuses").
//!
//! ```text
//! cargo run --release --no-default-features --bin flink_diff_jobs -- --out DIR [--seeds N] [--chaos C]
//! ```
//!
//! For seeds `0..N` it writes `DIR/<seed>.sql` (the generator's job with chaos
//! level C; 0 = clean jobs) and `DIR/<seed>.stmtc` holding `accepted` or the
//! first error's message.

use std::path::PathBuf;

use stmtc::diagnostics::SourceFile;
use stmtc_fuzz::generator::{job, Rng};

fn main() {
    let mut out = PathBuf::from("target/flink-diff");
    let mut seeds = 200u64;
    let mut chaos = 0u32;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--out" => out = PathBuf::from(value()),
            "--seeds" => seeds = value().parse().expect("--seeds N"),
            "--chaos" => chaos = value().parse().expect("--chaos C"),
            other => panic!("unknown flag {other}"),
        }
    }
    std::fs::create_dir_all(&out).expect("create the output folder");
    let mut accepted = 0;
    for seed in 0..seeds {
        let mut rng = Rng::seeded(seed);
        let text = job(&mut rng, chaos);
        let checked = stmtc::check(SourceFile::new(format!("{seed}.sql"), text.clone()));
        let verdict = if checked.has_errors() {
            let rendered = checked.render_diagnostics(false);
            rendered.lines().next().unwrap_or("error").to_string()
        } else {
            accepted += 1;
            "accepted".to_string()
        };
        std::fs::write(out.join(format!("{seed}.sql")), &text).expect("write job");
        std::fs::write(out.join(format!("{seed}.stmtc")), verdict + "\n").expect("write verdict");
    }
    eprintln!("wrote {seeds} jobs ({accepted} accepted by stmtc) to {}", out.display());
}
