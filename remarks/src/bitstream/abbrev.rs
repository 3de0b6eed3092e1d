//! Abbreviations: the per-record templates of an LLVM bitstream. A DEFINE_ABBREV lists
//! operands; a record written with it stores only the non-literal ones, each in the encoding
//! its operand names. The writer encodes with the same definitions it writes into BLOCKINFO,
//! so what the file declares and what it contains cannot drift apart.

use super::bits::{BitReader, BitWriter};
use crate::RemarkParseError;

/// One operand of an abbreviation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// A value that is implied, not stored.
    Literal(u64),
    Fixed(u32),
    Vbr(u32),
    /// A VBR6 length, then that many values in the encoding of the next (last) operand.
    Array,
    /// 6 bits standing for one of `[a-zA-Z0-9._]`.
    Char6,
    /// A VBR6 length, then 32-bit-aligned raw bytes; always the last operand.
    Blob,
}

/// Operand encoding numbers in DEFINE_ABBREV (llvm/Bitstream/BitCodes.h).
const FIXED: u64 = 1;
const VBR: u64 = 2;
const ARRAY: u64 = 3;
const CHAR6: u64 = 4;
const BLOB: u64 = 5;

const CHAR6_ALPHABET: &[u8; 64] =
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";

pub(crate) fn decode_char6(v: u64) -> u64 {
    u64::from(CHAR6_ALPHABET[(v & 63) as usize])
}

fn encode_char6(c: u64) -> u64 {
    CHAR6_ALPHABET
        .iter()
        .position(|&a| u64::from(a) == c)
        .unwrap_or(0) as u64
}

/// Whether the operands form an abbreviation a reader can follow: the record code comes
/// first and is a single value; an array is followed by exactly one scalar element operand,
/// which ends the list; a blob ends the list.
pub(crate) fn check(ops: &[Op]) -> Result<(), &'static str> {
    match ops.first() {
        None => return Err("abbreviation has no operands"),
        Some(Op::Array | Op::Blob) => {
            return Err("abbreviation starts with an array or a blob instead of the record code")
        }
        Some(_) => {}
    }
    for (i, op) in ops.iter().enumerate() {
        let last = i + 1 == ops.len();
        match op {
            Op::Array => {
                if i + 2 != ops.len() {
                    return Err("array operand is not followed by exactly one element operand");
                }
                if !matches!(ops[i + 1], Op::Fixed(_) | Op::Vbr(_) | Op::Char6) {
                    return Err("array element operand is not a fixed, VBR or char6 encoding");
                }
            }
            Op::Blob if !last => return Err("blob operand is not the last operand"),
            Op::Fixed(w) if *w > 64 => return Err("fixed-width operand wider than 64 bits"),
            Op::Vbr(w) if *w > 64 => return Err("VBR operand chunks wider than 64 bits"),
            _ => {}
        }
    }
    Ok(())
}

/// Reads the body of a DEFINE_ABBREV (after its abbrev id). As LLVM does, `Fixed(0)` and
/// `Vbr(0)` become a literal zero, since they take no bits.
pub(crate) fn read_definition(r: &mut BitReader) -> Result<Vec<Op>, RemarkParseError> {
    let at = r.byte_pos();
    let count = r.read_vbr(5)?;
    // Each operand takes at least one bit: a count beyond the input is corrupt, and the
    // vector below only grows with operands actually read.
    if count > r.remaining_bits() {
        return Err(RemarkParseError::at_byte(
            at,
            format!("abbreviation claims {count} operands, more than the input holds"),
        ));
    }
    let mut ops = Vec::new();
    for _ in 0..count {
        let op_at = r.byte_pos();
        let op = if r.read(1)? == 1 {
            Op::Literal(r.read_vbr(8)?)
        } else {
            match r.read(3)? {
                FIXED => match r.read_vbr(5)? {
                    0 => Op::Literal(0),
                    w => Op::Fixed(u32::try_from(w).unwrap_or(u32::MAX)),
                },
                VBR => match r.read_vbr(5)? {
                    0 => Op::Literal(0),
                    w => Op::Vbr(u32::try_from(w).unwrap_or(u32::MAX)),
                },
                ARRAY => Op::Array,
                CHAR6 => Op::Char6,
                BLOB => Op::Blob,
                e => {
                    return Err(RemarkParseError::at_byte(
                        op_at,
                        format!("unknown abbreviation operand encoding {e}"),
                    ))
                }
            }
        };
        ops.push(op);
    }
    check(&ops).map_err(|msg| RemarkParseError::at_byte(at, msg))?;
    Ok(ops)
}

/// Writes the body of a DEFINE_ABBREV (after its abbrev id), as LLVM's `EncodeAbbrev` does.
pub(crate) fn emit_definition(w: &mut BitWriter, ops: &[Op]) {
    debug_assert_eq!(check(ops), Ok(()));
    w.emit_vbr(ops.len() as u64, 5);
    for op in ops {
        match *op {
            Op::Literal(v) => {
                w.emit(1, 1);
                w.emit_vbr(v, 8);
            }
            Op::Fixed(width) => {
                w.emit(0, 1);
                w.emit(FIXED, 3);
                w.emit_vbr(u64::from(width), 5);
            }
            Op::Vbr(width) => {
                w.emit(0, 1);
                w.emit(VBR, 3);
                w.emit_vbr(u64::from(width), 5);
            }
            Op::Array => {
                w.emit(0, 1);
                w.emit(ARRAY, 3);
            }
            Op::Char6 => {
                w.emit(0, 1);
                w.emit(CHAR6, 3);
            }
            Op::Blob => {
                w.emit(0, 1);
                w.emit(BLOB, 3);
            }
        }
    }
}

fn emit_scalar(w: &mut BitWriter, op: Op, value: u64) {
    match op {
        Op::Literal(v) => debug_assert_eq!(v, value, "literal operand given another value"),
        Op::Fixed(width) => w.emit(value, width),
        Op::Vbr(width) => w.emit_vbr(value, width),
        Op::Char6 => w.emit(encode_char6(value), 6),
        Op::Array | Op::Blob => debug_assert!(false, "not a scalar operand"),
    }
}

/// Writes a record's operands with an abbreviation (after its abbrev id), as LLVM's
/// `EmitRecordWithAbbrev` does. `values` starts with the record code; an array operand takes
/// all remaining values, a blob operand takes `blob`.
pub(crate) fn emit_record(w: &mut BitWriter, ops: &[Op], values: &[u64], blob: Option<&[u8]>) {
    debug_assert_eq!(check(ops), Ok(()));
    let mut values = values.iter().copied();
    let mut i = 0;
    while i < ops.len() {
        match ops[i] {
            Op::Array => {
                let rest: Vec<u64> = values.by_ref().collect();
                w.emit_vbr(rest.len() as u64, 6);
                for v in rest {
                    emit_scalar(w, ops[i + 1], v);
                }
                i += 1;
            }
            Op::Blob => {
                let bytes = blob.unwrap_or_default();
                w.emit_vbr(bytes.len() as u64, 6);
                w.align32();
                w.emit_bytes(bytes);
                w.align32();
            }
            op => emit_scalar(w, op, values.next().unwrap_or_default()),
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_read_back_as_written() {
        let defs: [&[Op]; 4] = [
            &[
                Op::Literal(5),
                Op::Fixed(3),
                Op::Vbr(6),
                Op::Vbr(6),
                Op::Vbr(8),
            ],
            &[Op::Literal(3), Op::Blob],
            &[Op::Fixed(4), Op::Char6, Op::Array, Op::Char6],
            &[Op::Vbr(6), Op::Array, Op::Fixed(64)],
        ];
        for ops in defs {
            let mut w = BitWriter::new();
            emit_definition(&mut w, ops);
            w.align32();
            let bytes = w.into_bytes();
            assert_eq!(read_definition(&mut BitReader::new(&bytes)).unwrap(), ops);
        }
    }

    #[test]
    fn zero_width_operands_are_literal_zeros() {
        let mut w = BitWriter::new();
        w.emit_vbr(2, 5);
        w.emit(0, 1);
        w.emit(FIXED, 3);
        w.emit_vbr(0, 5);
        w.emit(0, 1);
        w.emit(VBR, 3);
        w.emit_vbr(0, 5);
        let bytes = w.into_bytes();
        let ops = read_definition(&mut BitReader::new(&bytes)).unwrap();
        assert_eq!(ops, [Op::Literal(0), Op::Literal(0)]);
    }

    #[test]
    fn malformed_shapes_are_rejected() {
        for ops in [
            &[][..],
            &[Op::Blob],
            &[Op::Array, Op::Fixed(3)],
            &[Op::Literal(1), Op::Blob, Op::Fixed(3)],
            &[Op::Literal(1), Op::Array],
            &[Op::Literal(1), Op::Array, Op::Literal(0)],
            &[Op::Literal(1), Op::Array, Op::Fixed(3), Op::Fixed(3)],
            &[Op::Literal(1), Op::Fixed(65)],
        ] {
            assert!(check(ops).is_err(), "{ops:?}");
        }
    }

    #[test]
    fn char6_covers_its_alphabet() {
        for (i, &c) in CHAR6_ALPHABET.iter().enumerate() {
            assert_eq!(decode_char6(i as u64), u64::from(c));
            assert_eq!(encode_char6(u64::from(c)), i as u64);
        }
    }
}
