//! Whole-program called-value propagation (CVP): for every indirect call site of every
//! module, the set of functions it may call, or Overdefined when that cannot be known.
//!
//! LLVM's `CalledValuePropagation` (seed 000, chapter 5.2) runs on one module with the
//! lattice Undefined / FunctionSet / Overdefined and tracks only SSA registers, returns and
//! the memory of local globals loaded or stored *directly*. rld runs on the combined index
//! of the whole LTO unit, after symbol resolution, and goes further:
//!
//! - **Pointers, not just functions.** A value is a set of locations: functions, and
//!   byte offsets inside global variables (field-sensitive; an offset computed at run time
//!   is `Unknown` and stands for the whole object). Loads and stores through any pointer
//!   whose targets are known read and write those cells, so tables of function pointers,
//!   struct fields, pointers to tables and values passed through memory are followed.
//! - **Interprocedural both ways.** A function's formal parameters receive the actuals of
//!   every call site that may call it (direct calls, and indirect sites whose set contains
//!   it); call results receive the returns of every possible callee.
//! - **Sound against the rest of the world.** Overdefined means "some location that has
//!   *escaped*" (become known to code outside the LTO unit or to instructions the summary
//!   does not model); the analysis keeps that meaning true:
//!   - a function *escapes* when its address is passed or returned to external code, stored
//!     to memory outside the unit or to a global visible outside, passed to `Escape`, ...;
//!     an escaped function may be called from anywhere, so its formals are Overdefined and
//!     what it returns escapes. So are functions visible outside the unit (not internal and
//!     not internalizable: see [`crate::internalize`]), non-prevailing or preemptible
//!     copies, constructors, destructors, ifunc resolvers and `llvm.used` members;
//!   - a variable escapes the same ways; outside code may then read it (its contents
//!     escape) and, unless it is constant, write it (every cell is Overdefined);
//!   - whenever a key goes from a set to Overdefined, or a set flows into a key that is
//!     already Overdefined, the locations of the set escape: a reader of an Overdefined key
//!     can no longer see them, so they must be covered by "escaped".
//!
//!   A call through an Overdefined pointer therefore needs no argument edges (whatever it
//!   calls has Overdefined formals already); its arguments escape and its result is
//!   Overdefined.
//!
//! The facts come from `lto/` (the contract is the docs of
//! [`ValueFact`](crate::model::ValueFact) plus the decisions below); the fixpoint is
//! computed by the generic [`crate::sparse`] solver with one rule per fact (roughly), so
//! the work is near-linear in the number of facts: sets are capped at
//! [`TRACKED_LOCATIONS_LIMIT`] locations (beyond that the value is Overdefined and its
//! members escape), and a rule runs again only when a key it read changed.
//!
//! Decisions a consumer should know:
//! - **Identity of a callee.** A function defined in bitcode is named by the [`GlobalId`] of
//!   its prevailing (or local) definition. A function defined outside the LTO unit (native
//!   object, shared library, or a bitcode copy that does not prevail) is a real target too
//!   and may be a member of a set: it is named by the first global of that name in the
//!   index ([`CombinedIndex::named`]), usually a declaration. Calling it makes the
//!   arguments escape and the result Overdefined.
//! - **External calls.** The LLVM memory intrinsics and libc's `memcpy`/`memmove` copy the
//!   source object's contents into the destination object (at unknown offsets);
//!   `memset` and a few side-effect-free intrinsics (`llvm.lifetime.*`, `llvm.dbg.*`, ...)
//!   neither capture nor write pointers. Every other external function captures its
//!   pointer arguments. This applies to direct calls; an indirect call that may reach an
//!   external function treats it as capturing.
//! - **Addresses.** `AddressOf` and `InitializerPointer` point at offset 0 of a variable (the
//!   IR side must not emit them for an address with a non-zero addend); an alias of a
//!   variable points at an unknown offset of its aliasee (an alias may have an addend).
//! - **Non-functions.** A set may also hold pointers into variables (calling them is
//!   undefined behaviour, they come from merging unrelated values); they are left out of
//!   the callee set. A set with no function is reported `Undefined` (null, or a call
//!   nothing reaches).
//! - **Missing facts.** A value no fact defines is Undefined (a null or integer constant):
//!   the IR side emits `Unknown` for everything else (including the callee of an inline-asm
//!   call), and a load or store of any type that may move a pointer (an `i64` load of a
//!   pointer field) as `Load`/`Store`, or else `Escape`s the pointer. As a safety net for
//!   summaries without
//!   facts (or with facts missing), a global a function references without an `AddressOf`
//!   in its module, one an initializer references without an `InitializerPointer`, and a
//!   function called directly without a call site for it, all escape.
//! - **Dead code.** Call sites in functions that are not live (dropped before LLVM sees
//!   them) are reported but pass nothing to their callees, and a callee set never names a
//!   dead bitcode function (every member exists in the module LLVM compiles).

use crate::dead::Liveness;
use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::model::ValueId;
use crate::sparse::{Context, FxBuildHasher, KeyId, Lattice, RuleId, Transfer};
use build::Builder;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

mod build;

/// The default of `--cvp-max-targets`. LLVM's own pass stops at 4
/// (`cvp-max-functions-per-value`); `!callees` with more targets still tells its analyses
/// what a call may do (promotion has its own, smaller limit, `--icp-max-targets`).
pub const DEFAULT_MAX_TARGETS: usize = 32;

/// The most locations one value tracks; a larger set is Overdefined (and its members
/// escape). This bounds the cost of every join independently of the program's size; it is
/// well above `--cvp-max-targets` because data pointers (a table reached through several
/// structs) share the same sets as the functions.
pub const TRACKED_LOCATIONS_LIMIT: usize = 64;

/// Options of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CvpConfig {
    /// `--cvp-max-targets`: a site with more possible callees is reported Overdefined.
    pub max_targets: usize,
}

impl Default for CvpConfig {
    fn default() -> Self {
        CvpConfig {
            max_targets: DEFAULT_MAX_TARGETS,
        }
    }
}

/// What an indirect call site may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CalleeSet {
    /// Nothing reaches the called pointer but null (or the call is unreachable).
    Undefined,
    /// Exactly these functions (see the module docs for how a function is named), at most
    /// `max_targets` of them.
    Functions(BTreeSet<GlobalId>),
    /// Unknown, or more than `max_targets`.
    Overdefined,
}

/// Counts, for statistics and `--time`-style reporting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CvpStats {
    pub indirect_sites: usize,
    /// Sites with a [`CalleeSet::Functions`] set.
    pub resolved: usize,
    pub overdefined: usize,
    pub undefined: usize,
    /// Rule evaluations by the solver (the work done).
    pub rule_visits: u64,
    /// Lattice keys created (the memory used).
    pub lattice_keys: usize,
}

/// The result of [`called_value_propagation`].
#[derive(Debug, Clone, Default)]
pub struct CvpResult {
    /// For every indirect call site of every module: (module, CallSite.id) -> the set.
    pub sites: BTreeMap<(u32, u32), CalleeSet>,
    /// Why a site is Overdefined (for remarks): a short reason per site.
    pub reasons: BTreeMap<(u32, u32), String>,
    pub stats: CvpStats,
}

/// Computes the possible callees of every indirect call site of the index. `live` is the
/// dead-symbol analysis of the same link (its roots say what is called from outside, and
/// dead callers pass nothing).
pub fn called_value_propagation(
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    cfg: &CvpConfig,
) -> CvpResult {
    let mut builder = Builder::new(index, res, live);
    builder.build();
    let Builder {
        mut solver,
        rules,
        sites,
        formals,
        tracked_body,
        escaped,
        ..
    } = builder;
    let mut transfer = CalledValueTransfer {
        program: Program {
            rules,
            sites,
            formals,
            tracked_body,
        },
        flows: FlowState {
            causes: HashMap::default(),
            escaped,
        },
    };
    solver.schedule_all(transfer.program.rules.len() as u32);
    solver.solve(&mut transfer);

    let mut result = CvpResult::default();
    for site in &transfer.program.sites {
        let at = (site.module, site.id);
        let set = match solver.value(site.callee) {
            PointsTo::Overdefined => {
                let why = transfer.flows.explain(index, site.callee);
                result.reasons.insert(at, why);
                CalleeSet::Overdefined
            }
            PointsTo::Locations(locations) => {
                // A dead body cannot be called: no live code takes its address (the
                // dead-symbol analysis follows every reference). It may still be in a set,
                // since facts are not attributed to functions and a dead function's store
                // counts like any other; LTO drops it, so the set must not name it.
                let functions: BTreeSet<GlobalId> = locations
                    .iter()
                    .filter_map(|l| match *l {
                        Location::Function(f) => Some(f),
                        Location::Memory { .. } => None,
                    })
                    .filter(|&f| !transfer.program.is_tracked_body(f) || live.is_live(f))
                    .collect();
                if functions.is_empty() {
                    CalleeSet::Undefined
                } else if functions.len() > cfg.max_targets {
                    let why = format!(
                        "{} possible callees, more than the limit of {} (--cvp-max-targets)",
                        functions.len(),
                        cfg.max_targets
                    );
                    result.reasons.insert(at, why);
                    CalleeSet::Overdefined
                } else {
                    CalleeSet::Functions(functions)
                }
            }
        };
        match set {
            CalleeSet::Undefined => result.stats.undefined += 1,
            CalleeSet::Functions(_) => result.stats.resolved += 1,
            CalleeSet::Overdefined => result.stats.overdefined += 1,
        }
        result.sites.insert(at, set);
    }
    result.stats.indirect_sites = transfer.program.sites.len();
    result.stats.rule_visits = solver.stats().rule_visits;
    result.stats.lattice_keys = solver.key_count();
    result
}

/// Sharpens CVP's answers with the whole-program points-to solution, which also follows
/// function pointers through stack and heap objects: a site CVP left Overdefined gets the
/// functions its callee value may point to, when that set is known (nothing external in
/// it) and within `cfg.max_targets`. Both analyses are sound, so either answer is a
/// complete set; dead bodies are left out as above.
pub fn refine_with_points_to(
    result: &mut CvpResult,
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    pts: &crate::pointsto::PointsTo,
    cfg: &CvpConfig,
) {
    use crate::model::{Callee, GlobalKind};
    use crate::pointsto::Object;
    let view = crate::program::ProgramView::new(index, res, live);
    for (&(m, id), set) in result.sites.iter_mut() {
        if !matches!(set, CalleeSet::Overdefined) {
            continue;
        }
        let Some(Callee::Indirect(v)) = index.modules[m as usize]
            .call_sites
            .get(id as usize)
            .map(|c| c.callee)
        else {
            continue;
        };
        let pointees = pts.pointees(m, v);
        if pointees.iter().any(|p| p.object == Object::External) {
            continue;
        }
        let functions: BTreeSet<GlobalId> = pointees
            .iter()
            .filter_map(|p| match p.object {
                Object::Global(g)
                    if matches!(
                        index.global(g).kind,
                        GlobalKind::Function | GlobalKind::IFunc
                    ) =>
                {
                    Some(g)
                }
                _ => None,
            })
            .filter(|&f| !view.tracked_definition(f) || live.is_live(f))
            .collect();
        if functions.is_empty() || functions.len() > cfg.max_targets {
            continue;
        }
        *set = CalleeSet::Functions(functions);
        result.reasons.remove(&(m, id));
        result.stats.overdefined -= 1;
        result.stats.resolved += 1;
    }
}

/// Where a pointer byte offset lands inside a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Offset {
    Known(i64),
    /// Computed at run time (an array index): any byte of the object.
    Unknown,
}

/// What a pointer may point to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Location {
    /// A function (its entry point), named as described in the module docs.
    Function(GlobalId),
    /// A byte inside a global variable's memory (the canonical definition of the name).
    Memory { var: GlobalId, offset: Offset },
}

/// The called-value lattice: a set of locations (empty = Undefined), or Overdefined.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PointsTo {
    /// Sorted, without duplicates. Shared: rules read values far more often than joins
    /// change them, and a read is then a reference count, not a copy.
    Locations(Rc<[Location]>),
    Overdefined,
}

impl PointsTo {
    fn is_overdefined(&self) -> bool {
        matches!(self, PointsTo::Overdefined)
    }

    fn is_bottom(&self) -> bool {
        matches!(self, PointsTo::Locations(l) if l.is_empty())
    }

    fn of(locations: Vec<Location>) -> Self {
        PointsTo::Locations(locations.into())
    }
}

/// Sorted union of two sorted, duplicate-free location lists.
fn union(a: &[Location], b: &[Location]) -> Vec<Location> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The keys of the problem. Memory is tracked per canonical variable: a cell per constant
/// byte offset, one cell for stores at unknown offsets, and the union of everything ever
/// stored in the object (what a load at an unknown offset reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum CvpKey {
    /// An SSA value of a module.
    Value {
        module: u32,
        value: ValueId,
    },
    /// A formal parameter of a function body: the join of the actuals of its known callers.
    Formal {
        function: GlobalId,
        index: u32,
    },
    /// The join of a function body's returned values.
    Return(GlobalId),
    Cell {
        var: GlobalId,
        offset: i64,
    },
    AnyOffset(GlobalId),
    WholeObject(GlobalId),
    /// What a `memcpy` at a call site moves.
    CopyBuffer {
        module: u32,
        site: u32,
    },
    /// Overdefined = the global has escaped: a function's callers are not all known; code
    /// outside the unit may read a variable (and, unless it is constant, write it).
    Escaped(GlobalId),
}

/// The lattice for [`crate::sparse::SparseSolver`]. The cap on set sizes is applied by the
/// transfer, which must make the members escape when it collapses a set.
struct CalledValueLattice {
    /// The bottom value, shared by every key that has not received anything.
    empty: Rc<[Location]>,
}

impl CalledValueLattice {
    fn new() -> Self {
        CalledValueLattice {
            empty: Rc::from([]),
        }
    }
}

impl Lattice for CalledValueLattice {
    type Key = CvpKey;
    type Value = PointsTo;

    fn bottom(&self) -> PointsTo {
        PointsTo::Locations(self.empty.clone())
    }

    fn overdefined(&self) -> PointsTo {
        PointsTo::Overdefined
    }

    fn is_overdefined(&self, value: &PointsTo) -> bool {
        value.is_overdefined()
    }

    fn join(&self, into: &mut PointsTo, from: &PointsTo) -> bool {
        match (&mut *into, from) {
            (PointsTo::Overdefined, _) => false,
            (_, PointsTo::Overdefined) => {
                *into = PointsTo::Overdefined;
                true
            }
            (PointsTo::Locations(a), PointsTo::Locations(b)) => {
                if b.iter().all(|l| a.binary_search(l).is_ok()) {
                    return false;
                }
                // The first value a key receives is shared, not copied: along a chain of
                // copies every key then holds the same set.
                *a = if a.is_empty() {
                    b.clone()
                } else {
                    union(a, b).into()
                };
                true
            }
        }
    }
}

/// Why a key became Overdefined, for the remarks. Recorded on the first transition only.
#[derive(Debug, Clone, Copy)]
enum Cause {
    /// An `Unknown` fact, or arithmetic on a function's address.
    Unmodelled,
    /// A formal parameter of a function that may be called from outside.
    CalledFromOutside(GlobalId),
    /// Returned by a function outside the LTO unit.
    ExternalResult(GlobalId),
    /// Returned by a call through an Overdefined pointer.
    UnresolvedCallResult,
    /// Loaded through an Overdefined pointer.
    UnknownPointerLoad,
    /// Read from a variable that outside code may write.
    ExternalMemory(GlobalId),
    /// More than [`TRACKED_LOCATIONS_LIMIT`] locations.
    TooManyLocations,
    /// Copied from another Overdefined key.
    Via(KeyId),
}

/// One rule of the problem: a fact (or a call site, or a variable) turned into a transfer
/// function over [`CvpKey`]s.
#[derive(Debug, Clone, Copy)]
enum Rule {
    Constant {
        dst: KeyId,
        location: Location,
    },
    Unknown {
        dst: KeyId,
        cause: Cause,
    },
    Copy {
        dst: KeyId,
        src: KeyId,
    },
    FieldAddr {
        dst: KeyId,
        base: KeyId,
        offset: Option<i64>,
    },
    /// `whole_object`: read every offset of the objects (a `memcpy` source).
    Load {
        dst: KeyId,
        ptr: KeyId,
        whole_object: bool,
    },
    Store {
        ptr: KeyId,
        value: KeyId,
        whole_object: bool,
    },
    Escape {
        value: KeyId,
    },
    Argument {
        function: GlobalId,
        escaped: KeyId,
        formal: KeyId,
        dst: KeyId,
    },
    Return {
        escaped: KeyId,
        value: KeyId,
        ret: KeyId,
    },
    IndirectCall {
        site: u32,
    },
    /// Applies the consequences of a variable's escape.
    Variable {
        var: GlobalId,
        escaped: KeyId,
        whole: KeyId,
        any_offset: KeyId,
        trusted_constant: bool,
    },
}

/// An indirect call site, with its actuals and results as keys.
#[derive(Debug)]
struct IndirectSite {
    module: u32,
    id: u32,
    callee: KeyId,
    arguments: Vec<(u32, KeyId)>,
    results: Vec<KeyId>,
    caller_live: bool,
}

/// The immutable side of the transfer.
struct Program {
    rules: Vec<Rule>,
    sites: Vec<IndirectSite>,
    formals: HashSet<(GlobalId, u32), FxBuildHasher>,
    tracked_body: Vec<Vec<bool>>,
}

impl Program {
    fn is_tracked_body(&self, id: GlobalId) -> bool {
        self.tracked_body[id.module as usize][id.index as usize]
    }
}

/// The mutable side of the transfer: how values flow, and why keys became Overdefined.
struct FlowState {
    causes: HashMap<KeyId, Cause, FxBuildHasher>,
    /// Per module, per global: its [`CvpKey::Escaped`] key (escaping is the most frequent
    /// key lookup, so it is a table rather than a hash).
    escaped: Vec<Vec<KeyId>>,
}

type Cx<'c, 's> = &'c mut Context<'s, CalledValueLattice>;

impl FlowState {
    /// Marks every location of `locations` escaped.
    fn escape(&self, cx: Cx, locations: &[Location]) {
        for l in locations {
            let (Location::Function(g) | Location::Memory { var: g, .. }) = *l;
            cx.mark_overdefined(self.escaped[g.module as usize][g.index as usize]);
        }
    }

    fn escape_value(&self, cx: Cx, value: &PointsTo) {
        if let PointsTo::Locations(l) = value {
            self.escape(cx, l);
        }
    }

    /// Joins `value` into `dst`, keeping Overdefined meaning "escaped" (module docs).
    fn flow(&mut self, cx: Cx, dst: KeyId, value: &PointsTo, cause: Cause) {
        let locations = match value {
            PointsTo::Overdefined => return self.raise(cx, dst, cause),
            PointsTo::Locations(l) if l.is_empty() => return,
            PointsTo::Locations(l) => l,
        };
        match cx.peek(dst) {
            PointsTo::Overdefined => self.escape(cx, locations),
            PointsTo::Locations(current) => {
                if current.len() + locations.len() > TRACKED_LOCATIONS_LIMIT {
                    let all = union(current, locations);
                    if all.len() > TRACKED_LOCATIONS_LIMIT {
                        self.escape(cx, &all);
                        cx.mark_overdefined(dst);
                        self.causes.entry(dst).or_insert(Cause::TooManyLocations);
                        return;
                    }
                }
                cx.join(dst, value);
            }
        }
    }

    /// Makes `dst` Overdefined; what it held escapes.
    fn raise(&mut self, cx: Cx, dst: KeyId, cause: Cause) {
        if let PointsTo::Locations(current) = cx.peek(dst) {
            let current = current.clone();
            self.escape(cx, &current);
            cx.mark_overdefined(dst);
            self.causes.entry(dst).or_insert(cause);
        }
    }

    /// The reason an Overdefined key is Overdefined, in words.
    fn explain(&self, index: &CombinedIndex, key: KeyId) -> String {
        let name = |id: GlobalId| index.get(id).map_or("?", |g| g.name.as_str()).to_string();
        let mut key = key;
        // Via chains are acyclic (a key records a cause once, from a key already
        // Overdefined); the bound only guards against a bug turning into a hang.
        for _ in 0..1_000_000 {
            return match self.causes.get(&key) {
                Some(Cause::Via(from)) => {
                    key = *from;
                    continue;
                }
                Some(Cause::Unmodelled) => {
                    "the callee comes from an instruction the summary does not model".to_string()
                }
                Some(Cause::CalledFromOutside(f)) => format!(
                    "the callee is a parameter of '{}', which may be called from outside the LTO unit",
                    name(*f)
                ),
                Some(Cause::ExternalResult(f)) => format!(
                    "the callee is returned by '{}', which is outside the LTO unit",
                    name(*f)
                ),
                Some(Cause::UnresolvedCallResult) => {
                    "the callee is returned by an indirect call whose callees are unknown"
                        .to_string()
                }
                Some(Cause::UnknownPointerLoad) => {
                    "the callee is loaded through a pointer the analysis cannot follow".to_string()
                }
                Some(Cause::ExternalMemory(v)) => format!(
                    "the callee is loaded from '{}', which code outside the LTO unit may write",
                    name(*v)
                ),
                Some(Cause::TooManyLocations) => format!(
                    "the callee is one of more than {TRACKED_LOCATIONS_LIMIT} tracked addresses"
                ),
                None => break,
            };
        }
        "the callee is unknown".to_string()
    }
}

struct CalledValueTransfer {
    program: Program,
    flows: FlowState,
}

impl Transfer<CalledValueLattice> for CalledValueTransfer {
    fn apply(&mut self, rule: RuleId, cx: &mut Context<'_, CalledValueLattice>) {
        let program = &self.program;
        let st = &mut self.flows;
        match program.rules[rule.0 as usize] {
            Rule::Constant { dst, location } => {
                st.flow(cx, dst, &PointsTo::of(vec![location]), Cause::Unmodelled);
            }
            Rule::Unknown { dst, cause } => st.raise(cx, dst, cause),
            Rule::Copy { dst, src } => {
                let v = cx.read(src).clone();
                st.flow(cx, dst, &v, Cause::Via(src));
            }
            Rule::FieldAddr { dst, base, offset } => {
                let PointsTo::Locations(locations) = cx.read(base).clone() else {
                    return st.raise(cx, dst, Cause::Via(base));
                };
                let mut moved = Vec::with_capacity(locations.len());
                let mut into_code = Vec::new();
                for &l in locations.iter() {
                    match l {
                        Location::Memory {
                            var,
                            offset: Offset::Known(o),
                        } => {
                            let at = offset
                                .and_then(|k| o.checked_add(k))
                                .map_or(Offset::Unknown, Offset::Known);
                            moved.push(Location::Memory { var, offset: at });
                        }
                        Location::Memory { .. } => moved.push(l),
                        Location::Function(_) if offset == Some(0) => moved.push(l),
                        // Arithmetic on a function's address: not a function any more, and
                        // the address went somewhere the analysis cannot follow.
                        Location::Function(_) => into_code.push(l),
                    }
                }
                moved.sort_unstable();
                moved.dedup();
                st.flow(cx, dst, &PointsTo::of(moved), Cause::Via(base));
                if !into_code.is_empty() {
                    st.escape(cx, &into_code);
                    st.raise(cx, dst, Cause::Unmodelled);
                }
            }
            Rule::Load {
                dst,
                ptr,
                whole_object,
            } => {
                let PointsTo::Locations(locations) = cx.read(ptr).clone() else {
                    return st.raise(cx, dst, Cause::UnknownPointerLoad);
                };
                for &l in locations.iter() {
                    // Reading code bytes yields no pointer worth following.
                    let Location::Memory { var, offset } = l else {
                        continue;
                    };
                    let cells = match (whole_object, offset) {
                        (false, Offset::Known(o)) => [
                            Some(CvpKey::Cell { var, offset: o }),
                            Some(CvpKey::AnyOffset(var)),
                        ],
                        _ => [Some(CvpKey::WholeObject(var)), None],
                    };
                    for cell in cells.into_iter().flatten() {
                        let k = cx.key(cell);
                        let v = cx.read(k).clone();
                        st.flow(cx, dst, &v, Cause::Via(k));
                    }
                }
            }
            Rule::Store {
                ptr,
                value,
                whole_object,
            } => {
                let v = cx.read(value).clone();
                let p = cx.read(ptr).clone();
                if v.is_bottom() {
                    return;
                }
                let PointsTo::Locations(locations) = p else {
                    // Written to memory nobody tracks: outside code may find it there.
                    return st.escape_value(cx, &v);
                };
                for &l in locations.iter() {
                    let Location::Memory { var, offset } = l else {
                        continue;
                    };
                    let cell = match (whole_object, offset) {
                        (false, Offset::Known(o)) => CvpKey::Cell { var, offset: o },
                        _ => CvpKey::AnyOffset(var),
                    };
                    // An escaped, writable variable's object is Overdefined, so this flow
                    // makes the value escape too.
                    for key in [cell, CvpKey::WholeObject(var)] {
                        let k = cx.key(key);
                        st.flow(cx, k, &v, Cause::Via(value));
                    }
                }
            }
            Rule::Escape { value } => {
                let v = cx.read(value).clone();
                st.escape_value(cx, &v);
            }
            Rule::Argument {
                function,
                escaped,
                formal,
                dst,
            } => {
                if cx.read(escaped).is_overdefined() {
                    st.raise(cx, dst, Cause::CalledFromOutside(function));
                }
                // Even then the known callers' actuals flow in: the parameter is
                // Overdefined, so they escape (the function may call them where the
                // analysis cannot see).
                let v = cx.read(formal).clone();
                st.flow(cx, dst, &v, Cause::Via(formal));
            }
            Rule::Return {
                escaped,
                value,
                ret,
            } => {
                let v = cx.read(value).clone();
                st.flow(cx, ret, &v, Cause::Via(value));
                // Returned to a caller outside the unit.
                if cx.read(escaped).is_overdefined() {
                    st.escape_value(cx, &v);
                }
            }
            Rule::IndirectCall { site } => {
                indirect_call(program, st, cx, &program.sites[site as usize]);
            }
            Rule::Variable {
                var,
                escaped,
                whole,
                any_offset,
                trusted_constant,
            } => {
                if !cx.read(escaped).is_overdefined() {
                    return;
                }
                let contents = cx.read(whole).clone();
                st.escape_value(cx, &contents);
                if !trusted_constant {
                    st.raise(cx, any_offset, Cause::ExternalMemory(var));
                    st.raise(cx, whole, Cause::ExternalMemory(var));
                }
            }
        }
    }
}

/// Passes the actuals of an indirect call to every possible callee and collects their
/// returns.
fn indirect_call(program: &Program, st: &mut FlowState, cx: Cx, site: &IndirectSite) {
    let escape_arguments = |st: &FlowState, cx: Cx| {
        if site.caller_live {
            for &(_, v) in &site.arguments {
                let value = cx.read(v).clone();
                st.escape_value(cx, &value);
            }
        }
    };
    let PointsTo::Locations(callees) = cx.read(site.callee).clone() else {
        // Whatever it calls has escaped (Overdefined formals): nothing to pass, but the
        // actuals reach code the analysis cannot see.
        escape_arguments(st, cx);
        for &dst in &site.results {
            st.raise(cx, dst, Cause::UnresolvedCallResult);
        }
        return;
    };
    for &l in callees.iter() {
        let Location::Function(f) = l else {
            continue;
        };
        if !program.is_tracked_body(f) {
            escape_arguments(st, cx);
            for &dst in &site.results {
                st.raise(cx, dst, Cause::ExternalResult(f));
            }
            continue;
        }
        if site.caller_live {
            for &(i, v) in &site.arguments {
                let value = cx.read(v).clone();
                if program.formals.contains(&(f, i)) {
                    let formal = cx.key(CvpKey::Formal {
                        function: f,
                        index: i,
                    });
                    st.flow(cx, formal, &value, Cause::Via(v));
                } else {
                    st.escape_value(cx, &value);
                }
            }
        }
        if !site.results.is_empty() {
            let ret = cx.key(CvpKey::Return(f));
            let value = cx.read(ret).clone();
            for &dst in &site.results {
                st.flow(cx, dst, &value, Cause::Via(ret));
            }
        }
    }
}

#[cfg(test)]
mod tests;
