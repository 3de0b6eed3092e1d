//! Bit-level reading and writing in LLVM's bitstream order: fields are packed from the least
//! significant bit of each byte upwards, and a VBR field is a chain of fixed-width chunks whose
//! top bit says "more follows".

use crate::RemarkParseError;

/// A read position over a byte slice, counted in bits. Every read checks the remaining input
/// first, so a corrupt length or width ends in an error, never in a panic.
#[derive(Clone)]
pub(crate) struct BitReader<'a> {
    bytes: &'a [u8],
    pos: u64,
}

impl<'a> BitReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        BitReader { bytes, pos: 0 }
    }

    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub(crate) fn bit_pos(&self) -> u64 {
        self.pos
    }

    /// The byte holding the next bit: where errors point.
    pub(crate) fn byte_pos(&self) -> u64 {
        self.pos / 8
    }

    pub(crate) fn len_bits(&self) -> u64 {
        self.bytes.len() as u64 * 8
    }

    pub(crate) fn remaining_bits(&self) -> u64 {
        self.len_bits().saturating_sub(self.pos)
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.len_bits()
    }

    /// Moves to `bit`, which must lie within the input (or just past its end).
    pub(crate) fn jump_to(&mut self, bit: u64) -> Result<(), RemarkParseError> {
        if bit > self.len_bits() {
            return Err(self.eof());
        }
        self.pos = bit;
        Ok(())
    }

    fn eof(&self) -> RemarkParseError {
        RemarkParseError::at_byte(self.byte_pos(), "unexpected end of input")
    }

    /// A fixed-width field of up to 64 bits.
    pub(crate) fn read(&mut self, width: u32) -> Result<u64, RemarkParseError> {
        debug_assert!(width <= 64);
        let end = self.pos + u64::from(width);
        if end > self.len_bits() {
            return Err(self.eof());
        }
        let mut value = 0u64;
        let mut got = 0u32;
        let mut pos = self.pos;
        while got < width {
            let Some(&byte) = self.bytes.get((pos / 8) as usize) else {
                return Err(self.eof());
            };
            let shift = (pos % 8) as u32;
            let take = (8 - shift).min(width - got);
            let chunk = u64::from(byte >> shift) & ((1u64 << take) - 1);
            value |= chunk << got;
            got += take;
            pos += u64::from(take);
        }
        self.pos = end;
        Ok(value)
    }

    /// A variable-width field made of `width`-bit chunks (`width` in 1..=64). Values that do
    /// not fit in 64 bits are an error rather than silently truncated.
    pub(crate) fn read_vbr(&mut self, width: u32) -> Result<u64, RemarkParseError> {
        debug_assert!((1..=64).contains(&width));
        let start = self.byte_pos();
        let data_bits = width - 1;
        let continue_bit = 1u64 << data_bits;
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let piece = self.read(width)?;
            let data = piece & (continue_bit - 1);
            if data != 0 {
                if shift >= 64 || (shift > 0 && data >> (64 - shift) != 0) {
                    return Err(RemarkParseError::at_byte(
                        start,
                        "variable-width value does not fit in 64 bits",
                    ));
                }
                value |= data << shift;
            }
            if piece & continue_bit == 0 {
                return Ok(value);
            }
            shift = shift.saturating_add(data_bits);
        }
    }

    /// Skips to the next multiple of 32 bits, where blocks and blobs begin and end.
    pub(crate) fn align32(&mut self) -> Result<(), RemarkParseError> {
        let aligned = self.pos.div_ceil(32) * 32;
        self.jump_to(aligned)
    }
}

/// An output bit buffer. Bits go in as [`BitReader`] reads them back.
#[derive(Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    bits: u64,
}

impl BitWriter {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    #[cfg(test)]
    pub(crate) fn bit_len(&self) -> u64 {
        self.bits
    }

    /// Empties the buffer, keeping its allocation.
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.bits = 0;
    }

    /// The bytes written so far; a partly filled last byte is padded with zeros.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    #[cfg(test)]
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The low `width` bits of `value` (`width` up to 64).
    pub(crate) fn emit(&mut self, value: u64, width: u32) {
        debug_assert!(width <= 64);
        debug_assert!(
            width == 64 || value >> width == 0,
            "{value} needs more than {width} bits"
        );
        let mut done = 0u32;
        while done < width {
            let shift = (self.bits % 8) as u32;
            if shift == 0 {
                self.bytes.push(0);
            }
            let take = (8 - shift).min(width - done);
            let chunk = (value >> done) & ((1u64 << take) - 1);
            if let Some(last) = self.bytes.last_mut() {
                *last |= (chunk as u8) << shift;
            }
            done += take;
            self.bits += u64::from(take);
        }
    }

    /// `value` in `width`-bit VBR chunks, as LLVM's `EmitVBR64` writes it.
    pub(crate) fn emit_vbr(&mut self, mut value: u64, width: u32) {
        debug_assert!((2..=64).contains(&width));
        let data_bits = width - 1;
        let continue_bit = 1u64 << data_bits;
        while value >= continue_bit {
            self.emit((value & (continue_bit - 1)) | continue_bit, width);
            value >>= data_bits;
        }
        self.emit(value, width);
    }

    /// Pads with zero bits to the next multiple of 32 bits.
    pub(crate) fn align32(&mut self) {
        let pad = (32 - self.bits % 32) % 32;
        self.emit(0, pad as u32);
    }

    /// Whole bytes, at a byte-aligned position (blob contents).
    pub(crate) fn emit_bytes(&mut self, bytes: &[u8]) {
        debug_assert_eq!(self.bits % 8, 0);
        self.bytes.extend_from_slice(bytes);
        self.bits += bytes.len() as u64 * 8;
    }

    /// Overwrites the 32-bit little-endian word at byte `offset` (a block's length, known only
    /// once the block is complete).
    pub(crate) fn patch_u32(&mut self, offset: usize, value: u32) {
        if let Some(word) = self.bytes.get_mut(offset..offset + 4) {
            word.copy_from_slice(&value.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_vbrs_read_back_as_written() {
        let mut w = BitWriter::new();
        let fields: [(u64, u32, bool); 9] = [
            (1, 2, false),
            (8, 8, true),
            (3, 4, true),
            (0xdead_beef, 32, false),
            (u64::MAX, 64, false),
            (u64::MAX, 8, true),
            (0, 6, true),
            (5, 3, false),
            (1 << 40, 6, true),
        ];
        for (value, width, vbr) in fields {
            if vbr {
                w.emit_vbr(value, width);
            } else {
                w.emit(value, width);
            }
        }
        w.align32();
        assert_eq!(w.bit_len() % 32, 0);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        for (value, width, vbr) in fields {
            let got = if vbr {
                r.read_vbr(width)
            } else {
                r.read(width)
            };
            assert_eq!(got, Ok(value));
        }
        r.align32().unwrap();
        assert!(r.at_end());
    }

    #[test]
    fn lsb_first_layout_matches_llvm() {
        // LLVM writes the magic "RMRK" as four 8-bit fields, then abbrev id 1 in 2 bits.
        let mut w = BitWriter::new();
        for c in b"RMRK" {
            w.emit(u64::from(*c), 8);
        }
        w.emit(1, 2);
        w.emit(0, 8 - 2);
        assert_eq!(w.into_bytes(), b"RMRK\x01");
    }

    #[test]
    fn overlong_vbr_and_reads_past_the_end_are_errors() {
        let bytes = [0xffu8; 16];
        assert!(BitReader::new(&bytes).read_vbr(8).is_err());
        let mut r = BitReader::new(&bytes[..1]);
        assert!(r.read(9).is_err());
        assert_eq!(r.read(8), Ok(0xff));
        assert!(r.read(1).is_err());
        // A chunk width of 1 carries no data; a chain of them ends at the input's end.
        assert!(BitReader::new(&bytes).read_vbr(1).is_err());
    }
}
