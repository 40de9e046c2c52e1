package dev.sharedarrays.internal.io;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the Python literals a .npy header is written in, as {@code ast.literal_eval} would for
 * the subset numpy writes: dicts, tuples and lists, strings, integers, {@code True},
 * {@code False}, {@code None}; also Python 2's {@code u'...'} strings and {@code 3L} integers.
 * Dicts become {@link Map}s (insertion order), tuples {@link Tuple}s, lists {@link List}s,
 * integers {@link Long}s, {@code None} {@link #NONE}. Nesting is bounded, so no input overflows
 * the stack.
 */
public final class PyLiteral {
    /** Python's None (a Map or List cannot hold null). */
    public static final Object NONE = new Object() {
        @Override
        public String toString() {
            return "None";
        }
    };

    /** A Python tuple; numpy requires the shape to be one. */
    public record Tuple(List<Object> items) {
    }

    private static final int MAX_DEPTH = 32;

    private final String text;
    private int pos;
    private boolean lastComma;

    private PyLiteral(String text) {
        this.text = text;
    }

    /**
     * The value of {@code text}, which must hold one literal and nothing else but whitespace.
     *
     * @throws IllegalArgumentException naming the position and what was found there
     */
    public static Object parse(String text) {
        PyLiteral p = new PyLiteral(text);
        Object v = p.value(0);
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("end of the literal");
        }
        return v;
    }

    /** Python's repr of a parsed value, for messages. */
    public static String repr(Object v) {
        if (v instanceof String s) {
            return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
        }
        if (v instanceof Boolean b) {
            return b ? "True" : "False";
        }
        if (v instanceof Tuple(List<Object> items)) {
            return items.size() == 1 ? "(" + repr(items.get(0)) + ",)" : join(items, "(", ")");
        }
        if (v instanceof List<?> l) {
            return join(l, "[", "]");
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder out = new StringBuilder("{");
            m.forEach((k, x) -> out.append(out.length() > 1 ? ", " : "").append(repr(k)).append(": ").append(repr(x)));
            return out.append('}').toString();
        }
        return String.valueOf(v);
    }

    private static String join(List<?> items, String open, String close) {
        StringBuilder out = new StringBuilder(open);
        for (int i = 0; i < items.size(); i++) {
            out.append(i > 0 ? ", " : "").append(repr(items.get(i)));
        }
        return out.append(close).toString();
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("at most " + MAX_DEPTH + " levels of nesting");
        }
        skipSpace();
        if (pos >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return dict(depth);
            case '[':
                return new ArrayList<>(items(depth, ']'));
            case '(':
                return parenthesized(depth);
            case '\'', '"':
                return string();
            default:
                break;
        }
        if (c == 'u' && pos + 1 < text.length() && (text.charAt(pos + 1) == '\'' || text.charAt(pos + 1) == '"')) {
            pos++;
            return string();
        }
        if (c == '-' || c == '+' || Character.isDigit(c)) {
            return integer();
        }
        for (String word : List.of("True", "False", "None")) {
            if (text.startsWith(word, pos) && !isNameChar(pos + word.length())) {
                pos += word.length();
                return word.equals("None") ? NONE : Boolean.valueOf(word.equals("True"));
            }
        }
        throw error("a value (a string, an integer, True, False, None, a dict, a tuple or a list)");
    }

    private Map<Object, Object> dict(int depth) {
        pos++;
        Map<Object, Object> out = new LinkedHashMap<>();
        while (true) {
            skipSpace();
            if (peek('}')) {
                pos++;
                return out;
            }
            Object key = value(depth + 1);
            skipSpace();
            expect(':');
            Object v = value(depth + 1);
            if (out.put(key, v) != null) {
                throw error("no second entry for key " + key);
            }
            skipSpace();
            if (peek(',')) {
                pos++;
            } else if (!peek('}')) {
                throw error("',' or '}'");
            }
        }
    }

    /** A tuple, or for "(x)" without a comma the value x, as in Python. */
    private Object parenthesized(int depth) {
        List<Object> items = items(depth, ')');
        if (items.size() == 1 && !lastComma) {
            return items.get(0);
        }
        return new Tuple(Collections.unmodifiableList(items));
    }

    /** The items up to close; sets lastComma if a comma followed the last item. */
    private List<Object> items(int depth, char close) {
        pos++;
        List<Object> out = new ArrayList<>();
        boolean comma = false;
        while (true) {
            skipSpace();
            if (peek(close)) {
                pos++;
                lastComma = comma;
                return out;
            }
            out.add(value(depth + 1));
            skipSpace();
            comma = peek(',');
            if (comma) {
                pos++;
            } else if (!peek(close)) {
                throw error("',' or '" + close + "'");
            }
        }
    }

    private String string() {
        char quote = text.charAt(pos++);
        StringBuilder out = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == quote) {
                return out.toString();
            }
            if (c == '\n') {
                break;
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (pos >= text.length()) {
                break;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case '0' -> out.append('\0');
                case 'x' -> out.append(hex(2));
                case 'u' -> out.append(hex(4));
                default -> out.append(e);
            }
        }
        throw error("the closing " + quote + " of the string");
    }

    private char hex(int digits) {
        if (pos + digits > text.length()) {
            throw error(digits + " hex digits");
        }
        try {
            char c = (char) Integer.parseInt(text.substring(pos, pos + digits), 16);
            pos += digits;
            return c;
        } catch (NumberFormatException e) {
            throw error(digits + " hex digits");
        }
    }

    private Long integer() {
        int start = pos;
        if (peek('-') || peek('+')) {
            pos++;
        }
        int digits = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
            pos++;
        }
        if (pos == digits) {
            throw error("digits");
        }
        String number = text.substring(start, pos);
        if (peek('L') || peek('l')) {
            pos++; // Python 2's long suffix
        }
        if (isNameChar(pos) || peek('.')) {
            throw error("an integer (" + number + " is followed by '" + text.charAt(pos) + "')");
        }
        try {
            return Long.parseLong(number.startsWith("+") ? number.substring(1) : number);
        } catch (NumberFormatException e) {
            pos = start;
            throw error("an integer that fits 64 bits, not " + number);
        }
    }

    private boolean isNameChar(int at) {
        return at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_');
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "'");
        }
        pos++;
    }

    private IllegalArgumentException error(String expected) {
        String found = pos >= text.length() ? "the end" : "'" + text.substring(pos, Math.min(text.length(), pos + 20)) + "'";
        return new IllegalArgumentException("expected " + expected + " at character " + pos + ", found " + found);
    }
}
