package dev.sharedarrays.notebook;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;

/**
 * The Java kernel's process: {@code java ... dev.sharedarrays.notebook.KernelMain CONNECTION_FILE},
 * as the kernel spec that {@code bin/notebook} writes starts it ({@code KotlinKernelMain} starts
 * the Kotlin kernel the same way, through {@link #serve}). When Jupyter shuts the kernel down (or
 * restarts it), this JVM exits normally, so the library's shutdown hook closes the arrays the
 * notebook left open and removes the ones it owns.
 */
public final class KernelMain {
    private KernelMain() {
    }

    public static void main(String[] args) throws Exception {
        serve(args, JShellKernel::new);
    }

    /** Serves the connection file {@code args[0]} with the kernel {@code kernel} makes of this build's version. */
    public static void serve(String[] args, Function<String, ? extends BaseKernel> kernel) throws Exception {
        if (args.length != 1 || !Files.isRegularFile(Path.of(args[0]))) {
            System.err.println("usage: KernelMain CONNECTION_FILE (a Jupyter connection file; bin/notebook starts this)");
            System.exit(2);
        }
        KernelConnectionProperties props = KernelConnectionProperties.parse(Files.readString(Path.of(args[0])));
        JupyterConnection connection = new JupyterConnection(props);
        String version = KernelMain.class.getPackage().getImplementationVersion();
        exitWithParent();
        BaseKernel k = kernel.apply(version == null ? "0.1.0-SNAPSHOT" : version);
        k.onStartup();
        k.becomeHandlerForConnection(connection);
        connection.connect();
        connection.waitUntilClose();
        // a cell may have left threads running: exit anyway, through the shutdown hooks
        System.exit(0);
    }

    /**
     * A kernel whose Jupyter process died (killed, or a client that never shut it down) would
     * otherwise run on and keep its segments: it exits, through the shutdown hooks, within a second.
     */
    private static void exitWithParent() {
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        Thread t = new Thread(() -> {
            // re-parented means the parent died, even while it is a zombie its own parent has not reaped
            while (ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L) == parent) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.exit(0);
        }, "parent-watch");
        t.setDaemon(true);
        t.start();
    }
}
