//! A deterministic in-process fuzzer of cells: fixtures expanded from templates, mutated Python,
//! `%` commands with random options, random text; each cell runs in a [`Session`] with small
//! budgets and Graphviz's layout skipped (`Session::skip_layout`), and a panic is a failure.
//! Used by `tests/fuzz_cells.rs` and `src/bin/fuzz_cells.rs`; reads no files (callers pass the
//! corpus in).

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::cancel::Cancel;
use crate::notebook::commands::{COMMANDS, SAVE};
use crate::notebook::{CellError, Config, Ctx, Output, Session};
use crate::python::depth::STACK_SIZE;
use crate::symexec::check::Rng;

/// Cells a session runs before the fuzzer starts a fresh one (bounds its memory).
pub const SESSION_CELLS: usize = 64;

/// The budgets of a fuzzing session: every analysis stops early.
pub fn budgets() -> Config {
    Config {
        unroll: 2,
        z3_timeout_ms: 50,
        path_limit: 8,
        node_limit: 40,
        step_budget: 2_000,
        recursion_limit: 40,
        memory_mb: 2048,
        // A watchdog: a cell that gets stuck (in Z3, say) is stopped as a budget error.
        time_limit_s: 2,
        check_runs: 4,
        dot_timeout_s: 1,
        // The oracle's `python3` children are not the code under test.
        cpython_oracle: 0,
        pinned: Vec::new(),
        depth: 2,
        step_delay_ms: 0,
        solver_budget_ms: 1_000,
    }
}

/// A session for fuzzing: small budgets, no Graphviz layout.
pub fn session() -> Session {
    let mut s = Session::new(false);
    s.config = budgets();
    s.skip_layout = true;
    s
}

/// How one cell ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    /// A Python or usage error: its name and 1-based cell line, if it has one.
    Error {
        ename: String,
        line: Option<u32>,
    },
    /// A panic (or an `InternalError`): the kernel would have hit its panic guard.
    Panic(String),
}

/// Runs `code` in `session`, catching panics. Call it on a thread with [`STACK_SIZE`] of stack
/// ([`on_big_stack`]).
pub fn run_cell(session: &mut Session, code: &str) -> Verdict {
    let cancel = Cancel::new();
    let mut out: Vec<Output> = Vec::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        session.execute(
            code,
            &mut Ctx {
                sink: &mut out,
                cancel: &cancel,
            },
        )
    }));
    // `%config` in a cell may raise a budget; the fuzzer's stay.
    session.config = budgets();
    match result {
        Ok(Ok(())) => Verdict::Ok,
        Ok(Err(e)) if e.ename == "InternalError" => Verdict::Panic(e.evalue),
        Ok(Err(e)) => Verdict::Error {
            line: cell_line(&e),
            ename: e.ename,
        },
        Err(panic) => Verdict::Panic(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
    }
}

/// The `N` of a traceback's "Cell line N".
fn cell_line(e: &CellError) -> Option<u32> {
    let rest = e.traceback.first()?.trim().strip_prefix("Cell line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Runs `f` on a thread with the engine's stack, as the kernel runs cells.
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("fuzz".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, f)
            .expect("spawning the fuzzing thread")
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// Expands a fixture template: `«TEXT×N»` is TEXT N times, and inside it `⇥` is four spaces
/// per level (`i + 1` on the `i`-th copy), so deep inputs stay small files.
pub fn expand(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('«') {
        out.push_str(&rest[..open]);
        let body = &rest[open + '«'.len_utf8()..];
        let Some(close) = body.find('»') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &body[..close];
        let (text, count) = inner.rsplit_once('×').unwrap_or((inner, "1"));
        for i in 0..count.trim().parse::<usize>().unwrap_or(1) {
            match text.contains('⇥') {
                true => out.push_str(&text.replace('⇥', &"    ".repeat(i + 1))),
                false => out.push_str(text),
            }
        }
        rest = &body[close + '»'.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// The code cells of a notebook's JSON (none if it does not parse).
pub fn notebook_cells(json: &str) -> Vec<String> {
    let Ok(nb) = serde_json::from_str::<serde_json::Value>(json) else {
        return Vec::new();
    };
    let cells = nb["cells"].as_array().cloned().unwrap_or_default();
    cells
        .iter()
        .filter(|c| c["cell_type"] == "code")
        .map(|c| match &c["source"] {
            serde_json::Value::Array(lines) => lines.iter().filter_map(|l| l.as_str()).collect(),
            other => other.as_str().unwrap_or("").to_string(),
        })
        .collect()
}

/// Words a mutation may insert: Python's punctuation and keywords, and odd text.
const EXTRA_TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    ".",
    ";",
    "=",
    "==",
    "+",
    "-",
    "*",
    "**",
    "/",
    "//",
    "%",
    "<",
    ">=",
    "not",
    "and",
    "or",
    "if",
    "else",
    "elif",
    "while",
    "for",
    "in",
    "return",
    "def",
    "lambda",
    "yield",
    "try",
    "except",
    "finally",
    "raise",
    "with",
    "pass",
    "break",
    "continue",
    "\n",
    "\n    ",
    "\n        ",
    "\t",
    "\\",
    "'",
    "\"",
    "'''",
    "f'{",
    "}'",
    "#",
    "λ",
    "é",
    "𝔘",
    "\u{200b}",
    "0",
    "-1",
    "10**100",
    "1e308",
    "0x",
    "None",
    "True",
    "x",
    "self",
];

/// Generates cells from a corpus of Python (and `%` lines), deterministically from a seed.
pub struct Generator {
    rng: Rng,
    corpus: Vec<String>,
}

impl Generator {
    pub fn new(seed: u64, corpus: Vec<String>) -> Generator {
        Generator {
            rng: Rng::new(seed),
            corpus,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        (self.rng.bits() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len()))
        }
    }

    /// A new cell; `functions` are the names defined in the session.
    pub fn cell(&mut self, functions: &[String]) -> String {
        match self.below(10) {
            0..=4 => {
                let mut cell = self.mutated_python();
                for _ in 0..self.below(3) {
                    cell.push('\n');
                    cell.push_str(&self.command(functions));
                }
                cell
            }
            5..=7 => (0..1 + self.below(3))
                .map(|_| self.command(functions))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => self.random_text(),
        }
    }

    /// A corpus snippet after one to five token mutations.
    fn mutated_python(&mut self) -> String {
        let source = self.pick(&self.corpus.clone()).cloned().unwrap_or_default();
        let mut tokens = tokens(&source);
        for _ in 0..1 + self.below(5) {
            let at = self.below(tokens.len() + 1);
            match self.below(4) {
                0 if !tokens.is_empty() => {
                    tokens.remove(at.min(tokens.len() - 1));
                }
                1 if !tokens.is_empty() => {
                    let at = at.min(tokens.len() - 1);
                    let end = (at + 1 + self.below(8)).min(tokens.len());
                    let most = if self.below(8) == 0 { 300 } else { 3 };
                    let copies = 1 + self.below(most);
                    let run: Vec<String> = tokens[at..end].to_vec();
                    for _ in 0..copies {
                        tokens.splice(at..at, run.iter().cloned());
                    }
                }
                2 => {
                    let word = self.pick(EXTRA_TOKENS).copied().unwrap_or("");
                    tokens.insert(at, word.to_string());
                }
                _ => {
                    let other = self.pick(&self.corpus.clone()).cloned().unwrap_or_default();
                    let donor = crate::fuzz::tokens(&other);
                    if let Some(t) = self.pick(&donor) {
                        tokens.insert(at, t.clone());
                    }
                }
            }
        }
        tokens.concat()
    }

    /// A `%` line: a command with random arguments and options.
    fn command(&mut self, functions: &[String]) -> String {
        let cmds: Vec<_> = COMMANDS.iter().filter(|c| c.name != "config").collect();
        let Some(cmd) = self.pick(&cmds) else {
            return String::new();
        };
        let mut line = if cmd.name == "dot" {
            "%%dot".to_string()
        } else {
            format!("%{}", cmd.name)
        };
        if cmd.takes_function || self.below(4) == 0 {
            let name = self.pick(functions).cloned().unwrap_or_else(|| "f".into());
            line.push(' ');
            line.push_str(&name);
        }
        if let Some(w) = self.pick(cmd.words) {
            line.push(' ');
            line.push_str(w);
        }
        let options: Vec<_> = cmd.options.iter().chain([&SAVE]).collect();
        for _ in 0..self.below(4) {
            let Some(o) = self.pick(&options) else { break };
            line.push(' ');
            line.push_str(o.name);
            for _ in 0..o.values {
                line.push(' ');
                line.push_str(&self.option_value(functions));
            }
        }
        if cmd.name == "dot" {
            line.push_str("\ndigraph { a -> b; b -> \"λ\" }");
        }
        line
    }

    fn option_value(&mut self, functions: &[String]) -> String {
        const VALUES: &[&str] = &[
            "0",
            "1",
            "3",
            "-1",
            "99999999999999999999",
            "x",
            "x=int",
            "x=0",
            "y=str",
            "out.svg",
            "out.json",
            "out.txt",
            "out.dot",
            "out.html",
            "\"a b\"",
            "=",
        ];
        match self.below(4) {
            0 => self.pick(functions).cloned().unwrap_or_else(|| "f".into()),
            1 => self
                .pick(&crate::dataflow::registry::DOMAIN_NAMES)
                .map_or_else(|| "sign".into(), |d| d.to_string()),
            _ => self.pick(VALUES).copied().unwrap_or("1").to_string(),
        }
    }

    /// Random bytes made text, or random unicode with Python's punctuation mixed in.
    fn random_text(&mut self) -> String {
        let n = self.below(200);
        if self.below(2) == 0 {
            let bytes: Vec<u8> = (0..n).map(|_| self.rng.bits() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            (0..n)
                .map(|_| match self.below(4) {
                    0 => char::from_u32(self.below(0x11_0000) as u32).unwrap_or('\u{fffd}'),
                    1 => char::from_u32(0x80 + self.below(0x800) as u32).unwrap_or('é'),
                    _ => {
                        const PUNCT: &[u8] = b"()[]{}:'\"\n %#\\=+-*.,abcxyz0123 \t";
                        PUNCT[self.below(PUNCT.len())] as char
                    }
                })
                .collect()
        }
    }
}

/// Splits source into tokens for mutation: identifier runs, white space runs, single others.
pub fn tokens(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c == ' ' || c == '\t' {
            1
        } else {
            2
        }
    };
    for c in source.chars() {
        match out.last_mut() {
            Some(last) if class(c) != 2 && last.chars().next().map(class) == Some(class(c)) => {
                last.push(c)
            }
            _ => out.push(c.to_string()),
        }
    }
    out
}

/// Totals of a fuzzing run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub cases: usize,
    pub errors: usize,
    /// Each failing cell with its panic message.
    pub panics: Vec<(String, String)>,
    /// Cells that ran past [`SLOW_SECONDS`] (the time budget was not honoured), with their time.
    pub slow: Vec<(String, f64)>,
}

/// A cell running this long overran its 2 s time budget (`budgets().time_limit_s`).
pub const SLOW_SECONDS: f64 = 5.0;

/// Runs `cases` generated cells (after `seeds`), a fresh session every [`SESSION_CELLS`]
/// cells, telling `starting` each cell before it runs (a watchdog can then name a cell that
/// never ends). Call it on a big stack ([`on_big_stack`]).
pub fn run(
    generator: &mut Generator,
    seeds: &[String],
    cases: usize,
    starting: &(dyn Fn(&str) + Sync),
) -> Summary {
    let mut summary = Summary::default();
    let mut session = session();
    for i in 0..cases {
        if i % SESSION_CELLS == 0 {
            session = self::session();
        }
        let code = match seeds.get(i) {
            Some(seed) => seed.clone(),
            None => {
                let functions: Vec<String> = session.functions().map(|f| f.name.clone()).collect();
                generator.cell(&functions)
            }
        };
        summary.cases += 1;
        starting(&code);
        let started = std::time::Instant::now();
        let verdict = run_cell(&mut session, &code);
        let secs = started.elapsed().as_secs_f64();
        if secs > SLOW_SECONDS {
            summary.slow.push((code.clone(), secs));
        }
        match verdict {
            Verdict::Ok => {}
            Verdict::Error { .. } => summary.errors += 1,
            Verdict::Panic(message) => {
                summary.panics.push((code, message));
                session = self::session();
            }
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_expand() {
        assert_eq!(expand("x = «[×3»«]×3»"), "x = [[[]]]");
        assert_eq!(expand("«⇥if x:\n×2»"), "    if x:\n        if x:\n");
        assert_eq!(expand("no «template"), "no «template");
    }

    #[test]
    fn generation_is_deterministic() {
        let corpus = vec!["def f(x):\n    return x + 1\n".to_string()];
        let cells = |seed| {
            let mut g = Generator::new(seed, corpus.clone());
            (0..50).map(|_| g.cell(&["f".into()])).collect::<Vec<_>>()
        };
        assert_eq!(cells(7), cells(7));
        assert_ne!(cells(7), cells(8));
    }
}
