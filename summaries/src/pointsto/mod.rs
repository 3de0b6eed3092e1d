//! Whole-program points-to analysis: for every pointer value of every module of the LTO
//! unit, the memory locations it may point to.
//!
//! Inclusion-based (Andersen) over the value-flow facts of the combined index, solved by
//! the generic [`solver`]. Abstract objects are the program's functions and global
//! variables (after symbol resolution, as [`crate::program`] names them), one object per
//! stack slot (`alloca`), one per heap allocation site (a call to an allocator, by name
//! or by its `noalias`/`allocsize` declaration), and one **external** object standing for
//! all memory rld cannot see. A location is an object and a byte offset (field-sensitive);
//! an access at an offset computed at run time, past [`MAX_FIELD_OFFSET`], or before the
//! object's start collapses the object to a single location.
//!
//! Sound towards the outside world: a location *escapes* when it is passed to code rld
//! cannot see, stored where such code can read it, or belongs to a global visible outside
//! the LTO unit. Outside code may read and write an escaped object, call an escaped function
//! with anything escaped, and return escaped pointers. The external object's one location
//! stands for "any escaped location": a value that may point anywhere outside code could
//! make it point (a result of an external call, an `Unknown` value such as `inttoptr`, a
//! load from escaped memory) points to [`Object::External`], and a client must read that as
//! every object for which [`PointsTo::escaped`] holds. This keeps the sets small: escaped
//! locations are marked, never listed.
//!
//! Calls: a direct call to a body in the unit passes its actuals to the formals and the
//! return to the result; an indirect call does the same for every function its callee
//! value may point to, as the solution grows (the call graph is built on the fly). Calls
//! to functions outside the unit follow [`library`]: what LLVM's attributes on their
//! declarations allow, the intrinsics' definitions, and a few justified models; any other
//! external call makes its pointer arguments escape and returns external memory.

pub mod solver;
#[cfg(test)]
mod tests;
pub mod wrappers;

use crate::dead::Liveness;
use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::library::{self, Declared, Model};
use crate::model::{Callee, GlobalKind, ValueFact, ValueId};
use crate::program::{ProgramView, Target};
use crate::sparse::FxBuildHasher;
use solver::{Client, Element, Node, Solver, SolverStats};
use std::collections::{BTreeMap, HashMap};

type FxMap<K, V> = HashMap<K, V, FxBuildHasher>;
use wrappers::Wrapper;

/// Field offsets beyond this collapse the object (arrays indexed far, huge structs).
pub const MAX_FIELD_OFFSET: i64 = 1 << 16;

/// An object with more distinct fields than this is collapsed: one location for all of it.
/// Objects standing for many kinds of memory (one heap object for every `malloc` call of a
/// wrapper) would otherwise give every pointer into them hundreds of locations.
pub const MAX_FIELDS: usize = 128;

/// A pointer that may point to more locations than this is widened to "any escaped
/// location": what it points to escapes and its node becomes the external one. Sets that
/// large answer no client's question (an alias scope list is shorter, an indirect call
/// with that many targets is not worth resolving) and would make the solution quadratic.
pub const SET_LIMIT: usize = 256;

/// An abstract memory object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Object {
    /// A function or global variable, by its canonical global (see [`crate::program`]).
    Global(GlobalId),
    /// The `alloca` that defines value `value` of module `module`.
    Stack { module: u32, value: ValueId },
    /// Memory returned by call site `call` of module `module`.
    Heap { module: u32, call: u32 },
    /// The variadic arguments of a function (after symbol resolution), as all its callers
    /// pass them: what `va_arg` reads.
    VarArgs(GlobalId),
    /// Everything outside the LTO unit's view.
    External,
}

/// One location a pointer may point to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointee {
    pub object: Object,
    /// Byte offset; None once the object is collapsed (any offset).
    pub offset: Option<u64>,
}

/// The bytes of its object a pointer to a location may reach, as the alias analysis must
/// assume them (with the size of the access made through it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Extent {
    /// Exactly this offset: an access of N bytes through the pointer touches `off..off + N`.
    At(u64),
    /// Somewhere from this offset on: an array indexed at run time starts here. Its end is
    /// not trusted (a trailing `data[1]` indexed past its declared length, the C "struct
    /// hack", is common).
    From(u64),
    /// Anywhere in the object: it is collapsed, a function, or variadic arguments.
    Whole,
}

/// Counters for `--time` and the tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PointsToStats {
    pub objects: usize,
    pub locations: usize,
    pub solver: SolverStats,
}

/// The solution.
pub struct PointsTo {
    solver: Solver<Constraint>,
    model: ProgramModel,
}

impl PointsTo {
    /// Where value `value` of module `module` may point (sorted); empty for a value no
    /// fact defines (null, an integer, dead code).
    pub fn pointees(&self, module: u32, value: ValueId) -> Vec<Pointee> {
        let Some(node) = self
            .model
            .values
            .get(module as usize)
            .and_then(|m| m.get(value as usize))
            .copied()
            .flatten()
        else {
            return Vec::new();
        };
        let mut out: Vec<Pointee> = self
            .solver
            .points_to(node)
            .into_iter()
            .map(|e| self.model.pointee(&self.solver, e))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The solver node (canonical: values with equal sets may share one) holding what value
    /// `value` of module `module` points to; clients cache per node.
    pub fn node(&self, module: u32, value: ValueId) -> Option<Node> {
        let n = (*self
            .model
            .values
            .get(module as usize)?
            .get(value as usize)?)?;
        Some(self.solver.find_const(n))
    }

    /// The objects node `n`'s locations belong to, by object number, sorted.
    pub fn node_objects(&self, n: Node) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .solver
            .points_to(n)
            .into_iter()
            .map(|e| self.model.locations[e as usize].object)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The locations node `n` points to, as (object number, extent), sorted.
    pub fn node_extents(&self, n: Node) -> Vec<(u32, Extent)> {
        let mut out: Vec<(u32, Extent)> = self
            .solver
            .points_to(n)
            .into_iter()
            .map(|e| {
                let loc = &self.model.locations[self.solver.find_element_const(e) as usize];
                let info = &self.model.objects[loc.object as usize];
                let extent = if info.collapsed
                    || info.function.is_some()
                    || matches!(info.object, Object::VarArgs(_) | Object::External)
                {
                    Extent::Whole
                } else if info.ranges.contains_key(&loc.offset) {
                    Extent::From(loc.offset as u64)
                } else {
                    Extent::At(loc.offset as u64)
                };
                (loc.object, extent)
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// How many objects there are (numbered from 0).
    pub fn object_count(&self) -> u32 {
        self.model.objects.len() as u32
    }

    /// Object number `o` (as [`PointsTo::node_objects`] gives them).
    pub fn object(&self, o: u32) -> Object {
        self.model.objects[o as usize].object
    }

    /// Whether object number `o` is a function.
    pub fn object_is_function(&self, o: u32) -> bool {
        self.model.objects[o as usize].function.is_some()
    }

    /// Whether object number `o` may have escaped (outside code may access it).
    pub fn object_escaped(&self, o: u32) -> bool {
        self.model.objects[o as usize].escaped
    }

    /// The number of [`Object::External`].
    pub fn external_object(&self) -> u32 {
        self.model.external
    }

    /// The functions call site `call` of module `module` may call (for wrapper detection).
    fn callees(&self, view: &ProgramView, module: u32, call: u32) -> wrappers::Callees {
        let cs = &view.index.modules[module as usize].call_sites[call as usize];
        let Callee::Indirect(v) = cs.callee else {
            return wrappers::Callees::Unknown;
        };
        let mut out = Vec::new();
        for p in self.pointees(module, v) {
            match p.object {
                Object::Global(f) if self.model.tracked.contains_key(&f) => out.push(f),
                Object::External => return wrappers::Callees::Unknown,
                // Data called: undefined behaviour, from a merged set.
                _ => {}
            }
        }
        wrappers::Callees::Functions(out)
    }

    /// Whether the location may have escaped to code outside the LTO unit.
    pub fn escaped(&self, object: Object) -> bool {
        self.model
            .object_index
            .get(&object)
            .is_some_and(|&o| self.model.objects[o as usize].escaped)
    }

    /// Total elements over all sets and the largest set.
    pub fn set_sizes(&self) -> (usize, usize) {
        self.solver.set_sizes()
    }

    pub fn stats(&self) -> PointsToStats {
        PointsToStats {
            objects: self.model.objects.len(),
            locations: self.model.locations.len(),
            solver: self.solver.stats(),
        }
    }
}

/// Runs the analysis on the live part of the program.
///
/// Solved twice when the program has allocation wrappers behind indirect calls: the first
/// solution resolves the hooks (`sqlite3GlobalConfig.m.xMalloc`) so that [`wrappers`] can
/// tell which functions are wrappers, the second gives each of their call sites its own heap
/// object.
pub fn points_to(index: &CombinedIndex, res: &Resolutions, live: &Liveness) -> PointsTo {
    let view = ProgramView::new(index, res, live);
    let needs_callees = std::cell::Cell::new(false);
    let facts = wrappers::ModuleFacts::of_program(&view);
    let direct = wrappers::find(&view, &facts, &|_, _| {
        needs_callees.set(true);
        wrappers::Callees::Unknown
    });
    if !needs_callees.get() {
        return solve(&view, direct);
    }
    let first = solve_with(&view, direct, FIRST_SET_LIMIT);
    let found = wrappers::find(&view, &facts, &|m, c| first.callees(&view, m, c));
    solve(&view, found)
}

fn solve(view: &ProgramView, wrappers: HashMap<GlobalId, Wrapper>) -> PointsTo {
    solve_with(view, wrappers, SET_LIMIT)
}

/// The first solution only resolves hooks for wrapper detection: calls with more targets
/// than this do not call only allocators, so it may widen far earlier.
const FIRST_SET_LIMIT: usize = 32;

fn solve_with(view: &ProgramView, wrappers: HashMap<GlobalId, Wrapper>, limit: usize) -> PointsTo {
    let index = view.index;
    let mut solver = Solver::default();
    solver.set_limit(limit);
    // What reaches the external node (or a widened one) escapes, one element at a time.
    // For any other constraint there its one element stands for all of them: a load,
    // store or offset from escaped memory is escaped memory, and a call through it is a
    // call to outside code (its arguments escape, its result is external), which covers
    // calling any escaped function, allocator or wrapper: memory such a call returns is
    // only ever reached through pointers that hold the external element.
    solver.set_each_element(|c| matches!(c, Constraint::Escaped));
    let mut model = ProgramModel::new(index, &mut solver);
    model.wrappers = wrappers;
    model.build(view, &mut solver);
    solver.solve(&mut model);
    PointsTo { solver, model }
}

/// What a node's elements trigger.
#[derive(Debug, Clone)]
enum Constraint {
    /// `dst = *node`
    Load { dst: Node },
    /// `*node = src`
    Store { src: Node },
    /// `dst = node + offset` (None: an offset known only at run time).
    Field { dst: Node, offset: Option<i64> },
    /// `dst` = somewhere in the `len` bytes at `node + start` (an array indexed at run time).
    Element { dst: Node, start: i64, len: u64 },
    /// `node` is the called value of indirect site `site`.
    Call { site: u32 },
    /// `node` is a library function's callback argument (qsort's comparator, ...).
    Callback { args: [Option<Node>; 2] },
    /// `node` holds what a call to a function outside the unit is given or can read: a
    /// function among it may be called back with anything the call can reach (`passed`).
    MayCallBack { passed: Node },
    /// On the external object's node: its elements have escaped.
    Escaped,
    /// Every location of every object `node` points into flows into `dst` (a byte copy's
    /// source: the objects are collapsed, offsets are not followed).
    ReadAll { dst: Node },
    /// `src` flows into every location of every object `node` points into.
    WriteAll { src: Node },
}

struct ObjectInfo {
    object: Object,
    /// Offset → location (a range's location under its start only).
    fields: BTreeMap<i64, Element>,
    /// Byte ranges that are one location (arrays indexed at run time): start → end.
    ranges: BTreeMap<i64, i64>,
    collapsed: bool,
    escaped: bool,
    /// A function (its location is called, never loaded).
    function: Option<GlobalId>,
    /// Byte copies out of and into the object from an offset to its end (see
    /// [`ProgramModel::byte_copy`]): the node the bytes go to or come from. Locations made
    /// later join them too.
    copied_out: Vec<(i64, Node)>,
    copied_in: Vec<(i64, Node)>,
}

struct LocationInfo {
    object: u32,
    offset: i64,
    /// What the location holds.
    content: Node,
}

/// A call site: actuals by argument position and the result.
struct Site {
    module: u32,
    call: u32,
    /// The function the call is in.
    caller: GlobalId,
    args: Vec<Option<Node>>,
    result: Option<Node>,
    /// Positions of the arguments passed by value in memory.
    byval: Vec<u32>,
}

struct ProgramModel {
    objects: Vec<ObjectInfo>,
    object_index: FxMap<Object, u32>,
    locations: Vec<LocationInfo>,
    /// Per module, per value id: its node, once created.
    values: Vec<Vec<Option<Node>>>,
    formals: FxMap<(GlobalId, u32), Node>,
    /// The same formals by function.
    formals_of: FxMap<GlobalId, Vec<Node>>,
    returns: FxMap<GlobalId, Node>,
    /// Per function, what its variadic arguments hold (made when first needed).
    varargs: FxMap<GlobalId, Node>,
    /// Functions outside code may call with anything.
    escaped_bodies: std::collections::HashSet<GlobalId, FxBuildHasher>,
    /// Bodies the program runs for a name, and the functions outside code may call.
    tracked: FxMap<GlobalId, bool>,
    sites: Vec<Site>,
    /// Name and allocator flag of functions outside the unit, for the library models.
    /// What calls to each function outside the unit do (see [`library`]).
    external_models: FxMap<GlobalId, Model>,
    external: u32,
    external_node: Node,
    /// Allocation wrappers: each call site gets its own heap object.
    wrappers: HashMap<GlobalId, Wrapper>,
    /// Values derived from a node, by how (see [`ProgramModel::derive`]).
    derived: FxMap<(Node, Derived), Node>,
}

/// How a value is derived from a pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Derived {
    Load,
    /// The values stored through the pointer (the "dst" is their source).
    Stored,
    Field(Option<i64>),
    Element(i64, u64),
}

impl ProgramModel {
    fn new(index: &CombinedIndex, solver: &mut Solver<Constraint>) -> Self {
        let mut m = ProgramModel {
            objects: Vec::new(),
            object_index: Default::default(),
            locations: Vec::new(),
            values: index
                .modules
                .iter()
                .map(|m| vec![None; m.value_count as usize])
                .collect(),
            formals: Default::default(),
            formals_of: Default::default(),
            returns: Default::default(),
            varargs: Default::default(),
            escaped_bodies: Default::default(),
            tracked: Default::default(),
            sites: Vec::new(),
            external_models: Default::default(),
            external: 0,
            external_node: 0,
            wrappers: HashMap::new(),
            derived: Default::default(),
        };
        m.external = m.object(Object::External, None);
        let ext = m.location(solver, m.external, 0);
        m.external_node = m.locations[ext as usize].content;
        m.collapse(solver, m.external);
        // External memory holds pointers to external memory: the one element that stands
        // for every escaped location. Locations that reach it are marked escaped and
        // absorbed, so no set ever lists them all.
        solver.add_element(m.external_node, ext);
        solver.make_absorbing(m.external_node);
        solver.add_constraint(m.external_node, Constraint::Escaped);
        m.objects[m.external as usize].escaped = true;
        m
    }

    fn object(&mut self, object: Object, function: Option<GlobalId>) -> u32 {
        if let Some(&o) = self.object_index.get(&object) {
            return o;
        }
        let o = self.objects.len() as u32;
        self.objects.push(ObjectInfo {
            object,
            fields: BTreeMap::new(),
            ranges: BTreeMap::new(),
            collapsed: false,
            escaped: false,
            function,
            copied_out: Vec::new(),
            copied_in: Vec::new(),
        });
        self.object_index.insert(object, o);
        o
    }

    /// The location at `offset` of object `o` (its only location once collapsed).
    fn location(&mut self, solver: &mut Solver<Constraint>, o: u32, offset: i64) -> Element {
        let info = &self.objects[o as usize];
        let offset = if info.collapsed || info.function.is_some() {
            0
        } else {
            // Inside an array indexed at run time: the array's one location.
            match info.ranges.range(..=offset).next_back() {
                Some((&start, &end)) if offset < end => start,
                _ => offset,
            }
        };
        if let Some(&e) = self.objects[o as usize].fields.get(&offset) {
            return solver.find_element(e);
        }
        if self.objects[o as usize].fields.len() >= MAX_FIELDS {
            // Collapsing makes the location at offset 0, which the call below finds.
            self.collapse(solver, o);
            return self.location(solver, o, 0);
        }
        self.new_location(solver, o, offset)
    }

    /// A new location of object `o` at `offset` (none is there yet).
    fn new_location(&mut self, solver: &mut Solver<Constraint>, o: u32, offset: i64) -> Element {
        let e = solver.new_element();
        debug_assert_eq!(e as usize, self.locations.len());
        let content = solver.new_node();
        self.locations.push(LocationInfo {
            object: o,
            offset,
            content,
        });
        self.objects[o as usize].fields.insert(offset, e);
        if self.objects[o as usize].escaped {
            self.connect_escaped(solver, e);
        }
        let info = &self.objects[o as usize];
        let reached = |copies: &[(i64, Node)]| -> Vec<Node> {
            copies
                .iter()
                .filter(|&&(from, _)| offset >= from)
                .map(|&(_, n)| n)
                .collect()
        };
        let (outs, ins) = (reached(&info.copied_out), reached(&info.copied_in));
        for n in outs {
            solver.add_edge(content, n);
        }
        for n in ins {
            solver.add_edge(n, content);
        }
        e
    }

    /// What the pointer-sized slot holding the byte at location `e` holds: loads and stores
    /// of any width meet there, so a byte written into a pointer (or a pointer read from a
    /// packed field) is seen. (An array indexed at run time is one location already.)
    fn slot(&mut self, solver: &mut Solver<Constraint>, e: Element) -> Node {
        let loc = self.location_info(solver, e);
        let (o, offset, content) = (loc.object, loc.offset, loc.content);
        let aligned = offset & !7;
        if aligned == offset || self.objects[o as usize].ranges.contains_key(&offset) {
            return content;
        }
        let slot = self.location(solver, o, aligned);
        self.location_info(solver, slot).content
    }

    /// The one location of bytes `start..end` of object `o`: the fields and ranges there
    /// (and ranges overlapping it) become one.
    fn range_location(
        &mut self,
        solver: &mut Solver<Constraint>,
        o: u32,
        mut start: i64,
        mut end: i64,
    ) -> Element {
        let info = &self.objects[o as usize];
        if info.collapsed || info.function.is_some() || end <= start + 1 {
            return self.location(solver, o, start);
        }
        // Swallow overlapping ranges (a range starting before `start` and reaching in).
        let overlapping: Vec<(i64, i64)> = info
            .ranges
            .range(..end)
            .filter(|&(_, &e)| e > start)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in overlapping {
            self.objects[o as usize].ranges.remove(&s);
            start = start.min(s);
            end = end.max(e);
        }
        let inside: Vec<Element> = self.objects[o as usize]
            .fields
            .range(start..end)
            .map(|(_, &e)| e)
            .collect();
        let base = self.location(solver, o, start);
        if self.objects[o as usize].collapsed {
            return base;
        }
        for e in inside {
            self.merge_locations(solver, base, e);
        }
        let info = &mut self.objects[o as usize];
        info.fields
            .retain(|&off, _| off == start || !(start..end).contains(&off));
        info.ranges.insert(start, end);
        base
    }

    /// Makes object `o` one location: every field's element and contents become one.
    fn collapse(&mut self, solver: &mut Solver<Constraint>, o: u32) {
        if self.objects[o as usize].collapsed {
            return;
        }
        self.objects[o as usize].collapsed = true;
        let fields: Vec<Element> = self.objects[o as usize].fields.values().copied().collect();
        let base = match self.objects[o as usize].fields.get(&0) {
            Some(&b) => b,
            // Offset 0 may not exist yet; make it the collapsed location (directly: an
            // object with too many fields would be collapsed again, forever).
            None => self.new_location(solver, o, 0),
        };
        for f in fields {
            self.merge_locations(solver, base, f);
        }
    }

    /// Makes locations `a` and `b` one (`a`'s element stays), with one content.
    fn merge_locations(&mut self, solver: &mut Solver<Constraint>, a: Element, b: Element) {
        let (a, b) = (solver.find_element(a), solver.find_element(b));
        if a != b {
            solver.unify_elements(a, b);
            let (ca, cb) = (
                self.locations[a as usize].content,
                self.locations[b as usize].content,
            );
            solver.unify(ca, cb);
        }
    }

    /// The location element `e` stands for, as the solver's canonical element.
    fn location_info(&self, solver: &mut Solver<Constraint>, e: Element) -> &LocationInfo {
        let e = solver.find_element(e);
        &self.locations[e as usize]
    }

    fn pointee(&self, solver: &Solver<Constraint>, e: Element) -> Pointee {
        let loc = &self.locations[solver.find_element_const(e) as usize];
        let info = &self.objects[loc.object as usize];
        Pointee {
            object: info.object,
            offset: (!info.collapsed).then_some(loc.offset as u64),
        }
    }

    fn value(&mut self, solver: &mut Solver<Constraint>, module: u32, value: ValueId) -> Node {
        match self.values[module as usize].get_mut(value as usize) {
            Some(Some(n)) => *n,
            Some(slot) => *slot.insert(solver.new_node()),
            // Beyond `value_count` (an unvalidated summary): a node of its own.
            None => solver.new_node(),
        }
    }

    /// `dst` is derived from `base` by `how`. Values derived the same way from one node have
    /// equal sets: they share one node (offline value numbering), so the solver applies
    /// one constraint instead of many.
    fn derive(&mut self, solver: &mut Solver<Constraint>, base: Node, how: Derived, dst: Node) {
        let base = solver.find(base);
        match self.derived.entry((base, how)) {
            std::collections::hash_map::Entry::Occupied(e) => {
                solver.unify(*e.get(), dst);
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(dst);
                let c = match how {
                    Derived::Load => Constraint::Load { dst },
                    Derived::Stored => Constraint::Store { src: dst },
                    Derived::Field(offset) => Constraint::Field { dst, offset },
                    Derived::Element(start, len) => Constraint::Element { dst, start, len },
                };
                solver.add_constraint(base, c);
            }
        }
    }

    /// Object `o` escapes: outside code reads and writes all of it.
    fn escape_object(&mut self, solver: &mut Solver<Constraint>, o: u32) {
        if self.objects[o as usize].escaped {
            return;
        }
        self.objects[o as usize].escaped = true;
        let fields: Vec<Element> = self.objects[o as usize].fields.values().copied().collect();
        for e in fields {
            self.connect_escaped(solver, e);
        }
        if let Some(f) = self.objects[o as usize].function {
            // Outside code may call it with anything escaped, and gets what it returns.
            self.escape_body(solver, f);
        }
    }

    /// An escaped location holds what outside code may store (anything escaped), and what
    /// it holds escapes: its contents are the external object's.
    fn connect_escaped(&mut self, solver: &mut Solver<Constraint>, e: Element) {
        let content = self.locations[e as usize].content;
        solver.unify(self.external_node, content);
    }

    /// The location a global reference denotes, with its object.
    fn global_location(
        &mut self,
        view: &ProgramView,
        solver: &mut Solver<Constraint>,
        module: u32,
        global: u32,
    ) -> Option<(u32, Element)> {
        match view.resolve(module, global) {
            Target::Function(f) => {
                let o = self.function_object(view, f);
                Some((o, self.location(solver, o, 0)))
            }
            Target::Variable { var, exact } => {
                let o = self.object(Object::Global(var), None);
                if !exact {
                    self.collapse(solver, o);
                }
                Some((o, self.location(solver, o, 0)))
            }
            Target::Unknown => None,
        }
    }

    fn build(&mut self, view: &ProgramView, solver: &mut Solver<Constraint>) {
        let index = view.index;
        // Formals and returns first: call sites connect to them.
        for (m, module) in index.modules.iter().enumerate() {
            for fact in &module.facts {
                match *fact {
                    ValueFact::Argument {
                        function,
                        index: i,
                        dst,
                    } => {
                        let f = GlobalId {
                            module: m as u32,
                            index: function,
                        };
                        let formal = match self.formals.get(&(f, i)) {
                            Some(&n) => n,
                            None => {
                                let n = solver.new_node();
                                self.formals.insert((f, i), n);
                                self.formals_of.entry(f).or_default().push(n);
                                n
                            }
                        };
                        // A parameter is defined by its formal alone: the same set.
                        let dst = self.value(solver, m as u32, dst);
                        solver.unify(formal, dst);
                    }
                    ValueFact::Return { function, value } => {
                        let f = GlobalId {
                            module: m as u32,
                            index: function,
                        };
                        let ret = *self.returns.entry(f).or_insert_with(|| solver.new_node());
                        let v = self.value(solver, m as u32, value);
                        solver.add_edge(v, ret);
                    }
                    _ => {}
                }
            }
        }
        for (m, module) in index.modules.iter().enumerate() {
            let m = m as u32;
            let single = single_copies(&module.facts);
            for fact in &module.facts {
                match *fact {
                    // A value only ever copied from one other (a cast) is that value: one
                    // node for both, instead of an edge and a second set.
                    ValueFact::Copy { dst, src } if single.contains(&dst) => {
                        let (dst, src) = (self.value(solver, m, dst), self.value(solver, m, src));
                        solver.unify(src, dst);
                    }
                    _ => self.fact(view, solver, m, fact),
                }
            }
            for init in &module.initializers {
                // Only the definition the program uses contributes its initializer.
                let own = GlobalId {
                    module: m,
                    index: init.global,
                };
                if view.resolve(m, init.global)
                    != (Target::Variable {
                        var: own,
                        exact: true,
                    })
                {
                    continue;
                }
                let o = self.object(Object::Global(own), None);
                let cell =
                    self.location(solver, o, init.offset.min(MAX_FIELD_OFFSET as u64) as i64);
                if init.offset > MAX_FIELD_OFFSET as u64 {
                    self.collapse(solver, o);
                }
                if let Some((_, target)) = self.global_location(view, solver, m, init.target) {
                    let content = self.location_info(solver, cell).content;
                    solver.add_element(content, target);
                }
            }
        }
        self.call_sites(view, solver);
        self.outside_world(view, solver);
    }

    fn fact(
        &mut self,
        view: &ProgramView,
        solver: &mut Solver<Constraint>,
        m: u32,
        fact: &ValueFact,
    ) {
        match *fact {
            ValueFact::AddressOf { dst, global } => {
                let dst = self.value(solver, m, dst);
                match self.global_location(view, solver, m, global) {
                    Some((_, e)) => solver.add_element(dst, e),
                    None => solver.add_edge(self.external_node, dst),
                }
            }
            ValueFact::Copy { dst, src } => {
                let (dst, src) = (self.value(solver, m, dst), self.value(solver, m, src));
                solver.add_edge(src, dst);
            }
            ValueFact::FieldAddr { dst, base, offset } => {
                let (dst, base) = (self.value(solver, m, dst), self.value(solver, m, base));
                self.derive(solver, base, Derived::Field(offset), dst);
            }
            ValueFact::ArrayElement {
                dst,
                base,
                start,
                len,
            } => {
                let (dst, base) = (self.value(solver, m, dst), self.value(solver, m, base));
                self.derive(solver, base, Derived::Element(start, len), dst);
            }
            ValueFact::Load { dst, ptr } => {
                let (dst, ptr) = (self.value(solver, m, dst), self.value(solver, m, ptr));
                self.derive(solver, ptr, Derived::Load, dst);
            }
            ValueFact::Store { ptr, value } => {
                let (ptr, src) = (self.value(solver, m, ptr), self.value(solver, m, value));
                // Every value stored through one node goes to the same places: one node
                // collects them, one constraint stores it.
                let stored = match self.derived.get(&(solver.find(ptr), Derived::Stored)) {
                    Some(&s) => s,
                    None => {
                        let s = solver.new_node();
                        self.derive(solver, ptr, Derived::Stored, s);
                        s
                    }
                };
                solver.add_edge(src, stored);
            }
            ValueFact::Escape { value } => {
                let v = self.value(solver, m, value);
                solver.add_edge(v, self.external_node);
            }
            ValueFact::Unknown { dst } => {
                let dst = self.value(solver, m, dst);
                solver.add_edge(self.external_node, dst);
            }
            ValueFact::StackObject { dst, .. } => {
                let o = self.object(
                    Object::Stack {
                        module: m,
                        value: dst,
                    },
                    None,
                );
                let e = self.location(solver, o, 0);
                let dst = self.value(solver, m, dst);
                solver.add_element(dst, e);
            }
            // Connected with the call sites and formals.
            ValueFact::Argument { .. }
            | ValueFact::Return { .. }
            | ValueFact::CallArgument { .. }
            | ValueFact::CallResult { .. } => {}
        }
    }

    fn call_sites(&mut self, view: &ProgramView, solver: &mut Solver<Constraint>) {
        let index = view.index;
        for (m, module) in index.modules.iter().enumerate() {
            let m = m as u32;
            let mut args: Vec<Vec<Option<Node>>> = vec![Vec::new(); module.call_sites.len()];
            let mut results: Vec<Option<Node>> = vec![None; module.call_sites.len()];
            for fact in &module.facts {
                match *fact {
                    ValueFact::CallArgument {
                        call,
                        index: i,
                        value,
                    } => {
                        let v = self.value(solver, m, value);
                        if let Some(a) = args.get_mut(call as usize) {
                            if a.len() <= i as usize {
                                a.resize(i as usize + 1, None);
                            }
                            a[i as usize] = Some(v);
                        }
                    }
                    ValueFact::CallResult { call, dst } => {
                        let v = self.value(solver, m, dst);
                        if let Some(r) = results.get_mut(call as usize) {
                            *r = Some(v);
                        }
                    }
                    _ => {}
                }
            }
            for (c, cs) in module.call_sites.iter().enumerate() {
                let caller = GlobalId {
                    module: m,
                    index: cs.caller,
                };
                // Dead code passes nothing anywhere.
                if !view.live.is_live(caller) {
                    continue;
                }
                let site = self.sites.len() as u32;
                self.sites.push(Site {
                    module: m,
                    call: c as u32,
                    caller,
                    args: std::mem::take(&mut args[c]),
                    result: results[c],
                    byval: cs.byval.clone(),
                });
                match cs.callee {
                    Callee::Direct(g) => match view.resolve(m, g) {
                        Target::Function(f) => {
                            let o = self.function_object(view, f);
                            let e = self.location(solver, o, 0);
                            // A direct call's result is its one callee's return: one node.
                            let ret = self.returns.get(&f).copied();
                            let wrapper = self.wrappers.contains_key(&f);
                            if let (Some(true), false, Some(ret), Some(r)) =
                                (self.tracked.get(&f).copied(), wrapper, ret, results[c])
                            {
                                solver.unify(ret, r);
                            }
                            self.call_location(solver, site, e);
                        }
                        _ => self.unknown_call(solver, site),
                    },
                    Callee::Indirect(v) => {
                        let v = self.value(solver, m, v);
                        solver.add_constraint(v, Constraint::Call { site });
                    }
                }
            }
        }
    }

    /// The object of function `f`, classified on first sight: a body of the unit that
    /// calls to its name run, or a function outside it (called through the library models).
    fn function_object(&mut self, view: &ProgramView, f: GlobalId) -> u32 {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.tracked.entry(f) {
            let g = view.index.global(f);
            let tracked = view.tracked_definition(f) && g.kind == GlobalKind::Function;
            slot.insert(tracked);
            if !tracked {
                self.external_models
                    .insert(f, library::model(view.index, f));
            }
        }
        self.object(Object::Global(f), Some(f))
    }

    fn arg(&self, site: u32, i: u8) -> Option<Node> {
        self.sites[site as usize]
            .args
            .get(i as usize)
            .copied()
            .flatten()
    }

    fn unknown_call(&mut self, solver: &mut Solver<Constraint>, site: u32) {
        let s = &self.sites[site as usize];
        let args: Vec<Node> = s.args.iter().flatten().copied().collect();
        let result = s.result;
        for a in args {
            solver.add_edge(a, self.external_node);
        }
        if let Some(r) = result {
            solver.add_edge(self.external_node, r);
        }
    }

    fn library_call(&mut self, solver: &mut Solver<Constraint>, site: u32, model: Model) {
        let result = self.sites[site as usize].result;
        match model {
            Model::Unknown => self.unknown_call(solver, site),
            Model::Declared(d) => self.declared_call(solver, site, &d),
            Model::Frees => {}
            Model::NoCapture { returns } => {
                if let (Some(r), Some(a)) = (result, returns.and_then(|i| self.arg(site, i))) {
                    solver.add_edge(a, r);
                }
            }
            Model::Allocates { resizes } => {
                let fresh = self.heap_object(solver, site);
                if let Some(r) = result {
                    solver.add_element(r, fresh);
                }
                if let Some(old) = resizes.and_then(|i| self.arg(site, i)) {
                    // The result may be the old block itself, and the new block holds what
                    // the old one held.
                    if let Some(r) = result {
                        solver.add_edge(old, r);
                    }
                    let new_ptr = solver.new_node();
                    solver.add_element(new_ptr, fresh);
                    self.copy_contents(solver, new_ptr, old);
                }
            }
            Model::Copies { dst, src } => {
                if let (Some(d), Some(s)) = (self.arg(site, dst), self.arg(site, src)) {
                    self.copy_contents(solver, d, s);
                }
            }
            Model::VaStart { list } => {
                if let Some(p) = self.arg(site, list) {
                    let caller = self.sites[site as usize].caller;
                    let (_, area) = self.varargs(solver, caller);
                    let holder = solver.new_node();
                    solver.add_element(holder, area);
                    solver.add_constraint(p, Constraint::WriteAll { src: holder });
                }
            }
            Model::Calls {
                function,
                args,
                elements,
                returns_into,
            } => {
                if let Some(r) = result {
                    solver.add_edge(self.external_node, r);
                    if let Some(a) = returns_into.and_then(|i| self.arg(site, i)) {
                        self.interior(solver, a, r);
                    }
                }
                let Some(f) = self.arg(site, function) else {
                    return;
                };
                let mut passed = [None; 2];
                for (k, a) in args.iter().enumerate() {
                    let Some(p) = a.and_then(|i| self.arg(site, i)) else {
                        continue;
                    };
                    passed[k] = Some(if elements {
                        let inside = solver.new_node();
                        self.interior(solver, p, inside);
                        inside
                    } else {
                        p
                    });
                }
                solver.add_constraint(f, Constraint::Callback { args: passed });
            }
        }
    }

    /// A new heap object for the allocation at call site `site`: its first location.
    fn heap_object(&mut self, solver: &mut Solver<Constraint>, site: u32) -> Element {
        let (module, call) = (
            self.sites[site as usize].module,
            self.sites[site as usize].call,
        );
        let o = self.object(Object::Heap { module, call }, None);
        self.location(solver, o, 0)
    }

    /// `dst` points somewhere into the objects `src` points into.
    fn interior(&mut self, solver: &mut Solver<Constraint>, src: Node, dst: Node) {
        solver.add_constraint(src, Constraint::Field { dst, offset: None });
    }

    /// A call to a function outside the unit that does what its declarations' attributes
    /// allow, and no more (see [`library`]):
    /// - what it may keep (arguments it captures, pointers it reads through its
    ///   arguments) escapes if it may write memory beyond its arguments, else may be
    ///   stored through the arguments it writes or returned;
    /// - what it writes through an argument may be anything it keeps or anything escaped;
    /// - a function among what it is given may be called back with all of it;
    /// - the result is the `returned` argument, fresh memory (`noalias`) holding anything
    ///   it may store, or anything it keeps or that escaped.
    fn declared_call(&mut self, solver: &mut Solver<Constraint>, site: u32, d: &Declared) {
        let args: Vec<(usize, Node)> = self.sites[site as usize]
            .args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.map(|a| (i, a)))
            .collect();
        let result = self.sites[site as usize].result;
        let kept = solver.new_node();
        let reached = solver.new_node();
        for &(i, a) in &args {
            solver.add_edge(a, reached);
            if d.captures(i) {
                solver.add_edge(a, kept);
            }
            if d.reads_through(i) {
                solver.add_constraint(a, Constraint::ReadAll { dst: kept });
            }
        }
        solver.add_edge(kept, reached);
        solver.add_constraint(reached, Constraint::MayCallBack { passed: reached });
        if d.memory.writes_beyond_args() {
            solver.add_edge(kept, self.external_node);
        }
        // What it may store: anything it keeps, or anything escaped (its own memory).
        let stored = solver.new_node();
        solver.add_edge(kept, stored);
        solver.add_edge(self.external_node, stored);
        for &(i, a) in &args {
            if d.writes_through(i) {
                solver.add_constraint(a, Constraint::WriteAll { src: stored });
            }
        }
        let Some(r) = result else {
            return;
        };
        if let Some(a) = d.returned().and_then(|i| self.arg(site, i)) {
            solver.add_edge(a, r);
        } else if d.returns_noalias {
            let fresh = self.heap_object(solver, site);
            solver.add_element(r, fresh);
            let holder = solver.new_node();
            solver.add_element(holder, fresh);
            solver.add_constraint(holder, Constraint::WriteAll { src: stored });
        } else {
            // A pointer into anything it keeps (`strchr`), or anything escaped.
            self.interior(solver, kept, r);
            solver.add_edge(self.external_node, r);
        }
    }

    /// Every location of the objects `src` points into flows into every location of the
    /// objects `dst` points into (a byte copy: offsets are not followed, so both sides'
    /// objects are collapsed).
    fn copy_contents(&mut self, solver: &mut Solver<Constraint>, dst: Node, src: Node) {
        let bytes = solver.new_node();
        solver.add_constraint(src, Constraint::ReadAll { dst: bytes });
        solver.add_constraint(dst, Constraint::WriteAll { src: bytes });
    }

    /// Globals outside code can name, and functions whose bodies run without the unit's
    /// callers knowing them all, escape.
    fn outside_world(&mut self, view: &ProgramView, solver: &mut Solver<Constraint>) {
        let index = view.index;
        for id in index.ids() {
            let g = index.global(id);
            if !matches!(g.kind, GlobalKind::Function | GlobalKind::Variable) {
                continue;
            }
            let canonical = match view.resolve(id.module, id.index) {
                Target::Function(f) | Target::Variable { var: f, .. } => f,
                Target::Unknown => continue,
            };
            let o = match g.kind {
                GlobalKind::Function => self.function_object(view, canonical),
                _ => self.object(Object::Global(canonical), None),
            };
            if canonical == id {
                // Defined here (or the first declaration of a name defined outside):
                // escaped if outside code can name it or replace it.
                let declared_function = g.kind == GlobalKind::Function && g.is_declaration();
                if !declared_function && (!view.tracked_definition(id) || view.visible_outside(id))
                {
                    self.escape_object(solver, o);
                }
            } else {
                // Named here, defined elsewhere: a variable outside the unit is outside
                // memory. (A function outside the unit needs nothing: calls to it follow
                // the library models, and calls through external pointers are unknown.)
                if !view.tracked_definition(canonical) && g.kind == GlobalKind::Variable {
                    self.escape_object(solver, o);
                }
                // A body here that calls to the name do not run: only outside code could
                // call it, with anything.
                self.escape_body(solver, id);
            }
        }
    }

    fn escape_body(&mut self, solver: &mut Solver<Constraint>, f: GlobalId) {
        if !self.escaped_bodies.insert(f) {
            return;
        }
        if let Some(&va) = self.varargs.get(&f) {
            solver.add_edge(self.external_node, va);
        }
        let formals = self.formals_of.get(&f).cloned().unwrap_or_default();
        for n in formals {
            solver.add_edge(self.external_node, n);
        }
        if let Some(&r) = self.returns.get(&f) {
            solver.add_edge(r, self.external_node);
        }
    }
}

/// Values that exactly one `Copy` defines and nothing else (casts; not phis, selects or
/// parameters).
fn single_copies(facts: &[ValueFact]) -> std::collections::HashSet<ValueId> {
    let mut copies: HashMap<ValueId, u32> = HashMap::new();
    let mut defined = std::collections::HashSet::new();
    for f in facts {
        match *f {
            ValueFact::Copy { dst, .. } => *copies.entry(dst).or_default() += 1,
            ValueFact::AddressOf { dst, .. }
            | ValueFact::FieldAddr { dst, .. }
            | ValueFact::ArrayElement { dst, .. }
            | ValueFact::Load { dst, .. }
            | ValueFact::Argument { dst, .. }
            | ValueFact::CallResult { dst, .. }
            | ValueFact::Unknown { dst }
            | ValueFact::StackObject { dst, .. } => {
                defined.insert(dst);
            }
            _ => {}
        }
    }
    copies
        .into_iter()
        .filter(|&(v, n)| n == 1 && !defined.contains(&v))
        .map(|(v, _)| v)
        .collect()
}

impl Client for ProgramModel {
    type Constraint = Constraint;

    fn overflow(&mut self, solver: &mut Solver<Constraint>, node: Node) {
        let mut objects: Vec<u32> = solver
            .points_to(node)
            .into_iter()
            .map(|e| self.locations[e as usize].object)
            .collect();
        objects.sort_unstable();
        objects.dedup();
        for o in objects {
            self.escape_object(solver, o);
        }
        let ext = self.objects[self.external as usize].fields[&0];
        for c in solver.make_sink(node, ext, Constraint::Escaped) {
            self.apply(solver, node, &c, ext);
        }
    }

    fn apply(&mut self, solver: &mut Solver<Constraint>, _node: Node, c: &Constraint, e: Element) {
        match *c {
            Constraint::Load { dst } => {
                let content = self.slot(solver, e);
                solver.add_edge(content, dst);
            }
            Constraint::Store { src } => {
                let content = self.slot(solver, e);
                solver.add_edge(src, content);
            }
            Constraint::Field { dst, offset } => {
                let (o, base) = {
                    let loc = self.location_info(solver, e);
                    (loc.object, loc.offset)
                };
                // Arithmetic on a pointer into an array stays in the array (C allows no
                // more): the array's one location.
                if let Some(&end) = self.objects[o as usize].ranges.get(&base) {
                    match offset {
                        None => {
                            solver.add_element(dst, e);
                            return;
                        }
                        // A constant leading out of the array from somewhere in it (the
                        // struct around an element, `container_of`): the result could be
                        // anywhere that far from any element, which no one offset names.
                        Some(off)
                            if !base
                                .checked_add(off)
                                .is_some_and(|t| (base..end).contains(&t)) =>
                        {
                            self.collapse(solver, o)
                        }
                        Some(_) => {}
                    }
                }
                let target = match offset.and_then(|off| base.checked_add(off)) {
                    Some(t) if (0..=MAX_FIELD_OFFSET).contains(&t) => t,
                    _ => {
                        self.collapse(solver, o);
                        0
                    }
                };
                let loc = self.location(solver, o, target);
                solver.add_element(dst, loc);
            }
            Constraint::Element { dst, start, len } => {
                let (o, base) = {
                    let loc = self.location_info(solver, e);
                    (loc.object, loc.offset)
                };
                let range = base
                    .checked_add(start)
                    .and_then(|s| Some((s, s.checked_add(i64::try_from(len).ok()?)?)));
                let loc = match range {
                    Some((s, end)) if s >= 0 && end <= MAX_FIELD_OFFSET => {
                        self.range_location(solver, o, s, end)
                    }
                    _ => {
                        self.collapse(solver, o);
                        self.location(solver, o, 0)
                    }
                };
                solver.add_element(dst, loc);
            }
            Constraint::Call { site } => self.call_location(solver, site, e),
            Constraint::Callback { args } => {
                let object = self.location_info(solver, e).object;
                if object == self.external {
                    // An unknown callback: what it would be given escapes.
                    for a in args.into_iter().flatten() {
                        solver.add_edge(a, self.external_node);
                    }
                    return;
                }
                let Some(f) = self.objects[object as usize].function else {
                    return;
                };
                for (k, a) in args.iter().enumerate() {
                    if let (Some(a), Some(&formal)) = (a, self.formals.get(&(f, k as u32))) {
                        solver.add_edge(*a, formal);
                    }
                }
                // What it returns goes back to the library (pthread_join hands it out).
                if let Some(&r) = self.returns.get(&f) {
                    solver.add_edge(r, self.external_node);
                }
            }
            Constraint::MayCallBack { passed } => {
                let object = self.location_info(solver, e).object;
                if self.objects[object as usize].function.is_none() {
                    return;
                }
                // Outside code may call it, with anything the call could reach.
                solver.add_edge(passed, self.external_node);
                self.escape_object(solver, object);
            }
            Constraint::Escaped => {
                let object = self.location_info(solver, e).object;
                self.escape_object(solver, object);
            }
            Constraint::ReadAll { dst } => self.byte_copy(solver, e, dst, Copy::Out),
            Constraint::WriteAll { src } => self.byte_copy(solver, e, src, Copy::In),
        }
    }
}

impl ProgramModel {
    /// Bytes copied out of (or into) the object of location `e`, from `e` on: a byte copy
    /// (`memcpy`, `strcpy`, ...) through a pointer stays inside the object it points into
    /// and touches nothing before the pointer, so the slots from the one holding `e`'s
    /// first byte to the object's end, and those found later, flow into `node` (or receive
    /// it). Offsets are not matched (that needs the length), but the fields before the
    /// pointer keep their own contents: text copied after a struct's header in one
    /// allocation leaves the header's pointers alone.
    fn byte_copy(&mut self, solver: &mut Solver<Constraint>, e: Element, node: Node, how: Copy) {
        let loc = self.location_info(solver, e);
        let o = loc.object as usize;
        let from = if self.objects[o].collapsed {
            i64::MIN
        } else {
            loc.offset & !7
        };
        let info = &mut self.objects[o];
        match how {
            Copy::Out => info.copied_out.push((from, node)),
            Copy::In => info.copied_in.push((from, node)),
        }
        let reached: Vec<Element> = info.fields.range(from..).map(|(_, &l)| l).collect();
        for l in reached {
            let content = self.location_info(solver, l).content;
            match how {
                Copy::Out => solver.add_edge(content, node),
                Copy::In => solver.add_edge(node, content),
            }
        }
    }
}

/// Which way a byte copy goes, seen from the object.
#[derive(Clone, Copy)]
enum Copy {
    Out,
    In,
}

impl ProgramModel {
    /// What function `f`'s variadic arguments hold: the content of its one-location
    /// [`Object::VarArgs`] object, and that location.
    fn varargs(&mut self, solver: &mut Solver<Constraint>, f: GlobalId) -> (Node, Element) {
        let o = self.object(Object::VarArgs(f), None);
        self.collapse(solver, o);
        let loc = self.location(solver, o, 0);
        let content = self.location_info(solver, loc).content;
        if self.varargs.insert(f, content).is_none() && self.escaped_bodies.contains(&f) {
            solver.add_edge(self.external_node, content);
        }
        (content, loc)
    }

    /// Call site `site` calls allocation wrapper `w`: its result is a heap object of its
    /// own, holding what the wrapper stores into it.
    fn clone_heap(&mut self, solver: &mut Solver<Constraint>, site: u32, w: &Wrapper) {
        let s = &self.sites[site as usize];
        let (module, call, result) = (s.module, s.call, s.result);
        let o = self.object(Object::Heap { module, call }, None);
        let cell = |this: &mut Self, solver: &mut Solver<Constraint>, at: i64| {
            if !(0..=MAX_FIELD_OFFSET).contains(&at) {
                this.collapse(solver, o);
            }
            this.location(solver, o, at.clamp(0, MAX_FIELD_OFFSET))
        };
        let start = cell(self, solver, w.returns_at);
        if let Some(r) = result {
            solver.add_element(r, start);
        }
        for &(at, m, v) in &w.stores {
            let e = cell(self, solver, at);
            let content = self.location_info(solver, e).content;
            let v = self.value(solver, m, v);
            solver.add_edge(v, content);
        }
        if let Some(old) = w.resizes.and_then(|i| self.arg(site, i as u8)) {
            if let Some(r) = result {
                solver.add_edge(old, r);
            }
            let new_ptr = solver.new_node();
            solver.add_element(new_ptr, start);
            self.copy_contents(solver, new_ptr, old);
        }
    }

    /// Call site `site` calls location `e`: a function (classified when its object was
    /// made), external memory, or data (undefined behaviour, from a merged set: ignored).
    fn call_location(&mut self, solver: &mut Solver<Constraint>, site: u32, e: Element) {
        let object = self.location_info(solver, e).object;
        if object == self.external {
            return self.unknown_call(solver, site);
        }
        let Some(f) = self.objects[object as usize].function else {
            return;
        };
        match self.tracked.get(&f) {
            Some(true) => {
                let s = &self.sites[site as usize];
                let args: Vec<(u32, Node)> = s
                    .args
                    .iter()
                    .enumerate()
                    .filter_map(|(i, a)| a.map(|a| (i as u32, a)))
                    .collect();
                let result = s.result;
                let byval = s.byval.clone();
                for (i, a) in args {
                    match self.formals.get(&(f, i)) {
                        Some(&formal) => solver.add_edge(a, formal),
                        // Past the pointer parameters: a variadic argument (or one a
                        // prototype mismatch passes), what `va_arg` may read; passed by
                        // value, its bytes are in the argument area too.
                        None => {
                            let (va, _) = self.varargs(solver, f);
                            solver.add_edge(a, va);
                            if byval.contains(&i) {
                                solver.add_constraint(a, Constraint::ReadAll { dst: va });
                            }
                        }
                    }
                }
                if let Some(w) = self.wrappers.get(&f).cloned() {
                    self.clone_heap(solver, site, &w);
                } else if let (Some(r), Some(&ret)) = (result, self.returns.get(&f)) {
                    solver.add_edge(ret, r);
                }
            }
            Some(false) => {
                let model = self
                    .external_models
                    .get(&f)
                    .cloned()
                    .unwrap_or(Model::Unknown);
                self.library_call(solver, site, model);
            }
            // A function the builder never classified (unreachable in a valid index).
            None => self.unknown_call(solver, site),
        }
    }
}
