//! The crate root of a Rust solution built with its host, when there is no
//! build cache to keep the host built alone (tether_bin.rs): the host
//! (module tether) and the solution (main.rs, module solution), joined by
//! main. See tether.rs.
#[macro_use]
mod tether;
#[path = "main.rs"]
mod solution;

// tether_export! names $crate::Registry, which is this when the host is a
// module of this crate.
use tether::Registry;

fn main() {
    tether::serve(solution::tether_register)
}
