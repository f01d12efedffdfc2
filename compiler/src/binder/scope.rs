//! Name resolution scopes: the columns visible to an expression, each with the
//! table name or alias that qualifies it.

use crate::diagnostics::{did_you_mean, Diagnostic, Span};
use crate::ir::Field;
use crate::types::DataType;

#[derive(Clone, Debug)]
pub(crate) struct ScopeColumn {
    pub qualifier: Option<String>,
    pub name: String,
    pub ty: DataType,
}

/// The columns of a FROM clause, in input order (position = column index).
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    pub columns: Vec<ScopeColumn>,
}

impl Scope {
    pub fn of_fields(qualifier: Option<&str>, fields: &[Field]) -> Scope {
        Scope {
            columns: fields
                .iter()
                .map(|f| ScopeColumn {
                    qualifier: qualifier.map(str::to_string),
                    name: f.name.clone(),
                    ty: f.ty,
                })
                .collect(),
        }
    }

    /// The scope of a join: left columns then right columns.
    pub fn concat(mut self, other: Scope) -> Scope {
        self.columns.extend(other.columns);
        self
    }

    /// Resolves `name` or `qualifier.name` (case-sensitive, as in Flink).
    pub fn resolve(&self, parts: &[(&str, Span)]) -> Result<(usize, DataType), Diagnostic> {
        match parts {
            [(name, span)] => {
                let found: Vec<usize> = self
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.name == *name)
                    .map(|(i, _)| i)
                    .collect();
                match found.as_slice() {
                    [i] => Ok((*i, self.columns[*i].ty)),
                    [] => Err(self.not_found(name, *span, None)),
                    many => {
                        let qualifiers: Vec<String> = many
                            .iter()
                            .filter_map(|&i| self.columns[i].qualifier.clone())
                            .map(|q| format!("`{q}.{name}`"))
                            .collect();
                        let mut d =
                            Diagnostic::error(*span, format!("column `{name}` is ambiguous"));
                        if !qualifiers.is_empty() {
                            d = d.with_help(format!("qualify it: {}", qualifiers.join(" or ")));
                        }
                        Err(d)
                    }
                }
            }
            [(qualifier, qspan), (name, span)] => {
                if !self
                    .columns
                    .iter()
                    .any(|c| c.qualifier.as_deref() == Some(*qualifier))
                {
                    let mut d = Diagnostic::error(
                        *qspan,
                        format!("table `{qualifier}` not found in this query"),
                    );
                    let mut qualifiers: Vec<&str> = self
                        .columns
                        .iter()
                        .filter_map(|c| c.qualifier.as_deref())
                        .collect();
                    qualifiers.dedup();
                    if let Some(s) = did_you_mean(qualifier, qualifiers.iter().copied()) {
                        d = d.with_help(format!("did you mean `{s}`?"));
                    }
                    return Err(d);
                }
                let found = self
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.qualifier.as_deref() == Some(*qualifier) && c.name == *name)
                    .map(|(i, _)| i)
                    .collect::<Vec<_>>();
                match found.as_slice() {
                    [i] => Ok((*i, self.columns[*i].ty)),
                    [] => Err(self.not_found(name, *span, Some(qualifier))),
                    _ => Err(Diagnostic::error(
                        *span,
                        format!("column `{qualifier}.{name}` is ambiguous"),
                    )),
                }
            }
            _ => {
                let span = parts
                    .first()
                    .map(|p| p.1)
                    .unwrap_or_default()
                    .to(parts.last().map(|p| p.1).unwrap_or_default());
                let text: Vec<&str> = parts.iter().map(|p| p.0).collect();
                Err(Diagnostic::error(
                    span,
                    format!(
                        "`{}`: nested or catalog-qualified column references are not supported",
                        text.join(".")
                    ),
                ))
            }
        }
    }

    fn not_found(&self, name: &str, span: Span, qualifier: Option<&str>) -> Diagnostic {
        let candidates = self
            .columns
            .iter()
            .filter(|c| qualifier.is_none() || c.qualifier.as_deref() == qualifier)
            .map(|c| c.name.as_str());
        let message = match qualifier {
            Some(q) => format!("column `{name}` not found in table `{q}`"),
            None if self.columns.is_empty() => {
                format!("column `{name}` not found: the query has no FROM clause")
            }
            None => format!("column `{name}` not found in any table of the FROM clause"),
        };
        let mut d = Diagnostic::error(span, message);
        if let Some(s) = did_you_mean(name, candidates) {
            d = d.with_help(format!("did you mean `{s}`?"));
        }
        d
    }
}
