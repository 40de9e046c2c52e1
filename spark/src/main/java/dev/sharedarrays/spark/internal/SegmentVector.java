package dev.sharedarrays.spark.internal;

import dev.sharedarrays.DType;
import dev.sharedarrays.U16;
import dev.sharedarrays.U32;
import dev.sharedarrays.U8;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One column of a batch, read from the array's memory where it lies: element {@code rowId} of
 * this column is at {@code rowId * rowStride + offset} of {@code memory} (the batch's first row at
 * 0). No copy into Spark's memory; the reader that made it keeps the memory mapped until it closes.
 * An {@code array<T>} column's rows are {@link ColumnarArray}s over a child that reads the row's
 * elements one after another. Unsigned values are widened ({@link ArrayColumns}); nothing is null.
 */
final class SegmentVector extends ColumnVector {
    private static final ValueLayout.OfDouble F64_LE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfFloat F32_LE = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfLong I64_LE = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt I32_LE = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort I16_LE = ValueLayout.JAVA_SHORT_UNALIGNED;

    private final MemorySegment memory;
    private final long rowStride;
    private final long offset;
    private final DType<?> dtype;
    /** Elements of a row, for an {@code array<T>} column; 0 for a column of scalars. */
    private final int arrayLength;
    private final SegmentVector elements;

    private SegmentVector(DataType type, MemorySegment memory, long rowStride, long offset, DType<?> dtype, int arrayLength,
                          SegmentVector elements) {
        super(type);
        this.memory = memory;
        this.rowStride = rowStride;
        this.offset = offset;
        this.dtype = dtype;
        this.arrayLength = arrayLength;
        this.elements = elements;
    }

    /** Column {@code column} (0-based, after index) of rows {@code rowBytes} apart. */
    static SegmentVector scalar(MemorySegment memory, long rowBytes, int column, DType<?> dtype) {
        return new SegmentVector(ArrayColumns.sparkType(dtype), memory, rowBytes, (long) column * dtype.itemSize(), dtype, 0, null);
    }

    /** The whole row as one {@code array<T>} of {@code length} elements. */
    static SegmentVector array(MemorySegment memory, int length, DType<?> dtype, DataType arrayType) {
        SegmentVector flat = new SegmentVector(ArrayColumns.sparkType(dtype), memory, dtype.itemSize(), 0, dtype, 0, null);
        return new SegmentVector(arrayType, memory, (long) length * dtype.itemSize(), 0, dtype, length, flat);
    }

    private long at(int rowId) {
        return rowId * rowStride + offset;
    }

    @Override
    public void close() {
        // the memory is the reader's
    }

    @Override
    public boolean hasNull() {
        return false;
    }

    @Override
    public int numNulls() {
        return 0;
    }

    @Override
    public boolean isNullAt(int rowId) {
        return false;
    }

    @Override
    public boolean getBoolean(int rowId) {
        return memory.get(ValueLayout.JAVA_BYTE, at(rowId)) != 0;
    }

    @Override
    public byte getByte(int rowId) {
        return memory.get(ValueLayout.JAVA_BYTE, at(rowId));
    }

    @Override
    public short getShort(int rowId) {
        return dtype == U8.TYPE ? (short) (memory.get(ValueLayout.JAVA_BYTE, at(rowId)) & 0xff) : memory.get(I16_LE, at(rowId));
    }

    @Override
    public int getInt(int rowId) {
        return dtype == U16.TYPE ? memory.get(I16_LE, at(rowId)) & 0xffff : memory.get(I32_LE, at(rowId));
    }

    @Override
    public long getLong(int rowId) {
        return dtype == U32.TYPE ? memory.get(I32_LE, at(rowId)) & 0xffff_ffffL : memory.get(I64_LE, at(rowId));
    }

    @Override
    public float getFloat(int rowId) {
        return memory.get(F32_LE, at(rowId));
    }

    @Override
    public double getDouble(int rowId) {
        return memory.get(F64_LE, at(rowId));
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
        long v = memory.get(I64_LE, at(rowId));
        if (v >= 0) {
            return Decimal.apply(v, precision, scale);
        }
        return Decimal.apply(new scala.math.BigDecimal(new java.math.BigDecimal(new BigInteger(Long.toUnsignedString(v)))), precision, scale);
    }

    @Override
    public ColumnarArray getArray(int rowId) {
        if (elements == null) {
            throw new UnsupportedOperationException("column " + dataType() + " holds no arrays");
        }
        return new ColumnarArray(elements, rowId * arrayLength, arrayLength);
    }

    @Override
    public ColumnarMap getMap(int ordinal) {
        throw new UnsupportedOperationException("a shared array has no map columns");
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
        throw new UnsupportedOperationException("a shared array has no string columns");
    }

    @Override
    public byte[] getBinary(int rowId) {
        throw new UnsupportedOperationException("a shared array has no binary columns");
    }

    @Override
    public ColumnVector getChild(int ordinal) {
        throw new UnsupportedOperationException("a shared array has no struct columns");
    }
}
