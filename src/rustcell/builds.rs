//! Stopping the compilation of a Rust cell: evcxr runs `cargo` (which runs `rustc` through
//! this binary as a wrapper) as a child of the kernel and waits for it, so an interrupt kills
//! those processes and evcxr's eval returns at once. Linux only (`/proc`), as the kernel is.

use std::collections::BTreeMap;

/// The names of build processes (`comm`) whose trees an interrupt kills.
const BUILD_TOOLS: &[&str] = &["cargo", "rustc"];

/// One process: its parent and its command name.
struct Proc {
    parent: u32,
    name: String,
}

/// Kills every build process started by this process, with all their descendants; returns how
/// many processes were killed (0: no build was running).
pub fn kill_running() -> usize {
    let procs = processes();
    let me = std::process::id();
    let mut children: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (pid, p) in &procs {
        children.entry(p.parent).or_default().push(*pid);
    }
    let roots: Vec<u32> = children
        .get(&me)
        .into_iter()
        .flatten()
        .copied()
        .filter(|pid| {
            procs
                .get(pid)
                .is_some_and(|p| BUILD_TOOLS.contains(&p.name.as_str()))
        })
        .collect();
    let mut doomed = Vec::new();
    let mut stack = roots;
    while let Some(pid) = stack.pop() {
        doomed.push(pid);
        stack.extend(children.get(&pid).into_iter().flatten().copied());
    }
    for pid in &doomed {
        // SAFETY: `kill` has no memory effects; a pid that exited meanwhile gives ESRCH.
        unsafe {
            libc::kill(*pid as libc::pid_t, libc::SIGKILL);
        }
    }
    doomed.len()
}

/// Every process of the machine, from `/proc/PID/stat`.
fn processes() -> BTreeMap<u32, Proc> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Some(p) = std::fs::read_to_string(e.path().join("stat"))
            .ok()
            .and_then(|s| parse_stat(&s))
        {
            out.insert(pid, p);
        }
    }
    out
}

/// `pid (comm) state ppid …`: the command name may hold spaces and parentheses.
fn parse_stat(stat: &str) -> Option<Proc> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    let mut rest = stat.get(close + 1..)?.split_whitespace();
    let _state = rest.next()?;
    let parent = rest.next()?.parse().ok()?;
    Some(Proc { parent, name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_with_odd_command_names() {
        let p = parse_stat("4242 (rustc) S 17 4242 4242 0 -1").unwrap();
        assert_eq!((p.parent, p.name.as_str()), (17, "rustc"));
        let p = parse_stat("7 (a (b) c) R 1 7 7").unwrap();
        assert_eq!((p.parent, p.name.as_str()), (1, "a (b) c"));
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn kills_a_running_cargo_and_its_children_only() {
        // A process named `cargo` (a copy of `sleep`) with a child, beside one that is not a
        // build tool.
        let dir = std::env::temp_dir().join(format!("ak-builds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cargo = dir.join("cargo");
        std::fs::write(&cargo, "#!/bin/sh\nsleep 30 &\nwait\n").unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&cargo)
            .status()
            .unwrap();
        let mut build = std::process::Command::new(&cargo).spawn().unwrap();
        let mut other = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(kill_running() >= 2);
        assert!(build.wait().is_ok());
        assert!(
            other.try_wait().unwrap().is_none(),
            "a non-build child was killed"
        );
        let _ = other.kill();
        let _ = other.wait();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
