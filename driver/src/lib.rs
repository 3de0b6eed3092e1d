//! rld's LTO driver: the LTO step of a link, shared by the two linkers that run it — rld
//! itself, and host linkers (GNU ld, gold, mold) that load rld as a gold plugin. Like lld's
//! `LTO.cpp`, it has a narrow interface: the bitcode and its summaries, the host's symbol
//! resolution ([`Host`]) and the facts of the link ([`LinkFacts`]) go in; ELF objects (one
//! per partition) and the remark file come out. Nothing here knows ELF, a symbol table or
//! a command line; what each host reads from its own is on the host's side of [`Host`].

mod actions;
mod call_plan;
mod error;
mod in_process;
mod memory;
mod remark_file;
mod remarks;
mod resolution;
mod run;
mod timing;

pub use error::DriverError;
pub use in_process::InProcess;
pub use remark_file::remark_format;
pub use rld_lto_api::{
    apply_plugin_opt, is_c_identifier, parse_jobs, parse_opt_level, peak_rss_bytes, peak_rss_note,
    Host, LinkFacts, LtoOptions, PluginOpt, PluginOptError, SymbolFacts,
};
pub use run::run;
