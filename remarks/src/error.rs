//! Why a remark file could not be read, and where.

use std::fmt;

/// Where in a remark file a problem is: a line of a YAML file, a byte of a bitstream file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// 1-based.
    Line(usize),
    /// 0-based byte offset.
    Byte(u64),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "line {n}"),
            Position::Byte(n) => write!(f, "byte {n}"),
        }
    }
}

/// Why a remark file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{position}: {message}")]
pub struct RemarkParseError {
    pub position: Position,
    pub message: String,
}

impl RemarkParseError {
    pub fn at_line(line: usize, message: impl Into<String>) -> Self {
        RemarkParseError {
            position: Position::Line(line),
            message: message.into(),
        }
    }

    pub fn at_byte(offset: u64, message: impl Into<String>) -> Self {
        RemarkParseError {
            position: Position::Byte(offset),
            message: message.into(),
        }
    }
}
