//! A readable text form of the bound statement set, for `stmtc check
//! --print bound` and the binder's snapshot tests: one line per operator,
//! inputs indented, every expression with its Flink type.

use std::fmt::Write as _;

use crate::ir::{BoundJob, ConnectorKind, Expr, ExprKind, Field, Literal, Rel, RelKind, UnaryOp};

pub fn bound_job(job: &BoundJob) -> String {
    let mut out = String::new();
    for (k, v) in &job.settings {
        let _ = writeln!(out, "SET '{k}' = '{v}'");
    }
    for table in &job.tables {
        let columns: Vec<String> = table
            .columns
            .iter()
            .map(|c| match &c.computed {
                Some(e) => format!(
                    "{} {} AS {}",
                    c.name,
                    c.ty,
                    expr(e, &physical_fields(table))
                ),
                None => format!("{} {}", c.name, c.ty),
            })
            .collect();
        let connector = match &table.connector.kind {
            ConnectorKind::Filesystem { path, format } => {
                format!("filesystem {format:?} '{path}'").to_lowercase()
            }
            other => other.name().to_string(),
        };
        let _ = writeln!(
            out,
            "TABLE {} {} ({}) [{connector}]",
            table.id,
            table.name,
            columns.join(", ")
        );
    }
    for view in &job.views {
        let _ = writeln!(out, "VIEW {}", view.name);
        rel(&mut out, &view.query, 1);
    }
    for insert in &job.inserts {
        let table = job.table(insert.target);
        let _ = writeln!(
            out,
            "INSERT {} {}",
            if insert.overwrite {
                "OVERWRITE"
            } else {
                "INTO"
            },
            table.name
        );
        rel(&mut out, &insert.query, 1);
    }
    out
}

fn physical_fields(table: &crate::ir::Table) -> Vec<Field> {
    table
        .physical_columns()
        .map(|(_, c)| Field {
            name: c.name.clone(),
            ty: c.ty,
        })
        .collect()
}

fn rel(out: &mut String, r: &Rel, depth: usize) {
    let pad = "  ".repeat(depth);
    let input_schema = |r: &Rel| -> Vec<Field> {
        match &r.kind {
            RelKind::Filter { input, .. }
            | RelKind::Project { input, .. }
            | RelKind::Aggregate { input, .. }
            | RelKind::Sort { input, .. }
            | RelKind::Over { input, .. }
            | RelKind::Window { input, .. } => input.schema.clone(),
            RelKind::Join { left, right, .. } => {
                left.schema.iter().chain(&right.schema).cloned().collect()
            }
            _ => Vec::new(),
        }
    };
    let fields = input_schema(r);
    let line = match &r.kind {
        RelKind::Scan { table } => format!("Scan {table}"),
        RelKind::Values { rows } => {
            let rows: Vec<String> = rows
                .iter()
                .map(|row| {
                    format!(
                        "({})",
                        row.iter()
                            .map(|e| expr(e, &[]))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
                .collect();
            format!("Values {}", rows.join(", "))
        }
        RelKind::Filter { predicate, .. } => format!("Filter {}", expr(predicate, &fields)),
        RelKind::Project { exprs, .. } => {
            let items: Vec<String> = exprs
                .iter()
                .zip(&r.schema)
                .map(|(e, f)| {
                    let text = expr(e, &fields);
                    if text == f.name {
                        text
                    } else {
                        format!("{text} AS {}", f.name)
                    }
                })
                .collect();
            format!("Project {}", items.join(", "))
        }
        RelKind::Aggregate {
            group, aggregates, ..
        } => {
            let keys: Vec<&str> = group.iter().map(|&g| fields[g].name.as_str()).collect();
            let aggs: Vec<String> = aggregates
                .iter()
                .map(|a| {
                    let args: Vec<&str> = a.args.iter().map(|&i| fields[i].name.as_str()).collect();
                    let args = if args.is_empty() {
                        "*".to_string()
                    } else {
                        args.join(", ")
                    };
                    let filter = a
                        .filter
                        .map(|f| format!(" FILTER {}", fields[f].name))
                        .unwrap_or_default();
                    // LISTAGG's separator keeps its case.
                    let separator = a
                        .separator
                        .as_ref()
                        .map(|s| format!(", '{}'", s.replace('\'', "''")))
                        .unwrap_or_default();
                    let call = format!(
                        "{:?}({}{args}",
                        a.function,
                        if a.distinct { "DISTINCT " } else { "" },
                    )
                    .to_uppercase();
                    let rest = format!("){filter}: {}", a.ty)
                        .to_uppercase()
                        .replace(": ", " : ");
                    format!("{call}{separator}{rest}")
                })
                .collect();
            format!(
                "Aggregate group=[{}] aggs=[{}]",
                keys.join(", "),
                aggs.join(", ")
            )
        }
        RelKind::Join {
            kind, condition, ..
        } => format!("Join {kind:?} on {}", expr(condition, &fields)),
        RelKind::UnionAll { .. } => "UnionAll".to_string(),
        RelKind::Sort {
            keys,
            offset,
            limit,
            ..
        } => {
            let keys: Vec<String> = keys
                .iter()
                .map(|k| k.describe(&fields[k.column].name))
                .collect();
            format!(
                "Sort [{}]{}",
                keys.join(", "),
                crate::ir::bounds_text(*offset, *limit)
            )
        }
        RelKind::Window {
            window,
            time_column,
            ..
        } => {
            format!("Window {window:?} on {}", fields[*time_column].name)
        }
        RelKind::Over {
            partition,
            order,
            calls,
            ..
        } => format!(
            "Over {}",
            crate::ir::over::describe(partition, order, calls, &|c| fields[c].name.clone())
        ),
    };
    let schema: Vec<String> = r
        .schema
        .iter()
        .map(|f| format!("{}: {}", f.name, f.ty))
        .collect();
    let _ = writeln!(out, "{pad}{line}  -> [{}]", schema.join(", "));
    match &r.kind {
        RelKind::Scan { .. } | RelKind::Values { .. } => {}
        RelKind::Filter { input, .. }
        | RelKind::Project { input, .. }
        | RelKind::Aggregate { input, .. }
        | RelKind::Sort { input, .. }
        | RelKind::Over { input, .. }
        | RelKind::Window { input, .. } => rel(out, input, depth + 1),
        RelKind::Join { left, right, .. } => {
            rel(out, left, depth + 1);
            rel(out, right, depth + 1);
        }
        RelKind::UnionAll { inputs } => inputs.iter().for_each(|i| rel(out, i, depth + 1)),
    }
}

/// An expression as SQL-like text, columns by name.
pub fn expr(e: &Expr, fields: &[Field]) -> String {
    let mut out = String::new();
    write_expr(&mut out, e, fields);
    out
}

/// Appends `e` to `out`: one buffer for the whole tree, so a 10,000-term
/// chain is printed in linear time (formatting each level into a string of
/// its own would copy the operands' text once per level).
fn write_expr(out: &mut String, e: &Expr, fields: &[Field]) {
    let list = |out: &mut String, items: &[Expr]| {
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_expr(out, x, fields);
        }
    };
    let unit_name = |unit: &dyn std::fmt::Debug| format!("{unit:?}").to_uppercase();
    match &e.kind {
        ExprKind::Column(i) => match fields.get(*i) {
            Some(f) => out.push_str(&f.name),
            None => {
                let _ = write!(out, "${i}");
            }
        },
        ExprKind::Literal(l) => out.push_str(&literal(l, e)),
        ExprKind::Unary { op, operand } => {
            let (before, after) = match op {
                UnaryOp::Not => ("NOT(", ")"),
                UnaryOp::Negate => ("-(", ")"),
                UnaryOp::IsNull => ("", " IS NULL"),
                UnaryOp::IsNotNull => ("", " IS NOT NULL"),
                UnaryOp::IsTrue => ("", " IS TRUE"),
                UnaryOp::IsNotTrue => ("", " IS NOT TRUE"),
                UnaryOp::IsFalse => ("", " IS FALSE"),
                UnaryOp::IsNotFalse => ("", " IS NOT FALSE"),
            };
            out.push_str(before);
            write_expr(out, operand, fields);
            out.push_str(after);
        }
        ExprKind::Binary { op, left, right } => {
            out.push('(');
            write_expr(out, left, fields);
            let _ = write!(out, " {} ", op.symbol());
            write_expr(out, right, fields);
            out.push(')');
        }
        ExprKind::Cast { operand, try_cast } => {
            out.push_str(if *try_cast { "TRY_CAST(" } else { "CAST(" });
            write_expr(out, operand, fields);
            let _ = write!(out, " AS {})", e.ty);
        }
        ExprKind::Case {
            branches,
            otherwise,
        } => {
            out.push_str("CASE");
            for (c, r) in branches {
                out.push_str(" WHEN ");
                write_expr(out, c, fields);
                out.push_str(" THEN ");
                write_expr(out, r, fields);
            }
            if let Some(o) = otherwise {
                out.push_str(" ELSE ");
                write_expr(out, o, fields);
            }
            out.push_str(" END");
        }
        ExprKind::InList {
            operand,
            list: items,
            negated,
        } => {
            write_expr(out, operand, fields);
            out.push_str(if *negated { " NOT IN (" } else { " IN (" });
            list(out, items);
            out.push(')');
        }
        ExprKind::Like {
            operand,
            pattern,
            escape,
            negated,
        } => {
            write_expr(out, operand, fields);
            out.push_str(if *negated { " NOT LIKE " } else { " LIKE " });
            write_expr(out, pattern, fields);
            if let Some(c) = escape {
                let _ = write!(out, " ESCAPE '{c}'");
            }
        }
        ExprKind::Call { function, args } => {
            let _ = write!(out, "{}(", function.name());
            list(out, args);
            out.push(')');
        }
        ExprKind::Extract { unit, operand } => {
            let _ = write!(out, "EXTRACT({} FROM ", unit_name(unit));
            write_expr(out, operand, fields);
            out.push(')');
        }
        ExprKind::TimestampDiff { unit, start, end } => {
            let _ = write!(out, "TIMESTAMPDIFF({}, ", unit_name(unit));
            write_expr(out, start, fields);
            out.push_str(", ");
            write_expr(out, end, fields);
            out.push(')');
        }
        ExprKind::TimestampAdd {
            unit,
            count,
            operand,
        } => {
            let _ = write!(out, "TIMESTAMPADD({}, ", unit_name(unit));
            write_expr(out, count, fields);
            out.push_str(", ");
            write_expr(out, operand, fields);
            out.push(')');
        }
        ExprKind::RoundTime {
            unit,
            ceil,
            operand,
        } => {
            out.push_str(if *ceil { "CEIL(" } else { "FLOOR(" });
            write_expr(out, operand, fields);
            let _ = write!(out, " TO {})", unit_name(unit));
        }
    }
}

fn literal(l: &Literal, e: &Expr) -> String {
    match l {
        Literal::Null => format!("NULL:{}", e.ty.kind),
        Literal::Boolean(b) => b.to_string().to_uppercase(),
        Literal::Integer(i) => i.to_string(),
        Literal::Decimal(d) => d.clone(),
        Literal::Double(bits) => format!("{:?}", f64::from_bits(*bits)),
        Literal::String(s) => format!("'{}'", s.replace('\'', "''")),
        Literal::Date(d) => format!("DATE({d})"),
        Literal::Time(t) => format!("TIME({t})"),
        Literal::Timestamp { seconds, nanos } => format!("TIMESTAMP({seconds}.{nanos:09})"),
        Literal::IntervalMillis(ms) => format!("INTERVAL {ms} MILLISECOND"),
        Literal::IntervalMonths(m) => format!("INTERVAL {m} MONTH"),
    }
}
