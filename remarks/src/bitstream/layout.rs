//! The remark container's vocabulary (llvm/Remarks/BitstreamRemarkContainer.h, LLVM 14 and
//! 22): block ids, record codes, container versions and types, and the abbreviations LLVM's
//! serializer declares in BLOCKINFO, with the names it gives them. The declarations are the
//! same for LLVM 14's standalone container and LLVM 22's remarks file.

use super::abbrev::Op;
use crate::RemarkKind;

pub(crate) const MAGIC: [u8; 4] = *b"RMRK";
/// Abbrev id width outside any block.
pub(crate) const TOP_LEVEL_ABBREV_WIDTH: u32 = 2;

/// `bitc::FIRST_APPLICATION_BLOCKID` and the one after it.
pub(crate) const META_BLOCK_ID: u64 = 8;
pub(crate) const REMARK_BLOCK_ID: u64 = 9;

/// `CurrentContainerVersion` of LLVM 14 to 21, whose standalone container has its string
/// table in the META block, before the remarks.
pub(crate) const CONTAINER_VERSION_EARLY_STRTAB: u64 = 0;
/// `CurrentContainerVersion` of LLVM 22 (what rld writes), whose remarks file holds its own
/// string table in a second, late META block after the remarks.
pub(crate) const CONTAINER_VERSION_LATE_STRTAB: u64 = 1;
/// `CurrentRemarkVersion`, the same in LLVM 14 to 22.
pub(crate) const REMARK_VERSION: u64 = 0;

pub(crate) const RECORD_META_CONTAINER_INFO: u64 = 1;
pub(crate) const RECORD_META_REMARK_VERSION: u64 = 2;
pub(crate) const RECORD_META_STRTAB: u64 = 3;
pub(crate) const RECORD_META_EXTERNAL_FILE: u64 = 4;
pub(crate) const RECORD_REMARK_HEADER: u64 = 5;
pub(crate) const RECORD_REMARK_DEBUG_LOC: u64 = 6;
pub(crate) const RECORD_REMARK_HOTNESS: u64 = 7;
pub(crate) const RECORD_REMARK_ARG_WITH_DEBUGLOC: u64 = 8;
pub(crate) const RECORD_REMARK_ARG_WITHOUT_DEBUGLOC: u64 = 9;

/// `BitstreamRemarkContainerType`, container version 0.
pub(crate) const CONTAINER_SEPARATE_REMARKS_META: u64 = 0;
pub(crate) const CONTAINER_SEPARATE_REMARKS_FILE: u64 = 1;
pub(crate) const CONTAINER_STANDALONE: u64 = 2;
/// `BitstreamRemarkContainerType`, container version 1: a link to a remarks file (an object
/// file's remarks section), and the remarks file itself (META, REMARKs, late META with the
/// string table).
pub(crate) const CONTAINER_V1_REMARKS_FILE_EXTERNAL: u64 = 0;
pub(crate) const CONTAINER_V1_REMARKS_FILE: u64 = 1;

/// A record kind LLVM declares in BLOCKINFO: its name and abbreviation.
pub(crate) struct RecordLayout {
    pub(crate) code: u64,
    pub(crate) name: &'static str,
    pub(crate) ops: &'static [Op],
}

/// A block kind LLVM declares in BLOCKINFO. Its records' abbreviations get ids 4, 5, ... in
/// the order listed.
pub(crate) struct BlockLayout {
    pub(crate) id: u64,
    pub(crate) name: &'static str,
    /// Abbrev id width inside the block (LLVM's `EnterSubblock` argument).
    pub(crate) abbrev_width: u32,
    pub(crate) records: &'static [RecordLayout],
}

impl BlockLayout {
    /// The abbrev id of the record with `code`.
    pub(crate) fn abbrev(&self, code: u64) -> (u64, &'static [Op]) {
        let index = self.records.iter().position(|r| r.code == code);
        debug_assert!(index.is_some(), "record {code} not in block {}", self.name);
        let index = index.unwrap_or_default();
        (4 + index as u64, self.records[index].ops)
    }
}

/// The META block of a file holding remarks and their string table (LLVM 14's standalone
/// container, LLVM 22's remarks file), as `setupMetaBlockInfo`, `setupMetaRemarkVersion` and
/// `setupMetaStrTab` declare it.
pub(crate) const META: BlockLayout = BlockLayout {
    id: META_BLOCK_ID,
    name: "Meta",
    abbrev_width: 3,
    records: &[
        RecordLayout {
            code: RECORD_META_CONTAINER_INFO,
            name: "Container info",
            ops: &[
                Op::Literal(RECORD_META_CONTAINER_INFO),
                Op::Fixed(32), // version
                Op::Fixed(2),  // container type
            ],
        },
        RecordLayout {
            code: RECORD_META_REMARK_VERSION,
            name: "Remark version",
            ops: &[Op::Literal(RECORD_META_REMARK_VERSION), Op::Fixed(32)],
        },
        RecordLayout {
            code: RECORD_META_STRTAB,
            name: "String table",
            ops: &[Op::Literal(RECORD_META_STRTAB), Op::Blob],
        },
    ],
};

/// The REMARK block, as `setupRemarkBlockInfo` declares it. String operands are indices
/// into the string table.
pub(crate) const REMARK: BlockLayout = BlockLayout {
    id: REMARK_BLOCK_ID,
    name: "Remark",
    abbrev_width: 4,
    records: &[
        RecordLayout {
            code: RECORD_REMARK_HEADER,
            name: "Remark header",
            ops: &[
                Op::Literal(RECORD_REMARK_HEADER),
                Op::Fixed(3), // type
                Op::Vbr(6),   // remark name
                Op::Vbr(6),   // pass name
                Op::Vbr(8),   // function name
            ],
        },
        RecordLayout {
            code: RECORD_REMARK_DEBUG_LOC,
            name: "Remark debug location",
            ops: &[
                Op::Literal(RECORD_REMARK_DEBUG_LOC),
                Op::Vbr(7),    // file
                Op::Fixed(32), // line
                Op::Fixed(32), // column
            ],
        },
        RecordLayout {
            code: RECORD_REMARK_HOTNESS,
            name: "Remark hotness",
            ops: &[Op::Literal(RECORD_REMARK_HOTNESS), Op::Vbr(8)],
        },
        RecordLayout {
            code: RECORD_REMARK_ARG_WITH_DEBUGLOC,
            name: "Argument with debug location",
            ops: &[
                Op::Literal(RECORD_REMARK_ARG_WITH_DEBUGLOC),
                Op::Vbr(7),    // key
                Op::Vbr(7),    // value
                Op::Vbr(7),    // file
                Op::Fixed(32), // line
                Op::Fixed(32), // column
            ],
        },
        RecordLayout {
            code: RECORD_REMARK_ARG_WITHOUT_DEBUGLOC,
            name: "Argument",
            ops: &[
                Op::Literal(RECORD_REMARK_ARG_WITHOUT_DEBUGLOC),
                Op::Vbr(7), // key
                Op::Vbr(7), // value
            ],
        },
    ],
};

/// `remarks::Type`: 0 is `Unknown`, which the model (like LLVM's YAML) has no kind for.
pub(crate) fn kind_code(kind: RemarkKind) -> u64 {
    match kind {
        RemarkKind::Passed => 1,
        RemarkKind::Missed => 2,
        RemarkKind::Analysis => 3,
        RemarkKind::AnalysisFPCommute => 4,
        RemarkKind::AnalysisAliasing => 5,
        RemarkKind::Failure => 6,
    }
}

pub(crate) fn kind_from_code(code: u64) -> Option<RemarkKind> {
    RemarkKind::ALL.into_iter().find(|&k| kind_code(k) == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::abbrev::check;

    #[test]
    fn layouts_are_well_formed() {
        for block in [&META, &REMARK] {
            for (i, r) in block.records.iter().enumerate() {
                assert_eq!(check(r.ops), Ok(()));
                assert_eq!(r.ops[0], Op::Literal(r.code));
                assert_eq!(block.abbrev(r.code).0, 4 + i as u64);
                assert!(4 + (i as u64) < 1 << block.abbrev_width);
            }
        }
    }

    #[test]
    fn kinds_use_llvm_numbers() {
        assert_eq!(kind_code(RemarkKind::Passed), 1);
        assert_eq!(kind_code(RemarkKind::Failure), 6);
        for kind in RemarkKind::ALL {
            assert_eq!(kind_from_code(kind_code(kind)), Some(kind));
        }
        assert_eq!(kind_from_code(0), None);
        assert_eq!(kind_from_code(7), None);
    }
}
