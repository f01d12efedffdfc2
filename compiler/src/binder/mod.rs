//! Binding: resolves names against the job's catalog, infers every type with
//! Flink's rules, and turns each statement into the bound IR (`ir.rs`).
//!
//! Statements are bound in file order, like Flink executes them: a table or
//! view exists from its CREATE statement on. Each statement is bound even
//! when an earlier one failed, so one run reports every error; a statement
//! that failed to bind leaves nothing behind for later ones to trip over
//! twice (a failed CREATE TABLE still registers its name, with the columns
//! that bound, so later references do not all fail).

mod connectors;
mod expr;
mod grouping;
mod literals;
mod order_by;
mod over;
mod query;
mod row_compare;
mod row_in;
mod scope;
mod set_ops;
mod streaming;
mod subquery;
#[cfg(test)]
pub(crate) mod test_support;

pub(crate) use streaming::{check_streaming, is_streaming};

use std::collections::{BTreeMap, HashSet};

use crate::diagnostics::{did_you_mean, Diagnostic, Diagnostics, SourceFile, Span};
use crate::ir::{
    self, BoundInsert, BoundJob, Column, Expr, ExprKind, Field, Rel, RelKind, TableId,
};
use crate::parser::ast::{self, ColumnKind, Statement};
use crate::types::{DataType, TypeKind};
use crate::typing;
use scope::Scope;

/// Binds a parsed job. Errors go to `diags`; the result holds what bound.
pub fn bind_script(file: &SourceFile, script: &ast::Script, diags: &mut Diagnostics) -> BoundJob {
    let mut binder = Binder {
        file,
        diags,
        job: BoundJob {
            settings: Vec::new(),
            tables: Vec::new(),
            views: Vec::new(),
            inserts: Vec::new(),
        },
        names: BTreeMap::new(),
        defining_view: None,
        ctes: Vec::new(),
        temporary: HashSet::new(),
        span_memo: std::collections::HashMap::new(),
        subq: Default::default(),
        values_from: Default::default(),
        over: None,
        group_by_distinct: script.group_by_distinct.iter().copied().collect(),
    };
    for name in &script.broken_names {
        binder
            .names
            .entry(name.value.clone())
            .or_insert((CatalogEntry::BrokenView, name.span));
    }
    for statement in &script.statements {
        binder.span_memo.clear();
        crate::set_current_span(statement.span());
        match statement {
            Statement::Set(set) => binder.bind_set(set),
            Statement::CreateTable(table) => binder.bind_create_table(table),
            Statement::CreateView(view) => binder.bind_create_view(view),
            Statement::Insert(insert) => binder.bind_insert(insert),
        }
    }
    binder.job
}

/// What a name in the catalog refers to.
#[derive(Clone, Copy, Debug)]
enum CatalogEntry {
    Table(TableId),
    View(usize),
    /// A view whose definition failed to bind: references to it are not
    /// reported again.
    BrokenView,
}

pub(crate) struct Binder<'a> {
    file: &'a SourceFile,
    diags: &'a mut Diagnostics,
    job: BoundJob,
    /// Tables and views share one namespace; names are case-sensitive, as in Flink.
    names: BTreeMap<String, (CatalogEntry, Span)>,
    /// The view being defined, to name self-references as such.
    defining_view: Option<String>,
    /// WITH queries in scope, innermost last.
    ctes: Vec<(String, Rel)>,
    /// Names declared TEMPORARY (they may shadow permanent ones, once).
    temporary: HashSet<String>,
    /// Spans of operator expressions by address (see `expr_span`); cleared
    /// per statement, while its AST is alive.
    span_memo: std::collections::HashMap<usize, Span>,
    /// Subquery binding state (`subquery.rs`).
    subq: subquery::SubqueryState,
    /// A correlated subquery and a VALUES in one statement (`subquery/values_from.rs`).
    values_from: subquery::values_from::ValuesFrom,
    /// The window calls of the SELECT list being bound (`over.rs`), if
    /// window calls are allowed where binding is.
    over: Option<over::OverCollector>,
    /// The SELECTs whose GROUP BY says DISTINCT, by their keyword's
    /// (line, column) (`parser/group_by_quantifier.rs`).
    group_by_distinct: HashSet<(u64, u64)>,
}

impl Binder<'_> {
    fn error(&mut self, diagnostic: Diagnostic) {
        self.diags.push(diagnostic);
    }

    fn bind_set(&mut self, set: &ast::SetOption) {
        match set.key.as_str() {
            // Flink's Table API takes no AUTOMATIC mode (its message).
            "execution.runtime-mode" if set.value.eq_ignore_ascii_case("automatic") => {
                self.error(Diagnostic::error(
                    set.span,
                    format!(
                        "Unsupported mode '{}' for 'execution.runtime-mode'. Only an explicit BATCH or STREAMING mode is supported in Table API.",
                        set.value.to_ascii_uppercase()
                    ),
                ));
            }
            "execution.runtime-mode"
                if !matches!(
                    set.value.to_ascii_lowercase().as_str(),
                    "batch" | "streaming"
                ) =>
            {
                self.error(Diagnostic::error(
                    set.span,
                    format!(
                        "invalid value '{}' for 'execution.runtime-mode': expected 'batch' or 'streaming'",
                        set.value
                    ),
                ));
            }
            // Flink's sink enforcers (codegen/sink_enforce.rs); Flink parses enum
            // options case-insensitively.
            key
            @ ("table.exec.sink.type-length-enforcer" | "table.exec.sink.not-null-enforcer")
                if !sink_enforcer_values(key)
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(&set.value)) =>
            {
                self.error(Diagnostic::error(
                    set.span,
                    format!(
                        "Could not parse value '{}' for key '{key}': expected one of {}",
                        set.value,
                        sink_enforcer_values(key).join(", ")
                    ),
                ));
            }
            // Time zones other than UTC need zone rules the runtime does not have.
            "table.local-time-zone"
                if !matches!(
                    set.value.to_ascii_uppercase().as_str(),
                    "UTC" | "Z" | "GMT" | "+00:00" | "ETC/UTC"
                ) =>
            {
                self.error(Diagnostic::error(
                    set.span,
                    format!(
                        "the session time zone '{}' is not supported by stmtc yet: only UTC (the default)",
                        set.value
                    ),
                ));
            }
            "stmtc.memory-budget" if parse_memory_size(&set.value).is_none() => {
                self.error(
                    Diagnostic::error(
                        set.span,
                        format!(
                            "invalid value '{}' for 'stmtc.memory-budget': expected a memory size",
                            set.value
                        ),
                    )
                    .with_help("write a size such as '512mb' or '2gb'"),
                );
            }
            "parallelism.default" if set.value.parse::<u32>().map_or(true, |p| p == 0) => {
                self.error(Diagnostic::error(
                    set.span,
                    format!(
                        "invalid value '{}' for 'parallelism.default': expected a positive integer",
                        set.value
                    ),
                ));
            }
            _ => {}
        }
        self.job.settings.push((set.key.clone(), set.value.clone()));
    }

    /// Registers a name, or reports that it exists. Returns false if it exists.
    /// Registers a name, or reports that it exists. A TEMPORARY table or view
    /// may shadow a permanent one of the same name, as in Flink.
    fn declare(&mut self, name: &ast::Name, if_not_exists: bool, temporary: bool) -> Option<bool> {
        if let Some((_, first)) = self.names.get(&name.value) {
            if if_not_exists {
                return Some(false);
            }
            if temporary && !self.temporary.contains(&name.value) {
                self.temporary.insert(name.value.clone());
                return Some(true);
            }
            let first = *first;
            self.error(
                Diagnostic::error(
                    name.span,
                    format!("a table or view named `{}` already exists", name.value),
                )
                .with_related(first, "first defined here")
                .with_help(
                    "use another name, or CREATE ... IF NOT EXISTS to keep the first definition",
                ),
            );
            return None;
        }
        if temporary {
            self.temporary.insert(name.value.clone());
        }
        Some(true)
    }

    fn bind_create_table(&mut self, table: &ast::CreateTable) {
        let Some(true) = self.declare(&table.name, table.if_not_exists, table.temporary) else {
            return;
        };
        let id = TableId(self.job.tables.len() as u32);
        let mut columns: Vec<Column> = Vec::new();
        let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
        for column in &table.columns {
            if let Some(first) = seen.get(column.name.value.as_str()) {
                let first = *first;
                self.error(
                    Diagnostic::error(
                        column.name.span,
                        format!(
                            "duplicate column `{}` in table `{}`",
                            column.name.value, table.name.value
                        ),
                    )
                    .with_related(first, "first defined here"),
                );
                continue;
            }
            seen.insert(&column.name.value, column.name.span);
            match &column.kind {
                ColumnKind::Physical { data_type } => columns.push(Column {
                    name: column.name.value.clone(),
                    ty: *data_type,
                    computed: None,
                }),
                ColumnKind::Metadata => self.error(
                    Diagnostic::error(column.span, "METADATA columns are not supported yet")
                        .with_help("the filesystem, datagen, print and blackhole connectors expose no metadata"),
                ),
                ColumnKind::Computed { .. } => {}
            }
        }
        // Computed columns are expressions over the physical columns.
        let physical_scope = Scope::of_fields(
            Some(&table.name.value),
            &columns
                .iter()
                .map(|c| Field {
                    name: c.name.clone(),
                    ty: c.ty,
                })
                .collect::<Vec<_>>(),
        );
        let mut computed = Vec::new();
        for column in &table.columns {
            if let ColumnKind::Computed { expr } = &column.kind {
                if seen.get(column.name.value.as_str()) != Some(&column.name.span) {
                    continue;
                }
                if let Some(bound) =
                    self.bind_scalar(expr, &physical_scope, column.span, "a computed column")
                {
                    computed.push((column, bound));
                }
            }
        }
        // Keep declaration order: physical and computed columns interleave as written.
        let mut ordered = Vec::new();
        let mut physical = columns.into_iter();
        let mut computed = computed.into_iter().peekable();
        for column in &table.columns {
            match &column.kind {
                ColumnKind::Physical { .. }
                    if seen.get(column.name.value.as_str()) == Some(&column.name.span) =>
                {
                    if let Some(c) = physical.next() {
                        ordered.push(c);
                    }
                }
                ColumnKind::Computed { .. }
                    if computed
                        .peek()
                        .is_some_and(|(c, _)| std::ptr::eq(*c, column)) =>
                {
                    let (c, bound) = computed.next().expect("peeked");
                    ordered.push(Column {
                        name: c.name.value.clone(),
                        ty: bound.ty,
                        computed: Some(bound),
                    });
                }
                _ => {}
            }
        }
        let columns = ordered;
        let position = |name: &str| columns.iter().position(|c| c.name == name);

        let mut primary_key = Vec::new();
        if let Some(pk) = &table.primary_key {
            for key in &pk.columns {
                match position(&key.value) {
                    Some(i) if columns[i].computed.is_some() => self.error(Diagnostic::error(
                        key.span,
                        format!(
                            "primary key column `{}` must be a physical column",
                            key.value
                        ),
                    )),
                    Some(i) => primary_key.push(i),
                    None => self.error(self.unknown_column_in_table(
                        &key.value,
                        key.span,
                        &table.name.value,
                        &columns,
                    )),
                }
            }
        }
        let mut watermark = None;
        if let Some(wm) = &table.watermark {
            match position(&wm.column.value) {
                None => self.error(self.unknown_column_in_table(
                    &wm.column.value,
                    wm.column.span,
                    &table.name.value,
                    &columns,
                )),
                Some(i) if !columns[i].ty.kind.is_timestamp() => self.error(Diagnostic::error(
                    wm.column.span,
                    format!(
                        "the rowtime column `{}` of a WATERMARK must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), but is {}",
                        wm.column.value, columns[i].ty
                    ),
                )),
                Some(i) => {
                    let all_fields: Vec<Field> = columns
                        .iter()
                        .map(|c| Field {
                            name: c.name.clone(),
                            ty: c.ty,
                        })
                        .collect();
                    let scope = Scope::of_fields(Some(&table.name.value), &all_fields);
                    if let Some(expr) = self.bind_scalar(&wm.expr, &scope, wm.span, "a watermark") {
                        if !expr.ty.kind.is_timestamp() {
                            self.error(Diagnostic::error(
                                wm.span,
                                format!("a watermark expression must return a timestamp, but returns {}", expr.ty),
                            ));
                        } else {
                            watermark = Some((i, expr));
                        }
                    }
                }
            }
        }

        let connector = connectors::validate(self, table, &columns);
        let Some(connector) = connector else {
            // Keep the name so later statements do not report it as unknown.
            self.names.insert(
                table.name.value.clone(),
                (CatalogEntry::BrokenView, table.name.span),
            );
            return;
        };
        self.names.insert(
            table.name.value.clone(),
            (CatalogEntry::Table(id), table.name.span),
        );
        self.job.tables.push(ir::Table {
            id,
            name: table.name.value.clone(),
            columns,
            connector,
            primary_key,
            watermark,
        });
    }

    fn unknown_column_in_table(
        &self,
        name: &str,
        span: Span,
        table: &str,
        columns: &[Column],
    ) -> Diagnostic {
        let mut d = Diagnostic::error(
            span,
            format!("column `{name}` not found in table `{table}`"),
        );
        if let Some(s) = did_you_mean(name, columns.iter().map(|c| c.name.as_str())) {
            d = d.with_help(format!("did you mean `{s}`?"));
        }
        d
    }

    fn bind_create_view(&mut self, view: &ast::CreateView) {
        let Some(true) = self.declare(&view.name, view.if_not_exists, view.temporary) else {
            return;
        };
        self.defining_view = Some(view.name.value.clone());
        self.begin_values_from();
        let bound = self.bind_query(&view.query, view.span);
        self.defining_view = None;
        let entry = match bound {
            Some(mut rel) => {
                if !view.columns.is_empty() {
                    if view.columns.len() != rel.schema.len() {
                        self.error(Diagnostic::error(
                            view.name.span,
                            format!(
                                "view `{}` names {} columns, but its query returns {}",
                                view.name.value,
                                view.columns.len(),
                                rel.schema.len()
                            ),
                        ));
                        self.names.insert(
                            view.name.value.clone(),
                            (CatalogEntry::BrokenView, view.name.span),
                        );
                        return;
                    }
                    for (field, name) in rel.schema.iter_mut().zip(&view.columns) {
                        field.name = name.value.clone();
                    }
                }
                if let Some(d) = duplicate_field(&rel.schema, view.span, "view") {
                    self.error(d);
                }
                let index = self.job.views.len();
                self.end_view_values_from(index);
                self.job.views.push(ir::View {
                    name: view.name.value.clone(),
                    query: rel,
                });
                CatalogEntry::View(index)
            }
            None => CatalogEntry::BrokenView,
        };
        self.names
            .insert(view.name.value.clone(), (entry, view.name.span));
    }

    fn bind_insert(&mut self, insert: &ast::Insert) {
        let target = match self.names.get(&insert.target.value) {
            Some((CatalogEntry::Table(id), _)) => Some(*id),
            Some((CatalogEntry::View(_), _)) => {
                self.error(Diagnostic::error(
                    insert.target.span,
                    format!(
                        "cannot INSERT into view `{}`: only tables can be written",
                        insert.target.value
                    ),
                ));
                None
            }
            Some((CatalogEntry::BrokenView, _)) => None,
            None => {
                let d = self.unknown_table(&insert.target.value, insert.target.span);
                self.error(d);
                None
            }
        };
        // Bind the query even when the target is unknown: its errors count too.
        self.begin_values_from();
        let query = self.bind_query(&insert.query, insert.span);
        let refused = !self.end_insert_values_from();
        let (Some(target), Some(query)) = (target, query) else {
            return;
        };
        if refused {
            return;
        }
        if let Some(query) = self.conform_to_sink(insert, target, query) {
            self.job.inserts.push(BoundInsert {
                target,
                overwrite: insert.overwrite,
                query,
                span: insert.span,
            });
        }
    }

    /// Maps the query's columns onto the sink's physical columns (honouring a
    /// target column list), checks that each type is assignable as Flink allows,
    /// and adds the casts, so the result has exactly the sink's schema.
    fn conform_to_sink(
        &mut self,
        insert: &ast::Insert,
        target: TableId,
        query: Rel,
    ) -> Option<Rel> {
        let table = self.job.table(target).clone();
        if insert.overwrite {
            if let ir::ConnectorKind::Print | ir::ConnectorKind::Blackhole = table.connector.kind {
                self.error(Diagnostic::error(
                    insert.span,
                    format!(
                        "INSERT OVERWRITE needs a sink that can replace its content; `{}` uses the {} connector",
                        table.name,
                        table.connector.kind.name()
                    ),
                ));
                return None;
            }
        }
        let sink: Vec<(usize, &Column)> = table.physical_columns().collect();
        // Which query column feeds each sink column (None: NULL).
        let mut sources: Vec<Option<usize>> = vec![None; sink.len()];
        if insert.columns.is_empty() {
            if query.schema.len() != sink.len() {
                self.error(
                    Diagnostic::error(
                        insert.select_list_span(self.file),
                        format!(
                            "column count mismatch: the query returns {} columns, but sink `{}` has {}",
                            query.schema.len(),
                            table.name,
                            sink.len()
                        ),
                    )
                    .with_note(format!("query schema: {}", schema_text(&query.schema)))
                    .with_note(format!(
                        "sink schema:  {}",
                        schema_text(&sink.iter().map(|(_, c)| Field { name: c.name.clone(), ty: c.ty }).collect::<Vec<_>>())
                    )),
                );
                return None;
            }
            for (i, slot) in sources.iter_mut().enumerate() {
                *slot = Some(i);
            }
        } else {
            let mut listed = HashSet::new();
            for (q, name) in insert.columns.iter().enumerate() {
                match sink.iter().position(|(_, c)| c.name == name.value) {
                    Some(s) if !listed.insert(s) => {
                        self.error(Diagnostic::error(
                            name.span,
                            format!("column `{}` is listed twice", name.value),
                        ));
                        return None;
                    }
                    Some(s) => sources[s] = Some(q),
                    None => {
                        let mut d = Diagnostic::error(
                            name.span,
                            format!(
                                "sink `{}` has no physical column `{}`",
                                table.name, name.value
                            ),
                        );
                        if let Some(s) =
                            did_you_mean(&name.value, sink.iter().map(|(_, c)| c.name.as_str()))
                        {
                            d = d.with_help(format!("did you mean `{s}`?"));
                        }
                        self.error(d);
                        return None;
                    }
                }
            }
            if insert.columns.len() != query.schema.len() {
                self.error(Diagnostic::error(
                    insert.select_list_span(self.file),
                    format!(
                        "column count mismatch: {} target columns are listed, but the query returns {}",
                        insert.columns.len(),
                        query.schema.len()
                    ),
                ));
                return None;
            }
        }
        let mut exprs = Vec::with_capacity(sink.len());
        let mut ok = true;
        for (s, (_, column)) in sink.iter().enumerate() {
            let expr = match sources[s] {
                Some(q) => {
                    let field = &query.schema[q];
                    if !typing::can_assign(&field.ty, &column.ty) {
                        ok = false;
                        self.error(
                            Diagnostic::error(
                                insert.select_item_span(self.file, q),
                                format!(
                                    "incompatible types for sink column `{}`: the query gives {} (column `{}`), the sink expects {}",
                                    column.name, field.ty, field.name, column.ty
                                ),
                            )
                            .with_note(format!("query schema: {}", schema_text(&query.schema)))
                            .with_help(format!("CAST the value to {}", column.ty.kind)),
                        );
                        continue;
                    }
                    let col = Expr {
                        kind: ExprKind::Column(q),
                        ty: field.ty,
                        span: query.span,
                    };
                    cast_to(col, column.ty)
                }
                None => {
                    if !column.ty.nullable {
                        ok = false;
                        self.error(Diagnostic::error(
                            insert.target.span,
                            format!(
                                "column `{}` of sink `{}` is NOT NULL but is not in the INSERT's column list",
                                column.name, table.name
                            ),
                        ));
                        continue;
                    }
                    Expr {
                        kind: ExprKind::Literal(ir::Literal::Null),
                        ty: column.ty,
                        span: insert.target.span,
                    }
                }
            };
            exprs.push(expr);
        }
        if !ok {
            return None;
        }
        let identity = exprs.len() == query.schema.len()
            && exprs
                .iter()
                .enumerate()
                .all(|(i, e)| e.kind == ExprKind::Column(i) && e.ty == query.schema[i].ty);
        if identity {
            return Some(query);
        }
        let schema = sink
            .iter()
            .zip(&exprs)
            .map(|((_, c), e)| Field {
                name: c.name.clone(),
                ty: e.ty,
            })
            .collect();
        let span = query.span;
        Some(Rel {
            kind: RelKind::Project {
                input: Box::new(query),
                exprs,
            },
            schema,
            span,
        })
    }

    fn unknown_table(&self, name: &str, span: Span) -> Diagnostic {
        if self.defining_view.as_deref() == Some(name) {
            return Diagnostic::error(span, format!("view `{name}` refers to itself"))
                .with_help("a view can only use tables and views defined before it");
        }
        let mut d = Diagnostic::error(span, format!("table or view `{name}` not found"));
        if let Some(s) = did_you_mean(name, self.names.keys().map(String::as_str)) {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else if self.names.is_empty() {
            d = d.with_help("define it with CREATE TABLE before this statement");
        } else {
            d = d.with_note("tables and views exist from their CREATE statement on");
        }
        d
    }
}

/// The values Flink's sink enforcer options take.
fn sink_enforcer_values(key: &str) -> &'static [&'static str] {
    if key == "table.exec.sink.type-length-enforcer" {
        &["IGNORE", "TRIM_PAD"]
    } else {
        &["ERROR", "DROP"]
    }
}

impl ast::Insert {
    /// The span of the query part (for errors about its shape).
    fn query_span(&self, file: &SourceFile) -> Span {
        use sqlparser::ast::Spanned;
        let span = crate::parser::span_of(file, self.query.span());
        if span.is_empty() {
            self.span
        } else {
            span
        }
    }

    /// The top-level SELECT's items, if the query is one SELECT.
    fn select_items(&self) -> Option<&[sqlparser::ast::SelectItem]> {
        let mut body = self.query.body.as_ref();
        while let sqlparser::ast::SetExpr::Query(q) = body {
            body = q.body.as_ref();
        }
        match body {
            sqlparser::ast::SetExpr::Select(s) if !s.projection.is_empty() => Some(&s.projection),
            _ => None,
        }
    }

    /// The SELECT list (for column-count errors), else the whole query.
    fn select_list_span(&self, file: &SourceFile) -> Span {
        use sqlparser::ast::Spanned;
        let Some(items) = self.select_items() else {
            return self.query_span(file);
        };
        let first = crate::parser::span_of(file, items[0].span());
        let last = crate::parser::span_of(file, items[items.len() - 1].span());
        if first.is_empty() || last.is_empty() {
            self.query_span(file)
        } else {
            first.to(last)
        }
    }

    /// The select item that gives query column `column` (for an error about
    /// that column); the SELECT list when `*` makes items and columns differ.
    fn select_item_span(&self, file: &SourceFile, column: usize) -> Span {
        use sqlparser::ast::{SelectItem, Spanned};
        let Some(items) = self.select_items() else {
            return self.query_span(file);
        };
        let one_to_one = items.iter().all(|i| {
            matches!(
                i,
                SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }
            )
        });
        match items.get(column) {
            Some(item) if one_to_one => {
                let span = crate::parser::span_of(file, item.span());
                if span.is_empty() {
                    self.select_list_span(file)
                } else {
                    span
                }
            }
            _ => self.select_list_span(file),
        }
    }
}

/// `[a: INT, b: STRING]`, like Flink's schema listings in errors.
/// The runtime's memory-size rules, so `check` accepts exactly what a job
/// binary reads (`SET 'stmtc.memory-budget'`, `--memory-budget`).
#[path = "../../../runtime/src/memory_size.rs"]
mod memory_size;
pub(crate) use memory_size::parse_size as parse_memory_size;

pub(crate) fn schema_text(fields: &[Field]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .map(|f| format!("{}: {}", f.name, f.ty))
        .collect();
    format!("[{}]", parts.join(", "))
}

fn duplicate_field(fields: &[Field], span: Span, what: &str) -> Option<Diagnostic> {
    let mut seen = HashSet::new();
    fields
        .iter()
        .find(|f| !seen.insert(f.name.as_str()))
        .map(|f| {
            Diagnostic::error(
                span,
                format!("duplicate column name `{}` in {what}", f.name),
            )
            .with_help("give the columns distinct aliases")
        })
}

/// Wraps `expr` in a cast to `ty` unless it already has that type.
/// The nullability stays the expression's own.
pub(crate) fn cast_to(expr: Expr, ty: DataType) -> Expr {
    let target = DataType::new(ty.kind, expr.ty.nullable);
    if expr.ty.kind == ty.kind {
        return expr;
    }
    if let ExprKind::Literal(ir::Literal::Null) = expr.kind {
        return Expr { ty: target, ..expr };
    }
    let span = expr.span;
    Expr {
        kind: ExprKind::Cast {
            operand: Box::new(expr),
            try_cast: false,
        },
        ty: target,
        span,
    }
}

/// A kind-level cast helper: casts to a kind, keeping nullability.
pub(crate) fn cast_to_kind(expr: Expr, kind: TypeKind) -> Expr {
    let ty = DataType::new(kind, expr.ty.nullable);
    cast_to(expr, ty)
}
