//! Linker script expressions, as GNU ld and lld read them: in symbol assignments of
//! scripts (`end_of_text = ADDR(.text) + SIZEOF(.text);`), `PROVIDE`, `ASSERT`, and
//! `--defsym NAME=EXPR`.
//!
//! A value is a number, or an offset from an output section (what a symbol defined in a
//! section, `ADDR(sec)` and `.`-free arithmetic on them give): the symbol an assignment
//! defines is then relative to that section, as lld makes it, and moves with it in a
//! position-independent output. Addition and subtraction of a number keep the section;
//! the difference of two addresses and every other operator give a number.

use std::fmt;

/// A parsed expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Number(u64),
    Symbol(String),
    Unary(char, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `ADDR`, `SIZEOF`, `ALIGNOF`, `LOADADDR` of an output section (by name).
    Section(SectionFn, String),
    /// `ALIGN(e)` is not available outside `SECTIONS` (it aligns `.`); `ALIGN(e, a)` is.
    Align(Box<Expr>, Box<Expr>),
    Absolute(Box<Expr>),
    Defined(String),
    Max(Box<Expr>, Box<Expr>),
    Min(Box<Expr>, Box<Expr>),
    Log2Ceil(Box<Expr>),
    /// `CONSTANT(MAXPAGESIZE)` or `CONSTANT(COMMONPAGESIZE)`.
    Constant(String),
    SizeofHeaders,
    /// The location counter `.` (inside `SECTIONS`).
    Dot,
    /// `ALIGN(a)`: `.` aligned up to `a` (inside `SECTIONS`).
    AlignDot(Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionFn {
    Addr,
    Sizeof,
    Alignof,
    Loadaddr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

/// What an expression evaluates to: a number, or an offset from an output section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value {
    /// The output section (index in the link's output list) the value is relative to.
    pub section: Option<u32>,
    /// The address (or number).
    pub value: u64,
}

impl Value {
    fn number(value: u64) -> Value {
        Value {
            section: None,
            value,
        }
    }
}

/// An output section as expressions see it.
#[derive(Debug, Clone, Copy)]
pub struct SectionInfo {
    pub index: u32,
    pub addr: u64,
    /// The load address (`LOADADDR`): the address unless a script's `AT` moves it.
    pub lma: u64,
    pub size: u64,
    pub align: u64,
}

/// What evaluation needs from the link.
pub trait Env {
    /// A defined symbol's value; `None` if nothing defines it.
    fn symbol(&self, name: &str) -> Option<Value>;
    fn section(&self, name: &str) -> Option<SectionInfo>;
    fn max_page_size(&self) -> u64;
    fn common_page_size(&self) -> u64;
    fn sizeof_headers(&self) -> u64;
    /// The location counter, inside `SECTIONS`.
    fn dot(&self) -> Option<Value> {
        None
    }
}

/// Why an expression could not be read or evaluated, in lld's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError(pub String);

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Expr {
    /// Calls `f` on the expression and every expression inside it.
    fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Unary(_, a) | Expr::Absolute(a) | Expr::Log2Ceil(a) | Expr::AlignDot(a) => {
                a.walk(f)
            }
            Expr::Binary(_, a, b) | Expr::Align(a, b) | Expr::Max(a, b) | Expr::Min(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Conditional(c, a, b) => {
                c.walk(f);
                a.walk(f);
                b.walk(f);
            }
            _ => {}
        }
    }

    /// The symbols the expression reads (not those only tested with `DEFINED`).
    pub fn symbols(&self, out: &mut Vec<String>) {
        self.walk(&mut |e| {
            if let Expr::Symbol(s) = e {
                out.push(s.clone());
            }
        });
    }

    /// The expression with each symbol `value_of` knows replaced by its expression (a
    /// script's earlier assignment to it: assignments take effect in order, so
    /// `x = x + 1` reads the value `x` had before).
    pub fn substitute(&self, value_of: &dyn Fn(&str) -> Option<Expr>) -> Expr {
        let sub = |e: &Expr| Box::new(e.substitute(value_of));
        match self {
            Expr::Symbol(s) => value_of(s).unwrap_or_else(|| self.clone()),
            Expr::Unary(op, a) => Expr::Unary(*op, sub(a)),
            Expr::Absolute(a) => Expr::Absolute(sub(a)),
            Expr::Log2Ceil(a) => Expr::Log2Ceil(sub(a)),
            Expr::AlignDot(a) => Expr::AlignDot(sub(a)),
            Expr::Binary(op, a, b) => Expr::Binary(*op, sub(a), sub(b)),
            Expr::Align(a, b) => Expr::Align(sub(a), sub(b)),
            Expr::Max(a, b) => Expr::Max(sub(a), sub(b)),
            Expr::Min(a, b) => Expr::Min(sub(a), sub(b)),
            Expr::Conditional(c, a, b) => Expr::Conditional(sub(c), sub(a), sub(b)),
            _ => self.clone(),
        }
    }

    /// The output sections the expression names.
    pub fn sections(&self, out: &mut Vec<String>) {
        self.walk(&mut |e| {
            if let Expr::Section(_, s) = e {
                out.push(s.clone());
            }
        });
    }

    pub fn eval(&self, env: &dyn Env) -> Result<Value, ExprError> {
        let num = |e: &Expr| e.eval(env).map(|v| v.value);
        Ok(match self {
            Expr::Number(n) => Value::number(*n),
            Expr::Symbol(name) => env
                .symbol(name)
                .ok_or_else(|| ExprError(format!("symbol not found: {name}")))?,
            Expr::Unary(op, a) => {
                let v = num(a)?;
                Value::number(match op {
                    '-' => v.wrapping_neg(),
                    '~' => !v,
                    _ => u64::from(v == 0),
                })
            }
            Expr::Binary(op, a, b) => {
                let (x, y) = (a.eval(env)?, b.eval(env)?);
                binary(*op, x, y)?
            }
            Expr::Conditional(c, a, b) => {
                if num(c)? != 0 {
                    a.eval(env)?
                } else {
                    b.eval(env)?
                }
            }
            // lld's: an empty section the script names has no output section, and size 0.
            Expr::Section(SectionFn::Sizeof, name) if env.section(name).is_none() => {
                Value::number(0)
            }
            Expr::Section(f, name) => {
                let s = env
                    .section(name)
                    .ok_or_else(|| ExprError(format!("undefined section {name}")))?;
                match f {
                    SectionFn::Addr => Value {
                        section: Some(s.index),
                        value: s.addr,
                    },
                    SectionFn::Loadaddr => Value::number(s.lma),
                    SectionFn::Sizeof => Value::number(s.size),
                    SectionFn::Alignof => Value::number(s.align),
                }
            }
            Expr::Align(a, b) => {
                let v = a.eval(env)?;
                let align = num(b)?;
                if align != 0 && !align.is_power_of_two() {
                    return Err(ExprError("alignment must be a power of 2".into()));
                }
                Value {
                    value: v.value.wrapping_add(align.wrapping_sub(1)) & !align.wrapping_sub(1),
                    ..v
                }
            }
            Expr::Absolute(a) => Value::number(num(a)?),
            Expr::Defined(name) => Value::number(u64::from(env.symbol(name).is_some())),
            Expr::Max(a, b) => Value::number(num(a)?.max(num(b)?)),
            Expr::Min(a, b) => Value::number(num(a)?.min(num(b)?)),
            Expr::Log2Ceil(a) => {
                let v = num(a)?;
                Value::number(if v <= 1 {
                    0
                } else {
                    u64::from(64 - (v - 1).leading_zeros())
                })
            }
            Expr::Constant(name) => Value::number(match name.as_str() {
                "MAXPAGESIZE" => env.max_page_size(),
                "COMMONPAGESIZE" => env.common_page_size(),
                other => return Err(ExprError(format!("unknown constant: {other}"))),
            }),
            Expr::SizeofHeaders => Value::number(env.sizeof_headers()),
            Expr::Dot => env.dot().ok_or_else(outside_sections)?,
            Expr::AlignDot(a) => {
                let dot = env.dot().ok_or_else(outside_sections)?;
                let align = num(a)?;
                if align != 0 && !align.is_power_of_two() {
                    return Err(ExprError("alignment must be a power of 2".into()));
                }
                Value {
                    value: dot.value.wrapping_add(align.wrapping_sub(1)) & !align.wrapping_sub(1),
                    ..dot
                }
            }
        })
    }
}

fn outside_sections() -> ExprError {
    ExprError("the location counter `.` is only meaningful inside SECTIONS".into())
}

fn binary(op: BinOp, x: Value, y: Value) -> Result<Value, ExprError> {
    use BinOp::*;
    let (a, b) = (x.value, y.value);
    let value = match op {
        // A section-relative value plus or minus a number stays relative.
        Add => {
            return Ok(Value {
                section: x.section.or(y.section),
                value: a.wrapping_add(b),
            })
        }
        Sub if y.section.is_none() => {
            return Ok(Value {
                section: x.section,
                value: a.wrapping_sub(b),
            })
        }
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div | Rem if b == 0 => return Err(ExprError("division by zero".into())),
        Div => a / b,
        Rem => a % b,
        Shl => a.checked_shl(b as u32).unwrap_or(0),
        Shr => a.checked_shr(b as u32).unwrap_or(0),
        Lt => u64::from(a < b),
        Le => u64::from(a <= b),
        Gt => u64::from(a > b),
        Ge => u64::from(a >= b),
        Eq => u64::from(a == b),
        Ne => u64::from(a != b),
        BitAnd => a & b,
        BitXor => a ^ b,
        BitOr => a | b,
        And => u64::from(a != 0 && b != 0),
        Or => u64::from(a != 0 || b != 0),
    };
    Ok(Value::number(value))
}

/// Parses a whole expression (`text` holds nothing else).
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    parse_in(text, false)
}

/// Parses an expression inside `SECTIONS`, where `.` and `ALIGN(a)` mean the location
/// counter.
pub fn parse_in_sections(text: &str) -> Result<Expr, ExprError> {
    parse_in(text, true)
}

fn parse_in(text: &str, sections: bool) -> Result<Expr, ExprError> {
    let tokens = tokenize(text)?;
    let mut p = ExprParser {
        tokens,
        pos: 0,
        sections,
    };
    let e = p.conditional()?;
    match p.tokens.get(p.pos) {
        None => Ok(e),
        Some(t) => Err(ExprError(format!("unexpected `{t}` in expression"))),
    }
}

fn tokenize(text: &str) -> Result<Vec<String>, ExprError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    const TWO: [&str; 8] = ["<<", ">>", "<=", ">=", "==", "!=", "&&", "||"];
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..]
                .find("*/")
                .ok_or_else(|| ExprError("unterminated comment".into()))?;
            i += end + 4;
        } else if c == b'"' {
            let end = text[i + 1..]
                .find('"')
                .ok_or_else(|| ExprError("unterminated quoted name".into()))?;
            out.push(text[i + 1..i + 1 + end].to_string());
            i += end + 2;
        } else if let Some(op) = TWO.iter().find(|op| text[i..].starts_with(*op)) {
            out.push(op.to_string());
            i += 2;
        } else if b"+-*/%&|^~!<>?:(),".contains(&c) {
            out.push(char::from(c).to_string());
            i += 1;
        } else if c.is_ascii_alphanumeric() || b"_.$".contains(&c) {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_.$@".contains(&b[i])) {
                i += 1;
            }
            out.push(text[start..i].to_string());
        } else {
            return Err(ExprError(format!(
                "unexpected character `{}` in expression",
                char::from(c)
            )));
        }
    }
    Ok(out)
}

/// A number as GNU ld writes them: `0x` hex, decimal, a `K` or `M` suffix.
fn number(t: &str) -> Option<u64> {
    let (digits, scale) = match t.as_bytes().last()? {
        b'K' | b'k' => (&t[..t.len() - 1], 1 << 10),
        b'M' | b'm' => (&t[..t.len() - 1], 1 << 20),
        _ => (t, 1),
    };
    let v = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    v.checked_mul(scale)
}

struct ExprParser {
    tokens: Vec<String>,
    pos: usize,
    /// Inside `SECTIONS`: `.` is the location counter.
    sections: bool,
}

/// Binary operators by precedence, loosest first (C's, as GNU ld's grammar has them).
const LEVELS: &[&[(&str, BinOp)]] = &[
    &[("||", BinOp::Or)],
    &[("&&", BinOp::And)],
    &[("|", BinOp::BitOr)],
    &[("^", BinOp::BitXor)],
    &[("&", BinOp::BitAnd)],
    &[("==", BinOp::Eq), ("!=", BinOp::Ne)],
    &[
        ("<", BinOp::Lt),
        ("<=", BinOp::Le),
        (">", BinOp::Gt),
        (">=", BinOp::Ge),
    ],
    &[("<<", BinOp::Shl), (">>", BinOp::Shr)],
    &[("+", BinOp::Add), ("-", BinOp::Sub)],
    &[("*", BinOp::Mul), ("/", BinOp::Div), ("%", BinOp::Rem)],
];

impl ExprParser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(String::as_str)
    }

    fn next(&mut self) -> Result<String, ExprError> {
        let t = self
            .tokens
            .get(self.pos)
            .cloned()
            .ok_or_else(|| ExprError("unexpected end of expression".into()))?;
        self.pos += 1;
        Ok(t)
    }

    fn expect(&mut self, want: &str) -> Result<(), ExprError> {
        let t = self.next()?;
        if t == want {
            Ok(())
        } else {
            Err(ExprError(format!("expected `{want}`, found `{t}`")))
        }
    }

    fn conditional(&mut self) -> Result<Expr, ExprError> {
        let c = self.binary(0)?;
        if self.peek() != Some("?") {
            return Ok(c);
        }
        self.pos += 1;
        let a = self.conditional()?;
        self.expect(":")?;
        let b = self.conditional()?;
        Ok(Expr::Conditional(Box::new(c), Box::new(a), Box::new(b)))
    }

    fn binary(&mut self, level: usize) -> Result<Expr, ExprError> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(&(_, op)) = LEVELS[level].iter().find(|(s, _)| self.peek() == Some(*s)) {
            self.pos += 1;
            let right = self.binary(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        match self.peek() {
            Some("-") | Some("~") | Some("!") => {
                let op = self.next()?.chars().next().unwrap_or('-');
                Ok(Expr::Unary(op, Box::new(self.unary()?)))
            }
            Some("+") => {
                self.pos += 1;
                self.unary()
            }
            _ => self.primary(),
        }
    }

    fn name_argument(&mut self) -> Result<String, ExprError> {
        self.expect("(")?;
        let name = self.next()?;
        self.expect(")")?;
        Ok(name)
    }

    fn one(&mut self) -> Result<Box<Expr>, ExprError> {
        self.expect("(")?;
        let e = self.conditional()?;
        self.expect(")")?;
        Ok(Box::new(e))
    }

    fn two(&mut self) -> Result<(Box<Expr>, Box<Expr>), ExprError> {
        self.expect("(")?;
        let a = self.conditional()?;
        self.expect(",")?;
        let b = self.conditional()?;
        self.expect(")")?;
        Ok((Box::new(a), Box::new(b)))
    }

    fn primary(&mut self) -> Result<Expr, ExprError> {
        let t = self.next()?;
        let e = match t.as_str() {
            "(" => {
                let e = self.conditional()?;
                self.expect(")")?;
                e
            }
            "." if self.sections => Expr::Dot,
            "." => return Err(outside_sections()),
            "ADDR" | "SIZEOF" | "ALIGNOF" | "LOADADDR" => {
                let f = match t.as_str() {
                    "ADDR" => SectionFn::Addr,
                    "SIZEOF" => SectionFn::Sizeof,
                    "ALIGNOF" => SectionFn::Alignof,
                    _ => SectionFn::Loadaddr,
                };
                Expr::Section(f, self.name_argument()?)
            }
            "ALIGN" => {
                self.expect("(")?;
                let a = self.conditional()?;
                if self.peek() != Some(",") {
                    self.expect(")")?;
                    if !self.sections {
                        return Err(ExprError(
                            "ALIGN(expr) aligns `.`, which is only meaningful inside SECTIONS"
                                .into(),
                        ));
                    }
                    return Ok(Expr::AlignDot(Box::new(a)));
                }
                self.pos += 1;
                let b = self.conditional()?;
                self.expect(")")?;
                Expr::Align(Box::new(a), Box::new(b))
            }
            "ABSOLUTE" => Expr::Absolute(self.one()?),
            "LOG2CEIL" => Expr::Log2Ceil(self.one()?),
            "DEFINED" => Expr::Defined(self.name_argument()?),
            "CONSTANT" => Expr::Constant(self.name_argument()?),
            "MAX" => {
                let (a, b) = self.two()?;
                Expr::Max(a, b)
            }
            "MIN" => {
                let (a, b) = self.two()?;
                Expr::Min(a, b)
            }
            "SIZEOF_HEADERS" => Expr::SizeofHeaders,
            // GNU ld's default scripts. As lld: `SEGMENT_START` is its default (the
            // segment name is not looked up), `DATA_SEGMENT_ALIGN` aligns `.` to the
            // maximum page, `DATA_SEGMENT_RELRO_END` to the common page (so RELRO ends
            // on a page boundary), `DATA_SEGMENT_END(.)` is `.`.
            "SEGMENT_START" => {
                self.expect("(")?;
                self.next()?;
                self.expect(",")?;
                let default = self.conditional()?;
                self.expect(")")?;
                default
            }
            "DATA_SEGMENT_ALIGN" | "DATA_SEGMENT_RELRO_END" if self.sections => {
                let (max_page, _) = self.two()?;
                let align = if t == "DATA_SEGMENT_ALIGN" {
                    Expr::Max(max_page, Box::new(Expr::Number(1)))
                } else {
                    Expr::Constant("COMMONPAGESIZE".into())
                };
                Expr::AlignDot(Box::new(align))
            }
            "DATA_SEGMENT_END" if self.sections => *self.one()?,
            _ => match number(&t) {
                Some(n) => Expr::Number(n),
                None if t.starts_with(|c: char| c.is_ascii_digit()) => {
                    return Err(ExprError(format!("malformed number: {t}")))
                }
                None if t.len() == 1
                    && !t.starts_with(|c: char| c.is_alphanumeric() || c == '_') =>
                {
                    return Err(ExprError(format!("unexpected `{t}` in expression")))
                }
                None => Expr::Symbol(t),
            },
        };
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct TestEnv {
        symbols: HashMap<&'static str, Value>,
        dot: Option<Value>,
    }

    impl Env for TestEnv {
        fn symbol(&self, name: &str) -> Option<Value> {
            self.symbols.get(name).copied()
        }
        fn section(&self, name: &str) -> Option<SectionInfo> {
            (name == ".text").then_some(SectionInfo {
                index: 3,
                addr: 0x1000,
                lma: 0x1000,
                size: 0x234,
                align: 16,
            })
        }
        fn max_page_size(&self) -> u64 {
            0x1000
        }
        fn common_page_size(&self) -> u64 {
            0x1000
        }
        fn sizeof_headers(&self) -> u64 {
            0x2a8
        }
        fn dot(&self) -> Option<Value> {
            self.dot
        }
    }

    fn eval(text: &str) -> Result<Value, ExprError> {
        let env = TestEnv {
            symbols: HashMap::from([
                (
                    "main",
                    Value {
                        section: Some(3),
                        value: 0x1100,
                    },
                ),
                ("limit", Value::number(40)),
            ]),
            dot: None,
        };
        parse(text)?.eval(&env)
    }

    /// Evaluates `text` inside `SECTIONS`, with `.` at `dot`.
    fn eval_at(text: &str, dot: u64) -> Result<u64, ExprError> {
        let env = TestEnv {
            symbols: HashMap::new(),
            dot: Some(Value::number(dot)),
        };
        Ok(parse_in_sections(text)?.eval(&env)?.value)
    }

    #[test]
    fn gnu_default_script_functions_as_lld() {
        assert_eq!(
            eval_at(
                "SEGMENT_START(\"text-segment\", 0x400000) + SIZEOF_HEADERS",
                0
            )
            .unwrap(),
            0x4002a8
        );
        let align = "DATA_SEGMENT_ALIGN (CONSTANT (MAXPAGESIZE), CONSTANT (COMMONPAGESIZE))";
        assert_eq!(eval_at(align, 0x1234).unwrap(), 0x2000);
        assert_eq!(eval_at(align, 0x2000).unwrap(), 0x2000);
        let relro_end = "DATA_SEGMENT_RELRO_END (SIZEOF (.text) >= 24 ? 24 : 0, .)";
        assert_eq!(eval_at(relro_end, 0x3008).unwrap(), 0x4000);
        assert_eq!(eval_at("DATA_SEGMENT_END (.)", 0x3008).unwrap(), 0x3008);
        // They move `.`: outside SECTIONS they mean nothing.
        assert!(parse("DATA_SEGMENT_END (.)").is_err());
    }

    #[test]
    fn arithmetic_follows_c_precedence() {
        assert_eq!(eval("1 + 2 * 3").unwrap().value, 7);
        assert_eq!(eval("(1 + 2) * 3").unwrap().value, 9);
        assert_eq!(eval("1 << 4 | 1").unwrap().value, 17);
        assert_eq!(eval("limit > 30 ? 0x10 : 0x20").unwrap().value, 0x10);
        assert_eq!(eval("-1").unwrap().value, u64::MAX);
        assert_eq!(eval("~0 & 0xff").unwrap().value, 0xff);
        assert_eq!(eval("4K + 1M").unwrap().value, 4096 + (1 << 20));
        assert_eq!(eval("!limit || 0").unwrap().value, 0);
        assert_eq!(eval("7 % 4 + 10 / 3").unwrap().value, 6);
    }

    #[test]
    fn section_relative_values_keep_their_section() {
        let v = eval("main + 8").unwrap();
        assert_eq!((v.section, v.value), (Some(3), 0x1108));
        let v = eval("ADDR(.text) + SIZEOF(.text)").unwrap();
        assert_eq!((v.section, v.value), (Some(3), 0x1234));
        // The difference of two addresses is a number.
        let v = eval("main - ADDR(.text)").unwrap();
        assert_eq!((v.section, v.value), (None, 0x100));
        assert_eq!(eval("ABSOLUTE(main)").unwrap().section, None);
        let v = eval("ALIGN(main + 1, 0x40)").unwrap();
        assert_eq!((v.section, v.value), (Some(3), 0x1140));
    }

    #[test]
    fn functions() {
        assert_eq!(eval("MAX(limit, 100)").unwrap().value, 100);
        assert_eq!(eval("MIN(limit, 100)").unwrap().value, 40);
        assert_eq!(eval("DEFINED(main) + DEFINED(nothing)").unwrap().value, 1);
        assert_eq!(eval("CONSTANT(MAXPAGESIZE)").unwrap().value, 0x1000);
        assert_eq!(eval("LOG2CEIL(40)").unwrap().value, 6);
        assert_eq!(eval("ALIGNOF(.text)").unwrap().value, 16);
        assert_eq!(eval("SIZEOF_HEADERS").unwrap().value, 0x2a8);
    }

    #[test]
    fn errors_name_the_problem() {
        let err = |t: &str| eval(t).unwrap_err().0;
        assert_eq!(err("nothing + 1"), "symbol not found: nothing");
        assert_eq!(err("ADDR(.nowhere)"), "undefined section .nowhere");
        assert_eq!(eval("SIZEOF(.nowhere)").unwrap().value, 0);
        assert!(err("1 +").contains("end of expression"));
        assert!(err("(1").contains("end of expression"));
        assert!(err(". + 4").contains("SECTIONS"));
        assert!(err("ALIGN(8)").contains("SECTIONS"));
        assert!(err("1 / 0").contains("division by zero"));
        assert!(err("0x").contains("malformed number"));
        assert!(err("1 2").contains("unexpected `2`"));
        assert!(err("ALIGN(main, 3)").contains("power of 2"));
    }
}
