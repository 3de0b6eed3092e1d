//! `--error-handling-script=SCRIPT` (GNU ld's and lld's): for an undefined symbol or a
//! library `-l` does not find, the link runs `SCRIPT undefined-symbol NAME` or `SCRIPT
//! missing-lib NAME` before it reports the error, so that a build can say what to install
//! or which library to add. The error stands either way; a script that cannot run or fails
//! adds an error of its own, in lld's words.

use std::path::Path;

/// What the error is about, as the script's first argument names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    UndefinedSymbol,
    MissingLib,
}

impl Tag {
    fn name(self) -> &'static str {
        match self {
            Tag::UndefinedSymbol => "undefined-symbol",
            Tag::MissingLib => "missing-lib",
        }
    }
}

/// Runs `script` (if any) for an error about `subject`; the errors to report: `error`, and
/// one more if the script did not run or end well.
pub fn report(script: Option<&Path>, tag: Tag, subject: &str, error: String) -> Vec<String> {
    let Some(script) = script else {
        return vec![error];
    };
    let status = std::process::Command::new(script)
        .arg(tag.name())
        .arg(subject)
        .status();
    let name = script.display();
    let failure = match status {
        Ok(s) if s.success() => None,
        Ok(s) => Some(match s.code() {
            Some(code) => format!("error handling script '{name}' exited with code {code}"),
            None => format!("error handling script '{name}' crashed or timeout"),
        }),
        Err(_) => Some(format!("error handling script '{name}' failed to execute")),
    };
    std::iter::once(error).chain(failure).collect()
}
