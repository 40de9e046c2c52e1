package dev.sharedarrays;

import dev.sharedarrays.internal.segment.Names;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How to create an array: name, backend, file, lifetime. Immutable; each method returns a
 * changed copy. Null arguments are rejected with {@link NullPointerException}.
 *
 * <pre>{@code
 * CreateOptions.defaults().name("frames").backend(Backend.SHM)
 * CreateOptions.defaults().file(Path.of("/data/grid.npy"))   // file backend, persistent
 * CreateOptions.defaults().name("frames").lifetime(Lifetime.SHARED)  // the last one out removes it
 * }</pre>
 */
public final class CreateOptions {
    private static final CreateOptions DEFAULTS = new CreateOptions(null, null, null, null);

    private final String name;
    private final Backend backend;
    private final Path file;
    /** Null: the default for the target (PERSISTENT for an explicit file, else OWNER). */
    private final Lifetime lifetime;

    private CreateOptions(String name, Backend backend, Path file, Lifetime lifetime) {
        this.name = name;
        this.backend = backend;
        this.file = file;
        this.lifetime = lifetime;
    }

    /** A generated {@code sa-} name, the process's backend, lifetime {@link Lifetime#OWNER}. */
    public static CreateOptions defaults() {
        return DEFAULTS;
    }

    /**
     * The name in the shm directory (or the default file directory).
     *
     * @throws IllegalArgumentException if it is empty, over 200 characters, contains '/' or
     *         "..", or characters outside [A-Za-z0-9._-]
     */
    public CreateOptions name(String name) {
        return new CreateOptions(Names.validate(Objects.requireNonNull(name, "name")), backend, file, lifetime);
    }

    /**
     * This backend for this array, unless {@code SHARED_ARRAYS_BACKEND} is set: the environment
     * wins, so that a user can move a program off a small /dev/shm without changing it.
     */
    public CreateOptions backend(Backend backend) {
        return new CreateOptions(name, Objects.requireNonNull(backend, "backend"), file, lifetime);
    }

    /**
     * A file-backed array at this path (the environment does not change a path you chose). Such
     * arrays are {@link Lifetime#PERSISTENT} unless {@link #lifetime} or
     * {@link #persistent(boolean) persistent(false)} says otherwise.
     */
    public CreateOptions file(Path file) {
        return new CreateOptions(name, Backend.FILE, Objects.requireNonNull(file, "file"), lifetime);
    }

    /**
     * Who removes the array's name (shm, file): see {@link Lifetime}. memfd and anonymous
     * arrays record it but have no name to remove.
     */
    public CreateOptions lifetime(Lifetime lifetime) {
        return new CreateOptions(name, backend, file, Objects.requireNonNull(lifetime, "lifetime"));
    }

    /**
     * Whether the array outlives its owner's close (and is left alone by sweep):
     * {@code lifetime(persistent ? PERSISTENT : OWNER)}.
     */
    public CreateOptions persistent(boolean persistent) {
        return lifetime(persistent ? Lifetime.PERSISTENT : Lifetime.OWNER);
    }

    /** The name asked for, or null for a generated one. */
    public String name() {
        return name;
    }

    /** The backend asked for, or null for the process default. */
    public Backend backend() {
        return backend;
    }

    /** The file asked for, or null unless {@link #file(Path)} was called. */
    public Path file() {
        return file;
    }

    /** The lifetime asked for; by default PERSISTENT for an explicit file, else OWNER. */
    public Lifetime lifetime() {
        return lifetime != null ? lifetime : file != null ? Lifetime.PERSISTENT : Lifetime.OWNER;
    }

    /** {@code lifetime() == Lifetime.PERSISTENT}. */
    public boolean persistent() {
        return lifetime() == Lifetime.PERSISTENT;
    }

    @Override
    public String toString() {
        return "CreateOptions(name=" + name + ", backend=" + backend + ", file=" + file + ", lifetime=" + lifetime() + ")";
    }
}
