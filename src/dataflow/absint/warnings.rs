//! The warnings of abstract interpretation: divisions by a value that may be (or is) zero,
//! and indexing a tuple or string of known length outside `[-len, len - 1]`.

use std::fmt;

/// What can go wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WarningKind {
    DivisionByZero,
    IndexOutOfRange,
}

/// One warning: `certain` when the operation raises whenever it is reached.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Warning {
    pub line: u32,
    pub kind: WarningKind,
    pub certain: bool,
}

impl WarningKind {
    /// The JSON `kind`.
    pub fn name(self) -> &'static str {
        match self {
            WarningKind::DivisionByZero => "division-by-zero",
            WarningKind::IndexOutOfRange => "index-out-of-range",
        }
    }

    fn what(self) -> &'static str {
        match self {
            WarningKind::DivisionByZero => "division by zero",
            WarningKind::IndexOutOfRange => "index out of range",
        }
    }
}

impl Warning {
    /// "Division by zero in line 5", "Possible division by zero in line 7".
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.kind.what();
        if self.certain {
            let mut chars = what.chars();
            let first: String = chars
                .next()
                .map(|c| c.to_uppercase().collect())
                .unwrap_or_default();
            write!(f, "{first}{} in line {}", chars.as_str(), self.line)
        } else {
            write!(f, "Possible {what} in line {}", self.line)
        }
    }
}

/// Sorts warnings by line, kind and certainty (certain first) and drops repeats.
pub fn normalize(mut warnings: Vec<Warning>) -> Vec<Warning> {
    warnings.sort_by_key(|w| (w.line, w.kind, !w.certain));
    warnings.dedup();
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_follow_the_course() {
        let w = |line, kind, certain| Warning {
            line,
            kind,
            certain,
        };
        assert_eq!(
            w(5, WarningKind::DivisionByZero, true).message(),
            "Division by zero in line 5"
        );
        assert_eq!(
            w(7, WarningKind::DivisionByZero, false).message(),
            "Possible division by zero in line 7"
        );
        assert_eq!(
            w(3, WarningKind::IndexOutOfRange, true).message(),
            "Index out of range in line 3"
        );
        let sorted = normalize(vec![
            w(7, WarningKind::DivisionByZero, false),
            w(2, WarningKind::IndexOutOfRange, false),
            w(7, WarningKind::DivisionByZero, true),
            w(7, WarningKind::DivisionByZero, false),
        ]);
        assert_eq!(
            sorted,
            [
                w(2, WarningKind::IndexOutOfRange, false),
                w(7, WarningKind::DivisionByZero, true),
                w(7, WarningKind::DivisionByZero, false)
            ]
        );
        assert_eq!(WarningKind::DivisionByZero.name(), "division-by-zero");
    }
}
