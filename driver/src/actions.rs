//! What the backend does with each global of each module (keep, drop, internalize), from
//! the dead-symbol worklist and internalization; each drop or internalization of something
//! the programmer wrote is also a remark.

use crate::remarks::global_remark;
use rld_lto::Action;
use rld_remarks::{Remark, RemarkKind};
use rld_summaries::Resolutions;
use rld_summaries::{CombinedIndex, GlobalFlags, GlobalId, GlobalKind, Linkage, Liveness};
use std::collections::HashSet;

/// Per module, per global: its action; and the remarks about the globals dropped as dead
/// or internalized.
pub(crate) fn global_actions(
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    internal: &HashSet<GlobalId>,
) -> (Vec<Vec<Action>>, Vec<Remark>) {
    let mut remarks = Vec::new();
    let mut actions = Vec::with_capacity(index.modules.len());
    for (m, module) in index.modules.iter().enumerate() {
        let mut acts = Vec::with_capacity(module.globals.len());
        for (i, g) in module.globals.iter().enumerate() {
            let id = GlobalId {
                module: m as u32,
                index: i as u32,
            };
            let action =
                if g.flags.contains(GlobalFlags::DECLARATION) || g.name.starts_with("llvm.") {
                    Action::Keep
                } else if !res.get(id).prevailing || res.get(id).discarded {
                    Action::Drop
                } else if !live.is_live(id) {
                    let what = if g.kind == GlobalKind::Function {
                        "deadfunction"
                    } else {
                        "deadglobal"
                    };
                    // Private globals are the compiler's own temporaries (string literals...):
                    // a remark about them would name nothing the programmer wrote.
                    if g.linkage != Linkage::Private {
                        remarks.push(global_remark(
                            RemarkKind::Passed,
                            what,
                            g,
                            "not added to the combined module",
                        ));
                    }
                    Action::Drop
                } else if internal.contains(&id) {
                    remarks.push(global_remark(
                        RemarkKind::Passed,
                        "internalized",
                        g,
                        "internalized: not visible outside the LTO unit",
                    ));
                    Action::Internalize
                } else if matches!(g.linkage, Linkage::LinkOnceODR | Linkage::LinkOnceAny) {
                    Action::KeepWeak
                } else {
                    Action::Keep
                };
            acts.push(action);
        }
        actions.push(acts);
    }
    (actions, remarks)
}
