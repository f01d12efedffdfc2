//! Built-in scalar function calls (`ExprKind::Call`): each function's code
//! is its registry entry's codegen hook (`functions/*.rs`); this file hands
//! a hook the call ([`BoundCall`]) and the helpers hooks share. The binder
//! already cast the arguments to the signature's types, except where the
//! signature takes them as they are (`MOD`, `NULLIF`, integer counts).
//!
//! What a hook may use of [`Gen`]: `expr`/`exprs` (an argument's value),
//! `strict`/`strict_call` (NULL propagation), `with_pattern` (date patterns),
//! `local`, `cast`, `compare`, `extract`, and `statics`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{unsupported, Gen, GenResult};
use crate::functions::ScalarFunction;
use crate::ir::Expr;
use crate::types::{DataType, TypeKind};

/// A bound call, as a function's codegen hook sees it.
pub(crate) struct BoundCall<'a> {
    pub function: ScalarFunction,
    /// The arguments, already cast to the signature's types.
    pub args: &'a [Expr],
    /// The call's result type.
    pub ty: &'a DataType,
}

impl BoundCall<'_> {
    /// The error for a call code generation does not support: `UPPER(INT)`.
    pub(crate) fn unsupported(&self) -> String {
        let types: Vec<String> = self.args.iter().map(|a| a.ty.kind.to_string()).collect();
        unsupported(format!("{}({})", self.function.name(), types.join(", ")))
    }
}

impl Gen<'_> {
    pub(super) fn call(
        &mut self,
        function: ScalarFunction,
        args: &[Expr],
        ty: &DataType,
    ) -> GenResult {
        function.generate(self, &BoundCall { function, args, ty })
    }

    pub(crate) fn exprs(&mut self, args: &[Expr]) -> Result<Vec<TokenStream>, String> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    /// A NULL-propagating call over all arguments.
    pub(crate) fn strict_call(
        &mut self,
        args: &[Expr],
        body: impl FnOnce(&[Ident]) -> TokenStream,
    ) -> GenResult {
        let vals = self.exprs(args)?;
        Ok(self.strict(vals, body))
    }

    /// `body` over the value of `operand` (bound to `v`) and a compiled
    /// `DatePattern` (the tokens `body` receives): a static for a literal
    /// pattern, compiled per row otherwise. NULL if either is NULL.
    pub(crate) fn with_pattern(
        &mut self,
        operand: &Expr,
        pattern: &Expr,
        body: impl FnOnce(&TokenStream) -> TokenStream,
    ) -> GenResult {
        let value = self.expr(operand)?;
        if let Some(p) = super::literal_string(pattern) {
            let name = self.statics.lazy(
                "DATE_PATTERN",
                quote!(rt::func::temporal::DatePattern),
                quote!(rt::func::temporal::DatePattern::new(#p)),
            );
            let body = body(&quote!(#name));
            return Ok(quote!(match #value { Some(v) => #body, None => None }));
        }
        let p = self.expr(pattern)?;
        let body = body(&quote!(pattern));
        Ok(quote!(match (#value, #p) {
            (Some(v), Some(p)) => {
                let pattern = rt::func::temporal::DatePattern::new(&p);
                #body
            }
            _ => None,
        }))
    }
}

/// The kinds of integer arguments, for [`to_i32`].
pub(crate) fn int_kinds(args: &[Expr]) -> Vec<TypeKind> {
    args.iter().map(|a| a.ty.kind).collect()
}

/// An integer argument as `i32` (a BIGINT count saturates, so a huge length
/// still means "all").
pub(crate) fn to_i32(v: &Ident, kind: TypeKind) -> TokenStream {
    match kind {
        TypeKind::BigInt => quote!(rt::value::saturating_i32(#v)),
        _ => quote!(i32::from(#v)),
    }
}
