//! Hasse diagrams of finite orders: DOT with the top at the top (`rankdir=BT`, edges from the
//! lower element to the upper one), and the text rendering (levels from the top down, then
//! the covers), which is the tested contract.

use crate::dataflow::bitset::BitSet;
use crate::dataflow::finite::FiniteOrder;
use crate::dataflow::finite::laws::LawReport;

/// Violations the text lists before "… and N more".
const TEXT_VIOLATIONS: usize = 20;

/// The headline: size, top, bottom and the verdict.
pub fn summary(order: &FiniteOrder, report: &LawReport) -> String {
    let name = |i: Option<usize>| i.map_or("none".to_string(), |i| order.element(i).to_string());
    let verdict = if report.is_lattice {
        "a lattice".to_string()
    } else if !report.is_partial_order {
        "not a partial order".to_string()
    } else {
        let n = report.violation_count;
        format!(
            "not a lattice ({n} violation{})",
            if n == 1 { "" } else { "s" }
        )
    };
    let pairs = if report.is_partial_order {
        "covers"
    } else {
        "given pairs"
    };
    format!(
        "{}: {} elements, {} {pairs}, top {}, bottom {} — {verdict}",
        order.name,
        order.len(),
        order.covers().len(),
        name(report.top),
        name(report.bottom)
    )
}

/// The text rendering: the summary, the elements level by level from the top, the covers
/// `lower ⋖ upper`, and the violations.
pub fn hasse_text(order: &FiniteOrder, report: &LawReport) -> String {
    let mut out = vec![summary(order, report)];
    match order.levels() {
        Some(levels) => {
            out.push("levels (top to bottom):".into());
            let height = levels.len().saturating_sub(1);
            for (k, level) in levels.iter().enumerate() {
                let names: Vec<&str> = level.iter().map(|&i| order.element(i)).collect();
                out.push(format!("  {:>2}  {}", height - k, names.join("   ")));
            }
        }
        None => out.push(format!("elements: {}", order.elements().join("   "))),
    }
    let covers = order.covers();
    if report.is_partial_order {
        out.push("covers (lower ⋖ upper):".into());
    } else {
        out.push("given pairs (lower < upper):".into());
    }
    let sign = if report.is_partial_order { "⋖" } else { "<" };
    for (a, b) in covers {
        out.push(format!(
            "  {} {sign} {}",
            order.element(a),
            order.element(b)
        ));
    }
    if !report.violations.is_empty() {
        out.push("violations:".into());
        for v in report.violations.iter().take(TEXT_VIOLATIONS) {
            out.push(format!("  {}", v.message));
        }
        let rest = report
            .violation_count
            .saturating_sub(TEXT_VIOLATIONS.min(report.violations.len()));
        if rest > 0 {
            out.push(format!("  … and {rest} more"));
        }
    }
    out.join("\n")
}

/// The Hasse diagram as DOT: bottom-to-top ranks by level, undirected-looking edges, ⊤ and ⊥
/// marked, elements named in a violation filled red. Orders with a cycle are drawn from their
/// given pairs with arrows.
pub fn hasse_dot(order: &FiniteOrder, report: &LawReport) -> String {
    let mut dot = String::from("digraph lattice {\n");
    dot.push_str("  rankdir=BT;\n  nodesep=0.3;\n  ranksep=0.45;\n");
    dot.push_str(
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=12, margin=\"0.12,0.04\", height=0.3];\n",
    );
    let arrow = if report.is_partial_order {
        "none"
    } else {
        "normal"
    };
    dot.push_str(&format!("  edge [arrowhead={arrow}, color=\"#555555\"];\n"));
    let mut flagged = BitSet::new_empty(order.len());
    for v in &report.violations {
        for &e in &v.elements {
            flagged.insert(e);
        }
    }
    for (i, name) in order.elements().iter().enumerate() {
        let mut label = name.clone();
        let mut attrs = Vec::new();
        if report.top == Some(i) && name != "⊤" {
            label.push_str("\n⊤");
        }
        if report.bottom == Some(i) && name != "⊥" {
            label.push_str("\n⊥");
        }
        if report.top == Some(i) || report.bottom == Some(i) {
            attrs.push("penwidth=2".to_string());
        }
        if flagged.contains(i) {
            attrs.push("fillcolor=\"#ffd6d6\", color=\"#c0392b\"".to_string());
        }
        let extra = if attrs.is_empty() {
            String::new()
        } else {
            format!(", {}", attrs.join(", "))
        };
        dot.push_str(&format!(
            "  n{i} [label=\"{}\"{extra}];\n",
            escape_dot(&label)
        ));
    }
    if let Some(levels) = order.levels() {
        for level in levels.iter().filter(|l| l.len() > 1) {
            let ids: Vec<String> = level.iter().map(|i| format!("n{i}")).collect();
            dot.push_str(&format!("  {{ rank=same; {}; }}\n", ids.join("; ")));
        }
    }
    for (a, b) in order.covers() {
        dot.push_str(&format!("  n{a} -> n{b};\n"));
    }
    dot.push_str("}\n");
    dot
}

/// Escapes a DOT string literal (quotes, backslashes, newlines).
fn escape_dot(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::dataflow::finite::builtin::{self, BuiltinOptions, build};
    use crate::dataflow::finite::laws::check;
    use crate::dataflow::finite::parse::parse_order;

    fn text(kind: &str) -> String {
        let args: Vec<String> = kind.split_whitespace().map(String::from).collect();
        let order =
            build(&args, &BuiltinOptions::default()).unwrap_or_else(|e| panic!("{kind}: {e}"));
        hasse_text(&order, &check(&order))
    }

    fn window_text(lo: i64, hi: i64, unbounded: bool) -> String {
        let order = builtin::interval((lo, hi), unbounded).unwrap_or_else(|e| panic!("{e}"));
        hasse_text(&order, &check(&order))
    }

    #[test]
    fn zero() {
        expect![[r#"
            zero: 4 elements, 4 covers, top ⊤, bottom ⊥ — a lattice
            levels (top to bottom):
               2  ⊤
               1  0   ≠0
               0  ⊥
            covers (lower ⋖ upper):
              ⊥ ⋖ 0
              ⊥ ⋖ ≠0
              0 ⋖ ⊤
              ≠0 ⋖ ⊤"#]]
        .assert_eq(&text("zero"));
    }

    #[test]
    fn sign() {
        expect![[r#"
            sign: 8 elements, 12 covers, top ⊤, bottom ⊥ — a lattice
            levels (top to bottom):
               3  ⊤
               2  ≤0   ≠0   ≥0
               1  <0   0   >0
               0  ⊥
            covers (lower ⋖ upper):
              ⊥ ⋖ <0
              ⊥ ⋖ 0
              ⊥ ⋖ >0
              <0 ⋖ ≤0
              <0 ⋖ ≠0
              0 ⋖ ≤0
              0 ⋖ ≥0
              >0 ⋖ ≠0
              >0 ⋖ ≥0
              ≤0 ⋖ ⊤
              ≠0 ⋖ ⊤
              ≥0 ⋖ ⊤"#]]
        .assert_eq(&text("sign"));
    }

    #[test]
    fn powerset() {
        expect![[r#"
            powerset {x, y, z}: 8 elements, 12 covers, top {x, y, z}, bottom ∅ — a lattice
            levels (top to bottom):
               3  {x, y, z}
               2  {x, y}   {x, z}   {y, z}
               1  {x}   {y}   {z}
               0  ∅
            covers (lower ⋖ upper):
              ∅ ⋖ {x}
              ∅ ⋖ {y}
              ∅ ⋖ {z}
              {x} ⋖ {x, y}
              {x} ⋖ {x, z}
              {y} ⋖ {x, y}
              {y} ⋖ {y, z}
              {z} ⋖ {x, z}
              {z} ⋖ {y, z}
              {x, y} ⋖ {x, y, z}
              {x, z} ⋖ {x, y, z}
              {y, z} ⋖ {x, y, z}"#]]
        .assert_eq(&text("powerset x y z"));
    }

    #[test]
    fn flat() {
        expect![[r#"
            flat {0, 1, 2}: 5 elements, 6 covers, top ⊤, bottom ⊥ — a lattice
            levels (top to bottom):
               2  ⊤
               1  0   1   2
               0  ⊥
            covers (lower ⋖ upper):
              ⊥ ⋖ 0
              ⊥ ⋖ 1
              ⊥ ⋖ 2
              0 ⋖ ⊤
              1 ⋖ ⊤
              2 ⋖ ⊤"#]]
        .assert_eq(&text("flat 0 1 2"));
    }

    #[test]
    fn interval() {
        expect![[r#"
            interval [-1, 1]: 7 elements, 9 covers, top [-1, 1], bottom ⊥ — a lattice
            levels (top to bottom):
               3  [-1, 1]
               2  [-1, 0]   [0, 1]
               1  [-1, -1]   [0, 0]   [1, 1]
               0  ⊥
            covers (lower ⋖ upper):
              ⊥ ⋖ [-1, -1]
              ⊥ ⋖ [0, 0]
              ⊥ ⋖ [1, 1]
              [-1, -1] ⋖ [-1, 0]
              [0, 0] ⋖ [-1, 0]
              [0, 0] ⋖ [0, 1]
              [1, 1] ⋖ [0, 1]
              [-1, 0] ⋖ [-1, 1]
              [0, 1] ⋖ [-1, 1]"#]]
        .assert_eq(&window_text(-1, 1, false));
    }

    #[test]
    fn interval_unbounded() {
        expect![[r#"
            interval [0, 1] with ±∞: 9 elements, 12 covers, top [-∞, +∞], bottom ⊥ — a lattice
            levels (top to bottom):
               4  [-∞, +∞]
               3  [-∞, 1]   [0, +∞]
               2  [0, 1]   [-∞, 0]   [1, +∞]
               1  [0, 0]   [1, 1]
               0  ⊥
            covers (lower ⋖ upper):
              ⊥ ⋖ [0, 0]
              ⊥ ⋖ [1, 1]
              [0, 0] ⋖ [0, 1]
              [0, 0] ⋖ [-∞, 0]
              [1, 1] ⋖ [0, 1]
              [1, 1] ⋖ [1, +∞]
              [0, 1] ⋖ [-∞, 1]
              [0, 1] ⋖ [0, +∞]
              [-∞, 0] ⋖ [-∞, 1]
              [-∞, 1] ⋖ [-∞, +∞]
              [0, +∞] ⋖ [-∞, +∞]
              [1, +∞] ⋖ [0, +∞]"#]]
        .assert_eq(&window_text(0, 1, true));
    }

    #[test]
    fn product() {
        expect![[r#"
            zero × zero: 16 elements, 32 covers, top (⊤, ⊤), bottom (⊥, ⊥) — a lattice
            levels (top to bottom):
               4  (⊤, ⊤)
               3  (0, ⊤)   (≠0, ⊤)   (⊤, 0)   (⊤, ≠0)
               2  (⊥, ⊤)   (0, 0)   (0, ≠0)   (≠0, 0)   (≠0, ≠0)   (⊤, ⊥)
               1  (⊥, 0)   (⊥, ≠0)   (0, ⊥)   (≠0, ⊥)
               0  (⊥, ⊥)
            covers (lower ⋖ upper):
              (⊥, ⊥) ⋖ (⊥, 0)
              (⊥, ⊥) ⋖ (⊥, ≠0)
              (⊥, ⊥) ⋖ (0, ⊥)
              (⊥, ⊥) ⋖ (≠0, ⊥)
              (⊥, 0) ⋖ (⊥, ⊤)
              (⊥, 0) ⋖ (0, 0)
              (⊥, 0) ⋖ (≠0, 0)
              (⊥, ≠0) ⋖ (⊥, ⊤)
              (⊥, ≠0) ⋖ (0, ≠0)
              (⊥, ≠0) ⋖ (≠0, ≠0)
              (⊥, ⊤) ⋖ (0, ⊤)
              (⊥, ⊤) ⋖ (≠0, ⊤)
              (0, ⊥) ⋖ (0, 0)
              (0, ⊥) ⋖ (0, ≠0)
              (0, ⊥) ⋖ (⊤, ⊥)
              (0, 0) ⋖ (0, ⊤)
              (0, 0) ⋖ (⊤, 0)
              (0, ≠0) ⋖ (0, ⊤)
              (0, ≠0) ⋖ (⊤, ≠0)
              (0, ⊤) ⋖ (⊤, ⊤)
              (≠0, ⊥) ⋖ (≠0, 0)
              (≠0, ⊥) ⋖ (≠0, ≠0)
              (≠0, ⊥) ⋖ (⊤, ⊥)
              (≠0, 0) ⋖ (≠0, ⊤)
              (≠0, 0) ⋖ (⊤, 0)
              (≠0, ≠0) ⋖ (≠0, ⊤)
              (≠0, ≠0) ⋖ (⊤, ≠0)
              (≠0, ⊤) ⋖ (⊤, ⊤)
              (⊤, ⊥) ⋖ (⊤, 0)
              (⊤, ⊥) ⋖ (⊤, ≠0)
              (⊤, 0) ⋖ (⊤, ⊤)
              (⊤, ≠0) ⋖ (⊤, ⊤)"#]]
        .assert_eq(&text("product zero zero"));
    }

    #[test]
    fn bowtie_text_names_the_violations() {
        let order = parse_order("bowtie", "a < c, d\nb < c, d").unwrap_or_else(|e| panic!("{e}"));
        expect![[r#"
            bowtie: 4 elements, 4 covers, top none, bottom none — not a lattice (4 violations)
            levels (top to bottom):
               1  c   d
               0  a   b
            covers (lower ⋖ upper):
              a ⋖ c
              a ⋖ d
              b ⋖ c
              b ⋖ d
            violations:
              a and b have no unique least upper bound: c and d are both minimal upper bounds
              a and b have no lower bound
              c and d have no upper bound
              c and d have no unique greatest lower bound: a and b are both maximal lower bounds"#]]
        .assert_eq(&hasse_text(&order, &check(&order)));
    }

    #[test]
    fn cycle_text() {
        let order = parse_order("cycle", "a < b < c < a").unwrap_or_else(|e| panic!("{e}"));
        expect![[r#"
            cycle: 3 elements, 3 given pairs, top none, bottom none — not a partial order
            elements: a   b   c
            given pairs (lower < upper):
              a < b
              b < c
              c < a
            violations:
              not a partial order: a < b < c < a is a cycle (antisymmetry fails)"#]]
        .assert_eq(&hasse_text(&order, &check(&order)));
    }

    #[test]
    fn dot_puts_the_top_at_the_top() {
        let order = build(&["zero".to_string()], &BuiltinOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let dot = hasse_dot(&order, &check(&order));
        expect![[r##"
            digraph lattice {
              rankdir=BT;
              nodesep=0.3;
              ranksep=0.45;
              node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=12, margin="0.12,0.04", height=0.3];
              edge [arrowhead=none, color="#555555"];
              n0 [label="⊥", penwidth=2];
              n1 [label="0"];
              n2 [label="≠0"];
              n3 [label="⊤", penwidth=2];
              { rank=same; n1; n2; }
              n0 -> n1;
              n0 -> n2;
              n1 -> n3;
              n2 -> n3;
            }
        "##]].assert_eq(&dot);
    }

    #[test]
    fn dot_marks_violations_and_escapes() {
        let order = parse_order("q", "'a\"b' < c, d\nb < c, d").unwrap_or_else(|e| panic!("{e}"));
        let dot = hasse_dot(&order, &check(&order));
        assert!(
            dot.contains(r##"n0 [label="a\"b", fillcolor="#ffd6d6""##),
            "{dot}"
        );
    }
}
