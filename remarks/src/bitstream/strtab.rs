//! The string table: every string of a remark file, once, NUL-terminated, in the META
//! block's STRTAB blob; records refer to strings by their index in it.

use crate::RemarkParseError;
use std::collections::HashMap;
use std::io;

/// Builds the table as remarks are encoded: the first occurrence of a string gets the next
/// index, as LLVM's `StringTable::add` does.
#[derive(Default)]
pub(crate) struct StringTableBuilder {
    indices: HashMap<String, u64>,
    blob: Vec<u8>,
}

impl StringTableBuilder {
    /// The index of `s`, added if new. `s` must not contain NUL (see [`check_storable`]).
    pub(crate) fn add(&mut self, s: &str) -> u64 {
        if let Some(&index) = self.indices.get(s) {
            return index;
        }
        let index = self.indices.len() as u64;
        self.indices.insert(s.to_string(), index);
        self.blob.extend_from_slice(s.as_bytes());
        self.blob.push(0);
        index
    }

    /// The STRTAB blob.
    pub(crate) fn blob(&self) -> &[u8] {
        &self.blob
    }
}

/// A NUL inside a string would end it early for every reader of the table.
pub(crate) fn check_storable(s: &str) -> io::Result<()> {
    if s.contains('\0') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a remark string contains a NUL byte, which a bitstream string table cannot hold: {s:?}"),
        ));
    }
    Ok(())
}

/// A STRTAB blob read from a file: the start of each string, found once up front (at most
/// one per byte of the blob, so bounded by the input).
pub(crate) struct StringTable<'a> {
    blob: &'a [u8],
    /// Offset of the blob in the file, for error positions.
    at: u64,
    starts: Vec<usize>,
}

impl<'a> StringTable<'a> {
    pub(crate) fn parse(blob: &'a [u8], at: u64) -> Result<Self, RemarkParseError> {
        if blob.last().is_some_and(|&b| b != 0) {
            return Err(RemarkParseError::at_byte(
                at + blob.len() as u64 - 1,
                "string table does not end with a NUL byte",
            ));
        }
        let mut starts = vec![];
        let mut start = 0;
        for (i, &b) in blob.iter().enumerate() {
            if b == 0 {
                starts.push(start);
                start = i + 1;
            }
        }
        Ok(StringTable { blob, at, starts })
    }

    /// String `index`, checked to exist and to be UTF-8. `record_at` is where the record
    /// that refers to it starts.
    pub(crate) fn get(&self, index: u64, record_at: u64) -> Result<&'a str, RemarkParseError> {
        let start = usize::try_from(index)
            .ok()
            .and_then(|i| self.starts.get(i))
            .copied()
            .ok_or_else(|| {
                RemarkParseError::at_byte(
                    record_at,
                    format!(
                        "string index {index} is out of range: the string table has {} strings",
                        self.starts.len()
                    ),
                )
            })?;
        let rest = self.blob.get(start..).unwrap_or_default();
        let bytes = &rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())];
        std::str::from_utf8(bytes).map_err(|e| {
            RemarkParseError::at_byte(
                self.at + (start + e.valid_up_to()) as u64,
                format!("string {index} of the string table is not valid UTF-8"),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_deduplicated_in_first_use_order() {
        let mut b = StringTableBuilder::default();
        assert_eq!(["b", "", "a", "b", ""].map(|s| b.add(s)), [0, 1, 2, 0, 1]);
        assert_eq!(b.blob(), b"b\0\0a\0");
        let t = StringTable::parse(b.blob(), 100).unwrap();
        assert_eq!(
            (0..3).map(|i| t.get(i, 0).unwrap()).collect::<Vec<_>>(),
            ["b", "", "a"]
        );
        assert_eq!(
            t.get(3, 7).unwrap_err(),
            RemarkParseError::at_byte(
                7,
                "string index 3 is out of range: the string table has 3 strings"
            )
        );
        assert!(t.get(u64::MAX, 7).is_err());
    }

    #[test]
    fn bad_tables_are_errors() {
        assert!(StringTable::parse(b"abc", 0).is_err());
        let t = StringTable::parse(b"ok\0caf\xe9\0", 10).unwrap();
        assert_eq!(t.get(1, 0).unwrap_err().position, crate::Position::Byte(16));
        assert!(StringTable::parse(b"", 0).unwrap().get(0, 0).is_err());
        assert!(check_storable("a\0b").is_err());
    }
}
