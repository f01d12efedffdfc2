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

/// Appends a number's text from registers: the first `whole` bytes
/// (`1..=8`) of `int_part`, a point, and the first `fraction` bytes
/// (`<= 16`) of `fraction_part` (texts in order from the low byte). The
/// parts are stored whole; the bytes past them land in spare capacity.
#[inline]
pub fn append_point_number(
    out: &mut Vec<u8>,
    int_part: u64,
    whole: usize,
    fraction_part: u128,
    fraction: usize,
) {
    assert!((1..=8).contains(&whole) && fraction <= 16);
    out.reserve(32);
    let len = out.len();
    // SAFETY: `reserve` left room for 32 more bytes; the stores end at
    // `whole + 1 + 16 <= 25` bytes past `len`, and the `whole + 1 +
    // fraction` bytes they initialised first are what `set_len` takes in.
    unsafe {
        let at = out.as_mut_ptr().add(len);
        std::ptr::write_unaligned(at as *mut u64, int_part.to_le());
        *at.add(whole) = b'.';
        std::ptr::write_unaligned(at.add(whole + 1) as *mut u128, fraction_part.to_le());
        out.set_len(len + whole + 1 + fraction);
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

    #[test]
    fn appends_a_number_from_its_parts() {
        let le = |t: &[u8]| {
            let mut b = [0u8; 16];
            b[..t.len()].copy_from_slice(t);
            u128::from_le_bytes(b)
        };
        let mut out = b"x,".to_vec();
        append_point_number(
            &mut out,
            le(b"12345678") as u64,
            3,
            le(b"9876543210987654"),
            16,
        );
        assert_eq!(out, b"x,123.9876543210987654");
        append_point_number(&mut out, le(b"7zzzzzzz") as u64, 1, le(b"5zzz"), 1);
        assert_eq!(out, b"x,123.98765432109876547.5");
    }
}
