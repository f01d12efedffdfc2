//! libFuzzer steering the SQL generator: the input bytes are the generator's
//! random choices, so coverage feedback explores grammar-shaped jobs (and
//! their mutations) rather than raw bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stmtc_fuzz::generator::Rng;

fuzz_target!(|data: &[u8]| {
    let fixtures = FIXTURES.get_or_init(|| {
        stmtc_fuzz::fixture_jobs(&stmtc_fuzz::fixtures_dir())
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    });
    let fixtures: Vec<&str> = fixtures.iter().map(String::as_str).collect();
    let mut rng = Rng::from_bytes(data);
    let text = stmtc_fuzz::any_case(&mut rng, &fixtures, 300);
    if let Err(f) = stmtc_fuzz::run_case(&text) {
        panic!("{f}\n--- job ---\n{text}");
    }
});

static FIXTURES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
