/* The solution asks a language model through the evaluator's
 * request_llm_completion capability, nothing but the functions. A list is
 * a tether_value; a string result is copied by the host. */
#include <stdlib.h>

static tether_value *complete(const char *prompt) {
  tether_value *args = tether_list();
  tether_append(args, tether_string(prompt));
  return tether_call_capability("request_llm_completion", args);
}

tether_value *ask_all(const tether_value *prompts) {
  tether_value *answers = tether_list();
  for (size_t i = 0; i < tether_len(prompts); i++) {
    tether_value *answer = complete(tether_as_string(tether_at(prompts, i)));
    if (answer == NULL) {
      tether_free(answers);
      return tether_throw("CapabilityError", "%s: %s", tether_capability_code(), tether_capability_message());
    }
    tether_append(answers, answer);
  }
  return answers;
}

const char *ask_one_more(const char *prompt) {
  static tether_value *last;
  tether_free(last);
  last = complete(prompt);
  return last == NULL ? tether_capability_message() : tether_as_string(last);
}
