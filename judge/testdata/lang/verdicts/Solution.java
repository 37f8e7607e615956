// See solution.py: add, and add_* misbehaving one way each.
import java.util.ArrayList;
import java.util.List;

public class Solution {
  private static final List<byte[]> keep = new ArrayList<>();

  public static long add(long a, long b) {
    return a + b;
  }

  public static long add_wrong(long a, long b) {
    return a - b;
  }

  public static long add_crash(long a, long b) {
    Runtime.getRuntime().halt(134);
    return 0;
  }

  public static long add_throw(long a, long b) {
    long zero = a + b - a - b;
    return a / zero;
  }

  public static long add_spin(long a, long b) {
    long i = 0;
    while (true) {
      i++;
    }
  }

  public static long add_hog(long a, long b) {
    for (int i = 0; i < 64; i++) {
      byte[] chunk = new byte[16 << 20];
      java.util.Arrays.fill(chunk, (byte) 1);
      keep.add(chunk);
    }
    return keep.size();
  }

  public static long add_chatty(long a, long b) {
    System.out.println("chatty: " + a + " + " + b);
    return a + b;
  }
}
