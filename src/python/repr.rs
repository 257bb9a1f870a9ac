//! CPython's `repr` of floats, strings and bytes: the one copy that `PyValue`, the
//! interpreter and the IR's printer use. `tests/python_facts.rs` compares it with `python3`.

/// CPython's float repr: the shortest digits that round-trip, chosen with correct rounding
/// (`1715302934980770.25` is `...770.2`, ties to even), fixed notation for 1e-4 ≤ |x| < 1e16.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sign = if f < 0.0 { "-" } else { "" };
    let (digits, exp) = shortest_digits(f.abs());
    let body = if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                format!("{digits}{}.0", "0".repeat(int_len - digits.len()))
            } else {
                format!("{}.{}", &digits[..int_len], &digits[int_len..])
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        }
    } else {
        let mantissa = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        format!(
            "{mantissa}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    };
    format!("{sign}{body}")
}

/// The significant digits of the shortest round-tripping repr of `x > 0`, and the decimal
/// exponent of the first digit.
fn shortest_digits(x: f64) -> (String, i32) {
    let shortest = format!("{x:e}");
    let n = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    // Rust picks some shortest digits; CPython the correctly rounded ones of that length.
    let rounded = format!("{:.*e}", n.saturating_sub(1), x);
    let chosen = if rounded.parse::<f64>().ok() == Some(x) {
        rounded
    } else {
        shortest
    };
    let (mantissa, exp) = chosen.split_once('e').unwrap_or((&chosen, "0"));
    (mantissa.replace('.', ""), exp.parse().unwrap_or(0))
}

/// Python's str repr: single quotes unless the text has a single quote and no double quote;
/// non-printable characters escaped as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    escape(s, quote, &mut out);
    out.push(quote);
    out
}

/// `s` escaped as inside a string literal quoted with `quote`, as `repr` escapes it.
pub fn escape(s: &str, quote: char, out: &mut String) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
}

/// Python's `str.isprintable` for one character: exact for Latin-1, and for other characters
/// the separators, format characters and private-use areas are non-printable.
pub fn is_printable(c: char) -> bool {
    let u = c as u32;
    if u < 0x100 {
        return (0x20..0x7f).contains(&u) || (u > 0xa0 && u != 0xad);
    }
    !matches!(u,
        0x1680 | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064 | 0x2066..=0x206f
        | 0x3000 | 0xfeff | 0xfff9..=0xfffb | 0xfffe | 0xffff | 0x0600..=0x0605 | 0x061c
        | 0x06dd | 0x070f | 0x180e | 0xd800..=0xdfff | 0xe000..=0xf8ff | 0x110bd
        | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f
        | 0xf0000..=0x10ffff)
}

/// Python's `repr` of a bytes value.
pub fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = format!("b{quote}");
    for &byte in b {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c as char == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(byte as char),
            _ => out.push_str(&format!("\\x{byte:02x}")),
        }
    }
    out.push(quote);
    out
}
