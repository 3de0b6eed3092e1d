//! `rld remarks view`: one self-contained HTML file for browsing remarks, like LLVM's
//! opt-viewer but a single file that opens from disk with no server and no network.
//!
//! It has to cope with whole-program LTO remark sets (SQLite's `-flto` build: ~1 million
//! remarks, ~175 MB of YAML), so:
//!
//! - Remarks arrive one at a time ([`HtmlReport::add`]) and are kept as small tuples of
//!   indices into interned tables (strings, arguments, locations): remark sets repeat the same
//!   passes, names, functions, files and message fragments endlessly.
//! - The page embeds those tables as JSON (a string table and arrays of integers) in a
//!   `<script type="application/json">` element, and the page's script renders only what is
//!   on screen: tables a page at a time, the selected file's source as a virtual list.
//! - Remark strings and source text only ever reach the page as JSON string literals
//!   ([`json::write_str`]) and leave it through `textContent`, never as HTML.
//! - Functions and argument values that are Rust symbols are shown demangled
//!   ([`display_name`]): the page gets both strings, shows the path, keeps the symbol in a
//!   tooltip and as the function's identity (two instances of a generic differ only in the
//!   hash the path leaves out), and its filters match either.

mod json;
mod source;

use crate::model::{DebugLoc, Remark, RemarkKind};
use crate::names::display_name;
use std::borrow::{Borrow, Cow};
use std::collections::HashMap;
use std::hash::Hash;
use std::io::{self, Write};
use std::path::PathBuf;

const TEMPLATE: &str = include_str!("report.html");
const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// "No index": a remark without a `DebugLoc`, an argument without one. Written as `-1`.
const NONE: u32 = u32::MAX;

/// Gives each distinct value a dense index, in order of first appearance. The map is the only
/// copy of each value until [`Interner::into_table`].
struct Interner<K> {
    ids: HashMap<K, u32>,
}

impl<K: Hash + Eq> Interner<K> {
    fn new() -> Self {
        Interner {
            ids: HashMap::new(),
        }
    }

    fn intern<Q>(&mut self, key: &Q, owned: impl FnOnce(&Q) -> K) -> u32
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        if let Some(&id) = self.ids.get(key) {
            return id;
        }
        // More than 2^32 - 1 distinct values would need hundreds of gigabytes first; the
        // last index is shared rather than wrapping around.
        let id = u32::try_from(self.ids.len())
            .unwrap_or(NONE - 1)
            .min(NONE - 1);
        self.ids.insert(owned(key), id);
        id
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    /// The values in index order.
    fn into_table(self) -> Vec<K> {
        let mut table: Vec<Option<K>> = (0..self.ids.len()).map(|_| None).collect();
        for (key, id) in self.ids {
            if let Some(slot) = table.get_mut(id as usize) {
                *slot = Some(key);
            }
        }
        table.into_iter().flatten().collect()
    }
}

/// A remark as the report keeps it: 32 bytes, every string an index into the string table.
struct PackedRemark {
    kind: u8,
    pass: u32,
    name: u32,
    function: u32,
    /// The `DebugLoc`: file is [`NONE`] without one.
    file: u32,
    line: u32,
    column: u32,
    /// How many of [`HtmlReport::remark_args`] are this remark's (they follow the previous
    /// remark's).
    nargs: u32,
}

/// Builds the HTML report from remarks streamed into it.
pub struct HtmlReport {
    source_root: Option<PathBuf>,
    strings: Interner<Box<str>>,
    /// `DebugLoc`s of arguments (callees, callers, ...): `[file, line, column]`.
    locs: Interner<[u32; 3]>,
    /// Distinct arguments: `[key, value, loc]`, loc [`NONE`] without one.
    args: Interner<[u32; 3]>,
    remarks: Vec<PackedRemark>,
    /// The arguments of all remarks, in order, as indices into `args`.
    remark_args: Vec<u32>,
    /// `(remark index, hotness)` for the remarks that have one (with a profile, most do;
    /// without, none).
    hotness: Vec<(u32, u64)>,
    /// Rust symbols among the strings → their demangled paths (both string indices).
    shown: HashMap<u32, u32>,
}

impl HtmlReport {
    /// `source_root`: where relative DebugLoc paths are looked up (absolute ones as they
    /// are); without one, relative to the current directory.
    pub fn new(source_root: Option<PathBuf>) -> Self {
        HtmlReport {
            source_root,
            strings: Interner::new(),
            locs: Interner::new(),
            args: Interner::new(),
            remarks: Vec::new(),
            remark_args: Vec::new(),
            hotness: Vec::new(),
            shown: HashMap::new(),
        }
    }

    fn string(&mut self, s: &str) -> u32 {
        self.strings.intern(s, |s| s.into())
    }

    /// A string that may name a symbol: interned, and its demangled form too when it is a
    /// Rust symbol (once per distinct symbol).
    fn symbol(&mut self, s: &str) -> u32 {
        let id = self.string(s);
        if !self.shown.contains_key(&id) {
            if let Cow::Owned(shown) = display_name(s) {
                let shown = self.string(&shown);
                self.shown.insert(id, shown);
            }
        }
        id
    }

    /// Number of remarks added so far.
    pub fn len(&self) -> usize {
        self.remarks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.remarks.is_empty()
    }

    pub fn add(&mut self, remark: &Remark) {
        let index = u32::try_from(self.remarks.len()).unwrap_or(NONE);
        let kind = RemarkKind::ALL
            .iter()
            .position(|&k| k == remark.kind)
            .unwrap_or(0) as u8;
        let pass = self.string(&remark.pass);
        let name = self.string(&remark.name);
        let function = self.symbol(&remark.function);
        let (file, line, column) = match &remark.debug_loc {
            Some(loc) => (self.string(&loc.file), loc.line, loc.column),
            None => (NONE, 0, 0),
        };
        for arg in &remark.args {
            let key = self.string(&arg.key);
            // Callees, callers, and the call sites inlining remarks spell out.
            let value = self.symbol(&arg.value);
            let loc = match &arg.debug_loc {
                Some(DebugLoc { file, line, column }) => {
                    let file = self.string(file);
                    self.locs.intern(&[file, *line, *column], |l| *l)
                }
                None => NONE,
            };
            let id = self.args.intern(&[key, value, loc], |a| *a);
            self.remark_args.push(id);
        }
        if let Some(h) = remark.hotness {
            self.hotness.push((index, h));
        }
        self.remarks.push(PackedRemark {
            kind,
            pass,
            name,
            function,
            file,
            line,
            column,
            nargs: u32::try_from(remark.args.len()).unwrap_or(NONE),
        });
    }

    /// Writes one self-contained HTML file (inline CSS/JS, no network at view time).
    pub fn write(self, out: &mut dyn Write) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        // The template's order: the style, then the data, then the script that reads it.
        let (head, rest) = split(TEMPLATE, "{{css}}")?;
        let (middle, rest) = split(rest, "{{data}}")?;
        let (before_js, tail) = split(rest, "{{js}}")?;
        out.write_all(head.as_bytes())?;
        out.write_all(CSS.as_bytes())?;
        out.write_all(middle.as_bytes())?;
        self.write_data(&mut out)?;
        out.write_all(before_js.as_bytes())?;
        out.write_all(JS.as_bytes())?;
        out.write_all(tail.as_bytes())?;
        out.flush()
    }

    /// The JSON the page's script reads; report.js documents the layout.
    fn write_data(self, out: &mut dyn Write) -> io::Result<()> {
        let mut n = json::Numbers::default();
        let HtmlReport {
            source_root,
            strings,
            locs,
            args,
            remarks,
            remark_args,
            hotness,
            shown,
        } = self;
        let locs = locs.into_table();
        let args = args.into_table();

        // Every file a location names, whether from a remark or an argument, with how many
        // remarks are in it (which decides whose source fits in the budget).
        let mut remarks_in: Vec<Option<u32>> = vec![None; strings.len()];
        for l in &locs {
            if let Some(slot) = remarks_in.get_mut(l[0] as usize) {
                slot.get_or_insert(0);
            }
        }
        for r in &remarks {
            if let Some(slot) = remarks_in.get_mut(r.file as usize) {
                *slot = Some(slot.unwrap_or(0).saturating_add(1));
            }
        }
        let strings = strings.into_table();
        let embed = source::choose(source_root.as_deref(), &strings, &remarks_in);

        out.write_all(b"{\"version\":1,\"kinds\":[")?;
        for (i, k) in RemarkKind::ALL.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            json::write_str(out, k.tag().trim_start_matches('!'))?;
        }
        out.write_all(b"],\"strings\":[")?;
        for (i, s) in strings.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            json::write_str(out, s)?;
        }
        out.write_all(b"],")?;
        n.write_array(out, "locs", locs.iter().flatten().copied())?;
        out.write_all(b",")?;
        n.write_array(out, "args", args.iter().flatten().copied())?;
        out.write_all(b",")?;
        n.write_array(out, "remarkArgs", remark_args.into_iter())?;
        out.write_all(b",")?;
        let mut shown: Vec<[u32; 2]> = shown.into_iter().map(|(s, d)| [s, d]).collect();
        shown.sort_unstable();
        n.write_array(out, "shown", shown.iter().flatten().copied())?;
        out.write_all(b",\"remarks\":{")?;
        type Field = fn(&PackedRemark) -> u32;
        let fields: [(&str, Field); 8] = [
            ("kind", |r| u32::from(r.kind)),
            ("pass", |r| r.pass),
            ("name", |r| r.name),
            ("function", |r| r.function),
            ("file", |r| r.file),
            ("line", |r| r.line),
            ("column", |r| r.column),
            ("nargs", |r| r.nargs),
        ];
        for (i, (key, field)) in fields.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            n.write_array(out, key, remarks.iter().map(field))?;
        }
        drop(remarks);
        // Hotness is a u64; above 2^53 a JavaScript number would round it, so those are
        // written as strings and shown exactly.
        out.write_all(b"},\"hotness\":[")?;
        for (i, (remark, h)) in hotness.into_iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            n.write_u64(out, u64::from(remark))?;
            out.write_all(b",")?;
            if h <= 1 << 53 {
                n.write_u64(out, h)?;
            } else {
                json::write_str(out, &h.to_string())?;
            }
        }
        // One file at a time, so only one source text is in memory.
        out.write_all(b"],\"files\":[")?;
        for (i, (id, path, source)) in embed.into_iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            out.write_all(b"{\"name\":")?;
            n.write_u64(out, u64::from(id))?;
            out.write_all(b",\"path\":")?;
            json::write_str(out, &path.to_string_lossy())?;
            match source.and_then(|()| source::read(&path)) {
                Ok(text) => {
                    out.write_all(b",\"text\":")?;
                    json::write_str(out, &text)?;
                }
                Err(why) => {
                    out.write_all(b",\"missing\":")?;
                    json::write_str(out, &why)?;
                }
            }
            out.write_all(b"}")?;
        }
        out.write_all(b"]}")
    }
}

fn split<'a>(template: &'a str, marker: &str) -> io::Result<(&'a str, &'a str)> {
    template
        .split_once(marker)
        .ok_or_else(|| io::Error::other(format!("report template lacks {marker}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_has_its_markers_once_and_assets_cannot_end_their_elements() {
        for marker in ["{{css}}", "{{data}}", "{{js}}"] {
            assert_eq!(TEMPLATE.matches(marker).count(), 1, "{marker}");
        }
        assert!(!CSS.to_ascii_lowercase().contains("</style"));
        assert!(!JS.to_ascii_lowercase().contains("</script"));
        assert!(!JS.contains("<!--"));
        // The page builds its DOM from text nodes only.
        assert!(!JS.contains("innerHTML") && !JS.contains("insertAdjacentHTML"));
        assert!(!JS.contains("document.write") && !JS.contains("eval("));
    }

    #[test]
    fn interning_shares_repeated_values() {
        let mut report = HtmlReport::new(None);
        let remark = crate::dead_function_remark(
            "f",
            Some(DebugLoc {
                file: "a.c".into(),
                line: 3,
                column: 1,
            }),
        );
        for _ in 0..1000 {
            report.add(&remark);
        }
        assert_eq!(report.len(), 1000);
        // lto, deadfunction, f, a.c, Function, String, the message.
        assert_eq!(report.strings.len(), 7);
        assert_eq!(report.args.len(), 2);
        assert_eq!(report.locs.len(), 1);
        assert_eq!(report.remark_args.len(), 2000);
    }

    #[test]
    fn rust_symbols_get_their_paths_once() {
        let run = "_ZN10remarks_rs3run17h05813c08e676a53cE";
        let mut report = HtmlReport::new(None);
        for _ in 0..3 {
            report.add(&crate::dead_function_remark(run, None));
            report.add(&crate::dead_function_remark("c_entry", None));
        }
        // The symbol (function and `Function` argument) has one path; C names have none.
        assert_eq!(report.shown.len(), 1);
        let strings = std::mem::replace(&mut report.strings, Interner::new()).into_table();
        let (&symbol, &path) = report.shown.iter().next().unwrap();
        assert_eq!(&*strings[symbol as usize], run);
        assert_eq!(&*strings[path as usize], "remarks_rs::run");
    }
}
