//! Code generation for sinks: the writer each sink keeps in `State` and
//! the push that writes one row (a part file, stdout/stderr, or nowhere).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::source_text::TextKind;
use super::{decimal_type, lit_str, sink_enforce, Gen, GenResult, StateParts};
use crate::ir::{ConnectorKind, Field, Format, TableId};
use crate::plan::NodeId;
use crate::types::TypeKind;

impl Gen<'_> {
    /// A sink's writer in `State`: a part file writer, a print sink or a row count.
    pub(super) fn sink_state(
        &self,
        n: NodeId,
        table: TableId,
        parts: &mut StateParts,
    ) -> GenResult<()> {
        let plan = self.plan;
        let t = plan.job.table(table);
        let w = format_ident!("w{}", n.0);
        let ti = table.0 as usize;
        let d = self.node_doc(n);
        match &t.connector.kind {
            ConnectorKind::Filesystem { format, .. } => {
                let slot = self
                    .fs_tables
                    .iter()
                    .position(|x| *x == table)
                    .expect("fs sink has a slot");
                let ordinal = plan.sinks.iter().position(|s| *s == n).unwrap_or(0);
                let sinks = plan.sinks.len();
                let columns: Vec<Literal> = t
                    .physical_columns()
                    .map(|(_, c)| lit_str(&c.name))
                    .collect();
                let (ty, make) = match format {
                    Format::Csv => (
                        quote!(rt::sink::format::CsvFormat),
                        quote!(ctx.csv_format(#ti)?),
                    ),
                    Format::Json => (
                        quote!(rt::sink::format::JsonFormat),
                        quote!(ctx.json_format(#ti, &[#(#columns),*])),
                    ),
                };
                parts.add(
                    quote!(#d #w: rt::sink::commit::PartWriter<#ty>),
                    quote!(#w: staging.part_writer(#slot, thread, pipeline * #sinks + #ordinal, #make)),
                    quote!(ctx.sink_counter(#ti).add(o.#w.finish()?);),
                );
            }
            ConnectorKind::Print => parts.add(
                quote!(#d #w: rt::sink::print::PrintSink),
                quote!(#w: ctx.print_sink(#ti)),
                quote!(ctx.sink_counter(#ti).add(o.#w.finish()?);),
            ),
            ConnectorKind::Blackhole => {
                parts.add(quote!(#d #w: u64), quote!(#w: 0), quote!(self.#w += o.#w;))
            }
            ConnectorKind::Datagen => return Err("datagen tables cannot be written".to_string()),
        }
        Ok(())
    }

    /// Writes one row to a sink: a part file, stdout/stderr, or nowhere.
    pub(super) fn sink_write(
        &self,
        n: NodeId,
        table: TableId,
        schema: &[Field],
    ) -> GenResult<TokenStream> {
        let t = self.plan.job.table(table);
        let w = format_ident!("w{}", n.0);
        let enforcers = sink_enforce::Enforcers::from_settings(&self.plan.job.settings);
        let columns: Vec<&crate::ir::Column> = t.physical_columns().map(|(_, c)| c).collect();
        let input = self.plan.node(n).kind.inputs()[0];
        let not_null = enforcers.not_null(&t.name, &columns, schema, |i| {
            let c = self.field_of(input, i);
            quote!(row.#c)
        });
        let fields = schema
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let c = self.field_of(input, i);
                if let Some(value) = columns
                    .get(i)
                    .and_then(|column| enforcers.trim_pad(&quote!(row.#c), column))
                {
                    return Ok(quote!(f.field(out, #value);));
                }
                let value = match f.ty.kind {
                    TypeKind::Decimal { .. } => {
                        let ty = decimal_type(f.ty.kind);
                        quote!(&row.#c.map(|v| rt::sink::format::Field::Decimal(v, #ty)))
                    }
                    TypeKind::TimestampLtz(_) => {
                        quote!(&row.#c.map(rt::sink::format::Field::TimestampLtz))
                    }
                    TypeKind::Binary(_) | TypeKind::Varbinary(_) => {
                        quote!(&row.#c.as_deref().map(rt::sink::format::Field::Bytes))
                    }
                    TypeKind::IntervalDayTime | TypeKind::IntervalYearMonth | TypeKind::Null => {
                        return Err(format!(
                            "writing a {} column to a sink is not supported yet",
                            f.ty
                        ))
                    }
                    _ => quote!(&row.#c),
                };
                // A csv source's field passed through: its text, when canonical.
                if self.wants_record[n.index()] {
                    let from = self.source_text[input.index()].as_ref();
                    if let Some((p, kind)) = from.and_then(|cols| cols[i]) {
                        let write = match kind {
                            TextKind::Int => quote!(int_text),
                            TextKind::Double => quote!(double_text),
                            TextKind::Timestamp => quote!(timestamp_text),
                        };
                        return Ok(quote!(f.#write(out, #value, rec.field(#p));));
                    }
                }
                Ok(quote!(f.field(out, #value);))
            })
            .collect::<GenResult<Vec<_>>>()?;
        Ok(match &t.connector.kind {
            ConnectorKind::Blackhole => quote!(#not_null st.#w += 1;),
            _ => quote!(#not_null st.#w.write_row(|f, out| { #(#fields)* })?;),
        })
    }
}
