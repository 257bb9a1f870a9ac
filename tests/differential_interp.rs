//! Differential test of the concrete interpreter against CPython (`python3`, the oracle):
//! a seeded generator writes random programs over the supported subset, one `python3`
//! process runs the whole batch, and every program's stdout and uncaught exception (type
//! and message) must be identical.
//!
//! `DIFF_CASES=N` sets the number of programs (default 300), `DIFF_SEED=S` the seed,
//! `DIFF_CORPUS=name` compares one corpus file, `DIFF_SHOW=n` prints n discrepancies per file,
//! `DIFF_DUMP=path` writes the programs as a JSON list, `DIFF_FAILURES=dir` each failing
//! case to a file there.

use std::fmt::Write as _;
use std::process::Command;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::interp::{Interpreter, Limits, RunError, Stream};
use analysis_kernel::python::lower_module;
use serde_json::{Value as Json, json};

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// Runs each program with stdout captured and reports its output and exception.
/// A program that runs over 5 s, needs more than 2 GB or prints over 1 MB reports
/// `__resources__` instead. One JSON line per program.
const DRIVER: &str = r#"
import contextlib, io, json, resource, signal, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
class Timeout(BaseException):
    pass
def alarm(signum, frame):
    raise Timeout()
signal.signal(signal.SIGALRM, alarm)
programs = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as results:
    for src in programs:
        buf = io.StringIO()
        error = None
        signal.alarm(5)
        try:
            with contextlib.redirect_stdout(buf):
                exec(compile(src, "<cell>", "exec"), {"__name__": "__main__"})
        except (Timeout, MemoryError):
            error = ["__resources__", ""]
        except BaseException as e:
            error = [type(e).__name__, str(e)]
        signal.alarm(0)
        stdout = buf.getvalue()
        if len(stdout) > 1 << 20:
            stdout, error = "", ["__resources__", ""]
        results.write(json.dumps({"stdout": stdout, "error": error}) + "\n")
"#;

/// Writes one random program.
struct Gen {
    rng: Rng,
    lines: Vec<String>,
    indent: usize,
    ints: Vec<String>,
    floats: Vec<String>,
    strs: Vec<String>,
    lists: Vec<String>,
    /// Functions taking (int, int=default) and returning an int.
    funcs: Vec<String>,
    loops: usize,
    fresh: usize,
}

const STRS: &[&str] = &[
    "''",
    "'a'",
    "'abc'",
    "'hello'",
    "'Hello World'",
    "'  x y  '",
    "'a,b,,c'",
    "'12'",
    "'-7'",
    "'héllo'",
    "('ab' * 3)",
    "'x\\ty'",
    "\"it's\"",
];
const FLOATS: &[&str] = &[
    "0.0", "0.5", "-1.5", "2.25", "1e10", "1e-05", "3.14159", "1e300", "-7.0", "0.1", "2.5",
    "-0.0", "123.456",
];
const EXCEPTIONS: &[&str] = &[
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "ZeroDivisionError",
    "RuntimeError",
    "AssertionError",
    "Exception",
];
const HANDLERS: &[&str] = &[
    "ZeroDivisionError",
    "ArithmeticError",
    "LookupError",
    "IndexError",
    "KeyError",
    "ValueError",
    "TypeError",
    "Exception",
    "(ValueError, TypeError)",
    "(KeyError, ZeroDivisionError)",
    "RuntimeError",
];

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
            lines: Vec::new(),
            indent: 0,
            ints: Vec::new(),
            floats: Vec::new(),
            strs: Vec::new(),
            lists: Vec::new(),
            funcs: Vec::new(),
            loops: 0,
            fresh: 0,
        }
    }

    fn line(&mut self, text: impl AsRef<str>) {
        self.lines
            .push(format!("{}{}", "    ".repeat(self.indent), text.as_ref()));
    }

    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn int_lit(&mut self) -> String {
        match self.rng.below(10) {
            0..=4 => self.rng.range(-10, 10).to_string(),
            5 | 6 => self.rng.range(-1000, 1000).to_string(),
            7 => format!("{}", self.rng.range(-(1 << 40), 1 << 40)),
            8 => format!(
                "(2 ** {} {} {})",
                self.rng.range(60, 130),
                self.rng.pick(&["+", "-"]),
                self.rng.range(0, 9)
            ),
            _ => format!("-(10 ** {})", self.rng.range(15, 25)),
        }
    }

    fn int_atom(&mut self) -> String {
        if !self.ints.is_empty() && self.rng.chance(50) {
            let v = self.rng.pick(&self.ints).clone();
            return v;
        }
        self.int_lit()
    }

    fn small(&mut self) -> String {
        self.rng.range(-4, 6).to_string()
    }

    fn int_expr(&mut self, d: u32) -> String {
        if d == 0 || self.rng.chance(25) {
            return self.int_atom();
        }
        let d = d - 1;
        match self.rng.below(27) {
            0..=2 => {
                let op = *self.rng.pick(&["+", "-", "*"]);
                format!("({} {op} {})", self.int_expr(d), self.int_expr(d))
            }
            3 | 4 => {
                let op = *self.rng.pick(&["//", "%"]);
                format!("({} {op} {})", self.int_expr(d), self.int_expr(d))
            }
            5 => format!("({} ** {})", self.int_atom(), self.rng.range(0, 4)),
            6 => format!(
                "len({})",
                if self.rng.chance(50) {
                    self.str_expr(d)
                } else {
                    self.list_expr(d)
                }
            ),
            7 => format!(
                "{}({})",
                self.rng.pick(&["abs", "-", "~", "+"]),
                self.int_expr(d)
            ),
            8 => format!(
                "{}({}, {})",
                self.rng.pick(&["min", "max"]),
                self.int_expr(d),
                self.int_expr(d)
            ),
            9 => format!(
                "({} if {} else {})",
                self.int_expr(d),
                self.bool_expr(d),
                self.int_expr(d)
            ),
            10 => format!("{}[{}]", self.list_expr(d), self.int_expr(d)),
            11 => {
                let text = *self
                    .rng
                    .pick(&["'12'", "' -7 '", "'x'", "'1_000'", "'4.5'", "''", "'0x1f'"]);
                if self.rng.chance(50) {
                    format!("int({})", self.float_expr(d))
                } else {
                    format!("int({text})")
                }
            }
            12 => {
                let op = *self.rng.pick(&["<<", ">>"]);
                format!("({} {op} {})", self.int_expr(d), self.rng.range(-1, 70))
            }
            13 => {
                let op = *self.rng.pick(&["&", "|", "^"]);
                format!("({} {op} {})", self.int_expr(d), self.int_expr(d))
            }
            14 => format!("sum({})", self.list_expr(d)),
            15 => format!("round({})", self.float_expr(d)),
            16 => {
                let m = *self.rng.pick(&["count", "find", "index", "rfind"]);
                let sub = *self.rng.pick(&["'a'", "'l'", "''", "'b,'", "'xyz'"]);
                format!("{}.{m}({sub})", self.str_expr(d))
            }
            17 => format!(
                "divmod({}, {})[{}]",
                self.int_expr(d),
                self.int_expr(d),
                self.rng.range(0, 1)
            ),
            18 => format!(
                "pow({}, {}, {})",
                self.int_expr(d),
                self.rng.range(-2, 30),
                self.int_expr(d)
            ),
            19 if !self.funcs.is_empty() => {
                let f = self.rng.pick(&self.funcs).clone();
                match self.rng.below(5) {
                    0 => format!("{f}({})", self.int_expr(d)),
                    1 => format!("{f}({}, {})", self.int_expr(d), self.int_expr(d)),
                    2 => format!("{f}(b={}, a={})", self.int_expr(d), self.int_expr(d)),
                    3 => format!("{f}({}, b={})", self.int_expr(d), self.int_expr(d)),
                    _ => format!("{f}()"),
                }
            }
            20 => format!("{}.index({})", self.list_expr(d), self.int_atom()),
            21 => format!(
                "sum(v * v for v in {} if v {} {})",
                self.list_expr(d),
                self.rng.pick(&["<", ">", "!="]),
                self.int_atom()
            ),
            22 => format!("max((v % 7 for v in {}), default=-1)", self.list_expr(d)),
            23 => format!(
                "min({}, key=lambda v: abs(v - {}))",
                self.list_expr(d),
                self.int_atom()
            ),
            24 => format!(
                "len(dict(zip({}, {})))",
                self.strlist_expr(d),
                self.list_expr(d)
            ),
            25 => format!(
                "[v for _, v in enumerate({}, {})][{}]",
                self.list_expr(d),
                self.small(),
                self.small()
            ),
            _ => format!("(lambda v, w=2: v * w - 1)({})", self.int_expr(d)),
        }
    }

    fn float_atom(&mut self) -> String {
        if !self.floats.is_empty() && self.rng.chance(50) {
            return self.rng.pick(&self.floats).clone();
        }
        if self.rng.chance(30) {
            return self.random_float();
        }
        self.rng.pick(FLOATS).to_string()
    }

    /// Any finite float of moderate size, as its shortest literal.
    fn random_float(&mut self) -> String {
        loop {
            let f = f64::from_bits(self.rng.next());
            if f.is_finite() && (f == 0.0 || (1e-30..1e30).contains(&f.abs())) {
                return if f < 0.0 {
                    format!("({f:?})")
                } else {
                    format!("{f:?}")
                };
            }
        }
    }

    fn float_expr(&mut self, d: u32) -> String {
        if d == 0 || self.rng.chance(30) {
            return self.float_atom();
        }
        let d = d - 1;
        match self.rng.below(9) {
            0 => format!("({} / {})", self.int_expr(d), self.int_expr(d)),
            1 | 2 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "//", "%"]);
                format!(
                    "({} {op} {})",
                    self.float_expr(d),
                    if self.rng.chance(50) {
                        self.float_expr(d)
                    } else {
                        self.int_expr(d)
                    }
                )
            }
            3 => format!("float({})", self.int_expr(d)),
            4 => format!("round({}, {})", self.float_expr(d), self.rng.range(-2, 4)),
            5 => format!("abs({}) ** 0.5", self.float_expr(d)),
            6 => format!("({} ** {})", self.float_expr(d), self.rng.range(-2, 3)),
            7 => format!(
                "float({})",
                self.rng
                    .pick(&["'1.5'", "' -2e3 '", "'inf'", "'nan'", "'x'", "'1_0.5'"])
            ),
            _ => format!(
                "({} if {} else {})",
                self.float_expr(d),
                self.bool_expr(d),
                self.float_expr(d)
            ),
        }
    }

    fn str_expr(&mut self, d: u32) -> String {
        if d == 0 || self.rng.chance(30) {
            if !self.strs.is_empty() && self.rng.chance(50) {
                return self.rng.pick(&self.strs).clone();
            }
            return self.rng.pick(STRS).to_string();
        }
        let d = d - 1;
        match self.rng.below(24) {
            16 => format!(
                "{}.{}({}, {})",
                self.str_expr(d),
                self.rng.pick(&["split", "rsplit"]),
                self.rng.pick(&["None", "','", "' '", "'l'", "''"]),
                self.rng.range(-1, 2)
            ),
            17 => format!(
                "{}.{}({})",
                self.str_expr(d),
                self.rng.pick(&["strip", "lstrip", "rstrip"]),
                self.rng.pick(&["'ab'", "' x'", "None", "'lo'"])
            ),
            18 => format!(
                "str({}.{}({}))",
                self.str_expr(d),
                self.rng.pick(&["partition", "rpartition"]),
                self.rng.pick(&["','", "'l'", "' '", "''"])
            ),
            19 => format!(
                "str({}.{}({}, {}, {}))",
                self.str_expr(d),
                self.rng
                    .pick(&["find", "rfind", "count", "index", "startswith"]),
                self.rng.pick(STRS),
                self.small(),
                self.small()
            ),
            20 => format!(
                "str({}.{}())",
                self.str_expr(d),
                self.rng.pick(&[
                    "isalpha",
                    "isdigit",
                    "isspace",
                    "isupper",
                    "islower",
                    "istitle",
                    "isalnum",
                    "splitlines"
                ])
            ),
            21 => format!("str({})", self.any_expr(d)),
            22 => format!(
                "'%s|%r|%5.1f|%-6s|%03d' % ({}, {}, {}, {}, {})",
                self.any_expr(d),
                self.str_expr(d),
                self.float_expr(d),
                self.any_expr(d),
                self.int_expr(d)
            ),
            23 => format!(
                "'{{0}}-{{1!r}}-{{0:>4}}'.format({}, {})",
                self.int_expr(d),
                self.str_expr(d)
            ),
            0 => format!("({} + {})", self.str_expr(d), self.str_expr(d)),
            1 => format!("({} * {})", self.str_expr(d), self.rng.range(-1, 3)),
            2 => format!("{}[{}]", self.str_expr(d), self.int_expr(d)),
            3 => {
                let parts: Vec<String> = (0..3)
                    .map(|_| {
                        if self.rng.chance(60) {
                            self.small()
                        } else {
                            String::new()
                        }
                    })
                    .collect();
                let step = if self.rng.chance(50) {
                    format!(":{}", parts[2])
                } else {
                    String::new()
                };
                format!("{}[{}:{}{step}]", self.str_expr(d), parts[0], parts[1])
            }
            4 => format!("str({})", self.any_expr(d)),
            5 => format!("repr({})", self.any_expr(d)),
            6 => {
                let m = *self.rng.pick(&[
                    "upper",
                    "lower",
                    "strip",
                    "title",
                    "capitalize",
                    "swapcase",
                    "lstrip",
                    "rstrip",
                ]);
                format!("{}.{m}()", self.str_expr(d))
            }
            7 => format!(
                "{}.replace({}, {})",
                self.str_expr(d),
                self.rng.pick(STRS),
                self.rng.pick(STRS)
            ),
            8 => format!(
                "{}.join({})",
                self.rng.pick(&["'-'", "''", "', '"]),
                self.strlist_expr(d)
            ),
            9 => self.fstring(),
            10 => format!(
                "'%d|%5s|%-4d|%.2f|%x' % ({}, {}, {}, {}, {})",
                self.int_expr(d),
                self.str_expr(d),
                self.int_expr(d),
                self.float_expr(d),
                self.int_expr(d)
            ),
            11 => format!(
                "{}.{}({}, '*')",
                self.str_expr(d),
                self.rng.pick(&["center", "ljust", "rjust"]),
                self.rng.range(-1, 12)
            ),
            12 => format!("{}.zfill({})", self.str_expr(d), self.rng.range(0, 8)),
            13 => format!(
                "'{{}} and {{}}'.format({}, {})",
                self.any_expr(d),
                self.any_expr(d)
            ),
            14 => format!(
                "({} if {} else {})",
                self.str_expr(d),
                self.bool_expr(d),
                self.str_expr(d)
            ),
            _ => format!("str({})", self.float_expr(d)),
        }
    }

    fn fstring(&mut self) -> String {
        let int_specs = [
            "", ">6", "<4", "^7", "+d", "05", ",", "x", "#b", "_", "e", ".2f", "=+8", "*^9",
        ];
        let float_specs = [
            "", ".3f", ".2e", "g", ".3g", "10.2f", "+.1f", "%", ".0f", "<8.1f", ",.2f", "e", ".4",
        ];
        let str_specs = ["", ">6", "<4", "^5", ".2", "*>5"];
        let mut parts = String::from("f'");
        for _ in 0..self.rng.range(1, 3) {
            // Fields are names and numbers: CPython 3.11 allows no quotes or backslashes there.
            let (e, spec) = match self.rng.below(4) {
                0 => (self.int_atom(), self.rng.pick(&int_specs).to_string()),
                1 => (self.float_atom(), self.rng.pick(&float_specs).to_string()),
                2 => (
                    self.rng.pick(&self.strs).clone(),
                    self.rng.pick(&str_specs).to_string(),
                ),
                _ => (self.int_atom(), self.rng.pick(&float_specs).to_string()),
            };
            let conv = if self.rng.chance(10) { "!r" } else { "" };
            let spec = if spec.is_empty() {
                String::new()
            } else {
                format!(":{spec}")
            };
            let _ = write!(parts, "[{{{e}{conv}{spec}}}]");
        }
        parts.push('\'');
        parts
    }

    fn bool_expr(&mut self, d: u32) -> String {
        let d = d.saturating_sub(1);
        match self.rng.below(11) {
            0 | 1 => {
                let ops = ["<", "<=", ">", ">=", "==", "!="];
                let (a, b, c) = (self.int_expr(d), self.int_expr(d), self.float_expr(d));
                if self.rng.chance(40) {
                    format!(
                        "({a} {} {b} {} {c})",
                        self.rng.pick(&ops),
                        self.rng.pick(&ops)
                    )
                } else {
                    format!("({a} {} {b})", self.rng.pick(&ops))
                }
            }
            2 => format!(
                "({} {} {})",
                self.str_expr(d),
                self.rng.pick(&["<", "==", ">=", "!="]),
                self.str_expr(d)
            ),
            3 => format!(
                "({} {} {})",
                self.int_atom(),
                self.rng.pick(&["in", "not in"]),
                self.list_expr(d)
            ),
            4 => format!("({} in {})", self.rng.pick(STRS), self.str_expr(d)),
            5 => format!("(not {})", self.any_expr(d)),
            6 => format!(
                "({} {} {})",
                self.any_expr(d),
                self.rng.pick(&["and", "or"]),
                self.any_expr(d)
            ),
            7 => format!(
                "isinstance({}, {})",
                self.any_expr(d),
                self.rng
                    .pick(&["int", "str", "(float, bool)", "list", "tuple"])
            ),
            8 => format!(
                "{}.{}({})",
                self.str_expr(d),
                self.rng.pick(&["startswith", "endswith"]),
                self.rng.pick(STRS)
            ),
            9 => format!(
                "{}({})",
                self.rng.pick(&["any", "all", "bool"]),
                self.list_expr(d)
            ),
            _ => format!(
                "({} {} {})",
                self.list_expr(d),
                self.rng.pick(&["<", "==", ">"]),
                self.list_expr(d)
            ),
        }
    }

    fn list_expr(&mut self, d: u32) -> String {
        if d == 0 || self.rng.chance(25) {
            if !self.lists.is_empty() && self.rng.chance(60) {
                return self.rng.pick(&self.lists).clone();
            }
            let n = self.rng.range(0, 4);
            let items: Vec<String> = (0..n).map(|_| self.int_lit()).collect();
            return format!("[{}]", items.join(", "));
        }
        let d = d - 1;
        match self.rng.below(12) {
            0 => format!("({} + {})", self.list_expr(d), self.list_expr(d)),
            1 => format!("({} * {})", self.list_expr(d), self.rng.range(-1, 3)),
            2 => {
                let a = self.small();
                let b = self.small();
                format!("{}[{a}:{b}:{}]", self.list_expr(d), self.rng.range(-3, 3))
            }
            3 => format!(
                "sorted({}{})",
                self.list_expr(d),
                if self.rng.chance(30) {
                    ", reverse=True"
                } else {
                    ""
                }
            ),
            4 => format!(
                "list(range({}, {}, {}))",
                self.small(),
                self.rng.range(-6, 12),
                self.rng.range(-3, 3)
            ),
            5 => format!(
                "[v * {} for v in {} if v % {} != 0]",
                self.small(),
                self.list_expr(d),
                self.rng.range(1, 3)
            ),
            6 => format!("list(reversed({}))", self.list_expr(d)),
            7 => format!("{}[::-1]", self.list_expr(d)),
            8 => format!("sorted({}, key=lambda v: (v % 3, -v))", self.list_expr(d)),
            9 => format!(
                "list(map(lambda v: v - {}, {}))",
                self.small(),
                self.list_expr(d)
            ),
            10 => format!(
                "[i * j for i in range({}) for j in range(i)]",
                self.rng.range(0, 4)
            ),
            _ => format!("[{}, {}]", self.int_expr(d), self.int_expr(d)),
        }
    }

    /// A list display of literals (lists grow only by these, so loops stay small).
    fn list_lit(&mut self) -> String {
        let n = self.rng.range(0, 3);
        let items: Vec<String> = (0..n).map(|_| self.int_lit()).collect();
        format!("[{}]", items.join(", "))
    }

    fn strlist_expr(&mut self, d: u32) -> String {
        match self.rng.below(5) {
            0 => format!("{}.split()", self.str_expr(d)),
            1 => format!("{}.split(',')", self.str_expr(d)),
            2 => format!("list({})", self.str_expr(d)),
            3 => format!("sorted({})", self.str_expr(d)),
            _ => format!("[str(v) for v in {}]", self.list_expr(d)),
        }
    }

    fn any_expr(&mut self, d: u32) -> String {
        match self.rng.below(9) {
            0 | 1 => self.int_expr(d),
            2 => self.float_expr(d),
            3 => self.str_expr(d),
            4 => self.list_expr(d),
            5 => self.bool_expr(d),
            6 => format!("({}, {})", self.int_expr(d), self.str_expr(d)),
            7 => "None".into(),
            _ => format!(
                "{{{}: {}, 'k': {}}}",
                self.int_atom(),
                self.str_expr(d),
                self.list_expr(d)
            ),
        }
    }

    fn guarded(&mut self, stmt: String) {
        self.line("try:");
        self.indent += 1;
        self.line(stmt);
        self.indent -= 1;
        self.line("except Exception as e:");
        self.indent += 1;
        self.line("print('!', type(e).__name__, e)");
        self.indent -= 1;
    }

    fn probe(&mut self) {
        let e = match self.rng.below(6) {
            0 | 1 => self.int_expr(3),
            2 => self.float_expr(3),
            3 => self.str_expr(3),
            4 => self.bool_expr(3),
            _ => self.list_expr(3),
        };
        let stmt = if self.rng.chance(20) {
            format!("print(repr({e}))")
        } else {
            format!("print({e})")
        };
        self.guarded(stmt);
    }

    fn stmt(&mut self, depth: u32) {
        let choice = self.rng.below(if depth == 0 { 10 } else { 26 });
        match choice {
            0..=3 => self.probe(),
            4 => {
                if !self.ints.is_empty() && self.rng.chance(70) {
                    // Reduced, so repeated assignments in loops cannot grow without bound.
                    let target = self.rng.pick(&self.ints).clone();
                    let e = self.int_expr(2);
                    let m = *self
                        .rng
                        .pick(&["7", "1000", "2 ** 64", "-97", "-(2 ** 40)"]);
                    self.guarded(format!("{target} = ({e}) % ({m})"));
                } else {
                    let v = self.name("x");
                    let e = self.int_lit();
                    self.line(format!("{v} = {e}"));
                    self.ints.push(v);
                }
            }
            5 if !self.ints.is_empty() => {
                let v = self.rng.pick(&self.ints).clone();
                let op = *self.rng.pick(&["+=", "-=", "//=", "%=", "|=", "^=", "&="]);
                let e = self.int_expr(2);
                self.guarded(format!("{v} {op} {e}"));
            }
            6 if !self.lists.is_empty() => {
                let l = self.rng.pick(&self.lists).clone();
                let stmt = match self.rng.below(10) {
                    0 => format!("{l}.append({})", self.int_expr(2)),
                    1 => format!("print({l}.pop())"),
                    2 => format!("{l}[{}] = {}", self.small(), self.int_expr(1)),
                    3 => format!(
                        "{l}[{}:{}] = {}",
                        self.small(),
                        self.small(),
                        self.list_lit()
                    ),
                    4 => format!("del {l}[{}]", self.small()),
                    5 => format!("{l}.sort(reverse={})", self.rng.pick(&["True", "False"])),
                    6 => format!("{l}.insert({}, {})", self.small(), self.int_atom()),
                    7 => format!("{l} += {}", self.list_lit()),
                    8 => format!("print({l}.pop({}))", self.small()),
                    _ => format!("{l}.extend(range({}))", self.rng.range(0, 3)),
                };
                self.guarded(stmt);
                self.line(format!("print({l})"));
            }
            7 => {
                let v = self.name("s");
                let e = self.rng.pick(STRS).to_string();
                self.line(format!("{v} = {e}"));
                self.strs.push(v);
            }
            8 => {
                let v = self.name("l");
                let e = self.list_expr(1);
                self.line(format!("{v} = []"));
                self.guarded(format!("{v} = {e}"));
                self.lists.push(v);
            }
            9 => {
                let v = self.name("f");
                let e = self.rng.pick(FLOATS).to_string();
                self.line(format!("{v} = {e}"));
                self.floats.push(v);
            }
            10 | 11 => {
                let test = self.bool_expr(2);
                self.line(format!("if {test}:"));
                self.block(depth - 1);
                if self.rng.chance(40) {
                    let t = self.bool_expr(2);
                    self.line(format!("elif {t}:"));
                    self.block(depth - 1);
                }
                if self.rng.chance(50) {
                    self.line("else:");
                    self.block(depth - 1);
                }
            }
            12 | 13 => self.for_loop(depth),
            14 => self.while_loop(depth),
            15 | 16 => self.try_stmt(depth),
            17 if self.loops > 0 => {
                let t = self.bool_expr(1);
                let kw = *self.rng.pick(&["break", "continue"]);
                self.line(format!("if {t}:"));
                self.indent += 1;
                self.line(kw);
                self.indent -= 1;
            }
            18 => {
                let ints = self.ints.clone();
                let d = format!("d{}", self.fresh);
                self.fresh += 1;
                self.line(format!("{d} = {{}}"));
                let src = self.str_expr(1);
                self.guarded(format!("{d} = {{w: len(w) for w in {src}.split()}}"));
                let text = format!("for w in {}.split(','):", self.rng.pick(STRS));
                self.line(text);
                self.indent += 1;
                self.line(format!("{d}[w] = {d}.get(w, 0) + 1"));
                self.indent -= 1;
                self.line(format!(
                    "print({d}, sorted({d}.items()), list({d}.values()))"
                ));
                let key = self.rng.pick(STRS).to_string();
                self.guarded(format!("print({d}[{key}], {d}.pop({key}), {d})"));
                self.ints = ints;
            }
            19 => {
                let l = self.list_expr(1);
                let stmt = match self.rng.below(3) {
                    0 => format!("a, *b = {l}; print(a, b)"),
                    1 => format!("a, b = {l}; print(a, b)"),
                    _ => format!("*a, b, c = {l}; print(a, b, c)"),
                };
                self.guarded(stmt);
            }
            20 => self.exception_class(),
            21 => {
                let e = self.any_expr(2);
                let sep = *self
                    .rng
                    .pick(&["", ", sep='-'", ", end='|\\n'", ", sep=''"]);
                let text = format!("print({e}, {}{sep})", self.any_expr(1));
                self.guarded(text);
            }
            22 => {
                let f = self.name("kw");
                let text = format!("def {f}(a, *rest, key={}, **extra):", self.small());
                self.line(text);
                self.indent += 1;
                self.line("return (a, rest, key, sorted(extra.items()))");
                self.indent -= 1;
                let call = match self.rng.below(6) {
                    0 => format!("{f}(1, 2, 3, key=4, z=5)"),
                    1 => format!("{f}()"),
                    2 => format!("{f}(*{}, key=0)", self.list_expr(1)),
                    3 => format!("{f}(a=1, rest=2)"),
                    4 => format!("{f}(1, **{{'key': 2, 'q': 3}})"),
                    _ => format!("{f}(1, key=2, key2=3)"),
                };
                self.guarded(format!("print({call})"));
            }
            23 => {
                let fs = self.name("fs");
                self.line(format!("{fs} = []"));
                let text = format!("for q in range({}):", self.rng.range(0, 4));
                self.line(text);
                self.indent += 1;
                let text = format!("{fs}.append(lambda x, q=q: x * q + {})", self.small());
                self.line(text);
                self.line(format!("{fs}.append(lambda x: x - q)"));
                self.indent -= 1;
                let text = format!("print([f({}) for f in {fs}])", self.int_atom());
                self.guarded(text);
            }
            _ => self.probe(),
        }
    }

    /// A user exception class raised and caught through the hierarchy.
    fn exception_class(&mut self) {
        let c = self.name("Err");
        let base = *self.rng.pick(&[
            "Exception",
            "ValueError",
            "LookupError",
            "ArithmeticError",
            "KeyError",
        ]);
        self.line(format!("class {c}({base}):"));
        self.indent += 1;
        self.line("pass");
        self.indent -= 1;
        let handler = *self.rng.pick(&[
            "Exception",
            "ValueError",
            "LookupError",
            "ArithmeticError",
            "KeyError",
            "IndexError",
        ]);
        let arg = self.rng.pick(STRS).to_string();
        self.line("try:");
        self.indent += 1;
        self.line(format!("raise {c}({arg})"));
        self.indent -= 1;
        self.line(format!("except {handler} as e:"));
        self.indent += 1;
        self.line("print(type(e).__name__, repr(e), str(e), isinstance(e, Exception))");
        self.indent -= 1;
        self.line("except BaseException as e:");
        self.indent += 1;
        self.line("print('base', type(e).__name__)");
        self.indent -= 1;
    }

    fn block(&mut self, depth: u32) {
        self.indent += 1;
        let n = self.rng.range(1, 3);
        for _ in 0..n {
            self.stmt(depth);
        }
        self.indent -= 1;
    }

    fn for_loop(&mut self, depth: u32) {
        let v = self.name("i");
        let iterable = match self.rng.below(if self.loops > 0 { 1 } else { 4 }) {
            0 if self.loops > 0 => format!("range({})", self.rng.range(0, 3)),
            0 => format!(
                "range({}, {}, {})",
                self.small(),
                self.rng.range(-5, 10),
                *self.rng.pick(&["1", "2", "-1", "3"])
            ),
            1 => self.list_expr(1),
            2 => format!("enumerate({})", self.list_expr(1)),
            _ => format!("range({})", self.rng.range(0, 6)),
        };
        let target = if iterable.starts_with("enumerate") {
            format!("_, {v}")
        } else {
            v.clone()
        };
        self.guarded_for(&target, &iterable, &v, depth);
    }

    fn guarded_for(&mut self, target: &str, iterable: &str, v: &str, depth: u32) {
        self.line("try:");
        self.indent += 1;
        self.line(format!("for {target} in {iterable}:"));
        self.ints.push(v.to_string());
        self.loops += 1;
        self.block(depth - 1);
        self.loops -= 1;
        self.ints.pop();
        if self.rng.chance(40) {
            self.line("else:");
            self.indent += 1;
            let text = format!("print('for-else', {})", self.int_atom());
            self.line(text);
            self.indent -= 1;
        }
        self.indent -= 1;
        self.line("except Exception as e:");
        self.indent += 1;
        self.line("print('!', type(e).__name__, e)");
        self.indent -= 1;
    }

    fn while_loop(&mut self, depth: u32) {
        let k = self.name("k");
        let n = self.rng.range(0, if self.loops > 0 { 2 } else { 6 });
        self.line(format!("{k} = 0"));
        self.line(format!("while {k} < {n}:"));
        self.indent += 1;
        self.line(format!("{k} += 1"));
        self.indent -= 1;
        // The counter stays out of `ints`: assigning it in the body could loop forever.
        self.loops += 1;
        self.block(depth - 1);
        self.loops -= 1;
        if self.rng.chance(40) {
            self.line("else:");
            self.indent += 1;
            self.line(format!("print('while-else', {k})"));
            self.indent -= 1;
        }
    }

    fn raise_stmt(&mut self) -> String {
        let exc = *self.rng.pick(EXCEPTIONS);
        match self.rng.below(4) {
            0 => format!("raise {exc}"),
            1 => format!("raise {exc}({})", self.rng.pick(STRS)),
            2 => format!("raise {exc}({}, {})", self.int_lit(), self.rng.pick(STRS)),
            _ => format!("assert {}, {}", self.bool_expr(1), self.rng.pick(STRS)),
        }
    }

    /// A `try` statement, itself inside a guard that reports what escapes it.
    fn try_stmt(&mut self, depth: u32) {
        self.line("try:");
        self.indent += 1;
        self.line("try:");
        self.indent += 1;
        if self.rng.chance(60) {
            let r = self.raise_stmt();
            let t = self.bool_expr(1);
            self.line(format!("if {t}:"));
            self.indent += 1;
            self.line(r);
            self.indent -= 1;
        }
        let e = self.int_expr(2);
        self.line(format!("print('body', {e})"));
        self.indent -= 1;
        let handlers = self.rng.range(0, 2);
        for _ in 0..handlers {
            let h = *self.rng.pick(HANDLERS);
            self.line(format!("except {h} as err:"));
            self.indent += 1;
            self.line("print('caught', type(err).__name__, err, err.args)");
            if self.rng.chance(20) {
                self.line("raise");
            }
            self.indent -= 1;
        }
        if handlers > 0 && self.rng.chance(40) {
            self.line("else:");
            self.block(depth - 1);
        }
        if handlers == 0 || self.rng.chance(50) {
            self.line("finally:");
            self.indent += 1;
            self.line("print('finally')");
            self.indent -= 1;
        }
        self.indent -= 1;
        self.line("except Exception as e:");
        self.indent += 1;
        self.line("print('outer', type(e).__name__, e)");
        self.indent -= 1;
    }

    fn functions(&mut self) {
        // f(a, b=k): an int function with branches.
        let f = self.name("fn");
        let default = self.small();
        self.line(format!("def {f}(a, b={default}):"));
        self.indent += 1;
        let saved = std::mem::replace(&mut self.ints, vec!["a".into(), "b".into()]);
        let funcs = std::mem::take(&mut self.funcs);
        let t = self.bool_expr(1);
        self.line(format!("if {t}:"));
        self.indent += 1;
        let e = self.int_expr(2);
        self.line(format!("return {e}"));
        self.indent -= 1;
        let e = self.int_expr(2);
        self.line(format!("return {e}"));
        self.indent -= 1;
        self.ints = saved;
        self.funcs = funcs;
        self.funcs.push(f);

        // A bounded recursion.
        let r = self.name("rec");
        let base = self.small();
        let op = *self.rng.pick(&["+", "*", "-", "//"]);
        let k = self.rng.range(1, 3);
        self.line(format!("def {r}(n, acc=0):"));
        self.indent += 1;
        self.line("if n <= 0:");
        self.indent += 1;
        self.line(format!("return acc + {base}"));
        self.indent -= 1;
        self.line(format!("return {r}(n - {k}, acc {op} n) + n % 3"));
        self.indent -= 1;
        let n = self.rng.range(-2, 40);
        self.guarded(format!("print({r}({n}))"));

        // try/finally interplay inside a function.
        let g = self.name("g");
        self.line(format!("def {g}(x):"));
        self.indent += 1;
        self.line("for j in range(3):");
        self.indent += 1;
        self.line("try:");
        self.indent += 1;
        let text = format!("if x > {}:", self.small());
        self.line(text);
        self.indent += 1;
        let r = self.raise_stmt();
        self.line(r);
        self.indent -= 1;
        let text = format!("if j == {}:", self.rng.range(0, 2));
        self.line(text);
        self.indent += 1;
        let text = format!("{}", self.rng.pick(&["return j * 10", "break", "continue"]));
        self.line(text);
        self.indent -= 1;
        self.indent -= 1;
        let text = format!("except {} as e:", self.rng.pick(HANDLERS));
        self.line(text);
        self.indent += 1;
        self.line("print('g caught', type(e).__name__, e)");
        let text = format!("{}", self.rng.pick(&["return -1", "pass", "raise"]));
        self.line(text);
        self.indent -= 1;
        self.line("finally:");
        self.indent += 1;
        self.line("print('g finally', j)");
        if self.rng.chance(25) {
            let text = format!("{}", self.rng.pick(&["return 99", "continue", "break"]));
            self.line(text);
        }
        self.indent -= 1;
        self.indent -= 1;
        self.line("return 'end'");
        self.indent -= 1;
        for _ in 0..2 {
            let x = self.rng.range(-3, 8);
            self.guarded(format!("print({g}({x}))"));
        }

        // A closure with a nonlocal counter.
        let c = self.name("counter");
        self.line(format!("def {c}(start):"));
        self.indent += 1;
        self.line("n = start");
        self.line("def inc(k=1):");
        self.indent += 1;
        self.line("nonlocal n");
        self.line("n += k");
        self.line("return n");
        self.indent -= 1;
        self.line("return inc");
        self.indent -= 1;
        let start = self.int_lit();
        let (a, b) = (self.small(), self.small());
        self.guarded(format!(
            "inc = {c}({start}); print(inc(), inc({a}), inc(k={b}))"
        ));
    }

    fn program(mut self) -> String {
        let n_ints = self.rng.range(1, 3);
        for _ in 0..n_ints {
            let v = self.name("x");
            let e = self.int_lit();
            self.line(format!("{v} = {e}"));
            self.ints.push(v);
        }
        let s = self.name("s");
        let e = self.rng.pick(STRS).to_string();
        self.line(format!("{s} = {e}"));
        self.strs.push(s);
        let l = self.name("l");
        let items: Vec<String> = (0..self.rng.range(0, 5)).map(|_| self.int_lit()).collect();
        self.line(format!("{l} = [{}]", items.join(", ")));
        self.lists.push(l);
        if self.rng.chance(60) {
            self.functions();
        }
        let n = self.rng.range(4, 12);
        for _ in 0..n {
            self.stmt(3);
        }
        if self.rng.chance(30) {
            // An unguarded ending: its exception, if any, ends the program.
            let e = self.any_expr(3);
            self.line(format!("print({e})"));
        }
        let mut text = self.lines.join("\n");
        text.push('\n');
        text
    }
}

/// What a program printed and how it ended.
#[derive(Debug, PartialEq)]
struct Observed {
    stdout: String,
    error: Option<(String, String)>,
}

fn run_ours(src: &str) -> Result<Observed, String> {
    let module = lower_module(src).map_err(|e| format!("lowering failed: {e}"))?;
    let mut stdout = String::new();
    let result = Interpreter::new().run_module(
        &module,
        &mut |s, t| {
            if s == Stream::Stdout {
                stdout.push_str(t);
            }
        },
        &Cancel::new(),
        Limits::new(10_000_000, 500),
    );
    match result {
        Ok(_) => Ok(Observed {
            stdout,
            error: None,
        }),
        Err(RunError::Exception(e)) => Ok(Observed {
            stdout,
            error: Some((e.type_name, e.message)),
        }),
        Err(other) => Err(format!("{stdout}\n!! interpreter stopped: {other}")),
    }
}

fn run_cpython(programs: &[String]) -> Vec<Observed> {
    static BATCH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let batch = BATCH.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!(
        "differential_interp_{}_{batch}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (driver, input, output) = (
        dir.join("driver.py"),
        dir.join("in.json"),
        dir.join("out.json"),
    );
    std::fs::write(&driver, DRIVER).expect("write driver");
    std::fs::write(&input, json!(programs).to_string()).expect("write programs");
    let status = Command::new("python3")
        .arg(&driver)
        .arg(&input)
        .arg(&output)
        .env("PYTHONHASHSEED", "0")
        .status()
        .expect("python3 runs");
    assert!(status.success(), "the CPython driver failed");
    let text = std::fs::read_to_string(&output).expect("read results");
    let _ = std::fs::remove_dir_all(&dir);
    text.lines()
        .map(|l| serde_json::from_str::<Json>(l).expect("a JSON line"))
        .map(|r| Observed {
            stdout: r["stdout"].as_str().unwrap_or_default().to_string(),
            error: r["error"].as_array().map(|e| {
                (
                    e[0].as_str().unwrap_or_default().to_string(),
                    e[1].as_str().unwrap_or_default().to_string(),
                )
            }),
        })
        .collect()
}

/// The first line where two runs differ, with the lines before it.
fn first_difference(want: &Observed, got: &Observed) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) =
        (want.stdout.lines().collect(), got.stdout.lines().collect());
    let k = w.iter().zip(&g).take_while(|(a, b)| a == b).count();
    let context = w[k.saturating_sub(3)..k].join("\n");
    format!(
        "output line {}; before it:\n{context}\n--- CPython: {:?} ... error {:?}\n--- interpreter: {:?} ... error {:?}",
        k + 1,
        w.get(k),
        want.error,
        g.get(k),
        got.error
    )
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Programs that differ, and (skipped, output lines, exceptions) seen.
fn compare(programs: &[String]) -> (Vec<String>, [usize; 3]) {
    let expected = run_cpython(programs);
    assert_eq!(expected.len(), programs.len());
    let mut failures = Vec::new();
    let mut counts = [0usize; 3];
    for (i, (src, want)) in programs.iter().zip(&expected).enumerate() {
        if want
            .error
            .as_ref()
            .is_some_and(|(t, _)| t == "__resources__")
        {
            counts[0] += 1;
            continue;
        }
        counts[1] += want.stdout.lines().count();
        counts[2] += want.stdout.matches("! ").count() + usize::from(want.error.is_some());
        match run_ours(src) {
            Ok(got) if got == *want => {}
            Ok(got) => failures.push(format!(
                "case {i}:\n{src}\n{}",
                first_difference(want, &got)
            )),
            Err(e) => failures.push(format!(
                "case {i}:\n{src}\n--- CPython\n{}{:?}\n--- interpreter\n{e}",
                want.stdout, want.error
            )),
        }
    }
    if let Ok(dir) = std::env::var("DIFF_FAILURES") {
        for (k, f) in failures.iter().enumerate() {
            let _ = std::fs::write(format!("{dir}/failure_{k}.txt"), f);
        }
    }
    (failures, counts)
}

fn report(failures: &[String], total: usize) {
    if !failures.is_empty() {
        let shown: Vec<&str> = failures.iter().take(3).map(String::as_str).collect();
        panic!(
            "{} of {total} programs differ from CPython; first ones:\n{}",
            failures.len(),
            shown.join("\n\n")
        );
    }
}

#[test]
fn interpreter_agrees_with_cpython() {
    let cases = env_number("DIFF_CASES", 300) as usize;
    let seed = env_number("DIFF_SEED", 20_240_611);
    let programs: Vec<String> = (0..cases)
        .map(|i| Gen::new(seed.wrapping_mul(1_000_003).wrapping_add(i as u64)).program())
        .collect();
    if let Ok(path) = std::env::var("DIFF_DUMP") {
        std::fs::write(&path, json!(programs).to_string()).expect("write DIFF_DUMP");
    }
    let (failures, [skipped, lines, raised]) = compare(&programs);
    println!(
        "{cases} programs (seed {seed}), {skipped} skipped (CPython over 5 s, 2 GB or 1 MB of output), {lines} output lines, {raised} exceptions observed; {} discrepancies",
        failures.len()
    );
    assert!(
        skipped * 20 <= cases,
        "too many programs exceed CPython's resources: {skipped}"
    );
    report(&failures, cases);
}

/// The programs of a corpus file: each `#### name` line starts one.
fn corpus_programs(corpus: &str) -> Vec<String> {
    corpus
        .split("\n#### ")
        .skip(1)
        .map(|case| {
            case.split_once('\n')
                .map_or("", |(_, body)| body)
                .to_string()
        })
        .collect()
}

/// Every corpus file of `tests/fixtures/interp/` (one per feature area, same `#### name`
/// format), each compared with CPython on its own so a failure names its file.
#[test]
fn fixture_corpora_agree_with_cpython() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/interp");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/interp")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "py"))
        .collect();
    files.sort();
    // `DIFF_CORPUS=re` compares only `re.py` (while working on one area)
    if let Ok(only) = std::env::var("DIFF_CORPUS") {
        files.retain(|f| f.file_stem().is_some_and(|s| s == only.as_str()));
    }
    assert!(!files.is_empty(), "no corpus in {}", dir.display());
    let mut failed = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("corpus file");
        let programs = corpus_programs(&text);
        assert!(
            !programs.is_empty(),
            "{} has no `#### ` programs",
            file.display()
        );
        let (failures, [skipped, lines, _]) = compare(&programs);
        println!(
            "{}: {} programs, {lines} output lines, {skipped} skipped; {} discrepancies",
            file.display(),
            programs.len(),
            failures.len()
        );
        if skipped > 0 || !failures.is_empty() {
            failed.push(file.display().to_string());
            // `DIFF_SHOW=n` prints n discrepancies per file (3 by default)
            let show = std::env::var("DIFF_SHOW")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(3);
            for failure in failures.iter().take(show) {
                println!("{failure}\n");
            }
        }
    }
    assert!(
        failed.is_empty(),
        "corpus files that disagree with CPython: {failed:?}"
    );
}

/// The standard-library modules the interpreter provides (in whole or in part).
const STDLIB_MODULES: &[&str] = &[
    "abc",
    "bisect",
    "collections",
    "contextlib",
    "copy",
    "dataclasses",
    "enum",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "sys",
    "typing",
];

/// Every public name of CPython's module (`dir(m)`) that `from m import name` accepts is
/// also the attribute `m.name`: the program prints each name where the two disagree.
#[test]
fn module_attributes_match_from_imports() {
    let out = Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import importlib\nfor m in {STDLIB_MODULES:?}:\n    print(m, *[n for n in dir(importlib.import_module(m)) if not n.startswith('_')])"
        ))
        .output()
        .expect("python3 runs");
    let listing = String::from_utf8_lossy(&out.stdout);
    let mut program = String::new();
    for line in listing.lines() {
        let mut words = line.split_whitespace();
        let Some(module) = words.next() else { continue };
        writeln!(program, "import {module}").unwrap();
        for name in words {
            writeln!(
                program,
                "try:\n    from {module} import {name} as _imported\nexcept ImportError:\n    pass\nelse:\n    if not hasattr({module}, '{name}'):\n        print('{module}.{name}')"
            )
            .unwrap();
        }
    }
    assert!(
        program.lines().count() > 500,
        "CPython listed too few names"
    );
    let observed = run_ours(&program).expect("the program runs");
    assert_eq!(
        observed,
        Observed {
            stdout: String::new(),
            error: None
        },
        "names `from m import n` accepts but `m.n` does not"
    );
}

/// Standard-library names the interpreter does not model stop the run naming them (CPython
/// runs each program): never a wrong answer.
#[test]
fn unmodelled_stdlib_names_are_refused_by_name() {
    let cases = [
        (
            "from enum import Flag, auto\nclass P(Flag):\n    R = auto()\n    W = auto()\n    RW = R | W\nprint(P.RW)",
            "combining enum.auto()",
        ),
        (
            "from enum import IntFlag, FlagBoundary\nprint(FlagBoundary.KEEP)",
            "enum.FlagBoundary",
        ),
        (
            "from dataclasses import dataclass, fields\nfrom typing import Optional\n@dataclass\nclass D:\n    x: Optional[int]\nprint(fields(D)[0].type)",
            "dataclasses.Field.type of the annotation `Optional[int]`",
        ),
        (
            "from dataclasses import dataclass, fields\n@dataclass\nclass D:\n    x: list[int]\nprint(fields(D)[0].type)",
            "dataclasses.Field.type of the annotation `list[int]`",
        ),
        (
            "from dataclasses import dataclass, fields\n@dataclass\nclass D:\n    x: int | None\nprint(fields(D)[0].type)",
            "dataclasses.Field.type of the annotation `int | None`",
        ),
        (
            "from dataclasses import dataclass, fields\nimport typing\n@dataclass\nclass D:\n    x: typing.Any\nprint(fields(D)[0].type)",
            "dataclasses.Field.type of the annotation `typing.Any`",
        ),
        (
            "from dataclasses import dataclass\n@dataclass(slots=True)\nclass D:\n    x: int",
            "dataclass(slots=...)",
        ),
        (
            "from dataclasses import dataclass, field\nfrom collections import OrderedDict\n@dataclass\nclass D:\n    x: int = field(default=0, metadata=OrderedDict(a=1))",
            "dataclasses.field(metadata=...)",
        ),
        (
            "from abc import ABC, ABCMeta\nclass A(ABC):\n    pass\nprint(issubclass(A, ABCMeta))",
            "abc.ABCMeta",
        ),
        (
            "from enum import Enum\nclass E(Enum):\n    A = 1\nprint(type(E).__len__(E))",
            "enum.EnumType",
        ),
        ("import math\nprint(math.dist([0, 0], [3, 4]))", "math.dist"),
        (
            "from functools import singledispatch\n@singledispatch\ndef f(x):\n    return 1\nprint(f(2))",
            "functools.singledispatch",
        ),
        (
            "import random\nprint(hasattr(random, 'triangular'), random.triangular())",
            "random.triangular",
        ),
    ];
    let programs: Vec<String> = cases.iter().map(|(p, _)| p.to_string()).collect();
    for (want, (src, name)) in run_cpython(&programs).iter().zip(cases) {
        assert_eq!(want.error, None, "CPython runs\n{src}");
        match run_ours(src) {
            Err(stopped) => assert!(
                stopped.contains(name) && stopped.contains("not supported"),
                "{src}\nstopped with: {stopped}"
            ),
            Ok(got) => panic!("{src}\nran: {got:?}"),
        }
    }
}
