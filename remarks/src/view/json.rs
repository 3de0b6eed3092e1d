//! The JSON the report embeds, written by hand: it is only a string table and arrays of
//! integers, so a JSON library would buy nothing, and streaming it straight into the output
//! keeps the whole document out of memory.
//!
//! The JSON sits inside `<script type="application/json">`, whose content the HTML parser does
//! not decode but scans for `</script` (and, after `<!--`, for `<script`). Escaping every `<`,
//! `>` and `&` as `\u00XX` keeps any remark string or source text from ending the element
//! early; `JSON.parse` turns the escapes back into the same characters.

use std::io::{self, Write};

/// Writes `s` as a JSON string literal (with its quotes), safe inside a `<script>` element.
pub(crate) fn write_str(out: &mut dyn Write, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let bytes = s.as_bytes();
    // Copy runs of bytes that need no escape in one call.
    let mut run_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            b'<' => Some(b"\\u003c"),
            b'>' => Some(b"\\u003e"),
            b'&' => Some(b"\\u0026"),
            _ => None,
        };
        // U+2028 and U+2029 are valid in JSON but line terminators in older JavaScript;
        // escaping them costs nothing and keeps the text safe wherever it is pasted.
        let separator = b == 0xE2
            && bytes.get(i + 1) == Some(&0x80)
            && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9));
        if escape.is_some() || b < 0x20 || b == 0x7F || separator {
            out.write_all(&bytes[run_start..i])?;
            if let Some(e) = escape {
                out.write_all(e)?;
                i += 1;
            } else if separator {
                let last = bytes.get(i + 2).copied().unwrap_or(0xA8);
                out.write_all(if last == 0xA8 { b"\\u2028" } else { b"\\u2029" })?;
                i += 3;
            } else {
                write!(out, "\\u{:04x}", b)?;
                i += 1;
            }
            run_start = i;
        } else {
            i += 1;
        }
    }
    out.write_all(&bytes[run_start..])?;
    out.write_all(b"\"")
}

/// Formats integers without going through `fmt`, since the report writes tens of millions.
#[derive(Default)]
pub(crate) struct Numbers {
    buf: [u8; 20],
}

impl Numbers {
    pub(crate) fn write_u64(&mut self, out: &mut dyn Write, mut n: u64) -> io::Result<()> {
        let mut i = self.buf.len();
        loop {
            i -= 1;
            self.buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        out.write_all(&self.buf[i..])
    }

    /// An index, with [`super::NONE`] written as `-1`.
    pub(crate) fn write_index(&mut self, out: &mut dyn Write, n: u32) -> io::Result<()> {
        if n == super::NONE {
            out.write_all(b"-1")
        } else {
            self.write_u64(out, u64::from(n))
        }
    }

    /// `"key":[a,b,...]`, indices as [`Numbers::write_index`] writes them.
    pub(crate) fn write_array(
        &mut self,
        out: &mut dyn Write,
        key: &str,
        values: impl Iterator<Item = u32>,
    ) -> io::Result<()> {
        write_str(out, key)?;
        out.write_all(b":[")?;
        for (i, v) in values.enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            self.write_index(out, v)?;
        }
        out.write_all(b"]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, s).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_what_could_end_the_script_element() {
        assert_eq!(json("</script>"), r#""\u003c/script\u003e""#);
        assert_eq!(json("<!--<script>"), r#""\u003c!--\u003cscript\u003e""#);
        assert_eq!(
            json("<img src=x onerror=alert(1)>"),
            r#""\u003cimg src=x onerror=alert(1)\u003e""#
        );
        assert_eq!(json("a&amp;b"), r#""a\u0026amp;b""#);
    }

    #[test]
    fn escapes_quotes_backslashes_and_controls() {
        assert_eq!(json(r#"say "hi" \o/"#), r#""say \"hi\" \\o/""#);
        assert_eq!(json("it's"), r#""it's""#);
        assert_eq!(
            json("a\nb\r\tc\u{0}\u{1f}\u{7f}"),
            r#""a\nb\r\tc\u0000\u001f\u007f""#
        );
    }

    #[test]
    fn keeps_utf8_but_escapes_line_separators() {
        assert_eq!(json("café ∑ 😀"), "\"café ∑ 😀\"");
        assert_eq!(json("a\u{2028}b\u{2029}c"), r#""a\u2028b\u2029c""#);
        // Other characters starting with E2 80 stay as they are.
        assert_eq!(json("\u{2026}"), "\"\u{2026}\"");
        assert_eq!(json(""), r#""""#);
    }

    #[test]
    fn numbers() {
        let mut n = Numbers::default();
        let mut out = Vec::new();
        n.write_array(
            &mut out,
            "a",
            [0, 7, 10, 4_294_967_294, super::super::NONE].into_iter(),
        )
        .unwrap();
        n.write_u64(&mut out, u64::MAX).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a":[0,7,10,4294967294,-1]18446744073709551615"#
        );
    }
}
