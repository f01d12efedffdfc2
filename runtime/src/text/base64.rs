//! Standard base64 (RFC 4648, padded): BYTES travel as base64 text in Flink's
//! csv and json formats.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends the base64 encoding of `data`.
pub fn encode(out: &mut Vec<u8>, data: &[u8]) {
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = ((b[0] as u32) << 16) | ((b[1] as u32) << 8) | b[2] as u32;
        out.push(ALPHABET[(n >> 18) as usize & 63]);
        out.push(ALPHABET[(n >> 12) as usize & 63]);
        out.push(if chunk.len() > 1 {
            ALPHABET[(n >> 6) as usize & 63]
        } else {
            b'='
        });
        out.push(if chunk.len() > 2 {
            ALPHABET[n as usize & 63]
        } else {
            b'='
        });
    }
}

fn value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decodes padded base64 text (Flink rejects `QQ` without its `==`); `None` if invalid.
pub fn decode(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 4 != 0 {
        return None;
    }
    let t = match text.iter().position(|&c| c == b'=') {
        Some(i) => {
            if !text[i..].iter().all(|&c| c == b'=') || text.len() % 4 != 0 {
                return None;
            }
            &text[..i]
        }
        None => text,
    };
    if t.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(t.len() * 3 / 4);
    for chunk in t.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        for (raw, enc) in [
            (&b""[..], ""),
            (b"A", "QQ=="),
            (b"\x01\x02\x03", "AQID"),
            (b"\xff\x00", "/wA="),
        ] {
            let mut out = Vec::new();
            super::encode(&mut out, raw);
            assert_eq!(out, enc.as_bytes());
            assert_eq!(super::decode(enc.as_bytes()).as_deref(), Some(raw));
        }
        assert_eq!(super::decode(b"Q"), None);
        assert_eq!(super::decode(b"QQ=a"), None);
    }
}
