//! `--gc-sections`: keep only the sections reachable from the roots through relocations.
//!
//! Roots are the entry point, `-u`, `-init`/`-fini`, exported symbols, symbols shared
//! libraries need, symbols linker scripts and `--defsym` name, and sections that must
//! survive unreferenced: constructor tables, notes, `.init`/`.fini`, SHF_GNU_RETAIN, and
//! C-identifier sections whose `__start_`/`__stop_` symbols are used. `.eh_frame` is not a
//! root; an FDE keeps its LSDA and personality only when its function is live.

use crate::object_file::{shndx, FileId, InputSection, ObjectFile, SectionKind, LE};
use crate::symbols::{SymbolDef, SymbolId, SymbolTable};
use crate::why_live::{Item, Reason, Reasons};
use object::elf;
use object::read::elf::{Rela as _, Sym as _};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;

const SHF_GNU_RETAIN: u64 = 0x20_0000;

pub use rld_lto_api::is_c_identifier;

/// What `__start_`/`__stop_` symbols keep (`-z start-stop-gc` / `-z nostart-stop-gc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartStop {
    /// GNU ld's default: a C-identifier section is kept if its `__start_` or `__stop_`
    /// symbol is referenced.
    Retains,
    /// `-z start-stop-gc` (lld's default, which rld does not follow: lld-22 then fails a
    /// link whose only reference to such a section is `__start_`, where GNU ld's works):
    /// such sections live only through references to themselves, save glibc's
    /// `__libc_*` (lld's exception for libc.a before glibc 2.34).
    Collected,
}

/// Why a section is a root (lld's words for `--why-live`), if it is one.
fn is_gc_root(
    name: &str,
    sh_type: u32,
    flags: u64,
    symtab: &SymbolTable,
    start_stop: StartStop,
) -> Option<&'static str> {
    const RESERVED: Option<&str> = Some("reserved");
    if flags & SHF_GNU_RETAIN != 0 {
        return Some("retained");
    }
    if matches!(
        sh_type,
        elf::SHT_INIT_ARRAY | elf::SHT_FINI_ARRAY | elf::SHT_PREINIT_ARRAY | elf::SHT_NOTE
    ) {
        return RESERVED;
    }
    // Every name below but the C identifiers starts with a dot and one of these letters:
    // the names of nearly all sections (`.text.`, `.rodata.`, `.data.`, `.bss.` and a
    // symbol's name) are turned away without comparing more.
    if let [b'.', second, ..] = name.as_bytes() {
        if !matches!(second, b'i' | b'f' | b'p' | b'c' | b'd' | b'j') {
            return None;
        }
    }
    for prefix in [
        ".init_array",
        ".fini_array",
        ".preinit_array",
        ".ctors",
        ".dtors",
    ] {
        if name.starts_with(prefix) {
            return RESERVED;
        }
    }
    if matches!(name, ".init" | ".fini" | ".jcr") {
        return RESERVED;
    }
    if is_c_identifier(name) {
        if start_stop == StartStop::Collected && !name.starts_with("__libc_") {
            return None;
        }
        let start = format!("__start_{name}");
        let stop = format!("__stop_{name}");
        let named =
            symtab.lookup(start.as_bytes()).is_some() || symtab.lookup(stop.as_bytes()).is_some();
        return named.then_some("named by __start_/__stop_ symbols");
    }
    None
}

/// Which sections are live, one flag per section of every object, set from many threads
/// (see [`propagate`]). The set marking ends with does not depend on the order in which
/// the threads reach the sections, so neither does the output. A flag also says whether
/// the section is an allocated merge section, whose pieces live on their own.
struct LiveFlags {
    /// Index of each object's first section among `live`.
    base: Vec<usize>,
    live: Vec<AtomicU8>,
}

const LIVE: u8 = 1;
const MERGE: u8 = 2;
/// In a COMDAT group that lives whole ([`ObjectFile::group_ring`]).
const GROUP: u8 = 4;

impl LiveFlags {
    /// The flags of every section, and per object, whatever else `each` finds on its one
    /// pass over the object's sections (in parallel: a large link has a million sections).
    /// Non-allocatable sections start live (GC never drops them, and their relocations are
    /// not followed); ignored ones too, so that nothing marks them.
    fn new<T: Send>(
        objects: &[ObjectFile],
        each: impl Fn(usize, &ObjectFile, usize, &InputSection) -> Option<T> + Sync,
    ) -> (Self, Vec<Vec<T>>) {
        let mut base = Vec::with_capacity(objects.len());
        let mut total = 0;
        for obj in objects {
            base.push(total);
            total += obj.sections.len();
        }
        let mut live: Vec<AtomicU8> = (0..total)
            .into_par_iter()
            .map(|_| AtomicU8::new(0))
            .collect();
        let (shares, _) =
            crate::write::split_places(&mut live, objects.iter().map(|o| o.sections.len()));
        let found = objects
            .par_iter()
            .enumerate()
            .zip(shares)
            .map(|((f, obj), share)| {
                let mut found = Vec::new();
                for (i, (flag, s)) in share.iter_mut().zip(&obj.sections).enumerate() {
                    // A SHF_LINK_ORDER section lives with the section it is linked to.
                    let dependent = obj.link_order_parent(i as u32).is_some();
                    let live = s.kind == SectionKind::Ignored || (!s.is_alloc() && !dependent);
                    let merge = s.kind == SectionKind::Merge && s.is_alloc();
                    *flag.get_mut() = (u8::from(live) * LIVE) | (u8::from(merge) * MERGE);
                    found.extend(each(f, obj, i, s));
                }
                for &(member, _) in &obj.group_ring {
                    if let Some(flag) = share.get_mut(member as usize) {
                        *flag.get_mut() |= GROUP;
                    }
                }
                found
            })
            .collect();
        (LiveFlags { base, live }, found)
    }

    /// Marks the section: whether this call made it live, and its flags.
    fn mark(&self, file: FileId, sec: u32) -> (bool, u8) {
        let flag = &self.live[self.base[file as usize] + sec as usize];
        // Most references reach sections already live: a plain load answers them without
        // a locked write taking the cache line from the other threads.
        let now = flag.load(Ordering::Relaxed);
        if now & LIVE != 0 {
            return (false, now);
        }
        let before = flag.fetch_or(LIVE, Ordering::Relaxed);
        (before & LIVE == 0, before)
    }

    /// Copies the flags into the sections (not the ignored ones, whose flag says nothing).
    fn write_back(&self, objects: &mut [ObjectFile]) {
        objects.par_iter_mut().enumerate().for_each(|(f, obj)| {
            let flags = &self.live[self.base[f]..];
            for (s, flag) in obj.sections.iter_mut().zip(flags) {
                if s.kind != SectionKind::Ignored {
                    s.live = flag.load(Ordering::Relaxed) & LIVE != 0;
                }
            }
        });
    }
}

/// With `--gc-sections`, the offsets of allocated merge sections that what is kept refers
/// to, one bit per byte: lld keeps only the pieces (strings, constants) they fall in.
pub struct PieceMarks {
    /// Per object: its allocated merge sections (index, first bit, size), by index.
    sections: Vec<Vec<(u32, usize, u64)>>,
    bits: Vec<AtomicU64>,
}

impl PieceMarks {
    /// The tracked sections: allocated merge sections with contents.
    fn tracks(s: &InputSection) -> bool {
        s.kind == SectionKind::Merge && s.is_alloc() && s.size() > 0
    }

    /// For `sections`, per object its tracked sections (index, 0, size), by index.
    fn new(mut sections: Vec<Vec<(u32, usize, u64)>>) -> Self {
        let mut total = 0usize;
        for (_, start, size) in sections.iter_mut().flatten() {
            *start = total;
            total = total.saturating_add(*size as usize);
        }
        let bits = (0..total.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        PieceMarks { sections, bits }
    }

    fn find(&self, file: FileId, sec: u32) -> Option<(usize, u64)> {
        let list = self.sections.get(file as usize)?;
        let i = list.binary_search_by_key(&sec, |e| e.0).ok()?;
        Some((list[i].1, list[i].2))
    }

    /// A reference to `offset` of the section (past its end: its last piece, as lld
    /// finds the piece).
    fn mark(&self, file: FileId, sec: u32, offset: u64) {
        let Some((start, size)) = self.find(file, sec) else {
            return;
        };
        let bit = start + offset.min(size - 1) as usize;
        let (word, mask) = (&self.bits[bit / 64], 1u64 << (bit % 64));
        if word.load(Ordering::Relaxed) & mask == 0 {
            word.fetch_or(mask, Ordering::Relaxed);
        }
    }

    /// The references into merge section `sec` of `file`; None if it is not tracked (kept
    /// whole).
    pub fn section(&self, file: FileId, sec: u32) -> Option<SectionRefs<'_>> {
        let (start, size) = self.find(file, sec)?;
        Some(SectionRefs {
            bits: &self.bits,
            start,
            size,
        })
    }
}

/// The references into one merge section ([`PieceMarks::section`]).
pub struct SectionRefs<'a> {
    bits: &'a [AtomicU64],
    start: usize,
    size: u64,
}

impl SectionRefs<'_> {
    /// Whether anything refers to bytes `from..to` of the section.
    pub fn any(&self, from: u64, to: u64) -> bool {
        let mut bit = self.start + from.min(self.size) as usize;
        let end = self.start + to.min(self.size) as usize;
        while bit < end {
            let (lo, n) = (bit % 64, (64 - bit % 64).min(end - bit));
            let mask = (u64::MAX >> (64 - n)) << lo;
            if self.bits[bit / 64].load(Ordering::Relaxed) & mask != 0 {
                return true;
            }
            bit += n;
        }
        false
    }
}

/// Where a relocation to symbol `sym_index` of `file` leads.
enum Reach {
    /// A section of the objects, at an offset (which piece of a merge section: the
    /// symbol's value, plus the addend for a section symbol, as lld reads it).
    Section(FileId, u32, u64),
    /// A global symbol defined nowhere in them: undefined, in a shared library, or in an
    /// archive member never loaded.
    Outside(SymbolId),
    /// Nowhere to go (absolute, common, linker-defined).
    Nothing,
}

fn reach(
    objects: &[ObjectFile],
    symtab: &SymbolTable,
    file: FileId,
    sym_index: usize,
    addend: i64,
) -> Reach {
    let obj = &objects[file as usize];
    let (f, s, offset) = match obj.global_index(sym_index) {
        Some(id) => {
            let sym = symtab.get(id);
            match sym.def {
                SymbolDef::Defined {
                    file,
                    section,
                    value,
                } => (file, section, value),
                _ if sym.is_outside() => return Reach::Outside(id),
                _ => return Reach::Nothing,
            }
        }
        None => {
            let sym = &obj.symbols[sym_index];
            let value = sym.st_value(LE);
            let offset = if sym.st_type() == elf::STT_SECTION {
                value.wrapping_add(addend as u64)
            } else {
                value
            };
            (file, obj.symbol_section(sym_index), offset)
        }
    };
    if shndx::is_section(s) {
        Reach::Section(f, s, offset)
    } else {
        Reach::Nothing
    }
}

/// The global symbols defined outside the objects that a live section refers to (lld's
/// `used`): with `--gc-sections`, the others leave `.symtab` and `.dynsym`.
pub struct UsedOutside(Vec<AtomicBool>);

impl UsedOutside {
    fn new(symbols: usize) -> Self {
        UsedOutside((0..symbols).map(|_| AtomicBool::new(false)).collect())
    }

    fn mark(&self, id: SymbolId) {
        if let Some(flag) = self.0.get(id as usize) {
            if !flag.load(Ordering::Relaxed) {
                flag.store(true, Ordering::Relaxed);
            }
        }
    }

    pub fn is_used(&self, id: SymbolId) -> bool {
        self.0
            .get(id as usize)
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

/// Marks everything reachable from `frontier` (sections just marked) through relocations:
/// each task walks breadth-first from its own queue and hands half of it to a new task
/// when it grows, so that idle threads take work (mold's parallel work list) while a chain
/// of calls thousands deep costs no more than on one thread. Breadth-first because each
/// step is a chain of cache misses (section, relocations, symbol, flag): the section taken
/// next was queued long ago, so the processor loads it while the last one's misses are
/// outstanding, where depth-first takes the section the last miss just named (a quarter
/// less time marking a synthetic program of 300,000 sections, `bench/scaling.sh`).
fn propagate(
    objects: &[ObjectFile],
    symtab: &SymbolTable,
    marks: &Marks,
    frontier: Vec<(FileId, u32)>,
) {
    if let Some(mut why) = marks.reasons() {
        return propagate_explained(objects, symtab, marks, &mut why, frontier);
    }
    let walk = Walk {
        objects,
        symtab,
        marks,
    };
    rayon::scope(|scope| {
        for chunk in frontier.chunks(Walk::SPLIT) {
            let queue = chunk.iter().copied().collect();
            let walk = &walk;
            scope.spawn(move |scope| walk.run(scope, queue));
        }
    });
}

/// `--why-live`'s marking: on one thread and in lld's order (the section queued last is
/// walked first), so that each item's first reason is the one lld finds where the two
/// linkers mark alike.
fn propagate_explained(
    objects: &[ObjectFile],
    symtab: &SymbolTable,
    marks: &Marks,
    why: &mut Reasons,
    mut stack: Vec<(FileId, u32)>,
) {
    while let Some((file, sec)) = stack.pop() {
        for r in objects[file as usize].sections[sec as usize].relocs() {
            let sym = r.r_sym(LE, false) as usize;
            let reason = Reason::referenced_at(file, sec, r.r_offset(LE));
            match reach(objects, symtab, file, sym, r.r_addend(LE)) {
                Reach::Section(f, s, offset) => {
                    if marks.reach_section(f, s, offset) {
                        let named = why.named_symbol(objects, symtab, file, sym, (f, s, offset));
                        why.made_live(f, s, named, reason);
                        stack.push((f, s));
                    }
                }
                Reach::Outside(id) => {
                    marks.used.mark(id);
                    let weak = objects[file as usize].symbols[sym].st_bind() == elf::STB_WEAK;
                    if !weak {
                        why.note(Item::Global(id), reason);
                    }
                }
                Reach::Nothing => {}
            }
        }
        let obj = &objects[file as usize];
        // The member after it that marking walks (an ignored one is live from the start,
        // never walked: passed over, so that it does not cut the ring).
        let walked = |&n: &u32| obj.sections[n as usize].kind != SectionKind::Ignored;
        if let Some(next) = obj.group_members_after(sec).find(walked) {
            if marks.reach_section(file, next, 0) {
                let reason = Reason::in_group_with(file, sec);
                why.made_live(file, next, None, reason);
                stack.push((file, next));
            }
        }
    }
}

/// What marking finds: live sections, symbols used outside the objects, (with
/// `--gc-sections`) the pieces of merge sections referred to, and (with `--why-live`) why
/// each thing is live.
struct Marks {
    flags: LiveFlags,
    used: UsedOutside,
    pieces: Option<PieceMarks>,
    why: Option<Mutex<Reasons>>,
}

impl Marks {
    /// The reasons recorded, with `--why-live`.
    fn reasons(&self) -> Option<std::sync::MutexGuard<'_, Reasons>> {
        let why = self.why.as_ref()?;
        Some(why.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// A reference from outside the walk (a root, metadata) to `offset` of section `sec`
    /// of `file`, through `symbol` if it names one: what it makes live joins `frontier`.
    /// With `--why-live`, the reason is recorded, and the section's group is left to the
    /// walk (which tells the group's reason apart); else the group comes along here.
    fn enter(
        &self,
        objects: &[ObjectFile],
        (file, sec, offset): (FileId, u32, u64),
        symbol: Option<Item>,
        reason: Reason,
        frontier: &mut Vec<(FileId, u32)>,
    ) {
        match self.reasons() {
            None => {
                let (newly, group) = self.reach(file, sec, offset);
                if newly {
                    frontier.push((file, sec));
                    if group {
                        self.reach_group(objects, file, sec, &mut |f, s| frontier.push((f, s)));
                    }
                }
            }
            Some(mut why) => {
                if self.reach_section(file, sec, offset) {
                    why.made_live(file, sec, symbol, reason);
                    frontier.push((file, sec));
                }
            }
        }
    }

    /// A reference to `offset` of section `sec` of `file`: true if it made the section
    /// live.
    fn reach_section(&self, file: FileId, sec: u32, offset: u64) -> bool {
        self.reach(file, sec, offset).0
    }

    /// [`Marks::reach_section`], and whether the section is in a group that lives whole.
    #[inline]
    fn reach(&self, file: FileId, sec: u32, offset: u64) -> (bool, bool) {
        let (newly, flags) = self.flags.mark(file, sec);
        if flags & MERGE != 0 {
            if let Some(pieces) = &self.pieces {
                pieces.mark(file, sec, offset);
            }
        }
        (newly, flags & GROUP != 0)
    }

    /// The rest of the COMDAT group of section `sec` of `file`, just made live: calls
    /// `push` with each member it makes live.
    #[cold]
    #[inline(never)]
    fn reach_group(
        &self,
        objects: &[ObjectFile],
        file: FileId,
        sec: u32,
        push: &mut dyn FnMut(FileId, u32),
    ) {
        for next in objects[file as usize].group_members_after(sec) {
            if self.reach_section(file, next, 0) {
                push(file, next);
            }
        }
    }
}

struct Walk<'a> {
    objects: &'a [ObjectFile],
    symtab: &'a SymbolTable,
    marks: &'a Marks,
}

impl<'a> Walk<'a> {
    /// A queue longer than this gives half of it to another task.
    const SPLIT: usize = 256;

    fn run<'s>(&'s self, scope: &rayon::Scope<'s>, mut queue: VecDeque<(FileId, u32)>)
    where
        'a: 's,
    {
        while let Some((file, sec)) = queue.pop_front() {
            for r in self.objects[file as usize].sections[sec as usize].relocs() {
                let sym = r.r_sym(LE, false) as usize;
                match reach(self.objects, self.symtab, file, sym, r.r_addend(LE)) {
                    Reach::Section(f, s, offset) => {
                        let (newly, group) = self.marks.reach(f, s, offset);
                        if newly {
                            queue.push_back((f, s));
                            if group {
                                let push = &mut |f, s| queue.push_back((f, s));
                                self.marks.reach_group(self.objects, f, s, push);
                            }
                        }
                    }
                    Reach::Outside(id) => self.marks.used.mark(id),
                    Reach::Nothing => {}
                }
            }
            if queue.len() > Self::SPLIT {
                let half = queue.split_off(queue.len() / 2);
                scope.spawn(move |scope| self.run(scope, half));
            }
        }
    }
}

/// A symbol that keeps its section alive, and why (lld's words for `--why-live`).
pub type RootSymbol = (SymbolId, &'static str);

/// Marks live sections; everything else allocatable is dropped from the output. Returns
/// the symbols defined outside the objects that what is kept refers to, and, with
/// `pieces`, the pieces of merge sections it refers to (`-r` keeps every piece: the final
/// link collects them); with `explain`, why each thing is live (`--why-live`: marking then
/// runs on one thread).
/// `kept(file, section)`: sections a linker script's `KEEP` names, roots too.
pub fn collect_garbage(
    objects: &mut [ObjectFile],
    symtab: &SymbolTable,
    root_symbols: &[RootSymbol],
    kept: &(dyn Fn(&str, &str) -> bool + Sync),
    pieces: bool,
    start_stop: StartStop,
    explain: bool,
) -> (UsedOutside, Option<PieceMarks>, Option<Reasons>) {
    let marks = mark_live(
        objects,
        symtab,
        root_symbols,
        pieces,
        explain,
        &|_, obj, s| {
            let sec = &obj.sections[s];
            is_gc_root(sec.name(), sec.sh_type, sec.flags, symtab, start_stop)
                .or_else(|| kept(&obj.name, sec.name()).then_some("KEEP in linker script"))
        },
    );
    let why = marks
        .why
        .map(|w| w.into_inner().unwrap_or_else(|e| e.into_inner()));
    (marks.used, marks.pieces, why)
}

/// Without `--gc-sections`: drops the functions of LTO partitions that nothing calls or
/// refers to any more, as LLVM drops an unused internal function of one module. A function
/// local to the LTO unit but used across partitions is a hidden symbol of its partition's
/// object; where every caller inlined it, its body is left over. Only sections of LTO
/// objects that define hidden functions and nothing else go: every other section is a
/// root, so whatever native code, a root symbol or live code refers to stays.
/// (With one partition LLVM saw every use and already deleted what is unused.)
pub fn collect_lto_leftovers(
    objects: &mut [ObjectFile],
    symtab: &SymbolTable,
    roots: &[RootSymbol],
) {
    let candidates: Vec<Vec<bool>> = objects.iter().map(leftover_candidates).collect();
    mark_live(objects, symtab, roots, false, false, &|file, obj, s| {
        let sec = &obj.sections[s];
        if !candidates[file][s] {
            return Some("not an LTO leftover");
        }
        is_gc_root(
            sec.name(),
            sec.sh_type,
            sec.flags,
            symtab,
            StartStop::Retains,
        )
    });
}

/// Per section of `obj`: an LTO object's code section whose symbols are all hidden
/// functions (and at least one).
fn leftover_candidates(obj: &ObjectFile) -> Vec<bool> {
    if !obj.from_lto {
        return vec![false; obj.sections.len()];
    }
    let mut candidate: Vec<Option<bool>> = vec![None; obj.sections.len()];
    for i in obj.first_global..obj.symbols.len() {
        let sec = obj.symbol_section(i);
        let Some(slot) = candidate
            .get_mut(sec as usize)
            .filter(|_| shndx::is_section(sec))
        else {
            continue;
        };
        let sym = &obj.symbols[i];
        let hidden = matches!(sym.st_visibility(), elf::STV_HIDDEN | elf::STV_INTERNAL);
        let ok = hidden && sym.st_type() == elf::STT_FUNC;
        *slot = Some(slot.unwrap_or(true) && ok);
    }
    obj.sections
        .iter()
        .zip(candidate)
        .map(|(s, c)| {
            c == Some(true) && s.is_alloc() && s.flags & u64::from(elf::SHF_EXECINSTR) != 0
        })
        .collect()
}

/// Marks the sections reachable from `root_symbols` and from the allocatable sections
/// `is_root(file, object, section)` names (with why); `pieces` records the references
/// into merge sections (lld: a root section's at offset 0, a root symbol's at its value);
/// `explain` records why each thing is live.
fn mark_live(
    objects: &mut [ObjectFile],
    symtab: &SymbolTable,
    root_symbols: &[RootSymbol],
    pieces: bool,
    explain: bool,
    is_root: &(dyn Fn(usize, &ObjectFile, usize) -> Option<&'static str> + Sync),
) -> Marks {
    // One pass over the sections finds the root sections and the merge sections whose
    // pieces are tracked, and sets the flags.
    let (flags, found) = LiveFlags::new(objects, |f, obj, i, s| {
        // lld's rule: a SHF_LINK_ORDER section is no root, whatever its name.
        let root = (s.kind != SectionKind::Ignored
            && s.kind != SectionKind::EhFrame
            && s.is_alloc()
            && s.flags & u64::from(elf::SHF_LINK_ORDER) == 0)
            .then(|| is_root(f, obj, i))
            .flatten();
        let tracked = pieces && PieceMarks::tracks(s);
        (root.is_some() || tracked).then_some((i as u32, root, tracked.then_some(s.size())))
    });
    let mut roots: Vec<(FileId, u32, &'static str)> = Vec::new();
    let mut tracked: Vec<Vec<(u32, usize, u64)>> = Vec::with_capacity(found.len());
    for (f, found) in found.into_iter().enumerate() {
        let mut merges = Vec::new();
        for (i, root, size) in found {
            if let Some(why) = root {
                roots.push((f as FileId, i, why));
            }
            if let Some(size) = size {
                merges.push((i, 0, size));
            }
        }
        tracked.push(merges);
    }
    let marks = Marks {
        flags,
        used: UsedOutside::new(symtab.symbols.len()),
        pieces: pieces.then(|| PieceMarks::new(tracked)),
        why: explain.then(|| Mutex::new(Reasons::default())),
    };
    let mut frontier: Vec<(FileId, u32)> = Vec::new();
    for &(id, why) in root_symbols {
        if let SymbolDef::Defined {
            file,
            section,
            value,
        } = symtab.get(id).def
        {
            if shndx::is_section(section) {
                let symbol = Some(Item::Global(id));
                let target = (file, section, value);
                marks.enter(objects, target, symbol, Reason::root(why), &mut frontier);
            }
        }
    }
    for (f, s, why) in roots {
        marks.enter(objects, (f, s, 0), None, Reason::root(why), &mut frontier);
    }
    propagate(objects, symtab, &marks, frontier);

    // FDEs of live functions keep their LSDAs and personality routines, and live sections
    // their SHF_LINK_ORDER dependents; repeat until the set stops growing, since an LSDA
    // (or a dependent) can reference more code.
    if let Some(mut why) = marks.reasons() {
        for (f, obj) in objects.iter().enumerate() {
            for &i in &obj.eh_frames {
                let eh = Item::Section(f as FileId, i);
                why.note(eh, Reason::root("exception handling frame"));
            }
        }
    }
    loop {
        marks.flags.write_back(objects);
        let objects = &*objects;
        let frontier: Vec<(FileId, u32)> = if marks.why.is_none() {
            objects
                .par_iter()
                .enumerate()
                .flat_map_iter(|(f, obj)| {
                    let mut found = Vec::new();
                    for r in metadata_references(objects, symtab, &marks, f as FileId, obj) {
                        let target = (r.file, r.sec, r.offset);
                        marks.enter(objects, target, None, r.reason, &mut found);
                    }
                    found
                })
                .collect()
        } else {
            // On one thread, in input order: the first reason is always the same one.
            let mut frontier = Vec::new();
            for (f, obj) in objects.iter().enumerate() {
                for r in metadata_references(objects, symtab, &marks, f as FileId, obj) {
                    let target = (r.file, r.sec, r.offset);
                    let named = r
                        .symbol
                        .zip(marks.reasons())
                        .and_then(|((from, sym), mut why)| {
                            why.named_symbol(objects, symtab, from, sym, target)
                        });
                    marks.enter(objects, target, named, r.reason, &mut frontier);
                }
            }
            frontier
        };
        if frontier.is_empty() {
            break;
        }
        propagate(objects, symtab, &marks, frontier);
    }
    objects.par_iter_mut().for_each(|obj| {
        for &i in &obj.eh_frames {
            let s = &mut obj.sections[i as usize];
            if s.kind == SectionKind::EhFrame {
                s.live = true;
            }
        }
    });
    marks
}

/// A section that live code's metadata reaches: an LSDA or personality routine through
/// `.eh_frame`, or a SHF_LINK_ORDER section through the section it is linked to.
struct MetadataRef {
    file: FileId,
    sec: u32,
    offset: u64,
    reason: Reason,
    /// The object and symbol index of the relocation that reaches it, if one does.
    symbol: Option<(FileId, usize)>,
}

/// The sections the metadata of `obj`'s live sections reaches (the live ones too: the
/// caller marks them), in order.
fn metadata_references(
    objects: &[ObjectFile],
    symtab: &SymbolTable,
    marks: &Marks,
    f: FileId,
    obj: &ObjectFile,
) -> Vec<MetadataRef> {
    let mut found: Vec<MetadataRef> = obj
        .link_order
        .iter()
        .filter(|&&(child, parent)| {
            obj.sections[parent as usize].live && !obj.sections[child as usize].live
        })
        .map(|&(child, parent)| MetadataRef {
            file: f,
            sec: child,
            offset: 0,
            reason: Reason::depended_on_by(f, parent),
            symbol: None,
        })
        .collect();
    for &i in &obj.eh_frames {
        if obj.sections[i as usize].kind != SectionKind::EhFrame {
            continue;
        }
        for_each_live_fde_reloc(obj, i as usize, |sym, addend, at| {
            match reach(objects, symtab, f, sym, addend) {
                Reach::Section(file, sec, offset) => found.push(MetadataRef {
                    file,
                    sec,
                    offset,
                    reason: Reason::referenced_at(f, i, at),
                    symbol: Some((f, sym)),
                }),
                // A CIE's personality routine, in libstdc++.so.
                Reach::Outside(id) => {
                    marks.used.mark(id);
                    if let Some(mut why) = marks.reasons() {
                        why.note(Item::Global(id), Reason::referenced_at(f, i, at));
                    }
                }
                Reach::Nothing => {}
            }
        });
    }
    found
}

/// `--as-needed` after `--gc-sections`: which of the shared libraries in `asked` (by
/// library index) kept sections still need, as lld decides it (a library is needed if a
/// non-weak reference from a section that survived, or a root symbol, resolves to it). A
/// library only dead code used gets no DT_NEEDED. Every kept section's relocations count,
/// the unloaded ones' and `.eh_frame`'s included (a superset: never a library too few).
/// The walk stops once every library asked about is found needed: in a C++ program the
/// first objects usually name them all, and the rest of the relocations (all of them, on a
/// large link) need not be read.
pub fn libraries_still_needed(
    objects: &[ObjectFile],
    symtab: &SymbolTable,
    roots: &[SymbolId],
    asked: &[bool],
) -> Vec<bool> {
    let found: Vec<AtomicBool> = asked.iter().map(|_| AtomicBool::new(false)).collect();
    let left = AtomicUsize::new(asked.iter().filter(|&&a| a).count());
    let reach = |id: SymbolId| {
        if let SymbolDef::Shared { dso, .. } = symtab.get(id).def {
            let dso = dso as usize;
            if asked.get(dso) == Some(&true) && !found[dso].swap(true, Ordering::Relaxed) {
                left.fetch_sub(1, Ordering::Relaxed);
            }
        }
    };
    roots.iter().for_each(|&id| reach(id));
    objects.par_iter().for_each(|obj| {
        for s in obj.sections.iter().filter(|s| s.live) {
            if left.load(Ordering::Relaxed) == 0 {
                return;
            }
            for r in s.relocs() {
                let index = r.r_sym(LE, false) as usize;
                let weak = obj
                    .symbols
                    .get(index)
                    .is_some_and(|sym| sym.st_bind() == elf::STB_WEAK);
                if let (Some(id), false) = (obj.global_index(index), weak) {
                    reach(id);
                }
            }
        }
    });
    found.into_iter().map(AtomicBool::into_inner).collect()
}

/// What `--print-gc-sections` prints: a line per section garbage collection dropped, as lld
/// words it (`removing unused section FILE:(NAME)`), in input order.
pub fn removed_sections(objects: &[ObjectFile]) -> Vec<String> {
    let mut out = Vec::new();
    for obj in objects {
        for s in &obj.sections {
            if s.kind != SectionKind::Ignored && s.is_alloc() && !s.live {
                out.push(format!(
                    "removing unused section {}:({})",
                    obj.name,
                    s.name()
                ));
            }
        }
    }
    out
}

/// Calls `f` with the symbol, addend and offset of every relocation in a CIE, or in an FDE whose
/// function is live.
fn for_each_live_fde_reloc(obj: &ObjectFile, sec: usize, mut f: impl FnMut(usize, i64, u64)) {
    for record in crate::object_file::eh_frame_records(&obj.sections[sec]) {
        // An FDE's first relocation is its function's address: one with no other (no
        // LSDA) reaches nothing, and whether its function lives need not be looked up.
        let reaching = &record.relocs[usize::from(!record.is_cie).min(record.relocs.len())..];
        if reaching.is_empty() {
            continue;
        }
        let live = record.is_cie
            || record.fde_target().is_some_and(|sym| {
                let s = obj.symbol_section(sym);
                shndx::is_section(s) && obj.sections[s as usize].is_kept()
            });
        if live {
            for r in reaching {
                f(r.r_sym(LE, false) as usize, r.r_addend(LE), r.r_offset(LE));
            }
        }
    }
}
