//! Where remarks come from: files and directories named on a command line, read one remark at
//! a time whatever their format.
//!
//! A directory is searched recursively for remark files: files named `*.yaml`, `*.yml`
//! (clang's `*.opt.yaml`, lld's and rld's `--opt-remarks-filename`) or `*.bitstream` whose
//! first bytes are a remark document (`--- !Passed` ...) or the bitstream magic, so a
//! project's other YAML files (CI configurations...) are passed over. A file named
//! explicitly is read whatever its name, its format told by its first bytes.

use crate::error::RemarkParseError;
use crate::model::Remark;
use crate::yaml::YamlDocuments;
use std::path::{Path, PathBuf};

/// A remark file that could not be read, named.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {error}", path.display())]
    Parse {
        path: PathBuf,
        error: RemarkParseError,
    },
    #[error("{}: no remark files (*.yaml, *.yml, *.bitstream) under this directory", path.display())]
    Empty { path: PathBuf },
}

/// The remark files that `paths` name: files as they are, directories searched recursively,
/// each directory's files in name order (so every run reads them in the same order).
pub fn remark_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, SourceError> {
    let mut files = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| SourceError::Io {
            path: path.clone(),
            source,
        })?;
        if meta.is_dir() {
            let before = files.len();
            walk(path, &mut files)?;
            if files.len() == before {
                return Err(SourceError::Empty { path: path.clone() });
            }
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), SourceError> {
    let io = |source| SourceError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(io)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(io)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let kind = entry.file_type().map_err(io)?;
        if kind.is_dir() {
            walk(&path, files)?;
        } else if kind.is_file() && is_remark_file_name(&path) && starts_like_remarks(&path) {
            files.push(path);
        }
    }
    Ok(())
}

fn is_remark_file_name(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "bitstream")
    )
}

/// Whether a file found in a directory begins as a remark file does: the bitstream magic, or
/// (after blank lines) a YAML document with a remark tag. Unreadable files are kept, so that
/// reading them reports the problem.
fn starts_like_remarks(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 256];
    let Ok(mut file) = std::fs::File::open(path) else {
        return true;
    };
    let n = file.read(&mut head).unwrap_or(0);
    let head = &head[..n];
    if crate::bitstream::is_bitstream(head) {
        return true;
    }
    let text = head.trim_ascii_start();
    text.starts_with(b"--- !")
}

/// Calls `f` with every remark of `files`, in file order, then in each file's order. Reading
/// stops at the first unreadable file or remark, which the error names.
pub fn for_each_remark(
    files: &[PathBuf],
    mut f: impl FnMut(&Path, Remark),
) -> Result<(), SourceError> {
    for path in files {
        read_file(path, &mut |r| f(path, r))?;
    }
    Ok(())
}

/// The remarks of one file, YAML or bitstream (told by its magic), streamed.
pub fn read_file(path: &Path, f: &mut dyn FnMut(Remark)) -> Result<(), SourceError> {
    use std::io::{BufRead, Read};
    let io = |source| SourceError::Io {
        path: path.to_path_buf(),
        source,
    };
    let parse = |error| SourceError::Parse {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut input = std::io::BufReader::with_capacity(1 << 20, file);
    if crate::bitstream::is_bitstream(input.fill_buf().map_err(io)?) {
        // Bitstream files are compact (a tenth of the YAML) and read from memory.
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes).map_err(io)?;
        for r in crate::bitstream::read_bitstream(&bytes).map_err(parse)? {
            f(r.map_err(parse)?);
        }
    } else {
        for r in YamlDocuments::new(input) {
            f(r.map_err(parse)?);
        }
    }
    Ok(())
}
