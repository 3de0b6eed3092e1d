//! Layout: which output section every input goes to, where each input sits inside it, the
//! synthetic sections, the order of output sections, the segments, and finally every address.
//!
//! The memory image follows lld's default: a read-only segment (headers, dynamic tables,
//! rodata, unwind tables), an executable one, a RELRO one (TLS templates, constructor
//! tables, .data.rel.ro, .dynamic, .got) and a read-write one (.got.plt, .data, .bss). Each
//! segment starts on a new page at an address congruent to its file offset, so the file
//! itself needs no padding between segments.

use crate::context::{
    Link, LinkerSymbol, SectionPlace, SectionPlaces, Segment, Segments, TlsLayout,
};
use crate::dynamic::DynamicTables;
use crate::error::{LinkError, Result};
use crate::gc::is_c_identifier;
use crate::image::Image;
use crate::object_file::{FileId, Piece, SectionKind};
use crate::output_section::{
    group_eh_frames, init_priority, output_section_name, split_eh_frame, CieTable, OutputId,
    OutputSection, Placement, Synthetic, Tail, TailKind,
};
use crate::symbols::SymbolDef;
use crate::tables::Tables;
use object::elf::*;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

pub(crate) const PAGE: u64 = 0x1000;
const EXEC_BASE: u64 = 0x20_0000;
/// The input flags an output section does not take over (it has the union of the rest: a
/// `.rodata` with a mergeable-strings input is AMS, `.debug_str` stays MS, as lld makes
/// them, compressed or not; SHF_GNU_RETAIN stays, as GNU ld and lld keep it).
const FLAG_MASK: u64 = !(SHF_GROUP as u64 | SHF_INFO_LINK as u64 | SHF_COMPRESSED as u64);

/// Puts every kept input section into its output section (in input order, constructor
/// tables sorted by priority) and computes its offset there.
pub fn assign_input_sections(link: &mut Link) -> Result<()> {
    crate::script_layout::apply_constraints(link);
    let script = link.scripts.sections.as_ref().map(|(_, commands)| {
        crate::script_layout::InputMap::new(commands).sorting_sections_by(link.opts.sort_section)
    });
    let rules = Rules {
        strip_debug: link.opts.strip_debug || link.opts.strip_all,
        drop_nonalloc: !link.opts.z_section_header,
        keep_text_prefix: link.opts.z_keep_text_section_prefix,
        relocatable: link.opts.relocatable,
        groups_resolved: link.opts.force_group_allocation,
        script: script.as_ref(),
        orphans_keep_names: link.scripts.lays_out(),
    };
    // Each object's kept sections grouped by output section key, in parallel; then the
    // groups are given output sections in input order (so outputs are numbered, and their
    // inputs listed, in the order their sections appear).
    let grouped: Vec<Vec<KeyGroup>> = link
        .objects
        .par_iter_mut()
        .enumerate()
        .map(|(f, obj)| group_by_output(f as u32, obj, &rules))
        .collect();
    let mut by_key: FxHashMap<OutputKey, OutputId> = FxHashMap::default();
    // The outputs whose inputs disagree on their entry size (known from the groups, each
    // checked on its own: a pass over every input section here would be a cache miss each).
    let mut mixed_entsize: rustc_hash::FxHashSet<OutputId> = Default::default();
    // Per object, per group: its output (the sections learn it below, in parallel).
    let mut placed: Vec<Vec<(OutputId, Vec<u32>)>> = Vec::with_capacity(grouped.len());
    for (f, groups) in grouped.into_iter().enumerate() {
        let mut file_outputs = Vec::with_capacity(groups.len());
        for g in groups {
            let out = match by_key.get(&g.key) {
                Some(&out) => out,
                None => {
                    let out = link
                        .outputs
                        .add(OutputSection::new(g.key.0, g.sh_type, g.flags));
                    by_key.insert(g.key, out);
                    out
                }
            };
            let o = link.outputs.section_mut(out);
            o.flags |= g.flags;
            if o.sh_type == SHT_NOBITS && g.has_progbits {
                o.sh_type = SHT_PROGBITS;
            }
            if o.inputs.is_empty() {
                o.entsize = g.entsize;
            }
            if !g.same_entsize || g.entsize != o.entsize {
                mixed_entsize.insert(out);
            }
            o.inputs.extend(g.sections.iter().map(|&i| (f as u32, i)));
            file_outputs.push((out, g.sections));
        }
        placed.push(file_outputs);
    }
    link.objects
        .par_iter_mut()
        .zip(placed)
        .for_each(|(obj, groups)| {
            for (out, sections) in groups {
                for i in sections {
                    obj.sections[i as usize].output = out;
                }
            }
        });
    if let Some((_, commands)) = &link.scripts.sections {
        // `(NOLOAD)`: memory without file contents, like `.bss`.
        for c in commands {
            if let crate::input::script::SectionsCommand::Output(d) = c {
                for o in link.outputs.iter_mut().filter(|o| o.name == d.name) {
                    if d.noload {
                        o.sh_type = SHT_NOBITS;
                    }
                    // `(COPY)`, `(INFO)`, `(OVERLAY)`.
                    if d.not_allocated {
                        o.flags &= !u64::from(SHF_ALLOC);
                    }
                }
            }
        }
    }
    // `--call-graph-profile-sort` (not in `-r`, as lld): the profile's sections get
    // priorities 1 up, after those of `--symbol-ordering-file` (negative).
    if !rules.relocatable && !link.call_graph.is_empty() {
        let kind = link.opts.call_graph_sort;
        let priorities = crate::call_graph_sort::priorities(link, &link.call_graph, kind)?;
        for (section, priority) in priorities {
            link.section_order.entry(section).or_insert(priority);
        }
    }
    if !rules.relocatable && !link.opts.shuffle_sections.is_empty() {
        let mut order = std::mem::take(&mut link.section_order);
        crate::shuffle::add_priorities(link, &link.opts.shuffle_sections, &mut order);
        link.section_order = order;
    }
    // The ordered sections first, by priority; the others after them in their order.
    // lld never reorders `.init` and `.fini`: their pieces make one function.
    let order = &link.section_order;
    let ordered = |name: &str, section: (u32, u32)| match name {
        ".init" | ".fini" => (1, 0),
        _ => order.get(&section).map_or((1, 0), |&p| (0, p)),
    };
    if let Some(map) = &script {
        // Inside a script's output section, sections go description by description (in
        // each, the ordering file's first, then as a `SORT` orders them), not in input order.
        for o in link.outputs.iter_mut() {
            let objects = &link.objects;
            o.inputs.sort_by_cached_key(|&(f, i)| {
                let obj = &objects[f as usize];
                let s = &obj.sections[i as usize];
                let (item, outer, inner) = map.rank(&obj.name, s.name(), u64::from(s.align));
                (item, ordered(&o.name, (f, i)), outer, inner)
            });
        }
    } else if !order.is_empty() {
        for o in link.outputs.iter_mut() {
            o.inputs.sort_by_key(|&section| ordered(&o.name, section));
        }
    }
    for o in link.outputs.iter_mut() {
        let arrays = [".init_array", ".fini_array", ".preinit_array"];
        let scripted = link
            .scripts
            .sections
            .as_ref()
            .is_some_and(|(_, commands)| {
                commands.iter().any(|c| {
                    matches!(c, crate::input::script::SectionsCommand::Output(d) if d.name == o.name)
                })
            });
        if !rules.relocatable && !scripted && arrays.contains(&o.name.as_str()) {
            let objects = &link.objects;
            // GNU ld's SORT_BY_INIT_PRIORITY: equal priorities go by section name (so
            // `.ctors.N` before `.init_array.M`), then input order; the unprioritized
            // tables stay in input order.
            o.inputs.sort_by_cached_key(|&(f, i)| {
                let name = objects[f as usize].sections[i as usize].name();
                let priority = init_priority(name);
                (priority, if priority < 65536 { name } else { "" })
            });
        }
        // The entry size stays if the inputs agree on it (lld's rule); a relocatable output
        // stays mergeable only then.
        if mixed_entsize.contains(&o.id) {
            o.entsize = 0;
            if rules.relocatable {
                o.flags &= !u64::from(SHF_MERGE | SHF_STRINGS);
            }
        }
    }
    order_linked_sections(link);
    Ok(())
}

/// SHF_LINK_ORDER outputs (lld's resolveShfLinkOrder): the inputs linked to a section
/// come first, in the order of the sections they are linked to (output, then place
/// there), the others after them in their order; the output's sh_link names the output
/// of the first one's section.
fn order_linked_sections(link: &mut Link) {
    let linked = |f: u32, i: u32| link.objects[f as usize].link_order_parent(i);
    let parents: rustc_hash::FxHashSet<(u32, u32)> = link
        .objects
        .iter()
        .enumerate()
        .flat_map(|(f, obj)| obj.link_order.iter().map(move |&(_, p)| (f as u32, p)))
        .collect();
    if parents.is_empty() {
        return;
    }
    let mut place: FxHashMap<(u32, u32), (u32, usize)> = FxHashMap::default();
    for o in link.outputs.iter() {
        for (at, section) in o.inputs.iter().enumerate() {
            if parents.contains(section) {
                place.insert(*section, (o.id.0, at));
            }
        }
    }
    for o in link.outputs.iter_mut() {
        if o.flags & u64::from(SHF_LINK_ORDER) == 0 {
            continue;
        }
        o.inputs.sort_by_key(|&(f, i)| {
            linked(f, i)
                .and_then(|p| place.get(&(f, p)))
                .map_or((1, 0, 0), |&(out, at)| (0, out, at))
        });
        o.linked_to = o
            .inputs
            .first()
            .and_then(|&(f, i)| Some(OutputId(place.get(&(f, linked(f, i)?))?.0)));
    }
}

/// What sends input sections to the same output section: its name, whether it is loaded,
/// whether it is TLS and whether it is TLS `.bss`, and for a COMDAT group member in `-r` output (which stays a
/// section of its own, so that the final link can still drop it) the section itself.
type OutputKey = (&'static str, u64, bool, Option<(u32, u32)>);

/// How input sections map to output sections.
struct Rules<'a> {
    strip_debug: bool,
    /// `-z nosectionheader`: no section is found without headers, so only the loaded
    /// ones are written (lld's rule).
    drop_nonalloc: bool,
    keep_text_prefix: bool,
    /// A linker script's `SECTIONS`: where its patterns send input sections.
    script: Option<&'a crate::script_layout::InputMap<'a>>,
    /// Under a whole `SECTIONS` layout, a section no pattern places keeps its own name
    /// (`.rodata.str1.1` is not folded into `.rodata`), as GNU ld and lld name orphans.
    orphans_keep_names: bool,
    /// `-r`: sections keep their names (as lld and GNU ld do), group members and what
    /// makes them mergeable.
    relocatable: bool,
    /// `--force-group-allocation`: `-r` resolves COMDAT groups, whose members are then
    /// sections like any other.
    groups_resolved: bool,
}

/// One object's sections that go to one output section, in section order.
struct KeyGroup {
    key: OutputKey,
    /// The output's type, from the first of them.
    sh_type: u32,
    flags: u64,
    /// One of them has contents (an output of NOBITS and PROGBITS inputs has contents).
    has_progbits: bool,
    /// The first one's entry size.
    entsize: u64,
    /// Every one of them has that entry size.
    same_entsize: bool,
    sections: Vec<u32>,
}

/// The kept sections of `obj` grouped by output key, groups in order of first appearance
/// (constructor tables folded into the arrays are reversed on the way).
fn group_by_output(
    file: u32,
    obj: &mut crate::object_file::ObjectFile,
    rules: &Rules,
) -> Vec<KeyGroup> {
    let mut groups: Vec<KeyGroup> = Vec::new();
    let mut index: FxHashMap<OutputKey, usize> = FxHashMap::default();
    for i in 0..obj.sections.len() {
        let s = &obj.sections[i];
        if !s.is_kept() {
            continue;
        }
        if !s.is_alloc()
            && (rules.drop_nonalloc || rules.strip_debug && s.name().starts_with(".debug"))
        {
            continue;
        }
        let input_name: &'static str = s.name();
        let mut scripted = rules.script.and_then(|m| m.place(&obj.name, input_name));
        // `-r`: a COMDAT group's members stay sections of their own (GNU ld's rule), so
        // the final link can still drop the group whole; a script can only discard them.
        // With `--force-group-allocation` the groups are resolved as in a final link, and
        // their members are sections like any other.
        let grouped = s.flags & u64::from(SHF_GROUP) != 0 && !rules.groups_resolved;
        if rules.relocatable && grouped && scripted != Some(None) {
            scripted = None;
        }
        let (name, flags, member) = if let Some(target) = scripted {
            let Some(name) = target else {
                // `/DISCARD/`.
                obj.sections[i].live = false;
                continue;
            };
            (name, s.flags & FLAG_MASK, None)
        } else if rules.relocatable {
            let kept = if rules.groups_resolved {
                FLAG_MASK
            } else {
                FLAG_MASK | u64::from(SHF_GROUP)
            };
            // A SHF_LINK_ORDER section stays apart from those linked to other sections, so
            // that it still lives (and is ordered) with its own (lld's rule).
            let linked = obj.link_order_parent(i as u32).map(|p| (file, p));
            let group = grouped.then_some((file, i as u32));
            let member = linked.or(group);
            (input_name, s.flags & kept, member)
        } else if rules.orphans_keep_names {
            (input_name, s.flags & FLAG_MASK, None)
        } else {
            let name = output_section_name(input_name, rules.keep_text_prefix);
            (name, s.flags & FLAG_MASK, None)
        };
        // Sections of one name share an output section whose flags are their union (a
        // `.foobar` that is "a" in one object, "aw" in another and "ax" in a third is one
        // WAX section), as lld and GNU ld give it; only TLS and non-TLS, or loaded and
        // not-loaded sections of one name, stay apart, since one address rule cannot
        // serve both.
        let key_flags = flags & u64::from(SHF_ALLOC | SHF_TLS);
        let nobits = s.sh_type == SHT_NOBITS;
        let key = (
            name,
            key_flags,
            nobits && flags & u64::from(SHF_TLS) != 0,
            member,
        );
        let sh_type = match (s.sh_type, name) {
            // `-r` keeps the input's type, as lld and GNU ld do.
            (SHT_X86_64_UNWIND, _) if !rules.relocatable => SHT_PROGBITS,
            // `.ctors`/`.dtors` (PROGBITS) folded into the arrays keep the arrays' type.
            (_, ".init_array") => SHT_INIT_ARRAY,
            (_, ".fini_array") => SHT_FINI_ARRAY,
            (t, _) => t,
        };
        let entsize = s.entsize;
        if name != input_name
            && (input_name.starts_with(".ctors") || input_name.starts_with(".dtors"))
        {
            reverse_pointer_table(&mut obj.sections[i]);
        }
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(KeyGroup {
                key,
                sh_type,
                flags: 0,
                has_progbits: false,
                entsize: entsize.into(),
                same_entsize: true,
                sections: Vec::new(),
            });
            groups.len() - 1
        });
        let g = &mut groups[g];
        g.same_entsize &= g.entsize == u64::from(entsize);
        g.flags |= flags;
        g.has_progbits |= sh_type != SHT_NOBITS;
        g.sections.push(i as u32);
    }
    groups
}

/// `.ctors`/`.dtors` run from their end to their start, `.init_array`/`.fini_array` from
/// start to end (`.fini_array` is run backwards by the loader, `.dtors` forwards by the old
/// crt code): a table folded into the arrays has its pointers reversed, as GNU ld does, so
/// each object's constructors keep their order. Relocations move with their pointers.
fn reverse_pointer_table(sec: &mut crate::object_file::InputSection) {
    use object::read::elf::Rela as _;
    let size = sec.data().len();
    if size < 16 || !size.is_multiple_of(8) || sec.sh_type == SHT_NOBITS {
        return;
    }
    let data: Vec<u8> = sec
        .data()
        .chunks_exact(8)
        .rev()
        .flatten()
        .copied()
        .collect();
    let mirror = |off: u64| (size as u64 - 8 - (off & !7)) | (off & 7);
    let relocs: Vec<crate::object_file::Rela> = sec
        .relocs()
        .iter()
        .map(|r| {
            let le = crate::object_file::LE;
            object::elf::Rela64 {
                r_offset: object::U64::new(le, mirror(r.r_offset(le))),
                r_info: r.r_info,
                r_addend: r.r_addend,
            }
        })
        .collect();
    // Sections live as long as the link, like the mapped inputs they come from.
    sec.set_data(Box::leak(data.into_boxed_slice()));
    sec.set_relocs(Box::leak(relocs.into_boxed_slice()))
        .expect("as many relocations as the section had");
}

/// An upper bound of the loaded image's size before layout (allocated input sections with
/// their worst-case padding, and commons), to tell whether 32-bit PC-relative references
/// created by relaxation may fail to reach.
/// What the relocation scan must know of the image before its layout: whether relaxed
/// references are sure to reach.
#[derive(Debug, Clone, Copy)]
pub struct ImageEstimate {
    /// The image may span 1 GiB or more: a PC-relative 32-bit reference may not reach.
    pub large: bool,
    /// A position-dependent output at its default place (or `--image-base`) ending, by a
    /// generous estimate, below 2 GiB: every address fits a sign-extended 32-bit immediate.
    /// Not known with a linker script's or `--section-start`'s placement.
    pub low_addresses: bool,
}

pub fn estimate_image(link: &Link) -> ImageEstimate {
    let size = estimated_image_size(link);
    let opts = link.opts;
    let placed = link.scripts.lays_out() || !opts.section_start.is_empty();
    // Twice the size for the synthetic sections and padding, and a page per segment.
    let page = opts.max_page_size.unwrap_or(PAGE);
    let base = opts.image_base.unwrap_or(EXEC_BASE.next_multiple_of(page));
    let end = base
        .saturating_add(size.saturating_mul(2))
        .saturating_add(page.saturating_mul(16));
    ImageEstimate {
        large: size >= 1 << 30,
        low_addresses: !opts.is_pic() && !placed && end < 1 << 31,
    }
}

fn estimated_image_size(link: &Link) -> u64 {
    // Saturating sums of sizes: the same in any grouping, so summed in parallel.
    let sections: u64 = link
        .objects
        .par_iter()
        .map(|o| {
            o.sections
                .iter()
                .filter(|s| s.is_kept() && s.is_alloc())
                .map(|s| s.size().saturating_add(u64::from(s.align)))
                .fold(0, u64::saturating_add)
        })
        .reduce(|| 0, u64::saturating_add);
    let commons: u64 = link
        .symtab
        .symbols
        .iter()
        .filter_map(|s| match s.def {
            SymbolDef::Common { size, align, .. } => Some(size.saturating_add(align)),
            _ => None,
        })
        .fold(0, u64::saturating_add);
    sections.saturating_add(commons)
}

/// The error for a section that does not fit below 2^64 (lld: "section .bss at 0x... of
/// size 0x... exceeds available address space"): `what` names it (`file:(section)`), `at`
/// says where it would start (an address, or an offset in its output section).
pub(crate) fn overflow_error(what: &str, size: u64, at: &str) -> LinkError {
    LinkError::Link(format!(
        "{what}: section size {size:#x} at {at} exceeds available address space"
    ))
}

/// Output section `o`, placed at `addr`, does not fit below 2^64: the error names the first
/// of its inputs (or of its tails) whose end does not.
fn address_space_error(link: &Link, o: &OutputSection, addr: u64) -> LinkError {
    let fits = |offset: u64, size: u64| {
        addr.checked_add(offset)
            .and_then(|a| a.checked_add(size))
            .is_some()
    };
    let at = |offset: u64| format!("{:#x}", addr.wrapping_add(offset));
    for &(f, i) in &o.inputs {
        let obj = &link.objects[f as usize];
        let s = &obj.sections[i as usize];
        if s.kind != SectionKind::Merge && !fits(s.offset, s.size()) {
            let what = format!("{}:({})", obj.name, s.name());
            return overflow_error(&what, s.size(), &at(s.offset));
        }
    }
    let internal = format!("<internal>:({})", o.name);
    match o.tails.iter().find(|t| !fits(t.offset, t.size)) {
        // Common symbols: named after the largest, which is what takes the space.
        Some(t) if t.kind == TailKind::Commons => {
            let largest = link
                .symtab
                .symbols
                .iter()
                .filter_map(|s| match s.def {
                    SymbolDef::Common { file, size, .. } => Some((size, file, s)),
                    _ => None,
                })
                .max_by_key(|&(size, ..)| size);
            match largest {
                Some((size, file, s)) => LinkError::Link(format!(
                    "{}: common symbol '{}' of size {size:#x} in {} at {} exceeds available \
                     address space",
                    link.objects[file as usize].name,
                    s.display_name(),
                    o.name,
                    at(t.offset)
                )),
                None => overflow_error(&internal, t.size, &at(t.offset)),
            }
        }
        Some(t) => overflow_error(&internal, t.size, &at(t.offset)),
        None => overflow_error(&internal, o.size, &at(0)),
    }
}

/// After either layout: every allocated section (`.tbss` too: the TLS template) ends below
/// 2^64, the TLS block's size can be rounded to its alignment (the thread pointer's offsets
/// are computed from it), a script's sections do not overlap, and every segment fits.
fn check_address_space(link: &Link, segments: &Segments) -> Result<()> {
    let places = &segments.sections;
    for o in link.outputs.iter().filter(|o| o.is_alloc()) {
        let addr = places.addr(o);
        if addr.checked_add(o.size).is_none() {
            return Err(address_space_error(link, o, addr));
        }
    }
    let tls = &segments.tls;
    let block = tls.memsz.checked_next_multiple_of(tls.align.max(1));
    if block.is_none() {
        // Named after the input that ends the template.
        let last = link
            .outputs
            .iter()
            .filter(|o| o.is_alloc() && o.is_tls())
            .max_by_key(|o| places.end(o));
        let what = last
            .and_then(|o| o.inputs.last())
            .map(|&(f, i)| {
                let obj = &link.objects[f as usize];
                format!("{}:({})", obj.name, obj.sections[i as usize].name())
            })
            .unwrap_or_else(|| "<internal>:(TLS)".into());
        return Err(LinkError::Link(format!(
            "{what}: TLS block size {:#x} aligned to {:#x} exceeds available address space",
            tls.memsz, tls.align
        )));
    }
    // A script's sections, which must not overlap: sections on top of each other make
    // segments that wrap, and the overlap is the error to report (lld's), not their size.
    crate::script_layout::check_addresses(link, segments)?;
    for seg in &segments.headers {
        if seg.vaddr.checked_add(seg.memsz).is_none()
            || seg.offset.checked_add(seg.filesz).is_none()
        {
            return Err(LinkError::Link(format!(
                "segment {:#x} at {:#x} of size {:#x} exceeds available address space",
                seg.p_type, seg.vaddr, seg.memsz
            )));
        }
    }
    Ok(())
}

/// Offsets of inputs inside their output sections, merged-string tails, commons, copies.
/// Sizes are added with checks: a `NOBITS` input (`.bss`, `.tbss`) can claim any size, and
/// an output section that would not fit in the 64-bit address space is an error naming
/// the input that overflows it (before any address, so for `-r` too).
pub fn place_inputs(link: &mut Link) -> Result<Placement> {
    let mut placement = Placement::default();
    let merged = crate::merge::merge_sections(
        &mut link.objects,
        !link.opts.relocatable,
        link.piece_marks.as_ref(),
        link.opts.opt_level >= 2,
    );
    let groups = &merged.groups;
    // Every live `.eh_frame` input split into its records at once, in parallel, for the
    // placement below to take by (file, section).
    let mut eh_splits: rustc_hash::FxHashMap<(u32, u32), _> = link
        .objects
        .par_iter()
        .enumerate()
        .flat_map_iter(|(f, obj)| {
            obj.eh_frames
                .iter()
                .filter(|&&i| {
                    let sec = &obj.sections[i as usize];
                    sec.kind == SectionKind::EhFrame && sec.live
                })
                .map(move |&i| ((f as u32, i), split_eh_frame(obj, i as usize)))
        })
        .collect();
    // Without a script, a group of merged sections takes the place of its first member
    // (lld's); a script's layout finds the groups after the inputs.
    let inline_groups = !link.scripts.lays_out();
    let mut group_offsets: Vec<Option<u64>> = vec![None; groups.len()];
    for o in 0..link.outputs.len() {
        let inputs = std::mem::take(&mut link.outputs[o].inputs);
        let mut size = 0u64;
        let mut align = 1u64;
        let mut cies = CieTable::default();
        // An output of `.eh_frame` inputs only: every CIE with the FDEs that use it (lld's
        // layout); otherwise (`-r`, or a script mixing in other sections) input by input.
        let grouped = !link.opts.relocatable
            && !inputs.is_empty()
            && inputs.iter().all(|&(f, i)| {
                link.objects[f as usize].sections[i as usize].kind == SectionKind::EhFrame
            });
        if grouped {
            let mut split: Vec<((FileId, u32), Vec<Piece>)> = Vec::with_capacity(inputs.len());
            for &(f, i) in &inputs {
                let (pieces, _, fdes) = eh_splits
                    .remove(&(f, i))
                    .unwrap_or_else(|| split_eh_frame(&link.objects[f as usize], i as usize));
                placement.eh_frame_fdes += fdes;
                split.push(((f, i), pieces));
            }
            let aliases = &mut placement.cie_aliases;
            let (end, runs) = group_eh_frames(link, &mut split, 0, aliases);
            for (((f, i), pieces), runs) in split.into_iter().zip(runs) {
                let sec = &mut link.objects[f as usize].sections[i as usize];
                sec.pieces = pieces.into();
                sec.offset = runs.first().map_or(0, |r| r.0);
                align = align.max(u64::from(sec.align));
                placement.eh_runs.insert((f, i), runs);
            }
            size = end;
        }
        let one_by_one: &[(u32, u32)] = if grouped { &[] } else { &inputs };
        for &(f, i) in one_by_one {
            let kind = link.objects[f as usize].sections[i as usize].kind;
            match kind {
                SectionKind::Merge => {
                    let Some(g) = merged.group_of(f, i).filter(|_| inline_groups) else {
                        continue;
                    };
                    if group_offsets[g as usize].is_some() {
                        continue;
                    }
                    let group = &groups[g as usize];
                    let len = group.data.len() as u64;
                    let placed = size
                        .checked_next_multiple_of(group.align)
                        .and_then(|at| Some((at, at.checked_add(len)?)));
                    let Some((offset, end)) = placed else {
                        let what = format!("<internal>:({})", link.outputs[o].name);
                        let at = format!("offset {size:#x} of output section {what}");
                        return Err(overflow_error(&what, len, &at));
                    };
                    link.outputs[o].tails.push(Tail {
                        kind: TailKind::Merged(g),
                        offset,
                        size: len,
                        align: group.align,
                    });
                    group_offsets[g as usize] = Some(offset);
                    size = end;
                    align = align.max(group.align);
                }
                SectionKind::EhFrame => {
                    let (mut pieces, mut kept, fdes) = eh_splits
                        .remove(&(f, i))
                        .unwrap_or_else(|| split_eh_frame(&link.objects[f as usize], i as usize));
                    // CIEs and FDEs follow each other with no padding: a zero word between
                    // them would read as the end of the table. (Bytes of the file: these
                    // sums cannot overflow before the NOBITS ones below do.)
                    size = size.checked_next_multiple_of(4).unwrap_or(u64::MAX);
                    if !link.opts.relocatable {
                        let aliases = &mut placement.cie_aliases;
                        kept -= cies.merge(link, aliases, f, i, &mut pieces, size);
                    }
                    let sec = &mut link.objects[f as usize].sections[i as usize];
                    for p in pieces.iter_mut() {
                        if p.output_offset != u64::MAX {
                            p.output_offset += size;
                        }
                    }
                    sec.pieces = pieces.into();
                    sec.offset = size;
                    placement
                        .eh_runs
                        .insert((f, i), vec![(size, size.saturating_add(kept))]);
                    size = size.saturating_add(kept);
                    align = align.max(u64::from(sec.align));
                    placement.eh_frame_fdes += fdes;
                }
                _ => {
                    let obj = &mut link.objects[f as usize];
                    let sec = &mut obj.sections[i as usize];
                    let offset = size.checked_next_multiple_of(u64::from(sec.align));
                    let Some(end) = offset.and_then(|at| at.checked_add(sec.size())) else {
                        let what = format!("{}:({})", obj.name, sec.name());
                        let (at, out) = (offset.unwrap_or(size), &link.outputs[o].name);
                        let at = format!("offset {at:#x} of output section {out}");
                        return Err(overflow_error(&what, sec.size(), &at));
                    };
                    sec.offset = end - sec.size();
                    size = end;
                    align = align.max(u64::from(sec.align));
                }
            }
        }
        let out = &mut link.outputs[o];
        out.inputs = inputs;
        out.size = size;
        out.align = out.align.max(align);
        if out.name == ".eh_frame" && !link.opts.relocatable {
            // Unwinders without .eh_frame_hdr (static links by gcc) walk to this zero.
            if out.add_tail(TailKind::Zero, 4, 4).is_none() {
                let what = format!("<internal>:({})", out.name);
                let at = format!("offset {size:#x} of output section {}", out.name);
                return Err(overflow_error(&what, 4, &at));
            }
        }
    }
    for (g, group) in groups.iter().enumerate() {
        if group_offsets[g].is_some() {
            continue;
        }
        // At a multiple of the group's own alignment (its largest section's), as lld places
        // its merged sections: 1-aligned strings follow 16-aligned constants unpadded.
        let out = link.outputs.section_mut(group.output);
        let (at, len) = (out.size, group.data.len() as u64);
        let Some(offset) = out.add_tail(TailKind::Merged(g as u32), len, group.align) else {
            let what = format!("<internal>:({})", out.name);
            let at = format!("offset {at:#x} of output section {}", out.name);
            return Err(overflow_error(&what, len, &at));
        };
        group_offsets[g] = Some(offset);
    }
    let group_offsets: Vec<u64> = group_offsets.into_iter().map(|o| o.unwrap_or(0)).collect();
    merged.place(&mut link.objects, &group_offsets);
    placement.merge_groups = merged.groups;
    // A relocatable output leaves common symbols for the final link to allocate.
    if !link.opts.relocatable {
        placement.common_offsets = place_commons(link)?;
    }
    Ok(placement)
}

/// The output section `name` (not TLS) that space without contents goes to: `.bss`, or
/// `.bss.rel.ro`; created if no input made it.
fn nobits_section(link: &mut Link, name: &str) -> OutputId {
    if let Some(o) = link.outputs.iter().find(|o| o.name == name && !o.is_tls()) {
        return o.id;
    }
    link.outputs.add(OutputSection::new(
        name,
        SHT_NOBITS,
        u64::from(SHF_ALLOC | SHF_WRITE),
    ))
}

/// Where each common symbol goes in `.bss`; an error naming the symbol whose size takes
/// `.bss` past the end of the address space.
fn place_commons(link: &mut Link) -> Result<FxHashMap<crate::symbols::SymbolId, u64>> {
    let mut offsets = FxHashMap::default();
    let commons: Vec<(u32, u64, u64)> = link
        .symtab
        .symbols
        .iter()
        .enumerate()
        .filter_map(|(id, s)| match s.def {
            SymbolDef::Common { size, align, .. } => Some((id as u32, size, align)),
            _ => None,
        })
        .collect();
    if commons.is_empty() {
        return Ok(offsets);
    }
    let too_large = |link: &Link, id: u32, size: u64| {
        let sym = link.symtab.get(id);
        let file = sym.file_name(&link.objects, &link.dsos);
        LinkError::Link(format!(
            "{file}: common symbol '{}' of size {size:#x} exceeds available address space",
            sym.display_name()
        ))
    };
    let mut size = 0u64;
    let mut max_align = 1u64;
    for &(id, sz, al) in &commons {
        let al = al.max(1);
        let Some(end) = size
            .checked_next_multiple_of(al)
            .and_then(|at| at.checked_add(sz))
        else {
            return Err(too_large(link, id, sz));
        };
        offsets.insert(id, end - sz);
        size = end;
        max_align = max_align.max(al);
    }
    let bss = nobits_section(link, ".bss");
    let Some(base) = link
        .outputs
        .section_mut(bss)
        .add_tail(TailKind::Commons, size, max_align)
    else {
        // They fit by themselves, not after the inputs' .bss: named after the largest.
        let &(id, sz, _) = commons.iter().max_by_key(|c| c.1).unwrap();
        return Err(too_large(link, id, sz));
    };
    for off in offsets.values_mut() {
        *off += base;
    }
    Ok(offsets)
}

#[allow(clippy::too_many_arguments)] // one argument per section header field it sets
fn add_synthetic(
    link: &mut Link,
    which: Synthetic,
    name: &str,
    sh_type: u32,
    flags: u32,
    size: u64,
    align: u64,
    entsize: u64,
) {
    let mut o = OutputSection::new(name, sh_type, u64::from(flags));
    o.size = size;
    o.align = align;
    o.entsize = entsize;
    o.synthetic = Some(which);
    link.outputs.add(o);
}

/// Creates the linker-made sections, now that the relocation scan has sized them.
pub fn create_synthetic_sections(
    link: &mut Link,
    tables: &Tables,
    placement: &Placement,
    dynamic: &DynamicTables,
) -> Result<()> {
    let opts = link.opts;
    let a = SHF_ALLOC;
    let aw = SHF_ALLOC | SHF_WRITE;
    if link.is_dynamic && !opts.no_dynamic_linker && !opts.is_shared() {
        let interp = opts
            .dynamic_linker
            .clone()
            .unwrap_or_else(|| "/lib64/ld-linux-x86-64.so.2".to_string());
        add_synthetic(
            link,
            Synthetic::Interp,
            ".interp",
            SHT_PROGBITS,
            a,
            interp.len() as u64 + 1,
            1,
            0,
        );
    }
    if let Some(len) = build_id_len(&opts.build_id) {
        add_synthetic(
            link,
            Synthetic::BuildId,
            ".note.gnu.build-id",
            SHT_NOTE,
            a,
            16 + len,
            4,
            0,
        );
    }
    if let Some(json) = &opts.package_metadata {
        add_synthetic(
            link,
            Synthetic::PackageNote,
            ".note.package",
            SHT_NOTE,
            a,
            crate::synthetic::package_note_size(json),
            4,
            0,
        );
    }
    let properties = crate::synthetic::gnu_property_size(link);
    if properties > 0 {
        add_synthetic(
            link,
            Synthetic::GnuProperty,
            ".note.gnu.property",
            SHT_NOTE,
            a,
            properties,
            8,
            0,
        );
    }
    if link.is_dynamic {
        add_synthetic(
            link,
            Synthetic::DynSym,
            ".dynsym",
            SHT_DYNSYM,
            a,
            24 * dynamic.symbol_count() as u64,
            8,
            24,
        );
        if !dynamic.versym.is_empty() {
            add_synthetic(
                link,
                Synthetic::GnuVersion,
                ".gnu.version",
                SHT_GNU_VERSYM,
                a,
                2 * dynamic.versym.len() as u64,
                2,
                2,
            );
            if !dynamic.verdef.is_empty() {
                add_synthetic(
                    link,
                    Synthetic::GnuVersionD,
                    ".gnu.version_d",
                    SHT_GNU_VERDEF,
                    a,
                    dynamic.verdef.len() as u64,
                    4,
                    0,
                );
            }
            // Only when some library's versions are needed (GNU ld, lld).
            if !dynamic.verneed.is_empty() {
                add_synthetic(
                    link,
                    Synthetic::GnuVersionR,
                    ".gnu.version_r",
                    SHT_GNU_VERNEED,
                    a,
                    dynamic.verneed.len() as u64,
                    4,
                    0,
                );
            }
        }
        if !dynamic.gnu_hash.is_empty() {
            add_synthetic(
                link,
                Synthetic::GnuHash,
                ".gnu.hash",
                SHT_GNU_HASH,
                a,
                dynamic.gnu_hash.len() as u64,
                8,
                0,
            );
        }
        if !dynamic.sysv_hash.is_empty() {
            add_synthetic(
                link,
                Synthetic::SysvHash,
                ".hash",
                SHT_HASH,
                a,
                dynamic.sysv_hash.len() as u64,
                4,
                4,
            );
        }
        add_synthetic(
            link,
            Synthetic::DynStr,
            ".dynstr",
            SHT_STRTAB,
            a,
            dynamic.dynstr.len() as u64,
            1,
            0,
        );
    }
    if tables.rela_dyn_count() > 0 {
        add_synthetic(
            link,
            Synthetic::RelaDyn,
            ".rela.dyn",
            if link.opts.android_packed_relocs {
                crate::android_relocs::SHT_ANDROID_RELA
            } else {
                SHT_RELA
            },
            a,
            // Packed, it is sized to its encoding by `android_relocs::settle`.
            24 * tables.rela_dyn_count() as u64,
            8,
            if link.opts.android_packed_relocs {
                1
            } else {
                24
            },
        );
    }
    let iplt_relocs = tables.plt.iplt.len() as u64;
    if !tables.rela_plt.is_empty() || iplt_relocs > 0 {
        let flags = if link.is_dynamic {
            a | SHF_INFO_LINK
        } else {
            a
        };
        // A static program's IRELATIVE relocations, which its start-up code applies, are
        // in lld's `.rela.dyn` (GNU ld's `.rela.plt`).
        let name = if link.is_dynamic || tables.rela_dyn_count() > 0 {
            ".rela.plt"
        } else {
            ".rela.dyn"
        };
        add_synthetic(
            link,
            Synthetic::RelaPlt,
            name,
            SHT_RELA,
            flags,
            24 * (tables.rela_plt.len() as u64 + iplt_relocs),
            8,
            24,
        );
    }
    if !tables.relr.is_empty() {
        // Sized for one word per place; `relr::settle` shrinks it to the encoding.
        add_synthetic(
            link,
            Synthetic::RelrDyn,
            ".relr.dyn",
            if link.opts.android_relr_tags {
                crate::relr::SHT_ANDROID_RELR
            } else {
                SHT_RELR
            },
            a,
            8 * tables.relr.len() as u64,
            8,
            8,
        );
    }
    let plt_entries = tables.plt.lazy.len() as u64;
    // `-z retpolineplt`: lld's retpoline layout (which also stands for IBT's).
    let retpoline = crate::synthetic::RetpolinePlt::of(link);
    if retpoline.is_some() && iplt_relocs > 0 {
        return Err(LinkError::Link(
            "-z retpolineplt: PLT entries for IFUNC symbols are not supported".into(),
        ));
    }
    // With IBT, as lld and GNU ld lay it out: `.plt` holds the lazy-binding stubs, each
    // starting with `endbr64`, and `.plt.sec` the entries code calls.
    let ibt = gnu_property_features(link) & object::elf::GNU_PROPERTY_X86_FEATURE_1_IBT != 0
        && retpoline.is_none();
    // (section, name, bytes): PLT0 is there only for lazy entries.
    let header = if plt_entries > 0 { 16 } else { 0 };
    let retpoline_plt;
    let plts: &[(Synthetic, &str, u64)] = if let Some(r) = retpoline {
        retpoline_plt = [(Synthetic::Plt, ".plt", r.size(plt_entries))];
        &retpoline_plt
    } else if ibt {
        &[
            (Synthetic::Plt, ".plt", header + 16 * plt_entries),
            (
                Synthetic::PltSec,
                ".plt.sec",
                16 * (plt_entries + iplt_relocs),
            ),
        ]
    } else if !link.is_dynamic && plt_entries == 0 {
        // A static program's entries for its IFUNCs only: lld's `.iplt`.
        &[(Synthetic::Plt, ".iplt", 16 * iplt_relocs)]
    } else {
        &[(
            Synthetic::Plt,
            ".plt",
            header + 16 * (plt_entries + iplt_relocs),
        )]
    };
    if plt_entries + iplt_relocs > 0 {
        for &(which, name, size) in plts.iter().filter(|p| p.2 > 0) {
            add_synthetic(
                link,
                which,
                name,
                SHT_PROGBITS,
                a | SHF_EXECINSTR,
                size,
                16,
                // No entry size, as lld writes it (GNU ld: 16).
                0,
            );
        }
    }
    if tables.got.size > 0 {
        add_synthetic(
            link,
            Synthetic::Got,
            ".got",
            SHT_PROGBITS,
            aw,
            tables.got.size,
            8,
            0,
        );
    }
    let got_base_used =
        link.symtab.lookup(b"_GLOBAL_OFFSET_TABLE_").is_some() || tables.uses_got_base;
    if plt_entries + iplt_relocs > 0 || link.is_dynamic || got_base_used {
        add_synthetic(
            link,
            Synthetic::GotPlt,
            ".got.plt",
            SHT_PROGBITS,
            aw,
            24 + 8 * (plt_entries + iplt_relocs),
            8,
            0,
        );
    }
    if link.is_dynamic {
        let count = crate::dynamic::dynamic_entry_count(link, tables, dynamic) as u64;
        add_synthetic(
            link,
            Synthetic::Dynamic,
            ".dynamic",
            SHT_DYNAMIC,
            if link.opts.z_rodynamic { a } else { aw },
            16 * count,
            8,
            16,
        );
    }
    if opts.eh_frame_hdr && link.outputs.iter().any(|o| o.name == ".eh_frame") {
        add_synthetic(
            link,
            Synthetic::EhFrameHdr,
            ".eh_frame_hdr",
            SHT_PROGBITS,
            a,
            12 + 8 * placement.eh_frame_fdes as u64,
            4,
            0,
        );
    }
    for read_only in [false, true] {
        let area = usize::from(read_only);
        if tables.copies.size[area] == 0 {
            continue;
        }
        let out = nobits_section(link, if read_only { ".bss.rel.ro" } else { ".bss" });
        let (size, align) = (tables.copies.size[area], tables.copies.align[area]);
        // Found again through `tail(TailKind::CopyRel { .. })` when addresses are known.
        let o = link.outputs.section_mut(out);
        let at = o.size;
        let kind = TailKind::CopyRel { read_only };
        if o.add_tail(kind, size, align).is_none() {
            let what = format!("<internal>:({}): copy relocations", o.name);
            let at = format!("offset {at:#x} of output section {}", o.name);
            return Err(overflow_error(&what, size, &at));
        }
    }
    // lld-22 ends the RELRO region with `.relro_padding`, up to the page's end, so that
    // the section headers account for all the memory PT_GNU_RELRO protects (not under a
    // script's SECTIONS, where the script says where RELRO ends).
    if opts.z_relro && !link.scripts.lays_out() && relro_sections(link).next().is_some() {
        add_synthetic(
            link,
            Synthetic::RelroPadding,
            ".relro_padding",
            SHT_NOBITS,
            aw,
            0,
            1,
            0,
        );
    }
    Ok(())
}

pub fn build_id_len(b: &crate::options::BuildId) -> Option<u64> {
    use crate::options::BuildId;
    match b {
        BuildId::None => None,
        BuildId::Fast => Some(8),
        BuildId::Md5 | BuildId::Uuid => Some(16),
        BuildId::Sha1 => Some(20),
        BuildId::Hex(h) => Some(h.len() as u64),
    }
}

/// The output's `.note.gnu.property` properties (type, value), by type: the x86 features
/// every input has, and with `-z x86-64-*` the ISA level it and the inputs need (GNU ld's
/// merge; without the option no ISA level is written, as lld writes none).
pub fn gnu_properties(link: &Link) -> Vec<(u32, u32)> {
    let mut properties = Vec::new();
    let features = gnu_property_features(link);
    if features != 0 {
        properties.push((object::elf::GNU_PROPERTY_X86_FEATURE_1_AND, features));
    }
    if link.opts.z_isa_level != 0 {
        let isa = link
            .objects
            .iter()
            .fold(link.opts.z_isa_level, |isa, o| isa | o.x86_isa_needed);
        properties.push((object::elf::GNU_PROPERTY_X86_ISA_1_NEEDED, isa));
    }
    properties
}

/// The x86 feature bits (IBT, SHSTK) every input object has (0 if any lacks them), and SHSTK
/// or IBT where `-z shstk` or `-z ibt` forces them.
pub fn gnu_property_features(link: &Link) -> u32 {
    *link.x86_features.get_or_init(|| features_of_inputs(link))
}

fn features_of_inputs(link: &Link) -> u32 {
    let mut forced = 0;
    if link.opts.z_shstk {
        forced |= object::elf::GNU_PROPERTY_X86_FEATURE_1_SHSTK;
    }
    if link.opts.z_ibt {
        forced |= object::elf::GNU_PROPERTY_X86_FEATURE_1_IBT;
    }
    // The objects that put something in the image, each with its features: in parallel,
    // as finding an object's first kept section can mean passing every section
    // `--gc-sections` removed.
    let features = link
        .objects
        .par_iter()
        .filter(|o| o.sections.iter().any(|s| s.is_kept() && s.is_alloc()))
        .map(|o| o.x86_features.unwrap_or(0))
        .reduce_with(|a, b| a & b);
    features.map_or(forced, |f| f | forced)
}

/// Which run of the memory image a section belongs to; segments follow these classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    ReadOnly = 0,
    Exec = 1,
    /// Writable code (a section that is "awx", or sections of one name whose flags add up
    /// to it): its own RWX segment between the code and the data, as lld places it.
    ExecWrite = 2,
    Relro = 3,
    Data = 4,
    NonAlloc = 5,
}

impl Class {
    fn is_exec(self) -> bool {
        matches!(self, Class::Exec | Class::ExecWrite)
    }
}

fn is_relro(link: &Link, o: &OutputSection) -> bool {
    if o.is_tls() {
        return true;
    }
    if o.synthetic == Some(Synthetic::GotPlt) {
        return link.opts.z_now;
    }
    matches!(
        o.synthetic,
        Some(Synthetic::Dynamic) | Some(Synthetic::Got) | Some(Synthetic::RelroPadding)
    ) || matches!(
        o.sh_type,
        SHT_INIT_ARRAY | SHT_FINI_ARRAY | SHT_PREINIT_ARRAY
    ) || matches!(
        o.name.as_str(),
        ".init_array"
            | ".fini_array"
            | ".preinit_array"
            | ".data.rel.ro"
            | ".jcr"
            | ".bss.rel.ro"
            | ".ctors"
            | ".dtors"
    ) || o.name.ends_with(".rel.ro")
        || (link.opts.z_keep_data_section_prefix
            && matches!(
                o.name.as_str(),
                ".data.rel.ro.hot" | ".data.rel.ro.unlikely"
            ))
}

pub(crate) fn class_of(link: &Link, o: &OutputSection) -> Class {
    if !o.is_alloc() {
        Class::NonAlloc
    } else if o.is_writable() && o.is_exec() {
        Class::ExecWrite
    } else if o.is_writable() {
        if link.opts.z_relro && is_relro(link, o) {
            Class::Relro
        } else {
            Class::Data
        }
    } else if o.is_exec() {
        Class::Exec
    } else {
        Class::ReadOnly
    }
}

pub(crate) fn rank_in_class(link: &Link, o: &OutputSection) -> u32 {
    use Synthetic::*;
    let nobits = u32::from(o.is_nobits() && !o.is_tls()) * 100;
    let by_name = match o.synthetic {
        Some(Interp) => 0,
        Some(BuildId) | Some(PackageNote) | Some(GnuProperty) => 1,
        Some(DynSym) => 2,
        Some(GnuVersion) => 3,
        Some(GnuVersionD) => 4,
        Some(GnuVersionR) => 4,
        Some(GnuHash) => 5,
        Some(SysvHash) => 6,
        Some(DynStr) => 7,
        // `.relr.dyn` right after `.rela.dyn` (created after it), before `.rela.plt`, as
        // lld places it.
        Some(RelaDyn) | Some(RelrDyn) => 8,
        Some(RelaPlt) => 9,
        Some(EhFrameHdr) => 20,
        // After the code, as lld places them (GNU ld puts them before `.text`): the
        // same code then lands at lld's addresses, and runs as fast as lld's does.
        Some(Plt) => 5,
        Some(PltSec) => 5,
        // Without full RELRO, after the data the inputs bring (lld creates it after them;
        // GNU ld puts it first).
        Some(GotPlt) => {
            if link.opts.z_now && link.opts.z_relro {
                12
            } else {
                11
            }
        }
        Some(Dynamic) => 10,
        Some(Got) => 11,
        // Last in the RELRO class: after its NOBITS sections too.
        Some(RelroPadding) => 50,
        None => match o.name.as_str() {
            // An input's `.interp` (a shared library that also runs as a program) first,
            // where lld puts it.
            ".interp" => 0,
            _ if o.sh_type == SHT_NOTE => 1,
            // After the inputs' read-only data, `.gcc_except_table` among them in input
            // order (lld creates its `.eh_frame_hdr` and `.eh_frame` after the inputs';
            // GNU ld puts `.gcc_except_table` after them).
            ".eh_frame" => 21,
            // Code sections in the order the inputs first name them (`.text`, then crti.o's
            // `.init` and `.fini`), as lld orders them.
            ".init" | ".text" | ".fini" => 2,
            ".tdata" => 0,
            ".tbss" => 1,
            // In the order the inputs first name them, as lld orders them (crtbeginS.o
            // names `.fini_array` first; GNU ld puts `.init_array` first).
            ".preinit_array" | ".init_array" | ".fini_array" | ".data.rel.ro" => 3,
            // `.data` among the other data in the order the inputs first name them (lld):
            // after `.tm_clone_table` where `--gc-sections` dropped the `.data` before it.
            ".bss" => BSS_BY_NAME,
            _ => {
                if o.is_exec() {
                    2
                } else {
                    10
                }
            }
        },
    };
    // The medium and large code models' sections (SHF_X86_64_LARGE) go where lld puts
    // them, away from the small data the code reaches with 32-bit offsets: `.ltext` (sorted
    // among the read-only sections, in a segment of its own) then `.lrodata` first among
    // the read-only data the inputs bring, `.ldata` and `.lbss` after all the other data
    // (`.bss` included).
    // Under `-z lrodata-after-bss`: `.lbss` right after `.bss`, then `.lrodata` (sorted
    // among the data, in a read-only segment of its own), then `.ldata`.
    let rank = nobits + by_name * 4;
    let after_bss = link.opts.z_lrodata_after_bss;
    match (is_large(o), o.is_exec(), o.is_writable()) {
        (false, ..) => rank,
        (true, true, false) => LARGE_CODE_RANK,
        (true, false, false) if after_bss => 20_000,
        (true, false, false) => rank - 2,
        (true, _, true) if after_bss && o.is_nobits() => nobits + BSS_BY_NAME * 4 + 1,
        (true, _, true) if after_bss => 30_000,
        (true, _, true) => rank + 10_000,
    }
}

/// `.bss`'s place among the data by name (after the NOBITS term): `.lbss` under
/// `-z lrodata-after-bss` comes right after it.
const BSS_BY_NAME: u32 = 3;

/// `.ltext`'s rank among the read-only sections: after the synthetic ones, before
/// `.lrodata`.
const LARGE_CODE_RANK: u32 = 4 * 10 - 3;

/// A section of the medium or large code model's (SHF_X86_64_LARGE) the inputs bring.
fn is_large(o: &OutputSection) -> bool {
    const SHF_X86_64_LARGE: u64 = 0x1000_0000;
    o.flags & SHF_X86_64_LARGE != 0 && o.synthetic.is_none()
}

/// The class an output section is sorted in: its own, except that large read-only code
/// (`.ltext`) is sorted among the read-only data, as lld sorts it (between the synthetic
/// sections and `.lrodata`), and under `-z lrodata-after-bss` `.lrodata` among the data;
/// each keeps a segment of its own.
fn sort_class(link: &Link, o: &OutputSection) -> Class {
    match class_of(link, o) {
        Class::Exec if is_large(o) => Class::ReadOnly,
        Class::ReadOnly if is_large(o) && link.opts.z_lrodata_after_bss => Class::Data,
        class => class,
    }
}

/// Sorts output sections into their final order and gives them section header indices.
pub fn sort_output_sections(link: &mut Link) {
    if link.scripts.lays_out() {
        crate::script_layout::add_kept_empty_sections(link);
        let order = crate::script_layout::order(link);
        link.set_output_order(&order);
        return;
    }
    // Empty input-only sections vanish, except those a linker symbol needs.
    let keep_empty = |o: &OutputSection| {
        o.synthetic.is_some()
            || [".init_array", ".fini_array", ".preinit_array", ".bss"].contains(&o.name.as_str())
            || !o.inputs.is_empty()
    };
    let mut order: Vec<usize> = (0..link.outputs.len())
        .filter(|&i| {
            link.outputs[i].size > 0
                || keep_empty(&link.outputs[i]) && !link.outputs[i].inputs.is_empty()
                || link.outputs[i].synthetic.is_some()
        })
        .collect();
    // Sections placed at fixed addresses (`--section-start`, `-Ttext`, ...) come first, by
    // address, as lld orders them; the others follow in their usual order.
    order.sort_by_key(|&i| {
        let o = &link.outputs[i];
        let fixed = fixed_address(link, o);
        (
            fixed.is_none(),
            fixed,
            sort_class(link, o),
            rank_in_class(link, o),
            i,
        )
    });
    if link.scripts.insert.is_some() {
        crate::script_layout::insert_order(link, &mut order);
    }
    link.set_output_order(&order);
}

/// Program header types for the current set of sections (needed before addresses exist).
fn program_headers(link: &Link) -> Vec<u32> {
    let (lead, rest) = special_headers(link);
    let mut p = Vec::new();
    if headers_loaded(link) {
        p.push(PT_PHDR);
    }
    p.extend(lead);
    p.extend(std::iter::repeat_n(PT_LOAD, load_count(link)));
    p.extend(rest);
    p
}

/// The program headers other than `PT_PHDR` and the loads, in lld's order: those that go
/// before the loads (`PT_INTERP`) and those after them.
pub(crate) fn special_headers(link: &Link) -> (Vec<u32>, Vec<u32>) {
    let lead = if interp_section(link).is_some() {
        vec![PT_INTERP]
    } else {
        Vec::new()
    };
    let mut rest = Vec::new();
    if link.outputs.iter().any(|o| o.is_alloc() && o.is_tls()) {
        rest.push(PT_TLS);
    }
    if link.outputs.has_synthetic(Synthetic::Dynamic) {
        rest.push(PT_DYNAMIC);
    }
    if relro_sections(link).next().is_some() {
        rest.push(PT_GNU_RELRO);
    }
    if link.outputs.has_synthetic(Synthetic::EhFrameHdr) {
        rest.push(PT_GNU_EH_FRAME);
    }
    if link.opts.z_gnustack {
        rest.push(PT_GNU_STACK);
    }
    rest.extend(std::iter::repeat_n(PT_NOTE, note_groups(link).len()));
    if link.outputs.has_synthetic(Synthetic::GnuProperty) {
        rest.push(PT_GNU_PROPERTY);
    }
    (lead, rest)
}

/// The allocated note sections, one group per `PT_NOTE`: each run of adjacent ones with the
/// same alignment (lld's rule).
fn note_groups<'a>(link: &'a Link) -> Vec<Vec<&'a OutputSection>> {
    let mut groups: Vec<Vec<&OutputSection>> = Vec::new();
    let mut adjacent = false;
    for o in link.outputs.iter().filter(|o| o.is_alloc()) {
        if o.sh_type != SHT_NOTE {
            adjacent = false;
            continue;
        }
        match groups.last_mut() {
            Some(g) if adjacent && g[0].align == o.align => g.push(o),
            _ => groups.push(vec![o]),
        }
        adjacent = true;
    }
    groups
}

/// The sections `PT_GNU_RELRO` covers, in order (`.tbss` takes no address space of its
/// own, so it is not among them).
pub(crate) fn relro_sections<'a>(link: &'a Link) -> impl Iterator<Item = &'a OutputSection> {
    link.outputs
        .iter()
        .filter(|o| segment_class(link, o) == Class::Relro && !(o.is_tls() && o.is_nobits()))
}

/// The TLS template of the laid-out sections: from the first TLS section to the end of the
/// last (`.tbss` included), as aligned as its most aligned member.
pub(crate) fn tls_layout(link: &Link, places: &SectionPlaces) -> TlsLayout {
    let tls: Vec<&OutputSection> = link
        .outputs
        .iter()
        .filter(|o| o.is_alloc() && o.is_tls())
        .collect();
    let Some(first) = tls.first() else {
        return TlsLayout::default();
    };
    let start = places.addr(first);
    let end = tls.iter().map(|o| places.end(o)).max().unwrap_or(start);
    TlsLayout {
        start,
        memsz: end - start,
        align: tls.iter().map(|o| o.align).max().unwrap_or(1),
    }
}

/// The segments of `types` (from [`special_headers`]) for the laid-out sections, whose TLS
/// template is `tls`.
pub(crate) fn special_segments(
    link: &Link,
    places: &SectionPlaces,
    tls: &TlsLayout,
    types: &[u32],
) -> Vec<Segment> {
    let page = link.opts.max_page_size.unwrap_or(PAGE);
    let mut notes = note_groups(link);
    let mut segments = Vec::new();
    for &ty in types {
        match ty {
            PT_INTERP => {
                let o = interp_section(link).expect("PT_INTERP only with an .interp");
                segments.push(output_segment(places, o, PT_INTERP, PF_R, o.align));
            }
            PT_DYNAMIC => segments.push(section_segment(
                link,
                places,
                Synthetic::Dynamic,
                PT_DYNAMIC,
                if link.opts.z_rodynamic {
                    PF_R
                } else {
                    PF_R | PF_W
                },
                8,
            )),
            PT_GNU_EH_FRAME => segments.push(section_segment(
                link,
                places,
                Synthetic::EhFrameHdr,
                PT_GNU_EH_FRAME,
                PF_R,
                4,
            )),
            PT_GNU_PROPERTY => segments.push(section_segment(
                link,
                places,
                Synthetic::GnuProperty,
                PT_GNU_PROPERTY,
                PF_R,
                8,
            )),
            PT_TLS => {
                let first = link
                    .outputs
                    .iter()
                    .find(|o| o.is_alloc() && o.is_tls())
                    .unwrap();
                let filesz = link
                    .outputs
                    .iter()
                    // A non-allocated section flagged TLS (only a corrupt input has one) has
                    // no address in the template.
                    .filter(|o| o.is_alloc() && o.is_tls() && !o.is_nobits())
                    .map(|o| places.end(o).saturating_sub(tls.start))
                    .max()
                    .unwrap_or(0);
                segments.push(Segment {
                    p_type: PT_TLS,
                    flags: PF_R,
                    offset: places.offset(first),
                    vaddr: tls.start,
                    filesz,
                    memsz: tls.memsz,
                    align: tls.align,
                    paddr: None,
                });
            }
            PT_GNU_RELRO => {
                let first = places.of(relro_sections(link).next().unwrap());
                let end = relro_sections(link)
                    .map(|o| places.end(o))
                    .max()
                    .unwrap_or(first.addr);
                // Round up to the (common) page: the next segment starts on a new page
                // anyway, and the dynamic loader only protects whole pages. (In the last
                // page of the address space there is no next page: up to the end.) Not
                // under a script's SECTIONS, which may start the data in the same page:
                // rounding would make it read-only (lld-22 rounds only its own layout).
                let common = link.opts.common_page_size.unwrap_or(PAGE).min(page);
                let memsz = if link.scripts.lays_out() {
                    end
                } else {
                    end.checked_next_multiple_of(common).unwrap_or(end)
                } - first.addr;
                let filesz = relro_sections(link)
                    .filter(|o| !o.is_nobits())
                    .map(|o| places.offset(o) + o.size - first.offset)
                    .max()
                    .unwrap_or(0);
                segments.push(Segment {
                    p_type: PT_GNU_RELRO,
                    flags: PF_R,
                    offset: first.offset,
                    vaddr: first.addr,
                    filesz,
                    memsz,
                    align: 1,
                    paddr: None,
                });
            }
            PT_GNU_STACK => segments.push(stack_segment(link)),
            // One per group, in order (the types list has one PT_NOTE per group).
            PT_NOTE if notes.is_empty() => {}
            PT_NOTE => {
                let group = notes.remove(0);
                let (first, last) = (group[0], group[group.len() - 1]);
                let (start, end) = (places.of(first), places.of(last));
                segments.push(Segment {
                    p_type: PT_NOTE,
                    flags: PF_R,
                    offset: start.offset,
                    vaddr: start.addr,
                    filesz: end.offset + last.size - start.offset,
                    memsz: end.addr + last.size - start.addr,
                    align: first.align,
                    paddr: None,
                });
            }
            _ => {}
        }
    }
    segments
}

/// Assigns file offsets and addresses to all output sections and builds the segments. A
/// layout done again (sizes changed) passes the one before as `previous`: a linker
/// script's reference to a section further on reads its address there. A section, TLS
/// block or segment that does not fit in the 64-bit address space is an error naming the
/// input at fault, as lld refuses it.
pub fn assign_addresses(link: &mut Link, previous: Option<&SectionPlaces>) -> Result<Segments> {
    let segments = if link.scripts.lays_out() {
        let segments = crate::script_layout::assign_addresses(link, previous);
        // A script's own errors (a bad expression makes its addresses meaningless) are
        // reported first.
        if !segments.script.errors.is_empty() {
            return Err(LinkError::Many(segments.script.errors.clone()));
        }
        segments
    } else {
        default_addresses(link)?
    };
    check_address_space(link, &segments)?;
    Ok(segments)
}

/// The default layout (no `SECTIONS`): the segments one after the other from the image
/// base, each section aligned after the one before. Addresses are added with checks: the
/// first section that would pass 2^64 is an error.
fn default_addresses(link: &mut Link) -> Result<Segments> {
    // `-z max-page-size`: the segments' alignment, so each starts on a page of its own in
    // memory (the file stays compact: a segment's address is congruent to its offset).
    let page = link.opts.max_page_size.unwrap_or(PAGE);
    // `-n`/`-N`: segments follow one another without page alignment, each aligned only as
    // its sections need; with `-N` everything is one segment.
    let magic = link.opts.nmagic || link.opts.one_segment();
    let image_base = match link.opts.image_base {
        Some(base) => base,
        None if link.opts.is_pic() => 0,
        None => EXEC_BASE.next_multiple_of(page),
    };
    let phdr_types = program_headers(link);
    let headers_size = 64 + 56 * phdr_types.len() as u64;
    let mut offset = headers_size;
    // `--oformat binary` writes no headers: the first section starts at the image base.
    let headers_room = if link.opts.oformat_binary {
        0
    } else {
        headers_size
    };
    let mut vaddr = image_base.checked_add(headers_room).ok_or_else(|| {
        LinkError::Link(format!(
            "the headers at image base {image_base:#x} exceed available address space"
        ))
    })?;
    let mut loads: Vec<Segment> = Vec::new();
    let mut current: Option<Class> = None;
    // The last section placed in the segment is NOBITS space.
    let mut last_nobits = false;
    // The first TLS section starts the template (aligned for all of it).
    let mut tls_seen = false;
    let tls_max_align = link
        .outputs
        .iter()
        .filter(|o| o.is_alloc() && o.is_tls())
        .map(|o| o.align)
        .max()
        .unwrap_or(1);
    let mut places = SectionPlaces::for_outputs(&link.outputs);
    // Where `.relro_padding` began, while it is the last section placed: lld places the
    // next segment as if the padding were not there (its address follows the RELRO
    // segment's last byte of data, `.bss.rel.ro` included, modulo the page).
    let mut padding_start: Option<u64> = None;
    let first = headers_class(link);
    let headers_loaded = headers_loaded(link);
    let headers = headers_loaded.then_some(first);
    let mut load = Segment {
        p_type: PT_LOAD,
        flags: segment_flags(link, first),
        offset: 0,
        vaddr: image_base,
        filesz: headers_size,
        memsz: headers_size,
        align: page,
        paddr: None,
    };
    for i in 0..link.outputs.len() {
        let class = segment_class(link, &link.outputs[i]);
        if class == Class::NonAlloc {
            continue;
        }
        // A section at a fixed address starts a segment there, unless it is `.bss`-like
        // space that can simply extend the segment it follows.
        let fixed = fixed_address(link, &link.outputs[i]);
        let extends = fixed.is_some() && current == Some(class) && link.outputs[i].is_nobits();
        let jump =
            fixed.is_some() && !extends || data_after_nobits(link, &link.outputs[i], last_nobits);
        if let (Some(a), true) = (fixed, extends) {
            vaddr = a;
        }
        // `.tbss` is no part of a loaded segment, only of the TLS template: where it would
        // start one, it takes the address after what precedes it, and the segment starts
        // with the next section (lld's placement).
        let o = &link.outputs[i];
        let tbss_alone = o.is_tls() && o.is_nobits() && fixed.is_none() && current != Some(class);
        if !tbss_alone && starts_segment(current, class, jump, headers) {
            if headers_loaded || current.is_some() {
                loads.push(load);
            }
            // Start the segment at its first section's alignment, on a fresh page. With
            // `-z separate-code`, code shares no page of the file with anything else: a
            // segment starts at a page-aligned offset where executability changes (as lld
            // decides it: RX then RWX share a page); with `-z separate-loadable-segments`,
            // every segment does.
            let separate = link.opts.z_separate_loadable_segments
                || (link.opts.z_separate_code
                    && class.is_exec() != current.is_some_and(Class::is_exec));
            // `-n`/`-N`: the segment is aligned as its most aligned section, in the file and
            // in memory alike (so the two stay congruent), and no more; the first, following
            // headers it does not map, starts where its first section may (offsets and
            // addresses differ by the page-aligned image base there, so they stay congruent).
            let magic_align = magic.then(|| segment_alignment(link, i, class));
            let start_align = magic_align.map(|a| {
                if current.is_none() {
                    link.outputs[i].align.max(1)
                } else {
                    a
                }
            });
            offset = if let Some(a) = start_align {
                offset.next_multiple_of(a)
            } else if separate {
                offset.next_multiple_of(page)
            } else {
                offset.next_multiple_of(link.outputs[i].align.clamp(1, page))
            };
            // After RELRO, placed from RELRO's last byte; after NOBITS space, from the
            // space's end (lld: the address, not the file offset, carries on; not with a
            // fixed address, `-n` or a segment on a page of its own).
            let after_space =
                data_after_nobits(link, &link.outputs[i], last_nobits).then_some(vaddr);
            let after_padding = padding_start
                .or(after_space)
                .filter(|_| !separate && fixed.is_none() && start_align.is_none());
            let start = match (fixed, start_align) {
                (Some(a), _) => Some(a),
                (None, Some(a)) => vaddr.checked_next_multiple_of(a),
                (None, None) => match after_padding {
                    Some(dot) => vaddr
                        .checked_next_multiple_of(page)
                        .and_then(|v| v.checked_add(dot % page))
                        .and_then(|v| {
                            v.checked_next_multiple_of(link.outputs[i].align.clamp(1, page))
                        }),
                    None => vaddr
                        .checked_next_multiple_of(page)
                        .and_then(|v| v.checked_add(offset % page)),
                },
            };
            let Some(start) = start else {
                return Err(address_space_error(link, &link.outputs[i], vaddr));
            };
            vaddr = start;
            if fixed.is_some() || after_padding.is_some() {
                // The file offset congruent to the address, modulo the page.
                offset += (start % page + page - offset % page) % page;
            }
            load = Segment {
                p_type: PT_LOAD,
                flags: segment_flags(link, class),
                offset,
                vaddr,
                filesz: 0,
                memsz: 0,
                align: magic_align.unwrap_or(page),
                paddr: None,
            };
        }
        if !tbss_alone {
            current = Some(class);
            padding_start = None;
            last_nobits = takes_nobits_space(&link.outputs[i]);
        }
        if link.outputs[i].synthetic == Some(Synthetic::RelroPadding) {
            padding_start = Some(vaddr);
            // To the end of the (common) page; none in the last page of the address space.
            let common = link.opts.common_page_size.unwrap_or(PAGE).min(page);
            link.outputs[i].size = vaddr
                .checked_next_multiple_of(common)
                .map_or(0, |e| e - vaddr);
        }
        let o = &link.outputs[i];
        // The TLS template starts at the alignment of its most aligned member, so that the
        // thread pointer offsets computed here are the ones the loader uses.
        let align = if o.is_tls() && !tls_seen {
            tls_max_align
        } else {
            o.align.max(1)
        };
        // At a fixed address, exactly there.
        let aligned = if fixed.is_some() {
            Some(vaddr)
        } else {
            vaddr.checked_next_multiple_of(align)
        };
        // Where the section ends (for `.tbss`, the TLS template), below 2^64.
        let Some(end) = aligned.and_then(|a| a.checked_add(o.size)) else {
            return Err(address_space_error(link, o, aligned.unwrap_or(vaddr)));
        };
        let aligned = end - o.size;
        if o.is_tls() && o.is_nobits() {
            // .tbss takes no address space of its own: it exists only in the TLS template.
            places.set(
                o,
                SectionPlace {
                    addr: aligned,
                    offset,
                    lma: None,
                },
            );
            tls_seen = true;
            continue;
        }
        // The padding before a NOBITS section is only address space: in the file it would be
        // as many zeros as the alignment asks for (gigabytes, from a corrupt common symbol).
        if !o.is_nobits() {
            offset += aligned - vaddr;
        }
        vaddr = aligned;
        places.set(
            o,
            SectionPlace {
                addr: vaddr,
                offset,
                lma: None,
            },
        );
        tls_seen |= o.is_tls();
        vaddr = end;
        if !o.is_nobits() {
            offset += o.size;
            load.filesz = offset - load.offset;
        }
        load.memsz = vaddr - load.vaddr;
    }
    if headers_loaded || current.is_some() {
        loads.push(load);
    }
    place_non_alloc(link, &mut places, offset);

    let tls = tls_layout(link, &places);
    let (lead, rest) = special_headers(link);
    let mut segments = Vec::new();
    // Wherever the headers are loaded, as lld writes it (GNU ld: only beside PT_INTERP).
    if headers_loaded {
        segments.push(Segment {
            p_type: PT_PHDR,
            flags: PF_R,
            offset: 64,
            vaddr: image_base + 64,
            filesz: headers_size - 64,
            memsz: headers_size - 64,
            align: 8,
            paddr: None,
        });
    }
    segments.extend(special_segments(link, &places, &tls, &lead));
    segments.extend(loads);
    segments.extend(special_segments(link, &places, &tls, &rest));
    let mut segments = Segments {
        sections: places,
        headers: segments,
        tls,
        image_base,
        script: Default::default(),
    };
    if link.scripts.insert.is_some() {
        segments.script = crate::script_layout::insert_values(link, &segments);
    }
    Ok(segments)
}

/// Places the sections that are not loaded after the others in the file, from `offset`.
pub(crate) fn place_non_alloc(link: &Link, places: &mut SectionPlaces, mut offset: u64) {
    for o in link.outputs.iter().filter(|o| !o.is_alloc()) {
        offset = offset.next_multiple_of(o.align.max(1));
        places.set(
            o,
            SectionPlace {
                addr: 0,
                offset,
                lma: None,
            },
        );
        // A NOBITS section has no bytes in the file, whatever size it claims.
        if !o.is_nobits() {
            offset += o.size;
        }
    }
}

/// Sizes synthetic section `which` to an encoding of its contents that depends on the
/// addresses, while the addresses depend on the section's size (`.relr.dyn`, Android's
/// packed `.rela.dyn`): `encode` gives the encoding and its size in bytes under the current
/// layout, which is redone until the two agree (once or twice in practice). Should they
/// keep moving, the size only grows after a few rounds, which ends it; the section's writer
/// pads what the encoding leaves. None if the output has no such section.
pub fn settle_encoded_size<T>(
    link: &mut Link,
    segments: &mut Segments,
    which: Synthetic,
    mut encode: impl FnMut(&Link, &Segments) -> Result<(T, u64)>,
) -> Result<Option<T>> {
    let Some(section) = link.outputs.synthetic_id(which) else {
        return Ok(None);
    };
    let mut round = 0;
    loop {
        let (encoding, needed) = encode(link, segments)?;
        let current = link.output(section).size;
        let size = if round < 4 {
            needed
        } else {
            needed.max(current)
        };
        if size == current {
            return Ok(Some(encoding));
        }
        link.outputs.section_mut(section).size = size;
        *segments = assign_addresses(link, Some(&segments.sections))?;
        round += 1;
    }
}

/// The class whose segment section `o` goes to: under `-N` one segment holds everything;
/// under `-n` there is no RELRO, so relocated read-only data joins the data; under
/// `--no-rosegment` read-only data joins the code.
pub(crate) fn segment_class(link: &Link, o: &OutputSection) -> Class {
    match class_of(link, o) {
        Class::NonAlloc => Class::NonAlloc,
        _ if link.opts.one_segment() => Class::Data,
        Class::Relro if link.opts.nmagic => Class::Data,
        Class::ReadOnly if !link.opts.rosegment => Class::Exec,
        c => c,
    }
}

/// The class of the segment that maps the ELF and program headers, which the first
/// sections of that class join: read-only data's, the code's under `--no-rosegment`, and
/// under `-N` the one segment's (lld's choices).
fn headers_class(link: &Link) -> Class {
    if link.opts.one_segment() {
        Class::Data
    } else if !link.opts.rosegment {
        Class::Exec
    } else {
        Class::ReadOnly
    }
}

/// The section `PT_INTERP` names: rld's own `.interp`, or one the inputs bring (lld's rule:
/// any `.interp` in the output, so that a shared library such as libcap.so, which carries
/// its loader's name and an entry point, also runs as a program).
pub(crate) fn interp_section<'a>(link: &'a Link) -> Option<&'a OutputSection> {
    link.synthetic_section(Synthetic::Interp).or_else(|| {
        link.outputs
            .iter()
            .find(|o| o.name == ".interp" && o.is_alloc())
    })
}

/// Whether a PT_LOAD maps the ELF and program headers: not under `-n`/`-N` (lld's
/// choice: the first segment starts at the first section, aligned as `-n` aligns), unless
/// the loader reads them through PT_PHDR (an interpreter is named).
fn headers_loaded(link: &Link) -> bool {
    let magic = link.opts.nmagic || link.opts.omagic;
    !link.opts.oformat_binary && (!magic || interp_section(link).is_some())
}

/// Whether a section of `class` starts a PT_LOAD after one of class `current` (None at the
/// first section): at a fixed address that does not continue the segment (`jump`), or at a
/// change of class, except that the first sections join the headers' segment when it maps
/// the headers and has their class (`headers`).
fn starts_segment(
    current: Option<Class>,
    class: Class,
    jump: bool,
    headers: Option<Class>,
) -> bool {
    jump || current != Some(class) && !(current.is_none() && headers == Some(class))
}

/// A segment's permissions, from the class of its sections.
fn segment_flags(link: &Link, class: Class) -> u32 {
    match class {
        _ if link.opts.one_segment() => PF_R | PF_W | PF_X,
        Class::Exec => PF_R | PF_X,
        Class::ExecWrite => PF_R | PF_W | PF_X,
        Class::Relro | Class::Data => PF_R | PF_W,
        Class::ReadOnly | Class::NonAlloc => PF_R,
    }
}

/// How many PT_LOADs `assign_addresses` makes: the headers' one if they are loaded (which
/// the first sections of its class join), then one per run of sections of a class (under `-N`
/// all are one class), and one per section at a fixed address that is not `.bss`-like
/// space continuing the segment before it.
fn load_count(link: &Link) -> usize {
    let headers = headers_loaded(link).then(|| headers_class(link));
    let mut count = usize::from(headers.is_some());
    let mut current: Option<Class> = None;
    let mut last_nobits = false;
    for o in link.outputs.iter().filter(|o| o.is_alloc()) {
        let class = segment_class(link, o);
        let fixed = fixed_address(link, o).is_some();
        let extends = fixed && current == Some(class) && o.is_nobits();
        let jump = fixed && !extends || data_after_nobits(link, o, last_nobits);
        count += usize::from(starts_segment(current, class, jump, headers));
        current = Some(class);
        last_nobits = takes_nobits_space(o);
    }
    count
}

/// Whether section `o` has contents and follows NOBITS space in its segment
/// (`last_nobits`): it starts a PT_LOAD of its own, whose file contents the space's zeros
/// need not be written before (lld's rule; the medium code model's `.ldata` after `.bss`).
/// Not under a script's SECTIONS, which says where segments go.
fn data_after_nobits(link: &Link, o: &OutputSection, last_nobits: bool) -> bool {
    last_nobits && !o.is_nobits() && !link.scripts.lays_out()
}

/// Whether `o` is NOBITS space of its segment (`.tbss` takes none: it is the TLS
/// template's).
fn takes_nobits_space(o: &OutputSection) -> bool {
    o.is_nobits() && !o.is_tls()
}

/// The largest alignment among the allocated sections from `first` on that share its
/// segment class (under `-N`, every allocated section).
fn segment_alignment(link: &Link, first: usize, class: Class) -> u64 {
    link.outputs[first..]
        .iter()
        .filter(|o| segment_class(link, o) != Class::NonAlloc)
        .take_while(|o| segment_class(link, o) == class)
        .map(|o| o.align.max(1))
        .max()
        .unwrap_or(1)
}

/// The address `--section-start` (or `-Ttext`, `-Tdata`, `-Tbss`) gives output section `o`.
pub(crate) fn fixed_address(link: &Link, o: &OutputSection) -> Option<u64> {
    if !o.is_alloc() {
        return None;
    }
    link.opts
        .section_start
        .iter()
        .find(|(name, _)| *name == o.name)
        .map(|&(_, a)| a)
}

/// `PT_GNU_STACK`: executable with `-z execstack` (or `-z execstack-if-needed` and an
/// input asking for it), sized by `-z stack-size`.
pub(crate) fn stack_segment(link: &Link) -> Segment {
    Segment {
        p_type: PT_GNU_STACK,
        flags: if link.opts.z_execstack
            || (link.opts.z_execstack_if_needed && asks_for_executable_stack(link))
        {
            PF_R | PF_W | PF_X
        } else {
            PF_R | PF_W
        },
        offset: 0,
        vaddr: 0,
        filesz: 0,
        memsz: link.opts.z_stack_size.unwrap_or(0),
        // lld's (GNU ld writes 16; the loader reads neither).
        align: 0,
        paddr: None,
    }
}

pub fn asks_for_executable_stack(link: &Link) -> bool {
    link.objects.iter().any(|o| {
        o.sections
            .iter()
            .any(|s| s.name() == ".note.GNU-stack" && s.flags & u64::from(SHF_EXECINSTR) != 0)
    })
}

pub(crate) fn section_segment(
    link: &Link,
    places: &SectionPlaces,
    which: Synthetic,
    p_type: u32,
    flags: u32,
    align: u64,
) -> Segment {
    let o = link.synthetic_section(which).unwrap();
    output_segment(places, o, p_type, flags, align)
}

/// The segment of type `p_type` that is output section `o`.
fn output_segment(
    places: &SectionPlaces,
    o: &OutputSection,
    p_type: u32,
    flags: u32,
    align: u64,
) -> Segment {
    let place = places.of(o);
    Segment {
        p_type,
        flags,
        offset: place.offset,
        vaddr: place.addr,
        filesz: o.size,
        memsz: o.size,
        align,
        paddr: None,
    }
}

/// Defines the symbols the linker provides, where the program references them and nothing
/// else defines them.
pub fn define_linker_symbols(link: &mut Link) {
    let mut wanted: Vec<(&str, LinkerSymbol)> = vec![
        ("__ehdr_start", LinkerSymbol::ImageBase),
        ("__executable_start", LinkerSymbol::ImageBase),
        (
            "_GLOBAL_OFFSET_TABLE_",
            LinkerSymbol::Synthetic {
                which: Synthetic::GotPlt,
                end: false,
            },
        ),
        (
            "_DYNAMIC",
            LinkerSymbol::Synthetic {
                which: Synthetic::Dynamic,
                end: false,
            },
        ),
        (
            "__GNU_EH_FRAME_HDR",
            LinkerSymbol::Synthetic {
                which: Synthetic::EhFrameHdr,
                end: false,
            },
        ),
        ("_end", LinkerSymbol::End),
        ("end", LinkerSymbol::End),
        ("_edata", LinkerSymbol::EndOfData),
        ("edata", LinkerSymbol::EndOfData),
        ("__bss_start", LinkerSymbol::BssStart),
        ("_etext", LinkerSymbol::EndOfText),
        ("etext", LinkerSymbol::EndOfText),
        ("__etext", LinkerSymbol::EndOfText),
        ("_TLS_MODULE_BASE_", LinkerSymbol::TlsStart),
    ];
    for (arr, start, end) in [
        (".init_array", "__init_array_start", "__init_array_end"),
        (".fini_array", "__fini_array_start", "__fini_array_end"),
        (
            ".preinit_array",
            "__preinit_array_start",
            "__preinit_array_end",
        ),
    ] {
        wanted.push((
            start,
            LinkerSymbol::SectionBound {
                name: arr.to_string(),
                end: false,
            },
        ));
        wanted.push((
            end,
            LinkerSymbol::SectionBound {
                name: arr.to_string(),
                end: true,
            },
        ));
    }
    // glibc's static start-up applies the IRELATIVE relocations between these two symbols.
    let iplt_bounds = !link.opts.is_pic();
    let iplt_start = LinkerSymbol::Synthetic {
        which: Synthetic::RelaPlt,
        end: false,
    };
    let iplt_end = if iplt_bounds {
        LinkerSymbol::Synthetic {
            which: Synthetic::RelaPlt,
            end: true,
        }
    } else {
        iplt_start.clone()
    };
    wanted.push(("__rela_iplt_start", iplt_start));
    wanted.push(("__rela_iplt_end", iplt_end));
    let names: Vec<String> = link
        .outputs
        .iter()
        .filter(|o| is_c_identifier(&o.name))
        .map(|o| o.name.clone())
        .collect();
    let mut owned: Vec<(String, LinkerSymbol)> = Vec::new();
    for n in names {
        owned.push((
            format!("__start_{n}"),
            LinkerSymbol::SectionBound {
                name: n.clone(),
                end: false,
            },
        ));
        owned.push((
            format!("__stop_{n}"),
            LinkerSymbol::SectionBound { name: n, end: true },
        ));
    }
    // lld defines `_DYNAMIC` in every dynamic output, referenced or not (`.symtab` shows it).
    let dynamic = link.is_dynamic;
    if dynamic && link.symtab.lookup(b"_DYNAMIC").is_none() {
        link.symtab.intern(b"_DYNAMIC");
    }
    let all = wanted
        .into_iter()
        .map(|(n, l)| (n.to_string(), l))
        .chain(owned);
    for (name, what) in all {
        let Some(id) = link.symtab.lookup(name.as_bytes()) else {
            continue;
        };
        let sym = link.symtab.get_mut(id);
        if sym.is_defined_locally() && sym.def != SymbolDef::Synthetic {
            continue;
        }
        let always = name == "_GLOBAL_OFFSET_TABLE_" || dynamic && name == "_DYNAMIC";
        // `_end` and the like are also the output's own where only a linked library has
        // one (lld and GNU ld: libcord.so, linked with libgc.so, which exports `_end`,
        // defines and exports its own).
        let from_library = sym.dso_ref && exported_like_a_definition(&name);
        if sym.ref_file.is_none() && !always && !from_library {
            continue;
        }
        sym.def = SymbolDef::Synthetic;
        sym.weak = false;
        if name.starts_with("__start_") || name.starts_with("__stop_") {
            // The most constraining of the option's and the references' (GNU ld, lld).
            let wanted = link.opts.start_stop_visibility;
            sym.visibility = if wanted == STV_INTERNAL {
                STV_INTERNAL
            } else {
                crate::symbols::merge_visibility(sym.visibility, wanted)
            };
        } else if sym.visibility == STV_DEFAULT && !exported_like_a_definition(&name) {
            sym.visibility = STV_HIDDEN;
        }
        link.linker_symbols.insert(id, what);
        crate::scan::decide_preemption(link, id);
    }
}

/// The linker's symbols that keep the visibility of their references, as a definition in
/// an object would: lld defines them with default visibility and GNU ld's scripts as plain
/// (or PROVIDEd) symbols, so a shared library that uses them exports them (libgc.so's
/// `_end`) and may be preempted; the others are hidden.
fn exported_like_a_definition(name: &str) -> bool {
    matches!(
        name,
        "__bss_start" | "end" | "_end" | "edata" | "_edata" | "etext" | "_etext" | "__etext"
    )
}

fn linker_symbol_value(link: &Image, what: &LinkerSymbol) -> u64 {
    let places = &link.segments.sections;
    let writable_alloc = || {
        link.outputs
            .iter()
            .filter(|o| o.is_alloc() && o.is_writable() && !(o.is_tls() && o.is_nobits()))
    };
    match what {
        LinkerSymbol::ImageBase => link.segments.image_base,
        LinkerSymbol::SectionBound { name, end } => {
            match link.outputs.iter().find(|o| &o.name == name) {
                Some(o) => places.addr(o) + if *end { o.size } else { 0 },
                None => link.segments.image_base,
            }
        }
        LinkerSymbol::Synthetic { which, end } => match link.synthetic_section(*which) {
            Some(o) => places.addr(o) + if *end { o.size } else { 0 },
            None => link.segments.image_base,
        },
        LinkerSymbol::EndOfData => writable_alloc()
            .filter(|o| !o.is_nobits())
            .map(|o| places.end(o))
            .max()
            .unwrap_or(link.segments.image_base),
        LinkerSymbol::End => link
            .outputs
            .iter()
            .filter(|o| o.is_alloc() && !(o.is_tls() && o.is_nobits()))
            .map(|o| places.end(o))
            .max()
            .unwrap_or(link.segments.image_base),
        // The first `.bss`-like section after the RELRO region (not `.relro_padding` or
        // `.bss.rel.ro`, which are RELRO's).
        LinkerSymbol::BssStart => writable_alloc()
            .find(|o| o.is_nobits() && class_of(link, o) != Class::Relro)
            .map_or_else(
                || linker_symbol_value(link, &LinkerSymbol::EndOfData),
                |o| places.addr(o),
            ),
        LinkerSymbol::EndOfText => link
            .outputs
            .iter()
            .filter(|o| o.is_alloc() && o.is_exec())
            .map(|o| places.end(o))
            .max()
            .unwrap_or(link.segments.image_base),
        // In an executable, DTPOFF relocations resolve to thread-pointer offsets (the
        // local-dynamic model is relaxed), so the module base must sit at the thread pointer.
        LinkerSymbol::TlsStart if !link.opts.is_shared() => {
            link.segments.tls.start
                + link
                    .segments
                    .tls
                    .memsz
                    .next_multiple_of(link.segments.tls.align.max(1))
        }
        LinkerSymbol::TlsStart => link.segments.tls.start,
        LinkerSymbol::Absolute(v) => *v,
        LinkerSymbol::Alias(other, offset) => {
            symbol_address_for_alias(link, *other).wrapping_add(*offset as u64)
        }
        // Evaluated after every other symbol (evaluate_script_symbols).
        LinkerSymbol::Expr(_) => 0,
        LinkerSymbol::ScriptDot(k, _) => link.segments.script.values.get(*k).map_or(0, |v| v.0),
    }
}

/// The address of every global symbol.
fn symbol_addresses(link: &Image) -> Vec<u64> {
    let commons_base = link
        .outputs
        .iter()
        .find(|o| o.tail(TailKind::Commons).is_some())
        .map(|o| link.segments.sections.addr(o));
    // Each symbol on its own: on all threads (a defined symbol's address reads its section's
    // record, in another object's memory).
    let address = |(id, sym): (usize, &crate::symbols::Symbol)| {
        let id32 = id as u32;
        if let Some(&slot) = link.tables.copies.slots.get(&id32) {
            crate::synthetic::copy_address(link, slot)
        } else if let Some(&i) = link
            .tables
            .plt
            .iplt_index
            .get(&crate::context::Target::Global(id32))
        {
            link.plt_entry_address_iplt(i)
        } else {
            match sym.def {
                SymbolDef::Defined { .. } => link.definition_address_of_defined(id32),
                SymbolDef::Common { .. } => {
                    commons_base.unwrap_or(0) + link.placement.common_offsets[&id32]
                }
                SymbolDef::Shared { .. } => match link.tables.plt.lazy_index.get(&id32) {
                    Some(&i) if link.tables.plt.canonical.contains(&id32) => {
                        link.plt_entry_address(i)
                    }
                    _ => 0,
                },
                SymbolDef::Synthetic => link
                    .linker_symbols
                    .get(&id32)
                    .map_or(0, |w| linker_symbol_value(link, w)),
                // Bitcode definitions are all replaced by the LTO object before layout.
                SymbolDef::Undefined
                | SymbolDef::Lazy { .. }
                | SymbolDef::Bitcode { .. }
                | SymbolDef::BitcodeAsm { .. }
                | SymbolDef::Plugin { .. } => 0,
            }
        }
    };
    link.symtab
        .symbols
        .par_iter()
        .enumerate()
        .map(address)
        .collect()
}

/// The address of every global symbol, by id: definitions, commons, copies and PLT
/// entries first, then the symbols of script expressions; then the scripts' `ASSERT`s.
pub fn compute_all_symbol_addresses(
    link: &Link,
    tables: &Tables,
    placement: &Placement,
    segments: &Segments,
) -> crate::error::Result<Vec<u64>> {
    let image = Image::before_symbol_addresses(link, tables, placement, segments);
    let mut addresses = symbol_addresses(&image);
    evaluate_script_symbols(link, segments, &mut addresses)?;
    Ok(addresses)
}

/// The address of the target of a `--defsym` alias (a symbol defined in an object).
pub fn symbol_address_for_alias(link: &Image, id: u32) -> u64 {
    match link.symtab.get(id).def {
        SymbolDef::Defined { .. } => link.definition_address_of_defined(id),
        _ => 0,
    }
}

/// Defines the symbols of linker script assignments and `--defsym NAME=EXPR` (in that
/// order, so that the command line has the last word). `PROVIDE` defines a symbol only if
/// something refers to it and no input defines it. A number becomes an absolute symbol, a
/// defined symbol plus or minus a number an alias of it (typed like it); anything else is
/// evaluated once the layout is known. What an expression reads must exist.
pub fn define_defsyms(link: &mut Link) -> crate::error::Result<()> {
    use crate::error::LinkError;
    use crate::script_expr::{BinOp, Expr};
    let mut all: Vec<(String, crate::input::script::Assignment)> =
        std::mem::take(&mut link.scripts.assignments);
    define_sections_symbols(link);
    for (name, text) in &link.opts.defsym {
        let expr = crate::script_expr::parse(text).map_err(|e| {
            // A long expression is shown by its start: the message is about its shape.
            let shown = match text.char_indices().nth(60) {
                Some((at, _)) => format!("{}...", &text[..at]),
                None => text.clone(),
            };
            LinkError::Link(format!("--defsym {name}={shown}: {e}"))
        })?;
        all.push((
            "--defsym".into(),
            crate::input::script::Assignment {
                name: name.clone(),
                expr,
                provide: false,
                hidden: false,
                line: 0,
            },
        ));
    }
    let mut errors = Vec::new();
    // The expression each name was last assigned, for the assignments after it.
    let mut assigned: FxHashMap<String, Expr> = FxHashMap::default();
    for (origin, a) in &mut all {
        let place = if a.line == 0 {
            format!("{origin} {}", a.name)
        } else {
            format!("{origin}:{}", a.line)
        };
        let existing = link.symtab.lookup(a.name.as_bytes());
        if a.provide {
            let wanted = existing.is_some_and(|id| provide_wanted(link, id));
            if !wanted {
                continue;
            }
        }
        a.expr = a.expr.substitute(&|name| assigned.get(name).cloned());
        assigned.insert(a.name.clone(), a.expr.clone());
        let mut reads = Vec::new();
        a.expr.symbols(&mut reads);
        let defined = |name: &String| {
            link.symtab.lookup(name.as_bytes()).is_some_and(|id| {
                matches!(
                    link.symtab.get(id).def,
                    SymbolDef::Defined { .. } | SymbolDef::Common { .. } | SymbolDef::Synthetic
                )
            })
        };
        if let Some(missing) = reads.iter().find(|n| !defined(n)) {
            errors.push(format!("{place}: symbol not found: {missing}"));
            continue;
        }
        let mut sections = Vec::new();
        a.expr.sections(&mut sections);
        if let Some(missing) = sections
            .iter()
            .find(|n| !link.outputs.iter().any(|o| &o.name == *n))
        {
            errors.push(format!("{place}: undefined section {missing}"));
            continue;
        }
        // A plain alias of an object's symbol keeps the cheap form (and its type).
        let object_symbol = |name: &str| {
            link.symtab
                .lookup(name.as_bytes())
                .filter(|&id| matches!(link.symtab.get(id).def, SymbolDef::Defined { .. }))
        };
        let what = match &a.expr {
            Expr::Number(n) => LinkerSymbol::Absolute(*n),
            Expr::Symbol(s) if object_symbol(s).is_some() => {
                LinkerSymbol::Alias(object_symbol(s).unwrap(), 0)
            }
            Expr::Binary(op @ (BinOp::Add | BinOp::Sub), x, y) => match (x.as_ref(), y.as_ref()) {
                (Expr::Symbol(s), Expr::Number(n)) if object_symbol(s).is_some() => {
                    let n = *n as i64;
                    let offset = if *op == BinOp::Add {
                        n
                    } else {
                        n.wrapping_neg()
                    };
                    LinkerSymbol::Alias(object_symbol(s).unwrap(), offset)
                }
                _ => LinkerSymbol::Expr(Box::new(a.expr.clone())),
            },
            _ => LinkerSymbol::Expr(Box::new(a.expr.clone())),
        };
        // An alias of a function or variable is one too in the symbol tables (GNU ld, lld).
        let sym_type = match what {
            LinkerSymbol::Alias(other, _) => match link.symtab.get(other).sym_type {
                t @ (STT_FUNC | STT_OBJECT) => t,
                _ => STT_NOTYPE,
            },
            _ => STT_NOTYPE,
        };
        let leaked: &'static [u8] = Box::leak(a.name.clone().into_bytes().into_boxed_slice());
        let id = link.symtab.intern(leaked);
        let sym = link.symtab.get_mut(id);
        sym.def = SymbolDef::Synthetic;
        sym.weak = false;
        sym.sym_type = sym_type;
        if a.hidden {
            sym.visibility = STV_HIDDEN;
        }
        link.linker_symbols.insert(id, what);
        crate::scan::decide_preemption(link, id);
    }
    link.scripts.assignments = all;
    // Decided while the symbols were being defined, some before those they read: again,
    // now that all are.
    if let Ok(m) = link.script_absolute.get_mut() {
        m.clear();
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(LinkError::Many(errors))
    }
}

/// Whether `PROVIDE` defines symbol `id`: something refers to it and no input defines it
/// (the linker's own `_end`, `_etext`, ... give way to the script's, as in lld).
fn provide_wanted(link: &Link, id: u32) -> bool {
    match link.symtab.get(id).def {
        SymbolDef::Undefined | SymbolDef::Lazy { .. } | SymbolDef::Shared { .. } => true,
        SymbolDef::Synthetic => !matches!(
            link.linker_symbols.get(&id),
            Some(
                LinkerSymbol::Absolute(_)
                    | LinkerSymbol::Alias(..)
                    | LinkerSymbol::Expr(_)
                    | LinkerSymbol::ScriptDot(..)
            )
        ),
        _ => false,
    }
}

/// The symbols assigned inside `SECTIONS` (their values come from the scripted layout),
/// numbered as the layout walks them; `PROVIDE` ones only if referenced and undefined.
fn define_sections_symbols(link: &mut Link) {
    use crate::input::script::{OutputItem, SectionsCommand};
    let Some((_, commands)) = &link.scripts.sections else {
        return;
    };
    let mut assignments = Vec::new();
    for c in commands {
        match c {
            SectionsCommand::Assign(a) => assignments.push(a.clone()),
            SectionsCommand::Output(d) => {
                for item in &d.items {
                    if let OutputItem::Assign(a) = item {
                        assignments.push(a.clone());
                    }
                }
            }
        }
    }
    for (k, a) in assignments.iter().enumerate() {
        if a.name == "." {
            continue;
        }
        let existing = link.symtab.lookup(a.name.as_bytes());
        if a.provide {
            let wanted = existing.is_some_and(|id| provide_wanted(link, id));
            if !wanted {
                continue;
            }
        }
        let leaked: &'static [u8] = Box::leak(a.name.clone().into_bytes().into_boxed_slice());
        let id = link.symtab.intern(leaked);
        let sym = link.symtab.get_mut(id);
        sym.def = SymbolDef::Synthetic;
        sym.weak = false;
        sym.sym_type = STT_NOTYPE;
        // The script's definition replaces the linker's own (`_end`, `_etext`, which are
        // hidden), as in lld.
        sym.visibility = if a.hidden { STV_HIDDEN } else { STV_DEFAULT };
        link.linker_symbols
            .insert(id, LinkerSymbol::ScriptDot(k, Box::new(a.expr.clone())));
        crate::scan::decide_preemption(link, id);
    }
}

/// The link as script expressions see it.
pub(crate) struct LinkEnv<'a> {
    pub link: &'a Link<'a>,
    /// The global symbols' addresses, by id, once known (none while sections are laid out:
    /// a symbol then reads as 0).
    pub symbols: &'a [u64],
    /// The location counter, inside `SECTIONS`.
    pub dot: Option<crate::script_expr::Value>,
    /// The size of the ELF and program headers (`SIZEOF_HEADERS`), once the program headers
    /// are known.
    pub headers: Option<u64>,
    /// The output sections' places, once known (before, an address reads as 0).
    pub places: Option<&'a SectionPlaces>,
}

thread_local! {
    /// How deep expression symbols are being looked through: assignments may refer to each
    /// other in a cycle (`a = b; b = a;`), which must end as "not found".
    static EXPR_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

impl crate::script_expr::Env for LinkEnv<'_> {
    fn symbol(&self, name: &str) -> Option<crate::script_expr::Value> {
        let depth = EXPR_DEPTH.with(|d| d.get());
        if depth > 32 {
            return None;
        }
        EXPR_DEPTH.with(|d| d.set(depth + 1));
        let found = self.symbol_once(name);
        EXPR_DEPTH.with(|d| d.set(depth));
        found
    }

    fn section(&self, name: &str) -> Option<crate::script_expr::SectionInfo> {
        let (index, o) = self
            .link
            .outputs
            .iter()
            .enumerate()
            .find(|(_, o)| o.name == name)?;
        let place = self.places.map(|p| p.of(o)).unwrap_or_default();
        Some(crate::script_expr::SectionInfo {
            index: index as u32,
            addr: place.addr,
            lma: place.lma.unwrap_or(place.addr),
            size: o.size,
            align: o.align,
        })
    }

    fn max_page_size(&self) -> u64 {
        self.link.opts.max_page_size.unwrap_or(PAGE)
    }

    fn common_page_size(&self) -> u64 {
        self.link.opts.common_page_size.unwrap_or(PAGE)
    }

    fn sizeof_headers(&self) -> u64 {
        // Not known yet: the ELF header alone.
        self.headers.unwrap_or(64)
    }

    fn dot(&self) -> Option<crate::script_expr::Value> {
        self.dot
    }
}

impl LinkEnv<'_> {
    fn symbol_once(&self, name: &str) -> Option<crate::script_expr::Value> {
        let link = self.link;
        let id = link.symtab.lookup(name.as_bytes())?;
        let value = self.symbols.get(id as usize).copied().unwrap_or(0);
        let in_section = match link.symtab.get(id).def {
            SymbolDef::Defined { .. } | SymbolDef::Common { .. } | SymbolDef::Synthetic => {
                !link.is_absolute(crate::context::Target::Global(id))
            }
            _ => return None,
        };
        Some(crate::script_expr::Value {
            section: in_section.then_some(0),
            value,
        })
    }
}

/// Whether the value of an assignment inside `SECTIONS` is a number rather than an address
/// (as lld decides it: `.` there is an address, `0x1234` or `SIZEOF(.text)` a number); by
/// its shape, so also before layout. An expression that cannot be evaluated yet (a section
/// the linker has not made) counts as an address.
pub fn assignment_is_absolute(link: &Link, e: &crate::script_expr::Expr) -> bool {
    e.eval(&LinkEnv {
        link,
        symbols: &[],
        dot: Some(crate::script_expr::Value {
            section: Some(0),
            value: 0,
        }),
        headers: None,
        places: None,
    })
    .is_ok_and(|v| v.section.is_none())
}

/// Whether a script expression's value is a number (rather than an address in a section,
/// which moves with the load address). Decided by its shape, so also before layout.
pub fn expr_is_absolute(link: &Link, e: &crate::script_expr::Expr) -> bool {
    e.eval(&LinkEnv {
        link,
        symbols: &[],
        dot: None,
        headers: None,
        places: None,
    })
    .map_or(true, |v| v.section.is_none())
}

/// The values of script expression symbols, once every other symbol has its address; in
/// definition order, twice, so that one may use a later one. Then the `ASSERT`s.
fn evaluate_script_symbols(
    link: &Link,
    segments: &Segments,
    addresses: &mut [u64],
) -> crate::error::Result<()> {
    let exprs: Vec<(u32, crate::script_expr::Expr)> = link
        .linker_symbols
        .iter()
        .filter_map(|(&id, w)| match w {
            LinkerSymbol::Expr(e) => Some((id, (**e).clone())),
            _ => None,
        })
        .collect();
    let mut order = exprs;
    order.sort_by_key(|&(id, _)| id);
    let mut errors = Vec::new();
    for round in 0..2 {
        for (id, e) in &order {
            match e.eval(&LinkEnv {
                link,
                symbols: addresses,
                dot: None,
                headers: Some(segments.headers_size()),
                places: Some(&segments.sections),
            }) {
                Ok(v) => addresses[*id as usize] = v.value,
                Err(err) if round == 1 => {
                    let name = String::from_utf8_lossy(link.symtab.get(*id).name).into_owned();
                    errors.push(format!("{name}: {err}"));
                }
                Err(_) => {}
            }
        }
    }
    for (origin, e, message, line) in &link.scripts.asserts {
        match e.eval(&LinkEnv {
            link,
            symbols: addresses,
            dot: None,
            headers: Some(segments.headers_size()),
            places: Some(&segments.sections),
        }) {
            Ok(v) if v.value != 0 => {}
            Ok(_) => errors.push(format!("{origin}:{line}: {message}")),
            Err(err) => errors.push(format!("{origin}:{line}: {err}")),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(crate::error::LinkError::Many(errors))
    }
}
