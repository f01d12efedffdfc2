//! Column names derived as Flink derives them (Calcite's `getAlias`): a
//! select item that is a column reference, even in parentheses, keeps the
//! column's name; anything else is `EXPR$<position>`. A name stmtc derives
//! differently would let a job bind here that Flink refuses, or the reverse.

use stmtc::diagnostics::SourceFile;

const DDL: &str = "SET 'execution.runtime-mode' = 'batch';
CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'x.csv', 'format' = 'csv');
CREATE TABLE o (a INT, b STRING) WITH ('connector' = 'print');
";

fn accepted(insert: &str) -> Result<(), String> {
    let checked = stmtc::check(SourceFile::new("job.sql", format!("{DDL}{insert}")));
    if checked.has_errors() {
        Err(checked.render_diagnostics(false))
    } else {
        Ok(())
    }
}

#[test]
fn parenthesised_columns_keep_their_names() {
    // Flink 2.3 accepts this (observed with ../shared/flink/run_job.py).
    accepted("INSERT INTO o SELECT q.a, q.b FROM (SELECT (a), ((t.b)) FROM t) AS q;").unwrap();
    // ... and refuses this: "Column 'EXPR$0' not found in table 'q'".
    let err = accepted("INSERT INTO o SELECT q.`EXPR$0`, q.b FROM (SELECT (a), b FROM t) AS q;")
        .unwrap_err();
    assert!(err.contains("EXPR$0"), "{err}");
}

#[test]
fn computed_items_are_numbered_by_position() {
    accepted("INSERT INTO o SELECT q.`EXPR$0`, q.b FROM (SELECT a + 1, b FROM t) AS q;").unwrap();
    accepted("INSERT INTO o SELECT q.a, q.`EXPR$1` FROM (SELECT a, UPPER(b) FROM t) AS q;")
        .unwrap();
}
