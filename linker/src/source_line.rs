//! The source line of a place in an object's code, from its DWARF line table, for
//! diagnostics as lld writes them (`>>> referenced by a.c:5 (/src/a.c:5)`). Only read
//! when a diagnostic needs it.
//!
//! An object's line table names code addresses through relocations against its sections,
//! so before gimli reads `.debug_line` the relocations are applied to a copy: each
//! section's addresses get a base of their own (its index in the high bits), which tells
//! the rows of different sections apart; offsets into the string sections get their
//! addends.

use crate::object_file::{shndx, ObjectFile, LE};
use gimli::{AttributeValue, DebugLine, DebugLineOffset, DebugLineStr, DebugStr, EndianSlice};
use object::elf;
use object::read::elf::{Rela as _, Sym as _};

type Reader<'a> = EndianSlice<'a, gimli::LittleEndian>;

/// Address bits below a section's base.
const SECTION_SHIFT: u32 = 40;

/// Where `offset` of section `sec` comes from: the source file's path and the line.
pub fn line_of(obj: &ObjectFile, sec: u32, offset: u64) -> Option<(String, u64)> {
    let find = |name: &str| obj.sections.iter().position(|s| s.name() == name);
    let line = find(".debug_line")?;
    let relocated = relocated(obj, line)?;
    let line_str = find(".debug_line_str").map_or(&[][..], |i| obj.sections[i].data());
    let str_ = find(".debug_str").map_or(&[][..], |i| obj.sections[i].data());
    let sections = Sections {
        line: DebugLine::new(&relocated, gimli::LittleEndian),
        line_str: DebugLineStr::new(line_str, gimli::LittleEndian),
        str_: DebugStr::new(str_, gimli::LittleEndian),
    };
    let want = ((u64::from(sec) + 1) << SECTION_SHIFT) + offset;
    // Each unit's line program in turn (they follow one another in the section).
    let mut at = 0usize;
    while at + 4 <= relocated.len() {
        let length = u32::from_le_bytes(relocated[at..at + 4].try_into().ok()?);
        if length >= 0xffff_fff0 {
            return None;
        }
        if let Some(found) = sections.find(at, want) {
            return Some(found);
        }
        at = at.checked_add(4 + length as usize)?;
    }
    None
}

/// `.debug_line` with its relocations applied as described above.
fn relocated(obj: &ObjectFile, line: usize) -> Option<Vec<u8>> {
    let s = &obj.sections[line];
    let mut data = s.data().to_vec();
    for r in s.relocs() {
        let at = usize::try_from(r.r_offset(LE)).ok()?;
        let sym = r.r_sym(LE, false) as usize;
        let esym = obj.symbols.get(sym)?;
        let target = obj.symbol_section(sym);
        let value = esym.st_value(LE).wrapping_add(r.r_addend(LE) as u64);
        match r.r_type(LE, false) {
            elf::R_X86_64_64 if shndx::is_section(target) => {
                let based = ((u64::from(target) + 1) << SECTION_SHIFT).wrapping_add(value);
                data.get_mut(at..at.checked_add(8)?)?
                    .copy_from_slice(&based.to_le_bytes());
            }
            elf::R_X86_64_32 => {
                data.get_mut(at..at.checked_add(4)?)?
                    .copy_from_slice(&(value as u32).to_le_bytes());
            }
            _ => {}
        }
    }
    Some(data)
}

struct Sections<'a> {
    line: DebugLine<Reader<'a>>,
    line_str: DebugLineStr<Reader<'a>>,
    str_: DebugStr<Reader<'a>>,
}

impl Sections<'_> {
    /// The row covering address `want` in the line program at `offset`.
    fn find(&self, offset: usize, want: u64) -> Option<(String, u64)> {
        let program = self
            .line
            .program(DebugLineOffset(offset), 8, None, None)
            .ok()?;
        let mut rows = program.rows();
        let mut previous: Option<(u64, u64, u64)> = None;
        while let Ok(Some((header, row))) = rows.next_row() {
            if let Some((address, file, line)) = previous {
                if (address..row.address()).contains(&want) {
                    let entry = header.file(file)?;
                    let name = self.string(entry.path_name())?;
                    // The file's own directory (in DWARF 5, directory 0 is the unit's),
                    // as LLVM's line tables resolve it for lld: a relative include
                    // directory stays relative.
                    let dir = entry.directory(header).and_then(|d| self.string(d));
                    return Some((join(dir, name), line));
                }
            }
            previous = (!row.end_sequence()).then(|| {
                (
                    row.address(),
                    row.file_index(),
                    row.line().map_or(0, |l| l.get()),
                )
            });
        }
        None
    }

    fn string(&self, value: AttributeValue<Reader<'_>>) -> Option<String> {
        let bytes = match value {
            AttributeValue::String(s) => s,
            AttributeValue::DebugLineStrRef(o) => self.line_str.get_str(o).ok()?,
            AttributeValue::DebugStrRef(o) => self.str_.get_str(o).ok()?,
            _ => return None,
        };
        Some(String::from_utf8_lossy(bytes.slice()).into_owned())
    }
}

/// A line table file's path: its name under its directory (an absolute name stands alone).
fn join(dir: Option<String>, name: String) -> String {
    let mut path = std::path::PathBuf::from(dir.unwrap_or_default());
    path.push(name);
    path.to_string_lossy().into_owned()
}

/// lld's form: `file:line`, then the full path in parentheses when it says more.
pub fn describe(path: &str, line: u64) -> String {
    let file = std::path::Path::new(path)
        .file_name()
        .map_or(path.into(), |f| f.to_string_lossy().into_owned());
    if file == path {
        format!("{file}:{line}")
    } else {
        format!("{file}:{line} ({path}:{line})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_messages_as_lld() {
        let j = |d: Option<&str>, n: &str| join(d.map(Into::into), n.into());
        assert_eq!(j(Some("/src"), "a.c"), "/src/a.c");
        assert_eq!(j(Some("lib"), "b.c"), "lib/b.c");
        assert_eq!(
            j(Some("/src"), "/usr/include/stdio.h"),
            "/usr/include/stdio.h"
        );
        assert_eq!(j(None, "c.c"), "c.c");
        assert_eq!(describe("/src/lib/b.c", 7), "b.c:7 (/src/lib/b.c:7)");
        assert_eq!(describe("c.c", 3), "c.c:3");
    }
}
