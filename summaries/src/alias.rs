//! Whole-program alias analysis for LLVM's optimizer: two memory accesses whose pointers'
//! points-to sets share no abstract object cannot touch the same memory. The answers are
//! encoded per function in LLVM's scoped-noalias form (the backend writes the metadata):
//! a domain per function, a scope per abstract object its accesses touch, and on every
//! access `!alias.scope` (the objects it may touch) and `!noalias` (the function's other
//! objects). LLVM's `scoped-noalias-aa`, part of its default AA pipeline, then answers
//! NoAlias for any two accesses of the function whose scope lists are disjoint.
//!
//! Calls get lists too, from the whole-program mod/ref ([`crate::modref`]): the objects the
//! called functions may read or write, so LLVM knows which loads and stores a call cannot
//! interfere with (a call that touches none of the function's objects gets only `!noalias`).
//!
//! An access through a pointer that may point to external memory may touch every escaped
//! object: its list names all escaped objects the function touches, and an extra scope
//! for escaped memory the function does not name. A function touching more than
//! [`MAX_SCOPES`] objects gives the rarest ones one shared "other" scope, so lists stay
//! short. Accesses whose pointer the analysis knows nothing about (no node, an empty set)
//! get no metadata, which LLVM reads as "may alias anything".

use crate::dead::Liveness;
use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::model::FunctionShape;
use crate::modref::{MemoryAttributes, ModRef, Touched};
use crate::pointsto::PointsTo;
use crate::program::ProgramView;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// Most scopes per function (the last one is "other" when the function touches more
/// objects); one bit each in a `u64` mask.
pub const MAX_SCOPES: usize = 48;

/// The scoped-noalias annotation of one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionScopes {
    /// The function's global index in its module.
    pub function: u32,
    /// The shape its summary recorded: the backend annotates only a body that matches.
    pub shape: FunctionShape,
    /// Scopes 0..scopes are used.
    pub scopes: u32,
    /// Instruction position (in the function's instruction order) and the scopes it may
    /// touch, as a bit mask. `!noalias` is the complement within `0..scopes`.
    pub instructions: Vec<(u32, u64)>,
    /// Abstract objects the function's accesses touch (before folding into "other").
    pub objects: usize,
    /// Annotated memory accesses (an instruction with two pointer operands counts twice).
    pub accesses: usize,
    /// Pairs of annotated accesses with disjoint scope lists: what LLVM can now tell
    /// apart.
    pub noalias_pairs: u64,
    /// Annotated calls.
    pub calls: usize,
    /// Pairs of an annotated call and an access it cannot touch.
    pub nomodref_pairs: u64,
}

/// Memory attributes the whole program proves for a function the IR may not have yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionAttributes {
    /// The function's global index in its module.
    pub function: u32,
    /// The shape its summary recorded: attributes go only on a body that matches.
    pub shape: FunctionShape,
    pub attributes: MemoryAttributes,
}

/// The annotation of the whole program, per module.
#[derive(Debug, Default)]
pub struct AliasPlan {
    pub modules: Vec<Vec<FunctionScopes>>,
    /// Per module, function attributes.
    pub attributes: Vec<Vec<FunctionAttributes>>,
}

impl AliasPlan {
    pub fn functions(&self) -> usize {
        self.modules.iter().map(Vec::len).sum()
    }

    pub fn instructions(&self) -> usize {
        self.modules
            .iter()
            .flatten()
            .map(|f| f.instructions.len())
            .sum()
    }

    pub fn noalias_pairs(&self) -> u64 {
        self.modules.iter().flatten().map(|f| f.noalias_pairs).sum()
    }

    pub fn calls(&self) -> usize {
        self.modules.iter().flatten().map(|f| f.calls).sum()
    }

    pub fn nomodref_pairs(&self) -> u64 {
        self.modules
            .iter()
            .flatten()
            .map(|f| f.nomodref_pairs)
            .sum()
    }
}

/// What one access may touch: object numbers, or external memory (every escaped object).
struct Touches {
    objects: Vec<u32>,
    external: bool,
}

/// Builds the annotation from the points-to solution (and, for calls, the mod/ref one).
pub fn alias_plan(
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    pts: &PointsTo,
    modref: Option<&ModRef>,
) -> AliasPlan {
    let view = ProgramView::new(index, res, live);
    let external = pts.external_object();
    let mut plan = AliasPlan::default();
    for (m, module) in index.modules.iter().enumerate() {
        let m = m as u32;
        let shapes: HashMap<u32, &FunctionShape> =
            module.shapes.iter().map(|s| (s.function, s)).collect();
        let mut by_function: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, a) in module.accesses.iter().enumerate() {
            by_function.entry(a.function).or_default().push(i);
        }
        // Calls to annotate: not intrinsics (LLVM knows what they touch) nor calls that
        // are accesses already (memcpy).
        let mut calls_of: HashMap<u32, Vec<usize>> = HashMap::new();
        if modref.is_some() {
            let accesses: std::collections::HashSet<(u32, u32)> = module
                .accesses
                .iter()
                .map(|a| (a.function, a.instruction))
                .collect();
            for (i, cs) in module.call_sites.iter().enumerate() {
                let intrinsic = match cs.callee {
                    crate::model::Callee::Direct(g) => {
                        module.globals[g as usize].name.starts_with("llvm.")
                    }
                    crate::model::Callee::Indirect(_) => false,
                };
                if by_function.contains_key(&cs.caller)
                    && !intrinsic
                    && !accesses.contains(&(cs.caller, cs.instruction))
                {
                    calls_of.entry(cs.caller).or_default().push(i);
                }
            }
        }
        let mut cache: HashMap<u32, Option<std::rc::Rc<Touches>>> = HashMap::new();
        let mut functions = Vec::new();
        for (function, accesses) in by_function {
            let id = GlobalId {
                module: m,
                index: function,
            };
            // Only bodies the program runs as the analysis saw them (not a discarded
            // copy of a linkonce function, not dead code).
            if !view.tracked_definition(id) || !live.is_live(id) {
                continue;
            }
            let Some(&shape) = shapes.get(&function) else {
                continue;
            };
            // Per instruction, what its accesses touch; None: one of them is unknown.
            let mut per_inst: BTreeMap<u32, Option<Vec<std::rc::Rc<Touches>>>> = BTreeMap::new();
            for &i in &accesses {
                let a = &module.accesses[i];
                let touches = pts.node(m, a.ptr).and_then(|n| {
                    cache
                        .entry(n)
                        .or_insert_with(|| {
                            let objects = pts.node_objects(n);
                            let ext = objects.contains(&external);
                            let objects: Vec<u32> =
                                objects.into_iter().filter(|&o| o != external).collect();
                            (!objects.is_empty() || ext).then(|| {
                                std::rc::Rc::new(Touches {
                                    objects,
                                    external: ext,
                                })
                            })
                        })
                        .clone()
                });
                let slot = per_inst.entry(a.instruction).or_insert(Some(Vec::new()));
                match (slot.as_mut(), touches) {
                    (Some(list), Some(t)) => list.push(t),
                    _ => *slot = None,
                }
            }
            // What each call touches; calls that may touch anything stay unannotated.
            let calls: Vec<(u32, Cow<Touched>)> = calls_of
                .get(&function)
                .into_iter()
                .flatten()
                .filter_map(|&c| {
                    let t = modref?.call_touches(m, c as u32)?;
                    (!t.anything).then(|| (module.call_sites[c].instruction, t))
                })
                .collect();
            if let Some(f) = function_scopes(pts, function, shape, per_inst, &calls) {
                functions.push(f);
            }
        }
        plan.modules.push(functions);
    }
    plan.attributes = vec![Vec::new(); index.modules.len()];
    if let Some(modref) = modref {
        let shapes: Vec<HashMap<u32, FunctionShape>> = index
            .modules
            .iter()
            .map(|m| m.shapes.iter().map(|s| (s.function, *s)).collect())
            .collect();
        for (f, attributes) in modref.attributes() {
            // Only bodies whose summary can be checked against the IR.
            let Some(&shape) = shapes[f.module as usize].get(&f.index) else {
                continue;
            };
            plan.attributes[f.module as usize].push(FunctionAttributes {
                function: f.index,
                shape,
                attributes,
            });
        }
    }
    plan
}

fn function_scopes(
    pts: &PointsTo,
    function: u32,
    shape: &FunctionShape,
    per_inst: BTreeMap<u32, Option<Vec<std::rc::Rc<Touches>>>>,
    calls: &[(u32, Cow<Touched>)],
) -> Option<FunctionScopes> {
    let known: Vec<(u32, Vec<std::rc::Rc<Touches>>)> = per_inst
        .into_iter()
        .filter_map(|(i, t)| t.map(|t| (i, t)))
        .collect();
    // How often each object is touched, to give the frequent ones their own scopes.
    let mut count: HashMap<u32, usize> = HashMap::new();
    let mut any_external = false;
    for (_, ts) in &known {
        for t in ts {
            any_external |= t.external;
            for &o in &t.objects {
                *count.entry(o).or_default() += 1;
            }
        }
    }
    if count.is_empty() && !any_external {
        return None;
    }
    let objects = count.len();
    let escaped: Vec<u32> = {
        let mut e: Vec<u32> = count
            .keys()
            .copied()
            .filter(|&o| pts.object_escaped(o))
            .collect();
        e.sort_unstable();
        e
    };
    let mut ranked: Vec<(usize, u32)> = count.into_iter().map(|(o, c)| (c, o)).collect();
    ranked.sort_unstable_by(|a, b| b.cmp(a));
    // Scope 0: escaped memory no access names; then one per object; the last is "other"
    // when they do not all fit; after them, one for what only calls touch (below).
    let own = MAX_SCOPES - 1;
    let fits = ranked.len() < own;
    let mut scope_of: HashMap<u32, u32> = HashMap::new();
    for (k, &(_, o)) in ranked.iter().enumerate() {
        let s = if fits || k < own - 1 { k + 1 } else { own };
        scope_of.insert(o, s as u32);
    }
    let scopes = if fits { ranked.len() + 1 } else { MAX_SCOPES } as u32;
    let external_mask = escaped.iter().fold(1u64, |m, o| m | (1u64 << scope_of[o]));
    let mut accesses = 0;
    let mut instructions = Vec::with_capacity(known.len());
    for (inst, ts) in &known {
        let mut mask = 0u64;
        for t in ts {
            accesses += 1;
            if t.external {
                mask |= external_mask;
            }
            for o in &t.objects {
                mask |= 1u64 << scope_of[o];
            }
        }
        instructions.push((*inst, mask));
    }
    let noalias_pairs = disjoint_pairs(&instructions);
    // Objects a call touches that no access of the function names (memory a callee
    // allocates and another reads, a local only callees fill and read): the function's
    // own accesses never touch them, but two calls may both, and the inliner copies a
    // call's lists onto the accesses it inlines. They share one scope of their own (the
    // "other" scope when every scope is taken).
    let hidden_needed = calls.iter().any(|(_, t)| {
        t.objects
            .iter()
            .any(|o| !scope_of.contains_key(o) && !pts.object_escaped(*o))
    });
    let (scopes, hidden) = match hidden_needed {
        false => (scopes, own as u32),
        true if scopes < MAX_SCOPES as u32 => (scopes + 1, scopes),
        true => (scopes, own as u32),
    };
    let mut call_masks = Vec::with_capacity(calls.len());
    // Calls of one callee share its set: one mask per set.
    let mut masks: HashMap<*const Touched, u64> = HashMap::new();
    for (inst, t) in calls {
        let t: &Touched = t;
        let mask = *masks.entry(t as *const Touched).or_insert_with(|| {
            // An escaped object the function does not name is scope 0's.
            let mut mask = if t.external { external_mask } else { 0 };
            for o in &t.objects {
                match scope_of.get(o) {
                    Some(&s) => mask |= 1u64 << s,
                    None if pts.object_escaped(*o) => mask |= 1,
                    None => mask |= 1u64 << hidden,
                }
            }
            mask
        });
        call_masks.push((*inst, mask));
    }
    let nomodref_pairs = crossing_disjoint_pairs(&call_masks, &instructions);
    let calls = call_masks.len();
    instructions.extend(call_masks);
    instructions.sort_unstable();
    Some(FunctionScopes {
        function,
        shape: *shape,
        scopes,
        instructions,
        objects,
        accesses,
        noalias_pairs,
        calls,
        nomodref_pairs,
    })
}

/// Instruction counts by mask.
fn by_mask(instructions: &[(u32, u64)]) -> Vec<(u64, u64)> {
    let mut by_mask: HashMap<u64, u64> = HashMap::new();
    for &(_, m) in instructions {
        *by_mask.entry(m).or_default() += 1;
    }
    by_mask.into_iter().collect()
}

/// Pairs of instructions whose masks are disjoint (counted per distinct mask).
fn disjoint_pairs(instructions: &[(u32, u64)]) -> u64 {
    let masks = by_mask(instructions);
    let mut pairs = 0;
    for (i, &(a, ca)) in masks.iter().enumerate() {
        for &(b, cb) in &masks[i + 1..] {
            if a & b == 0 {
                pairs += ca * cb;
            }
        }
    }
    pairs
}

/// Pairs of one instruction from each list with disjoint masks.
fn crossing_disjoint_pairs(a: &[(u32, u64)], b: &[(u32, u64)]) -> u64 {
    let (a, b) = (by_mask(a), by_mask(b));
    let mut pairs = 0;
    for &(x, cx) in &a {
        for &(y, cy) in &b {
            if x & y == 0 {
                pairs += cx * cy;
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_count_disjoint_masks_only() {
        // Two accesses to scope 1, one to scope 2, one to both.
        let insts = [(0, 0b010), (1, 0b010), (2, 0b100), (3, 0b110)];
        assert_eq!(disjoint_pairs(&insts), 2);
    }
}
