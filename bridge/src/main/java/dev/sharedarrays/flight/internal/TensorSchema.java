package dev.sharedarrays.flight.internal;

import dev.sharedarrays.Bool;
import dev.sharedarrays.DType;
import dev.sharedarrays.F32;
import dev.sharedarrays.F64;
import dev.sharedarrays.I16;
import dev.sharedarrays.I32;
import dev.sharedarrays.I64;
import dev.sharedarrays.I8;
import dev.sharedarrays.U16;
import dev.sharedarrays.U32;
import dev.sharedarrays.U64;
import dev.sharedarrays.U8;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow form of an array: one column of the canonical {@code arrow.fixed_shape_tensor}
 * extension type (storage FixedSizeList of the element type, metadata {@code {"shape":[...]}}),
 * one row per array. Written as field metadata, which is the extension type on the wire, so that
 * pyarrow reads it as {@code pa.FixedShapeTensorArray} without Java registering the type.
 *
 * @param dtype element type
 * @param shape the shape of one row's tensor
 */
public record TensorSchema(DType<?> dtype, long[] shape) {
    public static final String COLUMN = "data";
    static final String EXT_NAME = "ARROW:extension:name";
    static final String EXT_META = "ARROW:extension:metadata";
    static final String TENSOR = "arrow.fixed_shape_tensor";
    /** Arrow has no byte-wide bool: bool travels as uint8 and this field metadata restores it. */
    static final String DTYPE_META = "sharedarrays.dtype";

    public TensorSchema {
        shape = shape.clone();
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** Elements in one tensor. */
    public long elements() {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    public long bytes() {
        return Math.multiplyExact(elements(), dtype.itemSize());
    }

    public Schema toArrow() {
        long n = elements();
        if (n < 1 || n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("an Arrow fixed-size list holds 1 to " + Integer.MAX_VALUE
                    + " elements; this array has " + n + " (shape " + Arrays.toString(shape) + ")");
        }
        Map<String, String> meta = new HashMap<>();
        meta.put(EXT_NAME, TENSOR);
        meta.put(EXT_META, "{\"shape\":" + Arrays.stream(shape).mapToObj(Long::toString).collect(Collectors.joining(",", "[", "]")) + "}");
        Field item = new Field("item", new FieldType(false, arrowType(dtype), null, dtype instanceof Bool ? Map.of(DTYPE_META, "bool") : null), null);
        Field column = new Field(COLUMN, new FieldType(false, new ArrowType.FixedSizeList((int) n), null, meta), List.of(item));
        return new Schema(List.of(column));
    }

    /** The element type of an Arrow storage type, or an exception that names what is accepted. */
    static DType<?> dtypeOf(Field item) {
        ArrowType t = item.getType();
        if (t instanceof ArrowType.FloatingPoint fp) {
            if (fp.getPrecision() == FloatingPointPrecision.DOUBLE) {
                return F64.TYPE;
            }
            if (fp.getPrecision() == FloatingPointPrecision.SINGLE) {
                return F32.TYPE;
            }
        } else if (t instanceof ArrowType.Int i) {
            boolean bool = "bool".equals(item.getMetadata().get(DTYPE_META));
            switch (i.getBitWidth()) {
                case 8 -> {
                    return bool && !i.getIsSigned() ? Bool.TYPE : i.getIsSigned() ? I8.TYPE : U8.TYPE;
                }
                case 16 -> {
                    return i.getIsSigned() ? I16.TYPE : U16.TYPE;
                }
                case 32 -> {
                    return i.getIsSigned() ? I32.TYPE : U32.TYPE;
                }
                case 64 -> {
                    return i.getIsSigned() ? I64.TYPE : U64.TYPE;
                }
                default -> { }
            }
        }
        throw new IllegalArgumentException("Arrow type " + t + " has no shared-array element type; send (u)int8/16/32/64, float32 or float64");
    }

    static ArrowType arrowType(DType<?> d) {
        return switch (d) {
            case F64 x -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case F32 x -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case I8 x -> new ArrowType.Int(8, true);
            case I16 x -> new ArrowType.Int(16, true);
            case I32 x -> new ArrowType.Int(32, true);
            case I64 x -> new ArrowType.Int(64, true);
            case U8 x -> new ArrowType.Int(8, false);
            case U16 x -> new ArrowType.Int(16, false);
            case U32 x -> new ArrowType.Int(32, false);
            case U64 x -> new ArrowType.Int(64, false);
            case Bool x -> new ArrowType.Int(8, false);
            default -> throw new IllegalArgumentException("no Arrow type for " + d);
        };
    }

    /**
     * Reads a stream's schema: a fixed_shape_tensor column (shape from its metadata), a plain
     * FixedSizeList column (1-d rows) or a primitive column (each row one element: shape ()).
     * Only the first column is used.
     */
    public static TensorSchema of(Schema schema) {
        if (schema.getFields().isEmpty()) {
            throw new IllegalArgumentException("the stream's schema has no column; send one fixed_shape_tensor column");
        }
        Field f = schema.getFields().get(0);
        if (f.getType() instanceof ArrowType.FixedSizeList list) {
            Field item = f.getChildren().get(0);
            DType<?> d = dtypeOf(item);
            String ext = f.getMetadata().get(EXT_NAME);
            if (TENSOR.equals(ext)) {
                long[] shape = parseShape(f.getMetadata().getOrDefault(EXT_META, ""));
                TensorSchema s = new TensorSchema(d, shape);
                if (s.elements() != list.getListSize()) {
                    throw new IllegalArgumentException("fixed_shape_tensor shape " + Arrays.toString(shape) + " has "
                            + s.elements() + " elements, its storage lists " + list.getListSize());
                }
                return s;
            }
            return new TensorSchema(d, new long[] {list.getListSize()});
        }
        return new TensorSchema(dtypeOf(f), new long[0]);
    }

    /** The "shape" of {"shape":[2,3],...}; a small parser, since the metadata is this simple. */
    static long[] parseShape(String json) {
        int key = json.indexOf("\"shape\"");
        int open = key < 0 ? -1 : json.indexOf('[', key);
        int close = open < 0 ? -1 : json.indexOf(']', open);
        if (close < 0) {
            throw new IllegalArgumentException("fixed_shape_tensor metadata without a shape: " + json);
        }
        String body = json.substring(open + 1, close).trim();
        if (body.isEmpty()) {
            return new long[0];
        }
        try {
            return Arrays.stream(body.split(",")).mapToLong(s -> Long.parseLong(s.trim())).toArray();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fixed_shape_tensor shape is not a list of integers: " + json);
        }
    }

    /** "f64 (2, 3)". */
    @Override
    public String toString() {
        return dtype + " " + Arrays.toString(shape);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorSchema s && s.dtype.equals(dtype) && Arrays.equals(s.shape, shape);
    }

    @Override
    public int hashCode() {
        return dtype.hashCode() * 31 + Arrays.hashCode(shape);
    }
}
