//! The combined index: every module's summary side by side, joined by symbol name.
//!
//! A reference inside a summary is a module-local index. Whole-program analyses need to know
//! what it denotes in the linked program: a local (internal/private) global is itself, but a
//! non-local name may be defined in several bitcode modules (linkonce/weak copies, or a
//! duplicate the linker will pick among), in a native object, or in a shared library. The
//! index answers that with [`CombinedIndex::resolve_ref`], and [`Resolutions`] carries what
//! the linker's symbol resolution decided about each bitcode definition.

use crate::model::{GlobalSummary, ModuleSummary};
use std::collections::{HashMap, HashSet};

/// A global of the combined index: module position and index in that module's `globals`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId {
    pub module: u32,
    pub index: u32,
}

/// What the linker's symbol resolution says about one bitcode definition (lld's rules,
/// REFERENCE.md "lld's LTO resolution").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resolution {
    /// The symbol table's definition of this name is this one.
    pub prevailing: bool,
    /// A native object, `-r`, `.dynsym` or `__start_`/`__stop_` needs this symbol as it is.
    pub visible_to_regular_obj: bool,
    /// Exported from the output's dynamic symbol table.
    pub export_dynamic: bool,
    /// No other definition can replace it at run time (dso_local).
    pub final_definition_in_linkage_unit: bool,
    /// A definition in another module of the process may replace it at run time.
    pub preemptible: bool,
    /// Target of `--wrap` or `--defsym`.
    pub linker_redefined: bool,
    /// A local member of a COMDAT group whose copy in this module loses: discarded with
    /// the group (see [`Resolutions::discard_losing_groups`]).
    pub discarded: bool,
}

/// All module summaries of an LTO link, with a name table over their non-local globals.
pub struct CombinedIndex {
    pub modules: Vec<ModuleSummary>,
    /// Name → every non-local global (definitions and declarations) with that name, in module
    /// order then index order.
    by_name: HashMap<String, Vec<GlobalId>>,
}

impl CombinedIndex {
    /// Builds the name table. The summaries should be valid ([`ModuleSummary::validate`];
    /// decoded summaries are): an index that points nowhere denotes nothing.
    pub fn new(modules: Vec<ModuleSummary>) -> Self {
        let mut by_name: HashMap<String, Vec<GlobalId>> = HashMap::new();
        for (m, module) in modules.iter().enumerate() {
            for (i, g) in module.globals.iter().enumerate() {
                if !g.linkage.is_local() {
                    by_name.entry(g.name.clone()).or_default().push(GlobalId {
                        module: m as u32,
                        index: i as u32,
                    });
                }
            }
        }
        CombinedIndex { modules, by_name }
    }

    /// The summary of a global.
    ///
    /// # Panics
    /// If `id` is not a global of this index.
    pub fn global(&self, id: GlobalId) -> &GlobalSummary {
        &self.modules[id.module as usize].globals[id.index as usize]
    }

    /// Like [`CombinedIndex::global`], but `None` for an id that is not in the index.
    pub fn get(&self, id: GlobalId) -> Option<&GlobalSummary> {
        self.modules
            .get(id.module as usize)?
            .globals
            .get(id.index as usize)
    }

    /// Every global of every module, in module order then index order.
    pub fn ids(&self) -> impl Iterator<Item = GlobalId> + '_ {
        self.modules.iter().enumerate().flat_map(|(m, module)| {
            (0..module.globals.len()).map(move |i| GlobalId {
                module: m as u32,
                index: i as u32,
            })
        })
    }

    /// Every non-local global named `name`, definitions and declarations, in module order.
    pub fn named(&self, name: &str) -> &[GlobalId] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Non-local, non-declaration globals with this name, all modules, in module order.
    pub fn definitions(&self, name: &str) -> Vec<GlobalId> {
        self.named(name)
            .iter()
            .copied()
            .filter(|&id| self.global(id).is_definition())
            .collect()
    }

    /// What a module-local reference (refs/calls/aliasee index) denotes: a local
    /// (internal/private) global is just itself; a non-local one is every definition of that
    /// name in the whole index, which may be empty (defined natively or in a shared library).
    pub fn resolve_ref(&self, module: u32, index: u32) -> Vec<GlobalId> {
        self.resolve_ref_iter(module, index).collect()
    }

    /// [`CombinedIndex::resolve_ref`] without allocating, for the analyses' inner loops.
    pub fn resolve_ref_iter(&self, module: u32, index: u32) -> impl Iterator<Item = GlobalId> + '_ {
        let id = GlobalId { module, index };
        let (local, named): (Option<GlobalId>, &[GlobalId]) = match self.get(id) {
            None => (None, &[]),
            Some(g) if g.linkage.is_local() => (Some(id), &[]),
            Some(g) => (None, self.named(&g.name)),
        };
        local.into_iter().chain(
            named
                .iter()
                .copied()
                .filter(|&d| self.global(d).is_definition()),
        )
    }
}

/// The linker's resolution of every global of the index, parallel to
/// `modules[m].globals[i]`; declarations keep the default (all false).
pub struct Resolutions {
    pub per_module: Vec<Vec<Resolution>>,
}

impl Resolutions {
    /// All defaults, shaped like `index`.
    pub fn new(index: &CombinedIndex) -> Self {
        Resolutions {
            per_module: index
                .modules
                .iter()
                .map(|m| vec![Resolution::default(); m.globals.len()])
                .collect(),
        }
    }

    /// A COMDAT group is kept or discarded whole (the ELF rule, and LLVM's LTO drops the
    /// members of a group that does not prevail): where a module's copy of a group loses
    /// (another copy of one of its non-local members prevails, in a module or a native
    /// object), its local members go too: the initializer clang puts in an
    /// inline variable's group, say, which would otherwise run once per module.
    /// They are marked `discarded`.
    pub fn discard_losing_groups(&mut self, index: &CombinedIndex) {
        for (m, module) in index.modules.iter().enumerate() {
            let mut losing: HashSet<&str> = HashSet::new();
            for (i, g) in module.globals.iter().enumerate() {
                if let Some(c) = &g.comdat {
                    if g.is_definition()
                        && !g.linkage.is_local()
                        && !self.per_module[m][i].prevailing
                    {
                        losing.insert(c.as_str());
                    }
                }
            }
            if losing.is_empty() {
                continue;
            }
            for (i, g) in module.globals.iter().enumerate() {
                if g.linkage.is_local() && g.comdat.as_deref().is_some_and(|c| losing.contains(c)) {
                    self.per_module[m][i].discarded = true;
                }
            }
        }
    }

    /// The resolution of `id`; the default for an id outside the index.
    pub fn get(&self, id: GlobalId) -> Resolution {
        self.per_module
            .get(id.module as usize)
            .and_then(|m| m.get(id.index as usize))
            .copied()
            .unwrap_or_default()
    }

    /// # Panics
    /// If `id` is not a global of the index these resolutions were made for.
    pub fn get_mut(&mut self, id: GlobalId) -> &mut Resolution {
        &mut self.per_module[id.module as usize][id.index as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::global;
    use crate::model::*;

    fn module(id: &str, globals: Vec<GlobalSummary>) -> ModuleSummary {
        ModuleSummary {
            module_id: id.to_string(),
            globals,
            ..Default::default()
        }
    }

    fn declaration(name: &str) -> GlobalSummary {
        let mut g = global(name, GlobalKind::Function, Linkage::External);
        g.flags.insert(GlobalFlags::DECLARATION);
        g
    }

    #[test]
    fn references_resolve_by_name_except_locals() {
        let index = CombinedIndex::new(vec![
            module(
                "a.o",
                vec![
                    declaration("f"),
                    global("local", GlobalKind::Function, Linkage::Internal),
                    global("f_weak", GlobalKind::Function, Linkage::LinkOnceODR),
                    declaration("native_only"),
                ],
            ),
            module(
                "b.o",
                vec![
                    global("f", GlobalKind::Function, Linkage::External),
                    global("local", GlobalKind::Function, Linkage::Internal),
                    global("f_weak", GlobalKind::Function, Linkage::LinkOnceODR),
                ],
            ),
        ]);
        let id = |module, index| GlobalId { module, index };
        assert_eq!(index.resolve_ref(0, 0), vec![id(1, 0)]);
        assert_eq!(index.resolve_ref(0, 1), vec![id(0, 1)]);
        assert_eq!(index.resolve_ref(1, 1), vec![id(1, 1)]);
        assert_eq!(index.resolve_ref(0, 2), vec![id(0, 2), id(1, 2)]);
        assert_eq!(index.resolve_ref(0, 3), vec![]);
        assert_eq!(index.resolve_ref(0, 99), vec![]);
        assert_eq!(index.definitions("f"), vec![id(1, 0)]);
        assert_eq!(index.named("f"), &[id(0, 0), id(1, 0)]);
        assert_eq!(index.definitions("local"), vec![]);
        assert_eq!(index.ids().count(), 7);
        assert_eq!(index.global(id(1, 2)).name, "f_weak");
    }

    #[test]
    fn resolutions_are_shaped_like_the_index() {
        let index = CombinedIndex::new(vec![module("a.o", vec![declaration("f")])]);
        let mut res = Resolutions::new(&index);
        let id = GlobalId {
            module: 0,
            index: 0,
        };
        assert_eq!(res.get(id), Resolution::default());
        res.get_mut(id).prevailing = true;
        assert!(res.get(id).prevailing);
        assert_eq!(
            res.get(GlobalId {
                module: 5,
                index: 0
            }),
            Resolution::default()
        );
    }
}
