//! A generic inclusion-constraint solver (Andersen's analysis without its domain): nodes
//! with sets of elements, copy edges `pts(a) ⊆ pts(b)`, and "complex" constraints attached
//! to a node that the client interprets for every element the node receives (loads,
//! stores, field addresses, indirect calls all are such constraints). In a points-to problem
//! an element is a memory location, and the client gives each location a node that holds
//! what is stored there.
//!
//! Difference propagation: a node keeps the elements it has not yet pushed along its edges
//! and constraints (its delta), so each element crosses each edge once. Nodes are merged
//! with a union-find (cycles of copy edges, found by a periodic strongly-connected-component
//! pass, and whatever the client unifies); elements have a union-find of their own (the
//! fields of a collapsed object become one location) and are canonicalized when read.

use crate::sparse::FxBuildHasher;
use std::collections::{HashSet, VecDeque};

pub type Node = u32;
pub type Element = u32;

/// Classes of merged ids: each id's representative.
#[derive(Debug, Clone, Default)]
struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn push(&mut self) -> u32 {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        id
    }

    fn len(&self) -> usize {
        self.parent.len()
    }

    /// The representative, compressing the path to it.
    fn find(&mut self, mut id: u32) -> u32 {
        let root = self.find_const(id);
        while self.parent[id as usize] != root {
            let next = self.parent[id as usize];
            self.parent[id as usize] = root;
            id = next;
        }
        root
    }

    fn find_const(&self, mut id: u32) -> u32 {
        while self.parent[id as usize] != id {
            id = self.parent[id as usize];
        }
        id
    }

    /// Makes `b`'s representative (a representative itself) point to `a`.
    fn attach(&mut self, b: u32, a: u32) {
        self.parent[b as usize] = a;
    }
}

/// A set of elements as a sorted list of 64-bit words (index, bits): merging two sets goes
/// a word at a time, and adding a few elements to a large one costs a binary search each.
/// Elements may be stale (merged into another since they were added): readers
/// canonicalize.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ElementSet {
    words: Vec<(u32, u64)>,
}

impl ElementSet {
    fn single(e: Element) -> Self {
        ElementSet {
            words: vec![(e >> 6, 1u64 << (e & 63))],
        }
    }

    fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    fn len(&self) -> usize {
        self.words.iter().map(|w| w.1.count_ones() as usize).sum()
    }

    fn iter(&self) -> impl Iterator<Item = Element> + '_ {
        self.words.iter().flat_map(|&(index, bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let e = (index << 6) | bits.trailing_zeros();
                    bits &= bits - 1;
                    e
                })
            })
        })
    }

    /// Adds one element; whether it was new.
    fn insert(&mut self, e: Element) -> bool {
        self.or_word(0, e >> 6, 1u64 << (e & 63)).1 != 0
    }

    /// Ors `bits` into word `index`, searching from position `from` on: the word's
    /// position and the bits that were new.
    fn or_word(&mut self, from: usize, index: u32, bits: u64) -> (usize, u64) {
        match self.words[from..].binary_search_by_key(&index, |w| w.0) {
            Ok(i) => {
                let new = bits & !self.words[from + i].1;
                self.words[from + i].1 |= new;
                (from + i, new)
            }
            Err(i) => {
                self.words.insert(from + i, (index, bits));
                (from + i, bits)
            }
        }
    }

    /// Adds `other`'s elements; returns the ones that were not in the set.
    fn union_new(&mut self, other: &ElementSet) -> ElementSet {
        if other.words.len() * 16 <= self.words.len() {
            // A few words into a large set: a binary search each (sets are sparse over
            // the element space, often one element per word, so a pass over the set
            // costs as much as a search per element).
            let mut fresh = ElementSet::default();
            let mut from = 0;
            for &(index, bits) in &other.words {
                let (at, new) = self.or_word(from, index, bits);
                if new != 0 {
                    fresh.words.push((index, new));
                }
                from = at + 1;
            }
            return fresh;
        }
        // The new bits, and how many words the set gains.
        let (fresh, gained) = other.minus_counting(self);
        if fresh.words.is_empty() {
            return fresh;
        }
        if gained == 0 {
            let mut i = 0;
            for &(index, bits) in &fresh.words {
                while self.words[i].0 < index {
                    i += 1;
                }
                self.words[i].1 |= bits;
            }
            return fresh;
        }
        // Merge from the back, in place.
        let old = self.words.len();
        self.words.resize(old + gained, (0, 0));
        let (mut a, mut b, mut w) = (old, other.words.len(), old + gained);
        while b > 0 {
            w -= 1;
            let ob = other.words[b - 1];
            if a > 0 && self.words[a - 1].0 > ob.0 {
                self.words[w] = self.words[a - 1];
                a -= 1;
            } else if a > 0 && self.words[a - 1].0 == ob.0 {
                self.words[w] = (ob.0, self.words[a - 1].1 | ob.1);
                a -= 1;
                b -= 1;
            } else {
                self.words[w] = ob;
                b -= 1;
            }
        }
        fresh
    }

    /// The elements of `self` not in `other`.
    fn minus(&self, other: &ElementSet) -> ElementSet {
        self.minus_counting(other).0
    }

    /// The elements of `self` not in `other`, and how many of their words `other` lacks
    /// altogether.
    fn minus_counting(&self, other: &ElementSet) -> (ElementSet, usize) {
        let mut out = ElementSet::default();
        let mut absent = 0;
        let mut j = 0;
        for &(index, bits) in &self.words {
            while j < other.words.len() && other.words[j].0 < index {
                j += 1;
            }
            let bits = match other.words.get(j) {
                Some(&(oi, ob)) if oi == index => bits & !ob,
                _ => {
                    absent += 1;
                    bits
                }
            };
            if bits != 0 {
                out.words.push((index, bits));
            }
        }
        (out, absent)
    }
}

/// What the client does with a node's complex constraints.
pub trait Client {
    /// A constraint the client attaches to nodes.
    type Constraint: Clone;

    /// `element` newly reached `node`, which carries `constraint`.
    fn apply(
        &mut self,
        solver: &mut Solver<Self::Constraint>,
        node: Node,
        constraint: &Self::Constraint,
        element: Element,
    );

    /// `node`'s set grew past the solver's limit ([`Solver::set_limit`]): the client may
    /// widen it (make it stand for something coarser), or do nothing.
    fn overflow(&mut self, _solver: &mut Solver<Self::Constraint>, _node: Node) {}
}

/// Counters for `--time` and the tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SolverStats {
    pub nodes: usize,
    pub edges: usize,
    /// Nodes taken off the worklist.
    pub iterations: usize,
    /// Nodes merged into another one.
    pub merged: usize,
    /// Elements taken off nodes' deltas.
    pub delivered: usize,
    /// Sets the client widened for growing past the limit.
    pub widened: usize,
}

pub struct Solver<C> {
    nodes: UnionFind,
    elements: UnionFind,
    pts: Vec<ElementSet>,
    /// Elements a node has and has not yet handed to its edges and constraints.
    delta: Vec<ElementSet>,
    succ: Vec<Vec<Node>>,
    complex: Vec<Vec<C>>,
    worklist: VecDeque<Node>,
    queued: Vec<bool>,
    /// Edges made so far, to add each once (keys may name merged nodes: a repeat is
    /// harmless, only wasted work).
    edge_set: HashSet<u64, FxBuildHasher>,
    /// Absorbing nodes: their set stays as it was made; elements reaching them are only
    /// handed to their constraints, once each (the elements seen so far).
    absorbing: Vec<Option<Box<ElementSet>>>,
    edges_since_scc: usize,
    /// Elements per set (counted as added, so an approximation once elements merge).
    sizes: Vec<u32>,
    /// Sets larger than this are handed to [`Client::overflow`].
    limit: usize,
    overflowed: Vec<Node>,
    /// Constraints given to an absorbing node that meet its own set once and are done
    /// (see [`Solver::set_each_element`]).
    once: Vec<(Node, C)>,
    each_element: fn(&C) -> bool,
    stats: SolverStats,
}

impl<C: Clone> Default for Solver<C> {
    fn default() -> Self {
        Solver {
            nodes: UnionFind::default(),
            elements: UnionFind::default(),
            pts: Vec::new(),
            delta: Vec::new(),
            succ: Vec::new(),
            complex: Vec::new(),
            worklist: VecDeque::new(),
            queued: Vec::new(),
            edge_set: HashSet::default(),
            absorbing: Vec::new(),
            edges_since_scc: 0,
            sizes: Vec::new(),
            limit: usize::MAX,
            overflowed: Vec::new(),
            once: Vec::new(),
            each_element: |_| true,
            stats: SolverStats::default(),
        }
    }
}

impl<C: Clone> Solver<C> {
    pub fn new_node(&mut self) -> Node {
        let n = self.nodes.push();
        self.pts.push(ElementSet::default());
        self.delta.push(ElementSet::default());
        self.succ.push(Vec::new());
        self.complex.push(Vec::new());
        self.queued.push(false);
        self.sizes.push(0);
        self.absorbing.push(None);
        n
    }

    /// Sets growing past `limit` elements go to [`Client::overflow`] (once per node).
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// Which constraints on an absorbing node must meet every element that reaches it (by
    /// default all). The others meet the node's own set, which stands for all of them,
    /// once: an absorbing node collects thousands of constraints from the nodes merged
    /// into it, and handing each of them every element again would be quadratic.
    pub fn set_each_element(&mut self, each_element: fn(&C) -> bool) {
        self.each_element = each_element;
    }

    /// Gives constraints to absorbing node `a`: the ones that need every element join its
    /// list (and see everything it has seen), the others meet its own set once.
    fn attach_absorbing(&mut self, a: Node, cs: Vec<C>) {
        let mut each = false;
        for c in cs {
            if (self.each_element)(&c) {
                self.complex[a as usize].push(c);
                each = true;
            } else {
                self.once.push((a, c));
            }
        }
        if each {
            let mut all = self.absorbing[a as usize]
                .as_deref()
                .cloned()
                .unwrap_or_default();
            all.union_new(&self.pts[a as usize]);
            self.delta[a as usize].union_new(&all);
            self.enqueue(a);
        }
    }

    pub fn new_element(&mut self) -> Element {
        self.elements.push()
    }

    /// The representative of element `e`'s class.
    pub fn find_element(&mut self, e: Element) -> Element {
        self.elements.find(e)
    }

    pub fn find_element_const(&self, e: Element) -> Element {
        self.elements.find_const(e)
    }

    /// Makes `b` the same element as `a` from now on (sets holding either hold `a`; sets
    /// keep `b` until read, and readers canonicalize).
    pub fn unify_elements(&mut self, a: Element, b: Element) -> Element {
        let (a, b) = (self.find_element(a), self.find_element(b));
        if a != b {
            self.elements.attach(b, a);
        }
        a
    }

    pub fn complex_count(&self, n: Node) -> usize {
        self.complex[n as usize].len()
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The representative of `n`'s merged class.
    pub fn find(&mut self, n: Node) -> Node {
        self.nodes.find(n)
    }

    /// Like [`Solver::find`] without path compression, for read-only queries.
    pub fn find_const(&self, n: Node) -> Node {
        self.nodes.find_const(n)
    }

    fn enqueue(&mut self, n: Node) {
        if !self.queued[n as usize] {
            self.queued[n as usize] = true;
            self.worklist.push_back(n);
        }
    }

    /// Makes `n` absorbing: its set stays `pts(n)` as it is now (what its successors get),
    /// while every element that reaches it later goes to its constraints once. A points-to
    /// client uses it for "everything that escaped": one element stands for all of them.
    pub fn make_absorbing(&mut self, n: Node) {
        let n = self.find(n);
        let seen = self.pts[n as usize].clone();
        self.absorbing[n as usize] = Some(Box::new(seen));
    }

    /// Widens `n` to the single element `element` (which stands for all of its elements):
    /// its set becomes `{element}` for good, what reaches it later only meets `sink`, and
    /// its constraints are returned for the client to apply to `element` (they have seen
    /// every other element already).
    pub fn make_sink(&mut self, n: Node, element: Element, sink: C) -> Vec<C> {
        let n = self.find(n);
        let e = ElementSet::single(self.find_element(element));
        let mut seen = std::mem::take(&mut self.pts[n as usize]);
        seen.union_new(&e);
        seen.union_new(&std::mem::take(&mut self.delta[n as usize]));
        self.pts[n as usize] = e.clone();
        self.sizes[n as usize] = 1;
        self.absorbing[n as usize] = Some(Box::new(seen));
        for s in self.succ[n as usize].clone() {
            self.add_set(s, &e);
        }
        std::mem::replace(&mut self.complex[n as usize], vec![sink])
    }

    /// Adds `elements` to `n`'s set; the new ones go to its delta.
    fn add_set(&mut self, n: Node, elements: &ElementSet) {
        let n = self.find(n) as usize;
        let fresh = match self.absorbing[n].as_deref_mut() {
            Some(seen) => seen.union_new(elements),
            None => {
                let fresh = self.pts[n].union_new(elements);
                let before = self.sizes[n] as usize;
                self.sizes[n] = (before + fresh.len()).min(u32::MAX as usize) as u32;
                if before <= self.limit && self.sizes[n] as usize > self.limit {
                    self.overflowed.push(n as Node);
                }
                fresh
            }
        };
        if !fresh.is_empty() {
            if self.delta[n].is_empty() {
                self.delta[n] = fresh;
            } else {
                self.delta[n].union_new(&fresh);
            }
            self.enqueue(n as Node);
        }
    }

    /// `element ∈ pts(n)`.
    pub fn add_element(&mut self, n: Node, element: Element) {
        let e = self.find_element(element);
        let n = self.find(n) as usize;
        let fresh = match self.absorbing[n].as_deref_mut() {
            Some(seen) => seen.insert(e),
            None => {
                let fresh = self.pts[n].insert(e);
                if fresh {
                    self.sizes[n] = self.sizes[n].saturating_add(1);
                    if Some(self.sizes[n] as usize) == self.limit.checked_add(1) {
                        self.overflowed.push(n as Node);
                    }
                }
                fresh
            }
        };
        if fresh {
            self.delta[n].insert(e);
            self.enqueue(n as Node);
        }
    }

    /// `pts(from) ⊆ pts(to)`.
    pub fn add_edge(&mut self, from: Node, to: Node) {
        let (from, to) = (self.find(from), self.find(to));
        if from == to
            || !self
                .edge_set
                .insert((u64::from(from) << 32) | u64::from(to))
        {
            return;
        }
        self.succ[from as usize].push(to);
        self.stats.edges += 1;
        self.edges_since_scc += 1;
        if !self.pts[from as usize].is_empty() {
            // `to` is another class, so its update leaves `from`'s set alone.
            let all = std::mem::take(&mut self.pts[from as usize]);
            self.add_set(to, &all);
            self.pts[from as usize] = all;
        }
    }

    /// Attaches a complex constraint to `n`; it sees every element `n` has or will have.
    pub fn add_constraint(&mut self, n: Node, c: C) {
        let n = self.find(n);
        if self.absorbing[n as usize].is_some() {
            return self.attach_absorbing(n, vec![c]);
        }
        self.complex[n as usize].push(c);
        // Elements already there must meet the new constraint too.
        if !self.pts[n as usize].is_empty() {
            let all = self.pts[n as usize].clone();
            self.delta[n as usize].union_new(&all);
            self.enqueue(n);
        }
    }

    /// Merges the classes of `a` and `b` (both keep their meaning; the sets, edges and
    /// constraints become one). Returns the representative (an absorbing node stays one).
    pub fn unify(&mut self, a: Node, b: Node) -> Node {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return a;
        }
        if self.absorbing[b as usize].is_some() {
            std::mem::swap(&mut a, &mut b);
        }
        self.nodes.attach(b, a);
        self.stats.merged += 1;
        let b_pts = std::mem::take(&mut self.pts[b as usize]);
        self.sizes[b as usize] = 0;
        let mut b_delta = std::mem::take(&mut self.delta[b as usize]);
        let b_succ = std::mem::take(&mut self.succ[b as usize]);
        let b_complex = std::mem::take(&mut self.complex[b as usize]);
        // b's edges have seen b's set but for its delta; they need a's too. (Not through
        // a's delta: an absorbing a hands its delta to its constraints only.)
        b_delta.union_new(&self.pts[a as usize].minus(&b_pts));
        if !b_delta.is_empty() {
            for &s in &b_succ {
                self.add_set(s, &b_delta);
            }
        }
        if self.absorbing[a as usize].is_some() {
            self.attach_absorbing(a, b_complex);
        } else if !b_complex.is_empty() {
            // Rare (merged pointer nodes): let every constraint see everything.
            let mut all = self.pts[a as usize].clone();
            all.union_new(&b_pts);
            self.delta[a as usize].union_new(&all);
            self.enqueue(a);
            self.complex[a as usize].extend(b_complex);
        }
        self.succ[a as usize].extend(b_succ);
        // What b held is new to a (an absorbing a hands it to its constraints only).
        self.add_set(a, &b_pts);
        a
    }

    /// The canonical elements of `n`'s set.
    pub fn points_to(&self, n: Node) -> Vec<Element> {
        let rep = self.find_const(n);
        let mut out: Vec<Element> = self.pts[rep as usize]
            .iter()
            .map(|e| self.find_element_const(e))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Total elements over all sets and the largest set (for tuning).
    pub fn set_sizes(&self) -> (usize, usize) {
        let sizes = self.pts.iter().map(ElementSet::len);
        sizes.fold((0, 0), |(t, m), n| (t + n, m.max(n)))
    }

    pub fn stats(&self) -> SolverStats {
        SolverStats {
            nodes: self.nodes.len(),
            ..self.stats
        }
    }

    /// Runs to the fixpoint.
    pub fn solve<K: Client<Constraint = C>>(&mut self, client: &mut K) {
        self.collapse_cycles();
        loop {
            while let Some(o) = self.overflowed.pop() {
                let o = self.find(o);
                if self.absorbing[o as usize].is_none() {
                    self.stats.widened += 1;
                    client.overflow(self, o);
                }
            }
            while let Some((n, c)) = self.once.pop() {
                let n = self.find(n);
                let own: Vec<Element> = self.pts[n as usize].iter().collect();
                for e in own {
                    let e = self.find_element(e);
                    client.apply(self, n, &c, e);
                }
            }
            let Some(n) = self.worklist.pop_front() else {
                break;
            };
            self.queued[n as usize] = false;
            let n = self.find(n);
            let delta = std::mem::take(&mut self.delta[n as usize]);
            if delta.is_empty() {
                continue;
            }
            self.stats.iterations += 1;
            self.stats.delivered += delta.len();
            // An absorbing node's successors have its fixed set already.
            let absorbing = self.absorbing[n as usize].is_some();
            let succ = if absorbing {
                Vec::new()
            } else {
                std::mem::take(&mut self.succ[n as usize])
            };
            let mut targets: Vec<Node> = succ.iter().map(|&s| self.find(s)).collect();
            targets.sort_unstable();
            targets.dedup();
            targets.retain(|&t| t != n);
            for &t in &targets {
                self.add_set(t, &delta);
            }
            // Propagating adds no edges, so the list goes back as it was (deduplicated).
            if !absorbing {
                self.succ[n as usize] = targets;
            }
            if !self.complex[n as usize].is_empty() {
                let mut constraints = std::mem::take(&mut self.complex[n as usize]);
                let elements: Vec<Element> = delta.iter().map(|e| self.find_element(e)).collect();
                for c in &constraints {
                    for &e in &elements {
                        client.apply(self, n, c, e);
                    }
                }
                let rep = self.find(n);
                if rep != n && self.absorbing[rep as usize].is_some() {
                    // `n` joined an absorbing class while its constraints were out.
                    self.attach_absorbing(rep, constraints);
                    continue;
                }
                // Constraints added meanwhile (to `n`, or to the class it joined) stay.
                constraints.append(&mut self.complex[rep as usize]);
                self.complex[rep as usize] = constraints;
                if rep != n {
                    // `n` joined another class while its constraints were out: they have
                    // not seen that class's elements.
                    let all = self.pts[rep as usize].clone();
                    self.delta[rep as usize].union_new(&all);
                    self.enqueue(rep);
                }
            }
            if self.edges_since_scc > 4096 && self.edges_since_scc > self.nodes.len() / 2 {
                self.collapse_cycles();
            }
        }
    }

    /// Merges every cycle of copy edges into one node: the nodes of a cycle always have
    /// equal sets.
    fn collapse_cycles(&mut self) {
        self.edges_since_scc = 0;
        let n = self.nodes.len();
        let (nodes, succ) = (&mut self.nodes, &self.succ);
        // Merged nodes are skipped: their edges moved to their representative.
        let parents: Vec<bool> = (0..n as Node).map(|v| nodes.find_const(v) == v).collect();
        let components = crate::scc::components(
            n,
            |v| !parents[v],
            |v, i| succ[v].get(i).map(|&w| nodes.find(w) as usize),
        );
        // Each component's nodes merge into the first to leave the stack.
        let mut merges = Vec::new();
        let mut first: Option<(usize, Node)> = None;
        for &v in &components.popped {
            let c = components.of[v];
            match first {
                Some((fc, f)) if fc == c => merges.push((f, v as Node)),
                _ => first = Some((c, v as Node)),
            }
        }
        for (a, b) in merges {
            self.unify(a, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client whose constraints do nothing: the tests look at edges and sets only.
    struct Inert;

    impl Client for Inert {
        type Constraint = ();

        fn apply(&mut self, _: &mut Solver<()>, _: Node, _: &(), _: Element) {}
    }

    #[test]
    fn merging_into_an_absorbing_node_hands_its_set_to_the_merged_nodes_edges() {
        let mut s: Solver<()> = Solver::default();
        let (e0, e1) = (s.new_element(), s.new_element());
        // `a` stands for everything outside: its set is fixed at {e0}.
        let a = s.new_node();
        s.add_element(a, e0);
        s.make_absorbing(a);
        // `b` has a constraint and an edge to `succ`; then it turns out to be `a`.
        let b = s.new_node();
        s.add_constraint(b, ());
        let succ = s.new_node();
        s.add_edge(b, succ);
        s.add_element(b, e1);
        s.solve(&mut Inert);
        assert_eq!(s.points_to(succ), [e1]);
        s.unify(a, b);
        s.solve(&mut Inert);
        assert_eq!(s.points_to(succ), [e0, e1]);
    }

    #[test]
    fn edges_and_cycles_propagate_sets() {
        let mut s: Solver<()> = Solver::default();
        let e = s.new_element();
        let (x, y, z) = (s.new_node(), s.new_node(), s.new_node());
        s.add_edge(x, y);
        s.add_edge(y, z);
        s.add_edge(z, y);
        s.add_element(x, e);
        s.solve(&mut Inert);
        assert_eq!(s.points_to(z), [e]);
        assert_eq!(s.find(y), s.find(z), "the cycle is one node");
    }
}
