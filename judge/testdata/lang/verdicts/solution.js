// See solution.py: add, and add_* misbehaving one way each.
const keep = [];
module.exports = {
  add: (a, b) => a + b,
  add_wrong: (a, b) => a - b,
  add_crash: () => process.abort(),
  add_throw: () => null.boom(),
  add_spin: () => {
    for (;;) {}
  },
  add_hog: () => {
    for (let i = 0; i < 64; i++) keep.push(Buffer.alloc(16 << 20, 1));
    return keep.length;
  },
  add_chatty: (a, b) => {
    console.log('chatty: ' + a + ' + ' + b);
    return a + b;
  },
};
