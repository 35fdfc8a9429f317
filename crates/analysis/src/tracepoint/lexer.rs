//! The tokenizer of event format text, with the token classes of libtraceevent's
//! `__read_token` (`event-parse.c`): items (runs of letters, digits and `_`), quoted strings
//! (adjacent double-quoted strings concatenated, escapes kept as written), delimiters `(` `)`
//! `,`, operators (`->`, `&&`, `<<=`, … or one punctuation character) and newlines.

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Letters, digits and `_`: names, keywords and numbers (`REC`, `0x10`, `1UL`).
    Item(String),
    /// A double-quoted string without its quotes (backslash escapes left as written).
    DQuote(String),
    /// A single-quoted character constant without its quotes.
    SQuote(String),
    /// `(`, `)` or `,`.
    Delim(char),
    /// An operator or other punctuation.
    Op(String),
    /// A line end.
    Newline,
}

impl Token {
    /// Whether this is the operator `s`.
    pub fn is_op(&self, s: &str) -> bool {
        matches!(self, Token::Op(o) if o == s)
    }

    /// Whether this is the delimiter `c`.
    pub fn is_delim(&self, c: char) -> bool {
        matches!(self, Token::Delim(d) if *d == c)
    }
}

/// A cursor over format text producing [`Token`]s.
#[derive(Debug, Clone)]
pub struct Lexer<'a> {
    text: &'a [u8],
    pos: usize,
}

fn is_item(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text`.
    pub fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            text: text.as_bytes(),
            pos: 0,
        }
    }

    fn peek_byte(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek_byte()?;
        self.pos += 1;
        Some(c)
    }

    fn slice(&self, start: usize, end: usize) -> String {
        String::from_utf8_lossy(self.text.get(start..end).unwrap_or_default()).into_owned()
    }

    /// The next token, spaces skipped; newlines are tokens. `None` at the end of the text or at
    /// a character that is neither printable nor a space (libtraceevent's `TEP_EVENT_NONE`).
    pub fn next_token(&mut self) -> Option<Token> {
        loop {
            let c = self.peek_byte()?;
            if c == b'\n' {
                self.pos += 1;
                return Some(Token::Newline);
            }
            if c.is_ascii_whitespace() {
                self.pos += 1;
                continue;
            }
            break;
        }
        let start = self.pos;
        let c = self.bump()?;
        if is_item(c) {
            while self.peek_byte().is_some_and(is_item) {
                self.pos += 1;
            }
            return Some(Token::Item(self.slice(start, self.pos)));
        }
        match c {
            b'"' | b'\'' => self.quoted(c),
            b'(' | b')' | b',' => Some(Token::Delim(char::from(c))),
            _ if !c.is_ascii_graphic() => None,
            _ => Some(Token::Op(self.op(c))),
        }
    }

    /// The next token that is not a newline.
    pub fn next_item_token(&mut self) -> Option<Token> {
        loop {
            match self.next_token()? {
                Token::Newline => continue,
                t => return Some(t),
            }
        }
    }

    fn op(&mut self, c: u8) -> String {
        let mut s = String::from(char::from(c));
        let next = self.peek_byte();
        match c {
            b'-' if next == Some(b'>') => {
                self.pos += 1;
                s.push('>');
                return s;
            }
            b'-' | b'+' | b'|' | b'&' | b'>' | b'<' => {
                if next == Some(c) {
                    self.pos += 1;
                    s.push(char::from(c));
                    if !matches!(c, b'>' | b'<') {
                        return s;
                    }
                }
            }
            b'!' | b'=' => {}
            _ => return s,
        }
        if self.peek_byte() == Some(b'=') {
            self.pos += 1;
            s.push('=');
        }
        s
    }

    /// A quoted string; for double quotes, following double-quoted strings (after spaces) are
    /// appended, as the C compiler would.
    fn quoted(&mut self, quote: u8) -> Option<Token> {
        let mut out = String::new();
        loop {
            let start = self.pos;
            let mut last = 0u8;
            loop {
                let c = self.bump()?;
                if c == quote && last != b'\\' {
                    break;
                }
                if !(c.is_ascii_graphic() || c == b' ' || c == b'\n' || c == b'\t' || c >= 0x80) {
                    return None;
                }
                // `\\` cancels itself so that `"\\"` ends the string.
                last = if c == b'\\' && last == b'\\' { 0 } else { c };
            }
            out.push_str(&self.slice(start, self.pos - 1));
            if quote == b'\'' {
                return Some(Token::SQuote(out));
            }
            let save = self.pos;
            while self.peek_byte().is_some_and(|c| c.is_ascii_whitespace()) {
                self.pos += 1;
            }
            if self.peek_byte() == Some(b'"') {
                self.pos += 1;
                continue;
            }
            self.pos = save;
            return Some(Token::DQuote(out));
        }
    }
}

/// C's `strtoull(s, NULL, 0)`: leading spaces, an optional sign, then `0x` hex, `0` octal or
/// decimal digits, stopping at the first other character (`1UL` is 1). Overflow saturates.
pub fn strtoull(s: &str) -> u64 {
    let s = s.trim_start();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or("")),
        Some(b'+') => (false, s.get(1..).unwrap_or("")),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.as_bytes().first().is_some_and(|c| c.is_ascii_hexdigit()) {
            (16, h)
        } else {
            (10, "0")
        }
    } else if s.starts_with('0') {
        (8, s)
    } else {
        (10, s)
    };
    let mut v: u64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        v = match v
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => v,
            None => return u64::MAX,
        };
    }
    if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &str) -> Vec<Token> {
        let mut l = Lexer::new(s);
        std::iter::from_fn(|| l.next_token()).collect()
    }

    fn op(s: &str) -> Token {
        Token::Op(s.into())
    }

    #[test]
    fn tokens_like_libtraceevent() {
        assert_eq!(
            all("REC->prev_state & 0x1 ? \"+\" : \"\"\n"),
            [
                Token::Item("REC".into()),
                op("->"),
                Token::Item("prev_state".into()),
                op("&"),
                Token::Item("0x1".into()),
                op("?"),
                Token::DQuote("+".into()),
                op(":"),
                Token::DQuote(String::new()),
                Token::Newline,
            ]
        );
        assert_eq!(
            all("a<<=b>>c&&d||e!=f==g<=h - -x"),
            [
                Token::Item("a".into()),
                op("<<="),
                Token::Item("b".into()),
                op(">>"),
                Token::Item("c".into()),
                op("&&"),
                Token::Item("d".into()),
                op("||"),
                Token::Item("e".into()),
                op("!="),
                Token::Item("f".into()),
                op("=="),
                Token::Item("g".into()),
                op("<="),
                Token::Item("h".into()),
                op("-"),
                op("-"),
                Token::Item("x".into()),
            ]
        );
    }

    #[test]
    fn strings_concatenate_and_keep_escapes() {
        assert_eq!(
            all(r#""a=%d\n" "b\"c" 'x', ("\\")"#),
            [
                Token::DQuote(r#"a=%d\nb\"c"#.into()),
                Token::SQuote("x".into()),
                Token::Delim(','),
                Token::Delim('('),
                Token::DQuote(r"\\".into()),
                Token::Delim(')'),
            ]
        );
        // An unterminated string ends the tokens.
        assert_eq!(all("\"abc"), []);
    }

    #[test]
    fn strtoull_like_c() {
        assert_eq!(strtoull("1UL"), 1);
        assert_eq!(strtoull("0x00000080"), 0x80);
        assert_eq!(strtoull("010"), 8);
        assert_eq!(strtoull("-1"), u64::MAX);
        assert_eq!(strtoull("GFP_KERNEL"), 0);
        assert_eq!(strtoull("0x"), 0);
        assert_eq!(strtoull("99999999999999999999999"), u64::MAX);
    }
}
