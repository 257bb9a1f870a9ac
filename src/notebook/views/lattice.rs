//! `%lattice KIND [ARGS]`, `%%lattice [NAME]` (a user's order) and `%check-domain DOMAIN`.

use serde_json::json;

use crate::dataflow::domains::soundness::{CheckError, CheckOptions, SoundnessReport};
use crate::dataflow::finite::builtin::{self, BuiltinOptions};
use crate::dataflow::finite::laws::{self, LawReport};
use crate::dataflow::finite::parse::parse_order;
use crate::dataflow::finite::{FiniteOrder, OrderError};
use crate::dataflow::registry;
use crate::notebook::commands::{OptionSpec, graphviz_error};
use crate::notebook::invocation::Invocation;
use crate::notebook::output::{CellError, View, payload};
use crate::notebook::session::{Ctx, Session};
use crate::render::html::{escape, table, text_table};
use crate::render::lattice::{hasse_dot, hasse_text, summary};

/// The usage line of `%lattice` / `%%lattice`.
pub const LATTICE_USAGE: &str =
    "%lattice KIND [ARGS]\n%%lattice [NAME]\n<lines `a < b < c`, or a join table>";

/// `%help lattice`.
pub const LATTICE_HELP: &str = r"Draws the Hasse diagram of a finite lattice with ⊤ at the top, lists its levels and
covering pairs, and checks the lattice laws: a partial order (a cycle is named), a unique least
upper bound and greatest lower bound for every pair (a counterexample is named), top and bottom.

Kinds:
  powerset x y z     every subset of the atoms (at most 6 atoms: 64 elements)
  flat 0 1 2         ⊥, the values, ⊤ (constant propagation)
{lattice-domains}
  product A B        the product order of two of {lattice-factors}

%%lattice [NAME] takes a user's order in the cell body (an empty body: %%lattice KIND), either
  order lines        ⊥ < a, b < ⊤   (a comma lists several elements; > reads downwards)
  or a join table    a header row `⊔ | ⊥ a b ⊤`, then a row `a | a a ⊤ ⊤` per element.
Names are words; {x, y}, (a, b), [0, 1] and quoted text count as one name. At most 64 elements.";

/// The options of `%lattice` (for `interval`).
pub static LATTICE_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--window",
        values: 2,
        help: "interval: the ints LO HI the bounds range over",
    },
    OptionSpec {
        name: "--unbounded",
        values: 0,
        help: "interval: also the intervals with an infinite bound",
    },
];

/// `%help check-domain`.
pub const CHECK_DOMAIN_HELP: &str = "Samples concrete ints (0, ±1, ±2, …, values past 64 bits, and pseudo-random \
ones from a fixed seed), applies Python's + - * // % and unary - to them and the domain's abstract operators to \
abstract values containing them, and lists every case where the abstract result misses the concrete one. \
Comparison refinement, α, join, meet, widening and the division-by-zero tests are checked too. \
DOMAIN is one of {domains}.\n\nA domain defined in a cell (%domain) is also checked for the lattice laws on its window, monotone operators and a termination hint. An analysis defined in a cell (%analysis) takes FUNCTION names after it (%check-domain NAME [FUNCTION ...], by default a sample function): its transfer and edge effects must be monotone on every node, on pairs of fact sets drawn from the facts it produces (--samples pairs per step, at most 64).";

/// The options of `%check-domain`.
pub static CHECK_DOMAIN_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "--samples",
        values: 1,
        help: "pseudo-random ints added to the edge values (default 24, at most 1000)",
    },
    OptionSpec {
        name: "--seed",
        values: 1,
        help: "the seed of the pseudo-random ints (default 24301)",
    },
];

/// `%lattice KIND [ARGS]` and `%%lattice [NAME]`.
pub fn run_lattice(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    if !inv.cell && inv.args.len() == 1 && super::user::is_user_domain(session, inv.args.first()) {
        return super::user::lattice(session, inv, ctx);
    }
    // A `%%lattice` cell with an empty body works like the line form.
    let order = if inv.cell && !inv.body.trim().is_empty() {
        let name = if inv.args.is_empty() {
            "lattice".to_string()
        } else {
            inv.args.join(" ")
        };
        parse_order(&name, &inv.body)
    } else {
        let options = BuiltinOptions {
            window: window(inv)?,
            unbounded: inv.flag("--unbounded"),
        };
        builtin::build(&inv.args, &options)
    }
    .map_err(|e| order_error(e, inv))?;
    show_order(session, inv, ctx, &order)
}

/// Shows `order`: its laws checked, its Hasse diagram laid out, the `lattice` view (every
/// `%lattice`, built-in or a domain written in a cell).
pub fn show_order(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
    order: &FiniteOrder,
) -> Result<(), CellError> {
    let report = laws::check(order);
    let dot = hasse_dot(order, &report);
    let limit = std::time::Duration::from_secs(session.config.dot_timeout_s);
    let svg = session
        .layout(&dot, ctx.cancel, limit)
        .map_err(|e| graphviz_error(e, inv))?;
    ctx.show(&lattice_view(order, &report, svg, dot), inv)
}

/// The `lattice` view of an order and its law check (SVG and DOT already made).
pub fn lattice_view(order: &FiniteOrder, report: &LawReport, svg: String, dot: String) -> View {
    let name = |i: usize| order.element(i).to_string();
    let covers: Vec<[String; 2]> = order
        .covers()
        .into_iter()
        .map(|(a, b)| [name(a), name(b)])
        .collect();
    let violations: Vec<&str> = report
        .violations
        .iter()
        .map(|v| v.message.as_str())
        .collect();
    let levels: Option<Vec<Vec<String>>> = order.levels().map(|ls| {
        ls.into_iter()
            .map(|l| l.into_iter().map(name).collect())
            .collect()
    });
    let json = payload(
        "lattice",
        json!({
            "name": order.name,
            "elements": order.elements(),
            "covers": covers,
            "top": report.top.map(name),
            "bottom": report.bottom.map(name),
            "is_lattice": report.is_lattice,
            "violations": violations,
            "is_partial_order": report.is_partial_order,
            "levels": levels,
        }),
    );
    let mut html = format!(
        "<p class=\"analysis-kernel-legend\" style=\"color:#555\">{}. Hasse diagram, ⊤ at the top: a line joins \
         each element to the elements just above it (its covers){}.</p>",
        escape(&summary(order, report)),
        if report.violations.is_empty() {
            ""
        } else {
            "; red elements take part in a violation"
        }
    );
    if !report.violations.is_empty() {
        html.push_str("<ul class=\"analysis-kernel-violations\">");
        for v in &violations {
            html.push_str(&format!("<li>{}</li>", escape(v)));
        }
        if report.violation_count > violations.len() {
            html.push_str(&format!(
                "<li>… and {} more</li>",
                report.violation_count - violations.len()
            ));
        }
        html.push_str("</ul>");
    }
    View {
        kind: "lattice",
        text: hasse_text(order, report),
        html,
        svg: Some(svg),
        dot: Some(dot),
        json,
    }
}

/// `--window LO HI` as two ints.
fn window(inv: &Invocation) -> Result<Option<(i64, i64)>, CellError> {
    let Some(value) = inv.option("--window") else {
        return Ok(None);
    };
    let bounds: Vec<Result<i64, _>> = value.split_whitespace().map(str::parse::<i64>).collect();
    match bounds.as_slice() {
        [Ok(lo), Ok(hi)] => Ok(Some((*lo, *hi))),
        _ => Err(CellError::usage(format!(
            "--window takes two ints LO HI, got {value:?}"
        ))),
    }
}

/// An order error as a cell error; syntax errors in a `%%lattice` body point at the cell line
/// (the body keeps the cell's line numbers).
fn order_error(e: OrderError, inv: &Invocation) -> CellError {
    match e {
        OrderError::Syntax { line, message } => {
            let text = inv.body.lines().nth(line.saturating_sub(1)).unwrap_or("");
            let column = text.len() - text.trim_start().len() + 1;
            CellError::new("LatticeError", format!("{message} (cell line {line})")).at_cell_line(
                line as u32,
                text,
                column as u32,
            )
        }
        OrderError::Usage(message) => CellError::usage(format!("%lattice: {message}")),
        other => CellError::new("LatticeError", other.to_string()),
    }
}

/// `%check-domain DOMAIN [--samples N] [--seed S]`.
pub fn run_check_domain(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    let number = |option: &str| -> Result<Option<u64>, CellError> {
        inv.option(option)
            .map(|v| {
                v.replace('_', "").parse::<u64>().map_err(|_| {
                    CellError::usage(format!("{option} takes a whole number, got {v:?}"))
                })
            })
            .transpose()
    };
    let defaults = CheckOptions::default();
    let options = CheckOptions {
        random_samples: number("--samples")?.map_or(defaults.random_samples, |n| {
            n.min(usize::MAX as u64) as usize
        }),
        seed: number("--seed")?.unwrap_or(defaults.seed),
    };
    if super::user::is_user_analysis(session, inv.args.first())
        && !super::user::is_user_domain(session, inv.args.first())
    {
        return super::user::check_analysis(session, inv, ctx, options);
    }
    let [domain] = inv.args.as_slice() else {
        return Err(CellError::usage(format!(
            "%check-domain takes one domain: {}",
            registry::or_list(&registry::DOMAIN_NAMES)
        )));
    };
    let user = super::user::is_user_domain(session, Some(domain));
    let domain = match registry::find_domain(domain) {
        Ok(d) => Some(d),
        Err(_) if user => None,
        Err(e) => return Err(CellError::usage(e.to_string())),
    };
    let Some(domain) = domain else {
        return super::user::check_domain(session, inv, ctx, options);
    };
    let report = (domain.check)(&options, ctx.cancel).map_err(check_error)?;
    ctx.show(&check_view(&report, &options), inv)
}

/// `%check-domain`'s error: a stop as itself, anything else a usage error.
pub fn check_error(e: CheckError) -> CellError {
    match e {
        CheckError::Stopped(stop) => stop.into(),
        other => CellError::usage(format!("%check-domain: {other}")),
    }
}

/// The `check-domain` view: the verdict, and a table of the failures.
pub fn check_view(report: &SoundnessReport, options: &CheckOptions) -> View {
    let verdict = if report.is_sound() {
        "SOUND"
    } else {
        "UNSOUND"
    };
    let headline = format!(
        "{}: {verdict} — {} cases checked on {} sampled ints (seed {}) and {} abstract values{}",
        report.domain,
        report.cases,
        report.samples.len(),
        options.seed,
        report.abstract_values,
        if report.is_sound() {
            String::new()
        } else {
            format!("; {} failing", report.failing_cases)
        }
    );
    let checked = "checked: + - * // % and -x on members of the operands, refinement by < <= > >= == !=, \
                   α, join, meet, widening, may_be_zero, must_be_zero";
    let headers = [
        "operator",
        "left",
        "right",
        "abstract result",
        "concrete witness",
    ];
    let rows: Vec<Vec<String>> = report
        .failures
        .iter()
        .map(|f| {
            vec![
                f.operator.clone(),
                f.left.clone(),
                f.right.clone(),
                f.result.clone(),
                f.witness.clone(),
            ]
        })
        .collect();
    let mut text = format!("{headline}\n{checked}");
    let mut html = format!(
        "<p><b>{}</b></p><p style=\"color:#555\">{}</p>",
        escape(&headline),
        escape(checked)
    );
    if !rows.is_empty() {
        text.push_str("\nabstract results that miss a concrete result:\n");
        text.push_str(&text_table(&headers, &rows));
        html.push_str(&table(&headers, &rows));
    }
    let failures: Vec<_> = report
        .failures
        .iter()
        .map(|f| {
            json!({"operator": f.operator, "left": f.left, "right": f.right, "result": f.result, "witness": f.witness})
        })
        .collect();
    let json = payload(
        "check-domain",
        json!({
            "domain": report.domain,
            "sound": report.is_sound(),
            "samples": report.samples.len(),
            "seed": options.seed,
            "abstract_values": report.abstract_values,
            "cases": report.cases,
            "failing_cases": report.failing_cases,
            "failures": failures,
        }),
    );
    View {
        kind: "check-domain",
        text,
        html,
        svg: None,
        dot: None,
        json,
    }
}

#[cfg(test)]
mod tests {
    use crate::cancel::Cancel;
    use crate::notebook::output::Output;
    use crate::notebook::session::Session;

    fn run(
        session: &mut Session,
        code: &str,
    ) -> (Result<(), crate::notebook::CellError>, Vec<Output>) {
        session.run_cell(code, &Cancel::new())
    }

    fn payload_of(out: &[Output], kind: &str) -> serde_json::Value {
        let mime = format!("application/vnd.analysis-kernel.{kind}+json");
        out.iter()
            .find_map(|o| match o {
                Output::Display(b) => b.data.get(&mime).cloned(),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no {kind} payload in {out:?}"))
    }

    #[test]
    fn lattice_zero_payload_follows_the_spec() {
        let mut s = Session::default();
        let (r, out) = run(&mut s, "%lattice zero");
        r.unwrap();
        let p = payload_of(&out, "lattice");
        assert_eq!(p["version"], 1);
        assert_eq!(p["kind"], "lattice");
        assert_eq!(p["name"], "zero");
        assert_eq!(p["elements"], serde_json::json!(["⊥", "0", "≠0", "⊤"]));
        assert_eq!(
            p["covers"],
            serde_json::json!([["⊥", "0"], ["⊥", "≠0"], ["0", "⊤"], ["≠0", "⊤"]])
        );
        assert_eq!(
            (p["top"].as_str(), p["bottom"].as_str()),
            (Some("⊤"), Some("⊥"))
        );
        assert_eq!(p["is_lattice"], true);
        assert_eq!(p["violations"], serde_json::json!([]));
        let crate::notebook::output::Output::Display(b) = &out[0] else {
            panic!("{out:?}")
        };
        for mime in ["text/plain", "text/html", "image/svg+xml"] {
            assert!(b.data.contains_key(mime), "{mime}");
        }
        assert!(
            b.data["text/html"]
                .as_str()
                .unwrap_or("")
                .contains("analysis-kernel-legend")
        );
    }

    #[test]
    fn user_orders_and_their_violations() {
        let mut s = Session::default();
        let (r, out) = run(&mut s, "%%lattice bowtie\na < c\na < d\nb < c\nb < d\n");
        r.unwrap();
        let p = payload_of(&out, "lattice");
        assert_eq!(p["is_lattice"], false);
        assert_eq!(p["top"], serde_json::Value::Null);
        assert_eq!(p["bottom"], serde_json::Value::Null);
        assert_eq!(
            p["violations"][0],
            "a and b have no unique least upper bound: c and d are both minimal upper bounds"
        );
        let (r, out) = run(&mut s, "%%lattice sign\n");
        r.unwrap();
        assert_eq!(payload_of(&out, "lattice")["name"], "sign");
        let e = run(&mut s, "%%lattice\n\na < < b\n").0.unwrap_err();
        assert_eq!(e.ename, "LatticeError");
        assert!(e.traceback[0].contains("Cell line 3"), "{:?}", e.traceback);
    }

    #[test]
    fn builtin_options_and_refusals() {
        let mut s = Session::default();
        let (r, out) = run(&mut s, "%lattice interval --window -1 1 --unbounded");
        r.unwrap();
        assert_eq!(payload_of(&out, "lattice")["top"], "[-∞, +∞]");
        let e = run(&mut s, "%lattice powerset a b c d e f g")
            .0
            .unwrap_err();
        assert!(e.evalue.contains("128 elements"), "{}", e.evalue);
        let e = run(&mut s, "%lattice interval --window 1").0.unwrap_err();
        assert_eq!(e.ename, "UsageError");
        let e = run(&mut s, "%lattice cube").0.unwrap_err();
        assert!(e.evalue.contains("unknown lattice kind"), "{}", e.evalue);
    }

    #[test]
    fn help_lists_the_kinds() {
        let mut s = Session::default();
        let (r, out) = run(&mut s, "%help lattice");
        r.unwrap();
        let Output::Display(b) = &out[0] else {
            panic!("{out:?}")
        };
        let text = b.plain_text().unwrap_or("");
        for kind in crate::dataflow::finite::builtin::KINDS {
            assert!(text.contains(&format!("\n  {kind} ")), "{kind} in {text}");
        }
        assert!(text.contains("--window"), "{text}");
    }

    #[test]
    fn check_domain_reports_sound() {
        let mut s = Session::default();
        let (r, out) = run(&mut s, "%check-domain zero --samples 8 --seed 3");
        r.unwrap();
        let p = payload_of(&out, "check-domain");
        assert_eq!(p["sound"], true);
        assert_eq!(p["domain"], "zero");
        assert_eq!(p["seed"], 3);
        assert_eq!(p["failures"], serde_json::json!([]));
        let e = run(&mut s, "%check-domain octagon").0.unwrap_err();
        assert!(
            e.evalue.contains("zero, sign, constant, interval"),
            "{}",
            e.evalue
        );
        let e = run(&mut s, "%check-domain sign --samples 1000000")
            .0
            .unwrap_err();
        assert!(e.evalue.contains("at most"), "{}", e.evalue);
    }
}
