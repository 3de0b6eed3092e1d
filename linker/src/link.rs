//! The whole link, as one sequence of passes. Read this first: each step says why it is
//! where it is; the details live in the modules it calls.

use crate::context::Link;
use crate::error::{LinkError, Result};
use crate::image::{Contents, Image, SectionStarts};
use crate::options::Options;
use crate::output_file::PendingOutput;
use crate::symbols::{SymbolDef, SymbolId};
use crate::timer::Timer;
use crate::{dynamic, gc, input, layout, lto_driver, plugin_lto, scan, symbols, write};

pub fn link(opts: &Options) -> Result<()> {
    crate::diag::set_fatal(opts.fatal_warnings && !opts.no_warnings);
    crate::diag::set_quiet(opts.no_warnings);
    crate::demangle::set_enabled(opts.demangle);
    crate::read_log::set_verbose(opts.verbose);
    if opts.reproduce.is_none() && opts.dependency_file.is_none() {
        return link_with(opts, &mut || Ok(()));
    }
    // Written once every input is read, before code generation, so that a link that fails
    // or crashes later still leaves them; a link that fails earlier leaves the `--reproduce`
    // archive of what it read.
    crate::read_log::start();
    let mut written = false;
    let mut files_read = || -> Result<()> {
        written = true;
        let files = crate::read_log::take();
        if let Some(path) = &opts.dependency_file {
            let rule = crate::read_log::dependency_rule(&opts.output, &files);
            std::fs::write(path, rule).map_err(|e| LinkError::io(path, e))?;
        }
        match &opts.reproduce {
            Some(dest) => crate::reproduce::write(opts, dest, &files),
            None => Ok(()),
        }
    };
    let result = link_with(opts, &mut files_read);
    if let (false, Some(dest)) = (written, &opts.reproduce) {
        match (
            crate::reproduce::write(opts, dest, &crate::read_log::take()),
            &result,
        ) {
            (Err(e), Ok(())) => return Err(e),
            (Err(e), Err(_)) => crate::diag::warn(&e.to_string()),
            (Ok(()), _) => {}
        }
    }
    result
}

/// A report asked for on the command line: into FILE, or standard output for `-`.
fn write_report(path: &std::path::Path, report: &str) -> Result<()> {
    if path.as_os_str() == "-" {
        print!("{report}");
        Ok(())
    } else {
        std::fs::write(path, report).map_err(|e| LinkError::io(path, e))
    }
}

/// lld's `--no-allow-shlib-undefined` (its default for executables): a shared library
/// whose own dependencies are all in the link must find every symbol it needs (strongly)
/// in them or in the output.
fn check_shlib_undefined(link: &Link) -> Result<()> {
    let opts = link.opts;
    if !opts.reports_shlib_undefined() {
        return Ok(());
    }
    let sonames: std::collections::HashSet<&str> =
        link.dsos.iter().map(|d| d.soname.as_str()).collect();
    let warn_only = opts.undefined_warns();
    // Built only if a reference needs a version the resolving definition lacks.
    let versions = std::cell::OnceCell::new();
    let mut errors = Vec::new();
    for dso in &link.dsos {
        if !dso
            .dependencies
            .iter()
            .all(|d| sonames.contains(d.as_str()))
        {
            continue;
        }
        for s in dso
            .symbols
            .iter()
            .filter(|s| s.is_undefined && s.bind != object::elf::STB_WEAK)
        {
            let resolved = link.symtab.lookup(s.name).map(|id| link.symtab.get(id));
            let undefined = resolved.is_none_or(|sym| sym.is_undefined());
            // A reference in a version the libraries only define other versions of
            // (`foo@V1` where only `foo@@V2` is linked) is undefined too: the loader would
            // refuse it.
            let wrong_version = match (resolved.map(|sym| sym.def), s.needed_version) {
                (Some(SymbolDef::Shared { dso, index }), Some(v)) if !undefined => {
                    // Most often the definition the name resolved to has that version.
                    let def = &link.dsos[dso as usize].symbols[index as usize];
                    def.version.is_some_and(|d| d != v)
                        && !versions
                            .get_or_init(|| SharedVersions::new(link))
                            .satisfies(s.name, v)
                }
                _ => false,
            };
            if undefined || wrong_version {
                let name = match (wrong_version, s.needed_version) {
                    (true, Some(v)) => format!(
                        "{}@{}",
                        crate::demangle::display(s.name),
                        String::from_utf8_lossy(v)
                    ),
                    _ => crate::demangle::display(s.name).to_string(),
                };
                // lld-22's words.
                let msg = format!(
                    "undefined reference: {name}\n>>> referenced by {} (disallowed by \
                     --no-allow-shlib-undefined)",
                    dso.name
                );
                if warn_only {
                    crate::diag::warn(&msg);
                } else {
                    errors.push(msg);
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(LinkError::Many(errors))
    }
}

/// Sizes the packed relocation sections (`.relr.dyn`, and `.rela.dyn` under
/// `--pack-dyn-relocs=android`) to their encodings. Each one's size moves the addresses
/// the other encodes, so both are settled again until a round changes neither.
fn settle_packed_relocations(
    link: &mut Link,
    tables: &crate::tables::Tables,
    placement: &crate::output_section::Placement,
    segments: &mut crate::context::Segments,
    dynamic: &crate::dynamic::DynamicTables,
) -> Result<(Vec<u64>, Vec<u8>)> {
    use crate::output_section::Synthetic::{RelaDyn, RelrDyn};
    let size = |link: &Link, which| {
        link.outputs
            .synthetic_id(which)
            .map(|id| link.output(id).size)
    };
    loop {
        let before = [RelrDyn, RelaDyn].map(|s| size(link, s));
        let relr = crate::relr::settle(link, tables, placement, segments)?;
        if !link.opts.android_packed_relocs {
            return Ok((relr, Vec::new()));
        }
        let rela = crate::android_relocs::settle(link, tables, placement, segments, dynamic)?;
        if [RelrDyn, RelaDyn].map(|s| size(link, s)) == before {
            return Ok((relr, rela));
        }
    }
}

/// What the linked shared libraries define, for checking the versions their references
/// need: each name with the versions it is defined in, and the names some library defines
/// without a version (which satisfy a reference in any version, as the loader accepts).
struct SharedVersions<'a> {
    versioned: std::collections::HashSet<(&'a [u8], &'a [u8])>,
    unversioned: std::collections::HashSet<&'a [u8]>,
}

impl<'a> SharedVersions<'a> {
    fn new(link: &'a Link) -> Self {
        let mut versioned = std::collections::HashSet::new();
        let mut unversioned = std::collections::HashSet::new();
        for s in link
            .dsos
            .iter()
            .flat_map(|d| &d.symbols)
            .filter(|s| !s.is_undefined)
        {
            match s.version {
                Some(v) => versioned.insert((s.name, v)),
                None => unversioned.insert(s.name),
            };
        }
        SharedVersions {
            versioned,
            unversioned,
        }
    }

    fn satisfies(&self, name: &[u8], version: &[u8]) -> bool {
        self.unversioned.contains(name) || self.versioned.contains(&(name, version))
    }
}

/// `-r` combined with what makes no sense for a relocatable output: refused where lld and
/// GNU ld refuse it, otherwise a warning that it is ignored.
fn check_relocatable_options(opts: &Options) -> Result<()> {
    use crate::options::OutputKind;
    let refused = match opts.kind {
        OutputKind::Shared => Some("-shared"),
        OutputKind::Pie => Some("-pie"),
        OutputKind::Executable if opts.icf != crate::icf::Icf::None => Some("--icf"),
        OutputKind::Executable if opts.gdb_index => Some("--gdb-index"),
        OutputKind::Executable if !opts.z_section_header => Some("-z nosectionheader"),
        OutputKind::Executable => None,
    };
    if let Some(option) = refused {
        return Err(LinkError::Link(format!(
            "-r and {option} may not be used together"
        )));
    }
    for (given, option) in [
        (opts.gc_sections, "--gc-sections"),
        (opts.strip_all, "-s"),
        (opts.pack_relative_relocs, "-z pack-relative-relocs"),
    ] {
        if given {
            crate::diag::warn(&format!("{option} is ignored with -r"));
        }
    }
    Ok(())
}

/// The link; `inputs_read` runs once every input has been read.
fn link_with(opts: &Options, inputs_read: &mut dyn FnMut() -> Result<()>) -> Result<()> {
    if opts.relocatable {
        check_relocatable_options(opts)?;
    }
    // `-z nosectionheader` strips all too (lld's reading).
    let strip_all = opts.strip_all || !opts.z_section_header;
    if opts.emit_relocs && strip_all && !opts.relocatable {
        // Copied relocations name symbols of a table `-s` leaves out (lld refuses too).
        return Err(LinkError::Link(
            "--strip-all and --emit-relocs may not be used together".into(),
        ));
    }
    let dynamic_list = crate::dynamic_list::DynamicList::load(
        &opts.dynamic_lists,
        &opts.export_dynamic_symbols,
        &opts.export_dynamic_symbol_lists,
    )?;
    let version_scripts: Vec<std::path::PathBuf> = opts
        .version_scripts
        .iter()
        .map(|p| crate::input::search::find_script(p, &opts.library_paths, opts.sysroot.as_deref()))
        .collect();
    let mut version_script = crate::version_script::VersionScript::load_all(
        &version_scripts,
        opts.retain_symbols_file.as_deref(),
    )?;
    if opts.default_symver {
        if version_script.is_some() || !opts.is_shared() {
            crate::diag::warn(
                "--default-symver is ignored: it versions a shared library that has no version \
                 script",
            );
        } else {
            let name = opts.soname.clone().unwrap_or_else(|| {
                opts.output
                    .file_name()
                    .map_or_else(|| "a.out".into(), |n| n.to_string_lossy().into_owned())
            });
            version_script = Some(crate::version_script::VersionScript::default_version(&name));
        }
    }
    if opts.symbol_ordering_file.is_some() && opts.call_graph_ordering_file.is_some() {
        // lld's words (its own spelling of the second option).
        return Err(LinkError::Link(
            "--symbol-ordering-file and --call-graph-order-file may not be used together".into(),
        ));
    }
    // Read before the inputs: a missing file fails the link at once.
    let symbol_order = match &opts.symbol_ordering_file {
        Some(path) => crate::symbol_order::read(path, opts.warn_symbol_ordering)?,
        None => Vec::new(),
    };
    let trace = opts.time_trace.as_ref().map(|path| {
        let path = if path.as_os_str().is_empty() {
            std::path::PathBuf::from(format!("{}.time-trace", opts.output.display()))
        } else {
            path.clone()
        };
        crate::timer::Trace::new(path, opts.time_trace_granularity)
    });
    let mut timer = Timer::new(opts.print_timing).with_trace(trace);
    // An executable's previous output is written over in place where safe (mold's speed-up);
    // a shared library may be mapped by running programs, and `-r` has its own writer.
    let mut pending = PendingOutput::new(&opts.output, !opts.relocatable)?
        .reusing_previous(!opts.relocatable && !opts.is_shared());

    // Find, map and identify every input (library search and linker scripts included).
    let input::Inputs {
        files: inputs,
        groups,
        scripts,
    } = input::collect_inputs(opts)?;
    timer.phase("collect inputs");
    // A script's ENTRY is the entry point unless the command line names one.
    let with_entry;
    let opts = match (&scripts.entry, &opts.entry) {
        (Some(entry), None) => {
            with_entry = Options {
                entry: Some(entry.clone()),
                ..opts.clone()
            };
            &with_entry
        }
        _ => opts,
    };
    for (origin, text) in &scripts.versions {
        version_script
            .get_or_insert_with(Default::default)
            .add_text(std::path::Path::new(origin), text)?;
    }

    // Resolve symbols in command-line order, pulling archive members as references need
    // them. `-u` symbols are references before the inputs; what script assignments read
    // and the entry point are references after them (lld's order: an input that names
    // the entry point first gives it its place in the symbol table).
    let mut late_roots: Vec<String> = Vec::new();
    // What script assignments read is referenced, as GNU ld and lld treat it.
    for (_, a) in scripts.assignments.iter().filter(|(_, a)| !a.provide) {
        a.expr.symbols(&mut late_roots);
    }
    if !opts.is_shared() && !opts.relocatable {
        late_roots.push(opts.entry.clone().unwrap_or_else(|| "_start".into()));
    }
    let mut resolver = symbols::Resolver::new(
        &opts.undefined,
        opts.allow_multiple_definition,
        opts.lto_opts.cache_dir.as_deref(),
    );
    resolver.wrap(&opts.wrap);
    resolver.trace_files = opts.trace;
    resolver.warn_common = opts.warn_common;
    resolver.fortran_common = opts.fortran_common;
    resolver.keep_excluded = opts.relocatable;
    resolver.unmerged = opts.opt_level == 0 && !opts.relocatable;
    resolver.duplicates_warn = opts.noinhibit_exec;
    if opts.why_extract.is_some() {
        resolver.why_extract = Some(Vec::new());
    }
    if opts.warn_backrefs {
        resolver.backrefs = Some(crate::backrefs::Backrefs::new(groups));
    }
    resolver.trace_symbols = opts
        .trace_symbols
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    if !opts.plugins.is_empty() {
        resolver.plugins = Some(crate::plugin_host::PluginHost::new(
            opts.plugins.clone(),
            plugin_lto::output_type(opts),
            &opts.output,
        )?);
    }
    // `-r` keeps `.deplibs` for the final link, and adds nothing (lld).
    if opts.dependent_libraries && !opts.relocatable {
        resolver.dependent_libraries = Some(Vec::new());
    }
    resolver.add_inputs(inputs)?;
    add_dependent_libraries(opts, &mut resolver)?;
    resolver.add_late_roots(&late_roots)?;
    timer.phase("  inputs added");
    resolver.fetch_matching(&opts.undefined_globs)?;
    for warning in resolver.backward_references(&opts.warn_backrefs_exclude) {
        crate::diag::warn(&warning);
    }
    if let (Some(path), Some(report)) = (&opts.why_extract, resolver.why_extract_report()) {
        write_report(path, &report)?;
    }
    if let Some(path) = &opts.print_archive_stats {
        write_report(path, &resolver.archive_stats())?;
    }
    // Only a shared library's versions are its own to define; a program may give a symbol
    // any version (lld's rule: libxcrypt's configure probes `symver` on a program).
    if opts.is_shared() {
        check_symbol_versions(&resolver, version_script.as_ref())?;
    }
    // gcc's IR lists no symbol its top-level asm defines (libxcrypt's `.symver` aliases):
    // with gcc's LTO a name the IR does not define may still be defined by the objects it
    // returns (and one the IR defines may be gone from them: checked here, as lld does).
    let mut version_names_unseen = Vec::new();
    if let (Some(script), false) = (&version_script, opts.undefined_version) {
        let missing = undefined_version_script_names(&resolver.symtab, script.named_globals());
        if resolver.plugin_files.is_empty() {
            refuse_undefined_version_script_names(&missing)?;
        }
        version_names_unseen = missing;
    }
    if let Some(script) = &version_script {
        hide_local_symbols(&mut resolver.symtab, script);
    }
    if !opts.exclude_libs.is_empty() {
        resolver.hide_archive_symbols(&opts.exclude_libs);
    }
    resolver.release_archive_indexes();
    timer.phase("resolve symbols");

    // A linker plugin's LTO (gcc's): it gets the resolution of the files it claimed and
    // hands back objects that take their place, with the libraries their code may need.
    let mut lto_objects = Vec::new();
    let mut plugin_libraries = Vec::new();
    if !resolver.plugin_files.is_empty() {
        let result = plugin_lto::run(opts, &mut resolver, &dynamic_list)?;
        timer.phase("plugin LTO");
        lto_objects = result.objects;
        plugin_libraries = result.libraries;
    }

    inputs_read()?;

    // LTO: the dead-symbol worklist over the combined index, internalization, LLVM; the
    // object it returns replaces the bitcode in the symbol table.
    if !resolver.bitcode.is_empty() {
        let objects = lto_driver::run_lto(opts, &mut resolver, &dynamic_list)?;
        timer.phase("LTO");
        if opts.lto_opts.emit != rld_lto_api::Emit::Object {
            // `--lto-emit-llvm`/`--lto-emit-asm`: the program's one module is written, and
            // nothing is linked; bitcode as the output, assembly beside it as OUT.lto.s
            // (lld's names). Neither is a program: no execute permission.
            let module = objects.into_iter().next().unwrap_or_default();
            drop(pending);
            let path = match opts.lto_opts.emit {
                rld_lto_api::Emit::Assembly => {
                    std::path::PathBuf::from(format!("{}.lto.s", opts.output.display()))
                }
                _ => opts.output.clone(),
            };
            return PendingOutput::new(&path, false)?.write_all(&module);
        }
        if opts.relocatable && !resolver.has_objects() {
            // -r with bitcode inputs only: the LTO-compiled object (one partition) is the
            // output.
            let object = objects.into_iter().next().unwrap_or_default();
            return pending.write_all(&object);
        }
        // Named as lld names them (`out.lto.o`, `out.lto.1.o`, ...) in messages.
        lto_objects.extend(objects.into_iter().enumerate().map(|(p, object)| {
            let name = if p == 0 {
                format!("{}.lto.o", opts.output.display())
            } else {
                format!("{}.lto.{p}.o", opts.output.display())
            };
            (name, &*Box::leak(object.into_boxed_slice()))
        }));
    }
    // gcc's LTO alone: GNU ld's view of `--as-needed` libraries for the code it returns.
    let gnu_ld_rescan = !resolver.plugin_files.is_empty() && resolver.bitcode.is_empty();
    if gnu_ld_rescan {
        resolver.forget_unneeded_libraries();
    }
    if !lto_objects.is_empty() {
        resolver.add_lto_objects(lto_objects)?;
    }
    if !plugin_libraries.is_empty() {
        resolver.add_inputs(plugin_libraries)?;
    }
    if gnu_ld_rescan {
        resolver.remember_unneeded_libraries();
    }
    if !version_names_unseen.is_empty() {
        let names = version_names_unseen.into_iter();
        refuse_undefined_version_script_names(&undefined_version_script_names(
            &resolver.symtab,
            names,
        ))?;
    }
    let mut link = Link::new(
        opts,
        resolver.finish()?,
        crate::context::LinkInputs {
            dynamic_list,
            version_script,
            scripts,
        },
    );
    let missing: Vec<String> = opts
        .require_defined
        .iter()
        .filter(|name| {
            link.symtab
                .lookup(name.as_bytes())
                .is_none_or(|id| link.symtab.get(id).is_undefined())
        })
        .map(|name| format!("required symbol `{name}' not defined"))
        .collect();
    if !missing.is_empty() {
        return Err(LinkError::Many(missing));
    }
    if opts.relocatable {
        crate::script_layout::check_supported(&link)?;
        if !symbol_order.is_empty() {
            link.section_order = crate::symbol_order::section_order(&link, &symbol_order);
        }
        return crate::relocatable::write(&mut link, pending, &mut timer);
    }
    check_shlib_undefined(&link)?;
    report_missing_cet(&link)?;
    crate::comment::add_linker_line(&mut link.objects);
    if opts.print_dependencies {
        print!("{}", dependencies_report(&link));
    }

    // What is exported, what can be preempted (once: the symbols the linker defines later
    // are decided as they are defined). This decides GOT and PLT use, and what ICF folds.
    scan::compute_preemption(&mut link);

    // Drop unreachable sections before anything is sized or scanned.
    if opts.gc_sections {
        let gc_roots = gc_root_symbols(&link);
        let script = link
            .scripts
            .sections
            .as_ref()
            .map(|(_, commands)| crate::script_layout::InputMap::new(commands));
        let kept =
            |file: &str, section: &str| script.as_ref().is_some_and(|m| m.keeps(file, section));
        use rayon::prelude::*;
        let (used, pieces, why) = gc::collect_garbage(
            &mut link.objects,
            &link.symtab,
            &gc_roots,
            &kept,
            !opts.relocatable,
            opts.start_stop_gc,
            !opts.why_live.is_empty(),
        );
        link.piece_marks = pieces;
        if let Some(mut why) = why {
            print!(
                "{}",
                crate::why_live::report(
                    &link.objects,
                    &link.dsos,
                    &link.symtab,
                    &mut why,
                    &opts.why_live
                )
            );
        }
        link.symtab
            .symbols
            .par_iter_mut()
            .enumerate()
            .filter(|(id, sym)| sym.is_outside() && !used.is_used(*id as SymbolId))
            .for_each(|(_, sym)| {
                sym.only_dead_refs = true;
                sym.in_dynsym = false;
            });
        // Only `--as-needed` libraries can lose their DT_NEEDED: without one, no reference
        // need be looked at again.
        let asked: Vec<bool> = link.dsos.iter().map(|d| d.as_needed && d.needed).collect();
        if asked.contains(&true) {
            let roots: Vec<SymbolId> = gc_roots.iter().map(|&(id, _)| id).collect();
            let still_needed =
                gc::libraries_still_needed(&link.objects, &link.symtab, &roots, &asked);
            for (dso, still) in link.dsos.iter_mut().zip(still_needed) {
                dso.needed &= still || !dso.as_needed;
            }
        }
        if let Some(path) = &opts.print_gc_sections {
            let mut list = gc::removed_sections(&link.objects).join("\n");
            if !list.is_empty() {
                list.push('\n');
            }
            write_report(path, &list)?;
        }
        timer.phase("gc sections");
    } else if link.objects.iter().filter(|o| o.from_lto).count() > 1 {
        // LTO partitions: what every caller inlined is left over in its owner's object.
        let roots = gc_root_symbols(&link);
        gc::collect_lto_leftovers(&mut link.objects, &link.symtab, &roots);
        timer.phase("unused LTO functions");
    }

    if opts.icf != crate::icf::Icf::None {
        let folded = crate::icf::fold(&mut link, opts.icf);
        if opts.print_icf_sections {
            for line in crate::icf::report(&link, &folded) {
                println!("{line}");
            }
        }
        timer.phase("fold identical sections");
    }

    if !symbol_order.is_empty() {
        link.section_order = crate::symbol_order::section_order(&link, &symbol_order);
    }
    // The call graph, now that GC and ICF have decided which sections stay (lld's time).
    if opts.call_graph_sort != crate::call_graph_sort::CallGraphSort::None {
        link.call_graph = match &opts.call_graph_ordering_file {
            Some(path) => crate::call_graph_sort::from_file(&link, path)?,
            None => crate::call_graph_sort::from_objects(&link),
        };
    }
    // Output sections first: linker-defined symbols such as __start_foo need them.
    layout::assign_input_sections(&mut link)?;
    crate::script_layout::apply_subalign(&mut link)?;
    layout::define_linker_symbols(&mut link);
    layout::define_defsyms(&mut link)?;
    timer.phase("output sections");

    // Every relocation of a live section: GOT, PLT, copy and dynamic relocations.
    let estimate = layout::estimate_image(&link);
    let (mut plan, mut tables) = scan::scan_relocations(&mut link, estimate)?;
    scan::warn_text_relocations(&link, &tables);
    timer.phase("scan relocations");
    if opts.branch_to_branch() {
        plan.redirects = crate::branch_to_branch::find(&link, &plan);
        timer.phase("branch to branch");
    }
    if link.objects.iter().any(|o| o.split_stack) {
        crate::split_stack::adjust(&link, &mut plan)?;
    }

    // Place input sections inside their outputs (merging strings, splitting .eh_frame),
    // build the dynamic tables, create the synthetic sections, and assign addresses.
    crate::relr::pack(&link, &mut tables);
    let placement = layout::place_inputs(&mut link)?;
    timer.phase("  inputs placed");
    let dynamic = dynamic::build_dynamic_tables(&link, &tables);
    layout::create_synthetic_sections(&mut link, &tables, &placement, &dynamic)?;
    timer.phase("  dynamic tables");
    crate::script_layout::check_supported(&link)?;
    crate::script_layout::report_orphans(&link)?;
    layout::sort_output_sections(&mut link);
    let mut segments = layout::assign_addresses(&mut link, None)?;
    if opts.print_memory_usage {
        print!("{}", crate::script_layout::memory_usage(&segments.script));
    }
    let (relr, android_rela) =
        settle_packed_relocations(&mut link, &tables, &placement, &mut segments, &dynamic)?;
    let sym_addr = layout::compute_all_symbol_addresses(&link, &tables, &placement, &segments)?;
    let mut contents = Contents {
        relr,
        android_rela,
        script_data: crate::script_layout::data_bytes(&link, &segments, &sym_addr)?,
        fills: crate::script_layout::fills(&link, &segments, &sym_addr)?,
        ..Contents::default()
    };
    timer.phase("layout");
    if opts.compress_debug_sections.is_some() || !opts.compress_sections.is_empty() {
        crate::compressed::compress_outputs(
            &mut link,
            &tables,
            &placement,
            &mut segments,
            &sym_addr,
            &mut contents,
            &plan,
        )?;
        timer.phase("compress debug sections");
    }
    warn_missing_entry(&link);
    warn_permissions(&link, &segments);
    let starts = SectionStarts::new(&link, &segments);
    timer.phase("  section starts");
    if opts.z_rewrite_endbr {
        let image = Image::new(
            &link, &tables, &placement, &segments, &sym_addr, &contents, &starts,
        );
        contents.endbr = crate::endbr::find(&image);
    }
    let image = Image::new(
        &link, &tables, &placement, &segments, &sym_addr, &contents, &starts,
    );
    // `--cref` goes after the map, or to standard output without one (lld's).
    let cref = opts.cref.then(|| crate::map_file::cross_references(&link));
    if let Some(path) = &opts.map_file {
        let mut map = crate::map_file::render(&image);
        map.push_str(cref.as_deref().unwrap_or_default());
        write_report(path, &map)?;
    } else if let Some(cref) = &cref {
        print!("{cref}");
    }

    // Copy and relocate everything into the output, then move it into place.
    let bytes = write::write_output(&image, &plan, &dynamic, &mut pending, &mut timer)?;
    if opts.checks_dynamic_relocations() {
        let wrong = crate::check_dynamic::check(&bytes);
        if !wrong.is_empty() {
            return Err(LinkError::Many(wrong));
        }
        timer.phase("check dynamic relocations");
    }
    let bytes = if opts.oformat_binary {
        let flat = crate::oformat_binary::Flat::of(&image);
        let mut out = bytes
            .resized(flat.size)
            .map_err(|e| LinkError::io(&opts.output, e))?;
        flat.fill(&bytes, &mut out);
        out
    } else {
        bytes
    };
    pending.commit(bytes)?;
    timer.phase("write output");
    timer.total()?;
    if LEAK_AT_END.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget((
            link, plan, tables, placement, dynamic, segments, sym_addr, contents, starts,
        ));
    }
    Ok(())
}

/// Whether the process ends with the link (see [`process_ends_with_link`]).
static LEAK_AT_END: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Tells [`link`] that the process ends when it returns: the link's objects, symbols and
/// tables are then left to the exit rather than freed one by one, which would only delay
/// it (lld skips its destructors the same way). Only the `rld` command says so; a program
/// that links in process, again and again, must not.
pub fn process_ends_with_link() {
    LEAK_AT_END.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// mold's `--print-dependencies` report: for each input section, each global symbol it
/// refers to that another file defines (a section there, or a shared library), once.
fn dependencies_report(link: &Link) -> String {
    use std::fmt::Write as _;
    let mut out = String::from(
        "# This is an output of the mold linker's --print-dependencies option.\n\
         #\n\
         # Each line consists of 4 fields, <section1>, <section2>, <symbol-type> and\n\
         # <symbol>, separated by tab characters. It indicates that <section1> depends\n\
         # on <section2> to use <symbol>. <symbol-type> is either \"u\" or \"w\" for\n\
         # regular undefined or weak undefined, respectively.\n\
         #\n\
         # If you want to obtain dependency information per function granularity,\n\
         # compile source files with the -ffunction-sections compiler flag.\n\n",
    );
    for (f, obj) in link.objects.iter().enumerate() {
        for sec in &obj.sections {
            if sec.kind == crate::object_file::SectionKind::Ignored {
                continue;
            }
            let mut seen = rustc_hash::FxHashSet::default();
            for r in sec.relocs() {
                let index = r.r_sym(crate::object_file::LE, false) as usize;
                if index < obj.first_global
                    || index >= obj.symbols.len()
                    || obj.symbol_section(index) != crate::object_file::shndx::UNDEF
                {
                    continue;
                }
                let Some(&id) = obj.globals.get(index - obj.first_global) else {
                    continue;
                };
                if !seen.insert(id) {
                    continue;
                }
                let sym = link.symtab.get(id);
                let provider = match sym.def {
                    SymbolDef::Defined { file, section, .. }
                        if file as usize != f && crate::object_file::shndx::is_section(section) =>
                    {
                        let other = &link.objects[file as usize];
                        match other.sections.get(section as usize) {
                            Some(s) => format!("{}:({})", other.name, s.name()),
                            None => continue,
                        }
                    }
                    SymbolDef::Shared { dso, .. } => link.dsos[dso as usize].name.clone(),
                    _ => continue,
                };
                let kind = if obj.symbols[index].st_bind() == object::elf::STB_WEAK {
                    'w'
                } else {
                    'u'
                };
                let name = crate::demangle::display(sym.name);
                let _ = writeln!(
                    out,
                    "{}:({})\t{provider}\t{kind}\t{name}",
                    obj.name,
                    sec.name()
                );
            }
        }
    }
    // Then each shared library's own references, to the file that defines them.
    // (Libraries linked --as-needed that nothing needs are not part of the output; a
    // library named twice counts once.)
    let mut listed = rustc_hash::FxHashSet::default();
    for (d, dso) in link.dsos.iter().enumerate() {
        if !dso.needed || !listed.insert(dso.name.as_str()) {
            continue;
        }
        let mut seen = rustc_hash::FxHashSet::default();
        for s in dso.symbols.iter().filter(|s| s.is_undefined) {
            let Some(id) = link.symtab.lookup(s.name) else {
                continue;
            };
            if !seen.insert(id) {
                continue;
            }
            let sym = link.symtab.get(id);
            let provider = match sym.def {
                SymbolDef::Defined { file, .. } => link.objects[file as usize].name.as_str(),
                // mold names the object that refers to a symbol nothing defines.
                SymbolDef::Undefined => match sym.ref_file {
                    Some(file) => link.objects[file as usize].name.as_str(),
                    None => continue,
                },
                SymbolDef::Shared { dso: other, .. }
                    if other as usize != d && link.dsos[other as usize].needed =>
                {
                    link.dsos[other as usize].name.as_str()
                }
                _ => continue,
            };
            let kind = if s.bind == object::elf::STB_WEAK {
                'w'
            } else {
                'u'
            };
            let name = crate::demangle::display(s.name);
            let _ = writeln!(out, "{}\t{provider}\t{kind}\t{name}", dso.name);
        }
    }
    out
}

/// `-z cet-report=warning|error`: each input object without the IBT or SHSTK property, in
/// lld's words; `-z force-ibt` alone warns about each without IBT.
fn report_missing_cet(link: &Link) -> Result<()> {
    use crate::options::Severity;
    use object::elf::{GNU_PROPERTY_X86_FEATURE_1_IBT as IBT, GNU_PROPERTY_X86_FEATURE_1_SHSTK};
    // Per object and feature it lacks, in that order: lld's line, naming the option.
    let missing = |option: &str, features: &[(u32, &str)]| -> Vec<String> {
        let mut lines = Vec::new();
        for obj in &link.objects {
            let has = obj.x86_features.unwrap_or(0);
            for &(_, name) in features.iter().filter(|&&(bit, _)| has & bit == 0) {
                lines.push(format!(
                    "{}: {option}: file does not have GNU_PROPERTY_X86_FEATURE_1_{name} property",
                    obj.name
                ));
            }
        }
        lines
    };
    let cet = [(IBT, "IBT"), (GNU_PROPERTY_X86_FEATURE_1_SHSTK, "SHSTK")];
    let (lines, severity) = match link.opts.z_cet_report {
        Some(severity) => (missing("-z cet-report", &cet), severity),
        // lld's `-z force-ibt` warns about each object it forces (`-z cet-report` reports
        // them itself).
        None if link.opts.z_force_ibt => (missing("-z force-ibt", &cet[..1]), Severity::Warning),
        None => return Ok(()),
    };
    match severity {
        Severity::Warning => {
            lines.iter().for_each(|l| crate::diag::warn(l));
            Ok(())
        }
        Severity::Error if lines.is_empty() => Ok(()),
        Severity::Error => Err(LinkError::Many(lines)),
    }
}

/// The libraries the inputs name in `.deplibs` sections (clang's `#pragma comment(lib,
/// ...)`), added after the command line's inputs as lld adds them, with those they name in
/// turn; each name once.
fn add_dependent_libraries(opts: &Options, resolver: &mut symbols::Resolver) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    loop {
        let wanted = resolver
            .dependent_libraries
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        if wanted.is_empty() {
            return Ok(());
        }
        let mut files = Vec::new();
        for (name, from) in wanted {
            if seen.insert(name.clone()) {
                files.extend(input::collect_dependent_library(opts, &name, &from)?);
            }
        }
        resolver.add_inputs(files)?;
    }
}

/// Symbols that keep their sections alive under --gc-sections, and why, in lld's order
/// (which decides the reasons `--why-live` reports first). What linker scripts and
/// `--defsym` name counts, as in lld: their references are not relocations.
fn gc_root_symbols(link: &Link) -> Vec<gc::RootSymbol> {
    let opts = link.opts;
    let export_all = opts.export_dynamic || opts.is_shared();
    // A pass over every symbol: on all threads.
    use rayon::prelude::*;
    let mut roots: Vec<gc::RootSymbol> = link
        .symtab
        .symbols
        .par_iter()
        .enumerate()
        .filter(|(_, sym)| {
            matches!(sym.def, SymbolDef::Defined { .. })
                && matches!(
                    sym.visibility,
                    object::elf::STV_DEFAULT | object::elf::STV_PROTECTED
                )
                && (export_all || sym.dso_ref || link.dynamic_list.contains(sym.name))
        })
        .map(|(id, _)| (id as SymbolId, "externally visible symbol; may interpose"))
        .collect();
    let mut named = Vec::new();
    for (_, a) in &link.scripts.assignments {
        a.expr.symbols(&mut named);
    }
    for (_, text) in &opts.defsym {
        // A bad expression is reported where --defsym is defined.
        if let Ok(expr) = crate::script_expr::parse(text) {
            expr.symbols(&mut named);
        }
    }
    let entry = opts.entry.as_deref().unwrap_or("_start");
    let names = [
        (entry, "entry point"),
        (&opts.init, "initializer function"),
        (&opts.fini, "finalizer function"),
    ]
    .into_iter()
    .chain(
        opts.undefined
            .iter()
            .map(|n| (n.as_str(), "undefined command line flag")),
    )
    .chain(
        named
            .iter()
            .map(|n| (n.as_str(), "referenced by linker script")),
    );
    roots.extend(names.filter_map(|(n, why)| Some((link.symtab.lookup(n.as_bytes())?, why))));
    roots
}

/// GNU ld's `--warn-rwx-segments` and `--warn-execstack`, in its words: a loaded
/// segment both writable and executable, and each input whose `.note.GNU-stack` made the
/// stack executable (`-z execstack` asked for is not warned about, as in GNU ld 2.40).
fn warn_permissions(link: &Link, segments: &crate::context::Segments) {
    use object::elf::{PF_W, PF_X, PT_GNU_STACK, PT_LOAD, SHF_EXECINSTR};
    let output = link.opts.output.display();
    let rwx = |p_type| {
        segments
            .headers
            .iter()
            .any(|s| s.p_type == p_type && s.flags & (PF_W | PF_X) == PF_W | PF_X)
    };
    if link.opts.warn_rwx_segments && rwx(PT_LOAD) {
        crate::diag::warn(&format!("{output} has a LOAD segment with RWX permissions"));
    }
    if link.opts.warn_execstack && rwx(PT_GNU_STACK) && !link.opts.z_execstack {
        for obj in &link.objects {
            let executable = obj
                .sections
                .iter()
                .any(|s| s.name() == ".note.GNU-stack" && s.flags & u64::from(SHF_EXECINSTR) != 0);
            if executable {
                crate::diag::warn(&format!(
                    "{}: requires executable stack (because the .note.GNU-stack section is \
                     executable)",
                    obj.name
                ));
            }
        }
    }
}

fn warn_missing_entry(link: &Link) {
    if link.opts.is_shared() {
        return;
    }
    let name = link.opts.entry.as_deref().unwrap_or("_start");
    let defined = link
        .symtab
        .lookup(name.as_bytes())
        .is_some_and(|id| link.symtab.get(id).is_defined_locally());
    if !defined && crate::args::parse_u64(name).is_none() {
        crate::diag::warn(&format!(
            "cannot find entry symbol {name}; not setting start address"
        ));
    }
}

/// A version script's `local:` symbols stay inside the output: they are hidden, which keeps
/// them out of .dynsym and lets LTO internalize them. A definition whose `.symver` names its
/// default version (`foo@@VER`) keeps it: the explicit version beats the script's
/// patterns, as in lld.
///
/// An unversioned `foo` the script puts in version V is hidden too when `.symver` defines
/// `foo@V` (a non-default version): exporting both would give `foo@@V` beside `foo@V`,
/// and lld keeps only the latter.
fn hide_local_symbols(
    symtab: &mut crate::symbols::SymbolTable,
    script: &crate::version_script::VersionScript,
) {
    use crate::version_script::Assignment;
    let hidden_version_defined = |symtab: &crate::symbols::SymbolTable, name: &[u8], node| {
        let mut versioned = name.to_vec();
        versioned.push(b'@');
        versioned.extend_from_slice(script.node_name(node).as_bytes());
        symtab.lookup(&versioned).is_some_and(|id| {
            let s = symtab.get(id);
            s.is_defined_locally() && s.version.as_ref().is_some_and(|v| v.hidden)
        })
    };
    let hide: Vec<usize> = symtab
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, sym)| sym.is_defined_locally())
        .filter(|(_, sym)| {
            let name = crate::symbols::base_name(sym.name);
            match sym.version.as_deref() {
                // `foo@VER`: by the patterns of VER's node alone.
                Some(v) if v.hidden => script
                    .node_position(v.name)
                    .is_some_and(|node| script.assign_hidden(name, node) == Assignment::Local),
                // `foo@@VER`: the version `.symver` gave it wins over the script.
                Some(_) => false,
                None => match script.assign(name) {
                    Assignment::Local => true,
                    Assignment::Global(node) => {
                        !script.node_name(node).is_empty()
                            && hidden_version_defined(symtab, name, node)
                    }
                    Assignment::Unlisted => false,
                },
            }
        })
        .map(|(i, _)| i)
        .collect();
    for i in hide {
        let sym = &mut symtab.symbols[i];
        sym.declared_visibility.get_or_insert(sym.visibility);
        sym.visibility = object::elf::STV_HIDDEN;
    }
}

/// A `.symver` definition must name a version the version script defines (lld's rule and
/// words: the file, then the name as `.symver` gave it).
fn check_symbol_versions(
    resolver: &crate::symbols::Resolver,
    script: Option<&crate::version_script::VersionScript>,
) -> Result<()> {
    // The few symbols with a version, found on all threads.
    use rayon::prelude::*;
    let versioned: Vec<_> = resolver
        .symtab
        .symbols
        .par_iter()
        .filter_map(|sym| Some((sym, sym.version.as_deref()?)))
        .filter(|(sym, _)| sym.is_defined_locally())
        .collect();
    let mut errors = Vec::new();
    for (sym, v) in versioned {
        if script.and_then(|s| s.node_index(v.name)).is_none() {
            let version = String::from_utf8_lossy(v.name);
            errors.push(format!(
                "{}: symbol {}{}{version} has undefined version {version}",
                resolver.definer(sym.def),
                String::from_utf8_lossy(crate::symbols::base_name(sym.name)),
                if v.hidden { "@" } else { "@@" },
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(LinkError::Many(errors))
    }
}

/// `--no-undefined-version`: every symbol a version script names exactly must be defined
/// (lld's and GNU ld's check; rustc passes it with the scripts it writes). A name in node
/// V is also defined by a hidden version `name@V` that `.symver` gave (lld's rule:
/// libxcrypt's map lists `encrypt` under GLIBC_2.2.5, which only `encrypt@GLIBC_2.2.5`
/// defines). Returns the names (with their nodes) not defined so far.
fn undefined_version_script_names<'a>(
    symtab: &crate::symbols::SymbolTable,
    names: impl Iterator<Item = (&'a [u8], &'a str)>,
) -> Vec<(&'a [u8], &'a str)> {
    let defined = |name: &[u8]| {
        symtab
            .lookup(name)
            .is_some_and(|id| symtab.get(id).is_defined_locally())
    };
    names
        .filter(|(name, node)| {
            !defined(name)
                && (node.is_empty() || !defined(&[*name, b"@", node.as_bytes()].concat()))
        })
        .collect()
}

/// The error for version-script names nothing defines, if any.
fn refuse_undefined_version_script_names(missing: &[(&[u8], &str)]) -> Result<()> {
    if missing.is_empty() {
        return Ok(());
    }
    let errors = missing
        .iter()
        .map(|(name, node)| {
            let node = if node.is_empty() { "global" } else { node };
            format!(
                "version script assignment of '{node}' to symbol '{}' failed: symbol not defined",
                String::from_utf8_lossy(name)
            )
        })
        .collect();
    Err(LinkError::Many(errors))
}
