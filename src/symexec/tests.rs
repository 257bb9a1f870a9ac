//! Trees of small programs: their text rendering (snapshots), and behaviour the book's
//! examples do not reach (exceptions, try/finally, calls, recursion, for loops).

use super::*;
use crate::cancel::Cancel;
use crate::python::lower_module;
use crate::render::set::{leaf_table_text, text};

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn options(unroll: u64) -> Options {
    Options { unroll, ..Options::default() }
}

/// The tree of a snippet with `inputs` (`ARG:TYPE ...`).
fn snippet(src: &str, inputs: &str, unroll: u64) -> Tree {
    let module = lower_module(src).unwrap();
    let given = parse_specs(&words(inputs)).unwrap();
    let program = Program::snippet(&module, [], &given).unwrap();
    execute(&program, &options(unroll), &Cancel::new()).unwrap()
}

/// The tree of function `name` defined in `src`.
fn function(src: &str, name: &str, unroll: u64) -> Tree {
    let module = lower_module(src).unwrap();
    let program = Program::function(name, module.functions(), &[]).unwrap();
    execute(&program, &options(unroll), &Cancel::new()).unwrap()
}

fn render(tree: &Tree) -> String {
    format!("{}\n{}", text(tree), leaf_table_text(tree))
}

#[test]
fn debug_print() {
    println!("{}", render(&snippet("x = 2 * y\nif x < 0:\n    x = -x\n", "x:int y:int", 4)));
    let find = "i = 0\nwhile i < len(haystack):\n    if haystack[i] == needle:\n        break\n    i = i + 1\nelse:\n    return -1\n\nreturn i\n";
    println!("{}", render(&snippet(find, "needle:int haystack:tuple", 2)));
    let concrete = "def find(needle: int, haystack: tuple) -> int:\n    i = 0\n    while i < len(haystack):\n        if haystack[i] == needle:\n            break\n\n        i = i + 1\n    else:\n        return -1\n\n    return i\n\nt = (1, 2, 3, 4, )\nr = find(x, t)\n";
    println!("{}", render(&snippet(concrete, "x:int", 4)));
    println!("{}", render(&function("def f(a: int, b: int) -> int:\n    try:\n        r = a // b\n    except ZeroDivisionError:\n        r = 0\n    finally:\n        a = a + 1\n    return r\n", "f", 4)));
}
