// Binary search over the evaluator's games, nothing but the functions: the
// state lives between calls, in a static (calls may come from any thread).
use std::sync::Mutex;

struct Game {
    lo: i64,
    hi: i64,
    last: i64,
}

static GAME: Mutex<Game> = Mutex::new(Game { lo: 0, hi: 0, last: 0 });

fn new_game(lo: i64, hi: i64) {
    *GAME.lock().unwrap() = Game { lo, hi, last: 0 };
}

fn guess() -> i64 {
    let mut g = GAME.lock().unwrap();
    g.last = g.lo + (g.hi - g.lo) / 2;
    g.last
}

fn feedback(answer: String) {
    let mut g = GAME.lock().unwrap();
    match answer.as_str() {
        "higher" => g.lo = g.last + 1,
        "lower" => g.hi = g.last - 1,
        _ => {}
    }
}
