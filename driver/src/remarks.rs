//! rld's own optimization remarks: one for each whole-program decision (a global dropped
//! or internalized, an indirect call resolved or promoted, a function given alias scopes
//! or memory attributes), in LLVM's shapes so that LLVM's tools read them beside LLVM's.

use rld_remarks::{Remark, RemarkArg, RemarkKind};
use rld_summaries::partition::split_shared_name;
use rld_summaries::{CombinedIndex, GlobalId};
use std::collections::HashSet;

/// The summaries' source position as a remark's (the two crates do not depend on each other).
fn remark_loc(loc: &Option<rld_summaries::DebugLoc>) -> Option<rld_remarks::DebugLoc> {
    loc.as_ref().map(|l| rld_remarks::DebugLoc {
        file: l.file.clone(),
        line: l.line,
        column: l.column,
    })
}

/// A remark argument without a location of its own.
fn arg(key: &str, value: String) -> RemarkArg {
    RemarkArg {
        key: key.into(),
        value,
        debug_loc: None,
    }
}

/// An `lto` remark about a global, shaped like lld's `deadfunction` remark: the global as a
/// `Function` argument carrying its location, then the message with LLVM's surrounding spaces.
pub(crate) fn global_remark(
    kind: RemarkKind,
    name: &str,
    g: &rld_summaries::GlobalSummary,
    text: &str,
) -> Remark {
    let mut r = rld_remarks::dead_function_remark(&g.name, remark_loc(&g.debug_loc));
    r.kind = kind;
    r.name = name.into();
    r.args[1].value = format!(" {text} ");
    r
}

/// One remark per indirect call site of live code: its callees, its promotion, or why it
/// stayed unresolved.
pub(crate) fn call_remarks(
    index: &CombinedIndex,
    live: &rld_summaries::Liveness,
    cvp: &rld_summaries::cvp::CvpResult,
    outcome: &rld_lto::CallOutcome,
) -> Vec<Remark> {
    use rld_summaries::cvp::CalleeSet;
    let promoted: HashSet<(u32, u32)> = outcome.promoted.iter().copied().collect();
    let annotated: HashSet<(u32, u32)> = outcome.annotated.iter().copied().collect();
    let mut out = Vec::new();
    for (&(m, site), set) in &cvp.sites {
        let module = &index.modules[m as usize];
        let call = &module.call_sites[site as usize];
        let caller = GlobalId {
            module: m,
            index: call.caller,
        };
        if !live.is_live(caller) {
            continue;
        }
        let function = module.globals[call.caller as usize].name.clone();
        let (kind, name, args) = match set {
            CalleeSet::Functions(targets) if annotated.contains(&(m, site)) => {
                let mut args = vec![arg(
                    "String",
                    if promoted.contains(&(m, site)) {
                        "indirect call promoted to direct calls of: ".into()
                    } else {
                        "indirect call can only call: ".into()
                    },
                )];
                // Name the callees as the source does (local targets were renamed for
                // linking only).
                for &t in targets {
                    args.push(arg("Callee", index.global(t).name.clone()));
                }
                if let Some((_, added)) = outcome.call_attributes.iter().find(|c| c.0 == (m, site))
                {
                    args.push(arg(
                        "String",
                        "; the call now carries what they all say: ".into(),
                    ));
                    args.push(arg("Attributes", added.clone()));
                }
                let name = if promoted.contains(&(m, site)) {
                    "promoted"
                } else {
                    "callees"
                };
                (RemarkKind::Passed, name, args)
            }
            CalleeSet::Functions(_)
                if outcome
                    .sites_skipped
                    .iter()
                    .any(|(name, _)| *name == module.module_id) =>
            {
                (
                    RemarkKind::Missed,
                    "unresolved",
                    vec![
                        arg("String", "indirect call not resolved: ".into()),
                        arg(
                            "Reason",
                            "the module's code does not match its summary".into(),
                        ),
                    ],
                )
            }
            CalleeSet::Functions(_) | CalleeSet::Undefined => continue,
            CalleeSet::Overdefined => {
                let reason =
                    cvp.reasons.get(&(m, site)).cloned().unwrap_or_else(|| {
                        "the called value may come from outside the program".into()
                    });
                (
                    RemarkKind::Missed,
                    "unresolved",
                    vec![
                        arg("String", "indirect call not resolved: ".into()),
                        arg("Reason", reason),
                    ],
                )
            }
        };
        out.push(Remark {
            kind,
            pass: "cvp".into(),
            name: name.into(),
            debug_loc: remark_loc(&call.debug_loc),
            function,
            hotness: None,
            args,
        });
    }
    out
}

/// One `!Analysis` remark per annotated function (pass `wpa-aa`): its memory accesses, the
/// abstract objects they touch, and the pairs of accesses (and of calls and accesses) LLVM
/// can now tell apart; and a `!Passed` remark per function given memory attributes.
pub(crate) fn alias_remarks(
    index: &CombinedIndex,
    aliases: &rld_summaries::alias::AliasPlan,
    outcome: &rld_lto::CallOutcome,
) -> Vec<Remark> {
    let mut out = Vec::new();
    for (m, functions) in aliases.modules.iter().enumerate() {
        let module = &index.modules[m];
        if outcome
            .alias_skipped
            .iter()
            .any(|(name, _)| *name == module.module_id)
        {
            continue;
        }
        for f in functions {
            let g = &module.globals[f.function as usize];
            out.push(Remark {
                kind: RemarkKind::Analysis,
                pass: "wpa-aa".into(),
                name: "AliasScopes".into(),
                debug_loc: remark_loc(&g.debug_loc),
                function: g.name.clone(),
                hotness: None,
                args: vec![
                    arg("String", "whole-program alias analysis: ".into()),
                    arg("Accesses", f.accesses.to_string()),
                    arg("String", " memory accesses to ".into()),
                    arg("Objects", f.objects.to_string()),
                    arg("String", " abstract objects, ".into()),
                    arg("NoAliasPairs", f.noalias_pairs.to_string()),
                    arg("String", " pairs of accesses that cannot alias; ".into()),
                    arg("Calls", f.calls.to_string()),
                    arg("String", " calls, ".into()),
                    arg("NoModRefPairs", f.nomodref_pairs.to_string()),
                    arg(
                        "String",
                        " pairs of a call and an access it cannot touch".into(),
                    ),
                ],
            });
        }
    }
    // Functions that got memory attributes from the whole program.
    for (function, added) in &outcome.alias.attributes {
        // The function's own location, as its other remarks have it. A local shared by
        // partitions is named `NAME.rld.M`, M its module; a name defined in several
        // modules (two static functions) has no one location.
        let (source, module) = match split_shared_name(function.as_bytes()) {
            Some(s) => (
                std::str::from_utf8(s.source).unwrap_or(function),
                Some(s.module),
            ),
            None => (function.as_str(), None),
        };
        let defs: Vec<GlobalId> = index
            .definitions(source)
            .into_iter()
            .filter(|id| module.is_none_or(|m| id.module == m))
            .collect();
        let debug_loc = match defs[..] {
            [id] => remark_loc(&index.global(id).debug_loc),
            _ => None,
        };
        out.push(Remark {
            kind: RemarkKind::Passed,
            pass: "wpa-aa".into(),
            name: "MemoryAttributes".into(),
            debug_loc,
            function: source.to_string(),
            hotness: None,
            args: vec![
                arg("String", "whole-program mod/ref: added ".into()),
                arg("Attributes", added.clone()),
            ],
        });
    }
    out
}
