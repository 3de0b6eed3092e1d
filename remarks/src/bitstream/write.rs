//! Writing a bitstream remark file, bit for bit as LLVM 22's `BitstreamRemarkSerializer`
//! writes one (`-fsave-optimization-record=bitstream`, `opt -pass-remarks-format=bitstream`):
//! container version 1, type "remarks file".
//!
//! The file is the magic, BLOCKINFO, a META block (container info, remark version), one
//! REMARK block per remark, and a late META block holding only the string table, which is
//! complete once every remark has been seen. So each remark is written as it is added
//! (strings are indices into the table, which grows as they are met), and `finish` writes
//! the late META block. Every block starts and ends on a 32-bit boundary, so each can be
//! encoded on its own and written out whole.

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

/// Writes remarks as an LLVM 22 bitstream remark file (container version 1), which holds its
/// own string table and so can be read on its own. Each remark is written to the output as
/// it is added; only the string table is kept until [`BitstreamWriter::finish`] writes it.
///
/// With no remarks, nothing at all is written, as LLVM's serializer does (it writes its
/// header with the first remark, its string table only if it wrote a header); LLVM's parser
/// and [`super::read_bitstream`] read an empty input as no remarks.
pub struct BitstreamWriter<W: Write> {
    out: W,
    strings: StringTableBuilder,
    /// Whether the header (magic, BLOCKINFO, META) is written.
    started: bool,
    /// The block being encoded.
    block: BitWriter,
}

impl<W: Write> BitstreamWriter<W> {
    pub fn new(out: W) -> Self {
        BitstreamWriter {
            out,
            strings: StringTableBuilder::default(),
            started: false,
            block: BitWriter::new(),
        }
    }

    /// Writes one remark (after the file's header, for the first). A string containing NUL
    /// cannot be stored in the string table: that is an `InvalidInput` error, and the remark
    /// is left out. Other errors are the output's.
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
        if !self.started {
            self.block.clear();
            file_start(&mut self.block);
            self.out.write_all(self.block.as_bytes())?;
            self.started = true;
        }
        self.block.clear();
        encode(&mut self.block, &mut self.strings, remark);
        self.out.write_all(self.block.as_bytes())
    }

    /// Ends the file with the late META block and its string table (if any remark was
    /// written). Returns the output, flushed.
    pub fn finish(mut self) -> io::Result<W> {
        if self.started {
            self.block.clear();
            let w = &mut self.block;
            let meta = enter_block(w, &META, TOP_LEVEL_ABBREV_WIDTH);
            let strtab = Some(self.strings.blob());
            record(w, &META, &[RECORD_META_STRTAB], strtab);
            exit_block(w, meta, META.abbrev_width);
            self.out.write_all(self.block.as_bytes())?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// One REMARK block, as `emitRemark` writes it. Strings are added to the table in the order
/// LLVM adds them.
fn encode(w: &mut BitWriter, strings: &mut StringTableBuilder, remark: &Remark) {
    let block = enter_block(w, &REMARK, TOP_LEVEL_ABBREV_WIDTH);
    let header = [
        RECORD_REMARK_HEADER,
        kind_code(remark.kind),
        strings.add(&remark.name),
        strings.add(&remark.pass),
        strings.add(&remark.function),
    ];
    record(w, &REMARK, &header, None);
    if let Some(loc) = &remark.debug_loc {
        let [file, line, column] = location(strings, loc);
        let values = [RECORD_REMARK_DEBUG_LOC, file, line, column];
        record(w, &REMARK, &values, None);
    }
    if let Some(hotness) = remark.hotness {
        record(w, &REMARK, &[RECORD_REMARK_HOTNESS, hotness], None);
    }
    for arg in &remark.args {
        let key = strings.add(&arg.key);
        let value = strings.add(&arg.value);
        match &arg.debug_loc {
            Some(loc) => {
                let [file, line, column] = location(strings, loc);
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

/// Magic, BLOCKINFO and the META block, as LLVM 22 writes them before its first remark.
fn file_start(w: &mut BitWriter) {
    for byte in MAGIC {
        w.emit(u64::from(byte), 8);
    }

    let blockinfo = enter_block_id(w, BLOCKINFO_BLOCK_ID, 2, TOP_LEVEL_ABBREV_WIDTH);
    // LLVM names each block with an explicit SETBID, but its abbreviation helper keeps its
    // own idea of the current block and emits another SETBID before the block's first
    // abbreviation; the duplicates are part of the format as LLVM writes it.
    let mut abbrevs_for = None;
    for block in [&META, &REMARK] {
        unabbreviated(w, 2, BLOCKINFO_SETBID, &[block.id]);
        unabbreviated(w, 2, BLOCKINFO_BLOCKNAME, &chars(block.name));
        for r in block.records {
            let name = [&[r.code][..], &chars(r.name)].concat();
            unabbreviated(w, 2, BLOCKINFO_SETRECORDNAME, &name);
            if abbrevs_for != Some(block.id) {
                unabbreviated(w, 2, BLOCKINFO_SETBID, &[block.id]);
                abbrevs_for = Some(block.id);
            }
            define_abbrev(w, 2, r.ops);
        }
    }
    exit_block(w, blockinfo, 2);

    let meta = enter_block(w, &META, TOP_LEVEL_ABBREV_WIDTH);
    let info = [
        RECORD_META_CONTAINER_INFO,
        CONTAINER_VERSION_LATE_STRTAB,
        CONTAINER_V1_REMARKS_FILE,
    ];
    record(w, &META, &info, None);
    record(
        w,
        &META,
        &[RECORD_META_REMARK_VERSION, REMARK_VERSION],
        None,
    );
    exit_block(w, meta, META.abbrev_width);
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
    use super::super::bits::BitReader;
    use super::super::cursor::{Cursor, Entry, Scope};
    use super::*;
    use crate::{dead_function_remark, RemarkArg};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// An output that can be looked at while the writer holds it.
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The top-level blocks of a file: (block id, the records' codes and values, blob).
    type Blocks = Vec<(u64, Vec<(Vec<u64>, Option<Vec<u8>>)>)>;

    fn top_level_blocks(bytes: &[u8]) -> Blocks {
        let mut cursor = Cursor::new(BitReader::new(bytes));
        cursor.bits.jump_to(32).unwrap();
        let mut top = Scope::top_level(TOP_LEVEL_ABBREV_WIDTH);
        let mut blocks = vec![];
        while !cursor.bits.at_end() {
            let Entry::SubBlock { id, at } = cursor.next(&mut top).unwrap() else {
                panic!("not a block at the top level");
            };
            let mut scope = cursor.enter_block(id, at).unwrap();
            if id == BLOCKINFO_BLOCK_ID {
                cursor.read_blockinfo(&scope).unwrap();
                blocks.push((id, vec![]));
                continue;
            }
            let mut records = vec![];
            loop {
                match cursor.next(&mut scope).unwrap() {
                    Entry::EndBlock => break,
                    Entry::Record(r) => {
                        let values = match r.len() {
                            0 => vec![],
                            1 => r.fields::<1>().unwrap().to_vec(),
                            2 => r.fields::<2>().unwrap().to_vec(),
                            3 => r.fields::<3>().unwrap().to_vec(),
                            4 => r.fields::<4>().unwrap().to_vec(),
                            5 => r.fields::<5>().unwrap().to_vec(),
                            n => panic!("a record of {n} values"),
                        };
                        let values = [&[r.code][..], &values].concat();
                        records.push((values, r.blob.map(|b| b.bytes.to_vec())));
                    }
                    _ => panic!("unexpected entry"),
                }
            }
            blocks.push((id, records));
        }
        blocks
    }

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

    #[test]
    fn layout_is_llvm_22_remarks_file() {
        let mut hot = dead_function_remark("g", None);
        hot.hotness = Some(300);
        hot.debug_loc = Some(DebugLoc {
            file: "t.c".to_string(),
            line: 4,
            column: 2,
        });
        hot.args[0].debug_loc = hot.debug_loc.clone();
        let remarks = [dead_function_remark("f", None), hot];
        let blocks = top_level_blocks(&write(&remarks));
        let ids: Vec<u64> = blocks.iter().map(|b| b.0).collect();
        assert_eq!(
            ids,
            [
                BLOCKINFO_BLOCK_ID,
                META_BLOCK_ID,
                REMARK_BLOCK_ID,
                REMARK_BLOCK_ID,
                META_BLOCK_ID
            ]
        );
        // META: container version 1, a remarks file; remark version 0; no string table.
        assert_eq!(
            blocks[1].1,
            [
                (vec![RECORD_META_CONTAINER_INFO, 1, 1], None),
                (vec![RECORD_META_REMARK_VERSION, 0], None),
            ]
        );
        // Strings are indices, in the order first met; the late META holds the table.
        let first = &blocks[2].1;
        assert_eq!(first[0].0, [RECORD_REMARK_HEADER, 1, 0, 1, 2]);
        let second = &blocks[3].1;
        let codes: Vec<u64> = second.iter().map(|r| r.0[0]).collect();
        assert_eq!(
            codes,
            [
                RECORD_REMARK_HEADER,
                RECORD_REMARK_DEBUG_LOC,
                RECORD_REMARK_HOTNESS,
                RECORD_REMARK_ARG_WITH_DEBUGLOC,
                RECORD_REMARK_ARG_WITHOUT_DEBUGLOC,
            ]
        );
        assert_eq!(second[2].0, [RECORD_REMARK_HOTNESS, 300]);
        let Some(strtab) = &blocks[4].1[0].1 else {
            panic!("no string table")
        };
        assert_eq!(blocks[4].1.len(), 1);
        assert_eq!(blocks[4].1[0].0, [RECORD_META_STRTAB]);
        let table: Vec<&[u8]> = strtab.split(|&b| b == 0).collect();
        assert_eq!(
            &table[..4],
            [&b"deadfunction"[..], b"lto", b"f", b"Function"]
        );
        assert_eq!(table.last(), Some(&&b""[..]), "NUL-terminated");
    }

    #[test]
    fn remarks_are_written_as_they_are_added() {
        let out = Shared::default();
        let mut w = BitstreamWriter::new(out.clone());
        assert!(out.0.borrow().is_empty());
        w.add(&dead_function_remark("f", None)).unwrap();
        let after_one = out.0.borrow().len();
        w.add(&dead_function_remark("g", None)).unwrap();
        let after_two = out.0.borrow().len();
        assert!(after_one > 0 && after_two > after_one);
        w.finish().unwrap();
        let all = out.0.borrow().clone();
        assert!(all.len() > after_two);
        assert_eq!(
            all,
            write(&[
                dead_function_remark("f", None),
                dead_function_remark("g", None)
            ])
        );
    }
}
