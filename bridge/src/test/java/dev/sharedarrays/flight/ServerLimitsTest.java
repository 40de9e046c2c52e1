package dev.sharedarrays.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.flight.internal.TensorSchema;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * Remote clients must not take what local processes need, nor make the server hold what it
 * cannot give back: streams per queue share one attachment (local processes can still attach),
 * a reader that stops reading holds a bounded number of slots and is ended after the stall
 * timeout, the pools the server makes for puts are bounded and go once unused, and a schema
 * whose field tree is a cycle or 10,000 deep is answered. Real sockets, one JVM (server and
 * clients on threads); the local consumer is this JVM too.
 */
class ServerLimitsTest {
    private static String unique(String base) {
        return base + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    /** A Ticket message: field 1, the bytes of "kind/name". */
    private static byte[] ticket(String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        byte[] t = new byte[p.length + 2];
        t[0] = 0x0a;
        t[1] = (byte) p.length;
        System.arraycopy(p, 0, t, 2, p.length);
        return t;
    }

    /** A raw DoGet that asks for {@code messages} messages and no more (a client that stops reading); its end, when it comes. */
    private static CompletableFuture<Status> stalledGet(ManagedChannel ch, BridgeServer server, String path, int messages,
                                                        AtomicInteger received) throws IOException {
        return stalledGet(ch, server, path, messages, received, new CompletableFuture<>());
    }

    /** The same; {@code started} gets the call, whose request(n) reads on. */
    private static CompletableFuture<Status> stalledGet(ManagedChannel ch, BridgeServer server, String path, int messages,
                                                        AtomicInteger received, CompletableFuture<ClientCall<byte[], byte[]>> started)
            throws IOException {
        CompletableFuture<Status> closed = new CompletableFuture<>();
        ClientCall<byte[], byte[]> call = ch.newCall(RawFlight.DO_GET, CallOptions.DEFAULT);
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onMessage(byte[] m) {
                received.incrementAndGet();
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                closed.complete(status);
            }
        }, LoopbackBridgeTest.bearer(server));
        call.request(messages);
        call.sendMessage(ticket(path));
        call.halfClose();
        started.complete(call);
        return closed;
    }

    private static ManagedChannel channel(BridgeServer server) {
        // a small window, as a reader that takes its time would have: the server cannot push far past it
        return NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().flowControlWindow(64 << 10).build();
    }

    @Test
    void remoteStreamsOnOneQueueShareOneAttachmentAndPastTheCapAreRefused() throws Exception {
        String name = unique("fl-cap");
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).maxStreamsPerSegment(16));
             ArrayQueue q = ArrayQueue.create(4, CreateOptions.defaults().name(name))) {
            ManagedChannel ch = channel(server);
            try {
                List<CompletableFuture<Status>> calls = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    calls.add(stalledGet(ch, server, "queue/" + name, 1, new AtomicInteger()));
                }
                // the refused ones end at once; the 16 admitted wait on the empty queue
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (calls.stream().filter(CompletableFuture::isDone).count() < 48 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                List<Status> refused = calls.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join).toList();
                assertEquals(48, refused.size(), "64 streams, 16 admitted");
                for (Status s : refused) {
                    assertEquals(Status.Code.RESOURCE_EXHAUSTED, s.getCode(), s.toString());
                    assertTrue(s.getDescription().contains("has 16 remote streams already") && s.getDescription().contains("maxStreamsPerSegment"),
                            s.getDescription());
                }
                // the server holds one attachment: local processes still attach (this one, and 60 more times)
                SegmentInfo info = SharedArrays.inspect(q.handle());
                long serverSlots = info.attached().stream().filter(a -> a.pid() == ProcessHandle.current().pid()).count();
                assertTrue(serverSlots <= 2, "the server's streams took " + serverSlots + " attach slots: " + info.attached());
                List<ArrayQueue> local = new ArrayList<>();
                try {
                    for (int i = 0; i < 60; i++) {
                        local.add(ArrayQueue.attach(q.handle()));
                    }
                } finally {
                    local.forEach(ArrayQueue::close);
                }
                // the queue's end ends the admitted streams
                q.end();
                int ok = 0;
                for (CompletableFuture<Status> c : calls) {
                    ok += c.get(20, TimeUnit.SECONDS).isOk() ? 1 : 0;
                }
                assertEquals(16, ok);
            } finally {
                ch.shutdownNow();
            }
        }
    }

    @Test
    void aReaderThatStopsReadingHoldsABoundedShareOfTheSlotsAndIsEndedAfterTheStallTimeout() throws Exception {
        String name = unique("fl-slow");
        int inFlight = 2;
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0)
                .maxInFlightPerStream(inFlight).stallTimeout(Duration.ofSeconds(2)));
             ArrayQueue q = ArrayQueue.create(4, CreateOptions.defaults().name(name));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 8, 64, 1024)) { // 512 KiB slots: a few fill the reader's window
            ManagedChannel ch = channel(server);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger sent = new AtomicInteger();
            AtomicInteger local = new AtomicInteger();
            try {
                AtomicInteger remote = new AtomicInteger();
                CompletableFuture<ClientCall<byte[], byte[]>> call = new CompletableFuture<>();
                CompletableFuture<Status> slow = stalledGet(ch, server, "queue/" + name, 1, remote, call);
                // threads of their own: the common pool has one thread on two cores
                java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
                CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                    int k = 0;
                    while (!stop.get()) {
                        SharedNDArray<F64> s = pool.tryAcquire();
                        if (s == null) {
                            Thread.onSpinWait();
                            continue;
                        }
                        BridgeChild.fill(s, k++);
                        while (!q.trySend(s)) {
                            if (stop.get()) {
                                s.close();
                                return;
                            }
                            Thread.onSpinWait();
                        }
                        sent.incrementAndGet();
                    }
                }, threads);
                CompletableFuture<Void> consumer = CompletableFuture.runAsync(() -> {
                    while (!stop.get()) {
                        try (SharedNDArray<?> m = q.receive(Duration.ofSeconds(30))) {
                            local.incrementAndGet();
                            try {
                                Thread.sleep(1); // a consumer of 1 ms a message: ~1000 a second
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    }
                }, threads);
                threads.shutdown();
                // while the remote reader sits on its messages, the local consumer keeps its pace
                Thread.sleep(1500);
                int before = local.get();
                Thread.sleep(1000);
                int perSecond = local.get() - before;
                int held = (int) (8 - pool.free() - q.size());
                System.out.println("[slow reader] local consumer " + perSecond + " msg/s with the stalled stream open;"
                        + " slots not in the queue: " + held + "; the remote client got " + remote.get());
                assertTrue(perSecond > 200, "the local consumer starved: " + perSecond + " messages in a second");
                // (free and size are read one after the other: a message in transit between them counts once more)
                assertTrue(held <= inFlight + 3, held + " slots held outside the queue: the reader's share is " + inFlight
                        + " (and one each the local producer and consumer hold)");
                // the stall timeout (2 s) and a second for the status: the stream is reset, and the slots it held go back
                stop.set(true);
                producer.get(30, TimeUnit.SECONDS);
                consumer.get(30, TimeUnit.SECONDS);
                drain(q);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (pool.free() < 8 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                System.out.println("[slow reader] " + pool.free() + " of 8 slots free; the client still reads nothing: " + slow.isDone());
                assertEquals(8, pool.free(), "the slots the stalled stream held did not come back");
                // it reads nothing, so the status cannot reach it behind its messages; once it reads on, it learns of the end
                call.join().request(1000);
                Status s = slow.get(10, TimeUnit.SECONDS);
                System.out.println("[slow reader] the stream ended: " + s);
                assertTrue(s.getCode() == Status.Code.CANCELLED || s.getCode() == Status.Code.DEADLINE_EXCEEDED, s.toString());
            } finally {
                stop.set(true);
                ch.shutdownNow();
            }
        }
    }

    private static void drain(ArrayQueue q) {
        while (q.size() > 0) {
            try (SharedNDArray<?> m = q.receive(Duration.ofSeconds(5))) {
                assertTrue(m != null);
            }
        }
    }

    /** The shm directory's pools this process made that {@code before} did not list. */
    private static Set<String> newPools(Set<String> before) {
        long me = ProcessHandle.current().pid();
        return SharedArrays.list().stream().filter(i -> i.kind() == SegmentInfo.Kind.POOL && i.creator().pid() == me)
                .map(i -> String.valueOf(i.path())).filter(p -> !before.contains(p)).collect(Collectors.toSet());
    }

    private static void put(FlightClient client, RootAllocator allocator, String queue, long[] shape, boolean batch,
                            org.apache.arrow.flight.CallOption... o) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(new TensorSchema(F64.TYPE, shape).toArrow(), allocator)) {
            FlightClient.ClientStreamListener put = client.startPut(FlightDescriptor.path("queue", queue), root, new SyncPutListener(), o);
            if (batch) {
                // one tensor of zeros (the column is a fixed-size list of the elements, no nulls)
                var list = (org.apache.arrow.vector.complex.FixedSizeListVector) root.getVector(0);
                var items = (org.apache.arrow.vector.Float8Vector) list.getDataVector();
                int n = list.getListSize();
                for (int j = 0; j < n; j++) {
                    items.setSafe(j, 0.0);
                }
                items.setValueCount(n);
                list.setNotNull(0);
                list.setValueCount(1);
                root.setRowCount(1);
                put.putNext();
            }
            put.completed();
            put.getResult();
        }
    }

    @Test
    void thePoolsTheServerMakesForPutsAreBoundedAndGoOnceUnused() throws Exception {
        String name = unique("fl-pools");
        Set<String> before = newPools(Set.of());
        List<ArrayQueue> queues = new ArrayList<>();
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0).maxPools(3).maxPoolBytes(64L << 20));
             RootAllocator allocator = new RootAllocator();
             var remote = new dev.sharedarrays.flight.internal.Remote(server.location(), null, null)) {
            FlightClient client = remote.client;
            // (a put's end ends its queue: each put has a queue of its own)
            java.util.function.IntFunction<String> queue = i -> {
                queues.add(ArrayQueue.create(8, CreateOptions.defaults().name(name + "-" + i)));
                return name + "-" + i;
            };
            // schema-only puts of large shapes (1 to 64 GiB pools, were they made): no pool
            int i = 0;
            for (long rows : new long[] {1024, 2048, 4096, 8192, 16384, 32768, 65536}) {
                put(client, allocator, queue.apply(i++), new long[] {rows, 1024, 16}, false, remote.arrowOptions());
            }
            assertEquals(Set.of(), newPools(before), "a schema alone made a pool");
            // puts with batches into 3 queues: 3 pools while their messages wait; a 4th is refused
            for (long n : new long[] {4, 8, 16}) {
                put(client, allocator, queue.apply(i++), new long[] {n}, true, remote.arrowOptions());
            }
            assertEquals(3, newPools(before).size());
            String fourth = queue.apply(i++);
            FlightRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(FlightRuntimeException.class,
                    () -> put(client, allocator, fourth, new long[] {32}, true, remote.arrowOptions()));
            assertEquals(FlightStatusCode.RESOURCE_EXHAUSTED, e.status().code(), e.toString());
            assertTrue(e.getMessage().contains("maxPools"), e.getMessage());
            // the messages are received: their slots go back, and the unused pools with them
            int got = 0;
            for (ArrayQueue q : queues.subList(7, 10)) {
                SharedNDArray<?> m;
                while ((m = q.receive(Duration.ofSeconds(5))) != null) {
                    m.close();
                    got++;
                }
            }
            assertEquals(3, got);
            assertTrue(!queues.get(10).isEnded(), "a refused put is no producer's end");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!newPools(before).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(Set.of(), newPools(before), "the server kept pools no stream used");
            // with the pools gone, one shape too large for the bytes allowed is refused, naming the bytes
            String large = queue.apply(i++);
            FlightRuntimeException big = org.junit.jupiter.api.Assertions.assertThrows(FlightRuntimeException.class,
                    () -> put(client, allocator, large, new long[] {8192, 1024}, true, remote.arrowOptions()));
            assertEquals(FlightStatusCode.RESOURCE_EXHAUSTED, big.status().code(), big.toString());
            assertTrue(big.getMessage().contains("needs 536870912 bytes") && big.getMessage().contains("maxPoolBytes"), big.getMessage());
        } finally {
            queues.forEach(ArrayQueue::close);
        }
    }

    @Test
    void aPutIntoAFullShmDirectoryIsResourceExhaustedWithTheBytesFreeAndWanted() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root to mount a small tmpfs");
        java.nio.file.Path mnt = java.nio.file.Files.createTempDirectory("sa-flight-small-shm");
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mnt.toString()).redirectErrorStream(true).start();
        String out = new String(m.getInputStream().readAllBytes());
        if (m.waitFor() != 0) {
            java.nio.file.Files.delete(mnt);
            org.junit.jupiter.api.Assumptions.abort("mounting a tmpfs is not permitted here: " + out.strip());
        }
        try (Proc server = new Proc("serve on a 1 MiB shm", Proc.java("dev.sharedarrays.flight.internal.ServeCommand", "--listen", "127.0.0.1:0"),
                java.util.Map.of("SHARED_ARRAYS_DIR", mnt.toString()));
             RootAllocator allocator = new RootAllocator()) {
            String line = server.expect("serving", 60);
            String location = line.substring("serving ".length(), line.indexOf(';'));
            try (var remote = new dev.sharedarrays.flight.internal.Remote(location, null, null);
                 VectorSchemaRoot root = VectorSchemaRoot.create(new TensorSchema(F64.TYPE, new long[] {512, 1024}).toArrow(), allocator)) {
                var list = (org.apache.arrow.vector.complex.FixedSizeListVector) root.getVector(0);
                var items = (org.apache.arrow.vector.Float8Vector) list.getDataVector();
                for (int j = 0; j < list.getListSize(); j++) {
                    items.setSafe(j, j);
                }
                items.setValueCount(list.getListSize());
                list.setNotNull(0);
                list.setValueCount(1);
                root.setRowCount(1);
                FlightRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(FlightRuntimeException.class, () -> {
                    FlightClient.ClientStreamListener put = remote.client.startPut(FlightDescriptor.path("array", "too-big"), root,
                            new SyncPutListener(), remote.arrowOptions());
                    put.putNext();
                    put.completed();
                    put.getResult();
                });
                System.out.println("[full shm] " + e.status().code() + ": " + e.getMessage());
                assertEquals(FlightStatusCode.RESOURCE_EXHAUSTED, e.status().code(), e.toString());
                assertTrue(e.getMessage().contains("MiB free") && e.getMessage().contains("requested"), e.getMessage());
            }
            try (var files = java.nio.file.Files.list(mnt)) {
                assertEquals(List.of(), files.toList(), "a refused put left something behind");
            }
        } finally {
            new ProcessBuilder("umount", mnt.toString()).start().waitFor();
            java.nio.file.Files.deleteIfExists(mnt);
        }
    }
}
