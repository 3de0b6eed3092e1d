//! `--reproduce FILE`: a tar holding every file the link read and a command line that
//! replays the link from them, for a bug report that does not need the reporter's machine.
//!
//! The archive has one top directory named after FILE (`repro` for `repro.tar`). Each file
//! read is stored under it at its absolute path (`repro/home/me/a.o`); `response.txt` holds the
//! command line with every path it reads rewritten to that copy, and `version.txt` rld's
//! version. Replay: `tar xf repro.tar && cd repro && rld @response.txt`. The outputs (`-o`,
//! remarks) are written inside the directory under their file names.
//!
//! A `-plugin` (gcc's LTO plugin) is named where it is, as the dynamic linker is: part of
//! the toolchain the replay runs with.
//!
//! Paths inside GNU ld scripts (`GROUP ( /lib/x86_64-linux-gnu/libc.so.6 ... )`) are absolute;
//! the response file sets `--sysroot .` (or keeps the link's own sysroot, rewritten), under
//! which rld looks for them first, so the archive's copies are used.
//!
//! The files come from [`crate::read_log`].

use crate::error::{LinkError, Result};
use crate::options::{CommandArg, Options};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `path` made absolute against the current directory, `.` and `..` resolved lexically
/// (symbolic links are kept: the replay must see the names the link used).
fn absolute(path: &Path) -> PathBuf {
    let joined = std::env::current_dir().unwrap_or_default().join(path);
    crate::read_log::without_dots(&joined)
}

/// Where the archive keeps `path`, relative to its top directory.
fn in_archive(path: &str) -> String {
    let abs = absolute(Path::new(path));
    abs.strip_prefix("/")
        .unwrap_or(&abs)
        .to_string_lossy()
        .into_owned()
}

/// `word` as a response file reads it back (libiberty's rules: a backslash takes the next
/// character literally).
fn response_word(word: &str) -> String {
    if word.is_empty() {
        return "\"\"".into();
    }
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        if c.is_whitespace() || matches!(c, '\\' | '\'' | '"') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The command line that replays the link inside the archive's top directory, one
/// argument per line.
pub fn response_file(opts: &Options) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut has_sysroot = false;
    for arg in &opts.command_line {
        match arg {
            CommandArg::Literal(tokens) => words.extend(tokens.iter().cloned()),
            CommandArg::Read { option, path } => {
                has_sysroot |= option.trim_start_matches('-') == "sysroot";
                let path = sysroot_marked(path)
                    .map(|(marker, rest)| format!("{marker}{rest}"))
                    .unwrap_or_else(|| in_archive(path));
                if option.is_empty() {
                    words.push(path);
                } else {
                    words.extend([option.clone(), path]);
                }
            }
            CommandArg::Written { option, path } => {
                let name = Path::new(path)
                    .file_name()
                    .map_or_else(|| path.clone(), |n| n.to_string_lossy().into_owned());
                words.extend([option.clone(), name]);
            }
            CommandArg::Dropped => {}
        }
    }
    if !has_sysroot {
        words.extend(["--sysroot".to_string(), ".".to_string()]);
    }
    let mut text = String::new();
    for w in words {
        text.push_str(&response_word(&w));
        text.push('\n');
    }
    text
}

/// A search directory written relative to the sysroot (`=DIR`, `$SYSROOT/DIR`) stays so: the
/// sysroot itself is rewritten.
fn sysroot_marked(path: &str) -> Option<(&'static str, &str)> {
    if let Some(rest) = path.strip_prefix('=') {
        return Some(("=", rest));
    }
    path.strip_prefix("$SYSROOT").map(|rest| ("$SYSROOT", rest))
}

/// Writes the archive for the link so far: `read` (the files read until now) and the
/// command line.
pub fn write(opts: &Options, dest: &Path, read: &[PathBuf]) -> Result<()> {
    let mut files: BTreeSet<PathBuf> = read.iter().map(|p| absolute(p)).collect();
    for arg in &opts.command_line {
        // Files named by the options themselves (-plugin, --version-script) whether or not
        // their readers report them.
        if let CommandArg::Read { option, path } = arg {
            if !option.is_empty() && Path::new(path).is_file() {
                files.insert(absolute(Path::new(path)));
            }
        }
    }
    let top = dest
        .file_stem()
        .map_or_else(|| "repro".into(), |s| s.to_string_lossy().into_owned());
    let mut tar = tar::Builder::new(Vec::new());
    let bad = |e: std::io::Error| LinkError::io(dest, e);
    let mut add = |name: &str, data: &[u8], mode: u32| -> std::io::Result<()> {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(mode);
        // No time stamp, owner or group: the same link gives the same archive.
        header.set_mtime(0);
        tar.append_data(&mut header, format!("{top}/{name}"), data)
    };
    add("response.txt", response_file(opts).as_bytes(), 0o644).map_err(bad)?;
    let version = format!("rld {}\n", env!("CARGO_PKG_VERSION"));
    add("version.txt", version.as_bytes(), 0o644).map_err(bad)?;
    for file in &files {
        let data = std::fs::read(file).map_err(|e| LinkError::io(file, e))?;
        let rel = file.strip_prefix("/").unwrap_or(file);
        add(&rel.to_string_lossy(), &data, 0o644).map_err(bad)?;
    }
    let bytes = tar.into_inner().map_err(bad)?;
    crate::output_file::PendingOutput::new(dest, false)?.write_all(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_absolute_without_dots() {
        assert_eq!(absolute(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(absolute(Path::new("x/../y.o")), cwd.join("y.o"));
        assert_eq!(in_archive("/usr/lib/crt1.o"), "usr/lib/crt1.o");
    }

    #[test]
    fn words_survive_the_response_file() {
        for w in ["plain", "", "two words", "a'b\"c\\d", "tab\there"] {
            let text = response_word(w);
            assert_eq!(crate::args::split_response_file(&text), vec![w.to_string()]);
        }
    }

    #[test]
    fn the_command_line_is_rewritten_into_the_archive() {
        let opts = crate::args::parse_args(
            "-o out/prog --reproduce r.tar -L/usr/lib -L=/sysdir --version-script v.map \
             -lc /tmp/a.o --lto-cache-dir=/tmp/c --opt-remarks-filename=/x/r.yaml -z now \
             -dynamic-linker /lib64/ld-linux-x86-64.so.2"
                .split(' ')
                .map(String::from),
        )
        .unwrap();
        let words = crate::args::split_response_file(&response_file(&opts));
        let cwd = in_archive(".");
        assert_eq!(
            words,
            [
                "-o",
                "prog",
                "-L",
                "usr/lib",
                "-L",
                "=/sysdir",
                "--version-script",
                &format!("{cwd}/v.map"),
                "-lc",
                "tmp/a.o",
                "--opt-remarks-filename",
                "r.yaml",
                "-z",
                "now",
                "-dynamic-linker",
                "/lib64/ld-linux-x86-64.so.2",
                "--sysroot",
                "."
            ]
        );
    }
}
