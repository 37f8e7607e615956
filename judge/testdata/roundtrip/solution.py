"""Every declared function of problem.json echoes its argument: nothing but the functions."""


def echo_int(v):
    return v


def echo_bigint(v):
    return v


def echo_float(v):
    return v


def echo_bool(v):
    return v


def echo_string(v):
    return v


def echo_bytes(v):
    return v


def echo_list(v):
    return v


def echo_list_bool(v):
    return v


def echo_list_float(v):
    return v


def echo_list_bytes(v):
    return v


def echo_nested_list(v):
    return v


def echo_map(v):
    return v


def echo_nested_map(v):
    return v


def echo_optional_int(v):
    return v


def echo_optional_string(v):
    return v


def echo_optional_list(v):
    return v


def echo_list_optional(v):
    return v


def echo_point(v):
    return v


def echo_shape(v):
    return v


def echo_points(v):
    return v


def echo_optional_point(v):
    return v


def echo_point_map(v):
    return v


def echo_any(v):
    return v


def echo_mixed(a, b, c, d, e, f):
    return [a, b, c, d, e, f]
