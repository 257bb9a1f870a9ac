//! Speed of the concrete interpreter against CPython on loop-heavy programs.
//!
//! `cargo run --release --bin bench_interp` prints, per workload, the best of three runs of
//! each (CPython timed inside the process, without its start-up) and the ratio.
//! `BENCH_ONLY=<text>` keeps the workloads whose name contains the text;
//! `BENCH_FILE=<path>` times that program instead (for profiling), and `BENCH_CPYTHON=0`
//! leaves CPython out.

use std::process::Command;
use std::time::Instant;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::interp::{Interpreter, Limits};
use analysis_kernel::python::lower_module;

const WORKLOADS: &[(&str, &str)] = &[
    (
        "collatz (while, arithmetic, calls)",
        "def collatz(n):\n    steps = 0\n    while n != 1:\n        if n % 2 == 0:\n            n = n // 2\n        else:\n            n = 3 * n + 1\n        steps += 1\n    return steps\nbest = 0\nfor i in range(1, 20000):\n    c = collatz(i)\n    if c > best:\n        best = c\nprint(best)\n",
    ),
    (
        "fib (recursion)",
        "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nprint(fib(24))\n",
    ),
    (
        "lists (append, index, sum)",
        "xs = []\nfor i in range(200000):\n    xs.append(i * i % 97)\ntotal = 0\nfor j in range(len(xs)):\n    total += xs[j]\nprint(total, sum(xs), max(xs))\n",
    ),
    (
        "strings and dicts",
        "counts = {}\ntext = 'the quick brown fox jumps over the lazy dog ' * 2000\nfor w in text.split():\n    counts[w] = counts.get(w, 0) + 1\nout = ''\nfor k in sorted(counts):\n    out += k[::-1] + str(counts[k])\nprint(len(out), out[:40])\n",
    ),
    (
        "big-int growth (x = x * 3)",
        "x = 1\nfor i in range(60000):\n    x = x * 3\nprint(x % 1000003)\n",
    ),
    (
        "comprehensions",
        "s = 0\nfor r in range(300):\n    ys = [x * x for x in range(300) if x % 3]\n    s += sum(y for y in ys if y % 2)\nprint(s)\n",
    ),
    (
        "classes (method calls, attribute access, dunders)",
        "class Vec:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n    def add(self, o):\n        return Vec(self.x + o.x, self.y + o.y)\n    def dot(self, o):\n        return self.x * o.x + self.y * o.y\n    def __eq__(self, o):\n        return self.x == o.x and self.y == o.y\nclass Walker:\n    def __init__(self):\n        self.pos = Vec(0, 0)\n        self.steps = 0\n    def step(self, d):\n        self.pos = self.pos.add(d)\n        self.steps += 1\n        return self.pos.dot(d)\nw = Walker()\ndirs = [Vec(1, 0), Vec(0, 1), Vec(-1, 0), Vec(0, -1)]\ntotal = 0\nfor i in range(60000):\n    total += w.step(dirs[i % 4])\n    if w.pos == dirs[0]:\n        total += 1\nprint(total, w.steps, w.pos.x, w.pos.y)\n",
    ),
    (
        "sets (add, in, | & -)",
        "seen = set()\nhits = 0\nfor i in range(200000):\n    k = i * 7919 % 100003\n    if k in seen:\n        hits += 1\n    else:\n        seen.add(k)\na = {x for x in range(0, 60000, 2)}\nb = set(range(0, 60000, 3))\nprint(hits, len(seen), len(a | b), len(a & b), len(a - b), len(a ^ b))\n",
    ),
    (
        "generators (yield, yield from)",
        "def count(n):\n    i = 0\n    while i < n:\n        yield i\n        i += 1\ndef evens(n):\n    for x in count(n):\n        if x % 2 == 0:\n            yield x\ndef chain(n):\n    yield from evens(n)\n    yield from count(10)\ntotal = 0\nfor x in chain(200000):\n    total += x\nsmall = sum(sum(count(5)) for _ in range(5000))\nprint(total, small)\n",
    ),
    (
        "re (findall, sub, match objects)",
        "import re\nword = re.compile(r'(?P<w>[a-z]+)(\\d*)')\ntext = 'alpha1 beta22 gamma delta333 ' * 300\ntotal = 0\nfor i in range(30):\n    total += len(word.findall(text))\n    total += len(re.sub(r'\\d+', lambda m: str(len(m.group())), text))\n    for m in word.finditer(text[:600]):\n        total += m.end('w') - m.start()\nprint(total)\n",
    ),
];

const TIMER: &str = r#"
import io, contextlib, sys, time
src = sys.stdin.read()
code = compile(src, "<bench>", "exec")
best = None
for _ in range(3):
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, {"__name__": "__main__"})
    d = time.perf_counter() - t
    best = d if best is None else min(best, d)
print(best)
"#;

fn cpython_seconds(src: &str) -> Option<f64> {
    use std::io::Write;
    let mut child = Command::new("python3")
        .args(["-c", TIMER])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(src.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

fn ours_seconds(src: &str) -> Result<(f64, String), String> {
    let module = lower_module(src).map_err(|e| e.to_string())?;
    let mut best = f64::INFINITY;
    let mut printed = String::new();
    for _ in 0..3 {
        let mut out = String::new();
        let mut interp = Interpreter::new();
        let start = Instant::now();
        interp
            .run_module(
                &module,
                &mut |_, t| out.push_str(t),
                &Cancel::new(),
                Limits::new(u64::MAX, 1000),
            )
            .map_err(|e| e.to_string())?;
        best = best.min(start.elapsed().as_secs_f64());
        printed = out;
    }
    Ok((best, printed))
}

fn main() {
    println!(
        "{:<36} {:>10} {:>10} {:>8}",
        "workload", "ours (s)", "CPython", "ratio"
    );
    let (mut total_ours, mut total_py) = (0.0, 0.0);
    // `BENCH_ONLY=classes` runs the workloads whose name contains the text (for profiling).
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let file = std::env::var("BENCH_FILE").ok().map(|path| {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        (path, text)
    });
    let workloads: Vec<(&str, &str)> = match &file {
        Some((path, text)) => vec![(path.as_str(), text.as_str())],
        None => WORKLOADS
            .iter()
            .filter(|(n, _)| n.contains(only.as_str()))
            .copied()
            .collect(),
    };
    let with_cpython = std::env::var("BENCH_CPYTHON").map_or(true, |v| v != "0");
    for (name, src) in workloads {
        let ours = match ours_seconds(src) {
            Ok((t, _)) => t,
            Err(e) => {
                println!("{name:<36} failed: {e}");
                continue;
            }
        };
        if !with_cpython {
            println!("{name:<36} {ours:>10.3}");
            continue;
        }
        let Some(py) = cpython_seconds(src) else {
            println!("{name:<36} {ours:>10.3} (python3 unavailable)");
            continue;
        };
        total_ours += ours;
        total_py += py;
        println!("{name:<36} {ours:>10.3} {py:>10.3} {:>7.2}x", ours / py);
    }
    if total_py > 0.0 {
        println!(
            "{:<36} {total_ours:>10.3} {total_py:>10.3} {:>7.2}x",
            "total",
            total_ours / total_py
        );
    }
}
