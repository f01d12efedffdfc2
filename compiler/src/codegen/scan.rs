//! Code generation for sources: the task that reads a table once (csv or
//! json files split across threads, or datagen rows) and pushes every row
//! to all consumers of the scan, and the task of a VALUES list.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{col_ident, decimal_type, expr, lit_str, row_ident, Gen, GenResult};
use crate::ir::{ConnectorKind, Expr, Format, TableId};
use crate::plan::NodeId;
use crate::types::{DataType, TypeKind};

impl Gen<'_> {
    pub(super) fn scan_task(
        &mut self,
        n: NodeId,
        pipeline: usize,
        table: TableId,
        columns: &[usize],
        filter: Option<&Expr>,
    ) -> GenResult<TokenStream> {
        let plan = self.plan;
        let node = plan.node(n);
        let t = plan.job.table(table);
        let ti = table.0 as usize;
        let physical: Vec<(usize, &crate::ir::Column)> = t.physical_columns().collect();
        let names: Vec<Literal> = physical.iter().map(|(_, c)| lit_str(&c.name)).collect();
        let out_row = row_ident(n);
        let emit = self.emit(n, quote!(row));
        let column = |i: usize| {
            let c = col_ident(i);
            quote!(row.#c)
        };
        let filter = match filter {
            Some(f) => Some(expr::expr(f, &column, &mut self.statics)?),
            None => None,
        };
        let check = match &filter {
            Some(e) => quote!(if !rt::value::logic::is_true(#e) { continue; }),
            None => quote!(),
        };
        let source = Literal::usize_unsuffixed(ti);
        match &t.connector.kind {
            ConnectorKind::Filesystem { format, .. } => {
                let fields = columns
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| self.is_live(n, i))
                    .map(|(i, &p)| {
                        let c = col_ident(i);
                        let getter = record_getter(&node.schema[i].ty, p)?;
                        Ok(quote!(#c: #getter))
                    })
                    .collect::<GenResult<Vec<_>>>()?;
                let rec = super::param(&quote!(#(#fields)* #emit), "rec");
                let progress = quote! {
                    rows += 1;
                    if rows % 65536 == 0 {
                        let bytes = reader.bytes_read();
                        counter.add(bytes - last, 65536);
                        last = bytes;
                    }
                };
                // Consumers that read the record (`source_text.rs`) borrow
                // the reader until they return: the progress count follows.
                let per_row = if super::mentions(&emit, "rec") {
                    let emit = match &filter {
                        Some(e) => quote!(if rt::value::logic::is_true(#e) { #emit }),
                        None => emit.clone(),
                    };
                    quote!(#emit #progress)
                } else {
                    quote!(#progress #check #emit)
                };
                let (reader, opts, boundary) = match format {
                    Format::Csv => (
                        quote!(rt::source::csv::CsvReader),
                        quote!(ctx.csv_options(#ti)?),
                        quote!(opts.boundary()),
                    ),
                    Format::Json => (
                        quote!(rt::source::json::JsonReader),
                        quote!(ctx.json_options(#ti)?),
                        // Newline-delimited json: a newline always ends a record.
                        quote!(rt::source::files::Boundary {
                            quote: None,
                            escape: None
                        }),
                    ),
                };
                Ok(quote! {
                    let files = rt::source::files::list_files(&ctx.path(#ti))?;
                    let opts = #opts;
                    let info = ctx.source_info(#ti, &[#(#names),*]);
                    // Byte ranges cut at record boundaries, read by all threads;
                    // each thread has its own operator state, folded in afterwards.
                    let splits = ctx.plan_splits(&files, #boundary)?;
                    let counter = ctx.source_counter(#source);
                    let states = rt::ops::parallel::for_each_parallel(
                        &splits,
                        ctx.threads,
                        |thread| State::new(ctx, staging, b, thread, #pipeline),
                        |st, _, split| {
                        let st = st.as_mut().map_err(|e| rt::Error::new(e.message().to_string()))?;
                        let mut reader = #reader::open(split, opts.clone(), info.clone())?;
                        let mut rows = 0u64;
                        let mut last = 0u64;
                        while let Some(#rec) = reader.next_record()? {
                            let row = #out_row { #(#fields),* };
                            #per_row
                        }
                        counter.add(reader.bytes_read() - last, rows % 65536);
                        counter.add_skipped(reader.skipped);
                        Ok(())
                    })?;
                    for thread_state in states {
                        st.absorb(ctx, thread_state?)?;
                    }
                })
            }
            ConnectorKind::Datagen => {
                let fields = columns
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| self.is_live(n, i))
                    .map(|(i, &p)| {
                        let c = col_ident(i);
                        let getter = datagen_getter(&node.schema[i].ty, p)?;
                        Ok(quote!(#c: #getter))
                    })
                    .collect::<GenResult<Vec<_>>>()?;
                Ok(quote! {
                    let gen = ctx.datagen(#ti, &[#(#names),*])?;
                    let counter = ctx.source_counter(#source);
                    let ranges = gen.ranges(ctx.threads);
                    let states = rt::ops::parallel::for_each_parallel(
                        &ranges,
                        ctx.threads,
                        |thread| State::new(ctx, staging, b, thread, #pipeline),
                        |st, _, range| {
                            let st = st.as_mut().map_err(|e| rt::Error::new(e.message().to_string()))?;
                            for i in range.clone() {
                                let r = gen.row(i);
                                let row = #out_row { #(#fields),* };
                                #check
                                #emit
                            }
                            Ok(())
                        },
                    )?;
                    counter.add(0, gen.rows());
                    for thread_state in states {
                        st.absorb(ctx, thread_state?)?;
                    }
                })
            }
            other => Err(format!("the {} connector cannot be read", other.name())),
        }
    }

    /// The task of a VALUES list: each row to every consumer.
    pub(super) fn values_task(
        &mut self,
        n: NodeId,
        rows: &[Vec<Expr>],
        emit: TokenStream,
    ) -> GenResult<TokenStream> {
        let out_row = row_ident(n);
        let column = |_: usize| quote!(None::<()>);
        let mut stmts = Vec::new();
        let live = self.live[n.index()].clone();
        for values in rows {
            let fields = values
                .iter()
                .enumerate()
                .filter(|&(i, _)| live[i])
                .map(|(i, v)| {
                    let c = col_ident(i);
                    let e = expr::expr(v, &column, &mut self.statics)?;
                    Ok(quote!(#c: #e))
                })
                .collect::<GenResult<Vec<_>>>()?;
            stmts.push(quote! {
                let row = #out_row { #(#fields),* };
                #emit
            });
        }
        Ok(quote!(#(#stmts)*))
    }
}

/// `rec.<getter>(col)?` reading physical column `col` as type `ty`.
pub(super) fn record_getter(ty: &DataType, col: usize) -> GenResult<TokenStream> {
    Ok(match ty.kind {
        TypeKind::Boolean => quote!(rec.bool(#col)?),
        TypeKind::TinyInt => quote!(rec.i8(#col)?),
        TypeKind::SmallInt => quote!(rec.i16(#col)?),
        TypeKind::Int => quote!(rec.i32(#col)?),
        TypeKind::BigInt => quote!(rec.i64(#col)?),
        TypeKind::Float => quote!(rec.f32(#col)?),
        TypeKind::Double => quote!(rec.f64(#col)?),
        TypeKind::Decimal { .. } => {
            let t = decimal_type(ty.kind);
            quote!(rec.decimal(#col, #t)?)
        }
        TypeKind::Char(_) | TypeKind::Varchar(_) => {
            quote!(rec.string(#col)?)
        }
        TypeKind::Binary(_) | TypeKind::Varbinary(_) => quote!(rec.bytes(#col)?),
        TypeKind::Date => quote!(rec.date(#col)?),
        TypeKind::Time(p) => quote!(rec.time(#col, #p)?),
        TypeKind::Timestamp(p) => quote!(rec.timestamp(#col, #p)?),
        TypeKind::TimestampLtz(p) => quote!(rec.timestamp_ltz(#col, #p)?),
        other => return Err(format!("reading a {other} column is not supported")),
    })
}

/// `r.<getter>(col)` of a datagen row.
pub(super) fn datagen_getter(ty: &DataType, col: usize) -> GenResult<TokenStream> {
    Ok(match ty.kind {
        TypeKind::Boolean => quote!(r.bool(#col)),
        TypeKind::TinyInt => quote!(r.i8(#col)),
        TypeKind::SmallInt => quote!(r.i16(#col)),
        TypeKind::Int => quote!(r.i32(#col)),
        TypeKind::BigInt => quote!(r.i64(#col)),
        TypeKind::Float => quote!(r.f32(#col)),
        TypeKind::Double => quote!(r.f64(#col)),
        TypeKind::Decimal { .. } => {
            let t = decimal_type(ty.kind);
            quote!(r.decimal(#col, #t))
        }
        TypeKind::Char(_) | TypeKind::Varchar(_) => {
            quote!(r.string(#col).map(rt::value::Str::from))
        }
        TypeKind::Binary(_) | TypeKind::Varbinary(_) => quote!(r.bytes(#col)),
        TypeKind::Date => quote!(r.date(#col)),
        TypeKind::Time(_) => quote!(r.time(#col)),
        TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) => quote!(r.timestamp(#col)),
        other => return Err(format!("datagen of a {other} column is not supported")),
    })
}
