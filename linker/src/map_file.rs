//! `-Map FILE`: the link map in lld's format. Each output section in address order with its
//! address, load address, size and alignment; under it each input section (`file:(name)`,
//! or `<internal>:(name)` for what the linker made), and under those the symbols defined
//! there, by address.

use crate::image::Image;
use crate::object_file::{shndx, FileId};
use crate::output_section::TailKind;
use crate::symbols::SymbolDef;
use object::elf::{STT_FILE, STT_SECTION};
use object::read::elf::Sym as _;
use rustc_hash::FxHashMap;
use std::fmt::Write as _;

/// A symbol as the map lists it.
struct MapSymbol<'a> {
    addr: u64,
    size: u64,
    name: &'a [u8],
}

/// The text of the map.
pub fn render(link: &Image) -> String {
    let symbols = symbols_by_section(link);
    let mut out =
        String::from("             VMA              LMA     Size Align Out     In      Symbol\n");
    let mut line = |addr: u64, size: u64, align: u64, indent: usize, what: &str| {
        let _ = writeln!(
            out,
            "{addr:>16x} {addr:>16x} {size:>8x} {align:>5} {:indent$}{what}",
            ""
        );
    };
    let mut order: Vec<&crate::output_section::OutputSection> = link.outputs.iter().collect();
    order.sort_by_key(|o| o.index);
    for o in order {
        let base = if o.is_alloc() { link.addr(o) } else { 0 };
        line(base, o.size, o.align, 0, &o.name);
        // `.eh_frame` records grouped by CIE across the inputs are one section of the
        // linker's, as lld lists them.
        let eh_frame = |&(f, i): &(FileId, u32)| {
            link.objects[f as usize].sections[i as usize].kind
                == crate::object_file::SectionKind::EhFrame
        };
        let grouped_eh_frame =
            !link.opts.relocatable && !o.inputs.is_empty() && o.inputs.iter().all(eh_frame);
        if o.synthetic.is_some() || grouped_eh_frame {
            let what = format!("<internal>:({})", o.name);
            line(base, o.size, o.align, 8, &what);
            continue;
        }
        let tail_what = |t: &crate::output_section::Tail| match t.kind {
            TailKind::Commons => "<internal>:(COMMON)".to_string(),
            _ => format!("<internal>:({})", o.name),
        };
        // Merged sections sit where their first member was: listed in address order.
        let mut tails = o.tails.iter().peekable();
        for &(file, sec) in &o.inputs {
            let obj = &link.objects[file as usize];
            let s = &obj.sections[sec as usize];
            if !s.is_kept() {
                continue;
            }
            if s.kind != crate::object_file::SectionKind::Merge {
                while let Some(t) = tails.next_if(|t| t.offset < s.offset) {
                    line(base + t.offset, t.size, t.align, 8, &tail_what(t));
                }
            }
            // Merged strings are listed as the section's merged tail; of `.eh_frame`, what
            // was kept.
            let size = match s.kind {
                crate::object_file::SectionKind::Merge => continue,
                crate::object_file::SectionKind::EhFrame => s
                    .pieces
                    .iter()
                    .filter(|p| p.output_offset != u64::MAX)
                    .map(|p| {
                        p.output_offset
                            + crate::output_section::eh_record_len(
                                s.data(),
                                p.input_offset as usize,
                            )
                            - s.offset
                    })
                    .max()
                    .unwrap_or(0),
                _ => s.size(),
            };
            let what = format!("{}:({})", obj.owner_of(s), s.name());
            line(base + s.offset, size, u64::from(s.align), 8, &what);
            if let Some(list) = symbols.get(&(file, sec)) {
                for sym in list {
                    let name = crate::demangle::display(sym.name);
                    line(sym.addr, sym.size, 1, 16, &name);
                }
            }
        }
        for t in tails {
            line(base + t.offset, t.size, t.align, 8, &tail_what(t));
        }
    }
    out
}

/// The symbols defined in each input section: each object's named locals, and the globals
/// it defines, by address.
fn symbols_by_section<'a>(link: &'a Image) -> FxHashMap<(FileId, u32), Vec<MapSymbol<'a>>> {
    let mut map: FxHashMap<(FileId, u32), Vec<MapSymbol>> = FxHashMap::default();
    for (file, obj) in link.objects.iter().enumerate() {
        let file = file as FileId;
        for i in 1..obj.first_global.min(obj.symbols.len()) {
            let sym = &obj.symbols[i];
            let sec = obj.symbol_section(i);
            let name = obj.symbol_name(i);
            if matches!(sym.st_type(), STT_SECTION | STT_FILE)
                || name.is_empty()
                || !shndx::is_section(sec)
            {
                continue;
            }
            let value = sym.st_value(crate::object_file::LE);
            if let Some(addr) = link.section_address(file, sec, value) {
                let size = sym.st_size(crate::object_file::LE);
                // A section identical code folding removed: listed with the copy kept.
                let at = link.folded_into.get(&(file, sec)).copied();
                map.entry(at.unwrap_or((file, sec)))
                    .or_default()
                    .push(MapSymbol { addr, size, name });
            }
        }
    }
    for (id, sym) in link.symtab.symbols.iter().enumerate() {
        if let SymbolDef::Defined { file, section, .. } = sym.def {
            if shndx::is_section(section) {
                map.entry((file, section)).or_default().push(MapSymbol {
                    addr: link.sym_addr[id],
                    size: sym.size,
                    name: crate::symbols::base_name(sym.name),
                });
            }
        }
    }
    for list in map.values_mut() {
        list.sort_by(|a, b| (a.addr, a.name).cmp(&(b.addr, b.name)));
    }
    map
}

/// `--cref`'s cross reference table, in lld's form (GNU ld's header): each global symbol
/// that ended up defined (in a kept section, or absolute) or in a shared library, the file
/// defining it, then every other object that names it (defines or refers to it), objects
/// in link order and symbols as they first appear in them.
pub fn cross_references(link: &crate::context::Link) -> String {
    let mut order: Vec<crate::symbols::SymbolId> = Vec::new();
    let mut files: FxHashMap<crate::symbols::SymbolId, Vec<FileId>> = FxHashMap::default();
    for (f, obj) in link.objects.iter().enumerate() {
        for &id in &obj.globals {
            let sym = link.symtab.get(id);
            let listed = match sym.def {
                SymbolDef::Shared { .. } => true,
                // A hidden definition is the output's local (lld's reading).
                SymbolDef::Defined { file, section, .. } => {
                    let kept = !shndx::is_section(section)
                        || link.objects[file as usize].sections[section as usize].is_kept();
                    let visible = matches!(
                        sym.visibility,
                        object::elf::STV_DEFAULT | object::elf::STV_PROTECTED
                    );
                    kept && visible
                }
                _ => false,
            };
            if !listed {
                continue;
            }
            let seen = files.entry(id).or_insert_with(|| {
                order.push(id);
                Vec::new()
            });
            if !seen.contains(&(f as FileId)) {
                seen.push(f as FileId);
            }
        }
    }
    let mut out = String::from("\nCross Reference Table\n\n");
    let mut line = |a: &str, b: &str| {
        let _ = writeln!(out, "{a:<49} {b}");
    };
    line("Symbol", "File");
    for id in order {
        let sym = link.symtab.get(id);
        let definer = match sym.def {
            SymbolDef::Shared { dso, .. } => link.dsos[dso as usize].name.as_str(),
            SymbolDef::Defined { file, .. } => link.objects[file as usize].name.as_str(),
            _ => "",
        };
        line(&sym.display_name(), definer);
        let defined_in = match sym.def {
            SymbolDef::Defined { file, .. } => Some(file),
            _ => None,
        };
        for &f in &files[&id] {
            if Some(f) != defined_in {
                line("", &link.objects[f as usize].name);
            }
        }
    }
    out
}
