package dev.sharedarrays.internal.segment;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.random.RandomGenerator;

/** Names of files in a segment directory: array names, generated names, and creates' temporary files. */
public final class Names {
    /** Longest accepted name, in characters; below NAME_MAX (255) of every Linux file system. */
    public static final int MAX_LENGTH = 200;
    /**
     * Prefix of the temporary file a create writes before linking the final name; it starts with
     * '.' so that no array name can collide with it.
     */
    public static final String TEMP_PREFIX = ".sa-tmp-";
    private static final RandomGenerator RANDOM = new SecureRandom();

    private Names() {
    }

    /**
     * @throws IllegalArgumentException if the name is empty, longer than {@value #MAX_LENGTH},
     *         contains '/', "..", or a character outside [A-Za-z0-9._-], or starts with '.' or '-'
     */
    public static String validate(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("array name must not be empty");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("array name is " + name.length() + " characters long, the limit is " + MAX_LENGTH);
        }
        if (name.indexOf('/') >= 0) {
            throw new IllegalArgumentException("array name '" + name + "' must not contain '/'");
        }
        if (name.contains("..")) {
            throw new IllegalArgumentException("array name '" + name + "' must not contain '..'");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
                    || (i > 0 && (c == '.' || c == '-'));
            if (!ok) {
                throw new IllegalArgumentException("array name '" + name
                        + "' may use only letters, digits, '.', '_' and '-', and must not start with '.' or '-'");
            }
        }
        return name;
    }

    /** True if {@link #validate} accepts name: an array name we would create (and a shm handle can carry). */
    public static boolean isValid(String name) {
        try {
            validate(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** {@code name} if given, else a fresh {@code sa-<16 hex digits>}. */
    public static String orGenerated(String name) {
        return name != null ? name : "sa-" + HexFormat.of().toHexDigits(RANDOM.nextLong());
    }

    /** {@code .sa-tmp-<pid>-<start>-<8 hex digits>}: the creating process is in the name, for sweep. */
    public static String temp(long pid, long startTime) {
        return TEMP_PREFIX + pid + "-" + startTime + "-" + HexFormat.of().toHexDigits(RANDOM.nextInt());
    }

    public static boolean isTemp(String fileName) {
        return fileName.startsWith(TEMP_PREFIX);
    }

    /** The {pid, start time} of a {@link #temp} name, or null if it is not one. */
    public static long[] tempCreator(String fileName) {
        if (!isTemp(fileName)) {
            return null;
        }
        String[] parts = fileName.substring(TEMP_PREFIX.length()).split("-");
        if (parts.length != 3 || parts[2].length() != 8 || !parts[2].chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            return null; // not a name temp() makes
        }
        try {
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
