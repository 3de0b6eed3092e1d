//! Applying relocations: copies each input section into the output image and patches it,
//! including the instruction rewrites of GOT and TLS relaxation (x86-64 psABI, "Linker
//! Optimizations"). What to do at each relocation of an allocated section was decided by
//! the scan (`reloc_action`); this module carries it out.

use crate::context::{GotKind, Target};
use crate::image::Image;
use crate::object_file::{shndx, FileId, InputSection, SectionKind, LE};
use crate::output_section::Synthetic;
use crate::reloc_action::Action;
use crate::scan::{reloc_name, RelocPlan};
use object::elf::*;
use object::read::elf::Rela as _;
use object::read::elf::Sym as _;

/// Value written where a relocation of a non-allocated section (debug info) refers into a
/// dropped section: the last `-z dead-reloc-in-nonalloc=GLOB=VALUE` naming the section;
/// else 0, except where 0 means something (range and location lists end at 0), there 1
/// (as lld does).
fn tombstone(opts: &crate::options::Options, section_name: &str) -> u64 {
    let asked = opts.dead_reloc_in_nonalloc.iter().rev().find(|(glob, _)| {
        crate::dynamic_list::glob_match(glob.as_bytes(), section_name.as_bytes())
    });
    if let Some(&(_, value)) = asked {
        value
    } else if section_name == ".debug_ranges" || section_name == ".debug_loc" {
        1
    } else {
        0
    }
}

struct Patch<'a> {
    link: &'a Image<'a, 'a>,
    file: FileId,
    sec: &'a InputSection,
    buf: &'a mut [u8],
    /// For a split section: which places in the output section `buf` holds (from its
    /// start).
    window: std::ops::Range<u64>,
    errors: Vec<String>,
}

impl Patch<'_> {
    fn err(&mut self, offset: u64, msg: String) {
        if self.errors.len() < 20 {
            self.errors.push(format!(
                "{}:({}+{:#x}): {msg}",
                self.link.objects[self.file as usize].name,
                self.sec.name(),
                offset
            ));
        }
    }

    fn write(&mut self, offset: usize, bytes: &[u8]) -> bool {
        match self.buf.get_mut(offset..offset + bytes.len()) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                true
            }
            None => {
                self.err(
                    offset as u64,
                    "relocation extends past the end of its section".into(),
                );
                false
            }
        }
    }

    fn byte(&self, offset: isize) -> u8 {
        usize::try_from(offset)
            .ok()
            .and_then(|o| self.buf.get(o))
            .copied()
            .unwrap_or(0)
    }

    fn write_sized(
        &mut self,
        offset: u64,
        r_type: u32,
        value: i64,
        size: usize,
        signed: bool,
        t: Target,
    ) {
        let bits = size * 8;
        let ok = if size == 8 {
            true
        } else if signed {
            let min = -(1i64 << (bits - 1));
            let max = (1i64 << (bits - 1)) - 1;
            value >= min && value <= max
        } else {
            // Unsigned fields also accept small negative values written as two's complement
            // only for the 64-bit case; 32-bit absolute fields must be in [0, 2^32).
            value >= 0 && value < (1i64 << bits)
        };
        if !ok {
            let name = self.link.target_name(t);
            self.err(
                offset,
                format!("relocation {} out of range: {value} does not fit in {bits} bits; references {name}", reloc_name(r_type)),
            );
            return;
        }
        let bytes = value.to_le_bytes();
        self.write(offset as usize, &bytes[..size]);
    }
}

/// Writes one input section (already positioned) into `buf`, its slice of the output, and
/// applies its relocations. `base` is the address of `buf[0]` (0 for non-allocated sections).
pub fn relocate_section(
    link: &Image,
    plan: &RelocPlan,
    file: FileId,
    sec_index: u32,
    buf: &mut [u8],
    base: u64,
) -> Vec<String> {
    let sec = &link.objects[file as usize].sections[sec_index as usize];
    if sec.sh_type != SHT_NOBITS {
        buf.copy_from_slice(sec.data());
        if !plan.patches.is_empty() {
            plan.patches.apply(file, sec_index, buf);
        }
    }
    let mut p = Patch {
        link,
        file,
        sec,
        buf,
        window: 0..u64::MAX,
        errors: Vec::new(),
    };
    if sec.is_alloc() {
        apply_alloc_relocs(&mut p, plan, sec_index, base);
    } else {
        apply_nonalloc_relocs(&mut p);
    }
    p.errors
}

/// Applies the relocations of a split section (`.eh_frame`) whose kept pieces with places
/// (offsets in the output section) in `window` are already in `buf`, which starts at the
/// window's start, at address `base`; relocations of other pieces are skipped.
pub fn relocate_split_section(
    link: &Image,
    plan: &RelocPlan,
    file: FileId,
    sec_index: u32,
    buf: &mut [u8],
    base: u64,
    window: std::ops::Range<u64>,
) -> Vec<String> {
    let sec = &link.objects[file as usize].sections[sec_index as usize];
    let mut p = Patch {
        link,
        file,
        sec,
        buf,
        window,
        errors: Vec::new(),
    };
    apply_alloc_relocs(&mut p, plan, sec_index, base);
    p.errors
}

fn apply_nonalloc_relocs(p: &mut Patch) {
    let link = p.link;
    for r in p.sec.relocs() {
        let r_type = r.r_type(LE, false);
        let offset = r.r_offset(LE);
        let t = link.target(p.file, r.r_sym(LE, false) as usize);
        let a = r.r_addend(LE);
        let live = target_is_live(link, t);
        let value = if !live {
            tombstone(link.opts, p.sec.name()) as i64
        } else {
            let s = link.target_address(t) as i64;
            match r_type {
                R_X86_64_DTPOFF32 | R_X86_64_DTPOFF64 => s
                    .wrapping_sub(link.segments.tls.start as i64)
                    .wrapping_add(a),
                _ => link.address_with_addend(t, a),
            }
        };
        match r_type {
            R_X86_64_NONE => {}
            R_X86_64_64 | R_X86_64_DTPOFF64 => p.write_sized(offset, r_type, value, 8, false, t),
            R_X86_64_32 | R_X86_64_DTPOFF32 => {
                p.write(offset as usize, &(value as u32).to_le_bytes());
            }
            R_X86_64_32S => p.write_sized(offset, r_type, value, 4, true, t),
            R_X86_64_PC32 | R_X86_64_PC64 | R_X86_64_SIZE32 | R_X86_64_SIZE64 => {
                // Non-allocated sections have no address; PC-relative references into them
                // (rare, e.g. .debug_frame CIE pointers are section-relative 32s) get S + A.
                let size = if matches!(r_type, R_X86_64_PC64 | R_X86_64_SIZE64) {
                    8
                } else {
                    4
                };
                let bytes = value.to_le_bytes();
                p.write(offset as usize, &bytes[..size]);
            }
            other => p.err(
                offset,
                format!(
                    "unsupported relocation {} in a non-allocated section",
                    reloc_name(other)
                ),
            ),
        }
    }
}

/// Whether a relocation target's definition is in the output (debug info of dropped code
/// must not point at whatever took its place).
pub(crate) fn target_is_live(link: &Image, t: Target) -> bool {
    match t {
        Target::Local(f, i) => {
            let obj = &link.objects[f as usize];
            let section = obj.symbol_section(i as usize);
            if !shndx::is_section(section) {
                return true;
            }
            let s = &obj.sections[section as usize];
            (s.is_kept() && s.output != crate::object_file::NO_OUTPUT)
                || link.folded_into.contains_key(&(f, section))
        }
        Target::Global(id) => match link.symtab.get(id).def {
            crate::symbols::SymbolDef::Defined { file, section, .. } => {
                if !shndx::is_section(section) {
                    return true;
                }
                let s = &link.objects[file as usize].sections[section as usize];
                s.is_kept() && s.output != crate::object_file::NO_OUTPUT
            }
            _ => true,
        },
    }
}

fn apply_alloc_relocs(p: &mut Patch, plan: &RelocPlan, sec_index: u32, base: u64) {
    let link = p.link;
    let got_base = link.synthetic_addr(Synthetic::GotPlt) as i64;
    let is_eh = p.sec.kind == SectionKind::EhFrame;
    let actions = plan.actions(p.file, sec_index);
    let mut redirects = plan.redirects.of_section(p.file, sec_index);
    for (i, (r, &action)) in p.sec.relocs().iter().zip(actions).enumerate() {
        // Redirected (`--branch-to-branch`, a split-stack `__morestack` call): the
        // relocation now refers elsewhere.
        let (t, a, action) = match redirects.at(i) {
            Some(now) => (now.target, now.addend, now.action),
            None if action == Action::Skip => continue,
            None => (
                link.target(p.file, r.r_sym(LE, false) as usize),
                r.r_addend(LE),
                action,
            ),
        };
        let r_type = r.r_type(LE, false);
        let in_offset = r.r_offset(LE);
        // In split sections, relocations move with their piece (or vanish with it).
        let offset = if is_eh {
            match p.sec.piece_output_offset(in_offset) {
                Some(o) if p.window.contains(&o) => o - p.window.start,
                _ => continue,
            }
        } else {
            in_offset
        };
        let place = (base + offset) as i64;
        // S, and S + A with merged-section pieces located correctly.
        let (s, sa) = link.address_and_sum(t, a);
        // An undefined (weak) thread-local symbol's offset is the addend alone (lld's).
        let tp = || match t {
            Target::Global(id) if link.symtab.get(id).is_undefined() => a,
            _ => link.segments.tls.tp_offset(s as u64).wrapping_add(a),
        };
        let mut field = |value: i64, size: usize, signed: bool| {
            p.write_sized(offset, r_type, value, size, signed, t)
        };
        match action {
            Action::Skip => {}
            Action::Abs64 => field(sa, 8, false),
            Action::Abs32 => field(sa, 4, false),
            Action::Abs32S => field(sa, 4, true),
            Action::Abs16 => field(sa, 2, false),
            Action::Abs8 => field(sa, 1, false),
            Action::Addend64 => field(a, 8, false),
            Action::Pc64 => field(sa.wrapping_sub(place), 8, true),
            Action::Pc32 => field(sa.wrapping_sub(place), 4, true),
            Action::Pc16 => field(sa.wrapping_sub(place), 2, true),
            Action::Pc8 => field(sa.wrapping_sub(place), 1, true),
            Action::PltPc32 => {
                let dest = plt_entry(link, t, s);
                field(dest.wrapping_add(a).wrapping_sub(place), 4, true)
            }
            Action::PltGotOff64 => {
                let dest = plt_entry(link, t, s);
                field(dest.wrapping_add(a).wrapping_sub(got_base), 8, true)
            }
            Action::GotOff64 => field(sa.wrapping_sub(got_base), 8, true),
            Action::GotBasePc32 => field(got_base.wrapping_add(a).wrapping_sub(place), 4, true),
            Action::GotBasePc64 => field(got_base.wrapping_add(a).wrapping_sub(place), 8, true),
            Action::GotPc32 | Action::GotPc64 | Action::Got32 | Action::Got64 => {
                let got = got_entry(p, offset, GotKind::Regular, t);
                let (value, size) = match action {
                    Action::GotPc32 => (got.wrapping_add(a).wrapping_sub(place), 4),
                    Action::GotPc64 => (got.wrapping_add(a).wrapping_sub(place), 8),
                    Action::Got32 => (got.wrapping_sub(got_base).wrapping_add(a), 4),
                    _ => (got.wrapping_sub(got_base).wrapping_add(a), 8),
                };
                p.write_sized(offset, r_type, value, size, true, t);
            }
            Action::RelaxMov
            | Action::RelaxCall
            | Action::RelaxJmp
            | Action::RelaxMovOrGot
            | Action::RelaxCallOrGot
            | Action::RelaxJmpOrGot => {
                let fallback = matches!(
                    action,
                    Action::RelaxMovOrGot | Action::RelaxCallOrGot | Action::RelaxJmpOrGot
                );
                // The jmp form moves the field one byte earlier.
                let reaches = i32::try_from(sa.wrapping_sub(place)).is_ok()
                    && i32::try_from(sa.wrapping_sub(place).wrapping_add(1)).is_ok();
                if fallback && !reaches {
                    // The GOT entry scanning kept for this case (GNU ld's "failed to
                    // convert GOTPCREL relocation" and lld-14's "out of range" avoided).
                    load_from_got(p, offset, r_type, a, place, t);
                } else {
                    relax_got_load(p, action, offset, sa.wrapping_sub(place), t);
                }
            }
            Action::RelaxImm | Action::RelaxImmOrGot => {
                // The slot held S; the instruction read it at addend -4, the only one
                // relaxed.
                let address = sa.wrapping_sub(a);
                if action == Action::RelaxImmOrGot && i32::try_from(address).is_err() {
                    load_from_got(p, offset, r_type, a, place, t);
                } else {
                    relax_to_immediate(p, offset, address, t);
                }
            }
            Action::TpOff32 => field(tp(), 4, true),
            Action::TpOff64 => field(tp(), 8, true),
            Action::DtpOff32 => field(
                s.wrapping_sub(link.segments.tls.start as i64)
                    .wrapping_add(a),
                4,
                true,
            ),
            Action::DtpOff64 => field(
                s.wrapping_sub(link.segments.tls.start as i64)
                    .wrapping_add(a),
                8,
                true,
            ),
            Action::Size32 | Action::Size64 => {
                let size = match t {
                    Target::Global(id) => link.symtab.get(id).size as i64,
                    Target::Local(f, idx) => {
                        link.objects[f as usize].symbols[idx as usize].st_size(LE) as i64
                    }
                };
                let width = if action == Action::Size32 { 4 } else { 8 };
                field(size.wrapping_add(a), width, true)
            }
            Action::IeToLe => relax_ie_to_le(p, offset, tp().wrapping_add(4), t),
            Action::IeGot | Action::GdGot | Action::LdGot | Action::DescGot => {
                let (kind, target) = match action {
                    Action::IeGot => (GotKind::TlsIe, t),
                    Action::GdGot => (GotKind::TlsGd, t),
                    Action::LdGot => (GotKind::TlsLd, Target::Local(0, 0)),
                    _ => (GotKind::TlsDesc, t),
                };
                let got = got_entry(p, offset, kind, target);
                p.write_sized(
                    offset,
                    r_type,
                    got.wrapping_add(a).wrapping_sub(place),
                    4,
                    true,
                    t,
                );
            }
            Action::GdToIe => {
                let got = got_entry(p, offset, GotKind::TlsIe, t);
                let value = got.wrapping_add(a).wrapping_sub(place).wrapping_sub(8);
                relax_gd(p, offset, true, value, t);
            }
            Action::GdToLe => relax_gd(p, offset, false, tp().wrapping_add(4), t),
            Action::LdToLe => relax_ld_to_le(p, offset),
            Action::DescToLe | Action::DescToIe => {
                let value = if action == Action::DescToLe {
                    tp().wrapping_add(4)
                } else {
                    let got = got_entry(p, offset, GotKind::TlsIe, t);
                    got.wrapping_add(a).wrapping_sub(place)
                };
                relax_tls_desc(p, action == Action::DescToLe, offset, value, t);
            }
            Action::DescCallNop => {
                // call *x@tlscall(%rax)  ->  xchg %ax, %ax
                p.write(offset as usize, &[0x66, 0x90]);
            }
        }
    }
}

/// Leaves a GOTPCRELX instruction reading the target's GOT slot (G + A - P), where the
/// relaxed form would not reach.
fn load_from_got(p: &mut Patch, offset: u64, r_type: u32, a: i64, place: i64, t: Target) {
    let got = got_entry(p, offset, GotKind::Regular, t);
    p.write_sized(
        offset,
        r_type,
        got.wrapping_add(a).wrapping_sub(place),
        4,
        true,
        t,
    );
}

/// Rewrites a GOTPCRELX load or call into a direct reference; `disp` is S + A - P.
fn relax_got_load(p: &mut Patch, action: Action, offset: u64, disp: i64, t: Target) {
    let o = offset as usize;
    // The scan recognized the instruction, so its bytes are there.
    let Some(opcode) = o.checked_sub(2).and_then(|start| p.buf.get_mut(start..o)) else {
        p.err(offset, "GOTPCRELX at the start of a section".into());
        return;
    };
    match action {
        Action::RelaxMov | Action::RelaxMovOrGot => {
            // mov foo@GOTPCREL(%rip), %reg  ->  lea foo(%rip), %reg
            opcode[0] = 0x8d;
            p.write_sized(offset, R_X86_64_GOTPCRELX, disp, 4, true, t);
        }
        Action::RelaxCall | Action::RelaxCallOrGot => {
            // call *foo@GOTPCREL(%rip)  ->  addr32 call foo
            opcode.copy_from_slice(&[0x67, 0xe8]);
            p.write_sized(offset, R_X86_64_GOTPCRELX, disp, 4, true, t);
        }
        _ => {
            // jmp *foo@GOTPCREL(%rip)  ->  jmp foo; nop
            opcode[0] = 0xe9;
            if p.write(o + 3, &[0x90]) {
                p.write_sized(
                    offset - 1,
                    R_X86_64_GOTPCRELX,
                    disp.wrapping_add(1),
                    4,
                    true,
                    t,
                );
            }
        }
    }
}

/// Rewrites `test %reg, foo@GOTPCREL(%rip)` to `test $foo, %reg` and a binary operation
/// `op foo@GOTPCREL(%rip), %reg` to `op $foo, %reg`: the register moves from ModRM.reg to
/// ModRM.rm (and REX.R to REX.B), and the binary operations become opcode 81 with the
/// operation in ModRM.reg.
fn relax_to_immediate(p: &mut Patch, offset: u64, address: i64, t: Target) {
    let o = offset as usize;
    // The scan recognized the instruction, REX prefix included, so its bytes are there.
    let Some(insn) = o.checked_sub(3).and_then(|start| p.buf.get_mut(start..o)) else {
        p.err(offset, "REX_GOTPCRELX at the start of a section".into());
        return;
    };
    let [rex, op, modrm] = [insn[0], insn[1], insn[2]];
    let reg = (modrm >> 3) & 7;
    let (opcode, ext) = if op == 0x85 {
        (0xf7, 0)
    } else {
        (0x81, op & 0x38)
    };
    insn.copy_from_slice(&[(rex & !0x4) | ((rex & 0x4) >> 2), opcode, 0xc0 | ext | reg]);
    p.write_sized(offset, R_X86_64_REX_GOTPCRELX, address, 4, true, t);
}

/// A TLS descriptor sequence in an executable: `lea x@tlsdesc(%rip), %reg` becomes
/// `mov $x@tpoff, %reg` (to local exec) or `mov x@gottpoff(%rip), %reg` (to initial exec).
fn relax_tls_desc(p: &mut Patch, to_le: bool, offset: u64, value: i64, t: Target) {
    let o = offset as usize;
    let off = offset as isize;
    if o < 3 {
        p.err(
            offset,
            "R_X86_64_GOTPC32_TLSDESC at the start of a section".into(),
        );
        return;
    }
    if to_le {
        let (b3, b1) = (p.byte(off - 3), p.byte(off - 1));
        if (b3 & 0xfb) != 0x48 || p.byte(off - 2) != 0x8d || (b1 & 0xc7) != 0x05 {
            p.err(
                offset,
                "R_X86_64_GOTPC32_TLSDESC must be used in leaq x@tlsdesc(%rip), %REG".into(),
            );
            return;
        }
        p.buf[o - 3] = 0x48 | ((b3 >> 2) & 1);
        p.buf[o - 2] = 0xc7;
        p.buf[o - 1] = 0xc0 | ((b1 >> 3) & 7);
    } else {
        p.buf[o - 2] = 0x8b;
    }
    p.write_sized(offset, R_X86_64_GOTPC32_TLSDESC, value, 4, true, t);
}

/// A preemptible function's PLT entry (the scan made one for every call through the PLT).
fn plt_entry(link: &Image, t: Target, s: i64) -> i64 {
    match t {
        Target::Global(id) => link
            .tables
            .plt
            .lazy_index
            .get(&id)
            .map_or(s, |&i| link.plt_entry_address(i) as i64),
        Target::Local(..) => s,
    }
}

fn got_entry(p: &mut Patch, offset: u64, kind: GotKind, t: Target) -> i64 {
    match p.link.got_address(kind, t) {
        Some(a) => a as i64,
        None => {
            let name = p.link.target_name(t);
            p.err(offset, format!("internal error: no GOT entry for {name}"));
            0
        }
    }
}

/// Initial-exec to local-exec: the GOT load of the TP offset becomes an immediate.
fn relax_ie_to_le(p: &mut Patch, offset: u64, value: i64, t: Target) {
    let o = offset as usize;
    if o < 3 {
        p.err(offset, "R_X86_64_GOTTPOFF at the start of a section".into());
        return;
    }
    let (rex, op, modrm) = (p.buf[o - 3], p.buf[o - 2], p.buf[o - 1]);
    let reg = (modrm >> 3) & 7;
    match (rex, op) {
        // addq foo@gottpoff(%rip), %rsp / %r12  ->  addq $foo, %rsp / %r12
        (0x48, 0x03) if reg == 4 => {
            p.buf[o - 3..o].copy_from_slice(&[0x48, 0x81, 0xc4]);
        }
        (0x4c, 0x03) if reg == 4 => {
            p.buf[o - 3..o].copy_from_slice(&[0x49, 0x81, 0xc4]);
        }
        // addq foo@gottpoff(%rip), %reg  ->  leaq foo(%reg), %reg
        (0x4c, 0x03) => {
            p.buf[o - 3..o].copy_from_slice(&[0x4d, 0x8d, 0x80 | (reg << 3) | reg]);
        }
        (0x48, 0x03) => {
            p.buf[o - 3..o].copy_from_slice(&[0x48, 0x8d, 0x80 | (reg << 3) | reg]);
        }
        // movq foo@gottpoff(%rip), %reg  ->  movq $foo, %reg
        (0x4c, 0x8b) => {
            p.buf[o - 3..o].copy_from_slice(&[0x49, 0xc7, 0xc0 | reg]);
        }
        (0x48, 0x8b) => {
            p.buf[o - 3..o].copy_from_slice(&[0x48, 0xc7, 0xc0 | reg]);
        }
        _ => {
            p.err(
                offset,
                "R_X86_64_GOTTPOFF must be used in MOVQ or ADDQ instructions only".into(),
            );
            return;
        }
    }
    p.write_sized(offset, R_X86_64_TPOFF32, value, 4, true, t);
}

/// General-dynamic in an executable: the `__tls_get_addr` call sequence becomes a load of
/// the thread pointer plus either a constant (to LE) or a GOT load (to IE).
fn relax_gd(p: &mut Patch, offset: u64, to_ie: bool, value: i64, t: Target) {
    let o = offset as usize;
    // .byte 0x66; leaq x@tlsgd(%rip), %rdi; .word 0x6666; rex64; call __tls_get_addr
    let standard = o >= 4
        && p.buf.get(o - 4..o) == Some(&[0x66, 0x48, 0x8d, 0x3d])
        && p.buf.get(o + 4..o + 8) == Some(&[0x66, 0x66, 0x48, 0xe8]);
    // .byte 0x66; leaq x@tlsgd(%rip), %rdi; .byte 0x66; rex64; call *__tls_get_addr@GOTPCREL(%rip)
    // (-fno-plt): the same 16 bytes, rewritten the same way.
    let no_plt_prefixed = o >= 4
        && p.buf.get(o - 4..o) == Some(&[0x66, 0x48, 0x8d, 0x3d])
        && p.buf.get(o + 4..o + 8) == Some(&[0x66, 0x48, 0xff, 0x15]);
    let standard = standard || no_plt_prefixed;
    // leaq x@tlsgd(%rip), %rdi; call *__tls_get_addr@GOTPCREL(%rip) without prefixes: 15 bytes.
    let no_plt = o >= 3
        && p.buf.get(o - 3..o) == Some(&[0x48, 0x8d, 0x3d])
        && p.buf.get(o + 4..o + 6) == Some(&[0xff, 0x15]);
    let fs_load = [0x64, 0x48, 0x8b, 0x04, 0x25, 0x00, 0x00, 0x00, 0x00];
    let tail: [u8; 3] = if to_ie {
        [0x48, 0x03, 0x05]
    } else {
        [0x48, 0x8d, 0x80]
    };
    if large_model_call(p.buf, o) {
        // The large code model's 22 bytes (as GNU ld rewrites them): the same two
        // instructions, then a 6-byte NOP. The displacement ends one byte later than in the
        // 16-byte form, which an IE (PC-relative) value accounts for.
        let value = if to_ie { value.wrapping_sub(1) } else { value };
        let start = o - 3;
        p.buf[start..start + 9].copy_from_slice(&fs_load);
        p.buf[start + 9..start + 12].copy_from_slice(&tail);
        p.buf[start + 16..start + 22].copy_from_slice(&[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00]);
        p.write_sized((start + 12) as u64, R_X86_64_TLSGD, value, 4, true, t);
        return;
    }
    let start = if standard {
        o - 4
    } else if no_plt {
        o - 3
    } else {
        p.err(
            offset,
            "unexpected instruction sequence for R_X86_64_TLSGD".into(),
        );
        return;
    };
    if start + 16 > p.buf.len() {
        p.err(
            offset,
            "R_X86_64_TLSGD sequence runs past its section".into(),
        );
        return;
    }
    let mut seq = Vec::with_capacity(16);
    seq.extend_from_slice(&fs_load);
    seq.extend_from_slice(&tail);
    seq.extend_from_slice(&[0, 0, 0, 0]);
    if no_plt {
        // lld rewrites this 15-byte form too; rld does not yet.
        p.err(
            offset,
            "the -fno-plt form of R_X86_64_TLSGD is not supported yet".into(),
        );
        return;
    }
    p.buf[start..start + 16].copy_from_slice(&seq);
    // The displacement moved 8 bytes later; IE values are PC-relative, so they shrink by 8
    // (already applied by the caller).
    let disp_off = (start + 12) as u64;
    p.write_sized(disp_off, R_X86_64_TLSGD, value, 4, true, t);
}

/// Whether the TLSGD/TLSLD relocation at `o` starts the large code model's call of
/// `__tls_get_addr` (x86-64 psABI): `leaq x@tlsgd(%rip), %rdi` (its displacement at `o`),
/// `movabsq $__tls_get_addr@pltoff, %rax`, `addq %GOT, %rax`, `call *%rax`: 22 bytes.
fn large_model_call(buf: &[u8], o: usize) -> bool {
    o >= 3
        && buf.get(o - 3..o) == Some(&[0x48, 0x8d, 0x3d])
        && buf.get(o + 4..o + 6) == Some(&[0x48, 0xb8])
        && buf.get(o + 14..o + 19).is_some_and(|b| {
            matches!(b[0], 0x48 | 0x4c)
                && b[1] == 0x01
                && b[2] & 0xc7 == 0xc0
                && b[3..] == [0xff, 0xd0]
        })
}

/// Local-dynamic in an executable: the module-base call becomes a load of the thread
/// pointer; DTPOFF relocations then resolve to TP offsets.
fn relax_ld_to_le(p: &mut Patch, offset: u64) {
    let o = offset as usize;
    let fs_load = [
        0x66, 0x66, 0x66, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x00, 0x00, 0x00, 0x00,
    ];
    if o < 3 || o + 10 > p.buf.len() {
        p.err(
            offset,
            "R_X86_64_TLSLD sequence runs past its section".into(),
        );
        return;
    }
    if large_model_call(p.buf, o) {
        // The large code model's 22 bytes: a 13-byte NOP, then the thread pointer load
        // (GNU ld's rewrite).
        const NOP13: [u8; 13] = [
            0x66, 0x66, 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
        ];
        p.buf[o - 3..o + 10].copy_from_slice(&NOP13);
        p.buf[o + 10..o + 19].copy_from_slice(&fs_load[3..]);
    } else if p.buf.get(o + 4) == Some(&0xe8) {
        // leaq x@tlsld(%rip), %rdi; call __tls_get_addr@PLT
        p.buf[o - 3..o + 9].copy_from_slice(&fs_load);
    } else if p.buf.get(o + 4..o + 6) == Some(&[0xff, 0x15]) {
        // leaq x@tlsld(%rip), %rdi; call *__tls_get_addr@GOTPCREL(%rip)
        p.buf[o - 3] = 0x66;
        p.buf[o - 2..o + 10].copy_from_slice(&fs_load);
    } else {
        p.err(
            offset,
            "unexpected instruction sequence for R_X86_64_TLSLD".into(),
        );
    }
}
