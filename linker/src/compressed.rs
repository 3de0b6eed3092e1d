//! Debug sections compressed by the compiler (`-gz`): SHF_COMPRESSED sections (an
//! `Elf64_Chdr`, then a zlib or zstd stream) and the older GNU `.zdebug_*` form ("ZLIB",
//! the size as 8 big-endian bytes, then a zlib stream). They are linked as their
//! uncompressed contents, as GNU ld and lld do; relocations refer to uncompressed offsets
//! anyway. `--compress-debug-sections` compresses the output's the same two ways.

use crate::context::{Link, Segments};
use crate::error::{LinkError, Result};
use crate::image::{Contents, Image};
use crate::object_file::SectionKind;
use crate::output_section::{Placement, TailKind};
use crate::scan::RelocPlan;
use crate::tables::Tables;
use object::elf;
use rayon::prelude::*;
use std::io::{Read, Write};

/// A section's uncompressed form.
pub struct Inflated {
    pub name: &'static str,
    pub flags: u64,
    pub data: &'static [u8],
    pub align: u64,
}

/// zlib cannot expand data more than about 1032 times; a header claiming more is corrupt,
/// and is refused before anything that size is allocated.
const MAX_RATIO: u64 = 1100;

/// zstd expands at most one 128 KiB block from a 4-byte RLE block: a header claiming more
/// than that ratio is corrupt. (Below it, the buffer grows as data really comes out.)
const MAX_ZSTD_RATIO: u64 = 33_000;

/// How `--compress-debug-sections` compresses (lld-22's and GNU ld's two formats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebugCompression {
    /// `ELFCOMPRESS_ZLIB`, at zlib's fastest level (as lld).
    Zlib,
    /// `ELFCOMPRESS_ZSTD`: smaller and faster to read back than zlib.
    Zstd,
}

/// `--compress-sections=GLOB=TYPE[:LEVEL]` (lld's): how output sections whose names match
/// `GLOB` are compressed (`None`: not at all), at `level` (0: the format's fastest, as
/// `--compress-debug-sections`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionRule {
    pub glob: String,
    pub how: Option<DebugCompression>,
    pub level: u32,
}

impl SectionRule {
    /// Parses the option's value, in lld's words when it is not one.
    pub fn parse(value: &str) -> Result<SectionRule, String> {
        let prefix = "--compress-sections";
        let parse_error = || format!("{prefix}: parse error, not 'section-glob=[none|zlib|zstd]'");
        let (glob, spec) = value.split_once('=').ok_or_else(parse_error)?;
        if spec.is_empty() || spec.contains('=') {
            return Err(parse_error());
        }
        let (kind, level) = match spec.split_once(':') {
            Some((kind, level)) => (
                kind,
                level.parse::<u32>().map_err(|_| {
                    format!(
                        "{prefix}: expected a non-negative integer compression level, but got '{level}'"
                    )
                })?,
            ),
            None => (spec, 0),
        };
        let how = match kind {
            "none" => None,
            "zlib" => Some(DebugCompression::Zlib),
            "zstd" => Some(DebugCompression::Zstd),
            _ => return Err(format!("unknown {prefix} value: {kind}")),
        };
        Ok(SectionRule {
            glob: glob.to_string(),
            how,
            level,
        })
    }
}

/// The format and level an output section is compressed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compression {
    pub how: DebugCompression,
    pub level: u32,
}

/// The output sections to compress and how, as lld decides it: `--compress-debug-sections`
/// for `.debug_*` sections that are not loaded, then the last `--compress-sections` rule
/// whose glob matches the name; empty sections and NOBITS ones stay as they are. A loaded
/// section a rule compresses is an error (lld's).
pub fn sections_to_compress(
    opts: &crate::options::Options,
    outputs: &[crate::output_section::OutputSection],
) -> Result<Vec<(u32, Compression)>> {
    let mut chosen = Vec::new();
    let mut errors = Vec::new();
    for (i, o) in outputs.iter().enumerate() {
        let mut how = opts
            .compress_debug_sections
            .filter(|_| !o.is_alloc() && o.name.starts_with(".debug_"))
            .map(|how| Compression { how, level: 0 });
        for rule in &opts.compress_sections {
            if crate::dynamic_list::glob_match(rule.glob.as_bytes(), o.name.as_bytes()) {
                how = rule.how.map(|h| Compression {
                    how: h,
                    level: rule.level,
                });
            }
        }
        let Some(how) = how else { continue };
        if o.is_alloc() {
            errors.push(format!(
                "--compress-sections: section '{}' with the SHF_ALLOC flag cannot be compressed",
                o.name
            ));
        } else if !o.is_nobits() && o.size > 0 {
            chosen.push((i as u32, how));
        }
    }
    if errors.is_empty() {
        Ok(chosen)
    } else {
        Err(LinkError::Many(errors))
    }
}

/// The uncompressed form of a compressed section; None if it is not compressed.
pub fn inflate(
    name: &'static str,
    flags: u64,
    data: &'static [u8],
) -> Result<Option<Inflated>, String> {
    if flags & u64::from(elf::SHF_COMPRESSED) != 0 {
        if data.len() < 24 {
            return Err("compressed section is too short for its header".into());
        }
        let ch_type = u32::from_le_bytes(data[0..4].try_into().unwrap_or_default());
        let size = u64::from_le_bytes(data[8..16].try_into().unwrap_or_default());
        let align = u64::from_le_bytes(data[16..24].try_into().unwrap_or_default());
        let data = match ch_type {
            elf::ELFCOMPRESS_ZLIB => zlib(&data[24..], size)?,
            elf::ELFCOMPRESS_ZSTD => zstd(&data[24..], size)?,
            t => return Err(format!("unknown compression type {t}")),
        };
        return Ok(Some(Inflated {
            name,
            flags: flags & !u64::from(elf::SHF_COMPRESSED),
            data,
            align: align.max(1),
        }));
    }
    if let Some(rest) = name.strip_prefix(".zdebug") {
        if data.len() < 12 || &data[0..4] != b"ZLIB" {
            return Err("a .zdebug section without its \"ZLIB\" header".into());
        }
        let size = u64::from_be_bytes(data[4..12].try_into().unwrap_or_default());
        let data = zlib(&data[12..], size)?;
        let name: &'static str = Box::leak(format!(".debug{rest}").into_boxed_str());
        return Ok(Some(Inflated {
            name,
            flags,
            data,
            align: 1,
        }));
    }
    Ok(None)
}

/// Inflates a zlib stream that must produce exactly `size` bytes. The buffer lives as
/// long as the mapped inputs do (to the end of the link).
fn zlib(stream: &[u8], size: u64) -> Result<&'static [u8], String> {
    believable(stream, size, MAX_RATIO)?;
    let mut out = Vec::with_capacity(size as usize);
    let decoder = flate2::read::ZlibDecoder::new(stream);
    read_exactly(decoder, size, &mut out)?;
    Ok(Box::leak(out.into_boxed_slice()))
}

/// Decompresses zstd frames that must produce exactly `size` bytes, as [`zlib`] does.
fn zstd(stream: &[u8], size: u64) -> Result<&'static [u8], String> {
    believable(stream, size, MAX_ZSTD_RATIO)?;
    // Room for what real debug information compresses from; more only as it comes out.
    let likely = (stream.len() as u64).saturating_mul(16).min(size);
    let mut out = Vec::with_capacity(likely as usize);
    let decoder = zstd::stream::read::Decoder::with_buffer(stream)
        .map_err(|e| format!("corrupt compressed data: {e}"))?;
    read_exactly(decoder, size, &mut out)?;
    Ok(Box::leak(out.into_boxed_slice()))
}

/// Refuses a header's uncompressed `size` that `stream` could not expand to at the
/// format's largest `ratio`, before anything that size is allocated.
fn believable(stream: &[u8], size: u64, ratio: u64) -> Result<(), String> {
    if size > (stream.len() as u64).saturating_mul(ratio) + 4096 {
        return Err(format!(
            "claims {size} bytes uncompressed from {} compressed",
            stream.len()
        ));
    }
    Ok(())
}

/// Reads `decoder` to its end into `out`, which must then hold exactly `size` bytes (one
/// more is read at most, to tell a longer stream).
fn read_exactly(decoder: impl Read, size: u64, out: &mut Vec<u8>) -> Result<(), String> {
    decoder
        .take(size + 1)
        .read_to_end(out)
        .map_err(|e| format!("corrupt compressed data: {e}"))?;
    if out.len() as u64 != size {
        return Err(format!(
            "uncompresses to {} bytes, not the {size} its header says",
            out.len()
        ));
    }
    Ok(())
}

/// `--compress-debug-sections=zlib|zstd`, as lld does it: every non-empty `.debug_*`
/// output section is relocated into a buffer of its own, compressed, and written as an
/// `Elf64_Chdr` and the stream, unless that is no smaller; the
/// section keeps its other flags (`.debug_str` is MSC); the file offsets of what follows
/// are laid out again.
pub fn compress_outputs(
    link: &mut Link,
    tables: &Tables,
    placement: &Placement,
    segments: &mut Segments,
    sym_addr: &[u64],
    contents: &mut Contents,
    plan: &RelocPlan,
) -> Result<()> {
    let chosen = sections_to_compress(link.opts, &link.outputs)?;
    if chosen.is_empty() {
        return Ok(());
    }
    // Section starts are read from their records: the debug sections' places change here.
    let starts = crate::image::SectionStarts::default();
    let image = Image::new(
        link, tables, placement, segments, sym_addr, contents, &starts,
    );
    let done: Vec<(u32, Compressed)> = chosen
        .par_iter()
        .map(|&(i, how)| (i, compress_one(&image, plan, i, how)))
        .collect();
    for (i, bytes) in done {
        let bytes = bytes.map_err(LinkError::Many)?;
        if let Some(bytes) = adopt(&mut link.outputs[i as usize], bytes) {
            contents.compressed.insert(i, bytes);
        }
    }
    *segments = crate::layout::assign_addresses(link, Some(&segments.sections))?;
    Ok(())
}

/// A section's compressed bytes, or the relocation errors met rendering it.
type Compressed = std::result::Result<Vec<u8>, Vec<String>>;

/// Output section `index` relocated, then compressed behind its header.
fn compress_one(link: &Image, plan: &RelocPlan, index: u32, how: Compression) -> Compressed {
    let o = &link.outputs[index as usize];
    let mut image = vec![0u8; o.size as usize];
    let mut errors = Vec::new();
    for &(f, i) in &o.inputs {
        let s = &link.objects[f as usize].sections[i as usize];
        if s.kind == SectionKind::Regular {
            let at = s.offset as usize;
            let piece = &mut image[at..at + s.size() as usize];
            errors.extend(crate::relocate::relocate_section(
                link, plan, f, i, piece, 0,
            ));
        }
    }
    for t in &o.tails {
        if let TailKind::Merged(g) = t.kind {
            let data = &link.placement.merge_groups[g as usize].data;
            image[t.offset as usize..t.offset as usize + data.len()].copy_from_slice(data);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    compress_section(&image, o.align, how).map_err(|e| vec![format!("compressing {}: {e}", o.name)])
}

/// A section's bytes as an SHF_COMPRESSED section's contents: its `Elf64_Chdr` (the
/// format, the size, the alignment) and the stream, at the level asked for, by default the
/// format's fastest (lld's choice for zlib; zstd's fastest still compresses debug
/// information better than zlib).
pub fn compress_section(bytes: &[u8], align: u64, how: Compression) -> std::io::Result<Vec<u8>> {
    let Compression { how, level } = how;
    let ch_type = match how {
        DebugCompression::Zlib => elf::ELFCOMPRESS_ZLIB,
        DebugCompression::Zstd => elf::ELFCOMPRESS_ZSTD,
    };
    let mut out = Vec::with_capacity(24 + bytes.len() / 3);
    out.extend_from_slice(&ch_type.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(&align.to_le_bytes());
    match how {
        DebugCompression::Zlib => {
            let level = match level {
                0 => flate2::Compression::fast(),
                l => flate2::Compression::new(l.min(9)),
            };
            let mut encoder = flate2::write::ZlibEncoder::new(out, level);
            encoder.write_all(bytes)?;
            encoder.finish()
        }
        DebugCompression::Zstd => {
            let level = match level {
                0 => 1,
                l => i32::try_from(l)
                    .unwrap_or(i32::MAX)
                    .min(zstd::zstd_safe::max_c_level()),
            };
            let mut encoder = zstd::stream::write::Encoder::new(out, level)?;
            encoder.write_all(bytes)?;
            encoder.finish()
        }
    }
}

/// Makes `o` the SHF_COMPRESSED section `bytes` (from [`compress_section`]) hold, and gives
/// them back, if they are smaller than it; otherwise `o` stays as it is (as lld-22 undoes a
/// compression that does not shrink the section).
pub fn adopt(o: &mut crate::output_section::OutputSection, bytes: Vec<u8>) -> Option<Vec<u8>> {
    if bytes.len() as u64 >= o.size {
        return None;
    }
    o.size = bytes.len() as u64;
    o.flags |= u64::from(elf::SHF_COMPRESSED);
    o.align = 1;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deflate(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn chdr(ch_type: u32, size: u64, align: u64) -> Vec<u8> {
        let mut h = Vec::new();
        h.extend_from_slice(&ch_type.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&size.to_le_bytes());
        h.extend_from_slice(&align.to_le_bytes());
        h
    }

    fn leak(v: Vec<u8>) -> &'static [u8] {
        Box::leak(v.into_boxed_slice())
    }

    #[test]
    fn both_forms_inflate() {
        let text = b"debug info, debug info, debug info".repeat(10);
        let mut gabi = chdr(elf::ELFCOMPRESS_ZLIB, text.len() as u64, 8);
        gabi.extend(deflate(&text));
        let flags = u64::from(elf::SHF_COMPRESSED);
        let d = inflate(".debug_info", flags, leak(gabi)).unwrap().unwrap();
        assert_eq!(
            (d.name, d.flags, d.data, d.align),
            (".debug_info", 0, &text[..], 8)
        );
        let mut gnu = b"ZLIB".to_vec();
        gnu.extend_from_slice(&(text.len() as u64).to_be_bytes());
        gnu.extend(deflate(&text));
        let d = inflate(".zdebug_line", 0, leak(gnu)).unwrap().unwrap();
        assert_eq!((d.name, d.data), (".debug_line", &text[..]));
        assert!(inflate(".debug_str", 0, b"plain").unwrap().is_none());
        // What rld writes reads back, in both formats.
        for how in [DebugCompression::Zlib, DebugCompression::Zstd] {
            let packed = compress_section(&text, 4, Compression { how, level: 0 }).unwrap();
            assert!(packed.len() < text.len(), "{how:?}");
            let d = inflate(".debug_info", flags, leak(packed))
                .unwrap()
                .unwrap();
            assert_eq!((d.data, d.align), (&text[..], 4), "{how:?}");
        }
    }

    #[test]
    fn lies_and_damage_are_errors() {
        let text = vec![7u8; 1000];
        let flags = u64::from(elf::SHF_COMPRESSED);
        // A size the stream cannot have, a size too large to believe, a broken stream, the
        // same three in zstd, an unknown format, a header cut short.
        let mut wrong = chdr(elf::ELFCOMPRESS_ZLIB, 999, 1);
        wrong.extend(deflate(&text));
        let mut huge = chdr(elf::ELFCOMPRESS_ZLIB, 1 << 40, 1);
        huge.extend(deflate(&text));
        let mut broken = chdr(elf::ELFCOMPRESS_ZLIB, 1000, 1);
        broken.extend_from_slice(&[0x78, 0x9c, 0xff, 0xff, 0xff]);
        let zstd_of = |size: u64, stream: &[u8]| {
            let mut z = chdr(elf::ELFCOMPRESS_ZSTD, size, 1);
            z.extend_from_slice(stream);
            z
        };
        let packed = zstd::bulk::compress(&text, 1).unwrap();
        let mut unknown = chdr(7, 1000, 1);
        unknown.extend(deflate(&text));
        for (data, words) in [
            (wrong, "not the 999"),
            (huge, "claims"),
            (broken, "corrupt"),
            (zstd_of(1001, &packed), "not the 1001"),
            (zstd_of(1 << 40, &packed), "claims"),
            (
                zstd_of(1000, &[0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff]),
                "corrupt",
            ),
            (unknown, "unknown compression type 7"),
            (vec![1, 0, 0], "too short"),
        ] {
            let e = inflate(".debug_info", flags, leak(data)).err().unwrap();
            assert!(e.contains(words), "{e}");
        }
    }
}
