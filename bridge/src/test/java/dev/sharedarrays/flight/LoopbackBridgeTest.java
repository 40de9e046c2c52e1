package dev.sharedarrays.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.I32;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The bridge on 127.0.0.1 in one JVM: server and clients on threads (the two-host test uses processes). */
class LoopbackBridgeTest {
    private static String unique(String base) {
        return base + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    @Test
    void forwardThenPullDeliversEachMessageOnceInOrderAndEndsTheStream() throws Exception {
        String middle = unique("fl-mid");
        int n = 40;
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             ArrayQueue mid = ArrayQueue.create(4, CreateOptions.defaults().name(middle));
             ArrayPool<F64> srcPool = ArrayPool.create(F64.TYPE, 4, BridgeChild.SHAPE);
             ArrayQueue src = ArrayQueue.create(2);
             ArrayPool<F64> dstPool = ArrayPool.create(F64.TYPE, 3, BridgeChild.SHAPE);
             ArrayQueue dst = ArrayQueue.create(2)) {
            ClientOptions o = ClientOptions.defaults();
            CompletableFuture<Long> fwd = FlightBridge.forwardAsync(src, server.location(), middle, o);
            CompletableFuture<Long> pull = FlightBridge.pullAsync(server.location(), middle, dstPool, dst, o);
            CompletableFuture<Void> produce = CompletableFuture.runAsync(() -> {
                for (int k = 0; k < n; k++) {
                    SharedNDArray<F64> s = srcPool.acquire(Duration.ofSeconds(20));
                    BridgeChild.fill(s, k);
                    src.send(s, Duration.ofSeconds(20));
                }
                src.end();
            });
            List<Integer> got = new ArrayList<>();
            while (true) {
                SharedNDArray<?> m = dst.receive(Duration.ofSeconds(20));
                if (m == null) {
                    break;
                }
                try (m) {
                    got.add(BridgeChild.check(m));
                }
            }
            produce.get(20, TimeUnit.SECONDS);
            assertEquals(n, fwd.get(20, TimeUnit.SECONDS));
            assertEquals(n, pull.get(20, TimeUnit.SECONDS));
            List<Integer> expected = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                expected.add(k);
            }
            assertEquals(expected, got);
            // every slot went home: the sender's once on the wire, the receiver's once read
            assertEquals(4, srcPool.free());
            assertEquals(3, dstPool.free());
            assertTrue(mid.isEnded(), "the remote producer's end ends the server's queue");
        }
    }

    @Test
    @SuppressWarnings("try")
    void arraysGoOutAndComeBackAsFixedShapeTensors() throws Exception {
        String name = unique("fl-arr");
        String copy = unique("fl-arr-copy");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             SharedNDArray<I32> a = SharedArrays.create(I32.TYPE, new long[] {3, 5}, CreateOptions.defaults().name(name))) {
            for (int i = 0; i < 15; i++) {
                a.setLong(i, i * 7 - 20);
            }
            // out through DoGet and back in through DoPut under another name, by a JVM client of Arrow's own
            try (var r = new dev.sharedarrays.flight.internal.Remote(server.location(), null, null);
                 var stream = r.client.getStream(new org.apache.arrow.flight.Ticket(("array/" + name).getBytes()))) {
                var root = stream.getRoot();
                assertTrue(stream.next());
                assertEquals(1, root.getRowCount());
                String meta = root.getSchema().getFields().get(0).getMetadata().get("ARROW:extension:metadata");
                assertEquals("{\"shape\":[3,5]}", meta);
                var put = r.client.startPut(org.apache.arrow.flight.FlightDescriptor.path("array", copy), root,
                        new org.apache.arrow.flight.SyncPutListener());
                put.putNext();
                put.completed();
                put.getResult();
            }
            SharedNDArray<I32> b = SharedArrays.attach(ArrayHandle.parse("shm://" + copy), I32.TYPE);
            try (b) {
                assertEquals(List.of(3L, 5L), List.of(b.shape()[0], b.shape()[1]));
                for (int i = 0; i < 15; i++) {
                    assertEquals(i * 7 - 20, b.getLong(i));
                }
            } finally {
                SharedArrays.remove(ArrayHandle.parse("shm://" + copy), true);
            }
        }
    }

    @Test
    void aTokenServerRefusesCallsWithoutTheToken() {
        String name = unique("fl-tok");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).token("s3cret"));
             ArrayQueue q = ArrayQueue.create(2, CreateOptions.defaults().name(name));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, 4);
             ArrayQueue local = ArrayQueue.create(2)) {
            FlightBridgeException none = assertThrows(FlightBridgeException.class,
                    () -> FlightBridge.pull(server.location(), name, pool, local, ClientOptions.defaults().token(null)));
            assertTrue(none.getMessage().contains("UNAUTHENTICATED") && none.getMessage().contains("needs a bearer token"), none.getMessage());
            FlightBridgeException wrong = assertThrows(FlightBridgeException.class,
                    () -> FlightBridge.pull(server.location(), name, pool, local, ClientOptions.defaults().token("guess")));
            assertTrue(wrong.getMessage().contains("wrong bearer token"), wrong.getMessage());
            assertEquals(2, pool.free());
            // the right token is let in: an ended queue pulls nothing and ends the local one
            q.end();
            assertEquals(0, FlightBridge.pull(server.location(), name, pool, local, ClientOptions.defaults().token("s3cret")));
            assertTrue(local.isEnded());
        }
    }

    @Test
    void tlsOnRequest() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("sa-flight-tls");
        java.nio.file.Path cert = dir.resolve("cert.pem");
        java.nio.file.Path key = dir.resolve("key.pem");
        try {
            Process p;
            try {
                p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(), "-out",
                        cert.toString(), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost")
                        .redirectErrorStream(true).start();
            } catch (java.io.IOException e) {
                org.junit.jupiter.api.Assumptions.abort("no openssl to make a certificate: " + e.getMessage());
                return;
            }
            p.getInputStream().readAllBytes();
            assertEquals(0, p.waitFor());
            String name = unique("fl-tls");
            try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).tls(cert, key));
                 ArrayQueue q = ArrayQueue.create(2, CreateOptions.defaults().name(name));
                 ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, BridgeChild.SHAPE);
                 ArrayQueue local = ArrayQueue.create(2)) {
                assertTrue(server.location().startsWith("grpc+tls://"), server.location());
                SharedNDArray<F64> s = pool.acquire(Duration.ofSeconds(5));
                BridgeChild.fill(s, 7);
                q.send(s, Duration.ofSeconds(5));
                q.end();
                // a client that does not trust the certificate is refused; one that does gets the message
                assertThrows(FlightBridgeException.class, () -> FlightBridge.pull(server.location(), name, pool, local, ClientOptions.defaults()));
                try (ArrayQueue local2 = ArrayQueue.create(2)) {
                    assertEquals(1, FlightBridge.pull(server.location(), name, pool, local2, ClientOptions.defaults().trustedCertificate(cert)));
                    try (SharedNDArray<?> m = local2.receive(Duration.ofSeconds(5))) {
                        assertEquals(7, BridgeChild.check(m));
                    }
                }
            }
        } finally {
            java.nio.file.Files.deleteIfExists(cert);
            java.nio.file.Files.deleteIfExists(key);
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    @Test
    void listeningBeyondLoopbackNeedsAToken() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FlightBridge.serve(ServeOptions.defaults().listen("0.0.0.0", 0)));
        assertTrue(e.getMessage().contains("needs a bearer token"), e.getMessage());
    }

    @Test
    void aClosedServerIsAnExceptionForItsPullerAndItsSlotsComeBack() throws Exception {
        String name = unique("fl-stop");
        BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
        try (ArrayQueue q = ArrayQueue.create(2, CreateOptions.defaults().name(name));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, 4);
             ArrayQueue local = ArrayQueue.create(2)) {
            CompletableFuture<Long> pull = FlightBridge.pullAsync(server.location(), name, pool, local, ClientOptions.defaults());
            Thread.sleep(500); // the stream is open and waits on the empty queue
            assertEquals(0, q.size());
            long t0 = System.nanoTime();
            server.close();
            var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> pull.get(10, TimeUnit.SECONDS));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertTrue(e.getCause() instanceof FlightBridgeException, String.valueOf(e.getCause()));
            assertTrue(seconds < 5, "the puller learned it after " + seconds + " s");
            assertEquals(2, pool.free());
            assertTrue(!local.isEnded(), "a broken stream is not an end");
        } finally {
            server.close();
        }
    }

    @Test
    void badNamesAreRefused() {
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, 4);
             ArrayQueue local = ArrayQueue.create(2)) {
            FlightBridgeException e = assertThrows(FlightBridgeException.class,
                    () -> FlightBridge.pull(server.location(), "../etc", pool, local, ClientOptions.defaults()));
            assertTrue(e.getMessage().contains("must not contain"), e.getMessage());
        } catch (IllegalArgumentException e) {
            // the client validates the name before it calls: also a refusal
            assertTrue(e.getMessage().contains("must not contain"), e.getMessage());
        }
    }

    /** DoPut's messages as raw bytes, to send what no Flight client would. */
    private static final io.grpc.MethodDescriptor<byte[], byte[]> RAW_PUT = io.grpc.MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
            .setFullMethodName("arrow.flight.protocol.FlightService/DoPut")
            .setRequestMarshaller(new RawBytes()).setResponseMarshaller(new RawBytes()).build();

    private static final class RawBytes implements io.grpc.MethodDescriptor.Marshaller<byte[]> {
        @Override
        public java.io.InputStream stream(byte[] b) {
            return new java.io.ByteArrayInputStream(b);
        }

        @Override
        public byte[] parse(java.io.InputStream in) {
            try {
                return in.readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    @Test
    void malformedFlightDataIsRefusedAndTheServerCarriesOn() throws Exception {
        String name = unique("fl-bad");
        // FlightData field 2 (data_header) of 5 bytes that are no Arrow message; then one that announces more bytes than it has
        byte[][] messages = {{0x12, 5, 1, 2, 3, 4, 5}, {0x12, 100, 1, 2}, {(byte) 0xc2, 0x3e, (byte) 0xff, (byte) 0xff, 0x7f}};
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             ArrayQueue q = ArrayQueue.create(4, CreateOptions.defaults().name(name))) {
            io.grpc.ManagedChannel ch = io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            try {
                for (byte[] m : messages) {
                    CompletableFuture<io.grpc.Status> closed = new CompletableFuture<>();
                    io.grpc.ClientCall<byte[], byte[]> call = ch.newCall(RAW_PUT, io.grpc.CallOptions.DEFAULT);
                    call.start(new io.grpc.ClientCall.Listener<>() {
                        @Override
                        public void onClose(io.grpc.Status status, io.grpc.Metadata trailers) {
                            closed.complete(status);
                        }
                    }, new io.grpc.Metadata());
                    call.request(1);
                    call.sendMessage(m);
                    // no half-close: the server must end the call on its own
                    io.grpc.Status s = closed.get(10, TimeUnit.SECONDS);
                    assertEquals(io.grpc.Status.Code.INVALID_ARGUMENT, s.getCode(), s.toString());
                    assertTrue(s.getDescription().contains("cannot read"), s.getDescription());
                }
            } finally {
                ch.shutdownNow();
            }
            // the server still serves: a well-formed put into the queue ends it
            try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, 3);
                 ArrayQueue local = ArrayQueue.create(2)) {
                SharedNDArray<F64> a = pool.acquire(Duration.ofSeconds(5));
                a.fill(7.0);
                local.send(a, Duration.ofSeconds(5));
                local.end();
                assertEquals(1, FlightBridge.forward(local, server.location(), name));
            }
            try (SharedNDArray<?> got = q.receive(Duration.ofSeconds(5))) {
                assertEquals(7.0, got.getDouble(2));
            }
        }
    }
}
