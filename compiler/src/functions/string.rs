//! String built-ins: case, trimming, substrings, concatenation, search,
//! padding, encodings and hashes. Each entry's codegen calls its function in
//! `rt::func::string` (or `rt::func::hash`); the regular expressions are in
//! `regex.rs`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::type_rule::{
    as_varchar, is_integer, is_string, no_bigint, require, string, strings_to, CallTypes, Inferred,
};
use super::{not_generated, Builtin, VARIADIC};
use crate::codegen::expr::{int_kinds, to_i32, BoundCall, Gen, GenResult};
use crate::types::{DataType, TypeKind};

pub(super) static UPPER: Builtin = Builtin {
    name: "UPPER",
    arity: 1..=1,
    forms: "'UPPER(<CHARACTER>)'",
    deterministic: true,
    infer: same_as_string_argument,
    codegen: |g, call| string_fn(g, call, quote!(upper)),
};

pub(super) static LOWER: Builtin = Builtin {
    name: "LOWER",
    arity: 1..=1,
    forms: "'LOWER(<CHARACTER>)'",
    deterministic: true,
    infer: same_as_string_argument,
    codegen: |g, call| string_fn(g, call, quote!(lower)),
};

pub(super) static INITCAP: Builtin = Builtin {
    name: "INITCAP",
    arity: 1..=1,
    forms: "'INITCAP(<CHARACTER>)'",
    deterministic: true,
    infer: same_as_string_argument,
    codegen: |g, call| string_fn(g, call, quote!(initcap)),
};

pub(super) static TRIM: Builtin = Builtin {
    name: "TRIM",
    arity: 1..=2,
    forms: "'TRIM([BOTH|LEADING|TRAILING] <ANY> FROM <STRING>)'",
    deterministic: true,
    infer: trimmed,
    codegen: |g, call| trim(g, call, quote!(trim), true, true),
};

pub(super) static LTRIM: Builtin = Builtin {
    name: "LTRIM",
    arity: 1..=2,
    forms: "'LTRIM(<CHARACTER>)'\n'LTRIM(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: trimmed,
    codegen: |g, call| trim(g, call, quote!(ltrim), true, false),
};

pub(super) static RTRIM: Builtin = Builtin {
    name: "RTRIM",
    arity: 1..=2,
    forms: "'RTRIM(<CHARACTER>)'\n'RTRIM(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: trimmed,
    codegen: |g, call| trim(g, call, quote!(rtrim), false, true),
};

pub(super) static BTRIM: Builtin = Builtin {
    name: "BTRIM",
    arity: 1..=2,
    forms: "'BTRIM(<CHARACTER>)'\n'BTRIM(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: trimmed,
    codegen: |g, call| trim(g, call, quote!(trim), true, true),
};

pub(super) static SUBSTRING: Builtin = Builtin {
    name: "SUBSTRING",
    arity: 2..=3,
    forms: "'SUBSTRING(<CHARACTER>, <INTEGER>)'\n'SUBSTRING(<CHARACTER>, <INTEGER>, <INTEGER>)'",
    deterministic: true,
    infer: substring_type,
    codegen: substring,
};

pub(super) static SUBSTR: Builtin = Builtin {
    name: "SUBSTR",
    arity: 2..=3,
    forms: "'SUBSTR(<CHARACTER>, <INTEGER>)'\n'SUBSTR(<CHARACTER>, <INTEGER>, <INTEGER>)'",
    deterministic: true,
    infer: substring_type,
    codegen: substring,
};

pub(super) static LEFT: Builtin = Builtin {
    name: "LEFT",
    arity: 2..=2,
    forms: "'LEFT(<CHARACTER>, <INTEGER>)'",
    deterministic: true,
    infer: substring_type,
    codegen: |g, call| string_and_count(g, call, quote!(left)),
};

pub(super) static RIGHT: Builtin = Builtin {
    name: "RIGHT",
    arity: 2..=2,
    forms: "'RIGHT(<CHARACTER>, <INTEGER>)'",
    deterministic: true,
    infer: substring_type,
    codegen: |g, call| string_and_count(g, call, quote!(right)),
};

pub(super) static CONCAT: Builtin = Builtin {
    name: "CONCAT",
    arity: 1..=VARIADIC,
    forms: "'CONCAT(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(string())),
    codegen: |g, call| g.strict_call(call.args, |v| quote!(Some([#(#v.as_str()),*].concat()))),
};

pub(super) static CONCAT_WS: Builtin = Builtin {
    name: "CONCAT_WS",
    arity: 1..=VARIADIC,
    forms: "'CONCAT_WS(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(string())),
    codegen: |g, call| {
        // NULL arguments are skipped, a NULL separator gives NULL.
        let vals = g.exprs(call.args)?;
        let names: Vec<Ident> = vals.iter().map(|_| g.local()).collect();
        let (sep, parts) = names.split_first().ok_or_else(|| call.unsupported())?;
        Ok(quote!({
            #( let #names = #vals; )*
            rt::func::string::concat_ws(#sep.as_deref(), &[#(#parts.as_deref()),*])
        }))
    },
};

pub(super) static CHAR_LENGTH: Builtin = Builtin {
    name: "CHAR_LENGTH",
    arity: 1..=1,
    forms: "'CHAR_LENGTH(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(TypeKind::Int)),
    codegen: |g, call| string_fn(g, call, quote!(char_length)),
};

pub(super) static CHARACTER_LENGTH: Builtin = Builtin {
    name: "CHARACTER_LENGTH",
    arity: 1..=1,
    forms: "'CHARACTER_LENGTH(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(TypeKind::Int)),
    codegen: |g, call| string_fn(g, call, quote!(char_length)),
};

pub(super) static REPLACE: Builtin = Builtin {
    name: "REPLACE",
    arity: 3..=3,
    forms: "'REPLACE(<CHARACTER>, <CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(string())),
    codegen: |g, call| {
        g.strict_call(call.args, |v| {
            let (s, from, to) = (&v[0], &v[1], &v[2]);
            quote!(Some(rt::func::string::replace(&#s, &#from, &#to)))
        })
    },
};

/// `POSITION(needle IN s)`, bound as `POSITION(needle, s)`.
pub(super) static POSITION: Builtin = Builtin {
    name: "POSITION",
    arity: 2..=2,
    forms: "'POSITION(<STRING> IN <STRING>)'\n'POSITION(<STRING> IN <STRING> FROM <INTEGER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(TypeKind::Int)),
    codegen: |g, call| {
        g.strict_call(call.args, |v| {
            let (needle, s) = (&v[0], &v[1]);
            quote!(Some(rt::func::string::position(&#needle, &#s)))
        })
    },
};

pub(super) static LOCATE: Builtin = Builtin {
    name: "LOCATE",
    arity: 2..=3,
    forms: "'LOCATE(<CHARACTER>, <CHARACTER>)'\n'LOCATE(<CHARACTER>, <CHARACTER>, <INTEGER>)'",
    deterministic: true,
    infer: |c| {
        let args = c.args;
        require(&args[..2], &[is_string])?;
        require(&args[2..], &[is_integer])?;
        no_bigint(c.function, &args[2..])?;
        c.returns(c.typed(TypeKind::Int))
    },
    codegen: |g, call| {
        let kinds = int_kinds(&call.args[2..]);
        g.strict_call(call.args, |v| {
            let (needle, s) = (&v[0], &v[1]);
            let from = match v.get(2) {
                Some(n) => to_i32(n, kinds[0]),
                None => quote!(1),
            };
            quote!(Some(rt::func::string::locate(&#needle, &#s, #from)))
        })
    },
};

/// `INSTR(s, needle)`: POSITION with the arguments the other way round.
pub(super) static INSTR: Builtin = Builtin {
    name: "INSTR",
    arity: 2..=2,
    forms: "'INSTR(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(TypeKind::Int)),
    codegen: |g, call| {
        g.strict_call(call.args, |v| {
            let (s, needle) = (&v[0], &v[1]);
            quote!(Some(rt::func::string::position(&#needle, &#s)))
        })
    },
};

pub(super) static LPAD: Builtin = Builtin {
    name: "LPAD",
    arity: 3..=3,
    forms: "'LPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)'",
    deterministic: true,
    infer: padded,
    codegen: |g, call| pad(g, call, quote!(lpad)),
};

pub(super) static RPAD: Builtin = Builtin {
    name: "RPAD",
    arity: 3..=3,
    forms: "'RPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)'",
    deterministic: true,
    infer: padded,
    codegen: |g, call| pad(g, call, quote!(rpad)),
};

pub(super) static REVERSE: Builtin = Builtin {
    name: "REVERSE",
    arity: 1..=1,
    forms: "'REVERSE(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, DataType::string()),
    codegen: |g, call| string_fn(g, call, quote!(reverse)),
};

pub(super) static REPEAT: Builtin = Builtin {
    name: "REPEAT",
    arity: 2..=2,
    forms: "'REPEAT(<CHARACTER>, <INTEGER>)'",
    deterministic: true,
    infer: |c| {
        require(c.args, &[is_string, is_integer])?;
        no_bigint(c.function, &c.args[1..])?;
        c.returns(c.typed(string()))
    },
    codegen: |g, call| {
        let kinds = int_kinds(&call.args[1..]);
        g.strict_call(call.args, |v| {
            let (s, n) = (&v[0], to_i32(&v[1], kinds[0]));
            // Flink: a negative count repeats zero times.
            quote!(Some(#s.repeat(#n.max(0) as usize)))
        })
    },
};

pub(super) static SPLIT_INDEX: Builtin = Builtin {
    name: "SPLIT_INDEX",
    arity: 3..=3,
    forms: "'SPLIT_INDEX(<CHARACTER>, <CHARACTER>, <INTEGER>)'",
    deterministic: true,
    infer: |c| {
        require(c.args, &[is_string, is_string, is_integer])?;
        no_bigint(c.function, &c.args[2..])?;
        c.returns(DataType::string())
    },
    codegen: |g, call| {
        let kinds = int_kinds(&call.args[2..]);
        g.strict_call(call.args, |v| {
            let (s, sep, n) = (&v[0], &v[1], to_i32(&v[2], kinds[0]));
            quote!(rt::func::string::split_index(&#s, &#sep, #n))
        })
    },
};

pub(super) static MD5: Builtin = Builtin {
    name: "MD5",
    arity: 1..=1,
    forms: "'MD5(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(TypeKind::Char(32))),
    codegen: |g, call| g.strict_call(call.args, |v| quote!(Some(rt::func::hash::md5(&#(#v)*)))),
};

pub(super) static SHA256: Builtin = Builtin {
    name: "SHA256",
    arity: 1..=1,
    forms: "'SHA256(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(TypeKind::Char(64))),
    codegen: |g, call| g.strict_call(call.args, |v| quote!(Some(rt::func::hash::sha256(&#(#v)*)))),
};

pub(super) static ASCII: Builtin = Builtin {
    name: "ASCII",
    arity: 1..=1,
    forms: "'ASCII(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(TypeKind::Int)),
    codegen: |g, call| string_fn(g, call, quote!(ascii)),
};

pub(super) static CHR: Builtin = Builtin {
    name: "CHR",
    arity: 1..=1,
    forms: "'CHR(<INTEGER>)'",
    deterministic: true,
    infer: |c| {
        require(c.args, &[is_integer])?;
        c.returns(DataType::string())
    },
    codegen: |g, call| {
        let kinds = int_kinds(call.args);
        g.strict_call(call.args, |v| {
            let n = &v[0];
            let n = match kinds[0] {
                TypeKind::BigInt => quote!(#n),
                _ => quote!(i64::from(#n)),
            };
            quote!(Some(rt::func::string::chr(#n)))
        })
    },
};

pub(super) static TO_BASE64: Builtin = Builtin {
    name: "TO_BASE64",
    arity: 1..=1,
    forms: "'TO_BASE64(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(string())),
    codegen: |g, call| string_fn(g, call, quote!(to_base64)),
};

pub(super) static FROM_BASE64: Builtin = Builtin {
    name: "FROM_BASE64",
    arity: 1..=1,
    forms: "'FROM_BASE64(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, c.typed(string())),
    codegen: |g, call| {
        g.strict_call(
            call.args,
            |v| quote!(Some(rt::func::string::from_base64(&#(#v)*).map_err(rt::Error::new)?)),
        )
    },
};

/// No UUIDs in the runtime yet.
pub(super) static UUID: Builtin = Builtin {
    name: "UUID",
    arity: 0..=0,
    forms: "'UUID()'",
    deterministic: false,
    infer: |c| c.returns(DataType::not_null(TypeKind::Char(36))),
    codegen: not_generated,
};

pub(super) static IS_DIGIT: Builtin = Builtin {
    name: "IS_DIGIT",
    arity: 1..=1,
    forms: "'IS_DIGIT(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, DataType::not_null(TypeKind::Boolean)),
    codegen: |g, call| is_class(g, call, quote!(is_digit)),
};

pub(super) static IS_ALPHA: Builtin = Builtin {
    name: "IS_ALPHA",
    arity: 1..=1,
    forms: "'IS_ALPHA(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, DataType::not_null(TypeKind::Boolean)),
    codegen: |g, call| is_class(g, call, quote!(is_alpha)),
};

pub(super) static IS_DECIMAL: Builtin = Builtin {
    name: "IS_DECIMAL",
    arity: 1..=1,
    forms: "'IS_DECIMAL(<CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, DataType::not_null(TypeKind::Boolean)),
    codegen: |g, call| is_class(g, call, quote!(is_decimal)),
};

/// UPPER, LOWER, INITCAP: the argument's own type.
fn same_as_string_argument(c: &CallTypes) -> Inferred {
    strings_to(c, c.args[0])
}

/// TRIM and its kin: a CHAR becomes a VARCHAR of the same length.
fn trimmed(c: &CallTypes) -> Inferred {
    strings_to(c, c.typed(as_varchar(c.args[0].kind)))
}

/// SUBSTRING, SUBSTR, LEFT, RIGHT: a string and INT counts.
fn substring_type(c: &CallTypes) -> Inferred {
    let args = c.args;
    require(&args[..1], &[is_string])?;
    require(&args[1..], &[is_integer])?;
    no_bigint(c.function, &args[1..])?;
    // Flink: always nullable (a negative length gives NULL).
    c.returns(DataType::nullable(as_varchar(args[0].kind)))
}

/// LPAD, RPAD: string, INT length, string.
fn padded(c: &CallTypes) -> Inferred {
    require(c.args, &[is_string, is_integer, is_string])?;
    no_bigint(c.function, &c.args[1..2])?;
    c.returns(c.typed(string()))
}

/// `rt::func::string::<name>(&s)` of the one string argument.
fn string_fn(g: &mut Gen, call: &BoundCall, name: TokenStream) -> GenResult {
    g.strict_call(
        call.args,
        |v| quote!(Some(rt::func::string::#name(&#(#v)*))),
    )
}

/// TRIM / BTRIM (`trim`), LTRIM, RTRIM; with a second argument, the
/// characters to remove (`trim_chars`).
fn trim(
    g: &mut Gen,
    call: &BoundCall,
    one: TokenStream,
    leading: bool,
    trailing: bool,
) -> GenResult {
    g.strict_call(call.args, |v| match v {
        [s] => quote!(Some(rt::func::string::#one(&#s).to_string())),
        [s, chars, ..] => quote!(Some(
            rt::func::string::trim_chars(&#s, &#chars, #leading, #trailing).to_string()
        )),
        [] => quote!(None),
    })
}

/// SUBSTRING / SUBSTR with an optional length.
fn substring(g: &mut Gen, call: &BoundCall) -> GenResult {
    let kinds = int_kinds(&call.args[1..]);
    g.strict_call(call.args, |v| {
        let pos = to_i32(&v[1], kinds[0]);
        let len = match v.get(2) {
            Some(l) => {
                let l = to_i32(l, kinds[1]);
                quote!(Some(#l))
            }
            None => quote!(None),
        };
        let s = &v[0];
        quote!(rt::func::string::substring(&#s, #pos, #len).map(str::to_string))
    })
}

/// LEFT / RIGHT: `rt::func::string::<name>(&s, n)`.
fn string_and_count(g: &mut Gen, call: &BoundCall, name: TokenStream) -> GenResult {
    let kinds = int_kinds(&call.args[1..]);
    g.strict_call(call.args, |v| {
        let (s, n) = (&v[0], to_i32(&v[1], kinds[0]));
        quote!(Some(rt::func::string::#name(&#s, #n).to_string()))
    })
}

/// LPAD / RPAD: `rt::func::string::<name>(&s, n, &pad)`.
fn pad(g: &mut Gen, call: &BoundCall, name: TokenStream) -> GenResult {
    let kinds = int_kinds(&call.args[1..2]);
    g.strict_call(call.args, |v| {
        let (s, n, pad) = (&v[0], to_i32(&v[1], kinds[0]), &v[2]);
        // Fails where the result would split a surrogate pair.
        quote!(rt::func::string::#name(&#s, #n, &#pad).map_err(rt::Error::new)?)
    })
}

/// IS_DIGIT, IS_ALPHA, IS_DECIMAL: NOT NULL, a NULL argument is FALSE.
fn is_class(g: &mut Gen, call: &BoundCall, name: TokenStream) -> GenResult {
    let a = g.expr(&call.args[0])?;
    Ok(quote!(Some(#a.is_some_and(|s| rt::func::string::#name(&s)))))
}
