//! ar archives, regular and thin: their members and the symbol index that decides which
//! members a link pulls in.

use crate::error::{LinkError, Result};
use object::read::archive::ArchiveFile;
use std::path::Path;

pub struct ArchiveMember {
    /// Display name: `libfoo.a(bar.o)`.
    pub name: String,
    pub data: &'static [u8],
    /// The file holding the member's bytes (the archive, or a thin archive's member file)
    /// and where they start in it: what a linker plugin is given to read.
    pub file: std::sync::Arc<Path>,
    pub offset: u64,
}

pub struct Archive {
    pub name: String,
    /// `--whole-archive` was in effect: every member is linked.
    pub whole: bool,
    pub members: Vec<ArchiveMember>,
    /// Each defined global symbol and the member that defines it. Shared: parsing ahead
    /// reads it on other threads while resolution walks it.
    pub symbols: std::sync::Arc<[IndexSymbol]>,
    /// How many names the symbol index lists, read or not (a whole archive's is not): the
    /// room resolution makes in its table up front.
    pub index_names: usize,
    /// The archive's symbol index (its first member), which `symbols` was read from.
    pub index: &'static [u8],
    /// An object between `--start-lib` and `--end-lib`, not an archive file.
    pub lazy_object: bool,
}

/// A name an archive's index lists, with the member (index into `members`) defining it and
/// the name's hash: hashed as the index is read, while its bytes are in cache, once for
/// both resolution's table and the map that parsing ahead looks references up in.
#[derive(Clone, Copy)]
pub struct IndexSymbol {
    pub name: &'static [u8],
    pub hash: u64,
    pub member: u32,
}

impl IndexSymbol {
    pub fn new(name: &'static [u8], member: u32) -> IndexSymbol {
        IndexSymbol {
            name,
            hash: crate::name_table::name_hash(name),
            member,
        }
    }
}

impl crate::name_table::HashedName for IndexSymbol {
    fn name(&self) -> &'static [u8] {
        self.name
    }
    fn hash(&self) -> u64 {
        self.hash
    }
}

impl Archive {
    /// An object between `--start-lib` and `--end-lib` (lld's lazy object): an archive of
    /// one member, named like the object, indexed by the globals it defines.
    pub fn of_lazy_object(name: String, path: &Path, data: &'static [u8]) -> Result<Archive> {
        use object::{Object as _, ObjectSymbol as _};
        let file = object::File::parse(data)
            .map_err(|e| LinkError::bad_input(&name, format!("not a valid ELF object: {e}")))?;
        let symbols: std::sync::Arc<[IndexSymbol]> = file
            .symbols()
            .filter(|s| s.is_global() && !s.is_undefined())
            .filter_map(|s| s.name_bytes().ok())
            .filter(|n| !n.is_empty())
            .map(|n| IndexSymbol::new(n, 0))
            .collect();
        Ok(Archive {
            index: &[],
            name: name.clone(),
            whole: false,
            members: vec![ArchiveMember {
                name,
                data,
                file: path.into(),
                offset: 0,
            }],
            index_names: symbols.len(),
            symbols,
            lazy_object: true,
        })
    }

    /// `--fat-lto-objects`: each member carrying LLVM bitcode beside its machine code is
    /// linked through the bitcode (the index's names are the same: both define them).
    pub fn take_fat_lto_bitcode(&mut self) {
        for m in &mut self.members {
            if let Some((bitcode, offset)) = crate::object_file::fat_lto_bitcode(m.data) {
                m.data = bitcode;
                m.offset += offset;
            }
        }
    }

    pub fn parse(name: String, path: &Path, data: &'static [u8], whole: bool) -> Result<Archive> {
        let bad = |msg: String| LinkError::bad_input(&name, msg);
        let file = ArchiveFile::parse(data).map_err(|e| bad(format!("corrupt archive: {e}")))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let archive_file: std::sync::Arc<Path> = path.into();
        let mut members = Vec::new();
        // Header offset of each member, to map the symbol index onto `members`.
        let mut by_offset = rustc_hash::FxHashMap::default();
        for member in file.members() {
            let member = member.map_err(|e| bad(format!("corrupt archive member: {e}")))?;
            let member_name = String::from_utf8_lossy(member.name()).into_owned();
            let (member_data, file, offset) = if member.is_thin() {
                // Thin archives name their members relative to the archive's directory.
                let member_path = dir.join(&member_name);
                let bytes = crate::input::map_file(&member_path)?;
                (bytes, member_path.into(), 0)
            } else {
                let bytes = member
                    .data(data)
                    .map_err(|e| bad(format!("member {member_name}: {e}")))?;
                let offset = bytes.as_ptr() as u64 - data.as_ptr() as u64;
                (bytes, archive_file.clone(), offset)
            };
            if !whole {
                let header_offset = member
                    .header()
                    .map(|h| (h as *const _ as usize).wrapping_sub(data.as_ptr() as usize) as u64)
                    .unwrap_or(u64::MAX);
                by_offset.insert(header_offset, members.len() as u32);
            }
            members.push(ArchiveMember {
                name: format!("{name}({member_name})"),
                data: member_data,
                file,
                offset,
            });
        }

        let mut symbols = Vec::new();
        let mut indexed = false;
        // A whole archive's members are all loaded, so its index would only offer lazy
        // definitions that the members themselves replace: it is not read (lld neither).
        let index = if whole {
            None
        } else {
            file.symbols().ok().flatten()
        };
        if let Some(iter) = index {
            indexed = true;
            for sym in iter {
                let sym = sym.map_err(|e| bad(format!("corrupt archive symbol table: {e}")))?;
                let offset = sym.offset().0;
                if let Some(&m) = by_offset.get(&offset) {
                    symbols.push(IndexSymbol::new(sym.name(), m));
                }
            }
        }
        if !indexed && !whole {
            // No index (e.g. `ar rcS`): read each member's own symbol table instead.
            for (i, m) in members.iter().enumerate() {
                for name in defined_globals(m.data) {
                    symbols.push(IndexSymbol::new(name, i as u32));
                }
            }
        }
        Ok(Archive {
            name,
            whole,
            members,
            index_names: if whole {
                index_count(data)
            } else {
                symbols.len()
            },
            symbols: symbols.into(),
            index: if indexed { symbol_index(data) } else { &[] },
            lazy_object: false,
        })
    }
}

/// The symbol index member (`/` or `/SYM64/`), which comes first: its bytes, and the width
/// of its count and offsets (4 bytes in `/`, 8 in `/SYM64/`).
fn index_member(data: &'static [u8]) -> Option<(&'static [u8], usize)> {
    let header = data.get(8..68)?;
    let width = match header[..16].trim_ascii_end() {
        b"/" => 4,
        b"/SYM64/" => 8,
        _ => return None,
    };
    let size = std::str::from_utf8(&header[48..58])
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let bytes = data
        .get(68..68usize.saturating_add(size))
        .unwrap_or_default();
    Some((bytes, width))
}

/// The bytes of the symbol index member (empty if there is none).
fn symbol_index(data: &'static [u8]) -> &'static [u8] {
    index_member(data).map_or(&[], |(bytes, _)| bytes)
}

/// How many symbols the index of `data` lists, by its count word: at most as many as its
/// bytes could hold, whatever the word says.
fn index_count(data: &'static [u8]) -> usize {
    let Some((index, width)) = index_member(data) else {
        return 0;
    };
    let Some(word) = index.get(..width) else {
        return 0;
    };
    let count = word.iter().fold(0u64, |n, &b| n << 8 | u64::from(b));
    count.min((index.len() / width) as u64) as usize
}

/// Defined global symbol names of a member, for archives without an index.
fn defined_globals(data: &'static [u8]) -> Vec<&'static [u8]> {
    defined_global_symbols(data)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// Whether an ELF member defines `name` other than as a common symbol: such a member is
/// pulled in for a symbol that is so far only common (GNU ld and lld), so that its
/// initialized definition wins.
pub fn defines_non_common(data: &'static [u8], name: &[u8]) -> bool {
    defined_global_symbols(data)
        .iter()
        .any(|&(n, shndx)| n == name && shndx != object::elf::SHN_COMMON)
}

/// Defined global symbols of an ELF member, each with its section index.
fn defined_global_symbols(data: &'static [u8]) -> Vec<(&'static [u8], u16)> {
    use crate::object_file::LE;
    use object::read::elf::Sym as _;
    let mut out = Vec::new();
    let Some(symtab) = crate::object_file::elf_symbol_table(data) else {
        return out;
    };
    for sym in symtab.iter() {
        if sym.is_definition(LE) && !sym.is_local() {
            if let Ok(name) = sym.name(LE, symtab.strings()) {
                out.push((name, sym.st_shndx(LE)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::index_count;

    /// An archive whose first member, named `name`, holds `index`.
    fn archive_with_index(name: &str, index: &[u8]) -> &'static [u8] {
        let mut a = b"!<arch>\n".to_vec();
        a.extend(
            format!(
                "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                0,
                0,
                0,
                644,
                index.len()
            )
            .bytes(),
        );
        a.extend(index);
        Box::leak(a.into_boxed_slice())
    }

    #[test]
    fn index_count_reads_the_count_word() {
        // Three offsets and three names after a 4-byte count.
        let mut index = 3u32.to_be_bytes().to_vec();
        index.extend([0u8; 12]);
        index.extend(b"a\0b\0c\0");
        assert_eq!(index_count(archive_with_index("/", &index)), 3);
        let mut index64 = 2u64.to_be_bytes().to_vec();
        index64.extend([0u8; 16]);
        index64.extend(b"a\0b\0");
        assert_eq!(index_count(archive_with_index("/SYM64/", &index64)), 2);
    }

    #[test]
    fn index_count_is_bounded_by_the_index_size() {
        // A count word claiming four billion symbols in a 16-byte index.
        let mut index = u32::MAX.to_be_bytes().to_vec();
        index.extend([0u8; 12]);
        assert_eq!(index_count(archive_with_index("/", &index)), 4);
        assert_eq!(index_count(archive_with_index("notindex", &index)), 0);
        assert_eq!(index_count(b"!<arch>\n"), 0);
    }
}
