package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.DType;
import dev.sharedarrays.SharedNDArray;
import java.util.Arrays;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.VectorSchemaRoot;

/** A remote queue's messages (DoGet queue/<name>) into a local pool and queue, until the remote queue ends. */
public final class Pulling {
    private Pulling() {
    }

    @SuppressWarnings("try") // FlightStream.close() declares Exception, InterruptedException among them
    public static <T extends DType<T>> long run(Remote remote, String name, ArrayPool<T> pool, ArrayQueue queue, long[] counter, Cancel cancel) {
        FlightPath path = new FlightPath(FlightPath.QUEUE, name);
        try (FlightStream stream = remote.client.getStream(path.ticket(), remote.options)) {
            cancel.onCancel(() -> stream.cancel("the pull was cancelled", null));
            try {
                if (stream.getSchema().getFields().isEmpty()) {
                    while (stream.next()) {
                        // an ended queue that sent nothing
                    }
                    queue.end();
                    return 0;
                }
                TensorSchema s = TensorSchema.of(stream.getSchema());
                long slotElements = 1;
                for (long d : pool.slotShape()) {
                    slotElements *= d;
                }
                if (!s.dtype().equals(pool.dtype()) || slotElements != s.elements()) {
                    throw new IllegalArgumentException("remote queue " + name + " at " + remote.uri + " streams " + s + " arrays; the pool "
                            + pool.handle() + " holds " + pool.dtype() + " " + Arrays.toString(pool.slotShape()));
                }
                while (stream.next()) {
                    VectorSchemaRoot root = stream.getRoot();
                    for (int r = 0; r < root.getRowCount(); r++) {
                        SharedNDArray<T> slot = Waits.acquire(pool, cancel::isCancelled);
                        boolean sent = false;
                        try {
                            Batches.copyRow(root, r, s, slot.data().asSlice(slot.elementOffset() * slot.itemSize(), s.bytes()));
                            Waits.send(queue, slot, cancel::isCancelled);
                            sent = true;
                        } finally {
                            if (!sent) {
                                slot.close();
                            }
                        }
                        counter[0]++;
                    }
                }
                queue.end();
                return counter[0];
            } catch (Waits.Stopped e) {
                throw new java.util.concurrent.CancellationException("pulling queue/" + name + " from " + remote.uri + " was cancelled after "
                        + counter[0] + " message(s)");
            } catch (RuntimeException e) {
                stream.cancel("the client stopped: " + e.getMessage(), e);
                throw e;
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
