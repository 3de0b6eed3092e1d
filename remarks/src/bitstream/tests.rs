//! Reading files LLVM's serializer would not write but a valid bitstream may contain, and
//! files that are broken in specific ways.

use super::abbrev::{self, Op};
use super::bits::BitWriter;
use super::cursor::{DEFINE_ABBREV, END_BLOCK, ENTER_SUBBLOCK, UNABBREV_RECORD};
use super::layout::*;
use super::{read_bitstream, BitstreamWriter};
use crate::fixtures::XorShift;
use crate::{dead_function_remark, DebugLoc, Position, Remark, RemarkArg, RemarkKind};
use crate::{RemarkKind::*, RemarkParseError};

/// Writes bitstream by hand, one primitive at a time.
struct Builder {
    w: BitWriter,
    /// Open blocks: where their length word is, and the enclosing abbrev width.
    open: Vec<(usize, u32)>,
    width: u32,
}

impl Builder {
    fn new() -> Self {
        let mut w = BitWriter::new();
        for b in MAGIC {
            w.emit(u64::from(b), 8);
        }
        Builder {
            w,
            open: vec![],
            width: TOP_LEVEL_ABBREV_WIDTH,
        }
    }

    fn enter(&mut self, id: u64, width: u32) -> &mut Self {
        self.w.emit(ENTER_SUBBLOCK, self.width);
        self.w.emit_vbr(id, 8);
        self.w.emit_vbr(u64::from(width), 4);
        self.w.align32();
        self.open.push((self.w.as_bytes().len(), self.width));
        self.w.emit(0, 32);
        self.width = width;
        self
    }

    fn exit(&mut self) -> &mut Self {
        self.w.emit(END_BLOCK, self.width);
        self.w.align32();
        let (at, outer) = self.open.pop().unwrap();
        let words = (self.w.as_bytes().len() - at - 4) / 4;
        self.w.patch_u32(at, words as u32);
        self.width = outer;
        self
    }

    fn unabbrev(&mut self, code: u64, values: &[u64]) -> &mut Self {
        self.w.emit(UNABBREV_RECORD, self.width);
        self.w.emit_vbr(code, 6);
        self.w.emit_vbr(values.len() as u64, 6);
        for &v in values {
            self.w.emit_vbr(v, 6);
        }
        self
    }

    fn define(&mut self, ops: &[Op]) -> &mut Self {
        self.w.emit(DEFINE_ABBREV, self.width);
        abbrev::emit_definition(&mut self.w, ops);
        self
    }

    fn record(&mut self, id: u64, ops: &[Op], values: &[u64], blob: Option<&[u8]>) -> &mut Self {
        self.w.emit(id, self.width);
        abbrev::emit_record(&mut self.w, ops, values, blob);
        self
    }

    /// A META block of a standalone container, all records unabbreviated but the table.
    fn meta(&mut self, strtab: &[u8]) -> &mut Self {
        self.enter(META_BLOCK_ID, 3)
            .unabbrev(RECORD_META_CONTAINER_INFO, &[0, CONTAINER_STANDALONE])
            .unabbrev(RECORD_META_REMARK_VERSION, &[0])
            .define(&[Op::Literal(RECORD_META_STRTAB), Op::Blob])
            .record(
                4,
                &[Op::Literal(RECORD_META_STRTAB), Op::Blob],
                &[RECORD_META_STRTAB],
                Some(strtab),
            )
            .exit()
    }

    fn bytes(&mut self) -> Vec<u8> {
        assert!(self.open.is_empty());
        self.w.as_bytes().to_vec()
    }
}

fn read_all(bytes: &[u8]) -> Result<Vec<Remark>, RemarkParseError> {
    read_bitstream(bytes)?.collect()
}

fn write(remarks: &[Remark]) -> Vec<u8> {
    let mut w = BitstreamWriter::new(Vec::new());
    for r in remarks {
        w.add(r).unwrap();
    }
    w.finish().unwrap()
}

fn loc(file: &str, line: u32, column: u32) -> Option<DebugLoc> {
    Some(DebugLoc {
        file: file.to_string(),
        line,
        column,
    })
}

fn remark(kind: RemarkKind, args: Vec<RemarkArg>) -> Remark {
    Remark {
        kind,
        pass: "inline".to_string(),
        name: "Inlined".to_string(),
        debug_loc: None,
        function: "main".to_string(),
        hotness: None,
        args,
    }
}

fn sample_remarks() -> Vec<Remark> {
    let mut all = vec![
        dead_function_remark("unused", loc("tu2.c", 1, 0)),
        dead_function_remark("", None),
    ];
    for (i, kind) in RemarkKind::ALL.into_iter().enumerate() {
        let mut r = remark(
            kind,
            vec![
                RemarkArg {
                    key: "Callee".to_string(),
                    value: format!("caf\u{e9} {i}\n\t\"q\""),
                    debug_loc: loc("", u32::MAX, u32::MAX),
                },
                RemarkArg {
                    key: String::new(),
                    value: String::new(),
                    debug_loc: None,
                },
            ],
        );
        r.hotness = [None, Some(0), Some(u64::MAX), Some(1 << 40)][i % 4];
        r.debug_loc = loc("dir/\u{1f600}.c", i as u32, 0);
        all.push(r);
    }
    all
}

#[test]
fn written_remarks_read_back() {
    let remarks = sample_remarks();
    assert_eq!(read_all(&write(&remarks)).unwrap(), remarks);
}

#[test]
fn empty_input_has_no_remarks() {
    assert_eq!(read_all(b"").unwrap(), vec![]);
}

#[test]
fn general_bitstream_features_are_read() {
    let strings = b"Inlined\0inline\0main\0f.c\0Callee\0g\0";
    let header_ops = [Op::Fixed(4), Op::Vbr(3), Op::Vbr(3), Op::Vbr(3), Op::Vbr(3)];
    let arg_ops = [
        Op::Literal(RECORD_REMARK_ARG_WITH_DEBUGLOC),
        Op::Array,
        Op::Vbr(4),
    ];
    let hot_ops = [Op::Literal(RECORD_REMARK_HOTNESS), Op::Fixed(0)];
    let skipped = [Op::Literal(60), Op::Array, Op::Char6];
    let chars: Vec<u64> = b"abc_9.".iter().map(|&c| u64::from(c)).collect();
    let mut b = Builder::new();
    // An unknown block before anything else, and one with a nested block.
    b.enter(20, 2).unabbrev(1, &[1, 2, 3]).exit();
    b.enter(21, 3).enter(22, 4).unabbrev(5, &[]).exit().exit();
    // BLOCKINFO for the remark block only: the header's code is a field, not a literal.
    b.enter(0, 2)
        .unabbrev(1, &[REMARK_BLOCK_ID])
        .define(&header_ops)
        .exit();
    b.meta(strings);
    // A top-level record and DEFINE_ABBREV, which nothing uses.
    b.unabbrev(3, &[7]).define(&[Op::Literal(1)]);
    b.enter(REMARK_BLOCK_ID, 5)
        .record(4, &header_ops, &[RECORD_REMARK_HEADER, 1, 0, 1, 2], None)
        .define(&arg_ops)
        .define(&hot_ops)
        .define(&skipped)
        .unabbrev(RECORD_REMARK_DEBUG_LOC, &[3, 10, 2])
        .record(6, &hot_ops, &[RECORD_REMARK_HOTNESS, 0], None)
        .record(7, &skipped, &[&[60][..], &chars].concat(), None)
        .enter(23, 2)
        .unabbrev(RECORD_REMARK_HEADER, &[9, 9, 9, 9])
        .exit()
        .unabbrev(99, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        .record(
            5,
            &arg_ops,
            &[RECORD_REMARK_ARG_WITH_DEBUGLOC, 4, 5, 3, 1, 0],
            None,
        )
        .unabbrev(RECORD_REMARK_ARG_WITHOUT_DEBUGLOC, &[4, 5])
        .exit();
    // Local abbreviations do not outlive their block.
    b.enter(REMARK_BLOCK_ID, 3)
        .record(4, &header_ops, &[RECORD_REMARK_HEADER, 2, 0, 1, 2], None)
        .exit();
    b.enter(24, 2).exit();
    let expected = vec![
        Remark {
            kind: Passed,
            debug_loc: loc("f.c", 10, 2),
            hotness: Some(0),
            ..remark(
                Passed,
                vec![
                    RemarkArg {
                        key: "Callee".to_string(),
                        value: "g".to_string(),
                        debug_loc: loc("f.c", 1, 0),
                    },
                    RemarkArg {
                        key: "Callee".to_string(),
                        value: "g".to_string(),
                        debug_loc: None,
                    },
                ],
            )
        },
        remark(Missed, vec![]),
    ];
    assert_eq!(read_all(&b.bytes()).unwrap(), expected);
}

fn message(result: Result<Vec<Remark>, RemarkParseError>) -> RemarkParseError {
    result.expect_err("reading should fail")
}

#[test]
fn files_without_a_string_table_say_so() {
    let mut b = Builder::new();
    b.enter(META_BLOCK_ID, 3)
        .unabbrev(
            RECORD_META_CONTAINER_INFO,
            &[0, CONTAINER_SEPARATE_REMARKS_FILE],
        )
        .unabbrev(RECORD_META_REMARK_VERSION, &[0])
        .exit();
    let e = message(read_all(&b.bytes()));
    assert!(e.message.contains("string table is missing"), "{e}");
    assert!(e.message.contains("separate remarks file"), "{e}");
    assert_eq!(e.position, Position::Byte(4));

    let mut b = Builder::new();
    b.enter(META_BLOCK_ID, 3)
        .unabbrev(RECORD_META_CONTAINER_INFO, &[0, CONTAINER_STANDALONE])
        .unabbrev(RECORD_META_REMARK_VERSION, &[0])
        .exit();
    assert!(message(read_all(&b.bytes()))
        .message
        .contains("string table is missing"));

    let mut b = Builder::new();
    let file = [Op::Literal(RECORD_META_EXTERNAL_FILE), Op::Blob];
    b.enter(META_BLOCK_ID, 3)
        .unabbrev(
            RECORD_META_CONTAINER_INFO,
            &[0, CONTAINER_SEPARATE_REMARKS_META],
        )
        .define(&file)
        .record(
            4,
            &file,
            &[RECORD_META_EXTERNAL_FILE],
            Some(b"t.opt.bitstream"),
        )
        .exit();
    assert!(message(read_all(&b.bytes()))
        .message
        .contains("\"t.opt.bitstream\""));
}

/// A file with the given META string table and one remark header (indices given).
fn one_header(strtab: &[u8], kind: u64, names: [u64; 3]) -> Vec<u8> {
    let mut b = Builder::new();
    b.meta(strtab)
        .enter(REMARK_BLOCK_ID, 3)
        .unabbrev(RECORD_REMARK_HEADER, &[kind, names[0], names[1], names[2]])
        .exit();
    b.bytes()
}

#[test]
fn bad_contents_are_errors_at_their_byte() {
    let ok = one_header(b"a\0b\0", 1, [0, 1, 1]);
    assert_eq!(read_all(&ok).unwrap().len(), 1);
    // The block ends with two words: the 42 bits of the header record and END_BLOCK.
    let header_at = ok.len() as u64 - 8;
    let e = message(read_all(&one_header(b"a\0b\0", 1, [0, 2, 1])));
    assert!(e.message.contains("string index 2 is out of range"), "{e}");
    assert_eq!(e.position, Position::Byte(header_at));

    let bytes = one_header(b"a\0\xff\0", 1, [0, 1, 0]);
    let e = message(read_all(&bytes));
    assert!(e.message.contains("not valid UTF-8"), "{e}");
    let blob_at = bytes.windows(2).position(|w| w == b"\xff\0").unwrap() as u64;
    assert_eq!(e.position, Position::Byte(blob_at));

    for kind in [0, 7] {
        let e = message(read_all(&one_header(b"a\0", kind, [0, 0, 0])));
        assert!(e.message.contains("remark type"), "{e}");
    }
    assert!(read_all(&one_header(b"a", 1, [0, 0, 0])).is_err());
    let e = message(read_all(b"BC\xc0\xde"));
    assert_eq!(e.position, Position::Byte(0));

    let mut b = Builder::new();
    b.meta(b"a\0")
        .enter(REMARK_BLOCK_ID, 3)
        .unabbrev(RECORD_REMARK_HEADER, &[1, 0, 0])
        .exit();
    assert!(message(read_all(&b.bytes()))
        .message
        .contains("3 values instead of 4"));
    let mut b = Builder::new();
    b.meta(b"a\0").enter(REMARK_BLOCK_ID, 3).exit();
    assert!(message(read_all(&b.bytes()))
        .message
        .contains("without a header"));
}

#[test]
fn huge_lengths_are_errors_without_huge_allocations() {
    // A blob, an array and an unabbreviated record that each claim 2^60 entries, and a
    // block that claims 4G words.
    let huge = 1u64 << 60;
    let mut b = Builder::new();
    b.enter(META_BLOCK_ID, 3).w.emit(UNABBREV_RECORD, 3);
    b.w.emit_vbr(RECORD_META_CONTAINER_INFO, 6);
    b.w.emit_vbr(huge, 6);
    b.w.align32();
    assert!(message(read_all(b.w.as_bytes()))
        .message
        .contains("more than the input holds"));

    let mut b = Builder::new();
    b.enter(META_BLOCK_ID, 3)
        .define(&[Op::Literal(3), Op::Blob]);
    b.w.emit(4, 3);
    b.w.emit_vbr(huge, 6);
    b.w.align32();
    assert!(message(read_all(b.w.as_bytes()))
        .message
        .contains("runs past the end"));

    let mut b = Builder::new();
    b.enter(META_BLOCK_ID, 3)
        .define(&[Op::Literal(3), Op::Array, Op::Fixed(8)]);
    b.w.emit(4, 3);
    b.w.emit_vbr(huge, 6);
    b.w.align32();
    assert!(message(read_all(b.w.as_bytes()))
        .message
        .contains("runs past the end"));

    let mut bytes = write(&sample_remarks());
    bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes()); // BLOCKINFO's length word
    assert!(message(read_all(&bytes)).message.contains("past the end"));
}

#[test]
fn every_truncation_is_an_error() {
    // The string table comes last (container version 1), so no cut file reads, however much
    // of it is there; an empty input is no remarks.
    let remarks = sample_remarks();
    let bytes = write(&remarks);
    assert_eq!(read_all(&bytes).unwrap(), remarks);
    for len in 1..bytes.len() {
        assert!(read_all(&bytes[..len]).is_err(), "cut at {len}");
    }
}

/// A standalone container of container version 0, as LLVM 14 wrote it for the remarks of
/// tests/data/clang-O2-pgo.opt.yaml (see tests/data/README.md).
const LLVM_14_STANDALONE: &[u8] = include_bytes!("../../tests/data/clang-O2-pgo.opt.v0.bitstream");

#[test]
fn llvm_14_truncations_are_errors_or_end_between_remarks() {
    // The string table comes first (container version 0): a file cut between two REMARK
    // blocks reads as the remarks before the cut.
    let all = read_all(LLVM_14_STANDALONE).unwrap();
    assert!(all.len() > 10);
    let mut clean_cuts = 0;
    for len in 0..LLVM_14_STANDALONE.len() {
        let Ok(iter) = read_bitstream(&LLVM_14_STANDALONE[..len]) else {
            continue;
        };
        let read: Vec<_> = iter.collect();
        let good: Vec<Remark> = read
            .iter()
            .map_while(|r| r.as_ref().ok().cloned())
            .collect();
        assert_eq!(good, all[..good.len()], "cut at {len}");
        if read.iter().all(Result::is_ok) && len > 0 {
            assert_eq!(len % 4, 0);
            clean_cuts += 1;
        }
    }
    assert!(clean_cuts >= all.len(), "{clean_cuts}");
}

#[test]
fn mangled_files_never_panic() {
    // rld's (LLVM 22's) container and LLVM 14's.
    let files = [write(&sample_remarks()), LLVM_14_STANDALONE.to_vec()];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for round in 0..10000 {
        let mut m = files[round % 2].clone();
        for _ in 0..1 + rng.next() % 4 {
            let i = (rng.next() % m.len() as u64) as usize;
            m[i] ^= 1 << (rng.next() % 8);
        }
        if rng.next().is_multiple_of(4) {
            m.truncate((rng.next() % m.len() as u64) as usize);
        }
        if let Ok(iter) = read_bitstream(&m) {
            for r in iter {
                let _ = r;
            }
        }
    }
}

/// A container version 1 remarks file, as LLVM 22 writes one: META (container info, remark
/// version), the REMARK blocks, then a late META block with only the string table.
fn late_strtab_file(strtab: &[u8], headers: &[[u64; 4]], late_meta: bool) -> Vec<u8> {
    let mut b = Builder::new();
    b.enter(META_BLOCK_ID, 3)
        .unabbrev(
            RECORD_META_CONTAINER_INFO,
            &[CONTAINER_VERSION_LATE_STRTAB, CONTAINER_V1_REMARKS_FILE],
        )
        .unabbrev(RECORD_META_REMARK_VERSION, &[0])
        .exit();
    for &header in headers {
        b.enter(REMARK_BLOCK_ID, 4)
            .unabbrev(RECORD_REMARK_HEADER, &header)
            .unabbrev(RECORD_REMARK_ARG_WITHOUT_DEBUGLOC, &[3, 1])
            .exit();
    }
    if late_meta {
        let table = [Op::Literal(RECORD_META_STRTAB), Op::Blob];
        b.enter(META_BLOCK_ID, 3)
            .define(&table)
            .record(4, &table, &[RECORD_META_STRTAB], Some(strtab))
            .exit();
    }
    b.bytes()
}

#[test]
fn llvm_22_remarks_files_have_their_string_table_at_the_end() {
    let strtab = b"inline\0f\0Inlined\0Callee\0NoDefinition\0";
    // Passed Inlined in f, then Missed NoDefinition in f; each with `Callee: f`.
    let bytes = late_strtab_file(strtab, &[[1, 2, 0, 1], [2, 4, 0, 1]], true);
    let remarks = read_all(&bytes).unwrap();
    let arg = || {
        vec![RemarkArg {
            key: "Callee".into(),
            value: "f".into(),
            debug_loc: None,
        }]
    };
    let expected = [(Passed, "Inlined"), (Missed, "NoDefinition")].map(|(kind, name)| Remark {
        kind,
        pass: "inline".into(),
        name: name.into(),
        debug_loc: None,
        function: "f".into(),
        hotness: None,
        args: arg(),
    });
    assert_eq!(remarks, expected);
    // No remarks at all: META and the late META only.
    assert_eq!(read_all(&late_strtab_file(strtab, &[], true)).unwrap(), []);
}

#[test]
fn llvm_22_files_without_their_late_string_table_say_so() {
    let e = message(read_all(&late_strtab_file(b"", &[[1, 0, 0, 0]], false)));
    assert!(e.message.contains("string table is missing"), "{e}");
    assert_eq!(e.position, Position::Byte(4));

    // The link an object file's remarks section holds.
    let mut b = Builder::new();
    let file = [Op::Literal(RECORD_META_EXTERNAL_FILE), Op::Blob];
    b.enter(META_BLOCK_ID, 3)
        .unabbrev(
            RECORD_META_CONTAINER_INFO,
            &[
                CONTAINER_VERSION_LATE_STRTAB,
                CONTAINER_V1_REMARKS_FILE_EXTERNAL,
            ],
        )
        .define(&file)
        .record(
            4,
            &file,
            &[RECORD_META_EXTERNAL_FILE],
            Some(b"t.opt.bitstream"),
        )
        .exit();
    let e = message(read_all(&b.bytes()));
    assert!(e.message.contains("\"t.opt.bitstream\""), "{e}");

    // Versions past LLVM 22's are not guessed at.
    let mut b = Builder::new();
    b.enter(META_BLOCK_ID, 3)
        .unabbrev(RECORD_META_CONTAINER_INFO, &[2, 1])
        .exit();
    let e = message(read_all(&b.bytes()));
    assert!(e.message.contains("unsupported container version 2"), "{e}");
}
