//! Random programs of four functions `f0(a, b)` .. `f3(a, b)` for the interprocedural tests:
//! ints, `if`, bounded `for`/`while`, calls of later functions (some with a keyword
//! argument) and bounded self-recursion; optionally module globals that some functions
//! declare `global` and assign, and all may read. Every run ends. Include beside
//! `common/rng.rs` (`mod rng;`).

use super::rng::Rng;

/// How many functions a program has.
pub const FUNCTIONS: usize = 4;

/// Writes random programs.
pub struct Gen {
    pub rng: Rng,
    /// Module globals, each assigned an int at the top (`g = 1`); empty for none.
    pub globals: &'static [&'static str],
    /// A function's block adds a call while it has made fewer calls than this (its first
    /// call and the self-recursion counted apart).
    pub call_limit: usize,
    lines: Vec<String>,
    calls: usize,
    /// The globals the function being written declares.
    declared: Vec<&'static str>,
}

impl Gen {
    pub fn new(seed: u64, globals: &'static [&'static str], call_limit: usize) -> Gen {
        Gen {
            rng: Rng::new(seed),
            globals,
            call_limit,
            lines: Vec::new(),
            calls: 0,
            declared: Vec::new(),
        }
    }

    fn atom(&mut self) -> String {
        let names = 5 + self.globals.len();
        match self.rng.below(names + 1) {
            0 => "a".into(),
            1 => "b".into(),
            2 => "x".into(),
            3 => "y".into(),
            4 => "z".into(),
            i if i < names => self.globals[i - 5].into(),
            _ => self.rng.range(-3, 5).to_string(),
        }
    }

    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(40) {
            return self.atom();
        }
        let l = self.expr(depth - 1);
        match self.rng.below(7) {
            0 => format!("{l} + {}", self.expr(depth - 1)),
            1 => format!("{l} - {}", self.expr(depth - 1)),
            2 => format!("({l}) * {}", self.atom()),
            3 => format!("({l}) // 3"),
            4 => format!("({l}) % 4"),
            5 => format!("-({l})"),
            _ => format!("({l}) + {}", self.atom()),
        }
    }

    fn cond(&mut self) -> String {
        let l = self.expr(1);
        match self.rng.below(4) {
            0 => format!("{l} < {}", self.expr(1)),
            1 => format!("{l} == {}", self.atom()),
            2 => format!("({l}) % 2 == 0"),
            _ => format!("{l} != 0"),
        }
    }

    fn call(&mut self, me: usize) -> String {
        let (e1, e2) = (self.expr(1), self.expr(1));
        self.calls += 1;
        let later = me + 1 + self.rng.below(FUNCTIONS - me - 1);
        if self.rng.chance(20) {
            format!("f{later}({e1}, b={e2})")
        } else {
            format!("f{later}({e1}, {e2})")
        }
    }

    /// A local, or now and then a global the function declared.
    fn target(&mut self) -> &'static str {
        if !self.declared.is_empty() && self.rng.chance(35) {
            let i = self.rng.below(self.declared.len());
            return self.declared[i];
        }
        *self.rng.pick(&["x", "y", "z"])
    }

    fn block(&mut self, me: usize, indent: usize, depth: u32, in_loop: bool) {
        let pad = " ".repeat(indent);
        for _ in 0..1 + self.rng.below(3) {
            let var = self.target();
            match self.rng.below(if depth == 0 { 3 } else { 6 }) {
                0 | 1 => {
                    let e = self.expr(2);
                    self.lines.push(format!("{pad}{var} = {e}"));
                }
                2 if me + 1 < FUNCTIONS && !in_loop && self.calls < self.call_limit => {
                    let c = self.call(me);
                    let k = self.atom();
                    self.lines.push(format!("{pad}{var} = {c} + {k}"));
                }
                2 => {
                    let e = self.expr(1);
                    self.lines.push(format!("{pad}{var} += {e}"));
                }
                3 => {
                    let c = self.cond();
                    self.lines.push(format!("{pad}if {c}:"));
                    self.block(me, indent + 4, depth - 1, in_loop);
                    if self.rng.chance(50) {
                        self.lines.push(format!("{pad}else:"));
                        self.block(me, indent + 4, depth - 1, in_loop);
                    }
                }
                4 => {
                    let n = self.rng.below(4);
                    self.lines.push(format!("{pad}for i in range({n}):"));
                    self.block(me, indent + 4, depth - 1, true);
                }
                _ => {
                    let n = self.rng.below(4);
                    self.lines.push(format!("{pad}w = 0"));
                    self.lines.push(format!("{pad}while w < {n}:"));
                    self.block(me, indent + 4, depth - 1, true);
                    self.lines.push(format!("{pad}    w = w + 1"));
                }
            }
        }
    }

    /// The next program's source.
    pub fn program(&mut self) -> String {
        self.lines.clear();
        if !self.globals.is_empty() {
            for (i, g) in self.globals.iter().enumerate() {
                self.lines.push(format!("{g} = {}", i + 1));
            }
            self.lines.push(String::new());
        }
        for me in 0..FUNCTIONS {
            self.calls = 0;
            self.declared = if self.globals.is_empty() {
                vec![]
            } else {
                // One of the first two, all, or none.
                match self.rng.below(4) {
                    3 => vec![],
                    k if k < 2 && k < self.globals.len() => vec![self.globals[k]],
                    _ => self.globals.to_vec(),
                }
            };
            self.lines.push(format!("def f{me}(a, b):"));
            if !self.declared.is_empty() {
                self.lines
                    .push(format!("    global {}", self.declared.join(", ")));
            }
            self.lines.push("    x = a".into());
            self.lines.push("    y = b".into());
            self.lines.push("    z = 0".into());
            if self.rng.chance(40) {
                let e = self.expr(1);
                self.lines.push("    if 0 < a < 4:".into());
                self.lines.push(format!("        z = f{me}(a - 1, {e})"));
            }
            if me + 1 < FUNCTIONS {
                // Every function but the last calls a later one at least once.
                let c = self.call(me);
                self.lines.push(format!("    y = {c}"));
            }
            self.block(me, 4, 2, false);
            if self.rng.chance(30) {
                let (c, e) = (self.cond(), self.expr(1));
                self.lines.push(format!("    if {c}:"));
                self.lines.push(format!("        return {e}"));
            }
            let e = self.expr(2);
            self.lines.push(format!("    return {e}"));
            self.lines.push(String::new());
        }
        self.lines.join("\n")
    }
}
