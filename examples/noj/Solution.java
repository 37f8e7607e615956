// Reverse the words, nothing but the function.
import java.util.*;

class Solution {
    static String solve(String s) {
        List<String> words = new ArrayList<>(Arrays.asList(s.trim().split("\\s+")));
        Collections.reverse(words);
        return String.join(" ", words);
    }
}
