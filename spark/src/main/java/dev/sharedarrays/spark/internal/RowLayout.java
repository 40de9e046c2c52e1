package dev.sharedarrays.spark.internal;

import dev.sharedarrays.Bool;
import dev.sharedarrays.DType;
import dev.sharedarrays.F32;
import dev.sharedarrays.F64;
import dev.sharedarrays.I16;
import dev.sharedarrays.I32;
import dev.sharedarrays.I64;
import dev.sharedarrays.I8;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How the rows of a DataFrame become rows of an array: the value columns (every column but one
 * named {@code index}, which an array's own rows carry as their position), either one
 * {@code array<T>} column (every row the same length) or numeric columns (one element each). The
 * element type is option {@code dtype}, else the columns': all of one Spark type give its type
 * (double F64, float F32, bigint I64, int I32, smallint I16, tinyint I8, boolean Bool), a mix of
 * them F64 if any is floating, else I64. Values are converted as numpy's {@code astype} would
 * (integers wrap, floats truncate toward zero). A null is an error that names its column.
 *
 * @param columns  the value columns' positions in the row
 * @param names    their names, for messages
 * @param types    their Spark types
 * @param array    true if there is one array column
 * @param code     the element type ({@link DType#code()})
 */
public record RowLayout(int[] columns, String[] names, DataType[] types, boolean array, int code) implements Serializable {

    public static RowLayout of(StructType schema, String dtypeOption) {
        List<Integer> cols = new ArrayList<>();
        for (int i = 0; i < schema.fields().length; i++) {
            if (!schema.fields()[i].name().equalsIgnoreCase(ArrayColumns.INDEX)) {
                cols.add(i);
            }
        }
        if (cols.isEmpty()) {
            throw new IllegalArgumentException("the DataFrame has no value columns (" + schema.simpleString() + "); a shared array"
                    + " needs numeric columns or one array<numeric> column");
        }
        StructField[] f = cols.stream().map(i -> schema.fields()[i]).toArray(StructField[]::new);
        boolean array = f[0].dataType() instanceof ArrayType;
        if (array && f.length > 1) {
            throw new IllegalArgumentException("the DataFrame has an array column (" + f[0].name() + ") and other value columns: "
                    + schema.simpleString() + "; write either one array column or numeric columns");
        }
        DataType[] types = new DataType[f.length];
        for (int i = 0; i < f.length; i++) {
            DataType t = array ? ((ArrayType) f[i].dataType()).elementType() : f[i].dataType();
            if (!numeric(t)) {
                throw new IllegalArgumentException("column " + f[i].name() + " is " + f[i].dataType().simpleString() + "; a shared array"
                        + " holds numbers or booleans (cast it, or drop it)");
            }
            types[i] = t;
        }
        DType<?> d = dtypeOption != null ? DType.of(dtypeOption) : infer(types);
        return new RowLayout(cols.stream().mapToInt(Integer::intValue).toArray(),
                java.util.Arrays.stream(f).map(StructField::name).toArray(String[]::new), types, array, d.code());
    }

    private static boolean numeric(DataType t) {
        return t instanceof DoubleType || t instanceof FloatType || t instanceof LongType || t instanceof IntegerType
                || t instanceof ShortType || t instanceof ByteType || t instanceof BooleanType || t instanceof DecimalType;
    }

    private static DType<?> infer(DataType[] types) {
        DataType first = types[0];
        boolean same = java.util.Arrays.stream(types).allMatch(t -> t.equals(first));
        if (same) {
            if (first instanceof DoubleType) {
                return F64.TYPE;
            } else if (first instanceof FloatType) {
                return F32.TYPE;
            } else if (first instanceof LongType) {
                return I64.TYPE;
            } else if (first instanceof IntegerType) {
                return I32.TYPE;
            } else if (first instanceof ShortType) {
                return I16.TYPE;
            } else if (first instanceof ByteType) {
                return I8.TYPE;
            } else if (first instanceof BooleanType) {
                return Bool.TYPE;
            }
        }
        boolean floating = java.util.Arrays.stream(types).anyMatch(t -> t instanceof DoubleType || t instanceof FloatType
                || t instanceof DecimalType d && d.scale() > 0);
        return floating ? F64.TYPE : I64.TYPE;
    }

    public DType<?> dtype() {
        return DType.ofCode(code);
    }

    /** Elements of a row: the column count, or the array's length in {@code row}. */
    public int width(InternalRow row) {
        if (!array) {
            return columns.length;
        }
        if (row.isNullAt(columns[0])) {
            throw nullIn(names[0]);
        }
        return row.getArray(columns[0]).numElements();
    }

    /**
     * Writes {@code row}'s {@code width} elements at {@code dst} (itemSize apart).
     *
     * @throws IllegalArgumentException if a value is null or an array row has another length
     */
    public void write(InternalRow row, int width, MemorySegment dst) {
        DType<?> d = dtype();
        int item = d.itemSize();
        if (array) {
            if (row.isNullAt(columns[0])) {
                throw nullIn(names[0]);
            }
            ArrayData a = row.getArray(columns[0]);
            if (a.numElements() != width) {
                throw new IllegalArgumentException("column " + names[0] + " has a row of " + a.numElements() + " elements, the array's rows"
                        + " have " + width + " (a shared array's rows are all one length)");
            }
            for (int j = 0; j < width; j++) {
                if (a.isNullAt(j)) {
                    throw new IllegalArgumentException("column " + names[0] + " has a null element (at " + j + "); a shared array has no nulls");
                }
                put(dst, (long) j * item, d, types[0], a, j);
            }
            return;
        }
        for (int j = 0; j < width; j++) {
            if (row.isNullAt(columns[j])) {
                throw nullIn(names[j]);
            }
            put(dst, (long) j * item, d, types[j], row, columns[j]);
        }
    }

    private static IllegalArgumentException nullIn(String column) {
        return new IllegalArgumentException("column " + column + " has a null; a shared array has no nulls (fill or drop them first:"
                + " df.na().fill(0) or df.na().drop())");
    }

    /** Element {@code i} of {@code src} (a row or an array) into {@code dst} at {@code at}, as dtype d. */
    private static void put(MemorySegment dst, long at, DType<?> d, DataType t, org.apache.spark.sql.catalyst.expressions.SpecializedGetters src,
                            int i) {
        if (d.isFloatingPoint()) {
            double v = asDouble(t, src, i);
            if (d == F64.TYPE) {
                dst.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, v);
            } else {
                dst.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) v);
            }
            return;
        }
        long v = d.isBool() ? (asDouble(t, src, i) != 0 ? 1 : 0) : asLong(t, src, i);
        switch (d.itemSize()) {
            case 1 -> dst.set(ValueLayout.JAVA_BYTE, at, (byte) v);
            case 2 -> dst.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) v);
            case 4 -> dst.set(ValueLayout.JAVA_INT_UNALIGNED, at, (int) v);
            default -> dst.set(ValueLayout.JAVA_LONG_UNALIGNED, at, v);
        }
    }

    private static double asDouble(DataType t, org.apache.spark.sql.catalyst.expressions.SpecializedGetters s, int i) {
        if (t instanceof DoubleType) {
            return s.getDouble(i);
        } else if (t instanceof FloatType) {
            return s.getFloat(i);
        } else if (t instanceof BooleanType) {
            return s.getBoolean(i) ? 1 : 0;
        } else if (t instanceof DecimalType dt) {
            return s.getDecimal(i, dt.precision(), dt.scale()).toDouble();
        }
        return asLong(t, s, i);
    }

    private static long asLong(DataType t, org.apache.spark.sql.catalyst.expressions.SpecializedGetters s, int i) {
        if (t instanceof LongType) {
            return s.getLong(i);
        } else if (t instanceof IntegerType) {
            return s.getInt(i);
        } else if (t instanceof ShortType) {
            return s.getShort(i);
        } else if (t instanceof ByteType) {
            return s.getByte(i);
        } else if (t instanceof BooleanType) {
            return s.getBoolean(i) ? 1 : 0;
        } else if (t instanceof DecimalType dt) {
            // a U64 read back as decimal(20,0): its low 64 bits
            return s.getDecimal(i, dt.precision(), dt.scale()).toJavaBigDecimal().toBigInteger().longValue();
        }
        double v = t instanceof DoubleType ? s.getDouble(i) : s.getFloat(i);
        return (long) v;
    }
}
