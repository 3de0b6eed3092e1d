//! From called-value propagation's callee sets to what the backend does at each indirect
//! call site: which functions it may call (metadata), and whether it becomes a chain of
//! direct calls (promotion).

use rld_summaries::{CombinedIndex, GlobalId};

/// The name a CVP target has in the merged module: local functions are renamed before
/// linking so that call sites in other modules can name them.
fn target_name(index: &CombinedIndex, id: GlobalId, renames: &mut [Vec<(u32, String)>]) -> String {
    let g = index.global(id);
    if !g.linkage.is_local() {
        return g.name.clone();
    }
    let unique = format!("{}.rld.{}", g.name, id.module);
    let list = &mut renames[id.module as usize];
    if !list.iter().any(|(i, _)| *i == id.index) {
        list.push((id.index, unique.clone()));
    }
    unique
}

/// Turns CVP's callee sets into what the backend does at each indirect call site, and
/// lists (caller, target) for each: the caller's code names the target afterwards, which
/// partitioning must know.
pub(crate) fn call_plans(
    index: &CombinedIndex,
    live: &rld_summaries::Liveness,
    cvp: &rld_summaries::cvp::CvpResult,
    icp_max_targets: usize,
) -> (rld_lto::CallPlans, Vec<(GlobalId, GlobalId)>) {
    use rld_summaries::cvp::CalleeSet;
    let mut plans = rld_lto::CallPlans {
        renames: vec![Vec::new(); index.modules.len()],
        sites: Default::default(),
    };
    let mut refs = Vec::new();
    for (&(m, site), set) in &cvp.sites {
        let CalleeSet::Functions(targets) = set else {
            continue;
        };
        let call = &index.modules[m as usize].call_sites[site as usize];
        let caller = GlobalId {
            module: m,
            index: call.caller,
        };
        // Every target must exist in the merged module as a function definition or
        // declaration; a dropped caller needs nothing; a caller without a recorded shape
        // cannot be checked against the bitcode, so its sites are not touched.
        if targets.is_empty() || !live.is_live(caller) {
            continue;
        }
        let module = &index.modules[m as usize];
        let Some(&caller_shape) = module.shapes.iter().find(|s| s.function == call.caller) else {
            continue;
        };
        refs.extend(targets.iter().map(|&t| (caller, t)));
        let names = targets
            .iter()
            .map(|&t| target_name(index, t, &mut plans.renames))
            .collect();
        plans.sites.insert(
            (m, site),
            rld_lto::SitePlan {
                caller: call.caller,
                caller_shape,
                instruction: call.instruction,
                targets: names,
                // The analysis is sound: a FunctionSet holds every possible callee.
                complete: true,
                promote: targets.len() <= icp_max_targets,
            },
        );
    }
    // In index order, whatever order the sites came in: the renames are part of the
    // partition cache's keys.
    for list in &mut plans.renames {
        list.sort_unstable();
    }
    refs.sort_unstable();
    (plans, refs)
}
