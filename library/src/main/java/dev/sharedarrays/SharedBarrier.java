package dev.sharedarrays;

import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Proc;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static dev.sharedarrays.internal.sync.BarrierLayout.*;

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
 * <p><b>Lifecycle.</b> The creator's {@link #close()} destroys the barrier (unless created
 * persistent); an attacher's close detaches. Closing gives up this instance's party slot.
 * Thread-safe.
 */
public final class SharedBarrier implements AutoCloseable {
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT_VH = ValueLayout.JAVA_INT.varHandle();
    private static final long SLICE_NANOS = 50_000_000L;
    /** Set in a party slot whose instance closed the barrier (idents use bits 0-63 but never bit 63). */
    private static final long LEFT = Long.MIN_VALUE;
    private static final int SPINS = 2000;
    /** Threads that block for {@link #awaitAsync}, so that callers' threads (dispatchers) never do. */
    private static final ExecutorService WAIT_THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "shared-arrays-barrier-wait");
        t.setDaemon(true);
        return t;
    });

    private final SharedNDArray<I64> array;
    private final int parties;
    private int slot = -1;

    private SharedBarrier(SharedNDArray<I64> array, int parties) {
        this.array = array;
        this.parties = parties;
    }

    /** Creates a barrier for {@code parties} parties, with the process's backend and a generated name. */
    public static SharedBarrier create(int parties) {
        return create(parties, CreateOptions.defaults());
    }

    /**
     * Creates a barrier for {@code parties} parties as {@code options} say.
     *
     * @throws IllegalArgumentException if {@code parties < 1 || parties > 4096}
     */
    public static SharedBarrier create(int parties, CreateOptions options) {
        if (parties < 1 || parties > MAX_PARTIES) {
            throw new IllegalArgumentException("a barrier has 1 to " + MAX_PARTIES + " parties, but parties was " + parties);
        }
        SharedNDArray<I64> a = SharedArrays.create(I64.TYPE, new long[] {words(parties)}, options);
        MemorySegment d = a.data();
        LONG_VH.setVolatile(d, PARTIES_OFFSET, (long) parties);
        LONG_VH.setVolatile(d, MAGIC_OFFSET, MAGIC);
        return new SharedBarrier(a, parties);
    }

    /**
     * Attaches the barrier a handle names.
     *
     * @throws InvalidSegmentException if the handle names an array that is not a barrier
     * @throws SegmentNotFoundException if nothing is there
     */
    public static SharedBarrier attach(ArrayHandle handle) {
        SharedNDArray<?> any = SharedArrays.attach(handle);
        try {
            if (any.dtype() != I64.TYPE || any.ndim() != 1 || any.size() < words(1)) {
                throw notBarrier(handle, "it is an array of " + any.dtype() + " " + java.util.Arrays.toString(any.shape()));
            }
            MemorySegment d = any.data();
            long magic = (long) LONG_VH.getVolatile(d, MAGIC_OFFSET);
            long parties = (long) LONG_VH.getVolatile(d, PARTIES_OFFSET);
            if (magic != MAGIC || parties < 1 || parties > MAX_PARTIES || any.size() != words((int) parties)) {
                throw notBarrier(handle, "no barrier magic or party count in its data (an I64 array of "
                        + any.size() + " elements)");
            }
            return new SharedBarrier(any.as(I64.TYPE), (int) parties);
        } catch (RuntimeException e) {
            any.close();
            throw e;
        }
    }

    /** {@link #attach(ArrayHandle)} of {@link ArrayHandle#parse(String)}. */
    public static SharedBarrier attach(String handle) {
        return attach(ArrayHandle.parse(handle));
    }

    private static InvalidSegmentException notBarrier(ArrayHandle h, String why) {
        return new InvalidSegmentException(h + " is not a shared barrier: " + why);
    }

    /** The handle to pass to other processes. */
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
     * @throws IllegalStateException if all party slots are taken
     */
    public synchronized int register() {
        if (slot >= 0) {
            return slot;
        }
        MemorySegment d = array.data();
        for (int i = 0; i < parties; i++) {
            if (LONG_VH.compareAndSet(d, slotOffset(i), 0L, Proc.selfIdent())) {
                slot = i;
                return i;
            }
        }
        throw new IllegalStateException("barrier " + handle() + " has all " + parties + " parties registered (pids "
                + registeredPids() + "); create it with more parties");
    }

    /** The pids of the registered parties (a process appears once per registered instance). */
    public List<Long> registeredPids() {
        MemorySegment d = array.data();
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < parties; i++) {
            long ident = (long) LONG_VH.getVolatile(d, slotOffset(i));
            if (ident != 0 && (ident & LEFT) == 0) {
                out.add(Proc.identPid(ident));
            }
        }
        return out;
    }

    /** How many parties wait in the current generation. */
    public int waiting() {
        return (int) (long) LONG_VH.getVolatile(array.data(), ARRIVED_OFFSET);
    }

    /** True once a party died, timed out or was cancelled. */
    public boolean isBroken() {
        return (long) LONG_VH.getVolatile(array.data(), BROKEN_REASON_OFFSET) != 0;
    }

    /**
     * Arrives and waits until all parties have arrived. Blocks the calling thread (Kotlin: use
     * the suspending {@code await} of the DSL).
     *
     * @return the arrival index: {@code parties() - 1} for the first to arrive, 0 for the last
     * @throws BarrierBrokenException if a registered party died, this or another wait timed out
     *         or was cancelled (the message names the pid); an interrupt of this thread breaks
     *         the barrier (reason CANCELLED) and leaves the interrupt flag set
     */
    public int await(Duration timeout) {
        Thread t = Thread.currentThread();
        return awaitUntil(timeout, t::isInterrupted, new AtomicLong());
    }

    /**
     * {@link #await} on a thread of this library's, for callers that must not block (coroutine
     * dispatchers, event loops). Cancelling the future breaks the barrier, as an interrupt does.
     */
    public CompletableFuture<Integer> awaitAsync(Duration timeout) {
        register();
        CompletableFuture<Integer> f = new CompletableFuture<>();
        AtomicLong generation = new AtomicLong(-1);
        WAIT_THREADS.execute(() -> {
            try {
                f.complete(awaitUntil(timeout, f::isCancelled, generation));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        // break at once, not at the waiting thread's next look: a party arriving meanwhile must not trip it
        f.whenComplete((r, e) -> {
            long gen = generation.get();
            if (f.isCancelled() && gen >= 0 && !array.isClosed()) {
                try {
                    breakBarrier(array.data(), (int) gen, BarrierBrokenException.Reason.CANCELLED, Proc.selfIdent());
                } catch (IllegalStateException closed) {
                    // closed meanwhile: its slot says the party left
                }
            }
        });
        return f;
    }

    /** Arrives and waits; {@code generation} receives the generation before the arrival counts. */
    private int awaitUntil(Duration timeout, BooleanSupplier cancelled, AtomicLong generation) {
        long timeoutNanos = saturatedNanos(timeout);
        register();
        MemorySegment d = array.data();
        int gen = (int) INT_VH.getVolatile(d, GENERATION_OFFSET);
        if (isBroken()) {
            throw broken(d);
        }
        generation.set(gen & 0xFFFF_FFFFL);
        if (cancelled.getAsBoolean()) {
            breakBarrier(d, gen, BarrierBrokenException.Reason.CANCELLED, Proc.selfIdent());
            throw new BarrierBrokenException("barrier " + handle() + ": the wait was cancelled before it arrived; the barrier is now broken",
                    BarrierBrokenException.Reason.CANCELLED, Proc.selfPid());
        }
        long arrived = (long) LONG_VH.getAndAdd(d, ARRIVED_OFFSET, 1L) + 1;
        if (arrived == parties) {
            // minus parties, not = 0: an extra arrival already counts for the next generation
            LONG_VH.getAndAdd(d, ARRIVED_OFFSET, (long) -parties);
            INT_VH.getAndAdd(d, GENERATION_OFFSET, 1);
            wake(d);
            return 0;
        }
        long start = System.nanoTime();
        long checked = start;
        int spins = 0;
        while (true) {
            if ((int) INT_VH.getVolatile(d, GENERATION_OFFSET) != gen) {
                if (isBroken() && (long) LONG_VH.getVolatile(d, BROKEN_GENERATION_OFFSET) == gen) {
                    throw broken(d);
                }
                return (int) (parties - arrived);
            }
            long now = System.nanoTime();
            if (now - start >= timeoutNanos) {
                long waiting = (long) LONG_VH.getVolatile(d, ARRIVED_OFFSET);
                if (breakBarrier(d, gen, BarrierBrokenException.Reason.TIMED_OUT, Proc.selfIdent())) {
                    throw new BarrierBrokenException("barrier " + handle() + ": timed out after " + timeout + " with "
                            + waiting + " of " + parties + " parties arrived; the barrier is now broken for all parties",
                            BarrierBrokenException.Reason.TIMED_OUT, Proc.selfPid());
                }
                continue;
            }
            if (cancelled.getAsBoolean()) {
                breakBarrier(d, gen, BarrierBrokenException.Reason.CANCELLED, Proc.selfIdent());
                continue;
            }
            if (now - checked >= SLICE_NANOS) {
                checked = now;
                long dead = deadParty(d);
                if (dead != 0) {
                    breakBarrier(d, gen, (dead & LEFT) != 0 ? BarrierBrokenException.Reason.PARTY_LEFT
                            : BarrierBrokenException.Reason.PARTY_DIED, dead & ~LEFT);
                    continue;
                }
            }
            if (spins++ < SPINS) {
                Thread.onSpinWait();
                continue;
            }
            INT_VH.getAndAdd(d, WAITERS_OFFSET, 1);
            try {
                Libc.futexWait(d.address() + GENERATION_OFFSET, gen, Math.min(SLICE_NANOS, timeoutNanos - (now - start)));
            } finally {
                INT_VH.getAndAdd(d, WAITERS_OFFSET, -1);
            }
        }
    }

    private static long saturatedNanos(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("timeout cannot be negative, but was " + d);
        }
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The slot word of a registered party that closed the barrier or whose process is gone, else 0. */
    private long deadParty(MemorySegment d) {
        for (int i = 0; i < parties; i++) {
            long ident = (long) LONG_VH.getVolatile(d, slotOffset(i));
            if (ident != 0 && ((ident & LEFT) != 0 || !Proc.identAlive(ident))) {
                return ident;
            }
        }
        return 0;
    }

    /** Breaks generation gen; false if it had tripped or broken already. */
    private boolean breakBarrier(MemorySegment d, int gen, BarrierBrokenException.Reason reason, long by) {
        if ((int) INT_VH.getVolatile(d, GENERATION_OFFSET) != gen
                || !LONG_VH.compareAndSet(d, BROKEN_REASON_OFFSET, 0L, (long) reason.ordinal() + 1)) {
            return false;
        }
        LONG_VH.setVolatile(d, BROKEN_BY_OFFSET, by);
        LONG_VH.setVolatile(d, BROKEN_GENERATION_OFFSET, (long) gen);
        INT_VH.getAndAdd(d, GENERATION_OFFSET, 1);
        wake(d);
        return true;
    }

    private static void wake(MemorySegment d) {
        if ((int) INT_VH.getVolatile(d, WAITERS_OFFSET) != 0) {
            Libc.futexWake(d.address() + GENERATION_OFFSET, Integer.MAX_VALUE);
        }
    }

    private BarrierBrokenException broken(MemorySegment d) {
        int code = (int) (long) LONG_VH.getVolatile(d, BROKEN_REASON_OFFSET);
        BarrierBrokenException.Reason[] all = BarrierBrokenException.Reason.values();
        BarrierBrokenException.Reason reason = all[Math.max(0, Math.min(all.length - 1, code - 1))];
        long pid = Proc.identPid((long) LONG_VH.getVolatile(d, BROKEN_BY_OFFSET));
        String why = switch (reason) {
            case PARTY_DIED -> "party pid " + pid + " died before the barrier tripped";
            case PARTY_LEFT -> "party pid " + pid + " closed the barrier, so it cannot trip any more";
            case TIMED_OUT -> "pid " + pid + " timed out waiting for the other parties";
            case CANCELLED -> "the wait of pid " + pid + " was cancelled or interrupted";
        };
        return new BarrierBrokenException("barrier " + handle() + " is broken: " + why, reason, pid);
    }

    /**
     * Leaves the barrier and detaches (the creator's close destroys it unless it was created
     * persistent). A registered instance stays recorded as having left: parties that wait at
     * the barrier, or come to it later, get a {@link BarrierBrokenException} (reason
     * PARTY_LEFT) instead of waiting for it. Close after the last {@code await}. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (array.isClosed()) {
            return;
        }
        if (slot >= 0) {
            LONG_VH.compareAndSet(array.data(), slotOffset(slot), Proc.selfIdent(), Proc.selfIdent() | LEFT);
            slot = -1;
        }
        array.close();
    }

    @Override
    public String toString() {
        return "SharedBarrier(" + handle() + ", parties=" + parties + (array.isClosed() ? ", closed)" : ", waiting="
                + waiting() + (isBroken() ? ", broken)" : ")"));
    }
}
