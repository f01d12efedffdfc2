//! libFuzzer over raw job files: any bytes (lossily UTF-8) go to
//! `stmtc::check` and, when accepted, `stmtc::explain`. Seed the corpus with
//! the fixtures (see docs/robustness.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(f) = stmtc_fuzz::run_case(&text) {
        panic!("{f}");
    }
});
