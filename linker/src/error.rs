//! Errors of a link: each names the file, symbol or option at fault.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("{}: {}", path.display(), io_reason(source))]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file that cannot be opened, in lld's words: `what` is "" for an input,
    /// "output file " for the output.
    #[error("cannot open {what}{}: {}", path.display(), io_reason(source))]
    CannotOpen {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// An input that is not what it claims to be: truncated, corrupt, wrong machine.
    #[error("{file}: {msg}")]
    BadInput { file: String, msg: String },
    #[error(transparent)]
    Args(#[from] crate::args::ArgsError),
    /// The LTO step failed (bad bitcode, a remark file that cannot be written).
    #[error(transparent)]
    Lto(#[from] rld_lto_api::LtoFailure),
    /// A problem with the link as a whole (symbols, relocations, layout).
    #[error("{0}")]
    Link(String),
    /// Several independent problems, reported together (e.g. every undefined symbol).
    #[error("{}", .0.join("\n"))]
    Many(Vec<String>),
}

pub type Result<T, E = LinkError> = std::result::Result<T, E>;

impl LinkError {
    pub fn bad_input(file: impl Into<String>, msg: impl std::fmt::Display) -> Self {
        LinkError::BadInput {
            file: file.into(),
            msg: msg.to_string(),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        LinkError::Io {
            path: path.into(),
            source,
        }
    }

    pub fn cannot_open(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        LinkError::CannotOpen {
            what: "",
            path: path.into(),
            source,
        }
    }

    pub fn cannot_open_output(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        LinkError::CannotOpen {
            what: "output file ",
            path: path.into(),
            source,
        }
    }
}

/// The system's reason for an I/O error, as the C library words it ("No such file or
/// directory"), without Rust's " (os error N)": the diagnostics read as lld's and GNU ld's.
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match e.raw_os_error() {
        Some(code) => text
            .strip_suffix(&format!(" (os error {code})"))
            .map_or_else(|| text.clone(), str::to_string),
        None => text,
    }
}

/// Returns early with a [`LinkError::Link`] built from a format string.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::error::LinkError::Link(format!($($arg)*)))
    };
}
