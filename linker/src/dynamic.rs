//! The dynamic linking tables: .dynsym order, .dynstr, symbol versions (.gnu.version,
//! .gnu.version_r), the two hash tables, and the .dynamic array.
//!
//! Everything that does not depend on addresses is built before layout (so sizes are known);
//! .dynsym values and .dynamic entries are written afterwards.

use crate::context::Link;
use crate::image::Image;
use crate::output_section::{OutputId, Synthetic};
use crate::symbols::{base_name, SymbolDef, SymbolId};
use crate::tables::Tables;
use object::elf::*;
use rustc_hash::FxHashMap;

#[derive(Default)]
pub struct DynamicTables {
    pub dynstr: Vec<u8>,
    strings: FxHashMap<Vec<u8>, u32>,
    /// Symbol ids in .dynsym order (index 0, the null symbol, not included).
    pub symbols: Vec<u32>,
    /// Index of the first symbol covered by .gnu.hash (the defined ones).
    pub gnu_hash_offset: usize,
    pub versym: Vec<u16>,
    pub verneed: Vec<u8>,
    pub verneed_count: u32,
    /// `.gnu.version_d` (from a version script) and its entry count.
    pub verdef: Vec<u8>,
    pub verdef_count: u32,
    pub gnu_hash: Vec<u8>,
    pub sysv_hash: Vec<u8>,
    pub needed: Vec<u32>,
    pub soname: Option<u32>,
    pub runpath: Option<u32>,
    /// `--filter` and `--auxiliary` names (DT_FILTER, DT_AUXILIARY), in command-line order,
    /// then DT_AUDIT and DT_DEPAUDIT.
    pub filters: Vec<(u32, u32)>,
}

impl DynamicTables {
    pub fn add_string(&mut self, s: &[u8]) -> u32 {
        if self.dynstr.is_empty() {
            self.dynstr.push(0);
        }
        // The empty string is the table's first byte, not a second NUL of its own.
        if s.is_empty() {
            return 0;
        }
        if let Some(&off) = self.strings.get(s) {
            return off;
        }
        let off = self.dynstr.len() as u32;
        self.dynstr.extend_from_slice(s);
        self.dynstr.push(0);
        self.strings.insert(s.to_vec(), off);
        off
    }

    pub fn string_offset(&self, s: &[u8]) -> u32 {
        self.strings.get(s).copied().unwrap_or(0)
    }

    /// Number of .dynsym entries including the null symbol.
    pub fn symbol_count(&self) -> usize {
        self.symbols.len() + 1
    }
}

pub fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| {
        h.wrapping_mul(33).wrapping_add(u32::from(c))
    })
}

pub fn sysv_hash(name: &[u8]) -> u32 {
    let mut h = 0u32;
    for &c in name {
        h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
        }
        h &= !g;
    }
    h
}

/// Chooses .dynsym's contents and order and builds the address-free tables.
pub fn build_dynamic_tables(link: &Link, tables: &Tables) -> DynamicTables {
    let mut t = DynamicTables::default();
    t.add_string(b"");
    let opts = link.opts;

    // Undefined symbols first: .gnu.hash covers only the defined tail of .dynsym.
    let mut undefined = Vec::new();
    let mut defined = Vec::new();
    for id in link.symtab.in_lld_order_where(|sym| sym.in_dynsym) {
        let sym = link.symtab.get(id);
        // Names in the order the symbols were first seen, as lld adds them (before it sorts
        // `.dynsym` for the hash table).
        t.add_string(base_name(sym.name));
        // Copied data and canonical PLT entries are the executable's definitions: the
        // loader must find them through the hash table to bind other modules to them.
        let is_def = sym.is_defined_locally()
            || tables.copies.slots.contains_key(&id)
            || tables.plt.canonical.contains(&id);
        if is_def {
            defined.push(id);
        } else {
            undefined.push(id);
        }
    }
    let nbuckets = (defined.len() / 4).max(1) as u32;
    // By bucket, in lld's order within one (a stable sort).
    defined.sort_by_key(|&id| gnu_hash(base_name(link.symtab.get(id).name)) % nbuckets);
    t.gnu_hash_offset = undefined.len() + 1;
    t.symbols = undefined;
    t.symbols.extend_from_slice(&defined);

    build_versions(link, tables, &mut t);
    // The strings of `.dynamic` last, as lld adds them (symbol names first, then versions).
    add_dynamic_strings(link, &mut t);
    if opts.hash_style.gnu {
        t.gnu_hash = build_gnu_hash(link, &t, nbuckets);
    }
    if opts.hash_style.sysv {
        t.sysv_hash = build_sysv_hash(link, &t);
    }
    t
}

/// The strings `.dynamic` names, in lld's order: filters and audit libraries, DT_RUNPATH,
/// DT_NEEDED (in command-line order, for libraries something uses), DT_SONAME.
fn add_dynamic_strings(link: &Link, t: &mut DynamicTables) {
    let opts = link.opts;
    for (tag, name) in &opts.filters {
        let off = t.add_string(name.as_bytes());
        t.filters.push((*tag, off));
    }
    for (tag, libs) in [(DT_AUDIT, &opts.audit), (DT_DEPAUDIT, &opts.depaudit)] {
        if !libs.is_empty() {
            let off = t.add_string(libs.join(":").as_bytes());
            t.filters.push((tag, off));
        }
    }
    if !opts.rpath.is_empty() {
        t.runpath = Some(t.add_string(opts.rpath.join(":").as_bytes()));
    }
    for dso in &link.dsos {
        if dso.needed {
            let off = t.add_string(dso.soname.as_bytes());
            if !t.needed.contains(&off) {
                t.needed.push(off);
            }
        }
    }
    if let Some(soname) = &opts.soname {
        t.soname = Some(t.add_string(soname.as_bytes()));
    }
}

/// A version a library must provide, as `.gnu.version_r` lists it.
#[derive(Clone, Copy)]
struct NeededVersion {
    name: &'static [u8],
    hash: u32,
    /// Its index in the output's `.gnu.version` (by first use).
    index: u16,
    /// Its index in the library: the order the library's versions are listed in (lld's).
    order: u16,
}

fn build_versions(link: &Link, tables: &Tables, t: &mut DynamicTables) {
    // Version names needed from each library, in first-use order; index 2 upwards.
    let mut per_dso: Vec<Vec<NeededVersion>> = vec![Vec::new(); link.dsos.len()];
    // A version script's own versions come first (2..); needed versions follow them.
    let script = link.version_script.as_ref();
    let defined_versions = script.map_or(0, |s| s.named_nodes().count()) as u16;
    if let Some(s) = script {
        build_verdef(link, s, t);
    }
    let mut next_index = 2 + defined_versions;
    let mut versym = vec![0u16];
    let mut any = script.is_some();
    for &id in &t.symbols {
        let sym = link.symtab.get(id);
        // A symbol nothing defines (a weak reference left unresolved, or one a shared
        // library may leave for the loader) is VER_NDX_LOCAL, as lld writes it (GNU ld:
        // VER_NDX_GLOBAL); the loader reads neither for a reference without a version.
        let mut v = if matches!(sym.def, SymbolDef::Undefined | SymbolDef::Lazy { .. }) {
            VER_NDX_LOCAL
        } else {
            VER_NDX_GLOBAL
        };
        if let (Some(s), true) = (script, sym.is_defined_locally()) {
            // A `.symver` version names its node; otherwise the script's pattern decides.
            if let Some(explicit) = sym.version.as_deref() {
                if let Some(index) = s.node_index(explicit.name) {
                    v = index | if explicit.hidden { VERSYM_HIDDEN } else { 0 };
                }
            } else if let crate::version_script::Assignment::Global(node) = s.assign(sym.name) {
                v = s.version_index(node);
            }
        }
        if let SymbolDef::Shared { dso, index } = sym.def {
            let s = &link.dsos[dso as usize].symbols[index as usize];
            if let (Some(name), true) = (s.version, link.dsos[dso as usize].needed) {
                let list = &mut per_dso[dso as usize];
                v = match list.iter().find(|e| e.name == name) {
                    Some(e) => e.index,
                    None => {
                        list.push(NeededVersion {
                            name,
                            hash: s.version_hash,
                            index: next_index,
                            order: s.version_index,
                        });
                        next_index += 1;
                        next_index - 1
                    }
                };
                any = true;
            }
        }
        versym.push(v);
    }
    if !tables.relr.is_empty() && !link.opts.android_relr_tags {
        // glibc loads a DT_RELR object only if it depends on this version (as GNU ld and
        // lld add it): on the needed library that defines it. Not for Android's tags, which
        // only bionic reads (and its libc defines no such version).
        let relr_dso = (0..link.dsos.len())
            .find(|&d| link.dsos[d].needed && link.dsos[d].dt_relr_version.is_some());
        if let Some(d) = relr_dso {
            const NAME: &[u8] = b"GLIBC_ABI_DT_RELR";
            if !per_dso[d].iter().any(|e| e.name == NAME) {
                let hash = link.dsos[d].dt_relr_version.unwrap_or_default();
                per_dso[d].push(NeededVersion {
                    name: NAME,
                    hash,
                    index: next_index,
                    order: u16::MAX,
                });
            }
            any = true;
        }
    }
    if !any {
        // Without versioned references the tables add nothing; leave them out like lld.
        t.versym = Vec::new();
        return;
    }
    t.versym = versym;
    let dsos: Vec<usize> = (0..link.dsos.len())
        .filter(|&d| !per_dso[d].is_empty())
        .collect();
    // Every library's entry first, then every version's (lld's layout; GNU ld puts each
    // library's versions right after its entry).
    let mut aux = Vec::new();
    let mut aux_before = 0u32;
    for (n, &d) in dsos.iter().enumerate() {
        let file = t.add_string(link.dsos[d].soname.as_bytes());
        // In the library's own order of its versions (lld's), each keeping the index its
        // first use gave it.
        let mut list = std::mem::take(&mut per_dso[d]);
        list.sort_by_key(|e| e.order);
        let is_last = n + 1 == dsos.len();
        let entries_after = (dsos.len() - n) as u32;
        push_u16(&mut t.verneed, 1);
        push_u16(&mut t.verneed, list.len() as u16);
        push_u32(&mut t.verneed, file);
        push_u32(&mut t.verneed, 16 * (entries_after + aux_before));
        push_u32(&mut t.verneed, if is_last { 0 } else { 16 });
        for (i, e) in list.iter().enumerate() {
            let name_off = t.add_string(e.name);
            push_u32(&mut aux, e.hash);
            push_u16(&mut aux, 0);
            push_u16(&mut aux, e.index);
            push_u32(&mut aux, name_off);
            push_u32(&mut aux, if i + 1 == list.len() { 0 } else { 16 });
        }
        aux_before += list.len() as u32;
    }
    t.verneed.extend_from_slice(&aux);
    t.verneed_count = dsos.len() as u32;
}

/// `.gnu.version_d`: the base version (the library's own name), then each named node of the
/// version script with its parent.
fn build_verdef(link: &Link, script: &crate::version_script::VersionScript, t: &mut DynamicTables) {
    let base = link.opts.soname.clone().unwrap_or_else(|| {
        link.opts
            .output
            .file_name()
            .map_or_else(|| "a.out".into(), |n| n.to_string_lossy().into_owned())
    });
    let mut entries: Vec<(String, Option<String>, u16, u16)> = vec![(base, None, 1, VER_FLG_BASE)];
    for (i, node) in script.named_nodes().enumerate() {
        entries.push((node.name.clone(), node.parent.clone(), 2 + i as u16, 0));
    }
    let count = entries.len();
    for (n, (name, parent, index, flags)) in entries.into_iter().enumerate() {
        let aux_count = 1 + u16::from(parent.is_some());
        let size = 20 + 8 * u32::from(aux_count);
        push_u16(&mut t.verdef, 1);
        push_u16(&mut t.verdef, flags);
        push_u16(&mut t.verdef, index);
        push_u16(&mut t.verdef, aux_count);
        push_u32(&mut t.verdef, sysv_hash(name.as_bytes()));
        push_u32(&mut t.verdef, 20);
        push_u32(&mut t.verdef, if n + 1 == count { 0 } else { size });
        let name_off = t.add_string(name.as_bytes());
        push_u32(&mut t.verdef, name_off);
        push_u32(&mut t.verdef, if parent.is_some() { 8 } else { 0 });
        if let Some(p) = parent {
            let off = t.add_string(p.as_bytes());
            push_u32(&mut t.verdef, off);
            push_u32(&mut t.verdef, 0);
        }
    }
    t.verdef_count = count as u32;
}

fn build_gnu_hash(link: &Link, t: &DynamicTables, nbuckets: u32) -> Vec<u8> {
    let defined = &t.symbols[t.gnu_hash_offset - 1..];
    let hashes: Vec<u32> = defined
        .iter()
        .map(|&id| gnu_hash(base_name(link.symtab.get(id).name)))
        .collect();
    const SHIFT: u32 = 26;
    // 12 bits per symbol, rounded to the power of two above, as lld sizes it.
    let bloom_words = (defined.len() * 12 / 64 + 1).next_power_of_two();
    let mut bloom = vec![0u64; bloom_words];
    for &h in &hashes {
        let word = (h as usize / 64) % bloom_words;
        bloom[word] |= (1u64 << (h % 64)) | (1u64 << ((h >> SHIFT) % 64));
    }
    let mut buckets = vec![0u32; nbuckets as usize];
    let mut chains = vec![0u32; hashes.len()];
    for (i, &h) in hashes.iter().enumerate() {
        let b = (h % nbuckets) as usize;
        if buckets[b] == 0 {
            buckets[b] = (t.gnu_hash_offset + i) as u32;
        }
        let last_in_bucket = hashes
            .get(i + 1)
            .is_none_or(|&n| n % nbuckets != h % nbuckets);
        chains[i] = (h & !1) | u32::from(last_in_bucket);
    }
    let mut out = Vec::new();
    push_u32(&mut out, nbuckets);
    push_u32(&mut out, t.gnu_hash_offset as u32);
    push_u32(&mut out, bloom_words as u32);
    push_u32(&mut out, SHIFT);
    for w in bloom {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for b in buckets {
        push_u32(&mut out, b);
    }
    for c in chains {
        push_u32(&mut out, c);
    }
    out
}

fn build_sysv_hash(link: &Link, t: &DynamicTables) -> Vec<u8> {
    let nchain = t.symbol_count() as u32;
    let nbucket = nchain.max(1);
    let mut buckets = vec![0u32; nbucket as usize];
    let mut chains = vec![0u32; nchain as usize];
    for (i, &id) in t.symbols.iter().enumerate() {
        let index = (i + 1) as u32;
        let b = (sysv_hash(base_name(link.symtab.get(id).name)) % nbucket) as usize;
        chains[index as usize] = buckets[b];
        buckets[b] = index;
    }
    let mut out = Vec::new();
    push_u32(&mut out, nbucket);
    push_u32(&mut out, nchain);
    for b in buckets {
        push_u32(&mut out, b);
    }
    for c in chains {
        push_u32(&mut out, c);
    }
    out
}

pub fn push_u16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}

pub fn push_u32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

/// A `.dynamic` entry's value: a number known once the dynamic tables are, or one the
/// layout decides.
#[derive(Debug, Clone, Copy)]
enum DynValue {
    Number(u64),
    /// An output section's address.
    Address(OutputId),
    /// The address of one of the linker's own sections.
    Synthetic(Synthetic),
    /// A symbol's address.
    Symbol(SymbolId),
    /// The size of `.relr.dyn`'s encoding.
    RelrSize,
    /// The size of `.rela.dyn`'s Android encoding.
    AndroidRelaSize,
}

/// The .dynamic entries, in the order they are written, with final addresses.
pub fn dynamic_entries(link: &Image, t: &DynamicTables) -> Vec<(i64, u64)> {
    dynamic_tags(link, link.tables, t)
        .into_iter()
        .map(|(tag, value)| {
            let value = match value {
                DynValue::Number(n) => n,
                DynValue::Address(id) => link.segments.sections.of_id(id).addr,
                DynValue::Synthetic(which) => link.synthetic_addr(which),
                DynValue::Symbol(id) => link.sym_addr.get(id as usize).copied().unwrap_or(0),
                DynValue::RelrSize => crate::relr::encoded_size(link),
                DynValue::AndroidRelaSize => link.contents.android_rela.len() as u64,
            };
            (tag, value)
        })
        .collect()
}

/// Number of .dynamic entries, known before addresses are.
pub fn dynamic_entry_count(link: &Link, tables: &Tables, t: &DynamicTables) -> usize {
    dynamic_tags(link, tables, t).len()
}

/// The .dynamic entries, in the order they are written (lld's), each with what its value is.
fn dynamic_tags(link: &Link, tables: &Tables, t: &DynamicTables) -> Vec<(i64, DynValue)> {
    use DynValue::{Number, Symbol};
    let opts = link.opts;
    let mut d: Vec<(i64, DynValue)> = Vec::new();
    for &(tag, name) in &t.filters {
        d.push((i64::from(tag), Number(u64::from(name))));
    }
    if let Some(r) = t.runpath {
        let tag = if opts.new_dtags { DT_RUNPATH } else { DT_RPATH };
        d.push((i64::from(tag), Number(u64::from(r))));
    }
    for &n in &t.needed {
        d.push((i64::from(DT_NEEDED), Number(u64::from(n))));
    }
    if let Some(s) = t.soname {
        d.push((i64::from(DT_SONAME), Number(u64::from(s))));
    }
    let (flags, flags_1) = dynamic_flags(link, tables);
    if flags != 0 {
        d.push((i64::from(DT_FLAGS), Number(flags)));
    }
    if flags_1 != 0 {
        d.push((i64::from(DT_FLAGS_1), Number(flags_1)));
    }
    if !opts.is_shared() && !opts.z_rodynamic {
        d.push((i64::from(DT_DEBUG), Number(0)));
    }
    if tables.rela_dyn_count() > 0 && opts.android_packed_relocs {
        use crate::android_relocs::{DT_ANDROID_RELA, DT_ANDROID_RELASZ};
        d.push((
            i64::from(DT_ANDROID_RELA),
            DynValue::Synthetic(Synthetic::RelaDyn),
        ));
        d.push((i64::from(DT_ANDROID_RELASZ), DynValue::AndroidRelaSize));
        d.push((i64::from(DT_RELAENT), Number(24)));
    } else if tables.rela_dyn_count() > 0 {
        d.push((i64::from(DT_RELA), DynValue::Synthetic(Synthetic::RelaDyn)));
        d.push((
            i64::from(DT_RELASZ),
            Number(24 * tables.rela_dyn_count() as u64),
        ));
        d.push((i64::from(DT_RELAENT), Number(24)));
        let relative = tables.relative_count();
        if relative > 0 {
            d.push((i64::from(DT_RELACOUNT), Number(relative as u64)));
        }
    }
    if !tables.relr.is_empty() {
        use crate::relr::*;
        let [relr, relrsz, relrent] = if link.opts.android_relr_tags {
            [DT_ANDROID_RELR, DT_ANDROID_RELRSZ, DT_ANDROID_RELRENT]
        } else {
            [DT_RELR, DT_RELRSZ, DT_RELRENT]
        };
        d.push((i64::from(relr), DynValue::Synthetic(Synthetic::RelrDyn)));
        d.push((i64::from(relrsz), DynValue::RelrSize));
        d.push((i64::from(relrent), Number(8)));
    }
    let plt_relocs = tables.rela_plt.len() + tables.plt.iplt.len();
    if plt_relocs > 0 {
        d.push((
            i64::from(DT_JMPREL),
            DynValue::Synthetic(Synthetic::RelaPlt),
        ));
        d.push((i64::from(DT_PLTRELSZ), Number(24 * plt_relocs as u64)));
        // Only beside PLT relocations, as lld (GNU ld: with a PLT): without them the
        // loader has no use for `.got.plt`'s reserved slots.
        if link.outputs.has_synthetic(Synthetic::GotPlt) {
            d.push((i64::from(DT_PLTGOT), DynValue::Synthetic(Synthetic::GotPlt)));
        }
        d.push((i64::from(DT_PLTREL), Number(u64::from(DT_RELA))));
    }
    d.push((i64::from(DT_SYMTAB), DynValue::Synthetic(Synthetic::DynSym)));
    d.push((i64::from(DT_SYMENT), Number(24)));
    d.push((i64::from(DT_STRTAB), DynValue::Synthetic(Synthetic::DynStr)));
    d.push((i64::from(DT_STRSZ), Number(t.dynstr.len() as u64)));
    if tables.needs_textrel {
        d.push((i64::from(DT_TEXTREL), Number(0)));
    }
    if link.outputs.has_synthetic(Synthetic::GnuHash) {
        d.push((
            i64::from(DT_GNU_HASH),
            DynValue::Synthetic(Synthetic::GnuHash),
        ));
    }
    if link.outputs.has_synthetic(Synthetic::SysvHash) {
        d.push((i64::from(DT_HASH), DynValue::Synthetic(Synthetic::SysvHash)));
    }
    let section = |name: &str| link.outputs.iter().find(|o| o.name == name && o.size > 0);
    if let Some(s) = section(".preinit_array") {
        d.push((i64::from(DT_PREINIT_ARRAY), DynValue::Address(s.id)));
        d.push((i64::from(DT_PREINIT_ARRAYSZ), Number(s.size)));
    }
    if let Some(s) = section(".init_array") {
        d.push((i64::from(DT_INIT_ARRAY), DynValue::Address(s.id)));
        d.push((i64::from(DT_INIT_ARRAYSZ), Number(s.size)));
    }
    if let Some(s) = section(".fini_array") {
        d.push((i64::from(DT_FINI_ARRAY), DynValue::Address(s.id)));
        d.push((i64::from(DT_FINI_ARRAYSZ), Number(s.size)));
    }
    for (name, tag) in [(&opts.init, DT_INIT), (&opts.fini, DT_FINI)] {
        if let Some(id) = link.symtab.lookup(name.as_bytes()) {
            if matches!(link.symtab.get(id).def, SymbolDef::Defined { .. }) {
                d.push((i64::from(tag), Symbol(id)));
            }
        }
    }
    if !t.versym.is_empty() {
        d.push((
            i64::from(DT_VERSYM),
            DynValue::Synthetic(Synthetic::GnuVersion),
        ));
    }
    if t.verdef_count > 0 {
        d.push((
            i64::from(DT_VERDEF),
            DynValue::Synthetic(Synthetic::GnuVersionD),
        ));
        d.push((i64::from(DT_VERDEFNUM), Number(u64::from(t.verdef_count))));
    }
    if t.verneed_count > 0 {
        d.push((
            i64::from(DT_VERNEED),
            DynValue::Synthetic(Synthetic::GnuVersionR),
        ));
        d.push((i64::from(DT_VERNEEDNUM), Number(u64::from(t.verneed_count))));
    }
    // The end: one empty entry, or `--spare-dynamic-tags` of them for tools that add tags
    // to a linked file (GNU ld's count, the terminator among them; but never none, which
    // would leave the loader reading past the table).
    for _ in 0..link.opts.spare_dynamic_tags.max(1) {
        d.push((i64::from(DT_NULL), Number(0)));
    }
    d
}

/// DT_FLAGS and DT_FLAGS_1.
fn dynamic_flags(link: &Link, tables: &Tables) -> (u64, u64) {
    let opts = link.opts;
    let mut flags = 0u64;
    let mut flags_1 = 0u64;
    if opts.z_now {
        flags |= u64::from(DF_BIND_NOW);
        flags_1 |= u64::from(DF_1_NOW);
    }
    if tables.needs_textrel {
        flags |= u64::from(DF_TEXTREL);
    }
    if opts.is_shared() && has_static_tls(tables) {
        flags |= u64::from(DF_STATIC_TLS);
    }
    if opts.kind == crate::options::OutputKind::Pie {
        flags_1 |= u64::from(DF_1_PIE);
    }
    if opts.symbolic == crate::options::Symbolic::All {
        // As lld and GNU ld mark a -Bsymbolic output: the dynamic loader looks in the object
        // itself first for what it refers to.
        flags |= u64::from(DF_SYMBOLIC);
    }
    if opts.z_origin {
        flags |= u64::from(DF_ORIGIN);
        flags_1 |= u64::from(DF_1_ORIGIN);
    }
    if opts.z_nodelete {
        flags_1 |= u64::from(DF_1_NODELETE);
    }
    if opts.z_nodlopen {
        flags_1 |= u64::from(DF_1_NOOPEN);
    }
    flags_1 |= u64::from(opts.z_flags_1);
    (flags, flags_1)
}

/// A shared library using initial-exec TLS must say so (DF_STATIC_TLS).
fn has_static_tls(tables: &Tables) -> bool {
    tables
        .got
        .entries
        .iter()
        .any(|(k, _, _)| *k == crate::context::GotKind::TlsIe)
}
