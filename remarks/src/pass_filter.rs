/// Selects remarks by pass name, like `--opt-remarks-passes`: LLVM searches the pass name for
/// the regex (a match anywhere counts, not only a full match).
#[derive(Debug, Clone)]
pub struct RemarkFilter {
    pattern: Option<regex::Regex>,
}

impl RemarkFilter {
    /// `None` accepts every pass.
    pub fn new(pass_regex: Option<&str>) -> Result<Self, regex::Error> {
        Ok(RemarkFilter {
            pattern: pass_regex.map(regex::Regex::new).transpose()?,
        })
    }

    pub fn accepts(&self, pass: &str) -> bool {
        self.pattern.as_ref().is_none_or(|p| p.is_match(pass))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_searches_the_pass_name() {
        let all = RemarkFilter::new(None).unwrap();
        assert!(all.accepts("inline"));
        let lto = RemarkFilter::new(Some("lto")).unwrap();
        assert!(lto.accepts("lto"));
        assert!(lto.accepts("thinlto-import"));
        assert!(!lto.accepts("inline"));
        let anchored = RemarkFilter::new(Some("^(inline|lto)$")).unwrap();
        assert!(anchored.accepts("inline"));
        assert!(!anchored.accepts("always-inline"));
        assert!(RemarkFilter::new(Some("(")).is_err());
    }
}
