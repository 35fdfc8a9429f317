//! The `print fmt:` line: a C format string and the argument expressions the kernel's
//! `TP_printk` passes to it, parsed into an expression tree with the node kinds of
//! libtraceevent's `struct tep_print_arg` (`event-parse.c`: `process_arg`, `process_op`, …).
//!
//! Operators follow C precedence (which is what libtraceevent's priority table encodes);
//! `(type)` is a cast when an operand follows it, as libtraceevent decides.

use super::flag_values::{arg_eval, eval_flag};
use super::format::EventFormat;
use super::lexer::{Lexer, Token};
use super::printf::{parse_segments, Segment};

/// A parsed print format.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintFmt {
    /// The format string (escapes as written).
    pub format: String,
    /// The format string cut into literal text and conversions bound to their arguments.
    pub segments: Vec<Segment>,
    /// The argument expressions.
    pub args: Vec<Arg>,
}

/// One entry of `__print_flags` / `__print_symbolic`: `{ value, "name" }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagSym {
    /// The value as libtraceevent's `eval_flag` reads it (-1 for names it does not know).
    pub value: i64,
    /// The text printed for it.
    pub text: String,
}

/// An argument expression (`struct tep_print_arg`).
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A number, a name or a string literal (`TEP_PRINT_ATOM`).
    Atom(String),
    /// `REC->name` (`TEP_PRINT_FIELD`).
    Field(String),
    /// `__print_flags(value, "delim", { v, "name" }, …)`.
    Flags {
        /// The value whose bits are named.
        value: Box<Arg>,
        /// Printed between names.
        delim: String,
        /// The names, in order.
        flags: Vec<FlagSym>,
    },
    /// `__print_symbolic(value, { v, "name" }, …)`.
    Symbolic {
        /// The value to name.
        value: Box<Arg>,
        /// The names.
        symbols: Vec<FlagSym>,
    },
    /// `__print_hex(data, len)` (bytes separated by spaces) or `__print_hex_str` (not).
    Hex {
        /// A field or `__get_dynamic_array(f)`.
        data: Box<Arg>,
        /// How many bytes.
        len: Box<Arg>,
        /// `__print_hex_str`.
        no_spaces: bool,
    },
    /// `__print_array(data, count, el_size)`.
    IntArray {
        /// A field or `__get_dynamic_array(f)`.
        data: Box<Arg>,
        /// Element count.
        count: Box<Arg>,
        /// Element size in bytes.
        el_size: Box<Arg>,
    },
    /// `(type)item`.
    Typecast {
        /// The type text (`unsigned long`, `void *`).
        ty: String,
        /// The operand.
        item: Box<Arg>,
    },
    /// `__get_str(field)` / `__get_rel_str(field)`.
    Str(String),
    /// `__get_bitmask(field)`.
    Bitmask(String),
    /// `__get_cpumask(field)`.
    Cpumask(String),
    /// `__get_dynamic_array(field)` (and `__get_sockaddr`).
    DynArray(String),
    /// `__get_dynamic_array_len(field)`.
    DynArrayLen(String),
    /// A unary operator (`-`, `+`, `~`, `!`) applied to an operand.
    Unary(String, Box<Arg>),
    /// A binary operator.
    Binary(String, Box<Arg>, Box<Arg>),
    /// `cond ? then : else`.
    Cond(Box<Arg>, Box<Arg>, Box<Arg>),
    /// `base[index]`.
    Index(Box<Arg>, Box<Arg>),
}

type PResult<T> = Result<T, String>;

/// How deep expressions may nest.
const MAX_DEPTH: u32 = 128;

struct Parser<'a, 'e> {
    lex: Lexer<'a>,
    /// Nesting depth of [`Parser::unary`], which every recursion goes through.
    depth: u32,
    peeked: Option<Option<Token>>,
    event: &'e EventFormat,
}

/// Parses the text after `print fmt: ` for `event` (whose fields `sizeof(REC->x)` may name).
pub fn parse_print_fmt(text: &str, event: &EventFormat) -> Result<PrintFmt, String> {
    let mut p = Parser {
        lex: Lexer::new(text),
        depth: 0,
        peeked: None,
        event,
    };
    let format = match p.next() {
        Some(Token::DQuote(s)) => s,
        t => return Err(format!("expected the format string, found {t:?}")),
    };
    let mut args = Vec::new();
    match p.next() {
        None => {}
        Some(t) if t.is_delim(',') => loop {
            args.push(p.expr(0)?);
            match p.next() {
                None => break,
                Some(t) if t.is_delim(',') => continue,
                t => return Err(format!("expected ',' between arguments, found {t:?}")),
            }
        },
        t => return Err(format!("expected ',' after the format string, found {t:?}")),
    }
    let segments = parse_segments(&format, args.len())?;
    Ok(PrintFmt {
        format,
        segments,
        args,
    })
}

/// Binding power of a binary operator (higher binds tighter), from libtraceevent's
/// `get_op_prio` (where lower numbers bind tighter).
fn binary_power(op: &str) -> Option<u8> {
    let prio = match op {
        "*" | "/" | "%" => 6,
        "+" | "-" => 7,
        "<<" | ">>" => 8,
        "<" | ">" | "<=" | ">=" => 9,
        "==" | "!=" => 10,
        "&" => 11,
        "^" => 12,
        "|" => 13,
        "&&" => 14,
        "||" => 15,
        "?" => 16,
        _ => return None,
    };
    Some(20 - prio)
}

impl Parser<'_, '_> {
    fn next(&mut self) -> Option<Token> {
        match self.peeked.take() {
            Some(t) => t,
            None => self.lex.next_item_token(),
        }
    }

    fn peek(&mut self) -> Option<&Token> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex.next_item_token());
        }
        self.peeked.as_ref().and_then(Option::as_ref)
    }

    fn expect_delim(&mut self, c: char) -> PResult<()> {
        match self.next() {
            Some(t) if t.is_delim(c) => Ok(()),
            t => Err(format!("expected '{c}', found {t:?}")),
        }
    }

    fn expect_op(&mut self, o: &str) -> PResult<()> {
        match self.next() {
            Some(t) if t.is_op(o) => Ok(()),
            t => Err(format!("expected '{o}', found {t:?}")),
        }
    }

    fn item(&mut self) -> PResult<String> {
        match self.next() {
            Some(Token::Item(s)) => Ok(s),
            t => Err(format!("expected a name, found {t:?}")),
        }
    }

    /// An expression whose binary operators bind at least as tightly as `min`.
    fn expr(&mut self, min: u8) -> PResult<Arg> {
        let base = self.depth;
        let r = self.expr_inner(min);
        self.depth = base;
        r
    }

    /// Each operator applied deepens the tree by one level, which counts towards the limit.
    fn expr_inner(&mut self, min: u8) -> PResult<Arg> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Token::Op(o)) => o.clone(),
                _ => return Ok(left),
            };
            let Some(power) = binary_power(&op) else {
                return Ok(left);
            };
            if power < min {
                return Ok(left);
            }
            self.next();
            self.depth += 1;
            if self.depth >= MAX_DEPTH {
                return Err("expression nested too deeply".into());
            }
            if op == "?" {
                let then = self.expr(0)?;
                self.expect_op(":")?;
                let otherwise = self.expr(power)?;
                left = Arg::Cond(Box::new(left), Box::new(then), Box::new(otherwise));
            } else {
                let right = self.expr(power + 1)?;
                left = Arg::Binary(op, Box::new(left), Box::new(right));
            }
        }
    }

    /// Kernel print formats nest a few dozen levels at most; deeper input is refused rather
    /// than allowed to exhaust the stack.
    fn unary(&mut self) -> PResult<Arg> {
        if self.depth >= MAX_DEPTH {
            return Err("expression nested too deeply".into());
        }
        self.depth += 1;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> PResult<Arg> {
        if let Some(Token::Op(o)) = self.peek() {
            if matches!(o.as_str(), "-" | "+" | "~" | "!") {
                let o = o.clone();
                self.next();
                let operand = self.unary()?;
                return Ok(Arg::Unary(o, Box::new(operand)));
            }
        }
        let mut arg = self.primary()?;
        while self.peek().is_some_and(|t| t.is_op("[")) {
            self.next();
            let index = self.expr(0)?;
            self.expect_op("]")?;
            arg = Arg::Index(Box::new(arg), Box::new(index));
        }
        Ok(arg)
    }

    fn primary(&mut self) -> PResult<Arg> {
        match self.next() {
            Some(Token::Item(s)) if s == "REC" => {
                self.expect_op("->")?;
                Ok(Arg::Field(self.item()?))
            }
            Some(Token::Item(s)) => {
                if self.peek().is_some_and(|t| t.is_delim('(')) {
                    self.next();
                    return self.function(&s);
                }
                // Atoms can be several items long (`unsigned long`).
                let mut atom = s;
                while let Some(Token::Item(w)) = self.peek() {
                    atom.push(' ');
                    atom.push_str(w);
                    self.next();
                }
                Ok(Arg::Atom(atom))
            }
            Some(Token::DQuote(s)) => Ok(Arg::Atom(s)),
            Some(Token::SQuote(s)) => {
                Ok(Arg::Atom(s.bytes().next().map_or(0, i64::from).to_string()))
            }
            Some(t) if t.is_delim('(') => self.paren(),
            t => Err(format!("unexpected {t:?}")),
        }
    }

    /// After `(`: a parenthesised expression, a cast `(type)operand`, or `(REC)->field`.
    fn paren(&mut self) -> PResult<Arg> {
        if let Some(ty) = self.try_type() {
            let operand_follows = matches!(
                self.peek(),
                Some(Token::Item(_) | Token::DQuote(_) | Token::SQuote(_) | Token::Delim('('))
            );
            if ty == "REC" && self.peek().is_some_and(|t| t.is_op("->")) {
                self.next();
                return Ok(Arg::Field(self.item()?));
            }
            if operand_follows && !ty.starts_with(|c: char| c.is_ascii_digit()) {
                let item = self.unary()?;
                return Ok(Arg::Typecast {
                    ty,
                    item: Box::new(item),
                });
            }
            return Ok(Arg::Atom(ty));
        }
        let inner = self.expr(0)?;
        self.expect_delim(')')?;
        Ok(inner)
    }

    /// Reads `items [*…] )` when that is what follows, returning the type text; otherwise leaves
    /// the input untouched.
    fn try_type(&mut self) -> Option<String> {
        let mut probe = self.lex.clone();
        let mut words: Vec<String> = Vec::new();
        let mut t = match self.peeked.clone() {
            Some(t) => t,
            None => probe.next_item_token(),
        };
        loop {
            match t {
                Some(Token::Item(w)) if !w.is_empty() => {
                    if words.last().is_some_and(|l| l == "*") {
                        return None;
                    }
                    words.push(w);
                }
                Some(Token::Op(o)) if o == "*" && !words.is_empty() => words.push(o),
                Some(Token::Delim(')')) if !words.is_empty() => break,
                _ => return None,
            }
            t = probe.next_item_token();
        }
        // A function call inside parentheses is not a type.
        self.lex = probe;
        self.peeked = None;
        Some(words.join(" "))
    }

    fn function(&mut self, name: &str) -> PResult<Arg> {
        let arg = match name {
            "__print_flags" | "__print_symbolic" => {
                let value = Box::new(self.expr(0)?);
                self.expect_delim(',')?;
                let flags_kind = name == "__print_flags";
                let mut delim = String::new();
                if flags_kind {
                    delim = match self.next() {
                        Some(Token::Item(s) | Token::DQuote(s) | Token::SQuote(s)) => {
                            self.expect_delim(',')?;
                            s
                        }
                        Some(t) if t.is_delim(',') => String::new(),
                        t => {
                            return Err(format!(
                                "expected the delimiter of __print_flags, found {t:?}"
                            ))
                        }
                    };
                }
                let syms = self.flag_syms()?;
                if flags_kind {
                    Arg::Flags {
                        value,
                        delim,
                        flags: syms,
                    }
                } else {
                    Arg::Symbolic {
                        value,
                        symbols: syms,
                    }
                }
            }
            "__print_hex" | "__print_hex_str" => {
                let data = Box::new(self.expr(0)?);
                self.expect_delim(',')?;
                let len = Box::new(self.expr(0)?);
                self.expect_delim(')')?;
                Arg::Hex {
                    data,
                    len,
                    no_spaces: name == "__print_hex_str",
                }
            }
            "__print_array" => {
                let data = Box::new(self.expr(0)?);
                self.expect_delim(',')?;
                let count = Box::new(self.expr(0)?);
                self.expect_delim(',')?;
                let el_size = Box::new(self.expr(0)?);
                self.expect_delim(')')?;
                Arg::IntArray {
                    data,
                    count,
                    el_size,
                }
            }
            "__get_str" | "__get_rel_str" => Arg::Str(self.field_name_arg()?),
            "__get_bitmask" | "__get_rel_bitmask" => Arg::Bitmask(self.field_name_arg()?),
            "__get_cpumask" | "__get_rel_cpumask" => Arg::Cpumask(self.field_name_arg()?),
            "__get_dynamic_array"
            | "__get_rel_dynamic_array"
            | "__get_sockaddr"
            | "__get_sockaddr_rel" => Arg::DynArray(self.field_name_arg()?),
            "__get_dynamic_array_len" | "__get_rel_dynamic_array_len" => {
                Arg::DynArrayLen(self.field_name_arg()?)
            }
            "__builtin_expect" => {
                let cond = self.expr(0)?;
                self.expect_delim(',')?;
                self.expr(0)?;
                self.expect_delim(')')?;
                cond
            }
            "sizeof" => Arg::Atom(self.sizeof()?.to_string()),
            _ => return Err(format!("function {name} not defined")),
        };
        Ok(arg)
    }

    /// `(field)`: the field named by a `__get_*` helper.
    fn field_name_arg(&mut self) -> PResult<String> {
        let name = self.item()?;
        self.expect_delim(')')?;
        Ok(name)
    }

    /// `{ value, "text" }, …)` of `__print_flags` and `__print_symbolic`.
    fn flag_syms(&mut self) -> PResult<Vec<FlagSym>> {
        let mut out = Vec::new();
        loop {
            match self.next() {
                Some(t) if t.is_op("{") => {}
                Some(t) if t.is_delim(')') => return Ok(out),
                t => return Err(format!("expected '{{', found {t:?}")),
            }
            let value = self.expr(0)?;
            self.expect_delim(',')?;
            let text = self.expr(0)?;
            self.expect_op("}")?;
            let value = eval_flag(&arg_eval(&value).ok_or("flag value is not a constant")?);
            let text = arg_eval(&text).ok_or("flag name is not a constant")?;
            out.push(FlagSym { value, text });
            match self.next() {
                Some(t) if t.is_delim(',') => continue,
                Some(t) if t.is_delim(')') => return Ok(out),
                t => return Err(format!("expected ',' or ')' after a flag, found {t:?}")),
            }
        }
    }

    /// `sizeof(…)` as libtraceevent's `process_sizeof` knows it.
    fn sizeof(&mut self) -> PResult<u32> {
        let mut word = self.item()?;
        if word == "unsigned" {
            match self.peek() {
                Some(Token::Item(_)) => word = self.item()?,
                _ => {
                    self.expect_delim(')')?;
                    return Ok(4);
                }
            }
        }
        let size = match word.as_str() {
            "int" => 4,
            "long" => {
                if matches!(self.peek(), Some(Token::Item(w)) if w == "long") {
                    self.next();
                    8
                } else {
                    u32::from(self.event.long_size)
                }
            }
            "__u64" | "u64" | "__s64" | "s64" => 8,
            "__u32" | "u32" | "__s32" | "s32" => 4,
            "__u16" | "u16" | "__s16" | "s16" => 2,
            "__u8" | "u8" | "__8" | "s8" => 1,
            "REC" => {
                self.expect_op("->")?;
                let name = self.item()?;
                match self.event.field(&name) {
                    Some(f) if !f.flags.contains(super::field::FieldFlags::ARRAY) => f.size,
                    _ => return Err(format!("sizeof(REC->{name}) of an unknown or array field")),
                }
            }
            _ => return Err(format!("sizeof({word}) not known")),
        };
        self.expect_delim(')')?;
        Ok(size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_format::Endianness;

    fn event() -> EventFormat {
        EventFormat::parse(
            "t",
            "name: t\nID: 1\nformat:\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
             \tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:long b;\toffset:16;\tsize:8;\tsigned:1;\n",
            Endianness::Little,
            8,
        )
    }

    fn args(text: &str) -> Vec<Arg> {
        parse_print_fmt(text, &event()).unwrap().args
    }

    fn f(n: &str) -> Box<Arg> {
        Box::new(Arg::Field(n.into()))
    }

    fn a(n: &str) -> Box<Arg> {
        Box::new(Arg::Atom(n.into()))
    }

    #[test]
    fn precedence_casts_and_conditionals() {
        assert_eq!(
            args(r#""%d", REC->a + 1 * 2 << 3"#),
            [Arg::Binary(
                "<<".into(),
                Box::new(Arg::Binary(
                    "+".into(),
                    f("a"),
                    Box::new(Arg::Binary("*".into(), a("1"), a("2")))
                )),
                a("3")
            )]
        );
        assert_eq!(
            args(r#""%s", REC->b & 4 ? "+" : """#),
            [Arg::Cond(
                Box::new(Arg::Binary("&".into(), f("b"), a("4"))),
                a("+"),
                a("")
            )]
        );
        assert_eq!(
            args(r#""%lx %d", (unsigned long)(REC->b), ((void *)0)"#),
            [
                Arg::Typecast {
                    ty: "unsigned long".into(),
                    item: f("b")
                },
                Arg::Typecast {
                    ty: "void *".into(),
                    item: a("0")
                },
            ]
        );
        assert_eq!(
            args(r#""%d", ((1UL)) << (10)"#),
            [Arg::Binary("<<".into(), a("1UL"), a("10"))]
        );
        assert_eq!(args(r#""%d", (REC)->a"#), [*f("a")]);
        assert_eq!(args(r#""%d", -REC->a"#), [Arg::Unary("-".into(), f("a"))]);
        assert_eq!(
            args(r#""%d %d", sizeof(long), sizeof(REC->a)"#),
            [*a("8"), *a("4")]
        );
        assert_eq!(
            args(r#""%d", __builtin_expect(!!(REC->a), 0)"#),
            [Arg::Unary(
                "!".into(),
                Box::new(Arg::Unary("!".into(), f("a")))
            )]
        );
    }

    #[test]
    fn print_flags_values_are_folded() {
        let got = args(
            r#""%s", __print_flags(REC->a, "|", {( unsigned long)((1UL) << (3)), "X"}, { 0x2, "Y" }, { 0, ((void *)0) }, { HI_SOFTIRQ, "H" })"#,
        );
        let Arg::Flags { delim, flags, .. } = &got[0] else {
            panic!("{got:?}")
        };
        assert_eq!(delim, "|");
        let flags: Vec<(i64, &str)> = flags.iter().map(|f| (f.value, f.text.as_str())).collect();
        assert_eq!(flags, [(8, "X"), (2, "Y"), (0, "0"), (0, "H")]);
    }

    #[test]
    fn deep_input_is_refused_not_overflowed() {
        let e = event();
        let nested = format!("\"%d\", {}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert_eq!(
            parse_print_fmt(&nested, &e).unwrap_err(),
            "expression nested too deeply"
        );
        let chain = format!("\"%d\", 1{}", " + 1".repeat(100_000));
        assert_eq!(
            parse_print_fmt(&chain, &e).unwrap_err(),
            "expression nested too deeply"
        );
        let unary = format!("\"%d\", {}1", "-".repeat(100_000));
        assert!(parse_print_fmt(&unary, &e).is_err());
        // What kernels write still parses.
        let ok = format!("\"%d\", {}1{}", "(".repeat(60), ")".repeat(60));
        assert!(parse_print_fmt(&ok, &e).is_ok());
        // The deepest accepted input fits a 1 MiB stack (wasm's size) even unoptimized (about
        // 7 KiB per level; 1.2 KiB optimized).
        let deep = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(move || {
                let text = format!("\"%d\", {}1{}", "(".repeat(125), ")".repeat(125));
                parse_print_fmt(&text, &event()).is_ok()
            })
            .unwrap();
        assert!(deep.join().unwrap());
    }

    #[test]
    fn errors_name_the_problem() {
        let e = event();
        assert_eq!(
            parse_print_fmt(r#""%d", foo(REC->a)"#, &e).unwrap_err(),
            "function foo not defined"
        );
        assert!(parse_print_fmt("REC->a", &e).is_err());
        assert!(parse_print_fmt(r#""%d" REC->a"#, &e).is_err());
        assert!(parse_print_fmt(r#""%d", (REC->a"#, &e).is_err());
        assert!(parse_print_fmt(r#""%d", sizeof(struct x)"#, &e).is_err());
        assert_eq!(parse_print_fmt(r#""no args""#, &e).unwrap().args, []);
    }
}
