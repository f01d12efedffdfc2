//! Property: reading a file as many byte-range splits (in parallel) yields the
//! same records, in the same order, as reading it whole — for csv with quoted
//! multi-line fields, doubled quotes and escapes, and for json lines.

use std::sync::Arc;
use stmtc_runtime::ops::parallel::for_each_parallel;
use stmtc_runtime::source::csv::{CsvOptions, CsvReader};
use stmtc_runtime::source::files::{plan_splits_with_min, Boundary};
use stmtc_runtime::source::json::{JsonOptions, JsonReader};
use stmtc_runtime::source::{Record, SourceInfo};
use stmtc_runtime::util::SplitMix64;

fn random_field(rng: &mut SplitMix64, escape: bool) -> String {
    let pieces = [
        "a", "b,c", "\"", "\n", "x y", "", "é", "\\", "#", "\r\n", "12",
    ];
    let n = rng.next() % 4;
    let mut s = String::new();
    for _ in 0..n {
        let p = pieces[(rng.next() % pieces.len() as u64) as usize];
        if p == "\\" && !escape {
            continue;
        }
        s.push_str(p);
    }
    s
}

fn csv_quote(s: &str, escape: bool) -> String {
    if !s
        .chars()
        .any(|c| matches!(c, ',' | '"' | '\n' | '\r' | '\\'))
        && !s.is_empty()
    {
        return s.to_string();
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\"\""),
            '\\' if escape => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

fn info(n: usize) -> Arc<SourceInfo> {
    Arc::new(SourceInfo {
        columns: (0..n).map(|i| format!("c{i}")).collect(),
        ignore_parse_errors: true,
    })
}

type Rows = Vec<Vec<Option<String>>>;

fn scan_csv(
    path: &std::path::Path,
    opts: &CsvOptions,
    parts: usize,
    min: u64,
    threads: usize,
) -> Rows {
    let splits = plan_splits_with_min(&[path.to_path_buf()], parts, opts.boundary(), min).unwrap();
    let states = for_each_parallel(
        &splits,
        threads,
        |_| Vec::new(),
        |acc: &mut Vec<(usize, Rows)>, i, split| {
            let mut r = CsvReader::open(split, opts.clone(), info(3))?;
            let mut rows = Vec::new();
            while let Some(rec) = r.next_record()? {
                rows.push(
                    (0..3)
                        .map(|c| rec.str(c).unwrap().map(|s| s.into_owned()))
                        .collect(),
                );
            }
            acc.push((i, rows));
            Ok(())
        },
    )
    .unwrap();
    let mut all: Vec<(usize, Rows)> = states.into_iter().flatten().collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().flat_map(|(_, r)| r).collect()
}

#[test]
fn csv_splits_equal_serial_read() {
    let dir = std::env::temp_dir().join(format!("stmtc-pscan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = SplitMix64::new(7);
    for case in 0..60 {
        let escape = case % 3 == 0;
        let mut text = String::new();
        let rows = 1 + rng.next() % 80;
        for r in 0..rows {
            let f: Vec<String> = (0..3)
                .map(|_| csv_quote(&random_field(&mut rng, escape), escape))
                .collect();
            text.push_str(&format!("{r},{},{}", f[1], f[2]));
            if r + 1 < rows || rng.next() % 2 == 0 {
                text.push('\n');
            }
        }
        let path = dir.join(format!("c{case}.csv"));
        std::fs::write(&path, &text).unwrap();
        let opts = CsvOptions {
            escape: escape.then_some(b'\\'),
            ..CsvOptions::default()
        };
        let serial = scan_csv(&path, &opts, 1, u64::MAX, 1);
        assert_eq!(serial.len() as u64, rows, "case {case}: {text:?}");
        for parts in [2, 3, 7, 16] {
            let min = 1 + rng.next() % 40;
            assert_eq!(
                scan_csv(&path, &opts, parts, min, 3),
                serial,
                "case {case} parts {parts} min {min}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_splits_equal_serial_read() {
    let dir = std::env::temp_dir().join(format!("stmtc-pjson-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::new();
    for i in 0..500 {
        text.push_str(&format!("{{\"c0\":{i},\"c1\":\"v\\n{i}\",\"c2\":[{i}]}}\n"));
        if i % 50 == 0 {
            text.push('\n');
        }
    }
    let path = dir.join("j.json");
    std::fs::write(&path, &text).unwrap();
    let scan = |parts: usize, min: u64| -> Rows {
        let splits = plan_splits_with_min(
            std::slice::from_ref(&path),
            parts,
            Boundary {
                quote: None,
                escape: None,
            },
            min,
        )
        .unwrap();
        let states = for_each_parallel(
            &splits,
            2,
            |_| Vec::new(),
            |acc: &mut Vec<(usize, Rows)>, i, split| {
                let mut r = JsonReader::open(split, JsonOptions::default(), info(3))?;
                let mut rows = Vec::new();
                while let Some(rec) = r.next_record()? {
                    rows.push(
                        (0..3)
                            .map(|c| rec.str(c).unwrap().map(|s| s.into_owned()))
                            .collect(),
                    );
                }
                acc.push((i, rows));
                Ok(())
            },
        )
        .unwrap();
        let mut all: Vec<(usize, Rows)> = states.into_iter().flatten().collect();
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().flat_map(|(_, r)| r).collect()
    };
    let serial = scan(1, u64::MAX);
    assert_eq!(serial.len(), 500);
    assert_eq!(serial[7][1].as_deref(), Some("v\n7"));
    for (parts, min) in [(2, 100), (5, 1000), (13, 1)] {
        assert_eq!(scan(parts, min), serial);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
