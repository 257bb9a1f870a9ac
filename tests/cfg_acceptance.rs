//! Acceptance against the CFGs of PythonTA 2.13.1 (`tests/fixtures/corpus/pyta/cfg_structure_cases.json`,
//! 109 cases from its test suite) and fuzzingbook 1.2.2 (`tests/fixtures/corpus/fuzzingbook/
//! controlflow_cases.json`), located relative to `CARGO_MANIFEST_DIR`.
//!
//! Comparison is structural. Both sides become a graph of *items* (statement texts), then
//! canonical basic blocks are computed the same way on both, and the two are compared as
//! multisets of blocks (their items in order) and of labelled edges between blocks (named by
//! their contents), plus the multiset of unreachable items. Representation differences
//! tolerated, and how:
//! - Texts are re-parsed and re-printed with the IR's `Display` (astroid's `as_string()` and
//!   astor differ from it in parentheses and quotes).
//! - Empty blocks (PythonTA's join and end-of-branch blocks, our `try:`, `class` and unnamed
//!   `except` nodes, fuzzingbook's `__iv` nodes) are contracted; a labelled edge into an
//!   empty block keeps its label.
//! - Block boundaries come out of the canonicalisation, so PythonTA's "separate condition
//!   blocks" and our leader rules cannot differ by themselves.
//! - PythonTA: an `if`/`while` block holds the test, a `for` puts its iterable at the end of
//!   the block before and its target in a block of its own whose edges are unlabelled, a
//!   `with` holds its context expressions and names, a `match` its subject, a case its
//!   pattern and guard (edges `Match`/`No Match` are our True/False), an `except` clause the
//!   name it binds, a `def` the whole definition (compared as `def NAME`), and a function's
//!   start block its parameters (compared as the entry). Its jump and raise edges are
//!   unlabelled, so ours labelled `exception`, `return`, `break` or `continue` compare
//!   unlabelled.
//! - fuzzingbook: labels `N: text` keep their line numbers (compared), `if: c` and `while:
//!   c` are the test, and the lowering of `for` (`__iv = iter(X)`, `for: __iv...`,
//!   `x = next(__iv)`) is compared as one `for x in X` node.
//!
//! Where the other tool is wrong, the case is listed in `PYTA_WRONG` or `FUZZINGBOOK_WRONG`
//! with the reason, the test checks that the structures do differ, and our answer is stated
//! explicitly by the snapshot `tests/fixtures/cfg/{pyta,fuzzingbook}/CASE.txt`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use analysis_kernel::cfg::{
    Blocks, Cfg, Edge, Item, NodeKind, Role, basic_blocks, function_cfg, index, module_cfg,
};
use analysis_kernel::python::ir::{Module, Stmt, StmtId, StmtKind};
use analysis_kernel::python::{lower_expression, lower_module};
use analysis_kernel::render::cfg::text;
use serde_json::Value;

/// PythonTA cases where its CFG is wrong, and why. Our CFG for each is in
/// `tests/fixtures/cfg/pyta/CASE.txt`.
const PYTA_WRONG: &[(&str, &str)] = &[
    (
        "test_tryexcept__test_multiple_exceptions",
        "`except KeyError` after `except Exception` can never run (Exception catches KeyError first); PythonTA links the body to it",
    ),
    (
        "test_tryexcept__test_compound_statement",
        "the test `x > 10` can raise (TypeError), and the exceptions of print(x) and print(x - 1) leave from their blocks; PythonTA links only the end of the body to the handler",
    ),
    (
        "test_tryexcept__test_nested",
        "`x = 0` and `x = 10` cannot raise, so neither handler is reachable; PythonTA links both",
    ),
    (
        "test_tryexcept__test_complex",
        "nothing in the inner try body raises KeyError (only TypeError from `x > 5` and `x -= 1`, caught by the outer `except Exception`), and `x = 15` cannot raise; PythonTA links the end of every try body to every handler",
    ),
    (
        "test_match__test_nested_match",
        "`case _:` always matches, so it has no No Match edge; PythonTA adds one",
    ),
];

/// fuzzingbook cases where its CFG is wrong, and why. Our CFG for each is in
/// `tests/fixtures/cfg/fuzzingbook/CASE.txt`.
const FUZZINGBOOK_WRONG: &[(&str, &str)] = &[
    (
        "cgi_decode",
        "the statement `raise ValueError(\"Invalid encoding\")` is dropped; it is a node with an exception edge to the exit",
    ),
    (
        "try_except_issue132",
        "the try and except bodies vanish (uds-se/fuzzingbook#132)",
    ),
    (
        "for_else_break",
        "the for loop's `else:` (return 1) is dropped: exhausting the loop goes to `return 0`",
    ),
];

fn corpus(path: &str) -> Value {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus")
        .join(path);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", file.display()))
}

/// The IR's printing of a statement or expression given as text, or the text with runs of
/// white space collapsed when it does not parse alone.
fn norm(text: &str) -> String {
    let t = text.trim();
    if let Ok(m) = lower_module(t)
        && let [s] = m.body.as_slice()
    {
        return match &s.kind {
            StmtKind::FunctionDef(f) => format!("def {}", f.name),
            _ if !s.is_compound() => s.to_string(),
            _ => t.to_string(),
        };
    }
    if let Ok(e) = lower_expression(t) {
        return e.to_string();
    }
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A graph of nodes holding item sequences: the common ground of the three builders.
#[derive(Default)]
struct Items {
    nodes: Vec<Vec<String>>,
    /// (source, target, index of the target's item entered, label)
    edges: Vec<(usize, usize, usize, Option<String>)>,
    entry: usize,
    exit: usize,
    unreachable: Vec<String>,
}

/// Canonical blocks: their items, the labelled edges between them (by content), and the
/// unreachable items, all sorted.
#[derive(Debug, PartialEq, Eq)]
struct Canon {
    blocks: Vec<Vec<String>>,
    edges: Vec<(Vec<String>, Vec<String>, Option<String>)>,
    unreachable: Vec<String>,
}

fn canonical(g: &Items) -> Canon {
    // One item node per item; a node without items becomes a placeholder to contract.
    let mut label: Vec<Option<String>> = Vec::new();
    let mut first = Vec::new();
    let mut last = Vec::new();
    let mut succ: BTreeMap<usize, Vec<(usize, Option<String>)>> = BTreeMap::new();
    for items in &g.nodes {
        let start = label.len();
        if items.is_empty() {
            label.push(None);
        } else {
            for (k, it) in items.iter().enumerate() {
                label.push(Some(it.clone()));
                if k > 0 {
                    succ.entry(start + k - 1)
                        .or_default()
                        .push((start + k, None));
                }
            }
        }
        first.push(start);
        last.push(label.len() - 1);
    }
    for (s, t, pos, l) in &g.edges {
        let target = (first[*t] + pos).min(last[*t]);
        succ.entry(last[*s]).or_default().push((target, l.clone()));
    }
    let (entry, exit) = (first[g.entry], first[g.exit]);
    // Contract placeholders: p -l1-> e -l2-> s becomes p -(l1 or l2)-> s.
    while let Some(e) = (0..label.len()).find(|&i| {
        label[i].is_none()
            && i != entry
            && i != exit
            && (succ.values().flatten().any(|(t, _)| *t == i) || succ.contains_key(&i))
    }) {
        let outs: Vec<(usize, Option<String>)> = succ
            .remove(&e)
            .unwrap_or_default()
            .into_iter()
            .filter(|(t, _)| *t != e)
            .collect();
        for list in succ.values_mut() {
            let ins: Vec<Option<String>> = list
                .iter()
                .filter(|(t, _)| *t == e)
                .map(|(_, l)| l.clone())
                .collect();
            list.retain(|(t, _)| *t != e);
            for l1 in ins {
                for (t, l2) in &outs {
                    list.push((*t, l1.clone().or_else(|| l2.clone())));
                }
            }
        }
    }
    for list in succ.values_mut() {
        list.sort();
        list.dedup();
    }
    let live: Vec<usize> = (0..label.len())
        .filter(|&i| label[i].is_some() || i == entry || i == exit)
        .collect();
    let mut preds: HashMap<usize, Vec<(usize, Option<String>)>> = HashMap::new();
    for (&s, list) in &succ {
        for (t, l) in list {
            preds.entry(*t).or_default().push((s, l.clone()));
        }
    }
    let out_degree = |n: usize| succ.get(&n).map_or(0, Vec::len);
    let leader = |n: usize| {
        if n == entry || n == exit {
            return true;
        }
        match preds.get(&n).map(Vec::as_slice) {
            Some([(p, None)]) => *p == entry || *p == n || out_degree(*p) != 1,
            _ => true,
        }
    };
    let name = |n: usize| -> String {
        match (&label[n], n == entry, n == exit) {
            (_, true, _) => "ENTRY".into(),
            (_, _, true) => "EXIT".into(),
            (Some(l), ..) => l.clone(),
            (None, ..) => String::new(),
        }
    };
    let mut block_of: HashMap<usize, usize> = HashMap::new();
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    let starts: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&n| leader(n))
        .chain(live.iter().copied())
        .collect();
    for start in starts {
        if block_of.contains_key(&start) {
            continue;
        }
        let b = blocks.len();
        block_of.insert(start, b);
        let mut run = vec![start];
        let mut cur = start;
        while let Some([(next, None)]) = succ.get(&cur).map(Vec::as_slice) {
            if leader(*next) || block_of.contains_key(next) || cur == entry {
                break;
            }
            block_of.insert(*next, b);
            run.push(*next);
            cur = *next;
        }
        blocks.push(run);
    }
    let content =
        |b: usize| -> Vec<String> { blocks[b].iter().map(|&n| name(n)).collect::<Vec<_>>() };
    let mut edges = Vec::new();
    for (&s, list) in &succ {
        for (t, l) in list {
            let (Some(&bs), Some(&bt)) = (block_of.get(&s), block_of.get(t)) else {
                continue;
            };
            if blocks[bt][0] == *t {
                edges.push((content(bs), content(bt), l.clone()));
            }
        }
    }
    edges.sort();
    edges.dedup();
    let mut all: Vec<Vec<String>> = (0..blocks.len()).map(content).collect();
    all.sort();
    let mut unreachable = g.unreachable.clone();
    unreachable.sort();
    Canon {
        blocks: all,
        edges,
        unreachable,
    }
}

/// How our graphs are turned into items for one tool.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tool {
    PythonTa,
    Fuzzingbook,
}

/// The items of one of our statements, and for a `for` the index where the loop comes back.
fn stmt_items(tool: Tool, item: Item<'_>, line: u32) -> (Vec<String>, usize) {
    let at = |s: &str| match tool {
        Tool::PythonTa => norm(s),
        Tool::Fuzzingbook => format!("{line}: {}", norm(s)),
    };
    let one = |s: String| (vec![at(&s)], 0);
    match item {
        Item::Handler(h) => (h.name.iter().map(|n| at(n)).collect(), 0),
        Item::Case(c) => {
            let mut v = vec![at(&c.pattern.to_string())];
            v.extend(c.guard.iter().map(|g| at(&g.to_string())));
            (v, 0)
        }
        Item::Stmt(s) => match &s.kind {
            StmtKind::If { test, .. } | StmtKind::While { test, .. } => one(test.to_string()),
            StmtKind::For { target, iter, .. } => match tool {
                Tool::PythonTa => (vec![at(&iter.to_string()), at(&target.to_string())], 1),
                Tool::Fuzzingbook => {
                    let (t, x) = (norm(&target.to_string()), norm(&iter.to_string()));
                    (vec![format!("{line}: for {t} in {x}")], 0)
                }
            },
            StmtKind::Try { .. } | StmtKind::ClassDef { .. } => (vec![], 0),
            StmtKind::With { items, .. } => {
                let mut v = Vec::new();
                for (e, var) in items {
                    v.push(at(&e.to_string()));
                    v.extend(var.iter().map(|x| at(&x.to_string())));
                }
                (v, 0)
            }
            StmtKind::Match { subject, .. } => one(subject.to_string()),
            StmtKind::FunctionDef(f) => (vec![at(&format!("def {}", f.name))], 0),
            _ => one(s.to_string()),
        },
    }
}

/// The statements inside the body of each `for` loop, by the loop's id.
fn loop_bodies(body: &[Stmt]) -> HashMap<StmtId, HashSet<StmtId>> {
    let mut out = HashMap::new();
    for (id, item) in index(body) {
        if let Item::Stmt(Stmt {
            kind: StmtKind::For { body, .. },
            ..
        }) = item
        {
            out.insert(id, index(body).into_keys().collect());
        }
    }
    out
}

/// Our block-level CFG as items.
fn our_items(tool: Tool, blocks: &Blocks, body: &[Stmt]) -> Items {
    let cfg = &blocks.cfg;
    let ir = index(body);
    let loops = loop_bodies(body);
    let mut g = Items {
        entry: cfg.entry.index(),
        exit: cfg.exit.index(),
        ..Items::default()
    };
    let mut back_entry = vec![None; cfg.graph.node_count()];
    for n in cfg.nodes() {
        let node = cfg.node(n);
        let mut items = Vec::new();
        match node.kind {
            NodeKind::Entry => items.push("ENTRY".to_string()),
            NodeKind::Exit => items.push("EXIT".to_string()),
            _ => {
                for (k, s) in node.stmts.iter().enumerate() {
                    let Some(item) = ir.get(&s.id) else { continue };
                    let (its, back) = stmt_items(tool, *item, s.lines.0);
                    if k == 0 && s.role == Role::Iterate {
                        back_entry[n.index()] = Some((s.id, back));
                    }
                    items.extend(its);
                }
            }
        }
        if node.unreachable {
            g.unreachable.extend(items);
            g.nodes.push(Vec::new());
        } else {
            g.nodes.push(items);
        }
    }
    for (s, t, e) in cfg.edges() {
        if cfg.node(s).unreachable {
            continue;
        }
        let from_iterate = cfg.node(s).last_role() == Some(Role::Iterate);
        let label = match e {
            Edge::True | Edge::False if tool == Tool::PythonTa && from_iterate => None,
            Edge::True | Edge::False => e.label().map(str::to_string),
            _ => None,
        };
        let pos = match back_entry[t.index()] {
            Some((loop_id, back)) => {
                let inside = cfg
                    .node(s)
                    .stmts
                    .last()
                    .is_some_and(|st| loops.get(&loop_id).is_some_and(|b| b.contains(&st.id)));
                if inside { back } else { 0 }
            }
            None => 0,
        };
        g.edges.push((s.index(), t.index(), pos, label));
    }
    g
}

/// One PythonTA CFG (module `__main__` or a function) as items.
fn pyta_items(out: &Value) -> Items {
    let module = out["name"] == "__main__";
    let mut g = Items::default();
    let mut node_of = HashMap::new();
    let mut start = 0;
    for b in out["blocks_dfs_order"].as_array().into_iter().flatten() {
        let id = b["id"].as_i64().unwrap_or(-1);
        let stmts: Vec<String> = b["stmts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(norm)
            .collect();
        let n = g.nodes.len();
        node_of.insert(id, n);
        if b["is_start"] == true {
            start = n;
        }
        if b["is_end"] == true {
            g.exit = n;
            g.nodes.push(vec!["EXIT".into()]);
        } else if b["is_start"] == true && !module {
            // A function's start block holds its parameters.
            g.nodes.push(vec!["ENTRY".into()]);
        } else {
            g.nodes.push(stmts);
        }
    }
    g.entry = start;
    if module {
        // A module's start block holds its first statements: add an entry before it.
        g.entry = g.nodes.len();
        g.nodes.push(vec!["ENTRY".into()]);
        g.edges.push((g.entry, start, 0, None));
    }
    for e in out["edges_dfs_order"].as_array().into_iter().flatten() {
        let (Some(&s), Some(&t)) = (
            node_of.get(&e["from"].as_i64().unwrap_or(-1)),
            node_of.get(&e["to"].as_i64().unwrap_or(-1)),
        ) else {
            panic!("edge between unknown blocks: {e}");
        };
        let label = match e["label"].as_str() {
            Some("True") | Some("Match") => Some("True".to_string()),
            Some("False") | Some("No Match") => Some("False".to_string()),
            _ => None,
        };
        g.edges.push((s, t, 0, label));
    }
    for b in out["unreachable_blocks"].as_array().into_iter().flatten() {
        g.unreachable.extend(
            b["stmts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(norm),
        );
    }
    g
}

/// Our CFGs of a program: the module's and every function's, by PythonTA's names.
fn our_cfgs(module: &Module) -> Vec<(String, Cfg, &[Stmt])> {
    let mut out = vec![(
        "__main__".to_string(),
        module_cfg(module).expect("module cfg"),
        &module.body[..],
    )];
    for f in module.functions() {
        out.push((
            f.qualname.clone(),
            function_cfg(f).expect("function cfg"),
            &f.body[..],
        ));
    }
    out
}

/// Compares one case; `Ok(())` when every CFG matches, else the first difference.
fn compare_pyta(case: &Value) -> Result<(), String> {
    let src = case["src"].as_str().unwrap_or("");
    let module = lower_module(src).map_err(|e| e.to_string())?;
    let ours = our_cfgs(&module);
    let theirs: Vec<&Value> = case["pyta_2_13_1_output"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let mut our_names: Vec<&str> = ours.iter().map(|(n, ..)| n.as_str()).collect();
    let mut their_names: Vec<&str> = theirs.iter().filter_map(|o| o["name"].as_str()).collect();
    our_names.sort();
    their_names.sort();
    if our_names != their_names {
        return Err(format!("CFGs {our_names:?} vs {their_names:?}"));
    }
    for out in theirs {
        let name = out["name"].as_str().unwrap_or("");
        let (_, cfg, body) = ours.iter().find(|(n, ..)| n == name).ok_or("missing cfg")?;
        let mine = canonical(&our_items(Tool::PythonTa, &basic_blocks(cfg), body));
        let pyta = canonical(&pyta_items(out));
        if mine != pyta {
            return Err(format!("{name}:\n ours  {mine:?}\n pyta  {pyta:?}"));
        }
    }
    Ok(())
}

fn case_key(case: &Value) -> String {
    let file = case["source_path"]
        .as_str()
        .and_then(|p| p.rsplit('/').next())
        .unwrap_or("")
        .trim_end_matches(".py");
    format!("{file}__{}", case["test"].as_str().unwrap_or(""))
}

/// Our block-level text of every CFG of `src`.
fn our_text(src: &str) -> String {
    let module = lower_module(src).expect("parses");
    our_cfgs(&module)
        .iter()
        .map(|(_, cfg, _)| text(&basic_blocks(cfg).cfg, false))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn pythonta_structure_cases() {
    let cases = corpus("pyta/cfg_structure_cases.json");
    let cases = cases.as_array().expect("a list of cases");
    assert_eq!(cases.len(), 109);
    let wrong: HashMap<&str, &str> = PYTA_WRONG.iter().copied().collect();
    let mut seen = HashSet::new();
    let mut failures = Vec::new();
    let mut matched = 0;
    for case in cases {
        let key = case_key(case);
        // Two cases share a name (test_while_with_if in two files); keys include the file.
        assert!(seen.insert(key.clone()), "duplicate case {key}");
        let result = compare_pyta(case);
        match (wrong.get(key.as_str()), result) {
            (None, Ok(())) => matched += 1,
            (None, Err(diff)) => failures.push(format!("{key}: {diff}")),
            (Some(_), Ok(())) => failures.push(format!(
                "{key} matches PythonTA now: remove it from PYTA_WRONG"
            )),
            (Some(_), Err(_)) => {
                let src = case["src"].as_str().unwrap_or("");
                let listing = format!("{}\n{}", numbered(src), our_text(src));
                expect_test::expect_file![format!("fixtures/cfg/pyta/{key}.txt")]
                    .assert_eq(&listing);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(matched, 109 - PYTA_WRONG.len());
    for (key, _) in PYTA_WRONG {
        assert!(seen.contains(*key), "PYTA_WRONG names unknown case {key}");
    }
}

/// The program with line numbers, as the snapshot's header.
fn numbered(src: &str) -> String {
    src.lines()
        .enumerate()
        .map(|(i, l)| format!("# {:>2} | {l}", i + 1).trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One fuzzingbook graph as items.
fn fuzzingbook_items(case: &Value) -> Items {
    let nodes = case["nodes"].as_object().expect("nodes");
    let label = |id: &str| -> (u32, String) {
        let text = nodes[id]["label"].as_str().unwrap_or("");
        let (line, rest) = text.split_once(": ").unwrap_or(("0", text));
        (line.parse().unwrap_or(0), rest.to_string())
    };
    // The parts of each lowered `for`, by line.
    let mut iters = HashMap::new();
    let mut targets = HashMap::new();
    for id in nodes.keys() {
        let (line, text) = label(id);
        if let Some(x) = text
            .strip_prefix("__iv = iter(")
            .and_then(|x| x.strip_suffix(')'))
        {
            iters.insert(line, norm(x));
        } else if let Some(t) = text.strip_suffix(" = next(__iv)") {
            targets.insert(line, norm(t));
        }
    }
    let mut g = Items::default();
    let mut index_of = HashMap::new();
    for id in nodes.keys() {
        let (line, text) = label(id);
        let n = g.nodes.len();
        index_of.insert(id.clone(), n);
        let items = if text.starts_with("enter:") {
            g.entry = n;
            vec!["ENTRY".to_string()]
        } else if text.starts_with("exit:") {
            g.exit = n;
            vec!["EXIT".to_string()]
        } else if text.starts_with("__iv = iter(") || text.ends_with(" = next(__iv)") {
            vec![]
        } else if text.starts_with("for: ") {
            let t = targets.get(&line).cloned().unwrap_or_default();
            let x = iters.get(&line).cloned().unwrap_or_default();
            vec![format!("{line}: for {t} in {x}")]
        } else if let Some(c) = text
            .strip_prefix("if: ")
            .or_else(|| text.strip_prefix("while: "))
        {
            vec![format!("{line}: {}", norm(c))]
        } else {
            vec![format!("{line}: {}", norm(&text))]
        };
        g.nodes.push(items);
    }
    for e in case["edges"].as_array().into_iter().flatten() {
        let s = index_of[e["from"].as_str().unwrap_or("")];
        let t = index_of[e["to"].as_str().unwrap_or("")];
        let attrs = e["attrs"].as_str().unwrap_or("");
        let label = if attrs.contains("label=T") {
            Some("True".to_string())
        } else if attrs.contains("label=F") {
            Some("False".to_string())
        } else {
            None
        };
        g.edges.push((s, t, 0, label));
    }
    g
}

#[test]
fn fuzzingbook_controlflow_cases() {
    let cases = corpus("fuzzingbook/controlflow_cases.json");
    let cases = cases.as_array().expect("a list of cases");
    assert_eq!(cases.len(), 8);
    let wrong: HashMap<&str, &str> = FUZZINGBOOK_WRONG.iter().copied().collect();
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap_or("");
        let src = case["src"]
            .as_str()
            .or(case["source"].as_str())
            .unwrap_or("");
        let module = lower_module(src).expect("parses");
        let f = module.functions().next().expect("one function");
        let cfg = function_cfg(f).expect("cfg");
        let mine = canonical(&our_items(Tool::Fuzzingbook, &basic_blocks(&cfg), &f.body));
        let theirs = canonical(&fuzzingbook_items(case));
        match (wrong.contains_key(name), mine == theirs) {
            (false, true) => {}
            (false, false) => failures.push(format!("{name}:\n ours {mine:?}\n fb   {theirs:?}")),
            (true, true) => failures.push(format!("{name} matches now: remove it")),
            (true, false) => {
                let listing = format!("{}\n{}", numbered(src), text(&cfg, false));
                expect_test::expect_file![format!("fixtures/cfg/fuzzingbook/{name}.txt")]
                    .assert_eq(&listing);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The comparison is not vacuous: a changed label, statement or edge in PythonTA's output,
/// and a changed program, are each caught.
#[test]
fn comparison_detects_differences() {
    let cases = corpus("pyta/cfg_structure_cases.json");
    let case = cases
        .as_array()
        .and_then(|c| {
            c.iter()
                .find(|c| case_key(c) == "test_while__test_while_with_break_in_if")
        })
        .expect("case present")
        .clone();
    assert_eq!(compare_pyta(&case), Ok(()));
    let output = |c: &mut Value| c["pyta_2_13_1_output"][0].clone();

    let mut flipped = case.clone();
    let mut out = output(&mut flipped);
    for e in out["edges_dfs_order"].as_array_mut().into_iter().flatten() {
        if e["label"] == "True" {
            e["label"] = Value::from("False");
            break;
        }
    }
    flipped["pyta_2_13_1_output"][0] = out;
    assert!(compare_pyta(&flipped).is_err(), "a flipped label");

    let mut renamed = case.clone();
    let mut out = output(&mut renamed);
    out["blocks_dfs_order"][1]["stmts"][0] = Value::from("n > 21");
    renamed["pyta_2_13_1_output"][0] = out;
    assert!(compare_pyta(&renamed).is_err(), "a changed statement");

    let mut dropped = case.clone();
    let mut out = output(&mut dropped);
    if let Some(edges) = out["edges_dfs_order"].as_array_mut() {
        edges.pop();
    }
    dropped["pyta_2_13_1_output"][0] = out;
    assert!(compare_pyta(&dropped).is_err(), "a missing edge");

    let mut changed = case;
    let src = changed["src"]
        .as_str()
        .unwrap_or("")
        .replace("break", "continue");
    changed["src"] = Value::from(src);
    assert!(compare_pyta(&changed).is_err(), "a different program");
}
