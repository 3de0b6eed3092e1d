//! The files a link reads, in the order it first reads them, as their paths were given:
//! what `--reproduce` packs and `--dependency-file` lists. Which files those are is only
//! known while reading (library search, scripts, thin archive members), so the readers
//! report each file they open to a process-wide list that exists only while it is wanted.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The files in order, and the same set for a quick "already noted?".
type Log = (Vec<PathBuf>, std::collections::HashSet<PathBuf>);

static LOG: Mutex<Option<Log>> = Mutex::new(None);

/// `--verbose`: each file is named on standard error as it is opened (lld's wording).
static VERBOSE: AtomicBool = AtomicBool::new(false);

pub fn set_verbose(on: bool) {
    VERBOSE.store(on, Ordering::Relaxed);
}

/// Starts recording.
pub fn start() {
    *LOG.lock().unwrap_or_else(|e| e.into_inner()) = Some(Default::default());
}

/// Notes that the link read `path` (a no-op unless recording).
pub fn note(path: &Path) {
    if VERBOSE.load(Ordering::Relaxed) {
        eprintln!("rld: {}", path.display());
    }
    if let Some((files, seen)) = LOG.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        if seen.insert(path.to_path_buf()) {
            files.push(path.to_path_buf());
        }
    }
}

/// The files read so far, each once, in order; recording stops.
pub fn take() -> Vec<PathBuf> {
    LOG.lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .map(|(files, _)| files)
        .unwrap_or_default()
}

/// `--dependency-file`: a Makefile rule making the output depend on every file read, and
/// an empty rule per file (so a deleted input does not break `make`), as lld writes it.
pub fn dependency_rule(output: &Path, files: &[PathBuf]) -> String {
    // Make's special characters in a target or prerequisite name.
    let escape = |p: &Path| {
        let mut s = String::new();
        for c in p.to_string_lossy().chars() {
            match c {
                ' ' | '#' | '\\' => {
                    s.push('\\');
                    s.push(c);
                }
                '$' => s.push_str("$$"),
                _ => s.push(c),
            }
        }
        s
    };
    let files: Vec<PathBuf> = files.iter().map(|f| without_dots(f)).collect();
    let mut out = format!("{}:", escape(output));
    for f in &files {
        out.push_str(" \\\n ");
        out.push_str(&escape(f));
    }
    out.push('\n');
    for f in &files {
        out.push_str(&format!("\n{}:\n", escape(f)));
    }
    out
}

/// `path` with `.` and `x/..` removed lexically (symbolic links are not followed), as lld
/// names the files (`/usr/bin/../lib/crt1.o` is `/usr/lib/crt1.o`).
pub(crate) fn without_dots(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match (c, out.components().next_back()) {
            (Component::CurDir, _) | (Component::ParentDir, Some(Component::RootDir)) => {}
            (Component::ParentDir, Some(Component::Normal(_))) => {
                out.pop();
            }
            (other, _) => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_go() {
        assert_eq!(
            without_dots(Path::new("/usr/bin/../lib/./crt1.o")),
            Path::new("/usr/lib/crt1.o")
        );
        assert_eq!(without_dots(Path::new("../a/../b.o")), Path::new("../b.o"));
        assert_eq!(without_dots(Path::new("/../x")), Path::new("/x"));
    }

    #[test]
    fn rule_escapes_make_characters() {
        let files = [PathBuf::from("a b.o"), PathBuf::from("lib$x#.a")];
        assert_eq!(
            dependency_rule(Path::new("out"), &files),
            "out: \\\n a\\ b.o \\\n lib$$x\\#.a\n\na\\ b.o:\n\nlib$$x\\#.a:\n"
        );
    }
}
