package dev.sharedarrays;

import java.util.Locale;

/**
 * Where an array's memory lives and how other processes reach it.
 *
 * <table>
 *   <caption>Backends</caption>
 *   <tr><th>backend</th><th>memory</th><th>shared by</th><th>cleanup</th></tr>
 *   <tr><td>SHM</td><td>a file in the shm directory (default /dev/shm)</td><td>name</td>
 *       <td>unlink by the owner, or sweep after a crash</td></tr>
 *   <tr><td>MEMFD</td><td>memfd_create, sealed against shrink and grow</td>
 *       <td>fd over a Unix socket, or /proc/&lt;pid&gt;/fd/&lt;n&gt;</td>
 *       <td>automatic when the last fd or mapping goes</td></tr>
 *   <tr><td>FILE</td><td>any file path; {@code sync()} flushes</td><td>path</td><td>explicit</td></tr>
 *   <tr><td>ANONYMOUS</td><td>MAP_SHARED anonymous memory</td><td>this process only</td>
 *       <td>automatic</td></tr>
 * </table>
 */
public enum Backend {
    SHM, MEMFD, FILE, ANONYMOUS;

    /** Lower-case name used in handles and in {@code SHARED_ARRAYS_BACKEND}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code shm}, {@code memfd}, {@code file} or {@code anonymous} (any case).
     *
     * @throws IllegalArgumentException listing the accepted values
     */
    public static Backend parse(String value) {
        for (Backend b : values()) {
            if (b.id().equalsIgnoreCase(value.strip())) {
                return b;
            }
        }
        throw new IllegalArgumentException("unknown backend '" + value
                + "'; accepted: shm, memfd, file, anonymous");
    }
}
