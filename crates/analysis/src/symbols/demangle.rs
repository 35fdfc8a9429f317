//! Demangling as perf and inferno print names: Rust (legacy `_ZN…17h<hash>E` and v0 `_R…`)
//! without the hash, C++ (Itanium `_Z…`) without parameters, return types or clone suffixes
//! (perf 6.1 demangles with `DMGL_NO_OPTS`: `llvm::FPPassManager::runOnFunction`). Anything
//! else is returned unchanged.

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
/// assert_eq!(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi"), "std::vector<int, std::allocator<int> >::push_back");
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
        // perf (without libbfd) demangles with DMGL_NO_OPTS: no parameters, and the GCC
        // `.cold` / `.isra.0` style clone suffixes are left out with them.
        let base = name.split_once('.').map_or(name, |(b, _)| b);
        if let Ok(sym) = cpp_demangle::Symbol::new(base.as_bytes()) {
            let options = cpp_demangle::DemangleOptions::new()
                .no_params()
                .no_return_type();
            if let Ok(s) = sym.demangle_with_options(&options) {
                return (Cow::Owned(libiberty_literals(&s)), Mangling::Cpp);
            }
        }
    }
    (Cow::Borrowed(name), Mangling::None)
}

/// Integer template arguments as libiberty's demangler (perf's) prints them: `4u` where
/// cpp_demangle prints `(unsigned int)4`, `4` for `(int)4`, and the `l`, `ul`, `ll`, `ull`
/// suffixes for the long types.
fn libiberty_literals(s: &str) -> String {
    const TYPES: [(&str, &str); 6] = [
        ("(unsigned long long)", "ull"),
        ("(unsigned long)", "ul"),
        ("(unsigned int)", "u"),
        ("(long long)", "ll"),
        ("(long)", "l"),
        ("(int)", ""),
    ];
    if !s.contains(")") {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    'outer: while !rest.is_empty() {
        for (ty, suffix) in TYPES {
            if let Some(after) = rest.strip_prefix(ty) {
                let digits = after.strip_prefix('-').unwrap_or(after);
                let n = digits.bytes().take_while(u8::is_ascii_digit).count();
                if n > 0 {
                    let len = after.len() - digits.len() + n;
                    out.push_str(after.get(..len).unwrap_or(""));
                    out.push_str(suffix);
                    rest = after.get(len..).unwrap_or("");
                    continue 'outer;
                }
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
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
        assert_eq!(
            demangle("_RNvNtCs1234_7mycrate4main3run"),
            "mycrate::main::run"
        );
    }

    #[test]
    fn cpp_without_params_like_perf() {
        assert_eq!(demangle("_Z3fooi"), "foo");
        assert_eq!(
            demangle_with_kind("_ZN2ns5Class6methodEv"),
            (Cow::Borrowed("ns::Class::method"), Mangling::Cpp)
        );
        // From lost.data's libLLVM frames, as perf 6.1 printed them.
        assert_eq!(
            demangle("_ZN12_GLOBAL__N_111DAGCombiner14visitUADDOLikeEN4llvm7SDValueES2_PNS1_6SDNodeE.warm"),
            "(anonymous namespace)::DAGCombiner::visitUADDOLike"
        );
        // Template literals as libiberty prints them (lost.data: `SmallVector<..., 4u>`).
        assert_eq!(demangle("_Z1fILj4EEvv"), "f<4u>");
        assert_eq!(demangle("_Z1fILin3EEvv"), "f<-3>");
        assert_eq!(demangle("_Z1fILm7EEvv"), "f<7ul>");
    }

    #[test]
    fn plain_names_unchanged() {
        assert_eq!(
            demangle_with_kind("update_active.constprop.0"),
            (Cow::Borrowed("update_active.constprop.0"), Mangling::None)
        );
        assert_eq!(demangle("_Zbogus"), "_Zbogus");
        assert_eq!(demangle("py::f:<frozen x>"), "py::f:<frozen x>");
    }
}
