//! rld as a host of gold-API linker plugins (`-plugin LIB`): gcc passes its
//! `liblto_plugin.so` on every link, and `gcc -flto` objects hold only GCC's IR, which that
//! plugin compiles. The host offers such files to the plugin's claim-file hook, takes the
//! symbols it reports into resolution, answers `get_symbols` with the resolution (`LDPR_*`),
//! calls all-symbols-read, and links the objects the plugin adds.
//!
//! LLVM bitcode is not offered: rld's own LTO reads it (`LLVMgold.so` is never loaded). A
//! plugin is loaded when the first file it could claim turns up, so the links gcc makes
//! without `-flto` never load it.

mod callbacks;

use crate::error::{LinkError, Result};
use callbacks::{handle_of, with_state, Hooks, OfferedFile};
use rld_plugin_api as api;
use std::ffi::{c_int, CString};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// `-plugin LIB` with the `-plugin-opt=` options that followed it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginArg {
    pub path: PathBuf,
    pub options: Vec<String>,
}

/// A symbol a plugin reported for a file it claimed (owned: the plugin's memory is its own).
#[derive(Debug, Clone)]
pub struct PluginSymbol {
    pub name: String,
    pub version: Option<String>,
    pub comdat_key: Option<String>,
    pub kind: api::SymbolKind,
    pub symbol_type: api::SymbolType,
    pub visibility: api::Visibility,
    pub size: u64,
}

impl PluginSymbol {
    pub fn is_definition(&self) -> bool {
        matches!(
            self.kind,
            api::SymbolKind::DEF | api::SymbolKind::WEAKDEF | api::SymbolKind::COMMON
        )
    }
}

/// A file a plugin claimed: its handle and the symbols it stands for.
pub struct ClaimedFile {
    pub handle: usize,
    pub symbols: Vec<PluginSymbol>,
}

/// A file offered to the plugins: `path` is what the plugin opens (an archive for a
/// member, which starts at `offset`), `data` the file's bytes.
pub struct Offer<'a> {
    pub path: &'a Path,
    pub offset: u64,
    pub data: &'static [u8],
}

/// What a plugin handed back from all-symbols-read.
#[derive(Debug, Default)]
pub struct PluginOutputs {
    /// Objects to link in place of the claimed files (`add_input_file`).
    pub files: Vec<PathBuf>,
    /// `-lNAME` libraries to search (`add_input_library`).
    pub libraries: Vec<String>,
    /// Directories to search them in first (`set_extra_library_path`).
    pub library_paths: Vec<PathBuf>,
}

/// The plugins of this link, loaded on first use.
pub struct PluginHost {
    args: Vec<PluginArg>,
    output_type: api::OutputType,
    output_name: CString,
    loaded: bool,
}

impl PluginHost {
    /// Plugins load on first use, but a missing one is an error at once, as in GNU ld.
    pub fn new(
        args: Vec<PluginArg>,
        output_type: api::OutputType,
        output: &Path,
    ) -> Result<PluginHost> {
        if let Some(missing) = args.iter().find(|a| !a.path.is_file()) {
            return Err(LinkError::Link(format!(
                "cannot load plugin {}: no such file",
                missing.path.display()
            )));
        }
        Ok(PluginHost {
            args,
            output_type,
            output_name: CString::new(output.as_os_str().as_encoded_bytes()).unwrap_or_default(),
            loaded: false,
        })
    }

    /// Loads every plugin: `dlopen`, then `onload` with the transfer vector.
    fn load(&mut self) -> Result<()> {
        if self.loaded {
            return Ok(());
        }
        self.loaded = true;
        for arg in &self.args {
            let fail = |why: String| {
                LinkError::Link(format!("cannot load plugin {}: {why}", arg.path.display()))
            };
            // SAFETY: loading a plugin runs its initializers; that is what -plugin asks for.
            let lib =
                unsafe { libloading::Library::new(&arg.path) }.map_err(|e| fail(e.to_string()))?;
            // SAFETY: the gold interface's entry point has this signature.
            let onload: api::Onload =
                *unsafe { lib.get::<api::Onload>(b"onload\0") }.map_err(|e| fail(e.to_string()))?;
            // A plugin keeps pointers into itself (its hooks) for the whole link, and may
            // leave threads or atexit handlers behind: it is never unloaded.
            std::mem::forget(lib);
            let options: Vec<CString> = arg
                .options
                .iter()
                .map(|o| CString::new(o.as_bytes()).map_err(|_| fail(format!("bad option {o}"))))
                .collect::<Result<_>>()?;
            // The plugin keeps the option and output-name pointers: they must live on.
            let options: &'static [CString] = Box::leak(options.into_boxed_slice());
            let output_name: &'static CString = Box::leak(Box::new(self.output_name.clone()));
            let mut tv = callbacks::transfer_vector(self.output_type, output_name, options);
            with_state(|s| s.hooks.push(Hooks::default()));
            // SAFETY: `tv` ends with a NULL entry and outlives the call.
            let status = unsafe { onload(tv.as_mut_ptr()) };
            take_errors()?;
            if status != api::Status::OK {
                return Err(fail(format!("onload failed (status {})", status.0)));
            }
        }
        Ok(())
    }

    /// Offers a file to each plugin in turn; the first that claims it reports its symbols.
    pub fn claim(&mut self, offer: &Offer, name: &str) -> Result<Option<ClaimedFile>> {
        self.load()?;
        let index = with_state(|s| {
            s.offered.push(OfferedFile {
                name: CString::new(offer.path.as_os_str().as_encoded_bytes()).unwrap_or_default(),
                path: offer.path.to_path_buf(),
                offset: offer.offset,
                data: offer.data,
            });
            s.offered.len() - 1
        });
        let (hooks, c_name) = with_state(|s| (s.hooks.clone(), s.offered[index].name.as_ptr()));
        for hook in hooks.iter().filter_map(|h| h.claim_file) {
            let file = std::fs::File::open(offer.path).map_err(|e| LinkError::io(offer.path, e))?;
            let input = api::InputFile {
                name: c_name,
                fd: file.as_raw_fd(),
                offset: offer.offset as i64,
                filesize: offer.data.len() as i64,
                handle: handle_of(index),
            };
            let mut claimed: c_int = 0;
            // SAFETY: `input` and its descriptor stay valid for the call.
            let status = unsafe { hook(&input, &mut claimed) };
            drop(file);
            take_errors()?;
            if status != api::Status::OK {
                return Err(LinkError::bad_input(
                    name,
                    format!("the plugin failed to read the file (status {})", status.0),
                ));
            }
            if claimed != 0 {
                let symbols = with_state(|s| s.symbols.remove(&index)).unwrap_or_default();
                return Ok(Some(ClaimedFile {
                    handle: index,
                    symbols,
                }));
            }
            with_state(|s| s.symbols.remove(&index));
        }
        Ok(None)
    }

    /// Hands the plugins the resolution of their files' symbols (in the order they were
    /// reported) and calls their all-symbols-read hooks.
    pub fn all_symbols_read(
        &mut self,
        resolutions: Vec<(usize, Vec<api::Resolution>)>,
    ) -> Result<PluginOutputs> {
        with_state(|s| s.resolutions.extend(resolutions));
        let hooks = with_state(|s| s.hooks.clone());
        for hook in hooks.iter().filter_map(|h| h.all_symbols_read) {
            // SAFETY: the plugin's own hook, called once as the interface prescribes.
            let status = unsafe { hook() };
            take_errors()?;
            if status != api::Status::OK {
                return Err(LinkError::Link(format!(
                    "plugin: all-symbols-read failed (status {})",
                    status.0
                )));
            }
        }
        Ok(with_state(|s| PluginOutputs {
            files: std::mem::take(&mut s.added_files),
            libraries: std::mem::take(&mut s.added_libraries),
            library_paths: std::mem::take(&mut s.library_paths),
        }))
    }
}

impl Drop for PluginHost {
    fn drop(&mut self) {
        if self.loaded {
            run_cleanup();
        }
    }
}

/// Calls every cleanup hook once (they remove the plugin's temporary files).
fn run_cleanup() {
    let hooks = with_state(|s| std::mem::take(&mut s.hooks));
    for hook in hooks.iter().filter_map(|h| h.cleanup) {
        // SAFETY: the plugin's own hook; taking the hooks out of the state makes it once.
        unsafe { hook() };
    }
}

/// The ERROR messages a plugin sent during the last hook, as the link's error.
fn take_errors() -> Result<()> {
    let errors = with_state(|s| std::mem::take(&mut s.errors));
    match errors.len() {
        0 => Ok(()),
        1 => Err(LinkError::Link(format!("plugin: {}", errors[0]))),
        _ => Err(LinkError::Many(
            errors.into_iter().map(|e| format!("plugin: {e}")).collect(),
        )),
    }
}
