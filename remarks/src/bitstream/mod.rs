//! LLVM's bitstream remark format (LLVM 14), read and written.
//!
//! A file is the magic `RMRK` followed by an LLVM bitstream (abbrev ids 2 bits wide at the
//! top level): a BLOCKINFO block declaring the abbreviations of the two block kinds, a META
//! block (container version and type, remark version, string table), then one REMARK block
//! per remark whose strings are indices into the string table.
//!
//! LLVM has three container types. Only a *standalone* container holds both the string table
//! and the remarks; the other two split them between a metadata container (usually an object
//! file's remarks section) and a remarks file. [`BitstreamWriter`] writes standalone files;
//! [`read_bitstream`] reads them and explains why it cannot read the other kinds.
//!
//! Layers: [`bits`] (bit-level I/O), [`abbrev`] (abbreviation definitions and record
//! encoding), [`cursor`] (generic bitstream blocks and records), [`strtab`], [`layout`] (the
//! remark container's ids and abbreviations), and [`read`] / [`write`] on top.

mod abbrev;
mod bits;
mod cursor;
mod layout;
mod read;
mod strtab;
mod write;

#[cfg(test)]
mod tests;

pub use read::{is_bitstream, read_bitstream, BitstreamRemarks};
pub use write::BitstreamWriter;
