//! `--just-symbols FILE` (`-R FILE`), as GNU ld and lld read it: FILE (an executable, a
//! shared library or an object: the image the output will run beside, such as a ROM) is
//! not linked, but each global symbol it defines becomes an absolute symbol at its value,
//! for the output's references to resolve to. It goes through the link as an object
//! holding only those symbols.

use object::read::elf::{FileHeader as _, Sym as _};
use object::write::{Object, Symbol, SymbolSection};
use object::{elf, Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope};

/// The relocatable object that stands for the ELF file `data`.
pub fn object_for(data: &[u8]) -> Result<Vec<u8>, String> {
    let le = object::LittleEndian;
    let header = elf::FileHeader64::<object::LittleEndian>::parse(data)
        .map_err(|_| "not a 64-bit little-endian ELF file".to_string())?;
    let sections = header.sections(le, data).map_err(|e| e.to_string())?;
    let symbols = sections
        .symbols(le, data, elf::SHT_SYMTAB)
        .map_err(|e| format!("bad symbol table: {e}"))?;
    let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    for sym in symbols.iter() {
        let shndx = sym.st_shndx(le);
        let global = matches!(sym.st_bind(), elf::STB_GLOBAL | elf::STB_WEAK);
        if !global || shndx == elf::SHN_UNDEF || shndx == elf::SHN_COMMON {
            continue;
        }
        let name = symbols
            .symbol_name(le, sym)
            .map_err(|e| format!("bad symbol name: {e}"))?;
        let kind = match sym.st_type() {
            elf::STT_FUNC | elf::STT_GNU_IFUNC => SymbolKind::Text,
            elf::STT_OBJECT => SymbolKind::Data,
            _ => SymbolKind::Unknown,
        };
        obj.add_symbol(Symbol {
            name: name.to_vec(),
            value: sym.st_value(le),
            size: sym.st_size(le),
            kind,
            scope: SymbolScope::Dynamic,
            weak: sym.st_bind() == elf::STB_WEAK,
            section: SymbolSection::Absolute,
            flags: SymbolFlags::None,
        });
    }
    obj.write().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defined_globals_become_absolute_and_the_rest_is_left_out() {
        let mut src = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = src.add_section(Vec::new(), b".text".to_vec(), object::SectionKind::Text);
        src.set_section_data(text, vec![0xc3u8; 32], 16);
        for (name, value, scope, section) in [
            (
                "rom_entry",
                0x10,
                SymbolScope::Dynamic,
                SymbolSection::Section(text),
            ),
            (
                "rom_local",
                0x4,
                SymbolScope::Compilation,
                SymbolSection::Section(text),
            ),
            ("needed", 0, SymbolScope::Dynamic, SymbolSection::Undefined),
        ] {
            src.add_symbol(Symbol {
                name: name.into(),
                value,
                size: 0,
                kind: SymbolKind::Text,
                scope,
                weak: false,
                section,
                flags: SymbolFlags::None,
            });
        }
        let bytes = object_for(&src.write().unwrap()).unwrap();
        let symbols = crate::input::global_symbols(&bytes);
        // Absolute: in no section.
        assert_eq!(symbols, [("rom_entry".to_string(), 0x10, false)]);
        assert!(object_for(b"not elf").unwrap_err().contains("ELF"));
    }
}
