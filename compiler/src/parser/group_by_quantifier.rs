//! `GROUP BY ALL k` and `GROUP BY DISTINCT ROLLUP(a, b), ROLLUP(a)`: the
//! set quantifier of SQL's GROUP BY, which Flink 2.3 (Calcite) accepts.
//! `ALL` keeps every grouping set the elements multiply out to (the
//! default); `DISTINCT` keeps each set once. sqlparser reads `GROUP BY ALL`
//! as DuckDB's "group by every non-aggregate column" and `GROUP BY
//! DISTINCT` not at all, so before it sees the tokens the quantifier
//! becomes whitespace, and for `DISTINCT` the location of its SELECT
//! keyword is recorded for the binder (`Script::group_by_distinct`).
//! `GROUP BY ALL` with nothing after it is left alone: Flink refuses it
//! (a parse error), and so does stmtc.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Whitespace};

use super::grouping_subquery::next_significant;

/// The tokens without GROUP BY's set quantifiers, and the locations of the
/// SELECT keywords whose GROUP BY says DISTINCT.
pub(super) fn strip_quantifiers(
    mut tokens: Vec<TokenWithSpan>,
) -> (Vec<TokenWithSpan>, Vec<Location>) {
    let mut distinct = Vec::new();
    // The SELECT keyword last seen at each parenthesis depth.
    let mut selects: Vec<Option<Location>> = vec![None];
    let keyword =
        |t: &TokenWithSpan, k: Keyword| matches!(&t.token, Token::Word(w) if w.keyword == k);
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::LParen => selects.push(None),
            Token::RParen if selects.len() > 1 => {
                selects.pop();
            }
            Token::SemiColon => selects = vec![None],
            _ if keyword(&tokens[i], Keyword::SELECT) => {
                *selects.last_mut().expect("depth 0") = Some(tokens[i].span.start);
            }
            _ if keyword(&tokens[i], Keyword::GROUP) => {
                let by = next_significant(&tokens, i + 1);
                let quantifier = next_significant(&tokens, by + 1);
                let first = next_significant(&tokens, quantifier + 1);
                let is = |at: usize, k: Keyword| at < tokens.len() && keyword(&tokens[at], k);
                let element_follows = first < tokens.len()
                    && !matches!(
                        tokens[first].token,
                        Token::SemiColon | Token::RParen | Token::EOF
                    )
                    && ![
                        Keyword::HAVING,
                        Keyword::ORDER,
                        Keyword::LIMIT,
                        Keyword::WINDOW,
                        Keyword::UNION,
                        Keyword::EXCEPT,
                        Keyword::INTERSECT,
                    ]
                    .iter()
                    .any(|&k| is(first, k));
                if is(by, Keyword::BY)
                    && (is(quantifier, Keyword::ALL) || is(quantifier, Keyword::DISTINCT))
                    && element_follows
                {
                    if is(quantifier, Keyword::DISTINCT) {
                        if let Some(Some(select)) = selects.last() {
                            distinct.push(*select);
                        }
                    }
                    tokens[quantifier].token = Token::Whitespace(Whitespace::Space);
                    i = first;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (tokens, distinct)
}

#[cfg(test)]
mod tests {
    use sqlparser::tokenizer::Tokenizer;

    /// The text after stripping, and the (line, column) of the SELECTs
    /// recorded as DISTINCT.
    fn strip(sql: &str) -> (String, Vec<(u64, u64)>) {
        let tokens = Tokenizer::new(&crate::parser::dialect::FlinkDialect, sql)
            .tokenize_with_location()
            .expect("tokens");
        let (tokens, distinct) = super::strip_quantifiers(tokens);
        let text = tokens.iter().map(|t| t.token.to_string()).collect();
        (text, distinct.iter().map(|l| (l.line, l.column)).collect())
    }

    #[test]
    fn the_quantifier_goes_and_distinct_is_recorded_at_its_select() {
        assert_eq!(
            strip("SELECT k FROM t GROUP BY ALL k"),
            ("SELECT k FROM t GROUP BY   k".to_string(), vec![])
        );
        let (text, distinct) = strip(
            "SELECT (SELECT 1 FROM u GROUP BY DISTINCT w), k FROM t GROUP BY DISTINCT ROLLUP(k)",
        );
        assert_eq!(
            text,
            "SELECT (SELECT 1 FROM u GROUP BY   w), k FROM t GROUP BY   ROLLUP(k)"
        );
        // The inner SELECT (column 9) and the outer one (column 1).
        assert_eq!(distinct, vec![(1, 9), (1, 1)]);
    }

    #[test]
    fn group_by_all_alone_and_other_alls_stay() {
        for sql in [
            "SELECT COUNT(*) FROM t GROUP BY ALL",
            "SELECT COUNT(*) FROM t GROUP BY ALL;",
            "SELECT k FROM t GROUP BY ALL HAVING COUNT(*) > 1",
            "SELECT k FROM t UNION ALL SELECT k FROM u",
            "SELECT DISTINCT k FROM t GROUP BY k",
        ] {
            assert_eq!(strip(sql), (sql.to_string(), vec![]), "{sql}");
        }
    }
}
