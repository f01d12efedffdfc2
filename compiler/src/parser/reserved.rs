//! Flink's reserved words, and the check that refuses them as unquoted
//! identifiers, as Flink's parser does (`CREATE TABLE raw (...)` fails in
//! Flink with `Encountered "raw" at line 1, column 14`).
//!
//! sqlparser reserves far fewer words than Flink, so a job it parses may
//! still be one Flink refuses. The parser runs this check over the names it
//! reads itself (tables, views, columns, keys) and over every query and
//! expression sqlparser returns. Function names are not checked: Flink
//! accepts `COUNT(*)`, `UPPER(s)` or `YEAR(d)` although those words are
//! reserved.

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Ident, InTarget,
    JoinConstraint, LimitClause, ObjectName, OrderByKind, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, TableAlias, TableFactor, TableWithJoins, WindowType,
};

/// Every reserved word of Flink 2.3.0's SQL parser (`FlinkSqlParserImpl`:
/// Calcite's reserved keywords plus flink-sql-parser's `Parser.tdd`
/// `keywords` not in `nonReservedKeywordsToAdd`), read from the parser
/// Flink 2.3.0 runs (flink-table-planner-loader-2.3.0.jar, PyPI
/// apache-flink 2.3.0) with `SqlAbstractParserImpl.Metadata.isReservedWord`:
/// docs/flink-observed/reserved_keywords.java, refusals.md. Sorted, upper case.
pub const RESERVED: &[&str] = &[
    "ABS",
    "ALL",
    "ALLOCATE",
    "ALLOW",
    "ALTER",
    "AND",
    "ANY",
    "ARE",
    "ARRAY",
    "ARRAY_CONCAT_AGG",
    "ARRAY_MAX_CARDINALITY",
    "AS",
    "ASENSITIVE",
    "ASYMMETRIC",
    "AT",
    "ATOMIC",
    "AUTHORIZATION",
    "AVG",
    "BEGIN",
    "BEGIN_FRAME",
    "BEGIN_PARTITION",
    "BETWEEN",
    "BIGINT",
    "BINARY",
    "BIT",
    "BITMAP",
    "BLOB",
    "BOOLEAN",
    "BOTH",
    "BUCKETS",
    "BY",
    "BYTES",
    "CALL",
    "CALLED",
    "CARDINALITY",
    "CASCADED",
    "CASE",
    "CAST",
    "CATALOGS",
    "CEIL",
    "CEILING",
    "CHAR",
    "CHARACTER",
    "CHARACTER_LENGTH",
    "CHAR_LENGTH",
    "CHECK",
    "CLASSIFIER",
    "CLOB",
    "CLOSE",
    "COALESCE",
    "COLLATE",
    "COLLECT",
    "COLUMN",
    "COMMENT",
    "COMMIT",
    "CONDITION",
    "CONNECT",
    "CONNECTIONS",
    "CONSTRAINT",
    "CONTAINS",
    "CONTAINS_SUBSTR",
    "CONTINUOUS",
    "CONVERT",
    "CORR",
    "CORRESPONDING",
    "COUNT",
    "COVAR_POP",
    "COVAR_SAMP",
    "CREATE",
    "CROSS",
    "CUBE",
    "CUME_DIST",
    "CURRENT",
    "CURRENT_CATALOG",
    "CURRENT_DATE",
    "CURRENT_DEFAULT_TRANSFORM_GROUP",
    "CURRENT_PATH",
    "CURRENT_ROLE",
    "CURRENT_ROW",
    "CURRENT_SCHEMA",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_TRANSFORM_GROUP_FOR_TYPE",
    "CURRENT_USER",
    "CURSOR",
    "CYCLE",
    "DATABASES",
    "DATE",
    "DATETIME",
    "DATETIME_TRUNC",
    "DATE_TRUNC",
    "DAY",
    "DEALLOCATE",
    "DEC",
    "DECIMAL",
    "DECLARE",
    "DEFAULT",
    "DEFINE",
    "DELETE",
    "DENSE_RANK",
    "DEREF",
    "DESCRIBE",
    "DETERMINISTIC",
    "DISALLOW",
    "DISCONNECT",
    "DISTINCT",
    "DISTRIBUTED",
    "DISTRIBUTION",
    "DOT",
    "DOUBLE",
    "DROP",
    "DYNAMIC",
    "EACH",
    "ELEMENT",
    "ELSE",
    "EMPTY",
    "END",
    "END_FRAME",
    "END_PARTITION",
    "EQUALS",
    "ESCAPE",
    "EVERY",
    "EXCEPT",
    "EXEC",
    "EXECUTE",
    "EXISTS",
    "EXP",
    "EXPLAIN",
    "EXTEND",
    "EXTENDED",
    "EXTERNAL",
    "EXTRACT",
    "FALSE",
    "FETCH",
    "FILTER",
    "FIRST_VALUE",
    "FLOAT",
    "FLOOR",
    "FOR",
    "FOREIGN",
    "FRAME_ROW",
    "FREE",
    "FRESHNESS",
    "FRIDAY",
    "FROM",
    "FULL",
    "FUNCTION",
    "FUNCTIONS",
    "FUSION",
    "GET",
    "GLOBAL",
    "GRANT",
    "GROUP",
    "GROUPING",
    "GROUPS",
    "GROUP_CONCAT",
    "HASH",
    "HAVING",
    "HOLD",
    "HOUR",
    "IDENTITY",
    "ILIKE",
    "IMPORT",
    "IN",
    "INCLUDE",
    "INDICATOR",
    "INITIAL",
    "INNER",
    "INOUT",
    "INSENSITIVE",
    "INSERT",
    "INT",
    "INTEGER",
    "INTERSECT",
    "INTERSECTION",
    "INTERVAL",
    "INTO",
    "IS",
    "JOIN",
    "JSON_ARRAY",
    "JSON_ARRAYAGG",
    "JSON_EXISTS",
    "JSON_OBJECT",
    "JSON_OBJECTAGG",
    "JSON_QUERY",
    "JSON_SCOPE",
    "JSON_VALUE",
    "LAG",
    "LANGUAGE",
    "LARGE",
    "LAST_VALUE",
    "LATERAL",
    "LEAD",
    "LEADING",
    "LEFT",
    "LIKE",
    "LIKE_REGEX",
    "LIMIT",
    "LN",
    "LOCAL",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "LOWER",
    "MATCH",
    "MATCHES",
    "MATCH_NUMBER",
    "MATCH_RECOGNIZE",
    "MATERIALIZED",
    "MAX",
    "MEASURES",
    "MEMBER",
    "MERGE",
    "METHOD",
    "MIN",
    "MINUS",
    "MINUTE",
    "MOD",
    "MODELS",
    "MODIFIES",
    "MODIFY",
    "MODULE",
    "MODULES",
    "MONDAY",
    "MONTH",
    "MULTISET",
    "NATIONAL",
    "NATURAL",
    "NCHAR",
    "NCLOB",
    "NEW",
    "NEXT",
    "NO",
    "NONE",
    "NORMALIZE",
    "NOT",
    "NTH_VALUE",
    "NTILE",
    "NULL",
    "NULLIF",
    "NUMERIC",
    "OCCURRENCES_REGEX",
    "OCTET_LENGTH",
    "OF",
    "OFFSET",
    "OLD",
    "OMIT",
    "ON",
    "ONE",
    "ONLY",
    "OPEN",
    "OR",
    "ORDER",
    "ORDINAL",
    "OUT",
    "OUTER",
    "OVER",
    "OVERLAPS",
    "OVERLAY",
    "PARAMETER",
    "PARTITION",
    "PATTERN",
    "PER",
    "PERCENT",
    "PERCENTILE_CONT",
    "PERCENTILE_DISC",
    "PERCENT_RANK",
    "PERIOD",
    "PERMUTE",
    "PIVOT",
    "PORTION",
    "POSITION",
    "POSITION_REGEX",
    "POWER",
    "PRECEDES",
    "PRECISION",
    "PREPARE",
    "PREV",
    "PRIMARY",
    "PROCEDURE",
    "PROCEDURES",
    "QUALIFY",
    "QUARTERS",
    "RANGE",
    "RANK",
    "RAW",
    "READS",
    "REAL",
    "RECURSIVE",
    "REF",
    "REFERENCES",
    "REFERENCING",
    "REFRESH",
    "REFRESH_MODE",
    "REGR_AVGX",
    "REGR_AVGY",
    "REGR_COUNT",
    "REGR_INTERCEPT",
    "REGR_R2",
    "REGR_SLOPE",
    "REGR_SXX",
    "REGR_SXY",
    "REGR_SYY",
    "RELEASE",
    "RENAME",
    "RESET",
    "RESULT",
    "RESUME",
    "RETURN",
    "RETURNS",
    "REVOKE",
    "RIGHT",
    "RLIKE",
    "ROLLBACK",
    "ROLLUP",
    "ROW",
    "ROWS",
    "ROW_NUMBER",
    "RUNNING",
    "SAFE_CAST",
    "SAFE_OFFSET",
    "SAFE_ORDINAL",
    "SATURDAY",
    "SAVEPOINT",
    "SCALA",
    "SCOPE",
    "SCROLL",
    "SEARCH",
    "SECOND",
    "SEEK",
    "SELECT",
    "SENSITIVE",
    "SEPARATOR",
    "SESSION_USER",
    "SET",
    "SHOW",
    "SIMILAR",
    "SKIP",
    "SMALLINT",
    "SOME",
    "SPECIFIC",
    "SPECIFICTYPE",
    "SQL",
    "SQLEXCEPTION",
    "SQLSTATE",
    "SQLWARNING",
    "SQRT",
    "START",
    "STATEMENT",
    "STATIC",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "STREAM",
    "STRING",
    "STRING_AGG",
    "STRUCTURED",
    "SUBMULTISET",
    "SUBSET",
    "SUBSTRING",
    "SUBSTRING_REGEX",
    "SUCCEEDS",
    "SUM",
    "SUNDAY",
    "SUSPEND",
    "SYMMETRIC",
    "SYSTEM",
    "SYSTEM_TIME",
    "SYSTEM_USER",
    "TABLE",
    "TABLES",
    "TABLESAMPLE",
    "THEN",
    "THURSDAY",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMP_DIFF",
    "TIMESTAMP_LTZ",
    "TIMESTAMP_TRUNC",
    "TIMEZONE_HOUR",
    "TIMEZONE_MINUTE",
    "TIME_DIFF",
    "TIME_TRUNC",
    "TINYINT",
    "TO",
    "TRAILING",
    "TRANSLATE",
    "TRANSLATE_REGEX",
    "TRANSLATION",
    "TREAT",
    "TRIGGER",
    "TRIM",
    "TRIM_ARRAY",
    "TRUE",
    "TRUNCATE",
    "TRY_CAST",
    "TUESDAY",
    "UESCAPE",
    "UNION",
    "UNIQUE",
    "UNKNOWN",
    "UNNEST",
    "UNPIVOT",
    "UPDATE",
    "UPPER",
    "UPSERT",
    "USE",
    "USER",
    "USING",
    "VALUE",
    "VALUES",
    "VALUE_OF",
    "VARBINARY",
    "VARCHAR",
    "VARIANT",
    "VARYING",
    "VAR_POP",
    "VAR_SAMP",
    "VERSIONING",
    "VIEWS",
    "WATERMARK",
    "WATERMARKS",
    "WEDNESDAY",
    "WEEKS",
    "WHEN",
    "WHENEVER",
    "WHERE",
    "WIDTH_BUCKET",
    "WINDOW",
    "WITH",
    "WITHIN",
    "WITHOUT",
    "YEAR",
];

/// Context variables: reserved, yet valid on their own in an expression
/// (`SELECT CURRENT_DATE`), so a bare identifier with such a name is not refused.
const CONTEXT_VARIABLES: &[&str] = &[
    "CURRENT_CATALOG",
    "CURRENT_DATE",
    "CURRENT_DEFAULT_TRANSFORM_GROUP",
    "CURRENT_PATH",
    "CURRENT_ROLE",
    "CURRENT_SCHEMA",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "SESSION_USER",
    "SYSTEM_USER",
    "USER",
];

/// Whether Flink's parser reserves `word` (any case).
pub fn is_reserved(word: &str) -> bool {
    let upper = word.to_ascii_uppercase();
    RESERVED.binary_search(&upper.as_str()).is_ok()
}

/// Whether `ident` is a reserved word written without backticks.
pub fn is_unquoted_reserved(ident: &Ident) -> bool {
    ident.quote_style.is_none() && is_reserved(&ident.value)
}

/// Calls `report` on every unquoted reserved identifier of a query: table
/// and column references, aliases, CTE names, JOIN USING columns.
pub fn check_query(query: &Query, report: &mut dyn FnMut(&Ident)) {
    if let Some(with) = &query.with {
        for cte in &with.cte_tables {
            alias(&cte.alias, report);
            check_query(&cte.query, report);
        }
    }
    set_expr(&query.body, report);
    if let Some(order_by) = &query.order_by {
        if let OrderByKind::Expressions(items) = &order_by.kind {
            for item in items {
                check_expr(&item.expr, report);
            }
        }
    }
    match &query.limit_clause {
        Some(LimitClause::LimitOffset { limit, offset, .. }) => {
            if let Some(limit) = limit {
                check_expr(limit, report);
            }
            if let Some(offset) = offset {
                check_expr(&offset.value, report);
            }
        }
        Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
            check_expr(offset, report);
            check_expr(limit, report);
        }
        None => {}
    }
}

fn set_expr(body: &SetExpr, report: &mut dyn FnMut(&Ident)) {
    match body {
        SetExpr::Select(select) => self::select(select, report),
        SetExpr::Query(query) => check_query(query, report),
        SetExpr::SetOperation { left, right, .. } => {
            set_expr(left, report);
            set_expr(right, report);
        }
        SetExpr::Values(values) => {
            for row in &values.rows {
                for e in &row.content {
                    check_expr(e, report);
                }
            }
        }
        _ => {}
    }
}

fn select(select: &Select, report: &mut dyn FnMut(&Ident)) {
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) => check_expr(e, report),
            SelectItem::ExprWithAlias { expr, alias } => {
                check_expr(expr, report);
                ident(alias, report);
            }
            SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(n), _) => {
                object_name(n, report)
            }
            SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::Expr(e), _) => {
                check_expr(e, report)
            }
            SelectItem::ExprWithAliases { expr, aliases } => {
                check_expr(expr, report);
                aliases.iter().for_each(|a| ident(a, report));
            }
            SelectItem::Wildcard(_) => {}
        }
    }
    for from in &select.from {
        table_with_joins(from, report);
    }
    for e in [&select.selection, &select.having, &select.qualify]
        .into_iter()
        .flatten()
    {
        check_expr(e, report);
    }
    if let GroupByExpr::Expressions(exprs, _) = &select.group_by {
        for e in exprs {
            check_expr(e, report);
        }
    }
    for window in &select.named_window {
        ident(&window.0, report);
    }
}

fn table_with_joins(from: &TableWithJoins, report: &mut dyn FnMut(&Ident)) {
    table_factor(&from.relation, report);
    for join in &from.joins {
        table_factor(&join.relation, report);
        use sqlparser::ast::JoinOperator as J;
        let constraint = match &join.join_operator {
            J::Join(c)
            | J::Inner(c)
            | J::Left(c)
            | J::LeftOuter(c)
            | J::Right(c)
            | J::RightOuter(c)
            | J::FullOuter(c) => Some(c),
            _ => None,
        };
        match constraint {
            Some(JoinConstraint::On(e)) => check_expr(e, report),
            Some(JoinConstraint::Using(names)) => {
                for n in names {
                    object_name(n, report);
                }
            }
            _ => {}
        }
    }
}

fn table_factor(factor: &TableFactor, report: &mut dyn FnMut(&Ident)) {
    match factor {
        TableFactor::Table {
            name, alias, args, ..
        } => {
            match args {
                // `name(args)` calls a table function: `name` is a function name.
                Some(args) => function_args(&args.args, report),
                None => object_name(name, report),
            }
            if let Some(a) = alias {
                self::alias(a, report);
            }
        }
        TableFactor::Derived {
            subquery, alias, ..
        } => {
            check_query(subquery, report);
            if let Some(a) = alias {
                self::alias(a, report);
            }
        }
        TableFactor::TableFunction { expr, alias } => {
            check_expr(expr, report);
            if let Some(a) = alias {
                self::alias(a, report);
            }
        }
        TableFactor::Function { args, alias, .. } => {
            function_args(args, report);
            if let Some(a) = alias {
                self::alias(a, report);
            }
        }
        TableFactor::NestedJoin {
            table_with_joins,
            alias,
        } => {
            self::table_with_joins(table_with_joins, report);
            if let Some(a) = alias {
                self::alias(a, report);
            }
        }
        _ => {}
    }
}

fn alias(alias: &TableAlias, report: &mut dyn FnMut(&Ident)) {
    ident(&alias.name, report);
    for column in &alias.columns {
        ident(&column.name, report);
    }
}

fn object_name(name: &ObjectName, report: &mut dyn FnMut(&Ident)) {
    for part in &name.0 {
        if let Some(i) = part.as_ident() {
            ident(i, report);
        }
    }
}

fn ident(i: &Ident, report: &mut dyn FnMut(&Ident)) {
    if is_unquoted_reserved(i) {
        report(i);
    }
}

/// Named arguments (`SIZE => ...`) are parameter names, not identifiers.
fn function_args(args: &[FunctionArg], report: &mut dyn FnMut(&Ident)) {
    for arg in args {
        let value = match arg {
            FunctionArg::Named { arg, .. } | FunctionArg::ExprNamed { arg, .. } => arg,
            FunctionArg::Unnamed(arg) => arg,
        };
        match value {
            FunctionArgExpr::Expr(e) => check_expr(e, report),
            FunctionArgExpr::QualifiedWildcard(n) => object_name(n, report),
            _ => {}
        }
    }
}

/// Calls `report` on every unquoted reserved identifier of an expression
/// (subqueries included).
pub fn check_expr(expr: &Expr, report: &mut dyn FnMut(&Ident)) {
    use Expr as E;
    match expr {
        E::Identifier(i) if CONTEXT_VARIABLES.contains(&i.value.to_ascii_uppercase().as_str()) => {}
        E::Identifier(i) => ident(i, report),
        E::CompoundIdentifier(parts) => {
            for i in parts {
                ident(i, report);
            }
        }
        E::Nested(e)
        | E::IsNull(e)
        | E::IsNotNull(e)
        | E::IsTrue(e)
        | E::IsNotTrue(e)
        | E::IsFalse(e)
        | E::IsNotFalse(e)
        | E::IsUnknown(e)
        | E::IsNotUnknown(e)
        | E::UnaryOp { expr: e, .. }
        | E::Cast { expr: e, .. }
        | E::Extract { expr: e, .. }
        | E::Floor { expr: e, .. }
        | E::Ceil { expr: e, .. }
        | E::Collate { expr: e, .. }
        | E::Prefixed { value: e, .. } => check_expr(e, report),
        E::Interval(interval) => check_expr(&interval.value, report),
        E::BinaryOp { left, right, .. }
        | E::IsDistinctFrom(left, right)
        | E::IsNotDistinctFrom(left, right) => {
            check_expr(left, report);
            check_expr(right, report);
        }
        E::Between {
            expr, low, high, ..
        } => {
            for e in [expr, low, high] {
                check_expr(e, report);
            }
        }
        E::In { expr, target, .. } => {
            check_expr(expr, report);
            match target {
                InTarget::List(list) => list.iter().for_each(|e| check_expr(e, report)),
                InTarget::Subquery(q) => check_query(q, report),
                InTarget::Unnest(e) => check_expr(e, report),
                _ => {}
            }
        }
        E::Exists { subquery, .. } | E::Subquery(subquery) => check_query(subquery, report),
        E::Like { expr, pattern, .. }
        | E::ILike { expr, pattern, .. }
        | E::SimilarTo { expr, pattern, .. }
        | E::RLike { expr, pattern, .. } => {
            check_expr(expr, report);
            check_expr(pattern, report);
        }
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            if let Some(o) = operand {
                check_expr(o, report);
            }
            for when in conditions {
                check_expr(&when.condition, report);
                check_expr(&when.result, report);
            }
            if let Some(e) = else_result {
                check_expr(e, report);
            }
        }
        E::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            check_expr(expr, report);
            for e in [substring_from, substring_for].into_iter().flatten() {
                check_expr(e, report);
            }
        }
        E::Trim {
            expr, trim_what, ..
        } => {
            check_expr(expr, report);
            if let Some(e) = trim_what {
                check_expr(e, report);
            }
        }
        E::Position { expr, r#in } => {
            check_expr(expr, report);
            check_expr(r#in, report);
        }
        E::Tuple(items) => items.iter().for_each(|e| check_expr(e, report)),
        E::Function(f) => {
            if let FunctionArguments::List(list) = &f.args {
                let args = &list.args[..];
                // `TIMESTAMPDIFF(HOUR, a, b)`: the unit is a keyword, not a column.
                let unit_first = f.name.0.len() == 1
                    && f.name.0[0].as_ident().is_some_and(|n| {
                        n.value.eq_ignore_ascii_case("TIMESTAMPDIFF")
                            || n.value.eq_ignore_ascii_case("TIMESTAMPADD")
                    });
                let skip = usize::from(
                    unit_first
                        && matches!(
                            args.first(),
                            Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(E::Identifier(
                                _
                            ))))
                        ),
                );
                function_args(&args[skip..], report);
            }
            if let FunctionArguments::Subquery(q) = &f.args {
                check_query(q, report);
            }
            if let Some(filter) = &f.filter {
                check_expr(filter, report);
            }
            if let Some(WindowType::WindowSpec(spec)) = &f.over {
                for e in &spec.partition_by {
                    check_expr(e, report);
                }
                for item in &spec.order_by {
                    check_expr(&item.expr, report);
                }
            }
        }
        _ => {}
    }
}
