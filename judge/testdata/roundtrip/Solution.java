// Every declared function of problem.json echoes its argument, in the Java
// types docs/languages.md maps the type language to: nothing but the methods.
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

class Solution {
    static long echo_int(long v) { return v; }
    static BigInteger echo_bigint(BigInteger v) { return v; }
    static double echo_float(double v) { return v; }
    static boolean echo_bool(boolean v) { return v; }
    static String echo_string(String v) { return v; }
    static byte[] echo_bytes(byte[] v) { return v; }
    static List<Long> echo_list(List<Long> v) { return v; }
    static List<Boolean> echo_list_bool(List<Boolean> v) { return v; }
    static List<Double> echo_list_float(List<Double> v) { return v; }
    static List<byte[]> echo_list_bytes(List<byte[]> v) { return v; }
    static List<List<String>> echo_nested_list(List<List<String>> v) { return v; }
    static Map<String, Long> echo_map(Map<String, Long> v) { return v; }
    static Map<String, Map<String, List<Double>>> echo_nested_map(Map<String, Map<String, List<Double>>> v) { return v; }
    static Long echo_optional_int(Long v) { return v; }
    static String echo_optional_string(String v) { return v; }
    static List<Long> echo_optional_list(List<Long> v) { return v; }
    static List<Long> echo_list_optional(List<Long> v) { return v; }
    static Object echo_point(Object v) { return v; }
    static Object echo_shape(Object v) { return v; }
    static List<Object> echo_points(List<Object> v) { return v; }
    static Object echo_optional_point(Object v) { return v; }
    static Map<String, Object> echo_point_map(Map<String, Object> v) { return v; }
    static Object echo_any(Object v) { return v; }

    static List<Object> echo_mixed(long a, String b, double c, boolean d, byte[] e, BigInteger f) {
        return List.of(a, b, c, d, e, f);
    }
}
