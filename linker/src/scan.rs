//! Relocation scanning: classifies every relocation in a live allocated section once (see
//! `reloc_action`), creates what the output needs for it — a GOT entry, a PLT entry, a copy
//! relocation, a dynamic relocation — and reports undefined symbols. The writer
//! (`relocate.rs`) carries out the recorded actions without deciding again.

use crate::context::{CopySlot, DynAddend, DynReloc, GotKind, Link, Place, Target};
use crate::error::{LinkError, Result};
use crate::layout::ImageEstimate;
use crate::object_file::{FileId, LE};
use crate::reloc_action::{
    classify, Action, GotInsn, Need, OutputKind, Refusal, Site, TargetFacts,
};
use crate::symbols::{SymbolDef, SymbolId};
use crate::tables::{SectionRelative, Tables};
use object::elf::*;
use object::read::elf::Rela as _;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Decides which symbols are dynamic, exported and preemptible (lld's computeIsPreemptible),
/// once the symbol table is final; the symbols the linker defines afterwards are decided
/// as they are defined ([`decide_preemption`]).
pub fn compute_preemption(link: &mut Link) {
    let rules = BindingRules::new(link.opts, link.is_dynamic, &link.dynamic_list);
    // Each symbol on its own: on all threads.
    link.symtab
        .symbols
        .par_iter_mut()
        .for_each(|sym| rules.binding(sym).set(sym));
}

/// Decides symbol `id`, which the linker has just defined (`__start_`, `--defsym`, a
/// script's assignment).
pub fn decide_preemption(link: &mut Link, id: SymbolId) {
    let rules = BindingRules::new(link.opts, link.is_dynamic, &link.dynamic_list);
    let sym = link.symtab.get_mut(id);
    rules.binding(sym).set(sym);
}

/// How a symbol binds in the output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Binding {
    /// In the dynamic symbol table.
    pub in_dynsym: bool,
    /// A definition the output exports.
    pub exported: bool,
    /// May be bound to another module's definition at run time.
    pub preemptible: bool,
}

impl Binding {
    fn set(self, sym: &mut crate::symbols::Symbol) {
        sym.in_dynsym = self.in_dynsym;
        sym.exported = self.exported;
        sym.preemptible = self.preemptible;
    }
}

/// The rules that decide a symbol's [`Binding`] from the symbol and the link's options.
/// The native link stores their answers in its symbol table once; LTO asks them about its
/// modules' symbols before the objects they become exist (as lld's LTO step asks for each
/// symbol's export and final definition).
pub struct BindingRules<'a> {
    opts: &'a crate::options::Options,
    is_dynamic: bool,
    dynamic_list: &'a crate::dynamic_list::DynamicList,
}

impl<'a> BindingRules<'a> {
    pub fn new(
        opts: &'a crate::options::Options,
        is_dynamic: bool,
        dynamic_list: &'a crate::dynamic_list::DynamicList,
    ) -> BindingRules<'a> {
        BindingRules {
            opts,
            is_dynamic,
            dynamic_list,
        }
    }

    pub fn binding(&self, sym: &crate::symbols::Symbol) -> Binding {
        let (opts, is_dynamic, dynamic_list) = (self.opts, self.is_dynamic, self.dynamic_list);
        let shared = opts.is_shared();
        // Only the output's own references import a symbol; one library's use of another's
        // symbol is theirs to resolve.
        let referenced = sym.ref_file.is_some();
        let default_vis = sym.visibility == STV_DEFAULT;
        let exportable = matches!(sym.visibility, STV_DEFAULT | STV_PROTECTED);
        match sym.def {
            // Linker-defined symbols too: `--defsym` names and `__start_`/`__stop_` are
            // exported like definitions (GNU ld, lld); the others are hidden.
            SymbolDef::Defined { .. }
            | SymbolDef::Common { .. }
            | SymbolDef::Bitcode { .. }
            | SymbolDef::BitcodeAsm { .. }
            | SymbolDef::Plugin { .. }
            | SymbolDef::Synthetic => {
                let listed = dynamic_list.lists(sym.name);
                // --export-dynamic-symbol: exported, and never bound locally (lld).
                let export = dynamic_list.exports(sym.name);
                // What every module that needs has its own copy of is exported only where a
                // native object uses it (lld's `ltoCanOmit`).
                let export_all =
                    (opts.export_dynamic || shared) && (sym.native_ref || !sym.lto_can_omit);
                let exported =
                    is_dynamic && exportable && (export_all || sym.dso_ref || listed || export);
                let symbolic = opts.symbolic.binds_locally(sym.sym_type, sym.weak) && !export;
                // With a dynamic list, a shared library's other symbols bind locally (lld).
                let interposable = dynamic_list.is_empty() || listed || export;
                Binding {
                    in_dynsym: exported,
                    exported,
                    preemptible: exported && default_vis && shared && !symbolic && interposable,
                }
            }
            SymbolDef::Shared { .. } | SymbolDef::Undefined | SymbolDef::Lazy { .. } => {
                let undef_weak = sym.is_undef_weak();
                // glibc's static-pie start-up expects undefined weak symbols to resolve to 0
                // without a dynamic symbol, so they stay out of .dynsym there (as in lld),
                // and so does `-z nodynamic-undefined-weak` (GNU ld's).
                let weak_resolved_here =
                    undef_weak && (opts.no_dynamic_linker || !opts.z_dynamic_undefined_weak);
                let in_dynsym = is_dynamic && referenced && default_vis && !weak_resolved_here;
                Binding {
                    in_dynsym,
                    exported: false,
                    preemptible: in_dynsym,
                }
            }
        }
    }
}

/// A relocation whose decision needs something from the output (a table entry, a dynamic
/// relocation, an error), recorded by the parallel pass and granted in input order (GOT and
/// PLT entries in symbol order).
#[derive(Clone, Copy)]
struct Request {
    sec: u32,
    offset: u64,
    r_type: u32,
    target: Target,
    addend: i64,
    need: Need,
}

/// What the scan found in one object file.
#[derive(Default)]
struct FileScan {
    /// One action per relocation of the scanned sections.
    actions: FileActions,
    requests: Vec<Request>,
    /// The relative dynamic relocations of writable places (a PIE's pointers: often most
    /// relocations), made here rather than requested: they need nothing shared.
    relative: Vec<SectionRelative>,
    /// Undefined symbols referenced, with the first places (three, or one with
    /// `--warn-once`) ...
    undefined: Vec<(SymbolId, String)>,
    /// ... and how many references each has in this file.
    undefined_counts: Vec<(SymbolId, u32)>,
    uses_got_base: bool,
}

/// The scan's result: the action of every relocation in an allocated live section, which
/// the writer carries out.
pub struct RelocPlan {
    files: Vec<FileActions>,
    /// Relocations the writer computes otherwise than their input says
    /// (`--branch-to-branch`, split-stack `__morestack` calls).
    pub redirects: crate::branch_to_branch::Redirects,
    /// Bytes written over sections' contents before relocation (split-stack prologues).
    pub patches: crate::split_stack::Patches,
}

impl RelocPlan {
    /// The actions of one section's relocations, in order (empty if it was not scanned).
    pub fn actions(&self, file: FileId, sec: u32) -> &[Action] {
        self.files
            .get(file as usize)
            .map_or(&[], |f| f.section(sec as usize))
    }
}

/// One file's relocation actions: every scanned section's, one after another, in one
/// allocation (a large link has hundreds of thousands of sections).
#[derive(Default)]
struct FileActions {
    actions: Vec<Action>,
    /// Per section, where its actions start in `actions`; the next entry is where they
    /// end (one entry more than there are sections).
    starts: Vec<u32>,
}

impl FileActions {
    fn section(&self, sec: usize) -> &[Action] {
        match (self.starts.get(sec), self.starts.get(sec + 1)) {
            (Some(&start), Some(&end)) => &self.actions[start as usize..end as usize],
            _ => &[],
        }
    }
}

/// Decides every relocation of every live allocated section (in parallel, per file), then
/// creates the GOT, PLT, copy and dynamic relocations they need, in input order.
pub fn scan_relocations(link: &mut Link, estimate: ImageEstimate) -> Result<(RelocPlan, Tables)> {
    // Decided once per global symbol rather than at each of its relocations (which then
    // need not reach the symbol itself).
    let globals: Vec<GlobalFacts> = (0..link.symtab.symbols.len() as SymbolId)
        .into_par_iter()
        .map(|id| GlobalFacts {
            facts: target_facts(link, Target::Global(id)),
            unresolved: is_unresolved(link, id),
        })
        .collect();
    let scans: Vec<FileScan> = (0..link.objects.len() as FileId)
        .into_par_iter()
        .map(|file| scan_file(link, &globals, file, estimate))
        .collect();
    let mut undefined: FxHashMap<SymbolId, Undefined> = FxHashMap::default();
    let shown = shown_places(link.opts);
    let mut files = Vec::with_capacity(scans.len());
    let mut tables = Tables::default();
    tables.section_relative.reserve_exact(scans.len());
    let mut errors = Vec::new();
    // GOT and PLT entries in lld's order: by symbol, not by the first reference (lld
    // creates them after its scan, walking the symbol table). Code that refers to them
    // then has lld's bytes, and runs with its tables laid out as lld's.
    let mut by_symbol: Vec<(FileId, Request)> = Vec::new();
    for (file, scan) in scans.into_iter().enumerate() {
        tables.uses_got_base |= scan.uses_got_base;
        tables.section_relative.push(scan.relative);
        for r in &scan.requests {
            if matches!(r.need, Need::Plt | Need::Iplt { .. } | Need::Got(_)) {
                by_symbol.push((file as FileId, *r));
            } else {
                grant(link, &mut tables, &mut errors, file as FileId, r);
            }
        }
        for (id, at) in scan.undefined {
            let u = undefined.entry(id).or_default();
            if u.places.len() < shown {
                u.places.push(at);
            }
        }
        for (id, count) in scan.undefined_counts {
            undefined.entry(id).or_default().references += count;
        }
        files.push(scan.actions);
    }
    // Globals in lld's symbol-table order, then locals (lld: each file's, after them).
    by_symbol.sort_by_key(|(_, r)| match r.target {
        Target::Global(id) => (0, link.symtab.get(id).rank, id, 0),
        Target::Local(f, i) => (1, 0, f, i),
    });
    for (file, r) in &by_symbol {
        grant(link, &mut tables, &mut errors, *file, r);
    }
    report_undefined(link, undefined, &mut errors);
    if !errors.is_empty() {
        return Err(LinkError::Many(errors));
    }
    Ok((
        RelocPlan {
            files,
            redirects: Default::default(),
            patches: Default::default(),
        },
        tables,
    ))
}

/// What the scan needs to know about a global symbol at each relocation against it.
#[derive(Clone, Copy)]
struct GlobalFacts {
    facts: TargetFacts,
    /// An undefined symbol a reference to must be reported.
    unresolved: bool,
}

/// An undefined symbol the output cannot leave to the dynamic loader (only one of default
/// visibility can be, and only where undefined symbols are allowed).
fn is_unresolved(link: &Link, id: SymbolId) -> bool {
    let sym = link.symtab.get(id);
    let allowed_undefined = !link.opts.reports_undefined() && sym.visibility == STV_DEFAULT;
    sym.is_undefined() && !sym.is_undef_weak() && !allowed_undefined
}

/// The facts about a target that decide its relocations.
fn target_facts(link: &Link, t: Target) -> TargetFacts {
    TargetFacts {
        preemptible: link.is_preemptible(t),
        absolute: link.is_absolute(t),
        defined_here: match t {
            Target::Global(id) => link.symtab.get(id).is_defined_locally(),
            Target::Local(..) => true,
        },
        local_ifunc: link.is_local_ifunc(t),
    }
}

fn scan_file(
    link: &Link,
    globals: &[GlobalFacts],
    file: FileId,
    estimate: ImageEstimate,
) -> FileScan {
    let obj = &link.objects[file as usize];
    let opts = link.opts;
    let out = OutputKind {
        shared: opts.is_shared(),
        pic: opts.is_pic(),
        relax: opts.relax,
        // Text relocations only where nothing else works: decided below.
        z_text: !opts.z_notext,
        large_image: estimate.large,
        low_addresses: estimate.low_addresses,
    };
    let warn_only = opts.undefined_warns();
    let mut scan = FileScan {
        actions: FileActions {
            actions: Vec::with_capacity(
                obj.sections
                    .iter()
                    .filter(|s| scanned(s))
                    .map(|s| s.relocs().len())
                    .sum(),
            ),
            starts: Vec::with_capacity(obj.sections.len() + 1),
        },
        ..FileScan::default()
    };
    // References so far per undefined symbol (the first few are shown).
    let mut noted: FxHashMap<SymbolId, u32> = FxHashMap::default();
    // A GOT or PLT entry is asked for once per file and target: the first request is the
    // one that decides the tables' order, and a call site per use of `memcpy` need not
    // each be granted one after another.
    let mut asked: rustc_hash::FxHashSet<(Need, Target)> = Default::default();
    let shown = shown_places(opts) as u32;
    for (sec, s) in obj.sections.iter().enumerate() {
        let sec = sec as u32;
        let base = scan.actions.actions.len();
        scan.actions.starts.push(base as u32);
        if !scanned(s) {
            continue;
        }
        scan.actions
            .actions
            .resize(base + s.relocs().len(), Action::Skip);
        let mut skip_next = false;
        for (i, r) in s.relocs().iter().enumerate() {
            if std::mem::take(&mut skip_next) {
                continue;
            }
            let r_type = r.r_type(LE, false);
            if r_type == R_X86_64_NONE {
                continue;
            }
            let offset = r.r_offset(LE);
            let target = link.target(file, r.r_sym(LE, false) as usize);
            if let Target::Global(id) = target {
                if globals[id as usize].unresolved {
                    let count = noted.entry(id).or_default();
                    *count += 1;
                    if *count <= shown {
                        scan.undefined.push((
                            id,
                            format!(">>> referenced by {}", obj.location(sec, offset)),
                        ));
                    }
                    // A warning only: the reference is then left for the dynamic loader
                    // (or resolves to 0 without one), as if ignored.
                    if !warn_only {
                        continue;
                    }
                }
            }
            let facts = match target {
                Target::Global(id) => globals[id as usize].facts,
                Target::Local(..) => target_facts(link, target),
            };
            let site = Site {
                r_type,
                writable: s.flags & u64::from(SHF_WRITE) != 0,
                insn: matches!(r_type, R_X86_64_GOTPCRELX | R_X86_64_REX_GOTPCRELX)
                    .then(|| GotInsn::at(s.data(), offset, r_type, r.r_addend(LE)))
                    .flatten(),
            };
            let mut decision = classify(out, facts, site);
            // What only a text relocation can do: GNU ld allows it (with a warning)
            // unless `-z text` forbids it.
            let needs_text = match decision.need {
                Need::Error(Refusal::Abs64InReadOnly) => true,
                Need::LocalDefinition => out.shared && !site.writable && r_type == R_X86_64_64,
                _ => false,
            };
            if needs_text && !opts.z_text {
                decision = classify(
                    OutputKind {
                        z_text: false,
                        ..out
                    },
                    facts,
                    site,
                );
            }
            // The loader writes these places from the relocation's addend: they keep the
            // input's bytes, as lld leaves them, unless asked for the value (GNU ld's
            // output) or RELR, which has no addend, packs the relocation.
            let place = Place::Section { file, sec, offset };
            let leaves_place = !opts.apply_dynamic_relocs
                && match decision.need {
                    Need::DynamicAbs64 { .. } => true,
                    Need::Relative { .. } => !crate::relr::packs(link, place),
                    _ => false,
                };
            scan.actions.actions[base + i] = if leaves_place {
                Action::Skip
            } else if matches!(decision.need, Need::DynamicAbs64 { .. }) {
                // The symbol's address is the loader's to add.
                Action::Addend64
            } else {
                decision.action
            };
            scan.uses_got_base |= decision.uses_got_base;
            skip_next = decision.skips_next;
            let mut request = |need| {
                let once = matches!(need, Need::Plt | Need::Iplt { .. } | Need::Got(_));
                if once && !asked.insert((need, target)) {
                    return;
                }
                scan.requests.push(Request {
                    sec,
                    offset,
                    r_type,
                    target,
                    addend: r.r_addend(LE),
                    need,
                })
            };
            if facts.local_ifunc {
                let through_table = matches!(
                    r_type,
                    R_X86_64_PLT32
                        | R_X86_64_PLTOFF64
                        | R_X86_64_GOTPCREL
                        | R_X86_64_GOTPCRELX
                        | R_X86_64_REX_GOTPCRELX
                        | R_X86_64_GOTPCREL64
                        | R_X86_64_GOT32
                        | R_X86_64_GOT64
                );
                request(Need::Iplt {
                    direct: !through_table,
                });
            }
            match decision.need {
                Need::Nothing => {}
                Need::Relative { text: false } => scan.relative.push(SectionRelative {
                    sec,
                    sym: r.r_sym(LE, false),
                    offset,
                    addend: r.r_addend(LE),
                }),
                need => request(need),
            }
        }
    }
    scan.actions.starts.push(scan.actions.actions.len() as u32);
    scan.undefined_counts = noted.into_iter().collect();
    // Kept until the output is written.
    scan.relative.shrink_to_fit();
    scan
}

/// Whether the scan decides a section's relocations: those of a kept allocated section.
fn scanned(s: &crate::object_file::InputSection) -> bool {
    s.is_kept() && s.is_alloc() && !s.relocs().is_empty()
}

/// An undefined symbol's references, as the error reports them.
#[derive(Default)]
struct Undefined {
    /// The first places, in input order.
    places: Vec<String>,
    references: u32,
}

/// How many places an undefined-symbol report names: three, as lld; one with
/// `--warn-once` (GNU ld's: once per symbol).
fn shown_places(opts: &crate::options::Options) -> usize {
    if opts.warn_once {
        1
    } else {
        3
    }
}

fn report_undefined(
    link: &Link,
    undefined: FxHashMap<SymbolId, Undefined>,
    errors: &mut Vec<String>,
) {
    let warn_only = link.opts.undefined_warns();
    let mut ids: Vec<_> = undefined.into_iter().collect();
    ids.sort_by_key(|(id, _)| *id);
    for (id, u) in ids {
        let sym = link.symtab.get(id);
        let what = match sym.visibility {
            STV_HIDDEN | STV_INTERNAL => "undefined hidden symbol",
            STV_PROTECTED => "undefined protected symbol",
            _ => "undefined symbol",
        };
        let name = sym.display_name();
        let mut report = format!("{what}: {name}\n{}", u.places.join("\n"));
        let more = u.references as usize - u.places.len().min(u.references as usize);
        if more > 0 {
            report.push_str(&format!("\n>>> referenced {more} more times"));
        }
        // lld's rule: a hidden symbol cannot be defined elsewhere, so only
        // `--noinhibit-exec` lets its absence pass.
        if warn_only && (sym.visibility == STV_DEFAULT || link.opts.noinhibit_exec) {
            crate::diag::warn_lines(&report);
        } else {
            let script = link.opts.error_handling_script.as_deref();
            let subject = String::from_utf8_lossy(sym.name);
            let tag = crate::error_script::Tag::UndefinedSymbol;
            errors.extend(crate::error_script::report(script, tag, &subject, report));
        }
    }
}

/// A dynamic relocation in read-only section `sec` of `file` (a text relocation): the
/// output gets DT_TEXTREL, and (unless `-z notext` asked for it) GNU ld's warning names
/// the section, once.
fn note_text_relocation(link: &Link, tables: &mut Tables, file: FileId, r: &Request, text: bool) {
    if !text {
        return;
    }
    tables.needs_textrel = true;
    let seen = tables
        .text_relocation_sections
        .iter()
        .any(|&(f, s, _)| (f, s) == (file, r.sec));
    if !link.opts.z_notext && !seen {
        let symbol = match r.target {
            Target::Global(id) => Some(id),
            Target::Local(..) => None,
        };
        tables.text_relocation_sections.push((file, r.sec, symbol));
    }
}

/// GNU ld's warnings for text relocations: each read-only section that has them, then the
/// output that gets DT_TEXTREL.
pub fn warn_text_relocations(link: &Link, tables: &Tables) {
    if tables.text_relocation_sections.is_empty() {
        return;
    }
    // GNU ld's words: the first symbol a section's text relocations name, if global.
    for &(f, s, symbol) in &tables.text_relocation_sections {
        let obj = &link.objects[f as usize];
        let against = symbol.map_or(String::new(), |id| {
            format!("against `{}' ", link.symtab.get(id).display_name())
        });
        crate::diag::warn(&format!(
            "{}: relocation {against}in read-only section `{}'",
            obj.name,
            obj.sections[s as usize].name()
        ));
    }
    let what = if link.opts.is_shared() {
        "a shared object"
    } else if link.opts.is_pic() {
        "a PIE"
    } else {
        "an executable"
    };
    crate::diag::warn(&format!("creating DT_TEXTREL in {what}"));
}

/// Creates what one relocation needs.
fn grant(
    link: &mut Link,
    tables: &mut Tables,
    errors: &mut Vec<String>,
    file: FileId,
    r: &Request,
) {
    let t = r.target;
    let place = Place::Section {
        file,
        sec: r.sec,
        offset: r.offset,
    };
    match r.need {
        Need::Nothing => {}
        Need::Iplt { direct } => {
            add_iplt(tables, t);
            if direct {
                tables.plt.iplt_direct.insert(t);
            }
        }
        Need::Plt => add_plt(link, tables, t),
        Need::LocalDefinition => needs_local_definition(link, tables, errors, file, r),
        Need::DynamicAbs64 { text } => {
            note_text_relocation(link, tables, file, r, text);
            push_dyn(
                tables,
                place,
                R_X86_64_64,
                t,
                DynAddend::Const(r.addend),
                true,
            );
        }
        Need::Relative { text } => {
            note_text_relocation(link, tables, file, r, text);
            tables.rela_dyn.push(relative(place, t, r.addend));
        }
        Need::Got(GotKind::Regular) => add_got_entry(link, tables, t),
        Need::Got(GotKind::TlsIe) => add_tls_ie(link, tables, t),
        Need::Got(GotKind::TlsGd) => add_tls_gd(link, tables, t),
        Need::Got(GotKind::TlsLd) => add_tls_ld(tables),
        Need::Got(GotKind::TlsDesc) => add_tls_desc(link, tables, t),
        Need::Error(refusal) => {
            let message = refusal_message(link, file, r, refusal);
            errors.push(message);
        }
    }
}

fn refusal_message(link: &Link, file: FileId, r: &Request, refusal: Refusal) -> String {
    let obj = &link.objects[file as usize];
    let section = obj.sections[r.sec as usize].name();
    let name = &obj.name;
    let target = link.target_name(r.target);
    let reloc = reloc_name(r.r_type);
    match refusal {
        Refusal::TpOffInShared => format!(
            "{name}: relocation {reloc} against {target} cannot be used with -shared; recompile with -fPIC"
        ),
        Refusal::Abs64InReadOnly => format!(
            "{name}: can't create dynamic relocation R_X86_64_64 against {target} in readonly section {section}; recompile with -fPIC or pass '-z notext'"
        ),
        Refusal::NarrowAbsInPic => format!(
            "{name}: relocation {reloc} against {target} cannot be used when making a {}; recompile with -fPIC",
            if link.opts.is_shared() { "shared object" } else { "PIE object" }
        ),
        Refusal::Unsupported => format!(
            "{name}: unsupported relocation type {reloc} ({}) in {section}",
            r.r_type
        ),
    }
}

fn add_tls_gd(link: &Link, tables: &mut Tables, t: Target) {
    let Some(off) = tables.got.add(GotKind::TlsGd, t) else {
        return;
    };
    let zero = DynAddend::Const(0);
    push_dyn(tables, Place::Got(off), R_X86_64_DTPMOD64, t, zero, true);
    if link.is_preemptible(t) {
        push_dyn(
            tables,
            Place::Got(off + 8),
            R_X86_64_DTPOFF64,
            t,
            zero,
            true,
        );
    }
}

/// The local-dynamic GOT entry: one per output, for its own TLS block.
fn add_tls_ld(tables: &mut Tables) {
    let module = Target::Local(0, 0);
    if let Some(off) = tables.got.add(GotKind::TlsLd, module) {
        let zero = DynAddend::Const(0);
        push_dyn(
            tables,
            Place::Got(off),
            R_X86_64_DTPMOD64,
            module,
            zero,
            false,
        );
    }
}

fn add_tls_desc(link: &Link, tables: &mut Tables, t: Target) {
    let Some(off) = tables.got.add(GotKind::TlsDesc, t) else {
        return;
    };
    let preemptible = link.is_preemptible(t);
    let addend = if preemptible {
        DynAddend::Const(0)
    } else {
        DynAddend::TlsOffset(t, 0)
    };
    push_dyn(
        tables,
        Place::Got(off),
        R_X86_64_TLSDESC,
        t,
        addend,
        preemptible,
    );
}

/// A non-PIC reference to a symbol defined in a shared library: an executable gives the
/// symbol a home of its own — a copy relocation for data, a canonical PLT entry for
/// functions. A shared library cannot.
fn needs_local_definition(
    link: &mut Link,
    tables: &mut Tables,
    errors: &mut Vec<String>,
    file: FileId,
    site: &Request,
) {
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
        errors.push(format!(
            "{}: relocation {} against symbol `{}' can not be used when making a shared object; recompile with -fPIC",
            link.objects[file as usize].name,
            reloc_name(site.r_type),
            sym.display_name()
        ));
        return;
    }
    // A copy or a canonical PLT entry makes the executable's address the symbol's address
    // for everyone; a library that binds its protected symbol to itself would disagree,
    // unless the command line says that does not matter (lld's rule: for a variable or a
    // function, by its type).
    if let SymbolDef::Shared { dso, index } = sym.def {
        let dso = &link.dsos[dso as usize];
        let disagreement_allowed = match sym.sym_type {
            STT_OBJECT => link.opts.ignore_data_address_equality,
            STT_FUNC => link.opts.ignore_function_address_equality,
            _ => false,
        };
        if dso.symbols[index as usize].visibility == STV_PROTECTED && !disagreement_allowed {
            errors.push(format!(
                "cannot preempt symbol: {}\n>>> defined in {}\n>>> referenced by {}:({})",
                sym.display_name(),
                dso.name,
                link.objects[file as usize].name,
                link.objects[file as usize].sections[site.sec as usize].name()
            ));
            return;
        }
    }
    if !matches!(sym.sym_type, STT_FUNC | STT_GNU_IFUNC) && !link.opts.z_copyreloc {
        let defined_in = match sym.def {
            SymbolDef::Shared { dso, .. } => link.dsos[dso as usize].name.as_str(),
            _ => "a shared library",
        };
        let obj = &link.objects[file as usize];
        errors.push(format!(
            "unresolvable relocation {} against symbol '{}'; recompile with -fPIC or remove \
             '-z nocopyreloc'\n>>> defined in {defined_in}\n>>> referenced by {}",
            reloc_name(site.r_type),
            sym.display_name(),
            obj.location(site.sec, site.offset)
        ));
        return;
    }
    if matches!(sym.sym_type, STT_FUNC | STT_GNU_IFUNC) {
        if !tables.plt.canonical.contains(&id) {
            add_plt(link, tables, site.target);
            tables.plt.canonical.insert(id);
        }
    } else {
        add_copy_reloc(link, tables, id);
    }
}

fn add_copy_reloc(link: &mut Link, tables: &mut Tables, id: u32) {
    let copies = &mut tables.copies;
    if copies.slots.contains_key(&id) {
        return;
    }
    let SymbolDef::Shared { dso, index } = link.symtab.get(id).def else {
        return;
    };
    let shared = &link.dsos[dso as usize].symbols[index as usize];
    let (value, size) = (shared.value, shared.size.max(1));
    let read_only = shared.read_only;
    let area = usize::from(read_only);
    // The library's alignment of the variable, as lld keeps it.
    let align = shared.copy_align.max(1);
    // A library's symbol can claim any size: saturated here, refused when the area is
    // placed (`layout::create_synthetic_sections`) as not fitting in the address space.
    let off = copies.size[area]
        .checked_next_multiple_of(align)
        .unwrap_or(u64::MAX);
    copies.size[area] = off.saturating_add(size);
    copies.align[area] = copies.align[area].max(align);
    let slot = CopySlot {
        read_only,
        offset: off,
    };
    // Every alias of the variable in that library (environ, __environ, ...) moves with it.
    let aliases: Vec<u32> = link.dsos[dso as usize]
        .symbols
        .iter()
        .filter(|s| !s.is_undefined && s.value == value && s.sym_type == STT_OBJECT)
        .filter_map(|s| link.symtab.lookup(s.name))
        .filter(|&a| matches!(link.symtab.get(a).def, SymbolDef::Shared { dso: d, .. } if d == dso))
        .collect();
    for a in aliases.into_iter().chain(std::iter::once(id)) {
        copies.slots.insert(a, slot);
        // Exported under every name, so the library's own references (which may use an
        // alias, like glibc's __environ) bind to the copy too.
        let sym = link.symtab.get_mut(a);
        sym.in_dynsym = true;
        sym.preemptible = false;
        sym.exported = true;
    }
    tables.rela_dyn.push(DynReloc {
        place: Place::CopyRel(slot),
        r_type: R_X86_64_COPY,
        sym: Some(id),
        addend: DynAddend::Const(0),
    });
}

fn add_plt(link: &Link, tables: &mut Tables, t: Target) {
    let Target::Global(id) = t else {
        return;
    };
    let plt = &mut tables.plt;
    if plt.lazy_index.contains_key(&id) || link.is_local_ifunc(t) {
        return;
    }
    let index = plt.lazy.len() as u32;
    plt.lazy.push(id);
    plt.lazy_index.insert(id, index);
    tables.rela_plt.push(DynReloc {
        place: Place::GotPlt(u64::from(index)),
        r_type: R_X86_64_JUMP_SLOT,
        sym: Some(id),
        addend: DynAddend::Const(0),
    });
}

fn add_iplt(tables: &mut Tables, t: Target) {
    let plt = &mut tables.plt;
    if plt.iplt_index.contains_key(&t) {
        return;
    }
    let index = plt.iplt.len() as u32;
    plt.iplt.push(t);
    plt.iplt_index.insert(t, index);
}

/// Whether a non-preemptible target's GOT slot gets a RELATIVE relocation: its address
/// moves with the load address.
pub(crate) fn got_slot_is_relative(link: &Link, t: Target) -> bool {
    link.opts.is_pic() && !link.is_absolute(t)
}

fn add_got_entry(link: &Link, tables: &mut Tables, t: Target) {
    let local =
        got_slot_is_relative(link, t).then_some((R_X86_64_RELATIVE, DynAddend::Address(t, 0)));
    add_got_slot(link, tables, GotKind::Regular, t, R_X86_64_GLOB_DAT, local);
}

fn add_tls_ie(link: &Link, tables: &mut Tables, t: Target) {
    let local = link
        .opts
        .is_shared()
        .then_some((R_X86_64_TPOFF64, DynAddend::TlsOffset(t, 0)));
    add_got_slot(link, tables, GotKind::TlsIe, t, R_X86_64_TPOFF64, local);
}

/// Adds a one-slot GOT entry and the dynamic relocation that fills it at load time: against
/// the symbol (`symbolic`) when it is preemptible, else `local` if the value depends on the
/// load address. Otherwise the linker writes the final value itself.
fn add_got_slot(
    link: &Link,
    tables: &mut Tables,
    kind: GotKind,
    t: Target,
    symbolic: u32,
    local: Option<(u32, DynAddend)>,
) {
    let Some(off) = tables.got.add(kind, t) else {
        return;
    };
    let place = Place::Got(off);
    if link.is_preemptible(t) {
        push_dyn(tables, place, symbolic, t, DynAddend::Const(0), true);
    } else if let Some((r_type, addend)) = local {
        push_dyn(tables, place, r_type, t, addend, false);
    }
}

/// The R_X86_64_RELATIVE that puts `t`'s address plus `addend` at `place`.
fn relative(place: Place, t: Target, addend: i64) -> DynReloc {
    DynReloc {
        place,
        r_type: R_X86_64_RELATIVE,
        sym: None,
        addend: DynAddend::Address(t, addend),
    }
}

fn push_dyn(
    tables: &mut Tables,
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
    tables.rela_dyn.push(DynReloc {
        place,
        r_type,
        sym,
        addend,
    });
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
        R_X86_64_COPY => "R_X86_64_COPY",
        R_X86_64_GLOB_DAT => "R_X86_64_GLOB_DAT",
        R_X86_64_JUMP_SLOT => "R_X86_64_JUMP_SLOT",
        R_X86_64_RELATIVE => "R_X86_64_RELATIVE",
        R_X86_64_DTPMOD64 => "R_X86_64_DTPMOD64",
        R_X86_64_IRELATIVE => "R_X86_64_IRELATIVE",
        R_X86_64_TLSDESC => "R_X86_64_TLSDESC",
        _ => return format!("relocation type {r_type}"),
    };
    name.to_string()
}

#[cfg(test)]
mod binding_tests {
    use super::*;
    use crate::dynamic_list::DynamicList;
    use crate::options::{Options, OutputKind};
    use crate::symbols::{Symbol, SymbolTable};

    fn symbol(def: SymbolDef, visibility: u8, sym_type: u8) -> Symbol {
        let mut table = SymbolTable::default();
        let id = table.intern(b"f");
        let sym = table.get_mut(id);
        sym.def = def;
        sym.visibility = visibility;
        sym.sym_type = sym_type;
        sym.ref_file = Some(0);
        sym.clone()
    }

    fn binding(opts: &Options, is_dynamic: bool, sym: &Symbol) -> Binding {
        BindingRules::new(opts, is_dynamic, &DynamicList::default()).binding(sym)
    }

    const NATIVE: SymbolDef = SymbolDef::Defined {
        file: 0,
        section: 1,
        value: 0,
    };
    const BITCODE: SymbolDef = SymbolDef::Bitcode {
        module: 0,
        index: 0,
    };

    /// lld's rules: a shared library's default-visibility definitions are exported and
    /// preemptible (not with -Bsymbolic, functions not with -Bsymbolic-functions); an
    /// executable's are exported only when asked; a reference it leaves to a library is a
    /// dynamic, preemptible symbol. A bitcode definition binds as the native definition LTO
    /// turns it into, so what LTO asks before its objects exist is what the link stores.
    #[test]
    fn bindings_follow_lld_rules_whatever_makes_the_definition() {
        let shared = Options {
            kind: OutputKind::Shared,
            ..Options::default()
        };
        let exported = |preemptible| Binding {
            in_dynsym: true,
            exported: true,
            preemptible,
        };
        for def in [NATIVE, BITCODE] {
            let func = symbol(def, STV_DEFAULT, STT_FUNC);
            let data = symbol(def, STV_DEFAULT, STT_OBJECT);
            assert_eq!(binding(&shared, true, &func), exported(true));
            let protected = symbol(def, STV_PROTECTED, STT_FUNC);
            assert_eq!(binding(&shared, true, &protected), exported(false));
            let hidden = symbol(def, STV_HIDDEN, STT_FUNC);
            assert_eq!(binding(&shared, true, &hidden), Binding::default());

            let symbolic = Options {
                symbolic: crate::options::Symbolic::All,
                ..shared.clone()
            };
            assert_eq!(binding(&symbolic, true, &data), exported(false));
            let functions = Options {
                symbolic: crate::options::Symbolic::Functions,
                ..shared.clone()
            };
            assert_eq!(binding(&functions, true, &func), exported(false));
            assert_eq!(binding(&functions, true, &data), exported(true));

            let pie = Options {
                kind: OutputKind::Pie,
                ..Options::default()
            };
            assert_eq!(binding(&pie, true, &func), Binding::default());
            let export_dynamic = Options {
                export_dynamic: true,
                ..pie.clone()
            };
            assert_eq!(binding(&export_dynamic, true, &func), exported(false));
            let mut library_uses_it = func.clone();
            library_uses_it.dso_ref = true;
            assert_eq!(binding(&pie, true, &library_uses_it), exported(false));
            assert_eq!(
                binding(&Options::default(), false, &library_uses_it),
                Binding::default()
            );
        }
        let mut undefined = symbol(SymbolDef::Undefined, STV_DEFAULT, STT_NOTYPE);
        undefined.has_strong_ref = true;
        let imported = Binding {
            in_dynsym: true,
            exported: false,
            preemptible: true,
        };
        assert_eq!(binding(&Options::default(), true, &undefined), imported);
        assert_eq!(
            binding(&Options::default(), false, &undefined),
            Binding::default()
        );
    }
}
