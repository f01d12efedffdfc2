//! "check ok => compile ok", all the way to rustc: generated jobs (the
//! robustness generator's clean ones) that `check` accepts are compiled and
//! their crates built against the shared runtime (`support/shared_build.rs`).
//! `robustness.rs` already requires every accepted job's `main.rs` to parse;
//! this sample must also type-check and link.

use stmtc::diagnostics::SourceFile;

#[path = "../fuzz/src/generator.rs"]
mod generator;
#[path = "support/shared_build.rs"]
mod shared_build;

/// Accepted jobs built per run (each takes a few seconds).
const SAMPLE: usize = 12;

#[test]
fn generated_jobs_that_check_accepts_build() {
    let runtime = shared_build::runtime_dir(stmtc::runtime_crate());
    let location = stmtc::RuntimeLocation::Path(runtime.display().to_string());
    let mut built = Vec::new();
    let mut failures = Vec::new();
    for seed in 0..2_000u64 {
        if built.len() == SAMPLE {
            break;
        }
        let mut rng = generator::Rng::seeded(seed);
        let text = generator::job(&mut rng, 0);
        let name = format!("generated_{seed}.sql");
        if stmtc::check(SourceFile::new(name.clone(), text.clone())).has_errors() {
            continue;
        }
        let package = format!("generated_{seed}");
        match stmtc::compile(
            SourceFile::new(name.clone(), text.clone()),
            &location,
            Some(&package),
            None,
        ) {
            Err(c) => failures.push(format!(
                "{name}: check accepted it, compile refused it:\n{}\n--- job ---\n{text}",
                c.render_diagnostics(false)
            )),
            Ok(job) => {
                shared_build::write_files(&shared_build::crate_dir(&package), &job.files);
                match shared_build::build(&package) {
                    Ok(_) => built.push(name),
                    Err(e) => failures.push(format!(
                        "{name}: check accepted it, its crate does not build:\n{e}\n--- job ---\n{text}"
                    )),
                }
            }
        }
    }
    eprintln!("built {} generated jobs: {}", built.len(), built.join(", "));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(
        built.len(),
        SAMPLE,
        "the generator gave too few accepted jobs"
    );
}
