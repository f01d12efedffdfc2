//! Generator diagnostics: `sample [chaos] [count]` prints how many generated
//! jobs check cleanly and the most common first errors, to keep the
//! generator producing jobs that reach the planner. `sample --show SEED`
//! prints one job and its diagnostics.

use std::collections::HashMap;

use stmtc::diagnostics::SourceFile;
use stmtc_fuzz::generator::{job, Rng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--show") {
        let seed: u64 = args[1].parse().expect("seed");
        let chaos: u32 = args.get(2).map_or(0, |s| s.parse().expect("chaos"));
        let text = job(&mut Rng::seeded(seed), chaos);
        println!("{text}");
        let checked = stmtc::check(SourceFile::new("sample.sql", text));
        println!("{}", checked.render_diagnostics(false));
        return;
    }
    let chaos: u32 = args.first().map_or(0, |s| s.parse().expect("chaos"));
    let count: u64 = args.get(1).map_or(2000, |s| s.parse().expect("count"));
    let mut ok = 0;
    let mut firsts: HashMap<String, (u64, u64)> = HashMap::new();
    for seed in 0..count {
        let text = job(&mut Rng::seeded(seed), chaos);
        let checked = stmtc::check(SourceFile::new("sample.sql", text));
        match checked
            .diagnostics
            .iter()
            .find(|d| d.severity == stmtc::diagnostics::Severity::Error)
        {
            None => ok += 1,
            Some(d) => {
                let key: String = stmtc_fuzz::signature(&d.message).chars().take(70).collect();
                firsts.entry(key).or_insert((0, seed)).0 += 1;
            }
        }
    }
    println!("{ok}/{count} accepted");
    let mut v: Vec<_> = firsts.into_iter().collect();
    v.sort_by_key(|e| std::cmp::Reverse(e.1 .0));
    for (k, (n, seed)) in v.into_iter().take(25) {
        println!("{n:6} (seed {seed}) {k}");
    }
}
