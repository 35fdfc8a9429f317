//! Demangling as perf and inferno print names: Rust (legacy `_ZN…17h<hash>E` and v0 `_R…`)
//! without the hash, C++ (Itanium `_Z…`) with parameters. Anything else is returned unchanged.

use std::borrow::Cow;

/// The language a mangled name was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mangling {
    /// Rust, legacy or v0.
    Rust,
    /// C++ Itanium ABI.
    Cpp,
    /// Not mangled, or not recognised.
    None,
}

/// Demangles `name`, returning it unchanged when it is not a Rust or C++ mangled name (or does
/// not demangle).
///
/// ```
/// use perfscope_analysis::symbols::demangle::demangle;
/// assert_eq!(demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"), "core::ptr::drop_in_place");
/// assert_eq!(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi"), "std::vector<int, std::allocator<int> >::push_back(int const&)");
/// assert_eq!(demangle("leaf"), "leaf");
/// ```
pub fn demangle(name: &str) -> Cow<'_, str> {
    demangle_with_kind(name).0
}

/// Like [`demangle`], also telling which mangling was recognised.
pub fn demangle_with_kind(name: &str) -> (Cow<'_, str>, Mangling) {
    if let Ok(d) = rustc_demangle::try_demangle(name) {
        // `{:#}` leaves out the hash, as inferno and perf (with rustc-demangle) show it.
        return (Cow::Owned(format!("{d:#}")), Mangling::Rust);
    }
    if name.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(name.as_bytes()) {
            if let Ok(s) = sym.demangle() {
                return (Cow::Owned(s), Mangling::Cpp);
            }
        }
    }
    (Cow::Borrowed(name), Mangling::None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_legacy_and_v0_without_hash() {
        // legacy, with an LLVM suffix
        assert_eq!(
            demangle_with_kind("_ZN3foo3bar17h05af221e174051e9E.llvm.1234"),
            (Cow::Borrowed("foo::bar"), Mangling::Rust)
        );
        // v0 (from the rustc-demangle test suite): crate disambiguator hidden by `{:#}`
        assert_eq!(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
        assert_eq!(demangle("_RNvNtCs1234_7mycrate4main3run"), "mycrate::main::run");
    }

    #[test]
    fn cpp_with_params() {
        assert_eq!(demangle("_Z3fooi"), "foo(int)");
        assert_eq!(
            demangle_with_kind("_ZN2ns5Class6methodEv"),
            (Cow::Borrowed("ns::Class::method()"), Mangling::Cpp)
        );
    }

    #[test]
    fn plain_names_unchanged() {
        assert_eq!(demangle_with_kind("update_active.constprop.0"), (Cow::Borrowed("update_active.constprop.0"), Mangling::None));
        assert_eq!(demangle("_Zbogus"), "_Zbogus");
        assert_eq!(demangle("py::f:<frozen x>"), "py::f:<frozen x>");
    }
}
