package dev.sharedarrays.internal.io;

import dev.sharedarrays.NpyFormatException;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.ShapeLimits;
import dev.sharedarrays.internal.segment.SegmentDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one description of a .npy file's header (numpy's format, {@code numpy.lib.format}):
 *
 * <pre>
 * 0         "\x93NUMPY"         magic, 6 bytes
 * 6         major, minor        1 0, 2 0 or 3 0
 * 8         HEADER_LEN          1.0: u16 little-endian; 2.0 and 3.0: u32 little-endian
 * 10 | 12   header              HEADER_LEN bytes, latin-1 (1.0, 2.0) or utf-8 (3.0): a Python
 *                               dict literal with exactly the keys 'descr', 'fortran_order', 'shape'
 *                               {'descr': '&lt;f8', 'fortran_order': False, 'shape': (2, 3), }
 *                               padded with spaces and a final '\n'; numpy pads so that the data
 *                               starts at a multiple of 64 (readers accept any offset)
 * DATA      10 | 12 + HEADER_LEN  product(shape) * itemSize bytes, row-major ('C') order, or
 *                               column-major if fortran_order is True
 * DATA + n  anything            ignored (a shared segment's control block sits here)
 * </pre>
 * This library writes version 1.0 in C order, padded to 64 as numpy does; a shared segment
 * is the same header padded to 4096 ({@link SegmentDescriptor}).
 *
 * @param type         the element type the descr names
 * @param shape        1 to 8 dimensions, each at least 1
 * @param fortranOrder true if the data is column-major
 * @param dataOffset   the byte offset of the data in the file
 */
public record NpyHeader(ElementType type, long[] shape, boolean fortranOrder, long dataOffset) {
    public static final int MAGIC_LENGTH = 8;
    /** Longer headers are refused unread: numpy's own limit is 10000 characters. */
    public static final int MAX_HEADER_LENGTH = 1 << 20;
    /** numpy's ARRAY_ALIGN: the data of a file numpy writes starts at a multiple of this. */
    public static final int ALIGN = 64;

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final Set<String> KEYS = Set.of("descr", "fortran_order", "shape");
    private static final Pattern SIMPLE_DESCR = Pattern.compile("([<>|=]?)([a-zA-Z?])(\\d*)(\\[\\w+\\])?");

    /** Bytes of data the header promises. */
    public long dataLength() {
        return ShapeLimits.dataLength(shape, type.itemSize());
    }

    /** Bytes the prefix (magic, version, HEADER_LEN) of {@code version} takes. */
    static int prefixLength(int major) {
        return major == 1 ? 10 : 12;
    }

    /**
     * Reads the header from the start of {@code bytes}, which holds at least the first
     * {@code min(fileSize, 12)} bytes of the file.
     *
     * @param more reads {@code n} bytes of the file from an offset (the header text)
     * @throws NpyFormatException naming {@code path} if the file is not a .npy file this library reads
     */
    public static NpyHeader parse(Path path, long fileSize, byte[] first, ByteSource more) {
        int n = (int) Math.min(first.length, fileSize);
        for (int i = 0; i < MAGIC.length; i++) {
            if (i >= n) {
                throw bad(path, "is truncated: " + fileSize + " bytes, shorter than the .npy magic and header length");
            }
            if (first[i] != MAGIC[i]) {
                throw bad(path, "is not a .npy file: it starts with " + show(first, n) + ", not \\x93NUMPY");
            }
        }
        if (n < MAGIC_LENGTH) {
            throw bad(path, "is truncated: " + fileSize + " bytes, shorter than the .npy magic and header length");
        }
        int major = first[6] & 0xff;
        int minor = first[7] & 0xff;
        if (major < 1 || major > 3 || minor != 0) {
            throw bad(path, "has .npy format version " + major + "." + minor + "; this library reads 1.0, 2.0 and 3.0");
        }
        int prefix = prefixLength(major);
        if (n < prefix) {
            throw bad(path, "is truncated: " + fileSize + " bytes, shorter than the .npy " + major + ".0 prefix of " + prefix);
        }
        ByteBuffer b = ByteBuffer.wrap(first).order(ByteOrder.LITTLE_ENDIAN);
        long headerLength = major == 1 ? b.getShort(8) & 0xffff : b.getInt(8) & 0xffffffffL;
        if (headerLength > MAX_HEADER_LENGTH) {
            throw bad(path, "has a header of " + headerLength + " bytes; more than " + MAX_HEADER_LENGTH + " is refused unread");
        }
        if (prefix + headerLength > fileSize) {
            throw bad(path, "is truncated: " + fileSize + " bytes, but its header ends at byte " + (prefix + headerLength));
        }
        byte[] raw = more.read(prefix, (int) headerLength);
        String text = new String(raw, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        NpyHeader h = interpret(path, text, prefix + headerLength);
        long end = h.dataOffset + h.dataLength();
        if (end > fileSize) {
            throw bad(path, "is truncated: " + fileSize + " bytes, but its header (" + h.type.descr() + ", shape "
                    + Arrays.toString(h.shape) + ") promises " + h.dataLength() + " bytes of data from byte " + h.dataOffset
                    + ", up to byte " + end);
        }
        return h;
    }

    /** Reads bytes of the file being parsed. */
    public interface ByteSource {
        byte[] read(long offset, int length);
    }

    private static NpyHeader interpret(Path path, String text, long dataOffset) {
        Object literal;
        try {
            literal = PyLiteral.parse(text);
        } catch (IllegalArgumentException e) {
            throw bad(path, "has a malformed header (" + e.getMessage() + "): " + clip(text));
        }
        if (!(literal instanceof Map<?, ?> d)) {
            throw bad(path, "has a header that is not a dict: " + clip(text));
        }
        if (!d.keySet().equals(KEYS)) {
            throw bad(path, "has a header whose keys are " + PyLiteral.repr(List.copyOf(d.keySet())) + ", not exactly 'descr', 'fortran_order' and 'shape': "
                    + clip(text));
        }
        if (!(d.get("fortran_order") instanceof Boolean fortran)) {
            throw bad(path, "has fortran_order " + PyLiteral.repr(d.get("fortran_order")) + ", not True or False");
        }
        ElementType type = elementType(path, d.get("descr"));
        long[] shape = shape(path, d.get("shape"), type);
        return new NpyHeader(type, shape, fortran, dataOffset);
    }

    private static long[] shape(Path path, Object value, ElementType type) {
        if (!(value instanceof PyLiteral.Tuple(List<Object> items)) || !items.stream().allMatch(x -> x instanceof Long)) {
            throw bad(path, "has shape " + PyLiteral.repr(value) + ", not a tuple of integers");
        }
        long[] shape = items.stream().mapToLong(x -> (Long) x).toArray();
        if (shape.length == 0) {
            throw bad(path, "holds a 0-dimensional array (shape ()); arrays here have 1 to " + SegmentDescriptor.MAX_DIMS
                    + " dimensions: save it from numpy as np.save(path, np.atleast_1d(a))");
        }
        if (shape.length > SegmentDescriptor.MAX_DIMS) {
            throw bad(path, "has shape " + Arrays.toString(shape) + " of " + shape.length + " dimensions; arrays here have 1 to "
                    + SegmentDescriptor.MAX_DIMS);
        }
        for (long s : shape) {
            if (s < 1) {
                throw bad(path, "has shape " + Arrays.toString(shape) + "; arrays here have at least one element per axis");
            }
        }
        if (ShapeLimits.dataLength(shape, type.itemSize()) < 0) {
            throw bad(path, "has shape " + Arrays.toString(shape) + " of " + type.descr() + ", more than "
                    + SegmentDescriptor.MAX_DATA_BYTES + " bytes (1 TiB), the most an array here holds");
        }
        return shape;
    }

    /** The element type of a descr, or an exception that says why not and how to convert. */
    static ElementType elementType(Path path, Object descr) {
        if (!(descr instanceof String s)) {
            throw bad(path, "holds a structured dtype (descr " + PyLiteral.repr(descr) + "); this library reads one numeric type per file: "
                    + "save each field as its own array, e.g. np.save(path, a['x'])");
        }
        Matcher m = SIMPLE_DESCR.matcher(s);
        if (m.matches() && m.group(4) == null && !m.group(3).isEmpty()) {
            String order = m.group(1);
            char kind = m.group(2).charAt(0);
            int size = Integer.parseInt(m.group(3).length() > 3 ? "0" : m.group(3));
            for (ElementType t : ElementType.values()) {
                if (t.kind() == kind && t.itemSize() == size) {
                    if (order.equals(">") && size > 1) {
                        throw bad(path, "holds big-endian data (descr '" + s + "'); this library reads little-endian only: "
                                + "convert it in numpy with np.save(path, a.astype('" + t.descr() + "'))");
                    }
                    return t;
                }
            }
        }
        throw bad(path, "holds descr '" + s + "'" + describe(m) + ", which is not an element type of this library (it has "
                + String.join(" ", Arrays.stream(ElementType.values()).map(ElementType::descr).toList())
                + "): convert it in numpy, e.g. np.save(path, a.astype('<f8'))");
    }

    private static String describe(Matcher m) {
        if (!m.matches()) {
            return "";
        }
        String what = switch (m.group(2).charAt(0)) {
            case 'c' -> "complex";
            case 'f' -> "a float of " + m.group(3) + " bytes";
            case 'O' -> "Python objects";
            case 'S', 'a' -> "byte strings";
            case 'U' -> "unicode strings";
            case 'V' -> "raw bytes (void)";
            case 'M' -> "datetime64";
            case 'm' -> "timedelta64";
            case 'b', '?' -> "bool";
            default -> null;
        };
        return what == null ? "" : " (" + what + ")";
    }

    /**
     * The header of a C-order file of this type and shape, version 1.0, padded to
     * {@link #ALIGN} as numpy pads it.
     */
    public static byte[] format(ElementType type, long[] shape) {
        byte[] dict = SegmentDescriptor.npyDict(type.descr(), shape).getBytes(StandardCharsets.ISO_8859_1);
        int prefix = prefixLength(1);
        int total = (prefix + dict.length + 1 + ALIGN - 1) / ALIGN * ALIGN;
        byte[] out = new byte[total];
        System.arraycopy(MAGIC, 0, out, 0, MAGIC.length);
        out[6] = 1;
        out[7] = 0;
        int headerLength = total - prefix;
        out[8] = (byte) headerLength;
        out[9] = (byte) (headerLength >>> 8);
        System.arraycopy(dict, 0, out, prefix, dict.length);
        Arrays.fill(out, prefix + dict.length, total - 1, (byte) ' ');
        out[total - 1] = '\n';
        return out;
    }

    private static NpyFormatException bad(Path path, String what) {
        return new NpyFormatException("file " + path + " " + what);
    }

    private static String clip(String text) {
        String t = text.strip();
        return t.length() <= 200 ? t : t.substring(0, 200) + "...";
    }

    private static String show(byte[] b, int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(n, 8); i++) {
            int c = b[i] & 0xff;
            s.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\x%02x", c));
        }
        return "'" + s + "'";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NpyHeader h && h.type == type && Arrays.equals(h.shape, shape) && h.fortranOrder == fortranOrder
                && h.dataOffset == dataOffset;
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return "NpyHeader(" + type.descr() + ", shape=" + Arrays.toString(shape) + ", fortran=" + fortranOrder + ", data at "
                + dataOffset + ")";
    }
}
