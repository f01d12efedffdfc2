//! Connector descriptors: the `WITH (...)` options of a table, checked the way
//! Flink's factories check them — a known connector, its required options
//! present, every value well-formed, and no unknown key (with a did-you-mean).
//!
//! Options that Flink knows but that change nothing for a bounded batch job
//! on one machine (rolling policies, parallelism hints) are accepted and
//! ignored; options Flink knows whose behaviour stmtc does not implement are
//! errors, never silently ignored.

use std::collections::BTreeMap;

use super::Binder;
use crate::diagnostics::{did_you_mean, Diagnostic};
use crate::ir::{Column, Connector, ConnectorKind, Format};
use crate::parser::ast::{CreateTable, TableOption};
use crate::types::{DataType, TypeKind};

/// How an option's value must look.
#[derive(Clone, Copy)]
enum Value {
    Any,
    Boolean,
    /// A positive or zero integer.
    Count,
    /// A single character (after Java-style unescaping, as Flink does).
    Char,
    OneOf(&'static [&'static str]),
    /// A duration like `10 s`, `1min`, `100ms`.
    Duration,
    /// A memory size like `128MB`.
    MemorySize,
}

struct OptionSpec {
    key: &'static str,
    value: Value,
    /// False: Flink has it, stmtc does not implement it (an error if used).
    supported: bool,
}

const fn opt(key: &'static str, value: Value) -> OptionSpec {
    OptionSpec {
        key,
        value,
        supported: true,
    }
}

const fn not_yet(key: &'static str) -> OptionSpec {
    OptionSpec {
        key,
        value: Value::Any,
        supported: false,
    }
}

const FILESYSTEM: &[OptionSpec] = &[
    opt("connector", Value::Any),
    opt("path", Value::Any),
    opt("format", Value::Any),
    opt("sink.rolling-policy.file-size", Value::MemorySize),
    opt("sink.rolling-policy.rollover-interval", Value::Duration),
    opt("sink.rolling-policy.check-interval", Value::Duration),
    opt("sink.rolling-policy.inactivity-interval", Value::Duration),
    opt("sink.parallelism", Value::Count),
    opt("source.parallelism", Value::Count),
    not_yet("source.monitor-interval"),
    not_yet("source.path.regex-pattern"),
    not_yet("partition.default-name"),
    not_yet("auto-compaction"),
    not_yet("compaction.file-size"),
    not_yet("sink.shuffle-by-partition.enable"),
    not_yet("sink.partition-commit.trigger"),
    not_yet("sink.partition-commit.delay"),
    not_yet("sink.partition-commit.policy.kind"),
];

const CSV: &[OptionSpec] = &[
    opt("csv.field-delimiter", Value::Char),
    opt("csv.disable-quote-character", Value::Boolean),
    opt("csv.quote-character", Value::Char),
    opt("csv.allow-comments", Value::Boolean),
    opt("csv.ignore-parse-errors", Value::Boolean),
    opt("csv.escape-character", Value::Char),
    opt("csv.null-literal", Value::Any),
    not_yet("csv.array-element-delimiter"),
    not_yet("csv.write-bigdecimal-in-scientific-notation"),
];

const JSON: &[OptionSpec] = &[
    opt("json.fail-on-missing-field", Value::Boolean),
    opt("json.ignore-parse-errors", Value::Boolean),
    opt(
        "json.timestamp-format.standard",
        Value::OneOf(&["SQL", "ISO-8601"]),
    ),
    opt("json.encode.decimal-as-plain-number", Value::Boolean),
    not_yet("json.map-null-key.mode"),
    not_yet("json.map-null-key.literal"),
    not_yet("json.encode.ignore-null-fields"),
    not_yet("json.decode.json-parser.enabled"),
];

const DATAGEN: &[OptionSpec] = &[
    opt("connector", Value::Any),
    opt("number-of-rows", Value::Count),
    opt("rows-per-second", Value::Count),
    opt("scan.parallelism", Value::Count),
];

const DATAGEN_FIELD: &[OptionSpec] = &[
    opt("kind", Value::OneOf(&["random", "sequence"])),
    opt("min", Value::Any),
    opt("max", Value::Any),
    opt("max-past", Value::Duration),
    opt("length", Value::Count),
    opt("start", Value::Any),
    opt("end", Value::Any),
    opt("null-rate", Value::Any),
    opt("var-len", Value::Boolean),
];

const PRINT: &[OptionSpec] = &[
    opt("connector", Value::Any),
    opt("print-identifier", Value::Any),
    opt("standard-error", Value::Boolean),
    opt("sink.parallelism", Value::Count),
];

const BLACKHOLE: &[OptionSpec] = &[opt("connector", Value::Any)];

const SUPPORTED_CONNECTORS: &[&str] = &["filesystem", "datagen", "print", "blackhole"];
/// Flink connectors that stmtc knows of but does not implement.
const FLINK_CONNECTORS: &[&str] = &[
    "kafka",
    "upsert-kafka",
    "jdbc",
    "elasticsearch-6",
    "elasticsearch-7",
    "hbase-1.4",
    "hbase-2.2",
    "hive",
    "kinesis",
    "firehose",
    "pulsar",
    "mongodb",
    "opensearch",
    "dynamodb",
];
const FORMATS: &[&str] = &["csv", "json"];
const FLINK_FORMATS: &[&str] = &[
    "avro",
    "avro-confluent",
    "parquet",
    "orc",
    "raw",
    "debezium-json",
    "debezium-avro-confluent",
    "canal-json",
    "maxwell-json",
    "ogg-json",
    "protobuf",
];

/// Validates the descriptor of `table`; `None` if it is unusable.
pub(super) fn validate(
    binder: &mut Binder<'_>,
    table: &CreateTable,
    columns: &[Column],
) -> Option<Connector> {
    let mut options: BTreeMap<&str, &TableOption> = BTreeMap::new();
    let mut ok = true;
    for option in &table.options {
        if let Some(first) = options.insert(&option.key, option) {
            binder.error(
                Diagnostic::error(
                    option.key_span,
                    format!("option '{}' is set twice", option.key),
                )
                .with_related(first.key_span, "first set here"),
            );
            ok = false;
        }
    }
    let Some(connector) = options.get("connector") else {
        let span = if table.options.is_empty() {
            table.name.span
        } else {
            table.with_span
        };
        binder.error(
            Diagnostic::error(span, format!("table `{}` has no 'connector' option", table.name.value))
                .with_help("add WITH ('connector' = 'filesystem', 'path' = '...', 'format' = 'csv'), or 'datagen', 'print', 'blackhole'"),
        );
        return None;
    };
    let mut specs: Vec<&OptionSpec> = Vec::new();
    let kind_name = connector.value.as_str();
    match kind_name {
        "filesystem" => specs.extend(FILESYSTEM),
        "datagen" => specs.extend(DATAGEN),
        "print" => specs.extend(PRINT),
        "blackhole" => specs.extend(BLACKHOLE),
        other => {
            let mut d = if FLINK_CONNECTORS.contains(&other) {
                Diagnostic::error(
                    connector.value_span,
                    format!("the '{other}' connector is not supported by stmtc"),
                )
            } else {
                Diagnostic::error(connector.value_span, format!("unknown connector '{other}'"))
            };
            d = d.with_note(format!(
                "stmtc supports: {}",
                SUPPORTED_CONNECTORS.join(", ")
            ));
            if let Some(s) = did_you_mean(other, SUPPORTED_CONNECTORS.iter().copied()) {
                d = d.with_help(format!("did you mean '{s}'?"));
            }
            binder.error(d);
            return None;
        }
    }

    let mut format = None;
    if kind_name == "filesystem" {
        for required in ["path", "format"] {
            if !options.contains_key(required) {
                binder.error(
                    Diagnostic::error(
                        table.with_span,
                        format!(
                            "the filesystem table `{}` needs the option '{required}'",
                            table.name.value
                        ),
                    )
                    .with_help(match required {
                        "path" => "add 'path' = 'data/file.csv' (a file or a directory)",
                        _ => "add 'format' = 'csv' or 'format' = 'json'",
                    }),
                );
                ok = false;
            }
        }
        if let Some(f) = options.get("format") {
            match f.value.as_str() {
                "csv" => {
                    specs.extend(CSV);
                    format = Some(Format::Csv);
                }
                "json" => {
                    specs.extend(JSON);
                    format = Some(Format::Json);
                }
                other => {
                    let mut d = if FLINK_FORMATS.contains(&other) {
                        Diagnostic::error(
                            f.value_span,
                            format!("the '{other}' format is not supported by stmtc"),
                        )
                    } else {
                        Diagnostic::error(f.value_span, format!("unknown format '{other}'"))
                    };
                    d = d.with_note(format!("stmtc supports: {}", FORMATS.join(", ")));
                    if let Some(s) = did_you_mean(other, FORMATS.iter().copied()) {
                        d = d.with_help(format!("did you mean '{s}'?"));
                    }
                    binder.error(d);
                    ok = false;
                }
            }
        }
    }

    if kind_name == "datagen" {
        // A sequence field needs both ends (Flink checks this when it
        // creates the source).
        for option in table.options.iter().filter(|o| {
            o.key.starts_with("fields.") && o.key.ends_with(".kind") && o.value == "sequence"
        }) {
            let prefix = &option.key[..option.key.len() - "kind".len()];
            for end in ["start", "end"] {
                let key = format!("{prefix}{end}");
                if !options.contains_key(key.as_str()) {
                    binder.error(Diagnostic::error(
                        option.value_span,
                        format!("Could not find required property '{key}' for sequence generator."),
                    ));
                    ok = false;
                }
            }
        }
    }

    for option in &table.options {
        let key = option.key.as_str();
        let spec = if kind_name == "datagen" && key.starts_with("fields.") {
            match datagen_field(key, columns, &options) {
                Ok(spec) => Some(spec),
                Err(message) => {
                    binder.error(Diagnostic::error(option.key_span, message));
                    ok = false;
                    continue;
                }
            }
        } else {
            specs.iter().copied().find(|s| s.key == key)
        };
        let Some(spec) = spec else {
            let mut d = Diagnostic::error(
                option.key_span,
                format!("unknown option '{key}' for the {kind_name} connector"),
            );
            if kind_name == "datagen" && key == "seed" {
                d = d.with_note("Flink's datagen has no 'seed' option, so Flink refuses the table")
                    .with_help("to make random fields reproducible, run the job binary with `--set <table>.seed=N`");
            } else if let Some(s) = did_you_mean(key, specs.iter().map(|s| s.key)) {
                d = d.with_help(format!("did you mean '{s}'?"));
            } else if format.is_none() && (key.starts_with("csv.") || key.starts_with("json.")) {
                d = d.with_note("format options need the matching 'format'");
            }
            binder.error(d);
            ok = false;
            continue;
        };
        if !spec.supported {
            binder.error(Diagnostic::error(
                option.key_span,
                format!("the option '{key}' is not supported by stmtc yet"),
            ));
            ok = false;
            continue;
        }
        if let Err(message) = check_value(spec.value, &option.value) {
            binder.error(Diagnostic::error(
                option.value_span,
                format!(
                    "invalid value '{}' for option '{key}': {message}",
                    option.value
                ),
            ));
            ok = false;
        }
    }
    if let Some(q) = options.get("csv.quote-character") {
        if options
            .get("csv.disable-quote-character")
            .is_some_and(|d| d.value.eq_ignore_ascii_case("true"))
        {
            binder.error(Diagnostic::error(
                q.key_span,
                "'csv.quote-character' cannot be set when 'csv.disable-quote-character' is true",
            ));
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    let kind = match kind_name {
        "filesystem" => ConnectorKind::Filesystem {
            path: options.get("path")?.value.clone(),
            format: format?,
        },
        "datagen" => ConnectorKind::Datagen,
        "print" => ConnectorKind::Print,
        _ => ConnectorKind::Blackhole,
    };
    Some(Connector {
        kind,
        options: table
            .options
            .iter()
            .map(|o| (o.key.clone(), o.value.clone()))
            .collect(),
    })
}

/// `fields.<column>.<option>` of the datagen connector: the column must be
/// physical and the option one Flink 2.3's datagen accepts for the column's
/// type and the field's kind (`random`, the default, or `sequence`).
fn datagen_field(
    key: &str,
    columns: &[Column],
    options: &BTreeMap<&str, &TableOption>,
) -> Result<&'static OptionSpec, String> {
    let rest = &key["fields.".len()..];
    let Some((column, option)) = rest.rsplit_once('.') else {
        return Err(format!("'{key}' should be 'fields.<column>.<option>'"));
    };
    let Some(col) = columns
        .iter()
        .find(|c| c.name == column && c.computed.is_none())
    else {
        let mut message = format!("'{key}' names no physical column `{column}`");
        if let Some(s) = did_you_mean(column, columns.iter().map(|c| c.name.as_str())) {
            message += &format!("; did you mean `{s}`?");
        }
        return Err(message);
    };
    let spec = DATAGEN_FIELD
        .iter()
        .find(|s| s.key == option)
        .ok_or_else(|| {
            let mut message = format!("unknown datagen field option '{option}' in '{key}'");
            if let Some(s) = did_you_mean(option, DATAGEN_FIELD.iter().map(|s| s.key)) {
                message += &format!("; did you mean '{s}'?");
            }
            message
        })?;
    if option == "kind" {
        return Ok(spec);
    }
    let kind = options
        .get(format!("fields.{column}.kind").as_str())
        .map_or("random", |o| o.value.as_str());
    datagen_option_allowed(&col.ty, kind, option, key)?;
    let value = options.get(key).map_or("", |o| o.value.as_str());
    datagen_number(&col.ty.kind, kind, option, value).map(|()| spec)
}

/// The numbers of datagen's field options, read as Flink reads them (Java's
/// `Long.parseLong` for sequence bounds and integer `min`/`max`,
/// `Double.parseDouble` for the others), with Java's error text.
fn datagen_number(ty: &TypeKind, kind: &str, option: &str, value: &str) -> Result<(), String> {
    let long = |v: &str| v.parse::<i64>().is_ok();
    let double = |v: &str| {
        let t = v.trim_matches(|c: char| c <= ' ');
        let t = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
        // Java spells the specials `NaN` and `Infinity` (signed or not) and
        // nothing else; Rust also reads `inf`, `infinity` and `nan`.
        let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
        if unsigned
            .bytes()
            .any(|b| b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E'))
        {
            return unsigned == "Infinity" || unsigned == "NaN";
        }
        t.parse::<f64>().is_ok()
    };
    let ok = match (kind, option) {
        ("sequence", "start" | "end") => long(value),
        (_, "min" | "max") if ty.is_integer() => long(value),
        (_, "min" | "max") => double(value),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("For input string: \"{value}\" (Flink's datagen reads '{option}' of this field as a Java {})",
            if kind == "sequence" || ty.is_integer() { "long" } else { "double" }))
    }
}

/// Flink 2.3's datagen rules (observed; `docs/sql-reference/connectors.md`):
/// which per-field options each type takes under each kind. Its errors are
/// Flink's (`Unsupported options found for 'datagen'.` names the option).
fn datagen_option_allowed(
    data_type: &DataType,
    kind: &str,
    option: &str,
    key: &str,
) -> Result<(), String> {
    use TypeKind as T;
    let ty = &data_type.kind;
    let numeric = matches!(
        ty,
        T::TinyInt | T::SmallInt | T::Int | T::BigInt | T::Float | T::Double | T::Decimal { .. }
    );
    let variable = matches!(ty, T::Varchar(_) | T::Varbinary(_));
    if option == "var-len" && !variable {
        return Err(
            "Only supports specifying 'fields.#.var-len' option for variable-length types \
                    (VARCHAR/STRING/VARBINARY/BYTES)."
                .to_string(),
        );
    }
    if kind == "sequence" && matches!(ty, T::Timestamp(_) | T::TimestampLtz(_)) {
        return Err(format!(
            "Unsupported type: {} (the datagen connector has no sequence of this type)",
            data_type
        ));
    }
    let allowed: &[&str] = match (kind, ty) {
        ("sequence", T::Boolean | T::Date | T::Time(_)) => &[],
        ("sequence", _) => &["start", "end"],
        (_, T::Boolean) => &["null-rate"],
        (_, T::Char(_)) if option == "length" => {
            return Err(
                "Custom length for fixed-length type (CHAR/BINARY) is not supported.".into(),
            )
        }
        (_, T::Char(_) | T::Binary(_)) => &["null-rate"],
        (_, T::Varchar(_)) => &["length", "var-len", "null-rate"],
        (_, T::Varbinary(_)) => &["length", "var-len"],
        (_, T::Date | T::Time(_)) => &[],
        (_, T::Timestamp(_) | T::TimestampLtz(_)) => &["max-past", "null-rate"],
        _ if numeric => &["min", "max", "null-rate"],
        _ => &["null-rate"],
    };
    if allowed.contains(&option) {
        Ok(())
    } else {
        Err(format!(
            "Unsupported options found for 'datagen': '{key}' does not apply to a {kind} field \
             of type {}{}",
            data_type,
            if allowed.is_empty() {
                " (it takes no field options)".to_string()
            } else {
                format!(
                    " (it takes {})",
                    allowed
                        .iter()
                        .map(|o| format!("'{o}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ))
    }
}

fn check_value(kind: Value, value: &str) -> Result<(), String> {
    match kind {
        Value::Any => Ok(()),
        Value::Boolean => {
            if value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false") {
                Ok(())
            } else {
                Err("expected 'true' or 'false'".to_string())
            }
        }
        Value::Count => value
            .trim()
            .parse::<u64>()
            .map(|_| ())
            .map_err(|_| "expected a non-negative integer".to_string()),
        Value::Char => match unescape_java(value) {
            Some(s) if s.chars().count() == 1 => Ok(()),
            _ => Err("expected a single character".to_string()),
        },
        Value::OneOf(values) => {
            if values.iter().any(|v| v.eq_ignore_ascii_case(value)) {
                Ok(())
            } else {
                Err(format!("expected one of {}", values.join(", ")))
            }
        }
        Value::Duration => parse_duration_millis(value)
            .map(|_| ())
            .ok_or_else(|| "expected a duration such as '10 s', '1 min' or '500 ms'".to_string()),
        Value::MemorySize => {
            let digits: String = value
                .trim()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let unit = value.trim()[digits.len()..].trim().to_ascii_lowercase();
            let units = [
                "",
                "b",
                "bytes",
                "k",
                "kb",
                "kibibytes",
                "m",
                "mb",
                "mebibytes",
                "g",
                "gb",
                "gibibytes",
                "t",
                "tb",
                "tebibytes",
            ];
            if !digits.is_empty() && units.contains(&unit.as_str()) {
                Ok(())
            } else {
                Err("expected a memory size such as '128MB'".to_string())
            }
        }
    }
}

/// Flink's duration syntax: a number with an optional unit (default ms).
pub(crate) fn parse_duration_millis(value: &str) -> Option<u64> {
    let value = value.trim();
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    let n: u64 = digits.parse().ok()?;
    let unit = value[digits.len()..].trim().to_ascii_lowercase();
    let factor = match unit.as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000,
        "min" | "m" | "minute" | "minutes" => 60_000,
        "h" | "hour" | "hours" => 3_600_000,
        "d" | "day" | "days" => 86_400_000,
        _ => return None,
    };
    n.checked_mul(factor)
}

/// Java-style unescaping (`\t`, `\n`, `\\`, `\uXXXX`), as Flink applies to
/// delimiter options.
pub(crate) fn unescape_java(value: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            't' => out.push('\t'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}
