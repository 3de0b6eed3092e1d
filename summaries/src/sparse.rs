//! A generic sparse propagation solver: the fixpoint engine under the whole-program value
//! analyses ([`crate::cvp`]).
//!
//! It follows the idea of LLVM's `SparseSolver` (llvm/Analysis/SparsePropagation.h, the LLVM
//! notes' seed 002): lattice values live on *keys*, information moves from the keys a transfer
//! function reads to the keys it writes, and only what depends on a key that changed is
//! evaluated again. Where LLVM's solver walks IR (instruction users, executable blocks), this
//! one knows nothing about IR or summaries:
//!
//! - A [`Lattice`] names the key and value types, the bottom value every key starts at, the
//!   join, and the top (Overdefined) value.
//! - The problem is a set of numbered *rules* (typically one per fact) and a [`Transfer`] that
//!   evaluates one rule at a time through a [`Context`]. A rule reads keys and joins values
//!   into keys; every key a rule reads is recorded as one of its inputs *while it runs*, so a
//!   rule's inputs may depend on values (a load reads the memory cells its pointer points to,
//!   and learns which ones only when it runs).
//! - When a join changes a key, every rule that has read that key is put back on the
//!   worklist (once, however many of its inputs changed). Nothing else is revisited.
//!
//! Values only move up the lattice (joins), so with a lattice of finite height every rule
//! runs a bounded number of times and [`SparseSolver::solve`] terminates. The solver can be
//! seeded and solved again after a fixpoint; only the rules depending on the new seeds run.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;

/// The value space of a sparse problem: a join-semilattice of finite height with a bottom
/// (Undefined: nothing has flowed here yet) and a top (Overdefined: anything).
pub trait Lattice {
    /// What values are attached to (SSA values, memory cells, formal parameters, ...).
    type Key: Clone + Eq + Hash;
    type Value: Clone;

    /// The value of a key nothing has been joined into.
    fn bottom(&self) -> Self::Value;
    /// The top of the lattice.
    fn overdefined(&self) -> Self::Value;
    fn is_overdefined(&self, value: &Self::Value) -> bool;
    /// Joins `from` into `into` (least upper bound) and says whether `into` changed. It must
    /// be monotone and only ever move `into` up, or the solver may not terminate.
    fn join(&self, into: &mut Self::Value, from: &Self::Value) -> bool;
}

/// A key's dense number inside one solver, given by [`SparseSolver::key`]. Rules keep these
/// instead of keys so that evaluating a rule does not hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId(pub u32);

/// A rule's number: what the [`Transfer`] is asked to evaluate. The solver gives them no
/// meaning; the problem numbers its rules from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(pub u32);

/// The problem's transfer functions.
pub trait Transfer<L: Lattice> {
    /// Evaluates `rule`: reads its inputs through `cx` (which records them) and joins its
    /// outputs. Evaluating a rule again with unchanged inputs must not change anything: the
    /// solver re-runs whole rules, not deltas.
    fn apply(&mut self, rule: RuleId, cx: &mut Context<'_, L>);
}

/// Closures are transfers too, which keeps small problems (and tests) short.
impl<L: Lattice, F: FnMut(RuleId, &mut Context<'_, L>)> Transfer<L> for F {
    fn apply(&mut self, rule: RuleId, cx: &mut Context<'_, L>) {
        self(rule, cx)
    }
}

/// How much work a solve took, for statistics and for the tests that check sparseness.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SolverStats {
    /// Rule evaluations.
    pub rule_visits: u64,
    /// Joins that changed a key (including marking it Overdefined).
    pub changes: u64,
}

/// The worklist solver. See the module docs.
pub struct SparseSolver<L: Lattice> {
    lattice: L,
    ids: HashMap<L::Key, KeyId, FxBuildHasher>,
    keys: Vec<L::Key>,
    values: Vec<L::Value>,
    /// Per key: the first of the rules that have read it (each once), in `dependents`.
    /// The dependency graph lives in two flat lists of links rather than a `Vec` per key
    /// and per rule: most keys and rules have one or two links, and a million small
    /// vectors cost more in allocation than the propagation itself.
    first_dependent: Vec<u32>,
    dependents: Vec<Link>,
    /// Per rule: the first of the keys it has read, in `inputs`, and how many there are, so
    /// that a rule reading the same keys on every evaluation is recorded once. Most rules
    /// read a handful of keys, where a scan beats hashing; rules with many inputs also use
    /// `recorded`.
    first_input: Vec<u32>,
    input_count: Vec<u32>,
    inputs: Vec<Link>,
    /// (key, rule) pairs, packed in a u64, for the inputs of rules with many of them.
    recorded: HashSet<u64, FxBuildHasher>,
    worklist: VecDeque<RuleId>,
    /// Per rule: already on the worklist.
    queued: Vec<bool>,
    stats: SolverStats,
}

impl<L: Lattice> SparseSolver<L> {
    pub fn new(lattice: L) -> Self {
        SparseSolver {
            lattice,
            ids: HashMap::default(),
            keys: Vec::new(),
            values: Vec::new(),
            first_dependent: Vec::new(),
            dependents: Vec::new(),
            first_input: Vec::new(),
            input_count: Vec::new(),
            inputs: Vec::new(),
            recorded: HashSet::default(),
            worklist: VecDeque::new(),
            queued: Vec::new(),
            stats: SolverStats::default(),
        }
    }

    pub fn lattice(&self) -> &L {
        &self.lattice
    }

    /// The number of `key`, interning it (at bottom) if it is new.
    pub fn key(&mut self, key: L::Key) -> KeyId {
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = self.new_key(key.clone());
        self.ids.insert(key, id);
        id
    }

    /// A new key the problem will only refer to by its number: unlike [`SparseSolver::key`]
    /// it is not entered in the lookup table, so [`SparseSolver::find`] does not know it.
    /// For keys the problem numbers densely itself (one per SSA value, per global), where a
    /// hash insert per key would be most of the cost of building the problem.
    pub fn new_key(&mut self, key: L::Key) -> KeyId {
        let id = KeyId(u32::try_from(self.keys.len()).expect("more than 2^32 lattice keys"));
        self.keys.push(key);
        self.values.push(self.lattice.bottom());
        self.first_dependent.push(NO_LINK);
        id
    }

    /// The number of `key` if anything has mentioned it.
    pub fn find(&self, key: &L::Key) -> Option<KeyId> {
        self.ids.get(key).copied()
    }

    /// The key numbered `id`.
    pub fn key_of(&self, id: KeyId) -> &L::Key {
        &self.keys[id.0 as usize]
    }

    /// The current value of a key.
    pub fn value(&self, id: KeyId) -> &L::Value {
        &self.values[id.0 as usize]
    }

    /// The current value of `key`; bottom if nothing ever mentioned it.
    pub fn value_of(&self, key: &L::Key) -> L::Value {
        match self.find(key) {
            Some(id) => self.value(id).clone(),
            None => self.lattice.bottom(),
        }
    }

    /// Number of keys interned so far.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    pub fn stats(&self) -> SolverStats {
        self.stats
    }

    /// Puts `rule` on the worklist (no-op if it is already there).
    pub fn schedule(&mut self, rule: RuleId) {
        let r = rule.0 as usize;
        if r >= self.queued.len() {
            self.queued.resize(r + 1, false);
            self.first_input.resize(r + 1, NO_LINK);
            self.input_count.resize(r + 1, 0);
        }
        if !self.queued[r] {
            self.queued[r] = true;
            self.worklist.push_back(rule);
        }
    }

    /// Schedules rules `0..count`, in order: the first pass over a problem.
    pub fn schedule_all(&mut self, count: u32) {
        for r in 0..count {
            self.schedule(RuleId(r));
        }
    }

    /// Seeds a value from outside any rule; the rules that read `id` are scheduled if it
    /// changed.
    pub fn join(&mut self, id: KeyId, value: &L::Value) -> bool {
        let changed = self.lattice.join(&mut self.values[id.0 as usize], value);
        if changed {
            self.changed(id);
        }
        changed
    }

    /// Moves a key to the top of the lattice; the rules that read it are scheduled if it
    /// was not there already.
    pub fn mark_overdefined(&mut self, id: KeyId) -> bool {
        let slot = &mut self.values[id.0 as usize];
        if self.lattice.is_overdefined(slot) {
            return false;
        }
        *slot = self.lattice.overdefined();
        self.changed(id);
        true
    }

    /// Runs the worklist dry: afterwards every rule has seen the final value of every key it
    /// read.
    pub fn solve(&mut self, transfer: &mut impl Transfer<L>) {
        while let Some(rule) = self.worklist.pop_front() {
            // Cleared before the rule runs: a rule whose own output feeds one of its inputs
            // must run again.
            self.queued[rule.0 as usize] = false;
            self.stats.rule_visits += 1;
            transfer.apply(rule, &mut Context { solver: self, rule });
        }
    }

    fn changed(&mut self, id: KeyId) {
        self.stats.changes += 1;
        let mut link = self.first_dependent[id.0 as usize];
        while link != NO_LINK {
            let Link { item: r, next } = self.dependents[link as usize];
            // Every dependent has run once, so `queued` is long enough.
            if !self.queued[r as usize] {
                self.queued[r as usize] = true;
                self.worklist.push_back(RuleId(r));
            }
            link = next;
        }
    }

    fn record(&mut self, id: KeyId, rule: RuleId) {
        const SCANNED_INPUTS: u32 = 16;
        let r = rule.0 as usize;
        let pair = |k: u32| (u64::from(k) << 32) | u64::from(rule.0);
        let count = self.input_count[r];
        let new = if count < SCANNED_INPUTS {
            !self.input_list(r).any(|k| k == id.0)
        } else {
            if count == SCANNED_INPUTS {
                // Switching to the hash set: it must know the inputs recorded so far.
                let known: Vec<u32> = self.input_list(r).collect();
                self.recorded.extend(known.into_iter().map(pair));
            }
            self.recorded.insert(pair(id.0))
        };
        if new {
            self.input_count[r] += 1;
            push_link(&mut self.inputs, &mut self.first_input[r], id.0);
            push_link(
                &mut self.dependents,
                &mut self.first_dependent[id.0 as usize],
                rule.0,
            );
        }
    }

    /// The keys rule `r` has read so far.
    fn input_list(&self, r: usize) -> impl Iterator<Item = u32> + '_ {
        let mut link = self.first_input[r];
        std::iter::from_fn(move || {
            (link != NO_LINK).then(|| {
                let Link { item, next } = self.inputs[link as usize];
                link = next;
                item
            })
        })
    }
}

/// One entry of a singly linked list kept in a `Vec`: a key or rule number, and the
/// position of the next entry.
#[derive(Debug, Clone, Copy)]
struct Link {
    item: u32,
    next: u32,
}

/// The end of a list of [`Link`]s.
const NO_LINK: u32 = u32::MAX;

/// Prepends `item` to the list starting at `*head`.
fn push_link(links: &mut Vec<Link>, head: &mut u32, item: u32) {
    let at = u32::try_from(links.len()).expect("more than 2^32 dependencies");
    links.push(Link { item, next: *head });
    *head = at;
}

/// What a rule sees while it runs: the solver's state, with every read recorded as an input
/// of the rule.
pub struct Context<'s, L: Lattice> {
    solver: &'s mut SparseSolver<L>,
    rule: RuleId,
}

impl<L: Lattice> Context<'_, L> {
    /// The rule being evaluated.
    pub fn rule(&self) -> RuleId {
        self.rule
    }

    pub fn lattice(&self) -> &L {
        &self.solver.lattice
    }

    /// The number of `key` (see [`SparseSolver::key`]); does not make it an input.
    pub fn key(&mut self, key: L::Key) -> KeyId {
        self.solver.key(key)
    }

    /// The value of `id`, which becomes an input of this rule: the rule runs again when it
    /// changes.
    pub fn read(&mut self, id: KeyId) -> &L::Value {
        self.solver.record(id, self.rule);
        self.solver.value(id)
    }

    /// The value of `id` without making it an input: for a rule that only needs to know the
    /// current value of a key it writes.
    pub fn peek(&self, id: KeyId) -> &L::Value {
        self.solver.value(id)
    }

    /// Joins `value` into `id`; see [`SparseSolver::join`].
    pub fn join(&mut self, id: KeyId, value: &L::Value) -> bool {
        self.solver.join(id, value)
    }

    /// See [`SparseSolver::mark_overdefined`].
    pub fn mark_overdefined(&mut self, id: KeyId) -> bool {
        self.solver.mark_overdefined(id)
    }
}

/// The Fx hash (rustc's): keys here are small integers and enums of them, for which
/// SipHash's flood resistance buys nothing and costs most of a lookup.
pub(crate) use rustc_hash::FxBuildHasher;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The toy problem: which small integers reach each node of a graph. A value is a set of
    /// integers, capped: more than `cap` members is Top.
    struct SmallSets {
        cap: usize,
    }

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Consts {
        Set(BTreeSet<u8>),
        Top,
    }

    impl Lattice for SmallSets {
        type Key = u32;
        type Value = Consts;

        fn bottom(&self) -> Consts {
            Consts::Set(BTreeSet::new())
        }

        fn overdefined(&self) -> Consts {
            Consts::Top
        }

        fn is_overdefined(&self, value: &Consts) -> bool {
            *value == Consts::Top
        }

        fn join(&self, into: &mut Consts, from: &Consts) -> bool {
            match (&mut *into, from) {
                (Consts::Top, _) => false,
                (_, Consts::Top) => {
                    *into = Consts::Top;
                    true
                }
                (Consts::Set(a), Consts::Set(b)) => {
                    let before = a.len();
                    a.extend(b.iter().copied());
                    if a.len() > self.cap {
                        *into = Consts::Top;
                        true
                    } else {
                        a.len() != before
                    }
                }
            }
        }
    }

    /// A graph problem: `consts[n]` are node n's own integers, `edges` flow from → to, one
    /// rule per edge; rules after the edges seed the constants. Counts evaluations per rule.
    struct Graph {
        edges: Vec<(u32, u32)>,
        consts: Vec<(u32, u8)>,
        visits: Vec<u32>,
    }

    impl Graph {
        fn new(edges: &[(u32, u32)], consts: &[(u32, u8)]) -> Self {
            Graph {
                edges: edges.to_vec(),
                consts: consts.to_vec(),
                visits: vec![0; edges.len() + consts.len()],
            }
        }

        fn rule_count(&self) -> u32 {
            (self.edges.len() + self.consts.len()) as u32
        }
    }

    impl Transfer<SmallSets> for Graph {
        fn apply(&mut self, rule: RuleId, cx: &mut Context<'_, SmallSets>) {
            let r = rule.0 as usize;
            self.visits[r] += 1;
            if let Some(&(from, to)) = self.edges.get(r) {
                let from = cx.key(from);
                let to = cx.key(to);
                let v = cx.read(from).clone();
                cx.join(to, &v);
            } else {
                let (node, c) = self.consts[r - self.edges.len()];
                let node = cx.key(node);
                cx.join(node, &Consts::Set([c].into()));
            }
        }
    }

    fn solve(graph: &mut Graph, cap: usize) -> SparseSolver<SmallSets> {
        let mut solver = SparseSolver::new(SmallSets { cap });
        solver.schedule_all(graph.rule_count());
        solver.solve(graph);
        solver
    }

    fn set(values: &[u8]) -> Consts {
        Consts::Set(values.iter().copied().collect())
    }

    #[test]
    fn constants_flow_along_edges() {
        // 0 → 1 → 2, 3 → 2.
        let mut g = Graph::new(&[(0, 1), (1, 2), (3, 2)], &[(0, 7), (3, 9)]);
        let s = solve(&mut g, 4);
        assert_eq!(s.value_of(&1), set(&[7]));
        assert_eq!(s.value_of(&2), set(&[7, 9]));
        assert_eq!(s.value_of(&3), set(&[9]));
        assert_eq!(s.value_of(&42), set(&[]), "never mentioned: bottom");
    }

    #[test]
    fn cycles_converge() {
        // 0 → 1 → 2 → 0 with a constant entering at each node: every node ends with all
        // three, and the solver stops.
        let mut g = Graph::new(&[(0, 1), (1, 2), (2, 0)], &[(0, 1), (1, 2), (2, 3)]);
        let s = solve(&mut g, 4);
        for n in 0..3 {
            assert_eq!(s.value_of(&n), set(&[1, 2, 3]));
        }
        // A cycle costs a bounded number of rounds, not one per lattice value ever possible.
        assert!(s.stats().rule_visits <= 3 * 6, "{:?}", s.stats());
    }

    #[test]
    fn more_than_cap_is_top_and_top_propagates() {
        let mut g = Graph::new(
            &[(0, 9), (1, 9), (2, 9), (9, 10), (10, 9)],
            &[(0, 1), (1, 2), (2, 3)],
        );
        let s = solve(&mut g, 2);
        assert_eq!(s.value_of(&9), Consts::Top);
        assert_eq!(s.value_of(&10), Consts::Top);
        assert_eq!(s.value_of(&0), set(&[1]));
    }

    #[test]
    fn only_rules_reading_a_changed_key_run_again() {
        // Two independent chains, a: 0 → 1 → 2 and b: 10 → 11 → 12, rules listed backwards so
        // each edge runs before its input is known.
        let mut g = Graph::new(&[(1, 2), (0, 1), (11, 12), (10, 11)], &[(0, 5)]);
        let mut s = solve(&mut g, 4);
        assert_eq!(s.value_of(&2), set(&[5]));
        // Chain a's edges ran twice (once blind, once after their input changed); chain b's
        // inputs never changed, so its edges ran once.
        assert_eq!(g.visits, vec![2, 2, 1, 1, 1]);

        // Seeding chain b after the fixpoint revisits chain b only.
        let k10 = s.key(10);
        s.join(k10, &set(&[6]));
        s.solve(&mut g);
        assert_eq!(g.visits, vec![2, 2, 2, 2, 1]);
        assert_eq!(s.value_of(&12), set(&[6]));

        // A join that changes nothing schedules nothing.
        s.join(k10, &set(&[6]));
        s.solve(&mut g);
        assert_eq!(g.visits, vec![2, 2, 2, 2, 1]);
    }

    #[test]
    fn a_rule_runs_again_once_however_many_inputs_changed() {
        // One rule reads three keys; all three change before it runs again.
        let mut s = SparseSolver::new(SmallSets { cap: 8 });
        let inputs: Vec<KeyId> = (0..3).map(|k| s.key(k)).collect();
        let out = s.key(100);
        let mut visits = 0;
        let mut sum = |_: RuleId, cx: &mut Context<'_, SmallSets>| {
            visits += 1;
            for &k in &inputs {
                let v = cx.read(k).clone();
                cx.join(out, &v);
            }
        };
        s.schedule(RuleId(0));
        s.solve(&mut sum);
        for (i, &k) in inputs.iter().enumerate() {
            s.join(k, &set(&[i as u8]));
        }
        s.solve(&mut sum);
        assert_eq!(visits, 2);
        assert_eq!(s.value(out), &set(&[0, 1, 2]));
    }

    #[test]
    fn inputs_are_whatever_the_rule_read_last() {
        // Rule 0 reads key 0, and key 1 only once key 0 holds 1 (a data-dependent input, like
        // a load learning which cell its pointer points to).
        let mut s = SparseSolver::new(SmallSets { cap: 8 });
        let (k0, k1, out) = (s.key(0), s.key(1), s.key(2));
        let mut rule = |_: RuleId, cx: &mut Context<'_, SmallSets>| {
            if *cx.read(k0) == set(&[1]) {
                let v = cx.read(k1).clone();
                cx.join(out, &v);
            }
        };
        s.schedule(RuleId(0));
        s.join(k1, &set(&[4]));
        s.solve(&mut rule);
        assert_eq!(s.value(out), &set(&[]));
        s.join(k0, &set(&[1]));
        s.solve(&mut rule);
        assert_eq!(s.value(out), &set(&[4]));
        s.join(k1, &set(&[5]));
        s.solve(&mut rule);
        assert_eq!(s.value(out), &set(&[4, 5]));
    }

    #[test]
    fn keys_numbered_by_the_problem_are_not_looked_up() {
        let mut s = SparseSolver::new(SmallSets { cap: 8 });
        let own = s.new_key(7);
        let interned = s.key(7);
        assert_ne!(own, interned);
        assert_eq!(s.find(&7), Some(interned));
        assert_eq!(s.key_of(own), &7);
        s.join(own, &set(&[1]));
        assert_eq!(s.value_of(&7), set(&[]));
        assert_eq!(s.key_count(), 2);
    }

    #[test]
    fn mark_overdefined_schedules_once() {
        let mut s = SparseSolver::new(SmallSets { cap: 8 });
        let (a, b) = (s.key(0), s.key(1));
        let mut copy = |_: RuleId, cx: &mut Context<'_, SmallSets>| {
            let v = cx.read(a).clone();
            cx.join(b, &v);
        };
        s.schedule(RuleId(0));
        s.solve(&mut copy);
        assert!(s.mark_overdefined(a));
        assert!(!s.mark_overdefined(a));
        s.solve(&mut copy);
        assert_eq!(s.value(b), &Consts::Top);
        assert_eq!(s.stats().rule_visits, 2);
        assert_eq!(s.key_of(b), &1);
    }

    #[test]
    fn long_chain_is_linear() {
        // 10,000 edges in order: each runs once, because its input is final by then.
        let n = 10_000u32;
        let edges: Vec<(u32, u32)> = (0..n).map(|i| (i, i + 1)).collect();
        let mut g = Graph::new(&edges, &[(0, 1)]);
        // The seed runs last, so every edge runs once blind and once more after it.
        let s = solve(&mut g, 4);
        assert_eq!(s.value_of(&n), set(&[1]));
        assert!(s.stats().rule_visits <= 2 * u64::from(n) + 1);
    }
}
