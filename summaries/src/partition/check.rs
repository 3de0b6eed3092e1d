//! The cut's invariants, checked against the summaries themselves rather than the graph
//! the partitioner cut: a mistake in that graph (a reference it missed) must not become a
//! wrong program. After partitioning:
//! - every compiled definition has exactly one owning partition;
//! - a body a partition holds (owned or copied) that refers to a definition local to the
//!   LTO unit (local linkage or internalized) owned by another partition finds it shared,
//!   that is, a hidden symbol other partitions can reach;
//! - only functions are copied: a copy of a variable would give a partition its own state.
//!
//! A violation is an internal error naming the symbol.

use super::{is_unit_local, PartitionInput, PartitionPlan};
use crate::index::GlobalId;
use crate::model::GlobalKind;

/// The first invariant of the cut that does not hold, in words.
pub fn check(plan: &PartitionPlan, input: &PartitionInput) -> Result<(), String> {
    let index = input.index;
    let name = |id: GlobalId| format!("'{}' (module {})", index.global(id).name, id.module);
    for (m, compiled) in input.compiled.iter().enumerate() {
        for (i, &c) in compiled.iter().enumerate() {
            let id = GlobalId {
                module: m as u32,
                index: i as u32,
            };
            match plan.owner(id) {
                Some(p) if !c => {
                    return Err(format!(
                        "{} is not compiled but partition {p} owns it",
                        name(id)
                    ))
                }
                Some(p) if p >= plan.count() => {
                    return Err(format!(
                        "{} is owned by partition {p} of {}",
                        name(id),
                        plan.count()
                    ))
                }
                None if c => {
                    return Err(format!("{} is compiled but no partition owns it", name(id)))
                }
                _ => {}
            }
        }
    }
    for p in 0..plan.count() {
        for id in plan.copies(p) {
            let g = index.global(id);
            if g.kind != GlobalKind::Function {
                return Err(format!(
                    "partition {p} holds a copy of {}, which is not a function",
                    name(id)
                ));
            }
        }
    }
    // References, from each body to what it names.
    let reaches = |p: u32, target: GlobalId| -> Result<(), String> {
        match plan.owner(target) {
            Some(q) if q != p && is_unit_local(input, target) && !plan.is_shared(target) => {
                Err(format!(
                "{} is owned by partition {q} and referred to from partition {p}, but not shared",
                name(target)
            ))
            }
            _ => Ok(()),
        }
    };
    for id in index.ids() {
        let g = index.global(id);
        let holders: Vec<u32> = (0..plan.count())
            .filter(|&p| {
                matches!(
                    plan.placement(p, id),
                    super::Placement::Own | super::Placement::Copy
                )
            })
            .collect();
        if holders.is_empty() {
            continue;
        }
        let targets = g.refs.iter().chain(&g.calls).chain(&g.aliasee);
        for &r in targets {
            for t in index.resolve_ref_iter(id.module, r) {
                for &p in &holders {
                    // A copy only calls: a reference that stays names the owner's symbol.
                    reaches(p, t)?;
                }
            }
        }
    }
    for &(caller, callee) in input.extra_refs {
        if let Some(p) = plan.owner(caller) {
            reaches(p, callee)?;
        }
    }
    Ok(())
}
