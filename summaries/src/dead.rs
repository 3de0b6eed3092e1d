//! Which bitcode definitions the linked program can reach: LLVM's `computeDeadSymbols`
//! (llvm/lib/Transforms/IPO/FunctionImport.cpp), generalized to rld's combined index, and the
//! internalization decision that follows from it.
//!
//! Like LLVM, the analysis marks roots live and then drains a stack worklist, following each
//! live definition's references, calls and aliasee. A reference to a non-local name reaches
//! every definition of that name ([`CombinedIndex::resolve_ref`]), the way LLVM marks every
//! summary of a GUID, so all copies of a linkonce/weak function become live together.
//!
//! Where LLVM decides per GUID whether a name prevails, rld has the linker's resolution of each
//! copy, so the rule for copies that lose is applied per copy: a non-prevailing copy is kept
//! only if its linkage promises it is equivalent to the winner (`linkonce_odr`, `weak_odr`) or
//! it exists only to be inlined (`available_externally`). LLVM keeps those because later passes
//! and the importer still want their bodies (PR36483). An interposable loser (`linkonce`,
//! `weak`, `common`) says nothing about the program, since the winning copy (possibly native)
//! is a different body, so it is never marked; LLVM reports a mix of the two as a fatal error,
//! rld simply treats each copy by its own linkage.

use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::model::{GlobalFlags, Linkage};
use std::collections::HashSet;

/// Why a definition is live: the root kind that made it live, or `Referenced` when it was
/// reached from another live definition. A copy of a root's name that is made live with it
/// (a non-prevailing `linkonce_odr` copy) carries the root's reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveReason {
    /// Prevailing and used by a native object (or `-r`, `.dynsym`, `__start_`/`__stop_`).
    VisibleToRegularObject,
    /// Prevailing and exported from the dynamic symbol table.
    ExportedDynamic,
    /// In `llvm.used` or `llvm.compiler.used`.
    Used,
    /// Named by the linker: entry point, `-u`, `-init`, `-fini`.
    RootName,
    /// In some module's `llvm.global_ctors`.
    Constructor,
    /// In some module's `llvm.global_dtors`.
    Destructor,
    /// Referenced, called or aliased by a live definition.
    Referenced,
}

/// The result of [`compute_dead_symbols`]: for every global of the index, whether it is live
/// and why. Declarations are never live (nor dead: they have no body to drop).
#[derive(Debug, Clone)]
pub struct Liveness {
    per_module: Vec<Vec<Option<LiveReason>>>,
    live_count: usize,
}

impl Liveness {
    pub fn is_live(&self, id: GlobalId) -> bool {
        self.reason(id).is_some()
    }

    /// Why `id` is live; `None` if it is dead, a declaration, or not in the index.
    pub fn reason(&self, id: GlobalId) -> Option<LiveReason> {
        *self
            .per_module
            .get(id.module as usize)?
            .get(id.index as usize)?
    }

    /// Number of live definitions in the whole index.
    pub fn live_count(&self) -> usize {
        self.live_count
    }

    /// Definitions that are not live, in index order: what LTO drops (lld's `deadfunction`
    /// remarks name the functions among them). Includes non-prevailing copies that lose to
    /// another definition and were not kept.
    pub fn dead_definitions(&self, index: &CombinedIndex) -> Vec<GlobalId> {
        index
            .ids()
            .filter(|&id| index.global(id).is_definition() && !self.is_live(id))
            .collect()
    }
}

/// Marks what the program can reach from its roots; see the module docs for the rules. The
/// roots are:
/// - prevailing definitions whose resolution is `visible_to_regular_obj` or `export_dynamic`;
/// - definitions flagged `USED` or `COMPILER_USED` that are prevailing or local;
/// - prevailing non-local definitions named in `root_names` (entry point, `-u`, `-init`,
///   `-fini`);
/// - every function in any module's `ctors` or `dtors`.
pub fn compute_dead_symbols(
    index: &CombinedIndex,
    res: &Resolutions,
    root_names: &[String],
) -> Liveness {
    let root_names: HashSet<&str> = root_names.iter().map(String::as_str).collect();
    let mut worklist = DeadSymbolWorklist {
        index,
        res,
        live: index
            .modules
            .iter()
            .map(|m| vec![None; m.globals.len()])
            .collect(),
        live_count: 0,
        stack: Vec::new(),
    };

    for id in index.ids() {
        let g = index.global(id);
        if g.is_declaration() {
            continue;
        }
        let r = res.get(id);
        let local = g.linkage.is_local();
        let used =
            g.flags.contains(GlobalFlags::USED) || g.flags.contains(GlobalFlags::COMPILER_USED);
        let reason = if r.prevailing && r.visible_to_regular_obj {
            LiveReason::VisibleToRegularObject
        } else if r.prevailing && r.export_dynamic {
            LiveReason::ExportedDynamic
        } else if used && (r.prevailing || local) && !r.discarded {
            LiveReason::Used
        } else if !local && r.prevailing && root_names.contains(g.name.as_str()) {
            LiveReason::RootName
        } else {
            continue;
        };
        // The root itself is prevailing or local, so no copy rule applies to it; its other
        // copies go through `visit` like any reference to the name.
        worklist.mark(id, reason);
        for copy in index.resolve_ref_iter(id.module, id.index) {
            worklist.visit(copy, reason);
        }
    }

    // Constructors and destructors run whether or not anything references them. The entry
    // names a global of its own module, which resolves like any reference.
    for (m, module) in index.modules.iter().enumerate() {
        for (list, reason) in [
            (&module.ctors, LiveReason::Constructor),
            (&module.dtors, LiveReason::Destructor),
        ] {
            for st in list {
                for target in index.resolve_ref_iter(m as u32, st.function) {
                    worklist.visit(target, reason);
                }
            }
        }
    }

    worklist.drain();
    Liveness {
        per_module: worklist.live,
        live_count: worklist.live_count,
    }
}

/// The state of the propagation: liveness so far and the definitions whose edges are still
/// to be followed.
struct DeadSymbolWorklist<'a> {
    index: &'a CombinedIndex,
    res: &'a Resolutions,
    live: Vec<Vec<Option<LiveReason>>>,
    live_count: usize,
    stack: Vec<GlobalId>,
}

impl DeadSymbolWorklist<'_> {
    /// Makes `id` live and schedules its edges, unless it already is.
    fn mark(&mut self, id: GlobalId, reason: LiveReason) {
        let slot = &mut self.live[id.module as usize][id.index as usize];
        if slot.is_none() {
            *slot = Some(reason);
            self.live_count += 1;
            self.stack.push(id);
        }
    }

    /// A definition reached through its name: marked unless it is a non-local copy that
    /// loses and whose linkage does not promise it matches the winner.
    fn visit(&mut self, id: GlobalId, reason: LiveReason) {
        let g = self.index.global(id);
        let keeps_losing_copy = matches!(
            g.linkage,
            Linkage::LinkOnceODR | Linkage::WeakODR | Linkage::AvailableExternally
        );
        let r = self.res.get(id);
        if r.discarded || (!g.linkage.is_local() && !r.prevailing && !keeps_losing_copy) {
            return;
        }
        self.mark(id, reason);
    }

    fn drain(&mut self) {
        while let Some(id) = self.stack.pop() {
            let index = self.index;
            let g = index.global(id);
            for &r in g.refs.iter().chain(&g.calls) {
                for target in index.resolve_ref_iter(id.module, r) {
                    self.visit(target, LiveReason::Referenced);
                }
            }
            if let Some(a) = g.aliasee {
                // An alias (or ifunc) is made of its module's own aliasee (resolver), even when
                // another copy of that name wins for everything else: LLVM visits the aliasee
                // without the prevailing check for the same reason.
                let own = GlobalId {
                    module: id.module,
                    index: a,
                };
                if index.get(own).is_some_and(|t| t.is_definition()) {
                    self.mark(own, LiveReason::Referenced);
                }
                for target in index.resolve_ref_iter(id.module, a) {
                    self.visit(target, LiveReason::Referenced);
                }
            }
        }
    }
}

/// Live, prevailing, non-local definitions that nothing outside the LTO unit can see or
/// replace, so LTO may give them internal linkage (and then inline, specialize or drop them
/// freely). Excluded are definitions that are `visible_to_regular_obj`, `export_dynamic`,
/// `preemptible` or `linker_redefined`, flagged `USED`/`COMPILER_USED`, named in `root_names`,
/// or of `appending` linkage (`llvm.global_ctors` and friends are merged by name).
pub fn internalize(
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    root_names: &[String],
) -> Vec<GlobalId> {
    let root_names: HashSet<&str> = root_names.iter().map(String::as_str).collect();
    index
        .ids()
        .filter(|&id| {
            let g = index.global(id);
            let r = res.get(id);
            g.is_definition()
                && live.is_live(id)
                && r.prevailing
                && !g.linkage.is_local()
                && g.linkage != Linkage::Appending
                && !r.visible_to_regular_obj
                && !r.export_dynamic
                && !r.preemptible
                && !r.linker_redefined
                && !g.flags.contains(GlobalFlags::USED)
                && !g.flags.contains(GlobalFlags::COMPILER_USED)
                && !root_names.contains(g.name.as_str())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::global;
    use crate::index::Resolution;
    use crate::model::*;

    /// A test program: modules of globals, built by name, with resolutions set by name.
    struct Program {
        modules: Vec<ModuleSummary>,
    }

    impl Program {
        fn new() -> Self {
            Program { modules: vec![] }
        }

        fn module(&mut self, id: &str) -> &mut Self {
            self.modules.push(ModuleSummary {
                module_id: id.to_string(),
                ..Default::default()
            });
            self
        }

        fn def(&mut self, name: &str, linkage: Linkage) -> &mut Self {
            let kind = if name.starts_with("var") {
                GlobalKind::Variable
            } else {
                GlobalKind::Function
            };
            self.modules
                .last_mut()
                .unwrap()
                .globals
                .push(global(name, kind, linkage));
            self
        }

        fn decl(&mut self, name: &str) -> &mut Self {
            self.def(name, Linkage::External);
            let g = self.last();
            g.flags.insert(GlobalFlags::DECLARATION);
            self
        }

        fn last(&mut self) -> &mut GlobalSummary {
            self.modules.last_mut().unwrap().globals.last_mut().unwrap()
        }

        /// `from` calls `to`, both in the last module.
        fn calls(&mut self, from: &str, to: &str) -> &mut Self {
            let m = self.modules.last_mut().unwrap();
            let (f, t) = (m.find(from).unwrap(), m.find(to).unwrap());
            m.globals[f as usize].calls.push(t);
            self
        }

        fn refs(&mut self, from: &str, to: &str) -> &mut Self {
            let m = self.modules.last_mut().unwrap();
            let (f, t) = (m.find(from).unwrap(), m.find(to).unwrap());
            m.globals[f as usize].refs.push(t);
            self
        }

        fn index(&self) -> CombinedIndex {
            CombinedIndex::new(self.modules.clone())
        }
    }

    fn id(module: u32, index: u32) -> GlobalId {
        GlobalId { module, index }
    }

    /// Resolutions as lld would give them when every bitcode definition is the only one of
    /// its name: prevailing. Tests then adjust individual entries.
    fn all_prevailing(index: &CombinedIndex) -> Resolutions {
        let mut res = Resolutions::new(index);
        for gid in index.ids() {
            if index.global(gid).is_definition() && !index.global(gid).linkage.is_local() {
                res.get_mut(gid).prevailing = true;
            }
        }
        res
    }

    fn set(res: &mut Resolutions, gid: GlobalId, f: impl FnOnce(&mut Resolution)) {
        f(res.get_mut(gid));
    }

    #[test]
    fn tu1_tu2_unused_is_dead() {
        // The LLVM notes' example: tu1.c's main calls probably_inlined from tu2.c; tu2.c's
        // unused is called by nobody.
        let mut p = Program::new();
        p.module("tu1.o")
            .def("main", Linkage::External)
            .decl("probably_inlined")
            .calls("main", "probably_inlined");
        p.module("tu2.o")
            .def("unused", Linkage::External)
            .def("probably_inlined", Linkage::External);
        let index = p.index();
        let mut res = all_prevailing(&index);
        // crt1.o's _start references main.
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = true);
        let live = compute_dead_symbols(&index, &res, &["_start".to_string()]);
        assert_eq!(
            live.reason(id(0, 0)),
            Some(LiveReason::VisibleToRegularObject)
        );
        assert_eq!(live.reason(id(1, 1)), Some(LiveReason::Referenced));
        assert!(!live.is_live(id(1, 0)), "unused must be dead");
        assert!(!live.is_live(id(0, 1)), "declarations are never live");
        assert_eq!(live.live_count(), 2);
        assert_eq!(live.dead_definitions(&index), vec![id(1, 0)]);
    }

    #[test]
    fn one_root_of_each_kind() {
        let mut p = Program::new();
        p.module("a.o")
            .def("visible", Linkage::External)
            .def("exported", Linkage::External)
            .def("entry", Linkage::External)
            .def("used_local", Linkage::Internal)
            .def("compiler_used", Linkage::External)
            .def("ctor", Linkage::Internal)
            .def("dtor", Linkage::Internal)
            .def("nothing", Linkage::External)
            .def("local_nothing", Linkage::Internal);
        p.modules[0].globals[3].flags.insert(GlobalFlags::USED);
        p.modules[0].globals[4]
            .flags
            .insert(GlobalFlags::COMPILER_USED);
        p.modules[0].ctors.push(Structor {
            priority: 65535,
            function: 5,
        });
        p.modules[0].dtors.push(Structor {
            priority: 65535,
            function: 6,
        });
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = true);
        set(&mut res, id(0, 1), |r| r.export_dynamic = true);
        let live = compute_dead_symbols(&index, &res, &["entry".to_string()]);
        let reasons: Vec<_> = (0..9).map(|i| live.reason(id(0, i))).collect();
        assert_eq!(
            reasons,
            vec![
                Some(LiveReason::VisibleToRegularObject),
                Some(LiveReason::ExportedDynamic),
                Some(LiveReason::RootName),
                Some(LiveReason::Used),
                Some(LiveReason::Used),
                Some(LiveReason::Constructor),
                Some(LiveReason::Destructor),
                None,
                None,
            ]
        );
    }

    #[test]
    fn roots_must_prevail() {
        // A definition that loses to another (here, to a native one) is no root, whatever its
        // flags or name say.
        let mut p = Program::new();
        p.module("a.o")
            .def("entry", Linkage::External)
            .def("used", Linkage::WeakAny)
            .def("visible", Linkage::External);
        p.modules[0].globals[1].flags.insert(GlobalFlags::USED);
        let index = p.index();
        let mut res = Resolutions::new(&index);
        set(&mut res, id(0, 2), |r| r.visible_to_regular_obj = true);
        let live = compute_dead_symbols(&index, &res, &["entry".to_string()]);
        assert_eq!(live.live_count(), 0);
    }

    #[test]
    fn root_name_does_not_match_a_local() {
        let mut p = Program::new();
        p.module("a.o").def("main", Linkage::Internal);
        let index = p.index();
        let res = all_prevailing(&index);
        let live = compute_dead_symbols(&index, &res, &["main".to_string()]);
        assert!(!live.is_live(id(0, 0)));
    }

    #[test]
    fn alias_keeps_its_aliasee() {
        let mut p = Program::new();
        p.module("a.o")
            .def("impl", Linkage::Internal)
            .def("api", Linkage::External)
            .def("var_table", Linkage::Internal)
            .refs("impl", "var_table");
        p.modules[0].globals[1].kind = GlobalKind::Alias;
        p.modules[0].globals[1].aliasee = Some(0);
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 1), |r| r.visible_to_regular_obj = true);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert!(live.is_live(id(0, 0)), "aliasee");
        assert!(live.is_live(id(0, 2)), "what the aliasee references");
    }

    #[test]
    fn alias_keeps_its_own_aliasee_even_when_that_copy_loses() {
        // `alias` points at this module's weak `impl`; another module's `impl` wins the name,
        // but the alias's storage is still this module's body.
        let mut p = Program::new();
        p.module("a.o")
            .def("impl", Linkage::WeakAny)
            .def("alias", Linkage::External);
        p.modules[0].globals[1].kind = GlobalKind::Alias;
        p.modules[0].globals[1].aliasee = Some(0);
        p.module("b.o").def("impl", Linkage::WeakAny);
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 0), |r| r.prevailing = false);
        set(&mut res, id(0, 1), |r| r.visible_to_regular_obj = true);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert!(live.is_live(id(0, 0)));
        assert!(live.is_live(id(1, 0)), "the prevailing copy of the name");
    }

    #[test]
    fn ifunc_keeps_its_resolver() {
        let mut p = Program::new();
        p.module("a.o")
            .def("resolve", Linkage::Internal)
            .def("fast_memcpy", Linkage::External);
        p.modules[0].globals[1].kind = GlobalKind::IFunc;
        p.modules[0].globals[1].aliasee = Some(0);
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 1), |r| r.visible_to_regular_obj = true);
        assert!(compute_dead_symbols(&index, &res, &[]).is_live(id(0, 0)));
    }

    #[test]
    fn linkonce_odr_copies_live_together() {
        let mut p = Program::new();
        p.module("a.o")
            .def("main", Linkage::External)
            .def("inline_fn", Linkage::LinkOnceODR)
            .calls("main", "inline_fn");
        p.module("b.o")
            .def("other", Linkage::External)
            .def("inline_fn", Linkage::LinkOnceODR)
            .def("var_used_by_copy", Linkage::Internal)
            .refs("inline_fn", "var_used_by_copy");
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(1, 1), |r| r.prevailing = false);
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = true);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert!(live.is_live(id(0, 1)), "prevailing copy");
        assert!(live.is_live(id(1, 1)), "non-prevailing ODR copy");
        assert!(live.is_live(id(1, 2)), "followed through the ODR copy");
        assert!(!live.is_live(id(1, 0)));

        // Unreferenced, both copies are dead.
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = false);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert_eq!(live.live_count(), 0);
    }

    #[test]
    fn odr_copies_live_when_the_winner_is_native() {
        // No bitcode copy prevails (a native object's definition won); the ODR copy is kept
        // for inlining, like LLVM keeps available_externally/linkonce_odr/weak_odr.
        let mut p = Program::new();
        p.module("a.o")
            .def("main", Linkage::External)
            .def("inline_fn", Linkage::LinkOnceODR)
            .def("inline_var", Linkage::AvailableExternally)
            .calls("main", "inline_fn")
            .refs("main", "inline_var");
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = true);
        set(&mut res, id(0, 1), |r| r.prevailing = false);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert!(live.is_live(id(0, 1)));
        assert!(live.is_live(id(0, 2)));
    }

    #[test]
    fn non_prevailing_weak_any_is_not_marked() {
        let mut p = Program::new();
        p.module("a.o")
            .def("main", Linkage::External)
            .def("hook", Linkage::WeakAny)
            .calls("main", "hook");
        p.module("b.o")
            .def("hook", Linkage::WeakAny)
            .def("var_only_b_hook_uses", Linkage::Internal)
            .refs("hook", "var_only_b_hook_uses");
        p.module("c.o").def("var_common", Linkage::Common);
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = true);
        set(&mut res, id(1, 0), |r| r.prevailing = false);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert!(live.is_live(id(0, 1)), "the winning weak copy");
        assert!(!live.is_live(id(1, 0)), "the losing weak copy");
        assert!(
            !live.is_live(id(1, 1)),
            "nothing is followed through a loser"
        );

        // When a native definition wins, no bitcode copy is marked.
        set(&mut res, id(0, 1), |r| r.prevailing = false);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert_eq!(live.live_count(), 1);
    }

    #[test]
    fn locals_with_the_same_name_stay_apart() {
        let mut p = Program::new();
        p.module("a.o")
            .def("main", Linkage::External)
            .def("helper", Linkage::Internal)
            .calls("main", "helper");
        p.module("b.o")
            .def("helper", Linkage::Internal)
            .def("api", Linkage::External)
            .calls("api", "helper");
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = true);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert!(live.is_live(id(0, 1)));
        assert!(!live.is_live(id(1, 0)), "b.o's helper is another function");
        assert_eq!(live.live_count(), 2);
    }

    #[test]
    fn references_cross_modules_through_declarations_and_cycles_end() {
        let mut p = Program::new();
        p.module("a.o")
            .def("main", Linkage::External)
            .decl("ping")
            .calls("main", "ping");
        p.module("b.o")
            .def("ping", Linkage::External)
            .decl("pong")
            .calls("ping", "pong")
            .decl("var_state")
            .refs("ping", "var_state");
        p.module("c.o")
            .def("pong", Linkage::External)
            .decl("ping")
            .calls("pong", "ping")
            .def("var_state", Linkage::External);
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = true);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert!(live.is_live(id(1, 0)));
        assert!(live.is_live(id(2, 0)));
        assert!(live.is_live(id(2, 2)));
        assert_eq!(live.live_count(), 4);
    }

    #[test]
    fn constructor_in_another_module_resolves_by_name() {
        let mut p = Program::new();
        p.module("a.o").decl("init");
        p.modules[0].ctors.push(Structor {
            priority: 101,
            function: 0,
        });
        p.module("b.o").def("init", Linkage::External);
        let index = p.index();
        let res = all_prevailing(&index);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert_eq!(live.reason(id(1, 0)), Some(LiveReason::Constructor));
    }

    #[test]
    fn a_losing_comdat_group_is_discarded_with_its_locals() {
        // Two modules with an inline variable's group: the variable and its initializer
        // (internal, run as a constructor). a.o's copy prevails; b.o's group goes whole.
        let mut p = Program::new();
        for m in ["a.o", "b.o"] {
            p.module(m)
                .def("var", Linkage::LinkOnceODR)
                .def("init", Linkage::Internal)
                .refs("init", "var");
            let module = p.modules.last_mut().unwrap();
            for g in &mut module.globals {
                g.comdat = Some("var".to_string());
            }
            module.ctors.push(Structor {
                priority: 65535,
                function: 1,
            });
        }
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(1, 0), |r| r.prevailing = false);
        res.discard_losing_groups(&index);
        assert!(!res.get(id(0, 1)).discarded);
        assert!(res.get(id(1, 1)).discarded);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert_eq!(live.reason(id(0, 1)), Some(LiveReason::Constructor));
        assert!(live.is_live(id(0, 0)));
        assert!(!live.is_live(id(1, 1)), "the losing group's initializer");
    }

    fn internalize_fixture() -> (CombinedIndex, Resolutions) {
        let mut p = Program::new();
        p.module("a.o")
            .def("main", Linkage::External)
            .def("plain", Linkage::External)
            .def("exported", Linkage::External)
            .def("preemptible", Linkage::External)
            .def("used", Linkage::External)
            .def("wrapped", Linkage::External)
            .def("entry", Linkage::External)
            .def("var_ctors", Linkage::Appending)
            .def("local", Linkage::Internal)
            .def("dead", Linkage::External)
            .def("odr", Linkage::LinkOnceODR);
        for callee in [
            "plain",
            "exported",
            "preemptible",
            "used",
            "wrapped",
            "local",
            "odr",
        ] {
            p.calls("main", callee);
        }
        p.refs("main", "var_ctors");
        p.modules[0].globals[4].flags.insert(GlobalFlags::USED);
        let index = p.index();
        let mut res = all_prevailing(&index);
        set(&mut res, id(0, 0), |r| r.visible_to_regular_obj = true);
        set(&mut res, id(0, 2), |r| r.export_dynamic = true);
        set(&mut res, id(0, 3), |r| r.preemptible = true);
        set(&mut res, id(0, 5), |r| r.linker_redefined = true);
        (index, res)
    }

    #[test]
    fn internalize_only_what_nothing_outside_can_see() {
        let (index, res) = internalize_fixture();
        let roots = ["entry".to_string()];
        let live = compute_dead_symbols(&index, &res, &roots);
        let names: Vec<&str> = internalize(&index, &res, &live, &roots)
            .into_iter()
            .map(|g| index.global(g).name.as_str())
            .collect();
        assert_eq!(names, vec!["plain", "odr"]);
    }

    #[test]
    fn internalize_skips_losing_copies() {
        let (index, mut res) = internalize_fixture();
        set(&mut res, id(0, 10), |r| r.prevailing = false);
        let live = compute_dead_symbols(&index, &res, &[]);
        assert!(live.is_live(id(0, 10)));
        let internal = internalize(&index, &res, &live, &[]);
        assert!(!internal.contains(&id(0, 10)));
    }
}
