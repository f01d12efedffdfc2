//! Streaming mode: what `check` refuses because stmtc would answer it with
//! batch semantics.
//!
//! Flink runs a job in streaming mode unless it sets
//! `'execution.runtime-mode' = 'batch'`. There a GROUP BY, an outer join or a
//! top-N emits a changelog (`+I`, then `-U`/`+U`/`-D` as rows arrive): a
//! print sink prints every change, and a filesystem sink refuses the job.
//! stmtc computes final rows only, so until it implements changelogs, an
//! INSERT whose sink would receive updates is an error, located at the
//! INSERT. Insert-only queries (filters, projections, inner joins, UNION ALL,
//! window TVFs and their window aggregates, LIMIT without ORDER BY) give the
//! same rows in both modes and stay accepted. What Flink 2.3 did on each
//! construct is in `docs/flink-observed/streaming-mode.md`.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::ir::{BoundInsert, BoundJob, ConnectorKind, ExprKind, JoinKind, Rel, RelKind};

const BATCH_HELP: &str = "add `SET 'execution.runtime-mode' = 'batch';` to the job for batch \
                          semantics (final rows only); stmtc does not implement streaming changelogs yet";

/// Reports every INSERT of a streaming job that stmtc cannot run as Flink does.
pub(crate) fn check_streaming(job: &BoundJob, diags: &mut Diagnostics) {
    if !is_streaming(job) {
        return;
    }
    for insert in &job.inserts {
        if let Some(d) = check_insert(job, insert) {
            diags.push(d);
        }
    }
}

/// Streaming unless the last `SET 'execution.runtime-mode'` says batch, as in
/// Flink (the value is case-insensitive; other values are the binder's errors).
pub(crate) fn is_streaming(job: &BoundJob) -> bool {
    job.settings
        .iter()
        .rev()
        .find(|(key, _)| key == "execution.runtime-mode")
        .is_none_or(|(_, value)| !value.eq_ignore_ascii_case("batch"))
}

/// What in a query makes Flink's streaming answer differ from stmtc's.
enum Finding<'r> {
    /// Flink refuses the query in streaming mode, with this message.
    FlinkRefuses(&'r Rel, String),
    /// stmtc refuses an insert-only construct it does not run as Flink does.
    Unsupported(&'r Rel, String),
    /// The node emits updates: what it is for a reader, Flink's node
    /// description, and whether it also emits deletes.
    Updates {
        rel: &'r Rel,
        what: String,
        flink_node: String,
        deletes: bool,
    },
}

fn check_insert(job: &BoundJob, insert: &BoundInsert) -> Option<Diagnostic> {
    let sink = job.table(insert.target);
    // A blackhole sink shows nothing of the changelog it swallows.
    let finding = refused(job, &insert.query).or_else(|| {
        (sink.connector.kind != ConnectorKind::Blackhole)
            .then(|| updating(&insert.query, sink.connector.kind == ConnectorKind::Print))
            .flatten()
    });
    let Some(finding) = finding else {
        // Flink checks this when it runs the job, after planning.
        return insert.overwrite.then(|| {
            Diagnostic::error(insert.span, "Streaming mode not support overwrite.")
                .with_note("this is Flink's message: in streaming mode (Flink's default) INSERT OVERWRITE is refused")
                .with_help("use INSERT INTO, or add `SET 'execution.runtime-mode' = 'batch';` to the job")
        });
    };
    let at = |d: Diagnostic, rel: &Rel, label: &str| {
        if rel.span != insert.span && rel.span.start != rel.span.end {
            d.with_related(rel.span, label.to_string())
        } else {
            d
        }
    };
    Some(match finding {
        Finding::FlinkRefuses(rel, message) => at(
            Diagnostic::error(insert.span, message)
                .with_note("this is Flink's message: it refuses the query in streaming mode (Flink's default)")
                .with_help("add `SET 'execution.runtime-mode' = 'batch';` to the job for batch semantics"),
            rel,
            "here",
        ),
        Finding::Unsupported(rel, what) => at(
            Diagnostic::error(
                insert.span,
                format!("{what} is not supported by stmtc in streaming mode (Flink's default) yet"),
            )
            .with_help(BATCH_HELP),
            rel,
            "here",
        ),
        Finding::Updates {
            rel,
            what,
            flink_node,
            deletes,
        } => {
            let changes = if deletes {
                "update and delete changes"
            } else {
                "update changes"
            };
            let d = match sink.connector.kind {
                ConnectorKind::Filesystem { .. } => Diagnostic::error(
                    insert.span,
                    format!(
                        "Table sink 'default_catalog.default_database.{}' doesn't support consuming {changes} which is produced by node {flink_node}",
                        sink.name
                    ),
                )
                .with_note(format!(
                    "this is Flink's message: in streaming mode (Flink's default) {what} emits a changelog, which a filesystem sink cannot take"
                )),
                _ => Diagnostic::error(
                    insert.span,
                    format!(
                        "in streaming mode (Flink's default) {what} makes sink `{}` receive {changes}, which stmtc does not implement yet",
                        sink.name
                    ),
                )
                .with_note(format!(
                    "Flink would write a changelog to `{}`: `+I` rows, then `-U`/`+U`{} rows as input rows arrive",
                    sink.name,
                    if deletes { "/`-D`" } else { "" }
                )),
            };
            at(d.with_help(BATCH_HELP), rel, "emits the updates")
        }
    })
}

/// A construct Flink refuses in streaming mode, or stmtc does, anywhere in
/// the query (Flink's planner fails on these before it looks at sinks).
fn refused<'r>(job: &BoundJob, rel: &'r Rel) -> Option<Finding<'r>> {
    match &rel.kind {
        RelKind::Window {
            input, time_column, ..
        } if !is_time_attribute(job, input, *time_column) => {
            let ty = input.schema[*time_column].ty.to_string();
            let ty = ty.trim_end_matches(" NOT NULL");
            return Some(Finding::FlinkRefuses(
                rel,
                format!(
                    "The window function requires the timecol is a time attribute type, but is {ty}."
                ),
            ));
        }
        // Flink's streaming OVER needs a time attribute ORDER BY and
        // emits per arriving row; stmtc runs OVER windows in batch mode only.
        RelKind::Over { .. } => {
            return Some(Finding::Unsupported(
                rel,
                "an OVER window (OVER, Top-N or deduplication)".into(),
            ))
        }
        RelKind::Sort {
            input, keys, limit, ..
        } if !keys.is_empty() && limit.is_none() => {
            let first = keys[0];
            return Some(
                if !first.descending && is_time_attribute(job, input, first.column) {
                    Finding::Unsupported(
                        rel,
                        "ORDER BY on a time attribute (a temporal sort)".into(),
                    )
                } else {
                    Finding::FlinkRefuses(
                        rel,
                        "Sort on a non-time-attribute field is not supported.".into(),
                    )
                },
            );
        }
        _ => {}
    }
    children(rel).into_iter().find_map(|c| refused(job, c))
}

/// The outermost node that emits updates in Flink's streaming mode, if any.
/// `printed`: the rows go to a print sink, which shows the changes Flink
/// actually emits rather than refusing a changelog.
fn updating(rel: &Rel, printed: bool) -> Option<Finding<'_>> {
    match &rel.kind {
        RelKind::Aggregate {
            input,
            group,
            aggregates,
        } => {
            // A DISTINCT (or GROUP BY without aggregate calls) is updating in
            // Flink's changelog modes, but it emits a group's row once, when
            // the group appears (an unchanged row is not re-emitted): a print
            // sink shows the `+I` rows of the batch answer.
            let distinct = aggregates.is_empty() && !group.is_empty();
            if is_window_aggregate(input, group) || (distinct && printed) {
                return updating(input, printed);
            }
            let keys: Vec<&str> = group
                .iter()
                .map(|&g| input.schema[g].name.as_str())
                .collect();
            let what = if group.is_empty() {
                "the global aggregate (an aggregate without GROUP BY)".to_string()
            } else if aggregates.is_empty() && matches!(input.kind, RelKind::UnionAll { .. }) {
                "UNION (without ALL, a DISTINCT over the union)".to_string()
            } else if aggregates.is_empty() {
                format!("the DISTINCT / GROUP BY aggregate on {}", quoted(&keys))
            } else {
                format!("the GROUP BY aggregate on {}", quoted(&keys))
            };
            let flink_node = if group.is_empty() {
                "GroupAggregate".to_string()
            } else {
                format!("GroupAggregate(groupBy=[{}])", keys.join(", "))
            };
            Some(Finding::Updates {
                rel,
                what,
                flink_node,
                deletes: false,
            })
        }
        RelKind::Join {
            kind: kind @ (JoinKind::Left | JoinKind::Right | JoinKind::Full),
            ..
        } => {
            let (sql, flink) = match kind {
                JoinKind::Left => ("LEFT JOIN", "LeftOuterJoin"),
                JoinKind::Right => ("RIGHT JOIN", "RightOuterJoin"),
                _ => ("FULL JOIN", "FullOuterJoin"),
            };
            Some(Finding::Updates {
                rel,
                what: format!("the {sql} (a regular outer join)"),
                flink_node: format!("Join(joinType=[{flink}])"),
                deletes: true,
            })
        }
        RelKind::Join {
            kind: JoinKind::Anti,
            ..
        } => Some(Finding::Updates {
            rel,
            what: "the NOT EXISTS / NOT IN / ALL subquery (an anti join)".to_string(),
            flink_node: "Join(joinType=[LeftAntiJoin])".to_string(),
            deletes: true,
        }),
        RelKind::Sort {
            input,
            keys,
            offset,
            limit: Some(limit),
        } if !keys.is_empty() => {
            let order: Vec<String> = keys
                .iter()
                .map(|k| k.describe(&input.schema[k.column].name))
                .collect();
            Some(Finding::Updates {
                rel,
                what: "ORDER BY ... LIMIT (a top-N)".to_string(),
                flink_node: format!(
                    "SortLimit(orderBy=[{}], offset=[{}], fetch=[{limit}])",
                    order.join(", "),
                    offset.unwrap_or(0)
                ),
                deletes: true,
            })
        }
        _ => children(rel).into_iter().find_map(|c| updating(c, printed)),
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn children(rel: &Rel) -> Vec<&Rel> {
    match &rel.kind {
        RelKind::Scan { .. } | RelKind::Values { .. } => Vec::new(),
        RelKind::Filter { input, .. }
        | RelKind::Project { input, .. }
        | RelKind::Aggregate { input, .. }
        | RelKind::Sort { input, .. }
        | RelKind::Over { input, .. }
        | RelKind::Window { input, .. } => vec![input],
        RelKind::Join { left, right, .. } => vec![left, right],
        RelKind::UnionAll { inputs } => inputs.iter().collect(),
    }
}

/// Flink's window aggregate: grouped by the `window_start` and `window_end`
/// of one window TVF (plus any other keys). Grouping by only one of them is
/// a regular, updating aggregate over the TVF's rows.
fn is_window_aggregate(input: &Rel, group: &[usize]) -> bool {
    let origins: Vec<(&Rel, usize)> = group
        .iter()
        .filter_map(|&g| window_column(input, g))
        .collect();
    origins.iter().any(|&(window, column)| {
        let RelKind::Window { input, .. } = &window.kind else {
            return false;
        };
        let start = input.schema.len();
        column == start
            && origins
                .iter()
                .any(|&(other, c)| std::ptr::eq(other, window) && c == start + 1)
    })
}

/// The window TVF and its output column that column `col` of `rel` is,
/// passed through unchanged; None if it is computed or comes from elsewhere.
fn window_column(rel: &Rel, col: usize) -> Option<(&Rel, usize)> {
    match &rel.kind {
        RelKind::Window { .. } => Some((rel, col)),
        RelKind::Filter { input, .. } => window_column(input, col),
        RelKind::Project { input, exprs } => match exprs[col].kind {
            ExprKind::Column(c) => window_column(input, c),
            _ => None,
        },
        _ => None,
    }
}

/// Whether column `col` of `rel` is a rowtime attribute in Flink: a table's
/// WATERMARK column passed through unchanged (a cast or any computation
/// makes it a plain timestamp), or the `window_time` of a window TVF.
fn is_time_attribute(job: &BoundJob, rel: &Rel, col: usize) -> bool {
    match &rel.kind {
        RelKind::Scan { table } => {
            let table = job.table(*table);
            // The scan yields the physical columns; the watermark names a
            // declared column.
            let declared = table.physical_columns().nth(col).map(|(i, _)| i);
            table.watermark.as_ref().map(|(w, _)| *w) == declared && declared.is_some()
        }
        RelKind::Project { input, exprs } => {
            // The projection that adds a table's computed columns to its scan
            // keeps the declared positions.
            if let RelKind::Scan { table } = &input.kind {
                let table = job.table(*table);
                if exprs.len() == table.columns.len()
                    && rel
                        .schema
                        .iter()
                        .zip(&table.columns)
                        .all(|(f, c)| f.name == c.name)
                {
                    return table.watermark.as_ref().is_some_and(|(w, _)| *w == col);
                }
            }
            match exprs[col].kind {
                ExprKind::Column(c) => is_time_attribute(job, input, c),
                _ => false,
            }
        }
        RelKind::Filter { input, .. } => is_time_attribute(job, input, col),
        RelKind::Window { input, .. } => {
            let arity = input.schema.len();
            if col < arity {
                is_time_attribute(job, input, col)
            } else {
                col == arity + 2
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::{Diagnostics, SourceFile};

    const TABLES: &str = "
        CREATE TABLE o (id BIGINT, region STRING, amount INT, ts TIMESTAMP(3),
          WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
          WITH ('connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
        CREATE TABLE plain (id BIGINT, region STRING, amount INT, ts TIMESTAMP(3))
          WITH ('connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
        CREATE TABLE r (code STRING, name STRING)
          WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
        CREATE TABLE p1 (a BIGINT) WITH ('connector' = 'print');
        CREATE TABLE p2 (a STRING, b BIGINT) WITH ('connector' = 'print');
        CREATE TABLE f2 (a STRING, b BIGINT)
          WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
        CREATE TABLE w (s TIMESTAMP(3), e TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
        CREATE TABLE b2 (a STRING, b BIGINT) WITH ('connector' = 'blackhole');
    ";

    /// `insert` runs in streaming mode after [`TABLES`]; `expect` is the
    /// start of the first error, or `ok`.
    #[track_caller]
    fn check(insert: &str, expect: &str) {
        let sql = format!("{TABLES}\n{insert}");
        let file = SourceFile::new("job.sql", &sql);
        let mut diags = Diagnostics::default();
        let script = crate::parser::parse_script(&file, &mut diags);
        let job = crate::binder::bind_script(&file, &script, &mut diags);
        assert!(!diags.has_errors(), "{insert}: {:?}", diags.into_sorted());
        super::check_streaming(&job, &mut diags);
        let got = diags
            .into_sorted()
            .first()
            .map_or("ok".to_string(), |d| d.message.clone());
        assert!(
            got.starts_with(expect),
            "{insert}\n got: {got}\nwant: {expect}"
        );
    }

    #[test]
    fn insert_only_queries_are_accepted() {
        check(
            "INSERT INTO p1 SELECT id * 2 FROM plain WHERE amount > 1;",
            "ok",
        );
        check(
            "INSERT INTO p2 SELECT r.name, o.id FROM plain AS o JOIN r ON o.region = r.code;",
            "ok",
        );
        check(
            "INSERT INTO p1 SELECT id FROM plain UNION ALL SELECT id FROM o;",
            "ok",
        );
        check("INSERT INTO p1 SELECT id FROM plain LIMIT 2;", "ok");
        check("INSERT INTO p1 VALUES (1), (2);", "ok");
        // Into print, a DISTINCT shows each row once, as `+I`.
        check(
            "INSERT INTO p2 SELECT DISTINCT region, id FROM plain;",
            "ok",
        );
        check(
            "INSERT INTO p1 SELECT id FROM plain UNION SELECT id FROM o;",
            "ok",
        );
        check(
            "INSERT INTO w SELECT window_start, window_end, COUNT(*)
             FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND))
             WHERE amount > 0 GROUP BY window_start, window_end;",
            "ok",
        );
        check(
            "INSERT INTO p2 SELECT region, COUNT(*)
             FROM TABLE(HOP(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
             GROUP BY window_end, region, window_start;",
            "ok",
        );
        // Nothing of a blackhole sink's input is observable.
        check(
            "INSERT INTO b2 SELECT region, COUNT(*) FROM plain GROUP BY region;",
            "ok",
        );
    }

    #[test]
    fn updating_queries_are_refused() {
        check(
            "INSERT INTO p2 SELECT region, COUNT(*) FROM plain GROUP BY region;",
            "in streaming mode (Flink's default) the GROUP BY aggregate on `region` makes sink `p2` receive update changes",
        );
        check(
            "INSERT INTO f2 SELECT region, COUNT(*) FROM plain GROUP BY region;",
            "Table sink 'default_catalog.default_database.f2' doesn't support consuming update changes which is produced by node GroupAggregate(groupBy=[region])",
        );
        check(
            "INSERT INTO p1 SELECT COUNT(*) FROM plain;",
            "in streaming mode (Flink's default) the global aggregate",
        );
        check(
            "INSERT INTO p2 SELECT r.name, o.id FROM plain AS o LEFT JOIN r ON o.region = r.code;",
            "in streaming mode (Flink's default) the LEFT JOIN",
        );
        check(
            "INSERT INTO f2 SELECT r.name, o.id FROM plain AS o FULL JOIN r ON o.region = r.code;",
            "Table sink 'default_catalog.default_database.f2' doesn't support consuming update and delete changes which is produced by node Join(joinType=[FullOuterJoin])",
        );
        check(
            "INSERT INTO f2 SELECT region, id FROM plain UNION SELECT region, id FROM o;",
            "Table sink 'default_catalog.default_database.f2' doesn't support consuming update changes which is produced by node GroupAggregate(groupBy=[region, id])",
        );
        check(
            "INSERT INTO f2 SELECT DISTINCT region, id FROM plain;",
            "Table sink 'default_catalog.default_database.f2' doesn't support consuming update changes which is produced by node GroupAggregate(groupBy=[region, id])",
        );
        check(
            "INSERT INTO p2 SELECT DISTINCT a, b FROM (SELECT region AS a, COUNT(*) AS b FROM plain GROUP BY region);",
            "in streaming mode (Flink's default) the GROUP BY aggregate on `region`",
        );
        check(
            "INSERT INTO f2 SELECT region, id FROM plain ORDER BY id DESC LIMIT 2;",
            "Table sink 'default_catalog.default_database.f2' doesn't support consuming update and delete changes which is produced by node SortLimit(orderBy=[id DESC], offset=[0], fetch=[2])",
        );
        check(
            "INSERT INTO w SELECT window_start, window_start, COUNT(*)
             FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND))
             GROUP BY window_start;",
            "in streaming mode (Flink's default) the GROUP BY aggregate on `window_start`",
        );
        // Above a window aggregate, an aggregate is a regular one.
        check(
            "INSERT INTO p1 SELECT COUNT(*) FROM (SELECT window_start, COUNT(*) AS n
             FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND))
             GROUP BY window_start, window_end);",
            "in streaming mode (Flink's default) the global aggregate",
        );
    }

    #[test]
    fn flink_refusals_use_flink_wording() {
        check(
            "INSERT INTO p1 SELECT id FROM plain ORDER BY id;",
            "Sort on a non-time-attribute field is not supported.",
        );
        check(
            "INSERT INTO w SELECT ts, window_end, id FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) ORDER BY ts;",
            "ORDER BY on a time attribute (a temporal sort) is not supported by stmtc",
        );
        check(
            "INSERT INTO w SELECT window_start, window_end, COUNT(*)
             FROM TABLE(TUMBLE(TABLE plain, DESCRIPTOR(ts), INTERVAL '5' SECOND))
             GROUP BY window_start, window_end;",
            "The window function requires the timecol is a time attribute type, but is TIMESTAMP(3).",
        );
        check(
            "INSERT OVERWRITE f2 SELECT region, id FROM plain;",
            "Streaming mode not support overwrite.",
        );
    }

    #[test]
    fn automatic_mode_is_refused_as_flink_does() {
        let sql = format!("SET 'execution.runtime-mode' = 'automatic';\n{TABLES}");
        let file = SourceFile::new("job.sql", &sql);
        let mut diags = Diagnostics::default();
        let script = crate::parser::parse_script(&file, &mut diags);
        crate::binder::bind_script(&file, &script, &mut diags);
        let messages: Vec<String> = diags.into_sorted().into_iter().map(|d| d.message).collect();
        assert_eq!(
            messages,
            ["Unsupported mode 'AUTOMATIC' for 'execution.runtime-mode'. Only an explicit BATCH or STREAMING mode is supported in Table API."]
        );
    }

    #[test]
    fn batch_mode_is_not_checked() {
        check(
            "SET 'execution.runtime-mode' = 'BATCH';
             INSERT OVERWRITE f2 SELECT region, COUNT(*) FROM plain GROUP BY region;",
            "ok",
        );
    }
}
