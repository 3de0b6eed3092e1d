//! Contents of the linker-made sections: PLT, GOT, .got.plt, dynamic relocations, .dynsym,
//! .dynamic, notes and the .eh_frame_hdr search table.

use crate::context::{DynAddend, DynReloc, GotKind, Link, Place, Target};
use crate::dynamic::{dynamic_entries, DynamicTables};
use crate::image::Image;
use crate::object_file::{FileId, LE};
use crate::output_section::{fde_cie_pointer, Synthetic, TailKind};
use crate::sym_section::{symbol_section, SymSection};
use crate::symbols::SymbolDef;
use crate::tables::SectionRelative;
use object::elf::*;
use object::read::elf::Rela as _;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// The note type of systemd's package metadata (`.note.package`).
const NT_FDO_PACKAGING_METADATA: u32 = 0xcafe_1a7e;

/// `.note.package`'s size: the note header, "FDO\0", the JSON and its NUL, padded to 4.
pub fn package_note_size(json: &str) -> u64 {
    16 + (json.len() as u64 + 1).next_multiple_of(4)
}

/// `.rela.dyn`'s entries, 24 bytes each.
pub fn write_rela_dyn(link: &Image, dynamic: &DynamicTables, buf: &mut [u8]) {
    let index = dynsym_indices(dynamic);
    // RELATIVE first: DT_RELACOUNT lets the loader apply them in a tight loop. A PIE's
    // relative relocations can number hundreds of thousands: each file's are written in
    // parallel.
    let relative = &link.tables.section_relative;
    let (pieces, rest) = crate::write::split_places(buf, relative.iter().map(|r| 24 * r.len()));
    pieces
        .into_par_iter()
        .zip(relative)
        .enumerate()
        .for_each(|(file, (piece, relocs))| {
            for (out, r) in piece.chunks_mut(24).zip(relocs) {
                write_section_relative(link, file as FileId, r, out);
            }
        });
    let (relative, others): (Vec<&DynReloc>, Vec<&DynReloc>) = link
        .tables
        .rela_dyn
        .iter()
        .partition(|r| r.r_type == R_X86_64_RELATIVE);
    for (out, r) in rest.chunks_mut(24).zip(relative.into_iter().chain(others)) {
        write_rela(link, &index, r, out);
    }
    if link.opts.z_combreloc {
        sort_rela_dyn(buf, link.tables.relative_count());
    }
}

/// lld's order of `.rela.dyn` (`-z combreloc`): the first `relative` records, the relative
/// relocations, by address; the others by symbol, then address. Sorted once written, since
/// the addresses are known only then.
fn sort_rela_dyn(buf: &mut [u8], relative: usize) {
    let (records, _) = buf.as_chunks_mut::<24>();
    let field = |r: &[u8; 24], at: usize| {
        u64::from_le_bytes(r[at..at + 8].try_into().expect("eight bytes"))
    };
    let (relative, others) = records.split_at_mut(relative.min(records.len()));
    relative.par_sort_by_key(|r| field(r, 0));
    others.sort_by_key(|r| (field(r, 8) >> 32, field(r, 0)));
}

pub fn write_synthetic(link: &Image, dynamic: &DynamicTables, which: Synthetic, buf: &mut [u8]) {
    match which {
        Synthetic::Interp => {
            let path = link
                .opts
                .dynamic_linker
                .as_deref()
                .unwrap_or("/lib64/ld-linux-x86-64.so.2");
            buf[..path.len()].copy_from_slice(path.as_bytes());
        }
        Synthetic::BuildId => {
            let len = buf.len() as u32 - 16;
            put_u32(buf, 0, 4);
            put_u32(buf, 4, len);
            put_u32(buf, 8, NT_GNU_BUILD_ID);
            buf[12..16].copy_from_slice(b"GNU\0");
        }
        Synthetic::PackageNote => {
            let json = link.opts.package_metadata.as_deref().unwrap_or_default();
            put_u32(buf, 0, 4);
            put_u32(buf, 4, json.len() as u32 + 1);
            put_u32(buf, 8, NT_FDO_PACKAGING_METADATA);
            buf[12..16].copy_from_slice(b"FDO\0");
            buf[16..16 + json.len()].copy_from_slice(json.as_bytes());
        }
        Synthetic::GnuProperty => write_gnu_property(link, buf),
        Synthetic::DynSym => write_dynsym(link, dynamic, buf),
        Synthetic::DynStr => buf.copy_from_slice(&dynamic.dynstr),
        Synthetic::GnuVersion => {
            for (i, v) in dynamic.versym.iter().enumerate() {
                buf[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
            }
        }
        Synthetic::GnuVersionR => buf.copy_from_slice(&dynamic.verneed),
        Synthetic::GnuVersionD => buf.copy_from_slice(&dynamic.verdef),
        Synthetic::GnuHash => buf.copy_from_slice(&dynamic.gnu_hash),
        Synthetic::SysvHash => buf.copy_from_slice(&dynamic.sysv_hash),
        Synthetic::RelaDyn if link.opts.android_packed_relocs => {
            crate::android_relocs::write(link, buf)
        }
        Synthetic::RelaDyn => write_rela_dyn(link, dynamic, buf),
        Synthetic::RelaPlt => {
            let index = dynsym_indices(dynamic);
            let mut i = 0;
            for r in &link.tables.rela_plt {
                write_rela(link, &index, r, &mut buf[24 * i..24 * i + 24]);
                i += 1;
            }
            for (n, &t) in link.tables.plt.iplt.iter().enumerate() {
                let r = DynReloc {
                    place: Place::GotPlt((link.tables.plt.lazy.len() + n) as u64),
                    r_type: R_X86_64_IRELATIVE,
                    sym: None,
                    addend: DynAddend::Address(t, 0),
                };
                write_rela(link, &index, &r, &mut buf[24 * i..24 * i + 24]);
                i += 1;
            }
        }
        Synthetic::RelrDyn => crate::relr::write(link, buf),
        Synthetic::Plt if RetpolinePlt::of(link).is_some() => write_retpoline_plt(link, buf),
        Synthetic::Plt if link.ibt_plt() => write_ibt_plt_stubs(link, buf),
        Synthetic::Plt => write_plt(link, buf),
        Synthetic::PltSec => write_plt_sec(link, buf),
        Synthetic::Got => write_got(link, buf),
        Synthetic::GotPlt => {
            put_u64(buf, 0, link.synthetic_addr(Synthetic::Dynamic));
            // Lazy binding: the slot starts out pointing back into its PLT entry's push
            // (`-z now` with retpolines has no such stub: the slots start at 0, as lld's).
            if RetpolinePlt::of(link).is_none_or(|r| r.lazy) {
                for i in 0..link.tables.plt.lazy.len() {
                    put_u64(buf, 24 + 8 * i, link.plt_lazy_stub(i as u32));
                }
            }
            // IRELATIVE slots: the loader (or a static program's start-up) writes them
            // from the relocation's addend; zero, as lld leaves them, unless asked for the
            // resolver's address (GNU ld's).
            if link.opts.apply_dynamic_relocs {
                for (n, &t) in link.tables.plt.iplt.iter().enumerate() {
                    put_u64(
                        buf,
                        24 + 8 * (link.tables.plt.lazy.len() + n),
                        link.definition_address(t),
                    );
                }
            }
        }
        Synthetic::Dynamic => {
            for (i, (tag, val)) in dynamic_entries(link, dynamic).into_iter().enumerate() {
                put_u64(buf, 16 * i, tag as u64);
                put_u64(buf, 16 * i + 8, val);
            }
        }
        // NOBITS: address space only.
        Synthetic::RelroPadding => {}
        Synthetic::EhFrameHdr => {
            let addr = link.synthetic_addr(Synthetic::EhFrameHdr);
            write_eh_frame_hdr(link, buf, addr);
        }
    }
}

pub fn put_u32(buf: &mut [u8], off: usize, v: u32) {
    buf[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn put_u64(buf: &mut [u8], off: usize, v: u64) {
    buf[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

fn dynsym_indices(dynamic: &DynamicTables) -> FxHashMap<u32, u32> {
    dynamic
        .symbols
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i as u32 + 1))
        .collect()
}

pub(crate) fn place_address(link: &Image, place: Place) -> u64 {
    match place {
        Place::Section { file, sec, offset } => {
            link.section_address(file, sec, offset).unwrap_or(0)
        }
        Place::Got(off) => link.synthetic_addr(Synthetic::Got) + off,
        Place::GotPlt(index) => link.synthetic_addr(Synthetic::GotPlt) + 24 + 8 * index,
        Place::CopyRel(slot) => copy_address(link, slot),
    }
}

/// The address of a copy-relocated variable.
pub(crate) fn copy_address(link: &Image, slot: crate::context::CopySlot) -> u64 {
    let kind = TailKind::CopyRel {
        read_only: slot.read_only,
    };
    link.outputs
        .iter()
        .find_map(|o| o.tail(kind).map(|t| link.addr(o) + t.offset))
        .unwrap_or(0)
        + slot.offset
}

fn write_section_relative(link: &Image, file: FileId, r: &SectionRelative, out: &mut [u8]) {
    let place = Place::Section {
        file,
        sec: r.sec,
        offset: r.offset,
    };
    let target = link.target(file, r.sym as usize);
    put_u64(out, 0, place_address(link, place));
    put_u64(out, 8, u64::from(R_X86_64_RELATIVE));
    put_u64(out, 16, link.address_with_addend(target, r.addend) as u64);
}

fn write_rela(link: &Image, index: &FxHashMap<u32, u32>, r: &DynReloc, out: &mut [u8]) {
    let offset = place_address(link, r.place);
    let sym = r.sym.and_then(|id| index.get(&id).copied()).unwrap_or(0);
    let addend = match r.addend {
        DynAddend::Const(c) => c,
        DynAddend::Address(t, a) => {
            if r.r_type == R_X86_64_IRELATIVE {
                link.definition_address(t) as i64 + a
            } else {
                link.address_with_addend(t, a)
            }
        }
        DynAddend::TlsOffset(t, a) => {
            link.target_address(t) as i64 - link.segments.tls.start as i64 + a
        }
    };
    put_u64(out, 0, offset);
    put_u64(out, 8, (u64::from(sym) << 32) | u64::from(r.r_type));
    put_u64(out, 16, addend as u64);
}

fn write_plt(link: &Image, buf: &mut [u8]) {
    let plt = link.synthetic_addr(Synthetic::Plt) as i64;
    let gotplt = link.synthetic_addr(Synthetic::GotPlt) as i64;
    let mut pos = 0usize;
    if !link.tables.plt.lazy.is_empty() {
        write_plt0(buf, plt, gotplt);
        pos = 16;
        for i in 0..link.tables.plt.lazy.len() {
            let (entry, slot) = (plt + pos as i64, link.gotplt_slot(i as u32, false) as i64);
            lazy_entry(&mut buf[pos..pos + 16], entry, slot, i as u32, plt);
            pos += 16;
        }
    }
    // lld writes an IFUNC's entry as a lazy one (never taken: IRELATIVE slots are filled
    // before any call), its `jmpq` to PLT0, or to 0 without one.
    let plt0 = if link.tables.plt.lazy.is_empty() {
        0
    } else {
        plt
    };
    for i in 0..link.tables.plt.iplt.len() {
        let (entry, slot) = (plt + pos as i64, link.gotplt_slot(i as u32, true) as i64);
        lazy_entry(&mut buf[pos..pos + 16], entry, slot, i as u32, plt0);
        pos += 16;
    }
}

/// A lazy-binding PLT entry at address `entry`: `jmpq *slot(%rip); pushq $index; jmpq target`.
fn lazy_entry(b: &mut [u8], entry: i64, slot: i64, index: u32, target: i64) {
    let rel = |to: i64, next_insn: i64| ((to - next_insn) as i32).to_le_bytes();
    b[0..2].copy_from_slice(&[0xff, 0x25]);
    b[2..6].copy_from_slice(&rel(slot, entry + 6));
    b[6] = 0x68;
    b[7..11].copy_from_slice(&index.to_le_bytes());
    b[11] = 0xe9;
    b[12..16].copy_from_slice(&rel(target, entry + 16));
}

/// PLT0, pushing the link map and jumping to the resolver (the same in both layouts).
fn write_plt0(buf: &mut [u8], plt: i64, gotplt: i64) {
    let rel = |target: i64, next_insn: i64| ((target - next_insn) as i32).to_le_bytes();
    // pushq GOTPLT+8(%rip); jmpq *GOTPLT+16(%rip); nopl 0(%rax)
    buf[0..2].copy_from_slice(&[0xff, 0x35]);
    buf[2..6].copy_from_slice(&rel(gotplt + 8, plt + 6));
    buf[6..8].copy_from_slice(&[0xff, 0x25]);
    buf[8..12].copy_from_slice(&rel(gotplt + 16, plt + 12));
    buf[12..16].copy_from_slice(&[0x0f, 0x1f, 0x40, 0x00]);
}

/// The IBT layout's `.plt`: PLT0, then per lazy entry `endbr64; pushq $i; jmp PLT0`,
/// where its `.got.plt` slot first points.
fn write_ibt_plt_stubs(link: &Image, buf: &mut [u8]) {
    let plt = link.synthetic_addr(Synthetic::Plt) as i64;
    write_plt0(buf, plt, link.synthetic_addr(Synthetic::GotPlt) as i64);
    for i in 0..link.tables.plt.lazy.len() {
        let at = 16 + 16 * i;
        let b = &mut buf[at..at + 16];
        b[0..4].copy_from_slice(&ENDBR64);
        b[4] = 0x68;
        b[5..9].copy_from_slice(&(i as u32).to_le_bytes());
        b[9] = 0xe9;
        b[10..14].copy_from_slice(&((plt - (plt + at as i64 + 14)) as i32).to_le_bytes());
        b[14..16].copy_from_slice(&[0x66, 0x90]);
    }
}

/// The IBT layout's `.plt.sec`: per entry (lazy ones, then IFUNCs')
/// `endbr64; jmpq *slot(%rip)`, which calls land on.
fn write_plt_sec(link: &Image, buf: &mut [u8]) {
    let base = link.synthetic_addr(Synthetic::PltSec) as i64;
    let slots = (0..link.tables.plt.lazy.len())
        .map(|i| link.gotplt_slot(i as u32, false))
        .chain((0..link.tables.plt.iplt.len()).map(|i| link.gotplt_slot(i as u32, true)));
    for (n, slot) in slots.enumerate() {
        let at = 16 * n;
        let b = &mut buf[at..at + 16];
        b[0..4].copy_from_slice(&ENDBR64);
        b[4..6].copy_from_slice(&[0xff, 0x25]);
        b[6..10].copy_from_slice(&((slot as i64 - (base + at as i64 + 10)) as i32).to_le_bytes());
        b[10..16].copy_from_slice(&[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00]);
    }
}

const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];

/// lld's `-z retpolineplt` layout: calls through the PLT reach their target by a
/// retpoline (a `call` whose return address is replaced, so that no indirect branch is
/// predicted), with lazy binding, or without it under `-z now` (smaller entries).
#[derive(Debug, Clone, Copy)]
pub struct RetpolinePlt {
    /// Lazy binding (not `-z now`).
    pub lazy: bool,
}

impl RetpolinePlt {
    /// The layout the link asks for, if any.
    pub fn of(link: &Link) -> Option<RetpolinePlt> {
        link.opts.z_retpolineplt.then_some(RetpolinePlt {
            lazy: !link.opts.z_now,
        })
    }

    fn header(self) -> u64 {
        if self.lazy {
            48
        } else {
            32
        }
    }

    fn entry(self) -> u64 {
        if self.lazy {
            32
        } else {
            16
        }
    }

    /// `.plt`'s size for `entries` entries (the header only with some).
    pub fn size(self, entries: u64) -> u64 {
        if entries == 0 {
            0
        } else {
            self.header() + self.entry() * entries
        }
    }

    /// Where entry `index` starts in `.plt`.
    pub fn entry_offset(self, index: u32) -> u64 {
        self.header() + self.entry() * u64::from(index)
    }

    /// The `.got.plt` slot's first value for the entry at `entry`: its `pushq`.
    pub fn lazy_stub(self, entry: u64) -> u64 {
        entry + 0x11
    }
}

/// `.plt` in lld's retpoline layout, byte for byte.
fn write_retpoline_plt(link: &Image, buf: &mut [u8]) {
    let Some(r) = RetpolinePlt::of(link) else {
        return;
    };
    let plt = link.synthetic_addr(Synthetic::Plt) as i64;
    let rel = |to: i64, next_insn: i64| ((to - next_insn) as i32).to_le_bytes();
    buf.fill(0xcc);
    // The retpoline: `call next; loop: pause; lfence; jmp loop; next: mov %r11, (%rsp); ret`.
    let (thunk, next) = if r.lazy {
        let gotplt = link.synthetic_addr(Synthetic::GotPlt) as i64;
        // pushq GOTPLT+8(%rip); mov GOTPLT+16(%rip), %r11 (the resolver) into the thunk.
        buf[0..2].copy_from_slice(&[0xff, 0x35]);
        buf[2..6].copy_from_slice(&rel(gotplt + 8, plt + 6));
        buf[6..9].copy_from_slice(&[0x4c, 0x8b, 0x1d]);
        buf[9..13].copy_from_slice(&rel(gotplt + 16, plt + 13));
        (0x0d, 0x20)
    } else {
        (0, 0x10)
    };
    buf[thunk] = 0xe8;
    buf[thunk + 1..thunk + 5].copy_from_slice(&((next - (thunk + 5)) as i32).to_le_bytes());
    buf[thunk + 5..thunk + 12].copy_from_slice(&[0xf3, 0x90, 0x0f, 0xae, 0xe8, 0xeb, 0xf9]);
    buf[next..next + 5].copy_from_slice(&[0x4c, 0x89, 0x1c, 0x24, 0xc3]);
    let pause = plt + thunk as i64 + 5;
    for i in 0..link.tables.plt.lazy.len() {
        let at = r.entry_offset(i as u32) as usize;
        let entry = plt + at as i64;
        let slot = link.gotplt_slot(i as u32, false) as i64;
        let b = &mut buf[at..at + r.entry() as usize];
        // mov slot(%rip), %r11
        b[0..3].copy_from_slice(&[0x4c, 0x8b, 0x1d]);
        b[3..7].copy_from_slice(&rel(slot, entry + 7));
        if r.lazy {
            // call next; jmp loop; pushq $index; jmp PLT0 (the lazy binding stub)
            b[7] = 0xe8;
            b[8..12].copy_from_slice(&rel(plt + next as i64, entry + 12));
            b[12] = 0xe9;
            b[13..17].copy_from_slice(&rel(pause, entry + 17));
            b[17] = 0x68;
            b[18..22].copy_from_slice(&(i as u32).to_le_bytes());
            b[22] = 0xe9;
            b[23..27].copy_from_slice(&rel(plt, entry + 27));
        } else {
            // jmp the thunk
            b[7] = 0xe9;
            b[8..12].copy_from_slice(&rel(plt, entry + 12));
        }
    }
}

fn write_got(link: &Image, buf: &mut [u8]) {
    let exec = !link.opts.is_shared();
    for &(kind, t, off) in &link.tables.got.entries {
        let off = off as usize;
        let preemptible = link.is_preemptible(t);
        match kind {
            GotKind::Regular => {
                // A RELATIVE relocation fills a PIC output's slot from its addend; the slot
                // stays zero as lld leaves it (see `--apply-dynamic-relocs`), unless RELR,
                // which has no addend, packs it.
                let written = !crate::scan::got_slot_is_relative(link, t)
                    || link.opts.apply_dynamic_relocs
                    || crate::relr::packs(link, Place::Got(off as u64));
                if !preemptible && written {
                    put_u64(buf, off, link.target_address(t));
                }
            }
            GotKind::TlsIe => {
                if exec && !preemptible {
                    put_u64(
                        buf,
                        off,
                        link.segments.tls.tp_offset(link.target_address(t)) as u64,
                    );
                }
            }
            GotKind::TlsGd => {
                if !preemptible {
                    put_u64(
                        buf,
                        off + 8,
                        link.target_address(t).wrapping_sub(link.segments.tls.start),
                    );
                }
            }
            GotKind::TlsLd | GotKind::TlsDesc => {}
        }
    }
}

fn write_dynsym(link: &Image, dynamic: &DynamicTables, buf: &mut [u8]) {
    for (i, &id) in dynamic.symbols.iter().enumerate() {
        let sym = link.symtab.get(id);
        let e = &mut buf[24 * (i + 1)..24 * (i + 2)];
        let name = dynamic.string_offset(crate::symbols::base_name(sym.name));
        let mut sym_type = sym.sym_type;
        let mut shndx = 0u16;
        let mut value = 0u64;
        let mut size = sym.size;
        if link.tables.plt.canonical.contains(&id) && !link.tables.copies.slots.contains_key(&id) {
            value = link.sym_addr[id as usize];
            sym_type = STT_FUNC;
        } else {
            // .dynsym has no extended-index table (lld neither): an index that does not
            // fit stays SHN_XINDEX, which the loader treats like any defined symbol.
            let section = symbol_section(link, id);
            shndx = section.st_shndx().0;
            if section != SymSection::Undefined {
                value = link.sym_addr[id as usize];
            } else {
                size = 0;
            }
            let local_ifunc = link.tables.plt.iplt_index.contains_key(&Target::Global(id));
            if matches!(sym.def, SymbolDef::Defined { .. }) && local_ifunc {
                sym_type = STT_FUNC;
            }
        }
        // A reference to another module's IFUNC is just a function reference; only the
        // defining module says IFUNC (lld does the same).
        if sym_type == STT_GNU_IFUNC && shndx == 0 {
            sym_type = STT_FUNC;
        }
        // TLS symbols hold their offset inside the TLS template, not an address.
        if sym_type == STT_TLS && shndx != 0 {
            value = value.wrapping_sub(link.segments.tls.start);
        }
        let weak = if sym.is_defined_locally() {
            sym.weak
        } else {
            !sym.has_strong_ref
        };
        let bind = sym.output_binding(weak, link.opts.gnu_unique);
        put_u32(e, 0, name);
        e[4] = (bind << 4) | (sym_type & 0xf);
        e[5] = sym.visibility & 3;
        e[6..8].copy_from_slice(&shndx.to_le_bytes());
        put_u64(e, 8, value);
        put_u64(e, 16, size);
    }
}

/// Builds `.eh_frame_hdr`: a table of (function start, FDE) sorted by function start, for
/// the unwinder's binary search. It comes from the `.eh_frame` records layout placed, not
/// from the written section: a kept FDE's function start is where its pc_begin relocation
/// points (S + A, whatever the encoding), and its address is its piece's place.
fn write_eh_frame_hdr(link: &Image, hdr: &mut [u8], hdr_addr: u64) {
    let eh = link.outputs.iter().find(|o| o.name == ".eh_frame");
    let mut table: Vec<(u64, u64)> = eh.map_or_else(Vec::new, |eh| {
        eh.inputs
            .par_iter()
            .flat_map_iter(|&(file, sec)| fde_starts(link, file, sec, link.addr(eh)))
            .collect()
    });
    // By address, then by FDE: the same table whatever the order threads finished in. One
    // entry per address, the first FDE's (lld's: functions folded into one, or empty ones,
    // share an address); the size stays reserved for all.
    table.par_sort_unstable();
    table.dedup_by_key(|(pc, _)| *pc);
    let eh_addr = eh.map_or(0, |eh| link.addr(eh));
    hdr[0] = 1;
    hdr[1] = 0x1b; // eh_frame_ptr: pcrel | sdata4
    hdr[2] = 0x03; // fde_count: udata4
    hdr[3] = 0x3b; // table: datarel | sdata4
    put_u32(hdr, 4, eh_addr.wrapping_sub(hdr_addr + 4) as u32);
    // The size was reserved for every FDE kept; the table is never longer than that.
    let capacity = (hdr.len() - 12) / 8;
    let n = table.len().min(capacity);
    put_u32(hdr, 8, n as u32);
    for (i, (pc, fde)) in table.iter().take(n).enumerate() {
        put_u32(hdr, 12 + 8 * i, pc.wrapping_sub(hdr_addr) as u32);
        put_u32(hdr, 16 + 8 * i, fde.wrapping_sub(hdr_addr) as u32);
    }
}

/// (function start, FDE address) of each FDE one `.eh_frame` input keeps.
fn fde_starts(link: &Image, file: FileId, sec: u32, eh_addr: u64) -> Vec<(u64, u64)> {
    let s = &link.objects[file as usize].sections[sec as usize];
    let mut starts = Vec::new();
    for p in s.pieces.iter().filter(|p| p.output_offset != u64::MAX) {
        if fde_cie_pointer(s.data(), p.input_offset as usize).is_none() {
            continue;
        }
        let pc_begin = p.input_offset + 8;
        let i = s.relocs().partition_point(|r| r.r_offset(LE) < pc_begin);
        // Layout keeps an FDE only if this relocation is there.
        let Some(r) = s.relocs().get(i).filter(|r| r.r_offset(LE) == pc_begin) else {
            continue;
        };
        let target = link.target(file, r.r_sym(LE, false) as usize);
        let pc = link.address_with_addend(target, r.r_addend(LE)) as u64;
        starts.push((pc, eh_addr + p.output_offset));
    }
    starts
}

/// `.note.gnu.property`: the x86 features and ISA level the output carries, into `buf` of
/// [`gnu_property_size`] bytes.
pub fn write_gnu_property(link: &crate::context::Link, buf: &mut [u8]) {
    let properties = crate::layout::gnu_properties(link);
    put_u32(buf, 0, 4);
    put_u32(buf, 4, 16 * properties.len() as u32);
    put_u32(buf, 8, NT_GNU_PROPERTY_TYPE_0);
    buf[12..16].copy_from_slice(b"GNU\0");
    for (i, (pr_type, value)) in properties.into_iter().enumerate() {
        put_u32(buf, 16 + 16 * i, pr_type);
        put_u32(buf, 20 + 16 * i, 4);
        put_u32(buf, 24 + 16 * i, value);
    }
}

/// The size of `.note.gnu.property`, or 0 when there is nothing to say.
pub fn gnu_property_size(link: &crate::context::Link) -> u64 {
    match crate::layout::gnu_properties(link).len() {
        0 => 0,
        n => 16 + 16 * n as u64,
    }
}
