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

use std::collections::VecDeque;

pub type Node = u32;
pub type Element = u32;

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
}

pub struct Solver<C> {
    parent: Vec<Node>,
    element_parent: Vec<Element>,
    /// Sorted, canonical at the time of insertion (re-canonicalized when read).
    pts: Vec<Vec<Node>>,
    delta: Vec<Vec<Node>>,
    succ: Vec<Vec<Node>>,
    complex: Vec<Vec<C>>,
    worklist: VecDeque<Node>,
    queued: Vec<bool>,
    edges_since_scc: usize,
    stats: SolverStats,
}

impl<C: Clone> Default for Solver<C> {
    fn default() -> Self {
        Solver {
            parent: Vec::new(),
            element_parent: Vec::new(),
            pts: Vec::new(),
            delta: Vec::new(),
            succ: Vec::new(),
            complex: Vec::new(),
            worklist: VecDeque::new(),
            queued: Vec::new(),
            edges_since_scc: 0,
            stats: SolverStats::default(),
        }
    }
}

impl<C: Clone> Solver<C> {
    pub fn new_node(&mut self) -> Node {
        let n = self.parent.len() as Node;
        self.parent.push(n);
        self.pts.push(Vec::new());
        self.delta.push(Vec::new());
        self.succ.push(Vec::new());
        self.complex.push(Vec::new());
        self.queued.push(false);
        n
    }

    pub fn new_element(&mut self) -> Element {
        let e = self.element_parent.len() as Element;
        self.element_parent.push(e);
        e
    }

    /// The representative of element `e`'s class.
    pub fn find_element(&mut self, mut e: Element) -> Element {
        let mut root = e;
        while self.element_parent[root as usize] != root {
            root = self.element_parent[root as usize];
        }
        while self.element_parent[e as usize] != root {
            let next = self.element_parent[e as usize];
            self.element_parent[e as usize] = root;
            e = next;
        }
        root
    }

    pub fn find_element_const(&self, mut e: Element) -> Element {
        while self.element_parent[e as usize] != e {
            e = self.element_parent[e as usize];
        }
        e
    }

    /// Makes `b` the same element as `a` from now on (sets holding either hold `a`).
    pub fn unify_elements(&mut self, a: Element, b: Element) -> Element {
        let (a, b) = (self.find_element(a), self.find_element(b));
        if a != b {
            self.element_parent[b as usize] = a;
        }
        a
    }

    pub fn node_count(&self) -> usize {
        self.parent.len()
    }

    /// The representative of `n`'s merged class.
    pub fn find(&mut self, mut n: Node) -> Node {
        let mut root = n;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        while self.parent[n as usize] != root {
            let next = self.parent[n as usize];
            self.parent[n as usize] = root;
            n = next;
        }
        root
    }

    /// Like [`Solver::find`] without path compression, for read-only queries.
    pub fn find_const(&self, mut n: Node) -> Node {
        while self.parent[n as usize] != n {
            n = self.parent[n as usize];
        }
        n
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

    /// Adds `elements` (canonical, sorted) to `n`'s set; the new ones go to its delta.
    fn add_sorted(&mut self, n: Node, elements: &[Node]) {
        let n = self.find(n) as usize;
        let old = std::mem::take(&mut self.pts[n]);
        let mut merged = Vec::with_capacity(old.len() + elements.len());
        let mut added = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < elements.len() {
            if j == elements.len() || (i < old.len() && old[i] < elements[j]) {
                merged.push(old[i]);
                i += 1;
            } else if i == old.len() || elements[j] < old[i] {
                merged.push(elements[j]);
                added.push(elements[j]);
                j += 1;
            } else {
                merged.push(old[i]);
                i += 1;
                j += 1;
            }
        }
        self.pts[n] = merged;
        if !added.is_empty() {
            self.delta[n].extend(added);
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
        if from == to || self.succ[from as usize].contains(&to) {
            return;
        }
        self.succ[from as usize].push(to);
        self.stats.edges += 1;
        self.edges_since_scc += 1;
        let all = self.canonical(&self.pts[from as usize].clone());
        if !all.is_empty() {
            self.add_sorted(to, &all);
        }
    }

    /// Attaches a complex constraint to `n`; it sees every element `n` has or will have.
    pub fn add_constraint(&mut self, n: Node, c: C) {
        let n = self.find(n);
        self.complex[n as usize].push(c);
        // Elements already there must meet the new constraint too.
        let all = self.pts[n as usize].clone();
        if !all.is_empty() {
            self.delta[n as usize].extend(all);
            self.enqueue(n);
        }
    }

    /// Merges `b` into `a`'s class (both keep their meaning; the sets, edges and
    /// constraints become one). Returns the representative.
    pub fn unify(&mut self, a: Node, b: Node) -> Node {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return a;
        }
        self.parent[b as usize] = a;
        self.stats.merged += 1;
        let b_pts = std::mem::take(&mut self.pts[b as usize]);
        let b_succ = std::mem::take(&mut self.succ[b as usize]);
        let b_complex = std::mem::take(&mut self.complex[b as usize]);
        self.delta[b as usize].clear();
        let mut all = std::mem::take(&mut self.pts[a as usize]);
        all.extend(b_pts);
        let all = self.canonical(&all);
        self.pts[a as usize] = all.clone();
        self.succ[a as usize].extend(b_succ);
        self.complex[a as usize].extend(b_complex);
        // Everything is new to the merged node's edges and constraints.
        self.delta[a as usize] = all;
        self.enqueue(a);
        a
    }

    /// The canonical elements of `n`'s set.
    pub fn points_to(&self, n: Node) -> Vec<Element> {
        let rep = self.find_const(n);
        let mut out: Vec<Element> = self.pts[rep as usize]
            .iter()
            .map(|&e| self.find_element_const(e))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    pub fn stats(&self) -> SolverStats {
        SolverStats {
            nodes: self.parent.len(),
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
            let delta = self.canonical(&raw);
            let succ = std::mem::take(&mut self.succ[n as usize]);
            let mut targets: Vec<Node> = succ.iter().map(|&s| self.find(s)).collect();
            targets.sort_unstable();
            targets.dedup();
            targets.retain(|&t| t != n);
            for &t in &targets {
                self.add_sorted(t, &delta);
            }
            // Propagating adds no edges, so the list goes back as it was (deduplicated).
            self.succ[n as usize] = targets;
            let constraints = self.complex[n as usize].clone();
            for c in &constraints {
                for &e in &delta {
                    client.apply(self, n, c, e);
                }
            }
            if self.edges_since_scc > 4096 && self.edges_since_scc > self.parent.len() / 2 {
                self.collapse_cycles();
            }
        }
    }

    /// Merges every cycle of copy edges into one node (Tarjan's algorithm, iterative): the
    /// nodes of a cycle always have equal sets.
    fn collapse_cycles(&mut self) {
        self.edges_since_scc = 0;
        let n = self.parent.len();
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
