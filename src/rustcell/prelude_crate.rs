//! The `analysis-prelude` crate that `%%rust` cells depend on, carried inside the kernel
//! binary: its sources are compiled in and written once to a directory named by their hash,
//! so Rust cells work wherever the binary is, without the checkout it was built from.

use std::hash::Hasher;
use std::path::PathBuf;

/// Each file of the crate: its path inside the crate and its text.
const FILES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../../crates/analysis-prelude/Cargo.toml"),
    ),
    (
        "src/analysis.rs",
        include_str!("../../crates/analysis-prelude/src/analysis.rs"),
    ),
    (
        "src/domain.rs",
        include_str!("../../crates/analysis-prelude/src/domain.rs"),
    ),
    (
        "src/lib.rs",
        include_str!("../../crates/analysis-prelude/src/lib.rs"),
    ),
    (
        "src/program.rs",
        include_str!("../../crates/analysis-prelude/src/program.rs"),
    ),
    (
        "src/render.rs",
        include_str!("../../crates/analysis-prelude/src/render.rs"),
    ),
    (
        "src/serve.rs",
        include_str!("../../crates/analysis-prelude/src/serve.rs"),
    ),
    (
        "src/wire.rs",
        include_str!("../../crates/analysis-prelude/src/wire.rs"),
    ),
];

/// The file marking a directory as completely written.
const COMPLETE: &str = ".complete";

/// A directory holding the crate: `$TMPDIR/analysis-kernel-prelude-<hash of the sources>`,
/// written on first use (to a private directory, then renamed, so that two kernels starting at
/// once never see half a crate).
pub fn dir() -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("analysis-kernel-prelude-{:016x}", digest()));
    if dir.join(COMPLETE).exists() {
        return Ok(dir);
    }
    let partial = dir.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    for (path, text) in FILES {
        let file = partial.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, text)?;
    }
    std::fs::write(partial.join(COMPLETE), "")?;
    if std::fs::rename(&partial, &dir).is_err() {
        // Another kernel finished first: its copy has the same sources.
        let _ = std::fs::remove_dir_all(&partial);
        if !dir.join(COMPLETE).exists() {
            return Err(std::io::Error::other(format!(
                "could not write the Rust prelude to {}",
                dir.display()
            )));
        }
    }
    Ok(dir)
}

/// FNV-1a of every path and text in [`FILES`] (stable across builds and runs).
fn digest() -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for (path, text) in FILES {
        h.write(path.as_bytes());
        h.write(&[0]);
        h.write(text.as_bytes());
        h.write(&[0]);
    }
    h.finish()
}

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of the crate on disk is carried, so a new prelude module cannot be left out.
    #[test]
    fn every_file_of_the_crate_is_carried_and_written() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("crates/analysis-prelude");
        let mut on_disk: Vec<String> = std::fs::read_dir(root.join("src"))
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        on_disk.push("Cargo.toml".into());
        on_disk.sort();
        let carried: Vec<&str> = FILES.iter().map(|(p, _)| *p).collect();
        assert_eq!(on_disk, carried);
        let dir = dir().unwrap();
        for (path, text) in FILES {
            assert_eq!(std::fs::read_to_string(dir.join(path)).unwrap(), *text);
        }
        assert_eq!(super::dir().unwrap(), dir);
    }
}
