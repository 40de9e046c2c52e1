package dev.sharedarrays.spark.internal;

import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.WaitTimeoutException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A queue as micro-batches, on the driver: each trigger takes the messages waiting in the queue
 * (at most {@code maxMessagesPerBatch}), numbers them (the offsets are counts of messages taken),
 * copies them into one staging array of this process (shm, so that executors on this host read
 * it in place) and closes them at once: their pool slots go back to the producers before the batch
 * runs. Spark commits a batch only when the next one has data, and a stream that held the slots
 * until then would stop a producer whose pool it emptied. A staging array is removed once Spark
 * has committed the batch that read it. When the queue has ended and every message taken was
 * read, the query is stopped: the end of the queue ends the query.
 *
 * <p>Delivery is at most once, as the queue's: a message is taken from the queue before Spark
 * reads it, so messages taken by a driver that dies before their batch committed are lost. A query
 * restarted from its checkpoint goes on numbering from the offsets it recorded; a batch it re-runs
 * finds only the messages this driver still holds.
 */
final class QueueStream implements MicroBatchStream {
    private static final Duration RECEIVE = Duration.ZERO;

    private final String name;
    private final ArrayQueue queue;
    private final ArrayColumns columns;
    private final int maxPerBatch;
    private final String id = UUID.randomUUID().toString();
    /** Staged messages, oldest first. */
    private final Deque<Staged> staged = new ArrayDeque<>();
    /** Messages taken in all, this run's and (restored) the runs' before. */
    private long taken;
    private boolean startedTaking;
    private boolean ended;
    /** The end of the last batch Spark planned. */
    private long planned;
    private volatile boolean stopping;

    /** Messages first .. first + count - 1, copied into one array of shape (count, *message shape). */
    private record Staged(long first, int count, SharedNDArray<?> array) {
        long last() {
            return first + count - 1;
        }
    }

    QueueStream(String name, ArrayQueue queue, ArrayColumns columns, int maxPerBatch) {
        this.name = name;
        this.queue = queue;
        this.columns = columns;
        this.maxPerBatch = maxPerBatch;
    }

    @Override
    public Offset initialOffset() {
        return new QueueOffset(0);
    }

    @Override
    public synchronized Offset deserializeOffset(String json) {
        QueueOffset o = QueueOffset.parse(json);
        if (!startedTaking) {
            taken = Math.max(taken, o.taken); // a restart: number on from what the checkpoint recorded
        }
        return o;
    }

    @Override
    public synchronized Offset latestOffset() {
        startedTaking = true;
        if (ended && planned >= taken && !stopping) {
            // the batch that read the last message was planned, and Spark asks again only once it ran:
            // Spark would commit it only before a next batch, which the end means never comes
            stopping = true;
            staged.forEach(st -> st.array().destroy());
            staged.clear();
            stopQuery();
        }
        List<SharedNDArray<?>> got = new java.util.ArrayList<>();
        try {
            while (!ended && got.size() < maxPerBatch) {
                SharedNDArray<?> m;
                try {
                    m = queue.receive(RECEIVE);
                } catch (WaitTimeoutException e) {
                    break; // nothing waiting: the next trigger looks again
                }
                if (m == null) {
                    ended = true;
                    break;
                }
                got.add(m);
                if (!ArrayColumns.of(m.dtype(), m.shape()).equals(columns)) {
                    throw new IllegalStateException("queue " + name + " sent a " + m.dtype() + Arrays.toString(m.shape())
                            + " message into a stream of " + columns + " (options dtype and shape)");
                }
            }
            if (!got.isEmpty()) {
                staged.add(new Staged(taken + 1, got.size(), stage(got)));
                taken += got.size();
            }
        } finally {
            got.forEach(SharedNDArray::close); // slots back to the pool now
        }
        return new QueueOffset(taken);
    }

    /** The messages copied, one after another, into a new array of this process. */
    private SharedNDArray<?> stage(List<SharedNDArray<?>> messages) {
        long[] shape = new long[columns.shape().length + 1];
        shape[0] = messages.size();
        System.arraycopy(columns.shape(), 0, shape, 1, columns.shape().length);
        SharedNDArray<?> a = SharedArrays.createAny(columns.dtype(), shape, CreateOptions.defaults().backend(Backend.SHM));
        long bytes = columns.rows() * columns.rowBytes();
        for (int i = 0; i < messages.size(); i++) {
            SharedNDArray<?> m = messages.get(i);
            if (m.isContiguous()) {
                MemorySegment.copy(m.data(), m.elementOffset() * m.itemSize(), a.data(), i * bytes, bytes);
            } else {
                copy(a.select(0, i), m); // a strided view: element by element
            }
        }
        return a;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void copy(SharedNDArray dst, SharedNDArray src) {
        dst.copyFrom(src);
    }

    @Override
    public synchronized InputPartition[] planInputPartitions(Offset start, Offset end) {
        long from = ((QueueOffset) start).taken;
        long to = ((QueueOffset) end).taken;
        planned = Math.max(planned, to);
        List<long[]> batch = new java.util.ArrayList<>(); // {staged index in list, message index}
        List<Staged> list = List.copyOf(staged);
        for (int s = 0; s < list.size(); s++) {
            Staged st = list.get(s);
            for (int i = 0; i < st.count(); i++) {
                long seq = st.first() + i;
                if (seq > from && seq <= to) {
                    batch.add(new long[] {s, i, seq});
                }
            }
        }
        if (batch.isEmpty()) {
            return new InputPartition[0];
        }
        int parts = Math.max(1, Math.min(batch.size(), SparkSession.active().sparkContext().defaultParallelism()));
        int[] read = new int[QueueTable.schema(columns).fields().length];
        Arrays.setAll(read, i -> i);
        long bytes = columns.rows() * columns.rowBytes();
        InputPartition[] out = new InputPartition[parts];
        for (int p = 0; p < parts; p++) {
            List<long[]> mine = batch.subList(batch.size() * p / parts, batch.size() * (p + 1) / parts);
            String[] handles = mine.stream().map(m -> list.get((int) m[0]).array().handle().toString()).toArray(String[]::new);
            long[] offsets = mine.stream().mapToLong(m -> m[1] * bytes).toArray();
            long[] seqs = mine.stream().mapToLong(m -> m[2]).toArray();
            out[p] = new MessageRange(handles, offsets, seqs, columns, read);
        }
        return out;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new MessageReaderFactory();
    }

    /** Makes the readers of a batch's messages, on the executors (static: it travels there without this stream). */
    private static final class MessageReaderFactory implements PartitionReaderFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean supportColumnarReads(InputPartition partition) {
            return true;
        }

        @Override
        public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
            return new MessageReader((MessageRange) partition);
        }

        @Override
        public PartitionReader<org.apache.spark.sql.catalyst.InternalRow> createReader(InputPartition partition) {
            throw new UnsupportedOperationException("a queue stream reads column batches");
        }
    }

    @Override
    public synchronized void commit(Offset end) {
        long to = ((QueueOffset) end).taken;
        while (!staged.isEmpty() && staged.peekFirst().last() <= to) {
            staged.pollFirst().array().destroy();
        }

    }

    /** The end of the queue ends the query: its own thread stops it (a source cannot from inside a batch). */
    private void stopQuery() {
        // the query runs in a clone of the session that started it; the starter's (the default) lists it
        List<SparkSession> sessions = new java.util.ArrayList<>(List.of(SparkSession.active()));
        SparkSession.getDefaultSession().foreach(d -> sessions.add(d));
        Thread t = new Thread(() -> {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                for (StreamingQuery q : sessions.stream().flatMap(x -> Arrays.stream(x.streams().active())).toList()) {
                    var progress = q.lastProgress();
                    if (progress != null && Arrays.stream(progress.sources()).anyMatch(s -> s.description().contains(id))) {
                        try {
                            q.stop();
                        } catch (Exception e) {
                            // stopping already
                        }
                        return;
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "sharedarrays-queue-end " + name);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public synchronized void stop() {
        staged.forEach(st -> st.array().destroy());
        staged.clear();
        queue.close();
    }

    @Override
    public String toString() {
        return "sharedarrays queue/" + name + " " + columns + " (" + id + ")";
    }
}
