//! Optimization remarks: LLVM's remark model, its YAML and bitstream formats (read and
//! written exactly as LLVM 14 does), and the `rld remarks` tools that CI pipelines call
//! (summary, filter, diff, policy check, HTML view).

pub mod error;
pub mod model;
pub mod pass_filter;
pub mod yaml;

#[cfg(test)]
mod fixtures;

pub use error::{Position, RemarkParseError};
pub use model::{dead_function_remark, DebugLoc, Remark, RemarkArg, RemarkKind};
pub use pass_filter::RemarkFilter;
pub use yaml::{format_yaml, parse_yaml, write_yaml};
