//! A self-contained random generator of Flink SQL job files, for robustness
//! testing of `stmtc check` / `stmtc explain`.
//!
//! No dependencies: it is compiled both into the `stmtc-fuzz` crate (the
//! long-running fuzzer and the libFuzzer targets) and, through `#[path]`, into
//! `compiler/tests/suite/robustness.rs`. Every choice comes from a [`Rng`], which is
//! either a seeded PRNG (reproducible: a case is named by its seed) or a byte
//! string (libFuzzer steers the generator by mutating the bytes).
//!
//! Three kinds of cases:
//! - [`job`]: a whole job — source and sink tables with random columns and
//!   connectors, views, INSERTs with type-directed expressions (so that many
//!   jobs bind and reach the planner), sprinkled with hostile names, literals,
//!   types and "wild" fragments that exercise the error paths;
//! - [`mutate`]: token- and byte-level mutations of a seed job (the fixtures);
//! - [`resource`]: one stress shape (deep nesting, long chains, wide tables,
//!   many statements) at a given size.

#![allow(dead_code)]

use std::fmt::Write as _;

/// The source of every random choice.
pub struct Rng {
    state: u64,
    bytes: Option<(Vec<u8>, usize)>,
}

impl Rng {
    pub fn seeded(seed: u64) -> Rng {
        Rng {
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
            bytes: None,
        }
    }

    /// Choices read from `data` (8 bytes at a time); once it is used up, the
    /// generator continues from a PRNG seeded by its length, so any input is a
    /// complete case.
    pub fn from_bytes(data: &[u8]) -> Rng {
        Rng {
            state: data.len() as u64,
            bytes: Some((data.to_vec(), 0)),
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        if let Some((data, pos)) = &mut self.bytes {
            if *pos < data.len() {
                let mut buf = [0u8; 8];
                let n = (data.len() - *pos).min(8);
                buf[..n].copy_from_slice(&data[*pos..*pos + n]);
                *pos += n;
                return u64::from_le_bytes(buf);
            }
        }
        // splitmix64
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// Small numbers are much more likely than big ones.
    pub fn small(&mut self, max: usize) -> usize {
        let bits = self.below(usize::BITS as usize - max.leading_zeros() as usize + 1);
        (self.next_u64() as usize & ((1usize << bits) - 1)).min(max)
    }
}

// ---------------------------------------------------------------------------
// Hostile fragments
// ---------------------------------------------------------------------------

/// Characters that break naive quoting in SQL, Rust, JSON, DOT or Mermaid.
const HOSTILE_CHARS: &[&str] = &[
    "`",
    "``",
    "'",
    "''",
    "\"",
    "\\",
    "}",
    "{",
    "#",
    "r#",
    "/*",
    "*/",
    "--",
    "\n",
    "\r\n",
    "\t",
    "\0",
    " ",
    ";",
    "$",
    "%",
    "<",
    ">",
    "|",
    "&",
    "[",
    "]",
    "é",
    "ß",
    "İ",
    "ǅ",
    "ﬀ",
    "日本",
    "🦀",
    "\u{200B}",
    "\u{FEFF}",
    "\u{202E}",
    "\u{10FFFF}",
    "\u{1F600}",
    "a\u{301}",
];

const RUST_WORDS: &[&str] = &[
    "fn", "self", "Self", "super", "crate", "type", "struct", "impl", "match", "loop", "r#fn",
    "main", "std", "core", "None", "Some", "Ok", "Err", "String", "Vec", "row", "rows", "sink",
    "source", "input", "output", "__", "_", "0", "1a", "async", "await", "dyn", "union",
];

const SQL_WORDS: &[&str] = &[
    "select",
    "from",
    "where",
    "group",
    "order",
    "by",
    "table",
    "values",
    "insert",
    "into",
    "set",
    "end",
    "begin",
    "statement",
    "execute",
    "null",
    "true",
    "false",
    "user",
    "time",
    "timestamp",
    "date",
    "value",
    "key",
    "window_start",
    "window_end",
    "window_time",
    "rowtime",
    "proctime",
    "EXPR$0",
    "$f0",
    "count",
    "sum",
    "TUMBLE",
    "DESCRIPTOR",
    "LATERAL",
    "RANGE",
    "ROWS",
];

pub fn hostile_text(rng: &mut Rng, max_parts: usize) -> String {
    let mut s = String::new();
    for _ in 0..rng.range(1, max_parts.max(1)) {
        match rng.below(5) {
            0 => s.push_str(rng.pick::<&str>(RUST_WORDS)),
            1 => s.push_str(rng.pick::<&str>(SQL_WORDS)),
            2 => s.push(char::from(b'a' + rng.below(26) as u8)),
            3 => {
                // any scalar value
                let c = loop {
                    let v = rng.below(0x11_0000) as u32;
                    if let Some(c) = char::from_u32(v) {
                        break c;
                    }
                };
                s.push(c);
            }
            _ => s.push_str(rng.pick::<&str>(HOSTILE_CHARS)),
        }
    }
    s
}

/// `'...'` with quotes doubled, or occasionally broken on purpose.
pub fn string_literal(rng: &mut Rng, content: &str) -> String {
    let escaped = content.replace('\'', "''");
    match rng.below(40) {
        0 => format!("'{content}'"), // unescaped quotes
        1 => format!("'{escaped}"),  // unterminated
        2 => format!("E'{escaped}'"),
        3 => format!("N'{escaped}'"),
        4 => format!("X'{escaped}'"),
        _ => format!("'{escaped}'"),
    }
}

/// A backtick-quoted identifier (backticks doubled).
pub fn quoted_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Bool,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    Decimal(u8, u8),
    Char(u32),
    String,
    Date,
    Time,
    Timestamp(u8),
    TimestampLtz(u8),
}

impl Ty {
    fn sql(self) -> String {
        match self {
            Ty::Bool => "BOOLEAN".into(),
            Ty::TinyInt => "TINYINT".into(),
            Ty::SmallInt => "SMALLINT".into(),
            Ty::Int => "INT".into(),
            Ty::BigInt => "BIGINT".into(),
            Ty::Float => "FLOAT".into(),
            Ty::Double => "DOUBLE".into(),
            Ty::Decimal(p, s) => format!("DECIMAL({p}, {s})"),
            Ty::Char(n) => format!("CHAR({n})"),
            Ty::String => "STRING".into(),
            Ty::Date => "DATE".into(),
            Ty::Time => "TIME".into(),
            Ty::Timestamp(p) => format!("TIMESTAMP({p})"),
            Ty::TimestampLtz(p) => format!("TIMESTAMP_LTZ({p})"),
        }
    }

    fn class(self) -> Class {
        match self {
            Ty::Bool => Class::Bool,
            Ty::TinyInt | Ty::SmallInt | Ty::Int | Ty::BigInt => Class::Int,
            Ty::Float | Ty::Double | Ty::Decimal(..) => Class::Num,
            Ty::Char(_) | Ty::String => Class::Str,
            Ty::Date => Class::Date,
            Ty::Time => Class::Time,
            Ty::Timestamp(_) | Ty::TimestampLtz(_) => Class::Ts,
        }
    }
}

/// What an expression generator is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Bool,
    Int,
    Num,
    Str,
    Date,
    Time,
    Ts,
}

const CLASSES: &[Class] = &[
    Class::Bool,
    Class::Int,
    Class::Int,
    Class::Num,
    Class::Str,
    Class::Str,
    Class::Date,
    Class::Ts,
];

fn random_ty(rng: &mut Rng) -> Ty {
    match rng.below(16) {
        0 => Ty::Bool,
        1 => Ty::TinyInt,
        2 => Ty::SmallInt,
        3 | 4 => Ty::Int,
        5 | 6 => Ty::BigInt,
        7 => Ty::Float,
        8 => Ty::Double,
        9 => {
            let p = rng.range(1, 38) as u8;
            Ty::Decimal(p, rng.range(0, p as usize) as u8)
        }
        10 => Ty::Char(rng.range(1, 20) as u32),
        11 | 12 => Ty::String,
        13 => Ty::Date,
        14 => Ty::Time,
        _ => {
            if rng.chance(70) {
                Ty::Timestamp(rng.range(0, 9) as u8)
            } else {
                Ty::TimestampLtz(rng.range(0, 9) as u8)
            }
        }
    }
}

/// A type name as written in DDL, sometimes malformed or out of range.
fn type_text(rng: &mut Rng, ty: Ty, wild: bool, ddl: bool) -> String {
    if !wild {
        let mut t = ty.sql();
        if ddl && rng.chance(10) {
            t.push_str(" NOT NULL");
        }
        return t;
    }
    let big = *rng.pick(&[
        "0",
        "1",
        "38",
        "39",
        "-1",
        "65535",
        "2147483647",
        "2147483648",
        "4294967296",
        "18446744073709551616",
        "99999999999999999999999999999999999999999",
    ]);
    let other = *rng.pick(&["0", "1", "2", "9", "10", "39", "-1", "2147483648"]);
    let name = *rng.pick(&[
        "DECIMAL",
        "NUMERIC",
        "DEC",
        "CHAR",
        "VARCHAR",
        "BINARY",
        "VARBINARY",
        "TIMESTAMP",
        "TIMESTAMP_LTZ",
        "TIME",
        "FLOAT",
        "DOUBLE PRECISION",
        "INTERVAL",
        "ARRAY<INT>",
        "MAP<STRING, INT>",
        "ROW<a INT>",
        "MULTISET<INT>",
        "RAW",
        "BYTES",
        "STRING",
        "INTEGER",
        "BOOL",
        "REAL",
        "TIMESTAMP WITH LOCAL TIME ZONE",
        "NULL",
        "UNKNOWN_TYPE",
    ]);
    match rng.below(6) {
        0 => format!("{name}({big})"),
        1 => format!("{name}({big}, {other})"),
        2 => format!("{name}({other}, {big})"),
        3 => format!("{name}({big}) WITH LOCAL TIME ZONE"),
        4 => format!("{name} NOT NULL NOT NULL NULL"),
        _ => name.to_string(),
    }
}

// ---------------------------------------------------------------------------
// Jobs
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Column {
    name: String,
    ty: Ty,
}

#[derive(Clone, Debug)]
struct Relation {
    name: String,
    columns: Vec<Column>,
}

/// Names in scope while generating an expression.
struct Scope {
    /// (qualifier, column)
    columns: Vec<(Option<String>, Column)>,
    /// Whether aggregate calls are allowed here.
    aggregates: bool,
}

struct Gen<'r> {
    rng: &'r mut Rng,
    /// Percent chance of a hostile or wild choice at each opportunity.
    chaos: u32,
    /// Expression depth budget.
    max_depth: usize,
    names: usize,
}

impl Gen<'_> {
    fn fresh(&mut self, base: &str) -> String {
        self.names += 1;
        if self.rng.chance(self.chaos) {
            // a hostile but unique name
            format!("{}{}", hostile_text(self.rng, 4), self.names)
        } else if self.rng.chance(5) {
            format!("{base}{}", self.names).to_uppercase()
        } else {
            format!("{base}{}", self.names)
        }
    }

    /// An identifier as written: plain when it can be, else backticked.
    fn ident(&mut self, name: &str) -> String {
        let plain = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !SQL_WORDS.iter().any(|w| w.eq_ignore_ascii_case(name));
        if plain && !self.rng.chance(10) {
            name.to_string()
        } else {
            quoted_ident(name)
        }
    }

    fn wild(&mut self) -> bool {
        self.rng.chance(self.chaos)
    }

    // --- literals ---------------------------------------------------------

    fn int_literal(&mut self) -> String {
        if self.wild() {
            return self
                .rng
                .pick(&[
                    "2147483647",
                    "2147483648",
                    "-2147483648",
                    "-2147483649",
                    "9223372036854775807",
                    "9223372036854775808",
                    "-9223372036854775808",
                    "-9223372036854775809",
                    "170141183460469231731687303715884105728",
                    "99999999999999999999999999999999999999",
                    "999999999999999999999999999999999999999999999999999999999999",
                    "0",
                    "-0",
                    "00000000000000000000000000000000000000000000001",
                    "1e400",
                    "1e-400",
                    "0.000000000000000000000000000000000000000001",
                    "123456789012345678901234567890.123456789012345678901234567890",
                    "1.5e308",
                    "0x10",
                    "1_000",
                ])
                .to_string();
        }
        match self.rng.below(4) {
            0 => self.rng.small(10).to_string(),
            1 => format!("-{}", self.rng.small(1000)),
            _ => self.rng.small(100_000).to_string(),
        }
    }

    fn string_lit(&mut self) -> String {
        let content = if self.wild() {
            hostile_text(self.rng, 6)
        } else {
            ["", "a", "abc", "EU", "2024-01-01", "12:00:00", "1.5", "x y"][self.rng.below(8)]
                .to_string()
        };
        if self.rng.chance(self.chaos) {
            string_literal(self.rng, &content)
        } else {
            format!("'{}'", content.replace('\'', "''"))
        }
    }

    fn literal(&mut self, class: Class) -> String {
        match class {
            Class::Bool => {
                if self.wild() {
                    self.rng
                        .pick(&["UNKNOWN", "NULL", "CAST(NULL AS BOOLEAN)", "1"])
                        .to_string()
                } else {
                    self.rng
                        .pick(&["TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"])
                        .to_string()
                }
            }
            Class::Int => self.int_literal(),
            Class::Num => match self.rng.below(4) {
                0 => format!("{}.{}", self.rng.small(1000), self.rng.small(99)),
                1 => format!("{}E{}", self.rng.small(9), self.rng.small(10)),
                2 => format!("CAST({} AS DOUBLE)", self.int_literal()),
                _ => self.int_literal(),
            },
            Class::Str => self.string_lit(),
            Class::Date => {
                if self.wild() {
                    format!("DATE {}", self.string_lit())
                } else {
                    format!(
                        "DATE '2024-0{}-1{}'",
                        self.rng.range(1, 9),
                        self.rng.below(10)
                    )
                }
            }
            Class::Time => format!("TIME '1{}:3{}:00'", self.rng.below(10), self.rng.below(10)),
            Class::Ts => {
                if self.wild() {
                    format!("TIMESTAMP {}", self.string_lit())
                } else {
                    format!(
                        "TIMESTAMP '2024-01-0{} 12:00:00.{}'",
                        self.rng.range(1, 9),
                        self.rng.small(999)
                    )
                }
            }
        }
    }

    fn interval(&mut self) -> String {
        let unit = *self
            .rng
            .pick(&["SECOND", "MINUTE", "HOUR", "DAY", "MONTH", "YEAR"]);
        let n = if self.wild() {
            self.rng
                .pick(&["'0'", "'-1'", "'99999999999'", "'1.5'", "'abc'", "''"])
                .to_string()
        } else {
            format!("'{}'", self.rng.range(1, 30))
        };
        if self.wild() && self.rng.chance(30) {
            format!("INTERVAL {n} DAY TO SECOND")
        } else {
            format!("INTERVAL {n} {unit}")
        }
    }

    // --- expressions ------------------------------------------------------

    fn column_of(&mut self, scope: &Scope, class: Class) -> Option<String> {
        let fits: Vec<_> = scope
            .columns
            .iter()
            .filter(|(_, c)| c.ty.class() == class)
            .collect();
        if fits.is_empty() {
            return None;
        }
        let (q, c) = fits[self.rng.below(fits.len())].clone();
        let name = self.ident(&c.name);
        Some(match q {
            Some(q) if self.rng.chance(60) => format!("{}.{name}", self.ident(&q)),
            _ => name,
        })
    }

    fn expr(&mut self, scope: &Scope, class: Class, depth: usize) -> String {
        if self.wild() && self.rng.chance(20) {
            return self.wild_expr(scope, depth);
        }
        if depth >= self.max_depth || self.rng.chance(30) {
            if self.rng.chance(75) {
                if let Some(c) = self.column_of(scope, class) {
                    return c;
                }
            }
            return self.literal(class);
        }
        let d = depth + 1;
        match class {
            Class::Bool => match self.rng.below(12) {
                0 => format!(
                    "{} AND {}",
                    self.expr(scope, Class::Bool, d),
                    self.expr(scope, Class::Bool, d)
                ),
                1 => format!(
                    "({} OR {})",
                    self.expr(scope, Class::Bool, d),
                    self.expr(scope, Class::Bool, d)
                ),
                2 => format!("NOT {}", self.expr(scope, Class::Bool, d)),
                3 => {
                    let c = *self.rng.pick(CLASSES);
                    let op = *self.rng.pick(&["=", "<>", "<", "<=", ">", ">=", "!="]);
                    format!("{} {op} {}", self.expr(scope, c, d), self.expr(scope, c, d))
                }
                4 => {
                    let c = *self.rng.pick(CLASSES);
                    let not = if self.rng.chance(50) { " NOT" } else { "" };
                    format!("{} IS{not} NULL", self.expr(scope, c, d))
                }
                5 => {
                    let c = *self.rng.pick(&[Class::Int, Class::Str, Class::Num]);
                    let n = self.rng.range(1, 4);
                    let items: Vec<String> = (0..n).map(|_| self.expr(scope, c, d)).collect();
                    let not = if self.rng.chance(30) { "NOT " } else { "" };
                    format!("{} {not}IN ({})", self.expr(scope, c, d), items.join(", "))
                }
                6 => {
                    let c = *self
                        .rng
                        .pick(&[Class::Int, Class::Num, Class::Date, Class::Str]);
                    let sym = if self.rng.chance(20) {
                        " SYMMETRIC"
                    } else {
                        ""
                    };
                    format!(
                        "{} BETWEEN{sym} {} AND {}",
                        self.expr(scope, c, d),
                        self.expr(scope, c, d),
                        self.expr(scope, c, d)
                    )
                }
                7 => {
                    let pat = self.string_lit();
                    let esc = if self.rng.chance(10) {
                        " ESCAPE '\\'"
                    } else {
                        ""
                    };
                    format!("{} LIKE {pat}{esc}", self.expr(scope, Class::Str, d))
                }
                8 => format!(
                    "{} IS {}",
                    self.expr(scope, Class::Bool, d),
                    self.rng.pick(&["TRUE", "NOT FALSE", "UNKNOWN"])
                ),
                9 => format!("IS_DIGIT({})", self.expr(scope, Class::Str, d)),
                10 => format!(
                    "REGEXP({}, {})",
                    self.expr(scope, Class::Str, d),
                    self.string_lit()
                ),
                _ => self.case_expr(scope, Class::Bool, d),
            },
            Class::Int => match self.rng.below(12) {
                0..=2 => {
                    let op = *self.rng.pick(&["+", "-", "*", "/", "%"]);
                    let (a, mut b) = (
                        self.expr(scope, Class::Int, d),
                        self.expr(scope, Class::Int, d),
                    );
                    if matches!(b.as_str(), "0" | "-0") && !self.wild() {
                        b = "7".into();
                    }
                    format!("{a} {op} {b}")
                }
                3 => format!("({})", self.expr(scope, Class::Int, d)),
                4 => format!("- {}", self.expr(scope, Class::Int, d)),
                5 => format!("CHAR_LENGTH({})", self.expr(scope, Class::Str, d)),
                6 => format!(
                    "EXTRACT({} FROM {})",
                    self.rng.pick(&["YEAR", "MONTH", "DAY", "HOUR"]),
                    self.expr(scope, Class::Ts, d)
                ),
                7 => self.cast(scope, Class::Int, d),
                8 => format!("ABS({})", self.expr(scope, Class::Int, d)),
                9 => format!(
                    "MOD({}, {})",
                    self.expr(scope, Class::Int, d),
                    self.rng.range(1, 9)
                ),
                10 => self.case_expr(scope, Class::Int, d),
                _ => self.agg_or(scope, Class::Int, d),
            },
            Class::Num => match self.rng.below(10) {
                0..=2 => {
                    let op = *self.rng.pick(&["+", "-", "*", "/"]);
                    let (a, b) = (
                        *self.rng.pick(&[Class::Int, Class::Num]),
                        *self.rng.pick(&[Class::Int, Class::Num]),
                    );
                    let (a, mut b) = (self.expr(scope, a, d), self.expr(scope, b, d));
                    if b.trim_start_matches('-')
                        .trim_matches(|c| c == '0' || c == '.')
                        .is_empty()
                        && !self.wild()
                    {
                        b = "7".into();
                    }
                    format!("{a} {op} {b}")
                }
                3 => self.cast(scope, Class::Num, d),
                4 => format!(
                    "ROUND({}, {})",
                    self.expr(scope, Class::Num, d),
                    self.rng.small(5)
                ),
                5 => format!(
                    "{}({})",
                    self.rng
                        .pick(&["SQRT", "LN", "EXP", "FLOOR", "CEIL", "SIGN", "ABS"]),
                    self.expr(scope, Class::Num, d)
                ),
                6 => format!(
                    "POWER({}, {})",
                    self.expr(scope, Class::Num, d),
                    self.expr(scope, Class::Int, d)
                ),
                7 => self.case_expr(scope, Class::Num, d),
                8 => format!(
                    "COALESCE({}, {})",
                    self.expr(scope, Class::Num, d),
                    self.expr(scope, Class::Num, d)
                ),
                _ => self.agg_or(scope, Class::Num, d),
            },
            Class::Str => match self.rng.below(12) {
                0 | 1 => format!(
                    "{} || {}",
                    self.expr(scope, Class::Str, d),
                    self.expr(scope, Class::Str, d)
                ),
                2 => format!(
                    "{}({})",
                    self.rng
                        .pick(&["UPPER", "LOWER", "TRIM", "INITCAP", "REVERSE", "LTRIM"]),
                    self.expr(scope, Class::Str, d)
                ),
                3 => format!(
                    "SUBSTRING({} FROM {} FOR {})",
                    self.expr(scope, Class::Str, d),
                    self.expr(scope, Class::Int, d),
                    self.expr(scope, Class::Int, d)
                ),
                4 => format!(
                    "SUBSTR({}, {})",
                    self.expr(scope, Class::Str, d),
                    self.expr(scope, Class::Int, d)
                ),
                5 => self.cast(scope, Class::Str, d),
                6 => format!(
                    "CONCAT_WS({}, {}, {})",
                    self.string_lit(),
                    self.expr(scope, Class::Str, d),
                    self.expr(scope, Class::Str, d)
                ),
                7 => format!(
                    "DATE_FORMAT({}, {})",
                    self.expr(scope, Class::Ts, d),
                    self.string_lit()
                ),
                8 => format!(
                    "REPLACE({}, {}, {})",
                    self.expr(scope, Class::Str, d),
                    self.string_lit(),
                    self.string_lit()
                ),
                9 => self.case_expr(scope, Class::Str, d),
                10 => format!(
                    "LPAD({}, {}, {})",
                    self.expr(scope, Class::Str, d),
                    self.expr(scope, Class::Int, d),
                    self.string_lit()
                ),
                _ => self.agg_or(scope, Class::Str, d),
            },
            Class::Date => match self.rng.below(4) {
                0 => self.cast(scope, Class::Date, d),
                1 => "CURRENT_DATE".to_string(),
                2 => format!("TO_DATE({})", self.expr(scope, Class::Str, d)),
                _ => self.case_expr(scope, Class::Date, d),
            },
            Class::Time => self.literal(Class::Time),
            Class::Ts => match self.rng.below(6) {
                0 => format!("{} + {}", self.expr(scope, Class::Ts, d), self.interval()),
                1 => format!("{} - {}", self.expr(scope, Class::Ts, d), self.interval()),
                2 => format!(
                    "FLOOR({} TO {})",
                    self.expr(scope, Class::Ts, d),
                    self.rng
                        .pick(&["SECOND", "MINUTE", "HOUR", "DAY", "MONTH", "YEAR"])
                ),
                3 => self.cast(scope, Class::Ts, d),
                4 => format!("TO_TIMESTAMP({})", self.expr(scope, Class::Str, d)),
                _ => "CURRENT_TIMESTAMP".to_string(),
            },
        }
    }

    fn case_expr(&mut self, scope: &Scope, class: Class, d: usize) -> String {
        let mut s = String::from("CASE");
        if self.rng.chance(30) {
            let c = *self.rng.pick(&[Class::Int, Class::Str]);
            let _ = write!(s, " {}", self.expr(scope, c, d));
            for _ in 0..self.rng.range(1, 3) {
                let (w, t) = (self.expr(scope, c, d), self.expr(scope, class, d));
                let _ = write!(s, " WHEN {w} THEN {t}");
            }
        } else {
            for _ in 0..self.rng.range(1, 3) {
                let (w, t) = (self.expr(scope, Class::Bool, d), self.expr(scope, class, d));
                let _ = write!(s, " WHEN {w} THEN {t}");
            }
        }
        if self.rng.chance(70) {
            let e = self.expr(scope, class, d);
            let _ = write!(s, " ELSE {e}");
        }
        s.push_str(" END");
        s
    }

    fn cast(&mut self, scope: &Scope, class: Class, d: usize) -> String {
        let from = *self.rng.pick(CLASSES);
        let target = loop {
            let t = random_ty(self.rng);
            if t.class() == class || self.wild() {
                break t;
            }
        };
        let f = if self.rng.chance(20) {
            "TRY_CAST"
        } else {
            "CAST"
        };
        let w = self.wild();
        let tt = type_text(self.rng, target, w, false);
        format!("{f}({} AS {tt})", self.expr(scope, from, d))
    }

    fn agg_or(&mut self, scope: &Scope, class: Class, d: usize) -> String {
        if !scope.aggregates {
            return self.expr(scope, class, d);
        }
        let inner = Scope {
            columns: scope.columns.clone(),
            aggregates: self.wild(), // nested aggregates are an error path
        };
        let distinct = if self.rng.chance(15) { "DISTINCT " } else { "" };
        match class {
            Class::Int => {
                if self.rng.chance(50) {
                    if self.rng.chance(40) {
                        "COUNT(*)".to_string()
                    } else {
                        let c = *self.rng.pick(CLASSES);
                        format!("COUNT({distinct}{})", self.expr(&inner, c, d))
                    }
                } else {
                    let f = *self.rng.pick(&["SUM", "MIN", "MAX", "AVG"]);
                    format!("{f}({distinct}{})", self.expr(&inner, Class::Int, d))
                }
            }
            Class::Num => {
                let f = *self.rng.pick(&["SUM", "MIN", "MAX", "AVG"]);
                format!("{f}({distinct}{})", self.expr(&inner, Class::Num, d))
            }
            _ => {
                let f = *self.rng.pick(&["MIN", "MAX"]);
                format!("{f}({distinct}{})", self.expr(&inner, class, d))
            }
        }
    }

    /// Anything at all: unknown names and functions, odd syntax, subqueries.
    fn wild_expr(&mut self, scope: &Scope, depth: usize) -> String {
        let d = depth + 1;
        let c = *self.rng.pick(CLASSES);
        match self.rng.below(22) {
            0 => quoted_ident(&hostile_text(self.rng, 3)),
            1 => format!("{}({})", hostile_text(self.rng, 2), self.expr(scope, c, d)),
            2 => format!(
                "{}()",
                self.rng.pick(&[
                    "UUID",
                    "NOW",
                    "RAND",
                    "PI",
                    "E",
                    "CURRENT_ROW_TIMESTAMP",
                    "LOCALTIMESTAMP",
                    "UNIX_TIMESTAMP"
                ])
            ),
            3 => format!(
                "(SELECT {} FROM {})",
                self.literal(c),
                quoted_ident(&hostile_text(self.rng, 2))
            ),
            4 => "EXISTS (SELECT 1)".to_string(),
            5 => format!("{} IN (SELECT 1)", self.expr(scope, c, d)),
            6 => "*".to_string(),
            7 => "NULL".to_string(),
            8 => format!(
                "ARRAY[{}, {}]",
                self.expr(scope, c, d),
                self.expr(scope, c, d)
            ),
            9 => format!(
                "ROW({}, {})",
                self.expr(scope, c, d),
                self.expr(scope, c, d)
            ),
            10 => format!("{}[1]", self.expr(scope, c, d)),
            11 => format!(
                "{}({} ORDER BY 1)",
                self.rng.pick(&["LISTAGG", "SUM", "COUNT"]),
                self.expr(scope, c, d)
            ),
            12 => format!(
                "{} OVER (PARTITION BY 1 ORDER BY 1)",
                self.rng.pick(&["ROW_NUMBER()", "SUM(1)", "RANK()"])
            ),
            13 => format!(
                "{} FILTER (WHERE {})",
                self.rng.pick(&["COUNT(*)", "SUM(1)"]),
                self.expr(scope, Class::Bool, d)
            ),
            14 => {
                let t = random_ty(self.rng);
                format!(
                    "{}::{}",
                    self.expr(scope, c, d),
                    type_text(self.rng, t, true, false)
                )
            }
            15 => format!("{} / 0", self.expr(scope, Class::Int, d)),
            16 => format!("{} COLLATE x", self.expr(scope, Class::Str, d)),
            17 => format!(
                "INTERVAL {} {}",
                self.string_lit(),
                self.rng.pick(&[
                    "SECOND",
                    "DAY",
                    "FORTNIGHT",
                    "YEAR TO MONTH",
                    "DAY(5) TO SECOND(9)"
                ])
            ),
            18 => {
                let f = *self.rng.pick(&[
                    "COALESCE",
                    "NULLIF",
                    "IFNULL",
                    "GREATEST",
                    "LEAST",
                    "CONCAT",
                    "SUBSTRING",
                    "TRIM",
                    "LOCATE",
                    "POSITION",
                    "SPLIT_INDEX",
                    "REGEXP_EXTRACT",
                    "REGEXP_REPLACE",
                    "DATE_FORMAT",
                    "TO_TIMESTAMP_LTZ",
                    "FROM_UNIXTIME",
                    "CONVERT_TZ",
                    "CHR",
                    "ASCII",
                    "REPEAT",
                    "LEFT",
                    "RIGHT",
                    "LOG",
                    "TRUNCATE",
                    "RAND_INTEGER",
                    "HASH_CODE",
                    "MD5",
                    "TIMESTAMPADD",
                    "TIMESTAMPDIFF",
                    "YEAR",
                    "QUARTER",
                    "WEEK",
                    "HOUR",
                    "DAYOFWEEK",
                    "COUNT",
                    "SUM",
                    "AVG",
                    "MIN",
                    "MAX",
                    "STDDEV_POP",
                    "FIRST_VALUE",
                    "COLLECT",
                    "TUMBLE_START",
                    "PROCTIME",
                ]);
                let n = self.rng.small(4);
                let args: Vec<String> = (0..n)
                    .map(|_| {
                        let c = *self.rng.pick(CLASSES);
                        self.expr(scope, c, d)
                    })
                    .collect();
                format!("{f}({})", args.join(", "))
            }
            19 => format!(
                "TRIM({} {} FROM {})",
                self.rng.pick(&["BOTH", "LEADING", "TRAILING"]),
                self.string_lit(),
                self.expr(scope, Class::Str, d)
            ),
            20 => format!(
                "POSITION({} IN {})",
                self.expr(scope, Class::Str, d),
                self.expr(scope, Class::Str, d)
            ),
            _ => {
                let t = random_ty(self.rng);
                format!(
                    "CAST({} AS {})",
                    self.expr(scope, c, d),
                    type_text(self.rng, t, true, false)
                )
            }
        }
    }

    // --- statements -------------------------------------------------------

    fn options(&mut self, pairs: &[(String, String)]) -> String {
        let mut parts: Vec<String> = pairs
            .iter()
            .map(|(k, v)| {
                format!(
                    "  '{}' = '{}'",
                    k.replace('\'', "''"),
                    v.replace('\'', "''")
                )
            })
            .collect();
        if self.wild() {
            let k = hostile_text(self.rng, 3);
            let v = hostile_text(self.rng, 3);
            parts.push(format!(
                "  {} = {}",
                string_literal(self.rng, &k),
                string_literal(self.rng, &v)
            ));
        }
        if self.wild() && !parts.is_empty() {
            let i = self.rng.below(parts.len());
            parts.remove(i);
        }
        if self.wild() && !parts.is_empty() {
            let i = self.rng.below(parts.len());
            let dup = parts[i].clone();
            parts.push(dup);
        }
        format!("WITH (\n{}\n)", parts.join(",\n"))
    }

    fn source_table(&mut self, out: &mut String, rel: &Relation) {
        let name = self.ident(&rel.name.clone());
        let mut cols: Vec<String> = Vec::new();
        for c in &rel.columns {
            let n = self.ident(&c.name.clone());
            let w = self.wild();
            cols.push(format!("  {n} {}", type_text(self.rng, c.ty, w, true)));
        }
        // computed column
        if self.rng.chance(30) {
            let n = self.fresh("calc");
            let scope = Scope {
                columns: rel.columns.iter().map(|c| (None, c.clone())).collect(),
                aggregates: false,
            };
            let class = *self.rng.pick(CLASSES);
            let e = self.expr(&scope, class, 1);
            cols.push(format!("  {} AS {e}", self.ident(&n)));
        }
        let ts = rel
            .columns
            .iter()
            .find(|c| matches!(c.ty, Ty::Timestamp(p) if p <= 3) || self.wild());
        if let Some(ts) = ts {
            if self.rng.chance(30) {
                let n = self.ident(&ts.name.clone());
                let iv = self.interval();
                cols.push(format!("  WATERMARK FOR {n} AS {n} - {iv}"));
            }
        }
        if self.rng.chance(15) && !rel.columns.is_empty() {
            let c = self.ident(&rel.columns[0].name.clone());
            let enforced = if self.wild() { "" } else { " NOT ENFORCED" };
            cols.push(format!("  PRIMARY KEY ({c}){enforced}"));
        }
        let kind = self.rng.below(3);
        let mut opts: Vec<(String, String)> = Vec::new();
        match kind {
            0 => {
                opts.push(("connector".into(), "datagen".into()));
                let rows = if self.wild() {
                    hostile_text(self.rng, 2)
                } else {
                    self.rng.range(1, 100).to_string()
                };
                opts.push(("number-of-rows".into(), rows));
                for c in &rel.columns {
                    if self.rng.chance(40) && c.ty.class() == Class::Int {
                        opts.push((format!("fields.{}.kind", c.name), "sequence".into()));
                        opts.push((format!("fields.{}.start", c.name), "1".into()));
                        opts.push((
                            format!("fields.{}.end", c.name),
                            self.rng.range(1, 1000).to_string(),
                        ));
                    } else if self.rng.chance(20) {
                        opts.push((format!("fields.{}.kind", c.name), "random".into()));
                        opts.push((format!("fields.{}.min", c.name), self.int_literal()));
                        opts.push((format!("fields.{}.max", c.name), self.int_literal()));
                    }
                }
            }
            _ => {
                opts.push(("connector".into(), "filesystem".into()));
                let path = if self.wild() {
                    hostile_text(self.rng, 4)
                } else {
                    format!("data/{}.csv", rel.name)
                };
                opts.push(("path".into(), path));
                let fmt = if kind == 1 { "csv" } else { "json" };
                opts.push(("format".into(), fmt.into()));
                if self.rng.chance(30) {
                    opts.push((format!("{fmt}.ignore-parse-errors"), "true".into()));
                }
                if fmt == "csv" && self.rng.chance(30) {
                    let delim = if self.wild() {
                        hostile_text(self.rng, 1)
                    } else {
                        "|".into()
                    };
                    opts.push(("csv.field-delimiter".into(), delim));
                }
            }
        }
        let temp = if self.rng.chance(20) {
            "TEMPORARY "
        } else {
            ""
        };
        let ine = if self.rng.chance(10) {
            "IF NOT EXISTS "
        } else {
            ""
        };
        let with = self.options(&opts);
        let _ = writeln!(
            out,
            "CREATE {temp}TABLE {ine}{name} (\n{}\n) {with};\n",
            cols.join(",\n")
        );
    }

    fn sink_table(&mut self, out: &mut String, name: &str, columns: &[Column]) {
        let n = self.ident(name);
        let cols: Vec<String> = columns
            .iter()
            .map(|c| {
                let cn = self.ident(&c.name.clone());
                let w = self.wild();
                format!("  {cn} {}", type_text(self.rng, c.ty, w, true))
            })
            .collect();
        let opts: Vec<(String, String)> = match self.rng.below(4) {
            0 => vec![
                ("connector".into(), "print".into()),
                (
                    "print-identifier".into(),
                    if self.wild() {
                        hostile_text(self.rng, 3)
                    } else {
                        name.to_string()
                    },
                ),
            ],
            1 => vec![("connector".into(), "blackhole".into())],
            2 => vec![
                ("connector".into(), "filesystem".into()),
                ("path".into(), format!("out/{name}")),
                ("format".into(), "json".into()),
            ],
            _ => vec![
                ("connector".into(), "filesystem".into()),
                ("path".into(), format!("out/{name}")),
                ("format".into(), "csv".into()),
            ],
        };
        let with = self.options(&opts);
        let _ = writeln!(out, "CREATE TABLE {n} (\n{}\n) {with};\n", cols.join(",\n"));
    }

    /// A FROM clause over the relations; returns its text and the scope.
    #[allow(clippy::wrong_self_convention)]
    fn from_clause(
        &mut self,
        rels: &[Relation],
        depth: usize,
    ) -> (String, Vec<(Option<String>, Column)>) {
        let a = &rels[self.rng.below(rels.len())];
        let alias_a = if self.rng.chance(40) { Some("l") } else { None };
        let text_a = match alias_a {
            Some(al) => format!("{} AS {al}", self.ident(&a.name.clone())),
            None => self.ident(&a.name.clone()),
        };
        let qual_a: &str = alias_a.unwrap_or(a.name.as_str());
        let mut scope: Vec<(Option<String>, Column)> = a
            .columns
            .iter()
            .map(|c| (Some(qual_a.to_string()), c.clone()))
            .collect();
        match self.rng.below(10) {
            0 | 1 if rels.len() > 1 || self.wild() => {
                let mut b = &rels[self.rng.below(rels.len())];
                if std::ptr::eq(a, b) && !self.wild() {
                    b = rels.iter().find(|r| !std::ptr::eq(*r, a)).unwrap_or(b);
                }
                let qual_b = "r";
                let kinds: &[&str] = if self.chaos > 0 {
                    &[
                        "JOIN",
                        "INNER JOIN",
                        "LEFT JOIN",
                        "RIGHT JOIN",
                        "FULL OUTER JOIN",
                        "LEFT OUTER JOIN",
                        "CROSS JOIN",
                        "JOIN LATERAL",
                        "NATURAL JOIN",
                    ]
                } else {
                    &[
                        "JOIN",
                        "INNER JOIN",
                        "LEFT JOIN",
                        "RIGHT JOIN",
                        "FULL OUTER JOIN",
                        "LEFT OUTER JOIN",
                        "CROSS JOIN",
                    ]
                };
                let kind = *self.rng.pick(kinds);
                let bname = self.ident(&b.name.clone());
                let on = if kind == "CROSS JOIN" {
                    String::new()
                } else {
                    // an equi-join on columns of the same class when there are any
                    let pair = a.columns.iter().find_map(|ca| {
                        b.columns
                            .iter()
                            .find(|cb| cb.ty.class() == ca.ty.class())
                            .map(|cb| (ca, cb))
                    });
                    match pair {
                        Some((ca, cb)) if !self.wild() => {
                            let (na, nb) =
                                (self.ident(&ca.name.clone()), self.ident(&cb.name.clone()));
                            let qa = self.ident(qual_a);
                            let mut on = format!(" ON {qa}.{na} = r.{nb}");
                            if self.rng.chance(20) {
                                let sc = Scope {
                                    columns: scope.clone(),
                                    aggregates: false,
                                };
                                let _ = write!(
                                    on,
                                    " AND {}",
                                    self.expr(&sc, Class::Bool, self.max_depth.saturating_sub(2))
                                );
                            }
                            on
                        }
                        _ => {
                            let sc = Scope {
                                columns: scope.clone(),
                                aggregates: false,
                            };
                            format!(" ON {}", self.expr(&sc, Class::Bool, 2))
                        }
                    }
                };
                scope.extend(
                    b.columns
                        .iter()
                        .map(|c| (Some(qual_b.to_string()), c.clone())),
                );
                (format!("{text_a} {kind} {bname} AS r{on}"), scope)
            }
            2 if depth < 3 => {
                // a subquery in FROM
                let (q, cols) = self.query(rels, depth + 1, false);
                let scope = cols
                    .into_iter()
                    .map(|c| (Some("sq".to_string()), c))
                    .collect();
                (format!("({q}) AS sq"), scope)
            }
            3 if self.chaos > 0
                || a.columns
                    .iter()
                    .any(|c| matches!(c.ty, Ty::Timestamp(p) | Ty::TimestampLtz(p) if p <= 3)) =>
            {
                // a window TVF
                let ts = a
                    .columns
                    .iter()
                    .find(|c| matches!(c.ty, Ty::Timestamp(p) | Ty::TimestampLtz(p) if p <= 3));
                let col = match ts {
                    Some(c) => self.ident(&c.name.clone()),
                    None => self.ident(
                        &a.columns
                            .first()
                            .map(|c| c.name.clone())
                            .unwrap_or_default(),
                    ),
                };
                let an = self.ident(&a.name.clone());
                let (i1, i2) = (self.interval(), self.interval());
                let tvf = match self.rng.below(3) {
                    0 => format!("TUMBLE(TABLE {an}, DESCRIPTOR({col}), {i1})"),
                    1 => format!("HOP(TABLE {an}, DESCRIPTOR({col}), {i1}, {i2})"),
                    _ => format!("CUMULATE(TABLE {an}, DESCRIPTOR({col}), {i1}, {i2})"),
                };
                (
                    format!("TABLE({tvf})"),
                    a.columns.iter().map(|c| (None, c.clone())).collect(),
                )
            }
            _ => (text_a, scope),
        }
    }

    /// A query; returns its text and output columns (best effort).
    fn query(&mut self, rels: &[Relation], depth: usize, top: bool) -> (String, Vec<Column>) {
        if self.rng.chance(8) {
            // VALUES
            let n = self.rng.range(1, 3);
            let classes: Vec<Class> = (0..n)
                .map(|_| {
                    *self
                        .rng
                        .pick(&[Class::Int, Class::Str, Class::Num, Class::Bool])
                })
                .collect();
            let empty = Scope {
                columns: Vec::new(),
                aggregates: false,
            };
            let rows: Vec<String> = (0..self.rng.range(1, 3))
                .map(|_| {
                    let vals: Vec<String> = classes
                        .iter()
                        .map(|c| self.expr(&empty, *c, self.max_depth - 1))
                        .collect();
                    format!("({})", vals.join(", "))
                })
                .collect();
            let cols = classes
                .iter()
                .enumerate()
                .map(|(i, c)| Column {
                    name: format!("EXPR${i}"),
                    ty: class_ty(*c),
                })
                .collect();
            let body = format!("VALUES {}", rows.join(", "));
            return (
                if top {
                    body
                } else {
                    format!("SELECT * FROM ({body}) AS v")
                },
                cols,
            );
        }
        let (from, scope_cols) = self.from_clause(rels, depth);
        let grouped = self.rng.chance(30);
        let mut items = Vec::new();
        let mut out_cols = Vec::new();
        let mut group_keys = Vec::new();
        if grouped {
            let keys: Vec<_> = scope_cols
                .iter()
                .filter(|_| self.rng.chance(30))
                .take(3)
                .cloned()
                .collect();
            for (q, c) in &keys {
                let n = self.ident(&c.name);
                let k = match q {
                    Some(q) if self.rng.chance(50) => format!("{}.{n}", self.ident(q)),
                    _ => n,
                };
                group_keys.push(k.clone());
                items.push(k);
                out_cols.push(c.clone());
            }
            let sc = Scope {
                columns: scope_cols.clone(),
                aggregates: true,
            };
            for _ in 0..self.rng.range(1, 3) {
                let class = *self.rng.pick(&[Class::Int, Class::Num, Class::Str]);
                let e = self.agg_or(&sc, class, 1);
                let name = self.fresh("agg");
                items.push(format!("{e} AS {}", self.ident(&name)));
                out_cols.push(Column {
                    name,
                    ty: class_ty(class),
                });
            }
        } else if self.rng.chance(10) {
            items.push("*".into());
            out_cols.extend(scope_cols.iter().map(|(_, c)| c.clone()));
        } else {
            let sc = Scope {
                columns: scope_cols.clone(),
                aggregates: false,
            };
            for _ in 0..self.rng.range(1, 4) {
                let class = *self.rng.pick(CLASSES);
                let e = self.expr(&sc, class, 0);
                let name = self.fresh("c");
                if self.chaos == 0 || self.rng.chance(80) {
                    items.push(format!("{e} AS {}", self.ident(&name)));
                    out_cols.push(Column {
                        name,
                        ty: class_ty(class),
                    });
                } else {
                    let i = out_cols.len();
                    items.push(e);
                    out_cols.push(Column {
                        name: format!("EXPR${i}"),
                        ty: class_ty(class),
                    });
                }
            }
        }
        let distinct = if self.rng.chance(10) { "DISTINCT " } else { "" };
        let mut q = format!("SELECT {distinct}{} FROM {from}", items.join(", "));
        let sc = Scope {
            columns: scope_cols.clone(),
            aggregates: false,
        };
        if self.rng.chance(40) {
            let w = self.expr(&sc, Class::Bool, 1);
            let _ = write!(q, " WHERE {w}");
        }
        if grouped && !group_keys.is_empty() {
            let _ = write!(q, " GROUP BY {}", group_keys.join(", "));
            if self.rng.chance(30) {
                let hs = Scope {
                    columns: Vec::new(),
                    aggregates: true,
                };
                let h = format!(
                    "{} > {}",
                    self.agg_or(&hs, Class::Int, 2),
                    self.rng.small(10)
                );
                let _ = write!(q, " HAVING {h}");
            }
        }
        if self.rng.chance(15) && !out_cols.is_empty() {
            q = format!("{q} UNION ALL {q}");
        }
        if self.rng.chance(10) {
            let limit = if self.wild() {
                self.int_literal()
            } else {
                self.rng.small(100).to_string()
            };
            let _ = write!(
                q,
                " ORDER BY 1{} LIMIT {limit}",
                if self.rng.chance(50) { " DESC" } else { "" }
            );
        }
        (q, out_cols)
    }
}

fn class_ty(c: Class) -> Ty {
    match c {
        Class::Bool => Ty::Bool,
        Class::Int => Ty::BigInt,
        Class::Num => Ty::Double,
        Class::Str => Ty::String,
        Class::Date => Ty::Date,
        Class::Time => Ty::Time,
        Class::Ts => Ty::Timestamp(3),
    }
}

/// A whole job file. `chaos` (0..=100) is the percent chance of a hostile or
/// wild choice at each opportunity: 0 gives mostly valid jobs.
pub fn job(rng: &mut Rng, chaos: u32) -> String {
    let mut g = Gen {
        rng,
        chaos,
        max_depth: 4,
        names: 0,
    };
    g.max_depth = g.rng.range(2, 5);
    let mut out = String::new();
    if g.rng.chance(50) {
        out.push_str("SET 'execution.runtime-mode' = 'batch';\n\n");
    }
    if g.wild() {
        let (k, v) = (hostile_text(g.rng, 3), hostile_text(g.rng, 3));
        let _ = writeln!(
            out,
            "SET {} = {};",
            string_literal(g.rng, &k),
            string_literal(g.rng, &v)
        );
    }
    let mut rels = Vec::new();
    for _ in 0..g.rng.range(1, 3) {
        let name = g.fresh("src");
        let mut columns: Vec<Column> = Vec::new();
        for _ in 0..g.rng.range(1, 6) {
            let cname = g.fresh("col");
            columns.push(Column {
                name: cname,
                ty: random_ty(g.rng),
            });
        }
        if g.wild() && !columns.is_empty() {
            // a duplicate or case-colliding column name
            let mut dup = columns[0].clone();
            if g.rng.chance(50) {
                dup.name = dup.name.to_uppercase();
            }
            columns.push(dup);
        }
        let rel = Relation { name, columns };
        g.source_table(&mut out, &rel);
        rels.push(rel);
    }
    // views
    for _ in 0..g.rng.small(2) {
        let (q, cols) = g.query(&rels, 1, false);
        let name = g.fresh("v");
        let temp = if g.rng.chance(50) { "TEMPORARY " } else { "" };
        let _ = writeln!(out, "CREATE {temp}VIEW {} AS\n{q};\n", g.ident(&name));
        if !cols.is_empty() {
            rels.push(Relation {
                name,
                columns: cols,
            });
        }
    }
    // sinks and inserts
    let mut inserts = Vec::new();
    for _ in 0..g.rng.range(1, 4) {
        let (q, cols) = g.query(&rels, 0, true);
        let name = g.fresh("sink");
        // Sinks are STRING columns fed through CAST (every type casts to
        // STRING), or the query's own (approximate) types.
        let cast_all = g.rng.chance(60);
        let sink_cols: Vec<Column> = cols
            .iter()
            .enumerate()
            .map(|(i, c)| Column {
                name: format!("o{i}"),
                ty: if cast_all { Ty::String } else { c.ty },
            })
            .collect();
        let sink_cols = if sink_cols.is_empty() {
            vec![Column {
                name: "o".into(),
                ty: Ty::String,
            }]
        } else {
            sink_cols
        };
        g.sink_table(&mut out, &name, &sink_cols);
        let q = if cast_all && !q.starts_with("VALUES") {
            let casts: Vec<String> = (0..cols.len())
                .map(|i| format!("CAST(`q`.`{}` AS STRING)", cols[i].name.replace('`', "``")))
                .collect();
            format!("SELECT {} FROM ({q}) AS q", casts.join(", "))
        } else {
            q
        };
        let verb = if g.wild() {
            "INSERT OVERWRITE"
        } else {
            "INSERT INTO"
        };
        let collist = if g.rng.chance(10) {
            let names: Vec<String> = sink_cols.iter().map(|c| c.name.clone()).collect();
            format!(" ({})", names.join(", "))
        } else {
            String::new()
        };
        inserts.push(format!("{verb} {}{collist}\n{q};", g.ident(&name)));
    }
    match g.rng.below(3) {
        0 => {
            for i in &inserts {
                let _ = writeln!(out, "{i}\n");
            }
        }
        1 => {
            let _ = writeln!(
                out,
                "EXECUTE STATEMENT SET\nBEGIN\n{}\nEND;",
                inserts.join("\n")
            );
        }
        _ => {
            let _ = writeln!(out, "BEGIN STATEMENT SET;\n{}\nEND;", inserts.join("\n"));
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------

/// Fragments spliced in by [`mutate`].
const DICTIONARY: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP BY",
    "HAVING",
    "ORDER BY",
    "LIMIT",
    "UNION ALL",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "JOIN",
    "LEFT JOIN",
    "ON",
    "USING",
    "AS",
    "DISTINCT",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "CAST(",
    "AS STRING)",
    "TRY_CAST(",
    "NULL",
    "NOT NULL",
    "IS NULL",
    "AND",
    "OR",
    "NOT",
    "IN (",
    "BETWEEN",
    "LIKE",
    "(",
    ")",
    ",",
    ";",
    ".",
    "*",
    "+",
    "-",
    "/",
    "%",
    "||",
    "=",
    "<>",
    "<",
    ">",
    "'",
    "`",
    "\"",
    "''",
    "``",
    "--",
    "/*",
    "*/",
    "\n",
    " ",
    "INSERT INTO",
    "INSERT OVERWRITE",
    "CREATE TABLE",
    "CREATE VIEW",
    "CREATE TEMPORARY VIEW",
    "EXECUTE STATEMENT SET BEGIN",
    "BEGIN STATEMENT SET;",
    "END;",
    "SET",
    "WITH (",
    "'connector'",
    "'filesystem'",
    "'datagen'",
    "'print'",
    "'blackhole'",
    "'path'",
    "'format'",
    "'csv'",
    "'json'",
    "'number-of-rows'",
    "WATERMARK FOR",
    "PRIMARY KEY",
    "NOT ENFORCED",
    "TABLE(",
    "TUMBLE(",
    "HOP(",
    "CUMULATE(",
    "DESCRIPTOR(",
    "INTERVAL '1' MINUTE",
    "INTERVAL",
    "TIMESTAMP",
    "TIMESTAMP(3)",
    "TIMESTAMP_LTZ(3)",
    "DECIMAL(38, 18)",
    "DECIMAL(10, 2)",
    "INT",
    "BIGINT",
    "STRING",
    "VARCHAR(0)",
    "CHAR(1)",
    "BOOLEAN",
    "DATE",
    "TIME",
    "DOUBLE",
    "COUNT(*)",
    "SUM(",
    "AVG(",
    "MIN(",
    "MAX(",
    "COUNT(DISTINCT",
    "COALESCE(",
    "UPPER(",
    "SUBSTRING(",
    "EXTRACT(",
    "DATE_FORMAT(",
    "FLOOR(",
    "CURRENT_TIMESTAMP",
    "VALUES (1)",
    "(SELECT 1)",
    "0",
    "1",
    "-1",
    "2147483648",
    "9223372036854775808",
    "1e999",
    "1.0",
    "TRUE",
    "FALSE",
    "window_start",
    "window_end",
    "LATERAL",
    "OVER (",
    "ROWS BETWEEN",
    "WITH x AS (",
    "IF NOT EXISTS",
    "COMMENT",
    "METADATA",
    "VIRTUAL",
    "PARTITIONED BY",
    "LIKE",
    "\u{0}",
    "\u{FEFF}",
    "é",
    "🦀",
];

/// Applies 1..=8 random edits to `seed`: deletions, duplications, swaps,
/// dictionary insertions, splices from `donors`, byte flips (kept valid
/// UTF-8), truncation.
pub fn mutate(rng: &mut Rng, seed: &str, donors: &[&str]) -> String {
    let mut s = seed.to_string();
    for _ in 0..rng.range(1, 8) {
        let len = s.len();
        let at = |rng: &mut Rng, s: &str| -> usize {
            let mut i = rng.below(s.len() + 1);
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        match rng.below(10) {
            0 if len > 0 => {
                // delete a range
                let a = at(rng, &s);
                let mut b = (a + rng.small(64)).min(len);
                while !s.is_char_boundary(b) {
                    b += 1;
                }
                s.replace_range(a..b, "");
            }
            1 if len > 0 => {
                // duplicate a range
                let a = at(rng, &s);
                let mut b = (a + rng.small(200)).min(len);
                while !s.is_char_boundary(b) {
                    b += 1;
                }
                let piece = s[a..b].to_string();
                let c = at(rng, &s);
                s.insert_str(c, &piece);
            }
            2 | 3 => {
                let piece = *rng.pick(DICTIONARY);
                let c = at(rng, &s);
                s.insert_str(c, &format!(" {piece} "));
            }
            4 => {
                // replace a word
                let words: Vec<(usize, &str)> = s
                    .match_indices(|c: char| c.is_alphanumeric() || c == '_')
                    .collect();
                if !words.is_empty() {
                    let (i, w) = words[rng.below(words.len())];
                    let end = i + w.len();
                    let piece = *rng.pick(DICTIONARY);
                    s.replace_range(i..end, piece);
                }
            }
            5 if !donors.is_empty() => {
                // splice a chunk of another job
                let d = *rng.pick(donors);
                if !d.is_empty() {
                    let a = at(rng, d);
                    let mut b = (a + rng.small(400)).min(d.len());
                    while !d.is_char_boundary(b) {
                        b += 1;
                    }
                    let c = at(rng, &s);
                    s.insert_str(c, &d[a..b]);
                }
            }
            6 if len > 0 => {
                // byte flip, repaired to UTF-8
                let mut bytes = std::mem::take(&mut s).into_bytes();
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
                s = String::from_utf8_lossy(&bytes).into_owned();
            }
            7 => {
                let piece = hostile_text(rng, 3);
                let c = at(rng, &s);
                s.insert_str(c, &piece);
            }
            8 if len > 0 && rng.chance(20) => {
                let a = at(rng, &s);
                s.truncate(a);
            }
            _ => {
                // swap two statements
                let parts: Vec<&str> = s.split_inclusive(';').collect();
                if parts.len() > 2 {
                    let mut owned: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
                    let (i, j) = (rng.below(owned.len()), rng.below(owned.len()));
                    owned.swap(i, j);
                    s = owned.concat();
                }
            }
        }
    }
    s
}

// ---------------------------------------------------------------------------
// Resource shapes
// ---------------------------------------------------------------------------

/// The stress shapes of [`resource`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `((((1))))`
    Parens,
    /// `1 + 1 + 1 + ...` (a left-deep chain without parentheses)
    PlusChain,
    /// `a AND a AND ...`
    AndChain,
    /// `'a' || 'a' || ...`
    ConcatChain,
    /// `- - - - 1`
    UnaryMinus,
    /// `NOT NOT NOT TRUE`
    NotChain,
    /// `CASE WHEN TRUE THEN CASE WHEN ... END END`
    NestedCase,
    /// `ABS(ABS(ABS(1)))`
    NestedCalls,
    /// `CAST(CAST(... AS INT) AS INT)`
    NestedCasts,
    /// `SELECT * FROM (SELECT * FROM (...))`
    NestedSubqueries,
    /// `SELECT 1 UNION ALL SELECT 1 UNION ALL ...`
    UnionChain,
    /// `FROM t JOIN t ON ... JOIN t ON ...`
    JoinChain,
    /// views each selecting from the previous one
    ViewChain,
    /// `x IN (1, 2, 3, ...)`
    LongInList,
    /// `CASE WHEN .. THEN .. WHEN ...` (many branches, flat)
    WideCase,
    /// `COALESCE(a, a, a, ...)` with many arguments
    ManyArgs,
    /// a table with N columns, inserted into a sink with N columns
    WideTable,
    /// N INSERT statements into N sinks
    ManyInserts,
    /// `SELECT a, a, a, ...` N items
    ManySelectItems,
    /// `VALUES (1), (2), ...` N rows
    ManyValuesRows,
    /// `WITH` option list with N options
    ManyOptions,
    /// an identifier of N characters
    LongIdentifier,
    /// a string literal of N characters
    LongString,
    /// a numeric literal of N digits
    LongNumber,
    /// N nested comments-ish noise: `/* */` runs and `--` lines
    Comments,
    /// `((((((` without closing
    UnclosedParens,
    /// `CASE WHEN` chains nested inside arithmetic inside function calls
    MixedNesting,
    /// a 10 MB file of repeated valid statements
    BigFile,
}

pub const SHAPES: &[Shape] = &[
    Shape::Parens,
    Shape::PlusChain,
    Shape::AndChain,
    Shape::ConcatChain,
    Shape::UnaryMinus,
    Shape::NotChain,
    Shape::NestedCase,
    Shape::NestedCalls,
    Shape::NestedCasts,
    Shape::NestedSubqueries,
    Shape::UnionChain,
    Shape::JoinChain,
    Shape::ViewChain,
    Shape::LongInList,
    Shape::WideCase,
    Shape::ManyArgs,
    Shape::WideTable,
    Shape::ManyInserts,
    Shape::ManySelectItems,
    Shape::ManyValuesRows,
    Shape::ManyOptions,
    Shape::LongIdentifier,
    Shape::LongString,
    Shape::LongNumber,
    Shape::Comments,
    Shape::UnclosedParens,
    Shape::MixedNesting,
    Shape::BigFile,
];

const PRELUDE: &str = "CREATE TABLE t (a INT, b STRING, c BOOLEAN, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '10');\n";

fn sink(cols: &str) -> String {
    format!("CREATE TABLE s ({cols}) WITH ('connector' = 'blackhole');\n")
}

/// A job of the given shape and size `n`.
pub fn resource(shape: Shape, n: usize) -> String {
    let mut out = String::from(PRELUDE);
    let rep = |s: &str, k: usize| s.repeat(k);
    match shape {
        Shape::Parens => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT {}a{} FROM t;",
                rep("(", n),
                rep(")", n)
            );
        }
        Shape::PlusChain => {
            out += &sink("x INT");
            let _ = write!(out, "INSERT INTO s SELECT a{} FROM t;", rep(" + a", n));
        }
        Shape::AndChain => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT a FROM t WHERE c{};",
                rep(" AND c", n)
            );
        }
        Shape::ConcatChain => {
            out += &sink("x STRING");
            let _ = write!(out, "INSERT INTO s SELECT b{} FROM t;", rep(" || b", n));
        }
        Shape::UnaryMinus => {
            out += &sink("x INT");
            let _ = write!(out, "INSERT INTO s SELECT {}a FROM t;", rep("- ", n));
        }
        Shape::NotChain => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT a FROM t WHERE {}c;",
                rep("NOT ", n)
            );
        }
        Shape::NestedCase => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT {}a{} FROM t;",
                rep("CASE WHEN c THEN ", n),
                rep(" ELSE 0 END", n)
            );
        }
        Shape::NestedCalls => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT {}a{} FROM t;",
                rep("ABS(", n),
                rep(")", n)
            );
        }
        Shape::NestedCasts => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT {}a{} FROM t;",
                rep("CAST(", n),
                rep(" AS INT)", n)
            );
        }
        Shape::NestedSubqueries => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT a FROM {}t{};",
                rep("(SELECT a FROM ", n),
                rep(")", n)
            );
        }
        Shape::UnionChain => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT a FROM t{};",
                rep(" UNION ALL SELECT a FROM t", n)
            );
        }
        Shape::JoinChain => {
            out += &sink("x INT");
            let mut q = String::from("INSERT INTO s SELECT t0.a FROM t AS t0");
            for i in 1..=n {
                let _ = write!(q, " JOIN t AS t{i} ON t{}.a = t{i}.a", i - 1);
            }
            out += &q;
            out.push(';');
        }
        Shape::ViewChain => {
            out += &sink("x INT");
            out += "CREATE VIEW v0 AS SELECT a FROM t;\n";
            for i in 1..=n {
                let _ = writeln!(out, "CREATE VIEW v{i} AS SELECT a FROM v{};", i - 1);
            }
            let _ = write!(out, "INSERT INTO s SELECT a FROM v{n};");
        }
        Shape::LongInList => {
            out += &sink("x INT");
            let items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            let _ = write!(
                out,
                "INSERT INTO s SELECT a FROM t WHERE a IN ({});",
                items.join(", ")
            );
        }
        Shape::WideCase => {
            out += &sink("x INT");
            let mut q = String::from("INSERT INTO s SELECT CASE");
            for i in 0..n {
                let _ = write!(q, " WHEN a = {i} THEN {i}");
            }
            q += " ELSE 0 END FROM t;";
            out += &q;
        }
        Shape::ManyArgs => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT COALESCE(a{}) FROM t;",
                rep(", a", n)
            );
        }
        Shape::WideTable => {
            let cols: Vec<String> = (0..n).map(|i| format!("c{i} INT")).collect();
            let _ = writeln!(
                out,
                "CREATE TABLE w ({}) WITH ('connector' = 'datagen', 'number-of-rows' = '1');",
                cols.join(", ")
            );
            let _ = writeln!(
                out,
                "CREATE TABLE ws ({}) WITH ('connector' = 'blackhole');",
                cols.join(", ")
            );
            let names: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
            let _ = write!(out, "INSERT INTO ws SELECT {} FROM w;", names.join(", "));
        }
        Shape::ManyInserts => {
            for i in 0..n {
                let _ = writeln!(
                    out,
                    "CREATE TABLE s{i} (x INT) WITH ('connector' = 'blackhole');"
                );
            }
            out += "EXECUTE STATEMENT SET BEGIN\n";
            for i in 0..n {
                let _ = writeln!(out, "INSERT INTO s{i} SELECT a + {i} FROM t;");
            }
            out += "END;";
        }
        Shape::ManySelectItems => {
            let cols: Vec<String> = (0..n).map(|i| format!("x{i} INT")).collect();
            out += &sink(&cols.join(", "));
            let _ = write!(
                out,
                "INSERT INTO s SELECT a{} FROM t;",
                rep(", a", n.saturating_sub(1))
            );
        }
        Shape::ManyValuesRows => {
            out += &sink("x INT");
            let rows: Vec<String> = (0..n).map(|i| format!("({i})")).collect();
            let _ = write!(out, "INSERT INTO s VALUES {};", rows.join(", "));
        }
        Shape::ManyOptions => {
            let opts: Vec<String> = (0..n).map(|i| format!("'fields.a.x{i}' = '{i}'")).collect();
            let _ = writeln!(
                out,
                "CREATE TABLE s (x INT) WITH ('connector' = 'blackhole', {});",
                opts.join(", ")
            );
            out += "INSERT INTO s SELECT a FROM t;";
        }
        Shape::LongIdentifier => {
            let name = "n".repeat(n);
            let _ = writeln!(
                out,
                "CREATE TABLE `{name}` (`{name}` INT) WITH ('connector' = 'blackhole');"
            );
            let _ = write!(out, "INSERT INTO `{name}` SELECT a AS `{name}` FROM t;");
        }
        Shape::LongString => {
            out += &sink("x STRING");
            let _ = write!(out, "INSERT INTO s SELECT '{}' FROM t;", "s".repeat(n));
        }
        Shape::LongNumber => {
            out += &sink("x INT");
            let _ = write!(out, "INSERT INTO s SELECT {} FROM t;", "9".repeat(n));
        }
        Shape::Comments => {
            out += &sink("x INT");
            for _ in 0..n {
                out += "/* c */ -- c\n";
            }
            out += "INSERT INTO s SELECT a FROM t;";
        }
        Shape::UnclosedParens => {
            out += &sink("x INT");
            let _ = write!(out, "INSERT INTO s SELECT {}a FROM t;", rep("(", n));
        }
        Shape::MixedNesting => {
            out += &sink("x INT");
            let _ = write!(
                out,
                "INSERT INTO s SELECT {}a{} FROM t;",
                rep("ABS(1 + CASE WHEN c THEN (", n),
                rep(") ELSE 0 END)", n)
            );
        }
        Shape::BigFile => {
            out += &sink("x INT");
            let stmt = "INSERT INTO s SELECT a + 1 FROM t WHERE b <> 'some longer text to fill the file';\n";
            while out.len() < n {
                out += stmt;
            }
        }
    }
    out
}
