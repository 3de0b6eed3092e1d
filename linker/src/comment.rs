//! The linker's own line in the output's `.comment`: `Linker: rld VERSION`, as lld writes
//! `Linker: LLD VERSION` and mold its name, so that a program says what linked it
//! (`readelf -p .comment`). It is one more mergeable-strings section, merged with the
//! inputs' compiler lines in lld's order; `-r` output gets none, as with lld. It joins an
//! input object rather than being an object of its own, which the input-wide rules (the
//! x86 feature properties every object must have, `-t`, dependency files) would count:
//! the last one, since lld's line is the last input section (the order of strings in a
//! merged shard, and where the line goes under `-O0`, which merges nothing else).

use crate::object_file::{InputSection, ObjectFile, SectionAttrs, SectionKind};
use object::elf;

/// The line, NUL-terminated.
const LINE: &str = concat!("Linker: rld ", env!("CARGO_PKG_VERSION"), "\0");

/// Adds the `.comment` line to the last of `objects` (none: nothing to add it to).
pub fn add_linker_line(objects: &mut [ObjectFile]) {
    let Some(obj) = objects.last_mut() else {
        return;
    };
    let attrs = SectionAttrs {
        sh_type: elf::SHT_PROGBITS,
        flags: u64::from(elf::SHF_MERGE | elf::SHF_STRINGS),
        align: 1,
        entsize: 1,
    };
    let section = InputSection::new(".comment", attrs, LINE.as_bytes(), 0, SectionKind::Merge)
        .expect("a short name");
    obj.merges.push(obj.sections.len() as u32);
    obj.sections.push(section);
}

/// Whether `sec` is the linker's line (named `<internal>:(.comment)` in reports, as lld
/// names its own).
pub fn is_linker_line(sec: &InputSection) -> bool {
    std::ptr::eq(sec.data().as_ptr(), LINE.as_ptr())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_line_names_rld_and_its_version() {
        assert_eq!(
            super::LINE,
            format!("Linker: rld {}\0", env!("CARGO_PKG_VERSION"))
        );
    }
}
