//! `--dynamic-list FILE`: symbols an executable exports to the dynamic symbol table (the
//! sanitizer runtimes pass one so shared libraries can call into them), and in a shared
//! library the only symbols that stay preemptible (lld's rule).
//!
//! The file is `{ sym; pattern*; extern "C" { ... }; };` with `/* */` and `#` comments.
//! Patterns are globs (`*`, `?`, `[...]`); `extern "C++"` names are matched as written
//! (rld does not demangle).

use crate::error::{LinkError, Result};
use rustc_hash::FxHashSet;
use std::path::Path;

#[derive(Debug, Default)]
pub struct DynamicList {
    /// `--dynamic-list`.
    listed: Patterns,
    /// `--export-dynamic-symbol` and `--export-dynamic-symbol-list` (lld's): exported from an
    /// executable; in a shared library preemptible whatever `-Bsymbolic` says, without
    /// making the library's other symbols bind locally.
    export: Patterns,
}

/// Names and globs.
#[derive(Debug, Default)]
struct Patterns {
    exact: FxHashSet<Vec<u8>>,
    globs: Vec<Vec<u8>>,
}

impl Patterns {
    fn add(&mut self, name: &[u8]) {
        if name.iter().any(|c| matches!(c, b'*' | b'?' | b'[')) {
            self.globs.push(name.to_vec());
        } else {
            self.exact.insert(name.to_vec());
        }
    }

    fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.globs.is_empty()
    }

    fn contains(&self, name: &[u8]) -> bool {
        self.exact.contains(name) || self.globs.iter().any(|g| glob_match(g, name))
    }
}

impl DynamicList {
    /// `--dynamic-list` files, `--export-dynamic-symbol` patterns and
    /// `--export-dynamic-symbol-list` files (in the dynamic-list format).
    pub fn load(
        paths: &[std::path::PathBuf],
        export_symbols: &[String],
        export_lists: &[std::path::PathBuf],
    ) -> Result<DynamicList> {
        let mut list = DynamicList::default();
        for path in paths {
            let text =
                std::fs::read_to_string(path).map_err(|e| LinkError::cannot_open(path, e))?;
            crate::read_log::note(path);
            parse(&mut list.listed, path, &text)?;
        }
        for path in export_lists {
            let text =
                std::fs::read_to_string(path).map_err(|e| LinkError::cannot_open(path, e))?;
            crate::read_log::note(path);
            parse(&mut list.export, path, &text)?;
        }
        for name in export_symbols {
            list.export.add(name.as_bytes());
        }
        Ok(list)
    }

    /// No `--dynamic-list` was given.
    pub fn is_empty(&self) -> bool {
        self.listed.is_empty()
    }

    /// A `--dynamic-list` names it.
    pub fn lists(&self, name: &[u8]) -> bool {
        self.listed.contains(name)
    }

    /// An `--export-dynamic-symbol` pattern matches it.
    pub fn exports(&self, name: &[u8]) -> bool {
        self.export.contains(name)
    }

    /// Exported from an executable: listed or matched.
    pub fn contains(&self, name: &[u8]) -> bool {
        self.lists(name) || self.exports(name)
    }
}

fn parse(patterns: &mut Patterns, path: &Path, text: &str) -> Result<()> {
    let bad = |msg: &str| LinkError::bad_input(path.display().to_string(), msg);
    let mut depth = 0i32;
    for token in tokens(text) {
        match token.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth < 0 {
                    return Err(bad("unbalanced '}' in dynamic list"));
                }
            }
            ";" | "extern" | "\"C\"" | "\"C++\"" => {}
            name => {
                if depth == 0 {
                    return Err(bad(&format!("'{name}' outside {{ }} in dynamic list")));
                }
                patterns.add(name.trim_matches('"').as_bytes());
            }
        }
    }
    if depth != 0 {
        return Err(bad("unbalanced '{' in dynamic list"));
    }
    Ok(())
}

/// Splits a dynamic list into names, braces and semicolons, dropping comments.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut cur = String::new();
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.is_empty() {
            out.push(std::mem::take(cur));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                flush(&mut cur, &mut out);
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            '#' => {
                flush(&mut cur, &mut out);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '"' => {
                flush(&mut cur, &mut out);
                let mut quoted = String::from('"');
                for c in chars.by_ref() {
                    quoted.push(c);
                    if c == '"' {
                        break;
                    }
                }
                out.push(quoted);
            }
            '{' | '}' | ';' => {
                flush(&mut cur, &mut out);
                out.push(c.to_string());
            }
            c if c.is_whitespace() => flush(&mut cur, &mut out),
            c => cur.push(c),
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// Shell-style glob over bytes: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`.
pub fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    // Iterative matching with one backtrack point for the last `*`: linear in practice.
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() {
            match pattern[p] {
                b'*' => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    n += 1;
                    continue;
                }
                b'[' => {
                    if let Some((matched, len)) = class_match(&pattern[p..], name[n]) {
                        if matched {
                            p += len;
                            n += 1;
                            continue;
                        }
                    } else if name[n] == b'[' {
                        p += 1;
                        n += 1;
                        continue;
                    }
                }
                c if c == name[n] => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// Matches one character against a `[...]` class at the start of `pattern`; returns
/// whether it matched and the class's length, or None if the class is not closed.
fn class_match(pattern: &[u8], c: u8) -> Option<(bool, usize)> {
    let end = pattern.iter().skip(2).position(|&b| b == b']')? + 2;
    let mut body = &pattern[1..end];
    let negate = matches!(body.first(), Some(b'!' | b'^'));
    if negate {
        body = &body[1..];
    }
    let mut i = 0;
    let mut hit = false;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == b'-' {
            hit |= body[i] <= c && c <= body[i + 2];
            i += 3;
        } else {
            hit |= body[i] == c;
            i += 1;
        }
    }
    Some((hit != negate, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match(b"__asan_*", b"__asan_report_load4"));
        assert!(!glob_match(b"__asan_*", b"__lsan_x"));
        assert!(glob_match(b"a?c", b"abc"));
        assert!(glob_match(b"*_end", b"__init_array_end"));
        assert!(glob_match(b"f[0-9]x", b"f7x"));
        assert!(!glob_match(b"f[!0-9]x", b"f7x"));
        assert!(glob_match(b"*", b""));
        assert!(!glob_match(b"abc", b"ab"));
    }

    #[test]
    fn parses_the_sanitizer_list_shape() {
        let mut l = DynamicList::default();
        let text = "{\n  _Unwind_RaiseException;\n  __asan_*; /* c */ # line\n  extern \"C++\" { \"operator new\"; };\n};\n";
        parse(&mut l.listed, Path::new("x.syms"), text).unwrap();
        assert!(l.contains(b"_Unwind_RaiseException"));
        assert!(l.contains(b"__asan_init"));
        assert!(l.contains(b"operator new"));
        assert!(!l.contains(b"main"));
        assert!(!l.is_empty() && !l.exports(b"__asan_init"));
    }

    #[test]
    fn exported_patterns_are_not_a_dynamic_list() {
        let l = DynamicList::load(&[], &["keep_*".into(), "exact".into()], &[]).unwrap();
        assert!(l.is_empty(), "--export-dynamic-symbol is no --dynamic-list");
        assert!(l.exports(b"keep_me") && l.exports(b"exact") && !l.exports(b"other"));
        assert!(l.contains(b"keep_me") && !l.lists(b"keep_me"));
    }

    #[test]
    fn rejects_unbalanced_braces() {
        let mut l = DynamicList::default();
        let err = parse(&mut l.listed, Path::new("bad.list"), "{ foo; ").unwrap_err();
        assert!(err.to_string().contains("bad.list"), "{err}");
    }
}
