package dev.sharedarrays;

import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.backend.Backends;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.sync.BarrierProtocol;
import dev.sharedarrays.internal.sync.WaitThreads;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static dev.sharedarrays.internal.sync.BarrierDescriptor.MAX_PARTIES;
import static dev.sharedarrays.internal.sync.BarrierDescriptor.words;

/**
 * A cyclic barrier that lives in shared memory, so parties in several processes (and threads)
 * can meet at it. Passed by {@link #handle()} like an array: one process {@link #create}s it,
 * the others {@link #attach} it.
 *
 * <p><b>Parties.</b> Each instance that waits is one party and takes a party slot when it
 * {@link #register}s (at the latest on its first {@link #await}). Register early, right after
 * attaching: a registered party whose process dies breaks the barrier for the others, who get a
 * {@link BarrierBrokenException} naming the dead pid within about 50 ms instead of hanging. A
 * wait that times out or is cancelled breaks the barrier too. A broken barrier stays broken.
 *
 * <p><b>Memory.</b> Tripping the barrier is a sequentially consistent atomic operation: every
 * write a party made before {@code await} is visible to every party after its {@code await}
 * returns, in every process.
 *
 * <p><b>Ownership.</b> The barrier is an I64 segment (its words are described in the internal
 * barrier descriptor) owned like an array: the creator's {@link #close()} destroys it (unless
 * created persistent); an attacher's close detaches. Closing gives up this instance's party
 * slot; the other methods then throw {@link IllegalStateException}.
 *
 * <p><b>Threads.</b> Thread-safe. {@link #await} blocks the calling thread; {@link #awaitAsync}
 * blocks a daemon thread of this library's instead. Arguments must not be null.
 */
public final class SharedBarrier implements AutoCloseable {
    private final SharedNDArray<I64> array;
    private final int parties;
    private final BarrierProtocol protocol;
    /** This instance's party slot, -1 until it registers; guarded by this. */
    private int slot = -1;

    private SharedBarrier(SharedNDArray<I64> array, int parties) {
        this.array = array;
        this.parties = parties;
        this.protocol = new BarrierProtocol(array.handle(), parties);
    }

    /**
     * Creates a barrier for {@code parties} parties, with the process's backend and a generated name.
     *
     * @throws IllegalArgumentException if {@code parties < 1 || parties > 4096}
     * @throws InsufficientSpaceException if the memory cannot be reserved
     */
    public static SharedBarrier create(int parties) {
        return create(parties, CreateOptions.defaults());
    }

    /**
     * Creates a barrier for {@code parties} parties as {@code options} say.
     *
     * @throws IllegalArgumentException if {@code parties < 1 || parties > 4096}
     * @throws SegmentExistsException if {@code options.name()} or {@code options.file()} exists
     * @throws InsufficientSpaceException if the memory cannot be reserved
     * @throws NativeCallException if an OS call fails otherwise
     */
    public static SharedBarrier create(int parties, CreateOptions options) {
        if (parties < 1 || parties > MAX_PARTIES) {
            throw new IllegalArgumentException("a barrier has 1 to " + MAX_PARTIES + " parties, but parties was " + parties);
        }
        // the words are written before the name appears: no process can attach a half-made barrier
        Segment s = Backends.create(I64.TYPE, new long[] {words(parties)}, options, (d, control) -> BarrierProtocol.initialize(d, parties));
        return new SharedBarrier(SharedArrays.wrap(s).as(I64.TYPE), parties);
    }

    /**
     * Attaches the barrier a handle names.
     *
     * @throws SegmentNotFoundException if nothing is there
     * @throws InvalidSegmentException if what is there is not a complete segment, or an array
     *         that holds no barrier (not 1-d I64, no barrier magic, or a size that does not
     *         match its party count)
     * @throws SegmentTruncatedException if its file was truncated (shm and file barriers)
     */
    public static SharedBarrier attach(ArrayHandle handle) {
        SharedNDArray<?> any = SharedArrays.attach(handle);
        try {
            if (any.dtype() != I64.TYPE || any.ndim() != 1 || any.size() < words(1)) {
                throw notBarrier(handle, "it is an array of " + any.dtype() + " " + Arrays.toString(any.shape()));
            }
            int parties = any.core().segment().guard(() -> BarrierProtocol.parties(any.data(), any.size()));
            if (parties < 0) {
                throw notBarrier(handle, "no barrier magic or party count in its data (an I64 array of "
                        + any.size() + " elements)");
            }
            return new SharedBarrier(any.as(I64.TYPE), parties);
        } catch (RuntimeException e) {
            any.close();
            throw e;
        }
    }

    /**
     * {@link #attach(ArrayHandle)} of {@link ArrayHandle#parse(String)}.
     *
     * @throws IllegalArgumentException if {@code handle} is not a handle's string form
     */
    public static SharedBarrier attach(String handle) {
        return attach(ArrayHandle.parse(handle));
    }

    private static InvalidSegmentException notBarrier(ArrayHandle h, String why) {
        return new InvalidSegmentException(h + " is not a shared barrier: " + why);
    }

    /** The handle to pass to other processes; valid after close too. */
    public ArrayHandle handle() {
        return array.handle();
    }

    /** How many arrivals trip the barrier. */
    public int parties() {
        return parties;
    }

    /**
     * Registers this instance as a party (idempotent) and returns its slot index.
     *
     * @throws IllegalStateException if every party slot is taken, or this barrier is closed
     * @throws SegmentTruncatedException if another process truncated the barrier's file (shm and file barriers)
     */
    public synchronized int register() {
        if (slot >= 0) {
            return slot;
        }
        int s = guard(() -> protocol.register(array.data()));
        if (s < 0) {
            throw new IllegalStateException("barrier " + handle() + " has all " + parties + " parties registered (pids "
                    + registeredPids() + "); create it with more parties");
        }
        slot = s;
        return s;
    }

    /**
     * The pids of the registered parties (a process appears once per registered instance).
     *
     * @throws IllegalStateException if this barrier is closed
     * @throws SegmentTruncatedException if another process truncated the barrier's file (shm and file barriers)
     */
    public List<Long> registeredPids() {
        return guard(() -> protocol.registeredPids(array.data()));
    }

    /**
     * How many parties wait in the current generation.
     *
     * @throws IllegalStateException if this barrier is closed
     * @throws SegmentTruncatedException if another process truncated the barrier's file (shm and file barriers)
     */
    public int waiting() {
        return guard(() -> BarrierProtocol.waiting(array.data()));
    }

    /**
     * True once a party died, left, timed out or was cancelled.
     *
     * @throws IllegalStateException if this barrier is closed
     * @throws SegmentTruncatedException if another process truncated the barrier's file (shm and file barriers)
     */
    public boolean isBroken() {
        return guard(() -> BarrierProtocol.isBroken(array.data()));
    }

    /** Runs op on the barrier's words; a fault of a truncated file is a SegmentTruncatedException (see Segment#guard). */
    private <R> R guard(java.util.function.Supplier<R> op) {
        return array.core().segment().guard(op);
    }

    /**
     * Arrives and waits until all parties have arrived. Blocks the calling thread (Kotlin: use
     * the suspending {@code await} of the DSL).
     *
     * @return the arrival index: {@code parties() - 1} for the first to arrive, 0 for the last
     * @throws BarrierBrokenException if a registered party died or left, this or another wait
     *         timed out or was cancelled (the message names the pid); an interrupt of this
     *         thread breaks the barrier (reason CANCELLED) and leaves the interrupt flag set
     * @throws IllegalArgumentException if {@code timeout.isNegative()}
     * @throws IllegalStateException if this instance is not registered and every party slot is
     *         taken, or this barrier is closed
     * @throws SegmentTruncatedException if another process truncated the barrier's file (shm and file barriers)
     */
    public int await(Duration timeout) {
        Thread t = Thread.currentThread();
        return awaitUntil(timeout, t::isInterrupted, new AtomicLong());
    }

    /**
     * {@link #await} on a thread of this library's, for callers that must not block (coroutine
     * dispatchers, event loops). Cancelling the future breaks the barrier, as an interrupt does.
     * The future fails with what {@link #await} would throw.
     *
     * @throws IllegalStateException if this instance is not registered and every party slot is
     *         taken, or this barrier is closed
     * @throws SegmentTruncatedException if another process truncated the barrier's file (shm and file barriers)
     */
    public CompletableFuture<Integer> awaitAsync(Duration timeout) {
        register();
        AtomicLong generation = new AtomicLong(-1);
        CompletableFuture<Integer> f = WaitThreads.submit(cancelled -> awaitUntil(timeout, cancelled, generation), r -> { });
        // break at once, not at the waiting thread's next look: a party arriving meanwhile must not trip it
        f.whenComplete((r, e) -> {
            long gen = generation.get();
            if (f.isCancelled() && gen >= 0 && !array.isClosed()) {
                try {
                    guard(() -> protocol.breakBarrier(array.data(), (int) gen, BarrierBrokenException.Reason.CANCELLED, Proc.selfIdent()));
                } catch (IllegalStateException closed) {
                    // closed meanwhile: its slot says the party left
                } catch (SegmentTruncatedException gone) {
                    // the barrier's words went with its file: nothing left to break
                }
            }
        });
        return f;
    }

    /** Arrives and waits; {@code generation} receives the generation before the arrival counts. */
    private int awaitUntil(Duration timeout, BooleanSupplier cancelled, AtomicLong generation) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout cannot be negative, but was " + timeout);
        }
        register();
        return guard(() -> protocol.await(array.data(), timeout, cancelled, generation));
    }

    /**
     * Leaves the barrier and detaches (the creator's close destroys it unless it was created
     * persistent). A registered instance stays recorded as having left: parties that wait at
     * the barrier, or come to it later, get a {@link BarrierBrokenException} (reason
     * PARTY_LEFT) instead of waiting for it. Close after the last {@code await}. A truncated file
     * does not make it fail (the party words went with it). Idempotent.
     */
    @Override
    public synchronized void close() {
        if (array.isClosed()) {
            return;
        }
        if (slot >= 0) {
            int s = slot;
            array.core().segment().updateUnlessTruncated(() -> BarrierProtocol.leave(array.data(), s));
            slot = -1;
        }
        array.close();
    }

    /** The handle, parties, waiting parties and whether it broke; says so instead of throwing if the file was truncated. */
    @Override
    public String toString() {
        String head = "SharedBarrier(" + handle() + ", parties=" + parties;
        if (array.isClosed()) {
            return head + ", closed)";
        }
        try {
            return head + guard(() -> ", waiting=" + BarrierProtocol.waiting(array.data())
                    + (BarrierProtocol.isBroken(array.data()) ? ", broken)" : ")"));
        } catch (SegmentTruncatedException e) {
            return head + ", file truncated)";
        }
    }
}
