//! Mod/ref on hand-built summaries: each test checks the exact objects a function or call
//! may touch, and the attributes that follow.

use super::*;
use crate::dead::compute_dead_symbols;
use crate::fixtures::{resolutions, TestProgram};
use crate::model::{AccessKind, GlobalKind, Linkage};
use crate::pointsto::points_to;

struct Solved {
    index: CombinedIndex,
    pts: PointsTo,
    modref: ModRef,
}

impl Solved {
    fn of(p: &TestProgram) -> Solved {
        let index = p.index();
        let res = resolutions(&index);
        let live = compute_dead_symbols(&index, &res, &[]);
        let pts = points_to(&index, &res, &live);
        let modref = mod_ref(&index, &res, &live, &pts);
        Solved { index, pts, modref }
    }

    /// `"anything"`, or the objects by name (`g`, `stack#3`, `heap#1`) plus `"external"`.
    fn names(&self, t: &Touched) -> Vec<String> {
        if t.anything {
            return vec!["anything".to_string()];
        }
        let mut out: Vec<String> = t
            .objects
            .iter()
            .map(|&o| match self.pts.object(o) {
                Object::Global(g) => self.index.global(g).name.clone(),
                Object::Stack { value, .. } => format!("stack#{value}"),
                Object::Heap { call, .. } => format!("heap#{call}"),
                Object::VarArgs(f) => format!("varargs:{}", self.index.global(f).name),
                Object::External => "external-object".to_string(),
            })
            .collect();
        if t.external {
            out.push("external".to_string());
        }
        out.sort();
        out
    }

    fn effect(&self, m: u32, f: u32) -> &Effect {
        self.modref
            .effect(GlobalId {
                module: m,
                index: f,
            })
            .expect("a live function")
    }

    fn reads(&self, m: u32, f: u32) -> Vec<String> {
        self.names(&self.effect(m, f).reads)
    }

    fn writes(&self, m: u32, f: u32) -> Vec<String> {
        self.names(&self.effect(m, f).writes)
    }

    fn call(&self, m: u32, site: u32) -> Vec<String> {
        self.names(&self.modref.call_touches(m, site).expect("a live call"))
    }

    fn attributes(&self, m: u32, f: u32) -> MemoryAttributes {
        let id = GlobalId {
            module: m,
            index: f,
        };
        self.modref
            .attributes()
            .into_iter()
            .find(|&(g, _)| g == id)
            .map(|(_, a)| a)
            .unwrap_or_default()
    }
}

fn program() -> (TestProgram, u32, u32) {
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    (p, m, main)
}

fn site_of(p: &mut TestProgram, m: u32) -> u32 {
    p.m(m).call_sites.len() as u32 - 1
}

#[test]
fn callees_effects_reach_their_callers_and_calls() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let h = p.var(m, "h", Linkage::Internal, false);
    // get(p) { return *p; }   set(p) { *p = 0; }
    let get = p.func(m, "get");
    let gp = p.param(m, get, 0);
    p.access(m, get, gp, AccessKind::Read);
    let set = p.func(m, "set");
    let sp = p.param(m, set, 0);
    p.access(m, set, sp, AccessKind::Write);
    // both(p, q) { set(q); return get(p); }
    let both = p.func(m, "both");
    let bp = p.param(m, both, 0);
    let bq = p.param(m, both, 1);
    p.call(m, both, set, &[bq]);
    let set_site = site_of(&mut p, m);
    p.call(m, both, get, &[bp]);
    let ga = p.addr(m, main, g);
    let ha = p.addr(m, main, h);
    p.call(m, main, both, &[ga, ha]);
    let s = Solved::of(&p);
    assert_eq!(s.reads(m, get), ["g"]);
    assert_eq!(s.writes(m, get), Vec::<String>::new());
    assert_eq!(s.writes(m, set), ["h"]);
    assert_eq!(s.reads(m, both), ["g"]);
    assert_eq!(s.writes(m, both), ["h"]);
    assert_eq!(s.call(m, set_site), ["h"]);
    let a = s.attributes(m, get);
    assert!(a.no_writes && !a.no_reads && a.no_free);
    let a = s.attributes(m, set);
    assert!(a.no_reads && !a.no_writes);
}

#[test]
fn own_frame_is_invisible_to_callers_unless_recursive() {
    let (mut p, m, main) = program();
    // scratch() { int x; x = ...; return x; }: touches only its own frame.
    let scratch = p.func(m, "scratch");
    let x = p.stack(m, scratch, 8);
    p.access(m, scratch, x, AccessKind::Write);
    p.access(m, scratch, x, AccessKind::Read);
    p.call(m, main, scratch, &[]);
    // rec(p) { int y; *p = 0; rec(&y); }: writes the caller's frame, which in a recursive
    // call is its own.
    let rec = p.func(m, "rec");
    let rp = p.param(m, rec, 0);
    let y = p.stack(m, rec, 8);
    p.access(m, rec, rp, AccessKind::Write);
    p.call(m, rec, rec, &[y]);
    let self_site = site_of(&mut p, m);
    let z = p.stack(m, main, 8);
    p.call(m, main, rec, &[z]);
    let main_site = site_of(&mut p, m);
    let s = Solved::of(&p);
    assert_eq!(s.writes(m, scratch), Vec::<String>::new());
    let a = s.attributes(m, scratch);
    assert!(a.no_reads && a.no_writes);
    assert_eq!(
        s.writes(m, rec),
        [format!("stack#{y}"), format!("stack#{z}")]
    );
    assert!(!s.attributes(m, rec).no_writes);
    // Its own call sees the frame; main's sees only main's slot.
    assert_eq!(
        s.call(m, self_site),
        [format!("stack#{y}"), format!("stack#{z}")]
    );
    assert_eq!(s.call(m, main_site), [format!("stack#{z}")]);
}

#[test]
fn indirect_calls_follow_points_to() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let h = p.var(m, "h", Linkage::Internal, false);
    let reader = p.func(m, "reader");
    let ga = p.addr(m, reader, g);
    p.access(m, reader, ga, AccessKind::Read);
    let writer = p.func(m, "writer");
    let ha = p.addr(m, writer, h);
    p.access(m, writer, ha, AccessKind::Write);
    let table = p.var(m, "table", Linkage::Internal, true);
    p.init(m, table, 0, reader);
    let t = p.addr(m, main, table);
    let fp = p.load(m, t);
    let (site, _) = p.icall(m, main, fp, &[]);
    // writer is referenced but never called through this pointer.
    let wa = p.addr(m, main, writer);
    p.escape(m, wa);
    let s = Solved::of(&p);
    assert_eq!(s.call(m, site), ["g"]);
}

#[test]
fn unknown_code_touches_escaped_memory_and_runs_registered_callbacks() {
    let (mut p, m, main) = program();
    let counter = p.var(m, "counter", Linkage::Internal, false);
    let other = p.var(m, "other", Linkage::Internal, false);
    // cb() { counter++; } registered with atexit; run() is unknown.
    let cb = p.func(m, "cb");
    let ca = p.addr(m, cb, counter);
    p.access(m, cb, ca, AccessKind::ReadWrite);
    let atexit = p.decl(m, "atexit", GlobalKind::Function);
    let run = p.decl(m, "run", GlobalKind::Function);
    let cba = p.addr(m, main, cb);
    p.call(m, main, atexit, &[cba]);
    p.call(m, main, run, &[]);
    let run_site = site_of(&mut p, m);
    let oa = p.addr(m, main, other);
    p.access(m, main, oa, AccessKind::Write);
    let s = Solved::of(&p);
    assert_eq!(s.call(m, run_site), ["counter", "external"]);
    let e = s.effect(m, main);
    assert!(e.frees && e.side_effects);
}

#[test]
fn mutexes_see_what_threads_write() {
    let (mut p, m, main) = program();
    let malloc = p.decl(m, "malloc", GlobalKind::Function);
    let create = p.decl(m, "pthread_create", GlobalKind::Function);
    let lock = p.decl(m, "pthread_mutex_lock", GlobalKind::Function);
    // worker(arg) { *arg = ...; } started with a heap object that never escapes.
    let worker = p.func(m, "worker");
    let wp = p.param(m, worker, 0);
    p.access(m, worker, wp, AccessKind::Write);
    let shared = p.call(m, main, malloc, &[]);
    let heap_site = site_of(&mut p, m);
    let wa = p.addr(m, main, worker);
    let tid = p.stack(m, main, 8);
    p.call(m, main, create, &[tid, shared, wa, shared]);
    let mutex = p.stack(m, main, 40);
    p.call(m, main, lock, &[mutex]);
    let lock_site = site_of(&mut p, m);
    let s = Solved::of(&p);
    assert!(s.call(m, lock_site).contains(&format!("heap#{heap_site}")));
}

#[test]
fn library_functions_touch_what_their_attributes_allow() {
    let (mut p, m, main) = program();
    let strlen = p.libc(m, "strlen");
    let memcpy = p.decl(m, "llvm.memcpy.p0i8.p0i8.i64", GlobalKind::Function);
    let puts = p.libc(m, "puts");
    let a = p.var(m, "a", Linkage::Internal, false);
    let b = p.var(m, "b", Linkage::Internal, false);
    // len() { return strlen(a); }: reads a, writes nothing, no side effects.
    let len = p.func(m, "len");
    let aa = p.addr(m, len, a);
    p.call(m, len, strlen, &[aa]);
    p.call(m, main, len, &[]);
    // copy() { memcpy(b, a, n); }
    let copy = p.func(m, "copy");
    let (a2, b2) = (p.addr(m, copy, a), p.addr(m, copy, b));
    p.call(m, copy, memcpy, &[b2, a2]);
    p.call(m, main, copy, &[]);
    // say() { puts(a); }: the library's state too.
    let say = p.func(m, "say");
    let a3 = p.addr(m, say, a);
    p.call(m, say, puts, &[a3]);
    p.call(m, main, say, &[]);
    let s = Solved::of(&p);
    assert_eq!(s.reads(m, len), ["a"]);
    let at = s.attributes(m, len);
    assert!(at.no_writes && !at.no_reads && at.no_free);
    assert_eq!(s.writes(m, copy), ["a", "b"]);
    assert!(!s.effect(m, copy).side_effects);
    // puts reads its `readonly` argument and writes the library's state, where it may
    // also run outside code (nothing in LLVM 14 says it calls nothing back).
    assert_eq!(s.reads(m, say), ["a", "external"]);
    assert_eq!(s.writes(m, say), ["external"]);
    assert_eq!(s.attributes(m, say), MemoryAttributes::default());
}

#[test]
fn opaque_bodies_and_their_callers_touch_anything() {
    let (mut p, m, main) = program();
    let asm = p.func(m, "with_asm");
    p.m(m).opaque_functions.push(asm);
    let wrapper = p.func(m, "wrapper");
    p.call(m, wrapper, asm, &[]);
    p.call(m, main, wrapper, &[]);
    let s = Solved::of(&p);
    assert_eq!(s.writes(m, wrapper), ["anything"]);
    assert_eq!(s.attributes(m, wrapper), MemoryAttributes::default());
}

#[test]
fn qsort_comparators_run_during_the_call() {
    let (mut p, m, main) = program();
    let qsort = p.decl(m, "qsort", GlobalKind::Function);
    let seen = p.var(m, "seen", Linkage::Internal, false);
    let cmp = p.func(m, "cmp");
    let sa = p.addr(m, cmp, seen);
    p.access(m, cmp, sa, AccessKind::Write);
    let array = p.stack(m, main, 64);
    let ca = p.addr(m, main, cmp);
    p.call(m, main, qsort, &[array, array, array, ca]);
    let site = site_of(&mut p, m);
    let s = Solved::of(&p);
    assert_eq!(s.call(m, site), ["seen", format!("stack#{array}").as_str()]);
}

#[test]
fn pointers_the_analysis_never_saw_assigned_may_touch_anything() {
    let (mut p, m, main) = program();
    // A function pointer loaded from a slot nothing in the program writes (filled in a way
    // the facts did not follow): the call and an access through such a pointer may touch
    // anything.
    let slot = p.var(m, "slot", Linkage::Internal, false);
    let sa = p.addr(m, main, slot);
    let fp = p.load(m, sa);
    let (site, _) = p.icall(m, main, fp, &[]);
    let reader = p.func(m, "reader");
    let ra = p.addr(m, reader, slot);
    let q = p.load(m, ra);
    p.access(m, reader, q, AccessKind::Read);
    p.call(m, main, reader, &[]);
    let s = Solved::of(&p);
    assert_eq!(s.call(m, site), ["anything"]);
    assert_eq!(s.reads(m, reader), ["anything"]);
}

/// `fill_through(fill, p) { fill(p); }` with fillers that write only through their
/// argument keeps to its arguments; the same shape reaching a filler that also writes a
/// global, or a pointer loaded from memory, or the C library's other memory, does not.
#[test]
fn functions_keeping_to_their_arguments_through_indirect_calls() {
    let (mut p, m, main) = program();
    let counter = p.var(m, "counter", Linkage::Internal, false);
    let filler = |p: &mut TestProgram, name: &str, global: Option<u32>| {
        let f = p.func(m, name);
        let fp = p.param(m, f, 0);
        let at = p.field(m, fp, Some(4));
        p.access(m, f, at, AccessKind::Write);
        if let Some(g) = global {
            let ga = p.addr(m, f, g);
            p.access(m, f, ga, AccessKind::ReadWrite);
        }
        f
    };
    let fill_a = filler(&mut p, "fill_a", None);
    let fill_b = filler(&mut p, "fill_b", None);
    let count = filler(&mut p, "count", Some(counter));
    let through = |p: &mut TestProgram, name: &str, table: u32| {
        let f = p.func(m, name);
        let fp = p.param(m, f, 0);
        let arg = p.param(m, f, 1);
        p.icall(m, f, fp, &[arg]);
        let ta = p.addr(m, main, table);
        let entry = p.field(m, ta, None);
        let target = p.load(m, entry);
        let buf = p.stack(m, main, 8);
        p.call(m, main, f, &[target, buf]);
        f
    };
    let fills = p.var(m, "fills", Linkage::Internal, true);
    p.init(m, fills, 0, fill_a);
    p.init(m, fills, 8, fill_b);
    let counts = p.var(m, "counts", Linkage::Internal, true);
    p.init(m, counts, 0, fill_a);
    p.init(m, counts, 8, count);
    let fill_through = through(&mut p, "fill_through", fills);
    let count_through = through(&mut p, "count_through", counts);
    // deref(pp) { **pp = 0; }: the pointer it writes through was loaded, not given.
    let deref = p.func(m, "deref");
    let pp = p.param(m, deref, 0);
    let inner = p.load(m, pp);
    p.access(m, deref, inner, AccessKind::Write);
    let slot = p.stack(m, main, 8);
    p.call(m, main, deref, &[slot]);
    // own(p) { int x; x = *p; strlen(p); free(p); }: its own frame, an argmem-only
    // library function and the allocator keep to the argument; getenv reads other memory.
    let strlen = p.libc(m, "strlen");
    let free = p.libc(m, "free");
    let getenv = p.libc(m, "getenv");
    let own = p.func(m, "own");
    let op = p.param(m, own, 0);
    let x = p.stack(m, own, 4);
    p.access(m, own, op, AccessKind::Read);
    p.access(m, own, x, AccessKind::Write);
    p.call(m, own, strlen, &[op]);
    p.call(m, own, free, &[op]);
    p.call(m, main, own, &[slot]);
    let env = p.func(m, "env");
    let ep = p.param(m, env, 0);
    p.call(m, env, getenv, &[ep]);
    p.call(m, main, env, &[slot]);
    // global_arg(): passes a global's address to a filler: not an argument of its own.
    let global_arg = p.func(m, "global_arg");
    let ca = p.addr(m, global_arg, counter);
    p.call(m, global_arg, fill_a, &[ca]);
    p.call(m, main, global_arg, &[]);
    for f in [fill_a, fill_b, count] {
        p.call(m, main, f, &[slot]);
    }
    let s = Solved::of(&p);
    let only = |f: u32| s.attributes(m, f).only_arguments;
    assert!(only(fill_a) && only(fill_b) && only(fill_through) && only(own));
    assert!(!only(count), "count writes a global");
    assert!(!only(count_through), "count_through calls count");
    assert!(!only(deref), "a loaded pointer is based on no argument");
    assert!(!only(env), "getenv reads memory beyond its argument");
    assert!(!only(global_arg), "a global's address is no argument");
    assert!(!only(main));
}
