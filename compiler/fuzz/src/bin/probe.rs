//! Times one resource shape phase by phase: `probe <Shape> <n> [stack-mb]`.
//! Also `probe --file job.sql`, and `probe --bytes INPUT` for an input of
//! the `check_generated` libFuzzer target. Prints the time of `check`, of one text
//! `explain`, and the first diagnostic.

use std::time::Instant;

use stmtc::diagnostics::SourceFile;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (text, stack_mb) = if args[0] == "--bytes" {
        // A `check_generated` input (e.g. a libFuzzer timeout artifact):
        // regenerate its job, save it next to the input, and time it.
        let data = std::fs::read(&args[1]).expect("read");
        let fixtures = stmtc_fuzz::fixture_jobs(&stmtc_fuzz::fixtures_dir());
        let fixtures: Vec<&str> = fixtures.iter().map(|(_, t)| t.as_str()).collect();
        let mut rng = stmtc_fuzz::generator::Rng::from_bytes(&data);
        let text = stmtc_fuzz::any_case(&mut rng, &fixtures, 300);
        std::fs::write(format!("{}.sql", args[1]), &text).expect("write");
        (text, args.get(2).map_or(8, |s| s.parse().expect("stack")))
    } else if args[0] == "--file" {
        let t = String::from_utf8_lossy(&std::fs::read(&args[1]).expect("read")).into_owned();
        (t, args.get(2).map_or(8, |s| s.parse().expect("stack")))
    } else {
        let shape = stmtc_fuzz::generator::SHAPES
            .iter()
            .find(|s| format!("{s:?}").eq_ignore_ascii_case(&args[0]))
            .expect("shape");
        let n: usize = args[1].parse().expect("n");
        (
            stmtc_fuzz::generator::resource(*shape, n),
            args.get(2).map_or(8, |s| s.parse().expect("stack")),
        )
    };
    std::thread::Builder::new()
        .stack_size(stack_mb << 20)
        .spawn(move || {
            let len = text.len();
            let t0 = Instant::now();
            let checked = stmtc::check(SourceFile::new("probe.sql", text.clone()));
            let check = t0.elapsed();
            let first = checked
                .diagnostics
                .first()
                .map(|d| format!("{}..{}: {}", d.span.start, d.span.end, d.message))
                .unwrap_or_default();
            print!(
                "{len} bytes; check {check:?} ({} diags) {}",
                checked.diagnostics.len(),
                first.chars().take(160).collect::<String>()
            );
            use std::io::Write as _;
            let _ = std::io::stdout().flush();
            if !checked.has_errors() {
                let options = stmtc::ExplainOptions {
                    format: stmtc::ExplainFormat::Text,
                    changelog: false,
                    cost: false,
                    base_dir: std::env::temp_dir(),
                };
                let t1 = Instant::now();
                let r = stmtc::explain(SourceFile::new("probe.sql", text), &options, None);
                print!(
                    "; explain {:?} ({})",
                    t1.elapsed(),
                    if r.is_ok() { "ok" } else { "err" }
                );
            }
            println!();
        })
        .expect("spawn")
        .join()
        .expect("join");
}
