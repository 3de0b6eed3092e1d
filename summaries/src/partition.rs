//! Splitting the LTO unit into partitions that LLVM optimizes and compiles in parallel.
//!
//! The whole-program analyses have already run on the combined index, so a partition is not a
//! ThinLTO module that must guess what the rest of the program does: it is a slice of the
//! internalized program whose every decision is known. What partitioning must keep is the
//! optimizer's view across the cut:
//!
//! - **Units**: definitions that must be emitted together (a comdat group, an alias with its
//!   aliasee, a computed-goto table with its function) form one unit, placed as a whole.
//! - **Order and cut**: units are laid out module by module in call-graph order (a
//!   depth-first walk that puts variables right after their first user, and callees of the
//!   same module after their first caller), then the order is cut into runs of about equal
//!   size (instructions), at module boundaries unless a module is too large for one run.
//!   Everything depends on the program only (names and sizes, never
//!   the inputs' paths, the machine or the thread count), so the output is the same
//!   everywhere.
//! - **Single callers**: a function called from one place only (its address never taken)
//!   joins its caller's partition, where the inliner folds it in as it would in one module
//!   (see [`follow_single_callers`]).
//! - **Copies for inlining**: a partition receives an `available_externally` copy of each
//!   small function its code calls in another partition (and, with a decaying size limit, of
//!   their small callees, as ThinLTO imports). The inliner uses it; it is never emitted, so a
//!   copy the inliner declines costs no code size (internal clones, tried first, made SQLite's
//!   code 11% larger: each partition kept its own out-of-line copies).
//! - **Shared locals**: a local or internalized definition that code in another partition
//!   refers to by name becomes a hidden symbol (locals renamed uniquely, see [`shared_name`]),
//!   so the partitions' objects link to each other and to nothing else.

use crate::index::{CombinedIndex, GlobalId, Resolutions};
use crate::model::{GlobalFlags, GlobalKind, GlobalSummary, Linkage};
use std::collections::{HashMap, HashSet};

/// Instructions per partition when the count is chosen from the program's size.
pub const PARTITION_SIZE: u64 = 5_000;
/// At most this many partitions are chosen automatically.
pub const MAX_AUTO_PARTITIONS: u32 = 16;
/// Functions of at most this many instructions are copied into the partitions that call
/// them (ThinLTO's `-import-instr-limit` default is 100).
pub const IMPORT_LIMIT: u32 = 100;
/// The limit for a copied function's own callees shrinks by this factor per level.
const IMPORT_DECAY: f64 = 0.7;

/// What the partitioner needs to know beyond the index.
pub struct PartitionInput<'a> {
    pub index: &'a CombinedIndex,
    pub res: &'a Resolutions,
    /// Per module, per global: the definition reaches the backend (prevailing and live, or
    /// kept by name like `llvm.global_ctors`).
    pub compiled: &'a [Vec<bool>],
    /// Non-local definitions the LTO step gives internal linkage.
    pub internalized: &'a HashSet<GlobalId>,
    /// References the backend adds: the targets of indirect calls it promotes or annotates
    /// (caller, callee).
    pub extra_refs: &'a [(GlobalId, GlobalId)],
    /// `--lto-partitions=N`; `None` chooses from the program's size.
    pub requested: Option<u32>,
}

/// What a partition does with one global of a module it loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The partition defines it.
    Own,
    /// The partition holds an `available_externally` copy of a function another one owns:
    /// a body for the inliner; calls that stay go to the owner.
    Copy,
    /// Defined elsewhere (another partition, or outside the LTO unit): a declaration here.
    Elsewhere,
}

/// The partitions of one LTO unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionPlan {
    count: u32,
    /// Per module, per global: the partition that defines it (compiled definitions only).
    owner: Vec<Vec<Option<u32>>>,
    /// Per partition: copies of other partitions' functions.
    copies: Vec<HashSet<GlobalId>>,
    /// Local or internalized definitions referred to across partitions.
    shared: HashSet<GlobalId>,
    /// Per partition: the modules it loads, in index order.
    modules: Vec<Vec<u32>>,
    /// Per module: the one partition that emits its module-level parts (inline asm).
    home: Vec<u32>,
    /// Per partition: instructions owned, instructions copied.
    sizes: Vec<(u64, u64)>,
}

impl PartitionPlan {
    /// Everything in one partition: the classic full LTO module.
    pub fn single(index: &CombinedIndex, compiled: &[Vec<bool>]) -> PartitionPlan {
        let owner = compiled
            .iter()
            .map(|c| c.iter().map(|&b| b.then_some(0)).collect())
            .collect();
        let size = (0..index.modules.len())
            .map(|m| function_sizes(index, m as u32).values().sum::<u64>())
            .sum();
        PartitionPlan {
            count: 1,
            owner,
            copies: vec![HashSet::new()],
            shared: HashSet::new(),
            modules: vec![(0..index.modules.len() as u32).collect()],
            home: vec![0; index.modules.len()],
            sizes: vec![(size, 0)],
        }
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    /// What partition `p` does with global `id`.
    pub fn placement(&self, p: u32, id: GlobalId) -> Placement {
        let owner = self
            .owner
            .get(id.module as usize)
            .and_then(|o| o.get(id.index as usize))
            .copied()
            .flatten();
        if owner == Some(p) {
            return Placement::Own;
        }
        if self.copies.get(p as usize).is_some_and(|c| c.contains(&id)) {
            Placement::Copy
        } else {
            Placement::Elsewhere
        }
    }

    /// The partition that defines `id`, if it is compiled at all.
    pub fn owner(&self, id: GlobalId) -> Option<u32> {
        self.owner
            .get(id.module as usize)?
            .get(id.index as usize)
            .copied()
            .flatten()
    }

    /// Whether `id`, local to the LTO unit, is referred to across partitions and so becomes
    /// a hidden symbol.
    pub fn is_shared(&self, id: GlobalId) -> bool {
        self.shared.contains(&id)
    }

    /// The modules partition `p` loads.
    pub fn modules(&self, p: u32) -> &[u32] {
        self.modules.get(p as usize).map_or(&[], Vec::as_slice)
    }

    /// Whether partition `p` emits module `m`'s module-level parts (inline asm), which
    /// exactly one partition may do.
    pub fn is_home(&self, p: u32, m: u32) -> bool {
        self.home.get(m as usize) == Some(&p)
    }

    /// Partition `p`'s copies of other partitions' functions, in index order.
    pub fn copies(&self, p: u32) -> Vec<GlobalId> {
        let mut list: Vec<GlobalId> = self
            .copies
            .get(p as usize)
            .into_iter()
            .flatten()
            .copied()
            .collect();
        list.sort_unstable();
        list
    }

    /// Instructions partition `p` owns and instructions it holds as copies.
    pub fn size(&self, p: u32) -> (u64, u64) {
        self.sizes.get(p as usize).copied().unwrap_or_default()
    }

    /// Number of local definitions that became hidden symbols.
    pub fn shared_count(&self) -> usize {
        self.shared.len()
    }
}

/// The name a shared local definition gets in every partition: unique across modules, and
/// the same one the backend gives local targets of promoted indirect calls. A `private`
/// one (LLVM's linkage for what the compiler made and the source never named: string
/// literals, constant tables) is marked so, and the output's symbol table leaves it out, as
/// one module's object would have.
pub fn shared_name(name: &str, module: u32, private: bool) -> String {
    let mark = if private { PRIVATE_MARK } else { MARK };
    format!("{name}{mark}{module}")
}

const MARK: &str = ".rld.";
const PRIVATE_MARK: &str = ".rld.private.";

/// A name made by [`shared_name`], taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedName<'a> {
    /// The name in the module (in its source, unless private).
    pub source: &'a [u8],
    pub module: u32,
    pub private: bool,
}

/// The inverse of [`shared_name`], or `None` for any other name. Bytes, since symbol names
/// need not be UTF-8.
pub fn split_shared_name(name: &[u8]) -> Option<SharedName<'_>> {
    let digits = name.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let (stem, module) = name.split_at(name.len() - digits);
    let module = std::str::from_utf8(module).ok()?.parse().ok()?;
    let (source, private) = match stem.strip_suffix(PRIVATE_MARK.as_bytes()) {
        Some(source) => (source, true),
        None => (stem.strip_suffix(MARK.as_bytes())?, false),
    };
    (!source.is_empty()).then_some(SharedName {
        source,
        module,
        private,
    })
}

/// Instructions per defined function of module `m` (from the summary's function shapes).
fn function_sizes(index: &CombinedIndex, m: u32) -> HashMap<u32, u64> {
    index.modules[m as usize]
        .shapes
        .iter()
        .map(|s| (s.function, u64::from(s.instructions)))
        .collect()
}

/// The partition size the automatic split aims at for a program of `total` instructions:
/// [`PARTITION_SIZE`], doubled as often as needed to stay within [`MAX_AUTO_PARTITIONS`] (in
/// steps, so that an edit does not move every cut).
pub fn chunk_size(total: u64) -> u64 {
    let mut size = PARTITION_SIZE;
    while total > size * u64::from(MAX_AUTO_PARTITIONS) {
        size *= 2;
    }
    size
}

/// `--lto-partitions=N`: the order cut into `count` runs of about equal size; a unit goes
/// where its middle falls.
fn even_cut(
    unit_order: &[usize],
    unit_sizes: &HashMap<usize, u64>,
    total: u64,
    count: u32,
) -> HashMap<usize, u32> {
    let mut done = 0u64;
    let mut out = HashMap::new();
    for &u in unit_order {
        let size = unit_sizes[&u];
        let middle = done + size / 2;
        done += size;
        let p = ((middle * u64::from(count)) / total.max(1)).min(u64::from(count) - 1);
        out.insert(u, p as u32);
    }
    out
}

/// The automatic split, content-defined (as backup tools chunk files): past half the
/// target size, a partition ends after a unit with a probability proportional to the unit's
/// size, decided by a hash of the unit's name. An edit changes the cuts near it only, so the
/// other partitions keep their contents and their cached objects; a partition ends at
/// twice the target at the latest, and a small rest joins the previous one.
///
/// Cuts prefer module boundaries: every partition that holds part of a module repeats its
/// compile unit's debug-info framing (abbreviations, the unit's entry, string offsets, the
/// line table's header) and loses the inliner's view of the module's static helpers. So a
/// module of up to twice the target is never cut, a partition past three quarters of the
/// target ends where a module does, one past a quarter ends before a module that would take
/// it over one and a half times the target (a module joining a partition twice its size
/// makes the one partition every other waits for: bzip2's `compress.c` after `bzlib.c`),
/// and a larger module is cut where a quarter of the target or more of it is left.
fn content_defined_cut(
    input: &PartitionInput,
    defs: &Defs,
    unit_order: &[usize],
    unit_sizes: &HashMap<usize, u64>,
    total: u64,
) -> HashMap<usize, u32> {
    let target = chunk_size(total);
    let runs = module_runs(defs, unit_order, unit_sizes);
    let mut out = HashMap::new();
    let (mut p, mut current) = (0u32, 0u64);
    let mut last_start = 0u64;
    let mut done = 0u64;
    for (i, &u) in unit_order.iter().enumerate() {
        let size = unit_sizes[&u];
        out.insert(u, p);
        current += size;
        done += size;
        let cut = match runs.get(i + 1) {
            // The module ends here.
            Some(next) if next.left == next.size => {
                current >= target * 3 / 4
                    || (current >= target / 4 && current + next.size > target * 3 / 2)
            }
            None => false,
            Some(next) => {
                // Cut with probability size / (target / 2): the expected length past the
                // minimum is target / 2.
                let roll = cut_roll(input.index, defs.ids[u]);
                let chance = (size << 32) / (target / 2).max(1);
                next.size > 2 * target
                    && current >= target / 2
                    && roll < chance
                    && next.left >= target / 4
            }
        };
        if cut || current >= 2 * target {
            p += 1;
            current = 0;
            last_start = done;
        }
    }
    // The rest after the last cut is small: fold it into the previous partition.
    if p > 0 && total - last_start < target / 4 {
        for v in out.values_mut() {
            if *v == p {
                *v = p - 1;
            }
        }
    }
    out
}

/// Where a unit sits in its module's run (the units of one module next to each other in
/// the order): the run's size, and the size of the run from this unit on.
struct RunPlace {
    size: u64,
    left: u64,
}

fn module_runs(
    defs: &Defs,
    unit_order: &[usize],
    unit_sizes: &HashMap<usize, u64>,
) -> Vec<RunPlace> {
    let module_of = |i: usize| defs.ids[unit_order[i]].module;
    let mut places: Vec<RunPlace> = Vec::with_capacity(unit_order.len());
    let mut start = 0;
    while start < unit_order.len() {
        let mut end = start + 1;
        while end < unit_order.len() && module_of(end) == module_of(start) {
            end += 1;
        }
        let sizes: Vec<u64> = unit_order[start..end]
            .iter()
            .map(|u| unit_sizes[u])
            .collect();
        let size: u64 = sizes.iter().sum();
        let mut left = size;
        for s in sizes {
            places.push(RunPlace { size, left });
            left -= s;
        }
        start = end;
    }
    places
}

/// The hash that decides whether a partition may end after the unit led by `id`: of its
/// name, and for a local of its source file's name too (so that two modules' `static`
/// functions of one name roll differently). Never of the input's path: the same program
/// built in another directory, or relinked after an edit, is cut the same way.
fn cut_roll(index: &CombinedIndex, id: GlobalId) -> u64 {
    let g = index.global(id);
    let file = if g.linkage.is_local() {
        let source = &index.modules[id.module as usize].source_file;
        source.rsplit('/').next().unwrap_or(source)
    } else {
        ""
    };
    name_hash(file.as_bytes(), g.name.as_bytes()) & 0xffff_ffff
}

/// A hash of two byte strings (separated), for the content-defined cut: FNV-1a, then
/// MurmurHash3's finalizer, without which names that differ in their last byte ("f1",
/// "f2") get nearly equal low bits.
fn name_hash(a: &[u8], b: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &byte in a.iter().chain(&[0u8]).chain(b) {
        h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A dense numbering of the compiled definitions.
struct Defs {
    ids: Vec<GlobalId>,
    number: HashMap<GlobalId, usize>,
    size: Vec<u64>,
}

/// Splits the compiled definitions into partitions; see the module documentation.
pub fn partition(input: &PartitionInput) -> PartitionPlan {
    let index = input.index;
    let defs = number_definitions(input);
    let total: u64 = defs.size.iter().sum();
    let too_small = input.requested.is_none() && total <= chunk_size(total) / 2;
    if defs.ids.is_empty() || input.requested == Some(1) || too_small {
        return PartitionPlan::single(index, input.compiled);
    }
    let edges = reference_graph(input, &defs);
    let units = units(input, &defs);
    let order = call_graph_order(input, &defs, &edges, &units);
    // Units in order, with their sizes.
    let mut unit_sizes: HashMap<usize, u64> = HashMap::new();
    for (d, &u) in units.iter().enumerate() {
        *unit_sizes.entry(u).or_default() += defs.size[d];
    }
    let mut seen = HashSet::new();
    let unit_order: Vec<usize> = order
        .iter()
        .map(|&d| units[d])
        .filter(|&u| seen.insert(u))
        .collect();
    let unit_part = match input.requested {
        Some(count) => even_cut(&unit_order, &unit_sizes, total, count),
        None => content_defined_cut(input, &defs, &unit_order, &unit_sizes, total),
    };
    let mut part_of = vec![0u32; defs.ids.len()];
    for (d, p) in part_of.iter_mut().enumerate() {
        *p = unit_part[&units[d]];
    }
    follow_single_callers(input, &defs, &edges, &units, &mut part_of);
    // An empty partition helps nobody: renumber the used ones densely, in order.
    let mut used: Vec<u32> = part_of.clone();
    used.sort_unstable();
    used.dedup();
    let dense: HashMap<u32, u32> = used
        .iter()
        .enumerate()
        .map(|(i, &p)| (p, i as u32))
        .collect();
    for p in &mut part_of {
        *p = dense[p];
    }
    let count = used.len() as u32;

    let mut copies: Vec<HashSet<GlobalId>> = vec![HashSet::new(); count as usize];
    for (p, copies) in copies.iter_mut().enumerate() {
        import(input, &defs, &edges, &part_of, p as u32, copies);
    }

    // Which local definitions code in another partition names: through a reference from a
    // body the partition holds (owned or copied) to a definition it does not own. (A copy
    // is only a body for the inliner: a call that stays names the owner's symbol.)
    let mut shared = HashSet::new();
    for (p, copies) in copies.iter().enumerate() {
        let bodies = (0..defs.ids.len())
            .filter(|&d| part_of[d] == p as u32)
            .chain(copies.iter().map(|id| defs.number[id]));
        for d in bodies {
            for &(t, _) in &edges[d] {
                if part_of[t] != p as u32 && is_unit_local(input, defs.ids[t]) {
                    shared.insert(defs.ids[t]);
                }
            }
        }
    }

    let mut owner: Vec<Vec<Option<u32>>> =
        input.compiled.iter().map(|c| vec![None; c.len()]).collect();
    let mut sizes = vec![(0u64, 0u64); count as usize];
    for (d, &id) in defs.ids.iter().enumerate() {
        owner[id.module as usize][id.index as usize] = Some(part_of[d]);
        sizes[part_of[d] as usize].0 += defs.size[d];
    }
    let mut modules: Vec<Vec<u32>> = vec![Vec::new(); count as usize];
    let mut home = vec![0u32; index.modules.len()];
    for m in 0..index.modules.len() {
        let mut parts: Vec<u32> = owner[m].iter().flatten().copied().collect();
        parts.sort_unstable();
        parts.dedup();
        // A module with no definition left still has module-level parts to emit once; its
        // inline asm goes where the definitions it names are.
        let asm_named = index.modules[m]
            .globals
            .iter()
            .zip(&owner[m])
            .filter(|(g, _)| g.flags.contains(GlobalFlags::ASM_REFERENCED))
            .find_map(|(_, &p)| p);
        home[m] = asm_named.or(parts.first().copied()).unwrap_or(0);
        if parts.is_empty() {
            parts.push(0);
        }
        for p in parts {
            modules[p as usize].push(m as u32);
        }
    }
    for (p, copies) in copies.iter().enumerate() {
        for id in copies {
            sizes[p].1 += defs.size[defs.number[id]];
            if !modules[p].contains(&id.module) {
                modules[p].push(id.module);
            }
        }
        modules[p].sort_unstable();
    }
    PartitionPlan {
        count,
        owner,
        copies,
        shared,
        modules,
        home,
        sizes,
    }
}

fn number_definitions(input: &PartitionInput) -> Defs {
    let mut defs = Defs {
        ids: Vec::new(),
        number: HashMap::new(),
        size: Vec::new(),
    };
    for (m, compiled) in input.compiled.iter().enumerate() {
        let sizes = function_sizes(input.index, m as u32);
        for (i, &c) in compiled.iter().enumerate() {
            if !c {
                continue;
            }
            let id = GlobalId {
                module: m as u32,
                index: i as u32,
            };
            defs.number.insert(id, defs.ids.len());
            defs.ids.push(id);
            // A variable costs little to compile; count it as one instruction so that the
            // cut still sees it.
            defs.size
                .push(sizes.get(&(i as u32)).copied().unwrap_or(1).max(1));
        }
    }
    defs
}

/// Local to the LTO unit: local linkage, or internalized.
fn is_unit_local(input: &PartitionInput, id: GlobalId) -> bool {
    input.index.global(id).linkage.is_local() || input.internalized.contains(&id)
}

/// The compiled definition a module-local reference denotes, if any.
fn resolve(input: &PartitionInput, defs: &Defs, m: u32, i: u32) -> Option<usize> {
    let id = GlobalId {
        module: m,
        index: i,
    };
    if let Some(&d) = defs.number.get(&id) {
        return Some(d);
    }
    input
        .index
        .resolve_ref_iter(m, i)
        .find_map(|t| defs.number.get(&t).copied())
}

/// The summaries whose references and calls are definition `id`'s: its own, and for an
/// alias whose module's own aliasee is not compiled (another module's copy of that name
/// prevails), that aliasee's too. The alias still stands for its module's body (the dead
/// symbol analysis keeps that body live, and the backend keeps it for the alias under a
/// local name), so what the body refers to must be where the alias is, or shared with it.
fn made_of<'a>(input: &'a PartitionInput, defs: &Defs, id: GlobalId) -> Vec<&'a GlobalSummary> {
    let mut out = vec![input.index.global(id)];
    if out[0].kind != GlobalKind::Alias {
        return out;
    }
    let mut g = out[0];
    while let Some(a) = g.aliasee {
        let own = GlobalId {
            module: id.module,
            index: a,
        };
        if defs.number.contains_key(&own) || out.len() > 16 {
            break;
        }
        match input.index.get(own) {
            Some(body) if body.is_definition() => {
                out.push(body);
                g = body;
            }
            _ => break,
        }
    }
    out
}

/// Per definition: the definitions it refers to, each with whether it is a direct call.
fn reference_graph(input: &PartitionInput, defs: &Defs) -> Vec<Vec<(usize, bool)>> {
    let mut edges: Vec<Vec<(usize, bool)>> = vec![Vec::new(); defs.ids.len()];
    for (d, &id) in defs.ids.iter().enumerate() {
        for g in made_of(input, defs, id) {
            let calls = g.calls.iter().map(|&c| (c, true));
            let refs = g.refs.iter().chain(g.aliasee.iter()).map(|&r| (r, false));
            for (target, call) in calls.chain(refs) {
                if let Some(t) = resolve(input, defs, id.module, target) {
                    if t != d {
                        edges[d].push((t, call));
                    }
                }
            }
        }
    }
    for &(caller, callee) in input.extra_refs {
        if let (Some(&c), Some(&t)) = (defs.number.get(&caller), defs.number.get(&callee)) {
            if c != t {
                edges[c].push((t, true));
            }
        }
    }
    for e in &mut edges {
        // Calls first (they decide the order), then by target; a target once.
        e.sort_by_key(|&(t, call)| (!call, t));
        let mut seen = HashSet::new();
        e.retain(|&(t, _)| seen.insert(t));
    }
    edges
}

/// Per definition: its unit's representative (definitions emitted together share one).
fn units(input: &PartitionInput, defs: &Defs) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..defs.ids.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut union = |a: usize, b: usize| {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    };
    let mut comdats: HashMap<(u32, &str), usize> = HashMap::new();
    let mut asm_named: HashMap<u32, usize> = HashMap::new();
    for (d, &id) in defs.ids.iter().enumerate() {
        let g = input.index.global(id);
        if let Some(c) = &g.comdat {
            let first = *comdats.entry((id.module, c.as_str())).or_insert(d);
            union(first, d);
        }
        // What a module's inline asm names sits beside that asm (a `.symver` needs its
        // target defined in the same object): all of them together, in its home partition.
        if g.flags.contains(GlobalFlags::ASM_REFERENCED) {
            let first = *asm_named.entry(id.module).or_insert(d);
            union(first, d);
        }
        // Block addresses only exist beside their function's body.
        if g.flags.contains(GlobalFlags::BLOCK_ADDRESS) {
            for &r in &g.refs {
                if let Some(t) = resolve(input, defs, id.module, r) {
                    if input.index.global(defs.ids[t]).kind == GlobalKind::Function {
                        union(d, t);
                    }
                }
            }
        }
        // An alias (or ifunc) must sit in the module that defines what it stands for.
        if let Some(a) = g.aliasee {
            if let Some(t) = resolve(input, defs, id.module, a) {
                union(d, t);
            }
        }
    }
    (0..defs.ids.len()).map(|d| find(&mut parent, d)).collect()
}

/// Definitions in call-graph order, module by module: a depth-first walk from each
/// definition in index order that emits a function's unit, then the variables it uses (so
/// data sits with its first user), then walks its calls and the functions it refers to in
/// the same module. A module's code stays together: its compile unit's debug info is not
/// repeated in many partitions, its static helpers sit with their callers, and an edit to
/// one source file changes the partitions that hold that file. Small functions called
/// across modules are copied instead ([`import`]).
fn call_graph_order(
    input: &PartitionInput,
    defs: &Defs,
    edges: &[Vec<(usize, bool)>],
    units: &[usize],
) -> Vec<usize> {
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for (d, &u) in units.iter().enumerate() {
        members.entry(u).or_default().push(d);
    }
    let is_function = |d: usize| input.index.global(defs.ids[d]).kind == GlobalKind::Function;
    let mut visited = vec![false; defs.ids.len()];
    let mut order = Vec::with_capacity(defs.ids.len());
    let emit = |d: usize, visited: &mut Vec<bool>, order: &mut Vec<usize>| -> Vec<usize> {
        let unit = &members[&units[d]];
        for &member in unit {
            if !visited[member] {
                visited[member] = true;
                order.push(member);
            }
        }
        unit.clone()
    };
    let mut stack: Vec<usize> = Vec::new();
    for root in 0..defs.ids.len() {
        stack.push(root);
        while let Some(d) = stack.pop() {
            if visited[d] {
                continue;
            }
            let mut unit = emit(d, &mut visited, &mut order);
            // Data next (and the data its initializers point to), breadth first.
            let mut i = 0;
            while i < unit.len() {
                for &(t, call) in &edges[unit[i]] {
                    if !call && !is_function(t) && !visited[t] {
                        unit.extend(emit(t, &mut visited, &mut order));
                    }
                }
                i += 1;
            }
            // Then code: reversed, so the first call is walked first.
            for &member in unit.iter().rev() {
                for &(t, _) in edges[member].iter().rev() {
                    if !visited[t] && defs.ids[t].module == defs.ids[member].module {
                        stack.push(t);
                    }
                }
            }
        }
    }
    order
}

/// Moves each function that has one caller, and whose address nothing takes, into its
/// caller's partition: there it is a local function with a single call, which LLVM's
/// inliner folds into the caller as in one module. A copy would not do: the inliner weighs
/// a copy as any shared function, and the owner keeps its out-of-line body. A function no
/// larger than a copy may be always moves; a larger one only while its new partition
/// stays within a quarter above its size before the moves. Chains follow (a helper called
/// only by a moved function moves too). Decided from the call graph and each partition's
/// own size, in index order: the result depends on the program only, and an edit moves
/// functions near it only.
fn follow_single_callers(
    input: &PartitionInput,
    defs: &Defs,
    edges: &[Vec<(usize, bool)>],
    units: &[usize],
    part_of: &mut [u32],
) {
    let n = defs.ids.len();
    let mut unit_size: HashMap<usize, usize> = HashMap::new();
    for &u in units {
        *unit_size.entry(u).or_default() += 1;
    }
    // Per definition: its one caller, or `None` when it has several, or is referred to
    // other than by a call (its address is taken: an indirect call may reach it).
    let mut caller: Vec<Option<Option<usize>>> = vec![Some(None); n];
    for (d, e) in edges.iter().enumerate() {
        for &(t, call) in e {
            // (`edges` lists a target once per user.)
            caller[t] = match (call, caller[t]) {
                (true, Some(None)) => Some(Some(d)),
                _ => None,
            };
        }
    }
    // A reference that is also a call (in the same user) left only the call in `edges`.
    for (d, &id) in defs.ids.iter().enumerate() {
        for g in made_of(input, defs, id) {
            for &r in g.refs.iter().chain(g.aliasee.iter()) {
                if let Some(t) = resolve(input, defs, id.module, r) {
                    if t != d {
                        caller[t] = None;
                    }
                }
            }
        }
    }
    let mut sizes: HashMap<u32, u64> = HashMap::new();
    for (&p, &size) in part_of.iter().zip(&defs.size) {
        *sizes.entry(p).or_default() += size;
    }
    // Room a partition has for what it calls: a quarter of its own size (its own: a
    // global measure would let an edit anywhere move functions everywhere).
    let cap: HashMap<u32, u64> = sizes.iter().map(|(&p, &s)| (p, s + s / 4)).collect();
    let movable: Vec<Option<usize>> = (0..n)
        .map(|d| {
            let id = defs.ids[d];
            let c = caller[d].flatten()?;
            (unit_size[&units[d]] == 1
                && input.index.global(id).kind == GlobalKind::Function
                && is_unit_local(input, id)
                && copyable(input, id))
            .then_some(c)
        })
        .collect();
    // Chains settle one link per round; a round that moves nothing ends it.
    for _ in 0..64 {
        let mut moved = false;
        for d in 0..n {
            let Some(c) = movable[d] else { continue };
            let (from, to) = (part_of[d], part_of[c]);
            let small = defs.size[d] <= u64::from(IMPORT_LIMIT);
            if from == to || (!small && sizes[&to] + defs.size[d] > cap[&to]) {
                continue;
            }
            part_of[d] = to;
            *sizes.get_mut(&from).expect("sized") -= defs.size[d];
            *sizes.get_mut(&to).expect("sized") += defs.size[d];
            moved = true;
        }
        if !moved {
            break;
        }
    }
}

/// Chooses partition `p`'s copies: small functions its code calls in other partitions, and
/// their small callees with a decaying limit.
fn import(
    input: &PartitionInput,
    defs: &Defs,
    edges: &[Vec<(usize, bool)>],
    part_of: &[u32],
    p: u32,
    copies: &mut HashSet<GlobalId>,
) {
    let mut work: Vec<(usize, f64)> = (0..defs.ids.len())
        .filter(|&d| part_of[d] == p)
        .map(|d| (d, f64::from(IMPORT_LIMIT)))
        .collect();
    // Largest limit first per callee, so a function reached twice is judged by the best.
    let mut best: HashMap<usize, f64> = HashMap::new();
    while let Some((d, limit)) = work.pop() {
        for &(t, call) in &edges[d] {
            if !call || part_of[t] == p {
                continue;
            }
            let size = defs.size[t] as f64;
            if size > limit || best.get(&t).is_some_and(|&b| b >= limit) {
                continue;
            }
            let id = defs.ids[t];
            if !copyable(input, id) {
                continue;
            }
            best.insert(t, limit);
            copies.insert(id);
            work.push((t, limit * IMPORT_DECAY));
        }
    }
}

/// Whether a function may be copied into another partition: its body must be the one the
/// program runs (not interposable, not preemptible) and carry no placement of its own, and
/// none of its labels may have its address taken (`blockaddress`): a label's address is
/// one place in the one body emitted, which a copy's code would not reach (gcc-torture's
/// 920302-1 jumped into nowhere with two partitions).
fn copyable(input: &PartitionInput, id: GlobalId) -> bool {
    let g = input.index.global(id);
    let r = input.res.get(id);
    g.kind == GlobalKind::Function
        && !g.linkage.is_interposable()
        && g.linkage != Linkage::Appending
        && !r.preemptible
        && !g.flags.contains(GlobalFlags::EXPLICIT_SECTION)
        && !g.flags.contains(GlobalFlags::USED)
        && !g.flags.contains(GlobalFlags::COMPILER_USED)
        && !g.flags.contains(GlobalFlags::BLOCK_ADDRESS)
}

mod check;
pub use check::check;

#[cfg(test)]
mod tests;
