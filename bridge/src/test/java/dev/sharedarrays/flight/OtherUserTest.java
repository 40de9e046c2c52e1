package dev.sharedarrays.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Loopback is no trust boundary: another local user (made by this test, removed after) runs a
 * Flight client against the default server on 127.0.0.1. It cannot read the token file, and every
 * call it makes, without a token or with a guessed one, is refused: no array read, none planted,
 * no queue ended. Needs root (useradd, setpriv); without root it is skipped.
 */
class OtherUserTest {
    @Test
    void anotherLocalUserIsRefusedEveryCallOfTheDefaultServer() throws Exception {
        Assumptions.assumeTrue(OtherUser.available(), "needs root, useradd and setpriv to run a client as another user");
        String tag = ProcessHandle.current().pid() + "-" + System.nanoTime();
        String arrayName = "fl-private-" + tag;
        String queueName = "fl-privq-" + tag;
        try (BridgeServer server = FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0));
             SharedNDArray<F64> secret = SharedArrays.create(F64.TYPE, new long[] {4}, CreateOptions.defaults().name(arrayName));
             ArrayQueue q = ArrayQueue.create(2, CreateOptions.defaults().name(queueName));
             OtherUser other = new OtherUser()) {
            secret.fill(42.0);
            List<String> calls = new ArrayList<>();
            try (Proc client = new Proc("other user " + other.uid, other.java(OtherUserClient.class.getName(), String.valueOf(server.port()),
                    server.tokenFile().toString(), arrayName, queueName), Map.of("HOME", "/nonexistent"))) {
                String tokenFile = client.expect("TOKEN-FILE", 60);
                System.out.println("[other user " + other.uid + "] " + tokenFile);
                assertEquals("TOKEN-FILE AccessDeniedException", tokenFile, "another user must not read the token file");
                while (true) {
                    String line = client.expect("", 60);
                    if (line.equals("DONE")) {
                        break;
                    }
                    System.out.println("[other user " + other.uid + "] " + line);
                    calls.add(line);
                }
            }
            assertEquals(18, calls.size(), "9 calls, without a token and with a guessed one: " + calls);
            for (String c : calls) {
                assertTrue(c.endsWith(" UNAUTHENTICATED"), "another local user got past the token: " + c);
            }
            // and nothing happened behind the refusals
            assertFalse(q.isEnded(), "another user ended the queue");
            assertEquals(42.0, secret.getDouble(3));
            assertFalse(Files.exists(SharedArrays.shmDirectory().resolve(arrayName + "-planted")), "another user planted an array");
        } finally {
            if (Files.exists(SharedArrays.shmDirectory().resolve(arrayName + "-planted"))) {
                SharedArrays.remove(ArrayHandle.parse("shm://" + arrayName + "-planted"), true);
            }
        }
    }
}
