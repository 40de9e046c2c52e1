package dev.sharedarrays.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.WaitTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client JVM killed (SIGKILL) in the middle of a stream: the server's call ends, nothing is
 * delivered twice, and the queue and pools involved get their slots back, so the next client
 * carries on.
 */
class KilledClientTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static String unique(String base) {
        return base + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    /** How long the server may take to see the dead connection and end the call (its waits look every 0.2 s). */
    private static void letTheServerNotice() throws InterruptedException {
        Thread.sleep(1_000);
    }

    @Test
    void aConsumerKilledMidDoGetLeavesTheRestOfTheQueueToTheNextConsumer() throws Exception {
        String name = unique("fl-killget");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 4, BridgeChild.SHAPE);
             ArrayQueue q = ArrayQueue.create(4, CreateOptions.defaults().name(name))) {
            for (int k = 0; k < 3; k++) {
                SharedNDArray<F64> s = pool.acquire(WAIT);
                BridgeChild.fill(s, k);
                q.send(s, WAIT);
            }
            try (Proc consumer = new Proc("consumer", Proc.java(BridgeChild.class.getName(), "pull", server.location(), name), Map.of())) {
                consumer.expect("got 2", 20);
                consumer.process.destroyForcibly(); // SIGKILL, mid-DoGet: the queue has not ended
                assertTrue(consumer.process.waitFor(5, TimeUnit.SECONDS));
            }
            letTheServerNotice();
            // every slot the dead call took went back to the pool
            assertEquals(4, pool.free());
            for (int k = 3; k < 6; k++) {
                SharedNDArray<F64> s = pool.acquire(WAIT);
                BridgeChild.fill(s, k);
                q.send(s, WAIT);
            }
            q.end();
            // the dead call took none of these: the next consumer gets each once, in order, then the end
            try (ArrayPool<F64> dstPool = ArrayPool.create(F64.TYPE, 3, BridgeChild.SHAPE);
                 ArrayQueue dst = ArrayQueue.create(4)) {
                long pulled = FlightBridge.pull(server.location(), name, dstPool, dst);
                List<Integer> got = new ArrayList<>();
                while (true) {
                    SharedNDArray<?> m = dst.receive(WAIT);
                    if (m == null) {
                        break;
                    }
                    try (m) {
                        got.add(BridgeChild.check(m));
                    }
                }
                assertEquals(List.of(3, 4, 5), got);
                assertEquals(3, pulled);
            }
            assertEquals(4, pool.free());
        }
    }

    @Test
    void aProducerKilledMidDoPutLeavesTheQueueUnendedAndTheServersPoolWhole() throws Exception {
        String name = unique("fl-killput");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             ArrayQueue q = ArrayQueue.create(4, CreateOptions.defaults().name(name))) {
            List<Integer> got = new ArrayList<>();
            try (Proc producer = new Proc("producer", Proc.java(BridgeChild.class.getName(), "forward", server.location(), name, "100"), Map.of())) {
                // nobody reads q: the put stalls once q and the server's pool are full
                SharedNDArray<?> first = q.receive(WAIT);
                try (first) {
                    got.add(BridgeChild.check(first));
                }
                Thread.sleep(300);
                producer.process.destroyForcibly(); // SIGKILL, mid-DoPut
                assertTrue(producer.process.waitFor(5, TimeUnit.SECONDS));
            }
            letTheServerNotice();
            // what arrived before the kill, each once and in order; then no end (the producer did not end its stream)
            while (true) {
                SharedNDArray<?> m;
                try {
                    m = q.receive(Duration.ofMillis(500));
                } catch (WaitTimeoutException e) {
                    break;
                }
                assertTrue(m != null, "a killed producer ended the queue");
                try (m) {
                    got.add(BridgeChild.check(m));
                }
            }
            for (int i = 0; i < got.size(); i++) {
                assertEquals(i, got.get(i));
            }
            assertTrue(got.size() >= 4 && got.size() < 100, "received " + got);
            // the next producer fills the whole queue before anyone reads it: every slot of the
            // server's pool came back from the dead put (one held back would stall this forward)
            try (Proc next = new Proc("producer2", Proc.java(BridgeChild.class.getName(), "forward", server.location(), name, "4"), Map.of())) {
                String done = next.expect("forwarded", 20);
                assertTrue(done.startsWith("forwarded 4 "), done);
            }
            for (int k = 0; k < 4; k++) {
                try (SharedNDArray<?> m = q.receive(WAIT)) {
                    assertEquals(k, BridgeChild.check(m));
                }
            }
            assertEquals(null, q.receive(WAIT));
        }
    }
}
