// A + B in Rust: integers beyond 64 bits arrive as Value::BigInt (their
// digits); the sum is computed in 128 bits.
use crate::tether::Value;

fn wide(v: &Value) -> Result<i128, String> {
    match v {
        Value::Int(i) => Ok(*i as i128),
        Value::BigInt(digits) => digits.parse().map_err(|_| format!("{} is too big", digits)),
        _ => Err("not an integer".to_string()),
    }
}

pub fn add(a: Value, b: Value) -> Result<Value, String> {
    let sum = wide(&a)? + wide(&b)?;
    Ok(match i64::try_from(sum) {
        Ok(small) => Value::Int(small),
        Err(_) => Value::BigInt(sum.to_string()),
    })
}

tether_export!(add);
