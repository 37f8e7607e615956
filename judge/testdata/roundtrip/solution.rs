// Every declared function of problem.json echoes its argument, in the Rust
// types docs/languages.md maps the type language to: nothing but the functions.

fn echo_int(v: i64) -> i64 {
    v
}

fn echo_bigint(v: Value) -> Value {
    v
}

fn echo_float(v: f64) -> f64 {
    v
}

fn echo_bool(v: bool) -> bool {
    v
}

fn echo_string(v: String) -> String {
    v
}

fn echo_bytes(v: Bytes) -> Bytes {
    v
}

fn echo_list(v: Vec<i64>) -> Vec<i64> {
    v
}

fn echo_list_bool(v: Vec<bool>) -> Vec<bool> {
    v
}

fn echo_list_float(v: Vec<f64>) -> Vec<f64> {
    v
}

fn echo_list_bytes(v: Vec<Bytes>) -> Vec<Bytes> {
    v
}

fn echo_nested_list(v: Vec<Vec<String>>) -> Vec<Vec<String>> {
    v
}

fn echo_map(v: BTreeMap<String, i64>) -> BTreeMap<String, i64> {
    v
}

fn echo_nested_map(v: BTreeMap<String, BTreeMap<String, Vec<f64>>>) -> BTreeMap<String, BTreeMap<String, Vec<f64>>> {
    v
}

fn echo_optional_int(v: Option<i64>) -> Option<i64> {
    v
}

fn echo_optional_string(v: Option<String>) -> Option<String> {
    v
}

fn echo_optional_list(v: Option<Vec<i64>>) -> Option<Vec<i64>> {
    v
}

fn echo_list_optional(v: Vec<Option<i64>>) -> Vec<Option<i64>> {
    v
}

fn echo_point(v: Value) -> Value {
    v
}

fn echo_shape(v: Value) -> Value {
    v
}

fn echo_points(v: Vec<Value>) -> Vec<Value> {
    v
}

fn echo_optional_point(v: Option<Value>) -> Option<Value> {
    v
}

fn echo_point_map(v: BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    v
}

fn echo_any(v: Value) -> Value {
    v
}

fn echo_mixed(a: i64, b: String, c: f64, d: bool, e: Bytes, f: Value) -> Vec<Value> {
    vec![Value::Int(a), Value::Str(b), Value::Float(c), Value::Bool(d), Value::Bytes(e.0), f]
}
