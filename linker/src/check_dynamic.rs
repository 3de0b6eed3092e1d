//! `--check-dynamic-relocations` (lld's): with `--apply-dynamic-relocs`, every place a
//! dynamic relocation of `.rela.dyn` names must hold, in the written output, the value
//! the loader would compute from the relocation's addend before it adds anything (the
//! addend for `R_X86_64_64`, `RELATIVE`, `GLOB_DAT`, ...). Read back from the finished
//! image through its program headers and `PT_DYNAMIC` only (as the loader finds them), so
//! that the check does not trust what produced it. A place that disagrees is an internal
//! error, and nothing is written. Without `--apply-dynamic-relocs` the places hold what the
//! inputs had, and there is nothing to compare (lld checks nothing either).

use crate::object_file::LE;
use crate::scan::reloc_name;
use object::elf::*;
use object::read::elf::{Dyn as _, FileHeader as _, ProgramHeader as _, Rela as _, Sym as _};
use object::LittleEndian;

/// At most this many disagreements are reported.
const SHOWN: usize = 20;

/// The disagreements between `image` (a complete ELF output) and its `.rela.dyn`, each
/// in lld's words; empty when every place holds its addend or the image has no
/// `.rela.dyn`. A malformed image (which rld would not write) is reported as one.
pub fn check(image: &[u8]) -> Vec<String> {
    match Image::read(image) {
        Ok(Some(image)) => image.disagreements(),
        Ok(None) => Vec::new(),
        Err(what) => vec![format!(
            "internal linker error: the output's {what} cannot be read back"
        )],
    }
}

/// What the check reads of the output.
struct Image<'a> {
    bytes: &'a [u8],
    /// Loaded segments: (vaddr, memsz, offset, filesz).
    loads: Vec<(u64, u64, u64, u64)>,
    rela: &'a [Rela64<LittleEndian>],
    /// `.dynsym` and `.dynstr`, for the symbol a relocation names.
    dynsym: &'a [Sym64<LittleEndian>],
    dynstr: &'a [u8],
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

impl<'a> Image<'a> {
    fn read(bytes: &'a [u8]) -> Result<Option<Image<'a>>, &'static str> {
        let header = FileHeader64::<LittleEndian>::parse(bytes).map_err(|_| "ELF header")?;
        let phdrs = header
            .program_headers(LE, bytes)
            .map_err(|_| "program headers")?;
        let mut loads = Vec::new();
        let mut dynamic = None;
        for ph in phdrs {
            match ph.p_type(LE) {
                PT_LOAD => loads.push((
                    ph.p_vaddr(LE),
                    ph.p_memsz(LE),
                    ph.p_offset(LE),
                    ph.p_filesz(LE),
                )),
                PT_DYNAMIC => dynamic = ph.dynamic(LE, bytes).map_err(|_| "dynamic section")?,
                _ => {}
            }
        }
        let Some(dynamic) = dynamic else {
            return Ok(None);
        };
        let tag = |wanted: u32| {
            dynamic
                .iter()
                .take_while(|d| d.d_tag(LE) != u64::from(DT_NULL))
                .find(|d| d.d_tag(LE) == u64::from(wanted))
                .map(|d| d.d_val(LE))
        };
        let (Some(rela), Some(rela_size)) = (tag(DT_RELA), tag(DT_RELASZ)) else {
            return Ok(None);
        };
        let (symtab, strtab, strsz) = (tag(DT_SYMTAB), tag(DT_STRTAB), tag(DT_STRSZ));
        let mut image = Image {
            bytes,
            loads,
            rela: &[],
            dynsym: &[],
            dynstr: &[],
        };
        let rela = image.file_range(rela, rela_size).ok_or(".rela.dyn")?;
        image.rela = object::pod::slice_from_all_bytes(rela).map_err(|_| ".rela.dyn")?;
        if let (Some(symtab), Some(strtab), Some(strsz)) = (symtab, strtab, strsz) {
            // `.dynsym` ends where `.dynstr` begins in lld's layout and rld's; otherwise
            // only the names are lost.
            let size = strtab.saturating_sub(symtab);
            let dynsym = image.file_range(symtab, size).unwrap_or(&[]);
            image.dynsym = object::pod::slice_from_bytes(dynsym, dynsym.len() / 24)
                .map_or(&[], |(syms, _)| syms);
            image.dynstr = image.file_range(strtab, strsz).unwrap_or(&[]);
        }
        Ok(Some(image))
    }

    /// The file bytes of `size` bytes at address `addr`, if the file holds them.
    fn file_range(&self, addr: u64, size: u64) -> Option<&'a [u8]> {
        let end = addr.checked_add(size)?;
        let &(vaddr, _, offset, _) = self
            .loads
            .iter()
            .find(|&&(v, _, _, f)| addr >= v && end <= v + f)?;
        let start = (offset + (addr - vaddr)) as usize;
        self.bytes.get(start..start.checked_add(size as usize)?)
    }

    /// What the place at `addr` holds for a relocation of `r_type` (lld's implicit
    /// addend); a place in memory the file does not hold reads as zero.
    fn written(&self, addr: u64, r_type: u32) -> Option<i64> {
        let (at, width) = match r_type {
            R_X86_64_NONE | R_X86_64_JUMP_SLOT => return Some(0),
            R_X86_64_TLSDESC => (addr.checked_add(8)?, 8),
            R_X86_64_32 | R_X86_64_32S | R_X86_64_PC32 | R_X86_64_TPOFF32 | R_X86_64_DTPOFF32
            | R_X86_64_SIZE32 => (addr, 4),
            _ => (addr, 8),
        };
        let in_memory = self
            .loads
            .iter()
            .any(|&(v, m, _, _)| at >= v && at + width <= v + m);
        match self.file_range(at, width) {
            Some(b) if width == 8 => Some(u64_at(b, 0)? as i64),
            Some(b) => Some(i64::from(u32_at(b, 0)? as i32)),
            None if in_memory => Some(0),
            None => None,
        }
    }

    fn symbol_name(&self, index: usize) -> Option<String> {
        let name = self.dynsym.get(index)?.st_name(LE) as usize;
        let rest = self.dynstr.get(name..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        Some(String::from_utf8_lossy(&rest[..end]).into_owned())
    }

    fn disagreements(&self) -> Vec<String> {
        let mut found = Vec::new();
        for r in self.rela {
            let (offset, addend) = (r.r_offset(LE), r.r_addend(LE));
            let (sym, r_type) = (r.r_sym(LE, false) as usize, r.r_type(LE, false));
            let against = match sym {
                0 => String::new(),
                s => format!(
                    " against symbol {}",
                    self.symbol_name(s).unwrap_or_default()
                ),
            };
            let what = format!(
                "dynamic relocation {} at offset {offset:#x}",
                reloc_name(r_type)
            );
            match self.written(offset, r_type) {
                Some(written) if written == addend => {}
                Some(written) => found.push(format!(
                    "internal linker error: wrote incorrect addend value {:#x} instead of \
                     {:#x} for {what}{against}",
                    written as u64, addend as u64
                )),
                None => found.push(format!(
                    "internal linker error: {what}{against} is outside the output's segments"
                )),
            }
            if found.len() == SHOWN {
                break;
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal image: one PT_LOAD over the whole file at address 0x1000, a PT_DYNAMIC,
    /// and `.rela.dyn` holding `relocs` (type, place address, addend); `place` bytes at
    /// 0x200 of the file.
    fn image(relocs: &[(u32, u64, i64)], place: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; 0x300];
        let base = 0x1000u64;
        b[..7].copy_from_slice(b"\x7fELF\x02\x01\x01");
        b[32..40].copy_from_slice(&64u64.to_le_bytes()); // e_phoff
        b[54..56].copy_from_slice(&56u16.to_le_bytes());
        b[56..58].copy_from_slice(&2u16.to_le_bytes());
        let phdr = |b: &mut Vec<u8>, k: usize, t: u32, off: u64, size: u64| {
            let at = 64 + k * 56;
            b[at..at + 4].copy_from_slice(&t.to_le_bytes());
            for (o, v) in [(8, off), (16, base + off), (32, size), (40, size)] {
                b[at + o..at + o + 8].copy_from_slice(&v.to_le_bytes());
            }
        };
        phdr(&mut b, 0, PT_LOAD, 0, 0x300);
        phdr(&mut b, 1, PT_DYNAMIC, 0x100, 48);
        let entries = [
            (DT_RELA, base + 0x140),
            (DT_RELASZ, 24 * relocs.len() as u64),
        ];
        for (k, (t, v)) in entries.iter().enumerate() {
            let at = 0x100 + k * 16;
            b[at..at + 8].copy_from_slice(&u64::from(*t).to_le_bytes());
            b[at + 8..at + 16].copy_from_slice(&v.to_le_bytes());
        }
        for (k, &(t, at, a)) in relocs.iter().enumerate() {
            let e = 0x140 + k * 24;
            b[e..e + 8].copy_from_slice(&(base + at).to_le_bytes());
            b[e + 8..e + 16].copy_from_slice(&u64::from(t).to_le_bytes());
            b[e + 16..e + 24].copy_from_slice(&a.to_le_bytes());
        }
        b[0x200..0x200 + place.len()].copy_from_slice(place);
        b
    }

    #[test]
    fn places_holding_their_addends_pass_and_others_are_named() {
        let place = [0x34, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let good = image(
            &[
                (R_X86_64_RELATIVE, 0x200, 0x1234),
                (R_X86_64_JUMP_SLOT, 0x208, 0),
            ],
            &place,
        );
        assert_eq!(check(&good), Vec::<String>::new());
        let bad = image(&[(R_X86_64_RELATIVE, 0x208, 0x1234)], &place);
        assert_eq!(
            check(&bad),
            [
                "internal linker error: wrote incorrect addend value 0x0 instead of 0x1234 for \
              dynamic relocation R_X86_64_RELATIVE at offset 0x1208"
            ]
        );
        let outside = image(&[(R_X86_64_64, 0x5000, 0)], &place);
        assert!(check(&outside)[0].contains("outside the output's segments"));
    }
}
