//! Formatting: the format-spec mini-language of `format()`, f-strings and `str.format`, and
//! printf-style `%` formatting, with CPython's rules and messages.

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};

use super::call::Kwargs;
use super::exc::{ExcClass, ExcKind, ExcObject, R, Unwind, fail, type_error, value_error};
use super::num::{self, num};
use super::ops::check_len;
use super::repr::{float_repr, repr, to_str};
use super::seq;
use super::value::Value;

/// A parsed format spec: `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`.
#[derive(Clone, Debug)]
struct Spec {
    fill: char,
    fill_given: bool,
    align: Option<char>,
    sign: char,
    no_neg_zero: bool,
    alternate: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

fn parse_spec(spec: &str, type_name: &str, default_align: char) -> R<Spec> {
    let invalid = || {
        value_error(format!(
            "Invalid format specifier '{spec}' for object of type '{type_name}'"
        ))
    };
    let c: Vec<char> = spec.chars().collect();
    let is_align = |ch: char| matches!(ch, '<' | '>' | '^' | '=');
    let mut s = Spec {
        fill: ' ',
        fill_given: false,
        align: None,
        sign: '-',
        no_neg_zero: false,
        alternate: false,
        width: 0,
        grouping: None,
        precision: None,
        ty: None,
    };
    let mut i = 0;
    if c.len() >= 2 && is_align(c[1]) {
        s.fill = c[0];
        s.fill_given = true;
        s.align = Some(c[1]);
        i = 2;
    } else if !c.is_empty() && is_align(c[0]) {
        s.align = Some(c[0]);
        i = 1;
    }
    if let Some(&ch @ ('+' | '-' | ' ')) = c.get(i) {
        s.sign = ch;
        i += 1;
    }
    if c.get(i) == Some(&'z') {
        s.no_neg_zero = true;
        i += 1;
    }
    if c.get(i) == Some(&'#') {
        s.alternate = true;
        i += 1;
    }
    if !s.fill_given && c.get(i) == Some(&'0') {
        s.fill = '0';
        if s.align.is_none() && default_align == '>' {
            s.align = Some('=');
        }
        i += 1;
    }
    let digits = |i: &mut usize| -> Option<usize> {
        let start = *i;
        while c.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        (start < *i).then(|| {
            c[start..*i]
                .iter()
                .collect::<String>()
                .parse()
                .unwrap_or(usize::MAX)
        })
    };
    if let Some(w) = digits(&mut i) {
        s.width = w;
    }
    if let Some(&g @ (',' | '_')) = c.get(i) {
        s.grouping = Some(g);
        i += 1;
        if let Some(',' | '_') = c.get(i) {
            return value_error("Cannot specify both ',' and '_'.");
        }
    }
    if c.get(i) == Some(&'.') {
        i += 1;
        match digits(&mut i) {
            Some(p) => s.precision = Some(p),
            None => return value_error("Format specifier missing precision"),
        }
    }
    match c.len() - i.min(c.len()) {
        0 => {}
        1 => s.ty = Some(c[i]),
        _ => return invalid(),
    }
    check_len(s.width)?;
    check_len(s.precision.unwrap_or(0))?;
    Ok(s)
}

/// `format(v, spec)`.
pub(crate) fn format_value(v: &Value, spec: &str) -> R<String> {
    if spec.is_empty() {
        return to_str(v);
    }
    match v {
        Value::Str(s) => format_str(s.as_str(), &parse_spec(spec, "str", '<')?),
        Value::Bool(_) | Value::Int(_) | Value::Big(_) => {
            let i = v.to_bigint().unwrap_or_default();
            format_int(&i, &parse_spec(spec, &v.type_name(), '>')?, &v.type_name())
        }
        Value::Float(f) => format_float(*f, &parse_spec(spec, "float", '>')?, false),
        other => type_error(format!(
            "unsupported format string passed to {}.__format__",
            other.type_name()
        )),
    }
}

fn unknown_code<T>(code: char, type_name: &str) -> R<T> {
    value_error(format!(
        "Unknown format code '{code}' for object of type '{type_name}'"
    ))
}

/// Pads `sign + digits` to the spec's width; `=` puts the padding after the sign.
fn pad(sign: &str, body: &str, spec: &Spec, default_align: char) -> String {
    let len = sign.chars().count() + body.chars().count();
    if spec.width <= len {
        return format!("{sign}{body}");
    }
    let n = spec.width - len;
    let fill = |k: usize| std::iter::repeat_n(spec.fill, k).collect::<String>();
    match spec.align.unwrap_or(default_align) {
        '<' => format!("{sign}{body}{}", fill(n)),
        '^' => format!("{}{sign}{body}{}", fill(n / 2), fill(n - n / 2)),
        '=' => format!("{sign}{}{body}", fill(n)),
        _ => format!("{}{sign}{body}", fill(n)),
    }
}

fn format_str(s: &str, spec: &Spec) -> R<String> {
    match spec.ty {
        None | Some('s') => {}
        Some(c) => return unknown_code(c, "str"),
    }
    if spec.sign != '-' {
        return value_error("Sign not allowed in string format specifier");
    }
    if spec.alternate {
        return value_error("Alternate form (#) not allowed in string format specifier");
    }
    if spec.align == Some('=') {
        return value_error("'=' alignment not allowed in string format specifier");
    }
    if let Some(g) = spec.grouping {
        return value_error(format!("Cannot specify '{g}' with 's'."));
    }
    let body: String = match spec.precision {
        Some(p) => s.chars().take(p).collect(),
        None => s.to_string(),
    };
    Ok(pad("", &body, spec, '<'))
}

fn sign_of(negative: bool, spec: &Spec) -> &'static str {
    match (negative, spec.sign) {
        (true, _) => "-",
        (false, '+') => "+",
        (false, ' ') => " ",
        _ => "",
    }
}

/// Inserts `sep` every `every` digits from the right.
fn group(digits: &str, sep: char, every: usize) -> String {
    let chars: Vec<char> = digits.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        if i > 0 && (chars.len() - i) % every == 0 {
            out.push(sep);
        }
        out.push(*c);
    }
    out
}

/// Groups digits; with zero padding the zeros are grouped too, as CPython does.
fn grouped(digits: &str, spec: &Spec, every: usize, room: usize) -> String {
    let Some(sep) = spec.grouping else {
        return digits.to_string();
    };
    let mut d = digits.to_string();
    let mut out = group(&d, sep, every);
    if spec.fill == '0' && spec.align == Some('=') {
        while out.chars().count() < room {
            d.insert(0, '0');
            out = group(&d, sep, every);
        }
    }
    out
}

fn format_int(i: &BigInt, spec: &Spec, type_name: &str) -> R<String> {
    let ty = spec.ty.unwrap_or('d');
    let (radix, prefix) = match ty {
        'd' | 'n' => (10, ""),
        'b' => (2, "0b"),
        'o' => (8, "0o"),
        'x' => (16, "0x"),
        'X' => (16, "0X"),
        'c' => (10, ""),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' => {
            return format_float(num::big_to_f64(i)?, spec, true);
        }
        other => return unknown_code(other, type_name),
    };
    if spec.precision.is_some() {
        return value_error("Precision not allowed in integer format specifier");
    }
    if ty == 'c' {
        if spec.sign != '-' {
            return value_error("Sign not allowed with integer format specifier 'c'");
        }
        let c = i
            .to_u32()
            .and_then(char::from_u32)
            .ok_or_else(|| Unwind::new(ExcKind::OverflowError, "%c arg not in range(0x110000)"))?;
        return Ok(pad("", &c.to_string(), spec, '<'));
    }
    if let Some(g) = spec.grouping {
        if g == ',' && radix != 10 || ty == 'n' {
            return value_error(format!("Cannot specify '{g}' with '{ty}'."));
        }
    }
    let mut digits = if radix == 10 {
        super::repr::int_str(&i.abs())?
    } else {
        i.abs().to_str_radix(radix)
    };
    if ty == 'X' {
        digits = digits.to_uppercase();
    }
    let sign = sign_of(i.is_negative(), spec);
    let prefix = if spec.alternate { prefix } else { "" };
    let head = format!("{sign}{prefix}");
    let room = spec.width.saturating_sub(head.chars().count());
    let body = grouped(&digits, spec, if radix == 10 { 3 } else { 4 }, room);
    Ok(pad(&head, &body, spec, '>'))
}

/// `1.5e-7` (Rust) as `1.5e-07` (Python).
fn fix_exponent(s: &str, upper: bool) -> String {
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    format!(
        "{mantissa}{e}{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

fn strip_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The digits of `x ≥ 0` in `g` style with `p` significant digits.
fn general(x: f64, p: usize, alternate: bool, add_dot_zero: bool, upper: bool) -> String {
    let p = p.max(1);
    let sci = format!("{:.*e}", p - 1, x);
    let exp: i64 = sci
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let limit = if add_dot_zero { p as i64 - 1 } else { p as i64 };
    if -4 <= exp && exp < limit {
        let fixed = format!("{:.*}", (p as i64 - 1 - exp).max(0) as usize, x);
        let mut out = if alternate {
            fixed
        } else {
            strip_zeros(&fixed)
        };
        if alternate && !out.contains('.') {
            out.push('.');
        }
        if add_dot_zero && !out.contains('.') {
            out.push_str(".0");
        }
        out
    } else {
        let (mantissa, e) = sci.split_once('e').unwrap_or((&sci, "0"));
        let mut m = if alternate {
            mantissa.to_string()
        } else {
            strip_zeros(mantissa)
        };
        if alternate && !m.contains('.') {
            m.push('.');
        }
        fix_exponent(&format!("{m}e{e}"), upper)
    }
}

fn format_float(x: f64, spec: &Spec, from_int: bool) -> R<String> {
    let type_name = if from_int { "int" } else { "float" };
    let ty = spec.ty;
    if let Some(c) = ty {
        if !matches!(c, 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n' | '%') {
            return unknown_code(c, type_name);
        }
    }
    if ty == Some('n') && spec.grouping.is_some() {
        return value_error(format!(
            "Cannot specify '{}' with 'n'.",
            spec.grouping.unwrap_or(',')
        ));
    }
    let upper = matches!(ty, Some('E' | 'F' | 'G'));
    let value = if ty == Some('%') { x * 100.0 } else { x };
    let abs = value.abs();
    let body = if !abs.is_finite() {
        let t = if abs.is_nan() { "nan" } else { "inf" };
        if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        }
    } else {
        let p = spec.precision.unwrap_or(6);
        match ty {
            None if spec.precision.is_none() => float_repr(abs),
            None => general(abs, p, spec.alternate, true, false),
            Some('f' | 'F' | '%') => {
                let mut s = format!("{:.*}", p, abs);
                if spec.alternate && p == 0 {
                    s.push('.');
                }
                s
            }
            Some('e' | 'E') => {
                let mut s = format!("{:.*e}", p, abs);
                if spec.alternate && p == 0 {
                    s = s.replacen('e', ".e", 1);
                }
                fix_exponent(&s, upper)
            }
            _ => general(abs, p, spec.alternate, false, upper),
        }
    };
    // `z` drops the sign of a result that rounds to zero.
    let negative = value.is_sign_negative()
        && !value.is_nan()
        && !(spec.no_neg_zero && body.chars().filter(char::is_ascii_digit).all(|c| c == '0'));
    let sign = sign_of(negative, spec);
    let body = if ty == Some('%') {
        format!("{body}%")
    } else {
        body
    };
    let (int_part, rest) = match body.find(|c: char| c == '.' || c == 'e' || c == 'E' || c == '%') {
        Some(i) => (&body[..i], &body[i..]),
        None => (body.as_str(), ""),
    };
    let room = spec.width.saturating_sub(sign.len() + rest.chars().count());
    let body = if int_part.chars().all(|c| c.is_ascii_digit()) {
        format!("{}{rest}", grouped(int_part, spec, 3, room))
    } else {
        body.clone()
    };
    Ok(pad(sign, &body, spec, '>'))
}

/// `ascii()` of a repr: non-ASCII characters escaped.
pub(crate) fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let u = c as u32;
        if u < 0x80 {
            out.push(c);
        } else if u < 0x100 {
            out.push_str(&format!("\\x{u:02x}"));
        } else if u < 0x10000 {
            out.push_str(&format!("\\u{u:04x}"));
        } else {
            out.push_str(&format!("\\U{u:08x}"));
        }
    }
    out
}

/// Automatic or manual numbering of `str.format` fields.
struct Numbering {
    next: usize,
    manual: Option<bool>,
}

/// `fmt.format(*args, **kwargs)`.
#[cfg(test)]
pub(crate) fn str_format(fmt: &str, args: &[Value], kwargs: &Kwargs) -> R<String> {
    str_format_with(fmt, args, kwargs, &mut plain_render)
}

/// Renders one replacement field's value: its conversion (`r`, `s`, `a` or none), then
/// its format spec.
pub(crate) type Render<'a> = dyn FnMut(&Value, Option<char>, &str) -> R<String> + 'a;

/// [`str_format`] with the values rendered by `render` (the machine's, for instances).
pub(crate) fn str_format_with(
    fmt: &str,
    args: &[Value],
    kwargs: &Kwargs,
    render: &mut Render,
) -> R<String> {
    let mut numbering = Numbering {
        next: 0,
        manual: None,
    };
    format_with(fmt, args, kwargs, &mut numbering, 0, render)
}

#[cfg(test)]
fn plain_render(value: &Value, conversion: Option<char>, spec: &str) -> R<String> {
    let value = match conversion {
        Some('r') => Value::str(repr(value)?),
        Some('s') => Value::str(to_str(value)?),
        Some(_) => Value::str(ascii(&repr(value)?)),
        None => return format_value(value, spec),
    };
    format_value(&value, spec)
}

fn format_with(
    fmt: &str,
    args: &[Value],
    kwargs: &Kwargs,
    n: &mut Numbering,
    depth: usize,
    render: &mut Render,
) -> R<String> {
    if depth > 2 {
        return value_error("Max string recursion exceeded");
    }
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return value_error("Single '}' encountered in format string");
        }
        if c != '{' {
            out.push(c);
            i += 1;
            continue;
        }
        if chars.get(i + 1) == Some(&'{') {
            out.push('{');
            i += 2;
            continue;
        }
        let mut level = 1;
        let mut j = i + 1;
        while j < chars.len() {
            match chars[j] {
                '{' => level += 1,
                '}' => {
                    level -= 1;
                    if level == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        if j >= chars.len() {
            return value_error(if level > 1 || i + 1 < chars.len() {
                "expected '}' before end of string"
            } else {
                "Single '{' encountered in format string"
            });
        }
        let field: String = chars[i + 1..j].iter().collect();
        out.push_str(&replacement(&field, args, kwargs, n, depth, render)?);
        check_len(out.len())?;
        i = j + 1;
    }
    Ok(out)
}

fn replacement(
    field: &str,
    args: &[Value],
    kwargs: &Kwargs,
    n: &mut Numbering,
    depth: usize,
    render: &mut Render,
) -> R<String> {
    // Split off the spec at the first ':' and the conversion at '!' (outside brackets).
    let mut in_bracket = false;
    let mut name_end = field.len();
    for (k, c) in field.char_indices() {
        match c {
            '[' => in_bracket = true,
            ']' => in_bracket = false,
            '!' | ':' if !in_bracket => {
                name_end = k;
                break;
            }
            _ => {}
        }
    }
    let name = &field[..name_end];
    let rest = &field[name_end..];
    let (conversion, spec) = if let Some(r) = rest.strip_prefix('!') {
        let mut cs = r.chars();
        let conv = cs.next();
        let after: String = cs.collect();
        if !(after.is_empty() || after.starts_with(':')) {
            return value_error("expected ':' after conversion specifier");
        }
        (conv, after.strip_prefix(':').unwrap_or("").to_string())
    } else {
        (None, rest.strip_prefix(':').unwrap_or("").to_string())
    };
    let value = field_value(name, args, kwargs, n)?;
    if let Some(c) = conversion.filter(|c| !matches!(c, 'r' | 's' | 'a')) {
        return value_error(format!("Unknown conversion specifier {c}"));
    }
    let spec = if spec.contains('{') {
        format_with(&spec, args, kwargs, n, depth + 1, render)?
    } else {
        spec
    };
    render(&value, conversion, &spec)
}

fn field_value(name: &str, args: &[Value], kwargs: &Kwargs, n: &mut Numbering) -> R<Value> {
    let first_end = name.find(['.', '[']).unwrap_or(name.len());
    let (first, mut accessors) = name.split_at(first_end);
    let mut value = if first.is_empty() {
        if n.manual == Some(true) {
            return value_error(
                "cannot switch from manual field specification to automatic field numbering",
            );
        }
        n.manual = Some(false);
        let k = n.next;
        n.next += 1;
        positional(args, k)?
    } else if let Ok(k) = first.parse::<usize>() {
        if n.manual == Some(false) {
            return value_error(
                "cannot switch from automatic field numbering to manual field specification",
            );
        }
        n.manual = Some(true);
        positional(args, k)?
    } else {
        match kwargs.iter().find(|(k, _)| **k == *first) {
            Some((_, v)) => v.clone(),
            None => {
                return Err(Unwind::from_object(ExcObject::new(
                    ExcClass::Builtin(ExcKind::KeyError),
                    vec![Value::str(first)],
                )));
            }
        }
    };
    while !accessors.is_empty() {
        if let Some(r) = accessors.strip_prefix('[') {
            let Some(close) = r.find(']') else {
                return value_error("Missing ']' in format string");
            };
            let key = &r[..close];
            let index = match key.parse::<i64>() {
                Ok(i) if !key.starts_with(['-', '+']) => Value::Int(i),
                _ => Value::str(key),
            };
            value = seq::getitem(&value, &index)?;
            accessors = &r[close + 1..];
        } else {
            return Err(Unwind::unsupported("attribute access in str.format fields"));
        }
    }
    Ok(value)
}

fn positional(args: &[Value], k: usize) -> R<Value> {
    args.get(k).cloned().ok_or_else(|| {
        Unwind::new(
            ExcKind::IndexError,
            format!("Replacement index {k} out of range for positional args tuple"),
        )
    })
}

/// `fmt % values`.
pub(crate) fn percent(fmt: &str, values: &Value) -> R<String> {
    let (args, mapping): (Vec<Value>, Option<&Value>) = match values {
        Value::Tuple(items) => (items.to_vec(), None),
        Value::Dict(_) => (vec![values.clone()], Some(values)),
        other => (vec![other.clone()], None),
    };
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut next = 0usize;
    let mut used_mapping = false;
    let take = |next: &mut usize| -> R<Value> {
        let v = args.get(*next).cloned();
        *next += 1;
        v.ok_or_else(|| Unwind::new(ExcKind::TypeError, "not enough arguments for format string"))
    };
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut keyed: Option<Value> = None;
        if chars.get(i) == Some(&'(') {
            let Some(m) = mapping else {
                return type_error("format requires a mapping");
            };
            let mut depth = 1;
            let start = i + 1;
            let mut j = start;
            while j < chars.len() {
                match chars[j] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j >= chars.len() {
                return value_error("incomplete format key");
            }
            let key: String = chars[start..j].iter().collect();
            keyed = Some(seq::getitem(m, &Value::str(key))?);
            used_mapping = true;
            i = j + 1;
        }
        let mut spec = Spec {
            fill: ' ',
            fill_given: false,
            align: Some('>'),
            sign: '-',
            no_neg_zero: false,
            alternate: false,
            width: 0,
            grouping: None,
            precision: None,
            ty: None,
        };
        let mut left = false;
        let mut zero = false;
        while let Some(&f @ ('-' | '+' | ' ' | '#' | '0')) = chars.get(i) {
            match f {
                '-' => left = true,
                '+' => spec.sign = '+',
                ' ' if spec.sign != '+' => spec.sign = ' ',
                '#' => spec.alternate = true,
                '0' => zero = true,
                _ => {}
            }
            i += 1;
        }
        let number = |i: &mut usize, next: &mut usize| -> R<Option<usize>> {
            if chars.get(*i) == Some(&'*') {
                *i += 1;
                let v = take(next)?;
                let Some(n) = v.to_bigint().filter(|_| v.is_int()) else {
                    return type_error("* wants int");
                };
                return Ok(Some(n.to_i64().unwrap_or(0).unsigned_abs() as usize));
            }
            let start = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            Ok((start < *i).then(|| {
                chars[start..*i]
                    .iter()
                    .collect::<String>()
                    .parse()
                    .unwrap_or(usize::MAX)
            }))
        };
        spec.width = number(&mut i, &mut next)?.unwrap_or(0);
        if chars.get(i) == Some(&'.') {
            i += 1;
            spec.precision = Some(number(&mut i, &mut next)?.unwrap_or(0));
        }
        check_len(spec.width)?;
        check_len(spec.precision.unwrap_or(0))?;
        while let Some('h' | 'l' | 'L') = chars.get(i) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            return value_error("incomplete format");
        };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let value = match keyed.take() {
            Some(v) => v,
            None => take(&mut next)?,
        };
        if left {
            spec.align = Some('<');
        } else if zero && conv != 's' && conv != 'r' && conv != 'a' && conv != 'c' {
            spec.fill = '0';
            spec.align = Some('=');
        }
        let piece = match conv {
            's' | 'r' | 'a' => {
                let text = match conv {
                    's' => to_str(&value)?,
                    'r' => repr(&value)?,
                    _ => ascii(&repr(&value)?),
                };
                let text: String = match spec.precision {
                    Some(p) => text.chars().take(p).collect(),
                    None => text,
                };
                pad("", &text, &spec, '>')
            }
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
                let int = match (&value, num(&value)) {
                    (Value::Float(f), _) if matches!(conv, 'd' | 'i' | 'u') => {
                        num::float_to_int(*f)?.to_bigint()
                    }
                    (_, Some(_)) if value.is_int() => value.to_bigint(),
                    _ if matches!(conv, 'd' | 'i' | 'u') => {
                        return type_error(format!(
                            "%{conv} format: a real number is required, not {}",
                            value.type_name()
                        ));
                    }
                    _ => {
                        return type_error(format!(
                            "%{conv} format: an integer is required, not {}",
                            value.type_name()
                        ));
                    }
                };
                let int = int.unwrap_or_default();
                let ty = if matches!(conv, 'i' | 'u') { 'd' } else { conv };
                let mut digits = match ty {
                    'x' | 'X' => int.abs().to_str_radix(16),
                    'o' => int.abs().to_str_radix(8),
                    _ => super::repr::int_str(&int.abs())?,
                };
                if ty == 'X' {
                    digits = digits.to_uppercase();
                }
                if let Some(p) = spec.precision {
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                let prefix = match (spec.alternate, ty) {
                    (true, 'x') => "0x",
                    (true, 'X') => "0X",
                    (true, 'o') => "0o",
                    _ => "",
                };
                let head = format!("{}{prefix}", sign_of(int.is_negative(), &spec));
                pad(&head, &digits, &spec, '>')
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let Some(x) = num(&value) else {
                    return type_error(format!("must be real number, not {}", value.type_name()));
                };
                spec.ty = Some(conv);
                spec.precision = Some(spec.precision.unwrap_or(6));
                format_float(x.to_f64()?, &spec, false)?
            }
            'c' => {
                let c = match &value {
                    Value::Str(s) if s.len() == 1 => s.as_str().to_string(),
                    v if v.is_int() => {
                        let code = v
                            .to_bigint()
                            .and_then(|b| b.to_u32())
                            .and_then(char::from_u32);
                        match code {
                            Some(c) => c.to_string(),
                            None => {
                                return fail(
                                    ExcKind::OverflowError,
                                    "%c arg not in range(0x110000)",
                                );
                            }
                        }
                    }
                    _ => return type_error("%c requires int or char"),
                };
                pad("", &c, &spec, '>')
            }
            other => {
                return value_error(format!(
                    "unsupported format character '{other}' (0x{:x}) at index {}",
                    other as u32,
                    i - 1
                ));
            }
        };
        out.push_str(&piece);
        check_len(out.len())?;
    }
    if next < args.len() && mapping.is_none() && !used_mapping {
        return type_error("not all arguments converted during string formatting");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Value, spec: &str) -> String {
        match format_value(&v, spec) {
            Ok(s) => s,
            Err(u) => match u.raised() {
                Some(e) => format!("{}: {:?}", e.exc.class.name(), e.exc.args()),
                None => format!("{u:?}"),
            },
        }
    }

    #[test]
    fn format_specs_match_cpython() {
        // Expected strings printed by CPython 3.11.
        assert_eq!(f(Value::Float(0.25), ".1f"), "0.2");
        assert_eq!(f(Value::Float(1e16), ".3g"), "1e+16");
        assert_eq!(f(Value::Float(123456789.0), "g"), "1.23457e+08");
        assert_eq!(f(Value::Float(0.00001), "g"), "1e-05");
        assert_eq!(f(Value::Float(1.5), "10.3f"), "     1.500");
        assert_eq!(f(Value::Int(3), "^5"), "  3  ");
        assert_eq!(f(Value::Int(-3), "05"), "-0003");
        assert_eq!(f(Value::Int(1234567), ","), "1,234,567");
        assert_eq!(f(Value::Int(255), "#x"), "0xff");
        assert_eq!(f(Value::Float(0.5), "%"), "50.000000%");
        assert_eq!(f(Value::Float(12.0), ".2"), "1.2e+01");
        assert_eq!(f(Value::Float(123.456), ".5"), "123.46");
        assert_eq!(f(Value::Float(1.0), ".3"), "1.0");
        assert_eq!(f(Value::Bool(true), ">5"), "    1");
        assert_eq!(f(Value::Int(1234), "08,"), "0,001,234");
        assert_eq!(f(Value::Float(1234.5), ",.2f"), "1,234.50");
        assert_eq!(f(Value::Int(12345678), "_x"), "bc_614e");
        assert_eq!(f(Value::Float(0.000012345), "g"), "1.2345e-05");
        assert_eq!(f(Value::Int(123456789), "e"), "1.234568e+08");
        assert_eq!(f(Value::str("x"), "05"), "x0000");
        assert_eq!(f(Value::Float(f64::INFINITY), ">6"), "   inf");
        assert_eq!(f(Value::Float(f64::NAN), "F"), "NAN");
        assert_eq!(f(Value::Float(-0.0), "f"), "-0.000000");
        assert!(
            f(Value::Float(1.5), "d")
                .contains("Unknown format code 'd' for object of type 'float'")
        );
        assert!(
            f(Value::Int(1), "abc")
                .contains("Invalid format specifier 'abc' for object of type 'int'")
        );
        assert!(
            f(Value::None, ">5")
                .contains("unsupported format string passed to NoneType.__format__")
        );
    }

    #[test]
    fn printf_style() {
        let t = Value::tuple(vec![
            Value::Float(3.14159),
            Value::Int(42),
            Value::Int(-42),
            Value::Int(255),
            Value::Int(8),
            Value::Float(12345.678),
            Value::Float(0.0001),
            Value::str("hi"),
            Value::str("hi"),
            Value::Int(65),
            Value::Int(5),
            Value::Int(5),
            Value::Int(255),
            Value::str("abcdef"),
        ]);
        let out = percent(
            "%5.2f|%-5d|%05d|%x|%o|%e|%g|%s|%r|%c|%%|%+d|% d|%#x|%.3s",
            &t,
        )
        .unwrap();
        assert_eq!(
            out,
            " 3.14|42   |-0042|ff|10|1.234568e+04|0.0001|hi|'hi'|A|%|+5| 5|0xff|abc"
        );
        assert!(percent("%d %d", &Value::tuple(vec![Value::Int(1)])).is_err());
        assert!(percent("%d", &Value::tuple(vec![Value::Int(1), Value::Int(2)])).is_err());
    }

    #[test]
    fn str_format_fields() {
        let args = [Value::Int(1), Value::str("a")];
        assert_eq!(str_format("{} {}!", &args, &Vec::new()).unwrap(), "1 a!");
        assert_eq!(
            str_format("{1}{0}{{}}", &args, &Vec::new()).unwrap(),
            "a1{}"
        );
        assert_eq!(
            str_format(
                "{x:>{w}}",
                &[],
                &vec![("x".into(), Value::Int(7)), ("w".into(), Value::Int(3))]
            )
            .unwrap(),
            "  7"
        );
        assert!(str_format("{0} {}", &args, &Vec::new()).is_err());
        assert!(str_format("{} {} {}", &args, &Vec::new()).is_err());
    }
}
