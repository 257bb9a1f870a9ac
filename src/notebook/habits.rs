//! IPython habits in the cell language: `name?` / `name??` (the inspection reply as the
//! cell's output), `%time` / `%%time` (wall time of a run, IPython's format; CPU times are
//! not shown) and `%timeit` (mean ± std. dev. of runs with an automatic loop count bounded
//! by the time budget; each loop is one run of the statement in the interpreter).

use std::time::{Duration, Instant};

use super::invocation::Invocation;
use super::output::{CellError, Output};
use super::session::{Ctx, Session};

/// `name?` (detail 0) or `name??` (detail 1) on a line of its own, also `?name`.
pub(crate) fn inspect_request(line: &str) -> Option<(String, u8)> {
    let t = line.trim();
    let (name, detail) = if let Some(n) = t.strip_suffix("??") {
        (n, 1)
    } else if let Some(n) = t.strip_suffix('?') {
        (n, 0)
    } else if let Some(n) = t.strip_prefix("??") {
        (n, 1)
    } else if let Some(n) = t.strip_prefix('?') {
        (n, 0)
    } else {
        return None;
    };
    let name = name.trim();
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '%')
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    ok.then(|| (name.to_string(), detail))
}

/// Shows the inspection of `name` as the cell's output, or IPython's "not found" line.
pub(crate) fn show_inspection(session: &mut Session, name: &str, detail: u8, ctx: &mut Ctx<'_>) {
    match super::inspect(session, name, name.chars().count(), detail) {
        Some(bundle) => ctx.sink.emit(Output::Display(bundle)),
        None => ctx
            .sink
            .emit(Output::Stdout(format!("Object `{name}` not found.\n"))),
    }
}

/// IPython's `_format_time`: three significant digits in s, ms, µs or ns.
pub(crate) fn format_time(seconds: f64) -> String {
    if seconds >= 60.0 {
        let total = seconds.round() as u64;
        let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60);
        return if h > 0 {
            format!("{h}h {m}min {s}s")
        } else {
            format!("{m}min {s}s")
        };
    }
    let units = ["s", "ms", "\u{b5}s", "ns"];
    let order = if seconds > 0.0 {
        (-(seconds.log10().floor() as i64).div_euclid(3)).clamp(0, 3) as usize
    } else {
        3
    };
    let v = seconds * 1000f64.powi(order as i32);
    format!("{} {}", sig3(v), units[order])
}

/// `"%.3g" % v` for 0 ≤ v < 1000.
fn sig3(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let digits = v.abs().log10().floor() as i32;
    let decimals = (2 - digits).max(0) as usize;
    let s = format!("{v:.decimals$}");
    // %g drops trailing zeros; a rounding carry (999.5 → "1000") keeps 3 digits as %g would
    // switch to exponent form, which times under 1000 in their unit never reach.
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The Python of a `%time`/`%timeit` line or `%%time` cell, with its lines kept in place.
fn statement(inv: &Invocation, name: &str) -> Result<String, CellError> {
    let source = if inv.cell {
        inv.body.clone()
    } else {
        let rest = inv
            .source_line
            .trim_start()
            .trim_start_matches('%')
            .strip_prefix(name)
            .unwrap_or("")
            .trim();
        format!(
            "{}{rest}\n",
            "\n".repeat(inv.line.saturating_sub(1) as usize)
        )
    };
    if source.trim().is_empty() {
        return Err(CellError::usage(format!(
            "%{name} needs a statement: %{name} STATEMENT"
        )));
    }
    Ok(source)
}

/// `%time STATEMENT`, `%%time`.
pub(crate) fn run_time(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    let source = statement(inv, "time")?;
    let start = Instant::now();
    let result = session.run_python_source(&source, ctx);
    let wall = start.elapsed().as_secs_f64();
    ctx.sink.emit(Output::Stdout(format!(
        "Wall time: {}\n",
        format_time(wall)
    )));
    result
}

/// `%timeit [-n N] [-r R] STATEMENT`: loops of 1, 10, 100, ... runs until one loop takes
/// 0.2 s (or N runs each with `-n`), then up to 7 (or R) loops of that many runs, stopping
/// early so as to stay within the cell's time limit.
pub(crate) fn run_timeit(
    session: &mut Session,
    inv: &Invocation,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    let (options, source) = timeit_options(&statement(inv, "timeit")?)?;
    // Half the cell's time limit (10 s without one) for measuring.
    let budget = match session.config.time_limit_s {
        0 => Duration::from_secs(10),
        s => Duration::from_secs_f64(s as f64 * 0.5),
    };
    let begun = Instant::now();
    let time_loop = |session: &mut Session, n: u64, ctx: &mut Ctx<'_>| -> Result<f64, CellError> {
        let start = Instant::now();
        for _ in 0..n {
            let mut quiet: Vec<Output> = Vec::new();
            let mut inner = Ctx {
                sink: &mut quiet,
                cancel: ctx.cancel,
            };
            session.run_python_source(&source, &mut inner)?;
        }
        Ok(start.elapsed().as_secs_f64())
    };
    let mut number = options.loops.unwrap_or(1);
    let mut first = time_loop(session, number, ctx)?;
    while options.loops.is_none()
        && first < 0.2
        && begun.elapsed() * 10 < budget
        && number < 1_000_000_000
    {
        number *= 10;
        first = time_loop(session, number, ctx)?;
    }
    let mut runs = vec![first / number as f64];
    while runs.len() < options.repeat && begun.elapsed() + Duration::from_secs_f64(first) < budget {
        runs.push(time_loop(session, number, ctx)? / number as f64);
    }
    let mean = runs.iter().sum::<f64>() / runs.len() as f64;
    let var = runs.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / runs.len() as f64;
    let plural = |n: u64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    ctx.sink.emit(Output::Stdout(format!(
        "{} ± {} per loop (mean ± std. dev. of {}, {} each)\n",
        format_time(mean),
        format_time(var.sqrt()),
        plural(runs.len() as u64, "run"),
        plural(number, "loop")
    )));
    Ok(())
}

/// `%timeit`'s options: `-n N` loops per run (else chosen as IPython does), `-r R` runs.
#[derive(Debug, PartialEq)]
struct TimeitOptions {
    loops: Option<u64>,
    repeat: usize,
}

/// Splits IPython's `-n N` / `-nN` / `-r R` options off the front of a `%timeit` line.
fn timeit_options(source: &str) -> Result<(TimeitOptions, String), CellError> {
    let mut options = TimeitOptions {
        loops: None,
        repeat: 7,
    };
    let lead = source.len() - source.trim_start_matches('\n').len();
    let mut rest = &source[lead..];
    loop {
        let t = rest.trim_start();
        let Some(flag) = t.strip_prefix('-').and_then(|f| f.chars().next()) else {
            break;
        };
        if !matches!(flag, 'n' | 'r') {
            return Err(CellError::usage(format!(
                "%timeit: option -{flag} is not supported (only -n LOOPS and -r RUNS)"
            )));
        }
        let after = t[2..].trim_start();
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let count = after[..digits]
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| CellError::usage(format!("%timeit: -{flag} needs a positive count")))?;
        match flag {
            'n' => options.loops = Some(count),
            _ => options.repeat = count.min(1000) as usize,
        }
        rest = &after[digits..];
    }
    if rest.trim().is_empty() {
        return Err(CellError::usage(
            "%timeit needs a statement: %timeit [-n N] [-r R] STATEMENT",
        ));
    }
    Ok((options, format!("{}{}", &source[..lead], rest.trim_start())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_like_ipython() {
        assert_eq!(format_time(1.5), "1.5 s");
        assert_eq!(format_time(0.0123), "12.3 ms");
        assert_eq!(format_time(0.000_004_05), "4.05 \u{b5}s");
        assert_eq!(format_time(2.5e-8), "25 ns");
        assert_eq!(format_time(0.1), "100 ms");
        assert_eq!(format_time(125.0), "2min 5s");
    }

    #[test]
    fn timeit_options_are_split_off() {
        let (o, s) = timeit_options("\n-n 10 -r3 sum(range(5))\n").unwrap();
        assert_eq!(
            o,
            TimeitOptions {
                loops: Some(10),
                repeat: 3
            }
        );
        assert_eq!(s, "\nsum(range(5))\n");
        let (o, s) = timeit_options("x - 1\n").unwrap();
        assert_eq!((o.loops, o.repeat, s.as_str()), (None, 7, "x - 1\n"));
        assert!(timeit_options("-q f()").is_err());
        assert!(timeit_options("-n 0 f()").is_err());
        assert!(timeit_options("-n 5").is_err());
    }

    #[test]
    fn inspection_requests() {
        assert_eq!(inspect_request("f?"), Some(("f".into(), 0)));
        assert_eq!(
            inspect_request("math.sqrt??"),
            Some(("math.sqrt".into(), 1))
        );
        assert_eq!(inspect_request("?len"), Some(("len".into(), 0)));
        assert_eq!(inspect_request("x = a ? b"), None);
        assert_eq!(inspect_request("?"), None);
        assert_eq!(inspect_request("print('?')"), None);
    }
}
