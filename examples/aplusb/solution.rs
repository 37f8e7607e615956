// A + B in Rust, nothing but the function: a bigint is a Value, Value::Int
// or, beyond 64 bits, Value::BigInt (its digits); the sum is computed in
// 128 bits. The declaration guarantees integers.
fn wide(v: &Value) -> i128 {
    match v {
        Value::Int(i) => *i as i128,
        Value::BigInt(digits) => digits.parse().expect("an integer within 127 bits"),
        other => panic!("{:?} is not an integer", other),
    }
}

fn add(a: Value, b: Value) -> Value {
    let sum = wide(&a) + wide(&b);
    match i64::try_from(sum) {
        Ok(small) => Value::Int(small),
        Err(_) => Value::BigInt(sum.to_string()),
    }
}
