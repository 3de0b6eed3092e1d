//! Relocation scanning: decides, for every relocation in a live section, what the output
//! needs for it — a GOT entry, a PLT entry, a copy relocation, a dynamic relocation, or
//! nothing because it can be resolved (or relaxed) at link time — and reports undefined
//! symbols. The decisions here and in `relocate.rs` must agree; both use the predicates at
//! the bottom of this file.

use crate::context::{DynAddend, DynReloc, GotKind, Link, Place, Target};
use crate::object_file::{FileId, LE};
use crate::symbols::SymbolDef;
use object::elf::*;
use object::read::elf::Rela as _;
use std::collections::HashMap;

/// Decides which symbols are dynamic, exported and preemptible (lld's computeIsPreemptible).
pub fn compute_preemption(link: &mut Link) {
    compute_preemption_in(
        &mut link.symtab,
        link.opts,
        link.is_dynamic,
        &link.dynamic_list,
    );
}

/// The same decisions on a bare symbol table (the LTO step needs them before the link has
/// objects to lay out).
pub fn compute_preemption_in(
    symtab: &mut crate::symbols::SymbolTable,
    opts: &crate::options::Options,
    is_dynamic: bool,
    dynamic_list: &crate::dynamic_list::DynamicList,
) {
    let shared = opts.is_shared();
    for sym in symtab.symbols.iter_mut() {
        // Decided afresh each time (the LTO step decides once before linker symbols exist).
        sym.in_dynsym = false;
        sym.exported = false;
        sym.preemptible = false;
        // Only the output's own references import a symbol; one library's use of another's
        // symbol is theirs to resolve.
        let referenced = sym.ref_file.is_some();
        let default_vis = sym.visibility == STV_DEFAULT;
        let exportable = matches!(sym.visibility, STV_DEFAULT | STV_PROTECTED);
        match sym.def {
            SymbolDef::Defined { .. }
            | SymbolDef::Common { .. }
            | SymbolDef::Bitcode { .. }
            | SymbolDef::Plugin { .. } => {
                let listed = !dynamic_list.is_empty() && dynamic_list.contains(sym.name);
                sym.exported = is_dynamic
                    && exportable
                    && (opts.export_dynamic || shared || sym.dso_ref || listed);
                sym.in_dynsym = sym.exported;
                let symbolic = opts.bsymbolic
                    || (opts.bsymbolic_functions
                        && matches!(sym.sym_type, STT_FUNC | STT_GNU_IFUNC));
                // With a dynamic list, a shared library's other symbols bind locally (lld).
                let interposable = dynamic_list.is_empty() || listed;
                sym.preemptible =
                    sym.in_dynsym && default_vis && shared && !symbolic && interposable;
            }
            SymbolDef::Synthetic => {}
            SymbolDef::Shared { .. } | SymbolDef::Undefined | SymbolDef::Lazy { .. } => {
                let undef_weak = sym.is_undef_weak();
                // glibc's static-pie start-up expects undefined weak symbols to resolve to 0
                // without a dynamic symbol, so they stay out of .dynsym there (as in lld).
                sym.in_dynsym = is_dynamic
                    && referenced
                    && default_vis
                    && !(opts.no_dynamic_linker && undef_weak);
                sym.preemptible = sym.in_dynsym;
            }
        }
    }
}

/// One relocation being scanned.
struct Site {
    file: FileId,
    sec: u32,
    offset: u64,
    r_type: u32,
    target: Target,
    addend: i64,
    writable: bool,
}

pub fn scan_relocations(link: &mut Link) {
    let mut undefined: HashMap<u32, Vec<String>> = HashMap::new();
    let warn_only = link.opts.warn_unresolved && !link.opts.fatal_warnings;
    for file in 0..link.objects.len() as FileId {
        for sec in 0..link.objects[file as usize].sections.len() as u32 {
            let s = &link.objects[file as usize].sections[sec as usize];
            if !s.is_kept() || !s.is_alloc() {
                continue;
            }
            let relocs = s.relocs;
            let writable = s.flags & u64::from(SHF_WRITE) != 0;
            let mut i = 0;
            while i < relocs.len() {
                let r = &relocs[i];
                i += 1;
                let r_type = r.r_type(LE, false);
                if r_type == R_X86_64_NONE {
                    continue;
                }
                let target = link.target(file, r.r_sym(LE, false) as usize);
                if let Target::Global(id) = target {
                    let sym = link.symtab.get(id);
                    // Only a default-visibility symbol can be left for the dynamic loader.
                    let allowed_undefined =
                        !link.opts.reports_undefined() && sym.visibility == STV_DEFAULT;
                    if sym.is_undefined() && !sym.is_undef_weak() && !allowed_undefined {
                        let refs = undefined.entry(id).or_default();
                        if refs.len() < 3 {
                            let at = link.objects[file as usize].location(sec, r.r_offset(LE));
                            refs.push(format!(">>> referenced by {at}"));
                        }
                        // A warning only: the reference is then left for the dynamic
                        // loader (or resolves to 0 without one), as if ignored.
                        if !warn_only {
                            continue;
                        }
                    }
                }
                let site = Site {
                    file,
                    sec,
                    offset: r.r_offset(LE),
                    r_type,
                    target,
                    addend: r.r_addend(LE),
                    writable,
                };
                if scan_one(link, &site) {
                    // GD/LD relaxed at link time: the call to __tls_get_addr that follows is
                    // rewritten with it, so its relocation must not create a PLT entry.
                    i += 1;
                }
            }
        }
    }
    let mut ids: Vec<_> = undefined.into_iter().collect();
    ids.sort_by_key(|(id, _)| *id);
    for (id, refs) in ids {
        let sym = link.symtab.get(id);
        let what = match sym.visibility {
            STV_HIDDEN | STV_INTERNAL => "undefined hidden symbol",
            STV_PROTECTED => "undefined protected symbol",
            _ => "undefined symbol",
        };
        let name = sym.display_name();
        let report = format!("{what}: {name}\n{}", refs.join("\n"));
        if warn_only && sym.visibility == STV_DEFAULT {
            for (i, line) in report.lines().enumerate() {
                if i == 0 {
                    eprintln!("rld: warning: {line}");
                } else {
                    eprintln!("{line}");
                }
            }
        } else {
            link.errors.push(report);
        }
    }
}

/// Handles one relocation; returns true when the next relocation belongs to a TLS sequence
/// relaxed together with this one.
fn scan_one(link: &mut Link, site: &Site) -> bool {
    let t = site.target;
    let exec = !link.opts.is_shared();
    let preemptible = link.is_preemptible(t);
    if link.is_local_ifunc(t) {
        add_iplt(link, t);
    }
    match site.r_type {
        R_X86_64_64 => absolute_reloc(link, site, true),
        R_X86_64_32 | R_X86_64_32S | R_X86_64_16 | R_X86_64_8 => absolute_reloc(link, site, false),
        R_X86_64_PC32 | R_X86_64_PC64 | R_X86_64_PC16 | R_X86_64_PC8 => {
            if preemptible {
                needs_local_definition(link, site);
            }
        }
        R_X86_64_PLT32 | R_X86_64_PLTOFF64 => {
            link.uses_got_base |= site.r_type == R_X86_64_PLTOFF64;
            if preemptible {
                add_plt(link, t);
            }
        }
        R_X86_64_GOTPCREL | R_X86_64_GOTPCRELX | R_X86_64_REX_GOTPCRELX => {
            let data = link.objects[site.file as usize].sections[site.sec as usize].data;
            // Whether the relaxed, direct reference reaches its target is known only after
            // layout; where it may not (an image near 2 GiB, an absolute target), the GOT
            // entry is made anyway so the writer can fall back to it.
            if !can_relax_gotpcrelx(link, site.r_type, t, data, site.offset)
                || link.large_image
                || link.is_absolute(t)
            {
                add_got_entry(link, t);
            }
        }
        R_X86_64_GOTPCREL64 | R_X86_64_GOT32 | R_X86_64_GOT64 => add_got_entry(link, t),
        // Relative to the GOT base (_GLOBAL_OFFSET_TABLE_): .got.plt must exist.
        R_X86_64_GOTPC32 | R_X86_64_GOTPC64 | R_X86_64_GOTOFF64 => link.uses_got_base = true,
        R_X86_64_TPOFF32 | R_X86_64_TPOFF64 => {
            if !exec {
                link.errors.push(format!(
                    "{}: relocation {} against {} cannot be used with -shared; recompile with -fPIC",
                    link.objects[site.file as usize].name,
                    reloc_name(site.r_type),
                    link.target_name(t)
                ));
            }
        }
        R_X86_64_GOTTPOFF => {
            let relaxed_to_le = exec && !preemptible;
            if !relaxed_to_le {
                add_tls_ie(link, t);
            }
        }
        R_X86_64_TLSGD => {
            if exec {
                if preemptible {
                    add_tls_ie(link, t);
                }
                return true;
            }
            if link.add_got(GotKind::TlsGd, t) {
                let off = link.got[&(GotKind::TlsGd, t)];
                push_dyn(
                    link,
                    Place::Got(off),
                    R_X86_64_DTPMOD64,
                    t,
                    DynAddend::Const(0),
                    true,
                );
                if preemptible {
                    push_dyn(
                        link,
                        Place::Got(off + 8),
                        R_X86_64_DTPOFF64,
                        t,
                        DynAddend::Const(0),
                        true,
                    );
                }
            }
        }
        R_X86_64_TLSLD => {
            if exec {
                return true;
            }
            let module = Target::Local(0, 0);
            if link.add_got(GotKind::TlsLd, module) {
                let off = link.got[&(GotKind::TlsLd, module)];
                push_dyn(
                    link,
                    Place::Got(off),
                    R_X86_64_DTPMOD64,
                    module,
                    DynAddend::Const(0),
                    false,
                );
            }
        }
        R_X86_64_GOTPC32_TLSDESC => {
            if exec {
                if preemptible {
                    add_tls_ie(link, t);
                }
            } else if link.add_got(GotKind::TlsDesc, t) {
                let off = link.got[&(GotKind::TlsDesc, t)];
                let addend = if preemptible {
                    DynAddend::Const(0)
                } else {
                    DynAddend::TlsOffset(t, 0)
                };
                push_dyn(
                    link,
                    Place::Got(off),
                    R_X86_64_TLSDESC,
                    t,
                    addend,
                    preemptible,
                );
            }
        }
        R_X86_64_TLSDESC_CALL
        | R_X86_64_DTPOFF32
        | R_X86_64_DTPOFF64
        | R_X86_64_SIZE32
        | R_X86_64_SIZE64 => {}
        other => link.errors.push(format!(
            "{}: unsupported relocation type {} ({}) in {}",
            link.objects[site.file as usize].name,
            reloc_name(other),
            other,
            link.objects[site.file as usize].sections[site.sec as usize].name
        )),
    }
    false
}

/// R_X86_64_64 and the 32/16/8-bit absolute relocations.
fn absolute_reloc(link: &mut Link, site: &Site, is_64: bool) {
    let t = site.target;
    let pic = link.opts.is_pic();
    let preemptible = link.is_preemptible(t);
    let can_write = site.writable || !link.opts.z_text;
    let place = Place::Section {
        file: site.file,
        sec: site.sec,
        offset: site.offset,
    };
    if preemptible {
        if is_64 && can_write {
            if !site.writable {
                link.needs_textrel = true;
            }
            push_dyn(
                link,
                place,
                R_X86_64_64,
                t,
                DynAddend::Const(site.addend),
                true,
            );
        } else {
            needs_local_definition(link, site);
        }
        return;
    }
    if !pic || link.is_absolute(t) {
        return;
    }
    if is_64 && can_write {
        if !site.writable {
            link.needs_textrel = true;
        }
        push_dyn(
            link,
            place,
            R_X86_64_RELATIVE,
            t,
            DynAddend::Address(t, site.addend),
            false,
        );
        return;
    }
    link.errors.push(if is_64 {
        format!(
            "{}: can't create dynamic relocation R_X86_64_64 against {} in readonly section {}; recompile with -fPIC or pass '-z notext'",
            link.objects[site.file as usize].name,
            link.target_name(t),
            link.objects[site.file as usize].sections[site.sec as usize].name
        )
    } else {
        format!(
            "{}: relocation {} against {} cannot be used when making a {}; recompile with -fPIC",
            link.objects[site.file as usize].name,
            reloc_name(site.r_type),
            link.target_name(t),
            if link.opts.is_shared() { "shared object" } else { "PIE object" }
        )
    });
}

/// A non-PIC reference to a symbol defined in a shared library: an executable gives the
/// symbol a home of its own — a copy relocation for data, a canonical PLT entry for
/// functions. A shared library cannot.
fn needs_local_definition(link: &mut Link, site: &Site) {
    let Target::Global(id) = site.target else {
        return;
    };
    let sym = link.symtab.get(id);
    // An undefined weak symbol in an executable is simply 0 (crtbegin.o's
    // `mov $_ITM_deregisterTMCloneTable, %eax`); no definition is needed.
    if !link.opts.is_shared() && sym.is_undef_weak() {
        return;
    }
    if link.opts.is_shared() || !matches!(sym.def, SymbolDef::Shared { .. }) {
        link.errors.push(format!(
            "{}: relocation {} against symbol `{}' can not be used when making a shared object; recompile with -fPIC",
            link.objects[site.file as usize].name,
            reloc_name(site.r_type),
            sym.display_name()
        ));
        return;
    }
    // A copy or a canonical PLT entry makes the executable's address the symbol's address
    // for everyone; a library that binds its protected symbol to itself would disagree.
    if let SymbolDef::Shared { dso, index } = sym.def {
        let dso = &link.dsos[dso as usize];
        if dso.symbols[index as usize].visibility == STV_PROTECTED {
            link.errors.push(format!(
                "cannot preempt symbol: {}\n>>> defined in {}\n>>> referenced by {}:({})",
                sym.display_name(),
                dso.name,
                link.objects[site.file as usize].name,
                link.objects[site.file as usize].sections[site.sec as usize].name
            ));
            return;
        }
    }
    if !matches!(sym.sym_type, STT_FUNC | STT_GNU_IFUNC) && !link.opts.z_copyreloc {
        let defined_in = match sym.def {
            SymbolDef::Shared { dso, .. } => link.dsos[dso as usize].name.as_str(),
            _ => "a shared library",
        };
        let obj = &link.objects[site.file as usize];
        link.errors.push(format!(
            "unresolvable relocation {} against symbol '{}'; recompile with -fPIC or remove \
             '-z nocopyreloc'\n>>> defined in {defined_in}\n>>> referenced by {}",
            reloc_name(site.r_type),
            sym.display_name(),
            obj.location(site.sec, site.offset)
        ));
        return;
    }
    if matches!(sym.sym_type, STT_FUNC | STT_GNU_IFUNC) {
        if !link.canonical_plt.contains(&id) {
            add_plt(link, site.target);
            link.canonical_plt.insert(id);
        }
    } else {
        add_copy_reloc(link, id);
    }
}

fn add_copy_reloc(link: &mut Link, id: u32) {
    if link.copy_offsets.contains_key(&id) {
        return;
    }
    let SymbolDef::Shared { dso, index } = link.symtab.get(id).def else {
        return;
    };
    let shared = &link.dsos[dso as usize].symbols[index as usize];
    let (value, size) = (shared.value, shared.size.max(1));
    // Keep the library's alignment of the variable, as far as its address shows it.
    let align = (1u64 << value.trailing_zeros().min(6)).max(8);
    let off = link.copy_size.next_multiple_of(align);
    link.copy_size = off + size;
    link.copy_align = link.copy_align.max(align);
    // Every alias of the variable in that library (environ, __environ, ...) moves with it.
    let aliases: Vec<u32> = link.dsos[dso as usize]
        .symbols
        .iter()
        .filter(|s| !s.is_undefined && s.value == value && s.sym_type == STT_OBJECT)
        .filter_map(|s| link.symtab.lookup(s.name))
        .filter(|&a| matches!(link.symtab.get(a).def, SymbolDef::Shared { dso: d, .. } if d == dso))
        .collect();
    for a in aliases.into_iter().chain(std::iter::once(id)) {
        link.copy_offsets.insert(a, off);
        // Exported under every name, so the library's own references (which may use an
        // alias, like glibc's __environ) bind to the copy too.
        let sym = link.symtab.get_mut(a);
        sym.in_dynsym = true;
        sym.preemptible = false;
        sym.exported = true;
    }
    link.rela_dyn.push(DynReloc {
        place: Place::CopyRel(off),
        r_type: R_X86_64_COPY,
        sym: Some(id),
        addend: DynAddend::Const(0),
    });
}

fn add_plt(link: &mut Link, t: Target) {
    let Target::Global(id) = t else {
        return;
    };
    if link.plt_index.contains_key(&id) || link.is_local_ifunc(t) {
        return;
    }
    let index = link.plt.len() as u32;
    link.plt.push(id);
    link.plt_index.insert(id, index);
    link.rela_plt.push(DynReloc {
        place: Place::GotPlt(u64::from(index)),
        r_type: R_X86_64_JUMP_SLOT,
        sym: Some(id),
        addend: DynAddend::Const(0),
    });
}

fn add_iplt(link: &mut Link, t: Target) {
    if link.iplt_index.contains_key(&t) {
        return;
    }
    let index = link.iplt.len() as u32;
    link.iplt.push(t);
    link.iplt_index.insert(t, index);
}

fn add_got_entry(link: &mut Link, t: Target) {
    let local = (link.opts.is_pic() && !link.is_absolute(t))
        .then_some((R_X86_64_RELATIVE, DynAddend::Address(t, 0)));
    add_got_slot(link, GotKind::Regular, t, R_X86_64_GLOB_DAT, local);
}

fn add_tls_ie(link: &mut Link, t: Target) {
    let local = link
        .opts
        .is_shared()
        .then_some((R_X86_64_TPOFF64, DynAddend::TlsOffset(t, 0)));
    add_got_slot(link, GotKind::TlsIe, t, R_X86_64_TPOFF64, local);
}

/// Adds a one-slot GOT entry and the dynamic relocation that fills it at load time: against
/// the symbol (`symbolic`) when it is preemptible, else `local` if the value depends on the
/// load address. Otherwise the linker writes the final value itself.
fn add_got_slot(
    link: &mut Link,
    kind: GotKind,
    t: Target,
    symbolic: u32,
    local: Option<(u32, DynAddend)>,
) {
    if !link.add_got(kind, t) {
        return;
    }
    let place = Place::Got(link.got[&(kind, t)]);
    if link.is_preemptible(t) {
        push_dyn(link, place, symbolic, t, DynAddend::Const(0), true);
    } else if let Some((r_type, addend)) = local {
        push_dyn(link, place, r_type, t, addend, false);
    }
}

fn push_dyn(
    link: &mut Link,
    place: Place,
    r_type: u32,
    t: Target,
    addend: DynAddend,
    with_sym: bool,
) {
    let sym = match (with_sym, t) {
        (true, Target::Global(id)) => Some(id),
        _ => None,
    };
    link.rela_dyn.push(DynReloc {
        place,
        r_type,
        sym,
        addend,
    });
}

/// Whether a GOTPCREL(X) load or call can become a direct reference: the target must be
/// defined in the output at a fixed offset from the code, and the instruction one we know.
pub fn can_relax_gotpcrelx(link: &Link, r_type: u32, t: Target, data: &[u8], offset: u64) -> bool {
    if r_type == R_X86_64_GOTPCREL
        || !link.opts.relax
        || link.is_preemptible(t)
        || link.is_local_ifunc(t)
    {
        return false;
    }
    if let Target::Global(id) = t {
        let sym = link.symtab.get(id);
        if !sym.is_defined_locally() && !link.copy_offsets.contains_key(&id) {
            return false;
        }
    }
    if link.opts.is_pic() && link.is_absolute(t) {
        return false;
    }
    let off = offset as usize;
    if off < 2 || off + 4 > data.len() {
        return false;
    }
    let (op, modrm) = (data[off - 2], data[off - 1]);
    match op {
        0x8b => modrm & 0xc7 == 0x05,
        0xff => modrm == 0x15 || modrm == 0x25,
        _ => false,
    }
}

pub fn reloc_name(r_type: u32) -> String {
    let name = match r_type {
        R_X86_64_NONE => "R_X86_64_NONE",
        R_X86_64_64 => "R_X86_64_64",
        R_X86_64_PC32 => "R_X86_64_PC32",
        R_X86_64_GOT32 => "R_X86_64_GOT32",
        R_X86_64_PLT32 => "R_X86_64_PLT32",
        R_X86_64_GOTPCREL => "R_X86_64_GOTPCREL",
        R_X86_64_32 => "R_X86_64_32",
        R_X86_64_32S => "R_X86_64_32S",
        R_X86_64_16 => "R_X86_64_16",
        R_X86_64_PC16 => "R_X86_64_PC16",
        R_X86_64_8 => "R_X86_64_8",
        R_X86_64_PC8 => "R_X86_64_PC8",
        R_X86_64_DTPOFF64 => "R_X86_64_DTPOFF64",
        R_X86_64_TPOFF64 => "R_X86_64_TPOFF64",
        R_X86_64_TLSGD => "R_X86_64_TLSGD",
        R_X86_64_TLSLD => "R_X86_64_TLSLD",
        R_X86_64_DTPOFF32 => "R_X86_64_DTPOFF32",
        R_X86_64_GOTTPOFF => "R_X86_64_GOTTPOFF",
        R_X86_64_TPOFF32 => "R_X86_64_TPOFF32",
        R_X86_64_PC64 => "R_X86_64_PC64",
        R_X86_64_GOTOFF64 => "R_X86_64_GOTOFF64",
        R_X86_64_GOTPC32 => "R_X86_64_GOTPC32",
        R_X86_64_SIZE32 => "R_X86_64_SIZE32",
        R_X86_64_SIZE64 => "R_X86_64_SIZE64",
        R_X86_64_GOTPC32_TLSDESC => "R_X86_64_GOTPC32_TLSDESC",
        R_X86_64_TLSDESC_CALL => "R_X86_64_TLSDESC_CALL",
        R_X86_64_GOTPCRELX => "R_X86_64_GOTPCRELX",
        R_X86_64_REX_GOTPCRELX => "R_X86_64_REX_GOTPCRELX",
        _ => return format!("relocation type {r_type}"),
    };
    name.to_string()
}
