//! The Flink SQL dialect for sqlparser: backtick identifiers, window-TVF
//! table arguments and Flink's timestamp type spellings.

use sqlparser::ast::{
    BinaryOperator, DataType, Expr, Ident, ObjectName, TimezoneInfo, TypeModifier, UnaryOperator,
};
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

    /// `x [NOT] BETWEEN SYMMETRIC a AND b` and `x [NOT] BETWEEN ASYMMETRIC a AND b`,
    /// which sqlparser does not know. ASYMMETRIC is plain BETWEEN; SYMMETRIC is
    /// expanded as Calcite's convertlet expands it:
    /// `(x BETWEEN a AND b) OR (x BETWEEN b AND a)`, negated as a whole for NOT.
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        _precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        let keyword = |n: usize| match &parser.peek_nth_token_ref(n).token {
            Token::Word(w) => Some(w.keyword),
            _ => None,
        };
        let negated = keyword(0) == Some(Keyword::NOT);
        let at = usize::from(negated);
        if keyword(at) != Some(Keyword::BETWEEN) {
            return None;
        }
        let symmetric = match keyword(at + 1) {
            Some(Keyword::SYMMETRIC) => true,
            Some(Keyword::ASYMMETRIC) => false,
            _ => return None,
        };
        for _ in 0..at + 2 {
            parser.next_token();
        }
        Some(parse_between_flagged(parser, expr, negated, symmetric))
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

/// The rest of `x [NOT] BETWEEN [A]SYMMETRIC`, from the low bound on.
fn parse_between_flagged(
    parser: &mut Parser,
    expr: &Expr,
    negated: bool,
    symmetric: bool,
) -> Result<Expr, ParserError> {
    if !symmetric {
        return parser.parse_between(expr.clone(), negated);
    }
    let (low, high) = match parser.parse_between(expr.clone(), false)? {
        Expr::Between { low, high, .. } => (low, high),
        other => return Ok(other),
    };
    let between = |low: &Expr, high: &Expr| {
        Expr::Nested(Box::new(Expr::Between {
            expr: Box::new(expr.clone()),
            negated: false,
            low: Box::new(low.clone()),
            high: Box::new(high.clone()),
        }))
    };
    let either = Expr::BinaryOp {
        left: Box::new(between(&low, &high)),
        op: BinaryOperator::Or,
        right: Box::new(between(&high, &low)),
    };
    Ok(if negated {
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr: Box::new(Expr::Nested(Box::new(either))),
        }
    } else {
        Expr::Nested(Box::new(either))
    })
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
