//! The registries: every abstract domain and every dataflow analysis is one row of a table.
//!
//! `%absint`, `%check-domain`, `%lattice`'s built-in kinds, `%dataflow`, their `%help`, completion,
//! the cell fuzzer and the README's lists all read these tables. A row is made from one trait
//! impl ([`AbstractDomain`] for a domain, [`FactAnalysis`] for an analysis) by [`domain`] or
//! [`analysis`], so adding a domain or an analysis is one new file plus one line here (see
//! ARCHITECTURE.md, "How to add an analysis / a domain").

use std::borrow::Cow;

use super::absint::{self, AbsReport};
use super::analyses::{
    AvailableExpressions, DefUseChains, FactAnalysis, FactReport, LiveVariables, Program,
    ReachingDefinitions, VeryBusyExpressions,
};
use super::domains::soundness::{CheckError, CheckOptions, SoundnessReport, check_domain};
use super::domains::{AbstractDomain, Constant, Interval, Parity, Sign, Zero};
use super::engine::{Direction, FixpointError, Options};
use super::finite::builtin::BuiltinOptions;
use super::finite::{FiniteOrder, OrderError};
use crate::cancel::Cancel;

/// The abstract domains, in the order commands list them.
pub const DOMAINS: &[DomainRow] = &[
    domain::<Zero>(),
    domain::<Sign>(),
    domain::<Constant>(),
    domain::<Interval>(),
    domain::<Parity>(),
];

/// The dataflow analyses, in the order commands list them.
pub const ANALYSES: &[AnalysisRow] = &[
    analysis::<ReachingDefinitions>(),
    analysis::<LiveVariables<'static>>(),
    analysis::<AvailableExpressions<'static>>(),
    analysis::<VeryBusyExpressions<'static>>(),
    analysis::<DefUseChains>(),
];

/// How `%lattice KIND` draws a domain.
#[derive(Clone, Copy, Debug)]
pub struct LatticeEntry {
    /// The line(s) of `%help lattice` after the kind's name.
    pub help: &'static str,
    /// The finite order (options: `--window`, `--unbounded`).
    pub build: fn(&BuiltinOptions) -> Result<FiniteOrder, OrderError>,
    /// Whether `product A B` takes it as a factor.
    pub factor: bool,
}

/// One abstract domain.
#[derive(Clone, Copy, Debug)]
pub struct DomainRow {
    pub name: &'static str,
    /// What the elements are (`0, ≠0`); empty for none.
    pub description: &'static str,
    pub lattice: Option<LatticeEntry>,
    /// The soundness check of `%check-domain`.
    pub check: fn(&CheckOptions, &Cancel) -> Result<SoundnessReport, CheckError>,
    /// Abstract interpretation in the domain (`%absint`).
    pub analyze: fn(&Program<'_>, &Options<'_>) -> Result<AbsReport, FixpointError>,
}

/// One dataflow analysis.
#[derive(Clone, Copy, Debug)]
pub struct AnalysisRow {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub title: &'static str,
    /// What a fact means, shown under the title.
    pub legend: &'static str,
    /// Its lines in `%help dataflow`.
    pub help: &'static str,
    pub direction: Direction,
    /// `may` (join is union) or `must` (join is intersection).
    pub quantifier: &'static str,
    pub run: fn(&Program<'_>, &Options<'_>) -> Result<FactReport, FixpointError>,
}

/// The row of domain `D`.
pub const fn domain<D: AbstractDomain>() -> DomainRow {
    DomainRow {
        name: D::NAME,
        description: D::DESCRIPTION,
        lattice: D::LATTICE,
        check: check_domain::<D>,
        analyze: absint::analyze::<D>,
    }
}

/// The row of analysis `A`.
pub const fn analysis<A: FactAnalysis>() -> AnalysisRow {
    AnalysisRow {
        name: A::NAME,
        aliases: A::ALIASES,
        title: A::TITLE,
        legend: A::LEGEND,
        help: A::HELP,
        direction: A::DIRECTION,
        quantifier: if A::MUST { "must" } else { "may" },
        run: A::run,
    }
}

/// A domain name that is none of [`DOMAINS`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown domain {0:?}: choose one of {list}", list = DOMAIN_NAMES.join(", "))]
pub struct UnknownDomain(pub String);

/// A name that is none of the analyses or their aliases.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown analysis {0:?}: choose one of {list}", list = analysis_names().join(", "))]
pub struct UnknownAnalysis(pub String);

/// The domain called `name`.
pub fn find_domain(name: &str) -> Result<&'static DomainRow, UnknownDomain> {
    DOMAINS
        .iter()
        .find(|d| d.name == name)
        .ok_or_else(|| UnknownDomain(name.to_string()))
}

/// The analysis called `name` or one of its aliases.
pub fn find_analysis(name: &str) -> Result<&'static AnalysisRow, UnknownAnalysis> {
    ANALYSES
        .iter()
        .find(|a| a.name == name || a.aliases.contains(&name))
        .ok_or_else(|| UnknownAnalysis(name.to_string()))
}

/// The analyses' names (without aliases).
pub fn analysis_names() -> Vec<&'static str> {
    ANALYSES.iter().map(|a| a.name).collect()
}

/// Every domain name, for completion.
pub const DOMAIN_NAMES: [&str; DOMAINS.len()] = {
    let mut out = [""; DOMAINS.len()];
    let mut i = 0;
    while i < DOMAINS.len() {
        out[i] = DOMAINS[i].name;
        i += 1;
    }
    out
};

const fn analysis_word_count() -> usize {
    let (mut n, mut i) = (0, 0);
    while i < ANALYSES.len() {
        n += 1 + ANALYSES[i].aliases.len();
        i += 1;
    }
    n
}

/// Every analysis name and alias, each name followed by its aliases, for completion.
pub const ANALYSIS_WORDS: [&str; analysis_word_count()] = {
    let mut out = [""; analysis_word_count()];
    let (mut n, mut i) = (0, 0);
    while i < ANALYSES.len() {
        out[n] = ANALYSES[i].name;
        n += 1;
        let mut j = 0;
        while j < ANALYSES[i].aliases.len() {
            out[n] = ANALYSES[i].aliases[j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    out
};

/// `%lattice`'s kinds that are no domain, before and after the domains.
const LATTICE_BEFORE: [&str; 2] = ["powerset", "flat"];
const LATTICE_AFTER: [&str; 1] = ["product"];

const fn drawn_domains() -> usize {
    let (mut n, mut i) = (0, 0);
    while i < DOMAINS.len() {
        if DOMAINS[i].lattice.is_some() {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Every kind `%lattice` knows: `powerset`, `flat`, the drawable domains, `product`.
pub const LATTICE_KINDS: [&str; drawn_domains() + 3] = {
    let mut out = [""; drawn_domains() + 3];
    out[0] = LATTICE_BEFORE[0];
    out[1] = LATTICE_BEFORE[1];
    let (mut n, mut i) = (2, 0);
    while i < DOMAINS.len() {
        if DOMAINS[i].lattice.is_some() {
            out[n] = DOMAINS[i].name;
            n += 1;
        }
        i += 1;
    }
    out[n] = LATTICE_AFTER[0];
    out
};

/// The domain `%lattice KIND` draws, if `kind` names one that can be drawn.
pub fn lattice_domain(kind: &str) -> Option<&'static LatticeEntry> {
    DOMAINS
        .iter()
        .find(|d| d.name == kind)
        .and_then(|d| d.lattice.as_ref())
}

/// The domains `product A B` takes as factors.
pub fn lattice_factors() -> Vec<&'static str> {
    DOMAINS
        .iter()
        .filter(|d| d.lattice.is_some_and(|l| l.factor))
        .map(|d| d.name)
        .collect()
}

/// `a, b, c or d`.
pub fn or_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", init.join(", "), last.as_ref())
        }
    }
}

/// `zero (0, ≠0), sign (…), constant (constant propagation) or interval`.
fn domain_choices() -> String {
    let items: Vec<String> = DOMAINS
        .iter()
        .map(|d| match d.description {
            "" => d.name.to_string(),
            text => format!("{} ({text})", d.name),
        })
        .collect();
    or_list(&items)
}

/// Lines `  NAME<pad> text`, continuation lines indented under the text; without `indent`,
/// `NAME<pad> text` with continuation lines unindented (as `%help dataflow` has always shown).
fn name_block<'a>(
    rows: impl Iterator<Item = (&'a str, &'a str)>,
    width: usize,
    indent: bool,
) -> String {
    let mut out = String::new();
    for (name, text) in rows {
        for (i, line) in text.lines().enumerate() {
            match (i, indent) {
                (0, true) => out.push_str(&format!("  {name:<width$} {line}\n")),
                (0, false) => out.push_str(&format!("{name:<width$} {line}\n")),
                (_, true) => out.push_str(&format!("  {:<width$} {line}\n", "")),
                (_, false) => out.push_str(&format!("{line}\n")),
            }
        }
    }
    out.pop();
    out
}

/// Help text with the registries' lists filled in: `{domains}` (names), `{domain-choices}`
/// (names with their descriptions), `{domain-or}` (`a, b or c`), `{analyses}`,
/// `{analysis-help}` (a block per analysis), `{lattice-domains}` (a block per drawable domain),
/// `{lattice-factors}`.
pub fn fill(text: &str) -> Cow<'_, str> {
    if !text.contains('{') {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    let lists: [(&str, fn() -> String); 7] = [
        ("{domains}", || DOMAIN_NAMES.join(", ")),
        ("{domain-choices}", domain_choices),
        ("{domain-or}", || or_list(&DOMAIN_NAMES)),
        ("{analyses}", || analysis_names().join(", ")),
        ("{analysis-help}", || {
            name_block(ANALYSES.iter().map(|a| (a.name, a.help)), 11, false)
        }),
        ("{lattice-domains}", || {
            name_block(
                DOMAINS
                    .iter()
                    .filter_map(|d| d.lattice.as_ref().map(|l| (d.name, l.help))),
                18,
                true,
            )
        }),
        ("{lattice-factors}", || lattice_factors().join(", ")),
    ];
    for (key, list) in lists {
        if out.contains(key) {
            out = out.replace(key, &list());
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for d in DOMAINS {
            assert_eq!(find_domain(d.name).map(|r| r.name), Ok(d.name));
        }
        for w in ANALYSIS_WORDS {
            assert!(find_analysis(w).is_ok(), "{w}");
        }
        let mut words: Vec<&str> = ANALYSIS_WORDS
            .iter()
            .chain(&DOMAIN_NAMES)
            .copied()
            .collect();
        words.sort();
        words.dedup();
        assert_eq!(words.len(), ANALYSIS_WORDS.len() + DOMAIN_NAMES.len());
        assert_eq!(find_analysis("liveness").map(|a| a.name), Ok("live"));
        assert!(find_analysis("reach").is_err());
        let e = find_domain("octagon").unwrap_err().to_string();
        assert!(
            e.contains("choose one of zero, sign, constant, interval"),
            "{e}"
        );
    }

    #[test]
    fn filling_help() {
        assert_eq!(fill("no lists"), "no lists");
        // Written so that adding a domain needs no change here.
        let last = DOMAIN_NAMES[DOMAIN_NAMES.len() - 1];
        let listed = fill("{domain-or}.");
        assert!(
            listed.starts_with("zero, sign, constant, interval"),
            "{listed}"
        );
        assert!(listed.ends_with(&format!(" or {last}.")), "{listed}");
        assert_eq!(LATTICE_KINDS[..2], ["powerset", "flat"]);
        assert_eq!(LATTICE_KINDS.last(), Some(&"product"));
        for kind in ["zero", "sign", "interval"] {
            assert!(LATTICE_KINDS.contains(&kind), "{kind}");
        }
        assert!(!LATTICE_KINDS.contains(&"constant"));
        assert!(fill("{lattice-domains}").contains("  zero               the zero domain"));
        assert!(fill("{analysis-help}").starts_with("reaching    reaching definitions"));
        assert_eq!(or_list(&["a"]), "a");
        assert_eq!(or_list(&["a", "b", "c"]), "a, b or c");
    }
}
