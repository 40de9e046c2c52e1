package dev.sharedarrays;

import dev.sharedarrays.internal.segment.Names;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * How another process finds an array: a small immutable value whose string form fits in a
 * command-line argument or an environment variable. One record per backend:
 *
 * <pre>
 *   {@link Shm}        shm://&lt;name&gt;            a file in the shm directory of the attaching process
 *   {@link Memfd}      memfd://&lt;pid&gt;/&lt;fd&gt;     descriptor fd of process pid, opened as /proc/&lt;pid&gt;/fd/&lt;fd&gt;
 *   {@link File}       file:///abs/path        a file (characters outside [A-Za-z0-9/._~-] percent-encoded)
 *   {@link Anonymous}  anonymous://&lt;pid&gt;      this process only
 * </pre>
 * Each form may end in {@code ?id=<16 hex digits>}: attach then checks that it reached the array
 * it was meant for. {@link #parse(String)} is the inverse of {@link #toString()}, and two
 * handles are equal when their string forms are. Instances are immutable and thread-safe.
 */
public sealed interface ArrayHandle {

    /** The backend whose array this handle names. */
    Backend backend();

    /** The array id this handle expects, if it carries one. */
    OptionalLong id();

    /** The same handle without the id check. */
    ArrayHandle withoutId();

    /**
     * {@code shm://name}: a file in the shm directory.
     *
     * @throws IllegalArgumentException if the name is not a valid array name
     */
    record Shm(String name, OptionalLong id) implements ArrayHandle {
        public Shm {
            Names.validate(name);
            Objects.requireNonNull(id, "id");
        }

        @Override
        public Backend backend() {
            return Backend.SHM;
        }

        @Override
        public Shm withoutId() {
            return new Shm(name, OptionalLong.empty());
        }

        @Override
        public String toString() {
            return form("shm://" + name, id);
        }
    }

    /**
     * {@code memfd://pid/fd}: descriptor {@code fd} of process {@code pid}.
     *
     * @throws IllegalArgumentException if {@code pid <= 0 || fd < 0}
     */
    record Memfd(long pid, int fd, OptionalLong id) implements ArrayHandle {
        public Memfd {
            if (pid <= 0 || fd < 0) {
                throw new IllegalArgumentException("memfd handle needs pid > 0 and fd >= 0, but was pid=" + pid + " fd=" + fd);
            }
            Objects.requireNonNull(id, "id");
        }

        @Override
        public Backend backend() {
            return Backend.MEMFD;
        }

        @Override
        public Memfd withoutId() {
            return new Memfd(pid, fd, OptionalLong.empty());
        }

        @Override
        public String toString() {
            return form("memfd://" + pid + "/" + fd, id);
        }
    }

    /**
     * {@code file:///abs/path}; the path is made absolute and normalized.
     *
     * @throws IllegalArgumentException if the absolute path has 4096 (PATH_MAX) bytes or more
     *         (in UTF-8): no Linux call takes it
     */
    record File(Path path, OptionalLong id) implements ArrayHandle {
        /** Linux's PATH_MAX: a path has fewer bytes than this (the terminating NUL takes the last). */
        private static final int PATH_MAX = 4096;

        public File {
            path = path.toAbsolutePath().normalize();
            Objects.requireNonNull(id, "id");
            int bytes = path.toString().getBytes(StandardCharsets.UTF_8).length;
            if (bytes >= PATH_MAX) {
                throw new IllegalArgumentException("file handle path is " + bytes + " bytes long; Linux takes paths of at most "
                        + (PATH_MAX - 1) + " bytes (PATH_MAX " + PATH_MAX + ", with the terminating NUL)");
            }
        }

        @Override
        public Backend backend() {
            return Backend.FILE;
        }

        @Override
        public File withoutId() {
            return new File(path, OptionalLong.empty());
        }

        @Override
        public String toString() {
            return form("file://" + encode(path.toString()), id);
        }
    }

    /** {@code anonymous://pid}: usable in process {@code pid} only. */
    record Anonymous(long pid, OptionalLong id) implements ArrayHandle {
        public Anonymous {
            Objects.requireNonNull(id, "id");
        }

        @Override
        public Backend backend() {
            return Backend.ANONYMOUS;
        }

        @Override
        public Anonymous withoutId() {
            return new Anonymous(pid, OptionalLong.empty());
        }

        @Override
        public String toString() {
            return form("anonymous://" + pid, id);
        }
    }

    /**
     * {@code shm://name}.
     *
     * @throws IllegalArgumentException if the name is not a valid array name
     */
    static Shm shm(String name, OptionalLong id) {
        return new Shm(name, id);
    }

    /**
     * {@code memfd://pid/fd}.
     *
     * @throws IllegalArgumentException if {@code pid <= 0 || fd < 0}
     */
    static Memfd memfd(long pid, int fd, OptionalLong id) {
        return new Memfd(pid, fd, id);
    }

    /**
     * {@code file:///abs/path}; the path is made absolute.
     *
     * @throws IllegalArgumentException if the absolute path has 4096 (PATH_MAX) bytes or more
     */
    static File file(Path path, OptionalLong id) {
        return new File(path, id);
    }

    /** {@code anonymous://pid}: usable in process pid only. */
    static Anonymous anonymous(long pid, OptionalLong id) {
        return new Anonymous(pid, id);
    }

    /**
     * Parses the string form.
     *
     * @throws IllegalArgumentException naming the string and what is wrong with it
     */
    static ArrayHandle parse(String text) {
        Objects.requireNonNull(text, "text");
        int sep = text.indexOf("://");
        if (sep < 0) {
            throw bad(text, "expected <backend>://..., such as shm://name, memfd://pid/fd or file:///path");
        }
        Backend backend;
        try {
            backend = Backend.parse(text.substring(0, sep));
        } catch (IllegalArgumentException e) {
            throw bad(text, e.getMessage());
        }
        String rest = text.substring(sep + 3);
        OptionalLong id = OptionalLong.empty();
        int q = rest.indexOf('?');
        if (q >= 0) {
            String query = rest.substring(q + 1);
            rest = rest.substring(0, q);
            if (!query.startsWith("id=") || query.length() != 3 + 16) {
                throw bad(text, "the only query is id=<16 hex digits>");
            }
            try {
                id = OptionalLong.of(HexFormat.fromHexDigitsToLong(query.substring(3)));
            } catch (IllegalArgumentException e) {
                throw bad(text, "id is not 16 hex digits");
            }
        }
        try {
            return switch (backend) {
                case SHM -> shm(rest, id);
                case MEMFD -> {
                    int slash = rest.indexOf('/');
                    if (slash < 0) {
                        throw bad(text, "memfd handle is memfd://<pid>/<fd>");
                    }
                    yield memfd(Long.parseLong(rest.substring(0, slash)), Integer.parseInt(rest.substring(slash + 1)), id);
                }
                case FILE -> {
                    if (!rest.startsWith("/")) {
                        throw bad(text, "file handle needs an absolute path: file:///abs/path");
                    }
                    yield file(Path.of(decode(rest)), id);
                }
                case ANONYMOUS -> anonymous(Long.parseLong(rest), id);
            };
        } catch (NumberFormatException e) {
            throw bad(text, "pid and fd must be decimal numbers");
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("invalid array handle")) {
                throw e;
            }
            throw bad(text, e.getMessage());
        }
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("invalid array handle '" + text + "': " + why);
    }

    private static String form(String base, OptionalLong id) {
        return id.isPresent() ? base + "?id=" + HexFormat.of().toHexDigits(id.getAsLong()) : base;
    }

    private static boolean plain(int b) {
        return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
                || b == '/' || b == '.' || b == '_' || b == '~' || b == '-';
    }

    private static String encode(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int u = b & 0xff;
            if (plain(u)) {
                sb.append((char) u);
            } else {
                sb.append('%').append(HexFormat.of().withUpperCase().toHexDigits((byte) u));
            }
        }
        return sb.toString();
    }

    private static String decode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw new IllegalArgumentException("truncated %-escape in path");
                }
                out.write(HexFormat.fromHexDigits(s, i + 1, i + 3));
                i += 2;
            } else if (plain(c)) {
                out.write(c);
            } else {
                throw new IllegalArgumentException("character '" + c + "' must be %-encoded in a file handle");
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
