//! Allocation wrappers: functions that return fresh memory from an allocator (or from
//! another wrapper, directly or through a hook) and keep no other copy of it. Programs
//! allocate through them (`sqlite3Malloc`, `default_bzalloc`, `luaM_realloc_`), so with one
//! heap object per allocator call each program would have one heap object in all. The
//! points-to analysis gives every call site of a wrapper its own object instead (heap
//! cloning), and replays what the wrapper itself writes into the block (a size header).
//!
//! A function is a wrapper when every value it returns is derived (by casts, phis and
//! constant offsets) from results of allocator or wrapper calls, and those values are used
//! only to derive others, to be returned, as the address of a store, or as an argument of a
//! library function that touches nothing through it (`llvm.memset`). Whatever else happens to them
//! (stored somewhere, loaded from, passed to other code) could keep a second copy or read
//! the block in the wrapper's own context, so the function is not a wrapper.

use crate::index::GlobalId;
use crate::library::{self, Model};
use crate::model::{Callee, GlobalKind, ValueFact, ValueId};
use crate::program::{ProgramView, Target};
use std::collections::HashMap;

/// What a call to an allocation wrapper does, as its callers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrapper {
    /// Byte offset of the returned pointer into the block.
    pub returns_at: i64,
    /// The parameter whose block the new one replaces, `realloc`-like: the result may be
    /// that block, and the new block holds what it held.
    pub resizes: Option<u32>,
    /// What the wrapper (or a wrapper it calls) stores into the block: offset, and the
    /// stored value as (module, value id).
    pub stores: Vec<(i64, u32, ValueId)>,
}

/// What a call site may call, for wrapper detection.
pub(super) enum Callees {
    /// Functions by canonical id.
    Functions(Vec<GlobalId>),
    /// Something unknown (external memory, an unresolvable reference).
    Unknown,
}

/// Where a call's result comes from when it is fresh memory.
struct Fresh {
    returns_at: i64,
    /// The argument position whose block is resized, with the wrapper's stores to replay.
    resizes: Option<u32>,
    stores: Vec<(i64, u32, ValueId)>,
}

/// Per-module indexes of the facts by the values they mention (made once, for every
/// search).
pub(super) struct ModuleFacts<'a> {
    facts: &'a [ValueFact],
    /// Value → the facts that read it.
    uses: HashMap<ValueId, Vec<usize>>,
    /// Value → the facts that define it.
    defs: HashMap<ValueId, Vec<usize>>,
    /// Call site → its result value.
    results: HashMap<u32, ValueId>,
    /// Call site → its arguments by position.
    args: HashMap<u32, Vec<(u32, ValueId)>>,
    /// Function → its returned values.
    returns: HashMap<u32, Vec<ValueId>>,
}

impl<'a> ModuleFacts<'a> {
    /// The indexes of every module of the program.
    pub(super) fn of_program(view: &ProgramView<'a>) -> Vec<Self> {
        view.index
            .modules
            .iter()
            .map(|m| ModuleFacts::new(&m.facts))
            .collect()
    }

    fn new(facts: &'a [ValueFact]) -> Self {
        let mut m = ModuleFacts {
            facts,
            uses: HashMap::new(),
            defs: HashMap::new(),
            results: HashMap::new(),
            args: HashMap::new(),
            returns: HashMap::new(),
        };
        for (i, f) in facts.iter().enumerate() {
            let (def, used): (Option<ValueId>, &[ValueId]) = match f {
                ValueFact::AddressOf { dst, .. } => (Some(*dst), &[]),
                ValueFact::Copy { dst, src } => (Some(*dst), std::slice::from_ref(src)),
                ValueFact::FieldAddr { dst, base, .. }
                | ValueFact::ArrayElement { dst, base, .. } => {
                    (Some(*dst), std::slice::from_ref(base))
                }
                ValueFact::Load { dst, ptr } => (Some(*dst), std::slice::from_ref(ptr)),
                ValueFact::Store { ptr, value } => {
                    m.uses.entry(*ptr).or_default().push(i);
                    (None, std::slice::from_ref(value))
                }
                ValueFact::Escape { value } => (None, std::slice::from_ref(value)),
                ValueFact::Unknown { dst } | ValueFact::StackObject { dst, .. } => {
                    (Some(*dst), &[])
                }
                ValueFact::Argument { dst, .. } => (Some(*dst), &[]),
                ValueFact::Return { function, value } => {
                    m.returns.entry(*function).or_default().push(*value);
                    (None, std::slice::from_ref(value))
                }
                ValueFact::CallArgument { call, index, value } => {
                    m.args.entry(*call).or_default().push((*index, *value));
                    (None, std::slice::from_ref(value))
                }
                ValueFact::CallResult { call, dst } => {
                    m.results.insert(*call, *dst);
                    (Some(*dst), &[])
                }
            };
            if let Some(d) = def {
                m.defs.entry(d).or_default().push(i);
            }
            for &u in used {
                m.uses.entry(u).or_default().push(i);
            }
        }
        m
    }

    fn arg(&self, call: u32, index: u32) -> Option<ValueId> {
        self.args
            .get(&call)?
            .iter()
            .find(|a| a.0 == index)
            .map(|a| a.1)
    }

    /// The parameter position `v` is a constant offset (or cast) of, if it is one.
    fn formal_of(&self, mut v: ValueId) -> Option<u32> {
        for _ in 0..64 {
            let defs = self.defs.get(&v)?;
            let [d] = defs.as_slice() else {
                return None;
            };
            match self.facts[*d] {
                ValueFact::Argument { index, .. } => return Some(index),
                ValueFact::Copy { src, .. } => v = src,
                ValueFact::FieldAddr { base, .. } => v = base,
                _ => return None,
            }
        }
        None
    }
}

/// Finds the program's allocation wrappers. `callees` says what a call site may call
/// (a first points-to solution answers for indirect calls).
pub(super) fn find(
    view: &ProgramView,
    modules: &[ModuleFacts],
    callees: &dyn Fn(u32, u32) -> Callees,
) -> HashMap<GlobalId, Wrapper> {
    let index = view.index;
    let mut wrappers: HashMap<GlobalId, Wrapper> = HashMap::new();
    // Wrappers of wrappers are found in later rounds; a round that finds none ends it.
    for _round in 0..16 {
        let mut found = Vec::new();
        for (m, module) in index.modules.iter().enumerate() {
            let facts = &modules[m];
            // Fresh call results by calling function.
            let mut seeds: HashMap<u32, Vec<(ValueId, Fresh)>> = HashMap::new();
            for (c, cs) in module.call_sites.iter().enumerate() {
                let Some(&result) = facts.results.get(&(c as u32)) else {
                    continue;
                };
                let caller = GlobalId {
                    module: m as u32,
                    index: cs.caller,
                };
                // Only a function returning pointers can be a wrapper.
                if wrappers.contains_key(&caller)
                    || !view.live.is_live(caller)
                    || !facts.returns.contains_key(&cs.caller)
                {
                    continue;
                }
                let targets = match cs.callee {
                    Callee::Direct(g) => match view.resolve(m as u32, g) {
                        Target::Function(f) => Callees::Functions(vec![f]),
                        _ => Callees::Unknown,
                    },
                    Callee::Indirect(_) => callees(m as u32, c as u32),
                };
                if let Some(fresh) = fresh_call(view, &wrappers, &targets) {
                    seeds.entry(cs.caller).or_default().push((result, fresh));
                }
            }
            for (function, seeds) in seeds {
                let id = GlobalId {
                    module: m as u32,
                    index: function,
                };
                if let Some(w) = check(view, facts, m as u32, function, seeds) {
                    found.push((id, w));
                }
            }
        }
        if found.is_empty() {
            break;
        }
        wrappers.extend(found);
    }
    wrappers
}

/// The fresh memory a call to `targets` returns, when every target returns fresh memory
/// the same way.
fn fresh_call(
    view: &ProgramView,
    wrappers: &HashMap<GlobalId, Wrapper>,
    targets: &Callees,
) -> Option<Fresh> {
    let Callees::Functions(fs) = targets else {
        return None;
    };
    let mut out: Option<Fresh> = None;
    for &f in fs {
        let fresh = if let Some(w) = wrappers.get(&f) {
            Fresh {
                returns_at: w.returns_at,
                resizes: w.resizes,
                stores: w.stores.clone(),
            }
        } else {
            let g = view.index.global(f);
            if g.kind != GlobalKind::Function || view.tracked_definition(f) {
                return None;
            }
            match library::model(view.index, f) {
                Model::Allocates { resizes } => Fresh {
                    returns_at: 0,
                    resizes: resizes.map(u32::from),
                    stores: Vec::new(),
                },
                _ => return None,
            }
        };
        out = Some(match out {
            None => fresh,
            Some(mut prev) => {
                if prev.returns_at != fresh.returns_at || prev.resizes != fresh.resizes {
                    return None;
                }
                prev.stores.extend(fresh.stores);
                prev
            }
        });
    }
    out
}

/// Whether `function`, whose calls `seeds` return fresh memory, is a wrapper.
fn check(
    view: &ProgramView,
    facts: &ModuleFacts,
    m: u32,
    function: u32,
    seeds: Vec<(ValueId, Fresh)>,
) -> Option<Wrapper> {
    let returns = facts.returns.get(&function)?;
    // Derived values with their offsets into the block.
    let mut offset: HashMap<ValueId, i64> = HashMap::new();
    let mut stores = Vec::new();
    let mut resizes: Option<u32> = None;
    let mut work: Vec<ValueId> = Vec::new();
    for (v, fresh) in seeds {
        if let Some(i) = fresh.resizes {
            // The block resized must be one the wrapper was given.
            let call = call_of(facts, v)?;
            let old = facts.arg(call, i)?;
            let formal = facts.formal_of(old)?;
            if resizes.is_some_and(|r| r != formal) {
                return None;
            }
            resizes = Some(formal);
        }
        stores.extend(fresh.stores);
        if offset
            .insert(v, fresh.returns_at)
            .is_some_and(|o| o != fresh.returns_at)
        {
            return None;
        }
        work.push(v);
    }
    while let Some(v) = work.pop() {
        let at = offset[&v];
        for &u in facts.uses.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
            let derived = match facts.facts[u] {
                ValueFact::Copy { dst, .. } => Some((dst, at)),
                ValueFact::FieldAddr {
                    dst, offset: off, ..
                } => Some((dst, at.checked_add(off?)?)),
                ValueFact::Store { ptr, value } if ptr == v && value != v => {
                    if offset.contains_key(&value) {
                        return None;
                    }
                    stores.push((at, m, value));
                    None
                }
                ValueFact::Return { .. } => None,
                // Only marks the arrays of the block's type (nothing uses the result).
                ValueFact::ArrayElement { dst, .. } if !facts.uses.contains_key(&dst) => None,
                ValueFact::CallArgument { call, index, .. } => {
                    touches_nothing_through(view, m, call, index)?;
                    None
                }
                _ => return None,
            };
            if let Some((dst, off)) = derived {
                match offset.get(&dst) {
                    Some(&o) if o != off => return None,
                    Some(_) => {}
                    None => {
                        offset.insert(dst, off);
                        work.push(dst);
                    }
                }
            }
        }
    }
    // A derived value defined from anything else too (a phi with a parameter) may not be
    // fresh.
    for &v in offset.keys() {
        for &d in facts.defs.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
            match facts.facts[d] {
                ValueFact::Copy { src, .. } if offset.contains_key(&src) => {}
                ValueFact::FieldAddr { base, .. } if offset.contains_key(&base) => {}
                ValueFact::CallResult { .. } => {}
                _ => return None,
            }
        }
    }
    let mut at = None;
    for r in returns {
        let o = *offset.get(r)?;
        if at.is_some_and(|a| a != o) {
            return None;
        }
        at = Some(o);
    }
    Some(Wrapper {
        returns_at: at?,
        resizes,
        stores,
    })
}

/// The call site whose result is `v`.
fn call_of(facts: &ModuleFacts, v: ValueId) -> Option<u32> {
    facts
        .defs
        .get(&v)?
        .iter()
        .find_map(|&d| match facts.facts[d] {
            ValueFact::CallResult { call, .. } => Some(call),
            _ => None,
        })
}

/// Some(()) when call `call` goes to a library function that neither keeps, returns,
/// reads nor stores pointers through its argument `index`.
fn touches_nothing_through(view: &ProgramView, m: u32, call: u32, index: u32) -> Option<()> {
    let cs = view.index.modules[m as usize]
        .call_sites
        .get(call as usize)?;
    let Callee::Direct(g) = cs.callee else {
        return None;
    };
    let Target::Function(f) = view.resolve(m, g) else {
        return None;
    };
    if view.tracked_definition(f) {
        return None;
    }
    let i = index as usize;
    match library::model(view.index, f) {
        Model::NoCapture { returns: None } | Model::Frees => Some(()),
        Model::Declared(d) if !d.captures(i) && !d.reads_through(i) && !d.writes_through(i) => {
            Some(())
        }
        _ => None,
    }
}
