//! Writing the output file: the ELF and program headers, every section's bytes (input
//! sections relocated in parallel), section headers, and the build ID.
//!
//! The image is written into a buffer from `output_file`, which puts it in place only when
//! everything succeeded.

use crate::context::Link;
use crate::dynamic::DynamicTables;
use crate::elf_header::{FileHeader, SectionHeader};
use crate::error::{LinkError, Result};
use crate::image::Image;
use crate::object_file::SectionKind;
use crate::options::{BuildId, OutputKind};
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
    EhFrame {
        file: u32,
        sec: u32,
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
    let (symtab, symtab_index) = if link.opts.strip_all {
        (None, None)
    } else {
        let (table, index) = build_symtab(link);
        (Some(table), index)
    };
    timer.phase("  .symtab");
    let copied_relocs = symtab_index
        .map(|index| crate::emit_relocs::relocation_sections(link, &index))
        .unwrap_or_default();

    // Non-allocated sections after the image: .symtab, .symtab_shndx (only when some
    // section index does not fit st_shndx), .strtab and .shstrtab; then the section headers.
    let first_trailing = link.outputs.len() as u32 + 1;
    let mut trailing: Vec<TrailingSection> = Vec::new();
    if let Some(st) = &symtab {
        let extended = st.has_extended_indices();
        trailing.push(TrailingSection {
            name: ".symtab".into(),
            sh_type: SHT_SYMTAB,
            flags: 0,
            link: first_trailing + 1 + u32::from(extended),
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
                link: first_trailing,
                info: 0,
                align: 4,
                entsize: 4,
                bytes: Trailing::Bytes(st.shndx.iter().flat_map(|i| i.to_le_bytes()).collect()),
            });
        }
        trailing.push(TrailingSection {
            bytes: Trailing::Strtab(st.strtab_len()),
            ..TrailingSection::strings(".strtab", Vec::new())
        });
    }
    if link.opts.gdb_index {
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
    for rela in copied_relocs {
        trailing.push(TrailingSection {
            name: format!(".rela{}", link.outputs[rela.output as usize].name),
            sh_type: SHT_RELA,
            flags: u64::from(SHF_INFO_LINK),
            link: first_trailing,
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
    names.push(shname(".shstrtab"));
    trailing.push(TrailingSection::strings(".shstrtab", shstrtab));

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
    let shoff = end.next_multiple_of(8);
    let shnum = 1 + link.outputs.len() + trailing.len();
    let file_size = shoff + 64 * shnum as u64;

    let mut map = pending.buffer(file_size)?;
    // Each finished part of the image goes to the file at once, by the thread that wrote
    // it, while its bytes are in that core's cache (not where script fill patterns are
    // added after).
    let through = map.file().filter(|_| link.contents.fills.is_empty());
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
        jobs.par_extend(o.inputs.par_iter().filter_map(|&(f, i)| {
            let s = &link.objects[f as usize].sections[i as usize];
            match s.kind {
                SectionKind::Merge => None,
                SectionKind::EhFrame => {
                    let size = s
                        .pieces
                        .iter()
                        .filter(|p| p.output_offset != u64::MAX)
                        .map(|p| {
                            p.output_offset + eh_record_len(s.data, p.input_offset as usize)
                                - s.offset
                        })
                        .max()
                        .unwrap_or(0);
                    let job = Job::EhFrame { file: f, sec: i };
                    Some((o_offset + s.offset, size, job))
                }
                _ => {
                    let job = Job::Input { file: f, sec: i };
                    Some((o_offset + s.offset, s.size, job))
                }
            }
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
    jobs.sort_by_key(|j| j.0);
    let first = jobs.first().map_or(buf.len(), |j| j.0 as usize);
    let (_, rest) = buf.split_at_mut(first.min(buf.len()));
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
            Job::EhFrame { file, sec } => {
                copy_eh_frame_pieces(link, link.placement, *file, *sec, piece);
                relocate_eh_frame(link, plan, *file, *sec, piece, address(*file, *sec))
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
    let through = through.filter(|_| !jobs.is_empty());
    let to_file = through.as_ref().map(|f| (f, link.opts.output.as_path()));
    let errors = run_jobs(&jobs, file_size, rest, &work, to_file);
    if !errors.is_empty() {
        return Err(LinkError::Many(errors));
    }
    // Script fill patterns go in the gaps, which no job writes.
    fill_gaps(link, buf, &jobs);
    timer.phase("  sections and relocations");

    write_headers(link, buf, shoff, shnum as u32);
    // Section headers.
    let mut sh = shoff as usize + 64;
    let index_of = |w: Synthetic| link.synthetic_section(w).map_or(0, |o| o.index);
    let dynsym_index = index_of(Synthetic::DynSym);
    let dynstr_index = index_of(Synthetic::DynStr);
    for (i, o) in link.outputs.iter().enumerate() {
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
            _ => (0, 0),
        };
        let entsize = if o.sh_type == SHT_INIT_ARRAY
            || o.sh_type == SHT_FINI_ARRAY
            || o.sh_type == SHT_PREINIT_ARRAY
        {
            8
        } else {
            o.entsize
        };
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
    if let Some(id_sec) = link.synthetic_section(Synthetic::BuildId) {
        let start = link.offset(id_sec) as usize + 16;
        let len = id_sec.size as usize - 16;
        let id = compute_build_id(&link.opts.build_id, buf, len);
        buf[start..start + len].copy_from_slice(&id[..len]);
        timer.phase("  build ID");
    }
    if let Some(file) = &through {
        // What was written after the parts: the headers, the section header table, the
        // build ID.
        let mut last = vec![(0, first), (shoff as usize, buf.len())];
        if let Some(id_sec) = link.synthetic_section(Synthetic::BuildId) {
            let at = link.offset(id_sec) as usize;
            last.push((at, at + id_sec.size as usize));
        }
        for (from, to) in last {
            crate::output_file::write_in_parallel(file, &buf[from..to], from as u64)
                .map_err(|e| LinkError::io(&link.opts.output, e))?;
        }
        map.written_through();
    }
    Ok(map)
}

/// Copies the kept CIEs and FDEs and points each FDE at its CIE's new position.
pub(crate) fn copy_eh_frame_pieces(
    link: &Link,
    placement: &Placement,
    file: u32,
    sec: u32,
    out: &mut [u8],
) {
    let s = &link.objects[file as usize].sections[sec as usize];
    for p in s.pieces.iter() {
        if p.output_offset == u64::MAX {
            continue;
        }
        let start = p.input_offset as usize;
        let len = eh_record_len(s.data, start) as usize;
        let dst = (p.output_offset - s.offset) as usize;
        out[dst..dst + len].copy_from_slice(&s.data[start..start + len]);
        if let Some(id) = fde_cie_pointer(s.data, start) {
            let cie_in = (p.input_offset + 4).wrapping_sub(u64::from(id));
            // The CIE is here, or an equal one placed earlier stands for it.
            let cie_out = s
                .piece_output_offset(cie_in)
                .or_else(|| placement.cie_aliases.get(&(file, sec, cie_in)).copied());
            if let Some(cie_out) = cie_out {
                let new = (p.output_offset + 4 - cie_out) as u32;
                out[dst + 4..dst + 8].copy_from_slice(&new.to_le_bytes());
            }
        }
    }
}

fn relocate_eh_frame(
    link: &Image,
    plan: &RelocPlan,
    file: u32,
    sec: u32,
    out: &mut [u8],
    base: u64,
) -> Vec<String> {
    // `relocate_section` copies whole sections; for .eh_frame the pieces are already in
    // place, so relocate a scratch copy of the original bytes is not needed: apply directly.
    crate::relocate::relocate_split_section(link, plan, file, sec, out, base)
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

/// The ELF header and program headers. The last section is .shstrtab.
fn write_headers(link: &Image, buf: &mut [u8], shoff: u64, shnum: u32) {
    let e_type = match link.opts.kind {
        OutputKind::Executable => ET_EXEC,
        _ => ET_DYN,
    };
    FileHeader {
        e_type,
        entry: entry_address(link),
        phnum: link.segments.headers.len() as u16,
        shoff,
        shnum,
        shstrndx: shnum - 1,
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

/// `--build-id=fast`: a tree hash, so that it is computed in parallel: the xxh3 of every
/// 1 MiB chunk, then the xxh3 of those hashes (lld's scheme; its digest is its own).
fn fast_build_id(data: &[u8]) -> u64 {
    const CHUNK: usize = 1 << 20;
    let hashes: Vec<u8> = data
        .par_chunks(CHUNK)
        .flat_map_iter(|c| xxhash_rust::xxh3::xxh3_64(c).to_le_bytes())
        .collect();
    xxhash_rust::xxh3::xxh3_64(&hashes)
}

/// `--build-id` (sha1), `=md5`: `len` bytes of the BLAKE3 hash of the BLAKE3 hashes of every
/// 1 MiB chunk, hashed in parallel. The ID is its own, as lld's tree hashes and mold's are
/// (mold uses BLAKE3 for every style too): nothing checks it against a digest of the file,
/// and BLAKE3 is three times faster than SHA-1 even with the CPU's SHA instructions, while
/// as hard to make collide.
fn tree_hash(data: &[u8], len: usize) -> Vec<u8> {
    const CHUNK: usize = 1 << 20;
    let digests: Vec<u8> = data
        .par_chunks(CHUNK)
        .flat_map_iter(|c| *blake3::hash(c).as_bytes())
        .collect();
    let mut id = vec![0; len];
    blake3::Hasher::new()
        .update(&digests)
        .finalize_xof()
        .fill(&mut id);
    id
}

fn compute_build_id(style: &BuildId, data: &[u8], len: usize) -> Vec<u8> {
    match style {
        BuildId::Fast => fast_build_id(data).to_le_bytes().to_vec(),
        BuildId::Md5 | BuildId::Sha1 => tree_hash(data, len),
        BuildId::Uuid => {
            let mut bytes = vec![0u8; 16];
            if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
                use std::io::Read;
                let _ = f.read_exact(&mut bytes);
            }
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            bytes
        }
        BuildId::Hex(h) => h.clone(),
        BuildId::None => vec![0; len],
    }
}

/// `buf` cut into consecutive places of the given lengths (for pieces written in parallel),
/// and what is past them.
pub(crate) fn split_places(
    mut buf: &mut [u8],
    lengths: impl Iterator<Item = usize>,
) -> (Vec<&mut [u8]>, &mut [u8]) {
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

/// Runs every job on its piece of `buf`, in parallel: `jobs` are sorted by file offset
/// without overlaps, `buf` starts at the first job's offset and runs to `end`. The buffer is
/// split in halves recursively rather than into a list of pieces (a large link has hundreds
/// of thousands); the errors come back in job order. With a file (`through`, and its name
/// for errors), each part of a few megabytes is written there as soon as it is done.
fn run_jobs(
    jobs: &[(u64, u64, Job)],
    end: u64,
    buf: &mut [u8],
    work: &JobWork,
    through: Option<(&std::fs::File, &std::path::Path)>,
) -> Vec<String> {
    const LEAF: usize = 16;
    const PART: u64 = 4 << 20;
    if let Some((file, path)) = through.filter(|_| end - jobs[0].0 <= PART || jobs.len() <= LEAF) {
        let mut errors = run_jobs(jobs, end, buf, work, None);
        use std::os::unix::fs::FileExt;
        if let Err(e) = file.write_all_at(buf, jobs[0].0) {
            errors.push(format!("cannot write {}: {e}", path.display()));
        }
        return errors;
    }
    if jobs.len() > LEAF {
        let mid = jobs.len() / 2;
        let (left, right) = buf.split_at_mut((jobs[mid].0 - jobs[0].0) as usize);
        let (mut errors, more) = rayon::join(
            || run_jobs(&jobs[..mid], jobs[mid].0, left, work, through),
            || run_jobs(&jobs[mid..], end, right, work, through),
        );
        errors.extend(more);
        return errors;
    }
    let mut errors = Vec::new();
    let mut rest = buf;
    for (k, (off, size, job)) in jobs.iter().enumerate() {
        let next = jobs.get(k + 1).map_or(end, |j| j.0);
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(*size as usize);
        rest = &mut tail[(next - off - size) as usize..];
        errors.extend(work(piece, job));
    }
    errors
}

/// Writes the scripts' fill patterns into the gaps between the contents of their output
/// sections (`jobs`, sorted by offset), each gap starting with the pattern's first byte
/// (lld).
fn fill_gaps(link: &Image, buf: &mut [u8], jobs: &[(u64, u64, Job)]) {
    for &(i, pattern) in &link.contents.fills {
        let o = &link.outputs[i as usize];
        let start = link.offset(o);
        let end = start + o.size;
        let first = jobs.partition_point(|j| j.0 < start);
        let mut at = start;
        let mut fill = |from: u64, to: u64| {
            for (k, b) in buf[from as usize..to as usize].iter_mut().enumerate() {
                *b = pattern[k % 4];
            }
        };
        for j in jobs[first..].iter().take_while(|j| j.0 < end) {
            if j.0 > at {
                fill(at, j.0);
            }
            at = at.max(j.0 + j.1);
        }
        if at < end {
            fill(at, end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{fast_build_id, tree_hash};

    /// `id` of `data` computed on 1 and 4 threads is the same, and changes with any byte
    /// (the first, a chunk's first, the last) and with bytes moved between chunks.
    fn covers_every_byte_whatever_the_threads(id: impl Fn(&[u8]) -> Vec<u8> + Sync) {
        let mut data: Vec<u8> = (0..(3 << 20) + 17).map(|i| (i * 7 % 251) as u8).collect();
        let on = |threads: usize, data: &[u8]| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| id(data))
        };
        let first = on(1, &data);
        assert_eq!(on(4, &data), first);
        for at in [0, 1 << 20, data.len() - 1] {
            data[at] ^= 1;
            assert_ne!(on(2, &data), first, "byte {at} not covered");
            data[at] ^= 1;
        }
        // Chunks are hashed where they are: moving bytes between them changes the ID.
        data.swap(0, 1 << 20);
        assert_ne!(on(2, &data), first);
    }

    #[test]
    fn the_fast_build_id_covers_every_byte_whatever_the_threads() {
        covers_every_byte_whatever_the_threads(|d| fast_build_id(d).to_le_bytes().to_vec());
    }

    #[test]
    fn the_tree_build_ids_cover_every_byte_whatever_the_threads() {
        covers_every_byte_whatever_the_threads(|d| tree_hash(d, 20));
        covers_every_byte_whatever_the_threads(|d| tree_hash(d, 16));
        let data = [1u8; 100];
        assert_eq!(tree_hash(&data, 20).len(), 20);
        assert_eq!(
            tree_hash(&data, 20)[..16],
            tree_hash(&data, 16)[..],
            "one hash, cut"
        );
    }
}
