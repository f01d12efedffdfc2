//! The Flink SQL dialect for sqlparser: backtick identifiers, window-TVF
//! table arguments and Flink's timestamp type spellings.

use sqlparser::ast::{DataType, Expr, Ident, ObjectName, TimezoneInfo, TypeModifier};
use sqlparser::dialect::Dialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Marks `TABLE name` inside a table function's arguments
/// (`TUMBLE(TABLE orders, ...)`): sqlparser has no node for it, so it comes
/// back as `Expr::Prefixed { prefix: TABLE, value: name }`.
pub const TABLE_ARGUMENT_PREFIX: &str = "TABLE";
/// How `TIMESTAMP_LTZ(p)` / `TIMESTAMP(p) WITH LOCAL TIME ZONE` comes back.
pub const TIMESTAMP_LTZ: &str = "TIMESTAMP_LTZ";

#[derive(Debug, Default, Clone, Copy)]
pub struct FlinkDialect;

impl Dialect for FlinkDialect {
    fn is_identifier_start(&self, ch: char) -> bool {
        ch.is_alphabetic() || ch == '_'
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        ch.is_alphanumeric() || ch == '_' || ch == '$'
    }

    /// Flink quotes identifiers with backticks only; `"x"` is not valid Flink SQL.
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        ch == '`'
    }

    fn supports_filter_during_aggregation(&self) -> bool {
        true
    }

    /// `GROUP BY ROLLUP(...)`, `CUBE(...)`, `GROUPING SETS (...)`, `()`.
    fn supports_group_by_expr(&self) -> bool {
        true
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let is_table_word = matches!(
            &parser.peek_token_ref().token,
            Token::Word(w) if w.keyword == Keyword::TABLE
        );
        if !is_table_word || !matches!(parser.peek_nth_token_ref(1).token, Token::Word(_)) {
            return None;
        }
        let prefix_token = parser.next_token();
        Some(parser.parse_object_name(false).map(|name| {
            let mut parts: Vec<Ident> = name
                .0
                .into_iter()
                .filter_map(|p| p.as_ident().cloned())
                .collect();
            let value = if parts.len() == 1 {
                Expr::Identifier(parts.remove(0))
            } else {
                Expr::CompoundIdentifier(parts)
            };
            Expr::Prefixed {
                prefix: Ident::with_span(prefix_token.span, TABLE_ARGUMENT_PREFIX),
                value: Box::new(value),
            }
        }))
    }

    fn parse_data_type(&self, parser: &mut Parser) -> Option<Result<DataType, ParserError>> {
        let word = match &parser.peek_token_ref().token {
            Token::Word(w) => w.value.to_ascii_uppercase(),
            _ => return None,
        };
        if word != "TIMESTAMP" && word != TIMESTAMP_LTZ {
            return None;
        }
        parser.next_token();
        Some(parse_timestamp_rest(parser, word == TIMESTAMP_LTZ))
    }
}

/// After `TIMESTAMP` or `TIMESTAMP_LTZ`: `[(p)] [WITH LOCAL TIME ZONE | WITHOUT TIME ZONE]`.
fn parse_timestamp_rest(parser: &mut Parser, ltz: bool) -> Result<DataType, ParserError> {
    let precision = if parser.consume_token(&Token::LParen) {
        let p = parser.parse_literal_uint()?;
        parser.expect_token(&Token::RParen)?;
        Some(p)
    } else {
        None
    };
    let ltz = ltz
        || (parser.parse_keywords(&[Keyword::WITH, Keyword::LOCAL, Keyword::TIME, Keyword::ZONE]));
    if ltz {
        let modifiers = precision
            .map(|p| vec![TypeModifier::Number(p.to_string(), false)])
            .unwrap_or_default();
        return Ok(DataType::Custom(
            ObjectName::from(vec![Ident::new(TIMESTAMP_LTZ)]),
            modifiers,
        ));
    }
    let tz = if parser.parse_keywords(&[Keyword::WITHOUT, Keyword::TIME, Keyword::ZONE]) {
        TimezoneInfo::WithoutTimeZone
    } else if parser.parse_keywords(&[Keyword::WITH, Keyword::TIME, Keyword::ZONE]) {
        TimezoneInfo::WithTimeZone
    } else {
        TimezoneInfo::None
    };
    Ok(DataType::Timestamp(precision, tz))
}
