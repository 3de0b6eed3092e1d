//! Turning the combined index into the called-value problem: what every global reference
//! denotes after symbol resolution, which functions and variables outside code can reach,
//! and one [`Rule`] per fact, call site and variable, with the seeds of the escapes.

use super::{CalledValueLattice, Cause, CvpKey, IndirectSite, Location, Offset, Rule};
use crate::dead::Liveness;
use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::model::{Callee, GlobalFlags, GlobalKind, ValueFact, ValueId};
use crate::program::{self, ProgramView};
use crate::sparse::{FxBuildHasher, KeyId, SparseSolver};
use std::collections::{BTreeSet, HashSet};

/// What a global reference denotes in the linked program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Function(GlobalId),
    Variable {
        var: GlobalId,
        offset: Offset,
    },
    /// Nothing the analysis can name (an alias cycle, an index out of range).
    Unknown,
}

/// How an external function treats its arguments (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ExternalEffect {
    /// Copies the object argument 1 points into the one argument 0 points to.
    MemoryCopy,
    /// Neither captures nor writes pointers.
    NoCapture { returns_first: bool },
    /// Anything: pointer arguments escape.
    Captures,
}

/// The effect of an external function `f`, from [`crate::library`]: this analysis knows the
/// intrinsics that copy memory or capture nothing; any other function may keep, call back
/// or store over what its arguments reach, so they escape.
pub(super) fn external_effect(index: &CombinedIndex, f: GlobalId) -> ExternalEffect {
    use crate::library::{model, Model};
    match model(index, f) {
        Model::Copies { .. } => ExternalEffect::MemoryCopy,
        Model::NoCapture { returns } => ExternalEffect::NoCapture {
            returns_first: returns == Some(0),
        },
        Model::Frees => ExternalEffect::NoCapture {
            returns_first: false,
        },
        _ => ExternalEffect::Captures,
    }
}

/// Turns the index into rules and seeds.
pub(super) struct Builder<'a> {
    index: &'a CombinedIndex,
    res: &'a Resolutions,
    live: &'a Liveness,
    pub(super) solver: SparseSolver<CalledValueLattice>,
    /// Per module, per global: what a reference to it denotes (filled on demand).
    targets: Vec<Vec<Option<Target>>>,
    pub(super) rules: Vec<Rule>,
    pub(super) sites: Vec<IndirectSite>,
    /// (function body, parameter index) pairs that some `Argument` fact reads.
    pub(super) formals: HashSet<(GlobalId, u32), FxBuildHasher>,
    /// Per module, per global: a function body the program runs when the name is called.
    pub(super) tracked_body: Vec<Vec<bool>>,
    /// Per module, per global: its [`CvpKey::Escaped`] key.
    pub(super) escaped: Vec<Vec<KeyId>>,
    /// Per module, per value id below `value_count`: its key, once created.
    values: Vec<Vec<Option<KeyId>>>,
    /// Canonical variables some location points into.
    variables: BTreeSet<GlobalId>,
    escaped_functions: Vec<GlobalId>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(index: &'a CombinedIndex, res: &'a Resolutions, live: &'a Liveness) -> Self {
        let mut builder = Builder {
            index,
            res,
            live,
            solver: SparseSolver::new(CalledValueLattice::new()),
            targets: index
                .modules
                .iter()
                .map(|m| vec![None; m.globals.len()])
                .collect(),
            rules: Vec::new(),
            sites: Vec::new(),
            formals: HashSet::default(),
            tracked_body: Vec::new(),
            escaped: Vec::new(),
            values: index
                .modules
                .iter()
                .map(|m| vec![None; m.value_count as usize])
                .collect(),
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
        builder.escaped = index
            .modules
            .iter()
            .enumerate()
            .map(|(m, module)| {
                (0..module.globals.len() as u32)
                    .map(|index| {
                        let id = GlobalId {
                            module: m as u32,
                            index,
                        };
                        builder.solver.new_key(CvpKey::Escaped(id))
                    })
                    .collect()
            })
            .collect();
        builder
    }

    fn escaped_key(&self, id: GlobalId) -> KeyId {
        self.escaped[id.module as usize][id.index as usize]
    }

    fn view(&self) -> ProgramView<'a> {
        ProgramView::new(self.index, self.res, self.live)
    }

    fn tracked_definition(&self, id: GlobalId) -> bool {
        self.view().tracked_definition(id)
    }

    fn closed(&self, id: GlobalId) -> bool {
        self.view().closed(id)
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
                let t = self.resolve(module, index);
                self.targets[module as usize][index as usize] = Some(t);
                t
            }
        }
    }

    fn resolve(&self, module: u32, index: u32) -> Target {
        match self.view().resolve(module, index) {
            program::Target::Function(f) => Target::Function(f),
            program::Target::Variable { var, exact } => Target::Variable {
                var,
                offset: if exact {
                    Offset::Known(0)
                } else {
                    Offset::Unknown
                },
            },
            program::Target::Unknown => Target::Unknown,
        }
    }

    fn value(&mut self, module: u32, value: ValueId) -> KeyId {
        let key = CvpKey::Value { module, value };
        match self.values[module as usize].get_mut(value as usize) {
            Some(Some(k)) => *k,
            Some(slot) => *slot.insert(self.solver.new_key(key)),
            // Beyond `value_count` (a summary that was not validated): still a value.
            None => self.solver.key(key),
        }
    }

    fn push(&mut self, rule: Rule) {
        self.rules.push(rule);
    }

    /// `dst` holds the address of `target` (Unknown when the target has no location).
    fn push_address_of(&mut self, dst: KeyId, target: Target) {
        let rule = match self.location(target) {
            Some(location) => Rule::Constant { dst, location },
            None => Rule::Unknown {
                dst,
                cause: Cause::Unmodelled,
            },
        };
        self.push(rule);
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
                self.solver.mark_overdefined(self.escaped_key(var));
            }
            Target::Unknown => {}
        }
    }

    pub(super) fn build(&mut self) {
        let index = self.index;
        // Formals first: call sites need to know which parameters a body reads.
        for (m, module) in index.modules.iter().enumerate() {
            for fact in &module.facts {
                let (function, formal) = match *fact {
                    ValueFact::Argument {
                        function, index, ..
                    } => (function, Some(index)),
                    ValueFact::Return { function, .. } => (function, None),
                    _ => continue,
                };
                let body = GlobalId {
                    module: m as u32,
                    index: function,
                };
                if let Some(i) = formal {
                    self.formals.insert((body, i));
                }
                // Facts of something no call reaches as a body (a declaration, in a
                // malformed summary): its parameters cannot come from known callers.
                if self.index.get(body).is_some() && !self.is_tracked_body(body) {
                    self.escaped_functions.push(body);
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
        let index = self.index;
        let module = &index.modules[m as usize];
        for fact in &module.facts {
            match *fact {
                ValueFact::AddressOf { dst, global } => {
                    let dst = self.value(m, dst);
                    let target = self.target(m, global);
                    self.push_address_of(dst, target);
                }
                ValueFact::Copy { dst, src } => {
                    let (dst, src) = (self.value(m, dst), self.value(m, src));
                    self.push(Rule::Copy { dst, src });
                }
                ValueFact::FieldAddr { dst, base, offset } => {
                    let (dst, base) = (self.value(m, dst), self.value(m, base));
                    self.push(Rule::FieldAddr { dst, base, offset });
                }
                // CVP tracks whole variables per field: an element anywhere in an array
                // is at an unknown offset.
                ValueFact::ArrayElement { dst, base, .. } => {
                    let (dst, base) = (self.value(m, dst), self.value(m, base));
                    self.push(Rule::FieldAddr {
                        dst,
                        base,
                        offset: None,
                    });
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
                    if self.index.get(body).is_none() {
                        continue;
                    }
                    let rule = Rule::Argument {
                        function: body,
                        escaped: self.escaped_key(body),
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
                    if self.index.get(body).is_none() {
                        continue;
                    }
                    let rule = Rule::Return {
                        escaped: self.escaped_key(body),
                        value: self.value(m, value),
                        ret: self.solver.key(CvpKey::Return(body)),
                    };
                    self.push(rule);
                }
                ValueFact::Escape { value } => {
                    let value = self.value(m, value);
                    self.push(Rule::Escape { value });
                }
                // This analysis has no stack objects: an alloca's address is not a function
                // and stays as unknown as before (the points-to engine models it).
                ValueFact::Unknown { dst } | ValueFact::StackObject { dst, .. } => {
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
        let index = self.index;
        let module = &index.modules[m as usize];
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
                        self.push_address_of(dst, target);
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
        let index = self.index;
        let module = &index.modules[m as usize];
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
        let effect = external_effect(self.index, f);
        let buffer = self.solver.key(CvpKey::CopyBuffer {
            module: m,
            site: position,
        });
        self.external_call(effect, Some(buffer), caller_live, arguments);
        for &dst in results {
            let returns_first = matches!(
                effect,
                ExternalEffect::NoCapture {
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
                (ExternalEffect::MemoryCopy, Some(buffer), 0) => Rule::Store {
                    ptr: value,
                    value: buffer,
                    whole_object: true,
                },
                (ExternalEffect::MemoryCopy, Some(buffer), 1) => Rule::Load {
                    dst: buffer,
                    ptr: value,
                    whole_object: true,
                },
                // The length of a copy, the value of a memset, a size for objectsize.
                (ExternalEffect::MemoryCopy | ExternalEffect::NoCapture { .. }, _, _) => continue,
                (ExternalEffect::Captures, _, _) => Rule::Escape { value },
            };
            self.push(rule);
        }
    }

    /// References the facts do not account for (see "Missing facts" in the module docs).
    fn module_safety_net(&mut self, m: u32) {
        let index = self.index;
        let module = &index.modules[m as usize];
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
            self.solver.mark_overdefined(self.escaped_key(f));
        }
    }

    fn variable_rules(&mut self) {
        for var in std::mem::take(&mut self.variables) {
            let escaped = self.escaped_key(var);
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
