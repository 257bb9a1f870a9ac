//! `analysis-kernel install`: writes the kernelspec (kernel.json and logos).

use std::path::{Path, PathBuf};

use serde_json::json;

/// Where to install the kernelspec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The user's Jupyter data directory.
    User,
    /// The active virtual environment or conda prefix.
    SysPrefix,
    /// `<prefix>/share/jupyter/kernels`.
    Prefix(PathBuf),
}

/// The kernelspec's name unless `--name` says otherwise.
pub const DEFAULT_NAME: &str = "analysis";
pub const DISPLAY_NAME: &str = "Program Analysis (Python)";

const LOGO_SVG: &[u8] = include_bytes!("../../kernel/logo-svg.svg");
const LOGO_32: &[u8] = include_bytes!("../../kernel/logo-32x32.png");
const LOGO_64: &[u8] = include_bytes!("../../kernel/logo-64x64.png");

/// The directory that holds the `kernels/` folder for `location`.
pub fn kernels_dir(location: &Location) -> Result<PathBuf, String> {
    match location {
        Location::Prefix(p) => Ok(p.join("share/jupyter/kernels")),
        Location::SysPrefix => std::env::var_os("VIRTUAL_ENV")
            .or_else(|| std::env::var_os("CONDA_PREFIX"))
            .map(|p| PathBuf::from(p).join("share/jupyter/kernels"))
            .ok_or_else(|| "--sys-prefix needs an active virtual environment (VIRTUAL_ENV) or conda prefix; use --prefix PATH".to_string()),
        Location::User => {
            if let Some(dir) = std::env::var_os("JUPYTER_DATA_DIR") {
                return Ok(PathBuf::from(dir).join("kernels"));
            }
            let home = std::env::var_os("HOME").ok_or("HOME is not set; use --prefix PATH")?;
            let home = PathBuf::from(home);
            Ok(if cfg!(target_os = "macos") {
                home.join("Library/Jupyter/kernels")
            } else {
                std::env::var_os("XDG_DATA_HOME")
                    .map_or_else(|| home.join(".local/share"), PathBuf::from)
                    .join("jupyter/kernels")
            })
        }
    }
}

/// The contents of kernel.json for the kernel binary at `executable`.
pub fn kernel_json(executable: &Path) -> serde_json::Value {
    json!({
        "argv": [executable.to_string_lossy(), "--connection-file", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "python",
        "interrupt_mode": "message",
        "metadata": {"debugger": false},
    })
}

/// Writes the kernelspec; returns its directory.
pub fn install(location: &Location, name: &str, executable: &Path) -> Result<PathBuf, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    {
        return Err(format!(
            "invalid kernel name {name:?}: use letters, digits, '.', '_' or '-'"
        ));
    }
    let dir = kernels_dir(location)?.join(name);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let spec = serde_json::to_string_pretty(&kernel_json(executable)).unwrap_or_default();
    for (file, bytes) in [
        ("kernel.json", spec.as_bytes()),
        ("logo-svg.svg", LOGO_SVG),
        ("logo-32x32.png", LOGO_32),
        ("logo-64x64.png", LOGO_64),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_kernelspec_with_absolute_argv() {
        let tmp = std::env::temp_dir().join(format!("ak-install-{}", std::process::id()));
        let dir = install(
            &Location::Prefix(tmp.clone()),
            "analysis",
            Path::new("/opt/bin/analysis-kernel"),
        )
        .unwrap();
        assert_eq!(dir, tmp.join("share/jupyter/kernels/analysis"));
        let spec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("kernel.json")).unwrap())
                .unwrap();
        assert_eq!(spec["argv"][0], "/opt/bin/analysis-kernel");
        assert_eq!(spec["interrupt_mode"], "message");
        assert_eq!(spec["display_name"], DISPLAY_NAME);
        assert!(dir.join("logo-64x64.png").exists());
        assert!(install(&Location::Prefix(tmp.clone()), "bad name", Path::new("x")).is_err());
        let _ = std::fs::remove_dir_all(tmp);
    }
}
