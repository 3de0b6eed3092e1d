//! `--call-graph-profile-sort` (lld's, on by default): code sections that call each other
//! often are placed together, so that a program's hot paths share cache lines and pages.
//! The call counts come from the objects' `.llvm.call-graph-profile` sections (LLVM
//! writes them when code is compiled, or LTO-optimized, with a profile) or from
//! `--call-graph-ordering-file`. Two orderers, as in lld: LLVM's Cache-Directed Sort
//! (`cdsort`, the default, run by LLVM itself through rld's LTO library, so that the order
//! is lld's) and Call-Chain Clustering (`hfsort`, C3, written here after the paper and
//! lld's reading of it). The sections get priorities 1, 2, ... that the layout orders
//! them by, after the sections `--symbol-ordering-file` names.

use crate::context::Link;
use crate::diag;
use crate::error::{LinkError, Result};
use crate::object_file::FileId;
use crate::output_section::OutputId;
use crate::symbols::SymbolDef;
use rustc_hash::FxHashMap;
use std::path::Path;

/// `--call-graph-profile-sort=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallGraphSort {
    None,
    Hfsort,
    Cdsort,
}

type SectionRef = (FileId, u32);

/// Calls between input sections, counted: pairs in the order they first appear (objects
/// in link order, entries in section order, as lld's map keeps them); a pair seen again
/// adds to its count.
#[derive(Debug, Default)]
pub struct Profile {
    calls: Vec<(SectionRef, SectionRef, u64)>,
    index: FxHashMap<(SectionRef, SectionRef), usize>,
}

impl Profile {
    fn add(&mut self, from: SectionRef, to: SectionRef, count: u64) {
        match self.index.get(&(from, to)) {
            Some(&at) => self.calls[at].2 = self.calls[at].2.wrapping_add(count),
            None => {
                self.index.insert((from, to), self.calls.len());
                self.calls.push((from, to, count));
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
}

/// The section a symbol of `file` is defined in (a global's definition wherever it won,
/// `--icf`'s kept copy for a folded one); None for one undefined, shared, absolute or
/// common.
fn section_of(link: &Link, file: FileId, sym: usize) -> Option<SectionRef> {
    let (f, s, _) = link.defined_in_section(link.target(file, sym))?;
    Some(link.kept_copy(f, s))
}

/// The objects' call graph profiles.
pub fn from_objects(link: &Link) -> Profile {
    let mut profile = Profile::default();
    for (f, obj) in link.objects.iter().enumerate() {
        for call in &obj.call_graph {
            let from = section_of(link, f as FileId, call.from as usize);
            let to = section_of(link, f as FileId, call.to as usize);
            if let (Some(from), Some(to)) = (from, to) {
                profile.add(from, to, call.weight);
            }
        }
    }
    profile
}

/// `--call-graph-ordering-file`: lines `CALLER CALLEE COUNT` (blank lines and `#` comments
/// skipped), names of global or local symbols (a name several objects define: the last
/// object's), as lld reads them, with lld's warnings and error.
pub fn from_file(link: &Link, path: &Path) -> Result<Profile> {
    let text = std::fs::read(path).map_err(|e| LinkError::cannot_open(path, e))?;
    let text = String::from_utf8_lossy(&text);
    let shown = path.display().to_string();
    let mut symbols: FxHashMap<&[u8], (FileId, usize)> = FxHashMap::default();
    for (f, obj) in link.objects.iter().enumerate() {
        for (i, sym) in obj.symbols.iter().enumerate().skip(1) {
            if sym.st_type() == object::elf::STT_SECTION {
                continue;
            }
            symbols.insert(obj.symbol_name(i), (f as FileId, i));
        }
    }
    let warn = link.opts.warn_symbol_ordering;
    let find = |name: &str| -> Option<SectionRef> {
        let Some(&(file, index)) = symbols.get(name.as_bytes()) else {
            if warn {
                diag::warn(&format!("{shown}: no such symbol: {name}"));
            }
            return None;
        };
        let section = section_of(link, file, index);
        let kept =
            section.is_some_and(|(f, s)| link.objects[f as usize].sections[s as usize].is_kept());
        if warn && !kept {
            let obj = &link.objects[file as usize];
            let unorderable = match obj.global_index(index) {
                Some(id) => crate::symbol_order::unorderable_global(link, link.symtab.get(id)),
                None => crate::symbol_order::unorderable_at(link, file, obj.symbol_section(index))
                    .map(|what| (obj.name.as_str(), what)),
            };
            if let Some((shown, what)) = unorderable {
                diag::warn(&format!("{shown}: unable to order {what} symbol: {name}"));
            }
        }
        section
    };
    let mut profile = Profile::default();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(' ').collect();
        let count = match fields[..] {
            [_, _, count] => parse_count(count),
            _ => None,
        };
        let Some(count) = count else {
            return Err(LinkError::Link(format!("{shown}: parse error")));
        };
        if let Some(from) = find(fields[0]) {
            if let Some(to) = find(fields[1]) {
                profile.add(from, to, count);
            }
        }
    }
    Ok(profile)
}

/// A count as LLVM's `to_integer` reads it: decimal, `0x` hexadecimal, `0` octal.
fn parse_count(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if text.len() > 1 && text.starts_with('0') {
        u64::from_str_radix(&text[1..], 8).ok()
    } else {
        text.parse().ok()
    }
}

/// The graph the orderers see: the sections (nodes, in order of first appearance) with
/// their sizes, and the calls between sections of one output section (lld leaves out the
/// others: such sections cannot be placed side by side).
struct Graph {
    sections: Vec<SectionRef>,
    sizes: Vec<u64>,
    /// (caller, callee, count), node indices; self-calls included.
    calls: Vec<(usize, usize, u64)>,
}

impl Graph {
    fn new(link: &Link, profile: &Profile, skip_zero: bool) -> Graph {
        let output = |(f, s): SectionRef| {
            let sec = &link.objects[f as usize].sections[s as usize];
            if sec.is_kept() {
                sec.output
            } else {
                OutputId::NONE
            }
        };
        let mut graph = Graph {
            sections: Vec::new(),
            sizes: Vec::new(),
            calls: Vec::new(),
        };
        let mut nodes: FxHashMap<SectionRef, usize> = FxHashMap::default();
        let mut node = |graph: &mut Graph, s: SectionRef| {
            *nodes.entry(s).or_insert_with(|| {
                graph.sections.push(s);
                let sec = &link.objects[s.0 as usize].sections[s.1 as usize];
                graph.sizes.push(sec.size());
                graph.sections.len() - 1
            })
        };
        for &(from, to, count) in &profile.calls {
            if output(from) != output(to) || (skip_zero && count == 0) {
                continue;
            }
            let (a, b) = (node(&mut graph, from), node(&mut graph, to));
            graph.calls.push((a, b, count));
        }
        graph
    }
}

/// Each ordered section's priority, 1 up, in the order `kind` lays them out;
/// `--print-symbol-order` is written for `hfsort`, as lld writes it.
pub fn priorities(
    link: &Link,
    profile: &Profile,
    kind: CallGraphSort,
) -> Result<FxHashMap<SectionRef, i32>> {
    let order = match kind {
        CallGraphSort::None => return Ok(FxHashMap::default()),
        CallGraphSort::Cdsort => {
            let graph = Graph::new(link, profile, true);
            match crate::lto_backend::backend() {
                Ok(llvm) => cache_directed(&graph, llvm),
                Err(e) => {
                    // The default falls back quietly (a build with --fatal-warnings still
                    // links); an explicit request is told.
                    if link.opts.call_graph_sort_asked {
                        diag::warn(&format!(
                            "--call-graph-profile-sort=cdsort runs LLVM's orderer: {e}; \
                             ordered with hfsort instead"
                        ));
                    }
                    call_chain_clusters(&Graph::new(link, profile, false))
                }
            }
        }
        CallGraphSort::Hfsort => {
            let graph = Graph::new(link, profile, false);
            let order = call_chain_clusters(&graph);
            if let Some(path) = &link.opts.print_symbol_order {
                print_symbol_order(link, &order, path)?;
            }
            order
        }
    };
    Ok(order
        .into_iter()
        .enumerate()
        .map(|(k, s)| (s, i32::try_from(k + 1).unwrap_or(i32::MAX)))
        .collect())
}

fn cache_directed(graph: &Graph, llvm: &dyn rld_lto_api::LtoBackend) -> Vec<SectionRef> {
    let mut layout = rld_lto_api::CallLayout {
        sizes: graph.sizes.clone(),
        counts: vec![0; graph.sizes.len()],
        ..Default::default()
    };
    for &(from, to, count) in &graph.calls {
        if from == to {
            continue;
        }
        layout.calls.push((from as u64, to as u64, count));
        // The profile has no call offsets: the middle of the caller (lld's guess).
        layout.offsets.push(graph.sizes[from].div_ceil(2));
        layout.counts[to] = layout.counts[to].wrapping_add(count);
    }
    let order = llvm.cache_directed_layout(&layout);
    order
        .into_iter()
        .filter_map(|n| graph.sections.get(n as usize).copied())
        .collect()
}

/// A chain of sections laid out together: a circular list through `next`/`prev`, its
/// size and weight kept by its leader.
#[derive(Clone)]
struct Cluster {
    next: usize,
    prev: usize,
    size: u64,
    weight: u64,
    initial_weight: u64,
    /// The caller calling it most, with that count.
    best_pred: Option<(usize, u64)>,
}

impl Cluster {
    fn density(&self) -> f64 {
        if self.size == 0 {
            0.0
        } else {
            self.weight as f64 / self.size as f64
        }
    }
}

/// A merged cluster whose density falls below an eighth of its first part's is not made.
const MAX_DENSITY_DEGRADATION: f64 = 8.0;
/// Nor one larger than a megabyte.
const MAX_CLUSTER_SIZE: u64 = 1024 * 1024;

/// Call-Chain Clustering (Ottoni and Maher, "Optimizing Function Placement for Large-Scale
/// Data-Center Applications", CGO 2017), with lld's thresholds: sections from the densest
/// (calls in per byte) down join the cluster of the caller that calls them most, unless
/// that call is under a tenth of their calls, the cluster would pass a megabyte, or its
/// density would fall too far; clusters are then laid out densest first.
fn call_chain_clusters(graph: &Graph) -> Vec<SectionRef> {
    let mut clusters: Vec<Cluster> = graph
        .sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| Cluster {
            next: i,
            prev: i,
            size,
            weight: 0,
            initial_weight: 0,
            best_pred: None,
        })
        .collect();
    for &(from, to, count) in &graph.calls {
        let c = &mut clusters[to];
        c.weight = c.weight.wrapping_add(count);
        if from != to && c.best_pred.is_none_or(|(_, best)| best < count) {
            c.best_pred = Some((from, count));
        }
    }
    for c in &mut clusters {
        c.initial_weight = c.weight;
    }
    let by_density = |clusters: &[Cluster], list: &mut Vec<usize>| {
        // Stable: equal densities keep their order.
        list.sort_by(|&a, &b| clusters[b].density().total_cmp(&clusters[a].density()));
    };
    let mut leaders: Vec<usize> = (0..clusters.len()).collect();
    let mut sorted: Vec<usize> = (0..clusters.len()).collect();
    by_density(&clusters, &mut sorted);
    for &l in &sorted {
        let Some((pred, count)) = clusters[l].best_pred else {
            continue;
        };
        if count.saturating_mul(10) <= clusters[l].initial_weight {
            continue;
        }
        let pred = leader(&mut leaders, pred);
        if pred == l || clusters[l].size + clusters[pred].size > MAX_CLUSTER_SIZE {
            continue;
        }
        let (p, c) = (&clusters[pred], &clusters[l]);
        let merged = (p.weight + c.weight) as f64 / (p.size + c.size) as f64;
        if merged < p.density() / MAX_DENSITY_DEGRADATION {
            continue;
        }
        leaders[l] = pred;
        merge(&mut clusters, pred, l);
    }
    let mut sorted: Vec<usize> = (0..clusters.len())
        .filter(|&i| clusters[i].size > 0)
        .collect();
    by_density(&clusters, &mut sorted);
    let mut order = Vec::with_capacity(clusters.len());
    for &first in &sorted {
        let mut i = first;
        loop {
            order.push(graph.sections[i]);
            i = clusters[i].next;
            if i == first {
                break;
            }
        }
    }
    order
}

/// The leader of `v`'s cluster (union-find with path halving).
fn leader(leaders: &mut [usize], mut v: usize) -> usize {
    while leaders[v] != v {
        leaders[v] = leaders[leaders[v]];
        v = leaders[v];
    }
    v
}

/// Appends cluster `from`'s chain to `into`'s.
fn merge(clusters: &mut [Cluster], into: usize, from: usize) {
    let (tail_into, tail_from) = (clusters[into].prev, clusters[from].prev);
    clusters[into].prev = tail_from;
    clusters[tail_from].next = into;
    clusters[from].prev = tail_into;
    clusters[tail_into].next = from;
    clusters[into].size += clusters[from].size;
    clusters[into].weight = clusters[into].weight.wrapping_add(clusters[from].weight);
    clusters[from].size = 0;
    clusters[from].weight = 0;
}

/// `--print-symbol-order=FILE`: for each section in order, the names of the symbols its
/// object defines in it (not section symbols), in the object's symbol table order.
fn print_symbol_order(link: &Link, order: &[SectionRef], path: &Path) -> Result<()> {
    let mut text = Vec::new();
    for &(f, s) in order {
        let obj = &link.objects[f as usize];
        for (i, sym) in obj.symbols.iter().enumerate().skip(1) {
            if sym.st_type() == object::elf::STT_SECTION {
                continue;
            }
            let here = match obj.global_index(i) {
                Some(id) => matches!(
                    link.symtab.get(id).def,
                    SymbolDef::Defined { file, section, .. } if (file, section) == (f, s)
                ),
                None => obj.symbol_section(i) == s,
            };
            if here {
                text.extend_from_slice(obj.symbol_name(i));
                text.push(b'\n');
            }
        }
    }
    std::fs::write(path, text)
        .map_err(|e| LinkError::Link(format!("cannot open {}: {e}", path.display())))
}
