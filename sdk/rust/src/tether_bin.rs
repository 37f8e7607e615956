//! The crate root of a Rust solution built against its host compiled alone,
//! the library crate tether (libtether.rlib): the solution (main.rs) is
//! module solution, and the host is named tether at this root, as in
//! tether_main.rs, so `use crate::tether::...` means the same in both.
//! See tether.rs.
#[macro_use]
extern crate tether;
#[path = "main.rs"]
mod solution;

fn main() {
    tether::serve(solution::tether_register)
}
