package dev.sharedarrays;

import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.backend.Backends;
import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.segment.Registry;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentDescriptor;
import dev.sharedarrays.internal.sync.PoolProtocol;
import dev.sharedarrays.internal.sync.SlotLease;
import dev.sharedarrays.internal.sync.WaitThreads;
import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * N equal arrays ("slots") in one shared segment, reserved once, handed out and taken back
 * without creating or removing anything: the buffers of a stream. The segment is a valid .npy of
 * shape {@code (slots, *slotShape)}, so numpy maps every slot at once.
 *
 * <p><b>Ownership.</b> {@link #acquire} hands out a free slot as an array owned by this process;
 * closing that array returns the slot, and sending it through an {@link ArrayQueue} moves it to
 * the receiver without a copy. A slot has one owner at a time: a process, or a queue while in
 * flight. A slot whose owning process died is free again within about 50 ms for an
 * {@link #acquire} waiting for one, and at every {@link #free()}. A slot in flight in a queue
 * whose processes all died goes back when a sweep removes that queue ({@link SharedArrays#sweep},
 * {@code sharedarrays sweep} or {@code rm}, or the background sweep), and an {@link #acquire}
 * that waits while slots stay in flight starts that sweep of the shm directory itself (at most
 * once a second; not with {@code SHARED_ARRAYS_AUTO_SWEEP=0}). Slots in flight in a memfd queue
 * whose processes all died, or in a queue file removed by hand, stay taken: no one can read that
 * queue any more, and a pool cannot tell such a queue from a live one.
 *
 * <p>Closing the pool returns the slots this instance still holds and unmaps it (its slot arrays
 * then throw {@link IllegalStateException}); the creator's close of an {@link Lifetime#OWNER} pool
 * also removes its name, while attached processes keep their mappings until they close. At a
 * normal JVM exit the shutdown hook closes the pools still open, after the queues.
 *
 * <p><b>Locks.</b> A slot array's bulk operations take no lock ({@link SharedNDArray#isLocking()} is
 * false): its owner is its only user, and the pool has one lock for all its slots.
 *
 * <p><b>Threads.</b> Thread-safe. {@link #acquire} blocks the calling thread; {@link #acquireAsync}
 * blocks a thread of this library's instead. Arguments must not be null.
 *
 * @param <T> the element type of the slots
 */
public final class ArrayPool<T extends DType<T>> implements AutoCloseable {
    /** How long an acquire waits between two looks at the slots in flight. */
    private static final long STUCK_LOOK_NANOS = 250_000_000L;

    private final SharedNDArray<T> array;
    private final int slots;
    private final long[] slotShape;
    /** The lease of each slot this instance holds, by slot: no hash of a new lease a message. */
    private final AtomicReferenceArray<SlotLease> held;
    private final StridedLayout[] slotLayouts;
    /** Where the next acquire starts looking, so that slots are used round-robin. */
    private final AtomicInteger next = new AtomicInteger();

    /** Closes this pool at normal exit, after the queues and before the arrays; forgotten by {@link #close()}. */
    private final Runnable atExit;

    private ArrayPool(SharedNDArray<T> array, int slots) {
        this.array = array;
        this.slots = slots;
        this.held = new AtomicReferenceArray<>(slots);
        this.slotLayouts = new StridedLayout[slots];
        long[] shape = array.shape();
        this.slotShape = Arrays.copyOfRange(shape, 1, shape.length);
        this.atExit = exitClose(new WeakReference<>(this));
        Registry.atExit(atExit, Registry.ExitStage.POOLS);
    }

    /** Closes the pool if it was not collected (held weakly: the registry must not keep it). */
    private static Runnable exitClose(WeakReference<ArrayPool<?>> pool) {
        return () -> {
            ArrayPool<?> p = pool.get();
            if (p != null) {
                p.close();
            }
        };
    }

    /**
     * Creates a pool of {@code slots} zero-filled slots of {@code slotShape}, with the process's
     * backend and a generated name.
     *
     * @throws IllegalArgumentException if {@code slots < 1 || slots > 256}, {@code slotShape} has
     *         no or more than 7 dimensions or a dimension below 1, or the pool exceeds 1 TiB
     * @throws InsufficientSpaceException if the memory cannot be reserved
     */
    public static <T extends DType<T>> ArrayPool<T> create(T dtype, int slots, long... slotShape) {
        return create(dtype, slots, slotShape, CreateOptions.defaults());
    }

    /**
     * Creates a pool as {@code options} say; see {@link #create(DType, int, long...)}.
     *
     * @throws SegmentExistsException if the name or file exists
     */
    public static <T extends DType<T>> ArrayPool<T> create(T dtype, int slots, long[] slotShape, CreateOptions options) {
        if (slots < 1 || slots > SegmentDescriptor.POOL_MAX_SLOTS) {
            throw new IllegalArgumentException("a pool has 1 to " + SegmentDescriptor.POOL_MAX_SLOTS + " slots, but slots was " + slots);
        }
        if (slotShape.length < 1 || slotShape.length >= SegmentDescriptor.MAX_DIMS) {
            throw new IllegalArgumentException("a slot has 1 to " + (SegmentDescriptor.MAX_DIMS - 1)
                    + " dimensions, but slotShape was " + Arrays.toString(slotShape));
        }
        long[] shape = new long[slotShape.length + 1];
        shape[0] = slots;
        System.arraycopy(slotShape, 0, shape, 1, slotShape.length);
        // the pool words are written before the name appears: no process can attach a half-made pool
        Segment s = Backends.create(dtype, shape, options, (data, control) -> PoolProtocol.initialize(control, slots));
        return new ArrayPool<>(new SharedNDArray<>(s, dtype), slots);
    }

    /**
     * Attaches the pool a handle names.
     *
     * @throws SegmentNotFoundException if nothing is there
     * @throws InvalidSegmentException if what is there is not a pool
     * @throws DTypeMismatchException if its slots hold another type
     * @throws SegmentTruncatedException if its file was truncated (shm and file pools)
     */
    public static <T extends DType<T>> ArrayPool<T> attach(ArrayHandle handle, T dtype) {
        SharedNDArray<T> a = SharedArrays.attach(handle, dtype);
        try {
            int n = a.core().segment().guard(() -> PoolProtocol.slots(a.core().segment().control()));
            if (n < 0 || n != a.shape()[0] || a.ndim() < 2) {
                throw new InvalidSegmentException(handle + " is not an array pool: it is an array of " + a.dtype() + " "
                        + Arrays.toString(a.shape()) + " without pool words in its control block");
            }
            return new ArrayPool<>(a, n);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
    }

    /** The handle to pass to other processes. */
    public ArrayHandle handle() {
        return array.handle();
    }

    public T dtype() {
        return array.dtype();
    }

    /** How many slots the pool has. */
    public int slots() {
        return slots;
    }

    /** A copy of the shape of one slot. */
    public long[] slotShape() {
        return slotShape.clone();
    }

    /** The file numpy maps with {@code numpy.load(path, mmap_mode='r+')}: shape {@code (slots, *slotShape)}. */
    public Optional<Path> path() {
        return array.path();
    }

    /**
     * How many slots are free now, after freeing those of dead processes.
     *
     * @throws IllegalStateException if this pool is closed
     * @throws SegmentTruncatedException if another process truncated the pool's file (shm and file pools)
     */
    public int free() {
        MemorySegment c = control();
        return segment().guard(() -> {
            PoolProtocol.reclaimDead(c, slots);
            return PoolProtocol.free(c, slots);
        });
    }

    /**
     * Takes a free slot, waiting at most {@code timeout} for one (spinning briefly, then sleeping on
     * a futex). Its contents are what the last owner left. Close the array to give it back, or
     * send it through a queue.
     *
     * @throws WaitTimeoutException if no slot came free in time
     * @throws IllegalArgumentException if {@code timeout.isNegative()}
     * @throws IllegalStateException if this pool is closed
     * @throws SegmentTruncatedException if another process truncated the pool's file (shm and file pools)
     * @throws java.util.concurrent.CancellationException if this thread was interrupted (the flag stays set)
     */
    public SharedNDArray<T> acquire(Duration timeout) {
        Thread t = Thread.currentThread();
        return acquire(WaitThreads.nanos(timeout), t::isInterrupted, timeout);
    }

    /**
     * {@link #acquire} on a thread of this library's, for callers that must not block. Cancelling
     * the future ends the wait; a slot taken after that goes straight back. The future fails with
     * what {@link #acquire} would throw.
     *
     * @throws SegmentTruncatedException if another process truncated the pool's file (shm and file pools)
     */
    public CompletableFuture<SharedNDArray<T>> acquireAsync(Duration timeout) {
        long nanos = WaitThreads.nanos(timeout);
        SharedNDArray<T> now = tryAcquire();
        if (now != null) {
            return CompletableFuture.completedFuture(now);
        }
        return WaitThreads.submit(cancelled -> acquire(nanos, cancelled, timeout), SharedNDArray::close);
    }

    /**
     * A free slot now, or null if none is free (no waiting).
     *
     * @throws IllegalStateException if this pool is closed
     * @throws SegmentTruncatedException if another process truncated the pool's file (shm and file pools)
     */
    public SharedNDArray<T> tryAcquire() {
        MemorySegment c = control();
        int i = segment().guard(() -> PoolProtocol.tryAcquire(c, slots, Proc.selfIdent(), next.getAndIncrement() & Integer.MAX_VALUE));
        return i < 0 ? null : adopt(i);
    }

    private SharedNDArray<T> acquire(long nanos, java.util.function.BooleanSupplier cancelled, Duration timeout) {
        SharedNDArray<T> free = tryAcquire(); // a free slot costs no clock read
        if (free != null) {
            return free;
        }
        boolean forever = nanos == Long.MAX_VALUE;
        long start = System.nanoTime();
        long[] inFlight = null;
        while (true) {
            long left = forever ? Long.MAX_VALUE : nanos - (System.nanoTime() - start);
            // waits in looks of STUCK_LOOK_NANOS: between two, slots that stayed in flight may be in a dead queue
            long look = Math.max(0, Math.min(left, STUCK_LOOK_NANOS));
            int i = segment().guard(() -> PoolProtocol.acquire(control(), slots, look, cancelled,
                    next.getAndIncrement() & Integer.MAX_VALUE));
            if (i >= 0) {
                return adopt(i);
            }
            if (left <= STUCK_LOOK_NANOS) {
                int queued = segment().guard(() -> PoolProtocol.inFlight(control(), slots));
                throw new WaitTimeoutException("no slot of pool " + handle() + " came free within " + timeout + " (all " + slots
                        + " are held: " + queued + " in queues, the rest by live processes)");
            }
            long[] before = inFlight;
            inFlight = segment().guard(() -> lookForDeadQueues(before));
        }
    }

    /**
     * The owner words of the slots in flight now. If one of them was in flight at the previous
     * look too (no receiver took it meanwhile while the pool stayed exhausted), its queue may be
     * one whose processes all died: starts the background sweep that removes such queues and
     * frees their slots (rate-limited; the freed slot wakes the acquire). A slow consumer makes
     * it sweep for nothing, never lose a message: only queues no process has open are removed.
     */
    private long[] lookForDeadQueues(long[] before) {
        MemorySegment c = control();
        long[] now = new long[slots];
        int n = 0;
        for (int i = 0; i < slots; i++) {
            long o = PoolProtocol.owner(c, i);
            if ((o & PoolProtocol.IN_QUEUE) != 0) {
                now[n++] = o;
            }
        }
        now = Arrays.copyOf(now, n);
        Arrays.sort(now);
        if (before != null) {
            for (long o : now) {
                if (Arrays.binarySearch(before, o) >= 0) {
                    Backends.sweepForStuckSlots();
                    break;
                }
            }
        }
        return now;
    }

    /** Slot i, which this process owns now, as an array whose close frees it. */
    SharedNDArray<T> adopt(int i) {
        SlotLease lease = new SlotLease(control(), i, held, this);
        held.setRelease(i, lease); // read by close() with a volatile load: publication, no store-load order
        try {
            return SharedNDArray.of(array.core().slot(slotLayout(i), lease));
        } catch (RuntimeException e) {
            lease.release();
            throw e;
        }
    }

    /** Slot i's layout, made once: layouts are immutable, and a hand-off would otherwise make one each time. */
    private StridedLayout slotLayout(int i) {
        StridedLayout l = slotLayouts[i];
        if (l == null) {
            l = array.core().layout().select(0, i);
            slotLayouts[i] = l; // a race makes two equal ones; a record's final fields publish it whole
        }
        return l;
    }

    MemorySegment control() {
        return array.core().segment().control();
    }

    Segment segment() {
        return array.core().segment();
    }

    /** Moves slot i from owner {@code from} to {@code to} (a queue's claim or free of a slot in flight); false if {@code from} does not own it. */
    boolean move(int i, long from, long to) {
        MemorySegment c = control();
        return segment().guard(() -> PoolProtocol.move(c, i, from, to));
    }

    /** The array id of the pool, the same in every process. */
    long id() {
        return array.id();
    }

    /**
     * Returns the slots this instance holds, and detaches (the creator of an OWNER pool also
     * removes it). A truncated file does not make it fail: its slots went with it. Idempotent.
     */
    @Override
    public void close() {
        if (array.isClosed()) {
            return;
        }
        Registry.forget(atExit);
        for (int i = 0; i < held.length(); i++) {
            SlotLease l = held.get(i);
            if (l != null && !segment().updateUnlessTruncated(l::release)) {
                l.drop();
            }
        }
        array.close();
    }

    public boolean isClosed() {
        return array.isClosed();
    }

    /** The dtype, slot count and shape, handle and free slots; says so instead of throwing if the file was truncated. */
    @Override
    public String toString() {
        String head = "ArrayPool(" + array.dtype() + ", " + slots + " x " + Arrays.toString(slotShape) + ", " + handle();
        if (isClosed()) {
            return head + ", closed)";
        }
        try {
            MemorySegment c = control();
            return head + ", free=" + segment().guard(() -> PoolProtocol.free(c, slots)) + ")";
        } catch (SegmentTruncatedException e) {
            return head + ", file truncated)";
        }
    }
}
