package dev.sharedarrays.internal.segment;

/** Rules for segment names in the shm directory. */
public final class Names {
    /** Longest accepted name, in characters; below NAME_MAX (255) of every Linux file system. */
    public static final int MAX_LENGTH = 200;

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
}
