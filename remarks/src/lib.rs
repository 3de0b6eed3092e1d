//! Optimization remarks: LLVM's remark model, its YAML and bitstream formats (YAML written
//! exactly as LLVM 14 does, bitstream as LLVM 22 does; both read as LLVM 14 to 22 write
//! them), and the `rld remarks` tools that CI
//! pipelines call (summary, filter, diff, policy check, HTML view), which show Rust symbols
//! demangled ([`names`]).

pub mod bitstream;
pub mod check;
pub mod cli;
pub mod diff;
pub mod error;
pub mod model;
pub mod names;
pub mod pass_filter;
pub mod policy;
pub mod sarif;
pub mod select;
pub mod sink;
pub mod source;
pub mod summary;
pub mod view;
pub mod yaml;

#[cfg(test)]
mod fixtures;

pub use bitstream::{is_bitstream, read_bitstream, BitstreamRemarks, BitstreamWriter};
pub use check::{CheckReport, Checker, Finding, RemarkSummary, RuleReport, Violation};
pub use error::{Position, RemarkParseError};
pub use model::{dead_function_remark, DebugLoc, Remark, RemarkArg, RemarkKind};
pub use names::display_name;
pub use pass_filter::RemarkFilter;
pub use policy::{Policy, PolicyError, Rule, RuleKind};
pub use view::HtmlReport;
pub use yaml::{format_yaml, parse_yaml, write_yaml, YamlDocuments};
