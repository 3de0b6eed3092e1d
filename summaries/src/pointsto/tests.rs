//! The points-to analysis on hand-built summaries: one feature per test, each checking the
//! exact set of locations a value may point to.

use super::*;
use crate::dead::compute_dead_symbols;
use crate::fixtures::{resolutions, TestProgram};
use crate::model::{GlobalKind, Linkage};

/// A location as the tests write it: `"g+8"`, `"stack#3"`, `"heap#2"`, `"external"`, with
/// `+?` for a collapsed object.
fn describe(index: &CombinedIndex, p: &Pointee) -> String {
    let object = match p.object {
        Object::Global(g) => index.global(g).name.clone(),
        Object::Stack { value, .. } => format!("stack#{value}"),
        Object::Heap { call, .. } => format!("heap#{call}"),
        Object::VarArgs(f) => format!("varargs:{}", index.global(f).name),
        Object::External => return "external".to_string(),
    };
    match p.offset {
        Some(0) => object,
        Some(o) => format!("{object}+{o}"),
        None => format!("{object}+?"),
    }
}

struct Solved {
    index: CombinedIndex,
    result: PointsTo,
}

impl Solved {
    fn of(p: &TestProgram) -> Solved {
        let index = p.index();
        let res = resolutions(&index);
        let live = compute_dead_symbols(&index, &res, &[]);
        let result = points_to(&index, &res, &live);
        Solved { index, result }
    }

    fn pts(&self, m: u32, v: ValueId) -> Vec<String> {
        let mut out: Vec<String> = self
            .result
            .pointees(m, v)
            .iter()
            .map(|p| describe(&self.index, p))
            .collect();
        out.sort();
        out
    }
}

/// A program with `main` (referenced from crt1.o, like lld's resolution of an executable).
fn program() -> (TestProgram, u32, u32) {
    let mut p = TestProgram::new();
    let m = p.module("a.o");
    let main = p.ext_func(m, "main");
    (p, m, main)
}

#[test]
fn stack_heap_and_global_objects() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let malloc = p.decl(m, "malloc", GlobalKind::Function);
    let a = p.stack(m, main, 8);
    let b = p.stack(m, main, 8);
    let ga = p.addr(m, main, g);
    let h = p.call(m, main, malloc, &[]);
    let h2 = p.call(m, main, malloc, &[]);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, a), ["stack#0"]);
    assert_eq!(s.pts(m, b), ["stack#1"]);
    assert_eq!(s.pts(m, ga), ["g"]);
    assert_eq!(s.pts(m, h), ["heap#0"]);
    assert_eq!(s.pts(m, h2), ["heap#1"]);
    assert!(!s.result.escaped(Object::Stack {
        module: m,
        value: a
    }));
}

#[test]
fn fields_are_distinct_until_an_unknown_offset() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let f = p.var(m, "f", Linkage::Internal, false);
    let s1 = p.stack(m, main, 16);
    let at8 = p.field(m, s1, Some(8));
    let ga = p.addr(m, main, g);
    p.store(m, at8, ga);
    let at0 = p.field(m, s1, Some(0));
    let fa = p.addr(m, main, f);
    p.store(m, at0, fa);
    let again8 = p.field(m, s1, Some(8));
    let read8 = p.load(m, again8);
    let read0 = p.load(m, s1);
    // A second object, indexed at run time: one location for all of it.
    let s2 = p.stack(m, main, 16);
    let anywhere = p.field(m, s2, None);
    p.store(m, anywhere, ga);
    let s2_at8 = p.field(m, s2, Some(8));
    let read_s2 = p.load(m, s2_at8);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, at8), ["stack#0+8"]);
    assert_eq!(s.pts(m, read8), ["g"]);
    assert_eq!(s.pts(m, read0), ["f"]);
    assert_eq!(s.pts(m, anywhere), ["stack#8+?"]);
    assert_eq!(s.pts(m, read_s2), ["g"]);
}

#[test]
fn constant_arithmetic_leaving_an_array_from_inside_it_collapses_the_object() {
    let (mut p, m, main) = program();
    // `base`'s array at offset 8 (16 bytes), indexed at run time.
    let element_of = |p: &mut TestProgram, base| {
        let element = p.val(m);
        p.fact(
            m,
            ValueFact::ArrayElement {
                dst: element,
                base,
                start: 8,
                len: 16,
            },
        );
        element
    };
    let s1 = p.stack(m, main, 32);
    let element = element_of(&mut p, s1);
    // Within the array: still the array.
    let next = p.field(m, element, Some(4));
    // Another struct, same shape: the struct around an element (`container_of`).
    let s2 = p.stack(m, main, 32);
    let element2 = element_of(&mut p, s2);
    let outer = p.field(m, element2, Some(-8));
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, element), ["stack#0+8"]);
    assert_eq!(s.pts(m, next), ["stack#0+8"]);
    let ext = |v| s.result.node_extents(s.result.node(m, v).unwrap());
    assert!(matches!(ext(next)[..], [(_, Extent::From(8))]));
    // The element may be any of them: the struct around it is anywhere in the object.
    assert_eq!(s.pts(m, outer), ["stack#3+?"]);
    assert!(matches!(ext(outer)[..], [(_, Extent::Whole)]));
}

#[test]
fn pointer_copied_through_memory_and_memcpy() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let memcpy = p.decl(m, "llvm.memcpy.p0i8.p0i8.i64", GlobalKind::Function);
    let x = p.stack(m, main, 8);
    let ga = p.addr(m, main, g);
    p.store(m, x, ga);
    let y = p.load(m, x);
    let copy = p.stack(m, main, 8);
    p.call(m, main, memcpy, &[copy, x]);
    let z = p.load(m, copy);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, y), ["g"]);
    assert_eq!(s.pts(m, z), ["g"]);
}

/// A byte copy into an object through a pointer to its offset 16 (text copied after a
/// header in one allocation) writes the slots from 16 on, those made later included, and
/// leaves the header's pointer alone; the source is read from its pointer on.
#[test]
fn byte_copies_touch_nothing_before_the_pointer() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let f = p.var(m, "f", Linkage::Internal, false);
    let memcpy = p.decl(m, "llvm.memcpy.p0i8.p0i8.i64", GlobalKind::Function);
    let fread = p.libc(m, "fread");
    let obj = p.stack(m, main, 64);
    let ga = p.addr(m, main, g);
    p.store(m, obj, ga);
    // The source: a header pointing to `f`, then bytes from a file.
    let src = p.stack(m, main, 64);
    let fa = p.addr(m, main, f);
    p.store(m, src, fa);
    let text = p.field(m, src, Some(8));
    p.call(m, main, fread, &[text]);
    let tail = p.field(m, obj, Some(16));
    p.call(m, main, memcpy, &[tail, text]);
    let header = p.load(m, obj);
    let copied = p.load(m, tail);
    let later = p.field(m, obj, Some(40));
    let read_later = p.load(m, later);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, header), ["g"]);
    assert_eq!(s.pts(m, copied), ["external"]);
    assert_eq!(s.pts(m, read_later), ["external"]);
}

#[test]
fn realloc_keeps_contents_and_may_return_the_old_block() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let malloc = p.decl(m, "malloc", GlobalKind::Function);
    let realloc = p.decl(m, "realloc", GlobalKind::Function);
    let h = p.call(m, main, malloc, &[]);
    let ga = p.addr(m, main, g);
    p.store(m, h, ga);
    let r = p.call(m, main, realloc, &[h]);
    let inside = p.load(m, r);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, r), ["heap#0", "heap#1"]);
    assert_eq!(s.pts(m, inside), ["g"]);
}

#[test]
fn integers_and_unknown_values_point_to_what_escaped() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let kept = p.var(m, "kept", Linkage::Internal, false);
    let ga = p.addr(m, main, g);
    p.escape(m, ga); // ptrtoint
    let _ = p.addr(m, main, kept);
    let made = p.unknown(m); // inttoptr
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, made), ["external"]);
    assert!(s.result.escaped(Object::Global(GlobalId {
        module: m,
        index: g
    })));
    assert!(!s.result.escaped(Object::Global(GlobalId {
        module: m,
        index: kept
    })));
}

#[test]
fn unknown_external_function_captures_its_arguments() {
    let (mut p, m, main) = program();
    let ext = p.decl(m, "consume", GlobalKind::Function);
    let local = p.stack(m, main, 8);
    let back = p.call(m, main, ext, &[local]);
    let freed = p.stack(m, main, 8);
    let free = p.libc(m, "free");
    p.call(m, main, free, &[freed]);
    let s = Solved::of(&p);
    assert!(s.result.escaped(Object::Stack {
        module: m,
        value: local
    }));
    assert!(!s.result.escaped(Object::Stack {
        module: m,
        value: freed
    }));
    assert_eq!(s.pts(m, back), ["external"]);
}

#[test]
fn exported_function_arguments_come_from_outside() {
    let (mut p, m, main) = program();
    let api = p.ext_func(m, "api");
    let arg = p.param(m, api, 0);
    let internal = p.func(m, "helper");
    let harg = p.param(m, internal, 0);
    let x = p.stack(m, main, 8);
    p.call(m, main, internal, &[x]);
    let index = p.index();
    let mut res = resolutions(&index);
    res.get_mut(GlobalId {
        module: m,
        index: api,
    })
    .export_dynamic = true;
    let live = compute_dead_symbols(&index, &res, &[]);
    let result = points_to(&index, &res, &live);
    let s = Solved { index, result };
    assert_eq!(s.pts(m, arg), ["external"]);
    assert_eq!(s.pts(m, harg), [format!("stack#{x}")]);
}

#[test]
fn indirect_calls_are_resolved_on_the_fly() {
    let (mut p, m, main) = program();
    let target = p.func(m, "target");
    let formal = p.param(m, target, 0);
    let table = p.var(m, "table", Linkage::Internal, true);
    p.init(m, table, 8, target);
    let t = p.addr(m, main, table);
    let slot = p.field(m, t, Some(8));
    let fp = p.load(m, slot);
    let x = p.stack(m, main, 4);
    let (_, _) = p.icall(m, main, fp, &[x]);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, fp), ["target"]);
    assert_eq!(s.pts(m, formal), [format!("stack#{x}")]);
}

#[test]
fn library_callbacks_receive_their_arguments() {
    let (mut p, m, main) = program();
    let qsort = p.decl(m, "qsort", GlobalKind::Function);
    let pthread_create = p.decl(m, "pthread_create", GlobalKind::Function);
    let cmp = p.func(m, "cmp");
    let cmp_a = p.param(m, cmp, 0);
    let cmp_b = p.param(m, cmp, 1);
    let start = p.func(m, "start");
    let start_arg = p.param(m, start, 0);
    let array = p.stack(m, main, 64);
    let cmp_fn = p.addr(m, main, cmp);
    let n = p.unknown(m);
    p.call(m, main, qsort, &[array, n, n, cmp_fn]);
    let thread = p.stack(m, main, 8);
    let start_fn = p.addr(m, main, start);
    let data = p.stack(m, main, 8);
    p.call(m, main, pthread_create, &[thread, n, start_fn, data]);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, cmp_a), [format!("stack#{array}+?")]);
    assert_eq!(s.pts(m, cmp_b), [format!("stack#{array}+?")]);
    assert_eq!(s.pts(m, start_arg), [format!("stack#{data}")]);
    assert!(!s.result.escaped(Object::Stack {
        module: m,
        value: data
    }));
}

#[test]
fn va_arg_reads_what_the_callers_pass() {
    let (mut p, m, main) = program();
    let va_start = p.decl(m, "llvm.va_start", GlobalKind::Function);
    let va_copy = p.decl(m, "llvm.va_copy", GlobalKind::Function);
    // int config(char *fmt, ...): va_arg through the reg_save_area pointer at offset 16.
    let config = p.func(m, "config");
    let _fmt = p.param(m, config, 0);
    let ap = p.stack(m, config, 24);
    p.call(m, config, va_start, &[ap]);
    let save_area = p.field(m, ap, Some(16));
    let area = p.load(m, save_area);
    let slot = p.field(m, area, None);
    let arg = p.load(m, slot);
    // A va_list copied to another one reads the same arguments.
    let ap2 = p.stack(m, config, 24);
    p.call(m, config, va_copy, &[ap2, ap]);
    let area2 = p.load(m, ap2);
    let arg2 = p.load(m, area2);
    let g = p.var(m, "methods", Linkage::Internal, false);
    let fmt = p.var(m, "fmt", Linkage::Internal, true);
    let ga = p.addr(m, main, g);
    let fa = p.addr(m, main, fmt);
    p.call(m, main, config, &[fa, ga]);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, area), ["varargs:config+?"]);
    assert_eq!(s.pts(m, arg), ["methods"]);
    assert_eq!(s.pts(m, arg2), ["methods"]);
}

/// `void *xmalloc(n) { long *p = malloc(n + 8); p[0] = n; return p + 1; }` called from two
/// places directly and through a hook; `keep` stores its block in a global, so it is no
/// wrapper.
#[test]
fn allocation_wrappers_give_each_call_site_its_own_object() {
    let (mut p, m, main) = program();
    let malloc = p.decl(m, "malloc", GlobalKind::Function);
    let xmalloc = p.func(m, "xmalloc");
    let block = p.call(m, xmalloc, malloc, &[]);
    let size = p.unknown(m);
    p.store(m, block, size);
    let user = p.field(m, block, Some(8));
    p.ret(m, xmalloc, user);
    // xzalloc(n) { void *q = xmalloc(n); memset(q, 0, n); return q; }
    let memset = p.decl(m, "llvm.memset.p0i8.i64", GlobalKind::Function);
    let xzalloc = p.func(m, "xzalloc");
    let q = p.call(m, xzalloc, xmalloc, &[]);
    p.call(m, xzalloc, memset, &[q]);
    p.ret(m, xzalloc, q);
    // A hook: `hooks.alloc = xzalloc`, called through memory.
    let hooks = p.var(m, "hooks", Linkage::Internal, false);
    p.init(m, hooks, 0, xzalloc);
    let keep = p.func(m, "keep");
    let kept = p.var(m, "kept", Linkage::Internal, false);
    let kb = p.call(m, keep, malloc, &[]);
    let ka = p.addr(m, keep, kept);
    p.store(m, ka, kb);
    p.ret(m, keep, kb);
    let a = p.call(m, main, xmalloc, &[]);
    let b = p.call(m, main, xmalloc, &[]);
    let hooks_addr = p.addr(m, main, hooks);
    let hook = p.load(m, hooks_addr);
    let (_, c) = p.icall(m, main, hook, &[]);
    let k1 = p.call(m, main, keep, &[]);
    let k2 = p.call(m, main, keep, &[]);
    let g = p.var(m, "g", Linkage::Internal, false);
    let ga = p.addr(m, main, g);
    p.store(m, a, ga);
    let from_b = p.load(m, b);
    let header = p.field(m, a, Some(-8));
    let read_header = p.load(m, header);
    let s = Solved::of(&p);
    let site = |v: ValueId| -> u32 {
        let facts = &s.index.modules[m as usize].facts;
        facts
            .iter()
            .find_map(|f| match *f {
                ValueFact::CallResult { call, dst } if dst == v => Some(call),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(s.pts(m, a), [format!("heap#{}+8", site(a))]);
    assert_eq!(s.pts(m, b), [format!("heap#{}+8", site(b))]);
    assert_eq!(s.pts(m, c), [format!("heap#{}+8", site(c))]);
    // What is stored through one block is not read through another.
    assert!(s.pts(m, from_b).is_empty());
    // The wrapper's own store (the size header) is in every block.
    assert_eq!(s.pts(m, read_header), ["external"]);
    let shared = [format!("heap#{}", site(kb))];
    assert_eq!(s.pts(m, k1), shared);
    assert_eq!(s.pts(m, k2), shared);
}

/// A pointer that may point to more than `SET_LIMIT` locations stands for "anything that
/// escaped": the locations escape and the pointer's set is the external location.
#[test]
fn huge_sets_widen_to_external() {
    let (mut p, m, main) = program();
    let any = p.stack(m, main, 8);
    let mut objects = Vec::new();
    for _ in 0..=SET_LIMIT {
        let s = p.stack(m, main, 8);
        p.copy(m, any, s);
        objects.push(s);
    }
    let small = p.stack(m, main, 8);
    let g = p.var(m, "g", Linkage::Internal, false);
    let ga = p.addr(m, main, g);
    p.store(m, small, ga);
    let loaded = p.load(m, small);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, any), ["external"]);
    for &o in &objects {
        assert!(s.result.escaped(Object::Stack {
            module: m,
            value: o
        }));
    }
    // Unrelated pointers keep their exact sets.
    assert_eq!(s.pts(m, loaded), ["g"]);
    assert!(s.result.stats().solver.widened >= 1);
}

/// Functions outside the unit do what their declarations' attributes allow: `strchr`
/// (readonly, its string not `nocapture`) returns a pointer into its argument without
/// making it escape; `fread` (no memory attribute) may store anything through its buffer;
/// `fopen`'s `noalias` result is fresh memory holding anything the library may store.
#[test]
fn declared_library_functions_follow_their_attributes() {
    let (mut p, m, main) = program();
    let strchr = p.libc(m, "strchr");
    let fread = p.libc(m, "fread");
    let fopen = p.libc(m, "fopen");
    let buf = p.stack(m, main, 16);
    let found = p.call(m, main, strchr, &[buf]);
    let holder = p.stack(m, main, 8);
    p.call(m, main, fread, &[holder]);
    let read_back = p.load(m, holder);
    let file = p.call(m, main, fopen, &[buf, buf]);
    let inside = p.load(m, file);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, found), ["external", &format!("stack#{buf}+?")]);
    assert!(!s.result.escaped(Object::Stack {
        module: m,
        value: buf
    }));
    assert_eq!(s.pts(m, read_back), ["external"]);
    assert_eq!(s.pts(m, inside), ["external"]);
    assert!(
        s.pts(m, file)[0].starts_with("heap#"),
        "{:?}",
        s.pts(m, file)
    );
}

/// A function given to a library function may be called back by it (LLVM 14 has no
/// attribute saying otherwise), with anything the call reaches.
#[test]
fn functions_given_to_the_library_may_be_called_back() {
    let (mut p, m, main) = program();
    let strlen = p.libc(m, "strlen");
    let cb = p.func(m, "cb");
    let arg = p.param(m, cb, 0);
    let fa = p.addr(m, main, cb);
    let data = p.stack(m, main, 8);
    p.call(m, main, strlen, &[fa, data]);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, arg), ["external"]);
    assert!(s.result.escaped(Object::Stack {
        module: m,
        value: data
    }));
}

/// An object whose fields outnumber [`MAX_FIELDS`], none of them at offset 0, collapses
/// once (it used to collapse again while making its offset-0 location, until the stack
/// overflowed: make_dparser of the LLVM test-suite).
#[test]
fn an_object_with_too_many_fields_and_none_at_its_start_collapses_once() {
    let (mut p, m, main) = program();
    let g = p.var(m, "g", Linkage::Internal, false);
    let obj = p.stack(m, main, 8 * (MAX_FIELDS as u64 + 8));
    let ga = p.addr(m, main, g);
    let mut last = obj;
    for k in 1..=(MAX_FIELDS as i64 + 4) {
        let f = p.field(m, obj, Some(8 * k));
        p.store(m, f, ga);
        last = f;
    }
    let read = p.load(m, last);
    let s = Solved::of(&p);
    assert_eq!(s.pts(m, read), ["g"]);
}
