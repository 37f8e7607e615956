// A + B in JavaScript: integers beyond 2^53 arrive as BigInt, so add in
// BigInt and let the host send small results back as plain integers.
module.exports = {
  add: (a, b) => BigInt(a) + BigInt(b),
};
