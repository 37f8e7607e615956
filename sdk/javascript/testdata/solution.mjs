// An ES module solution.
export function add(a, b) {
  return a + b;
}
export const mul = (a, b) => a * b;
