//! Comparing a job's sink output with Flink's expected rows: the lines of a
//! sink directory's part files, sorted unless the SQL defines an order, with
//! an optional tolerance for the last digits of floating-point values.
//!
//! Included with `#[path]` by the integration tests that run job binaries.

#![allow(dead_code)] // each includer uses part of it

use std::path::{Path, PathBuf};

/// All lines of all visible part files of a sink directory.
pub fn sink_lines(dir: &Path) -> Vec<String> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                let name = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_string();
                p.is_file() && !name.starts_with('.') && !name.starts_with('_')
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut lines = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read part file");
        lines.extend(text.lines().map(str::to_string));
    }
    lines
}

/// Whether two lines are equal but for the last digits of floating-point
/// numbers: partial sums computed on several threads add up in another order
/// than Flink's single-threaded run (as Flink's own would with parallelism).
pub fn equal_up_to_float_rounding(a: &str, b: &str) -> bool {
    let split = |s: &str| -> Vec<String> {
        s.split([',', ':', '{', '}', '"', '[', ']', '|', ';'])
            .map(str::to_string)
            .collect()
    };
    let (ta, tb) = (split(a), split(b));
    ta.len() == tb.len()
        && ta.iter().zip(&tb).all(|(x, y)| {
            x == y
                || match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(p), Ok(q)) => (p - q).abs() <= 1e-12 * p.abs().max(q.abs()),
                    _ => false,
                }
        })
}

pub fn compare(
    case: &str,
    what: &str,
    mut actual: Vec<String>,
    expected_file: &Path,
    ordered: bool,
    float_tolerance: bool,
) -> Result<(), String> {
    let text = std::fs::read_to_string(expected_file)
        .map_err(|e| format!("{case}: {}: {e}", expected_file.display()))?;
    let mut expected: Vec<String> = text.lines().map(str::to_string).collect();
    if !ordered {
        actual.sort();
        expected.sort();
    }
    if actual == expected {
        return Ok(());
    }
    if float_tolerance
        && actual.len() == expected.len()
        && actual
            .iter()
            .zip(&expected)
            .all(|(a, e)| equal_up_to_float_rounding(a, e))
    {
        return Ok(());
    }
    let diff =
        similar::TextDiff::from_lines(&(expected.join("\n") + "\n"), &(actual.join("\n") + "\n"))
            .unified_diff()
            .header("flink", "stmtc")
            .to_string();
    Err(format!(
        "{case}: {what} differs from Flink's output:\n{diff}"
    ))
}
