//! The combined index's resolutions, from the host's symbol resolution (lld's rules in
//! `BitcodeCompiler::add`): which copy of each global prevails, and what outside the
//! bitcode can see it. Every later decision (what is dead, what becomes internal) starts
//! from these facts.

use rld_lto_api::{is_c_identifier, Host, LinkFacts};
use rld_summaries::{CombinedIndex, GlobalFlags, GlobalId, Resolutions};

/// Fills the resolutions of every definition in `index` from what `host` resolved.
pub(crate) fn resolutions(host: &dyn Host, link: &LinkFacts, index: &CombinedIndex) -> Resolutions {
    let mut res = Resolutions::new(index);
    for (m, module) in index.modules.iter().enumerate() {
        for (i, g) in module.globals.iter().enumerate() {
            let id = GlobalId {
                module: m as u32,
                index: i as u32,
            };
            if g.flags.contains(GlobalFlags::DECLARATION) {
                continue;
            }
            let slot = res.get_mut(id);
            if g.linkage.is_local() {
                slot.prevailing = true;
                slot.final_definition_in_linkage_unit = true;
                continue;
            }
            let Some(sym) = host.symbol(g.name.as_bytes()) else {
                continue;
            };
            slot.prevailing = sym.prevailing == Some(id);
            let start_stop = || {
                g.section
                    .as_deref()
                    .is_some_and(|s| is_c_identifier(s) && host.section_bounds_referenced(s))
            };
            slot.visible_to_regular_obj = link.relocatable
                || sym.native_ref
                || (slot.prevailing && sym.in_dynsym)
                || start_stop();
            slot.export_dynamic = sym.exported || sym.dso_ref;
            slot.preemptible = sym.preemptible;
            slot.final_definition_in_linkage_unit = !link.shared || !sym.default_visibility;
        }
    }
    res.discard_losing_groups(index);
    res
}
