//! Typed indices into the profile tables.
//!
//! Every table in this crate is a `Vec` addressed by a `u32` newtype, so a frame index can never
//! be used where a stack index is expected. Indices are created only by the table that owns the
//! entry; [`CapacityError`] is returned when a table would outgrow `u32`.

use core::fmt;

/// A table would hold more than `u32::MAX` entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapacityError {
    /// Which table overflowed (`"frame"`, `"stack"`, ...).
    pub table: &'static str,
}

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} table exceeds {} entries", self.table, u32::MAX)
    }
}

impl std::error::Error for CapacityError {}

macro_rules! define_index {
    ($(#[$doc:meta])* $name:ident, $table:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The index as a `usize`, for addressing the owning `Vec`.
            #[inline]
            pub fn index(self) -> usize {
                // u32 -> usize is lossless on every target this crate supports (32 and 64 bit).
                self.0 as usize
            }

            /// The index of the entry that a `Vec` of length `len` would receive next.
            #[inline]
            pub fn from_len(len: usize) -> Result<Self, CapacityError> {
                u32::try_from(len).map($name).map_err(|_| CapacityError { table: $table })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

define_index!(
    /// An entry of the string table ([`crate::profile::StringTable`]).
    StringIndex, "string"
);
define_index!(
    /// An entry of the module table: one executable, library, kernel or JIT region.
    ModuleIndex, "module"
);
define_index!(
    /// An entry of the function table: a (name, module) pair.
    FuncIndex, "function"
);
define_index!(
    /// An entry of the frame table: one (module, address, function) triple.
    FrameIndex, "frame"
);
define_index!(
    /// A node of the stack prefix tree: (parent stack, frame).
    StackIndex, "stack"
);
define_index!(
    /// An entry of the thread table: one (pid, tid) pair with its name.
    ThreadIndex, "thread"
);
define_index!(
    /// An entry of the event table: one sampled event (attr).
    EventIndex, "event"
);
define_index!(
    /// A row of the sample table.
    SampleIndex, "sample"
);
define_index!(
    /// A node of a call tree (forward or inverted).
    CallNodeIndex, "call node"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_len_checks_u32_range() {
        assert_eq!(FrameIndex::from_len(7), Ok(FrameIndex(7)));
        assert_eq!(FrameIndex(7).index(), 7);
        #[cfg(target_pointer_width = "64")]
        assert_eq!(
            StackIndex::from_len(1usize << 32),
            Err(CapacityError { table: "stack" })
        );
        assert_eq!(
            CapacityError { table: "stack" }.to_string(),
            "the stack table exceeds 4294967295 entries"
        );
    }
}
