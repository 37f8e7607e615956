// A + B in Java, nothing but the function: a static method of Solution;
// a bigint is a BigInteger, of any size.
import java.math.BigInteger;

class Solution {
    static BigInteger add(BigInteger a, BigInteger b) {
        return a.add(b);
    }
}
