//! Optimization remarks read back through LLVM's own YAML remark parser
//! (`cases/lto/remarks_dump.c`, built against libLLVM-22 once per test process), so
//! tests check what LLVM itself understands of rld's remark files, field by field.

use crate::{cases_dir, run_checked};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// One remark as LLVM's parser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remark {
    /// Passed, Missed, Analysis, ...
    pub kind: String,
    pub pass: String,
    pub name: String,
    pub function: String,
    pub debug_loc: Option<Loc>,
    /// `Hotness` (LLVM's C API gives 0 for a remark without one).
    pub hotness: Option<u64>,
    /// (key, value, debug location)
    pub args: Vec<(String, String, Option<Loc>)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// `cases/lto/remarks_dump.c`, built once per test process.
fn remarks_dump() -> PathBuf {
    static TOOL: OnceLock<PathBuf> = OnceLock::new();
    TOOL.get_or_init(|| {
        let config = |flag: &str| {
            let out = run_checked(Command::new("llvm-config-22").arg(flag));
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        let (include, lib) = (config("--includedir"), config("--libdir"));
        let dir = std::env::temp_dir().join("rld-tests").join("remarks-dump");
        std::fs::create_dir_all(&dir).unwrap();
        let tmp = dir.join(format!("remarks_dump.tmp{}", std::process::id()));
        run_checked(
            Command::new("clang-22")
                .args(["-O1", "-Wall", "-Werror", "-fuse-ld=lld"])
                .arg(format!("-I{include}"))
                .arg(cases_dir().join("lto/remarks_dump.c"))
                .arg(format!("-L{lib}"))
                .arg("-lLLVM-22")
                .arg(format!("-Wl,-rpath,{lib}"))
                .arg("-o")
                .arg(&tmp),
        );
        let tool = dir.join("remarks_dump");
        std::fs::rename(&tmp, &tool).unwrap();
        tool
    })
    .clone()
}

/// The remarks in `file`, which must exist and be empty or parse with LLVM's
/// YAML remark parser.
pub fn remarks(file: &Path) -> Vec<Remark> {
    let text =
        std::fs::read(file).unwrap_or_else(|e| panic!("no remarks file {}: {e}", file.display()));
    // LLVM writes an empty file when no remark passes the filter (and its
    // parser refuses an empty document).
    if text.iter().all(u8::is_ascii_whitespace) {
        return Vec::new();
    }
    let out = run_checked(Command::new(remarks_dump()).arg(file));
    let loc = |f: &[&str]| match f {
        ["-"] => None,
        [file, line, column] => Some(Loc {
            file: unescape(file),
            line: line.parse().unwrap(),
            column: column.parse().unwrap(),
        }),
        other => panic!("bad location {other:?}"),
    };
    let mut list: Vec<Remark> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "R" => list.push(Remark {
                kind: f[1].to_string(),
                pass: unescape(f[2]),
                name: unescape(f[3]),
                function: unescape(f[4]),
                debug_loc: loc(&f[6..]),
                hotness: f[5].parse().ok().filter(|&h| h != 0),
                args: Vec::new(),
            }),
            "A" => {
                list.last_mut()
                    .unwrap()
                    .args
                    .push((unescape(f[1]), unescape(f[2]), loc(&f[3..])))
            }
            _ => panic!("unexpected line from remarks_dump: {line:?}"),
        }
    }
    list
}

/// Undoes remarks_dump's escapes: `\\`, `\t`, `\n`.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

impl Remark {
    /// The values of the `Callee` arguments, as a set.
    pub fn callees(&self) -> BTreeSet<String> {
        self.args
            .iter()
            .filter(|(k, _, _)| k == "Callee")
            .map(|(_, v, _)| v.clone())
            .collect()
    }

    /// The value of the first argument with key `key`.
    pub fn arg(&self, key: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, _)| v.as_str())
    }
}
