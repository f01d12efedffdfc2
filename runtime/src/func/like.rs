//! SQL LIKE with an optional escape character: `%` any run of chars, `_` one
//! char, case-sensitive (as Flink). Compile the pattern once per query
//! (patterns are usually literals), then match per row without allocating.

/// A compiled LIKE pattern.
#[derive(Clone, Debug)]
pub struct Like {
    tokens: Vec<Token>,
    /// The pattern without `_` as its literal runs between `%`s: matched on
    /// bytes with substring search instead of the token loop.
    segments: Option<Segments>,
}

/// `first % middle[0] % ... % last`; `first`/`last` are empty when the
/// pattern starts/ends with `%`, and `last` is `None` when it has no `%`.
#[derive(Clone, Debug)]
struct Segments {
    first: Vec<u8>,
    middle: Vec<memchr::memmem::Finder<'static>>,
    last: Option<Vec<u8>>,
}

impl Segments {
    fn of(tokens: &[Token]) -> Option<Segments> {
        let mut runs: Vec<Vec<u8>> = vec![Vec::new()];
        for token in tokens {
            match token {
                Token::Lit(c) => {
                    let mut buf = [0u8; 4];
                    let run = runs.last_mut().expect("one run at least");
                    run.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Token::Any => runs.push(Vec::new()),
                Token::One => return None,
            }
        }
        let first = runs.remove(0);
        let last = runs.pop();
        let middle = runs
            .iter()
            .map(|run| memchr::memmem::Finder::new(run).into_owned())
            .collect();
        Some(Segments {
            first,
            middle,
            last,
        })
    }

    /// `%` matches any run of chars, so matching the literal runs leftmost,
    /// in order, between the anchored first and last run decides the match;
    /// whole UTF-8 sequences only match at char boundaries.
    fn matches(&self, s: &[u8]) -> bool {
        let Some(last) = &self.last else {
            return s == self.first.as_slice();
        };
        if s.len() < self.first.len() + last.len()
            || !s.starts_with(&self.first)
            || !s.ends_with(last)
        {
            return false;
        }
        let mut rest = &s[self.first.len()..s.len() - last.len()];
        for finder in &self.middle {
            match finder.find(rest) {
                Some(at) => rest = &rest[at + finder.needle().len()..],
                None => return false,
            }
        }
        true
    }
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
        let segments = Segments::of(&tokens);
        Ok(Like { tokens, segments })
    }

    /// Whether `s` matches (greedy with backtracking to the last `%`).
    pub fn matches(&self, s: &str) -> bool {
        if let Some(segments) = &self.segments {
            return segments.matches(s.as_bytes());
        }
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

    /// Patterns without `_` take the substring search: it agrees with the
    /// token loop on every pattern and text over a small alphabet.
    #[test]
    fn segments_agree_with_the_token_loop() {
        let alphabet = ["a", "b", "é", "%"];
        let words = |max: usize| {
            let mut all = vec![String::new()];
            let mut last = vec![String::new()];
            for _ in 0..max {
                last = last
                    .iter()
                    .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                    .collect();
                all.extend(last.iter().cloned());
            }
            all
        };
        let texts: Vec<String> = words(5).into_iter().filter(|w| !w.contains('%')).collect();
        for pattern in words(4) {
            let like = Like::new(&pattern, None).unwrap();
            assert!(like.segments.is_some(), "{pattern}");
            let tokens_only = Like {
                tokens: like.tokens.clone(),
                segments: None,
            };
            for text in &texts {
                assert_eq!(
                    like.matches(text),
                    tokens_only.matches(text),
                    "{pattern} on {text}"
                );
            }
        }
    }
}
