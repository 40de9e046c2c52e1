package dev.sharedarrays.spark.internal;

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
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How an array is a table: one row per index of the leading axis, a column {@code index} (long),
 * then the row's elements: a column {@code value} for a 1-D array; columns {@code c0 .. c<n-1>} for
 * a 2-D array of at most {@link #MAX_COLUMNS} columns; else one column {@code values} of
 * {@code array<T>} (the row flattened, C order). Element types: F64 double, F32 float, I64 bigint,
 * I32 int, I16 smallint, I8 tinyint, Bool boolean; unsigned types as the next wider signed type
 * (U8 smallint, U16 int, U32 bigint) and U64 as decimal(20,0), so that every value is exact.
 *
 * @param code  the array's element type ({@link DType#code()}: records travel to executors, markers do not serialise)
 * @param shape the array's shape
 */
public record ArrayColumns(int code, long[] shape) implements Serializable {
    /** The widest 2-D array shown as one column per element. */
    public static final int MAX_COLUMNS = 1024;
    public static final String INDEX = "index";
    public static final String VALUE = "value";
    public static final String VALUES = "values";

    public static ArrayColumns of(DType<?> dtype, long[] shape) {
        return new ArrayColumns(dtype.code(), shape.clone());
    }

    public DType<?> dtype() {
        return DType.ofCode(code);
    }

    /** The element type's Spark type. */
    public static DataType sparkType(DType<?> d) {
        if (d == F64.TYPE) {
            return DataTypes.DoubleType;
        } else if (d == F32.TYPE) {
            return DataTypes.FloatType;
        } else if (d == I64.TYPE || d == U32.TYPE) {
            return DataTypes.LongType;
        } else if (d == I32.TYPE || d == U16.TYPE) {
            return DataTypes.IntegerType;
        } else if (d == I16.TYPE || d == U8.TYPE) {
            return DataTypes.ShortType;
        } else if (d == I8.TYPE) {
            return DataTypes.ByteType;
        } else if (d == U64.TYPE) {
            return DataTypes.createDecimalType(20, 0);
        } else if (d == Bool.TYPE) {
            return DataTypes.BooleanType;
        }
        throw new IllegalArgumentException("no Spark type for " + d);
    }

    public long rows() {
        return shape[0];
    }

    /** Elements in one row (1 for a 1-D array). */
    public long rowLength() {
        long n = 1;
        for (int i = 1; i < shape.length; i++) {
            n *= shape[i];
        }
        return n;
    }

    public long rowBytes() {
        return rowLength() * dtype().itemSize();
    }

    /** True if the row is one {@code array<T>} column rather than a column per element. */
    public boolean asArray() {
        return shape.length > 2 || shape.length == 2 && shape[1] > MAX_COLUMNS;
    }

    /** Element columns (after {@code index}): 1 for an array column or a 1-D array. */
    public int elementColumns() {
        return shape.length == 1 || asArray() ? 1 : (int) shape[1];
    }

    public StructType schema() {
        List<StructField> fields = new ArrayList<>();
        fields.add(DataTypes.createStructField(INDEX, DataTypes.LongType, false));
        DataType t = sparkType(dtype());
        if (shape.length == 1) {
            fields.add(DataTypes.createStructField(VALUE, t, false));
        } else if (asArray()) {
            fields.add(DataTypes.createStructField(VALUES, new ArrayType(t, false), false));
        } else {
            for (int c = 0; c < shape[1]; c++) {
                fields.add(DataTypes.createStructField("c" + c, t, false));
            }
        }
        return new StructType(fields.toArray(new StructField[0]));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArrayColumns a && a.code == code && Arrays.equals(a.shape, shape);
    }

    @Override
    public int hashCode() {
        return code * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return dtype() + Arrays.toString(shape);
    }
}
