package dev.sharedarrays.internal.sync;

import dev.sharedarrays.WaitTimeoutException;
import dev.sharedarrays.internal.os.MappedWords;
import dev.sharedarrays.internal.os.Proc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;

import static dev.sharedarrays.internal.sync.LockDescriptor.*;

/**
 * The readers-writer lock of one array, in two tiers.
 *
 * <p>Across processes the lock is held by a process, in the control block's words (see
 * {@link LockDescriptor}): the writer word holds the ident of the writing process; each reading
 * process holds a reader slot. A writer first claims the writer word, which stops new readers
 * (writer preference), then waits until every reader slot is empty. A reader claims a slot and
 * then checks the writer word; if a writer came in between it steps back. Both sides use
 * sequentially consistent atomics, so one of them always sees the other. Sleepers use
 * FUTEX_WAIT on the sequence words in bounded slices and, between slices, check whether the
 * holders they wait for still run: a dead process's hold is taken over (writer) or cleared
 * (reader). A holder that is alive but does not progress (stopped by SIGSTOP or a debugger)
 * holds the lock until it continues or dies; the timed forms give up at their deadline with a
 * {@link WaitTimeoutException} that names it.
 *
 * <p>Within this process a {@link ReentrantReadWriteLock} per segment (its file's identity, see
 * {@link SegmentKey}: a copied file is another lock) orders the threads and
 * makes the lock reentrant; only the first reader and the writer touch shared memory. A thread
 * that holds the write lock may also take the read lock; a read lock cannot be upgraded.
 */
public final class ArrayLock {
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT_VH = ValueLayout.JAVA_INT.varHandle();
    private static final int SPINS = 200;
    /** The timeout of the untimed forms. */
    private static final long FOREVER = Long.MAX_VALUE;
    private static final BooleanSupplier NEVER = () -> false;
    private static final ConcurrentHashMap<SegmentKey, ArrayLock> LOCKS = new ConcurrentHashMap<>();
    /** {@link #state} while a thread claims this process's reader slot: no holds, none may be added. */
    private static final long CLAIMING = -1L;

    static {
        Backoff.link();
    }

    private final ReentrantReadWriteLock local = new ReentrantReadWriteLock();
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ArrayLock.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Taken by a first reader whose attempt without waiting failed (another process's writer, no
     * free slot, or another thread's attempt under way): it claims the slot waiting, and the other
     * first readers queue here meanwhile; a lock, not a monitor, so that a timed reader can give
     * up waiting for it. An uncontended first reader does not take it.
     */
    private final ReentrantLock guard = new ReentrantLock();
    /**
     * This process's read holds covered by its reader slot (low 32 bits) and that slot plus one
     * (high 32 bits); 0 when it holds no slot; {@link #CLAIMING} while one thread claims a slot.
     * A hold is added or dropped by a compare-and-set while the count is above 0; only the thread
     * that took the state from 0 to CLAIMING (or the write lock's holder, which keeps every reader
     * of this process out) takes the count up, and whoever takes it down to 0 frees the slot, after
     * the state says 0: a first reader may claim a second slot meanwhile.
     */
    @SuppressWarnings("unused") // through STATE
    private volatile long state;
    /** Segments of this process that use this lock; guarded by LOCKS. */
    private int refs;

    private ArrayLock() {
    }

    /** The lock of the segment {@code key} names in this process; pair with {@link #release(SegmentKey)}. */
    public static ArrayLock retain(SegmentKey key) {
        return LOCKS.compute(key, (k, v) -> {
            ArrayLock l = v == null ? new ArrayLock() : v;
            l.refs++;
            return l;
        });
    }

    public static void release(SegmentKey key) {
        LOCKS.computeIfPresent(key, (k, v) -> --v.refs == 0 ? null : v);
    }

    /** A lock of its own for a process-local array, which no other segment object shares. */
    public static ArrayLock unshared() {
        return new ArrayLock();
    }

    /** The lock of a segment without a file, by array id; pair with {@link #release(long)}. */
    public static ArrayLock retain(long id) {
        return retain(SegmentKey.ofId(id));
    }

    public static void release(long id) {
        release(SegmentKey.ofId(id));
    }

    // ---------------------------------------------------------------- this process

    /**
     * {@link #lockWrite(MemorySegment, Object, long)} without a time limit.
     *
     * @throws IllegalStateException if the calling thread holds the read lock (no upgrades:
     *         two upgrading threads would wait for each other forever)
     */
    public void lockWrite(MemorySegment control, Object what) {
        lockWrite(control, what, FOREVER);
    }

    /**
     * Takes the write lock, waiting at most timeoutNanos ({@code Long.MAX_VALUE}: no limit) for
     * the other threads and processes; {@code what} names the array in messages (its
     * {@code toString()} is called only for a message: no string is built when the lock is free).
     * Uncontended, it reads no clock.
     *
     * @throws WaitTimeoutException if the time ran out (nothing is held)
     * @throws CancellationException if a timed wait's thread was interrupted (the flag stays set)
     * @throws IllegalStateException if the calling thread holds the read lock (no upgrades:
     *         two upgrading threads would wait for each other forever)
     */
    public void lockWrite(MemorySegment control, Object what, long timeoutNanos) {
        if (local.getReadHoldCount() > 0 && !local.isWriteLockedByCurrentThread()) {
            throw new IllegalStateException("cannot take the write lock of " + what
                    + ": this thread holds its read lock, and a read lock cannot be upgraded; take the write lock first");
        }
        long left = lockLocal(local.writeLock(), control, what, "write", timeoutNanos);
        if (local.getWriteHoldCount() > 1) {
            return;
        }
        try {
            acquireWriter(control, what, left);
        } catch (RuntimeException | Error e) {
            local.writeLock().unlock();
            throw e;
        }
    }

    public void unlockWrite(MemorySegment control) {
        if (!local.isWriteLockedByCurrentThread()) {
            throw new IllegalStateException("this thread does not hold the write lock; a lock is released by the thread that took it");
        }
        try {
            if (local.getWriteHoldCount() == 1) {
                try {
                    int reads = local.getReadHoldCount();
                    if (reads > 0) {
                        // read holds taken under the write lock outlive it: cover them with a reader slot first.
                        // The state is 0: the write lock keeps every other thread out of lockRead and unlockRead
                        STATE.setRelease(this, state(claimSlot(control, Proc.selfIdent(), true), reads));
                    }
                } finally {
                    releaseWriter(control);
                }
            }
        } finally {
            local.writeLock().unlock();
        }
    }

    /** {@link #lockRead(MemorySegment, Object, long)} without a time limit. */
    public void lockRead(MemorySegment control) {
        lockRead(control, "the array", FOREVER);
    }

    /**
     * Takes the read lock, waiting at most timeoutNanos ({@code Long.MAX_VALUE}: no limit) for a
     * writer; see {@link #lockWrite(MemorySegment, Object, long)}.
     *
     * @throws WaitTimeoutException if the time ran out (nothing is held)
     * @throws CancellationException if a timed wait's thread was interrupted (the flag stays set)
     */
    public void lockRead(MemorySegment control, Object what, long timeoutNanos) {
        long left = lockLocal(local.readLock(), control, what, "read", timeoutNanos);
        if (local.isWriteLockedByCurrentThread()) {
            return;
        }
        try {
            if (addHolds(1)) {
                return; // the process's slot covers this hold too
            }
            if (STATE.compareAndSet(this, 0L, CLAIMING) && claim(control, what, false, 0)) {
                return; // uncontended: a slot without the guard
            }
            // the guard is held while the first reader waits for another process's writer
            left = lockLocal(guard, control, what, "read", left);
            try {
                for (int spins = 0; !addHolds(1); spins++) {
                    if (STATE.compareAndSet(this, 0L, CLAIMING)) {
                        claim(control, what, true, left);
                        return;
                    }
                    // another thread's attempt without waiting (loads and atomics; a liveness look at
                    // each slot when all are held): short, so neither the deadline nor an interrupt is checked
                    if (spins < 100) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield();
                    }
                }
            } finally {
                guard.unlock();
            }
        } catch (RuntimeException | Error e) {
            local.readLock().unlock();
            throw e;
        }
    }

    public void unlockRead(MemorySegment control) {
        if (local.getReadHoldCount() == 0) {
            throw new IllegalStateException("this thread does not hold the read lock; a lock is released by the thread that took it");
        }
        try {
            if (!local.isWriteLockedByCurrentThread()) {
                long s = (long) STATE.getVolatile(this);
                while (true) {
                    if (holds(s) <= 0) {
                        throw new IllegalStateException("no read hold of this process is covered by a reader slot");
                    }
                    long w = (long) STATE.compareAndExchange(this, s, holds(s) == 1 ? 0L : s - 1);
                    if (w == s) {
                        break;
                    }
                    s = w;
                }
                if (holds(s) == 1) {
                    // the last hold: free the slot (a first reader meanwhile claims another one).
                    // Compare-and-set: never clear a slot another process took over meanwhile
                    MappedWords.cas(control, slotOffset(slotOf(s)), Proc.selfIdent(), 0L);
                    Futex.bumpSamePage(control, READER_SEQ_OFFSET, READER_WAITERS_OFFSET);
                }
            }
        } finally {
            local.readLock().unlock();
        }
    }

    /**
     * Claims a reader slot for this process, the state being {@link #CLAIMING} by this thread:
     * one attempt without waiting, or waiting up to timeoutNanos. Ends the claim with the slot's
     * first hold, or with no slot (returns false) if the attempt failed or threw.
     */
    private boolean claim(MemorySegment control, Object what, boolean wait, long timeoutNanos) {
        int slot = -1;
        try {
            slot = wait ? acquireReader(control, what, timeoutNanos) : tryReader(control);
        } finally {
            STATE.setRelease(this, slot < 0 ? 0L : state(slot, 1));
        }
        return slot >= 0;
    }

    private static long state(int slot, int holds) {
        return ((long) (slot + 1) << 32) | holds;
    }

    private static int holds(long state) {
        return (int) state;
    }

    private static int slotOf(long state) {
        return (int) (state >>> 32) - 1;
    }

    /** Adds n holds if this process holds a reader slot (some holds); false if it holds none. */
    private boolean addHolds(int n) {
        long s = (long) STATE.getVolatile(this);
        while (holds(s) > 0) {
            long w = (long) STATE.compareAndExchange(this, s, s + n);
            if (w == s) {
                return true;
            }
            s = w;
        }
        return false;
    }

    /**
     * Takes a lock of this process within timeoutNanos: at once if it is free (no clock read);
     * returns the time left for the rest.
     */
    private static long lockLocal(Lock lock, MemorySegment c, Object what, String kind, long timeoutNanos) {
        if (timeoutNanos == FOREVER) {
            lock.lock();
            return FOREVER;
        }
        if (lock.tryLock()) {
            return timeoutNanos;
        }
        long t0 = System.nanoTime();
        try {
            if (lock.tryLock(timeoutNanos, TimeUnit.NANOSECONDS)) {
                return Math.max(0, timeoutNanos - (System.nanoTime() - t0));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the " + kind + " lock of " + what);
        }
        // another thread of this process holds it, or waits for the process that does
        long writer = (long) LONG_VH.getVolatile(c, WRITER_OFFSET);
        throw timedOut(what, kind, writer != 0 ? writer : Proc.selfIdent(), timeoutNanos);
    }

    // ---------------------------------------------------------------- across processes

    private static long slotOffset(int i) {
        return READER_SLOTS_OFFSET + (long) SLOT_SIZE * i;
    }

    /** A wait of at most timeoutNanos; only a timed wait ends on an interrupt. */
    private static Wait startWait(long timeoutNanos) {
        return new Wait(timeoutNanos, timeoutNanos == FOREVER ? NEVER : Thread.currentThread()::isInterrupted, SPINS);
    }

    private static void acquireWriter(MemorySegment c, Object what, long timeoutNanos) {
        long me = Proc.selfIdent();
        Wait wait = null; // started at the first contention: an uncontended writer reads no clock
        while (true) {
            long cur = (long) LONG_VH.getVolatile(c, WRITER_OFFSET);
            if (cur == 0) {
                if (MappedWords.casLoaded(c, WRITER_OFFSET, 0L, me)) {
                    break;
                }
                wait = wait != null ? wait : startWait(timeoutNanos);
                expireOnChurn(c, wait, what, "write", timeoutNanos);
                continue;
            }
            wait = wait != null ? wait : startWait(timeoutNanos);
            if (!awaitWriterChange(c, cur, wait)) {
                throw timedOut(what, "write", cur, timeoutNanos);
            }
            expireOnChurn(c, wait, what, "write", timeoutNanos);
        }
        // the writer word is ours: no new reader gets in; wait for the present ones to leave
        try {
            drainReaders(c, me, wait, what, timeoutNanos);
        } catch (RuntimeException | Error e) {
            releaseWriter(c);
            throw e;
        }
    }

    private static void drainReaders(MemorySegment c, long me, Wait wait, Object what, long timeoutNanos) {
        while (true) {
            int seq = (int) INT_VH.getVolatile(c, READER_SEQ_OFFSET);
            boolean expired = wait != null && wait.expired();
            // a last look before giving up: a dead reader is cleared even at the deadline
            boolean check = wait != null && (wait.livenessDue() || expired);
            long busy = 0;
            // The protocol's sequentially consistent loads of the slots, as a full fence and plain
            // (aligned, untorn) loads: the fence orders every load after our compare-and-set of the
            // writer word, the Dekker pair with a reader's slot store and its load of the writer
            // word, as volatile loads would, at a third of the cost of 32 of them (on the uncontended
            // hot path). The volatile load of the sequence word above keeps the JIT from hoisting
            // them out of this loop; the acquire fence below keeps our writes after them.
            VarHandle.fullFence();
            for (int i = 0; i < READER_SLOTS; i++) {
                long r = c.get(ValueLayout.JAVA_LONG, slotOffset(i));
                if (r == 0 || r == me) {
                    continue;
                }
                if (check && !Proc.identAlive(r)) {
                    if (MappedWords.cas(c, slotOffset(i), r, 0L)) {
                        recovered(c, r);
                    }
                    continue;
                }
                busy = r;
            }
            if (busy == 0) {
                VarHandle.acquireFence();
                return;
            }
            if (expired) {
                throw timedOut(what, "write", busy, timeoutNanos);
            }
            wait = wait != null ? wait : startWait(timeoutNanos); // at the first busy look
            wait.pause(c, READER_SEQ_OFFSET, READER_WAITERS_OFFSET, seq);
        }
    }

    private static void releaseWriter(MemorySegment c) {
        MappedWords.cas(c, WRITER_OFFSET, Proc.selfIdent(), 0L);
        Futex.bumpSamePage(c, WRITER_SEQ_OFFSET, WRITER_WAITERS_OFFSET);
    }

    /** Returns the reader slot this process now holds. */
    private static int acquireReader(MemorySegment c, Object what, long timeoutNanos) {
        long me = Proc.selfIdent();
        Wait wait = null;
        while (true) {
            long w = (long) LONG_VH.getVolatile(c, WRITER_OFFSET);
            if (w != 0) {
                wait = wait != null ? wait : startWait(timeoutNanos);
                if (!awaitWriterChange(c, w, wait)) {
                    throw timedOut(what, "read", w, timeoutNanos);
                }
                expireOnChurn(c, wait, what, "read", timeoutNanos);
                continue;
            }
            int rseq = (int) INT_VH.getVolatile(c, READER_SEQ_OFFSET);
            int s = claimSlot(c, me, false);
            if (s < 0) {
                // every slot is held by a live process: wait for one to leave
                wait = wait != null ? wait : startWait(timeoutNanos);
                if (wait.expired()) {
                    throw new WaitTimeoutException("could not take the read lock of " + what + " within "
                            + Duration.ofNanos(timeoutNanos) + ": all " + READER_SLOTS + " reader slots are held by live processes "
                            + readerPids(c) + ". Nothing was locked; the call may be repeated");
                }
                wait.pause(c, READER_SEQ_OFFSET, READER_WAITERS_OFFSET, rseq);
                continue;
            }
            if ((long) LONG_VH.getVolatile(c, WRITER_OFFSET) == 0) {
                return s;
            }
            stepBack(c, s);
            wait = wait != null ? wait : startWait(timeoutNanos);
            expireOnChurn(c, wait, what, "read", timeoutNanos);
        }
    }

    /**
     * After a pass that lost a compare-and-set or saw the writer word change: a word that another
     * process keeps changing must not carry a wait past its deadline, as each pass would otherwise
     * find something new and never look at the clock. Throws when the time is up and the word is held.
     */
    private static void expireOnChurn(MemorySegment c, Wait wait, Object what, String kind, long timeoutNanos) {
        long holder = (long) LONG_VH.getVolatile(c, WRITER_OFFSET);
        if (holder != 0 && wait.expired()) {
            throw timedOut(what, kind, holder, timeoutNanos);
        }
    }

    /** {@link #acquireReader} without waiting: the slot, or -1 if a writer holds or claims the word or no slot is free. */
    private static int tryReader(MemorySegment c) {
        if ((long) LONG_VH.getVolatile(c, WRITER_OFFSET) != 0) {
            return -1;
        }
        int s = claimSlot(c, Proc.selfIdent(), false);
        if (s < 0 || (long) LONG_VH.getVolatile(c, WRITER_OFFSET) == 0) {
            return s;
        }
        stepBack(c, s);
        return -1;
    }

    /** A writer claimed the word between a reader's two reads: the reader steps back so that it can proceed. */
    private static void stepBack(MemorySegment c, int slot) {
        LONG_VH.setVolatile(c, slotOffset(slot), 0L);
        Futex.bump(c, READER_SEQ_OFFSET, READER_WAITERS_OFFSET);
    }

    /**
     * Returns once the writer word no longer holds {@code w} (true), or when the wait runs out
     * first (false): spins briefly, then sleeps on the writer sequence word, and every
     * {@link Futex#SLICE_NANOS}, and at the deadline, checks whether w's process still runs. If it
     * died, clears its hold (the caller then contends as usual).
     */
    private static boolean awaitWriterChange(MemorySegment c, long w, Wait wait) {
        while ((long) LONG_VH.getVolatile(c, WRITER_OFFSET) == w) {
            boolean expired = wait.expired();
            if ((wait.livenessDue() || expired) && !Proc.identAlive(w)) {
                if (MappedWords.cas(c, WRITER_OFFSET, w, 0L)) {
                    recovered(c, w);
                    Futex.bump(c, WRITER_SEQ_OFFSET, WRITER_WAITERS_OFFSET);
                }
                return true;
            }
            if (expired) {
                return false;
            }
            int seq = (int) INT_VH.getVolatile(c, WRITER_SEQ_OFFSET);
            if ((long) LONG_VH.getVolatile(c, WRITER_OFFSET) == w) {
                wait.pause(c, WRITER_SEQ_OFFSET, WRITER_WAITERS_OFFSET, seq);
            }
        }
        return true;
    }

    private static WaitTimeoutException timedOut(Object what, String kind, long holder, long timeoutNanos) {
        return new WaitTimeoutException("could not take the " + kind + " lock of " + what + " within "
                + Duration.ofNanos(timeoutNanos) + ": it is held by " + Proc.describe(holder)
                + ". Nothing was locked; the call may be repeated");
    }

    /**
     * Claims a free reader slot, or one whose process died; -1 if all belong to live processes
     * (an exception if {@code mustHave}: a writer covering its own read holds).
     */
    private static int claimSlot(MemorySegment c, long me, boolean mustHave) {
        // a writer covering its read holds keeps new readers out: the slots held by readers about to step back free up
        for (int pass = 0; pass < (mustHave ? 1_000_000 : 2); pass++) {
            for (int i = 0; i < READER_SLOTS; i++) {
                long r = (long) LONG_VH.getVolatile(c, slotOffset(i));
                if (r == 0 && MappedWords.casLoaded(c, slotOffset(i), 0L, me)) {
                    return i;
                }
                if (pass == 1 && r != 0 && !Proc.identAlive(r) && MappedWords.cas(c, slotOffset(i), r, me)) {
                    recovered(c, r);
                    return i;
                }
            }
            Thread.onSpinWait();
        }
        if (mustHave) {
            throw new IllegalStateException("all " + READER_SLOTS + " reader slots are held by live processes");
        }
        return -1;
    }

    private static void recovered(MemorySegment c, long dead) {
        MappedWords.getAndAdd(c, RECOVERIES_OFFSET, 1L);
        LONG_VH.setVolatile(c, LAST_DEAD_OFFSET, dead);
    }

    // ---------------------------------------------------------------- inspection

    /** Pid of the process holding the write lock, 0 if none. */
    public static long writerPid(MemorySegment c) {
        return Proc.identPid((long) LONG_VH.getVolatile(c, WRITER_OFFSET));
    }

    /** Pids of the processes holding the read lock. */
    public static List<Long> readerPids(MemorySegment c) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < READER_SLOTS; i++) {
            long r = (long) LONG_VH.getVolatile(c, slotOffset(i));
            if (r != 0) {
                out.add(Proc.identPid(r));
            }
        }
        return out;
    }

    /** How many holds were taken back from dead processes. */
    public static long recoveries(MemorySegment c) {
        return (long) LONG_VH.getVolatile(c, RECOVERIES_OFFSET);
    }
}
