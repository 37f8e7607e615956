// A + B in Java: every public static method of Solution is callable by
// its name; BigInteger takes integers of any size.
import java.math.BigInteger;

public class Solution {
  public static BigInteger add(BigInteger a, BigInteger b) {
    return a.add(b);
  }
}
