//! Text inputs for people who only have text: `perf script` output ([`perf_script`]) and
//! folded stacks ([`folded`]), imported into the same [`Profile`] a perf.data gives, so every
//! view and export works on them.
//!
//! [`detect`] tells the two apart (and from binary files) by their first kilobytes;
//! [`import_text`] reads either.
//!
//! ```
//! use perfscope_analysis::import::{detect, import_text, TextKind};
//! let text = b"main;work;leaf 3\nmain;idle 1\n";
//! assert_eq!(detect(text), Some(TextKind::Folded));
//! let imported = import_text(text).unwrap();
//! assert_eq!(imported.profile.samples.len(), 4);
//! ```

pub mod folded;
pub mod perf_script;

use core::fmt;

use crate::ids::CapacityError;
use crate::profile::Profile;

/// Which text format an input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextKind {
    /// `perf script` output (default fields, with or without callchains).
    PerfScript,
    /// Folded stacks: `comm;root;…;leaf count` lines.
    Folded,
}

impl TextKind {
    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            TextKind::PerfScript => "perf script text",
            TextKind::Folded => "folded stacks",
        }
    }
}

/// A line of the text that could not be read, or a table that overflowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    /// 1-based line number (0: not tied to a line).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl ImportError {
    fn new(line: usize, message: impl Into<String>) -> Self {
        ImportError {
            line,
            message: message.into(),
        }
    }

    fn capacity(line: usize, e: CapacityError) -> Self {
        ImportError::new(line, e.to_string())
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for ImportError {}

/// An imported text.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The profile.
    pub profile: Profile,
    /// What the text was.
    pub kind: TextKind,
    /// Lines that were neither a sample, a frame nor something known to skip (`PERF_RECORD_*`
    /// events, comments): how many, and the first one's number.
    pub skipped_lines: usize,
    /// The 1-based number of the first skipped line.
    pub first_skipped: Option<usize>,
}

/// How many bytes [`detect`] looks at.
pub const DETECT_BYTES: usize = 64 * 1024;

/// Recognizes `perf script` text and folded stacks from the first [`DETECT_BYTES`] bytes (the
/// input's first bytes are enough: a few hundred do). `None` for anything else (perf.data,
/// share files, other text).
pub fn detect(bytes: &[u8]) -> Option<TextKind> {
    let head = bytes.get(..DETECT_BYTES.min(bytes.len()))?;
    if head.is_empty() || head.contains(&0) {
        return None;
    }
    // A cut in the middle of a UTF-8 sequence or a line: look at whole lines only.
    let text = String::from_utf8_lossy(head);
    let mut lines: Vec<&str> = text.lines().collect();
    // The bytes may be a prefix of the input (a 512-byte head): a last line without its newline
    // may be cut.
    if !head.ends_with(b"\n") && lines.len() > 1 {
        lines.pop();
    }
    let mut script = 0usize;
    let mut folded_lines = 0usize;
    let mut other = 0usize;
    for line in lines
        .iter()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(200)
    {
        let frame = line.starts_with('\t') && perf_script::parse_frame(line).is_some();
        if line.contains("PERF_RECORD_") || frame || perf_script::parse_header(line).is_some() {
            script += 1;
        } else if folded::parse_line(line).is_ok() {
            folded_lines += 1;
        } else {
            other += 1;
        }
    }
    if script > 0 && script >= folded_lines {
        Some(TextKind::PerfScript)
    } else if folded_lines > 0 && other == 0 && script == 0 {
        Some(TextKind::Folded)
    } else {
        None
    }
}

/// Imports `bytes` as whatever [`detect`] says they are.
pub fn import_text(bytes: &[u8]) -> Result<Imported, ImportError> {
    match detect(bytes) {
        Some(TextKind::PerfScript) => perf_script::import(bytes),
        Some(TextKind::Folded) => folded::import(bytes, &folded::FoldedImportOptions::default()),
        None => Err(ImportError::new(
            0,
            "neither perf script text nor folded stacks",
        )),
    }
}

/// Splits text into (1-based line number, line) without the line ends (`\n` or `\r\n`).
fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
}

#[cfg(test)]
mod tests;
