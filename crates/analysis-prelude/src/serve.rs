//! Registration: a domain or analysis defined in a cell becomes a row of the kernel's
//! registry (listed by `%help`, run by `%absint`, `%lattice`, `%check-domain`, `%dataflow`).
//!
//! The cell runs in evcxr's child process, not in the kernel. [`register_domain`] connects to
//! the kernel's Unix socket (its path is in [`wire::SOCKET_ENV`]), says what it registers, and
//! leaves a thread serving the kernel's requests (one line each, see [`crate::wire`]): the
//! kernel's engine calls `join`, `binary`, … of the value here. Elements travel as small
//! ids, interned in this process, so the kernel compares elements by id.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::analysis::{Analysis, Direction, Facts};
use crate::domain::{BinOp, Cmp, Domain};
use crate::program::Stmt;
use crate::wire;

/// Why a registration failed.
#[derive(Debug)]
pub enum RegisterError {
    /// Not inside analysis-kernel (no socket to register with).
    NotInKernel,
    /// The name is not a word (`[A-Za-z_][A-Za-z0-9_-]*`).
    BadName(String),
    /// The kernel refused or could not be reached.
    Kernel(String),
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::NotInKernel => {
                write!(f, "not inside analysis-kernel: nothing to register with")
            }
            RegisterError::BadName(n) => write!(
                f,
                "{n:?} is not a valid name: use letters, digits, _ and -, starting with a letter"
            ),
            RegisterError::Kernel(m) => write!(f, "the kernel refused the registration: {m}"),
        }
    }
}

impl std::error::Error for RegisterError {}

fn valid(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn connect(hello: &[String]) -> Result<(BufReader<UnixStream>, UnixStream), RegisterError> {
    let path = std::env::var_os(wire::SOCKET_ENV).ok_or(RegisterError::NotInKernel)?;
    let stream = UnixStream::connect(path).map_err(|e| RegisterError::Kernel(e.to_string()))?;
    let mut writer = stream
        .try_clone()
        .map_err(|e| RegisterError::Kernel(e.to_string()))?;
    writer
        .write_all(wire::line(hello).as_bytes())
        .map_err(|e| RegisterError::Kernel(e.to_string()))?;
    let mut reader = BufReader::new(stream);
    let mut reply = String::new();
    reader
        .read_line(&mut reply)
        .map_err(|e| RegisterError::Kernel(e.to_string()))?;
    let f = wire::fields(&reply);
    match f.first().map(String::as_str) {
        Some("ok") => Ok((reader, writer)),
        _ => Err(RegisterError::Kernel(f.get(1).cloned().unwrap_or(reply))),
    }
}

/// Serves requests until the kernel closes the connection.
fn serve(
    mut reader: BufReader<UnixStream>,
    mut writer: UnixStream,
    mut handle: impl FnMut(&[String]) -> Result<Vec<String>, String> + Send + 'static,
) -> Result<(), RegisterError> {
    let spawned = std::thread::Builder::new()
        .name(crate::render::SERVER_THREAD.to_string())
        .spawn(move || {
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                let request = wire::fields(&line);
                let reply = match catch_unwind(AssertUnwindSafe(|| handle(&request))) {
                    Ok(Ok(mut fields)) => {
                        fields.insert(0, "ok".into());
                        fields
                    }
                    Ok(Err(message)) => vec!["err".into(), message],
                    Err(payload) => {
                        let message = payload
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| payload.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "a panic".into());
                        vec!["panic".into(), message]
                    }
                };
                if writer.write_all(wire::line(&reply).as_bytes()).is_err() {
                    return;
                }
            }
        });
    spawned
        .map(|_| ())
        .map_err(|e| RegisterError::Kernel(e.to_string()))
}

/// A domain's elements by id (0 is `⊥`, 1 is `⊤`).
struct Interned<D: Domain> {
    elems: Vec<D>,
    ids: HashMap<D, usize>,
}

impl<D: Domain> Interned<D> {
    fn id(&mut self, d: D) -> usize {
        if let Some(&i) = self.ids.get(&d) {
            return i;
        }
        self.elems.push(d.clone());
        self.ids.insert(d, self.elems.len() - 1);
        self.elems.len() - 1
    }

    fn get(&self, field: Option<&String>) -> Result<&D, String> {
        field
            .and_then(|f| f.parse::<usize>().ok())
            .and_then(|i| self.elems.get(i))
            .ok_or_else(|| format!("bad element id {field:?}"))
    }
}

fn int(field: Option<&String>) -> Result<Option<i64>, String> {
    let f = field.ok_or("missing int")?;
    match f.parse::<i64>() {
        Ok(n) => Ok(Some(n)),
        // An int beyond i64: the domain's `*_big` methods take its digits.
        Err(_)
            if f.trim_start_matches('-')
                .chars()
                .all(|c| c.is_ascii_digit()) =>
        {
            Ok(None)
        }
        Err(_) => Err(format!("bad int {f:?}")),
    }
}

fn answer(id: usize) -> Result<Vec<String>, String> {
    Ok(vec![id.to_string()])
}

fn flag(b: bool) -> Result<Vec<String>, String> {
    Ok(vec![if b { "1" } else { "0" }.into()])
}

fn domain_request<D: Domain>(t: &mut Interned<D>, r: &[String]) -> Result<Vec<String>, String> {
    let op = r.first().map(String::as_str).unwrap_or("");
    let a = || t.get(r.get(1)).cloned();
    let b = || t.get(r.get(2)).cloned();
    match op {
        "alpha" => match int(r.get(1))? {
            Some(n) => answer(t.id(D::abstract_int(n))),
            None => answer(t.id(D::abstract_big(r[1].as_str()))),
        },
        "contains" => {
            let x = a()?;
            match int(r.get(2))? {
                Some(n) => flag(x.contains(n)),
                None => flag(x.contains_big(r[2].as_str())),
            }
        }
        "leq" => flag(a()?.leq(&b()?)),
        "join" => {
            let j = a()?.join(&b()?);
            answer(t.id(j))
        }
        "meet" => {
            let m = a()?.meet(&b()?);
            answer(t.id(m))
        }
        "widen" => {
            let w = a()?.widen(&b()?);
            answer(t.id(w))
        }
        "neg" => {
            let n = a()?.negate();
            answer(t.id(n))
        }
        "bin" => {
            let o = r
                .get(1)
                .and_then(|o| BinOp::from_name(o))
                .ok_or("bad operator")?;
            let (x, y) = (t.get(r.get(2))?.clone(), t.get(r.get(3))?.clone());
            answer(t.id(D::binary(o, &x, &y)))
        }
        "refine" => {
            let c = r
                .get(1)
                .and_then(|c| Cmp::from_symbol(c))
                .ok_or("bad comparison")?;
            let (x, y) = (t.get(r.get(2))?.clone(), t.get(r.get(3))?.clone());
            answer(t.id(x.refine(c, &y)))
        }
        "show" => Ok(vec![a()?.show()]),
        "elements" => match D::elements() {
            None => Ok(Vec::new()),
            Some(es) => Ok(std::iter::once("some".to_string())
                .chain(es.into_iter().map(|e| t.id(e).to_string()))
                .collect()),
        },
        other => Err(format!("unknown request {other:?}")),
    }
}

/// Registers the domain `D` as `name` (with a short `description` for `%help`): from now on
/// `%absint name f`, `%lattice name` (when `D::elements` is given) and `%check-domain name`
/// use it. A new registration under the same name replaces the old one.
///
/// ```
/// use analysis_prelude::prelude::*;
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct Any;
/// impl Domain for Any {
///     fn bottom() -> Self { Any }
///     fn top() -> Self { Any }
///     fn leq(&self, _: &Self) -> bool { true }
///     fn join(&self, _: &Self) -> Self { Any }
///     fn abstract_int(_: i64) -> Self { Any }
/// }
/// // Outside the kernel there is nothing to register with: a typed error.
/// if std::env::var(analysis_prelude::wire::SOCKET_ENV).is_err() {
///     assert!(matches!(register_domain::<Any>("any", ""), Err(RegisterError::NotInKernel)));
/// }
/// assert!(matches!(register_domain::<Any>("no spaces", ""), Err(RegisterError::BadName(_))));
/// ```
pub fn register_domain<D: Domain>(name: &str, description: &str) -> Result<(), RegisterError> {
    if !valid(name) {
        return Err(RegisterError::BadName(name.to_string()));
    }
    let hello = vec![
        "domain".to_string(),
        name.to_string(),
        std::any::type_name::<D>().to_string(),
        description.to_string(),
    ];
    let (reader, writer) = connect(&hello)?;
    let mut table = Interned::<D> {
        elems: Vec::new(),
        ids: HashMap::new(),
    };
    // ⊥ is id 0 and ⊤ id 1 (when they are equal, the kernel sees id 0 for both).
    table.id(D::bottom());
    if table.id(D::top()) == 0 {
        table.elems.push(D::top());
    }
    serve(reader, writer, move |r| domain_request(&mut table, r))
}

fn set_field(s: &str) -> std::collections::BTreeSet<String> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(str::to_string)
        .collect()
}

/// Registers the analysis `A` as `name`: from now on `%dataflow name f` runs it with the
/// kernel's engine and view, like a built-in analysis.
pub fn register_analysis<A: Analysis>(name: &str, analysis: A) -> Result<(), RegisterError> {
    if !valid(name) {
        return Err(RegisterError::BadName(name.to_string()));
    }
    let hello = vec![
        "analysis".to_string(),
        name.to_string(),
        std::any::type_name::<A>().to_string(),
        analysis.title(),
        analysis.legend(),
        match analysis.direction() {
            Direction::Forward => "forward".into(),
            Direction::Backward => "backward".into(),
        },
        if analysis.may() { "may" } else { "must" }.into(),
    ];
    let (reader, writer) = connect(&hello)?;
    serve(reader, writer, move |r| {
        match r.first().map(String::as_str) {
            Some("boundary") => Ok(analysis.boundary().into_iter().collect()),
            Some("transfer") if r.len() >= 8 => {
                let stmt = Stmt {
                    node: r[1].parse().map_err(|_| "bad node")?,
                    kind: r[2].clone(),
                    line: r[3].parse().map_err(|_| "bad line")?,
                    text: r[4].clone(),
                    targets: set_field(&r[5]),
                    uses: set_field(&r[6]),
                    deletes: set_field(&r[7]),
                };
                let facts: Facts = r[8..].iter().cloned().collect();
                Ok(analysis.transfer(&stmt, &facts).into_iter().collect())
            }
            other => Err(format!("unknown request {other:?}")),
        }
    })
}
