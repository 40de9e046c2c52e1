package dev.sharedarrays.flight;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * pyarrow.flight against the bridge on 127.0.0.1, no root needed (the two-host test runs pyarrow in a
 * network namespace): DoGet, DoPut into a queue and DoPut of an array are refused without the token and
 * with a wrong one (a refused put delivers nothing), and with it pyarrow reads a queue's messages, sends
 * messages a JVM consumer receives in order, and makes an array the JVM attaches.
 */
class PyarrowLoopbackTest {
    private static final int COUNT = 6;

    private static String unique(String base) {
        return base + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    private static Path repo() {
        Path p = Path.of("").toAbsolutePath();
        return Files.exists(p.resolve("bridge")) ? p : p.getParent();
    }

    @Test
    void pyarrowIsRefusedWithoutTheTokenAndGetsAndPutsWithIt() throws Exception {
        Process ensure = new ProcessBuilder(repo().resolve("python/ensure-pyarrow").toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String python = new String(ensure.getInputStream().readAllBytes()).strip();
        assertEquals(0, ensure.waitFor(), "python/ensure-pyarrow failed");
        String token = UUID.randomUUID().toString();
        String getq = unique("fl-pyget");
        String putq = unique("fl-pyput");
        String array = unique("fl-pyarr");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).token(token));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, COUNT, 4, 8);
             ArrayQueue toPython = ArrayQueue.create(COUNT, CreateOptions.defaults().name(getq));
             ArrayQueue fromPython = ArrayQueue.create(COUNT, CreateOptions.defaults().name(putq))) {
            for (int k = 0; k < COUNT; k++) {
                SharedNDArray<F64> s = pool.acquire(Duration.ofSeconds(10));
                for (int i = 0; i < 32; i++) {
                    s.setDouble(i, k * 1000.0 + i);
                }
                toPython.send(s, Duration.ofSeconds(10));
            }
            toPython.end();
            CompletableFuture<List<Integer>> received = CompletableFuture.supplyAsync(() -> {
                List<Integer> got = new ArrayList<>();
                while (true) {
                    SharedNDArray<F64> m = fromPython.receive(F64.TYPE, Duration.ofSeconds(60));
                    if (m == null) {
                        return got;
                    }
                    try (m) {
                        assertArrayEquals(new long[] {4, 8}, m.shape());
                        int k = (int) (m.getDouble(0) / 1000);
                        for (int i = 0; i < 32; i++) {
                            assertEquals(k * 1000.0 + i, m.getDouble(i), "message " + k + " element " + i);
                        }
                        got.add(k);
                    }
                }
            });
            String uri = "grpc+tcp://127.0.0.1:" + server.port();
            List<String> cmd = List.of(python, repo().resolve("bridge/src/test/resources/pyarrow_loopback.py").toString(),
                    uri, token, getq, putq, array, Integer.toString(COUNT));
            try (Proc py = new Proc("pyarrow", cmd, Map.of())) {
                for (String call : List.of("do_get", "do_put_queue", "do_put_array")) {
                    for (String label : List.of("none", "wrong")) {
                        String line = py.expect("refused " + call + " " + label, 60);
                        assertTrue(line.contains("bearer token"), line);
                    }
                }
                // a refused put made nothing
                assertThrows(SegmentNotFoundException.class, () -> SharedArrays.inspect(ArrayHandle.parse("shm://" + array)));
                assertEquals("end " + COUNT, py.expect("end", 60));
                List<Integer> order = new ArrayList<>();
                for (int k = 0; k < COUNT; k++) {
                    order.add(k);
                }
                py.expect("put " + COUNT, 60);
                assertEquals(order, received.get(60, TimeUnit.SECONDS), "messages pyarrow put, in order, none from the refused puts");
                assertTrue(fromPython.isEnded(), "the end of the put ends the queue");
                py.expect("array", 60);
                try (SharedNDArray<?> a = SharedArrays.attach(ArrayHandle.parse("shm://" + array))) {
                    assertArrayEquals(new long[] {3, 2, 3}, a.shape());
                    for (int i = 0; i < 18; i++) {
                        assertEquals(i, a.getDouble(i));
                    }
                }
                assertEquals(0, py.process.waitFor(), "pyarrow's exit status; it printed " + py.seen);
            }
        } finally {
            try {
                SharedArrays.remove(ArrayHandle.parse("shm://" + array)); // persistent, made by the server's put
            } catch (SegmentNotFoundException e) {
                // never made
            }
        }
    }
}
