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

/// How deeply an expression may nest: parentheses, function arguments and `?:` inside
/// one another, and the operators of its tree (a chain `a + b + ...` of N operators nests N
/// deep, as its tree does). Far beyond any real script; it keeps every recursive walk over
/// an expression (parsing, evaluation, substitution, cloning, dropping) within a small
/// stack, whatever the input.
pub const MAX_DEPTH: u32 = 1000;

/// How many nodes [`Expr::substitute`] may copy into one expression: an assignment
/// reading a symbol assigned before it gets a copy of that expression, so `x = x + x;`
/// repeated would double it each time.
pub const MAX_SUBSTITUTED_NODES: usize = 1 << 16;

fn too_deep() -> ExprError {
    ExprError(format!(
        "expression nested too deeply (more than {MAX_DEPTH} levels)"
    ))
}

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
    /// An expression too deep or too large to build (see [`Expr::substitute`]): evaluating
    /// it fails with this message.
    Invalid(String),
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
    /// The expressions directly inside this one.
    fn children(&self) -> [Option<&Expr>; 3] {
        match self {
            Expr::Unary(_, a) | Expr::Absolute(a) | Expr::Log2Ceil(a) | Expr::AlignDot(a) => {
                [Some(a), None, None]
            }
            Expr::Binary(_, a, b) | Expr::Align(a, b) | Expr::Max(a, b) | Expr::Min(a, b) => {
                [Some(a), Some(b), None]
            }
            Expr::Conditional(c, a, b) => [Some(c), Some(a), Some(b)],
            _ => [None, None, None],
        }
    }

    /// Calls `f` on the expression and every expression inside it, outermost first and
    /// left to right (with a work list: the walk takes no stack, however deep the tree).
    fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        let mut work = vec![self];
        while let Some(e) = work.pop() {
            f(e);
            work.extend(e.children().into_iter().rev().flatten());
        }
    }

    /// The expression's height (the nodes on its longest path) and its number of nodes.
    fn measure(&self) -> (u32, usize) {
        let (mut height, mut nodes) = (0, 0);
        let mut work = vec![(self, 1u32)];
        while let Some((e, h)) = work.pop() {
            height = height.max(h);
            nodes += 1;
            work.extend(e.children().into_iter().flatten().map(|c| (c, h + 1)));
        }
        (height, nodes)
    }

    /// `op(a, b)`, or the error if that would nest more than [`MAX_DEPTH`] levels (for
    /// expressions built around parsed ones).
    pub fn binary(op: BinOp, a: Expr, b: Expr) -> Result<Expr, ExprError> {
        if a.measure().0.max(b.measure().0) >= MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(Expr::Binary(op, Box::new(a), Box::new(b)))
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
    /// `x = x + 1` reads the value `x` had before). A result that would nest more than
    /// [`MAX_DEPTH`] levels or copy more than [`MAX_SUBSTITUTED_NODES`] nodes is
    /// [`Expr::Invalid`], whose evaluation reports it; [`Expr::try_substitute`] returns
    /// the error instead.
    pub fn substitute(&self, value_of: &dyn Fn(&str) -> Option<Expr>) -> Expr {
        self.try_substitute(value_of)
            .unwrap_or_else(|e| Expr::Invalid(e.0))
    }

    /// [`Expr::substitute`], or why its result would be too deep or too large.
    pub fn try_substitute(
        &self,
        value_of: &dyn Fn(&str) -> Option<Expr>,
    ) -> Result<Expr, ExprError> {
        if self.measure().0 > MAX_DEPTH {
            return Err(too_deep());
        }
        let mut copied = 0;
        self.substitute_in(value_of, &mut copied).map(|(e, _)| e)
    }

    /// The substituted expression and its height; `copied` counts the nodes copied in.
    /// Recurses as deep as `self` is (at most [`MAX_DEPTH`]).
    fn substitute_in(
        &self,
        value_of: &dyn Fn(&str) -> Option<Expr>,
        copied: &mut usize,
    ) -> Result<(Expr, u32), ExprError> {
        const WHEN: &str = "with the symbols assigned before it replaced by their expressions";
        let mut sub = |e: &Expr| e.substitute_in(value_of, copied);
        let (e, heights) = match self {
            Expr::Symbol(s) => match value_of(s) {
                Some(value) => {
                    let (height, nodes) = value.measure();
                    *copied += nodes;
                    if *copied > MAX_SUBSTITUTED_NODES {
                        return Err(ExprError(format!(
                            "expression too large (more than {MAX_SUBSTITUTED_NODES} terms) {WHEN}"
                        )));
                    }
                    if height > MAX_DEPTH {
                        return Err(ExprError(format!("{} {WHEN}", too_deep().0)));
                    }
                    return Ok((value, height));
                }
                None => return Ok((self.clone(), 1)),
            },
            Expr::Unary(op, a) => {
                let (a, h) = sub(a)?;
                (Expr::Unary(*op, Box::new(a)), [h, 0, 0])
            }
            Expr::Absolute(a) => {
                let (a, h) = sub(a)?;
                (Expr::Absolute(Box::new(a)), [h, 0, 0])
            }
            Expr::Log2Ceil(a) => {
                let (a, h) = sub(a)?;
                (Expr::Log2Ceil(Box::new(a)), [h, 0, 0])
            }
            Expr::AlignDot(a) => {
                let (a, h) = sub(a)?;
                (Expr::AlignDot(Box::new(a)), [h, 0, 0])
            }
            Expr::Binary(op, a, b) => {
                let ((a, ha), (b, hb)) = (sub(a)?, sub(b)?);
                (Expr::Binary(*op, Box::new(a), Box::new(b)), [ha, hb, 0])
            }
            Expr::Align(a, b) => {
                let ((a, ha), (b, hb)) = (sub(a)?, sub(b)?);
                (Expr::Align(Box::new(a), Box::new(b)), [ha, hb, 0])
            }
            Expr::Max(a, b) => {
                let ((a, ha), (b, hb)) = (sub(a)?, sub(b)?);
                (Expr::Max(Box::new(a), Box::new(b)), [ha, hb, 0])
            }
            Expr::Min(a, b) => {
                let ((a, ha), (b, hb)) = (sub(a)?, sub(b)?);
                (Expr::Min(Box::new(a), Box::new(b)), [ha, hb, 0])
            }
            Expr::Conditional(c, a, b) => {
                let ((c, hc), (a, ha), (b, hb)) = (sub(c)?, sub(a)?, sub(b)?);
                let e = Expr::Conditional(Box::new(c), Box::new(a), Box::new(b));
                (e, [hc, ha, hb])
            }
            _ => return Ok((self.clone(), 1)),
        };
        let height = height_over(&heights).map_err(|e| ExprError(format!("{} {WHEN}", e.0)))?;
        Ok((e, height))
    }

    /// The output sections the expression names.
    pub fn sections(&self, out: &mut Vec<String>) {
        self.walk(&mut |e| {
            if let Expr::Section(_, s) = e {
                out.push(s.clone());
            }
        });
    }

    /// The expression's value. Evaluated with work lists rather than recursion (an
    /// expression's symbols may be expressions of their own, evaluated inside this one's
    /// evaluation, so the stack a level takes would multiply): operands left to right, the
    /// first error ending it, and only the branch of `?:` the condition picks.
    pub fn eval(&self, env: &dyn Env) -> Result<Value, ExprError> {
        enum Task<'e> {
            /// Evaluate the expression: push its value.
            Eval(&'e Expr),
            /// Its operands' values are on top of the stack: replace them by its value.
            Apply(&'e Expr),
            /// The condition of `?:` is on top of the stack: evaluate the branch it picks.
            Choose(&'e Expr, &'e Expr),
        }
        let mut tasks = vec![Task::Eval(self)];
        let mut values: Vec<Value> = Vec::new();
        while let Some(task) = tasks.pop() {
            match task {
                Task::Eval(Expr::Conditional(c, a, b)) => {
                    tasks.push(Task::Choose(a, b));
                    tasks.push(Task::Eval(c));
                }
                // `.` is needed before its operand is looked at.
                Task::Eval(Expr::AlignDot(_)) if env.dot().is_none() => {
                    return Err(outside_sections())
                }
                Task::Eval(e) => match e.children() {
                    [None, ..] => values.push(e.eval_leaf(env)?),
                    operands => {
                        tasks.push(Task::Apply(e));
                        tasks.extend(operands.into_iter().rev().flatten().map(Task::Eval));
                    }
                },
                Task::Choose(a, b) => {
                    let c = values.pop().expect("the condition was evaluated");
                    tasks.push(Task::Eval(if c.value != 0 { a } else { b }));
                }
                Task::Apply(e) => {
                    let n = e.children().iter().flatten().count();
                    let operands = values.split_off(values.len() - n);
                    values.push(e.apply(&operands, env)?);
                }
            }
        }
        Ok(values.pop().expect("the expression was evaluated"))
    }

    /// The value of an expression with no operands.
    fn eval_leaf(&self, env: &dyn Env) -> Result<Value, ExprError> {
        Ok(match self {
            Expr::Number(n) => Value::number(*n),
            Expr::Symbol(name) => env
                .symbol(name)
                .ok_or_else(|| ExprError(format!("symbol not found: {name}")))?,
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
            Expr::Defined(name) => Value::number(u64::from(env.symbol(name).is_some())),
            Expr::Constant(name) => Value::number(match name.as_str() {
                "MAXPAGESIZE" => env.max_page_size(),
                "COMMONPAGESIZE" => env.common_page_size(),
                other => return Err(ExprError(format!("unknown constant: {other}"))),
            }),
            Expr::SizeofHeaders => Value::number(env.sizeof_headers()),
            Expr::Dot => env.dot().ok_or_else(outside_sections)?,
            Expr::Invalid(message) => return Err(ExprError(message.clone())),
            // Those with operands are applied to their values.
            _ => return Err(ExprError("malformed expression".into())),
        })
    }

    /// The value of an expression with operands, given their values (in order).
    fn apply(&self, operands: &[Value], env: &dyn Env) -> Result<Value, ExprError> {
        let x = operands.first().copied().unwrap_or(Value::number(0));
        let y = operands.get(1).copied().unwrap_or(Value::number(0));
        let aligned = |v: Value, align: u64| {
            if align != 0 && !align.is_power_of_two() {
                return Err(ExprError("alignment must be a power of 2".into()));
            }
            Ok(Value {
                value: v.value.wrapping_add(align.wrapping_sub(1)) & !align.wrapping_sub(1),
                ..v
            })
        };
        Ok(match self {
            Expr::Unary(op, _) => Value::number(match op {
                '-' => x.value.wrapping_neg(),
                '~' => !x.value,
                _ => u64::from(x.value == 0),
            }),
            Expr::Binary(op, ..) => binary(*op, x, y)?,
            Expr::Align(..) => aligned(x, y.value)?,
            Expr::Absolute(_) => Value::number(x.value),
            Expr::Max(..) => Value::number(x.value.max(y.value)),
            Expr::Min(..) => Value::number(x.value.min(y.value)),
            Expr::Log2Ceil(_) => Value::number(if x.value <= 1 {
                0
            } else {
                u64::from(64 - (x.value - 1).leading_zeros())
            }),
            Expr::AlignDot(_) => aligned(env.dot().ok_or_else(outside_sections)?, x.value)?,
            _ => return Err(ExprError("malformed expression".into())),
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
        nesting: 0,
    };
    let (e, _) = p.conditional()?;
    match p.tokens.get(p.pos) {
        None => Ok(e),
        Some(t) => Err(ExprError(format!("unexpected `{t}` in expression"))),
    }
}

fn tokenize(text: &str) -> Result<Vec<&str>, ExprError> {
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
            out.push(&text[i + 1..i + 1 + end]);
            i += end + 2;
        } else if TWO.iter().any(|op| text[i..].starts_with(*op)) {
            out.push(&text[i..i + 2]);
            i += 2;
        } else if b"+-*/%&|^~!<>?:(),".contains(&c) {
            out.push(&text[i..i + 1]);
            i += 1;
        } else if c.is_ascii_alphanumeric() || b"_.$".contains(&c) {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_.$@".contains(&b[i])) {
                i += 1;
            }
            out.push(&text[start..i]);
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

struct ExprParser<'a> {
    tokens: Vec<&'a str>,
    pos: usize,
    /// Inside `SECTIONS`: `.` is the location counter.
    sections: bool,
    /// How many parenthesized expressions, function arguments and `?:` branches the
    /// parser is inside (each one a recursive call), at most [`MAX_DEPTH`].
    nesting: u32,
}

/// An expression as the parser builds it, with its height: the nodes on its longest path
/// (at most [`MAX_DEPTH`], so that walking it recursively stays within a small stack).
type Parsed = (Expr, u32);

/// A node over `children`: its height, or the error if that is more than [`MAX_DEPTH`].
fn height_over(children: &[u32]) -> Result<u32, ExprError> {
    let h = 1 + children.iter().copied().max().unwrap_or(0);
    if h > MAX_DEPTH {
        return Err(too_deep());
    }
    Ok(h)
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

/// The precedence level (index in [`LEVELS`]) and operator of a binary operator token.
fn binary_operator(t: &str) -> Option<(usize, BinOp)> {
    LEVELS.iter().enumerate().find_map(|(level, ops)| {
        ops.iter()
            .find(|(s, _)| *s == t)
            .map(|&(_, op)| (level, op))
    })
}

impl<'a> ExprParser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.pos).copied()
    }

    fn next(&mut self) -> Result<&'a str, ExprError> {
        let t = self
            .peek()
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

    /// A whole expression, `c ? a : b` or looser: every nested expression (in
    /// parentheses, a function's argument, a branch of `?:`) is read through here, which
    /// bounds how deeply the parser recurses.
    fn conditional(&mut self) -> Result<Parsed, ExprError> {
        if self.nesting >= MAX_DEPTH {
            return Err(too_deep());
        }
        self.nesting += 1;
        let result = self.conditional_inner();
        self.nesting -= 1;
        result
    }

    fn conditional_inner(&mut self) -> Result<Parsed, ExprError> {
        let (c, hc) = self.binary(0)?;
        if self.peek() != Some("?") {
            return Ok((c, hc));
        }
        self.pos += 1;
        let (a, ha) = self.conditional()?;
        self.expect(":")?;
        let (b, hb) = self.conditional()?;
        let h = height_over(&[hc, ha, hb])?;
        Ok((Expr::Conditional(Box::new(c), Box::new(a), Box::new(b)), h))
    }

    /// Operators of precedence `min_level` or tighter, by precedence climbing: a chain
    /// `a + b + ...` is read in a loop, and the recursion is at most one call per level.
    fn binary(&mut self, min_level: usize) -> Result<Parsed, ExprError> {
        let (mut left, mut height) = self.unary()?;
        while let Some((level, op)) = self.peek().and_then(binary_operator) {
            if level < min_level {
                break;
            }
            self.pos += 1;
            let (right, hr) = self.binary(level + 1)?;
            height = height_over(&[height, hr])?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok((left, height))
    }

    /// Prefix operators, read in a loop (a chain `- - - 1` nests as deeply as its length).
    fn unary(&mut self) -> Result<Parsed, ExprError> {
        let mut ops = Vec::new();
        while let Some(t @ ("-" | "~" | "!" | "+")) = self.peek() {
            self.pos += 1;
            // A unary `+` changes nothing.
            if t != "+" {
                if ops.len() >= MAX_DEPTH as usize {
                    return Err(too_deep());
                }
                ops.push(t.chars().next().unwrap_or('-'));
            }
        }
        let (mut e, mut height) = self.primary()?;
        for op in ops.into_iter().rev() {
            height = height_over(&[height])?;
            e = Expr::Unary(op, Box::new(e));
        }
        Ok((e, height))
    }

    fn name_argument(&mut self) -> Result<String, ExprError> {
        self.expect("(")?;
        let name = self.next()?;
        self.expect(")")?;
        Ok(name.to_string())
    }

    /// `(A)`: A, and the height of a node over it.
    fn one(&mut self) -> Result<(Box<Expr>, u32), ExprError> {
        self.expect("(")?;
        let (e, h) = self.conditional()?;
        self.expect(")")?;
        Ok((Box::new(e), height_over(&[h])?))
    }

    /// `(A, B)`: A, B, and the height of a node over them.
    fn two(&mut self) -> Result<(Box<Expr>, Box<Expr>, u32), ExprError> {
        self.expect("(")?;
        let (a, ha) = self.conditional()?;
        self.expect(",")?;
        let (b, hb) = self.conditional()?;
        self.expect(")")?;
        Ok((Box::new(a), Box::new(b), height_over(&[ha, hb])?))
    }

    fn primary(&mut self) -> Result<Parsed, ExprError> {
        let t = self.next()?;
        let e = match t {
            "(" => {
                let e = self.conditional()?;
                self.expect(")")?;
                return Ok(e);
            }
            "." if self.sections => Expr::Dot,
            "." => return Err(outside_sections()),
            "ADDR" | "SIZEOF" | "ALIGNOF" | "LOADADDR" => {
                let f = match t {
                    "ADDR" => SectionFn::Addr,
                    "SIZEOF" => SectionFn::Sizeof,
                    "ALIGNOF" => SectionFn::Alignof,
                    _ => SectionFn::Loadaddr,
                };
                Expr::Section(f, self.name_argument()?)
            }
            "ALIGN" => {
                self.expect("(")?;
                let (a, ha) = self.conditional()?;
                if self.peek() != Some(",") {
                    self.expect(")")?;
                    if !self.sections {
                        return Err(ExprError(
                            "ALIGN(expr) aligns `.`, which is only meaningful inside SECTIONS"
                                .into(),
                        ));
                    }
                    return Ok((Expr::AlignDot(Box::new(a)), height_over(&[ha])?));
                }
                self.pos += 1;
                let (b, hb) = self.conditional()?;
                self.expect(")")?;
                return Ok((
                    Expr::Align(Box::new(a), Box::new(b)),
                    height_over(&[ha, hb])?,
                ));
            }
            "ABSOLUTE" => {
                let (a, h) = self.one()?;
                return Ok((Expr::Absolute(a), h));
            }
            "LOG2CEIL" => {
                let (a, h) = self.one()?;
                return Ok((Expr::Log2Ceil(a), h));
            }
            "DEFINED" => Expr::Defined(self.name_argument()?),
            "CONSTANT" => Expr::Constant(self.name_argument()?),
            "MAX" => {
                let (a, b, h) = self.two()?;
                return Ok((Expr::Max(a, b), h));
            }
            "MIN" => {
                let (a, b, h) = self.two()?;
                return Ok((Expr::Min(a, b), h));
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
                return Ok(default);
            }
            "DATA_SEGMENT_ALIGN" | "DATA_SEGMENT_RELRO_END" if self.sections => {
                let (max_page, _, h) = self.two()?;
                let (align, h) = if t == "DATA_SEGMENT_ALIGN" {
                    (Expr::Max(max_page, Box::new(Expr::Number(1))), h)
                } else {
                    (Expr::Constant("COMMONPAGESIZE".into()), 1)
                };
                return Ok((Expr::AlignDot(Box::new(align)), height_over(&[h])?));
            }
            "DATA_SEGMENT_END" if self.sections => {
                let (a, h) = self.one()?;
                return Ok((*a, h - 1));
            }
            _ => match number(t) {
                Some(n) => Expr::Number(n),
                None if t.starts_with(|c: char| c.is_ascii_digit()) => {
                    return Err(ExprError(format!("malformed number: {t}")))
                }
                None if t.len() == 1
                    && !t.starts_with(|c: char| c.is_alphanumeric() || c == '_') =>
                {
                    return Err(ExprError(format!("unexpected `{t}` in expression")))
                }
                None => Expr::Symbol(t.to_string()),
            },
        };
        Ok((e, 1))
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
    fn operators_associate_as_in_c() {
        assert_eq!(eval("10 - 3 - 2").unwrap().value, 5);
        assert_eq!(eval("64 / 4 / 2").unwrap().value, 8);
        assert_eq!(eval("2 * 3 + 4 * 5").unwrap().value, 26);
        assert_eq!(eval("1 < 2 == 1").unwrap().value, 1);
        assert_eq!(eval("- 2 * 3 + + 7").unwrap().value, 1);
        assert_eq!(eval("!0 + ~~5 - -1").unwrap().value, 7);
        assert_eq!(eval("0 ? 1 : limit ? 2 : 3").unwrap().value, 2);
        assert_eq!(eval("1 | 6 & 3 ^ 1").unwrap().value, 3);
        assert_eq!(eval("1 + 1 << 2 >> 1").unwrap().value, 4);
        assert_eq!(eval("0 || 1 && 2").unwrap().value, 1);
    }

    #[test]
    fn depth_is_bounded() {
        let nested = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
        let too_deep = |t: &str| parse(t).unwrap_err().0.contains("nested too deeply");
        assert_eq!(eval(&nested(999)).unwrap().value, 1);
        assert!(too_deep(&nested(1000)));
        assert!(too_deep(&nested(200_000)));
        // A chain of N operators is a tree N + 1 levels deep.
        let chain = |n: usize| format!("1{}", " + 1".repeat(n));
        assert_eq!(eval(&chain(999)).unwrap().value, 1000);
        assert!(too_deep(&chain(1000)));
        assert!(too_deep(&chain(1_000_000)));
        assert_eq!(eval(&format!("{}1", "- ".repeat(998))).unwrap().value, 1);
        assert!(too_deep(&format!("{}1", "- ".repeat(1000))));
        assert!(too_deep(&format!("{}1", "~ ".repeat(200_000))));
        assert!(too_deep(&format!("{}1", "1 ? 2 : ".repeat(200_000))));
        assert!(too_deep(&format!(
            "{}1{}",
            "MAX(1, ".repeat(1000),
            ")".repeat(1000)
        )));
        // Substituting earlier assignments keeps the bounds.
        let deep = parse(&chain(999)).unwrap();
        let value_of = |name: &str| (name == "x").then(|| deep.clone());
        assert_eq!(parse("x").unwrap().substitute(&value_of), deep);
        let e = parse("x + 1").unwrap().substitute(&value_of);
        assert!(matches!(&e, Expr::Invalid(m) if m.contains("nested too deeply")));
        assert!(eval_invalid(&e).contains("nested too deeply"));
        // Or their size: `x` of 2^14 - 1 nodes fits four times, not five.
        let mut wide = String::from("1");
        for _ in 0..13 {
            wide = format!("({wide} + {wide})");
        }
        let wide = parse(&wide).unwrap();
        let value_of = |name: &str| (name == "x").then(|| wide.clone());
        assert!(parse("x + x + x + x")
            .unwrap()
            .try_substitute(&value_of)
            .is_ok());
        let e = parse("x + x + x + x + x")
            .unwrap()
            .try_substitute(&value_of);
        assert!(e.unwrap_err().0.contains("too large"));
    }

    fn eval_invalid(e: &Expr) -> String {
        let env = TestEnv {
            symbols: HashMap::new(),
            dot: None,
        };
        e.eval(&env).unwrap_err().0
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
