package dev.sharedarrays;

import dev.sharedarrays.internal.sync.ArrayLock;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import dev.sharedarrays.internal.array.Layout;
import dev.sharedarrays.internal.array.Repr;
import dev.sharedarrays.internal.segment.Segment;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
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
    private static final ValueLayout.OfDouble F64_L = ValueLayout.JAVA_DOUBLE;
    private static final ValueLayout.OfFloat F32_L = ValueLayout.JAVA_FLOAT;
    private static final ValueLayout.OfLong I64_L = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt I32_L = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfShort I16_L = ValueLayout.JAVA_SHORT;
    private static final ValueLayout.OfByte I8_L = ValueLayout.JAVA_BYTE;
    private static final VarHandle ATOMIC_LONG = I64_L.varHandle();
    private static final VarHandle ATOMIC_INT = I32_L.varHandle();

    private final Segment segment;
    private final T dtype;
    private final Layout layout;
    private final long size;
    private final int code;
    private final ElementType type;
    private final boolean contiguous;
    /** Null for the array itself; the array a view was made from. */
    private final SharedNDArray<T> base;
    private volatile boolean viewClosed;
    /** False for {@link #unlocked()} views. */
    private final boolean locking;

    SharedNDArray(Segment segment, T dtype) {
        this(segment, dtype, Layout.contiguous(segment.facts().shape()), null, true);
    }

    private SharedNDArray(Segment segment, T dtype, Layout layout, SharedNDArray<T> base, boolean locking) {
        this.segment = segment;
        this.dtype = dtype;
        this.layout = layout;
        this.size = layout.size();
        this.code = dtype.code();
        this.type = dtype.elementType();
        this.contiguous = layout.isContiguous();
        this.base = base;
        this.locking = locking;
    }

    private SharedNDArray<T> view(Layout l) {
        checkOpen();
        return new SharedNDArray<>(segment, dtype, l, base == null ? this : base, locking);
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
        return locking;
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
        return dtype.itemSize();
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

    private double readDouble(MemorySegment d, long i) {
        return switch (code) {
            case 1 -> d.getAtIndex(F64_L, i);
            case 2 -> d.getAtIndex(F32_L, i);
            case 3 -> d.getAtIndex(I64_L, i);
            case 4 -> d.getAtIndex(I32_L, i);
            case 5 -> d.getAtIndex(I16_L, i);
            case 6 -> d.getAtIndex(I8_L, i);
            case 7 -> unsignedToDouble(d.getAtIndex(I64_L, i));
            case 8 -> Integer.toUnsignedLong(d.getAtIndex(I32_L, i));
            case 9 -> Short.toUnsignedInt(d.getAtIndex(I16_L, i));
            default -> Byte.toUnsignedInt(d.getAtIndex(I8_L, i));
        };
    }

    private long readLong(MemorySegment d, long i) {
        return switch (code) {
            case 1 -> (long) d.getAtIndex(F64_L, i);
            case 2 -> (long) d.getAtIndex(F32_L, i);
            case 3, 7 -> d.getAtIndex(I64_L, i);
            case 4 -> d.getAtIndex(I32_L, i);
            case 5 -> d.getAtIndex(I16_L, i);
            case 6 -> d.getAtIndex(I8_L, i);
            case 8 -> Integer.toUnsignedLong(d.getAtIndex(I32_L, i));
            case 9 -> Short.toUnsignedInt(d.getAtIndex(I16_L, i));
            default -> Byte.toUnsignedInt(d.getAtIndex(I8_L, i));
        };
    }

    private void writeDouble(MemorySegment d, long i, double value) {
        switch (code) {
            case 1 -> d.setAtIndex(F64_L, i, value);
            case 2 -> d.setAtIndex(F32_L, i, (float) value);
            default -> writeLong(d, i, code == 7 ? doubleToUnsigned(value) : (long) value);
        }
    }

    private void writeLong(MemorySegment d, long i, long value) {
        switch (code) {
            case 1 -> d.setAtIndex(F64_L, i, (double) value);
            case 2 -> d.setAtIndex(F32_L, i, (float) value);
            case 3, 7 -> d.setAtIndex(I64_L, i, value);
            case 4, 8 -> d.setAtIndex(I32_L, i, (int) value);
            case 5, 9 -> d.setAtIndex(I16_L, i, (short) value);
            default -> d.setAtIndex(I8_L, i, (byte) value);
        }
    }

    /** Element at a flat row-major index, as a double (U64 as its unsigned value). */
    public double getDouble(long index) {
        MemorySegment d = mem();
        return readDouble(d, flatOffset(index));
    }

    /** Element at a full multi-index, as a double. */
    public double getDouble(long[] index) {
        MemorySegment d = mem();
        return readDouble(d, layout.offsetOf(index));
    }

    /**
     * Element at a flat index as a long: the exact value for integer types (unsigned types as
     * their unsigned value, U64 as its bit pattern), truncated toward zero for floats.
     */
    public long getLong(long index) {
        MemorySegment d = mem();
        return readLong(d, flatOffset(index));
    }

    /** Element at a full multi-index as a long, as {@link #getLong(long)}. */
    public long getLong(long[] index) {
        MemorySegment d = mem();
        return readLong(d, layout.offsetOf(index));
    }

    /** Element at a flat index as an exact unsigned or signed integer (floats: truncated). */
    public BigInteger getUnsigned(long index) {
        long v = getLong(index);
        return code == 7 ? new BigInteger(Long.toUnsignedString(v)) : BigInteger.valueOf(v);
    }

    /** Stores a double; integer types take it truncated toward zero, then wrapped to their width. */
    public void setDouble(long index, double value) {
        MemorySegment d = mem();
        writeDouble(d, flatOffset(index), value);
    }

    /** Stores a double at a full multi-index, as {@link #setDouble(long, double)}. */
    public void setDouble(long[] index, double value) {
        MemorySegment d = mem();
        writeDouble(d, layout.offsetOf(index), value);
    }

    /** Stores a long, wrapped to the element width (for floats: converted). */
    public void setLong(long index, long value) {
        MemorySegment d = mem();
        writeLong(d, flatOffset(index), value);
    }

    /** Stores a long at a full multi-index, as {@link #setLong(long, long)}. */
    public void setLong(long[] index, long value) {
        MemorySegment d = mem();
        writeLong(d, layout.offsetOf(index), value);
    }

    private static double unsignedToDouble(long bits) {
        double d = (double) (bits >>> 1) * 2.0;
        return d + (bits & 1);
    }

    private static long doubleToUnsigned(double v) {
        if (v >= 0x1p63) {
            return (long) (v - 0x1p63) ^ Long.MIN_VALUE;
        }
        return (long) v;
    }

    // ---------------------------------------------------------------- views

    /**
     * The view {@code start:stop:step} of one axis (Python rules for negative and out-of-range
     * bounds; {@link Long#MIN_VALUE}/{@link Long#MAX_VALUE} for open ends).
     *
     * @throws IllegalArgumentException if step is 0 or the slice selects nothing
     */
    public SharedNDArray<T> slice(int axis, long start, long stop, long step) {
        return view(layout.slice(axis, start, stop, step));
    }

    /**
     * A view by one {@link Slice} per leading axis (missing trailing axes are taken whole);
     * {@link Slice#index} drops its axis.
     *
     * @throws IndexOutOfBoundsException if there are more slices than axes or an index is out of range
     */
    public SharedNDArray<T> view(Slice... slices) {
        if (slices.length > layout.ndim()) {
            throw new IndexOutOfBoundsException(slices.length + " slices for an array of " + layout.ndim()
                    + " dimensions, shape " + Arrays.toString(layout.shape()));
        }
        Layout l = layout;
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

    /**
     * The view with {@code axis} fixed at {@code index} (negative counts from the end); it has
     * one dimension fewer.
     */
    public SharedNDArray<T> select(int axis, long index) {
        return view(layout.select(axis, index));
    }

    /**
     * A view with another shape and the same elements in row-major order. One dimension may be
     * -1: it is inferred.
     *
     * @throws ShapeMismatchException if the element counts differ
     * @throws IllegalStateException if this view is not contiguous: {@link #copy()} first
     */
    public SharedNDArray<T> reshape(long... newShape) {
        long[] s = newShape.clone();
        int infer = -1;
        long known = 1;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == -1 && infer < 0) {
                infer = i;
            } else if (s[i] < 1) {
                throw new IllegalArgumentException("reshape to " + Arrays.toString(newShape) + ": dimension " + i + " is " + s[i]
                        + "; dimensions are >= 1, or one of them -1");
            } else {
                known = Math.multiplyExact(known, s[i]);
            }
        }
        if (infer >= 0 && known > 0 && size % known == 0) {
            s[infer] = size / known;
            known = size;
        }
        if (s.length < 1 || s.length > 8) {
            throw new IllegalArgumentException("reshape to " + Arrays.toString(newShape) + ": arrays have 1 to 8 dimensions");
        }
        if (known != size) {
            throw new ShapeMismatchException("cannot reshape an array of size " + size + " (shape " + Arrays.toString(layout.shape())
                    + ") into shape " + Arrays.toString(newShape));
        }
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
        beginWrite();
        try {
            MemorySegment d = mem();
            if (dtype.isFloatingPoint()) {
                Loops.fill(type, d, layout, value, 0);
            } else {
                Loops.fill(type, d, layout, value, code == 7 ? doubleToUnsigned(value) : (long) value);
            }
        } finally {
            endWrite();
        }
    }

    /** Sets every element; wrapped to the element width (floats: converted). */
    public void fill(long value) {
        beginWrite();
        try {
            Loops.fill(type, mem(), layout, (double) value, value);
        } finally {
            endWrite();
        }
    }

    /** Sets every element to zero. */
    public void zero() {
        fill(0L);
    }

    private void checkLength(int length) {
        if (length != size) {
            throw new ShapeMismatchException("a heap array of " + length + " elements does not fit an array of size " + size
                    + " (shape " + Arrays.toString(layout.shape()) + ")");
        }
    }

    /** Copies the values in row-major order, converted as {@link #setDouble}. */
    public void copyFrom(double[] values) {
        beginWrite();
        try {
            checkLength(values.length);
            MemorySegment d = mem();
            if (contiguous && code == 1) {
                MemorySegment.copy(values, 0, d, F64_L, layout.offset() * 8, values.length);
                return;
            }
            forEachElement(values.length, (o, i) -> writeDouble(d, o, values[i]));
        } finally {
            endWrite();
        }
    }

    /** Copies the values in row-major order, converted as {@link #setLong}. */
    public void copyFrom(long[] values) {
        beginWrite();
        try {
            checkLength(values.length);
            MemorySegment d = mem();
            if (contiguous && (code == 3 || code == 7)) {
                MemorySegment.copy(values, 0, d, I64_L, layout.offset() * 8, values.length);
                return;
            }
            forEachElement(values.length, (o, i) -> writeLong(d, o, values[i]));
        } finally {
            endWrite();
        }
    }

    /** Copies the values in row-major order, converted as {@link #setLong}. */
    public void copyFrom(int[] values) {
        beginWrite();
        try {
            checkLength(values.length);
            MemorySegment d = mem();
            if (contiguous && (code == 4 || code == 8)) {
                MemorySegment.copy(values, 0, d, I32_L, layout.offset() * 4, values.length);
                return;
            }
            forEachElement(values.length, (o, i) -> writeLong(d, o, values[i]));
        } finally {
            endWrite();
        }
    }

    /** Copies the values in row-major order, converted as {@link #setDouble}. */
    public void copyFrom(float[] values) {
        beginWrite();
        try {
            checkLength(values.length);
            MemorySegment d = mem();
            if (contiguous && code == 2) {
                MemorySegment.copy(values, 0, d, F32_L, layout.offset() * 4, values.length);
                return;
            }
            forEachElement(values.length, (o, i) -> writeDouble(d, o, values[i]));
        } finally {
            endWrite();
        }
    }

    /** Copies the values in row-major order, converted as {@link #setLong}. */
    public void copyFrom(short[] values) {
        beginWrite();
        try {
            checkLength(values.length);
            MemorySegment d = mem();
            forEachElement(values.length, (o, i) -> writeLong(d, o, values[i]));
        } finally {
            endWrite();
        }
    }

    /** Copies the values in row-major order, converted as {@link #setLong}. */
    public void copyFrom(byte[] values) {
        beginWrite();
        try {
            checkLength(values.length);
            MemorySegment d = mem();
            forEachElement(values.length, (o, i) -> writeLong(d, o, values[i]));
        } finally {
            endWrite();
        }
    }

    /** Visits the element offsets of the first n row-major positions, for heap-array copies. */
    private interface ElementVisitor {
        void visit(long offset, int position);
    }

    private void forEachElement(int n, ElementVisitor v) {
        for (int i = 0; i < n; i++) {
            v.visit(contiguous ? layout.offset() + i : layout.offsetOfFlat(i), i);
        }
    }

    /**
     * Copies another array of the same dtype and shape into this one (overlapping views of one
     * array are handled as numpy does: as if through a temporary copy).
     */
    public void copyFrom(SharedNDArray<T> other) {
        binary(Op.ASSIGN, other, "copy");
    }

    /** The elements in row-major order as doubles. */
    public double[] toDoubleArray() {
        beginRead();
        try {
            double[] out = new double[heapLength()];
            MemorySegment d = mem();
            if (contiguous && code == 1) {
                MemorySegment.copy(d, F64_L, layout.offset() * 8, out, 0, out.length);
                return out;
            }
            forEachElement(out.length, (o, i) -> out[i] = readDouble(d, o));
            return out;
        } finally {
            endRead();
        }
    }

    /** The elements in row-major order as longs, as {@link #getLong(long)}. */
    public long[] toLongArray() {
        beginRead();
        try {
            long[] out = new long[heapLength()];
            MemorySegment d = mem();
            if (contiguous && (code == 3 || code == 7)) {
                MemorySegment.copy(d, I64_L, layout.offset() * 8, out, 0, out.length);
                return out;
            }
            forEachElement(out.length, (o, i) -> out[i] = readLong(d, o));
            return out;
        } finally {
            endRead();
        }
    }

    /** The elements in row-major order as floats. */
    public float[] toFloatArray() {
        beginRead();
        try {
            float[] out = new float[heapLength()];
            MemorySegment d = mem();
            if (contiguous && code == 2) {
                MemorySegment.copy(d, F32_L, layout.offset() * 4, out, 0, out.length);
                return out;
            }
            forEachElement(out.length, (o, i) -> out[i] = (float) readDouble(d, o));
            return out;
        } finally {
            endRead();
        }
    }

    /** The elements in row-major order as ints (wider values truncated to 32 bits). */
    public int[] toIntArray() {
        beginRead();
        try {
            int[] out = new int[heapLength()];
            MemorySegment d = mem();
            if (contiguous && (code == 4 || code == 8)) {
                MemorySegment.copy(d, I32_L, layout.offset() * 4, out, 0, out.length);
                return out;
            }
            forEachElement(out.length, (o, i) -> out[i] = (int) readLong(d, o));
            return out;
        } finally {
            endRead();
        }
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
        beginRead();
        try {
            Number[] out = new Number[heapLength()];
            MemorySegment d = mem();
            for (int i = 0; i < out.length; i++) {
                long o = contiguous ? layout.offset() + i : layout.offsetOfFlat(i);
                out[i] = switch (code) {
                    case 1 -> d.getAtIndex(F64_L, o);
                    case 2 -> d.getAtIndex(F32_L, o);
                    case 3 -> d.getAtIndex(I64_L, o);
                    case 4 -> d.getAtIndex(I32_L, o);
                    case 5 -> d.getAtIndex(I16_L, o);
                    case 6 -> d.getAtIndex(I8_L, o);
                    case 7 -> new BigInteger(Long.toUnsignedString(d.getAtIndex(I64_L, o)));
                    case 8 -> Integer.toUnsignedLong(d.getAtIndex(I32_L, o));
                    case 9 -> Short.toUnsignedInt(d.getAtIndex(I16_L, o));
                    default -> Byte.toUnsignedInt(d.getAtIndex(I8_L, o));
                };
            }
            return List.of(out);
        } finally {
            endRead();
        }
    }

    /** A new contiguous shared array with these elements (the process's backend, a generated name). */
    public SharedNDArray<T> copy() {
        return copy(CreateOptions.defaults());
    }

    /** A new contiguous shared array with these elements, created as {@code options} say. */
    public SharedNDArray<T> copy(CreateOptions options) {
        beginRead();
        try {
            checkOpen();
            SharedNDArray<T> out = SharedArrays.create(dtype, layout.shape(), options);
            try {
                Loops.binary(type, Op.ASSIGN, out.mem(), out.layout, mem(), layout);
            } catch (RuntimeException | Error e) {
                out.close();
                throw e;
            }
            return out;
        } finally {
            endRead();
        }
    }

    // ---------------------------------------------------------------- reductions

    /**
     * Sum of all elements in double (integers: numpy's wrapping 64-bit sum, then converted).
     */
    public double sum() {
        beginRead();
        try {
            MemorySegment d = mem();
            if (dtype.isFloatingPoint()) {
                return Loops.reduceFloat(type, Op.SUM, d, layout);
            }
            long s = Loops.reduceInt(type, Op.SUM, d, layout);
            return code == 7 ? unsignedToDouble(s) : (double) s;
        } finally {
            endRead();
        }
    }

    /** {@link #sum()} divided by {@link #size()}. */
    public double mean() {
        return sum() / size;
    }

    /** The smallest element as a double (NaN if a float element is NaN). */
    public double minAsDouble() {
        beginRead();
        try {
            return dtype.isFloatingPoint() ? Loops.reduceFloat(type, Op.MIN, mem(), layout) : longToDouble(minAsLong());
        } finally {
            endRead();
        }
    }

    /** The largest element as a double (NaN if a float element is NaN). */
    public double maxAsDouble() {
        beginRead();
        try {
            return dtype.isFloatingPoint() ? Loops.reduceFloat(type, Op.MAX, mem(), layout) : longToDouble(maxAsLong());
        } finally {
            endRead();
        }
    }

    /**
     * The smallest element of an integer array, exactly (unsigned types as their value, U64 as
     * its bit pattern).
     *
     * @throws DTypeMismatchException for float arrays: use {@link #minAsDouble()}
     */
    public long minAsLong() {
        beginRead();
        try {
            requireInteger("minAsLong", "minAsDouble");
            return Loops.reduceInt(type, Op.MIN, mem(), layout);
        } finally {
            endRead();
        }
    }

    /**
     * The largest element of an integer array, exactly.
     *
     * @throws DTypeMismatchException for float arrays: use {@link #maxAsDouble()}
     */
    public long maxAsLong() {
        beginRead();
        try {
            requireInteger("maxAsLong", "maxAsDouble");
            return Loops.reduceInt(type, Op.MAX, mem(), layout);
        } finally {
            endRead();
        }
    }

    private double longToDouble(long v) {
        return code == 7 ? unsignedToDouble(v) : (double) v;
    }

    private void requireInteger(String method, String instead) {
        if (dtype.isFloatingPoint()) {
            throw new DTypeMismatchException(method + "() is for integer arrays, this one holds " + dtype + "; use " + instead + "()");
        }
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

    @SuppressWarnings("unchecked")
    private <R extends DType<R>> SharedNDArray<R> reduceAxis(int axis, Op op, boolean mean) {
        beginRead();
        try {
            MemorySegment d = mem();
            if (axis < 0 || axis >= layout.ndim()) {
                throw new IndexOutOfBoundsException("axis " + axis + " is out of bounds for an array of " + layout.ndim() + " dimensions");
            }
            long len = layout.shape()[axis];
            long[] outShape = layout.ndim() == 1 ? new long[] {1} : removeAxis(layout.shape(), axis);
            R outType = (R) (op == Op.SUM ? F64.TYPE : dtype);
            SharedNDArray<R> out = SharedArrays.create(outType, outShape);
            try {
                // move the axis last; then each output element reduces one row of the view
                int[] perm = new int[layout.ndim()];
                for (int i = 0, j = 0; i < perm.length; i++) {
                    if (i != axis) {
                        perm[j++] = i;
                    }
                }
                perm[perm.length - 1] = axis;
                Layout moved = layout.transpose(perm);
                long stride = moved.strides()[perm.length - 1];
                MemorySegment od = out.mem();
                long outSize = out.size;
                long[] outerShape = Arrays.copyOf(moved.shape(), perm.length - 1);
                long[] outerStrides = Arrays.copyOf(moved.strides(), perm.length - 1);
                Layout outer = perm.length == 1 ? new Layout(moved.offset(), new long[] {1}, new long[] {0})
                        : new Layout(moved.offset(), outerShape, outerStrides);
                for (long k = 0; k < outSize; k++) {
                    Layout row = new Layout(outer.offsetOfFlat(k), new long[] {len}, new long[] {stride});
                    if (dtype.isFloatingPoint()) {
                        double r = Loops.reduceFloat(type, op, d, row);
                        if (op == Op.SUM) {
                            od.setAtIndex(F64_L, k, mean ? r / len : r);
                        } else {
                            out.writeDouble(od, k, r);
                        }
                    } else {
                        long r = Loops.reduceInt(type, op, d, row);
                        if (op == Op.SUM) {
                            double v = longToDouble(r);
                            od.setAtIndex(F64_L, k, mean ? v / len : v);
                        } else {
                            out.writeLong(od, k, r);
                        }
                    }
                }
            } catch (RuntimeException | Error e) {
                out.close();
                throw e;
            }
            return out;
        } finally {
            endRead();
        }
    }

    private static long[] removeAxis(long[] shape, int axis) {
        long[] out = new long[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (i != axis) {
                out[j++] = shape[i];
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- arithmetic

    /** Adds a scalar to every element, in place. */
    public void add(double value) {
        scalar(Op.ADD, value);
    }

    /** Subtracts a scalar from every element, in place. */
    public void sub(double value) {
        scalar(Op.SUB, value);
    }

    /** Multiplies every element by a scalar, in place. */
    public void mul(double value) {
        scalar(Op.MUL, value);
    }

    /** Divides every element by a scalar, in place (IEEE: x/0 is ±inf or NaN). */
    public void div(double value) {
        scalar(Op.DIV, value);
    }

    /** Adds an integer scalar in place; integer arrays wrap. */
    public void add(long value) {
        scalar(Op.ADD, value);
    }

    /** Subtracts an integer scalar in place; integer arrays wrap. */
    public void sub(long value) {
        scalar(Op.SUB, value);
    }

    /** Multiplies by an integer scalar in place; integer arrays wrap. */
    public void mul(long value) {
        scalar(Op.MUL, value);
    }

    /**
     * Divides by an integer scalar in place: floor division for integer arrays.
     *
     * @throws ArithmeticException if an integer array is divided by 0 (nothing is written)
     */
    public void div(long value) {
        scalar(Op.DIV, value);
    }

    /** Adds another array of the same dtype and shape element-wise, in place ({@code a.add(a)} doubles). */
    public void add(SharedNDArray<T> other) {
        binary(Op.ADD, other, "add");
    }

    /** Subtracts another array element-wise, in place. */
    public void sub(SharedNDArray<T> other) {
        binary(Op.SUB, other, "subtract");
    }

    /** Multiplies by another array element-wise, in place. */
    public void mul(SharedNDArray<T> other) {
        binary(Op.MUL, other, "multiply");
    }

    /**
     * Divides by another array element-wise, in place (floor division for integer arrays).
     *
     * @throws ArithmeticException if an integer divisor element is 0 (nothing is written)
     */
    public void div(SharedNDArray<T> other) {
        binary(Op.DIV, other, "divide");
    }

    private void scalar(Op op, double value) {
        beginWrite();
        try {
            MemorySegment d = mem();
            if (!dtype.isFloatingPoint()) {
                if (value != Math.rint(value) || Double.isInfinite(value)) {
                    throw new DTypeMismatchException("cannot " + op.verb() + " " + dtype + " elements by the float " + value
                            + " in place (numpy refuses too: same_kind casting); pass a whole number");
                }
                scalar(op, code == 7 && value >= 0x1p63 ? doubleToUnsigned(value) : (long) value);
                return;
            }
            Loops.scalar(type, op, d, layout, value, 0);
        } finally {
            endWrite();
        }
    }

    private void scalar(Op op, long value) {
        beginWrite();
        try {
            MemorySegment d = mem();
            if (!dtype.isFloatingPoint()) {
                checkRange(value);
                if (op == Op.DIV && value == 0) {
                    throw new ArithmeticException("integer division by zero: " + dtype + " array divided by 0; nothing was written");
                }
            }
            Loops.scalar(type, op, d, layout, (double) value, value);
        } finally {
            endWrite();
        }
    }

    private void checkRange(long v) {
        long lo;
        long hi;
        switch (code) {
            case 4 -> { lo = Integer.MIN_VALUE; hi = Integer.MAX_VALUE; }
            case 5 -> { lo = Short.MIN_VALUE; hi = Short.MAX_VALUE; }
            case 6 -> { lo = Byte.MIN_VALUE; hi = Byte.MAX_VALUE; }
            case 7 -> { lo = 0; hi = Long.MAX_VALUE; }
            case 8 -> { lo = 0; hi = 0xFFFF_FFFFL; }
            case 9 -> { lo = 0; hi = 0xFFFF; }
            case 10 -> { lo = 0; hi = 0xFF; }
            default -> { return; }
        }
        if (v < lo || v > hi) {
            throw new IllegalArgumentException("scalar " + v + " is out of range for " + dtype + " (" + lo + " to " + hi
                    + "); numpy 2 refuses it too");
        }
    }

    private void binary(Op op, SharedNDArray<T> other, String verb) {
        MemorySegment a = mem();
        MemorySegment b = other.mem();
        if (other.dtype != (Object) dtype) {
            throw new DTypeMismatchException("cannot " + verb + " a " + other.dtype + " array into a " + dtype
                    + " array: dtypes differ (" + dtype.descr() + " vs " + other.dtype.descr() + ")");
        }
        Layout lb = other.layout;
        if (!Arrays.equals(layout.shape(), lb.shape())) {
            if (contiguous && other.contiguous && size == other.size) {
                lb = lb.reshape(layout.shape());
            } else {
                throw new ShapeMismatchException("cannot " + verb + " arrays of shapes " + Arrays.toString(layout.shape())
                        + " and " + Arrays.toString(lb.shape()) + (contiguous && other.contiguous
                        ? " (sizes " + size + " and " + other.size + ")" : "; non-contiguous views must have equal shapes"));
            }
        }
        lockPair(other);
        try {
            binaryLocked(op, a, b, lb, other.id() == id());
        } finally {
            unlockPair(other);
        }
    }

    /**
     * Write lock on this array, read lock on other, taken in the order of array id (no
     * deadlock); only the locks of views that lock (see {@link #unlocked()}).
     */
    private void lockPair(SharedNDArray<?> other) {
        boolean same = other.id() == id();
        if (same || !other.locking) {
            beginWrite();
            if (!locking && same) {
                other.beginRead();
            }
        } else if (!locking) {
            other.beginRead();
        } else if (Long.compareUnsigned(id(), other.id()) < 0) {
            beginWrite();
            try {
                other.beginRead();
            } catch (RuntimeException | Error e) {
                endWrite();
                throw e;
            }
        } else {
            other.beginRead();
            try {
                beginWrite();
            } catch (RuntimeException | Error e) {
                other.endRead();
                throw e;
            }
        }
    }

    private void unlockPair(SharedNDArray<?> other) {
        try {
            endWrite();
        } finally {
            if (other.id() != id() || !locking) {
                other.endRead();
            }
        }
    }

    private void beginWrite() {
        if (locking) {
            segment.lockWrite();
        }
    }

    private void endWrite() {
        if (locking) {
            segment.unlockWrite();
        }
    }

    private void beginRead() {
        if (locking) {
            segment.lockRead();
        }
    }

    private void endRead() {
        if (locking) {
            segment.unlockRead();
        }
    }

    private void binaryLocked(Op op, MemorySegment a, MemorySegment b, Layout lb, boolean sameArray) {
        if (op == Op.DIV && !dtype.isFloatingPoint() && Loops.anyZero(type, b, lb)) {
            throw new ArithmeticException("integer division by zero: the divisor " + dtype + " array has a zero element; nothing was written");
        }
        if (sameArray && overlaps(layout, lb) && !layout.equals(lb)) {
            // as numpy does: read the operand through a temporary copy when the two views overlap
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment tmp = arena.allocate(size * itemSize(), 64);
                Layout lt = Layout.contiguous(lb.shape());
                Loops.binary(type, Op.ASSIGN, tmp, lt, b, lb);
                Loops.binary(type, op, a, layout, tmp, lt);
            }
            return;
        }
        Loops.binary(type, op, a, layout, b, lb);
    }

    private static boolean overlaps(Layout x, Layout y) {
        long[] ex = x.extent();
        long[] ey = y.extent();
        return ex[0] <= ey[1] && ey[0] <= ex[1];
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
     *         upgraded), or the array is closed
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
     * @throws IllegalStateException if the array is closed
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
        if (code != 3 && code != 4) {
            throw new DTypeMismatchException(what + " needs an I64 or I32 array, this one holds " + dtype);
        }
        if (code == 4 && (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(what + ": " + value + " is out of range for I32 ("
                    + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + ")");
        }
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
     * @throws DTypeMismatchException if the dtype is not I64 or I32
     * @throws IllegalArgumentException if a value is out of range for I32
     * @throws IndexOutOfBoundsException if {@code index < 0 || index >= size()}
     */
    public boolean compareAndSet(long index, long expected, long value) {
        long off = atomicOffset(index, value, "compareAndSet");
        atomicOffset(index, expected, "compareAndSet");
        MemorySegment d = mem();
        return code == 3 ? (boolean) ATOMIC_LONG.compareAndSet(d, off, expected, value)
                : (boolean) ATOMIC_INT.compareAndSet(d, off, (int) expected, (int) value);
    }

    /**
     * Atomically adds {@code delta} to element {@code index} (wrapping) and returns the previous
     * value. I64 and I32 arrays only; ordering as {@link #compareAndSet}.
     */
    public long getAndAdd(long index, long delta) {
        long off = atomicOffset(index, delta, "getAndAdd");
        MemorySegment d = mem();
        return code == 3 ? (long) ATOMIC_LONG.getAndAdd(d, off, delta) : (int) ATOMIC_INT.getAndAdd(d, off, (int) delta);
    }

    /**
     * Atomically replaces element {@code index} with {@code value} and returns the previous
     * value. I64 and I32 arrays only; ordering as {@link #compareAndSet}.
     */
    public long getAndSet(long index, long value) {
        long off = atomicOffset(index, value, "getAndSet");
        MemorySegment d = mem();
        return code == 3 ? (long) ATOMIC_LONG.getAndSet(d, off, value) : (int) ATOMIC_INT.getAndSet(d, off, (int) value);
    }

    /** Reads element {@code index} with volatile semantics. I64 and I32 arrays only. */
    public long getVolatile(long index) {
        long off = atomicOffset(index, 0, "getVolatile");
        MemorySegment d = mem();
        return code == 3 ? (long) ATOMIC_LONG.getVolatile(d, off) : (int) ATOMIC_INT.getVolatile(d, off);
    }

    /** Writes element {@code index} with volatile semantics. I64 and I32 arrays only. */
    public void setVolatile(long index, long value) {
        long off = atomicOffset(index, value, "setVolatile");
        MemorySegment d = mem();
        if (code == 3) {
            ATOMIC_LONG.setVolatile(d, off, value);
        } else {
            ATOMIC_INT.setVolatile(d, off, (int) value);
        }
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
     *         this is a view
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
        return head + ")\n" + Repr.format(layout.shape(), flat -> {
            long o = layout.offsetOfFlat(flat);
            return code == 7 ? Long.toUnsignedString(d.getAtIndex(I64_L, o))
                    : dtype.isFloatingPoint() ? Double.toString(readDouble(d, o)) : Long.toString(readLong(d, o));
        });
    }
}
