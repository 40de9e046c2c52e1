package dev.sharedarrays.spark.internal;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Makes the readers of an array scan's partitions, on the executors: column batches, or one row of pushed aggregates. */
final class RowReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return ((RowRange) partition).aggregates() == null;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        return new RowReader((RowRange) partition);
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        RowReader rows = new RowReader((RowRange) partition);
        return new PartitionReader<>() {
            private InternalRow result;

            @Override
            public boolean next() {
                if (result != null) {
                    return false;
                }
                result = rows.aggregate();
                return true;
            }

            @Override
            public InternalRow get() {
                return result;
            }

            @Override
            public void close() throws java.io.IOException {
                rows.close();
            }
        };
    }
}
