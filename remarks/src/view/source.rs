//! Finding the source files that remarks point at.
//!
//! A remark's `DebugLoc` names its file as the compiler saw it: usually relative to the
//! directory the compiler ran in, which the remark file does not record, so the caller says
//! where to look.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Bigger files are left out of the report: the largest real single source files (SQLite's
/// amalgamation, ~9 MB) are far below this, and anything bigger is more likely a mistake (a
/// device, a generated blob) than source worth embedding.
pub(crate) const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// The most source the report embeds in all: browsers struggle with pages much larger, and a
/// whole-program LTO build can name thousands of files. The files with most remarks come first.
pub(crate) const MAX_TOTAL_SOURCE_BYTES: u64 = 256 << 20;

/// The report's files (string index and where its source is looked for), in string order,
/// each with `Err(why)` when its source is left out for size.
///
/// `remarks_in` has, by string index, the number of remarks in that file, or `None` for
/// strings that name no file.
pub(crate) fn choose(
    root: Option<&Path>,
    strings: &[Box<str>],
    remarks_in: &[Option<u32>],
) -> Vec<(u32, PathBuf, Result<(), String>)> {
    let mut files: Vec<(u32, PathBuf, Result<(), String>)> = strings
        .iter()
        .zip(remarks_in)
        .enumerate()
        .filter_map(|(id, (name, count))| {
            count.map(|_| {
                (
                    u32::try_from(id).unwrap_or(u32::MAX),
                    resolve(root, name),
                    Ok(()),
                )
            })
        })
        .collect();
    let mut by_remarks: Vec<usize> = (0..files.len()).collect();
    let count = |i: usize| {
        remarks_in
            .get(files[i].0 as usize)
            .copied()
            .flatten()
            .unwrap_or(0)
    };
    by_remarks.sort_by_key(|&i| std::cmp::Reverse(count(i)));
    let mut budget = MAX_TOTAL_SOURCE_BYTES;
    for i in by_remarks {
        // Files that are not there cost nothing; read() says why they are missing.
        let size = std::fs::metadata(&files[i].1).map_or(0, |m| m.len());
        if size > budget {
            files[i].2 = Err(format!(
                "left out: the report embeds at most {} MiB of source",
                MAX_TOTAL_SOURCE_BYTES >> 20
            ));
        } else if size <= MAX_SOURCE_BYTES {
            budget -= size;
        }
    }
    files
}

/// Where a `DebugLoc` file name is looked for: relative names under `root` (the current
/// directory without one), absolute ones as they are.
pub(crate) fn resolve(root: Option<&Path>, file: &str) -> PathBuf {
    let path = Path::new(file);
    match root {
        Some(root) if path.is_relative() => root.join(path),
        _ => path.to_path_buf(),
    }
}

/// The file's text (invalid UTF-8 replaced, so a stray Latin-1 byte does not lose the whole
/// file), or why it is not in the report.
pub(crate) fn read(path: &Path) -> Result<String, String> {
    // Only regular files: the name comes from a remark file, and reading a FIFO or
    // /dev/zero would hang or never end.
    let meta = std::fs::metadata(path).map_err(|e| format!("not found ({e})"))?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(format!("larger than {} MiB", MAX_SOURCE_BYTES >> 20));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_SOURCE_BYTES).read_to_end(&mut bytes))
        .map_err(|e| format!("unreadable ({e})"))?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
