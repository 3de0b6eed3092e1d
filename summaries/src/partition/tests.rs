//! Partitioning hand-built programs: where each definition lands, what is copied where, and
//! which locals become shared symbols.

use super::*;
use crate::fixtures::{global, resolutions};
use crate::model::{FunctionShape, GlobalSummary, ModuleSummary};

/// A program built function by function, each with a size in instructions.
struct Builder {
    modules: Vec<ModuleSummary>,
    preemptible: Vec<String>,
    /// Definitions that do not prevail (another module's copy of the name does), so they
    /// are not compiled.
    losing: Vec<GlobalId>,
}

impl Builder {
    fn new(modules: usize) -> Builder {
        Builder {
            modules: (0..modules)
                .map(|m| ModuleSummary {
                    module_id: format!("m{m}.o"),
                    ..Default::default()
                })
                .collect(),
            preemptible: Vec::new(),
            losing: Vec::new(),
        }
    }

    fn add(&mut self, m: usize, g: GlobalSummary, size: Option<u32>) -> u32 {
        let module = &mut self.modules[m];
        let i = module.globals.len() as u32;
        module.globals.push(g);
        if let Some(n) = size {
            module.shapes.push(FunctionShape {
                function: i,
                instructions: n,
                opcode_hash: 0,
            });
        }
        i
    }

    fn func(&mut self, m: usize, name: &str, linkage: Linkage, size: u32) -> u32 {
        self.add(m, global(name, GlobalKind::Function, linkage), Some(size))
    }

    fn var(&mut self, m: usize, name: &str, linkage: Linkage) -> u32 {
        self.add(m, global(name, GlobalKind::Variable, linkage), None)
    }

    fn declare(&mut self, m: usize, name: &str) -> u32 {
        let mut g = global(name, GlobalKind::Function, Linkage::External);
        g.flags.insert(GlobalFlags::DECLARATION);
        self.add(m, g, None)
    }

    fn g(&mut self, m: usize, i: u32) -> &mut GlobalSummary {
        &mut self.modules[m].globals[i as usize]
    }

    fn calls(&mut self, m: usize, caller: u32, callee: u32) {
        self.g(m, caller).calls.push(callee);
    }

    fn refs(&mut self, m: usize, user: u32, used: u32) {
        self.g(m, user).refs.push(used);
    }

    /// Partitions with every definition compiled; non-local functions other than `main`
    /// internalized, as an executable's LTO does.
    fn plan(&self, requested: Option<u32>) -> (CombinedIndex, PartitionPlan) {
        let (index, plan, checked) = self.plan_then(requested, |_| {});
        if let Err(e) = checked {
            panic!("the cut breaks an invariant: {e}");
        }
        (index, plan)
    }

    /// The plan, changed by `mutate`, and what [`check`] says of it.
    fn plan_then(
        &self,
        requested: Option<u32>,
        mutate: impl FnOnce(&mut PartitionPlan),
    ) -> (CombinedIndex, PartitionPlan, Result<(), String>) {
        let index = CombinedIndex::new(self.modules.clone());
        let mut res = resolutions(&index);
        let compiled: Vec<Vec<bool>> = index
            .modules
            .iter()
            .enumerate()
            .map(|(m, module)| {
                (0..module.globals.len())
                    .map(|i| {
                        let id = id(m as u32, i as u32);
                        index.global(id).is_definition() && !self.losing.contains(&id)
                    })
                    .collect()
            })
            .collect();
        let mut internalized = HashSet::new();
        for id in index.ids() {
            let g = index.global(id);
            if self.losing.contains(&id) {
                res.get_mut(id).prevailing = false;
            } else if self.preemptible.contains(&g.name) {
                res.get_mut(id).preemptible = true;
            } else if g.is_definition() && !g.linkage.is_local() && g.name != "main" {
                internalized.insert(id);
            }
        }
        let input = PartitionInput {
            index: &index,
            res: &res,
            compiled: &compiled,
            internalized: &internalized,
            extra_refs: &[],
            requested,
        };
        let mut plan = partition(&input);
        mutate(&mut plan);
        let checked = check(&plan, &input);
        (index, plan, checked)
    }
}

fn id(module: u32, index: u32) -> GlobalId {
    GlobalId { module, index }
}

#[test]
fn one_partition_owns_everything() {
    let mut b = Builder::new(2);
    let main = b.func(0, "main", Linkage::External, 50);
    let f = b.func(1, "f", Linkage::External, 50);
    let f_decl = b.declare(0, "f");
    b.calls(0, main, f_decl);
    let (_, plan) = b.plan(Some(1));
    assert_eq!(plan.count(), 1);
    assert_eq!(plan.placement(0, id(0, main)), Placement::Own);
    assert_eq!(plan.placement(0, id(1, f)), Placement::Own);
    assert_eq!(plan.placement(0, id(0, f_decl)), Placement::Elsewhere);
    assert_eq!(plan.modules(0), &[0, 1]);
    assert_eq!(plan.shared_count(), 0);
}

#[test]
fn the_count_follows_the_program_size() {
    let limit = PARTITION_SIZE * u64::from(MAX_AUTO_PARTITIONS);
    assert_eq!(chunk_size(0), PARTITION_SIZE);
    assert_eq!(chunk_size(limit), PARTITION_SIZE);
    assert_eq!(chunk_size(limit + 1), 2 * PARTITION_SIZE);
    assert_eq!(chunk_size(3 * limit), 4 * PARTITION_SIZE);
    // Too small to split.
    let mut small = Builder::new(1);
    small.func(0, "main", Linkage::External, (PARTITION_SIZE / 2) as u32);
    assert_eq!(small.plan(None).1.count(), 1);
    let mut b = Builder::new(1);
    for i in 0..3 {
        b.func(
            0,
            &format!("f{i}"),
            Linkage::External,
            PARTITION_SIZE as u32,
        );
    }
    assert_eq!(b.plan(None).1.count(), 3);
}

/// main → big1 → big2 (each half the program); small `helper` called from both halves;
/// a static variable used by both halves.
fn two_halves() -> (Builder, [u32; 5]) {
    let mut b = Builder::new(1);
    let main = b.func(0, "main", Linkage::External, 10);
    let big1 = b.func(0, "big1", Linkage::Internal, 5000);
    let big2 = b.func(0, "big2", Linkage::Internal, 5000);
    let helper = b.func(0, "helper", Linkage::Internal, 20);
    let counter = b.var(0, "counter", Linkage::Internal);
    b.calls(0, main, big1);
    b.calls(0, big1, big2);
    b.calls(0, big1, helper);
    b.calls(0, big2, helper);
    b.refs(0, big1, counter);
    b.refs(0, big2, counter);
    (b, [main, big1, big2, helper, counter])
}

#[test]
fn a_small_callee_is_copied_and_what_both_halves_use_becomes_a_symbol() {
    let (b, [main, big1, big2, helper, counter]) = two_halves();
    let (_, plan) = b.plan(Some(2));
    assert_eq!(plan.count(), 2);
    // Call-graph order: main, big1, counter (data right after its first user), big2,
    // helper; the cut falls after the counter.
    let owners: Vec<_> = [main, big1, big2, helper, counter]
        .map(|g| plan.owner(id(0, g)))
        .to_vec();
    assert_eq!(owners, [Some(0), Some(0), Some(1), Some(1), Some(0)]);
    // big1 (partition 0) calls helper (partition 1): small, so copied for the inliner; a
    // call that stays goes to partition 1's definition, which becomes a symbol.
    assert_eq!(plan.placement(0, id(0, helper)), Placement::Copy);
    assert_eq!(plan.placement(1, id(0, helper)), Placement::Own);
    assert!(plan.is_shared(id(0, helper)));
    assert_eq!(plan.copies(0), vec![id(0, helper)]);
    assert!(plan.copies(1).is_empty());
    // big2 is too big to copy: partition 0 calls it by name.
    assert_eq!(plan.placement(0, id(0, big2)), Placement::Elsewhere);
    assert!(plan.is_shared(id(0, big2)));
    // Both halves use the variable; it lives in one and is named by the other.
    assert!(plan.is_shared(id(0, counter)));
    assert!(!plan.is_shared(id(0, big1)));
    assert!(!plan.is_shared(id(0, main)));
    assert_eq!(plan.modules(0), &[0]);
    assert_eq!(plan.modules(1), &[0]);
    assert!(plan.is_home(0, 0) && !plan.is_home(1, 0));
    assert_eq!(plan.size(0), (5011, 20));
    assert_eq!(plan.size(1), (5020, 0));
}

/// The invariants are checked against the summaries: a cut that would leave a local
/// unreachable from a partition naming it, or copy a variable, is refused.
#[test]
fn a_cut_that_breaks_an_invariant_is_refused() {
    let (b, [_, _, _, helper, counter]) = two_halves();
    let (_, _, checked) = b.plan_then(Some(2), |plan| {
        plan.shared.remove(&id(0, counter));
    });
    let e = checked.unwrap_err();
    assert!(e.contains("'counter'") && e.contains("not shared"), "{e}");
    let (_, _, checked) = b.plan_then(Some(2), |plan| {
        plan.copies[1].insert(id(0, counter));
    });
    assert!(checked.unwrap_err().contains("not a function"));
    let (_, _, checked) = b.plan_then(Some(2), |plan| {
        plan.owner[0][helper as usize] = None;
    });
    assert!(checked.unwrap_err().contains("no partition owns it"));
}

#[test]
fn preemptible_callees_are_never_copied() {
    let (mut b, [main, ..]) = two_halves();
    let exported = b.func(0, "exported", Linkage::External, 10);
    b.preemptible.push("exported".into());
    b.calls(0, main, exported);
    let (_, plan) = b.plan(Some(2));
    // Another definition may replace it at run time: its body says nothing.
    let owner = plan.owner(id(0, exported)).unwrap();
    assert_ne!(owner, plan.owner(id(0, main)).unwrap());
    assert_eq!(
        plan.placement(1 - owner, id(0, exported)),
        Placement::Elsewhere
    );
    // Not local to the LTO unit either: it keeps its own symbol.
    assert!(!plan.is_shared(id(0, exported)));
}

#[test]
fn comdat_members_and_aliases_stay_together() {
    let mut b = Builder::new(2);
    let main = b.func(0, "main", Linkage::External, 10);
    let big = b.func(0, "big", Linkage::External, 6000);
    let inline_fn = b.func(1, "inline_fn", Linkage::LinkOnceODR, 4000);
    let guard = b.var(1, "guard", Linkage::LinkOnceODR);
    let alias = b.add(
        1,
        global("alias", GlobalKind::Alias, Linkage::External),
        None,
    );
    let aliased = b.func(1, "aliased", Linkage::External, 3000);
    for g in [inline_fn, guard] {
        b.g(1, g).comdat = Some("inline_fn".into());
    }
    b.g(1, alias).aliasee = Some(aliased);
    b.calls(0, main, big);
    let big_decl = b.declare(1, "big");
    b.calls(1, inline_fn, big_decl);
    let (_, plan) = b.plan(Some(3));
    assert_eq!(plan.owner(id(1, inline_fn)), plan.owner(id(1, guard)));
    assert_eq!(plan.owner(id(1, alias)), plan.owner(id(1, aliased)));
    let _ = main;
}

/// m0: main, which calls `D1`; m1: the prevailing `D2`; m2: `D1`, an alias of m2's own
/// copy of `D2`, which loses to m1's and is not compiled, though its body refers to m2's
/// `.str`; and `user` of `.str`, when given. (A C++ complete-object destructor aliasing the
/// base-object one of its module.)
fn alias_of_a_losing_copy(user: Option<u32>) -> (PartitionPlan, [u32; 3]) {
    let mut b = Builder::new(3);
    let main = b.func(0, "main", Linkage::External, 10);
    let d1_decl = b.declare(0, "D1");
    b.calls(0, main, d1_decl);
    b.func(1, "D2", Linkage::LinkOnceODR, 50);
    let filler = b.func(2, "filler", Linkage::External, 6000);
    let text = b.var(2, ".str", Linkage::Private);
    if let Some(size) = user {
        let user = b.func(2, "user", Linkage::External, size);
        b.refs(2, user, text);
    }
    let d2_copy = b.func(2, "D2", Linkage::WeakODR, 50);
    let d1 = b.add(2, global("D1", GlobalKind::Alias, Linkage::WeakODR), None);
    b.g(2, d1).aliasee = Some(d2_copy);
    b.refs(2, d2_copy, text);
    b.losing.push(id(2, d2_copy));
    let (_, plan) = b.plan(Some(2));
    assert_eq!(plan.count(), 2);
    assert_eq!(plan.owner(id(2, d2_copy)), None);
    (plan, [filler, text, d1])
}

#[test]
fn an_alias_takes_along_what_its_own_losing_aliasee_refers_to() {
    // The alias stands for its module's body all the same (the backend keeps that body for
    // it), so what the body refers to goes where the alias goes, not where its index falls
    // (after the big `filler`, in the other partition).
    let (plan, [filler, text, d1]) = alias_of_a_losing_copy(None);
    let alias = plan.owner(id(2, d1)).unwrap();
    assert_ne!(Some(alias), plan.owner(id(2, filler)));
    // With the prevailing D2, as an alias is with its aliasee.
    assert_eq!(Some(alias), plan.owner(id(1, 0)));
    assert_eq!(plan.owner(id(2, text)), Some(alias), "{plan:?}");
    assert!(!plan.is_shared(id(2, text)));
    // Used by a big function of the other partition too: one definition, a shared symbol.
    let (plan, [_, text, d1]) = alias_of_a_losing_copy(Some(6000));
    let user = plan.owner(id(2, 2)).unwrap();
    assert_ne!(Some(user), plan.owner(id(2, d1)));
    assert!(plan.is_shared(id(2, text)), "{plan:?}");
}

#[test]
fn copies_reach_small_callees_of_copies_with_a_shrinking_limit() {
    let mut b = Builder::new(1);
    let main = b.func(0, "main", Linkage::External, 10);
    let big1 = b.func(0, "big1", Linkage::Internal, 5000);
    let big2 = b.func(0, "big2", Linkage::Internal, 5000);
    let a = b.func(0, "a", Linkage::Internal, 60);
    let c = b.func(0, "c", Linkage::Internal, 60);
    let d = b.func(0, "d", Linkage::Internal, 80);
    b.calls(0, main, big1);
    b.calls(0, big1, big2);
    b.calls(0, big2, a);
    b.calls(0, a, c);
    b.calls(0, a, d);
    b.calls(0, big1, a);
    let (_, plan) = b.plan(Some(2));
    assert_eq!(plan.owner(id(0, a)), Some(1));
    // a (60 ≤ 100) is copied into partition 0; c (60 ≤ 70) too; d (80 > 70) is not.
    assert_eq!(plan.placement(0, id(0, a)), Placement::Copy);
    assert_eq!(plan.placement(0, id(0, c)), Placement::Copy);
    assert_eq!(plan.placement(0, id(0, d)), Placement::Elsewhere);
    assert_eq!(plan.size(0), (5010, 120));
    // The copies' calls name d, c and a in partition 1.
    for f in [a, c, d] {
        assert!(plan.is_shared(id(0, f)));
    }
}

#[test]
fn a_module_without_definitions_still_has_a_home() {
    let mut b = Builder::new(2);
    b.func(0, "main", Linkage::External, 6000);
    b.func(0, "other", Linkage::External, 6000);
    b.declare(1, "printf");
    let (_, plan) = b.plan(Some(2));
    assert!(plan.is_home(0, 1));
    assert!(plan.modules(0).contains(&1));
    assert!(!plan.modules(1).contains(&1));
}

#[test]
fn more_partitions_than_units_leaves_none_empty() {
    let mut b = Builder::new(1);
    b.func(0, "main", Linkage::External, 10);
    b.func(0, "f", Linkage::External, 10);
    let (_, plan) = b.plan(Some(8));
    assert_eq!(plan.count(), 2);
    for p in 0..2 {
        assert!(plan.size(p).0 > 0);
    }
}

#[test]
fn a_computed_goto_table_stays_with_its_function() {
    let mut b = Builder::new(1);
    let main = b.func(0, "main", Linkage::External, 6000);
    let interp = b.func(0, "interp", Linkage::Internal, 6000);
    let table = b.var(0, "interp.table", Linkage::Internal);
    b.g(0, table).flags.insert(GlobalFlags::BLOCK_ADDRESS);
    b.refs(0, table, interp);
    // The walk reaches the table from main, long before the function (nobody calls it).
    b.refs(0, main, table);
    let (_, plan) = b.plan(Some(2));
    assert_eq!(plan.count(), 2);
    assert_eq!(plan.owner(id(0, table)), plan.owner(id(0, interp)));
    assert_ne!(plan.owner(id(0, main)), plan.owner(id(0, interp)));
}

/// What a module's inline asm names (`.symver foo_2, foo@@V2`) is compiled in one
/// partition, and that partition emits the module's asm: the assembler needs a `.symver`
/// target defined in the same object.
#[test]
fn what_inline_asm_names_sits_with_the_asm() {
    let mut b = Builder::new(1);
    let main = b.func(0, "main", Linkage::External, 6000);
    let big = b.func(0, "big", Linkage::External, 6000);
    b.calls(0, main, big);
    let foo_1 = b.func(0, "foo_1", Linkage::External, 10);
    let foo_2 = b.func(0, "foo_2", Linkage::External, 10);
    // Walked from `big`, the two would land in its partition; `main`'s is the module's
    // first.
    b.calls(0, big, foo_1);
    b.calls(0, big, foo_2);
    for f in [foo_1, foo_2] {
        b.g(0, f)
            .flags
            .insert(GlobalFlags::COMPILER_USED | GlobalFlags::ASM_REFERENCED);
    }
    let (_, plan) = b.plan(Some(2));
    assert_eq!(plan.count(), 2);
    let at = plan.owner(id(0, foo_2)).unwrap();
    assert_eq!(plan.owner(id(0, foo_1)), Some(at));
    assert!(plan.is_home(at, 0));
    assert_ne!(plan.owner(id(0, main)), plan.owner(id(0, big)));
}

/// Functions f0..f59 called in a chain from main, with sizes from a fixed sequence
/// (relative to the partition size).
fn chain(grow: Option<(usize, u32)>, requested: Option<u32>) -> (CombinedIndex, PartitionPlan) {
    let mut b = Builder::new(1);
    let main = b.func(0, "main", Linkage::External, 10);
    let mut previous = main;
    let mut seed = 12345u32;
    for i in 0..60 {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        // 3% to 15% of a partition's target size.
        let mut size = (300 + (seed >> 16) % 1200) * PARTITION_SIZE as u32 / 10_000;
        if let Some((at, extra)) = grow {
            if at == i {
                size += extra;
            }
        }
        let f = b.func(0, &format!("f{i}"), Linkage::External, size);
        b.calls(0, previous, f);
        previous = f;
    }
    b.plan(requested)
}

#[test]
fn the_automatic_split_ignores_where_the_inputs_are() {
    // The same chain, its module read from another directory: the same cuts.
    let (index, plan) = chain(None, None);
    let mut b = Builder::new(0);
    let mut moved = index.modules[0].clone();
    moved.module_id = "/elsewhere/build/m0.o".into();
    b.modules.push(moved);
    let (index2, plan2) = b.plan(None);
    assert!(plan.count() >= 5);
    assert_eq!(contents(&index, &plan), contents(&index2, &plan2));
}

#[test]
fn statics_of_one_name_in_two_files_roll_differently() {
    let mut b = Builder::new(2);
    let f = b.func(0, "helper", Linkage::Internal, 10);
    let g = b.func(1, "helper", Linkage::Internal, 10);
    b.modules[0].source_file = "src/a.c".into();
    b.modules[1].source_file = "src/b.c".into();
    let index = CombinedIndex::new(b.modules.clone());
    assert_ne!(cut_roll(&index, id(0, f)), cut_roll(&index, id(1, g)));
    // Only the file's name counts, not its directory.
    b.modules[1].source_file = "/other/checkout/src/a.c".into();
    let index = CombinedIndex::new(b.modules.clone());
    assert_eq!(cut_roll(&index, id(0, f)), cut_roll(&index, id(1, g)));
}

/// Per partition, the names it owns.
fn contents(index: &CombinedIndex, plan: &PartitionPlan) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new(); plan.count() as usize];
    for gid in index.ids() {
        if let Some(p) = plan.owner(gid) {
            out[p as usize].push(index.global(gid).name.clone());
        }
    }
    out
}

#[test]
fn an_edit_changes_the_automatic_split_near_it_only() {
    let (index, before) = chain(None, None);
    let grow = PARTITION_SIZE as u32 / 5;
    let (index2, after) = chain(Some((30, grow)), None);
    let (old, new) = (contents(&index, &before), contents(&index2, &after));
    assert!(old.len() >= 5, "{old:?}");
    // At most the partitions around f30 change: all before it, and all from some point
    // after it, are found unchanged.
    let holder = old
        .iter()
        .position(|p| p.contains(&"f30".to_string()))
        .unwrap();
    for (i, part) in old.iter().enumerate() {
        if i + 1 < holder || i > holder + 1 {
            assert!(new.contains(part), "before {old:?}\nafter {new:?}");
        }
    }
    // An even cut into as many partitions moves the later boundaries instead.
    let count = Some(old.len() as u32);
    let (index, before) = chain(None, count);
    let (index2, after) = chain(Some((30, grow)), count);
    let (old, new) = (contents(&index, &before), contents(&index2, &after));
    assert!(old.iter().filter(|p| !new.contains(p)).count() >= 3);
}

#[test]
fn shared_names_split_back() {
    fn split(name: &str) -> Option<(&[u8], u32, bool)> {
        split_shared_name(name.as_bytes()).map(|s| (s.source, s.module, s.private))
    }
    assert_eq!(
        split(&shared_name("counter", 12, false)),
        Some((&b"counter"[..], 12, false))
    );
    assert_eq!(
        split(&shared_name(".str.3", 7, true)),
        Some((&b".str.3"[..], 7, true))
    );
    assert_eq!(split("a.b.rld.0"), Some((&b"a.b"[..], 0, false)));
    for other in [
        &b"a.rld."[..],
        b"a.rld.x",
        b".rld.3",
        b".rld.private.3",
        b"plain",
        b"a.rld.99999999999",
    ] {
        assert_eq!(
            split_shared_name(other),
            None,
            "{}",
            String::from_utf8_lossy(other)
        );
    }
}

#[test]
fn the_automatic_split_keeps_modules_whole_unless_they_are_large() {
    // Modules of 30% to 180% of the target, each a chain of ten functions, then one module
    // five times the target.
    let target = PARTITION_SIZE as u32;
    let mut sizes: Vec<u32> = [30, 180, 45, 120, 90, 60, 150, 75]
        .iter()
        .map(|pct| pct * target / 100)
        .collect();
    sizes.push(5 * target);
    let mut b = Builder::new(sizes.len());
    for (m, &size) in sizes.iter().enumerate() {
        let mut previous = b.func(m, &format!("m{m}_entry"), Linkage::External, 1);
        for i in 0..10 {
            let f = b.func(m, &format!("m{m}_f{i}"), Linkage::Internal, size / 10);
            b.calls(m, previous, f);
            previous = f;
        }
    }
    let (index, plan) = b.plan(None);
    assert!(plan.count() >= 6, "{:?}", contents(&index, &plan));
    let owners_of = |m: usize| -> HashSet<u32> {
        (0..index.modules[m].globals.len() as u32)
            .filter_map(|i| plan.owner(id(m as u32, i)))
            .collect()
    };
    for m in 0..sizes.len() - 1 {
        assert_eq!(
            owners_of(m).len(),
            1,
            "module {m}: {:?}",
            contents(&index, &plan)
        );
    }
    // The big module is cut, into partitions of at most twice the target.
    let big = owners_of(sizes.len() - 1);
    assert!(big.len() >= 3, "{:?}", contents(&index, &plan));
    for p in big {
        assert!(plan.size(p).0 <= 2 * u64::from(target));
    }
}

/// Two modules cut apart: `a.c` (main → big_a) and `b.c` (big_b, which calls `only_once`,
/// `twice`, `taken`); main calls only_once and twice, and stores taken's address.
fn callers_across_modules(big_a_size: u32) -> (Builder, [u32; 6]) {
    let mut b = Builder::new(2);
    let main = b.func(0, "main", Linkage::External, 10);
    let big_a = b.func(0, "big_a", Linkage::Internal, big_a_size);
    let big_b = b.func(1, "big_b", Linkage::External, 5000);
    let only_once = b.func(1, "only_once", Linkage::External, 300);
    let twice = b.func(1, "twice", Linkage::External, 300);
    let taken = b.func(1, "taken", Linkage::External, 300);
    b.calls(0, main, big_a);
    for name in ["big_b", "only_once", "twice", "taken"] {
        let decl = b.declare(0, name);
        if name == "taken" {
            b.refs(0, main, decl);
        } else {
            b.calls(0, main, decl);
        }
    }
    b.calls(1, big_b, twice);
    (b, [main, big_a, big_b, only_once, twice, taken])
}

#[test]
fn a_function_with_one_caller_moves_to_its_callers_partition() {
    let (b, [main, big_a, big_b, only_once, twice, taken]) = callers_across_modules(5000);
    let (_, plan) = b.plan(Some(2));
    let owner = |m, g| plan.owner(id(m, g)).unwrap();
    assert_eq!(owner(0, main), owner(0, big_a));
    assert_ne!(owner(0, main), owner(1, big_b));
    // Its one caller is main: it joins main's partition (too big to copy, it would
    // otherwise stay a call).
    assert_eq!(owner(1, only_once), owner(0, main));
    assert!(!plan.is_shared(id(1, only_once)));
    // Two callers, or an address taken: it stays with its module.
    assert_eq!(owner(1, twice), owner(1, big_b));
    assert_eq!(owner(1, taken), owner(1, big_b));
    assert!(plan.is_shared(id(1, twice)) && plan.is_shared(id(1, taken)));
    // main's partition now loads b.c for it.
    assert_eq!(plan.modules(owner(0, main)), &[0, 1]);
}

#[test]
fn a_partition_takes_in_at_most_a_quarter_of_its_size() {
    // main's partition (main, big_a: 5010 instructions) has room for 1252 more: a large
    // callee stays where it is, while a small one (no larger than a copy would be) moves
    // whatever the room.
    let (mut b, [main, _, big_b, only_once, ..]) = callers_across_modules(5000);
    let large = b.func(1, "large", Linkage::External, 1000);
    let small = b.func(1, "small", Linkage::External, IMPORT_LIMIT);
    for name in ["large", "small"] {
        let decl = b.declare(0, name);
        b.calls(0, main, decl);
    }
    let (_, plan) = b.plan(Some(2));
    let owner = |m, g| plan.owner(id(m, g)).unwrap();
    assert_eq!(owner(1, only_once), owner(0, main));
    assert_eq!(owner(1, large), owner(1, big_b));
    assert_eq!(owner(1, small), owner(0, main));
    assert_eq!(
        plan.size(owner(0, main)).0,
        5010 + 300 + u64::from(IMPORT_LIMIT)
    );
}
