package dev.sharedarrays.flight;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedNDArray;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The processes of the bridge tests, one per "host" role; each prints what it saw for the test to check.
 * <ul>
 *   <li>{@code produce N NAME...}: creates a pool and the queues NAME... (capacity 4), prints "ready",
 *       sends N messages into each (message k holds k*1000 + j), ends them, prints "sent", then
 *       keeps the queues until stdin closes. A queue whose name starts with "stall" gets nothing
 *       and is never ended.</li>
 *   <li>{@code pull URI NAME}: pulls the remote queue into a local pool and queue and reads that
 *       queue: prints "got k" per message, then "end COUNT", or "error CLASS: MESSAGE".</li>
 *   <li>{@code forward URI NAME N}: sends N messages through a local queue to a remote one;
 *       prints "forwarded COUNT" or "error ...".</li>
 * </ul>
 */
public final class BridgeChild {
    static final long[] SHAPE = {4, 256};

    private BridgeChild() {
    }

    public static void main(String[] args) throws Exception {
        try {
            switch (args[0]) {
                case "produce" -> produce(Integer.parseInt(args[1]), List.of(args).subList(2, args.length));
                case "pull" -> pull(args[1], args[2]);
                case "forward" -> forward(args[1], args[2], Integer.parseInt(args[3]));
                default -> throw new IllegalArgumentException(args[0]);
            }
        } catch (RuntimeException e) {
            System.out.println("error " + e.getClass().getSimpleName() + ": " + e.getMessage());
            System.out.flush();
            System.exit(3);
        }
        System.exit(0);
    }

    static void fill(SharedNDArray<F64> a, int k) {
        long n = a.size();
        for (long j = 0; j < n; j++) {
            a.setDouble(j, k * 1000.0 + j);
        }
    }

    /** k if the message is intact, else an exception that says what is wrong. */
    static int check(SharedNDArray<?> a) {
        long n = a.size();
        int k = (int) (a.getDouble(0) / 1000);
        for (long j = 0; j < n; j += 97) {
            if (a.getDouble(j) != k * 1000.0 + j) {
                throw new IllegalStateException("message " + k + " element " + j + " is " + a.getDouble(j));
            }
        }
        if (a.getDouble(n - 1) != k * 1000.0 + n - 1) {
            throw new IllegalStateException("message " + k + " last element is " + a.getDouble(n - 1));
        }
        return k;
    }

    private static void produce(int n, List<String> names) throws IOException {
        try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 8, SHAPE)) {
            List<ArrayQueue> queues = new ArrayList<>();
            for (String name : names) {
                queues.add(ArrayQueue.create(4, CreateOptions.defaults().name(name)));
            }
            System.out.println("ready");
            System.out.flush();
            // each queue in a thread: consumers drain them at their own pace
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (ArrayQueue q : queues) {
                if (names.get(queues.indexOf(q)).startsWith("stall")) {
                    continue;
                }
                done.add(CompletableFuture.runAsync(() -> {
                    for (int k = 0; k < n; k++) {
                        SharedNDArray<F64> s = pool.acquire(Duration.ofSeconds(60));
                        fill(s, k);
                        q.send(s, Duration.ofSeconds(60));
                    }
                    q.end();
                }));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
            System.out.println("sent");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the queues and the pool until the test lets go
            }
            for (ArrayQueue q : queues) {
                q.close();
            }
        }
    }

    private static void pull(String uri, String name) {
        try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 4, SHAPE);
             ArrayQueue local = ArrayQueue.create(2)) {
            CompletableFuture<Long> puller = FlightBridge.pullAsync(uri, name, pool, local, ClientOptions.defaults());
            int expect = 0;
            while (true) {
                SharedNDArray<?> m;
                try {
                    m = local.receive(Duration.ofMillis(100));
                } catch (dev.sharedarrays.WaitTimeoutException e) {
                    if (puller.isCompletedExceptionally()) {
                        puller.join();
                    }
                    continue;
                }
                if (m == null) {
                    break;
                }
                try (m) {
                    int k = check(m);
                    if (k != expect) {
                        throw new IllegalStateException("message " + k + " came where " + expect + " was due");
                    }
                    System.out.println("got " + k);
                    System.out.flush();
                    expect++;
                }
            }
            long pulled = puller.join();
            System.out.println("end " + expect + " pulled " + pulled + " free " + pool.free());
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private static void forward(String uri, String name, int n) {
        try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 4, SHAPE);
             ArrayQueue local = ArrayQueue.create(2)) {
            CompletableFuture<Long> fwd = FlightBridge.forwardAsync(local, uri, name, ClientOptions.defaults());
            for (int k = 0; k < n; k++) {
                SharedNDArray<F64> s = pool.acquire(Duration.ofSeconds(30));
                fill(s, k);
                local.send(s, Duration.ofSeconds(30));
            }
            local.end();
            long sent = fwd.join();
            System.out.println("forwarded " + sent + " free " + pool.free());
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }
}
