//! `--oformat binary` (GNU ld's and lld's): the output is the memory image alone, for boot
//! loaders and firmware that are copied to an address and run, not loaded by an ELF loader.
//! As lld lays it out: the sections are placed as under `-N` (one segment, no page
//! alignment), without room for the ELF headers (the first section starts at the image
//! base, or where a linker script puts it); then each allocated section with contents is
//! written at its load address less the lowest one, and the gaps are zeros. NOBITS space
//! (`.bss`) takes no bytes.

use crate::image::Image;

/// Where each section with contents goes in the flat image.
pub struct Flat {
    /// (place in the flat image, file offset in the ELF image, size).
    placed: Vec<(u64, u64, u64)>,
    /// The flat image's size.
    pub size: u64,
}

impl Flat {
    /// The flat layout of what rld placed for `link`.
    pub fn of(link: &Image) -> Flat {
        let with_contents: Vec<(u64, u64, u64)> = link
            .outputs
            .iter()
            .filter(|o| o.is_alloc() && !o.is_nobits() && o.size > 0)
            .map(|o| (load_address(link, link.addr(o)), link.offset(o), o.size))
            .collect();
        let lowest = with_contents.iter().map(|p| p.0).min().unwrap_or(0);
        let placed: Vec<(u64, u64, u64)> = with_contents
            .into_iter()
            .map(|(lma, offset, size)| (lma - lowest, offset, size))
            .collect();
        let size = placed
            .iter()
            .map(|&(at, _, size)| at + size)
            .max()
            .unwrap_or(0);
        Flat { placed, size }
    }

    /// Copies the sections' bytes from the ELF image `elf` into `flat` (`self.size`
    /// bytes, zeros where nothing goes).
    pub fn fill(&self, elf: &[u8], flat: &mut [u8]) {
        for &(at, offset, size) in &self.placed {
            let (at, from, size) = (at as usize, offset as usize, size as usize);
            flat[at..at + size].copy_from_slice(&elf[from..from + size]);
        }
    }
}

/// The load address of the byte at `addr`: where a linker script's `AT` moved its segment,
/// the address itself otherwise.
fn load_address(link: &Image, addr: u64) -> u64 {
    link.segments
        .headers
        .iter()
        .filter(|s| s.p_type == object::elf::PT_LOAD)
        .find(|s| addr >= s.vaddr && addr < s.vaddr + s.memsz.max(1))
        .and_then(|s| s.paddr.map(|p| p + (addr - s.vaddr)))
        .unwrap_or(addr)
}
