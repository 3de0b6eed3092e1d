//! `--symbol-ordering-file` (lld's): the sections that define the listed symbols go first
//! in their output sections, in the file's order, so that a program's hot or start-up code
//! sits together. The rest keep their places after them; in a linker script, each input
//! section description is ordered on its own. Symbols that cannot be ordered (undefined,
//! shared, absolute, linker-defined, or in a discarded section) and names that match no
//! symbol are warned about, as lld does, unless `--no-warn-symbol-ordering`.

use crate::context::Link;
use crate::diag;
use crate::error::{LinkError, Result};
use crate::object_file::{shndx, FileId};
use crate::symbols::{Symbol, SymbolDef};
use object::elf;
use rustc_hash::FxHashMap;
use std::path::Path;

/// The names of an ordering file, in order: one per line, blank lines and `#` comments
/// left out (lld's reading); a name given twice keeps its first place.
pub fn read(path: &Path, warn: bool) -> Result<Vec<String>> {
    let text = std::fs::read(path).map_err(|e| LinkError::cannot_open(path, e))?;
    let text = String::from_utf8_lossy(&text);
    let mut seen = rustc_hash::FxHashSet::default();
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if seen.insert(line) {
            names.push(line.to_string());
        } else if warn {
            diag::warn(&format!(
                "{}: duplicate ordered symbol: {line}",
                path.display()
            ));
        }
    }
    Ok(names)
}

/// Each ordered section's rank: the place of the first listed symbol it defines, counted
/// from `-(names)` up (negative: before every unlisted section, whose rank is 0).
pub type SectionOrder = FxHashMap<(FileId, u32), i32>;

/// The rank of every section a listed symbol (global or local) defines, warning about the
/// listed symbols that cannot be ordered and the names no symbol has.
pub fn section_order(link: &Link, names: &[String]) -> SectionOrder {
    let warn = link.opts.warn_symbol_ordering;
    let start = -(names.len().min(i32::MAX as usize) as i32);
    let rank: FxHashMap<&[u8], i32> = names
        .iter()
        .enumerate()
        .map(|(k, n)| (n.as_bytes(), start.saturating_add(k as i32)))
        .collect();
    let mut present = rustc_hash::FxHashSet::default();
    let mut order = SectionOrder::default();
    let report = |file: &str, what: &str, name: &[u8]| {
        if warn {
            let name = String::from_utf8_lossy(name);
            diag::warn(&format!("{file}: unable to order {what} symbol: {name}"));
        }
    };
    // A symbol defined at `section` of `file` (a global's definition or a local): its
    // section takes rank `r` unless an earlier name gave it a better one.
    let mut define = |file: FileId, section: u32, name: &[u8], r: i32| {
        if let Some(what) = unorderable_at(link, file, section) {
            report(&link.objects[file as usize].name, what, name);
        } else {
            let at = link.kept_copy(file, section);
            let slot = order.entry(at).or_insert(0);
            *slot = (*slot).min(r);
        }
    };
    for sym in &link.symtab.symbols {
        let Some(&r) = rank.get(sym.name) else {
            continue;
        };
        present.insert(sym.name);
        let name = sym.name;
        match sym.def {
            SymbolDef::Defined { file, section, .. } => define(file, section, name, r),
            _ => {
                if let Some((file, what)) = unorderable_global(link, sym) {
                    report(file, what, name);
                }
            }
        }
    }
    for (f, obj) in link.objects.iter().enumerate() {
        for (index, s) in obj
            .symbols
            .iter()
            .enumerate()
            .take(obj.first_global)
            .skip(1)
        {
            if matches!(s.st_type(), elf::STT_SECTION | elf::STT_FILE) {
                continue;
            }
            let local = obj.symbol_name(index);
            let Some(&r) = rank.get(local) else {
                continue;
            };
            present.insert(local);
            define(f as FileId, obj.symbol_section(index), local, r);
        }
    }
    if warn {
        for name in names.iter().filter(|n| !present.contains(n.as_bytes())) {
            diag::warn(&format!("symbol ordering file: no such symbol: {name}"));
        }
    }
    order
}

/// Why a symbol defined at `section` of object `file` cannot be ordered (lld's words), if
/// it cannot: it is absolute, or its section is not in the output.
pub fn unorderable_at(link: &Link, file: FileId, section: u32) -> Option<&'static str> {
    if !shndx::is_section(section) {
        Some("absolute")
    } else if kept(link, file, section) {
        None
    } else {
        Some("discarded")
    }
}

/// Why a global symbol cannot be ordered, with the file lld names for it, if it cannot and
/// lld says so: not for an archive member never loaded, a common symbol (the linker places
/// it), or an undefined symbol where those are allowed.
pub fn unorderable_global<'a>(link: &'a Link, sym: &Symbol) -> Option<(&'a str, &'static str)> {
    let what = match sym.def {
        SymbolDef::Defined { file, section, .. } => unorderable_at(link, file, section)?,
        SymbolDef::Shared { .. } => "shared",
        SymbolDef::Synthetic => "synthetic",
        SymbolDef::Undefined if link.opts.reports_undefined() => "undefined",
        _ => return None,
    };
    Some((sym.file_name(&link.objects, &link.dsos), what))
}

/// Whether a section is in the output, itself or as the copy `--icf` kept in its place.
fn kept(link: &Link, file: FileId, section: u32) -> bool {
    let in_output = |(f, s): (FileId, u32)| {
        link.objects[f as usize]
            .sections
            .get(s as usize)
            .is_some_and(|s| s.is_kept())
    };
    in_output((file, section))
        || link
            .folded_into
            .get(&(file, section))
            .is_some_and(|&kept| in_output(kept))
}
