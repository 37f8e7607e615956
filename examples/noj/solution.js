// Reverse the words, nothing but the function.
function solve(s) {
  return s.split(/\s+/).filter((w) => w !== '').reverse().join(' ');
}
