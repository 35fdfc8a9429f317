//! [`SymbolResolver::add_elf_by_base_name`]: an ELF file added by its base name serves every
//! module path with that base name as [`SymbolResolver::add_elf`] with that path does (the
//! page's dropped files, for recordings without build ids), with the same build-id check, and
//! not `.debug` paths. On the committed `tests/data/diff/base` binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use perfscope_analysis::symbols::resolver::{ModuleRef, SymbolResolver};

fn base() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/diff/base"
    ))
    .unwrap()
}

/// Names of the file-relative addresses 0, 4, 8, … below 64 KiB in `module`.
fn names(r: &mut SymbolResolver, module: ModuleRef<'_>) -> Vec<Option<String>> {
    (0..0x10000u64)
        .step_by(4)
        .map(|a| {
            r.lookup(module, a)
                .map(|s| format!("{}+{:#x}", s.name, s.offset))
        })
        .collect()
}

#[test]
fn a_file_added_by_base_name_serves_each_path_with_that_name() {
    let path = "/somewhere/else/base";
    let module = ModuleRef {
        path,
        build_id: None,
    };
    let mut by_path = SymbolResolver::new();
    by_path.add_elf(Some(path), base());
    let want = names(&mut by_path, module);
    let named = want.iter().flatten().count();
    assert!(named > 100, "only {named} addresses named");
    assert!(want.iter().flatten().any(|n| n.starts_with("main+")));

    let mut by_name = SymbolResolver::new();
    by_name.add_elf_by_base_name("base", base());
    assert!(by_name.can_name(module));
    assert_eq!(names(&mut by_name, module), want);
    // Another path with the same base name too; not one with another base name.
    let other = ModuleRef {
        path: "/opt/base",
        build_id: None,
    };
    assert_eq!(names(&mut by_name, other), want);
    let unrelated = ModuleRef {
        path: "/somewhere/else/base2",
        build_id: None,
    };
    assert!(names(&mut by_name, unrelated).iter().all(Option::is_none));
    // What it cannot name at all, it says so (the profile then makes one frame for it).
    assert!(!by_name.can_name(unrelated));
    let kernel = ModuleRef {
        path: "[kernel.kallsyms]_text",
        build_id: None,
    };
    assert!(!by_name.can_name(kernel));
    let jit = ModuleRef {
        path: "/tmp/perf-123.map",
        build_id: None,
    };
    assert!(by_name.can_name(jit));
    // A recorded build id that is not the file's: refused, as a file found by path is.
    let mismatched = ModuleRef {
        path,
        build_id: Some(&[1, 2, 3, 4]),
    };
    assert!(names(&mut by_path, mismatched).iter().all(Option::is_none));
    assert!(names(&mut by_name, mismatched).iter().all(Option::is_none));
    assert!(!by_name.can_name(mismatched));
    // A `.debug` path is not a module the file serves by name.
    let debug = ModuleRef {
        path: "/somewhere/base.debug",
        build_id: None,
    };
    let mut debug_named = SymbolResolver::new();
    debug_named.add_elf_by_base_name("base.debug", base());
    assert!(names(&mut debug_named, debug).iter().all(Option::is_none));
}

#[test]
fn a_dropped_file_is_held_once_however_it_is_found() {
    use perfscope_analysis::symbols::resolver::ElfBytes;
    use std::sync::Arc;
    let bytes: ElfBytes = Arc::new(base());
    let has_id = perfscope_analysis::symbols::elf::build_id(&bytes).is_some();
    let mut r = SymbolResolver::new();
    r.add_dropped_elf("base", bytes.clone());
    // Found by build id (when it has one), by its name and by base name: a handle on the same
    // bytes each, not a copy (a dropped binary of hundreds of MB was held four times).
    assert_eq!(Arc::strong_count(&bytes), 1 + usize::from(has_id) + 2);
    let module = ModuleRef {
        path: "/anywhere/base",
        build_id: None,
    };
    assert!(names(&mut r, module).iter().any(Option::is_some));
    drop(r);
    assert_eq!(Arc::strong_count(&bytes), 1);
}
