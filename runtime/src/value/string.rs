//! [`Str`]: the value of a STRING/CHAR/VARCHAR column in a generated row.
//!
//! Rows are built per input row and copied into the rows of every consumer
//! (a shared view, a projection, a group key). With `String` each copy was a
//! heap allocation and a free, about 15 % of a job's instructions on the
//! benchmark. Most SQL strings are short (codes, names, cities), so `Str`
//! keeps up to [`INLINE`] bytes inside the value and copies them like a
//! number; longer strings live on the heap as a `Box<str>`.
//!
//! `Str` dereferences to `&str` and compares, hashes and orders exactly like
//! the `str` it holds, so it can replace `String` in keys and sort buffers.

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// Bytes kept inline (the value is 24 bytes, like a `String`).
pub const INLINE: usize = 22;

#[derive(Clone)]
pub struct Str(Repr);

#[derive(Clone)]
enum Repr {
    /// `bytes[..len]` is the UTF-8 text (copied from a `&str`).
    Inline {
        len: u8,
        bytes: [u8; INLINE],
    },
    Heap(Box<str>),
}

impl Str {
    /// The empty string.
    pub const fn new() -> Str {
        Str(Repr::Inline {
            len: 0,
            bytes: [0; INLINE],
        })
    }

    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                let text = &bytes[..*len as usize];
                // SAFETY: an inline value is only ever built by `From<&str>`
                // from the bytes of a `str`, so they are valid UTF-8.
                unsafe { std::str::from_utf8_unchecked(text) }
            }
            Repr::Heap(s) => s,
        }
    }

    /// Whether the text is kept inline (no heap allocation).
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }

    /// The text as an owned `String`.
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Heap(s) => s.into_string(),
            Repr::Inline { .. } => self.as_str().to_owned(),
        }
    }
}

impl Default for Str {
    fn default() -> Str {
        Str::new()
    }
}

impl From<&str> for Str {
    #[inline]
    fn from(s: &str) -> Str {
        if s.len() <= INLINE {
            let mut bytes = [0; INLINE];
            copy_short(&mut bytes, s.as_bytes());
            Str(Repr::Inline {
                len: s.len() as u8,
                bytes,
            })
        } else {
            Str(Repr::Heap(s.into()))
        }
    }
}

/// `dst[..src.len()] = src` for `src` of at most [`INLINE`] bytes, as two
/// overlapping fixed-size copies (a variable-length copy is a call to
/// `memcpy`, costlier than the short strings it copies).
#[inline]
fn copy_short(dst: &mut [u8; INLINE], src: &[u8]) {
    let n = src.len();
    // One branch per size, each with constant lengths (one copy of a
    // length chosen at run time was still compiled to a `memcpy` call).
    if n >= 16 {
        dst[..16].copy_from_slice(&src[..16]);
        dst[n - 16..n].copy_from_slice(&src[n - 16..]);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..n].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..n].copy_from_slice(&src[n - 4..]);
    } else {
        // Byte by byte (a loop here would become a memcpy call again).
        if n > 0 {
            dst[0] = src[0];
        }
        if n > 1 {
            dst[1] = src[1];
        }
        if n > 2 {
            dst[2] = src[2];
        }
    }
}

impl From<&String> for Str {
    #[inline]
    fn from(s: &String) -> Str {
        Str::from(s.as_str())
    }
}

impl From<String> for Str {
    #[inline]
    fn from(s: String) -> Str {
        if s.len() <= INLINE {
            Str::from(s.as_str())
        } else {
            Str(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<Cow<'_, str>> for Str {
    #[inline]
    fn from(s: Cow<'_, str>) -> Str {
        match s {
            Cow::Borrowed(s) => Str::from(s),
            Cow::Owned(s) => Str::from(s),
        }
    }
}

impl From<&Str> for Str {
    #[inline]
    fn from(s: &Str) -> Str {
        s.clone()
    }
}

impl From<Str> for String {
    fn from(s: Str) -> String {
        s.into_string()
    }
}

impl Deref for Str {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for Str {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_str().as_bytes()
    }
}

impl Borrow<str> for Str {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Str {
    #[inline]
    fn eq(&self, other: &Str) -> bool {
        match (&self.0, &other.0) {
            // The bytes after `len` are always zero (both ways of building
            // an inline value start from zeros), so equal texts are equal
            // arrays: a compare of fixed size, not a `memcmp` call.
            (Repr::Inline { len: a, bytes: x }, Repr::Inline { len: b, bytes: y }) => {
                a == b && x == y
            }
            // A heap text is longer than any inline one.
            _ => self.as_str() == other.as_str(),
        }
    }
}

impl Eq for Str {}

impl PartialEq<str> for Str {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Str {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Str {
    #[inline]
    fn partial_cmp(&self, other: &Str) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str {
    #[inline]
    fn cmp(&self, other: &Str) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Str {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        // As `str` hashes, so that `Borrow<str>` lookups find the entry.
        self.as_str().hash(state)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn short_strings_are_inline_and_long_ones_on_the_heap() {
        for s in [
            "",
            "EU",
            "ü€😀",
            &"x".repeat(INLINE),
            &"y".repeat(INLINE + 1),
        ] {
            let v = Str::from(s);
            assert_eq!(v.as_str(), s);
            assert_eq!(v.is_inline(), s.len() <= INLINE, "{s}");
            assert_eq!(Str::from(s.to_string()).as_str(), s);
            assert_eq!(v.clone().into_string(), s);
        }
        // Every length, through each of the short copy's chunk sizes.
        let alphabet = "abcdefghijklmnopqrstuvwxyz";
        for n in 0..=INLINE + 1 {
            assert_eq!(Str::from(&alphabet[..n]).as_str(), &alphabet[..n]);
        }
        assert_eq!(std::mem::size_of::<Str>(), 24);
        assert_eq!(std::mem::size_of::<Option<Str>>(), 24);
    }

    #[test]
    fn compares_hashes_and_orders_like_str() {
        let words = [
            "",
            "a",
            "b",
            "ab",
            "abc",
            "äb",
            &"y".repeat(INLINE),
            &"y".repeat(INLINE + 1),
            &"z".repeat(40),
            &"z".repeat(41),
        ];
        for a in words {
            for b in words {
                assert_eq!(Str::from(a).cmp(&Str::from(b)), a.cmp(b), "{a} {b}");
                let (x, y) = (Str::from(a), Str::from(b));
                assert_eq!(x == y, a == b);
                assert_eq!(Str::from(a.to_string()) == y, a == b);
                assert_eq!(x.clone() == Str::from(b.to_string()), a == b);
                assert_eq!(x == *b, a == b);
            }
        }
        let mut m: HashMap<Str, i32> = HashMap::new();
        m.insert(Str::from("PAID"), 1);
        m.insert(Str::from("p".repeat(30)), 2);
        assert_eq!(m.get("PAID"), Some(&1));
        assert_eq!(m.get("p".repeat(30).as_str()), Some(&2));
        assert_eq!(
            format!("{:?} {}", Str::from("a\"b"), Str::from("x")),
            "\"a\\\"b\" x"
        );
    }
}
