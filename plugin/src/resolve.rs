//! The host's resolutions (`LDPR_*`) turned into the facts rld's own symbol resolution feeds
//! the LTO driver: which bitcode definition prevails, whether regular objects see it,
//! whether the output exports it. Same facts, same analyses, whichever linker resolved.

use crate::claim::ClaimedModule;
use crate::host::HostApi;
use rld_lto_driver::{Host, SymbolFacts};
use rld_plugin_api as api;
use rld_summaries::{GlobalFlags, GlobalId, Visibility};
use std::collections::HashMap;

/// The resolved link, as the driver asks about it.
pub struct Resolved<'a> {
    symbols: HashMap<String, SymbolFacts>,
    host: &'a HostApi,
}

/// Asks the host how it resolved the symbols of each claimed module. Returns, per module,
/// whether the link uses it (`get_symbols_v3` says `NO_SYMS` for an archive member it
/// claimed but never needed) and the resolutions.
pub fn host_resolutions(
    host: &HostApi,
    modules: &mut [ClaimedModule],
) -> Result<Vec<Option<Vec<api::Resolution>>>, String> {
    let get = host
        .get_symbols_v3
        .or(host.get_symbols_v2)
        .or(host.get_symbols)
        .ok_or("the linker offers no get_symbols")?;
    modules
        .iter_mut()
        .map(|m| {
            let syms = &mut m.host_symbols;
            // SAFETY: the host fills the `resolution` of the symbols we pass, as many as
            // we say; the handle is the one it gave for this file.
            let status = unsafe {
                get(
                    m.handle as *const std::ffi::c_void,
                    syms.symbols.len() as std::ffi::c_int,
                    syms.symbols.as_mut_ptr(),
                )
            };
            match status {
                api::Status::OK => Ok(Some(
                    syms.symbols
                        .iter()
                        .map(|s| api::Resolution(s.resolution))
                        .collect(),
                )),
                api::Status::NO_SYMS => Ok(None),
                s => Err(format!("{}: get_symbols failed (status {})", m.name, s.0)),
            }
        })
        .collect()
}

impl<'a> Resolved<'a> {
    /// The facts of every symbol the used modules report, module `i` of `modules` being
    /// module `i` of the driver's index.
    pub fn new(
        host: &'a HostApi,
        modules: &[(&ClaimedModule, &[api::Resolution])],
        shared: bool,
    ) -> Resolved<'a> {
        let mut symbols: HashMap<String, SymbolFacts> = HashMap::new();
        // LLVMgold's `CanOmitFromDynSym`: every claimed module's symbol of the name is a
        // definition LLVM may leave out of the symbol table (a reference from IR counts
        // against it).
        let mut can_omit: HashMap<&str, bool> = HashMap::new();
        for (module, _) in modules {
            for &index in &module.reported {
                let g = &module.summary.globals[index as usize];
                let omittable = !g.is_declaration() && g.flags.contains(GlobalFlags::CAN_OMIT);
                *can_omit.entry(g.name.as_str()).or_insert(true) &= omittable;
            }
        }
        for (m, (module, resolutions)) in modules.iter().enumerate() {
            for (&index, &r) in module.reported.iter().zip(resolutions.iter()) {
                let g = &module.summary.globals[index as usize];
                let facts = symbols.entry(g.name.clone()).or_insert(SymbolFacts {
                    prevailing: None,
                    native_ref: false,
                    in_dynsym: false,
                    exported: false,
                    dso_ref: false,
                    preemptible: false,
                    default_visibility: true,
                });
                facts.default_visibility &= g.visibility == Visibility::Default;
                let id = GlobalId {
                    module: m as u32,
                    index,
                };
                match r {
                    // Regular objects (or the dynamic symbol table) need it as it is.
                    api::Resolution::PREVAILING_DEF => {
                        facts.prevailing = Some(id);
                        facts.native_ref = true;
                    }
                    api::Resolution::PREVAILING_DEF_IRONLY => facts.prevailing = Some(id),
                    // Exported because a shared library exports everything: not what every
                    // module that needs it has its own copy of, which LLVMgold lets LTO
                    // internalize. (In an executable the host says the same of what a
                    // shared library references, which must stay: that is kept.)
                    api::Resolution::PREVAILING_DEF_IRONLY_EXP => {
                        facts.prevailing = Some(id);
                        let omit = shared && can_omit.get(g.name.as_str()) == Some(&true);
                        facts.exported = !omit;
                        facts.in_dynsym = !omit;
                    }
                    // A reference the host bound to a shared library's definition.
                    api::Resolution::RESOLVED_DYN => facts.dso_ref = true,
                    _ => {}
                }
            }
        }
        for facts in symbols.values_mut() {
            // In a shared library, an exported default-visibility definition can be
            // interposed at run time (the host knows no -Bsymbolic to tell otherwise).
            facts.preemptible = shared
                && facts.default_visibility
                && facts.prevailing.is_some()
                && (facts.exported || facts.native_ref);
        }
        Resolved { symbols, host }
    }
}

impl Host for Resolved<'_> {
    fn symbol(&self, name: &[u8]) -> Option<SymbolFacts> {
        self.symbols.get(std::str::from_utf8(name).ok()?).copied()
    }

    /// The host does not say whether regular objects use `__start_`/`__stop_` symbols:
    /// every section that can have them keeps its globals.
    fn section_bounds_referenced(&self, _section: &str) -> bool {
        true
    }

    fn warning(&self, msg: &str) {
        self.host.message(api::Level::WARNING, msg);
    }

    fn note(&self, msg: &str) {
        self.host.message(api::Level::INFO, msg);
    }
}
