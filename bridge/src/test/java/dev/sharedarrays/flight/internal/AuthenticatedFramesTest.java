package dev.sharedarrays.flight.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.flight.BridgeServer;
import dev.sharedarrays.flight.ClientOptions;
import dev.sharedarrays.flight.FlightBridge;
import dev.sharedarrays.flight.FlightBridgeException;
import dev.sharedarrays.flight.ServeOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server connection takes HTTP/2 frames of up to 1 MiB only once a DoPut on it passed the
 * token check: a refused put leaves it at 16 KiB frames; an accepted one widens it, and 1 MiB
 * messages then arrive whole and in order.
 */
class AuthenticatedFramesTest {
    private static final int ELEMENTS = 1 << 17; // 1 MiB of doubles

    @Test
    void onlyAPutPastTheTokenCheckLetsItsConnectionTakeLargeFrames() throws Exception {
        String name = "fl-wide-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        int n = 6;
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).token("s3cret"));
             ArrayQueue mid = ArrayQueue.create(n + 1, CreateOptions.defaults().name(name));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, ELEMENTS);
             ArrayQueue refused = ArrayQueue.create(2);
             ArrayQueue local = ArrayQueue.create(2)) {
            long before = ComposingChannels.widened();
            refused.end();
            FlightBridgeException wrong = assertThrows(FlightBridgeException.class,
                    () -> FlightBridge.forward(refused, server.location(), name, ClientOptions.defaults().token("guess")));
            assertTrue(wrong.getMessage().contains("UNAUTHENTICATED"), wrong.getMessage());
            assertEquals(before, ComposingChannels.widened(), "a refused put must not widen its connection");

            CompletableFuture<Long> fwd = FlightBridge.forwardAsync(local, server.location(), name, ClientOptions.defaults().token("s3cret"));
            for (int k = 0; k < n; k++) {
                SharedNDArray<F64> a = pool.acquire(Duration.ofSeconds(20));
                for (int i = 0; i < ELEMENTS; i++) {
                    a.setDouble(i, k * 1e7 + i);
                }
                local.send(a, Duration.ofSeconds(20));
            }
            local.end();
            assertEquals(n, fwd.get(30, TimeUnit.SECONDS));
            assertEquals(before + 1, ComposingChannels.widened(), "the accepted put's connection takes 1 MiB frames");
            for (int k = 0; k < n; k++) {
                try (SharedNDArray<F64> m = mid.receive(F64.TYPE, Duration.ofSeconds(20))) {
                    assertEquals(ELEMENTS, m.size());
                    for (int i = 0; i < ELEMENTS; i += 997) {
                        assertEquals(k * 1e7 + i, m.getDouble(i), "message " + k + ", element " + i);
                    }
                    assertEquals(k * 1e7 + ELEMENTS - 1, m.getDouble(ELEMENTS - 1));
                }
            }
            assertNull(mid.receive(F64.TYPE, Duration.ofSeconds(5)), "the put's end ends the server's queue");
        }
    }
}
