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
                    format!(
                        "{:?}({}{args}){filter}: {}",
                        a.function,
                        if a.distinct { "DISTINCT " } else { "" },
                        a.ty
                    )
                    .to_uppercase()
                    .replace(": ", " : ")
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
    match &e.kind {
        ExprKind::Column(i) => fields
            .get(*i)
            .map_or_else(|| format!("${i}"), |f| f.name.clone()),
        ExprKind::Literal(l) => literal(l, e),
        ExprKind::Unary { op, operand } => {
            let x = expr(operand, fields);
            match op {
                UnaryOp::Not => format!("NOT({x})"),
                UnaryOp::Negate => format!("-({x})"),
                UnaryOp::IsNull => format!("{x} IS NULL"),
                UnaryOp::IsNotNull => format!("{x} IS NOT NULL"),
                UnaryOp::IsTrue => format!("{x} IS TRUE"),
                UnaryOp::IsNotTrue => format!("{x} IS NOT TRUE"),
                UnaryOp::IsFalse => format!("{x} IS FALSE"),
                UnaryOp::IsNotFalse => format!("{x} IS NOT FALSE"),
            }
        }
        ExprKind::Binary { op, left, right } => {
            format!(
                "({} {} {})",
                expr(left, fields),
                op.symbol(),
                expr(right, fields)
            )
        }
        ExprKind::Cast { operand, try_cast } => format!(
            "{}({} AS {})",
            if *try_cast { "TRY_CAST" } else { "CAST" },
            expr(operand, fields),
            e.ty
        ),
        ExprKind::Case {
            branches,
            otherwise,
        } => {
            let mut s = "CASE".to_string();
            for (c, r) in branches {
                let _ = write!(s, " WHEN {} THEN {}", expr(c, fields), expr(r, fields));
            }
            if let Some(o) = otherwise {
                let _ = write!(s, " ELSE {}", expr(o, fields));
            }
            s + " END"
        }
        ExprKind::InList {
            operand,
            list,
            negated,
        } => format!(
            "{} {}IN ({})",
            expr(operand, fields),
            if *negated { "NOT " } else { "" },
            list.iter()
                .map(|x| expr(x, fields))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Like {
            operand,
            pattern,
            escape,
            negated,
        } => format!(
            "{} {}LIKE {}{}",
            expr(operand, fields),
            if *negated { "NOT " } else { "" },
            expr(pattern, fields),
            escape.map(|c| format!(" ESCAPE '{c}'")).unwrap_or_default()
        ),
        ExprKind::Call { function, args } => format!(
            "{}({})",
            function.name(),
            args.iter()
                .map(|x| expr(x, fields))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Extract { unit, operand } => {
            format!(
                "EXTRACT({} FROM {})",
                format!("{unit:?}").to_uppercase(),
                expr(operand, fields)
            )
        }
        ExprKind::TimestampDiff { unit, start, end } => format!(
            "TIMESTAMPDIFF({}, {}, {})",
            format!("{unit:?}").to_uppercase(),
            expr(start, fields),
            expr(end, fields)
        ),
        ExprKind::TimestampAdd {
            unit,
            count,
            operand,
        } => format!(
            "TIMESTAMPADD({}, {}, {})",
            format!("{unit:?}").to_uppercase(),
            expr(count, fields),
            expr(operand, fields)
        ),
        ExprKind::RoundTime {
            unit,
            ceil,
            operand,
        } => format!(
            "{}({} TO {})",
            if *ceil { "CEIL" } else { "FLOOR" },
            expr(operand, fields),
            format!("{unit:?}").to_uppercase()
        ),
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
