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
 * {@code sharedarrays serve [--listen HOST:PORT] [--token-file F] [--tls CERT KEY]}: runs a bridge
 * server until the process is stopped. The library's command line calls {@link #run} when this
 * module is on the class path.
 */
public final class ServeCommand {
    public static final String USAGE = "serve [--listen HOST:PORT] [--token-file F] [--tls CERT KEY]";

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
        } catch (IllegalArgumentException | FlightBridgeException e) {
            err.println("sharedarrays: " + e.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "sharedarrays-serve-stop"));
        out.println("serving " + server.location() + (o.token() != null ? " (bearer token required)" : " (no token: loopback only)"));
        out.flush();
        try {
            server.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private static String value(String[] args, int i, String usage) {
        if (i >= args.length) {
            throw new IllegalArgumentException("missing value: " + usage);
        }
        return args[i];
    }
}
