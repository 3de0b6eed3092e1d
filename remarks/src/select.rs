//! Which remarks a command or a policy rule is about: a selector of kind, pass, name,
//! function, source file, argument values and hotness, each field a glob or a regex.

use crate::model::{Remark, RemarkKind};
use crate::names::display_name;
use std::borrow::Cow;

/// A text pattern: a glob (`*` any run of characters, `/` included; `?` one character;
/// `[abc]` a class), or a regular expression when written `re:...`. Both match the whole
/// text.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    regex: regex::Regex,
}

impl Pattern {
    pub fn new(text: &str) -> Result<Self, String> {
        let body = match text.strip_prefix("re:") {
            Some(re) => format!("^(?:{re})$"),
            None => glob_to_regex(text),
        };
        let regex = regex::Regex::new(&body).map_err(|e| format!("bad pattern '{text}': {e}"))?;
        Ok(Pattern {
            source: text.to_string(),
            regex,
        })
    }

    pub fn matches(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// Whether the pattern matches a symbol name as written or as people read it
    /// ([`display_name`]: `remarks_rs::*` matches `_ZN10remarks_rs7compute17h...E`).
    pub fn matches_name(&self, name: &str) -> bool {
        self.matches(name)
            || matches!(display_name(name), Cow::Owned(shown) if self.matches(&shown))
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }
}

fn glob_to_regex(glob: &str) -> String {
    let mut out = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => {
                // `**` is the same as `*`: both cross `/`.
                while chars.peek() == Some(&'*') {
                    chars.next();
                }
                out.push_str(".*");
            }
            '?' => out.push('.'),
            '[' => {
                let mut class = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == ']' {
                        closed = true;
                        break;
                    }
                    class.push(c);
                }
                if closed && !class.is_empty() {
                    let negated = class.strip_prefix('!').map(|c| format!("^{c}"));
                    let class = negated.unwrap_or(class);
                    out.push('[');
                    out.push_str(&class.replace('\\', "\\\\").replace('[', "\\["));
                    out.push(']');
                } else {
                    out.push_str(&regex::escape(&format!("[{class}")));
                    if closed {
                        out.push_str("\\]");
                    }
                }
            }
            c => out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out.push('$');
    out
}

/// A remark kind as users write it: `Passed`, `Missed`, `Analysis`, ... (case-insensitive,
/// with or without the `!` of the YAML tag).
pub fn parse_kind(text: &str) -> Result<RemarkKind, String> {
    let t = text.trim_start_matches('!');
    RemarkKind::ALL
        .into_iter()
        .find(|k| k.tag()[1..].eq_ignore_ascii_case(t))
        .ok_or_else(|| {
            format!("unknown remark kind '{text}' (Passed, Missed, Analysis, AnalysisFPCommute, AnalysisAliasing, Failure)")
        })
}

/// Every condition must hold; an absent field matches everything.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub kinds: Vec<RemarkKind>,
    pub pass: Option<Pattern>,
    pub name: Option<Pattern>,
    /// The function's symbol or, for a Rust symbol, its demangled path.
    pub function: Option<Pattern>,
    /// The remark's source file (its `DebugLoc`); a remark without one never matches.
    pub file: Option<Pattern>,
    /// Each `(key, value)`: some argument with that key has a matching value (a `Callee`
    /// symbol, say, as written or demangled).
    pub args: Vec<(String, Pattern)>,
    pub min_hotness: Option<u64>,
}

impl Selector {
    pub fn matches(&self, r: &Remark) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&r.kind))
            && self.pass.as_ref().is_none_or(|p| p.matches(&r.pass))
            && self.name.as_ref().is_none_or(|p| p.matches(&r.name))
            && self
                .function
                .as_ref()
                .is_none_or(|p| p.matches_name(&r.function))
            && self
                .file
                .as_ref()
                .is_none_or(|p| r.debug_loc.as_ref().is_some_and(|l| p.matches(&l.file)))
            && self.args.iter().all(|(key, value)| {
                r.args
                    .iter()
                    .any(|a| a.key == *key && value.matches_name(&a.value))
            })
            && self
                .min_hotness
                .is_none_or(|h| r.hotness.is_some_and(|rh| rh >= h))
    }

    /// `KEY=VALUE` as the command line and policies write an argument condition.
    pub fn parse_arg(text: &str) -> Result<(String, Pattern), String> {
        let (key, value) = text
            .split_once('=')
            .ok_or_else(|| format!("expected KEY=VALUE, found '{text}'"))?;
        Ok((key.to_string(), Pattern::new(value)?))
    }

    /// What the selector asks, for messages (`pass=inline kind=Missed ...`).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.kinds.is_empty() {
            let kinds: Vec<&str> = self.kinds.iter().map(|k| &k.tag()[1..]).collect();
            parts.push(format!("kind={}", kinds.join("|")));
        }
        for (field, p) in [
            ("pass", &self.pass),
            ("name", &self.name),
            ("function", &self.function),
            ("file", &self.file),
        ] {
            if let Some(p) = p {
                parts.push(format!("{field}={}", p.as_str()));
            }
        }
        for (k, v) in &self.args {
            parts.push(format!("{k}={}", v.as_str()));
        }
        if let Some(h) = self.min_hotness {
            parts.push(format!("hotness>={h}"));
        }
        if parts.is_empty() {
            "every remark".into()
        } else {
            parts.join(" ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DebugLoc, RemarkArg};

    #[test]
    fn globs_match_whole_text() {
        let p = Pattern::new("hot_*").unwrap();
        assert!(p.matches("hot_loop") && p.matches("hot_") && !p.matches("a_hot_loop"));
        let p = Pattern::new("src/vm/*").unwrap();
        assert!(p.matches("src/vm/a/b.c") && !p.matches("lib/src/vm/a.c"));
        let p = Pattern::new("f?[0-9].c").unwrap();
        assert!(p.matches("fa1.c") && !p.matches("fab.c"));
        assert!(Pattern::new("a.b").unwrap().matches("a.b"));
        assert!(!Pattern::new("a.b").unwrap().matches("axb"));
        assert!(Pattern::new("[!a]x").unwrap().matches("bx"));
        assert!(Pattern::new("[unclosed").unwrap().matches("[unclosed"));
        let re = Pattern::new("re:sqlite3(Vdbe|Btree).*").unwrap();
        assert!(re.matches("sqlite3VdbeExec") && !re.matches("xsqlite3VdbeExec"));
        assert!(Pattern::new("re:(").is_err());
    }

    #[test]
    fn selector_checks_every_field() {
        let r = Remark {
            kind: RemarkKind::Missed,
            pass: "inline".into(),
            name: "TooCostly".into(),
            debug_loc: Some(DebugLoc {
                file: "src/vm/run.c".into(),
                line: 3,
                column: 1,
            }),
            function: "run".into(),
            hotness: Some(50),
            args: vec![RemarkArg {
                key: "Callee".into(),
                value: "scale".into(),
                debug_loc: None,
            }],
        };
        let mut s = Selector {
            kinds: vec![parse_kind("missed").unwrap()],
            pass: Some(Pattern::new("inline").unwrap()),
            function: Some(Pattern::new("r*").unwrap()),
            file: Some(Pattern::new("src/vm/*").unwrap()),
            args: vec![Selector::parse_arg("Callee=sc*").unwrap()],
            min_hotness: Some(50),
            ..Default::default()
        };
        assert!(s.matches(&r));
        s.min_hotness = Some(51);
        assert!(!s.matches(&r));
        s.min_hotness = None;
        s.args = vec![Selector::parse_arg("Caller=scale").unwrap()];
        assert!(!s.matches(&r));
        s.args.clear();
        s.kinds = vec![RemarkKind::Passed];
        assert!(!s.matches(&r));
        assert!(parse_kind("!Analysis").is_ok() && parse_kind("bogus").is_err());
    }

    #[test]
    fn functions_and_arguments_match_as_symbols_or_paths() {
        // As rustc 1.95 names `remarks_rs::run` and `remarks_rs::compute`.
        let run = "_ZN10remarks_rs3run17h05813c08e676a53cE";
        let compute = "_ZN10remarks_rs7compute17h66b77482d666be50E";
        let r = Remark {
            kind: RemarkKind::Passed,
            pass: "inline".into(),
            name: "Inlined".into(),
            debug_loc: None,
            function: run.into(),
            hotness: None,
            args: vec![RemarkArg {
                key: "Callee".into(),
                value: compute.into(),
                debug_loc: None,
            }],
        };
        let by = |function: &str, callee: &str| Selector {
            function: Some(Pattern::new(function).unwrap()),
            args: vec![Selector::parse_arg(&format!("Callee={callee}")).unwrap()],
            ..Default::default()
        };
        for (function, callee) in [
            ("remarks_rs::run", "remarks_rs::compute"),
            ("re:remarks_rs::(run|main)", "*::compute"),
            (run, compute),
            ("_ZN10remarks_rs3run*", "_ZN*compute*"),
        ] {
            assert!(by(function, callee).matches(&r), "{function} {callee}");
        }
        assert!(!by("remarks_rs::compute", "*").matches(&r));
        // The hash is not part of the path.
        assert!(!by("remarks_rs::run::h05813c08e676a53c", "*").matches(&r));
        // A C name is only itself.
        let mut c = r.clone();
        c.function = "run".into();
        assert!(by("run", "*").matches(&c) && !by("remarks_rs::run", "*").matches(&c));
    }
}
