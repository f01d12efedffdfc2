//! The csv reader's fast path: one pass over a line that finds its end, its
//! field delimiters and whether it holds a quote or escape char (which sends
//! the record to the decoding slow path).
//!
//! Separate memchr calls for the newline, the quote and each delimiter cost
//! ~10 calls and ~900 instructions per 60-byte record; comparing 16 bytes at
//! a time against all three at once (SSE2, part of every x86_64 CPU) costs a
//! few instructions per chunk plus a few per delimiter.

/// What [`split_line`] found at the start of the data.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineSplit {
    /// A plain line; the index of its `\n`. The spans are pushed.
    Line(usize),
    /// A quote or escape char before the first `\n`: decode the record.
    Special,
    /// No `\n` in the data (and no special char).
    NeedMore,
}

/// Splits the line at the start of `data` at `delim` into `spans` (offsets
/// plus `base`), without the `\r` of a CRLF line end. `specials` are the
/// quote and escape chars (`\n` stands for an absent one). `delim` must not
/// be `\n`, `\r` or a special char.
#[inline]
pub(crate) fn split_line(
    data: &[u8],
    base: usize,
    delim: u8,
    specials: [u8; 2],
    spans: &mut Vec<(usize, usize)>,
) -> LineSplit {
    spans.clear();
    let mut start = 0usize;
    #[cfg(target_arch = "x86_64")]
    let i = {
        use std::arch::x86_64::*;
        let mut i = 0usize;
        // SAFETY: SSE2 is part of the x86_64 baseline, and every load reads
        // 16 bytes inside `data` (`i + 16 <= data.len()`).
        unsafe {
            let newline = _mm_set1_epi8(b'\n' as i8);
            let delimiter = _mm_set1_epi8(delim as i8);
            let special0 = _mm_set1_epi8(specials[0] as i8);
            let special1 = _mm_set1_epi8(specials[1] as i8);
            while i + 16 <= data.len() {
                let chunk = _mm_loadu_si128(data.as_ptr().add(i).cast::<__m128i>());
                let nl = _mm_movemask_epi8(_mm_cmpeq_epi8(chunk, newline)) as u32;
                let special = _mm_movemask_epi8(_mm_or_si128(
                    _mm_cmpeq_epi8(chunk, special0),
                    _mm_cmpeq_epi8(chunk, special1),
                )) as u32;
                let mut delims = _mm_movemask_epi8(_mm_cmpeq_epi8(chunk, delimiter)) as u32;
                if nl != 0 {
                    // Only what comes before the first newline counts.
                    let before = (nl & nl.wrapping_neg()) - 1;
                    if special & before != 0 {
                        return LineSplit::Special;
                    }
                    delims &= before;
                    push_delimiters(delims, i, base, &mut start, spans);
                    return finish(data, i + nl.trailing_zeros() as usize, base, start, spans);
                }
                if special != 0 {
                    return LineSplit::Special;
                }
                push_delimiters(delims, i, base, &mut start, spans);
                i += 16;
            }
        }
        i
    };
    #[cfg(not(target_arch = "x86_64"))]
    let i = 0usize;
    split_scalar(data, i, base, delim, specials, start, spans)
}

/// [`split_line`] byte by byte from `i` (the tail of a chunked scan, or all
/// of it on other targets).
fn split_scalar(
    data: &[u8],
    i: usize,
    base: usize,
    delim: u8,
    specials: [u8; 2],
    mut start: usize,
    spans: &mut Vec<(usize, usize)>,
) -> LineSplit {
    for (j, &c) in data.iter().enumerate().skip(i) {
        if c == b'\n' {
            return finish(data, j, base, start, spans);
        }
        if c == specials[0] || c == specials[1] {
            return LineSplit::Special;
        }
        if c == delim {
            spans.push((base + start, base + j));
            start = j + 1;
        }
    }
    LineSplit::NeedMore
}

#[inline]
fn push_delimiters(
    mut bits: u32,
    offset: usize,
    base: usize,
    start: &mut usize,
    spans: &mut Vec<(usize, usize)>,
) {
    // A 16-byte chunk's mask (the bits above are clear; kept so for the
    // array below).
    bits &= 0xFFFF;
    if bits == 0 {
        return;
    }
    // A chunk has at most 16 delimiters: room for them once, then plain
    // stores with the count in a register (`push` reloaded the buffer,
    // compared the capacity and stored the length per delimiter).
    // Positions are kept with `base` added (`s`, the field's start; `at0`,
    // the chunk's), and `n & 15` indexes a 16-entry array without a check.
    spans.reserve(16);
    let len = spans.len();
    let room: &mut [std::mem::MaybeUninit<(usize, usize)>; 16] = (&mut spans.spare_capacity_mut()
        [..16])
        .try_into()
        .expect("16 reserved");
    let (mut n, mut s, at0) = (0usize, base + *start, base + offset);
    while bits != 0 {
        let at = at0 + bits.trailing_zeros() as usize;
        room[n & 15].write((s, at));
        n += 1;
        s = at + 1;
        bits &= bits - 1;
    }
    // SAFETY: the `n` entries after `len` were just written (`room` is the
    // spare capacity, which `reserve(16)` made at least 16 long, and `n`,
    // the count of bits in a 16-bit mask, is at most 16).
    unsafe { spans.set_len(len + n) };
    *start = s - base;
}

#[inline]
fn finish(
    data: &[u8],
    nl: usize,
    base: usize,
    start: usize,
    spans: &mut Vec<(usize, usize)>,
) -> LineSplit {
    let end = if nl > 0 && data[nl - 1] == b'\r' {
        nl - 1
    } else {
        nl
    };
    spans.push((base + start, base + end));
    LineSplit::Line(nl)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the reader did before: memchr for the newline, then for the
    /// specials in the line, then for each delimiter. (Without a newline it
    /// asked for more data even after a special char; decoding does the same.)
    fn reference(
        data: &[u8],
        base: usize,
        delim: u8,
        specials: [u8; 2],
    ) -> (LineSplit, Vec<(usize, usize)>) {
        let nl = memchr::memchr(b'\n', data);
        let line = &data[..nl.unwrap_or(data.len())];
        if memchr::memchr2(specials[0], specials[1], line).is_some() {
            return (LineSplit::Special, Vec::new());
        }
        let Some(nl) = nl else {
            return (LineSplit::NeedMore, Vec::new());
        };
        let content = if line.last() == Some(&b'\r') {
            &line[..nl - 1]
        } else {
            line
        };
        let mut spans = Vec::new();
        let mut start = 0;
        for i in memchr::memchr_iter(delim, content) {
            spans.push((base + start, base + i));
            start = i + 1;
        }
        spans.push((base + start, base + content.len()));
        (LineSplit::Line(nl), spans)
    }

    /// Lines of nothing but delimiters (16 in a chunk, and more), and
    /// chunks where the spans vector has to grow.
    #[test]
    fn splits_lines_of_delimiters() {
        for k in 0..70 {
            for tail in ["\n", "x\n", "\r\nmore"] {
                let data = format!("{}{tail}", ",".repeat(k)).into_bytes();
                let mut spans = Vec::new();
                let (want, want_spans) = reference(&data, 3, b',', [b'"', b'\\']);
                let got = split_line(&data, 3, b',', [b'"', b'\\'], &mut spans);
                assert_eq!((got, spans), (want, want_spans), "{k} {tail:?}");
            }
        }
    }

    /// Random lines of every length around the 16-byte chunks, with
    /// delimiters, CR, quotes, escapes and newlines anywhere.
    #[test]
    fn splits_like_the_memchr_reader() {
        let alphabet = b"ab,,,\r\n\"\\xyz0123456789";
        let mut rng = crate::util::SplitMix64::new(0x9E37_79B9_7F4A_7C15u64);
        let mut next = || rng.next();
        let mut spans = Vec::new();
        for round in 0..200_000 {
            let len = (next() % 70) as usize;
            let plain = round % 3 != 0;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next() as usize;
                    // Mostly plain text, sometimes a special char.
                    let c = alphabet[r % alphabet.len()];
                    if plain && (c == b'"' || c == b'\\' || (c == b'\n' && r % 5 != 0)) {
                        b'q'
                    } else {
                        c
                    }
                })
                .collect();
            let specials = if round % 2 == 0 {
                [b'"', b'\\']
            } else {
                [b'"', b'\n']
            };
            let base = (next() % 1000) as usize;
            let (want, want_spans) = reference(&data, base, b',', specials);
            let got = split_line(&data, base, b',', specials, &mut spans);
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&data));
            if let LineSplit::Line(_) = got {
                assert_eq!(spans, want_spans, "{:?}", String::from_utf8_lossy(&data));
            }
        }
    }
}
