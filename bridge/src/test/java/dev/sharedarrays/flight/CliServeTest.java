package dev.sharedarrays.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The library's command line finds the bridge's serve through ServiceLoader (it names no bridge class). */
class CliServeTest {
    @Test
    void theLibrarysCommandLineRunsTheBridgesServe() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Cli.run(new String[] {"serve", "--listen", "no-port"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String said = err.toString(StandardCharsets.UTF_8);
        // the bridge's own argument check answered: serve was found and run
        assertEquals(2, status, said);
        assertTrue(said.contains("--listen takes HOST:PORT"), said);
    }
}
