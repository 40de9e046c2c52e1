package dev.sharedarrays.spark.internal;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads the messages of a {@link MessageRange}, one batch each, from the pools and arrays they
 * live in (attached once per range), in place. Columns: {@code message} (the message's number),
 * then those of {@link ArrayColumns} for the message's shape.
 */
final class MessageReader implements PartitionReader<ColumnarBatch> {
    private final MessageRange range;
    private final DataType[] types;
    private final Map<String, SharedNDArray<?>> attached = new HashMap<>();
    private int next;
    private ColumnarBatch batch;

    MessageReader(MessageRange range) {
        this.range = range;
        this.types = java.util.Arrays.stream(QueueTable.schema(range.columns()).fields()).map(f -> f.dataType()).toArray(DataType[]::new);
    }

    @Override
    public boolean next() {
        if (next >= range.handles().length) {
            return false;
        }
        ArrayColumns cols = range.columns();
        SharedNDArray<?> a = attached.computeIfAbsent(range.handles()[next], h -> SharedArrays.attach(ArrayHandle.parse(h)));
        long bytes = cols.rows() * cols.rowBytes();
        MemorySegment m = a.data().asSlice(range.byteOffsets()[next], bytes);
        int[] read = range.read();
        ColumnVector[] vectors = new ColumnVector[read.length];
        for (int i = 0; i < read.length; i++) {
            int c = read[i];
            if (c == 0) {
                vectors[i] = new IndexVector(range.seqs()[next], 0);
            } else if (c == 1) {
                vectors[i] = new IndexVector(0);
            } else if (cols.asArray()) {
                vectors[i] = SegmentVector.array(m, (int) cols.rowLength(), cols.dtype(), types[c]);
            } else {
                vectors[i] = SegmentVector.scalar(m, cols.rowBytes(), c - 2, cols.dtype());
            }
        }
        batch = new ColumnarBatch(vectors, (int) cols.rows());
        next++;
        return true;
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public void close() {
        attached.values().forEach(SharedNDArray::close);
    }
}
