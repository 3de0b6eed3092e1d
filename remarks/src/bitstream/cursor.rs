//! Generic LLVM bitstream reading: blocks, abbreviations (from BLOCKINFO and local
//! DEFINE_ABBREVs), abbreviated and unabbreviated records. Nothing here knows about remarks,
//! so a valid file may use any bitstream feature, not just the ones LLVM's remark serializer
//! happens to use.
//!
//! Lengths in the input are checked against the input left before anything is allocated or
//! skipped, so corrupt files fail with an error at the byte where reading went wrong.

use super::abbrev::{self, Op};
use super::bits::BitReader;
use crate::RemarkParseError;
use std::collections::HashMap;

/// The abbrev ids every block has (llvm/Bitstream/BitCodes.h).
pub(crate) const END_BLOCK: u64 = 0;
pub(crate) const ENTER_SUBBLOCK: u64 = 1;
pub(crate) const DEFINE_ABBREV: u64 = 2;
pub(crate) const UNABBREV_RECORD: u64 = 3;
pub(crate) const FIRST_APPLICATION_ABBREV: u64 = 4;

/// The block id of BLOCKINFO and its record codes.
pub(crate) const BLOCKINFO_BLOCK_ID: u64 = 0;
pub(crate) const BLOCKINFO_SETBID: u64 = 1;
pub(crate) const BLOCKINFO_BLOCKNAME: u64 = 2;
pub(crate) const BLOCKINFO_SETRECORDNAME: u64 = 3;

/// How many values of a record are kept. Remark records have at most five; keeping a fixed
/// number means a record that claims millions of values costs no memory, only the time to
/// read what the input really contains.
const KEPT_VALUES: usize = 8;

/// Raw bytes of a record's blob operand, borrowed from the input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Blob<'a> {
    pub(crate) bytes: &'a [u8],
    /// Offset of the blob's first byte in the input.
    pub(crate) at: u64,
}

/// A record as LLVM's `readRecord` returns it: the code, then the values (array elements
/// counted one by one), with a blob kept apart.
#[derive(Debug, Clone)]
pub(crate) struct Record<'a> {
    pub(crate) code: u64,
    /// Byte where the record starts, for error messages.
    pub(crate) at: u64,
    kept: [u64; KEPT_VALUES],
    len: u64,
    pub(crate) blob: Option<Blob<'a>>,
}

impl<'a> Record<'a> {
    fn new(code: u64, at: u64) -> Self {
        Record {
            code,
            at,
            kept: [0; KEPT_VALUES],
            len: 0,
            blob: None,
        }
    }

    fn push(&mut self, value: u64) {
        if let Some(slot) = self.kept.get_mut(self.len as usize) {
            *slot = value;
        }
        self.len += 1;
    }

    /// How many values the record has (not counting its code or blob).
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The values, if there are exactly `N`.
    pub(crate) fn fields<const N: usize>(&self) -> Option<[u64; N]> {
        if self.len != N as u64 {
            return None;
        }
        self.kept.get(..N)?.try_into().ok()
    }

    /// The first value, if any.
    pub(crate) fn first(&self) -> Option<u64> {
        (self.len > 0).then_some(self.kept[0])
    }
}

/// What comes next inside a block.
#[derive(Debug)]
pub(crate) enum Entry<'a> {
    /// The block's END_BLOCK, already checked against the block's declared length.
    EndBlock,
    /// An ENTER_SUBBLOCK whose id has been read; the caller enters or skips it.
    SubBlock {
        id: u64,
        at: u64,
    },
    DefineAbbrev(Vec<Op>),
    Record(Record<'a>),
}

/// The abbreviations BLOCKINFO gives each block id; every block with that id starts with
/// them (ids 4, 5, ...), before its own DEFINE_ABBREVs.
#[derive(Default)]
pub(crate) struct BlockInfo {
    abbrevs: HashMap<u64, Vec<Vec<Op>>>,
}

impl BlockInfo {
    fn for_block(&self, id: Option<u64>) -> &[Vec<Op>] {
        id.and_then(|id| self.abbrevs.get(&id))
            .map_or(&[], Vec::as_slice)
    }
}

/// The state of one open block.
pub(crate) struct Scope {
    /// `None` at the top level, outside any block.
    pub(crate) block_id: Option<u64>,
    /// Byte where the block's ENTER_SUBBLOCK is.
    pub(crate) at: u64,
    width: u32,
    /// Bit where the block's header says it ends.
    end: Option<u64>,
    local: Vec<Vec<Op>>,
}

impl Scope {
    /// Outside any block: abbrev ids are `width` bits (2 for remark files).
    pub(crate) fn top_level(width: u32) -> Self {
        Scope {
            block_id: None,
            at: 0,
            width,
            end: None,
            local: Vec::new(),
        }
    }
}

pub(crate) struct Cursor<'a> {
    pub(crate) bits: BitReader<'a>,
    pub(crate) blockinfo: BlockInfo,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bits: BitReader<'a>) -> Self {
        Cursor {
            bits,
            blockinfo: BlockInfo::default(),
        }
    }

    fn error(&self, at: u64, message: impl Into<String>) -> RemarkParseError {
        RemarkParseError::at_byte(at, message)
    }

    /// The next entry of `scope`, with DEFINE_ABBREVs returned rather than applied.
    pub(crate) fn next_raw(&mut self, scope: &Scope) -> Result<Entry<'a>, RemarkParseError> {
        let at = self.bits.byte_pos();
        let id = self.bits.read(scope.width)?;
        match id {
            END_BLOCK => {
                let Some(end) = scope.end else {
                    return Err(self.error(at, "END_BLOCK outside any block"));
                };
                self.bits.align32()?;
                if self.bits.bit_pos() != end {
                    return Err(self.error(
                        at,
                        format!(
                            "block ends at byte {} but its header says byte {}",
                            self.bits.byte_pos(),
                            end / 8
                        ),
                    ));
                }
                Ok(Entry::EndBlock)
            }
            ENTER_SUBBLOCK => Ok(Entry::SubBlock {
                id: self.bits.read_vbr(8)?,
                at,
            }),
            DEFINE_ABBREV => Ok(Entry::DefineAbbrev(abbrev::read_definition(
                &mut self.bits,
            )?)),
            UNABBREV_RECORD => self.read_unabbreviated(at).map(Entry::Record),
            _ => {
                let index = (id - FIRST_APPLICATION_ABBREV) as usize;
                let inherited = self.blockinfo.for_block(scope.block_id);
                let ops = match inherited.get(index) {
                    Some(ops) => ops,
                    None => scope
                        .local
                        .get(index - inherited.len())
                        .ok_or_else(|| self.error(at, format!("undefined abbreviation id {id}")))?,
                };
                read_abbreviated(&mut self.bits, ops, at).map(Entry::Record)
            }
        }
    }

    /// The next entry of `scope`, after applying any DEFINE_ABBREVs to it.
    pub(crate) fn next(&mut self, scope: &mut Scope) -> Result<Entry<'a>, RemarkParseError> {
        loop {
            match self.next_raw(scope)? {
                Entry::DefineAbbrev(ops) => scope.local.push(ops),
                entry => return Ok(entry),
            }
        }
    }

    /// Reads a block header: abbrev width, alignment, length in 32-bit words. Returns the
    /// width and the bit where the block ends, which must lie within the input.
    fn block_header(&mut self, id: u64, at: u64) -> Result<(u32, u64), RemarkParseError> {
        let width = self.bits.read_vbr(4)?;
        if !(1..=64).contains(&width) {
            return Err(self.error(at, format!("block {id} has abbrev width {width}")));
        }
        self.bits.align32()?;
        let words = self.bits.read(32)?;
        let end = self.bits.bit_pos() + words * 32;
        if end > self.bits.len_bits() {
            return Err(self.error(
                at,
                format!("block {id} claims {words} words, past the end of the input"),
            ));
        }
        Ok((width as u32, end))
    }

    /// Enters the sub-block announced by [`Entry::SubBlock`].
    pub(crate) fn enter_block(&mut self, id: u64, at: u64) -> Result<Scope, RemarkParseError> {
        let (width, end) = self.block_header(id, at)?;
        Ok(Scope {
            block_id: Some(id),
            at,
            width,
            end: Some(end),
            local: Vec::new(),
        })
    }

    /// Skips the sub-block announced by [`Entry::SubBlock`], whatever it contains.
    pub(crate) fn skip_block(&mut self, id: u64, at: u64) -> Result<(), RemarkParseError> {
        let (_, end) = self.block_header(id, at)?;
        self.bits.jump_to(end)
    }

    /// Reads the rest of a BLOCKINFO block entered with [`Cursor::enter_block`]: its
    /// DEFINE_ABBREVs belong to the block id named by the last SETBID.
    pub(crate) fn read_blockinfo(&mut self, scope: &Scope) -> Result<(), RemarkParseError> {
        let mut target = None;
        loop {
            match self.next_raw(scope)? {
                Entry::EndBlock => return Ok(()),
                Entry::SubBlock { id, at } => self.skip_block(id, at)?,
                Entry::DefineAbbrev(ops) => {
                    let Some(id) = target else {
                        return Err(self.error(
                            scope.at,
                            "BLOCKINFO defines an abbreviation before any SETBID",
                        ));
                    };
                    self.blockinfo.abbrevs.entry(id).or_default().push(ops);
                }
                Entry::Record(r) if r.code == BLOCKINFO_SETBID => {
                    target = Some(
                        r.first()
                            .ok_or_else(|| self.error(r.at, "SETBID record without a block id"))?,
                    );
                }
                // Names are for dumping tools; nothing here needs them.
                Entry::Record(_) => {}
            }
        }
    }

    fn read_unabbreviated(&mut self, at: u64) -> Result<Record<'a>, RemarkParseError> {
        let code = self.bits.read_vbr(6)?;
        let count = self.bits.read_vbr(6)?;
        if count > self.bits.remaining_bits() / 6 {
            return Err(self.error(
                at,
                format!("record claims {count} values, more than the input holds"),
            ));
        }
        let mut record = Record::new(code, at);
        for _ in 0..count {
            record.push(self.bits.read_vbr(6)?);
        }
        Ok(record)
    }
}

fn read_scalar(bits: &mut BitReader, op: Op, at: u64) -> Result<u64, RemarkParseError> {
    match op {
        Op::Literal(v) => Ok(v),
        Op::Fixed(width) => bits.read(width),
        Op::Vbr(width) => bits.read_vbr(width),
        Op::Char6 => Ok(abbrev::decode_char6(bits.read(6)?)),
        Op::Array | Op::Blob => Err(RemarkParseError::at_byte(
            at,
            "array or blob where a single value is expected",
        )),
    }
}

/// Reads a record's operands as `ops` lays them out (`ops` passed [`abbrev::check`]).
fn read_abbreviated<'a>(
    bits: &mut BitReader<'a>,
    ops: &[Op],
    at: u64,
) -> Result<Record<'a>, RemarkParseError> {
    let Some((&code_op, rest)) = ops.split_first() else {
        return Err(RemarkParseError::at_byte(
            at,
            "abbreviation has no operands",
        ));
    };
    let mut record = Record::new(read_scalar(bits, code_op, at)?, at);
    let mut ops = rest.iter();
    while let Some(&op) = ops.next() {
        match op {
            Op::Array => {
                let len_at = bits.byte_pos();
                let len = bits.read_vbr(6)?;
                let element = ops.next().copied().unwrap_or(Op::Array);
                // Elements take at least one bit each (check() rules out literal ones).
                if len > bits.remaining_bits() {
                    return Err(RemarkParseError::at_byte(
                        len_at,
                        format!("array of {len} elements runs past the end of the input"),
                    ));
                }
                for _ in 0..len {
                    record.push(read_scalar(bits, element, at)?);
                }
            }
            Op::Blob => {
                let len_at = bits.byte_pos();
                let len = bits.read_vbr(6)?;
                bits.align32()?;
                let start = bits.byte_pos();
                let bytes = bits.bytes();
                let blob = usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(len).ok())
                    .and_then(|(start, len)| bytes.get(start..start.checked_add(len)?))
                    .ok_or_else(|| {
                        RemarkParseError::at_byte(
                            len_at,
                            format!("blob of {len} bytes runs past the end of the input"),
                        )
                    })?;
                bits.jump_to((start + len) * 8)?;
                bits.align32()?;
                record.blob = Some(Blob {
                    bytes: blob,
                    at: start,
                });
            }
            op => {
                let value = read_scalar(bits, op, at)?;
                record.push(value);
            }
        }
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::bits::BitWriter;

    /// A top-level stream (abbrev width 2) holding one block 12 (abbrev width 3) whose
    /// records use every operand kind.
    fn sample() -> Vec<u8> {
        let mut w = BitWriter::new();
        w.emit(ENTER_SUBBLOCK, 2);
        w.emit_vbr(12, 8);
        w.emit_vbr(3, 4);
        w.align32();
        let length_at = w.as_bytes().len();
        w.emit(0, 32);
        let start = w.bit_len();
        // Unabbreviated: code 7, values [1, 1000].
        w.emit(UNABBREV_RECORD, 3);
        w.emit_vbr(7, 6);
        w.emit_vbr(2, 6);
        w.emit_vbr(1, 6);
        w.emit_vbr(1000, 6);
        // Local abbreviation 4: code literal 9, fixed 5, char6 array.
        let text: &[Op] = &[Op::Literal(9), Op::Fixed(5), Op::Array, Op::Char6];
        w.emit(DEFINE_ABBREV, 3);
        abbrev::emit_definition(&mut w, text);
        w.emit(4, 3);
        let hello: Vec<u64> = b"hello_W0.".iter().map(|&c| u64::from(c)).collect();
        abbrev::emit_record(&mut w, text, &[&[9, 17][..], &hello].concat(), None);
        // Local abbreviation 5: code vbr, blob.
        let blob: &[Op] = &[Op::Vbr(6), Op::Blob];
        w.emit(DEFINE_ABBREV, 3);
        abbrev::emit_definition(&mut w, blob);
        w.emit(5, 3);
        abbrev::emit_record(&mut w, blob, &[40], Some(b"raw\0bytes"));
        w.emit(END_BLOCK, 3);
        w.align32();
        let words = (w.bit_len() - start) / 32;
        w.patch_u32(length_at, words as u32);
        w.into_bytes()
    }

    #[test]
    fn every_operand_kind_reads_back() {
        let bytes = sample();
        let mut c = Cursor::new(BitReader::new(&bytes));
        let top = Scope::top_level(2);
        let Entry::SubBlock { id: 12, at } = c.next_raw(&top).unwrap() else {
            panic!("no block")
        };
        let mut scope = c.enter_block(12, at).unwrap();
        let Entry::Record(r) = c.next(&mut scope).unwrap() else {
            panic!()
        };
        assert_eq!((r.code, r.fields()), (7, Some([1, 1000])));
        let Entry::Record(r) = c.next(&mut scope).unwrap() else {
            panic!()
        };
        assert_eq!(r.code, 9);
        assert_eq!(r.len(), 10);
        assert_eq!(&r.kept[..3], &[17, u64::from(b'h'), u64::from(b'e')]);
        let Entry::Record(r) = c.next(&mut scope).unwrap() else {
            panic!()
        };
        assert_eq!((r.code, r.len()), (40, 0));
        assert_eq!(r.blob.unwrap().bytes, b"raw\0bytes");
        assert!(matches!(c.next(&mut scope).unwrap(), Entry::EndBlock));
        assert!(c.bits.at_end());
    }

    #[test]
    fn skipping_a_block_uses_its_length() {
        let bytes = sample();
        let mut c = Cursor::new(BitReader::new(&bytes));
        let top = Scope::top_level(2);
        let Entry::SubBlock { id, at } = c.next_raw(&top).unwrap() else {
            panic!()
        };
        c.skip_block(id, at).unwrap();
        assert!(c.bits.at_end());
    }

    #[test]
    fn wrong_block_lengths_are_errors() {
        for words in [0u32, 1, 1000] {
            let mut bytes = sample();
            bytes[4..8].copy_from_slice(&words.to_le_bytes());
            let mut c = Cursor::new(BitReader::new(&bytes));
            let top = Scope::top_level(2);
            let Entry::SubBlock { id, at } = c.next_raw(&top).unwrap() else {
                panic!()
            };
            let result = c.enter_block(id, at).and_then(|mut scope| loop {
                if let Entry::EndBlock = c.next(&mut scope)? {
                    return Ok(());
                }
            });
            assert!(result.is_err(), "{words} words accepted");
        }
    }
}
