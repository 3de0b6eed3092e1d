//! Whole-program mod/ref: the abstract objects (of [`crate::pointsto`]) each function may
//! read or write, by itself or through everything it calls, and what each call site may
//! touch. Two clients: the alias analysis gives call instructions scope lists (a call that
//! cannot touch what a load reads no longer blocks hoisting the load past it), and functions
//! get `readnone`/`readonly`/`writeonly`/`nofree` where the whole program proves them.
//!
//! The call graph is the points-to analysis's: direct calls, and indirect calls to every
//! function their callee value may point to. Outside code is one more node, **external**: it
//! touches every escaped object, may free, and runs every function outside code can call
//! (escaped bodies) and every callback the program registers with the C library to run
//! later or in another thread (`atexit`, `signal`, `pthread_create`). Calls to functions
//! outside the unit touch what LLVM's attributes on their declarations allow (see
//! [`crate::library`]): `argmemonly` ones what their arguments point to, others escaped
//! memory too; one that may write escaped memory, or has no attribute at all (a mutex
//! operation, `exit`, `longjmp`), also calls outside code: a lock must be seen to touch
//! what another thread may write. A function whose body touches memory the summary does not describe
//! (inline asm, `va_arg`, fences) may touch anything.
//!
//! Effects are summed bottom-up over the call graph's strongly connected components. A
//! component's stack objects are not part of what its callers see: they are all allocated
//! and gone within the call (a recursive component's own calls see them).

use crate::dead::Liveness;
use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::library::{self, Model};
use crate::model::{Callee, GlobalKind, MemoryEffects, ValueFact};
use crate::pointsto::{Object, PointsTo};
use crate::program::{ProgramView, Target};
use std::borrow::Cow;
use std::collections::HashMap;

/// A set of objects larger than this stands for "anything": lists that long say nothing a
/// client can use and would make the sums quadratic.
const MAX_OBJECTS: usize = 2048;

/// Objects that may be touched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    /// Anything at all (then the other fields do not matter).
    pub anything: bool,
    /// Any escaped object.
    pub external: bool,
    /// Object numbers (as [`PointsTo::node_objects`] gives them, without the external
    /// object), sorted.
    pub objects: Vec<u32>,
}

impl Touched {
    fn anything() -> Touched {
        Touched {
            anything: true,
            ..Touched::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.anything && !self.external && self.objects.is_empty()
    }

    fn add(&mut self, other: &Touched) {
        if self.anything {
            return;
        }
        if other.anything {
            *self = Touched::anything();
            return;
        }
        self.external |= other.external;
        if other.objects.is_empty() {
            return;
        }
        if self.objects.is_empty() {
            self.objects = other.objects.clone();
            return;
        }
        // Both sorted: one merge.
        let (a, b) = (&self.objects, &other.objects);
        let mut merged = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            merged.push(x.min(y));
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        merged.extend_from_slice(&a[i..]);
        merged.extend_from_slice(&b[j..]);
        if merged.len() > MAX_OBJECTS {
            *self = Touched::anything();
        } else {
            self.objects = merged;
        }
    }

    /// Adds objects in any order (sorted once by [`Touched::normalize`]).
    fn push_unsorted(&mut self, other: &Touched) {
        if self.anything || other.anything {
            *self = Touched::anything();
            return;
        }
        self.external |= other.external;
        self.objects.extend_from_slice(&other.objects);
    }

    fn normalize(&mut self) {
        self.objects.sort_unstable();
        self.objects.dedup();
        if self.objects.len() > MAX_OBJECTS {
            *self = Touched::anything();
        }
    }

    fn without(&self, drop: impl Fn(u32) -> bool) -> Touched {
        Touched {
            anything: self.anything,
            external: self.external,
            objects: self.objects.iter().copied().filter(|&o| !drop(o)).collect(),
        }
    }
}

/// What running a function (or a call) may do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effect {
    pub reads: Touched,
    pub writes: Touched,
    /// May free memory.
    pub frees: bool,
    /// Has effects beyond the program's memory (I/O, memory LLVM calls inaccessible).
    pub side_effects: bool,
}

impl Effect {
    fn anything() -> Effect {
        Effect {
            reads: Touched::anything(),
            writes: Touched::anything(),
            frees: true,
            side_effects: true,
        }
    }

    fn add(&mut self, other: &Effect) {
        self.reads.add(&other.reads);
        self.writes.add(&other.writes);
        self.frees |= other.frees;
        self.side_effects |= other.side_effects;
    }

    /// Everything either touches.
    pub fn touched(&self) -> Touched {
        let mut t = self.reads.clone();
        t.add(&self.writes);
        t
    }
}

/// Memory attributes the whole program proves for a function.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryAttributes {
    /// Reads no memory its callers can see.
    pub no_reads: bool,
    /// Writes no memory its callers can see.
    pub no_writes: bool,
    pub no_free: bool,
    /// Touches no memory its callers can see but what its pointer arguments point to
    /// (LLVM's `argmem`; memory no program can name, `inaccessiblemem`, aside).
    pub only_arguments: bool,
}

/// One node of the call graph: a function, or outside code.
type FnNode = usize;

/// What a call site calls.
#[derive(Debug, Clone)]
enum CallTarget {
    Function(FnNode),
    /// A C library function (or intrinsic): its own effect, no call-graph edge.
    Library(Effect),
}

/// What a call may reach.
enum Reach {
    /// These globals (functions with bodies in the unit or not; a pointer may also be
    /// found to point to a variable, which no call runs).
    Functions(Vec<GlobalId>),
    /// Anything: the callee pointer is unknown.
    Anything,
    /// Outside code.
    Outside,
}

/// The analysis's result.
pub struct ModRef {
    functions: Vec<GlobalId>,
    node_of: HashMap<GlobalId, FnNode>,
    /// The component of each node, and each component's effect: with its own stack
    /// objects (`inside`) and without (`outside`, what callers see).
    component: Vec<usize>,
    inside: Vec<Effect>,
    outside: Vec<Effect>,
    /// What `inside` and `outside` read or write.
    touched_inside: Vec<Touched>,
    touched_outside: Vec<Touched>,
    /// Components whose functions call each other or themselves.
    recursive: Vec<bool>,
    /// Components whose functions keep to their arguments (see [`provenance`]).
    only_arguments: Vec<bool>,
    /// Per module, per call site of a live caller: the caller and what it calls.
    sites: Vec<HashMap<u32, (FnNode, Vec<CallTarget>)>>,
}

impl ModRef {
    /// What call site `call` of module `module` may touch; None for a site the analysis did
    /// not see (dead caller).
    pub fn call_touches(&self, module: u32, call: u32) -> Option<Cow<'_, Touched>> {
        let (caller, targets) = self.sites.get(module as usize)?.get(&call)?;
        let function = |n: FnNode| {
            let c = self.component[n];
            if self.component[*caller] == c {
                &self.touched_inside[c]
            } else {
                &self.touched_outside[c]
            }
        };
        if let [CallTarget::Function(n)] = targets.as_slice() {
            return Some(Cow::Borrowed(function(*n)));
        }
        let mut t = Touched::default();
        for target in targets {
            match target {
                CallTarget::Function(n) => t.add(function(*n)),
                CallTarget::Library(e) => t.add(&e.touched()),
            }
        }
        Some(Cow::Owned(t))
    }

    /// The effect of function `f` (its definition in the unit) as any caller sees it.
    pub fn effect(&self, f: GlobalId) -> Option<&Effect> {
        let n = *self.node_of.get(&f)?;
        let c = self.component[n];
        Some(if self.recursive[c] {
            &self.inside[c]
        } else {
            &self.outside[c]
        })
    }

    /// Attributes for every live function defined in the unit, per module (by global
    /// index), where they say anything.
    pub fn attributes(&self) -> Vec<(GlobalId, MemoryAttributes)> {
        let mut out = Vec::new();
        for &f in &self.functions {
            let Some(e) = self.effect(f) else { continue };
            let a = MemoryAttributes {
                no_reads: !e.side_effects && e.reads.is_empty(),
                no_writes: !e.side_effects && e.writes.is_empty(),
                no_free: !e.frees,
                only_arguments: self.only_arguments[self.component[self.node_of[&f]]],
            };
            if a != MemoryAttributes::default() {
                out.push((f, a));
            }
        }
        out
    }

    pub fn functions(&self) -> usize {
        self.functions.len()
    }
}

/// Runs the analysis.
pub fn mod_ref(
    index: &CombinedIndex,
    res: &Resolutions,
    live: &Liveness,
    pts: &PointsTo,
) -> ModRef {
    let view = ProgramView::new(index, res, live);
    let mut b = Builder::new(&view, pts);
    b.collect();
    b.solve()
}

struct Builder<'a> {
    view: &'a ProgramView<'a>,
    pts: &'a PointsTo,
    functions: Vec<GlobalId>,
    node_of: HashMap<GlobalId, FnNode>,
    /// Per node: its own accesses' effect and its callees. The last node is outside code.
    local: Vec<Effect>,
    /// Per node: its own accesses and calls keep to its arguments (see [`provenance`]).
    local_only_arguments: Vec<bool>,
    callees: Vec<Vec<FnNode>>,
    /// Object number → the function whose frame holds it (stack objects).
    frame_of: HashMap<u32, FnNode>,
    sites: Vec<HashMap<u32, (FnNode, Vec<CallTarget>)>>,
    node_cache: HashMap<u32, Touched>,
}

impl<'a> Builder<'a> {
    fn new(view: &'a ProgramView<'a>, pts: &'a PointsTo) -> Self {
        let mut functions = Vec::new();
        for id in view.index.ids() {
            let g = view.index.global(id);
            if g.kind == GlobalKind::Function
                && view.tracked_definition(id)
                && view.live.is_live(id)
            {
                functions.push(id);
            }
        }
        let node_of = functions.iter().enumerate().map(|(n, &f)| (f, n)).collect();
        let nodes = functions.len() + 1;
        Builder {
            view,
            pts,
            functions,
            node_of,
            local: vec![Effect::default(); nodes],
            local_only_arguments: (0..nodes).map(|n| n + 1 < nodes).collect(),
            callees: vec![Vec::new(); nodes],
            frame_of: HashMap::new(),
            sites: Vec::new(),
            node_cache: HashMap::new(),
        }
    }

    fn outside(&self) -> FnNode {
        self.functions.len()
    }

    /// What value `value` of module `m` may point to: anything when the analysis has no
    /// node for it or an empty set (a pointer it never saw assigned: like the alias
    /// scopes, take nothing for granted about it).
    fn pointees(&mut self, m: u32, value: u32) -> Touched {
        let Some(n) = self.pts.node(m, value) else {
            return Touched::anything();
        };
        let ext = self.pts.external_object();
        let pts = self.pts;
        self.node_cache
            .entry(n)
            .or_insert_with(|| {
                let objects = pts.node_objects(n);
                if objects.is_empty() {
                    return Touched::anything();
                }
                let external = objects.contains(&ext);
                Touched {
                    anything: false,
                    external,
                    objects: objects.into_iter().filter(|&o| o != ext).collect(),
                }
            })
            .clone()
    }

    fn collect(&mut self) {
        let index = self.view.index;
        let outside = self.outside();
        self.local[outside] = Effect {
            reads: Touched {
                external: true,
                ..Touched::default()
            },
            writes: Touched {
                external: true,
                ..Touched::default()
            },
            frees: true,
            side_effects: true,
        };
        // Stack objects' frames.
        let objects = self.pts.object_count();
        let mut stack_owner: HashMap<(u32, u32), FnNode> = HashMap::new();
        for (m, module) in index.modules.iter().enumerate() {
            for f in &module.facts {
                if let ValueFact::StackObject { dst, function, .. } = *f {
                    let id = GlobalId {
                        module: m as u32,
                        index: function,
                    };
                    if let Some(&n) = self.node_of.get(&id) {
                        stack_owner.insert((m as u32, dst), n);
                    }
                }
            }
        }
        for o in 0..objects {
            match self.pts.object(o) {
                Object::Stack { module, value } => {
                    if let Some(&n) = stack_owner.get(&(module, value)) {
                        self.frame_of.insert(o, n);
                    }
                }
                // Outside code may call what escaped, during any call to it. (Not the
                // entry point, which it calls once, before everything.)
                Object::Global(f)
                    if self.pts.object_escaped(o) && self.view.index.global(f).name != "main" =>
                {
                    if let Some(&n) = self.node_of.get(&f) {
                        self.callees[outside].push(n);
                    }
                }
                _ => {}
            }
        }
        for (m, module) in index.modules.iter().enumerate() {
            let m = m as u32;
            let based = provenance::argument_based(module);
            let based = |v: u32| based.get(v as usize).copied().unwrap_or(false);
            let node_of = std::mem::take(&mut self.node_of);
            let node = |f: u32| {
                node_of
                    .get(&GlobalId {
                        module: m,
                        index: f,
                    })
                    .copied()
            };
            for a in &module.accesses {
                let Some(n) = node(a.function) else { continue };
                if !based(a.ptr) {
                    self.local_only_arguments[n] = false;
                }
                let t = self.pointees(m, a.ptr);
                use crate::model::AccessKind::*;
                if matches!(a.kind, Read | ReadWrite) {
                    self.local[n].reads.push_unsorted(&t);
                }
                if matches!(a.kind, Write | ReadWrite) {
                    self.local[n].writes.push_unsorted(&t);
                }
            }
            for &f in &module.opaque_functions {
                if let Some(n) = node(f) {
                    self.local[n] = Effect::anything();
                    self.local_only_arguments[n] = false;
                }
            }
            let mut args: HashMap<u32, Vec<u32>> = HashMap::new();
            for f in &module.facts {
                if let ValueFact::CallArgument { call, index, value } = *f {
                    let list = args.entry(call).or_default();
                    let i = index as usize;
                    if list.len() <= i {
                        list.resize(i + 1, u32::MAX);
                    }
                    list[i] = value;
                }
            }
            self.node_of = node_of;
            let mut sites = HashMap::new();
            for cs in &module.call_sites {
                let caller = GlobalId {
                    module: m,
                    index: cs.caller,
                };
                let Some(&n) = self.node_of.get(&caller) else {
                    continue;
                };
                let actuals = args.remove(&cs.id).unwrap_or_default();
                let reach = self.reach(m, &cs.callee);
                if !actuals.iter().all(|&a| a == u32::MAX || based(a))
                    || !self.keeps_to_arguments(&reach)
                {
                    self.local_only_arguments[n] = false;
                }
                let mut targets = self.targets_of(m, reach, &actuals);
                // The call itself copies what its `byval` arguments point to.
                let mut copied = Touched::default();
                for &i in &cs.byval {
                    if let Some(&a) = actuals.get(i as usize).filter(|&&a| a != u32::MAX) {
                        copied.add(&self.pointees(m, a));
                    }
                }
                if !copied.is_empty() {
                    targets.push(CallTarget::Library(Effect {
                        reads: copied,
                        ..Effect::default()
                    }));
                }
                for t in &targets {
                    match t {
                        CallTarget::Function(callee) => self.callees[n].push(*callee),
                        CallTarget::Library(e) => {
                            let local = &mut self.local[n];
                            local.reads.push_unsorted(&e.reads);
                            local.writes.push_unsorted(&e.writes);
                            local.frees |= e.frees;
                            local.side_effects |= e.side_effects;
                        }
                    }
                }
                sites.insert(cs.id, (n, targets));
            }
            self.sites.push(sites);
        }
        for e in &mut self.local {
            e.reads.normalize();
            e.writes.normalize();
        }
    }

    /// What a call may reach: the functions it may call, or anything, or outside code.
    fn reach(&mut self, m: u32, callee: &Callee) -> Reach {
        match *callee {
            Callee::Direct(g) => match self.view.resolve(m, g) {
                Target::Function(f) => Reach::Functions(vec![f]),
                _ => Reach::Outside,
            },
            Callee::Indirect(v) => {
                let t = self.pointees(m, v);
                if t.anything {
                    return Reach::Anything;
                }
                if t.external {
                    return Reach::Outside;
                }
                Reach::Functions(
                    t.objects
                        .iter()
                        .filter_map(|&o| match self.pts.object(o) {
                            Object::Global(f) => Some(f),
                            _ => None,
                        })
                        .collect(),
                )
            }
        }
    }

    /// The targets of a call: functions with bodies, C library effects, outside code.
    fn call_targets(&mut self, m: u32, callee: &Callee, actuals: &[u32]) -> Vec<CallTarget> {
        let reach = self.reach(m, callee);
        self.targets_of(m, reach, actuals)
    }

    fn targets_of(&mut self, m: u32, reach: Reach, actuals: &[u32]) -> Vec<CallTarget> {
        match reach {
            Reach::Anything => vec![CallTarget::Library(Effect::anything())],
            Reach::Outside => vec![CallTarget::Function(self.outside())],
            Reach::Functions(fs) => fs
                .into_iter()
                .filter(|&f| self.view.index.global(f).kind == GlobalKind::Function)
                .flat_map(|f| self.function_target(m, f, actuals))
                .collect(),
        }
    }

    /// Whether the functions outside the unit a call may reach touch only what their
    /// arguments point to (those with bodies are judged on their own, in `solve`).
    fn keeps_to_arguments(&self, reach: &Reach) -> bool {
        let Reach::Functions(fs) = reach else {
            return false;
        };
        fs.iter().all(|&f| {
            self.node_of.contains_key(&f)
                || self.view.tracked_definition(f)
                || provenance::library_keeps_to_arguments(
                    &self.view.index.global(f).name,
                    &library::model(self.view.index, f),
                )
        })
    }

    fn function_target(&mut self, m: u32, f: GlobalId, actuals: &[u32]) -> Vec<CallTarget> {
        if let Some(&n) = self.node_of.get(&f) {
            return vec![CallTarget::Function(n)];
        }
        if self.view.tracked_definition(f) {
            // A body the program has but never runs (dead): nothing.
            return Vec::new();
        }
        self.library_effect(m, f, actuals)
    }

    /// A call to function `f` outside the unit with these actuals.
    fn library_effect(&mut self, m: u32, f: GlobalId, actuals: &[u32]) -> Vec<CallTarget> {
        let name = self.view.index.global(f).name.clone();
        let outside = vec![CallTarget::Function(self.outside())];
        let mut args = Touched::default();
        for &a in actuals.iter().filter(|&&a| a != u32::MAX) {
            // A function pointer argument (a callback) is not memory the call touches.
            let t = self.pointees(m, a);
            let pts = self.pts;
            args.add(&t.without(|o| pts.object_is_function(o)));
        }
        if let Some(intrinsic) = name.strip_prefix("llvm.") {
            let family = intrinsic.split('.').next().unwrap_or("");
            let side_effects = !library::intrinsic_keeps_to_arguments(intrinsic)
                && !matches!(
                    family,
                    "va_start" | "va_end" | "va_copy" | "stacksave" | "stackrestore"
                );
            // Intrinsics touch memory only through their pointer arguments.
            return vec![CallTarget::Library(Effect {
                reads: args.clone(),
                writes: args,
                frees: false,
                side_effects,
            })];
        }
        match library::model(self.view.index, f) {
            Model::Calls {
                function, elements, ..
            } => {
                // A callback the library runs later or in another thread runs as outside
                // code; qsort's and bsearch's comparators (`elements`) run during the call.
                let Some(&fp) = actuals.get(function as usize).filter(|&&v| v != u32::MAX) else {
                    return outside;
                };
                // A library function as the callback would touch what it is given, which
                // this call does not say: outside code.
                let callbacks: Vec<CallTarget> = self
                    .call_targets(m, &Callee::Indirect(fp), &[])
                    .into_iter()
                    .map(|c| match c {
                        CallTarget::Library(_) => CallTarget::Function(self.outside()),
                        f => f,
                    })
                    .collect();
                if !elements {
                    let out = self.outside();
                    for c in callbacks {
                        if let CallTarget::Function(n) = c {
                            self.callees[out].push(n);
                        }
                    }
                    // It also fills in what its arguments point to (pthread_create's
                    // thread id).
                    let mut targets = outside;
                    targets.push(CallTarget::Library(Effect {
                        reads: args.clone(),
                        writes: args,
                        frees: false,
                        side_effects: true,
                    }));
                    return targets;
                }
                // The comparator runs during the call: an edge to it, and the array.
                let mut out = callbacks;
                out.push(CallTarget::Library(Effect {
                    reads: args.clone(),
                    writes: args,
                    frees: false,
                    side_effects: false,
                }));
                out
            }
            // Freeing writes the object (it is gone) and nothing else the program sees.
            Model::Frees => vec![CallTarget::Library(Effect {
                reads: Touched::default(),
                writes: args,
                frees: true,
                side_effects: true,
            })],
            // The allocator's state is not the program's memory; a resize reads the old
            // block and frees it.
            Model::Allocates { resizes } => vec![CallTarget::Library(Effect {
                reads: args.clone(),
                writes: args,
                frees: resizes.is_some(),
                side_effects: true,
            })],
            Model::Declared(d) => {
                let mut reads = Touched::default();
                let mut writes = Touched::default();
                for (i, &a) in actuals.iter().enumerate() {
                    if a == u32::MAX {
                        continue;
                    }
                    let pts = self.pts;
                    let t = self.pointees(m, a).without(|o| pts.object_is_function(o));
                    if d.reads_through(i) {
                        reads.add(&t);
                    }
                    if d.writes_through(i) {
                        writes.add(&t);
                    }
                }
                reads.external |= d.memory.reads_other();
                writes.external |= d.memory.writes_other();
                let effect = CallTarget::Library(Effect {
                    reads,
                    writes,
                    frees: !d.nofree,
                    side_effects: d.memory.0
                        & !(MemoryEffects::ARG_READ | MemoryEffects::ARG_WRITE)
                        != 0,
                });
                // It may write what outside code can see: it may run outside code too
                // (registered callbacks, other threads at a lock).
                if d.memory.writes_other() {
                    vec![effect, CallTarget::Function(self.outside())]
                } else {
                    vec![effect]
                }
            }
            // Intrinsics are handled above.
            Model::Unknown
            | Model::NoCapture { .. }
            | Model::Copies { .. }
            | Model::VaStart { .. } => outside,
        }
    }

    fn solve(self) -> ModRef {
        let nodes = self.local.len();
        let edges = &self.callees;
        let crate::scc::Components {
            of: component,
            count,
            ..
        } = crate::scc::components(edges.len(), |_| false, |v, i| edges[v].get(i).copied());
        let mut members: Vec<Vec<FnNode>> = vec![Vec::new(); count];
        for n in 0..nodes {
            members[component[n]].push(n);
        }
        let mut inside = vec![Effect::default(); count];
        let mut outside = vec![Effect::default(); count];
        let mut recursive = vec![false; count];
        let mut only_arguments = vec![false; count];
        // Components come callees first.
        for c in 0..count {
            let mut e = Effect::default();
            let mut keeps = true;
            for &n in &members[c] {
                e.add(&self.local[n]);
                keeps &= self.local_only_arguments[n];
                for &callee in &self.callees[n] {
                    let cc = component[callee];
                    if cc == c {
                        recursive[c] = true;
                    } else {
                        e.add(&outside[cc]);
                        keeps &= only_arguments[cc];
                    }
                }
            }
            only_arguments[c] = keeps;
            let frame = |o: u32| {
                self.frame_of
                    .get(&o)
                    .is_some_and(|&owner| component[owner] == c)
            };
            let seen = Effect {
                reads: e.reads.without(frame),
                writes: e.writes.without(frame),
                frees: e.frees,
                side_effects: e.side_effects,
            };
            inside[c] = e;
            outside[c] = seen;
        }
        ModRef {
            functions: self.functions,
            node_of: self.node_of,
            component,
            touched_inside: inside.iter().map(Effect::touched).collect(),
            touched_outside: outside.iter().map(Effect::touched).collect(),
            inside,
            outside,
            recursive,
            only_arguments,
            sites: self.sites,
        }
    }
}

mod provenance;
#[cfg(test)]
mod tests;
