// The functions sdk/internal/hosttest calls, in Java.
import java.util.List;
import java.util.Map;

public class Solution {
  public static long add(long a, long b) {
    return a + b;
  }

  public static Object echo(Object v) {
    return v;
  }

  public static int fail() {
    int zero = 0;
    return 1 / zero;
  }

  public static long shout(String s) {
    System.out.println("out:" + s);
    System.err.println("err:" + s);
    return s.length();
  }

  public static long twice(long x) {
    return ((Number) Tether.callCapability("double", x)).longValue() + 1;
  }

  public static String capcode(String name) {
    try {
      Tether.callCapability(name);
      return "ok";
    } catch (Tether.CapabilityException e) {
      return e.code();
    }
  }

  public static int sum(int[] xs, List<Integer> ys, Map<String, Double> zs) {
    int s = 0;
    for (int x : xs) s += x;
    for (int y : ys) s += y;
    for (double z : zs.values()) s += (int) z;
    return s;
  }
}
