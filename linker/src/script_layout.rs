//! The memory image a linker script's `SECTIONS` describes, laid out as lld lays it out.
//!
//! - **Inputs**: an input section goes to the output section of the first pattern that
//!   matches its file and name, in script order; `/DISCARD/` drops it; what no pattern
//!   matches is an orphan and keeps its usual output section.
//! - **Order**: the script's output sections in script order; an orphan (an input section
//!   no pattern places, under its own name, or one of the linker's own sections) goes where
//!   lld's rule puts it: after the last of the sections whose rank (lld's getSectionRank
//!   bits) shares the most leading bits with its own.
//! - **Addresses**: the location counter starts at 0; `. = EXPR` moves it; an output
//!   section starts at its own address expression or at the counter aligned to the
//!   section, and the counter moves past it; symbol assignments take the counter's value
//!   there, relative to the section before them.
//! - **Segments**: a `PT_LOAD` for each run of sections with the same permissions; the
//!   headers are loaded (with `PT_PHDR`) only if they fit below the first section within
//!   its page; each segment's file offset is congruent to its address modulo the page.
//! - **Dynamic links**: the linker's own sections (`.dynsym`, `.got`, `.dynamic`, ...)
//!   are placed by their names like input sections, else as orphans; `PT_INTERP`,
//!   `PT_DYNAMIC`, `PT_TLS`, `PT_GNU_RELRO` (whose sections must be adjacent) come from
//!   where they land; the section after the RELRO ones starts a new `PT_LOAD`.
//!
//! - **Overlays**: an `OVERLAY`'s sections share their address; each loads after the one
//!   before (the parser spells it out as lld does) and their overlap is allowed.
//!
//! - **`-r`**: the script places input sections and orders the output sections (its
//!   own first); COMDAT group members stay sections of their own; nothing gets an address.

use crate::context::{
    Link, LinkerSymbol, ScriptResults, SectionPlace, SectionPlaces, Segment, Segments,
};
use crate::dynamic_list::glob_match;
use crate::error::{LinkError, Result};
use crate::input::script::{Constraint, OutputDescription, OutputItem, SectionsCommand, Sort};
use crate::layout::{class_of, segment_class, Class, LinkEnv, PAGE};
use crate::object_file::SectionKind;
use crate::script_expr::{Env, Value};
use object::elf::*;
use rustc_hash::FxHashMap;

/// Where the script's patterns send input sections.
pub struct InputMap<'a> {
    commands: &'a [SectionsCommand],
    /// Per command, its output section's name (leaked: output keys are `'static`).
    names: Vec<Option<&'static str>>,
    /// `--sort-section`: the order of a description without a nested `SORT`, inside (or
    /// without) its own.
    sort_section: Sort,
}

impl<'a> InputMap<'a> {
    pub fn new(commands: &'a [SectionsCommand]) -> InputMap<'a> {
        let names = commands
            .iter()
            .map(|c| match c {
                SectionsCommand::Output(d) if d.name != "/DISCARD/" => {
                    Some(&*Box::leak(d.name.clone().into_boxed_str()))
                }
                _ => None,
            })
            .collect();
        InputMap {
            commands,
            names,
            sort_section: Sort::None,
        }
    }

    /// The map with `--sort-section`'s order (lld's and GNU ld's rule: a description
    /// without `SORT` is sorted by it; one with a single `SORT` by that, then by it;
    /// `SORT_NONE` stays in input order).
    pub fn sorting_sections_by(self, sort_section: Sort) -> InputMap<'a> {
        InputMap {
            sort_section,
            ..self
        }
    }

    /// The output section for input section `section` of `file`: `Some(Some(name))` for a
    /// script section, `Some(None)` for `/DISCARD/`, `None` for an orphan.
    pub fn place(&self, file: &str, section: &str) -> Option<Option<&'static str>> {
        self.first_match(file, section)
            .map(|m| self.names[m.command])
    }

    /// Whether the pattern that places the section is inside `KEEP` (a root for
    /// `--gc-sections`).
    pub fn keeps(&self, file: &str, section: &str) -> bool {
        self.first_match(file, section).is_some_and(|m| m.keep)
    }

    /// Where the section goes inside its output: the input section description that
    /// matched it (descriptions in script order), and the keys its `SORT`s order by
    /// (outer, then inner).
    pub fn rank(&self, file: &str, section: &str, align: u64) -> (usize, SortKey, SortKey) {
        let key = |sort: Sort| match sort {
            Sort::None | Sort::Never => SortKey::None,
            Sort::Name => SortKey::Name(section.to_string()),
            Sort::Alignment => SortKey::Alignment(std::cmp::Reverse(align)),
            Sort::InitPriority => SortKey::Priority(crate::output_section::init_priority(section)),
        };
        match self.first_match(file, section) {
            Some(m) => {
                let inner = match (m.sort, m.inner_sort) {
                    (Sort::Never, _) => Sort::None,
                    (_, Sort::None) => self.sort_section,
                    (_, inner) => inner,
                };
                (m.item, key(m.sort), key(inner))
            }
            None => (usize::MAX, SortKey::None, SortKey::None),
        }
    }

    /// The first pattern matching the section.
    fn first_match(&self, file: &str, section: &str) -> Option<Match> {
        let base = file.rsplit('/').next().unwrap_or(file);
        for (k, c) in self.commands.iter().enumerate() {
            let SectionsCommand::Output(d) = c else {
                continue;
            };
            for (j, item) in d.items.iter().enumerate() {
                let OutputItem::Input {
                    file: pattern,
                    sections,
                    keep,
                    sort,
                    inner_sort,
                    exclude,
                } = item
                else {
                    continue;
                };
                let matches = |glob: &String| {
                    glob_match(glob.as_bytes(), file.as_bytes())
                        || glob_match(glob.as_bytes(), base.as_bytes())
                };
                let file_ok = matches(pattern) && !exclude.iter().any(matches);
                let section_ok = sections
                    .iter()
                    .any(|p| glob_match(p.as_bytes(), section.as_bytes()));
                if file_ok && section_ok {
                    return Some(Match {
                        command: k,
                        item: j,
                        keep: *keep,
                        sort: *sort,
                        inner_sort: *inner_sort,
                    });
                }
            }
        }
        None
    }
}

/// A pattern that matched: its command, its item in the output description, `KEEP`,
/// `SORT` and a `SORT` nested in it.
struct Match {
    command: usize,
    item: usize,
    keep: bool,
    sort: Sort,
    inner_sort: Sort,
}

/// What `SORT...` orders the sections of one description by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum SortKey {
    None,
    Name(String),
    Alignment(std::cmp::Reverse<u64>),
    Priority(u32),
}

/// Drops the output section descriptions whose `ONLY_IF_RO`/`ONLY_IF_RW` their inputs do
/// not meet, in script order (what one drops, a later one may take), as GNU ld and lld do:
/// `ONLY_IF_RO` holds unless an input is writable, `ONLY_IF_RW` if one is.
pub fn apply_constraints(link: &mut Link) {
    let Some((origin, mut commands)) = link.scripts.sections.take() else {
        return;
    };
    let mut k = 0;
    while k < commands.len() {
        let (constraint, patterns) = match &commands[k] {
            SectionsCommand::Output(d) => (d.constraint, section_patterns(d)),
            _ => (None, Vec::new()),
        };
        let Some(constraint) = constraint else {
            k += 1;
            continue;
        };
        let map = InputMap::new(&commands);
        let writable = link.objects.iter().any(|obj| {
            obj.sections.iter().any(|s| {
                s.is_kept()
                    && s.flags & u64::from(SHF_WRITE) != 0
                    && patterns
                        .iter()
                        .any(|p| glob_match(p.as_bytes(), s.name().as_bytes()))
                    && map.first_match(&obj.name, s.name()).map(|m| m.command) == Some(k)
            })
        });
        if writable == (constraint == Constraint::ReadWrite) {
            k += 1;
        } else {
            commands.remove(k);
        }
    }
    link.scripts.sections = Some((origin, commands));
}

/// The section name patterns of an output section description.
fn section_patterns(d: &OutputDescription) -> Vec<&String> {
    d.items
        .iter()
        .flat_map(|item| match item {
            OutputItem::Input { sections, .. } => sections.iter().collect(),
            _ => Vec::new(),
        })
        .collect()
}

fn commands<'a>(link: &'a Link) -> &'a [SectionsCommand] {
    link.scripts
        .sections
        .as_ref()
        .map_or(&[], |(_, c)| c.as_slice())
}

/// What the scripted layout cannot do yet, as an error naming the script.
pub fn check_supported(link: &Link) -> Result<()> {
    let Some((origin, _)) = &link.scripts.sections else {
        return Ok(());
    };
    if link.opts.relocatable {
        // `-r` takes the script's placement of input sections and order of output
        // sections; nothing has an address yet.
        let moves = commands(link).iter().any(|c| match c {
            SectionsCommand::Assign(_) => true,
            SectionsCommand::Output(d) => {
                d.items
                    .iter()
                    .any(|i| !matches!(i, OutputItem::Input { .. }))
                    || d.overlay
                    || d.region.is_some()
                    || d.lma.is_some()
            }
        });
        if moves || !link.scripts.memory.is_empty() || !link.scripts.phdrs.is_empty() {
            return Err(LinkError::Link(format!(
                "{origin}: with -r, rld does not yet support assignments, data commands, OVERLAY, MEMORY, AT or PHDRS in SECTIONS"
            )));
        }
        return Ok(());
    }
    for c in commands(link) {
        let SectionsCommand::Output(d) = c else {
            continue;
        };
        for phdr in &d.phdrs {
            if !link.scripts.phdrs.iter().any(|p| &p.name == phdr) {
                return Err(LinkError::Link(format!(
                    "{origin}:{}: program header {phdr} of section {} is not listed in PHDRS",
                    d.line, d.name
                )));
            }
        }
        for region in d.region.iter().chain(&d.lma_region) {
            if !link.scripts.memory.iter().any(|m| &m.name == region) {
                return Err(LinkError::Link(format!(
                    "{origin}:{}: memory region {region} of section {} is not declared in MEMORY",
                    d.line, d.name
                )));
            }
        }
    }
    // A section rld makes goes where a description of its own name puts it; moving it into
    // another output section is not supported.
    let map = InputMap::new(commands(link));
    for o in link.outputs.iter() {
        let Some(name) = synthetic_input_name(link, o) else {
            continue;
        };
        if let Some(Some(target)) = map.place("", name) {
            if target != o.name {
                return Err(LinkError::Link(format!(
                    "{origin}: putting the linker's {name} into output section {target} is not supported yet"
                )));
            }
        }
    }
    if let Some((_, anchor)) = &link.scripts.insert {
        // Added to the usual layout: no moves of `.`, no regions or program headers.
        let moves_dot_anywhere = commands(link).iter().any(|c| match c {
            SectionsCommand::Assign(a) => a.name == ".",
            SectionsCommand::Output(d) => moves_dot(d) || d.address.is_some(),
        });
        if moves_dot_anywhere || !link.scripts.memory.is_empty() || !link.scripts.phdrs.is_empty() {
            return Err(LinkError::Link(format!(
                "{origin}: with INSERT, rld does not yet support `. =`, addresses, data commands, MEMORY or PHDRS"
            )));
        }
        if !link.outputs.iter().any(|o| &o.name == anchor) {
            return Err(LinkError::Link(format!(
                "{origin}: unable to insert after or before {anchor}: there is no such output section"
            )));
        }
        return Ok(());
    }
    Ok(())
}

/// After the layout (and the script's own errors, reported first by
/// `layout::assign_addresses`): the RELRO sections must be contiguous, and no allocated
/// sections may overlap (a script may move the counter back; lld refuses the overlap too).
pub fn check_addresses(link: &Link, segments: &Segments) -> Result<()> {
    let Some((origin, _)) = &link.scripts.sections else {
        return Ok(());
    };
    // PT_GNU_RELRO is one range: nothing else may sit between its sections (lld).
    let relro = |o: &crate::output_section::OutputSection| {
        o.is_alloc() && segment_class(link, o) == Class::Relro
    };
    let mut run = (false, false); // (a RELRO section seen, then another section)
    for o in link.outputs.iter().filter(|o| o.is_alloc()) {
        match (relro(o), run) {
            (true, (_, true)) => {
                return Err(LinkError::Link(format!(
                    "{origin}: section {} is not contiguous with other relro sections",
                    o.name
                )))
            }
            (true, _) => run.0 = true,
            (false, (true, _)) => run.1 = true,
            (false, _) => {}
        }
    }
    if !link.opts.check_sections {
        return Ok(());
    }
    // `.tbss` takes no address space: the sections after it overlap it; an `OVERLAY`'s
    // sections share their addresses by design. The others, in address order (a script
    // may place a later section below an earlier one, in another region or at an address
    // of its own), must not overlap (lld's check).
    let in_overlay = |i: usize| description(link, i).is_some_and(|d| d.overlay);
    let mut placed: Vec<(u64, &crate::output_section::OutputSection)> = link
        .outputs
        .iter()
        .enumerate()
        .filter(|(i, o)| o.is_alloc() && !(o.is_tls() && o.is_nobits()) && !in_overlay(*i))
        .map(|(_, o)| (segments.sections.addr(o), o))
        .collect();
    placed.sort_by_key(|&(addr, _)| addr);
    for pair in placed.windows(2) {
        let ((p_addr, p), (addr, o)) = (pair[0], pair[1]);
        let end = p_addr.checked_add(p.size);
        if end.is_none_or(|end| addr < end) || addr.checked_add(o.size).is_none() {
            return Err(LinkError::Link(format!(
                "{origin}: section {} at {addr:#x} overlaps {} ({p_addr:#x} to {:#x})",
                o.name,
                p.name,
                p_addr.wrapping_add(p.size)
            )));
        }
    }
    Ok(())
}

/// Creates the script's output sections that no input fills but that its description
/// keeps (it moves `.`, stores data or defines a symbol there), as lld does: of type
/// `PROGBITS`, with the permissions of the section before them.
pub fn add_kept_empty_sections(link: &mut Link) {
    let mut flags = u64::from(SHF_ALLOC);
    let mut added = Vec::new();
    for c in commands(link) {
        let SectionsCommand::Output(d) = c else {
            continue;
        };
        if let Some(o) = link.outputs.iter().find(|o| o.name == d.name) {
            flags = o.flags & u64::from(SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR);
        } else if d.name != "/DISCARD/" && kept_when_empty(d) {
            added.push(crate::output_section::OutputSection::new(
                &d.name,
                SHT_PROGBITS,
                flags,
            ));
        }
    }
    for o in added {
        link.outputs.add(o);
    }
}

/// Whether an output section description keeps its section when no input goes there.
fn kept_when_empty(d: &OutputDescription) -> bool {
    d.items.iter().any(|item| match item {
        OutputItem::Assign(a) => !a.provide,
        OutputItem::Data { .. } => true,
        OutputItem::Input { .. } => false,
    })
}

/// `-r`: the script's output sections first, in its order, each as aligned as its
/// `ALIGN(...)` asks; the others after them in their usual order (lld's and GNU ld's
/// relocatable layout).
pub fn relocatable_order(link: &mut Link) -> Result<()> {
    if link.scripts.sections.is_none() {
        return Ok(());
    }
    let mut order: Vec<usize> = Vec::new();
    let mut aligns = Vec::new();
    for c in commands(link) {
        if let SectionsCommand::Output(d) = c {
            for (i, o) in link.outputs.iter().enumerate() {
                if o.name == d.name && !order.contains(&i) {
                    order.push(i);
                    if let Some(e) = &d.align {
                        aligns.push((i, alignment(link, e, d.line)?));
                    }
                }
            }
        }
    }
    for (i, v) in aligns {
        link.outputs[i].align = link.outputs[i].align.max(v);
    }
    let rest: Vec<usize> = (0..link.outputs.len())
        .filter(|i| !order.contains(i))
        .collect();
    order.extend(rest);
    link.set_output_order(&order);
    Ok(())
}

/// The output sections in the script's order, orphans placed after their kind; empty
/// sections the script names are dropped unless their description keeps them.
pub fn order(link: &Link) -> Vec<usize> {
    let present = |i: usize| {
        has_contents(&link.outputs[i]) || description(link, i).is_some_and(kept_when_empty)
    };
    let mut placed: Vec<usize> = Vec::new();
    for c in commands(link) {
        if let SectionsCommand::Output(d) = c {
            if let Some(i) = link.outputs.iter().position(|o| o.name == d.name) {
                if present(i) && !placed.contains(&i) {
                    placed.push(i);
                }
            }
        }
    }
    let scripted = placed.clone();
    // Orphans in lld's order: by rank, else as they were created (inputs' sections in
    // input order, then the linker's own); each goes to lld's position for it.
    let ranks: Vec<u32> = link.outputs.iter().map(|o| orphan_rank(link, o)).collect();
    let mut orphans: Vec<usize> = (0..link.outputs.len())
        .filter(|i| !scripted.contains(i) && present(*i))
        .collect();
    orphans.sort_by_key(|&i| (ranks[i], creation_order(link, i)));
    // Orphans of one rank go together, where the first of them goes (as lld inserts them).
    for group in orphans.chunk_by(|&a, &b| ranks[a] == ranks[b]) {
        let at = orphan_position(link, &ranks, &placed, group[0]);
        placed.splice(at..at, group.iter().copied());
    }
    placed
}

/// The order lld creates an orphan in: the inputs' sections first (as rld creates them),
/// then its own sections in the order it makes them (`.eh_frame` among those).
fn creation_order(link: &Link, i: usize) -> (u32, usize) {
    use crate::output_section::Synthetic::*;
    let o = &link.outputs[i];
    let made = match o.synthetic {
        Some(Interp) => 0,
        Some(BuildId) | Some(PackageNote) => 1,
        Some(DynSym) => 2,
        Some(GnuVersion) => 3,
        Some(GnuVersionD) => 4,
        Some(GnuVersionR) => 5,
        Some(GnuHash) => 6,
        Some(SysvHash) => 7,
        Some(Dynamic) => 8,
        Some(DynStr) => 9,
        Some(RelaDyn) => 10,
        Some(RelrDyn) => 11,
        Some(EhFrameHdr) => 12,
        None if o.name == ".eh_frame" => 13,
        Some(Got) => 14,
        Some(GotPlt) => 15,
        Some(RelaPlt) => 16,
        Some(Plt) => 17,
        Some(PltSec) => 18,
        Some(GnuProperty) => 19,
        Some(RelroPadding) => 20,
        None => return (0, i),
    };
    (1, made)
}

/// lld's rank of an output section (its getSectionRank, as of lld 19): one bit per
/// decision of the usual layout, most significant first, so that the number of leading
/// bits two ranks share says how alike the sections are. Among read-only sections the low
/// bits order `.interp`, notes and the other non-PROGBITS ones before PROGBITS data, which
/// lld keeps nearest the code.
fn orphan_rank(link: &Link, o: &crate::output_section::OutputSection) -> u32 {
    const NOT_ADDR_SET: u32 = 1 << 27;
    const NOT_ALLOC: u32 = 1 << 26;
    const MAIN_PARTITION: u32 = 1 << 18;
    const WRITE: u32 = 1 << 14;
    const EXEC_WRITE: u32 = 1 << 13;
    const EXEC: u32 = 1 << 12;
    const RODATA: u32 = 1 << 11;
    const LARGE: u32 = 1 << 10;
    const NOT_RELRO: u32 = 1 << 9;
    const NOT_TLS: u32 = 1 << 8;
    const BSS: u32 = 1 << 7;
    let mut rank = MAIN_PARTITION;
    if crate::layout::fixed_address(link, o).is_some() {
        return rank;
    }
    rank |= NOT_ADDR_SET;
    if !o.is_alloc() {
        return rank | NOT_ALLOC;
    }
    // SHF_X86_64_LARGE: the psABI's medium and large code models' data.
    const SHF_X86_64_LARGE: u64 = 0x1000_0000;
    let large = o.flags & SHF_X86_64_LARGE != 0;
    match (o.is_exec(), o.is_writable()) {
        (false, false) => {
            // Large read-only data (`.lrodata`) goes further from the code: no LARGE bit.
            if !large {
                rank |= LARGE;
            }
            rank |= if o.name == ".interp" {
                2
            } else if o.sh_type == SHT_NOTE {
                3
            } else if o.sh_type != SHT_PROGBITS {
                4
            } else {
                RODATA
            };
        }
        (true, write) => rank |= if write { EXEC_WRITE } else { EXEC },
        (false, true) => {
            rank |= WRITE;
            if !o.is_tls() {
                rank |= NOT_TLS;
            }
            if class_of(link, o) != Class::Relro {
                rank |= NOT_RELRO;
            }
            if large {
                rank |= LARGE;
            }
            if o.is_nobits() {
                rank |= BSS;
            }
        }
    }
    rank
}

/// Where orphan `i` goes among the sections placed so far (lld's findOrphanPos, as of lld
/// 19): the anchor is the section most like it (the most leading rank bits in common),
/// the last of several whose rank is not above its own (else the first); it goes after
/// the anchor and the sections as like it that follow, or, if the anchor ranks above it
/// (and the script has no PHDRS or MEMORY, which keep it after), right after the section
/// with contents before the anchor; at the end if no section with contents follows that
/// place. Sections the script keeps without contents are no anchors.
fn orphan_position(link: &Link, ranks: &[u32], placed: &[usize], i: usize) -> usize {
    let rank = ranks[i];
    let filled = |p: usize| has_contents(&link.outputs[p]);
    let proximity = |p: usize| -> i32 {
        if filled(p) {
            (rank ^ ranks[p]).leading_zeros() as i32
        } else {
            -1
        }
    };
    let mut anchor = None;
    let mut closest = 0;
    for (k, &p) in placed.iter().enumerate() {
        let near = proximity(p);
        if near > closest || (near == closest && ranks[p] <= rank) {
            closest = near;
            anchor = Some(k);
        }
    }
    let Some(anchor) = anchor else {
        return placed.len();
    };
    let must_follow = !link.scripts.phdrs.is_empty() || !link.scripts.memory.is_empty();
    let at = if ranks[placed[anchor]] <= rank || must_follow {
        let mut at = anchor + 1;
        for (k, &p) in placed.iter().enumerate().skip(anchor + 1) {
            if !filled(p) {
                continue;
            }
            if proximity(p) != closest {
                break;
            }
            at = k + 1;
        }
        at
    } else {
        placed[..anchor]
            .iter()
            .rposition(|&p| filled(p))
            .map_or(0, |k| k + 1)
    };
    if !placed[at..].iter().any(|&p| filled(p)) {
        return placed.len();
    }
    at
}

/// The permissions of an allocated output section's segment.
fn flags_of(link: &Link, i: usize) -> u32 {
    let o = &link.outputs[i];
    PF_R | if o.is_exec() { PF_X } else { 0 } | if o.is_writable() { PF_W } else { 0 }
}

/// One step of the walk: a command, or an orphan placed after a script section.
enum Step<'a> {
    /// An assignment, its number, and for one inside an output section that section and
    /// the assignment's place among its items.
    Assign(
        &'a crate::input::script::Assignment,
        usize,
        Option<(usize, usize)>,
    ),
    Output(usize, Option<&'a OutputDescription>),
}

/// The walk's steps: commands in order, each orphan right after the output section it
/// follows in `link.outputs` (the order above).
fn steps<'a>(link: &'a Link<'a>) -> Vec<Step<'a>> {
    let mut out = Vec::new();
    let mut position = 0usize;
    let mut done = vec![false; link.outputs.len()];
    let mut assignment = 0usize;
    // Orphans that follow the last script section: placed after the symbol assignments
    // right after it (those that do not move `.`), as lld places them.
    let mut pending: Vec<usize> = Vec::new();
    let flush = |pending: &mut Vec<usize>, out: &mut Vec<Step<'a>>| {
        out.extend(pending.drain(..).map(|p| Step::Output(p, None)));
    };
    // Orphans placed after the last script section with contents go after every command
    // (lld's findOrphanPos: "at the very end, past any other commands"), moves of `.` and
    // sections the script keeps empty included.
    let last_filled = commands(link).iter().rposition(|c| {
        matches!(c, SectionsCommand::Output(d)
            if link.outputs.iter().find(|o| o.name == d.name).is_some_and(has_contents))
    });
    let flush_at = |k: usize, pending: &mut Vec<usize>, out: &mut Vec<Step<'a>>| {
        if last_filled.is_none_or(|last| k <= last) {
            flush(pending, out);
        }
    };
    for (k, c) in commands(link).iter().enumerate() {
        match c {
            SectionsCommand::Assign(a) => {
                if a.name == "." {
                    flush_at(k, &mut pending, &mut out);
                }
                out.push(Step::Assign(a, assignment, None));
                assignment += 1;
            }
            SectionsCommand::Output(d) => {
                flush_at(k, &mut pending, &mut out);
                let Some(i) = link.outputs.iter().position(|o| o.name == d.name) else {
                    // An empty section: its symbols are still defined there; its moves of
                    // `.` move nothing.
                    for item in &d.items {
                        if let OutputItem::Assign(a) = item {
                            if a.name != "." {
                                out.push(Step::Assign(a, assignment, None));
                            }
                            assignment += 1;
                        }
                    }
                    continue;
                };
                // Orphans ordered before this section come first.
                while position < i {
                    if !done[position] && !is_scripted(link, position) {
                        out.push(Step::Output(position, None));
                        done[position] = true;
                    }
                    position += 1;
                }
                out.push(Step::Output(i, Some(d)));
                done[i] = true;
                for (j, item) in d.items.iter().enumerate() {
                    if let OutputItem::Assign(a) = item {
                        out.push(Step::Assign(a, assignment, Some((i, j))));
                        assignment += 1;
                    }
                }
                // Orphans right after it.
                position = i + 1;
                while position < link.outputs.len() && !is_scripted(link, position) {
                    pending.push(position);
                    done[position] = true;
                    position += 1;
                }
            }
        }
    }
    flush(&mut pending, &mut out);
    for (i, d) in done.iter().enumerate() {
        if !d {
            out.push(Step::Output(i, None));
        }
    }
    out
}

fn is_scripted(link: &Link, i: usize) -> bool {
    let name = &link.outputs[i].name;
    commands(link)
        .iter()
        .any(|c| matches!(c, SectionsCommand::Output(d) if &d.name == name))
}

/// The program header types for this layout (headers loaded or not).
fn program_header_count(link: &Link, headers_loaded: bool) -> usize {
    if !link.scripts.phdrs.is_empty() {
        return link.scripts.phdrs.len();
    }
    let sets = Vec::new();
    // PT_PHDR and the headers' PT_LOAD (which read-only sections right after join).
    let mut count = 2 * usize::from(headers_loaded);
    // The current load: its flags and first section (None: the headers only).
    let mut current: Option<(u32, Option<usize>)> = headers_loaded.then_some((PF_R, None));
    for i in 0..link.outputs.len() {
        if !link.outputs[i].is_alloc() || takes_no_load(&link.outputs[i]) {
            continue;
        }
        if !current.is_some_and(|(flags, first)| joins(link, &sets, i, first, flags)) {
            count += 1;
            current = Some((flags_of(link, i), Some(i)));
        }
    }
    let (lead, rest) = crate::layout::special_headers(link);
    count += lead.len() + rest.len();
    count
}

/// The memory region output section `i` goes in: the one its `> REGION` names, else (for
/// an allocated section, when `MEMORY` declares regions) the first whose attributes suit
/// its flags, as GNU ld and lld choose.
fn region_of<'a>(link: &'a Link, i: usize) -> Option<&'a str> {
    if let Some(r) = description(link, i).and_then(|d| d.region.as_deref()) {
        return Some(r);
    }
    let o = &link.outputs[i];
    if !o.is_alloc() {
        return None;
    }
    link.scripts
        .memory
        .iter()
        .find(|m| region_suits(&m.attributes, o.flags))
        .map(|m| m.name.as_str())
}

/// Whether a region with `attributes` (`r` read-only, `w`, `x`, `a`; after `!` negated)
/// takes a section with `flags`.
fn region_suits(attributes: &str, flags: u64) -> bool {
    let (mut want, mut want_not, mut neg, mut neg_not) = (0u64, 0u64, 0u64, 0u64);
    let mut negated = false;
    for c in attributes.chars() {
        let (bit, inverse) = match c.to_ascii_lowercase() {
            '!' => {
                negated = true;
                continue;
            }
            'w' => (u64::from(SHF_WRITE), false),
            'x' => (u64::from(SHF_EXECINSTR), false),
            'a' => (u64::from(SHF_ALLOC), false),
            'r' => (u64::from(SHF_WRITE), true),
            _ => continue,
        };
        match (negated, inverse) {
            (false, false) => want |= bit,
            (false, true) => want_not |= bit,
            (true, false) => neg |= bit,
            (true, true) => neg_not |= bit,
        }
    }
    if flags & neg != 0 || !flags & neg_not != 0 {
        return false;
    }
    flags & want != 0 || !flags & want_not != 0
}

/// The script's description of output section `i`, if it has one.
fn description<'a>(link: &'a Link, i: usize) -> Option<&'a OutputDescription> {
    let name = &link.outputs[i].name;
    commands(link).iter().find_map(|c| match c {
        SectionsCommand::Output(d) if &d.name == name => Some(&**d),
        _ => None,
    })
}

/// Whether output section `i` joins the `PT_LOAD` with `flags` that starts with section
/// `first` (`None`: only the headers so far), as lld decides: the same permissions, the
/// same memory region, and no load address of its own (`AT`, or another `AT>` region),
/// unless the segment holds only the headers.
fn joins(link: &Link, sets: &[Vec<usize>], i: usize, first: Option<usize>, flags: u32) -> bool {
    if !link.scripts.phdrs.is_empty() {
        // With PHDRS, the script says which PT_LOAD each section is in (`sets`, from
        // phdr_sets).
        let load_of = |k: usize| {
            sets[k]
                .iter()
                .copied()
                .find(|&p| link.scripts.phdrs[p].p_type == PT_LOAD)
        };
        return match first {
            Some(f) => load_of(i) == load_of(f),
            None => load_of(i).is_some_and(|p| {
                let spec = &link.scripts.phdrs[p];
                spec.filehdr || spec.phdrs
            }),
        };
    }
    // The section after the RELRO ones starts a load of its own (lld), so that what
    // PT_GNU_RELRO protects ends where a load does.
    if flags_of(link, i) != flags || starts_after_relro(link, i) {
        return false;
    }
    let d = description(link, i);
    let region = region_of(link, i);
    let Some(first) = first else {
        return region.is_none();
    };
    let f = description(link, first);
    let same_lma_region = d.is_none_or(|d| d.lma.is_none())
        && d.and_then(|d| d.lma_region.as_deref()) == f.and_then(|f| f.lma_region.as_deref());
    region == region_of(link, first) && same_lma_region
}

/// Whether allocated output section `i` is the first after the RELRO sections (those in a
/// load: `.tbss` is in none).
fn starts_after_relro(link: &Link, i: usize) -> bool {
    let relro = |o: &crate::output_section::OutputSection| segment_class(link, o) == Class::Relro;
    !relro(&link.outputs[i])
        && link.outputs[..i]
            .iter()
            .rfind(|o| o.is_alloc() && !takes_no_load(o))
            .is_some_and(relro)
}

/// Whether output section `o` has contents (lld's hasInputSections): inputs, the
/// linker's own contents, or a size a script gave it. Only such sections anchor orphans.
fn has_contents(o: &crate::output_section::OutputSection) -> bool {
    !o.inputs.is_empty() || o.synthetic.is_some() || o.size > 0
}

/// `.tbss` and the like (TLS without contents): only the TLS template describes them; no
/// `PT_LOAD` does (lld's needsPtLoad).
fn takes_no_load(o: &crate::output_section::OutputSection) -> bool {
    o.is_tls() && o.is_nobits()
}

/// With `PHDRS`: per output section, the program headers (indices in `PHDRS`) it is in:
/// those its `:NAME`s name, else those of the allocated section before it.
fn phdr_sets(link: &Link) -> Vec<Vec<usize>> {
    let mut sets = vec![Vec::new(); link.outputs.len()];
    let mut current: Vec<usize> = Vec::new();
    for (i, set) in sets.iter_mut().enumerate() {
        if !link.outputs[i].is_alloc() {
            continue;
        }
        if let Some(d) = description(link, i).filter(|d| !d.phdrs.is_empty()) {
            current = d
                .phdrs
                .iter()
                .filter_map(|n| link.scripts.phdrs.iter().position(|p| &p.name == n))
                .collect();
        }
        set.clone_from(&current);
    }
    sets
}

/// With `PHDRS`: the program headers exactly as listed, each spanning its sections.
fn listed_segments(link: &Link, places: &SectionPlaces, base: u64, headers: u64) -> Vec<Segment> {
    let page = link.opts.max_page_size.unwrap_or(PAGE);
    let sets = phdr_sets(link);
    let env = LinkEnv {
        link,
        symbols: &[],
        dot: None,
        headers: Some(headers),
        places: Some(places),
    };
    link.scripts
        .phdrs
        .iter()
        .enumerate()
        .map(|(p, spec)| {
            let members: Vec<&crate::output_section::OutputSection> = (0..link.outputs.len())
                .filter(|&i| sets[i].contains(&p))
                .map(|i| &link.outputs[i])
                .collect();
            let mut flags = PF_R;
            for o in &members {
                if o.is_exec() {
                    flags |= PF_X;
                }
                if o.is_writable() {
                    flags |= PF_W;
                }
            }
            if spec.p_type == PT_GNU_STACK && members.is_empty() {
                flags = PF_R | PF_W;
            }
            if let Some(v) = spec.flags.as_ref().and_then(|e| e.eval(&env).ok()) {
                flags = v.value as u32;
            }
            let with_headers = spec.filehdr || spec.phdrs;
            let first = members.first().map(|o| places.of(o));
            let (mut offset, mut vaddr) = first.map_or((0, 0), |p| (p.offset, p.addr));
            let paddr = first.and_then(|p| p.lma);
            if with_headers && spec.p_type == PT_LOAD {
                (offset, vaddr) = (0, base);
            }
            if spec.p_type == PT_PHDR {
                (offset, vaddr) = (64, base + 64);
            }
            let (filesz, memsz) = if spec.p_type == PT_PHDR {
                (headers - 64, headers - 64)
            } else {
                let file_end = members
                    .iter()
                    .filter(|o| !o.is_nobits())
                    .map(|o| places.offset(o) + o.size)
                    .max()
                    .unwrap_or(offset);
                let mem_end = members.iter().map(|o| places.end(o)).max().unwrap_or(vaddr);
                (file_end - offset, mem_end - vaddr)
            };
            let align = match spec.p_type {
                PT_LOAD => page,
                PT_PHDR => 8,
                _ => members.iter().map(|o| o.align).max().unwrap_or(0),
            };
            Segment {
                p_type: spec.p_type,
                flags,
                offset,
                vaddr,
                filesz,
                memsz,
                align,
                paddr,
            }
        })
        .collect()
}

/// Addresses, file offsets and segments of a scripted layout; the values of the
/// assignments inside `SECTIONS`. Where an expression names a section placed further on
/// (`ADDR`, `LOADADDR`), it reads its place in the `previous` layout (0 without one).
pub fn assign_addresses(link: &mut Link, previous: Option<&SectionPlaces>) -> Segments {
    let page = link.opts.max_page_size.unwrap_or(PAGE);
    let listed = !link.scripts.phdrs.is_empty();
    // With PHDRS, the headers are loaded where FILEHDR or PHDRS asks.
    let mut headers_loaded = !listed
        || link
            .scripts
            .phdrs
            .iter()
            .any(|p| p.p_type == PT_LOAD && (p.filehdr || p.phdrs));
    let lowest = |link: &Link, places: &SectionPlaces| {
        link.outputs
            .iter()
            .filter(|o| o.is_alloc())
            .map(|o| places.addr(o))
            .min()
            .unwrap_or(0)
    };
    let headers_size = |link: &Link, loaded| 64 + 56 * program_header_count(link, loaded) as u64;
    let (mut places, mut script) = walk_settled(link, headers_size(link, headers_loaded), previous);
    // Without PHDRS, the headers are loaded only if they fit below the first section;
    // else the walk is done again without them.
    if headers_loaded && !listed && headers_size(link, true) > lowest(link, &places) % page {
        headers_loaded = false;
        (places, script) = walk_settled(link, headers_size(link, false), Some(&places));
    }
    let headers = headers_size(link, headers_loaded);
    let min = lowest(link, &places);

    // File offsets and loads.
    let mut loads: Vec<Segment> = Vec::new();
    let mut offset = headers;
    let image_base;
    if headers_loaded {
        let base = ((min - headers) / page) * page;
        image_base = base;
        loads.push(Segment {
            p_type: PT_LOAD,
            flags: PF_R,
            offset: 0,
            vaddr: base,
            filesz: headers,
            memsz: headers,
            align: page,
            paddr: None,
        });
    } else {
        image_base = (min / page) * page;
    }
    let sets = if listed { phdr_sets(link) } else { Vec::new() };
    // The first section of the current load (None while it holds only the headers).
    let mut first: Option<usize> = None;
    for i in 0..link.outputs.len() {
        if !link.outputs[i].is_alloc() {
            continue;
        }
        let flags = flags_of(link, i);
        let (addr, size, nobits, lma) = {
            let o = &link.outputs[i];
            let place = places.of(o);
            (place.addr, o.size, o.is_nobits(), place.lma)
        };
        if !listed && takes_no_load(&link.outputs[i]) {
            // Only PT_TLS holds it: it starts no load and joins none (lld).
            places.set(&link.outputs[i], SectionPlace { addr, offset, lma });
            continue;
        }
        match loads.last_mut() {
            Some(load) if joins(link, &sets, i, first, load.flags) => {
                if !nobits {
                    // (Wrapping: a script that moves the counter back is refused after
                    // the layout, by check_addresses.)
                    offset = load.offset.wrapping_add(addr.wrapping_sub(load.vaddr));
                }
            }
            _ => {
                // A new segment: the file offset congruent to the address.
                offset += addr.wrapping_sub(offset) % page;
                loads.push(Segment {
                    p_type: PT_LOAD,
                    flags,
                    offset,
                    vaddr: addr,
                    filesz: 0,
                    memsz: 0,
                    align: page,
                    paddr: lma,
                });
                first = Some(i);
            }
        }
        let load = loads.last_mut().unwrap();
        places.set(&link.outputs[i], SectionPlace { addr, offset, lma });
        if !nobits {
            offset = offset.wrapping_add(size);
            load.filesz = offset.wrapping_sub(load.offset);
        }
        if !(link.outputs[i].is_tls() && nobits) {
            load.memsz = load
                .memsz
                .max(addr.wrapping_add(size).wrapping_sub(load.vaddr));
        }
    }
    crate::layout::place_non_alloc(link, &mut places, offset);

    let tls = crate::layout::tls_layout(link, &places);
    if listed {
        return Segments {
            headers: listed_segments(link, &places, image_base, headers),
            sections: places,
            tls,
            image_base,
            script,
        };
    }
    let (lead, rest) = crate::layout::special_headers(link);
    let mut segments = Vec::new();
    if headers_loaded {
        segments.push(Segment {
            p_type: PT_PHDR,
            flags: PF_R,
            offset: 64,
            vaddr: image_base + 64,
            filesz: headers - 64,
            memsz: headers - 64,
            align: 8,
            paddr: None,
        });
    }
    segments.extend(crate::layout::special_segments(link, &places, &tls, &lead));
    segments.extend(loads);
    segments.extend(crate::layout::special_segments(link, &places, &tls, &rest));
    Segments {
        sections: places,
        headers: segments,
        tls,
        image_base,
        script,
    }
}

/// Walks the commands with the location counter, giving every allocated output section
/// its address (and load address); returns those, and the value (and section) of each
/// assignment inside `SECTIONS`, where the data commands go, and what was wrong. Sections
/// not placed yet are where the `previous` layout put them.
fn walk(
    link: &mut Link,
    headers: u64,
    previous: Option<&SectionPlaces>,
    before: FxHashMap<String, Value>,
) -> (SectionPlaces, ScriptResults, Assigned) {
    let mut dot = Value {
        section: None,
        value: 0,
    };
    let mut values = Vec::new();
    // (output, address, load address)
    let mut addresses: Vec<(usize, u64, Option<u64>)> = Vec::new();
    let mut sizes: Vec<(usize, u64)> = Vec::new();
    let all_moves: Vec<(u32, u32, u64)>;
    let mut data_places: Vec<(usize, u64, usize)>;
    let mut errors = Vec::new();
    let mut assigned = Assigned::after(before);
    let memory;
    {
        let env_link: &Link = link;
        let steps = steps(env_link);
        let map = InputMap::new(commands(env_link));
        // Addresses are written back after the walk; expressions see the ones so far.
        let mut placed: Vec<Option<(u64, u64)>> = env_link
            .outputs
            .iter()
            .map(|o| {
                let p = previous?.of(o);
                Some((p.addr, p.lma.unwrap_or(p.addr)))
            })
            .collect();
        // MEMORY regions: name, start, end, and where the next section goes.
        let mut regions: Vec<(String, u64, u64, u64)> = Vec::new();
        {
            let env = ScriptEnv {
                inner: LinkEnv {
                    link: env_link,
                    symbols: &[],
                    dot: None,
                    headers: Some(headers),
                    places: None,
                },
                placed: &placed,
                assigned: &assigned,
            };
            for r in &env_link.scripts.memory {
                let mut value = |e: &crate::script_expr::Expr| match e.eval(&env) {
                    Ok(v) => v.value,
                    Err(err) => {
                        errors.push(format!("{}: {err}", r.line));
                        0
                    }
                };
                let origin = value(&r.origin);
                let length = value(&r.length);
                regions.push((
                    r.name.clone(),
                    origin,
                    origin.saturating_add(length),
                    origin,
                ));
            }
        }
        // The load address minus the address, kept from section to section until an
        // `AT` changes it (GNU ld and lld).
        let mut lma_offset = 0u64;
        // Sections whose script moves `.` among their inputs: the inputs' new offsets,
        // the sections' sizes, and `.` at each item.
        let mut moves: Vec<(u32, u32, u64)> = Vec::new();
        let mut item_dots: FxHashMap<(usize, usize), u64> = FxHashMap::default();
        // The memory region and load region of the section placed last.
        let mut previous: (Option<&str>, Option<&str>) = (None, None);
        for step in &steps {
            let env = ScriptEnv {
                inner: LinkEnv {
                    link: env_link,
                    symbols: &[],
                    dot: Some(dot),
                    headers: Some(headers),
                    places: None,
                },
                placed: &placed,
                assigned: &assigned,
            };
            match step {
                // Moving `.` inside an output section is the section's own layout
                // (replace_inputs).
                Step::Assign(a, _, Some(_)) if a.name == "." => {}
                Step::Assign(a, k, inside) => {
                    // Inside an output section, `.` is where the assignment stands among
                    // its input sections.
                    let env = match inside {
                        Some((i, item)) => ScriptEnv {
                            inner: LinkEnv {
                                link: env_link,
                                symbols: &[],
                                dot: Some(Value {
                                    section: Some(*i as u32),
                                    value: item_dots.get(&(*i, *item)).copied().unwrap_or_else(
                                        || inside_dot(env_link, &map, *i, *item, &placed),
                                    ),
                                }),
                                headers: Some(headers),
                                places: None,
                            },
                            placed: &placed,
                            assigned: &assigned,
                        },
                        None => env,
                    };
                    let v = a.expr.eval(&env).unwrap_or_else(|err| {
                        errors.push(format!("{}: {err}", a.line));
                        Value {
                            section: None,
                            value: 0,
                        }
                    });
                    if a.name == "." {
                        dot.value = v.value;
                    } else {
                        record(env_link, &mut values, *k, v);
                        remember(env_link, &mut assigned, a, *k, v);
                    }
                }
                Step::Output(i, desc) => {
                    let o = &env_link.outputs[*i];
                    if !o.is_alloc() {
                        continue;
                    }
                    let line = desc.map_or(0, |d| d.line);
                    let mut checked = |e: Option<&crate::script_expr::Expr>| {
                        e.and_then(|e| match e.eval(&env) {
                            Ok(v) => Some(v.value),
                            Err(err) => {
                                errors.push(format!("{line}: {err}"));
                                None
                            }
                        })
                    };
                    let explicit = checked(desc.and_then(|d| d.address.as_ref()));
                    let extra =
                        checked(desc.and_then(|d| d.align.as_ref())).map_or(1, |v| v.max(1));
                    let lma_expr = checked(desc.and_then(|d| d.lma.as_ref()));
                    if !extra.is_power_of_two() {
                        errors.push(format!("{line}: alignment must be a power of 2"));
                    }
                    let align = o.align.max(extra).max(1);
                    let find = |regions: &[(String, u64, u64, u64)], name: &Option<String>| {
                        name.as_ref()
                            .and_then(|n| regions.iter().position(|r| &r.0 == n))
                    };
                    let region =
                        region_of(env_link, *i).and_then(|n| regions.iter().position(|r| r.0 == n));
                    let start = match (explicit, region) {
                        (Some(a), _) => a,
                        (None, Some(r)) => regions[r].3,
                        (None, None) => dot.value,
                    };
                    let addr = if explicit.is_some() {
                        start
                    } else {
                        start.checked_next_multiple_of(align).unwrap_or(start)
                    };
                    let size = match desc.filter(|d| moves_dot(d)) {
                        Some(d) => {
                            let env = &env;
                            let mut at = |dot: u64| ScriptEnv {
                                inner: LinkEnv {
                                    link: env_link,
                                    symbols: &[],
                                    dot: Some(Value {
                                        section: Some(*i as u32),
                                        value: dot,
                                    }),
                                    headers: Some(headers),
                                    places: None,
                                },
                                placed: env.placed,
                                assigned: env.assigned,
                            };
                            match replace_inputs(env_link, &map, *i, d, addr, &mut at) {
                                Ok((size, moved, dots)) => {
                                    moves.extend(moved);
                                    item_dots.extend(dots.into_iter().map(|(j, v)| ((*i, j), v)));
                                    size
                                }
                                Err(e) => {
                                    errors.push(format!("{}: {e}", d.line));
                                    o.size
                                }
                            }
                        }
                        None => o.size,
                    };
                    sizes.push((*i, size));
                    let end = addr.wrapping_add(size);
                    if let Some(r) = region {
                        let (name, lo, hi, _) = &regions[r];
                        if addr < *lo || end > *hi {
                            errors.push(format!(
                                "section {} ({addr:#x} to {end:#x}) does not fit in region {name} ({lo:#x} to {hi:#x})",
                                o.name
                            ));
                        }
                        regions[r].3 = end;
                    }
                    let lma_region = desc.and_then(|d| find(&regions, &d.lma_region));

                    // lld's rule: an `AT` sets the offset; without one, a section keeps
                    // the offset of the one before in the same region, if that one had no
                    // load region of its own; else it loads where it runs.
                    let this = (
                        region_of(env_link, *i),
                        desc.and_then(|d| d.lma_region.as_deref()),
                    );
                    let lma = match (lma_expr, lma_region) {
                        (Some(l), _) => l,
                        (None, Some(r)) => {
                            let l = regions[r]
                                .3
                                .checked_next_multiple_of(align)
                                .unwrap_or(regions[r].3);
                            regions[r].3 = l.wrapping_add(size);
                            l
                        }
                        (None, None) if this.0 == previous.0 && previous.1.is_none() => {
                            addr.wrapping_add(lma_offset)
                        }
                        (None, None) => addr,
                    };
                    lma_offset = lma.wrapping_sub(addr);
                    previous = this;
                    placed[*i] = Some((addr, lma));
                    addresses.push((*i, addr, (lma != addr).then_some(lma)));
                    // `.tbss` is only in the TLS template: `.` does not move past it (lld).
                    if !(o.is_tls() && o.is_nobits()) {
                        dot = Value {
                            section: Some(*i as u32),
                            value: end,
                        };
                    }
                }
            }
        }
        all_moves = moves;
        // Where each data command's bytes go (output, address, item).
        data_places = item_dots
            .iter()
            .filter(|((i, j), _)| {
                description(env_link, *i)
                    .is_some_and(|d| matches!(d.items.get(*j), Some(OutputItem::Data { .. })))
            })
            .map(|(&(i, j), &at)| (i, at, j))
            .collect();
        memory = regions
            .into_iter()
            .map(|(name, start, end, reached)| (name, start, end - start, reached))
            .collect();
    }
    let mut places = SectionPlaces::for_outputs(&link.outputs);
    for (i, addr, lma) in addresses {
        places.set(
            &link.outputs[i],
            SectionPlace {
                addr,
                offset: 0,
                lma,
            },
        );
    }
    for (i, size) in sizes {
        link.outputs[i].size = size;
    }
    for (f, s, offset) in all_moves {
        link.objects[f as usize].sections[s as usize].offset = offset;
    }
    data_places.sort_unstable();
    let script = ScriptResults {
        values,
        errors: located(link, errors),
        data_places,
        memory,
    };
    (places, script, assigned)
}

/// Walks the script until what it assigns and where it places sections settle: again
/// while an expression read a symbol assigned or a section placed further on and the pass
/// changed something, at most [`MAX_PASSES`] times.
fn walk_settled(
    link: &mut Link,
    headers: u64,
    previous: Option<&SectionPlaces>,
) -> (SectionPlaces, ScriptResults) {
    let (mut places, mut script, mut assigned) =
        walk(link, headers, previous, FxHashMap::default());
    for _ in 1..MAX_PASSES {
        if !assigned.forward.get() {
            break;
        }
        let (p, sc, a) = walk(link, headers, Some(&places), assigned.now.clone());
        let settled = p == places && a.now == assigned.now;
        (places, script, assigned) = (p, sc, a);
        if settled {
            break;
        }
    }
    (places, script)
}

/// The name of the script with `SECTIONS`, for errors.
fn script_name<'a>(link: &'a Link) -> &'a str {
    link.scripts
        .sections
        .as_ref()
        .map_or("", |(o, _)| o.as_str())
}

/// Layout complaints with the script's name in front: `script:LINE: ...` for those that
/// start with their line, `script: ...` for the others.
fn located(link: &Link, errors: Vec<String>) -> Vec<String> {
    let origin = script_name(link);
    errors
        .into_iter()
        .map(|e| {
            if e.starts_with(|c: char| c.is_ascii_digit()) {
                format!("{origin}:{e}")
            } else {
                format!("{origin}: {e}")
            }
        })
        .collect()
}

/// Whether an output section description assigns `.` among its inputs or stores data
/// there: then the script lays it out item by item.
fn moves_dot(d: &OutputDescription) -> bool {
    d.items.iter().any(|item| match item {
        OutputItem::Assign(a) => a.name == ".",
        OutputItem::Data { .. } => true,
        OutputItem::Input { .. } => false,
    })
}

/// Lays out the inputs of output section `i` at `addr` item by item, honouring its
/// assignments to `.` (padding, alignment): the section's size, each input's new offset
/// (file, section, offset), and `.` at each other assignment. `env_at(dot)` evaluates there.
#[allow(clippy::type_complexity)]
fn replace_inputs<'e>(
    link: &Link,
    map: &InputMap,
    i: usize,
    d: &OutputDescription,
    addr: u64,
    env_at: &mut dyn FnMut(u64) -> ScriptEnv<'e>,
) -> std::result::Result<(u64, Vec<(u32, u32, u64)>, Vec<(usize, u64)>), String> {
    let o = &link.outputs[i];
    let plain = o.tails.is_empty()
        && o.synthetic.is_none()
        && o.inputs.iter().all(|&(f, s)| {
            link.objects[f as usize].sections[s as usize].kind == SectionKind::Regular
        });
    // Such a section keeps its contents where they are: the script may move `.` only
    // after its last input item, past everything.
    let last_input = d
        .items
        .iter()
        .rposition(|it| matches!(it, OutputItem::Input { .. }));
    let first_move = d.items.iter().position(|it| match it {
        OutputItem::Assign(a) => a.name == ".",
        OutputItem::Data { .. } => true,
        OutputItem::Input { .. } => false,
    });
    if !plain && last_input.is_some_and(|l| first_move.is_some_and(|m| m < l)) {
        return Err(format!(
            "`. =` or data between the inputs of {}, which holds merged strings, `.eh_frame`, common symbols or linker-made contents, is not supported yet",
            o.name
        ));
    }
    let mut offset = if plain { 0 } else { o.size };
    let mut moves = Vec::new();
    let mut dots = Vec::new();
    for (j, item) in d.items.iter().enumerate() {
        if !plain && last_input.is_some_and(|l| j <= l) {
            // Before the first move: the contents as laid out.
            if let OutputItem::Assign(_) = item {
                dots.push((j, addr + inside_offset(link, map, i, j)));
            }
            continue;
        }
        match item {
            OutputItem::Input { .. } => {
                for &(f, s) in &o.inputs {
                    let obj = &link.objects[f as usize];
                    let sec = &obj.sections[s as usize];
                    if map.rank(&obj.name, sec.name(), u64::from(sec.align)).0 != j {
                        continue;
                    }
                    let here = addr.wrapping_add(offset);
                    let aligned = here.next_multiple_of(u64::from(sec.align).max(1));
                    offset = aligned - addr;
                    moves.push((f, s, offset));
                    offset += sec.size();
                }
            }
            OutputItem::Assign(a) if a.name == "." => {
                let value = a
                    .expr
                    .eval(&env_at(addr.wrapping_add(offset)))
                    .map_err(|e| e.to_string())?
                    .value;
                let Some(new) = value.checked_sub(addr).filter(|&n| n >= offset) else {
                    return Err(format!("`.` cannot move backward inside {}", o.name));
                };
                offset = new;
            }
            OutputItem::Assign(_) => dots.push((j, addr.wrapping_add(offset))),
            OutputItem::Data { size, .. } => {
                // Recorded as an item whose `.` is where its bytes go.
                dots.push((j, addr.wrapping_add(offset)));
                offset += u64::from(*size);
            }
        }
    }
    Ok((offset, moves, dots))
}

/// The location counter at item `item` of output section `i`: the section's address plus
/// the end of what the items before it placed. A section rld makes (`.rela.plt`, `.got`)
/// counts as placed by the item whose pattern matches its name; what no pattern places
/// (merged strings, commons, copy relocations) ends up after the last input item.
fn inside_dot(
    link: &Link,
    map: &InputMap,
    i: usize,
    item: usize,
    placed: &[Option<(u64, u64)>],
) -> u64 {
    let base = placed[i].map_or(0, |p| p.0);
    base + inside_offset(link, map, i, item)
}

/// [`inside_dot`]'s offset from the section's start.
fn inside_offset(link: &Link, map: &InputMap, i: usize, item: usize) -> u64 {
    let o = &link.outputs[i];
    let after_inputs = description(link, i).is_some_and(|d| {
        !d.items[item..]
            .iter()
            .any(|it| matches!(it, OutputItem::Input { .. }))
    });
    if let Some(name) = synthetic_input_name(link, o) {
        if map.rank("", name, o.align).0 < item {
            o.size
        } else {
            0
        }
    } else if after_inputs {
        o.size
    } else {
        o.inputs
            .iter()
            .filter_map(|&(f, s)| {
                let obj = &link.objects[f as usize];
                let sec = &obj.sections[s as usize];
                let (rank, ..) = map.rank(&obj.name, sec.name(), u64::from(sec.align));
                (rank < item).then_some(sec.offset + sec.size())
            })
            .max()
            .unwrap_or(0)
    }
}

/// The input section name a script's patterns see for a section rld makes: its own, but
/// in a static link GNU ld's names for the IRELATIVE relocations and their PLT (so that
/// the default script's `__rela_iplt_start`/`__rela_iplt_end` enclose them).
fn synthetic_input_name<'a>(
    link: &Link,
    o: &'a crate::output_section::OutputSection,
) -> Option<&'a str> {
    use crate::output_section::Synthetic;
    Some(match o.synthetic? {
        Synthetic::RelaPlt if !link.is_dynamic => ".rela.iplt",
        Synthetic::Plt if !link.is_dynamic => ".iplt",
        _ => &o.name,
    })
}

/// `--orphan-handling=warn|error` (lld's): every section a laying-out `SECTIONS` does not
/// place, the inputs' in input order and then the linker's own, in lld's words
/// ("`FILE:(NAME)` is being placed in 'NAME'"); warned about, or each an error.
pub fn report_orphans(link: &Link) -> Result<()> {
    use crate::options::OrphanHandling;
    let policy = link.opts.orphan_handling;
    if policy == OrphanHandling::Place || !link.scripts.lays_out() {
        return Ok(());
    }
    let map = InputMap::new(commands(link));
    let mut orphans = Vec::new();
    for obj in &link.objects {
        for s in obj.sections.iter().filter(|s| s.is_kept()) {
            let owner = obj.owner_of(s);
            if map.place(owner, s.name()).is_none() {
                let at = link
                    .outputs
                    .position(s.output)
                    .map(|k| &link.outputs[k].name);
                let placed_in = at.map_or(s.name(), |n| n.as_str());
                orphans.push(format!(
                    "{owner}:({}) is being placed in '{placed_in}'",
                    s.name()
                ));
            }
        }
    }
    for o in link.outputs.iter() {
        let Some(name) = synthetic_input_name(link, o) else {
            continue;
        };
        if map.place("", name).is_none() {
            orphans.push(format!(
                "<internal>:({name}) is being placed in '{}'",
                o.name
            ));
        }
    }
    // The symbol and section-name tables are sections too (lld's are synthetic ones).
    let tables: &[&str] = if link.opts.strip_all {
        &[".shstrtab"]
    } else {
        &[".symtab", ".shstrtab", ".strtab"]
    };
    for name in tables.iter().filter(|&&n| map.place("", n).is_none()) {
        orphans.push(format!("<internal>:({name}) is being placed in '{name}'"));
    }
    if policy == OrphanHandling::Error && !orphans.is_empty() {
        return Err(LinkError::Many(orphans));
    }
    for line in &orphans {
        crate::diag::warn(line);
    }
    Ok(())
}

/// Expressions inside `SECTIONS`: the link's symbols, the counter, and the addresses of
/// the sections placed so far.
struct ScriptEnv<'a> {
    inner: LinkEnv<'a>,
    /// Per output: the address and load address it was given so far in the walk.
    placed: &'a [Option<(u64, u64)>],
    /// The values the script's assignments gave their symbols.
    assigned: &'a Assigned,
}

/// The values a layout pass's assignments gave the symbols the script defines (lld's rule:
/// a later assignment reads the value an earlier one gave, section-relative or absolute as
/// it was), each computed once; what the pass before gave them, for the assignments that
/// read a symbol assigned further on; and whether one did (or read the place of a section
/// placed further on), which takes another pass, as lld's layout repeats until addresses
/// settle.
#[derive(Default)]
struct Assigned {
    now: FxHashMap<String, Value>,
    before: FxHashMap<String, Value>,
    forward: std::cell::Cell<bool>,
}

impl Assigned {
    /// A pass that reads `before`, the values of the pass before it.
    fn after(before: FxHashMap<String, Value>) -> Assigned {
        Assigned {
            before,
            ..Assigned::default()
        }
    }
}

/// How many times the layout walks the script at most, for forward references to settle
/// (each pass reads the values of the one before).
const MAX_PASSES: usize = 10;

impl Env for ScriptEnv<'_> {
    fn symbol(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.assigned.now.get(name) {
            return Some(*v);
        }
        if script_assignment(self.inner.link, name).is_some() {
            // Assigned further on: its value in the pass before, if there was one.
            self.assigned.forward.set(true);
            if let Some(v) = self.assigned.before.get(name) {
                return Some(*v);
            }
        }
        self.inner.symbol(name)
    }

    fn section(&self, name: &str) -> Option<crate::script_expr::SectionInfo> {
        let mut s = self.inner.section(name)?;
        match self.placed.get(s.index as usize).copied().flatten() {
            Some((addr, lma)) => {
                s.addr = addr;
                s.lma = lma;
            }
            None => self.assigned.forward.set(true),
        }
        Some(s)
    }

    fn max_page_size(&self) -> u64 {
        self.inner.max_page_size()
    }

    fn common_page_size(&self) -> u64 {
        self.inner.common_page_size()
    }

    fn sizeof_headers(&self) -> u64 {
        self.inner.sizeof_headers()
    }

    fn dot(&self) -> Option<Value> {
        self.inner.dot()
    }
}

/// The bytes of the data commands (`BYTE`, `LONG`, ...), once every symbol has its value:
/// (output section, offset in it, bytes).
pub fn data_bytes(
    link: &Link,
    segments: &Segments,
    symbols: &[u64],
) -> Result<Vec<(u32, u64, Vec<u8>)>> {
    let mut out = Vec::new();
    for &(i, at, j) in &segments.script.data_places {
        let Some(d) = description(link, i) else {
            continue;
        };
        let Some(OutputItem::Data { size, expr }) = d.items.get(j) else {
            continue;
        };
        let dot = Value {
            section: Some(i as u32),
            value: at,
        };
        let value = evaluate(link, symbols, Some(segments), expr, d.line, Some(dot))?;
        out.push((
            i as u32,
            at - segments.sections.addr(&link.outputs[i]),
            value.to_le_bytes()[..usize::from(*size)].to_vec(),
        ));
    }
    Ok(out)
}

/// `SUBALIGN(A)`: the input sections of the output section are aligned to A, whatever
/// their own alignment (lld, GNU ld).
pub fn apply_subalign(link: &mut Link) -> Result<()> {
    let mut wanted = Vec::new();
    for c in commands(link) {
        let SectionsCommand::Output(d) = c else {
            continue;
        };
        let Some(e) = &d.subalign else {
            continue;
        };
        let v = alignment(link, e, d.line)?;
        // An input section's alignment is at most 4 GiB, as an object's may be (lld's
        // limit).
        let v = u32::try_from(v).map_err(|_| {
            LinkError::Link(format!(
                "{}:{}: SUBALIGN({v}) is too large",
                script_name(link),
                d.line
            ))
        })?;
        wanted.push((d.name.clone(), v));
    }
    for (name, v) in wanted {
        let inputs: Vec<(u32, u32)> = link
            .outputs
            .iter()
            .filter(|o| o.name == name)
            .flat_map(|o| o.inputs.iter().copied())
            .collect();
        for (f, s) in inputs {
            link.objects[f as usize].sections[s as usize].align = v;
        }
    }
    Ok(())
}

/// An alignment a script gives (`ALIGN(A)`, `SUBALIGN(A)`): a power of 2.
fn alignment(link: &Link, expr: &crate::script_expr::Expr, line: usize) -> Result<u64> {
    // Before layout: no symbol has an address yet.
    let v = evaluate(link, &[], None, expr, line, None)?;
    if !v.is_power_of_two() {
        return Err(LinkError::Link(format!(
            "{}:{line}: alignment must be a power of 2",
            script_name(link)
        )));
    }
    Ok(v)
}

/// The value of a script expression (`.` at `dot`), before the layout (no `segments`) or
/// once laid out, with the symbols' values known so far; or an error naming the script
/// and line.
fn evaluate(
    link: &Link,
    symbols: &[u64],
    segments: Option<&Segments>,
    expr: &crate::script_expr::Expr,
    line: usize,
    dot: Option<Value>,
) -> Result<u64> {
    let env = LinkEnv {
        link,
        symbols,
        dot,
        headers: segments.map(Segments::headers_size),
        places: segments.map(|s| &s.sections),
    };
    expr.eval(&env)
        .map(|v| v.value)
        .map_err(|e| LinkError::Link(format!("{}:{line}: {e}", script_name(link))))
}

/// The fill patterns of output sections (`=FILL`, `FILL(...)`): the expression's low 32
/// bits, big-endian, as GNU ld and lld store them.
pub fn fills(link: &Link, segments: &Segments, symbols: &[u64]) -> Result<Vec<(u32, [u8; 4])>> {
    let mut out = Vec::new();
    for (i, o) in link.outputs.iter().enumerate() {
        let Some(d) = description(link, i) else {
            continue;
        };
        let Some(expr) = &d.fill else {
            continue;
        };
        if o.is_nobits() || o.synthetic.is_some() {
            continue;
        }
        let value = evaluate(link, symbols, Some(segments), expr, d.line, None)?;
        out.push((i as u32, (value as u32).to_be_bytes()));
    }
    Ok(out)
}

/// `INSERT AFTER|BEFORE ANCHOR`: the script's output sections, in script order, moved next
/// to the anchor in the usual order.
pub fn insert_order(link: &Link, order: &mut Vec<usize>) {
    let Some((after, anchor)) = &link.scripts.insert else {
        return;
    };
    let mut inserted = Vec::new();
    for c in commands(link) {
        if let SectionsCommand::Output(d) = c {
            if let Some(k) = order.iter().position(|&i| link.outputs[i].name == d.name) {
                inserted.push(order.remove(k));
            }
        }
    }
    let Some(at) = order.iter().position(|&i| &link.outputs[i].name == anchor) else {
        order.extend(inserted);
        return;
    };
    let at = if *after { at + 1 } else { at };
    for (k, i) in inserted.into_iter().enumerate() {
        order.insert(at + k, i);
    }
}

/// With `INSERT`: the values of the assignments among the inserted commands, once the
/// usual layout has placed the sections (`.` follows them from the anchor).
pub fn insert_values(link: &Link, segments: &Segments) -> ScriptResults {
    let Some((after, anchor)) = link.scripts.insert.clone() else {
        return ScriptResults::default();
    };
    let map = InputMap::new(commands(link));
    let anchor_at = link.outputs.iter().position(|o| o.name == anchor);
    let mut dot = Value {
        section: anchor_at.map(|i| i as u32),
        value: anchor_at.map_or(0, |i| {
            let o = &link.outputs[i];
            if after {
                segments.sections.end(o)
            } else {
                segments.sections.addr(o)
            }
        }),
    };
    let steps = steps(link);
    let placed: Vec<Option<(u64, u64)>> = link
        .outputs
        .iter()
        .map(|o| {
            let p = segments.sections.of(o);
            Some((p.addr, p.lma.unwrap_or(p.addr)))
        })
        .collect();
    let mut values: Vec<(u64, Option<u32>)> = Vec::new();
    let mut assigned = Assigned::default();
    let mut errors = Vec::new();
    for step in &steps {
        match step {
            Step::Output(i, Some(_)) => {
                let o = &link.outputs[*i];
                dot = Value {
                    section: Some(*i as u32),
                    value: segments.sections.end(o),
                };
            }
            Step::Output(..) => {}
            Step::Assign(a, k, inside) => {
                let here = match inside {
                    Some((i, item)) => Value {
                        section: Some(*i as u32),
                        value: inside_dot(link, &map, *i, *item, &placed),
                    },
                    None => dot,
                };
                let env = ScriptEnv {
                    inner: LinkEnv {
                        link,
                        symbols: &[],
                        dot: Some(here),
                        headers: Some(segments.headers_size()),
                        places: Some(&segments.sections),
                    },
                    placed: &placed,
                    assigned: &assigned,
                };
                let v = a.expr.eval(&env).unwrap_or_else(|e| {
                    errors.push(format!("{}: {e}", a.line));
                    Value {
                        section: None,
                        value: 0,
                    }
                });
                record(link, &mut values, *k, v);
                remember(link, &mut assigned, a, *k, v);
            }
        }
    }
    ScriptResults {
        values,
        errors: located(link, errors),
        data_places: Vec::new(),
        memory: Vec::new(),
    }
}

/// Keeps the value assignment `k` gave its symbol, for the assignments after it to read,
/// if the script defines the symbol (a `PROVIDE` nothing wants does not).
fn remember(
    link: &Link,
    assigned: &mut Assigned,
    a: &crate::input::script::Assignment,
    k: usize,
    v: Value,
) {
    if script_assignment(link, &a.name).is_some_and(|j| !a.provide || j == k) {
        assigned.now.insert(a.name.clone(), v);
    }
}

/// The assignment of the script that defines symbol `name`, if one does.
fn script_assignment(link: &Link, name: &str) -> Option<usize> {
    let id = link.symtab.lookup(name.as_bytes())?;
    match link.linker_symbols.get(&id)? {
        LinkerSymbol::ScriptDot(j, _) => Some(*j),
        _ => None,
    }
}

/// Keeps assignment `k`'s value: relative to the section it is relative to (the one
/// before, for `.`), absolute for a number (`LOADADDR`, ...).
fn record(link: &Link, values: &mut Vec<(u64, Option<u32>)>, k: usize, v: Value) {
    if values.len() <= k {
        values.resize(k + 1, (0, None));
    }
    let section = v
        .section
        .and_then(|p| link.outputs.get(p as usize))
        .map(|o| o.index);
    values[k] = (v.value, section);
}

/// `--print-memory-usage` (GNU ld's and lld's table, on standard output): per `MEMORY`
/// region, how much the sections placed in it use, of how much.
pub fn memory_usage(results: &ScriptResults) -> String {
    fn size(n: u64) -> String {
        match n {
            // (0 is "0 GB", as in GNU ld's and lld's table.)
            n if n & 0x3fff_ffff == 0 => format!("{:>10} GB", n >> 30),
            n if n & 0xf_ffff == 0 => format!("{:>10} MB", n >> 20),
            n if n & 0x3ff == 0 => format!("{:>10} KB", n >> 10),
            n => format!(" {n:>10} B"),
        }
    }
    let mut out = String::from("Memory region         Used Size  Region Size  %age Used\n");
    for (name, origin, length, reached) in &results.memory {
        let used = reached.saturating_sub(*origin);
        out.push_str(&format!("{name:>16}: {}", size(used)));
        if *length != 0 {
            let percent = used as f64 * 100.0 / *length as f64;
            out.push_str(&format!("{}    {percent:6.2}%", size(*length)));
        }
        out.push('\n');
    }
    out
}
