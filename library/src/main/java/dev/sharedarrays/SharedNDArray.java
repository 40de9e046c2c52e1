package dev.sharedarrays;

import dev.sharedarrays.internal.array.ElementAccess;
import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Locking;
import dev.sharedarrays.internal.segment.OutOfLineAccess;
import dev.sharedarrays.internal.array.Repr;
import dev.sharedarrays.internal.array.Shapes;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.sync.SlotLease;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

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
    private final Segment segment;
    /** Not named dtype or size: Kotlin would see those private fields before the DSL's properties. */
    private final T marker;
    private final ElementType type;
    private final StridedLayout layout;
    private final long count;
    private final boolean contiguous;
    /** Null for the array itself; the array a view was made from. */
    private final SharedNDArray<T> base;
    private volatile boolean viewClosed;
    private final Locking locks;
    /** A shm or file array, whose file another process may shrink: element accesses go out of line. */
    private final boolean mayShrink;
    /** The pool slot this array (or the slot it is a view of) is, else null: once it ends, access throws. */
    private final SlotLease lease;
    /** True for the slot's own array: closing it frees the slot, sending it moves the slot. */
    private final boolean ownsLease;

    SharedNDArray(Segment segment, T dtype) {
        this(segment, dtype, StridedLayout.contiguous(segment.facts().shape()), null, true, null, false);
    }

    private SharedNDArray(Segment segment, T dtype, StridedLayout layout, SharedNDArray<T> base, boolean locking,
            SlotLease lease, boolean ownsLease) {
        this.segment = segment;
        this.marker = dtype;
        this.type = dtype.elementType();
        this.layout = layout;
        this.count = layout.size();
        this.contiguous = layout.isContiguous();
        this.base = base;
        this.locks = new Locking(segment, locking);
        this.mayShrink = segment.mayShrink();
        this.lease = lease;
        this.ownsLease = ownsLease;
    }

    private SharedNDArray<T> view(StridedLayout l) {
        checkOpen();
        return new SharedNDArray<>(segment, marker, l, base == null ? this : base, locks.isLocking(), lease, false);
    }

    /**
     * Slot {@code index} of a pool (this array) as an array of its own, which {@code lease} frees
     * on close. It takes no lock: its owner is its only user, and the pool's one lock would
     * serialise the users of all its slots.
     */
    SharedNDArray<T> slot(long index, SlotLease lease) {
        checkOpen();
        return new SharedNDArray<>(segment, marker, layout.select(0, index), this, false, lease, true);
    }

    /** The view a queue message describes; an InvalidSegmentException if it reaches outside this array. */
    SharedNDArray<T> viewOf(long offset, long[] shape, long[] strides) {
        StridedLayout l = StridedLayout.within(offset, shape, strides, count);
        if (l == null) {
            throw new InvalidSegmentException("a queue message describes a view (offset " + offset + ", shape "
                    + Arrays.toString(shape) + ", strides " + Arrays.toString(strides) + ") outside " + handle()
                    + " of " + count + " elements");
        }
        return view(l);
    }

    /** The pool slot this array is (not a view of it), else null. */
    SlotLease lease() {
        return ownsLease ? lease : null;
    }

    /** A pool slot that a queue took over: closed here without freeing the slot. */
    void sent() {
        viewClosed = true;
    }

    /**
     * A view of the whole of this array (or view) whose bulk operations take no lock, and whose
     * views take none either. For workers that each own a disjoint part of an array and order
     * their phases with a barrier ({@link SharedBarrier}): the array's single lock would
     * otherwise serialise them. {@link #lockWrite()} and {@link #lockRead()} still lock.
     */
    public SharedNDArray<T> unlocked() {
        checkOpen();
        return new SharedNDArray<>(segment, marker, layout, base == null ? this : base, false, lease, false);
    }

    /** False for views made by {@link #unlocked()}: their bulk operations do not lock. */
    public boolean isLocking() {
        return locks.isLocking();
    }

    /** The element type. */
    public T dtype() {
        return marker;
    }

    /** A copy of the shape. */
    public long[] shape() {
        return layout.shape().clone();
    }

    /** A copy of the strides, in elements (negative for reversed axes). */
    public long[] strides() {
        return layout.strides().clone();
    }

    public int ndim() {
        return layout.ndim();
    }

    /** Number of elements. */
    public long size() {
        return count;
    }

    /** Bytes per element. */
    public int itemSize() {
        return type.itemSize();
    }

    /** True if the elements are adjacent and row-major (every whole array is). */
    public boolean isContiguous() {
        return contiguous;
    }

    /** True for a view made by slicing, selecting, reshaping or transposing. */
    public boolean isView() {
        return base != null;
    }

    /** The string another process passes to {@link SharedArrays#attach(String)} (of the whole array, for a view). */
    public ArrayHandle handle() {
        return segment.handle();
    }

    public Backend backend() {
        return segment.backend();
    }

    /** The 64-bit random id written at creation, the same in every process. */
    public long id() {
        return segment.facts().id();
    }

    /** True in the process that created the array. */
    public boolean isOwner() {
        return segment.isOwner() && base == null;
    }

    /** True if closing the owner leaves the array in place. */
    public boolean isPersistent() {
        return segment.facts().persistent();
    }

    public boolean isClosed() {
        return viewClosed || segment.isClosed() || lease != null && lease.isEnded();
    }

    /**
     * The file numpy can open with {@code numpy.load(path, mmap_mode='r+')}: the shm or file
     * path, or {@code /proc/<pid>/fd/<n>} for a memfd; empty for anonymous arrays.
     */
    public Optional<Path> path() {
        if (segment.path() != null) {
            return Optional.of(segment.path());
        }
        if (segment.fd() >= 0) {
            return Optional.of(Path.of("/proc", Long.toString(ProcessHandle.current().pid()), "fd", Integer.toString(segment.fd())));
        }
        return Optional.empty();
    }

    /** The memfd descriptor this process holds, for fd passing; -1 if none or closed. */
    int descriptor() {
        return segment.isClosed() ? -1 : segment.fd();
    }

    /** The element bytes of the whole array, for bulk work; inaccessible once the array is closed. */
    public MemorySegment data() {
        checkOpen();
        return segment.data();
    }

    /**
     * Where this array's first element sits in {@link #data()}, in elements: 0 for an array, the
     * view's or pool slot's offset otherwise. With {@link #isContiguous()}, the array's bytes are
     * {@code data().asSlice(elementOffset() * itemSize(), size() * itemSize())}: for bulk transfer
     * without copying (the Arrow Flight bridge sends them from there).
     */
    public long elementOffset() {
        checkOpen();
        return layout.offset();
    }

    ElementType type() {
        return type;
    }

    StridedLayout layout() {
        return layout;
    }

    Locking locks() {
        return locks;
    }

    Segment segment() {
        return segment;
    }

    MemorySegment mem() {
        if (viewClosed) {
            throw new IllegalStateException("view of " + segment.handle() + " is closed");
        }
        if (lease != null && lease.isEnded()) {
            throw new IllegalStateException("pool slot " + lease.slot() + " of " + segment.handle()
                    + " was given back or sent; its arrays and views are closed");
        }
        return segment.data();
    }

    void checkOpen() {
        mem();
    }

    long flatOffset(long index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("flat index " + index + " is out of bounds for size " + count
                    + " (shape " + Arrays.toString(layout.shape()) + ")");
        }
        return contiguous ? layout.offset() + index : layout.offsetOfFlat(index);
    }

    private double getDoubleAt(long off) {
        return ElementAccess.getDouble(type, segment, mem(), off, mayShrink);
    }

    private long getLongAt(long off) {
        return ElementAccess.getLong(type, segment, mem(), off, mayShrink);
    }

    private void setAt(long off, int op, double dv, long lv) {
        ElementAccess.set(type, segment, mem(), off, op, dv, lv, mayShrink);
    }

    /** An atomic access (see {@link OutOfLineAccess}) at byte offset off. */
    long atomic(int op, long off, long a, long b) {
        return ElementAccess.atomic(type, segment, mem(), op, off, a, b, mayShrink);
    }

    /** Element at a flat row-major index, as a double (U64 as its unsigned value). */
    public double getDouble(long index) {
        return getDoubleAt(flatOffset(index));
    }

    /** Element at a full multi-index, as a double. */
    public double getDouble(long[] index) {
        return getDoubleAt(layout.offsetOf(index));
    }

    /** Element at a flat index as a long: exact for integers (U64 as its bit pattern), truncated for floats. */
    public long getLong(long index) {
        return getLongAt(flatOffset(index));
    }

    /** Element at a full multi-index as a long, as {@link #getLong(long)}. */
    public long getLong(long[] index) {
        return getLongAt(layout.offsetOf(index));
    }

    /** Element at a flat index as an exact unsigned or signed integer (floats: truncated). */
    public BigInteger getUnsigned(long index) {
        long v = getLong(index);
        return type.isUnsigned64() ? ElementCodec.unsignedBig(v) : BigInteger.valueOf(v);
    }

    /** Stores a double; integer types take it truncated toward zero, then wrapped to their width. */
    public void setDouble(long index, double value) {
        setAt(flatOffset(index), OutOfLineAccess.SET_DOUBLE, value, 0);
    }

    /** Stores a double at a full multi-index, as {@link #setDouble(long, double)}. */
    public void setDouble(long[] index, double value) {
        setAt(layout.offsetOf(index), OutOfLineAccess.SET_DOUBLE, value, 0);
    }

    /** Stores a long, wrapped to the element width (for floats: converted). */
    public void setLong(long index, long value) {
        setAt(flatOffset(index), OutOfLineAccess.SET_LONG, 0, value);
    }

    /** Stores a long at a full multi-index, as {@link #setLong(long, long)}. */
    public void setLong(long[] index, long value) {
        setAt(layout.offsetOf(index), OutOfLineAccess.SET_LONG, 0, value);
    }

    /**
     * The view {@code start:stop:step} of one axis (Python rules for negative and out-of-range
     * bounds; {@link Long#MIN_VALUE}/{@link Long#MAX_VALUE} for open ends).
     *
     * @throws IllegalArgumentException if {@code step == 0} or the slice selects nothing
     */
    public SharedNDArray<T> slice(int axis, long start, long stop, long step) {
        return view(layout.slice(axis, start, stop, step));
    }

    /**
     * A view by one {@link Slice} per leading axis (missing trailing axes are taken whole);
     * {@link Slice#index} drops its axis.
     *
     * @throws IndexOutOfBoundsException if {@code slices.length > ndim()} or an index is out of range
     */
    public SharedNDArray<T> view(Slice... slices) {
        if (slices.length > layout.ndim()) {
            throw new IndexOutOfBoundsException(slices.length + " slices for an array of " + layout.ndim()
                    + " dimensions, shape " + Arrays.toString(layout.shape()));
        }
        StridedLayout l = layout;
        int axis = 0;
        for (Slice s : slices) {
            l = s.isIndex() ? l.select(axis, s.start()) : l.slice(axis++, s.start(), s.stop(), s.step());
        }
        return view(l);
    }

    /** The view with {@code axis} fixed at {@code index} (negative counts from the end); one dimension fewer. */
    public SharedNDArray<T> select(int axis, long index) {
        return view(layout.select(axis, index));
    }

    /**
     * A view with another shape and the same elements in row-major order; one dimension may be -1 (inferred).
     *
     * @throws ShapeMismatchException if the element counts differ
     * @throws IllegalStateException if {@code !isContiguous()}: {@link #copy()} first
     */
    public SharedNDArray<T> reshape(long... newShape) {
        long[] s = Shapes.reshape(layout.shape(), count, newShape);
        if (!contiguous) {
            throw new IllegalStateException("reshape of a non-contiguous view (shape " + Arrays.toString(layout.shape())
                    + ", strides " + Arrays.toString(layout.strides()) + ") would need a copy; call copy() first");
        }
        return view(layout.reshape(s));
    }

    /** The view with the axes reversed (a matrix transpose for 2 dimensions). */
    public SharedNDArray<T> transpose() {
        int[] perm = new int[layout.ndim()];
        for (int i = 0; i < perm.length; i++) {
            perm[i] = perm.length - 1 - i;
        }
        return view(layout.transpose(perm));
    }

    /** The view whose axis i is axis {@code axes[i]} of this. */
    public SharedNDArray<T> transpose(int... axes) {
        return view(layout.transpose(axes));
    }

    void scalar(Op op, double value) {
        locks.write(() -> InPlace.scalar(type, op, mem(), layout, value));
    }

    void scalar(Op op, long value) {
        locks.write(() -> InPlace.scalar(type, op, mem(), layout, value));
    }

    void binary(Op op, SharedNDArray<T> other) {
        MemorySegment a = mem();
        MemorySegment b = other.mem();
        StridedLayout lb = InPlace.operand(op, type, layout, other.type, other.layout);
        locks.writeReading(other.locks, () -> InPlace.binary(type, op, a, layout, b, lb, other.id() == id()));
    }

    /** Runs fill on a new array and returns it, or closes it if fill fails. */
    static <R extends DType<R>> SharedNDArray<R> filled(SharedNDArray<R> out, Consumer<SharedNDArray<R>> fill) {
        try {
            fill.accept(out);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
        return out;
    }

    /**
     * This array typed as {@code type}.
     *
     * @throws DTypeMismatchException if {@code type != dtype()}
     */
    @SuppressWarnings("unchecked")
    public <U extends DType<U>> SharedNDArray<U> as(U type) {
        if (type != (Object) marker) {
            throw new DTypeMismatchException("array " + handle() + " holds " + marker + " (" + marker.descr()
                    + "), not " + type + " (" + type.descr() + ")");
        }
        return (SharedNDArray<U>) this;
    }

    /** For a file-backed array, writes its pages to the file (msync); otherwise does nothing. */
    public void sync() {
        checkOpen();
        segment.sync();
    }

    /**
     * Detaches this process's view; the owner of a non-persistent array also destroys it; a view
     * closes only itself; a pool slot goes back to its pool (unless the pool's file was truncated:
     * its slots went with it). Idempotent.
     */
    @Override
    public void close() {
        if (ownsLease && !lease.isEnded()) {
            try {
                segment.guardRun(lease::release);
            } catch (SegmentTruncatedException e) {
                lease.drop(); // ended already if the release began
            }
        }
        if (base != null) {
            viewClosed = true;
        } else {
            segment.close();
        }
    }

    /**
     * Owner only: removes the array's name or file (a memfd goes when its last user closes) and
     * detaches. Processes still attached keep their mapping until they close. Idempotent.
     *
     * @throws IllegalStateException if this process attached rather than created the array, or {@code isView()}
     */
    public void destroy() {
        if (base != null) {
            throw new IllegalStateException("destroy() the array, not a view of it (" + handle() + ")");
        }
        segment.destroy();
    }

    /** A header (dtype, shape, handle), then the values as numpy's {@code str(a)} prints them (past 1000 elements, elided). */
    @Override
    public String toString() {
        String head = "SharedNDArray(" + marker + ", shape=" + Arrays.toString(layout.shape()) + (base != null ? ", view of " : ", ")
                + handle();
        if (isClosed()) {
            return head + ", closed)";
        }
        MemorySegment d = mem();
        try {
            segment.checkNotTruncated();
            String values = Repr.format(type, layout.shape(), d, layout::offsetOfFlat);
            OutOfLineAccess.poll();
            return head + ")\n" + values;
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }
}
