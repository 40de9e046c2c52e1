package dev.sharedarrays.internal.os;

/**
 * Environment variables, read when asked (not cached here) so that each child process of a
 * test may set its own.
 */
public final class Env {
    private Env() {
    }

    /** The stripped value of a variable, or null when it is unset or blank. */
    public static String get(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? null : v.strip();
    }
}
