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
use std::collections::{HashMap, HashSet, VecDeque};

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

/// A set of elements as a sorted list of 64-bit words (index, bits): adding a few elements
/// to a large set costs a binary search each, not a pass over the set.
#[derive(Debug, Clone, Default)]
struct ElementSet {
    words: Vec<(u32, u64)>,
}

impl ElementSet {
    /// Whether `e` was not in the set.
    fn insert(&mut self, e: Element) -> bool {
        let (index, bit) = (e >> 6, 1u64 << (e & 63));
        match self.words.binary_search_by_key(&index, |w| w.0) {
            Ok(i) => {
                let fresh = self.words[i].1 & bit == 0;
                self.words[i].1 |= bit;
                fresh
            }
            Err(i) => {
                self.words.insert(i, (index, bit));
                true
            }
        }
    }

    fn to_vec(&self) -> Vec<Element> {
        let mut out = Vec::new();
        for &(index, mut bits) in &self.words {
            while bits != 0 {
                out.push((index << 6) | bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        out
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
}

pub struct Solver<C> {
    nodes: UnionFind,
    elements: UnionFind,
    /// Canonical at the time of insertion (re-canonicalized when read).
    pts: Vec<ElementSet>,
    delta: Vec<Vec<Node>>,
    succ: Vec<Vec<Node>>,
    complex: Vec<Vec<C>>,
    worklist: VecDeque<Node>,
    queued: Vec<bool>,
    /// Edges made so far, to add each once (keys may name merged nodes: a repeat is
    /// harmless, only wasted work).
    edge_set: HashSet<u64, FxBuildHasher>,
    /// Absorbing nodes: their set stays as it was made; elements reaching them are only
    /// handed to their constraints, once each (the elements seen so far).
    absorbing: HashMap<Node, HashSet<Element, FxBuildHasher>>,
    edges_since_scc: usize,
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
            absorbing: HashMap::new(),
            edges_since_scc: 0,
            stats: SolverStats::default(),
        }
    }
}

impl<C: Clone> Solver<C> {
    pub fn new_node(&mut self) -> Node {
        let n = self.nodes.push();
        self.pts.push(ElementSet::default());
        self.delta.push(Vec::new());
        self.succ.push(Vec::new());
        self.complex.push(Vec::new());
        self.queued.push(false);
        n
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

    /// Makes `b` the same element as `a` from now on (sets holding either hold `a`).
    pub fn unify_elements(&mut self, a: Element, b: Element) -> Element {
        let (a, b) = (self.find_element(a), self.find_element(b));
        if a != b {
            self.elements.attach(b, a);
        }
        a
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

    /// Canonical, sorted and deduplicated.
    fn canonical(&mut self, elements: &[Element]) -> Vec<Element> {
        let mut out: Vec<Element> = elements.iter().map(|&e| self.find_element(e)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Makes `n` absorbing: its set stays `pts(n)` as it is now (what its successors get),
    /// while every element that reaches it later goes to its constraints once. A points-to
    /// client uses it for "everything that escaped": one element stands for all of them.
    pub fn make_absorbing(&mut self, n: Node) {
        let n = self.find(n);
        let seen: HashSet<Element, FxBuildHasher> =
            self.pts[n as usize].to_vec().into_iter().collect();
        self.absorbing.insert(n, seen);
    }

    /// Adds `elements` (canonical, sorted) to `n`'s set; the new ones go to its delta.
    fn add_sorted(&mut self, n: Node, elements: &[Node]) {
        let n = self.find(n) as usize;
        if let Some(seen) = self.absorbing.get_mut(&(n as Node)) {
            let before = self.delta[n].len();
            for &e in elements {
                if seen.insert(e) {
                    self.delta[n].push(e);
                }
            }
            if self.delta[n].len() > before {
                self.enqueue(n as Node);
            }
            return;
        }
        let before = self.delta[n].len();
        for &e in elements {
            if self.pts[n].insert(e) {
                self.delta[n].push(e);
            }
        }
        let added = self.delta[n].len() > before;
        if added {
            self.enqueue(n as Node);
        }
    }

    /// `element ∈ pts(n)`.
    pub fn add_element(&mut self, n: Node, element: Element) {
        let e = self.find_element(element);
        self.add_sorted(n, &[e]);
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
        let all = self.canonical(&self.pts[from as usize].to_vec());
        if !all.is_empty() {
            self.add_sorted(to, &all);
        }
    }

    /// Attaches a complex constraint to `n`; it sees every element `n` has or will have.
    pub fn add_constraint(&mut self, n: Node, c: C) {
        let n = self.find(n);
        self.complex[n as usize].push(c);
        // Elements already there must meet the new constraint too.
        let all = self.pts[n as usize].to_vec();
        if !all.is_empty() {
            self.delta[n as usize].extend(all);
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
        if self.absorbing.contains_key(&b) {
            std::mem::swap(&mut a, &mut b);
        }
        self.nodes.attach(b, a);
        self.stats.merged += 1;
        let b_pts = std::mem::take(&mut self.pts[b as usize]).to_vec();
        let b_delta = std::mem::take(&mut self.delta[b as usize]);
        let b_succ = std::mem::take(&mut self.succ[b as usize]);
        let b_complex = std::mem::take(&mut self.complex[b as usize]);
        let b_pts = self.canonical(&b_pts);
        let a_pts = self.canonical(&self.pts[a as usize].to_vec());
        // b's edges and constraints have seen b's set but for its delta; a's have seen a's.
        let mut for_b: Vec<Element> = a_pts
            .iter()
            .copied()
            .filter(|e| b_pts.binary_search(e).is_err())
            .collect();
        for_b.extend(b_delta);
        let for_b = self.canonical(&for_b);
        if b_complex.is_empty() {
            for &s in &b_succ {
                self.add_sorted(s, &for_b);
            }
        } else {
            // Rare (merged pointer nodes): let every edge and constraint see everything.
            let all = self.canonical(&[a_pts.clone(), b_pts.clone()].concat());
            self.delta[a as usize].extend(all);
            self.enqueue(a);
        }
        self.succ[a as usize].extend(b_succ);
        self.complex[a as usize].extend(b_complex);
        // What b held is new to a (an absorbing a hands it to its constraints only).
        self.add_sorted(a, &b_pts);
        if !self.absorbing.contains_key(&a) {
            let mut set = ElementSet::default();
            for e in self.canonical(&self.pts[a as usize].to_vec()) {
                set.insert(e);
            }
            self.pts[a as usize] = set;
        }
        a
    }

    /// The canonical elements of `n`'s set.
    pub fn points_to(&self, n: Node) -> Vec<Element> {
        let rep = self.find_const(n);
        let mut out: Vec<Element> = self.pts[rep as usize]
            .to_vec()
            .into_iter()
            .map(|e| self.find_element_const(e))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Total elements over all sets and the largest set (for tuning).
    pub fn set_sizes(&self) -> (usize, usize) {
        let sizes = self.pts.iter().map(|p| p.to_vec().len());
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
        while let Some(n) = self.worklist.pop_front() {
            self.queued[n as usize] = false;
            let n = self.find(n);
            let raw = std::mem::take(&mut self.delta[n as usize]);
            if raw.is_empty() {
                continue;
            }
            self.stats.iterations += 1;
            self.stats.delivered += raw.len();
            let delta = self.canonical(&raw);
            // An absorbing node's successors have its fixed set already.
            let absorbing = self.absorbing.contains_key(&n);
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
                self.add_sorted(t, &delta);
            }
            // Propagating adds no edges, so the list goes back as it was (deduplicated).
            if !absorbing {
                self.succ[n as usize] = targets;
            }
            let constraints = self.complex[n as usize].clone();
            for c in &constraints {
                for &e in &delta {
                    client.apply(self, n, c, e);
                }
            }
            if self.edges_since_scc > 4096 && self.edges_since_scc > self.nodes.len() / 2 {
                self.collapse_cycles();
            }
        }
    }

    /// Merges every cycle of copy edges into one node (Tarjan's algorithm, iterative): the
    /// nodes of a cycle always have equal sets.
    fn collapse_cycles(&mut self) {
        self.edges_since_scc = 0;
        let n = self.nodes.len();
        let mut index = vec![u32::MAX; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<Node> = Vec::new();
        let mut next_index = 0u32;
        let mut components: Vec<Vec<Node>> = Vec::new();
        for root in 0..n as Node {
            if self.find(root) != root || index[root as usize] != u32::MAX {
                continue;
            }
            // (node, next successor position)
            let mut call: Vec<(Node, usize)> = vec![(root, 0)];
            index[root as usize] = next_index;
            low[root as usize] = next_index;
            next_index += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut pos)) = call.last_mut() {
                if *pos < self.succ[v as usize].len() {
                    let w = self.find(self.succ[v as usize][*pos]);
                    *pos += 1;
                    if index[w as usize] == u32::MAX {
                        index[w as usize] = next_index;
                        low[w as usize] = next_index;
                        next_index += 1;
                        stack.push(w);
                        on_stack[w as usize] = true;
                        call.push((w, 0));
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                } else {
                    call.pop();
                    if let Some(&(parent, _)) = call.last() {
                        low[parent as usize] = low[parent as usize].min(low[v as usize]);
                    }
                    if low[v as usize] == index[v as usize] {
                        let mut component = Vec::new();
                        while let Some(w) = stack.pop() {
                            on_stack[w as usize] = false;
                            component.push(w);
                            if w == v {
                                break;
                            }
                        }
                        if component.len() > 1 {
                            components.push(component);
                        }
                    }
                }
            }
        }
        for component in components {
            let first = component[0];
            for &other in &component[1..] {
                self.unify(first, other);
            }
        }
    }
}
