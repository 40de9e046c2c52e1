package dev.sharedarrays.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F32;
import dev.sharedarrays.F64;
import dev.sharedarrays.I32;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.nio.charset.StandardCharsets;
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
                 var stream = r.client.getStream(new org.apache.arrow.flight.Ticket(("array/" + name).getBytes()), r.arrowOptions())) {
                var root = stream.getRoot();
                assertTrue(stream.next());
                assertEquals(1, root.getRowCount());
                String meta = root.getSchema().getFields().get(0).getMetadata().get("ARROW:extension:metadata");
                assertEquals("{\"shape\":[3,5]}", meta);
                var put = r.client.startPut(org.apache.arrow.flight.FlightDescriptor.path("array", copy), root,
                        new org.apache.arrow.flight.SyncPutListener(), r.arrowOptions());
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
    void aStridedF32ViewIsForwardedWithItsFloatValues() throws Exception {
        String middle = unique("fl-strided");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             ArrayQueue mid = ArrayQueue.create(2, CreateOptions.defaults().name(middle));
             SharedNDArray<F32> a = SharedArrays.create(F32.TYPE, 4, 8);
             ArrayQueue src = ArrayQueue.create(2);
             ArrayPool<F32> dstPool = ArrayPool.create(F32.TYPE, 2, 4, 4);
             ArrayQueue dst = ArrayQueue.create(2)) {
            for (int i = 0; i < 32; i++) {
                a.setDouble(i, i + 0.25);
            }
            ClientOptions o = ClientOptions.defaults();
            CompletableFuture<Long> fwd = FlightBridge.forwardAsync(src, server.location(), middle, o);
            CompletableFuture<Long> pull = FlightBridge.pullAsync(server.location(), middle, dstPool, dst, o);
            src.send(a.slice(1, 0, 8, 2), Duration.ofSeconds(20)); // every other column: not contiguous
            src.end();
            try (SharedNDArray<?> m = dst.receive(Duration.ofSeconds(20))) {
                assertEquals(List.of(4L, 4L), java.util.Arrays.stream(m.shape()).boxed().toList());
                for (int r = 0; r < 4; r++) {
                    for (int c = 0; c < 4; c++) {
                        assertEquals(r * 8 + 2 * c + 0.25, m.getDouble(new long[] {r, c}), "element " + r + ", " + c);
                    }
                }
            }
            assertEquals(1, fwd.get(20, TimeUnit.SECONDS));
            assertEquals(1, pull.get(20, TimeUnit.SECONDS));
        }
    }

    @Test
    void aTicketMayNameRowsOfAnArray() throws Exception {
        String name = unique("fl-rows");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             SharedNDArray<I32> a = SharedArrays.create(I32.TYPE, new long[] {5, 3}, CreateOptions.defaults().name(name));
             var r = new dev.sharedarrays.flight.internal.Remote(server.location(), null, null)) {
            for (int i = 0; i < 15; i++) {
                a.setLong(i, i);
            }
            try (var stream = r.client.getStream(new org.apache.arrow.flight.Ticket(("array/" + name + "?rows=1:3").getBytes()), r.arrowOptions())) {
                assertTrue(stream.next());
                var root = stream.getRoot();
                assertEquals("{\"shape\":[2,3]}", root.getSchema().getFields().get(0).getMetadata().get("ARROW:extension:metadata"));
                var list = (org.apache.arrow.vector.complex.FixedSizeListVector) root.getVector(0);
                var items = (org.apache.arrow.vector.IntVector) list.getDataVector();
                for (int i = 0; i < 6; i++) {
                    assertEquals(3 + i, items.get(i));
                }
            }
            for (String bad : List.of("?rows=3:9", "?rows=2:2", "?rows=x")) {
                var e = assertThrows(org.apache.arrow.flight.FlightRuntimeException.class, () -> {
                    try (var s = r.client.getStream(new org.apache.arrow.flight.Ticket(("array/" + name + bad).getBytes()), r.arrowOptions())) {
                        s.next();
                    }
                });
                assertEquals(org.apache.arrow.flight.FlightStatusCode.INVALID_ARGUMENT, e.status().code(), bad + ": " + e);
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
            assertEquals(null, server.tokenFile(), "a token given is not the default one");
            // a client given no token sends this user's default one, which is not this server's
            FlightBridgeException wrong = assertThrows(FlightBridgeException.class,
                    () -> FlightBridge.pull(server.location(), name, pool, local, ClientOptions.defaults().token(null)));
            assertTrue(wrong.getMessage().contains("UNAUTHENTICATED") && wrong.getMessage().contains("wrong bearer token"), wrong.getMessage());
            FlightBridgeException guess = assertThrows(FlightBridgeException.class,
                    () -> FlightBridge.pull(server.location(), name, pool, local, ClientOptions.defaults().token("guess")));
            assertTrue(guess.getMessage().contains("wrong bearer token"), guess.getMessage());
            assertEquals(2, pool.free());
            // the right token is let in: an ended queue pulls nothing and ends the local one
            q.end();
            assertEquals(0, FlightBridge.pull(server.location(), name, pool, local, ClientOptions.defaults().token("s3cret")));
            assertTrue(local.isEnded());
        }
    }

    @Test
    void theDefaultServerRequiresThisUsersDefaultTokenWhichItsClientsOnThisHostSend() throws Exception {
        String name = unique("fl-deftok");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             ArrayQueue q = ArrayQueue.create(2, CreateOptions.defaults().name(name));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, 4);
             ArrayQueue local = ArrayQueue.create(2)) {
            java.nio.file.Path file = server.tokenFile();
            assertEquals(ServeOptions.defaultTokenFile(), file);
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(file)));
            // a call without any header, and one with a wrong token, are refused
            io.grpc.ManagedChannel ch = io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            try (var bare = org.apache.arrow.flight.FlightGrpcUtils.createFlightClient(new org.apache.arrow.memory.RootAllocator(), ch)) {
                var none = assertThrows(org.apache.arrow.flight.FlightRuntimeException.class, () -> bare.listFlights(
                        org.apache.arrow.flight.Criteria.ALL).forEach(i -> { }));
                assertEquals(org.apache.arrow.flight.FlightStatusCode.UNAUTHENTICATED, none.status().code());
                assertTrue(none.getMessage().contains("needs a bearer token"), none.getMessage());
            } finally {
                ch.shutdownNow();
            }
            // this user's client, given no token, sends the one in the file
            q.end();
            assertEquals(0, FlightBridge.pull(server.location(), name, pool, local, ClientOptions.defaults().token(null)));
            assertTrue(local.isEnded());
            // a second server of this user takes the same token: the file is made once
            String token = java.nio.file.Files.readString(file).strip();
            assertEquals(64, token.length());
            try (BridgeServer second = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0))) {
                assertEquals(token, java.nio.file.Files.readString(second.tokenFile()).strip());
            }
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
    void aDefaultTokenFileOthersMayReadIsRefused() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory(java.nio.file.Path.of("target"), "token-modes");
        java.nio.file.Path file = dir.resolve("flight-token");
        try {
            java.nio.file.Files.writeString(file, "abc\n");
            java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> dev.sharedarrays.flight.internal.TokenFile.readOrCreate(file));
            assertTrue(e.getMessage().contains("has mode 0644: other users may read the token; chmod 600"), e.getMessage());
            java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            assertEquals("abc", dev.sharedarrays.flight.internal.TokenFile.readOrCreate(file));
            java.nio.file.Files.delete(file);
            String made = dev.sharedarrays.flight.internal.TokenFile.readOrCreate(file);
            assertEquals(64, made.length());
            assertEquals(made, dev.sharedarrays.flight.internal.TokenFile.readIfPresent(file));
        } finally {
            java.nio.file.Files.deleteIfExists(file);
            java.nio.file.Files.deleteIfExists(dir);
        }
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

    /** The headers of a call that carries the server's (this user's default) token. */
    static io.grpc.Metadata bearer(BridgeServer server) throws java.io.IOException {
        io.grpc.Metadata h = new io.grpc.Metadata();
        h.put(io.grpc.Metadata.Key.of("authorization", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
                "Bearer " + java.nio.file.Files.readString(server.tokenFile()).strip());
        return h;
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
                    io.grpc.ClientCall<byte[], byte[]> call = ch.newCall(RawFlight.DO_PUT, io.grpc.CallOptions.DEFAULT);
                    call.start(new io.grpc.ClientCall.Listener<>() {
                        @Override
                        public void onClose(io.grpc.Status status, io.grpc.Metadata trailers) {
                            closed.complete(status);
                        }
                    }, bearer(server));
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

    /** Writes v at b[at] little-endian. */
    private static void putIntLE(byte[] b, int at, int v) {
        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(at, v);
    }

    private static int getIntLE(byte[] b, int at) {
        return java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(at);
    }

    /**
     * An Arrow schema message whose one field nests {@code depth} fields deep; with {@code cycle}, the
     * outermost field's child is the field itself (an offset that points back: flatbuffers read offsets
     * as signed ints, so a peer can make any graph of tables).
     */
    static byte[] nestedSchema(int depth, boolean cycle) {
        var b = new com.google.flatbuffers.FlatBufferBuilder(1024);
        int child = -1;
        int inner = 0;
        for (int d = 0; d < depth; d++) {
            int name = b.createString("f");
            org.apache.arrow.flatbuf.Null.startNull(b);
            int type = org.apache.arrow.flatbuf.Null.endNull(b);
            int children = org.apache.arrow.flatbuf.Field.createChildrenVector(b, child < 0 ? new int[0] : new int[] {child});
            int f = org.apache.arrow.flatbuf.Field.createField(b, name, true, org.apache.arrow.flatbuf.Type.Null, type, 0, children, 0);
            inner = child;
            child = f;
        }
        int fields = org.apache.arrow.flatbuf.Schema.createFieldsVector(b, new int[] {child});
        int schema = org.apache.arrow.flatbuf.Schema.createSchema(b, org.apache.arrow.flatbuf.Endianness.Little, fields, 0, 0);
        b.finish(org.apache.arrow.flatbuf.Message.createMessage(b, org.apache.arrow.flatbuf.MetadataVersion.V5,
                org.apache.arrow.flatbuf.MessageHeader.Schema, schema, 0, 0));
        byte[] out = b.sizedByteArray();
        if (cycle) {
            // the outer field's children vector holds one offset, to the inner field: point it at the outer one
            int innerAt = out.length - inner;
            int outerAt = out.length - child;
            for (int e = 0; e + 4 <= out.length; e += 4) {
                if (e + getIntLE(out, e) == innerAt) {
                    putIntLE(out, e, outerAt - e);
                    return out;
                }
            }
            throw new AssertionError("no offset to the inner field found");
        }
        return out;
    }

    /** FlightData: field 1 the descriptor, field 2 the IPC header. */
    static byte[] flightData(org.apache.arrow.flight.FlightDescriptor d, byte[] header) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        java.nio.ByteBuffer desc = d.serialize();
        byte[] db = new byte[desc.remaining()];
        desc.get(db);
        for (byte[] field : new byte[][] {db, header}) {
            o.write(field == db ? 0x0a : 0x12);
            int n = field.length;
            while ((n & ~0x7f) != 0) {
                o.write((n & 0x7f) | 0x80);
                n >>>= 7;
            }
            o.write(n);
            o.writeBytes(field);
        }
        return o.toByteArray();
    }

    @Test
    void aSchemaWhoseFieldTreeIsACycleOr10000DeepIsAnsweredAndTheServerCarriesOn() throws Exception {
        String name = unique("fl-deep");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             ArrayQueue q = ArrayQueue.create(4, CreateOptions.defaults().name(name))) {
            io.grpc.ManagedChannel ch = io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            try {
                for (byte[] header : List.of(nestedSchema(2, true), nestedSchema(10_000, false))) {
                    CompletableFuture<io.grpc.Status> closed = new CompletableFuture<>();
                    io.grpc.ClientCall<byte[], byte[]> call = ch.newCall(RawFlight.DO_PUT, io.grpc.CallOptions.DEFAULT);
                    call.start(new io.grpc.ClientCall.Listener<>() {
                        @Override
                        public void onClose(io.grpc.Status status, io.grpc.Metadata trailers) {
                            closed.complete(status);
                        }
                    }, bearer(server));
                    call.request(1);
                    call.sendMessage(flightData(org.apache.arrow.flight.FlightDescriptor.path("queue", name), header));
                    call.halfClose();
                    io.grpc.Status s = closed.get(10, TimeUnit.SECONDS);
                    System.out.println("[deep schema] " + s);
                    assertEquals(io.grpc.Status.Code.INVALID_ARGUMENT, s.getCode(), s.toString());
                    assertTrue(s.getDescription().contains("(or its field tree is a cycle)"), s.getDescription());
                }
            } finally {
                ch.shutdownNow();
            }
            assertTrue(!q.isEnded(), "a refused put is no producer's end");
            // the server still serves
            q.end();
            try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, 4); ArrayQueue local = ArrayQueue.create(2)) {
                assertEquals(0, FlightBridge.pull(server.location(), name, pool, local));
            }
        }
    }

    @Test
    void aTlsKeyThatIsNotTheCertificatesIsRefusedAtStart() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("sa-flight-tls");
        try {
            java.nio.file.Path cert = dir.resolve("cert.pem");
            java.nio.file.Path key = dir.resolve("key.pem");
            java.nio.file.Path otherCert = dir.resolve("other-cert.pem");
            java.nio.file.Path otherKey = dir.resolve("other-key.pem");
            if (!selfSigned(cert, key) || !selfSigned(otherCert, otherKey)) {
                org.junit.jupiter.api.Assumptions.abort("no openssl to make a certificate");
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).tls(cert, otherKey)));
            assertTrue(e.getMessage().contains("does not belong to the certificate " + cert), e.getMessage());
            // the right pair starts
            FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).tls(cert, key)).close();
        } finally {
            try (var all = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path p : all.toList()) {
                    java.nio.file.Files.delete(p);
                }
            }
            java.nio.file.Files.delete(dir);
        }
    }

    /** A self-signed certificate for localhost and its key (PEM, the key PKCS#8); false without openssl. */
    static boolean selfSigned(java.nio.file.Path cert, java.nio.file.Path key) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(), "-out",
                    cert.toString(), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost")
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            return false;
        }
        p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor());
        return true;
    }

    @Test
    void aConnectionThatSpeaksNoHttp2CostsNoLogLineAtInfo() throws Exception {
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        // read through List.copyOf: a synchronized list's toArray holds its lock, its stream does not (gRPC logs meanwhile)
        java.util.List<java.util.logging.LogRecord> records = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        h.setLevel(java.util.logging.Level.ALL);
        root.addHandler(h);
        java.util.logging.Logger transport = java.util.logging.Logger.getLogger("io.grpc.netty.NettyServerTransport.connections");
        java.util.logging.Level was = transport.getLevel();
        transport.setLevel(java.util.logging.Level.FINE);
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0))) {
            for (int i = 0; i < 20; i++) {
                try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
                    s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\ngarbage".getBytes(StandardCharsets.US_ASCII));
                    s.setSoTimeout(2000);
                    s.getInputStream().read(new byte[100]);
                } catch (java.io.IOException e) {
                    // the server closed it: as it should
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (List.copyOf(records).stream().filter(r -> r.getLoggerName().startsWith("io.grpc")).count() < 20 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } finally {
            root.removeHandler(h);
            transport.setLevel(was);
        }
        List<java.util.logging.LogRecord> grpc = List.copyOf(records).stream().filter(r -> r.getLoggerName().startsWith("io.grpc")).toList();
        System.out.println("[log] " + grpc.size() + " records from gRPC, e.g. " + (grpc.isEmpty() ? "none" : grpc.get(0).getLevel() + " "
                + grpc.get(0).getMessage()));
        assertEquals(20, grpc.size(), "one line a connection at FINE");
        for (java.util.logging.LogRecord r : grpc) {
            assertEquals(java.util.logging.Level.FINE, r.getLevel());
            assertEquals(null, r.getThrown(), "a stack trace per connection");
            assertTrue(r.getMessage().length() < 300, r.getMessage());
        }
    }
}
