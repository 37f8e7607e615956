// Binary search over the evaluator's games, nothing but the functions: the
// state lives between calls, in static fields.
class Solution {
    static long lo, hi, last;

    static void new_game(long l, long h) {
        lo = l;
        hi = h;
    }

    static long guess() {
        return last = lo + (hi - lo) / 2;
    }

    static void feedback(String answer) {
        if (answer.equals("higher")) lo = last + 1;
        if (answer.equals("lower")) hi = last - 1;
    }
}
