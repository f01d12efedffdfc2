//! Parser tests: each goes through `check`, which prints a compact summary of
//! the statements (or the located errors) so the expectations stay readable.

use super::*;

fn summarize(sql: &str) -> String {
    let file = SourceFile::new("job.sql", sql);
    let mut diags = Diagnostics::default();
    let script = parse_script(&file, &mut diags);
    let mut out = Vec::new();
    for stmt in &script.statements {
        out.push(match stmt {
            Statement::Set(s) => format!("SET {}={}", s.key, s.value),
            Statement::CreateTable(t) => {
                let cols: Vec<String> = t
                    .columns
                    .iter()
                    .map(|c| match &c.kind {
                        ColumnKind::Physical { data_type, .. } => {
                            format!("{} {data_type}", c.name.value)
                        }
                        ColumnKind::Computed { expr } => format!("{} AS {expr}", c.name.value),
                        ColumnKind::Metadata => format!("{} METADATA", c.name.value),
                    })
                    .collect();
                let opts: Vec<String> = t
                    .options
                    .iter()
                    .map(|o| format!("{}={}", o.key, o.value))
                    .collect();
                let mut line = format!(
                    "TABLE {} ({}) WITH ({})",
                    t.name.value,
                    cols.join(", "),
                    opts.join(", ")
                );
                if let Some(w) = &t.watermark {
                    line += &format!(" WATERMARK {} AS {}", w.column.value, w.expr);
                }
                if let Some(pk) = &t.primary_key {
                    let k: Vec<&str> = pk.columns.iter().map(|c| c.value.as_str()).collect();
                    line += &format!(" PK({})", k.join(","));
                }
                line
            }
            Statement::CreateView(v) => format!("VIEW {} AS {}", v.name.value, v.query),
            Statement::Insert(i) => format!(
                "{} {}{} {}",
                if i.overwrite { "OVERWRITE" } else { "INTO" },
                i.target.value,
                if i.columns.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({})",
                        i.columns
                            .iter()
                            .map(|c| c.value.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
                i.query
            ),
        });
    }
    for d in diags.into_sorted() {
        let at = file.line_col(d.span.start);
        out.push(format!("error {}:{}: {}", at.line, at.column, d.message));
    }
    out.join("\n")
}

#[track_caller]
fn check(sql: &str, expected: &str) {
    let actual = summarize(sql);
    assert_eq!(
        actual.trim(),
        expected.trim(),
        "\n--- actual ---\n{actual}\n"
    );
}

#[test]
fn parses_flink_ddl() {
    check(
        "SET 'execution.runtime-mode' = 'batch';
         -- a comment; with a semicolon
         CREATE TEMPORARY TABLE IF NOT EXISTS `orders` (
           id BIGINT NOT NULL PRIMARY KEY NOT ENFORCED,
           price DECIMAL(10, 2) COMMENT 'the price',
           ts TIMESTAMP(3),
           lts TIMESTAMP_LTZ(3),
           lts2 TIMESTAMP(3) WITH LOCAL TIME ZONE,
           s STRING, c CHAR(3), v VARCHAR(20), b BYTES, d DATE, t TIME(3),
           total AS price * 2,
           WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
         ) COMMENT 'orders' WITH ('connector' = 'filesystem', 'csv.field-delimiter' = ';');",
        "SET execution.runtime-mode=batch
TABLE orders (id BIGINT NOT NULL, price DECIMAL(10, 2), ts TIMESTAMP(3), lts TIMESTAMP_LTZ(3), lts2 TIMESTAMP_LTZ(3), s STRING, c CHAR(3), v VARCHAR(20), b BYTES, d DATE, t TIME(3), total AS price * 2) WITH (connector=filesystem, csv.field-delimiter=;) WATERMARK ts AS ts - INTERVAL '5' SECOND PK(id)",
    );
}

#[test]
fn parses_statement_sets_and_bare_inserts() {
    check(
        "CREATE VIEW v (a) AS SELECT x FROM t;
         EXECUTE STATEMENT SET BEGIN
           INSERT INTO s1 SELECT 'a;b' FROM t;
           INSERT OVERWRITE s2 (a, b) VALUES (1, 'x');
         END;
         BEGIN STATEMENT SET;
           INSERT INTO s3 (SELECT 1);
         END;
         INSERT INTO s4 SELECT * FROM v",
        "VIEW v AS SELECT x FROM t
INTO s1 SELECT 'a;b' FROM t
OVERWRITE s2 (a, b) VALUES (1, 'x')
INTO s3 (SELECT 1)
INTO s4 SELECT * FROM v",
    );
}

#[test]
fn parses_window_table_functions() {
    check(
        "INSERT INTO s SELECT window_start, COUNT(*) FROM TABLE(
           TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start",
        "INTO s SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start",
    );
}

#[test]
fn reports_every_syntax_error_with_its_location() {
    check(
        "CREATE TABLE t (a INT b INT) WITH ('connector' = 'x');
SELEC 1;
INSERT INTO s SELECT a,, b FROM t;
INSERT INTO s SELECT 1",
        "INTO s SELECT 1
error 1:23: syntax error: expected ',' or ')' after a column definition, found `b`
error 2:1: unsupported statement starting with `SELEC`
error 3:24: syntax error: expected an expression, found ,",
    );
}

#[test]
fn only_inserts_inside_a_statement_set() {
    check(
        "EXECUTE STATEMENT SET BEGIN
  CREATE VIEW v AS SELECT 1;
  INSERT INTO s SELECT 1;
END;",
        "INTO s SELECT 1
error 2:3: only INSERT statements are allowed in a statement set, found `CREATE`",
    );
    check(
        "BEGIN STATEMENT SET; INSERT INTO s SELECT 1;",
        "INTO s SELECT 1
error 1:1: statement set is not closed",
    );
}

#[test]
fn refuses_unquoted_option_values_and_unterminated_strings() {
    check(
        "CREATE TABLE t (a INT) WITH ('number-of-rows' = 10);",
        "error 1:49: option values must be string literals, found 10",
    );
    check(
        "INSERT INTO s SELECT 'abc FROM t",
        "error 1:22: syntax error: unterminated string literal",
    );
}

#[test]
fn refuses_deep_nesting_without_overflowing() {
    let depth = 10_000;
    let sql = format!(
        "INSERT INTO s SELECT {}1{} FROM t",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    // On 8 MB, the stack of a CLI's main thread: the test builds sqlparser
    // unoptimized (Cargo.toml), whose frames need more than a test thread's
    // 2 MB for the 200 levels the limit allows. stmtc itself parses on a
    // 1 GiB stack (`lib.rs`, `on_big_stack`).
    let out = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || summarize(&sql))
        .expect("spawn")
        .join()
        .expect("no overflow, no panic");
    assert!(out.contains("nested too deeply"), "{out}");
}

#[test]
fn refuses_flink_reserved_words_as_unquoted_identifiers() {
    check(
        "CREATE TABLE raw (value INT, `date` DATE, data INT, PRIMARY KEY (value) NOT ENFORCED) WITH ('connector' = 'x');
CREATE VIEW v (rank) AS SELECT COUNT(*), UPPER(s), CURRENT_DATE, TIMESTAMPDIFF(HOUR, a, b) FROM t AS string;
INSERT INTO s (a, year) SELECT t.count, x AS dot FROM t JOIN u USING (sql) WHERE `user` = 1 ORDER BY bytes",
        "TABLE raw (value INT, date DATE, data INT) WITH (connector=x) PK(value)
VIEW v AS SELECT COUNT(*), UPPER(s), CURRENT_DATE, TIMESTAMPDIFF(HOUR, a, b) FROM t AS string
INTO s (a, year) SELECT t.count, x AS dot FROM t JOIN u USING(sql) WHERE `user` = 1 ORDER BY bytes
error 1:14: `raw` is a reserved word in Flink SQL
error 1:19: `value` is a reserved word in Flink SQL
error 1:66: `value` is a reserved word in Flink SQL
error 2:16: `rank` is a reserved word in Flink SQL
error 2:102: `string` is a reserved word in Flink SQL
error 3:19: `year` is a reserved word in Flink SQL
error 3:34: `count` is a reserved word in Flink SQL
error 3:46: `dot` is a reserved word in Flink SQL
error 3:71: `sql` is a reserved word in Flink SQL
error 3:102: `bytes` is a reserved word in Flink SQL",
    );
}

#[test]
fn reserved_words_are_sorted_for_binary_search() {
    let words = reserved::RESERVED;
    assert!(words.windows(2).all(|w| w[0] < w[1]));
    assert!(words.iter().all(|w| *w == w.to_ascii_uppercase()));
    assert!(reserved::is_reserved("raw") && !reserved::is_reserved("data"));
}

#[test]
fn a_column_takes_one_nullability_then_one_primary_key() {
    // As Flink 2.3's parser: `INT NULL` and `INT NOT NULL PRIMARY KEY NOT
    // ENFORCED` are fine; a second NULL / NOT NULL, or one after the key, is
    // a syntax error ("Encountered \"NOT\"").
    check(
        "CREATE TABLE a (x INT NULL, y INT NOT NULL PRIMARY KEY NOT ENFORCED) WITH ('connector' = 'x');
CREATE TABLE b (x DOUBLE PRECISION NOT NULL NOT NULL) WITH ('connector' = 'x');
CREATE TABLE c (x INT NOT NULL NULL) WITH ('connector' = 'x');
CREATE TABLE d (x INT PRIMARY KEY NOT ENFORCED NOT NULL) WITH ('connector' = 'x');",
        "TABLE a (x INT, y INT NOT NULL) WITH (connector=x) PK(y)
error 2:45: syntax error: unexpected NULL / NOT NULL: a column takes one NULL or NOT NULL, right after its type, then at most one PRIMARY KEY NOT ENFORCED
error 3:32: syntax error: unexpected NULL / NOT NULL: a column takes one NULL or NOT NULL, right after its type, then at most one PRIMARY KEY NOT ENFORCED
error 4:48: syntax error: unexpected NULL / NOT NULL: a column takes one NULL or NOT NULL, right after its type, then at most one PRIMARY KEY NOT ENFORCED",
    );
}

#[test]
fn between_symmetric_expands_and_asymmetric_is_plain_between() {
    check(
        "INSERT INTO o SELECT x BETWEEN SYMMETRIC a AND b + 1, x NOT BETWEEN SYMMETRIC 1 AND 2 AND c, \
         x BETWEEN ASYMMETRIC 1 AND 2, x NOT BETWEEN ASYMMETRIC 1 AND 2 FROM t;",
        "INTO o SELECT ((x BETWEEN a AND b + 1) OR (x BETWEEN b + 1 AND a)), \
         NOT ((x BETWEEN 1 AND 2) OR (x BETWEEN 2 AND 1)) AND c, \
         x BETWEEN 1 AND 2, x NOT BETWEEN 1 AND 2 FROM t",
    );
    check(
        "INSERT INTO o SELECT x BETWEEN SYMMETRIC 1 FROM t;",
        "error 1:44: syntax error: expected AND, found FROM",
    );
}

#[test]
fn a_bare_subquery_element_of_rollup_cube_and_grouping_sets_is_one_key() {
    check(
        "INSERT INTO o SELECT a, COUNT(*) FROM t GROUP BY CUBE(a, (SELECT MIN(b) FROM r)), \
         ROLLUP((SELECT MAX(b) FROM r) , (a, b)), GROUPING SETS ((SELECT 1), (a), ()), \
         ROLLUP(( SELECT 2 ) + 1, (a));",
        // sqlparser prints a grouping set of one key in parentheses and a
        // ROLLUP element of one key without.
        "INTO o SELECT a, COUNT(*) FROM t GROUP BY CUBE (a, (SELECT MIN(b) FROM r)), \
         ROLLUP ((SELECT MAX(b) FROM r), (a, b)), GROUPING SETS (((SELECT 1)), (a), ()), \
         ROLLUP ((SELECT 2) + 1, a)",
    );
    // A list left open is still sqlparser's error, at its own token.
    check(
        "INSERT INTO o SELECT a FROM t GROUP BY ROLLUP(a, (SELECT MIN(b) FROM r);",
        "error 1:72: syntax error: expected ), found ;",
    );
}
