//! Three-valued logic over `Option<bool>` (NULL = `None`), as SQL defines it.

/// `a AND b`: FALSE wins over NULL.
#[inline]
pub fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// `a OR b`: TRUE wins over NULL.
#[inline]
pub fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// `NOT a`.
#[inline]
pub fn not(a: Option<bool>) -> Option<bool> {
    a.map(|v| !v)
}

/// A WHERE/HAVING/ON condition keeps a row only when TRUE.
#[inline]
pub fn is_true(a: Option<bool>) -> bool {
    a == Some(true)
}

/// `a IS DISTINCT FROM b` (NULLs compare equal to each other).
#[inline]
pub fn is_distinct_from<T: PartialEq>(a: &Option<T>, b: &Option<T>) -> bool {
    a != b
}

/// Null-propagating comparison helper: `f(a, b)` when both are non-NULL.
#[inline]
pub fn cmp_op<A, B>(a: Option<A>, b: Option<B>, f: impl FnOnce(A, B) -> bool) -> Option<bool> {
    Some(f(a?, b?))
}

/// `x IN (list)` with SQL NULL semantics: TRUE if found; NULL if not found and
/// `x` or any list element is NULL; else FALSE.
pub fn in_list<T: PartialEq>(x: &Option<T>, list: &[Option<T>]) -> Option<bool> {
    let x = x.as_ref()?;
    let mut saw_null = false;
    for v in list {
        match v {
            Some(v) if v == x => return Some(true),
            None => saw_null = true,
            _ => {}
        }
    }
    if saw_null {
        None
    } else {
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_tables() {
        let vals = [Some(true), Some(false), None];
        for a in vals {
            for b in vals {
                // De Morgan holds in 3VL.
                assert_eq!(not(and(a, b)), or(not(a), not(b)));
            }
        }
        assert_eq!(and(None, Some(false)), Some(false));
        assert_eq!(or(None, Some(false)), None);
        assert_eq!(in_list(&Some(1), &[Some(2), None]), None);
        assert_eq!(in_list(&Some(2), &[Some(2), None]), Some(true));
        assert_eq!(in_list(&Some(3), &[Some(2)]), Some(false));
    }
}
