//! The crate root of a Rust solution: the host (module tether) and the
//! solution (main.rs, module solution), joined by main. See tether.rs.
#[macro_use]
mod tether;
#[path = "main.rs"]
mod solution;

fn main() {
    tether::serve(solution::tether_register)
}
