//! Writing a standalone bitstream remark container, bit for bit as LLVM 14's
//! `BitstreamRemarkSerializer` in standalone mode writes it given the same string table.
//!
//! A standalone file carries its string table in the META block, before the remarks, but the
//! table is complete only once every remark has been seen. Remark blocks start and end on
//! 32-bit boundaries and refer to strings by index, so each is encoded as it is added into a
//! buffer while the table grows; `finish` then writes the header and the META block with the
//! table, followed by the buffered blocks.

use super::abbrev::{self, Op};
use super::bits::BitWriter;
use super::cursor::{
    BLOCKINFO_BLOCKNAME, BLOCKINFO_BLOCK_ID, BLOCKINFO_SETBID, BLOCKINFO_SETRECORDNAME,
    DEFINE_ABBREV, END_BLOCK, ENTER_SUBBLOCK, UNABBREV_RECORD,
};
use super::layout::*;
use super::strtab::{check_storable, StringTableBuilder};
use crate::{DebugLoc, Remark};
use std::io::{self, Write};

/// Writes remarks as a standalone LLVM bitstream remark file (the only container kind that
/// can be read on its own). Remarks are buffered, encoded, until [`BitstreamWriter::finish`].
///
/// With no remarks, nothing at all is written, as LLVM's serializer does (it writes its
/// header with the first remark); LLVM's parser and [`super::read_bitstream`] read an empty
/// input as no remarks.
pub struct BitstreamWriter<W: Write> {
    out: W,
    strings: StringTableBuilder,
    /// The REMARK blocks so far, each starting on a 32-bit boundary.
    blocks: BitWriter,
}

impl<W: Write> BitstreamWriter<W> {
    pub fn new(out: W) -> Self {
        BitstreamWriter {
            out,
            strings: StringTableBuilder::default(),
            blocks: BitWriter::new(),
        }
    }

    /// Encodes one remark. A string containing NUL cannot be stored in the string table:
    /// that is an `InvalidInput` error, and the remark is left out.
    pub fn add(&mut self, remark: &Remark) -> io::Result<()> {
        let strings = [&remark.name, &remark.pass, &remark.function]
            .into_iter()
            .chain(remark.debug_loc.iter().map(|l| &l.file))
            .chain(remark.args.iter().flat_map(|a| {
                [&a.key, &a.value]
                    .into_iter()
                    .chain(a.debug_loc.iter().map(|l| &l.file))
            }));
        for s in strings {
            check_storable(s)?;
        }
        self.encode(remark);
        Ok(())
    }

    /// Writes the file: magic, BLOCKINFO, META with the string table, then the remarks.
    /// Returns the output, flushed.
    pub fn finish(mut self) -> io::Result<W> {
        if !self.blocks.is_empty() {
            let header = self.header();
            self.out.write_all(header.as_bytes())?;
            self.out.write_all(self.blocks.as_bytes())?;
        }
        self.out.flush()?;
        Ok(self.out)
    }

    /// One REMARK block, as `emitRemarkBlock` writes it. Strings are added to the table in
    /// the order LLVM adds them.
    fn encode(&mut self, remark: &Remark) {
        let w = &mut self.blocks;
        let block = enter_block(w, &REMARK, TOP_LEVEL_ABBREV_WIDTH);
        let header = [
            RECORD_REMARK_HEADER,
            kind_code(remark.kind),
            self.strings.add(&remark.name),
            self.strings.add(&remark.pass),
            self.strings.add(&remark.function),
        ];
        record(w, &REMARK, &header, None);
        if let Some(loc) = &remark.debug_loc {
            let [file, line, column] = location(&mut self.strings, loc);
            record(
                w,
                &REMARK,
                &[RECORD_REMARK_DEBUG_LOC, file, line, column],
                None,
            );
        }
        if let Some(hotness) = remark.hotness {
            record(w, &REMARK, &[RECORD_REMARK_HOTNESS, hotness], None);
        }
        for arg in &remark.args {
            let key = self.strings.add(&arg.key);
            let value = self.strings.add(&arg.value);
            match &arg.debug_loc {
                Some(loc) => {
                    let [file, line, column] = location(&mut self.strings, loc);
                    let values = [
                        RECORD_REMARK_ARG_WITH_DEBUGLOC,
                        key,
                        value,
                        file,
                        line,
                        column,
                    ];
                    record(w, &REMARK, &values, None);
                }
                None => {
                    let values = [RECORD_REMARK_ARG_WITHOUT_DEBUGLOC, key, value];
                    record(w, &REMARK, &values, None);
                }
            }
        }
        exit_block(w, block, REMARK.abbrev_width);
    }

    /// Magic, BLOCKINFO and META, as `BitstreamMetaSerializer::emit` writes them for a
    /// standalone container.
    fn header(&self) -> BitWriter {
        let mut w = BitWriter::new();
        for byte in MAGIC {
            w.emit(u64::from(byte), 8);
        }

        let blockinfo = enter_block_id(&mut w, BLOCKINFO_BLOCK_ID, 2, TOP_LEVEL_ABBREV_WIDTH);
        // LLVM names each block with an explicit SETBID, but its abbreviation helper keeps
        // its own idea of the current block and emits another SETBID before the block's
        // first abbreviation; the duplicates are part of the format as LLVM writes it.
        let mut abbrevs_for = None;
        for block in [&STANDALONE_META, &REMARK] {
            unabbreviated(&mut w, 2, BLOCKINFO_SETBID, &[block.id]);
            unabbreviated(&mut w, 2, BLOCKINFO_BLOCKNAME, &chars(block.name));
            for r in block.records {
                let name = [&[r.code][..], &chars(r.name)].concat();
                unabbreviated(&mut w, 2, BLOCKINFO_SETRECORDNAME, &name);
                if abbrevs_for != Some(block.id) {
                    unabbreviated(&mut w, 2, BLOCKINFO_SETBID, &[block.id]);
                    abbrevs_for = Some(block.id);
                }
                define_abbrev(&mut w, 2, r.ops);
            }
        }
        exit_block(&mut w, blockinfo, 2);

        let meta = enter_block(&mut w, &STANDALONE_META, TOP_LEVEL_ABBREV_WIDTH);
        let info = [
            RECORD_META_CONTAINER_INFO,
            CONTAINER_VERSION,
            CONTAINER_STANDALONE,
        ];
        record(&mut w, &STANDALONE_META, &info, None);
        let version = [RECORD_META_REMARK_VERSION, REMARK_VERSION];
        record(&mut w, &STANDALONE_META, &version, None);
        let strtab = Some(self.strings.blob());
        record(&mut w, &STANDALONE_META, &[RECORD_META_STRTAB], strtab);
        exit_block(&mut w, meta, STANDALONE_META.abbrev_width);
        w
    }
}

/// A location's record fields after the code: file index, line, column.
fn location(strings: &mut StringTableBuilder, loc: &DebugLoc) -> [u64; 3] {
    [
        strings.add(&loc.file),
        u64::from(loc.line),
        u64::from(loc.column),
    ]
}

fn chars(s: &str) -> Vec<u64> {
    s.bytes().map(u64::from).collect()
}

/// Where a block's length word is, to fill in when the block ends.
struct OpenBlock {
    length_at: usize,
}

fn enter_block_id(w: &mut BitWriter, id: u64, width: u32, outer_width: u32) -> OpenBlock {
    w.emit(ENTER_SUBBLOCK, outer_width);
    w.emit_vbr(id, 8);
    w.emit_vbr(u64::from(width), 4);
    w.align32();
    let length_at = w.as_bytes().len();
    w.emit(0, 32);
    OpenBlock { length_at }
}

fn enter_block(w: &mut BitWriter, block: &BlockLayout, outer_width: u32) -> OpenBlock {
    enter_block_id(w, block.id, block.abbrev_width, outer_width)
}

/// END_BLOCK, alignment, and the block's length in 32-bit words after its length word.
fn exit_block(w: &mut BitWriter, block: OpenBlock, width: u32) {
    w.emit(END_BLOCK, width);
    w.align32();
    let words = (w.as_bytes().len() - block.length_at - 4) / 4;
    w.patch_u32(block.length_at, u32::try_from(words).unwrap_or(u32::MAX));
}

/// A record with the abbreviation BLOCKINFO declares for it.
fn record(w: &mut BitWriter, block: &BlockLayout, values: &[u64], blob: Option<&[u8]>) {
    let (id, ops) = block.abbrev(values[0]);
    w.emit(id, block.abbrev_width);
    abbrev::emit_record(w, ops, values, blob);
}

fn unabbreviated(w: &mut BitWriter, width: u32, code: u64, values: &[u64]) {
    w.emit(UNABBREV_RECORD, width);
    w.emit_vbr(code, 6);
    w.emit_vbr(values.len() as u64, 6);
    for &v in values {
        w.emit_vbr(v, 6);
    }
}

fn define_abbrev(w: &mut BitWriter, width: u32, ops: &[Op]) {
    w.emit(DEFINE_ABBREV, width);
    abbrev::emit_definition(w, ops);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dead_function_remark, RemarkArg};

    fn write(remarks: &[Remark]) -> Vec<u8> {
        let mut w = BitstreamWriter::new(Vec::new());
        for r in remarks {
            w.add(r).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn no_remarks_write_nothing() {
        assert_eq!(write(&[]), b"");
    }

    #[test]
    fn file_is_word_aligned_and_starts_with_magic() {
        let bytes = write(&[dead_function_remark("unused", None)]);
        assert!(bytes.starts_with(b"RMRK"));
        assert_eq!(bytes.len() % 4, 0);
    }

    #[test]
    fn nul_in_a_string_is_an_error_and_leaves_the_output_consistent() {
        let good = dead_function_remark("f", None);
        let mut bad = good.clone();
        bad.args.push(RemarkArg {
            key: "String".to_string(),
            value: "a\0b".to_string(),
            debug_loc: None,
        });
        let mut w = BitstreamWriter::new(Vec::new());
        w.add(&good).unwrap();
        let err = w.add(&bad).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        w.add(&good).unwrap();
        assert_eq!(w.finish().unwrap(), write(&[good.clone(), good]));
    }
}
