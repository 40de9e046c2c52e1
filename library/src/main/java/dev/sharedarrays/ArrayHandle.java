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
 * command-line argument or an environment variable.
 *
 * <pre>
 *   shm://&lt;name&gt;            a file in the shm directory of the attaching process
 *   memfd://&lt;pid&gt;/&lt;fd&gt;     descriptor fd of process pid, opened as /proc/&lt;pid&gt;/fd/&lt;fd&gt;
 *   file:///abs/path        a file (characters outside [A-Za-z0-9/._~-] percent-encoded)
 *   anonymous://&lt;pid&gt;      this process only
 * </pre>
 * Each form may end in {@code ?id=<16 hex digits>}: attach then checks that it reached the array
 * it was meant for. {@link #parse(String)} is the inverse of {@link #toString()}.
 * Instances are immutable and thread-safe.
 */
public final class ArrayHandle {
    private final Backend backend;
    private final String name;  // shm
    private final long pid;     // memfd, anonymous
    private final int fd;       // memfd
    private final Path path;    // file
    private final Long id;

    private ArrayHandle(Backend backend, String name, long pid, int fd, Path path, Long id) {
        this.backend = backend;
        this.name = name;
        this.pid = pid;
        this.fd = fd;
        this.path = path;
        this.id = id;
    }

    /** {@code shm://name}; the name is validated as for creation. */
    public static ArrayHandle shm(String name, OptionalLong id) {
        Names.validate(name);
        return new ArrayHandle(Backend.SHM, name, 0, -1, null, box(id));
    }

    /** {@code memfd://pid/fd}. */
    public static ArrayHandle memfd(long pid, int fd, OptionalLong id) {
        if (pid <= 0 || fd < 0) {
            throw new IllegalArgumentException("memfd handle needs pid > 0 and fd >= 0, but was pid=" + pid + " fd=" + fd);
        }
        return new ArrayHandle(Backend.MEMFD, null, pid, fd, null, box(id));
    }

    /** {@code file:///abs/path}; the path is made absolute. */
    public static ArrayHandle file(Path path, OptionalLong id) {
        return new ArrayHandle(Backend.FILE, null, 0, -1, path.toAbsolutePath().normalize(), box(id));
    }

    /** {@code anonymous://pid}: usable in process pid only. */
    public static ArrayHandle anonymous(long pid, OptionalLong id) {
        return new ArrayHandle(Backend.ANONYMOUS, null, pid, -1, null, box(id));
    }

    private static Long box(OptionalLong id) {
        return id.isPresent() ? id.getAsLong() : null;
    }

    public Backend backend() {
        return backend;
    }

    /** The shm name, for {@link Backend#SHM} handles. */
    public String name() {
        require(Backend.SHM);
        return name;
    }

    /** The owning process, for {@link Backend#MEMFD} and {@link Backend#ANONYMOUS} handles. */
    public long pid() {
        if (backend != Backend.MEMFD && backend != Backend.ANONYMOUS) {
            throw new IllegalStateException("a " + backend.id() + " handle has no pid: " + this);
        }
        return pid;
    }

    /** The descriptor number in process {@link #pid()}, for {@link Backend#MEMFD} handles. */
    public int fd() {
        require(Backend.MEMFD);
        return fd;
    }

    /** The file, for {@link Backend#FILE} handles. */
    public Path path() {
        require(Backend.FILE);
        return path;
    }

    /** The array id this handle expects, if it carries one. */
    public OptionalLong id() {
        return id == null ? OptionalLong.empty() : OptionalLong.of(id);
    }

    /** The same handle without the id check. */
    public ArrayHandle withoutId() {
        return new ArrayHandle(backend, name, pid, fd, path, null);
    }

    private void require(Backend expected) {
        if (backend != expected) {
            throw new IllegalStateException("not a " + expected.id() + " handle: " + this);
        }
    }

    /**
     * Parses the string form.
     *
     * @throws IllegalArgumentException naming the string and what is wrong with it
     */
    public static ArrayHandle parse(String text) {
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

    @Override
    public String toString() {
        String base = switch (backend) {
            case SHM -> "shm://" + name;
            case MEMFD -> "memfd://" + pid + "/" + fd;
            case FILE -> "file://" + encode(path.toString());
            case ANONYMOUS -> "anonymous://" + pid;
        };
        return id == null ? base : base + "?id=" + HexFormat.of().toHexDigits(id);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArrayHandle h && toString().equals(h.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
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
