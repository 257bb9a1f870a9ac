//! CPython 3.11's view of calls: each call's activations (function, `line` events in order,
//! whether it ended by an exception) from `sys.settrace`, its result's repr or exception type.

#[path = "python3.rs"]
mod python3;

use python3::python3;
use serde_json::Value;

pub const CPYTHON_TRACER: &str = r#"
import io, json, sys
source = sys.stdin.read()
calls = json.loads(sys.argv[1])
real_stdout, sys.stdout = sys.stdout, io.StringIO()
g = {"__name__": "__main__"}
exec(compile(source, "<cell>", "exec"), g)
out = []
for call in calls:
    acts, stack, raising = [], [], {}
    def tracer(frame, event, arg):
        if frame.f_code.co_filename != "<cell>" or frame.f_code.co_name.startswith("<"):
            return None
        if event == "call":
            stack.append(len(acts))
            acts.append({"function": frame.f_code.co_qualname, "lines": [], "raised": None})
        elif event == "line":
            acts[stack[-1]]["lines"].append(frame.f_lineno)
            raising[id(frame)] = False
        elif event == "exception":
            raising[id(frame)] = True
        elif event == "return":
            # An exception event not followed by a line event: the exception propagates.
            acts[stack.pop()]["raised"] = raising.pop(id(frame), False)
        return tracer
    result = exception = None
    sys.settrace(tracer)
    try:
        value = eval(compile(call, "<run>", "eval"), g)
        result = repr(value)
    except Exception as e:
        exception = type(e).__name__
    finally:
        sys.settrace(None)
    out.append({"activations": acts, "result": result, "exception": exception})
real_stdout.write(json.dumps(out))
"#;

/// Runs `source` as a cell in CPython, then each call traced: one JSON object per call
/// (`activations`, `result`, `exception`).
pub fn trace(source: &str, calls: &[String]) -> Vec<Value> {
    let arg = serde_json::to_string(calls).unwrap();
    serde_json::from_str(&python3(&["-c", CPYTHON_TRACER, &arg], source)).unwrap()
}

/// The CFG edges (as `(source, target, label)`) that the first activation of `function`
/// in a traced call (one object of [`trace`]) took, laid on `cfg` by `Walk`.
#[allow(dead_code)]
pub fn edges_taken(
    cfg: &analysis_kernel::cfg::Cfg,
    function: &str,
    traced: &Value,
) -> Vec<(String, String, Option<String>)> {
    let first = traced["activations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["function"] == function);
    let lines: Vec<u32> = first
        .and_then(|a| a["lines"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_u64().map(|l| l as u32))
        .collect();
    let returned = first.is_some_and(|a| a["raised"] == false);
    let walk = analysis_kernel::cfg::Walk::of(cfg, &[lines], &[returned]);
    cfg.edges()
        .iter()
        .enumerate()
        .filter(|(k, _)| walk.edges[*k] > 0)
        .map(|(_, (s, t, e))| {
            (
                s.index().to_string(),
                t.index().to_string(),
                e.label().map(str::to_string),
            )
        })
        .collect()
}
