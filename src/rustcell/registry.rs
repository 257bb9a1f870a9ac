//! The kernel's end of registration: a Unix socket the evcxr child's
//! `analysis_prelude::register_*` connects to, and the connections the kernel then sends
//! requests on (one line each way, [`analysis_prelude::wire`]).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use analysis_prelude::wire;

use crate::cancel::Cancel;
use crate::dataflow::user::Kind;

/// Why a call into a registered entry failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The user's code panicked; the message.
    #[error("the Rust code panicked: {0}")]
    Panic(String),
    /// The user's code (or the request) gave an error.
    #[error("{0}")]
    Failed(String),
    /// The cell's process is gone (reset, interrupted, crashed).
    #[error("the Rust registration is gone ({0}): run the cell that registers it again")]
    Gone(String),
    #[error("interrupted by the user")]
    Interrupted,
}

/// One connection to a registered domain or analysis in the evcxr child.
pub struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    broken: Option<String>,
}

impl Conn {
    /// Sends one request and waits for its reply, polling `cancel`.
    pub fn call(&mut self, fields: &[String], cancel: &Cancel) -> Result<Vec<String>, CallError> {
        if let Some(why) = &self.broken {
            return Err(CallError::Gone(why.clone()));
        }
        let result = self.exchange(fields, cancel);
        if let Err(CallError::Gone(why)) = &result {
            self.broken = Some(why.clone());
        }
        if let Err(CallError::Interrupted) = &result {
            // The reply may still come: the connection is out of step from now on.
            self.broken = Some("interrupted while it ran".into());
        }
        let mut reply = result?;
        let status = if reply.is_empty() {
            String::new()
        } else {
            reply.remove(0)
        };
        match status.as_str() {
            "ok" => Ok(reply),
            "panic" => Err(CallError::Panic(reply.join(" "))),
            _ => Err(CallError::Failed(reply.join(" "))),
        }
    }

    fn exchange(&mut self, fields: &[String], cancel: &Cancel) -> Result<Vec<String>, CallError> {
        let gone = |e: std::io::Error| CallError::Gone(e.to_string());
        self.writer
            .write_all(wire::line(fields).as_bytes())
            .map_err(gone)?;
        let mut buf = Vec::new();
        loop {
            match self.reader.read_until(b'\n', &mut buf) {
                Ok(0) => return Err(CallError::Gone("the Rust process closed it".into())),
                Ok(_) if buf.ends_with(b"\n") => break,
                Ok(_) => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    if cancel.is_cancelled() {
                        return Err(CallError::Interrupted);
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(gone(e)),
            }
        }
        Ok(wire::fields(&String::from_utf8_lossy(&buf)))
    }
}

/// A registered domain or analysis.
#[derive(Clone)]
pub struct RustEntry {
    pub kind: Kind,
    pub name: String,
    /// The Rust type registered.
    pub type_name: String,
    pub description: String,
    /// Analyses: title, legend, `forward`/`backward`, `may`/`must`.
    pub title: String,
    pub legend: String,
    pub backward: bool,
    pub must: bool,
    pub conn: Arc<Mutex<Conn>>,
}

/// The registrations of a session.
pub struct Registry {
    pub socket: PathBuf,
    entries: Mutex<BTreeMap<(Kind, String), RustEntry>>,
}

impl Registry {
    /// Listens on `socket` (a new path) on a thread of its own.
    pub fn start(socket: &Path) -> std::io::Result<Arc<Registry>> {
        let listener = UnixListener::bind(socket)?;
        let registry = Arc::new(Registry {
            socket: socket.to_path_buf(),
            entries: Mutex::new(BTreeMap::new()),
        });
        let weak = Arc::downgrade(&registry);
        std::thread::Builder::new()
            .name("rust-registry".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    let Some(registry) = weak.upgrade() else {
                        return;
                    };
                    if let Ok(stream) = stream {
                        registry.accept(stream);
                    }
                }
            })?;
        Ok(registry)
    }

    fn accept(&self, stream: UnixStream) {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let Ok(mut writer) = stream.try_clone() else {
            return;
        };
        let mut reader = BufReader::new(stream);
        let mut hello = String::new();
        if reader.read_line(&mut hello).is_err() {
            return;
        }
        let f = wire::fields(&hello);
        let text = |i: usize| f.get(i).cloned().unwrap_or_default();
        let kind = match f.first().map(String::as_str) {
            Some("domain") if f.len() >= 4 => Kind::Domain,
            Some("analysis") if f.len() >= 7 => Kind::Analysis,
            _ => {
                let _ = writer.write_all(wire::line(&["err", "malformed registration"]).as_bytes());
                return;
            }
        };
        // From now on replies are awaited in short slices, so that an interrupt is seen.
        let _ = reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(50)));
        let Ok(mut ack) = writer.try_clone() else {
            return;
        };
        let entry = RustEntry {
            kind,
            name: text(1),
            type_name: text(2),
            description: text(3),
            title: text(3),
            legend: text(4),
            backward: text(5) == "backward",
            must: text(6) == "must",
            conn: Arc::new(Mutex::new(Conn {
                reader,
                writer,
                broken: None,
            })),
        };
        self.lock().insert((kind, entry.name.clone()), entry);
        let _ = ack.write_all(wire::line(&["ok"]).as_bytes());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<(Kind, String), RustEntry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, kind: Kind, name: &str) -> Option<RustEntry> {
        self.lock().get(&(kind, name.to_string())).cloned()
    }

    pub fn list(&self) -> Vec<RustEntry> {
        self.lock().values().cloned().collect()
    }

    pub fn clear(&self) {
        self.lock().clear();
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}
