//! Called-value propagation on hand-built summaries: one feature per test, each checking
//! the exact callee set (or the reason a site is Overdefined).

use super::*;
use crate::dead::compute_dead_symbols;
use crate::fixtures::{global, resolutions, TestProgram};
use crate::model::{
    CallSite, Callee, GlobalFlags, GlobalKind, InitializerPointer, Linkage, ModuleSummary,
    Structor, ValueFact,
};

struct Analyzed {
    index: CombinedIndex,
    result: CvpResult,
}

impl Analyzed {
    /// The site's set as names (module-qualified when the set spans modules, for the
    /// cross-module test), or "overdefined"/"undefined".
    fn names(&self, m: u32, site: u32) -> Vec<String> {
        match &self.result.sites[&(m, site)] {
            CalleeSet::Undefined => vec!["undefined".to_string()],
            CalleeSet::Overdefined => vec!["overdefined".to_string()],
            CalleeSet::Functions(set) => set
                .iter()
                .map(|&id| self.index.global(id).name.clone())
                .collect(),
        }
    }

    fn ids(&self, m: u32, site: u32) -> Vec<GlobalId> {
        match &self.result.sites[&(m, site)] {
            CalleeSet::Functions(set) => set.iter().copied().collect(),
            other => panic!("{other:?}"),
        }
    }

    fn reason(&self, m: u32, site: u32) -> &str {
        self.result
            .reasons
            .get(&(m, site))
            .map_or("(no reason)", String::as_str)
    }
}

fn analyze_with(
    p: &TestProgram,
    max_targets: usize,
    tweak: impl FnOnce(&CombinedIndex, &mut Resolutions),
) -> Analyzed {
    let index = p.index();
    let mut res = resolutions(&index);
    tweak(&index, &mut res);
    let live = compute_dead_symbols(&index, &res, &[]);
    let result = called_value_propagation(&index, &res, &live, &CvpConfig { max_targets });
    Analyzed { index, result }
}

fn analyze(p: &TestProgram) -> Analyzed {
    analyze_with(p, DEFAULT_MAX_TARGETS, |_, _| {})
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

const OVER: &[&str] = &["overdefined"];

/// `static void sink(void (*k)(void)) { k(); }` plus `main` calling `sink(&g)`: the site in
/// `sink` is `{g}` exactly when nothing else can call `sink`. Returns (sink, its site).
fn sink_of(p: &mut TestProgram, m: u32, main: u32, g: u32) -> (u32, u32) {
    let sink = p.func(m, "sink");
    let k = p.param(m, sink, 0);
    let (site, _) = p.icall(m, sink, k, &[]);
    let gv = p.addr(m, main, g);
    p.call(m, main, sink, &[gv]);
    (sink, site)
}

#[test]
fn through_a_global_variable() {
    // static void (*handler)(void);  static void (*preset)(void) = g;
    // static void set(void) { handler = f; preset = f; }
    // int main() { set(); handler(); preset(); }
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let set = p.func(m, "set");
    let handler = p.var(m, "handler", Linkage::Internal, false);
    let preset = p.var(m, "preset", Linkage::Internal, false);
    p.init(m, preset, 0, g);
    for var in [handler, preset] {
        let ptr = p.addr(m, set, var);
        let fv = p.addr(m, set, f);
        p.store(m, ptr, fv);
    }
    p.call(m, main, set, &[]);
    let mut sites = vec![];
    for var in [handler, preset] {
        let ptr = p.addr(m, main, var);
        let fp = p.load(m, ptr);
        sites.push(p.icall(m, main, fp, &[]).0);
    }
    let a = analyze(&p);
    assert_eq!(a.names(m, sites[0]), names(&["f"]));
    assert_eq!(a.names(m, sites[1]), names(&["f", "g"]));
}

#[test]
fn struct_fields_are_distinct_and_an_unknown_offset_reads_all() {
    // static struct { void (*a)(void); void (*b)(void); } ops;
    // ops.a = f; ops.b = g; ops.b(); ops.a(); ((void (**)(void))&ops)[i]();
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let ops = p.var(m, "ops", Linkage::Internal, false);
    let base = p.addr(m, main, ops);
    let a_field = p.field(m, base, Some(0));
    let b_field = p.field(m, base, Some(8));
    let fv = p.addr(m, main, f);
    let gv = p.addr(m, main, g);
    p.store(m, a_field, fv);
    p.store(m, b_field, gv);
    let base2 = p.addr(m, main, ops);
    let mut sites = vec![];
    for offset in [Some(8), Some(0), None] {
        let at = p.field(m, base2, offset);
        let fp = p.load(m, at);
        sites.push(p.icall(m, main, fp, &[]).0);
    }
    let a = analyze(&p);
    assert_eq!(a.names(m, sites[0]), names(&["g"]));
    assert_eq!(a.names(m, sites[1]), names(&["f"]));
    assert_eq!(a.names(m, sites[2]), names(&["f", "g"]));
}

/// `static void (*const table[])(void) = {f0, f1, ...}` in `m`, used by `main`.
fn table(p: &mut TestProgram, m: u32, n: u32) -> (u32, Vec<u32>) {
    let t = p.var(m, "table", Linkage::Internal, true);
    let fs: Vec<u32> = (0..n).map(|i| p.func(m, &format!("f{i}"))).collect();
    for (i, &f) in fs.iter().enumerate() {
        p.init(m, t, 8 * i as u64, f);
    }
    (t, fs)
}

#[test]
fn constant_table_indexed_at_run_time_is_the_union() {
    // table[i](); table[2]();
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let (t, _) = table(&mut p, m, 4);
    let base = p.addr(m, main, t);
    let any = p.field(m, base, None);
    let fp = p.load(m, any);
    let (site, _) = p.icall(m, main, fp, &[]);
    let third = p.field(m, base, Some(16));
    let fp = p.load(m, third);
    let (site2, _) = p.icall(m, main, fp, &[]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["f0", "f1", "f2", "f3"]));
    assert_eq!(a.names(m, site2), names(&["f2"]));
    assert_eq!(
        a.result.stats,
        CvpStats {
            indirect_sites: 2,
            resolved: 2,
            overdefined: 0,
            undefined: 0,
            ..a.result.stats
        }
    );
}

#[test]
fn more_than_max_targets_is_overdefined() {
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let (t, _) = table(&mut p, m, 5);
    let base = p.addr(m, main, t);
    let any = p.field(m, base, None);
    let fp = p.load(m, any);
    let (site, _) = p.icall(m, main, fp, &[]);
    let a = analyze_with(&p, 4, |_, _| {});
    assert_eq!(a.names(m, site), names(OVER));
    assert_eq!(
        a.reason(m, site),
        "5 possible callees, more than the limit of 4 (--cvp-max-targets)"
    );
    assert_eq!(a.result.stats.overdefined, 1);
    let a = analyze_with(&p, 8, |_, _| {});
    assert_eq!(a.names(m, site), names(&["f0", "f1", "f2", "f3", "f4"]));
    assert!(a.result.reasons.is_empty());
}

#[test]
fn static_function_arguments_join_all_callers() {
    // static void apply(void (*fp)(void)) { fp(); }
    // static void other(void) { apply(g); }   int main() { apply(f); other(); }
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let apply = p.func(m, "apply");
    let other = p.func(m, "other");
    let fp = p.param(m, apply, 0);
    let (site, _) = p.icall(m, apply, fp, &[]);
    let fv = p.addr(m, main, f);
    p.call(m, main, apply, &[fv]);
    p.call(m, main, other, &[]);
    let gv = p.addr(m, other, g);
    p.call(m, other, apply, &[gv]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["f", "g"]));
}

#[test]
fn arguments_through_an_indirect_call() {
    // static void apply(void (*fp)(void)) { fp(); }
    // static void (*const runner)(void (*)(void)) = apply;  main: runner(f);
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let apply = p.func(m, "apply");
    let fp = p.param(m, apply, 0);
    let (inner, _) = p.icall(m, apply, fp, &[]);
    let runner = p.var(m, "runner", Linkage::Internal, true);
    p.init(m, runner, 0, apply);
    let r = p.addr(m, main, runner);
    let rv = p.load(m, r);
    let fv = p.addr(m, main, f);
    let (outer, _) = p.icall(m, main, rv, &[fv]);
    let a = analyze(&p);
    assert_eq!(a.names(m, outer), names(&["apply"]));
    assert_eq!(a.names(m, inner), names(&["f"]));
}

#[test]
fn return_values_flow_to_call_results() {
    // static cb pick(void) { return f; }   main: pick()();
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let pick = p.func(m, "pick");
    let fv = p.addr(m, pick, f);
    p.ret(m, pick, fv);
    let r = p.call(m, main, pick, &[]);
    let (site, _) = p.icall(m, main, r, &[]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["f"]));
}

#[test]
fn select_joins_both_sides_and_external_functions_are_members() {
    // (c ? f : g)();  (c ? f : puts)();
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let puts = p.decl(m, "puts", GlobalKind::Function);
    let mut sites = vec![];
    for other in [g, puts] {
        let sel = p.val(m);
        let fv = p.addr(m, main, f);
        let ov = p.addr(m, main, other);
        p.copy(m, sel, fv);
        p.copy(m, sel, ov);
        sites.push(p.icall(m, main, sel, &[]).0);
    }
    let a = analyze(&p);
    assert_eq!(a.names(m, sites[0]), names(&["f", "g"]));
    assert_eq!(a.names(m, sites[1]), names(&["f", "puts"]));
    assert_eq!(
        a.ids(m, sites[1])[1],
        GlobalId {
            module: m,
            index: puts
        },
        "an external function is named by its declaration"
    );
}

#[test]
fn a_function_passed_to_external_code_has_unknown_callers() {
    // static void sink(void (*k)(void)) { k(); }
    // main: sink(g); register_callback(sink);
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let (sink, site) = sink_of(&mut p, m, main, g);
    let control = analyze(&p);
    assert_eq!(control.names(m, site), names(&["g"]));

    let register = p.decl(m, "register_callback", GlobalKind::Function);
    let sv = p.addr(m, main, sink);
    p.call(m, main, register, &[sv]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(OVER));
    assert_eq!(
        a.reason(m, site),
        "the callee is a parameter of 'sink', which may be called from outside the LTO unit"
    );
}

#[test]
fn a_global_passed_to_external_code_is_overdefined_memory() {
    // static void (*hook)(void);  main: hook = f; init_hook(&hook); hook();
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let hook = p.var(m, "hook", Linkage::Internal, false);
    let hp = p.addr(m, main, hook);
    let fv = p.addr(m, main, f);
    p.store(m, hp, fv);
    let hp2 = p.addr(m, main, hook);
    let fp = p.load(m, hp2);
    let (site, _) = p.icall(m, main, fp, &[]);
    let control = analyze(&p);
    assert_eq!(control.names(m, site), names(&["f"]));

    let init_hook = p.decl(m, "init_hook", GlobalKind::Function);
    let hp3 = p.addr(m, main, hook);
    p.call(m, main, init_hook, &[hp3]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(OVER));
    assert_eq!(
        a.reason(m, site),
        "the callee is loaded from 'hook', which code outside the LTO unit may write"
    );
}

#[test]
fn a_function_visible_outside_has_overdefined_arguments() {
    // void run(void (*fp)(void)) { fp(); }   exported (-E)
    // static void f(void (*k)(void)) { k(); }   main: run(f); f(g);
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let run = p.ext_func(m, "run");
    let fp = p.param(m, run, 0);
    let (run_site, _) = p.icall(m, run, fp, &[]);
    let (sink, sink_site) = sink_of(&mut p, m, main, g);
    let sv = p.addr(m, main, sink);
    p.call(m, main, run, &[sv]);

    // Internalizable: `run` is only called from `main`, so everything is known.
    let a = analyze(&p);
    assert_eq!(a.names(m, run_site), names(&["sink"]));
    assert_eq!(a.names(m, sink_site), names(&["g"]));

    let a = analyze_with(&p, 4, |index, res| {
        res.get_mut(GlobalId {
            module: m,
            index: run,
        })
        .export_dynamic = true;
        assert_eq!(
            index
                .global(GlobalId {
                    module: m,
                    index: run
                })
                .name,
            "run"
        );
    });
    assert_eq!(a.names(m, run_site), names(OVER));
    assert_eq!(
        a.reason(m, run_site),
        "the callee is a parameter of 'run', which may be called from outside the LTO unit"
    );
    // `sink` flowed into an Overdefined parameter, so it escaped with it.
    assert_eq!(a.names(m, sink_site), names(OVER));
}

#[test]
fn preemptible_and_non_prevailing_functions_are_not_trusted() {
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let run = p.ext_func(m, "run");
    let fp = p.param(m, run, 0);
    let (site, _) = p.icall(m, run, fp, &[]);
    let gv = p.addr(m, main, g);
    p.call(m, main, run, &[gv]);
    let id = GlobalId {
        module: m,
        index: run,
    };
    assert_eq!(analyze(&p).names(m, site), names(&["g"]));
    let a = analyze_with(&p, 4, |_, res| res.get_mut(id).preemptible = true);
    assert_eq!(a.names(m, site), names(OVER));
    let a = analyze_with(&p, 4, |_, res| res.get_mut(id).prevailing = false);
    assert_eq!(a.names(m, site), names(OVER));
}

#[test]
fn cross_module_table() {
    // tables.o: static void f0(void); extern void f1(void);
    //           const cb ops[] = { f0, f1 };          (external linkage, internalizable)
    // main.o:   extern const cb ops[];  void f1(void) {}   main: ops[1](); ops[0]();
    let mut p = TestProgram::new();
    let t = p.module("tables.o");
    let ops = p.var(t, "ops", Linkage::External, true);
    let f0 = p.func(t, "f0");
    let f1_decl = p.decl(t, "f1", GlobalKind::Function);
    p.init(t, ops, 0, f0);
    p.init(t, ops, 8, f1_decl);
    let m = p.module("main.o");
    let main = p.ext_func(m, "main");
    let f1 = p.ext_func(m, "f1");
    let ops_decl = p.decl(m, "ops", GlobalKind::Variable);
    let base = p.addr(m, main, ops_decl);
    let mut sites = vec![];
    for offset in [8, 0] {
        let at = p.field(m, base, Some(offset));
        let fp = p.load(m, at);
        sites.push(p.icall(m, main, fp, &[]).0);
    }
    let a = analyze(&p);
    assert_eq!(
        a.ids(m, sites[0]),
        vec![GlobalId {
            module: m,
            index: f1
        }],
        "the definition in main.o, not tables.o's declaration"
    );
    assert_eq!(
        a.ids(m, sites[1]),
        vec![GlobalId {
            module: t,
            index: f0
        }]
    );
}

#[test]
fn recursion_terminates() {
    // static void walk(cb k) { k(); walk(k); }   main: walk(f);
    // static cb a(void) { return b(); }  static cb b(void) { return c ? a() : g; }  main: a()();
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let walk = p.func(m, "walk");
    let k = p.param(m, walk, 0);
    let (walk_site, _) = p.icall(m, walk, k, &[]);
    p.call(m, walk, walk, &[k]);
    let fv = p.addr(m, main, f);
    p.call(m, main, walk, &[fv]);

    let fa = p.func(m, "a");
    let fb = p.func(m, "b");
    let rb = p.call(m, fa, fb, &[]);
    p.ret(m, fa, rb);
    let ra = p.call(m, fb, fa, &[]);
    p.ret(m, fb, ra);
    let gv = p.addr(m, fb, g);
    p.ret(m, fb, gv);
    let x = p.call(m, main, fa, &[]);
    let (ret_site, _) = p.icall(m, main, x, &[]);

    let a = analyze(&p);
    assert_eq!(a.names(m, walk_site), names(&["f"]));
    assert_eq!(a.names(m, ret_site), names(&["g"]));
}

#[test]
fn unknown_pointers() {
    // cb *u = <inttoptr>;  *u = sink;  (*u)();  main: sink(g);
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let (sink, sink_site) = sink_of(&mut p, m, main, g);
    let u = p.unknown(m);
    let sv = p.addr(m, main, sink);
    p.store(m, u, sv);
    let fp = p.load(m, u);
    let (site, _) = p.icall(m, main, fp, &[]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(OVER));
    assert_eq!(
        a.reason(m, site),
        "the callee is loaded through a pointer the analysis cannot follow"
    );
    assert_eq!(
        a.names(m, sink_site),
        names(OVER),
        "stored through an unknown pointer: sink escaped"
    );
}

#[test]
fn results_of_external_and_unresolved_calls() {
    // get_callback()();  u()()  where u is unknown.
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let get = p.decl(m, "get_callback", GlobalKind::Function);
    let r = p.call(m, main, get, &[]);
    let (site, _) = p.icall(m, main, r, &[]);
    let u = p.unknown(m);
    let (first, r2) = p.icall(m, main, u, &[]);
    let (second, _) = p.icall(m, main, r2, &[]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(OVER));
    assert_eq!(
        a.reason(m, site),
        "the callee is returned by 'get_callback', which is outside the LTO unit"
    );
    assert_eq!(
        a.reason(m, first),
        "the callee comes from an instruction the summary does not model"
    );
    assert_eq!(
        a.reason(m, second),
        "the callee is returned by an indirect call whose callees are unknown"
    );
}

#[test]
fn a_null_callee_is_undefined() {
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let null = p.val(m);
    let (site, _) = p.icall(m, main, null, &[]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["undefined"]));
    assert_eq!(a.result.stats.undefined, 1);
}

#[test]
fn visible_variables() {
    // void (*hook)(void);          exported, writable: outside code may store anything.
    // const cb exported_ops[] = {sink};   exported, constant: contents stay, but escape.
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let hook = p.var(m, "hook", Linkage::External, false);
    let hp = p.addr(m, main, hook);
    let fv = p.addr(m, main, f);
    p.store(m, hp, fv);
    let fp = p.load(m, hp);
    let (hook_site, _) = p.icall(m, main, fp, &[]);
    let (sink, sink_site) = sink_of(&mut p, m, main, g);
    let ops = p.var(m, "exported_ops", Linkage::External, true);
    p.init(m, ops, 0, sink);
    let op = p.addr(m, main, ops);
    let fp = p.load(m, op);
    let (ops_site, _) = p.icall(m, main, fp, &[]);

    let a = analyze(&p);
    assert_eq!(a.names(m, hook_site), names(&["f"]));
    assert_eq!(a.names(m, ops_site), names(&["sink"]));
    assert_eq!(a.names(m, sink_site), names(&["g"]));

    let a = analyze_with(&p, 4, |_, res| {
        for v in [hook, ops] {
            res.get_mut(GlobalId {
                module: m,
                index: v,
            })
            .export_dynamic = true;
        }
    });
    assert_eq!(a.names(m, hook_site), names(OVER));
    assert_eq!(
        a.reason(m, hook_site),
        "the callee is loaded from 'hook', which code outside the LTO unit may write"
    );
    assert_eq!(a.names(m, ops_site), names(&["sink"]));
    assert_eq!(
        a.names(m, sink_site),
        names(OVER),
        "sink is in exported data"
    );
}

#[test]
fn memcpy_copies_contents() {
    // static const cb src[] = {f, g};  static cb dst[2];
    // llvm.memcpy(dst, src, 16); memcpy(dst2, src, 16)[1]();  dst[0]();
    // The intrinsic copies as the LangRef defines it; a `memcpy` declared without
    // attributes is any function: what it returns and writes is unknown.
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let src = p.var(m, "src", Linkage::Internal, true);
    p.init(m, src, 0, f);
    p.init(m, src, 8, g);
    let dst = p.var(m, "dst", Linkage::Internal, false);
    let dst2 = p.var(m, "dst2", Linkage::Internal, false);
    let intrinsic = p.decl(m, "llvm.memcpy.p0i8.p0i8.i64", GlobalKind::Function);
    let libc = p.decl(m, "memcpy", GlobalKind::Function);
    let len = p.val(m);
    let d = p.addr(m, main, dst);
    let s = p.addr(m, main, src);
    p.call(m, main, intrinsic, &[d, s, len]);
    let d2 = p.addr(m, main, dst2);
    let copy = p.call(m, main, libc, &[d2, s, len]);
    let at = p.field(m, copy, Some(8));
    let fp = p.load(m, at);
    let (site2, _) = p.icall(m, main, fp, &[]);
    let at = p.field(m, d, Some(0));
    let fp = p.load(m, at);
    let (site, _) = p.icall(m, main, fp, &[]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["f", "g"]));
    assert_eq!(a.names(m, site2), names(OVER));
}

#[test]
fn dead_callers_pass_nothing() {
    // static void apply(cb fp) { fp(); }   main: apply(g);
    // void unused(void) { apply(f); }      (dead: nothing references it)
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let (apply, site) = sink_of(&mut p, m, main, g);
    let unused = p.ext_func(m, "unused");
    let fv = p.addr(m, unused, f);
    p.call(m, unused, apply, &[fv]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["g"]));
}

#[test]
fn variadic_arguments_escape() {
    // static void vf(int n, ...);  main: vf(1, sink); sink(g);
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let (sink, site) = sink_of(&mut p, m, main, g);
    let vf = p.func(m, "vf");
    p.param(m, vf, 0);
    let n = p.val(m);
    let sv = p.addr(m, main, sink);
    p.call(m, main, vf, &[n, sv]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(OVER));
}

#[test]
fn constructors_aliases_and_used_are_called_from_outside() {
    for how in ["ctor", "alias", "used"] {
        let mut p = TestProgram::new();
        let m = p.module("a.o");
        let main = p.ext_func(m, "main");
        let g = p.func(m, "g");
        let (sink, site) = sink_of(&mut p, m, main, g);
        match how {
            "ctor" => p.m(m).ctors.push(Structor {
                priority: 65535,
                function: sink,
            }),
            "alias" => {
                let mut alias = global("api", GlobalKind::Alias, Linkage::External);
                alias.aliasee = Some(sink);
                let a = p.add(m, alias);
                p.m(m).globals[main as usize].refs.push(a);
            }
            _ => p.m(m).globals[sink as usize]
                .flags
                .insert(GlobalFlags::USED),
        }
        let a = analyze_with(&p, 4, |index, res| {
            if let Some(api) = index.modules[m as usize].find("api") {
                res.get_mut(GlobalId {
                    module: m,
                    index: api,
                })
                .visible_to_regular_obj = true;
            }
        });
        assert_eq!(a.names(m, site), names(OVER), "{how}");
    }
}

#[test]
fn references_without_facts_escape() {
    // The safety net: `main` references sink, but its AddressOf fact is missing.
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let (sink, site) = sink_of(&mut p, m, main, g);
    p.m(m).globals[main as usize].refs.push(sink);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(OVER));

    // A direct call with no call site: its arguments are unknown.
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let (sink, site) = sink_of(&mut p, m, main, g);
    let other = p.ext_func(m, "other");
    p.m(m).globals[main as usize].calls.push(other);
    p.m(m).globals[other as usize].calls.push(sink);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(OVER));
}

#[test]
fn too_many_locations_collapse_and_escape() {
    // A table of 70 functions, sink among them, loaded at an unknown index.
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let (sink, sink_site) = sink_of(&mut p, m, main, g);
    let (t, fs) = table(&mut p, m, 69);
    p.init(m, t, 8 * fs.len() as u64, sink);
    let base = p.addr(m, main, t);
    let any = p.field(m, base, None);
    let fp = p.load(m, any);
    let (site, _) = p.icall(m, main, fp, &[]);
    let a = analyze_with(&p, 100, |_, _| {});
    assert_eq!(a.names(m, site), names(OVER));
    assert_eq!(
        a.reason(m, site),
        "the callee is one of more than 64 tracked addresses"
    );
    assert_eq!(a.names(m, sink_site), names(OVER));
}

#[test]
fn work_is_linear_in_a_long_call_chain() {
    // static void s_i(cb k) { s_{i+1}(k); } ... the last calls k();  main: s_0(g).
    let n = 5_000;
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let g = p.func(m, "g");
    let fs: Vec<u32> = (0..n).map(|i| p.func(m, &format!("s{i}"))).collect();
    let mut site = 0;
    for i in 0..n {
        let k = p.param(m, fs[i], 0);
        if i + 1 < n {
            p.call(m, fs[i], fs[i + 1], &[k]);
        } else {
            site = p.icall(m, fs[i], k, &[]).0;
        }
    }
    let gv = p.addr(m, main, g);
    p.call(m, main, fs[0], &[gv]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["g"]));
    let facts = p.modules[0].facts.len() as u64;
    assert!(
        a.result.stats.rule_visits <= 3 * facts,
        "{} visits for {facts} facts",
        a.result.stats.rule_visits
    );
}

#[test]
fn random_programs_terminate_with_a_reason_for_every_overdefined_site() {
    use crate::fixtures::XorShift;
    let kinds = [
        GlobalKind::Function,
        GlobalKind::Function,
        GlobalKind::Variable,
        GlobalKind::Alias,
        GlobalKind::IFunc,
    ];
    let linkages = [
        Linkage::External,
        Linkage::Internal,
        Linkage::LinkOnceODR,
        Linkage::WeakAny,
        Linkage::Common,
        Linkage::AvailableExternally,
    ];
    for seed in 1..=20u64 {
        let mut rng = XorShift(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut pick = |n: usize| (rng.next() % n as u64) as u32;
        let mut modules = vec![];
        for mi in 0..3 {
            let mut m = ModuleSummary {
                module_id: format!("m{mi}.o"),
                value_count: 400,
                ..Default::default()
            };
            for gi in 0..30 {
                let mut g = global(
                    &format!("g{}", pick(40)),
                    kinds[pick(kinds.len()) as usize],
                    linkages[pick(linkages.len()) as usize],
                );
                if pick(4) == 0 {
                    g.flags.insert(GlobalFlags::DECLARATION);
                }
                if pick(4) == 0 {
                    g.flags.insert(GlobalFlags::CONSTANT);
                }
                if matches!(g.kind, GlobalKind::Alias | GlobalKind::IFunc) {
                    g.aliasee = Some(pick(30));
                }
                g.refs = (0..pick(3)).map(|_| pick(30)).collect();
                g.name = format!("{}_{gi}", g.name);
                if pick(3) == 0 {
                    g.name = format!("shared{}", pick(5));
                }
                m.globals.push(g);
            }
            for id in 0..40 {
                let callee = if pick(2) == 0 {
                    Callee::Direct(pick(30))
                } else {
                    Callee::Indirect(pick(400))
                };
                m.call_sites.push(CallSite {
                    id,
                    caller: pick(30),
                    instruction: pick(50),
                    callee,
                    debug_loc: None,
                    byval: Vec::new(),
                });
            }
            for _ in 0..20 {
                m.initializers.push(InitializerPointer {
                    global: pick(30),
                    offset: 8 * u64::from(pick(4)),
                    target: pick(30),
                });
            }
            for _ in 0..800 {
                let v = |p: &mut dyn FnMut(usize) -> u32| p(400);
                let fact = match pick(11) {
                    0 => ValueFact::AddressOf {
                        dst: v(&mut pick),
                        global: pick(30),
                    },
                    1 => ValueFact::Copy {
                        dst: v(&mut pick),
                        src: v(&mut pick),
                    },
                    2 => ValueFact::FieldAddr {
                        dst: v(&mut pick),
                        base: v(&mut pick),
                        offset: [None, Some(0), Some(8), Some(-8)][pick(4) as usize],
                    },
                    3 => ValueFact::Load {
                        dst: v(&mut pick),
                        ptr: v(&mut pick),
                    },
                    4 => ValueFact::Store {
                        ptr: v(&mut pick),
                        value: v(&mut pick),
                    },
                    5 => ValueFact::Argument {
                        function: pick(30),
                        index: pick(3),
                        dst: v(&mut pick),
                    },
                    6 => ValueFact::CallArgument {
                        call: pick(40),
                        index: pick(3),
                        value: v(&mut pick),
                    },
                    7 => ValueFact::CallResult {
                        call: pick(40),
                        dst: v(&mut pick),
                    },
                    8 => ValueFact::Return {
                        function: pick(30),
                        value: v(&mut pick),
                    },
                    9 => ValueFact::Escape {
                        value: v(&mut pick),
                    },
                    _ => ValueFact::Unknown { dst: v(&mut pick) },
                };
                m.facts.push(fact);
            }
            modules.push(m);
        }
        let index = CombinedIndex::new(modules);
        let mut res = resolutions(&index);
        for id in index.ids() {
            if pick(5) == 0 {
                res.get_mut(id).export_dynamic = true;
            }
        }
        let live = compute_dead_symbols(&index, &res, &[]);
        let cfg = CvpConfig::default();
        let r = called_value_propagation(&index, &res, &live, &cfg);
        let indirect: usize = index
            .modules
            .iter()
            .map(|m| {
                m.call_sites
                    .iter()
                    .filter(|s| matches!(s.callee, Callee::Indirect(_)))
                    .count()
            })
            .sum();
        assert_eq!(r.sites.len(), indirect, "seed {seed}");
        assert_eq!(
            r.stats.resolved + r.stats.overdefined + r.stats.undefined,
            indirect
        );
        for (at, set) in &r.sites {
            match set {
                CalleeSet::Overdefined => assert!(r.reasons.contains_key(at), "seed {seed}"),
                CalleeSet::Functions(fs) => {
                    assert!(!fs.is_empty() && fs.len() <= cfg.max_targets);
                    for &f in fs {
                        assert!(
                            matches!(
                                index.global(f).kind,
                                GlobalKind::Function | GlobalKind::IFunc
                            ),
                            "seed {seed}: {f:?} {:?}",
                            index.global(f)
                        );
                    }
                }
                CalleeSet::Undefined => {}
            }
        }
        // Deterministic: the same input gives the same answer.
        let again = called_value_propagation(&index, &res, &live, &cfg);
        assert_eq!(again.sites, r.sites);
        assert_eq!(again.reasons, r.reasons);
    }
}

#[test]
fn indices_out_of_range_do_not_panic() {
    // Summaries are validated when decoded; a hand-made one that is not must still not
    // bring the link down.
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let v = p.val(m);
    for fact in [
        ValueFact::AddressOf { dst: v, global: 99 },
        ValueFact::Argument {
            function: 99,
            index: 0,
            dst: 1000,
        },
        ValueFact::Return {
            function: 99,
            value: v,
        },
        ValueFact::CallArgument {
            call: 99,
            index: 0,
            value: v,
        },
        ValueFact::CallResult { call: 99, dst: v },
    ] {
        p.fact(m, fact);
    }
    p.m(m).initializers.push(InitializerPointer {
        global: 99,
        offset: 0,
        target: 98,
    });
    p.m(m).call_sites.push(CallSite {
        id: 0,
        caller: 99,
        instruction: 0,
        callee: Callee::Direct(99),
        debug_loc: None,
        byval: Vec::new(),
    });
    let (site, _) = p.icall(m, main, 5000, &[v]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["undefined"]));
}

#[test]
fn dead_functions_are_not_callees() {
    // static cb slot;  void unused(void) { slot = f; }  (dead, and so is f)
    // main: slot = g; slot();
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    let f = p.func(m, "f");
    let g = p.func(m, "g");
    let slot = p.var(m, "slot", Linkage::Internal, false);
    let unused = p.ext_func(m, "unused");
    for (in_fn, target) in [(unused, f), (main, g)] {
        let sp = p.addr(m, in_fn, slot);
        let tv = p.addr(m, in_fn, target);
        p.store(m, sp, tv);
    }
    let sp = p.addr(m, main, slot);
    let fp = p.load(m, sp);
    let (site, _) = p.icall(m, main, fp, &[]);
    let a = analyze(&p);
    assert_eq!(a.names(m, site), names(&["g"]));
}
