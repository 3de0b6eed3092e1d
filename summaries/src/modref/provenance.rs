//! Which pointers of a function are *based on* its pointer arguments or its own stack
//! objects, in the sense of LLVM's `memory(argmem: ...)`: a function whose every access
//! goes through such a pointer, and whose every callee keeps to the pointers it is given,
//! touches no memory its callers can see but what their arguments point to.
//!
//! Provenance is followed through the value flow of the summary only (copies, phis,
//! field and element addresses); a pointer loaded from memory, returned by a call, made
//! from an integer or naming a global is not based on an argument, whatever it points to:
//! the attribute speaks of how a pointer was made, not of the objects it may point to.

use crate::library::{self, Model};
use crate::model::{ModuleSummary, ValueFact, ValueId};

/// Per value of `module` (by id): based on a pointer argument or a stack object of the
/// function it belongs to. Every definition of the value must be: a value defined once by
/// an argument and once by a load (a phi of both) is not.
pub(super) fn argument_based(module: &ModuleSummary) -> Vec<bool> {
    let n = module.value_count as usize;
    let mut defined = vec![false; n];
    let mut based = vec![true; n];
    // Derived value -> the values derived from it, for the spread of "not based".
    let mut derived: Vec<(ValueId, ValueId)> = Vec::new();
    let mut not_based: Vec<ValueId> = Vec::new();
    for f in &module.facts {
        let (dst, from) = match *f {
            ValueFact::Argument { dst, .. } | ValueFact::StackObject { dst, .. } => (dst, None),
            ValueFact::Copy { dst, src } => (dst, Some(src)),
            ValueFact::FieldAddr { dst, base, .. } | ValueFact::ArrayElement { dst, base, .. } => {
                (dst, Some(base))
            }
            ValueFact::AddressOf { dst, .. }
            | ValueFact::Load { dst, .. }
            | ValueFact::CallResult { dst, .. }
            | ValueFact::Unknown { dst } => {
                not_based.push(dst);
                (dst, None)
            }
            ValueFact::Store { .. }
            | ValueFact::CallArgument { .. }
            | ValueFact::Return { .. }
            | ValueFact::Escape { .. } => continue,
        };
        let Some(slot) = defined.get_mut(dst as usize) else {
            continue;
        };
        *slot = true;
        match from {
            // A value the summary does not number is based on nothing known.
            Some(src) if src as usize >= n => not_based.push(dst),
            Some(src) => derived.push((src, dst)),
            None => {}
        }
    }
    // A value nothing defines (a constant the facts do not name) is based on nothing.
    not_based.extend((0..n as ValueId).filter(|&v| !defined[v as usize]));
    derived.sort_unstable();
    let mut work = not_based;
    while let Some(v) = work.pop() {
        let Some(b) = based.get_mut(v as usize) else {
            continue;
        };
        if !std::mem::replace(b, false) {
            continue;
        }
        let from = derived.partition_point(|&(s, _)| s < v);
        work.extend(
            derived[from..]
                .iter()
                .take_while(|&&(s, _)| s == v)
                .map(|&(_, d)| d),
        );
    }
    based
}

/// Whether a call to `name`, a function outside the unit with model `model`, touches only
/// what its pointer arguments point to and memory no program can name (the library's own
/// state): intrinsics that only copy, set, mark or compute, allocation and deallocation,
/// and functions whose declarations say no more than `argmem` and `inaccessiblemem`.
pub(super) fn library_keeps_to_arguments(name: &str, model: &Model) -> bool {
    if let Some(intrinsic) = name.strip_prefix("llvm.") {
        return library::intrinsic_keeps_to_arguments(intrinsic);
    }
    match model {
        Model::Allocates { .. } | Model::Frees => true,
        Model::Declared(d) => !d.memory.reads_other() && !d.memory.writes_other(),
        Model::NoCapture { .. }
        | Model::Copies { .. }
        | Model::Calls { .. }
        | Model::VaStart { .. }
        | Model::Unknown => false,
    }
}
