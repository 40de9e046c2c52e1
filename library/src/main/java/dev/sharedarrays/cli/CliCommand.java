package dev.sharedarrays.cli;

import java.io.PrintStream;

/**
 * A command of {@code bin/sharedarrays} that another module provides (the Flight bridge's
 * {@code serve}), found through {@link java.util.ServiceLoader}: the library names none of them.
 */
public interface CliCommand {
    /** The word that selects this command, e.g. {@code serve}. */
    String name();

    /** Runs the command with its arguments (the command's word not among them); returns the exit status (2: usage). */
    int run(String[] args, PrintStream out, PrintStream err);
}
