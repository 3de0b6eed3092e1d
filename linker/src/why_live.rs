//! `--why-live=GLOB`: for each live symbol a pattern matches, the chain of first reasons
//! that kept it through `--gc-sections`, printed as lld prints it:
//!
//! ```text
//! live symbol: a.o:(helper)
//! >>> referenced by: a.o:(main)
//! >>> referenced by: crt1.o:(_start) (entry point)
//! ```
//!
//! Marking records, for each section it makes live, the first reason it found (a root, or
//! the place of the relocation that reached it and the symbol that relocation named); a
//! reason is never replaced, so the reasons form a tree around the roots. A relocation's
//! place is shown as the symbol whose extent covers it, as lld shows it.

use crate::object_file::{shndx, FileId, ObjectFile, LE};
use crate::shared_file::SharedFile;
use crate::symbols::{SymbolDef, SymbolId, SymbolTable};
use object::elf;
use object::read::elf::Sym as _;
use std::collections::{HashMap, HashSet};

/// Something with a reason of its own for being live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Item {
    Section(FileId, u32),
    Global(SymbolId),
    /// Local symbol `index` of an object.
    Local(FileId, u32),
}

/// Where a reason points.
#[derive(Debug, Clone, Copy)]
enum From {
    /// Nothing: the item is a root.
    Root,
    Item(Item),
    /// A relocation at this offset of this section: reported as the symbol around it.
    At(FileId, u32, u64),
}

/// The first reason found for an item being live (lld's words in `desc`).
#[derive(Debug, Clone, Copy)]
pub struct Reason {
    from: From,
    desc: &'static str,
}

impl Reason {
    pub fn root(desc: &'static str) -> Self {
        Reason {
            from: From::Root,
            desc,
        }
    }

    /// A relocation at `offset` of section `sec` of `file`.
    pub fn referenced_at(file: FileId, sec: u32, offset: u64) -> Self {
        Reason {
            from: From::At(file, sec, offset),
            desc: "referenced by",
        }
    }

    /// A COMDAT group's members live together.
    pub fn in_group_with(file: FileId, sec: u32) -> Self {
        Reason {
            from: From::Item(Item::Section(file, sec)),
            desc: "in section group with",
        }
    }

    /// A SHF_LINK_ORDER section lives with the section it is linked to.
    pub fn depended_on_by(file: FileId, sec: u32) -> Self {
        Reason {
            from: From::Item(Item::Section(file, sec)),
            desc: "depended on by section",
        }
    }
}

/// The reasons marking found, and what it needs to name a relocation's symbol.
#[derive(Default)]
pub struct Reasons {
    first: HashMap<Item, Reason>,
    /// Per object, per section: its symbols (locals and globals) in symbol-table order,
    /// built for an object the first time a place in it is named.
    by_section: HashMap<FileId, Vec<Vec<u32>>>,
}

impl Reasons {
    /// `item`'s reason, unless it has one already.
    pub fn note(&mut self, item: Item, reason: Reason) {
        self.first.entry(item).or_insert(reason);
    }

    /// Section `sec` of `file` was just made live by `reason`, through `symbol` if the
    /// reference named one: the symbol is live for that reason, the section for holding
    /// it (lld's `enqueue`).
    pub fn made_live(&mut self, file: FileId, sec: u32, symbol: Option<Item>, reason: Reason) {
        match symbol {
            Some(sym) => {
                self.note(sym, reason);
                self.note(
                    Item::Section(file, sec),
                    Reason {
                        from: From::Item(sym),
                        desc: "contained live symbol",
                    },
                );
            }
            None => self.note(Item::Section(file, sec), reason),
        }
    }

    /// The symbol a relocation to symbol `sym_index` of `file` names, once resolved to
    /// offset `offset` of section `sec` of `target`: the global, the local, or for a
    /// section symbol the symbol around the offset.
    pub fn named_symbol(
        &mut self,
        objects: &[ObjectFile],
        symtab: &SymbolTable,
        file: FileId,
        sym_index: usize,
        (target, sec, offset): (FileId, u32, u64),
    ) -> Option<Item> {
        let obj = &objects[file as usize];
        if let Some(id) = obj.global_index(sym_index) {
            return Some(Item::Global(id));
        }
        if obj.symbols.get(sym_index)?.st_type() == elf::STT_SECTION {
            return self.enclosing(objects, symtab, target, sec, offset);
        }
        Some(Item::Local(file, sym_index as u32))
    }

    /// The first symbol of `file`'s symbol table defined in section `sec` whose extent
    /// covers `offset` (lld's `getEnclosingSymbol`; a global counts where this object's
    /// definition is the one the link chose).
    fn enclosing(
        &mut self,
        objects: &[ObjectFile],
        symtab: &SymbolTable,
        file: FileId,
        sec: u32,
        offset: u64,
    ) -> Option<Item> {
        let obj = &objects[file as usize];
        let lists = self
            .by_section
            .entry(file)
            .or_insert_with(|| symbols_by_section(obj, symtab, file));
        lists.get(sec as usize)?.iter().find_map(|&i| {
            let s = &obj.symbols[i as usize];
            let (value, size) = (s.st_value(LE), s.st_size(LE));
            if !(value <= offset && offset < value.saturating_add(size)) {
                return None;
            }
            Some(match obj.global_index(i as usize) {
                Some(id) => Item::Global(id),
                None => Item::Local(file, i),
            })
        })
    }
}

/// Per section of `obj`, the symbols defined in it (not section symbols), in order; a
/// global only where `obj`'s definition is the one the link chose.
fn symbols_by_section(obj: &ObjectFile, symtab: &SymbolTable, file: FileId) -> Vec<Vec<u32>> {
    let mut lists = vec![Vec::new(); obj.sections.len()];
    for i in 1..obj.symbols.len() {
        let sec = obj.symbol_section(i);
        if !shndx::is_section(sec) || obj.symbols[i].st_type() == elf::STT_SECTION {
            continue;
        }
        let chosen = obj.global_index(i).is_none_or(|id| {
            matches!(symtab.get(id).def, SymbolDef::Defined { file: f, section, .. }
                if f == file && section == sec)
        });
        if let (true, Some(list)) = (chosen, lists.get_mut(sec as usize)) {
            list.push(i as u32);
        }
    }
    lists
}

/// What `--why-live` prints: a paragraph per live symbol `patterns` match, globals in
/// symbol-table order, then each object's locals (not section symbols). Symbols of
/// archive members never loaded are not live and are left out.
pub fn report(
    objects: &[ObjectFile],
    dsos: &[SharedFile],
    symtab: &SymbolTable,
    reasons: &mut Reasons,
    patterns: &[String],
) -> String {
    let matches = |name: &[u8]| {
        patterns
            .iter()
            .any(|p| crate::dynamic_list::glob_match(p.as_bytes(), name))
    };
    let names = Names {
        objects,
        dsos,
        symtab,
    };
    let mut out = String::new();
    for (id, sym) in symtab.symbols.iter().enumerate() {
        let shown = !matches!(
            sym.def,
            SymbolDef::Lazy { .. }
                | SymbolDef::Bitcode { .. }
                | SymbolDef::BitcodeAsm { .. }
                | SymbolDef::Plugin { .. }
        );
        if shown && matches(sym.name) {
            names.explain(Item::Global(id as SymbolId), reasons, &mut out);
        }
    }
    for (f, obj) in objects.iter().enumerate() {
        for i in 1..obj.first_global.min(obj.symbols.len()) {
            let sym = &obj.symbols[i];
            let local = obj.symbol_section(i) != shndx::UNDEF
                && sym.st_type() != elf::STT_SECTION
                && matches(obj.symbol_name(i));
            if local {
                names.explain(Item::Local(f as FileId, i as u32), reasons, &mut out);
            }
        }
    }
    out
}

/// Names items as lld does: `file:(symbol)`, `file:(section)`.
struct Names<'a> {
    objects: &'a [ObjectFile],
    dsos: &'a [SharedFile],
    symtab: &'a SymbolTable,
}

impl Names<'_> {
    /// The section a symbol is defined in, if in one.
    fn section_of(&self, item: Item) -> Option<(FileId, u32)> {
        let (file, sec) = match item {
            Item::Section(f, s) => (f, s),
            Item::Global(id) => match self.symtab.get(id).def {
                SymbolDef::Defined { file, section, .. } => (file, section),
                _ => return None,
            },
            Item::Local(f, i) => (f, self.objects[f as usize].symbol_section(i as usize)),
        };
        shndx::is_section(sec).then_some((file, sec))
    }

    fn is_live(&self, (file, sec): (FileId, u32)) -> bool {
        self.objects[file as usize]
            .sections
            .get(sec as usize)
            .is_some_and(|s| s.live)
    }

    fn show(&self, item: Item) -> String {
        match item {
            Item::Section(f, s) => {
                let obj = &self.objects[f as usize];
                let sec = &obj.sections[s as usize];
                format!("{}:({})", obj.owner_of(sec), sec.name())
            }
            Item::Local(f, i) => {
                let obj = &self.objects[f as usize];
                let name = crate::demangle::display(obj.symbol_name(i as usize));
                format!("{}:({name})", obj.name)
            }
            Item::Global(id) => {
                let sym = self.symtab.get(id);
                let file = sym.file_name(self.objects, self.dsos);
                format!("{file}:({})", sym.display_name())
            }
        }
    }

    /// Appends `item`'s paragraph if it is live: its chain of reasons up to a root.
    fn explain(&self, item: Item, reasons: &mut Reasons, out: &mut String) {
        let section = self.section_of(item);
        if section.is_some_and(|s| !self.is_live(s)) {
            return;
        }
        out.push_str("live symbol: ");
        out.push_str(&self.show(item));
        let mut cur = item;
        let mut seen = HashSet::new();
        loop {
            let reason = match reasons.first.get(&cur) {
                Some(r) => *r,
                // A live symbol nothing named: it lives with its section.
                None => match (cur, self.section_of(cur)) {
                    (Item::Global(_) | Item::Local(..), Some((f, s))) => Reason {
                        from: From::Item(Item::Section(f, s)),
                        desc: "in live section",
                    },
                    (Item::Section(f, s), _) => {
                        // Never marked: it was never subject to collection.
                        let alloc = self.objects[f as usize].sections[s as usize].is_alloc();
                        Reason::root(if alloc {
                            "no reason recorded"
                        } else {
                            "not allocated"
                        })
                    }
                    _ => Reason::root("no section"),
                },
            };
            let next = match reason.from {
                From::Root => None,
                From::Item(i) => Some(i),
                From::At(f, s, offset) => Some(
                    reasons
                        .enclosing(self.objects, self.symtab, f, s, offset)
                        .unwrap_or(Item::Section(f, s)),
                ),
            };
            match next {
                Some(next) if seen.insert(next) => {
                    out.push_str("\n>>> ");
                    out.push_str(reason.desc);
                    out.push_str(": ");
                    out.push_str(&self.show(next));
                    cur = next;
                }
                _ => {
                    out.push_str(" (");
                    out.push_str(reason.desc);
                    out.push(')');
                    break;
                }
            }
        }
        out.push('\n');
    }
}
