//! Printing the generated program from its tokens' text, in rustfmt's
//! style, without building a syntax tree.
//!
//! The generator's tokens (`TokenStream::to_string`: tokens one space
//! apart, joint punctuation together) are lexed into a tree of delimited
//! groups. Each sequence of a group is labelled once (`Labels`): which `<`
//! opens generics, which `|` opens a closure's parameters, which `&`, `*`,
//! `-` are prefix operators, which `{` opens a block, match arms, a struct
//! definition or a struct literal. From the labels come the spaces between
//! tokens and where lines break:
//! - items, statements, match arms and struct fields each start a line;
//!   block, item and arm braces always break (`{}` when empty);
//! - a parenthesised, bracketed or struct-literal list stays on one line
//!   when it fits in [`WIDTH`] columns and holds no block, else puts each
//!   element on a line of its own with a trailing comma (a single element
//!   that ends in a block hugs its delimiters: `f({` ... `})`);
//! - `#[doc = "..."]` prints as `///...`, attributes on lines of their own.
//!
//! It replaces parsing the text with `syn` and printing it with
//! `prettyplease`, which took 37% of a compile's CPU for the TPC-H set. The
//! printed text holds exactly the input's tokens (`tokens_differ`, checked on
//! every debug-build compile); only spaces and line breaks differ, plus
//! trailing commas in broken lists.

use std::cell::OnceCell;

/// The column lines are kept within, where the tokens allow.
pub(super) const WIDTH: usize = 100;
const INDENT: usize = 4;
/// Groups up to this wide never break.
const SHORT: usize = 16;
/// A width that never fits: a group that must break.
const NEVER: usize = usize::MAX / 4;

/// Formats a run of whole items from their tokens' text.
pub(super) fn format(text: &str) -> Result<String, String> {
    let nodes = parse(text)?;
    let mut p = Printer {
        out: String::with_capacity(text.len() + text.len() / 2),
        indent: 0,
        col: 0,
    };
    p.units(&nodes, Mode::Items);
    if !p.out.ends_with('\n') && !p.out.is_empty() {
        p.out.push('\n');
    }
    // Debug builds (the tests) check the contract on every program.
    if cfg!(debug_assertions) {
        if let Some(diff) = tokens_differ(text, &p.out)? {
            return Err(format!(
                "the printed program's tokens differ from the generated ones {diff}"
            ));
        }
    }
    Ok(p.out)
}

/// Where two texts' tokens first differ (docs as `///` or `#[doc]`, a
/// trailing comma before a closing delimiter or none), `None` if nowhere:
/// `format`'s contract.
pub(super) fn tokens_differ(a: &str, b: &str) -> Result<Option<String>, String> {
    fn flatten(nodes: &[Node], out: &mut Vec<String>) {
        for (i, node) in nodes.iter().enumerate() {
            match node {
                Node::Tok(t) => {
                    let trailing_comma = t.text == ","
                        && i + 1 == nodes.len()
                        && !matches!(out.last().map(String::as_str), Some("(" | "[" | "{"));
                    if matches!(t.text, ">>" | "&&" | "||") {
                        // `> >` closing generics prints as `>>`, a prefix
                        // `& &` as `&&`: one parse either way.
                        out.extend(t.text.chars().map(String::from));
                    } else if !trailing_comma {
                        out.push(t.text.to_string());
                    }
                }
                Node::Doc(d) => out.push(format!("doc{}:{}", d.inner, d.value)),
                Node::Group(g) => {
                    out.push(g.open().to_string());
                    flatten(&g.nodes, out);
                    out.push(g.close().to_string());
                }
            }
        }
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    flatten(&parse(a)?, &mut x);
    flatten(&parse(b)?, &mut y);
    let at = x.iter().zip(&y).position(|(p, q)| p != q);
    let at = match at {
        Some(at) => at,
        None if x.len() == y.len() => return Ok(None),
        None => x.len().min(y.len()),
    };
    let around = |v: &[String]| v[at.saturating_sub(12)..(at + 6).min(v.len())].join(" ");
    Ok(Some(format!(
        "at token {at}: `{}` became `{}`",
        around(&x),
        around(&y)
    )))
}

// ---------------------------------------------------------------- lexing

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Ident,
    Lifetime,
    Literal,
    Punct,
}

#[derive(Clone, Copy, Debug)]
struct Tok<'a> {
    kind: Kind,
    text: &'a str,
}

impl Tok<'_> {
    fn is(&self, text: &str) -> bool {
        self.text == text
    }

    fn is_ident(&self) -> bool {
        self.kind == Kind::Ident
    }

    fn is_keyword(&self) -> bool {
        self.kind == Kind::Ident && KEYWORDS.contains(&self.text)
    }
}

/// Keywords a `(` or `[` after which is not a call or an index.
const KEYWORDS: &[&str] = &[
    "if", "match", "while", "for", "in", "return", "let", "mut", "move", "as", "else", "loop",
    "unsafe", "break", "continue", "impl", "dyn", "where", "ref", "static", "const", "struct",
    "enum", "type", "use", "mod", "trait", "async", "await",
];

/// Keywords after which an operator is a prefix one and `|` opens a closure.
const OPERAND_BEFORE: &[&str] = &[
    "return", "in", "if", "match", "while", "let", "else", "break", "mut", "move", "for",
];

#[derive(Debug)]
struct Doc {
    inner: bool,
    /// The string's value (what follows `///`).
    value: String,
}

#[derive(Debug)]
enum Node<'a> {
    Tok(Tok<'a>),
    Doc(Doc),
    Group(Group<'a>),
}

#[derive(Debug)]
struct Group<'a> {
    delim: u8,
    nodes: Vec<Node<'a>>,
    labels: OnceCell<Vec<Label>>,
    /// Width on one line (without what the enclosing sequence's labels
    /// make of it), [`NEVER`] when something in it must break.
    width: OnceCell<usize>,
}

impl Group<'_> {
    fn open(&self) -> &'static str {
        match self.delim {
            b'(' => "(",
            b'[' => "[",
            _ => "{",
        }
    }

    fn close(&self) -> &'static str {
        match self.delim {
            b'(' => ")",
            b'[' => "]",
            _ => "}",
        }
    }
}

const OPERATORS: &[&str] = &[
    "<<=", ">>=", "...", "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "..",
];

fn is_punct(c: u8) -> bool {
    b"+-*/%^!&|=<>@.,;:#$?~".contains(&c)
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

fn parse(text: &str) -> Result<Vec<Node<'_>>, String> {
    let toks = lex(text)?;
    let mut stack: Vec<(u8, Vec<Node>)> = vec![(0, Vec::new())];
    for t in toks {
        let t = match t {
            Lexeme::Tok(t) => t,
            Lexeme::Doc { inner, value } => {
                let doc = Node::Doc(Doc {
                    inner,
                    value: value.to_string(),
                });
                stack.last_mut().ok_or("unbalanced delimiters")?.1.push(doc);
                continue;
            }
        };
        match t.text {
            "(" | "[" | "{" => stack.push((t.text.as_bytes()[0], Vec::new())),
            ")" | "]" | "}" => {
                let want = match t.text {
                    ")" => b'(',
                    "]" => b'[',
                    _ => b'{',
                };
                let (delim, nodes) = stack
                    .pop()
                    .filter(|(d, _)| *d == want)
                    .ok_or_else(|| format!("unbalanced `{}` in the generated program", t.text))?;
                let parent = &mut stack.last_mut().ok_or("unbalanced delimiters")?.1;
                push_group(
                    parent,
                    Group {
                        delim,
                        nodes,
                        labels: OnceCell::new(),
                        width: OnceCell::new(),
                    },
                );
            }
            _ => stack
                .last_mut()
                .ok_or("unbalanced delimiters")?
                .1
                .push(Node::Tok(t)),
        }
    }
    match stack.pop() {
        Some((0, nodes)) if stack.is_empty() => Ok(nodes),
        _ => Err("an unclosed delimiter in the generated program".to_string()),
    }
}

/// Appends a group to `parent`, folding `# [doc = "..."]` (and `#!`) into
/// a [`Doc`].
fn push_group<'a>(parent: &mut Vec<Node<'a>>, g: Group<'a>) {
    if g.delim == b'[' {
        if let [Node::Tok(d), Node::Tok(eq), Node::Tok(lit)] = g.nodes.as_slice() {
            if d.is("doc") && eq.is("=") && lit.kind == Kind::Literal {
                let inner = matches!(
                    parent.as_slice(),
                    [.., Node::Tok(h), Node::Tok(b)] if h.is("#") && b.is("!")
                );
                let hash = matches!(parent.last(), Some(Node::Tok(t)) if t.is("#"));
                if let (Some(value), true) = (string_value(lit.text), hash || inner) {
                    if !value.contains('\n') && !value.contains('\r') {
                        parent.truncate(parent.len() - if inner { 2 } else { 1 });
                        parent.push(Node::Doc(Doc { inner, value }));
                        return;
                    }
                }
            }
        }
    }
    parent.push(Node::Group(g));
}

/// The value of a (raw) string literal.
fn string_value(lit: &str) -> Option<String> {
    if let Some(raw) = lit.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let body = raw.get(hashes + 1..raw.len().checked_sub(hashes + 1)?)?;
        return Some(body.to_string());
    }
    let body = lit.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            '0' => out.push('\0'),
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            '\'' => out.push('\''),
            'u' => {
                let rest = chars.as_str();
                let end = rest.find('}')?;
                let code = u32::from_str_radix(rest.get(1..end)?, 16).ok()?;
                out.push(char::from_u32(code)?);
                chars = rest[end + 1..].chars();
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A token, or a printed doc line (`///value`, `//!value`).
enum Lexeme<'a> {
    Tok(Tok<'a>),
    Doc { inner: bool, value: &'a str },
}

fn lex(text: &str) -> Result<Vec<Lexeme<'_>>, String> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(text.len() / 4);
    let mut i = 0;
    let tok = |kind, s: usize, e: usize| {
        Lexeme::Tok(Tok {
            kind,
            text: &text[s..e],
        })
    };
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            // `///` and `//!` docs (the printed form); other comments are dropped.
            let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
            let line = &text[i..end];
            if let Some(value) = line.strip_prefix("///").filter(|v| !v.starts_with('/')) {
                out.push(Lexeme::Doc {
                    inner: false,
                    value,
                });
            } else if let Some(value) = line.strip_prefix("//!") {
                out.push(Lexeme::Doc { inner: true, value });
            }
            i = end;
        } else if b"()[]{}".contains(&c) {
            i += 1;
            out.push(tok(Kind::Punct, start, i));
        } else if c == b'"' {
            i = end_of_string(b, i + 1)?;
            out.push(tok(Kind::Literal, start, i));
        } else if c == b'\'' {
            // A char literal, or a lifetime.
            if let Some(end) = end_of_char(text, i) {
                i = end;
                out.push(tok(Kind::Literal, start, i));
            } else {
                i += 1;
                while i < b.len() && is_ident_char(b[i]) {
                    i += 1;
                }
                out.push(tok(Kind::Lifetime, start, i));
            }
        } else if c.is_ascii_digit() {
            // `x.0.1`: a tuple index takes no fraction.
            let index = matches!(out.last(), Some(Lexeme::Tok(t)) if t.text == ".");
            i += 1;
            while i < b.len() {
                let d = b[i];
                let exponent_sign = (d == b'-' || d == b'+')
                    && matches!(b[i - 1], b'e' | b'E')
                    && !text[start..i].starts_with("0x");
                if is_ident_char(d)
                    || exponent_sign
                    || (d == b'.' && !index && b.get(i + 1).is_some_and(u8::is_ascii_digit))
                {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(tok(Kind::Literal, start, i));
        } else if is_ident_start(c) {
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            let word = &text[start..i];
            let next = b.get(i).copied();
            if word == "r" && next == Some(b'#') && b.get(i + 1).is_some_and(|&c| is_ident_start(c))
            {
                // A raw identifier.
                i += 1;
                while i < b.len() && is_ident_char(b[i]) {
                    i += 1;
                }
                out.push(tok(Kind::Ident, start, i));
            } else if matches!(word, "r" | "br" | "cr") && matches!(next, Some(b'"' | b'#')) {
                let hashes = text[i..].len() - text[i..].trim_start_matches('#').len();
                let close = format!("\"{}", "#".repeat(hashes));
                let body = i + hashes + 1;
                let end = text
                    .get(body..)
                    .and_then(|rest| rest.find(&close))
                    .ok_or("an unclosed raw string")?;
                i = body + end + close.len();
                out.push(tok(Kind::Literal, start, i));
            } else if matches!(word, "b" | "c") && next == Some(b'"') {
                i = end_of_string(b, i + 1)?;
                out.push(tok(Kind::Literal, start, i));
            } else if word == "b" && next == Some(b'\'') {
                i = end_of_char(text, i).ok_or("an unclosed byte literal")?;
                out.push(tok(Kind::Literal, start, i));
            } else {
                out.push(tok(Kind::Ident, start, i));
            }
        } else if is_punct(c) {
            // A run of joint punctuation, cut into operators, longest first.
            let mut end = i;
            while end < b.len() && is_punct(b[end]) {
                end += 1;
            }
            while i < end {
                let run = &text[i..end];
                let len = OPERATORS
                    .iter()
                    .find(|op| run.starts_with(**op))
                    .map_or(1, |op| op.len());
                out.push(tok(Kind::Punct, i, i + len));
                i += len;
            }
        } else {
            return Err(format!(
                "unexpected `{}` in the generated program",
                text[i..].chars().next().unwrap_or('?')
            ));
        }
    }
    Ok(out)
}

/// The end of the char literal whose `'` is at `i`, or `None`: a lifetime.
fn end_of_char(text: &str, i: usize) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(i + 1) == Some(&b'\\') {
        return text.get(i + 3..)?.find('\'').map(|k| i + 3 + k + 1);
    }
    let len = text.get(i + 1..)?.chars().next()?.len_utf8();
    (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 2 + len)
}

fn end_of_string(b: &[u8], mut i: usize) -> Result<usize, String> {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Ok(i + 1),
            _ => i += 1,
        }
    }
    Err("an unclosed string literal in the generated program".to_string())
}

// ---------------------------------------------------------------- labels

/// What a token or group is in its sequence, for spacing and line breaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    Plain,
    /// `<` opening generics, `>`/`>>` closing them: no spaces around.
    GenOpen,
    GenClose,
    /// `|` before and after a closure's parameters; `||`, none.
    ClosureOpen,
    ClosureClose,
    ClosureEmpty,
    /// A prefix `&`, `*`, `-`, `!`, `&&`.
    Prefix,
    /// The `!` of a macro call.
    Bang,
    /// An infix operator, `=`, `=>`, `->`: spaces around.
    Infix,
    /// A comma between the sequence's elements.
    Comma,
    Brace(Brace),
}

/// What a `{` opens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Brace {
    Block,
    /// An `impl`, `trait` or `mod` body.
    Items,
    Arms,
    /// A struct's or enum's fields.
    Fields,
    /// A struct literal or pattern: a list that fits on a line or breaks.
    Literal,
    /// `use a::{b, c}`.
    List,
}

impl Brace {
    /// Whether such a group always breaks (when not empty).
    fn breaks(self) -> bool {
        matches!(
            self,
            Brace::Block | Brace::Items | Brace::Arms | Brace::Fields
        )
    }
}

fn labels<'g>(g: &'g Group) -> &'g [Label] {
    g.labels.get_or_init(|| label(&g.nodes))
}

fn label(nodes: &[Node]) -> Vec<Label> {
    // A `<` taken for generics that never closes was a comparison.
    label_with(nodes, true).unwrap_or_else(|| label_with(nodes, false).unwrap_or_default())
}

fn tok<'n, 'a>(node: Option<&'n Node<'a>>) -> Option<&'n Tok<'a>> {
    match node {
        Some(Node::Tok(t)) => Some(t),
        _ => None,
    }
}

/// Whether what came before (`prev`, labelled `label`) ends an operand, so
/// that `&`, `*`, `-`, `|` after it are infix.
fn ends_operand(prev: Option<&Node>, label: Option<Label>) -> bool {
    match prev {
        None | Some(Node::Doc(_)) => false,
        Some(Node::Group(_)) => true,
        Some(Node::Tok(t)) => match t.kind {
            Kind::Ident => !OPERAND_BEFORE.contains(&t.text),
            Kind::Literal | Kind::Lifetime => true,
            Kind::Punct => t.is("?") || label == Some(Label::GenClose),
        },
    }
}

/// Whether a `<` after `prev` (and `prev2` before it) opens generics.
fn opens_generics(prev: Option<&Node>, prev2: Option<&Node>) -> bool {
    let Some(p) = tok(prev) else { return false };
    if p.is("::") || p.is("impl") {
        return true;
    }
    if p.kind != Kind::Ident || p.is_keyword() {
        return false;
    }
    // A type's name (`Vec`, `TableDecl`; not `MAX` or `R0`, which take none
    // here), or the name of a generic item being defined.
    let typeish = p.text.starts_with(|c: char| c.is_ascii_uppercase())
        && p.text.contains(|c: char| c.is_ascii_lowercase());
    typeish
        || tok(prev2).is_some_and(|t| matches!(t.text, "fn" | "struct" | "enum" | "type" | "trait"))
}

fn label_with(nodes: &[Node], generics: bool) -> Option<Vec<Label>> {
    let mut labels: Vec<Label> = Vec::with_capacity(nodes.len());
    let mut depth = 0usize;
    let mut params = false;
    // What the next braces at this level open, innermost last: `match
    // match x { .. } { .. }`.
    let mut pending: Vec<Brace> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| &nodes[j]);
        let prev2 = i.checked_sub(2).map(|j| &nodes[j]);
        let next = nodes.get(i + 1);
        let operand = ends_operand(prev, labels.last().copied());
        let next_is_brace = matches!(next, Some(Node::Group(g)) if g.delim == b'{');
        let label = match node {
            Node::Doc(_) => Label::Plain,
            // Braces around statements are a block wherever they stand
            // (`match { let v = ..; v } {`, `f(x, { let _ = y; z })`).
            Node::Group(g) if g.delim == b'{' && holds_statements(g) => Label::Brace(Brace::Block),
            Node::Group(g) if g.delim == b'{' => {
                let kind = pending.pop().unwrap_or(match prev {
                    None => Brace::Block,
                    Some(Node::Tok(p)) if p.is("::") => Brace::List,
                    Some(Node::Tok(p)) if p.is_ident() && !p.is_keyword() => Brace::Literal,
                    Some(Node::Tok(_)) if labels.last() == Some(&Label::GenClose) => Brace::Literal,
                    _ => Brace::Block,
                });
                Label::Brace(kind)
            }
            Node::Group(_) => Label::Plain,
            Node::Tok(t) if t.kind == Kind::Punct => match t.text {
                "|" if params => {
                    params = false;
                    if next_is_brace {
                        pending.push(Brace::Block);
                    }
                    Label::ClosureClose
                }
                "|" if !operand => {
                    params = true;
                    Label::ClosureOpen
                }
                "||" if !operand => {
                    if next_is_brace {
                        pending.push(Brace::Block);
                    }
                    Label::ClosureEmpty
                }
                "<" if generics && (depth > 0 || !operand || opens_generics(prev, prev2)) => {
                    depth += 1;
                    Label::GenOpen
                }
                ">" if depth > 0 => {
                    depth -= 1;
                    Label::GenClose
                }
                ">>" if depth > 0 => {
                    depth = depth.saturating_sub(2);
                    Label::GenClose
                }
                "!" if tok(prev).is_some_and(|p| p.is_ident() && !p.is_keyword())
                    && matches!(next, Some(Node::Group(_))) =>
                {
                    Label::Bang
                }
                "&" | "*" | "-" | "&&" | "!" if !operand => Label::Prefix,
                "!" => Label::Prefix,
                "," if depth == 0 && !params => Label::Comma,
                "->" => {
                    // A closure's return type: its body is a block.
                    if params_closed_before(&labels) {
                        pending.push(Brace::Block);
                    }
                    Label::Infix
                }
                "=>" => {
                    if next_is_brace {
                        pending.push(Brace::Block);
                    }
                    Label::Infix
                }
                ";" => {
                    pending.clear();
                    Label::Plain
                }
                "," | "." | "::" | "?" | ":" | "#" | ".." | "..=" | "$" => Label::Plain,
                _ => Label::Infix,
            },
            Node::Tok(t) => {
                match t.text {
                    // These open a block when one follows at once (not
                    // `else if`, `unsafe fn`).
                    "loop" | "unsafe" | "else" if next_is_brace => pending.push(Brace::Block),
                    "if" | "while" | "fn" => pending.push(Brace::Block),
                    "for" if pending.is_empty() => pending.push(Brace::Block),
                    "match" => pending.push(Brace::Arms),
                    "impl" | "trait" | "mod" => pending.push(Brace::Items),
                    "struct" | "enum" | "union" => pending.push(Brace::Fields),
                    "use" => pending.push(Brace::List),
                    _ => {}
                }
                Label::Plain
            }
        };
        labels.push(label);
    }
    (depth == 0 || !generics).then_some(labels)
}

/// Whether a group holds a `;` of its own.
fn holds_statements(g: &Group) -> bool {
    g.nodes
        .iter()
        .any(|n| tok(Some(n)).is_some_and(|t| t.is(";")))
}

/// Whether the last closure-related label is a closing `|` (or `||`), with
/// only a return type's tokens since: `|x| -> T {`.
fn params_closed_before(labels: &[Label]) -> bool {
    matches!(
        labels.last(),
        Some(Label::ClosureClose | Label::ClosureEmpty)
    )
}

/// Whether a space goes between `nodes[i - 1]` and `nodes[i]`.
fn space_before(nodes: &[Node], labels: &[Label], i: usize) -> bool {
    let (p, pl) = (&nodes[i - 1], labels[i - 1]);
    let (c, cl) = (&nodes[i], labels[i]);
    if matches!(
        pl,
        Label::Prefix | Label::Bang | Label::GenOpen | Label::ClosureOpen
    ) {
        return false;
    }
    if let Node::Tok(pt) = p {
        if matches!(pt.text, "::" | "." | "#" | ".." | "..=" | "$") {
            return false;
        }
    }
    match c {
        Node::Tok(ct) => {
            if matches!(
                cl,
                Label::GenOpen | Label::GenClose | Label::ClosureClose | Label::Bang
            ) {
                return false;
            }
            match ct.text {
                "," | ";" | "." | "?" | ":" => false,
                "::" => {
                    matches!(pl, Label::Infix | Label::Comma)
                        || tok(Some(p)).is_some_and(Tok::is_keyword)
                }
                ".." | "..=" => matches!(pl, Label::Infix | Label::Comma),
                _ => true,
            }
        }
        Node::Group(g) if g.delim != b'{' => match p {
            Node::Tok(pt) => match pt.kind {
                Kind::Ident => pt.is_keyword(),
                Kind::Punct => pl != Label::GenClose,
                _ => false,
            },
            Node::Group(_) => false,
            Node::Doc(_) => false,
        },
        _ => true,
    }
}

// ---------------------------------------------------------------- printing

/// How a sequence is cut into lines.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Items,
    Block,
    Arms,
    /// Comma-separated elements, each followed by a comma.
    Fields,
}

fn mode_of(brace: Brace) -> Mode {
    match brace {
        Brace::Block => Mode::Block,
        Brace::Items => Mode::Items,
        Brace::Arms => Mode::Arms,
        Brace::Fields | Brace::Literal | Brace::List => Mode::Fields,
    }
}

fn text_width(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// The width of a group on one line, [`NEVER`] if it must break.
fn flat_width(g: &Group) -> usize {
    *g.width.get_or_init(|| {
        let labels = labels(g);
        let mut w: usize = if g.delim == b'{' && !g.nodes.is_empty() {
            4
        } else {
            2
        };
        for (i, node) in g.nodes[..flat_len(g, labels)].iter().enumerate() {
            if i > 0 && space_before(&g.nodes, labels, i) {
                w += 1;
            }
            w = w.saturating_add(node_width(node, labels[i])).min(NEVER);
        }
        w
    })
}

/// How many of a group's nodes print on one line: all but a trailing comma
/// after two or more elements or a struct literal's fields (`(x,)` keeps it).
fn flat_len(g: &Group, labels: &[Label]) -> usize {
    let n = g.nodes.len();
    let trailing = n > 0
        && labels[n - 1] == Label::Comma
        && (g.delim == b'{' || labels[..n - 1].contains(&Label::Comma));
    if trailing {
        n - 1
    } else {
        n
    }
}

fn node_width(node: &Node, label: Label) -> usize {
    match node {
        Node::Tok(t) => text_width(t.text),
        Node::Doc(_) => NEVER,
        Node::Group(g) => match label {
            Label::Brace(b) if b.breaks() && !g.nodes.is_empty() => NEVER,
            _ => flat_width(g),
        },
    }
}

/// The width of what follows a group at `from - 1` on its line: the tokens
/// up to the next group (its opening delimiter), comma or semicolon.
fn tail_width(nodes: &[Node], labels: &[Label], from: usize) -> usize {
    let mut w = 0;
    for i in from..nodes.len() {
        if space_before(nodes, labels, i) {
            w += 1;
        }
        match &nodes[i] {
            Node::Tok(t) => {
                w += text_width(t.text);
                if matches!(t.text, "," | ";") {
                    break;
                }
            }
            Node::Group(_) => {
                w += 1;
                break;
            }
            Node::Doc(_) => break,
        }
    }
    w
}

/// Whether a block-like group at `i` ends a statement, item or arm: what
/// follows does not continue its expression.
fn ends_unit(nodes: &[Node], labels: &[Label], i: usize) -> bool {
    if !matches!(labels[i], Label::Brace(b) if b.breaks()) {
        return false;
    }
    match nodes.get(i + 1) {
        None => true,
        Some(Node::Tok(t)) => {
            !(matches!(t.text, "else" | "." | "?" | "," | ";" | "as")
                || labels[i + 1] == Label::Infix)
        }
        Some(Node::Group(g)) => g.delim == b'{',
        Some(Node::Doc(_)) => true,
    }
}

/// The index ranges of `nodes`' units (items, statements, arms, fields).
fn units(nodes: &[Node], labels: &[Label], mode: Mode) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < nodes.len() {
        let end = match mode {
            Mode::Fields => {
                if labels[i] == Label::Comma {
                    out.push((start, i));
                    start = i + 1;
                }
                i += 1;
                continue;
            }
            Mode::Items | Mode::Block => (tok(Some(&nodes[i])).is_some_and(|t| t.is(";"))
                || ends_unit(nodes, labels, i))
            .then_some(i + 1),
            Mode::Arms => {
                if labels[i] == Label::Comma || ends_unit(nodes, labels, i) {
                    Some(i + 1)
                } else if matches!(labels[i], Label::Brace(b) if b.breaks())
                    && labels.get(i + 1) == Some(&Label::Comma)
                    && arm_body_starts(nodes, start, i)
                {
                    Some(i + 2)
                } else {
                    None
                }
            }
        };
        match end {
            Some(end) => {
                out.push((start, end));
                start = end;
                i = end;
            }
            None => i += 1,
        }
    }
    if start < nodes.len() {
        out.push((start, nodes.len()));
    }
    out
}

/// Whether the block at `i` is (the end of) the body of the arm from `start`.
fn arm_body_starts(nodes: &[Node], start: usize, i: usize) -> bool {
    nodes[start..i]
        .iter()
        .any(|n| tok(Some(n)).is_some_and(|t| t.is("=>")))
}

struct Printer {
    out: String,
    indent: usize,
    col: usize,
}

impl Printer {
    fn push(&mut self, s: &str) {
        self.out.push_str(s);
        self.col += text_width(s);
    }

    /// A doc as a `///` (or `//!`) line, without its line break.
    fn doc(&mut self, d: &Doc) {
        self.push(if d.inner { "//!" } else { "///" });
        self.push(&d.value);
    }

    fn newline(&mut self) {
        while self.out.ends_with(' ') {
            self.out.pop();
        }
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push(' ');
        }
        self.col = self.indent;
    }

    /// Prints a sequence unit by unit, each starting a line; the first
    /// starts where the printer is.
    fn units(&mut self, nodes: &[Node], mode: Mode) {
        let labels = label(nodes);
        self.units_labelled(nodes, &labels, mode);
    }

    fn units_labelled(&mut self, nodes: &[Node], labels: &[Label], mode: Mode) {
        let units = units(nodes, labels, mode);
        let count = units.len();
        for (k, (start, end)) in units.into_iter().enumerate() {
            if k > 0 {
                self.newline();
            }
            let mut s = start;
            // Attributes and docs first, each on a line of its own.
            loop {
                match &nodes[s..end] {
                    [Node::Doc(d), ..] => {
                        self.doc(d);
                        s += 1;
                    }
                    [Node::Tok(h), Node::Group(g), ..] if h.is("#") && g.delim == b'[' => {
                        self.push("#");
                        self.flat(g);
                        s += 2;
                    }
                    [Node::Tok(h), Node::Tok(b), Node::Group(g), ..]
                        if h.is("#") && b.is("!") && g.delim == b'[' =>
                    {
                        self.push("#!");
                        self.flat(g);
                        s += 3;
                    }
                    _ => break,
                }
                if s < end {
                    self.newline();
                }
            }
            if s == end {
                continue;
            }
            self.inline(
                &nodes[s..end],
                &labels[s..end],
                usize::from(mode == Mode::Fields),
            );
            match mode {
                Mode::Fields => {
                    let last_is_base = tok(nodes.get(s)).is_some_and(|t| t.is(".."));
                    if k + 1 < count || !last_is_base {
                        self.push(",");
                    }
                }
                // The last arm gets the comma the others have, unless it
                // ends in a block.
                Mode::Arms if k + 1 == count => {
                    let last = &nodes[end - 1];
                    let block = matches!(labels[end - 1], Label::Brace(b) if b.breaks());
                    if !tok(Some(last)).is_some_and(|t| t.is(",")) && !block {
                        self.push(",");
                    }
                }
                _ => {}
            }
        }
    }

    /// Prints a unit's tokens on the current line, breaking its groups as
    /// they need.
    fn inline(&mut self, nodes: &[Node], labels: &[Label], extra: usize) {
        self.sequence(nodes, labels, nodes.len(), |p, i, g| {
            let mut tail = tail_width(nodes, labels, i + 1);
            if i + 1 == nodes.len() {
                tail += extra;
            }
            p.group(g, labels[i], tail);
        });
    }

    /// Prints the first `count` of `nodes` with the spaces between them;
    /// `group` prints the groups (at their index).
    fn sequence(
        &mut self,
        nodes: &[Node],
        labels: &[Label],
        count: usize,
        mut group: impl FnMut(&mut Self, usize, &Group),
    ) {
        for (i, node) in nodes[..count].iter().enumerate() {
            if i > 0 && space_before(nodes, labels, i) {
                self.push(" ");
            }
            match node {
                Node::Tok(t) => self.push(t.text),
                Node::Doc(d) => {
                    self.doc(d);
                    self.newline();
                }
                Node::Group(g) => group(self, i, g),
            }
        }
    }

    /// Prints a group; `tail` is the width of what must follow it on its
    /// line.
    fn group(&mut self, g: &Group, label: Label, tail: usize) {
        if g.nodes.is_empty() {
            self.push(g.open());
            self.push(g.close());
            return;
        }
        if let Label::Brace(b) = label {
            if b.breaks() {
                self.push("{");
                self.indent += INDENT;
                self.newline();
                self.units_labelled(&g.nodes, labels(g), mode_of(b));
                self.indent -= INDENT;
                self.newline();
                self.push("}");
                return;
            }
        }
        let width = flat_width(g);
        // A short group stays whole even past the margin: broken, it would
        // read worse.
        if self.col + width + tail <= WIDTH || width <= SHORT {
            self.flat(g);
            return;
        }
        let inner = labels(g);
        let commas = inner.contains(&Label::Comma);
        if g.delim == b'{' {
            self.push("{");
            self.indent += INDENT;
            self.newline();
            self.units_labelled(&g.nodes, inner, Mode::Fields);
            self.indent -= INDENT;
            self.newline();
            self.push("}");
            return;
        }
        if !commas {
            // One element: it hugs the delimiters when it ends in a group
            // that breaks, else goes on a line of its own.
            // A closure that does not end in a block goes on its own line.
            let hugs = match g.nodes.last() {
                Some(Node::Group(_)) => {
                    matches!(inner.last(), Some(Label::Brace(b)) if b.breaks())
                        || !matches!(
                            inner.first(),
                            Some(Label::ClosureOpen | Label::ClosureEmpty)
                        )
                }
                _ => false,
            };
            if hugs {
                self.push(g.open());
                self.inline(&g.nodes, inner, 1);
                self.push(g.close());
            } else {
                self.push(g.open());
                self.indent += INDENT;
                self.newline();
                self.inline(&g.nodes, inner, 1);
                self.indent -= INDENT;
                self.newline();
                self.push(g.close());
            }
            return;
        }
        self.push(g.open());
        self.indent += INDENT;
        self.newline();
        self.units_labelled(&g.nodes, inner, Mode::Fields);
        self.indent -= INDENT;
        self.newline();
        self.push(g.close());
    }

    /// Prints a group on one line.
    fn flat(&mut self, g: &Group) {
        self.push(g.open());
        if g.delim == b'{' && !g.nodes.is_empty() {
            self.push(" ");
        }
        let labels = labels(g);
        self.sequence(&g.nodes, labels, flat_len(g, labels), |p, _, child| {
            p.flat(child)
        });
        if g.delim == b'{' && !g.nodes.is_empty() {
            self.push(" ");
        }
        self.push(g.close());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        lex(text)
            .unwrap()
            .into_iter()
            .map(|l| match l {
                Lexeme::Tok(t) => t.text.to_string(),
                Lexeme::Doc { inner, value } => format!("doc{inner}:{value}"),
            })
            .collect()
    }

    #[test]
    fn lexes_literals_lifetimes_and_docs() {
        assert_eq!(
            texts(r##"x.0.1 1.5f64 1e-5 0..n 'a' '\'' b'\\' &'static r#"q"# "a\"b" ..= ->"##),
            [
                "x",
                ".",
                "0",
                ".",
                "1",
                "1.5f64",
                "1e-5",
                "0",
                "..",
                "n",
                "'a'",
                r"'\''",
                r"b'\\'",
                "&",
                "'static",
                r##"r#"q"#"##,
                r#""a\"b""#,
                "..=",
                "->"
            ]
        );
        assert_eq!(
            texts("/// one\n//! two\n// gone\nx"),
            ["docfalse: one", "doctrue: two", "x"]
        );
        assert!(lex("\"open").is_err());
        assert!(parse("( ]").is_err());
    }

    #[test]
    fn prints_items_blocks_arms_and_lists() {
        let text = "# [doc = r\" A row.\"] # [derive (Clone , Debug)] struct R0 { c0 : Option < i64 > , c1 : Vec < u8 > } \
                    impl < 'a > Foo < 'a > { fn f (& mut self , x : & [u8]) -> rt :: Result < () > { \
                    let v = match (x . len () , - 1i32) { (0 , _) => None , (n , m) => { Some (n) } } ; \
                    if ! v . is_some () && * self . p > 0 { return Err (e) ; } else { } \
                    let g = | a , b | a + b ; let h = || { 1 } ; \
                    xs . iter () . map (| r | R0 { c0 : r . 0 , .. Default :: default () }) . count () ; \
                    Vec :: < u8 > :: new () ; Ok (()) } }";
        let printed = format(text).unwrap();
        assert_eq!(
            printed,
            "/// A row.
#[derive(Clone, Debug)]
struct R0 {
    c0: Option<i64>,
    c1: Vec<u8>,
}
impl<'a> Foo<'a> {
    fn f(&mut self, x: &[u8]) -> rt::Result<()> {
        let v = match (x.len(), -1i32) {
            (0, _) => None,
            (n, m) => {
                Some(n)
            }
        };
        if !v.is_some() && *self.p > 0 {
            return Err(e);
        } else {}
        let g = |a, b| a + b;
        let h = || {
            1
        };
        xs.iter().map(|r| R0 { c0: r.0, ..Default::default() }).count();
        Vec::<u8>::new();
        Ok(())
    }
}
"
        );
        assert_eq!(tokens_differ(text, &printed).unwrap(), None);
    }

    #[test]
    fn long_lists_break_one_element_a_line() {
        let args: Vec<String> = (0..12).map(|i| format!("argument_{i}")).collect();
        let text = format!(
            "fn f () {{ call ({}) ; wrap (inner ({})) ; }}",
            args.join(" , "),
            args.join(" , ")
        );
        let printed = format(&text).unwrap();
        assert!(
            printed.contains("    call(\n        argument_0,\n"),
            "{printed}"
        );
        assert!(
            printed.contains("        argument_11,\n    );\n"),
            "{printed}"
        );
        // One element that ends in a group hugs its parentheses.
        assert!(
            printed.contains("    wrap(inner(\n        argument_0,\n"),
            "{printed}"
        );
        assert!(printed.lines().all(|l| l.len() <= WIDTH), "{printed}");
        assert_eq!(tokens_differ(&text, &printed).unwrap(), None);
    }

    #[test]
    fn braces_around_statements_are_blocks() {
        let text = "fn f () { let v = match { let a = 1 ; a } . max (b) { 0 => x , _ => y } ; g (c , { let _ = d ; e }) ; }";
        let printed = format(text).unwrap();
        assert_eq!(
            printed,
            "fn f() {
    let v = match {
        let a = 1;
        a
    }.max(b) {
        0 => x,
        _ => y,
    };
    g(
        c,
        {
            let _ = d;
            e
        },
    );
}
"
        );
    }

    #[test]
    fn comparisons_are_not_generics() {
        let text = "fn f () { if a < b && MAX < c && R0 < d { x } }";
        assert_eq!(
            format("fn f () { g (R { a : 1 , } , (x ,) , [1 , 2 ,]) ; }").unwrap(),
            "fn f() {\n    g(R { a: 1 }, (x,), [1, 2]);\n}\n"
        );
        let printed = format(text).unwrap();
        assert!(
            printed.contains("if a < b && MAX < c && R0 < d {"),
            "{printed}"
        );
    }

    #[test]
    fn the_check_sees_a_changed_token() {
        let diff = tokens_differ("fn f () { a . b }", "fn f() { a.c }").unwrap();
        assert!(
            diff.is_some_and(|d| d.contains("`fn f ( ) { a . b }` became `fn f ( ) { a . c }`"))
        );
        assert_eq!(tokens_differ("f (a , b ,)", "f(a, b)").unwrap(), None);
    }
}
