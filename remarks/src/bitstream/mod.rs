//! LLVM's bitstream remark format: written as LLVM 22 writes it, read as LLVM 14 to 22 write
//! it.
//!
//! A file is the magic `RMRK` followed by an LLVM bitstream (abbrev ids 2 bits wide at the
//! top level): a BLOCKINFO block declaring the abbreviations of the two block kinds, a META
//! block (container version and type, remark version, and in version 0 the string table),
//! then one REMARK block per remark whose strings are indices into the string table.
//!
//! LLVM 14 to 21 have three container types (container version 0). Only a *standalone*
//! container holds both the string table and the remarks; the other two split them between
//! a metadata container (usually an object file's remarks section) and a remarks file.
//! LLVM 22 (container version 1, which its parser requires) has two: the *remarks file*,
//! which has its string table in a second META block after the remarks and so holds
//! everything, and the link to it (an object file's remarks section).
//! [`BitstreamWriter`] writes LLVM 22's remarks files; [`read_bitstream`] reads those and
//! LLVM 14's standalone files, and explains why it cannot read the other kinds.
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
