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
import dev.sharedarrays.flight.RawFlight;
import dev.sharedarrays.flight.ServeOptions;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server connection takes HTTP/2 frames of up to 1 MiB only once a DoPut on it passed the
 * token check: a refused put leaves it at 16 KiB frames; an accepted one widens it (its decoder
 * takes 1 MiB frames once the client acknowledged), and 1 MiB messages then arrive whole and in order.
 */
class AuthenticatedFramesTest {
    private static final int ELEMENTS = 1 << 17; // 1 MiB of doubles
    private static final int HTTP2_FRAME = 16_384;


    @Test
    void theDecoderOfAnAuthenticatedPutsConnectionTakesLargeFramesAndARefusedOnesDoesNot() throws Exception {
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).token("s3cret"))) {
            ManagedChannel refused = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            ManagedChannel accepted = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            try {
                assertEquals(Status.Code.UNAUTHENTICATED, put(refused, "guess").getCode());
                assertEquals(List.of(HTTP2_FRAME), ComposingChannels.maxFrameSizes(server.port()), "the refused put's connection");
                // the token passes; the message, no Flight data, is refused by the codec after it
                assertEquals(Status.Code.INVALID_ARGUMENT, put(accepted, "s3cret").getCode());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                List<Integer> sizes = ComposingChannels.maxFrameSizes(server.port());
                while (!sizes.contains(1 << 20) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                    sizes = ComposingChannels.maxFrameSizes(server.port());
                }
                List<Integer> sorted = new ArrayList<>(sizes);
                Collections.sort(sorted);
                assertEquals(List.of(HTTP2_FRAME, 1 << 20), sorted, "the refused put's connection, then the accepted one's");
            } finally {
                refused.shutdownNow();
                accepted.shutdownNow();
            }
        }
    }

    /** One DoPut of a message that is no Flight data, with the bearer token given; the status it ends with. */
    private static Status put(ManagedChannel ch, String token) throws Exception {
        Metadata h = new Metadata();
        h.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        CompletableFuture<Status> closed = new CompletableFuture<>();
        ClientCall<byte[], byte[]> call = ch.newCall(RawFlight.DO_PUT, CallOptions.DEFAULT);
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
                closed.complete(status);
            }
        }, h);
        call.request(1);
        call.sendMessage(new byte[] {0x12, 5, 1, 2, 3, 4, 5});
        call.halfClose();
        return closed.get(10, TimeUnit.SECONDS);
    }

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
