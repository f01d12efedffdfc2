//! `stmtc explain`: the merged plan as text (the reviewed `plan.txt`), JSON
//! (a versioned, documented schema like Flink's CompiledPlan), Graphviz DOT
//! and Mermaid. Output depends only on the plan, never on hash order, so the
//! same job always explains to the same bytes.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::diagnostics::SourceFile;
use crate::ir::{ConnectorKind, Field};
use crate::ir_print::expr as expr_text;

use super::{NodeId, NodeKind, Plan};

/// Which extra details to print, like Flink's `ExplainDetail`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Details {
    pub changelog: bool,
    /// Estimated rows per node (`None`: not requested).
    pub cost: bool,
}

/// Version of the JSON plan schema (`docs/plan-json.md`).
pub const PLAN_JSON_VERSION: u32 = 1;

struct Ctx<'a> {
    plan: &'a Plan,
    details: Details,
    rows: Vec<Option<f64>>,
    /// Edges out of each node (a self-join counts twice).
    edges: Vec<usize>,
    /// The sinks each node feeds, by table name, in INSERT order.
    feeds: Vec<Vec<String>>,
    /// Joins and aggregates computed separately for other INSERTs, and why
    /// (`sharing.rs`).
    twins: Vec<Vec<(NodeId, &'static str)>>,
    /// For twins: the estimated cost of the plan as it is and with them
    /// shared (`reshare.rs`), which is why they are apart.
    costs: Vec<Option<(f64, f64)>>,
}

impl<'a> Ctx<'a> {
    fn new(plan: &'a Plan, details: Details, rows: Vec<Option<f64>>) -> Self {
        let mut feeds: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); plan.nodes.len()];
        for (order, sink) in plan.sinks.iter().enumerate() {
            feeds[sink.index()].insert(order);
        }
        for i in (0..plan.nodes.len()).rev() {
            let mine = feeds[i].clone();
            for input in plan.nodes[i].kind.inputs() {
                feeds[input.index()].extend(mine.iter().copied());
            }
        }
        let feeds: Vec<Vec<String>> = feeds
            .into_iter()
            .map(|set| {
                set.into_iter()
                    .map(|k| match plan.node(plan.sinks[k]).kind {
                        NodeKind::Sink { table, .. } => plan.job.table(table).name.clone(),
                        _ => String::new(),
                    })
                    .collect()
            })
            .collect();
        let twins = {
            // Only copies made for other INSERTs: within one INSERT two
            // aggregates of the same shape are two computations (grouping
            // sets), not a sharing decision.
            let mut twins = super::sharing::unshared_twins(plan);
            for (i, list) in twins.iter_mut().enumerate() {
                list.retain(|(other, _)| feeds[other.index()] != feeds[i]);
            }
            twins
        };
        let mut costs = vec![None; plan.nodes.len()];
        if twins.iter().any(|t| !t.is_empty()) {
            let all = plan
                .twin_costs
                .get_or_init(|| super::reshare::twin_costs(plan, &super::passes::estimate));
            for (group, apart, shared) in all {
                for id in group {
                    costs[id.index()] = Some((*apart, *shared));
                }
            }
        }
        Ctx {
            plan,
            details,
            rows,
            edges: plan.consumer_counts(),
            feeds,
            twins,
            costs,
        }
    }

    /// Whether more than one edge reads the node (two consumers, or one
    /// consumer reading it twice, as a self-join does).
    fn shared(&self, id: NodeId) -> bool {
        self.edges[id.index()] > 1
    }

    fn input_fields(&self, id: NodeId) -> Vec<Field> {
        let node = self.plan.node(id);
        node.kind
            .inputs()
            .iter()
            .flat_map(|i| self.plan.node(*i).schema.iter().cloned())
            .collect()
    }

    /// One line describing a node, without its inputs.
    fn describe(&self, id: NodeId) -> String {
        let plan = self.plan;
        let node = plan.node(id);
        let fields = self.input_fields(id);
        let names = |fs: &[Field]| {
            fs.iter()
                .map(|f| f.name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut line = match &node.kind {
            NodeKind::Scan { table, filter, .. } => {
                let t = plan.job.table(*table);
                let mut s = format!(
                    "Scan {id} {} [{}] read=[{}]",
                    t.name,
                    connector_text(&t.connector.kind),
                    names(&node.schema)
                );
                if let Some(f) = filter {
                    let _ = write!(s, " where=[{}]", expr_text(f, &node.schema));
                }
                s
            }
            NodeKind::Values { rows } => {
                format!("Values {id} rows={} [{}]", rows.len(), names(&node.schema))
            }
            NodeKind::Calc {
                projections,
                filter,
                ..
            } => {
                let mut s = format!("Calc {id}");
                if let Some(f) = filter {
                    let _ = write!(s, " where=[{}]", expr_text(f, &fields));
                }
                let items: Vec<String> = projections
                    .iter()
                    .zip(node.schema.iter())
                    .map(|(p, f)| {
                        let text = expr_text(p, &fields);
                        if text == f.name {
                            text
                        } else {
                            format!("{text} AS {}", f.name)
                        }
                    })
                    .collect();
                let _ = write!(s, " select=[{}]", items.join(", "));
                s
            }
            NodeKind::Aggregate {
                group, aggregates, ..
            } => {
                let keys: Vec<&str> = group.iter().map(|&g| fields[g].name.as_str()).collect();
                let aggs: Vec<String> = aggregates
                    .iter()
                    .zip(&node.schema[group.len()..])
                    .map(|(a, out)| {
                        let args: Vec<&str> =
                            a.args.iter().map(|&c| fields[c].name.as_str()).collect();
                        let args = if args.is_empty() {
                            "*".to_string()
                        } else {
                            args.join(", ")
                        };
                        let filter = a
                            .filter
                            .map(|f| format!(" FILTER {}", fields[f].name))
                            .unwrap_or_default();
                        let separator = a
                            .separator
                            .as_ref()
                            .map(|s| format!(", '{}'", s.replace('\'', "''")))
                            .unwrap_or_default();
                        format!(
                            "{}({}{args}{separator}){filter} AS {}",
                            a.function.name(),
                            if a.distinct { "DISTINCT " } else { "" },
                            out.name
                        )
                    })
                    .collect();
                if aggregates.is_empty() {
                    format!("Distinct {id} group=[{}]", keys.join(", "))
                } else {
                    format!(
                        "Aggregate {id} group=[{}] aggs=[{}]",
                        keys.join(", "),
                        aggs.join(", ")
                    )
                }
            }
            NodeKind::Join {
                kind,
                left,
                left_keys,
                right_keys,
                residual,
                ..
            } => {
                let la = plan.node(*left).schema.len();
                let keys: Vec<String> = left_keys
                    .iter()
                    .zip(right_keys)
                    .map(|(&l, &r)| format!("{} = {}", fields[l].name, fields[la + r].name))
                    .collect();
                let mut s = format!(
                    "Join {id} {} on=[{}]",
                    format!("{kind:?}").to_lowercase(),
                    keys.join(", ")
                );
                if let Some(r) = residual {
                    let _ = write!(s, " where=[{}]", expr_text(r, &fields));
                }
                s
            }
            NodeKind::Union { inputs } => format!("Union {id} inputs={}", inputs.len()),
            NodeKind::Sort {
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
                    "Sort {id} by=[{}]{}",
                    keys.join(", "),
                    crate::ir::bounds_text(*offset, *limit)
                )
            }
            NodeKind::Over {
                partition,
                order,
                calls,
                limit,
                ..
            } => {
                let text =
                    crate::ir::over::describe(partition, order, calls, &|c| fields[c].name.clone());
                match limit {
                    None => format!("Over {id} {text}"),
                    Some(l) => format!("TopN {id} {text} rank=[{}..{}]", l.lo, l.hi),
                }
            }
            NodeKind::Window {
                window,
                time_column,
                ..
            } => {
                let w = match window {
                    crate::ir::WindowKind::Tumble { size, offset } => {
                        format!("TUMBLE(size={})", ms(*size)) + &offset_text(*offset)
                    }
                    crate::ir::WindowKind::Hop {
                        slide,
                        size,
                        offset,
                    } => {
                        format!("HOP(slide={}, size={})", ms(*slide), ms(*size))
                            + &offset_text(*offset)
                    }
                    crate::ir::WindowKind::Cumulate { step, size, offset } => {
                        format!("CUMULATE(step={}, size={})", ms(*step), ms(*size))
                            + &offset_text(*offset)
                    }
                };
                format!("Window {id} {w} on={}", fields[*time_column].name)
            }
            NodeKind::Sink {
                table, overwrite, ..
            } => {
                let t = plan.job.table(*table);
                format!(
                    "Sink {id} {} [{}] {}",
                    t.name,
                    connector_text(&t.connector.kind),
                    if *overwrite {
                        "INSERT OVERWRITE"
                    } else {
                        "INSERT INTO"
                    }
                )
            }
        };
        if self.details.changelog {
            line.push_str(" changelog=[I]");
        }
        if self.details.cost {
            match self.rows[id.index()] {
                Some(r) => {
                    let _ = write!(line, " rows={}", human(r));
                }
                None => line.push_str(" rows=?"),
            }
        }
        if self.shared(id) && !matches!(node.kind, NodeKind::Sink { .. }) {
            let _ = write!(line, " shared=[{}]", self.feeds[id.index()].join(", "));
        }
        let twins = &self.twins[id.index()];
        if !twins.is_empty() {
            let mut by_reason: Vec<(&str, Vec<String>)> = Vec::new();
            for (other, reason) in twins {
                let text = format!("{other} {}", self.feeds[other.index()].join("+"));
                match by_reason.iter_mut().find(|(r, _)| r == reason) {
                    Some((_, list)) => list.push(text),
                    None => by_reason.push((reason, vec![text])),
                }
            }
            let parts: Vec<String> = by_reason
                .into_iter()
                .map(|(reason, list)| format!("{reason} ({})", list.join(", ")))
                .collect();
            let _ = write!(line, " not shared: {}", parts.join(", "));
            if let Some((apart, shared)) = self.costs[id.index()] {
                let _ = write!(
                    line,
                    "; apart by cost (sharing adds est. {})",
                    cost_text(shared - apart)
                );
            }
        }
        line
    }
}

fn ms(millis: i64) -> String {
    const UNITS: [(i64, &str); 4] = [
        (86_400_000, "d"),
        (3_600_000, "h"),
        (60_000, "min"),
        (1000, "s"),
    ];
    for (unit, name) in UNITS {
        if millis % unit == 0 {
            return format!("{}{name}", millis / unit);
        }
    }
    format!("{millis}ms")
}

fn offset_text(offset: i64) -> String {
    if offset == 0 {
        String::new()
    } else {
        format!(" offset={}", ms(offset))
    }
}

fn human(rows: f64) -> String {
    if rows >= 1e9 {
        format!("{:.1}G", rows / 1e9)
    } else if rows >= 1e6 {
        format!("{:.1}M", rows / 1e6)
    } else if rows >= 1e4 {
        format!("{:.1}k", rows / 1e3)
    } else {
        format!("{}", rows.round() as u64)
    }
}

fn connector_text(kind: &ConnectorKind) -> String {
    match kind {
        ConnectorKind::Filesystem { path, format } => {
            format!(
                "filesystem {} '{path}'",
                format!("{format:?}").to_lowercase()
            )
        }
        other => other.name().to_string(),
    }
}

/// One line per node (the text format's description), for generated docs.
pub(crate) fn descriptions(plan: &Plan, file: &SourceFile) -> Vec<String> {
    let ctx = Ctx::new(plan, Details::default(), Vec::new());
    (0..plan.nodes.len())
        .map(|i| {
            let id = NodeId(i as u32);
            let mut text = ctx.describe(id);
            let places: Vec<String> = plan
                .node(id)
                .provenance
                .iter()
                .take(3)
                .map(|s| {
                    let at = file.line_col(s.start);
                    format!("{}:{}:{}", file.name, at.line, at.column)
                })
                .collect();
            if !places.is_empty() {
                text.push_str(&format!(" (from {})", places.join(", ")));
            }
            text
        })
        .collect()
}

/// The plan as indented text: one tree per sink, each shared node printed in
/// full once and referenced by id afterwards.
pub(crate) fn text(
    plan: &Plan,
    file: &SourceFile,
    details: Details,
    rows: Vec<Option<f64>>,
) -> String {
    let ctx = Ctx::new(plan, details, rows);
    let scans: Vec<&crate::plan::Node> = plan
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Scan { .. }))
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# stmtc plan of {}: {} sinks, {} nodes, {} source scan{}",
        file.name,
        plan.sinks.len(),
        plan.nodes.len(),
        scans.len(),
        if scans.len() == 1 { "" } else { "s" }
    );
    let mut printed = vec![false; plan.nodes.len()];
    for sink in &plan.sinks {
        out.push('\n');
        tree(&ctx, *sink, 0, &mut printed, &mut out);
    }
    out
}

fn tree(ctx: &Ctx<'_>, id: NodeId, depth: usize, printed: &mut Vec<bool>, out: &mut String) {
    let prefix = if depth == 0 {
        String::new()
    } else {
        format!("{}+- ", "   ".repeat(depth - 1))
    };
    if printed[id.index()] {
        let node = ctx.plan.node(id);
        let what = match &node.kind {
            NodeKind::Scan { table, .. } => {
                format!("Scan {id} {}", ctx.plan.job.table(*table).name)
            }
            kind => format!("{} {id}", kind_name(kind)),
        };
        let _ = writeln!(out, "{prefix}{what} (reused, see above)");
        return;
    }
    printed[id.index()] = true;
    let _ = writeln!(out, "{prefix}{}", ctx.describe(id));
    for input in ctx.plan.node(id).kind.inputs() {
        tree(ctx, input, depth + 1, printed, out);
    }
}

fn kind_name(kind: &NodeKind) -> &'static str {
    match kind {
        NodeKind::Scan { .. } => "Scan",
        NodeKind::Values { .. } => "Values",
        NodeKind::Calc { .. } => "Calc",
        NodeKind::Aggregate { aggregates, .. } if aggregates.is_empty() => "Distinct",
        NodeKind::Aggregate { .. } => "Aggregate",
        NodeKind::Join { .. } => "Join",
        NodeKind::Union { .. } => "Union",
        NodeKind::Sort { .. } => "Sort",
        NodeKind::Window { .. } => "Window",
        NodeKind::Over { limit: None, .. } => "Over",
        NodeKind::Over { .. } => "TopN",
        NodeKind::Sink { .. } => "Sink",
    }
}

/// The plan as JSON (schema version [`PLAN_JSON_VERSION`], see `docs/plan-json.md`).
pub(crate) fn json(
    plan: &Plan,
    file: &SourceFile,
    details: Details,
    rows: Vec<Option<f64>>,
) -> String {
    let ctx = Ctx::new(plan, details, rows);
    let fields = |fs: &[Field]| -> Value {
        Value::Array(
            fs.iter()
                .map(|f| json!({"name": f.name, "type": f.ty.to_string()}))
                .collect(),
        )
    };
    let tables: Vec<Value> = plan
        .job
        .tables
        .iter()
        .map(|t| {
            json!({
                "id": t.id.to_string(),
                "name": t.name,
                "connector": t.connector.kind.name(),
                "options": t.connector.options,
                "primaryKey": t.primary_key.iter().map(|&i| t.columns[i].name.clone()).collect::<Vec<_>>(),
                "watermark": t.watermark.as_ref().map(|(i, e)| json!({
                    "column": t.columns[*i].name,
                    "expression": expr_text(e, &t.columns.iter().map(|c| Field { name: c.name.clone(), ty: c.ty }).collect::<Vec<_>>()),
                })),
                "columns": t.columns.iter().map(|c| json!({
                    "name": c.name,
                    "type": c.ty.to_string(),
                    "computed": c.computed.is_some(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for (i, node) in plan.nodes.iter().enumerate() {
        let id = NodeId(i as u32);
        let input_fields = ctx.input_fields(id);
        let mut entry = json!({
            "id": i,
            "type": node.kind.type_name(),
            "description": ctx.describe(id),
            "schema": fields(&node.schema),
            "provenance": node.provenance.iter().map(|s| {
                let at = file.line_col(s.start);
                format!("{}:{}:{}", file.name, at.line, at.column)
            }).collect::<Vec<_>>(),
            "sinks": ctx.feeds[i],
        });
        let obj = entry.as_object_mut().expect("object");
        if !ctx.twins[i].is_empty() {
            let twins: Vec<Value> = ctx.twins[i]
                .iter()
                .map(|(other, reason)| json!({"node": other.index(), "reason": reason}))
                .collect();
            obj.insert("notSharedWith".into(), json!(twins));
            if let Some((apart, shared)) = ctx.costs[i] {
                obj.insert("costApart".into(), json!(apart.round()));
                obj.insert("costShared".into(), json!(shared.round()));
            }
        }
        match &node.kind {
            NodeKind::Scan {
                table,
                columns,
                filter,
            } => {
                obj.insert("table".into(), json!(plan.job.table(*table).name));
                obj.insert("columns".into(), json!(columns));
                if let Some(f) = filter {
                    obj.insert("filter".into(), json!(expr_text(f, &node.schema)));
                }
            }
            NodeKind::Calc {
                projections,
                filter,
                ..
            } => {
                obj.insert(
                    "projections".into(),
                    json!(projections
                        .iter()
                        .map(|p| expr_text(p, &input_fields))
                        .collect::<Vec<_>>()),
                );
                if let Some(f) = filter {
                    obj.insert("filter".into(), json!(expr_text(f, &input_fields)));
                }
            }
            NodeKind::Aggregate {
                group, aggregates, ..
            } => {
                obj.insert("group".into(), json!(group));
                obj.insert(
                    "aggregates".into(),
                    Value::Array(
                        aggregates
                            .iter()
                            .map(|a| {
                                let mut call = json!({"function": a.function.name(), "distinct": a.distinct, "args": a.args, "filter": a.filter, "type": a.ty.to_string()});
                                // LISTAGG's only.
                                if let Some(s) = &a.separator {
                                    call["separator"] = json!(s);
                                }
                                call
                            })
                            .collect(),
                    ),
                );
            }
            NodeKind::Join {
                kind,
                left_keys,
                right_keys,
                residual,
                ..
            } => {
                obj.insert("joinType".into(), json!(format!("{kind:?}").to_uppercase()));
                obj.insert("leftKeys".into(), json!(left_keys));
                obj.insert("rightKeys".into(), json!(right_keys));
                if let Some(r) = residual {
                    obj.insert("residual".into(), json!(expr_text(r, &input_fields)));
                }
            }
            NodeKind::Sort {
                keys,
                offset,
                limit,
                ..
            } => {
                obj.insert(
                    "keys".into(),
                    Value::Array(keys.iter().map(|k| json!({"column": k.column, "descending": k.descending, "nullsFirst": k.nulls_first})).collect()),
                );
                obj.insert("offset".into(), json!(offset));
                obj.insert("limit".into(), json!(limit));
            }
            NodeKind::Sink {
                table, overwrite, ..
            } => {
                obj.insert("table".into(), json!(plan.job.table(*table).name));
                obj.insert("overwrite".into(), json!(overwrite));
            }
            NodeKind::Values { rows } => {
                obj.insert("rows".into(), json!(rows.len()));
            }
            NodeKind::Window { time_column, .. } => {
                obj.insert("timeColumn".into(), json!(time_column));
            }
            NodeKind::Over {
                partition,
                order,
                calls,
                limit,
                ..
            } => {
                obj.insert("partition".into(), json!(partition));
                obj.insert(
                    "order".into(),
                    Value::Array(order.iter().map(|k| json!({"column": k.column, "descending": k.descending, "nullsFirst": k.nulls_first})).collect()),
                );
                obj.insert(
                    "calls".into(),
                    Value::Array(
                        calls
                            .iter()
                            .map(|c| json!({"function": c.function.name(), "args": c.args, "frame": c.function.uses_frame().then(|| c.frame.describe()), "type": c.ty.to_string()}))
                            .collect(),
                    ),
                );
                if let Some(l) = limit {
                    obj.insert("rankRange".into(), json!([l.lo, l.hi]));
                }
            }
            NodeKind::Union { .. } => {}
        }
        if details.changelog {
            obj.insert("changelogMode".into(), json!("I"));
        }
        if details.cost {
            obj.insert("estimatedRows".into(), json!(ctx.rows[i].map(f64::round)));
        }
        nodes.push(entry);
        for (k, input) in node.kind.inputs().iter().enumerate() {
            edges.push(json!({"source": input.0, "target": i, "input": k}));
        }
    }
    let doc = json!({
        "stmtcVersion": env!("CARGO_PKG_VERSION"),
        "planVersion": PLAN_JSON_VERSION,
        "job": file.name,
        "tables": tables,
        "nodes": nodes,
        "edges": edges,
        "sinks": plan.sinks.iter().map(|s| s.0).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn short_label(ctx: &Ctx<'_>, id: NodeId) -> String {
    let node = ctx.plan.node(id);
    match &node.kind {
        NodeKind::Scan { table, .. } => format!("{id} Scan {}", ctx.plan.job.table(*table).name),
        NodeKind::Sink { table, .. } => format!("{id} Sink {}", ctx.plan.job.table(*table).name),
        kind => format!("{id} {}", kind_name(kind)),
    }
}

/// Graphviz: sources at the bottom, shared nodes bold.
pub(crate) fn dot(plan: &Plan, details: Details, rows: Vec<Option<f64>>) -> String {
    let ctx = Ctx::new(plan, details, rows);
    let mut out = String::from(
        "digraph plan {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n",
    );
    for i in 0..plan.nodes.len() {
        let id = NodeId(i as u32);
        let label = short_label(&ctx, id)
            .replace('\\', "\\\\")
            .replace('"', "\\\"");
        let style = if ctx.shared(id) { ", style=bold" } else { "" };
        let _ = writeln!(out, "  n{i} [label=\"{label}\"{style}];");
    }
    for (i, node) in plan.nodes.iter().enumerate() {
        for input in node.kind.inputs() {
            let _ = writeln!(out, "  n{} -> n{i};", input.0);
        }
    }
    out.push_str("}\n");
    out
}

/// Mermaid flowchart (renders in GitHub/GitLab code review).
pub(crate) fn mermaid(plan: &Plan, details: Details, rows: Vec<Option<f64>>) -> String {
    let ctx = Ctx::new(plan, details, rows);
    let mut out = String::from("flowchart BT\n");
    for i in 0..plan.nodes.len() {
        let id = NodeId(i as u32);
        let label = short_label(&ctx, id).replace('"', "#quot;");
        let _ = writeln!(out, "  n{i}[\"{label}\"]");
    }
    for (i, node) in plan.nodes.iter().enumerate() {
        for input in node.kind.inputs() {
            let _ = writeln!(out, "  n{} --> n{i}", input.0);
        }
    }
    let shared: Vec<String> = (0..plan.nodes.len())
        .filter(|&i| ctx.shared(NodeId(i as u32)))
        .map(|i| format!("n{i}"))
        .collect();
    if !shared.is_empty() {
        let _ = writeln!(out, "  classDef shared stroke-width:3px");
        let _ = writeln!(out, "  class {} shared", shared.join(","));
    }
    out
}

/// A cost estimate for reading: whole row-operations, three significant
/// digits from a million on (`1.23e7`).
fn cost_text(cost: f64) -> String {
    if cost < 1e6 {
        format!("{}", cost.round())
    } else {
        format!("{cost:.2e}")
    }
}
