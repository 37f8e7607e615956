// The functions sdk/internal/hosttest calls, in Rust.
use crate::tether::{self, Value};
use std::fmt;

pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

pub fn echo(v: Value) -> Value {
    v
}

#[derive(Debug)]
pub struct DivisionByZero;

impl fmt::Display for DivisionByZero {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "cannot divide by zero")
    }
}

pub fn fail() -> Result<i64, DivisionByZero> {
    Err(DivisionByZero)
}

pub fn shout(s: String) -> usize {
    println!("out:{}", s);
    eprintln!("err:{}", s);
    s.len()
}

pub fn twice(x: i64) -> Result<i64, tether::CapabilityError> {
    let v = tether::call_capability("double", vec![Value::Int(x)])?;
    Ok(v.get::<i64>().unwrap_or(0) + 1)
}

pub fn capcode(name: String) -> String {
    match tether::call_capability(&name, vec![]) {
        Ok(_) => "ok".to_string(),
        Err(e) => e.code,
    }
}

pub fn boom(v: Vec<i32>) -> i32 {
    v[10]
}

tether_export!(add, echo, fail, shout, twice, capcode, boom);
