//! GNU ld linker scripts that appear as link inputs.
//!
//! Debian ships several `lib*.so` files that are not ELF but short GNU ld scripts, e.g.
//! `/usr/lib/x86_64-linux-gnu/libc.so`:
//!
//! ```text
//! OUTPUT_FORMAT(elf64-x86-64)
//! GROUP ( /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a  AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )
//! ```
//!
//! Every `-lc` goes through such a file, so the linker has to understand it. Scripts given
//! with `-T` use more of the language; this module reads the commands that name inputs
//! (`INPUT`, `GROUP`, `AS_NEEDED`, `OUTPUT_FORMAT`, `OUTPUT_ARCH`, `SEARCH_DIR`, `ENTRY`,
//! `INCLUDE`), symbol assignments (`sym = expr;`, the compound forms, `PROVIDE`, `HIDDEN`,
//! `PROVIDE_HIDDEN`), `ASSERT`, `VERSION`, and `SECTIONS` (output section descriptions
//! with addresses, `ALIGN`, `AT`, memory regions, input section patterns, `KEEP`, `SORT`,
//! `/DISCARD/`, and assignments
//! to symbols and to the location counter; see `script_layout`). What the linker cannot
//! honour yet (`FILL`, `OVERLAY`) is
//! rejected with [`ScriptError::Unsupported`] rather than silently ignored, because
//! ignoring it would produce a different binary than GNU ld.
//!
//! Finding the files a script names is left to the caller (see `search.rs`), because that
//! depends on the command line's search directories and sysroot.

use crate::script_expr::{self, BinOp, Expr, SectionFn};
use std::ops::Range;

/// One file a script asks to link, in script order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptInput {
    /// A file name, searched for as `search::resolve_script_path` describes.
    Path { path: String, as_needed: bool },
    /// `-lNAME` inside a script (`name` = "NAME", or ":FILE" for `-l:FILE`), searched like `-l` on
    /// the command line.
    Library { name: String, as_needed: bool },
}

/// What a script asks for. Commands that only restate the defaults are still recorded so the
/// caller can check them (e.g. reject a script for another output format).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LinkerScript {
    /// Files from `INPUT(...)` and `GROUP(...)`, in script order.
    pub inputs: Vec<ScriptInput>,
    /// Index ranges into `inputs` that came from one `GROUP(...)`; their archives are rescanned
    /// together like `--start-group ... --end-group`. Empty groups are not recorded.
    pub groups: Vec<Range<usize>>,
    /// `SEARCH_DIR(dir)` directories, in script order.
    pub search_dirs: Vec<String>,
    /// `OUTPUT_FORMAT(...)`. For the three-argument form this is the first (default-endian)
    /// format, which is what GNU ld uses without `-EB`/`-EL`. The last command wins.
    pub output_format: Option<String>,
    /// `ENTRY(sym)`. The last command wins, as in GNU ld.
    pub entry: Option<String>,
    /// Symbol assignments, in script order.
    pub assignments: Vec<Assignment>,
    /// `ASSERT(expr, "message")`: (expression, message, line).
    pub asserts: Vec<(Expr, String, usize)>,
    /// The bodies of `VERSION { ... }` commands (version script text).
    pub versions: Vec<String>,
    /// `INCLUDE file`: (file, line).
    pub includes: Vec<(String, usize)>,
    /// `SECTIONS { ... }`, if the script has one.
    pub sections: Option<Vec<SectionsCommand>>,
    /// `MEMORY { ... }`: the regions output sections may be placed in.
    pub memory: Vec<MemoryRegion>,
    /// `PHDRS { ... }`: the program headers, exactly, when given.
    pub phdrs: Vec<PhdrSpec>,
    /// `INSERT AFTER|BEFORE SECTION`: `SECTIONS` adds to the usual layout there
    /// (`true` for AFTER) instead of replacing it.
    pub insert: Option<(bool, String)>,
}

/// `NAME TYPE [FILEHDR] [PHDRS] [FLAGS(N)];` of `PHDRS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhdrSpec {
    pub name: String,
    pub p_type: u32,
    /// The segment holds the ELF header (`FILEHDR`).
    pub filehdr: bool,
    /// The segment holds the program headers (`PHDRS`).
    pub phdrs: bool,
    pub flags: Option<Expr>,
    pub line: usize,
}

/// `NAME [(ATTRIBUTES)] : ORIGIN = EXPR, LENGTH = EXPR` of `MEMORY`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryRegion {
    pub name: String,
    /// The attributes in parentheses (`rx`, `!w`, ...), as written.
    pub attributes: String,
    pub origin: Expr,
    pub length: Expr,
    pub line: usize,
}

/// One command of `SECTIONS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SectionsCommand {
    /// `sym = expr;`, `. = expr;` (the location counter), `PROVIDE(...)`.
    Assign(Assignment),
    Output(Box<OutputDescription>),
}

/// `NAME [ADDRESS] : [ALIGN(A)] { ITEMS }`; `/DISCARD/` drops what it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputDescription {
    pub name: String,
    pub address: Option<Expr>,
    pub align: Option<Expr>,
    /// `> REGION`: the memory region the section is allocated in.
    pub region: Option<String>,
    /// `AT(LMA)`: where the section is loaded, if not at its address.
    pub lma: Option<Expr>,
    /// `AT > REGION`: the region its load address is allocated in.
    pub lma_region: Option<String>,
    /// `:NAME...`: the program headers (of `PHDRS`) it goes in.
    pub phdrs: Vec<String>,
    /// `(NOLOAD)`: the section takes memory but no room in the file.
    pub noload: bool,
    /// `(COPY)`, `(INFO)`, `(OVERLAY)`: the section is not allocated (lld's reading).
    pub not_allocated: bool,
    /// `=FILL` after the section or `FILL(FILL)` inside it (lld reads both as the fill of
    /// the whole section): the gaps between its contents repeat these 4 bytes.
    pub fill: Option<Expr>,
    /// `ONLY_IF_RO`/`ONLY_IF_RW`: the description counts only if its inputs are all
    /// read-only, or some are writable.
    pub constraint: Option<Constraint>,
    /// One of an `OVERLAY`'s sections: its addresses may overlap the others'.
    pub overlay: bool,
    /// `SUBALIGN(A)`: every input section in it aligned to A instead of its own alignment.
    pub subalign: Option<Expr>,
    pub items: Vec<OutputItem>,
    pub line: usize,
}

/// What follows an output section description's closing brace.
struct Trailer {
    region: Option<String>,
    lma_region: Option<String>,
    phdrs: Vec<String>,
    fill: Option<Expr>,
}

/// `ONLY_IF_RO` or `ONLY_IF_RW` after an output section's colon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constraint {
    ReadOnly,
    ReadWrite,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputItem {
    /// `[KEEP(] FILE(SECTIONS...) [)]`: globs for the file and the section names.
    Input {
        file: String,
        sections: Vec<String>,
        keep: bool,
        sort: Sort,
        /// The inner `SORT...` of a nested one (`SORT_BY_NAME(SORT_BY_ALIGNMENT(...))`):
        /// the order among sections the outer one ranks equal.
        inner_sort: Sort,
        /// `EXCLUDE_FILE(...)`: files (globs) whose sections this description skips.
        exclude: Vec<String>,
    },
    Assign(Assignment),
    /// `BYTE(EXPR)`, `SHORT`, `LONG`, `QUAD`, `SQUAD`: the value stored in `size` bytes.
    Data {
        size: u8,
        expr: Expr,
    },
}

/// An input section description's section patterns, its `SORT` and the one nested in it,
/// and the `EXCLUDE_FILE` globs among them.
type SectionPatterns = (Vec<String>, [Sort; 2], Vec<String>);

/// How the sections one input section description matches are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// No `SORT`: in input order, unless `--sort-section` names an order.
    #[default]
    None,
    /// `SORT_NONE`: in input order, whatever `--sort-section` says.
    Never,
    /// `SORT`/`SORT_BY_NAME`: by section name.
    Name,
    /// `SORT_BY_ALIGNMENT`: most aligned first.
    Alignment,
    /// `SORT_BY_INIT_PRIORITY`: by the number ending the name (`.init_array.101`).
    InitPriority,
}

/// `sym = expr;` (or `+=`, ..., `PROVIDE(sym = expr)`, `HIDDEN(...)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub name: String,
    pub expr: Expr,
    /// `PROVIDE`: defines the symbol only if something refers to it and nothing defines it.
    pub provide: bool,
    /// `HIDDEN`/`PROVIDE_HIDDEN`: the symbol is hidden.
    pub hidden: bool,
    pub line: usize,
}

/// Why a script could not be parsed. Line numbers are 1-based; the message leaves the
/// place (`file:line:`) to the caller.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError {
    /// lld's words.
    #[error("unclosed comment in a linker script")]
    UnterminatedComment { line: usize },
    #[error("unterminated quoted name (expected `\"`)")]
    UnterminatedString { line: usize },
    #[error("expected {expected}, found {found}")]
    Unexpected {
        line: usize,
        found: String,
        expected: String,
    },
    #[error("`{command}(` is never closed (expected `)`)")]
    Unclosed { line: usize, command: String },
    #[error(
        "unsupported command `{command}` (rld supports INPUT, \
         GROUP, AS_NEEDED, OUTPUT_FORMAT, OUTPUT_ARCH, SEARCH_DIR, ENTRY, INCLUDE, VERSION, \
         ASSERT, symbol assignments and SECTIONS with output sections, input section \
         patterns, KEEP, SORT, /DISCARD/, data commands, MEMORY regions, AT, PHDRS and \
         INSERT; not yet OVERLAY or FILL)"
    )]
    Unsupported { line: usize, command: String },
    #[error("{message}")]
    Expression { line: usize, message: String },
}

impl ScriptError {
    /// The line of the script the error is on.
    pub fn line(&self) -> usize {
        match self {
            ScriptError::UnterminatedComment { line }
            | ScriptError::UnterminatedString { line }
            | ScriptError::Unexpected { line, .. }
            | ScriptError::Unclosed { line, .. }
            | ScriptError::Unsupported { line, .. }
            | ScriptError::Expression { line, .. } => *line,
        }
    }
}

/// How many leading bytes [`looks_like_script`] inspects; enough to tell text from binary
/// without reading a large file.
const SNIFF_LEN: usize = 512;

/// Whether `data` could be a linker script: non-empty text, i.e. its first 512 bytes are valid
/// UTF-8 (a character cut off by the 512-byte limit is allowed) and contain no NUL.
///
/// The linker only asks this about files that are not ELF, archives or bitcode, so a cheap
/// sniff suffices; [`parse_script`] reports anything that is text but not a script. Empty
/// files are rejected because "empty script" would hide a truncated input.
pub fn looks_like_script(data: &[u8]) -> bool {
    let head = &data[..data.len().min(SNIFF_LEN)];
    if head.is_empty() || head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        // `error_len() == None` means the bytes end in the middle of a valid character.
        Err(e) => e.error_len().is_none() && head.len() == SNIFF_LEN,
    }
}

/// Parses the text of a linker script.
pub fn parse_script(text: &str) -> Result<LinkerScript, ScriptError> {
    let tokens = tokenize(text)?;
    let last_line = 1 + text.matches('\n').count();
    Parser {
        text,
        in_sections: false,
        tokens,
        pos: 0,
        last_line,
        script: LinkerScript::default(),
    }
    .parse()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    /// An unquoted run of name characters: a command, file name, `-lNAME` or argument.
    Word(&'a str),
    /// A `"..."` name. GNU ld does no escape processing inside quotes, and a quoted name is
    /// always a file name (a quoted `"-lfoo"` names a file called `-lfoo`).
    Quoted(&'a str),
    /// `(`, `)`, `,`, `;`, `{` or `}`.
    Punct(char),
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    tok: Tok<'a>,
    line: usize,
    /// Where the token starts in the text (expressions are read from the text itself).
    start: usize,
}

impl Tok<'_> {
    fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Quoted(q) => format!("\"{q}\""),
            Tok::Punct(c) => format!("`{c}`"),
        }
    }
}

/// Bytes that end an unquoted word. `=` is deliberately not one: `=/usr/lib/...` is a
/// sysroot-relative file name.
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'(' | b')' | b',' | b';' | b'{' | b'}' | b'"')
}

fn tokenize(text: &str) -> Result<Vec<Token<'_>>, ScriptError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // All delimiters are ASCII, so every slice boundary below is a UTF-8 character boundary.
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
            i += 1;
        } else if b.is_ascii_whitespace() {
            i += 1;
        } else if bytes[i..].starts_with(b"/*") {
            let body = &text[i + 2..];
            let end = body
                .find("*/")
                .ok_or(ScriptError::UnterminatedComment { line })?;
            line += body[..end].matches('\n').count();
            i += 2 + end + 2;
        } else if b == b'"' {
            let body = &text[i + 1..];
            let end = body
                .find('"')
                .ok_or(ScriptError::UnterminatedString { line })?;
            tokens.push(Token {
                tok: Tok::Quoted(&body[..end]),
                line,
                start: i,
            });
            line += body[..end].matches('\n').count();
            i += 1 + end + 1;
        } else if is_delimiter(b) {
            tokens.push(Token {
                tok: Tok::Punct(char::from(b)),
                line,
                start: i,
            });
            i += 1;
        } else {
            let start = i;
            // A comment may directly follow a word (`libc.so.6/* why */`).
            while i < bytes.len() && !is_delimiter(bytes[i]) && !bytes[i..].starts_with(b"/*") {
                i += 1;
            }
            tokens.push(Token {
                tok: Tok::Word(&text[start..i]),
                line,
                start,
            });
        }
    }
    Ok(tokens)
}

/// If `text` starts with a symbol name followed by an assignment operator (`=`, `+=`,
/// `-=`, `*=`, `/=`, `<<=`, `>>=`, `&=`, `|=`; not `==`), the operator's offset.
fn assignment_operator(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'"') {
        i = 1 + text[1..].find('"')? + 1;
    } else {
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_.$@".contains(&b[i])) {
            i += 1;
        }
    }
    if i == 0 {
        return None;
    }
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let rest = &text[i..];
    const OPS: [&str; 9] = ["<<=", ">>=", "+=", "-=", "*=", "/=", "&=", "|=", "="];
    let op = OPS.iter().find(|op| rest.starts_with(*op))?;
    (*op != "=" || !rest.starts_with("==")).then_some(i)
}

struct Parser<'a> {
    text: &'a str,
    /// Reading inside `SECTIONS`: `.` is the location counter.
    in_sections: bool,
    tokens: Vec<Token<'a>>,
    pos: usize,
    /// Reported for errors at the end of the script.
    last_line: usize,
    script: LinkerScript,
}

const END: &str = "end of script";

impl<'a> Parser<'a> {
    fn next(&mut self) -> Option<Token<'a>> {
        let t = self.tokens.get(self.pos).copied();
        self.pos += 1;
        t
    }

    fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).copied()
    }

    fn unexpected(&self, found: Option<Token<'a>>, expected: impl Into<String>) -> ScriptError {
        let (line, found) = match found {
            Some(t) => (t.line, t.tok.describe()),
            None => (self.last_line, END.to_string()),
        };
        ScriptError::Unexpected {
            line,
            found,
            expected: expected.into(),
        }
    }

    fn parse(mut self) -> Result<LinkerScript, ScriptError> {
        while let Some(t) = self.next() {
            match t.tok {
                // GNU ld accepts stray `;` between commands.
                Tok::Punct(';') => {}
                Tok::Word(name) => {
                    if let Some(op_at) = assignment_operator(&self.text[t.start..]) {
                        self.assignment(t, t.start + op_at, false, false)?;
                    } else {
                        self.command(name, t.line)?;
                    }
                }
                _ => return Err(self.unexpected(Some(t), "a command such as INPUT or GROUP")),
            }
        }
        Ok(self.script)
    }

    fn command(&mut self, name: &'a str, line: usize) -> Result<(), ScriptError> {
        match name {
            "INPUT" => {
                self.expect_open(name)?;
                self.input_list(name, line, false)?;
            }
            "GROUP" => {
                self.expect_open(name)?;
                let start = self.script.inputs.len();
                self.input_list(name, line, false)?;
                let end = self.script.inputs.len();
                if end > start {
                    self.script.groups.push(start..end);
                }
            }
            "AS_NEEDED" => {
                return Err(ScriptError::Unexpected {
                    line,
                    found: "`AS_NEEDED`".to_string(),
                    expected: "a command (AS_NEEDED is only valid inside INPUT or GROUP)"
                        .to_string(),
                })
            }
            "OUTPUT_FORMAT" => {
                // GNU ld's grammar: `(default)` or `(default, big-endian, little-endian)`.
                self.expect_open(name)?;
                let default = self.expect_name(name)?;
                match self.next() {
                    Some(Token {
                        tok: Tok::Punct(')'),
                        ..
                    }) => {}
                    Some(Token {
                        tok: Tok::Punct(','),
                        ..
                    }) => {
                        self.expect_name(name)?;
                        self.expect_punct(',', "`,` and a third format name")?;
                        self.expect_name(name)?;
                        self.expect_close(name, line)?;
                    }
                    other => return Err(self.unexpected(other, "`)` or `,` in OUTPUT_FORMAT")),
                }
                self.script.output_format = Some(default);
            }
            "OUTPUT_ARCH" => {
                // Implied by the format; rld only links x86-64, so it is checked for syntax only.
                self.single_argument(name, line)?;
            }
            "SEARCH_DIR" => {
                let dir = self.single_argument(name, line)?;
                self.script.search_dirs.push(dir);
            }
            "ENTRY" => {
                let entry = self.single_argument(name, line)?;
                self.script.entry = Some(entry);
            }
            "PROVIDE" | "PROVIDE_HIDDEN" | "HIDDEN" => {
                self.expect_open(name)?;
                let Some(first) = self.next() else {
                    return Err(ScriptError::Unclosed {
                        line,
                        command: name.to_string(),
                    });
                };
                let op_at = assignment_operator(&self.text[first.start..])
                    .ok_or_else(|| self.unexpected(Some(first), "an assignment `sym = expr`"))?;
                self.assignment_until(
                    first,
                    first.start + op_at,
                    ')',
                    name != "HIDDEN",
                    name != "PROVIDE",
                )?;
            }
            "ASSERT" => {
                self.expect_open(name)?;
                let start = self.peek().map_or(self.text.len(), |t| t.start);
                let end = self.statement_end(start, ')');
                let body = &self.text[start..end.min(self.text.len())];
                // The message may hold commas: the separator is the last one before it.
                let message_at = body.find('"').unwrap_or(body.len());
                let comma = body[..message_at]
                    .rfind(',')
                    .ok_or(ScriptError::Unexpected {
                        line,
                        found: "no message".into(),
                        expected: "ASSERT(expression, \"message\")".into(),
                    })?;
                let expr = self.expression(&body[..comma], line)?;
                let message = body[comma + 1..].trim().trim_matches('"').to_string();
                self.script.asserts.push((expr, message, line));
                self.skip_to(end + 1);
            }
            "VERSION" => {
                let (start, end, _) = self.braced(name, line)?;
                self.script.versions.push(self.text[start..end].to_string());
                self.skip_to(end + 1);
            }
            "PHDRS" => {
                let (start, end, first_line) = self.braced(name, line)?;
                self.program_headers(start, end, first_line)?;
                self.skip_to(end + 1);
            }
            "MEMORY" => {
                let (start, end, first_line) = self.braced(name, line)?;
                self.memory_regions(start, end, first_line)?;
                self.skip_to(end + 1);
            }
            "SECTIONS" => {
                if self.script.sections.is_some() {
                    return Err(self.unsupported("a second SECTIONS", line));
                }
                self.expect_punct('{', "`{` after SECTIONS")?;
                let commands = self.sections_body(line)?;
                self.script.sections = Some(commands);
            }
            "INSERT" => {
                let after = match self.next() {
                    Some(Token {
                        tok: Tok::Word("AFTER"),
                        ..
                    }) => true,
                    Some(Token {
                        tok: Tok::Word("BEFORE"),
                        ..
                    }) => false,
                    other => return Err(self.unexpected(other, "AFTER or BEFORE after INSERT")),
                };
                let anchor = self.expect_name("INSERT")?;
                if self.script.sections.is_none() {
                    return Err(self.unexpected(None, "SECTIONS before INSERT"));
                }
                self.script.insert = Some((after, anchor));
            }
            "INCLUDE" => {
                let file = self.expect_name(name)?;
                self.script.includes.push((file, line));
            }
            _ => return Err(self.unsupported(name, line)),
        }
        Ok(())
    }

    /// `(EXPR)` after `command` (`AT`, `ALIGN`, `LONG`, ...), read as inside `SECTIONS`.
    fn parenthesized(&mut self, command: &str, line: usize) -> Result<Expr, ScriptError> {
        self.expect_open(command)?;
        let start = self.peek().map_or(self.text.len(), |t| t.start);
        let end = self.statement_end(start, ')');
        let expr =
            self.expression_in_sections(&self.text[start..end.min(self.text.len())], line)?;
        self.skip_to(end + 1);
        Ok(expr)
    }

    /// `{ BODY }` after `command`: the body's start and end (bytes) and its first line.
    fn braced(&mut self, command: &str, line: usize) -> Result<(usize, usize, usize), ScriptError> {
        self.expect_punct('{', &format!("`{{` after {command}"))?;
        let start = self.peek().map_or(self.text.len(), |t| t.start);
        let end = self.statement_end(start, '}');
        if end >= self.text.len() {
            return Err(ScriptError::Unclosed {
                line,
                command: format!("{command} {{"),
            });
        }
        Ok((start, end, self.peek().map_or(line, |t| t.line)))
    }

    /// The entries of `PHDRS { ... }` between bytes `start` and `end`.
    fn program_headers(
        &mut self,
        start: usize,
        end: usize,
        first_line: usize,
    ) -> Result<(), ScriptError> {
        let body = &self.text[start..end];
        let mut line = first_line;
        for statement in body.split(';') {
            let leading = statement.len() - statement.trim_start().len();
            let here = line + statement[..leading].matches('\n').count();
            line += statement.matches('\n').count();
            let text = statement.trim();
            if text.is_empty() {
                continue;
            }
            let spaced = text.replace('(', " ( ").replace(')', " ) ");
            let words: Vec<&str> = spaced.split_whitespace().collect();
            let unexpected = |what: &str| ScriptError::Unexpected {
                line: here,
                found: format!("`{text}`"),
                expected: what.into(),
            };
            let (Some(name), Some(kind)) = (words.first(), words.get(1)) else {
                return Err(unexpected("NAME TYPE [FILEHDR] [PHDRS] [FLAGS(N)]"));
            };
            let p_type = match *kind {
                "PT_NULL" => 0,
                "PT_LOAD" => object::elf::PT_LOAD,
                "PT_DYNAMIC" => object::elf::PT_DYNAMIC,
                "PT_INTERP" => object::elf::PT_INTERP,
                "PT_NOTE" => object::elf::PT_NOTE,
                "PT_PHDR" => object::elf::PT_PHDR,
                "PT_TLS" => object::elf::PT_TLS,
                "PT_GNU_EH_FRAME" => object::elf::PT_GNU_EH_FRAME,
                "PT_GNU_STACK" => object::elf::PT_GNU_STACK,
                "PT_GNU_RELRO" => object::elf::PT_GNU_RELRO,
                "PT_GNU_PROPERTY" => object::elf::PT_GNU_PROPERTY,
                other => match script_expr::parse(other).ok().and_then(|e| match e {
                    Expr::Number(n) => u32::try_from(n).ok(),
                    _ => None,
                }) {
                    Some(n) => n,
                    None => return Err(unexpected("a program header type such as PT_LOAD")),
                },
            };
            let mut spec = PhdrSpec {
                name: name.to_string(),
                p_type,
                filehdr: false,
                phdrs: false,
                flags: None,
                line: here,
            };
            let mut k = 2;
            while k < words.len() {
                match words[k] {
                    "FILEHDR" => spec.filehdr = true,
                    "PHDRS" => spec.phdrs = true,
                    "FLAGS" if words.get(k + 1) == Some(&"(") => {
                        let close = words[k..]
                            .iter()
                            .position(|w| *w == ")")
                            .map(|p| k + p)
                            .ok_or_else(|| unexpected("`)` closing FLAGS("))?;
                        spec.flags = Some(self.expression(&words[k + 2..close].join(" "), here)?);
                        k = close;
                    }
                    other => return Err(self.unsupported(&format!("{other} in PHDRS"), here)),
                }
                k += 1;
            }
            self.script.phdrs.push(spec);
        }
        Ok(())
    }

    /// The regions of `MEMORY { ... }` between bytes `start` and `end`, one per line.
    fn memory_regions(
        &mut self,
        start: usize,
        end: usize,
        first_line: usize,
    ) -> Result<(), ScriptError> {
        let body = &self.text[start..end];
        for (line, entry) in (first_line..).zip(body.split('\n')) {
            let text = entry.split("/*").next().unwrap_or("").trim();
            if !text.is_empty() {
                let bad = |what: &str| ScriptError::Unexpected {
                    line,
                    found: format!("`{text}`"),
                    expected: what.into(),
                };
                let (head, rest) = text
                    .split_once(':')
                    .ok_or_else(|| bad("NAME (ATTRIBUTES) : ORIGIN = ..., LENGTH = ..."))?;
                let name = head.split('(').next().unwrap_or("").trim().to_string();
                let attributes = head
                    .split_once('(')
                    .and_then(|(_, a)| a.split_once(')'))
                    .map_or(String::new(), |(a, _)| a.trim().to_string());
                let (origin_part, length_part) = rest
                    .split_once(',')
                    .ok_or_else(|| bad("ORIGIN = ..., LENGTH = ..."))?;
                let value = |part: &str, keys: &[&str]| -> Result<Expr, ScriptError> {
                    let (key, expr) = part.split_once('=').ok_or_else(|| bad("KEY = EXPR"))?;
                    if !keys.contains(&key.trim()) {
                        return Err(bad(&format!("{} = ...", keys[0])));
                    }
                    self.expression(expr.trim(), line)
                };
                let origin = value(origin_part, &["ORIGIN", "org", "o"])?;
                let length = value(length_part, &["LENGTH", "len", "l"])?;
                self.script.memory.push(MemoryRegion {
                    name,
                    attributes,
                    origin,
                    length,
                    line,
                });
            }
        }
        Ok(())
    }

    /// The commands of `SECTIONS {`, up to its `}`.
    fn sections_body(&mut self, open_line: usize) -> Result<Vec<SectionsCommand>, ScriptError> {
        let mut commands = Vec::new();
        loop {
            let Some(t) = self.next() else {
                return Err(ScriptError::Unclosed {
                    line: open_line,
                    command: "SECTIONS {".into(),
                });
            };
            match t.tok {
                Tok::Punct('}') => return Ok(commands),
                Tok::Punct(';') => {}
                Tok::Word(w) if assignment_operator(&self.text[t.start..]).is_some() => {
                    let op_at = t.start + assignment_operator(&self.text[t.start..]).unwrap();
                    let _ = w;
                    commands.push(SectionsCommand::Assign(
                        self.assignment_in_sections(t, op_at)?,
                    ));
                }
                Tok::Word(w @ ("PROVIDE" | "PROVIDE_HIDDEN" | "HIDDEN")) => {
                    commands.push(SectionsCommand::Assign(
                        self.provide_in_sections(w, t.line)?,
                    ));
                }
                Tok::Word("OVERLAY") => commands.extend(self.overlay(t)?),
                Tok::Word(name) => {
                    commands.push(SectionsCommand::Output(Box::new(self.output(name, t)?)))
                }
                _ => return Err(self.unexpected(Some(t), "an output section or an assignment")),
            }
        }
    }

    /// An assignment inside `SECTIONS` (where `.` may be assigned and read).
    fn assignment_in_sections(
        &mut self,
        first: Token<'a>,
        op_at: usize,
    ) -> Result<Assignment, ScriptError> {
        self.in_sections = true;
        let result = self.assignment(first, op_at, false, false);
        self.in_sections = false;
        result?;
        Ok(self.script.assignments.pop().expect("just parsed"))
    }

    fn provide_in_sections(
        &mut self,
        name: &'a str,
        line: usize,
    ) -> Result<Assignment, ScriptError> {
        self.in_sections = true;
        let result = self.command(name, line);
        self.in_sections = false;
        result?;
        Ok(self.script.assignments.pop().expect("just parsed"))
    }

    /// `NAME [ADDRESS] : [ALIGN(A)] { ITEMS }` after its name token.
    fn output(
        &mut self,
        name: &'a str,
        first: Token<'a>,
    ) -> Result<OutputDescription, ScriptError> {
        let line = first.line;
        // The name may carry the colon (`.text:`).
        let (name, colon_seen) = match name.strip_suffix(':') {
            Some(n) => (n, true),
            None => (name, false),
        };
        let mut address = None;
        let mut noload = false;
        let mut not_allocated = false;
        let mut fill = None;
        if !colon_seen {
            // Everything up to the `:` is the address expression, if any.
            let start = first.start + name.len();
            let colon = self.text[start..]
                .find(':')
                .map(|i| start + i)
                .ok_or_else(|| self.unexpected(self.peek(), format!("`:` after {name}")))?;
            let mut text = self.text[start..colon].trim();
            if let Some(rest) = text.strip_suffix("(NOLOAD)") {
                noload = true;
                text = rest.trim();
            }
            for kind in ["(COPY)", "(INFO)", "(OVERLAY)"] {
                if let Some(rest) = text.strip_suffix(kind) {
                    not_allocated = true;
                    text = rest.trim();
                }
            }
            if !text.is_empty() {
                if text.ends_with("(DSECT)") {
                    return Err(self.unsupported(&format!("{name} (DSECT)"), line));
                }
                address = Some(self.expression_in_sections(text, line)?);
            }
            self.skip_to(colon + 1);
        }
        let mut align = None;
        let mut lma = None;
        let mut constraint = None;
        let mut subalign = None;
        loop {
            match self.next() {
                Some(Token {
                    tok: Tok::Punct('{'),
                    ..
                }) => break,
                Some(Token {
                    tok: Tok::Word("AT"),
                    line,
                    ..
                }) => lma = Some(self.parenthesized("AT", line)?),
                Some(Token {
                    tok: Tok::Word("ALIGN"),
                    line,
                    ..
                }) => align = Some(self.parenthesized("ALIGN", line)?),
                Some(Token {
                    tok: Tok::Word("SUBALIGN"),
                    line,
                    ..
                }) => subalign = Some(self.parenthesized("SUBALIGN", line)?),
                Some(Token {
                    tok: Tok::Word("ONLY_IF_RO"),
                    ..
                }) => constraint = Some(Constraint::ReadOnly),
                Some(Token {
                    tok: Tok::Word("ONLY_IF_RW"),
                    ..
                }) => constraint = Some(Constraint::ReadWrite),
                Some(Token {
                    tok: Tok::Word(w),
                    line,
                    ..
                }) => return Err(self.unsupported(&format!("{w} in output section {name}"), line)),
                other => return Err(self.unexpected(other, format!("`{{` opening {name}"))),
            }
        }
        let items = self.output_items(name, line, &mut fill)?;
        let trailer = self.output_trailer()?;
        fill = trailer.fill.or(fill);
        Ok(OutputDescription {
            name: name.to_string(),
            address,
            align,
            region: trailer.region,
            lma,
            lma_region: trailer.lma_region,
            phdrs: trailer.phdrs,
            noload,
            not_allocated,
            fill,
            constraint,
            overlay: false,
            subalign,
            items,
            line,
        })
    }

    /// `OVERLAY START : [NOCROSSREFS] AT(LMA) { NAME { ITEMS } ... }`, read as lld reads it:
    /// each section at START, the first loaded at LMA and each next one right after the one
    /// before in load memory, then `.` at START plus the largest one's size.
    fn overlay(&mut self, first: Token<'a>) -> Result<Vec<SectionsCommand>, ScriptError> {
        let line = first.line;
        let start = first.start + "OVERLAY".len();
        let colon = self.text[start..]
            .find(':')
            .map(|i| start + i)
            .ok_or_else(|| self.unexpected(self.peek(), "`:` after OVERLAY"))?;
        let address = self.expression_in_sections(self.text[start..colon].trim(), line)?;
        self.skip_to(colon + 1);
        if matches!(
            self.peek(),
            Some(Token {
                tok: Tok::Word("NOCROSSREFS"),
                ..
            })
        ) {
            self.next();
        }
        match self.next() {
            Some(Token {
                tok: Tok::Word("AT"),
                line,
                ..
            }) => {
                let lma = self.parenthesized("AT", line)?;
                self.expect_punct('{', "`{` after OVERLAY's AT(...)")?;
                let mut sections: Vec<OutputDescription> = Vec::new();
                loop {
                    match self.next() {
                        Some(Token {
                            tok: Tok::Punct('}'),
                            ..
                        }) => break,
                        Some(Token {
                            tok: Tok::Word(name),
                            line,
                            ..
                        }) => {
                            self.expect_punct('{', &format!("`{{` after {name}"))?;
                            let mut fill = None;
                            let items = self.output_items(name, line, &mut fill)?;
                            let trailer = self.output_trailer()?;
                            let lma = match sections.last() {
                                None => lma.clone(),
                                Some(prev) => Expr::Binary(
                                    BinOp::Add,
                                    Box::new(Expr::Section(SectionFn::Loadaddr, prev.name.clone())),
                                    Box::new(Expr::Section(SectionFn::Sizeof, prev.name.clone())),
                                ),
                            };
                            sections.push(OutputDescription {
                                name: name.to_string(),
                                address: Some(address.clone()),
                                align: None,
                                region: None,
                                lma: Some(lma),
                                lma_region: None,
                                phdrs: trailer.phdrs,
                                noload: false,
                                not_allocated: false,
                                fill: trailer.fill.or(fill),
                                constraint: None,
                                overlay: true,
                                subalign: None,
                                items,
                                line,
                            });
                        }
                        None => {
                            return Err(ScriptError::Unclosed {
                                line,
                                command: "OVERLAY {".into(),
                            })
                        }
                        other => return Err(self.unexpected(other, "an overlay section or `}`")),
                    }
                }
                let trailer = self.output_trailer()?;
                // MAX over the sizes in a balanced tree: it nests log2(n) deep.
                let mut sizes: Vec<Expr> = sections
                    .iter()
                    .map(|d| Expr::Section(SectionFn::Sizeof, d.name.clone()))
                    .collect();
                while sizes.len() > 1 {
                    let mut pairs = Vec::with_capacity(sizes.len().div_ceil(2));
                    let mut rest = sizes.into_iter();
                    while let Some(a) = rest.next() {
                        pairs.push(match rest.next() {
                            Some(b) => Expr::Max(Box::new(a), Box::new(b)),
                            None => a,
                        });
                    }
                    sizes = pairs;
                }
                let largest = sizes.pop().unwrap_or(Expr::Number(0));
                let end = Expr::binary(BinOp::Add, address, largest)
                    .map_err(|e| ScriptError::Expression { line, message: e.0 })?;
                let mut commands: Vec<SectionsCommand> = sections
                    .into_iter()
                    .map(|mut d| {
                        d.region.clone_from(&trailer.region);
                        if d.phdrs.is_empty() {
                            d.phdrs.clone_from(&trailer.phdrs);
                        }
                        if d.fill.is_none() {
                            d.fill.clone_from(&trailer.fill);
                        }
                        SectionsCommand::Output(Box::new(d))
                    })
                    .collect();
                commands.push(SectionsCommand::Assign(Assignment {
                    name: ".".into(),
                    expr: end,
                    provide: false,
                    hidden: false,
                    line,
                }));
                Ok(commands)
            }
            other => {
                Err(self.unexpected(other, "AT(LMA) after OVERLAY's `:` (rld needs it, as lld)"))
            }
        }
    }

    /// The items of an output section description after its `{`, up to its `}`; a
    /// `FILL(...)` among them goes to `fill`.
    fn output_items(
        &mut self,
        name: &str,
        line: usize,
        fill: &mut Option<Expr>,
    ) -> Result<Vec<OutputItem>, ScriptError> {
        let mut items = Vec::new();
        loop {
            let Some(t) = self.next() else {
                return Err(ScriptError::Unclosed {
                    line,
                    command: format!("{name} {{"),
                });
            };
            match t.tok {
                Tok::Punct('}') => break,
                Tok::Punct(';') => {}
                Tok::Word(_) if assignment_operator(&self.text[t.start..]).is_some() => {
                    let op_at = t.start + assignment_operator(&self.text[t.start..]).unwrap();
                    items.push(OutputItem::Assign(self.assignment_in_sections(t, op_at)?));
                }
                Tok::Word(w @ ("PROVIDE" | "PROVIDE_HIDDEN" | "HIDDEN")) => {
                    items.push(OutputItem::Assign(self.provide_in_sections(w, t.line)?));
                }
                Tok::Word("KEEP") => {
                    self.expect_open("KEEP")?;
                    let mut exclude = self.exclude_files()?;
                    let file = self.expect_name("KEEP")?;
                    let (sections, [sort, inner_sort], inner) =
                        self.section_patterns(&file, t.line)?;
                    exclude.extend(inner);
                    self.expect_close("KEEP", t.line)?;
                    items.push(OutputItem::Input {
                        file,
                        sections,
                        keep: true,
                        sort,
                        inner_sort,
                        exclude,
                    });
                }
                Tok::Word("FILL") => *fill = Some(self.parenthesized("FILL", t.line)?),
                Tok::Word(w @ ("BYTE" | "SHORT" | "LONG" | "QUAD" | "SQUAD")) => {
                    let expr = self.parenthesized(w, t.line)?;
                    let size = match w {
                        "BYTE" => 1,
                        "SHORT" => 2,
                        "LONG" => 4,
                        _ => 8,
                    };
                    items.push(OutputItem::Data { size, expr });
                }
                // C++ constructor tables of a.out and ECOFF: nothing to do in ELF (GNU
                // ld and lld ignore them).
                Tok::Word("CONSTRUCTORS") => {}
                Tok::Word("SORT")
                    if self.text[t.start + 4..]
                        .trim_start()
                        .strip_prefix('(')
                        .is_some_and(|r| r.trim_start().starts_with("CONSTRUCTORS")) =>
                {
                    self.expect_open("SORT")?;
                    self.next();
                    self.expect_close("SORT", t.line)?;
                }
                Tok::Word(
                    w @ ("SORT"
                    | "SORT_BY_NAME"
                    | "SORT_BY_ALIGNMENT"
                    | "SORT_BY_INIT_PRIORITY"
                    | "SORT_NONE"
                    | "CREATE_OBJECT_SYMBOLS"
                    | "INCLUDE"),
                ) => return Err(self.unsupported(w, t.line)),
                Tok::Word("EXCLUDE_FILE") => {
                    self.pos -= 1;
                    let mut exclude = self.exclude_files()?;
                    let file = self.expect_name("EXCLUDE_FILE")?;
                    let (sections, [sort, inner_sort], inner) =
                        self.section_patterns(&file, t.line)?;
                    exclude.extend(inner);
                    items.push(OutputItem::Input {
                        file,
                        sections,
                        keep: false,
                        sort,
                        inner_sort,
                        exclude,
                    });
                }
                Tok::Word(file) | Tok::Quoted(file) => {
                    let file = file.to_string();
                    let (sections, [sort, inner_sort], exclude) =
                        self.section_patterns(&file, t.line)?;
                    items.push(OutputItem::Input {
                        file,
                        sections,
                        keep: false,
                        sort,
                        inner_sort,
                        exclude,
                    });
                }
                _ => {
                    return Err(
                        self.unexpected(Some(t), format!("input sections or `}}` in {name}"))
                    )
                }
            }
        }
        Ok(items)
    }

    /// What may follow an output section's closing brace: `> REGION`, `AT > REGION`,
    /// `:PHDR`..., `=FILL`.
    fn output_trailer(&mut self) -> Result<Trailer, ScriptError> {
        let (mut region, mut lma_region, mut fill) = (None, None, None);
        let mut phdrs = Vec::new();
        let mut at = self.peek().map_or(self.text.len(), |t| t.start);
        loop {
            let rest = &self.text[at..];
            let trimmed = rest.trim_start();
            let skipped = rest.len() - trimmed.len();
            if let Some(after) = trimmed.strip_prefix(':') {
                let after_trim = after.trim_start();
                let name_len = after_trim
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                    .unwrap_or(after_trim.len());
                if name_len == 0 {
                    break;
                }
                phdrs.push(after_trim[..name_len].to_string());
                at += skipped + (trimmed.len() - after_trim.len()) + name_len;
                continue;
            }
            let (is_lma, after) = if let Some(r) = trimmed.strip_prefix("AT") {
                match r.trim_start().strip_prefix('>') {
                    Some(after) => (true, after),
                    None => break,
                }
            } else if let Some(after) = trimmed.strip_prefix('>') {
                (false, after)
            } else {
                break;
            };
            let after_trim = after.trim_start();
            let name_len = after_trim
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(after_trim.len());
            if name_len == 0 {
                return Err(self.unexpected(self.peek(), "a memory region's name after `>`"));
            }
            let name = after_trim[..name_len].to_string();
            if is_lma {
                lma_region = Some(name);
            } else {
                region = Some(name);
            }
            at += skipped + (trimmed.len() - after_trim.len()) + name_len;
        }
        // `=FILL`: an expression up to the end of its line (or a `;` or `}`).
        let rest = &self.text[at..];
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed.strip_prefix('=') {
            let len = after.find(['\n', ';', '}']).unwrap_or(after.len());
            let fill_line = self.text[..at].matches('\n').count() + 1;
            fill = Some(self.expression_in_sections(after[..len].trim(), fill_line)?);
            at += rest.len() - trimmed.len() + 1 + len;
        }
        self.skip_to(at);
        Ok(Trailer {
            region,
            lma_region,
            phdrs,
            fill,
        })
    }

    /// `EXCLUDE_FILE(GLOB...)` if it comes next: the globs.
    fn exclude_files(&mut self) -> Result<Vec<String>, ScriptError> {
        let mut globs = Vec::new();
        if !matches!(
            self.peek(),
            Some(Token {
                tok: Tok::Word("EXCLUDE_FILE"),
                ..
            })
        ) {
            return Ok(globs);
        }
        let line = self.next().map_or(self.last_line, |t| t.line);
        self.expect_open("EXCLUDE_FILE")?;
        loop {
            match self.next() {
                Some(Token {
                    tok: Tok::Punct(')'),
                    ..
                }) => return Ok(globs),
                Some(Token {
                    tok: Tok::Word(w) | Tok::Quoted(w),
                    ..
                }) => globs.push(w.to_string()),
                Some(Token {
                    tok: Tok::Punct(','),
                    ..
                }) => {}
                None => {
                    return Err(ScriptError::Unclosed {
                        line,
                        command: "EXCLUDE_FILE".into(),
                    })
                }
                other => return Err(self.unexpected(other, "a file name or `)`")),
            }
        }
    }

    /// `(PATTERN...)` after a file pattern; the patterns may sit in one `SORT...(...)`,
    /// and `EXCLUDE_FILE(...)` may come first (its globs are returned).
    fn section_patterns(
        &mut self,
        file: &str,
        line: usize,
    ) -> Result<SectionPatterns, ScriptError> {
        self.expect_punct('(', &format!("`(` and section names after {file}"))?;
        let mut patterns = Vec::new();
        // The outer `SORT...` and, nested in it, the inner one.
        let mut sort = [Sort::None; 2];
        let mut depth = 0;
        let mut exclude = Vec::new();
        loop {
            if depth == 0 {
                exclude.extend(self.exclude_files()?);
            }
            match self.next() {
                Some(Token {
                    tok: Tok::Punct(')'),
                    ..
                }) if depth > 0 => depth -= 1,
                Some(Token {
                    tok: Tok::Punct(')'),
                    ..
                }) => return Ok((patterns, sort, exclude)),
                Some(Token {
                    tok: Tok::Punct(','),
                    ..
                }) => {}
                Some(Token {
                    tok:
                        Tok::Word(
                            w @ ("SORT"
                            | "SORT_BY_NAME"
                            | "SORT_BY_ALIGNMENT"
                            | "SORT_BY_INIT_PRIORITY"
                            | "SORT_NONE"),
                        ),
                    line,
                    ..
                }) => {
                    // One `SORT` may sit in another (not in `SORT_NONE`); no deeper.
                    if depth >= 2 || (depth == 1 && sort[0] == Sort::Never) {
                        return Err(self.unsupported(w, line));
                    }
                    sort[depth] = match w {
                        "SORT" | "SORT_BY_NAME" => Sort::Name,
                        "SORT_BY_ALIGNMENT" => Sort::Alignment,
                        "SORT_BY_INIT_PRIORITY" => Sort::InitPriority,
                        _ => Sort::Never,
                    };
                    self.expect_open(w)?;
                    depth += 1;
                }
                Some(Token {
                    tok: Tok::Word(w) | Tok::Quoted(w),
                    ..
                }) => patterns.push(w.to_string()),
                None => {
                    return Err(ScriptError::Unclosed {
                        line,
                        command: file.to_string(),
                    })
                }
                other => return Err(self.unexpected(other, "a section name pattern or `)`")),
            }
        }
    }

    fn expression_in_sections(&self, text: &str, line: usize) -> Result<Expr, ScriptError> {
        script_expr::parse_in_sections(text)
            .map_err(|e| ScriptError::Expression { line, message: e.0 })
    }

    /// `sym OP expr;` whose operator starts at byte `op_at`, from token `first` (the name).
    fn assignment(
        &mut self,
        first: Token<'a>,
        op_at: usize,
        provide: bool,
        hidden: bool,
    ) -> Result<(), ScriptError> {
        self.assignment_until(first, op_at, ';', provide, hidden)
    }

    /// An assignment ending at the first `close` outside parentheses (`;` for a statement,
    /// `)` inside `PROVIDE(...)`), after which parsing resumes.
    fn assignment_until(
        &mut self,
        first: Token<'a>,
        op_at: usize,
        close: char,
        provide: bool,
        hidden: bool,
    ) -> Result<(), ScriptError> {
        let line = first.line;
        let name = self.text[first.start..op_at]
            .trim()
            .trim_matches('"')
            .to_string();
        let rest = &self.text[op_at..];
        let op_len = rest.find('=').map_or(1, |i| i + 1);
        let compound = match &rest[..op_len - 1] {
            "" => None,
            "+" => Some(BinOp::Add),
            "-" => Some(BinOp::Sub),
            "*" => Some(BinOp::Mul),
            "/" => Some(BinOp::Div),
            "<<" => Some(BinOp::Shl),
            ">>" => Some(BinOp::Shr),
            "&" => Some(BinOp::BitAnd),
            _ => Some(BinOp::BitOr),
        };
        let start = op_at + op_len;
        let end = self.statement_end(start, close);
        if end >= self.text.len() {
            return Err(ScriptError::Unexpected {
                line,
                found: END.into(),
                expected: format!("`{close}` ending the assignment to {name}"),
            });
        }
        let mut expr = self.expression(&self.text[start..end], line)?;
        if let Some(op) = compound {
            let target = if name == "." {
                Expr::Dot
            } else {
                Expr::Symbol(name.clone())
            };
            expr = Expr::binary(op, target, expr)
                .map_err(|e| ScriptError::Expression { line, message: e.0 })?;
        }
        if name == "." && !self.in_sections {
            // The location counter only means something inside SECTIONS.
            return Err(ScriptError::Unsupported {
                line,
                command: ". =".into(),
            });
        }
        self.script.assignments.push(Assignment {
            name,
            expr,
            provide,
            hidden,
            line,
        });
        self.skip_to(end + 1);
        // `PROVIDE(a = b);` may end with a `;`.
        Ok(())
    }

    fn expression(&self, text: &str, line: usize) -> Result<Expr, ScriptError> {
        if self.in_sections {
            return self.expression_in_sections(text, line);
        }
        script_expr::parse(text).map_err(|e| ScriptError::Expression { line, message: e.0 })
    }

    /// The byte offset of the first `close` at parenthesis depth 0 from `start` (the text's
    /// length if there is none); quoted names and comments are skipped.
    fn statement_end(&self, start: usize, close: char) -> usize {
        let b = self.text.as_bytes();
        let (mut depth, mut i) = (0i32, start);
        while i < b.len() {
            match b[i] {
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        i += 1;
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i = self.text[i + 2..]
                        .find("*/")
                        .map_or(b.len(), |e| i + 2 + e + 1);
                }
                c if char::from(c) == close && depth == 0 => return i,
                b'(' | b'{' => depth += 1,
                b')' | b'}' => depth -= 1,
                _ => {}
            }
            i += 1;
        }
        b.len()
    }

    /// Continues with the first token at or after byte `at`.
    fn skip_to(&mut self, at: usize) {
        while self.tokens.get(self.pos).is_some_and(|t| t.start < at) {
            self.pos += 1;
        }
    }

    fn unsupported(&self, name: &str, line: usize) -> ScriptError {
        ScriptError::Unsupported {
            line,
            command: name.to_string(),
        }
    }

    fn expect_punct(&mut self, c: char, expected: &str) -> Result<(), ScriptError> {
        match self.next() {
            Some(Token {
                tok: Tok::Punct(p), ..
            }) if p == c => Ok(()),
            other => Err(self.unexpected(other, expected)),
        }
    }

    fn expect_open(&mut self, command: &str) -> Result<(), ScriptError> {
        self.expect_punct('(', &format!("`(` after {command}"))
    }

    /// Like `expect_punct(')')`, but running out of input reports the unclosed command, which
    /// is the useful location for an unbalanced parenthesis.
    fn expect_close(&mut self, command: &str, open_line: usize) -> Result<(), ScriptError> {
        match self.next() {
            Some(Token {
                tok: Tok::Punct(')'),
                ..
            }) => Ok(()),
            None => Err(ScriptError::Unclosed {
                line: open_line,
                command: command.to_string(),
            }),
            other => Err(self.unexpected(other, format!("`)` closing {command}("))),
        }
    }

    fn expect_name(&mut self, command: &str) -> Result<String, ScriptError> {
        match self.next() {
            Some(Token {
                tok: Tok::Word(w) | Tok::Quoted(w),
                ..
            }) => Ok(w.to_string()),
            other => Err(self.unexpected(other, format!("a name in {command}(...)"))),
        }
    }

    /// `COMMAND(name)`, after the command word.
    fn single_argument(&mut self, command: &str, line: usize) -> Result<String, ScriptError> {
        self.expect_open(command)?;
        let name = self.expect_name(command)?;
        self.expect_close(command, line)?;
        Ok(name)
    }

    /// The body of `INPUT(`, `GROUP(` or `AS_NEEDED(` up to and including its `)`. Names are
    /// separated by whitespace and/or commas.
    fn input_list(
        &mut self,
        command: &str,
        open_line: usize,
        as_needed: bool,
    ) -> Result<(), ScriptError> {
        loop {
            let Some(t) = self.next() else {
                return Err(ScriptError::Unclosed {
                    line: open_line,
                    command: command.to_string(),
                });
            };
            match t.tok {
                Tok::Punct(')') => return Ok(()),
                Tok::Punct(',') => {}
                Tok::Word("AS_NEEDED") => {
                    self.expect_open("AS_NEEDED")?;
                    self.input_list("AS_NEEDED", t.line, true)?;
                }
                Tok::Word(w) if w.starts_with("-l") => {
                    let name = &w[2..];
                    if name.is_empty() {
                        return Err(self.unexpected(Some(t), "a library name directly after -l"));
                    }
                    self.script.inputs.push(ScriptInput::Library {
                        name: name.to_string(),
                        as_needed,
                    });
                }
                Tok::Word(w) | Tok::Quoted(w) => self.script.inputs.push(ScriptInput::Path {
                    path: w.to_string(),
                    as_needed,
                }),
                Tok::Punct(_) => {
                    return Err(self.unexpected(
                        Some(t),
                        format!("a file name, -lNAME, AS_NEEDED( or `)` in {command}(...)"),
                    ))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str, as_needed: bool) -> ScriptInput {
        ScriptInput::Path {
            path: p.to_string(),
            as_needed,
        }
    }

    fn lib(n: &str, as_needed: bool) -> ScriptInput {
        ScriptInput::Library {
            name: n.to_string(),
            as_needed,
        }
    }

    /// A `groups` value with one group (clippy reads `vec![0..3]` as a likely mistake).
    fn one_group(range: Range<usize>) -> Vec<Range<usize>> {
        vec![range]
    }

    /// /usr/lib/x86_64-linux-gnu/libc.so on Debian, byte for byte.
    const LIBC_SO: &str = "/* GNU ld script
   Use the shared library, but some functions are only in
   the static library, so try that secondarily.  */
OUTPUT_FORMAT(elf64-x86-64)
GROUP ( /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a  AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )
";

    /// /usr/lib/x86_64-linux-gnu/libm.so on Debian, byte for byte.
    const LIBM_SO: &str = "/* GNU ld script
*/
OUTPUT_FORMAT(elf64-x86-64)
GROUP ( /lib/x86_64-linux-gnu/libm.so.6  AS_NEEDED ( /lib/x86_64-linux-gnu/libmvec.so.1 ) )
";

    #[test]
    fn debian_libc_so() {
        let s = parse_script(LIBC_SO).unwrap();
        assert_eq!(
            s,
            LinkerScript {
                inputs: vec![
                    path("/lib/x86_64-linux-gnu/libc.so.6", false),
                    path("/usr/lib/x86_64-linux-gnu/libc_nonshared.a", false),
                    path("/lib64/ld-linux-x86-64.so.2", true),
                ],
                groups: one_group(0..3),
                search_dirs: vec![],
                output_format: Some("elf64-x86-64".to_string()),
                entry: None,
                ..LinkerScript::default()
            }
        );
    }

    #[test]
    fn debian_libm_so() {
        let s = parse_script(LIBM_SO).unwrap();
        assert_eq!(
            s.inputs,
            [
                path("/lib/x86_64-linux-gnu/libm.so.6", false),
                path("/lib/x86_64-linux-gnu/libmvec.so.1", true),
            ]
        );
        assert_eq!(s.groups, one_group(0..2));
        assert_eq!(s.output_format.as_deref(), Some("elf64-x86-64"));
    }

    #[test]
    fn debian_ncurses_and_termcap() {
        // libncurses.so / libcurses.so: INPUT with a -l entry.
        let s = parse_script("INPUT(libncurses.so.6 -ltinfo)\n").unwrap();
        assert_eq!(
            s.inputs,
            [path("libncurses.so.6", false), lib("tinfo", false)]
        );
        assert!(s.groups.is_empty());

        // libtermcap.so: a multi-line comment, then GROUP without a space before `(`.
        let s = parse_script(
            "/* We use a linker script rather than a symlink to work around\n   an ldconfig bug, \
             see http://bugs.debian.org/249122. */\nGROUP( libtinfo.so )\n",
        )
        .unwrap();
        assert_eq!(s.inputs, [path("libtinfo.so", false)]);
        assert_eq!(s.groups, one_group(0..1));
    }

    #[test]
    fn nested_as_needed_and_commas() {
        let s = parse_script(
            "INPUT(a.o, AS_NEEDED(-lx,b.so AS_NEEDED(c.so)) d.a)\n\
             GROUP(e.a,-l:f.a AS_NEEDED ( g.so ))",
        )
        .unwrap();
        assert_eq!(
            s.inputs,
            [
                path("a.o", false),
                lib("x", true),
                path("b.so", true),
                path("c.so", true),
                path("d.a", false),
                path("e.a", false),
                lib(":f.a", false),
                path("g.so", true),
            ]
        );
        assert_eq!(s.groups, one_group(5..8));
    }

    #[test]
    fn several_groups_and_empty_group() {
        let s = parse_script("GROUP(a b) GROUP() INPUT(c) GROUP(d)").unwrap();
        assert_eq!(s.inputs.len(), 4);
        assert_eq!(s.groups, [0..2, 3..4]);
    }

    #[test]
    fn comments_anywhere() {
        let s = parse_script(
            "/**/GROUP/* a */(/* b */x.so/* c */,/*\n\n*/y.a)/* trailing */\n/* last */",
        )
        .unwrap();
        assert_eq!(s.inputs, [path("x.so", false), path("y.a", false)]);
    }

    #[test]
    fn quoted_names() {
        let s = parse_script(
            "INPUT(\"dir with space/lib.so\" \"-lnotalib\" \"a,b(c).a\")\nENTRY(\"my start\")",
        )
        .unwrap();
        assert_eq!(
            s.inputs,
            [
                path("dir with space/lib.so", false),
                path("-lnotalib", false),
                path("a,b(c).a", false),
            ]
        );
        assert_eq!(s.entry.as_deref(), Some("my start"));
    }

    #[test]
    fn other_commands() {
        let s = parse_script(
            "OUTPUT_FORMAT(\"elf64-x86-64\", \"elf64-x86-64\", \"elf64-x86-64\");\n\
             OUTPUT_ARCH(i386:x86-64);\nSEARCH_DIR(\"=/usr/local/lib\"); SEARCH_DIR(/opt/lib)\n\
             ENTRY(_start) ENTRY(other)\n",
        )
        .unwrap();
        assert_eq!(s.output_format.as_deref(), Some("elf64-x86-64"));
        assert_eq!(s.search_dirs, ["=/usr/local/lib", "/opt/lib"]);
        assert_eq!(s.entry.as_deref(), Some("other"));
        assert!(s.inputs.is_empty());

        let s = parse_script("OUTPUT_FORMAT(elf64-x86-64, elf64-big, elf64-little)").unwrap();
        assert_eq!(s.output_format.as_deref(), Some("elf64-x86-64"));

        assert_eq!(parse_script("").unwrap(), LinkerScript::default());
        assert_eq!(parse_script(" /* */ ;\n").unwrap(), LinkerScript::default());
    }

    #[test]
    fn unbalanced_parentheses() {
        let e = parse_script("/* x */\nGROUP ( a.so\n  b.so\n").unwrap_err();
        assert_eq!(
            e,
            ScriptError::Unclosed {
                line: 2,
                command: "GROUP".to_string()
            }
        );
        assert_eq!(e.line(), 2);
        assert!(e.to_string().contains("GROUP("), "{e}");

        let e = parse_script("INPUT(a AS_NEEDED(b)").unwrap_err();
        assert!(matches!(e, ScriptError::Unclosed { line: 1, ref command } if command == "INPUT"));

        let e = parse_script("INPUT(a))").unwrap_err();
        assert!(
            matches!(e, ScriptError::Unexpected { line: 1, ref found, .. } if found == "`)`"),
            "{e:?}"
        );

        let e = parse_script("ENTRY(_start\n").unwrap_err();
        assert!(matches!(e, ScriptError::Unclosed { line: 1, ref command } if command == "ENTRY"));

        let e = parse_script("GROUP a.so").unwrap_err();
        assert_eq!(
            e,
            ScriptError::Unexpected {
                line: 1,
                found: "`a.so`".to_string(),
                expected: "`(` after GROUP".to_string()
            }
        );

        let e = parse_script("\nINPUT").unwrap_err();
        assert!(
            matches!(e, ScriptError::Unexpected { line: 2, ref found, .. } if found == END),
            "{e:?}"
        );

        let e = parse_script("INPUT(a ( b))").unwrap_err();
        assert!(
            matches!(e, ScriptError::Unexpected { line: 1, .. }),
            "{e:?}"
        );
    }

    #[test]
    fn unsupported_commands() {
        let e = parse_script("/* two\nlines */\nOVERLAY\n{\n}\n").unwrap_err();
        assert_eq!(
            e,
            ScriptError::Unsupported {
                line: 3,
                command: "OVERLAY".to_string()
            }
        );
        assert!(e.to_string().contains("OVERLAY"), "{e}");
        let s =
            parse_script("PHDRS {\n text PT_LOAD FILEHDR PHDRS;\n note 4 FLAGS(4);\n}").unwrap();
        let phdrs: Vec<(&str, u32, bool, bool, usize)> = s
            .phdrs
            .iter()
            .map(|p| (p.name.as_str(), p.p_type, p.filehdr, p.phdrs, p.line))
            .collect();
        assert_eq!(
            phdrs,
            [("text", 1, true, true, 2), ("note", 4, false, false, 3)]
        );
        assert_eq!(s.phdrs[1].flags, Some(Expr::Number(4)));

        let e = parse_script("GROUP(a)\nOVERLAY : { .a { *(.a) } }").unwrap_err();
        assert!(
            matches!(e, ScriptError::Unsupported { line: 2, ref command } if command == "OVERLAY")
        );
        let s = parse_script("SECTIONS { .reg : { *(.reg) } } INSERT AFTER .data;").unwrap();
        assert_eq!(s.insert, Some((true, ".data".to_string())));

        let e = parse_script("x = 1;\n. = 0x1000;").unwrap_err();
        assert!(matches!(e, ScriptError::Unsupported { line: 2, ref command } if command == ". ="));

        // Keywords are case sensitive in GNU ld.
        let e = parse_script("group(a)").unwrap_err();
        assert!(matches!(e, ScriptError::Unsupported { ref command, .. } if command == "group"));
    }

    #[test]
    fn assignments_asserts_versions_and_includes() {
        let text = "x=1;\ny += 2 * x ;\n  PROVIDE(end_marker = ADDR(.text) + SIZEOF(.text));\n\
                    HIDDEN(\"quoted\" = 4); PROVIDE_HIDDEN(ph = x);\n\
                    ASSERT(x < 4, \"x, too big\");\nVERSION { V1 { global: f; local: *; }; }\n\
                    INCLUDE more.ld\nz <<= 2;";
        let s = parse_script(text).unwrap();
        let got: Vec<(&str, bool, bool, usize)> = s
            .assignments
            .iter()
            .map(|a| (a.name.as_str(), a.provide, a.hidden, a.line))
            .collect();
        assert_eq!(
            got,
            [
                ("x", false, false, 1),
                ("y", false, false, 2),
                ("end_marker", true, false, 3),
                ("quoted", false, true, 4),
                ("ph", true, true, 4),
                ("z", false, false, 8),
            ]
        );
        assert_eq!(s.assignments[0].expr, Expr::Number(1));
        // Compound assignments read the old value.
        assert_eq!(
            s.assignments[1].expr,
            Expr::Binary(
                BinOp::Add,
                Box::new(Expr::Symbol("y".into())),
                Box::new(Expr::Binary(
                    BinOp::Mul,
                    Box::new(Expr::Number(2)),
                    Box::new(Expr::Symbol("x".into()))
                ))
            )
        );
        assert_eq!(s.asserts.len(), 1);
        assert_eq!((s.asserts[0].1.as_str(), s.asserts[0].2), ("x, too big", 5));
        assert_eq!(s.versions, ["V1 { global: f; local: *; }; "]);
        assert_eq!(s.includes, [("more.ld".to_string(), 7)]);
        // A bad expression names its line.
        let e = parse_script("a = 1;\nb = 2 +;").unwrap_err();
        assert!(
            matches!(e, ScriptError::Expression { line: 2, .. }),
            "{e:?}"
        );
        let e = parse_script("a = 1").unwrap_err();
        assert!(
            matches!(e, ScriptError::Unexpected { line: 1, .. }),
            "{e:?}"
        );
    }

    #[test]
    fn sections_commands() {
        let text = "SECTIONS {\n  . = 0x10000;\n  .text : { *(.text .text.*) }\n  _etext = .;\n\
                    .data 0x20000 : ALIGN(16) { KEEP(crt*.o(.data)) x = . + 1; }\n\
                    PROVIDE(_end = .);\n  /DISCARD/ : { *(.comment) }\n}\n";
        let s = parse_script(text).unwrap();
        let commands = s.sections.unwrap();
        assert_eq!(commands.len(), 6);
        let SectionsCommand::Assign(dot) = &commands[0] else {
            panic!("{:?}", commands[0]);
        };
        assert_eq!(
            (dot.name.as_str(), &dot.expr),
            (".", &Expr::Number(0x10000))
        );
        let SectionsCommand::Output(text_out) = &commands[1] else {
            panic!("{:?}", commands[1]);
        };
        assert_eq!(
            text_out.items,
            [OutputItem::Input {
                file: "*".into(),
                sections: vec![".text".into(), ".text.*".into()],
                keep: false,
                sort: Sort::None,
                inner_sort: Sort::None,
                exclude: vec![],
            }]
        );
        let SectionsCommand::Output(data) = &commands[3] else {
            panic!("{:?}", commands[3]);
        };
        assert_eq!(data.address, Some(Expr::Number(0x20000)));
        assert_eq!(data.align, Some(Expr::Number(16)));
        assert!(
            matches!(&data.items[0], OutputItem::Input { file, keep: true, .. } if file == "crt*.o")
        );
        assert!(matches!(&data.items[1], OutputItem::Assign(a) if a.name == "x"));
        assert!(
            matches!(&commands[4], SectionsCommand::Assign(a) if a.provide && a.name == "_end")
        );
        assert!(matches!(&commands[5], SectionsCommand::Output(d) if d.name == "/DISCARD/"));
        // Top-level assignments stay apart from the layout's.
        assert!(s.assignments.is_empty());
        let s = parse_script(
            "MEMORY {\n rom (rx) : ORIGIN = 0x1000, LENGTH = 4K\n ram (!rx) : org = 0x8000, l = 1M\n}\n\
             SECTIONS { .text : { *(.text) } >rom .data : AT(0x2000) { *(.data) } > ram AT>rom }",
        )
        .unwrap();
        let regions: Vec<(&str, &str, usize)> = s
            .memory
            .iter()
            .map(|m| (m.name.as_str(), m.attributes.as_str(), m.line))
            .collect();
        assert_eq!(regions, [("rom", "rx", 2), ("ram", "!rx", 3)]);
        assert_eq!(s.memory[1].length, Expr::Number(1 << 20));
        let Some(commands) = &s.sections else {
            panic!("no SECTIONS")
        };
        let SectionsCommand::Output(text) = &commands[0] else {
            panic!("{commands:?}")
        };
        assert_eq!(text.region.as_deref(), Some("rom"));
        let SectionsCommand::Output(data) = &commands[1] else {
            panic!("{commands:?}")
        };
        assert_eq!(
            (
                data.region.as_deref(),
                data.lma_region.as_deref(),
                &data.lma
            ),
            (Some("ram"), Some("rom"), &Some(Expr::Number(0x2000)))
        );
        let s =
            parse_script("SECTIONS { .text : { *(.text) } =0x90\n .data (INFO) : {} }").unwrap();
        let commands = s.sections.unwrap();
        let (SectionsCommand::Output(text), SectionsCommand::Output(data)) =
            (&commands[0], &commands[1])
        else {
            panic!("{commands:?}")
        };
        assert_eq!(text.fill, Some(Expr::Number(0x90)));
        assert!(data.not_allocated && !text.not_allocated);
        let e = parse_script("SECTIONS { .text (DSECT) : { *(.text) } }").unwrap_err();
        assert!(matches!(e, ScriptError::Unsupported { .. }), "{e:?}");
        let e = parse_script("SECTIONS { .text : { *(.text) }").unwrap_err();
        assert!(matches!(e, ScriptError::Unclosed { line: 1, .. }), "{e:?}");
    }

    /// Damaged scripts (bytes replaced, dropped or cut, deterministically) give errors,
    /// never a panic, in the parser and in the expressions it reads.
    #[test]
    fn mutated_scripts_never_panic() {
        let base = "ENTRY(_start)\nINPUT(a.o -lfoo AS_NEEDED(b.so))\nx = 1 + (2 * y);\n\
                    PROVIDE(z = ALIGN(x, 16));\nASSERT(x < 4, \"msg, here\");\n\
                    VERSION { V1 { global: f; local: *; }; }\nSECTIONS {\n  . = 0x1000;\n\
                    .text 0x2000 : ALIGN(8) { KEEP(*(.text*)) a = . + 1; }\n\
                    /DISCARD/ : { *(.comment) }\n  PROVIDE(_end = .);\n\
                    . = SEGMENT_START(\"text-segment\", 0x400000) + SIZEOF_HEADERS;\n\
                    .ro : ONLY_IF_RO { FILL(0x90) *(.ro) SORT(CONSTRUCTORS) } =0x11223344\n\
                    . = DATA_SEGMENT_ALIGN(CONSTANT(MAXPAGESIZE), CONSTANT(COMMONPAGESIZE));\n\
                    OVERLAY 0x1000 : AT(0x4000) { .a { *(.a) } .b { *(.b) } }\n\
                    .info (INFO) : { *(.info) }\n  . = DATA_SEGMENT_END(.);\n}\n";
        let parsed = parse_script(base).expect("the unmutated script parses");
        assert_eq!(parsed.sections.map(|c| c.len()), Some(12));
        let specials = b"(){};:=.*,\"/+-<>!?0xK ";
        let mut seed = 0x1234_5678u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for _ in 0..20_000 {
            let mut bytes = base.as_bytes().to_vec();
            for _ in 0..1 + next() % 4 {
                let at = next() as usize % bytes.len();
                match next() % 3 {
                    0 => bytes[at] = specials[next() as usize % specials.len()],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.truncate(at),
                }
                if bytes.is_empty() {
                    break;
                }
            }
            if let Ok(text) = std::str::from_utf8(&bytes) {
                if let Ok(script) = parse_script(text) {
                    for a in &script.assignments {
                        let _ = format!("{:?}", a.expr);
                    }
                }
            }
        }
    }

    #[test]
    fn other_errors() {
        assert_eq!(
            parse_script("GROUP(a)\n/* never closed\n").unwrap_err(),
            ScriptError::UnterminatedComment { line: 2 }
        );
        assert_eq!(
            parse_script("\n\nINPUT(\"a.so)").unwrap_err(),
            ScriptError::UnterminatedString { line: 3 }
        );
        let e = parse_script("AS_NEEDED(a)").unwrap_err();
        assert!(
            matches!(e, ScriptError::Unexpected { line: 1, .. }),
            "{e:?}"
        );
        let e = parse_script("INPUT(-l)").unwrap_err();
        assert!(
            matches!(e, ScriptError::Unexpected { line: 1, .. }),
            "{e:?}"
        );
        let e = parse_script("OUTPUT_FORMAT(a, b)").unwrap_err();
        assert!(matches!(e, ScriptError::Unexpected { .. }), "{e:?}");
        let e = parse_script("OUTPUT_FORMAT(a b c)").unwrap_err();
        assert!(matches!(e, ScriptError::Unexpected { .. }), "{e:?}");
        let e = parse_script("ENTRY()").unwrap_err();
        assert!(matches!(e, ScriptError::Unexpected { .. }), "{e:?}");
        let e = parse_script("{").unwrap_err();
        assert!(matches!(e, ScriptError::Unexpected { .. }), "{e:?}");
        // Line numbers keep counting through quoted names that span lines.
        let e = parse_script("INPUT(\"a\nb\")\nFOO").unwrap_err();
        assert!(
            matches!(e, ScriptError::Unsupported { line: 3, .. }),
            "{e:?}"
        );
    }

    #[test]
    fn sniffing() {
        assert!(looks_like_script(LIBC_SO.as_bytes()));
        assert!(looks_like_script(b"INPUT(a)"));
        assert!(!looks_like_script(b""));
        assert!(!looks_like_script(b"\x7fELF\x02\x01\x01\0\0\0"));
        assert!(!looks_like_script(b"GROUP(\xff)"));
        assert!(!looks_like_script(b"GROUP(a)\0"));

        // A multi-byte character cut by the sniff limit is still text...
        let mut long = vec![b' '; SNIFF_LEN - 1];
        long.extend_from_slice("é".as_bytes());
        assert!(looks_like_script(&long));
        // ...but a truncated character at the real end of the file is not.
        assert!(!looks_like_script(&"é".as_bytes()[..1]));
        // Only the first 512 bytes are examined.
        let mut late_nul = vec![b' '; SNIFF_LEN];
        late_nul.push(0);
        assert!(looks_like_script(&late_nul));
    }
}
