//! Optimization remarks in LLVM's YAML format, written byte for byte as LLVM 14 writes them
//! (llvm/lib/Remarks/YAMLRemarkSerializer.cpp over llvm/lib/Support/YAMLTraits.cpp's
//! `yaml::Output`), and read back.
//!
//! rld writes its own passes' remarks (`lto`/`deadfunction`, ...) into the same file as
//! LLVM's pipeline remarks, and tools (`llvm-opt-report`, opt-viewer) read the result, so the
//! layout must be LLVM's exactly:
//!
//! ```text
//! --- !Passed
//! Pass:            lto
//! Name:            deadfunction
//! DebugLoc:        { File: tu2.c, Line: 1, Column: 0 }
//! Function:        unused
//! Args:
//!   - Function:        unused
//!     DebugLoc:        { File: tu2.c, Line: 1, Column: 0 }
//!   - String:          ' not added to the combined module '
//! ...
//! ```
//!
//! - A key is followed by `:` and padded with spaces so its value starts 17 columns after
//!   the key's first character (one space if the key is 16 characters or longer).
//! - `DebugLoc` is a flow map. Before `Line` and `Column`, if the line is already past column
//!   70, LLVM breaks it and indents the rest two columns past the `{`.
//! - Optional fields are left out: `DebugLoc`, `Hotness`, and `Args` when empty.
//! - Strings are quoted by LLVM's `needsQuotes` ([`quote`]).

use crate::error::RemarkParseError;
use crate::model::{DebugLoc, Remark, RemarkArg, RemarkKind};
use std::fmt::Write as _;

/// Writes the remarks as YAML documents, one per remark, exactly as LLVM 14 does.
pub fn write_yaml(remarks: &[Remark], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut w = YamlWriter::default();
    for r in remarks {
        w.remark(r);
        out.write_all(w.text.as_bytes())?;
        w.text.clear();
    }
    Ok(())
}

/// [`write_yaml`] into a string.
pub fn format_yaml(remarks: &[Remark]) -> String {
    let mut w = YamlWriter::default();
    for r in remarks {
        w.remark(r);
    }
    w.text
}

/// `yaml::Output` wraps flow maps once a line passes this column.
const WRAP_COLUMN: usize = 70;

/// A key's value starts this many columns after the key.
const KEY_WIDTH: usize = 17;

/// Tracks the column the way `yaml::Output` does (in bytes), since line wrapping in flow maps
/// depends on it.
#[derive(Default)]
struct YamlWriter {
    text: String,
    column: usize,
}

impl YamlWriter {
    fn raw(&mut self, s: &str) {
        self.text.push_str(s);
        self.column += s.len();
    }

    fn newline(&mut self) {
        self.text.push('\n');
        self.column = 0;
    }

    fn spaces(&mut self, n: usize) {
        for _ in 0..n {
            self.text.push(' ');
        }
        self.column += n;
    }

    /// `key:` on a new line, indented, padded to its value's column.
    fn key(&mut self, indent: &str, key: &str) {
        self.newline();
        self.raw(indent);
        self.raw(key);
        self.raw(":");
        self.spaces(KEY_WIDTH.saturating_sub(key.len() + 1).max(1));
    }

    fn debug_loc(&mut self, indent: &str, loc: &DebugLoc) {
        self.key(indent, "DebugLoc");
        let start = self.column;
        self.raw("{ File: ");
        self.raw(&quote(&loc.file));
        for (key, value) in [("Line", loc.line), ("Column", loc.column)] {
            self.raw(", ");
            if self.column > WRAP_COLUMN {
                self.newline();
                self.spaces(start + 2);
            }
            self.raw(key);
            self.raw(": ");
            self.raw(&value.to_string());
        }
        self.raw(" }");
    }

    fn remark(&mut self, r: &Remark) {
        self.raw("--- ");
        self.raw(r.kind.tag());
        self.key("", "Pass");
        self.raw(&quote(&r.pass));
        self.key("", "Name");
        self.raw(&quote(&r.name));
        if let Some(loc) = &r.debug_loc {
            self.debug_loc("", loc);
        }
        self.key("", "Function");
        self.raw(&quote(&r.function));
        if let Some(h) = r.hotness {
            self.key("", "Hotness");
            self.raw(&h.to_string());
        }
        if !r.args.is_empty() {
            // A sequence value starts on the next line: no padding after `Args:`.
            self.newline();
            self.raw("Args:");
            for a in &r.args {
                self.key("  - ", &a.key);
                self.raw(&quote(&a.value));
                if let Some(loc) = &a.debug_loc {
                    self.debug_loc("    ", loc);
                }
            }
        }
        self.raw("\n...\n");
        self.column = 0;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    None,
    Single,
    Double,
}

/// LLVM's `yaml::needsQuotes` (llvm/Support/YAMLTraits.h, LLVM 14).
fn needs_quotes(s: &str) -> Quoting {
    if s.is_empty() {
        return Quoting::Single;
    }
    let bytes = s.as_bytes();
    // LLVM's isSpace: the C locale's whitespace.
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    let mut needed = Quoting::None;
    if is_space(bytes[0]) || is_space(bytes[bytes.len() - 1]) {
        needed = Quoting::Single;
    }
    if is_null(s) || is_bool(s) || is_numeric(s) {
        needed = Quoting::Single;
    }
    // A plain scalar must not begin with an indicator character (YAML 1.2, 7.3.3).
    if br#"-?:\,[]{}#&*!|>'"%@`"#.contains(&bytes[0]) {
        needed = Quoting::Single;
    }
    for &c in bytes {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => {}
            b'_' | b'-' | b'^' | b'.' | b',' | b' ' | b'\t' => {}
            // LLVM's parser cannot read multi-line single-quoted scalars, so line breaks, like
            // control characters, DEL and anything non-ASCII, force double quotes.
            b'\n' | b'\r' | 0x7f => return Quoting::Double,
            c if c <= 0x1f || c >= 0x80 => return Quoting::Double,
            // Everything else, '/' included (LLVM quotes paths on every platform alike).
            _ => needed = Quoting::Single,
        }
    }
    needed
}

fn is_null(s: &str) -> bool {
    matches!(s, "null" | "Null" | "NULL" | "~")
}

fn is_bool(s: &str) -> bool {
    matches!(s, "true" | "True" | "TRUE" | "false" | "False" | "FALSE")
}

/// LLVM's `yaml::isNumeric`: YAML 1.2 core-schema integers and floats, `0o`/`0x` forms,
/// `.inf` and `.nan`.
fn is_numeric(s: &str) -> bool {
    if s.is_empty() || s == "+" || s == "-" {
        return false;
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let tail = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(tail, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    // Octal and hexadecimal forms take no sign, so they are tested on `s`.
    if let Some(digits) = s.strip_prefix("0o") {
        return !digits.is_empty() && digits.bytes().all(|b| (b'0'..=b'7').contains(&b));
    }
    if let Some(digits) = s.strip_prefix("0x") {
        return !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit());
    }
    // [-+]? (\. [0-9]+ | [0-9]+ (\. [0-9]*)?) ([eE] [-+]? [0-9]+)?
    let skip_digits = |t: &str| t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let mut rest = tail;
    if rest.starts_with('.') && (rest == "." || !rest.as_bytes()[1].is_ascii_digit()) {
        return false;
    }
    if rest.starts_with(['e', 'E']) {
        return false;
    }
    rest = &rest[rest.len() - skip_digits(rest)..];
    if rest.is_empty() {
        return true;
    }
    if let Some(after_dot) = rest.strip_prefix('.') {
        rest = &after_dot[after_dot.len() - skip_digits(after_dot)..];
        if rest.is_empty() {
            return true;
        }
    }
    let Some(exponent) = rest.strip_prefix(['e', 'E']) else {
        return false;
    };
    let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    !digits.is_empty() && skip_digits(digits) == 0
}

/// A string as LLVM's `yaml::Output::scalarString` writes it: plain, single-quoted (with `'`
/// doubled) or double-quoted with `yaml::escape`'s escapes.
pub fn quote(s: &str) -> String {
    if s.is_empty() {
        return "''".to_string();
    }
    match needs_quotes(s) {
        Quoting::None => s.to_string(),
        Quoting::Single => format!("'{}'", s.replace('\'', "''")),
        Quoting::Double => {
            let mut out = String::with_capacity(s.len() + 2);
            out.push('"');
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '"' => out.push_str("\\\""),
                    '\0' => out.push_str("\\0"),
                    '\x07' => out.push_str("\\a"),
                    '\x08' => out.push_str("\\b"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\x0b' => out.push_str("\\v"),
                    '\x0c' => out.push_str("\\f"),
                    '\r' => out.push_str("\\r"),
                    '\x1b' => out.push_str("\\e"),
                    c if (c as u32) < 0x20 => {
                        let _ = write!(out, "\\x{:02X}", c as u32);
                    }
                    // DEL is below 0x80, so yaml::escape copies it through.
                    c if (c as u32) < 0x80 => out.push(c),
                    '\u{85}' => out.push_str("\\N"),
                    '\u{a0}' => out.push_str("\\_"),
                    '\u{2028}' => out.push_str("\\L"),
                    '\u{2029}' => out.push_str("\\P"),
                    c if is_printable(c) => out.push(c),
                    c => {
                        let v = c as u32;
                        let _ = if v <= 0xff {
                            write!(out, "\\x{v:02X}")
                        } else if v <= 0xffff {
                            write!(out, "\\u{v:04X}")
                        } else {
                            write!(out, "\\U{v:08X}")
                        };
                    }
                }
            }
            out.push('"');
            out
        }
    }
}

/// LLVM 14's `sys::unicode::isPrintable`, as far as it matters for symbol and file names.
/// LLVM's table (generated from an old Unicode version) makes C1 controls, default-ignorable
/// characters (but not the soft hyphen U+00AD or U+180E, which were not ignorable then),
/// noncharacters and unassigned code points non-printable; private use in the BMP is
/// printable. rld models all of that except the unassigned code points scattered through the
/// assigned planes: whole unassigned planes are modelled, a character added to a partly
/// assigned block after LLVM's Unicode version is printed as is where LLVM would escape it.
fn is_printable(c: char) -> bool {
    let v = c as u32;
    let noncharacter = (v & 0xfffe) == 0xfffe || (0xfdd0..=0xfdef).contains(&v);
    let non_printable = matches!(v,
        0x80..=0x9f
        | 0x34f
        | 0x115f..=0x1160
        | 0x17b4..=0x17b5
        | 0x180b..=0x180d
        | 0x200b..=0x200f
        | 0x202a..=0x202e
        | 0x2060..=0x206f
        | 0x3164
        | 0xfe00..=0xfe0f
        | 0xfeff
        | 0xffa0
        | 0xfff0..=0xfffb
        | 0x1d173..=0x1d17a
        | 0x30000..=0xdffff
        | 0xe0000..=0xe0fff
        | 0xf0000..=0x10ffff);
    !(noncharacter || non_printable)
}

/// Parses rld's and LLVM's YAML remark documents back (for tests and rld's remark tooling).
///
/// It reads the YAML that LLVM and [`write_yaml`] produce, with any padding and sequence
/// indentation: documents opened by `--- !Tag` and closed by `...` (or by the next `---` or the
/// end), block mappings of plain, single- or double-quoted scalars, the `Args` sequence and
/// `DebugLoc` flow maps (which may span lines). It is strict like LLVM's `YAMLRemarkParser`:
/// the tag, `Pass`, `Name` and `Function` are required, and unknown or repeated keys are
/// rejected.
pub fn parse_yaml(text: &str) -> Result<Vec<Remark>, RemarkParseError> {
    let mut p = YamlReader {
        text,
        pos: 0,
        line: 1,
    };
    let mut remarks = Vec::new();
    loop {
        p.skip_blank_lines();
        if p.at_end() {
            return Ok(remarks);
        }
        remarks.push(p.document()?);
    }
}

/// Reads YAML remark documents one at a time from a stream, so a file of any size is read in
/// the memory of one document. Each document's lines are gathered (up to its `...`, or the
/// next `---`) and parsed by the same reader as [`parse_yaml`]; errors carry the file's line.
pub struct YamlDocuments<R> {
    input: R,
    /// The first line of the next document, already read (a `---` that ended the previous).
    pending: Vec<u8>,
    /// The 1-based number of the next line to read.
    line: usize,
    failed: bool,
}

impl<R: std::io::BufRead> YamlDocuments<R> {
    pub fn new(input: R) -> Self {
        YamlDocuments {
            input,
            pending: Vec::new(),
            line: 1,
            failed: false,
        }
    }

    /// One line (with its `\n`) appended to `buf`; false at the end of the input.
    fn read_line(&mut self, buf: &mut Vec<u8>) -> Result<bool, RemarkParseError> {
        match self.input.read_until(b'\n', buf) {
            Ok(0) => Ok(false),
            Ok(_) => {
                self.line += 1;
                Ok(true)
            }
            Err(e) => Err(RemarkParseError::at_line(
                self.line,
                format!("read error: {e}"),
            )),
        }
    }

    fn next_document(&mut self) -> Result<Option<Remark>, RemarkParseError> {
        let mut doc = std::mem::take(&mut self.pending);
        // The line number of the document's first line.
        let mut first = self.line - usize::from(!doc.is_empty());
        // Skip blank lines before the document.
        while doc.iter().all(u8::is_ascii_whitespace) {
            doc.clear();
            first = self.line;
            if !self.read_line(&mut doc)? {
                return Ok(None);
            }
        }
        loop {
            let start = doc.len();
            if !self.read_line(&mut doc)? {
                break;
            }
            let line = doc[start..].trim_ascii_end();
            if line == b"..." {
                break;
            }
            if line.starts_with(b"---") {
                self.pending = doc.split_off(start);
                break;
            }
        }
        let text = std::str::from_utf8(&doc).map_err(|e| {
            let bad_line = first
                + doc[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
            RemarkParseError::at_line(bad_line, "the file is not UTF-8 text")
        })?;
        let mut p = YamlReader {
            text,
            pos: 0,
            line: first,
        };
        p.document().map(Some)
    }
}

impl<R: std::io::BufRead> Iterator for YamlDocuments<R> {
    type Item = Result<Remark, RemarkParseError>;

    /// After an error, the iteration ends: what follows a broken document cannot be trusted.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.next_document().transpose();
        self.failed = matches!(next, Some(Err(_)));
        next
    }
}

struct YamlReader<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

/// The fields of a remark document as they are read, before the required ones are checked.
#[derive(Default)]
struct RemarkFields {
    pass: Option<String>,
    name: Option<String>,
    function: Option<String>,
    debug_loc: Option<DebugLoc>,
    hotness: Option<u64>,
    args: Option<Vec<RemarkArg>>,
}

impl YamlReader<'_> {
    fn error<T>(&self, message: impl Into<String>) -> Result<T, RemarkParseError> {
        Err(RemarkParseError::at_line(self.line, message))
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn current_line(&self) -> &str {
        let rest = self.rest();
        &rest[..rest.find('\n').unwrap_or(rest.len())]
    }

    fn advance(&mut self, n: usize) {
        let skipped = &self.text.as_bytes()[self.pos..self.pos + n];
        self.line += skipped.iter().filter(|&&b| b == b'\n').count();
        self.pos += n;
    }

    fn next_line(&mut self) {
        let len = self.current_line().len();
        self.advance(len);
        if !self.at_end() {
            self.advance(1);
        }
    }

    fn skip_blank_lines(&mut self) {
        while !self.at_end() && self.current_line().trim().is_empty() {
            self.next_line();
        }
    }

    fn skip_spaces(&mut self) {
        let n = self.rest().len() - self.rest().trim_start_matches([' ', '\t']).len();
        self.advance(n);
    }

    /// Spaces, tabs and line breaks, for flow maps that LLVM wraps.
    fn skip_whitespace(&mut self) {
        let n = self.rest().len()
            - self
                .rest()
                .trim_start_matches([' ', '\t', '\n', '\r'])
                .len();
        self.advance(n);
    }

    /// After a value: only spaces (or a comment) may remain on the line.
    fn end_of_line(&mut self) -> Result<(), RemarkParseError> {
        self.skip_spaces();
        let line = self.current_line().trim_end_matches('\r');
        if !line.is_empty() && !line.starts_with('#') {
            return self.error(format!("unexpected text after a value: '{line}'"));
        }
        self.next_line();
        Ok(())
    }

    fn document(&mut self) -> Result<Remark, RemarkParseError> {
        let header = self.current_line().trim_end();
        let Some(after) = header.strip_prefix("---") else {
            return self.error(format!(
                "expected a document start '--- !Tag', found '{header}'"
            ));
        };
        let tag = after.trim();
        if tag.is_empty() {
            return self.error("remark document without a type tag");
        }
        let Some(kind) = RemarkKind::from_tag(tag) else {
            return self.error(format!("unknown remark type '{tag}'"));
        };
        let start_line = self.line;
        self.next_line();

        let mut f = RemarkFields::default();
        loop {
            if self.at_end() {
                break;
            }
            let line = self.current_line().trim_end();
            if line == "..." {
                self.next_line();
                break;
            }
            if line.starts_with("---") {
                break;
            }
            if line.is_empty() || line.starts_with('#') {
                self.next_line();
                continue;
            }
            if line.starts_with([' ', '\t']) {
                return self.error(format!("unexpected indentation: '{line}'"));
            }
            let key = self.key()?;
            let duplicate = match key.as_str() {
                "Pass" => f.pass.replace(self.block_scalar()?).is_some(),
                "Name" => f.name.replace(self.block_scalar()?).is_some(),
                "Function" => f.function.replace(self.block_scalar()?).is_some(),
                "DebugLoc" => {
                    let loc = self.flow_debug_loc()?;
                    self.end_of_line()?;
                    f.debug_loc.replace(loc).is_some()
                }
                "Hotness" => {
                    let text = self.block_scalar()?;
                    let Ok(h) = text.parse::<u64>() else {
                        return self.error(format!("Hotness is not a number: '{text}'"));
                    };
                    f.hotness.replace(h).is_some()
                }
                "Args" => {
                    self.end_of_line()?;
                    let args = self.args()?;
                    f.args.replace(args).is_some()
                }
                _ => return self.error(format!("unknown key '{key}'")),
            };
            if duplicate {
                return self.error(format!("duplicate key '{key}'"));
            }
        }

        // LLVM's parser also refuses these three when they are empty.
        let required = |value: Option<String>, what: &str| {
            value.filter(|v| !v.is_empty()).ok_or_else(|| {
                RemarkParseError::at_line(start_line, format!("remark has no {what}"))
            })
        };
        Ok(Remark {
            kind,
            pass: required(f.pass, "Pass")?,
            name: required(f.name, "Name")?,
            function: required(f.function, "Function")?,
            debug_loc: f.debug_loc,
            hotness: f.hotness,
            args: f.args.unwrap_or_default(),
        })
    }

    /// `key:` followed by a space or the end of the line; leaves the cursor after the colon.
    fn key(&mut self) -> Result<String, RemarkParseError> {
        let line = self.current_line();
        let colon = line
            .char_indices()
            .find(|&(i, c)| {
                c == ':' && matches!(line[i + 1..].chars().next(), None | Some(' ' | '\t' | '\r'))
            })
            .map(|(i, _)| i);
        let Some(colon) = colon else {
            return self.error(format!(
                "expected 'key: value', found '{}'",
                line.trim_end()
            ));
        };
        let key = line[..colon].to_string();
        if key.is_empty() || key.starts_with(['\'', '"']) {
            return self.error(format!("unsupported key '{key}'"));
        }
        self.advance(colon + 1);
        Ok(key)
    }

    /// A scalar value that ends its line.
    fn block_scalar(&mut self) -> Result<String, RemarkParseError> {
        let v = self.scalar(false)?;
        self.end_of_line()?;
        Ok(v)
    }

    /// A plain, single- or double-quoted scalar at the cursor (after spaces). In a flow map,
    /// a plain scalar also ends at `,` and `}`.
    fn scalar(&mut self, in_flow: bool) -> Result<String, RemarkParseError> {
        self.skip_spaces();
        match self.peek() {
            Some('\'') => self.single_quoted(),
            Some('"') => self.double_quoted(),
            _ => {
                let line = self.current_line();
                // The delimiters are ASCII, so a byte scan finds them in UTF-8 text.
                let bytes = line.as_bytes();
                let end = bytes
                    .iter()
                    .enumerate()
                    .position(|(i, &c)| {
                        let comment = c == b'#' && i > 0 && matches!(bytes[i - 1], b' ' | b'\t');
                        comment || (in_flow && matches!(c, b',' | b'}'))
                    })
                    .unwrap_or(bytes.len());
                let value = line[..end].trim_end().to_string();
                if value.is_empty() {
                    return self.error("missing value");
                }
                self.advance(end);
                Ok(value)
            }
        }
    }

    fn single_quoted(&mut self) -> Result<String, RemarkParseError> {
        let line = self.current_line();
        let mut value = String::new();
        // After the opening quote: runs of text up to a quote; `''` is one quote.
        let mut at = 1;
        while let Some(q) = line[at..].find('\'') {
            value.push_str(&line[at..at + q]);
            at += q + 1;
            if line[at..].starts_with('\'') {
                value.push('\'');
                at += 1;
                continue;
            }
            self.advance(at);
            return Ok(value);
        }
        self.error("unterminated single-quoted string (multi-line strings are not supported)")
    }

    fn double_quoted(&mut self) -> Result<String, RemarkParseError> {
        let line = self.current_line();
        let mut value = String::new();
        let mut chars = line.char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.advance(i + 1);
                    return Ok(value);
                }
                '\\' => {
                    let Some((_, e)) = chars.next() else { break };
                    let simple = match e {
                        '0' => Some('\0'),
                        'a' => Some('\x07'),
                        'b' => Some('\x08'),
                        't' | '\t' => Some('\t'),
                        'n' => Some('\n'),
                        'v' => Some('\x0b'),
                        'f' => Some('\x0c'),
                        'r' => Some('\r'),
                        'e' => Some('\x1b'),
                        ' ' => Some(' '),
                        '"' => Some('"'),
                        '/' => Some('/'),
                        '\\' => Some('\\'),
                        'N' => Some('\u{85}'),
                        '_' => Some('\u{a0}'),
                        'L' => Some('\u{2028}'),
                        'P' => Some('\u{2029}'),
                        _ => None,
                    };
                    if let Some(s) = simple {
                        value.push(s);
                        continue;
                    }
                    let digits = match e {
                        'x' => 2,
                        'u' => 4,
                        'U' => 8,
                        _ => return self.error(format!("unknown escape '\\{e}'")),
                    };
                    let hex: String = chars.by_ref().take(digits).map(|(_, c)| c).collect();
                    let code = (hex.len() == digits)
                        .then(|| u32::from_str_radix(&hex, 16).ok())
                        .flatten()
                        .and_then(char::from_u32);
                    let Some(c) = code else {
                        return self.error(format!("bad escape '\\{e}{hex}'"));
                    };
                    value.push(c);
                }
                c => value.push(c),
            }
        }
        self.error("unterminated double-quoted string (multi-line strings are not supported)")
    }

    /// `{ File: f, Line: n, Column: n }`, possibly over several lines.
    fn flow_debug_loc(&mut self) -> Result<DebugLoc, RemarkParseError> {
        self.skip_spaces();
        if self.peek() != Some('{') {
            return self
                .error("DebugLoc must be a flow map '{ File: ..., Line: ..., Column: ... }'");
        }
        self.advance(1);
        let (mut file, mut line, mut column) = (None, None, None);
        loop {
            self.skip_whitespace();
            if self.peek() == Some('}') {
                self.advance(1);
                break;
            }
            let rest = self.current_line();
            let Some(colon) = rest.find(": ") else {
                return self.error(format!(
                    "expected 'key: value' in DebugLoc, found '{}'",
                    rest.trim_end()
                ));
            };
            let key = rest[..colon].trim().to_string();
            self.advance(colon + 1);
            let value = self.scalar(true)?;
            let number = |v: &str| v.parse::<u32>().ok();
            let duplicate = match key.as_str() {
                "File" => file.replace(value).is_some(),
                "Line" | "Column" => {
                    let Some(n) = number(&value) else {
                        return self.error(format!("DebugLoc {key} is not a number: '{value}'"));
                    };
                    let slot = if key == "Line" {
                        &mut line
                    } else {
                        &mut column
                    };
                    slot.replace(n).is_some()
                }
                _ => return self.error(format!("unknown key '{key}' in DebugLoc")),
            };
            if duplicate {
                return self.error(format!("duplicate key '{key}' in DebugLoc"));
            }
            self.skip_whitespace();
            match self.peek() {
                Some(',') => self.advance(1),
                Some('}') => {}
                _ => return self.error("expected ',' or '}' in DebugLoc"),
            }
        }
        match (file, line, column) {
            (Some(file), Some(line), Some(column)) => Ok(DebugLoc { file, line, column }),
            _ => self.error("DebugLoc needs File, Line and Column"),
        }
    }

    /// The items of `Args:`, each `- Key: value` with an optional `DebugLoc:` under it.
    fn args(&mut self) -> Result<Vec<RemarkArg>, RemarkParseError> {
        let mut args: Vec<RemarkArg> = Vec::new();
        let mut item_indent = None;
        loop {
            if self.at_end() {
                break;
            }
            let line = self.current_line();
            let trimmed = line.trim_start_matches(' ');
            let indent = line.len() - trimmed.len();
            if trimmed.trim_end().is_empty() {
                self.next_line();
                continue;
            }
            let is_item = trimmed.starts_with("- ") || trimmed.trim_end() == "-";
            if is_item && item_indent.is_none_or(|i| i == indent) {
                item_indent = Some(indent);
                self.advance(indent + 1);
                self.skip_spaces();
                let mut arg = RemarkArg {
                    key: String::new(),
                    value: String::new(),
                    debug_loc: None,
                };
                let mut has_value = false;
                self.arg_entry(&mut arg, &mut has_value)?;
                // Further keys of the item are indented past the dash.
                loop {
                    let line = self.current_line();
                    let trimmed = line.trim_start_matches(' ');
                    let indent = line.len() - trimmed.len();
                    if self.at_end()
                        || indent != item_indent.unwrap_or(0) + 2
                        || trimmed.starts_with('-')
                    {
                        break;
                    }
                    self.advance(indent);
                    self.arg_entry(&mut arg, &mut has_value)?;
                }
                if !has_value {
                    return self.error("argument has only a DebugLoc, no value");
                }
                args.push(arg);
                continue;
            }
            if indent == 0 {
                break;
            }
            return self.error(format!("unexpected line in Args: '{}'", line.trim_end()));
        }
        if args.is_empty() {
            return self.error("Args is empty");
        }
        Ok(args)
    }

    /// One `key: value` of an argument item, at the cursor.
    fn arg_entry(
        &mut self,
        arg: &mut RemarkArg,
        has_value: &mut bool,
    ) -> Result<(), RemarkParseError> {
        let key = self.key()?;
        if key == "DebugLoc" {
            if arg.debug_loc.is_some() {
                return self.error("only one DebugLoc entry is allowed per argument");
            }
            arg.debug_loc = Some(self.flow_debug_loc()?);
            self.end_of_line()
        } else {
            if *has_value {
                return self.error("only one string entry is allowed per argument");
            }
            arg.key = key;
            arg.value = self.block_scalar()?;
            *has_value = true;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dead_function_remark;

    fn loc(file: &str, line: u32, column: u32) -> Option<DebugLoc> {
        Some(DebugLoc {
            file: file.to_string(),
            line,
            column,
        })
    }

    fn arg(key: &str, value: &str) -> RemarkArg {
        RemarkArg {
            key: key.to_string(),
            value: value.to_string(),
            debug_loc: None,
        }
    }

    #[test]
    fn classic_lto_example() {
        // What lld-14 writes for the LLVM notes' tu1.c/tu2.c example built without -g
        // (tests/data/lld-deadfunction.opt.ld.yaml). The notes print the message without its
        // surrounding spaces, but LLVM's message has them, and they are what make LLVM quote
        // it.
        let expected = "--- !Passed
Pass:            lto
Name:            deadfunction
Function:        unused
Args:
  - Function:        unused
  - String:          ' not added to the combined module '
...
";
        let remark = dead_function_remark("unused", None);
        assert_eq!(format_yaml(std::slice::from_ref(&remark)), expected);
        let mut out = Vec::new();
        write_yaml(std::slice::from_ref(&remark), &mut out).unwrap();
        assert_eq!(out, expected.as_bytes());
        assert_eq!(parse_yaml(expected).unwrap(), vec![remark]);
    }

    #[test]
    fn words_and_spaces_need_no_quotes() {
        // As clang-14 writes `- String:          Loop deleted because it is invariant`: the
        // notes' space-less message would be written plain, not quoted.
        let mut remark = dead_function_remark("unused", None);
        remark.args[1].value = "not added to the combined module".to_string();
        let text = format_yaml(&[remark]);
        assert!(
            text.contains("\n  - String:          not added to the combined module\n"),
            "{text}"
        );
    }

    #[test]
    fn dead_function_remark_matches_lld() {
        let lld = "--- !Passed
Pass:            lto
Name:            deadfunction
DebugLoc:        { File: tu2.c, Line: 1, Column: 0 }
Function:        unused
Args:
  - Function:        unused
    DebugLoc:        { File: tu2.c, Line: 1, Column: 0 }
  - String:          ' not added to the combined module '
...
";
        assert_eq!(
            format_yaml(&[dead_function_remark("unused", loc("tu2.c", 1, 0))]),
            lld
        );
    }

    #[test]
    fn quoting_follows_llvm() {
        for (value, written) in [
            ("", "''"),
            ("plain words, and-dots.^_", "plain words, and-dots.^_"),
            (" leading", "' leading'"),
            ("trailing ", "'trailing '"),
            ("\ttab", "'\ttab'"),
            ("inner\ttab", "inner\ttab"),
            ("true", "'true'"),
            ("False", "'False'"),
            ("yes", "yes"),
            ("null", "'null'"),
            ("~", "'~'"),
            ("123", "'123'"),
            ("-30", "'-30'"),
            ("+1.5e-3", "'+1.5e-3'"),
            (".5", "'.5'"),
            ("1.", "'1.'"),
            ("1e", "1e"),
            ("e1", "e1"),
            ("0x1F", "'0x1F'"),
            ("0o17", "'0o17'"),
            ("0o19", "0o19"),
            (".inf", "'.inf'"),
            ("-.Inf", "'-.Inf'"),
            (".NaN", "'.NaN'"),
            ("a:b", "'a:b'"),
            (":", "':'"),
            ("a#b", "'a#b'"),
            ("#", "'#'"),
            ("-dash", "'-dash'"),
            ("dash-", "dash-"),
            ("dir/file.c", "'dir/file.c'"),
            ("/usr/include/stdio.h", "'/usr/include/stdio.h'"),
            ("it's", "'it''s'"),
            ("'", "''''"),
            ("(cost=", "'(cost='"),
            ("caf\u{e9}", "\"caf\u{e9}\""),
            ("line\nbreak", "\"line\\nbreak\""),
            ("\n", "\"\\n\""),
            ("cr\r", "\"cr\\r\""),
            ("q\"uote\\", "'q\"uote\\'"),
            ("bell\x07 \"q\" \\", "\"bell\\a \\\"q\\\" \\\\\""),
            ("\x01", "\"\\x01\""),
            ("del\x7f", "\"del\x7f\""),
            ("nbsp\u{a0}", "\"nbsp\\_\""),
            ("zwsp\u{200b}", "\"zwsp\\u200B\""),
            ("c1\u{90}", "\"c1\\x90\""),
            ("emoji\u{1f600}", "\"emoji\u{1f600}\""),
            ("plane15\u{f0000}", "\"plane15\\U000F0000\""),
        ] {
            assert_eq!(quote(value), written, "quoting {value:?}");
        }
    }

    #[test]
    fn quoted_values_parse_back() {
        let values = [
            "",
            " leading",
            "true",
            "123",
            "a:b",
            "a#b",
            "dir/file.c",
            "it's",
            "''",
            "caf\u{e9}",
            "line\nbreak",
            "\x01\x07\x08\t\x0b\x0c\r\x1b\0",
            "del\x7f",
            "\u{85}\u{a0}\u{2028}\u{2029}\u{200b}\u{90}\u{f0000}",
            "back\\slash \"quoted\"",
        ];
        let remarks: Vec<Remark> = values
            .iter()
            .map(|v| Remark {
                kind: RemarkKind::Analysis,
                pass: format!("p{v}"),
                name: format!("n{v}"),
                debug_loc: loc(v, 1, 2),
                function: format!("f{v}"),
                hotness: Some(7),
                args: vec![arg(if v.is_empty() { "K" } else { "String" }, v)],
            })
            .collect();
        let text = format_yaml(&remarks);
        assert_eq!(parse_yaml(&text).unwrap(), remarks, "{text}");
    }

    #[test]
    fn long_file_names_wrap_the_debug_loc_like_llvm() {
        // Copied from clang-14's own output (tests/data/clang-O2-pgo.opt.yaml layout).
        let file = "a_rather_long_directory_name/with/several/levels/of/nesting/hot.c";
        let remark = Remark {
            kind: RemarkKind::Passed,
            pass: "inline".to_string(),
            name: "Inlined".to_string(),
            debug_loc: loc(file, 3, 87),
            function: "it".to_string(),
            hotness: Some(500),
            args: vec![RemarkArg {
                key: "Caller".to_string(),
                value: "it".to_string(),
                debug_loc: loc(file, 3, 0),
            }],
        };
        let expected = "--- !Passed
Pass:            inline
Name:            Inlined
DebugLoc:        { File: 'a_rather_long_directory_name/with/several/levels/of/nesting/hot.c', 
                   Line: 3, Column: 87 }
Function:        it
Hotness:         500
Args:
  - Caller:          it
    DebugLoc:        { File: 'a_rather_long_directory_name/with/several/levels/of/nesting/hot.c', 
                       Line: 3, Column: 0 }
...
";
        let text = format_yaml(std::slice::from_ref(&remark));
        assert_eq!(text, expected);
        assert_eq!(parse_yaml(&text).unwrap(), vec![remark]);
    }

    #[test]
    fn long_keys_get_one_space() {
        let remark = Remark {
            kind: RemarkKind::Passed,
            pass: "loop-vectorize".to_string(),
            name: "Vectorized".to_string(),
            debug_loc: None,
            function: "sum".to_string(),
            hotness: None,
            args: vec![
                arg("VectorizationFactor", "4"),
                arg("InterleaveCount", "2"),
                arg("NumInstructions", "7"),
            ],
        };
        let text = format_yaml(&[remark]);
        assert!(text.contains("\n  - VectorizationFactor: '4'\n"), "{text}");
        assert!(text.contains("\n  - InterleaveCount: '2'\n"), "{text}");
        assert!(text.contains("\n  - NumInstructions: '7'\n"), "{text}");
    }

    #[test]
    fn every_kind_has_its_tag_and_no_args_means_no_args_key() {
        for kind in RemarkKind::ALL {
            let remark = Remark {
                kind,
                pass: "p".to_string(),
                name: "n".to_string(),
                debug_loc: None,
                function: "f".to_string(),
                hotness: None,
                args: vec![],
            };
            let text = format_yaml(std::slice::from_ref(&remark));
            assert_eq!(
                text,
                format!(
                    "--- {}\nPass:            p\nName:            n\nFunction:        f\n...\n",
                    kind.tag()
                )
            );
            assert_eq!(parse_yaml(&text).unwrap(), vec![remark]);
        }
    }

    #[test]
    fn parser_is_strict() {
        let cases = [
            ("Pass: a\nName: b\nFunction: c\n", "expected a document start"),
            ("---\nPass: a\nName: b\nFunction: c\n", "without a type tag"),
            ("--- !Bogus\nPass: a\nName: b\nFunction: c\n", "unknown remark type '!Bogus'"),
            ("--- !Passed\nPass: a\nName: b\n...\n", "remark has no Function"),
            ("--- !Passed\nName: b\nFunction: c\n", "remark has no Pass"),
            ("--- !Passed\nPass: a\nName: ''\nFunction: c\n", "remark has no Name"),
            ("--- !Passed\nPass: a\nName: b\nFunction: c\nColor: red\n", "unknown key 'Color'"),
            ("--- !Passed\nPass: a\nPass: a\nName: b\nFunction: c\n", "duplicate key 'Pass'"),
            ("--- !Passed\nPass: 'a\nName: b\nFunction: c\n", "unterminated single-quoted"),
            ("--- !Passed\nPass: a\nName: b\nFunction: c\nHotness: hot\n", "not a number"),
            (
                "--- !Passed\nPass: a\nName: b\nFunction: c\nDebugLoc: { File: x.c, Line: 1 }\n",
                "needs File, Line and Column",
            ),
            (
                "--- !Passed\nPass: a\nName: b\nFunction: c\nArgs:\n  - A: x\n    B: y\n",
                "only one string entry",
            ),
            (
                "--- !Passed\nPass: a\nName: b\nFunction: c\nArgs:\n  - DebugLoc: { File: x, Line: 1, Column: 1 }\n",
                "no value",
            ),
            ("--- !Passed\nPass: a\nName: b\nFunction: c\nArgs:\n", "Args is empty"),
            ("--- !Passed\nPass: \"a\\q\"\nName: b\nFunction: c\n", "unknown escape"),
        ];
        for (text, message) in cases {
            let err = parse_yaml(text).expect_err(text);
            assert!(err.message.contains(message), "{text:?}: got '{err}'");
        }
    }

    #[test]
    fn parser_accepts_other_padding_and_indentation() {
        // The LLVM notes' rendering: less padding, sequence items at column 0.
        let text = "--- !Passed
Pass:          lto
Name:          deadfunction
Function:      unused
Args:
- Function:    unused
- String:      'not added to the combined module'
...
";
        let remarks = parse_yaml(text).unwrap();
        assert_eq!(remarks[0].args[1].value, "not added to the combined module");
        assert_eq!(remarks[0].args.len(), 2);
    }

    #[test]
    fn error_lines_are_counted() {
        let text =
            "--- !Passed\nPass: a\nName: b\nFunction: c\n...\n--- !Missed\nPass: a\nWhat: x\n";
        assert_eq!(
            parse_yaml(text).unwrap_err().position,
            crate::Position::Line(8)
        );
    }

    #[test]
    fn mangled_remark_files_never_panic() {
        let mut rng = crate::fixtures::XorShift(7);
        let samples = [
            include_str!("../tests/data/lld-lto.opt.ld.yaml"),
            include_str!("../tests/data/clang-O2-pgo.opt.yaml"),
        ];
        let alphabet: Vec<char> = " \n\t:-'\"{},#!.\\xu0aZé".chars().collect();
        for i in 0..3_000 {
            let mut chars: Vec<char> = samples[i % 2].chars().collect();
            for _ in 0..1 + rng.next() % 8 {
                let at = (rng.next() as usize) % chars.len();
                let c = alphabet[(rng.next() as usize) % alphabet.len()];
                match rng.next() % 3 {
                    0 => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ => {
                        chars.remove(at);
                    }
                }
            }
            let text: String = chars.into_iter().collect();
            if let Ok(remarks) = parse_yaml(&text) {
                // Whatever parses can be written and parsed again to the same remarks.
                assert_eq!(parse_yaml(&format_yaml(&remarks)).unwrap(), remarks);
            }
        }
    }

    #[test]
    fn documents_stream_like_parse_yaml() {
        for text in [
            include_str!("../tests/data/lld-lto.opt.ld.yaml"),
            include_str!("../tests/data/clang-O2-pgo.opt.yaml"),
        ] {
            let streamed: Vec<Remark> = YamlDocuments::new(text.as_bytes())
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(streamed, parse_yaml(text).unwrap());
        }
        // Documents without `...`, blank lines between them, errors at the file's line.
        let text = "\n--- !Passed\nPass: a\nName: b\nFunction: c\n--- !Missed\nPass: a\n\nName: b\nFunction: d\n...\n\n--- !Missed\nPass: a\nWhat: x\n";
        let all: Vec<_> = YamlDocuments::new(text.as_bytes()).collect();
        assert_eq!(all.len(), 3);
        assert_eq!(all[1].as_ref().unwrap().function, "d");
        assert_eq!(
            all[2].as_ref().unwrap_err().position,
            crate::Position::Line(15)
        );
        assert_eq!(
            parse_yaml(text).unwrap_err().position,
            crate::Position::Line(15)
        );
        let bad = b"--- !Passed\nPass: a\nName: \xff\nFunction: c\n";
        let err = YamlDocuments::new(&bad[..]).next().unwrap().unwrap_err();
        assert_eq!(err.position, crate::Position::Line(3));
    }
}
