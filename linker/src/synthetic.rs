//! Contents of the linker-made sections: PLT, GOT, .got.plt, dynamic relocations, .dynsym,
//! .dynamic, notes and the .eh_frame_hdr search table.

use crate::context::{DynAddend, DynReloc, GotKind, Link, Place, Target};
use crate::dynamic::{dynamic_entries, DynamicTables};
use crate::output_section::{Synthetic, TailKind};
use crate::sym_section::{symbol_section, SymSection};
use crate::symbols::SymbolDef;
use object::elf::*;
use rustc_hash::FxHashMap;

pub fn write_synthetic(link: &Link, dynamic: &DynamicTables, which: Synthetic, buf: &mut [u8]) {
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
        Synthetic::GnuProperty => {
            put_u32(buf, 0, 4);
            put_u32(buf, 4, 16);
            put_u32(buf, 8, NT_GNU_PROPERTY_TYPE_0);
            buf[12..16].copy_from_slice(b"GNU\0");
            put_u32(buf, 16, GNU_PROPERTY_X86_FEATURE_1_AND);
            put_u32(buf, 20, 4);
            put_u32(buf, 24, crate::layout::gnu_property_features(link));
        }
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
        Synthetic::RelaDyn => {
            let index = dynsym_indices(dynamic);
            // RELATIVE first: DT_RELACOUNT lets the loader apply them in a tight loop.
            let mut relocs: Vec<&DynReloc> = link.rela_dyn.iter().collect();
            relocs.sort_by_key(|r| r.r_type != R_X86_64_RELATIVE);
            for (i, r) in relocs.into_iter().enumerate() {
                write_rela(link, &index, r, &mut buf[24 * i..24 * i + 24]);
            }
        }
        Synthetic::RelaPlt => {
            let index = dynsym_indices(dynamic);
            let mut i = 0;
            for r in &link.rela_plt {
                write_rela(link, &index, r, &mut buf[24 * i..24 * i + 24]);
                i += 1;
            }
            for (n, &t) in link.iplt.iter().enumerate() {
                let r = DynReloc {
                    place: Place::GotPlt((link.plt.len() + n) as u64),
                    r_type: R_X86_64_IRELATIVE,
                    sym: None,
                    addend: DynAddend::Address(t, 0),
                };
                write_rela(link, &index, &r, &mut buf[24 * i..24 * i + 24]);
                i += 1;
            }
        }
        Synthetic::Plt => write_plt(link, buf),
        Synthetic::Got => write_got(link, buf),
        Synthetic::GotPlt => {
            put_u64(buf, 0, link.synthetic_addr(Synthetic::Dynamic));
            for i in 0..link.plt.len() {
                // Lazy binding: the slot starts out pointing back into its PLT entry's push.
                put_u64(buf, 24 + 8 * i, link.plt_entry_address(i as u32) + 6);
            }
            for (n, &t) in link.iplt.iter().enumerate() {
                put_u64(
                    buf,
                    24 + 8 * (link.plt.len() + n),
                    link.definition_address(t),
                );
            }
        }
        Synthetic::Dynamic => {
            for (i, (tag, val)) in dynamic_entries(link, dynamic).into_iter().enumerate() {
                put_u64(buf, 16 * i, tag as u64);
                put_u64(buf, 16 * i + 8, val);
            }
        }
        // Written after .eh_frame, from its final bytes.
        Synthetic::EhFrameHdr => {}
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

fn place_address(link: &Link, place: Place) -> u64 {
    match place {
        Place::Section { file, sec, offset } => {
            link.section_address(file, sec, offset).unwrap_or(0)
        }
        Place::Got(off) => link.synthetic_addr(Synthetic::Got) + off,
        Place::GotPlt(index) => link.synthetic_addr(Synthetic::GotPlt) + 24 + 8 * index,
        Place::CopyRel(off) => {
            link.outputs
                .iter()
                .find_map(|o| o.tail(TailKind::CopyRel).map(|t| o.addr + t.offset))
                .unwrap_or(0)
                + off
        }
    }
}

fn write_rela(link: &Link, index: &FxHashMap<u32, u32>, r: &DynReloc, out: &mut [u8]) {
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
        DynAddend::TlsOffset(t, a) => link.target_address(t) as i64 - link.tls.start as i64 + a,
    };
    put_u64(out, 0, offset);
    put_u64(out, 8, (u64::from(sym) << 32) | u64::from(r.r_type));
    put_u64(out, 16, addend as u64);
}

fn write_plt(link: &Link, buf: &mut [u8]) {
    let plt = link.synthetic_addr(Synthetic::Plt) as i64;
    let gotplt = link.synthetic_addr(Synthetic::GotPlt) as i64;
    let rel = |target: i64, next_insn: i64| ((target - next_insn) as i32).to_le_bytes();
    let mut pos = 0usize;
    if !link.plt.is_empty() {
        // pushq GOTPLT+8(%rip); jmpq *GOTPLT+16(%rip); nopl 0(%rax)
        buf[0..2].copy_from_slice(&[0xff, 0x35]);
        buf[2..6].copy_from_slice(&rel(gotplt + 8, plt + 6));
        buf[6..8].copy_from_slice(&[0xff, 0x25]);
        buf[8..12].copy_from_slice(&rel(gotplt + 16, plt + 12));
        buf[12..16].copy_from_slice(&[0x0f, 0x1f, 0x40, 0x00]);
        pos = 16;
        for i in 0..link.plt.len() {
            let entry = plt + pos as i64;
            let slot = link.gotplt_slot(i as u32, false) as i64;
            let b = &mut buf[pos..pos + 16];
            // jmpq *slot(%rip); pushq $i; jmpq PLT0
            b[0..2].copy_from_slice(&[0xff, 0x25]);
            b[2..6].copy_from_slice(&rel(slot, entry + 6));
            b[6] = 0x68;
            b[7..11].copy_from_slice(&(i as u32).to_le_bytes());
            b[11] = 0xe9;
            b[12..16].copy_from_slice(&rel(plt, entry + 16));
            pos += 16;
        }
    }
    for i in 0..link.iplt.len() {
        let entry = plt + pos as i64;
        let slot = link.gotplt_slot(i as u32, true) as i64;
        let b = &mut buf[pos..pos + 16];
        // jmpq *slot(%rip), then NOP padding: no lazy path for IRELATIVE slots.
        b[0..2].copy_from_slice(&[0xff, 0x25]);
        b[2..6].copy_from_slice(&rel(slot, entry + 6));
        b[6..16].copy_from_slice(&[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x0f, 0x1f, 0x40, 0x00]);
        pos += 16;
    }
}

fn write_got(link: &Link, buf: &mut [u8]) {
    let exec = !link.opts.is_shared();
    for &(kind, t, off) in &link.got_entries {
        let off = off as usize;
        let preemptible = link.is_preemptible(t);
        match kind {
            GotKind::Regular => {
                if !preemptible {
                    put_u64(buf, off, link.target_address(t));
                }
            }
            GotKind::TlsIe => {
                if exec && !preemptible {
                    put_u64(buf, off, link.tls.tp_offset(link.target_address(t)) as u64);
                }
            }
            GotKind::TlsGd => {
                if !preemptible {
                    put_u64(
                        buf,
                        off + 8,
                        link.target_address(t).wrapping_sub(link.tls.start),
                    );
                }
            }
            GotKind::TlsLd | GotKind::TlsDesc => {}
        }
    }
}

fn write_dynsym(link: &Link, dynamic: &DynamicTables, buf: &mut [u8]) {
    for (i, &id) in dynamic.symbols.iter().enumerate() {
        let sym = link.symtab.get(id);
        let e = &mut buf[24 * (i + 1)..24 * (i + 2)];
        let name = dynamic.string_offset(crate::symbols::base_name(sym.name));
        let mut sym_type = sym.sym_type;
        let mut shndx = 0u16;
        let mut value = 0u64;
        let mut size = sym.size;
        if link.canonical_plt.contains(&id) && !link.copy_offsets.contains_key(&id) {
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
            let local_ifunc = link.iplt_index.contains_key(&Target::Global(id));
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
            value = value.wrapping_sub(link.tls.start);
        }
        let weak = if sym.is_defined_locally() {
            sym.weak
        } else {
            !sym.has_strong_ref
        };
        let bind = if weak { STB_WEAK } else { STB_GLOBAL };
        put_u32(e, 0, name);
        e[4] = (bind << 4) | (sym_type & 0xf);
        e[5] = sym.visibility & 3;
        e[6..8].copy_from_slice(&shndx.to_le_bytes());
        put_u64(e, 8, value);
        put_u64(e, 16, size);
    }
}

/// Builds .eh_frame_hdr from the final .eh_frame bytes: a table of (function start, FDE)
/// sorted by function start, for the unwinder's binary search.
pub fn write_eh_frame_hdr(hdr: &mut [u8], hdr_addr: u64, eh_frame: &[u8], eh_addr: u64) {
    let mut table: Vec<(i64, i64)> = Vec::new();
    let mut cie_encodings: FxHashMap<usize, u8> = FxHashMap::default();
    let mut pos = 0usize;
    while pos + 8 <= eh_frame.len() {
        let len = u32::from_le_bytes(eh_frame[pos..pos + 4].try_into().unwrap()) as usize;
        if len == 0 {
            // A terminator (crtend.o's); keep looking in case more records follow.
            pos += 4;
            continue;
        }
        if len == 0xffff_ffff || pos + 4 + len > eh_frame.len() {
            break;
        }
        let id = u32::from_le_bytes(eh_frame[pos + 4..pos + 8].try_into().unwrap()) as usize;
        if id == 0 {
            cie_encodings.insert(pos, fde_pointer_encoding(&eh_frame[pos..pos + 4 + len]));
        } else if let Some(cie) = (pos + 4).checked_sub(id) {
            let enc = cie_encodings.get(&cie).copied().unwrap_or(0x1b);
            let field = pos + 8;
            let field_addr = eh_addr as i64 + field as i64;
            if let Some(pc) = read_encoded(&eh_frame[field..], enc, field_addr) {
                table.push((
                    pc - hdr_addr as i64,
                    eh_addr as i64 + pos as i64 - hdr_addr as i64,
                ));
            }
        }
        pos += 4 + len;
    }
    table.sort_by_key(|e| e.0);
    hdr[0] = 1;
    hdr[1] = 0x1b; // eh_frame_ptr: pcrel | sdata4
    hdr[2] = 0x03; // fde_count: udata4
    hdr[3] = 0x3b; // table: datarel | sdata4
    put_u32(hdr, 4, (eh_addr as i64 - (hdr_addr as i64 + 4)) as u32);
    // The size was reserved for every FDE kept; the table is never longer than that.
    let capacity = (hdr.len() - 12) / 8;
    let n = table.len().min(capacity);
    put_u32(hdr, 8, n as u32);
    for (i, (pc, fde)) in table.iter().take(n).enumerate() {
        put_u32(hdr, 12 + 8 * i, *pc as u32);
        put_u32(hdr, 16 + 8 * i, *fde as u32);
    }
}

/// The FDE pointer encoding from a CIE's augmentation ('R'); DWARF's default is absptr.
fn fde_pointer_encoding(cie: &[u8]) -> u8 {
    let aug_start = 9;
    if cie.len() <= aug_start {
        return 0;
    }
    let Some(aug_len) = cie[aug_start..].iter().position(|&b| b == 0) else {
        return 0;
    };
    let aug = &cie[aug_start..aug_start + aug_len];
    let mut p = aug_start + aug_len + 1;
    let skip_uleb = |p: &mut usize| {
        while *p < cie.len() && cie[*p] & 0x80 != 0 {
            *p += 1;
        }
        *p += 1;
    };
    skip_uleb(&mut p); // code alignment
    skip_uleb(&mut p); // data alignment (sleb has the same shape)
    skip_uleb(&mut p); // return address register (uleb in version 3)
    if aug.first() != Some(&b'z') {
        return 0;
    }
    skip_uleb(&mut p); // augmentation data length
    for &c in &aug[1..] {
        match c {
            b'R' => return cie.get(p).copied().unwrap_or(0),
            b'P' => {
                let enc = cie.get(p).copied().unwrap_or(0);
                p += 1 + encoded_size(enc);
            }
            b'L' => p += 1,
            _ => {}
        }
    }
    0
}

fn encoded_size(enc: u8) -> usize {
    match enc & 0x0f {
        0x00 => 8,
        0x02 | 0x0a => 2,
        0x03 | 0x0b => 4,
        0x04 | 0x0c => 8,
        _ => 4,
    }
}

fn read_encoded(data: &[u8], enc: u8, field_addr: i64) -> Option<i64> {
    let raw: i64 = match enc & 0x0f {
        0x00 | 0x04 | 0x0c => i64::from_le_bytes(data.get(..8)?.try_into().ok()?),
        0x03 => i64::from(u32::from_le_bytes(data.get(..4)?.try_into().ok()?)),
        0x0b => i64::from(i32::from_le_bytes(data.get(..4)?.try_into().ok()?)),
        0x02 => i64::from(u16::from_le_bytes(data.get(..2)?.try_into().ok()?)),
        0x0a => i64::from(i16::from_le_bytes(data.get(..2)?.try_into().ok()?)),
        _ => return None,
    };
    match enc & 0x70 {
        0x00 => Some(raw),
        0x10 => Some(field_addr + raw),
        _ => None,
    }
}
