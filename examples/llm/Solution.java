// The solution asks a language model through the evaluator's
// request_llm_completion capability, nothing but the functions.
import java.util.*;

class Solution {
    static List<String> ask_all(List<String> prompts) {
        List<String> answers = new ArrayList<>();
        for (String p : prompts) answers.add((String) Tether.callCapability("request_llm_completion", p));
        return answers;
    }

    static String ask_one_more(String prompt) {
        try {
            return (String) Tether.callCapability("request_llm_completion", prompt);
        } catch (Tether.CapabilityException e) {
            return e.getMessage();
        }
    }
}
