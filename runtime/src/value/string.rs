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
use std::num::NonZeroU64;
use std::ops::Deref;

/// Bytes kept inline (the value is 24 bytes, like a `String`).
pub const INLINE: usize = 23;

/// Three words, always copied as three words.
///
/// An inline text (at most [`INLINE`] bytes) is the value's bytes `0..len`,
/// zeros after it, and byte 23 is `0x80 | len`. A heap text is a
/// `Box<str>`: `ptr` is its pointer, `tail` its length (a length below
/// 2^55 leaves byte 23's top bit clear). `tail` is never zero, which gives
/// `Option<Str>` its `None` (the value stays 24 bytes).
///
/// Why not an `enum { Inline { len, bytes }, Heap(Box<str>) }` (what this
/// was): the compiler copied the inline variant as its 23 payload bytes,
/// the first 7 of them as two overlapping 4-byte moves through the stack,
/// and reading those back stalled on store forwarding (~10% of
/// `bench/job.sql`'s samples in `perf annotate`, RESULTS step 13).
#[repr(C)]
pub struct Str {
    /// Heap: the text's pointer. Inline: text bytes 0..8.
    ptr: *const u8,
    /// Heap: zero. Inline: text bytes 8..16.
    mid: u64,
    /// Little-endian. Heap: the length. Inline: text bytes 16..23, and
    /// `0x80 | len` in the top byte (byte 23 of the value).
    tail: NonZeroU64,
}

// SAFETY: a `Str` owns its heap text exclusively, like the `Box<str>` it
// was built from; nothing is shared between values.
unsafe impl Send for Str {}
// SAFETY: `&Str` only reads.
unsafe impl Sync for Str {}

const INLINE_BIT: u64 = 1 << 63;

impl Str {
    /// The empty string.
    pub const fn new() -> Str {
        Str::inline_words(0, 0, 0, 0)
    }

    /// An inline value of `len` bytes from its little-endian words (the
    /// bytes after `len` zero).
    #[inline(always)]
    const fn inline_words(w0: u64, w1: u64, w2: u64, len: usize) -> Str {
        let tail = w2 | INLINE_BIT | ((len as u64) << 56);
        Str {
            ptr: std::ptr::without_provenance(w0.to_le() as usize),
            mid: w1.to_le(),
            // The inline bit makes it non-zero.
            tail: match NonZeroU64::new(tail.to_le()) {
                Some(t) => t,
                None => unreachable!(),
            },
        }
    }

    #[inline(always)]
    fn tail(&self) -> u64 {
        u64::from_le(self.tail.get())
    }

    /// Whether the text is kept inline (no heap allocation).
    #[inline(always)]
    pub fn is_inline(&self) -> bool {
        self.tail() & INLINE_BIT != 0
    }

    #[inline(always)]
    fn len_bytes(&self) -> usize {
        let tail = self.tail();
        if tail & INLINE_BIT != 0 {
            ((tail >> 56) & 0x7f) as usize
        } else {
            tail as usize
        }
    }

    #[inline]
    pub fn as_str(&self) -> &str {
        let len = self.len_bytes();
        let start = if self.is_inline() {
            self as *const Str as *const u8
        } else {
            self.ptr
        };
        // SAFETY: inline, the value's first `len` bytes are text copied from
        // a `str`; on the heap, `ptr` and `len` are those of the `Box<str>`
        // this value owns. Either way valid UTF-8 that lives as long as
        // `self`.
        unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(start, len)) }
    }

    /// A heap value owning `text` (longer than [`INLINE`]).
    fn heap(text: Box<str>) -> Str {
        let len = text.len() as u64;
        debug_assert!(len as usize > INLINE && len < INLINE_BIT);
        let ptr = Box::into_raw(text) as *const u8;
        Str {
            ptr,
            mid: 0,
            // SAFETY: a heap text is longer than `INLINE`, so non-zero.
            tail: unsafe { NonZeroU64::new_unchecked(len.to_le()) },
        }
    }

    /// The text as an owned `String`.
    pub fn into_string(self) -> String {
        if self.is_inline() {
            return self.as_str().to_owned();
        }
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: the value owns this `Box<str>` and is not dropped.
        unsafe { this.take_box() }.into_string()
    }

    /// The heap text's box. SAFETY: the value is on the heap and the box
    /// is taken once (the value is dropped without freeing it, or is
    /// being dropped).
    unsafe fn take_box(&self) -> Box<str> {
        let slice = std::ptr::slice_from_raw_parts_mut(self.ptr as *mut u8, self.tail() as usize);
        // SAFETY: `ptr` and the length came from `Box::into_raw` of a
        // `Box<str>` (see `heap`); the caller takes it once.
        unsafe { Box::from_raw(slice as *mut str) }
    }
}

impl Drop for Str {
    #[inline]
    fn drop(&mut self) {
        if !self.is_inline() {
            // SAFETY: a heap value, dropped once.
            drop(unsafe { self.take_box() });
        }
    }
}

impl Clone for Str {
    #[inline]
    fn clone(&self) -> Str {
        if self.is_inline() {
            // Three words: an inline value owns nothing.
            Str {
                ptr: self.ptr,
                mid: self.mid,
                tail: self.tail,
            }
        } else {
            Str::heap(self.as_str().into())
        }
    }
}

impl Default for Str {
    fn default() -> Str {
        Str::new()
    }
}

impl Str {
    /// `bytes` as an inline value when they are ASCII and at most
    /// [`INLINE`] long (`None` otherwise: longer or other text goes through
    /// `From<&str>`).
    #[inline(always)]
    pub fn from_short_ascii(bytes: &[u8]) -> Option<Str> {
        if bytes.len() > INLINE || !bytes.is_ascii() {
            return None;
        }
        let (w0, w1, w2) = short_words(bytes);
        Some(Str::inline_words(w0, w1, w2, bytes.len()))
    }
}

impl From<&str> for Str {
    #[inline]
    fn from(s: &str) -> Str {
        if s.len() <= INLINE {
            let (w0, w1, w2) = short_words(s.as_bytes());
            Str::inline_words(w0, w1, w2, s.len())
        } else {
            Str::heap(s.into())
        }
    }
}

/// The little-endian words of `src` (at most [`INLINE`] bytes) padded with
/// zeros, from loads that overlap and shifts, in registers: building the
/// bytes in a stack buffer with overlapping stores and reading its words
/// back stalls on store forwarding, and a copy of a length chosen at run
/// time is a `memcpy` call.
#[inline(always)]
fn short_words(src: &[u8]) -> (u64, u64, u64) {
    let n = src.len();
    debug_assert!(n <= INLINE);
    let u64_at = |i: usize| u64::from_le_bytes(src[i..i + 8].try_into().unwrap());
    let u32_at = |i: usize| u32::from_le_bytes(src[i..i + 4].try_into().unwrap()) as u64;
    // The bytes `from..n` (at most 8, the load ending at `n`) as a word.
    let last = |from: usize| {
        if n > from {
            u64_at(n - 8) >> ((8 - (n - from)) * 8)
        } else {
            0
        }
    };
    if n >= 16 {
        (u64_at(0), u64_at(8), last(16))
    } else if n >= 8 {
        (u64_at(0), last(8), 0)
    } else if n >= 4 {
        // Two 4-byte loads that overlap: the shared bytes are equal.
        (u32_at(0) | (u32_at(n - 4) << ((n - 4) * 8)), 0, 0)
    } else {
        let mut w = 0;
        if n > 0 {
            w |= src[0] as u64;
        }
        if n > 1 {
            w |= (src[1] as u64) << 8;
        }
        if n > 2 {
            w |= (src[2] as u64) << 16;
        }
        (w, 0, 0)
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
            Str::heap(s.into_boxed_str())
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
        if self.is_inline() {
            // The bytes after the text are zero and byte 23 holds the
            // length, so equal texts are equal words. A heap text is
            // longer than any inline one, so never equal to it.
            std::ptr::eq(self.ptr, other.ptr) && self.mid == other.mid && self.tail == other.tail
        } else {
            self.as_str() == other.as_str()
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
            // Straight from a record's bytes: the same value, or `None`
            // past the inline length.
            let direct = Str::from_short_ascii(&alphabet.as_bytes()[..n]);
            assert_eq!(direct.as_deref(), (n <= INLINE).then_some(&alphabet[..n]));
            assert!(direct.is_none_or(|d| d.is_inline()));
        }
        assert!(Str::from_short_ascii("ü".as_bytes()).is_none());
        assert_eq!(std::mem::size_of::<Str>(), 24);
        assert_eq!(std::mem::size_of::<Option<Str>>(), 24);
    }

    #[test]
    fn values_own_their_text_and_none_is_not_empty() {
        for n in [0, 3, 7, 8, 15, 16, 22, INLINE, INLINE + 1, 100] {
            let text: String = "é€x".chars().cycle().take(n).collect();
            let a = Str::from(text.as_str());
            let b = a.clone();
            drop(a);
            assert_eq!(b.as_str(), text, "a clone outlives its original");
            assert_eq!(b.clone().into_string(), text);
            assert_eq!(String::from(b), text);
            let some = Some(Str::from(text.as_str()));
            assert!(some.is_some() && some.as_deref() == Some(text.as_str()));
        }
        let none: Option<Str> = None;
        assert_ne!(none, Some(Str::new()));
        assert_eq!(Str::new().as_str(), "");
        assert_eq!(Str::default(), Str::from(""));
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
