// Every declared function of problem.json echoes its argument: nothing but the functions.

function echo_int(v) {
  return v;
}

function echo_bigint(v) {
  return v;
}

function echo_float(v) {
  return v;
}

function echo_bool(v) {
  return v;
}

function echo_string(v) {
  return v;
}

function echo_bytes(v) {
  return v;
}

function echo_list(v) {
  return v;
}

function echo_list_bool(v) {
  return v;
}

function echo_list_float(v) {
  return v;
}

function echo_list_bytes(v) {
  return v;
}

function echo_nested_list(v) {
  return v;
}

function echo_map(v) {
  return v;
}

function echo_nested_map(v) {
  return v;
}

function echo_optional_int(v) {
  return v;
}

function echo_optional_string(v) {
  return v;
}

function echo_optional_list(v) {
  return v;
}

function echo_list_optional(v) {
  return v;
}

function echo_point(v) {
  return v;
}

function echo_shape(v) {
  return v;
}

function echo_points(v) {
  return v;
}

function echo_optional_point(v) {
  return v;
}

function echo_point_map(v) {
  return v;
}

function echo_any(v) {
  return v;
}

function echo_mixed(a, b, c, d, e, f) {
  return [a, b, c, d, e, f];
}
