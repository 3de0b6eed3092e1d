//! All-symbols-read: the host's resolutions in, the LTO driver run (the one `rld` runs),
//! objects out to files the host links in place of the bitcode.

use crate::claim::ClaimedModule;
use crate::host::HostApi;
use crate::resolve::{host_resolutions, Resolved};
use rld_lto_driver::{LinkFacts, LtoOptions};
use rld_plugin_api as api;
use std::ffi::CString;
use std::path::{Path, PathBuf};

/// The objects handed to the host; `temporaries` are the ones to remove at cleanup.
pub struct Written {
    pub temporaries: Vec<PathBuf>,
}

pub fn run(
    host: &HostApi,
    output: &Path,
    opts: &LtoOptions,
    modules: &mut [ClaimedModule],
) -> Result<Written, String> {
    let resolutions = host_resolutions(host, modules)?;
    // Archive members the host claimed through us but never linked take no part.
    let used: Vec<usize> = (0..modules.len())
        .filter(|&i| resolutions[i].is_some())
        .collect();
    if used.is_empty() {
        return Ok(Written {
            temporaries: Vec::new(),
        });
    }
    let output_type = host.output_type.unwrap_or(api::OutputType::EXEC);
    let shared = output_type == api::OutputType::DYN;
    let link = LinkFacts {
        output: output.to_path_buf(),
        relocatable: output_type == api::OutputType::REL,
        shared,
        pic: shared || output_type == api::OutputType::PIE,
        // The host reports the entry point, -u symbols and the like as referenced by
        // regular objects (PREVAILING_DEF): no root needs naming here.
        roots: Vec::new(),
        threads: None,
        print_timing: false,
    };
    let with_resolutions: Vec<(&ClaimedModule, &[api::Resolution])> = used
        .iter()
        .filter_map(|&i| Some((&modules[i], resolutions[i].as_deref()?)))
        .collect();
    let resolved = Resolved::new(host, &with_resolutions, shared);
    // The driver takes the summaries (the resolutions above were their last other use).
    let summaries = used
        .iter()
        .map(|&i| std::mem::take(&mut modules[i].summary))
        .collect();
    let inputs: Vec<rld_lto::BitcodeInput> = used
        .iter()
        .map(|&i| rld_lto::BitcodeInput {
            name: &modules[i].name,
            data: &modules[i].data,
        })
        .collect();
    let objects = rld_lto_driver::run(&inputs, summaries, &resolved, &link, opts)
        .map_err(|e| format!("rld plugin: LTO failed: {e}"))?;

    let keep = opts.save_temps || opts.obj_path.is_some();
    let mut temporaries = Vec::new();
    for (n, object) in objects.iter().enumerate() {
        let path = object_path(output, opts, n)?;
        std::fs::write(&path, object)
            .map_err(|e| format!("rld plugin: cannot write {}: {e}", path.display()))?;
        if !keep {
            temporaries.push(path.clone());
        }
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| format!("rld plugin: bad object path {}", path.display()))?;
        let add = host.add_input_file.expect("checked in onload");
        // SAFETY: the host copies the path during the call.
        if unsafe { add(c.as_ptr()) } != api::Status::OK {
            return Err(format!(
                "rld plugin: the linker did not take {}",
                path.display()
            ));
        }
    }
    Ok(Written { temporaries })
}

/// Where object `n` goes: `obj-path=` (then `PATH1`, `PATH2`, ...), the output's name with
/// `save-temps` (`OUT.lto.o`, `OUT1.lto.o`, as rld names them), else a new temporary file.
fn object_path(output: &Path, opts: &LtoOptions, n: usize) -> Result<PathBuf, String> {
    let numbered = |base: &Path, suffix: &str| {
        let mut s = base.as_os_str().to_owned();
        if n > 0 {
            s.push(n.to_string());
        }
        s.push(suffix);
        PathBuf::from(s)
    };
    if let Some(path) = &opts.obj_path {
        return Ok(numbered(path, ""));
    }
    if opts.save_temps {
        return Ok(numbered(output, ".lto.o"));
    }
    let dir = std::env::temp_dir();
    for attempt in 0..1000u32 {
        let path = dir.join(format!("rld-plugin-{}-{n}-{attempt}.o", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("rld plugin: cannot create {}: {e}", path.display())),
        }
    }
    Err(format!(
        "rld plugin: no free temporary file name in {}",
        dir.display()
    ))
}
