package dev.sharedarrays.flight.internal;

import dev.sharedarrays.cli.CliCommand;
import java.io.PrintStream;

/** {@code bin/sharedarrays serve}: {@link ServeCommand} as the library's command line finds it (META-INF/services). */
public final class ServeCli implements CliCommand {
    @Override
    public String name() {
        return "serve";
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        return ServeCommand.run(args, out, err);
    }
}
