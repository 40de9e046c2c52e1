package dev.sharedarrays.flight.internal;

import dev.sharedarrays.flight.BridgeServer;
import dev.sharedarrays.flight.FlightBridge;
import dev.sharedarrays.flight.FlightBridgeException;
import dev.sharedarrays.flight.ServeOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code sharedarrays serve [--listen HOST:PORT] [--token-file F] [--tls CERT KEY]} and the limits of
 * {@link ServeOptions} ({@code --max-streams}, {@code --max-in-flight}, {@code --stall-timeout},
 * {@code --max-pools}, {@code --max-pool-bytes}): runs a bridge server until the process is stopped.
 * The library's command line finds it as {@link ServeCli}.
 */
public final class ServeCommand {
    public static final String USAGE = "serve [--listen HOST:PORT] [--token-file F] [--tls CERT KEY] [--max-streams N]"
            + " [--max-in-flight N] [--stall-timeout SECONDS] [--max-pools N] [--max-pool-bytes N]";

    private ServeCommand() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** args without the word "serve"; returns the exit status (2: usage). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        ServeOptions o = ServeOptions.defaults();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--listen" -> {
                        String v = value(args, ++i, "--listen HOST:PORT");
                        int colon = v.lastIndexOf(':');
                        if (colon < 1) {
                            throw new IllegalArgumentException("--listen takes HOST:PORT, e.g. 0.0.0.0:8815; got " + v);
                        }
                        int port;
                        try {
                            port = Integer.parseInt(v.substring(colon + 1));
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("--listen: the port of " + v + " is not a number");
                        }
                        String host = v.substring(0, colon);
                        if (host.startsWith("[") && host.endsWith("]")) {
                            host = host.substring(1, host.length() - 1);
                        }
                        o = o.listen(host, port);
                    }
                    case "--token-file" -> {
                        Path f = Path.of(value(args, ++i, "--token-file FILE"));
                        try {
                            o = o.token(Files.readString(f));
                        } catch (IOException e) {
                            throw new IllegalArgumentException("cannot read the token file " + f + ": " + e);
                        }
                    }
                    case "--tls" -> {
                        Path cert = Path.of(value(args, ++i, "--tls CERT KEY"));
                        Path key = Path.of(value(args, ++i, "--tls CERT KEY"));
                        o = o.tls(cert, key);
                    }
                    case "--max-streams" -> o = o.maxStreamsPerSegment(number(value(args, ++i, "--max-streams N"), "--max-streams"));
                    case "--max-in-flight" -> o = o.maxInFlightPerStream(number(value(args, ++i, "--max-in-flight N"), "--max-in-flight"));
                    case "--stall-timeout" -> {
                        String v = value(args, ++i, "--stall-timeout SECONDS");
                        try {
                            o = o.stallTimeout(java.time.Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000)));
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("--stall-timeout takes seconds, e.g. 10 or 0.5; got " + v);
                        }
                    }
                    case "--max-pools" -> o = o.maxPools(number(value(args, ++i, "--max-pools N"), "--max-pools"));
                    case "--max-pool-bytes" -> {
                        String v = value(args, ++i, "--max-pool-bytes N");
                        try {
                            o = o.maxPoolBytes(Long.parseLong(v));
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("--max-pool-bytes takes a number of bytes; got " + v);
                        }
                    }
                    default -> throw new IllegalArgumentException("serve: unknown option '" + args[i] + "'; usage: sharedarrays " + USAGE);
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("sharedarrays: " + e.getMessage());
            return 2;
        }
        BridgeServer server;
        try {
            server = FlightBridge.serve(o);
        } catch (IllegalArgumentException | IllegalStateException | FlightBridgeException e) {
            err.println("sharedarrays: " + e.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "sharedarrays-serve-stop"));
        out.println("serving " + server.location() + "; bearer token required: " + (server.tokenFile() != null
                ? "this user's default, in " + server.tokenFile() : "the one of --token-file"));
        out.flush();
        try {
            server.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private static int number(String v, String option) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number; got " + v);
        }
    }

    private static String value(String[] args, int i, String usage) {
        if (i >= args.length) {
            throw new IllegalArgumentException("missing value: " + usage);
        }
        return args[i];
    }
}
