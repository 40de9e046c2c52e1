package dev.sharedarrays.spark.internal;

import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentNotFoundException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads a {@link RowRange} as column batches of about 1 MiB whose vectors read the array's memory
 * in place: the array attached on its own host (a mapping this JVM's tasks share: {@link Attached}), or the rows fetched through the Flight bridge of
 * the array's host where it is not there (another host, or another array of that name).
 */
final class RowReader implements PartitionReader<ColumnarBatch> {
    private static final long BATCH_BYTES = 1 << 20;

    private final RowRange range;
    private final ArrayColumns cols;
    private final DataType[] types;
    private final AutoCloseable source;
    /** The range's rows, the first at 0. */
    private final MemorySegment memory;
    private final int batchRows;
    private long next;
    private ColumnarBatch batch;

    RowReader(RowRange range) {
        this.range = range;
        this.cols = range.columns();
        var fields = cols.schema().fields();
        this.types = Arrays.stream(fields).map(f -> f.dataType()).toArray(DataType[]::new);
        long rowBytes = cols.rowBytes();
        Attached.Lease local = attachHere(range);
        if (local != null) {
            this.source = local;
            this.memory = local.array().data().asSlice(range.start() * rowBytes, (range.stop() - range.start()) * rowBytes);
        } else {
            RemoteRows remote = new RemoteRows(range.flight(), range.token(), range.name(), range.start(), range.stop(), rowBytes);
            this.source = remote;
            this.memory = remote.memory();
        }
        this.batchRows = (int) Math.max(1, Math.min(1 << 16, BATCH_BYTES / Math.max(1, rowBytes)));
    }

    /** The array on this host, or null if it is not here and the bridge is to be asked. */
    private static Attached.Lease attachHere(RowRange range) {
        Attached.Lease a;
        try {
            a = Attached.acquire(range.handle(), range.keepMapped());
        } catch (SegmentNotFoundException | InvalidSegmentException e) {
            if (range.flight() != null) {
                return null; // not on this host (or another array of that name is): through the array's host's bridge
            }
            throw new IllegalStateException("array " + range.handle() + " is not on this host (" + e.getMessage() + "): an executor on"
                    + " another host than the array's (" + range.host() + ") reads it through that host's Flight bridge:"
                    + " set option(\"flight\", \"grpc+tcp://" + range.host() + ":8815\") and run sharedarrays serve there", e);
        }
        if (!ArrayColumns.of(a.array().dtype(), a.array().shape()).equals(range.columns())) {
            String now = a.array().dtype() + Arrays.toString(a.array().shape());
            a.close();
            throw new IllegalStateException("array " + range.handle() + " is " + now + " now, the query planned " + range.columns());
        }
        return a;
    }

    @Override
    public boolean next() {
        long rows = range.stop() - range.start();
        if (next >= rows) {
            return false;
        }
        int n = (int) Math.min(batchRows, rows - next);
        long rowBytes = cols.rowBytes();
        MemorySegment m = memory.asSlice(next * rowBytes, n * rowBytes);
        int[] read = range.read();
        ColumnVector[] vectors = new ColumnVector[read.length];
        for (int i = 0; i < read.length; i++) {
            int c = read[i];
            if (c == 0) {
                vectors[i] = new IndexVector(range.start() + next);
            } else if (cols.asArray()) {
                vectors[i] = SegmentVector.array(m, (int) cols.rowLength(), cols.dtype(), types[c]);
            } else {
                vectors[i] = SegmentVector.scalar(m, rowBytes, c - 1, cols.dtype());
            }
        }
        batch = new ColumnarBatch(vectors, n);
        next += n;
        return true;
    }

    /** The partition's pushed aggregates, over all its rows. */
    InternalRow aggregate() {
        return range.aggregates().compute(memory, range.stop() - range.start(), cols);
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public void close() throws java.io.IOException {
        try {
            source.close();
        } catch (Exception e) {
            throw new java.io.IOException("closing " + range.handle() + ": " + e.getMessage(), e);
        }
    }
}
