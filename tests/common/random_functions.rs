//! Random Python functions of one parameter `a` for the dependence tests: `if`/`elif`/`else`,
//! `while` and `for` with `break`/`continue`, `try` with handlers, `else` and `finally`,
//! `return` and `raise` anywhere; with `runnable`, every loop is bounded so every run ends.
//! Include beside `common/rng.rs` (`mod rng;`).

use super::rng::Rng;

/// Writes random functions of one parameter `a`.
pub struct Gen {
    pub rng: Rng,
    /// Bounded loops only (every `while` also counts to 3), so every run ends.
    pub runnable: bool,
    pub lines: Vec<String>,
    pub loops: usize,
}

impl Gen {
    fn emit(&mut self, indent: usize, text: &str) {
        self.lines.push(format!("{}{text}", "    ".repeat(indent)));
    }

    fn cond(&mut self) -> String {
        let v = *self.rng.pick(&["a", "x", "y"]);
        let op = *self.rng.pick(&["<", ">", "==", "!="]);
        format!("{v} {op} {}", self.rng.range(-2, 3))
    }

    fn block(&mut self, indent: usize, depth: usize, in_loop: bool) {
        for _ in 0..1 + self.rng.below(3) {
            self.stmt(indent, depth, in_loop);
        }
    }

    fn stmt(&mut self, indent: usize, depth: usize, in_loop: bool) {
        let choice = self.rng.below(if depth >= 3 { 4 } else { 12 });
        match choice {
            0 | 1 => {
                let v = *self.rng.pick(&["x", "y"]);
                let e = format!(
                    "{} + {}",
                    self.rng.pick(&["a", "x", "y"]),
                    self.rng.range(0, 3)
                );
                self.emit(indent, &format!("{v} = {e}"));
            }
            2 => {
                let v = *self.rng.pick(&["x", "y"]);
                let k = self.rng.range(0, 2);
                self.emit(indent, &format!("{v} = 10 // (a - {k})"));
            }
            3 => match self.rng.below(6) {
                0 if in_loop => self.emit(indent, "break"),
                1 if in_loop => self.emit(indent, "continue"),
                2 => self.emit(indent, "return x"),
                3 => self.emit(indent, "raise ValueError(x)"),
                _ => self.emit(indent, "y = y - 1"),
            },
            4 | 5 => {
                let c = self.cond();
                self.emit(indent, &format!("if {c}:"));
                self.block(indent + 1, depth + 1, in_loop);
                if self.rng.chance(30) {
                    let c = self.cond();
                    self.emit(indent, &format!("elif {c}:"));
                    self.block(indent + 1, depth + 1, in_loop);
                }
                if self.rng.chance(50) {
                    self.emit(indent, "else:");
                    self.block(indent + 1, depth + 1, in_loop);
                }
            }
            6 | 7 if self.loops < 4 => {
                self.loops += 1;
                if self.runnable {
                    let (k, c) = (self.loops, self.cond());
                    self.emit(indent, &format!("k{k} = 0"));
                    self.emit(indent, &format!("while k{k} < 3 and ({c}):"));
                    self.emit(indent + 1, &format!("k{k} = k{k} + 1"));
                } else if self.rng.chance(20) {
                    self.emit(indent, "while True:");
                } else {
                    let c = self.cond();
                    self.emit(indent, &format!("while {c}:"));
                }
                self.block(indent + 1, depth + 1, true);
            }
            8 if self.loops < 4 => {
                self.loops += 1;
                let k = self.rng.range(0, 3);
                self.emit(indent, &format!("for i in range({k}):"));
                self.block(indent + 1, depth + 1, true);
                if self.rng.chance(30) {
                    self.emit(indent, "else:");
                    self.block(indent + 1, depth + 1, in_loop);
                }
            }
            9..=11 => {
                self.emit(indent, "try:");
                self.block(indent + 1, depth + 1, in_loop);
                let handlers = self.rng.below(3);
                for _ in 0..handlers {
                    let e = *self
                        .rng
                        .pick(&["ZeroDivisionError", "ValueError", "Exception"]);
                    self.emit(indent, &format!("except {e}:"));
                    self.block(indent + 1, depth + 1, in_loop);
                }
                if handlers > 0 && self.rng.chance(30) {
                    self.emit(indent, "else:");
                    self.block(indent + 1, depth + 1, in_loop);
                }
                if handlers == 0 || self.rng.chance(40) {
                    self.emit(indent, "finally:");
                    self.block(indent + 1, depth + 1, in_loop);
                }
            }
            _ => self.emit(indent, "x = x + y"),
        }
    }

    pub fn function(&mut self) -> String {
        self.lines = vec!["def f(a):".into()];
        self.loops = 0;
        self.emit(1, "x = 0");
        self.emit(1, "y = 1");
        self.block(1, 0, false);
        self.emit(1, "return x + y");
        self.lines.join("\n") + "\n"
    }
}
