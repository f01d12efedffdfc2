//! Checks csv and json source parsing against Flink 2.3 reading the same files
//! (`tests/flink_samples/input_parsing`: `job.sql` is the Flink job, `data/` its
//! inputs, `out/` what its sinks wrote). Each case reads a data file with our
//! reader, writes the rows with our sink format, and compares with Flink's file.

use std::sync::Arc;
use stmtc_runtime::sink::format::{CsvFormat, Field, JsonFormat, RowFormat};
use stmtc_runtime::source::csv::{CsvOptions, CsvReader};
use stmtc_runtime::source::files::Split;
use stmtc_runtime::source::json::{JsonOptions, JsonReader};
use stmtc_runtime::source::{Record, SourceInfo};
use stmtc_runtime::value::DecimalType;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/flink_samples/input_parsing"
);

fn split(name: &str) -> Split {
    let path = std::path::PathBuf::from(format!("{DIR}/data/{name}"));
    let len = std::fs::metadata(&path).unwrap().len();
    Split {
        path,
        file_index: 0,
        start: 0,
        end: len,
        first: true,
        end_guessed: false,
    }
}

fn info(cols: &[&str]) -> Arc<SourceInfo> {
    Arc::new(SourceInfo {
        columns: cols.iter().map(|s| s.to_string()).collect(),
        ignore_parse_errors: true,
    })
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/out/{name}.txt")).unwrap()
}

/// Writes column `col` of `r`, converted to SQL type `ty`, with format `f`.
fn write_typed<R: Record, F: RowFormat>(
    r: &R,
    col: usize,
    ty: &str,
    f: &mut F,
    out: &mut Vec<u8>,
) -> bool {
    macro_rules! put {
        ($v:expr, $wrap:expr) => {{
            let v = $v.unwrap();
            let null = v.is_none();
            match v {
                Some(x) => f.field(out, &$wrap(x)),
                None => f.field(out, &Field::Null),
            }
            null
        }};
    }
    match ty {
        "INT" => put!(r.i32(col), Field::I32),
        "BIGINT" => put!(r.i64(col), Field::I64),
        "TINYINT" => put!(r.i8(col), Field::I8),
        "BOOLEAN" => put!(r.bool(col), Field::Bool),
        "DOUBLE" => put!(r.f64(col), Field::F64),
        "FLOAT" => put!(r.f32(col), Field::F32),
        "DECIMAL(5, 2)" => {
            let t = DecimalType::new(5, 2);
            put!(r.decimal(col, t), |d| Field::Decimal(d, t))
        }
        "STRING" => {
            let v = r.str(col).unwrap();
            let null = v.is_none();
            f.field(out, &v.as_deref());
            null
        }
        "DATE" => put!(r.date(col), Field::Date),
        "TIME(3)" => put!(r.time(col, 3), Field::Time),
        "TIMESTAMP(3)" => put!(r.timestamp(col, 3), Field::Timestamp),
        "TIMESTAMP(9)" => put!(r.timestamp(col, 9), Field::Timestamp),
        "TIMESTAMP(0)" => put!(r.timestamp(col, 0), Field::Timestamp),
        "TIMESTAMP_LTZ(3)" => put!(r.timestamp_ltz(col, 3), Field::TimestampLtz),
        "BYTES" => {
            let v = r.bytes(col).unwrap();
            let null = v.is_none();
            match &v {
                Some(b) => f.field(out, &Field::Bytes(b)),
                None => f.field(out, &Field::Null),
            }
            null
        }
        other => panic!("type {other}"),
    }
}

/// The `(id STRING, v <type>)` tables: Flink wrote `id,v,v IS NULL,CAST(v AS STRING)`;
/// we compare the first three columns.
#[test]
fn csv_scalar_types_match_flink() {
    let job = std::fs::read_to_string(format!("{DIR}/job.sql")).unwrap();
    let mut checked = 0;
    for line in job
        .lines()
        .filter(|l| l.starts_with("CREATE TABLE src_t") && l.contains("_ign ("))
    {
        let name = &line["CREATE TABLE src_".len()..line.find("_ign").unwrap()];
        let ty = &line[line.find(", v ").unwrap() + 4..line.find(") WITH").unwrap()];
        for (mode, null_literal) in [("ign", None), ("nul", Some(Vec::new()))] {
            let opts = CsvOptions {
                null_literal,
                ..CsvOptions::default()
            };
            let mut reader =
                CsvReader::open(&split(&format!("{name}.csv")), opts, info(&["id", "v"])).unwrap();
            let mut fmt = CsvFormat::default();
            let mut got = String::new();
            while let Some(rec) = reader.next_record().unwrap() {
                let mut out = Vec::new();
                fmt.begin_row(&mut out);
                fmt.field(&mut out, &rec.str(0).unwrap().as_deref());
                let null = write_typed(&rec, 1, ty, &mut fmt, &mut out);
                fmt.field(&mut out, &null);
                fmt.end_row(&mut out);
                got.push_str(std::str::from_utf8(&out).unwrap());
            }
            let want: String = expected(&format!("{name}_{mode}"))
                .lines()
                .map(|l| format!("{}\n", &l[..l.rfind(',').unwrap()]))
                .collect();
            assert_eq!(got, want, "{name}_{mode} ({ty})");
            checked += 1;
        }
    }
    assert_eq!(checked, 30);
}

/// `(id STRING, a INT, b STRING)` over `arity.csv`/`semi.csv` with various options;
/// Flink wrote `id, a, b, b IS NULL` as json.
#[test]
fn csv_structure_and_options_match_flink() {
    let base = CsvOptions::default();
    let cases = [
        ("ar_ign", "arity.csv", base.clone()),
        (
            "ar_com",
            "arity.csv",
            CsvOptions {
                allow_comments: true,
                ..base.clone()
            },
        ),
        (
            "ar_esc",
            "arity.csv",
            CsvOptions {
                escape: Some(b'\\'),
                ..base.clone()
            },
        ),
        (
            "ar_noq",
            "arity.csv",
            CsvOptions {
                quote: None,
                ..base.clone()
            },
        ),
        (
            "semi",
            "semi.csv",
            CsvOptions {
                field_delimiter: b';',
                quote: Some(b'\''),
                allow_comments: true,
                escape: Some(b'\\'),
                null_literal: Some(b"NA".to_vec()),
            },
        ),
    ];
    for (name, file, opts) in cases {
        let mut reader = CsvReader::open(&split(file), opts, info(&["id", "a", "b"])).unwrap();
        let mut fmt = JsonFormat::new(&["id", "a", "b", "bnull"]);
        let mut got = String::new();
        while let Some(rec) = reader.next_record().unwrap() {
            let mut out = Vec::new();
            fmt.begin_row(&mut out);
            write_typed(&rec, 0, "STRING", &mut fmt, &mut out);
            write_typed(&rec, 1, "INT", &mut fmt, &mut out);
            let null = write_typed(&rec, 2, "STRING", &mut fmt, &mut out);
            fmt.field(&mut out, &null);
            fmt.end_row(&mut out);
            got.push_str(std::str::from_utf8(&out).unwrap());
        }
        assert_eq!(got, expected(name), "{name}");
    }
}

#[test]
fn json_matches_flink() {
    let cols = ["id", "i", "d", "dc", "s", "b", "ts", "dt"];
    let types = [
        "STRING",
        "INT",
        "DOUBLE",
        "DECIMAL(5, 2)",
        "STRING",
        "BOOLEAN",
        "TIMESTAMP(3)",
        "DATE",
    ];
    for (name, iso) in [("j_ign", false), ("j_iso", true)] {
        let opts = JsonOptions {
            iso8601: iso,
            ..JsonOptions::default()
        };
        let mut reader = JsonReader::open(&split("in.json"), opts, info(&cols)).unwrap();
        let mut out_cols: Vec<&str> = cols.to_vec();
        out_cols.push("snull");
        let mut fmt = JsonFormat::new(&out_cols);
        let mut got = String::new();
        while let Some(rec) = reader.next_record().unwrap() {
            let mut out = Vec::new();
            fmt.begin_row(&mut out);
            let mut snull = false;
            for (i, ty) in types.iter().enumerate() {
                let null = write_typed(&rec, i, ty, &mut fmt, &mut out);
                if i == 4 {
                    snull = null;
                }
            }
            fmt.field(&mut out, &snull);
            fmt.end_row(&mut out);
            got.push_str(std::str::from_utf8(&out).unwrap());
        }
        assert_eq!(got, expected(name), "{name}");
    }
}
