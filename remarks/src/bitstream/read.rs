//! Reading bitstream remark files: the magic, BLOCKINFO and META up front (the string table
//! is needed before any remark can be resolved), then one REMARK block per iteration.
//!
//! Two container versions are read:
//!
//! - 0 (LLVM 14 to 21): a standalone file has the string table in its
//!   META block, before the remarks. (The separate remarks file these versions write beside
//!   an object keeps its strings in the object and cannot be read alone.)
//! - 1 (LLVM 22's `-fsave-optimization-record=bitstream`, `opt -pass-remarks-format=bitstream`,
//!   lld's `--opt-remarks-format=bitstream`, and what rld writes): the remarks file is META, the REMARK blocks,
//!   then a late META block with the string table. Before the first remark the reader skips
//!   over the REMARK blocks (each says its length) to that table, then comes back.
//!
//! The container logic follows LLVM's `BitstreamRemarkParser`, but the bitstream itself is
//! read generally (see [`super::cursor`]): blocks and records this format does not define
//! are skipped rather than rejected, so a file that only adds to the format still reads.

use super::bits::BitReader;
use super::cursor::{Blob, Cursor, Entry, Record, Scope, BLOCKINFO_BLOCK_ID};
use super::layout::*;
use super::strtab::StringTable;
use crate::{DebugLoc, Remark, RemarkArg, RemarkKind, RemarkParseError};

/// Whether `bytes` starts like a bitstream remark file.
pub fn is_bitstream(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// The remarks of a bitstream remark file, decoded one REMARK block at a time. After the
/// first error the iterator ends.
pub struct BitstreamRemarks<'a> {
    cursor: Cursor<'a>,
    top: Scope,
    strings: StringTable<'a>,
    /// Byte of the late META block (container version 1), which ends the remarks.
    late_meta: Option<u64>,
    done: bool,
}

/// Starts reading a standalone bitstream remark file: checks the magic and reads BLOCKINFO
/// and META, so that a file that cannot be read at all (not a remark file, no string table)
/// fails here rather than at its first remark. An empty input has no remarks, as for LLVM
/// (whose serializer writes nothing when there are none).
pub fn read_bitstream(bytes: &[u8]) -> Result<BitstreamRemarks<'_>, RemarkParseError> {
    let mut remarks = BitstreamRemarks {
        cursor: Cursor::new(BitReader::new(bytes)),
        top: Scope::top_level(TOP_LEVEL_ABBREV_WIDTH),
        strings: StringTable::parse(&[], 0)?,
        late_meta: None,
        done: bytes.is_empty(),
    };
    if bytes.is_empty() {
        return Ok(remarks);
    }
    if !is_bitstream(bytes) {
        return Err(RemarkParseError::at_byte(
            0,
            "not a bitstream remark file: it does not start with \"RMRK\"",
        ));
    }
    remarks.cursor.bits.jump_to(8 * MAGIC.len() as u64)?;
    let meta = remarks.read_until_meta()?;
    remarks.strings = match meta.string_table()? {
        Strings::Here(table) => table,
        Strings::Late => remarks.read_late_string_table(&meta)?,
    };
    Ok(remarks)
}

impl Iterator for BitstreamRemarks<'_> {
    type Item = Result<Remark, RemarkParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.next_remark();
        if !matches!(next, Ok(Some(_))) {
            self.done = true;
        }
        next.transpose()
    }
}

impl<'a> BitstreamRemarks<'a> {
    /// Top-level blocks up to and including META: BLOCKINFO is applied, others skipped.
    fn read_until_meta(&mut self) -> Result<Meta<'a>, RemarkParseError> {
        loop {
            if self.cursor.bits.at_end() {
                return Err(RemarkParseError::at_byte(
                    self.cursor.bits.byte_pos(),
                    "the file ends before its META block",
                ));
            }
            match self.cursor.next(&mut self.top)? {
                Entry::SubBlock {
                    id: META_BLOCK_ID,
                    at,
                } => {
                    let mut scope = self.cursor.enter_block(META_BLOCK_ID, at)?;
                    return Meta::read(&mut self.cursor, &mut scope);
                }
                Entry::SubBlock {
                    id: REMARK_BLOCK_ID,
                    at,
                } => {
                    return Err(RemarkParseError::at_byte(
                        at,
                        "REMARK block before the META block",
                    ))
                }
                entry => self.top_level(entry)?,
            }
        }
    }

    /// A top-level entry other than META or REMARK.
    fn top_level(&mut self, entry: Entry<'a>) -> Result<(), RemarkParseError> {
        match entry {
            Entry::SubBlock {
                id: BLOCKINFO_BLOCK_ID,
                at,
            } => {
                let scope = self.cursor.enter_block(BLOCKINFO_BLOCK_ID, at)?;
                self.cursor.read_blockinfo(&scope)
            }
            Entry::SubBlock {
                id: META_BLOCK_ID,
                at,
            } => Err(RemarkParseError::at_byte(
                at,
                if self.late_meta.is_some() {
                    "a META block after the late META block"
                } else {
                    "a second META block"
                },
            )),
            Entry::SubBlock { id, at } => self.cursor.skip_block(id, at),
            Entry::Record(_) | Entry::DefineAbbrev(_) | Entry::EndBlock => Ok(()),
        }
    }

    /// The string table of a container version 1 remarks file, from the META block after
    /// its remarks; the cursor is left where it was, at the first remark. Blocks are skipped
    /// by their lengths, so this costs little next to reading the remarks.
    fn read_late_string_table(
        &mut self,
        meta: &Meta<'a>,
    ) -> Result<StringTable<'a>, RemarkParseError> {
        let first_remark = self.cursor.bits.bit_pos();
        // A scope of its own, so that nothing read ahead is defined twice.
        let mut top = Scope::top_level(TOP_LEVEL_ABBREV_WIDTH);
        loop {
            if self.cursor.bits.at_end() {
                return Err(RemarkParseError::at_byte(
                    meta.at,
                    "the string table is missing: the file ends without the META block \
                     that should follow its remarks",
                ));
            }
            match self.cursor.next(&mut top)? {
                Entry::SubBlock {
                    id: META_BLOCK_ID,
                    at,
                } => {
                    let mut scope = self.cursor.enter_block(META_BLOCK_ID, at)?;
                    let late = Meta::read(&mut self.cursor, &mut scope)?;
                    let Some(strtab) = late.strtab else {
                        return Err(RemarkParseError::at_byte(
                            at,
                            "the string table is missing: the late META block has no STRTAB \
                             record",
                        ));
                    };
                    self.late_meta = Some(at);
                    let table = StringTable::parse(strtab.bytes, strtab.at)?;
                    self.cursor.bits.jump_to(first_remark)?;
                    return Ok(table);
                }
                Entry::SubBlock { id, at } => self.cursor.skip_block(id, at)?,
                Entry::Record(_) | Entry::DefineAbbrev(_) | Entry::EndBlock => {}
            }
        }
    }

    fn next_remark(&mut self) -> Result<Option<Remark>, RemarkParseError> {
        loop {
            if self.cursor.bits.at_end() {
                return Ok(None);
            }
            match self.cursor.next(&mut self.top)? {
                // The late META block was read up front; the remarks end there, and what
                // follows (padding, another file's blocks) is not read.
                Entry::SubBlock {
                    id: META_BLOCK_ID,
                    at,
                } if self.late_meta == Some(at) => return Ok(None),
                Entry::SubBlock {
                    id: REMARK_BLOCK_ID,
                    at,
                } => {
                    let mut scope = self.cursor.enter_block(REMARK_BLOCK_ID, at)?;
                    return self.read_remark(&mut scope).map(Some);
                }
                entry => self.top_level(entry)?,
            }
        }
    }

    /// The records of a REMARK block, resolved against the string table. As in LLVM, a
    /// repeated header, location or hotness replaces the earlier one.
    fn read_remark(&mut self, scope: &mut Scope) -> Result<Remark, RemarkParseError> {
        let mut header = None;
        let mut debug_loc = None;
        let mut hotness = None;
        let mut args = Vec::new();
        loop {
            let record = match self.cursor.next(scope)? {
                Entry::EndBlock => break,
                Entry::SubBlock { id, at } => {
                    self.cursor.skip_block(id, at)?;
                    continue;
                }
                Entry::DefineAbbrev(_) => continue,
                Entry::Record(record) => record,
            };
            let r = &record;
            match r.code {
                RECORD_REMARK_HEADER => {
                    let [kind, name, pass, function] = fields(r, "remark header")?;
                    header = Some((
                        remark_kind(kind, r.at)?,
                        self.string(name, r)?,
                        self.string(pass, r)?,
                        self.string(function, r)?,
                    ));
                }
                RECORD_REMARK_DEBUG_LOC => {
                    let [file, line, column] = fields(r, "remark debug location")?;
                    debug_loc = Some(self.location(file, line, column, r)?);
                }
                RECORD_REMARK_HOTNESS => {
                    let [value] = fields(r, "remark hotness")?;
                    hotness = Some(value);
                }
                RECORD_REMARK_ARG_WITH_DEBUGLOC => {
                    let [key, value, file, line, column] =
                        fields(r, "argument with debug location")?;
                    args.push(RemarkArg {
                        key: self.string(key, r)?,
                        value: self.string(value, r)?,
                        debug_loc: Some(self.location(file, line, column, r)?),
                    });
                }
                RECORD_REMARK_ARG_WITHOUT_DEBUGLOC => {
                    let [key, value] = fields(r, "argument")?;
                    args.push(RemarkArg {
                        key: self.string(key, r)?,
                        value: self.string(value, r)?,
                        debug_loc: None,
                    });
                }
                _ => {}
            }
        }
        let Some((kind, name, pass, function)) = header else {
            return Err(RemarkParseError::at_byte(
                scope.at,
                "REMARK block without a header record",
            ));
        };
        Ok(Remark {
            kind,
            pass,
            name,
            debug_loc,
            function,
            hotness,
            args,
        })
    }

    fn string(&self, index: u64, record: &Record) -> Result<String, RemarkParseError> {
        Ok(self.strings.get(index, record.at)?.to_string())
    }

    fn location(
        &self,
        file: u64,
        line: u64,
        column: u64,
        record: &Record,
    ) -> Result<DebugLoc, RemarkParseError> {
        let narrow = |value: u64, what: &str| {
            u32::try_from(value).map_err(|_| {
                RemarkParseError::at_byte(
                    record.at,
                    format!("{what} {value} does not fit in 32 bits"),
                )
            })
        };
        Ok(DebugLoc {
            file: self.string(file, record)?,
            line: narrow(line, "line")?,
            column: narrow(column, "column")?,
        })
    }
}

/// The values of a record that must have exactly `N`.
fn fields<const N: usize>(record: &Record, what: &str) -> Result<[u64; N], RemarkParseError> {
    record.fields().ok_or_else(|| {
        RemarkParseError::at_byte(
            record.at,
            format!(
                "malformed {what} record: {} values instead of {N}",
                record.len()
            ),
        )
    })
}

fn remark_kind(code: u64, at: u64) -> Result<RemarkKind, RemarkParseError> {
    kind_from_code(code).ok_or_else(|| {
        let message = if code == 0 {
            "remark type 0 (Unknown) has no remark kind".to_string()
        } else {
            format!("invalid remark type {code}")
        };
        RemarkParseError::at_byte(at, message)
    })
}

/// Where a file's string table is.
enum Strings<'a> {
    /// In the META block just read (container version 0, standalone).
    Here(StringTable<'a>),
    /// In a late META block after the remarks (container version 1).
    Late,
}

/// What the META block says.
struct Meta<'a> {
    at: u64,
    container: Option<(u64, u64)>,
    remark_version: Option<u64>,
    strtab: Option<Blob<'a>>,
    external_file: Option<Blob<'a>>,
}

impl<'a> Meta<'a> {
    fn read(cursor: &mut Cursor<'a>, scope: &mut Scope) -> Result<Self, RemarkParseError> {
        let mut meta = Meta {
            at: scope.at,
            container: None,
            remark_version: None,
            strtab: None,
            external_file: None,
        };
        loop {
            let r = match cursor.next(scope)? {
                Entry::EndBlock => return Ok(meta),
                Entry::SubBlock { id, at } => {
                    cursor.skip_block(id, at)?;
                    continue;
                }
                Entry::DefineAbbrev(_) => continue,
                Entry::Record(r) => r,
            };
            match r.code {
                RECORD_META_CONTAINER_INFO => {
                    let [version, kind] = fields(&r, "container info")?;
                    meta.container = Some((version, kind));
                }
                RECORD_META_REMARK_VERSION => {
                    let [version] = fields(&r, "remark version")?;
                    meta.remark_version = Some(version);
                }
                RECORD_META_STRTAB => meta.strtab = Some(blob_only(&r, "string table")?),
                RECORD_META_EXTERNAL_FILE => {
                    meta.external_file = Some(blob_only(&r, "external file")?)
                }
                _ => {}
            }
        }
    }

    /// The string table of a standalone container (version 0), or where to find it in a
    /// remarks file of version 1; every other container kind is an error that says why its
    /// remarks cannot be read from this file alone.
    fn string_table(&self) -> Result<Strings<'a>, RemarkParseError> {
        let error = |message: String| Err(RemarkParseError::at_byte(self.at, message));
        let Some((version, kind)) = self.container else {
            return error("the META block has no container info record".into());
        };
        match version {
            CONTAINER_VERSION_EARLY_STRTAB => {}
            CONTAINER_VERSION_LATE_STRTAB => {
                match kind {
                    CONTAINER_V1_REMARKS_FILE => {}
                    CONTAINER_V1_REMARKS_FILE_EXTERNAL => {
                        let file = self.external_file.map_or_else(
                            || "an external file".to_string(),
                            |f| format!("{:?}", String::from_utf8_lossy(f.bytes)),
                        );
                        return error(format!(
                            "this is a link to a remarks file only (as an object file's \
                             remarks section holds it): the remarks are in {file}"
                        ));
                    }
                    other => return error(format!("invalid container type {other}")),
                }
                self.check_remark_version()?;
                return Ok(Strings::Late);
            }
            _ => {
                return error(format!(
                    "unsupported container version {version} (LLVM 14 to 21 write \
                     {CONTAINER_VERSION_EARLY_STRTAB}, LLVM 22 {CONTAINER_VERSION_LATE_STRTAB})"
                ))
            }
        }
        match kind {
            CONTAINER_STANDALONE => {}
            CONTAINER_SEPARATE_REMARKS_FILE => {
                return error(
                    "the string table is missing: this is a separate remarks file (as \
                     clang -fsave-optimization-record=bitstream writes), whose strings LLVM \
                     keeps in the object file's remarks section; only standalone bitstream \
                     remark files can be read on their own"
                        .into(),
                )
            }
            CONTAINER_SEPARATE_REMARKS_META => {
                let file = self.external_file.map_or_else(
                    || "an external file".to_string(),
                    |f| format!("{:?}", String::from_utf8_lossy(f.bytes)),
                );
                return error(format!(
                    "this is remark metadata only: the remarks are in {file}; only \
                     standalone bitstream remark files can be read on their own"
                ));
            }
            other => return error(format!("invalid container type {other}")),
        }
        self.check_remark_version()?;
        let Some(strtab) = self.strtab else {
            return error(
                "the string table is missing: the META block has no STRTAB record".into(),
            );
        };
        StringTable::parse(strtab.bytes, strtab.at).map(Strings::Here)
    }

    /// The remarks' own version: 0 in every LLVM from 14 to 22.
    fn check_remark_version(&self) -> Result<(), RemarkParseError> {
        match self.remark_version {
            None => Err(RemarkParseError::at_byte(
                self.at,
                "the META block has no remark version record",
            )),
            Some(REMARK_VERSION) => Ok(()),
            Some(v) => Err(RemarkParseError::at_byte(
                self.at,
                format!("unsupported remark version {v} (LLVM 14 to 22 write {REMARK_VERSION})"),
            )),
        }
    }
}

/// A record that must hold a blob and nothing else.
fn blob_only<'a>(record: &Record<'a>, what: &str) -> Result<Blob<'a>, RemarkParseError> {
    match record.blob {
        Some(blob) if record.len() == 0 => Ok(blob),
        _ => Err(RemarkParseError::at_byte(
            record.at,
            format!("malformed {what} record: expected a blob and no values"),
        )),
    }
}
