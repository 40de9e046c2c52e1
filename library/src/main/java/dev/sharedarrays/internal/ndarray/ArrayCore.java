package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.DType;
import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentTruncatedException;
import dev.sharedarrays.Slice;
import dev.sharedarrays.internal.array.ElementAccess;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Locking;
import dev.sharedarrays.internal.array.Repr;
import dev.sharedarrays.internal.array.Shapes;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.backend.Backends;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import dev.sharedarrays.internal.segment.OutOfLineAccess;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.sync.SlotLease;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * What a {@code SharedNDArray} is, and the work of its state: its segment, element type, layout,
 * locks and pool slot, element access, views, close and destroy. The public class declares and
 * delegates here (as {@code MemorySegment} does to {@code AbstractMemorySegmentImpl}); the
 * operation classes beside it work on cores and return cores, which the API wraps.
 */
public final class ArrayCore {
    private final Segment segment;
    private final DType<?> marker;
    private final ElementType type;
    private final StridedLayout layout;
    private final long count;
    private final boolean contiguous;
    /** Null for the array itself; the array a view was made from. */
    private final ArrayCore base;
    private volatile boolean viewClosed;
    private final Locking locks;
    /** A shm or file array, whose file another process may shrink: element accesses go out of line. */
    private final boolean mayShrink;
    /** The pool slot this array (or the slot it is a view of) is, else null: once it ends, access throws. */
    private final SlotLease lease;
    /** True for the slot's own array: closing it frees the slot, sending it moves the slot. */
    private final boolean ownsLease;
    /** viewClosed's release stores: a closed view is seen by its own thread at once, and needs no fence. */
    private static final VarHandle VIEW_CLOSED;

    static {
        try {
            VIEW_CLOSED = MethodHandles.lookup().findVarHandle(ArrayCore.class, "viewClosed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public ArrayCore(Segment segment, DType<?> dtype) {
        this(segment, dtype, StridedLayout.contiguous(segment.facts().shape()), null, true, null, false);
    }

    private ArrayCore(Segment segment, DType<?> dtype, StridedLayout layout, ArrayCore base, boolean locking,
            SlotLease lease, boolean ownsLease) {
        this.segment = segment;
        this.marker = dtype;
        this.type = typeOf(dtype);
        this.layout = layout;
        this.count = layout.size();
        this.contiguous = layout.isContiguous();
        this.base = base;
        this.locks = new Locking(segment, locking);
        this.mayShrink = segment.mayShrink();
        this.lease = lease;
        this.ownsLease = ownsLease;
    }

    /** The element-type table's row of a marker. */
    public static ElementType typeOf(DType<?> dtype) {
        return ElementType.ofCode(dtype.code());
    }

    /** The marker of an element-type table row. */
    public static DType<?> markerOf(ElementType type) {
        return DType.ofCode(type.code());
    }

    /** A new process-local array whose elements the caller writes, every one of them. */
    public static ArrayCore empty(DType<?> dtype, long[] shape) {
        return new ArrayCore(Backends.createLocal(dtype, shape, false), dtype);
    }

    /** A new zero-filled process-local array. */
    public static ArrayCore zeros(DType<?> dtype, long[] shape) {
        return new ArrayCore(Backends.createLocal(dtype, shape, true), dtype);
    }

    /** Runs fill on a new array and returns it, or closes it if fill fails. */
    public static ArrayCore filled(ArrayCore out, Consumer<ArrayCore> fill) {
        try {
            fill.accept(out);
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
        return out;
    }

    /** The view with layout l. */
    public ArrayCore view(StridedLayout l) {
        checkOpen();
        return new ArrayCore(segment, marker, l, base == null ? this : base, locks.isLocking(), lease, false);
    }

    /** The view by one Slice per leading axis (see {@code SharedNDArray.view}). */
    public ArrayCore view(Slice... slices) {
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

    /** A view with another shape (one dimension may be -1); a copy is the caller's, for non-contiguous views. */
    public ArrayCore reshape(long... newShape) {
        long[] s = Shapes.reshape(layout.shape(), count, newShape);
        if (!contiguous) {
            throw new IllegalStateException("reshape of a non-contiguous view (shape " + Arrays.toString(layout.shape())
                    + ", strides " + Arrays.toString(layout.strides()) + ") would need a copy; call copy() first");
        }
        return view(layout.reshape(s));
    }

    /** The view with the axes reversed. */
    public ArrayCore transpose() {
        int[] perm = new int[layout.ndim()];
        for (int i = 0; i < perm.length; i++) {
            perm[i] = perm.length - 1 - i;
        }
        return view(layout.transpose(perm));
    }

    /**
     * A slot of a pool (this array), whose layout is {@code slotLayout} (the pool's {@code
     * layout().select(0, index)}), as an array of its own, which {@code lease} frees on close; unlocked.
     */
    public ArrayCore slot(StridedLayout slotLayout, SlotLease lease) {
        checkOpen();
        return new ArrayCore(segment, marker, slotLayout, this, false, lease, true);
    }

    /** The view a queue message describes; an InvalidSegmentException if it reaches outside this array. */
    public ArrayCore viewOf(long offset, long[] shape, long[] strides) {
        StridedLayout l = StridedLayout.within(offset, shape, strides, count);
        if (l == null) {
            throw new InvalidSegmentException("a queue message describes a view (offset " + offset + ", shape "
                    + Arrays.toString(shape) + ", strides " + Arrays.toString(strides) + ") outside " + handle()
                    + " of " + count + " elements");
        }
        return view(l);
    }

    /** The pool slot this array is (not a view of it), else null. */
    public SlotLease lease() {
        return ownsLease ? lease : null;
    }

    /** A pool slot that a queue took over: closed here without freeing the slot. */
    public void sent() {
        VIEW_CLOSED.setRelease(this, true);
    }

    /** The whole of this array (or view) with bulk operations that take no lock. */
    public ArrayCore unlocked() {
        checkOpen();
        return new ArrayCore(segment, marker, layout, base == null ? this : base, false, lease, false);
    }

    public boolean isLocking() {
        return locks.isLocking();
    }

    public DType<?> dtype() {
        return marker;
    }

    public ElementType type() {
        return type;
    }

    public StridedLayout layout() {
        return layout;
    }

    public long size() {
        return count;
    }

    public int itemSize() {
        return type.itemSize();
    }

    public boolean isContiguous() {
        return contiguous;
    }

    public boolean isView() {
        return base != null;
    }

    public Locking locks() {
        return locks;
    }

    public Segment segment() {
        return segment;
    }

    public ArrayHandle handle() {
        return segment.handle();
    }

    public long id() {
        return segment.facts().id();
    }

    public boolean isOwner() {
        return segment.isOwner() && base == null;
    }

    /** True for a process-local array (anonymous memory, no name, no file). */
    public boolean isLocal() {
        return segment.isLocal();
    }

    public boolean isClosed() {
        return viewClosed || segment.isClosed() || lease != null && lease.isEnded();
    }

    /** The memfd descriptor this process holds, for fd passing; -1 if none or closed. */
    public int descriptor() {
        return segment.isClosed() ? -1 : segment.fd();
    }

    /** The element bytes of the whole array; throws once this array, view or slot is closed. */
    public MemorySegment mem() {
        if (viewClosed) {
            throw new IllegalStateException("view of " + segment.handle() + " is closed");
        }
        if (lease != null && lease.isEnded()) {
            throw new IllegalStateException("pool slot " + lease.slot() + " of " + segment.handle()
                    + " was given back or sent; its arrays and views are closed");
        }
        return segment.data();
    }

    public void checkOpen() {
        mem();
    }

    /** The element offset of a flat row-major index. */
    public long flatOffset(long index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("flat index " + index + " is out of bounds for size " + count
                    + " (shape " + Arrays.toString(layout.shape()) + ")");
        }
        return contiguous ? layout.offset() + index : layout.offsetOfFlat(index);
    }

    public double getDoubleAt(long off) {
        return ElementAccess.getDouble(type, segment, mem(), off, mayShrink);
    }

    public long getLongAt(long off) {
        return ElementAccess.getLong(type, segment, mem(), off, mayShrink);
    }

    /** A store at element offset off: op is {@link OutOfLineAccess#SET_DOUBLE} or {@link OutOfLineAccess#SET_LONG}. */
    public void setAt(long off, int op, double dv, long lv) {
        ElementAccess.set(type, segment, mem(), off, op, dv, lv, mayShrink);
    }

    /** An atomic access (see {@link OutOfLineAccess}) at byte offset off. */
    public long atomic(int op, long off, long a, long b) {
        return ElementAccess.atomic(type, segment, mem(), op, off, a, b, mayShrink);
    }

    /** {@code this op= value} in place, under the write lock. */
    public void scalar(Op op, double value) {
        locks.write(() -> InPlace.scalar(type, op, mem(), layout, value));
    }

    /** {@code this op= value} in place, under the write lock. */
    public void scalar(Op op, long value) {
        locks.write(() -> InPlace.scalar(type, op, mem(), layout, value));
    }

    /** {@code this op= other} in place: this one's write lock, other's read lock. */
    public void binary(Op op, ArrayCore other) {
        MemorySegment a = mem();
        MemorySegment b = other.mem();
        StridedLayout lb = InPlace.operand(op, type, layout, other.type, other.layout);
        locks.writeReading(other.locks, () -> InPlace.binary(type, op, a, layout, b, lb, other.id() == id()));
    }

    /** Nothing if {@code want} is this array's element type, else a DTypeMismatchException naming both. */
    public void checkDType(DType<?> want) {
        if (want != marker) {
            throw new DTypeMismatchException("array " + handle() + " holds " + marker + " (" + marker.descr()
                    + "), not " + want + " (" + want.descr() + ")");
        }
    }

    /** Frees a pool slot, closes a view, or closes the segment (an owner's non-persistent one goes). */
    public void close() {
        if (ownsLease && !lease.isEnded()) {
            try {
                segment.guardRun(lease::release);
            } catch (SegmentTruncatedException e) {
                lease.drop(); // ended already if the release began
            }
        }
        if (base != null) {
            VIEW_CLOSED.setRelease(this, true);
        } else {
            segment.close();
        }
    }

    public void destroy() {
        if (base != null) {
            throw new IllegalStateException("destroy() the array, not a view of it (" + handle() + ")");
        }
        segment.destroy();
    }

    /** A header (dtype, shape, handle), then the values as numpy's {@code str(a)} prints them. */
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
