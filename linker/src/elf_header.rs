//! The ELF file header and section headers, as every output kind writes them (executables
//! and shared libraries in `write`, relocatable objects in `relocatable`).

use crate::synthetic::{put_u32, put_u64};
use object::elf::{EM_X86_64, SHN_LORESERVE, SHN_XINDEX};

/// The fields of the ELF header that differ between outputs.
pub struct FileHeader {
    pub e_type: u16,
    /// `EI_OSABI` (see [`output_osabi`]).
    pub osabi: u8,
    pub entry: u64,
    /// Program headers (right after this header), or none.
    pub phnum: u16,
    pub shoff: u64,
    /// Section headers, the null one included.
    pub shnum: u32,
    pub shstrndx: u32,
}

impl FileHeader {
    /// Writes the 64-byte header. Counts and indices that do not fit its 16-bit fields go
    /// into section 0 (the ELF extended numbering: e_shnum 0 with the count in its sh_size,
    /// e_shstrndx SHN_XINDEX with the index in its sh_link), which must be in `buf`.
    pub fn write(&self, buf: &mut [u8]) {
        let osabi = self.osabi;
        buf[0..16].copy_from_slice(&[
            0x7f, b'E', b'L', b'F', 2, 1, 1, osabi, 0, 0, 0, 0, 0, 0, 0, 0,
        ]);
        buf[16..18].copy_from_slice(&self.e_type.to_le_bytes());
        buf[18..20].copy_from_slice(&EM_X86_64.to_le_bytes());
        put_u32(buf, 20, 1);
        put_u64(buf, 24, self.entry);
        put_u64(buf, 32, if self.phnum > 0 { 64 } else { 0 });
        put_u64(buf, 40, self.shoff);
        put_u32(buf, 48, 0);
        buf[52..54].copy_from_slice(&64u16.to_le_bytes());
        let phentsize: u16 = if self.phnum > 0 { 56 } else { 0 };
        buf[54..56].copy_from_slice(&phentsize.to_le_bytes());
        buf[56..58].copy_from_slice(&self.phnum.to_le_bytes());
        buf[58..60].copy_from_slice(&64u16.to_le_bytes());
        let lo_reserve = u32::from(SHN_LORESERVE);
        let e_shnum = if self.shnum >= lo_reserve {
            0
        } else {
            self.shnum as u16
        };
        let e_shstrndx = if self.shstrndx >= lo_reserve {
            SHN_XINDEX
        } else {
            self.shstrndx as u16
        };
        buf[60..62].copy_from_slice(&e_shnum.to_le_bytes());
        buf[62..64].copy_from_slice(&e_shstrndx.to_le_bytes());
        let section0 = self.shoff as usize;
        if self.shnum >= lo_reserve {
            put_u64(buf, section0 + 32, u64::from(self.shnum));
        }
        if e_shstrndx == SHN_XINDEX {
            put_u32(buf, section0 + 40, self.shstrndx);
        }
    }
}

/// One section header.
#[derive(Debug, Clone, Copy, Default)]
pub struct SectionHeader {
    pub name: u32,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entsize: u64,
}

impl SectionHeader {
    pub fn write(&self, b: &mut [u8]) {
        put_u32(b, 0, self.name);
        put_u32(b, 4, self.sh_type);
        put_u64(b, 8, self.flags);
        put_u64(b, 16, self.addr);
        put_u64(b, 24, self.offset);
        put_u64(b, 32, self.size);
        put_u32(b, 40, self.link);
        put_u32(b, 44, self.info);
        put_u64(b, 48, self.align);
        put_u64(b, 56, self.entsize);
    }
}

/// The output's `EI_OSABI`, as lld decides it: with `-m` (what compiler drivers pass), the
/// emulation's (none for `elf_x86_64`); without, the first input object's that names one
/// (one with GNU extensions, such as IFUNCs or unique symbols, says `ELFOSABI_GNU`).
pub fn output_osabi(link: &crate::context::Link) -> u8 {
    if link.opts.emulation.is_some() {
        return object::elf::ELFOSABI_NONE;
    }
    link.objects
        .iter()
        .filter(|o| !o.from_lto)
        .filter_map(|o| o.data.get(7).copied())
        .find(|&osabi| osabi != object::elf::ELFOSABI_NONE)
        .unwrap_or(object::elf::ELFOSABI_NONE)
}
