package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.segment.OutOfLineAccess;
import dev.sharedarrays.internal.segment.Segment;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A typed N-dimensional array whose elements live in shared memory, possibly mapped by other
 * processes (JVMs or numpy) at the same time, or a view of such an array.
 *
 * <p><b>Ownership.</b> The process that {@linkplain SharedArrays#create created} the array owns
 * the OS resource; others {@linkplain SharedArrays#attach attach} it. {@link #close()} detaches
 * this process's view (for an owner of a non-persistent array it also destroys it);
 * {@link #destroy()} releases the OS resource (owner only). Both are idempotent. After either,
 * every access throws {@link IllegalStateException}, never reads unmapped memory. A shutdown
 * hook closes the arrays still open at normal exit.
 *
 * <p><b>Views.</b> {@link #view}, {@link #slice}, {@link #select}, {@link #reshape} and
 * {@link #transpose} return views that share memory with their array; every operation works on
 * views. Closing a view only closes that view; closing the array invalidates its views.
 *
 * <p><b>Threads and processes.</b> Instances may be used from any thread. Element reads and
 * writes are plain memory accesses with no ordering between threads or processes. Each array
 * has a cross-process readers-writer lock, writer preferring and reentrant per thread (a thread
 * holding the write lock may read; a read lock cannot be upgraded). Bulk mutations (fill,
 * copyFrom, in-place arithmetic) take the write lock, reductions and copies out the read lock,
 * and an operation on two arrays takes both in the order of array id, so {@code x += y} and
 * {@code y += x} in two processes cannot deadlock. If a lock's holder dies, the lock is taken
 * over within about 50 ms (its data may be half-written). {@link #withWriteLock} and
 * {@link #withReadLock} group element accesses. Atomic element operations on I32/I64
 * ({@link #compareAndSet}, {@link #getAndAdd}, {@link #getAndSet}, {@link #getVolatile},
 * {@link #setVolatile}) are sequentially consistent across threads and processes that use them
 * (or C atomics) on the same element: a volatile access in the Java memory model.
 *
 * <p><b>Elements.</b> Little-endian, row-major. Integer stores and integer arithmetic wrap in the
 * element width (300 stored into a U8 reads 44). {@link #getLong} reads unsigned types as their
 * unsigned value (U64 as its bit pattern: use {@link Long#toUnsignedString(long)} or
 * {@link #getUnsigned}). Integer division is floor division, like numpy's {@code //=}; a zero
 * divisor is an {@link ArithmeticException} before anything is written. Scalars for integer
 * arrays must fit the element type (as numpy 2 requires), else {@link IllegalArgumentException}.
 *
 * @param <T> the element type marker, such as {@link F64}
 */
public final class SharedNDArray<T extends DType<T>>
        implements BulkAccess<T>, Reductions<T>, Sorting<T>, InPlaceArithmetic<T>, Arithmetic<T>, Conversions<T>,
        Comparisons<T>, Logical<T>, Masking<T>, Persistence<T>, Rendering<T>, Locks<T>, AutoCloseable {
    private final ArrayCore core;

    SharedNDArray(Segment segment, T dtype) {
        this(new ArrayCore(segment, dtype));
    }

    private SharedNDArray(ArrayCore core) {
        this.core = core;
    }

    /** The array a core is, typed by the caller (the core's marker is the type's). */
    static <R extends DType<R>> SharedNDArray<R> of(ArrayCore core) {
        return new SharedNDArray<>(core);
    }

    /** The state and work behind this array, for the facets and the package's classes. */
    ArrayCore core() {
        return core;
    }

    /**
     * A view of the whole of this array (or view) whose bulk operations take no lock, and whose
     * views take none either. For workers that each own a disjoint part of an array and order
     * their phases with a barrier ({@link SharedBarrier}): the array's single lock would
     * otherwise serialise them. {@link #lockWrite()} and {@link #lockRead()} still lock.
     */
    public SharedNDArray<T> unlocked() {
        return of(core.unlocked());
    }

    /** False for views made by {@link #unlocked()}: their bulk operations do not lock. */
    public boolean isLocking() {
        return core.isLocking();
    }

    /** The element type. */
    @SuppressWarnings("unchecked")
    public T dtype() {
        return (T) core.dtype();
    }

    /** A copy of the shape. */
    public long[] shape() {
        return core.layout().shape().clone();
    }

    /** A copy of the strides, in elements (negative for reversed axes). */
    public long[] strides() {
        return core.layout().strides().clone();
    }

    public int ndim() {
        return core.layout().ndim();
    }

    /** Number of elements. */
    public long size() {
        return core.size();
    }

    /** Bytes per element. */
    public int itemSize() {
        return core.itemSize();
    }

    /** True if the elements are adjacent and row-major (every whole array is). */
    public boolean isContiguous() {
        return core.isContiguous();
    }

    /** True for a view made by slicing, selecting, reshaping or transposing. */
    public boolean isView() {
        return core.isView();
    }

    /** The string another process passes to {@link SharedArrays#attach(String)} (of the whole array, for a view). */
    public ArrayHandle handle() {
        return core.handle();
    }

    public Backend backend() {
        return core.segment().backend();
    }

    /** The 64-bit random id written at creation, the same in every process. */
    public long id() {
        return core.id();
    }

    /** True in the process that created the array. */
    public boolean isOwner() {
        return core.isOwner();
    }

    /** True if closing the owner leaves the array in place. */
    public boolean isPersistent() {
        return core.segment().facts().persistent();
    }

    public boolean isClosed() {
        return core.isClosed();
    }

    /**
     * The file numpy can open with {@code numpy.load(path, mmap_mode='r+')}: the shm or file
     * path, or {@code /proc/<pid>/fd/<n>} for a memfd; empty for anonymous arrays.
     */
    public Optional<Path> path() {
        Segment segment = core.segment();
        if (segment.path() != null) {
            return Optional.of(segment.path());
        }
        if (segment.fd() >= 0) {
            return Optional.of(Path.of("/proc", Long.toString(ProcessHandle.current().pid()), "fd", Integer.toString(segment.fd())));
        }
        return Optional.empty();
    }

    /** The element bytes of the whole array, for bulk work; inaccessible once the array is closed. */
    public MemorySegment data() {
        return core.mem();
    }

    /**
     * Where this array's first element sits in {@link #data()}, in elements: 0 for an array, the
     * view's or pool slot's offset otherwise. With {@link #isContiguous()}, the array's bytes are
     * {@code data().asSlice(elementOffset() * itemSize(), size() * itemSize())}: for bulk transfer
     * without copying (the Arrow Flight bridge sends them from there).
     */
    public long elementOffset() {
        core.checkOpen();
        return core.layout().offset();
    }

    /** Element at a flat row-major index, as a double (U64 as its unsigned value). */
    public double getDouble(long index) {
        return core.getDoubleAt(core.flatOffset(index));
    }

    /** Element at a full multi-index, as a double. */
    public double getDouble(long[] index) {
        return core.getDoubleAt(core.layout().offsetOf(index));
    }

    /** Element at a flat index as a long: exact for integers (U64 as its bit pattern), truncated for floats. */
    public long getLong(long index) {
        return core.getLongAt(core.flatOffset(index));
    }

    /** Element at a full multi-index as a long, as {@link #getLong(long)}. */
    public long getLong(long[] index) {
        return core.getLongAt(core.layout().offsetOf(index));
    }

    /** Element at a flat index as an exact unsigned or signed integer (floats: truncated). */
    public BigInteger getUnsigned(long index) {
        long v = getLong(index);
        return core.type().isUnsigned64() ? ElementCodec.unsignedBig(v) : BigInteger.valueOf(v);
    }

    /** Stores a double; integer types take it truncated toward zero, then wrapped to their width. */
    public void setDouble(long index, double value) {
        core.setAt(core.flatOffset(index), OutOfLineAccess.SET_DOUBLE, value, 0);
    }

    /** Stores a double at a full multi-index, as {@link #setDouble(long, double)}. */
    public void setDouble(long[] index, double value) {
        core.setAt(core.layout().offsetOf(index), OutOfLineAccess.SET_DOUBLE, value, 0);
    }

    /** Stores a long, wrapped to the element width (for floats: converted). */
    public void setLong(long index, long value) {
        core.setAt(core.flatOffset(index), OutOfLineAccess.SET_LONG, 0, value);
    }

    /** Stores a long at a full multi-index, as {@link #setLong(long, long)}. */
    public void setLong(long[] index, long value) {
        core.setAt(core.layout().offsetOf(index), OutOfLineAccess.SET_LONG, 0, value);
    }

    /**
     * The view {@code start:stop:step} of one axis (Python rules for negative and out-of-range
     * bounds; {@link Long#MIN_VALUE}/{@link Long#MAX_VALUE} for open ends).
     *
     * @throws IllegalArgumentException if {@code step == 0} or the slice selects nothing
     */
    public SharedNDArray<T> slice(int axis, long start, long stop, long step) {
        return of(core.view(core.layout().slice(axis, start, stop, step)));
    }

    /**
     * A view by one {@link Slice} per leading axis (missing trailing axes are taken whole);
     * {@link Slice#index} drops its axis.
     *
     * @throws IndexOutOfBoundsException if {@code slices.length > ndim()} or an index is out of range
     */
    public SharedNDArray<T> view(Slice... slices) {
        return of(core.view(slices));
    }

    /** The view with {@code axis} fixed at {@code index} (negative counts from the end); one dimension fewer. */
    public SharedNDArray<T> select(int axis, long index) {
        return of(core.view(core.layout().select(axis, index)));
    }

    /**
     * A view with another shape and the same elements in row-major order; one dimension may be -1 (inferred).
     *
     * @throws ShapeMismatchException if the element counts differ
     * @throws IllegalStateException if {@code !isContiguous()}: {@link #copy()} first
     */
    public SharedNDArray<T> reshape(long... newShape) {
        return of(core.reshape(newShape));
    }

    /** The view with the axes reversed (a matrix transpose for 2 dimensions). */
    public SharedNDArray<T> transpose() {
        return of(core.transpose());
    }

    /** The view whose axis i is axis {@code axes[i]} of this. */
    public SharedNDArray<T> transpose(int... axes) {
        return of(core.view(core.layout().transpose(axes)));
    }

    /**
     * This array typed as {@code type}.
     *
     * @throws DTypeMismatchException if {@code type != dtype()}
     */
    @SuppressWarnings("unchecked")
    public <U extends DType<U>> SharedNDArray<U> as(U type) {
        core.checkDType(type);
        return (SharedNDArray<U>) this;
    }

    /** For a file-backed array, writes its pages to the file (msync); otherwise does nothing. */
    public void sync() {
        core.checkOpen();
        core.segment().sync();
    }

    /**
     * Detaches this process's view; the owner of a non-persistent array also destroys it; a view
     * closes only itself; a pool slot goes back to its pool (unless the pool's file was truncated:
     * its slots went with it). Idempotent.
     */
    @Override
    public void close() {
        core.close();
    }

    /**
     * Owner only: removes the array's name or file (a memfd goes when its last user closes) and
     * detaches. Processes still attached keep their mapping until they close. Idempotent.
     *
     * @throws IllegalStateException if this process attached rather than created the array, or {@code isView()}
     */
    public void destroy() {
        core.destroy();
    }

    /** A header (dtype, shape, handle), then the values as numpy's {@code str(a)} prints them (past 1000 elements, elided). */
    @Override
    public String toString() {
        return core.toString();
    }
}
