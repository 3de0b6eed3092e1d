//! `-b binary` (`--format=binary`): a file linked as raw data, as GNU ld and lld link it. It
//! becomes an object with one `.data` section holding its bytes, and the symbols
//! `_binary_NAME_start` and `_binary_NAME_end` at its ends and the absolute
//! `_binary_NAME_size`, NAME being the path as given with every character other than an
//! ASCII letter or digit made `_` (`-b binary font.psf` defines `_binary_font_psf_start`).
//! The object goes through the link like any other (`-r` keeps it an object).

use object::write::{Object, Symbol, SymbolSection};
use object::{Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope};

/// The relocatable object that stands for `data`, the contents of the file named `name`.
pub fn object_for(name: &str, data: &[u8]) -> Result<Vec<u8>, String> {
    let stem: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                b as char
            } else {
                '_'
            }
        })
        .collect();
    let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let section = obj.add_section(Vec::new(), b".data".to_vec(), object::SectionKind::Data);
    // lld's alignment for the section.
    obj.set_section_data(section, data, 8);
    let size = data.len() as u64;
    for (suffix, value, at) in [
        ("start", 0, SymbolSection::Section(section)),
        ("end", size, SymbolSection::Section(section)),
        ("size", size, SymbolSection::Absolute),
    ] {
        obj.add_symbol(Symbol {
            name: format!("_binary_{stem}_{suffix}").into_bytes(),
            value,
            size: 0,
            // STT_OBJECT, as lld gives them (GNU ld: no type).
            kind: SymbolKind::Data,
            scope: SymbolScope::Dynamic,
            weak: false,
            section: at,
            flags: SymbolFlags::None,
        });
    }
    obj.write().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::{Object as _, ObjectSection as _};

    #[test]
    fn the_object_holds_the_bytes_and_names_their_ends() {
        let bytes = object_for("dir/a-b.bin", b"hello").unwrap();
        let file = object::read::elf::ElfFile64::<object::LittleEndian>::parse(&*bytes).unwrap();
        let data = file.section_by_name(".data").unwrap();
        assert_eq!(data.data().unwrap(), b"hello");
        assert_eq!(data.align(), 8);
        let symbols = crate::input::global_symbols(&bytes);
        assert_eq!(
            symbols,
            [
                ("_binary_dir_a_b_bin_start".to_string(), 0, true),
                ("_binary_dir_a_b_bin_end".to_string(), 5, true),
                ("_binary_dir_a_b_bin_size".to_string(), 5, false),
            ]
        );
    }
}
