//! The statements of a Flink job file.
//!
//! Flink-specific statements (SET, CREATE TABLE with WITH options, computed
//! columns and watermarks, INSERT, statement-set blocks) get their own small
//! types; queries and expressions stay sqlparser's AST, which the binder reads.

use sqlparser::ast::{Expr, Query};

use crate::diagnostics::Span;
use crate::types::DataType;

/// An identifier as written (backticks removed), with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub value: String,
    pub span: Span,
}

/// A whole job file.
#[derive(Clone, Debug, Default)]
pub struct Script {
    pub statements: Vec<Statement>,
    /// Names declared by CREATE statements that failed to parse.
    pub broken_names: Vec<Name>,
    /// The (line, column) of each SELECT keyword whose GROUP BY says
    /// DISTINCT (`parser/group_by_quantifier.rs`).
    pub group_by_distinct: Vec<(u64, u64)>,
}

#[derive(Clone, Debug)]
pub enum Statement {
    Set(SetOption),
    CreateTable(Box<CreateTable>),
    CreateView(CreateView),
    Insert(Insert),
}

/// `SET 'key' = 'value';`
#[derive(Clone, Debug)]
pub struct SetOption {
    pub key: String,
    pub value: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct CreateTable {
    pub name: Name,
    pub temporary: bool,
    pub if_not_exists: bool,
    pub columns: Vec<ColumnDef>,
    pub watermark: Option<Watermark>,
    pub primary_key: Option<PrimaryKey>,
    pub options: Vec<TableOption>,
    /// Where `WITH` stands, for errors about missing options.
    pub with_span: Span,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ColumnDef {
    pub name: Name,
    pub kind: ColumnKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ColumnKind {
    /// A stored column with its declared type (nullability included).
    Physical { data_type: DataType },
    /// `name AS expr`: computed from the other columns on read.
    Computed { expr: Box<Expr> },
    /// `name type METADATA [FROM 'key'] [VIRTUAL]`: accepted by the parser so
    /// the binder can name it as unsupported.
    Metadata,
}

/// `WATERMARK FOR column AS expr`.
#[derive(Clone, Debug)]
pub struct Watermark {
    pub column: Name,
    pub expr: Expr,
    pub span: Span,
}

/// `PRIMARY KEY (a, b) NOT ENFORCED`.
#[derive(Clone, Debug)]
pub struct PrimaryKey {
    pub columns: Vec<Name>,
    pub span: Span,
}

/// One `'key' = 'value'` entry of a `WITH (...)` clause.
#[derive(Clone, Debug)]
pub struct TableOption {
    pub key: String,
    pub key_span: Span,
    pub value: String,
    pub value_span: Span,
}

/// `CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(columns)] AS query`.
#[derive(Clone, Debug)]
pub struct CreateView {
    pub name: Name,
    pub temporary: bool,
    pub if_not_exists: bool,
    pub columns: Vec<Name>,
    pub query: Box<Query>,
    pub span: Span,
}

/// `INSERT INTO|OVERWRITE target [(columns)] query`.
#[derive(Clone, Debug)]
pub struct Insert {
    pub target: Name,
    pub overwrite: bool,
    pub columns: Vec<Name>,
    pub query: Box<Query>,
    pub span: Span,
}

impl Statement {
    pub fn span(&self) -> Span {
        match self {
            Statement::Set(s) => s.span,
            Statement::CreateTable(t) => t.span,
            Statement::CreateView(v) => v.span,
            Statement::Insert(i) => i.span,
        }
    }
}
