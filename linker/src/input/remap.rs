//! `--remap-inputs=FROM=TO` and `--remap-inputs-file=FILE` (lld's): an input whose path
//! matches FROM (a glob) is read from TO instead; TO `/dev/null` leaves the input out.
//! Names without glob characters match exactly and are looked at first; then the globs,
//! in order, the files' lines before the options'.

use crate::error::{LinkError, Result};
use std::path::{Path, PathBuf};

/// Where each remapped input is read from.
#[derive(Debug, Clone, Default)]
pub struct Remap {
    exact: Vec<(String, PathBuf)>,
    globs: Vec<(String, PathBuf)>,
}

/// What becomes of an input.
pub enum Remapped {
    /// Read from this path (its own, or the one it is remapped to).
    Read(PathBuf),
    /// Remapped to `/dev/null`: not an input.
    Dropped,
}

impl Remap {
    /// The table of `opts`, read once per link (libraries `.deplibs` or a plugin adds
    /// are collected later, with the same table).
    pub fn of(opts: &crate::options::Options) -> Result<&Remap> {
        if let Some(table) = opts.remap_table.get() {
            return Ok(table);
        }
        let table = Remap::new(&opts.remap_inputs_files, &opts.remap_inputs)?;
        Ok(opts.remap_table.get_or_init(|| table))
    }

    /// The table `files` (read now) and `specs` give, in lld's words when one is not
    /// `from-glob=to-file`.
    pub fn new(files: &[PathBuf], specs: &[String]) -> Result<Remap> {
        let mut remap = Remap::default();
        for file in files {
            let text =
                std::fs::read_to_string(file).map_err(|e| LinkError::cannot_open(file, e))?;
            // lld's reading: lines trimmed, the empty ones and those starting with `#` left
            // out (and not counted).
            let lines = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'));
            for (n, line) in lines.enumerate() {
                remap.add(line).ok_or_else(|| {
                    LinkError::Link(format!(
                        "{}:{}: parse error, not 'from-glob=to-file'",
                        file.display(),
                        n + 1
                    ))
                })?;
            }
        }
        for spec in specs {
            remap.add(spec).ok_or_else(|| {
                LinkError::Link("--remap-inputs: parse error, not 'from-glob=to-file'".into())
            })?;
        }
        Ok(remap)
    }

    fn add(&mut self, spec: &str) -> Option<()> {
        let (from, to) = spec.split_once('=')?;
        if from.is_empty() || to.is_empty() {
            return None;
        }
        let entry = (from.to_string(), PathBuf::from(to));
        if from.contains(['*', '?', '[', '\\']) {
            self.globs.push(entry);
        } else {
            self.exact.push(entry);
        }
        Some(())
    }

    /// Where `path` is read from.
    pub fn apply(&self, path: &Path) -> Remapped {
        if self.exact.is_empty() && self.globs.is_empty() {
            return Remapped::Read(path.to_path_buf());
        }
        let name = path.to_string_lossy();
        let to = self
            .exact
            .iter()
            .find(|(from, _)| *from == name)
            .or_else(|| {
                self.globs.iter().find(|(from, _)| {
                    crate::dynamic_list::glob_match(from.as_bytes(), name.as_bytes())
                })
            })
            .map(|(_, to)| to);
        match to {
            Some(to) if to == Path::new("/dev/null") => Remapped::Dropped,
            Some(to) => Remapped::Read(to.clone()),
            None => Remapped::Read(path.to_path_buf()),
        }
    }
}
