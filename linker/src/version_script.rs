//! `--version-script FILE`: which symbols a shared library exports (`global:`), which it
//! keeps to itself (`local:`), and under which version node each exported symbol is defined
//! (`.gnu.version_d`).
//!
//! Grammar (GNU ld's, as Debian's libraries use it):
//! `NODE { global: a; b*; local: *; } PARENT;` or an anonymous `{ global: ...; local: ...; };`,
//! with `/* */` and `#` comments, `extern "C" { ... }` blocks and `extern "C++" { ... }`
//! blocks, whose patterns match demangled names (`"ns::f(int)"`; a quoted name is never a
//! glob). Precedence is lld's: a name matched exactly wins; then globs other than `*`, the
//! last node's first and, within a node, `global:` before `local:`; then `*`, the first
//! node's first.

use crate::dynamic_list::glob_match;
use crate::error::{LinkError, Result};
use rustc_hash::FxHashMap;
use std::path::Path;

/// One version node (`VERS_1.0 { ... } PARENT;`).
#[derive(Debug, Clone)]
pub struct VersionNode {
    /// Empty for the anonymous node.
    pub name: String,
    pub parent: Option<String>,
}

/// Where a symbol goes, by the script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assignment {
    /// Not mentioned: exported as usual, in the base version.
    Unlisted,
    /// `local:`: not exported.
    Local,
    /// `global:` in node `i` (index into `nodes`).
    Global(usize),
}

#[derive(Debug)]
struct Glob {
    pattern: Vec<u8>,
    node: usize,
    assignment: Assignment,
    /// From an `extern "C++"` block: matched against the demangled name.
    cxx: bool,
}

impl Glob {
    fn is_catch_all(&self) -> bool {
        self.pattern == b"*"
    }

    /// Lower sorts first: other globs by node, last node first, `global:` before `local:`;
    /// then `*`: a `global: *` of any node before `local: *` (lld-22), each kind by node,
    /// first node first.
    fn precedence(&self) -> (bool, bool, isize, bool) {
        let local = self.assignment == Assignment::Local;
        if self.is_catch_all() {
            (true, local, self.node as isize, false)
        } else {
            (false, false, -(self.node as isize), local)
        }
    }
}

#[derive(Debug, Default)]
pub struct VersionScript {
    pub nodes: Vec<VersionNode>,
    exact: FxHashMap<Vec<u8>, Assignment>,
    /// Exact `extern "C++"` names, demangled.
    cxx_exact: FxHashMap<Vec<u8>, Assignment>,
    /// Globs in script order; [`VersionScript::assign`] tries them in precedence order.
    globs: Vec<Glob>,
    /// Exact `global:` names outside `extern "C++"` blocks, in script order, with their
    /// node: `--no-undefined-version` requires each to be defined.
    named_globals: Vec<(Vec<u8>, usize)>,
    /// Exact names outside `extern "C++"` blocks by (name, node), for hidden versions
    /// ([`VersionScript::assign_hidden`]).
    exact_in_node: FxHashMap<(Vec<u8>, usize), Assignment>,
}

impl VersionScript {
    pub fn load(paths: &[std::path::PathBuf]) -> Result<Option<VersionScript>> {
        if paths.is_empty() {
            return Ok(None);
        }
        let mut script = VersionScript::default();
        for path in paths {
            let text = std::fs::read_to_string(path).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    // lld's words.
                    LinkError::Link(format!("cannot find version script {}", path.display()))
                } else {
                    LinkError::cannot_open(path, e)
                }
            })?;
            crate::read_log::note(path);
            script.parse(path, &text)?;
        }
        // lld-22's warning: one of the two is ignored (the precedence says which).
        let catch_all = |local: bool| {
            script
                .globs
                .iter()
                .any(|g| g.is_catch_all() && !g.cxx && (g.assignment == Assignment::Local) == local)
        };
        if catch_all(true) && catch_all(false) {
            crate::diag::warn(
                "wildcard pattern '*' is used for both 'local' and 'global' scopes in version \
                 script",
            );
        }
        Ok(Some(script))
    }

    /// The version scripts, and `--retain-symbols-file` (lld's meaning: as a script
    /// `{ global: NAMES; local: *; }`, every other definition becomes local).
    pub fn load_all(
        paths: &[std::path::PathBuf],
        retain: Option<&Path>,
    ) -> Result<Option<VersionScript>> {
        let Some(retain) = retain else {
            return Self::load(paths);
        };
        let mut script = Self::load(paths)?.unwrap_or_default();
        let text = std::fs::read_to_string(retain).map_err(|e| LinkError::io(retain, e))?;
        crate::read_log::note(retain);
        let node = script.nodes.len();
        script.nodes.push(VersionNode {
            name: String::new(),
            parent: None,
        });
        for name in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            // Names, not patterns: quoted so that `*` in a name is literal.
            script.add_pattern(&format!("\"{name}\""), false, node, false);
        }
        script.add_pattern("*", true, node, false);
        script.globs.sort_by_key(Glob::precedence);
        Ok(Some(script))
    }

    fn parse(&mut self, path: &Path, text: &str) -> Result<()> {
        let bad = |msg: String| {
            LinkError::bad_input(path.display().to_string(), format!("version script: {msg}"))
        };
        let toks = crate::dynamic_list::tokens(text);
        let mut i = 0;
        while i < toks.len() {
            // Optional node name, then `{`.
            let name = if toks[i] == "{" {
                String::new()
            } else {
                let n = toks[i].clone();
                i += 1;
                n
            };
            if toks.get(i).map(String::as_str) != Some("{") {
                return Err(bad(format!("expected '{{' after '{name}'")));
            }
            i += 1;
            let node = self.nodes.len();
            let mut local = false;
            // Inside the node, the one block there may be: `extern "C++" { ... }` (its names
            // are demangled C++ names, which rld matches as written and cannot check for
            // definitions) or `extern "C" { ... }`. Blocks do not nest (as in GNU ld and lld).
            let mut depth = 1;
            let mut cxx = false;
            while depth > 0 {
                let Some(t) = toks.get(i) else {
                    return Err(bad("unterminated version node".into()));
                };
                i += 1;
                let in_cxx = cxx;
                let add = |this: &mut Self, pattern: &str, local: bool| {
                    this.add_pattern(pattern, local, node, in_cxx)
                };
                match t.as_str() {
                    "extern" => {
                        let lang = toks.get(i).map_or("", String::as_str);
                        if depth > 1 {
                            return Err(bad("'extern' inside an 'extern' block".into()));
                        }
                        if lang != "\"C++\"" && lang != "\"C\"" {
                            return Err(bad(format!(
                                "expected \"C\" or \"C++\" after 'extern', found '{lang}'"
                            )));
                        }
                        if toks.get(i + 1).map(String::as_str) != Some("{") {
                            return Err(bad(format!("expected '{{' after 'extern {lang}'")));
                        }
                        cxx = lang == "\"C++\"";
                        depth += 1;
                        i += 2;
                    }
                    "{" => {
                        return Err(bad(
                            "unexpected '{' (inside a version node only 'extern \"C++\" {' \
                             opens a block)"
                                .into(),
                        ))
                    }
                    "}" => {
                        cxx = false;
                        depth -= 1;
                    }
                    ";" => {}
                    "global" | "local" if toks.get(i).map(String::as_str) == Some(":") => {
                        local = t == "local";
                        i += 1;
                    }
                    t if t.starts_with("global:") || t.starts_with("local:") => {
                        local = t.starts_with("local:");
                        let rest = &t[t.find(':').unwrap() + 1..];
                        if !rest.is_empty() {
                            add(self, rest, local);
                        }
                    }
                    pattern => add(self, pattern, local),
                }
            }
            // Optional parent node, then `;`.
            let mut parent = None;
            if let Some(t) = toks.get(i) {
                if t != ";" {
                    parent = Some(t.clone());
                    i += 1;
                }
            }
            if toks.get(i).map(String::as_str) == Some(";") {
                i += 1;
            }
            self.nodes.push(VersionNode { name, parent });
        }
        // Stable: script order within equal precedence.
        self.globs.sort_by_key(Glob::precedence);
        Ok(())
    }

    /// Adds the nodes of a linker script's `VERSION { ... }` command (`origin` names the
    /// script in errors).
    pub fn add_text(&mut self, origin: &Path, text: &str) -> Result<()> {
        self.parse(origin, text)
    }

    /// `--default-symver` (GNU ld's): every exported symbol gets the version `name` (the
    /// output's soname), as the script `NAME { global: *; };` would give it.
    pub fn default_version(name: &str) -> VersionScript {
        let mut script = VersionScript::default();
        script.nodes.push(VersionNode {
            name: name.to_string(),
            parent: None,
        });
        script.add_pattern("*", false, 0, false);
        script.globs.sort_by_key(Glob::precedence);
        script
    }

    fn add_pattern(&mut self, pattern: &str, local: bool, node: usize, cxx: bool) {
        let assignment = if local {
            Assignment::Local
        } else {
            Assignment::Global(node)
        };
        let quoted = pattern.len() >= 2 && pattern.starts_with('"') && pattern.ends_with('"');
        let pattern = pattern.trim_matches('"').as_bytes().to_vec();
        if !quoted && pattern.iter().any(|c| matches!(c, b'*' | b'?' | b'[')) {
            self.globs.push(Glob {
                pattern,
                node,
                assignment,
                cxx,
            });
        } else if cxx {
            self.cxx_exact.entry(pattern).or_insert(assignment);
        } else {
            if !local {
                self.named_globals.push((pattern.clone(), node));
            }
            self.exact_in_node
                .entry((pattern.clone(), node))
                .or_insert(assignment);
            // The first node to name a symbol exactly keeps it.
            self.exact.entry(pattern).or_insert(assignment);
        }
    }

    /// Exact `global:` names (outside `extern "C++"`), each with the name of its node.
    pub fn named_globals(&self) -> impl Iterator<Item = (&[u8], &str)> {
        self.named_globals
            .iter()
            .map(|(name, node)| (name.as_slice(), self.nodes[*node].name.as_str()))
    }

    /// The assignment of a defined symbol (see the module's note for the precedence).
    pub fn assign(&self, name: &[u8]) -> Assignment {
        if let Some(&a) = self.exact.get(name) {
            return a;
        }
        let cxx_used = !self.cxx_exact.is_empty() || self.globs.iter().any(|g| g.cxx);
        let demangled = if cxx_used {
            crate::demangle::demangle(name)
        } else {
            None
        };
        // A name that is not mangled is its own demangling: `extern "C++"` patterns match
        // C names too, as lld matches them.
        let cxx_name = demangled.as_ref().map_or(name, |d| d.as_bytes());
        if cxx_used {
            if let Some(&a) = self.cxx_exact.get(cxx_name) {
                return a;
            }
        }
        for g in &self.globs {
            let subject = if g.cxx { cxx_name } else { name };
            if glob_match(&g.pattern, subject) {
                return g.assignment;
            }
        }
        Assignment::Unlisted
    }

    /// The assignment of `name@VER`, a definition with the hidden version of node `node`
    /// (VER): only that node's patterns apply, as `PATTERN@VER` (lld's rule; GNU ld comes
    /// to the same), so its `local: *` hides it unless it names the symbol, and naming the
    /// symbol in another node does not keep it.
    pub fn assign_hidden(&self, name: &[u8], node: usize) -> Assignment {
        if let Some(&a) = self.exact_in_node.get(&(name.to_vec(), node)) {
            return a;
        }
        let demangled = self
            .globs
            .iter()
            .any(|g| g.cxx && g.node == node)
            .then(|| crate::demangle::demangle(name))
            .flatten();
        let cxx_name = demangled.as_ref().map_or(name, |d| d.as_bytes());
        self.globs
            .iter()
            .filter(|g| g.node == node)
            .find(|g| glob_match(&g.pattern, if g.cxx { cxx_name } else { name }))
            .map_or(Assignment::Unlisted, |g| g.assignment)
    }

    /// The position of the node named `name` among the script's nodes.
    pub fn node_position(&self, name: &[u8]) -> Option<usize> {
        self.nodes.iter().position(|n| n.name.as_bytes() == name)
    }

    /// The name of node `node` ("" for an anonymous one).
    pub fn node_name(&self, node: usize) -> &str {
        &self.nodes[node].name
    }

    /// Named nodes get version indices 2.. in order (1 is the base version).
    pub fn version_index(&self, node: usize) -> u16 {
        let named_before = self.nodes[..node]
            .iter()
            .filter(|n| !n.name.is_empty())
            .count();
        if self.nodes[node].name.is_empty() {
            1
        } else {
            2 + named_before as u16
        }
    }

    /// The version index of the node named `name`, if the script defines it.
    pub fn node_index(&self, name: &[u8]) -> Option<u16> {
        let node = self.nodes.iter().position(|n| n.name.as_bytes() == name)?;
        Some(self.version_index(node))
    }

    pub fn named_nodes(&self) -> impl Iterator<Item = &VersionNode> {
        self.nodes.iter().filter(|n| !n.name.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(text: &str) -> VersionScript {
        let mut s = VersionScript::default();
        s.parse(Path::new("t.map"), text).unwrap();
        s
    }

    #[test]
    fn nodes_globals_locals_and_parents() {
        let s = script(
            "VERS_1.0 { global: foo; bar_*; local: *; };\n/* c */ VERS_2.0 { global: baz; } VERS_1.0;\n",
        );
        assert_eq!(s.assign(b"foo"), Assignment::Global(0));
        assert_eq!(s.assign(b"bar_x"), Assignment::Global(0));
        assert_eq!(s.assign(b"baz"), Assignment::Global(1));
        assert_eq!(s.assign(b"secret"), Assignment::Local);
        assert_eq!(s.nodes[1].parent.as_deref(), Some("VERS_1.0"));
        assert_eq!(s.version_index(0), 2);
        assert_eq!(s.version_index(1), 3);
    }

    #[test]
    fn anonymous_node() {
        let s = script("{ global: api_*; local: *; };");
        assert_eq!(s.assign(b"api_open"), Assignment::Global(0));
        assert_eq!(s.version_index(0), 1);
        assert_eq!(s.assign(b"helper"), Assignment::Local);
    }

    #[test]
    fn exact_beats_glob_and_unlisted_stays() {
        let s = script("V1 { global: *; local: hidden_one; };");
        assert_eq!(s.assign(b"hidden_one"), Assignment::Local);
        assert_eq!(s.assign(b"other"), Assignment::Global(0));
        let s = script("V1 { global: a; };");
        assert_eq!(s.assign(b"b"), Assignment::Unlisted);
    }

    #[test]
    fn named_globals_skip_globs_locals_and_cxx_names() {
        let s = script(
            "V1 { global: a; b*; extern \"C++\" { ns::f; }; c; local: d; };\n{ global: e; };",
        );
        let names: Vec<(&[u8], &str)> = s.named_globals().collect();
        assert_eq!(
            names,
            [(&b"a"[..], "V1"), (&b"c"[..], "V1"), (&b"e"[..], "")]
        );
    }

    #[test]
    fn errors_name_the_file() {
        let mut s = VersionScript::default();
        let e = s
            .parse(Path::new("broken.map"), "V1 { global: a;")
            .unwrap_err();
        assert!(e.to_string().contains("broken.map"), "{e}");
    }
}
