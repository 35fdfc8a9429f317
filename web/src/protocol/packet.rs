//! [`Packet`]: the shape of every message between the page and the worker. A message kind, a
//! small JSON part (counts, names, options) and named columns of numbers that travel as typed
//! arrays whose buffers are transferred, not copied. Nothing per sample or per node is JSON.
//!
//! The conversion to and from JS values lives in `protocol::js`; this module is plain Rust so
//! that the encodings are tested natively.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// One column of numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// `Uint8Array`.
    U8(Vec<u8>),
    /// `Uint32Array`.
    U32(Vec<u32>),
    /// `BigUint64Array` (timestamps in ns do not fit a double exactly after 104 days of uptime).
    U64(Vec<u64>),
    /// `Float64Array` (weights).
    F64(Vec<f64>),
}

impl Column {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Column::U8(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
        }
    }

    /// Whether the column is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A message: `kind`, the request `id` it answers (0 for none), a JSON part and columns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Packet {
    /// What the message is (`"tree"`, `"progress"`, ...).
    pub kind: String,
    /// The request this answers; 0 when none.
    pub id: u32,
    /// Small structured data.
    pub json: String,
    /// Named columns.
    pub columns: Vec<(String, Column)>,
}

impl Packet {
    /// A packet with a JSON part and no columns.
    pub fn new(kind: &str, id: u32, json: &impl Serialize) -> Packet {
        let json = serde_json::to_string(json).unwrap_or_else(|e| {
            // Not expected: everything sent is plain data without maps keyed by non-strings.
            serde_json::json!({ "encode_error": e.to_string() }).to_string()
        });
        Packet {
            kind: kind.to_string(),
            id,
            json,
            columns: Vec::new(),
        }
    }

    /// Adds a column.
    pub fn with(mut self, name: &str, column: Column) -> Packet {
        self.columns.push((name.to_string(), column));
        self
    }

    /// The JSON part, decoded.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, String> {
        serde_json::from_str(&self.json).map_err(|e| format!("{} message: {e}", self.kind))
    }

    fn take(&mut self, name: &str) -> Result<Column, String> {
        let i = self
            .columns
            .iter()
            .position(|(n, _)| n == name)
            .ok_or_else(|| format!("{} message: no column {name}", self.kind))?;
        Ok(self.columns.swap_remove(i).1)
    }

    /// Removes and returns a `u8` column.
    pub fn take_u8(&mut self, name: &str) -> Result<Vec<u8>, String> {
        match self.take(name)? {
            Column::U8(v) => Ok(v),
            _ => Err(format!("{} message: column {name} is not u8", self.kind)),
        }
    }

    /// Removes and returns a `u32` column.
    pub fn take_u32(&mut self, name: &str) -> Result<Vec<u32>, String> {
        match self.take(name)? {
            Column::U32(v) => Ok(v),
            _ => Err(format!("{} message: column {name} is not u32", self.kind)),
        }
    }

    /// Removes and returns a `u64` column.
    pub fn take_u64(&mut self, name: &str) -> Result<Vec<u64>, String> {
        match self.take(name)? {
            Column::U64(v) => Ok(v),
            _ => Err(format!("{} message: column {name} is not u64", self.kind)),
        }
    }

    /// Removes and returns an `f64` column.
    pub fn take_f64(&mut self, name: &str) -> Result<Vec<f64>, String> {
        match self.take(name)? {
            Column::F64(v) => Ok(v),
            _ => Err(format!("{} message: column {name} is not f64", self.kind)),
        }
    }

    /// Bytes in columns (what the message costs to send, roughly).
    pub fn column_bytes(&self) -> usize {
        self.columns
            .iter()
            .map(|(_, c)| match c {
                Column::U8(v) => v.len(),
                Column::U32(v) => v.len() * 4,
                Column::U64(v) => v.len() * 8,
                Column::F64(v) => v.len() * 8,
            })
            .sum()
    }
}

/// Checks that parallel columns have one length.
pub fn same_len(kind: &str, lens: &[(&str, usize)]) -> Result<usize, String> {
    let Some(&(_, n)) = lens.first() else {
        return Ok(0);
    };
    match lens.iter().find(|(_, l)| *l != n) {
        Some((name, l)) => Err(format!(
            "{kind} message: column {name} has {l} values, expected {n}"
        )),
        None => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_taken_by_name_and_type() {
        let mut p = Packet::new("tree", 3, &serde_json::json!({"total": 5}))
            .with("x", Column::F64(vec![0.0, 1.5]))
            .with("func", Column::U32(vec![7, 8]));
        assert_eq!(p.column_bytes(), 16 + 8);
        assert_eq!(p.take_u32("func").unwrap(), vec![7, 8]);
        assert_eq!(
            p.take_u32("x").unwrap_err(),
            "tree message: column x is not u32"
        );
        assert_eq!(
            p.take_f64("missing").unwrap_err(),
            "tree message: no column missing"
        );
        let v: serde_json::Value = p.json().unwrap();
        assert_eq!(v["total"], 5);
    }

    #[test]
    fn same_len_names_the_odd_column() {
        assert_eq!(same_len("k", &[("a", 2), ("b", 2)]), Ok(2));
        assert_eq!(
            same_len("k", &[("a", 2), ("b", 3)]),
            Err("k message: column b has 3 values, expected 2".into())
        );
    }
}
