//! Whole-program called-value propagation (CVP): for every indirect call site of every
//! module, the set of functions it may call, or Overdefined when that cannot be known.
//!
//! LLVM's `CalledValuePropagation` (seed 000, chapter 5.2) runs on one module with the
//! lattice Undefined / FunctionSet / Overdefined and tracks only SSA registers, returns and
//! the memory of local globals loaded or stored *directly*. rld runs on the combined index
//! of the whole LTO unit, after symbol resolution, and goes further:
//!
//! - **Pointers, not just functions.** A value is a set of [`Location`]s: functions, and
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
//! The facts come from `lto/` (the contract is [`ValueFact`]'s docs plus the decisions below);
//! the fixpoint is computed by the generic [`crate::sparse`] solver with one rule per fact
//! (roughly), so the work is near-linear in the number of facts: sets are capped at
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
//!   the IR side emits `Unknown` for everything else. As a safety net for summaries without
//!   facts (or with facts missing), a global a function references without an `AddressOf`
//!   in its module, one an initializer references without an `InitializerPointer`, and a
//!   function called directly without a call site for it, all escape.
//! - **Dead code.** Call sites in functions that are not live (dropped before LLVM sees
//!   them) are reported but pass nothing to their callees.

use crate::dead::{LiveReason, Liveness};
use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::model::{Callee, GlobalFlags, GlobalKind, Linkage, ValueFact, ValueId};
use crate::sparse::{Context, FxBuildHasher, KeyId, Lattice, RuleId, SparseSolver, Transfer};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The default of `--cvp-max-targets`, LLVM's `cvp-max-functions-per-value`.
pub const DEFAULT_MAX_TARGETS: usize = 4;

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
                let functions: BTreeSet<GlobalId> = locations
                    .iter()
                    .filter_map(|l| match *l {
                        Location::Function(f) => Some(f),
                        Location::Memory { .. } => None,
                    })
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
    /// Sorted, without duplicates.
    Locations(Vec<Location>),
    Overdefined,
}

impl PointsTo {
    fn is_overdefined(&self) -> bool {
        matches!(self, PointsTo::Overdefined)
    }

    fn is_bottom(&self) -> bool {
        matches!(self, PointsTo::Locations(l) if l.is_empty())
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
    Value { module: u32, value: ValueId },
    /// A formal parameter of a function body: the join of the actuals of its known callers.
    Formal { function: GlobalId, index: u32 },
    /// The join of a function body's returned values.
    Return(GlobalId),
    Cell { var: GlobalId, offset: i64 },
    AnyOffset(GlobalId),
    WholeObject(GlobalId),
    /// What a `memcpy` at a call site moves.
    CopyBuffer { module: u32, site: u32 },
    /// Overdefined = the function's callers are not all known.
    FunctionEscaped(GlobalId),
    /// Overdefined = code outside the unit may read (and, unless constant, write) it.
    VariableEscaped(GlobalId),
}

/// The lattice for [`SparseSolver`]; the cap on set sizes is applied by the transfer, which
/// must make the members escape when it collapses a set.
struct CalledValueLattice;

impl Lattice for CalledValueLattice {
    type Key = CvpKey;
    type Value = PointsTo;

    fn bottom(&self) -> PointsTo {
        PointsTo::Locations(Vec::new())
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
                *a = union(a, b);
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

/// What a global reference denotes in the linked program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Function(GlobalId),
    Variable { var: GlobalId, offset: Offset },
    /// Nothing the analysis can name (an alias cycle, an index out of range).
    Unknown,
}

/// How an external function treats its arguments (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExternalEffect {
    /// Copies the object argument 1 points into the one argument 0 points to.
    MemoryCopy { returns_destination: bool },
    /// Neither captures nor writes pointers.
    NoCapture { returns_first: bool },
    /// Anything: pointer arguments escape.
    Captures,
}

fn external_effect(name: &str) -> ExternalEffect {
    match name {
        "memcpy" | "memmove" => {
            return ExternalEffect::MemoryCopy {
                returns_destination: true,
            }
        }
        "memset" => {
            return ExternalEffect::NoCapture {
                returns_first: true,
            }
        }
        _ => {}
    }
    let Some(intrinsic) = name.strip_prefix("llvm.") else {
        return ExternalEffect::Captures;
    };
    let family = |prefixes: &[&str]| {
        prefixes
            .iter()
            .any(|p| intrinsic == *p || intrinsic.starts_with(&format!("{p}.")))
    };
    if family(&["memcpy", "memcpy.inline", "memmove"]) {
        ExternalEffect::MemoryCopy {
            returns_destination: false,
        }
    } else if family(&[
        "launder.invariant.group",
        "strip.invariant.group",
        "ptrmask",
        "ssa.copy",
        "expect",
    ]) {
        ExternalEffect::NoCapture {
            returns_first: true,
        }
    } else if family(&[
        "memset",
        "memset.inline",
        "lifetime.start",
        "lifetime.end",
        "dbg",
        "assume",
        "prefetch",
        "invariant.start",
        "invariant.end",
        "va_start",
        "va_end",
        "va_copy",
        "stacksave",
        "stackrestore",
        "donothing",
        "sideeffect",
        "trap",
        "debugtrap",
        "objectsize",
        "is.constant",
        "experimental.noalias.scope.decl",
        "pseudoprobe",
        "var.annotation",
    ]) {
        ExternalEffect::NoCapture {
            returns_first: false,
        }
    } else {
        ExternalEffect::Captures
    }
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

/// Turns the index into rules and seeds.
struct Builder<'a> {
    index: &'a CombinedIndex,
    res: &'a Resolutions,
    live: &'a Liveness,
    solver: SparseSolver<CalledValueLattice>,
    /// Per module, per global: what a reference to it denotes (filled on demand).
    targets: Vec<Vec<Option<Target>>>,
    rules: Vec<Rule>,
    sites: Vec<IndirectSite>,
    /// (function body, parameter index) pairs that some `Argument` fact reads.
    formals: HashSet<(GlobalId, u32), FxBuildHasher>,
    /// Per module, per global: a function body the program runs when the name is called.
    tracked_body: Vec<Vec<bool>>,
    /// Canonical variables some location points into.
    variables: BTreeSet<GlobalId>,
    escaped_functions: Vec<GlobalId>,
}

impl<'a> Builder<'a> {
    fn new(index: &'a CombinedIndex, res: &'a Resolutions, live: &'a Liveness) -> Self {
        let mut builder = Builder {
            index,
            res,
            live,
            solver: SparseSolver::new(CalledValueLattice),
            targets: index
                .modules
                .iter()
                .map(|m| vec![None; m.globals.len()])
                .collect(),
            rules: Vec::new(),
            sites: Vec::new(),
            formals: HashSet::default(),
            tracked_body: Vec::new(),
            variables: BTreeSet::new(),
            escaped_functions: Vec::new(),
        };
        builder.tracked_body = index
            .modules
            .iter()
            .enumerate()
            .map(|(m, module)| {
                (0..module.globals.len())
                    .map(|i| {
                        let id = GlobalId {
                            module: m as u32,
                            index: i as u32,
                        };
                        index.global(id).kind == GlobalKind::Function
                            && builder.tracked_definition(id)
                    })
                    .collect()
            })
            .collect();
        builder
    }

    /// A definition whose body or initializer is the one the program uses for its name:
    /// local, or prevailing and not replaceable at run time.
    fn tracked_definition(&self, id: GlobalId) -> bool {
        let g = self.index.global(id);
        let r = self.res.get(id);
        g.is_definition()
            && g.linkage != Linkage::AvailableExternally
            && (g.linkage.is_local() || (r.prevailing && !r.preemptible && !r.linker_redefined))
    }

    /// Code outside the LTO unit can name it: the complement of "local or internalizable"
    /// (the rules of [`crate::internalize`], with the linker's root names read from `live`).
    fn visible_outside(&self, id: GlobalId) -> bool {
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
    fn closed(&self, id: GlobalId) -> bool {
        self.tracked_definition(id) && !self.visible_outside(id)
    }

    fn is_tracked_body(&self, id: GlobalId) -> bool {
        self.tracked_body[id.module as usize][id.index as usize]
    }

    /// What the reference `(module, index)` denotes (cached).
    fn target(&mut self, module: u32, index: u32) -> Target {
        let cached = self
            .targets
            .get(module as usize)
            .and_then(|m| m.get(index as usize))
            .copied();
        match cached {
            None => Target::Unknown,
            Some(Some(t)) => t,
            Some(None) => {
                let t = self.resolve(module, index, 0);
                self.targets[module as usize][index as usize] = Some(t);
                t
            }
        }
    }

    fn resolve(&self, module: u32, index: u32, depth: u32) -> Target {
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
            // Defined outside the LTO unit: one name for it across all modules.
            let canonical = self.index.named(&g.name).first().copied().unwrap_or(id);
            return match g.kind {
                GlobalKind::Function | GlobalKind::IFunc => Target::Function(canonical),
                GlobalKind::Variable => Target::Variable {
                    var: canonical,
                    offset: Offset::Known(0),
                },
                GlobalKind::Alias => match g.aliasee.map(|a| self.resolve(module, a, depth + 1)) {
                    Some(Target::Function(_)) => Target::Function(canonical),
                    Some(Target::Variable { .. }) => Target::Variable {
                        var: canonical,
                        offset: Offset::Unknown,
                    },
                    _ => Target::Unknown,
                },
            };
        };
        let d = self.index.global(def);
        match d.kind {
            // An ifunc is named like a function; calls through it are external calls (its
            // implementation is whatever the resolver returns at load time).
            GlobalKind::Function | GlobalKind::IFunc => Target::Function(def),
            GlobalKind::Variable => Target::Variable {
                var: def,
                offset: Offset::Known(0),
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
                            offset: Offset::Known(0),
                        },
                        _ => Target::Function(own),
                    },
                    _ => self.resolve(def.module, a, depth + 1),
                };
                match aliased {
                    Target::Variable { var, .. } => Target::Variable {
                        var,
                        offset: Offset::Unknown,
                    },
                    other => other,
                }
            }
        }
    }

    fn value(&mut self, module: u32, value: ValueId) -> KeyId {
        self.solver.key(CvpKey::Value { module, value })
    }

    fn push(&mut self, rule: Rule) {
        self.rules.push(rule);
    }

    /// The location of a target, remembering the variables met.
    fn location(&mut self, target: Target) -> Option<Location> {
        match target {
            Target::Function(f) => Some(Location::Function(f)),
            Target::Variable { var, offset } => {
                self.variables.insert(var);
                Some(Location::Memory { var, offset })
            }
            Target::Unknown => None,
        }
    }

    /// Seeds the escape of what `target` denotes.
    fn escape_target(&mut self, target: Target) {
        match target {
            Target::Function(f) => self.escaped_functions.push(f),
            Target::Variable { var, .. } => {
                self.variables.insert(var);
                let k = self.solver.key(CvpKey::VariableEscaped(var));
                self.solver.mark_overdefined(k);
            }
            Target::Unknown => {}
        }
    }

    fn build(&mut self) {
        let index = self.index;
        // Formals first: call sites need to know which parameters a body reads.
        for (m, module) in index.modules.iter().enumerate() {
            for fact in &module.facts {
                if let ValueFact::Argument {
                    function, index: i, ..
                } = *fact
                {
                    let body = GlobalId {
                        module: m as u32,
                        index: function,
                    };
                    self.formals.insert((body, i));
                }
            }
        }
        for m in 0..index.modules.len() as u32 {
            self.module_facts(m);
            self.module_initializers(m);
            self.module_call_sites(m);
            self.module_safety_net(m);
        }
        self.outside_callers();
        self.variable_rules();
    }

    fn module_facts(&mut self, m: u32) {
        let module = &self.index.modules[m as usize];
        for fact in &module.facts {
            match *fact {
                ValueFact::AddressOf { dst, global } => {
                    let dst = self.value(m, dst);
                    let target = self.target(m, global);
                    let rule = match self.location(target) {
                        Some(location) => Rule::Constant { dst, location },
                        None => Rule::Unknown {
                            dst,
                            cause: Cause::Unmodelled,
                        },
                    };
                    self.push(rule);
                }
                ValueFact::Copy { dst, src } => {
                    let (dst, src) = (self.value(m, dst), self.value(m, src));
                    self.push(Rule::Copy { dst, src });
                }
                ValueFact::FieldAddr { dst, base, offset } => {
                    let (dst, base) = (self.value(m, dst), self.value(m, base));
                    self.push(Rule::FieldAddr { dst, base, offset });
                }
                ValueFact::Load { dst, ptr } => {
                    let (dst, ptr) = (self.value(m, dst), self.value(m, ptr));
                    self.push(Rule::Load {
                        dst,
                        ptr,
                        whole_object: false,
                    });
                }
                ValueFact::Store { ptr, value } => {
                    let (ptr, value) = (self.value(m, ptr), self.value(m, value));
                    self.push(Rule::Store {
                        ptr,
                        value,
                        whole_object: false,
                    });
                }
                ValueFact::Argument {
                    function,
                    index,
                    dst,
                } => {
                    let body = GlobalId {
                        module: m,
                        index: function,
                    };
                    let rule = Rule::Argument {
                        function: body,
                        escaped: self.solver.key(CvpKey::FunctionEscaped(body)),
                        formal: self.solver.key(CvpKey::Formal {
                            function: body,
                            index,
                        }),
                        dst: self.value(m, dst),
                    };
                    self.push(rule);
                }
                // Collected per call site by `module_call_sites`.
                ValueFact::CallArgument { .. } | ValueFact::CallResult { .. } => {}
                ValueFact::Return { function, value } => {
                    let body = GlobalId {
                        module: m,
                        index: function,
                    };
                    let rule = Rule::Return {
                        escaped: self.solver.key(CvpKey::FunctionEscaped(body)),
                        value: self.value(m, value),
                        ret: self.solver.key(CvpKey::Return(body)),
                    };
                    self.push(rule);
                }
                ValueFact::Escape { value } => {
                    let value = self.value(m, value);
                    self.push(Rule::Escape { value });
                }
                ValueFact::Unknown { dst } => {
                    let dst = self.value(m, dst);
                    self.push(Rule::Unknown {
                        dst,
                        cause: Cause::Unmodelled,
                    });
                }
            }
        }
    }

    fn module_initializers(&mut self, m: u32) {
        let module = &self.index.modules[m as usize];
        for init in &module.initializers {
            let own = GlobalId {
                module: m,
                index: init.global,
            };
            let target = self.target(m, init.target);
            match self.target(m, init.global) {
                Target::Variable { var, .. } if var == own => {
                    // The initializer of the memory the program uses for this name (even
                    // if outside code may also see it: then the contents escape).
                    let whole = self.solver.key(CvpKey::WholeObject(own));
                    let cell = self.solver.key(CvpKey::Cell {
                        var: own,
                        // Offsets are byte positions; the wrap of offsets beyond i64 keeps
                        // them distinct, which is all a cell needs.
                        offset: init.offset as i64,
                    });
                    self.variables.insert(own);
                    for dst in [cell, whole] {
                        let rule = match self.location(target) {
                            Some(location) => Rule::Constant { dst, location },
                            None => Rule::Unknown {
                                dst,
                                cause: Cause::Unmodelled,
                            },
                        };
                        self.push(rule);
                    }
                }
                Target::Variable { var, .. } if !self.tracked_definition(var) => {
                    // A copy of memory defined outside the unit (a linkonce_odr table whose
                    // native twin prevails): the twin holds the same addresses, out of
                    // sight.
                    self.escape_target(target);
                }
                // Another bitcode copy prevails and carries its own initializer.
                _ => {}
            }
        }
    }

    fn module_call_sites(&mut self, m: u32) {
        let module = &self.index.modules[m as usize];
        let n = module.call_sites.len();
        let mut arguments: Vec<Vec<(u32, KeyId)>> = vec![Vec::new(); n];
        let mut results: Vec<Vec<KeyId>> = vec![Vec::new(); n];
        for fact in &module.facts {
            match *fact {
                ValueFact::CallArgument { call, index, value } if (call as usize) < n => {
                    let value = self.value(m, value);
                    arguments[call as usize].push((index, value));
                }
                ValueFact::CallResult { call, dst } if (call as usize) < n => {
                    let dst = self.value(m, dst);
                    results[call as usize].push(dst);
                }
                _ => {}
            }
        }
        for (position, site) in module.call_sites.iter().enumerate() {
            let caller_live = self.live.is_live(GlobalId {
                module: m,
                index: site.caller,
            });
            let args = std::mem::take(&mut arguments[position]);
            let res = std::mem::take(&mut results[position]);
            match site.callee {
                Callee::Direct(callee) => {
                    let target = self.target(m, callee);
                    self.direct_call(m, position as u32, target, caller_live, &args, &res);
                }
                Callee::Indirect(callee) => {
                    let callee = self.value(m, callee);
                    self.sites.push(IndirectSite {
                        module: m,
                        id: site.id,
                        callee,
                        arguments: args,
                        results: res,
                        caller_live,
                    });
                    let site = (self.sites.len() - 1) as u32;
                    self.push(Rule::IndirectCall { site });
                }
            }
        }
    }

    /// A direct call is known when the summary is read, so it becomes plain copies.
    fn direct_call(
        &mut self,
        m: u32,
        position: u32,
        target: Target,
        caller_live: bool,
        arguments: &[(u32, KeyId)],
        results: &[KeyId],
    ) {
        let f = match target {
            Target::Function(f) => f,
            // Calling a variable or something unnamed: as good as an external call.
            Target::Variable { .. } | Target::Unknown => {
                self.external_call(ExternalEffect::Captures, None, caller_live, arguments);
                for &dst in results {
                    self.push(Rule::Unknown {
                        dst,
                        cause: Cause::Unmodelled,
                    });
                }
                return;
            }
        };
        if self.is_tracked_body(f) {
            if caller_live {
                for &(i, value) in arguments {
                    if self.formals.contains(&(f, i)) {
                        let dst = self.solver.key(CvpKey::Formal {
                            function: f,
                            index: i,
                        });
                        self.push(Rule::Copy { dst, src: value });
                    } else {
                        // No parameter reads it: a variadic argument, read through va_arg
                        // (which the summary does not model).
                        self.push(Rule::Escape { value });
                    }
                }
            }
            let ret = self.solver.key(CvpKey::Return(f));
            for &dst in results {
                self.push(Rule::Copy { dst, src: ret });
            }
            return;
        }
        let effect = external_effect(&self.index.global(f).name);
        let buffer = self.solver.key(CvpKey::CopyBuffer {
            module: m,
            site: position,
        });
        self.external_call(effect, Some(buffer), caller_live, arguments);
        for &dst in results {
            let returns_first = matches!(
                effect,
                ExternalEffect::MemoryCopy {
                    returns_destination: true
                } | ExternalEffect::NoCapture {
                    returns_first: true
                }
            );
            if returns_first {
                for &(i, value) in arguments {
                    if i == 0 {
                        self.push(Rule::Copy { dst, src: value });
                    }
                }
            } else {
                self.push(Rule::Unknown {
                    dst,
                    cause: Cause::ExternalResult(f),
                });
            }
        }
    }

    /// The arguments' side of a call to a function outside the unit.
    fn external_call(
        &mut self,
        effect: ExternalEffect,
        buffer: Option<KeyId>,
        caller_live: bool,
        arguments: &[(u32, KeyId)],
    ) {
        if !caller_live {
            return;
        }
        for &(i, value) in arguments {
            let rule = match (effect, buffer, i) {
                (ExternalEffect::MemoryCopy { .. }, Some(buffer), 0) => Rule::Store {
                    ptr: value,
                    value: buffer,
                    whole_object: true,
                },
                (ExternalEffect::MemoryCopy { .. }, Some(buffer), 1) => Rule::Load {
                    dst: buffer,
                    ptr: value,
                    whole_object: true,
                },
                // The length of a copy, the value of a memset, a size for objectsize.
                (ExternalEffect::MemoryCopy { .. } | ExternalEffect::NoCapture { .. }, _, _) => {
                    continue
                }
                (ExternalEffect::Captures, _, _) => Rule::Escape { value },
            };
            self.push(rule);
        }
    }

    /// References the facts do not account for (see "Missing facts" in the module docs).
    fn module_safety_net(&mut self, m: u32) {
        let module = &self.index.modules[m as usize];
        let addressed: HashSet<u32, FxBuildHasher> = module
            .facts
            .iter()
            .filter_map(|f| match *f {
                ValueFact::AddressOf { global, .. } => Some(global),
                _ => None,
            })
            .collect();
        let initialized: HashSet<(u32, u32), FxBuildHasher> = module
            .initializers
            .iter()
            .map(|i| (i.global, i.target))
            .collect();
        let called: HashSet<(u32, u32), FxBuildHasher> = module
            .call_sites
            .iter()
            .filter_map(|s| match s.callee {
                Callee::Direct(c) => Some((s.caller, c)),
                Callee::Indirect(_) => None,
            })
            .collect();
        let mut unaccounted = Vec::new();
        for (i, g) in module.globals.iter().enumerate() {
            let i = i as u32;
            if g.is_declaration() {
                continue;
            }
            match g.kind {
                GlobalKind::Function => {
                    unaccounted.extend(g.refs.iter().filter(|r| !addressed.contains(r)));
                    unaccounted.extend(g.calls.iter().filter(|&&c| !called.contains(&(i, c))));
                }
                GlobalKind::Variable => {
                    unaccounted.extend(g.refs.iter().filter(|&&r| !initialized.contains(&(i, r))));
                }
                GlobalKind::Alias | GlobalKind::IFunc => {}
            }
        }
        for r in unaccounted {
            let target = self.target(m, r);
            self.escape_target(target);
        }
    }

    /// Functions called by something other than the unit's code, and the escape seeds of
    /// function bodies.
    fn outside_callers(&mut self) {
        let index = self.index;
        for (m, module) in index.modules.iter().enumerate() {
            let m = m as u32;
            // The C runtime calls constructors and destructors (with argc, argv, envp).
            for st in module.ctors.iter().chain(&module.dtors) {
                let target = self.target(m, st.function);
                self.escape_target(target);
            }
            for (i, g) in module.globals.iter().enumerate() {
                let id = GlobalId {
                    module: m,
                    index: i as u32,
                };
                if g.is_declaration() {
                    continue;
                }
                match g.kind {
                    // The dynamic loader calls the resolver.
                    GlobalKind::IFunc => {
                        if let Some(a) = g.aliasee {
                            let target = self.target(m, a);
                            self.escape_target(target);
                        }
                    }
                    // Outside code calls (or reads) the aliasee under the alias's name.
                    GlobalKind::Alias if !self.closed(id) => {
                        let target = self.target(m, id.index);
                        self.escape_target(target);
                    }
                    GlobalKind::Function if !self.closed(id) => self.escaped_functions.push(id),
                    _ => {}
                }
            }
        }
        for f in std::mem::take(&mut self.escaped_functions) {
            let k = self.solver.key(CvpKey::FunctionEscaped(f));
            self.solver.mark_overdefined(k);
        }
    }

    fn variable_rules(&mut self) {
        for var in std::mem::take(&mut self.variables) {
            let escaped = self.solver.key(CvpKey::VariableEscaped(var));
            if !self.closed(var) {
                self.solver.mark_overdefined(escaped);
            }
            let trusted_constant = self.tracked_definition(var)
                && self.index.global(var).flags.contains(GlobalFlags::CONSTANT);
            let rule = Rule::Variable {
                var,
                escaped,
                whole: self.solver.key(CvpKey::WholeObject(var)),
                any_offset: self.solver.key(CvpKey::AnyOffset(var)),
                trusted_constant,
            };
            self.push(rule);
        }
    }
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
}

type Cx<'c, 's> = &'c mut Context<'s, CalledValueLattice>;

impl FlowState {
    /// Joins `value` into `dst`, keeping Overdefined meaning "escaped" (module docs).
    fn flow(&mut self, cx: Cx, dst: KeyId, value: &PointsTo, cause: Cause) {
        let locations = match value {
            PointsTo::Overdefined => return self.raise(cx, dst, cause),
            PointsTo::Locations(l) if l.is_empty() => return,
            PointsTo::Locations(l) => l,
        };
        match cx.peek(dst) {
            PointsTo::Overdefined => escape(cx, locations),
            PointsTo::Locations(current) => {
                if current.len() + locations.len() > TRACKED_LOCATIONS_LIMIT {
                    let all = union(current, locations);
                    if all.len() > TRACKED_LOCATIONS_LIMIT {
                        escape(cx, &all);
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
            escape(cx, &current);
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

/// Marks every location of `locations` escaped.
fn escape(cx: Cx, locations: &[Location]) {
    for l in locations {
        let key = match *l {
            Location::Function(f) => CvpKey::FunctionEscaped(f),
            Location::Memory { var, .. } => CvpKey::VariableEscaped(var),
        };
        let k = cx.key(key);
        cx.mark_overdefined(k);
    }
}

fn escape_value(cx: Cx, value: &PointsTo) {
    if let PointsTo::Locations(l) = value {
        escape(cx, l);
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
                st.flow(
                    cx,
                    dst,
                    &PointsTo::Locations(vec![location]),
                    Cause::Unmodelled,
                );
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
                for l in locations {
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
                st.flow(cx, dst, &PointsTo::Locations(moved), Cause::Via(base));
                if !into_code.is_empty() {
                    escape(cx, &into_code);
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
                for l in locations {
                    // Reading code bytes yields no pointer worth following.
                    let Location::Memory { var, offset } = l else {
                        continue;
                    };
                    let cells = match (whole_object, offset) {
                        (false, Offset::Known(o)) => {
                            [Some(CvpKey::Cell { var, offset: o }), Some(CvpKey::AnyOffset(var))]
                        }
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
                    return escape_value(cx, &v);
                };
                for l in locations {
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
                escape_value(cx, &v);
            }
            Rule::Argument {
                function,
                escaped,
                formal,
                dst,
            } => {
                if cx.read(escaped).is_overdefined() {
                    st.raise(cx, dst, Cause::CalledFromOutside(function));
                } else {
                    let v = cx.read(formal).clone();
                    st.flow(cx, dst, &v, Cause::Via(formal));
                }
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
                    escape_value(cx, &v);
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
                escape_value(cx, &contents);
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
    let escape_arguments = |cx: Cx| {
        if site.caller_live {
            for &(_, v) in &site.arguments {
                let value = cx.read(v).clone();
                escape_value(cx, &value);
            }
        }
    };
    let PointsTo::Locations(callees) = cx.read(site.callee).clone() else {
        // Whatever it calls has escaped (Overdefined formals): nothing to pass, but the
        // actuals reach code the analysis cannot see.
        escape_arguments(cx);
        for &dst in &site.results {
            st.raise(cx, dst, Cause::UnresolvedCallResult);
        }
        return;
    };
    for l in callees {
        let Location::Function(f) = l else {
            continue;
        };
        if !program.is_tracked_body(f) {
            escape_arguments(cx);
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
                    escape_value(cx, &value);
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
