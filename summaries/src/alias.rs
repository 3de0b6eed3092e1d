//! Whole-program alias analysis for LLVM's optimizer: two memory accesses that cannot touch
//! a common byte of a common abstract object cannot touch the same memory. The answers are
//! encoded per function in LLVM's scoped-noalias form (the backend writes the metadata):
//! a domain per function, scopes for the memory its accesses touch, and on every access
//! `!alias.scope` (the scopes it may touch) and `!noalias` (the function's other scopes).
//! LLVM's `scoped-noalias-aa`, part of its default AA pipeline, then answers NoAlias for any
//! two accesses of the function whose scope lists are disjoint.
//!
//! Scopes are byte ranges of objects, as the points-to solution's fields allow
//! ([`Extent`]): an access through a pointer to offset 8 of an object, 4 bytes wide,
//! touches bytes 8..12 of it; one into an array indexed at run time, everything from the
//! array's start on; one into a collapsed object, all of it. Per object the function's
//! accesses cut its bytes into pieces; pieces that the same accesses touch share a scope.
//!
//! Calls get lists too, from the whole-program mod/ref ([`crate::modref`]): every scope of
//! the objects the called functions may read or write, so LLVM knows which loads and stores
//! a call cannot interfere with (a call that touches none of the function's objects gets
//! only `!noalias`).
//!
//! An access through a pointer that may point to external memory may touch every escaped
//! object, all of it: its list names all escaped objects' scopes, and an extra scope for
//! escaped memory the function does not name. A function needing more than [`MAX_SCOPES`]
//! scopes gives the rarest ones one shared "other" scope, so lists stay short; then whole
//! objects (each object's pieces one group) are tried too, and whichever keeps more pairs
//! of accesses apart is kept: pieces are rarer than objects, and more of them overflow
//! (the largest functions of tramp3d-v4 kept a third fewer pairs apart with pieces). Accesses
//! whose pointer the analysis knows nothing about (no node, an empty set) get no metadata,
//! which LLVM reads as "may alias anything".

use crate::dead::Liveness;
use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::model::FunctionShape;
use crate::modref::{MemoryAttributes, ModRef, Touched};
use crate::pointsto::{Extent, PointsTo};
use crate::program::ProgramView;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// Most scopes per function (the last one is "other" when the function touches more
/// objects); one bit each in a [`ScopeMask`].
pub const MAX_SCOPES: usize = 128;

/// The last scope: "other", shared by the rarest groups when they do not all fit (and by
/// what only calls touch, when no scope is left for it).
const OTHER: usize = MAX_SCOPES - 1;

/// A set of a function's scopes, one bit each.
pub type ScopeMask = u128;

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
    pub instructions: Vec<(u32, ScopeMask)>,
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

/// Where one pointer may point: locations (object number and extent), or external memory
/// (every escaped object).
struct Touches {
    locations: Vec<(u32, Extent)>,
    external: bool,
}

/// Bytes `lo..hi` of an object (`hi` None: to its end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Bytes {
    object: u32,
    lo: u64,
    hi: Option<u64>,
}

/// What one access operand may touch: byte ranges, and escaped memory.
struct Access {
    bytes: Vec<Bytes>,
    external: bool,
}

impl Access {
    /// An access of `size` bytes (None: not known) through a pointer that points to `t`.
    fn new(t: &Touches, size: Option<u64>) -> Self {
        let bytes = t
            .locations
            .iter()
            .map(|&(object, extent)| match extent {
                Extent::At(lo) => Bytes {
                    object,
                    lo,
                    hi: size.and_then(|n| lo.checked_add(n.max(1))),
                },
                Extent::From(lo) => Bytes {
                    object,
                    lo,
                    hi: None,
                },
                Extent::Whole => Bytes {
                    object,
                    lo: 0,
                    hi: None,
                },
            })
            .collect();
        Access {
            bytes,
            external: t.external,
        }
    }
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
            let mut per_inst: BTreeMap<u32, Option<Vec<Access>>> = BTreeMap::new();
            for &i in &accesses {
                let a = &module.accesses[i];
                let touches = pts.node(m, a.ptr).and_then(|n| {
                    cache
                        .entry(n)
                        .or_insert_with(|| {
                            let mut locations = pts.node_extents(n);
                            let ext = locations.iter().any(|&(o, _)| o == external);
                            locations.retain(|&(o, _)| o != external);
                            (!locations.is_empty() || ext).then(|| {
                                std::rc::Rc::new(Touches {
                                    locations,
                                    external: ext,
                                })
                            })
                        })
                        .clone()
                });
                let slot = per_inst.entry(a.instruction).or_insert(Some(Vec::new()));
                match (slot.as_mut(), touches) {
                    (Some(list), Some(t)) => list.push(Access::new(&t, a.size)),
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
            let escaped = |o| pts.object_escaped(o);
            if let Some(f) = function_scopes(&escaped, function, shape, per_inst, &calls) {
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

/// `escaped(o)`: whether object `o` may have escaped (outside code may touch it).
fn function_scopes(
    escaped_object: &dyn Fn(u32) -> bool,
    function: u32,
    shape: &FunctionShape,
    per_inst: BTreeMap<u32, Option<Vec<Access>>>,
    calls: &[(u32, Cow<Touched>)],
) -> Option<FunctionScopes> {
    let known: Vec<(u32, Vec<Access>)> = per_inst
        .into_iter()
        .filter_map(|(i, t)| t.map(|t| (i, t)))
        .collect();
    let any_external = known.iter().flat_map(|(_, a)| a).any(|a| a.external);
    // The objects the accesses name, and the escaped ones among them (which an access to
    // external memory touches, all of them).
    let named: std::collections::BTreeSet<u32> = known
        .iter()
        .flat_map(|(_, a)| a)
        .flat_map(|a| a.bytes.iter().map(|b| b.object))
        .collect();
    if named.is_empty() && !any_external {
        return None;
    }
    let escaped: Vec<u32> = named
        .iter()
        .copied()
        .filter(|&o| escaped_object(o))
        .collect();
    // Each instruction's byte ranges.
    let ranges: Vec<Vec<Bytes>> = known
        .iter()
        .map(|(_, accesses)| {
            let mut r: Vec<Bytes> = accesses.iter().flat_map(|a| a.bytes.clone()).collect();
            if accesses.iter().any(|a| a.external) {
                r.extend(escaped.iter().map(|&object| Bytes {
                    object,
                    lo: 0,
                    hi: None,
                }));
            }
            r
        })
        .collect();
    let pieces = Pieces::cut(&ranges);
    // Each instruction's pieces.
    let covered: Vec<Vec<usize>> = ranges.iter().map(|r| pieces.covered(r).collect()).collect();
    // Per piece, the instructions touching it.
    let mut touching: Vec<Vec<u32>> = vec![Vec::new(); pieces.len()];
    for (k, ps) in covered.iter().enumerate() {
        for &p in ps {
            touching[p].push(k as u32);
        }
    }
    for t in &mut touching {
        t.dedup();
    }
    let mut chosen = Scoping::of(&touching, &pieces, &covered, &known, &escaped);
    if chosen.overflowed {
        // More groups of pieces than scopes: the rarest share one, and cutting objects
        // into pieces makes more, rarer groups. Whole objects may then keep more pairs
        // apart (tramp3d-v4's largest functions: a third more); the better of the two.
        let mut whole: Vec<Vec<u32>> = vec![Vec::new(); pieces.len()];
        for range in pieces.by_object() {
            let mut all: Vec<u32> = touching[range.clone()].concat();
            all.sort_unstable();
            all.dedup();
            for p in range {
                if !touching[p].is_empty() {
                    whole[p] = all.clone();
                }
            }
        }
        let coarser = Scoping::of(&whole, &pieces, &covered, &known, &escaped);
        if coarser.noalias_pairs > chosen.noalias_pairs {
            chosen = coarser;
        }
    }
    let Scoping {
        scopes,
        object_mask,
        external_mask,
        mut instructions,
        accesses,
        noalias_pairs,
        ..
    } = chosen;
    // Objects a call touches that no access of the function names (memory a callee
    // allocates and another reads, a local only callees fill and read): the function's
    // own accesses never touch them, but two calls may both, and the inliner copies a
    // call's lists onto the accesses it inlines. They share one scope of their own (the
    // "other" scope when every scope is taken).
    let hidden_needed = calls.iter().any(|(_, t)| {
        t.objects
            .iter()
            .any(|o| !object_mask.contains_key(o) && !escaped_object(*o))
    });
    let (scopes, hidden) = match hidden_needed {
        false => (scopes, OTHER as u32),
        true if scopes < MAX_SCOPES as u32 => (scopes + 1, scopes),
        true => (scopes, OTHER as u32),
    };
    let mut call_masks = Vec::with_capacity(calls.len());
    // Calls of one callee share its set: one mask per set.
    let mut masks: HashMap<*const Touched, ScopeMask> = HashMap::new();
    for (inst, t) in calls {
        let t: &Touched = t;
        let mask = *masks.entry(t as *const Touched).or_insert_with(|| {
            // An escaped object the function does not name is scope 0's.
            let mut mask = if t.external { external_mask } else { 0 };
            for o in &t.objects {
                match object_mask.get(o) {
                    Some(&m) => mask |= m,
                    None if escaped_object(*o) => mask |= 1,
                    None => mask |= 1 << hidden,
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
        objects: named.len(),
        accesses,
        noalias_pairs,
        calls,
        nomodref_pairs,
    })
}

/// How a function's pieces map to scopes, and what that gives its instructions.
struct Scoping {
    /// Scopes used (scope 0, escaped memory no access names, included).
    scopes: u32,
    /// More groups than scopes: the rarest share the last one ("other").
    overflowed: bool,
    /// Every scope of each object (what a call touching the object may touch).
    object_mask: HashMap<u32, ScopeMask>,
    /// What an access to external memory touches: scope 0 and every escaped object's.
    external_mask: ScopeMask,
    /// Each instruction's scopes.
    instructions: Vec<(u32, ScopeMask)>,
    accesses: usize,
    noalias_pairs: u64,
}

impl Scoping {
    /// Pieces with the same instructions touching them (`touching`, sorted) are one
    /// group; each group gets a scope, ranked by how many instructions touch it, the
    /// frequent first, until scopes run out.
    fn of(
        touching: &[Vec<u32>],
        pieces: &Pieces,
        covered: &[Vec<usize>],
        known: &[(u32, Vec<Access>)],
        escaped: &[u32],
    ) -> Scoping {
        let mut groups: BTreeMap<&[u32], Vec<usize>> = BTreeMap::new();
        for (p, t) in touching.iter().enumerate() {
            if !t.is_empty() {
                groups.entry(t).or_default().push(p);
            }
        }
        let mut ranked: Vec<(&[u32], Vec<usize>)> = groups.into_iter().collect();
        ranked.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1[0].cmp(&b.1[0])));
        // Scope 0: escaped memory no access names; then one per group; the last is
        // "other" when they do not all fit; after them, one for what only calls touch.
        let fits = ranked.len() < OTHER;
        let mut scope_of_piece: Vec<u32> = vec![0; pieces.len()];
        for (k, (_, ps)) in ranked.iter().enumerate() {
            let s = if fits || k < OTHER - 1 { k + 1 } else { OTHER };
            for &p in ps {
                scope_of_piece[p] = s as u32;
            }
        }
        let scopes = if fits { ranked.len() + 1 } else { MAX_SCOPES } as u32;
        let mut object_mask: HashMap<u32, ScopeMask> = HashMap::new();
        for (p, &s) in scope_of_piece.iter().enumerate() {
            if !touching[p].is_empty() {
                *object_mask.entry(pieces.object(p)).or_default() |= 1 << s;
            }
        }
        let external_mask = escaped
            .iter()
            .fold(1 as ScopeMask, |m, o| m | object_mask[o]);
        let mut accesses = 0;
        let mut instructions = Vec::with_capacity(known.len());
        for (k, (inst, acc)) in known.iter().enumerate() {
            accesses += acc.len();
            let mut mask: ScopeMask = 0;
            if acc.iter().any(|a| a.external) {
                mask |= external_mask;
            }
            for &p in &covered[k] {
                mask |= 1 << scope_of_piece[p];
            }
            instructions.push((*inst, mask));
        }
        let noalias_pairs = disjoint_pairs(&instructions);
        Scoping {
            scopes,
            overflowed: !fits,
            object_mask,
            external_mask,
            instructions,
            accesses,
            noalias_pairs,
        }
    }
}

/// The objects' bytes cut where any access's range starts or ends: every range is a run
/// of consecutive pieces, and two ranges overlap exactly when they share a piece.
struct Pieces {
    /// Per object (sorted), the offsets where its pieces start; the last piece runs to the
    /// object's end.
    cuts: BTreeMap<u32, Vec<u64>>,
    /// The first piece number of each object in `cuts`.
    first: HashMap<u32, usize>,
    /// Piece number → object.
    owner: Vec<u32>,
}

impl Pieces {
    fn cut(ranges: &[Vec<Bytes>]) -> Pieces {
        let mut cuts: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        for b in ranges.iter().flatten() {
            let c = cuts.entry(b.object).or_insert_with(|| vec![0]);
            c.push(b.lo);
            c.extend(b.hi);
        }
        let (mut first, mut owner) = (HashMap::new(), Vec::new());
        for (&o, c) in &mut cuts {
            c.sort_unstable();
            c.dedup();
            first.insert(o, owner.len());
            owner.extend(std::iter::repeat_n(o, c.len()));
        }
        Pieces { cuts, first, owner }
    }

    fn len(&self) -> usize {
        self.owner.len()
    }

    fn object(&self, piece: usize) -> u32 {
        self.owner[piece]
    }

    /// Each object's pieces (their numbers are consecutive).
    fn by_object(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.cuts
            .iter()
            .map(|(o, c)| self.first[o]..self.first[o] + c.len())
    }

    /// The pieces the ranges cover.
    fn covered<'a>(&'a self, ranges: &'a [Bytes]) -> impl Iterator<Item = usize> + 'a {
        ranges.iter().flat_map(move |b| {
            let c = &self.cuts[&b.object];
            let base = self.first[&b.object];
            // Cuts include every range's ends: lo is one, and so is hi.
            let from = c.partition_point(|&x| x < b.lo);
            let to = match b.hi {
                Some(hi) => c.partition_point(|&x| x < hi),
                None => c.len(),
            };
            (from..to).map(move |k| base + k)
        })
    }
}

/// Instruction counts by mask.
fn by_mask(instructions: &[(u32, ScopeMask)]) -> Vec<(ScopeMask, u64)> {
    let mut by_mask: HashMap<ScopeMask, u64> = HashMap::new();
    for &(_, m) in instructions {
        *by_mask.entry(m).or_default() += 1;
    }
    by_mask.into_iter().collect()
}

/// Pairs of instructions whose masks are disjoint (counted per distinct mask).
fn disjoint_pairs(instructions: &[(u32, ScopeMask)]) -> u64 {
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
fn crossing_disjoint_pairs(a: &[(u32, ScopeMask)], b: &[(u32, ScopeMask)]) -> u64 {
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

    /// The masks of one function whose instructions 0, 1, ... make the accesses given
    /// (location and size), with objects 10.. escaped.
    /// One access as a test writes it: its locations, whether it may touch external
    /// memory, its size.
    type TestAccess<'a> = (&'a [(u32, Extent)], bool, Option<u64>);

    fn masks(accesses: &[TestAccess]) -> Vec<ScopeMask> {
        let per_inst = accesses
            .iter()
            .enumerate()
            .map(|(i, &(locations, external, size))| {
                let t = Touches {
                    locations: locations.to_vec(),
                    external,
                };
                (i as u32, Some(vec![Access::new(&t, size)]))
            })
            .collect();
        let shape = FunctionShape {
            function: 0,
            instructions: 0,
            opcode_hash: 0,
        };
        let f = function_scopes(&|o| o >= 10, 0, &shape, per_inst, &[]).unwrap();
        f.instructions.iter().map(|&(_, m)| m).collect()
    }

    fn apart(m: &[ScopeMask], a: usize, b: usize) -> bool {
        m[a] & m[b] == 0
    }

    #[test]
    fn fields_of_one_object_are_told_apart_by_their_bytes() {
        use Extent::At;
        let m = masks(&[
            (&[(1, At(0))], false, Some(4)),
            (&[(1, At(8))], false, Some(8)),
            (&[(1, At(4))], false, Some(8)), // bytes 4..12: reaches into 8..16
            (&[(1, At(0))], false, None),    // a copy of unknown length
            (&[(2, At(8))], false, Some(8)), // another object
        ]);
        assert!(apart(&m, 0, 1) && apart(&m, 0, 2));
        assert!(!apart(&m, 1, 2));
        assert!(!apart(&m, 3, 0) && !apart(&m, 3, 1) && !apart(&m, 3, 2));
        assert!(apart(&m, 4, 1) && apart(&m, 4, 3));
    }

    /// A large function: 100 fields, each read by one instruction, get a scope each; past
    /// [`MAX_SCOPES`], the rarest share the last one.
    #[test]
    fn up_to_max_scopes_pieces_keep_their_own_scope() {
        use Extent::At;
        let fields =
            |n: u64| -> Vec<[(u32, Extent); 1]> { (0..n).map(|k| [(1, At(8 * k))]).collect() };
        let hundred = fields(100);
        let accesses: Vec<TestAccess> = hundred.iter().map(|l| (&l[..], false, Some(8))).collect();
        let m = masks(&accesses);
        assert!((0..100).all(|a| (0..a).all(|b| apart(&m, a, b))));
        let many = fields(200);
        let accesses: Vec<TestAccess> = many.iter().map(|l| (&l[..], false, Some(8))).collect();
        let m = masks(&accesses);
        let own = MAX_SCOPES - 2; // scope 0 is escaped memory, the last one "other"
        assert!((0..own).all(|a| (0..200).all(|b| a == b || apart(&m, a, b))));
        assert!(!apart(&m, own, 199), "the rarest share the last scope");
    }

    /// Past [`MAX_SCOPES`] groups of pieces, whole objects get the scopes when that keeps
    /// more pairs apart: 60 objects of 3 fields, each field read once, are 180 groups (54
    /// of them would share "other") but only 60 objects.
    #[test]
    fn whole_objects_take_the_scopes_when_pieces_overflow_them() {
        use Extent::At;
        let fields: Vec<[(u32, Extent); 1]> = (0..60u32)
            .flat_map(|o| (0..3).map(move |k| [(100 + o, At(8 * k))]))
            .collect();
        let accesses: Vec<TestAccess> = fields.iter().map(|l| (&l[..], false, Some(8))).collect();
        let m = masks(&accesses);
        let object = |i: usize| i / 3;
        for a in 0..180 {
            for b in 0..a {
                assert_eq!(apart(&m, a, b), object(a) != object(b), "{a} {b}");
            }
        }
        // One object's fields alone, far under the limit: each its own scope.
        let m = masks(&accesses[..3]);
        assert!(apart(&m, 0, 1) && apart(&m, 1, 2) && apart(&m, 0, 2));
    }

    #[test]
    fn an_array_reaches_to_the_end_of_its_object() {
        use Extent::{At, From, Whole};
        let m = masks(&[
            (&[(1, From(8))], false, Some(4)),
            (&[(1, At(4))], false, Some(4)),
            (&[(1, At(4000))], false, Some(4)), // past a trailing data[1]
            (&[(1, Whole)], false, Some(1)),
        ]);
        assert!(apart(&m, 0, 1));
        assert!(!apart(&m, 0, 2));
        assert!(!apart(&m, 3, 0) && !apart(&m, 3, 1) && !apart(&m, 3, 2));
    }

    #[test]
    fn external_memory_is_every_byte_of_every_escaped_object() {
        use Extent::At;
        let m = masks(&[
            (&[], true, Some(8)),
            (&[(10, At(64))], false, Some(8)), // escaped
            (&[(1, At(64))], false, Some(8)),  // not escaped
        ]);
        assert!(!apart(&m, 0, 1));
        assert!(apart(&m, 0, 2));
    }

    #[test]
    fn pieces_touched_by_the_same_accesses_share_a_scope() {
        use Extent::At;
        // Two accesses, each covering several fields the other does not: two scopes
        // (and scope 0, escaped memory no access names).
        let accesses: Vec<(u32, Option<Vec<Access>>)> = [(0u64, 16u64), (32, 48)]
            .iter()
            .enumerate()
            .map(|(i, &(lo, hi))| {
                let locations: Vec<(u32, Extent)> =
                    (lo..hi).step_by(4).map(|off| (1, At(off))).collect();
                let t = Touches {
                    locations,
                    external: false,
                };
                (i as u32, Some(vec![Access::new(&t, Some(4))]))
            })
            .collect();
        let shape = FunctionShape {
            function: 0,
            instructions: 0,
            opcode_hash: 0,
        };
        let f =
            function_scopes(&|_| false, 0, &shape, accesses.into_iter().collect(), &[]).unwrap();
        assert_eq!(f.scopes, 3);
        assert_eq!(f.noalias_pairs, 1);
    }

    #[test]
    fn pairs_count_disjoint_masks_only() {
        // Two accesses to scope 1, one to scope 2, one to both.
        let insts = [(0, 0b010), (1, 0b010), (2, 0b100), (3, 0b110)];
        assert_eq!(disjoint_pairs(&insts), 2);
    }
}
