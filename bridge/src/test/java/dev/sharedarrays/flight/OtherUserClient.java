package dev.sharedarrays.flight;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What another local user tries against a bridge server on 127.0.0.1 ({@link OtherUserTest} runs
 * it under another uid): read the token file, then every Flight call, each without a token and with
 * a guessed one. Prints {@code TOKEN-FILE <what reading it did>}, then {@code CALL <call> <how>
 * <status>} per attempt, then {@code DONE}.
 *
 * <p>Arguments: port, the token file's path, an array's name, a queue's name.
 */
public final class OtherUserClient {
    private OtherUserClient() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path tokenFile = Path.of(args[1]);
        String array = args[2];
        String queue = args[3];
        try {
            System.out.println("TOKEN-FILE read " + Files.readString(tokenFile).strip().length() + " characters");
        } catch (Exception e) {
            System.out.println("TOKEN-FILE " + e.getClass().getSimpleName());
        }
        var channel = io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try (RootAllocator allocator = new RootAllocator(); FlightClient client = FlightGrpcUtils.createFlightClient(allocator, channel)) {
            FlightCallHeaders guessed = new FlightCallHeaders();
            guessed.insert("authorization", "Bearer 0000000000000000000000000000000000000000000000000000000000000000");
            for (String how : List.of("none", "guessed")) {
                CallOption[] o = how.equals("none")
                        ? new CallOption[] {CallOptions.timeout(10, TimeUnit.SECONDS)}
                        : new CallOption[] {CallOptions.timeout(10, TimeUnit.SECONDS), new HeaderCallOption(guessed)};
                attempt("ListFlights", how, () -> client.listFlights(Criteria.ALL, o).forEach(i -> { }));
                attempt("GetFlightInfo", how, () -> client.getInfo(FlightDescriptor.path("array", array), o));
                attempt("GetSchema", how, () -> client.getSchema(FlightDescriptor.path("array", array), o));
                attempt("DoGet-array", how, () -> {
                    try (var s = client.getStream(new Ticket(("array/" + array).getBytes(StandardCharsets.UTF_8)), o)) {
                        while (s.next()) {
                            // reading another user's array would end here with its data
                        }
                    }
                });
                attempt("DoGet-queue", how, () -> {
                    try (var s = client.getStream(new Ticket(("queue/" + queue).getBytes(StandardCharsets.UTF_8)), o)) {
                        while (s.next()) {
                            // taking another user's messages
                        }
                    }
                });
                // an empty schema into a queue: a producer with nothing to send, whose end ends the queue
                attempt("DoPut-queue", how, () -> put(client, allocator, FlightDescriptor.path("queue", queue), o));
                attempt("DoPut-array", how, () -> put(client, allocator, FlightDescriptor.path("array", array + "-planted"), o));
                attempt("DoAction", how, () -> client.doAction(new Action("anything"), o).forEachRemaining(r -> { }));
                attempt("ListActions", how, () -> client.listActions(o).forEach(a -> { }));
            }
        } finally {
            channel.shutdownNow();
        }
        System.out.println("DONE");
    }

    private static void put(FlightClient client, RootAllocator allocator, FlightDescriptor d, CallOption[] o) throws Exception {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of()), allocator)) {
            FlightClient.ClientStreamListener put = client.startPut(d, root, new SyncPutListener(), o);
            put.completed();
            put.getResult();
        }
    }

    /** A call that may throw anything. */
    private interface Call {
        void run() throws Exception;
    }

    private static void attempt(String call, String how, Call r) {
        String result;
        try {
            r.run();
            result = "OK";
        } catch (FlightRuntimeException e) {
            result = e.status().code().toString();
        } catch (Exception e) {
            result = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println("CALL " + call + " " + how + " " + result);
        System.out.flush();
    }
}
