// Bytes and nested values, nothing but the function: bytes are a Bytes, a
// record (Meta, Transformed) a Value::Map.
fn transform(blob: Bytes, meta: Value) -> Value {
    let n = blob.0.len();
    let stats = BTreeMap::from([
        ("raw".to_string(), Value::Bytes(vec![0x00, 0xff])),
        ("size".to_string(), Value::Int(n as i64)),
        ("half".to_string(), Value::Float(n as f64 / 2.0)),
    ]);
    Value::Map(BTreeMap::from([
        ("reversed".to_string(), Value::Bytes(blob.0.iter().rev().copied().collect())),
        ("complement".to_string(), Value::Bytes(blob.0.iter().map(|b| 255 - b).collect())),
        ("meta".to_string(), meta),
        ("stats".to_string(), Value::Map(stats)),
    ]))
}
