//! Checks that the libz3 of the pinned `z3-solver` wheel is where `.cargo/config.toml` points
//! z3-sys (`.z3/lib`, a symlink ./install.sh makes into .venv) and gives every binary of the
//! package (the kernel, the bench tools, the test binaries in `target/*/deps`) an rpath to it,
//! so nothing needs LD_LIBRARY_PATH: the repository's absolute path, then `$ORIGIN`-relative
//! paths that still hold if the checkout moves.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=.z3");
    println!("cargo:rerun-if-env-changed=Z3_LIBRARY_PATH_OVERRIDE");
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let lib_dir = std::env::var_os("Z3_LIBRARY_PATH_OVERRIDE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".z3/lib"));
    if !lib_dir.join("libz3.so").is_file() {
        eprintln!(
            "error: libz3 of the pinned z3-solver wheel not found at {}.\n\
             Run ./install.sh first: it installs the wheel (requirements-z3.txt) into .venv \
             and links .z3 to it. Z3 is never built from source here.",
            lib_dir.join("libz3.so").display()
        );
        std::process::exit(1);
    }
    // z3-sys takes the library's version from Z3_SYS_Z3_VERSION (.cargo/config.toml): it must
    // be the wheel's, whose soname is libz3.so.<major>.<minor>.
    println!("cargo:rerun-if-env-changed=Z3_SYS_Z3_VERSION");
    if let Ok(version) = std::env::var("Z3_SYS_Z3_VERSION") {
        let major_minor: Vec<&str> = version.split('.').take(2).collect();
        let soname = format!("libz3.so.{}", major_minor.join("."));
        if !lib_dir.join(&soname).is_file() {
            eprintln!(
                "error: Z3_SYS_Z3_VERSION={version} (.cargo/config.toml) but {} has no {soname}: \
                 the z3-solver pin (requirements-z3.txt) and Z3_SYS_Z3_VERSION disagree; \
                 fix one and run ./install.sh.",
                lib_dir.display()
            );
            std::process::exit(1);
        }
    }
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        let mut paths = vec![lib_dir.display().to_string()];
        // target/<profile>/<bin> and target/<profile>/deps/<test>, when `.z3` is at the root.
        paths.push("$ORIGIN/../../.z3/lib".into());
        paths.push("$ORIGIN/../../../.z3/lib".into());
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", paths.join(":"));
    }
}
