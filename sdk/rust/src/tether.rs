//! tether.rs: the Rust solution host of tether (docs/languages.md, "Rust").
//!
//! With a build cache the judge compiles this file once, alone, as the
//! library crate `tether` (libtether.rlib), and each solution as the crate
//! rooted at tether_bin.rs, which links it; without one it compiles
//! tether_main.rs, the crate that holds this file as its module `tether`.
//! Either way the solution is the module `solution` (main.rs) of a crate
//! whose root names the host `tether` (`use crate::tether::...`), and there
//! are no other crates. The solution exports its functions once, at its end:
//!
//!     pub fn add(a: i64, b: i64) -> i64 { a + b }
//!     tether_export!(add);
//!
//! Arguments and results convert for bool, every integer type (range
//! checked), f32, f64, String (&str results), tether::Bytes, Vec<T>,
//! BTreeMap/HashMap<String, T>, Option<T> (null), tether::Value (any value)
//! and () (a null result). A function may return Result<T, E: Display>: an
//! Err is answered Exception "E: message"; a panic is answered Exception
//! "panic: message". Everything printed to stdout or stderr becomes log
//! frames. tether::call_capability("name", vec![...]) calls a capability of
//! the evaluator (from the thread that runs the call).
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Display;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::io::FromRawFd;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;

/// What a solution of functions declared in problem.json sees without a
/// `use` of its own: the judge's glue glob-imports it (a solution's own
/// imports of the same names take precedence).
pub mod prelude {
    pub use super::{Bytes, Value};
    pub use std::collections::BTreeMap;
}

const MAX_FRAME: usize = 1 << 20;
const MAX_LINE: usize = 4 << 20;
const MAX_DEPTH: usize = 512;
const MAX_INT_DIGITS: usize = 4300;
const LOG_CHUNK: usize = 64 * 1024;

/// Any transferable value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond 64 bits, as its decimal digits.
    BigInt(String),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Map(BTreeMap<String, Value>),
}

/// Bytes travel as {"__bytes__": "<base64>"}; a Vec<u8> is a list of integers.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Bytes(pub Vec<u8>);

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::BigInt(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bytes(_) => "bytes",
            Value::List(_) => "a list",
            Value::Map(_) => "a map",
        }
    }
    /// Converts to T as a parameter of type T would be.
    pub fn get<T: FromValue>(&self) -> Result<T, String> {
        T::from_value(self).map_err(|e| e.text("value"))
    }
}

/// Why a value does not fit: the path inside it and the reason.
pub struct Mismatch {
    path: String,
    reason: String,
}

impl Mismatch {
    fn new(reason: String) -> Mismatch {
        Mismatch { path: String::new(), reason }
    }
    fn under(mut self, part: String) -> Mismatch {
        self.path = part + &self.path;
        self
    }
    fn text(&self, root: &str) -> String {
        format!("{}{}: {}", root, self.path, self.reason)
    }
}

fn expected(want: &str, v: &Value) -> Mismatch {
    Mismatch::new(format!("expected {}, got {}", want, v.kind()))
}

pub trait FromValue: Sized {
    fn from_value(v: &Value) -> Result<Self, Mismatch>;
}

pub trait IntoValue {
    fn into_value(self) -> Value;
}

impl FromValue for Value {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        Ok(v.clone())
    }
}
impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}
impl FromValue for bool {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        match v {
            Value::Bool(b) => Ok(*b),
            _ => Err(expected("a boolean", v)),
        }
    }
}
impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::Bool(self)
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: &Value) -> Result<Self, Mismatch> {
                let out_of_range = |text: String| Mismatch::new(format!(
                    "integer {} is out of range [{}, {}]", text, <$t>::MIN, <$t>::MAX));
                match v {
                    Value::Int(i) => {
                        let wide = *i as i128;
                        if wide >= <$t>::MIN as i128 && wide <= <$t>::MAX as i128 { Ok(wide as $t) } else { Err(out_of_range(i.to_string())) }
                    }
                    Value::BigInt(s) => match s.parse::<i128>() {
                        Ok(w) if w >= <$t>::MIN as i128 && w <= <$t>::MAX as i128 => Ok(w as $t),
                        _ => Err(out_of_range(s.chars().take(40).collect())),
                    },
                    _ => Err(expected("an integer", v)),
                }
            }
        }
        impl IntoValue for $t {
            fn into_value(self) -> Value {
                let wide = self as i128;
                if wide >= i64::MIN as i128 && wide <= i64::MAX as i128 { Value::Int(wide as i64) } else { Value::BigInt(wide.to_string()) }
            }
        }
    )*};
}
integers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl FromValue for f64 {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        match v {
            Value::Float(d) => Ok(*d),
            Value::Int(i) => Ok(*i as f64),
            Value::BigInt(s) => Ok(s.parse::<f64>().unwrap_or(0.0)),
            _ => Err(expected("a number", v)),
        }
    }
}
impl FromValue for f32 {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        f64::from_value(v).map(|d| d as f32)
    }
}
impl IntoValue for f64 {
    fn into_value(self) -> Value {
        Value::Float(self)
    }
}
impl IntoValue for f32 {
    fn into_value(self) -> Value {
        Value::Float(self as f64)
    }
}
impl FromValue for String {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        match v {
            Value::Str(s) => Ok(s.clone()),
            _ => Err(expected("a string", v)),
        }
    }
}
impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::Str(self)
    }
}
impl<'a> IntoValue for &'a str {
    fn into_value(self) -> Value {
        Value::Str(self.to_string())
    }
}
impl FromValue for Bytes {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        match v {
            Value::Bytes(b) => Ok(Bytes(b.clone())),
            _ => Err(expected("bytes", v)),
        }
    }
}
impl IntoValue for Bytes {
    fn into_value(self) -> Value {
        Value::Bytes(self.0)
    }
}
impl IntoValue for () {
    fn into_value(self) -> Value {
        Value::Null
    }
}
impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        match v {
            Value::Null => Ok(None),
            _ => T::from_value(v).map(Some),
        }
    }
}
impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Value {
        match self {
            None => Value::Null,
            Some(x) => x.into_value(),
        }
    }
}
impl<T: FromValue> FromValue for Vec<T> {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        match v {
            Value::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, x) in items.iter().enumerate() {
                    out.push(T::from_value(x).map_err(|e| e.under(format!("[{}]", i)))?);
                }
                Ok(out)
            }
            _ => Err(expected("a list", v)),
        }
    }
}
impl<T: IntoValue> IntoValue for Vec<T> {
    fn into_value(self) -> Value {
        Value::List(self.into_iter().map(IntoValue::into_value).collect())
    }
}
impl<T: FromValue> FromValue for BTreeMap<String, T> {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        match v {
            Value::Map(m) => {
                let mut out = BTreeMap::new();
                for (k, x) in m {
                    out.insert(k.clone(), T::from_value(x).map_err(|e| e.under(format!("[{}]", quote(k))))?);
                }
                Ok(out)
            }
            _ => Err(expected("a map", v)),
        }
    }
}
impl<T: IntoValue> IntoValue for BTreeMap<String, T> {
    fn into_value(self) -> Value {
        Value::Map(self.into_iter().map(|(k, x)| (k, x.into_value())).collect())
    }
}
impl<T: FromValue> FromValue for HashMap<String, T> {
    fn from_value(v: &Value) -> Result<Self, Mismatch> {
        BTreeMap::<String, T>::from_value(v).map(|m| m.into_iter().collect())
    }
}
impl<T: IntoValue> IntoValue for HashMap<String, T> {
    fn into_value(self) -> Value {
        Value::Map(self.into_iter().map(|(k, x)| (k, x.into_value())).collect())
    }
}

/// What a function's return converts to: a value, or an Exception text.
pub trait IntoAnswer {
    fn into_answer(self) -> Result<Value, String>;
}
impl<T: IntoValue> IntoAnswer for T {
    fn into_answer(self) -> Result<Value, String> {
        Ok(self.into_value())
    }
}
/// Result<T, E>: Err(e) is an Exception "E: e" (E's short type name).
impl<T: IntoValue, E: Display> IntoAnswer for Result<T, E> {
    fn into_answer(self) -> Result<Value, String> {
        match self {
            Ok(v) => Ok(v.into_value()),
            Err(e) => {
                let full = std::any::type_name::<E>();
                let short = full.rsplit("::").next().unwrap_or(full);
                Err(format!("{}: {}", short, e))
            }
        }
    }
}

/// A function the host can call: its arguments, then its answer.
pub type Handler = Box<dyn Fn(&[Value]) -> Result<Result<Value, String>, String>>;

/// Adapts a Rust function of any arity to a Handler (see tether_export!).
pub trait Callable<Args> {
    fn handler(self, name: &'static str) -> Handler;
}

fn arity(name: &str, want: usize, got: usize) -> String {
    format!(
        "{}() takes {} argument{} but {} {} given",
        name,
        want,
        if want == 1 { "" } else { "s" },
        got,
        if got == 1 { "was" } else { "were" }
    )
}

macro_rules! callables {
    ($( ($($a:ident $i:tt),*) )*) => {$(
        impl<Func, Ret, $($a),*> Callable<($($a,)*)> for Func
        where Func: Fn($($a),*) -> Ret + 'static, Ret: IntoAnswer, $($a: FromValue),*
        {
            #[allow(unused_variables, non_snake_case)]
            fn handler(self, name: &'static str) -> Handler {
                Box::new(move |args: &[Value]| {
                    let want = 0 $(+ { let $a = 1; $a })*;
                    if args.len() != want { return Err(arity(name, want, args.len())); }
                    $( let $a = $a::from_value(&args[$i]).map_err(|e| e.text(&format!("args[{}]", $i)))?; )*
                    Ok((self)($($a),*).into_answer())
                })
            }
        }
    )*};
}
callables! {
    ()
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}

/// The exported functions, filled by the solution's tether_export!.
pub struct Registry {
    pub functions: HashMap<String, Handler>,
}

impl Registry {
    pub fn add<Args, F: Callable<Args>>(&mut self, name: &'static str, f: F) {
        self.functions.insert(name.to_string(), f.handler(name));
    }
}

/// tether_export!(add, echo, ...): these functions are callable by name.
/// `$crate::Registry` is this crate's when the host is a library, and the
/// import of it in tether_main.rs's root when the host is a module there.
#[macro_export]
macro_rules! tether_export {
    ($($f:ident),* $(,)?) => {
        pub fn tether_register(registry: &mut $crate::Registry) {
            $( registry.add(stringify!($f), $f); )*
        }
    };
}

// ------------------------------------------------------------ codec

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_to(&mut out, s);
    out
}

fn quote_to(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's repr(float): shortest round-trip digits, Python's layout.
fn py_float(d: f64) -> String {
    if d == 0.0 {
        return if d.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    let sci = format!("{:e}", d); // shortest digits: "1.5e-7", "-1e16"
    let (mant, exp) = sci.split_at(sci.find('e').unwrap());
    let x: i32 = exp[1..].parse().unwrap();
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::from(if neg { "-" } else { "" });
    if x >= -4 && x < 16 {
        if x < 0 {
            out.push_str("0.");
            out.push_str(&"0".repeat((-x - 1) as usize));
            out.push_str(&digits);
        } else if (x as usize) + 1 >= digits.len() {
            out.push_str(&digits);
            out.push_str(&"0".repeat(x as usize + 1 - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..x as usize + 1]);
            out.push('.');
            out.push_str(&digits[x as usize + 1..]);
        }
        return out;
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    out.push_str(&format!("e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs()));
    out
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(p: &[u8]) -> String {
    let mut out = String::with_capacity((p.len() + 2) / 3 * 4);
    for c in p.chunks(3) {
        let v = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        out.push(B64[(v >> 18) as usize] as char);
        out.push(B64[(v >> 12 & 63) as usize] as char);
        out.push(if c.len() > 1 { B64[(v >> 6 & 63) as usize] as char } else { '=' });
        out.push(if c.len() > 2 { B64[(v & 63) as usize] as char } else { '=' });
    }
    out
}

fn unbase64(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() % 4 != 0 {
        return None;
    }
    let val = |c: u8| B64.iter().position(|&x| x == c).map(|p| p as u32);
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (i, q) in b.chunks(4).enumerate() {
        let last = (i + 1) * 4 == b.len();
        let pad = if last && q[3] == b'=' { if q[2] == b'=' { 2 } else { 1 } } else { 0 };
        let mut v = 0u32;
        for (k, &c) in q.iter().enumerate() {
            let d = if k >= 4 - pad { 0 } else { val(c)? };
            v = v << 6 | d;
        }
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    if base64(&out) != s {
        return None; // not canonical (trailing bits)
    }
    Some(out)
}

/// Appends the canonical JSON of v; Err("path: reason") otherwise.
fn encode(out: &mut String, v: &Value, path: &mut Vec<String>, depth: usize) -> Result<(), String> {
    let fail = |path: &Vec<String>, why: &str| Err(format!("value{}: {}", path.concat(), why));
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::BigInt(s) => {
            let digits = s.strip_prefix('-').unwrap_or(s);
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return fail(path, "BigInt is not a decimal integer");
            }
            if digits.len() > MAX_INT_DIGITS {
                return fail(path, "integer has more than 4300 digits");
            }
            out.push_str(s);
        }
        Value::Float(d) => {
            if d.is_nan() {
                return fail(path, "NaN is not transferable");
            }
            if d.is_infinite() {
                return fail(path, if *d > 0.0 { "Infinity is not transferable" } else { "-Infinity is not transferable" });
            }
            out.push_str(&py_float(*d));
        }
        Value::Str(s) => quote_to(out, s),
        Value::Bytes(b) => {
            out.push_str("{\"__bytes__\":\"");
            out.push_str(&base64(b));
            out.push_str("\"}");
        }
        Value::List(items) => {
            if depth >= MAX_DEPTH {
                return fail(path, "nesting too deep (more than 512)");
            }
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                path.push(format!("[{}]", i));
                encode(out, x, path, depth + 1)?;
                path.pop();
            }
            out.push(']');
        }
        Value::Map(m) => {
            if depth >= MAX_DEPTH {
                return fail(path, "nesting too deep (more than 512)");
            }
            if m.len() == 1 {
                if let Some(Value::Str(_)) = m.get("__bytes__") {
                    return fail(path, "a map whose only key is \"__bytes__\" with a string value is reserved for bytes");
                }
            }
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                quote_to(out, k);
                out.push(':');
                path.push(format!("[{}]", quote(k)));
                encode(out, x, path, depth + 1)?;
                path.pop();
            }
            out.push('}');
        }
    }
    Ok(())
}

/// Parses JSON the codec's way; a codec error is kept and parsing goes on,
/// so that a frame's type and id can still be read.
struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    codec_error: Option<String>,
}

struct Syntax;

impl<'a> Parser<'a> {
    fn codec(&mut self, why: String) {
        if self.codec_error.is_none() {
            self.codec_error = Some(why);
        }
    }
    fn at(&self) -> u8 {
        *self.s.get(self.i).unwrap_or(&0)
    }
    fn ws(&mut self) {
        while matches!(self.at(), b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn lit(&mut self, w: &str) -> Result<(), Syntax> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(())
        } else {
            Err(Syntax)
        }
    }
    fn value(&mut self, depth: usize) -> Result<Value, Syntax> {
        self.ws();
        match self.at() {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(Value::Str),
            b't' => self.lit("true").map(|_| Value::Bool(true)),
            b'f' => self.lit("false").map(|_| Value::Bool(false)),
            b'n' => self.lit("null").map(|_| Value::Null),
            b'N' => {
                self.lit("NaN")?;
                self.codec("NaN is not transferable".into());
                Ok(Value::Null)
            }
            b'I' => {
                self.lit("Infinity")?;
                self.codec("Infinity is not transferable".into());
                Ok(Value::Null)
            }
            _ => self.number(),
        }
    }
    fn digits(&mut self) -> Result<(), Syntax> {
        if !self.at().is_ascii_digit() {
            return Err(Syntax);
        }
        while self.at().is_ascii_digit() {
            self.i += 1;
        }
        Ok(())
    }
    fn number(&mut self) -> Result<Value, Syntax> {
        let start = self.i;
        if self.at() == b'-' {
            self.i += 1;
        }
        if self.at() == b'I' {
            self.lit("Infinity")?;
            self.codec("-Infinity is not transferable".into());
            return Ok(Value::Null);
        }
        if self.at() == b'0' {
            self.i += 1;
        } else {
            self.digits()?;
        }
        let mut integer = true;
        if self.at() == b'.' {
            integer = false;
            self.i += 1;
            self.digits()?;
        }
        if self.at() == b'e' || self.at() == b'E' {
            integer = false;
            self.i += 1;
            if self.at() == b'+' || self.at() == b'-' {
                self.i += 1;
            }
            self.digits()?;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
        if integer {
            let digits = text.trim_start_matches('-').len();
            if digits > MAX_INT_DIGITS {
                self.codec(format!("integer has {} digits, more than 4300", digits));
                return Ok(Value::Int(0));
            }
            return Ok(match text.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => Value::BigInt(text.to_string()),
            });
        }
        let d: f64 = text.parse().unwrap_or(f64::INFINITY);
        if d.is_infinite() {
            let shown: String = text.chars().take(40).collect();
            self.codec(format!("number {} overflows a float: not transferable", shown));
        }
        Ok(Value::Float(d))
    }
    fn hex4(&mut self) -> Result<u32, Syntax> {
        if self.i + 4 > self.s.len() {
            return Err(Syntax);
        }
        let t = std::str::from_utf8(&self.s[self.i..self.i + 4]).map_err(|_| Syntax)?;
        let v = u32::from_str_radix(t, 16).map_err(|_| Syntax)?;
        if !t.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(Syntax);
        }
        self.i += 4;
        Ok(v)
    }
    fn string(&mut self) -> Result<String, Syntax> {
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = *self.s.get(self.i).ok_or(Syntax)?;
            match c {
                b'"' => {
                    self.i += 1;
                    return Ok(match String::from_utf8(out) {
                        Ok(s) => s,
                        Err(e) => {
                            self.codec("invalid UTF-8".into());
                            String::from_utf8_lossy(e.as_bytes()).into_owned()
                        }
                    });
                }
                0..=0x1f => return Err(Syntax),
                b'\\' => {
                    let e = *self.s.get(self.i + 1).ok_or(Syntax)?;
                    self.i += 2;
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(8),
                        b'f' => Some(12),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        _ => return Err(Syntax),
                    };
                    if let Some(b) = simple {
                        out.push(b);
                        continue;
                    }
                    let mut cp = self.hex4()?;
                    if (0xD800..0xDC00).contains(&cp) {
                        let save = self.i;
                        let mut joined = false;
                        if self.s[self.i..].starts_with(b"\\u") {
                            self.i += 2;
                            let lo = self.hex4()?;
                            if (0xDC00..0xE000).contains(&lo) {
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                joined = true;
                            } else {
                                self.i = save;
                            }
                        }
                        if !joined {
                            self.codec("lone surrogate escape in a string".into());
                            cp = 0xFFFD;
                        }
                    } else if (0xDC00..0xE000).contains(&cp) {
                        self.codec("lone surrogate escape in a string".into());
                        cp = 0xFFFD;
                    }
                    let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                }
                _ => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
    // A list or map nested deeper than MAX_DEPTH: a codec error, and the
    // value is skipped, not parsed (no deep recursion).
    fn skip_deep(&mut self) -> Result<Value, Syntax> {
        self.codec("nesting too deep (more than 512)".into());
        let mut depth = 0usize;
        while self.i < self.s.len() {
            let c = self.s[self.i];
            if c == b'"' {
                self.string()?;
                continue;
            }
            self.i += 1;
            if c == b'[' || c == b'{' {
                depth += 1;
            } else if c == b']' || c == b'}' {
                depth -= 1;
                if depth == 0 {
                    return Ok(Value::Null);
                }
            }
        }
        Err(Syntax)
    }
    // At a list's or map's opening bracket: consumes it and the white space
    // after it, and close too when it follows at once (the list or map is
    // empty).
    fn opens_empty(&mut self, close: u8) -> bool {
        self.i += 1;
        self.ws();
        if self.at() == close {
            self.i += 1;
            return true;
        }
        false
    }
    fn array(&mut self, depth: usize) -> Result<Value, Syntax> {
        if depth > MAX_DEPTH {
            return self.skip_deep();
        }
        let mut out = Vec::new();
        if self.opens_empty(b']') {
            return Ok(Value::List(out));
        }
        loop {
            out.push(self.value(depth)?);
            self.ws();
            let c = self.at();
            self.i += 1;
            match c {
                b',' => continue,
                b']' => return Ok(Value::List(out)),
                _ => return Err(Syntax),
            }
        }
    }
    fn object(&mut self, depth: usize) -> Result<Value, Syntax> {
        if depth > MAX_DEPTH {
            return self.skip_deep();
        }
        let mut out = BTreeMap::new();
        if self.opens_empty(b'}') {
            return Ok(Value::Map(out));
        }
        loop {
            self.ws();
            if self.at() != b'"' {
                return Err(Syntax);
            }
            let key = self.string()?;
            self.ws();
            if self.at() != b':' {
                return Err(Syntax);
            }
            self.i += 1;
            let v = self.value(depth)?;
            if out.contains_key(&key) {
                self.codec(format!("duplicate key {}", quote(&key)));
            }
            out.insert(key, v); // the last one wins, as in Python's json
            self.ws();
            let c = self.at();
            self.i += 1;
            match c {
                b',' => continue,
                b'}' => break,
                _ => return Err(Syntax),
            }
        }
        if out.len() == 1 {
            if let Some(Value::Str(s)) = out.get("__bytes__") {
                return Ok(match unbase64(s) {
                    Some(b) => Value::Bytes(b),
                    None => {
                        let shown: String = s.chars().take(40).collect();
                        self.codec(format!("invalid base64 in __bytes__: {}", quote(&shown)));
                        Value::Bytes(Vec::new())
                    }
                });
            }
        }
        Ok(Value::Map(out))
    }
}

/// A frame: its members, and why the codec refuses it (if it does).
struct Frame {
    m: BTreeMap<String, Value>,
    codec_error: Option<String>,
}

impl Frame {
    fn str(&self, key: &str) -> Option<&str> {
        match self.m.get(key) {
            Some(Value::Str(s)) => Some(s),
            _ => None,
        }
    }
}

fn parse_frame(line: &[u8]) -> Option<Frame> {
    let mut p = Parser { s: line, i: 0, codec_error: None };
    let v = p.value(0).ok()?;
    p.ws();
    if p.i != line.len() {
        return None;
    }
    match v {
        Value::Map(m) => Some(Frame { m, codec_error: p.codec_error }),
        _ => None,
    }
}

/// Parses one JSON text (the protocol's codec rules).
pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser { s: text.as_bytes(), i: 0, codec_error: None };
    let v = p.value(0).map_err(|_| "invalid JSON".to_string())?;
    p.ws();
    if p.i != text.len() {
        return Err("invalid JSON: trailing data".into());
    }
    match p.codec_error {
        Some(e) => Err(e),
        None => Ok(v),
    }
}

/// The canonical JSON text of v.
pub fn dump(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    encode(&mut out, v, &mut Vec::new(), 0)?;
    Ok(out)
}

// ------------------------------------------------------------ the host

#[repr(C)]
struct PollFd {
    fd: i32,
    events: i16,
    revents: i16,
}

extern "C" {
    fn dup2(old: i32, new: i32) -> i32;
    fn fcntl(fd: i32, cmd: i32, ...) -> i32;
    fn pipe2(fds: *mut i32, flags: i32) -> i32;
    fn open(path: *const u8, flags: i32, ...) -> i32;
    fn close(fd: i32) -> i32;
    fn read(fd: i32, buf: *mut u8, n: usize) -> isize;
    fn write(fd: i32, buf: *const u8, n: usize) -> isize;
    fn poll(fds: *mut PollFd, n: u64, timeout: i32) -> i32;
    fn _exit(status: i32) -> !;
}

const F_GETFL: i32 = 3;
const F_SETFL: i32 = 4;
const F_DUPFD_CLOEXEC: i32 = 1030;
const O_RDWR: i32 = 2;
const O_NONBLOCK: i32 = 0o4000;
const O_CLOEXEC: i32 = 0o2000000;
const POLLIN: i16 = 1;

enum Event {
    Call(Frame),
    Answer(String, Frame),
    End,
}

struct Host {
    out_fd: i32,
    real_err: i32,
    log_fd: [i32; 2],
}

static OUT: Mutex<Vec<u8>> = Mutex::new(Vec::new());
static LOGS: Mutex<[Vec<u8>; 2]> = Mutex::new([Vec::new(), Vec::new()]);
static mut HOST: Host = Host { out_fd: -1, real_err: -1, log_fd: [-1, -1] };

thread_local! {
    static STATE: std::cell::RefCell<Option<(Receiver<Event>, VecDeque<Frame>, bool)>> = std::cell::RefCell::new(None);
}

fn host() -> &'static Host {
    unsafe { &*std::ptr::addr_of!(HOST) }
}

fn send(line: &str) {
    OUT.lock().unwrap().extend_from_slice(line.as_bytes());
}

fn flush() {
    let mut out = OUT.lock().unwrap();
    let mut off = 0;
    while off < out.len() {
        let n = unsafe { write(host().out_fd, out[off..].as_ptr(), out.len() - off) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            unsafe { _exit(0) } // the judge closed the channel: nobody is left to answer
        }
        off += n as usize;
    }
    out.clear();
}

/// Turns what the solution wrote to fd 1 and 2 into log frames: whole lines
/// at once, everything when final. True if there was any output.
fn drain_logs(final_: bool) -> bool {
    let h = host();
    if h.log_fd[0] < 0 {
        return false;
    }
    let mut logs = LOGS.lock().unwrap();
    let mut any = false;
    let mut tmp = vec![0u8; 65536];
    for s in 0..2 {
        loop {
            let n = unsafe { read(h.log_fd[s], tmp.as_mut_ptr(), tmp.len()) };
            if n <= 0 {
                break;
            }
            any = true;
            if s == 1 && h.real_err >= 0 {
                unsafe { write(h.real_err, tmp.as_ptr(), n as usize) };
            }
            logs[s].extend_from_slice(&tmp[..n as usize]);
        }
        let text = &mut logs[s];
        let mut cut = text.len();
        if !final_ && cut < LOG_CHUNK {
            cut = text.iter().rposition(|&c| c == b'\n').map(|p| p + 1).unwrap_or(0);
        }
        // Never cut inside a UTF-8 sequence.
        let mut back = 0;
        while back < 3 && back < cut && text[cut - 1 - back] & 0xC0 == 0x80 {
            back += 1;
        }
        if back < cut {
            let lead = text[cut - 1 - back];
            let need = if lead >= 0xF0 { 4 } else if lead >= 0xE0 { 3 } else if lead >= 0xC0 { 2 } else { 1 };
            if lead >= 0xC0 && need > back + 1 {
                cut = cut - 1 - back;
            }
        }
        if cut == 0 {
            continue;
        }
        any = true;
        let chunk: Vec<u8> = text.drain(..cut).collect();
        let data = String::from_utf8_lossy(&chunk);
        let chars: Vec<char> = data.chars().collect();
        for piece in chars.chunks(LOG_CHUNK) {
            let piece: String = piece.iter().collect();
            let mut f = String::from(if s == 0 {
                "{\"type\":\"log\",\"stream\":\"stdout\",\"data\":"
            } else {
                "{\"type\":\"log\",\"stream\":\"stderr\",\"data\":"
            });
            quote_to(&mut f, &piece);
            f.push_str("}\n");
            send(&f);
        }
    }
    any
}

fn flush_user() {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
}

fn error_frame(id: &str, code: &str, message: &str, trace: Option<&str>) -> String {
    let mut f = String::from("{\"type\":\"error\",\"id\":");
    quote_to(&mut f, id);
    f.push_str(",\"code\":");
    quote_to(&mut f, code);
    f.push_str(",\"message\":");
    quote_to(&mut f, message);
    if let Some(t) = trace {
        f.push_str(",\"trace\":");
        quote_to(&mut f, t);
    }
    f.push_str("}\n");
    f
}

fn reader(mut input: File, events: Sender<Event>) {
    let mut chunk = vec![0u8; 65536];
    let mut held: Vec<u8> = Vec::new();
    let mut skipping = false;
    let dispatch = |line: &[u8]| {
        let f = match parse_frame(line) {
            Some(f) => f,
            None => return true,
        };
        let id = f.str("id").map(|s| s.to_string());
        let ev = match (f.str("type"), id) {
            (Some("call"), Some(id)) if !id.is_empty() => Event::Call(f),
            (Some("result"), Some(id)) | (Some("error"), Some(id)) => Event::Answer(id, f),
            (Some("shutdown"), _) => Event::End,
            _ => return true,
        };
        events.send(ev).is_ok()
    };
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut start = 0;
        for k in 0..n {
            if chunk[k] != b'\n' {
                continue;
            }
            if skipping {
                skipping = false;
            } else if held.is_empty() {
                dispatch(&chunk[start..k]);
            } else {
                held.extend_from_slice(&chunk[start..k]);
                dispatch(&held);
            }
            held.clear();
            start = k + 1;
        }
        if start < n && !skipping {
            held.extend_from_slice(&chunk[start..n]);
            if held.len() > MAX_LINE {
                held = Vec::new();
                skipping = true;
            }
        }
    }
    if !held.is_empty() && !skipping {
        dispatch(&held);
    }
    let _ = events.send(Event::End);
}

fn new_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut z = seed ^ (std::process::id() as u64) << 32 ^ n.wrapping_mul(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
    format!("{:016x}{:016x}", z ^ (z >> 31), n)
}

/// A capability call failed: code is the answer's wire code ("NotFound",
/// "Rejected", "CallTimeout", ...; "" when the channel closed).
#[derive(Debug, Clone)]
pub struct CapabilityError {
    pub code: String,
    pub message: String,
}

impl Display for CapabilityError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

fn cap_err(code: &str, message: &str) -> CapabilityError {
    CapabilityError { code: code.to_string(), message: message.to_string() }
}

/// Calls the evaluator's capability name(args) and waits for its value.
/// Only from the thread that runs the call.
pub fn call_capability(name: &str, args: Vec<Value>) -> Result<Value, CapabilityError> {
    let id = new_id();
    let mut f = String::from("{\"type\":\"capability\",\"id\":\"");
    f.push_str(&id);
    f.push_str("\",\"name\":");
    quote_to(&mut f, name);
    f.push_str(",\"args\":");
    if let Err(e) = encode(&mut f, &Value::List(args), &mut Vec::new(), 0) {
        return Err(cap_err("Rejected", &e.replacen("value", "args", 1)));
    }
    f.push_str("}\n");
    STATE.with(|st| {
        let mut st = st.borrow_mut();
        let (events, queued, closed) = match st.as_mut() {
            Some(s) => s,
            None => return Err(cap_err("", "not running under the tether solution host (or not on the call's thread)")),
        };
        if *closed {
            return Err(cap_err("", "channel to the judge closed (stdin EOF)"));
        }
        flush_user();
        drain_logs(true);
        send(&f);
        flush();
        loop {
            match events.recv() {
                Ok(Event::Call(c)) => queued.push_back(c),
                Ok(Event::Answer(aid, a)) if aid == id => {
                    if let Some(e) = a.codec_error {
                        return Err(cap_err("Rejected", &e));
                    }
                    if a.str("type") == Some("result") {
                        return Ok(a.m.get("value").cloned().unwrap_or(Value::Null));
                    }
                    let code = a.str("code").unwrap_or("SystemError").to_string();
                    let message = a.str("message").unwrap_or("").to_string();
                    return Err(CapabilityError { code, message });
                }
                Ok(Event::Answer(..)) => {}
                Ok(Event::End) | Err(_) => {
                    *closed = true;
                    return Err(cap_err("", "channel to the judge closed (stdin EOF)"));
                }
            }
        }
    })
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".into()
    }
}

fn answer(registry: &Registry, f: &Frame) -> String {
    let id = f.str("id").unwrap_or("");
    if let Some(e) = &f.codec_error {
        return error_frame(id, "Rejected", &format!("args: {}", e), None);
    }
    let handler = match f.m.get("fn") {
        Some(Value::Str(name)) => match registry.functions.get(name) {
            Some(h) => h,
            None => return error_frame(id, "NotFound", &format!("function '{}' not registered", name), None),
        },
        other => {
            let shown = dump(other.unwrap_or(&Value::Null)).unwrap_or_else(|_| "?".into());
            return error_frame(id, "NotFound", &format!("function {} not registered", shown), None);
        }
    };
    let empty = Vec::new();
    let args = match f.m.get("args") {
        None => &empty,
        Some(Value::List(a)) => a,
        Some(_) => return error_frame(id, "Rejected", "args must be an array", None),
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(args)));
    let value = match outcome {
        Err(p) => {
            let text = format!("panic: {}", panic_text(&p));
            return error_frame(id, "Exception", &text, Some(&text));
        }
        Ok(Err(rejected)) => return error_frame(id, "Rejected", &rejected, None),
        Ok(Ok(Err(exception))) => return error_frame(id, "Exception", &exception, Some(&exception)),
        Ok(Ok(Ok(v))) => v,
    };
    let mut out = String::from("{\"type\":\"result\",\"id\":");
    quote_to(&mut out, id);
    out.push_str(",\"value\":");
    if let Err(e) = encode(&mut out, &value, &mut Vec::new(), 0) {
        return error_frame(id, "Rejected", &e, None);
    }
    out.push_str("}\n");
    if out.len() - 1 > MAX_FRAME {
        return error_frame(id, "Rejected", &format!("frame size {} > {}", out.len() - 1, MAX_FRAME), None);
    }
    out
}

/// Runs the host: called by tether_main.rs's main with the solution's
/// registration function.
pub fn serve(register: fn(&mut Registry)) -> ! {
    unsafe {
        let h = &mut *std::ptr::addr_of_mut!(HOST);
        let in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
        h.out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
        h.real_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
        if in_fd < 0 || h.out_fd < 0 {
            _exit(1);
        }
        let null_fd = open(b"/dev/null\0".as_ptr(), O_RDWR | O_CLOEXEC);
        if null_fd >= 0 {
            dup2(null_fd, 0);
            close(null_fd);
        }
        for s in 0..2 {
            let mut p = [0i32; 2];
            if pipe2(p.as_mut_ptr(), O_CLOEXEC) != 0 {
                continue;
            }
            dup2(p[1], s as i32 + 1);
            close(p[1]);
            fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
            h.log_fd[s] = p[0];
        }
        let (tx, rx) = channel();
        let input = File::from_raw_fd(in_fd);
        std::thread::Builder::new().name("tether-reader".into()).spawn(move || reader(input, tx)).unwrap();
        STATE.with(|st| *st.borrow_mut() = Some((rx, VecDeque::new(), false)));
    }
    // A panic is answered as an Exception; its default report on stderr would be noise.
    std::panic::set_hook(Box::new(|_| {}));
    send("{\"type\":\"ready\"}\n");
    flush();
    if host().log_fd[0] >= 0 && host().log_fd[1] >= 0 {
        std::thread::Builder::new()
            .name("tether-logs".into())
            .stack_size(256 * 1024)
            .spawn(|| loop {
                let h = host();
                let mut fds = [PollFd { fd: h.log_fd[0], events: POLLIN, revents: 0 }, PollFd { fd: h.log_fd[1], events: POLLIN, revents: 0 }];
                if unsafe { poll(fds.as_mut_ptr(), 2, -1) } > 0 && drain_logs(false) {
                    flush();
                }
            })
            .unwrap();
    }
    let mut registry = Registry { functions: HashMap::new() };
    register(&mut registry);
    loop {
        let next = STATE.with(|st| {
            let mut st = st.borrow_mut();
            let (events, queued, closed) = st.as_mut().unwrap();
            if let Some(f) = queued.pop_front() {
                return Some(f);
            }
            if *closed {
                return None;
            }
            loop {
                let ev = match events.try_recv() {
                    Ok(ev) => ev,
                    Err(_) => {
                        flush();
                        match events.recv() {
                            Ok(ev) => ev,
                            Err(_) => Event::End,
                        }
                    }
                };
                match ev {
                    Event::Call(f) => return Some(f),
                    Event::Answer(..) => {}
                    Event::End => {
                        *closed = true;
                        return None;
                    }
                }
            }
        });
        let f = match next {
            Some(f) => f,
            None => break,
        };
        let a = answer(&registry, &f);
        flush_user();
        drain_logs(true);
        send(&a);
    }
    flush_user();
    drain_logs(true);
    flush();
    unsafe { _exit(0) }
}
