//! Errors of the LTO side, each naming the file at fault.

#[derive(Debug, thiserror::Error)]
pub enum LtoError {
    #[error("{file}: invalid LLVM bitcode: {msg}")]
    BadBitcode { file: String, msg: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("LTO: {0}")]
    Llvm(String),
}
