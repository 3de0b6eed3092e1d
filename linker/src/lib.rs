//! rld: an x86-64 ELF linker. `link::link` is the whole link as a sequence of passes.

pub mod args;
pub mod context;
pub mod dynamic;
pub mod dynamic_list;
pub mod error;
pub mod front_door;
pub mod gc;
pub mod input;
pub mod layout;
pub mod link;
pub mod lto_driver;
pub mod object_file;
pub mod options;
pub mod output_file;
pub mod output_section;
pub mod plugin_host;
pub mod plugin_lto;
pub mod relocate;
pub mod reproduce;
pub mod scan;
pub mod shared_file;
pub mod sym_section;
pub mod symbols;
pub mod synthetic;
pub mod version_script;
pub mod write;
