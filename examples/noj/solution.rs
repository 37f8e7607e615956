// Reverse the words, nothing but the function.
fn solve(s: String) -> String {
    s.split_whitespace().rev().collect::<Vec<_>>().join(" ")
}
