// A + B in JavaScript, nothing but the function: integers beyond 2^53
// arrive as BigInt, so add in BigInt; the host sends small results back as
// plain integers.
function add(a, b) {
  return BigInt(a) + BigInt(b);
}
