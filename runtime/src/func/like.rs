//! SQL LIKE with an optional escape character: `%` any run of chars, `_` one
//! char, case-sensitive (as Flink). Compile the pattern once per query
//! (patterns are usually literals), then match per row without allocating.

/// A compiled LIKE pattern.
#[derive(Clone, Debug)]
pub struct Like {
    tokens: Vec<Token>,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Lit(char),
    One,
    Any,
}

impl Like {
    /// Compiles `pattern`; `Err` when the escape char is not followed by `%`,
    /// `_` or itself (Flink reports an invalid escape sequence).
    pub fn new(pattern: &str, escape: Option<char>) -> Result<Like, String> {
        let mut tokens = Vec::new();
        let mut it = pattern.chars();
        while let Some(c) = it.next() {
            if Some(c) == escape {
                match it.next() {
                    Some(n) if n == '%' || n == '_' || Some(n) == escape => {
                        tokens.push(Token::Lit(n))
                    }
                    _ => {
                        return Err(format!(
                            "invalid escape sequence in LIKE pattern '{pattern}'"
                        ))
                    }
                }
            } else if c == '%' {
                if tokens.last() != Some(&Token::Any) {
                    tokens.push(Token::Any);
                }
            } else if c == '_' {
                tokens.push(Token::One);
            } else {
                tokens.push(Token::Lit(c));
            }
        }
        Ok(Like { tokens })
    }

    /// Whether `s` matches (greedy with backtracking to the last `%`).
    pub fn matches(&self, s: &str) -> bool {
        let chars: Vec<char> = if s.is_ascii() {
            Vec::new()
        } else {
            s.chars().collect()
        };
        if s.is_ascii() {
            let b = s.as_bytes();
            return self.match_impl(b.len(), |i| b[i] as char);
        }
        self.match_impl(chars.len(), |i| chars[i])
    }

    fn match_impl(&self, n: usize, at: impl Fn(usize) -> char) -> bool {
        let t = &self.tokens;
        let (mut ti, mut si) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while si < n {
            match t.get(ti) {
                Some(Token::Lit(c)) if *c == at(si) => {
                    ti += 1;
                    si += 1;
                }
                Some(Token::One) => {
                    ti += 1;
                    si += 1;
                }
                Some(Token::Any) => {
                    star = Some((ti, si));
                    ti += 1;
                }
                _ => match star {
                    Some((st, ss)) => {
                        ti = st + 1;
                        si = ss + 1;
                        star = Some((st, ss + 1));
                    }
                    None => return false,
                },
            }
        }
        while t.get(ti) == Some(&Token::Any) {
            ti += 1;
        }
        ti == t.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like() {
        let m = |p: &str, e: Option<char>, s: &str| Like::new(p, e).unwrap().matches(s);
        assert!(m("a%", None, "abc"));
        assert!(!m("a%", None, "ABC"));
        assert!(m("a\\_c", Some('\\'), "a_c"));
        assert!(!m("a\\_c", Some('\\'), "abc"));
        assert!(m("a!%", Some('!'), "a%"));
        assert!(m("%b%c", None, "abxbc"));
        assert!(m("_é_", None, "xéy"));
        assert!(m("%", None, ""));
        assert!(!m("_", None, ""));
        assert!(Like::new("a\\x", Some('\\')).is_err());
    }
}
