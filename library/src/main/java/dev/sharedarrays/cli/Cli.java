package dev.sharedarrays.cli;

import dev.sharedarrays.internal.os.Units;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SharedArrayException;
import dev.sharedarrays.SharedArrays;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * {@code bin/sharedarrays ls | inspect <name|handle> | sweep [--dry-run] | rm [--force] <name|handle> | doctor | serve}.
 * Exit status 0 on success, 1 on an error, 2 on a usage error.
 */
public final class Cli {
    private static final String USAGE = """
            usage: sharedarrays <command>
              ls                        list shared arrays in the shm directory (%s)
              inspect <name|handle>     show one array: dtype, shape, creator, attached processes
              sweep [--dry-run]         remove arrays no process uses any more (all died), except persistent ones
              rm [--force] <name|handle>
                                        remove one array; one that live processes have open only with
                                        --force (they keep their mapping)
              doctor                    check what makes shared memory fail here, with fixes (exit 1 if a check fails)
              serve [--listen HOST:PORT] [--token-file F] [--tls CERT KEY]
                                        offer this host's arrays and queues over Arrow Flight (default
                                        127.0.0.1:8815; a token is required beyond loopback)
            environment: SHARED_ARRAYS_DIR moves the shm directory (default /dev/shm)""";

    private Cli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
            (args.length == 0 ? err : out).println(usage());
            return args.length == 0 ? 2 : 0;
        }
        try {
            switch (args[0]) {
                case "ls" -> {
                    expect(args, 1, 1);
                    ls(out);
                }
                case "inspect" -> {
                    expect(args, 2, 2);
                    inspect(handle(args[1]), out);
                }
                case "sweep" -> {
                    boolean dry = args.length == 2 && args[1].equals("--dry-run");
                    if (args.length > 2 || (args.length == 2 && !dry)) {
                        throw new UsageException("sweep takes only --dry-run");
                    }
                    List<Path> removed = SharedArrays.sweep(dry);
                    for (Path p : removed) {
                        out.println((dry ? "would remove " : "removed ") + p);
                    }
                    out.println((dry ? "would remove " : "removed ") + removed.size() + " segment(s)");
                }
                case "rm" -> {
                    boolean force = args.length == 3 && args[1].equals("--force");
                    if (args.length != 2 + (force ? 1 : 0)) {
                        throw new UsageException("rm takes one name or handle, and --force before it");
                    }
                    out.println("removed " + SharedArrays.remove(handle(args[args.length - 1]), force));
                }
                case "doctor" -> {
                    expect(args, 1, 1);
                    return Doctor.run(out);
                }
                case "serve" -> {
                    return serve(args, out, err);
                }
                default -> throw new UsageException("unknown command '" + args[0] + "'");
            }
            return 0;
        } catch (UsageException e) {
            err.println("sharedarrays: " + e.getMessage());
            err.println(usage());
            return 2;
        } catch (SharedArrayException | IllegalArgumentException | IllegalStateException e) {
            err.println("sharedarrays: " + e.getMessage());
            return 1;
        }
    }

    /**
     * The Flight bridge is a module of its own (Arrow is not a dependency of the library): its
     * {@code serve} is a {@link CliCommand} found through {@link ServiceLoader} when
     * bin/sharedarrays put it on the class path.
     */
    private static int serve(String[] args, PrintStream out, PrintStream err) {
        for (CliCommand c : ServiceLoader.load(CliCommand.class)) {
            if (c.name().equals("serve")) {
                return c.run(Arrays.copyOfRange(args, 1, args.length), out, err);
            }
        }
        err.println("sharedarrays: serve needs the Flight bridge (module bridge/, sharedarrays-flight) on the class path;"
                + " bin/sharedarrays serve adds it");
        return 1;
    }

    private static String usage() {
        String dir;
        try {
            dir = SharedArrays.shmDirectory().toString();
        } catch (IllegalStateException e) {
            dir = e.getMessage();
        }
        return USAGE.formatted(dir);
    }

    private static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    private static void expect(String[] args, int min, int max) {
        if (args.length < min || args.length > max) {
            throw new UsageException(args[0] + (min == 1 ? " takes no arguments" : " takes one argument"));
        }
    }

    /** A bare name means shm://name. */
    private static ArrayHandle handle(String arg) {
        return arg.contains("://") ? ArrayHandle.parse(arg) : ArrayHandle.parse("shm://" + arg);
    }

    static void ls(PrintStream out) {
        List<SegmentInfo> all = SharedArrays.list();
        String fmt = "%-28s %-14s %-5s %-18s %10s %-8s %-10s %-10s %s%n";
        out.printf(fmt, "NAME", "KIND", "DTYPE", "SHAPE", "SIZE", "BACKEND", "LIFETIME", "CREATOR", "ATTACHED");
        for (SegmentInfo i : all) {
            String name = i.backend() == dev.sharedarrays.Backend.FILE ? i.path().toString() : i.path().getFileName().toString();
            out.printf(fmt, name, i.fill(), i.dtype(), shape(i.shape()), Units.bytes(i.bytes()), i.backend().id(),
                    i.lifetime().name().toLowerCase(java.util.Locale.ROOT),
                    i.creator().pid() + (i.creator().alive() ? " alive" : " dead"), attached(i));
        }
        out.println(all.size() + " segment(s)" + (all.isEmpty() ? "" : ", " + all.stream().filter(i -> !i.inUse() && !i.persistent()).count()
                + " with no live process (sweep removes those)"));
    }

    private static String shape(long[] s) {
        return Arrays.stream(s).mapToObj(Long::toString).collect(Collectors.joining("x"));
    }

    private static String attached(SegmentInfo i) {
        if (i.attached().isEmpty()) {
            return "-";
        }
        return i.attached().stream().map(p -> p.pid() + (p.alive() ? " alive" : " dead")).collect(Collectors.joining(", "));
    }

    static void inspect(ArrayHandle h, PrintStream out) {
        SegmentInfo i = SharedArrays.inspect(h);
        out.println("handle     " + i.handle());
        out.println("kind       " + switch (i.kind()) {
            case ARRAY -> "array";
            case POOL -> "pool: " + i.used() + " of " + i.capacity() + " slots in use (acquired or in a queue)";
            case QUEUE -> "queue: " + i.used() + " of " + i.capacity() + " messages waiting";
            case BARRIER -> "barrier: " + i.used() + " of " + i.capacity() + " parties waiting";
        });
        out.println("path       " + i.path());
        out.println("dtype      " + i.dtype() + " (" + i.dtype().descr() + ")");
        out.println("shape      " + Arrays.toString(i.shape()));
        out.println("size       " + Units.bytes(i.bytes()) + " (" + i.bytes() + " bytes of data)");
        out.println("backend    " + i.backend().id());
        out.println("lifetime   " + i.lifetime().name().toLowerCase(java.util.Locale.ROOT));
        out.println("id         " + HexFormat.of().toHexDigits(i.id()));
        out.println("created    " + i.created());
        out.println("creator    pid " + i.creator().pid() + (i.creator().alive() ? " (alive)" : " (dead)"));
        out.println("attached   " + attached(i));
    }
}
