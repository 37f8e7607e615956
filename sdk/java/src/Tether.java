// Tether.java: the Java (17+) solution host of tether (docs/languages.md, "Java").
//
//     javac -encoding UTF-8 -d . Solution.java Tether.java
//     java -cp . Tether Solution
//
// Every public static method of the solution class (and, for functions
// declared in problem.json, a static method of any access) is callable by
// its name over the judge protocol (docs/protocol/judge.md), as with the Python host:
// `ready` first, calls one at a time in arrival order, answers `result` or
// `error` (NotFound, Rejected, Exception with the exception's class:
// `java.lang.ArithmeticException: / by zero`). Arguments convert to the
// parameters' types: int, long, short, byte, double, float, boolean and
// their boxes, String, BigInteger, byte[] (bytes), arrays, List<T>,
// Map<String, T> and Object (the generic value: null, Boolean, Long or
// BigInteger, Double, String, byte[], List, Map). Results convert back the
// same way. System.out and System.err become log frames, sent before the
// answer of the call that wrote them. Tether.callCapability(name, args...)
// calls a capability of the evaluator.

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Array;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

public final class Tether {
  private Tether() {}

  static final int MAX_FRAME = 1 << 20;
  static final int MAX_LINE = 4 << 20;
  static final int MAX_DEPTH = 512;
  static final int MAX_INT_DIGITS = 4300;
  static final int MAX_LOG_CHUNK = 64 * 1024;

  /** A capability call failed; code() is the answer's wire code ("" when the channel closed). */
  public static class CapabilityException extends RuntimeException {
    private final String code;

    public CapabilityException(String code, String message) {
      super(message);
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** A value outside the transferable set, or not fitting a parameter. */
  static final class Rejected extends RuntimeException {
    Rejected(String message) {
      super(message, null, false, false);
    }
  }

  static final class Syntax extends Exception {
    Syntax() {
      super("invalid JSON", null, false, false);
    }
  }

  // ------------------------------------------------------------------ codec

  /** Parses JSON the codec's way; a codec error is kept and parsing goes on. */
  static final class Parser {
    final String s;
    int i;
    String codecError;

    Parser(String s) {
      this.s = s;
    }

    void codec(String why) {
      if (codecError == null) codecError = why;
    }

    char at(int k) {
      return k < s.length() ? s.charAt(k) : '\0';
    }

    void ws() {
      while (i < s.length()) {
        char c = s.charAt(i);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++;
        else break;
      }
    }

    void lit(String w) throws Syntax {
      if (!s.startsWith(w, i)) throw new Syntax();
      i += w.length();
    }

    Object value(int depth) throws Syntax {
      ws();
      char c = at(i);
      switch (c) {
        case '{': return object(depth + 1);
        case '[': return array(depth + 1);
        case '"': return string();
        case 't': lit("true"); return Boolean.TRUE;
        case 'f': lit("false"); return Boolean.FALSE;
        case 'n': lit("null"); return null;
        case 'N': lit("NaN"); codec("NaN is not transferable"); return null;
        case 'I': lit("Infinity"); codec("Infinity is not transferable"); return null;
        default: return number();
      }
    }

    boolean digit(int k) {
      char c = at(k);
      return c >= '0' && c <= '9';
    }

    Object number() throws Syntax {
      int start = i;
      if (at(i) == '-') i++;
      if (at(i) == 'I') {
        lit("Infinity");
        codec("-Infinity is not transferable");
        return null;
      }
      if (!digit(i)) throw new Syntax();
      if (at(i) == '0') i++;
      else while (digit(i)) i++;
      boolean integer = true;
      if (at(i) == '.') {
        integer = false;
        i++;
        if (!digit(i)) throw new Syntax();
        while (digit(i)) i++;
      }
      if (at(i) == 'e' || at(i) == 'E') {
        integer = false;
        i++;
        if (at(i) == '+' || at(i) == '-') i++;
        if (!digit(i)) throw new Syntax();
        while (digit(i)) i++;
      }
      String text = s.substring(start, i);
      if (integer) {
        int digits = text.length() - (text.charAt(0) == '-' ? 1 : 0);
        if (digits > MAX_INT_DIGITS) {
          codec("integer has " + digits + " digits, more than " + MAX_INT_DIGITS);
          return 0L;
        }
        if (digits <= 18) return Long.parseLong(text);
        BigInteger b = new BigInteger(text);
        return b.bitLength() < 64 ? (Object) b.longValue() : b;
      }
      double d = Double.parseDouble(text);
      if (Double.isInfinite(d)) codec("number " + text.substring(0, Math.min(40, text.length())) + " overflows a float: not transferable");
      return d;
    }

    String string() throws Syntax {
      int k = i + 1;
      StringBuilder out = null;
      int run = k;
      for (;;) {
        if (k >= s.length()) throw new Syntax();
        char c = s.charAt(k);
        if (c == '"') {
          i = k + 1;
          if (out == null) return s.substring(run, k);
          return out.append(s, run, k).toString();
        }
        if (c < 0x20) throw new Syntax();
        if (c != '\\') {
          k++;
          continue;
        }
        if (out == null) out = new StringBuilder();
        out.append(s, run, k);
        char e = at(k + 1);
        k += 2;
        switch (e) {
          case '"': out.append('"'); break;
          case '\\': out.append('\\'); break;
          case '/': out.append('/'); break;
          case 'b': out.append('\b'); break;
          case 'f': out.append('\f'); break;
          case 'n': out.append('\n'); break;
          case 'r': out.append('\r'); break;
          case 't': out.append('\t'); break;
          case 'u': {
            int cp = hex4(k);
            k += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
              if (at(k) == '\\' && at(k + 1) == 'u') {
                int lo = hex4(k + 2);
                if (lo >= 0xDC00 && lo < 0xE000) {
                  out.append((char) cp).append((char) lo);
                  k += 6;
                  break;
                }
              }
              codec("lone surrogate escape in a string");
              out.append('\uFFFD');
            } else if (cp >= 0xDC00 && cp < 0xE000) {
              codec("lone surrogate escape in a string");
              out.append('\uFFFD');
            } else {
              out.append((char) cp);
            }
            break;
          }
          default: throw new Syntax();
        }
        run = k;
      }
    }

    int hex4(int k) throws Syntax {
      if (k + 4 > s.length()) throw new Syntax();
      int v = 0;
      for (int j = 0; j < 4; j++) {
        int h = Character.digit(s.charAt(k + j), 16);
        if (h < 0) throw new Syntax();
        v = v * 16 + h;
      }
      return v;
    }

    // A list or map nested deeper than MAX_DEPTH: a codec error, and the
    // value is skipped, not parsed (no deep recursion).
    Object skipDeep() throws Syntax {
      codec("nesting too deep (more than 512)");
      int depth = 0;
      while (i < s.length()) {
        char c = s.charAt(i);
        if (c == '"') {
          string();
          continue;
        }
        i++;
        if (c == '[' || c == '{') depth++;
        else if ((c == ']' || c == '}') && --depth == 0) return null;
      }
      throw new Syntax();
    }

    // At a list's or map's opening bracket: consumes it and the white space
    // after it, and close too when it follows at once (the list or map is
    // empty).
    boolean opensEmpty(char close) {
      i++;
      ws();
      if (at(i) == close) {
        i++;
        return true;
      }
      return false;
    }

    Object array(int depth) throws Syntax {
      if (depth > MAX_DEPTH) return skipDeep();
      List<Object> out = new ArrayList<>();
      if (opensEmpty(']')) return out;
      for (;;) {
        out.add(value(depth));
        ws();
        char c = at(i++);
        if (c == ',') continue;
        if (c == ']') return out;
        throw new Syntax();
      }
    }

    Object object(int depth) throws Syntax {
      if (depth > MAX_DEPTH) return skipDeep();
      Map<String, Object> out = new LinkedHashMap<>();
      if (opensEmpty('}')) return out;
      for (;;) {
        ws();
        if (at(i) != '"') throw new Syntax();
        String key = string();
        ws();
        if (at(i) != ':') throw new Syntax();
        i++;
        Object v = value(depth);
        if (out.containsKey(key)) codec("duplicate key " + quote(key));
        out.put(key, v);
        ws();
        char c = at(i++);
        if (c == ',') continue;
        if (c == '}') break;
        throw new Syntax();
      }
      if (out.size() == 1 && out.get("__bytes__") instanceof String) {
        String b64 = (String) out.get("__bytes__");
        byte[] b = decodeBase64(b64);
        if (b == null) {
          codec("invalid base64 in __bytes__: " + quote(b64.substring(0, Math.min(40, b64.length()))));
          return new byte[0];
        }
        return b;
      }
      return out;
    }
  }

  static byte[] decodeBase64(String s) {
    if (s.length() % 4 != 0) return null;
    try {
      byte[] b = Base64.getDecoder().decode(s);
      return Base64.getEncoder().encodeToString(b).equals(s) ? b : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2);
    quoteTo(b, s);
    return b.toString();
  }

  static void quoteTo(StringBuilder b, String s) {
    b.append('"');
    int run = 0;
    for (int k = 0; k < s.length(); k++) {
      char c = s.charAt(k);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      b.append(s, run, k);
      run = k + 1;
      switch (c) {
        case '"': b.append("\\\""); break;
        case '\\': b.append("\\\\"); break;
        case '\n': b.append("\\n"); break;
        case '\r': b.append("\\r"); break;
        case '\t': b.append("\\t"); break;
        case '\b': b.append("\\b"); break;
        case '\f': b.append("\\f"); break;
        default: b.append(String.format("\\u%04x", (int) c));
      }
    }
    b.append(s, run, s.length()).append('"');
  }

  static boolean wellFormed(String s) {
    for (int k = 0; k < s.length(); k++) {
      char c = s.charAt(k);
      if (Character.isHighSurrogate(c)) {
        if (k + 1 < s.length() && Character.isLowSurrogate(s.charAt(k + 1))) k++;
        else return false;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  static String repair(String s) {
    if (wellFormed(s)) return s;
    return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
  }

  /** Python's repr(float): shortest round-trip digits, Python's layout. */
  static String pyFloat(double d) {
    if (d == 0) return (1 / d < 0) ? "-0.0" : "0.0";
    String sci = null;
    for (int p = 1; p <= 17; p++) {
      sci = String.format(Locale.ROOT, "%." + (p - 1) + "e", d);
      if (Double.parseDouble(sci) == d) break;
    }
    int e = sci.indexOf('e');
    boolean neg = sci.charAt(0) == '-';
    String digits = sci.substring(neg ? 1 : 0, e).replace(".", "");
    while (digits.length() > 1 && digits.endsWith("0")) digits = digits.substring(0, digits.length() - 1);
    int x = Integer.parseInt(sci.substring(e + 1));
    StringBuilder out = new StringBuilder(neg ? "-" : "");
    if (x >= -4 && x < 16) {
      if (x < 0) return out.append("0.").append("0".repeat(-x - 1)).append(digits).toString();
      if (x + 1 >= digits.length()) return out.append(digits).append("0".repeat(x + 1 - digits.length())).append(".0").toString();
      return out.append(digits, 0, x + 1).append('.').append(digits.substring(x + 1)).toString();
    }
    out.append(digits.charAt(0));
    if (digits.length() > 1) out.append('.').append(digits.substring(1));
    int ax = Math.abs(x);
    return out.append('e').append(x < 0 ? '-' : '+').append(ax < 10 ? "0" : "").append(ax).toString();
  }

  static int compareCodePoints(String a, String b) {
    int i = 0, j = 0;
    while (i < a.length() && j < b.length()) {
      int x = a.codePointAt(i), y = b.codePointAt(j);
      if (x != y) return Integer.compare(x, y);
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  static Rejected refuse(String path, String why) {
    return new Rejected(path + ": " + why);
  }

  /** Appends the canonical JSON of v; Rejected naming the path otherwise. */
  static void encode(StringBuilder b, Object v, String path, int depth) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof Boolean) {
      b.append(((Boolean) v) ? "true" : "false");
    } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      b.append(((Number) v).longValue());
    } else if (v instanceof BigInteger) {
      String t = v.toString();
      if (t.length() - (t.charAt(0) == '-' ? 1 : 0) > MAX_INT_DIGITS) throw refuse(path, "integer has more than 4300 digits");
      b.append(t);
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d)) throw refuse(path, "NaN is not transferable");
      if (Double.isInfinite(d)) throw refuse(path, (d > 0 ? "Infinity" : "-Infinity") + " is not transferable");
      b.append(pyFloat(d));
    } else if (v instanceof String || v instanceof Character) {
      String s = v.toString();
      if (!wellFormed(s)) throw refuse(path, "string is not valid UTF-8 (lone surrogate)");
      quoteTo(b, s);
    } else if (v instanceof byte[]) {
      b.append("{\"__bytes__\":\"").append(Base64.getEncoder().encodeToString((byte[]) v)).append("\"}");
    } else if (depth >= MAX_DEPTH) {
      throw refuse(path, "nesting too deep (more than 512)");
    } else if (v instanceof List) {
      b.append('[');
      int k = 0;
      for (Object x : (List<?>) v) {
        if (k > 0) b.append(',');
        encode(b, x, path + "[" + k + "]", depth + 1);
        k++;
      }
      b.append(']');
    } else if (v.getClass().isArray()) {
      b.append('[');
      int n = Array.getLength(v);
      for (int k = 0; k < n; k++) {
        if (k > 0) b.append(',');
        encode(b, Array.get(v, k), path + "[" + k + "]", depth + 1);
      }
      b.append(']');
    } else if (v instanceof Map) {
      TreeMap<String, Object> sorted = new TreeMap<>(Tether::compareCodePoints);
      for (Map.Entry<?, ?> en : ((Map<?, ?>) v).entrySet()) {
        Object k = en.getKey();
        if (!(k instanceof String)) throw refuse(path, "non-string key " + k + " (" + (k == null ? "null" : k.getClass().getName()) + ")");
        sorted.put((String) k, en.getValue());
      }
      if (sorted.size() == 1 && sorted.containsKey("__bytes__") && sorted.get("__bytes__") instanceof String)
        throw refuse(path, "a map whose only key is \"__bytes__\" with a string value is reserved for bytes");
      b.append('{');
      boolean first = true;
      for (Map.Entry<String, Object> en : sorted.entrySet()) {
        if (!first) b.append(',');
        first = false;
        if (!wellFormed(en.getKey())) throw refuse(path, "key is not valid UTF-8 (lone surrogate)");
        quoteTo(b, en.getKey());
        b.append(':');
        encode(b, en.getValue(), path + "[" + quote(en.getKey()) + "]", depth + 1);
      }
      b.append('}');
    } else {
      throw refuse(path, v.getClass().getName() + " is not transferable");
    }
  }

  // ------------------------------------------------------------------ conversion to parameters

  static String kind(Object v) {
    if (v == null) return "null";
    if (v instanceof Boolean) return "a boolean";
    if (v instanceof Long || v instanceof BigInteger) return "an integer";
    if (v instanceof Double) return "a float";
    if (v instanceof String) return "a string";
    if (v instanceof byte[]) return "bytes";
    if (v instanceof List) return "a list";
    return "a map";
  }

  static Rejected mismatch(String path, String want, Object v) {
    return refuse(path, "expected " + want + ", got " + kind(v));
  }

  static long integer(Object v, String path, long min, long max) {
    if (!(v instanceof Long || v instanceof BigInteger)) throw mismatch(path, "an integer", v);
    if (v instanceof Long) {
      long x = (Long) v;
      if (x >= min && x <= max) return x;
    }
    throw refuse(path, "integer " + v + " is out of range [" + min + ", " + max + "]");
  }

  static Object convert(Object v, Type t, String path) {
    Class<?> c = t instanceof Class ? (Class<?>) t : t instanceof ParameterizedType ? (Class<?>) ((ParameterizedType) t).getRawType() : null;
    if (t instanceof GenericArrayType) {
      Type elem = ((GenericArrayType) t).getGenericComponentType();
      Class<?> raw = elem instanceof ParameterizedType ? (Class<?>) ((ParameterizedType) elem).getRawType() : Object.class;
      return toArray(v, raw, elem, path);
    }
    if (c == null || c == Object.class) return v;
    if (!c.isPrimitive() && v == null) return null;
    if (c == int.class || c == Integer.class) return (int) integer(v, path, Integer.MIN_VALUE, Integer.MAX_VALUE);
    if (c == long.class || c == Long.class) return integer(v, path, Long.MIN_VALUE, Long.MAX_VALUE);
    if (c == short.class || c == Short.class) return (short) integer(v, path, Short.MIN_VALUE, Short.MAX_VALUE);
    if (c == byte.class || c == Byte.class) return (byte) integer(v, path, Byte.MIN_VALUE, Byte.MAX_VALUE);
    if (c == double.class || c == Double.class || c == float.class || c == Float.class) {
      double d;
      if (v instanceof Double) d = (Double) v;
      else if (v instanceof Long) d = (Long) v;
      else if (v instanceof BigInteger) d = ((BigInteger) v).doubleValue();
      else throw mismatch(path, "a number", v);
      return (c == float.class || c == Float.class) ? (Object) (float) d : (Object) d;
    }
    if (c == boolean.class || c == Boolean.class) {
      if (!(v instanceof Boolean)) throw mismatch(path, "a boolean", v);
      return v;
    }
    if (c == String.class) {
      if (!(v instanceof String)) throw mismatch(path, "a string", v);
      return v;
    }
    if (c == BigInteger.class) {
      if (v instanceof Long) return BigInteger.valueOf((Long) v);
      if (!(v instanceof BigInteger)) throw mismatch(path, "an integer", v);
      return v;
    }
    if (c == byte[].class) {
      if (!(v instanceof byte[])) throw mismatch(path, "bytes", v);
      return v;
    }
    if (c.isArray()) return toArray(v, c.getComponentType(), c.getComponentType(), path);
    Type[] params = t instanceof ParameterizedType ? ((ParameterizedType) t).getActualTypeArguments() : new Type[0];
    if (List.class.isAssignableFrom(c) || c == Collection.class) {
      if (!(v instanceof List)) throw mismatch(path, "a list", v);
      Type elem = params.length == 1 ? params[0] : Object.class;
      List<?> in = (List<?>) v;
      List<Object> out = new ArrayList<>(in.size());
      for (int k = 0; k < in.size(); k++) out.add(convert(in.get(k), elem, path + "[" + k + "]"));
      return out;
    }
    if (Map.class.isAssignableFrom(c)) {
      if (!(v instanceof Map)) throw mismatch(path, "a map", v);
      Type elem = params.length == 2 ? params[1] : Object.class;
      Map<String, Object> out = c.isAssignableFrom(TreeMap.class) && !c.isAssignableFrom(HashMap.class) ? new TreeMap<>() : new HashMap<>();
      for (Map.Entry<?, ?> en : ((Map<?, ?>) v).entrySet())
        out.put((String) en.getKey(), convert(en.getValue(), elem, path + "[" + quote((String) en.getKey()) + "]"));
      return out;
    }
    throw refuse(path, "parameter type " + t.getTypeName() + " is not supported");
  }

  static Object toArray(Object v, Class<?> elemClass, Type elem, String path) {
    if (!(v instanceof List)) throw mismatch(path, "a list", v);
    List<?> in = (List<?>) v;
    Object out = Array.newInstance(elemClass, in.size());
    for (int k = 0; k < in.size(); k++) Array.set(out, k, convert(in.get(k), elem, path + "[" + k + "]"));
    return out;
  }

  // ------------------------------------------------------------------ channel

  static final Object outLock = new Object();
  static OutputStream protocolOut;
  static final ByteArrayOutputStream outBuf = new ByteArrayOutputStream(1 << 16);

  static void send(String line) {
    byte[] b = line.getBytes(StandardCharsets.UTF_8);
    synchronized (outLock) {
      outBuf.write(b, 0, b.length);
    }
  }

  static void flush() {
    synchronized (outLock) {
      if (outBuf.size() == 0) return;
      try {
        outBuf.writeTo(protocolOut);
        protocolOut.flush();
      } catch (IOException e) {
        Runtime.getRuntime().halt(0); // the judge closed the channel: nobody is left to answer
      }
      outBuf.reset();
    }
  }

  static String errorFrame(String id, String code, String message, String trace) {
    StringBuilder b = new StringBuilder("{\"type\":\"error\",\"id\":");
    quoteTo(b, id);
    b.append(",\"code\":");
    quoteTo(b, code);
    b.append(",\"message\":");
    quoteTo(b, repair(message));
    if (trace != null) {
      b.append(",\"trace\":");
      quoteTo(b, repair(trace));
    }
    return b.append("}\n").toString();
  }

  /** System.out / System.err: bytes become log frames, whole lines at once. */
  static final class LogStream extends OutputStream {
    final String name;
    final ByteArrayOutputStream pending = new ByteArrayOutputStream();

    LogStream(String name) {
      this.name = name;
    }

    @Override
    public synchronized void write(int b) {
      pending.write(b);
      if (b == '\n') emit(false);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      pending.write(b, off, len);
      for (int k = off; k < off + len; k++) {
        if (b[k] == '\n') {
          emit(false);
          break;
        }
      }
      if (pending.size() >= MAX_LOG_CHUNK) emit(true);
    }

    @Override
    public synchronized void flush() {
      if (pending.size() > 0) emit(true);
    }

    void emit(boolean all) {
      byte[] data = pending.toByteArray();
      int cut = data.length;
      if (!all) {
        while (cut > 0 && data[cut - 1] != '\n') cut--;
      }
      // Never cut inside a UTF-8 sequence.
      int back = 0;
      while (back < 3 && back < cut && (data[cut - 1 - back] & 0xC0) == 0x80) back++;
      if (back < cut) {
        int lead = data[cut - 1 - back] & 0xFF;
        int need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (lead >= 0xC0 && need > back + 1) cut = cut - 1 - back;
      }
      if (cut == 0) return;
      String text = new String(data, 0, cut, StandardCharsets.UTF_8);
      pending.reset();
      pending.write(data, cut, data.length - cut);
      for (int k = 0; k < text.length(); k += MAX_LOG_CHUNK) {
        StringBuilder b = new StringBuilder("{\"type\":\"log\",\"stream\":\"").append(name).append("\",\"data\":");
        quoteTo(b, repair(text.substring(k, Math.min(text.length(), k + MAX_LOG_CHUNK))));
        send(b.append("}\n").toString());
      }
      if (Thread.currentThread() != mainThread) Tether.flush();
    }
  }

  // ------------------------------------------------------------------ host

  static final class Line {
    final Map<String, Object> frame;
    final String codecError;

    Line(Map<String, Object> frame, String codecError) {
      this.frame = frame;
      this.codecError = codecError;
    }
  }

  static final Line END = new Line(null, null);
  static final LinkedBlockingQueue<Line> calls = new LinkedBlockingQueue<>();
  static final ConcurrentHashMap<String, CompletableFuture<Line>> pending = new ConcurrentHashMap<>();
  static volatile boolean closed;
  static Thread mainThread;
  static LogStream[] logs;
  static final Map<String, List<Method>> functions = new HashMap<>();
  static String importError, importTrace;

  static void dispatch(byte[] buf, int off, int len) {
    String text;
    String utf8Error = null;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(buf, off, len)).toString();
    } catch (CharacterCodingException e) {
      text = new String(buf, off, len, StandardCharsets.UTF_8);
      utf8Error = "invalid UTF-8";
    }
    Parser p = new Parser(text);
    Object v;
    try {
      v = p.value(0);
      p.ws();
      if (p.i != text.length()) return;
    } catch (Syntax | StackOverflowError e) {
      return; // plain text: ignored
    }
    if (!(v instanceof Map)) return;
    @SuppressWarnings("unchecked")
    Map<String, Object> f = (Map<String, Object>) v;
    String codecError = utf8Error != null ? utf8Error : p.codecError;
    Object type = f.get("type"), id = f.get("id");
    if ("call".equals(type)) {
      if (id instanceof String && !((String) id).isEmpty()) calls.add(new Line(f, codecError));
    } else if ("result".equals(type) || "error".equals(type)) {
      if (id instanceof String) {
        CompletableFuture<Line> w = pending.remove(id);
        if (w != null) w.complete(new Line(f, codecError));
      }
    } else if ("shutdown".equals(type)) {
      close();
    }
  }

  static void close() {
    closed = true;
    for (String id : pending.keySet()) {
      CompletableFuture<Line> w = pending.remove(id);
      if (w != null) w.complete(END);
    }
    calls.add(END);
  }

  /** Reads lines from the judge; a line over the limit is skipped whole. */
  static void read(InputStream in) {
    byte[] chunk = new byte[1 << 16];
    ByteArrayOutputStream held = new ByteArrayOutputStream();
    boolean skipping = false;
    try {
      for (;;) {
        int n = in.read(chunk);
        if (n < 0) break;
        int start = 0;
        for (int k = 0; k < n; k++) {
          if (chunk[k] != '\n') continue;
          if (skipping) skipping = false;
          else if (held.size() == 0) dispatch(chunk, start, k - start);
          else {
            held.write(chunk, start, k - start);
            byte[] line = held.toByteArray();
            dispatch(line, 0, line.length);
          }
          held.reset();
          start = k + 1;
        }
        if (start < n && !skipping) {
          held.write(chunk, start, n - start);
          if (held.size() > MAX_LINE) {
            held = new ByteArrayOutputStream();
            skipping = true;
          }
        }
      }
      if (held.size() > 0 && !skipping) {
        byte[] line = held.toByteArray();
        dispatch(line, 0, line.length);
      }
    } catch (IOException e) {
      // the channel is gone: as EOF
    }
    close();
  }

  static String sanitize(String s) {
    return s.replaceAll("(?<![\\w.:/\\\\-])/(?:[^\\s\"'\\\\/<>:,;()\\[\\]]+/)+([^\\s\"'\\\\/<>:,;()\\[\\]]+)", "$1");
  }

  static String describe(Throwable e) {
    String msg = e.getMessage();
    return msg == null ? e.getClass().getName() : e.getClass().getName() + ": " + sanitize(msg);
  }

  static String trace(Throwable e) {
    StringWriter w = new StringWriter();
    e.printStackTrace(new PrintWriter(w));
    StringBuilder out = new StringBuilder();
    for (String l : w.toString().split("\n")) {
      String t = l.trim();
      if (t.startsWith("at java.base/jdk.internal.reflect.") || t.startsWith("at java.base/java.lang.reflect.Method.invoke")
          || t.startsWith("at Tether.")) continue;
      out.append(l).append('\n');
    }
    String s = sanitize(out.toString());
    return s.length() > 256 * 1024 ? s.substring(0, 256 * 1024) : s;
  }

  static String answer(Line line) {
    Map<String, Object> f = line.frame;
    String id = (String) f.get("id");
    if (line.codecError != null) return errorFrame(id, "Rejected", "args: " + line.codecError, null);
    if (importError != null) return errorFrame(id, "Exception", importError, importTrace);
    Object name = f.get("fn");
    List<Method> candidates = name instanceof String ? functions.get(name) : null;
    if (candidates == null) {
      String shown = name instanceof String ? "'" + name + "'" : String.valueOf(name);
      return errorFrame(id, "NotFound", "function " + shown + " not registered", null);
    }
    Object a = f.containsKey("args") ? f.get("args") : new ArrayList<>();
    if (!(a instanceof List)) return errorFrame(id, "Rejected", "args must be an array", null);
    List<?> args = (List<?>) a;
    Method m = null;
    for (Method c : candidates) if (c.getParameterCount() == args.size()) m = c;
    if (m == null) {
      int want = candidates.get(0).getParameterCount();
      return errorFrame(id, "Rejected", name + "() takes " + want + " argument" + (want == 1 ? "" : "s") + " but " + args.size()
          + (args.size() == 1 ? " was" : " were") + " given", null);
    }
    Object[] values = new Object[args.size()];
    Type[] types = m.getGenericParameterTypes();
    try {
      for (int k = 0; k < values.length; k++) values[k] = convert(args.get(k), types[k], "args[" + k + "]");
    } catch (Rejected e) {
      return errorFrame(id, "Rejected", e.getMessage(), null);
    }
    Object result;
    try {
      result = m.invoke(null, values);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      String text = describe(cause);
      if (text.length() > 64 * 1024) text = text.substring(0, 64 * 1024);
      return errorFrame(id, "Exception", text, trace(cause));
    } catch (IllegalAccessException e) {
      return errorFrame(id, "SystemError", "solution host: " + describe(e), null);
    }
    StringBuilder b = new StringBuilder("{\"type\":\"result\",\"id\":");
    quoteTo(b, id);
    b.append(",\"value\":");
    try {
      encode(b, result, "value", 0);
    } catch (Rejected e) {
      return errorFrame(id, "Rejected", e.getMessage(), null);
    } catch (RuntimeException e) {
      return errorFrame(id, "Rejected", "value: cannot be encoded: " + describe(e), null);
    }
    b.append("}\n");
    int size = b.toString().getBytes(StandardCharsets.UTF_8).length - 1;
    if (size > MAX_FRAME) return errorFrame(id, "Rejected", "frame size " + size + " > " + MAX_FRAME, null);
    return b.toString();
  }

  static void flushLogs() {
    System.out.flush();
    System.err.flush();
    logs[0].flush();
    logs[1].flush();
  }

  static void load(String className) {
    Class<?> c;
    try {
      c = Class.forName(className, true, Tether.class.getClassLoader());
    } catch (Throwable e) {
      Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
      importError = "solution import failed: " + describe(cause);
      importTrace = trace(cause);
      return;
    }
    for (Method m : c.getMethods()) {
      int mod = m.getModifiers();
      if (Modifier.isStatic(mod) && Modifier.isPublic(mod) && m.getDeclaringClass() == c && !m.getName().equals("main"))
        functions.computeIfAbsent(m.getName(), k -> new ArrayList<>()).add(m);
    }
    // With functions declared in problem.json the judge appends to the
    // solution the class TetherDeclared (package sig, javaGlue), which
    // names them and calls each with the declared types, so javac checks
    // them: those names are served from the static methods of any access.
    String[] declared = {};
    try {
      declared = (String[]) Class.forName("TetherDeclared", false, Tether.class.getClassLoader()).getDeclaredField("NAMES").get(null);
    } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
      // no declared functions
    }
    for (String name : declared) {
      if (functions.containsKey(name)) continue;
      for (Method m : c.getDeclaredMethods()) {
        if (Modifier.isStatic(m.getModifiers()) && m.getName().equals(name) && !m.isSynthetic()) {
          m.setAccessible(true);
          functions.computeIfAbsent(name, k -> new ArrayList<>()).add(m);
        }
      }
    }
    for (List<Method> ms : functions.values()) ms.sort((x, y) -> x.toString().compareTo(y.toString()));
  }

  static int idCounter;
  static final String idPrefix = String.format("%016x", new SecureRandom().nextLong());

  /**
   * Calls the evaluator's capability name(args...) and returns its value
   * (a generic value: null, Boolean, Long or BigInteger, Double, String,
   * byte[], List, Map). Throws CapabilityException: code() "NotFound",
   * "Rejected", "CallTimeout", "Exception", ... or "" when the channel closed.
   */
  public static Object callCapability(String name, Object... args) {
    if (name == null || name.isEmpty()) throw new IllegalArgumentException("capability name must be a non-empty string");
    if (protocolOut == null) throw new CapabilityException("", "not running under the tether solution host");
    String id;
    synchronized (outLock) {
      id = idPrefix + String.format("%016x", idCounter++);
    }
    StringBuilder b = new StringBuilder("{\"type\":\"capability\",\"id\":\"").append(id).append("\",\"name\":");
    quoteTo(b, name);
    b.append(",\"args\":");
    try {
      encode(b, Arrays.asList(args), "args", 0);
    } catch (Rejected e) {
      throw new CapabilityException("Rejected", e.getMessage());
    }
    b.append("}\n");
    CompletableFuture<Line> w = new CompletableFuture<>();
    pending.put(id, w);
    if (closed) {
      pending.remove(id);
      throw new CapabilityException("", "channel to the judge closed (stdin EOF)");
    }
    flushLogs();
    send(b.toString());
    flush();
    Line line = w.join();
    if (line == END) throw new CapabilityException("", "channel to the judge closed (stdin EOF)");
    if (line.codecError != null) throw new CapabilityException("Rejected", line.codecError);
    Map<String, Object> f = line.frame;
    if ("result".equals(f.get("type"))) return f.get("value");
    Object code = f.get("code"), message = f.get("message");
    throw new CapabilityException(code instanceof String ? (String) code : "SystemError", String.valueOf(message));
  }

  /** The stack of the thread that runs the solution's calls: deep recursion fits. */
  static final long CALL_STACK_BYTES = 64L << 20;

  public static void main(String[] argv) throws Exception {
    // The calls run on a thread of their own with a big stack, not on one
    // made by -Xss: that would give every JVM thread the same size, which
    // a limit of the data size (the rootless sandbox) refuses.
    Throwable[] failed = new Throwable[1];
    Thread serving = new Thread(null, () -> {
      try {
        serve(argv);
      } catch (Throwable e) {
        failed[0] = e;
      }
    }, "tether-main", CALL_STACK_BYTES);
    serving.start();
    serving.join();
    if (failed[0] instanceof Exception) throw (Exception) failed[0];
    if (failed[0] != null) throw (Error) failed[0];
  }

  static void serve(String[] argv) throws Exception {
    String className = argv.length > 0 ? argv[0] : System.getenv().getOrDefault("TETHER_SOLUTION_CLASS", "Solution");
    mainThread = Thread.currentThread();
    protocolOut = new FileOutputStream(FileDescriptor.out);
    InputStream in = new FileInputStream(FileDescriptor.in);
    logs = new LogStream[] {new LogStream("stdout"), new LogStream("stderr")};
    System.setOut(new PrintStream(logs[0], true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(logs[1], true, StandardCharsets.UTF_8));
    System.setIn(InputStream.nullInputStream());
    send("{\"type\":\"ready\"}\n");
    flush();
    Thread reader = new Thread(() -> read(in), "tether-reader");
    reader.setDaemon(true);
    load(className);
    flushLogs();
    reader.start();
    for (;;) {
      Line line = calls.poll();
      if (line == null) {
        flush();
        line = calls.take();
      }
      if (line == END) break;
      String a;
      try {
        a = answer(line);
      } catch (Throwable e) { // StackOverflowError, OutOfMemoryError in the solution: still an answer
        a = errorFrame((String) line.frame.get("id"), "Exception", describe(e), null);
      }
      flushLogs();
      send(a);
    }
    flushLogs();
    flush();
    Runtime.getRuntime().halt(0); // the solution's own threads must not keep the host alive
  }
}
