//! Finding the files that `-lNAME` and linker scripts refer to, the way GNU ld does.
//!
//! A link line rarely names libraries by path: the compiler driver passes `-lc`, `-lgcc_s`
//! and a list of `-L` directories, and Debian's `libc.so` script then names further files.
//! Which file is picked decides what gets linked, so the order of the search has to match
//! GNU ld exactly.
//!
//! Sysroot handling: a search directory written as `=DIR` or `$SYSROOT/DIR` (GNU ld's syntax
//! in `-L` and `SEARCH_DIR`) is taken relative to the sysroot; other directories are used as
//! they are, so the caller passes default directories already prefixed if it wants them in the
//! sysroot.

use std::path::{Path, PathBuf};

/// Finds the file for `-l{name}`.
///
/// * `"foo"`: in each directory in order, `libfoo.so` and then `libfoo.a`, so a shared library
///   beats an archive in the same directory but not one in an earlier directory. With
///   `static_only` (`-Bstatic`, `-static`) only `libfoo.a` is looked for.
/// * `":file"`: exactly `file` in each directory, whatever `static_only` says.
///
/// Returns `None` if nothing matches (or the name is empty).
pub fn find_library(
    name: &str,
    dirs: &[PathBuf],
    static_only: bool,
    sysroot: Option<&Path>,
) -> Option<PathBuf> {
    if name.is_empty() || name == ":" {
        return None;
    }
    let candidates: Vec<String> = match name.strip_prefix(':') {
        Some(file) => vec![file.to_string()],
        None if static_only => vec![format!("lib{name}.a")],
        None => vec![format!("lib{name}.so"), format!("lib{name}.a")],
    };
    dirs.iter()
        .map(|dir| search_dir(dir, sysroot))
        .find_map(|dir| {
            candidates
                .iter()
                .map(|file| dir.join(file))
                .find(|path| path.is_file())
        })
}

/// Finds a library a `.deplibs` section names, as lld does: `lib<name>.so` or
/// `lib<name>.a` in the search directories, else the name as a file in one of them, else
/// the name as a path.
pub fn find_dependent_library(
    name: &str,
    dirs: &[PathBuf],
    static_only: bool,
    sysroot: Option<&Path>,
) -> Option<PathBuf> {
    let as_library = (!name.starts_with(':'))
        .then(|| find_library(name, dirs, static_only, sysroot))
        .flatten();
    as_library
        .or_else(|| {
            dirs.iter()
                .map(|dir| search_dir(dir, sysroot).join(name))
                .find(|path| path.is_file())
        })
        .or_else(|| Path::new(name).exists().then(|| PathBuf::from(name)))
}

/// Finds a script named on the command line (`--version-script FILE`): the file itself if it
/// exists, else a relative name in the library search directories, as GNU ld and lld look
/// for it; else the name as given (whose reading then fails with its name).
pub fn find_script(path: &Path, dirs: &[PathBuf], sysroot: Option<&Path>) -> PathBuf {
    if path.exists() || path.is_absolute() {
        return path.to_path_buf();
    }
    dirs.iter()
        .map(|dir| search_dir(dir, sysroot).join(path))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| path.to_path_buf())
}

/// Finds a file named inside a linker script (`INPUT(...)`, `GROUP(...)`), which lives in
/// `script_dir`.
///
/// * `=PATH` or `$SYSROOT/PATH`: only under the sysroot (or as `PATH` without one), as GNU ld
///   forces for these prefixes.
/// * Absolute paths: under the sysroot first (if given), then as they are. Debian's `libc.so`
///   names `/lib/x86_64-linux-gnu/libc.so.6`, which in a cross sysroot must mean the sysroot's
///   copy; callers that want GNU ld's rule exactly pass a sysroot only when the script itself
///   is inside it.
/// * Relative paths: in the script's directory, then in each search directory in order (e.g.
///   `INPUT(libncurses.so.6 -ltinfo)` next to `libncurses.so.6`).
///
/// Returns `None` if no candidate is an existing file.
pub fn resolve_script_path(
    path: &str,
    script_dir: &Path,
    dirs: &[PathBuf],
    sysroot: Option<&Path>,
) -> Option<PathBuf> {
    if path.is_empty() {
        return None;
    }
    if let Some(rest) = strip_sysroot_marker(path) {
        return Some(under_sysroot(sysroot, rest)).filter(|p| p.is_file());
    }
    if Path::new(path).is_absolute() {
        return sysroot
            .map(|root| under_sysroot(Some(root), path))
            .into_iter()
            .chain(std::iter::once(PathBuf::from(path)))
            .find(|p| p.is_file());
    }
    std::iter::once(script_dir.to_path_buf())
        .chain(dirs.iter().map(|dir| search_dir(dir, sysroot)))
        .map(|dir| dir.join(path))
        .find(|p| p.is_file())
}

/// The part after a leading `=` or `$SYSROOT`, GNU ld's markers for "relative to the sysroot".
fn strip_sysroot_marker(path: &str) -> Option<&str> {
    path.strip_prefix('=')
        .or_else(|| path.strip_prefix("$SYSROOT"))
}

/// The directory a search directory entry refers to, expanding a sysroot marker.
fn search_dir(dir: &Path, sysroot: Option<&Path>) -> PathBuf {
    // Non-UTF-8 directories cannot carry the (ASCII) marker in a form we can strip; they are
    // used as they are.
    match dir.to_str().and_then(strip_sysroot_marker) {
        Some(rest) => under_sysroot(sysroot, rest),
        None => dir.to_path_buf(),
    }
}

/// `path` inside `sysroot`. `Path::join` would discard the sysroot for an absolute `path`, so
/// the leading slashes are removed first. Without a sysroot the path is used as is, which is
/// what GNU ld does with an empty sysroot.
fn under_sysroot(sysroot: Option<&Path>, path: &str) -> PathBuf {
    match sysroot {
        Some(root) => root.join(path.trim_start_matches('/')),
        None => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh directory under the system temp dir, removed on drop. Unique per process and
    /// test so parallel tests and concurrent runs do not collide.
    struct TempTree(PathBuf);

    impl TempTree {
        fn new(files: &[&str]) -> TempTree {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let root = std::env::temp_dir().join(format!(
                "rld-search-test-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = fs::remove_dir_all(&root);
            for file in files {
                let path = root.join(file);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, b"x").unwrap();
            }
            fs::create_dir_all(&root).unwrap();
            TempTree(root)
        }

        fn path(&self, rel: &str) -> PathBuf {
            self.0.join(rel)
        }

        fn dirs(&self, rels: &[&str]) -> Vec<PathBuf> {
            rels.iter().map(|r| self.path(r)).collect()
        }
    }

    impl Drop for TempTree {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn shared_before_static_within_a_directory() {
        let t = TempTree::new(&["a/libfoo.so", "a/libfoo.a", "b/libfoo.so"]);
        let dirs = t.dirs(&["a", "b"]);
        assert_eq!(
            find_library("foo", &dirs, false, None),
            Some(t.path("a/libfoo.so"))
        );
        assert_eq!(
            find_library("foo", &dirs, true, None),
            Some(t.path("a/libfoo.a"))
        );
    }

    #[test]
    fn earlier_directory_wins_over_kind() {
        let t = TempTree::new(&["a/libfoo.a", "b/libfoo.so"]);
        let dirs = t.dirs(&["missing", "a", "b"]);
        assert_eq!(
            find_library("foo", &dirs, false, None),
            Some(t.path("a/libfoo.a"))
        );
    }

    #[test]
    fn static_only_skips_shared() {
        let t = TempTree::new(&["a/libbar.so", "b/libbar.a"]);
        let dirs = t.dirs(&["a", "b"]);
        assert_eq!(
            find_library("bar", &dirs, true, None),
            Some(t.path("b/libbar.a"))
        );
        let t = TempTree::new(&["a/libbar.so"]);
        assert_eq!(find_library("bar", &t.dirs(&["a"]), true, None), None);
    }

    #[test]
    fn exact_file_name() {
        let t = TempTree::new(&["a/libfoo.so", "b/foo.so.1", "b/libz.so"]);
        let dirs = t.dirs(&["a", "b"]);
        assert_eq!(
            find_library(":foo.so.1", &dirs, false, None),
            Some(t.path("b/foo.so.1"))
        );
        // `-l:` names the file exactly even under -Bstatic.
        assert_eq!(
            find_library(":libz.so", &dirs, true, None),
            Some(t.path("b/libz.so"))
        );
        assert_eq!(find_library(":foo", &dirs, false, None), None);
        assert_eq!(find_library(":", &dirs, false, None), None);
        assert_eq!(find_library("", &dirs, false, None), None);
    }

    #[test]
    fn directories_are_not_libraries() {
        let t = TempTree::new(&["a/libfoo.so/inner", "b/libfoo.a"]);
        let dirs = t.dirs(&["a", "b"]);
        assert_eq!(
            find_library("foo", &dirs, false, None),
            Some(t.path("b/libfoo.a"))
        );
    }

    #[test]
    fn sysroot_marked_search_dirs() {
        let t = TempTree::new(&["root/usr/lib/libfoo.so", "root/opt/libbar.a"]);
        let root = t.path("root");
        let dirs = vec![PathBuf::from("=/usr/lib"), PathBuf::from("$SYSROOT/opt")];
        assert_eq!(
            find_library("foo", &dirs, false, Some(&root)),
            Some(t.path("root/usr/lib/libfoo.so"))
        );
        assert_eq!(
            find_library("bar", &dirs, false, Some(&root)),
            Some(t.path("root/opt/libbar.a"))
        );
        // Without a sysroot the marker is dropped and the rest used as is.
        let unmarked = vec![PathBuf::from(format!("={}", t.path("root/opt").display()))];
        assert_eq!(
            find_library("bar", &unmarked, false, None),
            Some(t.path("root/opt/libbar.a"))
        );
    }

    #[test]
    fn script_relative_paths() {
        let t = TempTree::new(&[
            "script/libncurses.so.6",
            "script/both.so",
            "l1/both.so",
            "l1/only-in-l1.so",
            "l2/only-in-l1.so",
        ]);
        let script_dir = t.path("script");
        let dirs = t.dirs(&["l1", "l2"]);
        assert_eq!(
            resolve_script_path("libncurses.so.6", &script_dir, &dirs, None),
            Some(t.path("script/libncurses.so.6"))
        );
        assert_eq!(
            resolve_script_path("both.so", &script_dir, &dirs, None),
            Some(t.path("script/both.so"))
        );
        assert_eq!(
            resolve_script_path("only-in-l1.so", &script_dir, &dirs, None),
            Some(t.path("l1/only-in-l1.so"))
        );
        assert_eq!(
            resolve_script_path("nowhere.so", &script_dir, &dirs, None),
            None
        );
        assert_eq!(resolve_script_path("", &script_dir, &dirs, None), None);
    }

    #[test]
    fn script_absolute_paths() {
        let t = TempTree::new(&[
            "root/lib/libc.so.6",
            "host/lib/libc.so.6",
            "host/lib/libm.so.6",
        ]);
        let root = t.path("root");
        let script_dir = t.path("root/usr/lib");
        // The host path stands in for `/lib/...`; inside the sysroot it is `root/<host path>`.
        let host_libc = t.path("host/lib/libc.so.6");
        let in_root = root.join(host_libc.strip_prefix("/").unwrap());
        fs::create_dir_all(in_root.parent().unwrap()).unwrap();
        fs::write(&in_root, b"x").unwrap();

        let libc = host_libc.to_str().unwrap();
        assert_eq!(
            resolve_script_path(libc, &script_dir, &[], Some(&root)),
            Some(in_root.clone())
        );
        assert_eq!(
            resolve_script_path(libc, &script_dir, &[], None),
            Some(host_libc.clone())
        );
        // Falls back to the path as is when the sysroot lacks it.
        let libm = t.path("host/lib/libm.so.6");
        assert_eq!(
            resolve_script_path(libm.to_str().unwrap(), &script_dir, &[], Some(&root)),
            Some(libm)
        );
        // Absolute paths are never looked up along the search dirs.
        let dirs = t.dirs(&["root/lib"]);
        assert_eq!(
            resolve_script_path("/no/such/dir/libc.so.6", &script_dir, &dirs, None),
            None
        );
    }

    #[test]
    fn script_sysroot_marked_paths() {
        let t = TempTree::new(&["root/lib/libc.so.6", "script/lib/libc.so.6"]);
        let root = t.path("root");
        let script_dir = t.path("script");
        assert_eq!(
            resolve_script_path("=/lib/libc.so.6", &script_dir, &[], Some(&root)),
            Some(t.path("root/lib/libc.so.6"))
        );
        assert_eq!(
            resolve_script_path("$SYSROOT/lib/libc.so.6", &script_dir, &[], Some(&root)),
            Some(t.path("root/lib/libc.so.6"))
        );
        // A marked path is not searched relative to the script.
        assert_eq!(
            resolve_script_path("=lib/libc.so.6", &script_dir, &[], None),
            None
        );
    }
}
