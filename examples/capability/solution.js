// The solution calls the evaluator's capabilities, nothing but the
// functions: lookup for each word, and slow_oracle, whose failure's code it
// returns. A capability call is a promise (the global tether).
async function translate(sentence) {
  const words = [];
  for (const w of sentence.split(/\s+/).filter((w) => w !== '')) {
    const t = await tether.callCapability('lookup', w);
    words.push(t === null ? '?' : t);
  }
  return words.join(' ');
}

async function ask_oracle() {
  try {
    return await tether.callCapability('slow_oracle');
  } catch (e) {
    if (e instanceof tether.CapabilityError) return e.code;
    throw e;
  }
}
