//! Regular-expression built-ins: REGEXP, REGEXP_REPLACE, REGEXP_EXTRACT.
//! Their codegen calls `rt::func::regex::Regex` (the runtime's optional
//! `regex` feature, which the generated crate then enables); a literal
//! pattern is compiled once, in a static.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::type_rule::{is_integer, is_string, require, string, strings_to};
use super::Builtin;
use crate::codegen::expr::{literal_string, unsupported, BoundCall, Gen, GenResult};
use crate::types::{DataType, TypeKind};

pub(super) static REGEXP_REPLACE: Builtin = Builtin {
    name: "REGEXP_REPLACE",
    arity: 3..=3,
    forms: "'REGEXP_REPLACE(<CHARACTER>, <CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(string())),
    codegen: |g, call| {
        regex_call(g, call, |re, s, rest| {
            let r = &rest[0];
            quote!(Some(#re.replace_all(&#s, &#r)?))
        })
    },
};

pub(super) static REGEXP_EXTRACT: Builtin = Builtin {
    name: "REGEXP_EXTRACT",
    arity: 2..=3,
    forms: "'REGEXP_EXTRACT(<CHARACTER>, <CHARACTER>)'\n'REGEXP_EXTRACT(<CHARACTER>, <CHARACTER>, <INTEGER>)'",
    deterministic: true,
    infer: |c| {
        require(&c.args[..2], &[is_string])?;
        require(&c.args[2..], &[is_integer])?;
        c.returns(DataType::string())
    },
    codegen: |g, call| {
        regex_call(g, call, |re, s, rest| match rest.first() {
            Some(i) => quote!(#re.extract(&#s, usize::try_from(#i).unwrap_or(usize::MAX))?),
            None => quote!(#re.extract(&#s, 0)?),
        })
    },
};

pub(super) static REGEXP: Builtin = Builtin {
    name: "REGEXP",
    arity: 2..=2,
    forms: "'REGEXP(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(TypeKind::Boolean)),
    codegen: |g, call| regex_call(g, call, |re, s, _| quote!(Some(#re.is_match(&#s)))),
};

/// A regular-expression call: `apply` receives the compiled pattern (tokens
/// of a `&Regex`), the string and the values of the arguments after the
/// pattern. A literal pattern is compiled once (a static); NULL in any
/// argument gives NULL, as in Flink.
fn regex_call(
    g: &mut Gen,
    call: &BoundCall,
    apply: fn(&TokenStream, &Ident, &[Ident]) -> TokenStream,
) -> GenResult {
    let args = call.args;
    g.statics.need_feature("regex");
    let pattern = args
        .get(1)
        .ok_or_else(|| unsupported(format!("{} without a pattern", call.function.name())))?;
    let compiled = match literal_string(pattern) {
        Some(p) => {
            let name = g.statics.lazy(
                "REGEX",
                quote!(Result<rt::func::regex::Regex, String>),
                quote!(rt::func::regex::Regex::new(#p)),
            );
            Some(quote!(#name.as_ref().map_err(|e| rt::Error::new(e.clone()))?))
        }
        None => None,
    };
    let mut values = vec![g.expr(&args[0])?];
    if compiled.is_none() {
        values.push(g.expr(pattern)?);
    }
    for a in &args[2..] {
        values.push(g.expr(a)?);
    }
    let per_row = compiled.is_none();
    Ok(g.strict(values, |v| {
        let s = &v[0];
        let (re, rest) = if per_row {
            let p = &v[1];
            (
                quote!((&rt::func::regex::Regex::new(&#p).map_err(rt::Error::new)?)),
                &v[2..],
            )
        } else {
            (compiled.clone().unwrap_or_default(), &v[1..])
        };
        apply(&re, s, rest)
    }))
}
