// Bytes and nested values, nothing but the function: bytes are a byte[],
// a record (Meta, Transformed) a Map<String, Object>.
import java.util.*;

class Solution {
    static Object transform(byte[] blob, Object meta) {
        int n = blob.length;
        byte[] reversed = new byte[n], complement = new byte[n];
        for (int i = 0; i < n; i++) {
            reversed[i] = blob[n - 1 - i];
            complement[i] = (byte) (255 - (blob[i] & 0xff));
        }
        Map<String, Object> stats = new HashMap<>();
        stats.put("raw", new byte[] {0x00, (byte) 0xff});
        stats.put("size", (long) n);
        stats.put("half", n / 2.0);
        Map<String, Object> out = new HashMap<>();
        out.put("reversed", reversed);
        out.put("complement", complement);
        out.put("meta", meta);
        out.put("stats", stats);
        return out;
    }
}
