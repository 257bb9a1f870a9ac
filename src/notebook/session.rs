//! The session: what the user has defined, the settings, and the execution of one cell.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::commands::{self, Form};
use super::config::Config;
use super::invocation::{Invocation, parse_arguments, split_words};
use super::output::{Bundle, CellError, Output, OutputSink, View, payload};
use super::{suggest, unknown_command};
use crate::cancel::{Cancel, Stop};
use crate::interp::{Interpreter, Limits, RunError, Stream};
use crate::python::ir;
use crate::python::{ClassSummary, FunctionSummary, ParsedCell, lower_module, parse_cell};
use crate::render::graphviz::{GraphvizError, dot_to_svg};
use crate::render::html::escape;

/// What a running command may use: where outputs go and the interrupt flag.
pub struct Ctx<'a> {
    pub sink: &'a mut dyn OutputSink,
    pub cancel: &'a Cancel,
}

impl Ctx<'_> {
    /// Displays a view, and writes it to the `--save` file when one was asked for.
    pub fn show(&mut self, view: &View, inv: &Invocation) -> Result<(), CellError> {
        if let Some(file) = view.save_file(inv)? {
            self.sink.save(file)?;
        }
        self.sink.emit(Output::Display(view.bundle()));
        Ok(())
    }

    pub fn check_cancel(&self) -> Result<(), CellError> {
        if self.cancel.is_cancelled() {
            Err(CellError::interrupted())
        } else {
            Ok(())
        }
    }
}

/// A part of a cell: Python lines, or one `%` command line.
enum Segment {
    /// The cell's text with every line outside this segment blanked, so lines keep their numbers.
    Python(String),
    Command {
        line: u32,
        text: String,
    },
    /// `name?` / `name??`: show the inspection of `name` (detail 0 or 1).
    Inspect(String, u8),
}

/// Everything the user has defined, and the settings.
#[derive(Default)]
pub struct Session {
    functions: BTreeMap<String, FunctionSummary>,
    /// The top-level classes defined, by name.
    classes: BTreeMap<String, ClassSummary>,
    /// The lowered IR of every function defined, nested ones (`f.g`) and methods (`C.m`) too.
    lowered: BTreeMap<String, Arc<ir::Function>>,
    pub config: Config,
    /// Enables the kernel's test commands (`%__panic__`, `%__sleep__`).
    pub test_hooks: bool,
    /// Runs the cells' top-level code; its globals persist from cell to cell.
    pub interpreter: Interpreter,
    /// Skips Graphviz's layout (views get an empty SVG and keep their text, DOT and JSON):
    /// for the fuzzer (`tests/fuzz_cells.rs`), which runs a million cells.
    pub skip_layout: bool,
    /// The domains and analyses cells registered (`analysis` module), for help and completion.
    pub user: super::views::user::UserEntries,
    /// `%%rust` cells: the evcxr context and what Rust cells registered.
    pub rust: crate::rustcell::RustCells,
}

impl Session {
    pub fn new(test_hooks: bool) -> Session {
        Session {
            test_hooks,
            ..Session::default()
        }
    }

    /// Lays out DOT as SVG with Graphviz, or gives "" when `skip_layout` is set.
    pub fn layout(
        &self,
        dot: &str,
        cancel: &Cancel,
        limit: Duration,
    ) -> Result<String, GraphvizError> {
        if self.skip_layout {
            Ok(String::new())
        } else {
            dot_to_svg(dot, cancel, limit)
        }
    }

    /// The defined functions, sorted by name.
    pub fn functions(&self) -> impl Iterator<Item = &FunctionSummary> {
        self.functions.values()
    }

    pub fn function(&self, name: &str) -> Option<&FunctionSummary> {
        self.functions.get(name)
    }

    /// The top-level class `name` a cell defined.
    pub fn class(&self, name: &str) -> Option<&ClassSummary> {
        self.classes.get(name)
    }

    /// The IR of function `name` (a qualified name: `f`, `C.m`, `f.inner`).
    pub fn lowered(&self, name: &str) -> Option<&Arc<ir::Function>> {
        self.lowered.get(name)
    }

    /// The IR of function `name`, or an error that names the closest defined one.
    pub fn require_lowered(&self, name: &str) -> Result<&Arc<ir::Function>, CellError> {
        self.lowered.get(name).ok_or_else(|| {
            let hint = suggest(name, self.lowered.keys().map(String::as_str))
                .map(|n| format!("; did you mean {n}?"))
                .unwrap_or_else(|| {
                    " (define it in a cell first; %who lists what is defined)".into()
                });
            CellError::new("NameError", format!("no function named {name:?}{hint}"))
        })
    }

    /// The function `name`, or an error that names the closest defined one.
    pub fn require_function(&self, name: &str) -> Result<&FunctionSummary, CellError> {
        self.function(name).ok_or_else(|| {
            let hint = suggest(name, self.functions.keys().map(String::as_str))
                .map(|n| format!("; did you mean {n}?"))
                .unwrap_or_else(|| {
                    " (define it in a cell first; %who lists what is defined)".into()
                });
            CellError::new("NameError", format!("no function named {name:?}{hint}"))
        })
    }

    /// Forgets every definition; returns how many there were.
    pub fn reset(&mut self) -> usize {
        let n = self.functions.len();
        self.functions.clear();
        self.classes.clear();
        self.lowered.clear();
        self.interpreter.reset();
        self.user = Default::default();
        n
    }

    /// Runs one cell.
    pub fn execute(&mut self, code: &str, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
        let start = Instant::now();
        ctx.cancel.arm(self.config.budget(), start);
        if let Some((line_no, first)) = first_code_line(code).filter(|(_, l)| l.starts_with("%%")) {
            let body: String = code
                .lines()
                .enumerate()
                .map(|(i, l)| if (i as u32) < line_no { "" } else { l })
                .collect::<Vec<_>>()
                .join("\n");
            let inv = self.parse_invocation(&first[2..], true, line_no, first, body)?;
            return self.run(&inv, ctx);
        }
        for segment in segments(code) {
            // Only a stop already recorded ends the cell here: memory over the limit must
            // not refuse the `del` or `%config memory_mb` that would fix it.
            if ctx.cancel.reason().is_some() {
                return Err(stopped(CellError::interrupted(), ctx.cancel, None));
            }
            ctx.cancel.arm(self.config.budget(), start);
            match segment {
                Segment::Python(source) => self.run_python(&source, ctx)?,
                Segment::Command { line, text } => {
                    let inv =
                        self.parse_invocation(&text[1..], false, line, &text, String::new())?;
                    self.run(&inv, ctx)?;
                }
                Segment::Inspect(name, detail) => {
                    super::habits::show_inspection(self, &name, detail, ctx);
                }
            }
        }
        Ok(())
    }

    /// Executes a cell and collects its outputs (what tests, benchmarks and the grader do in
    /// place of a front end).
    pub fn run_cell(
        &mut self,
        code: &str,
        cancel: &Cancel,
    ) -> (Result<(), CellError>, Vec<Output>) {
        let mut out: Vec<Output> = Vec::new();
        let result = self.execute(
            code,
            &mut Ctx {
                sink: &mut out,
                cancel,
            },
        );
        (result, out)
    }

    fn run(&mut self, inv: &Invocation, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
        let cmd =
            commands::find(&inv.name, self.test_hooks).ok_or_else(|| unknown_command(&inv.name))?;
        ctx.sink.command_started(&progress_label(inv));
        let result = (cmd.run)(self, inv, ctx)
            .map_err(|e| stopped(e, ctx.cancel, Some(&format!("%{}", inv.name))));
        ctx.sink.command_finished(result.is_ok());
        result
    }

    /// Parses `name args` of a command on cell line `line`.
    fn parse_invocation(
        &self,
        text: &str,
        cell: bool,
        line: u32,
        source_line: &str,
        body: String,
    ) -> Result<Invocation, CellError> {
        let words =
            split_words(text).map_err(|e| CellError::usage(format!("{e} in {source_line:?}")))?;
        let name = words.first().cloned().unwrap_or_default();
        if name.is_empty() {
            return Err(CellError::usage("a command name must follow % (try %help)"));
        }
        let cmd = commands::find(&name, self.test_hooks).ok_or_else(|| unknown_command(&name))?;
        match (cmd.form, cell) {
            (Form::Cell, false) => {
                return Err(CellError::usage(format!(
                    "%{name} works on a cell body: start the cell with %%{name}"
                )));
            }
            (Form::Line, true) => {
                return Err(CellError::usage(format!(
                    "%%{name} does not exist; use %{name} on a line"
                )));
            }
            _ => {}
        }
        let (args, options) = parse_arguments(&words[1..], |o| cmd.option(o).map(|s| s.values))
            .map_err(|e| CellError::usage(format!("%{name}: {e}")))?;
        for opt in options.keys() {
            if cmd.option(opt).is_none() {
                let hint = suggest(opt, cmd.all_options().map(|o| o.name))
                    .map(|n| format!("; did you mean {n}?"))
                    .unwrap_or_default();
                return Err(CellError::usage(format!(
                    "%{name} has no option {opt}{hint} (see %help {name})"
                )));
            }
        }
        Ok(Invocation {
            name,
            cell,
            args,
            options,
            body,
            line,
            source_line: source_line.to_string(),
        })
    }

    /// Parses Python, runs it in the interpreter and stores its functions. A cell refused
    /// before running (syntax, unsupported top-level code) defines nothing.
    /// Runs Python as a plain cell would (for `%time`, `%timeit`).
    pub(crate) fn run_python_source(
        &mut self,
        source: &str,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), CellError> {
        self.run_python(source, ctx)
    }

    fn run_python(&mut self, source: &str, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
        let cell = parse_cell(source)?;
        let module = lower_module(source)?;
        let limits = Limits::new(
            self.config.step_budget,
            u32::try_from(self.config.recursion_limit).unwrap_or(u32::MAX),
        );
        let Ctx { sink, cancel } = ctx;
        let result = self.interpreter.run_module(
            &module,
            &mut |stream, text| {
                sink.emit(match stream {
                    Stream::Stdout => Output::Stdout(text.to_string()),
                    Stream::Stderr => Output::Stderr(text.to_string()),
                })
            },
            cancel,
            limits,
        );
        match result {
            Ok(value) => {
                self.store(&cell, &module, ctx);
                super::views::user::refresh(self, source, ctx);
                if let Some(v) = value {
                    ctx.sink.emit(Output::Result(Bundle::text(v.repr)));
                }
                Ok(())
            }
            Err(e @ (RunError::Refused { .. } | RunError::Syntax { .. })) => {
                Err(run_error(e, source))
            }
            Err(e) => {
                self.store(&cell, &module, ctx);
                Err(stopped(run_error(e, source), ctx.cancel, None))
            }
        }
    }

    fn store(&mut self, cell: &ParsedCell, module: &ir::Module, ctx: &mut Ctx<'_>) {
        for f in module.functions() {
            self.lowered.insert(f.qualname.clone(), Arc::new(f.clone()));
        }
        for c in &cell.classes {
            self.classes.insert(c.name.clone(), c.clone());
        }
        if cell.functions.is_empty() {
            return;
        }
        let rows: Vec<String> = cell
            .functions
            .iter()
            .map(|f| {
                format!(
                    "{}  (lines {}–{})",
                    qualified_signature(f),
                    f.lines.0,
                    f.lines.1
                )
            })
            .collect();
        let json = payload(
            "definitions",
            json!({"functions": cell.functions.iter().map(|f| json!({
                "name": f.name, "signature": f.signature(), "lines": [f.lines.0, f.lines.1]
            })).collect::<Vec<_>>()}),
        );
        let html = format!(
            "<div class=\"analysis-kernel-defined\" style=\"color:#555\">defined: {}</div>",
            rows.iter()
                .map(|r| format!("<code>{}</code>", escape(r)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        ctx.sink.emit(Output::Display(
            Bundle::text(format!("defined: {}", rows.join(", ")))
                .with("text/html", json!(html))
                .with(&View::mime_type("definitions"), json),
        ));
        for f in &cell.functions {
            self.functions.insert(f.name.clone(), f.clone());
        }
    }
}

fn qualified_signature(f: &FunctionSummary) -> String {
    match f.name.rsplit_once('.') {
        Some((class, _)) => format!("{class}.{}", f.signature()),
        None => f.signature(),
    }
}

/// The cell error for a run that did not complete: a Python exception with its traceback
/// ("Cell line N, in f", the source line, the exception line), or the reason the run stopped.
pub(crate) fn run_error(e: RunError, source: &str) -> CellError {
    let line_text = |line: u32| {
        source
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .unwrap_or("")
            .to_string()
    };
    match e {
        RunError::Exception(x) => {
            let mut traceback = Vec::new();
            for frame in &x.traceback {
                traceback.push(format!("  Cell line {}, in {}", frame.line, frame.function));
                traceback.push(format!("    {}", frame.source));
            }
            let ename = x.type_name.clone();
            traceback.push(if x.message.is_empty() {
                ename.clone()
            } else {
                format!("{ename}: {}", x.message)
            });
            CellError {
                ename,
                evalue: x.message,
                traceback,
            }
        }
        RunError::StepBudgetExceeded { .. } => CellError::new("StepBudgetExceeded", e.to_string()),
        RunError::Stopped(s) => s.into(),
        RunError::Refused { line, .. } | RunError::Unsupported { line, .. } => CellError::new(
            "UnsupportedError",
            e.to_string(),
        )
        .at_cell_line(line, &line_text(line), 1),
        RunError::Syntax { line, .. } => {
            CellError::new("SyntaxError", e.to_string()).at_cell_line(line, &line_text(line), 1)
        }
        other => CellError::new("InterpreterError", other.to_string()),
    }
}

/// The error of work the stop signal ended: an interrupt stays `KeyboardInterrupt`, a spent
/// budget names itself and its setting; `command` (`%constraints`) says what stopped.
fn stopped(e: CellError, cancel: &Cancel, command: Option<&str>) -> CellError {
    if e.ename != "KeyboardInterrupt" {
        return e;
    }
    let budget = cancel.budget();
    let (ename, why) = match cancel.reason() {
        Some(Stop::Time) => (
            "TimeoutError",
            format!(
                "the cell ran longer than {} s (%config time_limit_s)",
                budget.time.map_or(0, |t| t.as_secs())
            ),
        ),
        Some(Stop::Memory) => (
            "MemoryError",
            format!(
                "the kernel used more than {} MB (%config memory_mb)",
                budget.memory.map_or(0, |m| m >> 20)
            ),
        ),
        Some(Stop::Interrupted) | None => return e,
    };
    CellError::new(
        ename,
        match command {
            Some(c) => format!("{c} stopped: {why}"),
            None => why,
        },
    )
}

/// The first line that is not blank, with its 1-based number.
fn first_code_line(code: &str) -> Option<(u32, &str)> {
    code.lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i as u32 + 1, l.trim_end()))
}

/// Splits a cell into Python runs and `%` command lines (a `%` in column 0), in time linear
/// in the cell.
fn segments(code: &str) -> Vec<Segment> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    // The Python lines since the last command: `start..end`, all of them.
    let mut start = 0;
    let flush = |start: usize, end: usize, out: &mut Vec<Segment>| {
        if lines[start..end].iter().any(|l| !l.trim().is_empty()) {
            let mut text = "\n".repeat(start);
            text.push_str(&lines[start..end].join("\n"));
            text.push_str(&"\n".repeat(lines.len() - end));
            out.push(Segment::Python(text));
        }
    };
    for (i, l) in lines.iter().enumerate() {
        if let Some((name, detail)) = (!l.starts_with([' ', '\t']))
            .then(|| super::habits::inspect_request(l))
            .flatten()
        {
            flush(start, i, &mut out);
            out.push(Segment::Inspect(name, detail));
            start = i + 1;
            continue;
        }
        if l.starts_with('%') {
            flush(start, i, &mut out);
            out.push(Segment::Command {
                line: i as u32 + 1,
                text: l.trim_end().to_string(),
            });
            start = i + 1;
        }
    }
    flush(start, lines.len(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(session: &mut Session, code: &str) -> (Result<(), CellError>, Vec<Output>) {
        session.run_cell(code, &Cancel::new())
    }

    fn text_of(out: &[Output]) -> String {
        out.iter()
            .filter_map(|o| match o {
                Output::Display(b)
                | Output::Result(b)
                | Output::DisplayId { bundle: b, .. }
                | Output::Update { bundle: b, .. } => b.plain_text().map(str::to_string),
                Output::Stdout(s) | Output::Stderr(s) => Some(s.clone()),
                Output::File { .. } | Output::Clear { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn definitions_are_stored_and_replaced() {
        let mut s = Session::default();
        let (r, out) = run(&mut s, "def f(x: int) -> int:\n    return x\n");
        r.unwrap();
        assert_eq!(text_of(&out), "defined: f(x: int) -> int  (lines 1–2)");
        run(&mut s, "\n\ndef f(y):\n    return y\n").0.unwrap();
        assert_eq!(s.function("f").unwrap().signature(), "f(y)");
        assert_eq!(s.function("f").unwrap().lines, (3, 4));
        let (_, out) = run(&mut s, "%who");
        assert!(text_of(&out).contains("f(y)"));
    }

    #[test]
    fn who_lists_variables_and_whos_their_types_and_values() {
        let mut s = Session::default();
        let cell = "class P:\n    def __repr__(self):\n        return 'P!'\ndef f(x):\n    return x\nn = 3\nwords = ['a'] * 40\np = P()\ns = {1, 2}\n";
        run(&mut s, cell).0.unwrap();
        let (_, out) = run(&mut s, "%who");
        let t = text_of(&out);
        assert!(t.contains("Variables: P n words p s"), "{t}");
        expect_test::expect![[r#"
            function    signature       lines
            ----------  --------------  -----
            P.__repr__  __repr__(self)  2–3
            f           f(x)            4–5

            variable  type  value
            --------  ----  ------------------------------------------------------------
            P         type  <class '__main__.P'>
            n         int   3
            words     list  ['a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'…
            p         P     <P object>
            s         set   {1, 2}"#]]
        .assert_eq(&text_of(&run(&mut s, "%whos").1));
        run(&mut s, "%reset").0.unwrap();
        assert!(text_of(&run(&mut s, "%who").1).contains("No variables defined."));
    }

    #[test]
    fn syntax_error_keeps_earlier_definitions() {
        let mut s = Session::default();
        run(&mut s, "def g():\n    pass\n").0.unwrap();
        let err = run(&mut s, "def h(:\n    pass\n").0.unwrap_err();
        assert_eq!(err.ename, "SyntaxError");
        assert!(
            err.traceback.iter().any(|l| l.trim() == "^"),
            "{:?}",
            err.traceback
        );
        assert!(s.function("g").is_some());
    }

    #[test]
    fn mixed_cell_keeps_line_numbers() {
        let mut s = Session::default();
        let (r, out) = run(&mut s, "%who\ndef k():\n    pass\n%who\n");
        r.unwrap();
        let t = text_of(&out);
        assert!(t.starts_with("No functions defined."), "{t}");
        assert!(t.contains("(lines 2–3)"), "{t}");
    }

    #[test]
    fn unknown_commands_and_options_suggest() {
        let mut s = Session::default();
        let e = run(&mut s, "%hlep").0.unwrap_err();
        assert_eq!(e.ename, "UsageError");
        assert!(e.evalue.contains("did you mean %help"), "{}", e.evalue);
        let e = run(&mut s, "%who --sav x.txt").0.unwrap_err();
        assert!(e.evalue.contains("did you mean --save"), "{}", e.evalue);
        let e = run(&mut s, "%dot").0.unwrap_err();
        assert!(e.evalue.contains("%%dot"), "{}", e.evalue);
    }

    #[test]
    fn dot_cell_renders_svg_in_every_format() {
        let mut s = Session::default();
        let (r, out) = run(&mut s, "%%dot --save g.json\ndigraph { a -> b }\n");
        r.unwrap();
        let Output::File { path, contents } = &out[0] else {
            panic!("{out:?}")
        };
        assert_eq!(path, "g.json");
        assert!(String::from_utf8_lossy(contents).contains("\"kind\": \"dot\""));
        let Output::Display(b) = &out[1] else {
            panic!()
        };
        for mime in [
            "text/plain",
            "text/html",
            "image/svg+xml",
            "application/vnd.analysis-kernel.dot+json",
        ] {
            assert!(b.data.contains_key(mime), "{mime}");
        }
        assert!(b.data["text/html"].as_str().unwrap().contains("<svg"));
    }

    #[test]
    fn dot_errors_point_at_the_cell_line() {
        let mut s = Session::default();
        let e = run(&mut s, "%%dot\ndigraph {\n  a -> \n  b -- c }\n")
            .0
            .unwrap_err();
        assert_eq!(e.ename, "DotError");
        assert!(e.traceback[0].contains("Cell line 4"), "{:?}", e.traceback);
    }

    #[test]
    fn top_level_statements_run_in_the_interpreter() {
        let mut s = Session::default();
        let (r, out) = run(
            &mut s,
            "def f(x):\n    return x * 2\nprint(f(21))\ny = f(2)\n",
        );
        r.unwrap();
        assert_eq!(out[0], Output::Stdout("42\n".into()));
        assert!(text_of(&out).contains("defined: f(x)"));
        let (r, out) = run(&mut s, "y + 1\n");
        r.unwrap();
        assert_eq!(out, [Output::Result(Bundle::text("5"))]);
        let e = run(&mut s, "def g(n):\n    return 10 // n\n\ng(0)\n")
            .0
            .unwrap_err();
        assert_eq!(
            (e.ename.as_str(), e.evalue.as_str()),
            ("ZeroDivisionError", "integer division or modulo by zero")
        );
        assert_eq!(
            e.traceback,
            [
                "  Cell line 4, in <module>",
                "    g(0)",
                "  Cell line 2, in g",
                "    return 10 // n",
                "ZeroDivisionError: integer division or modulo by zero"
            ]
        );
        let e = run(&mut s, "def h():\n    pass\nz = 2j\n").0.unwrap_err();
        assert_eq!(e.ename, "UnsupportedError");
        assert!(e.traceback[0].contains("Cell line 3"), "{:?}", e.traceback);
        assert!(s.function("h").is_none(), "a refused cell defines nothing");
        s.config.step_budget = 1000;
        let e = run(&mut s, "while True:\n    pass\n").0.unwrap_err();
        assert_eq!(e.ename, "StepBudgetExceeded");
        assert!(e.evalue.contains("%config step_budget=N"));
        s.reset();
        let e = run(&mut s, "print(y)\n").0.unwrap_err();
        assert_eq!(e.ename, "NameError");
        let (r, _) = run(
            &mut s,
            "class K:\n    def m(self):\n        return 1\nimport numpy as np\n",
        );
        assert_eq!(r.unwrap_err().ename, "ModuleNotFoundError");
        assert!(
            s.lowered("K.m").is_some(),
            "classes are defined for the analyses; an unknown import is an error when it runs"
        );
    }

    #[test]
    fn memory_over_the_budget_is_a_memory_error_and_the_variables_stay() {
        let mut s = Session::default();
        run(&mut s, "%config memory_mb=256\nkept = 42\n").0.unwrap();
        let e = run(&mut s, "l = []\nwhile True:\n    l.append('b' * 1000000)\n")
            .0
            .unwrap_err();
        assert_eq!(e.ename, "MemoryError", "{e:?}");
        assert!(e.evalue.contains("%config memory_mb"), "{}", e.evalue);
        assert!(e.traceback[0].contains("Cell line 3"), "{:?}", e.traceback);
        let (r, out) = run(&mut s, "n = len(l)\ndel l\n(kept, n > 10)\n");
        r.unwrap();
        assert_eq!(out, [Output::Result(Bundle::text("(42, True)"))]);
        let (r, out) = run(
            &mut s,
            "try:\n    l = []\n    while True:\n        l.append('b' * 1000000)\nexcept MemoryError:\n    del l\n    caught = True\ncaught\n",
        );
        r.unwrap();
        assert_eq!(out, [Output::Result(Bundle::text("True"))], "catchable");
    }

    #[test]
    fn underscores_hold_the_last_three_results_as_in_ipython() {
        let mut s = Session::default();
        let text = |s: &mut Session, src: &str| match run(s, src) {
            (Ok(()), out) => out,
            (Err(e), _) => panic!("{src}: {e:?}"),
        };
        text(&mut s, "6 * 7\n");
        text(&mut s, "x = 1\n");
        text(&mut s, "None\n");
        text(&mut s, "[1, 2]\n");
        let out = text(&mut s, "(_, __)\n");
        assert_eq!(out, [Output::Result(Bundle::text("([1, 2], 42)"))]);
        // A user's own `_` does not shift the history; the next result rebinds it.
        text(&mut s, "_ = 'mine'\n");
        let out = text(&mut s, "(_, __, ___)\n");
        assert_eq!(out, [Output::Result(Bundle::text("('mine', [1, 2], 42)"))]);
        let out = text(&mut s, "%who\n");
        assert!(!format!("{out:?}").contains("'_'"), "{out:?}");
    }

    #[test]
    fn big_int_growth_stops_by_the_step_budget() {
        let mut s = Session::default();
        let e = run(&mut s, "x = 1\nwhile True:\n    x = x * 3\n")
            .0
            .unwrap_err();
        assert_eq!(e.ename, "StepBudgetExceeded", "{e:?}");
        let e = run(&mut s, "s = 'ab'\nwhile True:\n    t = s * 100000\n")
            .0
            .unwrap_err();
        assert_eq!(e.ename, "StepBudgetExceeded", "{e:?}");
        let (r, out) = run(&mut s, "x > 10 ** 1000\n");
        r.unwrap();
        assert_eq!(out, [Output::Result(Bundle::text("True"))]);
    }

    #[test]
    fn the_time_limit_stops_a_cell_and_a_later_one_runs() {
        let mut s = Session::default();
        s.config.step_budget = u64::MAX;
        run(&mut s, "%config time_limit_s=1\ny = 1\n").0.unwrap();
        let e = run(&mut s, "while True:\n    pass\n").0.unwrap_err();
        assert_eq!(e.ename, "TimeoutError", "{e:?}");
        assert!(e.evalue.contains("%config time_limit_s"), "{}", e.evalue);
        let (r, out) = run(&mut s, "y + 1\n");
        r.unwrap();
        assert_eq!(out, [Output::Result(Bundle::text("2"))]);
    }

    #[test]
    fn a_command_over_the_memory_budget_stops_cleanly() {
        let mut s = Session::default();
        let f = "def f(a: int, b: int) -> int:\n    if a > b:\n        return a\n    while b > 0:\n        b -= 1\n    return b\n";
        run(&mut s, f).0.unwrap();
        // The kernel holds more than the megabyte it is given.
        run(&mut s, "big = 'x' * 4000000\n").0.unwrap();
        let e = run(&mut s, "%config memory_mb=1\n%constraints f\n")
            .0
            .unwrap_err();
        assert_eq!(e.ename, "MemoryError", "{e:?}");
        assert_eq!(
            e.evalue,
            "%constraints stopped: the kernel used more than 1 MB (%config memory_mb)"
        );
        let (r, out) = run(&mut s, "%config memory_mb=2048\n%constraints f\n");
        r.unwrap();
        assert!(!out.is_empty());
        assert!(s.function("f").is_some());
    }

    #[test]
    fn a_stop_names_its_budget_and_the_command() {
        let cancel = Cancel::new();
        let interrupted = stopped(CellError::interrupted(), &cancel, Some("%set"));
        assert_eq!(interrupted, CellError::interrupted(), "no stop: unchanged");
        let past = Instant::now() - std::time::Duration::from_secs(5);
        let mut config = Config::default();
        config.time_limit_s = 2;
        cancel.arm(config.budget(), past);
        assert!(cancel.is_cancelled());
        let e = stopped(CellError::interrupted(), &cancel, Some("%set"));
        assert_eq!(e.ename, "TimeoutError");
        assert_eq!(
            e.evalue,
            "%set stopped: the cell ran longer than 2 s (%config time_limit_s)"
        );
        let other = CellError::usage("x");
        assert_eq!(stopped(other.clone(), &cancel, None), other);
        cancel.reset();
        cancel.cancel();
        let e = stopped(CellError::interrupted(), &cancel, Some("%set"));
        assert_eq!(e.ename, "KeyboardInterrupt");
    }

    #[test]
    fn ipython_habits_inspect_and_time() {
        let mut s = Session::default();
        let (r, out) = run(
            &mut s,
            "def area(w, h):\n    \"\"\"Width times height.\"\"\"\n    return w * h\narea?\n",
        );
        r.unwrap();
        let text = text_of(&out);
        assert!(text.contains("Signature: area(w, h)"), "{text}");
        assert!(text.contains("Width times height."), "{text}");
        assert!(!text.contains("Source:"), "{text}");
        let (r, out) = run(&mut s, "area??\n");
        r.unwrap();
        assert!(text_of(&out).contains("return w * h"), "{}", text_of(&out));
        let (r, out) = run(&mut s, "nothing_here?\n");
        r.unwrap();
        assert_eq!(text_of(&out), "Object `nothing_here` not found.\n");
        let (r, out) = run(&mut s, "%time x = area(2, 3)\nprint(x)\n");
        r.unwrap();
        let text = text_of(&out);
        assert!(text.starts_with("Wall time: "), "{text}");
        assert!(text.ends_with("6\n"), "{text}");
        let (r, out) = run(&mut s, "%%time\ny = x + 1\nprint(y)\n");
        r.unwrap();
        let text = text_of(&out);
        assert!(
            text.starts_with("7\n") && text.contains("Wall time: "),
            "{text}"
        );
        let (r, out) = run(&mut s, "%timeit area(3, 4)\n");
        r.unwrap();
        let text = text_of(&out);
        assert!(
            text.contains(" per loop (mean ± std. dev. of ") && text.contains(" loop"),
            "{text}"
        );
        let e = run(&mut s, "%time\n").0.unwrap_err();
        assert_eq!(e.ename, "UsageError");
        let e = run(&mut s, "%time 1/0\n").0.unwrap_err();
        assert_eq!(e.ename, "ZeroDivisionError");
    }
}

/// How a progress line names a running command: `%set f`, cut to 60 characters.
fn progress_label(inv: &Invocation) -> String {
    let prefix = if inv.cell { "%%" } else { "%" };
    let mut label = format!("{prefix}{}", inv.name);
    for a in &inv.args {
        label.push(' ');
        label.push_str(a);
    }
    if label.chars().count() > 60 {
        label = label.chars().take(57).collect::<String>() + "...";
    }
    label
}
