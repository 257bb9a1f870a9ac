//! The instructor's grading spec: a TOML file of limits and criteria.
//!
//! ```toml
//! [limits]                 # per submission; all optional
//! time_limit_s = 20
//! step_budget = 1000000
//! memory_mb = 1024
//!
//! [[criterion]]            # a function exists, with this signature (optional)
//! name = "clamp is defined"
//! function = "clamp"
//! signature = "clamp(x: int, lo: int, hi: int) -> int"
//!
//! [[criterion]]            # a command's JSON payload satisfies a Python expression
//! name = "two conditions"
//! points = 2
//! run = "%cfg clamp"
//! expect = "len([n for n in payload['nodes'] if n['kind'] == 'condition']) == 2"
//! hint = "clamp needs two comparisons"
//!
//! [[criterion]]            # several commands: `payloads` lists every view's payload
//! name = "as precise as the reference"
//! run = """%absint mine f
//! %absint sign f"""
//! expect = "len(payloads[0]['nodes']) == len(payloads[1]['nodes'])"
//!
//! [[criterion]]            # Python asserts run after the submission, in its session
//! name = "hidden tests"
//! visibility = "after_published"
//! tests = "assert clamp(5, 0, 3) == 3"
//!
//! [[criterion]]            # %equiv: the student's function against a reference
//! name = "same as the reference"
//! equiv = "clamp"
//! reference = "def clamp_ref(x: int, lo: int, hi: int) -> int:\n    return max(lo, min(x, hi))\n"
//! options = "--pre"        # optional: %equiv's options (--returns-only, --pre, --unroll N)
//! ```

use serde::{Deserialize, Serialize};

/// What a submission may use.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Seconds for the whole submission: its cells and the criteria.
    pub time_limit_s: f64,
    /// Interpreter steps per cell.
    pub step_budget: u64,
    /// Memory of the process grading one submission.
    pub memory_mb: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time_limit_s: 30.0,
            step_budget: 1_000_000,
            memory_mb: 1024,
        }
    }
}

/// Who sees a criterion's result on Gradescope.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    #[default]
    Visible,
    Hidden,
    AfterDueDate,
    AfterPublished,
}

impl Visibility {
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
        }
    }
}

/// What a criterion tests.
#[derive(Clone, Debug, PartialEq)]
pub enum Test {
    /// A function of that name is defined (with that signature, as `%who` prints it).
    Function {
        name: String,
        signature: Option<String>,
    },
    /// A `%` command, run after the submission; its payload must make `expect` true.
    View { command: String, expect: String },
    /// Python statements run in the submission's session; they must not raise.
    Tests { code: String },
    /// `%equiv function REFERENCE options` after defining the reference (Python source of
    /// one function): equivalent, or equivalent up to the bound, passes.
    Equiv {
        function: String,
        reference: String,
        options: String,
    },
}

/// One line of the rubric.
#[derive(Clone, Debug, PartialEq)]
pub struct Criterion {
    pub name: String,
    pub points: f64,
    pub visibility: Visibility,
    /// Shown to the student when the criterion fails.
    pub hint: Option<String>,
    pub test: Test,
}

/// A whole spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub limits: Limits,
    pub criteria: Vec<Criterion>,
}

/// Why a spec cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{0}")]
    Toml(String),
    #[error("criterion {index} ({name:?}): {why}")]
    Criterion {
        index: usize,
        name: String,
        why: String,
    },
    #[error("the spec has no [[criterion]]")]
    Empty,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    criterion: Vec<RawCriterion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCriterion {
    name: String,
    #[serde(default = "one_point")]
    points: f64,
    #[serde(default)]
    visibility: Visibility,
    hint: Option<String>,
    function: Option<String>,
    signature: Option<String>,
    run: Option<String>,
    expect: Option<String>,
    tests: Option<String>,
    equiv: Option<String>,
    reference: Option<String>,
    options: Option<String>,
}

fn one_point() -> f64 {
    1.0
}

impl Spec {
    /// Parses and checks a spec's text.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let raw: RawSpec = toml::from_str(text).map_err(|e| SpecError::Toml(e.to_string()))?;
        if raw.criterion.is_empty() {
            return Err(SpecError::Empty);
        }
        let criteria = raw
            .criterion
            .into_iter()
            .enumerate()
            .map(|(i, c)| criterion(i + 1, c))
            .collect::<Result<Vec<_>, _>>()?;
        if !(raw.limits.time_limit_s > 0.0) {
            return Err(SpecError::Toml(
                "limits.time_limit_s must be positive".into(),
            ));
        }
        Ok(Spec {
            limits: raw.limits,
            criteria,
        })
    }

    /// The points of every criterion together.
    pub fn max_score(&self) -> f64 {
        self.criteria.iter().map(|c| c.points).sum()
    }
}

fn criterion(index: usize, c: RawCriterion) -> Result<Criterion, SpecError> {
    let fail = |why: &str| SpecError::Criterion {
        index,
        name: c.name.clone(),
        why: why.to_string(),
    };
    if !(c.points >= 0.0 && c.points.is_finite()) {
        return Err(fail("points must be a number ≥ 0"));
    }
    if let Some(function) = &c.equiv {
        let (Some(reference), None, None, None, None, None) = (
            &c.reference,
            &c.function,
            &c.run,
            &c.tests,
            &c.expect,
            &c.signature,
        ) else {
            return Err(fail(
                "`equiv` needs `reference` (a function's source) and no `function`, `run` or `tests`",
            ));
        };
        return Ok(Criterion {
            name: c.name.clone(),
            points: c.points,
            visibility: c.visibility,
            hint: c.hint.clone(),
            test: Test::Equiv {
                function: function.clone(),
                reference: reference.clone(),
                options: c.options.clone().unwrap_or_default(),
            },
        });
    }
    if c.reference.is_some() || c.options.is_some() {
        return Err(fail("`reference` and `options` go with `equiv`"));
    }
    let test = match (&c.function, &c.run, &c.tests) {
        (Some(name), None, None) if c.expect.is_none() => Test::Function {
            name: name.clone(),
            signature: c.signature.clone(),
        },
        (None, Some(command), None) if c.signature.is_none() => {
            let Some(expect) = c.expect.clone() else {
                return Err(fail(
                    "`run` needs `expect`, a Python expression over `payload`",
                ));
            };
            if !command.trim_start().starts_with('%') {
                return Err(fail("`run` is a % command, such as \"%cfg f\""));
            }
            Test::View {
                command: command.trim().to_string(),
                expect,
            }
        }
        (None, None, Some(code)) if c.expect.is_none() && c.signature.is_none() => {
            Test::Tests { code: code.clone() }
        }
        _ => {
            return Err(fail(
                "give exactly one of `function` (with optional `signature`), `run` with `expect`, or `tests`",
            ));
        }
    };
    Ok(Criterion {
        name: c.name,
        points: c.points,
        visibility: c.visibility,
        hint: c.hint,
        test,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_with_each_kind_of_criterion() {
        let spec = Spec::parse(
            r#"
[limits]
time_limit_s = 5

[[criterion]]
name = "defined"
function = "f"
signature = "f(x: int) -> int"

[[criterion]]
name = "cfg"
points = 2.5
run = "%cfg f"
expect = "len(payload['nodes']) > 2"
hint = "look again"

[[criterion]]
name = "tests"
visibility = "after_published"
tests = "assert f(1) == 2"
"#,
        )
        .unwrap();
        assert_eq!(spec.limits.time_limit_s, 5.0);
        assert_eq!(spec.limits.step_budget, 1_000_000);
        assert_eq!(spec.max_score(), 4.5);
        assert_eq!(
            spec.criteria[1].test,
            Test::View {
                command: "%cfg f".into(),
                expect: "len(payload['nodes']) > 2".into()
            }
        );
        assert_eq!(spec.criteria[2].visibility, Visibility::AfterPublished);
    }

    #[test]
    fn an_equiv_criterion() {
        let spec = Spec::parse(
            "[[criterion]]\nname = \"same\"\nequiv = \"f\"\nreference = \"def g(x: int) -> int:\\n    return x\\n\"\noptions = \"--pre\"\n",
        )
        .unwrap();
        assert_eq!(
            spec.criteria[0].test,
            Test::Equiv {
                function: "f".into(),
                reference: "def g(x: int) -> int:\n    return x\n".into(),
                options: "--pre".into()
            }
        );
        let error = |text: &str| Spec::parse(text).unwrap_err().to_string();
        assert!(
            error("[[criterion]]\nname = \"a\"\nequiv = \"f\"\n").contains("needs `reference`")
        );
        assert!(
            error("[[criterion]]\nname = \"a\"\nfunction = \"f\"\noptions = \"x\"\n")
                .contains("go with `equiv`")
        );
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let error = |text: &str| Spec::parse(text).unwrap_err().to_string();
        assert_eq!(error(""), "the spec has no [[criterion]]");
        assert_eq!(
            error("[[criterion]]\nname = \"a\"\nrun = \"%cfg f\"\n"),
            "criterion 1 (\"a\"): `run` needs `expect`, a Python expression over `payload`"
        );
        assert!(
            error("[[criterion]]\nname = \"a\"\nfunction = \"f\"\ntests = \"x\"\n")
                .contains("exactly one of")
        );
        assert!(
            error("[[criterion]]\nname = \"a\"\nfunction = \"f\"\ncolour = 1\n").contains("colour")
        );
        assert!(
            error("[[criterion]]\nname = \"a\"\npoints = -1\nfunction = \"f\"\n")
                .contains("points")
        );
    }
}
