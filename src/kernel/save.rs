//! Writing `--save` files: inside the kernel's working directory (the notebook's folder) only,
//! never through a symbolic link that leads out of it nor onto a final symbolic link, and
//! never over an existing file unless `--force`. Failures are Python's `OSError` family.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::notebook::{CellError, SaveFile};

/// Writes `file` under the working directory; returns the absolute path written.
pub fn write(file: &SaveFile) -> Result<PathBuf, CellError> {
    let base = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .map_err(|e| os_error(&e, &file.path.to_string()))?;
    write_in(&base, file)
}

/// Writes `file` under `base`, a canonical directory.
fn write_in(base: &Path, file: &SaveFile) -> Result<PathBuf, CellError> {
    let shown = file.path.to_string();
    let folder = file
        .path
        .folders()
        .iter()
        .fold(base.to_path_buf(), |p, f| p.join(f))
        .canonicalize()
        .map_err(|e| os_error(&e, &shown))?;
    // A symbolic link among the folders may point anywhere: the resolved folder must still be
    // inside `base`. (A link swapped in after this check is the user racing themselves.)
    if !folder.starts_with(base) {
        return Err(refused(
            &shown,
            &format!("it leads out of the notebook's folder {}", base.display()),
        ));
    }
    let target = folder.join(file.path.file_name());
    let is_link = target
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    if is_link {
        return Err(refused(
            &shown,
            "it is a symbolic link, and --save does not follow links",
        ));
    }
    let mut options = OpenOptions::new();
    options
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    if file.overwrite {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let mut out = options.open(&target).map_err(|e| {
        let error = os_error(&e, &shown);
        if e.kind() == io::ErrorKind::AlreadyExists {
            hint(error, "add --force to replace it")
        } else {
            error
        }
    })?;
    out.write_all(&file.contents)
        .and_then(|()| out.flush())
        .map_err(|e| os_error(&e, &shown))?;
    Ok(target)
}

/// An I/O error as Python names it: `FileExistsError: [Errno 17] File exists: 'g.svg'`.
fn os_error(e: &io::Error, path: &str) -> CellError {
    let Some(errno) = e.raw_os_error() else {
        return CellError::new("OSError", format!("{e}: {path:?}"));
    };
    let ename = match errno {
        libc::EEXIST => "FileExistsError",
        libc::EACCES | libc::EPERM => "PermissionError",
        libc::ENOENT => "FileNotFoundError",
        libc::EISDIR => "IsADirectoryError",
        libc::ENOTDIR => "NotADirectoryError",
        _ => "OSError",
    };
    let text = e.to_string();
    let text = text
        .strip_suffix(&format!(" (os error {errno})"))
        .unwrap_or(&text);
    CellError::new(ename, format!("[Errno {errno}] {text}: {}", quoted(path)))
}

/// A write refused by the kernel itself, as `PermissionError`.
fn refused(path: &str, why: &str) -> CellError {
    CellError::new(
        "PermissionError",
        format!(
            "[Errno {}] Permission denied: {} ({why})",
            libc::EACCES,
            quoted(path)
        ),
    )
}

fn hint(e: CellError, hint: &str) -> CellError {
    CellError::new(e.ename, format!("{} ({hint})", e.evalue))
}

/// The path as Python's `repr` quotes it (single quotes, for the paths `--save` accepts).
fn quoted(path: &str) -> String {
    format!("'{}'", path.replace('\\', "\\\\").replace('\'', "\\'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::SavePath;
    use std::os::unix::fs::symlink;

    /// A fresh directory for one test, and one outside it.
    fn dirs(name: &str) -> (PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!(
            "analysis-kernel-save-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        let (inside, outside) = (root.join("notebook"), root.join("outside"));
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        (
            inside.canonicalize().unwrap(),
            outside.canonicalize().unwrap(),
        )
    }

    fn file(path: &str, text: &str, overwrite: bool) -> SaveFile {
        SaveFile {
            path: SavePath::parse(path).unwrap(),
            contents: text.as_bytes().to_vec(),
            overwrite,
        }
    }

    #[test]
    fn writes_new_files_and_overwrites_only_when_forced() {
        let (base, _) = dirs("new");
        let written = write_in(&base, &file("g.txt", "one", false)).unwrap();
        assert_eq!(written, base.join("g.txt"));
        let e = write_in(&base, &file("g.txt", "two", false)).unwrap_err();
        assert_eq!(e.ename, "FileExistsError");
        assert_eq!(
            e.evalue,
            "[Errno 17] File exists: 'g.txt' (add --force to replace it)"
        );
        write_in(&base, &file("g.txt", "three", true)).unwrap();
        assert_eq!(
            std::fs::read_to_string(base.join("g.txt")).unwrap(),
            "three"
        );
        let e = write_in(&base, &file("missing/g.txt", "x", false)).unwrap_err();
        assert_eq!(e.ename, "FileNotFoundError", "{}", e.evalue);
        std::fs::create_dir(base.join("d.txt")).unwrap();
        let e = write_in(&base, &file("d.txt", "x", true)).unwrap_err();
        assert_eq!(e.ename, "IsADirectoryError", "{}", e.evalue);
    }

    #[test]
    fn symbolic_links_never_lead_out() {
        let (base, outside) = dirs("links");
        symlink(&outside, base.join("out")).unwrap();
        let e = write_in(&base, &file("out/x.txt", "x", false)).unwrap_err();
        assert_eq!(e.ename, "PermissionError");
        assert!(e.evalue.contains("leads out"), "{}", e.evalue);
        std::fs::write(outside.join("secret.txt"), "keep").unwrap();
        symlink(outside.join("secret.txt"), base.join("s.txt")).unwrap();
        for overwrite in [false, true] {
            let e = write_in(&base, &file("s.txt", "x", overwrite)).unwrap_err();
            assert_eq!(e.ename, "PermissionError");
            assert!(e.evalue.contains("symbolic link"), "{}", e.evalue);
        }
        assert_eq!(
            std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
            "keep"
        );
        assert!(!outside.join("x.txt").exists());
        // A link that stays inside the folder is followed.
        std::fs::create_dir(base.join("figs")).unwrap();
        symlink(base.join("figs"), base.join("f")).unwrap();
        write_in(&base, &file("f/x.txt", "x", false)).unwrap();
        assert!(base.join("figs/x.txt").exists());
    }
}
