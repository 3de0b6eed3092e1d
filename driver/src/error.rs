//! Errors of the LTO step: each names the option or file at fault, so that the host can
//! print it as it is.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// `--opt-remarks-format` names a format rld cannot write.
    #[error("unsupported remark format '{0}' (rld writes yaml or bitstream)")]
    RemarkFormat(String),
    /// `--opt-remarks-passes` is not a regular expression.
    #[error("bad --opt-remarks-passes regex: {0}")]
    RemarkPasses(String),
    /// `-mllvm`/`-plugin-opt=-...`: LLVM rejected one of its options.
    #[error("LLVM option: {0}")]
    LlvmOptions(String),
    /// The partitions rld cut break one of the invariants LTO relies on (a bug in rld).
    #[error("internal error: the LTO partitions are inconsistent: {0}")]
    PartitionCut(String),
    /// LLVM could not read, optimize or compile the bitcode.
    #[error(transparent)]
    Backend(#[from] rld_lto::LtoError),
    /// Reading or writing a file (the remark file, LLVM's remarks beside it).
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file of LLVM's remarks that cannot be read back to convert it.
    #[error("{}: LLVM's remarks: {source}", path.display())]
    LlvmRemarks {
        path: PathBuf,
        source: rld_remarks::RemarkParseError,
    },
}

impl DriverError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        DriverError::Io {
            path: path.into(),
            source,
        }
    }
}
