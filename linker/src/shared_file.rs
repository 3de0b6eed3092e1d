//! A shared library input: the symbols it defines (with their versions), the symbols it
//! leaves undefined (which the output must then export), and the name it is needed by.

use crate::error::{LinkError, Result};
use crate::object_file::{read_str, LE};
use object::elf;
use object::read::elf::{Dyn as _, FileHeader, SectionHeader, Sym as _};

/// Index of a shared library in the link (`Link::dsos`).
pub type DsoId = u32;

pub struct SharedSymbol {
    pub name: &'static [u8],
    pub value: u64,
    pub size: u64,
    pub sym_type: u8,
    pub bind: u8,
    /// The library's own visibility of the symbol: a protected one cannot be preempted by
    /// a copy in the executable.
    pub visibility: u8,
    /// Version name (`GLIBC_2.2.5`) when the library versions this symbol (index >= 2).
    pub version: Option<&'static [u8]>,
    pub version_hash: u32,
    /// The version's index in the library (`.gnu.version`'s value, without the hidden
    /// bit): `.gnu.version_r` lists a library's needed versions in this order, as lld does.
    pub version_index: u16,
    pub is_undefined: bool,
    /// A non-default version (`foo@VER`): it binds only references naming that version.
    pub hidden: bool,
    /// For an undefined symbol, the version the library needs it in (`.gnu.version_r`).
    pub needed_version: Option<&'static [u8]>,
    /// Defined in memory the library keeps read-only (a segment without write permission,
    /// or its RELRO range): a copy of it goes to RELRO memory too (lld's rule).
    pub read_only: bool,
    /// The alignment a copy of it keeps: what both its address and its section's
    /// alignment guarantee (lld's rule; 0 when neither says anything).
    pub copy_align: u64,
}

pub struct SharedFile {
    pub name: String,
    /// What DT_NEEDED records: DT_SONAME, or the file name.
    pub soname: String,
    pub symbols: Vec<SharedSymbol>,
    pub as_needed: bool,
    /// Set when a symbol the output uses resolves here (or the library is not `--as-needed`).
    pub needed: bool,
    /// Its own DT_NEEDED entries.
    pub dependencies: Vec<String>,
    /// The hash of version `GLIBC_ABI_DT_RELR` if the library defines it (glibc 2.36 and
    /// later): a program with DT_RELR must depend on it, or glibc refuses to load it.
    pub dt_relr_version: Option<u32>,
}

impl SharedFile {
    pub fn parse(
        name: String,
        default_soname: String,
        data: &'static [u8],
        as_needed: bool,
    ) -> Result<SharedFile> {
        let bad = |msg: String| LinkError::bad_input(&name, msg);
        let header = elf::FileHeader64::<object::LittleEndian>::parse(data)
            .map_err(|e| bad(format!("not a valid ELF64 shared object: {e}")))?;
        if header.e_machine.get(LE) != elf::EM_X86_64 {
            return Err(bad(
                "incompatible machine type (only x86-64 is supported)".into()
            ));
        }
        // The address ranges the library keeps read-only.
        use object::read::elf::ProgramHeader as _;
        let read_only: Vec<(u64, u64)> = header
            .program_headers(LE, data)
            .map_err(|e| bad(format!("bad program headers: {e}")))?
            .iter()
            .filter(|p| {
                matches!(p.p_type(LE), elf::PT_LOAD | elf::PT_GNU_RELRO)
                    && p.p_flags(LE) & elf::PF_W == 0
            })
            .map(|p| (p.p_vaddr(LE), p.p_vaddr(LE).saturating_add(p.p_memsz(LE))))
            .collect();
        let sections = header
            .sections(LE, data)
            .map_err(|e| bad(format!("bad section headers: {e}")))?;
        let dynsym = sections
            .symbols(LE, data, elf::SHT_DYNSYM)
            .map_err(|e| bad(format!("bad .dynsym: {e}")))?;
        let versions = sections
            .versions(LE, data)
            .map_err(|e| bad(format!("bad symbol versions: {e}")))?;
        let dt_relr_version = defined_version(&sections, data, b"GLIBC_ABI_DT_RELR")
            .map_err(|e| bad(format!("bad version definitions: {e}")))?;

        let mut soname = default_soname;
        let mut dependencies = Vec::new();
        if let Some((dyns, link)) = sections
            .dynamic(LE, data)
            .map_err(|e| bad(format!("bad .dynamic: {e}")))?
        {
            let strtab = sections
                .section(link)
                .and_then(|s| s.data(LE, data))
                .map_err(|e| bad(format!("bad dynamic string table: {e}")))?;
            for d in dyns {
                let tag = d.tag32(LE);
                if tag == Some(elf::DT_SONAME) || tag == Some(elf::DT_NEEDED) {
                    let off = u32::try_from(d.d_val(LE)).unwrap_or(u32::MAX);
                    let s = read_str(strtab, off)
                        .ok_or_else(|| bad("bad DT_SONAME or DT_NEEDED".into()))?;
                    let s = String::from_utf8_lossy(s).into_owned();
                    if tag == Some(elf::DT_SONAME) {
                        soname = s;
                    } else {
                        dependencies.push(s);
                    }
                }
            }
        }

        let strings = dynsym.strings();
        let mut symbols = Vec::with_capacity(dynsym.len());
        for (index, sym) in dynsym.enumerate().skip(1) {
            let bind = sym.st_bind();
            if bind == elf::STB_LOCAL {
                continue;
            }
            let name_bytes = sym
                .name(LE, strings)
                .map_err(|_| bad(format!("dynamic symbol {} has a bad name", index.0)))?;
            let mut version = None;
            let mut version_hash = 0;
            let mut version_index = 0;
            let mut hidden = false;
            let mut needed_version = None;
            if let Some(versions) = &versions {
                let vi = versions.version_index(LE, index);
                // Hidden (non-default) versions only satisfy explicitly versioned references.
                hidden = vi.is_hidden() && !sym.is_undefined(LE);
                if vi.index() >= 2 {
                    if let Ok(Some(v)) = versions.version(vi) {
                        if sym.is_undefined(LE) {
                            needed_version = Some(v.name());
                        } else {
                            version = Some(v.name());
                            version_hash = v.hash();
                            version_index = vi.index();
                        }
                    }
                }
            }
            symbols.push(SharedSymbol {
                name: name_bytes,
                value: sym.st_value(LE),
                size: sym.st_size(LE),
                sym_type: sym.st_type(),
                bind,
                visibility: sym.st_visibility(),
                version,
                version_hash,
                version_index,
                is_undefined: sym.is_undefined(LE),
                hidden,
                needed_version,
                read_only: {
                    let v = sym.st_value(LE);
                    read_only.iter().any(|&(lo, hi)| (lo..hi).contains(&v))
                },
                copy_align: {
                    let by_value = match sym.st_value(LE) {
                        0 => u64::MAX,
                        v => 1 << v.trailing_zeros(),
                    };
                    let shndx = usize::from(sym.st_shndx(LE));
                    let by_section = match sections.section(object::SectionIndex(shndx)) {
                        Ok(s) if shndx > 0 => s.sh_addralign(LE),
                        _ => u64::MAX,
                    };
                    let align = by_value.min(by_section);
                    if align > u64::from(u32::MAX) {
                        0
                    } else {
                        align
                    }
                },
            });
        }
        Ok(SharedFile {
            name,
            soname,
            symbols,
            as_needed,
            needed: !as_needed,
            dependencies,
            dt_relr_version,
        })
    }
}

/// The hash of version `name` if the library defines it (`.gnu.version_d`).
fn defined_version(
    sections: &object::read::elf::SectionTable<elf::FileHeader64<object::LittleEndian>>,
    data: &'static [u8],
    name: &[u8],
) -> object::read::Result<Option<u32>> {
    let Some((mut defs, link)) = sections.gnu_verdef(LE, data)? else {
        return Ok(None);
    };
    let strings = sections.strings(LE, data, link)?;
    while let Some((def, mut aux)) = defs.next()? {
        // The first auxiliary entry names the version itself; later ones its parents.
        if let Some(first) = aux.next()? {
            if first.name(LE, strings)? == name {
                return Ok(Some(def.vd_hash.get(LE)));
            }
        }
    }
    Ok(None)
}
