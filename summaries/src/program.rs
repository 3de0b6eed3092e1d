//! The linked program as the whole-program analyses see it: what a module's reference to a
//! global denotes after symbol resolution, which definitions are the ones the program runs,
//! and which globals code outside the LTO unit can name. Called-value propagation and the
//! points-to analysis both ask these questions, and must answer them the same way.

use crate::dead::{LiveReason, Liveness};
use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::model::{GlobalFlags, GlobalKind, Linkage};

/// What a global reference denotes in the linked program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Function(GlobalId),
    /// A variable; `exact` when the reference is its start (an alias may add an offset).
    Variable {
        var: GlobalId,
        exact: bool,
    },
    /// Nothing the analyses can name (an alias cycle, an index out of range).
    Unknown,
}

/// The combined index with the linker's resolutions and the dead-symbol analysis's answers.
pub struct ProgramView<'a> {
    pub index: &'a CombinedIndex,
    pub res: &'a Resolutions,
    pub live: &'a Liveness,
}

impl<'a> ProgramView<'a> {
    pub fn new(index: &'a CombinedIndex, res: &'a Resolutions, live: &'a Liveness) -> Self {
        ProgramView { index, res, live }
    }

    /// A definition whose body or initializer is the one the program uses for its name:
    /// local, or prevailing and not replaceable at run time.
    pub fn tracked_definition(&self, id: GlobalId) -> bool {
        let g = self.index.global(id);
        let r = self.res.get(id);
        g.is_definition()
            && g.linkage != Linkage::AvailableExternally
            && (g.linkage.is_local() || (r.prevailing && !r.preemptible && !r.linker_redefined))
    }

    /// Code outside the LTO unit can name it: the complement of "local or internalizable"
    /// (the rules of [`crate::internalize`], with the linker's root names read from `live`).
    pub fn visible_outside(&self, id: GlobalId) -> bool {
        let g = self.index.global(id);
        if g.flags.contains(GlobalFlags::USED) || g.flags.contains(GlobalFlags::COMPILER_USED) {
            // Kept for something the compiler cannot see (inline asm, a section walker).
            return true;
        }
        if g.linkage.is_local() {
            return false;
        }
        let r = self.res.get(id);
        r.visible_to_regular_obj
            || r.export_dynamic
            || r.preemptible
            || r.linker_redefined
            || g.linkage == Linkage::Appending
            || matches!(
                self.live.reason(id),
                Some(
                    LiveReason::VisibleToRegularObject
                        | LiveReason::ExportedDynamic
                        | LiveReason::Used
                        | LiveReason::RootName
                )
            )
    }

    /// Every use of it is in the LTO unit's summaries.
    pub fn closed(&self, id: GlobalId) -> bool {
        self.tracked_definition(id) && !self.visible_outside(id)
    }

    /// What the reference `(module, index)` denotes.
    pub fn resolve(&self, module: u32, index: u32) -> Target {
        self.resolve_bounded(module, index, 0)
    }

    fn resolve_bounded(&self, module: u32, index: u32, depth: u32) -> Target {
        // Aliases of aliases are rare and short; a chain this long is a cycle.
        if depth > 16 {
            return Target::Unknown;
        }
        let id = GlobalId { module, index };
        let Some(g) = self.index.get(id) else {
            return Target::Unknown;
        };
        let definition = if g.linkage.is_local() {
            Some(id)
        } else {
            self.index
                .named(&g.name)
                .iter()
                .copied()
                .find(|&d| self.index.global(d).is_definition() && self.res.get(d).prevailing)
        };
        let Some(def) = definition else {
            // Defined outside the LTO unit: one name for it across all modules, the first
            // global of the name of the same kind (a declaration's kind is all we know).
            let (is_function, exact) = match g.kind {
                GlobalKind::Function | GlobalKind::IFunc => (true, true),
                GlobalKind::Variable => (false, true),
                GlobalKind::Alias => {
                    match g
                        .aliasee
                        .map(|a| self.resolve_bounded(module, a, depth + 1))
                    {
                        Some(Target::Function(_)) => (true, false),
                        Some(Target::Variable { .. }) => (false, false),
                        _ => return Target::Unknown,
                    }
                }
            };
            // A function or variable finds at least itself; only a malformed alias (an
            // alias declaration) finds nothing.
            let Some(canonical) = self.index.named(&g.name).iter().copied().find(|&d| {
                let kind = self.index.global(d).kind;
                matches!(kind, GlobalKind::Function | GlobalKind::IFunc) == is_function
                    && kind != GlobalKind::Alias
            }) else {
                return Target::Unknown;
            };
            return if is_function {
                Target::Function(canonical)
            } else {
                Target::Variable {
                    var: canonical,
                    exact,
                }
            };
        };
        let d = self.index.global(def);
        match d.kind {
            // An ifunc is named like a function; calls through it are external calls (its
            // implementation is whatever the resolver returns at load time).
            GlobalKind::Function | GlobalKind::IFunc => Target::Function(def),
            GlobalKind::Variable => Target::Variable {
                var: def,
                exact: true,
            },
            GlobalKind::Alias => {
                let Some(a) = d.aliasee else {
                    return Target::Unknown;
                };
                // An alias is its own module's aliasee (the storage it was defined on), as in
                // the dead-symbol analysis, even if another copy of that name prevails.
                let own = GlobalId {
                    module: def.module,
                    index: a,
                };
                let aliased = match self.index.get(own) {
                    Some(o) if o.is_definition() && o.kind != GlobalKind::Alias => match o.kind {
                        GlobalKind::Variable => Target::Variable {
                            var: own,
                            exact: true,
                        },
                        _ => Target::Function(own),
                    },
                    _ => self.resolve_bounded(def.module, a, depth + 1),
                };
                match aliased {
                    Target::Variable { var, .. } => Target::Variable { var, exact: false },
                    other => other,
                }
            }
        }
    }
}
