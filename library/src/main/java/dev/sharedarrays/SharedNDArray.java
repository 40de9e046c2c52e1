package dev.sharedarrays;

import dev.sharedarrays.internal.array.Atomics;
import dev.sharedarrays.internal.array.AxisReduction;
import dev.sharedarrays.internal.array.ElementCodec;
import dev.sharedarrays.internal.array.HeapCopy;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Locking;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.Repr;
import dev.sharedarrays.internal.array.Shapes;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.sync.ArrayLock;
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
 * writes are plain memory accesses with no ordering between threads or processes. Bulk
 * operations lock the array across processes ({@link #lockWrite()} tells which lock each
 * takes); {@link #withWriteLock} and {@link #withReadLock} group element accesses; atomic
 * element operations on I32/I64 ({@link #compareAndSet}, {@link #getAndAdd}, {@link #getAndSet})
 * serve as flags and counters.
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
public final class SharedNDArray<T extends DType<T>> implements AutoCloseable {
    private final Segment segment;
    private final T dtype;
    private final ElementType type;
    private final StridedLayout layout;
    private final long size;
    private final boolean contiguous;
    /** Null for the array itself; the array a view was made from. */
    private final SharedNDArray<T> base;
    private volatile boolean viewClosed;
    private final Locking locks;

    SharedNDArray(Segment segment, T dtype) {
        this(segment, dtype, StridedLayout.contiguous(segment.meta().shape()), null, true);
    }

    private SharedNDArray(Segment segment, T dtype, StridedLayout layout, SharedNDArray<T> base, boolean locking) {
        this.segment = segment;
        this.dtype = dtype;
        this.type = dtype.elementType();
        this.layout = layout;
        this.size = layout.size();
        this.contiguous = layout.isContiguous();
        this.base = base;
        this.locks = new Locking(segment, locking);
    }

    private SharedNDArray<T> view(StridedLayout l) {
        checkOpen();
        return new SharedNDArray<>(segment, dtype, l, base == null ? this : base, locks.isLocking());
    }

    /**
     * A view of the whole of this array (or view) whose bulk operations take no lock, and whose
     * views take none either. For workers that each own a disjoint part of an array and order
     * their phases with a barrier ({@link SharedBarrier}): the array's single lock would
     * otherwise serialise them. {@link #lockWrite()} and {@link #lockRead()} still lock.
     */
    public SharedNDArray<T> unlocked() {
        checkOpen();
        return new SharedNDArray<>(segment, dtype, layout, base == null ? this : base, false);
    }

    /** False for views made by {@link #unlocked()}: their bulk operations do not lock. */
    public boolean isLocking() {
        return locks.isLocking();
    }

    // ---------------------------------------------------------------- description

    /** The element type. */
    public T dtype() {
        return dtype;
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
        return size;
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
        return segment.meta().id();
    }

    /** True in the process that created the array. */
    public boolean isOwner() {
        return segment.isOwner() && base == null;
    }

    /** True if closing the owner leaves the array in place. */
    public boolean isPersistent() {
        return segment.meta().persistent();
    }

    public boolean isClosed() {
        return viewClosed || segment.isClosed();
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

    /**
     * The element bytes of the whole array as a memory segment, for bulk work. It becomes
     * inaccessible when the array is closed.
     */
    public MemorySegment data() {
        checkOpen();
        return segment.data();
    }

    private MemorySegment mem() {
        if (viewClosed) {
            throw new IllegalStateException("view of " + segment.handle() + " is closed");
        }
        return segment.data();
    }

    private void checkOpen() {
        mem();
    }

    // ---------------------------------------------------------------- elements

    private long flatOffset(long index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("flat index " + index + " is out of bounds for size " + size
                    + " (shape " + Arrays.toString(layout.shape()) + ")");
        }
        return contiguous ? layout.offset() + index : layout.offsetOfFlat(index);
    }

    /** Element at a flat row-major index, as a double (U64 as its unsigned value). */
    public double getDouble(long index) {
        MemorySegment d = mem();
        return ElementCodec.getDouble(type, d, flatOffset(index));
    }

    /** Element at a full multi-index, as a double. */
    public double getDouble(long[] index) {
        MemorySegment d = mem();
        return ElementCodec.getDouble(type, d, layout.offsetOf(index));
    }

    /**
     * Element at a flat index as a long: the exact value for integer types (unsigned types as
     * their unsigned value, U64 as its bit pattern), truncated toward zero for floats.
     */
    public long getLong(long index) {
        MemorySegment d = mem();
        return ElementCodec.getLong(type, d, flatOffset(index));
    }

    /** Element at a full multi-index as a long, as {@link #getLong(long)}. */
    public long getLong(long[] index) {
        MemorySegment d = mem();
        return ElementCodec.getLong(type, d, layout.offsetOf(index));
    }

    /** Element at a flat index as an exact unsigned or signed integer (floats: truncated). */
    public BigInteger getUnsigned(long index) {
        long v = getLong(index);
        return type.isUnsigned64() ? ElementCodec.unsignedBig(v) : BigInteger.valueOf(v);
    }

    /** Stores a double; integer types take it truncated toward zero, then wrapped to their width. */
    public void setDouble(long index, double value) {
        MemorySegment d = mem();
        ElementCodec.setDouble(type, d, flatOffset(index), value);
    }

    /** Stores a double at a full multi-index, as {@link #setDouble(long, double)}. */
    public void setDouble(long[] index, double value) {
        MemorySegment d = mem();
        ElementCodec.setDouble(type, d, layout.offsetOf(index), value);
    }

    /** Stores a long, wrapped to the element width (for floats: converted). */
    public void setLong(long index, long value) {
        MemorySegment d = mem();
        ElementCodec.setLong(type, d, flatOffset(index), value);
    }

    /** Stores a long at a full multi-index, as {@link #setLong(long, long)}. */
    public void setLong(long[] index, long value) {
        MemorySegment d = mem();
        ElementCodec.setLong(type, d, layout.offsetOf(index), value);
    }

    // ---------------------------------------------------------------- views

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
            if (s.isIndex()) {
                l = l.select(axis, s.start());
            } else {
                l = l.slice(axis, s.start(), s.stop(), s.step());
                axis++;
            }
        }
        return view(l);
    }

    /** The view with {@code axis} fixed at {@code index} (negative counts from the end); one dimension fewer. */
    public SharedNDArray<T> select(int axis, long index) {
        return view(layout.select(axis, index));
    }

    /**
     * A view with another shape and the same elements in row-major order. One dimension may be
     * -1: it is inferred.
     *
     * @throws ShapeMismatchException if the element counts differ
     * @throws IllegalStateException if {@code !isContiguous()}: {@link #copy()} first
     */
    public SharedNDArray<T> reshape(long... newShape) {
        long[] s = Shapes.reshape(layout.shape(), size, newShape);
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

    // ---------------------------------------------------------------- bulk

    /** Sets every element; integer types take the value truncated and wrapped. */
    public void fill(double value) {
        locks.write(() -> Loops.fill(type, mem(), layout, value, ElementCodec.toLongBits(type, value)));
    }

    /** Sets every element; wrapped to the element width (floats: converted). */
    public void fill(long value) {
        locks.write(() -> Loops.fill(type, mem(), layout, (double) value, value));
    }

    /** Sets every element to zero. */
    public void zero() {
        fill(0L);
    }

    /** Copies the values in row-major order, converted as {@link #setDouble}. */
    public void copyFrom(double[] values) {
        copyIn(values, values.length);
    }

    /** Copies the values in row-major order, converted as {@link #setLong}. */
    public void copyFrom(long[] values) {
        copyIn(values, values.length);
    }

    /** Copies the values in row-major order, converted as {@link #setLong}. */
    public void copyFrom(int[] values) {
        copyIn(values, values.length);
    }

    /** Copies the values in row-major order, converted as {@link #setDouble}. */
    public void copyFrom(float[] values) {
        copyIn(values, values.length);
    }

    /** Copies the values in row-major order, converted as {@link #setLong}. */
    public void copyFrom(short[] values) {
        copyIn(values, values.length);
    }

    /** Copies the values in row-major order, converted as {@link #setLong}. */
    public void copyFrom(byte[] values) {
        copyIn(values, values.length);
    }

    private void copyIn(Object heapArray, int length) {
        locks.write(() -> {
            if (length != size) {
                throw new ShapeMismatchException("a heap array of " + length + " elements does not fit an array of size " + size
                        + " (shape " + Arrays.toString(layout.shape()) + ")");
            }
            HeapCopy.copyIn(type, mem(), layout, heapArray);
        });
    }

    /**
     * Copies another array of the same dtype and shape into this one (overlapping views of one
     * array are handled as numpy does: as if through a temporary copy).
     */
    public void copyFrom(SharedNDArray<T> other) {
        binary(Op.ASSIGN, other);
    }

    /** The elements in row-major order as doubles. */
    public double[] toDoubleArray() {
        return copyOut(new double[heapLength()]);
    }

    /** The elements in row-major order as longs, as {@link #getLong(long)}. */
    public long[] toLongArray() {
        return copyOut(new long[heapLength()]);
    }

    /** The elements in row-major order as floats. */
    public float[] toFloatArray() {
        return copyOut(new float[heapLength()]);
    }

    /** The elements in row-major order as ints (wider values truncated to 32 bits). */
    public int[] toIntArray() {
        return copyOut(new int[heapLength()]);
    }

    private <A> A copyOut(A heapArray) {
        return locks.read(() -> {
            HeapCopy.copyOut(type, mem(), layout, heapArray);
            return heapArray;
        });
    }

    private int heapLength() {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("an array of " + size + " elements does not fit a Java array; copy a slice");
        }
        return (int) size;
    }

    /**
     * The elements in row-major order, each in the closest Java type that holds it exactly:
     * Double, Float, Long, Integer, Short, Byte for the signed types; Integer for U8 and U16,
     * Long for U32, BigInteger for U64. A copy.
     */
    public List<Number> toList() {
        return locks.read(() -> {
            Number[] out = new Number[heapLength()];
            MemorySegment d = mem();
            for (int i = 0; i < out.length; i++) {
                out[i] = ElementCodec.getNumber(type, d, contiguous ? layout.offset() + i : layout.offsetOfFlat(i));
            }
            return List.of(out);
        });
    }

    /** A new contiguous shared array with these elements (the process's backend, a generated name). */
    public SharedNDArray<T> copy() {
        return copy(CreateOptions.defaults());
    }

    /** A new contiguous shared array with these elements, created as {@code options} say. */
    public SharedNDArray<T> copy(CreateOptions options) {
        return locks.read(() -> {
            checkOpen();
            return filled(SharedArrays.create(dtype, layout.shape(), options),
                    out -> Loops.binary(type, Op.ASSIGN, out.mem(), out.layout, mem(), layout));
        });
    }

    /** Runs fill on a new array and returns it, or closes it if fill fails. */
    private static <R extends DType<R>> SharedNDArray<R> filled(SharedNDArray<R> out, Consumer<SharedNDArray<R>> fill) {
        try {
            fill.accept(out);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
        return out;
    }

    // ---------------------------------------------------------------- reductions

    /** Sum of all elements in double (integers: numpy's wrapping 64-bit sum, then converted). */
    public double sum() {
        return locks.readDouble(() -> type.isFloatingPoint() ? Loops.reduceFloat(type, Op.SUM, mem(), layout)
                : ElementCodec.longToDouble(type, Loops.reduceInt(type, Op.SUM, mem(), layout)));
    }

    /** {@link #sum()} divided by {@link #size()}. */
    public double mean() {
        return sum() / size;
    }

    /** The smallest element as a double (NaN if a float element is NaN). */
    public double minAsDouble() {
        return reduceAsDouble(Op.MIN);
    }

    /** The largest element as a double (NaN if a float element is NaN). */
    public double maxAsDouble() {
        return reduceAsDouble(Op.MAX);
    }

    private double reduceAsDouble(Op op) {
        return locks.readDouble(() -> type.isFloatingPoint() ? Loops.reduceFloat(type, op, mem(), layout)
                : ElementCodec.longToDouble(type, Loops.reduceInt(type, op, mem(), layout)));
    }

    /**
     * The smallest element of an integer array, exactly (unsigned types as their value, U64 as
     * its bit pattern).
     *
     * @throws DTypeMismatchException if {@code dtype().isFloatingPoint()}: use {@link #minAsDouble()}
     */
    public long minAsLong() {
        return reduceAsLong(Op.MIN, "minAsLong", "minAsDouble");
    }

    /**
     * The largest element of an integer array, exactly.
     *
     * @throws DTypeMismatchException if {@code dtype().isFloatingPoint()}: use {@link #maxAsDouble()}
     */
    public long maxAsLong() {
        return reduceAsLong(Op.MAX, "maxAsLong", "maxAsDouble");
    }

    private long reduceAsLong(Op op, String method, String instead) {
        return locks.readLong(() -> {
            if (type.isFloatingPoint()) {
                throw new DTypeMismatchException(method + "() is for integer arrays, this one holds " + dtype + "; use " + instead + "()");
            }
            return Loops.reduceInt(type, op, mem(), layout);
        });
    }

    /** Sums along one axis into a new F64 array without that axis (shape [1] for a 1-d array). */
    public SharedNDArray<F64> sum(int axis) {
        return reduceAxis(axis, Op.SUM, false);
    }

    /** Means along one axis into a new F64 array without that axis. */
    public SharedNDArray<F64> mean(int axis) {
        return reduceAxis(axis, Op.SUM, true);
    }

    /** Minima along one axis into a new array of this dtype without that axis. */
    public SharedNDArray<T> min(int axis) {
        return reduceAxis(axis, Op.MIN, false);
    }

    /** Maxima along one axis into a new array of this dtype without that axis. */
    public SharedNDArray<T> max(int axis) {
        return reduceAxis(axis, Op.MAX, false);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private <R extends DType<R>> SharedNDArray<R> reduceAxis(int axis, Op op, boolean mean) {
        return locks.read(() -> {
            MemorySegment d = mem();
            long[] outShape = AxisReduction.outShape(layout.shape(), axis);
            R outType = (R) DType.of(AxisReduction.outType(type, op));
            return filled(SharedArrays.create(outType, outShape),
                    out -> AxisReduction.reduce(type, op, mean, d, layout, axis, out.mem()));
        });
    }

    // ---------------------------------------------------------------- arithmetic

    /** Adds a scalar to every element, in place. */
    public void add(double value) {
        locks.write(() -> InPlace.scalar(type, Op.ADD, mem(), layout, value));
    }

    /** Subtracts a scalar from every element, in place. */
    public void sub(double value) {
        locks.write(() -> InPlace.scalar(type, Op.SUB, mem(), layout, value));
    }

    /** Multiplies every element by a scalar, in place. */
    public void mul(double value) {
        locks.write(() -> InPlace.scalar(type, Op.MUL, mem(), layout, value));
    }

    /** Divides every element by a scalar, in place (IEEE: x/0 is ±inf or NaN). */
    public void div(double value) {
        locks.write(() -> InPlace.scalar(type, Op.DIV, mem(), layout, value));
    }

    /** Adds an integer scalar in place; integer arrays wrap. */
    public void add(long value) {
        locks.write(() -> InPlace.scalar(type, Op.ADD, mem(), layout, value));
    }

    /** Subtracts an integer scalar in place; integer arrays wrap. */
    public void sub(long value) {
        locks.write(() -> InPlace.scalar(type, Op.SUB, mem(), layout, value));
    }

    /** Multiplies by an integer scalar in place; integer arrays wrap. */
    public void mul(long value) {
        locks.write(() -> InPlace.scalar(type, Op.MUL, mem(), layout, value));
    }

    /**
     * Divides by an integer scalar in place: floor division for integer arrays.
     *
     * @throws ArithmeticException if an integer array is divided by {@code value == 0} (nothing is written)
     */
    public void div(long value) {
        locks.write(() -> InPlace.scalar(type, Op.DIV, mem(), layout, value));
    }

    /** Adds another array of the same dtype and shape element-wise, in place ({@code a.add(a)} doubles). */
    public void add(SharedNDArray<T> other) {
        binary(Op.ADD, other);
    }

    /** Subtracts another array element-wise, in place. */
    public void sub(SharedNDArray<T> other) {
        binary(Op.SUB, other);
    }

    /** Multiplies by another array element-wise, in place. */
    public void mul(SharedNDArray<T> other) {
        binary(Op.MUL, other);
    }

    /**
     * Divides by another array element-wise, in place (floor division for integer arrays).
     *
     * @throws ArithmeticException if an integer divisor element is 0 (nothing is written)
     */
    public void div(SharedNDArray<T> other) {
        binary(Op.DIV, other);
    }

    private void binary(Op op, SharedNDArray<T> other) {
        MemorySegment a = mem();
        MemorySegment b = other.mem();
        if (other.dtype != (Object) dtype) {
            throw new DTypeMismatchException("cannot " + op.verb() + " a " + other.dtype + " array into a " + dtype
                    + " array: dtypes differ (" + dtype.descr() + " vs " + other.dtype.descr() + ")");
        }
        StridedLayout lb = other.layout;
        if (!Arrays.equals(layout.shape(), lb.shape())) {
            if (contiguous && other.contiguous && size == other.size) {
                lb = lb.reshape(layout.shape());
            } else {
                throw new ShapeMismatchException("cannot " + op.verb() + " arrays of shapes " + Arrays.toString(layout.shape())
                        + " and " + Arrays.toString(lb.shape()) + (contiguous && other.contiguous
                        ? " (sizes " + size + " and " + other.size + ")" : "; non-contiguous views must have equal shapes"));
            }
        }
        StridedLayout operand = lb;
        locks.writeReading(other.locks, () -> InPlace.binary(type, op, a, layout, b, operand, other.id() == id()));
    }

    // ---------------------------------------------------------------- locks and atomics

    /**
     * Runs {@code action} holding this array's write lock: no other process or thread holds its
     * read or write lock meanwhile. Bulk operations inside (fill, +=, ...) re-enter the lock.
     * The lock is the whole array's, also when called on a view. See {@link #lockWrite()}.
     */
    public void withWriteLock(Runnable action) {
        try (HeldLock ignored = lockWrite()) {
            action.run();
        }
    }

    /** Runs {@code action} holding this array's read lock: no process or thread writes under the lock meanwhile. */
    public void withReadLock(Runnable action) {
        try (HeldLock ignored = lockRead()) {
            action.run();
        }
    }

    /**
     * Takes this array's cross-process write lock and returns it held; close it on the same
     * thread. Writer preferring: once a writer holds the lock's writer word, new readers wait.
     * Reentrant per thread; a thread holding the write lock may take the read lock too. If the
     * holder of the lock is a process that died, the lock is taken over within about 50 ms
     * (its data may be half-written). Blocks without a timeout otherwise.
     *
     * <p>Bulk mutations (fill, copyFrom, in-place arithmetic) take the write lock themselves,
     * reductions and copies out take the read lock, and an operation on two arrays takes both in
     * the order of array id, so {@code x += y} and {@code y += x} in two processes cannot
     * deadlock. Element get/set do not lock: group them in a lock where they must be consistent.
     *
     * @throws IllegalStateException if this thread holds the read lock (a read lock cannot be
     *         upgraded), or {@code isClosed()}
     */
    public HeldLock lockWrite() {
        checkOpen();
        segment.lockWrite();
        return new Hold(segment, true);
    }

    /**
     * Takes this array's cross-process read lock (shared with other readers, excluding writers)
     * and returns it held; see {@link #lockWrite()}.
     *
     * @throws IllegalStateException if {@code isClosed()}
     */
    public HeldLock lockRead() {
        checkOpen();
        segment.lockRead();
        return new Hold(segment, false);
    }

    private static final class Hold implements HeldLock {
        private final Segment segment;
        private final boolean write;
        private boolean open = true;

        Hold(Segment segment, boolean write) {
            this.segment = segment;
            this.write = write;
        }

        @Override
        public void close() {
            if (open) {
                if (write) {
                    segment.unlockWrite();
                } else {
                    segment.unlockRead();
                }
                open = false;
            }
        }
    }

    /** Who holds this array's lock right now (a snapshot, for diagnostics). */
    public LockStatus lockStatus() {
        MemorySegment c = segment.control();
        return new LockStatus(ArrayLock.writerPid(c), ArrayLock.readerPids(c), ArrayLock.recoveries(c));
    }

    private long atomicOffset(long index, long value, String what) {
        Atomics.check(type, value, what, dtype);
        return flatOffset(index) * itemSize();
    }

    /**
     * Atomically sets element {@code index} (row-major flat index, as {@link #getLong(long)}) to
     * {@code value} if it equals {@code expected}. I64 and I32 arrays only.
     *
     * <p>Memory ordering of all atomic operations: each is sequentially consistent (a volatile
     * access in the Java memory model, a locked instruction on x86-64) across threads and
     * processes that use these methods (or C atomics) on the same element. Plain writes made by a
     * thread before an atomic operation are visible to any thread, in any process, that reads
     * its result with an atomic operation.
     *
     * @return true if the element was {@code expected} and is now {@code value}
     * @throws DTypeMismatchException if {@code dtype() != I64.TYPE && dtype() != I32.TYPE}
     * @throws IllegalArgumentException if a value is out of range for I32
     * @throws IndexOutOfBoundsException if {@code index < 0 || index >= size()}
     */
    public boolean compareAndSet(long index, long expected, long value) {
        long off = atomicOffset(index, value, "compareAndSet");
        atomicOffset(index, expected, "compareAndSet");
        return Atomics.compareAndSet(type, mem(), off, expected, value);
    }

    /**
     * Atomically adds {@code delta} to element {@code index} (wrapping) and returns the previous
     * value. I64 and I32 arrays only; ordering as {@link #compareAndSet}.
     */
    public long getAndAdd(long index, long delta) {
        long off = atomicOffset(index, delta, "getAndAdd");
        return Atomics.getAndAdd(type, mem(), off, delta);
    }

    /**
     * Atomically replaces element {@code index} with {@code value} and returns the previous
     * value. I64 and I32 arrays only; ordering as {@link #compareAndSet}.
     */
    public long getAndSet(long index, long value) {
        long off = atomicOffset(index, value, "getAndSet");
        return Atomics.getAndSet(type, mem(), off, value);
    }

    /** Reads element {@code index} with volatile semantics. I64 and I32 arrays only. */
    public long getVolatile(long index) {
        long off = atomicOffset(index, 0, "getVolatile");
        return Atomics.getVolatile(type, mem(), off);
    }

    /** Writes element {@code index} with volatile semantics. I64 and I32 arrays only. */
    public void setVolatile(long index, long value) {
        long off = atomicOffset(index, value, "setVolatile");
        Atomics.setVolatile(type, mem(), off, value);
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * This array typed as {@code type}.
     *
     * @throws DTypeMismatchException if {@code type != dtype()}
     */
    @SuppressWarnings("unchecked")
    public <U extends DType<U>> SharedNDArray<U> as(U type) {
        if (type != (Object) dtype) {
            throw new DTypeMismatchException("array " + handle() + " holds " + dtype + " (" + dtype.descr()
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
     * Detaches this process's view. For the owner of a non-persistent array this also destroys
     * it. For a view, closes only the view. Idempotent.
     */
    @Override
    public void close() {
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
     * @throws IllegalStateException if this process attached rather than created the array, or
     *         {@code isView()}
     */
    public void destroy() {
        if (base != null) {
            throw new IllegalStateException("destroy() the array, not a view of it (" + handle() + ")");
        }
        segment.destroy();
    }

    /**
     * A numpy-like rendering: dtype, shape, handle and the values, eliding the middle of each
     * axis when there are more than 1000 elements.
     */
    @Override
    public String toString() {
        String head = "SharedNDArray(" + dtype + ", shape=" + Arrays.toString(layout.shape()) + (base != null ? ", view of " : ", ")
                + handle();
        if (isClosed()) {
            return head + ", closed)";
        }
        MemorySegment d = mem();
        return head + ")\n" + Repr.format(layout.shape(), flat -> ElementCodec.format(type, d, layout.offsetOfFlat(flat)));
    }
}
