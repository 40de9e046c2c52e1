package dev.sharedarrays;

import dev.sharedarrays.internal.segment.Names;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How to create an array: name, backend, file, persistence. Immutable; each method returns a
 * changed copy. Null arguments are rejected with {@link NullPointerException}.
 *
 * <pre>{@code
 * CreateOptions.defaults().name("frames").backend(Backend.SHM)
 * CreateOptions.defaults().file(Path.of("/data/grid.npy"))   // file backend, persistent
 * }</pre>
 */
public final class CreateOptions {
    private static final CreateOptions DEFAULTS = new CreateOptions(null, null, null, null);

    private final String name;
    private final Backend backend;
    private final Path file;
    private final Boolean persistent;

    private CreateOptions(String name, Backend backend, Path file, Boolean persistent) {
        this.name = name;
        this.backend = backend;
        this.file = file;
        this.persistent = persistent;
    }

    /** A generated {@code sa-} name, the process's backend, not persistent. */
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
        return new CreateOptions(Names.validate(Objects.requireNonNull(name, "name")), backend, file, persistent);
    }

    /**
     * This backend for this array, unless {@code SHARED_ARRAYS_BACKEND} is set: the environment
     * wins, so that a user can move a program off a small /dev/shm without changing it.
     */
    public CreateOptions backend(Backend backend) {
        return new CreateOptions(name, Objects.requireNonNull(backend, "backend"), file, persistent);
    }

    /**
     * A file-backed array at this path (the environment does not change a path you chose). Such
     * arrays are persistent unless {@link #persistent(boolean) persistent(false)} says otherwise.
     */
    public CreateOptions file(Path file) {
        return new CreateOptions(name, Backend.FILE, Objects.requireNonNull(file, "file"), persistent);
    }

    /** Whether the array outlives its owner's close (and is left alone by sweep). */
    public CreateOptions persistent(boolean persistent) {
        return new CreateOptions(name, backend, file, persistent);
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

    /** Persistence asked for; by default true only for an explicit file. */
    public boolean persistent() {
        return persistent != null ? persistent : file != null;
    }

    @Override
    public String toString() {
        return "CreateOptions(name=" + name + ", backend=" + backend + ", file=" + file + ", persistent=" + persistent() + ")";
    }
}
