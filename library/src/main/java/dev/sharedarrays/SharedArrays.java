package dev.sharedarrays;

import dev.sharedarrays.internal.array.Parallel;
import dev.sharedarrays.internal.backend.BackendSelection;
import dev.sharedarrays.internal.backend.Backends;
import dev.sharedarrays.internal.backend.FdPassing;
import dev.sharedarrays.internal.backend.ShmBackend;
import dev.sharedarrays.internal.io.NpyHeader;
import dev.sharedarrays.internal.io.NpyReader;
import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentScan;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * Entry point: create and attach arrays, choose the backend, clean up after crashes.
 *
 * <pre>{@code
 * try (SharedNDArray<F64> a = SharedArrays.create(F64.TYPE, 1000, 1000)) {
 *     a.setDouble(0, 4.5);
 *     String handle = a.handle().toString();          // give this to another process
 * }
 * // in the other process
 * try (SharedNDArray<F64> b = SharedArrays.attach(ArrayHandle.parse(handle), F64.TYPE)) { ... }
 * }</pre>
 * All methods are thread-safe. Arguments must not be null.
 */
public final class SharedArrays {
    private SharedArrays() {
    }

    /**
     * Creates a zero-filled array with the process's backend and a generated name.
     *
     * @throws IllegalArgumentException if the shape has no or more than 8 dimensions, a dimension
     *         below 1, or more than 1 TiB of data
     * @throws InsufficientSpaceException if the memory cannot be reserved (nothing is left behind)
     */
    public static <T extends DType<T>> SharedNDArray<T> create(T dtype, long... shape) {
        return create(dtype, shape, CreateOptions.defaults());
    }

    /**
     * Creates a zero-filled array as {@code options} say.
     *
     * @throws SegmentExistsException if the name or file exists (it is not touched)
     * @throws InsufficientSpaceException if the memory cannot be reserved (nothing is left behind)
     * @throws NativeCallException if an OS call fails otherwise
     * @throws SharedArrayException for a shm array, if the shm directory lets other users delete
     *         or rename it (writable by all without the sticky bit); the message names the
     *         directory, its mode and the fix
     */
    public static <T extends DType<T>> SharedNDArray<T> create(T dtype, long[] shape, CreateOptions options) {
        return new SharedNDArray<>(Backends.create(dtype, shape, options), dtype);
    }

    /**
     * {@link #create(DType, long[], CreateOptions)} for an element type known only at run time
     * (read from a file or a command line); use {@link SharedNDArray#as} to type the result.
     */
    public static SharedNDArray<?> createAny(DType<?> dtype, long[] shape, CreateOptions options) {
        return capture(dtype, shape, options);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static SharedNDArray<?> capture(DType dtype, long[] shape, CreateOptions options) {
        return create(dtype, shape, options);
    }

    /**
     * Attaches the array a handle names, whatever its element type; see {@link SharedNDArray#as}.
     * Only this user's segments are accepted: {@link #attach(ArrayHandle, AttachOptions)} with
     * {@link AttachOptions#defaults()}.
     *
     * @throws SegmentNotFoundException if nothing is there
     * @throws InvalidSegmentException if what is there is not a complete segment of this user, or
     *         not the array of the handle's id
     * @throws SegmentTruncatedException if the file shrank while it was being read
     */
    public static SharedNDArray<?> attach(ArrayHandle handle) {
        return attach(handle, AttachOptions.defaults());
    }

    /**
     * Attaches the array a handle names, whatever its element type, as {@code options} say. The
     * segment must be a regular file (memfd: a memfd sealed against shrink and grow), owned by
     * this user or a uid {@code options} trusts, with every byte allocated and a valid control
     * block; it is opened without following symbolic links and without blocking.
     *
     * @throws SegmentNotFoundException if nothing is there, or it was removed while attaching, or
     *         nothing can be there (a name longer than the file system takes, a part of the
     *         path that is not a directory)
     * @throws InvalidSegmentException if what is there is not a complete segment (a FIFO, device,
     *         directory, socket, symbolic link, sparse file, another user's file, an unsealed
     *         descriptor), or not the array of the handle's id
     * @throws SegmentTruncatedException if the file shrank while it was being read
     * @throws NativeCallException if the process is out of a resource an attach needs
     *         (descriptors: EMFILE; mappings: mmap's ENOMEM, with the fix)
     */
    public static SharedNDArray<?> attach(ArrayHandle handle, AttachOptions options) {
        return wrap(Backends.attach(handle, java.util.Objects.requireNonNull(options, "options")));
    }

    /** {@link #attach(ArrayHandle)} of {@link ArrayHandle#parse(String)}. */
    public static SharedNDArray<?> attach(String handle) {
        return attach(ArrayHandle.parse(handle));
    }

    /**
     * Attaches an array that must hold {@code dtype}.
     *
     * @throws DTypeMismatchException if it holds another type (it is detached again)
     */
    public static <T extends DType<T>> SharedNDArray<T> attach(ArrayHandle handle, T dtype) {
        return attach(handle, dtype, AttachOptions.defaults());
    }

    /**
     * Attaches an array that must hold {@code dtype}, as {@code options} say; see
     * {@link #attach(ArrayHandle, AttachOptions)}.
     *
     * @throws DTypeMismatchException if it holds another type (it is detached again)
     */
    public static <T extends DType<T>> SharedNDArray<T> attach(ArrayHandle handle, T dtype, AttachOptions options) {
        SharedNDArray<?> a = attach(handle, options);
        try {
            return a.as(dtype);
        } catch (DTypeMismatchException e) {
            a.close();
            throw e;
        }
    }

    /**
     * Reads a .npy file (numpy's {@code np.save}, format 1.0, 2.0 or 3.0; a shared segment's
     * file also is one) into a new process-local array: no file, nothing to close, freed by the
     * garbage collector. Elements are read with bulk file reads; a live segment's file is read
     * as it is, without taking the array's lock (attach it to share it). A Fortran-order file
     * gives the transposed view of a C-order array of the reversed shape, which is exactly its
     * layout: the shape and values are the file's, {@code isContiguous()} is false (no copy is
     * made). A 0-dimensional file (shape {@code ()}) is refused: arrays here have 1 to 8.
     * Symbolic links are followed, as {@code np.load} follows them; the file is opened without
     * blocking and checked through its descriptor, so a FIFO, device, socket or directory at
     * the path (even one swapped in while the call runs) is refused at once, never waited on.
     *
     * @throws NpyFormatException if the file is not a .npy file this library reads: bad magic,
     *         unknown version, truncated, malformed header, 0 or more than 8 dimensions, a zero
     *         dimension, or an element type it does not have (big-endian, complex, float16,
     *         strings, objects, structured); the message says how to convert it in numpy
     * @throws java.io.UncheckedIOException if the file cannot be read (missing: its cause is a
     *         {@link java.nio.file.NoSuchFileException})
     */
    public static SharedNDArray<?> load(Path path) {
        return loadAny(path, null, null);
    }

    /**
     * Reads a .npy file, as {@link #load(Path)} does, into a new shared array created as
     * {@code options} say (C order also for a Fortran-order file, through a process-local
     * temporary). If reading fails the array is destroyed.
     *
     * @throws NpyFormatException if the file is not a .npy file this library reads
     * @throws java.io.UncheckedIOException if the file cannot be read
     * @throws SegmentExistsException if the name or file of {@code options} exists
     * @throws InsufficientSpaceException if the memory cannot be reserved
     */
    public static SharedNDArray<?> load(Path path, CreateOptions options) {
        return loadAny(path, null, java.util.Objects.requireNonNull(options, "options"));
    }

    /**
     * {@link #load(Path)} of a file that must hold {@code dtype}.
     *
     * @throws DTypeMismatchException naming both types if it holds another (nothing is read)
     */
    public static <T extends DType<T>> SharedNDArray<T> load(Path path, T dtype) {
        return loadAny(path, java.util.Objects.requireNonNull(dtype, "dtype"), null).as(dtype);
    }

    /**
     * {@link #load(Path, CreateOptions)} of a file that must hold {@code dtype}.
     *
     * @throws DTypeMismatchException naming both types if it holds another (nothing is created)
     */
    public static <T extends DType<T>> SharedNDArray<T> load(Path path, T dtype, CreateOptions options) {
        java.util.Objects.requireNonNull(dtype, "dtype");
        return loadAny(path, dtype, java.util.Objects.requireNonNull(options, "options")).as(dtype);
    }

    /** The file's array, checked to hold dtype unless it is null, in a local array if options is null. */
    private static SharedNDArray<?> loadAny(Path path, DType<?> dtype, CreateOptions options) {
        java.util.Objects.requireNonNull(path, "path");
        try (NpyReader r = NpyReader.open(path)) {
            DType<?> held = DType.of(r.header().type());
            if (dtype != null && held != dtype) {
                throw new DTypeMismatchException("file " + path + " holds " + held + " (" + held.descr() + "), not " + dtype
                        + " (" + dtype.descr() + "); load(path) takes any type, or convert it with astype");
            }
            return read(r, held, options);
        }
    }

    /** The file's array in a new local array (options null) or a shared one. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static SharedNDArray<?> read(NpyReader r, DType dtype, CreateOptions options) {
        NpyHeader h = r.header();
        long[] shape = h.shape();
        if (!h.fortranOrder()) {
            SharedNDArray a = options == null ? SharedNDArray.of(ArrayCore.empty(dtype, shape)) : create(dtype, shape, options);
            return filled(a, options != null, () -> a.core().locks().write(() -> r.readData(a.data())));
        }
        // column-major data is the row-major data of the reversed shape, transposed
        long[] reversed = new long[shape.length];
        for (int i = 0; i < shape.length; i++) {
            reversed[i] = shape[shape.length - 1 - i];
        }
        SharedNDArray t = SharedNDArray.of(ArrayCore.empty(dtype, reversed));
        filled(t, false, () -> t.core().locks().write(() -> r.readData(t.data())));
        if (options == null) {
            return t.transpose();
        }
        SharedNDArray a = create(dtype, shape, options);
        return filled(a, true, () -> a.copyFrom(t.transpose()));
    }

    /** Runs fill; if it fails, destroys a shared array. */
    private static SharedNDArray<?> filled(SharedNDArray<?> a, boolean shared, Runnable fill) {
        try {
            fill.run();
        } catch (RuntimeException | Error e) {
            if (shared) {
                a.destroy();
            }
            throw e;
        }
        return a;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static SharedNDArray<?> wrap(Segment s) {
        return new SharedNDArray(s, s.facts().dtype());
    }

    /**
     * The backend new arrays get: {@code SHARED_ARRAYS_BACKEND} if set, else the one chosen by
     * {@link #useBackend}, else auto-detection (shm if the shm directory has more than
     * {@code SHARED_ARRAYS_SHM_MIN_FREE} bytes free, else memfd, else file).
     */
    public static Backend backend() {
        return BackendSelection.current();
    }

    /** Chooses the backend for this process; {@code SHARED_ARRAYS_BACKEND} still wins. */
    public static void useBackend(Backend backend) {
        BackendSelection.choose(java.util.Objects.requireNonNull(backend, "backend"));
    }

    /** The shm directory: {@code SHARED_ARRAYS_DIR}, default /dev/shm. */
    public static Path shmDirectory() {
        return ShmBackend.directory();
    }

    /**
     * Runs body with the kernels split over {@code threads} threads, this one among them: element-wise
     * math ({@link ArrayMath}), out-of-place arithmetic, comparisons to a new Bool array, and whole-array
     * sums, minima and maxima, on operands that are contiguous, of one shape and at least 1,048,576
     * elements (2^20); others run on this thread. Sorts ({@code sort}, {@code sorted}) run as
     * {@code parallelSort} and {@code parallelSorted} do. Without it, {@code SHARED_ARRAYS_THREADS} sets the
     * count for every call (default 1: the kernels never start a thread). Results are those of one
     * thread, but for float sums, whose parts are added in another order (they differ in the last bits).
     *
     * @throws IllegalArgumentException unless {@code 1 <= threads <= 256}
     */
    public static <R> R withThreads(int threads, Supplier<R> body) {
        return Parallel.with(threads, java.util.Objects.requireNonNull(body, "body"));
    }

    /**
     * Serves a memfd array's descriptor on a Unix domain socket: every process that calls
     * {@link #receive(Path)} on that path gets the array. Close the server to stop serving.
     */
    public static HandleServer serve(SharedNDArray<?> array, Path socketPath) {
        return new HandleServer(array, socketPath);
    }

    /**
     * Connects to a {@link #serve} socket and attaches the array whose descriptor it sends
     * (SCM_RIGHTS).
     */
    public static SharedNDArray<?> receive(Path socketPath) {
        return wrap(FdPassing.receive(socketPath));
    }

    /**
     * Describes every shared-arrays segment in the shm directory (and the default file
     * directory): dtype, shape, creator, attached processes and their liveness.
     */
    public static List<SegmentInfo> list() {
        return SegmentScan.list(Backends.scanDirectories());
    }

    /**
     * Removes one of our segments by handle (shm or file), whoever is attached: attached
     * processes keep their mappings until they close. Only the file found at the name when this
     * call opened it is removed; if the name is removed or re-created meanwhile, the file there
     * now is left alone. Same as {@code remove(handle, true)}.
     *
     * @throws InvalidSegmentException if the file there is not one of our segments (not a
     *         regular file, another user's, sparse, or without a valid control block)
     * @throws SegmentNotFoundException if nothing is there, or the name was re-created meanwhile
     * @throws IllegalArgumentException if {@code handle} is a memfd or anonymous handle (no name)
     */
    public static Path remove(ArrayHandle handle) {
        return remove(handle, true);
    }

    /**
     * Removes one of our segments by handle (shm or file); without {@code force} only if no
     * process has it open (no process holds its flock), as {@code sharedarrays rm} does. The pool
     * slots in flight in a queue removed while no process had it open go back to their pools.
     *
     * @throws SharedArrayException if {@code !force} and live processes have the segment open;
     *         the message names the pids its attach slots record
     * @throws InvalidSegmentException if the file there is not one of our segments
     * @throws SegmentNotFoundException if nothing is there, or the name was re-created meanwhile
     * @throws IllegalArgumentException if {@code handle} is a memfd or anonymous handle (no name)
     */
    public static Path remove(ArrayHandle handle, boolean force) {
        return Backends.remove(handle, force);
    }

    /**
     * Describes one array by handle, without attaching it. An anonymous array can be described
     * only by the process that created it.
     *
     * @throws SegmentNotFoundException if nothing is there
     * @throws InvalidSegmentException if what is there is not a shared-arrays segment
     */
    public static SegmentInfo inspect(ArrayHandle handle) {
        return Backends.inspect(handle);
    }

    /**
     * Removes the segments no process uses any more, in the shm directory and the default
     * directory of file-backed arrays, and temporary files of creates that died. A segment is
     * unused when this process gets {@code flock(LOCK_EX|LOCK_NB)} on it (every process that has
     * it open holds LOCK_SH; the kernel drops it when a process dies) and no live process is
     * recorded in it. {@link Lifetime#PERSISTENT} segments, files of other users and files that
     * are not segments, under any name, are never touched. The pool slots still in flight in
     * a queue it removes go back to their pools (if the pool can be attached and the slot is
     * still in flight there): no one can receive those messages any more. Every {@code create}
     * also starts one in the background for the shm directory, at most once every 5 seconds per
     * process, and so does an {@link ArrayPool#acquire} that waits while slots stay in flight, at
     * most once a second ({@code SHARED_ARRAYS_AUTO_SWEEP=0} turns both off).
     *
     * @param dryRun list what would be removed without removing it
     * @return the files removed (or that would be)
     */
    public static List<Path> sweep(boolean dryRun) {
        return Backends.sweep(Backends.scanDirectories(), dryRun);
    }
}
