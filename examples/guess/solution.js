// Binary search over the evaluator's games, nothing but the functions: the
// state lives between calls, in module variables. The interval reaches
// 2^40, well within a number's exact integers.
let lo = 0, hi = 0, last = 0;

function new_game(l, h) {
  lo = l;
  hi = h;
}

function guess() {
  last = lo + Math.floor((hi - lo) / 2);
  return last;
}

function feedback(answer) {
  if (answer === 'higher') lo = last + 1;
  if (answer === 'lower') hi = last - 1;
}
