#!/usr/bin/env python3
"""Joins aat-eval's answers with and without rld's alias metadata and the pairs a run of
the instrumented program saw overlap (see plugin.cpp and runtime.cpp).

    ceiling.py EVAL_WITHOUT EVAL_WITH TRACE... [--suspects N]

Prints one line of key=value fields:
  pairs        memory-instruction pairs (aa-eval -evaluate-aa-metadata's queries)
  may_default  pairs LLVM's default AA answers MayAlias (bitcode without rld's metadata)
  may_rld      the same with rld's metadata
  overlap      default-MayAlias pairs whose accesses touched the same byte of the same object
               in the run: no sound analysis can answer them NoAlias (the dynamic ceiling;
               both accesses of such a pair ran)
  exec_may_default, exec_may_rld
               the MayAlias counts over pairs whose two accesses both ran
  exec_objects executed default-MayAlias pairs whose accesses touched a common abstract
               object (the same global, alloca or allocation call; any instance, any
               bytes): the ceiling of an analysis whose objects are those, as the issue
               of context or field sensitivity aside
  exec_slots   the same, counting only pairs that touched a common 8-byte slot of a common
               object (at the same offset from its start): the ceiling of a field-sensitive
               analysis with those objects
  rld_same_slot, rld_same_object_other_slots, rld_other_objects
               executed pairs rld leaves MayAlias that never overlapped, split by whether
               their accesses touched a common slot of a common abstract object (telling
               them apart needs contexts: which instance), only other slots of common
               objects (it needs fields) or no common object (a more precise points-to set)
  unsound      pairs rld's metadata made NoAlias that overlapped in the run (must be 0)
and, with --suspects, up to N unsound pairs as function and positions.
"""
import sys


def read_eval(path):
    names, may, totals = {}, set(), None
    fn = None
    with open(path) as f:
        for line in f:
            kind, *rest = line.split()
            if kind == "M":
                may.add((fn, int(rest[0]), int(rest[1])))
            elif kind == "F":
                fn = int(rest[0])
                names[fn] = rest[1] if len(rest) > 1 else ""
            elif kind == "T":
                totals = [int(x) for x in rest]
    if totals is None:
        sys.exit(f"{path}: no totals line (aat-eval did not finish)")
    return names, may, totals


def read_trace(paths):
    executed, overlap, sites = set(), set(), {}
    for path in paths:
        with open(path) as f:
            for line in f:
                kind, *rest = line.split()
                if kind == "E":
                    executed.add((int(rest[0]), int(rest[1])))
                elif kind == "O":
                    overlap.add((int(rest[0]), int(rest[1]), int(rest[2])))
                elif kind == "S":
                    touched = sites.setdefault((int(rest[0]), int(rest[1])), {})
                    for entry in rest[2:]:
                        site, slots = entry.split(":")
                        old = touched.get(site, set())
                        if slots == "*" or old is None:
                            touched[site] = None  # every slot
                        else:
                            touched[site] = old | {int(x) for x in slots.split(",")}
    return executed, overlap, sites


def main(argv):
    suspects = 0
    if "--suspects" in argv:
        i = argv.index("--suspects")
        suspects = int(argv[i + 1])
        del argv[i : i + 2]
    if len(argv) < 3:
        sys.exit(__doc__)
    names_off, may_off, totals = read_eval(argv[0])
    names_on, may_on, totals_on = read_eval(argv[1])
    if names_off != names_on or sum(totals) != sum(totals_on):
        sys.exit("the two bitcode files do not have the same functions and accesses")
    executed, overlap, sites = read_trace(argv[2:])

    def ran(p):
        return (p[0], p[1]) in executed and (p[0], p[2]) in executed

    floor = may_off & overlap
    unsound = sorted((may_off - may_on) & overlap)
    exec_off = {p for p in may_off if ran(p)}
    exec_on = {p for p in may_on if ran(p)}

    def touched(fn, pos):
        return sites.get((fn, pos), {})

    def common_object(p):
        return not touched(p[0], p[1]).keys().isdisjoint(touched(p[0], p[2]).keys())

    def common_slot(p):
        a, b = touched(p[0], p[1]), touched(p[0], p[2])
        return any(a[s] is None or b[s] is None or not a[s].isdisjoint(b[s])
                   for s in a.keys() & b.keys())

    rld_left = exec_on - overlap
    same = [p for p in rld_left if common_object(p)]
    same_slot = sum(1 for p in same if common_slot(p))
    fields = {
        "pairs": sum(totals),
        "may_default": len(may_off),
        "may_rld": len(may_on),
        "overlap": len(floor),
        "exec_may_default": len(exec_off),
        "exec_may_rld": len(exec_on),
        "exec_objects": sum(1 for p in exec_off if common_object(p)),
        "exec_slots": sum(1 for p in exec_off if common_slot(p)),
        "rld_same_slot": same_slot,
        "rld_same_object_other_slots": len(same) - same_slot,
        "rld_other_objects": len(rld_left) - len(same),
        "unsound": len(unsound),
    }
    print(" ".join(f"{k}={v}" for k, v in fields.items()))
    for fn, a, b in unsound[:suspects]:
        print(f"  unsound: {names_on[fn]} accesses {a} and {b}")


if __name__ == "__main__":
    main(sys.argv[1:])
