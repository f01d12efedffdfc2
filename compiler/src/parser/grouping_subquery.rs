//! A bare parenthesised subquery as an element of `ROLLUP`, `CUBE` or
//! `GROUPING SETS` (`GROUP BY CUBE(a, (SELECT MIN(b) FROM r))`), which Flink
//! accepts: sqlparser reads each element there as a parenthesised list of
//! expressions (`ROLLUP((a, b), c)`), so `(SELECT` starts a list whose first
//! expression cannot be `SELECT`. Before the tokens reach sqlparser, such an
//! element gets one more pair of parentheses around it, `((SELECT ...))`:
//! a list of one expression, the subquery, which is what the element means
//! (a grouping unit of one key). The added tokens carry the spans of the
//! parentheses they double, so every location stays a real one.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The tokens, with each bare subquery element of a ROLLUP / CUBE /
/// GROUPING SETS list wrapped in parentheses.
pub(super) fn wrap_subquery_elements(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    // (index of an element's `(`, index of its matching `)`)
    let mut wraps: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if let Some(open) = grouping_list_open(&tokens, i) {
            // A list left open ends with its statement (sqlparser then
            // reports the missing `)` there).
            let close = matching_paren(&tokens, open).unwrap_or_else(|| {
                (open..tokens.len())
                    .find(|&k| tokens[k].token == Token::SemiColon)
                    .unwrap_or(tokens.len())
            });
            let mut at = open + 1;
            while at < close {
                let start = next_significant(&tokens, at);
                if start >= close {
                    break;
                }
                let end = element_end(&tokens, start, close);
                if tokens[start].token == Token::LParen && starts_query(&tokens, start + 1) {
                    let last = (start..end)
                        .rev()
                        .find(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))
                        .unwrap_or(start);
                    wraps.push((start, last));
                }
                at = end + 1;
            }
        }
        i += 1;
    }
    if wraps.is_empty() {
        return tokens;
    }
    let opens: Vec<usize> = wraps.iter().map(|w| w.0).collect();
    let closes: Vec<usize> = wraps.iter().map(|w| w.1).collect();
    let mut out = Vec::with_capacity(tokens.len() + 2 * wraps.len());
    for (k, t) in tokens.into_iter().enumerate() {
        for _ in opens.iter().filter(|&&o| o == k) {
            out.push(TokenWithSpan::new(Token::LParen, t.span));
        }
        let span = t.span;
        out.push(t);
        for _ in closes.iter().filter(|&&c| c == k) {
            out.push(TokenWithSpan::new(Token::RParen, span));
        }
    }
    out
}

/// The index of the `(` that opens a ROLLUP / CUBE / GROUPING SETS list
/// when the keyword starts at `i`.
fn grouping_list_open(tokens: &[TokenWithSpan], i: usize) -> Option<usize> {
    let keyword = |k: usize| match tokens.get(k).map(|t| &t.token) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.keyword),
        _ => None,
    };
    let after = match keyword(i)? {
        Keyword::ROLLUP | Keyword::CUBE => next_significant(tokens, i + 1),
        Keyword::GROUPING => {
            let sets = next_significant(tokens, i + 1);
            if keyword(sets) != Some(Keyword::SETS) {
                return None;
            }
            next_significant(tokens, sets + 1)
        }
        _ => return None,
    };
    (tokens.get(after)?.token == Token::LParen).then_some(after)
}

/// Whether a query starts at the first significant token from `i`.
fn starts_query(tokens: &[TokenWithSpan], i: usize) -> bool {
    matches!(
        tokens.get(next_significant(tokens, i)).map(|t| &t.token),
        Some(Token::Word(w)) if w.quote_style.is_none()
            && matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES)
    )
}

/// The index of the `,` or `)` that ends the list element starting at
/// `start` (at most `close`, the list's `)`).
fn element_end(tokens: &[TokenWithSpan], start: usize, close: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().take(close).skip(start) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => return k,
            _ => {}
        }
    }
    close
}

/// The `)` matching the `(` at `open`.
fn matching_paren(tokens: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            // A statement ends: the list is unbalanced, sqlparser reports it.
            Token::SemiColon => return None,
            _ => {}
        }
    }
    None
}

/// The first token from `i` on that is not whitespace (or `tokens.len()`).
pub(super) fn next_significant(tokens: &[TokenWithSpan], i: usize) -> usize {
    (i..tokens.len())
        .find(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))
        .unwrap_or(tokens.len())
}
