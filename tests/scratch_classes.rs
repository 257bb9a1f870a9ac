//! Scratch runner (not committed): runs /tmp/cls/snippet.py through the interpreter.
use analysis_kernel::cancel::Cancel;
use analysis_kernel::interp::{Interpreter, Limits};
use analysis_kernel::python::lower_module;

#[test]
fn scratch() {
    let src = std::fs::read_to_string("/tmp/cls/snippet.py").unwrap();
    for prog in src.split("\n#### ") {
        let m = match lower_module(prog) {
            Ok(m) => m,
            Err(e) => {
                println!("LOWER ERROR {e:?}");
                continue;
            }
        };
        let mut i = Interpreter::new();
        let mut out = String::new();
        let r = i.run_module(
            &m,
            &mut |_, s| out.push_str(s),
            &Cancel::new(),
            Limits::default(),
        );
        print!("{out}");
        if let Err(e) = r {
            println!("ERROR: {e}");
        }
        println!("----");
    }
}
