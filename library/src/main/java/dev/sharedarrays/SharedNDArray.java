package dev.sharedarrays;

import dev.sharedarrays.internal.Segment;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * A typed N-dimensional array whose elements live in shared memory, possibly mapped by other
 * processes (JVMs or numpy) at the same time.
 *
 * <p><b>Ownership.</b> The process that {@linkplain SharedArrays#create created} the array owns
 * the OS resource; others {@linkplain SharedArrays#attach attach} it. {@link #close()} detaches
 * this process's view (for an owner of a non-persistent array it also destroys it);
 * {@link #destroy()} releases the OS resource (owner only). Both are idempotent. After either,
 * every access throws {@link IllegalStateException}, never reads unmapped memory. A shutdown
 * hook closes the arrays still open at normal exit.
 *
 * <p><b>Threads.</b> Instances may be used from any thread. Element reads and writes are plain
 * memory accesses with no ordering between threads or processes.
 *
 * <p><b>Elements.</b> Little-endian, row-major. Integer stores wrap in the element width (300
 * stored into a U8 reads 44). {@link #getLong} reads unsigned types as their unsigned value
 * (U64 as its bit pattern: use {@link Long#toUnsignedString(long)}).
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

    private final Segment segment;
    private final T dtype;
    private final long[] shape;
    private final long size;
    private final int code;

    SharedNDArray(Segment segment, T dtype) {
        this.segment = segment;
        this.dtype = dtype;
        this.shape = segment.meta().shape();
        this.size = segment.meta().elementCount();
        this.code = dtype.code();
    }

    /** The element type. */
    public T dtype() {
        return dtype;
    }

    /** A copy of the shape. */
    public long[] shape() {
        return shape.clone();
    }

    public int ndim() {
        return shape.length;
    }

    /** Number of elements. */
    public long size() {
        return size;
    }

    /** Bytes per element. */
    public int itemSize() {
        return dtype.itemSize();
    }

    /** The string another process passes to {@link SharedArrays#attach(String)}. */
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
        return segment.isOwner();
    }

    /** True if closing the owner leaves the array in place. */
    public boolean isPersistent() {
        return segment.meta().persistent();
    }

    public boolean isClosed() {
        return segment.isClosed();
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
     * The element bytes as a memory segment, for bulk work. It becomes inaccessible when the
     * array is closed.
     */
    public MemorySegment data() {
        return segment.data();
    }

    private long checkIndex(long index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("flat index " + index + " is out of bounds for size " + size
                    + " (shape " + Arrays.toString(shape) + ")");
        }
        return index;
    }

    /** Element at a flat row-major index, as a double (U64 as its unsigned value). */
    public double getDouble(long index) {
        MemorySegment d = segment.data();
        long i = checkIndex(index);
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

    /**
     * Element at a flat index as a long: the exact value for integer types (unsigned types as
     * their unsigned value, U64 as its bit pattern), truncated toward zero for floats.
     */
    public long getLong(long index) {
        MemorySegment d = segment.data();
        long i = checkIndex(index);
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

    /** Stores a double; integer types take it truncated toward zero, then wrapped to their width. */
    public void setDouble(long index, double value) {
        if (dtype.isFloatingPoint()) {
            MemorySegment d = segment.data();
            long i = checkIndex(index);
            if (code == 1) {
                d.setAtIndex(F64_L, i, value);
            } else {
                d.setAtIndex(F32_L, i, (float) value);
            }
        } else {
            setLong(index, code == 7 ? doubleToUnsigned(value) : (long) value);
        }
    }

    /** Stores a long, wrapped to the element width (for floats: converted). */
    public void setLong(long index, long value) {
        MemorySegment d = segment.data();
        long i = checkIndex(index);
        switch (code) {
            case 1 -> d.setAtIndex(F64_L, i, (double) value);
            case 2 -> d.setAtIndex(F32_L, i, (float) value);
            case 3, 7 -> d.setAtIndex(I64_L, i, value);
            case 4, 8 -> d.setAtIndex(I32_L, i, (int) value);
            case 5, 9 -> d.setAtIndex(I16_L, i, (short) value);
            default -> d.setAtIndex(I8_L, i, (byte) value);
        }
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
        segment.sync();
    }

    /**
     * Detaches this process's view. For the owner of a non-persistent array this also destroys
     * it. Idempotent.
     */
    @Override
    public void close() {
        segment.close();
    }

    /**
     * Owner only: removes the array's name or file (a memfd goes when its last user closes) and
     * detaches. Processes still attached keep their mapping until they close. Idempotent.
     *
     * @throws IllegalStateException if this process attached rather than created the array
     */
    public void destroy() {
        segment.destroy();
    }

    @Override
    public String toString() {
        return "SharedNDArray(" + dtype + ", shape=" + Arrays.toString(shape) + ", " + handle()
                + (isClosed() ? ", closed" : "") + ")";
    }
}
