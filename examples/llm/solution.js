// The solution asks a language model through the evaluator's
// request_llm_completion capability, nothing but the functions. A
// capability call is a promise (the global tether).
async function ask_all(prompts) {
  const answers = [];
  for (const p of prompts) answers.push(await tether.callCapability('request_llm_completion', p));
  return answers;
}

async function ask_one_more(prompt) {
  try {
    return await tether.callCapability('request_llm_completion', prompt);
  } catch (e) {
    if (e instanceof tether.CapabilityError) return e.message;
    throw e;
  }
}
