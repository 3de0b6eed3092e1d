//! Writing the output file: the ELF and program headers, every section's bytes (input
//! sections relocated in parallel), section headers, and the build ID.
//!
//! The image is written into a buffer from `output_file`, which puts it in place only when
//! everything succeeded. Where the output is a file, the sections go there part by part
//! from small buffers of their own instead (see [`write_parts_through`]): only the headers
//! and the section header table are written into the image, so a large output never
//! takes its size in memory.

use crate::build_id::Digest;
use crate::context::Link;
use crate::dynamic::DynamicTables;
use crate::elf_header::{FileHeader, SectionHeader};
use crate::error::{LinkError, Result};
use crate::fill::Fillers;
use crate::image::Image;
use crate::object_file::SectionKind;
use crate::options::OutputKind;
use crate::output_file::{OutputBuffer, PendingOutput};
use crate::output_section::{eh_record_len, fde_cie_pointer, Placement, Synthetic, TailKind};
use crate::relocate::relocate_section;
use crate::scan::RelocPlan;
use crate::static_symtab::build_symtab;
use crate::synthetic::{put_u32, put_u64, write_synthetic};
use crate::timer::Timer;
use object::elf::*;
use rayon::prelude::*;

/// One piece of the output file that can be written independently of the others.
enum Job {
    Input {
        file: u32,
        sec: u32,
    },
    /// The records of an `.eh_frame` input that land in offsets `lo..hi` of its output
    /// section (one of its runs).
    EhFrame {
        file: u32,
        sec: u32,
        lo: u64,
        hi: u64,
    },
    Merged {
        group: u32,
    },
    Synthetic(Synthetic),
    Bytes(usize),
    Compressed(u32),
    /// A linker script's data command (`LONG(...)`): its bytes in `Link::script_data`.
    ScriptData(usize),
}

pub fn write_output(
    link: &Image,
    plan: &RelocPlan,
    dynamic: &DynamicTables,
    pending: &mut PendingOutput,
    timer: &mut Timer,
) -> Result<OutputBuffer> {
    // `-z nosectionheader`: no section header table, nor the sections only it finds.
    let headers = link.opts.z_section_header;
    let (symtab, symtab_index) = if link.opts.strip_all || !headers {
        (None, None)
    } else {
        let (table, index) = build_symtab(link);
        (Some(table), index)
    };
    timer.phase("  .symtab");
    let copied_relocs = symtab_index
        .map(|index| crate::emit_relocs::relocation_sections(link, &index, &plan.redirects))
        .unwrap_or_default();

    // Non-allocated sections after the image, in lld's order: .gdb_index, .symtab,
    // .symtab_shndx (only when some section index does not fit st_shndx), .shstrtab and
    // .strtab; then the relocations `--emit-relocs` copies, then the section headers.
    let first_trailing = link.outputs.len() as u32 + 1;
    let mut trailing: Vec<TrailingSection> = Vec::new();
    if link.opts.gdb_index && headers {
        trailing.push(TrailingSection {
            name: ".gdb_index".into(),
            sh_type: SHT_PROGBITS,
            flags: 0,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
            bytes: Trailing::Bytes(crate::gdb_index::build(link)),
        });
        timer.phase("  .gdb_index");
    }
    let mut symtab_index = 0;
    if let Some(st) = &symtab {
        let extended = st.has_extended_indices();
        symtab_index = first_trailing + trailing.len() as u32;
        // .strtab follows .symtab_shndx and .shstrtab.
        let strtab_index = symtab_index + 2 + u32::from(extended);
        trailing.push(TrailingSection {
            name: ".symtab".into(),
            sh_type: SHT_SYMTAB,
            flags: 0,
            link: strtab_index,
            info: st.first_global,
            align: 8,
            entsize: 24,
            bytes: Trailing::Symtab(st.symtab_len()),
        });
        if extended {
            trailing.push(TrailingSection {
                name: ".symtab_shndx".into(),
                sh_type: SHT_SYMTAB_SHNDX,
                flags: 0,
                link: symtab_index,
                info: 0,
                align: 4,
                entsize: 4,
                bytes: Trailing::Bytes(st.shndx.iter().flat_map(|i| i.to_le_bytes()).collect()),
            });
        }
    }
    // Its bytes once every section's name is known.
    let shstrtab_index = trailing.len();
    if headers {
        trailing.push(TrailingSection::strings(".shstrtab", Vec::new()));
    }
    if let Some(st) = &symtab {
        trailing.push(TrailingSection {
            bytes: Trailing::Strtab(st.strtab_len()),
            ..TrailingSection::strings(".strtab", Vec::new())
        });
    }
    for rela in copied_relocs {
        trailing.push(TrailingSection {
            name: format!(".rela{}", link.outputs[rela.output as usize].name),
            sh_type: SHT_RELA,
            flags: u64::from(SHF_INFO_LINK),
            link: symtab_index,
            info: link.outputs[rela.output as usize].index,
            align: 8,
            entsize: 24,
            bytes: Trailing::Bytes(rela.bytes),
        });
    }
    let mut shstrtab = vec![0u8];
    let mut shname = |s: &str| -> u32 {
        let off = shstrtab.len() as u32;
        shstrtab.extend_from_slice(s.as_bytes());
        shstrtab.push(0);
        off
    };
    let mut names: Vec<u32> = link.outputs.iter().map(|o| shname(&o.name)).collect();
    names.extend(trailing.iter().map(|t| shname(&t.name)));
    let shstrndx = if headers {
        trailing[shstrtab_index].bytes = Trailing::Bytes(shstrtab);
        first_trailing + shstrtab_index as u32
    } else {
        0
    };

    let mut end = link
        .outputs
        .iter()
        .filter(|o| !o.is_nobits())
        .map(|o| link.offset(o) + o.size)
        .max()
        .unwrap_or(0)
        .max(link.segments.headers_size());
    let mut trailing_offsets = Vec::with_capacity(trailing.len());
    for t in &trailing {
        end = end.next_multiple_of(t.align);
        trailing_offsets.push(end);
        end += t.bytes.len() as u64;
    }
    // The section header table ends the file. Without one (`-z nosectionheader`) the file
    // keeps its place as zeros, as lld's does: the same bytes as lld's.
    let table_at = end.next_multiple_of(8);
    let table_entries = 1 + link.outputs.len() + trailing.len();
    let file_size = table_at + 64 * table_entries as u64;
    let (shoff, shnum) = if headers {
        (table_at, table_entries)
    } else {
        (0, 0)
    };

    let mut map = pending.buffer(file_size)?;
    // Each finished part of the image goes to the file at once, by the thread that wrote
    // it, while its bytes are in that core's cache; but the whole image stays in memory
    // when it is read back (`--check-dynamic-relocations`, `--oformat binary`).
    let through = map.file().filter(|_| !link.opts.keeps_image_in_memory());
    let unwritten_reads_zero = map.unwritten_reads_zero();
    let buf: &mut [u8] = &mut map;

    // Collect every independent piece with its file range, then write them in parallel.
    // (file offset, size, what to write)
    // At most one per output section, input section and tail, reserved at once: a large
    // link has hundreds of thousands, and growing by doubling would hold up to twice that.
    let most = link
        .outputs
        .iter()
        .map(|o| 1 + o.inputs.len() + o.tails.len())
        .sum::<usize>()
        + link.contents.script_data.len()
        + trailing.len();
    let mut jobs: Vec<(u64, u64, Job)> = Vec::with_capacity(most);
    for (index, o) in link.outputs.iter().enumerate() {
        if o.is_nobits() {
            continue;
        }
        let o_offset = link.offset(o);
        if link.contents.compressed.contains_key(&(index as u32)) {
            jobs.push((o_offset, o.size, Job::Compressed(index as u32)));
            continue;
        }
        if let Some(which) = o.synthetic {
            jobs.push((o_offset, o.size, Job::Synthetic(which)));
            continue;
        }
        // In parallel: a large output section has hundreds of thousands of inputs.
        // (An input's jobs as an iterator of either kind: a list per input would be an
        // allocation per input section.)
        use rayon::iter::Either;
        jobs.par_extend(o.inputs.par_iter().flat_map_iter(|&(f, i)| {
            let s = &link.objects[f as usize].sections[i as usize];
            let runs = match s.kind {
                SectionKind::Merge => &[][..],
                SectionKind::EhFrame => link.placement.eh_runs.get(&(f, i)).map_or(&[][..], |r| r),
                _ => {
                    let job = Job::Input { file: f, sec: i };
                    return Either::Left(std::iter::once((o_offset + s.offset, s.size(), job)));
                }
            };
            Either::Right(runs.iter().map(move |&(lo, hi)| {
                let job = Job::EhFrame {
                    file: f,
                    sec: i,
                    lo,
                    hi,
                };
                (o_offset + lo, hi - lo, job)
            }))
        }));
        for t in &o.tails {
            if let TailKind::Merged(g) = t.kind {
                jobs.push((o_offset + t.offset, t.size, Job::Merged { group: g }));
            }
        }
    }
    for (k, (out, at, bytes)) in link.contents.script_data.iter().enumerate() {
        let o = &link.outputs[*out as usize];
        jobs.push((link.offset(o) + at, bytes.len() as u64, Job::ScriptData(k)));
    }
    for (i, (t, off)) in trailing.iter().zip(&trailing_offsets).enumerate() {
        jobs.push((*off, t.bytes.len() as u64, Job::Bytes(i)));
    }
    jobs.retain(|j| j.1 > 0);
    // Pieces that do not overlap (checked below) start at distinct offsets: any sort gives
    // the one order.
    jobs.par_sort_unstable_by_key(|j| j.0);
    let first = jobs.first().map_or(buf.len(), |j| j.0 as usize);
    let mut consumed = first as u64;
    for (off, size, _) in &jobs {
        if *off < consumed {
            return Err(LinkError::Link(format!(
                "internal error: overlapping output at offset {off:#x}"
            )));
        }
        consumed = off + size;
    }
    // Where an input section lands in memory (0 outside it): what its relocations need.
    let address = |file: u32, sec: u32| {
        let s = &link.objects[file as usize].sections[sec as usize];
        let o = link.output(s.output);
        if o.is_alloc() {
            link.addr(o) + s.offset
        } else {
            0
        }
    };
    // Each piece into its place in the zero-filled buffer (padding stays zero).
    let work = |piece: &mut [u8], job: &Job| -> Vec<String> {
        match job {
            Job::Input { file, sec } => {
                let errors = relocate_section(link, plan, *file, *sec, piece, address(*file, *sec));
                crate::endbr::apply(link, *file, *sec, piece);
                errors
            }
            &Job::EhFrame { file, sec, lo, hi } => {
                copy_eh_frame_pieces(link, link.placement, file, sec, piece, lo..hi);
                // The window's address: its output section's plus `lo`.
                let s = &link.objects[file as usize].sections[sec as usize];
                let base = link.addr(link.output(s.output)).wrapping_add(lo);
                crate::relocate::relocate_split_section(link, plan, file, sec, piece, base, lo..hi)
            }
            Job::Merged { group } => {
                piece.copy_from_slice(&link.placement.merge_groups[*group as usize].data);
                Vec::new()
            }
            Job::Synthetic(which) => {
                write_synthetic(link, dynamic, *which, piece);
                Vec::new()
            }
            Job::Bytes(i) => {
                match &trailing[*i].bytes {
                    Trailing::Bytes(bytes) => piece.copy_from_slice(bytes),
                    // The symbol table is written from its parts, in place.
                    Trailing::Symtab(_) => symtab.as_ref().map_or((), |st| st.write_symtab(piece)),
                    Trailing::Strtab(_) => symtab.as_ref().map_or((), |st| st.write_strtab(piece)),
                }
                Vec::new()
            }
            Job::Compressed(index) => {
                piece.copy_from_slice(&link.contents.compressed[index]);
                Vec::new()
            }
            Job::ScriptData(k) => {
                piece.copy_from_slice(&link.contents.script_data[*k].2);
                Vec::new()
            }
        }
    };
    let run = Run {
        work: &work,
        fillers: &Fillers::new(link),
    };
    // Past the last job: padding and the section header table, written with the headers.
    let jobs_end = consumed as usize;
    // The headers' region runs to the first job, unless that leaves a long gap after them,
    // which is then a part of its own (see `cut_parts`).
    let headers_end = link.segments.headers_size() as usize;
    let head_end = if first.saturating_sub(headers_end) as u64 >= GAP_BYTES {
        headers_end
    } else {
        first
    };
    let parts = cut_parts(&jobs, head_end as u64, jobs_end as u64);
    let id_note = link.synthetic_section(Synthetic::BuildId);
    let digest = Digest::of_style(&link.opts.build_id).filter(|_| id_note.is_some());
    let through = through.filter(|_| !jobs.is_empty());
    let (errors, part_digests) = match &through {
        Some(file) => {
            let dest = Destination {
                file,
                path: link.opts.output.as_path(),
                unwritten_reads_zero,
            };
            write_parts_through(&jobs, &parts, &run, &dest, digest)
        }
        None => {
            run.fillers
                .fill_gap(head_end as u64, &mut buf[head_end..first]);
            let rest = &mut buf[first..jobs_end];
            (run.jobs(&jobs, jobs_end as u64, rest), Vec::new())
        }
    };
    if !errors.is_empty() {
        return Err(LinkError::Many(errors));
    }
    timer.phase("  sections and relocations");

    write_headers(link, buf, shoff, shnum as u32, shstrndx);
    // Section headers.
    let mut sh = shoff as usize + 64;
    let outputs_with_headers = if headers { &link.outputs[..] } else { &[][..] };
    let index_of = |w: Synthetic| link.synthetic_section(w).map_or(0, |o| o.index);
    let dynsym_index = index_of(Synthetic::DynSym);
    let dynstr_index = index_of(Synthetic::DynStr);
    for (i, o) in outputs_with_headers.iter().enumerate() {
        let (link_idx, info) = match o.synthetic {
            Some(Synthetic::DynSym) => (dynstr_index, 1),
            Some(Synthetic::GnuVersion) | Some(Synthetic::GnuHash) | Some(Synthetic::SysvHash) => {
                (dynsym_index, 0)
            }
            Some(Synthetic::GnuVersionR) => (dynstr_index, dynamic.verneed_count),
            Some(Synthetic::GnuVersionD) => (dynstr_index, dynamic.verdef_count),
            Some(Synthetic::Dynamic) => (dynstr_index, 0),
            Some(Synthetic::RelaDyn) => (dynsym_index, 0),
            Some(Synthetic::RelaPlt) => (
                dynsym_index,
                if link.is_dynamic {
                    index_of(Synthetic::GotPlt)
                } else {
                    0
                },
            ),
            _ => (link.outputs.linked_index(o), 0),
        };
        // Constructor tables too: their inputs' entry size if they agree, else 0 (lld's;
        // GNU ld always writes 8).
        let entsize = o.entsize;
        let header = SectionHeader {
            name: names[i],
            sh_type: o.sh_type,
            flags: o.flags,
            addr: link.addr(o),
            offset: link.offset(o),
            size: o.size,
            link: link_idx,
            info,
            align: o.align,
            entsize,
        };
        header.write(&mut buf[sh..sh + 64]);
        sh += 64;
    }
    for ((t, off), name) in trailing
        .iter()
        .zip(&trailing_offsets)
        .zip(&names[link.outputs.len()..])
    {
        let header = SectionHeader {
            name: *name,
            sh_type: t.sh_type,
            flags: t.flags,
            addr: 0,
            offset: *off,
            size: t.bytes.len() as u64,
            link: t.link,
            info: t.info,
            align: t.align,
            entsize: t.entsize,
        };
        header.write(&mut buf[sh..sh + 64]);
        sh += 64;
    }

    timer.phase("  headers");
    if let Some(id_sec) = id_note {
        let start = link.offset(id_sec) as usize + 16;
        let len = id_sec.size as usize - 16;
        // The regions' digests: the headers, each part (hashed as it was written when it
        // went to the file at once), what follows the parts.
        let regions: Vec<Vec<u8>> = match digest {
            Some(d) => {
                let parts_digests = if through.is_some() {
                    part_digests
                } else {
                    parts
                        .par_iter()
                        .map(|p| d.region(&buf[p.start as usize..p.end as usize]))
                        .collect()
                };
                let mut regions = vec![d.region(&buf[..head_end])];
                regions.extend(parts_digests);
                regions.push(d.region(&buf[jobs_end..]));
                regions
            }
            None => Vec::new(),
        };
        let id = crate::build_id::build_id(&link.opts.build_id, len, &regions);
        buf[start..start + len].copy_from_slice(&id[..len]);
        timer.phase("  build ID");
    }
    if let Some(file) = &through {
        // What was written after the parts: the headers, the section header table, the
        // build ID (only its bytes: the rest of the note went out with its part, and the
        // image holds none of it).
        let mut last = vec![(0, head_end), (jobs_end, buf.len())];
        if let Some(id_sec) = id_note {
            let at = link.offset(id_sec) as usize;
            last.push((at + 16, at + id_sec.size as usize));
        }
        for (from, to) in last {
            crate::output_file::write_in_parallel(
                file,
                &buf[from..to],
                from as u64,
                unwritten_reads_zero,
            )
            .map_err(|e| LinkError::io(&link.opts.output, e))?;
        }
        map.written_through();
    }
    Ok(map)
}

/// Copies the kept CIEs and FDEs whose places (offsets in the output section) are in
/// `window` into `out`, which starts at the window's start, and points each FDE at its
/// CIE's new position.
pub(crate) fn copy_eh_frame_pieces(
    link: &Link,
    placement: &Placement,
    file: u32,
    sec: u32,
    out: &mut [u8],
    window: std::ops::Range<u64>,
) {
    let s = &link.objects[file as usize].sections[sec as usize];
    for p in s.pieces.iter() {
        if !window.contains(&p.output_offset) {
            continue;
        }
        let start = p.input_offset as usize;
        let len = eh_record_len(s.data(), start) as usize;
        let dst = (p.output_offset - window.start) as usize;
        out[dst..dst + len].copy_from_slice(&s.data()[start..start + len]);
        if let Some(id) = fde_cie_pointer(s.data(), start) {
            let cie_in = (p.input_offset + 4).wrapping_sub(u64::from(id));
            // The CIE is here, or an equal one placed earlier stands for it.
            let cie_out = s
                .piece_output_offset(cie_in)
                .or_else(|| placement.cie_aliases.get(&(file, sec, cie_in)).copied());
            if let Some(cie_out) = cie_out {
                let new = (p.output_offset + 4).wrapping_sub(cie_out) as u32;
                out[dst + 4..dst + 8].copy_from_slice(&new.to_le_bytes());
            }
        }
    }
}

/// A non-allocated section written after the image (symbol and string tables).
struct TrailingSection {
    name: String,
    sh_type: u32,
    flags: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
    bytes: Trailing,
}

/// What a trailing section holds.
enum Trailing {
    Bytes(Vec<u8>),
    /// `.symtab` and `.strtab` of this many bytes, written from the table's parts.
    Symtab(usize),
    Strtab(usize),
}

impl Trailing {
    fn len(&self) -> usize {
        match self {
            Trailing::Bytes(bytes) => bytes.len(),
            Trailing::Symtab(len) | Trailing::Strtab(len) => *len,
        }
    }
}

impl TrailingSection {
    fn strings(name: &str, bytes: Vec<u8>) -> TrailingSection {
        TrailingSection {
            name: name.to_string(),
            sh_type: SHT_STRTAB,
            flags: 0,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
            bytes: Trailing::Bytes(bytes),
        }
    }
}

/// The ELF header and program headers.
fn write_headers(link: &Image, buf: &mut [u8], shoff: u64, shnum: u32, shstrndx: u32) {
    let e_type = match link.opts.kind {
        OutputKind::Executable => ET_EXEC,
        _ => ET_DYN,
    };
    FileHeader {
        e_type,
        osabi: crate::elf_header::output_osabi(link),
        entry: entry_address(link),
        phnum: link.segments.headers.len() as u16,
        shoff,
        shnum,
        shstrndx,
    }
    .write(buf);
    for (i, s) in link.segments.headers.iter().enumerate() {
        let p = &mut buf[64 + 56 * i..64 + 56 * (i + 1)];
        put_u32(p, 0, s.p_type);
        put_u32(p, 4, s.flags);
        put_u64(p, 8, s.offset);
        put_u64(p, 16, s.vaddr);
        put_u64(p, 24, s.paddr.unwrap_or(s.vaddr));
        put_u64(p, 32, s.filesz);
        put_u64(p, 40, s.memsz);
        put_u64(p, 48, s.align);
    }
}

/// `-e`'s symbol's address, or (as lld and GNU ld take it) the number `-e` gives when no
/// symbol has that name.
pub fn entry_address(link: &Image) -> u64 {
    let name = link.opts.entry.as_deref().unwrap_or("_start");
    match link.symtab.lookup(name.as_bytes()) {
        Some(id) if link.symtab.get(id).is_defined_locally() => link.sym_addr[id as usize],
        _ => crate::args::parse_u64(name).unwrap_or(0),
    }
}

/// `buf` cut into consecutive places of the given lengths (for pieces written in parallel),
/// and what is past them.
pub(crate) fn split_places<T>(
    mut buf: &mut [T],
    lengths: impl Iterator<Item = usize>,
) -> (Vec<&mut [T]>, &mut [T]) {
    let mut places = Vec::with_capacity(lengths.size_hint().0);
    for len in lengths {
        let (place, tail) = std::mem::take(&mut buf).split_at_mut(len);
        places.push(place);
        buf = tail;
    }
    (places, buf)
}

/// What is done for one job: given its piece of the output, it returns the errors it met.
type JobWork<'a> = dyn Fn(&mut [u8], &Job) -> Vec<String> + Sync + 'a;

/// A part has at most this many jobs, or spans at most [`PART_BYTES`] (one job may be
/// longer).
const PART_JOBS: usize = 16;
const PART_BYTES: u64 = 1 << 20;
/// A gap between jobs at least this long is a part of its own, made a chunk at a time
/// (an alignment in an input can ask for gigabytes of padding: no buffer of its size is
/// made), and never written where it is zeros: the output then has a hole there, as lld's
/// (a mapped file it never touches there) has.
const GAP_BYTES: u64 = 1 << 20;

/// Consecutive jobs that are finished together, or a long gap between jobs: hashed for
/// the build ID as one region, and, when the output goes to its file at once, written
/// with one `pwrite` (a gap, a chunk at a time where it is not zeros).
struct Part {
    /// The jobs; none for a gap.
    jobs: std::ops::Range<usize>,
    /// Where the part starts and ends in the file (its first job's offset; the next
    /// part's start, or the end of the last job).
    start: u64,
    end: u64,
}

/// The parts of the file's bytes `start..end` given to `jobs` (sorted by file offset,
/// without overlaps, the first at or after `start`, the last ending at `end`): each long
/// gap (from `start` to the first job, or between two jobs) a part, and each run of jobs
/// between them cut by halving until a half is small enough. A function of the jobs
/// alone, never of the threads or the destination, since the build ID hashes each part.
fn cut_parts(jobs: &[(u64, u64, Job)], start: u64, end: u64) -> Vec<Part> {
    fn cut(jobs: &[(u64, u64, Job)], range: std::ops::Range<usize>, end: u64, out: &mut Vec<Part>) {
        let start = jobs[range.start].0;
        if end - start <= PART_BYTES || range.len() <= PART_JOBS {
            out.push(Part {
                jobs: range,
                start,
                end,
            });
            return;
        }
        let mid = range.start + range.len() / 2;
        cut(jobs, range.start..mid, jobs[mid].0, out);
        cut(jobs, mid..range.end, end, out);
    }
    let gap = |start, end| Part {
        jobs: 0..0,
        start,
        end,
    };
    let mut out = Vec::new();
    let first = jobs.first().map_or(end, |j| j.0);
    if first > start {
        out.push(gap(start, first));
    }
    let mut run = 0;
    for (k, &(offset, size, _)) in jobs.iter().enumerate() {
        let (done, next) = (offset + size, jobs.get(k + 1).map_or(end, |j| j.0));
        if next - done >= GAP_BYTES {
            cut(jobs, run..k + 1, done, &mut out);
            out.push(gap(done, next));
            run = k + 1;
        }
    }
    if run < jobs.len() {
        cut(jobs, run..jobs.len(), end, &mut out);
    }
    out
}

/// The file the parts go to.
struct Destination<'a> {
    file: &'a std::fs::File,
    path: &'a std::path::Path,
    /// Whether bytes never written read as zeros (a new file), so that a gap of zeros
    /// need not be written at all.
    unwritten_reads_zero: bool,
}

/// Runs each part's jobs into a buffer of its own, hashes it (`digest`, for the build ID)
/// and writes it to the file at its place, the parts in parallel: the image in memory is
/// never touched where the parts go (its pages are never faulted in, nor zeroed by the
/// kernel, and do not count in the link's memory), and each part is hashed and written by
/// the thread that made it while its bytes are in that core's cache. Returns the errors in
/// job order and the parts' digests in file order.
fn write_parts_through(
    jobs: &[(u64, u64, Job)],
    parts: &[Part],
    run: &Run,
    dest: &Destination,
    digest: Option<Digest>,
) -> (Vec<String>, Vec<Vec<u8>>) {
    use std::os::unix::fs::FileExt;
    // Buffers go back to a shared pool rather than to each thread: a thread waiting inside
    // a part's own parallel work may start another part.
    let pool = std::sync::Mutex::new(Vec::<Vec<u8>>::new());
    let zero_chunk = std::sync::OnceLock::new();
    let done: Vec<(Vec<String>, Option<Vec<u8>>)> = parts
        .par_iter()
        .map(|p| {
            if p.jobs.is_empty() {
                return write_gap(p, run.fillers, dest, digest, &zero_chunk);
            }
            let mut buf = pool
                .lock()
                .map(|mut b| b.pop())
                .ok()
                .flatten()
                .unwrap_or_default();
            buf.clear();
            // Zero-filled: padding between jobs is zero unless it is filled.
            buf.resize((p.end - p.start) as usize, 0);
            let mut errors = run.jobs(&jobs[p.jobs.clone()], p.end, &mut buf);
            let d = digest.map(|d| d.region(&buf));
            if let Err(e) = dest.file.write_all_at(&buf, p.start) {
                errors.push(format!("cannot write {}: {e}", dest.path.display()));
            }
            if let Ok(mut b) = pool.lock() {
                b.push(buf);
            }
            (errors, d)
        })
        .collect();
    let mut errors = Vec::new();
    let mut digests = Vec::with_capacity(done.len());
    for (e, d) in done {
        errors.extend(e);
        digests.extend(d);
    }
    (errors, digests)
}

/// Writes a gap part a build-ID chunk at a time, in parallel: where a chunk is zeros, the
/// file gets no bytes (a new file reads zeros there; the previous output written over is
/// zeroed), and the chunk's digest is the one every full chunk of zeros has
/// (`zero_chunk`, computed once). Returns the errors and the part's digest.
fn write_gap(
    p: &Part,
    fillers: &Fillers,
    dest: &Destination,
    digest: Option<Digest>,
    zero_chunk: &std::sync::OnceLock<Vec<u8>>,
) -> (Vec<String>, Option<Vec<u8>>) {
    use crate::build_id::CHUNK;
    use std::os::unix::fs::FileExt;
    let chunks = (p.end - p.start).div_ceil(CHUNK as u64);
    let done: Vec<(Option<String>, Vec<u8>)> = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let at = p.start + k * CHUNK as u64;
            let len = (p.end - at).min(CHUNK as u64) as usize;
            if fillers.covers(at, at + len as u64) {
                let mut bytes = vec![0u8; len];
                fillers.fill_gap_window(p.start, at, &mut bytes);
                let error = dest.file.write_all_at(&bytes, at).err();
                return (
                    error.map(|e| e.to_string()),
                    digest.map_or_else(Vec::new, |d| d.chunk(&bytes)),
                );
            }
            let error = (!dest.unwritten_reads_zero)
                .then(|| crate::output_file::zero_range(dest.file, at, len as u64).err())
                .flatten();
            let d = match digest {
                Some(d) if len == CHUNK => {
                    zero_chunk.get_or_init(|| d.chunk(&vec![0; CHUNK])).clone()
                }
                Some(d) => d.chunk(&vec![0; len]),
                None => Vec::new(),
            };
            (error.map(|e| e.to_string()), d)
        })
        .collect();
    let mut errors = Vec::new();
    let mut chunk_digests = Vec::new();
    for (e, d) in done {
        errors.extend(e.map(|e| format!("cannot write {}: {e}", dest.path.display())));
        chunk_digests.extend(d);
    }
    (errors, digest.map(|d| d.of_chunks(&chunk_digests)))
}

/// What is done for each job and each gap between jobs.
struct Run<'a> {
    work: &'a JobWork<'a>,
    fillers: &'a Fillers,
}

impl Run<'_> {
    /// Runs every job on its piece of `buf`, in parallel, and fills the gaps between them:
    /// `jobs` are sorted by file offset without overlaps, `buf` starts at the first job's
    /// offset and runs to `end`. The buffer is split in halves recursively rather than into
    /// a list of pieces (a large link has hundreds of thousands); the errors come back in
    /// job order.
    fn jobs(&self, jobs: &[(u64, u64, Job)], end: u64, buf: &mut [u8]) -> Vec<String> {
        if jobs.len() > PART_JOBS {
            let mid = jobs.len() / 2;
            let (left, right) = buf.split_at_mut((jobs[mid].0 - jobs[0].0) as usize);
            let (mut errors, more) = rayon::join(
                || self.jobs(&jobs[..mid], jobs[mid].0, left),
                || self.jobs(&jobs[mid..], end, right),
            );
            errors.extend(more);
            return errors;
        }
        let mut errors = Vec::new();
        let mut rest = buf;
        for (k, (off, size, job)) in jobs.iter().enumerate() {
            let next = jobs.get(k + 1).map_or(end, |j| j.0);
            let (piece, tail) = std::mem::take(&mut rest).split_at_mut(*size as usize);
            let (gap, tail) = tail.split_at_mut((next - off - size) as usize);
            rest = tail;
            errors.extend((self.work)(piece, job));
            self.fillers.fill_gap(off + size, gap);
        }
        errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts of `jobs` as (first job, jobs, start, end).
    fn parts_of(jobs: &[(u64, u64)], start: u64, end: u64) -> Vec<(usize, usize, u64, u64)> {
        let jobs: Vec<(u64, u64, Job)> = jobs.iter().map(|&(o, s)| (o, s, Job::Bytes(0))).collect();
        cut_parts(&jobs, start, end)
            .iter()
            .map(|p| (p.jobs.start, p.jobs.len(), p.start, p.end))
            .collect()
    }

    #[test]
    fn a_long_gap_is_a_part_of_its_own_and_the_parts_cover_every_byte() {
        const G: u64 = GAP_BYTES;
        // Short gaps stay inside a part; one as long as GAP_BYTES, before the first job
        // or between two, is a part without jobs.
        assert_eq!(
            parts_of(&[(100, 10), (200, 10)], 100, 210),
            [(0, 2, 100, 210)]
        );
        assert_eq!(
            parts_of(&[(100, 10), (110 + G, 10)], 100, 120 + G),
            [
                (0, 1, 100, 110),
                (0, 0, 110, 110 + G),
                (1, 1, 110 + G, 120 + G)
            ]
        );
        assert_eq!(
            parts_of(&[(64 + G, 8)], 64, 72 + G),
            [(0, 0, 64, 64 + G), (0, 1, 64 + G, 72 + G)]
        );
        // Many jobs around a gap: consecutive parts, each run cut as before.
        let mut jobs: Vec<(u64, u64)> = (0..40).map(|k| (k * 16, 16)).collect();
        jobs.extend((0..40).map(|k| (4 * G + k * 16, 16)));
        let parts = parts_of(&jobs, 0, 4 * G + 640);
        assert_eq!(parts.first().map(|p| p.2), Some(0));
        assert_eq!(parts.last().map(|p| p.3), Some(4 * G + 640));
        assert!(parts.windows(2).all(|w| w[0].3 == w[1].2), "{parts:?}");
        let gaps: Vec<_> = parts.iter().filter(|p| p.1 == 0).collect();
        assert_eq!(gaps, [&(0, 0, 640, 4 * G)]);
    }
}
