package dev.sharedarrays.internal.sync;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.BarrierBrokenException;
import dev.sharedarrays.internal.os.MappedWords;
import dev.sharedarrays.internal.os.Proc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static dev.sharedarrays.internal.sync.BarrierDescriptor.*;

/**
 * The cyclic barrier's protocol on its words ({@link BarrierDescriptor}). Each arrival adds
 * one to the arrival word; the last one subtracts the party count and bumps the generation
 * futex word, which releases the others. Breaking records a reason and who broke it, then
 * bumps the generation too, so sleepers wake either way and tell the two apart by the broken
 * generation. Sleepers spin, then sleep on the generation word in slices, and between slices
 * check the registered parties' liveness ({@link Backoff}): a futex wakes nobody when a party
 * dies, so the waiters must notice it themselves.
 *
 * <p>Every call takes the barrier's memory from the caller, who checks that the barrier is
 * still open. Thread-safe: all state is in the shared words.
 */
public final class BarrierProtocol {
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT_VH = ValueLayout.JAVA_INT.varHandle();
    private static final int SPINS = 2000;

    static {
        Backoff.link();
    }

    private final ArrayHandle handle;
    private final int parties;

    /** The protocol of the barrier {@code handle} (named in messages) of {@code parties} parties. */
    public BarrierProtocol(ArrayHandle handle, int parties) {
        this.handle = handle;
        this.parties = parties;
    }

    /** Writes the words of a new barrier into zeroed memory; the magic last. */
    public static void initialize(MemorySegment d, int parties) {
        LONG_VH.setVolatile(d, PARTIES_OFFSET, (long) parties);
        LONG_VH.setVolatile(d, MAGIC_OFFSET, MAGIC);
    }

    /** The party count of the barrier in memory {@code d} of {@code elements} I64s, or -1 if it holds none. */
    public static int parties(MemorySegment d, long elements) {
        long magic = (long) LONG_VH.getVolatile(d, MAGIC_OFFSET);
        long parties = (long) LONG_VH.getVolatile(d, PARTIES_OFFSET);
        if (magic != MAGIC || parties < 1 || parties > MAX_PARTIES || elements != words((int) parties)) {
            return -1;
        }
        return (int) parties;
    }

    /** Claims a free party slot for this process; its index, or -1 if all are taken. */
    public int register(MemorySegment d) {
        for (int i = 0; i < parties; i++) {
            if (MappedWords.cas(d, slotOffset(i), 0L, Proc.selfIdent())) {
                return i;
            }
        }
        return -1;
    }

    /** Marks slot {@code slot} as left, if it still holds this process. */
    public static void leave(MemorySegment d, int slot) {
        MappedWords.cas(d, slotOffset(slot), Proc.selfIdent(), Proc.selfIdent() | LEFT);
    }

    /** The pids in the slots of parties that registered and have not left. */
    public List<Long> registeredPids(MemorySegment d) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < parties; i++) {
            long ident = (long) LONG_VH.getVolatile(d, slotOffset(i));
            if (ident != 0 && (ident & LEFT) == 0) {
                out.add(Proc.identPid(ident));
            }
        }
        return out;
    }

    public static int waiting(MemorySegment d) {
        return (int) (long) LONG_VH.getVolatile(d, ARRIVED_OFFSET);
    }

    public static boolean isBroken(MemorySegment d) {
        return (long) LONG_VH.getVolatile(d, BROKEN_REASON_OFFSET) != 0;
    }

    /**
     * Arrives and waits until the generation trips (returns the arrival index) or breaks
     * (throws). {@code generation} receives the generation before the arrival counts, so that a
     * canceller can break exactly that one.
     *
     * @throws BarrierBrokenException if this generation broke, or this wait timed out or was cancelled
     */
    public int await(MemorySegment d, Duration timeout, BooleanSupplier cancelled, AtomicLong generation) {
        long timeoutNanos = Futex.nanos(timeout);
        long start = System.nanoTime();
        int gen = (int) INT_VH.getVolatile(d, GENERATION_OFFSET);
        if (isBroken(d)) {
            throw broken(d, timeoutNanos);
        }
        generation.set(gen & 0xFFFF_FFFFL);
        if (cancelled.getAsBoolean()) {
            breakBarrier(d, gen, BarrierBrokenException.Reason.CANCELLED, Proc.selfIdent());
            throw new BarrierBrokenException("barrier " + handle + ": the wait was cancelled before it arrived; the barrier is now broken",
                    BarrierBrokenException.Reason.CANCELLED, Proc.selfPid());
        }
        long arrived = (long) MappedWords.getAndAdd(d, ARRIVED_OFFSET, 1L) + 1;
        if (arrived == parties) {
            // minus parties, not = 0: an extra arrival already counts for the next generation
            MappedWords.getAndAdd(d, ARRIVED_OFFSET, (long) -parties);
            Futex.bump(d, GENERATION_OFFSET, WAITERS_OFFSET);
            return 0;
        }
        Backoff wait = new Backoff(SPINS);
        while (true) {
            if ((int) INT_VH.getVolatile(d, GENERATION_OFFSET) != gen) {
                if (isBroken(d) && (long) LONG_VH.getVolatile(d, BROKEN_GENERATION_OFFSET) == gen) {
                    throw broken(d, timeoutNanos - (System.nanoTime() - start));
                }
                return (int) (parties - arrived);
            }
            if (isBroken(d)) {
                // broken, the generation not bumped yet, or never (its breaker died between the two
                // stores): a break attempt of ours would fail, and the loop would never sleep again
                throw broken(d, timeoutNanos - (System.nanoTime() - start));
            }
            long waited = System.nanoTime() - start;
            if (waited >= timeoutNanos) {
                long waiting = (long) LONG_VH.getVolatile(d, ARRIVED_OFFSET);
                if (breakBarrier(d, gen, BarrierBrokenException.Reason.TIMED_OUT, Proc.selfIdent())) {
                    throw new BarrierBrokenException("barrier " + handle + ": timed out after " + timeout + " with "
                            + waiting + " of " + parties + " parties arrived; the barrier is now broken for all parties",
                            BarrierBrokenException.Reason.TIMED_OUT, Proc.selfPid());
                }
                continue;
            }
            if (cancelled.getAsBoolean()) {
                breakBarrier(d, gen, BarrierBrokenException.Reason.CANCELLED, Proc.selfIdent());
                continue;
            }
            if (wait.livenessDue()) {
                long dead = deadParty(d);
                if (dead != 0) {
                    breakBarrier(d, gen, (dead & LEFT) != 0 ? BarrierBrokenException.Reason.PARTY_LEFT
                            : BarrierBrokenException.Reason.PARTY_DIED, dead & ~LEFT);
                    continue;
                }
            }
            if (!wait.spin()) {
                Futex.sleep(d, GENERATION_OFFSET, WAITERS_OFFSET, gen, Math.min(Futex.SLICE_NANOS, timeoutNanos - waited));
            }
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

    /** Breaks generation {@code gen}, naming process {@code by}; false if it had tripped or broken already. */
    public boolean breakBarrier(MemorySegment d, int gen, BarrierBrokenException.Reason reason, long by) {
        if ((int) INT_VH.getVolatile(d, GENERATION_OFFSET) != gen
                || !MappedWords.cas(d, BROKEN_REASON_OFFSET, 0L, (long) reason.ordinal() + 1)) {
            return false;
        }
        LONG_VH.setVolatile(d, BROKEN_BY_OFFSET, by);
        // the generation now, not gen: gen may have tripped between the check above and the
        // compare-and-set, and then the parties waiting in the next one must take this break as
        // theirs (with gen recorded they would take the bump below for a trip and pass alone)
        LONG_VH.setVolatile(d, BROKEN_GENERATION_OFFSET, (long) (int) INT_VH.getVolatile(d, GENERATION_OFFSET));
        Futex.bump(d, GENERATION_OFFSET, WAITERS_OFFSET);
        return true;
    }

    /** How long a reader waits for BROKEN_BY after it found the reason set ({@link #brokenBy}). */
    static final long BY_WAIT_NANOS = 100_000_000L;
    /** ... and at least, whatever its deadline: a wait whose time is up may still meet a breaker mid-break. */
    static final long BY_WAIT_FLOOR_NANOS = 10_000_000L;

    /**
     * The breaker's ident: its store follows its compare-and-set of the reason, and a breaker descheduled
     * between the two (on a busy machine, for milliseconds) left it 0 to a reader that came then (a dead
     * party named "pid 0"). So a reader waits for it, up to {@link #BY_WAIT_NANOS} and the caller's time left
     * (leftNanos), but at least {@link #BY_WAIT_FLOOR_NANOS}; 0 if it is still not there (the breaker died
     * between the two).
     */
    static long brokenBy(MemorySegment d, long leftNanos) {
        long by = (long) LONG_VH.getVolatile(d, BROKEN_BY_OFFSET);
        long limit = Math.min(BY_WAIT_NANOS, Math.max(BY_WAIT_FLOOR_NANOS, leftNanos));
        long start = System.nanoTime();
        for (int i = 0; by == 0 && System.nanoTime() - start < limit; i++) {
            if (i < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000L); // the breaker may need this core
            }
            by = (long) LONG_VH.getVolatile(d, BROKEN_BY_OFFSET);
        }
        return by;
    }

    private BarrierBrokenException broken(MemorySegment d, long leftNanos) {
        int code = (int) (long) LONG_VH.getVolatile(d, BROKEN_REASON_OFFSET);
        BarrierBrokenException.Reason[] all = BarrierBrokenException.Reason.values();
        BarrierBrokenException.Reason reason = all[Math.max(0, Math.min(all.length - 1, code - 1))];
        long pid = Proc.identPid(brokenBy(d, leftNanos));
        String why = switch (reason) {
            case PARTY_DIED -> "party pid " + pid + " died before the barrier tripped";
            case PARTY_LEFT -> "party pid " + pid + " closed the barrier, so it cannot trip any more";
            case TIMED_OUT -> "pid " + pid + " timed out waiting for the other parties";
            case CANCELLED -> "the wait of pid " + pid + " was cancelled or interrupted";
        };
        return new BarrierBrokenException("barrier " + handle + " is broken: " + why, reason, pid);
    }
}
