//! Flink's sink enforcers, applied where a row is written to a sink.
//!
//! - `table.exec.sink.type-length-enforcer` (default `IGNORE`): with `TRIM_PAD`,
//!   a value written to a CHAR(n) / VARCHAR(n) / BINARY(n) / VARBINARY(n) column
//!   is cut to n characters (bytes), and CHAR(n) / BINARY(n) values are padded
//!   with spaces (zero bytes) to n — even when the query's type already equals the
//!   column's, so no implicit cast did it (a source column's declared length does
//!   not limit the values it reads). With `IGNORE` only the implicit cast to the
//!   column's type applies (the binder's `conform_to_sink`), which cuts and pads
//!   whenever the types differ.
//! - `table.exec.sink.not-null-enforcer` (default `ERROR`): a NULL written to a
//!   NOT NULL column fails the job with Flink's message; `DROP` drops the row.
//!
//! Both were observed on Flink 2.3 (`fixtures/sink_length_*`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Column, Field};
use crate::types::{TypeKind, MAX_LENGTH};

pub(super) const TYPE_LENGTH_KEY: &str = "table.exec.sink.type-length-enforcer";
pub(super) const NOT_NULL_KEY: &str = "table.exec.sink.not-null-enforcer";

/// The enforcers a job's settings select (the last SET of a key wins).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Enforcers {
    trim_pad: bool,
    drop_nulls: bool,
}

impl Enforcers {
    pub(super) fn from_settings(settings: &[(String, String)]) -> Enforcers {
        let last = |key: &str| {
            settings
                .iter()
                .rev()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.to_ascii_uppercase())
        };
        Enforcers {
            trim_pad: last(TYPE_LENGTH_KEY).as_deref() == Some("TRIM_PAD"),
            drop_nulls: last(NOT_NULL_KEY).as_deref() == Some("DROP"),
        }
    }

    /// The value to write for sink column `column`, read as `value` (tokens of
    /// a `&Option<..>` of the row), when TRIM_PAD changes it; `None` otherwise.
    pub(super) fn trim_pad(&self, value: &TokenStream, column: &Column) -> Option<TokenStream> {
        if !self.trim_pad {
            return None;
        }
        let string = quote!(rt::func::string);
        Some(match column.ty.kind {
            TypeKind::Varchar(MAX_LENGTH) | TypeKind::Varbinary(MAX_LENGTH) => return None,
            TypeKind::Char(n) | TypeKind::Varchar(n) => {
                let pad = matches!(column.ty.kind, TypeKind::Char(_));
                quote!(&#value.as_deref().map(|s| #string::cast_length(String::from(s), #n, #pad)))
            }
            TypeKind::Binary(n) | TypeKind::Varbinary(n) => {
                let pad = matches!(column.ty.kind, TypeKind::Binary(_));
                quote!(&#value
                    .as_deref()
                    .map(|v| #string::cast_bytes_length(v.to_vec(), #n, #pad))
                    .as_deref()
                    .map(rt::sink::format::Field::Bytes))
            }
            _ => return None,
        })
    }

    /// Statements that stop a row with a NULL in a NOT NULL column of `table`
    /// (fed by `schema`): Flink's error, or dropping the row. `value(i)` reads
    /// column `i` of the row.
    pub(super) fn not_null(
        &self,
        table: &str,
        columns: &[&Column],
        schema: &[Field],
        value: impl Fn(usize) -> TokenStream,
    ) -> TokenStream {
        let checks = columns
            .iter()
            .zip(schema)
            .enumerate()
            .filter(|(_, (c, _))| !c.ty.nullable)
            .map(|(i, (c, _))| {
                let v = value(i);
                let otherwise = if self.drop_nulls {
                    quote!(return Ok(());)
                } else {
                    let message = format!(
                        "sink `{table}`: Column '{}' is NOT NULL, however, a null value is being written into it. \
                         You can set job configuration '{NOT_NULL_KEY}'='DROP' to suppress this exception and drop such records silently.",
                        c.name
                    );
                    quote!(return Err(rt::Error::new(#message));)
                };
                quote!(if #v.is_none() { #otherwise })
            });
        quote!(#(#checks)*)
    }
}
