//! Tests of expression code generation.
//!
//! - [`check`] pins the generated tokens of single expressions (readability,
//!   statics, unsupported constructs), without building anything.
//! - `flink_results` is the real proof: it binds Flink-run jobs
//!   (`fixtures/expressions` and `testdata/probe`, each with the expected
//!   sink files Flink 2.3 wrote), generates one Rust program that reads each
//!   job's csv input with the runtime, evaluates every INSERT's projections
//!   with the generated expressions and writes the rows with the runtime's
//!   csv format, builds and runs it (one scratch crate, built in release in
//!   the target directory the end-to-end tests share), and compares every value with
//!   Flink's. Columns that use a construct code generation refuses are
//!   listed, not compared; every other value must match byte for byte.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{expr, value_type, Statics};
use crate::diagnostics::{Diagnostics, SourceFile};
use crate::ir::{BoundJob, ConnectorKind, Expr, ExprKind, Rel, RelKind};
use crate::types::{DataType, TypeKind};

fn bind(sql: &str) -> BoundJob {
    let file = SourceFile::new("job.sql", sql);
    let mut diags = Diagnostics::default();
    let script = crate::parser::parse_script(&file, &mut diags);
    let job = crate::binder::bind_script(&file, &script, &mut diags);
    assert!(
        !diags.has_errors(),
        "test job does not check: {:?}",
        diags.into_sorted()
    );
    job
}

/// The projections of each INSERT from the scanned table up: a chain of
/// Project nodes over a Scan (what the jobs used here bind to).
fn projections(rel: &Rel) -> Option<(crate::ir::TableId, Vec<&[Expr]>)> {
    match &rel.kind {
        RelKind::Scan { table } => Some((*table, Vec::new())),
        RelKind::Project { input, exprs } => {
            let (table, mut levels) = projections(input)?;
            levels.push(exprs);
            Some((table, levels))
        }
        _ => None,
    }
}

/// Generates the tokens for the last expression of `SELECT <exprs> FROM t`
/// over `t(a INT, b BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3), dt DATE)`,
/// with column `i` read as `row.i`; `expected` is the pretty-printed
/// expression followed by the statics, or `ERR <message>`.
#[track_caller]
fn check(select: &str, expected: &str) {
    let sql = format!(
        "CREATE TABLE t (a INT, b BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3), dt DATE) \
         WITH ('connector' = 'blackhole');\n\
         CREATE TEMPORARY VIEW v AS SELECT {select} AS e FROM t;"
    );
    let job = bind(&sql);
    let (_, levels) = projections(&job.views[0].query).expect("a projection over t");
    let target = &levels[0][0];
    let mut statics = Statics::new();
    let actual = match expr(
        target,
        &|i| {
            let i = proc_macro2::Literal::usize_unsuffixed(i);
            quote!(row.#i)
        },
        &mut statics,
    ) {
        Ok(tokens) => {
            let items = statics.into_items();
            let file = quote! {
                fn f() { let _ = #tokens; }
                #(#items)*
            };
            crate::codegen::pretty::format(&file.to_string())
                .unwrap_or_else(|err| panic!("generated tokens do not print: {err}\n{tokens}"))
        }
        Err(message) => format!("ERR {message}"),
    };
    assert_eq!(actual.trim(), expected.trim(), "\n{actual}");
}

#[test]
fn generated_code_reads_well() {
    check(
        "a + 1",
        r#"
fn f() {
    let _ = match (row.0, Some(1i32)) {
        (Some(v0), Some(v1)) => Some(v0.wrapping_add(v1)),
        _ => None,
    };
}"#,
    );
    check(
        "s LIKE 'a%'",
        r#"
fn f() {
    let _ = match row.4.clone() {
        Some(v0) => Some(LIKE_0.as_ref().map_err(|e| rt::Error::new(e.clone()))?.matches(&v0)),
        None => None,
    };
}
static LIKE_0: std::sync::LazyLock<Result<rt::func::like::Like, String>> = std::sync::LazyLock::new(
    || rt::func::like::Like::new("a%", None)
);"#,
    );
    check(
        "a IN (1, 2, 3)",
        r#"
fn f() {
    let _ = {
        let v0 = row.0;
        match v0 {
            Some(1i32 | 2i32 | 3i32) => Some(true),
            Some(_) => Some(false),
            None => None,
        }
    };
}"#,
    );
    check(
        "CASE WHEN a > 0 THEN 'pos' END",
        r#"
fn f() {
    let _ = if rt::value::logic::is_true(match (row.0, Some(0i32)) {
        (Some(v0), Some(v1)) => Some(v0 > v1),
        _ => None,
    }) {
        Some(rt::value::Str::from("pos"))
    } else {
        None::<rt::value::Str>
    };
}"#,
    );
}

#[test]
fn unsupported_constructs_are_named() {
    check(
        "UUID()",
        "ERR UUID() is not supported by code generation yet",
    );
    check(
        "FROM_UNIXTIME(a, 'u')",
        "ERR FROM_UNIXTIME(INT, CHAR(1)) is not supported by code generation yet",
    );
    check(
        "FLOOR(ts TO DECADE)",
        "ERR FLOOR(TIMESTAMP(3) TO DECADE) is not supported by code generation yet",
    );
    check(
        "LOCALTIMESTAMP",
        "ERR LOCALTIMESTAMP() is not supported by code generation yet",
    );
}

/// One Flink-run job: its folder and what it binds to.
struct Case {
    name: &'static str,
    dir: PathBuf,
    job: BoundJob,
}

/// A generated column: tokens of `Option<T>`, or why it was not generated.
type Column = Result<(TokenStream, DataType), String>;

/// Generates, for one INSERT, a function `fn <name>(row: &Row) -> rt::Result<String>`
/// giving the csv line of the sink row, where a value whose expression fails
/// is written as `<stmtc fails: message>`; returns it and the reasons of the
/// sink columns that were not generated.
fn sink_function(
    name: &proc_macro2::Ident,
    source_types: &[DataType],
    levels: &[&[Expr]],
    statics: &mut Statics,
) -> (TokenStream, BTreeMap<usize, String>) {
    let mut body = Vec::new();
    let mut current: Vec<Column> = source_types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            let field = proc_macro2::Literal::usize_unsuffixed(i);
            Ok((quote!(row.#field.clone()), *ty))
        })
        .collect();
    for (depth, exprs) in levels.iter().enumerate() {
        let mut next = Vec::new();
        for (i, e) in exprs.iter().enumerate() {
            let mut missing = None;
            visit_columns(e, &mut |c| {
                if let Err(reason) = &current[c] {
                    missing.get_or_insert_with(|| reason.clone());
                }
            });
            let column = |c: usize| match &current[c] {
                Ok((tokens, _)) => tokens.clone(),
                Err(_) => quote!(unreachable!()),
            };
            let generated = match missing {
                Some(reason) => Err(reason),
                None => expr(e, &column, statics),
            };
            next.push(match generated {
                Ok(tokens) => {
                    // Each value fails on its own: a failing expression
                    // fails its column (and the columns computed from it),
                    // not the row.
                    let local = format_ident!("c{}_{}", depth, i);
                    let t = value_type(&e.ty);
                    body.push(quote! {
                        let #local: Result<Option<#t>, String> =
                            (|| -> rt::Result<Option<#t>> { Ok(#tokens) })().map_err(|e| e.to_string());
                    });
                    Ok((quote!(#local.clone().map_err(rt::Error::new)?), e.ty))
                }
                Err(reason) => Err(reason),
            });
        }
        current = next;
    }
    let mut skipped = BTreeMap::new();
    let fields: Vec<TokenStream> = current
        .iter()
        .enumerate()
        .map(|(i, c)| match c {
            Ok((_, ty)) => {
                let local = format_ident!("c{}_{}", levels.len() - 1, i);
                let write = match ty.kind {
                    TypeKind::Decimal { precision, scale } => quote! {
                        f.field(&mut out, &match value {
                            Some(v) => Field::Decimal(v, rt::value::DecimalType::new(#precision, #scale)),
                            None => Field::Null,
                        });
                    },
                    TypeKind::TimestampLtz(_) => quote! {
                        f.field(&mut out, &match value { Some(v) => Field::TimestampLtz(v), None => Field::Null });
                    },
                    _ => quote!(f.field(&mut out, &value);),
                };
                quote! {
                    match #local.clone() {
                        Ok(value) => { #write }
                        Err(e) => f.field(&mut out, &Some(rt::value::Str::from(format!("{FAILS}{e}>")))),
                    }
                }
            }
            Err(reason) => {
                skipped.insert(i, reason.clone());
                quote!(f.field(&mut out, &None::<i32>);)
            }
        })
        .collect();
    let function = quote! {
        fn #name(row: &Row) -> rt::Result<String> {
            #(#body)*
            let mut f = CsvFormat::default();
            let mut out = Vec::new();
            f.begin_row(&mut out);
            #(#fields)*
            f.end_row(&mut out);
            Ok(String::from_utf8_lossy(&out).trim_end().to_string())
        }
    };
    (function, skipped)
}

/// Calls `f` with every input column `e` reads.
fn visit_columns(e: &Expr, f: &mut dyn FnMut(usize)) {
    let mut go = |x: &Expr| visit_columns(x, f);
    match &e.kind {
        ExprKind::Column(i) => f(*i),
        ExprKind::Literal(_) => {}
        ExprKind::Unary { operand, .. }
        | ExprKind::Cast { operand, .. }
        | ExprKind::Extract { operand, .. }
        | ExprKind::RoundTime { operand, .. } => go(operand),
        ExprKind::Binary { left, right, .. } => {
            go(left);
            go(right);
        }
        ExprKind::Case {
            branches,
            otherwise,
        } => {
            for (c, v) in branches {
                go(c);
                go(v);
            }
            if let Some(o) = otherwise {
                go(o);
            }
        }
        ExprKind::InList { operand, list, .. } => {
            go(operand);
            list.iter().for_each(go);
        }
        ExprKind::Like {
            operand, pattern, ..
        } => {
            go(operand);
            go(pattern);
        }
        ExprKind::Call { args, .. } => args.iter().for_each(go),
        ExprKind::TimestampDiff { start, end, .. } => {
            go(start);
            go(end);
        }
        ExprKind::TimestampAdd { count, operand, .. } => {
            go(count);
            go(operand);
        }
    }
}

/// The getter reading column `i` of type `ty` from a csv record.
fn getter(i: usize, ty: &DataType) -> TokenStream {
    match ty.kind {
        TypeKind::Boolean => quote!(rec.bool(#i)?),
        TypeKind::TinyInt => quote!(rec.i8(#i)?),
        TypeKind::SmallInt => quote!(rec.i16(#i)?),
        TypeKind::Int => quote!(rec.i32(#i)?),
        TypeKind::BigInt => quote!(rec.i64(#i)?),
        TypeKind::Float => quote!(rec.f32(#i)?),
        TypeKind::Double => quote!(rec.f64(#i)?),
        TypeKind::Decimal { precision, scale } => {
            quote!(rec.decimal(#i, rt::value::DecimalType::new(#precision, #scale))?)
        }
        TypeKind::Date => quote!(rec.date(#i)?),
        TypeKind::Time(p) => quote!(rec.time(#i, #p)?),
        TypeKind::Timestamp(p) => quote!(rec.timestamp(#i, #p)?),
        _ => quote!(rec.string(#i)?),
    }
}

/// How the generated program writes a value whose expression fails, and
/// how Flink's golden table (`run_flink.py`) marks a value Flink failed on.
const STMTC_FAILS: &str = "<stmtc fails: ";
const FLINK_FAILS: &str = "<flink fails: ";

struct Program {
    tokens: TokenStream,
    /// Per case and sink: the columns not generated, with the reason.
    skipped: BTreeMap<(String, String), BTreeMap<usize, String>>,
}

fn program(cases: &[Case]) -> Program {
    let mut statics = Statics::new();
    let mut items = Vec::new();
    let mut runs = Vec::new();
    let mut skipped = BTreeMap::new();
    for (n, case) in cases.iter().enumerate() {
        let mut source = None;
        let mut sinks = Vec::new();
        let mut functions = Vec::new();
        for (k, insert) in case.job.inserts.iter().enumerate() {
            let (table, levels) = projections(&insert.query).expect("projections over a scan");
            assert!(
                source.is_none_or(|t| t == table),
                "one source table per job"
            );
            source = Some(table);
            let name = format_ident!("{}_sink{}", case.name, k);
            let types: Vec<DataType> = case
                .job
                .table(table)
                .physical_columns()
                .map(|(_, c)| c.ty)
                .collect();
            let (function, skips) = sink_function(&name, &types, &levels, &mut statics);
            let function = quote!(pub #function);
            let sink = case.job.table(insert.target).name.clone();
            skipped.insert((case.name.to_string(), sink.clone()), skips);
            functions.push(function);
            sinks.push((name, sink));
        }
        let table = case.job.table(source.expect("an insert"));
        let ConnectorKind::Filesystem { path, .. } = &table.connector.kind else {
            panic!("the source is a file")
        };
        let path = case.dir.join(path).display().to_string();
        let row_types: Vec<TokenStream> = table
            .physical_columns()
            .map(|(_, c)| {
                let t = value_type(&c.ty);
                quote!(Option<#t>)
            })
            .collect();
        let getters: Vec<TokenStream> = table
            .physical_columns()
            .enumerate()
            .map(|(i, (_, c))| getter(i, &c.ty))
            .collect();
        let names: Vec<&str> = table
            .physical_columns()
            .map(|(_, c)| c.name.as_str())
            .collect();
        let null_literal = match table.connector.options.get("csv.null-literal") {
            Some(l) => quote!(Some(#l.as_bytes().to_vec())),
            None => quote!(None),
        };
        let module = format_ident!("{}", case.name);
        let case_name = case.name;
        let sink_names = sinks.iter().map(|(_, s)| s.as_str());
        let sink_fns = sinks.iter().map(|(f, _)| quote!(#module::#f));
        items.push(quote! {
            mod #module {
                pub type Row = (#(#row_types,)*);
                pub fn read() -> rt::Result<Vec<Row>> {
                    let info = std::sync::Arc::new(rt::source::SourceInfo {
                        columns: vec![#(#names.to_string()),*],
                        ignore_parse_errors: false,
                    });
                    let opts = rt::source::csv::CsvOptions { null_literal: #null_literal, ..Default::default() };
                    let files = vec![std::path::PathBuf::from(#path)];
                    let mut rows = Vec::new();
                    for split in rt::source::files::plan_splits(&files, 1, opts.boundary())? {
                        let mut reader = rt::source::csv::CsvReader::open(&split, opts.clone(), info.clone())?;
                        while let Some(rec) = reader.next_record()? {
                            rows.push((#(#getters,)*));
                        }
                    }
                    Ok(rows)
                }
                use super::*;
                #(#functions)*
            }
        });
        let reads = format_ident!("rows{}", n);
        runs.push(quote! {
            let #reads = #module::read()?;
            for row in &#reads {
                #(
                    match #sink_fns(row) {
                        Ok(line) => println!("{}\t{}\t{}", #case_name, #sink_names, line),
                        Err(e) => println!(
                            "{}\t{}\t{},ERROR {}",
                            #case_name,
                            #sink_names,
                            row.0.map_or(String::new(), |id| id.to_string()),
                            e
                        ),
                    }
                )*
            }
        });
    }
    let statics = statics.into_items();
    let tokens = quote! {
        //! Generated by the stmtc codegen::expr tests.
        #![allow(unused_parens, unused_variables, clippy::all)]
        use stmtc_runtime as rt;
        use rt::source::Record;
        use rt::sink::format::{CsvFormat, Field, RowFormat};
        const FAILS: &str = #STMTC_FAILS;
        #(#statics)*
        #(#items)*
        fn main() {
            if let Err(e) = run() {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
        fn run() -> rt::Result<()> {
            #(#runs)*
            Ok(())
        }
    };
    Program { tokens, skipped }
}

/// Splits a csv line written by Flink (quotes only around fields that need
/// them, `""` inside quotes).
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().expect("a field").push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().expect("a field").push(c),
        }
    }
    fields
}

/// Rows of a sink file keyed by their first field (the input row's id).
fn rows_by_id(text: &str) -> BTreeMap<String, Vec<String>> {
    text.lines()
        .map(split_csv)
        .map(|f| (f[0].clone(), f))
        .collect()
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

#[path = "../../../tests/support/shared_build.rs"]
mod shared_build;

/// Writes the scratch crate, builds it as a job crate is built (release, the
/// job template's manifest, the runtime and target directory every test
/// shares), runs it and returns its stdout.
fn build_and_run(source: &str) -> String {
    let package = "codegen-expr-check";
    let runtime = shared_build::runtime_dir(crate::runtime_crate());
    let template = std::fs::read_to_string(workspace().join("templates/Cargo.toml.template"))
        .expect("templates/Cargo.toml.template");
    let runtime_path = runtime.display().to_string();
    let manifest = crate::codegen::project::render(
        &template,
        &[
            ("package", package),
            ("source", "compiler/src/codegen/expr/tests.rs"),
            ("stmtc_version", env!("CARGO_PKG_VERSION")),
            ("runtime_path", &runtime_path),
            ("features", ", features = [\"regex\"]"),
            ("codegen_units", "1"),
            ("incremental", "false"),
            ("large_lines", "8000"),
        ],
    )
    .expect("render Cargo.toml");
    let dir = shared_build::crate_dir(package);
    shared_build::write_files(
        &dir,
        &[
            (PathBuf::from("Cargo.toml"), manifest),
            // Pin the runtime's dependencies to the versions the workspace tests.
            (
                PathBuf::from("Cargo.lock"),
                std::fs::read_to_string(workspace().join("Cargo.lock")).expect("Cargo.lock"),
            ),
            (PathBuf::from("src/main.rs"), source.to_string()),
        ],
    );
    let binary = shared_build::build(package).unwrap_or_else(|e| {
        panic!(
            "the generated program does not build:\n{e}\nsource: {}",
            dir.join("src/main.rs").display()
        )
    });
    let output = Command::new(&binary).output().expect("the program runs");
    assert!(
        output.status.success(),
        "the generated program failed ({}):\n{}\nsource: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr),
        dir.join("src/main.rs").display()
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

/// Values that differ from Flink for reasons outside expression code
/// generation: reported by the test, not compared.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "probe_math.c11",
        "binder: `BIGINT % INT` casts the BIGINT operand to INT; Flink computes in BIGINT, then narrows",
    ),
    (
        "probe_math.c19",
        "Flink: ROUND(DECIMAL, non-literal n) yields a value whose scale is not its type's; CAST to STRING shows it",
    ),
];

/// Whether two DOUBLE texts are within 2 units in the last place: the JVM's
/// sin/atan2/... (HotSpot intrinsics, fdlibm) and the platform's libm may
/// round the last bit differently; exact operations never differ this way.
fn within_ulps(a: &str, b: &str) -> bool {
    let parse = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite() && *v != 0.0);
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) if x.signum() == y.signum() => x.to_bits().abs_diff(y.to_bits()) <= 2,
        _ => false,
    }
}

#[test]
fn flink_results() {
    let fixture = |name: &'static str, dir: PathBuf| {
        let sql = std::fs::read_to_string(dir.join("job.sql")).expect("job.sql");
        Case {
            name,
            dir,
            job: bind(&sql),
        }
    };
    let cases = [
        fixture("expressions", workspace().join("fixtures/expressions")),
        fixture(
            "probe",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("src/codegen/expr/testdata/probe"),
        ),
        fixture("function_probe", function_probe_dir()),
    ];
    let Program { tokens, skipped } = program(&cases);
    let source = crate::codegen::pretty::format(&tokens.to_string())
        .unwrap_or_else(|err| panic!("the generated program does not print: {err}"));
    let stdout = build_and_run(&source);

    let mut actual: BTreeMap<(String, String), String> = BTreeMap::new();
    for line in stdout.lines() {
        let mut parts = line.splitn(3, '\t');
        let (case, sink, row) = (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
        );
        let text = actual
            .entry((case.to_string(), sink.to_string()))
            .or_default();
        text.push_str(row);
        text.push('\n');
    }
    let mut failures = Vec::new();
    // The function probe's differences, compared with its KNOWN_DIFFERENCES.tsv.
    let mut probe_differences = BTreeSet::new();
    let mut last_bit = Vec::new();
    let mut compared = 0;
    let mut not_generated = BTreeSet::new();
    for case in &cases {
        for insert in &case.job.inserts {
            let sink = case.job.table(insert.target).name.clone();
            let key = (case.name.to_string(), sink.clone());
            let expected_path = case.dir.join("expected").join(format!("{sink}.csv"));
            let expected = std::fs::read_to_string(&expected_path).expect("expected file");
            let expected = rows_by_id(&expected);
            let got = rows_by_id(actual.get(&key).map_or("", String::as_str));
            let skips = &skipped[&key];
            let columns: Vec<String> = case
                .job
                .table(insert.target)
                .physical_columns()
                .map(|(_, c)| c.name.clone())
                .collect();
            for (i, reason) in skips {
                not_generated.insert(format!("{sink}.{}: {reason}", columns[*i]));
                if case.name == "function_probe" {
                    probe_differences.insert(ProbeDifference {
                        column: format!("{sink}.{}", columns[*i]),
                        id: "*".to_string(),
                        detail: format!("not generated: {reason}"),
                    });
                }
            }
            assert_eq!(
                expected.keys().collect::<Vec<_>>(),
                got.keys().collect::<Vec<_>>(),
                "{sink}: the rows differ\n{:?}",
                actual.get(&key)
            );
            for (id, want) in &expected {
                let have = &got[id];
                if have.get(1).is_some_and(|h| h.starts_with("ERROR")) {
                    failures.push(format!("{sink} id {id}: {}", have[1]));
                    continue;
                }
                for (i, w) in want.iter().enumerate() {
                    if skips.contains_key(&i) {
                        continue;
                    }
                    let column = format!("{sink}.{}", columns[i]);
                    if KNOWN_DIFFERENCES.iter().any(|(c, _)| *c == column) {
                        continue;
                    }
                    compared += 1;
                    let h = have.get(i).map_or("<missing>", String::as_str);
                    // Both failing on this value is the same outcome (the
                    // messages differ); one failing where the other gives a
                    // value is a difference like any other.
                    if h == w || (h.starts_with(STMTC_FAILS) && w.starts_with(FLINK_FAILS)) {
                        continue;
                    }
                    let difference = format!("{column} id {id}: flink `{w}`, generated `{h}`");
                    if case.name == "function_probe" && !within_ulps(w, h) {
                        probe_differences.insert(ProbeDifference {
                            column,
                            id: id.clone(),
                            detail: format!("flink `{w}`, stmtc `{h}`"),
                        });
                        continue;
                    }
                    if within_ulps(w, h) {
                        last_bit.push(difference);
                    } else {
                        failures.push(difference);
                    }
                }
            }
        }
    }
    eprintln!(
        "compared {compared} values\nnot generated ({}):\n  {}\nknown differences:\n  {}\nlast-bit DOUBLE differences ({}):\n  {}",
        not_generated.len(),
        not_generated.into_iter().collect::<Vec<_>>().join("\n  "),
        KNOWN_DIFFERENCES
            .iter()
            .map(|(c, why)| format!("{c}: {why}"))
            .collect::<Vec<_>>()
            .join("\n  "),
        last_bit.len(),
        last_bit.join("\n  "),
    );
    check_probe_differences(&probe_differences);
    assert!(
        failures.is_empty(),
        "{} values differ from Flink's:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn function_probe_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/codegen/expr/testdata/function_probe")
}

/// A value of the function probe where stmtc and Flink disagree: the sink
/// column (`fp_str.c3`, `fp_str.*` when the whole row failed), the row id
/// (`*` when the column was not generated at all) and what each gave.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ProbeDifference {
    column: String,
    id: String,
    detail: String,
}

/// The function probe's differences must be exactly those in
/// `KNOWN_DIFFERENCES.tsv` (column, row id, what Flink and stmtc gave): a
/// listed value that now matches fails the test as much as a new difference.
/// `STMTC_BLESS_PROBE=1` rewrites the file from the current differences
/// (review the diff: each line is a value stmtc gets wrong).
fn check_probe_differences(found: &BTreeSet<ProbeDifference>) {
    let path = function_probe_dir().join("KNOWN_DIFFERENCES.tsv");
    let header = "# Values of the function probe (job.sql, expected/) where stmtc differs from Flink 2.3.\n\
                  # column<TAB>row id<TAB>what differs; checked exactly by codegen::expr::tests::flink_results.\n";
    if std::env::var_os("STMTC_BLESS_PROBE").is_some() {
        let mut text = header.to_string();
        for d in found {
            text.push_str(&format!("{}\t{}\t{}\n", d.column, d.id, d.detail));
        }
        std::fs::write(&path, text).expect("write KNOWN_DIFFERENCES.tsv");
        return;
    }
    let listed: BTreeSet<ProbeDifference> = std::fs::read_to_string(&path)
        .expect("KNOWN_DIFFERENCES.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut parts = l.splitn(3, '\t');
            ProbeDifference {
                column: parts.next().unwrap_or_default().to_string(),
                id: parts.next().unwrap_or_default().to_string(),
                detail: parts.next().unwrap_or_default().to_string(),
            }
        })
        .collect();
    let show = |set: Vec<&ProbeDifference>| {
        set.iter()
            .map(|d| format!("  {}\t{}\t{}", d.column, d.id, d.detail))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let new: Vec<&ProbeDifference> = found.difference(&listed).collect();
    let gone: Vec<&ProbeDifference> = listed.difference(found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "the function probe's differences from Flink are not KNOWN_DIFFERENCES.tsv \
         (STMTC_BLESS_PROBE=1 rewrites it):\nnew differences:\n{}\nlisted but no longer found:\n{}",
        show(new),
        show(gone)
    );
}
