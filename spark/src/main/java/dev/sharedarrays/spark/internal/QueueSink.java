package dev.sharedarrays.spark.internal;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.DType;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.WaitTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;

/**
 * Rows into a queue: each row ({@link RowLayout}) into a slot of a pool, sent as one message (a
 * 1-D array of the row's elements). The pool is this JVM's, one per queue, element type and row
 * width, with option {@code slots} slots (default 8), kept while the JVM runs (messages in flight
 * live in it). A full queue or an empty pool makes the task wait (backpressure), looking each
 * second whether Spark killed it. At most once, as the queue: a task that fails after sending
 * some rows sent them. The query does not end the queue: call {@code end()} on it once the query
 * has stopped.
 */
final class QueueSink implements StreamingWrite {
    private static final Duration SLICE = Duration.ofSeconds(1);
    /** This JVM's queues and pools, by queue name and by queue, element type and width. */
    private static final Map<String, ArrayQueue> QUEUES = new ConcurrentHashMap<>();
    private static final Map<String, ArrayPool<?>> POOLS = new ConcurrentHashMap<>();

    private final String name;
    private final RowLayout layout;
    private final int slots;

    QueueSink(String name, RowLayout layout, int slots) {
        this.name = name;
        this.layout = layout;
        this.slots = slots;
    }

    @Override
    public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
        String queue = name;
        RowLayout l = layout;
        int n = slots;
        return (StreamingDataWriterFactory) (partitionId, taskId, epochId) -> new RowSender(queue, l, n);
    }

    @Override
    public void commit(long epochId, WriterCommitMessage[] messages) {
        // sent is sent: nothing to make visible
    }

    @Override
    public void abort(long epochId, WriterCommitMessage[] messages) {
        // at most once: what was sent stays sent
    }

    /** What a task that sent its rows reports (nothing: sent is sent). */
    private enum Sent implements WriterCommitMessage {
        INSTANCE
    }

    /** A task's sending of its rows. */
    private static final class RowSender implements DataWriter<InternalRow> {
        private final ArrayQueue queue;
        private final RowLayout layout;
        private final int slots;
        private final String name;

        RowSender(String name, RowLayout layout, int slots) {
            this.name = name;
            this.layout = layout;
            this.slots = slots;
            this.queue = QUEUES.computeIfAbsent(name, q -> ArrayQueue.attach(Options.handle(q)));
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private ArrayPool<?> pool(int width) {
            DType d = layout.dtype();
            return POOLS.computeIfAbsent(name + " " + d + " " + width, k -> ArrayPool.create(d, slots, width));
        }

        @Override
        public void write(InternalRow row) {
            int width = layout.width(row);
            ArrayPool<?> pool = pool(width);
            SharedNDArray<?> slot = null;
            while (slot == null) {
                checkKilled();
                try {
                    slot = pool.acquire(SLICE);
                } catch (WaitTimeoutException e) {
                    // every slot is in flight: wait for the consumers
                }
            }
            boolean sent = false;
            try {
                layout.write(row, width, slot.data().asSlice(slot.elementOffset() * slot.itemSize(), (long) width * slot.itemSize()));
                while (!sent) {
                    checkKilled();
                    try {
                        queue.send(slot, SLICE);
                        sent = true;
                    } catch (WaitTimeoutException e) {
                        // the queue is full: wait for the consumers
                    }
                }
            } finally {
                if (!sent) {
                    slot.close();
                }
            }
        }

        private static void checkKilled() {
            TaskContext t = TaskContext.get();
            if (t != null && t.isInterrupted()) {
                throw new java.util.concurrent.CancellationException("the task was killed");
            }
        }

        @Override
        public WriterCommitMessage commit() {
            return Sent.INSTANCE;
        }

        @Override
        public void abort() {
            // sent rows stay sent (at most once)
        }

        @Override
        public void close() {
            // the queue and the pools are this JVM's, for the next batches
        }
    }
}
