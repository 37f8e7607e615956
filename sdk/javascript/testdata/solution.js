// The functions sdk/internal/hosttest calls, in JavaScript (CommonJS).
function add(a, b) {
  return a + b;
}
function echo(v) {
  return v;
}
function fail() {
  null.boom();
}
function shout(s) {
  console.log('out:' + s);
  console.error('err:' + s);
  return s.length;
}
async function twice(x) {
  return (await tether.callCapability('double', x)) + 1;
}
async function capcode(name) {
  try {
    await tether.callCapability(name);
    return 'ok';
  } catch (e) {
    return e.code;
  }
}
module.exports = { add, echo, fail, shout, twice, capcode };
