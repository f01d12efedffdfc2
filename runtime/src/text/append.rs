//! Short appends to an output buffer without a `memcpy` call.
//!
//! Sinks append many short pieces per row (an integer's digits, a region
//! code, the digits of a price). `Vec::extend_from_slice` of a length known
//! only at run time is a call to `memcpy`, which costs more than the few
//! bytes it copies; [`append_short`] copies them with two overlapping
//! fixed-size moves instead (as `Str` does for its inline bytes).

/// Appends `s` to `out`; pieces of up to 16 bytes without a `memcpy` call.
#[inline]
pub fn append_short(out: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    if n > 16 {
        out.extend_from_slice(s);
        return;
    }
    out.reserve(16);
    let len = out.len();
    let src = s.as_ptr();
    // SAFETY: `reserve` left room for 16 more bytes, `n <= 16`, and every
    // read is within `s`: the copies of 8 (or 4) bytes start at 0 and at
    // `n - 8` (`n - 4`), overlapping to cover `0..n`, and below 4 bytes each
    // byte is copied by itself (a loop would become a `memcpy` call again).
    // All `n` bytes after `len` are then initialised, which `set_len` needs.
    unsafe {
        let dst = out.as_mut_ptr().add(len);
        if n >= 8 {
            std::ptr::copy_nonoverlapping(src, dst, 8);
            std::ptr::copy_nonoverlapping(src.add(n - 8), dst.add(n - 8), 8);
        } else if n >= 4 {
            std::ptr::copy_nonoverlapping(src, dst, 4);
            std::ptr::copy_nonoverlapping(src.add(n - 4), dst.add(n - 4), 4);
        } else {
            if n > 0 {
                *dst = *src;
            }
            if n > 1 {
                *dst.add(1) = *src.add(1);
            }
            if n > 2 {
                *dst.add(2) = *src.add(2);
            }
        }
        out.set_len(len + n);
    }
}

/// Appends the first `n` bytes of `buf` (`n <= 32`) with one fixed-size
/// copy of all 32 (the bytes past `n` land in spare capacity and are not
/// part of the vector).
#[inline]
pub fn append_prefix(out: &mut Vec<u8>, buf: &[u8; 32], n: usize) {
    assert!(n <= 32);
    out.reserve(32);
    let len = out.len();
    // SAFETY: `reserve` left room for 32 more bytes, the copy reads all of
    // `buf` and writes within that room, and the `n <= 32` bytes after
    // `len` it initialised are what `set_len` takes in.
    unsafe {
        std::ptr::copy_nonoverlapping(buf.as_ptr(), out.as_mut_ptr().add(len), 32);
        out.set_len(len + n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_every_short_length_exactly() {
        let text: Vec<u8> = (b'a'..=b'z').collect();
        for n in 0..=text.len() {
            for start in [0, 1, 7] {
                let mut out = b"head".repeat(start);
                let mut want = out.clone();
                append_short(&mut out, &text[..n]);
                want.extend_from_slice(&text[..n]);
                assert_eq!(out, want, "{n} bytes after {start}");
            }
        }
    }
}
