// The solution calls the evaluator's capabilities, nothing but the
// functions: lookup for each word, and slow_oracle, whose failure's code it
// returns.
class Solution {
    static String translate(String sentence) {
        StringBuilder out = new StringBuilder();
        for (String w : sentence.trim().split("\\s+")) {
            Object t = Tether.callCapability("lookup", w);
            if (out.length() > 0) out.append(' ');
            out.append(t == null ? "?" : (String) t);
        }
        return out.toString();
    }

    static String ask_oracle() {
        try {
            return (String) Tether.callCapability("slow_oracle");
        } catch (Tether.CapabilityException e) {
            return e.code();
        }
    }
}
